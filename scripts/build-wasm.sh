#!/usr/bin/env bash
# Builds the engine as WebAssembly into web/pkg/ (joinlab.js + joinlab_bg.wasm).
#
# Installs what is missing on a fresh machine: the wasm32-unknown-unknown target (rustup) and
# wasm-bindgen-cli of exactly the version the crate pins (Cargo.lock). wasm-opt (binaryen) is
# used when present; without it the unoptimised module is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT="$ROOT/web/pkg"
TARGET=wasm32-unknown-unknown

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

# 3. Build.
log "cargo build --target $TARGET --profile wasm"
cargo build -p joinlab --lib --target "$TARGET" --profile wasm
WASM="$ROOT/target/$TARGET/wasm/joinlab.wasm"
rm -rf "$OUT"
mkdir -p "$OUT"
wasm-bindgen --target web --no-typescript --out-dir "$OUT" "$WASM"

# 4. Optimise for size.
BG="$OUT/joinlab_bg.wasm"
if command -v wasm-opt >/dev/null 2>&1; then
  if wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
      --enable-mutable-globals "$BG" -o "$BG.opt" 2>"$OUT/wasm-opt.log"; then
    mv "$BG.opt" "$BG"
    rm -f "$OUT/wasm-opt.log"
  else
    log "wasm-opt failed (kept the unoptimised module):"
    sed 's/^/  /' "$OUT/wasm-opt.log" >&2 || true
    rm -f "$BG.opt" "$OUT/wasm-opt.log"
  fi
else
  log "wasm-opt not found (apt-get install binaryen): the module is not size-optimised"
fi

RAW=$(wc -c <"$BG")
GZ=$(gzip -9 -c "$BG" | wc -c)
log "web/pkg/joinlab_bg.wasm: $RAW bytes, $GZ bytes gzipped"
