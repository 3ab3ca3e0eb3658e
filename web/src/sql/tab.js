// @ts-check
// The SQL tab: a scenario written as a Flink SQL script (`scenario.sql`, kept exactly as typed)
// is edited here instead of with the job controls. Every edit goes through the SQL module
// (`sql_read`, which reads again only the statements and rows the edit changed): a script that
// reads becomes the scenario's streams and job and runs in the same task (state -> run ->
// result -> render; only the rows changed: a rows-only run, as after a key in a row editor;
// nothing changed: no run); a script that does not is marked where the reader says (line,
// column) and the last good result stays. Edits made elsewhere (the row editors, the controls)
// are written back into the script (sync.js).

import { h, fill } from '../dom.js';
import { app, $, ui, actions, panel } from '../app/state.js';
import { layoutStreams, streamPanels } from '../panels/streams.js';
import { loadSql, sqlModule, parseScript, printScript } from './runtime.js';
import { mergeScript } from './sync.js';
import { wasm } from '../engine.js';

/** @type {any} the editor (sql/editor.js), once loaded */
let view = null;
/** @type {Promise<any> | null} */
let editorLoading = null;
/** the change comes from the SQL editor: the script is the truth, nothing to write back */
let fromEditor = false;
/** a SQL scenario is waiting for the SQL module: its runs wait too */
let pending = false;
/** @type {'controls' | 'sql'} */
let tab = 'controls';
/**
 * The time of the last edit's parse (ms), what that read reused (`read`: rows reused and read
 * again, statements read, whether it read the whole script), how many edits ran nothing (the
 * script's meaning did not change), for the tests and benchmarks.
 */
export const sqlTimings = { parseMs: 0, edits: 0, read: /** @type {any} */ (null), unchanged: 0, phases: /** @type {Record<string, number>} */ ({}) };
/** The last script read in the editor was read without an error (so its run is the one shown). */
let lastReadOk = false;

/** Whether a SQL scenario waits for the SQL module (its run comes once it has read the script). */
export function sqlPending() {
  return pending;
}

function tabBar() {
  const mk = (/** @type {'controls' | 'sql'} */ which, /** @type {string} */ label) => {
    const b = h('button', { type: 'button', role: 'tab', class: 'sql-tab-btn', id: `tab-${which}`, 'aria-selected': 'false' }, label);
    b.addEventListener('click', () => (which === 'sql' ? openSqlTab() : setTab('controls')));
    return b;
  };
  return h('div', { class: 'sql-tabs', role: 'tablist', 'aria-label': 'job as controls or SQL' }, mk('controls', 'Controls'), mk('sql', 'SQL'));
}

/** Builds the tab bar and the (empty) SQL tab in the job panel. */
export function wireSqlTab() {
  const controls = $('controls');
  const box = h(
    'div',
    { id: 'sql-tab', class: 'sql-tab', role: 'tabpanel', hidden: '' },
    h('div', { id: 'sql-note', class: 'note', role: 'status' }),
    h('div', { id: 'sql-editor', class: 'sql-editor' }),
    h('div', { id: 'sql-error', class: 'editor-error', role: 'alert' }),
  );
  controls.before(tabBar(), box);
  setTab('controls');
}

/** @param {'controls' | 'sql'} which */
function setTab(which) {
  tab = which;
  $('controls').hidden = which === 'sql';
  $('sql-tab').hidden = which !== 'sql';
  for (const w of ['controls', 'sql']) $(`tab-${w}`).setAttribute('aria-selected', String(w === which));
  panel('job').classList.toggle('is-sql', which === 'sql');
}

/** Loads the SQL module and the editor's chunk, and builds the editor once. */
function loadAll() {
  editorLoading ??= import('./editor.js').then((m) => {
    view ??= m.createSqlEditor($('sql-editor'), { onChange: onEdit, readOnly: app.embed.readOnly });
    return view;
  });
  editorLoading.catch(() => (editorLoading = null));
  return Promise.all([loadSql(), editorLoading]);
}

/** Whether both are loaded (calls are synchronous from then on). */
const ready = () => !!(sqlModule() && view);

/** Puts `text` in the editor without reading it (it came from the scenario). @param {string} text */
function setDoc(text) {
  if (!view) return;
  view.setReadOnly(app.embed.readOnly);
  view.setText(text);
}

/** Marks the reader's errors in the editor and says them under it. @param {{ line: number, column: number, message: string }[]} errors */
function markErrors(errors) {
  if (view) view.mark(errors);
  fill($('sql-error'), ...errors.map((e) => h('div', null, `line ${e.line}, column ${e.column}: ${e.message}`)));
}

