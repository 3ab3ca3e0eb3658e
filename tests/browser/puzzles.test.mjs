// Puzzles (issue 11): every built-in puzzle opens with its question, is not solved as it
// opens, and is solved by its solution (Reveal); solving one through the controls counts in
// this browser's progress (localStorage); any scenario can be shared as a puzzle.
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

const checkOk = async (page) => {
  await page.click('#puzzle button.check');
  return page.getAttribute('#puzzle .puzzle-status', 'data-ok');
};

test('every puzzle opens unsolved, and its solution solves it', async () => {
  const { page, context, problems } = await openPage(env);
  const ids = await page.evaluate(() => window.__joinlab.puzzles());
  assert.ok(ids.length >= 8, `${ids.length} puzzles`);
  for (const id of ids) {
    await page.goto('about:blank');
    await page.goto(`${env.base}#puzzle=${id}`);
    await page.waitForFunction(() => document.body.classList.contains('ready'));
    assert.equal(await page.isVisible('[data-panel="puzzle"]'), true, id);
    assert.equal(await page.isVisible('#expected-panel'), false, `${id}: the expected result stays hidden`);
    assert.equal(await checkOk(page), 'false', `${id}: not solved as it opens`);
    await page.click('#puzzle button.reveal');
    await page.waitForFunction(() => /solution/.test(document.querySelector('#puzzle .puzzle-status').textContent));
    assert.equal(await checkOk(page), 'true', `${id}: its solution meets its expected result`);
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('a puzzle solved through the controls counts in the progress, kept in localStorage', async () => {
  const { page, context, problems } = await openPage(env, '#puzzle=exclusive-bound');
  assert.equal(await checkOk(page), 'false');
  await page.click('[data-path="job.interval.lower_exclusive"] input');
  assert.equal(await checkOk(page), 'true');
  assert.match(await page.textContent('#puzzle .puzzle-status'), /Solved/);
  const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('joinlab.puzzles')));
  assert.equal(stored['exclusive-bound'], 'solved');
  // The gallery shows it solved.
  await page.click('#btn-gallery');
  assert.equal(await page.getAttribute('[data-puzzle="exclusive-bound"]', 'data-progress'), 'solved');
  assert.match(await page.textContent('#puzzle-progress'), /^1 of \d+ solved/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('any scenario shared as a puzzle opens as one', async () => {
  const { page, context, problems } = await openPage(env);
  // The writer keeps the result as expected, then changes the scenario to where the reader starts.
  await page.click('#btn-set-expected');
  await page.fill('[data-path="job.window.size"] input', '2s');
  await page.click('#btn-share');
  await page.check('#share-puzzle');
  await page.waitForFunction(() => /&puzzle$/.test(document.getElementById('share-url').value));
  const url = await page.inputValue('#share-url');
  await page.goto('about:blank');
  await page.goto(url);
  await page.waitForFunction(() => document.body.classList.contains('ready'));
  assert.equal(await page.isVisible('[data-panel="puzzle"]'), true);
  assert.equal(await checkOk(page), 'false');
  await page.fill('[data-path="job.window.size"] input', '10s');
  assert.equal(await checkOk(page), 'true');
  assert.deepEqual(problems, []);
  await context.close();
});
