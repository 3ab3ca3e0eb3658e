// @ts-check
// The "State left at the end" panel: buffered rows and pending timers per operator subtask.

import { h, fill, table } from '../dom.js';
import { setCount, rowLabel, keyLabel } from './table.js';
import { $, panel } from '../app/state.js';
import { registerPanel } from '../app/registry.js';

/** @param {HTMLElement} body @param {any} result @returns {number} entries and timers */
export function renderState(body, result) {
  const st = result.final_state || [];
  if (!st.length) {
    fill(body, h('p', { class: 'empty' }, 'all state and timers were cleared'));
    return 0;
  }
  const rows = [];
  for (const s of st) {
    for (const e of s.entries) rows.push([String(s.subtask), keyLabel(result, e.key), e.side || '', e.scope, e.rows.map((/** @type {number} */ id) => rowLabel(result, id)).join(', ')]);
    for (const t of s.timers) rows.push([String(s.subtask), keyLabel(result, t.key), '', `${t.processing ? 'processing-time' : 'event-time'} timer at ${t.timestamp}`, t.what]);
  }
  const total = (result.paged && result.paged.final_state) || rows.length;
  fill(body, h('div', { class: 'table-wrap' }, table(['subtask', 'key', 'side', 'what', 'rows'], rows)), total > rows.length ? h('p', { class: 'more' }, `showing the first ${rows.length} of ${total} entries and timers`) : null);
  return total;
}

registerPanel({
  name: 'state',
  timing: 'tables',
  render(r) {
    const n = renderState($('state'), r);
    panel('state').hidden = r.state_empty;
    setCount(panel('state'), n);
  },
});
