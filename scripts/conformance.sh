#!/usr/bin/env bash
# Conformance suite: run every scenario (and optionally N random ones) on real Apache Flink 2.3.0
# and on the engine, and compare. Usage:
#
#   bash scripts/conformance.sh [--random N] [--seed S] [--operator NAME] [--no-gallery] [--report] [--only FILE...]
#
# Installs Flink's jars when missing (PyPI's apache-flink ships them) into
# ${XDG_CACHE_HOME:-$HOME/.cache}/joinlab-flink-venv, builds the CLI, and runs conformance/run.py.
# Needs Java 17 (javac, java) and python3. See CONFORMANCE.md.
set -euo pipefail
cd "$(dirname "$0")/.."

FLINK_VERSION=2.3.0
VENV="${JOINLAB_FLINK_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/joinlab-flink-venv}"
lib_dir() { ls -d "$VENV"/lib/python3*/site-packages/pyflink/lib 2>/dev/null | head -n1; }

LIB="$(lib_dir || true)"
if [ -z "$LIB" ] || [ ! -f "$LIB/flink-dist-$FLINK_VERSION.jar" ]; then
  echo "conformance: installing apache-flink==$FLINK_VERSION into $VENV (for its jars)"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "apache-flink==$FLINK_VERSION"
  LIB="$(lib_dir)"
fi
if [ ! -f "$LIB/flink-dist-$FLINK_VERSION.jar" ]; then
  echo "conformance: no flink-dist-$FLINK_VERSION.jar in $LIB" >&2
  exit 1
fi
for tool in java javac python3; do
  command -v "$tool" >/dev/null || { echo "conformance: $tool is needed" >&2; exit 1; }
done

cargo build --release --quiet --bin joinlab
exec python3 conformance/run.py --joinlab "$PWD/target/release/joinlab" --lib "$LIB" "$@"
