// Shared by the page and the worker.

/**
 * Runs a scenario with the wasm module `m` and returns the result object (or an error object).
 * With `trace` and `snapshots === false`, the trace carries no state snapshot per step (the
 * engine's `run_traced`; the state at a step is then asked for with `state_at`): the trace of
 * a large input stays linear in size.
 *
 * `run` builds JS objects directly; when that fails (serde-wasm-bindgen refuses integers beyond
 * ±2^53, e.g. a watermark just below +∞) it returns null and the JSON text form is used.
 */
export function runWith(m, json, trace, snapshots = true) {
  let r;
  if (trace && snapshots === false && typeof m.run_traced === 'function') r = m.run_traced(json, false);
  else r = m.run(json, trace);
  if (r !== null && r !== undefined) return r;
  return JSON.parse(m.run_to_json(json, trace));
}
