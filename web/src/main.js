// Joinlab playground: wires the editors and controls to the engine (wasm) and draws the result.

import './style.css';
import './timeline.css';
import { h, fill } from './dom.js';
import { loadEngine, wasm, runSync, durationError, WorkerRunner } from './engine.js';
import { GALLERY, findScenario, defaultScenarioText } from './gallery.js';
import { createRowsEditor } from './editor.js';
import { buildControls, buildControl, controlSet, STREAM_WATERMARK_ITEMS, TWO_INPUTS, GROUPS } from './controls.js';
import { columnNames } from './scenario-path.js';
import { fmtDuration } from './format.js';
import { encodeScenario, decodeScenario, decodePlain, locationParams, ShareError } from './share.js';
import { checkExpected, expectedFrom } from './expected.js';
import { renderOutputs, renderLate, renderSide, renderWindows, renderWatermarks, renderKeys, renderState, renderWarnings, renderVerdicts, setCount } from './panels.js';
import { renderTimeline, renderComparison } from './timeline.js';
import { renderStepper } from './stepper.js';
import { exportJob } from './export-runtime.js';

/** Inputs with more rows than this run in the worker. */
export const BIG_ROWS = 20000;
/** A run slower than this (ms) sends the next ones to the worker. */
export const SLOW_MS = 30;
/** Inputs up to this many rows get the trace in the same frame; larger ones get it from the worker. */
export const SYNC_TRACE_ROWS = 300;
/** Traces of inputs up to this many rows carry a state snapshot per step (they grow quadratically). */
export const SNAPSHOT_ROWS = 2000;
/** Inputs with more rows than this run without the step-by-step trace. */
export const TRACE_ROWS = 20000;
/** Time budget of a worker run (ms). */
export const BUDGET_MS = 10000;
/** Largest scenario JSON the page keeps in the URL as you type. */
const MAX_AUTO_URL_JSON = 1_000_000;

const ALL_PANELS = ['streams', 'job', 'expected', 'outputs', 'windows', 'late', 'side', 'verdicts', 'watermarks', 'state', 'keys', 'warnings', 'timeline', 'stepper', 'compare', 'export', 'about'];
const DEFAULT_EMBED_PANELS = ['streams', 'expected', 'outputs', 'windows', 'late', 'side', 'warnings'];
const EMBED_CHOICES = ['streams', 'job', 'outputs', 'late', 'side', 'windows', 'verdicts', 'watermarks', 'timeline', 'stepper', 'expected', 'state', 'warnings'];

const $ = (id) => document.getElementById(id);

const app = {
  scenario: null,
  result: null,
  resultScenario: null,
  error: null,
  lastRunMs: 0,
  msPerRow: 0,
  lastRenderMs: 0,
  runs: 0,
  seq: 0,
  detailPending: false,
  slowRuns: 0,
  timings: {},
  step: null,
  selectedRow: null,
  mainBroken: false,
  budgetMs: BUDGET_MS,
  defaultBudgetMs: BUDGET_MS,
  embed: { on: false, readOnly: false, panels: null },
  source: null,
};

const worker = new WorkerRunner();
const detailWorker = new WorkerRunner();
let controls = null;
const streamPanels = [];

// ---------------------------------------------------------------- location and modes

function readMode() {
  const p = locationParams(window.location);
  const on = p.has('embed');
  let panels = null;
  if (p.has('panels')) {
    panels = new Set(
      decodeURIComponent(p.get('panels') || '')
        .split(',')
        .map((s) => s.trim())
        .filter((s) => ALL_PANELS.includes(s)),
    );
  } else if (on) panels = new Set(DEFAULT_EMBED_PANELS);
  if (p.has('budget')) {
    const b = Number(p.get('budget'));
    if (Number.isFinite(b) && b > 0) app.budgetMs = app.defaultBudgetMs = Math.min(b, 600000);
  }
  app.embed = { on, readOnly: p.has('readonly') && p.get('readonly') !== '0' && p.get('readonly') !== 'false', panels };
  document.body.classList.toggle('embed', on);
  document.body.classList.toggle('readonly', app.embed.readOnly);
  for (const sec of document.querySelectorAll('[data-panel]')) {
    const name = sec.dataset.panel;
    sec.classList.toggle('panel-off', !!panels && !panels.has(name));
  }
  return p;
}

/** The scenario JSON text named by the URL (s=, j=, scenario=), or null. Throws ShareError. */
async function scenarioFromLocation(p) {
  if (p.has('s')) return { text: await decodeScenario(p.get('s')), source: 'link' };
  if (p.has('j')) return { text: decodePlain(p.get('j')), source: 'link' };
  if (p.has('scenario')) {
    const name = decodeURIComponent(p.get('scenario'));
    const g = findScenario(name);
    if (!g) throw new ShareError(`there is no gallery scenario named "${name}"`);
    return { text: g.text, source: name };
  }
  return null;
}

// ---------------------------------------------------------------- scenario model

function parseScenarioText(text) {
  let sc;
  try {
    sc = JSON.parse(text);
  } catch (e) {
    throw new ShareError(`the scenario is not valid JSON: ${e.message}`);
  }
  if (!sc || typeof sc !== 'object' || Array.isArray(sc)) throw new ShareError('the scenario is not a JSON object');
  if (!Array.isArray(sc.streams)) sc.streams = [];
  sc.streams = sc.streams.filter((s) => s && typeof s === 'object');
  for (const s of sc.streams) {
    if (typeof s.rows !== 'string') s.rows = s.rows === undefined ? '' : String(s.rows);
    if (!Array.isArray(s.columns)) s.columns = [];
    if (typeof s.name !== 'string') s.name = String(s.name ?? '');
  }
  if (!sc.job || typeof sc.job !== 'object') sc.job = {};
  return sc;
}

function operator() {
  return (app.scenario.job && app.scenario.job.operator) || 'window_join';
}

function ensureStreams() {
  const sc = app.scenario;
  const need = TWO_INPUTS.has(operator()) ? 2 : 1;
  while (sc.streams.length < need) {
    const first = sc.streams[0];
    if (!first) sc.streams.push({ name: 'left', columns: ['key', 'ts'], key: 'key', time: 'ts', rows: '' });
    else sc.streams.push({ name: first.name === 'right' ? 'right2' : 'right', columns: first.columns.slice(), key: first.key, time: first.time, rows: '' });
  }
}

