//! Engine benchmarks (native): every operator on generated workloads, plus the reference
//! workloads W1–W4 of `BENCH-WORKLOADS.md` with their checksums verified and the ratio to
//! Apache Flink 2.3's throughput.
//!
//! A plain `harness = false` main timed with `std::time::Instant` (no framework: short compile
//! times on a 2-core machine). Every measured case runs in a child process of this binary
//! (`--case …`) under a memory limit (`ulimit -v`), so its peak RSS (`VmHWM`) can be reported
//! and a run that needs too much memory fails alone.
//!
//! ```text
//! cargo bench --bench engine -- [--quick] [--sections ops,trace,parse,reference]
//!     [--sizes 10000,100000,1000000] [--par 1,4] [--jobs interval_join,...]
//!     [--reference-sizes 1000000,5000000] [--trace-sizes 1000,3000,10000,100000] [--reps 3]
//!     [--mem-limit-mb 12000] [--timeout 300] [--probe] [--out DIR]
//! ```
//!
//! Results: a table on stdout, and `DIR/engine.md` + `DIR/engine.jsonl` (default
//! `target/bench`).
//!
//! One case alone (for profilers and back-to-back comparisons of two builds), printing one
//! JSON record: `--case MODE JOB N P REPS` with MODE `reference` (W1–W4: materialised run,
//! counting-sink run, checksums, result build), `count` (the counting-sink run of the
//! reference workload only), `sim` (the materialised run only), `ops`, `probe`, `parse`,
//! `trace_events`, `trace_full`.

mod common;

use common::{f, job_by_name, peak_rss_mb, size_name, u, Counter};
use joinlab::plan::Plan;
use joinlab::result::RunResult;
use joinlab::sim::{RunOptions, RunOutput};
use joinlab::workload::{self, Check, Gen, Job};
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::Command;
use std::time::Instant;

/// Apache Flink 2.3.0, N=1M and N=5M, p=1, input events per second (BENCH-WORKLOADS.md).
fn flink_p1(job: Job, n: u64) -> Option<f64> {
    let t = match (job, n) {
        (Job::IntervalJoin, 1_000_000) => 336e3,
        (Job::IntervalJoin, 5_000_000) => 360e3,
        (Job::WindowJoinTumbling, 1_000_000) => 1.42e6,
        (Job::WindowJoinTumbling, 5_000_000) => 1.64e6,
        (Job::SqlIntervalLeft, 1_000_000) => 190e3,
        (Job::SqlIntervalLeft, 5_000_000) => 193e3,
        (Job::WindowCount, 1_000_000) => 2.81e6,
        (Job::WindowCount, 5_000_000) => 4.10e6,
        _ => return None,
    };
    Some(t)
}

fn reference_name(job: Job) -> &'static str {
    match job {
        Job::IntervalJoin => "W1",
        Job::WindowJoinTumbling => "W2",
        Job::SqlIntervalLeft => "W3",
        Job::WindowCount => "W4",
        _ => "",
    }
}

/// The generator of the operator benchmarks: 5 % late rows; the regular join (unbounded, so
/// quadratic in rows per key) uses `N / 10` keys so each key keeps ~10 rows per side.
fn bench_gen(job: Job, n: u64) -> Gen {
    let mut g = Gen::with_late(n);
    if job == Job::RegularJoin {
        g.keys = (n / 10).max(1000);
    }
    g
}

/// CPU time (user + system) of this process so far, in seconds (`/proc/self/stat`, 10 ms
/// ticks): on a loaded machine wall time includes time spent waiting for a core.
fn cpu_time() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = s.rsplit_once(") ").map(|(_, r)| r).unwrap_or("");
    let f: Vec<f64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    if f.len() > 12 {
        (f[11] + f[12]) / 100.0
    } else {
        f64::NAN
    }
}

fn json_size(r: &RunResult) -> (f64, usize) {
    let t = Instant::now();
    let mut c = Counter(0);
    serde_json::to_writer(&mut c, r).expect("serializes");
    (t.elapsed().as_secs_f64(), c.0)
}

fn events(plan: &Plan) -> u64 {
    plan.rows.len() as u64
}

