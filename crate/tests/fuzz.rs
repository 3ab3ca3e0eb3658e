//! Structure-aware fuzzing of the engine, on stable Rust, with overflow checks on (a test
//! build). Two targets:
//!
//! - `scenarios`: the gallery (`scenarios/*.json`) as the seed corpus, mutated as JSON trees
//!   with the scenario format in mind (settings set to boundary values — i64::MIN, ±2^53,
//!   1e30, 1.5, dates where durations go —, operators and kinds swapped, values of the wrong
//!   type, rows text edited line by line: reversed, duplicated, watermark rows, annotations,
//!   row kinds, quotes, long lines), then run (traced or not, with a stop step) and exported.
//! - `fragments`: what a share link carries, the compact scenario JSON, mutated as text
//!   (bytes flipped, tokens spliced, numbers swapped, nesting, truncation, escapes), then
//!   read, normalised (compact JSON round trip), run and asked for a step's state and a
//!   trace window, as the page does.
//!
//! Each execution must end with a result or an error value: no panic (caught and counted),
//! no abort (the process would die), no error message longer than 1,000 characters, every
//! budget stop with its message (naming the budget), and none slower than `SLOW` (a hang).
//!
//! ```text
//! JOINLAB_FUZZ_EXECS=1000000 JOINLAB_FUZZ_SEED=1 cargo test --test fuzz -- --nocapture
//! ```
//!
//! `JOINLAB_FUZZ_SLOW_DIR=DIR` keeps every input that took over a second in DIR, as
//! `TARGET-SEED.json`; a finding is reported with the same execution seed. Replay one with
//! `JOINLAB_FUZZ_REPLAY=DIR/TARGET-SEED.json cargo test --test fuzz replay -- --ignored`.
//!
//! Without `JOINLAB_FUZZ_EXECS`, each target runs a short smoke run (a few seconds).
//! The targets are `#[ignore]`d in a plain `cargo test`; `scripts/test.sh` runs the smoke
//! run (`cargo test --test fuzz -- --include-ignored`). docs/FUZZING.md records the long
//! runs.

use joinlab::error::Error;
use joinlab::plan::Limits;
use joinlab::scenario::Scenario;
use joinlab::sim::RunOptions;
use serde_json::{json, Map, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// An execution slower than this counts as a hang.
const SLOW: Duration = Duration::from_secs(20);

/// Executions per target in a smoke run.
const SMOKE: u64 = 1000;

/// xorshift64*: small, deterministic, seedable.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn chance(&mut self, one_in: u64) -> bool {
        self.next().is_multiple_of(one_in)
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

/// The budgets of a fuzzed run: small, so that every execution is quick and the budget
/// paths are taken often.
fn limits(rng: &mut Rng) -> Limits {
    Limits {
        max_work: *rng.pick(&[20_000, 200_000, 3_000_000]),
        max_memory: *rng.pick(&[64 << 10, 4 << 20, 64 << 20]),
        max_outputs: 200_000,
        max_snapshot_entries: *rng.pick(&[100, 100_000]),
        ..Limits::default()
    }
}

fn seeds() -> Vec<Value> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("scenarios/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p.to_string_lossy();
            n.ends_with(".json") && !n.ends_with(".expected.json")
        })
        .collect();
    files.sort();
    let seeds: Vec<Value> = files
        .iter()
        .filter_map(|p| serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok())
        .collect();
    assert!(seeds.len() >= 10, "the seed corpus is the gallery");
    seeds
}

const NUMBERS: [&str; 22] = [
    "0",
    "-1",
    "1",
    "2",
    "7",
    "-9223372036854775808",
    "9223372036854775807",
    "9007199254740992",
    "-9007199254740992",
    "9007199254740993",
    "-9007199254740993",
    "18446744073709551615",
    "1e30",
    "-1e30",
    "1.5",
    "-0.0",
    "4294967295",
    "4294967296",
    "32768",
    "1000",
    "-5000",
    "1e-7",
];

const TIMES: [&str; 20] = [
    "5s",
    "-10m",
    "1h 30m",
    "00:01:03",
    "2021-11-01T23:00:00",
    "2021-11-01 00:01:03",
    "9999999999999999d",
    "",
    "1.5ms",
    "-9223372036854775808",
    "106751991167d",
    "0",
    "1ms",
    "10 s",
    "-1",
    "99:99",
    "1x",
    "+inf",
    "-inf+5",
    "１",
];

