// @ts-check
// The Gallery dialog: every bundled scenario, opened with one click.

import { h, fill } from '../dom.js';
import { GALLERY } from '../gallery.js';
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
  $('btn-gallery').addEventListener('click', () => dialog.showModal());
}
