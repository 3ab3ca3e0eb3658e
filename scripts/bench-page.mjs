// Benchmark 3 of issue 5 ("Page"): in headless Chromium (playwright-core, Debian's chromium),
//  (a) keystroke → painted output for interval-join scenarios of 100, 1,000 and 10,000 rows
//      (p50 / p95 over repeated edits), and
//  (b) pasting 100,000 and 1,000,000 rows: the longest main-thread task (PerformanceObserver
//      'longtask'; goal ≤ 50 ms), whether progress shows, and the time until the result arrives.
//
// Run: `npm run build && node scripts/bench-page.mjs` (options: --edits N, --sizes 100,1000,
// --paste 100000,1000000, --vsync off, --viewport 1400x400, --trace on: the main thread's long
// tasks of a paste with their CPU and GC time from Chromium's trace; JOINLAB_JS_FLAGS=… passes
// V8 flags). Prints a markdown table and writes it to target/bench/page.md.
//
// What "keystroke → painted" means here: from the keydown (a capturing listener, the first
// thing the page runs for the key) until the first task after the frame that shows the changed
// output table (requestAnimationFrame after the DOM change, then a task: the frame's style,
// layout and paint are done by then). That includes waiting for the next vsync, up to 16.7 ms,
// even with no work at all; `--vsync off` launches Chromium with the frame-rate limit off
// (--disable-frame-rate-limit --disable-gpu-vsync) so that a frame follows the work at once.
// The browser's own figure is the Event Timing entry of the keydown (event time stamp → the
// next frame presented, 8 ms steps, reported from 16 ms). The work alone is "keydown → DOM
// updated" (all of the page's scripts for the key) plus
// the style and layout it causes (forced right after the change), and "first frame" says
// whether the update made it into the first frame after the key.
// A benchmark, not a test: it reports, it does not fail on slow numbers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execSync } from 'node:child_process';
import { setup, openPage, ROOT } from '../tests/browser/helpers.mjs';

const argv = process.argv.slice(2);
const opt = (name, def) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : def;
};
const EDITS = Number(opt('edits', 40));
const SIZES = opt('sizes', '100,1000,10000').split(',').map(Number);
const PASTES = opt('paste', '100000,1000000').split(',').filter(Boolean).map(Number);
/** Sizes of the SQL-editor runs (`--sql-sizes 1000`; empty by default): the same edits typed into a script. */
const SQL_SIZES = opt('sql-sizes', '').split(',').filter(Boolean).map(Number);
const KEYS = 100;
/** Extra query for the edit runs, e.g. `--query '?panels=streams,outputs'` to see what the other panels cost. */
const QUERY = opt('query', '');
const VSYNC = opt('vsync', 'on') !== 'off';
// --trace on: record Chromium's trace of the paste (CDP Tracing) and say, for each main-thread
// task over 50 ms, how much of its wall time was the thread's CPU time and how much garbage
// collection: what made it long when the machine is busy.
const TRACE = opt('trace', 'off') === 'on';
/**
 * The window of the edit runs, WIDTHxHEIGHT (the tests' 1400x1000 by default): e.g. `--viewport
 * 1400x400` keeps the timeline, the stepper and the verdicts out of view while typing.
 */
const [VIEW_W, VIEW_H] = opt('viewport', '1400x1000').split('x').map(Number);
const EXTRA_ARGS = [...(VSYNC ? [] : ['--disable-frame-rate-limit', '--disable-gpu-vsync']), ...(process.env.JOINLAB_JS_FLAGS ? [`--js-flags=${process.env.JOINLAB_JS_FLAGS}`] : [])];

/**
 * The rows of one stream of an interval-join scenario with `n` rows in all (n/2 per stream),
 * 100 keys, timestamps rising by 10 ms with a 0..4 ms jitter; the right stream is 3 ms later.
 * With the interval [-10, 10] ms every left row meets the right row of the same index (rows of
 * the same key are 1 s apart), so the output has n/2 rows. Also evaluated inside the page.
 */
function streamRows(n, side) {
  const half = Math.floor(n / 2);
  const out = new Array(half);
  for (let i = 0; i < half; i++) {
    const jitter = (i * 7 + (side === 'r' ? 3 : 0)) % 5;
    const ts = i * 10 + jitter + (side === 'r' ? 3 : 0);
    out[i] = `k${i % 100}, ${i}, ${ts}`;
  }
  return out.join('\n');
}

