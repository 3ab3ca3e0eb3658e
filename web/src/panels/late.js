// @ts-check
// The Late rows panel: rows the operator dropped (or sent aside) as late, with why.

import { LATE_HEADERS, lateCells } from '../format.js';
import { cappedTable, paging, setCount } from './table.js';
import { $, panel } from '../app/state.js';
import { resultCount } from '../app/scenario.js';
import { registerPanel } from '../app/registry.js';

/** @param {HTMLElement} body @param {any} result */
export function renderLate(body, result) {
  cappedTable(body, LATE_HEADERS, result.late, (/** @type {any} */ l, /** @type {number} */ i) => lateCells(l, i, result), { empty: 'no late rows', wordsColumn: LATE_HEADERS.length - 1, ...paging(result, 'late') });
}

registerPanel({
  name: 'late',
  timing: 'tables',
  render(r) {
    renderLate($('late'), r);
    setCount(panel('late'), resultCount(r, 'late'));
  },
});
