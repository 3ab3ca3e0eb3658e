// The engine in a Web Worker: the same wasm module as the page, for large inputs.
import init, * as wasm from '../pkg/joinlab.js';
import { runWith } from './run-with.js';

const ready = init();

self.onmessage = async (ev) => {
  const { id, json, trace, snapshots } = ev.data;
  self.postMessage({ id, type: 'phase', phase: 'loading the engine' });
  await ready;
  self.postMessage({ id, type: 'phase', phase: 'running the engine' });
  const t0 = performance.now();
  let result;
  try {
    result = runWith(wasm, json, trace, snapshots);
  } catch (e) {
    result = { error: { kind: 'internal', message: String(e) }, message: `internal error in the engine: ${e}` };
  }
  const ms = performance.now() - t0;
  self.postMessage({ id, type: 'phase', phase: 'sending the result' });
  self.postMessage({ id, type: 'done', result, ms });
};
