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
pub mod temporal_gen;
pub mod temporal_sql;

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
/// or those the simulator runs (the schedule of `sim.rs`'s `advance_processing_time`).
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
    let mut now = plan.arrivals.first().map(time_of).unwrap_or(0);
    // Replay every periodic emit (each multiple of the interval) when there are not too many:
    // that does not rely on the simulator's choice of which emits can change anything.
    let last = plan.arrivals.last().map(time_of).unwrap_or(now);
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
    for a in &plan.arrivals {
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

// ---------------------------------------------------------------------------------------------
// Java text helpers shared by both generators.
// ---------------------------------------------------------------------------------------------

/// A Java string literal.
pub(crate) fn jstr(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// Text for a Java comment (no `*/`, no line breaks, no unicode escapes javac would read).
pub(crate) fn comment_text(s: &str) -> String {
    s.replace("*/", "* /")
        .replace("\\u", "\\ u")
        .replace(['\n', '\r'], " ")
}

/// Wraps text to lines of at most `width` characters.
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for w in text.split_whitespace() {
        if !cur.is_empty() && cur.chars().count() + 1 + w.chars().count() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(w);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// The body of a Java text block holding `lines` (each line escaped so that the block's
/// content is exactly the lines, joined by `\n`).
fn text_block(lines: &[String], indent: &str) -> String {
    let mut o = String::from("\"\"\"\n");
    for l in lines {
        o.push_str(indent);
        let mut quotes = 0;
        for c in l.chars() {
            match c {
                '\\' => {
                    o.push_str("\\\\");
                    quotes = 0;
                }
                '"' => {
                    quotes += 1;
                    if quotes == 3 {
                        o.push_str("\\\"");
                        quotes = 0;
                    } else {
                        o.push('"');
                    }
                }
                c if (c as u32) < 0x20 => {
                    let _ = write!(o, "\\u{:04x}", c as u32);
                    quotes = 0;
                }
                c => {
                    o.push(c);
                    quotes = 0;
                }
            }
        }
        o.push('\n');
    }
    o.push_str(indent);
    o.push_str("\"\"\"");
    o
}

/// A Java expression for a long text, as text blocks joined at run time when it would exceed
/// the class-file limit of one string constant.
pub(crate) fn text_expr(lines: &[String], indent: &str) -> String {
    const CHUNK: usize = 40_000;
    let mut chunks: Vec<&[String]> = Vec::new();
    let mut start = 0;
    let mut size = 0;
    for (i, l) in lines.iter().enumerate() {
        if size + l.len() > CHUNK && i > start {
            chunks.push(&lines[start..i]);
            start = i;
            size = 0;
        }
        size += l.len() + 1;
    }
    chunks.push(&lines[start..]);
    if chunks.len() == 1 {
        return text_block(chunks[0], indent);
    }
    let parts: Vec<String> = chunks.iter().map(|c| text_block(c, indent)).collect();
    format!("String.join(\"\", {})", parts.join(", "))
}

/// A value as JSON (how rows are embedded in the job and printed by it).
pub(crate) fn json_value(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Str(s) => serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into()),
        Value::Int(i) => i.to_string(),
        Value::Long(l) => l.to_string(),
        Value::Double(d) => serde_json::to_string(d).unwrap_or_else(|_| "0".into()),
        Value::Bool(b) => b.to_string(),
    }
}

pub(crate) fn type_code(t: ColumnType) -> &'static str {
    match t {
        ColumnType::String => "string",
        ColumnType::Int => "int",
        ColumnType::Long => "long",
        ColumnType::Double => "double",
        ColumnType::Boolean => "boolean",
    }
}

/// `Types.X` for a column type.
pub(crate) fn flink_type(t: ColumnType) -> &'static str {
    match t {
        ColumnType::String => "Types.STRING",
        ColumnType::Int => "Types.INT",
        ColumnType::Long => "Types.LONG",
        ColumnType::Double => "Types.DOUBLE",
        ColumnType::Boolean => "Types.BOOLEAN",
    }
}

