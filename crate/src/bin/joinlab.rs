//! `joinlab`: run scenarios from the command line.
//!
//! ```text
//! joinlab run FILE [--json] [--trace] [--max-work N] [--max-memory MB]
//!                                       print outputs, late rows, side outputs, watermarks
//!                                       (FILE.sql: a Flink SQL script, see scenarios/README.md)
//! joinlab sql FILE                      print a scenario as a Flink SQL script
//! joinlab json FILE                     print a scenario (e.g. a script's) as JSON
//! joinlab bless FILE...                 write FILE's expected output beside it (NAME.expected.json)
//! joinlab check FILE...                 compare each scenario with its expected output
//! joinlab export FILE --flink-java|--flink-sql [--class NAME] [--data]   print a runnable Flink job
//!                                       (--data: only its rows and events, for `--data FILE`)
//! joinlab gen --seed S --count N --out DIR   write N random scenarios (conformance suite)
//! ```
//!
//! Every run has the engine's work and memory budgets (`joinlab::budget`; defaults in
//! `joinlab::plan::Limits`): a run past them stops with a message saying what grew and
//! which setting made it grow. `--max-work N` (work units, about 3 ns each) and
//! `--max-memory MB` raise them; `0` means no budget.
//!
//! Output goes through [`out`]: a closed pipe (`joinlab run X --json | head -c 10`) ends the
//! program quietly with exit code 141 (128 + SIGPIPE, what a shell reports for a program
//! killed by a closed pipe) instead of a panic.

use joinlab::plan::Limits;
use joinlab::result::{RowRef, RunResult};
use joinlab::scenario::Scenario;
use joinlab::sim::RunOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage:
  joinlab run FILE [--json] [--trace] [--max-work N] [--max-memory MB]
                                          (FILE.json or a Flink SQL script FILE.sql)
  joinlab sql FILE                        print a scenario as a Flink SQL script
  joinlab json FILE                       print a scenario (e.g. a script's) as JSON
  joinlab bless FILE...
  joinlab check FILE...
  joinlab export FILE --flink-java|--flink-sql [--class NAME]
  joinlab gen --seed S --count N --out DIR

budgets (0: none):
  --max-work N      work units (about 3 ns each), default 1000000000
  --max-memory MB   estimated memory of state, results and trace, default 1024";

/// Why the program stops.
enum Fail {
    /// A message for stderr, exit code 1.
    Msg(String),
    /// stdout was closed by its reader: stop quietly.
    Pipe,
}

impl From<String> for Fail {
    fn from(s: String) -> Fail {
        Fail::Msg(s)
    }
}

impl From<&str> for Fail {
    fn from(s: &str) -> Fail {
        Fail::Msg(s.to_string())
    }
}

/// Writes `text` to stdout; a closed pipe becomes [`Fail::Pipe`].
fn out(text: &str) -> Result<(), Fail> {
    let mut o = std::io::stdout().lock();
    o.write_all(text.as_bytes())
        .and_then(|()| o.flush())
        .map_err(io_fail)
}

fn io_fail(e: std::io::Error) -> Fail {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        Fail::Pipe
    } else {
        Fail::Msg(format!("writing the output: {e}"))
    }
}

