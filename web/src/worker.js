// The engine in a Web Worker: the same wasm module as the page, for large inputs.
//
// A large untraced result stays here: the page gets its first rows and the counts (a
// structured clone of 500,000 output objects blocks the receiving thread for about a second)
// and asks for more rows, or for the expected-result check, when it needs them.
import init, * as wasm from '../pkg/joinlab.js';
import { runWith } from './run-with.js';
import { needsOps, loadOps } from './ops-module.js';
import { checkExpected, expectedFrom } from './expected.js';

const ready = init();

/** Lists longer than this are kept here and sent in pages. */
const LITE_MAX = 5000;
/** Rows of each paged list sent with the result (the tables show 1,000 at first). */
const FIRST_ROWS = 1000;
/** Most rows one request may ask for (the page asks for 5,000 at a time). */
const MAX_PAGE = 100000;

/** Share of the progress bar of each phase (from the phase times of a 1M-row run, scripts/bench-page.mjs). */
const PHASES = { reading: [0, 0.3], simulating: [0.3, 0.97], result: [0.97, 1] };

// The rows of each stream of the last scenario received (the page sends only changed rows).
let rowsCache = [];
// The last result kept here: { run, full, scenario } (a whole result parsed here), or
// { run, job, full: null, scenario } (a result kept in the module: `job` answers pages of it,
// and `full` is parsed from it only when the expected-result check needs every row).
let kept = null;
// The last run's id, scenario JSON and module, for the windows of its trace and its state at a step
// (an input too large for a full trace). `json` is built on first use.
let last = null;

/**
 * The scenario of a run message: its JSON text (built on first use: the rows of a large input
 * go to the engine apart, not through JSON), the object with its rows, and, when the page sent
 * the scenario as an object, its skeleton (rows left out) and each stream's rows.
 */
function scenarioOf(msg) {
  if (typeof msg.json === 'string') return { json: msg.json, scenario: null, skeleton: null, rows: null };
  const sc = JSON.parse(msg.skeleton);
  const streams = sc.streams || [];
  rowsCache = streams.map((_, i) => (msg.rows[i] !== null && msg.rows[i] !== undefined ? msg.rows[i] : rowsCache[i] ?? ''));
  streams.forEach((st, i) => (st.rows = rowsCache[i]));
  let json = null;
  return {
    get json() {
      return (json ??= JSON.stringify(sc));
    },
    scenario: sc,
    skeleton: msg.skeleton,
    rows: rowsCache,
  };
}

/** The wall-clock time in ms, comparable between the page and this worker. */
const now = () => performance.timeOrigin + performance.now();

/** The size of module `m`'s memory in bytes (it only grows: the most any run needed), or null. */
function memoryOf(m) {
  return typeof m.memory_bytes === 'function' ? m.memory_bytes() : null;
}

const encoder = new TextEncoder();

/**
 * Gives `job` the rows text of stream `i`: written by `TextEncoder.encodeInto` straight into
 * the module's memory (the engine's `rows_buffer`), or, when the text is not all ASCII (its
 * UTF-8 is longer than the buffer), through `set_rows`.
 */
function putRows(job, i, text) {
  if (text.length > 0 && typeof job.rows_buffer === 'function') {
    const { read, written } = encoder.encodeInto(text, job.rows_buffer(text.length));
    if (read === text.length && job.take_rows(i, written)) return;
    job.rows_buffer(0);
  }
  job.set_rows(i, text);
}

/**
 * Runs an untraced scenario phase by phase with the engine's `Job`: the rows go into the
 * module as they are, the result stays there, and only its first rows and the lengths of its
 * long lists come out as JSON (the page asks for more rows when it shows them). `phases` gets
 * the time of each phase (ms). Returns the result object for the page.
 */
function runJob(m, run, parts, phases, report) {
  let t = performance.now();
  const lap = (name) => {
    const t2 = performance.now();
    phases[name] = t2 - t;
    t = t2;
  };
  const job = new m.Job(parts.skeleton, false, false);
  parts.rows.forEach((rows, i) => putRows(job, i, rows));
  lap('rows_in');
  report('reading', 0, 1);
  let ok = job.plan();
  lap('plan');
  report('reading', 1, 1);
  if (ok) {
    const total = job.arrivals();
    report('simulating', 0, total);
    ok = job.simulate(Math.max(1000, Math.floor(total / 100)), (done, all) => report('simulating', done, all));
    report('simulating', total, total);
    lap('simulate');
  }
  if (ok) {
    report('result', 0, 1);
    ok = job.result();
    lap('result');
  }
  const text = job.first_rows(LITE_MAX, FIRST_ROWS);
  lap('first_rows');
  const doc = JSON.parse(text);
  lap('parse_json');
  phases.json_bytes = text.length;
  phases.memory = memoryOf(m);
  if (doc.error || !doc.paged) {
    job.free();
    return doc.error ? doc : doc.result;
  }
  const result = doc.result;
  result.paged = doc.paged;
  kept = { run, job, full: null, scenario: parts.scenario };
  const exp = parts.scenario.expected;
  if (exp !== undefined) {
    try {
      result.expected_check = checkExpected(exp, keptFull());
    } catch {
      // A result too large to write whole (the JSON text's cap): the result stands, unchecked.
    }
  }
  return result;
}

