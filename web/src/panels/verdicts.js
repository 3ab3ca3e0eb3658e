// @ts-check
// The verdicts panel: why each input row did (not) join, in the engine's words.

import { h, fill } from '../dom.js';
import { cappedTable, setCount, rowLabel } from './table.js';
import { app, $, panel } from '../app/state.js';
import { registerPanel } from '../app/registry.js';

/** @type {Record<string, string>} */
const OUTCOME_WORDS = {
  joined: 'joined',
  padded: 'null-padded',
  late: 'late',
  aggregated: 'in a window',
  main: 'main output',
  side_output: 'side output',
  unmatched: 'no result',
  buffered: 'still buffered',
};

/** One verdict per input row. @param {HTMLElement} body @param {any} result @returns {number} */
export function renderVerdicts(body, result) {
  const vs = result.verdicts;
  if (!vs) {
    fill(body, h('p', { class: 'empty' }, 'verdicts are shown for inputs small enough to trace'));
    return 0;
  }
  cappedTable(body, ['row', 'outcome', 'why'], vs, (/** @type {any} */ v) => [rowLabel(result, v.row), OUTCOME_WORDS[v.outcome] || v.outcome, v.message], {
    rowClass: (/** @type {any} */ v) => `verdict-${v.outcome}${v.row === app.selectedRow ? ' selected' : ''}`,
    empty: 'no input rows',
    wordsColumn: 2,
  });
  return vs.length;
}

/** @param {any} r */
function render(r) {
  panel('verdicts').hidden = !r.verdicts;
  if (r.verdicts) setCount(panel('verdicts'), renderVerdicts($('verdicts'), r));
}

registerPanel({
  name: 'verdicts',
  fromTrace: true,
  render,
  onStep() {
    // The row selected on the timeline is highlighted here.
    if (app.result && app.result.verdicts) render(app.result);
  },
});
