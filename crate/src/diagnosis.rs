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
        .position(|a| matches!(a, Arrival::Row(r) if *r == id))
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

/// Results the final watermark released (or timers still pending) that watermark `w` would
/// have released: window results and timestamped outputs of the end-of-input step with a
/// timestamp ≤ `w`, SQL outputs of that step (they carry no timestamp), pending event-time
/// timers ≤ `w`.
fn held_count(out: &RunOutput, end_step: Option<usize>, w: Watermark) -> usize {
    if w.is_max() {
        return 0;
    }
    let Some(end) = end_step else {
        return 0;
    };
    let windows = out
        .sink
        .windows
        .iter()
        .rev()
        .take_while(|x| x.step == end)
        .filter(|x| x.timestamp <= w.0)
        .count();
    let outputs = out
        .sink
        .outputs
        .iter()
        .rev()
        .take_while(|o| o.step() == end)
        .filter(|o| o.timestamp().is_none_or(|t| t <= w.0))
        .count();
    let timers = out
        .final_state
        .iter()
        .flat_map(|s| s.timers.iter())
        .filter(|t| !t.processing && t.timestamp <= w.0)
        .count();
    windows + outputs + timers
}

/// Whether stream `s`'s assigner `a` can ever emit a watermark before the end of input.
fn emits_watermarks(plan: &Plan, s: usize, a: Option<u32>) -> bool {
    match plan.generators[s].strategy {
        Strategy::None => false,
        Strategy::Punctuated => plan.arrivals.iter().any(|x| {
            matches!(x, Arrival::Watermark { stream, assigner, .. }
                if stream.index() == s && a.is_none_or(|a| a == *assigner))
        }),
        _ => true,
    }
}

/// The watermark rules: a channel (assigner subtask) or a whole input whose watermark, just
/// before the end of input, was the operator's minimum while the others had moved on, when
/// that held something back. Returns the results the final watermark released because of it.
fn held_back(
    plan: &Plan,
    out: &RunOutput,
    c: &Counts,
    be: &BeforeEnd,
    causes: &mut Vec<Finding>,
) -> usize {
    let streams = c.inputs.min(be.assigner.len());
    let pa = plan.assigner_parallelism as usize;
    // Streams that never emit a watermark hold everything: said once, as that.
    let mut silent = [false; 2];
    for (s, quiet) in silent.iter_mut().enumerate().take(streams) {
        *quiet = c.rows[s] > 0 && !emits_watermarks(plan, s, None);
    }
    let active: Vec<(usize, usize, Watermark)> = (0..streams)
        .flat_map(|s| (0..pa).map(move |a| (s, a)))
        .filter(|&(s, a)| !be.idle[s][a])
        .map(|(s, a)| (s, a, be.assigner[s][a]))
        .collect();
    let mut released = 0;
    for s in 0..streams {
        if !silent[s] {
            continue;
        }
        let others = active
            .iter()
            .filter(|x| x.0 != s && !silent[x.0])
            .map(|x| x.2)
            .min()
            .unwrap_or(Watermark::MAX);
        // With no other stream to compare with, everything the final watermark released
        // was held by this one.
        let held = held_count(out, c.end_step, Watermark(others.0.min(i64::MAX - 1)));
        if held == 0 {
            continue;
        }
        released = released.max(held);
        let g = &plan.generators[s];
        let name = plan.stream_name(side_of(s)).to_string();
        let mut patch = BTreeMap::new();
        let path = wm_path(plan, s);
        patch.insert(format!("{path}.strategy"), serde_json::json!("bounded"));
        if !g.per_event && g.interval == 0 {
            patch.insert(format!("{path}.per_event"), serde_json::json!(true));
        }
        let how = match g.strategy {
            Strategy::None => "its strategy is noWatermarks()".to_string(),
            _ => "it is punctuated and no WM row reaches it".to_string(),
        };
        causes.push(Finding {
            kind: CauseKind::NoWatermarks,
            message: format!(
                "stream {name:?} never emits a watermark before the end of input ({how}): its channels stay at −∞ and hold every operator subtask there, so {}",
                held_text(plan, held)
            ),
            evidence: Evidence::Held(held_evidence(plan, out, s, None, others, held)),
            step: c.end_step,
            panel: Panel::Watermarks,
            fix: Some(Fix {
                patch,
                message: format!("give {name:?} bounded-out-of-orderness watermarks"),
            }),
        });
    }
    let live: Vec<&(usize, usize, Watermark)> = active.iter().filter(|x| !silent[x.0]).collect();
    let Some(m) = live.iter().map(|x| x.2).min() else {
        return released;
    };
    let holders: Vec<(usize, usize)> = live
        .iter()
        .filter(|x| x.2 == m)
        .map(|x| (x.0, x.1))
        .collect();
    let Some(others) = live.iter().filter(|x| x.2 > m).map(|x| x.2).min() else {
        return released;
    };
    let held = held_count(out, c.end_step, others);
    if held == 0 {
        return released;
    }
    released = released.max(held);
    let mut by_stream: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (s, a) in holders {
        by_stream.entry(s).or_default().push(a);
    }
    for (s, assigners) in by_stream {
        let other_min = live.iter().filter(|x| x.0 != s).map(|x| x.2).min();
        let own_max = live.iter().filter(|x| x.0 == s).map(|x| x.2).max();
        let whole_input = matches!((other_min, own_max), (Some(o), Some(mx)) if mx < o);
        let name = plan.stream_name(side_of(s)).to_string();
        if whole_input {
            let others = other_min.unwrap_or(others);
            let ev = held_evidence(plan, out, s, None, others, held);
            let fix = idle_fix(plan, s, None);
            let step = ev
                .last_row
                .as_ref()
                .and_then(|r| row_step(plan, out, r.id))
                .or(c.end_step);
            let behind = if m.is_min() {
                "at −∞ (no watermark yet)".to_string()
            } else {
                format!("at {m}")
            };
            causes.push(Finding {
                kind: CauseKind::LaggingInput,
                message: format!(
                    "input {name:?} holds the operator's watermark {behind} while the other input is at {others}: a two-input operator takes the minimum of its inputs, so {}",
                    held_text(plan, held)
                ),
                evidence: Evidence::Held(ev),
                step,
                panel: Panel::Watermarks,
                fix,
            });
        } else {
            for a in assigners {
                let ev = held_evidence(plan, out, s, Some(a as u32), others, held);
                let fix = idle_fix(plan, s, Some(a as u32));
                let what = if ev.rows == 0 {
                    "never received a row and holds its channel at −∞ (Long.MIN_VALUE)".to_string()
                } else {
                    format!(
                        "received its last row early ({} row(s)) and holds its channel at {m}",
                        ev.rows
                    )
                };
                let step = ev
                    .last_row
                    .as_ref()
                    .and_then(|r| row_step(plan, out, r.id))
                    .or(c.end_step);
                causes.push(Finding {
                    kind: CauseKind::IdleAssigner,
                    message: format!(
                        "{name:?} assigner subtask {a} {what}; every operator subtask takes the minimum over its input channels (StatusWatermarkValve), so it stayed there while the other channels reached {others}, and {}",
                        held_text(plan, held)
                    ),
                    evidence: Evidence::Held(ev),
                    step,
                    panel: Panel::Watermarks,
                    fix,
                });
            }
        }
    }
    released
}

