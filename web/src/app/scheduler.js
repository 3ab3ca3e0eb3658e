// @ts-check
// The run scheduler: decides where a run goes (this thread, same frame; or the worker, with
// progress, cancel and a time budget), and fetches the step-by-step trace for the panels that
// show it once one of them is in view.

import { runSync, engineFor, needsOps, loadOps, opsModule, WorkerRunner, Cancelled } from '../engine.js';
import { app, $, actions } from './state.js';
import { TRACE_PANELS, seen } from './visibility.js';
import { estimateWork, MAIN_THREAD_WORK } from './work.js';

/** Inputs with more rows than this run in the worker. */
export const BIG_ROWS = 20000;
/** A run slower than this (ms) sends the next ones to the worker. */
export const SLOW_MS = 30;
/** Inputs up to this many rows get the trace in the same frame; larger ones get it from the worker. */
export const SYNC_TRACE_ROWS = 300;
/** Traces of inputs up to this many rows carry a state snapshot per step (they grow quadratically). */
export const SNAPSHOT_ROWS = 2000;
/**
 * The first run of a scenario with more rows than this goes to the worker: nothing is known yet
 * about what a row of it costs (a link may be cheap per row or not at all).
 */
export const UNMEASURED_ROWS = 2000;
/** Inputs with more rows than this run without the step-by-step trace. */
export const TRACE_ROWS = 20000;

export const worker = new WorkerRunner();
const detailWorker = new WorkerRunner();

/**
 * Where results go: `apply` takes a run's result (or error) for the tables; `applyTrace` the
 * traced result that follows a run without the trace.
 * @type {{ apply: (result: any, snapshot: any, ms: number, viaWorker: boolean) => void, applyTrace: (result: any) => void, traceFailed: (message: string) => void }}
 */
const sink = { apply: () => {}, applyTrace: () => {}, traceFailed: () => {} };

/** @param {typeof sink} s */
export function initScheduler(s) {
  Object.assign(sink, s);
}

/**
 * Runs the scenario `snapshot` (of `rows` input rows) as run number `seq`, on this thread or in
 * the worker, and hands the result to the sink.
 * @param {number} seq @param {any} snapshot @param {number} rows
 * @param {{ forceWorker?: boolean }} [opts]
 */
export function schedule(seq, snapshot, rows, { forceWorker = false } = {}) {
  // A scenario of the SQL operators runs once their module is loaded (web/src/ops-module.js).
  if (needsOps(snapshot) && !opsModule()) {
    loadOps().then(
      () => seq === app.seq && schedule(seq, snapshot, rows, { forceWorker }),
      (/** @type {any} */ e) => seq === app.seq && sink.apply({ error: { kind: 'internal', message: String(e) }, message: `the SQL operators' module could not be loaded: ${e}` }, snapshot, 0, false),
    );
    return;
  }
  // How long an untraced run of this many rows is expected to take, from the last one.
  const predicted = app.msPerRow * rows;
  // Routing by work, not by rows: a run whose estimated work is over the main thread's budget
  // goes to the worker; so does the first run of more than UNMEASURED_ROWS rows.
  const est = estimateWork(snapshot, rows);
  const heavy = est.work > MAIN_THREAD_WORK;
  const unmeasured = !app.measured && rows > UNMEASURED_ROWS;
  const big = forceWorker || heavy || unmeasured || app.mainBroken || rows > BIG_ROWS || predicted > 4 * SLOW_MS || (app.slowRuns >= 2 && predicted > SLOW_MS);
  app.routeReason = heavy ? est.why || `about ${est.work.toLocaleString('en')} units of work` : '';
  // The step-by-step trace of a heavy run would be larger still (an event per window): off.
  const trace = rows <= TRACE_ROWS && !heavy;
  $('stopped').hidden = true;
  setDetailPending(false);
  app.detailWanted = null;
  if (!big) {
    if (worker.busy) worker.terminate();
    $('progress').hidden = true;
    // Small inputs: everything, trace included, in this frame. Larger ones: the tables now
    // (no trace), the trace for the timeline, stepper and verdicts from the worker right after.
    const inline = trace && rows <= SYNC_TRACE_ROWS;
    const json = JSON.stringify(snapshot);
    const { result, ms } = runSync(json, inline);
    if (!inline) noteRunTime(ms, rows);
    else app.lastRunMs = ms;
    if (result && result.error && result.error.kind === 'internal') app.mainBroken = true;
    // Over the engine's budget on this thread: the worker runs it, with progress and Cancel.
    if (result && result.error && result.error.kind === 'limit') {
      app.routeReason = result.error.message || result.message || 'over the work budget of the main thread';
      schedule(seq, snapshot, rows, { forceWorker: true });
      return;
    }
    const wantDetail = trace && !inline && result && !result.error;
    if (wantDetail) app.detailWanted = { seq, json, rows };
    attachStateAt(result, json);
    sink.apply(result, snapshot, ms, false);
    if (wantDetail) requestDetailWhenSeen();
    return;
  }
  if (detailWorker.busy) detailWorker.terminate();
  actions.showProgress({ phase: app.routeReason ? `running in the background: ${app.routeReason}` : 'starting', fraction: 0 });
  // The scenario object, not its JSON: the worker serialises it (and keeps the rows it has).
  // The run is untraced, for the tables; as on the main thread, the trace (for the timeline,
  // stepper and verdicts) comes from the other worker right after.
  // A run started ahead of this one for the same scenario (a big paste, `runAhead`) is this run.
  const running =
    worker.adopt(snapshot, { onProgress: actions.showProgress }) ||
    worker.run(
      snapshot,
      false,
      /** @type {any} */ ({
        budgetMs: app.budgetMs,
        lite: true,
        onProgress: actions.showProgress,
      }),
    );
  running
    .then((/** @type {{ result: any, ms: number }} */ { result, ms }) => {
      if (seq !== app.seq) return;
      $('progress').hidden = true;
      noteRunTime(ms, rows);
      app.budgetMs = app.defaultBudgetMs;
      const wantDetail = trace && result && !result.error;
      if (wantDetail) app.detailWanted = { seq, json: JSON.stringify(snapshot), rows };
      sink.apply(result, snapshot, ms, true);
      if (wantDetail) requestDetailWhenSeen();
    })
    .catch((/** @type {any} */ e) => {
      if (e.reason === 'superseded') return;
      $('progress').hidden = true;
      $('stopped').hidden = false;
      const tail = app.result ? ' The panels show the last result that finished.' : '';
      $('stopped-text').textContent =
        e.reason === 'timeout'
          ? `${e.message}, so it was stopped instead of freezing the page${app.routeReason ? ` (${app.routeReason})` : ''}. Fewer rows, a narrower window or interval, or a longer budget may help.${tail}`
          : `${e.message}.${tail}`;
      $('stopped-retry').hidden = e.reason !== 'timeout' && e.reason !== 'cancel';
      document.body.classList.add('has-stale');
      $('results').classList.add('stale');
    });
}

