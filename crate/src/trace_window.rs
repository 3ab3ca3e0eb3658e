//! The trace of a window of steps, for an input too large for a full trace: the page's
//! stepper asks for the steps around its slider instead of materialising every step.
//!
//! The run is the ordinary one ([`crate::sim::with_trace_window`]): untraced up to the
//! window, traced inside it, stopped after it. What the window's steps refer to — rows, keys,
//! outputs, late rows, window results, side outputs — comes with it, by id or index, since the
//! page does not hold the full lists of a large input.

use crate::error::Error;
use crate::plan::{self, KeyId, Limits, RowId};
use crate::result::{KeyView, Late, Output, RowInfo, RunResult, SideOut, WindowOut};
use crate::scenario::Scenario;
use crate::sim::{self, RunOptions};
use crate::trace::{Cause, Event, Step, SubtaskState};
use serde::Serialize;
use std::collections::BTreeMap;

/// Rows of a `Cleared` event whose details come with the window.
const CLEARED_ROWS: usize = 10;

/// Steps `[from, from + steps.len())` of a run and what they refer to.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct TraceWindow {
    pub from: usize,
    pub steps: Vec<Step>,
    /// The number of steps of the whole run, when the window reached its end; otherwise the
    /// run stopped after the window and the count is the lean run's `steps`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_steps: Option<usize>,
    /// The counts and watermarks after step `from - 1` (absent when the run has fewer steps).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<sim::WindowStart>,
    /// The state and timers of every operator subtask after the window's last step.
    pub state_end: Vec<SubtaskState>,
    /// The rows the steps refer to, by row id.
    pub rows: BTreeMap<u32, RowInfo>,
    /// The keys of those rows and of the steps' timers, by key id.
    pub keys: BTreeMap<u32, KeyView>,
    /// The results the steps emitted, by their index in the full result's lists.
    pub outputs: BTreeMap<usize, Output>,
    pub late: BTreeMap<usize, Late>,
    pub windows: BTreeMap<usize, WindowOut>,
    pub side_outputs: BTreeMap<String, BTreeMap<usize, SideOut>>,
}

/// Runs `scenario` with the trace of steps `[from, from + count)` only (without per-step
/// snapshots: the state at a step is [`crate::state_at`]).
pub fn trace_window(scenario: &Scenario, from: usize, count: usize) -> Result<TraceWindow, Error> {
    let plan = plan::build(scenario, Limits::default())?;
    let opts = RunOptions::default();
    let mut out = sim::with_trace_window(from, count.max(1), || crate::run_plan(&plan, &opts))?;
    let steps = std::mem::take(&mut out.steps);
    let reached_end = steps
        .last()
        .is_some_and(|s| matches!(s.cause, Cause::EndOfInput { .. }))
        || from >= out.step_count;
    let total_steps = reached_end.then_some(out.step_count);
    let state_end = std::mem::take(&mut out.final_state);
    let before = out.window_start.take();
    let mut rows: BTreeMap<u32, RowInfo> = BTreeMap::new();
    let mut keys: Vec<KeyId> = Vec::new();
    let add_row = |id: RowId, rows: &mut BTreeMap<u32, RowInfo>| {
        rows.entry(id.0).or_insert_with(|| RowInfo::of(&plan, id));
    };
    let (mut o, mut l, mut w) = (Vec::new(), Vec::new(), Vec::new());
    let mut so: Vec<(String, usize)> = Vec::new();
    for s in &steps {
        if let Cause::Row { row, .. } = s.cause {
            add_row(row, &mut rows);
        }
        for e in &s.events {
            match e {
                Event::Route { row, .. } | Event::Buffered { row, .. } => add_row(*row, &mut rows),
                Event::AssignerWatermark {
                    from_row: Some(row),
                    ..
                } => add_row(*row, &mut rows),
                // The stepper names the first few rows of a clean-up (the end of input may
                // clear every buffered row at once).
                Event::Cleared { rows: r, .. } => r
                    .iter()
                    .take(CLEARED_ROWS)
                    .for_each(|id| add_row(*id, &mut rows)),
                Event::TimerRegistered { key, .. }
                | Event::TimerDeleted { key, .. }
                | Event::TimerFired { key, .. } => keys.push(*key),
                Event::Output { index } => o.push(*index),
                Event::Late { index } => l.push(*index),
                Event::Window { index } => w.push(*index),
                Event::SideOutput { tag, index } => so.push((tag.clone(), *index)),
                _ => {}
            }
        }
    }
    let full = RunResult::build(&plan, out, false);
    let outputs = o
        .iter()
        .filter_map(|&i| full.outputs.get(i).map(|v| (i, v.clone())))
        .collect();
    let late = l
        .iter()
        .filter_map(|&i| full.late.get(i).map(|v| (i, v.clone())))
        .collect();
    let windows = w
        .iter()
        .filter_map(|&i| full.windows.get(i).map(|v| (i, v.clone())))
        .collect();
    let mut side_outputs: BTreeMap<String, BTreeMap<usize, SideOut>> = BTreeMap::new();
    for (tag, i) in so {
        if let Some(v) = full.side_outputs.get(&tag).and_then(|l| l.get(i)) {
            side_outputs.entry(tag).or_default().insert(i, v.clone());
        }
    }
    keys.extend(rows.values().map(|r| r.key));
    let keys = keys
        .into_iter()
        .map(|k| (k.0, KeyView::of(&plan, k)))
        .collect();
    Ok(TraceWindow {
        from,
        steps,
        total_steps,
        before,
        state_end,
        rows,
        keys,
        outputs,
        late,
        windows,
        side_outputs,
    })
}