/// One JSON-line record of a case, built by hand (serde_json's `json!` is enough).
fn record(fields: Vec<(&str, serde_json::Value)>) -> String {
    let mut m = serde_json::Map::new();
    for (k, v) in fields {
        m.insert(k.to_string(), v);
    }
    serde_json::Value::Object(m).to_string()
}

/// Outputs per drain of the counting sink (a 128 KB buffer of 32-byte outputs).
const COUNT_CHUNK: usize = 4096;

fn sim(plan: &Plan, trace: bool) -> (f64, RunOutput) {
    sim_with(plan, trace, false)
}

/// One simulation; `snapshots`: with the trace, a state snapshot per step (what
/// `joinlab::run(.., true)` records).
fn sim_with(plan: &Plan, trace: bool, snapshots: bool) -> (f64, RunOutput) {
    let t = Instant::now();
    let out = joinlab::run_plan(
        plan,
        &RunOptions {
            trace,
            snapshots,
            ..RunOptions::default()
        },
    )
    .expect("runs");
    (t.elapsed().as_secs_f64(), out)
}

fn counts(plan: &Plan, out: &RunOutput) -> (Check, usize, usize) {
    let side: usize = out.sink.side_outputs.iter().map(|(_, v)| v.len()).sum();
    (workload::checksum(plan, out), out.sink.late.len(), side)
}

