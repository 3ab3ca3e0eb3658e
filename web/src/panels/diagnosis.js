// @ts-check
// The "Why is there no output?" panel: the engine's diagnosis of a run (RunResult.diagnosis,
// crate/src/diagnosis/): what looks wrong, and each cause with its evidence, a link to the
// step and the panel that show it, and the one setting that would change it, applied and
// re-run with one click. Hidden when the engine finds nothing (or does not diagnose).

import { h, fill } from '../dom.js';
import { app, $, panel, actions, ui } from '../app/state.js';
import { registerPanel } from '../app/registry.js';
import { layoutStreams } from './streams.js';
import { setPath } from '../puzzles.js';

/** Where each of the engine's `Panel`s is on the page (`data-panel`). @type {Record<string, string>} */
const PANEL_OF = { inputs: 'streams', watermarks: 'watermarks', state: 'state', late: 'late', timeline: 'timeline', outputs: 'outputs' };

/** A value of the evidence, short. @param {unknown} v @returns {string} */
function short(v) {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 119)}…` : s;
}

/** The evidence as "name: value" lines. @param {any} ev */
function evidence(ev) {
  if (!ev || typeof ev !== 'object') return null;
  const items = Object.entries(ev).filter(([, v]) => v !== null && v !== undefined && !(Array.isArray(v) && !v.length));
  if (!items.length) return null;
  return h('dl', { class: 'evidence' }, items.flatMap(([k, v]) => [h('dt', null, k.replace(/_/g, ' ')), h('dd', null, short(v))]));
}

/** Applies a fix's patch to the scenario and runs it again. @param {{ patch: Record<string, unknown> }} fix */
export function applyFix(fix) {
  for (const [path, value] of Object.entries(fix.patch || {})) setPath(app.scenario, path, value);
  ui.controls.load();
  layoutStreams();
  actions.recompute();
}

/** Shows the step and the panel of a cause. @param {any} c */
function show(c) {
  if (typeof c.step === 'number') actions.setStep(c.step);
  const target = panel(PANEL_OF[c.panel] || 'outputs');
  if (target) {
    target.scrollIntoView({ block: 'nearest' });
    target.classList.add('flash');
    setTimeout(() => target.classList.remove('flash'), 1200);
  }
}

/** @param {any} r */
function render(r) {
  const sec = panel('diagnosis');
  const d = r.diagnosis;
  sec.hidden = !d || (!(d.causes || []).length && !(d.symptoms || []).length);
  if (sec.hidden) return;
  const ro = app.embed.readOnly;
  fill(
    $('diagnosis'),
    h('ul', { class: 'symptoms' }, (d.symptoms || []).map((/** @type {any} */ s) => h('li', { dataset: { symptom: s.kind } }, s.message))),
    h(
      'ol',
      { class: 'causes' },
      (d.causes || []).map((/** @type {any} */ c) =>
        h(
          'li',
          { class: 'cause', dataset: { cause: c.kind } },
          h('p', null, c.message),
          evidence(c.evidence),
          h(
            'div',
            { class: 'row' },
            h('button', { type: 'button', class: 'small', onclick: () => show(c) }, typeof c.step === 'number' ? `Show step ${c.step + 1} (${PANEL_OF[c.panel] || c.panel})` : `Show the ${PANEL_OF[c.panel] || c.panel} panel`),
            c.fix && !ro ? h('button', { type: 'button', class: 'small fix', title: Object.entries(c.fix.patch || {}).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join(', '), onclick: () => applyFix(c.fix) }, `Apply: ${c.fix.message}`) : null,
          ),
        ),
      ),
    ),
  );
}

registerPanel({ name: 'diagnosis', render });
