// @ts-check
// Joinlab playground: start-up. The page is one state (app/state.js) and one update path
// (app/update.js: state -> run -> result -> render); each panel is a module under panels/ that
// registers itself (app/registry.js), imported here in drawing order.

import './style.css';
import './timeline.css';
import { h, fill } from './dom.js';
import { loadEngine, wasm, runSync, durationError, needsOps, loadOps } from './engine.js';
import { defaultScenarioText } from './gallery.js';
import { buildControls, STREAM_WATERMARK_ITEMS, GROUPS } from './controls.js';
import { ShareError } from './share.js';
import { app, $, ui, actions } from './app/state.js';
import { resultCount, parseScenarioText } from './app/scenario.js';
import { readMode, scenarioFromLocation } from './app/location.js';
import { recompute, loadScenarioText, showScenario, runAhead } from './app/update.js';
import { showProgress, requestDetailWhenSeen, cancelRun, dropAhead } from './app/scheduler.js';
import { setStep, play } from './app/playback.js';
import { watchTracePanels, onVisibilityChange } from './app/visibility.js';
import { scheduleHash, compactJson, shareUrl, embedSnippet, wireShareEmbed, isOwnHash } from './app/share-embed.js';
import { buildGallery } from './app/gallery-ui.js';
import { PUZZLES } from './puzzles.js';
// The result panels, in drawing order.
import { buildPlaybackBar } from './panels/playback-bar.js';
import { openPuzzle, openSharedPuzzle } from './panels/puzzle.js';
import './panels/diagnosis.js';
import { useAsExpected } from './panels/expected.js';
import './panels/outputs.js';
import './panels/windows.js';
import './panels/late.js';
import './panels/side.js';
import './panels/state.js';
import { wireKeys } from './panels/keys.js';
import './panels/warnings.js';
import './panels/verdicts.js';
import './panels/watermarks.js';
import './panels/timeline-panel.js';
import './panels/stepper-panel.js';
import { wireExport } from './panels/export.js';
import { wireCompare } from './panels/compare.js';
import { wireSqlTab, sqlTimings } from './sql/tab.js';
import { streamPanels, ensureStreams, layoutStreams, prebuildStream } from './panels/streams.js';

export { BIG_ROWS, SLOW_MS, SYNC_TRACE_ROWS, SNAPSHOT_ROWS, TRACE_ROWS } from './app/scheduler.js';
export { BUDGET_MS } from './app/state.js';
export { cloneScenario, resultCount } from './app/scenario.js';
export { compareVariants } from './panels/compare.js';
export { WINDOW_STEPS, WINDOW_ROWS } from './app/trace-window.js';

Object.assign(actions, { recompute, scheduleHash, loadScenarioText, showProgress, setStep, runAhead });

/** Shows a message in the status line. @param {...any} parts */
function showProblem(...parts) {
  const s = $('status');
  s.className = 'status error';
  fill(s, ...parts);
}

function wire() {
  wireShareEmbed();
  wireSqlTab();
  $('btn-set-expected').addEventListener('click', useAsExpected);
  $('progress-cancel').addEventListener('click', () => {
    const pasting = streamPanels.filter((p) => p.editor.pasting);
    if (pasting.length) {
      for (const p of pasting) p.editor.abortPaste();
      dropAhead();
      $('progress').hidden = true;
      return;
    }
    cancelRun();
  });
  $('stopped-retry').addEventListener('click', () => {
    app.budgetMs = 60000;
    recompute({ forceWorker: true });
  });
  const title = /** @type {HTMLInputElement} */ ($('title'));
  const description = /** @type {HTMLTextAreaElement} */ ($('description'));
  title.addEventListener('input', () => {
    if (title.value) app.scenario.title = title.value;
    else delete app.scenario.title;
    scheduleHash();
  });
  description.addEventListener('input', () => {
    const v = description.value;
    if (v) app.scenario.description = v;
    else delete app.scenario.description;
    $('description-view').textContent = v;
    scheduleHash();
  });
  wireKeys(requestDetailWhenSeen);
  wireExport();
  wireCompare();
  window.addEventListener('hashchange', () => {
    if (app.embed.on || isOwnHash()) return;
    openFromLocation();
  });
}

