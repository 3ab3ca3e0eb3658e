//! The step-by-step trace of a run: what happened at each arrival, watermark and timer.
//!
//! The page draws everything from this (and from [`crate::sim::RunOutput`]); nothing is
//! recomputed in JavaScript. Rows are referred to by [`RowId`], outputs by their index in the
//! result lists.

use crate::parse::Side;
use crate::partition::{KeyGroup, SubtaskIndex};
use crate::plan::{KeyId, RowId};
use crate::time::Watermark;
use serde::Serialize;

/// What started a step.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Cause {
    /// A data row arrived at an assigner subtask.
    Row {
        row: RowId,
        stream: Side,
        assigner: u32,
        processing_time: i64,
    },
    /// A `WM <time>` row arrived at an assigner subtask.
    WatermarkRow {
        stream: Side,
        line: u32,
        assigner: u32,
        value: i64,
        processing_time: i64,
    },
    /// The periodic watermark timer of the assigners fired (simulated processing time).
    PeriodicEmit { processing_time: i64 },
    /// Processing-time timers of the operator fired.
    ProcessingTime { processing_time: i64 },
    /// End of input: every source emits `Watermark(Long.MAX_VALUE)` (if enabled).
    EndOfInput { final_watermark: bool },
}

/// One thing that happened within a step.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// keyBy routing of a row: key → key group → operator subtask (or forward for a split).
    Route {
        row: RowId,
        key: Option<KeyId>,
        key_group: Option<KeyGroup>,
        subtask: SubtaskIndex,
    },
    /// An assigner subtask forwarded a new watermark (`from_row`: the row that set its max ts).
    AssignerWatermark {
        stream: Side,
        assigner: u32,
        watermark: Watermark,
        from_row: Option<RowId>,
    },
    /// An assigner subtask's generator computed `candidate` and its emitter did not forward
    /// it: not strictly greater than `last`, the last watermark sent
    /// (`TimestampsAndWatermarksOperator.WatermarkEmitter.emitWatermark`). Emitted for
    /// per-event generators after each row, for `WM` rows, and for the periodic emits of a
    /// step in which some assigner forwarded a watermark (a periodic emit that forwards
    /// nothing anywhere makes no step). Traced runs only.
    AssignerHeld {
        stream: Side,
        assigner: u32,
        candidate: Watermark,
        last: Watermark,
    },
    /// An assigner subtask went idle (`WatermarkStatus.IDLE`) or active again.
    AssignerStatus {
        stream: Side,
        assigner: u32,
        idle: bool,
    },
    /// An operator subtask's input channel received a watermark.
    ChannelWatermark {
        subtask: SubtaskIndex,
        stream: Side,
        assigner: u32,
        watermark: Watermark,
    },
    /// An operator subtask's (combined) watermark advanced; timers up to it fire first.
    OperatorWatermark {
        subtask: SubtaskIndex,
        watermark: Watermark,
        output: Watermark,
    },
    TimerRegistered {
        subtask: SubtaskIndex,
        key: KeyId,
        timestamp: i64,
        what: String,
        processing: bool,
    },
    TimerDeleted {
        subtask: SubtaskIndex,
        key: KeyId,
        timestamp: i64,
        what: String,
        processing: bool,
    },
    TimerFired {
        subtask: SubtaskIndex,
        key: KeyId,
        timestamp: i64,
        what: String,
        processing: bool,
    },
    /// A row was added to an operator's state.
    Buffered {
        subtask: SubtaskIndex,
        row: RowId,
        what: String,
    },
    /// Rows were removed from an operator's state.
    Cleared {
        subtask: SubtaskIndex,
        rows: Vec<RowId>,
        what: String,
    },
    /// `outputs[index]` was emitted.
    Output { index: usize },
    /// `windows[index]` (a window aggregation result) was emitted.
    Window { index: usize },
    /// `late[index]` was dropped or sent to a late side output.
    Late { index: usize },
    /// `side_outputs[tag][index]` was emitted.
    SideOutput { tag: String, index: usize },
}

/// One step of the run.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Step {
    pub index: usize,
    pub cause: Cause,
    pub events: Vec<Event>,
    /// State of the operator subtasks this step touched, after the step.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub state: Vec<SubtaskState>,
}

/// A subtask's operator state and pending timers, for display.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SubtaskState {
    pub subtask: SubtaskIndex,
    pub watermark: Watermark,
    pub entries: Vec<StateEntry>,
    pub timers: Vec<TimerView>,
}

/// One piece of keyed state: e.g. the left buffer of key `10` at timestamp 9, or the contents
/// of window `[0, 10000)` of key `Alice`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct StateEntry {
    pub key: KeyId,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
    /// What the entry is, in words ("ts 9", "window [0, 10000)").
    pub scope: String,
    pub rows: Vec<RowId>,
    /// The window `[start, end)`, for window state.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<[i64; 2]>,
}

/// A pending timer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct TimerView {
    pub key: KeyId,
    pub timestamp: i64,
    pub what: String,
    pub processing: bool,
}
