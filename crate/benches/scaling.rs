//! Scaling table (benchmark 4): how simulation time, time per event, peak buffered state,
//! peak RSS and outputs grow with the number of events, keys, the interval width, the window
//! size and the parallelism — so "cost grows with input + output, not with the square of the
//! buffered state" can be checked: the `ns / (event + output)` column should stay flat along
//! a sweep where only the input or the output grows.
//!
//! Also the native twin of the wasm benchmark (`--twin`, run by `scripts/bench-wasm.mjs`):
//! the same generation, simulation and checksum as `src/wasm_bench.rs`, timed the same way.
//!
//! ```text
//! cargo bench --bench scaling -- [--quick] [--sweeps events,keys,interval,window,parallelism]
//!     [--reps 3] [--mem-limit-mb 8000] [--timeout 300] [--out DIR]
//! <binary> --twin <job> <n> <p> <reference 0|1> <reps>      # one JSON line
//! ```
//!
//! Like `engine.rs`: a plain `harness = false` main timed with `std::time::Instant`; every
//! case runs in a child process of this binary (`--case …`) under `ulimit -v`, so each reports
//! its own peak RSS (`VmHWM`). Results: a table on stdout and `DIR/scaling.md` +
//! `DIR/scaling.jsonl` (default `target/bench`).

mod common;

use common::{f, job_by_name, peak_rss_mb, size_name, u};
use joinlab::plan::Plan;
use joinlab::scenario::{WindowKind, WindowSpec};
use joinlab::sim::{RunOptions, RunOutput};
use joinlab::time::Millis;
use joinlab::workload::{self, Gen, Job};
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::Command;
use std::time::Instant;

fn sim(plan: &Plan) -> (f64, RunOutput) {
    let t = Instant::now();
    let out = joinlab::run_plan(plan, &RunOptions::default()).expect("runs");
    (t.elapsed().as_secs_f64(), out)
}

/// Best of `reps` simulations (the previous output dropped before each run, as in
/// `engine.rs`); returns the times and the last output.
fn best_of(plan: &Plan, reps: usize) -> (Vec<f64>, RunOutput) {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..reps.max(1) {
        drop(last.take());
        let (s, out) = sim(plan);
        times.push(s);
        last = Some(out);
    }
    (times, last.expect("one run"))
}

/// The job setting a sweep varies, applied to the plan's job before the run (outside the
/// timed part; the operators read their settings from `plan.scenario.job` when they are
/// built). `-`: the job's own settings.
fn apply_setting(plan: &mut Plan, setting: &str) {
    let job = &mut plan.scenario.job;
    let Some((k, v)) = setting.split_once('=') else {
        return;
    };
    match k {
        // Interval ±v ms, both ends inclusive (DataStream interval join and SQL bounds).
        "interval" => {
            let ms: i64 = v.parse().expect("ms");
            job.interval.lower = Millis(-ms);
            job.interval.upper = Millis(ms);
            job.sql.lower = Millis(-ms);
            job.sql.upper = Millis(ms);
        }
        // Tumbling window of v ms.
        "tumbling" => {
            job.window = WindowSpec {
                kind: WindowKind::Tumbling,
                size: Millis(v.parse().expect("ms")),
                slide: None,
                gap: None,
                offset: Millis(0),
            }
        }
        // Sliding window "size/slide" in ms.
        "sliding" => {
            let (size, slide) = v.split_once('/').expect("size/slide");
            job.window = WindowSpec {
                kind: WindowKind::Sliding,
                size: Millis(size.parse().expect("ms")),
                slide: Some(Millis(slide.parse().expect("ms"))),
                gap: None,
                offset: Millis(0),
            }
        }
        other => panic!("unknown setting {other}"),
    }
}

fn gen_for(job: Job, n: u64, keys: u64) -> Gen {
    let mut g = Gen::with_late(n);
    g.keys = keys;
    if job == Job::RegularJoin {
        g.keys = (n / 10).max(1000);
    }
    g
}

