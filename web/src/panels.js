// The result panels: outputs, late rows, side outputs, window results, watermarks, keys,
// state left at the end, warnings. Everything is drawn from the engine's result and trace.

import { h, fill, table, updateTable, virtualTable } from './dom.js';
import {
  fmtWatermark,
  fmtValue,
  outputHeaders,
  outputCells,
  LATE_HEADERS,
  lateCells,
  SIDE_HEADERS,
  sideCells,
  windowHeaders,
  windowCells,
  fmtDateTime,
} from './format.js';

/** Rows shown before "show more". */
export const PAGE_ROWS = 1000;
/** Rows shown before "show more" for a large result kept in the engine worker. */
export const PAGED_ROWS = 200;

/**
 * Tables of one-line rows longer than this keep only the rows in view in the DOM (virtualTable);
 * shorter ones, and tables with a wrapping words column, have every row in the DOM.
 */
export const VIRTUAL_ROWS = 100;

/** "show all" is offered for a list kept in the engine worker up to this many rows still to fetch. */
const FETCH_ALL_MAX = 50000;

/**
 * A table that renders at most `limit` rows, with a button for more; reuses its rows across runs.
 * A list of a large result may be paged: `items` holds its first rows, `total` its length and
 * `fetch(from, count)` resolves more of them (from the engine worker, which keeps the result).
 */
function cappedTable(container, headers, items, cellsOf, { rowClass, rowTitle, empty = 'none', limit = PAGE_ROWS, wordsColumn = -1, total = items.length, fetch = null, chunk = 0 } = {}) {
  // How many rows the user asked to see stays as long as the container lives.
  let shown = Math.min(items.length, Math.max(limit, container.__shown || 0));
  const token = (container.__token = {});
  // Shows `want` rows, fetching those not here yet.
  const showUpTo = (want) => {
    want = Math.min(total, want);
    if (want <= items.length || !fetch) {
      shown = container.__shown = Math.min(items.length, want);
      draw();
      return;
    }
    const more = container.querySelector(':scope > p.more');
    if (more) more.firstChild.textContent = `loading rows ${items.length + 1}–${want} of ${total}… `;
    fetch(items.length, want - items.length).then(
      (rows) => {
        if (container.__token !== token) return;
        for (const r of rows) items.push(r);
        shown = container.__shown = Math.min(items.length, want);
        draw();
      },
      (e) => {
        if (container.__token !== token) return;
        if (more) more.firstChild.textContent = `showing ${shown} of ${total} (${e.message}) `;
      },
    );
  };
  const draw = () => {
    if (!items.length) {
      if (!container.querySelector(':scope > p.empty')) fill(container, h('p', { class: 'empty' }, empty));
      else container.firstElementChild.textContent = empty;
      return;
    }
    let wrap = container.firstElementChild;
    if (!wrap || !wrap.classList.contains('table-wrap')) {
      wrap = h('div', { class: 'table-wrap' });
      fill(container, wrap);
    }
    const rowOpts = { rowClass: rowClass && ((i) => rowClass(items[i], i)), rowTitle: rowTitle && ((i) => rowTitle(items[i], i)) };
    if (shown > VIRTUAL_ROWS && wordsColumn < 0) {
      virtualTable(wrap, headers, shown, (i) => cellsOf(items[i], i), rowOpts);
    } else {
      wrap.__virtual = null;
      const rows = new Array(shown);
      for (let i = 0; i < shown; i++) rows[i] = cellsOf(items[i], i);
      updateTable(wrap, headers, rows, { ...rowOpts, wordsColumn, chunk });
    }
    let more = wrap.nextElementSibling;
    if (shown < total) {
      const m = h(
        'p',
        { class: 'more' },
        `showing ${shown} of ${total} `,
        h('button', { type: 'button', class: 'small', onclick: () => showUpTo(shown + limit * 5) }, 'show more'),
        ' ',
        total - items.length <= FETCH_ALL_MAX ? h('button', { type: 'button', class: 'small', onclick: () => showUpTo(total) }, 'show all') : null,
      );
      if (more) more.replaceWith(m);
      else container.append(m);
    } else if (more) more.remove();
  };
  draw();
}

export function setCount(section, n) {
  const c = section.querySelector('.count');
  if (c) c.textContent = n === null ? '' : String(n);
}

const KIND_CLASS = { '+I': 'kind-insert', '-D': 'kind-delete', '-U': 'kind-update-before', '+U': 'kind-update-after' };

