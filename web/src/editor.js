// A CodeMirror 6 editor for one stream's rows: line numbers, the engine's parse error marked on
// its line and column (a lint diagnostic), light highlighting of comments, WM rows, row kinds
// and `| s= a=` annotations.

import { EditorState, StateEffect, StateField, Compartment } from '@codemirror/state';
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

/**
 * Creates an editor in `parent`. `onChange(text)` is called on every edit, synchronously.
 * Returns { view, setText, getText, setError(line, column, message), clearError, setReadOnly, lines }.
 */
export function createRowsEditor(parent, { text = '', readOnly = false, onChange, label = 'rows' } = {}) {
  const ro = new Compartment();
  let silent = false;
  let errored = false;
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: text,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        lintGutter(),
        history(),
        drawSelection(),
        highlightActiveLine(),
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        syntaxPlugin,
        errorLineField,
        placeholderExt('one row per line: value, value, time   (# comment, WM 5000, | s=1 a=2000)'),
        ro.of([EditorState.readOnly.of(readOnly), EditorView.editable.of(!readOnly)]),
        EditorView.contentAttributes.of({ 'aria-label': label }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged && !silent && onChange) onChange(u.state.doc);
        }),
      ],
    }),
  });

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
    getText: () => view.state.doc.toString(),
    lines: () => view.state.doc.lines,
    setText(t) {
      silent = true;
      try {
        view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: t } });
      } finally {
        silent = false;
      }
      errored = true;
      clearError();
    },
    setError,
    clearError,
    setReadOnly(v) {
      view.dispatch({ effects: ro.reconfigure([EditorState.readOnly.of(v), EditorView.editable.of(!v)]) });
    },
  };
}
