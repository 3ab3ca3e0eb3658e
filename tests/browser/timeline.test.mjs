// Browser tests of the timeline, stepper and comparison modules (web/src/timeline.js,
// web/src/stepper.js) on saved engine results (tests/browser/fixtures/, made by
// fixtures/make-fixtures.mjs from the CLI's `run --json --trace`), in headless Chromium.
//
//   node --test tests/browser/timeline.test.mjs
//
// Environment: CHROMIUM (default /usr/bin/chromium); JL_SCREENSHOTS, a folder for the
// screenshots (default: the system's temporary folder).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { write, writeBig, cliPath } from './fixtures/make-fixtures.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const fixtures = join(here, 'fixtures');
const shots = process.env.JL_SCREENSHOTS || tmpdir();

let server;
let base;
let browser;
let page;
let temp;
const errors = [];

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.json': 'application/json' };

/** A static server for the repository (and `/tmp-fixtures/` for the generated fixtures). */
function serve() {
  return new Promise((ok) => {
    const srv = http.createServer(async (req, res) => {
      let p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      let dir = root;
      if (p.startsWith('/tmp-fixtures/')) {
        dir = temp;
        p = p.slice('/tmp-fixtures'.length);
      }
      const file = normalize(join(dir, p));
      if (!file.startsWith(dir)) {
        res.writeHead(403).end();
        return;
      }
      try {
        const body = await readFile(file);
        res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream' }).end(body);
      } catch {
        res.writeHead(404).end();
      }
    });
    srv.listen(0, '127.0.0.1', () => ok(srv));
  });
}

const fixture = (name) => ({
  scenario: JSON.parse(readFileSync(join(fixtures, `${name}.scenario.json`), 'utf8')),
  result: JSON.parse(readFileSync(join(fixtures, `${name}.result.json`), 'utf8')),
});

async function open(query) {
  await page.goto(`${base}/tests/browser/fixtures/timeline.html?${query}`);
  await page.waitForSelector('body[data-ready]');
  const ready = await page.evaluate(() => [document.body.dataset.ready, document.body.dataset.error]);
  assert.equal(ready[0], '1', `fixture page failed: ${ready[1]}`);
}

/** Row ids drawn by the mark paths matching `selector`. */
async function drawnRows(selector) {
  return page.$$eval(selector, (ps) => ps.flatMap((p) => (p.getAttribute('data-rows') || '').split(' ').filter(Boolean).map(Number)));
}

/** Moves the mouse onto row `id`'s mark (markPosition is in the SVG's own coordinates). */
async function hoverRow(id) {
  const pt = await page.evaluate((rid) => {
    const pos = window.__jl.timeline.markPosition(rid);
    const svg = window.__jl.timeline.svg;
    const box = svg.getBoundingClientRect();
    const scale = box.width / Number(svg.getAttribute('width'));
    return { x: box.left + pos.x * scale, y: box.top + pos.y * scale };
  }, id);
  await page.mouse.move(pt.x, pt.y);
  return pt;
}

before(async () => {
  temp = mkdtempSync(join(tmpdir(), 'joinlab-timeline-'));
  const cli = cliPath();
  writeBig(temp, cli);
  // User text that looks like markup must stay text.
  write(temp, 'hostile', {
    version: 1,
    title: 'markup in user text',
    job: { operator: 'interval_join', interval: { lower: -5, upper: 5 } },
    streams: [
      { name: '<b>left</b>', columns: ['k', 'v', 'ts'], key: 'k', time: 'ts', rows: 'a, "<img src=x onerror=window.__pwned=1>", 5\na, "<script>window.__pwned=2</script>", 1' },
      { name: 'right&amp;', columns: ['k', 'v', 'ts'], key: 'k', time: 'ts', rows: 'a, "<svg onload=window.__pwned=3>", 6' },
    ],
  }, cli);
  server = await serve();
  base = `http://127.0.0.1:${server.address().port}`;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  page = await browser.newPage({ viewport: { width: 1150, height: 900 } });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => {
    if (!r.url().startsWith(base)) errors.push(`external request ${r.url()}`);
  });
});