function totalRows() {
  let n = 0;
  for (const p of streamPanels) if (p.visible) n += p.editor.lines();
  return n;
}

// ---------------------------------------------------------------- stream panels

function buildStreamPanel(i) {
  const ctx = {
    get scenario() {
      return app.scenario;
    },
    onChange: () => {
      recompute();
    },
    validateDuration: durationError,
    get readOnly() {
      return app.embed.readOnly;
    },
  };
  const name = h('input', { type: 'text', class: 'stream-name', spellcheck: 'false', 'aria-label': `stream ${i + 1} name` });
  const columns = h('input', { type: 'text', class: 'stream-columns', spellcheck: 'false', 'aria-label': `stream ${i + 1} columns`, title: 'column names, comma separated; optionally typed: n:int, amount:double' });
  const key = h('select', { class: 'stream-key', 'aria-label': `stream ${i + 1} key column` });
  const time = h('select', { class: 'stream-time', 'aria-label': `stream ${i + 1} time column` });
  const ownWm = h('input', { type: 'checkbox', class: 'stream-own-wm' });
  const wmBox = h('div', { class: 'stream-wm' });
  const errs = {
    name: h('div', { class: 'control-error' }),
    columns: h('div', { class: 'control-error' }),
    key: h('div', { class: 'control-error' }),
    time: h('div', { class: 'control-error' }),
  };
  const editorErr = h('div', { class: 'editor-error', role: 'alert' });
  const editorHost = h('div', { class: 'editor-host' });
  const note = h('p', { class: 'note ignored-note' }, 'This operator reads only the first stream; these rows are ignored.');
  const wmCtl = controlSet(STREAM_WATERMARK_ITEMS(i).map((item) => buildControl(item, ctx)));
  for (const c of wmCtl.controls) wmBox.append(c.el);

  const el = h(
    'div',
    { class: 'stream', dataset: { stream: String(i) } },
    h(
      'div',
      { class: 'stream-head' },
      h('label', { class: 'field' }, h('span', null, i === 0 ? 'Left stream' : 'Right stream'), name, errs.name),
      h('label', { class: 'field wide' }, h('span', null, 'Columns'), columns, errs.columns),
      h('label', { class: 'field' }, h('span', null, 'Key'), key, errs.key),
      h('label', { class: 'field' }, h('span', null, 'Time'), time, errs.time),
    ),
    note,
    editorHost,
    editorErr,
    h('details', { class: 'stream-wm-details' }, h('summary', null, h('label', null, ownWm, ' own watermark settings for this stream')), wmBox),
  );

  const spec = () => app.scenario.streams[i];
  const editor = createRowsEditor(editorHost, {
    label: `rows of stream ${i + 1}`,
    onChange: (text) => {
      if (!spec()) return;
      spec().rows = text;
      recompute();
    },
    // A big paste goes into the editor in slices: the progress bar shows how far it got.
    onPaste: ({ done, total }) => showProgress({ phase: 'pasting', fraction: total ? done / total : 0 }),
  });

  function colOptions(sel, cur) {
    const cols = columnNames(spec());
    const opts = [h('option', { value: '' }, '(none)'), ...cols.map((c) => h('option', { value: c }, c))];
    if (cur && !cols.includes(cur)) opts.push(h('option', { value: cur }, `${cur} (no such column)`));
    fill(sel, ...opts);
    sel.value = cur || '';
  }

  name.addEventListener('input', () => {
    spec().name = name.value;
    recompute();
  });
  columns.addEventListener('input', () => {
    spec().columns = columns.value
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean);
    colOptions(key, spec().key);
    colOptions(time, spec().time);
    if (i === 0) controls.load();
    recompute();
  });
  for (const [sel, field] of [
    [key, 'key'],
    [time, 'time'],
  ]) {
    sel.addEventListener('change', () => {
      if (sel.value) spec()[field] = sel.value;
      else delete spec()[field];
      recompute();
    });
  }
  ownWm.addEventListener('change', () => {
    if (ownWm.checked) spec().watermark = JSON.parse(JSON.stringify((app.scenario.job && app.scenario.job.watermark) || {}));
    else delete spec().watermark;
    wmBox.hidden = !ownWm.checked;
    if (ownWm.checked) el.querySelector('.stream-wm-details').open = true;
    wmCtl.load();
    recompute();
  });

  const panel = {
    el,
    editor,
    visible: true,
    wmCtl,
    load() {
      const s = spec();
      if (!s) return;
      if (document.activeElement !== name) name.value = s.name;
      if (document.activeElement !== columns) columns.value = s.columns.join(', ');
      colOptions(key, s.key);
      colOptions(time, s.time);
      ownWm.checked = !!s.watermark;
      wmBox.hidden = !s.watermark;
      el.querySelector('.stream-wm-details').open = !!s.watermark;
      wmCtl.load();
      if (editor.getText() !== s.rows) editor.setText(s.rows);
      for (const x of [name, columns, key, time, ownWm]) x.disabled = app.embed.readOnly;
      editor.setReadOnly(app.embed.readOnly);
    },
    clearErrors() {
      for (const e of Object.values(errs)) e.textContent = '';
      el.classList.remove('invalid');
      editorErr.textContent = '';
      editor.clearError();
      wmCtl.clearErrors(true);
    },
    rowError(line, column, message) {
      editor.setError(line, column, message);
      editorErr.textContent = `line ${line}, column ${column}: ${message}`;
    },
    fieldError(field, message) {
      const e = errs[field] || errs.columns;
      e.textContent = message;
      el.classList.add('invalid');
    },
  };
  return panel;
}

function layoutStreams() {
  const container = $('streams');
  const sc = app.scenario;
  const two = TWO_INPUTS.has(operator());
  while (streamPanels.length < Math.max(2, sc.streams.length)) {
    const p = buildStreamPanel(streamPanels.length);
    streamPanels.push(p);
    container.append(p.el);
  }
  streamPanels.forEach((p, i) => {
    const exists = i < sc.streams.length;
    p.visible = exists && (two || i === 0);
    p.el.hidden = !exists;
    p.el.classList.toggle('ignored', exists && !two && i > 0);
    if (exists) p.load();
  });
}

// ---------------------------------------------------------------- loading

