// @ts-check
// The "Side by side" panel: the same rows through other joins (tumbling and sliding window
// joins, an interval join, a SQL LEFT interval join), with bounds taken from the job.

import { h, fill } from '../dom.js';
import { wasm, runSync } from '../engine.js';
import { fmtDuration } from '../format.js';
import { TWO_INPUTS } from '../controls.js';
import { renderComparison } from '../timeline.js';
import { app, $, panelOff } from '../app/state.js';
import { registerPanel } from '../app/registry.js';
import { totalRows } from './streams.js';

/** Inputs up to this many rows are compared across joins (four more runs per edit, when open). */
const COMPARE_ROWS = 4000;

/** @param {unknown} v @param {number} fallback @returns {number} */
function durationMs(v, fallback) {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const r = wasm.normalize(JSON.stringify({ job: { allowed_lateness: v } }));
    if (typeof r === 'string') {
      const j = JSON.parse(r);
      return (j.job && j.job.allowed_lateness) || 0;
    }
  }
  return fallback;
}

/** The same rows and settings with the operator (and its bounds) swapped. @param {any} sc */
export function compareVariants(sc) {
  const job = sc.job || {};
  const w = job.window || {};
  const size = Math.max(2, durationMs(w.size, 10000));
  const iv = job.interval || {};
  let lower = durationMs(iv.lower, 0);
  let upper = durationMs(iv.upper, 0);
  if (job.operator !== 'interval_join' || (lower === 0 && upper === 0)) {
    lower = -Math.floor(size / 2);
    upper = Math.floor(size / 2);
  }
  const base = (/** @type {any} */ patch) => {
    const v = JSON.parse(JSON.stringify(sc));
    delete v.expected;
    v.job = { ...v.job, ...patch };
    delete v.job.late_output;
    return v;
  };
  const half = Math.max(1, Math.floor(size / 2));
  return [
    { label: `window join, tumbling ${fmtDuration(size)}`, scenario: base({ operator: 'window_join', window: { kind: 'tumbling', size } }) },
    { label: `window join, sliding ${fmtDuration(size)} / ${fmtDuration(half)}`, scenario: base({ operator: 'window_join', window: { kind: 'sliding', size, slide: half } }) },
    { label: `interval join [${fmtDuration(lower)}, ${fmtDuration(upper)}]`, scenario: base({ operator: 'interval_join', interval: { lower, upper } }) },
    // DataStream: l.ts + lower <= r.ts <= l.ts + upper  ⟺  SQL: l.t BETWEEN r.t − upper AND r.t − lower.
    { label: 'SQL LEFT interval join', scenario: base({ operator: 'sql_interval_join', sql: { join: 'left', lower: -upper, upper: -lower } }) },
  ];
}

export function renderCompare() {
  const box = $('compare');
  if (!(/** @type {HTMLDetailsElement} */ ($('compare-details')).open) || panelOff('compare')) return;
  const sc = app.resultScenario;
  if (!sc || !TWO_INPUTS.has((sc.job && sc.job.operator) || 'window_join')) {
    fill(box, h('p', { class: 'empty' }, 'The comparison is for two-stream joins.'));
    return;
  }
  if (totalRows() > COMPARE_ROWS) {
    fill(box, h('p', { class: 'empty' }, `The comparison runs for inputs up to ${COMPARE_ROWS.toLocaleString('en')} rows.`));
    return;
  }
  const runs = [];
  const failed = [];
  for (const v of compareVariants(sc)) {
    const { result } = runSync(JSON.stringify(v.scenario), false);
    if (result && !result.error) runs.push({ label: v.label, result, scenario: v.scenario });
    else failed.push(`${v.label}: ${(result && result.message) || 'no result'}`);
  }
  try {
    renderComparison(box, runs);
  } catch (e) {
    console.error(e);
    fill(box, h('p', { class: 'empty' }, `The comparison could not be drawn: ${e}`));
  }
  if (failed.length) box.append(h('ul', { class: 'warnings' }, failed.map((f) => h('li', null, f))));
}

export function wireCompare() {
  $('compare-details').addEventListener('toggle', renderCompare);
}

registerPanel({ name: 'compare', render: renderCompare });