/** Opens the scenario the URL names (or the default one), saying on the page what was wrong with it. */
async function openFromLocation() {
  const p = readMode();
  let loaded = null;
  let problem = null;
  try {
    loaded = await scenarioFromLocation(p);
  } catch (e) {
    problem = e instanceof ShareError ? e.message : `the link could not be read: ${e}`;
  }
  app.puzzle = null;
  if (loaded && loaded.puzzle) {
    try {
      openPuzzle(loaded.puzzle);
      finishOpen(p, null);
      return;
    } catch (e) {
      problem = String(/** @type {Error} */ (e).message || e);
      loaded = null;
    }
  }
  try {
    if (loaded) showScenario(parseScenarioText(loaded.text), loaded.source);
    else showScenario(parseScenarioText(defaultScenarioText()), 'default');
  } catch (e) {
    problem = e instanceof ShareError ? e.message : String(e);
    showScenario(parseScenarioText(defaultScenarioText()), 'default');
  }
  // The editors show the scenario; it runs in the next task (a scenario of the SQL operators
  // once their module is loaded, so that the page is ready with its result).
  await nextTask();
  if (needsOps(app.scenario)) await loadOps().catch(() => {});
  recompute({ keepUrl: true });
  // A shared link with `puzzle`: the scenario (with its expected result) is a puzzle.
  if (loaded && p.has('puzzle') && app.scenario.expected !== undefined) openSharedPuzzle();
  finishOpen(p, problem);
}

/**
 * What follows opening a link: its first step, autoplay, and what was wrong with it.
 * @param {Map<string, string>} p @param {string | null} problem
 */
function finishOpen(p, problem) {
  if (app.startStep !== null) setStep(app.startStep);
  if (app.autoplay) play();
  const notes = app.urlProblems.slice();
  if (problem) showProblem(h('strong', null, 'This link could not be opened: '), problem, '. The default scenario is shown instead.', notes.length ? ` Also: ${notes.join('; ')}.` : '');
  else if (notes.length) {
    // The scenario opened; what was wrong with the other parameters goes beside the result.
    $('status').append(h('span', { class: 'url-problems', role: 'alert' }, ` · In this link, ${notes.join('; ')}.`));
  }
}

/** Resolves in a new task (after the browser had a chance to handle input and paint). */
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

async function main() {
  performance.mark('jl:main');
  try {
    readMode();
  } catch (e) {
    console.error(e);
  }
  wire();
  buildPlaybackBar();
  watchTracePanels();
  onVisibilityChange(requestDetailWhenSeen);
  buildGallery();
  try {
    await loadEngine();
  } catch (e) {
    showProblem(`The engine (WebAssembly) could not be loaded: ${e}`);
    return;
  }
  performance.mark('jl:engine');
  // Start-up is cut into tasks (engine, warm-up, controls, the link's scenario): none of them
  // holds the main thread for long, and the page's timing marks say which one took how long.
  await nextTask();
  $('engine-version').textContent = `Joinlab engine ${wasm.version()}`;
  // Warm the module up (the first call compiles and grows memory) so that the first real run's
  // time says something about the scenario, not about start-up.
  runSync(defaultScenarioText(), true);
  performance.mark('jl:warm');
  await nextTask();
  ui.controls = buildControls($('controls'), {
    get scenario() {
      return app.scenario;
    },
    onChange: (/** @type {string} */ path) => {
      if (path === 'job.operator') {
        ensureStreams();
        layoutStreams();
      }
      if (path === 'job.watermark.strategy' || path === 'job.window.kind') ui.controls.refresh();
      recompute();
    },
    validateDuration: durationError,
    get readOnly() {
      return app.embed.readOnly;
    },
  });
  performance.mark('jl:controls');
  await nextTask();
  for (let i = 0; i < 2; i++) {
    prebuildStream();
    await nextTask();
  }
  // What follows depends on the link (tests/browser/hostile-links.test.mjs times it from here).
  performance.mark('jl:link');
  try {
    await openFromLocation();
  } catch (e) {
    console.error(e);
    showProblem(h('strong', null, 'The page could not open this link: '), String(e));
  }
  performance.mark('jl:opened');
  document.body.classList.add('ready');
  // For tests and benchmarks.
  /** @type {any} */ (window).__joinlab = {
    app,
    recompute,
    get result() {
      return app.result;
    },
    get error() {
      return app.error;
    },
    /** The length of a list of the result (`outputs`, `late`, …; a side output by tag), paged or not. */
    count: (/** @type {string} */ field, /** @type {string} */ tag) => resultCount(app.result, field, tag),
    compactJson,
    shareUrl,
    sql: sqlTimings,
    get editors() {
      return streamPanels.map((p) => p.editor);
    },
    embedSnippet,
    loadScenarioText,
    setStep,
    puzzles: () => PUZZLES.map((p) => p.id),
    normalize: (/** @type {string} */ json) => wasm.normalize(json),
    controlPaths: () =>
      GROUPS.flatMap((/** @type {any} */ g) => g.items)
        .concat(STREAM_WATERMARK_ITEMS(0))
        .map((/** @type {any} */ i) => ({ path: i.path, type: i.type, def: i.def, options: i.options ? i.options.map((/** @type {any} */ o) => o[0]) : null })),
  };
}

main();
