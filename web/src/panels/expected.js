// @ts-check
// The Expected result panel: whether the result meets the scenario's `expected` entry, and the
// buttons that write the current result into it.

import { h, fill } from '../dom.js';
import { checkExpected, expectedFrom } from '../expected.js';
import { app, $, actions } from '../app/state.js';
import { registerPanel } from '../app/registry.js';

/** Draws the panel from the current scenario and result. */
export function renderExpected() {
  const el = $('expected');
  const sec = $('expected-panel');
  const exp = app.scenario.expected;
  const verdict = exp !== undefined && app.result ? expectedVerdict(exp, app.result) : null;
  const ro = app.embed.readOnly || app.embed.on;
  // An open puzzle keeps its expected result hidden until it is revealed.
  if (app.puzzle && !app.puzzle.revealed) {
    sec.hidden = true;
    return;
  }
  // Without an expected result the panel stays out of the way ("use as expected" sits on Output).
  sec.hidden = exp === undefined || (!verdict && ro);
  const btns = [];
  if (!ro) {
    btns.push(
      h(
        'button',
        {
          type: 'button',
          class: 'small',
          title: 'write the current outputs and late rows into the scenario as its expected result (a quiz, a golden test)',
          onclick: useAsExpected,
        },
        verdict ? 'Replace with this result' : 'Use this result as expected',
      ),
    );
    if (exp !== undefined)
      btns.push(
        h(
          'button',
          {
            type: 'button',
            class: 'small',
            onclick: () => {
              delete app.scenario.expected;
              renderExpected();
              actions.scheduleHash();
            },
          },
          'Remove expected',
        ),
      );
  }
  if (!verdict) {
    fill(el, h('p', { class: 'note' }, exp !== undefined ? 'The scenario has an "expected" entry this page does not check (see web/EMBED.md).' : 'No expected result. A scenario may carry one: the page then says whether the result meets it.'), h('div', { class: 'row' }, btns));
    sec.classList.remove('pass', 'fail');
    return;
  }
  sec.classList.toggle('pass', verdict.ok);
  sec.classList.toggle('fail', !verdict.ok);
  fill(
    el,
    h('p', { class: `verdict ${verdict.ok ? 'pass' : 'fail'}`, dataset: { verdict: verdict.ok ? 'pass' : 'fail' } }, verdict.ok ? '✓ The result meets the expected result.' : '✗ The result does not meet the expected result.'),
    h(
      'ul',
      { class: 'checks' },
      verdict.checks.map((/** @type {any} */ c) => h('li', { class: c.ignored ? 'ignored' : c.ok ? 'pass' : 'fail' }, `${c.ignored ? '·' : c.ok ? '✓' : '✗'} ${c.what}: ${c.detail}`)),
    ),
    h('div', { class: 'row' }, btns),
  );
}

/** @param {any} r */
function checksOf(r) {
  if (!r.__checks) Object.defineProperty(r, '__checks', { value: new Map(), enumerable: false });
  return /** @type {Map<string, any>} */ (r.__checks);
}

/**
 * The check of `exp` against a result. A paged result (kept in the engine worker) comes with
 * the check of the scenario's own expected entry; another one is asked of the worker and
 * drawn when it arrives.
 * @param {any} exp @param {any} r
 */
export function expectedVerdict(exp, r) {
  if (!r.paged) return checkExpected(exp, r);
  const checks = checksOf(r);
  const key = JSON.stringify(exp);
  if (checks.has(key)) return checks.get(key);
  if (r.expected_check && app.resultScenario && JSON.stringify(app.resultScenario.expected) === key) return r.expected_check;
  if (r.fetch) {
    checks.set(key, null);
    r.fetch({ what: 'check', expected: exp }).then(
      (/** @type {any} */ v) => {
        checks.set(key, v);
        if (app.result === r) renderExpected();
      },
      () => {},
    );
  }
  return null;
}

/** Writes the current result into the scenario as its expected result. */
export function useAsExpected() {
  const r = app.result;
  if (!r) return;
  if (!r.paged) {
    app.scenario.expected = expectedFrom(r);
    renderExpected();
    actions.scheduleHash();
    return;
  }
  if (!r.fetch) return;
  r.fetch({ what: 'expected' }).then((/** @type {{ expected: any, verdict: any }} */ { expected, verdict }) => {
    if (app.result !== r) return;
    app.scenario.expected = expected;
    checksOf(r).set(JSON.stringify(expected), verdict);
    renderExpected();
    actions.scheduleHash();
  });
}

registerPanel({ name: 'expected', render: renderExpected });
