// Accessibility (issue 11): axe-core finds no serious or critical violation on the page (and on
// an embed), and the timeline's marks are reachable and labelled from the keyboard.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { setup, openPage } from './helpers.mjs';

const require = createRequire(import.meta.url);
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let env;
before(async () => {
  env = await setup();
});
after(async () => {
  await env?.close();
});

/** axe-core's serious and critical violations (page.evaluate is not subject to the page's CSP). */
async function violations(page) {
  await page.evaluate(AXE);
  const v = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations);
  return v.filter((x) => x.impact === 'serious' || x.impact === 'critical').map((x) => `${x.id} (${x.impact}): ${x.help} — ${x.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
}

for (const [name, url] of [
  ['the page', ''],
  ['an interval join at parallelism 2', '#scenario=interval-emp-dept-p2'],
  ['an embed', '?embed&panels=playback,streams,outputs,late,timeline'],
  // With its diagnosis panel open (once the engine diagnoses and the gallery has the pitfall).
  ['a pitfall with a diagnosis', '#scenario=pitfall-no-final-watermark'],
  ['a puzzle', '#puzzle=exclusive-bound'],
]) {
  test(`axe-core: no serious or critical violation on ${name}`, async () => {
    const { page, context } = await openPage(env, url);
    await page.locator('[data-panel="timeline"]').scrollIntoViewIfNeeded();
    const v = await violations(page);
    assert.deepEqual(v, []);
    await context.close();
  });
}

test('the timeline is reachable by keyboard: arrow keys move from mark to mark, Enter selects', async () => {
  const { page, context, problems } = await openPage(env);
  await page.focus('#timeline svg');
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  const said = await page.textContent('#timeline [aria-live]');
  assert.match(said, /\S/, 'the focused row is described');
  assert.equal(await page.$$eval('#timeline .jl-ring-focus', (r) => r.length), 1);
  await page.keyboard.press('Enter');
  const sel = await page.evaluate(() => window.__joinlab.app.selectedRow);
  assert.equal(typeof sel, 'number');
  assert.equal(await page.$$eval('#verdicts tbody tr.selected', (t) => t.length), 1);
  assert.deepEqual(problems, []);
  await context.close();
});
