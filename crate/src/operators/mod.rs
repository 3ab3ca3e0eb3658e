//! The keyed operators, one file each, behind one trait the simulator drives.
//!
//! An operator sees exactly what a Flink operator sees: elements (`processElement1/2`), and
//! timers firing (`onEventTime` / `onProcessingTime`) when the simulator advances the
//! subtask's watermark or processing time. It registers timers, emits results and reports
//! late rows through [`Ctx`]; the simulator does the rest (routing, watermarks, trace).
//!
//! # Counting work
//!
//! Every run has a work budget and a memory budget ([`crate::budget`], defaults in
//! [`crate::plan::Limits`]). The simulator already counts timer firings, the trace, and the
//! memory of state, results and trace (from [`Operator::state_rows`], which must therefore
//! be kept exact); results are bounded by `Limits::max_outputs`. An operator counts what
//! only it knows, with one call per unit of work that can grow faster than its input:
//!
//! ```ignore
//! // each row a join scans in the other side's buffer, matched or not
//! if !cx.charge(Work::PairsTried, candidates.len() as u64) {
//!     return; // past the budget: the run stops after this step with a Limit error
//! }
//! ```
//!
//! Charge windows a row is assigned to (`Work::WindowAssignments`), pairs tried
//! (`Work::PairsTried`), merge or scan steps over in-flight state (`Work::MergeSteps`),
//! state entries written beyond one per row (`Work::StateEntries`). `charge` returns `false`
//! once the budget is spent; stopping early is optional (the simulator stops the run at the
//! end of the step and reports what grew), but a loop whose length comes from user settings
//! should stop, so that one step cannot run for long. Never allocate in proportion to a
//! setting before charging for it. When a new kind of growth needs its own words in the
//! message, add a `Work` kind and a line to `sim::limit_message`.

pub mod interval_join;
pub mod lookup_join;
pub mod regular_join;
pub mod session_tvf;
pub mod split;
pub mod sql_interval_join;
pub mod temporal_join;
pub mod time_window;
pub mod tvf_slicing;
pub mod window;
pub mod window_tvf_aggregate;
pub mod window_tvf_join;

use crate::budget::Budget;
pub use crate::budget::Work;
use crate::parse::{RowKind, Side};
use crate::partition::SubtaskIndex;
use crate::plan::{KeyId, Plan, RowId};
use crate::time::Watermark;
use crate::timers::{Timer, TimerQueue};
use crate::trace::{Event, StateEntry};
use serde::Serialize;
use std::fmt::Debug;
use std::hash::Hash;

/// A join result (or a padded outer-join row, or a split's main-output row).
///
/// Packed into 32 bytes (a run can hold tens of millions): the timestamp without an
/// `Option` tag, the step as `u32`, the subtask as `u16` (operator parallelism ≤ 32768);
/// the window of a window-join result lives in [`Sink::output_window`].
#[derive(Clone, Debug, PartialEq)]
pub struct OutputRow {
    pub left: Option<RowId>,
    pub right: Option<RowId>,
    timestamp: i64,
    step: u32,
    subtask: u16,
    has_timestamp: bool,
    pub kind: RowKind,
}

// 32 bytes: see the type's documentation.
const _: () = assert!(std::mem::size_of::<OutputRow>() == 32);

impl OutputRow {
    /// The output record's timestamp (`None` for SQL results, which carry none).
    pub fn timestamp(&self) -> Option<i64> {
        self.has_timestamp.then_some(self.timestamp)
    }

    /// The operator subtask that emitted it.
    pub fn subtask(&self) -> SubtaskIndex {
        SubtaskIndex(self.subtask as u32)
    }

    /// The trace step that produced it.
    pub fn step(&self) -> usize {
        self.step as usize
    }
}

/// A value of an operator-produced SQL row (an aggregate's result, a window bound, a key).
///
/// Serialized as JSON: numbers as numbers, strings, booleans, `null`, and timestamps as
/// `"YYYY-MM-DD HH:MM:SS.sss"` (UTC, always with milliseconds), as Flink prints a
/// `TIMESTAMP(3)`.
#[derive(Clone, Debug, PartialEq)]
pub enum SqlValue {
    Null,
    Bool(bool),
    Int(i64),
    Double(f64),
    Str(String),
    /// Epoch milliseconds of a `TIMESTAMP(3)`.
    Timestamp(i64),
    /// A `DECIMAL(p, s)`: a JSON number with Flink's text (`1.50`); boxed as in `Value`.
    Decimal(Box<crate::decimal::Decimal>),
}