/// Child: one case, one line of JSON on stdout.
fn run_case(mode: &str, job: Job, n: u64, p: u32, reps: usize) {
    use serde_json::json;
    let reference = mode == "reference";
    // `count` (for profilers) runs the reference workloads too.
    let g = if reference || mode == "count" {
        Gen::reference(n)
    } else {
        bench_gen(job, n)
    };
    let t = Instant::now();
    let plan = workload::plan(job, &g, p);
    let gen_s = t.elapsed().as_secs_f64();
    let ev = events(&plan);
    let line = match mode {
        "ops" | "reference" => {
            let mut times = Vec::new();
            let mut cpu = Vec::new();
            let mut last = None;
            for _ in 0..reps.max(1) {
                drop(last.take());
                let c = cpu_time();
                let (s, out) = sim(&plan, false);
                cpu.push(cpu_time() - c);
                times.push(s);
                last = Some(out);
            }
            let best_cpu = cpu.iter().cloned().fold(f64::INFINITY, f64::min);
            let out = last.expect("one run");
            let best = times.iter().cloned().fold(f64::INFINITY, f64::min);
            let t = Instant::now();
            let (check, late, side) = counts(&plan, &out);
            let check_s = t.elapsed().as_secs_f64();
            let steps = out.step_count;
            let state_empty = out.state_empty;
            let (peak_rows, peak_timers) = (out.peak_state_rows, out.peak_timers);
            // The JSON-ready result costs ~380 bytes per output (each output clones both rows'
            // values and stream names): built up to ~12M outputs, serialized up to 100k events.
            let (result_s, json_s, json_bytes) = if check.outputs <= 12_000_000 {
                let t = Instant::now();
                let res = RunResult::build(&plan, out, false);
                let result_s = t.elapsed().as_secs_f64();
                let (json_s, json_bytes) = if n <= 100_000 {
                    json_size(&res)
                } else {
                    (f64::NAN, 0)
                };
                (result_s, json_s, json_bytes)
            } else {
                drop(out);
                (f64::NAN, f64::NAN, 0)
            };
            let expected = workload::expected(job, n).filter(|_| reference);
            // The counting sink (as Flink was measured): outputs are counted and checksummed
            // every `COUNT_CHUNK` outputs and the buffer reused; the checksum is checked
            // against the table on every run.
            let (mut count_times, mut count_ok) = (Vec::new(), true);
            if reference {
                for _ in 0..reps.max(1) {
                    let t = Instant::now();
                    let (c, _) = workload::run_counting(&plan, COUNT_CHUNK).expect("runs");
                    count_times.push(t.elapsed().as_secs_f64());
                    count_ok &= c == check && expected.is_none_or(|e| e == c);
                }
            }
            let count_best = count_times.iter().cloned().fold(f64::INFINITY, f64::min);
            let mut f = vec![
                ("mode", json!(mode)),
                ("job", json!(job.name())),
                ("n", json!(n)),
                ("p", json!(p)),
                ("events", json!(ev)),
                ("gen_s", json!(gen_s)),
                ("sim_s", json!(best)),
                ("sim_runs", json!(times)),
                ("sim_cpu_s", json!(best_cpu)),
                ("checksum_s", json!(check_s)),
                ("result_s", json!(result_s)),
                ("outputs", json!(check.outputs)),
                ("padded", json!(check.padded)),
                ("checksum", json!(format!("{:#018x}", check.checksum))),
                ("late", json!(late)),
                ("side", json!(side)),
                ("steps", json!(steps)),
                ("state_empty", json!(state_empty)),
                ("peak_rows", json!(peak_rows)),
                ("peak_timers", json!(peak_timers)),
                ("rss_mb", json!(peak_rss_mb())),
            ];
            if reference {
                f.push(("count_s", json!(count_best)));
                f.push(("count_runs", json!(count_times)));
                f.push(("count_ok", json!(count_ok)));
            }
            if json_bytes > 0 {
                f.push(("json_s", json!(json_s)));
                f.push(("json_bytes", json!(json_bytes)));
            }
            if let Some(e) = expected {
                f.push(("expected", json!(format!("{e}"))));
                f.push(("ok", json!(e == check)));
            }
            record(f)
        }
        "sim" => {
            // Simulation only (for profilers): `reps` runs, best time.
            let best = (0..reps.max(1))
                .map(|_| sim(&plan, false).0)
                .fold(f64::INFINITY, f64::min);
            record(vec![
                ("mode", json!(mode)),
                ("job", json!(job.name())),
                ("n", json!(n)),
                ("p", json!(p)),
                ("events", json!(ev)),
                ("gen_s", json!(gen_s)),
                ("sim_s", json!(best)),
            ])
        }
        "count" => {
            // The counting-sink run only (for profilers): `reps` runs, best time.
            let mut best = f64::INFINITY;
            let mut check = None;
            for _ in 0..reps.max(1) {
                let t = Instant::now();
                let (c, _) = workload::run_counting(&plan, COUNT_CHUNK).expect("runs");
                best = best.min(t.elapsed().as_secs_f64());
                check = Some(c);
            }
            let check = check.expect("one run");
            record(vec![
                ("mode", json!(mode)),
                ("job", json!(job.name())),
                ("n", json!(n)),
                ("p", json!(p)),
                ("events", json!(ev)),
                ("gen_s", json!(gen_s)),
                ("count_s", json!(best)),
                ("outputs", json!(check.outputs)),
                ("checksum", json!(format!("{:#018x}", check.checksum))),
            ])
        }
        "probe" => {
            let every = (ev as usize / 400).max(500);
            let t = Instant::now();
            let (out, peak) = workload::run_probed(&plan, every).expect("runs");
            let s = t.elapsed().as_secs_f64();
            let (check, late, _) = counts(&plan, &out);
            record(vec![
                ("mode", json!(mode)),
                ("job", json!(job.name())),
                ("n", json!(n)),
                ("p", json!(p)),
                ("events", json!(ev)),
                ("probe_s", json!(s)),
                ("every", json!(every)),
                ("outputs", json!(check.outputs)),
                ("late", json!(late)),
                ("peak_rows", json!(peak.rows)),
                ("peak_entries", json!(peak.entries)),
                ("peak_timers", json!(peak.timers)),
                ("samples", json!(peak.samples)),
            ])
        }
        "trace_events" | "trace_full" => {
            let (off_s, out) = sim(&plan, false);
            let t = Instant::now();
            let res = RunResult::build(&plan, out, false);
            let off_result_s = t.elapsed().as_secs_f64();
            let (off_json_s, off_json_bytes) = json_size(&res);
            drop(res);
            let (on_s, out) = sim_with(&plan, true, mode == "trace_full");
            let peak = workload::peak_state_from_trace(&out);
            let t = Instant::now();
            let res = RunResult::build(&plan, out, true);
            let on_result_s = t.elapsed().as_secs_f64();
            let (on_json_s, on_json_bytes) = json_size(&res);
            record(vec![
                ("mode", json!(mode)),
                ("job", json!(job.name())),
                ("n", json!(n)),
                ("p", json!(p)),
                ("events", json!(ev)),
                ("off_sim_s", json!(off_s)),
                ("off_result_s", json!(off_result_s)),
                ("off_json_s", json!(off_json_s)),
                ("off_json_bytes", json!(off_json_bytes)),
                ("on_sim_s", json!(on_s)),
                ("on_result_s", json!(on_result_s)),
                ("on_json_s", json!(on_json_s)),
                ("on_json_bytes", json!(on_json_bytes)),
                ("peak_rows", json!(peak.rows)),
                ("peak_entries", json!(peak.entries)),
                ("peak_timers", json!(peak.timers)),
                ("rss_mb", json!(peak_rss_mb())),
            ])
        }
        "parse" => {
            let t = Instant::now();
            let sc = workload::scenario(job, &g, p);
            let text_s = t.elapsed().as_secs_f64();
            let bytes: usize = sc.streams.iter().map(|s| s.rows.len()).sum();
            let t = Instant::now();
            let parsed = joinlab::plan::build(&sc, workload::limits()).expect("builds");
            let build_s = t.elapsed().as_secs_f64();
            assert_eq!(
                parsed.rows, plan.rows,
                "the fast plan differs from the parsed one"
            );
            let (sim_s, _) = sim(&parsed, false);
            record(vec![
                ("mode", json!(mode)),
                ("job", json!(job.name())),
                ("n", json!(n)),
                ("p", json!(p)),
                ("events", json!(ev)),
                ("fast_plan_s", json!(gen_s)),
                ("text_s", json!(text_s)),
                ("text_bytes", json!(bytes)),
                ("parse_build_s", json!(build_s)),
                ("sim_s", json!(sim_s)),
                ("rss_mb", json!(peak_rss_mb())),
            ])
        }
        other => panic!("unknown mode {other}"),
    };
    println!("{line}");
}

