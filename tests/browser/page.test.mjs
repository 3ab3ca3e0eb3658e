// The playground page: default scenario, typing rows, errors on their line, parallelism and
// per-subtask watermarks, markup injection, no external requests, and the README screenshot.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setup, openPage, tableCells, cliJson, ROOT } from './helpers.mjs';
import { outputCells, fmtWatermark } from '../../web/src/format.js';

let env;
before(async () => {
  env = await setup();
});
after(async () => {
  await env.close();
});

const outputRows = (page) => page.$$eval('#outputs table tbody tr', (trs) => trs.length);

test('the default scenario shows the seed 000 window join: 8 pairs', async () => {
  const { page, problems, external } = await openPage(env);
  assert.equal(await page.inputValue('#title'), JSON.parse(fs.readFileSync(path.join(ROOT, 'scenarios/window-join-tumbling.json'), 'utf8')).title);
  const cells = await tableCells(page, '#outputs');
  assert.equal(cells.length, 8);
  const cli = cliJson(path.join(ROOT, 'scenarios/window-join-tumbling.json'));
  assert.deepEqual(cells, cli.outputs.map((o, i) => outputCells(o, i, cli)));
  assert.match(await page.textContent('#status'), /8 outputs, 0 late/);
  // Two editors with line numbers.
  assert.equal(await page.locator('.cm-editor').count(), 2);
  assert.ok((await page.locator('.cm-lineNumbers .cm-gutterElement').count()) >= 11);
  assert.deepEqual(problems, []);
  assert.deepEqual(external, []);
  await page.context().close();
});

test('typing a row recomputes the output on the same keystroke', async () => {
  const { page, problems } = await openPage(env);
  const editor = page.locator('.stream[data-stream="0"] .cm-content');
  await editor.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('\nBob, ./new, 19000');
  // Bob's new click at 19000 joins his order at 12000 in [10000, 20000).
  assert.equal(await outputRows(page), 9);
  assert.match(await page.textContent('#status'), /9 outputs/);
  // Synchronous: one edit dispatched through the editor, the table read in the same task.
  const n = await page.evaluate(() => {
    const view = window.__joinlab.editors[1].view;
    view.dispatch({ changes: { from: view.state.doc.length, insert: '\nCary, 1, 16500' } });
    return document.querySelectorAll('#outputs table tbody tr').length;
  });
  assert.equal(n, 10, 'Cary now has a partner in [10000, 20000), and the table shows it without waiting');
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a bad row is marked on its line and the last good result stays, greyed', async () => {
  const { page, problems } = await openPage(env);
  await page.locator('.stream[data-stream="1"] .cm-content').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('\nBob, x1, 3000');
  // The column is declared n:int.
  const errLine = await page.$$eval('.stream[data-stream="1"] .cm-content > .cm-line', (ls) => ls.findIndex((l) => l.classList.contains('cm-error-line')));
  assert.equal(errLine, 5, 'the 6th line is marked');
  const msg = await page.textContent('.stream[data-stream="1"] .editor-error');
  assert.equal(msg, 'line 6, column 6: column "n": "x1" is not an INT (32-bit integer)');
  assert.equal(await page.locator('.stream[data-stream="1"] .cm-lintRange-error').count(), 1);
  assert.equal(await page.locator('.stream[data-stream="1"] .cm-lint-marker-error').count(), 1);
  assert.ok(await page.$eval('#results', (e) => e.classList.contains('stale')));
  assert.match(await page.textContent('#status'), /Not run: stream "orders", line 6, column 6/);
  // The last good result (the default's 8 pairs) is still on the page.
  assert.equal(await outputRows(page), 8);
  // Fixing the row clears the mark.
  for (let i = 0; i < 8; i++) await page.keyboard.press('Backspace');
  await page.keyboard.type('20, 3000');
  assert.equal(await page.locator('.cm-error-line').count(), 0);
  assert.ok(!(await page.$eval('#results', (e) => e.classList.contains('stale'))));
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a bad setting is marked on its control', async () => {
  const { page } = await openPage(env);
  await page.fill('[data-path="job.window.size"] input', '5 parsecs');
  assert.match(await page.textContent('[data-path="job.window.size"] .control-error'), /unknown time unit "parsecs"/);
  assert.match(await page.textContent('#status'), /Not run: Size: unknown time unit/);
  await page.fill('[data-path="job.window.size"] input', '-5s');
  assert.match(await page.textContent('[data-path="job.window.size"] .control-error'), /size must be positive/);
  await page.fill('[data-path="job.window.size"] input', '20s');
  assert.equal(await page.textContent('[data-path="job.window.size"] .control-error'), '');
  // One 20 s window: Bob's click at 2000 and order at 12000 now meet too.
  assert.equal(await outputRows(page), 10);
  await page.context().close();
});