/// What a held watermark cost, in words.
fn held_text(plan: &Plan, held: usize) -> String {
    if plan.scenario.job.final_watermark {
        format!("{held} result(s) waited for the end of input")
    } else {
        format!("{held} timer(s) the others' watermark would have fired are still pending")
    }
}

/// Rows stream `s` (assigner `a`, or all) received and its last one.
fn last_activity(plan: &Plan, s: usize, a: Option<u32>) -> (usize, Option<RowId>, Option<i64>) {
    let mut n = 0;
    let mut last = None;
    let mut t = None;
    for (i, r) in plan.rows.iter().enumerate() {
        if r.stream.index() == s && a.is_none_or(|a| a == r.assigner) {
            n += 1;
            last = Some(RowId(i as u32));
            t = Some(t.map_or(r.arrival, |x: i64| x.max(r.arrival)));
        }
    }
    for x in &plan.arrivals {
        if let Arrival::Watermark {
            stream,
            assigner,
            arrival,
            ..
        } = x
        {
            if stream.index() == s && a.is_none_or(|a| a == *assigner) {
                t = Some(t.map_or(*arrival, |x: i64| x.max(*arrival)));
            }
        }
    }
    (n, last, t)
}

fn held_evidence(
    plan: &Plan,
    out: &RunOutput,
    s: usize,
    a: Option<u32>,
    others: Watermark,
    held: usize,
) -> HeldEvidence {
    let (rows, last, _) = last_activity(plan, s, a);
    let be = out.before_end.as_ref();
    let watermark = be
        .map(|b| match a {
            Some(a) => b.assigner[s][a as usize],
            None => b.assigner[s]
                .iter()
                .copied()
                .min()
                .unwrap_or(Watermark::MIN),
        })
        .unwrap_or(Watermark::MIN);
    HeldEvidence {
        stream: plan.stream_name(side_of(s)).to_string(),
        side: side_of(s),
        assigner: a,
        rows,
        last_row: last.map(|id| row_pos(plan, id)),
        watermark,
        others,
        operator: be.map(|b| b.operator.clone()).unwrap_or_default(),
        held,
    }
}

/// `withIdleness(timeout)` for stream `s` (`WatermarksWithIdleness`): a timeout after which
/// the holder, silent since its last row, is marked idle while the other channels still
/// receive rows. Idleness is checked on periodic emits only, so the patch also sets a
/// periodic interval when there is none (200 ms, `pipeline.auto-watermark-interval`'s
/// default, smaller when the input is short). The holder goes idle at the first periodic
/// emit more than the timeout after the emit that first saw no new row (`IdlenessTimer`),
/// about `last + 3·interval + timeout`: that must come before the last arrival.
fn idle_fix(plan: &Plan, s: usize, a: Option<u32>) -> Option<Fix> {
    let g = &plan.generators[s];
    let first = plan.rows.iter().map(|r| r.arrival).min()?;
    let end = plan.rows.iter().map(|r| r.arrival).max()?;
    let (_, _, t) = last_activity(plan, s, a);
    let last = t.unwrap_or(first);
    let span = end.saturating_sub(last);
    let mut interval = if g.interval > 0 { g.interval } else { 200 };
    if span < 8 * interval {
        interval = nice_floor((span / 8).max(1));
    }
    let budget = span - 3 * interval;
    if budget < 2 {
        return None;
    }
    let timeout = nice_floor(budget / 2);
    let path = wm_path(plan, s);
    let mut patch = BTreeMap::new();
    patch.insert(format!("{path}.idle_timeout"), dur(timeout));
    if interval != g.interval {
        patch.insert(format!("{path}.interval"), dur(interval));
    }
    let name = plan.stream_name(side_of(s));
    let who = match a {
        Some(a) => format!("{name:?} assigner subtask {a}"),
        None => format!("input {name:?}"),
    };
    Some(Fix {
        patch,
        message: format!(
            "withIdleness({}): {who} is marked idle {} after its last row and stops holding the watermark back{}",
            dur_text(timeout),
            dur_text(timeout),
            if interval != g.interval {
                format!(
                    " (idleness is checked on periodic emits: every {})",
                    dur_text(interval)
                )
            } else {
                String::new()
            }
        ),
    })
}

fn no_final_watermark(out: &RunOutput, c: &Counts, rows: usize, timers: usize) -> Finding {
    let earliest = out
        .final_state
        .iter()
        .flat_map(|s| s.timers.iter())
        .filter(|t| !t.processing)
        .map(|t| t.timestamp)
        .min();
    let mut windows: Vec<[i64; 2]> = out
        .final_state
        .iter()
        .flat_map(|s| s.entries.iter())
        .filter_map(|e| e.window)
        .collect();
    windows.sort_unstable();
    windows.dedup();
    windows.truncate(10);
    let watermarks: Vec<Watermark> = out.watermarks.clone();
    let top = watermarks.iter().copied().max().unwrap_or(Watermark::MIN);
    let what = if windows.is_empty() {
        format!("{rows} row(s) stay buffered")
    } else {
        format!(
            "{} window(s) (first [{}, {})) never fire",
            windows.len(),
            windows[0][0],
            windows[0][1]
        )
    };
    Finding {
        kind: CauseKind::NoFinalWatermark,
        message: format!(
            "the final watermark is off: {what}, and {timers} event-time timer(s) (the earliest at {}) wait for a watermark that never comes (the operator's watermark stopped at {top})",
            earliest.map(|t| t.to_string()).unwrap_or_else(|| "-".into())
        ),
        evidence: Evidence::NoFinalWatermark {
            rows,
            timers,
            earliest_timer: earliest,
            windows,
            watermarks,
        },
        step: c.end_step,
        panel: Panel::State,
        fix: Some(Fix {
            patch: BTreeMap::from([("job.final_watermark".to_string(), serde_json::json!(true))]),
            message: "emit Watermark(Long.MAX_VALUE) at end of input, as a bounded source does"
                .into(),
        }),
    }
}