/// A Java identifier made from a name (for variables).
pub(crate) fn ident(name: &str, fallback: &str) -> String {
    let mut o = String::new();
    let mut upper = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if upper && !o.is_empty() {
                o.push(c.to_ascii_uppercase());
            } else {
                o.push(c);
            }
            upper = false;
        } else {
            upper = true;
        }
    }
    if o.is_empty()
        || o.starts_with(|c: char| c.is_ascii_digit())
        || JAVA_KEYWORDS.contains(&o.as_str())
    {
        o = format!(
            "{fallback}{}",
            if o.is_empty() {
                String::new()
            } else {
                format!("_{o}")
            }
        );
    }
    if matches!(
        o.as_str(),
        "env" | "args" | "tEnv" | "joined" | "result" | "changes"
    ) {
        o.push('_');
    }
    o
}

const JAVA_KEYWORDS: &[&str] = &[
    "abstract",
    "assert",
    "boolean",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extends",
    "final",
    "finally",
    "float",
    "for",
    "goto",
    "if",
    "implements",
    "import",
    "instanceof",
    "int",
    "interface",
    "long",
    "native",
    "new",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "short",
    "static",
    "strictfp",
    "super",
    "switch",
    "synchronized",
    "this",
    "throw",
    "throws",
    "transient",
    "try",
    "void",
    "volatile",
    "while",
    "true",
    "false",
    "null",
    "var",
    "record",
    "yield",
    "sealed",
    "permits",
];

/// How the pacer observes the operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    One,
    Two,
    Union,
    Chained,
}

impl Shape {
    fn java(self) -> &'static str {
        match self {
            Shape::One => "Rt.ONE",
            Shape::Two => "Rt.TWO",
            Shape::Union => "Rt.UNION",
            Shape::Chained => "Rt.CHAINED",
        }
    }
}

/// Everything the operator-specific generators add to the common skeleton.
pub(crate) struct JobParts {
    /// Extra imports (full lines).
    pub imports: Vec<String>,
    /// What the job does, for the header comment.
    pub summary: Vec<String>,
    pub operator_name: String,
    pub shape: Shape,
    pub output_watermark_delay: i64,
    pub pace_watermarks: bool,
    /// Statements of `main` after the sources (indented 8 spaces).
    pub main: String,
    /// Nested classes (indented 4 spaces).
    pub classes: String,
}

