// @ts-check
// The Step through panel: the trace one step at a time (drawn by stepper.js). Above the
// full-trace limit it works on windows of WINDOW_STEPS steps fetched from the worker.

import { h, fill } from '../dom.js';

import { renderStepper } from '../stepper.js';
import { app, $, panelOff } from '../app/state.js';
import { registerPanel } from '../app/registry.js';
import { dirtyPanels, seen, onVisibilityChange } from '../app/visibility.js';
import { clampStep, setStep } from '../app/playback.js';
import { windowed, WINDOW_STEPS } from '../app/trace-window.js';
import { stateAfterStep } from '../app/step-state.js';
import { TRACE_ROWS } from '../app/scheduler.js';

/**
 * The lean result `r` with the trace of one window: `trace` (and `rows`, `keys`, `outputs`, …)
 * are sparse arrays indexed as in a full result, holding only what the window's steps refer
 * to; `window` says which steps are there and the watermarks and counts before them;
 * `stateAt(step)` is the state from the window's answer (after its last step) or a promise of
 * the worker's `state_at`.
 */
/** @param {any} r @param {any} tw @param {number} total */
function windowResult(r, tw, total) {
  const sparse = (/** @type {any} */ obj) => {
    /** @type {any[]} */
    const a = [];
    for (const k of Object.keys(obj || {})) a[Number(k)] = obj[k];
    return a;
  };
  const trace = new Array(total);
  for (const s of tw.steps) trace[s.index] = s;
  const end = tw.from + tw.steps.length;
  /** @type {Record<string, any[]>} */
  const side = {};
  for (const [tag, v] of Object.entries(tw.side_outputs || {})) side[tag] = sparse(v);
  const res = {
    ...r,
    trace,
    rows: sparse(tw.rows),
    keys: sparse(tw.keys),
    outputs: sparse(tw.outputs),
    late: sparse(tw.late),
    windows: sparse(tw.windows),
    side_outputs: side,
    window: { from: tw.from, end, total, before: tw.before || null },
  };
  // The state after the window's last step came with it; the others are asked of the worker,
  // kept per step with the state panel's (app/step-state.js).
  const last = end - 1;
  Object.defineProperty(res, 'stateAt', {
    value: (/** @type {number} */ step) => (tw.steps.length && step === last ? tw.state_end : stateAfterStep(r, step)),
    enumerable: false,
  });
  return res;
}

/**
 * The stepper over a result too large for a full trace: draws the window holding the current
 * step, or fetches the window around it from the worker (one fetch at a time; when it arrives
 * the step may have moved on, and the window around the new step is fetched).
 */
/** @param {any} r */
function drawWindowStepper(r) {
  if (panelOff('stepper')) return;
  if (!seen('stepper')) {
    dirtyPanels.add('stepper');
    return;
  }
  dirtyPanels.delete('stepper');
  const st = $('stepper');
  const total = r.steps;
  clampStep(r);
  const step = app.step === null ? total - 1 : app.step;
  const w = app.traceWindow;
  if (w && w.base === r && w.result) {
    try {
      renderStepper(st, w.result, step, setStep);
    } catch (e) {
      console.error(e);
      fill(st, h('p', { class: 'empty' }, `The step-through could not be drawn: ${e}`));
      return;
    }
    if (step >= w.from && step < w.end) return;
  } else if (!w || w.base !== r) fill(st, h('p', { class: 'empty' }, `Loading the steps around step ${(step + 1).toLocaleString('en')}…`));
  if (w && w.base === r && w.loading) return;
  const from = Math.max(0, Math.min(step - WINDOW_STEPS / 2, total - WINDOW_STEPS));
  const t0 = performance.now();
  app.traceWindow = { base: r, loading: true, from: w && w.base === r ? w.from : -1, end: w && w.base === r ? w.end : -1, result: w && w.base === r ? w.result : null };
  st.dataset.windowLoading = '1';
  r.traceWindow(from, WINDOW_STEPS).then(
    (/** @type {any} */ text) => {
      if (app.result !== r) return;
      // Parsed in the worker, with long lists cut (worker.js trimWindow).
      const tw = text;
      delete st.dataset.windowLoading;
      if (tw.error) {
        app.traceWindow = null;
        fill(st, h('p', { class: 'empty' }, `The steps could not be computed: ${tw.message}`));
        return;
      }
      const result = windowResult(r, tw, total);
      app.traceWindow = { base: r, loading: false, from: tw.from, end: result.window.end, result, ms: performance.now() - t0 };
      st.dataset.windowFrom = String(tw.from);
      st.dataset.windowEnd = String(result.window.end);
      st.dataset.windowMs = String(Math.round(app.traceWindow.ms));
      drawWindowStepper(r);
      // The window names the rows and keys of its steps: the state panel uses them.
      document.dispatchEvent(new CustomEvent('jl:trace-window'));
    },
    (/** @type {Error} */ e) => {
      delete st.dataset.windowLoading;
      if (app.result !== r) return;
      app.traceWindow = null;
      fill(st, h('p', { class: 'empty' }, `The steps could not be computed: ${e.message}`));
    },
  );
}

/** Draws the stepper over a full trace (when in view; else it is drawn when it scrolls in). */
export function drawStepper() {
  const r = app.result;
  if (panelOff('stepper') || !r || !r.trace) return;
  if (!seen('stepper')) {
    dirtyPanels.add('stepper');
    return;
  }
  dirtyPanels.delete('stepper');
  const st = $('stepper');
  try {
    const t0 = performance.now();
    renderStepper(st, r, app.step === null ? r.trace.length - 1 : app.step, setStep);
    app.timings.stepper = performance.now() - t0;
  } catch (e) {
    console.error(e);
    fill(st, h('p', { class: 'empty' }, `The step-through could not be drawn: ${e}`));
  }
}

/** @param {any} r */
function render(r) {
  if (!r.trace && windowed(r)) {
    drawWindowStepper(r);
    return;
  }
  if (!r.trace) {
    const msg = app.routeReason
      ? `The timeline and the step-through are off for this run, which is too large to trace: ${app.routeReason}.`
      : `The timeline and the step-through need the step-by-step trace, which is off for inputs over ${TRACE_ROWS.toLocaleString('en')} rows.`;
    fill($('stepper'), h('p', { class: 'empty' }, msg));
    dirtyPanels.delete('stepper');
    return;
  }
  clampStep(r);
  drawStepper();
}

registerPanel({
  name: 'stepper',
  timing: 'visual',
  fromTrace: true,
  render,
  onStep() {
    const r = app.result;
    if (r && !r.trace && windowed(r)) drawWindowStepper(r);
    else drawStepper();
  },
});

onVisibilityChange(() => {
  const r = app.result;
  if (!dirtyPanels.has('stepper') || !r || !seen('stepper')) return;
  if (windowed(r)) drawWindowStepper(r);
  else if (r.trace) {
    clampStep(r);
    drawStepper();
  }
});
