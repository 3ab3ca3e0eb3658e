// The Flink SQL operators of the page (window TVF aggregation and window join, temporal and
// lookup joins, and the SQL settings): every gallery scenario of them opened in the page shows
// the outputs and late rows the native CLI (`joinlab run FILE --json`) computes, the timeline
// draws their windows or versions (one element per window / version of the result), and the
// controls (Flink's names) rerun the job as the CLI runs the same edited scenario.
//
//   npm run build && node --test tests/browser/sql-operators.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { setup, openPage, tableCells, cliJson, galleryFiles, ROOT } from './helpers.mjs';
import { outputCells, lateCells } from '../../web/src/format.js';

const require = createRequire(import.meta.url);

const NEW_OPERATORS = new Set(['window_tvf_aggregate', 'window_tvf_join', 'temporal_join', 'lookup_join']);
const WINDOWED = new Set(['window_tvf_aggregate', 'window_tvf_join']);
const VERSIONED = new Set(['temporal_join', 'lookup_join']);

/** The gallery scenarios of the new operators, and those using the SQL settings or a table's own options. */
const files = galleryFiles().filter((f) => {
  const doc = JSON.parse(fs.readFileSync(f, 'utf8'));
  const job = doc.job || {};
  const streams = doc.streams || [];
  return NEW_OPERATORS.has(job.operator) || job.settings !== undefined || streams.some((s) => s.primary_key || s.scan_watermark_idle_timeout !== undefined);
});

let env;
let temp;
before(async () => {
  env = await setup();
  temp = fs.mkdtempSync(path.join(os.tmpdir(), 'joinlab-sqlops-'));
});
after(async () => {
  await env?.close();
  if (temp) fs.rmSync(temp, { recursive: true, force: true });
});

/** The distinct windows [start, end) of a result's outputs. */
const distinctWindows = (r) => new Set(r.outputs.filter((o) => o.window).map((o) => `${o.window[0]},${o.window[1]}`));

/** Waits until the page has run again after `action` (the one update path: app.runs counts runs). */
async function rerun(page, action) {
  const before = await page.evaluate(() => window.__joinlab.app.runs);
  await action();
  await page.waitForFunction((n) => window.__joinlab.app.runs > n, before, { timeout: 30000 });
}

/** Draws the timeline (it is drawn once in view) and returns it. */
async function timeline(page) {
  await page.locator('[data-panel="timeline"]').scrollIntoViewIfNeeded();
  await page.waitForSelector('#timeline svg.jl-timeline');
  return page.locator('#timeline');
}

/** The page's outputs and late rows against the CLI's. */
async function sameAsCli(page, cli, what) {
  for (const b of await page.locator('.more button:text("show all")').all()) await b.click();
  assert.match(await page.textContent('#status'), /^✓/, `${what}: the scenario runs: ${await page.textContent('#status')}`);
  assert.deepEqual(await tableCells(page, '#outputs'), cli.outputs.map((o, i) => outputCells(o, i, cli)), `${what}: outputs`);
  assert.deepEqual(await tableCells(page, '#late'), cli.late.map((l, i) => lateCells(l, i, cli)), `${what}: late rows`);
}

/** The CLI's result of a scenario document (written to a temporary file). */
function cliOf(doc, name) {
  const file = path.join(temp, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify(doc));
  return cliJson(file);
}

/** The CLI's error message for a scenario document it refuses. */
function cliError(doc, name) {
  try {
    cliOf(doc, name);
  } catch (e) {
    return String(e.stderr || e.message);
  }
  assert.fail(`the CLI runs ${name}`);
}

/** The page's scenario as it is now (what the controls wrote). */
const pageScenario = (page) => page.evaluate(() => JSON.parse(JSON.stringify(window.__joinlab.app.scenario)));