function clearErrors() {
  if (view) view.mark([]);
  fill($('sql-error'));
}

/**
 * Takes a scenario read from a script: its streams, job and script; the page's own fields
 * (title, description, expected) stay. Says what changed: `streams` (anything of the streams),
 * `rows` (the streams whose rows alone changed, when nothing else did: the row editors take
 * them and the run is a rows-only run, as after a key in a row editor), `none` (nothing but the
 * script's text: a space, a comment).
 * @param {any} parsed @returns {{ streams: boolean, rows: number[] | null, none: boolean }}
 */
function adopt(parsed) {
  const sc = app.scenario;
  for (const s of parsed.streams || []) if (typeof s.rows !== 'string') s.rows = String(s.rows ?? '');
  const before = sc.streams || [];
  const after = parsed.streams || [];
  const def = (/** @type {any} */ s) => JSON.stringify({ ...s, rows: undefined });
  const sameDefs = before.length === after.length && before.every((/** @type {any} */ s, /** @type {number} */ i) => def(s) === def(after[i]));
  const rows = sameDefs ? after.map((/** @type {any} */ _, /** @type {number} */ i) => i).filter((/** @type {number} */ i) => before[i].rows !== after[i].rows) : null;
  const sameJob = sc.version === parsed.version && JSON.stringify(sc.job) === JSON.stringify(parsed.job);
  for (const k of ['version', 'job', 'streams', 'sql']) {
    if (parsed[k] !== undefined) sc[k] = parsed[k];
    else if (k !== 'version') delete sc[k];
  }
  return { streams: !sameDefs || !!(rows && rows.length), rows: sameJob ? rows : null, none: sameJob && !!rows && rows.length === 0 };
}

/** A keystroke in the SQL editor. @param {string} text */
function onEdit(text) {
  if (!app.scenario) return;
  const ts = performance.now();
  app.scenario.sql = text;
  if (view) view.setSchema(text);
  if (!ready()) return;
  const t0 = performance.now();
  const r = parseScript(text);
  sqlTimings.parseMs = performance.now() - t0;
  // Where a key's time goes (ms): the completion schema, the read, taking the scenario (the
  // row editors), the run and what it draws in this task.
  const phases = (sqlTimings.phases = { schema: t0 - ts, read: sqlTimings.parseMs, adopt: 0, run: 0 });
  sqlTimings.read = r.read || null;
  sqlTimings.edits++;
  const wasOk = lastReadOk;
  lastReadOk = !!r.scenario;
  if (!r.scenario) {
    markErrors(r.errors || []);
    const e = (r.errors || [])[0];
    const s = $('status');
    s.className = 'status error';
    fill(s, h('strong', null, 'Not run: '), e ? `SQL line ${e.line}, column ${e.column}: ${e.message}` : 'the script could not be read', app.result ? h('span', { class: 'note' }, ' — the panels show the last good result.') : null);
    $('results').classList.toggle('stale', !!app.result);
    // The link still carries the text exactly as typed.
    actions.scheduleHash();
    return;
  }
  const t1 = performance.now();
  if (!wasOk) clearErrors();
  const change = adopt(r.scenario);
  if (change.none && wasOk) {
    // The same scenario as the run shown (a space, a comment): nothing to run; the link
    // carries the new text.
    sqlTimings.unchanged++;
    actions.scheduleHash();
    return;
  }
  if (change.rows) {
    // Only rows changed: the row editors of those streams take them, and the run is the one a
    // key in a row editor makes (no controls or stream panels to lay out again).
    for (const i of change.rows) if (streamPanels[i]) streamPanels[i].editor.setText(app.scenario.streams[i].rows);
  } else {
    ui.controls.load();
    if (change.streams) layoutStreams();
  }
  const t2 = performance.now();
  phases.adopt = t2 - t1;
  fromEditor = true;
  try {
    actions.recompute({ rowsOnly: !!change.rows });
  } finally {
    fromEditor = false;
    phases.run = performance.now() - t2;
  }
}

/**
 * After a scenario is put into the page: a SQL scenario (one with a script) shows the SQL tab
 * and is read by the SQL module (loaded now if it is not yet); its run waits for that.
 * @param {any} sc
 */
export function sqlScenarioShown(sc) {
  if (typeof sc.sql !== 'string' || !sc.sql) {
    if (tab === 'sql') setTab('controls');
    fill($('sql-note'));
    return;
  }
  setTab('sql');
  fill($('sql-note'));
  $('sql-editor').hidden = false;
  // The module is there: read the script now, before the run that follows.
  if (ready()) {
    readShown(sc);
    return;
  }
  pending = true;
  loadAll()
    .then(() => {
      pending = false;
      if (app.scenario !== sc) return;
      readShown(sc);
      actions.recompute({ keepUrl: true });
    })
    .catch((e) => {
      pending = false;
      fill($('sql-note'), `The SQL reader could not be loaded: ${e && e.message ? e.message : e}`);
      actions.recompute({ keepUrl: true });
    });
}