const COMMON_IMPORTS: &[&str] = &[
    "import org.apache.flink.api.common.eventtime.AscendingTimestampsWatermarks;",
    "import org.apache.flink.api.common.eventtime.BoundedOutOfOrdernessWatermarks;",
    "import org.apache.flink.api.common.eventtime.IndexedCombinedWatermarkStatus;",
    "import org.apache.flink.api.common.eventtime.TimestampAssigner;",
    "import org.apache.flink.api.common.eventtime.TimestampAssignerSupplier;",
    "import org.apache.flink.api.common.eventtime.WatermarkGenerator;",
    "import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;",
    "import org.apache.flink.api.common.eventtime.WatermarkOutput;",
    "import org.apache.flink.api.common.eventtime.WatermarkStrategy;",
    "import org.apache.flink.api.common.eventtime.WatermarksWithIdleness;",
    "import org.apache.flink.api.common.functions.Partitioner;",
    "import org.apache.flink.api.common.functions.RichMapFunction;",
    "import org.apache.flink.api.common.functions.RuntimeContext;",
    "import org.apache.flink.api.common.typeinfo.TypeInformation;",
    "import org.apache.flink.api.common.typeinfo.Types;",
    "import org.apache.flink.api.connector.sink2.Sink;",
    "import org.apache.flink.api.connector.sink2.SinkWriter;",
    "import org.apache.flink.api.connector.sink2.WriterInitContext;",
    "import org.apache.flink.api.java.typeutils.RowTypeInfo;",
    "import org.apache.flink.configuration.Configuration;",
    "import org.apache.flink.core.execution.JobClient;",
    "import org.apache.flink.metrics.Counter;",
    "import org.apache.flink.metrics.Gauge;",
    "import org.apache.flink.metrics.Metric;",
    "import org.apache.flink.metrics.MetricConfig;",
    "import org.apache.flink.metrics.MetricGroup;",
    "import org.apache.flink.metrics.reporter.MetricReporter;",
    "import org.apache.flink.metrics.reporter.MetricReporterFactory;",
    "import org.apache.flink.runtime.event.WatermarkEvent;",
    "import org.apache.flink.runtime.jobgraph.JobGraph;",
    "import org.apache.flink.runtime.jobmaster.JobResult;",
    "import org.apache.flink.runtime.minicluster.MiniCluster;",
    "import org.apache.flink.streaming.api.graph.StreamGraph;",
    "import org.apache.flink.streaming.api.datastream.DataStream;",
    "import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;",
    "import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;",
    "import org.apache.flink.streaming.api.operators.AbstractStreamOperator;",
    "import org.apache.flink.streaming.api.operators.OneInputStreamOperator;",
    "import org.apache.flink.streaming.api.watermark.Watermark;",
    "import org.apache.flink.streaming.runtime.io.PushingAsyncDataInput.DataOutput;",
    "import org.apache.flink.streaming.runtime.streamrecord.LatencyMarker;",
    "import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;",
    "import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;",
    "import org.apache.flink.streaming.runtime.watermarkstatus.StatusWatermarkValve;",
    "import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;",
    "import org.apache.flink.types.Row;",
    "import org.apache.flink.types.RowKind;",
    "import org.apache.flink.util.Collector;",
    "import org.apache.flink.util.OutputTag;",
    "import org.apache.flink.util.clock.RelativeClock;",
    "",
    "import java.net.URL;",
    "import java.net.URLClassLoader;",
    "import java.nio.file.Files;",
    "import java.nio.file.Path;",
    "import java.time.Duration;",
    "import java.util.ArrayList;",
    "import java.util.HashMap;",
    "import java.util.List;",
    "import java.util.Map;",
    "import java.util.Properties;",
    "import java.util.concurrent.ConcurrentHashMap;",
    "import java.util.concurrent.ConcurrentLinkedQueue;",
    "import java.util.concurrent.atomic.AtomicLong;",
    "import java.util.concurrent.locks.LockSupport;",
];

/// The line that stands for [`RUNTIME`] in the jobs the wasm module exports: the page's module
/// leaves the 35 KB runtime text out (a fifth of its gzipped size went to rarely used text)
/// and the page puts it back (`web/src/export-runtime.js`, which loads `runtime.java` as a
/// separate, lazily fetched asset). Native builds (the CLI, the conformance suite) embed it.
pub const RUNTIME_MARKER: &str =
    "    // @@JOINLAB_RUNTIME@@ (the Joinlab runtime, class Rt, goes here)\n";

#[cfg(not(target_arch = "wasm32"))]
const RUNTIME: &str = include_str!("runtime.java");
#[cfg(target_arch = "wasm32")]
const RUNTIME: &str = RUNTIME_MARKER;

fn strategy_code(s: Strategy) -> &'static str {
    match s {
        Strategy::Bounded => "bounded",
        Strategy::Monotonous => "monotonous",
        Strategy::Legacy => "legacy",
        Strategy::Punctuated => "punctuated",
        Strategy::None => "none",
    }
}

/// Java for a `Duration` of `ms` milliseconds.
pub(crate) fn duration(ms: i64) -> String {
    format!("Duration.ofMillis({ms})")
}

