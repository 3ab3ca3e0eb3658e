// A tiny DOM builder. Text always goes in as text nodes (never as HTML).

/**
 * h('div', { class: 'x', dataset: { a: 1 }, onclick: fn, title: 't' }, 'text', child, [more])
 * Attributes named on* become listeners; `class`, `dataset`, `style` (object) are special;
 * booleans set/unset the attribute; null/undefined/false are skipped.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) setAttrs(el, attrs);
  append(el, children);
  return el;
}

export function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'value') el.value = v;
    else if (k === 'checked') el.checked = !!v;
    else if (k === 'text') el.textContent = v;
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
}

export function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

/** Replaces the children of `el`. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A table with text cells. `rows` are arrays of strings (or Nodes); `rowAttrs(i)` adds attributes. */
export function table(headers, rows, { className = 'grid', rowAttrs, wordsColumn = -1 } = {}) {
  const thead = h('thead', null, h('tr', null, headers.map((x) => h('th', { scope: 'col' }, x))));
  const tbody = document.createElement('tbody');
  const frag = document.createDocumentFragment();
  rows.forEach((cells, i) => {
    const tr = document.createElement('tr');
    if (rowAttrs) setAttrs(tr, rowAttrs(i));
    for (let j = 0; j < cells.length; j++) {
      const c = cells[j];
      const td = document.createElement('td');
      if (j === wordsColumn) td.className = 'words';
      if (c instanceof Node) td.appendChild(c);
      else td.textContent = c;
      tr.appendChild(td);
    }
    frag.appendChild(tr);
  });
  tbody.appendChild(frag);
  return h('table', { class: className }, thead, tbody);
}

function fillRow(tr, cells, wordsColumn) {
  // The texts the row shows, to compare the next update against without reading the DOM back
  // (3,500 `textContent` reads for a 500-row table were 6 ms of a keystroke).
  tr.__texts = cells.every((c) => typeof c === 'string') ? cells.slice() : null;
  for (let j = 0; j < cells.length; j++) {
    const c = cells[j];
    const td = document.createElement('td');
    if (j === wordsColumn) td.className = 'words';
    if (c instanceof Node) td.appendChild(c);
    else td.textContent = c;
    tr.appendChild(td);
  }
}

/**
 * Shows `rows` in a table inside `container`, reusing the table already there: only cells whose
 * text changed are touched (typing a row usually changes a few). Text cells only.
 * `rowClass(i)` / `rowTitle(i)` give a row's class and tooltip.
 */
export function updateTable(container, headers, rows, opts = {}) {
  const { className = 'grid', rowClass, rowTitle, wordsColumn = -1, chunk = 0 } = opts;
  let t = container.firstElementChild;
  if (t && t.__more) t.__more = null;
  const key = headers.join('\u0001');
  if (!t || t.tagName !== 'TABLE' || t.dataset.headers !== key || t.className !== className) {
    t = table(headers, [], { className, wordsColumn });
    t.dataset.headers = key;
    container.replaceChildren(t);
  }
  const tbody = t.tBodies[0];
  const trs = tbody.rows;
  const keep = Math.min(trs.length, rows.length);
  for (let i = 0; i < keep; i++) {
    const tr = trs[i];
    const cells = rows[i];
    const tds = tr.cells;
    const texts = tr.__texts;
    if (tds.length !== cells.length) {
      tr.replaceChildren();
      fillRow(tr, cells, wordsColumn);
    } else if (texts && texts.length === cells.length) {
      for (let j = 0; j < cells.length; j++) {
        if (texts[j] !== cells[j]) {
          tds[j].textContent = cells[j];
          texts[j] = typeof cells[j] === 'string' ? cells[j] : null;
        }
      }
      if (texts.includes(null)) tr.__texts = null;
    } else {
      for (let j = 0; j < cells.length; j++) if (tds[j].textContent !== cells[j]) tds[j].textContent = cells[j];
      tr.__texts = cells.every((c) => typeof c === 'string') ? cells.slice() : null;
    }
    const cls = rowClass ? rowClass(i) : '';
    if (tr.className !== cls) tr.className = cls;
    const title = rowTitle ? rowTitle(i) : '';
    if ((tr.getAttribute('title') || '') !== title) title ? tr.setAttribute('title', title) : tr.removeAttribute('title');
  }
  while (trs.length > rows.length) tbody.deleteRow(trs.length - 1);
  if (rows.length > keep) {
    // With `chunk`, at most that many new rows now and the others in tasks of their own
    // (creating 1,000 rows at once takes 20–40 ms).
    const end = chunk ? Math.min(rows.length, keep + chunk) : rows.length;
    if (end < rows.length) {
      const token = (t.__more = {});
      setTimeout(() => {
        if (t.__more === token && t.isConnected) updateTable(container, headers, rows, opts);
      }, 0);
    }
    const frag = document.createDocumentFragment();
    for (let i = keep; i < end; i++) {
      const tr = document.createElement('tr');
      const cls = rowClass ? rowClass(i) : '';
      if (cls) tr.className = cls;
      const title = rowTitle ? rowTitle(i) : '';
      if (title) tr.setAttribute('title', title);
      fillRow(tr, rows[i], wordsColumn);
      frag.appendChild(tr);
    }
    tbody.appendChild(frag);
  }
  return t;
}

