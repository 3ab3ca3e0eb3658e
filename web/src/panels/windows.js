// @ts-check
// The Window results panel: what each window fired (window aggregation, window joins).

import { windowHeaders, windowCells } from '../format.js';
import { cappedTable, paging, setCount } from './table.js';
import { app, $, panel } from '../app/state.js';
import { stepRowClass, shownItems, soFar, jumpToRow } from './step-sync.js';
import { resultCount } from '../app/scenario.js';
import { registerPanel } from '../app/registry.js';

/** @param {HTMLElement} body @param {any} result */
export function renderWindows(body, result) {
  const ws = result.windows || [];
  cappedTable(body, windowHeaders(result), shownItems(ws), (/** @type {any} */ w, /** @type {number} */ i) => windowCells(w, i, result), {
    empty: 'no window results',
    ...paging(result, 'windows'),
    rowClass: stepRowClass(undefined),
    onRowClick: jumpToRow,
  });
}

/** @param {any} r */
function render(r) {
  const on = (r.windows && r.windows.length > 0) || r.operator === 'window_aggregate';
  panel('windows').hidden = !on;
  if (!on) return;
  renderWindows($('windows'), r);
  setCount(panel('windows'), r.paged ? resultCount(r, 'windows') : soFar(r.windows || [], resultCount(r, 'windows')));
}

registerPanel({
  name: 'windows',
  timing: 'tables',
  render,
  onStep() {
    if (app.result) render(app.result);
  },
});
