// @ts-check
// The Late rows panel: rows the operator dropped (or sent aside) as late, with why.

import { LATE_HEADERS, lateCells } from '../format.js';
import { cappedTable, paging, setCount } from './table.js';
import { app, $, panel } from '../app/state.js';
import { stepRowClass, shownItems, soFar, jumpToRow } from './step-sync.js';
import { resultCount } from '../app/scenario.js';
import { registerPanel } from '../app/registry.js';

/** @param {HTMLElement} body @param {any} result */
export function renderLate(body, result) {
  cappedTable(body, LATE_HEADERS, shownItems(result.late), (/** @type {any} */ l, /** @type {number} */ i) => lateCells(l, i, result), {
    empty: 'no late rows',
    wordsColumn: LATE_HEADERS.length - 1,
    ...paging(result, 'late'),
    rowClass: stepRowClass(undefined),
    onRowClick: jumpToRow,
  });
}

/** @param {any} r */
function render(r) {
  renderLate($('late'), r);
  setCount(panel('late'), r.paged ? resultCount(r, 'late') : soFar(r.late, resultCount(r, 'late')));
}

registerPanel({
  name: 'late',
  timing: 'tables',
  render,
  onStep() {
    if (app.result) render(app.result);
  },
});
