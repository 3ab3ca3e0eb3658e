// Playback (issue 11): play / pause / speed / loop from the bar and the keyboard, the result
// tables following the current step (later rows greyed or hidden, this step's rows marked,
// counts "so far"), a click on a row jumping to its step, and a click on a timeline mark
// selecting its row's verdict and arrival step.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openPage } from './helpers.mjs';

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
