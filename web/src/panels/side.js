// @ts-check
// The Side outputs panel: one table per side-output tag.

import { h, fill } from '../dom.js';
import { SIDE_HEADERS, sideCells } from '../format.js';
import { cappedTable, paging, setCount } from './table.js';
import { app, $, panel } from '../app/state.js';
import { stepRowClass, shownItems, jumpToRow } from './step-sync.js';
import { registerPanel } from '../app/registry.js';

/** @param {HTMLElement} body @param {any} result @returns {number} the rows in all side outputs */
export function renderSide(body, result) {
  const tags = Object.keys(result.side_outputs || {});
  if (!tags.length) {
    fill(body, h('p', { class: 'empty' }, 'no side outputs'));
    return 0;
  }
  fill(body);
  let total = 0;
  for (const tag of tags) {
    const rows = result.side_outputs[tag];
    const pg = paging(result, undefined, tag);
    const n = pg.total ?? rows.length;
    total += n;
    const box = h('div', { class: 'side-table' });
    body.append(h('h3', { class: 'tag', dataset: { tag } }, `"${tag}" `, h('span', { class: 'count' }, String(n))), box);
    cappedTable(box, SIDE_HEADERS, shownItems(rows), (/** @type {any} */ s, /** @type {number} */ i) => sideCells(s, i, result), { empty: 'empty', ...pg, rowClass: stepRowClass(undefined), onRowClick: jumpToRow });
  }
  return total;
}

/** @param {any} r */
function render(r) {
  const tags = Object.keys(r.side_outputs || {});
  panel('side').hidden = !tags.length && !['split', 'interval_join', 'window_aggregate'].includes(r.operator);
  setCount(panel('side'), renderSide($('side'), r));
}

registerPanel({
  name: 'side',
  timing: 'tables',
  render,
  onStep() {
    if (app.result) render(app.result);
  },
});
