// Parse-and-map time of a 100-line Flink SQL script in the SQL wasm module (web/pkg-sql/,
// built by scripts/build-wasm.sh): `sql_to_scenario` on a script of two tables, 84 rows and an
// interval LEFT JOIN with a projection, after a warm-up; prints the median, p95 and maximum.
//
//   node scripts/bench-sql.mjs [--pkg web/pkg-sql] [--runs 200] [--engine web/pkg]
//
// With --engine, it also times the whole path from text to result: `sql_to_scenario` in the
// SQL module, then `run` in the engine module (which plans the scenario and simulates its 84
// rows): an upper bound of "parse and plan".
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const pkg = path.resolve(ROOT, opt('--pkg', 'web/pkg-sql'));
const runs = Number(opt('--runs', '200'));
const m = await import(path.join(pkg, 'joinlab_sql.js'));
m.initSync({ module: fs.readFileSync(path.join(pkg, 'joinlab_sql_bg.wasm')) });

const lines = [];
for (const t of ['show_log', 'click_log']) {
  lines.push(`CREATE TABLE ${t} (`, '  log_id BIGINT,', '  row_time TIMESTAMP(3),', '  params STRING,',
    "  WATERMARK FOR row_time AS row_time - INTERVAL '5' SECOND", ") WITH ('connector' = 'kafka');");
  lines.push(`INSERT INTO ${t} VALUES`);
  for (let i = 0; i < 42; i++) {
    const s = String(i % 60).padStart(2, '0');
    lines.push(`  (${i % 7}, TIMESTAMP '2021-11-01 00:${String(Math.floor(i / 60)).padStart(2, '0')}:${s}', 'p${i}')${i < 41 ? ',' : ';'}`);
  }
}
lines.push('SELECT s.log_id, s.row_time AS `timestamp`, s.params, c.params AS click,',
  "  CASE WHEN c.log_id IS NULL THEN 'none' ELSE 'clicked' END AS status",
  'FROM show_log AS s LEFT JOIN click_log AS c ON s.log_id = c.log_id',
  "  AND s.row_time BETWEEN c.row_time - INTERVAL '10' MINUTE AND c.row_time + INTERVAL '10' MINUTE;");
const script = lines.join('\n');
const first = m.sql_to_scenario(script);
if (!first || !first.scenario) {
  console.error(JSON.stringify(first));
  process.exit(1);
}
for (let i = 0; i < 20; i++) m.sql_to_scenario(script);
// Wall time, and this process's CPU time (user + system): on a loaded machine the wall time
// of a run includes the time the process waited for a core.
const t = [];
const cpu = [];
for (let i = 0; i < runs; i++) {
  const c = process.cpuUsage();
  const a = performance.now();
  m.sql_to_scenario(script);
  t.push(performance.now() - a);
  const d = process.cpuUsage(c);
  cpu.push((d.user + d.system) / 1000);
}
t.sort((a, b) => a - b);
cpu.sort((a, b) => a - b);
const q = (f) => t[Math.min(runs - 1, Math.floor(runs * f))].toFixed(3);
const qc = (f) => cpu[Math.min(runs - 1, Math.floor(runs * f))].toFixed(3);
console.log(`${lines.length}-line script: sql_to_scenario wall median ${q(0.5)} ms, p95 ${q(0.95)} ms, max ${t[runs - 1].toFixed(3)} ms; CPU median ${qc(0.5)} ms, p95 ${qc(0.95)} ms, max ${cpu[runs - 1].toFixed(3)} ms; ${runs} runs`);

const enginePkg = opt('--engine', null);
if (enginePkg) {
  const dir = path.resolve(ROOT, enginePkg);
  const e = await import(path.join(dir, 'joinlab.js'));
  e.initSync({ module: fs.readFileSync(path.join(dir, 'joinlab_bg.wasm')) });
  const once = () => {
    const sc = m.sql_to_scenario(script).scenario;
    return e.run(JSON.stringify(sc), false);
  };
  const r = once();
  if (!r || r.error || !r.outputs) {
    console.error(JSON.stringify(r).slice(0, 400));
    process.exit(1);
  }
  for (let i = 0; i < 20; i++) once();
  const w = [];
  const c2 = [];
  for (let i = 0; i < runs; i++) {
    const c = process.cpuUsage();
    const a = performance.now();
    once();
    w.push(performance.now() - a);
    const d = process.cpuUsage(c);
    c2.push((d.user + d.system) / 1000);
  }
  w.sort((a, b) => a - b);
  c2.sort((a, b) => a - b);
  const at = (v, f) => v[Math.min(runs - 1, Math.floor(runs * f))].toFixed(3);
  console.log(`${lines.length}-line script: sql_to_scenario + engine run (plan and simulate, ${r.outputs.length} results) wall median ${at(w, 0.5)} ms, p95 ${at(w, 0.95)} ms, max ${w[runs - 1].toFixed(3)} ms; CPU median ${at(c2, 0.5)} ms, p95 ${at(c2, 0.95)} ms; ${runs} runs`);
}
