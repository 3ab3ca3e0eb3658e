// @ts-check
// The SQL operators' module: the engine with the window TVF aggregation and join, the temporal
// and lookup joins and a SQL query's projection and WHERE (web/pkg-ops/, cargo feature
// `ops-module`, scripts/build-wasm.sh). The first-load module (web/pkg/) leaves them out to
// stay small, and answers such a scenario with an error; the page and the worker load this
// module, once, only for a scenario that needs it. Its exports are the first-load module's.

/** The operators (`job.operator`) only this module simulates. */
const OPERATORS = ['window_tvf_aggregate', 'window_tvf_join', 'temporal_join', 'lookup_join'];
// In JSON text: an `"operator"` key with one of them, or a `"query"` key (the SQL query's
// projection). A key cannot appear inside a JSON string (its quotes would be escaped there).
const IN_TEXT = new RegExp(`"operator"\\s*:\\s*"(?:${OPERATORS.join('|')})"|"query"\\s*:\\s*[^\\sn]`);

/**
 * Whether a scenario (its JSON text, or the object) needs this module.
 * @param {any} scenario @returns {boolean}
 */
export function needsOps(scenario) {
  if (typeof scenario === 'string') return IN_TEXT.test(scenario);
  const job = scenario && scenario.job;
  return !!job && (OPERATORS.includes(job.operator) || (job.query !== undefined && job.query !== null));
}

/** @type {Promise<any> | null} */
let loading = null;
/** @type {any} the loaded module, or null */
let loaded = null;

/** Loads and instantiates the module once (a failed load is tried again on the next call). @returns {Promise<any>} */
export function loadOps() {
  // @ts-ignore -- built by scripts/build-wasm.sh (absent before the first build)
  loading ??= import('../pkg-ops/joinlab_ops.js').then(async (m) => {
    await m.default();
    loaded = m;
    return m;
  });
  loading.catch(() => (loading = null));
  return loading;
}

/** The module if it is loaded, else null. */
export function opsModule() {
  return loaded;
}
