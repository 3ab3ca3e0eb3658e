#!/usr/bin/env bash
# Installs what building and testing need, when it is missing: the wasm32 target, the
# wasm-bindgen CLI of exactly the crate's version, npm packages, and (for tests) Chromium and
# binaryen from Debian's packages. Safe to run repeatedly.
#   bash scripts/setup.sh          # build tools + npm packages
#   bash scripts/setup.sh --test   # also Chromium for the browser tests
set -euo pipefail
cd "$(dirname "$0")/.."
WASM_BINDGEN_VERSION=0.2.130

if ! rustup target list --installed 2>/dev/null | grep -q '^wasm32-unknown-unknown$'; then
  echo "setup: adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

if ! wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION\$"; then
  echo "setup: installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (takes a few minutes)"
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

apt_install() {
  if command -v apt-get >/dev/null 2>&1; then
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    echo "setup: installing $* from Debian's packages"
    $sudo apt-get update -qq >/dev/null || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
  else
    echo "setup: please install $* (no apt-get here)" >&2
  fi
}

if ! command -v wasm-opt >/dev/null 2>&1; then
  apt_install binaryen || echo "setup: wasm-opt not available; the wasm module will be larger" >&2
fi

if [ "${1:-}" = "--test" ] && [ ! -x /usr/bin/chromium ]; then
  apt_install chromium
fi

if [ -f package-lock.json ]; then
  [ -d node_modules ] && [ node_modules -nt package-lock.json ] || npm ci --no-audit --no-fund
else
  npm install --no-audit --no-fund
fi
