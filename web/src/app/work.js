// @ts-check
// How much work a run will do, estimated before it starts: the page must never run unbounded
// work on the main thread. A run's cost grows with the rows times what each row costs: one
// window assignment per row for tumbling and session windows, size / slide for a sliding
// window (Flink's SlidingEventTimeWindows.assignWindows puts a row in every window that
// covers it), size / slide for HOP and size / step for CUMULATE. A run estimated over
// MAIN_THREAD_WORK goes to the worker, with its progress, Cancel and time budget.

import { wasm } from '../engine.js';

/** Window assignments (or other per-row units) a main-thread run may do: ~100 ms of engine work. */
export const MAIN_THREAD_WORK = 200_000;

/** @type {Map<string, number>} */
const durations = new Map();

/**
 * A duration setting in milliseconds ("10s", 10000), read by the engine's own parser; NaN
 * when it is not one (the run will say why).
 * @param {unknown} v @param {number} fallback
 */
function ms(v, fallback) {
  if (v === undefined || v === null) return fallback;
  if (typeof v === 'number') return v;
  if (typeof v !== 'string' || v.length > 100) return NaN;
  const hit = durations.get(v);
  if (hit !== undefined) return hit;
  let out = NaN;
  try {
    const r = wasm.normalize(JSON.stringify({ job: { allowed_lateness: v } }));
    if (typeof r === 'string') out = Number((JSON.parse(r).job || {}).allowed_lateness || 0);
  } catch {
    out = NaN;
  }
  if (durations.size > 1000) durations.clear();
  durations.set(v, out);
  return out;
}

/**
 * Windows per row of a size and a slide (or step); 1 when they are not valid durations.
 * @param {number} size @param {number} slide
 */
function perRow(size, slide) {
  if (!Number.isFinite(size) || !Number.isFinite(slide) || slide <= 0 || size <= 0) return 1;
  return Math.max(1, Math.ceil(size / slide));
}

/**
 * The estimated work of running `sc` over `rows` input rows, and what makes it large.
 * @param {any} sc @param {number} rows
 * @returns {{ work: number, why: string }}
 */
export function estimateWork(sc, rows) {
  const job = (sc && sc.job) || {};
  const op = job.operator || 'window_join';
  let n = 1;
  let why = '';
  if (op === 'window_join' || op === 'window_aggregate') {
    const w = job.window || {};
    if (w.kind === 'sliding') {
      const size = ms(w.size, 10000);
      const slide = ms(w.slide, size);
      n = perRow(size, slide);
      why = `the sliding window puts every row in ${n.toLocaleString('en')} windows (size ${w.size ?? '10s'} / slide ${w.slide ?? w.size})`;
    }
  } else if (op === 'window_tvf_aggregate' || op === 'window_tvf_join') {
    const t = job.tvf || {};
    const size = ms(t.size, 10000);
    if (t.kind === 'hop') {
      n = perRow(size, ms(t.slide, size));
      why = `HOP puts every row in ${n.toLocaleString('en')} windows (size ${t.size ?? '10s'} / slide ${t.slide})`;
    } else if (t.kind === 'cumulate') {
      n = perRow(size, ms(t.step, size));
      why = `CUMULATE puts every row in up to ${n.toLocaleString('en')} windows (size ${t.size ?? '10s'} / step ${t.step})`;
    }
  }
  return { work: rows * n, why };
}