const WORDS: [&str; 34] = [
    "window_join",
    "interval_join",
    "window_aggregate",
    "sql_interval_join",
    "regular_join",
    "split",
    "window_tvf_aggregate",
    "window_tvf_join",
    "temporal_join",
    "lookup_join",
    "tumbling",
    "sliding",
    "session",
    "bounded",
    "monotonous",
    "legacy",
    "punctuated",
    "none",
    "inner",
    "left",
    "right",
    "full",
    "semi",
    "anti",
    "event",
    "processing",
    "by_time",
    "left_first",
    "interleave",
    "k",
    "ts",
    "k:int",
    "v:bogus",
    "<script>alert(1)</script>",
];

/// Settings that a mutation may add where they are missing.
const KEYS: [&str; 30] = [
    "operator",
    "parallelism",
    "max_parallelism",
    "window",
    "kind",
    "size",
    "slide",
    "gap",
    "offset",
    "allowed_lateness",
    "watermark",
    "strategy",
    "delay",
    "per_event",
    "interval",
    "idle_timeout",
    "lower",
    "upper",
    "sql",
    "join",
    "time",
    "min_cleanup",
    "late_output",
    "final_watermark",
    "arrival",
    "aggregate",
    "sum",
    "split",
    "primary_key",
    "expected",
];

fn number(rng: &mut Rng) -> Value {
    let s = if rng.chance(3) {
        (rng.next() as i64 % 100_000).to_string()
    } else {
        rng.pick(&NUMBERS).to_string()
    };
    serde_json::from_str(&s).unwrap_or(Value::Null)
}

fn scalar(rng: &mut Rng) -> Value {
    match rng.below(7) {
        0 | 1 => number(rng),
        2 | 3 => json!(rng.pick(&TIMES)),
        4 => json!(rng.pick(&WORDS)),
        5 => json!(rng.chance(2)),
        _ => Value::Null,
    }
}

/// A value of any shape, including nested ones.
fn any_value(rng: &mut Rng, depth: usize) -> Value {
    if depth == 0 || rng.chance(2) {
        return scalar(rng);
    }
    match rng.below(3) {
        0 => Value::Array(
            (0..rng.below(4))
                .map(|_| any_value(rng, depth - 1))
                .collect(),
        ),
        1 => {
            let mut m = Map::new();
            for _ in 0..rng.below(4) {
                m.insert(rng.pick(&KEYS).to_string(), any_value(rng, depth - 1));
            }
            Value::Object(m)
        }
        _ => {
            // Deep nesting (an `expected` a hostile link could carry).
            let n = rng.below(200);
            serde_json::from_str(&format!("{}1{}", "[".repeat(n), "]".repeat(n)))
                .unwrap_or(Value::Null)
        }
    }
}

/// One line of a rows text.
fn row_line(rng: &mut Rng, columns: usize) -> String {
    let mut fields: Vec<String> = (0..columns.max(1))
        .map(|_| match rng.below(8) {
            0 => rng.pick(&NUMBERS).to_string(),
            1 => rng.pick(&TIMES).to_string(),
            2 => "null".into(),
            3 => "\"a, \"\"b\"\"\"".into(),
            4 => "日本".into(),
            _ => (rng.next() % 50).to_string(),
        })
        .collect();
    if rng.chance(6) {
        fields.pop();
    }
    let mut line = fields.join(", ");
    match rng.below(12) {
        0 => line = format!("WM {}", rng.pick(&TIMES)),
        1 => line = format!("{} {line}", rng.pick(&["+I", "-U", "+U", "-D", "-Dx"])),
        2 => line.push_str(&format!(" | s={}", rng.below(10))),
        3 => line.push_str(&format!(" | a={}", rng.pick(&TIMES))),
        4 => line.push_str(" | x=1 s"),
        5 => line.push('"'),
        6 => line = ",".repeat(rng.below(20_000)),
        _ => {}
    }
    line
}

