//! Export a scenario as a runnable Apache Flink 2.x job (Java source), and the random scenario
//! generator of the conformance suite.
//!
//! [`export`] turns any scenario into one self-contained Java file (`public class JoinlabJob`,
//! a plain `main` that runs on a local MiniCluster or can be submitted to a cluster):
//! - DataStream operators ([`flink_java`]): window join, interval join, window aggregation
//!   (count / sum, allowed lateness, late side output), side-output split;
//! - Flink SQL operators ([`flink_sql`]): a `StreamTableEnvironment`, the streams as tables
//!   (`fromDataStream` with `SOURCE_WATERMARK()`, or `fromChangelogStream`), the SQL query, and
//!   `toChangelogStream` to print the row kinds.
//!
//! Every job reads the scenario's rows in the scenario's arrival order through a *pacer* (one
//! parallelism-1 source that waits after each event until the job has fully taken it in; see
//! the comment on `Rt` in `runtime.java`), so a real, multi-threaded Flink sees exactly the
//! interleaving the simulator models. Outputs are printed as `JL|…` lines that
//! `conformance/compare.py` reads.

pub mod flink_java;
pub mod flink_sql;
pub mod flink_sql_window_agg;
pub mod flink_sql_window_join;
pub mod gen;
pub mod gen_regular;
pub mod gen_window_join;
mod gen_window_tvf_agg;
mod sql_script;
pub use sql_script::ScriptFacts;
use sql_script::READS_SCRIPTS;
pub mod temporal_gen;
pub mod temporal_sql;

mod job;
mod text;
pub(crate) use job::*;
pub use job::{export_data, RUNTIME_MARKER, TTL_MARGIN_MS};
pub(crate) use text::*;

use crate::error::Error;
use crate::parse::Side;
use crate::plan::{self, Arrival, Limits, Plan};
use crate::scenario::{OperatorKind, Scenario, Strategy, TimeKind};
use crate::value::{ColumnType, Value};
use crate::watermark::Assigner;
use std::fmt::Write;

/// Which kind of job to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportKind {
    /// A DataStream API job (window join, interval join, window aggregation, split).
    FlinkJava,
    /// A Table API / SQL job (SQL interval join, regular join).
    FlinkSql,
}

/// The Flink version the exported jobs are written for.
pub const FLINK_VERSION: &str = "2.3.0";

/// The most periodic-emit ticks an export replays (each is one pacer event).
pub const MAX_TICKS: usize = 100_000;

/// Up to this many, every periodic emit is replayed; beyond, only those at which the simulator
/// says something can change (`Assigner::next_interesting_tick`).
pub const EVERY_TICK_LIMIT: usize = 20_000;

/// Exports a scenario as a Java source file with the class name `JoinlabJob`.
pub fn export(scenario: &Scenario, kind: ExportKind) -> Result<String, Error> {
    export_named(scenario, kind, "JoinlabJob")
}

/// Exports a scenario like [`export`], with what the SQL export of a script scenario reads from
/// the script given (the exporter's wasm module has no SQL parser: [`ScriptFacts`]).
pub fn export_with_facts(
    scenario: &Scenario,
    kind: ExportKind,
    facts: Option<&ScriptFacts>,
) -> Result<String, Error> {
    export_impl(scenario, kind, "JoinlabJob", facts)
}

/// Exports a scenario with a chosen class name (the conformance suite compiles many jobs into
/// one class directory).
pub fn export_named(
    scenario: &Scenario,
    kind: ExportKind,
    class_name: &str,
) -> Result<String, Error> {
    export_impl(scenario, kind, class_name, None)
}