after(async () => {
  await browser?.close();
  server?.close();
  if (temp) rmSync(temp, { recursive: true, force: true });
});

test('window join: one mark per row, coloured by what happened to it', async () => {
  const { result } = fixture('window-join-tumbling');
  await open('fixture=window-join-tumbling');
  const all = await drawnRows('.jl-dots path');
  assert.equal(all.length, result.rows.length, 'one mark per row');
  assert.deepEqual([...new Set(all)].sort((a, b) => a - b), result.rows.map((r) => r.id));
  const joined = new Set();
  for (const o of result.outputs) if (o.left && o.right) joined.add(o.left.id).add(o.right.id);
  assert.deepEqual((await drawnRows('.jl-o-joined')).sort((a, b) => a - b), [...joined].sort((a, b) => a - b));
  const none = result.rows.map((r) => r.id).filter((id) => !joined.has(id));
  assert.deepEqual((await drawnRows('.jl-o-none')).sort((a, b) => a - b), none);
  // Cary and Mary never match (seed 000).
  const names = none.map((id) => result.rows[id].values[0]).sort();
  assert.deepEqual(names, ['Cary', 'Mary']);
  assert.deepEqual(errors, []);
  await page.screenshot({ path: join(shots, 'joinlab-timeline-window-join.png'), fullPage: true });
});

test('window join: the tumbling windows are drawn and the fired ones labelled', async () => {
  const { result } = fixture('window-join-tumbling');
  await open('fixture=window-join-tumbling');
  const fired = new Set(result.outputs.map((o) => o.window.join(',')));
  assert.equal(await page.locator('.jl-window-fired').count(), fired.size);
  assert.ok((await page.locator('.jl-window').count()) > fired.size, 'the empty windows of the grid are drawn too');
  const labels = await page.$$eval('.jl-window-label', (ts) => ts.map((t) => t.textContent));
  const perWindow = [...fired].map((w) => result.outputs.filter((o) => o.window.join(',') === w).length);
  assert.deepEqual(labels.sort(), perWindow.map((n) => `${n} pair${n === 1 ? '' : 's'}`).sort());
  // Before the first window fires, no window is drawn as fired.
  const firstFire = Math.min(...result.outputs.map((o) => o.step));
  await open(`fixture=window-join-tumbling&step=${firstFire - 1}`);
  assert.equal(await page.locator('.jl-window-fired').count(), 0);
});

test('session windows come from the result', async () => {
  const { result } = fixture('agg-session');
  await open('fixture=agg-session');
  const windows = new Set(result.windows.map((w) => `${w.start},${w.end}`));
  assert.equal(await page.locator('.jl-window-fired').count(), windows.size);
  const counted = new Set(result.windows.flatMap((w) => w.lines));
  const drawn = await drawnRows('.jl-o-window');
  assert.deepEqual(drawn.map((id) => result.rows[id].line).sort((a, b) => a - b), [...counted].sort((a, b) => a - b));
});

test('interval join: late rows are crossed out and every row has its interval', async () => {
  const { result, scenario } = fixture('interval-emp-dept-p1');
  assert.ok(result.late.length > 0, 'the fixture has a late row (emp ts 7)');
  await open('fixture=interval-emp-dept-p1');
  const crossed = await drawnRows('.jl-shape-x');
  assert.deepEqual(crossed.sort(), result.late.map((l) => l.row.id).sort());
  assert.deepEqual(await drawnRows('.jl-o-late'), crossed);
  assert.ok(await page.locator('.jl-legend-late').isVisible());
  // One bracketed range per row, in its lane: three segments (line and two end ticks) each.
  const segments = await page.$$eval('.jl-intervals path', (ps) => ps.map((p) => (p.getAttribute('d').match(/M/g) || []).length));
  assert.equal(segments.reduce((a, b) => a + b, 0), result.rows.length * 3);
  // The range of emp ts 9 is [ts + lower, ts + upper] = [4, 14].
  const { lower, upper } = scenario.job.interval;
  assert.equal(`${lower}/${upper}`, '-5ms/5ms');
  await hoverRow(0);
  const tip = await page.locator('.jl-tooltip').innerText();
  assert.match(tip, /matches dept rows with ts in \[4, 14\]/);
});

