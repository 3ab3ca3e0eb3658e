//! "Why is there no output?": when a run ends with no results, with rows still waiting in
//! state, with rows dropped as late, or with results that only the end-of-input watermark
//! released, the engine names each cause, in words and as data, with its evidence, the step
//! and panel that show it and the one setting that would change it.
//!
//! Computed from the plan and the run's output only (no second run, no trace), so the lean
//! result carries it too. Every rule costs O(parallelism) or a scan of the few results of the
//! end-of-input step unless its symptom is there: the key and bound rules (a scan of the rows)
//! run only when no row joined at all, the late rule only over the late rows.
//!
//! The rules are general per operator: the watermark rules (an idle assigner subtask, a
//! lagging input, a stream without watermarks, the final watermark switched off, late rows)
//! hold for every operator, including ones added later; the key rule for every two-input
//! keyed operator; the bound rules for the operators whose pairing predicate they know
//! (DataStream interval join, event-time SQL interval join, tumbling/sliding/session window
//! join).

use crate::operators::{LateRule, WatermarkOrigin};
use crate::parse::Side;
use crate::plan::{Arrival, KeyId, Plan, RowId};
use crate::result::late_text;
use crate::scenario::{OperatorKind, Strategy, TimeKind, WindowKind};
use crate::sim::{BeforeEnd, RunOutput};
use crate::time::Watermark;
use crate::value::Value;
use serde::Serialize;
use std::collections::BTreeMap;

mod held;
mod late;
mod pairing;
#[cfg(test)]
mod tests;

use held::{held_back, no_final_watermark};
use late::late_rows;
use pairing::pairing;

/// The diagnosis of a run: what looks wrong, and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Diagnosis {
    /// What looks wrong at the end of the run.
    pub symptoms: Vec<Symptom>,
    /// The causes found, each with its evidence and its fix.
    pub causes: Vec<Finding>,
}

/// Something that looks wrong at the end of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Symptom {
    pub kind: SymptomKind,
    /// The symptom in words.
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum SymptomKind {
    /// Rows came in, no result came out.
    NoOutput,
    /// Rows or event-time timers are still waiting in operator state at the end.
    StateLeft,
    /// Rows were dropped as late (or sent to a late side output).
    LateRows,
    /// Results that a held-back watermark kept until the end-of-input watermark.
    ReleasedAtEnd,
}

/// Which cause a [`Finding`] names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum CauseKind {
    /// A stream has no rows.
    EmptyInput,
    /// An assigner subtask that received no row (or stopped receiving rows) holds the
    /// operator's minimum watermark back (`StatusWatermarkValve`); idleness would release it.
    IdleAssigner,
    /// One input's watermark lags the other's (two-input operators take the minimum).
    LaggingInput,
    /// A stream's strategy never emits a watermark before the end of input.
    NoWatermarks,
    /// Windows, buffers or timers wait for a watermark that, with the final watermark off,
    /// never comes.
    NoFinalWatermark,
    /// The two streams' keys never (or only partly) meet.
    KeysNeverMeet,
    /// Same-key pairs exist, but the bounds or windows exclude every one of them.
    BoundsExcludeAll,
    /// Rows dropped as late, and the watermark they lost to.
    LateRows,
    /// A split's rows that match no route and have nowhere to go.
    UnroutedRows,
}

/// Where the page shows a cause.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum Panel {
    /// The input editors (rows, keys).
    Inputs,
    /// The per-subtask watermarks.
    Watermarks,
    /// The operator state and timers.
    State,
    /// The late-row table.
    Late,
    /// The timeline (rows, windows, intervals).
    Timeline,
    /// The result tables.
    Outputs,
}

/// One cause.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Finding {
    pub kind: CauseKind,
    /// The cause in words, with its evidence.
    pub message: String,
    pub evidence: Evidence,
    /// The step that shows it (`None`: no single step does).
    pub step: Option<usize>,
    pub panel: Panel,
    /// The setting that would change it, if one does.
    pub fix: Option<Fix>,
}

/// A change of the scenario that would remove a cause: `patch` maps a field path of the
/// scenario document (`.`-separated; numbers index arrays: `streams.1.watermark.delay`) to
/// its new value, in the scenario's own form (durations as `"5s"` / `"1500ms"`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Fix {
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>"))]
    pub patch: BTreeMap<String, serde_json::Value>,
    /// What the change does, in words.
    pub message: String,
}

/// A row, as the evidence names it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RowPos {
    pub id: RowId,
    pub stream: String,
    pub line: u32,
    pub timestamp: Option<i64>,
}