test('parallelism 2 shows a watermark per operator subtask and per assigner subtask, as the CLI computes', async () => {
  const { page, problems } = await openPage(env);
  await page.selectOption('[data-path="job.parallelism"] select', '2');
  assert.equal(await page.locator('.wm-operator tbody tr').count(), 2);
  assert.equal(await page.locator('.wm-assigner tbody tr').count(), 4);
  const json = await page.evaluate(() => window.__joinlab.compactJson());
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'joinlab-')), 'p2.json');
  fs.writeFileSync(file, json);
  const cli = cliJson(file);
  assert.equal(cli.parallelism, 2);
  const op = await page.$$eval('.wm-operator tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  // columns: subtask, before end of input, final, channels
  assert.deepEqual(
    op.map((r) => [r[0], r[2]]),
    cli.watermarks.map((w) => [String(w.subtask), fmtWatermark(w.watermark)]),
  );
  assert.match(op[0][3], /clicks#0: .*clicks#1: .*orders#0: .*orders#1: /);
  const as = await page.$$eval('.wm-assigner tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  assert.deepEqual(
    as.map((r) => r[r.length - 1]),
    cli.assigner_watermarks.flat().map(fmtWatermark),
  );
  assert.deepEqual(await tableCells(page, '#outputs'), cli.outputs.map((o, i) => outputCells(o, i, cli)));
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('every control writes a field the engine knows, and every operator runs', async () => {
  const { page, problems } = await openPage(env);
  const bad = await page.evaluate(() => {
    const set = (o, path, v) => {
      const ks = path.split('.');
      let x = o;
      for (const k of ks.slice(0, -1)) x = x[k] = x[k] || (/^\d+$/.test(k) ? [] : {});
      x[ks[ks.length - 1]] = v;
    };
    const get = (o, path) => path.split('.').reduce((x, k) => (x === undefined || x === null ? undefined : x[k]), o);
    const out = [];
    for (const c of window.__joinlab.controlPaths()) {
      const sc = { streams: [{ name: 'a', columns: ['k', 'ts'], rows: '' }, { name: 'b', columns: ['k', 'ts'], rows: '' }] };
      const sample = { select: c.options && c.options.find((o) => o !== c.def), bool: !c.def, duration: '7s', int: 200, text: 'tag1', column: 'k', routes: [{ value: 'x', to: 'main' }], list: ['k'], aggregates: [{ func: 'count' }] }[c.type];
      set(sc, c.path, sample);
      const r = window.__joinlab.normalize(JSON.stringify(sc));
      if (typeof r !== 'string') out.push(`${c.path}: ${r.message}`);
      else if (get(JSON.parse(r), c.path) === undefined) out.push(`${c.path}: dropped by normalize`);
    }
    return out;
  });
  assert.deepEqual(bad, []);
  // Every operator from the default scenario: it runs, or says what it needs on a control.
  for (const [op, expectStatus] of [
    ['interval_join', /^✓/],
    ['sql_interval_join', /^✓/],
    ['regular_join', /^✓/],
    ['window_aggregate', /^✓/],
    ['split', /Not run: Column: choose the column/],
    ['window_join', /^✓ 8 outputs/],
  ]) {
    await page.selectOption('[data-path="job.operator"] select', op);
    assert.match(await page.textContent('#status'), expectStatus, op);
  }
  await page.selectOption('[data-path="job.operator"] select', 'split');
  assert.match(await page.textContent('[data-path="job.split.column"] .control-error'), /choose the column/);
  assert.ok(await page.$eval('.stream[data-stream="1"]', (e) => e.classList.contains('ignored')));
  await page.selectOption('[data-path="job.split.column"] select', 'user');
  await page.click('[data-path="job.split.routes"] button:text("+ route")');
  await page.fill('[aria-label="route 1 value"]', 'Alice');
  await page.fill('[aria-label="route 1 target"]', 'alices');
  assert.match(await page.textContent('#status'), /^✓ 0 outputs, 0 late, 3 to side outputs/);
  assert.equal(await page.locator('#side h3.tag[data-tag="alices"]').count(), 1);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('user text is rendered as text, never as markup', async () => {
  const { page, problems } = await openPage(env);
  const evil = '<img src=x onerror="window.__pwned=1">';
  await page.evaluate((evil) => {
    window.__joinlab.loadScenarioText(
      JSON.stringify({
        title: evil,
        description: evil,
        streams: [
          { name: '<b>l</b>', columns: ['k', 'v', 'ts'], key: 'k', time: 'ts', rows: `"${evil.replace(/"/g, '""')}", "<script>x</script>", 1` },
          { name: 'r<i>', columns: ['k', 'ts'], key: 'k', time: 'ts', rows: `"${evil.replace(/"/g, '""')}", 2` },
        ],
      }),
      'test',
    );
  }, evil);
  assert.equal(await outputRows(page), 1);
  assert.equal(await page.locator('img[src="x"], #outputs b, #outputs script').count(), 0);
  assert.ok((await page.textContent('#outputs')).includes('<script>x</script>'));
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('screenshot of the page for the README', async () => {
  const { page, problems } = await openPage(env, '', { width: 1440, height: 1150 });
  await page.waitForTimeout(200);
  // The README's picture is refreshed only when asked (JOINLAB_SCREENSHOT=docs/screenshot.png),
  // so that a test run leaves the working tree as it was.
  const out = process.env.JOINLAB_SCREENSHOT
    ? path.resolve(ROOT, process.env.JOINLAB_SCREENSHOT)
    : path.join(os.tmpdir(), `joinlab-screenshot-${process.pid}.png`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  await page.screenshot({ path: out });
  assert.ok(fs.statSync(out).size > 20000);
  assert.deepEqual(problems, []);
  await page.context().close();
});