/// Child: one scaling case, one JSON line on stdout.
fn run_case(job: Job, n: u64, keys: u64, setting: &str, p: u32, reps: usize) {
    use serde_json::json;
    let g = gen_for(job, n, keys);
    let t = Instant::now();
    let mut plan = workload::plan(job, &g, p);
    apply_setting(&mut plan, setting);
    let gen_s = t.elapsed().as_secs_f64();
    let (times, out) = best_of(&plan, reps);
    let check = workload::checksum(&plan, &out);
    let late = out.sink.late.len();
    drop(out);
    // At small sizes, check that changing the settings on the built plan is what the text
    // path gives (plan::build of the scenario with the same settings): same outputs.
    if n <= 10_000 {
        let mut sc = workload::scenario(job, &g, p);
        sc.job = plan.scenario.job.clone();
        let parsed = joinlab::plan::build(&sc, workload::limits()).expect("builds");
        let (_, o2) = sim(&parsed);
        assert_eq!(
            workload::checksum(&parsed, &o2),
            check,
            "the adjusted plan differs from the text path"
        );
    }
    // Sampling walks the whole state; the regular join never forgets a row (its peak is at
    // the end), so a few samples do, and 400 would make its 1M case take minutes.
    let samples = if job == Job::RegularJoin { 20 } else { 400 };
    let every = (plan.rows.len() / samples).max(500);
    let (_, peak) = workload::run_probed(&plan, every).expect("runs");
    let best = times.iter().cloned().fold(f64::INFINITY, f64::min);
    let line = json!({
        "mode": "scaling",
        "job": job.name(),
        "n": n,
        "keys": g.keys,
        "setting": setting,
        "p": p,
        "events": plan.rows.len(),
        "gen_s": gen_s,
        "sim_s": best,
        "sim_runs": times,
        "outputs": check.outputs,
        "checksum": format!("{:#018x}", check.checksum),
        "late": late,
        "peak_rows": peak.rows,
        "peak_timers": peak.timers,
        "rss_mb": peak_rss_mb(),
    });
    println!("{line}");
}

/// The native twin of `src/wasm_bench.rs`: the same generator, plan, simulation (best of
/// `reps`, trace off) and checksum.
fn run_twin(job: Job, n: u64, p: u32, reference: bool, reps: usize) {
    use serde_json::json;
    let g = if reference {
        Gen::reference(n)
    } else {
        gen_for(job, n, workload::KEYS)
    };
    let t = Instant::now();
    let plan = workload::plan(job, &g, p);
    let gen_s = t.elapsed().as_secs_f64();
    let (times, out) = best_of(&plan, reps);
    let check = workload::checksum(&plan, &out);
    let mut v = json!({
        "job": job.name(),
        "n": n,
        "p": p,
        "reference": reference,
        "events": plan.rows.len(),
        "gen_s": gen_s,
        "sim_s": times.iter().cloned().fold(f64::INFINITY, f64::min),
        "sim_runs": times,
        "outputs": check.outputs,
        "padded": check.padded,
        "checksum": format!("{:#018x}", check.checksum),
        "late": out.sink.late.len(),
        "rss_mb": peak_rss_mb(),
    });
    if let Some(e) = workload::expected(job, n).filter(|_| reference) {
        v["expected"] = json!(format!("{:#018x}", e.checksum));
        v["ok"] = json!(e == check);
    }
    println!("{v}");
}

struct Args {
    sweeps: Vec<String>,
    quick: bool,
    reps: usize,
    timeout_s: u64,
    mem_limit_mb: u64,
    out: std::path::PathBuf,
}

fn parse_args(argv: &[String]) -> Args {
    let mut a = Args {
        sweeps: ["events", "keys", "interval", "window", "parallelism"]
            .map(String::from)
            .to_vec(),
        quick: false,
        reps: 3,
        timeout_s: 300,
        mem_limit_mb: 8_000,
        out: std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench"),
    };
    let mut i = 0;
    while i < argv.len() {
        let v = argv.get(i + 1).cloned().unwrap_or_default();
        match argv[i].as_str() {
            "--quick" => {
                a.quick = true;
                a.reps = 1;
                i -= 1;
            }
            "--sweeps" => a.sweeps = v.split(',').map(String::from).collect(),
            "--reps" => a.reps = v.parse().expect("number"),
            "--timeout" => a.timeout_s = v.parse().expect("number"),
            "--mem-limit-mb" => a.mem_limit_mb = v.parse().expect("number"),
            "--out" => a.out = v.into(),
            // `cargo bench` passes `--bench`; ignore it and anything else unknown.
            _ => i -= 1,
        }
        i += 2;
    }
    a
}

/// One row of a sweep.
struct Case {
    sweep: &'static str,
    job: Job,
    n: u64,
    keys: u64,
    setting: String,
    p: u32,
}

