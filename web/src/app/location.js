// @ts-check
// What the page's URL asks for: the mode (embed, read-only, panels, budget) and the scenario
// (s=, j=, scenario=). Every parameter is decoded defensively: a bad one (a broken %-escape, an
// unknown panel, a damaged link) is noted in `app.urlProblems`, shown on the page, and the page
// opens anyway.

import { locationParams, decodeScenario, decodePlain, ShareError } from '../share.js';
import { findScenario } from '../gallery.js';
import { app } from './state.js';

/** Every panel's name (`panels=`). */
export const ALL_PANELS = ['playback', 'puzzle', 'diagnosis', 'streams', 'job', 'expected', 'outputs', 'windows', 'late', 'side', 'verdicts', 'watermarks', 'state', 'keys', 'warnings', 'timeline', 'stepper', 'compare', 'export', 'about'];
/** The panels of an embed that does not choose. */
export const DEFAULT_EMBED_PANELS = ['puzzle', 'diagnosis', 'streams', 'expected', 'outputs', 'windows', 'late', 'side', 'warnings'];

/** Longest parameter value quoted back in a message. */
const QUOTE_CHARS = 40;

/** A value shortened for a message. @param {string} v */
export function quote(v) {
  const s = String(v);
  return JSON.stringify(s.length > QUOTE_CHARS ? `${s.slice(0, QUOTE_CHARS)}…` : s);
}

/**
 * Decodes a %-escaped parameter value; a bad escape is noted and the value is used as written.
 * @param {string} name @param {string} raw
 */
export function decodeParam(name, raw) {
  try {
    return decodeURIComponent(raw);
  } catch {
    app.urlProblems.push(`the "${name}" parameter ${quote(raw)} has a bad %-escape, so it was read as written`);
    return raw;
  }
}

/** The URL's parameters; a URL that cannot be read gives none (noted). */
function params() {
  try {
    return locationParams(window.location);
  } catch (e) {
    app.urlProblems.push(`the address could not be read (${e})`);
    return new Map();
  }
}

/** Reads the mode from the URL and applies it to the page (classes, panels switched off). */
export function readMode() {
  app.urlProblems = [];
  const p = params();
  const on = p.has('embed');
  /** @type {Set<string> | null} */
  let panels = null;
  if (p.has('panels')) {
    const names = decodeParam('panels', p.get('panels') || '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const unknown = names.filter((s) => !ALL_PANELS.includes(s));
    if (unknown.length) app.urlProblems.push(`unknown panel${unknown.length === 1 ? '' : 's'} ${unknown.slice(0, 5).map(quote).join(', ')} in "panels" (known: ${ALL_PANELS.join(', ')})`);
    panels = new Set(names.filter((s) => ALL_PANELS.includes(s)));
    // An embed whose every panel is unknown would be empty: it shows the default ones.
    if (!panels.size && unknown.length) panels = on ? new Set(DEFAULT_EMBED_PANELS) : null;
  } else if (on) panels = new Set(DEFAULT_EMBED_PANELS);
  if (p.has('budget')) {
    const b = Number(p.get('budget'));
    if (Number.isFinite(b) && b > 0) app.budgetMs = app.defaultBudgetMs = Math.min(b, 600000);
    else app.urlProblems.push(`"budget" must be a number of milliseconds, not ${quote(p.get('budget') || '')}`);
  }
  // An embed (or any link) may start at a step (1-based, as the page shows it) and play.
  app.startStep = null;
  if (p.has('step')) {
    const n = Number(p.get('step'));
    if (Number.isInteger(n) && n >= 1) app.startStep = n - 1;
    else app.urlProblems.push(`"step" must be a step number from 1, not ${quote(p.get('step') || '')}`);
  }
  app.autoplay = p.has('autoplay') && p.get('autoplay') !== '0' && p.get('autoplay') !== 'false';
  const ro = p.get('readonly');
  app.embed = { on, readOnly: p.has('readonly') && ro !== '0' && ro !== 'false', panels };
  document.body.classList.toggle('embed', on);
  document.body.classList.toggle('readonly', app.embed.readOnly);
  for (const sec of document.querySelectorAll('[data-panel]')) {
    const name = /** @type {HTMLElement} */ (sec).dataset.panel || '';
    sec.classList.toggle('panel-off', !!panels && !panels.has(name));
  }
  return p;
}

/**
 * The scenario JSON text named by the URL (s=, j=, scenario=), or null. Throws ShareError.
 * @param {Map<string, string>} p
 * @returns {Promise<{ text: string, source: string, puzzle?: string } | null>}
 */
export async function scenarioFromLocation(p) {
  if (p.has('s')) return { text: await decodeScenario(p.get('s') || ''), source: 'link' };
  if (p.has('j')) return { text: decodePlain(p.get('j') || ''), source: 'link' };
  // A built-in puzzle by name (`puzzle=NAME` alone); with s= or j=, `puzzle` makes that
  // scenario a shared puzzle (main.js).
  if (p.has('puzzle') && p.get('puzzle')) return { text: '', source: 'puzzle', puzzle: decodeParam('puzzle', p.get('puzzle') || '') };
  if (p.has('scenario')) {
    const name = decodeParam('scenario', p.get('scenario') || '');
    const g = findScenario(name);
    if (!g) throw new ShareError(`there is no gallery scenario named ${quote(name)}`);
    return { text: g.text, source: name };
  }
  return null;
}
