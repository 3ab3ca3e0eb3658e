// @ts-check
// The Streams panel: one editor per input stream (name, columns, key and time columns, rows,
// its own watermark settings), and the errors the engine reports on them.

import { h, fill } from '../dom.js';
import { createRowsEditor } from '../editor.js';
import { buildControl, controlSet, STREAM_WATERMARK_ITEMS, TWO_INPUTS } from '../controls.js';
import { columnNames } from '../scenario-path.js';
import { durationError } from '../engine.js';
import { app, $, ui, actions, operator } from '../app/state.js';
import { hoverRow, rowIdAt } from '../app/hover.js';
import { registerPanel } from '../app/registry.js';

/**
 * @typedef {object} StreamPanel
 * @property {HTMLElement} el
 * @property {any} editor
 * @property {boolean} visible
 * @property {any} wmCtl
 * @property {() => void} load
 * @property {() => void} clearErrors
 * @property {(line: number, column: number, message: string) => void} rowError
 * @property {(field: string, message: string) => void} fieldError
 */

/** @type {StreamPanel[]} */
export const streamPanels = [];

/** Adds streams until the operator has its inputs (two for a join). */
export function ensureStreams() {
  const sc = app.scenario;
  const need = TWO_INPUTS.has(operator()) ? 2 : 1;
  while (sc.streams.length < need) {
    const first = sc.streams[0];
    if (!first) sc.streams.push({ name: 'left', columns: ['key', 'ts'], key: 'key', time: 'ts', rows: '' });
    else sc.streams.push({ name: first.name === 'right' ? 'right2' : 'right', columns: first.columns.slice(), key: first.key, time: first.time, rows: '' });
  }
}

/** The rows in the editors the operator reads. */
export function totalRows() {
  let n = 0;
  for (const p of streamPanels) if (p.visible) n += p.editor.lines();
  return n;
}

/** The rows `totalRows` will count once stream `i`'s editor holds `lines` lines. @param {number} i @param {number} lines */
export function totalRowsWith(i, lines) {
  let n = 0;
  streamPanels.forEach((p, j) => {
    if (p.visible) n += j === i ? lines : p.editor.lines();
  });
  return n;
}

/** @param {number} i @returns {StreamPanel} */
function buildStreamPanel(i) {
  const ctx = {
    get scenario() {
      return app.scenario;
    },
    onChange: () => actions.recompute(),
    validateDuration: durationError,
    get readOnly() {
      return app.embed.readOnly;
    },
  };
  const name = /** @type {HTMLInputElement} */ (h('input', { type: 'text', class: 'stream-name', spellcheck: 'false', 'aria-label': `stream ${i + 1} name` }));
  const columns = /** @type {HTMLInputElement} */ (
    h('input', { type: 'text', class: 'stream-columns', spellcheck: 'false', 'aria-label': `stream ${i + 1} columns`, title: 'column names, comma separated; optionally typed: n:int, amount:double' })
  );
  const key = /** @type {HTMLSelectElement} */ (h('select', { class: 'stream-key', 'aria-label': `stream ${i + 1} key column` }));
  const time = /** @type {HTMLSelectElement} */ (h('select', { class: 'stream-time', 'aria-label': `stream ${i + 1} time column` }));
  const ownWm = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', class: 'stream-own-wm' }));
  const wmBox = h('div', { class: 'stream-wm' });
  /** @type {Record<string, HTMLElement>} */
  const errs = {
    name: h('div', { class: 'control-error' }),
    columns: h('div', { class: 'control-error' }),
    key: h('div', { class: 'control-error' }),
    time: h('div', { class: 'control-error' }),
  };
  const editorErr = h('div', { class: 'editor-error', role: 'alert' });
  const editorHost = h('div', { class: 'editor-host' });
  const note = h('p', { class: 'note ignored-note' }, 'This operator reads only the first stream; these rows are ignored.');
  const wmCtl = controlSet(STREAM_WATERMARK_ITEMS(i).map((/** @type {any} */ item) => buildControl(item, ctx)));
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
    // The checkbox sits beside the disclosure, not in its summary (no control inside a control).
    h('div', { class: 'stream-wm-row' }, h('label', null, ownWm, ' own watermark settings for this stream'), h('details', { class: 'stream-wm-details' }, h('summary', null, 'show'), wmBox)),
  );
  const wmDetails = /** @type {HTMLDetailsElement} */ (el.querySelector('.stream-wm-details'));

  const spec = () => app.scenario.streams[i];
  const editor = createRowsEditor(editorHost, /** @type {any} */ ({
    label: `rows of stream ${i + 1}`,
    onChange: (/** @type {string} */ text) => {
      if (!spec()) return;
      spec().rows = text;
      actions.recompute({ rowsOnly: true });
    },
    // A big paste goes into the editor in slices: the progress bar shows how far it got.
    onPaste: (/** @type {{ done: number, total: number }} */ { done, total }) => actions.showProgress({ phase: 'pasting', fraction: total ? done / total : 0 }),
    // Meanwhile the engine starts on the text the paste will leave.
    onPasteStart: (/** @type {string} */ text) => spec() && actions.runAhead(i, text),
  }));

  // Hovering a row lights up its mark and its outputs (app/hover.js).
  editorHost.addEventListener('mousemove', (/** @type {MouseEvent} */ ev) => {
    const line = editor.lineAt(ev.clientX, ev.clientY);
    hoverRow(line === null ? null : rowIdAt(i, line));
  });
  editorHost.addEventListener('mouseleave', () => hoverRow(null));

  /** @param {HTMLSelectElement} sel @param {string | undefined} cur */
  function colOptions(sel, cur) {
    const cols = columnNames(spec());
    const opts = [h('option', { value: '' }, '(none)'), ...cols.map((/** @type {string} */ c) => h('option', { value: c }, c))];
    if (cur && !cols.includes(cur)) opts.push(h('option', { value: cur }, `${cur} (no such column)`));
    fill(sel, ...opts);
    sel.value = cur || '';
  }

  name.addEventListener('input', () => {
    spec().name = name.value;
    actions.recompute();
  });
  columns.addEventListener('input', () => {
    // A comma inside parentheses belongs to a type: `price:decimal(10,2)`.
    spec().columns = columns.value
      .split(/,(?![^()]*\))/)
      .map((c) => c.trim())
      .filter(Boolean);
    colOptions(key, spec().key);
    colOptions(time, spec().time);
    if (i === 0) ui.controls.load();
    actions.recompute();
  });
  for (const [sel, field] of /** @type {[HTMLSelectElement, string][]} */ ([
    [key, 'key'],
    [time, 'time'],
  ])) {
    sel.addEventListener('change', () => {
      if (sel.value) spec()[field] = sel.value;
      else delete spec()[field];
      actions.recompute();
    });
  }
  ownWm.addEventListener('change', () => {
    if (ownWm.checked) spec().watermark = JSON.parse(JSON.stringify((app.scenario.job && app.scenario.job.watermark) || {}));
    else delete spec().watermark;
    wmBox.hidden = !ownWm.checked;
    if (ownWm.checked) wmDetails.open = true;
    wmCtl.load();
    actions.recompute();
  });

  return {
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
      wmDetails.open = !!s.watermark;
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
}

