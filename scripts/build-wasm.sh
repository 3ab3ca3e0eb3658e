#!/usr/bin/env bash
# Builds the engine as WebAssembly into web/pkg/ (joinlab.js + joinlab_bg.wasm), and the Flink
# exporter as a second module into web/pkg-export/ (joinlab_export.js + joinlab_export_bg.wasm;
# cargo feature `export-module`), which the page loads only when its Export panel is opened,
# and the SQL script reader as a third into web/pkg-sql/ (joinlab_sql.js + joinlab_sql_bg.wasm;
# cargo feature `sql-module`), loaded only when a SQL scenario opens or the SQL tab is used,
# and the engine with the SQL operators (window TVF aggregation and join, temporal and lookup
# joins, a SQL query's projection) as a fourth into web/pkg-ops/ (joinlab_ops.js +
# joinlab_ops_bg.wasm; cargo feature `ops-module`), loaded only for a scenario that needs them:
# the first-load engine module leaves them out (`joinlab::SQL_OPERATORS`).
#
#   scripts/build-wasm.sh [--out DIR] [--export-out DIR | --no-export] [--sql-out DIR | --no-sql]
#                         [--ops-out DIR | --no-ops]
#                         [--features LIST]
#                         [--opt-level z|s|1|2|3] [--wasm-opt "-Oz"|"-O3"|none]
#
# The defaults build the page's two modules. The options are for the benchmarks
# (scripts/bench-wasm.sh builds the engine module plus the `bench` feature into
# target/bench/wasm-node/, and compares opt-level / wasm-opt variants): with --out, only the
# engine module is built unless --export-out names where the exporter's goes.
#
# Installs what is missing on a fresh machine: the wasm32-unknown-unknown target (rustup) and
# wasm-bindgen-cli of exactly the version the crate pins (Cargo.lock). wasm-opt (binaryen) is
# used when present; without it the unoptimised module is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT="$ROOT/web/pkg"
EXPORT_OUT="$ROOT/web/pkg-export"
SQL_OUT="$ROOT/web/pkg-sql"
OPS_OUT="$ROOT/web/pkg-ops"
TARGET=wasm32-unknown-unknown
CARGO_FEATURES=""
WASM_OPT_FLAGS="-Oz"
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT=$(mkdir -p "$2" && cd "$2" && pwd); [ "$EXPORT_OUT" = "$ROOT/web/pkg-export" ] && EXPORT_OUT=""; [ "$SQL_OUT" = "$ROOT/web/pkg-sql" ] && SQL_OUT=""; [ "$OPS_OUT" = "$ROOT/web/pkg-ops" ] && OPS_OUT=""; shift 2 ;;
    --ops-out) OPS_OUT=$(mkdir -p "$2" && cd "$2" && pwd); shift 2 ;;
    --no-ops) OPS_OUT=""; shift ;;
    --sql-out) SQL_OUT=$(mkdir -p "$2" && cd "$2" && pwd); shift 2 ;;
    --no-sql) SQL_OUT=""; shift ;;
    --export-out) EXPORT_OUT=$(mkdir -p "$2" && cd "$2" && pwd); shift 2 ;;
    --no-export) EXPORT_OUT=""; shift ;;
    --features) CARGO_FEATURES="$2"; shift 2 ;;
    # The profile `wasm` (Cargo.toml) with another opt-level, through cargo's environment.
    --opt-level) export CARGO_PROFILE_WASM_OPT_LEVEL="$2"; shift 2 ;;
    --wasm-opt) WASM_OPT_FLAGS="$2"; shift 2 ;;
    *) echo "[build-wasm] unknown option $1" >&2; exit 2 ;;
  esac
done

log() { echo "[build-wasm] $*" >&2; }

