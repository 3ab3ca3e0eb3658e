// The "Export to Flink" panel: the engine's exporter, in the page, with a copy button. The
// exporter is its own wasm module, fetched only when the panel is opened.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openPage, cli } from './helpers.mjs';

let env;
before(async () => {
  env = await setup();
});
after(async () => {
  await env.close();
});

test('the export panel shows a runnable DataStream job for the default window join', async () => {
  const { page, problems } = await openPage(env);
  const panel = page.locator('#export-panel');
  assert.equal(await panel.isHidden(), false, 'the panel shows');
  const wasmLoaded = () => page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname.split('/').pop()).filter((n) => n.endsWith('.wasm')));
  const before = await wasmLoaded();
  assert.equal(before.length, 1, `only the engine's module on a first load: ${before}`);
  assert.doesNotMatch(before[0], /export/);
  await page.locator('#export-details > summary').click();
  await page.locator('#export-panel [data-lang="java"]').click();
  // The runtime (class Rt) is a separate asset the page loads and puts in the job.
  await page.waitForFunction(() => document.querySelector('#export-code').textContent.includes('Joinlab runtime: the pacer'));
  const code = await page.textContent('#export-code');
  assert.doesNotMatch(code, /@@JOINLAB_RUNTIME@@/);
  assert.match(code, /static final class Rt\b/);
  assert.match(code, /StreamExecutionEnvironment/);
  assert.match(code, /public static void main/);
  assert.match(code, /TumblingEventTimeWindows/);
  // The rows of the scenario travel with the job.
  assert.match(code, /Alice/);
  const after = await wasmLoaded();
  assert.equal(after.length, 2, `the exporter's module is fetched on opening the panel: ${after}`);
  assert.ok(after.some((n) => /^joinlab_export_bg\b/.test(n)), String(after));
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a SQL scenario exports Flink SQL', async () => {
  const { page, problems } = await openPage(env, '?scenario=sql-interval-left-join');
  await page.locator('#export-details > summary').click();
  await page.locator('#export-panel [data-lang="sql"]').click();
  await page.waitForFunction(() => document.querySelector('#export-code').textContent.includes('StreamTableEnvironment'));
  const code = await page.textContent('#export-code');
  assert.match(code, /LEFT JOIN/);
  assert.match(code, /INTERVAL/);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a scenario with a SQL query but no script of its own exports its projection and WHERE', async () => {
  // The gallery script as a scenario document, without its script text.
  const sc = JSON.parse(cli(['json', 'scenarios/sql-where-pushdown.sql']));
  sc.sql = '';
  assert.ok(sc.job.query, 'the document holds the query');
  const { page, problems } = await openPage(env);
  await page.evaluate((t) => window.__joinlab.loadScenarioText(t, 'test'), JSON.stringify(sc));
  await page.locator('#export-details > summary').click();
  await page.locator('#export-panel [data-lang="sql"]').click();
  await page.waitForFunction(() => document.querySelector('#export-code').textContent.includes('StreamTableEnvironment'));
  const code = await page.textContent('#export-code');
  // The query's own projection and WHERE (the printed script's), not a SELECT of every column.
  assert.match(code, /SELECT L\.k, L\.v, R\.w/);
  assert.match(code, /WHERE \(\(\(L\.v > 15\)/);
  assert.deepEqual(problems, []);
  await page.context().close();
});