/**
 * Builds the first stream panel not built yet (its editor is the costly part), before any
 * scenario is loaded: start-up builds the two of a join one task each.
 */
export function prebuildStream() {
  const p = buildStreamPanel(streamPanels.length);
  p.el.hidden = true;
  streamPanels.push(p);
  $('streams').append(p.el);
}

/** Builds the stream panels the scenario needs and loads them from it. */
export function layoutStreams() {
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

/** Marks the streams the operator does not read (a one-input operator's second stream). */
export function layoutStreamsVisibility() {
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

/** Clears the errors shown on the streams and the settings. */
export function clearErrors() {
  // Nothing to clear since the last clean-up: skip the ~50 DOM writes (every keystroke's run
  // ends here).
  if (!errorsMarked) return;
  errorsMarked = false;
  for (const p of streamPanels) p.clearErrors();
  ui.controls.clearErrors(true);
}

/** Whether `markError` may have marked something since the last `clearErrors` (start-up: unknown). */
let errorsMarked = true;

/**
 * Shows an engine error where it belongs (a row of an editor, a stream's field, a setting) and
 * returns the message for the status line.
 * @param {any} r an error result
 * @returns {string}
 */
export function markError(r) {
  const e = r.error || {};
  clearErrors();
  errorsMarked = true;
  let msg = r.message || e.message || 'error';
  if (e.kind === 'row') {
    const i = app.scenario.streams.findIndex((/** @type {any} */ s) => s.name === e.stream);
    if (i >= 0 && streamPanels[i]) streamPanels[i].rowError(e.line, e.column, e.message);
  } else if (e.kind === 'stream') {
    const i = app.scenario.streams.findIndex((/** @type {any} */ s) => s.name === e.stream);
    if (i >= 0 && streamPanels[i]) streamPanels[i].fieldError(e.field, e.message);
  } else if (e.kind === 'config') {
    const m = /^streams\[(\d+)\]\.watermark/.exec(e.field || '');
    const path = m ? e.field.replace(/^streams\[(\d+)\]/, 'streams.$1') : e.field || '';
    if (m && streamPanels[Number(m[1])]) streamPanels[Number(m[1])].wmCtl.markError(path, e.message);
    else ui.controls.markError(path, e.message);
    // In the user's terms: the setting's label, not its path in the scenario document.
    const label = document.querySelector(`.control[data-path="${CSS.escape(path)}"] label`);
    if (label && label.textContent && e.message) msg = `${label.textContent}: ${e.message}`;
  } else if (e.kind === 'json') {
    const bad = document.querySelector('.control.invalid');
    if (bad) msg = `${bad.querySelector('label')?.textContent}: ${bad.querySelector('.control-error')?.textContent}`;
  }
  return msg;
}

registerPanel({
  name: 'streams',
  render() {},
  onHover() {
    const r = app.result;
    const row = r && r.rows && app.hoverRow !== null ? r.rows[app.hoverRow] : null;
    streamPanels.forEach((p, i) => p.editor.setHoverLine(row && (row.side === 'right' ? 1 : 0) === i ? row.line : null));
  },
});
