// Pointer interaction: a tooltip for the mark, window or density bin under the pointer, and a
// click that selects a row.

import { OUTCOME_LABEL, statusAt, describeRow, sideIndex, streamName, windowTip } from '../timeline.js';
import { versionTip } from './versions.js';

/**
 * Wires the tooltip and the click on the picture; returns the listeners' remover.
 * @param {any} c @param {{ rowAt: (px: number, py: number) => number }} marks
 * @param {(id: number) => void} onClickRow
 */
export function wirePointer(c, marks, onClickRow) {
  const { container, svg, width, facts, lastStep, traced, result, rows, iv, fmt, windowItems, lanes, left, plotW, d0, d1 } = c;
  const tip = document.createElement('div');
  tip.className = 'jl-tooltip';
  tip.hidden = true;
  container.appendChild(tip);
  const showTip = (/** @type {string[]} */ lines, /** @type {MouseEvent} */ ev) => {
    while (tip.firstChild) tip.removeChild(tip.firstChild);
    lines.forEach((l, i) => {
      const d = document.createElement('div');
      if (i === 0) d.className = 'jl-tip-head';
      d.textContent = l;
      tip.appendChild(d);
    });
    tip.hidden = false;
    const host = container.getBoundingClientRect();
    let tx = ev.clientX - host.left + 14;
    const ty = ev.clientY - host.top + 14;
    const w = tip.offsetWidth || 280;
    if (tx + w > host.width) tx = Math.max(4, ev.clientX - host.left - w - 10);
    tip.style.left = `${tx}px`;
    tip.style.top = `${ty}px`;
  };
  const rowTip = (/** @type {number} */ id) => {
    const f = facts[id];
    const st = statusAt(f, c.currentStep, lastStep, traced);
    const lines = describeRow(result, id, facts, fmt);
    if (st !== f.outcome) lines.splice(1, 0, `as of step ${c.currentStep + 1}: ${OUTCOME_LABEL[st]}`);
    const side = iv && iv.sides[sideIndex(rows[id].side)];
    if (side && rows[id].timestamp !== null && rows[id].timestamp !== undefined) {
      const t = rows[id].timestamp;
      const other = streamName(result, 1 - sideIndex(rows[id].side));
      lines.push(`matches ${other} rows with ts in ${side[2] ? '(' : '['}${fmt.long(t + side[0])}, ${fmt.long(t + side[1])}${side[3] ? ')' : ']'}`);
    }
    return lines;
  };
  const svgPoint = (/** @type {MouseEvent} */ ev) => {
    const box = svg.getBoundingClientRect();
    const scale = box.width ? width / box.width : 1;
    return [(ev.clientX - box.left) * scale, (ev.clientY - box.top) * scale];
  };
  let hoverRow = -1;
  const onOver = (/** @type {MouseEvent} */ ev) => {
    const [px, py] = svgPoint(ev);
    const id = marks.rowAt(px, py);
    if (id !== hoverRow) {
      hoverRow = id;
      svg.classList.toggle('jl-over-mark', id >= 0);
      if (c.onHoverRow) c.onHoverRow(id);
    }
    if (id >= 0) {
      showTip(rowTip(id), ev);
      return;
    }
    const t = /** @type {any} */ (ev.target);
    const target = t && t.closest ? t.closest('[data-window],[data-version],[data-lane]') : null;
    if (!target || !svg.contains(target)) {
      tip.hidden = true;
      return;
    }
    if (target.dataset.version !== undefined) {
      showTip(versionTip(c, Number(target.dataset.version)), ev);
    } else if (target.dataset.window !== undefined) {
      const w = windowItems[Number(target.dataset.window)];
      if (w) showTip(windowTip(w, fmt, result), ev);
    } else if (target.dataset.lane !== undefined) {
      const L = lanes[Number(target.dataset.lane)];
      if (!L || !L.counts) return;
      const b = Math.max(0, Math.floor((px - left) / 3));
      const t0 = d0 + ((b * 3) / plotW) * (d1 - d0);
      const t1 = d0 + (((b + 1) * 3) / plotW) * (d1 - d0);
      /** @type {string[]} */
      const parts = [];
      let total = 0;
      L.order.forEach((/** @type {string} */ o, /** @type {number} */ k) => {
        const n = L.counts[k][b] || 0;
        if (n) parts.push(`${OUTCOME_LABEL[o]}: ${n}`);
        total += n;
      });
      showTip([`${total} rows with ts in [${fmt.long(Math.round(t0))}, ${fmt.long(Math.round(t1))})`, ...parts], ev);
    }
  };
  const onOut = (/** @type {MouseEvent} */ ev) => {
    const to = /** @type {Node | null} */ (ev.relatedTarget);
    if (!to || !svg.contains(to)) {
      tip.hidden = true;
      if (hoverRow >= 0 && c.onHoverRow) c.onHoverRow(-1);
      hoverRow = -1;
      svg.classList.remove('jl-over-mark');
    }
  };
  const onClick = (/** @type {MouseEvent} */ ev) => {
    const [px, py] = svgPoint(ev);
    const id = marks.rowAt(px, py);
    if (id >= 0) onClickRow(id);
  };
  // The keyboard: the picture is one tab stop; ← → (Home, End) move a focus ring from row to
  // row in time order, the row's description is read out (a live region), Enter or Space
  // selects it as a click would.
  const order = rows.map((/** @type {any} */ _, /** @type {number} */ i) => i).sort((/** @type {number} */ a, /** @type {number} */ b) => c.times[a] - c.times[b] || a - b);
  const live = document.createElement('div');
  live.className = 'jl-sr-only';
  live.setAttribute('aria-live', 'polite');
  container.appendChild(live);
  svg.setAttribute('tabindex', '0');
  svg.setAttribute('aria-label', `${svg.querySelector('title')?.textContent || 'Timeline'}. Arrow keys move from row to row, Enter selects the row.`);
  let focusAt = -1;
  const focusRow = (/** @type {number} */ k) => {
    if (!order.length) return;
    focusAt = Math.max(0, Math.min(order.length - 1, k));
    const id = order[focusAt];
    c.focused = id;
    marks.drawRings();
    live.textContent = rowTip(id).join('. ');
  };
  const onKey = (/** @type {KeyboardEvent} */ ev) => {
    const k = ev.key;
    if (k === 'ArrowRight' || k === 'ArrowDown') focusRow(focusAt + 1);
    else if (k === 'ArrowLeft' || k === 'ArrowUp') focusRow(focusAt < 0 ? 0 : focusAt - 1);
    else if (k === 'Home') focusRow(0);
    else if (k === 'End') focusRow(order.length - 1);
    else if ((k === 'Enter' || k === ' ') && focusAt >= 0) onClickRow(order[focusAt]);
    else return;
    ev.preventDefault();
    ev.stopPropagation();
  };
  const onBlur = () => {
    c.focused = -1;
    marks.drawRings();
  };
  svg.addEventListener('mousemove', onOver);
  svg.addEventListener('mouseout', onOut);
  svg.addEventListener('click', onClick);
  svg.addEventListener('keydown', onKey);
  svg.addEventListener('blur', onBlur);
  return () => {
    svg.removeEventListener('mousemove', onOver);
    svg.removeEventListener('mouseout', onOut);
    svg.removeEventListener('click', onClick);
    svg.removeEventListener('keydown', onKey);
    svg.removeEventListener('blur', onBlur);
  };
}
