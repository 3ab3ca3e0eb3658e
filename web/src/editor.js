// A CodeMirror 6 editor for one stream's rows: line numbers, the engine's parse error marked on
// its line and column (a lint diagnostic), light highlighting of comments, WM rows, row kinds
// and `| s= a=` annotations.

import { EditorState, StateEffect, StateField, Compartment, Annotation, Transaction } from '@codemirror/state';
import {
  EditorView,
  lineNumbers,
  keymap,
  drawSelection,
  highlightActiveLine,
  highlightActiveLineGutter,
  Decoration,
  ViewPlugin,
  MatchDecorator,
  placeholder as placeholderExt,
} from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { setDiagnostics, lintGutter } from '@codemirror/lint';

const marks = {
  comment: Decoration.mark({ class: 'tok-comment' }),
  wm: Decoration.mark({ class: 'tok-wm' }),
  kind: Decoration.mark({ class: 'tok-kind' }),
  note: Decoration.mark({ class: 'tok-note' }),
};

const rowSyntax = new MatchDecorator({
  // One regexp with alternatives: comment line | WM row | row kind prefix | annotation tail.
  regexp: /^\s*(?:#|\/\/).*$|^\s*[Ww][Mm] .*$|^\s*[+-][IUD](?=[\s,])|\|[^"|]*$/gm,
  decoration: (m) => {
    const t = m[0].trimStart();
    if (t.startsWith('#') || t.startsWith('//')) return marks.comment;
    if (/^[Ww][Mm] /.test(t)) return marks.wm;
    if (t.startsWith('|')) return marks.note;
    return marks.kind;
  },
});

const syntaxPlugin = ViewPlugin.fromClass(
  class {
    constructor(view) {
      this.decorations = rowSyntax.createDeco(view);
    }
    update(u) {
      this.decorations = rowSyntax.updateDeco(u, this.decorations);
    }
  },
  { decorations: (v) => v.decorations },
);

// The error line: a line decoration (class + data attribute) so it shows without hovering.
const setErrorLine = StateEffect.define();
const errorLineField = StateField.define({
  create: () => Decoration.none,
  update(deco, tr) {
    deco = deco.map(tr.changes);
    for (const e of tr.effects) {
      if (e.is(setErrorLine)) {
        if (e.value === null) deco = Decoration.none;
        else deco = Decoration.set([Decoration.line({ class: 'cm-error-line', attributes: { 'data-error': e.value.message } }).range(e.value.from)]);
      }
    }
    return deco;
  },
  provide: (f) => EditorView.decorations.from(f),
});

// The line of the row hovered elsewhere (its timeline mark, an output that holds it).
const setHoverLine = StateEffect.define();
const hoverLineField = StateField.define({
  create: () => Decoration.none,
  update(deco, tr) {
    deco = deco.map(tr.changes);
    for (const e of tr.effects) {
      if (e.is(setHoverLine)) deco = e.value === null ? Decoration.none : Decoration.set([Decoration.line({ class: 'cm-hover-line' }).range(e.value)]);
    }
    return deco;
  },
  provide: (f) => EditorView.decorations.from(f),
});

/** Marks the transactions of a sliced paste. */
const slicedPaste = Annotation.define();

/** A paste of more characters than this is inserted in slices, one task each (see `pasteInSlices`). */
export const BIG_PASTE_CHARS = 1 << 18;
/** Characters per slice of a big paste (1–2 ms of CodeMirror's work each). */
const SLICE_CHARS = 1 << 17;
/** The largest span `setText` replaces in place instead of making a new state. */
const SMALL_CHANGE_CHARS = 4096;
/** Main-thread time spent on slices per frame (ms). */
const FRAME_WORK_MS = 8;

/**
 * Waits for the next frame to be painted (so the progress bar shows and input is handled
 * between slices); a hidden page gets no frames, hence the timer.
 */
function afterNextPaint() {
  return new Promise((resolve) => {
    let done = false;
    const go = () => {
      if (done) return;
      done = true;
      resolve();
    };
    requestAnimationFrame(() => setTimeout(go, 0));
    setTimeout(go, 100);
  });
}

/** `text` with the changes of a CodeMirror ChangeSet applied (`text` is the document before them). */
function applyChanges(text, changes) {
  let out = '';
  let pos = 0;
  changes.iterChanges((fromA, toA, _fromB, _toB, inserted) => {
    out += text.slice(pos, fromA) + inserted.toString();
    pos = toA;
  });
  return out + text.slice(pos);
}

/**
 * Creates an editor in `parent`. `onChange(text)` is called on every edit, synchronously, with
 * the editor's text (kept up to date edit by edit from the changes, so that a keystroke in a
 * 500,000-line editor does not join all of its lines again). A paste of more than
 * BIG_PASTE_CHARS characters is inserted in slices across tasks (CodeMirror builds its document
 * tree for a 10 MB paste in one go in about 80 ms, longer than a frame's worth of blocking);
 * `onPaste({ done, total })` reports how far it got, `onPasteStart(text)` gets the text the
 * paste will leave when it begins, and `onChange` is called once at the end.
 * Returns { view, setText, getText, setError(line, column, message), clearError, setReadOnly, lines, abortPaste }.
 */
export function createRowsEditor(parent, { text = '', readOnly = false, onChange, onPaste, onPasteStart, label = 'rows' } = {}) {
  const ro = new Compartment();
  let silent = false;
  let errored = false;
  // The editor's text as one string, when known (null: ask the document). CodeMirror splits
  // lines at \r\n, \r and \n, so a text without \r is exactly what `doc.toString()` returns.
  let mirror = text.indexOf('\r') < 0 ? text : null;
  // A sliced paste in progress: { aborted }.
  let pasting = null;
  // Whether the editor is read-only now (a state made by `setText` starts as it is).
  let readOnlyNow = readOnly;
  const extensions = () => [
    lineNumbers(),
    highlightActiveLineGutter(),
    lintGutter(),
    history(),
    drawSelection(),
    highlightActiveLine(),
    keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
    syntaxPlugin,
    errorLineField,
    hoverLineField,
    placeholderExt('one row per line: value, value, time   (# comment, WM 5000, | s=1 a=2000)'),
    ro.of([EditorState.readOnly.of(readOnlyNow), EditorView.editable.of(!readOnlyNow)]),
    EditorView.contentAttributes.of({ 'aria-label': label }),
    EditorView.domEventHandlers({
      paste(event, v) {
        if (v.state.readOnly || pasting) return pasting !== null;
        const t = event.clipboardData && event.clipboardData.getData('text/plain');
        if (!t || t.length <= BIG_PASTE_CHARS) return false;
        event.preventDefault();
        pasteInSlices(t);
        return true;
      },
    }),
    EditorView.updateListener.of((u) => {
      if (!u.docChanged) return;
      // (A sliced paste sets the text once at its end; an edit typed in the middle of one
      // makes that text unknown: it is then read from the document.)
      if (!pasting) mirror = mirror !== null ? applyChanges(mirror, u.changes) : null;
      else if (!u.transactions.some((tr) => tr.annotation(slicedPaste))) pasting.foreign = true;
      if (!silent && !pasting && onChange) onChange(getText());
    }),
  ];
  const view = new EditorView({ parent, state: EditorState.create({ doc: text, extensions: extensions() }) });

  function getText() {
    if (mirror === null) mirror = view.state.doc.toString();
    return mirror;
  }

  /** Replaces the selection with `t`, SLICE_CHARS at a time, yielding to the browser in between. */
  async function pasteInSlices(t) {
    const job = { aborted: false };
    pasting = job;
    if (t.indexOf('\r') >= 0) t = t.replace(/\r\n?/g, '\n');
    const { from, to } = view.state.selection.main;
    const base = getText();
    const replaced = base.slice(from, to);
    const final = base.slice(0, from) + t + base.slice(to);
    const total = t.length;
    let pos = 0;
    try {
      onPaste && onPaste({ done: 0, total });
      // The engine may start on the text the paste leaves while the slices go in (`onChange`
      // with that text at the end takes that run over, unless an edit came in between).
      onPasteStart && !silent && onPasteStart(final);
      while (pos < total && !job.aborted) {
        await afterNextPaint();
        const t0 = performance.now();
        while (pos < total && !job.aborted && performance.now() - t0 < FRAME_WORK_MS) {
          let end = Math.min(total, pos + SLICE_CHARS);
          if (end < total) {
            const nl = t.indexOf('\n', end);
            end = nl < 0 ? total : nl + 1;
          }
          const last = end === total;
          view.dispatch({
            changes: { from: from + pos, to: pos === 0 ? to : from + pos, insert: t.slice(pos, end) },
            selection: last ? { anchor: from + total } : undefined,
            scrollIntoView: last,
            userEvent: 'input.paste',
            annotations: slicedPaste.of(true),
          });
          pos = end;
        }
        if (!job.aborted && onPaste) onPaste({ done: pos, total });
      }
      if (job.aborted) {
        // Cancelled: put back what was there before the paste (no run: the text is as it was).
        if (pos > 0) view.dispatch({ changes: { from, to: from + pos, insert: replaced }, selection: { anchor: from, head: to }, annotations: slicedPaste.of(true) });
        mirror = job.foreign ? null : base;
        return;
      }
      mirror = job.foreign ? null : final;
    } finally {
      pasting = null;
    }
    // The run starts in a task of its own, after the last slice is painted.
    await afterNextPaint();
    if (onChange && !silent) onChange(getText());
  }

  function clearError() {
    if (!errored) return;
    errored = false;
    view.dispatch(setDiagnostics(view.state, []), { effects: setErrorLine.of(null) });
  }

  function setError(line, column, message) {
    const doc = view.state.doc;
    const ln = doc.line(Math.min(Math.max(1, line | 0), doc.lines));
    const from = Math.min(ln.from + Math.max(0, (column | 0) - 1), ln.to);
    // Underline from the column to the end of the field (next comma or bar), at least one char.
    const rest = doc.sliceString(from, ln.to);
    const m = /^[^,|]*/.exec(rest);
    let to = from + (m ? m[0].trimEnd().length : 0);
    if (to <= from) to = Math.min(from + 1, ln.to);
    const diag = { from, to: Math.max(to, from), severity: 'error', message, source: 'joinlab' };
    errored = true;
    view.dispatch(setDiagnostics(view.state, [diag]), { effects: setErrorLine.of({ from: ln.from, message }) });
  }

  return {
    view,
    getText,
    lines: () => view.state.doc.lines,
    /** Whether a sliced paste is in progress. */
    get pasting() {
      return pasting !== null;
    },
    /** Stops a sliced paste in progress and restores the text it replaced. */
    abortPaste() {
      if (pasting) pasting.aborted = true;
    },
    setText(t) {
      // A small difference (a value typed in the SQL editor rewrites one row here) is applied
      // as one change of the differing span: the editor keeps its lines, scroll position and
      // undo history, and redraws one line (a new state re-measures the first screen: about
      // 8 ms per keystroke for 500 rows).
      const cur = mirror ?? (pasting ? null : getText());
      if (cur !== null && !pasting && t.indexOf('\r') < 0) {
        const n = Math.min(cur.length, t.length);
        let a = 0;
        while (a < n && cur.charCodeAt(a) === t.charCodeAt(a)) a++;
        let b = 0;
        while (b < n - a && cur.charCodeAt(cur.length - 1 - b) === t.charCodeAt(t.length - 1 - b)) b++;
        if (a === cur.length && a === t.length) return;
        if (cur.length - a - b <= SMALL_CHANGE_CHARS && t.length - a - b <= SMALL_CHANGE_CHARS) {
          silent = true;
          try {
            view.dispatch({ changes: { from: a, to: cur.length - b, insert: t.slice(a, t.length - b) }, annotations: Transaction.addToHistory.of(false) });
          } finally {
            silent = false;
          }
          return;
        }
      }
      // Otherwise a new state, not a change replacing the document: an editor that has not
      // been laid out yet (start-up builds them hidden) counts as out of view, and CodeMirror
      // then maps its viewport over the whole new document and draws every line (10,001 lines
      // of a short link: one 0.5–1 s task of layout, tests/browser/hostile-links.test.mjs). A
      // new state draws the lines of the first screen only. It also starts a new undo history:
      // undo does not go back into the scenario shown before.
      view.setState(EditorState.create({ doc: t, extensions: extensions() }));
      mirror = t.indexOf('\r') < 0 ? t : null;
      errored = false;
    },
    setError,
    clearError,
    /** Lights line `n` (1-based; null: none), the row hovered in another panel. */
    setHoverLine(n) {
      const doc = view.state.doc;
      const at = n === null || n === undefined || n < 1 || n > doc.lines ? null : doc.line(n).from;
      view.dispatch({ effects: setHoverLine.of(at) });
    },
    /** The 1-based line under a pointer position, or null. */
    lineAt(x, y) {
      const pos = view.posAtCoords({ x, y });
      return pos === null ? null : view.state.doc.lineAt(pos).number;
    },
    setReadOnly(v) {
      readOnlyNow = v;
      view.dispatch({ effects: ro.reconfigure([EditorState.readOnly.of(v), EditorView.editable.of(!v)]) });
    },
  };
}