function loadScenarioObject(sc, source) {
  app.scenario = sc;
  app.source = source || null;
  app.step = null;
  app.selectedRow = null;
  app.result = null;
  app.error = null;
  ensureStreamsForLoad();
  $('title').value = sc.title || '';
  $('description').value = sc.description || '';
  $('description-view').textContent = sc.description || '';
  $('embed-title').textContent = sc.title || 'Joinlab';
  if (sc.title) document.title = `${sc.title} — Joinlab`;
  controls.load();
  layoutStreams();
  // A freshly opened scenario keeps the address it came with; edits then write #s=… into it.
  recompute({ keepUrl: true });
}

function ensureStreamsForLoad() {
  // A loaded scenario keeps its streams; only an empty one gets a stream to type into.
  if (!app.scenario.streams.length) ensureStreams();
}

function loadScenarioText(text, source) {
  loadScenarioObject(parseScenarioText(text), source);
}

function showBanner(message) {
  const s = $('status');
  s.className = 'status error';
  s.textContent = message;
}

// ---------------------------------------------------------------- running

let pendingHash = null;

function recompute({ forceWorker = false, keepUrl = false } = {}) {
  if (!app.scenario) return;
  controls.refresh();
  layoutStreamsVisibility();
  const seq = ++app.seq;
  // A copy of the scenario as it is now (the rows are strings: shared, not copied).
  const snapshot = cloneScenario(app.scenario);
  const rows = totalRows();
  const trace = rows <= TRACE_ROWS;
  // How long an untraced run of this many rows is expected to take, from the last one.
  const predicted = app.msPerRow * rows;
  const big = forceWorker || app.mainBroken || rows > BIG_ROWS || predicted > 4 * SLOW_MS || (app.slowRuns >= 2 && predicted > SLOW_MS);
  $('stopped').hidden = true;
  setDetailPending(false);
  app.detailWanted = null;
  if (!big) {
    if (worker.busy) worker.terminate();
    $('progress').hidden = true;
    // Small inputs: everything, trace included, in this frame. Larger ones: the tables now
    // (no trace), the trace for the timeline, stepper and verdicts from the worker right after.
    const inline = trace && rows <= SYNC_TRACE_ROWS;
    const json = JSON.stringify(snapshot);
    const { result, ms } = runSync(json, inline);
    if (!inline) noteRunTime(ms, rows);
    else app.lastRunMs = ms;
    if (result && result.error && result.error.kind === 'internal') app.mainBroken = true;
    const wantDetail = trace && !inline && result && !result.error;
    if (wantDetail) wantTrace(seq, json, rows);
    apply(result, snapshot, ms, false);
    if (wantDetail) requestDetailWhenSeen();
  } else {
    if (detailWorker.busy) detailWorker.terminate();
    showProgress({ phase: 'starting', fraction: 0 });
    // The scenario object, not its JSON: the worker serialises it (and keeps the rows it has).
    // The run is untraced, for the tables; as on the main thread, the trace (for the timeline,
    // stepper and verdicts) comes from the other worker right after.
    worker
      .run(snapshot, false, {
        budgetMs: app.budgetMs,
        lite: true,
        onProgress: showProgress,
      })
      .then(({ result, ms }) => {
        if (seq !== app.seq) return;
        $('progress').hidden = true;
        noteRunTime(ms, rows);
        app.budgetMs = app.defaultBudgetMs;
        const wantDetail = trace && result && !result.error;
        if (wantDetail) wantTrace(seq, JSON.stringify(snapshot), rows);
        apply(result, snapshot, ms, true);
        if (wantDetail) requestDetailWhenSeen();
      })
      .catch((e) => {
        if (e.reason === 'superseded') return;
        $('progress').hidden = true;
        $('stopped').hidden = false;
        const tail = app.result ? ' The panels show the last result that finished.' : '';
        $('stopped-text').textContent =
          e.reason === 'timeout'
            ? `${e.message}, so it was stopped instead of freezing the page. Fewer rows, a narrower window or interval, or a longer budget may help.${tail}`
            : `${e.message}.${tail}`;
        $('stopped-retry').hidden = e.reason !== 'timeout' && e.reason !== 'cancel';
        document.body.classList.add('has-stale');
        $('results').classList.add('stale');
      });
  }
  if (keepUrl) updateOpenLink();
  else scheduleHash();
}

/** In embed mode, the "Open in Joinlab" link carries the scenario as it is now. */
function updateOpenLink() {
  if (app.embed.on) scheduleHash();
}

/**
 * A trace without per-step state snapshots gets `result.stateAt(step)`: the state and pending
 * timers of every operator subtask right after that step (the engine's `state_at`, which runs
 * the scenario up to the step).
 */
function attachStateAt(result, json) {
  if (!result || result.error || !result.trace || typeof wasm.state_at !== 'function') return;
  if (result.trace.some((s) => s.state && s.state.length)) return;
  Object.defineProperty(result, 'stateAt', { value: (step) => wasm.state_at(json, step), enumerable: false });
}

// ---------------------------------------------------------------- the trace's panels in view

/**
 * The panels drawn from the trace: the timeline, the stepper, the verdicts, the watermarks'
 * values before end of input and per channel, the key routing (when open).
 */
const TRACE_PANELS = ['timeline', 'stepper', 'verdicts', 'watermarks', 'keys'];
/** Those of them on screen or within 300 px of it (IntersectionObserver). */
const inView = new Set();
/** Panels whose picture is older than the result (drawn when they scroll into view). */
const dirtyPanels = new Set();

function watchTracePanels() {
  if (typeof IntersectionObserver !== 'function') {
    for (const name of TRACE_PANELS) inView.add(name);
    return;
  }
  const io = new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        if (e.isIntersecting) inView.add(e.target.dataset.panel);
        else inView.delete(e.target.dataset.panel);
      }
      requestDetailWhenSeen();
      drawDirtyPanels();
    },
    { rootMargin: '300px 0px' },
  );
  for (const name of TRACE_PANELS) io.observe(panel(name));
}

/** Whether the panel is switched on and on screen (or near it). */
function seen(name) {
  const sec = panel(name);
  if (!inView.has(name) || sec.classList.contains('panel-off') || sec.hidden) return false;
  const details = name === 'keys' && sec.querySelector('details');
  return !details || details.open;
}

