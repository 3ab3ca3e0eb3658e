// Size (benchmark 5): raw and gzip -9 size of the two wasm modules (the engine, web/pkg/, and
// the Flink exporter, web/pkg-export/), their JS glue and every file of the built page (dist/);
// what a first load of index.html transfers (the page, the files it references and the
// engine's module; not what loads later: the worker (big inputs only), the lazily imported
// chunks, docs-example.html); and what the first export adds (the exporter's glue and module
// and the runtime text, all lazily imported when the Export panel is opened).
//
//   npm run build && node scripts/size.mjs [--dist dist] [--pkg web/pkg] [--pkg-export web/pkg-export]
//                                          [--pkg-sql web/pkg-sql] [--pkg-ops web/pkg-ops]
//                                          [--md target/bench/size.md]
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return path.resolve(ROOT, i >= 0 ? args[i + 1] : dflt);
};
const dist = opt('--dist', 'dist');
const pkg = opt('--pkg', 'web/pkg');
const pkgExport = opt('--pkg-export', 'web/pkg-export');
const pkgSql = opt('--pkg-sql', 'web/pkg-sql');
const pkgOps = opt('--pkg-ops', 'web/pkg-ops');
const mdPath = opt('--md', 'target/bench/size.md');

const gz = (b) => zlib.gzipSync(b, { level: 9 }).length;
// kB = 1000 bytes (the goal's 150 KB read as 150,000 bytes).
const kb = (n) => `${(n / 1000).toFixed(1)} kB`;

function walk(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out.sort();
}

