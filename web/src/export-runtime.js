// The Flink exporter in the page, loaded on demand: its own wasm module and the runtime text.
//
// The exporter is a second wasm module (web/pkg-export/, cargo feature `export-module`,
// scripts/build-wasm.sh), not part of the engine's: most visits never open the Export panel,
// and the exporter's code and Java templates would be about a tenth of the engine module's
// gzipped size. Vite bundles both as assets of the page (no external request); they are
// fetched the first time the panel asks for a job.
//
// The exporter leaves the 35 KB runtime text (class Rt) out and writes one marker line in its
// place (RUNTIME_MARKER in crate/src/export/job.rs); the text is the same file the native
// exporter embeds, bundled as a separate chunk.
import { loadSql } from './sql/runtime.js';

const MARKER = '    // @@JOINLAB_RUNTIME@@ (the Joinlab runtime, class Rt, goes here)\n';

let runtime = null;
let exporter = null;

/** Whether `text` (an exported job) still needs the runtime put in. */
export function needsRuntime(text) {
  return typeof text === 'string' && text.includes(MARKER);
}

/** The exported job with the runtime in place of the marker. */
export async function withRuntime(text) {
  if (!needsRuntime(text)) return text;
  runtime ??= import('../../crate/src/export/runtime.java?raw').then((m) => m.default);
  const rt = await runtime;
  return text.replace(MARKER, () => rt);
}

/** The scenario document `json` as an object, or undefined when it does not parse. */
function parsed(json) {
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}

/** Whether a scenario document (object) carries a SQL script of its own. */
function hasScript(sc) {
  return !!sc && typeof sc.sql === 'string' && sc.sql.trim() !== '';
}

/**
 * What the export of a scenario read from a SQL script needs from the script (its query and
 * `PROCTIME()` columns, as JSON text), read by the SQL module: the exporter has no SQL parser.
 * Undefined for a scenario without a script.
 */
async function scriptFacts(json) {
  if (!hasScript(parsed(json))) return undefined;
  const f = (await loadSql()).script_facts(json);
  return typeof f === 'string' ? f : undefined;
}

/**
 * A scenario with a SQL query (projection, WHERE) but no script of its own (a document typed
 * or shared without it), with the script the SQL module prints for it: the exporter runs the
 * query of the script (it has no SQL printer). Other scenarios as they are.
 * @param {string} json @returns {Promise<string>}
 */
async function withScript(json) {
  const sc = parsed(json);
  if (!sc || !sc.job || !sc.job.query || hasScript(sc)) return json;
  const printed = (await loadSql()).scenario_to_sql(json);
  return typeof printed === 'string' ? JSON.stringify({ ...sc, sql: printed }) : json;
}

/** The exporter's module, loaded and instantiated once. */
function loadExporter() {
  exporter ??= import('../pkg-export/joinlab_export.js').then(async (m) => {
    await m.default();
    return m;
  });
  return exporter;
}

/**
 * The scenario (JSON text) as a Flink job, `lang` "java" (DataStream) or "sql": resolves to
 * the job's full source text, or to an error object `{ error, message }` as the exporter
 * returns it.
 */
export async function exportJob(json, lang) {
  let out;
  try {
    json = await withScript(json);
    const facts = await scriptFacts(json);
    out = (await loadExporter()).export_flink(json, lang, facts);
  } catch (e) {
    exporter = null; // a failed load is tried again on the next export
    return { message: `the exporter could not be loaded: ${e && e.message ? e.message : e}` };
  }
  return typeof out === 'string' ? withRuntime(out) : out;
}