/** Paging options of a result's list (`field`, or the side output `tag`) kept in the engine worker. */
function paging(result, field, tag) {
  const p = result.paged;
  const total = p && (tag !== undefined ? p.side_outputs && p.side_outputs[tag] : p[field]);
  if (total === undefined || !result.fetch) return {};
  // A paged result shows its first PAGED_ROWS rows and fetches more from the worker on "show
  // more". (Its tables are virtual, so the rows shown cost little to draw; a table with a
  // words column, which is not, gets its new rows 250 per task.)
  return { total, limit: PAGED_ROWS, chunk: 250, fetch: (from, count) => result.fetch({ what: 'rows', field, tag, from, count }) };
}

export function renderOutputs(body, result) {
  cappedTable(body, outputHeaders(result), result.outputs, (o, i) => outputCells(o, i, result), {
    ...paging(result, 'outputs'),
    rowClass: (o) => KIND_CLASS[o.kind] || '',
    rowTitle: (o) => fmtDateTime(o.timestamp),
    empty: result.operator === 'window_aggregate' ? 'no main output (see window results)' : 'no output rows',
  });
}

export function renderLate(body, result) {
  cappedTable(body, LATE_HEADERS, result.late, (l, i) => lateCells(l, i, result), { empty: 'no late rows', wordsColumn: LATE_HEADERS.length - 1, ...paging(result, 'late') });
}

export function renderSide(body, result) {
  const tags = Object.keys(result.side_outputs || {});
  if (!tags.length) {
    fill(body, h('p', { class: 'empty' }, 'no side outputs'));
    return 0;
  }
  fill(body);
  let total = 0;
  for (const tag of tags) {
    const rows = result.side_outputs[tag];
    const pg = paging(result, undefined, tag);
    const n = pg.total ?? rows.length;
    total += n;
    const box = h('div', { class: 'side-table' });
    body.append(h('h3', { class: 'tag', dataset: { tag } }, `"${tag}" `, h('span', { class: 'count' }, String(n))), box);
    cappedTable(box, SIDE_HEADERS, rows, (s, i) => sideCells(s, i, result), { empty: 'empty', ...pg });
  }
  return total;
}

export function renderWindows(body, result) {
  const ws = result.windows || [];
  cappedTable(body, windowHeaders(result), ws, (w, i) => windowCells(w, i, result), { empty: 'no window results', ...paging(result, 'windows') });
}

/** Watermarks before end of input and per input channel, picked from the trace. */
function watermarkDetail(result) {
  const trace = result.trace;
  if (!trace) return null;
  const before = new Map();
  const channels = new Map();
  const assigners = new Map();
  const idle = new Map();
  let sawEnd = false;
  for (const step of trace) {
    if (step.cause.type === 'end_of_input') {
      sawEnd = true;
      break;
    }
    for (const e of step.events) {
      if (e.type === 'operator_watermark') before.set(e.subtask, e.watermark);
      else if (e.type === 'channel_watermark') channels.set(`${e.subtask}|${e.stream}|${e.assigner}`, e.watermark);
      else if (e.type === 'assigner_watermark') assigners.set(`${e.stream}|${e.assigner}`, e.watermark);
      else if (e.type === 'assigner_status') idle.set(`${e.stream}|${e.assigner}`, e.idle);
    }
  }
  return { before, channels, assigners, idle, sawEnd };
}

const SIDES = ['left', 'right'];

