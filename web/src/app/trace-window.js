// @ts-check
// Results too large for a full trace: the stepper works on windows of steps fetched from the
// worker (panels/stepper-panel.js); the timeline says why it is off.

import { totalRows } from '../panels/streams.js';

/** Steps in one window of the trace (an input too large for a full trace). */
export const WINDOW_STEPS = 200;

/** A result too large for a full trace whose steps can be fetched in windows from the worker. */
export const windowed = (/** @type {any} */ r) => r && !r.error && !r.trace && typeof r.traceWindow === 'function' && r.steps > 0 && totalRows() <= WINDOW_ROWS;

/**
 * Inputs up to this many rows get the windowed stepper. Above it the stepper stays off: with a
 * 1,000,000-row paste, drawing it after the result showed a main-thread task of over a second
 * (tests/browser/large-paste.test.mjs), not yet tracked down.
 */
export const WINDOW_ROWS = 200000;