impl SqlValue {
    /// The SQL value of an input field.
    pub fn of(v: &crate::value::Value) -> SqlValue {
        use crate::value::Value;
        match v {
            Value::Null => SqlValue::Null,
            Value::Str(s) => SqlValue::Str(s.to_string()),
            Value::Int(i) => SqlValue::Int(*i as i64),
            Value::Long(i) => SqlValue::Int(*i),
            Value::Double(d) => SqlValue::Double(*d),
            Value::Bool(b) => SqlValue::Bool(*b),
            Value::Decimal(d) => SqlValue::Decimal(d.clone()),
        }
    }

    /// `YYYY-MM-DD HH:MM:SS.sss` of epoch milliseconds (UTC).
    pub fn timestamp_text(ms: i64) -> String {
        let t = crate::time::format_datetime(ms);
        if ms.rem_euclid(1000) == 0 {
            format!("{t}.000")
        } else {
            t
        }
    }
}

impl Serialize for SqlValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SqlValue::Null => s.serialize_none(),
            SqlValue::Bool(b) => s.serialize_bool(*b),
            SqlValue::Int(i) => s.serialize_i64(*i),
            SqlValue::Double(d) if d.is_finite() => s.serialize_f64(*d),
            SqlValue::Double(d) => s.serialize_str(&d.to_string()),
            SqlValue::Str(t) => s.serialize_str(t),
            SqlValue::Timestamp(ms) => s.serialize_str(&SqlValue::timestamp_text(*ms)),
            SqlValue::Decimal(d) => crate::value::serialize_decimal(d, s),
        }
    }
}

/// As the CLI's report shows a value: `NULL`, numbers, text, timestamps as
/// `YYYY-MM-DD HH:MM:SS.sss`.
impl std::fmt::Display for SqlValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SqlValue::Null => f.write_str("NULL"),
            SqlValue::Bool(b) => write!(f, "{}", if *b { "TRUE" } else { "FALSE" }),
            SqlValue::Int(i) => write!(f, "{i}"),
            SqlValue::Double(d) => write!(f, "{d}"),
            SqlValue::Str(t) => f.write_str(t),
            SqlValue::Timestamp(ms) => f.write_str(&SqlValue::timestamp_text(*ms)),
            SqlValue::Decimal(d) => write!(f, "{d}"),
        }
    }
}

/// The values of one output row (SQL operators that compute their own columns), with the
/// input rows it was computed from. `index` is the output's index in [`Sink::outputs`] (both
/// are cleared together when a run drains them).
#[derive(Clone, Debug, PartialEq)]
pub struct OutputValues {
    pub index: usize,
    pub values: Vec<SqlValue>,
    pub rows: Vec<RowId>,
}

/// A window aggregation result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WindowResult {
    pub key: KeyId,
    pub start: i64,
    pub end: i64,
    pub count: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sum: Option<f64>,
    /// `window.maxTimestamp()` = end − 1.
    pub timestamp: i64,
    pub subtask: SubtaskIndex,
    pub step: usize,
    /// The rows in the window at this firing, in arrival order.
    pub rows: Vec<RowId>,
    /// 1 for the first firing of this window, 2.. for re-firings on allowed-late rows.
    pub firing: u32,
}

