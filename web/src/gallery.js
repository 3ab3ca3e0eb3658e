// The gallery: every scenarios/*.json (not *.expected.json), bundled at build time.
import { DEFAULT_SCENARIO } from './default-scenario.js';
import { sqlGallery } from './sql/gallery.js';

const files = import.meta.glob(['../../scenarios/*.json', '!../../scenarios/*.expected.json'], {
  query: '?raw',
  import: 'default',
  eager: true,
});

export const DEFAULT_NAME = 'window-join-tumbling';

function nameOf(path) {
  return path.replace(/^.*\//, '').replace(/\.json$/, '');
}

/** [{ name, title, description, operator, text }] sorted by name, the default first. */
export const GALLERY = Object.entries(files)
  .map(([path, text]) => {
    let doc = null;
    try {
      doc = JSON.parse(text);
    } catch {
      doc = null;
    }
    const name = nameOf(path);
    return {
      name,
      text,
      title: (doc && doc.title) || name,
      description: (doc && doc.description) || '',
      operator: (doc && doc.job && doc.job.operator) || 'window_join',
      valid: !!doc,
    };
  })
  .filter((g) => g.valid)
  .concat(sqlGallery())
  .sort((a, b) => (a.name === DEFAULT_NAME ? -1 : b.name === DEFAULT_NAME ? 1 : a.name.localeCompare(b.name)));

export function findScenario(name) {
  return GALLERY.find((g) => g.name === name) || null;
}

/** The scenario a first visit shows: scenarios/window-join-tumbling.json, else the built-in copy. */
export function defaultScenarioText() {
  const g = findScenario(DEFAULT_NAME);
  return g ? g.text : JSON.stringify(DEFAULT_SCENARIO);
}