/// Writes a line to stderr, ignoring a closed stderr (`eprintln!` would panic).
fn say(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// The value after `--name`, parsed as a whole number.
fn flag_number(args: &[String], name: &str) -> Result<Option<u64>, Fail> {
    let Some(i) = args.iter().position(|a| a == name) else {
        return Ok(None);
    };
    let v = args
        .get(i + 1)
        .ok_or_else(|| Fail::Msg(format!("{name} needs a number")))?;
    let v = v.replace(['_', ','], "");
    v.parse::<u64>()
        .map(Some)
        .map_err(|_| Fail::Msg(format!("{name} needs a whole number, not {v:?}")))
}

/// The budgets of a run from the command line.
fn limits(args: &[String]) -> Result<Limits, Fail> {
    let mut l = Limits::default();
    if let Some(n) = flag_number(args, "--max-work")? {
        l.max_work = if n == 0 { u64::MAX } else { n };
    }
    if let Some(mb) = flag_number(args, "--max-memory")? {
        l.max_memory = if mb == 0 {
            u64::MAX
        } else {
            mb.saturating_mul(1 << 20)
        };
        // The snapshot cap follows the memory budget (about 100 bytes an entry).
        l.max_snapshot_entries = (l.max_memory / 512).max(l.max_snapshot_entries);
    }
    Ok(l)
}

/// Flags that take a value.
const VALUED: [&str; 4] = ["--max-work", "--max-memory", "--class", "--out"];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first() else {
        say(USAGE);
        return ExitCode::from(2);
    };
    let rest = &args[1..];
    let flags: Vec<&str> = rest
        .iter()
        .filter(|a| a.starts_with("--"))
        .map(String::as_str)
        .collect();
    let files: Vec<&str> = rest
        .iter()
        .enumerate()
        .filter(|(i, a)| {
            !a.starts_with("--") && (*i == 0 || !VALUED.contains(&rest[i - 1].as_str()))
        })
        .map(|(_, a)| a.as_str())
        .collect();
    let result = match cmd.as_str() {
        "export" | "gen" => export_cmd(cmd, rest),
        "run" if files.len() == 1 => limits(rest).and_then(|l| {
            run(
                files[0],
                flags.contains(&"--json"),
                flags.contains(&"--trace"),
                l,
            )
        }),
        "sql" if files.len() == 1 => to_sql(files[0]).map_err(Fail::from),
        "json" if files.len() == 1 => load(files[0])
            .map(|sc| println!("{}", sc.to_pretty_json()))
            .map_err(Fail::from),
        "bless" if !files.is_empty() => files.iter().try_for_each(|f| bless(f)),
        "check" if !files.is_empty() => check(&files),
        "help" | "--help" | "-h" => out(&format!("{USAGE}\n")),
        _ => {
            say(USAGE);
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail::Pipe) => ExitCode::from(141),
        Err(Fail::Msg(e)) => {
            say(&format!("joinlab: {e}"));
            ExitCode::FAILURE
        }
    }
}

fn load(file: &str) -> Result<Scenario, String> {
    let bytes = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "{file}: not UTF-8 text: the byte at offset {} is not valid UTF-8",
            e.utf8_error().valid_up_to()
        )
    })?;
    if file.ends_with(".sql") {
        return joinlab::sql::sql_to_scenario(&text)
            .map_err(|e| format!("{file}:{}:{}: {}", e.line, e.column, e.message));
    }
    Scenario::from_json(&text).map_err(|e| format!("{file}: {e}"))
}

/// `joinlab sql FILE`: the scenario as a script (a script file prints as itself).
fn to_sql(file: &str) -> Result<(), String> {
    let sc = load(file)?;
    let text = joinlab::sql::scenario_to_sql(&sc).map_err(|e| format!("{file}: {e}"))?;
    print!("{text}");
    Ok(())
}

fn execute(file: &str, trace: bool, limits: Limits) -> Result<RunResult, String> {
    let sc = load(file)?;
    let opts = RunOptions {
        trace,
        snapshots: trace,
        stop_after: None,
    };
    joinlab::run_limited(&sc, &opts, limits).map_err(|e| format!("{file}: {e}"))
}

/// The path of a scenario's golden file: `NAME.json` → `NAME.expected.json`.
fn expected_path(file: &str) -> PathBuf {
    let p = Path::new(file);
    let stem = p
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    p.with_file_name(format!("{stem}.expected.json"))
}

/// The golden form of a result: pretty JSON, one trailing newline.
fn golden(r: &RunResult) -> String {
    let mut s = serde_json::to_string_pretty(r).unwrap_or_default();
    s.push('\n');
    s
}