/**
 * Notes that the current result wants its trace (inputs over SYNC_TRACE_ROWS rows get it from
 * the worker after the tables). It is asked for only while a panel that shows it is in view:
 * typing into a 1,000-row scenario with the timeline, the stepper and the verdicts scrolled
 * away costs no trace run, no parse of a few MB of JSON and no redraw per keystroke.
 */
function wantTrace(seq, json, rows) {
  app.detailWanted = { seq, json, rows };
}

function requestDetailWhenSeen() {
  const w = app.detailWanted;
  if (!w || w.seq !== app.seq || app.detailPending) return;
  if (!TRACE_PANELS.some(seen)) return;
  app.detailWanted = null;
  requestDetail(w.seq, w.json, w.rows);
}

/** Draws the trace's panels that scrolled into view since the result changed. */
function drawDirtyPanels() {
  if (dirtyPanels.has('stepper') && windowed(app.result) && seen('stepper')) {
    drawWindowStepper(app.result);
    return;
  }
  if (!dirtyPanels.size || !app.result || !app.result.trace) return;
  if (dirtyPanels.has('timeline') && seen('timeline')) renderVisual();
  else if (dirtyPanels.has('stepper') && seen('stepper')) {
    if (app.step !== null && app.step >= app.result.trace.length) app.step = null;
    drawStepper(stepHandler(app.result));
  }
}

/** Runs the scenario again with the trace in the worker, for the timeline, stepper and verdicts. */
function requestDetail(seq, json, rows) {
  setDetailPending(true);
  detailWorker
    .run(json, true, { budgetMs: app.defaultBudgetMs, queue: true, snapshots: rows <= SNAPSHOT_ROWS, text: true })
    // The trace is drawn after the frame with the new tables: receiving and drawing it (the
    // timeline, the stepper) must not hold that frame back.
    .then((got) => afterNextPaint().then(() => got))
    .then(({ result }) => {
      if (seq !== app.seq) return;
      if (result && typeof result.text === 'string') result = JSON.parse(result.text);
      // Parsing the trace (9 ms for 1,000 rows) and drawing it (8–13 ms) are separate tasks: a
      // keystroke that comes in between waits for one of them, not for both.
      return new Promise((resolve) => setTimeout(resolve, 0)).then(() => {
        if (seq !== app.seq) return;
        attachStateAt(result, json);
        setDetailPending(false);
        if (!result || result.error) return;
        app.result = result;
        renderAll();
      });
    })
    .catch((e) => {
      if (e.reason === 'superseded' || seq !== app.seq) return;
      setDetailPending(false);
      if (seq === app.seq) fill($('timeline'), h('p', { class: 'empty' }, `The trace for the timeline was not computed: ${e.message}.`));
    });
}

/**
 * Remembers how long an untraced run took, per row: the next input goes to the worker when it
 * is predicted to take over 4 × SLOW_MS (or SLOW_MS after two slow runs in a row). Traced runs
 * (the worker's detail runs) are slower by the trace and do not count.
 */
function noteRunTime(ms, rows) {
  app.lastRunMs = ms;
  app.msPerRow = ms / Math.max(rows, 100);
  app.slowRuns = ms > SLOW_MS ? app.slowRuns + 1 : 0;
}

let staleTimer = null;
/**
 * Marks the trace as being computed (`detail-pending`, which tests wait on). The pictures are
 * greyed (`detail-stale`) only if it takes over 150 ms: a class that styles the timeline,
 * changed twice around every keystroke, would have its thousands of SVG elements restyled
 * and repainted each time.
 */
function setDetailPending(on) {
  app.detailPending = on;
  document.body.classList.toggle('detail-pending', on);
  clearTimeout(staleTimer);
  if (on) staleTimer = setTimeout(() => document.body.classList.add('detail-stale'), 150);
  else document.body.classList.remove('detail-stale');
}

/** Resolves after the next frame is painted (or after 100 ms in a page that gets no frames). */
function afterNextPaint() {
  return new Promise((resolve) => {
    let done = false;
    const go = () => {
      if (!done) resolve((done = true));
    };
    requestAnimationFrame(() => setTimeout(go, 0));
    setTimeout(go, 100);
  });
}

/** A deep copy of a scenario, as JSON would make it; the rows strings are shared (immutable). */
export function cloneScenario(sc) {
  const streams = sc.streams || [];
  const copy = JSON.parse(
    JSON.stringify(sc, function (k, v) {
      return k === 'rows' && streams.includes(this) ? '' : v;
    }),
  );
  if (copy.streams) copy.streams.forEach((st, i) => (st.rows = streams[i].rows));
  return copy;
}

/** The progress box of a worker run or a big paste: `fraction` of the work done (0..1). */
function showProgress({ phase, fraction = 0, elapsed, budget }) {
  const bar = $('progress-bar');
  $('progress').hidden = false;
  $('progress-phase').textContent = `${phase}…`;
  bar.max = 1;
  bar.value = Math.max(0, Math.min(1, fraction));
  $('progress').dataset.fraction = bar.value.toFixed(3);
  $('progress-time').textContent = elapsed === undefined ? `${Math.round(bar.value * 100)} %` : `${Math.round(bar.value * 100)} % · ${(elapsed / 1000).toFixed(1)} s of ${(budget / 1000).toFixed(0)} s`;
}

/** The number of entries of a list of the result (`field`, or a side output's `tag`), paged or not. */
export function resultCount(r, field, tag) {
  if (!r) return 0;
  const p = r.paged || {};
  if (tag !== undefined) return p.side_outputs && p.side_outputs[tag] !== undefined ? p.side_outputs[tag] : ((r.side_outputs || {})[tag] || []).length;
  return p[field] !== undefined ? p[field] : (r[field] || []).length;
}

function layoutStreamsVisibility() {
  const two = TWO_INPUTS.has(operator());
  if (two && app.scenario.streams.length < 2) {
    ensureStreams();
    layoutStreams();
    return;
  }
  streamPanels.forEach((p, i) => {
    const exists = i < app.scenario.streams.length;
    p.visible = exists && (two || i === 0);
    p.el.classList.toggle('ignored', exists && !two && i > 0);
  });
}

function clearErrors() {
  for (const p of streamPanels) p.clearErrors();
  controls.clearErrors(true);
}

function streamIndexByName(name) {
  const i = app.scenario.streams.findIndex((s) => s.name === name);
  return i;
}

