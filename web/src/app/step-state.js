// @ts-check
// The operator state and pending timers right after a step, for every panel that follows the
// current step (the state panel, the stepper over a window of the trace). Taken from the
// trace's per-step snapshots when it has them, else asked of the engine (`state_at`, which runs
// the scenario untraced up to the step: on this thread, `result.stateAt`, or in the worker
// that keeps the run, `result.stateAtAsync`). Answers are kept per result and step.

/**
 * @typedef {{ subtask: number, entries: any[], timers: any[], entries_total?: number, timers_total?: number }} SubtaskState
 * @typedef {{ index: number[][] | null, cut: number, at: Map<number, SubtaskState[] | Promise<SubtaskState[]>>, busy: Promise<any> | null, latest: number }} Cache
 */

/** @type {WeakMap<object, Cache>} */
const caches = new WeakMap();

/** Answers kept per result (a playback at 8× asks for 16 steps a second). */
const KEEP = 256;

/** The number of operator subtasks of a result. @param {any} r */
export const operatorSubtasks = (r) => Math.max(1, r.operator_parallelism || r.parallelism || 1);

/**
 * The step from which the trace carries no snapshot (the engine stopped taking them past its
 * cap and says so in a warning, crate/src/result.rs), or Infinity.
 * @param {any} r
 */
function snapshotsCut(r) {
  for (const w of r.warnings || []) {
    const m = /state snapshots up to step (\d+) only/.exec(typeof w === 'string' ? w : (w && w.message) || '');
    if (m) return Number(m[1]);
  }
  return Infinity;
}

/** @param {any} r @returns {Cache} */
function cacheOf(r) {
  let c = caches.get(r);
  if (!c) {
    /** @type {number[][] | null} */
    let index = null;
    if (Array.isArray(r.trace)) {
      const idx = snapshotIndex(r);
      if (idx.some((list) => list.length)) index = idx;
    }
    c = { index, cut: snapshotsCut(r), at: new Map(), busy: null, latest: -1 };
    caches.set(r, c);
  }
  return c;
}

/**
 * The state of every operator subtask after `step` from the trace's snapshots: for each subtask
 * its latest snapshot at or before the step (a subtask's snapshot is taken at every step that
 * changes its state), or no state before its first.
 * @param {any} r @param {number[][]} index @param {number} step @returns {SubtaskState[]}
 */
function fromSnapshots(r, index, step) {
  return index.map((_, subtask) => {
    const snap = snapshotAt(r, index, subtask, step);
    return snap ? snap.state : { subtask, entries: [], timers: [] };
  });
}

/**
 * For each operator subtask, the steps (ascending) whose trace carries a state snapshot of it.
 * @param {any} r @returns {number[][]}
 */
export function snapshotIndex(r) {
  const idx = Array.from({ length: operatorSubtasks(r) }, () => /** @type {number[]} */ ([]));
  (r.trace || []).forEach((/** @type {any} */ step, /** @type {number} */ i) => {
    for (const s of (step && step.state) || []) if (idx[s.subtask]) idx[s.subtask].push(i);
  });
  return idx;
}

/**
 * The latest state snapshot of `subtask` at or before `step` (a binary search of its steps in
 * `index`): `{state, step}`, or null before its first.
 * @param {any} r @param {number[][]} index @param {number} subtask @param {number} step
 * @returns {{ state: SubtaskState, step: number } | null}
 */
export function snapshotAt(r, index, subtask, step) {
  const list = index[subtask];
  if (!list || !list.length) return null;
  let lo = 0;
  let hi = list.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] <= step) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (found < 0) return null;
  const si = list[found];
  const st = r.trace[si].state.find((/** @type {any} */ s) => s.subtask === subtask);
  return st ? { state: st, step: si } : null;
}

/**
 * The state and pending timers of every operator subtask right after `step` of the result `r`:
 * the list, a promise of it (the worker computes it), or null when this result cannot say
 * (an error object from the engine rejects the promise or is returned as null).
 * @param {any} r @param {number} step
 * @returns {SubtaskState[] | Promise<SubtaskState[]> | null}
 */
export function stateAfterStep(r, step) {
  if (!r || r.error) return null;
  const c = cacheOf(r);
  const hit = c.at.get(step);
  if (hit) return hit;
  /** @type {SubtaskState[] | Promise<SubtaskState[]> | null} */
  let got = null;
  if (c.index && step < c.cut && Array.isArray(r.trace) && step < r.trace.length) got = fromSnapshots(r, c.index, step);
  else if (typeof r.stateAt === 'function') got = answer(r.stateAt(step));
  else if (typeof r.stateAtAsync === 'function') {
    const p = queued(c, r, step);
    got = p.then(
      (/** @type {any} */ v) => {
        if (v === null) throw new Error('the engine did not answer');
        c.at.set(step, v);
        return v;
      },
      (/** @type {any} */ e) => {
        c.at.delete(step);
        throw e;
      },
    );
  }
  if (got === null) return null;
  if (c.at.size >= KEEP) c.at.clear();
  c.at.set(step, got);
  return got;
}

/**
 * Asks the worker for the state after `step`, one request at a time per result: while one runs,
 * only the latest step asked for waits for it (playing a large input at 8× asks for 16 steps
 * a second, each a run up to its step; the steps skipped over are never computed, and their
 * promises reject as superseded).
 * @param {Cache} c @param {any} r @param {number} step @returns {Promise<any>}
 */
function queued(c, r, step) {
  c.latest = step;
  const run = () => {
    if (c.latest !== step) return Promise.reject(Object.assign(new Error('superseded by a later step'), { reason: 'superseded' }));
    const p = r.stateAtAsync(step).then(answer);
    c.busy = p.then(
      () => (c.busy = null),
      () => (c.busy = null),
    );
    return p;
  };
  return c.busy ? c.busy.then(run) : run();
}

/**
 * An engine answer: the list of subtask states, or null for an error object.
 * @param {any} v @returns {any}
 */
function answer(v) {
  if (Array.isArray(v) || (v && typeof v.then === 'function')) return v;
  return null;
}
