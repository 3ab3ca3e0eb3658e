// SVG building for the timeline's layers.

export const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element with attributes, appended to `parent`. @param {string} name @param {Record<string, any> | null} attrs @param {Element} [parent] */
export function el(name, attrs, parent) {
  const e = document.createElementNS(SVG_NS, name);
  if (attrs) for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

/** An SVG text node (user text goes in as text, never markup). */
export function text(parent, x, y, str, cls, anchor) {
  const t = el('text', { x: fx(x), y: fx(y) }, parent);
  if (cls) t.setAttribute('class', cls);
  if (anchor) t.setAttribute('text-anchor', anchor);
  t.textContent = str;
  return t;
}

/** A coordinate with one decimal (short path strings). */
export const fx = (v) => String(Math.round(v * 10) / 10);

/** The class of each stream's colour. */
export const STREAM_CLASS = ['jl-s0', 'jl-s1'];

/** The non-negative remainder. */
export const mod = (a, b) => ((a % b) + b) % b;

let uidCounter = 0;
/** A page-unique id. @param {string} prefix */
export function uid(prefix) {
  uidCounter += 1;
  return `${prefix}${uidCounter}`;
}

/** Removes every child of `g`. @param {Element} g */
export function clear(g) {
  while (g.firstChild) g.removeChild(g.firstChild);
}