/// The evidence of a cause; its shape follows [`Finding::kind`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(untagged)]
pub enum Evidence {
    EmptyInput {
        stream: String,
        side: Side,
    },
    /// [`CauseKind::IdleAssigner`], [`CauseKind::LaggingInput`] and
    /// [`CauseKind::NoWatermarks`].
    Held(HeldEvidence),
    NoFinalWatermark {
        /// Rows still in state, all subtasks.
        rows: usize,
        /// Pending event-time timers, and the earliest.
        timers: usize,
        earliest_timer: Option<i64>,
        /// Windows still open (up to 10).
        windows: Vec<[i64; 2]>,
        /// The final watermark of each operator subtask.
        watermarks: Vec<Watermark>,
    },
    Keys(KeyEvidence),
    Bounds(BoundsEvidence),
    Late(LateEvidence),
    Unrouted {
        rows: usize,
        /// The split column's values that matched no route (up to 10).
        values: Vec<String>,
    },
}

/// A watermark held back by one channel (or one input).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct HeldEvidence {
    pub stream: String,
    pub side: Side,
    /// The assigner subtask holding it (`None`: the whole input).
    pub assigner: Option<u32>,
    /// Rows it received.
    pub rows: usize,
    /// Its last row (`None`: it received none).
    pub last_row: Option<RowPos>,
    /// Its watermark just before the end of input.
    pub watermark: Watermark,
    /// The minimum of the other channels (or of the other input) at that point: the
    /// watermark the operator would have had without the holder.
    pub others: Watermark,
    /// The operator subtasks' watermarks at that point.
    pub operator: Vec<Watermark>,
    /// Results (window firings, joined rows) the end-of-input watermark released that the
    /// other channels' watermark would have released earlier, or timers still pending that it
    /// would have fired.
    pub held: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct KeyEvidence {
    /// Distinct keys of each stream, and how many both have.
    pub left_keys: usize,
    pub right_keys: usize,
    pub common: usize,
    /// Keys of one stream only (up to 10 each).
    pub left_only: Vec<Value>,
    pub right_only: Vec<Value>,
    /// Rows whose key the other stream never has.
    pub left_rows: usize,
    pub right_rows: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct BoundsEvidence {
    /// Same-key (left, right) pairs.
    pub pairs: u64,
    /// The pair that came nearest to joining.
    pub left: RowPos,
    pub right: RowPos,
    pub key: Value,
    /// By how many milliseconds it missed.
    pub miss: i64,
    /// What it missed, in words ("the upper bound 2000", "window [0, 10000)").
    pub missed: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct LateEvidence {
    pub stream: String,
    pub side: Side,
    pub rows: usize,
    /// Of those, sent to a late side output.
    pub to_side_output: usize,
    /// The most a row was behind the watermark it lost to (watermark − timestamp).
    pub max_behind: i64,
    /// Up to 5 late rows, each with the watermark it lost to and where that came from.
    pub examples: Vec<LateExample>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct LateExample {
    pub row: RowPos,
    pub step: usize,
    pub subtask: u32,
    pub watermark: Watermark,
    /// The assigner subtask the watermark came from.
    pub origin: Option<WatermarkOrigin>,
    /// The reason in words (as the late table says it).
    pub message: String,
}

/// A duration in the scenario's own form: `"5s"`, `"1500ms"`.
fn dur(ms: i64) -> serde_json::Value {
    if ms != 0 && ms % 1000 == 0 {
        serde_json::Value::String(format!("{}s", ms / 1000))
    } else {
        serde_json::Value::String(format!("{ms}ms"))
    }
}

fn dur_text(ms: i64) -> String {
    match dur(ms) {
        serde_json::Value::String(s) => s,
        _ => ms.to_string(),
    }
}

/// The largest 1-2-5 × 10^k not above `v` (at least 1): a round setting to propose.
fn nice_floor(v: i64) -> i64 {
    if v <= 1 {
        return 1;
    }
    let mut p = 1i64;
    while p <= v / 10 {
        p *= 10;
    }
    [5, 2, 1]
        .iter()
        .map(|m| m * p)
        .find(|&c| c <= v)
        .unwrap_or(1)
}

fn row_pos(plan: &Plan, id: RowId) -> RowPos {
    let r = plan.row(id);
    RowPos {
        id,
        stream: plan.stream_name(r.stream).to_string(),
        line: r.line,
        timestamp: r.ts,
    }
}

fn side_of(i: usize) -> Side {
    if i == 0 {
        Side::Left
    } else {
        Side::Right
    }
}

/// The scenario path of stream `s`'s watermark settings: its own, or the job's.
fn wm_path(plan: &Plan, s: usize) -> String {
    match plan
        .scenario
        .streams
        .get(s)
        .and_then(|x| x.watermark.as_ref())
    {
        Some(_) => format!("streams.{s}.watermark"),
        None => "job.watermark".to_string(),
    }
}

/// The step a row's arrival started (a scan of the arrivals: only for evidence rows).
fn row_step(plan: &Plan, out: &RunOutput, id: RowId) -> Option<usize> {
    plan.arrivals
        .iter()
        .position(|a| a == Arrival::Row(id))
        .map(|i| out.step_map.arrival_step(i))
}

/// What the run produced, counted once.
struct Counts {
    /// Join results, window results and (for a split) side-output rows.
    results: usize,
    rows: [usize; 2],
    inputs: usize,
    /// The end-of-input step, when the run reached it.
    end_step: Option<usize>,
}

/// Diagnoses a run. `None` when nothing looks wrong, or when the run stopped before the end
/// of input.
pub fn diagnose(plan: &Plan, out: &RunOutput) -> Option<Diagnosis> {
    // A run stopped before the end of input (`stop_after`, a trace window) is not the whole
    // story: nothing to diagnose.
    out.before_end.as_ref()?;
    let inputs = if plan.operator.two_inputs() { 2 } else { 1 };
    // Rows are stored stream by stream, left first.
    let left_rows = plan.rows.partition_point(|r| r.stream == Side::Left);
    let side_rows: usize = if plan.operator == OperatorKind::Split {
        out.sink.side_outputs.iter().map(|(_, v)| v.len()).sum()
    } else {
        0
    };
    let c = Counts {
        results: out.sink.drained + out.sink.outputs.len() + out.sink.windows.len() + side_rows,
        rows: [left_rows, plan.rows.len() - left_rows],
        inputs,
        end_step: out
            .before_end
            .as_ref()
            .map(|_| out.step_count.saturating_sub(1)),
    };
    let event_timers = out
        .final_state
        .iter()
        .flat_map(|s| s.timers.iter())
        .filter(|t| !t.processing)
        .count();
    let final_wm = plan.scenario.job.final_watermark;
    let mut symptoms = Vec::new();
    let mut causes = Vec::new();
    let no_output = c.results == 0 && !plan.rows.is_empty();
    if no_output {
        symptoms.push(Symptom {
            kind: SymptomKind::NoOutput,
            message: format!("{} row(s) came in and no result came out", plan.rows.len()),
        });
    }
    let state_rows: usize = out
        .final_state
        .iter()
        .flat_map(|s| s.entries.iter())
        .map(|e| e.rows.len())
        .sum();
    // Rows waiting for time: event-time timers pending (a regular join's state, kept forever
    // by design, is not a symptom).
    if event_timers > 0 {
        symptoms.push(Symptom {
            kind: SymptomKind::StateLeft,
            message: format!(
                "{state_rows} row(s) and {event_timers} event-time timer(s) are still waiting in state at the end"
            ),
        });
    }
    if !out.sink.late.is_empty() {
        symptoms.push(Symptom {
            kind: SymptomKind::LateRows,
            message: format!("{} row(s) were late", out.sink.late.len()),
        });
    }

    if no_output {
        empty_inputs(plan, &c, &mut causes);
    }
    // The watermark rules look for a held-back watermark only when it cost something: no
    // result at all, timers still pending, or every result released by the end-of-input
    // watermark alone (in an unbounded job: never). A run whose last windows simply fire on
    // the final watermark after earlier ones fired on time is not diagnosed.
    let all_at_end = c.results > 0
        && out.sink.drained == 0
        && c.end_step.is_some_and(|end| {
            out.sink.outputs.first().is_none_or(|o| o.step() == end)
                && out.sink.windows.first().is_none_or(|w| w.step == end)
                && out
                    .sink
                    .side_outputs
                    .iter()
                    .all(|(_, v)| v.first().is_none_or(|x| x.step == end))
        });
    let trigger = no_output || event_timers > 0 || all_at_end;
    if let (Some(be), true) = (&out.before_end, trigger) {
        let released = held_back(plan, out, &c, be, &mut causes);
        if released > 0 && final_wm {
            symptoms.push(Symptom {
                kind: SymptomKind::ReleasedAtEnd,
                message: format!("{released} result(s) came out only at the end of input, on the final watermark"),
            });
        }
    }
    if !final_wm && event_timers > 0 {
        causes.push(no_final_watermark(out, &c, state_rows, event_timers));
    }
    if inputs == 2 && c.rows[0] > 0 && c.rows[1] > 0 {
        let joined = out.sink.drained > 0
            || out
                .sink
                .outputs
                .iter()
                .any(|o| o.left.is_some() && o.right.is_some());
        if !joined {
            pairing(plan, out, &mut causes);
        }
    }
    late_rows(plan, out, &mut causes);
    if plan.operator == OperatorKind::Split {
        unrouted(plan, &c, &mut causes);
    }
    if symptoms.is_empty() && causes.is_empty() {
        return None;
    }
    Some(Diagnosis { symptoms, causes })
}

fn empty_inputs(plan: &Plan, c: &Counts, causes: &mut Vec<Finding>) {
    for s in 0..c.inputs {
        if c.rows[s] == 0 {
            let name = plan.schemas[s].name.clone();
            causes.push(Finding {
                kind: CauseKind::EmptyInput,
                message: format!("stream {name:?} has no rows"),
                evidence: Evidence::EmptyInput {
                    stream: name,
                    side: side_of(s),
                },
                step: None,
                panel: Panel::Inputs,
                fix: None,
            });
        }
    }
}

/// A candidate nearest miss: (miss, left, right, what it missed, patch).
type Miss = (
    i64,
    RowId,
    RowId,
    String,
    BTreeMap<String, serde_json::Value>,
);

/// A split's rows that matched no route while `otherwise` is unset: dropped.
fn unrouted(plan: &Plan, c: &Counts, causes: &mut Vec<Finding>) {
    let split = &plan.scenario.job.split;
    if split.otherwise.is_some() {
        return;
    }
    let routed = c.results;
    let dropped = c.rows[0].saturating_sub(routed);
    if dropped == 0 {
        return;
    }
    let col = plan.schemas[0]
        .columns
        .iter()
        .position(|x| x.name == split.column.trim());
    // The values of the dropped rows, up to 10: formatted into one buffer (no allocation per
    // row), and the scan stops once every dropped row or 10 values are found.
    let mut values: Vec<String> = Vec::new();
    if let Some(col) = col {
        use std::fmt::Write;
        let mut text = String::new();
        let mut found = 0;
        for r in plan.rows.iter().filter(|r| r.stream == Side::Left) {
            text.clear();
            let _ = write!(text, "{}", plan.row_values(r)[col]);
            if split.routes.iter().any(|x| x.value == text) {
                continue;
            }
            found += 1;
            if !values.contains(&text) {
                values.push(text.clone());
            }
            if values.len() == 10 || found == dropped {
                break;
            }
        }
    }
    causes.push(Finding {
        kind: CauseKind::UnroutedRows,
        message: format!(
            "{dropped} row(s) match no route ({}) and no `otherwise` target is set: the ProcessFunction drops them",
            values.join(", ")
        ),
        evidence: Evidence::Unrouted {
            rows: dropped,
            values,
        },
        step: None,
        panel: Panel::Inputs,
        fix: Some(Fix {
            patch: BTreeMap::from([("job.split.otherwise".to_string(), serde_json::json!("main"))]),
            message: "send rows that match no route to the main output".into(),
        }),
    });
}

/// Applies a fix's patch to a scenario: each path's last field is set to its value, missing
/// objects on the way are created (`streams.1.watermark` on a stream without its own
/// settings). What the page does when the user clicks a fix.
pub fn apply_fix(
    scenario: &crate::scenario::Scenario,
    fix: &Fix,
) -> Result<crate::scenario::Scenario, crate::error::Error> {
    let mut doc = serde_json::to_value(scenario).map_err(|e| {
        crate::error::Error::config("scenario", format!("cannot serialize it: {e}"))
    })?;
    for (path, value) in &fix.patch {
        let parts: Vec<&str> = path.split('.').collect();
        let Some((last, init)) = parts.split_last() else {
            continue;
        };
        let mut at = &mut doc;
        for p in init {
            let index = p.parse::<usize>().ok();
            at = match at {
                serde_json::Value::Array(a) if index.is_some_and(|i| i < a.len()) => {
                    &mut a[index.unwrap_or(0)]
                }
                serde_json::Value::Object(o) => o
                    .entry(p.to_string())
                    .or_insert_with(|| serde_json::json!({})),
                _ => {
                    return Err(crate::error::Error::config(
                        path.as_str(),
                        "no such field in the scenario",
                    ))
                }
            };
        }
        match at {
            serde_json::Value::Object(o) => {
                o.insert(last.to_string(), value.clone());
            }
            _ => {
                return Err(crate::error::Error::config(
                    path.as_str(),
                    "no such field in the scenario",
                ))
            }
        }
    }
    crate::scenario::Scenario::from_json(&doc.to_string())
}
