#!/usr/bin/env node
// A tiny static file server for dist/ on localhost (no dependencies). Also used by the browser
// tests: `import { startServer } from './scripts/serve.mjs'`.
//
//   node scripts/serve.mjs [DIR] [--port N]     (default DIR dist, port $PORT or 8080, the next free one)

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** Starts serving `root`; resolves { server, port, url, close() }. Port 0 picks a free port. */
export function startServer({ root, port = 0, host = '127.0.0.1' } = {}) {
  const base = path.resolve(root);
  const server = http.createServer((req, res) => {
    let rel;
    try {
      rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      res.writeHead(400).end('bad request');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405).end();
      return;
    }
    let file = path.resolve(base, `.${rel}`);
    if (file !== base && !file.startsWith(base + path.sep)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    fs.stat(file, (err, st) => {
      if (!err && st.isDirectory()) {
        file = path.join(file, 'index.html');
        st = fs.existsSync(file) ? fs.statSync(file) : null;
      } else if (err) st = null;
      if (!st) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      res.writeHead(200, {
        'content-type': TYPES[path.extname(file).toLowerCase()] || 'application/octet-stream',
        'content-length': st.size,
        'cache-control': 'no-cache',
        'x-content-type-options': 'nosniff',
      });
      if (req.method === 'HEAD') res.end();
      else fs.createReadStream(file).pipe(res);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const p = server.address().port;
      resolve({ server, port: p, url: `http://${host === '127.0.0.1' ? 'localhost' : host}:${p}/`, close: () => new Promise((r) => server.close(() => r())) });
    });
  });
}

async function cli() {
  const args = process.argv.slice(2);
  let dir = 'dist';
  let port = Number(process.env.PORT || 8080);
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--port') port = Number(args[++i]);
    else dir = args[i];
  }
  if (!fs.existsSync(path.join(dir, 'index.html'))) {
    console.error(`${dir}/index.html is missing: run npm run build first`);
    process.exit(1);
  }
  for (let p = port; p < port + 50; p++) {
    try {
      const s = await startServer({ root: dir, port: p });
      console.log(`Joinlab is running at ${s.url}  (serving ${path.resolve(dir)}; Ctrl+C stops)`);
      return;
    } catch (e) {
      if (e.code !== 'EADDRINUSE') throw e;
    }
  }
  console.error(`no free port in ${port}..${port + 49}`);
  process.exit(1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) cli();