export function renderWatermarks(body, result) {
  const d = watermarkDetail(result);
  const streams = result.streams.map((s) => s.name);
  const nAssign = result.parallelism;
  const opHeaders = ['operator subtask'];
  if (d) opHeaders.push('before end of input');
  opHeaders.push('final');
  if (d) opHeaders.push('input channels (before end of input)');
  const opRows = result.watermarks.map((w) => {
    const r = [String(w.subtask)];
    if (d) r.push(fmtWatermark(d.before.has(w.subtask) ? d.before.get(w.subtask) : '-inf'));
    r.push(fmtWatermark(w.watermark));
    if (d) {
      const parts = [];
      streams.forEach((name, si) => {
        for (let a = 0; a < nAssign; a++) {
          const k = `${w.subtask}|${SIDES[si]}|${a}`;
          parts.push(`${name}#${a}: ${fmtWatermark(d.channels.has(k) ? d.channels.get(k) : '-inf')}`);
        }
      });
      r.push(parts.join('   '));
    }
    return r;
  });
  const asHeaders = ['stream', 'assigner subtask'];
  if (d) asHeaders.push('before end of input');
  asHeaders.push('final');
  const asRows = [];
  (result.assigner_watermarks || []).forEach((list, si) => {
    list.forEach((w, a) => {
      const r = [streams[si] || `stream ${si}`, String(a)];
      if (d) {
        const k = `${SIDES[si]}|${a}`;
        const v = fmtWatermark(d.assigners.has(k) ? d.assigners.get(k) : '-inf');
        r.push(d.idle.get(k) ? `${v} (idle)` : v);
      }
      r.push(fmtWatermark(w));
      asRows.push(r);
    });
  });
  fill(
    body,
    h('h3', null, `Operator (${result.operator_parallelism} subtask${result.operator_parallelism === 1 ? '' : 's'}, max parallelism ${result.max_parallelism})`),
    h('div', { class: 'table-wrap' }, table(opHeaders, opRows, { className: 'grid wm-operator', rowAttrs: (i) => ({ dataset: { subtask: String(result.watermarks[i].subtask) } }) })),
    h('h3', null, `Timestamp/watermark assigners (${nAssign} subtask${nAssign === 1 ? '' : 's'} per stream)`),
    h('div', { class: 'table-wrap' }, table(asHeaders, asRows, { className: 'grid wm-assigner' })),
  );
}

export function renderKeys(body, result) {
  const keys = result.keys || [];
  if (!keys.length) {
    fill(body, h('p', { class: 'empty' }, result.keys ? 'no keys' : 'key routing is shown for inputs small enough to trace'));
    return;
  }
  cappedTable(body, ['key', 'hashCode', 'key group', 'operator subtask'], keys, (k) => [fmtValue(k.value), String(k.hash), String(k.key_group), String(k.subtask)], { limit: 200 });
}

function rowLabel(result, id) {
  const r = result.rows && result.rows[id];
  if (!r) return `row ${id}`;
  const s = result.streams[r.side === 'right' ? 1 : 0];
  return `${s ? s.name : r.side}:${r.line}`;
}

function keyLabel(result, key) {
  const k = result.keys && result.keys[key];
  return k ? fmtValue(k.value) : `#${key}`;
}

export function renderState(body, result) {
  const st = result.final_state || [];
  if (!st.length) {
    fill(body, h('p', { class: 'empty' }, 'all state and timers were cleared'));
    return 0;
  }
  const rows = [];
  for (const s of st) {
    for (const e of s.entries) rows.push([String(s.subtask), keyLabel(result, e.key), e.side || '', e.scope, e.rows.map((id) => rowLabel(result, id)).join(', ')]);
    for (const t of s.timers) rows.push([String(s.subtask), keyLabel(result, t.key), '', `${t.processing ? 'processing-time' : 'event-time'} timer at ${t.timestamp}`, t.what]);
  }
  const total = (result.paged && result.paged.final_state) || rows.length;
  fill(body, h('div', { class: 'table-wrap' }, table(['subtask', 'key', 'side', 'what', 'rows'], rows)), total > rows.length ? h('p', { class: 'more' }, `showing the first ${rows.length} of ${total} entries and timers`) : null);
  return total;
}

export function renderWarnings(body, result) {
  const ws = result.warnings || [];
  fill(body, ws.length ? h('ul', { class: 'warnings' }, ws.map((w) => h('li', null, w))) : h('p', { class: 'empty' }, 'no warnings'));
  return ws.length;
}

const OUTCOME_WORDS = {
  joined: 'joined',
  padded: 'null-padded',
  late: 'late',
  aggregated: 'in a window',
  main: 'main output',
  side_output: 'side output',
  unmatched: 'no result',
  buffered: 'still buffered',
};

/** One verdict per input row, in the engine's words. */
export function renderVerdicts(body, result) {
  const vs = result.verdicts;
  if (!vs) {
    fill(body, h('p', { class: 'empty' }, 'verdicts are shown for inputs small enough to trace'));
    return 0;
  }
  cappedTable(body, ['row', 'outcome', 'why'], vs, (v) => [rowLabel(result, v.row), OUTCOME_WORDS[v.outcome] || v.outcome, v.message], {
    rowClass: (v) => `verdict-${v.outcome}`,
    empty: 'no input rows',
    wordsColumn: 2,
  });
  return vs.length;
}
