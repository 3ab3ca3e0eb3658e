// The Joinlab runtime (class Rt) of the exported Flink jobs, loaded on demand.
//
// The wasm module's exporter leaves the 35 KB runtime text out and writes one marker line in
// its place (RUNTIME_MARKER in crate/src/export/mod.rs); it would otherwise be a fifth of the
// module's gzipped size for a panel most visits never open. The text is the same file the
// native exporter embeds, bundled by Vite as a separate chunk and fetched the first time a job
// is exported.
const MARKER = '    // @@JOINLAB_RUNTIME@@ (the Joinlab runtime, class Rt, goes here)\n';

let runtime = null;

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