/// The key rule and the bound rules, when no row joined.
fn pairing(plan: &Plan, out: &RunOutput, causes: &mut Vec<Finding>) {
    // A keyless SQL join runs on one subtask: every pair meets.
    if plan.schemas.iter().any(|s| s.key.is_none()) {
        return;
    }
    let nk = plan.keys.len();
    let mut seen = vec![[0usize; 2]; nk];
    for r in &plan.rows {
        seen[r.key.0 as usize][r.stream.index()] += 1;
    }
    let count = |f: &dyn Fn(&[usize; 2]) -> bool| seen.iter().filter(|x| f(x)).count();
    let left_keys = count(&|x| x[0] > 0);
    let right_keys = count(&|x| x[1] > 0);
    let common = count(&|x| x[0] > 0 && x[1] > 0);
    let only = |side: usize| -> Vec<Value> {
        seen.iter()
            .enumerate()
            .filter(|(_, x)| x[side] > 0 && x[1 - side] == 0)
            .take(10)
            .map(|(k, _)| plan.keys[k].value.clone())
            .collect()
    };
    let unmatched = |side: usize| -> usize {
        seen.iter()
            .filter(|x| x[1 - side] == 0)
            .map(|x| x[side])
            .sum()
    };
    if common < left_keys.max(right_keys) {
        let (l, r) = (&plan.schemas[0], &plan.schemas[1]);
        let types = match (l.key, r.key) {
            (Some(a), Some(b)) if l.columns[a].ty != r.columns[b].ty => format!(
                "; the key columns have different types ({} and {}), and values of different types are never equal",
                l.columns[a].ty.sql_name(),
                r.columns[b].ty.sql_name()
            ),
            _ => String::new(),
        };
        let ev = KeyEvidence {
            left_keys,
            right_keys,
            common,
            left_only: only(0),
            right_only: only(1),
            left_rows: unmatched(0),
            right_rows: unmatched(1),
        };
        let list = |v: &[Value]| {
            let mut t: Vec<String> = v.iter().take(5).map(|x| x.to_string()).collect();
            if v.len() > 5 {
                t.push("…".into());
            }
            t.join(", ")
        };
        let message = if common == 0 {
            format!(
                "the keys never meet: {:?} has {left_keys} key(s) ({}), {:?} has {right_keys} ({}), none in common{types}",
                l.name,
                list(&ev.left_only),
                r.name,
                list(&ev.right_only)
            )
        } else {
            format!(
                "the keys only partly meet: {} of {:?}'s and {} of {:?}'s row(s) have a key the other stream never has{types}",
                ev.left_rows, l.name, ev.right_rows, r.name
            )
        };
        let first = plan
            .rows
            .iter()
            .position(|r| {
                let x = seen[r.key.0 as usize];
                x[0] == 0 || x[1] == 0
            })
            .and_then(|i| row_step(plan, out, RowId(i as u32)));
        causes.push(Finding {
            kind: CauseKind::KeysNeverMeet,
            message,
            evidence: Evidence::Keys(ev),
            step: first,
            panel: Panel::Inputs,
            fix: None,
        });
    }
    if common == 0 {
        return;
    }
    if let Some(f) = bounds(plan, out, &seen) {
        causes.push(f);
    }
}

/// Per key present on both sides: the (timestamp, row) of each side, sorted.
fn by_key(plan: &Plan, seen: &[[usize; 2]]) -> BTreeMap<KeyId, [Vec<(i64, RowId)>; 2]> {
    let mut m: BTreeMap<KeyId, [Vec<(i64, RowId)>; 2]> = BTreeMap::new();
    for (i, r) in plan.rows.iter().enumerate() {
        let x = seen[r.key.0 as usize];
        if x[0] == 0 || x[1] == 0 {
            continue;
        }
        if let Some(ts) = r.ts {
            m.entry(r.key).or_default()[r.stream.index()].push((ts, RowId(i as u32)));
        }
    }
    for v in m.values_mut() {
        v[0].sort_unstable();
        v[1].sort_unstable();
    }
    m
}

/// A candidate nearest miss: (miss, left, right, what it missed, patch).
type Miss = (
    i64,
    RowId,
    RowId,
    String,
    BTreeMap<String, serde_json::Value>,
);