/// Edits a rows text line by line.
fn mutate_rows(rng: &mut Rng, rows: &str, columns: usize) -> String {
    let mut lines: Vec<String> = rows.lines().map(str::to_string).collect();
    for _ in 0..1 + rng.below(3) {
        match rng.below(9) {
            0 => lines.reverse(),
            1 if !lines.is_empty() => {
                let i = rng.below(lines.len());
                lines.remove(i);
            }
            2 => {
                let i = rng.below(lines.len() + 1);
                lines.insert(i, row_line(rng, columns));
            }
            3 if !lines.is_empty() => {
                // Many copies of a line: more rows per key.
                let l = lines[rng.below(lines.len())].clone();
                for _ in 0..rng.below(300) {
                    lines.push(l.clone());
                }
            }
            4 => {
                // Many rows in reverse time order (the quadratic session case).
                let n = rng.below(2000);
                let key = rng.pick(&["a", "b", "1"]).to_string();
                for i in 0..n {
                    let mut f = vec![key.clone(); columns.max(1)];
                    let last = f.len() - 1;
                    f[last] = (2 * (n - i)).to_string();
                    lines.push(f.join(", "));
                }
            }
            5 if !lines.is_empty() => {
                let i = rng.below(lines.len());
                lines[i] = row_line(rng, columns);
            }
            6 if lines.len() > 1 => {
                let (i, j) = (rng.below(lines.len()), rng.below(lines.len()));
                lines.swap(i, j);
            }
            7 => lines.push(row_line(rng, columns)),
            _ => lines.push(format!("WM {}", rng.pick(&TIMES))),
        }
    }
    lines.join("\n")
}

/// A random node of the tree, by a random walk from the root.
fn walk<'a>(rng: &mut Rng, v: &'a mut Value) -> &'a mut Value {
    let mut cur = v;
    loop {
        let n = match &*cur {
            Value::Object(m) => m.len(),
            Value::Array(a) => a.len(),
            _ => 0,
        };
        if n == 0 || rng.chance(3) {
            return cur;
        }
        let i = rng.below(n);
        cur = match cur {
            Value::Object(m) => m.values_mut().nth(i).expect("index below len"),
            Value::Array(a) => &mut a[i],
            _ => unreachable!(),
        };
    }
}

/// One structural mutation of a scenario tree.
fn mutate_tree(rng: &mut Rng, sc: &mut Value) {
    match rng.below(12) {
        // A stream's rows.
        0..=4 => {
            if let Some(streams) = sc.get_mut("streams").and_then(Value::as_array_mut) {
                if streams.is_empty() {
                    return;
                }
                let i = rng.below(streams.len());
                let s = &mut streams[i];
                let columns = s
                    .get("columns")
                    .and_then(Value::as_array)
                    .map_or(2, Vec::len);
                let rows = s
                    .get("rows")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                if let Some(o) = s.as_object_mut() {
                    o.insert("rows".into(), json!(mutate_rows(rng, &rows, columns)));
                }
            }
        }
        // A setting of the job: a boundary value, a word, or a missing setting added.
        5..=7 => {
            let job = sc
                .as_object_mut()
                .map(|o| o.entry("job").or_insert_with(|| json!({})));
            if let Some(job) = job {
                let node = walk(rng, job);
                match node {
                    Value::Object(m) if rng.chance(2) => {
                        let k = rng.pick(&KEYS).to_string();
                        let v = if rng.chance(3) {
                            any_value(rng, 2)
                        } else {
                            scalar(rng)
                        };
                        m.insert(k, v);
                    }
                    Value::Object(m) if !m.is_empty() => {
                        let k = m
                            .keys()
                            .nth(rng.below(m.len()))
                            .cloned()
                            .unwrap_or_default();
                        m.remove(&k);
                    }
                    other => *other = scalar(rng),
                }
            }
        }
        // Anything anywhere, any shape.
        8 => {
            let node = walk(rng, sc);
            *node = any_value(rng, 3);
        }
        // Parallelism and the arrival order.
        9 => {
            if let Some(job) = sc.get_mut("job").and_then(Value::as_object_mut) {
                job.insert("parallelism".into(), json!(rng.below(10)));
                job.insert(
                    "arrival".into(),
                    json!(rng.pick(&["by_time", "left_first", "interleave"])),
                );
            }
        }
        // Columns: types, duplicates, the key and time columns.
        10 => {
            if let Some(streams) = sc.get_mut("streams").and_then(Value::as_array_mut) {
                if let Some(s) = streams.first_mut().and_then(Value::as_object_mut) {
                    match rng.below(4) {
                        0 => {
                            s.insert("key".into(), json!(rng.pick(&WORDS)));
                        }
                        1 => {
                            s.insert("time".into(), json!(rng.pick(&WORDS)));
                        }
                        2 => {
                            if let Some(c) = s.get_mut("columns").and_then(Value::as_array_mut) {
                                c.push(json!(rng.pick(&WORDS)));
                            }
                        }
                        _ => {
                            s.insert("name".into(), json!(rng.pick(&["", "a", "日本", "x\"y"])));
                        }
                    }
                }
            }
        }
        // The second stream: copied from the first, removed, or swapped.
        _ => {
            if let Some(streams) = sc.get_mut("streams").and_then(Value::as_array_mut) {
                match rng.below(3) {
                    0 if !streams.is_empty() => {
                        let mut s = streams[0].clone();
                        if let Some(o) = s.as_object_mut() {
                            o.insert("name".into(), json!("copy"));
                        }
                        streams.push(s);
                    }
                    1 => {
                        streams.pop();
                    }
                    _ => streams.reverse(),
                }
            }
        }
    }
}

