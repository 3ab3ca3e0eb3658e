// The engine: the wasm module on the main thread (small inputs, same frame) and the same
// module in a Web Worker (large inputs, with progress, cancel and a time budget).

import init, * as wasm from '../pkg/joinlab.js';
import { runWith } from './run-with.js';

let readyPromise = null;
/** Loads the wasm module once. */
export function loadEngine() {
  if (!readyPromise) readyPromise = init().then(() => wasm);
  return readyPromise;
}

export { wasm };

/** Runs on the main thread. Returns { result, ms }. `result` may be an error object. */
export function runSync(json, trace) {
  const t0 = performance.now();
  let result;
  try {
    result = runWith(wasm, json, trace);
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

/** Runs scenarios in a Web Worker; one job at a time, a newer job replaces a running one. */
export class WorkerRunner {
  constructor() {
    this.worker = null;
    this.job = null;
    this.queued = null;
    this.seq = 0;
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
    if (msg.type === 'phase') {
      job.phase = msg.phase;
      job.onProgress && job.onProgress({ phase: msg.phase, elapsed: performance.now() - job.t0, budget: job.budget });
    } else if (msg.type === 'done') {
      clearTimeout(job.timer);
      clearInterval(job.ticker);
      this.job = null;
      job.resolve({ result: msg.result, ms: msg.ms, worker: true });
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
    if (this.queued) this.queued.reject(new Cancelled('superseded', 'replaced by a newer run'));
    this.queued = null;
    if (this.job) {
      clearTimeout(this.job.timer);
      clearInterval(this.job.ticker);
    }
    this.job = null;
    if (this.worker) this.worker.terminate();
    this.worker = null;
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
   */
  run(json, trace, { budgetMs = 10000, onProgress, queue = false, snapshots = true } = {}) {
    return new Promise((resolve, reject) => {
      const req = { json, trace, snapshots, budgetMs, onProgress, resolve, reject };
      if (this.job && queue) {
        if (this.queued) this.queued.reject(new Cancelled('superseded', 'replaced by a newer run'));
        this.queued = req;
        return;
      }
      if (this.job) this._fail('superseded', 'replaced by a newer run');
      this._start(req);
    });
  }

  _start({ json, trace, snapshots, budgetMs, onProgress, resolve, reject }) {
    const w = this._spawn();
    const id = ++this.seq;
    const job = { id, resolve, reject, t0: performance.now(), budget: budgetMs, onProgress, phase: 'starting' };
    job.timer = setTimeout(() => {
      const s = (budgetMs / 1000).toFixed(budgetMs % 1000 ? 1 : 0);
      this._fail('timeout', `stopped: the run took longer than its time budget of ${s} s`);
    }, budgetMs);
    job.ticker = onProgress ? setInterval(() => onProgress({ phase: job.phase, elapsed: performance.now() - job.t0, budget: budgetMs }), 100) : null;
    this.job = job;
    onProgress && onProgress({ phase: 'starting', elapsed: 0, budget: budgetMs });
    w.postMessage({ id, json, trace, snapshots });
  }

  cancel() {
    this._fail('cancel', 'cancelled');
  }
}