function markError(r) {
  const e = r.error || {};
  clearErrors();
  let msg = r.message || e.message || 'error';
  if (e.kind === 'row') {
    const i = streamIndexByName(e.stream);
    if (i >= 0 && streamPanels[i]) streamPanels[i].rowError(e.line, e.column, e.message);
  } else if (e.kind === 'stream') {
    const i = streamIndexByName(e.stream);
    if (i >= 0 && streamPanels[i]) streamPanels[i].fieldError(e.field, e.message);
  } else if (e.kind === 'config') {
    const m = /^streams\[(\d+)\]\.watermark/.exec(e.field || '');
    if (m && streamPanels[Number(m[1])]) streamPanels[Number(m[1])].wmCtl.markError(e.field.replace(/^streams\[(\d+)\]/, 'streams.$1'), e.message);
    else controls.markError(e.field || '', e.message);
  } else if (e.kind === 'json') {
    const bad = document.querySelector('.control.invalid');
    if (bad) msg = `${bad.querySelector('label').textContent}: ${bad.querySelector('.control-error').textContent}`;
  }
  return msg;
}

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
  const nOut = resultCount(result, 'outputs');
  const nWin = resultCount(result, 'windows');
  const parts = [`${nOut} output${nOut === 1 ? '' : 's'}`];
  if (nWin) parts.push(`${nWin} window result${nWin === 1 ? '' : 's'}`);
  parts.push(`${resultCount(result, 'late')} late`);
  const side = Object.keys(result.side_outputs || {}).reduce((a, tag) => a + resultCount(result, undefined, tag), 0);
  if (side) parts.push(`${side} to side outputs`);
  status.className = 'status ok';
  status.textContent = `✓ ${parts.join(', ')} · ${result.steps} steps · engine ${ms.toFixed(1)} ms${viaWorker ? ' (worker)' : ''}, drawing ${app.lastRenderMs.toFixed(1)} ms`;
}

function panel(name) {
  return document.querySelector(`[data-panel="${name}"]`);
}

function timed(name, f) {
  const t0 = performance.now();
  const v = f();
  app.timings[name] = performance.now() - t0;
  return v;
}

function renderAll() {
  const r = app.result;
  app.timings = {};
  timed('expected', renderExpected);
  timed('outputs', () => {
    renderOutputs($('outputs'), r);
    setCount(panel('outputs'), resultCount(r, 'outputs'));
  });
  timed('tables', () => {
    const windowsOn = (r.windows && r.windows.length > 0) || r.operator === 'window_aggregate';
    panel('windows').hidden = !windowsOn;
    if (windowsOn) {
      renderWindows($('windows'), r);
      setCount(panel('windows'), resultCount(r, 'windows'));
    }
    renderLate($('late'), r);
    setCount(panel('late'), resultCount(r, 'late'));
    const tags = Object.keys(r.side_outputs || {});
    panel('side').hidden = !tags.length && !['split', 'interval_join', 'window_aggregate'].includes(r.operator);
    setCount(panel('side'), renderSide($('side'), r));
    const nState = renderState($('state'), r);
    panel('state').hidden = r.state_empty;
    setCount(panel('state'), nState);
    if (panel('keys').querySelector('details').open) renderKeys($('keys'), r);
    const nw = renderWarnings($('warnings'), r);
    panel('warnings').hidden = !nw;
    setCount(panel('warnings'), nw);
  });
  // A run without the trace while the worker computes it: keep the old pictures (greyed).
  const waitDetail = !r.trace && (app.detailPending || !!app.detailWanted);
  timed('verdicts', () => {
    if (waitDetail) return;
    panel('verdicts').hidden = !r.verdicts;
    if (r.verdicts) setCount(panel('verdicts'), renderVerdicts($('verdicts'), r));
  });
  timed('watermarks', () => renderWatermarks($('watermarks'), r));
  if (!waitDetail) timed('visual', renderVisual);
  timed('export', renderExport);
  timed('compare', renderCompare);
}

let timelineHandle = null;
let timelineFor = null;

function renderVisual() {
  const r = app.result;
  const tl = $('timeline');
  const st = $('stepper');
  if (!r) return;
  if (!r.trace && windowed(r)) {
    // Too large for a full trace: the timeline stays off, the stepper works on windows.
    fill(tl, h('p', { class: 'empty' }, `The timeline would need the step-by-step trace, which is off for inputs over ${TRACE_ROWS.toLocaleString('en')} rows; the step-through works on windows of ${WINDOW_STEPS} steps.`));
    timelineHandle = null;
    timelineFor = null;
    dirtyPanels.delete('timeline');
    drawWindowStepper(r);
    return;
  }
  if (!r.trace) {
    const msg = `The timeline and the step-through need the step-by-step trace, which is off for inputs over ${TRACE_ROWS.toLocaleString('en')} rows.`;
    fill(tl, h('p', { class: 'empty' }, msg));
    fill(st, h('p', { class: 'empty' }, msg));
    timelineHandle = null;
    timelineFor = null;
    dirtyPanels.clear();
    return;
  }
  if (app.step !== null && app.step >= r.trace.length) app.step = null;
  const onStep = stepHandler(r);
  if (!panel('timeline').classList.contains('panel-off')) {
    // Out of view, the timeline (4 ms for 1,000 rows, and thousands of SVG elements) is drawn
    // when it scrolls into view, not on every keystroke.
    if (!seen('timeline')) dirtyPanels.add('timeline');
    else {
      dirtyPanels.delete('timeline');
      try {
        const t0 = performance.now();
        timelineHandle = renderTimeline(tl, app.resultScenario, r, {
          step: app.step === null ? undefined : app.step,
          selectedRow: app.selectedRow ?? undefined,
          onSelectRow: (id) => {
            app.selectedRow = id;
          },
        });
        timelineFor = r;
        app.timings.timeline = performance.now() - t0;
      } catch (e) {
        console.error(e);
        timelineHandle = null;
        fill(tl, h('p', { class: 'empty' }, `The timeline could not be drawn: ${e}`));
      }
    }
  }
  drawStepper(onStep);
}

/** What the stepper calls when the step changes: moves the timeline's step and redraws itself. */
function stepHandler(r) {
  const onStep = (i) => {
    app.step = i === null || i === undefined ? null : Math.max(0, Math.min(r.trace.length - 1, i | 0));
    try {
      if (timelineHandle && timelineFor === r) timelineHandle.setStep(app.step === null ? undefined : app.step);
    } catch (e) {
      console.error(e);
    }
    drawStepper(onStep);
  };
  return onStep;
}

