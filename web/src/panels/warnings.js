// @ts-check
// The Warnings panel: what the engine noticed about the job (and Flink would not tell).

import { h, fill } from '../dom.js';
import { setCount } from './table.js';
import { $, panel } from '../app/state.js';
import { registerPanel } from '../app/registry.js';

/** @param {HTMLElement} body @param {any} result @returns {number} */
export function renderWarnings(body, result) {
  const ws = result.warnings || [];
  fill(body, ws.length ? h('ul', { class: 'warnings' }, ws.map((/** @type {string} */ w) => h('li', null, w))) : h('p', { class: 'empty' }, 'no warnings'));
  return ws.length;
}

registerPanel({
  name: 'warnings',
  timing: 'tables',
  render(r) {
    const n = renderWarnings($('warnings'), r);
    panel('warnings').hidden = !n;
    setCount(panel('warnings'), n);
  },
});