test('SQL interval join: ranges use the opposite orientation, dates shown as clock times', async () => {
  const { result } = fixture('sql-interval-left-join');
  await open('fixture=sql-interval-left-join');
  const ticks = await page.$$eval('.jl-tick-label', (ts) => ts.map((t) => t.textContent));
  assert.ok(ticks.some((t) => /^\d\d:\d\d:\d\d$/.test(t)), `clock tick labels: ${ticks}`);
  assert.match((await page.locator('.jl-axis-title').allTextContents()).join(' '), /UTC, 2021-11-01/);
  // show_log (left) row 1 at 00:01:03: L.t BETWEEN R.t − 10 min AND R.t + 10 min, so its
  // partners lie in [L.t − 10 min, L.t + 10 min].
  await hoverRow(0);
  const tip = await page.locator('.jl-tooltip').innerText();
  assert.match(tip, /matches click_log rows with ts in \[2021-10-31 23:51:03, 2021-11-01 00:11:03\]/);
  const padded = result.outputs.filter((o) => !o.right).map((o) => o.left.id);
  assert.deepEqual(await drawnRows('.jl-o-padded'), padded);
});

test('hovering a mark tells what happened to the row; clicking selects it', async () => {
  const { result } = fixture('interval-emp-dept-p1');
  await open('fixture=interval-emp-dept-p1');
  const o = result.outputs[0];
  await hoverRow(o.left.id);
  const tip = page.locator('.jl-tooltip');
  await tip.waitFor({ state: 'visible' });
  const text = await tip.innerText();
  assert.match(text, new RegExp(`^emp line ${o.left.line} `));
  assert.match(text, new RegExp(`joined with dept line ${o.right.line} `));
  const late = result.late[0];
  await hoverRow(late.row.id);
  assert.ok((await tip.innerText()).includes(late.message), 'the late row shows its reason');
  const pt = await hoverRow(o.left.id);
  await page.mouse.click(pt.x, pt.y);
  assert.deepEqual(await page.evaluate(() => window.__jl.selected), [o.left.id]);
  assert.equal(await page.locator('.jl-ring-selected').count(), 1);
  assert.ok((await page.locator('.jl-link').count()) >= 1, 'a line to each partner');
  await page.mouse.move(2, 2);
  await tip.waitFor({ state: 'hidden' });
});

