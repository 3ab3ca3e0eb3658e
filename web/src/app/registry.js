// @ts-check
// The panel registry: every panel of the result registers how it draws a result, and the update
// path draws them all in registration order. A new panel (a tab) is one module that calls
// `registerPanel`, imported once from main.js; nothing else changes.

import { app } from './state.js';

/**
 * @typedef {object} PanelDef
 * @property {string} name       the panel's `data-panel` name
 * @property {(r: any) => void} render  draws the result `r` (the last good result)
 * @property {string} [timing]   the key of `app.timings` its time adds to (default: `name`)
 * @property {boolean} [fromTrace]  drawn from the step-by-step trace: kept (greyed) while the
 *   trace is being computed after a run without it
 * @property {() => void} [onStep]  follows the current step (playback)
 * @property {() => void} [onHover]  lights up the hovered input row (app/hover.js)
 */

/** @type {PanelDef[]} */
const registry = [];

/** Adds a panel (once per name; a second registration replaces the first). @param {PanelDef} def */
export function registerPanel(def) {
  const i = registry.findIndex((p) => p.name === def.name);
  if (i >= 0) registry[i] = def;
  else registry.push(def);
}

/** The registered panels, in drawing order. */
export function panels() {
  return registry.slice();
}

/**
 * Draws every registered panel from `r`, recording each one's time in `app.timings`.
 * @param {any} r
 * @param {{ waitDetail: boolean }} opts  `waitDetail`: the trace is on its way, keep the
 *   pictures drawn from the old one
 */
export function renderPanels(r, { waitDetail }) {
  app.timings = {};
  for (const p of registry) {
    if (p.fromTrace && waitDetail) continue;
    const key = p.timing || p.name;
    const t0 = performance.now();
    p.render(r);
    app.timings[key] = (app.timings[key] || 0) + performance.now() - t0;
  }
}

/** Tells the panels that follow the current step that it moved. */
export function stepPanels() {
  for (const p of registry) if (p.onStep) p.onStep();
}
