// The versions layer: a band above the lanes with the rows of a temporal join's versioned table
// or a lookup join's dimension table, one track per key, each version a bar over the time it is
// valid. The spans come from the engine (result.versions, crate/src/versions.rs), not from here:
// - temporal join (TemporalRowTimeJoinOperator): event time; a version is valid from its own
//   time until the next version of its key; a -U / -D version means "no row" from its time on;
//   a version replaced by a later row with the same time is an empty span (a tick);
// - lookup join (LookupJoinRunner): processing time; a row is in the table from its arrival
//   until the row that replaces or deletes it arrives (the timeline's axis is arrival time then).

import { el, text, fx } from './svg.js';
import { valueText, rowValuesText } from '../timeline.js';

/** The most version bars drawn. */
export const MAX_VERSIONS = 3000;

/** Lays out the versions (`c.versionItems`, `c.versionKeys`). @param {any} c */
export function layoutVersions(c) {
  const versions = (c.result && c.result.versions) || [];
  /** @type {string[]} */
  const keys = [];
  /** @type {Map<string, number>} */
  const track = new Map();
  for (const v of versions) {
    const k = valueText(v.key);
    if (!track.has(k)) {
      track.set(k, keys.length);
      keys.push(k);
    }
  }
  // Many keys: the band keeps at most 24 tracks (the rest share the last one), and at most
  // MAX_VERSIONS bars (a picture of more says nothing more; the caption says how many).
  const maxTracks = 24;
  c.versionsCut = Math.max(0, versions.length - MAX_VERSIONS);
  c.versionItems = versions.slice(0, MAX_VERSIONS).map((/** @type {any} */ v) => ({ v, track: Math.min(maxTracks - 1, /** @type {number} */ (track.get(valueText(v.key)))) }));
  c.versionKeys = keys.slice(0, maxTracks);
  c.versionTrackH = 15;
  c.verTop = c.y + 4;
  if (keys.length && c.bandTop === undefined) c.bandTop = c.verTop;
}

/**
 * The text of a version: its values without the key and time columns (those are the track
 * and the bar's position), e.g. "1.10" or "Alice, Paris". @param {any} c @param {any} v
 */
function versionLabel(c, v) {
  const row = c.rows[v.row];
  if (!row) return '';
  const kind = v.kind === '-U' || v.kind === '-D' ? `${v.kind} ` : '';
  const st = c.result.streams && c.result.streams[1];
  const cols = st ? (st.columns || []).map((/** @type {any} */ x) => x.name) : [];
  const skip = new Set([st && st.key, st && st.time].filter(Boolean));
  const vals = (row.values || []).filter((/** @type {any} */ _, /** @type {number} */ i) => !skip.has(cols[i]));
  return `${kind}${(vals.length ? vals : row.values || []).map(valueText).join(', ')}`;
}

/** Draws the versions band and moves `c.y` below it. @param {any} c */
export function drawVersions(c) {
  const { versionItems, versionKeys, verTop, versionTrackH: th, left, right, xc, gWin, d1, result } = c;
  if (!versionKeys.length) return;
  const lookup = result.operator === 'lookup_join';
  const name = c.streams[1] ? c.streams[1].name : 'table';
  const short = name.length > 11 ? `${name.slice(0, 10)}…` : name;
  const caption = lookup ? `${short} rows` : `${short} versions`;
  text(gWin, 8, verTop + 11, caption, 'jl-lane-label jl-win-caption');
  if (c.versionsCut) text(gWin, 8, verTop + 24, `first ${MAX_VERSIONS.toLocaleString('en')} of ${(MAX_VERSIONS + c.versionsCut).toLocaleString('en')}`, 'jl-lane-sub');
  versionKeys.forEach((/** @type {string} */ k, /** @type {number} */ t) => {
    text(gWin, left - 10, verTop + t * th + 10, k.length > 10 ? `${k.slice(0, 9)}…` : k, 'jl-version-key', 'end');
  });
  versionItems.forEach((/** @type {any} */ it, /** @type {number} */ i) => {
    const { v, track } = it;
    const x0 = xc(v.from);
    const x1 = v.to === null || v.to === undefined ? Math.max(x0 + 2, xc(d1) + 4) : xc(v.to);
    const y = verTop + track * th;
    const gone = v.kind === '-U' || v.kind === '-D';
    const cls = `jl-version${gone ? ' jl-version-deleted' : ''}${v.replaced ? ' jl-version-replaced' : ''}${v.to === null || v.to === undefined ? ' jl-version-open' : ''}`;
    const r = el('rect', { x: fx(x0), y: fx(y), width: fx(Math.max(v.replaced ? 1.5 : 2, x1 - x0)), height: th - 3, rx: 2, class: cls }, gWin);
    r.dataset.version = String(i);
    r.dataset.row = String(v.row);
    const label = versionLabel(c, v);
    if (x1 - x0 > label.length * 5.6 + 6 && x0 < right) text(gWin, x0 + 3, y + 9.5, label, 'jl-version-label');
  });
  c.y = verTop + versionKeys.length * th + 6;
}

/** The tooltip of version `i`. @param {any} c @param {number} i @returns {string[]} */
export function versionTip(c, i) {
  const it = c.versionItems && c.versionItems[i];
  if (!it) return [];
  const { v } = it;
  const { fmt, result } = c;
  const lookup = result.operator === 'lookup_join';
  const row = c.rows[v.row];
  const name = row ? `${c.streams[1] ? c.streams[1].name : 'right'} line ${row.line}` : `row ${v.row}`;
  const lines = [`${name} ${rowValuesText(result, row ? row.side : 'right', row ? row.values : [], fmt)}`];
  const until = v.to === null || v.to === undefined ? 'the end' : fmt.long(v.to);
  if (v.replaced) lines.push(`replaced by a later row with the same time ${fmt.long(v.from)}: never joined`);
  else if (v.kind === '-U' || v.kind === '-D') lines.push(`key ${valueText(v.key)} has no row from ${fmt.long(v.from)} to ${until}`);
  else lines.push(`${lookup ? 'in the table' : 'valid'} from ${fmt.long(v.from)} to ${until}${lookup ? ' (processing time)' : ''}`);
  lines.push(
    lookup
      ? 'a probe row sees the table as it stands at its arrival; later changes never update earlier results'
      : "a probe row joins the version of its key valid at the probe's own time (the latest at or before it), once the watermark has passed that time",
  );
  return lines;
}

/** The selected probe row's time across the versions band (which version it sees). @param {any} c @param {Element} g @param {number} id */
export function versionProbe(c, g, id) {
  if (!c.versionKeys || !c.versionKeys.length) return;
  const row = c.rows[id];
  if (!row || row.side !== 'left') return;
  const px = c.xc(c.times[id]);
  el('line', { x1: fx(px), x2: fx(px), y1: fx(c.verTop - 2), y2: fx(c.rowY[id]), class: 'jl-version-probe' }, g);
}
