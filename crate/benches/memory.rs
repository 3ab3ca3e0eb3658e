//! Memory of the lean (untraced) result, native: the bytes the heap holds after each phase of
//! a run and the most it held during it, counted by a global allocator that wraps the
//! system's (every `alloc`, `realloc` and `dealloc` of the process), with the process's peak
//! resident set (`VmHWM`) beside it.
//!
//! ```text
//! cargo bench --bench memory -- [--cases w1,w2,w3,w4,paste,paste-lent] [--sizes 1000000,5000000] [--json]
//! ```
//!
//! Each case runs in a child process of this binary (`--case NAME N`), so each peak is its
//! own. Phases, as `joinlab::run_limited` and the page's worker run them:
//! - `plan`: the plan (W1–W4: `workload::plan`, the same plan `plan::build` makes from the
//!   rows text; `paste`: the page's paste benchmark, 1,000,000 rows of
//!   `scripts/bench-page.mjs`, the scenario given to `plan::build_owned` as the page's worker
//!   gives it (`Job::plan`: the rows text is freed once read); `paste-lent`: the same through
//!   `plan::build(&scenario)`, the caller keeping the scenario and its text to the end);
//! - `simulate`: `run_plan` untraced (the outputs in the sink);
//! - `result`: `RunResult::build` of the lean result (the plan and the run output are given
//!   to it; what it keeps is the result);
//! - `json`: the result as JSON text (what the wasm module hands the page), for the paste and
//!   on request (`--json`).
//!
//! The goal (issue 12): peak ≤ 64 bytes per output + 150 bytes per input row.