test('stepper: keys move through the steps and show each step in words', async () => {
  const { result } = fixture('interval-emp-dept-p2');
  const n = result.trace.length;
  await open('fixture=interval-emp-dept-p2&step=0');
  const count = page.locator('.jl-step-count');
  assert.equal(await count.textContent(), `step 1 / ${n}`);
  await page.locator('.jl-step-slider').focus();
  await page.keyboard.press('ArrowRight');
  assert.equal(await count.textContent(), `step 2 / ${n}`);
  assert.deepEqual(await page.evaluate(() => window.__jl.steps), [1]);
  const c = result.trace[1].cause;
  assert.equal(c.type, 'row');
  const row = result.rows[c.row];
  const stream = result.streams[row.side === 'left' ? 0 : 1].name;
  assert.equal(await page.locator('.jl-cause-text').textContent(), `${stream} line ${row.line} arrives at assigner subtask ${c.assigner}`);
  // The route of the row in words: key → key group → subtask.
  const key = result.keys[row.key];
  const events = await page.$$eval('.jl-ev', (li) => li.map((l) => l.textContent));
  assert.ok(events.includes(`${stream} line ${row.line}: key ${key.value} → key group ${key.key_group} → operator subtask ${key.subtask}`), events.join('\n'));
  // End, Home and ArrowLeft.
  await page.keyboard.press('End');
  assert.equal(await count.textContent(), `step ${n} / ${n}`);
  assert.match(await page.locator('.jl-cause-text').textContent(), /^end of input/);
  await page.keyboard.press('Home');
  assert.equal(await count.textContent(), `step 1 / ${n}`);
  await page.keyboard.press('ArrowLeft');
  assert.equal(await count.textContent(), `step 1 / ${n}`, 'does not move before the first step');
  await page.locator('.jl-step-next').click();
  assert.equal(await count.textContent(), `step 2 / ${n}`);
  // A recomputed result (a new object) rebuilds the stepper and keeps the keyboard focus.
  await page.locator('.jl-step-slider').focus();
  await page.evaluate(async () => {
    const { renderStepper } = await import('/web/src/stepper.js');
    const s = window.__jl;
    s.stepper = renderStepper(document.getElementById('stepper'), structuredClone(s.result), 1, (i) => s.steps.push(i));
  });
  await page.keyboard.press('ArrowRight');
  assert.equal(await count.textContent(), `step 3 / ${n}`);
});

