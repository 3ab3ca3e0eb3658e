// @ts-check
// The SQL script reader in the page, loaded on demand: its own wasm module (web/pkg-sql/, cargo
// feature `sql-module`, scripts/build-wasm.sh), like the exporter's (export-runtime.js). It is
// fetched only when a SQL scenario opens or the SQL tab is used; once loaded, its calls are
// synchronous (a 100-line script parses in a few milliseconds, and a key in a long script
// re-reads only what it changed), so typing recomputes in the same task.

/** @type {Promise<any> | null} */
let loading = null;
/** @type {any} the loaded module, or null */
let loaded = null;

/** Loads and instantiates the module once. @returns {Promise<any>} */
export function loadSql() {
  // @ts-ignore -- built by scripts/build-wasm.sh (absent before the first build)
  loading ??= import('../../pkg-sql/joinlab_sql.js').then(async (m) => {
    await m.default();
    loaded = m;
    return m;
  });
  loading.catch(() => (loading = null)); // a failed load is tried again on the next use
  return loading;
}

/** The module if it is loaded, else null. */
export function sqlModule() {
  return loaded;
}

/**
 * A script -> `{ scenario }` or `{ errors: [{ line, column, message }] }` (1-based positions),
 * and `read`: what the read reused. The module's reader keeps the rows of the scripts it read
 * (`sql_read`): a key re-reads only the statements and `INSERT` rows whose text changed, with
 * the same answer as reading the whole script (crate/src/sql/script/incremental.rs).
 * @param {string} text @returns {{ scenario?: any, errors?: { line: number, column: number, message: string }[], read?: any }}
 */
export function parseScript(text) {
  try {
    const out = loaded.sql_read(text);
    // The module leaves the script out of its answer: it is `text`.
    if (out && out.scenario && typeof out.scenario.sql !== 'string') out.scenario.sql = text;
    return out && typeof out === 'object' ? out : { errors: [{ line: 1, column: 1, message: 'the SQL reader returned nothing' }] };
  } catch (e) {
    return { errors: [{ line: 1, column: 1, message: `the SQL reader failed: ${/** @type {Error} */ (e).message || e}` }] };
  }
}

/**
 * A scenario (object) -> its script (string) or `{ message }` when it has no script form.
 * @param {any} scenario @returns {string | { message: string }}
 */
export function printScript(scenario) {
  try {
    const out = loaded.scenario_to_sql(JSON.stringify(scenario));
    return typeof out === 'string' ? out : { message: (out && out.message) || 'no SQL form' };
  } catch (e) {
    return { message: `the SQL printer failed: ${/** @type {Error} */ (e).message || e}` };
  }
}
