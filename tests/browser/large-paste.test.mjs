// Pasting a large log into a stream editor: the run goes to the worker, a progress indicator
// shows, the main thread is never blocked for long, and the result equals the CLI's.
// (scripts/bench-page.mjs reports the real long-task figures; the bound here is generous.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setup, openPage, cliJson } from './helpers.mjs';

let env;
before(async () => {
  env = await setup();
});
after(async () => {
  await env.close();
});

/** Rows of one stream: 100 keys, +10 ms per row with a 0..4 ms jitter; the right one 3 ms later. */
function rows(n, side) {
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const r = side === 'r' ? 3 : 0;
    out[i] = `k${i % 100}, ${i}, ${i * 10 + ((i * 7 + r) % 5) + r}`;
  }
  return out.join('\n');
}

const PASTED = 200000;
const RIGHT = 2000;
/** Longest main-thread task tolerated (ms). The goal is 50 ms (see scripts/bench-page.mjs for
 * the measured figure, 99–140 ms today); the bound is generous so a busy CI machine does not
 * make the test flaky, while a page that blocks for the whole run (seconds) still fails. */
const LONG_TASK_BOUND = 600;

function scenario(left) {
  return {
    title: 'large paste',
    job: { operator: 'interval_join', interval: { lower: -10, upper: 10 } },
    streams: [
      { name: 'l', columns: ['k', 'v:int', 'ts'], key: 'k', time: 'ts', rows: left },
      { name: 'r', columns: ['k', 'v:int', 'ts'], key: 'k', time: 'ts', rows: rows(RIGHT, 'r') },
    ],
  };
}

test(`pasting ${PASTED.toLocaleString('en')} rows into a stream editor shows progress, keeps the page responsive and gives the CLI's result`, async () => {
  const pasted = rows(PASTED, 'l');
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'joinlab-paste-')), 'paste.json');
  fs.writeFileSync(file, JSON.stringify(scenario(pasted)));
  const cli = cliJson(file);
  // Each of the first RIGHT left rows meets the right row of the same index (same key rows are 1 s apart).
  assert.equal(cli.outputs.length, RIGHT);

  const { page, context, problems } = await openPage(env, '?budget=120000');
  await page.evaluate((text) => window.__joinlab.loadScenarioText(text, 'test'), JSON.stringify(scenario(rows(10, 'l'))));
  await page.waitForFunction(() => /^✓/.test(document.getElementById('status').textContent) && !document.body.classList.contains('detail-pending'));
  await page.evaluate((text) => {
    window.__pasteText = text;
  }, pasted);

  const r = await page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const long = [];
        new PerformanceObserver((l) => {
          for (const e of l.getEntries()) long.push(e.duration);
        }).observe({ type: 'longtask' });
        const status = document.getElementById('status');
        const progress = document.getElementById('progress');
        let progressSeen = false;
        let t0 = 0;
        let done = false;
        const poll = () => {
          if (!progress.hidden && progress.offsetParent !== null) progressSeen = true;
          if (!done) requestAnimationFrame(poll);
        };
        const timer = setTimeout(() => reject(new Error(`no result after 120 s; status: ${status.textContent}`)), 120000);
        new MutationObserver(() => {
          if (done || !t0 || !/^✓.*\(worker\)/.test(status.textContent)) return;
          done = true;
          clearTimeout(timer);
          const ms = performance.now() - t0;
          // Let the frame after the result paint, and what follows it run, before reading the long tasks.
          requestAnimationFrame(() =>
            setTimeout(() => {
              setTimeout(
                () =>
                  resolve({
                    ms,
                    long,
                    progressSeen,
                    status: status.textContent,
                    outputs: window.__joinlab.result.outputs.length,
                    late: window.__joinlab.result.late.length,
                    lines: window.__joinlab.editors[0].lines(),
                  }),
                500,
              );
            }, 0),
          );
        }).observe(status, { childList: true, subtree: true, characterData: true });
        // The paste: one transaction replacing the editor's content (as a paste does), in its own task.
        setTimeout(() => {
          const view = window.__joinlab.editors[0].view;
          t0 = performance.now();
          requestAnimationFrame(poll);
          view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: window.__pasteText } });
          if (!progress.hidden) progressSeen = true;
        }, 50);
      }),
  );
  console.log(`# paste of ${PASTED} rows: result after ${r.ms.toFixed(0)} ms; long tasks (ms): ${r.long.map((d) => d.toFixed(0)).join(', ') || 'none'}`);
  assert.equal(r.lines, PASTED);
  assert.ok(r.progressSeen, 'the progress indicator became visible');
  const longest = r.long.length ? Math.max(...r.long) : 0;
  assert.ok(longest <= LONG_TASK_BOUND, `the longest main-thread task took ${longest.toFixed(0)} ms (bound ${LONG_TASK_BOUND} ms)`);
  assert.equal(r.outputs, cli.outputs.length);
  assert.equal(r.late, cli.late.length);
  assert.match(r.status, new RegExp(`✓ ${cli.outputs.length} outputs`));
  assert.deepEqual(problems, []);
  await context.close();
});