/** Steps in one window of the trace (an input too large for a full trace). */
export const WINDOW_STEPS = 200;

/** A result too large for a full trace whose steps can be fetched in windows from the worker. */
const windowed = (r) => r && !r.error && !r.trace && typeof r.traceWindow === 'function' && r.steps > 0 && totalRows() <= WINDOW_ROWS;

/**
 * Inputs up to this many rows get the windowed stepper. Above it the stepper stays off: with a
 * 1,000,000-row paste, drawing it after the result showed a main-thread task of over a second
 * (tests/browser/large-paste.test.mjs), not yet tracked down.
 */
export const WINDOW_ROWS = 200000;

/**
 * The lean result `r` with the trace of one window: `trace` (and `rows`, `keys`, `outputs`, …)
 * are sparse arrays indexed as in a full result, holding only what the window's steps refer
 * to; `window` says which steps are there and the watermarks and counts before them;
 * `stateAt(step)` is the state from the window's answer (after its last step) or a promise of
 * the worker's `state_at`.
 */
function windowResult(r, tw, total) {
  const sparse = (obj) => {
    const a = [];
    for (const k of Object.keys(obj || {})) a[Number(k)] = obj[k];
    return a;
  };
  const trace = new Array(total);
  for (const s of tw.steps) trace[s.index] = s;
  const end = tw.from + tw.steps.length;
  const side = {};
  for (const [tag, v] of Object.entries(tw.side_outputs || {})) side[tag] = sparse(v);
  const res = {
    ...r,
    trace,
    rows: sparse(tw.rows),
    keys: sparse(tw.keys),
    outputs: sparse(tw.outputs),
    late: sparse(tw.late),
    windows: sparse(tw.windows),
    side_outputs: side,
    window: { from: tw.from, end, total, before: tw.before || null },
  };
  const states = new Map();
  if (tw.steps.length) states.set(end - 1, tw.state_end);
  Object.defineProperty(res, 'stateAt', {
    value: (step) =>
      states.has(step)
        ? states.get(step)
        : r.stateAtAsync(step).then((v) => {
            states.set(step, v);
            return v;
          }),
    enumerable: false,
  });
  return res;
}

/**
 * The stepper over a result too large for a full trace: draws the window holding the current
 * step, or fetches the window around it from the worker (one fetch at a time; when it arrives
 * the step may have moved on, and the window around the new step is fetched).
 */
function drawWindowStepper(r) {
  if (panel('stepper').classList.contains('panel-off')) return;
  if (!seen('stepper')) {
    dirtyPanels.add('stepper');
    return;
  }
  dirtyPanels.delete('stepper');
  const st = $('stepper');
  const total = r.steps;
  if (app.step !== null && app.step >= total) app.step = null;
  const step = app.step === null ? total - 1 : app.step;
  const onStep = (i) => {
    app.step = i === null || i === undefined ? null : Math.max(0, Math.min(total - 1, i | 0));
    drawWindowStepper(r);
  };
  const w = app.traceWindow;
  if (w && w.base === r && w.result) {
    try {
      renderStepper(st, w.result, step, onStep);
    } catch (e) {
      console.error(e);
      fill(st, h('p', { class: 'empty' }, `The step-through could not be drawn: ${e}`));
      return;
    }
    if (step >= w.from && step < w.end) return;
  } else if (!w || w.base !== r) fill(st, h('p', { class: 'empty' }, `Loading the steps around step ${(step + 1).toLocaleString('en')}…`));
  if (w && w.base === r && w.loading) return;
  const from = Math.max(0, Math.min(step - WINDOW_STEPS / 2, total - WINDOW_STEPS));
  const t0 = performance.now();
  app.traceWindow = { base: r, loading: true, from: w && w.base === r ? w.from : -1, end: w && w.base === r ? w.end : -1, result: w && w.base === r ? w.result : null };
  st.dataset.windowLoading = '1';
  r.traceWindow(from, WINDOW_STEPS).then(
    (text) => {
      if (app.result !== r) return;
      // Parsed in the worker, with long lists cut (worker.js trimWindow).
      const tw = text;
      delete st.dataset.windowLoading;
      if (tw.error) {
        app.traceWindow = null;
        fill(st, h('p', { class: 'empty' }, `The steps could not be computed: ${tw.message}`));
        return;
      }
      const result = windowResult(r, tw, total);
      app.traceWindow = { base: r, loading: false, from: tw.from, end: result.window.end, result, ms: performance.now() - t0 };
      st.dataset.windowFrom = String(tw.from);
      st.dataset.windowEnd = String(result.window.end);
      st.dataset.windowMs = String(Math.round(app.traceWindow.ms));
      drawWindowStepper(r);
    },
    (e) => {
      delete st.dataset.windowLoading;
      if (app.result !== r) return;
      app.traceWindow = null;
      fill(st, h('p', { class: 'empty' }, `The steps could not be computed: ${e.message}`));
    },
  );
}

function drawStepper(onStep) {
  const r = app.result;
  if (panel('stepper').classList.contains('panel-off') || !r || !r.trace) return;
  if (!seen('stepper')) {
    dirtyPanels.add('stepper');
    return;
  }
  dirtyPanels.delete('stepper');
  const st = $('stepper');
  try {
    const t0 = performance.now();
    renderStepper(st, r, app.step === null ? r.trace.length - 1 : app.step, onStep);
    app.timings.stepper = performance.now() - t0;
  } catch (e) {
    console.error(e);
    fill(st, h('p', { class: 'empty' }, `The step-through could not be drawn: ${e}`));
  }
}

function renderExpected() {
  const el = $('expected');
  const sec = $('expected-panel');
  const exp = app.scenario.expected;
  const verdict = exp !== undefined && app.result ? expectedVerdict(exp, app.result) : null;
  const ro = app.embed.readOnly || app.embed.on;
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
              scheduleHash();
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
      verdict.checks.map((c) => h('li', { class: c.ignored ? 'ignored' : c.ok ? 'pass' : 'fail' }, `${c.ignored ? '·' : c.ok ? '✓' : '✗'} ${c.what}: ${c.detail}`)),
    ),
    h('div', { class: 'row' }, btns),
  );
}

