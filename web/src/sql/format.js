// @ts-check
// The Output table of a SQL query's result: the query's own columns (`result.columns`) and each
// output's `values`, after the row kind (+I, -U, +U, -D).

/** @param {any} result */
export function sqlOutputHeaders(result) {
  return ['#', 'kind', ...result.columns, 'subtask'];
}

/** @param {any} v */
function cell(v) {
  if (v === null || v === undefined) return 'NULL';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** @param {any} o @param {number} i */
export function sqlOutputCells(o, i) {
  return [String(i + 1), o.kind || '+I', ...(o.values || []).map(cell), String(o.subtask)];
}
