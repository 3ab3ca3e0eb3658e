// Engine in wasm vs native (benchmark 2): the same workloads generated, simulated and
// checked inside the wasm build (feature `bench`, src/wasm_bench.rs) in Node, and right after
// each case in the native twin (`crate/benches/scaling.rs --twin`), so the ratio wasm/native
// of every case comes from one run, back to back.
//
//   node scripts/bench-wasm.mjs --pkg target/bench/wasm-node --native <scaling binary>
//       [--quick] [--cases W1,W2,W3,W4,ops] [--sizes 100000,1000000] [--par 1,4]
//       [--jobs interval_join,...] [--reps 3] [--rounds 2] [--node-flags '--no-liftoff']
//       [--out target/bench/wasm.md]
//
// scripts/bench-wasm.sh builds both and calls this. Each case runs in a fresh Node process
// (a wasm memory never shrinks, so cases would otherwise share the largest one's heap); the
// simulation is timed with performance.now() around `bench_simulate()` (wasm32 has no clock),
// generation and plan (`bench_prepare`) separately, and the count + checksum is checked inside
// wasm against BENCH-WORKLOADS.md for W1–W4 and against the native run for every case.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SELF), '..');

const JOBS = [
  'interval_join', 'window_join_tumbling', 'window_join_sliding', 'window_join_session',
  'window_count', 'window_agg_lateness', 'sql_interval_left', 'sql_interval_full',
  'regular_join', 'split',
];
const REFERENCE = { W1: 'interval_join', W2: 'window_join_tumbling', W3: 'sql_interval_left', W4: 'window_count' };

// Child: one case inside wasm; prints one JSON line.
async function child(pkg, job, n, p, reference, reps) {
  const m = await import(pathToFileURL(path.join(pkg, 'joinlab.js')).href);
  const wasm = m.initSync({ module: fs.readFileSync(path.join(pkg, 'joinlab_bg.wasm')) });
  let t = performance.now();
  const events = m.bench_prepare(job, n, p, reference);
  const gen_s = (performance.now() - t) / 1e3;
  if (events < 0) throw new Error(`unknown job ${job}`);
  const runs = [];
  for (let i = 0; i < Math.max(1, reps); i++) {
    t = performance.now();
    m.bench_simulate();
    runs.push((performance.now() - t) / 1e3);
  }
  const check = JSON.parse(m.bench_check());
  const memory_mb = wasm.memory.buffer.byteLength / 2 ** 20;
  m.bench_release();
  console.log(JSON.stringify({
    job, n, p, reference, events, gen_s, sim_s: Math.min(...runs), first_s: runs[0], sim_runs: runs, ...check, memory_mb,
  }));
}

function parseArgs(argv) {
  const a = {
    pkg: path.join(ROOT, 'target/bench/wasm-node'),
    native: null,
    cases: ['W1', 'W2', 'W3', 'W4', 'ops'],
    sizes: [100000, 1000000],
    par: [1, 4],
    jobs: JOBS,
    reps: 3,
    rounds: 2,
    // V8 first runs wasm code compiled by its baseline compiler (Liftoff) and recompiles hot
    // functions with TurboFan on background threads; on a loaded 2-core machine that can take
    // longer than a 10 ms case, so the timed runs would measure baseline code. --no-liftoff
    // compiles each function with TurboFan at its first call (in the first run): the best run
    // is then the optimised code a page gets once it has tiered up.
    nodeFlags: ['--no-liftoff'],
    out: path.join(ROOT, 'target/bench/wasm.md'),
    label: '',
  };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1];
    switch (argv[i]) {
      case '--pkg': a.pkg = path.resolve(v); i++; break;
      case '--native': a.native = path.resolve(v); i++; break;
      case '--cases': a.cases = v.split(','); i++; break;
      case '--sizes': a.sizes = v.split(',').map(Number); i++; break;
      case '--par': a.par = v.split(',').map(Number); i++; break;
      case '--jobs': a.jobs = v.split(','); i++; break;
      case '--reps': a.reps = Number(v); i++; break;
      case '--rounds': a.rounds = Number(v); i++; break;
      case '--node-flags': a.nodeFlags = v.split(' ').filter(Boolean); i++; break;
      case '--out': a.out = path.resolve(v); i++; break;
      case '--label': a.label = v; i++; break;
      case '--quick': a.sizes = [100000]; a.par = [1]; a.reps = 2; a.rounds = 1; break;
      default: throw new Error(`unknown option ${argv[i]}`);
    }
  }
  return a;
}

function lastJson(r, what) {
  const line = (r.stdout || '').trim().split('\n').pop();
  if (r.status !== 0 || !line) {
    console.error(`  ${what}: FAILED (${r.status ?? r.signal}) ${(r.stderr || '').trim().split('\n').slice(-3).join(' | ')}`);
    return null;
  }
  try { return JSON.parse(line); } catch { return null; }
}

function gitHead() {
  const r = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
  return (r.stdout || '?').trim() + (dirty ? ' + uncommitted changes' : '');
}

