// @ts-check
// Which of the panels drawn from the trace are on screen: they are drawn (and the trace is
// asked for) only when in view, so typing with them scrolled away costs no trace run and no
// redraw per keystroke.

import { panel } from './state.js';

/**
 * The panels drawn from the trace: the timeline, the stepper, the verdicts, the watermarks'
 * values before end of input and per channel, the key routing (when open).
 */
export const TRACE_PANELS = ['timeline', 'stepper', 'verdicts', 'watermarks', 'keys'];
/** Those of them on screen or within 300 px of it (IntersectionObserver). */
const inView = new Set();
/** Panels whose picture is older than the result (drawn when they scroll into view). */
export const dirtyPanels = new Set();
/** @type {(() => void)[]} */
const listeners = [];

/** Calls `f` whenever a trace panel scrolls into or out of view. @param {() => void} f */
export function onVisibilityChange(f) {
  listeners.push(f);
}

export function watchTracePanels() {
  if (typeof IntersectionObserver !== 'function') {
    for (const name of TRACE_PANELS) inView.add(name);
    return;
  }
  const io = new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        const name = /** @type {HTMLElement} */ (e.target).dataset.panel;
        if (e.isIntersecting) inView.add(name);
        else inView.delete(name);
      }
      for (const f of listeners) f();
    },
    { rootMargin: '300px 0px' },
  );
  for (const name of TRACE_PANELS) io.observe(panel(name));
}

/** Whether the panel is switched on and on screen (or near it). @param {string} name */
export function seen(name) {
  const sec = panel(name);
  if (!inView.has(name) || sec.classList.contains('panel-off') || sec.hidden) return false;
  const details = name === 'keys' && sec.querySelector('details');
  return !details || details.open;
}
