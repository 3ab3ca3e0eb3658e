// @ts-check
// The Window results panel: what each window fired (window aggregation, window joins).

import { windowHeaders, windowCells } from '../format.js';
import { cappedTable, paging, setCount } from './table.js';
import { $, panel } from '../app/state.js';
import { resultCount } from '../app/scenario.js';
import { registerPanel } from '../app/registry.js';

/** @param {HTMLElement} body @param {any} result */
export function renderWindows(body, result) {
  const ws = result.windows || [];
  cappedTable(body, windowHeaders(result), ws, (/** @type {any} */ w, /** @type {number} */ i) => windowCells(w, i, result), { empty: 'no window results', ...paging(result, 'windows') });
}

registerPanel({
  name: 'windows',
  timing: 'tables',
  render(r) {
    const on = (r.windows && r.windows.length > 0) || r.operator === 'window_aggregate';
    panel('windows').hidden = !on;
    if (!on) return;
    renderWindows($('windows'), r);
    setCount(panel('windows'), resultCount(r, 'windows'));
  },
});