/// The strategy of stream `si`, as the user would write it in a production job.
fn strategy_java(plan: &Plan, si: usize) -> String {
    let g = &plan.generators[si];
    let base = match g.strategy {
        Strategy::Bounded => format!(
            "WatermarkStrategy.<Row>forBoundedOutOfOrderness({})",
            duration(g.delay)
        ),
        Strategy::Monotonous => "WatermarkStrategy.<Row>forMonotonousTimestamps()".into(),
        Strategy::Legacy => format!(
            "a generator emitting maxTs - {} (the legacy BoundedOutOfOrdernessTimestampExtractor)",
            g.delay
        ),
        Strategy::Punctuated => "a punctuated generator (only the WM rows)".into(),
        Strategy::None => "WatermarkStrategy.<Row>noWatermarks()".into(),
    };
    let mut s = base;
    if let Some(t) = g.idle_timeout {
        let _ = write!(s, ".withIdleness({})", duration(t));
    }
    if g.per_event {
        s.push_str(", emitted after every event");
    }
    if g.interval > 0 {
        let _ = write!(
            s,
            ", periodic every {} ms (pipeline.auto-watermark-interval)",
            g.interval
        );
    }
    s
}

/// The rows of stream `si`, one JSON array per line (a row kind first when not `+I`).
fn row_lines(plan: &Plan, si: usize) -> Vec<String> {
    let side = if si == 0 { Side::Left } else { Side::Right };
    plan.rows
        .iter()
        .filter(|r| r.stream == side)
        .map(|r| {
            let vals: Vec<String> = r.values.iter().map(json_value).collect();
            let kind = if r.kind == crate::parse::RowKind::Insert {
                String::new()
            } else {
                format!("{} ", r.kind.short())
            };
            format!("{kind}[{}]", vals.join(", "))
        })
        .collect()
}

fn event_lines(plan: &Plan, evs: &[Ev]) -> Vec<String> {
    let timed = wall_clock(plan);
    let expect = expected_outputs(plan, evs);
    // The simulated processing time of each stream's rows, for wall-clock pacing.
    let mut arrivals: [Vec<i64>; 2] = [Vec::new(), Vec::new()];
    for r in &plan.rows {
        arrivals[r.stream.index()].push(r.arrival);
    }
    let mut last = 0i64;
    evs.iter()
        .map(|e| {
            let (line, at) = match e {
                Ev::Row(s, a, i) => (
                    format!("R {s} {a} {i}"),
                    arrivals[*s].get(*i).copied().unwrap_or(last),
                ),
                Ev::Wm(s, a, v) => (format!("W {s} {a} {v}"), last),
                Ev::Tick(s, a, t) => (format!("T {s} {a} {t}"), *t),
            };
            last = at;
            if timed {
                format!("{line} @{at}")
            } else {
                line
            }
        })
        .enumerate()
        .map(|(i, line)| match &expect {
            Some(e) => format!("{line} ={}", e[i]),
            None => line,
        })
        .collect()
}

/// For a regular join (whose steps are exactly the pacer's events: no periodic emits), the
/// number of results the engine has emitted after each event. The pacer then waits for them
/// before it releases the next event and tags every printed result with the event that was
/// last released, so the suite can compare the step that emitted each result.
fn expected_outputs(plan: &Plan, evs: &[Ev]) -> Option<Vec<usize>> {
    if plan.operator != OperatorKind::RegularJoin || evs.iter().any(|e| matches!(e, Ev::Tick(..))) {
        return None;
    }
    // The regular join's simulator itself, not `run_plan`: the exporter's wasm module then
    // holds no other operator's simulator.
    let out = crate::sim::simulate::<crate::operators::regular_join::RegularJoin>(
        plan,
        &crate::sim::RunOptions::default(),
    )
    .ok()?;
    let mut per_step = vec![0usize; evs.len()];
    for o in &out.sink.outputs {
        if let Some(c) = per_step.get_mut(o.step()) {
            *c += 1;
        }
    }
    let mut total = 0;
    Some(
        per_step
            .into_iter()
            .map(|c| {
                total += c;
                total
            })
            .collect(),
    )
}