fn export_impl(
    scenario: &Scenario,
    kind: ExportKind,
    class_name: &str,
    facts: Option<&ScriptFacts>,
) -> Result<String, Error> {
    if class_name.is_empty()
        || !class_name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
        || class_name.starts_with(|c: char| c.is_ascii_digit())
    {
        return Err(Error::config(
            "class",
            format!("{class_name:?} is not a Java class name"),
        ));
    }
    if scenario.sql.is_empty() && scenario.job.query.is_some() && scenario.job.operator.is_sql() {
        // A query (its projection, its WHERE) without a script of its own, as a document may
        // carry it: the jobs below write their own query without it, so the scenario is
        // exported as the script the SQL printer writes for it, which carries the query. The
        // exporter's wasm module leaves the printer out (the page prints the script with the
        // SQL module and hands the scenario over with it: web/src/export-runtime.js).
        if !READS_SCRIPTS {
            return Err(Error::config(
                "sql",
                "a SQL query without its script: export the scenario with the script the SQL module prints for it (scenario_to_sql)",
            ));
        }
        let (text, at) = crate::sql::print::script_and_query(scenario)?;
        let query = text[at..]
            .trim_end()
            .trim_end_matches(';')
            .trim_end()
            .to_string();
        let mut sc = scenario.clone();
        sc.sql = text;
        let plan = plan::build(&sc, Limits::default())?;
        // The printed script names each PROCTIME() column as the scenario does
        // (`sql::proctime_column`), which is what the job reads without a name given.
        let facts = ScriptFacts {
            query: Some(query),
            proctime: Vec::new(),
        };
        return sql_script::generate(&plan, class_name, Some(&facts));
    }
    let plan = plan::build(scenario, Limits::default())?;
    match (plan.operator.is_sql(), kind) {
        // A scenario read from a SQL script runs the script's own query.
        (true, _) if !scenario.sql.is_empty() => sql_script::generate(&plan, class_name, facts),
        (true, _) if matches!(plan.operator, OperatorKind::TemporalJoin | OperatorKind::LookupJoin) => {
            temporal_sql::generate(&plan, class_name)
        }
        (true, _) if plan.operator == OperatorKind::WindowTvfAggregate => {
            flink_sql_window_agg::generate(&plan, class_name)
        }
        (true, _) if plan.operator == OperatorKind::WindowTvfJoin => {
            flink_sql_window_join::generate(&plan, class_name)
        }
        (true, _) => flink_sql::generate(&plan, class_name),
        (false, ExportKind::FlinkJava) => flink_java::generate(&plan, class_name),
        (false, ExportKind::FlinkSql) => Err(Error::config(
            "job.operator",
            format!("{:?} is a DataStream operator; export it with --flink-java (only the SQL joins have a Flink SQL form)", plan.operator),
        )),
    }
}

/// Why a scenario cannot be checked against Flink deterministically, if it cannot.
pub fn conformance_exclusion(scenario: &Scenario) -> Option<String> {
    let plan = match plan::build(scenario, Limits::default()) {
        Ok(p) => p,
        Err(e) => return Some(format!("does not run: {e}")),
    };
    let job = &plan.scenario.job;
    if plan.operator == OperatorKind::SqlIntervalJoin && job.sql.time == TimeKind::Processing {
        return Some("processing-time interval join: Flink reads the wall clock, so the result depends on timing".into());
    }
    if plan.operator == OperatorKind::SqlIntervalJoin && sql_bounds(&plan).1 < sql_bounds(&plan).0 {
        return Some("empty interval (upper < lower): Flink plans no join operator, only a union of the inputs".into());
    }
    if plan.operator == OperatorKind::WindowJoin && plan.schemas.len() == 2 {
        let kt: Vec<_> = plan
            .schemas
            .iter()
            .map(|s| s.key.map(|k| s.columns[k].ty))
            .collect();
        if kt[0] != kt[1] {
            return Some("the key columns have different Java types; JoinedStreams rejects that at job build time".into());
        }
    }
    if let Err(e) = events(&plan) {
        return Some(e.to_string());
    }
    if wall_clock(&plan) {
        // Every TTL stamp is the arrival of a row of the same key; a later row of that key
        // decides "expired" by `stamp + ttl <= now`. Too close a call depends on timing.
        let ttls = side_ttls(&plan);
        let mut by_key: std::collections::HashMap<u32, Vec<i64>> = Default::default();
        for r in &plan.rows {
            by_key.entry(r.key.0).or_default().push(r.arrival);
        }
        for times in by_key.values() {
            for (i, a) in times.iter().enumerate() {
                for b in &times[i + 1..] {
                    for t in ttls.iter().flatten() {
                        if ((b - a) - t).abs() < TTL_MARGIN_MS {
                            return Some(format!("rows of one key arrive {} ms apart, within {TTL_MARGIN_MS} ms of the state TTL {t} ms: on Flink's wall clock the outcome depends on timing", b - a));
                        }
                    }
                }
            }
        }
    }
    None
}

