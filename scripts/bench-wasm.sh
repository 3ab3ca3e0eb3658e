#!/usr/bin/env bash
# Engine in wasm vs native (benchmark 2). Builds the wasm module with the page's settings
# (profile `wasm`, wasm-opt -Oz: scripts/build-wasm.sh) plus the `bench` feature into
# target/bench/wasm-node/, builds the native twin (crate/benches/scaling.rs, `--twin`), and
# runs scripts/bench-wasm.mjs: every case in wasm (Node) and right after natively, one table
# with both times and the ratio.
#
#   scripts/bench-wasm.sh [--variants z:-Oz,s:-Oz,3:-O3] [options of bench-wasm.mjs]
#   scripts/bench-wasm.sh --quick                   # W1–W4 at 1M, operators at 100k, 1 run
#   scripts/bench-wasm.sh --cases W1,W2 --reps 5
#
# --variants: opt-level:wasm-opt pairs to build and compare (default: the page's, z:-Oz);
# each variant writes target/bench/wasm-<opt>.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
log() { echo "[bench-wasm] $*" >&2; }

VARIANTS="page"
ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --variants) VARIANTS="$2"; shift 2 ;;
    *) ARGS+=("$1"); shift ;;
  esac
done

# The native twin: the bench profile (release settings: opt-level 3, fat LTO, 1 codegen unit).
# Unwinding as in scripts/bench.sh, so cargo does not build and LTO the library twice.
export CARGO_PROFILE_BENCH_PANIC=unwind
log "cargo bench --bench scaling --no-run"
NATIVE=$(cargo bench -q -p joinlab --bench scaling --no-run --message-format=json 2>/dev/null \
  | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{for(const l of s.split("\n")){try{const m=JSON.parse(l);if(m.executable&&m.target&&m.target.name==="scaling")console.log(m.executable)}catch{}}})' | tail -1)
[ -x "$NATIVE" ] || { log "could not build the native twin"; exit 1; }

IFS=',' read -ra VS <<<"$VARIANTS"
for v in "${VS[@]}"; do
  if [ "$v" = page ]; then
    OUT="$ROOT/target/bench/wasm-node"
    bash scripts/build-wasm.sh --out "$OUT" --features bench
    LABEL="the page's settings: opt-level $(sed -n '/^\[profile.wasm\]/,/^\[/s/^opt-level *= *"\{0,1\}\([^"]*\)"\{0,1\}/\1/p' Cargo.toml), wasm-opt -Oz"
    MD="$ROOT/target/bench/wasm.md"
  else
    OPT=${v%%:*}
    WOPT=${v#*:}
    OUT="$ROOT/target/bench/wasm-node-o$OPT$WOPT"
    bash scripts/build-wasm.sh --out "$OUT" --features bench --opt-level "$OPT" --wasm-opt "$WOPT"
    LABEL="opt-level $OPT, wasm-opt $WOPT"
    MD="$ROOT/target/bench/wasm-o$OPT$WOPT.md"
  fi
  log "variant: $LABEL"
  node scripts/bench-wasm.mjs --pkg "$OUT" --native "$NATIVE" --label "$LABEL" --out "$MD" "${ARGS[@]}"
done