/// Whether the job's result depends on processing time that Flink reads from the wall clock
/// (state TTL of the regular join): the pacer then releases each event at its simulated
/// processing time, in real milliseconds from the first event.
pub(crate) fn wall_clock(plan: &Plan) -> bool {
    plan.operator == OperatorKind::RegularJoin && {
        let s = &plan.scenario.job.settings;
        [s.state_ttl, s.state_ttl_left, s.state_ttl_right]
            .iter()
            .any(|t| t.is_some_and(|m| m.0 > 0))
    }
}

/// The smallest distance allowed between a state TTL and the processing-time gap between two
/// rows of one key when a TTL scenario runs on real Flink: Flink stamps state with the wall
/// clock, and the pacer's timing jitters by a few milliseconds (more under load).
pub const TTL_MARGIN_MS: i64 = 150;

/// The TTL of each side (`STATE_TTL` hint, else `table.exec.state.ttl`), `None` when off.
pub(crate) fn side_ttls(plan: &Plan) -> [Option<i64>; 2] {
    crate::operators::regular_join::side_ttls(plan)
}

/// The rows and events of a scenario as a data file for an exported job's `--data FILE`
/// (the same job then replays this scenario: its settings and schemas must be the same as
/// those of the scenario the job was exported from).
pub fn export_data(scenario: &Scenario) -> Result<String, Error> {
    let plan = plan::build(scenario, Limits::default())?;
    let evs = events(&plan)?;
    let mut o = String::new();
    for si in 0..plan.schemas.len() {
        let _ = writeln!(o, "#stream {si}");
        for l in row_lines(&plan, si) {
            let _ = writeln!(o, "{l}");
        }
    }
    let _ = writeln!(o, "#events");
    for l in event_lines(&plan, &evs) {
        let _ = writeln!(o, "{l}");
    }
    Ok(o)
}

