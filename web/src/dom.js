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
export function table(headers, rows, { className = 'grid', rowAttrs } = {}) {
  const thead = h('thead', null, h('tr', null, headers.map((x) => h('th', { scope: 'col' }, x))));
  const tbody = document.createElement('tbody');
  const frag = document.createDocumentFragment();
  rows.forEach((cells, i) => {
    const tr = document.createElement('tr');
    if (rowAttrs) setAttrs(tr, rowAttrs(i));
    for (const c of cells) {
      const td = document.createElement('td');
      if (c instanceof Node) td.appendChild(c);
      else td.textContent = c;
      tr.appendChild(td);
    }
    frag.appendChild(tr);
  });
  tbody.appendChild(frag);
  return h('table', { class: className }, thead, tbody);
}