test('the gallery has scenarios of every new operator', () => {
  const ops = new Set(files.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')).job.operator));
  for (const op of NEW_OPERATORS) assert.ok(ops.has(op), `a gallery scenario of ${op}`);
});

for (const file of files) {
  const name = path.basename(file, '.json');
  test(`${name}: the page shows what the CLI computes, and the timeline draws its windows or versions`, async () => {
    const cli = cliJson(file);
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    const { page, problems } = await openPage(env, `?scenario=${encodeURIComponent(name)}`);
    await sameAsCli(page, cli, name);
    const op = doc.job.operator;
    // The explanation of the operator, under its choice.
    if (NEW_OPERATORS.has(op)) assert.match(await page.textContent('#op-explain'), /Flink SQL/);
    const tl = await timeline(page);
    if (WINDOWED.has(op)) {
      // Every window with output is drawn as fired (the picture is at the last step).
      const fired = await tl.locator('.jl-window-fired').count();
      assert.equal(fired, distinctWindows(cli).size, 'one fired window per window of the outputs');
      const kind = (doc.job.tvf && doc.job.tvf.kind) || 'tumble';
      assert.equal(await tl.locator('.jl-win-caption').first().textContent(), `${kind.toUpperCase()} windows`);
      // Each fired window is where the result says it is: the [start, end) of an output.
      const drawn = await tl.locator('.jl-window-fired').evaluateAll((rs) => rs.map((r) => `${r.dataset.start},${r.dataset.end}`));
      assert.deepEqual(new Set(drawn), distinctWindows(cli), 'the fired windows are the outputs\' windows');
    }
    if (VERSIONED.has(op)) {
      assert.ok(cli.versions && cli.versions.length > 0, 'the CLI reports the versions');
      assert.equal(await tl.locator('.jl-version').count(), cli.versions.length, 'one bar per version');
      assert.equal(await tl.locator('.jl-version-deleted').count(), cli.versions.filter((v) => v.kind === '-U' || v.kind === '-D').length, 'deleted versions');
      const axis = await tl.locator('.jl-axis-title').first().textContent();
      assert.equal(axis, op === 'lookup_join' ? 'arrival time' : 'event time', 'a lookup join is drawn on processing (arrival) time');
      // Hovering a version says when it is valid.
      await tl.locator('.jl-version').first().hover();
      assert.match(await tl.locator('.jl-tooltip').textContent(), op === 'lookup_join' ? /in the table from/ : /valid from|no row from|replaced/);
    }
    assert.deepEqual(problems, []);
    await page.context().close();
  });
}

test('TVF controls: changing the TUMBLE size, then HOP with a slide, reruns as the CLI says', async () => {
  const { page, problems } = await openPage(env, '?scenario=tvf-agg-tumble');
  const tl0 = await timeline(page);
  const before = await tl0.locator('.jl-window-fired').count();
  await rerun(page, () => page.fill('[data-path="job.tvf.size"] input', '10m'));
  let doc = await pageScenario(page);
  assert.equal(doc.job.tvf.size, '10m');
  let cli = cliOf(doc, 'tumble-10m');
  await sameAsCli(page, cli, 'TUMBLE 10 min');
  const tl1 = await timeline(page);
  const after10 = await tl1.locator('.jl-window-fired').count();
  assert.equal(after10, distinctWindows(cli).size);
  assert.notEqual(after10, before, 'fewer, larger windows');

  // HOP needs a slide: the engine says so on the Slide control, then the slide makes it run.
  await rerun(page, () => page.selectOption('[data-path="job.tvf.kind"] select', 'hop'));
  assert.equal(await page.isVisible('[data-path="job.tvf.slide"]'), true);
  assert.equal(await page.isVisible('[data-path="job.tvf.gap"]'), false);
  await rerun(page, () => page.fill('[data-path="job.tvf.slide"] input', '5m'));
  doc = await pageScenario(page);
  cli = cliOf(doc, 'hop-10m-5m');
  await sameAsCli(page, cli, 'HOP 10 min / 5 min');
  const tl2 = await timeline(page);
  assert.equal(await tl2.locator('.jl-window-fired').count(), distinctWindows(cli).size);
  assert.equal(await tl2.locator('.jl-win-caption').first().textContent(), 'HOP windows');

  // CUMULATE with a step: its growing windows.
  await rerun(page, () => page.selectOption('[data-path="job.tvf.kind"] select', 'cumulate'));
  await rerun(page, () => page.fill('[data-path="job.tvf.step"] input', '5m'));
  doc = await pageScenario(page);
  cli = cliOf(doc, 'cumulate-10m-5m');
  await sameAsCli(page, cli, 'CUMULATE 10 min / 5 min');
  assert.equal(await (await timeline(page)).locator('.jl-window-fired').count(), distinctWindows(cli).size);

  // The offset.
  await rerun(page, () => page.fill('[data-path="job.tvf.offset"] input', '2m'));
  doc = await pageScenario(page);
  cli = cliOf(doc, 'cumulate-offset');
  await sameAsCli(page, cli, 'CUMULATE with offset 2 min');
  assert.ok(cli.outputs.every((o) => (o.window[0] - 120000) % 600000 === 0), 'windows start at the offset');
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('GROUP BY keys and aggregates: editing them reruns as the CLI says', async () => {
  const { page, problems } = await openPage(env, '?scenario=tvf-agg-tumble');
  assert.equal(await page.inputValue('[data-path="job.group.keys"] input'), 'user');
  // A third aggregate: MAX(amount) AS biggest.
  await rerun(page, () => page.click('[data-path="job.group.aggregates"] button:text("+ aggregate")'));
  await rerun(page, () => page.selectOption('[aria-label="aggregate 3 function"]', 'max'));
  await rerun(page, () => page.selectOption('[aria-label="aggregate 3 column"]', 'amount'));
  await rerun(page, () => page.fill('[aria-label="aggregate 3 alias (AS)"]', 'biggest'));
  let doc = await pageScenario(page);
  assert.deepEqual(doc.job.group.aggregates[2], { func: 'max', column: 'amount', alias: 'biggest' });
  let cli = cliOf(doc, 'agg-max');
  await sameAsCli(page, cli, 'MAX(amount)');
  assert.equal(cli.columns[cli.columns.length - 1], 'biggest');
  // Without GROUP BY keys the engine refuses the stream's key column: the page says so on the
  // control, as the CLI does.
  await rerun(page, () => page.fill('[data-path="job.group.keys"] input', ''));
  doc = await pageScenario(page);
  assert.equal(doc.job.group.keys, undefined);
  const err = cliError(doc, 'agg-nokeys');
  assert.match(err, /job\.group\.keys: /);
  assert.match(await page.textContent('#status'), /^Not run/);
  const shown = await page.textContent('[data-path="job.group.keys"] .control-error');
  assert.ok(shown && err.includes(shown), `the control shows the CLI's error: ${shown} / ${err}`);
  // A second key, the amount: one row per user and amount.
  await rerun(page, () => page.fill('[data-path="job.group.keys"] input', 'user, amount'));
  doc = await pageScenario(page);
  assert.deepEqual(doc.job.group.keys, ['user', 'amount']);
  cli = cliOf(doc, 'agg-two-keys');
  await sameAsCli(page, cli, 'GROUP BY user, amount');
  assert.deepEqual(cli.columns.slice(0, 4), ['window_start', 'window_end', 'user', 'amount']);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('window join type: each of INNER / LEFT / RIGHT / FULL / SEMI / ANTI reruns as the CLI says', async () => {
  const { page, problems } = await openPage(env, '?scenario=sql-window-join-tumble');
  const offered = await page.$$eval('[data-path="job.sql.join"] option', (os) => os.map((o) => o.textContent));
  assert.deepEqual(offered, ['JOIN', 'LEFT JOIN', 'RIGHT JOIN', 'FULL OUTER JOIN', 'SEMI (IN / EXISTS)', 'ANTI (NOT IN / NOT EXISTS)']);
  const counts = new Set();
  for (const join of ['inner', 'left', 'right', 'semi', 'anti', 'full']) {
    await rerun(page, () => page.selectOption('[data-path="job.sql.join"] select', join));
    const doc = await pageScenario(page);
    assert.equal(doc.job.sql?.join ?? 'inner', join);
    const cli = cliOf(doc, `wj-${join}`);
    await sameAsCli(page, cli, `window join ${join}`);
    assert.equal(await (await timeline(page)).locator('.jl-window-fired').count(), distinctWindows(cli).size, `${join}: fired windows`);
    counts.add(cli.outputs.length);
  }
  assert.ok(counts.size > 1, 'the join types give different results');
  // Selecting a row outlines the windows the TVF gives it (the engine's tvf_windows).
  const { want, got } = await page.evaluate(() => {
    const r = window.__joinlab.result;
    const host = document.querySelector('#timeline');
    host.__jlTimeline.setSelectedRow(0);
    return { want: r.tvf_windows[0].length, got: host.querySelectorAll('.jl-window-selected').length };
  });
  assert.ok(want > 0);
  assert.equal(got, want, "the selected row's windows");
  assert.deepEqual(problems, []);
  await page.context().close();
});

test("window join over SESSION windows: the gallery scenario as the CLI says, the TVF drop, each row's session", async () => {
  const { page, problems } = await openPage(env, '?scenario=sql-window-join-session-late');
  assert.match(await page.textContent('#op-explain'), /UnalignedWindowTableFunctionOperator/);
  assert.equal(await page.inputValue('[data-path="job.tvf.kind"] select'), 'session');
  let doc = await pageScenario(page);
  let cli = cliOf(doc, 'wj-session-full');
  await sameAsCli(page, cli, 'SESSION window join FULL');
  assert.equal(cli.late.length, 1, 'the purchase the TVF drops');
  assert.equal(cli.late[0].reason.rule, 'session_tvf');
  // Each row emitted by its TVF is outlined with its own session (the engine's tvf_windows).
  const { want, got } = await page.evaluate(() => {
    const r = window.__joinlab.result;
    const host = document.querySelector('#timeline');
    host.__jlTimeline.setSelectedRow(0);
    return { want: r.tvf_windows[0].length, got: host.querySelectorAll('.jl-window-selected').length };
  });
  assert.equal(want, 1);
  assert.equal(got, want, "the selected row's session");
  // INNER keeps only the sessions that end together.
  await rerun(page, () => page.selectOption('[data-path="job.sql.join"] select', 'inner'));
  doc = await pageScenario(page);
  cli = cliOf(doc, 'wj-session-inner');
  await sameAsCli(page, cli, 'SESSION window join INNER');
  assert.equal(cli.outputs.length, 4);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('temporal join: JOIN / LEFT JOIN only, the primary key, and the versions follow the control', async () => {
  const { page, problems } = await openPage(env, '?scenario=temporal-join-late-version');
  const offered = await page.$$eval('[data-path="job.sql.join"] option', (os) => os.map((o) => o.textContent));
  assert.deepEqual(offered, ['JOIN', 'LEFT JOIN']);
  assert.match(await page.textContent('#op-explain'), /TemporalRowTimeJoinOperator/);
  assert.equal(await page.inputValue('[data-path="streams.1.primary_key"] input'), 'currency');
  await rerun(page, () => page.selectOption('[data-path="job.sql.join"] select', 'inner'));
  const doc = await pageScenario(page);
  const cli = cliOf(doc, 'temporal-inner');
  await sameAsCli(page, cli, 'temporal INNER');
  // Selecting an order draws its time across the versions (the version it joins).
  await timeline(page);
  const probes = await page.evaluate(() => {
    const host = document.querySelector('#timeline');
    const id = window.__joinlab.result.rows.findIndex((r) => r.side === 'left');
    host.__jlTimeline.setSelectedRow(id);
    const n = host.querySelectorAll('.jl-version-probe').length;
    host.__jlTimeline.setSelectedRow(window.__joinlab.result.rows.findIndex((r) => r.side === 'right'));
    return [n, host.querySelectorAll('.jl-version-probe').length];
  });
  assert.deepEqual(probes, [1, 0], 'a probe line for an order, none for a version row');
  const left = cliJson(path.join(ROOT, 'scenarios/temporal-join-late-version.json'));
  assert.ok(cli.outputs.length < left.outputs.length, 'INNER drops the padded order');
  // The windows' controls are not shown for a temporal join; the explanation changes with the operator.
  assert.equal(await page.isVisible('[data-path="job.tvf.kind"]'), false);
  await rerun(page, () => page.selectOption('[data-path="job.operator"] select', 'lookup_join'));
  assert.match(await page.textContent('#op-explain'), /LookupJoinRunner/);
  const cliLookup = cliOf(await pageScenario(page), 'as-lookup');
  await sameAsCli(page, cliLookup, 'the same rows as a lookup join');
  assert.equal(await (await timeline(page)).locator('.jl-version').count(), cliLookup.versions.length);
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('SQL settings: table.exec.state.ttl on the regular join reruns as the CLI says', async () => {
  const { page, problems } = await openPage(env, '?scenario=sql-regular-state-ttl-lost-match');
  const label = await page.textContent('[data-path="job.settings.state_ttl"] label');
  assert.equal(label, 'table.exec.state.ttl');
  const original = cliJson(path.join(ROOT, 'scenarios/sql-regular-state-ttl-lost-match.json'));
  await rerun(page, () => page.fill('[data-path="job.settings.state_ttl"] input', ''));
  const doc = await pageScenario(page);
  assert.equal(doc.job.settings?.state_ttl, undefined);
  const cli = cliOf(doc, 'no-ttl');
  await sameAsCli(page, cli, 'without state TTL');
  assert.notDeepEqual(cli.outputs.length, original.outputs.length, 'without the TTL the lost match is found');
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('SQL settings: table.exec.source.idle-timeout unblocks the window aggregation as the CLI says', async () => {
  const { page, problems } = await openPage(env, '?scenario=tvf-agg-idle-timeout');
  const original = cliJson(path.join(ROOT, 'scenarios/tvf-agg-idle-timeout.json'));
  // Without any idle timeout the idle subtask holds the watermark back.
  await rerun(page, () => page.fill('[data-path="job.watermark.idle_timeout"] input', ''));
  let doc = await pageScenario(page);
  const blocked = cliOf(doc, 'idle-none');
  await sameAsCli(page, blocked, 'no idle timeout');
  assert.notDeepEqual(blocked.outputs.map((o) => o.step), original.outputs.map((o) => o.step), 'the windows fire later without idleness');
  // The SQL option does what withIdleness did.
  assert.equal(await page.textContent('[data-path="job.settings.source_idle_timeout"] label'), 'table.exec.source.idle-timeout');
  await rerun(page, () => page.fill('[data-path="job.settings.source_idle_timeout"] input', '1m'));
  doc = await pageScenario(page);
  assert.equal(doc.job.settings.source_idle_timeout, '1m');
  const unblocked = cliOf(doc, 'idle-sql');
  await sameAsCli(page, unblocked, 'table.exec.source.idle-timeout 1 min');
  assert.deepEqual(unblocked.outputs, original.outputs, 'the same as withIdleness(1 min)');
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('axe-core: the new controls and the versions band are labelled', async () => {
  const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  for (const name of ['tvf-agg-tumble', 'temporal-join-late-version']) {
    const { page, context } = await openPage(env, `?scenario=${name}`);
    await timeline(page);
    await page.evaluate(AXE);
    const v = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations);
    const bad = v.filter((x) => x.impact === 'serious' || x.impact === 'critical').map((x) => `${x.id}: ${x.help} — ${x.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
    assert.deepEqual(bad, [], name);
    await context.close();
  }
});