/**
 * Whether the machine has a core to spare for starting a big paste's run while the paste still
 * goes into its editor (`runAhead`): more than two. The worker's run holds one core and the
 * editor's slices the main thread's; the main thread's young-generation collections (a slice
 * makes thousands of line strings, all kept) wait for V8's helper threads, which then wait for a
 * core. Measured on a 2-core machine, 1,000,000 rows (BENCHMARKS.md, *Issue 12, closing round*):
 * with the overlap, a slice's task took 52–66 ms in 2 of 4 pastes; without it, no task over
 * 50 ms in 3 of 3, the result painted 0.1–0.2 s later.
 */
function spareCore() {
  return (navigator.hardwareConcurrency || 1) > 2;
}

/**
 * Starts the worker on `snapshot` (of `rows` input rows) before it is asked for: a big paste
 * goes into its editor in slices for a while, and the run it will ask for at the end
 * (`schedule`, same scenario) then takes over this one instead of starting again. Only for an
 * input that goes to the worker anyway; a scenario that needs the SQL operators' module before
 * it is loaded is left to `schedule`, and so is every paste on a machine of one or two cores
 * (`spareCore`).
 * @param {any} snapshot @param {number} rows
 */
export function runAhead(snapshot, rows) {
  if (!spareCore() || rows <= BIG_ROWS || (needsOps(snapshot) && !opsModule())) return;
  if (detailWorker.busy) detailWorker.terminate();
  worker.runAhead(snapshot, { budgetMs: app.budgetMs });
}

/** Stops the run `runAhead` started (its paste was cancelled). */
export function dropAhead() {
  worker.dropAhead();
}

/** Cancels the worker's run (the progress box's Cancel). */
export function cancelRun() {
  worker.cancel();
}

/**
 * A result on this thread gets `result.stateAt(step)`: the state and pending timers of every
 * operator subtask right after that step (the engine's `state_at`, which runs the scenario
 * untraced up to the step). The stepper asks for it when the trace has no per-step snapshots;
 * the state panel (app/step-state.js) when the result has no trace or the step has no snapshot.
 * @param {any} result @param {string} json
 */
function attachStateAt(result, json) {
  const m = engineFor(json);
  if (!result || result.error || typeof result !== 'object' || typeof m.state_at !== 'function') return;
  Object.defineProperty(result, 'stateAt', { value: (/** @type {number} */ step) => m.state_at(json, step), enumerable: false, configurable: true });
}

/**
 * Asks for the trace the current result wants (inputs over SYNC_TRACE_ROWS rows get it from
 * the worker after the tables), only while a panel that shows it is in view: typing into a
 * 1,000-row scenario with the timeline, the stepper and the verdicts scrolled away costs no
 * trace run, no parse of a few MB of JSON and no redraw per keystroke.
 */
