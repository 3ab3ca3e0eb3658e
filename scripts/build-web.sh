#!/usr/bin/env bash
# Builds the static page into dist/ with Vite. Needs web/pkg and web/pkg-export (scripts/build-wasm.sh).
# Installs the npm packages when they are missing (after that it works offline).
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "[build-web] $*" >&2; }

if [ ! -x node_modules/.bin/vite ]; then
  log "installing npm packages"
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
fi
if [ ! -f web/pkg/joinlab.js ] || [ ! -f web/pkg-export/joinlab_export.js ] || [ ! -f web/pkg-ops/joinlab_ops.js ]; then
  bash scripts/build-wasm.sh
fi
node_modules/.bin/vite build --config web/vite.config.js --logLevel warn
node -e '
const fs = require("fs"), zlib = require("zlib"), path = require("path");
const dir = "dist/assets";
let total = 0, gz = 0;
for (const f of fs.readdirSync(dir)) {
  const b = fs.readFileSync(path.join(dir, f));
  total += b.length; gz += zlib.gzipSync(b, { level: 9 }).length;
  if (f.endsWith(".wasm")) console.error(`[build-web] ${f}: ${b.length} bytes, ${zlib.gzipSync(b, { level: 9 }).length} gzipped`);
}
console.error(`[build-web] dist/assets: ${total} bytes, ${gz} gzipped`);
'
log "built dist/ (serve it with: npm run serve)"
