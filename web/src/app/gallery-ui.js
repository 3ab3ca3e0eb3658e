// @ts-check
// The Gallery dialog: every bundled scenario, opened with one click.

import { h, fill } from '../dom.js';
import { GALLERY } from '../gallery.js';
import { PUZZLES, progress } from '../puzzles.js';
import { openPuzzle } from '../panels/puzzle.js';
import { app, $, actions } from './state.js';

export function buildGallery() {
  const list = $('gallery-list');
  const dialog = /** @type {HTMLDialogElement} */ ($('gallery'));
  fill(
    list,
    ...GALLERY.map((g) =>
      h(
        'li',
        null,
        h(
          'button',
          {
            type: 'button',
            class: 'gallery-item',
            dataset: { gallery: g.name },
            onclick: () => {
              dialog.close();
              app.puzzle = null;
              actions.loadScenarioText(g.text, g.name);
              if (!app.embed.on) window.history.replaceState(null, '', `${window.location.pathname}#scenario=${encodeURIComponent(g.name)}`);
            },
          },
          h('span', { class: 'g-title' }, g.title),
          h('span', { class: 'g-op' }, g.operator.replace(/_/g, ' ')),
          h('span', { class: 'g-desc' }, g.description.length > 260 ? `${g.description.slice(0, 257)}…` : g.description),
        ),
      ),
    ),
  );
  if (!GALLERY.length) list.append(h('li', { class: 'empty' }, 'no scenarios were bundled'));
  $('btn-gallery').addEventListener('click', () => {
    buildPuzzles(dialog);
    dialog.showModal();
  });
}

/** The Puzzles section, with this browser's progress. @param {HTMLDialogElement} dialog */
function buildPuzzles(dialog) {
  const done = progress();
  const solved = PUZZLES.filter((p) => done[p.id] === 'solved').length;
  $('puzzle-progress').textContent = `${solved} of ${PUZZLES.length} solved (kept in this browser only)`;
  fill(
    $('puzzle-list'),
    ...PUZZLES.map((p) =>
      h(
        'li',
        null,
        h(
          'button',
          {
            type: 'button',
            class: 'gallery-item',
            dataset: { puzzle: p.id, progress: done[p.id] || '' },
            onclick: () => {
              dialog.close();
              try {
                openPuzzle(p.id);
              } catch (e) {
                const s = $('status');
                s.className = 'status error';
                s.textContent = String(/** @type {Error} */ (e).message || e);
              }
            },
          },
          h('span', { class: 'g-title' }, `${done[p.id] === 'solved' ? '✓ ' : done[p.id] === 'revealed' ? '👁 ' : ''}${p.title}`),
          h('span', { class: 'g-op' }, done[p.id] ? (done[p.id] === 'solved' ? 'solved' : 'revealed') : 'puzzle'),
          h('span', { class: 'g-desc' }, p.question),
        ),
      ),
    ),
  );
}
