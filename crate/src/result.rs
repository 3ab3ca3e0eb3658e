//! The result of a run as one JSON-ready document: what the CLI's `--json` prints, what the
//! golden files hold and what the page draws.

use crate::operators::{LateRow, LateRule, SqlValue, WatermarkOrigin};
use crate::parse::{Column, RowKind, Side};
use crate::partition::{KeyGroup, SubtaskIndex};
use crate::plan::{KeyId, Plan, RowId};
use crate::scenario::{OperatorKind, Strategy};
use crate::sim::RunOutput;
use crate::time::Watermark;
use crate::trace::{Step, SubtaskState};
use crate::value::Value;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A row as it appears in results: which stream and line, and its values.
///
/// The stream name and the values are shared (`Arc`) by every output that refers to the
/// row: a row joins with ~10 others in a typical run, and building the result used to copy
/// both per output (4 allocations per output). Serialized exactly as a `String` and a
/// `Vec<Value>`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RowRef {
    pub id: RowId,
    #[serde(serialize_with = "serialize_str")]
    pub stream: Arc<str>,
    pub line: u32,
    #[serde(serialize_with = "serialize_values")]
    pub values: Arc<[Value]>,
}

fn serialize_str<S: serde::Serializer>(v: &Arc<str>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(v)
}

fn serialize_values<S: serde::Serializer>(v: &Arc<[Value]>, s: S) -> Result<S::Ok, S::Error> {
    v[..].serialize(s)
}

/// Builds each row's [`RowRef`] once and hands out clones (two reference-count increments).
struct RowRefs<'p> {
    plan: &'p Plan,
    streams: Vec<Arc<str>>,
    values: Vec<Option<Arc<[Value]>>>,
}

impl<'p> RowRefs<'p> {
    fn new(plan: &'p Plan) -> RowRefs<'p> {
        RowRefs {
            plan,
            streams: plan
                .schemas
                .iter()
                .map(|s| Arc::from(s.name.as_str()))
                .collect(),
            // Sized on first use: a run without row references (a window aggregation) needs
            // none.
            values: Vec::new(),
        }
    }

    fn get(&mut self, id: RowId) -> RowRef {
        let r = self.plan.row(id);
        if self.values.is_empty() {
            self.values = vec![None; self.plan.rows.len()];
        }
        let values = self.values[id.0 as usize]
            .get_or_insert_with(|| Arc::from(self.plan.row_values(r)))
            .clone();
        RowRef {
            id,
            stream: self.streams[r.stream.index()].clone(),
            line: r.line,
            values,
        }
    }
}

/// Everything about one input row.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RowInfo {
    pub id: RowId,
    pub side: Side,
    pub line: u32,
    pub kind: RowKind,
    pub values: Vec<Value>,
    pub timestamp: Option<i64>,
    pub key: KeyId,
    pub assigner: u32,
    pub subtask: SubtaskIndex,
    pub arrival: i64,
}