/// Why a row was late, as data.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum LateRule {
    /// `IntervalJoinOperator.isLate`: `ts < watermark`.
    IntervalJoin,
    /// `WindowOperator.isElementLate` (`ts + allowedLateness <= watermark`) and every window
    /// the row belongs to is late (`maxTimestamp + allowedLateness <= watermark`).
    Window {
        allowed_lateness: i64,
        windows: Vec<(i64, i64)>,
    },
    /// A SQL window aggregation (`AbstractSliceSyncStateWindowAggProcessor.processElement`,
    /// `MergingWindowProcessFunction.isWindowLate`): the last window the row's slice belongs to
    /// had already fired at the operator's progress (`windowEnd − 1 <= progress`).
    WindowTvf {
        /// The last window of the row's slice (SESSION: the row's own window).
        window: (i64, i64),
        /// The progress (watermark) of the aggregating subtask.
        progress: i64,
        /// The slice the row was assigned to.
        slice: (i64, i64),
        /// Which record the subtask dropped (numbered per subtask): the rows of one local
        /// accumulator share it, as Flink's `numLateRecordsDropped` counts them.
        record: u64,
        /// Whether the row came through a local (pre-shuffle) aggregate, which sent it on
        /// later than it arrived.
        local: bool,
        /// With `GROUPING SETS`: the set of the dropped copy, as `(a, b) $e=1`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        grouping_set: Option<String>,
    },
    /// `WindowJoinHelper.processElement` (SQL window join): the copy of the row for `window`
    /// is dropped because `isWindowFired` (`window_end - 1 <= watermark`); counted in
    /// `left/rightNumLateRecordsDropped`, no side output.
    WindowTvfJoin { window: (i64, i64) },
    /// `UnalignedWindowTableFunctionOperator.processElement` (SESSION TVF before a window
    /// join): the row's own window `[ts, ts + gap)` merged with no open session and had
    /// already ended (`maxTimestamp <= watermark`, `MergingWindowProcessFunction
    /// .isWindowLate`); the TVF drops it and counts it in its `numLateRecordsDropped`. The
    /// late row's watermark is the TVF's (its input's), not the join's.
    SessionTvf {
        window: (i64, i64),
        /// The TVF subtask's `numLateRecordsDropped` after this row.
        record: u64,
    },
}

/// A late row, dropped or sent to a late side output.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct LateRow {
    pub row: RowId,
    pub subtask: SubtaskIndex,
    pub step: usize,
    /// The operator watermark it lost to.
    pub watermark: Watermark,
    pub reason: LateRule,
    /// Where that watermark came from.
    pub origin: Option<WatermarkOrigin>,
    /// The late side output's tag, or `None` when dropped.
    pub side_output: Option<String>,
}

/// Which assigner subtask's watermark an operator subtask's watermark equals.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct WatermarkOrigin {
    pub stream: Side,
    pub assigner: u32,
    /// The assigner's highest timestamp and the row that carried it (`None`: a `WM` row or
    /// end of input).
    pub max_ts: Option<i64>,
    pub from_row: Option<RowId>,
    pub end_of_input: bool,
}

/// A row emitted to a side output.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SideRow {
    pub row: RowId,
    pub timestamp: Option<i64>,
    pub subtask: SubtaskIndex,
    pub step: usize,
}

/// Everything a run produces, in emission order.
#[derive(Clone, Debug, Default)]
pub struct Sink {
    pub outputs: Vec<OutputRow>,
    /// The computed values of outputs that have them ([`Ctx::emit_values`]), by output index
    /// in increasing order; empty for operators whose outputs are input rows.
    pub output_values: Vec<OutputValues>,
    /// The window column of `outputs`, run-length encoded: (index of the first output of a
    /// run, the window of that run's outputs). Read it with [`Sink::output_window`].
    pub(crate) output_windows: Vec<(usize, Option<(i64, i64)>)>,
    pub windows: Vec<WindowResult>,
    pub late: Vec<LateRow>,
    /// (tag, rows) in the order tags first appeared.
    pub side_outputs: Vec<(String, Vec<SideRow>)>,
    /// Trace events of the current step (when tracing).
    pub events: Vec<Event>,
    pub tracing: bool,
    pub step: usize,
    /// How many of `Plan::arrivals` the sources have read so far (the current one included
    /// while it is processed; all of them at the end of input): what an operator that models a
    /// stage before its shuffle needs to know of the rows that went to other subtasks.
    pub arrivals_read: usize,
    pub max_outputs: usize,
    pub overflow: bool,
    /// Outputs, window results and late rows already handed to a consumer and cleared
    /// ([`crate::sim::simulate_draining`]); they still count towards `max_outputs`.
    pub drained: usize,
    /// The run's work and memory budget ([`crate::budget`]).
    pub budget: Budget,
    /// The rows a SESSION window TVF emitted before a window join, with their session, in
    /// emission order (empty for every other job).
    pub session_windows: Vec<(RowId, (i64, i64))>,
    /// Row lists of drained window results, emptied, for the window operator to reuse
    /// (`Sink::spare_rows()`): a drained run then allocates no list per window.
    pub(crate) spare_rows: Vec<Vec<RowId>>,
}