fn bless(file: &str) -> Result<(), Fail> {
    if file.ends_with(".expected.json") {
        return Ok(());
    }
    let r = execute(file, false, Limits::default())?;
    let path = expected_path(file);
    std::fs::write(&path, golden(&r)).map_err(|e| format!("{}: {e}", path.display()))?;
    out(&format!("wrote {}\n", path.display()))
}

fn check(files: &[&str]) -> Result<(), Fail> {
    let mut failed = Vec::new();
    let mut passed = 0;
    for f in files.iter().filter(|f| !f.ends_with(".expected.json")) {
        let want = std::fs::read_to_string(expected_path(f))
            .map_err(|e| format!("{}: {e}", expected_path(f).display()))?;
        let got = golden(&execute(f, false, Limits::default())?);
        if got == want {
            passed += 1;
        } else {
            failed.push(f.to_string());
        }
    }
    out(&format!("{passed} passed, {} failed\n", failed.len()))?;
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Fail::Msg(format!(
            "differs from its expected output: {}",
            failed.join(", ")
        )))
    }
}

fn run(file: &str, json: bool, trace: bool, limits: Limits) -> Result<(), Fail> {
    let r = execute(file, trace, limits)?;
    if json {
        // Streamed: a traced result can be large.
        let mut o = std::io::BufWriter::new(std::io::stdout().lock());
        serde_json::to_writer(&mut o, &r).map_err(|e| match e.io_error_kind() {
            Some(k) => io_fail(k.into()),
            None => Fail::Msg(e.to_string()),
        })?;
        return o.write_all(b"\n").and_then(|()| o.flush()).map_err(io_fail);
    }
    out(&render(&r))
}

