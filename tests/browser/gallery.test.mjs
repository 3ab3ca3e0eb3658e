// Every gallery scenario: the page's tables equal the native CLI's `joinlab run FILE --json`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { setup, openPage, tableCells, cliJson, galleryFiles } from './helpers.mjs';
import { outputCells, lateCells, sideCells, windowCells, fmtWatermark } from '../../web/src/format.js';

let env;
before(async () => {
  env = await setup();
});
after(async () => {
  await env.close();
});

const files = galleryFiles();

test('the gallery lists every scenario with its title, and choosing one loads it', async () => {
  const { page, problems } = await openPage(env);
  await page.click('#btn-gallery');
  const names = await page.$$eval('[data-gallery]', (bs) => bs.map((b) => b.dataset.gallery));
  // The SQL scripts (scenarios/*.sql) are listed as NAME.sql (tests/browser/sql-tab.test.mjs opens them).
  const scripts = fs.readdirSync(path.dirname(files[0])).filter((f) => f.endsWith('.sql'));
  assert.deepEqual([...names].sort(), files.map((f) => path.basename(f, '.json')).concat(scripts).sort());
  const last = files[files.length - 1];
  const doc = JSON.parse(fs.readFileSync(last, 'utf8'));
  const item = page.locator(`[data-gallery="${path.basename(last, '.json')}"]`);
  assert.equal(await item.locator('.g-title').textContent(), doc.title);
  await item.click();
  assert.equal(await page.inputValue('#title'), doc.title);
  assert.equal(await page.textContent('#description-view'), doc.description || '');
  assert.deepEqual(problems, []);
  await page.context().close();
});

for (const file of files) {
  const name = path.basename(file, '.json');
  test(`gallery scenario ${name}: the page shows what the CLI computes`, async () => {
    const cli = cliJson(file);
    const { page, problems } = await openPage(env, `?scenario=${encodeURIComponent(name)}`);
    assert.match(await page.textContent('#status'), /^✓/, `the scenario runs: ${await page.textContent('#status')}`);
    // Show every row of long tables.
    for (const b of await page.locator('.more button:text("show all")').all()) await b.click();
    assert.deepEqual(await tableCells(page, '#outputs'), cli.outputs.map((o, i) => outputCells(o, i, cli)), 'outputs');
    assert.deepEqual(await tableCells(page, '#late'), cli.late.map((l, i) => lateCells(l, i, cli)), 'late rows');
    const tags = Object.keys(cli.side_outputs);
    const pageTags = await page.$$eval('#side h3.tag', (hs) => hs.map((x) => x.dataset.tag));
    assert.deepEqual(pageTags, tags, 'side-output tags');
    for (const [i, tag] of tags.entries()) {
      const cells = await page.$$eval(`#side .side-table:nth-of-type(${i + 1}) table tbody tr`, (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
      assert.deepEqual(cells, cli.side_outputs[tag].map((s, j) => sideCells(s, j, cli)), `side output ${tag}`);
    }
    if (cli.windows && cli.windows.length) {
      assert.deepEqual(await tableCells(page, '#windows'), cli.windows.map((w, i) => windowCells(w, i, cli)), 'window results');
    }
    const finals = await page.$$eval('.wm-operator tbody tr', (trs) => trs.map((tr) => tr.children[2].textContent));
    assert.deepEqual(finals, cli.watermarks.map((w) => fmtWatermark(w.watermark)), 'final watermarks');
    const warnings = await page.$$eval('#warnings li', (ls) => ls.map((l) => l.textContent));
    assert.deepEqual(warnings, cli.warnings || [], 'warnings');
    assert.deepEqual(problems, []);
    await page.context().close();
  });
}