/// At most this many drained row lists are kept for reuse (a drain hands over at least
/// `chunk` results, so about one chunk of window results' lists), each of at most
/// [`SPARE_ROW_CAPACITY`] rows: at most 4 MB held.
const SPARE_ROWS_MAX: usize = 4096;
const SPARE_ROW_CAPACITY: usize = 256;

impl Sink {
    /// The window output `i` came from (window join), `None` otherwise.
    pub fn output_window(&self, i: usize) -> Option<(i64, i64)> {
        let k = self.output_windows.partition_point(|r| r.0 <= i);
        k.checked_sub(1).and_then(|k| self.output_windows[k].1)
    }

    /// The windows of all outputs, in order (the same as `output_window(i)` for each `i`).
    pub fn output_windows(&self) -> impl Iterator<Item = Option<(i64, i64)>> + '_ {
        let runs = &self.output_windows;
        let mut k = 0;
        (0..self.outputs.len()).map(move |i| {
            while k + 1 < runs.len() && runs[k + 1].0 <= i {
                k += 1;
            }
            runs.get(k).and_then(|r| r.1)
        })
    }

    fn count(&self) -> usize {
        self.drained + self.outputs.len() + self.windows.len() + self.late.len()
    }

    /// Hands the outputs, window results and late rows gathered so far to `consumer` and
    /// clears them (keeping their memory), so a long run's output buffer stays small and
    /// in cache. Only used with the trace off: the trace refers to outputs by index.
    pub(crate) fn drain(&mut self, consumer: &mut dyn FnMut(&Sink)) {
        consumer(self);
        self.drained += self.outputs.len() + self.windows.len() + self.late.len();
        self.budget.result_rows = 0;
        self.outputs.clear();
        self.output_values.clear();
        self.output_windows.clear();
        for w in self.windows.drain(..) {
            if self.spare_rows.len() == SPARE_ROWS_MAX {
                break;
            }
            if w.rows.capacity() > 0 && w.rows.capacity() <= SPARE_ROW_CAPACITY {
                let mut rows = w.rows;
                rows.clear();
                self.spare_rows.push(rows);
            }
        }
        self.windows.clear();
        self.late.clear();
    }

    /// An empty row list of a drained window result, if one is kept.
    pub(crate) fn spare_rows(&mut self) -> Option<Vec<RowId>> {
        self.spare_rows.pop()
    }
    fn check(&mut self) -> bool {
        if self.count() >= self.max_outputs {
            self.overflow = true;
            false
        } else {
            true
        }
    }
    pub fn side_output(&mut self, tag: &str, row: SideRow) {
        let idx = match self.side_outputs.iter().position(|(t, _)| t == tag) {
            Some(i) => i,
            None => {
                self.side_outputs.push((tag.to_string(), Vec::new()));
                self.side_outputs.len() - 1
            }
        };
        let list = &mut self.side_outputs[idx].1;
        list.push(row);
        if self.tracing {
            let index = list.len() - 1;
            self.events.push(Event::SideOutput {
                tag: tag.to_string(),
                index,
            });
        }
    }
}

/// What an operator may do while handling an element or a timer.
pub struct Ctx<'a, N: Clone + Eq + Hash> {
    pub plan: &'a Plan,
    pub subtask: SubtaskIndex,
    /// The timer service's current watermark (the subtask's operator watermark).
    pub watermark: Watermark,
    /// Simulated processing time.
    pub processing_time: i64,
    pub timers: &'a mut TimerQueue<KeyId, N>,
    pub processing_timers: &'a mut TimerQueue<KeyId, N>,
    pub sink: &'a mut Sink,
    /// Where the current watermark came from (for late reasons). Computed only when tracing
    /// or when the operator declares [`Operator::REPORTS_LATE`].
    pub origin: &'a Option<WatermarkOrigin>,
    pub describe: fn(&N) -> String,
}

