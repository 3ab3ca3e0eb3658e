// @ts-check
// The tables of the result panels: capped (with "show more"), virtual when long, paged from the
// engine worker for a large result; and the labels of rows and keys they share.

import { h, fill, updateTable, virtualTable } from '../dom.js';
import { fmtValue } from '../format.js';

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
 * @typedef {object} TableOptions
 * @property {(item: any, i: number) => string} [rowClass]
 * @property {(item: any, i: number) => string} [rowTitle]
 * @property {string} [empty]  what an empty table says
 * @property {number} [limit]  rows shown before "show more"
 * @property {number} [wordsColumn]  the column of words that wrap (such tables are not virtual)
 * @property {number} [total]  the list's length (a paged list holds fewer items)
 * @property {((from: number, count: number) => Promise<any[]>) | null} [fetch]  more rows of a paged list
 * @property {number} [chunk]  rows added per task
 * @property {(item: any, i: number) => void} [onRowClick]  a click on a row (jump to its step)
 */

/**
 * A table that renders at most `limit` rows, with a button for more; reuses its rows across runs.
 * A list of a large result may be paged: `items` holds its first rows, `total` its length and
 * `fetch(from, count)` resolves more of them (from the engine worker, which keeps the result).
 */
/**
 * @param {HTMLElement & { __shown?: number, __token?: object }} container
 * @param {string[]} headers
 * @param {any[]} items
 * @param {(item: any, i: number) => string[]} cellsOf
 * @param {TableOptions} [opts]
 */
export function cappedTable(container, headers, items, cellsOf, { rowClass, rowTitle, empty = 'none', limit = PAGE_ROWS, wordsColumn = -1, total = items.length, fetch = null, chunk = 0, onRowClick } = {}) {
  rowClicks(container, items, onRowClick);
  // How many rows the user asked to see stays as long as the container lives.
  let shown = Math.min(items.length, Math.max(limit, container.__shown || 0));
  const token = (container.__token = {});
  // Shows `want` rows, fetching those not here yet.
  const showUpTo = (/** @type {number} */ want) => {
    want = Math.min(total, want);
    if (want <= items.length || !fetch) {
      shown = container.__shown = Math.min(items.length, want);
      draw();
      return;
    }
    const more = container.querySelector(':scope > p.more');
    if (more && more.firstChild) more.firstChild.textContent = `loading rows ${items.length + 1}–${want} of ${total}… `;
    fetch(items.length, want - items.length).then(
      (/** @type {any[]} */ rows) => {
        if (container.__token !== token) return;
        for (const r of rows) items.push(r);
        shown = container.__shown = Math.min(items.length, want);
        draw();
      },
      (/** @type {Error} */ e) => {
        if (container.__token !== token) return;
        if (more && more.firstChild) more.firstChild.textContent = `showing ${shown} of ${total} (${e.message}) `;
      },
    );
  };
  const draw = () => {
    if (!items.length) {
      if (!container.querySelector(':scope > p.empty')) fill(container, h('p', { class: 'empty' }, empty));
      else /** @type {Element} */ (container.firstElementChild).textContent = empty;
      return;
    }
    /** @type {any} */
    let wrap = container.firstElementChild;
    if (!wrap || !wrap.classList.contains('table-wrap')) {
      wrap = h('div', { class: 'table-wrap' });
      fill(container, wrap);
    }
    const rowOpts = { rowClass: rowClass && ((/** @type {number} */ i) => rowClass(items[i], i)), rowTitle: rowTitle && ((/** @type {number} */ i) => rowTitle(items[i], i)) };
    if (shown > VIRTUAL_ROWS && wordsColumn < 0) {
      virtualTable(wrap, headers, shown, (/** @type {number} */ i) => cellsOf(items[i], i), rowOpts);
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

/**
 * Calls `onRowClick(item, i)` when a row of the container's table is clicked (one listener per
 * container; the items are the latest drawn).
 * @param {HTMLElement & { __rowClick?: any }} container @param {any[]} items
 * @param {((item: any, i: number) => void) | undefined} onRowClick
 */
function rowClicks(container, items, onRowClick) {
  if (!container.__rowClick) {
    container.__rowClick = { items, onRowClick };
    container.addEventListener('click', (ev) => {
      const st = container.__rowClick;
      const tr = /** @type {HTMLElement | null} */ (/** @type {HTMLElement} */ (ev.target).closest('tbody tr'));
      if (!st.onRowClick || !tr || !container.contains(tr)) return;
      const idx = tr.hasAttribute('aria-rowindex') ? Number(tr.getAttribute('aria-rowindex')) - 2 : /** @type {HTMLTableRowElement} */ (tr).sectionRowIndex;
      if (st.items[idx] !== undefined) st.onRowClick(st.items[idx], idx);
    });
  }
  container.__rowClick.items = items;
  container.__rowClick.onRowClick = onRowClick;
}

/** Shows a count in the panel's heading. @param {HTMLElement} section @param {number | string | null} n */
export function setCount(section, n) {
  const c = section.querySelector('.count');
  if (c) c.textContent = n === null ? '' : String(n);
}

/** @type {Record<string, string>} */
export const KIND_CLASS = { '+I': 'kind-insert', '-D': 'kind-delete', '-U': 'kind-update-before', '+U': 'kind-update-after' };

/**
 * Paging options of a result's list (`field`, or the side output `tag`) kept in the engine worker.
 * @param {any} result @param {string | undefined} field @param {string} [tag]
 * @returns {TableOptions}
 */
export function paging(result, field, tag) {
  const p = result.paged;
  const total = p && (tag !== undefined ? p.side_outputs && p.side_outputs[tag] : p[/** @type {string} */ (field)]);
  if (total === undefined || !result.fetch) return {};
  // A paged result shows its first PAGED_ROWS rows and fetches more from the worker on "show
  // more". (Its tables are virtual, so the rows shown cost little to draw; a table with a
  // words column, which is not, gets its new rows 250 per task.)
  return { total, limit: PAGED_ROWS, chunk: 250, fetch: (/** @type {number} */ from, /** @type {number} */ count) => result.fetch({ what: 'rows', field, tag, from, count }) };
}


/** "left:3": a row by its stream and line. @param {any} result @param {number} id */
export function rowLabel(result, id) {
  const r = result.rows && result.rows[id];
  if (!r) return `row ${id}`;
  const s = result.streams[r.side === 'right' ? 1 : 0];
  return `${s ? s.name : r.side}:${r.line}`;
}

/** A key's value. @param {any} result @param {number} key */
export function keyLabel(result, key) {
  const k = result.keys && result.keys[key];
  return k ? fmtValue(k.value) : `#${key}`;
}
