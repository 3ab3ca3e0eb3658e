// @ts-check
// One input row hovered anywhere lights up everywhere: its line in its editor, its mark on the
// timeline, and every output it is part of. The editors, the timeline and the output table
// call `hoverRow`; each registered panel with `onHover` redraws its highlight.

import { app } from './state.js';
import { panels } from './registry.js';

/** The row id of line `line` (1-based) of stream `stream` (0 left, 1 right), or -1. @param {number} stream @param {number} line */
export function rowIdAt(stream, line) {
  const rows = (app.result && app.result.rows) || [];
  const side = stream === 1 ? 'right' : 'left';
  for (let i = 0; i < rows.length; i++) if (rows[i] && rows[i].line === line && (rows[i].side || 'left') === side) return i;
  return -1;
}

/** Lights up row `id` (-1 or null: none) in every panel that shows it. @param {number | null} id */
export function hoverRow(id) {
  const v = id === null || id < 0 ? null : id;
  if (app.hoverRow === v) return;
  app.hoverRow = v;
  for (const p of panels()) if (p.onHover) p.onHover();
}
