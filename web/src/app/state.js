// @ts-check
// The page's one state: the scenario being edited, the last result and how it was computed, the
// current step, the mode (embed, read-only). Modules read and change it through `app`; a change
// that needs a new run goes through update.js `recompute` (state -> run -> result -> render).

/** Time budget of a worker run (ms). */
export const BUDGET_MS = 10000;

/**
 * @typedef {import('../types/index').RunResult} RunResult
 * @typedef {{ on: boolean, readOnly: boolean, panels: Set<string> | null }} EmbedMode
 */

export const app = {
  /** @type {any} the scenario document being edited (a plain JSON object) */
  scenario: null,
  /** @type {any} the last good result (the engine's RunResult, maybe lean or paged) */
  result: null,
  /** @type {any} the scenario the result was computed from */
  resultScenario: null,
  /** @type {any} the last error result, or null */
  error: null,
  lastRunMs: 0,
  msPerRow: 0,
  lastRenderMs: 0,
  runs: 0,
  /** sequence number of the latest run; older answers are dropped */
  seq: 0,
  detailPending: false,
  /** @type {{ seq: number, json: string, rows: number } | null} a trace wanted once a panel that shows it is in view */
  detailWanted: null,
  slowRuns: 0,
  /** an untraced run's time per row has been measured */
  measured: false,
  /** why the last run went to the worker (its estimated work), or '' */
  routeReason: '',
  /** @type {Record<string, number>} the time of each part of the last render (ms) */
  timings: {},
  /** @type {number | null} the current step (null: after the last one) */
  step: null,
  /** @type {number | null} the input row selected on the timeline */
  selectedRow: null,
  /** the main thread's engine failed (a panic): every run goes to the worker */
  mainBroken: false,
  budgetMs: BUDGET_MS,
  defaultBudgetMs: BUDGET_MS,
  /** @type {EmbedMode} */
  embed: { on: false, readOnly: false, panels: null },
  /** @type {string | null} where the scenario came from (a gallery name, 'link', 'default') */
  source: null,
  /** @type {any} the stepper's window of a result too large for a full trace */
  traceWindow: null,
  /** @type {number | null} the step a link asks to start at (`step=`, 0-based here) */
  startStep: null,
  /** a link asks to play the steps (`autoplay`) */
  autoplay: false,
  /** @type {number | null} the input row hovered in any panel (app/hover.js) */
  hoverRow: null,
  /** @type {any} the open puzzle (panels/puzzle.js), or null */
  puzzle: null,
  /** @type {string[]} problems met while reading the URL, shown on the page */
  urlProblems: [],
};

/** @param {string} id */
export const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** @type {Map<string, HTMLElement>} */
const panelSections = new Map();

/**
 * The section of a panel, by its `data-panel` name (found once: an attribute selector walks the
 * whole page, and every render asks for a dozen panels).
 * @param {string} name
 */
export function panel(name) {
  let el = panelSections.get(name);
  if (!el || !el.isConnected) {
    el = /** @type {HTMLElement} */ (document.querySelector(`[data-panel="${name}"]`));
    if (el) panelSections.set(name, el);
  }
  return el;
}

/** Whether a panel is switched off (embed `panels=`). @param {string} name */
export const panelOff = (name) => panel(name).classList.contains('panel-off');

/** Calls `f`, recording its time in `app.timings[name]`. @template T @param {string} name @param {() => T} f @returns {T} */
export function timed(name, f) {
  const t0 = performance.now();
  const v = f();
  app.timings[name] = performance.now() - t0;
  return v;
}

/** The job's operator. */
export function operator() {
  return (app.scenario.job && app.scenario.job.operator) || 'window_join';
}

/** The job settings' controls (controls.js buildControls), once built. */
export const ui = {
  /** @type {any} */
  controls: null,
};

/**
 * The page's actions, bound at start-up (main.js): modules call them instead of importing each
 * other, so the update path stays one-way (state -> run -> result -> render).
 */
export const actions = {
  /** Runs the scenario as it is now and renders the result. @type {(opts?: { forceWorker?: boolean, keepUrl?: boolean, rowsOnly?: boolean }) => void} */
  recompute: () => {},
  /** Writes the scenario into the URL soon. @type {() => void} */
  scheduleHash: () => {},
  /** Opens scenario JSON text (a gallery entry, a link). @type {(text: string, source?: string) => void} */
  loadScenarioText: () => {},
  /** Shows the progress box. @type {(p: { phase: string, fraction?: number, elapsed?: number, budget?: number }) => void} */
  showProgress: () => {},
  /** Moves the current step (null: after the last one). @type {(step: number | null) => void} */
  setStep: () => {},
  /** Starts the run stream `i`'s rows `text` will ask for (a big paste still going in). @type {(i: number, text: string) => void} */
  runAhead: () => {},
};
