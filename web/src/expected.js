// Expected results ("expected" in a scenario): a quiz in a docs page or a golden test.
// The format is documented in web/EMBED.md ("Expected results"). Every key is optional:
//
//   outputs       N  |  [[leftLine, rightLine], ...]  |  [["+I", leftLine, rightLine], ...]
//                 (a line is the row's line in its stream's editor; null for a null-padded side;
//                  for the split operator, [line, null])
//   ordered       true: the outputs list must match in order (default: as a multiset)
//   late          N  |  ["stream:line", ...]
//   side_outputs  { "tag": N | [line, ...] }
//   windows       N  |  [[key, start, end, count], ...]
//   watermarks    ["+inf", ...]  final watermark of each operator subtask
//
// check() returns { ok, checks: [{ what, ok, detail }] }.

import { fmtWatermark } from './format.js';

function lineOf(ref) {
  return ref ? ref.line : null;
}

function sameMultiset(a, b) {
  if (a.length !== b.length) return false;
  const m = new Map();
  for (const x of a) m.set(x, (m.get(x) || 0) + 1);
  for (const x of b) {
    const n = m.get(x);
    if (!n) return false;
    m.set(x, n - 1);
  }
  return true;
}

function describeList(items, limit = 6) {
  const s = items.slice(0, limit).join(' ');
  return items.length > limit ? `${s} … (${items.length})` : s || '(none)';
}

function outputKey(o, withKind) {
  const pair = `[${lineOf(o.left)}, ${lineOf(o.right)}]`;
  return withKind ? `${o.kind} ${pair}` : pair;
}

function expectedOutputKey(e) {
  if (!Array.isArray(e)) return null;
  if (e.length === 3 && typeof e[0] === 'string') return `${e[0]} [${e[1] ?? null}, ${e[2] ?? null}]`;
  if (e.length === 2 || e.length === 1) return `[${e[0] ?? null}, ${e.length === 2 ? e[1] ?? null : null}]`;
  return null;
}

function countOrList(what, want, gotKeys, wantKeysFn, ordered = false) {
  if (typeof want === 'number') {
    const ok = gotKeys.length === want;
    return { what, ok, detail: ok ? `${want} as expected` : `expected ${want}, got ${gotKeys.length}` };
  }
  if (Array.isArray(want)) {
    const wk = want.map(wantKeysFn);
    if (wk.some((k) => k === null)) return { what, ok: false, detail: 'the expected list has entries this page does not understand' };
    const ok = ordered ? wk.length === gotKeys.length && wk.every((k, i) => k === gotKeys[i]) : sameMultiset(wk, gotKeys);
    if (ok) return { what, ok, detail: `${want.length} as expected` };
    const missing = wk.filter((k) => !gotKeys.includes(k));
    const extra = gotKeys.filter((k) => !wk.includes(k));
    const parts = [];
    if (missing.length) parts.push(`missing ${describeList(missing)}`);
    if (extra.length) parts.push(`unexpected ${describeList(extra)}`);
    if (!parts.length) parts.push(ordered ? 'same rows, different order or counts' : 'different counts');
    return { what, ok, detail: parts.join('; ') };
  }
  return { what, ok: false, detail: 'expected a number or a list' };
}

/** Compares a run's result with a scenario's `expected`. Returns null when there is nothing to check. */
export function checkExpected(expected, result) {
  if (!expected || typeof expected !== 'object' || Array.isArray(expected)) return null;
  const checks = [];
  const known = new Set(['outputs', 'ordered', 'late', 'side_outputs', 'windows', 'watermarks']);
  if ('outputs' in expected) {
    const withKind = Array.isArray(expected.outputs) && expected.outputs.some((e) => Array.isArray(e) && e.length === 3 && typeof e[0] === 'string');
    const got = result.outputs.map((o) => outputKey(o, withKind));
    checks.push(countOrList('outputs', expected.outputs, got, expectedOutputKey, expected.ordered === true));
  }
  if ('late' in expected) {
    const got = result.late.map((l) => `${l.row.stream}:${l.row.line}`);
    checks.push(countOrList('late rows', expected.late, got, (e) => (typeof e === 'string' ? e : null)));
  }
  if ('side_outputs' in expected) {
    const so = expected.side_outputs;
    if (!so || typeof so !== 'object' || Array.isArray(so)) {
      checks.push({ what: 'side outputs', ok: false, detail: 'expected an object { tag: count or lines }' });
    } else {
      for (const [tag, want] of Object.entries(so)) {
        const got = (result.side_outputs[tag] || []).map((s) => String(s.row.line));
        checks.push(countOrList(`side output "${tag}"`, want, got, (e) => (typeof e === 'number' ? String(e) : null)));
      }
    }
  }
  if ('windows' in expected) {
    const got = (result.windows || []).map((w) => JSON.stringify([w.key, w.start, w.end, w.count]));
    checks.push(countOrList('windows', expected.windows, got, (e) => (Array.isArray(e) && e.length === 4 ? JSON.stringify(e) : null)));
  }
  if ('watermarks' in expected) {
    const got = result.watermarks.map((w) => fmtWatermark(w.watermark));
    const want = Array.isArray(expected.watermarks) ? expected.watermarks.map(fmtWatermark) : null;
    const ok = want !== null && want.length === got.length && want.every((w, i) => w === got[i]);
    checks.push({ what: 'final watermarks', ok, detail: ok ? got.join(' ') : `expected ${want ? want.join(' ') : '?'}, got ${got.join(' ')}` });
  }
  for (const k of Object.keys(expected)) {
    if (!known.has(k)) checks.push({ what: k, ok: true, ignored: true, detail: 'not a key this page checks; ignored' });
  }
  if (!checks.length) return null;
  return { ok: checks.every((c) => c.ok), checks };
}

/** An `expected` document that the given result meets (for "use this result as expected"). */
export function expectedFrom(result) {
  const sql = result.operator === 'sql_interval_join' || result.operator === 'regular_join';
  const e = {
    outputs: result.outputs.map((o) => (sql ? [o.kind, lineOf(o.left), lineOf(o.right)] : [lineOf(o.left), lineOf(o.right)])),
    late: result.late.map((l) => `${l.row.stream}:${l.row.line}`),
  };
  const tags = Object.keys(result.side_outputs || {});
  if (tags.length) {
    e.side_outputs = {};
    for (const t of tags) e.side_outputs[t] = result.side_outputs[t].map((s) => s.row.line);
  }
  if (result.windows && result.windows.length) e.windows = result.windows.map((w) => [w.key, w.start, w.end, w.count]);
  return e;
}
