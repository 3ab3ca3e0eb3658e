// @ts-check
// The Watermarks panel: per operator subtask (before end of input, final, per input channel)
// and per timestamp/watermark assigner.

import { h, fill, table } from '../dom.js';
import { fmtWatermark } from '../format.js';
import { app, $ } from '../app/state.js';
import { WatermarkTracker } from '../timeline.js';
import { registerPanel } from '../app/registry.js';

/** @typedef {import('../types').RunResult} RunResult @typedef {import('../types').Watermark} Watermark */

/** Watermarks before end of input and per input channel, picked from the trace. @param {RunResult} result */
function watermarkDetail(result) {
  const trace = result.trace;
  if (!trace) return null;
  /** @type {Map<number, Watermark>} */
  const before = new Map();
  /** @type {Map<string, Watermark>} */
  const channels = new Map();
  /** @type {Map<string, Watermark>} */
  const assigners = new Map();
  /** @type {Map<string, boolean>} */
  const idle = new Map();
  let sawEnd = false;
  for (const step of trace) {
    if (step.cause.type === 'end_of_input') {
      sawEnd = true;
      break;
    }
    for (const e of step.events) {
      if (e.type === 'operator_watermark') before.set(e.subtask, e.watermark);
      else if (e.type === 'channel_watermark') channels.set(`${e.subtask}|${e.stream}|${e.assigner}`, e.watermark);
      else if (e.type === 'assigner_watermark') assigners.set(`${e.stream}|${e.assigner}`, e.watermark);
      else if (e.type === 'assigner_status') idle.set(`${e.stream}|${e.assigner}`, e.idle);
    }
  }
  return { before, channels, assigners, idle, sawEnd };
}

const SIDES = ['left', 'right'];

/** @param {HTMLElement} body @param {RunResult} result */
export function renderWatermarks(body, result) {
  const d = watermarkDetail(result);
  // At the current step (playback): each subtask's watermark then, and what each assigner
  // computed at that step but held back because it was not above the last one it sent.
  const at = app.step !== null && result.trace && result.trace[app.step] ? trackerOf(result).at(app.step) : null;
  /** @type {Map<string, string>} */
  const held = new Map();
  if (at && result.trace) {
    for (const e of /** @type {any[]} */ (result.trace[/** @type {number} */ (app.step)].events || [])) {
      if (e.type === 'assigner_held') held.set(`${e.stream}|${e.assigner}`, `${fmtWatermark(e.candidate)} held (not above ${fmtWatermark(e.last)})`);
    }
  }
  const atHead = at ? `at step ${/** @type {number} */ (app.step) + 1}` : null;
  const streams = result.streams.map((s) => s.name);
  const nAssign = result.parallelism;
  const opHeaders = ['operator subtask'];
  if (atHead) opHeaders.push(atHead);
  if (d) opHeaders.push('before end of input');
  opHeaders.push('final');
  if (d) opHeaders.push('input channels (before end of input)');
  const opRows = result.watermarks.map((w) => {
    const r = [String(w.subtask)];
    if (at) r.push(fmtWatermark(at.operator[w.subtask] ?? '-inf'));
    if (d) r.push(fmtWatermark(d.before.has(w.subtask) ? d.before.get(w.subtask) : '-inf'));
    r.push(fmtWatermark(w.watermark));
    if (d) {
      /** @type {string[]} */
      const parts = [];
      streams.forEach((name, si) => {
        for (let a = 0; a < nAssign; a++) {
          const k = `${w.subtask}|${SIDES[si]}|${a}`;
          parts.push(`${name}#${a}: ${fmtWatermark(d.channels.has(k) ? d.channels.get(k) : '-inf')}`);
        }
      });
      r.push(parts.join('   '));
    }
    return r;
  });
  const asHeaders = ['stream', 'assigner subtask'];
  if (atHead) asHeaders.push(atHead);
  if (d) asHeaders.push('before end of input');
  asHeaders.push('final');
  /** @type {string[][]} */
  const asRows = [];
  (result.assigner_watermarks || []).forEach((list, si) => {
    list.forEach((w, a) => {
      const r = [streams[si] || `stream ${si}`, String(a)];
      if (at) {
        const k = `${SIDES[si]}|${a}`;
        const v = fmtWatermark((at.assigner[si] && at.assigner[si][a]) ?? '-inf');
        const parts = [at.idle[si] && at.idle[si][a] ? `${v} (idle)` : v];
        if (held.has(k)) parts.push(/** @type {string} */ (held.get(k)));
        r.push(parts.join(' · '));
      }
      if (d) {
        const k = `${SIDES[si]}|${a}`;
        const v = fmtWatermark(d.assigners.has(k) ? d.assigners.get(k) : '-inf');
        r.push(d.idle.get(k) ? `${v} (idle)` : v);
      }
      r.push(fmtWatermark(w));
      asRows.push(r);
    });
  });
  fill(
    body,
    h('h3', null, `Operator (${result.operator_parallelism} subtask${result.operator_parallelism === 1 ? '' : 's'}, max parallelism ${result.max_parallelism})`),
    h('div', { class: 'table-wrap' }, table(opHeaders, opRows, /** @type {any} */ ({ className: 'grid wm-operator', rowAttrs: (/** @type {number} */ i) => ({ dataset: { subtask: String(result.watermarks[i].subtask) } }) }))),
    h('h3', null, `Timestamp/watermark assigners (${nAssign} subtask${nAssign === 1 ? '' : 's'} per stream)`),
    h('div', { class: 'table-wrap' }, table(asHeaders, asRows, { className: 'grid wm-assigner' })),
  );
}

/** @type {WeakMap<object, any>} */
const trackers = new WeakMap();
/** The watermarks as of a step, replayed from the trace (cached per result). @param {any} r */
function trackerOf(r) {
  let t = trackers.get(r);
  if (!t) trackers.set(r, (t = new WatermarkTracker(r)));
  return t;
}

registerPanel({
  name: 'watermarks',
  render(r) {
    renderWatermarks($('watermarks'), r);
  },
  onStep() {
    if (app.result) renderWatermarks($('watermarks'), app.result);
  },
});
