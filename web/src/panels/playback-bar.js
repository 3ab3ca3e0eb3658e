// @ts-check
// The playback bar (sticky above the results): play / pause, step back and forth, a slider
// over the steps, speed 0.5×–8×, loop, and whether the tables hide rows emitted after the
// step. Keys (outside text fields): Space or K play/pause, ← , and → . step, [ ] speed, L loop,
// Home the first step, End every step.

import { h } from '../dom.js';
import { app, $, actions } from '../app/state.js';
import { registerPanel } from '../app/registry.js';
import { clock, onClockChange, togglePlay, pause, setSpeed, stepSpeed, setLoop, SPEEDS, stepCount, setStep } from '../app/playback.js';
import { stepView } from './step-sync.js';

/** @type {Record<string, HTMLElement>} */
const ui = {};

/** @param {string} label @param {string} keys @param {() => void} onclick @param {string} text */
const button = (label, keys, onclick, text) => h('button', { type: 'button', class: 'small', 'aria-label': label, title: `${label} (${keys})`, 'aria-keyshortcuts': keys, onclick }, text);

/** Moves the step by `d` (from the end when no step is chosen). @param {number} d */
function move(d) {
  const total = stepCount(app.result);
  if (!total) return;
  pause();
  const cur = app.step === null ? total : app.step;
  setStep(Math.max(0, Math.min(total - 1, cur + d)));
}

function showAll() {
  pause();
  setStep(null);
}

export function buildPlaybackBar() {
  const bar = $('playback');
  ui.play = button('Play', 'Space', togglePlay, '▶ Play');
  const slider = /** @type {HTMLInputElement} */ (h('input', { type: 'range', min: '0', max: '0', value: '0', 'aria-label': 'step', class: 'pb-slider' }));
  slider.addEventListener('input', () => {
    pause();
    const total = stepCount(app.result);
    const v = Number(slider.value);
    setStep(v >= total ? null : v);
  });
  ui.slider = slider;
  ui.label = h('span', { class: 'pb-label', 'aria-live': 'polite' });
  const speed = /** @type {HTMLSelectElement} */ (h('select', { 'aria-label': 'speed', title: 'speed ([ slower, ] faster)' }, SPEEDS.map((s) => h('option', { value: String(s) }, `${s}×`))));
  speed.value = '1';
  speed.addEventListener('change', () => setSpeed(Number(speed.value)));
  ui.speed = speed;
  const loop = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', 'aria-keyshortcuts': 'L' }));
  loop.addEventListener('change', () => setLoop(loop.checked));
  ui.loop = loop;
  const hide = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox' }));
  hide.addEventListener('change', () => {
    stepView.hideFuture = hide.checked;
    actions.setStep(app.step);
  });
  bar.append(
    button('First step', 'Home', () => move(-Infinity), '|◀'),
    button('Previous step', 'ArrowLeft ,', () => move(-1), '◀'),
    ui.play,
    button('Next step', 'ArrowRight .', () => move(1), '▶|'),
    h('button', { type: 'button', class: 'small', title: 'every step: the end (End)', 'aria-keyshortcuts': 'End', onclick: showAll }, 'all steps'),
    slider,
    ui.label,
    h('label', { class: 'pb-opt' }, 'speed ', speed),
    h('label', { class: 'pb-opt', title: 'loop (L)' }, loop, ' loop'),
    h('label', { class: 'pb-opt', title: 'hide the rows emitted after the step (else greyed)' }, hide, ' hide later rows'),
  );
  onClockChange(update);
  document.addEventListener('keydown', onKey);
  update();
}

/** @param {KeyboardEvent} e */
function onKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey || !app.result) return;
  const t = /** @type {HTMLElement} */ (e.target);
  // Keys typed into a field, an editor or a focused widget with its own keys are theirs.
  if (t && (t.closest('input, textarea, select, [contenteditable], .cm-editor, dialog, .stepper') || t.isContentEditable)) return;
  const k = e.key;
  let done = true;
  if (k === ' ' || k === 'k' || k === 'K') togglePlay();
  else if (k === 'ArrowLeft' || k === ',') move(-1);
  else if (k === 'ArrowRight' || k === '.') move(1);
  else if (k === '[') stepSpeed(-1);
  else if (k === ']') stepSpeed(1);
  else if (k === 'l' || k === 'L') setLoop(!clock.loop);
  else if (k === 'Home') move(-Infinity);
  else if (k === 'End') showAll();
  else done = false;
  if (done) e.preventDefault();
}

/** Shows the clock and the step. */
function update() {
  if (!ui.play) return;
  const total = stepCount(app.result);
  const slider = /** @type {HTMLInputElement} */ (ui.slider);
  // Written only when changed: this runs on every keystroke's render.
  const set = (/** @type {any} */ o, /** @type {string} */ k, /** @type {string} */ v) => {
    if (o[k] !== v) o[k] = v;
  };
  set(slider, 'max', String(total));
  set(slider, 'value', String(app.step === null ? total : app.step));
  set(ui.label, 'textContent', !total ? 'no steps' : app.step === null ? `all ${total} steps` : `step ${app.step + 1} of ${total}`);
  set(ui.play, 'textContent', clock.playing ? '❚❚ Pause' : '▶ Play');
  ui.play.setAttribute('aria-label', clock.playing ? 'Pause' : 'Play');
  ui.play.setAttribute('aria-pressed', String(clock.playing));
  /** @type {HTMLSelectElement} */ (ui.speed).value = String(clock.speed);
  /** @type {HTMLInputElement} */ (ui.loop).checked = clock.loop;
  $('playback').classList.toggle('following', app.step !== null);
  document.body.classList.toggle('following-step', app.step !== null);
}

registerPanel({ name: 'playback', render: update, onStep: update });