export function requestDetailWhenSeen() {
  const w = app.detailWanted;
  if (!w || w.seq !== app.seq || app.detailPending) return;
  if (!TRACE_PANELS.some(seen)) return;
  app.detailWanted = null;
  requestDetail(w.seq, w.json, w.rows);
}

/**
 * Asks for the trace the current result wants whether or not a trace panel is in view: a panel
 * that follows the step needs the rows and keys only the traced result names (the state panel).
 */
export function requestDetailNow() {
  const w = app.detailWanted;
  if (!w || w.seq !== app.seq || app.detailPending) return;
  app.detailWanted = null;
  requestDetail(w.seq, w.json, w.rows);
}

/**
 * Runs the scenario again with the trace in the worker, for the timeline, stepper and verdicts.
 * @param {number} seq @param {string} json @param {number} rows
 */
function requestDetail(seq, json, rows) {
  setDetailPending(true);
  // Sent to the worker from a task of its own: posting the scenario is not part of the
  // keystroke's frame (2–3 ms of a 1,000-row keystroke on a busy machine, scripts/bench-page.mjs).
  new Promise((resolve) => setTimeout(resolve, 0))
    .then(() => {
      if (seq !== app.seq) throw new Cancelled('superseded', 'replaced by a newer run');
      return detailWorker.run(json, true, { budgetMs: app.defaultBudgetMs, queue: true, snapshots: rows <= SNAPSHOT_ROWS, text: true });
    })
    // The trace is drawn after the frame with the new tables: receiving and drawing it (the
    // timeline, the stepper) must not hold that frame back.
    .then((/** @type {any} */ got) => afterNextPaint().then(() => got))
    .then((/** @type {{ result: any }} */ { result }) => {
      if (seq !== app.seq) return;
      if (result && typeof result.text === 'string') result = JSON.parse(result.text);
      // Parsing the trace (9 ms for 1,000 rows) and drawing it (8–13 ms) are separate tasks: a
      // keystroke that comes in between waits for one of them, not for both.
      return new Promise((resolve) => setTimeout(resolve, 0)).then(() => {
        if (seq !== app.seq) return;
        attachStateAt(result, json);
        setDetailPending(false);
        if (!result || result.error) return;
        sink.applyTrace(result);
      });
    })
    .catch((/** @type {any} */ e) => {
      if (e.reason === 'superseded' || seq !== app.seq) return;
      setDetailPending(false);
      sink.traceFailed(`The trace for the timeline was not computed: ${e.message}.`);
    });
}

/**
 * Remembers how long an untraced run took, per row: the next input goes to the worker when it
 * is predicted to take over 4 × SLOW_MS (or SLOW_MS after two slow runs in a row). Traced runs
 * (the worker's detail runs) are slower by the trace and do not count.
 * @param {number} ms @param {number} rows
 */
function noteRunTime(ms, rows) {
  app.measured = true;
  app.lastRunMs = ms;
  app.msPerRow = ms / Math.max(rows, 100);
  app.slowRuns = ms > SLOW_MS ? app.slowRuns + 1 : 0;
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let staleTimer;
/**
 * Marks the trace as being computed (`detail-pending`, which tests wait on). The pictures are
 * greyed (`detail-stale`) only if it takes over 150 ms: a class that styles the timeline,
 * changed twice around every keystroke, would have its thousands of SVG elements restyled
 * and repainted each time.
 * @param {boolean} on
 */
export function setDetailPending(on) {
  app.detailPending = on;
  document.body.classList.toggle('detail-pending', on);
  clearTimeout(staleTimer);
  if (on) staleTimer = setTimeout(() => document.body.classList.add('detail-stale'), 150);
  else document.body.classList.remove('detail-stale');
}

/** Resolves after the next frame is painted (or after 100 ms in a page that gets no frames). */
function afterNextPaint() {
  return new Promise((resolve) => {
    let done = false;
    const go = () => {
      if (!done) resolve((done = true));
    };
    requestAnimationFrame(() => setTimeout(go, 0));
    setTimeout(go, 100);
  });
}

/**
 * The progress box of a worker run or a big paste: `fraction` of the work done (0..1).
 * @param {{ phase: string, fraction?: number, elapsed?: number, budget?: number }} p
 */
export function showProgress({ phase, fraction = 0, elapsed, budget }) {
  const bar = /** @type {HTMLProgressElement} */ ($('progress-bar'));
  $('progress').hidden = false;
  $('progress-phase').textContent = `${phase}…`;
  bar.max = 1;
  bar.value = Math.max(0, Math.min(1, fraction));
  $('progress').dataset.fraction = bar.value.toFixed(3);
  $('progress-time').textContent = elapsed === undefined ? `${Math.round(bar.value * 100)} %` : `${Math.round(bar.value * 100)} % · ${(elapsed / 1000).toFixed(1)} s of ${((budget || 0) / 1000).toFixed(0)} s`;
}