if ! command -v cargo >/dev/null 2>&1; then
  [ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
fi
command -v cargo >/dev/null 2>&1 || { log "cargo is missing: install Rust (https://rustup.rs)"; exit 1; }
export PATH="$HOME/.cargo/bin:$PATH"

# 1. The target.
if command -v rustup >/dev/null 2>&1; then
  if ! rustup target list --installed 2>/dev/null | grep -qx "$TARGET"; then
    log "installing the $TARGET target"
    rustup target add "$TARGET"
  fi
else
  log "rustup not found; assuming the $TARGET target is installed"
fi

# 2. wasm-bindgen-cli of the version in Cargo.lock (the crate pins wasm-bindgen with '=').
WB_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock 2>/dev/null || true)
if [ -z "${WB_VERSION:-}" ]; then
  WB_VERSION=$(sed -n 's/^wasm-bindgen *= *"=\([0-9.]*\)".*/\1/p' crate/Cargo.toml | head -1)
fi
[ -n "$WB_VERSION" ] || { log "cannot tell the wasm-bindgen version (Cargo.lock / crate/Cargo.toml)"; exit 1; }
HAVE=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$HAVE" != "$WB_VERSION" ]; then
  log "installing wasm-bindgen-cli $WB_VERSION (found: ${HAVE:-none})"
  cargo install wasm-bindgen-cli --version "$WB_VERSION"
fi

# 3. Build, optimise, bind and check one module: build_module FEATURES OUT_DIR OUT_NAME SMOKE_JS.
#    Both modules come from the same crate (the library as a cdylib), with different features:
#    the linker keeps what the module's #[wasm_bindgen] exports reach, so the engine's module has
#    no exporter and the exporter's no simulator.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FEATURES="--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals --enable-reference-types"
# What each module must do once built (run in node with the module as `m`).
SMOKE_ENGINE='
    const r = m.run(JSON.stringify({ streams: [
      { name: "a", columns: ["k", "ts"], key: "k", time: "ts", rows: "x, 1\nx, 9" },
      { name: "b", columns: ["k", "ts"], key: "k", time: "ts", rows: "x, 2" } ] }), true);
    if (!r || r.error || r.outputs.length !== 2 || typeof m.normalize("{}") !== "string") { console.error(JSON.stringify(r)); process.exit(1); }'
# A lookup join: the first-load module refuses it (the SQL operators are the ops module's),
# the SQL operators' module runs it.
LOOKUP='
    const lk = JSON.stringify({ job: { operator: "lookup_join" }, streams: [
      { name: "o", columns: ["k", "ts"], key: "k", time: "ts", rows: "x, 1" },
      { name: "d", columns: ["k", "ts"], key: "k", time: "ts", rows: "x, 0" } ] });
    const r2 = m.run(lk, false);'
SMOKE_LEAN="$SMOKE_ENGINE$LOOKUP"'
    if (!r2 || !r2.error || !/pkg-ops/.test(r2.message)) { console.error(JSON.stringify(r2)); process.exit(1); }'
SMOKE_OPS="$SMOKE_ENGINE$LOOKUP"'
    if (!r2 || r2.error || r2.outputs.length !== 1) { console.error(JSON.stringify(r2)); process.exit(1); }'
SMOKE_EXPORT='
    const sc = JSON.stringify({ streams: [
      { name: "a", columns: ["k", "ts"], key: "k", time: "ts", rows: "x, 1\nx, 9" },
      { name: "b", columns: ["k", "ts"], key: "k", time: "ts", rows: "x, 2" } ] });
    const j = m.export_flink(sc, "java");
    const e = m.export_flink("{", "java");
    if (typeof j !== "string" || !j.includes("class JoinlabJob") || !e || !e.error || typeof m.run === "function") { console.error(String(j), JSON.stringify(e)); process.exit(1); }'

SMOKE_SQL='
    const ok = m.sql_to_scenario("CREATE TABLE a (k INT, t TIMESTAMP(3), WATERMARK FOR t AS t);\nCREATE TABLE b (k INT, t TIMESTAMP(3), WATERMARK FOR t AS t);\nSELECT * FROM a JOIN b ON a.k = b.k;");
    const bad = m.sql_to_scenario("SELECT * FROM nowhere;");
    const back = ok && ok.scenario && m.scenario_to_sql(JSON.stringify(ok.scenario));
    const facts = ok && ok.scenario && m.script_facts(JSON.stringify(ok.scenario));
    if (!ok || !ok.scenario || !bad || !bad.errors || bad.errors[0].line !== 1 || typeof back !== "string" || typeof m.run === "function" || typeof facts !== "string" || !JSON.parse(facts).query) { console.error(JSON.stringify(ok), JSON.stringify(bad), facts); process.exit(1); }'

