// The lanes layer: one lane per stream and assigner subtask, each row's mark placed at its time
// and stacked in levels so that marks (and their intervals) do not overlap; the lanes'
// backgrounds and labels, and the tumbling windows' boundaries across them.

import { el, text, fx, STREAM_CLASS } from './svg.js';
import { sideIndex } from '../timeline.js';

/** Mark radius and the height of a level in a lane (px). */
export const MARK_R = 4.5;
const LEVEL_H = 12;

/** Lays out the lanes and every row's mark (`c.lanes`, `c.rowX`, `c.rowY`); moves `c.y`. @param {any} c */
export function layoutLanes(c) {
  const { nStreams, pa, rows, times, density, iv, x } = c;
  /** @type {any[]} */
  const lanes = [];
  for (let s = 0; s < nStreams; s++) {
    for (let a = 0; a < pa; a++) lanes.push({ stream: s, assigner: a, rows: [] });
  }
  const laneOf = (/** @type {any} */ r) => sideIndex(r.side) * pa + Math.min(pa - 1, r.assigner || 0);
  for (let i = 0; i < rows.length; i++) {
    const L = lanes[laneOf(rows[i])];
    if (L) L.rows.push(i);
  }
  const rowY = new Float64Array(rows.length);
  const rowX = new Float64Array(rows.length);
  let y = c.y;
  for (const L of lanes) {
    L.rows.sort((/** @type {number} */ p, /** @type {number} */ q) => times[p] - times[q] || p - q);
    let levels = 1;
    if (!density) {
      const maxLevels = L.rows.length <= 200 ? 10 : 6;
      /** @type {number[]} */
      const ends = [];
      const lv = new Int32Array(L.rows.length);
      L.rows.forEach((/** @type {number} */ id, /** @type {number} */ k) => {
        const t = times[id];
        const px = x(t);
        rowX[id] = px;
        let a = px - MARK_R - 1;
        let b = px + MARK_R + 1;
        const side = iv && iv.sides[sideIndex(rows[id].side)];
        if (side && L.rows.length <= 200) {
          a = Math.min(a, x(t + side[0]) - 2);
          b = Math.max(b, x(t + side[1]) + 2);
        }
        let level = -1;
        for (let j = 0; j < ends.length; j++) {
          if (ends[j] <= a) {
            level = j;
            break;
          }
        }
        if (level < 0) {
          if (ends.length < maxLevels) {
            level = ends.length;
            ends.push(0);
          } else {
            level = 0;
            for (let j = 1; j < ends.length; j++) if (ends[j] < ends[level]) level = j;
          }
        }
        ends[level] = b;
        lv[k] = level;
      });
      levels = Math.max(1, ends.length);
      L.levels = lv;
    }
    L.top = y;
    L.h = density ? 44 : Math.max(30, 12 + levels * LEVEL_H);
    L.levelCount = levels;
    if (!density) {
      L.rows.forEach((/** @type {number} */ id, /** @type {number} */ k) => {
        rowY[id] = L.top + L.h - 10 - L.levels[k] * LEVEL_H;
      });
    }
    y += L.h + (L.assigner === pa - 1 ? 8 : 2);
  }
  c.lanes = lanes;
  c.rowX = rowX;
  c.rowY = rowY;
  c.lanesTop = lanes.length ? lanes[0].top : y;
  c.lanesBottom = y - 4;
  c.y = y;
}

/** Draws the lanes' backgrounds and labels, and the tumbling windows' boundaries. @param {any} c */
export function drawLanes(c) {
  const { lanes, left, plotW, streams, pa, gBack, gLanes, ws, windowItems, d0, d1, x, winTop, lanesBottom } = c;
  for (const L of lanes) {
    const cls = `jl-lane ${STREAM_CLASS[L.stream] || ''}`;
    el('rect', { x: left - 8, y: L.top, width: plotW + 16, height: L.h, class: cls, rx: 3 }, gBack);
    const full = streams[L.stream] ? streams[L.stream].name : '';
    // Long names are cut to the label column; the whole name is in the label's <title>.
    const name = full.length > 17 ? `${full.slice(0, 16)}…` : full;
    if (L.assigner === 0 || pa > 1) {
      const t = text(gLanes, 8, L.top + (pa > 1 ? L.h / 2 - 1 : L.h / 2 + 4), pa > 1 && L.assigner > 0 ? '' : name, `jl-lane-label ${STREAM_CLASS[L.stream] || ''}`);
      if (name !== full && L.assigner === 0) el('title', null, t).textContent = full;
      if (pa > 1) text(gLanes, 8, L.top + L.h / 2 + 11, `assigner ${L.assigner}`, 'jl-lane-sub');
    }
  }
  // Tumbling window boundaries across the lanes.
  if (ws && ws.kind === 'tumbling' && windowItems.length && windowItems.length < 400) {
    for (const w of windowItems) {
      if (w.start > d0 && w.start < d1) el('line', { x1: fx(x(w.start)), x2: fx(x(w.start)), y1: winTop, y2: lanesBottom, class: 'jl-boundary' }, gBack);
    }
  }
}
