//! `joinlab`: run scenarios from the command line.
//!
//! ```text
//! joinlab run FILE [--json] [--trace]   print outputs, late rows, side outputs, watermarks
//!                                       (FILE.sql: a Flink SQL script, see scenarios/README.md)
//! joinlab sql FILE                      print a scenario as a Flink SQL script
//! joinlab json FILE                     print a scenario (e.g. a script's) as JSON
//! joinlab bless FILE...                 write FILE's expected output beside it (NAME.expected.json)
//! joinlab check FILE...                 compare each scenario with its expected output
//! joinlab export FILE --flink-java|--flink-sql [--class NAME] [--data]   print a runnable Flink job
//!                                       (--data: only its rows and events, for `--data FILE`)
//! joinlab gen --seed S --count N --out DIR   write N random scenarios (conformance suite)
//! ```

use joinlab::result::{RowRef, RunResult};
use joinlab::scenario::Scenario;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage:
  joinlab run FILE [--json] [--trace]     (FILE.json or a Flink SQL script FILE.sql)
  joinlab sql FILE                        print a scenario as a Flink SQL script
  joinlab json FILE                       print a scenario (e.g. a script's) as JSON
  joinlab bless FILE...
  joinlab check FILE...
  joinlab export FILE --flink-java|--flink-sql [--class NAME]
  joinlab gen --seed S --count N --out DIR";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let flags: Vec<&str> = args[1..]
        .iter()
        .filter(|a| a.starts_with("--"))
        .map(String::as_str)
        .collect();
    let files: Vec<&str> = args[1..]
        .iter()
        .filter(|a| !a.starts_with("--"))
        .map(String::as_str)
        .collect();
    let result = match cmd.as_str() {
        "export" | "gen" => export_cmd(cmd, &args[1..]),
        "run" if files.len() == 1 => run(
            files[0],
            flags.contains(&"--json"),
            flags.contains(&"--trace"),
        ),
        "sql" if files.len() == 1 => to_sql(files[0]),
        "json" if files.len() == 1 => load(files[0]).map(|sc| println!("{}", sc.to_pretty_json())),
        "bless" if !files.is_empty() => files.iter().try_for_each(|f| bless(f)),
        "check" if !files.is_empty() => check(&files),
        "help" | "--help" | "-h" => {
            println!("{USAGE}");
            Ok(())
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("joinlab: {e}");
            ExitCode::FAILURE
        }
    }
}

fn load(file: &str) -> Result<Scenario, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
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

fn execute(file: &str, trace: bool) -> Result<RunResult, String> {
    let sc = load(file)?;
    joinlab::run(&sc, trace).map_err(|e| format!("{file}: {e}"))
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

fn bless(file: &str) -> Result<(), String> {
    if file.ends_with(".expected.json") {
        return Ok(());
    }
    let r = execute(file, false)?;
    let path = expected_path(file);
    std::fs::write(&path, golden(&r)).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(())
}

fn check(files: &[&str]) -> Result<(), String> {
    let mut failed = Vec::new();
    let mut passed = 0;
    for f in files.iter().filter(|f| !f.ends_with(".expected.json")) {
        let want = std::fs::read_to_string(expected_path(f))
            .map_err(|e| format!("{}: {e}", expected_path(f).display()))?;
        let got = golden(&execute(f, false)?);
        if got == want {
            passed += 1;
        } else {
            failed.push(f.to_string());
        }
    }
    println!("{passed} passed, {} failed", failed.len());
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "differs from its expected output: {}",
            failed.join(", ")
        ))
    }
}

fn run(file: &str, json: bool, trace: bool) -> Result<(), String> {
    let r = execute(file, trace)?;
    if json {
        println!("{}", serde_json::to_string(&r).map_err(|e| e.to_string())?);
        return Ok(());
    }
    print!("{}", render(&r));
    Ok(())
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
fn export_cmd(cmd: &str, args: &[String]) -> Result<(), String> {
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
            let sc = export::gen::scenario(seed, i);
            let path = Path::new(&dir).join(format!("random-{seed}-{i:04}.json"));
            std::fs::write(&path, sc.to_pretty_json() + "\n")
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
        println!("wrote {count} scenarios to {dir}");
        return Ok(());
    }
    let kind = if args.iter().any(|a| a == "--flink-sql") {
        ExportKind::FlinkSql
    } else if args.iter().any(|a| a == "--flink-java") {
        ExportKind::FlinkJava
    } else {
        return Err("export needs --flink-java or --flink-sql".into());
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
        print!(
            "{}",
            export::export_data(&sc).map_err(|e| format!("{file}: {e}"))?
        );
        return Ok(());
    }
    let java = export::export_named(&sc, kind, &class).map_err(|e| format!("{file}: {e}"))?;
    if let Some(why) = export::conformance_exclusion(&sc) {
        eprintln!("excluded from conformance: {why}");
    }
    print!("{java}");
    Ok(())
}
