// @ts-check
// The Key routing panel (closed by default): key -> hashCode -> key group -> operator subtask.

import { h, fill } from '../dom.js';
import { fmtValue } from '../format.js';
import { cappedTable } from './table.js';
import { $, app, panel } from '../app/state.js';
import { registerPanel } from '../app/registry.js';

/** @param {HTMLElement} body @param {any} result */
export function renderKeys(body, result) {
  const keys = result.keys || [];
  if (!keys.length) {
    fill(body, h('p', { class: 'empty' }, result.keys ? 'no keys' : 'key routing is shown for inputs small enough to trace'));
    return;
  }
  cappedTable(body, ['key', 'hashCode', 'key group', 'operator subtask'], keys, (/** @type {any} */ k) => [fmtValue(k.value), String(k.hash), String(k.key_group), String(k.subtask)], { limit: 200 });
}

/** Whether the panel's disclosure is open (it is drawn only then). */
export const keysOpen = () => /** @type {HTMLDetailsElement} */ (panel('keys').querySelector('details')).open;

/** Draws the panel when it is opened; `then` asks for the trace if it needs it. @param {() => void} then */
export function wireKeys(then) {
  panel('keys')
    .querySelector('details')
    ?.addEventListener('toggle', () => {
      if (app.result) renderKeys($('keys'), app.result);
      then();
    });
}

registerPanel({
  name: 'keys',
  timing: 'tables',
  render(r) {
    if (keysOpen()) renderKeys($('keys'), r);
  },
});