function scenario(n, { leftRows } = {}) {
  return {
    title: `bench ${n} rows`,
    job: { operator: 'interval_join', interval: { lower: -10, upper: 10 } },
    streams: [
      { name: 'l', columns: ['k', 'v:int', 'ts'], key: 'k', time: 'ts', rows: leftRows ?? streamRows(n, 'l') },
      { name: 'r', columns: ['k', 'v:int', 'ts'], key: 'k', time: 'ts', rows: streamRows(n, 'r') },
    ],
  };
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};
const f1 = (x) => (x === undefined || x === null || Number.isNaN(x) ? '–' : x.toFixed(1));
const sec = (ms) => `${(ms / 1000).toFixed(2)} s`;

/** Waits until no run or detail run is pending and the status shows a result. */
async function settle(page, timeout = 180000) {
  await page.waitForFunction(
    () => {
      const s = document.getElementById('status').textContent;
      return /^✓|Not run/.test(s) && !document.body.classList.contains('detail-pending') && document.getElementById('progress').hidden;
    },
    null,
    { timeout },
  );
  await page.evaluate(() => new Promise((r) => setTimeout(r, 50)));
}

async function installObservers(page) {
  await page.evaluate(() => {
    const b = (window.__bench = { long: [], loaf: [], armed: false, t0: 0, done: null, frames: 0 });
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) b.long.push({ start: e.startTime, dur: e.duration });
    }).observe({ type: 'longtask' });
    try {
      new PerformanceObserver((l) => {
        // With the scripts that ran in the frame (10 ms or more each): what made a long frame.
        for (const e of l.getEntries())
          b.loaf.push({
            start: e.startTime,
            dur: e.duration,
            blocking: e.blockingDuration,
            scripts: (e.scripts || [])
              .filter((x) => x.duration >= 10)
              .map((x) => ({ invoker: x.invoker, fn: x.sourceFunctionName, src: String(x.sourceURL || '').split('/').pop(), dur: x.duration, forcedLayout: x.forcedStyleAndLayoutDuration })),
            render: e.renderStart ? e.startTime + e.duration - e.renderStart : 0,
          });
      }).observe({ type: 'long-animation-frame' });
    } catch {
      // (no long-animation-frame entries in this browser)
    }
    // The browser's own keystroke → next paint (Event Timing: the keydown's `duration`, from
    // the event's time stamp to the presentation of the next frame, in 8 ms steps; only
    // entries of 16 ms or more are reported, so a missing one means under 16 ms).
    b.events = [];
    try {
      new PerformanceObserver((l) => {
        for (const e of l.getEntries()) if (e.name === 'keydown') b.events.push({ start: e.startTime, dur: e.duration });
      }).observe({ type: 'event', durationThreshold: 16 });
    } catch {
      // (no Event Timing in this browser)
    }
    // Frames since the keydown: 0 when the DOM changes means the update makes the first frame.
    const tick = () => {
      b.frames++;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    window.addEventListener(
      'keydown',
      (ev) => {
        if (b.armed) {
          b.t0 = performance.now();
          b.stamp = ev.timeStamp;
          b.frames = 0;
        }
      },
      true,
    );
    const mo = new MutationObserver(() => {
      if (!b.armed || !b.t0) return;
      b.armed = false;
      const t0 = b.t0;
      const dom = performance.now() - t0;
      const firstFrame = b.frames === 0;
      // Style and layout of the change, forced now (the frame would do them anyway).
      void document.body.offsetHeight;
      const work = performance.now() - t0;
      const pending = document.body.classList.contains('detail-pending');
      requestAnimationFrame(() => setTimeout(() => b.done && b.done(performance.now() - t0, dom, pending && !document.body.classList.contains('detail-pending'), work, firstFrame), 0));
    });
    mo.observe(document.getElementById('outputs'), { subtree: true, childList: true, characterData: true });
  });
}

/**
 * The scenario of the SQL-editor runs: the same rows as `scenario(n)`, as a SQL interval join
 * (`joinlab sql` prints it as the script the page's SQL tab edits: two `CREATE TABLE`s, their
 * rows as `INSERT INTO … VALUES` and the query).
 */
function sqlScript(n) {
  const sc = scenario(n);
  sc.job = { operator: 'sql_interval_join', sql: { join: 'inner', lower: '-10ms', upper: '10ms' } };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-sql-'));
  const file = path.join(dir, 'scenario.json');
  fs.writeFileSync(file, JSON.stringify(sc));
  const bin = path.join(process.env.CARGO_TARGET_DIR || path.join(ROOT, 'target'), 'debug', 'joinlab');
  if (!fs.existsSync(bin)) execSync('cargo build -q -p joinlab', { cwd: ROOT, stdio: 'inherit' });
  const text = execSync(`"${bin}" sql "${file}"`, { encoding: 'utf8', maxBuffer: 1 << 28 });
  fs.rmSync(dir, { recursive: true, force: true });
  return text;
}

