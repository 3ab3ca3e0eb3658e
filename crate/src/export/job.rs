//! The skeleton every exported job shares: the pacer's shape, the runtime class `Rt`, the
//! rows and events as Java text, the expected outputs, and [`assemble`], which builds the file.

use super::*;

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

pub(crate) const COMMON_IMPORTS: &[&str] = &[
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
pub(crate) const RUNTIME: &str = include_str!("runtime.java");
#[cfg(target_arch = "wasm32")]
pub(crate) const RUNTIME: &str = RUNTIME_MARKER;

pub(crate) fn strategy_code(s: Strategy) -> &'static str {
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
pub(crate) fn strategy_java(plan: &Plan, si: usize) -> String {
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
pub(crate) fn row_lines(plan: &Plan, si: usize) -> Vec<String> {
    let side = if si == 0 { Side::Left } else { Side::Right };
    plan.rows
        .iter()
        .filter(|r| r.stream == side)
        .map(|r| {
            let vals: Vec<String> = plan.row_values(r).iter().map(json_value).collect();
            let kind = if r.kind == crate::parse::RowKind::Insert {
                String::new()
            } else {
                format!("{} ", r.kind.short())
            };
            format!("{kind}[{}]", vals.join(", "))
        })
        .collect()
}

pub(crate) fn event_lines(plan: &Plan, evs: &[Ev]) -> Vec<String> {
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

/// For a regular join, and a script's temporal or lookup join (their steps are exactly the
/// pacer's events: no periodic emits), the number of results the engine has emitted after
/// each event. The pacer then waits for them before it releases the next event and tags every
/// printed result with the event that was last released, so the suite can compare the step
/// that emitted each result.
pub(crate) fn expected_outputs(plan: &Plan, evs: &[Ev]) -> Option<Vec<usize>> {
    if evs.iter().any(|e| matches!(e, Ev::Tick(..))) {
        return None;
    }
    // The operator's simulator itself, not `run_plan`: the exporter's wasm module then holds
    // no other operator's simulator. A script's job prints the step tags (sql_script.rs); the
    // JSON gallery's temporal and lookup jobs print per subtask from a chained sink and do not.
    let opts = crate::sim::RunOptions::default();
    let script = !plan.scenario.sql.is_empty();
    let out = match plan.operator {
        OperatorKind::RegularJoin => {
            crate::sim::simulate::<crate::operators::regular_join::RegularJoin>(plan, &opts)
        }
        OperatorKind::TemporalJoin if script => {
            crate::sim::simulate::<crate::operators::temporal_join::TemporalJoin>(plan, &opts)
        }
        OperatorKind::LookupJoin if script => {
            crate::sim::simulate::<crate::operators::lookup_join::LookupJoin>(plan, &opts)
        }
        _ => return None,
    }
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
    let session_window_join = plan.operator == OperatorKind::WindowTvfJoin
        && job.tvf.kind == crate::scenario::TvfKind::Session;
    let _ = writeln!(
        o,
        "    static final String LOCAL_OPERATOR = {};",
        jstr(
            if plan.operator == OperatorKind::WindowTvfAggregate
                && flink_sql_window_agg::two_phase(plan)
            {
                "LocalWindowAggregate"
            } else if session_window_join {
                "WindowTableFunction"
            } else {
                ""
            }
        )
    );
    // The SESSION window join's TVFs: one per input, each with the join's parallelism (one
    // subtask without a key: Exchange(single)); the pacer waits for their watermarks too.
    let _ = writeln!(
        o,
        "    static final int LOCAL_SUBTASKS = {};",
        if session_window_join {
            2 * plan.operator_parallelism
        } else {
            plan.assigner_parallelism
        }
    );
    let _ = writeln!(
        o,
        "    static final boolean LOCAL_WATERMARKS = {session_window_join};"
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
                    .map(|c| jstr(&type_code(c.ty)))
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

pub(crate) const HEADER_HOWTO: &str = "
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
