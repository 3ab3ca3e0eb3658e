// @ts-check
// The puzzle panel: a question about the scenario, Check (does the result meet the puzzle's
// expected result yet?) and Reveal (the built-in puzzle's solution applied; a shared puzzle's
// expected result shown). While a puzzle is open the Expected panel stays hidden: its verdict
// would give the answer away.

import { h, fill } from '../dom.js';
import { runSync } from '../engine.js';
import { expectedFrom } from '../expected.js';
import { findScenario } from '../gallery.js';
import { app, $, panel, actions, ui } from '../app/state.js';
import { registerPanel } from '../app/registry.js';
import { parseScenarioText } from '../app/scenario.js';
import { findPuzzle, markProgress, setPath } from '../puzzles.js';
import { expectedVerdict, renderExpected } from './expected.js';
import { layoutStreams } from './streams.js';

/**
 * @typedef {{ id: string | null, title: string, question: string, solution: Record<string, unknown> | null, revealed: boolean, message: string, ok: boolean | null }} OpenPuzzle
 */

/** The puzzle's scenario with its expected result: the engine's result with the solution applied. @param {string} id */
export function puzzleScenario(id) {
  const pz = findPuzzle(id);
  if (!pz) throw new Error(`there is no puzzle named "${id.slice(0, 40)}"`);
  const g = findScenario(pz.scenario);
  if (!g) throw new Error(`the puzzle "${id}" needs the gallery scenario ${pz.scenario}, which is not bundled`);
  const sc = parseScenarioText(g.text);
  for (const [path, v] of Object.entries(pz.setup || {})) setPath(sc, path, v);
  const solved = JSON.parse(JSON.stringify(sc));
  for (const [path, v] of Object.entries(pz.solution)) setPath(solved, path, v);
  const { result } = runSync(JSON.stringify(solved), false);
  if (!result || result.error) throw new Error(`the puzzle's solution does not run: ${(result && result.message) || 'no result'}`);
  sc.expected = expectedFrom(result);
  return { pz, sc };
}

/** Opens a built-in puzzle. @param {string} id */
export function openPuzzle(id) {
  const { pz, sc } = puzzleScenario(id);
  /** @type {OpenPuzzle} */
  const open = { id: pz.id, title: pz.title, question: pz.question, solution: pz.solution, revealed: false, message: '', ok: null };
  app.puzzle = open;
  actions.loadScenarioText(JSON.stringify(sc), `puzzle:${pz.id}`);
  app.puzzle = open;
  if (!app.embed.on) window.history.replaceState(null, '', `${window.location.pathname}#puzzle=${encodeURIComponent(pz.id)}`);
  render();
}

/** Turns the open scenario into a shared puzzle (a link with `&puzzle`): its description is the question. */
export function openSharedPuzzle() {
  app.puzzle = { id: null, title: app.scenario.title || 'Puzzle', question: app.scenario.description || 'Change the scenario so that its result meets the expected result.', solution: null, revealed: false, message: '', ok: null };
  render();
}

function check() {
  const pz = app.puzzle;
  if (!pz || !app.result) return;
  const v = expectedVerdict(app.scenario.expected, app.result);
  if (!v) {
    pz.message = 'The check is not ready yet; try again in a moment.';
    pz.ok = null;
  } else if (v.ok) {
    pz.ok = true;
    pz.message = pz.revealed ? '✓ The result meets the expected result (revealed).' : '✓ Solved: the result meets the expected result.';
    if (pz.id && !pz.revealed) markProgress(pz.id, 'solved');
  } else {
    pz.ok = false;
    const off = v.checks.filter((/** @type {any} */ c) => !c.ok && !c.ignored).map((/** @type {any} */ c) => c.what);
    pz.message = `✗ Not yet: ${off.join(', ')} differ${off.length === 1 ? 's' : ''} from the expected result.`;
  }
  render();
}

function reveal() {
  const pz = app.puzzle;
  if (!pz) return;
  pz.revealed = true;
  if (pz.id) markProgress(pz.id, 'revealed');
  if (pz.solution) {
    for (const [path, v] of Object.entries(pz.solution)) setPath(app.scenario, path, v);
    ui.controls.load();
    layoutStreams();
    actions.recompute();
    pz.message = `The solution: ${Object.entries(pz.solution)
      .map(([k, v]) => (v === null ? `remove ${k}` : `${k} = ${JSON.stringify(v)}`))
      .join(', ')}.`;
  } else pz.message = 'The expected result is shown in the Expected result panel.';
  renderExpected();
  render();
}

function close() {
  app.puzzle = null;
  render();
  renderExpected();
}

function render() {
  const sec = panel('puzzle');
  const pz = app.puzzle;
  sec.hidden = !pz;
  if (!pz) return;
  fill(
    $('puzzle'),
    h('h2', null, `Puzzle: ${pz.title}`),
    h('p', { class: 'question' }, pz.question),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'button', class: 'check', onclick: check }, 'Check'),
      h('button', { type: 'button', class: 'reveal', onclick: reveal }, 'Reveal'),
      h('button', { type: 'button', class: 'small', onclick: close }, 'Leave the puzzle'),
    ),
    h('p', { class: `puzzle-status${pz.ok === true ? ' pass' : pz.ok === false ? ' fail' : ''}`, role: 'status', dataset: { ok: pz.ok === null ? '' : String(pz.ok) } }, pz.message),
  );
}

registerPanel({
  name: 'puzzle',
  render() {
    // A new result after an edit: the last check no longer speaks for it.
    const pz = app.puzzle;
    if (pz && pz.ok !== null) {
      pz.ok = null;
      pz.message = 'Changed: Check again.';
    }
    render();
  },
});