/// What went wrong in one execution (shown with `Debug` when the test fails).
#[derive(Debug)]
#[allow(dead_code)]
enum Finding {
    Panic(String),
    Slow(Duration),
    LongMessage(usize),
    LimitWithoutMessage(String),
}

/// Outcomes seen, for the summary: runs that finished, then errors by kind (json,
/// setting, stream, row, limit).
static OUTCOMES: [AtomicU64; 6] = [const { AtomicU64::new(0) }; 6];

fn count(i: usize) {
    OUTCOMES[i].fetch_add(1, Ordering::Relaxed);
}

/// Checks an error value.
fn check_error(e: &Error) -> Result<(), Finding> {
    count(match e {
        Error::Json { .. } => 1,
        Error::Config { .. } => 2,
        Error::Stream { .. } => 3,
        Error::Row { .. } => 4,
        Error::Limit { .. } => 5,
    });
    let text = e.to_string();
    let chars = text.chars().count();
    if chars > 1000 {
        return Err(Finding::LongMessage(chars));
    }
    if let Error::Limit { message } = e {
        let clear = message.contains("raise the budget")
            || message.contains("more than")
            || message.contains("allows");
        if !clear {
            return Err(Finding::LimitWithoutMessage(message.clone()));
        }
    }
    Ok(())
}

fn run_checked(sc: &Scenario, opts: &RunOptions, limits: Limits) -> Result<usize, Finding> {
    match joinlab::run_limited(sc, opts, limits) {
        Ok(r) => {
            count(0);
            Ok(r.steps)
        }
        Err(e) => check_error(&e).map(|()| 0),
    }
}

/// One execution of the `scenarios` target on the text of a mutated scenario.
fn exec_scenario(rng: &mut Rng, text: &str) -> Result<(), Finding> {
    let sc = match Scenario::from_json(text) {
        Ok(sc) => sc,
        Err(e) => return check_error(&e),
    };
    let trace = rng.chance(3);
    let opts = RunOptions {
        trace,
        snapshots: trace && rng.chance(2),
        stop_after: if rng.chance(5) {
            Some(rng.below(50))
        } else {
            None
        },
    };
    run_checked(&sc, &opts, limits(rng))?;
    if rng.chance(8) {
        use joinlab::export::{export_named, ExportKind};
        let kind = if rng.chance(2) {
            ExportKind::FlinkJava
        } else {
            ExportKind::FlinkSql
        };
        if let Err(e) = export_named(&sc, kind, "Fuzz") {
            check_error(&e)?;
        }
    }
    Ok(())
}

