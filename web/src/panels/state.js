// @ts-check
// The state panel: buffered rows and pending timers per operator subtask. It follows the
// current step like the other panels: while a step is chosen (playback, stepping, a click on
// a row) it shows the state right after that step (app/step-state.js: the trace's snapshots
// or the engine's `state_at`); after the last step, the state left at the end.

import { h, fill, table } from '../dom.js';
import { setCount, rowLabel, keyLabel } from './table.js';
import { $, app, panel } from '../app/state.js';
import { registerPanel } from '../app/registry.js';
import { stateAfterStep } from '../app/step-state.js';
import { requestDetailNow } from '../app/scheduler.js';

/**
 * Draws a list of subtask states (the result's `final_state`, or the state after a step) as
 * one table; returns the number of entries and timers.
 * @param {HTMLElement} body @param {any} result @param {any[]} st
 * @param {{ empty: string, total?: number }} opts  `total`: entries and timers in all when
 *   `st` is cut (a paged result)
 * @returns {number}
 */
function drawStates(body, result, st, { empty, total }) {
  /** @type {string[][]} */
  const rows = [];
  let all = 0;
  for (const s of st) {
    for (const e of s.entries || []) {
      const ids = (e.rows || []).map((/** @type {number} */ id) => rowLabel(result, id));
      const more = (e.rows_total ?? ids.length) - ids.length;
      rows.push([String(s.subtask), keyLabel(result, e.key), e.side || '', e.scope, more > 0 ? `${ids.join(', ')} … ${more} more` : ids.join(', ')]);
    }
    for (const t of s.timers || []) rows.push([String(s.subtask), keyLabel(result, t.key), '', `${t.processing ? 'processing-time' : 'event-time'} timer at ${t.timestamp}`, t.what]);
    all += (s.entries_total ?? (s.entries || []).length) + (s.timers_total ?? (s.timers || []).length);
  }
  if (!rows.length) {
    fill(body, h('p', { class: 'empty' }, empty));
    return 0;
  }
  const n = Math.max(total || 0, all);
  fill(body, h('div', { class: 'table-wrap' }, table(['subtask', 'key', 'side', 'what', 'rows'], rows)), n > rows.length ? h('p', { class: 'more' }, `showing the first ${rows.length} of ${n} entries and timers`) : null);
  return n;
}

/** @param {HTMLElement} body @param {any} result @returns {number} entries and timers left at the end */
export function renderState(body, result) {
  return drawStates(body, result, result.final_state || [], { empty: 'all state and timers were cleared', total: (result.paged && result.paged.final_state) || 0 });
}

/** The panel's heading, before its count. @param {string} text */
function heading(text) {
  const h2 = panel('state').querySelector('h2');
  const first = h2 && h2.firstChild;
  if (first && first.nodeType === Node.TEXT_NODE) first.textContent = `${text} `;
}

/** @param {any} r */
function render(r) {
  const sec = panel('state');
  const body = $('state');
  if (app.step === null) {
    heading('State left at the end');
    delete body.dataset.step;
    delete body.dataset.pending;
    const n = renderState(body, r);
    sec.hidden = r.state_empty;
    setCount(sec, n);
    return;
  }
  const step = app.step;
  // An untraced result does not name its rows and keys: the traced one that follows does (the
  // panels redraw when it arrives); meanwhile a window of the trace around the step may.
  if (!r.rows) requestDetailNow();
  const names = !r.rows && app.traceWindow && app.traceWindow.base === r && app.traceWindow.result ? { ...r, rows: app.traceWindow.result.rows, keys: app.traceWindow.result.keys } : r;
  const label = `step ${(step + 1).toLocaleString('en')}`;
  heading(`State after ${label}`);
  sec.hidden = false;
  body.dataset.step = String(step);
  // A render for an earlier result (the untraced one, before the traced one arrived) may have
  // left its request pending: this render answers for the step now.
  delete body.dataset.pending;
  const got = stateAfterStep(r, step);
  const show = (/** @type {any[]} */ st) => setCount(sec, drawStates(body, names, st, { empty: `no buffered state and no pending timers after ${label}` }));
  if (Array.isArray(got)) {
    show(got);
    return;
  }
  setCount(sec, null);
  if (!got) {
    fill(body, h('p', { class: 'empty' }, `The state after ${label} is not available for this run.`));
    return;
  }
  body.dataset.pending = '1';
  fill(body, h('p', { class: 'empty' }, `computing the state after ${label}…`));
  got.then(
    (st) => {
      if (app.result !== r || app.step !== step) return;
      delete body.dataset.pending;
      show(st);
    },
    (/** @type {any} */ e) => {
      if (app.result !== r || app.step !== step) return;
      delete body.dataset.pending;
      fill(body, h('p', { class: 'empty' }, `The state after ${label} could not be computed: ${e && e.message ? e.message : e}`));
    },
  );
}

registerPanel({
  name: 'state',
  timing: 'tables',
  render,
  onStep() {
    if (app.result) render(app.result);
  },
});

// A window of the trace arrived (panels/stepper-panel.js): it may name rows and keys shown here.
document.addEventListener('jl:trace-window', () => {
  const r = app.result;
  if (r && !r.rows && app.step !== null) render(r);
});
