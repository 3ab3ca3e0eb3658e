// @ts-check
// The Output table of a SQL query's result: the query's own columns (`result.columns`) and each
// output's `values`, after the row kind (+I, -U, +U, -D).

/** @param {any} result */
export function sqlOutputHeaders(result) {
  return ['#', 'kind', ...result.columns, 'subtask'];
}

/** A DECIMAL keeps its scale as Flink prints it (1.50): `scale` is its column's `column_scales` entry.
 * @param {any} v @param {number | null | undefined} scale */
function cell(v, scale) {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number' && scale !== null && scale !== undefined) return decimalText(v, scale);
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** `toFixed` up to its limits (|v| < 1e21, scale <= 100); beyond them, the number as it is.
 * @param {number} v @param {number} scale */
export function decimalText(v, scale) {
  return Math.abs(v) < 1e21 && scale <= 100 ? v.toFixed(scale) : String(v);
}

/** @param {any} o @param {number} i @param {any} [result] */
export function sqlOutputCells(o, i, result) {
  const scales = (result && result.column_scales) || [];
  return [String(i + 1), o.kind || '+I', ...(o.values || []).map((/** @type {any} */ v, /** @type {number} */ j) => cell(v, scales[j])), String(o.subtask)];
}
