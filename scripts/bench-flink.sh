#!/usr/bin/env bash
# Real Apache Flink 2.3.0 on the reference workloads W1–W4 (BENCH-WORKLOADS.md), on this machine:
# a local MiniCluster in one JVM (-Xmx2g), Flink defaults, a DataGeneratorSource per stream, a
# counting sink that checks the document's counts and checksums. Usage:
#
#   bash scripts/bench-flink.sh [--workloads W1,W2,W3,W4] [--n 1000000[,5000000]] [--p 1] [--reps 3] [--warmup 1] \
#                              [--idle-wait SECONDS [--idle-cores 0.3]]
#
# Installs Flink's jars when missing (PyPI's apache-flink ships them) into
# ${XDG_CACHE_HOME:-$HOME/.cache}/joinlab-flink-venv, as scripts/conformance.sh does, compiles
# bench/flink/FlinkBench.java against them into target/flink-bench, and runs it. Needs Java 17
# (javac, java) and python3. A benchmark: not part of scripts/test.sh. See BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/flink-jars.sh
flink_jars bench-flink

OUT=target/flink-bench
mkdir -p "$OUT"
javac -nowarn -encoding UTF-8 -J-Xmx1g -cp "$LIB/*" -d "$OUT" bench/flink/FlinkBench.java

# The module openings Flink needs on Java 17 (as conformance/run.py passes them).
OPENS=()
for p in java.util java.lang java.lang.reflect java.io java.net java.nio sun.nio.ch \
  java.util.concurrent java.util.concurrent.atomic java.time java.math java.text sun.net.util; do
  OPENS+=(--add-opens "java.base/$p=ALL-UNNAMED")
done

echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
status=0
HZ="$(getconf CLK_TCK 2>/dev/null || echo 100)"
java -Xmx2g "${OPENS[@]}" -Dbench.user.hz="$HZ" -Dlog4j.configurationFile="$PWD/bench/flink/log4j2.properties" -cp "$LIB/*:$OUT" FlinkBench "$@" || status=$?
echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
exit "$status"