/** The script of a scenario just shown becomes its streams and job. @param {any} sc */
function readShown(sc) {
  setDoc(sc.sql);
  const r = parseScript(sc.sql);
  lastReadOk = !!r.scenario;
  if (r.scenario) {
    clearErrors();
    if (adopt(r.scenario).streams) layoutStreams();
    ui.controls.load();
  } else markErrors(r.errors || []);
}

/** The SQL tab, asked for: a DataStream or SQL-operator scenario is shown as its script. */
async function openSqlTab() {
  setTab('sql');
  const sc = app.scenario;
  if (!sc) return;
  try {
    await loadAll();
  } catch (e) {
    fill($('sql-note'), `The SQL reader could not be loaded: ${/** @type {Error} */ (e).message || e}`);
    return;
  }
  if (app.scenario !== sc) return;
  if (sc.sql) {
    setDoc(sc.sql);
    return;
  }
  const printed = printScript(withoutScript(sc));
  if (typeof printed !== 'string') {
    fill($('sql-note'), `This scenario has no SQL form: ${printed.message}. Its job stays in the controls.`);
    $('sql-editor').hidden = true;
    return;
  }
  $('sql-editor').hidden = false;
  fill($('sql-note'), 'The equivalent Flink SQL script. Edits here change the scenario.');
  setDoc(printed);
  onEdit(printed);
}

/** @param {any} sc */
function withoutScript(sc) {
  const c = { ...sc };
  delete c.sql;
  delete c.title;
  delete c.description;
  delete c.expected;
  return c;
}

/**
 * Before a run: a change made outside the SQL editor (rows, controls) is written into the
 * script, replacing only the statements whose part changed.
 */
export function syncScriptFromScenario() {
  const sc = app.scenario;
  if (fromEditor || pending || !sc || typeof sc.sql !== 'string' || !sc.sql || !ready()) return;
  const mine = parseScript(sc.sql);
  if (!mine.scenario) return; // the script does not read: it is the user's to fix
  // Both sides in the engine's normal form (defaults left out), so that a default a control
  // wrote in is no change. The rows are compared as they are (the normal form keeps them as
  // they are): they are left out of the normalisation, which would copy them through JSON
  // and the engine twice on every key typed in a row editor.
  const norm = (/** @type {any} */ x) => {
    const bare = withoutScript(x);
    bare.streams = (x.streams || []).map((/** @type {any} */ s) => ({ ...s, rows: '' }));
    const j = JSON.stringify(bare);
    const n = wasm.normalize(j);
    const out = JSON.parse(typeof n === 'string' ? n : j);
    (out.streams || []).forEach((/** @type {any} */ s, /** @type {number} */ i) => {
      if (x.streams && x.streams[i]) s.rows = x.streams[i].rows;
    });
    return out;
  };
  const p = norm(mine.scenario);
  const cur = norm(sc);
  const streamOf = (/** @type {any} */ s, /** @type {string} */ name) => (s.streams || []).find((/** @type {any} */ x) => String(x.name).toLowerCase() === name);
  const defOf = (/** @type {any} */ x) => (x ? JSON.stringify({ ...x, rows: undefined }) : '');
  const jobChanged = JSON.stringify(p.job) !== JSON.stringify(cur.job);
  /** @param {string} key */
  const changed = (key) => {
    const [kind, name] = [key.slice(0, key.indexOf(':') < 0 ? key.length : key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
    if (kind === 'values') return (streamOf(p, name) || {}).rows !== (streamOf(cur, name) || {}).rows;
    if (kind === 'create') return defOf(streamOf(p, name)) !== defOf(streamOf(cur, name));
    return jobChanged;
  };
  const anyChange = jobChanged || (sc.streams || []).some((/** @type {any} */ s) => changed(`values:${String(s.name).toLowerCase()}`) || changed(`create:${String(s.name).toLowerCase()}`));
  if (!anyChange) return;
  const printed = printScript(withoutScript(sc));
  if (typeof printed !== 'string') {
    fill($('sql-note'), `The script could not be updated (${printed.message}): until then it does not describe the job.`);
    return;
  }
  let text = mergeScript(sc.sql, printed, changed);
  if (!parseScript(text).scenario) text = printed;
  sc.sql = text;
  fill($('sql-note'));
  setDoc(text);
}