// A first load of index.html: the page, every file it names (scripts, styles, preloads), and
// the files those name as URLs the browser fetches on start (the wasm module via
// `new URL(..., import.meta.url)`, the worker); dynamic `import()`s are lazy and left out.
function firstLoad(files) {
  const byName = new Map(files.map((f) => [path.relative(dist, f).replaceAll(path.sep, '/'), f]));
  const seen = new Set(['index.html']);
  const queue = ['index.html'];
  while (queue.length) {
    const name = queue.shift();
    const file = byName.get(name);
    if (!file) continue;
    let text = fs.readFileSync(file, 'latin1');
    // Drop dynamic imports: `import("./x.js")` (and Vite's preload helper arrays of them).
    // And the worker: `new Worker(new URL("worker-….js", …))` runs only for big inputs.
    const lazy = new Set([
      ...[...text.matchAll(/import\(\s*["'`]([^"'`]+)["'`]\s*\)/g)].map((m) => m[1]),
      ...[...text.matchAll(/new Worker\(\s*new URL\(\s*(?:new URL\(\s*)?["'`]([^"'`]+)["'`]/g)].map((m) => m[1]),
    ]);
    const dir = path.posix.dirname(name);
    // HTML: <script src>, <link href> (not <a href>: a link is not fetched). JS: quoted asset
    // names (the wasm module and the worker, through new URL(…, import.meta.url)).
    const refs = name.endsWith('.html')
      ? /<(?:script|link)\b[^>]*?\b(?:src|href)=["']([^"']+)["']/g
      : /["'`](\.{0,2}\/?(?:assets\/)?[\w.-]+\.(?:js|css|wasm))["'`]/g;
    for (const m of text.matchAll(refs)) {
      const ref = m[1];
      if (!ref || /^[a-z]+:/.test(ref) || lazy.has(ref)) continue;
      let rel = path.posix.normalize(path.posix.join(dir, ref));
      if (!byName.has(rel)) rel = path.posix.normalize(path.posix.join('assets', path.posix.basename(ref)));
      if (byName.has(rel) && !seen.has(rel) && !isLazyChunk(rel, byName)) {
        seen.add(rel);
        queue.push(rel);
      }
    }
  }
  return [...seen].filter((n) => byName.has(n)).map((n) => byName.get(n));
}

// Chunks that only a dynamic import() reaches (Vite names them after their source file).
function isLazyChunk(rel, byName) {
  for (const [name, file] of byName) {
    if (!name.endsWith('.js')) continue;
    const text = fs.readFileSync(file, 'latin1');
    const base = path.posix.basename(rel);
    if (new RegExp(`import\\(\\s*["'\`][^"'\`]*${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}["'\`]`).test(text)) return true;
  }
  return false;
}

const rows = [];
const line = (label, file) => {
  const b = fs.readFileSync(file);
  rows.push({ label, raw: b.length, gz: gz(b) });
  return { raw: b.length, gz: gz(b) };
};
const md = [];
md.push('| file | raw | gzip -9 |', '|---|---:|---:|');
const wasm = line('web/pkg/joinlab_bg.wasm (the engine)', path.join(pkg, 'joinlab_bg.wasm'));
line('web/pkg/joinlab.js (wasm-bindgen glue)', path.join(pkg, 'joinlab.js'));
const hasExport = fs.existsSync(path.join(pkgExport, 'joinlab_export_bg.wasm'));
const exportWasm = hasExport ? line('web/pkg-export/joinlab_export_bg.wasm (the exporter)', path.join(pkgExport, 'joinlab_export_bg.wasm')) : null;
if (hasExport) line('web/pkg-export/joinlab_export.js (wasm-bindgen glue)', path.join(pkgExport, 'joinlab_export.js'));
// The SQL script reader (sqlparser and the Flink dialect), loaded when a SQL scenario opens.
const hasSql = fs.existsSync(path.join(pkgSql, 'joinlab_sql_bg.wasm'));
const sqlWasm = hasSql ? line('web/pkg-sql/joinlab_sql_bg.wasm (the SQL script reader)', path.join(pkgSql, 'joinlab_sql_bg.wasm')) : null;
if (hasSql) line('web/pkg-sql/joinlab_sql.js (wasm-bindgen glue)', path.join(pkgSql, 'joinlab_sql.js'));
// The engine with the SQL operators, loaded for a scenario that needs them (web/src/ops-module.js).
const hasOps = fs.existsSync(path.join(pkgOps, 'joinlab_ops_bg.wasm'));
const opsWasm = hasOps ? line('web/pkg-ops/joinlab_ops_bg.wasm (the engine with the SQL operators)', path.join(pkgOps, 'joinlab_ops_bg.wasm')) : null;
if (hasOps) line('web/pkg-ops/joinlab_ops.js (wasm-bindgen glue)', path.join(pkgOps, 'joinlab_ops.js'));
let files = [];
if (fs.existsSync(dist)) {
  files = walk(dist);
  for (const f of files) line(`dist/${path.relative(dist, f)}`, f);
}
for (const r of rows) md.push(`| ${r.label} | ${r.raw} (${kb(r.raw)}) | ${r.gz} (${kb(r.gz)}) |`);
if (files.length) {
  const all = files.map((f) => fs.readFileSync(f));
  const sumRaw = all.reduce((s, b) => s + b.length, 0);
  const sumGz = all.reduce((s, b) => s + gz(b), 0);
  md.push(`| **dist/, all ${files.length} files** | ${sumRaw} (${kb(sumRaw)}) | ${sumGz} (${kb(sumGz)}) |`);
  const first = firstLoad(files);
  const fb = first.map((f) => fs.readFileSync(f));
  const fRaw = fb.reduce((s, b) => s + b.length, 0);
  const fGz = fb.reduce((s, b) => s + gz(b), 0);
  md.push(`| **first load of index.html** (${first.map((f) => path.basename(f)).join(', ')}) | ${fRaw} (${kb(fRaw)}) | ${fGz} (${kb(fGz)}) |`);
  // The first export: the exporter's chunks (named after their sources by Vite).
  const onExport = files.filter((f) => /^(joinlab_export(_bg)?|runtime)-[\w-]+\.(js|wasm)$/.test(path.basename(f)));
  if (onExport.length) {
    const eb = onExport.map((f) => fs.readFileSync(f));
    const eRaw = eb.reduce((s, b) => s + b.length, 0);
    const eGz = eb.reduce((s, b) => s + gz(b), 0);
    md.push(`| **added by the first export** (${onExport.map((f) => path.basename(f)).join(', ')}) | ${eRaw} (${kb(eRaw)}) | ${eGz} (${kb(eGz)}) |`);
  }
}
md.push('', `wasm goal: under 150 KB gzipped — ${wasm.gz < 150_000 ? 'met' : 'not met'} (the engine's module, which every visit loads: ${kb(wasm.gz)}${exportWasm ? `; the exporter's, loaded on the first export: ${kb(exportWasm.gz)}` : ''}${sqlWasm ? `; the SQL script reader's, loaded when a SQL scenario opens: ${kb(sqlWasm.gz)}` : ''}${opsWasm ? `; the SQL operators' engine, loaded for a scenario of a window TVF, temporal or lookup join or with a SQL query: ${kb(opsWasm.gz)}` : ''}).`);
const text = md.join('\n');
console.log(text);
fs.mkdirSync(path.dirname(mdPath), { recursive: true });
fs.writeFileSync(mdPath, text + '\n');
