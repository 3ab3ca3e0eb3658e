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