/// The bound rules: same-key pairs exist, none satisfies the operator's pairing predicate.
fn bounds(plan: &Plan, out: &RunOutput, seen: &[[usize; 2]]) -> Option<Finding> {
    let job = &plan.scenario.job;
    let groups = by_key(plan, seen);
    let pairs: u64 = groups
        .values()
        .map(|v| v[0].len() as u64 * v[1].len() as u64)
        .sum();
    let mut best: Option<Miss> = None;
    let mut consider = |m: Miss| {
        if best.as_ref().is_none_or(|b| m.0 < b.0) {
            best = Some(m);
        }
    };
    let desc;
    match plan.operator {
        // IntervalJoinOperator: right.ts ∈ [left.ts + lower, left.ts + upper] (ends
        // exclusive when asked: KeyedStream.IntervalJoined.lowerBoundExclusive()).
        OperatorKind::IntervalJoin => {
            let iv = &job.interval;
            let lo = iv.lower.0 + iv.lower_exclusive as i64;
            let hi = iv.upper.0 - iv.upper_exclusive as i64;
            desc = format!(
                "right.ts ∈ left.ts + {}{}, {}{}",
                if iv.lower_exclusive { "(" } else { "[" },
                iv.lower.0,
                iv.upper.0,
                if iv.upper_exclusive { ")" } else { "]" }
            );
            for v in groups.values() {
                for &(l, lid) in &v[0] {
                    let (a, b) = (l.saturating_add(lo), l.saturating_add(hi));
                    let i = v[1].partition_point(|x| x.0 < a);
                    if v[1].get(i).is_some_and(|x| x.0 <= b) {
                        return None;
                    }
                    if let Some(&(r, rid)) = i.checked_sub(1).map(|j| &v[1][j]) {
                        let miss = a - r;
                        let mut p = BTreeMap::new();
                        p.insert("job.interval.lower".into(), dur(iv.lower.0 - miss));
                        consider((miss, lid, rid, format!("the lower bound {}", iv.lower.0), p));
                    }
                    if let Some(&(r, rid)) = v[1].get(i) {
                        let miss = r - b;
                        let mut p = BTreeMap::new();
                        p.insert("job.interval.upper".into(), dur(iv.upper.0 + miss));
                        consider((miss, lid, rid, format!("the upper bound {}", iv.upper.0), p));
                    }
                }
            }
        }
        // RowTimeIntervalJoin's predicate: L.t >= R.t + lower AND L.t <= R.t + upper (strict
        // ends > / <), i.e. R.t ∈ [L.t − upper, L.t − lower].
        OperatorKind::SqlIntervalJoin if job.sql.time == TimeKind::Event => {
            let q = &job.sql;
            desc = format!(
                "l.t {} r.t + {} AND l.t {} r.t + {}",
                if q.lower_strict { ">" } else { ">=" },
                q.lower.0,
                if q.upper_strict { "<" } else { "<=" },
                q.upper.0
            );
            for v in groups.values() {
                for &(l, lid) in &v[0] {
                    let a = l
                        .saturating_sub(q.upper.0)
                        .saturating_add(q.upper_strict as i64);
                    let b = l
                        .saturating_sub(q.lower.0)
                        .saturating_sub(q.lower_strict as i64);
                    let i = v[1].partition_point(|x| x.0 < a);
                    if v[1].get(i).is_some_and(|x| x.0 <= b) {
                        return None;
                    }
                    if let Some(&(r, rid)) = i.checked_sub(1).map(|j| &v[1][j]) {
                        // r.t too small: l.t − r.t exceeds the upper bound.
                        let miss = a - r;
                        let mut p = BTreeMap::new();
                        p.insert("job.sql.upper".into(), dur(q.upper.0 + miss));
                        consider((miss, lid, rid, format!("the upper bound {}", q.upper.0), p));
                    }
                    if let Some(&(r, rid)) = v[1].get(i) {
                        let miss = r - b;
                        let mut p = BTreeMap::new();
                        p.insert("job.sql.lower".into(), dur(q.lower.0 - miss));
                        consider((miss, lid, rid, format!("the lower bound {}", q.lower.0), p));
                    }
                }
            }
        }
        // WindowOperator over the union of both streams (JoinedStreams → coGroup): a pair
        // joins when one window holds both rows.
        OperatorKind::WindowJoin => {
            let w = &job.window;
            match w.kind {
                WindowKind::Tumbling | WindowKind::Sliding => {
                    let size = w.size.0;
                    let slide = match w.kind {
                        WindowKind::Sliding => w.slide.map(|s| s.0).unwrap_or(size),
                        _ => size,
                    };
                    if size <= 0 || slide <= 0 {
                        return None;
                    }
                    let off = w.offset.0;
                    desc = format!(
                        "{:?} windows of {} (slide {}, offset {})",
                        w.kind, size, slide, off
                    );
                    for v in groups.values() {
                        for &(l, lid) in &v[0] {
                            let i = v[1].partition_point(|x| x.0 < l);
                            let near = [i.checked_sub(1).map(|j| v[1][j]), v[1].get(i).copied()];
                            for &(r, rid) in near.iter().flatten() {
                                let (a, b) = (l.min(r), l.max(r));
                                // The last window holding `a` (TimeWindow.getWindowStartWithOffset).
                                let start = a - (a - off).rem_euclid(slide);
                                let end = start + size;
                                if b < end {
                                    return None;
                                }
                                let miss = b - end + 1;
                                let mut p = BTreeMap::new();
                                let d = b - a;
                                if d < size {
                                    p.insert("job.window.offset".into(), dur(a.rem_euclid(slide)));
                                } else {
                                    let new_size = d + 1;
                                    let new_slide = if w.kind == WindowKind::Tumbling {
                                        new_size
                                    } else {
                                        slide
                                    };
                                    p.insert("job.window.size".into(), dur(new_size));
                                    p.insert(
                                        "job.window.offset".into(),
                                        dur(a.rem_euclid(new_slide)),
                                    );
                                }
                                consider((miss, lid, rid, format!("window [{start}, {end})"), p));
                            }
                        }
                    }
                }
                // Session windows merge across both streams: a pair joins when their
                // sessions merged ([ts, ts + gap) windows overlap).
                WindowKind::Session => {
                    let gap = w.gap.map(|g| g.0).unwrap_or(0);
                    if gap <= 0 {
                        return None;
                    }
                    desc = format!("session windows with gap {gap}");
                    for v in groups.values() {
                        let mut all: Vec<(i64, usize, RowId)> = v[0]
                            .iter()
                            .map(|&(t, id)| (t, 0, id))
                            .chain(v[1].iter().map(|&(t, id)| (t, 1, id)))
                            .collect();
                        all.sort_unstable();
                        let mut sides = [false; 2];
                        let mut end = i64::MIN;
                        for (i, &(t, side, _)) in all.iter().enumerate() {
                            if t >= end {
                                sides = [false; 2];
                            }
                            sides[side] = true;
                            if sides[0] && sides[1] {
                                return None;
                            }
                            end = end.max(t.saturating_add(gap));
                            if i > 0 && all[i - 1].1 != side {
                                let (pt, _, pid) = all[i - 1];
                                let d = t - pt;
                                let (lid, rid) = if side == 0 {
                                    (all[i].2, pid)
                                } else {
                                    (pid, all[i].2)
                                };
                                let mut p = BTreeMap::new();
                                p.insert("job.window.gap".into(), dur(d + 1));
                                consider((
                                    d + 1 - gap,
                                    lid,
                                    rid,
                                    format!("the session gap {gap}"),
                                    p,
                                ));
                            }
                        }
                    }
                }
            }
        }
        // Other operators: no pairing predicate known here (the key rule still applies).
        _ => return None,
    }
    let (miss, lid, rid, missed, patch) = best?;
    let key = plan.keys[plan.row(lid).key.0 as usize].value.clone();
    let (l, r) = (row_pos(plan, lid), row_pos(plan, rid));
    let later = if plan.row(lid).arrival >= plan.row(rid).arrival {
        lid
    } else {
        rid
    };
    let fix_text = patch
        .iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect::<Vec<_>>()
        .join(", ");
    Some(Finding {
        kind: CauseKind::BoundsExcludeAll,
        message: format!(
            "{pairs} same-key pair(s), and {desc} excludes every one: the nearest, {}:{} (ts {}) and {}:{} (ts {}), key {key}, misses {missed} by {miss} ms",
            l.stream,
            l.line,
            l.timestamp.unwrap_or(0),
            r.stream,
            r.line,
            r.timestamp.unwrap_or(0)
        ),
        evidence: Evidence::Bounds(BoundsEvidence {
            pairs,
            left: l,
            right: r,
            key,
            miss,
            missed,
        }),
        step: row_step(plan, out, later),
        panel: Panel::Timeline,
        fix: Some(Fix {
            patch,
            message: format!(
                "{fix_text}: the nearest pair ({}:{} and {}:{}) joins",
                plan.stream_name(Side::Left),
                plan.row(lid).line,
                plan.stream_name(Side::Right),
                plan.row(rid).line
            ),
        }),
    })
}