mod common;
use common::{paste_scenario, Counter};
use joinlab::plan::{self, Plan};
use joinlab::result::RunResult;
use joinlab::scenario::Scenario;
use joinlab::sim::RunOptions;
use joinlab::workload::{self, Gen, Job};
use std::alloc::{GlobalAlloc, Layout, System};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The system allocator, counting the bytes it holds and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let now = LIVE.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(now, Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            grew(l.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(l) };
        if !p.is_null() {
            grew(l.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new >= l.size() {
                grew(new - l.size());
            } else {
                LIVE.fetch_sub(l.size() - new, Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn live() -> usize {
    LIVE.load(Relaxed)
}

/// Starts a new peak at the bytes held now.
fn reset_peak() {
    PEAK.store(live(), Relaxed);
}

fn peak() -> usize {
    PEAK.load(Relaxed)
}

fn peak_rss_mb() -> f64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn job_of(name: &str) -> Job {
    match name {
        "w1" => Job::IntervalJoin,
        "w2" => Job::WindowJoinTumbling,
        "w3" => Job::SqlIntervalLeft,
        "w4" => Job::WindowCount,
        other => panic!("unknown case {other:?} (w1, w2, w3, w4, paste, paste-lent)"),
    }
}

/// Child: one case, one JSON line.
fn run_case(name: &str, n: u64, json: bool) {
    let base = live();
    reset_peak();
    // The plan, and for the paste the scenario (its rows text) that it is built from.
    let paste = name.starts_with("paste");
    let (plan, scenario, text_bytes): (Plan, Option<Scenario>, usize) = if paste {
        let sc = paste_scenario(n);
        let text = sc.streams.iter().map(|s| s.rows.len()).sum::<usize>();
        if name == "paste-lent" {
            let p = plan::build(&sc, plan::Limits::unlimited()).expect("builds");
            (p, Some(sc), text)
        } else {
            let p = plan::build_owned(sc, plan::Limits::unlimited()).expect("builds");
            (p, None, text)
        }
    } else {
        (workload::plan(job_of(name), &Gen::reference(n), 1), None, 0)
    };
    let input_rows = plan.rows.len();
    let after_plan = live() - base;
    let peak_plan = peak() - base;
    reset_peak();
    let out = joinlab::run_plan(&plan, &RunOptions::default()).expect("runs");
    let after_sim = live() - base;
    let peak_sim = peak() - base;
    reset_peak();
    // As `joinlab::run_limited` does: the plan is handed to the result (its rows' values move
    // into the outputs' row table) and dropped.
    let res = build(plan, out);
    let after_result = live() - base;
    let peak_result = peak() - base;
    let check = workload::checksum_result(&res);
    let outputs = check.outputs as usize;
    let expected_ok = if paste {
        None
    } else {
        workload::expected(job_of(name), n).map(|e| e == check)
    };
    let (peak_json, json_bytes) = if json || paste {
        reset_peak();
        let text = serde_json::to_vec(&res).expect("serializes");
        let p = peak() - base;
        (p, text.len())
    } else {
        let mut c = Counter(0);
        serde_json::to_writer(&mut c, &res).expect("serializes");
        (0, c.0)
    };
    drop(scenario);
    let peak_all = peak_plan.max(peak_sim).max(peak_result).max(peak_json);
    let budget = 64 * outputs + 150 * input_rows;
    let line = serde_json::json!({
        "case": name, "n": n, "input_rows": input_rows, "outputs": outputs,
        "checksum": format!("{:#018x}", check.checksum), "ok": expected_ok,
        "text_bytes": text_bytes,
        "plan_bytes": after_plan, "plan_peak": peak_plan,
        "sim_live": after_sim, "sim_peak": peak_sim,
        "result_live": after_result, "result_peak": peak_result,
        "json_peak": peak_json, "json_bytes": json_bytes,
        "peak_lean": peak_plan.max(peak_sim).max(peak_result),
        "peak_all": peak_all, "budget": budget,
        "rss_mb": peak_rss_mb(),
    });
    println!("{line}");
}

fn build(plan: Plan, out: joinlab::sim::RunOutput) -> RunResult {
    RunResult::build_owned(plan, out, false)
}

fn mb(b: f64) -> String {
    format!("{:.0} MB", b / 1e6)
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.first().map(String::as_str) == Some("--case") {
        let json = argv.iter().any(|a| a == "--json");
        run_case(&argv[1], argv[2].parse().expect("N"), json);
        return;
    }
    let arg = |name: &str| {
        argv.iter()
            .position(|a| a == name)
            .and_then(|i| argv.get(i + 1))
            .cloned()
    };
    let cases = arg("--cases").unwrap_or_else(|| "w1,w2,w3,w4,paste".into());
    let sizes: Vec<u64> = arg("--sizes")
        .unwrap_or_else(|| "1000000,5000000".into())
        .split(',')
        .map(|s| s.parse().expect("size"))
        .collect();
    let json = argv.iter().any(|a| a == "--json");
    let exe = std::env::current_exe().expect("own path");
    println!("Heap bytes (counting allocator) of the lean result; per output / per input row = the bytes divided by the outputs / input rows. Budget = 64 B × outputs + 150 B × input rows.\n");
    println!("| case | N | input rows | outputs | plan (B/row) | simulate: live / peak | result: live / peak | JSON text | peak (plan, run, result) | budget | peak / budget | peak RSS |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for case in cases.split(',') {
        for &n in &sizes {
            // The paste has one size: the page's 1M rows in all.
            if case.starts_with("paste") && n != sizes[0] {
                continue;
            }
            let mut cmd = Command::new(&exe);
            cmd.arg("--case").arg(case).arg(n.to_string());
            if json {
                cmd.arg("--json");
            }
            let out = cmd.output().expect("spawns");
            let text = String::from_utf8_lossy(&out.stdout);
            let Some(v) = text
                .lines()
                .last()
                .and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            else {
                println!("| {case} | {n} | FAILED ({}) |", out.status);
                continue;
            };
            let g = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
            let (rows, outs) = (g("input_rows"), g("outputs"));
            let json_col = if g("json_peak") > 0.0 {
                format!("{} (peak {})", mb(g("json_bytes")), mb(g("json_peak")))
            } else {
                format!("{} (not kept)", mb(g("json_bytes")))
            };
            println!(
                "| {case} | {n} | {rows} | {outs} | {} ({:.0}) | {} / {} | {} / {} | {json_col} | {} ({:.0} B/out + …) | {} | {:.2} | {:.0} MB |",
                mb(g("plan_bytes")),
                g("plan_bytes") / rows,
                mb(g("sim_live")),
                mb(g("sim_peak")),
                mb(g("result_live")),
                mb(g("result_peak")),
                mb(g("peak_lean")),
                (g("peak_lean") - 150.0 * rows).max(0.0) / outs.max(1.0),
                mb(g("budget")),
                g("peak_lean") / g("budget"),
                g("rss_mb"),
            );
            eprintln!("{v}");
        }
    }
}