fn row_text(r: &Option<RowRef>) -> String {
    match r {
        None => "null".into(),
        Some(r) => format!(
            "{}:{} ({})",
            r.stream,
            r.line,
            r.values
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn opt(v: Option<i64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| "-".into())
}

/// A readable report of a result.
fn render(r: &RunResult) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let sql = r.operator.is_sql();
    let _ = writeln!(
        s,
        "{:?}, parallelism {} (max parallelism {})",
        r.operator, r.parallelism, r.max_parallelism
    );
    for w in &r.warnings {
        let _ = writeln!(s, "warning: {w}");
    }
    if !r.outputs.is_empty() || r.windows.is_empty() {
        let _ = writeln!(s, "\noutputs ({}):", r.outputs.len());
        if !r.columns.is_empty() {
            let _ = writeln!(s, "  columns: {}", r.columns.join(", "));
        }
        for o in &r.outputs {
            let kind = if sql {
                format!("{} ", o.kind.short())
            } else {
                String::new()
            };
            let win = o
                .window
                .map(|[a, b]| format!("  window [{a}, {b})"))
                .unwrap_or_default();
            if let Some(v) = &o.values {
                let vals: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                let _ = writeln!(
                    s,
                    "  {kind}[{}]  ts={} subtask={}{win}",
                    vals.join(", "),
                    opt(o.timestamp),
                    o.subtask.0
                );
                continue;
            }
            let _ = writeln!(
                s,
                "  {kind}{}  |  {}  ts={} subtask={}{win}",
                row_text(&o.left),
                row_text(&o.right),
                opt(o.timestamp),
                o.subtask.0
            );
        }
    }
    if !r.windows.is_empty() {
        let _ = writeln!(s, "\nwindows ({}):", r.windows.len());
        for w in &r.windows {
            let sum = w.sum.map(|v| format!(" sum={v}")).unwrap_or_default();
            let fire = if w.firing > 1 {
                format!(" (firing {})", w.firing)
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "  key={} [{}, {}) count={}{sum} ts={} subtask={}{fire}",
                w.key, w.start, w.end, w.count, w.timestamp, w.subtask.0
            );
        }
    }
    let _ = writeln!(s, "\nlate ({}):", r.late.len());
    for l in &r.late {
        let _ = writeln!(s, "  {}  {}", row_text(&Some(l.row.clone())), l.message);
    }
    for (tag, rows) in &r.side_outputs {
        let _ = writeln!(s, "\nside output {tag:?} ({}):", rows.len());
        for x in rows {
            let _ = writeln!(
                s,
                "  {}  ts={} subtask={}",
                row_text(&Some(x.row.clone())),
                opt(x.timestamp),
                x.subtask.0
            );
        }
    }
    let _ = writeln!(s, "\nwatermarks:");
    for w in &r.watermarks {
        let _ = writeln!(s, "  subtask {}: {}", w.subtask.0, w.watermark);
    }
    if let Some(d) = &r.diagnosis {
        let _ = writeln!(s, "\ndiagnosis:");
        for x in &d.symptoms {
            let _ = writeln!(s, "  symptom: {}", x.message);
        }
        for c in &d.causes {
            let step = c.step.map(|i| format!(" (step {i})")).unwrap_or_default();
            let _ = writeln!(s, "  cause: {}{step}", c.message);
            if let Some(f) = &c.fix {
                let set: Vec<String> = f.patch.iter().map(|(k, v)| format!("{k} = {v}")).collect();
                let _ = writeln!(s, "    fix: {} ({})", set.join(", "), f.message);
            }
        }
    }
    if !r.state_empty {
        let _ = writeln!(s, "\nstate left at the end:");
        for st in &r.final_state {
            for e in &st.entries {
                let _ = writeln!(
                    s,
                    "  subtask {} key#{} {}: {} row(s)",
                    st.subtask.0,
                    e.key.0,
                    e.scope,
                    e.rows.len()
                );
            }
            for t in &st.timers {
                let _ = writeln!(
                    s,
                    "  subtask {} timer at {} ({})",
                    st.subtask.0, t.timestamp, t.what
                );
            }
        }
    }
    s
}

/// `export` and `gen` (the conformance suite's commands; see `joinlab::export`).
fn export_cmd(cmd: &str, args: &[String]) -> Result<(), Fail> {
    use joinlab::export::{self, ExportKind};
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    if cmd == "gen" {
        let num = |name: &str| -> Result<u64, String> {
            value(name)
                .ok_or(format!("gen needs {name} N"))?
                .parse()
                .map_err(|_| format!("{name} needs a number"))
        };
        let (seed, count) = (num("--seed")?, num("--count")?);
        let dir = value("--out").ok_or("gen needs --out DIR")?;
        std::fs::create_dir_all(&dir).map_err(|e| format!("{dir}: {e}"))?;
        for i in 0..count as usize {
            let sc = match value("--operator").as_deref() {
                None => export::gen::scenario(seed, i),
                Some("regular_join") => export::gen_regular::scenario(seed, i),
                Some(other) => return Err(format!("gen --operator {other}: no generator").into()),
            };
            let path = Path::new(&dir).join(format!("random-{seed}-{i:04}.json"));
            std::fs::write(&path, sc.to_pretty_json() + "\n")
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
        return out(&format!("wrote {count} scenarios to {dir}\n"));
    }
    let kind = if args.iter().any(|a| a == "--flink-sql") {
        ExportKind::FlinkSql
    } else if args.iter().any(|a| a == "--flink-java") {
        ExportKind::FlinkJava
    } else {
        return Err(Fail::from("export needs --flink-java or --flink-sql"));
    };
    let class = value("--class").unwrap_or_else(|| "JoinlabJob".into());
    let file = args
        .iter()
        .enumerate()
        .find(|(i, a)| !a.starts_with("--") && (*i == 0 || args[i - 1] != "--class"))
        .map(|(_, a)| a.clone())
        .ok_or("export needs a FILE")?;
    let sc = load(&file)?;
    if args.iter().any(|a| a == "--data") {
        return out(&export::export_data(&sc).map_err(|e| format!("{file}: {e}"))?);
    }
    let java = export::export_named(&sc, kind, &class).map_err(|e| format!("{file}: {e}"))?;
    if let Some(why) = export::conformance_exclusion(&sc) {
        say(&format!("excluded from conformance: {why}"));
    }
    out(&java)
}