fn cases(a: &Args) -> Vec<Case> {
    let has = |s: &str| a.sweeps.iter().any(|x| x == s);
    // The base size of the sweeps other than `events`: big enough to time (100k), small
    // enough that the widest settings stay below ~20M outputs.
    let base: u64 = if a.quick { 10_000 } else { 100_000 };
    let mut v = Vec::new();
    let mut push = |sweep, job, n, keys, setting: &str, p| {
        v.push(Case {
            sweep,
            job,
            n,
            keys,
            setting: setting.to_string(),
            p,
        })
    };
    if has("events") {
        let sizes: &[u64] = if a.quick {
            &[10_000, 100_000]
        } else {
            &[10_000, 100_000, 1_000_000]
        };
        for job in [
            Job::IntervalJoin,
            Job::WindowJoinTumbling,
            Job::WindowJoinSliding,
            Job::WindowCount,
            Job::SqlIntervalLeft,
            Job::RegularJoin,
        ] {
            for &n in sizes {
                push("events", job, n, workload::KEYS, "-", 1);
            }
        }
    }
    if has("keys") {
        // Outputs of the joins ≈ N · 10 s / keys per side: 10 keys at N = 100k would be
        // 100M, so the joins sweep keys at N = 10k.
        for job in [Job::IntervalJoin, Job::WindowJoinTumbling, Job::WindowCount] {
            let n = if job == Job::WindowCount {
                base
            } else {
                10_000
            };
            for keys in [10, 100, 1_000, 10_000, 100_000] {
                push("keys", job, n, keys, "-", 1);
            }
        }
    }
    if has("interval") {
        for job in [Job::IntervalJoin, Job::SqlIntervalLeft] {
            for ms in [100, 500, 1_000, 5_000, 10_000, 50_000] {
                push(
                    "interval",
                    job,
                    base,
                    workload::KEYS,
                    &format!("interval={ms}"),
                    1,
                );
            }
        }
        // Few keys and a narrow interval: at ±0.1 s ~70 rows of each key buffered per side (the
        // interval plus the 1 s out-of-orderness) for ~18 matches per row. Flink's IntervalJoinOperator
        // walks every buffered timestamp of the key for each row; a range query over an
        // ordered buffer visits only the matches, so ns/(ev+out) shows which one runs.
        for ms in [100, 500, 1_000] {
            push(
                "interval",
                Job::IntervalJoin,
                base,
                10,
                &format!("interval={ms}"),
                1,
            );
        }
    }
    if has("window") {
        for job in [Job::WindowJoinTumbling, Job::WindowCount] {
            for s in [1_000, 10_000, 60_000, 600_000] {
                push(
                    "window",
                    job,
                    base,
                    workload::KEYS,
                    &format!("tumbling={s}"),
                    1,
                );
            }
        }
        // Sliding, slide fixed at 5 s: every row is in size/slide windows (Flink's
        // SlidingEventTimeWindows assigns it to each), and a window join's output per
        // window grows with size² — so only up to 30 s for the join.
        for s in [5_000, 10_000, 20_000, 30_000] {
            push(
                "window",
                Job::WindowJoinSliding,
                base,
                workload::KEYS,
                &format!("sliding={s}/5000"),
                1,
            );
        }
        for s in [5_000, 10_000, 60_000, 600_000] {
            push(
                "window",
                Job::WindowCount,
                base,
                workload::KEYS,
                &format!("sliding={s}/5000"),
                1,
            );
        }
    }
    if has("parallelism") {
        for job in [Job::IntervalJoin, Job::WindowJoinTumbling, Job::WindowCount] {
            for p in [1, 2, 4, 8] {
                push("parallelism", job, base, workload::KEYS, "-", p);
            }
        }
    }
    v
}