/// One text-level mutation of a fragment's JSON.
fn mutate_text(rng: &mut Rng, text: &mut String) {
    let mut b = std::mem::take(text).into_bytes();
    match rng.below(8) {
        0 if !b.is_empty() => {
            let i = rng.below(b.len());
            b[i] ^= 1 << rng.below(8);
        }
        1 if !b.is_empty() => {
            let n = rng.below(b.len());
            b.truncate(n);
        }
        2 => {
            let tok = rng
                .pick(&[
                    "\"",
                    "{",
                    "}",
                    "[",
                    "]",
                    ",",
                    ":",
                    "null",
                    "\\u0000",
                    "\\ud800",
                    "1e999",
                    "-",
                    "\"job\":{}",
                    "\"version\":",
                    "\u{feff}",
                    "\\",
                ])
                .as_bytes()
                .to_vec();
            let i = rng.below(b.len() + 1);
            b.splice(i..i, tok);
        }
        3 => {
            // A number replaced by a boundary value.
            let digits: Vec<usize> = (0..b.len()).filter(|&i| b[i].is_ascii_digit()).collect();
            if !digits.is_empty() {
                let i = *rng.pick(&digits);
                let mut j = i;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                let n = rng.pick(&NUMBERS).as_bytes().to_vec();
                b.splice(i..j, n);
            }
        }
        4 if b.len() > 2 => {
            // A slice copied elsewhere (duplicated keys, spliced members).
            let i = rng.below(b.len());
            let j = (i + rng.below(40)).min(b.len());
            let part = b[i..j].to_vec();
            let k = rng.below(b.len() + 1);
            b.splice(k..k, part);
        }
        5 => {
            let n = rng.below(300);
            let i = rng.below(b.len() + 1);
            let nest = format!("{}0{}", "[".repeat(n), "]".repeat(n)).into_bytes();
            b.splice(i..i, nest);
        }
        6 if !b.is_empty() => {
            let i = rng.below(b.len());
            b.insert(i, (rng.next() & 0xff) as u8);
        }
        _ => {
            let version = format!("{{\"version\":{},", rng.pick(&NUMBERS)).into_bytes();
            if b.first() == Some(&b'{') {
                b.splice(0..1, version);
            }
        }
    }
    // A link is text: invalid UTF-8 never reaches the engine as a string.
    *text = String::from_utf8_lossy(&b).into_owned();
}

/// One execution of the `fragments` target.
fn exec_fragment(rng: &mut Rng, text: &str) -> Result<(), Finding> {
    let sc = match Scenario::from_json(text) {
        Ok(sc) => sc,
        Err(e) => return check_error(&e),
    };
    // `normalize`: the compact form must read back to the same scenario.
    let compact = sc.to_compact_json();
    match Scenario::from_json(&compact) {
        Ok(back) if back == sc => {}
        Ok(_) => {
            return Err(Finding::Panic(format!(
                "compact JSON round trip differs: {compact}"
            )))
        }
        Err(e) => {
            return Err(Finding::Panic(format!(
                "compact JSON does not read back: {e}: {compact}"
            )))
        }
    }
    let limits = limits(rng);
    let steps = run_checked(
        &sc,
        &RunOptions {
            trace: true,
            snapshots: false,
            stop_after: None,
        },
        limits.clone(),
    )?;
    let step = rng.below(steps + 2);
    if rng.chance(2) {
        run_checked(
            &sc,
            &RunOptions {
                trace: false,
                snapshots: false,
                stop_after: Some(step),
            },
            limits,
        )?;
    } else if let Err(e) = joinlab::trace_window::trace_window(&sc, step, 1 + rng.below(20)) {
        check_error(&e)?;
    }
    Ok(())
}

/// Runs `execs` executions of a target; returns (executions, findings).
fn fuzz(
    target: &str,
    execs: u64,
    seed: u64,
    mut make: impl FnMut(&mut Rng, &[Value]) -> String,
    exec: impl Fn(&mut Rng, &str) -> Result<(), Finding>,
) -> (u64, Vec<(u64, Finding, String)>) {
    let corpus = seeds();
    let mut rng = Rng::new(seed ^ target.len() as u64);
    let mut findings = Vec::new();
    let started = Instant::now();
    let mut slowest = Duration::ZERO;
    let mut errors = 0u64;
    for n in 0..execs {
        let text = make(&mut rng, &corpus);
        let exec_seed = rng.next();
        let mut r2 = Rng::new(exec_seed);
        let t = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| exec(&mut r2, &text)));
        let took = t.elapsed();
        slowest = slowest.max(took);
        if took > Duration::from_secs(1) {
            // JOINLAB_FUZZ_SLOW_DIR: keep the slow inputs, to look at them.
            if let Ok(dir) = std::env::var("JOINLAB_FUZZ_SLOW_DIR") {
                let path = format!("{dir}/{target}-{exec_seed}.json");
                let _ = std::fs::write(path, &text);
            }
        }
        let finding = match outcome {
            Err(p) => Some(Finding::Panic(
                p.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default(),
            )),
            Ok(Err(f)) => Some(f),
            Ok(Ok(())) if took > SLOW => Some(Finding::Slow(took)),
            Ok(Ok(())) => None,
        };
        if let Some(f) = finding {
            errors += 1;
            // JOINLAB_FUZZ_SLOW_DIR keeps every finding's whole input too.
            if let Ok(dir) = std::env::var("JOINLAB_FUZZ_SLOW_DIR") {
                let path = format!("{dir}/finding-{target}-{exec_seed}.json");
                let _ = std::fs::write(path, &text);
            }
            if findings.len() < 20 {
                let mut t = text.clone();
                t.truncate(2000);
                findings.push((exec_seed, f, t));
            }
        }
        if execs >= 100_000 && n % 100_000 == 0 && n > 0 {
            eprintln!(
                "{target}: {n} executions, {errors} findings, {:.0} s, slowest {:.2} s",
                started.elapsed().as_secs_f64(),
                slowest.as_secs_f64()
            );
        }
    }
    let o: Vec<u64> = OUTCOMES.iter().map(|c| c.load(Ordering::Relaxed)).collect();
    eprintln!(
        "{target}: {execs} executions, seed {seed}, {errors} findings, {:.1} s, slowest execution {:.3} s (both targets so far: {} runs finished; errors: {} JSON, {} setting, {} stream, {} row, {} limit)",
        started.elapsed().as_secs_f64(),
        slowest.as_secs_f64(),
        o[0], o[1], o[2], o[3], o[4], o[5]
    );
    (execs, findings)
}