impl<N: Clone + Eq + Hash> Ctx<'_, N> {
    /// Counts `n` units of `work` against the run's budget; `false` once it is spent (see
    /// the module documentation).
    #[inline]
    pub fn charge(&mut self, work: Work, n: u64) -> bool {
        self.sink.budget.charge(work, n)
    }

    /// Adds or deletes a timer of either queue, tracing it if it changed the queue.
    fn change_timer(&mut self, processing: bool, add: bool, key: KeyId, timestamp: i64, ns: N) {
        let what = if self.sink.tracing {
            (self.describe)(&ns)
        } else {
            String::new()
        };
        let queue = if processing {
            &mut *self.processing_timers
        } else {
            &mut *self.timers
        };
        let timer = Timer {
            timestamp,
            key,
            namespace: ns,
        };
        let changed = if add {
            queue.add(timer)
        } else {
            queue.delete(&timer)
        };
        if changed && self.sink.tracing {
            let subtask = self.subtask;
            self.sink.events.push(if add {
                Event::TimerRegistered {
                    subtask,
                    key,
                    timestamp,
                    what,
                    processing,
                }
            } else {
                Event::TimerDeleted {
                    subtask,
                    key,
                    timestamp,
                    what,
                    processing,
                }
            });
        }
    }

    /// Registers an event-time timer (a no-op if the same one is pending).
    pub fn register_event_timer(&mut self, key: KeyId, timestamp: i64, ns: N) {
        self.change_timer(false, true, key, timestamp, ns);
    }

    /// Deletes a pending event-time timer.
    pub fn delete_event_timer(&mut self, key: KeyId, timestamp: i64, ns: N) {
        self.change_timer(false, false, key, timestamp, ns);
    }

    /// Registers a processing-time timer (a no-op if the same one is pending).
    pub fn register_processing_timer(&mut self, key: KeyId, timestamp: i64, ns: N) {
        self.change_timer(true, true, key, timestamp, ns);
    }

    /// Deletes a pending processing-time timer.
    pub fn delete_processing_timer(&mut self, key: KeyId, timestamp: i64, ns: N) {
        self.change_timer(true, false, key, timestamp, ns);
    }

    /// Emits a join result / padded row / main-output row.
    pub fn emit(
        &mut self,
        left: Option<RowId>,
        right: Option<RowId>,
        timestamp: Option<i64>,
        kind: RowKind,
        window: Option<(i64, i64)>,
    ) {
        // Not charged to the work budget: results are bounded by `Limits::max_outputs` and
        // counted in the memory estimate, and this is the hottest call of a join.
        if !self.sink.check() {
            return;
        }
        let step = self.sink.step;
        debug_assert!(step <= u32::MAX as usize && self.subtask.0 <= u16::MAX as u32);
        let index = self.sink.outputs.len();
        if self.sink.output_windows.last().map(|r| r.1) != Some(window) {
            self.sink.output_windows.push((index, window));
        }
        self.sink.outputs.push(OutputRow {
            left,
            right,
            timestamp: timestamp.unwrap_or(0),
            step: step as u32,
            subtask: self.subtask.0 as u16,
            has_timestamp: timestamp.is_some(),
            kind,
        });
        if self.sink.tracing {
            let index = self.sink.outputs.len() - 1;
            self.sink.events.push(Event::Output { index });
        }
    }

    /// Emits `Insert` results of every left row with every right row, left-major, with
    /// `timestamp` and `window`: exactly what [`Ctx::emit`] per pair does, with the checks
    /// done once for the whole product when it fits under `max_outputs` (a window join's
    /// firing emits a window's pairs at once).
    pub fn emit_pairs(
        &mut self,
        lefts: &[RowId],
        rights: &[RowId],
        timestamp: i64,
        window: (i64, i64),
    ) {
        let n = lefts.len() * rights.len();
        if n == 0 {
            return;
        }
        if self.sink.tracing || self.sink.count() + n > self.sink.max_outputs {
            for &l in lefts {
                for &r in rights {
                    self.emit(
                        Some(l),
                        Some(r),
                        Some(timestamp),
                        RowKind::Insert,
                        Some(window),
                    );
                }
            }
            return;
        }
        let step = self.sink.step;
        debug_assert!(step <= u32::MAX as usize && self.subtask.0 <= u16::MAX as u32);
        let index = self.sink.outputs.len();
        if self.sink.output_windows.last().map(|r| r.1) != Some(Some(window)) {
            self.sink.output_windows.push((index, Some(window)));
        }
        let out = &mut self.sink.outputs;
        out.reserve(n);
        for &l in lefts {
            out.extend(rights.iter().map(|&r| OutputRow {
                left: Some(l),
                right: Some(r),
                timestamp,
                step: step as u32,
                subtask: self.subtask.0 as u16,
                has_timestamp: true,
                kind: RowKind::Insert,
            }));
        }
    }

    /// Emits an insert-only SQL row with computed `values` (in the operator's column order),
    /// computed from `rows`, for `window`.
    pub fn emit_values(&mut self, values: Vec<SqlValue>, rows: Vec<RowId>, window: (i64, i64)) {
        let index = self.sink.outputs.len();
        let before = self.sink.overflow;
        self.emit(None, None, None, RowKind::Insert, Some(window));
        if self.sink.outputs.len() > index && !before {
            self.sink.output_values.push(OutputValues {
                index,
                values,
                rows,
            });
        }
    }

    /// Emits a window aggregation result. Charge [`Work::ResultRows`] before copying `rows`
    /// out of state (a window re-fired on every allowed-late row copies them each time).
    #[allow(clippy::too_many_arguments)]
    pub fn emit_window(
        &mut self,
        key: KeyId,
        start: i64,
        end: i64,
        count: u64,
        sum: Option<f64>,
        rows: Vec<RowId>,
        firing: u32,
    ) {
        if !self.sink.check() {
            return;
        }
        // Memory only: the operator charged the work before it copied the rows.
        self.sink.budget.result_rows += rows.len() as u64;
        let step = self.sink.step;
        self.sink.windows.push(WindowResult {
            key,
            start,
            end,
            count,
            sum,
            timestamp: end - 1,
            subtask: self.subtask,
            step,
            rows,
            firing,
        });
        if self.sink.tracing {
            let index = self.sink.windows.len() - 1;
            self.sink.events.push(Event::Window { index });
        }
    }

    /// Reports a late row; `side_output` is the late tag it goes to, if one is configured
    /// (the row is then also emitted on that side output with its own timestamp).
    pub fn late(&mut self, row: RowId, reason: LateRule, side_output: Option<&str>) {
        if !self.sink.check() {
            return;
        }
        let step = self.sink.step;
        self.sink.late.push(LateRow {
            row,
            subtask: self.subtask,
            step,
            watermark: self.watermark,
            reason,
            origin: self.origin.clone(),
            side_output: side_output.map(str::to_string),
        });
        if self.sink.tracing {
            let index = self.sink.late.len() - 1;
            self.sink.events.push(Event::Late { index });
        }
        if let Some(tag) = side_output {
            let ts = self.plan.row(row).ts;
            self.sink.side_output(
                tag,
                SideRow {
                    row,
                    timestamp: ts,
                    subtask: self.subtask,
                    step,
                },
            );
        }
    }

    /// Emits a row on a side output.
    pub fn side_output(&mut self, tag: &str, row: RowId, timestamp: Option<i64>) {
        let step = self.sink.step;
        let subtask = self.subtask;
        self.sink.side_output(
            tag,
            SideRow {
                row,
                timestamp,
                subtask,
                step,
            },
        );
    }

    /// Records that a row went into state (trace only).
    pub fn buffered(&mut self, row: RowId, what: impl FnOnce() -> String) {
        if self.sink.tracing {
            self.sink.events.push(Event::Buffered {
                subtask: self.subtask,
                row,
                what: what(),
            });
        }
    }

    /// Records that rows left state (trace only).
    pub fn cleared(&mut self, rows: impl FnOnce() -> Vec<RowId>, what: impl FnOnce() -> String) {
        if self.sink.tracing {
            self.sink.events.push(Event::Cleared {
                subtask: self.subtask,
                rows: rows(),
                what: what(),
            });
        }
    }

    pub fn tracing(&self) -> bool {
        self.sink.tracing
    }
}

