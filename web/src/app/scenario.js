// @ts-check
// The scenario document as the page holds it: read from text, copied for a run, counted.

import { ShareError } from '../share.js';

/**
 * Parses scenario JSON text into the object the page edits, filling what the editors need
 * (streams with string rows and column lists, a job object). Throws ShareError.
 * @param {string} text
 */
export function parseScenarioText(text) {
  let sc;
  try {
    sc = JSON.parse(text);
  } catch (e) {
    throw new ShareError(`the scenario is not valid JSON: ${/** @type {Error} */ (e).message}`);
  }
  if (!sc || typeof sc !== 'object' || Array.isArray(sc)) throw new ShareError('the scenario is not a JSON object');
  if (!Array.isArray(sc.streams)) sc.streams = [];
  sc.streams = sc.streams.filter((/** @type {any} */ s) => s && typeof s === 'object');
  for (const s of sc.streams) {
    if (typeof s.rows !== 'string') s.rows = s.rows === undefined ? '' : String(s.rows);
    if (!Array.isArray(s.columns)) s.columns = [];
    if (typeof s.name !== 'string') s.name = String(s.name ?? '');
  }
  if (!sc.job || typeof sc.job !== 'object') sc.job = {};
  return sc;
}

/**
 * A deep copy of a scenario, as JSON would make it; the rows strings are shared (immutable).
 * @param {any} sc
 */
export function cloneScenario(sc) {
  const streams = sc.streams || [];
  const copy = JSON.parse(
    JSON.stringify(sc, function (k, v) {
      return k === 'rows' && streams.includes(this) ? '' : v;
    }),
  );
  if (copy.streams) copy.streams.forEach((/** @type {any} */ st, /** @type {number} */ i) => (st.rows = streams[i].rows));
  return copy;
}

/**
 * The number of entries of a list of the result (`field`, or a side output's `tag`), paged or not.
 * @param {any} r @param {string | undefined} field @param {string} [tag]
 * @returns {number}
 */
export function resultCount(r, field, tag) {
  if (!r) return 0;
  const p = r.paged || {};
  if (tag !== undefined) return p.side_outputs && p.side_outputs[tag] !== undefined ? p.side_outputs[tag] : ((r.side_outputs || {})[tag] || []).length;
  return p[/** @type {string} */ (field)] !== undefined ? p[/** @type {string} */ (field)] : (r[/** @type {string} */ (field)] || []).length;
}