function ms(s) {
  if (!Number.isFinite(s)) return '–';
  return s < 1 ? `${(s * 1e3).toFixed(1)} ms` : `${s.toFixed(2)} s`;
}
function rate(events, s) {
  const r = events / s;
  return r >= 1e6 ? `${(r / 1e6).toFixed(2)} M/s` : `${(r / 1e3).toFixed(0)} k/s`;
}
function sizeName(n) {
  if (n >= 1e6 && n % 1e6 === 0) return `${n / 1e6}M`;
  if (n >= 1e3 && n % 1e3 === 0) return `${n / 1e3}k`;
  return String(n);
}

async function main() {
  const argv = process.argv.slice(2);
  if (argv[0] === '--child') {
    const [, pkg, job, n, p, ref, reps] = argv;
    await child(pkg, job, Number(n), Number(p), ref === '1', Number(reps));
    return;
  }
  const a = parseArgs(argv);
  if (!a.native) throw new Error('--native <scaling bench binary> is required (scripts/bench-wasm.sh finds it)');
  const cases = [];
  for (const c of a.cases) {
    if (REFERENCE[c]) cases.push({ name: `${c} ${REFERENCE[c]}`, job: REFERENCE[c], n: 1000000, p: 1, ref: true });
  }
  if (a.cases.includes('ops')) {
    for (const job of a.jobs) for (const n of a.sizes) for (const p of a.par) {
      cases.push({ name: job, job, n, p, ref: false });
    }
  }
  const wasmBytes = fs.statSync(path.join(a.pkg, 'joinlab_bg.wasm')).size;
  const head = [
    `wasm: ${path.relative(ROOT, a.pkg)}/joinlab_bg.wasm (${wasmBytes} bytes${a.label ? `, ${a.label}` : ''}), Node ${process.version}; native: ${path.basename(a.native)}; best of ${a.reps} runs × ${a.rounds} rounds (wasm, native, wasm, native …); p = 4 is simulated on one thread.`,
    `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GB; commit ${gitHead()}; ${new Date().toISOString().slice(0, 16)} UTC; load average before: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}.`,
    `Node flags of the wasm runs: ${a.nodeFlags.join(' ') || 'none'}. "wasm 1st run" = the first run of the first round (with --no-liftoff it includes compiling the functions it calls); "wasm simulate" = the best run.`,
    '',
    '| workload | N | p | events | outputs | checksum | same output | wasm simulate | wasm 1st run | native simulate | wasm / native | wasm events/s | gen+plan wasm / native | wasm memory |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const lines = [...head];
  for (const l of head) console.log(l);
  const ratios = [];
  for (const c of cases) {
    const args = [c.job, String(c.n), String(c.p), c.ref ? '1' : '0', String(a.reps)];
    // `rounds` alternations of (wasm, native), best of each side: a burst of load from other
    // processes then hits both sides, or neither's best run.
    let w = null;
    let nat = null;
    const better = (x, y) => {
      if (!x || !y) return x || y;
      const best = y.sim_s < x.sim_s ? y : x;
      return { ...best, first_s: x.first_s, sim_runs: [...x.sim_runs, ...y.sim_runs] };
    };
    for (let r = 0; r < Math.max(1, a.rounds); r++) {
      w = better(w, lastJson(spawnSync(process.execPath, [...a.nodeFlags, SELF, '--child', a.pkg, ...args], { encoding: 'utf8', maxBuffer: 1 << 24 }), `wasm ${c.name} n=${c.n} p=${c.p}`));
      nat = better(nat, lastJson(spawnSync(a.native, ['--twin', ...args], { encoding: 'utf8', maxBuffer: 1 << 24 }), `native ${c.name} n=${c.n} p=${c.p}`));
    }
    let line;
    if (!w || !nat) {
      line = `| ${c.name} | ${sizeName(c.n)} | ${c.p} | FAILED (${!w ? 'wasm' : 'native'}) | | | | | | | | | | |`;
    } else {
      const same = w.outputs === nat.outputs && w.checksum === nat.checksum && w.late === nat.late;
      const ok = c.ref ? (w.ok && nat.ok ? 'yes, = BENCH-WORKLOADS.md' : '**NO**') : (same ? 'yes' : '**NO**');
      const ratio = w.sim_s / nat.sim_s;
      ratios.push(ratio);
      line = `| ${c.name} | ${sizeName(c.n)} | ${c.p} | ${w.events} | ${w.outputs} | ${w.checksum} | ${same ? ok : '**NO** (native ' + nat.checksum + ')'} | ${ms(w.sim_s)} | ${ms(w.first_s)} | ${ms(nat.sim_s)} | ${ratio.toFixed(2)}× | ${rate(w.events, w.sim_s)} | ${(w.gen_s / nat.gen_s).toFixed(2)}× | ${w.memory_mb.toFixed(0)} MB |`;
    }
    lines.push(line);
    console.log(line);
  }
  if (ratios.length) {
    const geo = Math.exp(ratios.reduce((s, r) => s + Math.log(r), 0) / ratios.length);
    const tail = `\nwasm / native: geometric mean ${geo.toFixed(2)}×, min ${Math.min(...ratios).toFixed(2)}×, max ${Math.max(...ratios).toFixed(2)}× over ${ratios.length} cases. Load average after: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}.`;
    lines.push(tail);
    console.log(tail);
  }
  fs.mkdirSync(path.dirname(a.out), { recursive: true });
  fs.writeFileSync(a.out, lines.join('\n') + '\n');
  console.error(`wrote ${path.relative(ROOT, a.out)}`);
}

await main();