/** Rows drawn above and below the visible ones of a virtual table (scrolling stays smooth). */
const VIRTUAL_MARGIN = 25;
/** A virtual table's row height (px) before one has been measured. */
const VIRTUAL_ROW_H = 21;

/**
 * A long table inside the scroll box `wrap` (`.table-wrap`, fixed max-height) that keeps only
 * the rows in view, and a margin, in the DOM: a padding above and below stands for the others
 * (the rows are one line high, measured once). With every row in the DOM, a one-cell change
 * relayouts the whole table, and 500 rows are 4,000 boxes to style, lay out and paint on the
 * keystroke's frame. `cellsAt(i)` gives row i's cells, `rowClass(i)` / `rowTitle(i)` as in
 * updateTable; the table carries `aria-rowcount` and each row its `aria-rowindex` (the header
 * row is 1), which is also how a reader of the page can tell how many rows the table has.
 */
export function virtualTable(wrap, headers, n, cellsAt, opts = {}) {
  let pad = wrap.firstElementChild;
  if (!pad || !pad.classList.contains('vpad')) {
    pad = h('div', { class: 'vpad' });
    wrap.replaceChildren(pad);
    wrap.__virtual = null;
  }
  let v = wrap.__virtual;
  if (!v) {
    // The scroll position and the box's height are kept from the scroll events and a
    // ResizeObserver: read in drawWindow, they would force a style and layout of the whole page
    // in the middle of every keystroke's update (3 ms of a 1,000-row keystroke on a busy
    // machine, scripts/bench-page.mjs). Read here once, when the table is made.
    v = wrap.__virtual = { rowH: 0, a: 0, b: 0, raf: 0, top: wrap.scrollTop, height: wrap.clientHeight };
    wrap.addEventListener(
      'scroll',
      () => {
        if (!v.raf)
          v.raf = requestAnimationFrame(() => {
            v.raf = 0;
            v.top = wrap.scrollTop;
            drawWindow(wrap, false);
          });
      },
      { passive: true },
    );
    if (typeof ResizeObserver === 'function') {
      new ResizeObserver(() => {
        const hgt = wrap.clientHeight;
        if (hgt === v.height) return;
        v.height = hgt;
        drawWindow(wrap, false);
      }).observe(wrap);
    }
  }
  Object.assign(v, { headers, n, cellsAt, opts });
  drawWindow(wrap, true);
}

function drawWindow(wrap, force) {
  const v = wrap.__virtual;
  const pad = wrap.firstElementChild;
  if (!v || !pad) return;
  const rowH = v.rowH || VIRTUAL_ROW_H;
  // (The height falls back to the box's max-height before its first layout.)
  const top = v.top;
  const height = v.height || 420;
  const first = Math.max(0, Math.floor(top / rowH) - 1);
  const last = Math.min(v.n, Math.ceil((top + height) / rowH));
  if (!force && first >= v.a && last <= v.b) return;
  const a = Math.max(0, Math.min(first - VIRTUAL_MARGIN, v.n - 2 * VIRTUAL_MARGIN));
  const b = Math.min(v.n, last + VIRTUAL_MARGIN);
  const rows = new Array(b - a);
  for (let i = a; i < b; i++) rows[i - a] = v.cellsAt(i);
  const { rowClass, rowTitle } = v.opts;
  const t = updateTable(pad, v.headers, rows, {
    className: 'grid virtual',
    rowClass: rowClass && ((j) => rowClass(a + j)),
    rowTitle: rowTitle && ((j) => rowTitle(a + j)),
  });
  const trs = t.tBodies[0].rows;
  for (let j = 0; j < trs.length; j++) {
    const idx = String(a + j + 2);
    if (trs[j].getAttribute('aria-rowindex') !== idx) trs[j].setAttribute('aria-rowindex', idx);
  }
  const count = String(v.n + 1);
  if (t.getAttribute('aria-rowcount') !== count) t.setAttribute('aria-rowcount', count);
  v.a = a;
  v.b = b;
  const setPad = () => {
    const r = v.rowH || VIRTUAL_ROW_H;
    pad.style.paddingTop = `${a * r}px`;
    pad.style.paddingBottom = `${(v.n - b) * r}px`;
  };
  setPad();
  if (!v.rowH && trs.length) {
    // Measured once, after the frame (not forcing a layout in the middle of a keystroke).
    requestAnimationFrame(() =>
      setTimeout(() => {
        if (v.rowH || !trs.length || !trs[0].isConnected) return;
        const hgt = trs[0].getBoundingClientRect().height;
        if (hgt > 0 && Math.abs(hgt - VIRTUAL_ROW_H) > 0.01) {
          v.rowH = hgt;
          drawWindow(wrap, true);
        } else if (hgt > 0) v.rowH = hgt;
      }, 0),
    );
  }
}
