// The timeline's time scale: the event-time domain the picture covers (the rows, the windows
// around them, each row's interval, the watermarks near them), its mapping to x (d3-scale) and
// the axis ticks (d3-scale's nice linear ticks; UTC calendar ticks from d3-time for dates).

import { scaleLinear, scaleUtc } from 'd3-scale';
import { mod } from './svg.js';
import { wmValue } from '../timeline.js';

/**
 * The domain [d0, d1] (padded by 3 %) and the first row's time.
 * @param {{ times: Float64Array, ws: any, iv: any, firedWindows: any[], result: any, processingAxis?: boolean }} c
 */
export function timeDomain({ times, ws, iv, firedWindows, result, processingAxis }) {
  let d0 = Infinity;
  let d1 = -Infinity;
  for (let i = 0; i < times.length; i++) {
    const t = times[i];
    if (Number.isFinite(t)) {
      if (t < d0) d0 = t;
      if (t > d1) d1 = t;
    }
  }
  if (Number.isFinite(d0) && ws && ws.kind !== 'session' && ws.size > 0 && ws.slide > 0) {
    // Extend to the whole windows of the first and last rows.
    const firstStart = d0 - mod(d0 - ws.offset, ws.slide);
    const lastEnd = d1 - mod(d1 - ws.offset, ws.slide) + ws.slide;
    if ((lastEnd - firstStart) / ws.slide < 2000) {
      d0 = firstStart;
      d1 = Math.max(d1, lastEnd);
    }
  }
  for (const w of firedWindows) {
    d0 = Math.min(d0, w.start);
    d1 = Math.max(d1, w.end);
  }
  if (iv && Number.isFinite(d0)) {
    const lo = Math.min(iv.sides[0][0], iv.sides[1][0], 0);
    const hi = Math.max(iv.sides[0][1], iv.sides[1][1], 0);
    const span = Math.max(10, d1 - d0);
    // Widen by the interval, but never let a huge bound squash the rows to a dot.
    d0 += Math.max(lo, -4 * span);
    d1 += Math.min(hi, 4 * span);
  }
  // Watermarks are event time: not on a processing-time axis (the lookup join's).
  const wms = processingAxis ? [] : [...(result.watermarks || []).map((/** @type {any} */ x) => x.watermark), ...(result.assigner_watermarks || []).flat()];
  for (const w of wms) {
    const v = wmValue(w);
    if (Number.isFinite(v) && Number.isFinite(d0) && v > d0 - (d1 - d0) && v < d1 + (d1 - d0)) {
      d0 = Math.min(d0, v);
      d1 = Math.max(d1, v);
    }
  }
  if (!Number.isFinite(d0)) {
    d0 = 0;
    d1 = 10;
  }
  if (d1 - d0 < 1) {
    d0 -= 5;
    d1 += 5;
  }
  let firstT = d0;
  for (let i = 0; i < times.length; i++) if (Number.isFinite(times[i]) && (firstT === d0 || times[i] < firstT)) firstT = times[i];
  const padT = (d1 - d0) * 0.03;
  return { d0: d0 - padT, d1: d1 + padT, firstT, padT };
}

/**
 * The x of an event time, and the x of a time clamped to just outside the plot (±∞ at its edges).
 * @param {number} d0 @param {number} d1 @param {number} left @param {number} right
 */
export function timeScale(d0, d1, left, right) {
  const s = scaleLinear().domain([d0, d1]).range([left, right]);
  const x = (/** @type {number} */ t) => s(t);
  const xc = (/** @type {number} */ t) => (t === Infinity ? right : t === -Infinity ? left : Math.max(left - 6, Math.min(right + 6, s(t))));
  return { x, xc };
}

/**
 * Axis ticks over [d0, d1], about `maxTicks` of them, on whole milliseconds: nice numbers
 * (1, 2, 5 × 10^k ms), or for dates the UTC calendar's seconds, minutes, hours and days.
 * `step` is the distance between ticks (the label format follows it).
 * @param {number} d0 @param {number} d1 @param {number} maxTicks @param {boolean} dates
 * @returns {{ ticks: number[], step: number }}
 */
export function axisTicks(d0, d1, maxTicks, dates) {
  let ticks;
  if (dates) ticks = scaleUtc().domain([new Date(d0), new Date(d1)]).ticks(maxTicks).map((d) => d.getTime());
  // Never finer than a millisecond: event time is whole milliseconds.
  else ticks = scaleLinear().domain([d0, d1]).ticks(Math.max(1, Math.min(maxTicks, Math.floor(d1 - d0)))).filter(Number.isInteger);
  ticks = ticks.slice(0, 200);
  const step = ticks.length > 1 ? ticks[1] - ticks[0] : Math.max(1, d1 - d0);
  return { ticks, step };
}
