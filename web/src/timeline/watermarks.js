// The watermarks layer: at the current step, each operator subtask's watermark as a line with
// the event time it has passed shaded (subtasks at the same watermark share a line and a
// label), and each assigner subtask's forwarded watermark as a tick in its lane (idle ones
// marked).

import { el, text, fx, clear, STREAM_CLASS } from './svg.js';
import { wmValue } from '../timeline.js';

/** Draws the watermarks as of `step` (the final ones without a trace). @param {any} c @param {number} step */
export function drawWatermarks(c, step) {
  const { gWm, traced, result, tracker, lanes, fmt, left, right, xc } = c;
  clear(gWm);
  // A lookup join's picture is on processing time (LookupJoinRunner never reads a watermark):
  // event-time watermarks have no place on it.
  if (c.processingAxis) return;
  if (!traced) {
    operatorLines(c, (result.watermarks || []).map((/** @type {any} */ w) => w.watermark));
    return;
  }
  const s = tracker.at(step);
  operatorLines(c, s.operator);
  // Per assigner lane: a tick at its forwarded watermark.
  for (const L of lanes) {
    const w = wmValue(s.assigner[L.stream] ? s.assigner[L.stream][L.assigner] : '-inf');
    const idle = s.idle[L.stream] && s.idle[L.stream][L.assigner];
    const label = `${idle ? 'idle · ' : ''}wm ${fmt.short(w)}`;
    if (w === -Infinity) {
      text(gWm, left - 4, L.top + 10, label, 'jl-awm-label jl-awm-min');
      continue;
    }
    const px = xc(w);
    el('line', { x1: fx(px), x2: fx(px), y1: L.top + 1, y2: L.top + L.h - 1, class: `jl-awm ${STREAM_CLASS[L.stream] || ''}${idle ? ' jl-idle' : ''}` }, gWm);
    const tx = px > right - 60 ? px - 4 : px + 4;
    text(gWm, tx, L.top + 10, label, 'jl-awm-label', px > right - 60 ? 'end' : 'start');
  }
}

/** @param {number} j */
const subtaskClass = (j) => `jl-wm jl-wm${j % 8}`;

/** The operator subtasks' watermark lines, shading and labels. @param {any} c @param {any[]} ops */
function operatorLines(c, ops) {
  const { gWm, windowTracks, winTop, lanesTop, lanesBottom, left, right, xc, po, fmt, svg, width } = c;
  // Shade the event time each subtask's watermark has passed; lines with labels merged for
  // subtasks at the same watermark.
  /** @type {Map<string, { v: number, subtasks: number[] }>} */
  const groups = new Map();
  ops.forEach((w, j) => {
    const v = wmValue(w);
    const key = String(v);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { v, subtasks: [] }));
    g.subtasks.push(j);
  });
  const top = c.bandTop !== undefined ? c.bandTop : windowTracks ? winTop : lanesTop;
  const sorted = [...groups.values()].sort((a, b) => a.v - b.v);
  for (const g of sorted) {
    const px = xc(g.v);
    if (g.v !== -Infinity) el('rect', { x: left - 8, y: top, width: fx(Math.max(0, px - left + 8)), height: lanesBottom - top, class: 'jl-wm-shade' }, gWm);
  }
  for (const g of sorted) {
    const px = xc(g.v);
    const who = po > 1 ? `${g.subtasks.length === po ? 'all subtasks' : `subtask${g.subtasks.length > 1 ? 's' : ''} ${g.subtasks.join(',')}`}: ` : '';
    const label = `WM ${who}${fmt.short(g.v)}`;
    const cls = subtaskClass(g.subtasks[0]);
    if (g.v !== -Infinity) el('line', { x1: fx(px), x2: fx(px), y1: top - 2, y2: lanesBottom, class: `${cls} jl-wm-line` }, gWm);
    const anchor = px > right - 80 ? 'end' : px < left + 80 ? 'start' : 'middle';
    const t = text(gWm, g.v === -Infinity ? left : px, lanesBottom + 13, label, `${cls} jl-wm-label`, g.v === -Infinity ? 'start' : anchor);
    t.dataset.subtasks = g.subtasks.join(',');
  }
  // Stack labels that would overlap.
  let lastEnd = -Infinity;
  let row = 0;
  for (const lb of gWm.querySelectorAll('.jl-wm-label')) {
    const xx = Number(lb.getAttribute('x'));
    const approxW = (lb.textContent || '').length * 6.2;
    const anchor = lb.getAttribute('text-anchor') || 'start';
    const start = anchor === 'middle' ? xx - approxW / 2 : anchor === 'end' ? xx - approxW : xx;
    if (start < lastEnd + 6) row++;
    else row = 0;
    lb.setAttribute('y', fx(lanesBottom + 13 + row * 12));
    lastEnd = start + approxW;
  }
  const need = lanesBottom + 24 + row * 12;
  if (need > Number(svg.getAttribute('height'))) {
    svg.setAttribute('height', need);
    svg.setAttribute('viewBox', `0 0 ${width} ${need}`);
  }
}
