//! The text path, native: parsing the rows text (`parse::parse_stream`) and building the plan
//! from it (`plan::build`), timed apart, best of N in one process.
//!
//! ```text
//! cargo bench --bench textpath -- [--rows N] [--reps R] [--inputs w1,paste] [--first build]
//! ```
//!
//! Inputs (`--rows N`, default 1,000,000):
//! - `w1`: the rows of W1 (`workload::scenario`, interval join): N rows per stream, `key,id,ts`
//!   with declared types (35 MB at N = 1M);
//! - `paste`: the rows of the page's paste benchmark (`scripts/bench-page.mjs`): N rows in all,
//!   N/2 per stream, `k7, 123, 1234` with an untyped string key (the type is inferred).
//!
//! Figures per input: `parse` (every stream through `parse_stream`), `parse, kept buffers`
//! (every stream through `parse_stream_into`, into two buffers cleared and reused from one
//! repetition to the next: the reader's own work, without the cost of new memory, which is
//! how the page's module runs, its memory never handed back), `build` (`plan::build`,
//! which parses again and resolves the plan), and `plan` = build − parse (the plan's own cost,
//! per row); each the least CPU time of the thread over the repetitions (the machine may be
//! shared), with the least wall time beside it, and the first repetition's CPU time apart:
//! in the first one every buffer is new memory and pays its page faults; later ones may
//! reuse what the allocator kept from the one before (small blocks are kept, buffers above
//! glibc's mmap threshold go back to the system and are faulted in again), so a parser
//! allocating per row and one filling a few large buffers compare differently in each.
//! The parse runs first, so the build's first run finds what the parse's runs left; with
//! `--first build` the build runs first instead (its first run is then the fresh one).

mod common;
use common::paste_scenario;
use joinlab::parse::{parse_stream, parse_stream_into, Entry};
use joinlab::plan;
use joinlab::value::Value;
use joinlab::workload::{self, Gen, Job};
use std::cell::RefCell;
use std::time::Instant;

/// The two buffers of a `parse, kept buffers` repetition: emptied and handed back for the next
/// one when dropped, which `best` does after the clock stops (emptying them frees the string
/// values, as dropping a parsed stream does in the other figures).
struct Kept<'a> {
    bufs: Option<(Vec<Entry>, Vec<Value>)>,
    home: &'a RefCell<(Vec<Entry>, Vec<Value>)>,
}

impl Drop for Kept<'_> {
    fn drop(&mut self) {
        if let Some((mut entries, mut values)) = self.bufs.take() {
            entries.clear();
            values.clear();
            *self.home.borrow_mut() = (entries, values);
        }
    }
}

/// CPU time of this thread in seconds (`/proc/thread-self/schedstat`, nanoseconds): on a shared
/// machine the wall time includes the time spent waiting for a core.
fn cpu_s() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(f64::NAN, |ns| ns / 1e9)
}

/// The least CPU time and the least wall time of `reps` runs of `f`, the first run's CPU
/// time, and the size of its result (dropped after the clock stops: freeing the rows is not
/// reading them).
fn best<T>(
    reps: usize,
    mut f: impl FnMut() -> T,
    size: impl Fn(&T) -> usize,
) -> (f64, f64, f64, usize) {
    let (mut cpu, mut wall, mut first) = (f64::INFINITY, f64::INFINITY, f64::NAN);
    let mut out = 0;
    for i in 0..reps {
        let (c, t) = (cpu_s(), Instant::now());
        let v = f();
        wall = wall.min(t.elapsed().as_secs_f64());
        let spent = cpu_s() - c;
        cpu = cpu.min(spent);
        if i == 0 {
            first = spent;
        }
        out = size(&v);
        drop(v);
    }
    (cpu, wall, first, out)
}

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        argv.iter()
            .position(|a| a == name)
            .and_then(|i| argv.get(i + 1))
            .cloned()
    };
    let n: u64 = arg("--rows").map_or(1_000_000, |v| v.parse().expect("--rows N"));
    let reps: usize = arg("--reps").map_or(5, |v| v.parse().expect("--reps R"));
    let inputs = arg("--inputs").unwrap_or_else(|| "w1,paste".into());
    let build_first_flag = match arg("--first").as_deref() {
        None | Some("parse") => false,
        Some("build") => true,
        Some(other) => panic!("--first parse|build, not {other:?}"),
    };
    println!("Times are the least CPU time of the thread over {reps} runs (least wall time in brackets).\n");
    println!("| input | rows | text | parse | parse MB/s | plan::build | plan (build − parse) | plan ns/row | first run: parse | MB/s | plan::build | plan ns/row | parse, kept buffers | MB/s |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for input in inputs.split(',') {
        let sc = match input {
            "w1" => workload::scenario(Job::IntervalJoin, &Gen::reference(n), 1),
            "paste" => paste_scenario(n),
            other => panic!("unknown input {other:?} (w1, paste)"),
        };
        let bytes: usize = sc.streams.iter().map(|s| s.rows.len()).sum();
        let p = sc.job.parallelism;
        let parse = || {
            best(
                reps,
                || {
                    sc.streams
                        .iter()
                        .map(|s| parse_stream(s, p).expect("parses"))
                        .collect::<Vec<_>>()
                },
                |v| v.iter().map(|s| s.entries.len()).sum(),
            )
        };
        let parse_kept = || {
            let home = RefCell::new((Vec::new(), Vec::new()));
            best(
                reps,
                || {
                    let (mut entries, mut values) = home.take();
                    for s in &sc.streams {
                        parse_stream_into(s, p, &mut entries, &mut values).expect("parses");
                    }
                    Kept {
                        bufs: Some((entries, values)),
                        home: &home,
                    }
                },
                |k| k.bufs.as_ref().map_or(0, |b| b.0.len()),
            )
        };
        let build = || {
            best(
                reps,
                || plan::build(&sc, workload::limits()).expect("builds"),
                |plan| plan.rows.len(),
            )
        };
        let ((parse_s, parse_wall, parse_first, rows), (build_s, build_wall, build_first, built)) =
            if build_first_flag {
                let b = build();
                (parse(), b)
            } else {
                let a = parse();
                (a, build())
            };
        assert_eq!(rows, built, "every entry of these inputs is a data row");
        let (kept_s, _, _, kept_rows) = parse_kept();
        assert_eq!(kept_rows, rows);
        let plan_s = build_s - parse_s;
        println!(
            "| {input} | {rows} | {:.1} MB | {:.1} ms ({:.1}) | {:.0} | {:.1} ms ({:.1}) | {:.1} ms | {:.1} | {:.1} ms | {:.0} | {:.1} ms | {:.1} | {:.1} ms | {:.0} |",
            bytes as f64 / 1e6,
            parse_s * 1e3,
            parse_wall * 1e3,
            bytes as f64 / 1e6 / parse_s,
            build_s * 1e3,
            build_wall * 1e3,
            plan_s * 1e3,
            plan_s * 1e9 / rows as f64,
            parse_first * 1e3,
            bytes as f64 / 1e6 / parse_first,
            build_first * 1e3,
            (build_first - parse_first) * 1e9 / rows as f64,
            kept_s * 1e3,
            bytes as f64 / 1e6 / kept_s,
        );
    }
}
