// The intervals layer: each row's matching range (interval joins) as a bracket in its lane, and
// the selected row's range across the partner stream with lines to the rows it joined.

import { el, fx, clear, STREAM_CLASS } from './svg.js';
import { sideIndex } from '../timeline.js';
import { versionProbe } from './versions.js';

/** The bracket of row `id` over `side` = [lower, upper, …] (ms from its time). @param {any} c @param {number} id @param {number[]} side */
export function intervalPath(c, id, side) {
  const t = c.times[id];
  const a = c.xc(t + side[0]);
  const b = c.xc(t + side[1]);
  const yy = c.rowY[id];
  return `M${fx(a)} ${fx(yy)}H${fx(b)}M${fx(a)} ${fx(yy - 3.5)}v7M${fx(b)} ${fx(yy - 3.5)}v7`;
}

/** One path per lane (a thousand rows cost one path string, not a thousand elements). @param {any} c */
export function drawIntervals(c) {
  const { iv, density, lanes, rows, gIv } = c;
  if (!iv || density) return;
  for (const L of lanes) {
    const side = iv.sides[L.stream];
    if (!side || !L.rows.length) continue;
    let d = '';
    for (const id of L.rows) if (rows[id].timestamp !== null && rows[id].timestamp !== undefined) d += intervalPath(c, id, side);
    el('path', { d, class: `jl-interval ${STREAM_CLASS[L.stream] || ''}` }, gIv);
  }
}

/** The selected row's partner range and the lines to its partners. @param {any} c */
export function drawSelection(c) {
  const { gSel, density, selected, rows, iv, lanes, xc, facts, result, rowX, rowY } = c;
  clear(gSel);
  if (density || selected < 0 || !rows[selected]) return;
  const r = rows[selected];
  const si = sideIndex(r.side);
  if (iv && r.timestamp !== null && r.timestamp !== undefined) {
    const side = iv.sides[si];
    // The range where partners must lie, across the partner stream's lanes.
    const other = 1 - si;
    const a = xc(r.timestamp + side[0]);
    const b = xc(r.timestamp + side[1]);
    for (const L of lanes) {
      if (L.stream !== other) continue;
      el('rect', { x: fx(Math.min(a, b)), y: L.top, width: fx(Math.max(1, Math.abs(b - a))), height: L.h, class: 'jl-range' }, gSel);
    }
    el('path', { d: intervalPath(c, selected, side), class: 'jl-interval jl-interval-selected' }, gSel);
  }
  versionProbe(c, gSel, selected);
  // A SQL window join row's windows (the engine's `tvf_windows`, as the TVF assigns them).
  const tw = result.tvf_windows && result.tvf_windows[selected];
  if (tw && tw.length && c.windowItems) {
    const mine = new Set(tw.map((/** @type {number[]} */ w) => `${w[0]},${w[1]}`));
    for (const w of c.windowItems) {
      if (!mine.has(`${w.start},${w.end}`)) continue;
      const x0 = Math.max(c.left - 4, c.x(w.start));
      const x1 = Math.min(c.right + 4, c.x(w.end));
      if (x1 > x0) el('rect', { x: fx(x0 + 0.5), y: fx(c.winTop + w.track * c.trackH), width: fx(Math.max(1, x1 - x0 - 1)), height: c.trackH - 3, rx: 2, class: 'jl-window-selected' }, gSel);
    }
  }
  const f = facts[selected];
  const outs = result.outputs || [];
  for (const k of f.outputs) {
    const o = outs[k];
    const other = o.left && o.left.id === selected ? o.right : o.left;
    if (!other || !rows[other.id]) continue;
    const x1 = rowX[selected];
    const y1 = rowY[selected];
    const x2 = rowX[other.id];
    const y2 = rowY[other.id];
    const my = (y1 + y2) / 2;
    el('path', { d: `M${fx(x1)} ${fx(y1)}C${fx(x1)} ${fx(my)} ${fx(x2)} ${fx(my)} ${fx(x2)} ${fx(y2)}`, class: 'jl-link' }, gSel);
  }
}
