#!/usr/bin/env bash
# Builds the engine to WebAssembly and the page, then serves it on localhost.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
npm start
