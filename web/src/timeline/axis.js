// The axis layer: ticks and their labels across the top, grid lines down through the lanes,
// and what the axis measures (event or arrival time, the unit or the day).

import { el, text, fx } from './svg.js';
import { axisTicks } from './scale.js';

/** @param {any} c the timeline's drawing context (timeline.js renderTimeline) */
export function drawAxis(c) {
  const { fmt, plotW, d0, d1, axisTop, axisH, left, right, x, gAxis, gBack, lanesBottom, eventTimed, firstT } = c;
  const maxTicks = Math.max(2, Math.floor(plotW / (fmt.dates ? 86 : 70)));
  const { ticks, step } = axisTicks(d0, d1, maxTicks, fmt.dates);
  const ay = axisTop + axisH - 6;
  el('line', { x1: left - 8, x2: right + 8, y1: ay, y2: ay, class: 'jl-axis-line' }, gAxis);
  for (const t of ticks) {
    const px = x(t);
    el('line', { x1: fx(px), x2: fx(px), y1: ay - 4, y2: ay, class: 'jl-tick' }, gAxis);
    el('line', { x1: fx(px), x2: fx(px), y1: ay, y2: lanesBottom, class: 'jl-grid' }, gBack);
    text(gAxis, px, ay - 7, fmt.tick(t, step), 'jl-tick-label', 'middle');
  }
  const what = eventTimed ? 'event time' : 'arrival time';
  const unit = fmt.dates ? `UTC, ${fmt.day(firstT)}` : step < 1000 ? 'ms' : '';
  text(gAxis, 8, unit ? ay - 16 : ay - 7, what, 'jl-axis-title');
  if (unit) text(gAxis, 8, ay - 5, unit, 'jl-axis-title');
}