/** The whole kept result (parsed from the module's JSON text the first time it is needed). */
function keptFull() {
  if (!kept.full) {
    const full = JSON.parse(kept.job.whole());
    if (full.error) throw new Error(full.message || 'the result is no longer available');
    kept.full = full;
  }
  return kept.full;
}

/** Forgets the kept result (and frees the module's copy of it). */
function dropKept() {
  if (kept && kept.job) kept.job.free();
  kept = null;
}

/** `full` with its long lists cut to their first rows; `paged` holds the full lengths. */
function lite(full) {
  if (!full || full.error || full.trace) return null;
  const paged = {};
  const out = { ...full };
  for (const f of ['outputs', 'late', 'windows']) {
    if (Array.isArray(full[f]) && full[f].length > LITE_MAX) {
      out[f] = full[f].slice(0, FIRST_ROWS);
      paged[f] = full[f].length;
    }
  }
  const side = full.side_outputs || {};
  for (const tag of Object.keys(side)) {
    if (side[tag].length > LITE_MAX) {
      if (out.side_outputs === side) out.side_outputs = { ...side };
      out.side_outputs[tag] = side[tag].slice(0, FIRST_ROWS);
      (paged.side_outputs ||= {})[tag] = side[tag].length;
    }
  }
  // The state left at the end (a regular join keeps every row): the first entries only.
  const st = full.final_state || [];
  const nState = st.reduce((n, s) => n + s.entries.length + s.timers.length, 0);
  if (nState > LITE_MAX) {
    let budget = FIRST_ROWS;
    out.final_state = st.map((s) => {
      const entries = s.entries.slice(0, budget);
      budget -= entries.length;
      const timers = s.timers.slice(0, budget);
      budget -= timers.length;
      return { ...s, entries, timers };
    });
    paged.final_state = nState;
  }
  if (!Object.keys(paged).length) return null;
  out.paged = paged;
  return out;
}

/**
 * A state at a step cut to what the stepper shows (60 entries of 20 rows and 60 timers per
 * subtask, with the full counts): the state of a large input may hold every row, and a clone
 * of it would block the page.
 */
function trimState(st) {
  if (!Array.isArray(st)) return st;
  return st.map((s) => ({
    ...s,
    entries_total: s.entries.length,
    timers_total: s.timers.length,
    entries: s.entries.slice(0, 60).map((en) => (en.rows.length > 20 ? { ...en, rows: en.rows.slice(0, 20), rows_total: en.rows.length } : en)),
    timers: s.timers.slice(0, 60),
  }));
}

/** A window of the trace, parsed here, with long lists of cleared rows and the state cut. */
function trimWindow(tw) {
  if (tw.error) return tw;
  for (const s of tw.steps) {
    for (const e of s.events) {
      if (e.type === 'cleared' && e.rows.length > 10) {
        e.rows_total = e.rows.length;
        e.rows = e.rows.slice(0, 10);
      }
    }
  }
  tw.state_end = trimState(tw.state_end);
  return tw;
}

