// Pure formatting of engine results: shared by the page and the browser tests (no DOM here).
import { sqlOutputHeaders, sqlOutputCells, decimalText } from './sql/format.js';

/** A watermark as the engine serialises it: a number, or "-inf" / "+inf". */
export function fmtWatermark(w) {
  if (w === '-inf' || w === null || w === undefined) return '−∞';
  if (w === '+inf') return '+∞';
  return String(w);
}

/** A value of a row; doubles keep a decimal point as Java prints them (1.0, not 1), a
 * `decimal(p,s)` its scale (1.50). */
export function fmtValue(v, type) {
  if (v === null || v === undefined) return 'null';
  if (type === 'double' && typeof v === 'number' && Number.isInteger(v)) return v.toFixed(1);
  const dec = typeof type === 'string' && typeof v === 'number' ? /^decimal\((\d+),(\d+)\)$/.exec(type) : null;
  if (dec) return decimalText(v, Number(dec[2]));
  return String(v);
}

function columnsOf(result, streamName) {
  const streams = result.streams || [];
  for (let i = 0; i < streams.length; i++) if (streams[i].name === streamName) return streams[i].columns;
  return [];
}

// Per-result facts the cell formatters need, computed once per result.
const facts = new WeakMap();
function factsOf(result) {
  let f = facts.get(result);
  if (!f) {
    f = {
      sql: SQL_OPS.has(result.operator),
      window: (result.outputs || []).some((o) => o.window),
      sum: (result.windows || []).some((w) => w.sum !== undefined && w.sum !== null),
    };
    facts.set(result, f);
  }
  return f;
}

/** "clicks:3 (Alice, ./cart, 3000)" */
export function fmtRowRef(ref, result) {
  if (!ref) return 'null';
  const cols = columnsOf(result, ref.stream);
  const vals = ref.values.map((v, i) => fmtValue(v, cols[i] && cols[i].type)).join(', ');
  return `${ref.stream}:${ref.line} (${vals})`;
}

export function fmtTs(ts) {
  return ts === null || ts === undefined ? '-' : String(ts);
}

export function fmtWindow(w) {
  return w ? `[${w[0]}, ${w[1]})` : '';
}

const SQL_OPS = new Set(['sql_interval_join', 'regular_join']);
export function isSql(result) {
  return SQL_OPS.has(result.operator);
}

/** Column headers of the output table for a result. */
export function outputHeaders(result) {
  if (Array.isArray(result.columns)) return sqlOutputHeaders(result);
  const f = factsOf(result);
  const h = ['#'];
  if (f.sql) h.push('kind');
  h.push(result.operator === 'split' ? 'row' : 'left');
  if (result.operator !== 'split') h.push('right');
  h.push('timestamp', 'subtask');
  if (f.window) h.push('window');
  return h;
}

/** The cells of one output row, as text (same order as outputHeaders). */
export function outputCells(o, i, result) {
  if (Array.isArray(result.columns)) return sqlOutputCells(o, i, result);
  const f = factsOf(result);
  const c = [String(i + 1)];
  if (f.sql) c.push(o.kind);
  c.push(fmtRowRef(o.left, result));
  if (result.operator !== 'split') c.push(fmtRowRef(o.right, result));
  c.push(fmtTs(o.timestamp), String(o.subtask));
  if (f.window) c.push(fmtWindow(o.window));
  return c;
}

export const LATE_HEADERS = ['#', 'row', 'timestamp', 'watermark', 'subtask', 'side output', 'why'];
export function lateCells(l, i, result) {
  return [
    String(i + 1),
    fmtRowRef(l.row, result),
    fmtTs(l.timestamp),
    fmtWatermark(l.watermark),
    String(l.subtask),
    l.side_output === null || l.side_output === undefined ? 'dropped' : l.side_output,
    l.message,
  ];
}

export const SIDE_HEADERS = ['#', 'row', 'timestamp', 'subtask'];
export function sideCells(s, i, result) {
  return [String(i + 1), fmtRowRef(s.row, result), fmtTs(s.timestamp), String(s.subtask)];
}

export function windowHeaders(result) {
  const h = ['#', 'key', 'window', 'count'];
  if (factsOf(result).sum) h.push('sum');
  h.push('timestamp', 'subtask', 'firing', 'lines');
  return h;
}
export function windowCells(w, i, result) {
  const c = [String(i + 1), fmtValue(w.key), `[${w.start}, ${w.end})`, String(w.count)];
  if (factsOf(result).sum) c.push(w.sum === undefined || w.sum === null ? '' : fmtValue(w.sum, 'double'));
  c.push(String(w.timestamp), String(w.subtask), String(w.firing), w.lines.join(', '));
  return c;
}

/** Milliseconds in the shortest exact human form: 10000 → "10s", 90000 → "1m 30s", 1500 → "1500ms". */
export function fmtDuration(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return String(ms);
  if (ms === 0) return '0';
  const neg = ms < 0;
  let v = Math.abs(ms);
  const units = [
    ['d', 86400000],
    ['h', 3600000],
    ['m', 60000],
    ['s', 1000],
  ];
  if (v % 1000 !== 0) return `${neg ? '-' : ''}${v}ms`;
  const parts = [];
  for (const [u, n] of units) {
    if (v >= n) {
      parts.push(`${Math.floor(v / n)}${u}`);
      v %= n;
    }
  }
  // Keep it short: at most two terms, else plain milliseconds.
  if (parts.length > 2) return `${neg ? '-' : ''}${Math.abs(ms)}ms`;
  return (neg ? '-' : '') + parts.join(' ');
}

/** A UTC date-time for large epoch timestamps (tooltips). */
export function fmtDateTime(ms) {
  if (typeof ms !== 'number' || Math.abs(ms) < 1e11) return '';
  try {
    return new Date(ms).toISOString().replace('T', ' ').replace(/\.000Z$/, '').replace(/Z$/, '');
  } catch {
    return '';
  }
}
