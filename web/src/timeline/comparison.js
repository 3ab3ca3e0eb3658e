// Side by side: the same rows through two or three joins (the "Side by side" panel).

import { valuesText } from '../timeline.js';

// ---------------------------------------------------------------------------------------------
// Side by side: the same rows through two or three joins.

function h(tag, cls, textContent) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (textContent !== undefined) e.textContent = textContent;
  return e;
}

/**
 * Draws small multiples comparing runs of the same rows through different joins.
 * `results`: [{ label, result, scenario? }] (or bare results). Each card shows the number of
 * outputs, distinct row pairs, duplicated pairs, pairs it misses that another join produced,
 * null-padded rows and late rows; below, one line per row pair with what each join did with
 * it (✓, ×2 for duplicates, — for missing), so e.g. "tumbling misses pairs across a boundary"
 * and "sliding duplicates" are visible.
 */
export function renderComparison(container, results) {
  while (container.firstChild) container.removeChild(container.firstChild);
  const runs = (results || []).map((r, i) => (r && r.result ? r : { label: `join ${i + 1}`, result: r })).filter((r) => r.result);
  const root = h('div', 'jl-compare');
  container.appendChild(root);
  if (!runs.length) {
    root.appendChild(h('p', 'jl-muted', 'nothing to compare'));
    return;
  }
  const ref = (r) => (r ? `${r.stream}\u0000${r.line}` : '');
  const pairs = new Map(); // key -> {left, right, counts: [per run], kinds: [[kinds]]}
  const stats = runs.map(() => ({ outputs: 0, distinct: 0, dup: 0, padded: 0, late: 0, missed: 0, retract: 0 }));
  runs.forEach((run, ri) => {
    const res = run.result;
    stats[ri].late = (res.late || []).length;
    for (const o of res.outputs || []) {
      stats[ri].outputs++;
      const key = `${ref(o.left)}\u0001${ref(o.right)}`;
      let p = pairs.get(key);
      if (!p) {
        p = { left: o.left, right: o.right, counts: runs.map(() => 0), kinds: runs.map(() => []) };
        pairs.set(key, p);
      }
      const retract = o.kind === '-D' || o.kind === '-U';
      if (retract) stats[ri].retract++;
      p.counts[ri] += retract ? 0 : 1;
      p.kinds[ri].push(o.kind || '+I');
    }
  });
  const list = [...pairs.values()].sort((a, b) => {
    const la = a.left || a.right;
    const lb = b.left || b.right;
    const sa = a.left ? 0 : 1;
    const sb = b.left ? 0 : 1;
    return sa - sb || (la.line - lb.line) || ((a.right ? a.right.line : -1) - (b.right ? b.right.line : -1));
  });
  for (const p of list) {
    const full = p.left && p.right;
    const anyHas = p.counts.some((c) => c > 0);
    p.counts.forEach((c, ri) => {
      if (c > 0) {
        if (full) stats[ri].distinct++;
        else stats[ri].padded++;
        if (c > 1) stats[ri].dup += c - 1;
      } else if (full && anyHas) stats[ri].missed++;
    });
  }

  // Cards.
  const cards = h('div', 'jl-compare-cards');
  const maxOut = Math.max(1, ...stats.map((s) => s.outputs));
  runs.forEach((run, ri) => {
    const s = stats[ri];
    const card = h('div', 'jl-compare-card');
    card.dataset.run = String(ri);
    card.appendChild(h('div', 'jl-compare-title', run.label || run.result.operator));
    const bar = h('div', 'jl-compare-bar');
    const fill = h('span', 'jl-compare-fill');
    fill.style.width = `${Math.round((s.outputs / maxOut) * 100)}%`;
    bar.appendChild(fill);
    card.appendChild(bar);
    const dl = h('dl', 'jl-compare-stats');
    const add = (k, v, cls) => {
      const dt = h('dt', null, k);
      const dd = h('dd', cls || null, String(v));
      dd.dataset.stat = k;
      dl.append(dt, dd);
    };
    add('outputs', s.outputs);
    add('distinct pairs', s.distinct);
    add('duplicates', s.dup, s.dup ? 'jl-bad' : null);
    add('missed pairs', s.missed, s.missed ? 'jl-bad' : null);
    if (s.padded || stats.some((x) => x.padded)) add('null-padded', s.padded);
    if (s.retract) add('retractions', s.retract, 'jl-bad');
    add('late rows', s.late, s.late ? 'jl-bad' : null);
    card.appendChild(dl);
    cards.appendChild(card);
  });
  root.appendChild(cards);

  // The pair matrix.
  root.appendChild(h('p', 'jl-compare-legend', '✓ produced once · ×N produced N times (duplicates) · — not produced, though another join produced it'));
  const tbl = h('table', 'jl-compare-pairs');
  tbl.appendChild(h('caption', null, 'row pairs produced by each join'));
  const hr = h('tr');
  const names = runs[0].result.streams || [];
  hr.appendChild(h('th', null, names[0] ? names[0].name : 'left'));
  if (names.length > 1) hr.appendChild(h('th', null, names[1].name));
  runs.forEach((run) => hr.appendChild(h('th', 'jl-compare-col', run.label || run.result.operator)));
  tbl.appendChild(h('thead')).appendChild(hr);
  const tb = h('tbody');
  const cell = (r) => {
    const td = h('td', 'jl-compare-row');
    if (!r) {
      td.textContent = 'null';
      td.classList.add('jl-muted');
      return td;
    }
    td.appendChild(h('span', 'jl-compare-line', `line ${r.line} `));
    td.appendChild(document.createTextNode(valuesText(r.values)));
    return td;
  };
  for (const p of list) {
    const tr = h('tr');
    const full = p.left && p.right;
    tr.appendChild(cell(p.left));
    if (names.length > 1) tr.appendChild(cell(p.right));
    p.counts.forEach((c, ri) => {
      const kinds = p.kinds[ri];
      let t;
      let cls = 'jl-compare-mark';
      const changelog = kinds.some((k) => k !== '+I');
      if (changelog) t = kinds.join(' ');
      else if (c === 0) t = '—';
      else if (c === 1) t = '✓';
      else t = `×${c}`;
      if (c === 0 && !changelog) cls += full ? ' jl-missed' : ' jl-absent';
      else if (c > 1) cls += ' jl-dup';
      else cls += ' jl-ok';
      const td = h('td', cls, t);
      td.dataset.count = String(c);
      tr.appendChild(td);
    });
    tb.appendChild(tr);
  }
  if (!list.length) {
    const tr = h('tr');
    const td = h('td', 'jl-muted', 'no join produced any output');
    td.colSpan = 2 + runs.length;
    tr.appendChild(td);
    tb.appendChild(tr);
  }
  tbl.appendChild(tb);
  root.appendChild(tbl);
}