async function answer(msg) {
  if (msg.what === 'trace_window' || msg.what === 'state_at' || msg.what === 'parse_time') {
    if (!last || last.run !== msg.run) throw new Error('this result is no longer the engine worker\'s last run; run the scenario again');
    // The engine runs up to the window (or step) untraced and stops after it. The windowed
    // trace is the SQL operators' module's only (the first-load module leaves it out: it is
    // needed only for an input too large for a full trace), loaded here once when first asked.
    if (msg.what === 'parse_time') {
      // The page benchmark: the rows read alone (as the plan's build reads them), timed on a
      // job of their own after the run.
      if (!last.skeleton || typeof last.m.Job !== 'function') return null;
      const job = new last.m.Job(last.skeleton, false, false);
      last.rows.forEach((rows, i) => putRows(job, i, rows));
      const t0 = performance.now();
      const ok = job.parse_only();
      const ms = performance.now() - t0;
      job.free();
      return { ms, ok };
    }
    if (msg.what === 'trace_window') {
      const { json } = last;
      const m = typeof last.m.trace_window === 'function' ? last.m : await loadOps();
      return trimWindow(JSON.parse(m.trace_window(json, msg.from, msg.count)));
    }
    return trimState(last.m.state_at(last.json, msg.step));
  }
  if (!kept || kept.run !== msg.run) throw new Error('this result is no longer kept by the engine worker; run the scenario again');
  if (msg.what === 'rows') {
    const count = Math.min(msg.count, MAX_PAGE);
    if (kept.job) {
      const page = JSON.parse(kept.job.page(msg.field, msg.tag, msg.from, count));
      if (page && page.error) throw new Error(page.message);
      return page;
    }
    const full = kept.full;
    const list = msg.tag !== undefined ? (full.side_outputs || {})[msg.tag] || [] : full[msg.field] || [];
    return list.slice(msg.from, msg.from + count);
  }
  if (msg.what === 'check') return checkExpected(msg.expected, keptFull());
  if (msg.what === 'expected') {
    const full = keptFull();
    const expected = expectedFrom(full);
    return { expected, verdict: checkExpected(expected, full) };
  }
  throw new Error(`unknown request ${msg.what}`);
}

self.onmessage = async (ev) => {
  const msg = ev.data;
  if (msg.type === 'request') {
    try {
      self.postMessage({ type: 'reply', req: msg.req, value: await answer(msg) });
    } catch (e) {
      self.postMessage({ type: 'reply', req: msg.req, error: String(e && e.message ? e.message : e) });
    }
    return;
  }
  const received = now();
  const { id, trace, snapshots } = msg;
  dropKept();
  self.postMessage({ id, type: 'phase', phase: 'loading the engine' });
  await ready;
  const parts = scenarioOf(msg);
  const { scenario } = parts;
  // The SQL operators' module, loaded here once, for a scenario that needs it.
  let m = wasm;
  try {
    if (needsOps(scenario || parts.json)) m = await loadOps();
  } catch (e) {
    self.postMessage({ id, type: 'done', result: { error: { kind: 'internal', message: String(e) }, message: `the SQL operators' module could not be loaded: ${e}` }, ms: 0, phases: {} });
    return;
  }
  last = { run: id, m, skeleton: parts.skeleton, rows: parts.rows, get json() { return parts.json; } };
  self.postMessage({ id, type: 'phase', phase: 'running the engine' });
  const t0 = performance.now();
  const phases = { sent: msg.sent, received, started: now() };
  let lastPost = 0;
  const report = (phase, done, total) => {
    const [a, b] = PHASES[phase] || [0, 1];
    const t = performance.now();
    // At most one message per 20 ms: the page redraws the bar on each.
    if (done !== 0 && done !== total && t - lastPost < 20) return;
    lastPost = t;
    self.postMessage({ id, type: 'progress', phase: PHASE_WORDS[phase] || phase, fraction: a + (b - a) * (total ? done / total : 0) });
  };
  let result;
  let out;
  try {
    if (msg.text && trace && snapshots !== false && typeof m.run_to_json === 'function') {
      // As JSON text: a string is copied to the page at once, where an object graph (the trace
      // of 1,000 rows with its snapshots) takes ~20 ms to receive; the page parses it when it
      // has painted the tables.
      result = { text: m.run_to_json(parts.json, true) };
    } else if (msg.lite && !trace && parts.skeleton !== null && typeof m.Job === 'function') {
      // A large untraced run for the tables: the result stays in the module, paged.
      out = runJob(m, id, parts, phases, report);
    } else result = runWith(m, parts.json, trace, snapshots);
  } catch (e) {
    dropKept();
    out = undefined;
    result = { error: { kind: 'internal', message: String(e) }, message: `internal error in the engine: ${e}` };
  }
  const ms = performance.now() - t0;
  phases.done = ms;
  if (out === undefined) {
    out = result;
    if (msg.lite) {
      const l = lite(result);
      if (l) {
        kept = { run: id, full: result, scenario };
        const exp = scenario ? scenario.expected : JSON.parse(parts.json).expected;
        if (exp !== undefined) l.expected_check = checkExpected(exp, result);
        out = l;
      }
    }
  }
  self.postMessage({ id, type: 'progress', phase: 'sending the result', fraction: 1 });
  phases.posted = now();
  self.postMessage({ id, type: 'done', result: out, ms, phases });
};

const PHASE_WORDS = { reading: 'reading the rows', simulating: 'simulating', result: 'building the result' };
