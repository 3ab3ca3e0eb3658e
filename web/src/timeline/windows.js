// The windows layer: a band above the lanes with the job's windows (tumbling and sliding ones,
// and the SQL TVFs TUMBLE and HOP, on their grid, one track per overlapping window; CUMULATE's
// growing windows one track per step), the ones that fired filled and labelled, and the fired
// windows off the grid (sessions, SESSION) packed into tracks.

import { el, text, fx, mod } from './svg.js';

/** Lays out the windows (`c.windowItems`, `c.windowTracks`). @param {any} c */
export function layoutWindows(c) {
  const { ws, firedWindows, d0, d1 } = c;
  let windowTracks = 0;
  /** @type {{ start: number, end: number, track: number, fired: any, el?: Element, labelEl?: SVGElement }[]} */
  const windowItems = [];
  if (ws || firedWindows.length) {
    const kind = ws ? ws.kind : 'session';
    const fired = new Map();
    for (const w of firedWindows) fired.set(`${w.start},${w.end}`, w);
    if (ws && kind === 'cumulate' && ws.size > 0 && ws.step > 0 && ws.size / ws.step <= 32 && ((d1 - d0) / ws.size) * (ws.size / ws.step) < 1500) {
      // CUMULATE (Flink's CumulativeWindowAssigner): from each start on the grid of `size`,
      // the windows [start, start + step), [start, start + 2·step), … [start, start + size);
      // track k holds the windows k + 1 steps long.
      const n = Math.max(1, Math.floor(ws.size / ws.step));
      windowTracks = n;
      for (let s = d0 - mod(d0 - ws.offset, ws.size); s < d1; s += ws.size) {
        for (let k = 1; k <= n; k++) {
          const end = k === n ? s + ws.size : s + k * ws.step;
          const f = fired.get(`${s},${end}`);
          windowItems.push({ start: s, end, track: k - 1, fired: f || null });
          if (f) fired.delete(`${s},${end}`);
        }
      }
    } else if (ws && kind !== 'session' && kind !== 'cumulate' && ws.size > 0 && ws.slide > 0 && (d1 - d0) / ws.slide < 1500) {
      const k = Math.ceil(ws.size / ws.slide);
      windowTracks = k;
      let s = d0 - mod(d0 - ws.offset, ws.slide) - (k - 1) * ws.slide;
      for (; s < d1; s += ws.slide) {
        if (s + ws.size <= d0) continue;
        const track = mod(Math.round((s - ws.offset) / ws.slide), k);
        const f = fired.get(`${s},${s + ws.size}`);
        windowItems.push({ start: s, end: s + ws.size, track, fired: f || null });
        if (f) fired.delete(`${s},${s + ws.size}`);
      }
    }
    // Fired windows not on the grid (sessions, or a grid too dense to draw): pack in tracks.
    const rest = [...fired.values()].sort((a, b) => a.start - b.start || a.end - b.end);
    if (rest.length) {
      /** @type {number[]} */
      const ends = [];
      const base = windowTracks;
      for (const w of rest.slice(0, 3000)) {
        let t = ends.findIndex((e) => e <= w.start);
        if (t < 0) {
          if (ends.length < 8) {
            t = ends.length;
            ends.push(0);
          } else t = ends.indexOf(Math.min(...ends));
        }
        ends[t] = w.end;
        windowItems.push({ start: w.start, end: w.end, track: base + t, fired: w });
      }
      windowTracks = base + ends.length;
    }
  }
  c.windowItems = windowItems;
  c.windowTracks = windowTracks;
  c.trackH = 15;
  c.winTop = c.y + 4;
  if (windowTracks) c.bandTop = c.winTop;
}

/** Draws the window band and moves `c.y` below it. @param {any} c */
export function drawWindows(c) {
  const { windowTracks, windowItems, ws, winTop, trackH, left, right, x, gWin } = c;
  if (!windowTracks) return;
  const caption = ws ? ws.caption || `${ws.kind} windows` : 'windows';
  text(gWin, 8, winTop + 11, caption, 'jl-lane-label jl-win-caption');
  windowItems.forEach((/** @type {any} */ w, /** @type {number} */ i) => {
    const x0 = Math.max(left - 4, x(w.start));
    const x1 = Math.min(right + 4, x(w.end));
    if (x1 <= x0) return;
    const wy = winTop + w.track * trackH;
    const cls = w.fired ? 'jl-window jl-window-fired' : 'jl-window';
    const r = el('rect', { x: fx(x0 + 0.5), y: fx(wy), width: fx(Math.max(1, x1 - x0 - 1)), height: trackH - 3, rx: 2, class: cls }, gWin);
    r.dataset.window = String(i);
    r.dataset.start = String(w.start);
    r.dataset.end = String(w.end);
    w.el = r;
    if (w.fired && x1 - x0 > 34) w.labelEl = text(gWin, (x0 + x1) / 2, wy + 9.5, w.fired.label, 'jl-window-label', 'middle');
  });
  c.y = winTop + windowTracks * trackH + 6;
}

/** Windows that have not fired yet as of `step` are drawn as not fired. @param {any} c @param {number} step */
export function windowStatus(c, step) {
  for (const w of c.windowItems) {
    if (!w.el || !w.fired) continue;
    const done = !c.traced || w.fired.step <= step;
    w.el.setAttribute('class', done ? 'jl-window jl-window-fired' : 'jl-window jl-window-later');
    if (w.labelEl) w.labelEl.style.display = done ? '' : 'none';
  }
}