/**
 * Keystrokes into a row value, timed from keydown to the changed output table. `sql`: the
 * scenario is a script and the keys go into the SQL editor (the first row of the first
 * `INSERT`), so each key reads the script in the SQL module (which reads again only what the key
 * changed) before the run.
 */
async function benchEdits(env, n, { sql = false, sqlRows = false } = {}) {
  const { page, context } = await openPage(env, QUERY, { width: VIEW_W, height: VIEW_H });
  const script = sql || sqlRows;
  const text = script ? JSON.stringify({ title: `bench ${n} rows (SQL)`, sql: sqlScript(n) }) : JSON.stringify(scenario(n));
  await page.evaluate((t) => window.__joinlab.loadScenarioText(t, 'bench'), text);
  if (script) await page.waitForFunction(() => !document.getElementById('sql-tab').hidden && document.querySelector('#sql-editor .cm-line'), null, { timeout: 120000 });
  await settle(page);
  await installObservers(page);
  if (sql) {
    // The cursor right after the value of the first row of the first INSERT ("('k0', 0, 0),"):
    // the same edit as in the row editor, typed into the script.
    const lines = JSON.parse(text).sql.split('\n');
    const ln = lines.findIndex((l) => /^\s*\('k0'/.test(l));
    // (Home puts the cursor after the line's indentation.)
    const col = lines[ln].indexOf(',', lines[ln].indexOf(',') + 1) - (lines[ln].length - lines[ln].trimStart().length);
    await page.locator('#sql-editor .cm-content').click();
    await page.keyboard.press('Control+Home');
    for (let i = 0; i < ln; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Home');
    for (let i = 0; i < col; i++) await page.keyboard.press('ArrowRight');
    await settle(page);
  } else {
    // The cursor right after the value of line 1 of the left stream ("k0, 0, 0"): typing a digit
    // and deleting it again keeps the scenario valid and changes the first output row.
    await page.evaluate(() => {
      const view = window.__joinlab.editors[0].view;
      const line = view.state.doc.line(1);
      const second = line.text.indexOf(',', line.text.indexOf(',') + 1);
      view.focus();
      view.dispatch({ selection: { anchor: line.from + second } });
    });
  }
  const times = [];
  let viaWorker = 0;
  const engine = [];
  const draw = [];
  const parts = [];
  const doms = [];
  const works = [];
  const presented = [];
  let firstFrames = 0;
  let detailFirst = 0;
  /** The SQL module's read of each key's script (ms), in the SQL-editor runs. */
  const reads = [];
  /** The SQL editor's key, by phase (ms; sqlTimings.phases: schema, read, adopt, run). */
  const phases = [];
  await page.evaluate(() => (window.__bench.long = []));
  for (let i = 0; i < EDITS; i++) {
    const wait = page.evaluate(
      () =>
        new Promise((resolve) => {
          const b = window.__bench;
          b.t0 = 0;
          b.armed = true;
          const timer = setTimeout(() => resolve(null), 20000);
          b.done = (ms, dom, detailFirst, work, firstFrame) => {
            clearTimeout(timer);
            b.done = null;
            resolve({ ms, dom, detailFirst, work, firstFrame });
          };
        }),
    );
    await page.waitForFunction(() => window.__bench.armed);
    await page.keyboard.press(i % 2 === 0 ? String(1 + ((i / 2) % 9)) : 'Backspace');
    const w = await wait;
    if (w === null) throw new Error(`edit ${i} of the ${n}-row scenario: the output did not change`);
    await settle(page);
    // The Event Timing entry of this keydown (reported after its frame), or 15 ms (= under 16).
    w.presented = await page.evaluate(() => {
      const b = window.__bench;
      const e = b.events.find((x) => Math.abs(x.start - b.stamp) < 1);
      return e ? e.dur : 15;
    });
    presented.push(w.presented);
    const st = await page.evaluate(() => ({ status: document.getElementById('status').textContent, run: window.__joinlab.app.lastRunMs, draw: window.__joinlab.app.lastRenderMs, parts: { ...window.__joinlab.app.timings }, sqlRead: window.__joinlab.sql?.parseMs ?? null, sqlPhases: { ...(window.__joinlab.sql?.phases || {}) } }));
    if (sql) reads.push(st.sqlRead);
    if (sql) phases.push(st.sqlPhases);
    if (/\(worker\)/.test(st.status)) viaWorker++;
    times.push(w.ms);
    doms.push(w.dom);
    works.push(w.work);
    if (w.firstFrame) firstFrames++;
    if (w.detailFirst) detailFirst++;
    engine.push(st.run);
    draw.push(st.draw);
    parts.push(st.parts);
  }
  const long = await page.evaluate(() => window.__bench.long.map((e) => e.dur));
  const parseMs = sql ? await page.evaluate(() => window.__joinlab.sql?.parseMs ?? null) : null;
  // What the last key's read reused (pages whose reader reads the whole script say nothing).
  const read = sql ? await page.evaluate(() => window.__joinlab.sql?.read ?? null) : null;
  await context.close();
  return { n, sql, sqlRows, parseMs, reads, read, phases, times, doms, works, presented, firstFrames, detailFirst, engine, draw, parts, viaWorker, longMax: long.length ? Math.max(...long) : 0, longCount: long.length };
}

async function benchPaste(env, n) {
  const { page, context, problems } = await openPage(env, '?budget=120000');
  // Set-up (not the measured paste): the right stream holds n/2 rows, the left one 10 rows.
  const left10 = streamRows(20, 'l');
  const tSetup = Date.now();
  await page.evaluate(
    ({ src, n, left10 }) => {
      window.__streamRows = new Function(`return (${src})`)();
      const sc = {
        title: `bench paste ${n} rows`,
        job: { operator: 'interval_join', interval: { lower: -10, upper: 10 } },
        streams: [
          { name: 'l', columns: ['k', 'v:int', 'ts'], key: 'k', time: 'ts', rows: left10 },
          { name: 'r', columns: ['k', 'v:int', 'ts'], key: 'k', time: 'ts', rows: window.__streamRows(n, 'r') },
        ],
      };
      window.__joinlab.loadScenarioText(JSON.stringify(sc), 'bench');
    },
    { src: streamRows.toString(), n, left10 },
  );
  await settle(page, 300000);
  const setupMs = Date.now() - tSetup;
  // The text to paste, built before the measurement starts.
  await page.evaluate((n) => {
    window.__pasteText = window.__streamRows(n, 'l');
  }, n);
  await installObservers(page);
  const tracing = TRACE ? await startTrace(context, page) : null;
  const r = await page.evaluate(
    () =>
      new Promise((resolve) => {
        const b = window.__bench;
        b.long = [];
        const prog = { firstVisible: null, maxValue: 0, samples: 0, visibleSamples: 0, values: new Set() };
        let t0 = 0;
        let dispatchMs = 0;
        let gapMax = 0;
        let lastFrame = 0;
        let stop = false;
        // When the editor had the whole paste (its slices go in over several frames).
        let pasteDoneMs = null;
        const frame = (t) => {
          if (pasteDoneMs === null && t0 && !window.__joinlab.editors[0].pasting) pasteDoneMs = performance.now() - t0;
          if (lastFrame) gapMax = Math.max(gapMax, t - lastFrame);
          lastFrame = t;
          const p = document.getElementById('progress');
          prog.samples++;
          if (!p.hidden && p.offsetParent !== null) {
            prog.visibleSamples++;
            if (prog.firstVisible === null) prog.firstVisible = performance.now() - t0;
            prog.maxValue = Math.max(prog.maxValue, Number(document.getElementById('progress-bar').value) || 0);
            prog.phase = document.getElementById('progress-phase').textContent;
            prog.values.add(`${prog.phase} ${document.getElementById('progress-bar').value}`);
          }
          if (!stop) requestAnimationFrame(frame);
        };
        const status = document.getElementById('status');
        const stopped = document.getElementById('stopped');
        let arrived = null;
        const finish = (kind) => {
          if (arrived) return;
          arrived = { kind, ms: performance.now() - t0 };
          // Keep observing for a while: work after the result (rendering, the URL hash) counts.
          requestAnimationFrame(() =>
            setTimeout(() => {
              arrived.paintedMs = performance.now() - t0;
              setTimeout(() => {
                stop = true;
                resolve({
                  arrived,
                  dispatchMs,
                  pasteDoneMs,
                  gapMax,
                  prog: { ...prog, values: prog.values.size },
                  loaf: b.loaf.filter((e) => e.start >= t0).map((e) => ({ ...e, start: e.start - t0 })),
                  status: status.textContent,
                  stoppedText: stopped.hidden ? null : document.getElementById('stopped-text').textContent,
                  long: b.long.map((e) => ({ start: e.start - t0, dur: e.duration ?? e.dur })),
                  engineMs: window.__joinlab.app.lastRunMs,
                  // The worker's phases (engine.js hands them over as `result.phases`) and the
                  // paste's start on the same clock.
                  phases: window.__joinlab.result ? window.__joinlab.result.phases || null : null,
                  t0Abs: performance.timeOrigin + t0,
                  drawMs: window.__joinlab.app.lastRenderMs,
                  timings: window.__joinlab.app.timings,
                  // (`count` knows a result kept in the worker; builds before it had the whole list.)
                  outputs: window.__joinlab.result ? (window.__joinlab.count ? window.__joinlab.count('outputs') : window.__joinlab.result.outputs.length) : null,
                });
              }, 2000);
            }, 0),
          );
        };
        new MutationObserver(() => {
          if (!t0) return;
          if (/^✓/.test(status.textContent) && /\(worker\)/.test(status.textContent)) finish('result');
          else if (/^Not run/.test(status.textContent)) finish('error');
        }).observe(status, { childList: true, subtree: true, characterData: true });
        new MutationObserver(() => {
          if (t0 && !stopped.hidden) finish('stopped');
        }).observe(stopped, { attributes: true });
        setTimeout(() => {
          // A paste event as the browser delivers it (the clipboard's text in a DataTransfer)
          // over the whole left editor.
          const view = window.__joinlab.editors[0].view;
          view.focus();
          view.dispatch({ selection: { anchor: 0, head: view.state.doc.length } });
          const dt = new DataTransfer();
          dt.setData('text/plain', window.__pasteText);
          t0 = performance.now();
          requestAnimationFrame(frame);
          view.contentDOM.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
          dispatchMs = performance.now() - t0;
        }, 100);
      }),
  );
  const slowTasks = tracing ? await tracing.stop() : null;
  // Where main-thread time goes: the pieces the page does with a big scenario, timed alone.
  const parts = await page.evaluate(async () => {
    const t = (f) => {
      const t0 = performance.now();
      const v = f();
      return [performance.now() - t0, v];
    };
    const app = window.__joinlab.app;
    const [docMs] = t(() => window.__joinlab.editors[0].view.state.doc.toString());
    const [strMs, json] = t(() => JSON.stringify(app.scenario));
    const [parseMs] = t(() => JSON.parse(json));
    const [cloneMs] = t(() => structuredClone(window.__joinlab.result));
    const [normMs] = t(() => window.__joinlab.normalize(json));
    const h0 = performance.now();
    await window.__joinlab.compactJson();
    const hashMs = performance.now() - h0;
    // The rows read alone in the worker's module (as the plan's build reads them), to split
    // the worker's "parse and plan" phase; asked after everything else was measured.
    const r = window.__joinlab.result;
    const readOnly = r && typeof r.fetch === 'function' ? await r.fetch({ what: 'parse_time' }).catch(() => null) : null;
    return { docMs, strMs, parseMs, cloneMs, normMs, hashMs, jsonBytes: json.length, readOnly };
  });
  await context.close();
  return { n, setupMs, ...r, parts, problems, slowTasks };
}

/** Starts a CDP trace of the page; `stop()` answers the renderer main thread's tasks over 50 ms
 * with their thread (CPU) time and the garbage collection inside them. */
async function startTrace(context, page) {
  const cdp = await context.newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (m) => events.push(...m.value));
  await cdp.send('Tracing.start', {
    transferMode: 'ReportEvents',
    traceConfig: { includedCategories: ['toplevel', 'disabled-by-default-devtools.timeline', 'devtools.timeline', 'v8', 'disabled-by-default-v8.gc', '__metadata'] },
  });
  return {
    async stop() {
      const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
      await cdp.send('Tracing.end');
      await done;
      const main = events.find((e) => e.ph === 'M' && e.name === 'thread_name' && e.args && e.args.name === 'CrRendererMain');
      if (!main) return [];
      const on = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X');
      const gcNames = new Set(['MajorGC', 'MinorGC', 'V8.GC_MC_COMPLETE_SWEEPING', 'V8.GCFinalizeMC', 'V8.GCScavenger', 'V8.GC_MARK_COMPACTOR', 'V8.GCCompactor', 'V8.GCIncrementalMarking', 'V8.GCFinalizeMCReduceMemory', 'V8.GCMinorMS']);
      const all = on.filter((g) => g.name === 'MajorGC' || g.name === 'MinorGC');
      const tasks = on
        .filter((e) => e.name === 'RunTask' && e.dur > 50_000)
        .map((t) => {
          const inside = on.filter((g) => gcNames.has(g.name) && g.ts >= t.ts && g.ts < t.ts + t.dur);
          // The top-level GC events only (MajorGC / MinorGC hold the V8.GC* phases).
          const top = inside.filter((g) => g.name === 'MajorGC' || g.name === 'MinorGC');
          const gc = (top.length ? top : inside).reduce((a, g) => a + g.dur, 0);
          return { wall: t.dur / 1000, cpu: (t.tdur || 0) / 1000, gc: gc / 1000, gcs: (top.length ? top : inside).map((g) => `${g.name} ${(g.dur / 1000).toFixed(1)}`) };
        });
      // Every collection on the main thread while tracing: how many, their wall and CPU time.
      const sum = (k, f) => all.filter((g) => g.name === k).reduce((a, g) => a + f(g), 0) / 1000;
      tasks.gcTotals = ['MinorGC', 'MajorGC'].map((k) => `${all.filter((g) => g.name === k).length} ${k} (${sum(k, (g) => g.dur).toFixed(1)} ms wall, ${sum(k, (g) => g.tdur || 0).toFixed(1)} ms CPU)`).join(', ');
      return tasks;
    },
  };
}

function machine() {
  const cpu = os.cpus();
  let chromium = '';
  try {
    chromium = execSync('/usr/bin/chromium --version', { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    chromium = 'chromium';
  }
  return `${cpu.length} × ${cpu[0] ? cpu[0].model.trim() : 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}, ${chromium}, node ${process.version}`;
}

async function main() {
  const env = await setup({ args: EXTRA_ARGS });
  const lines = [];
  const log = (s = '') => {
    lines.push(s);
    console.log(s);
  };
  const loadBefore = os.loadavg();
  const edits = [];
  const pastes = [];
  try {
    for (const n of SIZES) {
      process.stderr.write(`edits: ${n} rows…\n`);
      edits.push(await benchEdits(env, n));
    }
    for (const n of SQL_SIZES) {
      process.stderr.write(`SQL edits: ${n} rows…\n`);
      edits.push(await benchEdits(env, n, { sql: true }));
      // The same script's first table, typed into its row editor (the script follows the rows).
      process.stderr.write(`SQL scenario, row editor: ${n} rows…\n`);
      edits.push(await benchEdits(env, n, { sqlRows: true }));
    }
    for (const n of PASTES) {
      process.stderr.write(`paste: ${n} rows…\n`);
      pastes.push(await benchPaste(env, n));
    }
  } finally {
    await env.close();
  }
  const loadAfter = os.loadavg();
  log('## Page (headless Chromium)');
  log();
  log(`Machine: ${machine()}. Load average (1/5/15 min) before ${loadBefore.map((x) => x.toFixed(2)).join(' / ')}, after ${loadAfter.map((x) => x.toFixed(2)).join(' / ')}.`);
  log(`Command: \`npm run build && node scripts/bench-page.mjs\`. Scenario: interval join [-10 ms, 10 ms], two streams of n/2 rows, ${KEYS} keys, timestamps +10 ms per row with 0–4 ms jitter; n/2 outputs.`);
  log();
  log(`### Keystroke → painted output (${EDITS} edits each: type a digit into the value of left row 1, then delete it${QUERY ? `; page opened with \`${QUERY}\`` : ''}; window ${VIEW_W}×${VIEW_H}; vsync ${VSYNC ? 'on (the default)' : 'off: --disable-frame-rate-limit --disable-gpu-vsync'})`);
  log();
  log('| rows | painted p50 ms | painted p95 ms | max ms | Event Timing keydown → next paint p50 / p95 ms | keydown → DOM updated p50 / p95 ms | work (+ style, layout) p50 / p95 ms | made the first frame | engine p50 ms | drawing p50 ms | runs in worker | trace from the worker drawn before the paint | long tasks (max ms) | 16 ms at p95: painted / Event Timing / work |');
  log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:--|');
  for (const e of edits) {
    const p95 = pct(e.times, 95);
    const w95 = pct(e.works, 95);
    const ev = (x) => (x < 16 ? '< 16' : String(x));
    const e95 = pct(e.presented, 95);
    log(`| ${e.n.toLocaleString('en')}${e.sql ? ' (SQL editor)' : e.sqlRows ? ' (SQL scenario, row editor)' : ''} | ${f1(pct(e.times, 50))} | ${f1(p95)} | ${f1(Math.max(...e.times))} | ${ev(pct(e.presented, 50))} / ${ev(e95)} | ${f1(pct(e.doms, 50))} / ${f1(pct(e.doms, 95))} | ${f1(pct(e.works, 50))} / ${f1(w95)} | ${e.firstFrames}/${e.times.length} | ${f1(pct(e.engine, 50))} | ${f1(pct(e.draw, 50))} | ${e.viaWorker}/${e.times.length} | ${e.detailFirst}/${e.times.length} | ${e.longCount} (${f1(e.longMax)}) | ${p95 <= 16 ? 'met' : 'missed'} / ${e95 <= 16 ? 'met' : 'missed'} / ${w95 <= 16 ? 'met' : 'missed'} |`);
  }
  log();
  log('Drawing, p50 per part (ms; `app.timings` of the last render of each edit — with more than 300 rows the trace comes from the worker a moment later and the timeline is drawn then):');
  log();
  for (const e of edits) {
    const names = [...new Set(e.parts.flatMap((p) => Object.keys(p)))];
    const readText = e.read ? `; the last key read ${e.read.rows_read} row(s), reused ${e.read.rows_reused}${e.read.full_read ? ', read the whole script' : ''}` : '';
    const phaseNames = e.sql ? [...new Set(e.phases.flatMap((p) => Object.keys(p)))] : [];
    const phaseText = phaseNames.length ? `; the key's handler by phase p50: ${phaseNames.map((k) => `${k} ${f1(pct(e.phases.map((p) => p[k] || 0), 50))}`).join(', ')} ms` : '';
    log(`- ${e.n.toLocaleString('en')} rows${e.sqlRows ? ' (SQL scenario, row editor)' : ''}${e.sql ? ` (SQL editor; the script read per key p50 ${f1(pct(e.reads, 50))} / p95 ${f1(pct(e.reads, 95))} ms${readText}${phaseText})` : ''}: ${names.map((k) => `${k} ${f1(pct(e.parts.map((p) => p[k] || 0), 50))}`).join(', ')}`);
  }
  log();
  log('### Paste (a paste event over the whole left editor; the right stream already holds n/2 rows)');
  log();
  log('| rows in all | rows pasted | outcome | until result | until painted | engine (worker) | longest task | tasks > 50 ms | longest frame gap | frames > 50 ms (longest blocking) | progress visible | progress values | paste event handler | drawing |');
  log('|---:|---:|:--|---:|---:|---:|---:|---:|---:|---:|:--|---:|---:|---:|');
  for (const p of pastes) {
    const long = p.long.map((x) => x.dur);
    const longest = long.length ? Math.max(...long) : 0;
    const outcome = p.arrived.kind === 'result' ? `✓ ${p.outputs.toLocaleString('en')} outputs` : `${p.arrived.kind}: ${(p.stoppedText || p.status).slice(0, 120)}`;
    const prog = p.prog.firstVisible === null ? 'no' : `yes, after ${f1(p.prog.firstVisible)} ms (${p.prog.visibleSamples} frames)`;
    const loafBlock = p.loaf.length ? Math.max(...p.loaf.map((x) => x.blocking || 0)) : 0;
    log(`| ${p.n.toLocaleString('en')} | ${(p.n / 2).toLocaleString('en')} | ${outcome} | ${sec(p.arrived.ms)} | ${sec(p.arrived.paintedMs)} | ${sec(p.engineMs)} | ${f1(longest)} ms | ${long.filter((d) => d > 50).length} | ${f1(p.gapMax)} ms | ${p.loaf.length} (${f1(loafBlock)} ms) | ${prog} | ${p.prog.values} | ${f1(p.dispatchMs)} ms | ${f1(p.drawMs)} ms |`);
  }
  log();
  log('Phases of each paste (ms; the worker times its own phases and both sides stamp `performance.timeOrigin + performance.now()`): *paste* = the paste event until the page posts the run to the worker (the editor\'s sliced insert, the scheduling); *posting the run* = posted until the worker has the message (the rows cloned to the worker, a worker still busy); *worker set-up* = the message until the engine starts (the skeleton, the module); *rows in* = the rows text copied into the module; *parse* = the rows read alone (`parse_stream` of each stream, timed after the run on a job of its own: the worker\'s `parse_time`); *plan* = the plan\'s build (`plan::build`) minus that reading; *simulate*; *result* = building the result (`RunResult::build_owned`) and writing its first rows and the lists\' lengths as JSON text; *transfer* = `JSON.parse` of that text in the worker, posting it and receiving it on the page; *paint* = the result received until painted; *editor had the paste* = the paste event until the editor held all of it (it goes in by slices, a frame at a time; the run starts at the paste event and goes on meanwhile). Memory: the worker module\'s wasm memory after the run (it only grows: the most any run in that worker needed, the set-up run included):');
  log();
  log('| rows | paste | posting the run | worker set-up | rows in | parse | plan | simulate | result | transfer | paint | sum | until painted | JSON to the page | wasm memory | budget (64 B × outputs + 150 B × input rows) | editor had the paste |');
  log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const p of pastes) {
    const ph = p.phases;
    if (!ph || ph.plan === undefined) {
      log(`| ${p.n.toLocaleString('en')} | (the worker reported no phases: a build without the engine's \`Job\`; the editor had the paste after ${p.pasteDoneMs === null ? 'n/a' : f1(p.pasteDoneMs)} ms) |||||||||||||||`);
      continue;
    }
    const readMs = p.parts.readOnly && p.parts.readOnly.ok ? p.parts.readOnly.ms : null;
    const row = {
      paste: (ph.sent || ph.received) - p.t0Abs,
      post: ph.sent ? ph.received - ph.sent : null,
      setup: ph.started - ph.received,
      rowsIn: ph.rows_in,
      parse: readMs,
      plan: readMs === null ? ph.plan : ph.plan - readMs,
      simulate: ph.simulate,
      result: (ph.result || 0) + (ph.first_rows || 0),
      transfer: (ph.parse_json || 0) + (ph.arrived - ph.posted),
      paint: p.arrived.paintedMs - (ph.arrived - p.t0Abs),
    };
    const sum = Object.values(row).reduce((a, b) => a + (b || 0), 0);
    const mem = ph.memory ? `${(ph.memory / 2 ** 20).toFixed(0)} MiB` : 'n/a';
    const budget = 64 * (p.outputs || 0) + 150 * p.n;
    const vsBudget = ph.memory ? `${(budget / 2 ** 20).toFixed(0)} MiB (${(ph.memory / budget).toFixed(2)}×)` : 'n/a';
    const f = (x) => (x === null || x === undefined ? 'n/a' : f1(x));
    log(`| ${p.n.toLocaleString('en')} | ${f(row.paste)} | ${f(row.post)} | ${f(row.setup)} | ${f(row.rowsIn)} | ${readMs === null ? 'n/a' : f1(row.parse)} | ${readMs === null ? `${f1(row.plan)} (with parse)` : f1(row.plan)} | ${f(row.simulate)} | ${f(row.result)} | ${f(row.transfer)} | ${f(row.paint)} | ${f1(sum)} | ${f1(p.arrived.paintedMs)} | ${((ph.json_bytes || 0) / 1e3).toFixed(0)} kB | ${mem} | ${vsBudget} | ${f(p.pasteDoneMs)} |`);
  }
  log();
  log('Long tasks of each paste (start after the keystroke → duration, ms):');
  log();
  for (const p of pastes) log(`- ${p.n.toLocaleString('en')} rows: ${p.long.map((x) => `${x.start.toFixed(0)}→${x.dur.toFixed(0)}`).join(', ') || 'none'} (set-up before it, loading the scenario with the right stream: ${sec(p.setupMs)})`);
  log();
  if (TRACE) {
    log();
    log('Main-thread tasks over 50 ms in the trace of each paste (wall ms, of it the thread\'s CPU ms, of it garbage collection ms; the GC events):');
    log();
    for (const p of pastes) log(`- ${p.n.toLocaleString('en')} rows: ${(p.slowTasks || []).map((t) => `${f1(t.wall)} wall, ${f1(t.cpu)} CPU, ${f1(t.gc)} GC (${t.gcs.join(', ') || 'none'})`).join('; ') || 'none'}; collections on the main thread during the paste: ${(p.slowTasks && p.slowTasks.gcTotals) || 'none'}`);
  }
  log('Frames over 50 ms of each paste (long-animation-frame: start → duration, blocking, rendering; the scripts of 10 ms or more that ran in it: invoker, function, file, ms):');
  log();
  for (const p of pastes) {
    const frames = p.loaf.filter((x) => x.dur > 50);
    log(`- ${p.n.toLocaleString('en')} rows: ${frames.length ? '' : 'none'}`);
    for (const x of frames) {
      const scripts = (x.scripts || []).map((s) => `${s.invoker} ${s.fn || '?'} (${s.src}) ${f1(s.dur)}${s.forcedLayout ? `, forced layout ${f1(s.forcedLayout)}` : ''}`).join('; ');
      log(`  - ${x.start.toFixed(0)} → ${f1(x.dur)} ms (blocking ${f1(x.blocking || 0)}, rendering ${f1(x.render || 0)}): ${scripts || 'no script of 10 ms or more'}`);
    }
  }
  log();
  log('What the page no longer does on the main thread for a big input, timed alone afterwards (ms): `doc.toString()` of the pasted editor (the editor now keeps its text edit by edit), `JSON.stringify` and `JSON.parse` of the scenario (the worker serialises it; the snapshot shares the rows), `structuredClone` of the result the page holds (the first rows; the rest stays in the worker), `normalize` (wasm) and `compactJson()` (the URL-hash sync skips scenarios whose rows exceed its limit):');
  log();
  log('| rows | JSON size | doc.toString | JSON.stringify | JSON.parse | structuredClone(result) | wasm normalize | compactJson |');
  log('|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const p of pastes) {
    const q = p.parts;
    log(`| ${p.n.toLocaleString('en')} | ${(q.jsonBytes / 1e6).toFixed(1)} MB | ${f1(q.docMs)} | ${f1(q.strMs)} | ${f1(q.parseMs)} | ${f1(q.cloneMs)} | ${f1(q.normMs)} | ${f1(q.hashMs)} |`);
  }
  for (const p of pastes) if (p.problems.length) log(`\nPage problems (${p.n}): ${p.problems.join('; ')}`);
  const out = path.join(ROOT, 'target', 'bench');
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, 'page.md'), `${lines.join('\n')}\n`);
  process.stderr.write(`written to ${path.relative(ROOT, path.join(out, 'page.md'))}\n`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
