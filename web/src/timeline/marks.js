// The marks layer: every input row a mark, its shape and colour saying what happened to it as
// of the current step (one path per status and stream: a thousand rows cost a few path
// strings, not a thousand elements), rings around the current step's row and the selected row;
// above the density threshold, a stacked histogram per lane instead. Hovering and clicking
// find the row under the pointer by geometry (`rowAt`).

import { el, fx, clear, STREAM_CLASS } from './svg.js';
import { MARK_R } from './lanes.js';
import { windowStatus } from './windows.js';
import { sideIndex, statusAt, STATUS_INDEX } from '../timeline.js';

/** The order marks are drawn in (later ones on top). */
const DRAW_ORDER = ['future', 'none', 'dropped', 'buffered', 'pending', 'window', 'side', 'main', 'padded', 'joined', 'late'];
/** The density histogram's stacking order. */
const DENSITY_ORDER = ['joined', 'main', 'window', 'side', 'padded', 'none', 'dropped', 'buffered', 'pending', 'late', 'future'];

/** Builds the marks layer into `c.gMarks`; returns what the handle and the pointer need. @param {any} c */
export function createMarks(c) {
  const { rows, facts, rowX, rowY, lanes, density, traced, trace, lastStep, left, plotW, x, times, gMarks } = c;
  const densityLayer = el('g', { class: 'jl-density' }, gMarks);
  const dotLayer = el('g', { class: 'jl-dots' }, gMarks);
  const retract = new Uint8Array(rows.length);
  const rowStream = new Uint8Array(rows.length);
  for (let i = 0; i < rows.length; i++) rowStream[i] = sideIndex(rows[i].side);
  for (let i = 0; i < rows.length; i++) retract[i] = rows[i].kind === '-D' || rows[i].kind === '-U' ? 1 : 0;
  c.retract = retract;
  /** @type {string[]} */
  const dotStr = new Array(rows.length);
  const dotPath = (/** @type {number} */ id) => {
    const px = rowX[id];
    const py = rowY[id];
    if (facts[id].outcome === 'late') return `M${fx(px - 4)} ${fx(py - 4)}l8 8m0 -8l-8 8`;
    return `M${fx(px - MARK_R)} ${fx(py)}a${MARK_R} ${MARK_R} 0 1 0 ${2 * MARK_R} 0a${MARK_R} ${MARK_R} 0 1 0 ${-2 * MARK_R} 0`;
  };

  /** The row under SVG point (px, py), or -1. @param {number} px @param {number} py */
  const rowAt = (px, py) => {
    if (density) return -1;
    let best = -1;
    let bestD = (MARK_R + 3) * (MARK_R + 3);
    for (const L of lanes) {
      if (py < L.top - 4 || py > L.top + L.h + 4) continue;
      const ids = L.rows;
      // Rows are sorted by time, so by x: binary search the first with x >= px - r.
      let lo = 0;
      let hi = ids.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (rowX[ids[mid]] < px - MARK_R - 3) lo = mid + 1;
        else hi = mid;
      }
      for (let k = lo; k < ids.length && rowX[ids[k]] <= px + MARK_R + 3; k++) {
        const id = ids[k];
        const dx = rowX[id] - px;
        const dy = rowY[id] - py;
        const d = dx * dx + dy * dy;
        if (d <= bestD) {
          bestD = d;
          best = id;
        }
      }
    }
    return best;
  };

  // Rings around the current step's row and the selected row.
  const gRing = el('g', { class: 'jl-rings' }, gMarks);
  const drawRings = () => {
    clear(gRing);
    for (const [id, cls] of /** @type {[number, string][]} */ ([
      [c.curRow, 'jl-ring jl-ring-current'],
      [c.selected, 'jl-ring jl-ring-selected'],
      [c.focused ?? -1, 'jl-ring jl-ring-focus'],
      [c.hovered ?? -1, 'jl-ring jl-ring-hover'],
    ])) {
      if (id < 0 || !rows[id] || density) continue;
      el('circle', { cx: fx(rowX[id]), cy: fx(rowY[id]), r: MARK_R + 3, class: cls }, gRing);
    }
  };

  const drawDensity = (/** @type {number} */ step) => {
    clear(densityLayer);
    const binW = 3;
    const nb = Math.ceil(plotW / binW) + 1;
    const order = DENSITY_ORDER;
    const oi = new Map(order.map((o, i) => [o, i]));
    for (const L of lanes) {
      const counts = order.map(() => new Uint32Array(nb));
      for (const id of L.rows) {
        const b = Math.max(0, Math.min(nb - 1, Math.floor((x(times[id]) - left) / binW)));
        counts[/** @type {number} */ (oi.get(statusAt(facts[id], step, lastStep, traced)))][b]++;
      }
      let max = 1;
      for (let b = 0; b < nb; b++) {
        const s = sumAt(counts, b);
        if (s > max) max = s;
      }
      const hh = L.h - 6;
      const base = L.top + L.h - 3;
      const stack = new Float64Array(nb);
      order.forEach((o, k) => {
        let d = '';
        for (let b = 0; b < nb; b++) {
          const n = counts[k][b];
          if (!n) continue;
          const h = Math.max(1, (Math.sqrt(n) / Math.sqrt(max)) * hh * (n / Math.max(1, sumAt(counts, b))));
          d += `M${fx(left + b * binW)} ${fx(base - stack[b])}h${binW - 0.5}v${fx(-h)}h${-(binW - 0.5)}z`;
          stack[b] += h;
        }
        if (d) el('path', { d, class: `jl-density-${o}` }, densityLayer);
      });
      // An invisible strip per lane for the tooltip.
      const hit = el('rect', { x: left, y: L.top, width: plotW, height: L.h, class: 'jl-hit-strip' }, densityLayer);
      hit.dataset.lane = String(lanes.indexOf(L));
      L.counts = counts;
      L.order = order;
    }
  };

  /** Every mark's status as of `step` (and the windows not fired yet). @param {number} step */
  const applyStatus = (step) => {
    windowStatus(c, step);
    if (density) {
      drawDensity(step);
      return;
    }
    const cur = traced && step <= lastStep ? trace[step] && trace[step].cause : null;
    c.curRow = cur && cur.type === 'row' ? cur.row : -1;
    const groups = new Map();
    for (let id = 0; id < rows.length; id++) {
      const st = statusAt(facts[id], step, lastStep, traced);
      const stream = rowStream[id];
      const late = facts[id].outcome === 'late' ? 1 : 0;
      const key = ((STATUS_INDEX[st] ?? 15) << 3) | (stream << 2) | (late << 1) | retract[id];
      let g = groups.get(key);
      if (!g) {
        g = { st, stream, shape: late ? 'x' : 'dot', retract: retract[id], d: [], ids: [] };
        groups.set(key, g);
      }
      g.d.push(dotStr[id] || (dotStr[id] = dotPath(id)));
      g.ids.push(id);
    }
    clear(dotLayer);
    const sorted = [...groups.values()].sort((p, q) => DRAW_ORDER.indexOf(p.st) - DRAW_ORDER.indexOf(q.st) || p.stream - q.stream);
    for (const g of sorted) {
      const cls = `jl-mark jl-o-${g.st} ${STREAM_CLASS[g.stream] || ''} jl-shape-${g.shape}${g.retract ? ' jl-retract' : ''}`;
      const p = el('path', { d: g.d.join(''), class: cls }, dotLayer);
      p.setAttribute('data-count', g.ids.length);
      p.setAttribute('data-rows', g.ids.join(' '));
    }
    drawRings();
  };

  return { rowAt, drawRings, applyStatus };
}

/** @param {Uint32Array[]} counts @param {number} b */
function sumAt(counts, b) {
  let s = 0;
  for (const n of counts) s += n[b];
  return s;
}