test('stepper: watermarks per channel and subtask, state and timers as of the step', async () => {
  const { result } = fixture('interval-emp-dept-p2');
  await open('fixture=interval-emp-dept-p2&step=0');
  for (let s = 0; s < result.trace.length; s++) {
    if (s > 0) await page.keyboard.press('ArrowRight');
    else await page.locator('.jl-step-slider').focus();
    // Expected, from the trace: the last watermark of each assigner and operator subtask.
    const assigner = result.streams.map(() => Array(result.parallelism).fill('−∞'));
    const op = Array(result.operator_parallelism).fill('−∞');
    const show = (w) => (w === '+inf' ? '+∞' : w === '-inf' ? '−∞' : String(w));
    for (const step of result.trace.slice(0, s + 1)) {
      for (const e of step.events) {
        if (e.type === 'assigner_watermark') assigner[e.stream === 'left' ? 0 : 1][e.assigner] = show(e.watermark);
        if (e.type === 'operator_watermark') op[e.subtask] = show(e.watermark);
      }
    }
    const a = await page.$$eval('.jl-wm-assigners tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.firstChild.textContent)));
    assert.deepEqual(a, assigner, `assigner watermarks at step ${s}`);
    const o = await page.$$eval('.jl-wm-operator tbody tr td.jl-wm-combined', (tds) => tds.map((td) => td.firstChild.textContent));
    assert.deepEqual(o, op, `operator watermarks at step ${s}`);
    // The timeline's watermark labels follow the stepper.
    const labels = await page.$$eval('.jl-wm-label', (ts) => ts.map((t) => t.textContent).join(' | '));
    for (const w of new Set(op)) assert.ok(labels.includes(w), `timeline shows watermark ${w} at step ${s}: ${labels}`);
    // State: the latest snapshot of each subtask at or before the step.
    for (let j = 0; j < result.operator_parallelism; j++) {
      let snap = null;
      for (const step of result.trace.slice(0, s + 1)) for (const st of step.state || []) if (st.subtask === j) snap = st;
      const rows = await page.$$eval(`.jl-subtask-state[data-subtask="${j}"] .jl-state-table tbody tr`, (trs) => trs.length);
      assert.equal(rows, snap ? snap.entries.length : 0, `state entries of subtask ${j} at step ${s}`);
      const timers = await page.$$eval(`.jl-subtask-state[data-subtask="${j}"] .jl-timer:not(.jl-fired)`, (li) => li.length);
      assert.equal(timers, snap ? snap.timers.length : 0, `timers of subtask ${j} at step ${s}`);
    }
    // What the step buffered is highlighted.
    const buffered = result.trace[s].events.filter((e) => e.type === 'buffered').length;
    const highlighted = await page.locator('.jl-row-ref.jl-new').count();
    assert.equal(highlighted, buffered, `highlighted buffered rows at step ${s}`);
  }
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.screenshot({ path: join(shots, 'joinlab-timeline-stepper.png'), fullPage: true });
});

test('side by side: tumbling misses pairs across a boundary, sliding duplicates', async () => {
  await open('compare=compare-tumbling,compare-sliding,compare-interval');
  const stat = (run, name) => page.locator(`.jl-compare-card[data-run="${run}"] dd[data-stat="${name}"]`).textContent();
  const runs = ['compare-tumbling', 'compare-sliding', 'compare-interval'].map((n) => fixture(n).result);
  for (let i = 0; i < 3; i++) assert.equal(Number(await stat(i, 'outputs')), runs[i].outputs.length);
  assert.ok(Number(await stat(0, 'missed pairs')) > 0, 'tumbling misses pairs');
  assert.ok(Number(await stat(1, 'duplicates')) > 0, 'sliding duplicates pairs');
  assert.equal(Number(await stat(2, 'duplicates')), 0, 'the interval join emits each pair once');
  assert.equal(Number(await stat(2, 'missed pairs')), 0);
  const marks = await page.$$eval('.jl-compare-pairs tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('.jl-compare-mark')].map((td) => td.textContent)));
  assert.ok(marks.some((m) => m[0] === '—' && m[2] === '✓'), 'a pair the interval join finds and tumbling misses');
  assert.ok(marks.some((m) => /^×\d+$/.test(m[1])), 'a pair sliding windows emit more than once');
  await page.screenshot({ path: join(shots, 'joinlab-timeline-compare.png'), fullPage: true });
});

test('1,000 rows: one mark each, and rendering stays fast', async () => {
  await open('dir=/tmp-fixtures&fixture=big-1000');
  const n = await page.evaluate(() => window.__jl.result.rows.length);
  assert.equal(n, 1000);
  assert.equal((await drawnRows('.jl-dots path')).length, 1000);
  const ms = await page.evaluate(async () => {
    const { renderTimeline } = await import('/web/src/timeline.js');
    const s = window.__jl;
    const el = document.getElementById('timeline');
    const times = [];
    for (let i = 0; i < 15; i++) {
      const t = performance.now();
      s.timeline = renderTimeline(el, s.scenario, s.result, {});
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    return times[times.length >> 1];
  });
  console.log(`timeline render of 1,000 rows: ${ms.toFixed(1)} ms (median of 15)`);
  assert.ok(ms < 50, `render took ${ms} ms`);
  await page.screenshot({ path: join(shots, 'joinlab-timeline-1000.png'), fullPage: false });
});

test('more than 5,000 rows: a density picture instead of marks', async () => {
  await open('dir=/tmp-fixtures&fixture=big-6000');
  assert.equal(await page.evaluate(() => window.__jl.result.rows.length), 6000);
  assert.equal(await page.locator('.jl-dots path').count(), 0);
  assert.ok((await page.locator('.jl-density path').count()) > 0);
  const box = await page.locator('.jl-hit-strip').first().boundingBox();
  await page.mouse.move(box.x + box.width / 3, box.y + box.height / 2);
  assert.match(await page.locator('.jl-tooltip').innerText(), /\d+ rows with ts in/);
});

test('user text stays text', async () => {
  await open('dir=/tmp-fixtures&fixture=hostile');
  await hoverRow(0);
  await page.locator('.jl-step-slider').focus();
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.equal(await page.locator('#timeline img, #timeline b, #timeline script, #stepper img, #stepper b, #stepper svg').count(), 0);
  assert.ok((await page.locator('.jl-lane-label').allTextContents()).includes('<b>left</b>'));
  assert.match(await page.locator('.jl-tooltip').innerText(), /<img src=x onerror=window.__pwned=1>/);
  assert.deepEqual(errors, []);
});