struct Args {
    sections: Vec<String>,
    sizes: Vec<u64>,
    pars: Vec<u32>,
    jobs: Vec<Job>,
    reference_sizes: Vec<u64>,
    trace_sizes: Vec<u64>,
    reps: usize,
    timeout_s: u64,
    mem_limit_mb: u64,
    out: std::path::PathBuf,
    probe: bool,
}

fn list<T: std::str::FromStr>(s: &str) -> Vec<T> {
    s.split(',')
        .filter(|x| !x.is_empty())
        .map(|x| {
            x.trim()
                .replace('_', "")
                .parse()
                .unwrap_or_else(|_| panic!("bad number {x:?}"))
        })
        .collect()
}

fn parse_args(argv: &[String]) -> Args {
    let mut a = Args {
        sections: ["ops", "trace", "parse", "reference"]
            .map(String::from)
            .to_vec(),
        sizes: vec![10_000, 100_000, 1_000_000],
        pars: vec![1, 4],
        jobs: Job::ALL.to_vec(),
        reference_sizes: vec![1_000_000, 5_000_000],
        trace_sizes: vec![1_000, 3_000, 10_000, 100_000],
        reps: 3,
        timeout_s: 300,
        mem_limit_mb: 12_000,
        out: std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench"),
        probe: false,
    };
    let mut i = 0;
    while i < argv.len() {
        let v = argv.get(i + 1).cloned().unwrap_or_default();
        match argv[i].as_str() {
            "--quick" => {
                a.sizes = vec![10_000, 100_000];
                a.reference_sizes = vec![1_000_000];
                a.reps = 1;
                i -= 1;
            }
            "--sections" => a.sections = v.split(',').map(String::from).collect(),
            "--sizes" => a.sizes = list(&v),
            "--par" => a.pars = list(&v),
            "--jobs" => a.jobs = v.split(',').map(job_by_name).collect(),
            "--reference-sizes" => a.reference_sizes = list(&v),
            "--trace-sizes" => a.trace_sizes = list(&v),
            "--timeout" => a.timeout_s = v.parse().expect("number"),
            "--reps" => a.reps = v.parse().expect("number"),
            "--mem-limit-mb" => a.mem_limit_mb = v.parse().expect("number"),
            "--out" => a.out = v.into(),
            "--no-probe" => {
                a.probe = false;
                i -= 1;
            }
            "--probe" => {
                a.probe = true;
                i -= 1;
            }
            // `cargo bench` passes `--bench`; ignore it and anything else unknown.
            _ => i -= 1,
        }
        i += 2;
    }
    a
}