/**
 * The check of `exp` against a result. A paged result (kept in the engine worker) comes with
 * the check of the scenario's own expected entry; another one is asked of the worker and
 * drawn when it arrives.
 */
function expectedVerdict(exp, r) {
  if (!r.paged) return checkExpected(exp, r);
  if (!r.__checks) Object.defineProperty(r, '__checks', { value: new Map(), enumerable: false });
  const key = JSON.stringify(exp);
  if (r.__checks.has(key)) return r.__checks.get(key);
  if (r.expected_check && app.resultScenario && JSON.stringify(app.resultScenario.expected) === key) return r.expected_check;
  if (r.fetch) {
    r.__checks.set(key, null);
    r.fetch({ what: 'check', expected: exp }).then(
      (v) => {
        r.__checks.set(key, v);
        if (app.result === r) renderExpected();
      },
      () => {},
    );
  }
  return null;
}

/** Writes the current result into the scenario as its expected result. */
function useAsExpected() {
  const r = app.result;
  if (!r) return;
  if (!r.paged) {
    app.scenario.expected = expectedFrom(r);
    renderExpected();
    scheduleHash();
    return;
  }
  if (!r.fetch) return;
  r.fetch({ what: 'expected' }).then(({ expected, verdict }) => {
    if (app.result !== r) return;
    app.scenario.expected = expected;
    if (!r.__checks) Object.defineProperty(r, '__checks', { value: new Map(), enumerable: false });
    r.__checks.set(JSON.stringify(expected), verdict);
    renderExpected();
    scheduleHash();
  });
}

// ---------------------------------------------------------------- side by side

/** Inputs up to this many rows are compared across joins (four more runs per edit, when open). */
const COMPARE_ROWS = 4000;

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

/** The same rows and settings with the operator (and its bounds) swapped. */
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
  const base = (patch) => {
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

function renderCompare() {
  const box = $('compare');
  if (!$('compare-details').open || panel('compare').classList.contains('panel-off')) return;
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

// ---------------------------------------------------------------- export

let exportLang = 'java';

function renderExport() {
  const sec = $('export-panel');
  sec.hidden = false;
  for (const b of sec.querySelectorAll('[data-lang]')) b.classList.toggle('active', b.dataset.lang === exportLang);
  if (!$('export-details').open) return;
  // The exporter is its own wasm module, loaded on the first export (export-runtime.js); a
  // later render (an edit, another language) supersedes a pending one.
  const token = (renderExport.token = (renderExport.token || 0) + 1);
  exportJob(JSON.stringify(app.scenario), exportLang).then((out) => {
    if (token !== renderExport.token) return;
    $('export-code').textContent = typeof out === 'string' ? out : (out && (out.message || (out.error && out.error.message))) || JSON.stringify(out);
  });
}

// ---------------------------------------------------------------- share and embed

async function compactJson() {
  const json = JSON.stringify(app.scenario);
  const n = wasm.normalize(json);
  return typeof n === 'string' ? n : json;
}

function pageBase() {
  return `${window.location.origin}${window.location.pathname}`;
}

/** The non-embed query parameters to keep in a share link (none, today). */
async function shareUrl() {
  const enc = await encodeScenario(await compactJson());
  return `${pageBase()}#s=${enc}`;
}

let hashTimer = null;
function scheduleHash() {
  clearTimeout(hashTimer);
  hashTimer = setTimeout(syncHash, 300);
}

async function syncHash() {
  if (!app.scenario) return;
  // The rows dominate a scenario's size: skip the (costly, for a big paste) normalisation when
  // they alone are already over the limit.
  const rowChars = (app.scenario.streams || []).reduce((n, st) => n + ((st && st.rows) || '').length, 0);
  if (rowChars > MAX_AUTO_URL_JSON) {
    pendingHash = null;
    return;
  }
  const json = await compactJson();
  if (json.length > MAX_AUTO_URL_JSON) {
    pendingHash = null;
    return;
  }
  const enc = await encodeScenario(json);
  const frag = `s=${enc}`;
  pendingHash = frag;
  if (app.embed.on) {
    // Never rewrite the host's URL (nor our own) in embed mode: only the "open" link changes.
    $('embed-open').href = `${pageBase()}#${frag}`;
    return;
  }
  if (window.location.hash !== `#${frag}`) {
    window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}#${frag}`);
  }
}

function togglePopover(id, show) {
  for (const p of document.querySelectorAll('.popover')) if (p.id !== id) p.hidden = true;
  const el = $(id);
  el.hidden = show === undefined ? !el.hidden : !show;
  return !el.hidden;
}

async function copyText(text, input, note) {
  try {
    await navigator.clipboard.writeText(text);
    note.textContent = 'Copied.';
  } catch {
    input.focus();
    input.select();
    const ok = document.execCommand && document.execCommand('copy');
    note.textContent = ok ? 'Copied.' : 'Select the text and copy it (Ctrl+C).';
  }
}

async function openShare() {
  if (!togglePopover('share-box')) return;
  const url = await shareUrl();
  const input = $('share-url');
  input.value = url;
  $('share-note').textContent = `${url.length.toLocaleString('en')} characters.${url.length > 32000 ? ' That is long: some chat tools cut long links.' : ''}`;
  input.select();
}

function escapeAttr(s) {
  return String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

async function embedSnippet() {
  const panels = [...$('embed-panels').querySelectorAll('input:checked')].map((x) => x.value);
  const ro = $('embed-readonly').checked;
  const height = Math.max(200, Math.min(3000, Number($('embed-height').value) || 520));
  const enc = await encodeScenario(await compactJson());
  const q = ['embed', `panels=${panels.join(',')}`];
  if (ro) q.push('readonly');
  const src = `${pageBase()}?${q.join('&')}#s=${enc}`;
  const title = `Joinlab: ${app.scenario.title || 'scenario'}`;
  return `<iframe src="${escapeAttr(src)}" title="${escapeAttr(title)}" width="100%" height="${height}" style="border:1px solid #d0d7de;border-radius:6px" loading="lazy" referrerpolicy="no-referrer"></iframe>`;
}

async function openEmbed() {
  if (!togglePopover('embed-box')) return;
  const box = $('embed-panels');
  if (!box.querySelector('input')) {
    const def = new Set(['streams', 'outputs', 'late', 'timeline']);
    for (const p of EMBED_CHOICES) box.append(h('label', null, h('input', { type: 'checkbox', value: p, checked: def.has(p) }), ` ${p}`));
  }
  await refreshSnippet();
}

async function refreshSnippet() {
  $('embed-snippet').value = await embedSnippet();
  $('embed-note').textContent = '';
}

// ---------------------------------------------------------------- gallery

function buildGallery() {
  const list = $('gallery-list');
  fill(
    list,
    ...GALLERY.map((g) =>
      h(
        'li',
        null,
        h(
          'button',
          {
            type: 'button',
            class: 'gallery-item',
            dataset: { gallery: g.name },
            onclick: () => {
              $('gallery').close();
              loadScenarioText(g.text, g.name);
              if (!app.embed.on) window.history.replaceState(null, '', `${window.location.pathname}#scenario=${encodeURIComponent(g.name)}`);
            },
          },
          h('span', { class: 'g-title' }, g.title),
          h('span', { class: 'g-op' }, g.operator.replace(/_/g, ' ')),
          h('span', { class: 'g-desc' }, g.description.length > 260 ? `${g.description.slice(0, 257)}…` : g.description),
        ),
      ),
    ),
  );
  if (!GALLERY.length) list.append(h('li', { class: 'empty' }, 'no scenarios were bundled'));
}

// ---------------------------------------------------------------- start

function wire() {
  $('btn-gallery').addEventListener('click', () => $('gallery').showModal());
  $('btn-share').addEventListener('click', openShare);
  $('btn-set-expected').addEventListener('click', useAsExpected);
  $('share-copy').addEventListener('click', () => copyText($('share-url').value, $('share-url'), $('share-note')));
  $('btn-embed').addEventListener('click', openEmbed);
  $('embed-box').addEventListener('change', refreshSnippet);
  $('embed-box').addEventListener('input', (e) => e.target.id === 'embed-height' && refreshSnippet());
  $('embed-copy').addEventListener('click', () => copyText($('embed-snippet').value, $('embed-snippet'), $('embed-note')));
  $('progress-cancel').addEventListener('click', () => {
    const pasting = streamPanels.filter((p) => p.editor.pasting);
    if (pasting.length) {
      for (const p of pasting) p.editor.abortPaste();
      $('progress').hidden = true;
      return;
    }
    worker.cancel();
  });
  $('stopped-retry').addEventListener('click', () => {
    app.budgetMs = 60000;
    recompute({ forceWorker: true });
  });
  $('title').addEventListener('input', () => {
    if ($('title').value) app.scenario.title = $('title').value;
    else delete app.scenario.title;
    scheduleHash();
  });
  $('description').addEventListener('input', () => {
    const v = $('description').value;
    if (v) app.scenario.description = v;
    else delete app.scenario.description;
    $('description-view').textContent = v;
    scheduleHash();
  });
  panel('keys')
    .querySelector('details')
    .addEventListener('toggle', () => {
      if (app.result) renderKeys($('keys'), app.result);
      requestDetailWhenSeen();
    });
  $('export-details').addEventListener('toggle', renderExport);
  $('compare-details').addEventListener('toggle', renderCompare);
  for (const b of document.querySelectorAll('#export-panel [data-lang]'))
    b.addEventListener('click', () => {
      exportLang = b.dataset.lang;
      renderExport();
    });
  $('export-copy').addEventListener('click', () => navigator.clipboard && navigator.clipboard.writeText($('export-code').textContent).catch(() => {}));
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') for (const p of document.querySelectorAll('.popover')) p.hidden = true;
  });
  window.addEventListener('hashchange', () => {
    if (app.embed.on) return;
    if (pendingHash && window.location.hash === `#${pendingHash}`) return;
    openFromLocation();
  });
}

