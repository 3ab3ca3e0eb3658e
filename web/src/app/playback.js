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

/** Playback speeds (steps per second at 1× is BASE_STEPS_PER_S). */
export const SPEEDS = [0.5, 1, 2, 4, 8];
const BASE_STEPS_PER_S = 2;

/** The playback clock: playing or not, its speed, whether it loops. */
export const clock = {
  playing: false,
  speed: 1,
  loop: false,
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  timer: undefined,
  /** @type {(() => void)[]} */
  listeners: [],
};

/** Calls `f` when the clock starts, stops or changes speed or loop. @param {() => void} f */
export function onClockChange(f) {
  clock.listeners.push(f);
}

function changed() {
  for (const f of clock.listeners) f();
}

function tick() {
  clock.timer = undefined;
  if (!clock.playing) return;
  const total = stepCount(app.result);
  if (!total) return pause();
  const next = app.step === null ? total : app.step + 1;
  if (next >= total) {
    if (!clock.loop) return pause();
    setStep(0);
  } else setStep(next);
  clock.timer = setTimeout(tick, 1000 / (BASE_STEPS_PER_S * clock.speed));
}

/** Starts playing from the current step (from the first when at the end). */
export function play() {
  const total = stepCount(app.result);
  if (!total || clock.playing) return;
  clock.playing = true;
  if (app.step === null || app.step >= total - 1) setStep(0);
  clock.timer = setTimeout(tick, 1000 / (BASE_STEPS_PER_S * clock.speed));
  changed();
}

export function pause() {
  clock.playing = false;
  clearTimeout(clock.timer);
  clock.timer = undefined;
  changed();
}

export function togglePlay() {
  if (clock.playing) pause();
  else play();
}

/** Sets the speed (one of SPEEDS; the nearest). @param {number} s */
export function setSpeed(s) {
  clock.speed = SPEEDS.reduce((best, v) => (Math.abs(v - s) < Math.abs(best - s) ? v : best), 1);
  changed();
}

/** One speed faster (+1) or slower (-1). @param {number} dir */
export function stepSpeed(dir) {
  const i = SPEEDS.indexOf(clock.speed);
  setSpeed(SPEEDS[Math.max(0, Math.min(SPEEDS.length - 1, i + dir))]);
}

/** @param {boolean} on */
export function setLoop(on) {
  clock.loop = on;
  changed();
}