/// A keyed (or, for the split, non-keyed) operator instance: one per subtask.
pub trait Operator {
    /// Timer namespace (`VoidNamespace`, a `TimeWindow`, the interval join's side, …).
    type Ns: Clone + Eq + Hash + Debug;

    /// Creates the instance of one subtask.
    fn new(plan: &Plan, subtask: SubtaskIndex) -> Self
    where
        Self: Sized;

    /// An element on input `side` (always `Left` for one-input operators).
    fn process_element(&mut self, cx: &mut Ctx<'_, Self::Ns>, side: Side, row: RowId);

    /// Copy number `copy` of a row the planner's `Expand` copied once per grouping set
    /// (`Plan::expand`); only the window aggregation has such copies.
    fn process_copy(&mut self, cx: &mut Ctx<'_, Self::Ns>, side: Side, row: RowId, copy: usize) {
        let _ = copy;
        self.process_element(cx, side, row);
    }

    /// An event-time timer fired (`onEventTime`); the watermark is `cx.watermark`.
    fn on_event_time(&mut self, cx: &mut Ctx<'_, Self::Ns>, timer: Timer<KeyId, Self::Ns>);

    /// A processing-time timer fired (`onProcessingTime`).
    fn on_processing_time(&mut self, _cx: &mut Ctx<'_, Self::Ns>, _timer: Timer<KeyId, Self::Ns>) {}

    /// A watermark from input channel `assigner` of `stream`, before this subtask's valve
    /// combines it: for an operator chained before the shuffle (the window aggregation's
    /// `LocalSlicingWindowAggOperator`), which sees each assigner subtask's own watermarks.
    fn on_channel_watermark(
        &mut self,
        _cx: &mut Ctx<'_, Self::Ns>,
        _stream: Side,
        _assigner: u32,
        _w: Watermark,
    ) {
    }

    /// The watermark of input `side` (its valve's output) advances to `w`, before the
    /// two-input combination: for an operator chained after each input's own stage before
    /// the join (the SESSION window TVF of a window join), which sees its input's watermark.
    fn on_input_watermark(&mut self, _cx: &mut Ctx<'_, Self::Ns>, _side: Side, _w: Watermark) {}

    /// The subtask's watermark advances to `w` (`processWatermark`), before the due timers
    /// fire; `cx.watermark` is still the previous one.
    fn on_watermark(&mut self, _cx: &mut Ctx<'_, Self::Ns>, _w: Watermark) {}

    /// Describes a timer for the trace ("cleanup of left ts 9", "end of window [0, 10)").
    fn describe_timer(ns: &Self::Ns) -> String;

    /// The state for display, in a stable order.
    fn state(&self) -> Vec<StateEntry>;

    /// Whether the operator holds no state (checked after the final watermark).
    fn is_empty(&self) -> bool;

    /// Pending timers of stages the operator runs itself (a SESSION window join's window
    /// TVFs), for the state view beside its own timer service's.
    fn own_timers(&self) -> Vec<crate::trace::TimerView> {
        Vec::new()
    }

    /// How many rows the state holds — the sum of `rows` over [`Operator::state`]'s entries —
    /// kept up to date by the operator, so the simulator can track the peak in O(1) per step.
    fn state_rows(&self) -> usize {
        0
    }

    /// Whether the operator never registers an event-time timer equal to a pending one and
    /// never deletes one: its queue then needs no de-duplication set
    /// ([`TimerQueue::new_unique`]; the heap, and so the firing order, is the same).
    const UNIQUE_TIMERS: bool = false;

    /// [`Operator::UNIQUE_TIMERS`] for this plan: an operator may make that promise only for
    /// some of its configurations.
    fn unique_timers(plan: &Plan) -> bool
    where
        Self: Sized,
    {
        let _ = plan;
        Self::UNIQUE_TIMERS
    }

    /// Whether the operator drops rows as late (calls [`Ctx::late`]): the simulator then keeps
    /// track of where each watermark came from, for the late reason.
    const REPORTS_LATE: bool = false;

    /// Delay applied to the outgoing watermark (`KeyedCoProcessOperatorWithWatermarkDelay`).
    fn output_watermark_delay(&self) -> i64 {
        0
    }
}