build_module() {
  local features="$1" out="$2" name="$3" smoke_js="$4"
  local feature_args=()
  [ -n "$features" ] && feature_args=(--features "$features")
  log "cargo rustc --target $TARGET --profile wasm --crate-type cdylib ${feature_args[*]:-}${CARGO_PROFILE_WASM_OPT_LEVEL:+ (opt-level $CARGO_PROFILE_WASM_OPT_LEVEL)}"
  cargo rustc -p joinlab --lib --target "$TARGET" --profile wasm --crate-type cdylib "${feature_args[@]}"
  local wasm="$TMP/$name.wasm"
  cp "$ROOT/target/$TARGET/wasm/joinlab.wasm" "$wasm"

  # Optimise for size with wasm-opt, BEFORE wasm-bindgen: Debian's binaryen 108 corrupts the
  # externref table export that wasm-bindgen adds (it points the export at the funcref table),
  # so it must not touch wasm-bindgen's output. The result is checked by instantiating it in
  # node; if anything is wrong the unoptimised module is used.
  bindgen() { rm -rf "$out"; mkdir -p "$out"; wasm-bindgen --target web --no-typescript --out-name "$name" --out-dir "$out" "$1"; }
  smoke() {
    node --input-type=module -e '
      import fs from "node:fs";
      const m = await import(process.argv[1] + "/" + process.argv[2] + ".js");
      m.initSync({ module: fs.readFileSync(process.argv[1] + "/" + process.argv[2] + "_bg.wasm") });
      '"$smoke_js" "$out" "$name" 2>"$TMP/smoke.log"
  }
  local optimised=no
  if [ "$WASM_OPT_FLAGS" = none ]; then
    log "wasm-opt skipped (--wasm-opt none)"
  elif command -v wasm-opt >/dev/null 2>&1; then
    if wasm-opt $WASM_OPT_FLAGS $FEATURES "$wasm" -o "$TMP/opt.wasm" 2>"$TMP/opt.log"; then
      bindgen "$TMP/opt.wasm"
      if ! command -v node >/dev/null 2>&1 || smoke; then
        optimised=yes
      else
        log "the wasm-opt output does not work; using the unoptimised module:"
        sed 's/^/  /' "$TMP/smoke.log" >&2 || true
      fi
    else
      log "wasm-opt failed; using the unoptimised module:"
      sed 's/^/  /' "$TMP/opt.log" >&2 || true
    fi
  else
    log "wasm-opt not found (apt-get install binaryen): the module is not size-optimised"
  fi
  if [ "$optimised" = no ]; then
    bindgen "$wasm"
    if command -v node >/dev/null 2>&1 && ! smoke; then
      log "the wasm module does not work:"; cat "$TMP/smoke.log" >&2; exit 1
    fi
  fi
  local bg="$out/${name}_bg.wasm"
  log "${bg#"$ROOT"/}: $(wc -c <"$bg") bytes, $(gzip -9 -c "$bg" | wc -c) bytes gzipped"
}

build_module "$CARGO_FEATURES" "$OUT" joinlab "$SMOKE_LEAN"
if [ -n "$EXPORT_OUT" ]; then
  build_module "export-module" "$EXPORT_OUT" joinlab_export "$SMOKE_EXPORT"
fi
if [ -n "$SQL_OUT" ]; then
  build_module "sql-module" "$SQL_OUT" joinlab_sql "$SMOKE_SQL"
fi
if [ -n "$OPS_OUT" ]; then
  build_module "ops-module${CARGO_FEATURES:+,$CARGO_FEATURES}" "$OPS_OUT" joinlab_ops "$SMOKE_OPS"
fi
