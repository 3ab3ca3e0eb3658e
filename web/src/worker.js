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

/** Share of the progress bar of each phase (from the phase times of a 1M-row run). */
const PHASES = { reading: [0, 0.3], simulating: [0.3, 0.85], result: [0.85, 1] };

// The rows of each stream of the last scenario received (the page sends only changed rows).
let rowsCache = [];
// The last result kept here: { run, full, scenario }.
let kept = null;
// The last run's id, scenario JSON and module, for the windows of its trace and its state at a step
// (an input too large for a full trace).
let last = null;

function scenarioJson(msg) {
  if (typeof msg.json === 'string') return { json: msg.json, scenario: null };
  const sc = JSON.parse(msg.skeleton);
  const streams = sc.streams || [];
  rowsCache = streams.map((_, i) => (msg.rows[i] !== null && msg.rows[i] !== undefined ? msg.rows[i] : rowsCache[i] ?? ''));
  streams.forEach((st, i) => (st.rows = rowsCache[i]));
  return { json: JSON.stringify(sc), scenario: sc };
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
  if (msg.what === 'trace_window' || msg.what === 'state_at') {
    if (!last || last.run !== msg.run) throw new Error('this result is no longer the engine worker\'s last run; run the scenario again');
    // The engine runs up to the window (or step) untraced and stops after it. The windowed
    // trace is the SQL operators' module's only (the first-load module leaves it out: it is
    // needed only for an input too large for a full trace), loaded here once when first asked.
    if (msg.what === 'trace_window') {
      const { json } = last;
      const m = typeof last.m.trace_window === 'function' ? last.m : await loadOps();
      return trimWindow(JSON.parse(m.trace_window(json, msg.from, msg.count)));
    }
    return trimState(last.m.state_at(last.json, msg.step));
  }
  if (!kept || kept.run !== msg.run) throw new Error('this result is no longer kept by the engine worker; run the scenario again');
  const full = kept.full;
  if (msg.what === 'rows') {
    const list = msg.tag !== undefined ? (full.side_outputs || {})[msg.tag] || [] : full[msg.field] || [];
    return list.slice(msg.from, msg.from + Math.min(msg.count, MAX_PAGE));
  }
  if (msg.what === 'check') return checkExpected(msg.expected, full);
  if (msg.what === 'expected') {
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
  const { id, trace, snapshots } = msg;
  kept = null;
  self.postMessage({ id, type: 'phase', phase: 'loading the engine' });
  await ready;
  const { json, scenario } = scenarioJson(msg);
  // The SQL operators' module, loaded here once, for a scenario that needs it.
  let m = wasm;
  try {
    if (needsOps(scenario || json)) m = await loadOps();
  } catch (e) {
    self.postMessage({ id, type: 'done', result: { error: { kind: 'internal', message: String(e) }, message: `the SQL operators' module could not be loaded: ${e}` }, ms: 0, phases: {} });
    return;
  }
  last = { run: id, json, m };
  self.postMessage({ id, type: 'phase', phase: 'running the engine' });
  const t0 = performance.now();
  const phases = {};
  let result;
  try {
    if (msg.text && trace && snapshots !== false && typeof m.run_to_json === 'function') {
      // As JSON text: a string is copied to the page at once, where an object graph (the trace
      // of 1,000 rows with its snapshots) takes ~20 ms to receive; the page parses it when it
      // has painted the tables.
      result = { text: m.run_to_json(json, true) };
    } else if (msg.progress && typeof m.run_progress === 'function') {
      let lastPost = 0;
      result = m.run_progress(json, !!trace, snapshots !== false, (phase, done, total) => {
        const [a, b] = PHASES[phase] || [0, 1];
        if (!(phase in phases)) phases[phase] = performance.now() - t0;
        const now = performance.now();
        // At most one message per 20 ms: the page redraws the bar on each.
        if (done !== 0 && done !== total && now - lastPost < 20) return;
        lastPost = now;
        self.postMessage({ id, type: 'progress', phase: PHASE_WORDS[phase] || phase, fraction: a + (b - a) * (total ? done / total : 0) });
      });
      if (result === null || result === undefined) result = runWith(m, json, trace, snapshots);
    } else result = runWith(m, json, trace, snapshots);
  } catch (e) {
    result = { error: { kind: 'internal', message: String(e) }, message: `internal error in the engine: ${e}` };
  }
  const ms = performance.now() - t0;
  phases.done = ms;
  let out = result;
  if (msg.lite) {
    const l = lite(result);
    if (l) {
      kept = { run: id, full: result, scenario };
      const exp = scenario ? scenario.expected : JSON.parse(json).expected;
      if (exp !== undefined) l.expected_check = checkExpected(exp, result);
      out = l;
    }
  }
  self.postMessage({ id, type: 'progress', phase: 'sending the result', fraction: 1 });
  self.postMessage({ id, type: 'done', result: out, ms, phases });
};

const PHASE_WORDS = { reading: 'reading the rows', simulating: 'simulating', result: 'building the result' };