/// Runs one case in a child process under the memory limit; `None` if it failed.
fn child(a: &Args, mode: &str, job: Job, n: u64, p: u32, reps: usize) -> Option<serde_json::Value> {
    let exe = std::env::current_exe().expect("own path");
    let cmd = format!(
        "ulimit -v {}; exec timeout {} '{}' --case {mode} {} {n} {p} {reps}",
        a.mem_limit_mb * 1024,
        a.timeout_s,
        exe.display(),
        job.name()
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(&cmd)
        .output()
        .expect("spawns");
    let text = String::from_utf8_lossy(&out.stdout);
    match text
        .lines()
        .last()
        .and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
    {
        Some(v) if out.status.success() => Some(v),
        _ => {
            eprintln!(
                "  {mode} {} n={n} p={p}: FAILED ({}) {}",
                job.name(),
                out.status,
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            );
            None
        }
    }
}

fn rate(events: f64, s: f64) -> String {
    let r = events / s;
    if r >= 1e6 {
        format!("{:.2} M/s", r / 1e6)
    } else {
        format!("{:.0} k/s", r / 1e3)
    }
}

fn ms(s: f64) -> String {
    if s.is_nan() {
        "–".into()
    } else if s == 0.0 {
        "< 10 ms".into()
    } else if s < 1.0 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.first().map(String::as_str) == Some("--case") {
        let job = job_by_name(&argv[2]);
        run_case(
            &argv[1],
            job,
            argv[3].parse().expect("n"),
            argv[4].parse().expect("p"),
            argv[5].parse().expect("reps"),
        );
        return;
    }
    let a = parse_args(&argv);
    std::fs::create_dir_all(&a.out).expect("output directory");
    let mut jsonl = std::fs::File::create(a.out.join("engine.jsonl")).expect("jsonl");
    let mut md = String::new();
    let mut keep = |v: &serde_json::Value| {
        let _ = writeln!(jsonl, "{v}");
    };
    let has = |s: &str| a.sections.iter().any(|x| x == s);

    if has("reference") {
        let _ = writeln!(
            md,
            "### Reference workloads W1–W4 (BENCH-WORKLOADS.md), p=1, trace off\n"
        );
        let _ = writeln!(md, "Best of {} runs, at most 2 from 5M on (wall time; CPU = user + system time of the best-CPU run, 10 ms ticks); ratio = our simulation throughput (wall) / Flink 2.3 p=1 throughput (input events per second); \"incl. gen\" also counts generating the events and building the plan. *Counting sink*: the same simulation with the outputs handed to a consumer that counts and checksums them every 4096 outputs and reuses the buffer (as Flink was measured, with a counting sink); its checksum is checked on every run (ok covers both).\n", a.reps);
        let _ = writeln!(md, "| workload | N | input events | outputs | checksum | ok | gen+plan | simulate | CPU | events/s | Flink p=1 | ratio | ratio incl. gen | counting sink | events/s | ratio | result build | peak RSS |");
        let _ = writeln!(
            md,
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
        );
        for &n in &a.reference_sizes {
            for job in workload::REFERENCE_JOBS {
                eprintln!("reference {} n={n}", reference_name(job));
                let reps = if n >= 5_000_000 {
                    1.max(a.reps.min(2))
                } else {
                    a.reps
                };
                let Some(v) = child(&a, "reference", job, n, 1, reps) else {
                    let _ = writeln!(
                        md,
                        "| {} {} | {} | | | | FAILED (memory limit {} MB?) | | | | | | | | | | | |",
                        reference_name(job),
                        job.name(),
                        size_name(n),
                        a.mem_limit_mb
                    );
                    continue;
                };
                keep(&v);
                let ev = f(&v, "events");
                let sim_s = f(&v, "sim_s");
                let gen_s = f(&v, "gen_s");
                let ours = ev / sim_s;
                let (fl, ratio, ratio_gen) = match flink_p1(job, n) {
                    Some(fl) => (
                        rate(fl, 1.0),
                        format!("{:.1}×", ours / fl),
                        format!("{:.1}×", ev / (sim_s + gen_s) / fl),
                    ),
                    None => ("–".into(), "–".into(), "–".into()),
                };
                let count_s = f(&v, "count_s");
                let count_ratio = flink_p1(job, n)
                    .map(|fl| format!("{:.1}×", ev / count_s / fl))
                    .unwrap_or_else(|| "–".into());
                let count_ok = v.get("count_ok").and_then(|x| x.as_bool()) != Some(false);
                let ok = match v.get("ok").and_then(|x| x.as_bool()) {
                    Some(true) if count_ok => "yes".to_string(),
                    Some(true) => "**NO** (counting sink)".to_string(),
                    Some(false) => {
                        format!("**NO** (want {})", v["expected"].as_str().unwrap_or(""))
                    }
                    None => "–".into(),
                };
                let _ = writeln!(
                    md,
                    "| {} {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.0} MB |",
                    reference_name(job),
                    job.name(),
                    size_name(n),
                    u(&v, "events"),
                    u(&v, "outputs"),
                    v["checksum"].as_str().unwrap_or(""),
                    ok,
                    ms(gen_s),
                    ms(sim_s),
                    ms(f(&v, "sim_cpu_s")),
                    rate(ev, sim_s),
                    fl,
                    ratio,
                    ratio_gen,
                    ms(count_s),
                    rate(ev, count_s),
                    count_ratio,
                    ms(f(&v, "result_s")),
                    f(&v, "rss_mb")
                );
                println!("{}", md.lines().last().unwrap_or(""));
            }
        }
        let _ = writeln!(md);
    }

    if has("ops") {
        let _ = writeln!(
            md,
            "### Operators, generated workloads with 5 % late rows, trace off\n"
        );
        let _ = writeln!(md, "1,000 keys (regular join: N/10 keys), jitter 1 s, 5 % of rows 3 s late, bounded out-of-orderness 1 s. Events = input rows of all streams. Best of {} runs (at most 2 at 1M). Peak state = most rows held in operator state at once, timers = pending event-time timers (the simulator's own counters, after every element and timer batch; `--probe` cross-checks them with a probe sampling `state()`).\n", a.reps);
        let _ = writeln!(md, "| job | N | p | events | outputs | late | simulate | CPU | events/s | result build | JSON (lean) | peak state rows | peak timers | peak RSS |");
        let _ = writeln!(
            md,
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
        );
        for &job in &a.jobs {
            for &n in &a.sizes {
                for &p in &a.pars {
                    eprintln!("ops {} n={n} p={p}", job.name());
                    let reps = if n >= 1_000_000 {
                        a.reps.min(2)
                    } else {
                        a.reps
                    };
                    let Some(v) = child(&a, "ops", job, n, p, reps) else {
                        let _ = writeln!(
                            md,
                            "| {} | {} | {p} | | FAILED | | | | | | | | |",
                            job.name(),
                            size_name(n)
                        );
                        continue;
                    };
                    keep(&v);
                    let probe = if a.probe {
                        child(&a, "probe", job, n, p, 1)
                    } else {
                        None
                    };
                    if let Some(pv) = &probe {
                        keep(pv);
                    }
                    let ev = f(&v, "events");
                    let json = match v.get("json_bytes").and_then(|x| x.as_u64()) {
                        Some(b) => format!("{} ({:.1} MB)", ms(f(&v, "json_s")), b as f64 / 1e6),
                        None => "–".into(),
                    };
                    let (pr, pt) = (
                        u(&v, "peak_rows").to_string(),
                        u(&v, "peak_timers").to_string(),
                    );
                    let late = u(&v, "late");
                    let _ = writeln!(
                        md,
                        "| {} | {} | {p} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.0} MB |",
                        job.name(),
                        size_name(n),
                        u(&v, "events"),
                        u(&v, "outputs"),
                        late,
                        ms(f(&v, "sim_s")),
                        ms(f(&v, "sim_cpu_s")),
                        rate(ev, f(&v, "sim_s")),
                        ms(f(&v, "result_s")),
                        json,
                        pr,
                        pt,
                        f(&v, "rss_mb")
                    );
                    println!("{}", md.lines().last().unwrap_or(""));
                }
            }
        }
        let _ = writeln!(md);
    }

    if has("trace") {
        let _ = writeln!(md, "### Trace on vs off (p=1, same workloads)\n");
        let _ = writeln!(md, "Each figure is simulate + build the result + serialize it to JSON. *off*: `trace: false` (the lean result). *events*: `trace: true, snapshots: false` (every step's events, rows, keys, verdicts; state on demand via `stop_after`). *full*: `trace: true, snapshots: true`, what `joinlab::run(.., true)` does (plus a state snapshot of the touched subtask after every step). A case is skipped when the previous size predicts more than the {} s timeout (events: linear, full: quadratic); memory limit {} MB.\n", a.timeout_s, a.mem_limit_mb);
        let _ = writeln!(md, "| job | N | off | events trace | × off | JSON (events) | full trace | × off | JSON (full) | peak state rows | peak RSS (full) |");
        let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|---|---|");
        for &job in &a.jobs {
            // (n, seconds) of the last size of each variant.
            let mut last: [Option<(u64, f64)>; 2] = [None, None];
            for &n in &a.trace_sizes {
                let mut cells: Vec<String> = Vec::new();
                let mut off: Option<f64> = None;
                let mut peak = String::new();
                let mut rss = String::new();
                for (vi, mode) in ["trace_events", "trace_full"].into_iter().enumerate() {
                    let power = if vi == 0 { 1 } else { 2 };
                    if let Some((m, t)) = last[vi] {
                        let predicted = t * (n as f64 / m as f64).powi(power);
                        if predicted > a.timeout_s as f64 {
                            cells.extend([
                                format!("skipped (~{predicted:.0} s)"),
                                String::new(),
                                String::new(),
                            ]);
                            last[vi] = Some((n, predicted));
                            continue;
                        }
                    }
                    eprintln!("{mode} {} n={n}", job.name());
                    let Some(v) = child(&a, mode, job, n, 1, 1) else {
                        cells.extend([
                            format!("FAILED (> {} MB or > {} s)", a.mem_limit_mb, a.timeout_s),
                            String::new(),
                            String::new(),
                        ]);
                        last[vi] = Some((n, f64::INFINITY));
                        continue;
                    };
                    keep(&v);
                    let o = f(&v, "off_sim_s") + f(&v, "off_result_s") + f(&v, "off_json_s");
                    off = Some(off.map_or(o, |x: f64| x.min(o)));
                    let on = f(&v, "on_sim_s") + f(&v, "on_result_s") + f(&v, "on_json_s");
                    last[vi] = Some((n, on));
                    cells.extend([
                        ms(on),
                        format!("{:.0}×", on / o),
                        format!("{:.1} MB", f(&v, "on_json_bytes") / 1e6),
                    ]);
                    if vi == 1 {
                        peak = u(&v, "peak_rows").to_string();
                        rss = format!("{:.0} MB", f(&v, "rss_mb"));
                    }
                }
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} | {} | {} |",
                    job.name(),
                    size_name(n),
                    off.map(ms).unwrap_or_default(),
                    cells.join(" | "),
                    peak,
                    rss
                );
                println!("{}", md.lines().last().unwrap_or(""));
            }
        }
        let _ = writeln!(md);
    }

    if has("parse") {
        let _ = writeln!(md, "### Text path: writing the rows as text and parsing them, vs building the plan directly (interval join, p=1)\n");
        let _ = writeln!(md, "| N | events | text size | write text | parse + plan::build | direct plan | simulate | parse / simulate |");
        let _ = writeln!(md, "|---|---|---|---|---|---|---|---|");
        for &n in &a.sizes {
            eprintln!("parse n={n}");
            let Some(v) = child(&a, "parse", Job::IntervalJoin, n, 1, 1) else {
                continue;
            };
            keep(&v);
            let _ = writeln!(
                md,
                "| {} | {} | {:.1} MB | {} | {} | {} | {} | {:.2} |",
                size_name(n),
                u(&v, "events"),
                f(&v, "text_bytes") / 1e6,
                ms(f(&v, "text_s")),
                ms(f(&v, "parse_build_s")),
                ms(f(&v, "fast_plan_s")),
                ms(f(&v, "sim_s")),
                f(&v, "parse_build_s") / f(&v, "sim_s")
            );
            println!("{}", md.lines().last().unwrap_or(""));
        }
        let _ = writeln!(md);
    }

    std::fs::write(a.out.join("engine.md"), &md).expect("write engine.md");
    println!("\n{md}");
    eprintln!("wrote {}", a.out.join("engine.md").display());
}
