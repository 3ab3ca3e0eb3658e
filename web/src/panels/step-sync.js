// @ts-check
// The result tables follow the current step: a row emitted after it is "future" (greyed, or
// hidden with the playback bar's toggle), a row emitted at it is highlighted, the counts say
// how many so far, and clicking a row moves the step to the one that emitted it.

import { app, actions } from '../app/state.js';

/** Whether rows after the current step are hidden (else greyed). */
export const stepView = { hideFuture: false };

/** Whether the tables follow a step (one is chosen). */
export const following = () => app.step !== null;

/**
 * A row's class for its step, added to `base`'s.
 * @param {((item: any, i: number) => string) | undefined} base
 * @returns {((item: any, i: number) => string) | undefined}
 */
export function stepRowClass(base) {
  if (!following()) return base;
  const step = /** @type {number} */ (app.step);
  return (item, i) => {
    const b = base ? base(item, i) : '';
    const s = item && typeof item.step === 'number' ? item.step : -1;
    const own = s > step ? 'future' : s === step ? 'now' : '';
    return own ? (b ? `${b} ${own}` : own) : b;
  };
}

/**
 * The rows to show: all, or those emitted up to the current step when future rows are hidden.
 * @param {any[]} items
 */
export function shownItems(items) {
  if (!following() || !stepView.hideFuture) return items;
  const step = /** @type {number} */ (app.step);
  return items.filter((it) => !(it && typeof it.step === 'number' && it.step > step));
}

/**
 * The count for a panel's heading: "3 of 8 so far" while following a step, else the total.
 * @param {any[]} items @param {number} total
 * @returns {number | string | null}
 */
export function soFar(items, total) {
  if (!following()) return total;
  const step = /** @type {number} */ (app.step);
  let n = 0;
  for (const it of items) if (it && typeof it.step === 'number' && it.step <= step) n++;
  return `${n} of ${total} so far`;
}

/** Jumps to the step that emitted a row. @param {any} item */
export function jumpToRow(item) {
  if (item && typeof item.step === 'number') actions.setStep(item.step);
}
