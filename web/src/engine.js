// The engine: the wasm module on the main thread (small inputs, same frame) and the same
// module in a Web Worker (large inputs, with progress, cancel and a time budget).

import init, * as wasm from '../pkg/joinlab.js';
import { runWith } from './run-with.js';
import { needsOps, loadOps, opsModule } from './ops-module.js';

let readyPromise = null;
/** Loads the wasm module once. */
export function loadEngine() {
  if (!readyPromise) readyPromise = init().then(() => wasm);
  return readyPromise;
}

export { wasm, needsOps, loadOps, opsModule };

/**
 * The module that runs a scenario (JSON text or object): the SQL operators' one when it needs
 * it and it is loaded (`loadOps`), else the first-load one (which answers a scenario it cannot
 * simulate with an error).
 */
export function engineFor(scenario) {
  const ops = opsModule();
  return ops && needsOps(scenario) ? ops : wasm;
}

/** Runs on the main thread. Returns { result, ms }. `result` may be an error object. */
export function runSync(json, trace) {
  const t0 = performance.now();
  let result;
  try {
    result = runWith(engineFor(json), json, trace);
  } catch (e) {
    // A panic in the engine (a bug): report it as data like any other error.
    result = { error: { kind: 'internal', message: String(e && e.message ? e.message : e) }, message: `internal error in the engine: ${e}` };
  }
  return { result, ms: performance.now() - t0 };
}

/** Validates a duration text with the engine's own parser ("5s", "1h 30m"); returns an error message or null. */
export function durationError(text) {
  const r = wasm.normalize(JSON.stringify({ job: { allowed_lateness: text } }));
  if (typeof r === 'string') return null;
  const m = (r && r.error && r.error.message) || (r && r.message) || 'not a time';
  return m.replace(/ at line \d+ column \d+$/, '');
}

export class Cancelled extends Error {
  constructor(reason, message) {
    super(message);
    this.reason = reason; // 'cancel' | 'timeout' | 'superseded' | 'crash'
  }
}

/** What identifies a scenario object for `adopt`: its JSON without the rows, and the rows. */
function aheadKey(json) {
  const streams = json.streams || [];
  return {
    skeleton: JSON.stringify(json, function (k, v) {
      return k === 'rows' && streams.includes(this) ? '' : v;
    }),
    rows: streams.map((/** @type {any} */ st) => st.rows),
  };
}

/** Whether the scenario object `json` has exactly the rows `rows`. */
function sameRows(rows, json) {
  const streams = json.streams || [];
  return streams.length === rows.length && streams.every((/** @type {any} */ st, /** @type {number} */ i) => st.rows === rows[i]);
}

/** Runs scenarios in a Web Worker; one job at a time, a newer job replaces a running one. */
export class WorkerRunner {
  constructor() {
    this.worker = null;
    this.job = null;
    this.queued = null;
    this.seq = 0;
    // The rows of each stream the worker last received (it keeps them: unchanged rows are not
    // sent again), and the requests for pages of a result kept in the worker.
    this.sentRows = [];
    this.requests = new Map();
    // A run started ahead (`runAhead`) for a scenario that is about to be asked for: { key,
    // job, settled, waiter }.
    this.ahead = null;
  }

  _spawn() {
    if (this.worker) return this.worker;
    const w = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    w.onmessage = (ev) => this._message(ev.data);
    w.onerror = (ev) => {
      ev.preventDefault();
      this._fail('crash', `the engine worker failed: ${ev.message || 'unknown error'}`);
    };
    this.worker = w;
    return w;
  }

