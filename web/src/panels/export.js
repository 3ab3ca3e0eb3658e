// @ts-check
// The Export panel: the job as Flink DataStream Java or Flink SQL (the exporter's own wasm
// module, loaded on the first export).

import { exportJob } from '../export-runtime.js';
import { app, $ } from '../app/state.js';
import { registerPanel } from '../app/registry.js';

let exportLang = 'java';
let token = 0;

export function renderExport() {
  const sec = $('export-panel');
  sec.hidden = false;
  for (const b of sec.querySelectorAll('[data-lang]')) b.classList.toggle('active', /** @type {HTMLElement} */ (b).dataset.lang === exportLang);
  if (!(/** @type {HTMLDetailsElement} */ ($('export-details')).open)) return;
  // A later render (an edit, another language) supersedes a pending one.
  const mine = ++token;
  exportJob(JSON.stringify(app.scenario), exportLang).then((/** @type {any} */ out) => {
    if (mine !== token) return;
    $('export-code').textContent = typeof out === 'string' ? out : (out && (out.message || (out.error && out.error.message))) || JSON.stringify(out);
  });
}

export function wireExport() {
  $('export-details').addEventListener('toggle', renderExport);
  for (const b of document.querySelectorAll('#export-panel [data-lang]'))
    b.addEventListener('click', () => {
      exportLang = /** @type {HTMLElement} */ (b).dataset.lang || 'java';
      renderExport();
    });
  $('export-copy').addEventListener('click', () => navigator.clipboard && navigator.clipboard.writeText($('export-code').textContent || '').catch(() => {}));
}

registerPanel({ name: 'export', render: renderExport });
