// Shared set-up of the browser tests: a static server over dist/ on a free localhost port and
// Debian's Chromium driven by playwright-core (no browser download).
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../scripts/serve.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DIST = path.join(ROOT, 'dist');

export const CHROMIUM = process.env.CHROMIUM || ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => fs.existsSync(p)) || '/usr/bin/chromium';

export const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Starts the server and the browser; `args` are extra Chromium flags (the page benchmark's `--vsync off`). */
export async function setup({ args = [] } = {}) {
  if (!fs.existsSync(path.join(DIST, 'index.html'))) throw new Error('dist/ is missing: run `npm run build` first');
  const server = await startServer({ root: DIST, port: 0 });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...ARGS, ...args] });
  return {
    server,
    browser,
    base: server.url,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

/**
 * Opens a page; collects console errors and page errors, and fails on any request that leaves
 * localhost (the page must make no external requests). `init`: a script run in the page before
 * its own.
 */
export async function openPage(env, urlPath = '', { width = 1400, height = 1000, init = null } = {}) {
  const context = await env.browser.newContext({ viewport: { width, height } });
  // A script to run in the page before its own (e.g. to set what `navigator` reports).
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  const problems = [];
  const external = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  await context.route('**/*', (route) => {
    const u = new URL(route.request().url());
    if (u.protocol === 'data:' || u.protocol === 'blob:' || u.hostname === 'localhost' || u.hostname === '127.0.0.1') return route.continue();
    external.push(u.href);
    return route.abort();
  });
  page.setDefaultTimeout(60000);
  await page.goto(env.base + urlPath, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => document.body.classList.contains('ready'), null, { timeout: 60000 });
  return { page, context, problems, external };
}

/**
 * The text of every cell of a panel's table: [[cell, ...], ...] (header excluded). A long table
 * keeps only the rows in view in the DOM (web/src/dom.js virtualTable, which numbers them with
 * `aria-rowindex`): it is read by scrolling through it, as a person would.
 */
export async function tableCells(page, selector) {
  return page.evaluate(async (sel) => {
    const read = (tr) => [...tr.children].map((td) => td.textContent);
    const t0 = document.querySelector(`${sel} table`);
    if (!t0) return [];
    if (!t0.hasAttribute('aria-rowcount')) return [...t0.tBodies[0].rows].map(read);
    const wrap = t0.closest('.table-wrap');
    const n = Number(t0.getAttribute('aria-rowcount')) - 1;
    const out = new Array(n);
    let got = 0;
    const saved = wrap.scrollTop;
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0))));
    wrap.scrollTop = 0;
    for (let stuck = 0; got < n && stuck < 3; ) {
      await frame();
      for (const tr of wrap.querySelector('table').tBodies[0].rows) {
        const i = Number(tr.getAttribute('aria-rowindex')) - 2;
        if (out[i] === undefined) {
          out[i] = read(tr);
          got++;
        }
      }
      const before = wrap.scrollTop;
      wrap.scrollTop = before + wrap.clientHeight;
      stuck = wrap.scrollTop === before ? stuck + 1 : 0;
    }
    wrap.scrollTop = saved;
    return out;
  }, selector);
}

/**
 * The number of rows of a panel's table. A virtual table says it in `aria-rowcount` (which
 * counts the header row); a short one has all its rows in the DOM. Evaluated in the page.
 */
export function shownRows(sel) {
  const t = document.querySelector(`${sel} table`);
  if (!t) return 0;
  const n = t.getAttribute('aria-rowcount');
  return n ? Number(n) - 1 : t.tBodies[0].rows.length;
}

let built = false;
/**
 * Runs the native CLI: `joinlab run FILE --json` plus `extra` flags (`--trace`: every step, with
 * each changed subtask's state), built once with `cargo build --release`.
 */
export function cliJson(file, extra = []) {
  return JSON.parse(cli(['run', file, '--json', ...extra]));
}

/** Runs the native CLI with `args` (built once, as for `cliJson`) and answers what it printed. */
export function cli(args) {
  if (!built) {
    execFileSync('cargo', ['build', '-q', '--release', '--bin', 'joinlab'], { cwd: ROOT, stdio: 'inherit' });
    built = true;
  }
  const bin = path.join(process.env.CARGO_TARGET_DIR || path.join(ROOT, 'target'), 'release', process.platform === 'win32' ? 'joinlab.exe' : 'joinlab');
  return execFileSync(bin, args, { cwd: ROOT, maxBuffer: 256 * 1024 * 1024 }).toString('utf8');
}

export function galleryFiles() {
  const dir = path.join(ROOT, 'scenarios');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json') && !f.endsWith('.expected.json'))
    .sort()
    .map((f) => path.join(dir, f));
}

/** An interval join of two streams of n rows each, keys k0..k(keys-1), about one match per row. */
export function bigScenario(n, keys = 1000) {
  const l = [];
  const r = [];
  for (let i = 0; i < n; i++) {
    l.push(`k${i % keys}, ${i}, ${i * 10}`);
    r.push(`k${i % keys}, ${i}, ${i * 10 + 3}`);
  }
  return {
    title: `big ${n}`,
    job: { operator: 'interval_join', interval: { lower: -5, upper: 5 } },
    streams: [
      { name: 'l', columns: ['k', 'v:int', 'ts'], key: 'k', time: 'ts', rows: l.join('\n') },
      { name: 'r', columns: ['k', 'v:int', 'ts'], key: 'k', time: 'ts', rows: r.join('\n') },
    ],
  };
}
