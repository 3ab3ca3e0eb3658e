// @ts-check
// The Output panel: the job's main output rows.

import { outputHeaders, outputCells, fmtDateTime } from '../format.js';
import { cappedTable, paging, setCount, KIND_CLASS } from './table.js';
import { app, $, panel } from '../app/state.js';
import { resultCount } from '../app/scenario.js';
import { registerPanel } from '../app/registry.js';
import { stepRowClass, shownItems, soFar, jumpToRow } from './step-sync.js';

/** @param {HTMLElement} body @param {any} result */
export function renderOutputs(body, result) {
  const items = shownItems(result.outputs);
  cappedTable(body, outputHeaders(result), items, (/** @type {any} */ o, /** @type {number} */ i) => outputCells(o, i, result), {
    ...paging(result, 'outputs'),
    rowClass: stepRowClass((/** @type {any} */ o) => {
      const k = KIND_CLASS[o.kind] || '';
      const h = app.hoverRow;
      return h !== null && ((o.left && o.left.id === h) || (o.right && o.right.id === h)) ? `${k} related` : k;
    }),
    onRowClick: jumpToRow,
    rowTitle: (/** @type {any} */ o) => fmtDateTime(o.timestamp),
    empty: result.operator === 'window_aggregate' ? 'no main output (see window results)' : 'no output rows',
  });
}

/** @param {any} r */
function render(r) {
  renderOutputs($('outputs'), r);
  setCount(panel('outputs'), r.paged ? resultCount(r, 'outputs') : soFar(r.outputs, resultCount(r, 'outputs')));
}

registerPanel({
  name: 'outputs',
  render,
  onStep() {
    if (app.result) render(app.result);
  },
  onHover() {
    if (app.result && !app.result.paged) renderOutputs($('outputs'), app.result);
  },
});
