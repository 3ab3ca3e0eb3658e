// @ts-check
// The SQL editor itself (CodeMirror 6 with @codemirror/lang-sql's Flink dialect, completion and
// lint marks), a chunk of its own: loaded with the SQL module, never on a page that opens no
// SQL scenario.

import { EditorView, keymap, lineNumbers, drawSelection, highlightActiveLine } from '@codemirror/view';
import { EditorState, Compartment } from '@codemirror/state';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { setDiagnostics, lintGutter } from '@codemirror/lint';
import { syntaxHighlighting, HighlightStyle } from '@codemirror/language';
import { tags as t } from '@lezer/highlight';
import { autocompletion, completionKeymap } from '@codemirror/autocomplete';
import { flinkSql, schemaOf } from './dialect.js';

/** Token colours with at least 4.5:1 contrast on white (WCAG AA; the page's axe-core tests). */
const STYLE = HighlightStyle.define([
  { tag: t.keyword, color: '#6f1d83' },
  { tag: [t.typeName, t.standard(t.name)], color: '#0b5866' },
  { tag: [t.string, t.special(t.string)], color: '#1d6a1d' },
  { tag: [t.number, t.bool, t.null], color: '#1c4f9c' },
  { tag: [t.lineComment, t.blockComment, t.comment], color: '#595959', fontStyle: 'italic' },
  { tag: t.invalid, color: '#b00020' },
]);

/**
 * An editor in `parent`; `onChange(text)` on every edit typed (not on `setText`).
 * @param {HTMLElement} parent @param {{ onChange: (text: string) => void, readOnly: boolean }} opts
 */
export function createSqlEditor(parent, { onChange, readOnly }) {
  const language = new Compartment();
  const editable = new Compartment();
  let schemaKey = '';
  let silent = false;
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: '',
      extensions: [
        lineNumbers(),
        history(),
        drawSelection(),
        highlightActiveLine(),
        syntaxHighlighting(STYLE),
        autocompletion(),
        lintGutter(),
        keymap.of([...completionKeymap, ...defaultKeymap, ...historyKeymap]),
        language.of(flinkSql('')),
        editable.of(EditorView.editable.of(!readOnly)),
        EditorView.contentAttributes.of({ 'aria-label': 'Flink SQL script', spellcheck: 'false' }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged && !silent) onChange(u.state.doc.toString());
        }),
      ],
    }),
  });
  // The script scrolls inside its box: the box is reachable by keyboard (axe-core's
  // scrollable-region-focusable).
  view.scrollDOM.tabIndex = 0;
  view.scrollDOM.setAttribute('aria-label', 'Flink SQL script (scroll)');
  return {
    /** Table and column completion follows the script's CREATE TABLE statements. @param {string} text */
    setSchema(text) {
      const key = JSON.stringify(schemaOf(text));
      if (key === schemaKey) return;
      schemaKey = key;
      view.dispatch({ effects: language.reconfigure(flinkSql(text)) });
    },
    /**
     * Puts `text` in the editor without `onChange` (it came from the scenario). Only the span
     * that differs is replaced (a row typed in a row editor rewrites one line of a long
     * script): the editor keeps the rest of its lines, their highlighting and the scroll
     * position, instead of laying out and parsing the whole script again.
     * @param {string} text
     */
    setText(text) {
      const cur = view.state.doc.toString();
      if (cur !== text) {
        const n = Math.min(cur.length, text.length);
        let a = 0;
        while (a < n && cur.charCodeAt(a) === text.charCodeAt(a)) a++;
        let b = 0;
        while (b < n - a && cur.charCodeAt(cur.length - 1 - b) === text.charCodeAt(text.length - 1 - b)) b++;
        silent = true;
        try {
          view.dispatch({ changes: { from: a, to: cur.length - b, insert: text.slice(a, text.length - b) } });
        } finally {
          silent = false;
        }
      }
      this.setSchema(text);
    },
    /** @param {boolean} ro */
    setReadOnly(ro) {
      view.dispatch({ effects: editable.reconfigure(EditorView.editable.of(!ro)) });
    },
    /**
     * Marks errors (1-based line and column) as lint diagnostics: from the column to the end of
     * the word there.
     * @param {{ line: number, column: number, message: string }[]} errors
     */
    mark(errors) {
      const doc = view.state.doc;
      const diags = errors.map((e) => {
        const line = doc.line(Math.min(Math.max(1, e.line || 1), doc.lines));
        const from = Math.min(line.from + Math.max(0, (e.column || 1) - 1), line.to);
        const word = /^[\w`']+/.exec(doc.sliceString(from, line.to));
        const to = Math.max(from, Math.min(line.to, from + (word ? word[0].length : 1)));
        return { from, to, severity: /** @type {'error'} */ ('error'), message: e.message };
      });
      view.dispatch(setDiagnostics(view.state, diags));
    },
  };
}
