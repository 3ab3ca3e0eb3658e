#!/usr/bin/env bash
# Re-runs the Java / Flink 2.3.0 programs whose printed vectors are hard-coded in the unit
# tests of crate/src/partition.rs, javahash.rs, javamap.rs, timers.rs and decimal.rs, writing the vectors
# to target/vectors/ for comparison. Needs Java 17 and Flink's jars (installed by
# scripts/conformance.sh into the cached virtual environment).
set -euo pipefail
cd "$(dirname "$0")"
VENV="${XDG_CACHE_HOME:-$HOME/.cache}/joinlab-flink-venv"
L=$(ls -d "$VENV"/lib/python3*/site-packages/pyflink/lib | head -1)
OUT=../../target/vectors
mkdir -p "$OUT"
javac -d "$OUT" -cp "$L/*" PartitionCheck.java JavaHashCheck.java JavaMapCheck.java TimerCheck.java SqlJoinRouting.java DecimalCheck.java DecimalJoinRouting.java
cd "$OUT"
java -cp "$L/*:." PartitionCheck > partition_vectors.txt      # partition.rs
java -cp "$L/*:." JavaHashCheck > javahash_vectors.txt        # javahash.rs
java --add-opens java.base/java.util=ALL-UNNAMED -cp . JavaMapCheck > javamap_vectors.txt   # javamap.rs
java -cp "$L/*:." TimerCheck > timers_vectors.txt             # timers.rs
java -cp "$L/*:." DecimalCheck > decimal_vectors.txt          # decimal.rs, javahash.rs (DECIMAL keys)
# A real SQL job (local MiniCluster, parallelism 4): the subtask of each join key (javahash.rs).
java --add-opens java.base/java.util=ALL-UNNAMED --add-opens java.base/java.lang=ALL-UNNAMED \
  -cp "$L/*:." SqlJoinRouting > sqljoin_out.txt 2> sqljoin_err.txt
grep '^ROW' sqljoin_out.txt | head -3
# The same for DECIMAL join keys, compact and wide, with a NULL key (javahash.rs).
java --add-opens java.base/java.util=ALL-UNNAMED --add-opens java.base/java.lang=ALL-UNNAMED \
  -cp "$L/*:." DecimalJoinRouting > decimaljoin_out.txt 2> decimaljoin_err.txt
echo "vectors written to target/vectors/"