/// Builds the whole Java file from the common skeleton and the operator's parts.
pub(crate) fn assemble(plan: &Plan, class_name: &str, parts: JobParts) -> Result<String, Error> {
    let evs = events(plan)?;
    let sc = &plan.scenario;
    let job = &sc.job;
    let ns = plan.schemas.len();
    let mut o = String::new();
    // ---- header ----
    o.push_str("/*\n");
    let title = if sc.title.trim().is_empty() {
        "Joinlab scenario".to_string()
    } else {
        comment_text(sc.title.trim())
    };
    for l in wrap(&title, 92) {
        let _ = writeln!(o, " * {l}");
    }
    let _ = writeln!(o, " *");
    let _ = writeln!(
        o,
        " * Exported by Joinlab for Apache Flink {FLINK_VERSION} (Java 17)."
    );
    for l in &parts.summary {
        for w in wrap(&comment_text(l), 92) {
            let _ = writeln!(o, " * {w}");
        }
    }
    for (si, s) in plan.schemas.iter().enumerate() {
        let _ = writeln!(
            o,
            " * Watermarks of {}: {}.",
            comment_text(&s.name),
            comment_text(&strategy_java(plan, si))
        );
    }
    let mp = match job.max_parallelism {
        Some(m) => format!("max parallelism {m}"),
        None => format!("Flink's default max parallelism ({})", plan.max_parallelism),
    };
    let _ = writeln!(
        o,
        " * Parallelism {} (assigners and operator), {mp}; hashmap state backend.",
        plan.assigner_parallelism
    );
    if !job.final_watermark {
        let _ = writeln!(
            o,
            " * No final watermark: the job is cancelled once every row has been taken in."
        );
    }
    for line in HEADER_HOWTO.lines() {
        if line.is_empty() {
            let _ = writeln!(o, " *");
        } else {
            let _ = writeln!(o, " * {}", line.replace("JoinlabJob", class_name));
        }
    }
    o.push_str(" */\n\n");
    // ---- imports ----
    let mut imports: Vec<String> = COMMON_IMPORTS.iter().map(|s| s.to_string()).collect();
    let split = imports
        .iter()
        .position(|s| s.is_empty())
        .unwrap_or(imports.len());
    let mut flink: Vec<String> = imports.drain(..split).collect();
    flink.extend(parts.imports.iter().cloned());
    flink.sort();
    flink.dedup();
    for l in flink.iter().chain(imports.iter()) {
        o.push_str(l);
        o.push('\n');
    }
    let _ = writeln!(o, "\npublic class {class_name} {{");
    // ---- the scenario ----
    let _ = writeln!(o, "    // ---- the scenario ----");
    let _ = writeln!(
        o,
        "    static final String TITLE = {};",
        jstr(if sc.title.is_empty() {
            "joinlab scenario"
        } else {
            &sc.title
        })
    );
    let _ = writeln!(
        o,
        "    /** Parallelism of the assigner stage and of the operator. */"
    );
    let _ = writeln!(
        o,
        "    static final int PARALLELISM = {};",
        plan.assigner_parallelism
    );
    let _ = writeln!(
        o,
        "    /** -1: Flink's default ({} here). */",
        plan.max_parallelism
    );
    let _ = writeln!(
        o,
        "    static final int MAX_PARALLELISM = {};",
        job.max_parallelism.map(i64::from).unwrap_or(-1)
    );
    let _ = writeln!(
        o,
        "    static final int OPERATOR_PARALLELISM = {};",
        plan.operator_parallelism
    );
    let _ = writeln!(
        o,
        "    static final boolean FINAL_WATERMARK = {};",
        job.final_watermark
    );
    let _ = writeln!(
        o,
        "    /** The operator the pacer watches (by its metric name). */"
    );
    let _ = writeln!(
        o,
        "    static final String OPERATOR_NAME = {};",
        jstr(&parts.operator_name)
    );
    let _ = writeln!(o, "    static final int SHAPE = {};", parts.shape.java());
    let _ = writeln!(
        o,
        "    /** A pre-shuffle operator chained to the assigners that takes the rows in (its metric name), or \"\". */"
    );
    let _ = writeln!(
        o,
        "    static final String LOCAL_OPERATOR = {};",
        jstr(
            if plan.operator == OperatorKind::WindowTvfAggregate
                && flink_sql_window_agg::two_phase(plan)
            {
                "LocalWindowAggregate"
            } else {
                ""
            }
        )
    );
    let _ = writeln!(
        o,
        "    static final long OUTPUT_WATERMARK_DELAY = {};",
        parts.output_watermark_delay
    );
    let _ = writeln!(
        o,
        "    /** Whether the operator sees the watermarks (the pacer then waits for them too). */"
    );
    let _ = writeln!(
        o,
        "    static final boolean PACE_WATERMARKS = {};",
        parts.pace_watermarks
    );
    let _ = writeln!(
        o,
        "    /** Whether each event waits for its processing time on the wall clock (state TTL). */"
    );
    let _ = writeln!(
        o,
        "    static final boolean PACE_WALL_CLOCK = {};",
        wall_clock(plan)
    );
    let names: Vec<String> = plan.schemas.iter().map(|s| jstr(&s.name)).collect();
    let _ = writeln!(
        o,
        "    static final String[] STREAM_NAMES = {{{}}};",
        names.join(", ")
    );
    let cols: Vec<String> = plan
        .schemas
        .iter()
        .map(|s| {
            format!(
                "{{{}}}",
                s.columns
                    .iter()
                    .map(|c| jstr(&c.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
        .collect();
    let _ = writeln!(
        o,
        "    static final String[][] COLUMN_NAMES = {{{}}};",
        cols.join(", ")
    );
    let types: Vec<String> = plan
        .schemas
        .iter()
        .map(|s| {
            format!(
                "{{{}}}",
                s.columns
                    .iter()
                    .map(|c| jstr(type_code(c.ty)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
        .collect();
    let _ = writeln!(
        o,
        "    static final String[][] COLUMN_TYPES = {{{}}};",
        types.join(", ")
    );
    let tc: Vec<String> = plan
        .schemas
        .iter()
        .map(|s| s.time.map(|t| t as i64).unwrap_or(-1).to_string())
        .collect();
    let _ = writeln!(
        o,
        "    static final int[] TIME_COLUMN = {{{}}};",
        tc.join(", ")
    );
    let gens = &plan.generators;
    let _ = writeln!(
        o,
        "    static final String[] WM_STRATEGY = {{{}}};",
        gens.iter()
            .map(|g| jstr(strategy_code(g.strategy)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        o,
        "    static final long[] WM_DELAY = {{{}}};",
        gens.iter()
            .map(|g| g.delay.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        o,
        "    static final boolean[] WM_PER_EVENT = {{{}}};",
        gens.iter()
            .map(|g| g.per_event.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        o,
        "    static final long[] WM_IDLE_TIMEOUT = {{{}}};",
        gens.iter()
            .map(|g| g.idle_timeout.unwrap_or(0).to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(o, "    /** The rows of each stream, one JSON array per line (a row kind first where not +I). */");
    let _ = writeln!(o, "    static final String[] ROW_TEXT = {{");
    for si in 0..ns {
        let lines = row_lines(plan, si);
        let _ = writeln!(
            o,
            "        {}{}",
            text_expr(&lines, "        "),
            if si + 1 < ns { "," } else { "" }
        );
    }
    let _ = writeln!(o, "    }};");
    let _ = writeln!(o, "    /**");
    let _ = writeln!(o, "     * The events in arrival order: \"R stream subtask row\" (a row of a stream on an assigner subtask),");
    let _ = writeln!(o, "     * \"W stream subtask watermark\" (a WM row), \"T stream subtask time\" (a periodic watermark emit at");
    let _ = writeln!(o, "     * that processing time).");
    let _ = writeln!(o, "     */");
    let ev_lines = event_lines(plan, &evs);
    let _ = writeln!(
        o,
        "    static final String EVENTS = {};",
        text_expr(&ev_lines, "        ")
    );
    o.push('\n');
    // ---- main ----
    let _ = writeln!(
        o,
        "    public static void main(String[] args) throws Exception {{"
    );
    let _ = writeln!(
        o,
        "        StreamExecutionEnvironment env = Rt.environment(args);"
    );
    o.push_str(&parts.main);
    let _ = writeln!(o, "        Rt.execute(env, TITLE);");
    let _ = writeln!(o, "    }}\n");
    o.push_str(&parts.classes);
    o.push('\n');
    o.push_str(RUNTIME);
    o.push_str("}\n");
    Ok(o)
}

const HEADER_HOWTO: &str = "
How it runs: one parallelism-1 source (the pacer) emits the scenario's events in arrival order;
each stream takes its own, partitionCustom sends each row to the assigner subtask the scenario
puts it on, and the assigner runs the scenario's watermark strategy. After each event the pacer
waits until the operator has taken the row in and has processed the watermark it caused (Flink's
numRecordsIn and currentOutputWatermark metrics, read in this JVM), so the interleaving of the
two streams at the operator is exactly the scenario's, on a real multi-threaded Flink. Periodic
watermark emits are replayed at the scenario's simulated processing times. Details: class Rt.

Output: one line per result on stdout: JL|OUT|subtask|kind|timestamp|left|right|window,
JL|WIN|subtask|key|start|end|count|sum|timestamp|firing, JL|LATE|subtask|stream|tag|timestamp|row,
JL|SIDE|subtask|tag|timestamp|row (rows as JSON arrays).

Run: L=<site-packages>/pyflink/lib (pip install apache-flink==2.3.0)
  javac -cp \"$L/*\" JoinlabJob.java
  java --add-opens java.base/java.util=ALL-UNNAMED --add-opens java.base/java.lang=ALL-UNNAMED \\
       -cp \"$L/*:.\" JoinlabJob
For a production job keep the operator part of main() and replace Rt.source(env, i) by your
source with the watermark strategy named above (and a sink instead of Rt.Print).";

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
