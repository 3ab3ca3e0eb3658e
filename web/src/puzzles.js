// @ts-check
// The puzzles: gallery scenarios from the pitfalls, each with a question and the one setting
// that solves it. A puzzle's target is the scenario's `expected` entry, computed by the engine
// from the scenario with the solution applied (never written by hand); Check compares the
// current result with it (expected.js), Reveal applies the solution. Progress stays in this
// browser (localStorage), never sent anywhere.

/**
 * @typedef {object} Puzzle
 * @property {string} id
 * @property {string} scenario  the gallery scenario (scenarios/NAME.json)
 * @property {string} title
 * @property {string} question
 * @property {Record<string, unknown>} solution  scenario paths and their values (null: remove)
 * @property {Record<string, unknown>} [setup]  changes to the gallery scenario that make the puzzle
 */

/** @type {Puzzle[]} */
export const PUZZLES = [
  {
    id: 'idle-partition',
    scenario: 'pitfall-idle-partition',
    title: 'The windows that never fire',
    question: 'At parallelism 2 one assigner subtask gets no rows and holds the watermark at −∞, and with no final watermark at the end of input no window ever fires. Change one watermark setting so that the windows fire.',
    setup: { 'job.final_watermark': false },
    solution: { 'job.watermark.idle_timeout': '1s' },
  },
  {
    id: 'tumbling-boundary',
    scenario: 'window-join-tumbling-miss',
    title: 'A pair across the boundary',
    question: 'Two rows close in time fall into different tumbling windows and never join. Change the window size (one setting) so that they meet in one window.',
    solution: { 'job.window.size': '20s' },
  },
  {
    id: 'sliding-duplicates',
    scenario: 'window-join-sliding-duplicates',
    title: 'Every pair once',
    question: 'Sliding windows emit some pairs twice. Change the window kind (keeping its size) so that every pair comes out once.',
    solution: { 'job.window.kind': 'tumbling', 'job.window.slide': null },
  },
  {
    id: 'exclusive-bound',
    scenario: 'interval-exclusive-bounds',
    title: 'Exactly on the bound',
    question: 'A pair lies exactly on the interval\'s lower bound and does not join. Make it join with one setting, keeping the bounds.',
    solution: { 'job.interval.lower_exclusive': false },
  },
  {
    id: 'lateness',
    scenario: 'agg-tumbling-lateness',
    title: 'Let the late row count',
    question: 'A row arrives after its window fired and its lateness ran out: it goes to the late side output. Change one setting so that it still updates its window.',
    solution: { 'job.allowed_lateness': '10s' },
  },
  {
    id: 'final-watermark',
    scenario: 'sql-interval-left-join',
    title: 'The padded rows that never come',
    question: 'A LEFT interval join emits a left row with nulls once the watermark passes its interval. Here some left rows wait in state for a watermark that never comes. Change one setting so that the end of input releases them, as a bounded source does.',
    setup: { 'job.final_watermark': false },
    solution: { 'job.final_watermark': true },
  },
  {
    id: 'session-gap',
    scenario: 'agg-session',
    title: 'One session, not two',
    question: 'The rows of one user form two sessions. Change the session gap (one setting) so that they form one.',
    solution: { 'job.window.gap': '20s' },
  },
  {
    id: 'left-not-full',
    scenario: 'sql-interval-full-join',
    title: 'Only the left side padded',
    question: 'A FULL interval join pads the unmatched rows of both streams with nulls. Change the join type (one setting) so that only the left stream\'s unmatched rows are padded.',
    solution: { 'job.sql.join': 'left' },
  },
  {
    id: 'split-route',
    scenario: 'split-side-outputs',
    title: 'Route it home',
    question: 'The "spark" rows go to the side output "test". Change one route so that they go to the main output instead.',
    solution: { 'job.split.routes.1.to': 'main' },
  },
];

/** @param {string} id */
export const findPuzzle = (id) => PUZZLES.find((p) => p.id === id) || null;

const KEY = 'joinlab.puzzles';

/** Progress: puzzle id -> 'solved' | 'revealed'. @returns {Record<string, string>} */
export function progress() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

/** @param {string} id @param {'solved' | 'revealed'} state */
export function markProgress(id, state) {
  const p = progress();
  // A solved puzzle stays solved.
  if (p[id] === 'solved') return;
  p[id] = state;
  try {
    localStorage.setItem(KEY, JSON.stringify(p));
  } catch {
    // storage off (private mode): progress lasts until the page closes
  }
}

/**
 * Sets `path` ("a.b.1.c": numbers index arrays) of `doc` to `value`; null removes it.
 * @param {any} doc @param {string} path @param {unknown} value
 */
export function setPath(doc, path, value) {
  const keys = path.split('.');
  let o = doc;
  for (let i = 0; i < keys.length - 1; i++) {
    const k = /^\d+$/.test(keys[i]) ? Number(keys[i]) : keys[i];
    if (o[k] === null || typeof o[k] !== 'object') o[k] = /^\d+$/.test(keys[i + 1]) ? [] : {};
    o = o[k];
  }
  const last = /^\d+$/.test(keys[keys.length - 1]) ? Number(keys[keys.length - 1]) : keys[keys.length - 1];
  if (value === null) delete o[last];
  else o[last] = value;
}
