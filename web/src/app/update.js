// @ts-check
// The one update path: state -> run -> result -> render. An edit changes `app.scenario` and
// calls `recompute`; the scheduler runs it (here or in the worker) and hands the result to
// `apply`, which keeps it in `app.result` and draws every registered panel.

import { h, fill } from '../dom.js';
import { app, $, ui } from './state.js';
import { parseScenarioText, cloneScenario, resultCount } from './scenario.js';
import { schedule, initScheduler, runAhead as startAhead, BIG_ROWS } from './scheduler.js';
import { renderPanels } from './registry.js';
import { scheduleHash } from './share-embed.js';
import { sqlPending, sqlScenarioShown, syncScriptFromScenario } from '../sql/tab.js';
import { ensureStreams, layoutStreams, layoutStreamsVisibility, totalRows, totalRowsWith, clearErrors, markError } from '../panels/streams.js';

/**
 * Runs the scenario as it is now and renders the result.
 * @param {{ forceWorker?: boolean, keepUrl?: boolean, rowsOnly?: boolean }} [opts] `forceWorker`:
 *   run in the worker whatever its size; `keepUrl`: a freshly opened scenario keeps the address
 *   it came with; `rowsOnly`: only a stream's rows changed (a keystroke in an editor), so the
 *   settings' labels and which streams are read stay as they are
 */
export function recompute({ forceWorker = false, keepUrl = false, rowsOnly = false } = {}) {
  if (!app.scenario || sqlPending()) return;
  syncScriptFromScenario();
  if (!rowsOnly) {
    ui.controls.refresh();
    layoutStreamsVisibility();
  }
  const seq = ++app.seq;
  // A copy of the scenario as it is now (the rows are strings: shared, not copied).
  schedule(seq, cloneScenario(app.scenario), totalRows(), { forceWorker });
  // In embed mode, the "Open in Joinlab" link carries the scenario as it is now; otherwise the
  // address does, once edited.
  if (!keepUrl || app.embed.on) scheduleHash();
}

/**
 * Starts the run the scenario will ask for once stream `i`'s rows are `text` (a big paste
 * still going into its editor): the run at the end of the paste takes it over
 * (`scheduler.runAhead`).
 * @param {number} i @param {string} text
 */
export function runAhead(i, text) {
  // In a task of its own: the paste event's handler stays short (posting the rows to the worker
  // copies them).
  const seq = app.seq;
  setTimeout(() => {
    if (seq !== app.seq || !app.scenario || sqlPending() || !app.scenario.streams || !app.scenario.streams[i]) return;
    const snapshot = cloneScenario(app.scenario);
    snapshot.streams[i].rows = text;
    // The rows as `totalRows` will count them at the end (the other editors' lines and this
    // text's), counted only as far as the worker's threshold decides.
    let lines = 1;
    for (let at = text.indexOf('\n'); at >= 0 && lines <= BIG_ROWS; at = text.indexOf('\n', at + 1)) lines++;
    startAhead(snapshot, totalRowsWith(i, lines));
  }, 0);
}

/** Draws every panel from `app.result`. */
export function renderAll() {
  const r = app.result;
  // A run without the trace while the worker computes it: keep the old pictures (greyed).
  const waitDetail = !r.trace && (app.detailPending || !!app.detailWanted);
  renderPanels(r, { waitDetail });
}

/**
 * Takes a run's result (or error object) computed from `snapshot`.
 * @param {any} result @param {any} snapshot @param {number} ms @param {boolean} viaWorker
 */
function apply(result, snapshot, ms, viaWorker) {
  app.runs++;
  const t0 = performance.now();
  const status = $('status');
  if (!result || result.error) {
    app.error = result;
    const msg = markError(result || { message: 'the engine returned nothing' });
    status.className = 'status error';
    fill(status, h('strong', null, 'Not run: '), msg, app.result ? h('span', { class: 'note' }, ' — the panels show the last good result.') : null);
    $('results').classList.toggle('stale', !!app.result);
    document.body.classList.toggle('has-stale', !!app.result);
    app.lastRenderMs = performance.now() - t0;
    return;
  }
  clearErrors();
  app.error = null;
  app.result = result;
  app.resultScenario = snapshot;
  $('results').classList.remove('stale');
  document.body.classList.remove('has-stale');
  renderAll();
  app.lastRenderMs = performance.now() - t0;
  status.className = 'status ok';
  status.textContent = `✓ ${summary(result)} · ${result.steps} steps · engine ${ms.toFixed(1)} ms${viaWorker ? ' (worker)' : ''}, drawing ${app.lastRenderMs.toFixed(1)} ms`;
}

/** "3 outputs, 1 window result, 0 late, 2 to side outputs". @param {any} result */
function summary(result) {
  const nOut = resultCount(result, 'outputs');
  const nWin = resultCount(result, 'windows');
  const parts = [`${nOut} output${nOut === 1 ? '' : 's'}`];
  if (nWin) parts.push(`${nWin} window result${nWin === 1 ? '' : 's'}`);
  parts.push(`${resultCount(result, 'late')} late`);
  const side = Object.keys(result.side_outputs || {}).reduce((a, tag) => a + resultCount(result, undefined, tag), 0);
  if (side) parts.push(`${side} to side outputs`);
  return parts.join(', ');
}

initScheduler({
  apply,
  applyTrace(result) {
    app.result = result;
    renderAll();
  },
  traceFailed: (message) => fill($('timeline'), h('p', { class: 'empty' }, message)),
});

/**
 * Opens a scenario object (from `source`: a gallery name, 'link', 'default').
 * @param {any} sc @param {string} [source]
 */
export function loadScenarioObject(sc, source) {
  showScenario(sc, source);
  // A freshly opened scenario keeps the address it came with; edits then write #s=… into it.
  recompute({ keepUrl: true });
}

/**
 * Puts a scenario into the state and the editors, without running it (start-up runs it in the
 * next task).
 * @param {any} sc @param {string} [source]
 */
export function showScenario(sc, source) {
  app.scenario = sc;
  app.source = source || null;
  app.step = null;
  app.selectedRow = null;
  // What a row of the last scenario cost says nothing about this one.
  app.measured = false;
  app.msPerRow = 0;
  app.slowRuns = 0;
  app.result = null;
  app.error = null;
  // A loaded scenario keeps its streams; only an empty one gets a stream to type into.
  if (!app.scenario.streams.length) ensureStreams();
  /** @type {HTMLInputElement} */ ($('title')).value = sc.title || '';
  /** @type {HTMLTextAreaElement} */ ($('description')).value = sc.description || '';
  $('description-view').textContent = sc.description || '';
  $('embed-title').textContent = sc.title || 'Joinlab';
  if (sc.title) document.title = `${sc.title} — Joinlab`;
  ui.controls.load();
  layoutStreams();
  sqlScenarioShown(sc);
}

/** Opens scenario JSON text. Throws ShareError when it is not a scenario. @param {string} text @param {string} [source] */
export function loadScenarioText(text, source) {
  loadScenarioObject(parseScenarioText(text), source);
}
