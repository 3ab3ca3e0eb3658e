// Playback (issue 11): play / pause / speed / loop from the bar and the keyboard, the result
// tables following the current step (later rows greyed or hidden, this step's rows marked,
// counts "so far"), a click on a row jumping to its step, and a click on a timeline mark
// selecting its row's verdict and arrival step. The state panel follows the step too: its
// table is compared with the native CLI's `--trace` state at every step.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setup, openPage, cliJson, tableCells, bigScenario, ROOT } from './helpers.mjs';

let env;
before(async () => {
  env = await setup();
});
after(async () => {
  await env?.close();
});

const step = (page) => page.evaluate(() => window.__joinlab.app.step);
const label = (page) => page.textContent('#playback .pb-label');

test('play, pause, speed and loop from the keyboard; the tables follow the step', async () => {
  const { page, problems, context } = await openPage(env);
  const total = await page.evaluate(() => window.__joinlab.result.trace.length);
  assert.match(await label(page), new RegExp(`all ${total} steps`));
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('Home');
  assert.equal(await step(page), 0);
  assert.equal(await label(page), `step 1 of ${total}`);
  // At step 0 no output has been emitted yet: every output row is "future", and the count says so.
  const outs = await page.evaluate(() => window.__joinlab.result.outputs.map((o) => o.step));
  const future = await page.$$eval('#outputs tbody tr.future', (t) => t.length);
  assert.equal(future, outs.filter((s) => s > 0).length);
  assert.match(await page.textContent('[data-panel="outputs"] .count'), new RegExp(`^${outs.filter((s) => s <= 0).length} of ${outs.length} so far$`));
  // The watermark panel follows the step too: at step 1 no watermark has reached the operator.
  const wm = await page.$$eval('table.wm-operator tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.equal(wm[0][1], 'at step 1');
  assert.equal(wm[1][1], '−∞');
  // Faster: ] twice (1× → 2× → 4×); play with Space, pause with Space.
  await page.keyboard.press(']');
  await page.keyboard.press(']');
  assert.equal(await page.inputValue('#playback select'), '4');
  await page.keyboard.press(' ');
  await page.waitForFunction(() => window.__joinlab.app.step >= 3, null, { timeout: 10000 });
  await page.keyboard.press(' ');
  const paused = await step(page);
  await page.waitForTimeout(700);
  assert.equal(await step(page), paused, 'paused');
  // Step by step.
  await page.keyboard.press('ArrowRight');
  assert.equal(await step(page), paused + 1);
  await page.keyboard.press(',');
  assert.equal(await step(page), paused);
  // Hide later rows: only rows emitted up to the step remain.
  await page.check('#playback label:has-text("hide later rows") input');
  const shown = await page.$$eval('#outputs tbody tr', (t) => t.length);
  assert.equal(shown, outs.filter((s) => s <= paused).length || 0);
  await page.uncheck('#playback label:has-text("hide later rows") input');
  // Keys typed into a field are the field's: leave the checkbox first.
  await page.evaluate(() => document.activeElement.blur());
  // Loop: played from the last step it wraps to the first.
  await page.keyboard.press('l');
  assert.equal(await page.isChecked('#playback label:has-text("loop") input'), true);
  await page.evaluate((n) => window.__joinlab.setStep(n - 1), total);
  await page.keyboard.press('k');
  await page.waitForFunction((n) => window.__joinlab.app.step !== null && window.__joinlab.app.step < n - 1, total, { timeout: 10000 });
  await page.keyboard.press('k');
  // End: every step again.
  await page.keyboard.press('End');
  assert.equal(await step(page), null);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a click on an output row jumps to its step; a click on a timeline mark selects its verdict and arrival step', async () => {
  const { page, problems, context } = await openPage(env);
  const outs = await page.evaluate(() => window.__joinlab.result.outputs.map((o) => o.step));
  await page.click('#outputs tbody tr:nth-child(3)');
  assert.equal(await step(page), outs[2]);
  assert.equal(await page.$$eval('#outputs tbody tr.now', (t) => t.length), outs.filter((s) => s === outs[2]).length);
  // The timeline: click row 4's mark.
  await page.locator('[data-panel="timeline"]').scrollIntoViewIfNeeded();
  const pt = await page.evaluate(() => {
    const tl = document.getElementById('timeline').__jlTimeline;
    const p = tl.markPosition(4);
    const box = tl.svg.getBoundingClientRect();
    const k = box.width / Number(tl.svg.getAttribute('width'));
    return { x: box.left + p.x * k, y: box.top + p.y * k, arrival: tl.rowStep(4) };
  });
  await page.mouse.click(pt.x, pt.y);
  assert.equal(await page.evaluate(() => window.__joinlab.app.selectedRow), 4);
  assert.equal(await step(page), pt.arrival);
  assert.equal(await page.$$eval('#verdicts tbody tr.selected', (t) => t.length), 1);
  assert.deepEqual(problems, []);
  await context.close();
});

test('an embed chooses its panels, its first step and autoplay', async () => {
  const { page, problems, context } = await openPage(env, '?embed&panels=playback,outputs,timeline&step=2&autoplay', { width: 700, height: 800 });
  // It starts at step 2 (1-based) and plays on.
  await page.waitForFunction(() => window.__joinlab.app.step !== null && window.__joinlab.app.step > 1, null, { timeout: 10000 });
  assert.equal(await page.isVisible('#playback'), true);
  assert.equal(await page.isVisible('[data-panel="streams"]'), false);
  await page.waitForFunction(() => window.__joinlab.app.step === null || /Play/.test(document.querySelector('#playback button[aria-pressed]').textContent), null, { timeout: 30000 });
  assert.deepEqual(problems, []);
  await context.close();
});

test('hovering a row in an editor lights its mark and its outputs, and hovering a mark lights its line', async () => {
  const { page, problems, context } = await openPage(env);
  // Line 1 of the left editor (clicks:1 joins orders:1 in the default scenario).
  const line = page.locator('[data-stream="0"] .cm-line').first();
  await line.hover();
  const id = await page.evaluate(() => window.__joinlab.app.hoverRow);
  assert.equal(typeof id, 'number');
  assert.equal(await page.$$eval('#timeline .jl-ring-hover', (r) => r.length), 1);
  const related = await page.evaluate((rid) => window.__joinlab.result.outputs.filter((o) => (o.left && o.left.id === rid) || (o.right && o.right.id === rid)).length, id);
  assert.ok(related > 0);
  assert.equal(await page.$$eval('#outputs tbody tr.related', (t) => t.length), related);
  // The reverse: hover the mark of a right-stream row; its line in the right editor lights up.
  await page.mouse.move(0, 0);
  const target = await page.evaluate(() => window.__joinlab.result.rows.findIndex((r) => r.side === 'right'));
  const pt = await page.evaluate((rid) => {
    const tl = document.getElementById('timeline').__jlTimeline;
    const p = tl.markPosition(rid);
    const box = tl.svg.getBoundingClientRect();
    const k = box.width / Number(tl.svg.getAttribute('width'));
    return { x: box.left + p.x * k, y: box.top + p.y * k };
  }, target);
  await page.mouse.move(pt.x, pt.y);
  assert.equal(await page.evaluate(() => window.__joinlab.app.hoverRow), target);
  assert.equal(await page.$$eval('[data-stream="1"] .cm-hover-line', (l) => l.length), 1);
  assert.deepEqual(problems, []);
  await context.close();
});

/**
 * The state panel's table after `step` as the CLI's trace has it: for each operator subtask its
 * latest snapshot at or before the step (the CLI's `--trace` snapshots every subtask whose state
 * a step changes), its entries then its timers, as the panel writes them.
 */
function cliStateCells(cli, step, { named = true } = {}) {
  const po = Math.max(1, cli.operator_parallelism || cli.parallelism || 1);
  const value = (v) => (v === null || v === undefined ? 'null' : String(v));
  // An untraced result in the page has no names for its rows and keys: the engine's ids.
  const key = (k) => (named ? value(cli.keys[k].value) : `#${k}`);
  const row = (id) => {
    if (!named) return `row ${id}`;
    const r = cli.rows[id];
    return `${cli.streams[r.side === 'right' ? 1 : 0].name}:${r.line}`;
  };
  const cells = [];
  for (let j = 0; j < po; j++) {
    let snap = null;
    for (let i = step; i >= 0 && !snap; i--) snap = (cli.trace[i].state || []).find((s) => s.subtask === j) || null;
    if (!snap) continue;
    for (const e of snap.entries) cells.push([String(j), key(e.key), e.side || '', e.scope, e.rows.map(row).join(', ')]);
    for (const t of snap.timers) cells.push([String(j), key(t.key), '', `${t.processing ? 'processing-time' : 'event-time'} timer at ${t.timestamp}`, t.what]);
  }
  return cells;
}

/** The state panel once it shows `step` (null: the end): its heading and its table's cells. */
async function statePanel(page, step) {
  await page.waitForFunction(
    (s) => {
      const b = document.getElementById('state');
      return (s === null ? !b.dataset.step : b.dataset.step === String(s)) && !b.dataset.pending;
    },
    step,
    { timeout: 30000 },
  );
  return {
    heading: (await page.textContent('[data-panel="state"] h2')).trim(),
    hidden: await page.evaluate(() => document.querySelector('[data-panel="state"]').hidden),
    cells: await tableCells(page, '#state'),
  };
}

test('the state panel follows the step: at every step it shows the state the CLI traces for it', async () => {
  for (const name of ['interval-emp-dept-p2', 'agg-tumbling-lateness']) {
    const cli = cliJson(path.join(ROOT, 'scenarios', `${name}.json`), ['--trace']);
    assert.ok(!(cli.warnings || []).some((w) => /state snapshots up to step/.test(w)), `${name}: the CLI's trace has every snapshot`);
    const { page, problems, context } = await openPage(env, `?scenario=${name}`);
    const total = await page.evaluate(() => window.__joinlab.result.trace.length);
    assert.equal(total, cli.trace.length, name);
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Home');
    const seen = new Set();
    for (let s = 0; s < total; s++) {
      if (s) await page.keyboard.press('ArrowRight');
      assert.equal(await step(page), s);
      const got = await statePanel(page, s);
      assert.equal(got.hidden, false, `${name} step ${s + 1}: the panel shows`);
      assert.match(got.heading, new RegExp(`^State after step ${s + 1}\\b`));
      assert.deepEqual(got.cells, cliStateCells(cli, s), `${name}: the state after step ${s + 1}`);
      seen.add(JSON.stringify(got.cells));
    }
    // The state changes along the way (a panel stuck on one state would not pass).
    assert.ok(seen.size >= 3, `${name}: ${seen.size} different states over ${total} steps`);
    // A click on an output row jumps to its step, and the state panel goes with it.
    const outs = await page.evaluate(() => window.__joinlab.result.outputs.map((o) => o.step));
    if (outs.length) {
      await page.click('#outputs tbody tr:nth-child(1)');
      assert.equal(await step(page), outs[0]);
      assert.deepEqual((await statePanel(page, outs[0])).cells, cliStateCells(cli, outs[0]), `${name}: after the jump`);
    }
    // After the last step: the state left at the end.
    await page.keyboard.press('End');
    const end = await statePanel(page, null);
    assert.equal(end.hidden, cli.state_empty, `${name}: the panel is hidden when nothing is left`);
    if (!end.hidden) assert.match(end.heading, /^State left at the end/);
    assert.deepEqual(problems, []);
    await context.close();
  }
});

test('above the snapshot limit the state panel asks the engine for the state at the step', async () => {
  // 2,200 rows: the first run goes to the worker (its state at a step comes from the worker's
  // `state_at`), the trace that follows has no per-step snapshots (`state_at` on this thread).
  const sc = bigScenario(1100, 40);
  sc.job.interval = { lower: -40, upper: 40 };
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'jl-state-')), 'big.json');
  fs.writeFileSync(file, JSON.stringify(sc));
  const cli = cliJson(file, ['--trace']);
  assert.ok(!(cli.warnings || []).some((w) => /state snapshots up to step/.test(w)));
  const { page, problems, context } = await openPage(env);
  await page.evaluate((text) => window.__joinlab.loadScenarioText(text), JSON.stringify(sc));
  await page.waitForFunction((n) => window.__joinlab.result && window.__joinlab.result.steps === n, cli.trace.length, { timeout: 60000 });
  const checks = [7, 1234, cli.trace.length - 2];
  const seen = new Set();
  for (const s of checks) {
    await page.evaluate((i) => window.__joinlab.setStep(i), s);
    const got = await statePanel(page, s);
    const want = cliStateCells(cli, s);
    assert.ok(want.length > 0, `step ${s + 1} has state`);
    // Until the traced result arrives (asked for by the step), rows and keys show as ids.
    const ids = cliStateCells(cli, s, { named: false });
    assert.ok(JSON.stringify(got.cells) === JSON.stringify(want) || JSON.stringify(got.cells) === JSON.stringify(ids), `the state after step ${s + 1}: ${JSON.stringify(got.cells.slice(0, 3))} … is neither ${JSON.stringify(want.slice(0, 3))} … nor the same by ids`);
    seen.add(JSON.stringify(got.cells));
  }
  assert.equal(seen.size, checks.length);
  // Once the trace (without snapshots) has arrived, a step is still answered by the engine.
  await page.locator('[data-panel="timeline"]').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => window.__joinlab.result.trace && !document.body.classList.contains('detail-pending'), null, { timeout: 60000 });
  assert.ok(await page.evaluate(() => !window.__joinlab.result.trace.some((s) => s.state && s.state.length)), 'a trace without snapshots');
  await page.evaluate(() => window.__joinlab.setStep(99));
  assert.deepEqual((await statePanel(page, 99)).cells, cliStateCells(cli, 99));
  // And the steps above, now with the rows' and keys' names.
  for (const s of checks) {
    await page.evaluate((i) => window.__joinlab.setStep(i), s);
    assert.deepEqual((await statePanel(page, s)).cells, cliStateCells(cli, s), `the state after step ${s + 1}, named`);
  }
  assert.deepEqual(problems, []);
  await context.close();
});