  _message(msg) {
    if (msg.type === 'reply') {
      const req = this.requests.get(msg.req);
      if (!req) return;
      this.requests.delete(msg.req);
      if (msg.error) req.reject(new Error(msg.error));
      else req.resolve(msg.value);
      return;
    }
    const job = this.job;
    if (!job || msg.id !== job.id) return;
    if (msg.type === 'done' && this.queued) {
      // Queue mode: the finished job is out of date; start the newest one on the warm worker.
      clearTimeout(job.timer);
      clearInterval(job.ticker);
      this.job = null;
      job.reject(new Cancelled('superseded', 'replaced by a newer run'));
      const q = this.queued;
      this.queued = null;
      this._start(q);
      return;
    }
    if (msg.type === 'phase' || msg.type === 'progress') {
      job.phase = msg.phase;
      if (msg.type === 'progress') job.fraction = msg.fraction;
      job.onProgress && job.onProgress({ phase: msg.phase, fraction: job.fraction, elapsed: performance.now() - job.t0, budget: job.budget });
    } else if (msg.type === 'done') {
      // When the result arrived, beside the worker's times of its phases (the page benchmark
      // reads them as `result.phases`).
      if (msg.phases) msg.phases.arrived = performance.timeOrigin + performance.now();
      clearTimeout(job.timer);
      clearInterval(job.ticker);
      this.job = null;
      if (msg.result && typeof msg.result === 'object') Object.defineProperty(msg.result, 'phases', { value: msg.phases, enumerable: false });
      if (msg.result && msg.result.paged) {
        // The full result stays in the worker: pages of it are asked for on demand.
        const runId = msg.id;
        Object.defineProperty(msg.result, 'fetch', { value: (what) => this.request({ ...what, run: runId }), enumerable: false });
      }
      if (msg.result && !msg.result.error && typeof msg.result === 'object' && !msg.result.text) {
        // The trace of a window of steps and the state at a step, run in the worker on the
        // scenario of this run (for an input too large for a full trace).
        const runId = msg.id;
        Object.defineProperty(msg.result, 'traceWindow', { value: (from, count) => this.request({ what: 'trace_window', run: runId, from, count }), enumerable: false });
        Object.defineProperty(msg.result, 'stateAtAsync', { value: (step) => this.request({ what: 'state_at', run: runId, step }), enumerable: false });
      }
      job.resolve({ result: msg.result, ms: msg.ms, phases: msg.phases, worker: true });
    }
  }

  _fail(reason, message) {
    const job = this.job;
    const queued = this.queued;
    this.queued = null;
    this.terminate();
    if (job) job.reject(new Cancelled(reason, message));
    // A queued run still wants its answer: start it on a fresh worker.
    if (queued) this._start(queued);
  }

  terminate() {
    this.ahead = null;
    if (this.queued) this.queued.reject(new Cancelled('superseded', 'replaced by a newer run'));
    this.queued = null;
    if (this.job) {
      clearTimeout(this.job.timer);
      clearInterval(this.job.ticker);
    }
    this.job = null;
    if (this.worker) this.worker.terminate();
    this.worker = null;
    this.sentRows = [];
    for (const r of this.requests.values()) r.reject(new Error('the engine worker was stopped; run the scenario again'));
    this.requests.clear();
  }

  /** Asks the worker about the result it keeps (a page of rows, …); resolves its answer. */
  request(what) {
    if (!this.worker) return Promise.reject(new Error('the engine worker was stopped; run the scenario again'));
    const req = ++this.seq;
    return new Promise((resolve, reject) => {
      this.requests.set(req, { resolve, reject });
      this.worker.postMessage({ type: 'request', req, ...what });
    });
  }

  get busy() {
    return !!this.job;
  }

  /** Starts the worker ahead of the first run (loading the module takes a moment). */
  warm() {
    this._spawn();
  }

  /**
   * Runs `json`; resolves { result, ms } or rejects with Cancelled. A run started while another
   * is running replaces it: by default the worker is terminated at once (a big run must not go
   * on burning the CPU); with `queue`, the running job finishes first (its result is dropped)
   * and the worker stays warm — cheaper for a stream of small runs.
   *
   * `json` is the scenario's JSON text, or the scenario object itself: then the page does not
   * serialise it (21 MB for a million rows); the rows go as strings, only those that changed
   * since the last run, and the worker builds the JSON. With `lite`, a large untraced result
   * stays in the worker and the page gets its first rows, the counts and `result.fetch`.
   * With `text` (a traced run with snapshots), the result may come as `{ text }`, its JSON.
   */
  run(json, trace, { budgetMs = 10000, onProgress, queue = false, snapshots = true, lite = false, text = false } = {}) {
    this.ahead = null;
    return new Promise((resolve, reject) => {
      const req = { json, trace, snapshots, lite, text, budgetMs, onProgress, resolve, reject };
      if (this.job && queue) {
        if (this.queued) this.queued.reject(new Cancelled('superseded', 'replaced by a newer run'));
        this.queued = req;
        return;
      }
      if (this.job) this._fail('superseded', 'replaced by a newer run');
      this._start(req);
    });
  }

