// The legend under the picture: what each mark, line and range means, in words beside its
// swatch (colour is never the only signal: late rows are crosses, and every item is labelled).

import { OUTCOME_LABEL } from '../timeline.js';

const ORDER = ['joined', 'main', 'window', 'side', 'padded', 'none', 'dropped', 'late', 'buffered', 'pending'];

/** @param {string} cls @param {string} label @param {string} [mark] */
function item(cls, label, mark) {
  const it = document.createElement('span');
  it.className = `jl-legend-item ${cls}`;
  const sw = document.createElement('span');
  sw.className = 'jl-swatch';
  if (mark) sw.textContent = mark;
  it.appendChild(sw);
  it.appendChild(document.createTextNode(label));
  return it;
}

/** The legend of the timeline in context `c`. @param {any} c @returns {HTMLElement} */
export function legend(c) {
  const { facts, traced, retract, po, iv } = c;
  const present = new Set(facts.map((/** @type {any} */ f) => f.outcome));
  if (traced) present.add('pending');
  const box = document.createElement('div');
  box.className = 'jl-legend';
  for (const o of ORDER) if (present.has(o)) box.appendChild(item(`jl-legend-${o}`, OUTCOME_LABEL[o], o === 'late' ? '×' : undefined));
  if (retract.some((/** @type {number} */ x) => x)) box.appendChild(item('jl-legend-retract', 'retraction row (−U / −D)'));
  if (c.processingAxis) box.appendChild(item('jl-legend-proc', 'processing time across: each probe row sees the table as at its arrival'));
  else box.appendChild(item('jl-legend-wm', po > 1 ? 'operator subtask watermarks' : 'operator watermark'));
  if (c.versionKeys && c.versionKeys.length) {
    box.appendChild(item('jl-legend-version', c.processingAxis ? 'row in the table (from its arrival to the change that replaces or deletes it)' : 'version valid from its time to the next version of its key'));
    if (c.versionItems.some((/** @type {any} */ it) => it.v.kind === '-U' || it.v.kind === '-D')) box.appendChild(item('jl-legend-version-deleted', 'deleted: no row for the key'));
  }
  if (iv) box.appendChild(item('jl-legend-iv', `partner range (${iv.text})`));
  return box;
}
