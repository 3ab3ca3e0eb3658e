// Share URLs (round trip, old and hand-written forms, hostile fragments), expected results,
// embed mode, the embed snippet and the docs example page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { setup, openPage, tableCells } from './helpers.mjs';

let env;
before(async () => {
  env = await setup();
});
after(async () => {
  await env.close();
});

const b64url = (buf) => Buffer.from(buf).toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const outputRows = (page) => page.$$eval('#outputs table tbody tr', (trs) => trs.length);

test('a share URL restores the scenario exactly', async () => {
  const { page, problems } = await openPage(env);
  await page.fill('#title', 'My shared scenario ✓');
  await page.selectOption('[data-path="job.parallelism"] select', '3');
  await page.fill('[data-path="job.watermark.delay"] input', '1500ms');
  await page.locator('.stream[data-stream="1"] .cm-content').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('\nCary, 7, 19000 | s=2');
  const want = await page.evaluate(() => window.__joinlab.compactJson());
  const wantRows = await tableCells(page, '#outputs');
  await page.click('#btn-share');
  await page.waitForFunction(() => document.getElementById('share-url').value.includes('#s=1.'));
  const url = await page.inputValue('#share-url');
  assert.match(url, /^http:\/\/localhost:\d+\/#s=1\.[A-Za-z0-9_-]+$/);
  // Defaults are left out (the engine's normalize), and the document is compact.
  const parsed = JSON.parse(want);
  assert.equal(parsed.job.parallelism, 3);
  assert.equal(parsed.job.watermark.delay, 1500);
  assert.ok(!('final_watermark' in parsed.job));
  // The page also keeps the URL in sync while editing (not in embed mode).
  await page.waitForFunction(() => window.location.hash.startsWith('#s=1.'));

  const other = await openPage(env, url.replace(env.base, ''));
  assert.equal(await other.page.evaluate(() => window.__joinlab.compactJson()), want);
  assert.equal(await other.page.inputValue('#title'), 'My shared scenario ✓');
  assert.equal(await other.page.inputValue('[data-path="job.parallelism"] select'), '3');
  assert.equal(await other.page.inputValue('[data-path="job.watermark.delay"] input'), '1500ms');
  assert.deepEqual(await tableCells(other.page, '#outputs'), wantRows);
  assert.deepEqual(problems, []);
  assert.deepEqual(other.problems, []);
  await page.context().close();
  await other.page.context().close();
});

test('hand-written #j= links, gallery links and older share formats open', async () => {
  const sc = { title: 'hand written', job: { operator: 'interval_join', interval: { lower: -5, upper: 5 } }, streams: [
    { name: 'a', columns: ['k', 'ts'], key: 'k', time: 'ts', rows: 'x, 1\nx, 20' },
    { name: 'b', columns: ['k', 'ts'], key: 'k', time: 'ts', rows: 'x, 3' },
  ] };
  const { page, problems } = await openPage(env, `#j=${encodeURIComponent(JSON.stringify(sc))}`);
  assert.equal(await page.inputValue('#title'), 'hand written');
  assert.equal(await outputRows(page), 1);
  // Format 1 written by another program (node's zlib): deflate-raw + base64url.
  await page.goto(`${env.base}#s=1.${b64url(zlib.deflateRawSync(JSON.stringify({ ...sc, title: 'from zlib' })))}`);
  await page.waitForFunction(() => document.getElementById('title').value === 'from zlib');
  assert.equal(await outputRows(page), 1);
  await page.goto(`${env.base}?scenario=interval-emp-dept-p1`);
  await page.waitForFunction(() => /emp/.test(document.getElementById('title').value));
  assert.equal(await outputRows(page), 2);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('hostile or broken fragments give a clear message, the default scenario, no crash', async () => {
  const bomb = b64url(zlib.deflateRawSync(Buffer.alloc(30 * 1024 * 1024, 32)));
  const cases = [
    ['#s=1.!!!', /damaged: it has characters/],
    ['#s=1.AAAA', /damaged|not valid JSON/],
    ['#s=7.abc', /share format 7, which this version of the page does not know/],
    ['#s=abc', /no format version/],
    [`#s=1.${'A'.repeat(500000)}`, /KB long, more than/],
    [`#s=1.${bomb}`, /expands to more than 8 MB/],
    ['#j=%7B%22streams%22%3A', /not valid JSON/],
    ['#j=%E0%A4%A', /bad %-escapes/],
    ['#scenario=nope', /no gallery scenario named "nope"/],
  ];
  const { page, problems } = await openPage(env);
  for (const [frag, re] of cases) {
    await page.goto('about:blank');
    await page.goto(env.base + frag);
    await page.waitForFunction(() => document.body.classList.contains('ready'));
    await page.waitForFunction(() => /could not be opened/.test(document.getElementById('status').textContent), null, { timeout: 10000 });
    const status = await page.textContent('#status');
    assert.match(status, re, `${frag.slice(0, 40)} → ${status}`);
    assert.equal(await outputRows(page), 8, 'the default scenario is shown');
  }
  // A scenario the engine rejects opens, with the engine's message.
  await page.goto(`${env.base}#j=${encodeURIComponent(JSON.stringify({ version: 99, streams: [] }))}`);
  await page.waitForFunction(() => /format version 99/.test(document.getElementById('status').textContent));
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('expected results: the page says whether the result meets them', async () => {
  const base = { title: 'quiz', job: { operator: 'interval_join', interval: { lower: -5, upper: 5 } }, streams: [
    { name: 'a', columns: ['k', 'ts'], key: 'k', time: 'ts', rows: 'x, 1\nx, 20' },
    { name: 'b', columns: ['k', 'ts'], key: 'k', time: 'ts', rows: 'x, 3\nx, 2' },
  ] };
  const open = async (expected) => {
    const { page } = await openPage(env, `#j=${encodeURIComponent(JSON.stringify({ ...base, expected }))}`);
    return page;
  };
  let page = await open({ outputs: [[1, 1], [1, 2]], late: [] });
  assert.equal(await page.getAttribute('[data-verdict]', 'data-verdict'), 'pass');
  await page.context().close();
  page = await open({ outputs: 3 });
  assert.equal(await page.getAttribute('[data-verdict]', 'data-verdict'), 'fail');
  assert.match(await page.textContent('#expected'), /expected 3, got 2/);
  // Editing the rows re-checks at once.
  await page.locator('.stream[data-stream="1"] .cm-content').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('\nx, 4');
  assert.equal(await page.getAttribute('[data-verdict]', 'data-verdict'), 'pass');
  // "Use this result as expected" writes the current result.
  await page.click('#expected button:text("Replace with this result")');
  const exp = await page.evaluate(() => JSON.parse(window.__joinlab.app.scenario.expected ? JSON.stringify(window.__joinlab.app.scenario.expected) : 'null'));
  assert.deepEqual(exp, { outputs: [[1, 1], [1, 2], [1, 3]], late: [] });
  await page.context().close();
});

test('embed mode: chosen panels, minimal chrome, read-only, never rewrites the URL', async () => {
  const path = '?embed&panels=streams,outputs,late&readonly&scenario=window-join-tumbling';
  const { page, problems, external } = await openPage(env, path, { width: 900, height: 600 });
  assert.equal(await page.isVisible('header.top'), false);
  assert.equal(await page.isVisible('.embed-bar'), true);
  assert.equal(await page.isVisible('[data-panel="outputs"]'), true);
  assert.equal(await page.isVisible('[data-panel="late"]'), true);
  assert.equal(await page.isVisible('[data-panel="streams"]'), true);
  for (const p of ['job', 'watermarks', 'timeline', 'stepper'])
    assert.equal(await page.isVisible(`[data-panel="${p}"]`), false, p);
  assert.equal(await outputRows(page), 8);
  assert.equal(await page.getAttribute('.stream[data-stream="0"] .cm-content', 'contenteditable'), 'false');
  assert.ok(await page.isDisabled('.stream[data-stream="0"] .stream-name'));
  const before = page.url();
  const historyLength = await page.evaluate(() => history.length);
  await page.waitForTimeout(600);
  assert.equal(page.url(), before);
  assert.equal(await page.evaluate(() => history.length), historyLength);
  // The "open" link carries the scenario to the full page.
  assert.match(await page.getAttribute('#embed-open', 'href'), /#s=1\./);
  assert.deepEqual(problems, []);
  assert.deepEqual(external, []);
  await page.context().close();

  // Editable embed: typing changes the result, still without touching the URL.
  const e2 = await openPage(env, '?embed&panels=streams,outputs&scenario=window-join-tumbling', { width: 900, height: 600 });
  const url2 = e2.page.url();
  await e2.page.locator('.stream[data-stream="1"] .cm-content').click();
  await e2.page.keyboard.press('Control+End');
  await e2.page.keyboard.type('\nCary, 1, 16500');
  assert.equal(await outputRows(e2.page), 9);
  await e2.page.waitForTimeout(600);
  assert.equal(e2.page.url(), url2);
  await e2.page.context().close();
});

test('the embed snippet is an iframe of this scenario that opens in embed mode', async () => {
  const { page } = await openPage(env);
  await page.click('#btn-embed');
  await page.waitForFunction(() => document.getElementById('embed-snippet').value.startsWith('<iframe'));
  const snippet = await page.inputValue('#embed-snippet');
  assert.match(snippet, /^<iframe src="http:\/\/localhost:\d+\/\?embed&amp;panels=streams,outputs,late,timeline&amp;readonly#s=1\.[A-Za-z0-9_-]+" title="Joinlab: Window join, tumbling 10 s/);
  // Host it in a page of our own and look inside the frame.
  const src = /src="([^"]+)"/.exec(snippet)[1].replace(/&amp;/g, '&');
  const host = await env.browser.newPage();
  await host.goto(`${env.base}docs-example.html`);
  await host.evaluate((src) => {
    const f = document.createElement('iframe');
    f.id = 'mine';
    f.src = src;
    f.width = '900';
    f.height = '600';
    document.body.prepend(f);
  }, src);
  const frame = host.frameLocator('#mine');
  await frame.locator('#outputs table tbody tr').first().waitFor();
  assert.equal(await frame.locator('#outputs table tbody tr').count(), 8);
  await host.close();
  await page.context().close();
});

test('the docs example page embeds two scenarios', async () => {
  const page = await env.browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${env.base}docs-example.html`);
  const frames = page.locator('iframe');
  assert.equal(await frames.count(), 2);
  for (let i = 0; i < 2; i++) await frames.nth(i).scrollIntoViewIfNeeded();
  const f1 = page.frameLocator('iframe >> nth=0');
  const f2 = page.frameLocator('iframe >> nth=1');
  await f1.locator('#outputs table tbody tr').first().waitFor({ timeout: 15000 });
  await f2.locator('#late table tbody tr').first().waitFor({ timeout: 15000 });
  assert.equal(await f1.locator('#outputs table tbody tr').count(), 8);
  assert.equal(await f2.locator('#outputs table tbody tr').count(), 2);
  assert.equal(await f2.locator('#late table tbody tr').count(), 1);
  assert.deepEqual(problems, []);
  await page.close();
});