  _start({ json, trace, snapshots, lite, text, budgetMs, onProgress, resolve, reject }) {
    const w = this._spawn();
    const id = ++this.seq;
    const job = { id, resolve, reject, t0: performance.now(), budget: budgetMs, onProgress, phase: 'starting', fraction: 0 };
    job.timer = setTimeout(() => {
      const s = (budgetMs / 1000).toFixed(budgetMs % 1000 ? 1 : 0);
      this._fail('timeout', `stopped: the run took longer than its time budget of ${s} s`);
    }, budgetMs);
    // The ticker only updates the elapsed time; the bar moves with the worker's reports.
    job.ticker = onProgress ? setInterval(() => onProgress({ phase: job.phase, fraction: job.fraction, elapsed: performance.now() - job.t0, budget: budgetMs }), 250) : null;
    this.job = job;
    onProgress && onProgress({ phase: 'starting', fraction: 0, elapsed: 0, budget: budgetMs });
    const msg = { type: 'run', id, trace, snapshots, lite, text, progress: !!onProgress };
    if (typeof json === 'string') msg.json = json;
    else {
      const streams = json.streams || [];
      msg.skeleton = JSON.stringify(json, function (k, v) {
        return k === 'rows' && streams.includes(this) ? '' : v;
      });
      msg.rows = streams.map((st, i) => (this.sentRows[i] === st.rows ? null : st.rows));
      this.sentRows = streams.map((st) => st.rows);
    }
    // When it was posted (the worker reports its phases on the same clock).
    msg.sent = performance.timeOrigin + performance.now();
    w.postMessage(msg);
  }

  cancel() {
    this._fail('cancel', 'cancelled');
  }

  /**
   * Starts an untraced `lite` run of the scenario object `json` ahead of being asked for it
   * (a big paste: the editor inserts the text in slices for a while, the engine can start on
   * it at once). Nothing is shown of it until `adopt` claims it for the same scenario; any
   * other run replaces it.
   */
  runAhead(json, { budgetMs = 10000 } = {}) {
    const ahead = { key: aheadKey(json), job: null, settled: null, waiter: null };
    this.run(json, false, { budgetMs, lite: true }).then(
      (v) => (ahead.waiter ? ahead.waiter.resolve(v) : (ahead.settled = { ok: true, v })),
      (e) => (ahead.waiter ? ahead.waiter.reject(e) : (ahead.settled = { ok: false, e })),
    );
    ahead.job = this.job;
    this.ahead = ahead;
  }

  /** Stops the run started ahead (a paste that was cancelled), unless `adopt` took it over. */
  dropAhead() {
    const ahead = this.ahead;
    this.ahead = null;
    if (ahead && !ahead.settled && this.job === ahead.job) this.terminate();
  }

  /**
   * The run started ahead for exactly this scenario (object), if it is still the worker's:
   * resolves as `run` does, showing its progress from now on; else null.
   */
  adopt(json, { onProgress } = {}) {
    const ahead = this.ahead;
    this.ahead = null;
    if (!ahead || ahead.key.skeleton !== aheadKey(json).skeleton || !sameRows(ahead.key.rows, json)) return null;
    if (ahead.settled) return ahead.settled.ok ? Promise.resolve(ahead.settled.v) : Promise.reject(ahead.settled.e);
    const job = this.job;
    if (!job || job !== ahead.job) return null;
    job.onProgress = onProgress;
    if (onProgress) {
      job.ticker = setInterval(() => onProgress({ phase: job.phase, fraction: job.fraction, elapsed: performance.now() - job.t0, budget: job.budget }), 250);
      onProgress({ phase: job.phase, fraction: job.fraction, elapsed: performance.now() - job.t0, budget: job.budget });
    }
    return new Promise((resolve, reject) => (ahead.waiter = { resolve, reject }));
  }
}
