// Above the full-trace limit the stepper works on windows of the trace fetched from the worker:
// the slider spans every step, a step shows the same cause, events and state as the CLI's full
// trace, and moving beyond the window fetches another one while the page stays responsive.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setup, openPage, cliJson, ROOT, bigScenario } from './helpers.mjs';
import { execFileSync } from 'node:child_process';

let env;
before(async () => {
  env = await setup();
});
after(async () => {
  await env.close();
});

/** The CLI's full trace (`joinlab run FILE --json --trace`, with a state snapshot per step). */
function cliTrace(file) {
  const bin = path.join(ROOT, 'target/release/joinlab');
  const out = execFileSync(bin, ['run', file, '--json', '--trace'], { maxBuffer: 1 << 30 });
  return JSON.parse(out);
}

const windowOf = (page) => page.$eval('#stepper', (e) => [Number(e.dataset.windowFrom), Number(e.dataset.windowEnd)]);

test('above the trace limit the stepper fetches windows of steps; a step equals the CLI full trace', async () => {
  const sc = bigScenario(15000);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'joinlab-')), 'big.json');
  fs.writeFileSync(file, JSON.stringify(sc));
  const cli = cliJson(file);
  const full = cliTrace(file);
  assert.equal(full.trace.length, cli.steps);
  const { page, problems } = await openPage(env);
  await page.evaluate((text) => window.__joinlab.loadScenarioText(text, 'test'), JSON.stringify(sc));
  await page.waitForFunction(() => /\(worker\)/.test(document.getElementById('status').textContent), null, { timeout: 60000 });
  assert.match(await page.textContent('#timeline'), /need the step-by-step trace/);
  await page.locator('#stepper').scrollIntoViewIfNeeded();
  // The first window: the last steps (the stepper starts at the last step).
  await page.waitForSelector('#stepper[data-window-from] .jl-step-slider');
  assert.equal(await page.$eval('#stepper .jl-step-slider', (e) => e.max), String(cli.steps - 1));
  const [f0, e0] = await windowOf(page);
  assert.equal(e0, cli.steps);
  assert.ok(f0 > 0 && f0 < cli.steps - 1, `window ${f0}..${e0}`);
  assert.match(await page.textContent('#stepper .jl-step-count'), new RegExp(`step ${cli.steps} / ${cli.steps}`));

  // A step in the middle: outside the window, so another one is fetched. Meanwhile the page answers.
  const mid = Math.floor(cli.steps / 2);
  await page.$eval(
    '#stepper .jl-step-slider',
    (e, v) => {
      e.value = String(v);
      e.dispatchEvent(new Event('input', { bubbles: true }));
    },
    mid,
  );
  const t0 = Date.now();
  await page.evaluate(() => 1);
  assert.ok(Date.now() - t0 < 1000, 'the main thread is not blocked while the window is fetched');
  await page.waitForFunction((m) => {
    const e = document.getElementById('stepper');
    return Number(e.dataset.windowFrom) <= m && m < Number(e.dataset.windowEnd) && !e.dataset.windowLoading;
  }, mid);
  const [f1, e1] = await windowOf(page);
  assert.ok(f1 !== f0 && f1 <= mid && mid < e1, `window ${f1}..${e1} around ${mid}`);
  assert.match(await page.textContent('#stepper .jl-step-count'), new RegExp(`step ${mid + 1} / ${cli.steps}`));

  // The cause and events equal the CLI's step.
  const step = full.trace[mid];
  assert.equal(step.cause.type, 'row');
  const row = full.rows[step.cause.row];
  const stream = sc.streams[row.side === 'left' ? 0 : 1].name;
  const cause = await page.textContent('#stepper .jl-cause-text');
  assert.equal(cause, `${stream} line ${row.line} arrives at assigner subtask ${step.cause.assigner}`);
  const events = await page.$$eval('#stepper .jl-step-events li', (l) => l.map((e) => e.textContent));
  assert.equal(events.length, step.events.length, events.join('\n'));
  const buffered = step.events.find((e) => e.type === 'buffered');
  assert.ok(events.some((t) => t.includes(`line ${row.line}`) && t.includes(`buffered in ${buffered.what}`)), events.join('\n'));
  for (const e of step.events.filter((x) => x.type === 'output')) {
    assert.ok(events.some((t) => t.startsWith(`output #${e.index + 1}:`)), `output ${e.index}: ${events.join('\n')}`);
  }
  // The summary counts everything before the window too.
  let outs = 0;
  let late = 0;
  for (const s of full.trace.slice(0, mid + 1)) {
    for (const e of s.events) {
      if (e.type === 'output' || e.type === 'window') outs++;
      else if (e.type === 'late') late++;
    }
  }
  assert.equal(await page.textContent('#stepper .jl-step-summary'), `so far: ${outs} output${outs === 1 ? '' : 's'}, ${late} late`);
  // The operator watermark: the one the CLI's trace reached by this step.
  let wm = '-inf';
  for (const s of full.trace.slice(0, mid + 1)) for (const e of s.events) if (e.type === 'operator_watermark') wm = e.watermark;
  const wmCell = await page.textContent('#stepper .jl-wm-operator td.jl-wm-combined');
  assert.ok(wmCell.replace(/[^0-9]/g, '').includes(String(wm).replace(/[^0-9]/g, '')), `${wmCell} vs ${wm}`);
  // The state after the step (the worker's state_at): the rows of the CLI's snapshot.
  await page.waitForFunction(() => !document.querySelector('#stepper .jl-state-pending') && document.querySelector('#stepper .jl-subtask-state'));
  const snap = step.state.find((s) => s.subtask === 0);
  const want = snap.entries.flatMap((en) => en.rows.map((id) => `line ${full.rows[id].line} `));
  const got = await page.$$eval('#stepper .jl-state-rows .jl-row-ref', (l) => l.map((e) => e.textContent));
  assert.equal(got.length, want.length, got.join(', '));
  want.forEach((w, i) => assert.ok(got[i].startsWith(w), `${got[i]} vs ${w}`));
  // The state panel follows the step too (the same state_at): entry by entry the CLI's
  // snapshot. Its rows and keys are named when the window of the trace names them, else by id.
  await page.waitForFunction((m) => {
    const b = document.getElementById('state');
    return b.dataset.step === String(m) && !b.dataset.pending;
  }, mid);
  const cells = await page.$$eval('#state tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  const po = full.operator_parallelism || full.parallelism || 1;
  const wantCells = [];
  for (let j = 0; j < po; j++) {
    let sn = null;
    for (let i = mid; i >= 0 && !sn; i--) sn = full.trace[i].state.find((x) => x.subtask === j) || null;
    for (const en of (sn && sn.entries) || []) wantCells.push({ j, key: en.key, side: en.side || '', scope: en.scope, rows: en.rows });
    for (const t of (sn && sn.timers) || []) wantCells.push({ j, key: t.key, side: '', scope: `${t.processing ? 'processing-time' : 'event-time'} timer at ${t.timestamp}`, what: t.what });
  }
  assert.ok(wantCells.length > 0);
  assert.equal(cells.length, wantCells.length, cells.map((c) => c.join(' | ')).join('\n'));
  wantCells.forEach((w, i) => {
    const [sub, key, side, scope, rowsText] = cells[i];
    assert.deepEqual([sub, side, scope], [String(w.j), w.side, w.scope], `state entry ${i}`);
    assert.ok([String(full.keys[w.key].value), `#${w.key}`].includes(key), `state entry ${i}: key ${key}`);
    if (w.what !== undefined) {
      assert.equal(rowsText, w.what, `timer ${i}`);
      return;
    }
    const labels = rowsText.split(', ');
    assert.equal(labels.length, w.rows.length, rowsText);
    w.rows.forEach((id, k) => {
      const r = full.rows[id];
      assert.ok([`${sc.streams[r.side === 'left' ? 0 : 1].name}:${r.line}`, `row ${id}`].includes(labels[k]), `${labels[k]} vs row ${id}`);
    });
  });

  // The next step is in the same window: no fetch.
  await page.click('#stepper .jl-step-next');
  assert.match(await page.textContent('#stepper .jl-step-count'), new RegExp(`step ${mid + 2} / ${cli.steps}`));
  assert.deepEqual(await windowOf(page), [f1, e1]);
  assert.equal(await page.$eval('#stepper', (e) => e.dataset.windowLoading || ''), '');
  // The first step: another window.
  await page.click('#stepper .jl-step-first');
  await page.waitForFunction(() => document.getElementById('stepper').dataset.windowFrom === '0' && !document.getElementById('stepper').dataset.windowLoading);
  assert.match(await page.textContent('#stepper .jl-step-count'), new RegExp(`step 1 / ${cli.steps}`));
  const c0 = full.rows[full.trace[0].cause.row];
  assert.equal(await page.textContent('#stepper .jl-cause-text'), `${sc.streams[c0.side === 'left' ? 0 : 1].name} line ${c0.line} arrives at assigner subtask 0`);
  assert.deepEqual(problems, []);
  await page.context().close();
});
