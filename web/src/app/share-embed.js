// @ts-check
// Share and embed: the scenario in the URL fragment (kept up to date as you type), the share
// link, and the embed snippet.

import { h } from '../dom.js';
import { wasm } from '../engine.js';
import { encodeScenario } from '../share.js';
import { app, $ } from './state.js';

/** Largest scenario JSON the page keeps in the URL as you type. */
const MAX_AUTO_URL_JSON = 1_000_000;

/** Panels an embed may show (the Embed box's choices). */
export const EMBED_CHOICES = ['playback', 'puzzle', 'diagnosis', 'streams', 'job', 'outputs', 'late', 'side', 'windows', 'verdicts', 'watermarks', 'timeline', 'stepper', 'expected', 'state', 'warnings'];

/** The fragment the page itself last wrote (its own hashchange is not a new link). @type {string | null} */
let pendingHash = null;

/** Whether the URL's fragment is the one the page wrote. */
export function isOwnHash() {
  return !!pendingHash && window.location.hash === `#${pendingHash}`;
}

/** The scenario as compact JSON (defaults left out by the engine's `normalize`). */
export async function compactJson() {
  const json = JSON.stringify(app.scenario);
  const n = wasm.normalize(json);
  return typeof n === 'string' ? n : json;
}

function pageBase() {
  return `${window.location.origin}${window.location.pathname}`;
}

/** The link to the scenario as it is now (`puzzle`: opened as a puzzle). @param {boolean} [puzzle] */
export async function shareUrl(puzzle = false) {
  const enc = await encodeScenario(await compactJson());
  return `${pageBase()}#s=${enc}${puzzle ? '&puzzle' : ''}`;
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let hashTimer;
/** Writes the scenario into the URL (or the embed's "open" link) 300 ms after the last edit. */
export function scheduleHash() {
  clearTimeout(hashTimer);
  hashTimer = setTimeout(syncHash, 300);
}

async function syncHash() {
  if (!app.scenario) return;
  // The rows dominate a scenario's size: skip the (costly, for a big paste) normalisation when
  // they alone are already over the limit.
  const rowChars = (app.scenario.streams || []).reduce((/** @type {number} */ n, /** @type {any} */ st) => n + ((st && st.rows) || '').length, 0);
  if (rowChars > MAX_AUTO_URL_JSON) {
    pendingHash = null;
    return;
  }
  const json = await compactJson();
  if (json.length > MAX_AUTO_URL_JSON) {
    pendingHash = null;
    return;
  }
  const enc = await encodeScenario(json);
  const frag = `s=${enc}`;
  pendingHash = frag;
  if (app.embed.on) {
    // Never rewrite the host's URL (nor our own) in embed mode: only the "open" link changes.
    /** @type {HTMLAnchorElement} */ ($('embed-open')).href = `${pageBase()}#${frag}`;
    return;
  }
  if (window.location.hash !== `#${frag}`) {
    window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}#${frag}`);
  }
}

/** Shows one popover (hiding the others); returns whether it is now shown. @param {string} id @param {boolean} [show] */
function togglePopover(id, show) {
  for (const p of document.querySelectorAll('.popover')) if (p.id !== id) /** @type {HTMLElement} */ (p).hidden = true;
  const el = $(id);
  el.hidden = show === undefined ? !el.hidden : !show;
  return !el.hidden;
}

/** @param {string} text @param {HTMLInputElement | HTMLTextAreaElement} input @param {HTMLElement} note */
async function copyText(text, input, note) {
  try {
    await navigator.clipboard.writeText(text);
    note.textContent = 'Copied.';
  } catch {
    input.focus();
    input.select();
    const ok = document.execCommand && document.execCommand('copy');
    note.textContent = ok ? 'Copied.' : 'Select the text and copy it (Ctrl+C).';
  }
}

async function openShare() {
  if (!togglePopover('share-box')) return;
  await refreshShare();
}

/** The share box's link, as a puzzle or not. */
async function refreshShare() {
  const asPuzzle = /** @type {HTMLInputElement} */ ($('share-puzzle')).checked;
  const url = await shareUrl(asPuzzle);
  const input = /** @type {HTMLInputElement} */ ($('share-url'));
  input.value = url;
  const noExpected = asPuzzle && app.scenario.expected === undefined ? ' A puzzle needs an expected result: set the result you want with "use as expected" first, then change the scenario back to where the reader starts.' : '';
  $('share-note').textContent = `${url.length.toLocaleString('en')} characters.${url.length > 32000 ? ' That is long: some chat tools cut long links.' : ''}${noExpected}`;
  input.select();
}

/** @param {unknown} s */
function escapeAttr(s) {
  return String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The iframe snippet for the Embed box's choices. */
export async function embedSnippet() {
  const panels = [...$('embed-panels').querySelectorAll('input:checked')].map((x) => /** @type {HTMLInputElement} */ (x).value);
  const ro = /** @type {HTMLInputElement} */ ($('embed-readonly')).checked;
  const height = Math.max(200, Math.min(3000, Number(/** @type {HTMLInputElement} */ ($('embed-height')).value) || 520));
  const enc = await encodeScenario(await compactJson());
  const q = ['embed', `panels=${panels.join(',')}`];
  if (ro) q.push('readonly');
  const src = `${pageBase()}?${q.join('&')}#s=${enc}`;
  const title = `Joinlab: ${app.scenario.title || 'scenario'}`;
  return `<iframe src="${escapeAttr(src)}" title="${escapeAttr(title)}" width="100%" height="${height}" style="border:1px solid #d0d7de;border-radius:6px" loading="lazy" referrerpolicy="no-referrer"></iframe>`;
}

async function openEmbed() {
  if (!togglePopover('embed-box')) return;
  const box = $('embed-panels');
  if (!box.querySelector('input')) {
    const def = new Set(['streams', 'outputs', 'late', 'timeline']);
    for (const p of EMBED_CHOICES) box.append(h('label', null, h('input', { type: 'checkbox', value: p, checked: def.has(p) }), ` ${p}`));
  }
  await refreshSnippet();
}

async function refreshSnippet() {
  /** @type {HTMLTextAreaElement} */ ($('embed-snippet')).value = await embedSnippet();
  $('embed-note').textContent = '';
}

/** Wires the Share and Embed buttons and boxes. */
export function wireShareEmbed() {
  $('btn-share').addEventListener('click', openShare);
  $('share-copy').addEventListener('click', () => copyText(/** @type {HTMLInputElement} */ ($('share-url')).value, /** @type {HTMLInputElement} */ ($('share-url')), $('share-note')));
  $('share-puzzle').addEventListener('change', refreshShare);
  $('btn-embed').addEventListener('click', openEmbed);
  $('embed-box').addEventListener('change', refreshSnippet);
  $('embed-box').addEventListener('input', (e) => /** @type {HTMLElement} */ (e.target).id === 'embed-height' && refreshSnippet());
  $('embed-copy').addEventListener('click', () => copyText(/** @type {HTMLTextAreaElement} */ ($('embed-snippet')).value, /** @type {HTMLTextAreaElement} */ ($('embed-snippet')), $('embed-note')));
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') for (const p of document.querySelectorAll('.popover')) /** @type {HTMLElement} */ (p).hidden = true;
  });
}
