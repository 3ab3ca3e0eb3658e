// @ts-check
// The Timeline panel: the rows, windows, intervals, watermarks and outputs on a time axis
// (drawn by timeline.js), following the current step.

import { h, fill } from '../dom.js';
import { renderTimeline } from '../timeline.js';
import { app, $, panelOff, actions } from '../app/state.js';
import { registerPanel } from '../app/registry.js';
import { hoverRow } from '../app/hover.js';
import { dirtyPanels, seen, onVisibilityChange } from '../app/visibility.js';
import { clampStep } from '../app/playback.js';
import { TRACE_ROWS } from '../app/scheduler.js';
import { windowed, WINDOW_STEPS } from '../app/trace-window.js';

/** @type {{ setStep: (step: number | undefined) => void } | null} */
let handle = null;
/** The result the timeline shows. @type {any} */
let drawnFor = null;

function draw() {
  const r = app.result;
  const tl = $('timeline');
  dirtyPanels.delete('timeline');
  try {
    const t0 = performance.now();
    handle = renderTimeline(tl, app.resultScenario, r, {
      step: app.step === null ? undefined : app.step,
      selectedRow: app.selectedRow ?? undefined,
      // A click on a mark selects its row (its verdict is highlighted) and moves to the step
      // it arrived at.
      onHoverRow: (/** @type {number} */ id) => hoverRow(id),
      onSelectRow: (/** @type {number} */ id) => {
        app.selectedRow = id;
        const step = handle ? /** @type {any} */ (handle).rowStep(id) : -1;
        actions.setStep(step >= 0 ? step : app.step);
      },
    });
    drawnFor = r;
    app.timings.timeline = performance.now() - t0;
  } catch (e) {
    console.error(e);
    handle = null;
    fill(tl, h('p', { class: 'empty' }, `The timeline could not be drawn: ${e}`));
  }
}

/** @param {any} r */
function render(r) {
  const tl = $('timeline');
  if (!r.trace) {
    const msg = windowed(r)
      ? `The timeline would need the step-by-step trace, which is off for inputs over ${TRACE_ROWS.toLocaleString('en')} rows; the step-through works on windows of ${WINDOW_STEPS} steps.`
      : app.routeReason
        ? `The timeline and the step-through are off for this run, which is too large to trace: ${app.routeReason}.`
        : `The timeline and the step-through need the step-by-step trace, which is off for inputs over ${TRACE_ROWS.toLocaleString('en')} rows.`;
    fill(tl, h('p', { class: 'empty' }, msg));
    handle = null;
    drawnFor = null;
    dirtyPanels.delete('timeline');
    return;
  }
  clampStep(r);
  if (panelOff('timeline')) return;
  // Out of view, the timeline (4 ms for 1,000 rows, and thousands of SVG elements) is drawn
  // when it scrolls into view, not on every keystroke.
  if (!seen('timeline')) dirtyPanels.add('timeline');
  else draw();
}

registerPanel({
  name: 'timeline',
  onHover() {
    if (handle && drawnFor === app.result) /** @type {any} */ (handle).setHoverRow(app.hoverRow ?? -1);
  },
  timing: 'visual',
  fromTrace: true,
  render,
  onStep() {
    try {
      if (handle && drawnFor === app.result) handle.setStep(app.step === null ? undefined : app.step);
    } catch (e) {
      console.error(e);
    }
  },
});

onVisibilityChange(() => {
  const r = app.result;
  if (!dirtyPanels.has('timeline') || !seen('timeline') || !r || !r.trace) return;
  draw();
});
