// @ts-check
// The current step: one step that every panel drawn from the trace follows. `app.step` is the
// step (null: after the last one); `setStep` moves it and tells the panels (registry onStep).

import { app } from './state.js';
import { stepPanels } from './registry.js';

/** The number of steps of a result (full trace, or counted by the engine). @param {any} r */
export function stepCount(r) {
  if (!r) return 0;
  return r.trace ? r.trace.length : r.steps || 0;
}

/** Forgets a step past the end of the result `r` (a shorter run after an edit). @param {any} r */
export function clampStep(r) {
  if (app.step !== null && app.step >= stepCount(r)) app.step = null;
}

/**
 * Moves the current step to `i` (clamped to the result's steps; null or undefined: after the
 * last one) and redraws what follows it.
 * @param {number | null | undefined} i
 */
export function setStep(i) {
  const total = stepCount(app.result);
  app.step = i === null || i === undefined || !total ? null : Math.max(0, Math.min(total - 1, i | 0));
  stepPanels();
}

/** The step the panels show: the current one, or the last. @param {any} r */
export function shownStep(r) {
  return app.step === null ? stepCount(r) - 1 : app.step;
}
