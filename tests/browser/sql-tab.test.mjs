// The SQL tab (web/src/sql/): a scenario written as a Flink SQL script is edited in a
// CodeMirror editor; typing changes the result (compared with `joinlab run FILE.sql --json`),
// reader errors are marked on their line, share links keep the text exactly, the gallery's
// scripts open, controls and rows follow the script, and typing costs about what typing in a
// row editor does (reported, not asserted: a timing, not a test of speed).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { setup, openPage, tableCells, ROOT } from './helpers.mjs';

let env;
before(async () => {
  env = await setup();
});
after(async () => {
  await env.close();
});

const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'joinlab-sql-tab-'));
let built = false;
/** The CLI (a debug build: the SQL reader is the same code as the page's module). */
function cli(args) {
  if (!built) {
    execFileSync('cargo', ['build', '-q', '--bin', 'joinlab'], { cwd: ROOT, stdio: 'inherit' });
    built = true;
  }
  const bin = path.join(process.env.CARGO_TARGET_DIR || path.join(ROOT, 'target'), 'debug', 'joinlab');
  return spawnSync(bin, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}
/** `joinlab run FILE.sql --json` on a script text. */
function runScript(text, name = 'script') {
  const f = path.join(TMP, `${name}.sql`);
  fs.writeFileSync(f, text);
  const r = cli(['run', f, '--json']);
  return { status: r.status, stderr: r.stderr, result: r.status === 0 ? JSON.parse(r.stdout) : null };
}
/** The Output table's rows as the page draws a query's result: #, kind, the columns, subtask. */
function expectedCells(result) {
  // The CLI writes a DECIMAL as a JSON number (1.50) and says its scale in `column_scales`:
  // parsed, the number lost its trailing zeros, which the scale gives back (Flink prints 1.50).
  const scales = result.column_scales || [];
  const cell = (v, j) =>
    v === null || v === undefined
      ? 'NULL'
      : typeof v === 'object'
        ? JSON.stringify(v)
        : typeof v === 'number' && typeof scales[j] === 'number'
          ? v.toFixed(scales[j])
          : String(v);
  return result.outputs.map((o, i) => [String(i + 1), o.kind || '+I', ...o.values.map(cell), String(o.subtask)]);
}
const headers = (page) => page.$$eval('#outputs table thead th', (ths) => ths.map((t) => t.textContent));
const sqlText = (page) => page.evaluate(() => window.__joinlab.app.scenario.sql);
const editorText = (page) => page.$$eval('#sql-editor .cm-line', (ls) => ls.map((l) => l.textContent).join('\n'));
const SEED = fs.readFileSync(path.join(ROOT, 'scenarios/seed-interval-left-join.sql'), 'utf8');

async function openScript(name) {
  const o = await openPage(env, `#scenario=${name}`);
  await o.page.waitForFunction(() => !document.getElementById('sql-tab').hidden && document.querySelector('#sql-editor .cm-line') && window.__joinlab.result);
  return o;
}

/** Puts the cursor at the start of the 1-based `line` of the SQL editor. */
async function gotoLine(page, line) {
  await page.locator('#sql-editor .cm-content').click();
  await page.keyboard.press('Control+Home');
  for (let i = 1; i < line; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Home');
}
/** Replaces a whole line of the SQL editor by typing `text` (key by key). */
async function retypeLine(page, line, text) {
  await gotoLine(page, line);
  await page.keyboard.press('Shift+End');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(text);
  await page.keyboard.press('Escape'); // the completion list, if open
}
const lineOf = (text, needle) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

test('a SQL scenario opens in the SQL tab and its result uses the query columns (as the CLI)', async () => {
  const { page, problems } = await openScript('seed-interval-left-join.sql');
  assert.equal(await page.isVisible('#controls'), false);
  assert.equal(await sqlText(page), SEED);
  assert.equal(await editorText(page), SEED.replace(/\n$/, '') + (SEED.endsWith('\n') ? '\n' : ''));
  const want = runScript(SEED).result;
  assert.deepEqual(await headers(page), ['#', 'kind', ...want.columns, 'subtask']);
  assert.deepEqual(await tableCells(page, '#outputs'), expectedCells(want));
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('typing a query changes the result as joinlab run does; a bound typed in SQL moves its control', async () => {
  const { page, problems } = await openScript('seed-interval-left-join.sql');
  const before = await tableCells(page, '#outputs');
  const upperBefore = await page.inputValue('[data-path="job.sql.upper"] input');
  // LEFT JOIN -> JOIN: the show without a click no longer comes out null-padded.
  const l = lineOf(SEED, 'LEFT JOIN click_log');
  await retypeLine(page, l, 'JOIN click_log ON show_log.log_id = click_log.log_id');
  // The upper bound: + 10 minutes -> + 1 minute.
  const text1 = await sqlText(page);
  const u = lineOf(text1, "click_log.row_time + INTERVAL '10' MINUTE");
  await retypeLine(page, u, "                            AND click_log.row_time + INTERVAL '1' MINUTE;");
  const typed = await sqlText(page);
  assert.notEqual(typed, SEED);
  assert.equal(await editorText(page), typed.replace(/\n$/, '') + (typed.endsWith('\n') ? '\n' : ''));
  const want = runScript(typed, 'typed');
  assert.equal(want.status, 0, want.stderr);
  await page.waitForFunction((n) => document.querySelectorAll('#outputs table tbody tr').length === n, want.result.outputs.length);
  const got = await tableCells(page, '#outputs');
  assert.deepEqual(got, expectedCells(want.result));
  assert.notDeepEqual(got, before);
  // The control follows the script.
  assert.notEqual(await page.inputValue('[data-path="job.sql.upper"] input'), upperBefore);
  assert.equal(await page.inputValue('[data-path="job.sql.upper"] input'), '1m');
  await page.click('#tab-controls');
  assert.equal(await page.isVisible('[data-path="job.sql.upper"] input'), true);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('an error is marked on its line and column, as the CLI reports it', async () => {
  const { page, problems } = await openScript('seed-interval-left-join.sql');
  const before = await tableCells(page, '#outputs');
  const l = lineOf(SEED, 'LEFT JOIN click_log');
  await retypeLine(page, l, 'LEFT JOIN click_log ON show_log.log_id = click_log.nope');
  const typed = await sqlText(page);
  const cliOut = runScript(typed, 'bad');
  assert.notEqual(cliOut.status, 0);
  const m = cliOut.stderr.match(/bad\.sql:(\d+):(\d+): (.*)/);
  assert.ok(m, cliOut.stderr);
  const [line, column] = [Number(m[1]), Number(m[2])];
  await page.waitForSelector('#sql-editor .cm-lintRange-error');
  // The marked range is on the reported line, at the reported column.
  const mark = await page.evaluate(() => {
    const r = document.querySelector('#sql-editor .cm-lintRange-error');
    const lineEl = r.closest('.cm-line');
    const lines = [...document.querySelectorAll('#sql-editor .cm-line')];
    const range = document.createRange();
    range.setStart(lineEl, 0);
    range.setEndBefore(r);
    return { line: lines.indexOf(lineEl) + 1, column: range.toString().length + 1, text: r.textContent };
  });
  assert.equal(mark.line, line);
  assert.equal(mark.column, column);
  assert.match(await page.textContent('#sql-error'), new RegExp(`line ${line}, column ${column}: `));
  assert.match(await page.textContent('#status'), /Not run: SQL line/);
  // The last good result stays.
  assert.deepEqual(await tableCells(page, '#outputs'), before);
  // Fixing it clears the mark.
  await retypeLine(page, l, 'LEFT JOIN click_log ON show_log.log_id = click_log.log_id');
  await page.waitForSelector('#sql-editor .cm-lintRange-error', { state: 'detached' });
  assert.equal(await sqlText(page), SEED);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a share URL carries the SQL text exactly as typed', async () => {
  const { page, problems } = await openScript('seed-interval-left-join.sql');
  const l = lineOf(SEED, 'LEFT JOIN click_log');
  // Odd spacing, case and a comment: kept byte for byte.
  await retypeLine(page, l, 'left   join click_log  on show_log.log_id = click_log.log_id -- ünïcode ✓');
  const typed = await sqlText(page);
  await page.click('#btn-share');
  await page.waitForFunction(() => document.getElementById('share-url').value.includes('#s='));
  const url = await page.inputValue('#share-url');
  const other = await openPage(env, url.replace(env.base, ''));
  await other.page.waitForFunction(() => !document.getElementById('sql-tab').hidden && window.__joinlab.result);
  assert.equal(await sqlText(other.page), typed);
  assert.equal(await editorText(other.page), typed.replace(/\n$/, '') + (typed.endsWith('\n') ? '\n' : ''));
  assert.deepEqual(await tableCells(other.page, '#outputs'), await tableCells(page, '#outputs'));
  // The embed snippet carries it too.
  const snippet = await page.evaluate(() => window.__joinlab.embedSnippet());
  {
    const src = snippet.match(/src="([^"]+)"/)[1].replace(/&amp;/g, '&');
    const emb = await openPage(env, src.replace(env.base, ''));
    await emb.page.waitForFunction(() => window.__joinlab.result);
    assert.equal(await sqlText(emb.page), typed);
    await emb.page.context().close();
  }
  assert.deepEqual(problems, []);
  assert.deepEqual(other.problems, []);
  await page.context().close();
  await other.page.context().close();
});

test('the gallery lists the seed 001 scripts and they open with the CLI result', async () => {
  const files = fs.readdirSync(path.join(ROOT, 'scenarios')).filter((f) => f.endsWith('.sql')).sort();
  assert.ok(files.includes('seed-interval-left-join.sql') && files.includes('seed-regular-left-join.sql'));
  const { page, problems } = await openPage(env);
  for (const f of files) {
    await page.click('#btn-gallery');
    await page.click(`[data-gallery="${f}"]`);
    const text = fs.readFileSync(path.join(ROOT, 'scenarios', f), 'utf8');
    await page.waitForFunction((t) => window.__joinlab.app.scenario.sql === t && window.__joinlab.result && Array.isArray(window.__joinlab.result.columns), text);
    const want = runScript(text, f.replace(/\.sql$/, '')).result;
    await page.waitForFunction((n) => window.__joinlab.result.outputs.length === n, want.outputs.length);
    assert.deepEqual(await tableCells(page, '#outputs'), expectedCells(want), f);
  }
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a SQL-operator scenario switched to SQL shows the equivalent query; a DataStream one says why not', async () => {
  const { page, problems } = await openPage(env, '#scenario=sql-interval-left-join');
  await page.waitForFunction(() => window.__joinlab.result);
  const before = await tableCells(page, '#outputs');
  await page.click('#tab-sql');
  await page.waitForFunction(() => typeof window.__joinlab.app.scenario.sql === 'string' && window.__joinlab.app.scenario.sql.length > 0);
  const printed = cli(['sql', path.join(ROOT, 'scenarios/sql-interval-left-join.json')]);
  assert.equal(printed.status, 0, printed.stderr);
  // The page's script is the printer's for the scenario (title and description aside).
  const text = await sqlText(page);
  assert.match(text, /CREATE TABLE/);
  assert.equal(text, printed.stdout);
  // Same job: the same joined rows, now with the query's columns.
  const want = runScript(text, 'switched').result;
  await page.waitForFunction(() => Array.isArray(window.__joinlab.result.columns));
  assert.deepEqual(await tableCells(page, '#outputs'), expectedCells(want));
  assert.equal(before.length, want.outputs.length);

  await page.click('#btn-gallery');
  await page.click('[data-gallery="window-join-tumbling"]');
  await page.waitForFunction(() => !document.getElementById('controls').hidden);
  await page.click('#tab-sql');
  await page.waitForFunction(() => /no SQL form/.test(document.getElementById('sql-note').textContent));
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('rows typed in a table row editor are written into its INSERT, the rest of the script untouched', async () => {
  const { page, problems } = await openScript('seed-interval-left-join.sql');
  await page.locator('.stream[data-stream="1"] .cm-content').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('\n3, 2021-11-01 00:05:30, click_params3');
  await page.waitForFunction(() => /click_params3/.test(window.__joinlab.app.scenario.sql));
  const text = await sqlText(page);
  // Only the click_log INSERT changed: the query and the comments are the user's own.
  const q = SEED.slice(SEED.indexOf('INSERT INTO sink_table'));
  assert.ok(text.endsWith(q), text);
  assert.ok(text.startsWith(SEED.slice(0, SEED.indexOf('INSERT INTO click_log'))));
  assert.equal(await editorText(page), text.replace(/\n$/, '') + (text.endsWith('\n') ? '\n' : ''));
  const want = runScript(text, 'rows').result;
  await page.waitForFunction((n) => window.__joinlab.result.outputs.length === n, want.outputs.length);
  assert.deepEqual(await tableCells(page, '#outputs'), expectedCells(want));
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('the Export panel builds its Flink SQL job from the script', async () => {
  const { page, problems } = await openScript('seed-interval-left-join.sql');
  await page.locator('#export-details > summary').click();
  await page.locator('#export-panel [data-lang="sql"]').click();
  await page.waitForFunction(() => /show_log/.test(document.getElementById('export-code').textContent));
  const code = await page.textContent('#export-code');
  // The user's query, verbatim.
  assert.ok(code.includes('show_log.row_time BETWEEN click_log.row_time - INTERVAL'), code.slice(0, 2000));
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('typing in the SQL editor costs about what typing in a row editor does (reported)', async () => {
  const { page } = await openScript('seed-interval-left-join.sql');
  const measure = async (locator, keys) => {
    await page.evaluate(() => {
      window.__t = { t0: 0, ms: [] };
      document.addEventListener('keydown', () => (window.__t.t0 = performance.now()), true);
      new MutationObserver(() => {
        if (window.__t.t0) {
          window.__t.ms.push(performance.now() - window.__t.t0);
          window.__t.t0 = 0;
        }
      }).observe(document.getElementById('status'), { childList: true, characterData: true, subtree: true });
    });
    await locator();
    for (const k of keys) {
      await page.keyboard.type(k);
      await page.waitForFunction(() => window.__t.t0 === 0);
    }
    const ms = await page.evaluate(() => window.__t.ms.slice().sort((a, b) => a - b));
    return { n: ms.length, p50: ms[Math.floor(ms.length / 2)], p95: ms[Math.floor(ms.length * 0.95)] };
  };
  const keys = 'abcdefghijklmnopqrst'.split('');
  // Inside a string literal of the script's INSERT: every key keeps the script valid and changes a value.
  const sqlLine = lineOf(SEED, "'show_params3')");
  const sqlT = await measure(async () => {
    await gotoLine(page, sqlLine);
    await page.keyboard.press('End');
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowLeft');
  }, keys);
  const rowT = await measure(async () => {
    await page.locator('.stream[data-stream="0"] .cm-content').click();
    await page.keyboard.press('Control+End');
  }, keys);
  const parse = await page.evaluate(() => window.__joinlab.sql.parseMs);
  console.log(`# keydown -> status updated (ms): SQL editor p50 ${sqlT.p50.toFixed(1)} p95 ${sqlT.p95.toFixed(1)} (n=${sqlT.n}); row editor p50 ${rowT.p50.toFixed(1)} p95 ${rowT.p95.toFixed(1)} (n=${rowT.n}); last parse ${parse.toFixed(2)} ms`);
  assert.equal(sqlT.n, keys.length);
  assert.equal(rowT.n, keys.length);
  await page.context().close();
});

test('a key in a long script re-reads only the row it changed; a space runs nothing; results and errors are the whole script\'s', async () => {
  const rows = (t, base) =>
    Array.from({ length: 150 }, (_, i) => `  ('k${i % 10}', TIMESTAMP '1970-01-01 00:00:${String(Math.floor(i / 10)).padStart(2, '0')}.${String(i % 10).padStart(3, '0')}', ${base + i})`).join(',\n');
  const table = (t, base) => `CREATE TABLE ${t} (\n  k STRING,\n  ts TIMESTAMP(3),\n  v INT,\n  WATERMARK FOR ts AS ts\n);\nINSERT INTO ${t} VALUES\n${rows(t, base)};\n`;
  const script = `${table('l', 0)}${table('r', 1000)}SELECT *\nFROM l JOIN r ON l.k = r.k\n  AND l.ts BETWEEN r.ts - INTERVAL '1' SECOND AND r.ts;\n`;
  const { page, problems } = await openPage(env);
  await page.evaluate((t) => window.__joinlab.loadScenarioText(t, 'test'), JSON.stringify({ title: 'long script', sql: script }));
  await page.waitForFunction(() => !document.getElementById('sql-tab').hidden && document.querySelector('#sql-editor .cm-line') && window.__joinlab.result);
  const status = () => page.textContent('#status');
  // A digit typed after the value of the first row of l (`…, 0)` -> `…, 07)`).
  await gotoLine(page, lineOf(script, "('k0', TIMESTAMP '1970-01-01 00:00:00.000', 0)"));
  await page.keyboard.press('End');
  for (let i = 0; i < 2; i++) await page.keyboard.press('ArrowLeft');
  const runs = await page.evaluate(() => window.__joinlab.app.runs);
  await page.keyboard.type('7');
  await page.waitForFunction((n) => window.__joinlab.app.runs > n, runs);
  const read = await page.evaluate(() => window.__joinlab.sql.read);
  assert.deepEqual([read.rows_read, read.rows_reused, read.full_read], [1, 299, false], JSON.stringify(read));
  const typed = await sqlText(page);
  assert.match(typed, /00:00:00\.000', 07\)/);
  const want = runScript(typed, 'long');
  assert.equal(want.status, 0, want.stderr);
  await page.waitForFunction((n) => window.__joinlab.result.outputs.length === n, want.result.outputs.length);
  assert.deepEqual(await tableCells(page, '#outputs'), expectedCells(want.result));
  // A space at the end of the query's first line: the same scenario, nothing runs.
  const s0 = await page.evaluate(() => ({ runs: window.__joinlab.app.runs, unchanged: window.__joinlab.sql.unchanged }));
  await gotoLine(page, lineOf(script, 'SELECT *'));
  await page.keyboard.press('End');
  await page.keyboard.type(' ');
  await page.waitForFunction((n) => window.__joinlab.sql.unchanged > n, s0.unchanged);
  assert.equal(await page.evaluate(() => window.__joinlab.app.runs), s0.runs);
  assert.match(await status(), /^✓/);
  assert.match(await sqlText(page), /SELECT \* \n/);
  // An error in a row of r, below a line typed at the top: marked where the CLI says.
  await gotoLine(page, 1);
  await page.keyboard.press('Enter');
  const last = await sqlText(page);
  await gotoLine(page, lineOf(last, "('k9', TIMESTAMP '1970-01-01 00:00:14.009', 1149)"));
  await page.keyboard.press('End');
  for (let i = 0; i < 2; i++) await page.keyboard.press('ArrowLeft');
  await page.keyboard.type(" + 'x'");
  await page.waitForFunction(() => /Not run: SQL line/.test(document.getElementById('status').textContent));
  const bad = runScript(await sqlText(page), 'long-bad');
  assert.match(bad.stderr, /must be a literal/);
  const m = bad.stderr.match(/long-bad\.sql:(\d+):(\d+): (.*)/);
  assert.ok(m, bad.stderr);
  assert.match(await page.textContent('#sql-error'), new RegExp(`line ${m[1]}, column ${m[2]}: `));
  assert.equal((await page.evaluate(() => window.__joinlab.sql.read)).full_read, false);
  // Fixed again: it runs, and the result is the script's.
  for (let i = 0; i < 6; i++) await page.keyboard.press('Backspace');
  await page.waitForFunction(() => /^✓/.test(document.getElementById('status').textContent));
  const fixed = runScript(await sqlText(page), 'long-fixed');
  await page.waitForFunction((n) => window.__joinlab.result.outputs.length === n, fixed.result.outputs.length);
  assert.deepEqual(await tableCells(page, '#outputs'), expectedCells(fixed.result));
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a page without a SQL scenario loads neither the SQL module nor the SQL editor', async () => {
  const { page, problems } = await openPage(env);
  await page.waitForFunction(() => window.__joinlab.result);
  const names = () => page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
  assert.ok(!(await names()).some((n) => /joinlab_sql/.test(n)));
  await page.click('#tab-sql');
  await page.waitForFunction(() => /no SQL form/.test(document.getElementById('sql-note').textContent));
  assert.ok((await names()).some((n) => /joinlab_sql_bg/.test(n)));
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a control changed on a SQL scenario rewrites the script, which reads back to the same job', async () => {
  const { page, problems } = await openScript('seed-interval-left-join.sql');
  await page.click('#tab-controls');
  await page.fill('[data-path="job.sql.upper"] input', '1m');
  await page.locator('[data-path="job.sql.upper"] input').press('Tab');
  await page.waitForFunction((seed) => window.__joinlab.app.scenario.sql !== seed, SEED);
  const text = await sqlText(page);
  // The tables and their rows keep the user's text; the query is the printer's, with the new bound.
  assert.ok(text.startsWith(SEED.slice(0, SEED.indexOf('INSERT INTO sink_table'))), text);
  assert.match(text, /INTERVAL '1' MINUTE/);
  fs.writeFileSync(path.join(TMP, 'ctl.sql'), text);
  const back = JSON.parse(cli(['json', path.join(TMP, 'ctl.sql')]).stdout);
  assert.equal(back.job.sql.upper, 60000);
  assert.equal(back.job.sql.lower, -600000);
  const want = runScript(text, 'ctl').result;
  await page.waitForFunction((n) => window.__joinlab.result.outputs.length === n, want.outputs.length);
  assert.deepEqual(await tableCells(page, '#outputs'), expectedCells(want));
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('completion offers the tables and columns of the script DDL, and Flink keywords', async () => {
  const { page, problems } = await openScript('seed-interval-left-join.sql');
  const l = lineOf(SEED, 'LEFT JOIN click_log');
  await gotoLine(page, l);
  await page.keyboard.press('End');
  await page.keyboard.type(' AND click_log.cli');
  await page.waitForSelector('.cm-tooltip-autocomplete');
  const options = await page.$$eval('.cm-tooltip-autocomplete li', (ls) => ls.map((x) => x.textContent));
  assert.ok(options.some((o) => o.includes('click_params')), options.join(', '));
  await page.keyboard.press('Escape');
  await page.keyboard.type(' WATERM');
  await page.waitForFunction(() => [...document.querySelectorAll('.cm-tooltip-autocomplete li')].some((x) => /WATERMARK/.test(x.textContent)));
  await page.keyboard.press('Escape');
  await page.keyboard.type(' TUMBL');
  await page.waitForFunction(() => [...document.querySelectorAll('.cm-tooltip-autocomplete li')].some((x) => /TUMBLE/.test(x.textContent)));
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('axe-core: no serious or critical violation on the SQL tab', async () => {
  const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  const { page, problems } = await openScript('seed-interval-left-join.sql');
  await page.locator('#sql-editor .cm-content').click();
  await page.evaluate(AXE);
  // The tab's own panel (the result panels are tests/browser/a11y.test.mjs's).
  const v = await page.evaluate(async () => (await window.axe.run(document.querySelector('[data-panel="job"]'), { resultTypes: ['violations'] })).violations);
  const bad = v.filter((x) => x.impact === 'serious' || x.impact === 'critical').map((x) => `${x.id}: ${x.help} — ${x.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  assert.deepEqual(bad, []);
  assert.deepEqual(problems, []);
  await page.context().close();
});