/// The SQL interval join's `(leftLowerBound, leftUpperBound)` after strict ends
/// (`IntervalJoinUtil`: `>` adds 1 to the lower bound, `<` subtracts 1 from the upper).
pub(crate) fn sql_bounds(plan: &Plan) -> (i64, i64) {
    let s = &plan.scenario.job.sql;
    let lo = s.lower.0 + i64::from(s.lower_strict);
    let hi = s.upper.0 - i64::from(s.upper_strict);
    (lo, hi)
}

/// One pacer event.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ev {
    /// A data row: stream, assigner subtask, index among that stream's rows.
    Row(usize, u32, usize),
    /// A `WM` row: stream, assigner subtask, value.
    Wm(usize, u32, i64),
    /// A periodic emit on one assigner subtask at a simulated processing time.
    Tick(usize, u32, i64),
}

/// The pacer's events: the plan's arrivals in order, with a tick for every periodic emit before
/// each arrival: every multiple of the interval (when there are at most [`EVERY_TICK_LIMIT`]),
/// or those the simulator runs (the schedule of `sim/watermarks.rs`'s `advance_processing_time`).
pub(crate) fn events(plan: &Plan) -> Result<Vec<Ev>, Error> {
    let pa = plan.assigner_parallelism as usize;
    // Index of each row within its stream.
    let mut index = vec![0usize; plan.rows.len()];
    let mut count = [0usize; 2];
    for (i, r) in plan.rows.iter().enumerate() {
        let s = r.stream.index();
        index[i] = count[s];
        count[s] += 1;
    }
    let gens = &plan.generators;
    let mut asg: Vec<Vec<Assigner>> = gens
        .iter()
        .map(|g| (0..pa).map(|_| Assigner::new(g.clone())).collect())
        .collect();
    let time_of = |a: &Arrival| match a {
        Arrival::Row(id) => plan.row(*id).arrival,
        Arrival::Watermark { arrival, .. } => *arrival,
    };
    let mut now = plan.arrivals.first().as_ref().map(time_of).unwrap_or(0);
    // Replay every periodic emit (each multiple of the interval) when there are not too many:
    // that does not rely on the simulator's choice of which emits can change anything.
    let last = plan.arrivals.last().as_ref().map(time_of).unwrap_or(now);
    let span = (last as i128 - now as i128).max(0);
    let full: i128 = gens
        .iter()
        .filter(|g| g.interval > 0)
        .map(|g| span / g.interval as i128 + 1)
        .sum::<i128>()
        * pa as i128;
    let every_tick = full <= EVERY_TICK_LIMIT as i128;
    let mut out = Vec::with_capacity(plan.arrivals.len());
    let mut ticks = 0usize;
    let mut em = Vec::new();
    for ref a in &plan.arrivals {
        let t = time_of(a);
        loop {
            let tick = if every_tick {
                gens.iter()
                    .filter(|g| g.interval > 0)
                    .map(|g| {
                        now.div_euclid(g.interval)
                            .saturating_add(1)
                            .saturating_mul(g.interval)
                    })
                    .min()
            } else {
                asg.iter()
                    .enumerate()
                    .filter(|(si, _)| gens[*si].interval > 0)
                    .flat_map(|(si, v)| {
                        v.iter()
                            .filter_map(move |x| x.next_interesting_tick(now, gens[si].interval))
                    })
                    .min()
            };
            match tick {
                Some(tk) if tk <= t => {
                    now = tk;
                    for (si, v) in asg.iter_mut().enumerate() {
                        let iv = gens[si].interval;
                        if iv > 0 && tk.rem_euclid(iv) == 0 {
                            for (ai, x) in v.iter_mut().enumerate() {
                                em.clear();
                                x.on_periodic(tk, &mut em);
                                out.push(Ev::Tick(si, ai as u32, tk));
                                ticks += 1;
                            }
                        }
                    }
                    if ticks > MAX_TICKS {
                        return Err(Error::Limit {
                            message: format!("more than {MAX_TICKS} periodic watermark emits to replay; use a larger interval or per-event emission"),
                        });
                    }
                }
                _ => break,
            }
        }
        now = now.max(t);
        match a {
            Arrival::Row(id) => {
                let r = plan.row(*id);
                em.clear();
                asg[r.stream.index()][r.assigner as usize].on_event(r.ts, &mut em);
                out.push(Ev::Row(r.stream.index(), r.assigner, index[id.0 as usize]));
            }
            Arrival::Watermark {
                stream,
                assigner,
                value,
                ..
            } => {
                em.clear();
                asg[stream.index()][*assigner as usize].on_punctuation(*value, &mut em);
                out.push(Ev::Wm(stream.index(), *assigner, *value));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gallery() -> Vec<(String, Scenario)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
        let mut out = Vec::new();
        for e in std::fs::read_dir(&dir).expect("scenarios/") {
            let p = e.expect("entry").path();
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            if name.ends_with(".json") && !name.ends_with(".expected.json") {
                let text = std::fs::read_to_string(&p).expect("read");
                out.push((name, Scenario::from_json(&text).expect("scenario")));
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// Decodes a Java text block the way javac does (for the escapes we produce).
    fn decode_text_block(src: &str) -> String {
        let body = src
            .strip_prefix("\"\"\"\n")
            .expect("opening")
            .strip_suffix("\"\"\"")
            .expect("closing");
        let lines: Vec<&str> = body.split('\n').collect();
        let indent = lines
            .iter()
            .map(|l| l.len() - l.trim_start().len())
            .min()
            .unwrap_or(0);
        let joined: String = lines
            .iter()
            .map(|l| &l[indent.min(l.len())..])
            .collect::<Vec<_>>()
            .join("\n");
        let mut out = String::new();
        let mut it = joined.chars().peekable();
        while let Some(c) = it.next() {
            if c == '\\' {
                match it.next() {
                    Some('\\') => out.push('\\'),
                    Some('"') => out.push('"'),
                    Some('u') => {
                        let hex: String = it.by_ref().take(4).collect();
                        out.push(
                            char::from_u32(u32::from_str_radix(&hex, 16).expect("hex"))
                                .expect("char"),
                        );
                    }
                    other => panic!("unexpected escape {other:?}"),
                }
            } else {
                out.push(c);
            }
        }
        out
    }

    #[test]
    fn text_blocks_round_trip() {
        let lines: Vec<String> = vec![
            r#"["a\"b", "c\\d"]"#.into(),
            r#"["""", "x"]"#.into(),
            "[\"\u{1}\"]".into(),
            "[\"日本\"]".into(),
        ];
        let block = text_block(&lines, "        ");
        assert!(
            !block[3..block.len() - 3].contains("\"\"\""),
            "no closing delimiter inside: {block}"
        );
        assert_eq!(decode_text_block(&block), lines.join("\n") + "\n");
        // Empty text.
        assert_eq!(decode_text_block(&text_block(&[], "    ")), "");
    }

    #[test]
    fn java_names() {
        assert_eq!(ident("show_log", "s"), "showLog");
        assert_eq!(ident("class", "stream0"), "stream0_class");
        assert_eq!(ident("1abc", "stream1"), "stream1_1abc");
        assert_eq!(ident("env", "s"), "env_");
        assert_eq!(jstr("a\"b\\c\nd"), r#""a\"b\\c\nd""#);
        assert!(export_named(&Scenario::default(), ExportKind::FlinkJava, "9x").is_err());
    }

    #[test]
    fn every_gallery_scenario_exports() {
        let all = gallery();
        assert!(!all.is_empty());
        for (name, sc) in all {
            let kind = if sc.job.operator.is_sql() {
                ExportKind::FlinkSql
            } else {
                ExportKind::FlinkJava
            };
            let java = export(&sc, kind).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(java.contains("public class JoinlabJob {"), "{name}");
            assert!(java.trim_end().ends_with('}'), "{name}");
            assert!(
                java.contains("static final class Rt"),
                "{name}: the runtime is included"
            );
            assert_eq!(
                java.matches('{').count(),
                java.matches('}').count(),
                "{name}: braces balance"
            );
            // Every arrival of the plan is one event (plus ticks).
            let plan = plan::build(&sc, Limits::default()).expect("plan");
            let evs = events(&plan).expect("events");
            let non_ticks = evs.iter().filter(|e| !matches!(e, Ev::Tick(..))).count();
            assert_eq!(non_ticks, plan.arrivals.len(), "{name}");
            // And the data file replays the same.
            let data = export_data(&sc).expect("data");
            assert_eq!(
                data.lines()
                    .filter(|l| l.starts_with(['R', 'W', 'T']))
                    .count(),
                evs.len(),
                "{name}"
            );
        }
    }

    #[test]
    fn sql_scenario_needs_no_java_flag_but_datastream_refuses_sql() {
        let sc = Scenario::from_json(
            r#"{"job":{"operator":"interval_join","interval":{"lower":-5,"upper":5}},"streams":[
            {"name":"a","columns":["k","t"],"key":"k","time":"t","rows":"1, 5"},
            {"name":"b","columns":["k","t"],"key":"k","time":"t","rows":"1, 6"}]}"#,
        )
        .expect("scenario");
        assert!(export(&sc, ExportKind::FlinkSql).is_err());
        let java = export(&sc, ExportKind::FlinkJava).expect("java");
        assert!(
            java.contains(".intervalJoin(b.keyBy(r -> (Integer) r.getField(0), Types.INT))"),
            "{java}"
        );
        assert!(java.contains(".between(Duration.ofMillis(-5), Duration.ofMillis(5))"));
        assert!(java.contains("static final int SHAPE = Rt.TWO;"));
        assert!(
            java.contains("R 0 0 0\n        R 1 0 0\n"),
            "arrival order by time: a then b"
        );
    }

    #[test]
    fn sql_intervals_and_delay() {
        let sc = Scenario::from_json(r#"{"job":{"operator":"sql_interval_join","sql":{"join":"left","lower":"-10m","upper":"1.5s","upper_strict":true}},"streams":[
            {"name":"show","columns":["id:int","t"],"key":"id","time":"t","rows":"1, 5"},
            {"name":"click","columns":["id:int","t"],"key":"id","time":"t","rows":"1, 6"}]}"#)
        .expect("scenario");
        let java = export(&sc, ExportKind::FlinkSql).expect("sql");
        assert!(java.contains("L.jl_rowtime >= R.jl_rowtime - INTERVAL '10' MINUTE AND L.jl_rowtime < R.jl_rowtime + INTERVAL '1.500' SECOND(1, 3)"), "{java}");
        assert!(java.contains("LEFT JOIN"));
        // max(-leftLowerBound, leftUpperBound) = max(600000, 1499).
        assert!(java.contains("static final long OUTPUT_WATERMARK_DELAY = 600000;"));
        assert!(java.contains("\"rowtime\")"));
        assert!(conformance_exclusion(&sc).is_none());
        let mut p = sc.clone();
        p.job.sql.time = TimeKind::Processing;
        assert!(conformance_exclusion(&p)
            .unwrap_or_default()
            .contains("wall clock"));
    }

    #[test]
    fn periodic_emits_become_ticks_on_the_simulated_clock() {
        // Subtask 1 gets one row at 1 s, then nothing: with a 200 ms interval and idleness 1 s
        // its IdlenessTimer starts at the first quiet emit (1400) and it is idle at the first
        // emit more than 1 s later (2600): both ticks must be replayed on that subtask.
        let sc = Scenario::from_json(r#"{"job":{"operator":"window_aggregate","parallelism":2,
            "watermark":{"per_event":false,"interval":"200ms","idle_timeout":"1s"},"window":{"size":"5s"}},
            "streams":[{"name":"c","columns":["u","ts"],"key":"u","time":"ts","rows":"u1, 1s | s=1\nu1, 2s | s=0\nu2, 3s | s=0"}]}"#)
        .expect("scenario");
        let plan = plan::build(&sc, Limits::default()).expect("plan");
        let evs = events(&plan).expect("events");
        assert!(evs.contains(&Ev::Tick(0, 1, 1400)), "{evs:?}");
        assert!(evs.contains(&Ev::Tick(0, 1, 2600)), "{evs:?}");
        assert_eq!(evs[0], Ev::Row(0, 1, 0));
        // Ticks come before the row that arrives after them.
        let pos = |e: &Ev| evs.iter().position(|x| x == e).unwrap_or(usize::MAX);
        assert!(pos(&Ev::Tick(0, 1, 1400)) < pos(&Ev::Row(0, 0, 1)));
    }

    #[test]
    fn native_exports_embed_the_runtime_where_the_wasm_build_leaves_a_marker() {
        let sc = Scenario::from_json(include_str!("../../../scenarios/window-join-tumbling.json"))
            .expect("scenario");
        let java = export(&sc, ExportKind::FlinkJava).expect("exports");
        assert!(
            java.contains("Joinlab runtime: the pacer"),
            "runtime embedded"
        );
        assert!(!java.contains(RUNTIME_MARKER.trim()), "no marker natively");
        // The page puts the file back in place of the one marker line
        // (web/src/export-runtime.js): the same text only if it is there exactly once.
        assert_eq!(java.matches(RUNTIME).count(), 1);
    }
}