async function openFromLocation() {
  const p = readMode();
  let loaded = null;
  let problem = null;
  try {
    loaded = await scenarioFromLocation(p);
  } catch (e) {
    problem = e instanceof ShareError ? e.message : `the link could not be read: ${e}`;
  }
  try {
    if (loaded) loadScenarioText(loaded.text, loaded.source);
    else loadScenarioText(defaultScenarioText(), 'default');
  } catch (e) {
    problem = e instanceof ShareError ? e.message : String(e);
    loadScenarioText(defaultScenarioText(), 'default');
  }
  if (problem) {
    const s = $('status');
    s.className = 'status error';
    fill(s, h('strong', null, 'This link could not be opened: '), problem, '. The default scenario is shown instead.');
  }
}

async function main() {
  readMode();
  wire();
  watchTracePanels();
  buildGallery();
  try {
    await loadEngine();
  } catch (e) {
    showBanner(`The engine (WebAssembly) could not be loaded: ${e}`);
    return;
  }
  $('engine-version').textContent = `Joinlab engine ${wasm.version()}`;
  // Warm the module up (the first call compiles and grows memory) so that the first real run's
  // time says something about the scenario, not about start-up.
  runSync(defaultScenarioText(), true);
  controls = buildControls($('controls'), {
    get scenario() {
      return app.scenario;
    },
    onChange: (path) => {
      if (path === 'job.operator') {
        ensureStreams();
        layoutStreams();
      }
      if (path === 'job.watermark.strategy' || path === 'job.window.kind') controls.refresh();
      recompute();
    },
    validateDuration: durationError,
    get readOnly() {
      return app.embed.readOnly;
    },
  });
  await openFromLocation();
  document.body.classList.add('ready');
  // For tests and benchmarks.
  window.__joinlab = {
    app,
    recompute,
    get result() {
      return app.result;
    },
    get error() {
      return app.error;
    },
    /** The length of a list of the result (`outputs`, `late`, …; a side output by tag), paged or not. */
    count: (field, tag) => resultCount(app.result, field, tag),
    compactJson,
    shareUrl,
    get editors() {
      return streamPanels.map((p) => p.editor);
    },
    embedSnippet,
    loadScenarioText,
    normalize: (json) => wasm.normalize(json),
    controlPaths: () =>
      GROUPS.flatMap((g) => g.items).concat(STREAM_WATERMARK_ITEMS(0)).map((i) => ({ path: i.path, type: i.type, def: i.def, options: i.options ? i.options.map((o) => o[0]) : null })),
  };
}

main();