impl RowInfo {
    /// The row `id` of the plan, as the traced result lists it.
    pub fn of(plan: &Plan, id: RowId) -> RowInfo {
        let r = plan.row(id);
        RowInfo {
            id,
            side: r.stream,
            line: r.line,
            kind: r.kind,
            values: plan.row_values(r).to_vec(),
            timestamp: r.ts,
            key: r.key,
            assigner: r.assigner,
            subtask: r.subtask,
            arrival: r.arrival,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct StreamInfo {
    pub name: String,
    pub columns: Vec<Column>,
    pub key: Option<String>,
    pub time: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct KeyView {
    pub value: Value,
    pub hash: i32,
    pub key_group: KeyGroup,
    pub subtask: SubtaskIndex,
}

impl KeyView {
    /// The key `id` of the plan: its value, hash, key group and subtask.
    pub fn of(plan: &Plan, id: KeyId) -> KeyView {
        let k = &plan.keys[id.0 as usize];
        KeyView {
            value: k.value.clone(),
            hash: k.hash,
            key_group: k.key_group,
            subtask: k.subtask,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Output {
    pub left: Option<RowRef>,
    pub right: Option<RowRef>,
    pub timestamp: Option<i64>,
    pub kind: RowKind,
    pub subtask: SubtaskIndex,
    pub step: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<[i64; 2]>,
    /// The row's values, in the order of [`RunResult::columns`], for operators that compute
    /// their own rows (SQL aggregations, projections); absent when the output is made of
    /// input rows (`left` / `right`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "ts",
        ts(optional, type = "Array<number | string | boolean | null>")
    )]
    pub values: Option<Vec<SqlValue>>,
    /// The input rows (`stream:line`) the values were computed from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<Vec<String>>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Late {
    pub stream: String,
    pub row: RowRef,
    pub timestamp: Option<i64>,
    pub subtask: SubtaskIndex,
    pub step: usize,
    pub watermark: Watermark,
    pub reason: LateRule,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
    pub side_output: Option<String>,
    /// The reason in words.
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Origin {
    pub stream: String,
    pub assigner: u32,
    pub max_ts: Option<i64>,
    pub from_line: Option<u32>,
    pub end_of_input: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SideOut {
    pub row: RowRef,
    pub timestamp: Option<i64>,
    pub subtask: SubtaskIndex,
    pub step: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct WindowOut {
    pub key: Value,
    pub start: i64,
    pub end: i64,
    pub count: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sum: Option<f64>,
    pub timestamp: i64,
    pub subtask: SubtaskIndex,
    pub step: usize,
    pub firing: u32,
    /// Lines of the rows in the window at this firing.
    pub lines: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SubtaskWatermark {
    pub subtask: SubtaskIndex,
    pub watermark: Watermark,
}

/// The job's settings resolved to milliseconds, every field present (the scenario document
/// leaves defaults out and may use human time forms).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Settings {
    pub window: WindowSettings,
    pub interval: IntervalSettings,
    pub sql: SqlSettings,
    pub allowed_lateness: i64,
    /// Per stream.
    pub watermarks: Vec<WatermarkSettings>,
    pub final_watermark: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct WindowSettings {
    pub kind: crate::scenario::WindowKind,
    pub size: i64,
    pub slide: i64,
    pub gap: i64,
    pub offset: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct IntervalSettings {
    pub lower: i64,
    pub upper: i64,
    pub lower_exclusive: bool,
    pub upper_exclusive: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SqlSettings {
    pub join: crate::scenario::JoinType,
    pub lower: i64,
    pub upper: i64,
    pub lower_strict: bool,
    pub upper_strict: bool,
    pub time: crate::scenario::TimeKind,
    pub min_cleanup: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct WatermarkSettings {
    pub strategy: Strategy,
    pub delay: i64,
    pub per_event: bool,
    pub interval: i64,
    pub idle_timeout: Option<i64>,
}

impl Settings {
    fn of(plan: &Plan) -> Settings {
        let job = &plan.scenario.job;
        let w = &job.window;
        Settings {
            window: WindowSettings {
                kind: w.kind,
                size: w.size.0,
                slide: w.slide.map(|s| s.0).unwrap_or(w.size.0),
                gap: w.gap.map(|g| g.0).unwrap_or(0),
                offset: w.offset.0,
            },
            interval: IntervalSettings {
                lower: job.interval.lower.0,
                upper: job.interval.upper.0,
                lower_exclusive: job.interval.lower_exclusive,
                upper_exclusive: job.interval.upper_exclusive,
            },
            sql: SqlSettings {
                join: job.sql.join,
                lower: job.sql.lower.0,
                upper: job.sql.upper.0,
                lower_strict: job.sql.lower_strict,
                upper_strict: job.sql.upper_strict,
                time: job.sql.time,
                min_cleanup: job.sql.min_cleanup.0,
            },
            allowed_lateness: job.allowed_lateness.0,
            watermarks: plan
                .generators
                .iter()
                .map(|g| WatermarkSettings {
                    strategy: g.strategy,
                    delay: g.delay,
                    per_event: g.per_event,
                    interval: g.interval,
                    idle_timeout: g.idle_timeout,
                })
                .collect(),
            final_watermark: job.final_watermark,
        }
    }
}

/// The whole result of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RunResult {
    pub operator: OperatorKind,
    /// The settings in milliseconds.
    pub settings: Settings,
    pub parallelism: u32,
    pub operator_parallelism: u32,
    pub max_parallelism: u32,
    pub streams: Vec<StreamInfo>,
    /// The output column names, as Flink names them, of each output's `values`: the query's
    /// projection (SQL scripts: `job.query`) or the columns of an operator that computes its
    /// rows (the SQL window aggregation); empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub columns: Vec<String>,
    /// The scale of each of `columns` that holds `DECIMAL` values (`null` for the others);
    /// empty when none does. The CLI writes a decimal as a JSON number with Flink's text
    /// (`1.50`), which `JSON.parse` reads as `1.5`: a reader prints it back with this scale
    /// (the page's module writes the text as a string instead; `value::serialize_decimal`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub column_scales: Vec<Option<u8>>,
    /// The outputs in emission order: a slice of [`Output`] to code that reads them, kept as
    /// the simulator's compact rows and written as JSON from those ([`crate::outputs`]).
    #[cfg_attr(feature = "ts", ts(as = "Vec<Output>"))]
    pub outputs: crate::outputs::Outputs,
    pub late: Vec<Late>,
    pub side_outputs: BTreeMap<String, Vec<SideOut>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub windows: Vec<WindowOut>,
    /// Final watermark of each operator subtask.
    pub watermarks: Vec<SubtaskWatermark>,
    /// Final forwarded watermark of each assigner subtask, per stream.
    pub assigner_watermarks: Vec<Vec<Watermark>>,
    /// Whether all operator state and timers were empty at the end.
    pub state_empty: bool,
    /// The state left at the end (non-empty when the final watermark is off).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub final_state: Vec<SubtaskState>,
    pub steps: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Why there is no (or too little) output, when something looks wrong
    /// ([`crate::diagnosis`]); absent when nothing does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnosis: Option<crate::diagnosis::Diagnosis>,
    /// The input rows, indexed by row id (trace events refer to them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<Vec<RowInfo>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keys: Option<Vec<KeyView>>,
    /// The versions of a temporal join's versioned table or a lookup join's dimension table
    /// with their validity intervals (the timeline).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub versions: Vec<crate::versions::VersionSpan>,
    /// What happened to every row, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdicts: Option<Vec<crate::verdict::Verdict>>,
    /// SQL window join: the windows the TVF gives each row (indexed by row id, in the order
    /// Flink's assigner returns them), for the timeline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tvf_windows: Option<Vec<Vec<[i64; 2]>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<Vec<Step>>,
}

fn operator_name(op: OperatorKind) -> &'static str {
    match op {
        OperatorKind::WindowJoin => "window-join",
        OperatorKind::IntervalJoin => "interval-join",
        OperatorKind::WindowAggregate => "window",
        OperatorKind::SqlIntervalJoin => "SQL interval-join",
        OperatorKind::RegularJoin => "join",
        OperatorKind::Split => "process",
        OperatorKind::WindowTvfAggregate => "WindowAggregate",
        OperatorKind::WindowTvfJoin => "WindowJoin",
        OperatorKind::TemporalJoin => "TemporalJoin",
        OperatorKind::LookupJoin => "LookupJoin",
    }
}

impl RunResult {
    /// Builds the result; `detail` adds the rows, keys and trace.
    pub fn build(plan: &Plan, out: RunOutput, detail: bool) -> RunResult {
        let (mut result, row_windows, step_map) = RunResult::build_lean(plan, out, detail);
        result.outputs.copy_values(plan);
        if crate::SQL_OPERATORS {
            crate::sql::eval::project(plan, &mut result, &row_windows, &step_map);
            crate::sql::eval::decimal_scales(&mut result);
        }
        result
    }

    /// Builds the result like [`RunResult::build`] from a plan that is not needed afterwards:
    /// the outputs keep the rows' values moved out of it instead of copies (the plan's rows
    /// are the largest part of a run's memory after its outputs).
    pub fn build_owned(mut plan: Plan, out: RunOutput, detail: bool) -> RunResult {
        let (mut result, row_windows, step_map) = RunResult::build_lean(&plan, out, detail);
        if crate::SQL_OPERATORS && plan.scenario.job.query.is_some() {
            // The projection reads the outputs' rows: it needs the values where they are.
            result.outputs.copy_values(&plan);
            crate::sql::eval::project(&plan, &mut result, &row_windows, &step_map);
        } else if result.outputs.needs_values() {
            let at = plan.rows.iter().map(|r| r.values).collect();
            result
                .outputs
                .give_values(std::mem::take(&mut plan.values), at);
        }
        if crate::SQL_OPERATORS {
            crate::sql::eval::decimal_scales(&mut result);
        }
        result
    }

    /// The result without the outputs' row values (given by the caller) and without the
    /// SQL query's projection; with each row's own window where a SESSION window TVF gave
    /// it one (the projection's `window_start`/`window_end` of a SESSION window join).
    fn build_lean(
        plan: &Plan,
        mut out: RunOutput,
        detail: bool,
    ) -> (RunResult, Vec<Option<[i64; 2]>>, crate::sim::StepMap) {
        let diagnosis = crate::diagnosis::diagnose(plan, &out);
        let verdicts = detail.then(|| {
            let left: Vec<RowId> = out
                .final_state
                .iter()
                .flat_map(|s| s.entries.iter().flat_map(|e| e.rows.iter().copied()))
                .collect();
            crate::verdict::verdicts(plan, &out.sink, &left)
        });
        let mut refs = RowRefs::new(plan);
        let mut row_ref = |id: RowId| refs.get(id);
        // Moved, not copied: the result keeps the simulator's compact outputs.
        let outputs = crate::outputs::Outputs::new(
            plan,
            std::mem::take(&mut out.sink.outputs),
            std::mem::take(&mut out.sink.output_windows),
            std::mem::take(&mut out.sink.output_values),
        );
        let late = out
            .sink
            .late
            .iter()
            .map(|l| {
                let r = plan.row(l.row);
                let origin = l.origin.as_ref().map(|o| origin_view(plan, o));
                let message = late_text(plan, l);
                Late {
                    stream: plan.stream_name(r.stream).to_string(),
                    row: row_ref(l.row),
                    timestamp: r.ts,
                    subtask: l.subtask,
                    step: l.step,
                    watermark: l.watermark,
                    reason: l.reason.clone(),
                    origin,
                    side_output: l.side_output.clone(),
                    message,
                }
            })
            .collect();
        let mut side_outputs = BTreeMap::new();
        for (tag, rows) in &out.sink.side_outputs {
            side_outputs.insert(
                tag.clone(),
                rows.iter()
                    .map(|s| SideOut {
                        row: row_ref(s.row),
                        timestamp: s.timestamp,
                        subtask: s.subtask,
                        step: s.step,
                    })
                    .collect(),
            );
        }
        let windows = out
            .sink
            .windows
            .iter()
            .map(|w| WindowOut {
                key: plan.keys[w.key.0 as usize].value.clone(),
                start: w.start,
                end: w.end,
                count: w.count,
                sum: w.sum,
                timestamp: w.timestamp,
                subtask: w.subtask,
                step: w.step,
                firing: w.firing,
                lines: w.rows.iter().map(|id| plan.row(*id).line).collect(),
            })
            .collect();
        let streams = plan
            .schemas
            .iter()
            .map(|s| StreamInfo {
                name: s.name.clone(),
                columns: s.columns.clone(),
                key: s.key.map(|k| s.columns[k].name.clone()),
                time: s.time.map(|t| s.columns[t].name.clone()),
            })
            .collect();
        let final_state = if out.state_empty {
            Vec::new()
        } else {
            out.final_state
                .into_iter()
                .filter(|s| !s.entries.is_empty() || !s.timers.is_empty())
                .collect()
        };
        let sink_session_windows = std::mem::take(&mut out.sink.session_windows);
        let result = RunResult {
            operator: plan.operator,
            settings: Settings::of(plan),
            parallelism: plan.assigner_parallelism,
            operator_parallelism: plan.operator_parallelism,
            max_parallelism: plan.max_parallelism,
            streams,
            columns: match plan.operator {
                OperatorKind::WindowTvfAggregate if crate::SQL_OPERATORS => {
                    crate::operators::window_tvf_aggregate::columns(plan)
                }
                _ => Vec::new(),
            },
            column_scales: Vec::new(),
            outputs,
            late,
            side_outputs,
            windows,
            watermarks: out
                .watermarks
                .iter()
                .enumerate()
                .map(|(i, w)| SubtaskWatermark {
                    subtask: SubtaskIndex(i as u32),
                    watermark: *w,
                })
                .collect(),
            assigner_watermarks: out.assigner_watermarks,
            state_empty: out.state_empty,
            final_state,
            steps: out.step_count,
            warnings: plan
                .warnings
                .iter()
                .cloned()
                .chain(out.snapshots_cut.map(|step| format!("the trace has state snapshots up to step {step} only (it would grow past {} entries); the state at a later step is computed when asked for", plan.limits.max_snapshot_entries)))
                .collect(),
            diagnosis,
            rows: detail.then(|| {
                (0..plan.rows.len())
                    .map(|i| RowInfo::of(plan, RowId(i as u32)))
                    .collect()
            }),
            keys: detail.then(|| {
                (0..plan.keys.len())
                    .map(|k| KeyView::of(plan, KeyId(k as u32)))
                    .collect()
            }),
            versions: if crate::SQL_OPERATORS {
                crate::versions::spans(plan)
            } else {
                Vec::new()
            },
            verdicts,
            tvf_windows: (detail && crate::SQL_OPERATORS && plan.operator == OperatorKind::WindowTvfJoin)
                .then(|| {
                    if plan.scenario.job.tvf.kind == crate::scenario::TvfKind::Session {
                        // The session each row was emitted with (none: dropped or still held).
                        let mut w: Vec<Vec<[i64; 2]>> = vec![Vec::new(); plan.rows.len()];
                        for &(r, (s, e)) in sink_session_windows.iter() {
                            if let Some(v) = w.get_mut(r.0 as usize) {
                                v.push([s, e]);
                            }
                        }
                        return Some(w);
                    }
                    crate::tvf::Tvf::of(&plan.scenario.job.tvf, "job.tvf")
                        .ok()
                        .map(|t| {
                            plan.rows
                                .iter()
                                .map(|r| {
                                    r.ts.map(|ts| {
                                        t.assign(ts).into_iter().map(|(s, e)| [s, e]).collect()
                                    })
                                    .unwrap_or_default()
                                })
                                .collect()
                        })
                })
                .flatten(),
            trace: detail.then_some(out.steps),
        };
        let step_map = out.step_map;
        let mut row_windows = Vec::new();
        if crate::SQL_OPERATORS && !sink_session_windows.is_empty() {
            row_windows = vec![None; plan.rows.len()];
            for &(r, (s, e)) in &sink_session_windows {
                if let Some(w) = row_windows.get_mut(r.0 as usize) {
                    *w = Some([s, e]);
                }
            }
        }
        (result, row_windows, step_map)
    }
}

fn origin_view(plan: &Plan, o: &WatermarkOrigin) -> Origin {
    Origin {
        stream: plan.stream_name(o.stream).to_string(),
        assigner: o.assigner,
        max_ts: o.max_ts,
        from_line: o.from_row.map(|id| plan.row(id).line),
        end_of_input: o.end_of_input,
    }
}

/// A late row's reason in words: "ts 7 < watermark 8 of interval-join subtask 0; that
/// watermark came from emp subtask 0 (max ts 9 − 0 − 1, line 1); dropped".
pub fn late_text(plan: &Plan, l: &LateRow) -> String {
    let origin = l.origin.as_ref().map(|o| origin_view(plan, o));
    late_message(
        plan,
        plan.row(l.row).ts,
        l.subtask,
        l.watermark,
        &l.reason,
        origin.as_ref(),
        l.side_output.as_deref(),
    )
}

fn late_message(
    plan: &Plan,
    ts: Option<i64>,
    subtask: SubtaskIndex,
    wm: Watermark,
    rule: &LateRule,
    origin: Option<&Origin>,
    tag: Option<&str>,
) -> String {
    let ts = ts.map(|t| t.to_string()).unwrap_or_else(|| "?".into());
    let op = operator_name(plan.operator);
    let mut m = match rule {
        LateRule::IntervalJoin => format!("ts {ts} < watermark {wm} of {op} subtask {}", subtask.0),
        LateRule::WindowTvf {
            window,
            progress,
            local,
            grouping_set,
            ..
        } => format!(
            "{}window [{}, {}) already fired at watermark {} of {} subtask {}{}",
            grouping_set
                .as_ref()
                .map(|g| format!("its copy for grouping set {g}: "))
                .unwrap_or_default(),
            crate::time::format_datetime(window.0),
            crate::time::format_datetime(window.1),
            crate::time::format_datetime(*progress),
            if *local { "GlobalWindowAggregate" } else { op },
            subtask.0,
            if *local {
                " when the LocalWindowAggregate sent the row on (at its next slice boundary)"
            } else {
                ""
            }
        ),
        LateRule::Window {
            allowed_lateness,
            windows,
        } => {
            let ws: Vec<String> = windows.iter().map(|(s, e)| format!("[{s}, {e})")).collect();
            let which = if ws.len() == 1 {
                format!("its window {}", ws[0])
            } else {
                format!("all its windows {}", ws.join(" "))
            };
            if *allowed_lateness > 0 {
                format!("ts {ts} + allowed lateness {allowed_lateness} <= watermark {wm} of {op} subtask {}, and {which} already closed", subtask.0)
            } else {
                format!(
                    "ts {ts} <= watermark {wm} of {op} subtask {}, and {which} already closed",
                    subtask.0
                )
            }
        }
        LateRule::WindowTvfJoin { window: (s, e) } => format!(
            "window [{s}, {e}) already fired: window_end − 1 = {} <= watermark {wm} of {op} subtask {} (the row's copy for this window is dropped)",
            e.saturating_sub(1),
            subtask.0
        ),
        LateRule::SessionTvf { window: (s, e), .. } => format!(
            "its session window [{s}, {e}) (ts + gap) touches no open session and had already ended: {} <= watermark {wm} of its input's SESSION window TVF, subtask {} (dropped by the TVF before the join, counted in its numLateRecordsDropped)",
            e.saturating_sub(1),
            subtask.0
        ),
    };
    if let Some(o) = origin {
        m.push_str(&format!(
            "; that watermark came from {} subtask {}",
            o.stream, o.assigner
        ));
        if let (Some(max), Some(side)) = (
            o.max_ts,
            plan.schemas.iter().position(|s| s.name == o.stream),
        ) {
            let g = &plan.generators[side];
            let formula = match g.strategy {
                Strategy::Bounded | Strategy::Monotonous => {
                    format!("max ts {max} − {} − 1", g.delay)
                }
                Strategy::Legacy => format!("max ts {max} − {}", g.delay),
                _ => format!("max ts {max}"),
            };
            match o.from_line {
                Some(l) => m.push_str(&format!(" ({formula}, line {l})")),
                None => m.push_str(&format!(" ({formula})")),
            }
        }
    }
    match tag {
        Some(t) => m.push_str(&format!("; sent to side output {t:?}")),
        None => m.push_str("; dropped"),
    }
    m
}

/// `+I[a,1000|b,1500]`: an SQL result row as its kind and the values of its left and right
/// rows (`null` for a padded side), for the operators' tests.
#[cfg(test)]
pub(crate) fn sql_change_text(o: &Output) -> String {
    let side = |r: &Option<RowRef>| match r {
        Some(r) => r
            .values
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(","),
        None => "null".to_string(),
    };
    assert_eq!(o.timestamp, None, "SQL results carry no timestamp");
    format!("{}[{}|{}]", o.kind.short(), side(&o.left), side(&o.right))
}
