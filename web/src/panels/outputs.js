// @ts-check
// The Output panel: the job's main output rows.

import { outputHeaders, outputCells, fmtDateTime } from '../format.js';
import { cappedTable, paging, setCount, KIND_CLASS } from './table.js';
import { $, panel } from '../app/state.js';
import { resultCount } from '../app/scenario.js';
import { registerPanel } from '../app/registry.js';

/** @param {HTMLElement} body @param {any} result */
export function renderOutputs(body, result) {
  cappedTable(body, outputHeaders(result), result.outputs, (/** @type {any} */ o, /** @type {number} */ i) => outputCells(o, i, result), {
    ...paging(result, 'outputs'),
    rowClass: (/** @type {any} */ o) => KIND_CLASS[o.kind] || '',
    rowTitle: (/** @type {any} */ o) => fmtDateTime(o.timestamp),
    empty: result.operator === 'window_aggregate' ? 'no main output (see window results)' : 'no output rows',
  });
}

registerPanel({
  name: 'outputs',
  render(r) {
    renderOutputs($('outputs'), r);
    setCount(panel('outputs'), resultCount(r, 'outputs'));
  },
});