fn settings() -> (u64, u64) {
    let execs = std::env::var("JOINLAB_FUZZ_EXECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(SMOKE);
    let seed = std::env::var("JOINLAB_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    (execs, seed)
}

fn quiet_panics() {
    // Panics are caught and reported by the harness; the default hook would print each.
    std::panic::set_hook(Box::new(|_| {}));
}

/// Puts the default panic hook back (so the failing assertion prints its findings) and
/// fails with the findings, each with the execution seed that replays it.
fn report(findings: Vec<(u64, Finding, String)>) {
    let _ = std::panic::take_hook();
    assert!(findings.is_empty(), "{findings:#?}");
}

#[test]
#[ignore = "fuzzing: scripts/test.sh runs a smoke run, docs/FUZZING.md the long runs"]
fn scenarios() {
    quiet_panics();
    let (execs, seed) = settings();
    let (_, findings) = fuzz(
        "scenarios",
        execs,
        seed,
        |rng, corpus| {
            let mut sc = rng.pick(corpus).clone();
            for _ in 0..1 + rng.below(2) {
                mutate_tree(rng, &mut sc);
            }
            let text = sc.to_string();
            if rng.chance(10) {
                let mut t = text;
                mutate_text(rng, &mut t);
                t
            } else {
                text
            }
        },
        exec_scenario,
    );
    report(findings);
}

#[test]
#[ignore = "fuzzing: scripts/test.sh runs a smoke run, docs/FUZZING.md the long runs"]
fn fragments() {
    quiet_panics();
    let (execs, seed) = settings();
    let (_, findings) = fuzz(
        "fragments",
        execs,
        seed,
        |rng, corpus| {
            // The compact form a share link carries, of a gallery scenario or a mutated one.
            let mut sc = rng.pick(corpus).clone();
            if rng.chance(2) {
                mutate_tree(rng, &mut sc);
            }
            let mut text = Scenario::from_json(&sc.to_string())
                .map(|s| s.to_compact_json())
                .unwrap_or_else(|_| sc.to_string());
            if !rng.chance(4) {
                for _ in 0..1 + rng.below(2) {
                    mutate_text(rng, &mut text);
                }
            }
            text
        },
        exec_fragment,
    );
    report(findings);
}

/// Replays one execution: `JOINLAB_FUZZ_REPLAY=PATH/TARGET-SEED.json` (the input text, the
/// execution seed in its name).
#[test]
#[ignore = "replays a fuzzing input named by JOINLAB_FUZZ_REPLAY"]
fn replay() {
    let Ok(path) = std::env::var("JOINLAB_FUZZ_REPLAY") else {
        return;
    };
    let text = std::fs::read_to_string(&path).expect("the input");
    let name = std::path::Path::new(&path)
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let (target, seed) = name.rsplit_once('-').expect("TARGET-SEED.json");
    let seed: u64 = seed.parse().expect("the execution seed");
    let mut rng = Rng::new(seed);
    let t = Instant::now();
    let r = if target == "fragments" {
        exec_fragment(&mut rng, &text)
    } else {
        exec_scenario(&mut rng, &text)
    };
    eprintln!(
        "{target} {seed}: {r:?} in {:.3} s",
        t.elapsed().as_secs_f64()
    );
    assert!(r.is_ok());
}