/// The late rule: one cause per stream with late rows.
fn late_rows(plan: &Plan, out: &RunOutput, causes: &mut Vec<Finding>) {
    if out.sink.late.is_empty() {
        return;
    }
    let job = &plan.scenario.job;
    for s in 0..plan.schemas.len() {
        let side = side_of(s);
        let rows: Vec<_> = out
            .sink
            .late
            .iter()
            .filter(|l| plan.row(l.row).stream == side)
            .collect();
        let Some(first) = rows.first() else {
            continue;
        };
        let name = plan.stream_name(side).to_string();
        let behind = |l: &crate::operators::LateRow| {
            plan.row(l.row)
                .ts
                .map_or(0, |t| l.watermark.0.saturating_sub(t))
        };
        let max_behind = rows.iter().map(|l| behind(l)).max().unwrap_or(0);
        let to_side = rows.iter().filter(|l| l.side_output.is_some()).count();
        // The fix. Window operators: allowedLateness so that each row's last window is not
        // late any more (WindowOperator.isWindowLate: maxTimestamp + allowedLateness <=
        // watermark). The interval join (IntervalJoinOperator.isLate: ts < watermark): a
        // larger out-of-orderness delay of the stream the watermark came from, which lowers
        // that watermark by as much — only when every such watermark came from rows
        // (not from a WM row or the end of input).
        let mut patch = BTreeMap::new();
        let mut fix_text = String::new();
        match &first.reason {
            LateRule::Window { .. } => {
                let need = rows
                    .iter()
                    .map(|l| match &l.reason {
                        LateRule::Window { windows, .. } => {
                            let max_ts = windows
                                .iter()
                                .map(|w| w.1 - 1)
                                .max()
                                .or(plan.row(l.row).ts)
                                .unwrap_or(0);
                            l.watermark.0.saturating_sub(max_ts).saturating_add(1)
                        }
                        LateRule::IntervalJoin
                        | LateRule::WindowTvf { .. }
                        | LateRule::WindowTvfJoin { .. } => behind(l) + 1,
                    })
                    .max()
                    .unwrap_or(1)
                    .max(job.allowed_lateness.0 + 1);
                patch.insert("job.allowed_lateness".into(), dur(need));
                fix_text = format!(
                    "allowedLateness({}): their windows stay open until the watermark passes them by that much",
                    dur_text(need)
                );
            }
            // The SQL window aggregation has no allowed lateness
            // (SlicingWindowProcessor drops what `isWindowFired` says): a larger delay.
            LateRule::IntervalJoin
            | LateRule::WindowTvf { .. }
            | LateRule::WindowTvfJoin { .. } => {
                let from_rows = rows.iter().all(|l| {
                    l.origin
                        .as_ref()
                        .is_some_and(|o| o.max_ts.is_some() && !o.end_of_input)
                });
                if from_rows {
                    let mut streams: Vec<usize> = rows
                        .iter()
                        .filter_map(|l| l.origin.as_ref().map(|o| o.stream.index()))
                        .collect();
                    streams.sort_unstable();
                    streams.dedup();
                    for o in streams {
                        let g = &plan.generators[o];
                        let path = wm_path(plan, o);
                        patch.insert(format!("{path}.delay"), dur(g.delay + max_behind));
                        if g.strategy == Strategy::Monotonous {
                            patch.insert(format!("{path}.strategy"), serde_json::json!("bounded"));
                        }
                    }
                    fix_text = format!(
                        "an out-of-orderness delay {} larger: the watermark they lost to stays at or below their timestamps",
                        dur_text(max_behind)
                    );
                }
            }
        }
        let examples = rows
            .iter()
            .take(5)
            .map(|l| LateExample {
                row: row_pos(plan, l.row),
                step: l.step,
                subtask: l.subtask.0,
                watermark: l.watermark,
                origin: l.origin.clone(),
                message: late_text(plan, l),
            })
            .collect();
        let where_to = if to_side == rows.len() {
            "sent to the late side output".to_string()
        } else if to_side == 0 {
            "dropped".to_string()
        } else {
            format!("dropped ({to_side} sent to the late side output)")
        };
        causes.push(Finding {
            kind: CauseKind::LateRows,
            message: format!(
                "{} row(s) of {name:?} came after the watermark had passed them and were {where_to}; the first: {}",
                rows.len(),
                late_text(plan, first)
            ),
            evidence: Evidence::Late(LateEvidence {
                stream: name,
                side,
                rows: rows.len(),
                to_side_output: to_side,
                max_behind,
                examples,
            }),
            step: Some(first.step),
            panel: Panel::Late,
            fix: (!patch.is_empty()).then_some(Fix {
                patch,
                message: fix_text,
            }),
        });
    }
}

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
            let _ = write!(text, "{}", r.values[col]);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::RunResult;
    use crate::scenario::Scenario;

    fn run(json: &str) -> (Scenario, RunResult) {
        let sc = Scenario::from_json(json).unwrap();
        let r = crate::run(&sc, false).unwrap();
        (sc, r)
    }

    fn kinds(r: &RunResult) -> Vec<CauseKind> {
        r.diagnosis
            .as_ref()
            .map(|d| d.causes.iter().map(|c| c.kind).collect())
            .unwrap_or_default()
    }

    fn cause(r: &RunResult, k: CauseKind) -> &Finding {
        r.diagnosis
            .as_ref()
            .and_then(|d| d.causes.iter().find(|c| c.kind == k))
            .unwrap_or_else(|| panic!("no {k:?} in {:#?}", r.diagnosis))
    }

    /// Applies the cause's fix, re-runs, and checks the cause is gone.
    fn fixed(sc: &Scenario, r: &RunResult, k: CauseKind) -> RunResult {
        let fix = cause(r, k).fix.clone().expect("a fix");
        let sc2 = apply_fix(sc, &fix).unwrap();
        let r2 = crate::run(&sc2, false).unwrap();
        assert!(
            !kinds(&r2).contains(&k),
            "{k:?} still there after {fix:?}: {:#?}",
            r2.diagnosis
        );
        r2
    }

    fn agg(p: u32, wm: &str, final_wm: bool, rows: &str) -> String {
        format!(
            r#"{{"job":{{"operator":"window_aggregate","parallelism":{p},"final_watermark":{final_wm},"watermark":{wm},"window":{{"size":"5s"}}}},
            "streams":[{{"name":"clicks","columns":["user","ts"],"key":"user","time":"ts","rows":"{rows}"}}]}}"#
        )
    }

    const STALLED: &str = r"u1, 1s | s=1\nu1, 2s | s=0\nu2, 3s | s=0\nu1, 6s | s=0\nu2, 8s | s=0\nu1, 12s | s=0\nu2, 17s | s=0\nu1, 21s | s=0";

    #[test]
    fn an_assigner_that_stopped_receiving_rows_holds_the_watermark() {
        let wm = r#"{"per_event":false,"interval":"200ms"}"#;
        let (sc, r) = run(&agg(2, wm, true, STALLED));
        let c = cause(&r, CauseKind::IdleAssigner);
        match &c.evidence {
            Evidence::Held(h) => {
                assert_eq!(
                    (h.assigner, h.rows, h.watermark),
                    (Some(1), 1, Watermark(999))
                );
                assert_eq!(h.others, Watermark(16_999));
                assert!(h.held > 0);
            }
            e => panic!("{e:?}"),
        }
        assert_eq!(c.panel, Panel::Watermarks);
        assert!(c
            .fix
            .as_ref()
            .unwrap()
            .patch
            .contains_key("job.watermark.idle_timeout"));
        // With the idle timeout the windows fire before the end of input.
        let r2 = fixed(&sc, &r, CauseKind::IdleAssigner);
        assert!(
            r2.windows.iter().any(|w| w.step + 1 < r2.steps),
            "{:?}",
            r2.windows
        );
        // Without the cause (every row on subtask 0... parallelism 1): no diagnosis.
        let (_, r) = run(&agg(
            1,
            wm,
            true,
            &STALLED.replace(" | s=1", "").replace(" | s=0", ""),
        ));
        assert_eq!(r.diagnosis, None);
    }

    #[test]
    fn an_assigner_that_never_received_a_row_holds_the_minimum() {
        let rows = r"u1, 1s | s=0\nu1, 6s | s=0\nu1, 12s | s=0\nu1, 21s | s=0";
        let (sc, r) = run(&agg(2, "{}", true, rows));
        let c = cause(&r, CauseKind::IdleAssigner);
        assert!(c.message.contains("never received a row"), "{}", c.message);
        match &c.evidence {
            Evidence::Held(h) => assert_eq!((h.rows, h.watermark), (0, Watermark::MIN)),
            e => panic!("{e:?}"),
        }
        let fix = &c.fix.as_ref().unwrap().patch;
        // Per-event emission only: idleness needs a periodic interval.
        assert!(fix.contains_key("job.watermark.interval"), "{fix:?}");
        fixed(&sc, &r, CauseKind::IdleAssigner);
        // Rows on both assigners: nothing held.
        let (_, r) = run(&agg(2, "{}", true, &rows.replace("12s | s=0", "12s | s=1")));
        assert!(
            !kinds(&r).contains(&CauseKind::IdleAssigner),
            "{:?}",
            r.diagnosis
        );
    }

    fn wjoin(extra: &str, left: &str, right: &str) -> String {
        format!(
            r#"{{"job":{{"operator":"window_join"{extra}}},
            "streams":[{{"name":"a","columns":["k","ts"],"key":"k","time":"ts","rows":"{left}"}},
                       {{"name":"b","columns":["k","ts"],"key":"k","time":"ts","rows":"{right}"}}]}}"#
        )
    }

    #[test]
    fn one_input_lagging_the_other() {
        let left = r"x, 1s\nx, 12s\nx, 25s\nx, 38s\nx, 51s";
        let (sc, r) = run(&wjoin("", left, r"x, 2s"));
        let c = cause(&r, CauseKind::LaggingInput);
        match &c.evidence {
            Evidence::Held(h) => {
                assert_eq!((h.stream.as_str(), h.assigner), ("b", None));
                assert_eq!(h.watermark, Watermark(1999));
            }
            e => panic!("{e:?}"),
        }
        let r2 = fixed(&sc, &r, CauseKind::LaggingInput);
        assert!(
            r2.outputs.iter().all(|o| o.step + 1 < r2.steps),
            "{:?}",
            r2.outputs
        );
        // Both inputs keep up: the join fires on time, no diagnosis.
        let (_, r) = run(&wjoin("", left, r"x, 2s\nx, 13s\nx, 26s\nx, 39s\nx, 52s"));
        assert_eq!(r.diagnosis, None);
    }

    #[test]
    fn a_stream_without_watermarks() {
        let left = r"x, 1s\nx, 12s\nx, 25s";
        let right = r"x, 2s\nx, 13s\nx, 26s";
        let none = r#","watermark":{"strategy":"none"}"#;
        let (sc, r) = run(&wjoin(none, left, right));
        assert_eq!(
            kinds(&r),
            vec![CauseKind::NoWatermarks, CauseKind::NoWatermarks]
        );
        let fix = cause(&r, CauseKind::NoWatermarks).fix.clone().unwrap();
        let r2 = crate::run(&apply_fix(&sc, &fix).unwrap(), false).unwrap();
        assert_eq!(r2.diagnosis, None);
        let (_, r) = run(&wjoin("", left, right));
        assert_eq!(r.diagnosis, None);
    }

    #[test]
    fn windows_wait_for_the_final_watermark() {
        let rows = r"u1, 1s\nu1, 6s\nu2, 7s";
        let (sc, r) = run(&agg(1, "{}", false, rows));
        let c = cause(&r, CauseKind::NoFinalWatermark);
        match &c.evidence {
            Evidence::NoFinalWatermark {
                windows, timers, ..
            } => {
                assert_eq!(windows, &vec![[5000, 10000]]);
                assert_eq!(*timers, 2);
            }
            e => panic!("{e:?}"),
        }
        assert_eq!(c.step, Some(r.steps - 1));
        let symptoms: Vec<_> = r
            .diagnosis
            .as_ref()
            .unwrap()
            .symptoms
            .iter()
            .map(|s| s.kind)
            .collect();
        assert!(symptoms.contains(&SymptomKind::StateLeft));
        let r2 = fixed(&sc, &r, CauseKind::NoFinalWatermark);
        assert_eq!(r2.diagnosis, None);
        assert_eq!(r2.windows.len(), 3);
        // The same job with the final watermark: nothing waits.
        let (_, r) = run(&agg(1, "{}", true, rows));
        assert_eq!(r.diagnosis, None);
    }

    fn ijoin(bounds: &str, left: &str, right: &str) -> String {
        format!(
            r#"{{"job":{{"operator":"interval_join","interval":{bounds}}},
            "streams":[{{"name":"a","columns":["k","ts"],"key":"k","time":"ts","rows":"{left}"}},
                       {{"name":"b","columns":["k","ts"],"key":"k","time":"ts","rows":"{right}"}}]}}"#
        )
    }

    #[test]
    fn keys_that_never_meet() {
        let b = r#"{"lower":"-1s","upper":"1s"}"#;
        let (_, r) = run(&ijoin(b, r"x, 1s\ny, 2s", r"z, 1s\nw, 2s"));
        let c = cause(&r, CauseKind::KeysNeverMeet);
        match &c.evidence {
            Evidence::Keys(k) => assert_eq!((k.common, k.left_rows, k.right_rows), (0, 2, 2)),
            e => panic!("{e:?}"),
        }
        assert!(c.fix.is_none());
        // Partly: x meets, y and w do not, and nothing joins (x's pair is out of bounds).
        let (_, r) = run(&ijoin(b, r"x, 1s\ny, 2s", r"x, 5s\nw, 2s"));
        let c = cause(&r, CauseKind::KeysNeverMeet);
        assert!(c.message.contains("partly"), "{}", c.message);
        assert!(kinds(&r).contains(&CauseKind::BoundsExcludeAll));
        // Same keys, in bounds: no diagnosis.
        let (_, r) = run(&ijoin(b, r"x, 1s\ny, 2s", r"x, 1s\ny, 2s"));
        assert_eq!(r.diagnosis, None);
    }

    #[test]
    fn interval_bounds_that_exclude_every_pair() {
        let b = r#"{"lower":"0s","upper":"1s"}"#;
        let (sc, r) = run(&ijoin(b, r"x, 10s\nx, 20s", r"x, 13s\nx, 40s"));
        let c = cause(&r, CauseKind::BoundsExcludeAll);
        match &c.evidence {
            Evidence::Bounds(e) => {
                assert_eq!((e.left.line, e.right.line, e.miss), (1, 1, 2000));
                assert_eq!(e.pairs, 4);
            }
            e => panic!("{e:?}"),
        }
        assert_eq!(
            c.fix.as_ref().unwrap().patch.get("job.interval.upper"),
            Some(&serde_json::json!("3s"))
        );
        let r2 = fixed(&sc, &r, CauseKind::BoundsExcludeAll);
        assert_eq!(r2.outputs.len(), 1);
        // A negative miss: the right row is before the lower bound.
        let (sc, r) = run(&ijoin(
            r#"{"lower":"1s","upper":"2s","lower_exclusive":true}"#,
            r"x, 10s",
            r"x, 10500",
        ));
        match &cause(&r, CauseKind::BoundsExcludeAll).evidence {
            Evidence::Bounds(e) => assert_eq!(e.miss, 501),
            e => panic!("{e:?}"),
        }
        fixed(&sc, &r, CauseKind::BoundsExcludeAll);
        let (_, r) = run(&ijoin(b, r"x, 10s", r"x, 11s"));
        assert_eq!(r.diagnosis, None);
    }

    #[test]
    fn sql_interval_bounds_that_exclude_every_pair() {
        let json = |sql: &str| {
            format!(
                r#"{{"job":{{"operator":"sql_interval_join","sql":{sql}}},
                "streams":[{{"name":"a","columns":["k","ts"],"key":"k","time":"ts","rows":"x, 10s"}},
                           {{"name":"b","columns":["k","ts"],"key":"k","time":"ts","rows":"x, 4s"}}]}}"#
            )
        };
        // l.t BETWEEN r.t - 1s AND r.t + 2s; l − r = 6 s: misses the upper bound by 4 s.
        let (sc, r) = run(&json(r#"{"lower":"-1s","upper":"2s"}"#));
        let c = cause(&r, CauseKind::BoundsExcludeAll);
        match &c.evidence {
            Evidence::Bounds(e) => assert_eq!(e.miss, 4000),
            e => panic!("{e:?}"),
        }
        let r2 = fixed(&sc, &r, CauseKind::BoundsExcludeAll);
        assert_eq!(r2.outputs.len(), 1);
        let (_, r) = run(&json(r#"{"lower":"-1s","upper":"6s"}"#));
        assert_eq!(r.diagnosis, None);
    }

    #[test]
    fn windows_that_split_every_pair() {
        let tumbling = r#","window":{"size":"10s"}"#;
        let (sc, r) = run(&wjoin(tumbling, r"x, 9500", r"x, 10500"));
        let c = cause(&r, CauseKind::BoundsExcludeAll);
        match &c.evidence {
            Evidence::Bounds(e) => {
                assert_eq!(e.miss, 501);
                assert_eq!(e.missed, "window [0, 10000)");
            }
            e => panic!("{e:?}"),
        }
        let r2 = fixed(&sc, &r, CauseKind::BoundsExcludeAll);
        assert_eq!(r2.outputs.len(), 1);
        // Farther apart than the window size: the size grows.
        let (sc, r) = run(&wjoin(tumbling, r"x, 1s", r"x, 25s"));
        let fix = &cause(&r, CauseKind::BoundsExcludeAll)
            .fix
            .as_ref()
            .unwrap()
            .patch;
        assert!(fix.contains_key("job.window.size"), "{fix:?}");
        assert_eq!(fixed(&sc, &r, CauseKind::BoundsExcludeAll).outputs.len(), 1);
        // Sliding and session windows.
        let sliding = r#","window":{"kind":"sliding","size":"4s","slide":"2s"}"#;
        let (sc, r) = run(&wjoin(sliding, r"x, 1s", r"x, 7s"));
        assert_eq!(fixed(&sc, &r, CauseKind::BoundsExcludeAll).outputs.len(), 1);
        let session = r#","window":{"kind":"session","gap":"2s"}"#;
        let (sc, r) = run(&wjoin(session, r"x, 1s\nx, 2s", r"x, 5s"));
        match &cause(&r, CauseKind::BoundsExcludeAll).evidence {
            Evidence::Bounds(e) => assert_eq!(e.miss, 1001),
            e => panic!("{e:?}"),
        }
        assert_eq!(fixed(&sc, &r, CauseKind::BoundsExcludeAll).outputs.len(), 2);
        let (_, r) = run(&wjoin(tumbling, r"x, 8500", r"x, 9500"));
        assert_eq!(r.diagnosis, None);
    }

    #[test]
    fn late_rows_and_the_watermark_they_lost_to() {
        let rows = r"u1, 1s\nu1, 12s\nu1, 3s";
        let (sc, r) = run(&agg(1, "{}", true, rows));
        let c = cause(&r, CauseKind::LateRows);
        match &c.evidence {
            Evidence::Late(e) => {
                assert_eq!((e.rows, e.max_behind), (1, 11_999 - 3000));
                assert_eq!(e.examples[0].watermark, Watermark(11_999));
                assert_eq!(e.examples[0].origin.as_ref().unwrap().max_ts, Some(12_000));
            }
            e => panic!("{e:?}"),
        }
        assert_eq!(c.step, Some(r.late[0].step));
        let r2 = fixed(&sc, &r, CauseKind::LateRows);
        assert!(r2.late.is_empty());
        // The interval join: a larger delay.
        let b = r#"{"lower":"-1s","upper":"1s"}"#;
        let (sc, r) = run(&ijoin(b, r"x, 1s\nx, 12s\nx, 3s", r"x, 3500"));
        let fix = &cause(&r, CauseKind::LateRows).fix.as_ref().unwrap().patch;
        assert!(fix.contains_key("job.watermark.delay"), "{fix:?}");
        let r2 = fixed(&sc, &r, CauseKind::LateRows);
        assert!(r2.late.is_empty());
        assert_eq!(r2.outputs.len(), 1);
        let (_, r) = run(&agg(1, "{}", true, r"u1, 1s\nu1, 3s\nu1, 12s"));
        assert_eq!(r.diagnosis, None);
    }

    #[test]
    fn split_rows_that_match_no_route() {
        let json = |otherwise: &str| {
            format!(
                r#"{{"job":{{"operator":"split","split":{{"column":"v","routes":[{{"value":"a","to":"main"}}]{otherwise}}}}},
                "streams":[{{"name":"s","columns":["v"],"rows":"a\nb\nc"}}]}}"#
            )
        };
        let (sc, r) = run(&json(""));
        match &cause(&r, CauseKind::UnroutedRows).evidence {
            Evidence::Unrouted { rows, values } => {
                assert_eq!(*rows, 2);
                assert_eq!(values, &vec!["b".to_string(), "c".to_string()]);
            }
            e => panic!("{e:?}"),
        }
        let r2 = fixed(&sc, &r, CauseKind::UnroutedRows);
        assert_eq!(r2.outputs.len(), 3);
        let (_, r) = run(&json(r#","otherwise":"rest""#));
        assert_eq!(r.diagnosis, None);
    }

    #[test]
    fn regular_join_keys_and_an_empty_input() {
        let json = |left: &str, right: &str| {
            format!(
                r#"{{"job":{{"operator":"regular_join"}},
                "streams":[{{"name":"a","columns":["k:int","v"],"key":"k","rows":"{left}"}},
                           {{"name":"b","columns":["k:int","w"],"key":"k","rows":"{right}"}}]}}"#
            )
        };
        let (_, r) = run(&json(r"1, x\n2, y", r"3, z"));
        assert_eq!(kinds(&r), vec![CauseKind::KeysNeverMeet]);
        let (_, r) = run(&json(r"1, x\n2, y", ""));
        assert_eq!(kinds(&r), vec![CauseKind::EmptyInput]);
        let (_, r) = run(&json(r"1, x\n2, y", r"2, z"));
        assert_eq!(r.diagnosis, None);
    }

    #[test]
    fn the_lean_and_the_traced_result_agree() {
        let wm = r#"{"per_event":false,"interval":"200ms"}"#;
        let sc = Scenario::from_json(&agg(2, wm, true, STALLED)).unwrap();
        let lean = crate::run(&sc, false).unwrap();
        let traced = crate::run(&sc, true).unwrap();
        assert!(lean.diagnosis.is_some());
        assert_eq!(lean.diagnosis, traced.diagnosis);
        // The evidence's steps are the trace's: the idle assigner's last row arrives there.
        let c = cause(&traced, CauseKind::IdleAssigner);
        let step = &traced.trace.as_ref().unwrap()[c.step.unwrap()];
        assert!(matches!(step.cause, crate::trace::Cause::Row { row, .. } if row == RowId(0)));
    }

    #[test]
    fn patches_apply_to_the_scenario_document() {
        let sc = Scenario::from_json(&wjoin("", "x, 1", "x, 2")).unwrap();
        let fix = Fix {
            patch: BTreeMap::from([
                (
                    "streams.1.watermark.idle_timeout".to_string(),
                    serde_json::json!("5s"),
                ),
                ("job.final_watermark".to_string(), serde_json::json!(false)),
            ]),
            message: String::new(),
        };
        let sc2 = apply_fix(&sc, &fix).unwrap();
        assert_eq!(
            sc2.streams[1].watermark.as_ref().unwrap().idle_timeout,
            Some(crate::time::Millis(5000))
        );
        assert!(!sc2.job.final_watermark);
        let bad = Fix {
            patch: BTreeMap::from([("streams.7.rows".to_string(), serde_json::json!(""))]),
            message: String::new(),
        };
        assert!(apply_fix(&sc, &bad).is_err());
    }

    #[test]
    fn nice_values() {
        assert_eq!(
            [0, 1, 3, 7, 19, 99, 100, 4999, 9700].map(nice_floor),
            [1, 1, 2, 5, 10, 50, 100, 2000, 5000]
        );
    }
}