fn child(a: &Args, c: &Case) -> Option<serde_json::Value> {
    let exe = std::env::current_exe().expect("own path");
    let cmd = format!(
        "ulimit -v {}; exec timeout {} '{}' --case {} {} {} '{}' {} {}",
        a.mem_limit_mb * 1024,
        a.timeout_s,
        exe.display(),
        c.job.name(),
        c.n,
        c.keys,
        c.setting,
        c.p,
        a.reps
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
                "  {} n={} keys={} {} p={}: FAILED ({}) {}",
                c.job.name(),
                c.n,
                c.keys,
                c.setting,
                c.p,
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

fn ms(s: f64) -> String {
    if s.is_nan() {
        "–".into()
    } else if s < 1.0 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

/// A setting as the table shows it.
fn setting_name(job: Job, s: &str) -> String {
    match s.split_once('=') {
        Some(("interval", v)) => format!("±{} s", v.parse::<f64>().unwrap_or(0.0) / 1e3),
        Some(("tumbling", v)) => format!("tumbling {} s", v.parse::<f64>().unwrap_or(0.0) / 1e3),
        Some(("sliding", v)) => {
            let (a, b) = v.split_once('/').unwrap_or((v, "0"));
            format!(
                "sliding {} s / {} s",
                a.parse::<f64>().unwrap_or(0.0) / 1e3,
                b.parse::<f64>().unwrap_or(0.0) / 1e3
            )
        }
        _ => match job {
            Job::IntervalJoin | Job::SqlIntervalLeft | Job::SqlIntervalFull => "±5 s".into(),
            Job::WindowJoinSliding => "sliding 10 s / 5 s".into(),
            Job::WindowJoinSession => "session 1 s".into(),
            Job::RegularJoin | Job::Split => "–".into(),
            _ => "tumbling 10 s".into(),
        },
    }
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    match argv.first().map(String::as_str) {
        Some("--case") => {
            run_case(
                job_by_name(&argv[1]),
                argv[2].parse().expect("n"),
                argv[3].parse().expect("keys"),
                &argv[4],
                argv[5].parse().expect("p"),
                argv[6].parse().expect("reps"),
            );
            return;
        }
        Some("--twin") => {
            run_twin(
                job_by_name(&argv[1]),
                argv[2].parse().expect("n"),
                argv[3].parse().expect("p"),
                argv[4] == "1",
                argv[5].parse().expect("reps"),
            );
            return;
        }
        _ => {}
    }
    let a = parse_args(&argv);
    std::fs::create_dir_all(&a.out).expect("output directory");
    let mut jsonl = std::fs::File::create(a.out.join("scaling.jsonl")).expect("jsonl");
    let mut md = String::new();
    let _ = writeln!(md, "### Scaling, p=1 unless stated, trace off\n");
    let _ = writeln!(md, "Operator-benchmark events (5 % late rows, jitter 1 s, bounded out-of-orderness 1 s; regular join N/10 keys). Best of {} runs. *ns/(ev+out)* = simulate / (input events + outputs); peak state = most rows held in operator state at once (sampled every max(500, events/400) elements).\n", a.reps);
    let _ = writeln!(md, "| sweep | job | N | keys | setting | p | events | outputs | simulate | ns/event | ns/(ev+out) | peak state rows | peak timers | peak RSS |");
    let _ = writeln!(
        md,
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    println!("{}", md.trim_end());
    let t0 = Instant::now();
    for c in cases(&a) {
        eprintln!(
            "scaling {} {} n={} keys={} {} p={}",
            c.sweep,
            c.job.name(),
            c.n,
            c.keys,
            c.setting,
            c.p
        );
        let line = match child(&a, &c) {
            Some(v) => {
                let _ = writeln!(jsonl, "{}", serde_json::json!({"sweep": c.sweep, "r": v}));
                let ev = f(&v, "events");
                let out = f(&v, "outputs");
                let s = f(&v, "sim_s");
                format!(
                    "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.0} | {:.0} | {} | {} | {:.0} MB |",
                    c.sweep,
                    c.job.name(),
                    size_name(c.n),
                    u(&v, "keys"),
                    setting_name(c.job, &c.setting),
                    c.p,
                    u(&v, "events"),
                    u(&v, "outputs"),
                    ms(s),
                    s * 1e9 / ev,
                    s * 1e9 / (ev + out),
                    u(&v, "peak_rows"),
                    u(&v, "peak_timers"),
                    f(&v, "rss_mb")
                )
            }
            None => format!(
                "| {} | {} | {} | {} | {} | {} | FAILED | | | | | | | |",
                c.sweep,
                c.job.name(),
                size_name(c.n),
                c.keys,
                setting_name(c.job, &c.setting),
                c.p
            ),
        };
        let _ = writeln!(md, "{line}");
        println!("{line}");
    }
    let _ = writeln!(md, "\nTotal {:.0} s.", t0.elapsed().as_secs_f64());
    std::fs::write(a.out.join("scaling.md"), &md).expect("scaling.md");
    eprintln!("wrote {}", a.out.join("scaling.md").display());
}
