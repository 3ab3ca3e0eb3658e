//! Flink's `WindowOperator` with the default `EventTimeTrigger`, in event time: the DataStream
//! window join and the keyed window aggregation.
//!
//! Flink classes replayed here (2.3.0; sources under
//! `flink-runtime/src/main/java/org/apache/flink/streaming/`, checked against the 2.3.0
//! bytecode in `flink-dist-2.3.0.jar`):
//! - `runtime/operators/windowing/WindowOperator.java`: `processElement`, `onEventTime`,
//!   `isWindowLate`, `isElementLate`, `cleanupTime`, `registerCleanupTimer`,
//!   `deleteCleanupTimer`, `clearAllState`, `emitWindowContents`;
//! - `runtime/operators/windowing/MergingWindowSet.java`: `addWindow` (state-window choice,
//!   merge callback), `retireWindow`;
//! - `api/windowing/triggers/EventTimeTrigger.java`: `onElement`, `onEventTime`, `onMerge`,
//!   `clear`;
//! - `api/windowing/assigners/{TumblingEventTimeWindows,SlidingEventTimeWindows,EventTimeSessionWindows}.java`
//!   and `api/windowing/windows/TimeWindow.java` (`getWindowStartWithOffset`, `intersects`,
//!   `cover`, `mergeWindows`, `hashCode`);
//! - `flink-runtime/.../runtime/state/heap/{AbstractHeapMergingState,HeapListState,HeapAggregatingState}.java`
//!   (`mergeNamespaces`: sources removed and folded in order, then `target ++ merged`);
//! - `api/datastream/{JoinedStreams,CoGroupedStreams}.java` (the window join is a tagged
//!   union → keyBy → one `WindowOperator` with list state and a left-major nested loop).
//!
//! # Rules
//! - Each element is assigned its windows (sliding: in **descending** start order). For each
//!   window, in that order: skip it if `isWindowLate` (`maxTimestamp + allowedLateness <=
//!   watermark`); else add the element to the window's state, run `EventTimeTrigger.onElement`
//!   (`maxTimestamp <= watermark` → FIRE now — the late-but-allowed case, which re-emits the
//!   whole window; otherwise register the timer `(maxTimestamp, key, window)`), then register
//!   the cleanup timer `(maxTimestamp + allowedLateness, key, window)` (the same timer when the
//!   lateness is 0; the timer queue de-duplicates it). No cleanup timer when that sum overflows.
//! - A row is late (side output / `numLateRecordsDropped`) only if **every** window skipped it
//!   and `ts + allowedLateness <= watermark`.
//! - A timer FIREs iff its timestamp is the window's `maxTimestamp`; FIRE never purges; a firing
//!   on empty state emits nothing; at the cleanup time the window's state is cleared (and,
//!   for sessions, the window retired from the merging window set).
//! - Results carry timestamp `window.maxTimestamp()`.
//!
//! # Sessions (`MergingWindowSet`)
//! Per key, the in-flight windows map to the *state window* (the namespace their contents are
//! stored under). Adding `[ts, ts + gap)` runs `TimeWindow.mergeWindows` over the in-flight
//! windows plus the new one (stable sort by start, sweep with `cover`; touching windows
//! merge). For the merged group (a `HashSet`, iterated as `java.util.HashSet` does with
//! `TimeWindow.hashCode = MathUtils.longToIntWithBitMixing(start + end)`, replayed with
//! [`JavaHashMap`]): the state window of the first element (after removing the new window) is
//! kept, the others' state is merged into it in set order (`target ++ sources`), the trigger's
//! `onMerge` registers the merged window's timer (if `maxTimestamp > watermark`), and each
//! merged window's trigger and cleanup timers are deleted — in set order, which matters for
//! the heap's tie order. The in-flight windows of a key are pairwise disjoint (non-touching)
//! after every `addWindow`, so their `HashMap` order never reaches the output: `mergeWindows`
//! sorts them by start and their starts are distinct. We keep them sorted by start.
//!
//! # Window join
//! `a.join(b).where(..).equalTo(..).window(..)[.allowedLateness(..)].apply(..)`. One list per
//! (key, state window) holding both sides in arrival order; on FIRE: `for l in lefts { for r
//! in rights { emit (l, r) } }`; one side only → nothing. The public join API has no
//! `sideOutputLateData`, so late rows are reported with no tag (dropped).
//!
//! # Window aggregation
//! The Flink job this corresponds to (what an exporter generates):
//! ```java
//! keyed.window(assigner).allowedLateness(lateness).sideOutputLateData(lateTag)
//!      .aggregate(new CountAndSum(), new WithWindow());
//! // CountAndSum: AggregateFunction<Row, Tuple2<Long, S>, Tuple2<Long, S>>, S = Long for an
//! // INT/BIGINT sum column, Double for a DOUBLE one:
//! //   createAccumulator() = (0, 0); add(v, a) = (a.f0 + 1, v.col == null ? a.f1 : a.f1 + v.col);
//! //   merge(a, b) = (a.f0 + b.f0, a.f1 + b.f1); getResult(a) = a.
//! // WithWindow: ProcessWindowFunction emitting (key, window.getStart(), window.getEnd(), count, sum).
//! ```
//! So the window state is an `AggregatingState` (count and sum fold in arrival order; merges
//! of sessions use `merge` in `mergeNamespaces` order, which matters only for DOUBLE sums).
//! The rows listed with each result (arrival order) and the firing number (1, then 2.. for
//! re-firings of the same window bounds on allowed-late rows) are the playground's
//! annotations, not part of Flink's record.

use super::{Ctx, LateRule, Operator, Work};
use crate::javamap::JavaHashMap;
use crate::parse::Side;
use crate::partition::SubtaskIndex;
use crate::plan::{KeyId, Plan, RowId};
use crate::scenario::{OperatorKind, WindowKind};
use crate::timers::Timer;
use crate::trace::StateEntry;
use crate::value::{ColumnType, Value};
use std::collections::HashMap;

use super::time_window::Assigner;
pub use super::time_window::{long_to_int_with_bit_mixing, window_start_with_offset, Win};

/// The aggregation's sum accumulator (`Tuple2.f1` of `CountAndSum`).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Sum {
    /// No sum column.
    None,
    /// An INT/BIGINT column: a Java `long` (wrapping).
    Long(i64),
    /// A DOUBLE column.
    Double(f64),
}

impl Sum {
    fn merge(self, o: Sum) -> Sum {
        match (self, o) {
            (Sum::Long(a), Sum::Long(b)) => Sum::Long(a.wrapping_add(b)),
            (Sum::Double(a), Sum::Double(b)) => Sum::Double(a + b),
            (a, _) => a,
        }
    }
    fn value(self) -> Option<f64> {
        match self {
            Sum::None => None,
            Sum::Long(v) => Some(v as f64),
            Sum::Double(v) => Some(v),
        }
    }
}

/// The contents of one (key, state window): the list state of the join (both sides in
/// arrival order), or the aggregation's accumulator plus its rows for display.
#[derive(Clone, Debug)]
struct WinState {
    rows: Vec<RowId>,
    count: u64,
    sum: Sum,
    /// The window bounds of the last firing and how many firings they had.
    fired: Option<(Win, u32)>,
}

type Fx = crate::fasthash::FxBuild;

/// Which job the operator runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Join,
    Aggregate,
}

/// `WindowOperator` of one subtask (window join or window aggregation).
pub struct WindowOperator {
    mode: Mode,
    assigner: Assigner,
    lateness: i64,
    late_tag: Option<String>,
    /// Sum column index and whether it is an integer column.
    sum_col: Option<(usize, bool)>,
    /// (key, state window) → contents.
    states: HashMap<(KeyId, Win), WinState, Fx>,
    /// Sessions: per key the in-flight windows, sorted by start, with their state windows
    /// (`MergingWindowSet.mapping`).
    sessions: HashMap<KeyId, Vec<(Win, Win)>, Fx>,
    scratch: Vec<Win>,
    lefts: Vec<RowId>,
    rights: Vec<RowId>,
    /// Row lists of cleared window states, kept for reuse (trace off): a new window's list
    /// then needs no allocation and no growth.
    pool: Vec<Vec<RowId>>,
    /// The length of the last row list that left state: the initial capacity of a new one
    /// when the pool is empty (windows of one job tend to hold similar numbers of rows).
    rows_hint: usize,
    /// Rows in all window states ([`Operator::state_rows`]).
    rows: usize,
    /// Join: a bit per row id, set for the rows of the right input that arrived here. A
    /// firing splits the window's rows by input with it instead of reading each row's stream
    /// from the plan (a cache miss per row in a large plan).
    right_rows: Vec<u64>,
    /// Tumbling windows: the size and the offset reduced modulo the size (what
    /// `TumblingEventTimeWindows.assignWindows` passes to `getWindowStartWithOffset`).
    tumbling: Option<(i64, i64)>,
    /// The last tumbling window assigned, when it was computed without overflow: a row whose
    /// timestamp falls inside it is in that window (`getWindowStartWithOffset` gives the
    /// same start for every timestamp of `[start, start + size)`), with no division.
    last_tumbling: Option<Win>,
}

/// At most this many row lists are pooled, and a new list reserves at most this many rows.
const POOL_MAX: usize = 64;

impl WindowOperator {
    /// `WindowOperator.cleanupTime`: `maxTimestamp + allowedLateness`, `Long.MAX_VALUE` on
    /// overflow.
    fn cleanup_time(&self, w: Win) -> i64 {
        let t = w.max_timestamp().wrapping_add(self.lateness);
        if t >= w.max_timestamp() {
            t
        } else {
            i64::MAX
        }
    }

    /// `isWindowLate`.
    fn is_window_late(&self, w: Win, wm: i64) -> bool {
        self.cleanup_time(w) <= wm
    }

    /// `registerCleanupTimer`. Called right after `EventTimeTrigger.onElement` on a window that
    /// is not late: with zero lateness that window's `maxTimestamp` is after the watermark, so
    /// the trigger has just registered this very timer and adding it again is a no-op
    /// (skipped, as a shortcut).
    fn register_cleanup_timer(&self, cx: &mut Ctx<'_, Win>, key: KeyId, w: Win) {
        if self.lateness == 0 {
            return;
        }
        let t = self.cleanup_time(w);
        if t != i64::MAX {
            cx.register_event_timer(key, t, w);
        }
    }

    /// `deleteCleanupTimer`. Called right after `EventTimeTrigger.clear` deleted the timer at
    /// `maxTimestamp`, which is the cleanup timer when the lateness is 0 (then skipped).
    fn delete_cleanup_timer(&self, cx: &mut Ctx<'_, Win>, key: KeyId, w: Win) {
        if self.lateness == 0 {
            return;
        }
        let t = self.cleanup_time(w);
        if t != i64::MAX {
            cx.delete_event_timer(key, t, w);
        }
    }

    /// `TumblingEventTimeWindows.assignWindows` (`offset` already reduced modulo `size`):
    /// the last window again when `ts` is inside it, else computed (and remembered).
    #[inline]
    fn tumbling_window(&mut self, ts: i64, size: i64, offset: i64) -> Win {
        // Without overflow in `ts - offset`, the start is `ts - floorMod(ts - offset, size)`:
        // the same for every `ts` of a window `[start, start + size)` that was itself computed
        // without overflow.
        let exact = ts.checked_sub(offset).is_some();
        if let Some(w) = self.last_tumbling {
            if exact && w.start <= ts && ts < w.end {
                return w;
            }
        }
        let start = window_start_with_offset(ts, offset, size);
        let w = Win {
            start,
            end: start.wrapping_add(size),
        };
        self.last_tumbling = (exact && w.end > w.start).then_some(w);
        w
    }

    /// `windowState.add(element)` for the state window `sw`. Returns whether the state was
    /// new (it held nothing for `sw` before).
    fn add_to_state(
        &mut self,
        cx: &mut Ctx<'_, Win>,
        key: KeyId,
        window: Win,
        sw: Win,
        row: RowId,
    ) -> bool {
        let add = match self.sum_col {
            Some((col, int)) => match &cx.plan.values(row)[col] {
                Value::Int(v) if int => Sum::Long(*v as i64),
                Value::Long(v) if int => Sum::Long(*v),
                Value::Double(v) if !int => Sum::Double(*v),
                _ => {
                    if int {
                        Sum::Long(0)
                    } else {
                        Sum::Double(0.0)
                    }
                }
            },
            None => Sum::None,
        };
        let pool = &mut self.pool;
        let hint = self.rows_hint.min(POOL_MAX);
        let mut new = false;
        let st = self.states.entry((key, sw)).or_insert_with(|| {
            new = true;
            WinState {
                rows: pool
                    .pop()
                    .or_else(|| cx.sink.spare_rows())
                    .unwrap_or_else(|| Vec::with_capacity(hint)),
                count: 0,
                sum: match add {
                    Sum::None => Sum::None,
                    Sum::Long(_) => Sum::Long(0),
                    Sum::Double(_) => Sum::Double(0.0),
                },
                fired: None,
            }
        });
        st.rows.push(row);
        self.rows += 1;
        st.count += 1;
        st.sum = st.sum.merge(add);
        cx.buffered(row, || {
            if sw == window {
                format!("window {window}")
            } else {
                format!("window {window} (state of {sw})")
            }
        });
        new
    }

    /// FIRE: `emitWindowContents(window, windowState.get())` unless the state is empty.
    /// `purge`: the state is cleared right after (the cleanup timer is this one) and nothing
    /// reads its rows any more, so the aggregation's row list is moved into the result.
    fn fire(&mut self, cx: &mut Ctx<'_, Win>, key: KeyId, window: Win, sw: Win, purge: bool) {
        let Some(st) = self.states.get_mut(&(key, sw)) else {
            return;
        };
        let ts = window.max_timestamp();
        match self.mode {
            Mode::Join => {
                self.lefts.clear();
                self.rights.clear();
                for &r in &st.rows {
                    let right = self
                        .right_rows
                        .get(r.0 as usize / 64)
                        .is_some_and(|w| w & (1 << (r.0 % 64)) != 0);
                    debug_assert_eq!(right, cx.plan.row(r).stream == Side::Right);
                    if right {
                        self.rights.push(r);
                    } else {
                        self.lefts.push(r);
                    }
                }
                // Every left row with every right row, in that order (`emit` per pair).
                cx.emit_pairs(&self.lefts, &self.rights, ts, (window.start, window.end));
            }
            Mode::Aggregate => {
                let firing = match st.fired {
                    Some((w, n)) if w == window => n + 1,
                    _ => 1,
                };
                st.fired = Some((window, firing));
                let rows = if purge {
                    self.rows_hint = st.rows.len();
                    self.rows -= st.rows.len();
                    std::mem::take(&mut st.rows)
                } else {
                    // A re-firing (allowed lateness) copies the window's rows again: count
                    // them before copying, and stop when the budget is spent.
                    if !cx.charge(Work::ResultRows, st.rows.len() as u64) {
                        return;
                    }
                    st.rows.clone()
                };
                cx.emit_window(
                    key,
                    window.start,
                    window.end,
                    st.count,
                    st.sum.value(),
                    rows,
                    firing,
                );
            }
        }
    }

    /// Clears the state of `sw` (`windowState.clear()`).
    fn clear_state(&mut self, cx: &mut Ctx<'_, Win>, key: KeyId, window: Win, sw: Win) {
        if let Some(mut st) = self.states.remove(&(key, sw)) {
            self.rows -= st.rows.len();
            if cx.tracing() {
                cx.cleared(|| st.rows, || format!("window {window}"));
            } else if st.rows.capacity() > 0 {
                self.rows_hint = st.rows.len();
                if self.pool.len() < POOL_MAX {
                    st.rows.clear();
                    self.pool.push(st.rows);
                }
            }
        }
    }

    /// `InternalMergingState.mergeNamespaces(target, sources)` (heap backend).
    fn merge_namespaces(&mut self, key: KeyId, target: Win, sources: &[Win]) {
        let mut merged: Option<WinState> = None;
        for s in sources {
            let src = self.states.remove(&(key, *s));
            merged = match (merged, src) {
                (Some(m), Some(s)) => Some(self.merge_state(m, s)),
                (None, s) => s,
                (m, None) => m,
            };
        }
        let Some(m) = merged else { return };
        match self.states.remove(&(key, target)) {
            Some(t) => {
                let t = self.merge_state(t, m);
                self.states.insert((key, target), t);
            }
            None => {
                self.states.insert((key, target), m);
            }
        }
    }

    /// `mergeState(a, b)`: list `a ++ b` / `AggregateFunction.merge(a, b)`.
    fn merge_state(&self, mut a: WinState, b: WinState) -> WinState {
        a.rows.extend_from_slice(&b.rows);
        if self.mode == Mode::Aggregate {
            // The rows are shown in arrival order (row ids of one stream are in arrival order).
            a.rows.sort_unstable();
        }
        a.count += b.count;
        a.sum = a.sum.merge(b.sum);
        a
    }

    /// `processElement` for non-merging assigners; returns `isSkippedElement`.
    fn process_plain(&mut self, cx: &mut Ctx<'_, Win>, key: KeyId, row: RowId) -> bool {
        let wm = cx.watermark.0;
        let mut skipped = true;
        for i in 0..self.scratch.len() {
            let w = self.scratch[i];
            if self.is_window_late(w, wm) {
                continue;
            }
            skipped = false;
            let new = self.add_to_state(cx, key, w, w, row);
            // EventTimeTrigger.onElement
            if w.max_timestamp() <= wm {
                self.fire(cx, key, w, w, false);
            } else if new || self.lateness != 0 {
                cx.register_event_timer(key, w.max_timestamp(), w);
            }
            // else: the timer is pending and registering it is a no-op. With zero lateness a
            // state exists exactly while its window's timer is pending: both are created here
            // (a window that is not late has `maxTimestamp > watermark`), and the timer firing
            // is the cleanup that clears the state (`onEventTime` → `clearAllState`).
            self.register_cleanup_timer(cx, key, w);
        }
        skipped
    }

    /// `MergingWindowSet.addWindow(new, mergeFunction)`; returns the window the new one ended
    /// up in.
    fn add_window(&mut self, cx: &mut Ctx<'_, Win>, key: KeyId, new: Win) -> Win {
        let wm = cx.watermark.0;
        let mut mapping = self.sessions.remove(&key).unwrap_or_default();
        // TimeWindow.mergeWindows: stable sort by start of (in-flight windows ++ [new]), so
        // the new window goes after an in-flight window with the same start.
        let pos = mapping.partition_point(|(w, _)| w.start <= new.start);
        let at = |i: usize| -> Win {
            if i < pos {
                mapping[i].0
            } else if i == pos {
                new
            } else {
                mapping[i - 1].0
            }
        };
        let n = mapping.len() + 1;
        // The sweep is O(in-flight windows) per row: O(n²) for rows in reverse order with no
        // watermark to retire sessions. Counted; the run stops after the step when spent.
        cx.charge(Work::MergeSteps, n as u64);
        // The sweep; find the group holding the new window (the only group that can have more
        // than one window: in-flight windows are pairwise disjoint).
        let mut group_start = 0;
        let mut cover = at(0);
        let mut found: Option<(usize, usize, Win)> = None;
        for i in 1..=n {
            let next = if i < n { Some(at(i)) } else { None };
            match next {
                Some(c) if cover.intersects(c) => cover = cover.cover(c),
                _ => {
                    if (group_start..i).contains(&pos) {
                        found = Some((group_start, i, cover));
                    }
                    if let Some(c) = next {
                        group_start = i;
                        cover = c;
                    }
                }
            }
        }
        let (g0, g1, merge_result) = found.unwrap_or((pos, pos + 1, new));
        // The merged set as a java.util.HashSet (insertion in sorted order; equal windows
        // collapse).
        let mut set: JavaHashMap<Win, ()> = JavaHashMap::new();
        for i in g0..g1 {
            set.insert(at(i), ());
        }
        let mut result = new;
        if set.len() > 1 {
            // mergedWindows.remove(newWindow)
            let mut merged_windows: Vec<Win> = set.keys().copied().collect();
            if let Some(p) = merged_windows.iter().position(|w| *w == new) {
                merged_windows.remove(p);
                result = merge_result;
            }
            let get =
                |m: &Vec<(Win, Win)>, w: Win| m.iter().find(|(x, _)| *x == w).map(|(_, s)| *s);
            let merged_state_window = get(&mapping, merged_windows[0]).unwrap_or(merged_windows[0]);
            let mut merged_state_windows = Vec::with_capacity(merged_windows.len());
            for w in &merged_windows {
                if let Some(i) = mapping.iter().position(|(x, _)| x == w) {
                    merged_state_windows.push(mapping.remove(i).1);
                }
            }
            // mapping.put(mergeResult, mergedStateWindow)
            match mapping.iter().position(|(x, _)| *x == merge_result) {
                Some(i) => mapping[i].1 = merged_state_window,
                None => {
                    let p = mapping.partition_point(|(w, _)| w.start < merge_result.start);
                    mapping.insert(p, (merge_result, merged_state_window));
                }
            }
            if let Some(i) = merged_state_windows
                .iter()
                .position(|w| *w == merged_state_window)
            {
                merged_state_windows.remove(i);
            }
            if !(merged_windows.len() == 1 && merged_windows[0] == merge_result) {
                // WindowOperator's MergeFunction. (Its check "merged window already beyond the
                // allowed lateness → UnsupportedOperationException" cannot trigger: the merge
                // result covers an in-flight window, whose cleanup time is after the watermark.)
                // EventTimeTrigger.onMerge
                if merge_result.max_timestamp() > wm {
                    cx.register_event_timer(key, merge_result.max_timestamp(), merge_result);
                }
                for m in &merged_windows {
                    // triggerContext.clear() → EventTimeTrigger.clear, then deleteCleanupTimer.
                    cx.delete_event_timer(key, m.max_timestamp(), *m);
                    self.delete_cleanup_timer(cx, key, *m);
                }
                self.merge_namespaces(key, merged_state_window, &merged_state_windows);
            }
        } else {
            // No merge: mapping.put(newWindow, newWindow).
            match mapping.iter().position(|(x, _)| *x == new) {
                Some(i) => mapping[i].1 = new,
                None => mapping.insert(pos, (new, new)),
            }
        }
        self.sessions.insert(key, mapping);
        result
    }

    /// `processElement` for the session assigner; returns `isSkippedElement`.
    fn process_merging(&mut self, cx: &mut Ctx<'_, Win>, key: KeyId, row: RowId) -> bool {
        let mut skipped = true;
        for i in 0..self.scratch.len() {
            let w = self.scratch[i];
            let actual = self.add_window(cx, key, w);
            let wm = cx.watermark.0;
            if self.is_window_late(actual, wm) {
                self.retire(key, actual);
                continue;
            }
            skipped = false;
            let sw = self.state_window(key, actual).unwrap_or(actual);
            self.add_to_state(cx, key, actual, sw, row);
            if actual.max_timestamp() <= wm {
                self.fire(cx, key, actual, sw, false);
            } else {
                cx.register_event_timer(key, actual.max_timestamp(), actual);
            }
            self.register_cleanup_timer(cx, key, actual);
        }
        skipped
    }

    /// `MergingWindowSet.getStateWindow`.
    fn state_window(&self, key: KeyId, w: Win) -> Option<Win> {
        self.sessions
            .get(&key)?
            .iter()
            .find(|(x, _)| *x == w)
            .map(|(_, s)| *s)
    }

    /// `MergingWindowSet.retireWindow` (+ `persist`: an empty set removes the state).
    fn retire(&mut self, key: KeyId, w: Win) {
        if let Some(m) = self.sessions.get_mut(&key) {
            if let Some(i) = m.iter().position(|(x, _)| *x == w) {
                m.remove(i);
            }
            if m.is_empty() {
                self.sessions.remove(&key);
            }
        }
    }
}

impl Operator for WindowOperator {
    // `WindowOperator.isElementLate` / `IntervalJoinOperator.isLate`.
    const REPORTS_LATE: bool = true;

    type Ns = Win;

    /// Tumbling and sliding windows with zero lateness: a window's timer is registered only
    /// when its state is created (`process_plain`), the state exists exactly while the timer
    /// is pending, and the only deletion, of the firing timer itself, is skipped
    /// (`on_event_time`). Sessions merge (and delete timers); a positive lateness registers
    /// the trigger's timer again for every element.
    fn unique_timers(plan: &Plan) -> bool {
        let job = &plan.scenario.job;
        job.allowed_lateness.0 == 0 && job.window.kind != WindowKind::Session
    }

    fn new(plan: &Plan, _subtask: SubtaskIndex) -> Self {
        let job = &plan.scenario.job;
        let w = &job.window;
        // plan::validate_job enforces Flink's constructor rules; the clamps only keep an
        // unvalidated plan from dividing by zero.
        let assigner = match w.kind {
            WindowKind::Tumbling => Assigner::Tumbling {
                size: w.size.0.max(1),
                offset: w.offset.0,
            },
            WindowKind::Sliding => Assigner::Sliding {
                size: w.size.0.max(1),
                slide: w.slide.map(|s| s.0).unwrap_or(w.size.0).max(1),
                offset: w.offset.0,
            },
            WindowKind::Session => Assigner::Session {
                gap: w.gap.map(|g| g.0).unwrap_or(w.size.0),
            },
        };
        let mode = if plan.operator == OperatorKind::WindowAggregate {
            Mode::Aggregate
        } else {
            Mode::Join
        };
        let sum_col = match (&job.aggregate.sum, mode) {
            (Some(name), Mode::Aggregate) => plan.schemas.first().and_then(|s| {
                let i = s.columns.iter().position(|c| c.name == name.trim())?;
                match s.columns[i].ty {
                    ColumnType::Int | ColumnType::Long => Some((i, true)),
                    ColumnType::Double => Some((i, false)),
                    _ => None,
                }
            }),
            _ => None,
        };
        WindowOperator {
            mode,
            assigner,
            lateness: job.allowed_lateness.0,
            late_tag: if mode == Mode::Aggregate {
                job.late_output.left.clone()
            } else {
                None
            },
            sum_col,
            states: HashMap::default(),
            sessions: HashMap::default(),
            scratch: Vec::new(),
            lefts: Vec::new(),
            rights: Vec::new(),
            pool: Vec::new(),
            rows_hint: 0,
            rows: 0,
            right_rows: if mode == Mode::Join {
                vec![0; plan.rows.len().div_ceil(64)]
            } else {
                Vec::new()
            },
            tumbling: match assigner {
                Assigner::Tumbling { size, offset } => Some((size, offset.wrapping_rem(size))),
                _ => None,
            },
            last_tumbling: None,
        }
    }

    fn process_element(&mut self, cx: &mut Ctx<'_, Win>, side: Side, row: RowId) {
        if side == Side::Right {
            if let Some(w) = self.right_rows.get_mut(row.0 as usize / 64) {
                *w |= 1 << (row.0 % 64);
            }
        }
        let r = cx.plan.row(row);
        let Some(ts) = r.ts else { return };
        let key = r.key;
        let mut windows = std::mem::take(&mut self.scratch);
        match self.tumbling {
            Some((size, offset)) => {
                windows.clear();
                windows.push(self.tumbling_window(ts, size, offset));
            }
            None => self.assigner.assign(ts, &mut windows),
        }
        let n = windows.len() as u64;
        self.scratch = windows;
        // Only sliding windows put a row in several windows; one window per row is the
        // row itself, which costs nothing extra (and this is the hot path).
        if n > 1 && !cx.charge(Work::WindowAssignments, n) {
            // Past the budget: the run stops after this step.
            return;
        }
        let skipped = match self.assigner {
            Assigner::Session { .. } => self.process_merging(cx, key, row),
            _ => self.process_plain(cx, key, row),
        };
        if skipped && ts.wrapping_add(self.lateness) <= cx.watermark.0 {
            let windows = self.scratch.iter().map(|w| (w.start, w.end)).collect();
            cx.late(
                row,
                LateRule::Window {
                    allowed_lateness: self.lateness,
                    windows,
                },
                self.late_tag.as_deref(),
            );
        }
    }

    fn on_event_time(&mut self, cx: &mut Ctx<'_, Win>, timer: Timer<KeyId, Win>) {
        let key = timer.key;
        let w = timer.namespace;
        let t = timer.timestamp;
        let merging = matches!(self.assigner, Assigner::Session { .. });
        let sw = if merging {
            match self.state_window(key, w) {
                Some(s) => s,
                // A timer of a window no longer in flight: nothing to do.
                None => return,
            }
        } else {
            w
        };
        let cleanup = t == self.cleanup_time(w);
        // EventTimeTrigger.onEventTime
        if t == w.max_timestamp() {
            // With the trace off, the cleanup below reads nothing of the rows.
            let purge = cleanup && !cx.tracing();
            self.fire(cx, key, w, sw, purge);
        }
        if cleanup {
            // clearAllState: window state, trigger (its timer), merging window set. The
            // trigger's timer is the one firing when `t` is `maxTimestamp` (zero lateness): it
            // has just been polled, and nothing here registers it again, so deleting it is a
            // no-op (not even traced) and is skipped.
            self.clear_state(cx, key, w, sw);
            if t != w.max_timestamp() {
                cx.delete_event_timer(key, w.max_timestamp(), w);
            }
            if merging {
                self.retire(key, w);
            }
        }
    }

    fn describe_timer(ns: &Win) -> String {
        format!("window {ns}")
    }

    fn state(&self) -> Vec<StateEntry> {
        let mut out: Vec<(KeyId, Win, StateEntry)> = Vec::new();
        if matches!(self.assigner, Assigner::Session { .. }) {
            for (key, m) in &self.sessions {
                for (w, sw) in m {
                    let rows = self
                        .states
                        .get(&(*key, *sw))
                        .map(|s| s.rows.clone())
                        .unwrap_or_default();
                    let scope = if w == sw {
                        format!("window {w}")
                    } else {
                        format!("window {w} (state of {sw})")
                    };
                    out.push((
                        *key,
                        *w,
                        StateEntry {
                            key: *key,
                            side: None,
                            scope,
                            rows,
                            window: Some([w.start, w.end]),
                        },
                    ));
                }
            }
        } else {
            for ((key, w), st) in &self.states {
                out.push((
                    *key,
                    *w,
                    StateEntry {
                        key: *key,
                        side: None,
                        scope: format!("window {w}"),
                        rows: st.rows.clone(),
                        window: Some([w.start, w.end]),
                    },
                ));
            }
        }
        out.sort_by_key(|e| (e.0, e.1));
        out.into_iter().map(|e| e.2).collect()
    }

    fn is_empty(&self) -> bool {
        self.states.is_empty() && self.sessions.is_empty()
    }

    fn state_rows(&self) -> usize {
        self.rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::RunResult;

    fn run(json: &str) -> RunResult {
        crate::run_json(json, false).unwrap()
    }

    /// (left line, right line, timestamp, window) of every join output.
    fn pairs(r: &RunResult) -> Vec<(u32, u32, i64, [i64; 2])> {
        r.outputs
            .iter()
            .map(|o| {
                (
                    o.left.as_ref().unwrap().line,
                    o.right.as_ref().unwrap().line,
                    o.timestamp.unwrap(),
                    o.window.unwrap(),
                )
            })
            .collect()
    }

    /// (key, start, end, count, sum, firing, lines) of a window result.
    type Res = (String, i64, i64, u64, Option<f64>, u32, Vec<u32>);

    fn results(r: &RunResult) -> Vec<Res> {
        r.windows
            .iter()
            .map(|w| {
                (
                    w.key.to_string(),
                    w.start,
                    w.end,
                    w.count,
                    w.sum,
                    w.firing,
                    w.lines.clone(),
                )
            })
            .collect()
    }

    fn late_lines(r: &RunResult) -> Vec<(u32, Option<String>)> {
        r.late
            .iter()
            .map(|l| (l.row.line, l.side_output.clone()))
            .collect()
    }

    #[test]
    fn seed_window_join_gives_the_eight_pairs() {
        let r = run(include_str!("../../../scenarios/window-join-tumbling.json"));
        let w0 = [0, 10_000];
        let w1 = [10_000, 20_000];
        // clicks: 1 Alice home, 2 Bob cart, 3 Alice cart, 4 Alice fav, 5 Bob home, 6 Cary;
        // orders: 1 Alice 35, 2 Bob 20@8000, 3 Alice 17, 4 Bob 20@12000, 5 Mary.
        assert_eq!(
            pairs(&r),
            vec![
                (1, 1, 9_999, w0),
                (1, 3, 9_999, w0),
                (3, 1, 9_999, w0),
                (3, 3, 9_999, w0),
                (4, 1, 9_999, w0),
                (4, 3, 9_999, w0),
                (2, 2, 9_999, w0),
                (5, 4, 19_999, w1),
            ]
        );
        // [0, 10000) fires on the arrival of Bob's click at 15000 (the 9th arrival).
        assert!(r.outputs[..7].iter().all(|o| o.step == 8));
        assert!(r.late.is_empty());
        assert!(r.state_empty);
    }

    #[test]
    fn tumbling_boundary_loses_the_pair() {
        let r = run(include_str!(
            "../../../scenarios/window-join-tumbling-miss.json"
        ));
        assert_eq!(pairs(&r), vec![(1, 1, 9_999, [0, 10_000])]);
        assert!(r.late.is_empty());
        assert!(r.state_empty);
    }

    #[test]
    fn sliding_windows_duplicate_pairs() {
        let r = run(include_str!(
            "../../../scenarios/window-join-sliding-duplicates.json"
        ));
        assert_eq!(
            pairs(&r),
            vec![
                (1, 1, 4_999, [-5_000, 5_000]),
                // Alice's timer at 9999 was registered after Bob's, yet the heap polls it first.
                (2, 2, 9_999, [0, 10_000]),
                (1, 1, 9_999, [0, 10_000]),
                (2, 2, 14_999, [5_000, 15_000]),
                (3, 2, 14_999, [5_000, 15_000]),
            ]
        );
        assert!(r.state_empty);
    }

    #[test]
    fn tumbling_lateness_refires_and_side_outputs() {
        // Expected values as printed by a real Flink 2.3.0 job (see the scenario).
        let r = run(include_str!(
            "../../../scenarios/agg-tumbling-lateness.json"
        ));
        let a = || "a".to_string();
        assert_eq!(
            results(&r),
            vec![
                (a(), 195_000, 200_000, 2, Some(3.0), 1, vec![1, 2]),
                (a(), 195_000, 200_000, 3, Some(7.0), 2, vec![1, 2, 4]),
                (a(), 195_000, 200_000, 4, Some(13.0), 3, vec![1, 2, 4, 6]),
                (a(), 200_000, 205_000, 3, Some(15.0), 1, vec![3, 5, 7]),
                (a(), 205_000, 210_000, 1, Some(9.0), 1, vec![9]),
            ]
        );
        // The re-firings happen on the late rows' own arrival (steps 3 and 5).
        assert_eq!(r.windows[1].step, 3);
        assert_eq!(r.windows[2].step, 5);
        assert!(r.windows.iter().all(|w| w.timestamp == w.end - 1));
        assert_eq!(late_lines(&r), vec![(8, Some("late".into()))]);
        assert_eq!(r.late[0].watermark.0, 201_999);
        assert_eq!(r.side_outputs["late"].len(), 1);
        assert_eq!(r.side_outputs["late"][0].timestamp, Some(199_000));
        assert!(r.state_empty);
    }

    #[test]
    fn sliding_late_row_goes_to_side_output_only_when_all_windows_closed() {
        let r = run(include_str!("../../../scenarios/agg-sliding-lateness.json"));
        let got: Vec<(i64, u64, Option<f64>, u32)> = r
            .windows
            .iter()
            .map(|w| (w.start, w.count, w.sum, w.firing))
            .collect();
        assert_eq!(
            got,
            vec![
                (194_000, 1, Some(1.0), 1),
                (196_000, 1, Some(1.0), 1),
                (198_000, 1, Some(1.0), 1),
                (198_000, 2, Some(4.0), 2),
                (198_000, 3, Some(8.0), 3),
                (200_000, 1, Some(3.0), 1),
                (200_000, 2, Some(9.0), 2),
                (202_000, 1, Some(2.0), 1),
                (204_000, 2, Some(7.0), 1),
                (206_000, 2, Some(7.0), 1),
                (208_000, 1, Some(5.0), 1),
            ]
        );
        // Lines 3, 4 and 6 were late for some of their windows: silently lost there.
        assert_eq!(late_lines(&r), vec![(7, Some("late".into()))]);
        match &r.late[0].reason {
            LateRule::Window {
                allowed_lateness,
                windows,
            } => {
                assert_eq!(*allowed_lateness, 2_000);
                assert_eq!(
                    windows,
                    &vec![(198_000, 204_000), (196_000, 202_000), (194_000, 200_000)]
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(r.state_empty);
    }

    #[test]
    fn sessions_merge_and_a_late_row_is_rescued_by_merging() {
        let r = run(include_str!("../../../scenarios/agg-session.json"));
        let s = |k: &str| k.to_string();
        assert_eq!(
            results(&r),
            vec![
                (s("a"), 199_000, 204_000, 1, Some(1.0), 1, vec![1]),
                (s("b"), 203_000, 212_000, 2, Some(9.0), 1, vec![3, 6]),
                (s("a"), 206_000, 216_000, 2, Some(7.0), 1, vec![2, 5]),
                (s("a"), 218_000, 223_000, 1, Some(7.0), 1, vec![7]),
            ]
        );
        assert_eq!(late_lines(&r), vec![(4, Some("late".into()))]);
        assert!(r.state_empty);
    }

    #[test]
    fn nothing_fires_until_both_assigner_subtasks_advance() {
        let r = run(include_str!(
            "../../../scenarios/agg-parallel-watermark.json"
        ));
        let got: Vec<(i64, usize, Vec<u32>, u32)> = r
            .windows
            .iter()
            .map(|w| (w.start, w.step, w.lines.clone(), w.subtask.0))
            .collect();
        assert_eq!(
            got,
            vec![(195_000, 2, vec![1], 1), (200_000, 3, vec![2, 3], 1)]
        );
        assert!(r.state_empty);
    }

    /// A window join whose sessions are bridged by a later row: the merged list is the state
    /// window's list (`[14000, 17000)`, chosen by `MergingWindowSet` from the `HashSet` order —
    /// checked with Flink 2.3.0's class) followed by the other's.
    #[test]
    fn session_join_merges_lists_in_flink_order() {
        let json = r#"{
            "job": { "operator": "window_join", "watermark": { "delay": "5s" },
                     "window": { "kind": "session", "gap": "3s" } },
            "streams": [
                { "name": "l", "columns": ["k", "ts"], "key": "k", "time": "ts",
                  "rows": "k, 10000 | a=1\nk, 14000 | a=2" },
                { "name": "r", "columns": ["k", "ts"], "key": "k", "time": "ts",
                  "rows": "k, 14000 | a=3\nk, 13000 | a=4" }
            ] }"#;
        let r = run(json);
        let w = [10_000, 17_000];
        assert_eq!(
            pairs(&r),
            vec![
                (2, 1, 16_999, w),
                (2, 2, 16_999, w),
                (1, 1, 16_999, w),
                (1, 2, 16_999, w)
            ]
        );
        assert!(r.state_empty);
        // While the merged session is open, its state lives under [14000, 17000).
        let t = crate::run_json(
            &json.replace("\"window\"", "\"final_watermark\": false, \"window\""),
            false,
        )
        .unwrap();
        assert!(t.outputs.is_empty());
        let st = &t.final_state[0];
        assert_eq!(st.entries.len(), 1);
        assert_eq!(
            st.entries[0].scope,
            "window [10000, 17000) (state of [14000, 17000))"
        );
        assert_eq!(
            st.entries[0].rows.iter().map(|r| r.0).collect::<Vec<_>>(),
            vec![1, 2, 0, 3]
        );
        // The timers of the two merged sessions were deleted; only the merged one remains.
        let timers: Vec<(i64, &str)> = st
            .timers
            .iter()
            .map(|t| (t.timestamp, t.what.as_str()))
            .collect();
        assert_eq!(timers, vec![(16_999, "window [10000, 17000)")]);
    }

    #[test]
    fn window_join_lateness_refires_all_pairs_and_drops_late_rows() {
        let json = r#"{
            "job": { "operator": "window_join", "window": { "size": "10s" }, "allowed_lateness": "5s",
                     "late_output": { "left": "ignored" } },
            "streams": [
                { "name": "l", "columns": ["k", "ts"], "key": "k", "time": "ts",
                  "rows": "k, 1000 | a=1\nx, 11000 | a=4\nk, 16000 | a=6\nk, 4000 | a=8" },
                { "name": "r", "columns": ["k", "ts"], "key": "k", "time": "ts",
                  "rows": "k, 2000 | a=2\nx, 12000 | a=3\nk, 3000 | a=5\nk, 16500 | a=7" }
            ] }"#;
        let r = run(json);
        let w = [0, 10_000];
        let w1 = [10_000, 20_000];
        assert_eq!(
            pairs(&r),
            vec![
                // wm 10999 (after l:x@11000): first firing.
                (1, 1, 9_999, w),
                // r:k@3000 is late but within lateness: the whole window fires again.
                (1, 1, 9_999, w),
                (1, 3, 9_999, w),
                // At end of input, in heap order: k's timer (registered after x's) first.
                (3, 4, 19_999, w1),
                (2, 2, 19_999, w1),
            ]
        );
        // l:k@4000 arrives at watermark 15999 ≥ cleanup 14999: dropped (no late output in
        // the join API, whatever late_output says).
        assert_eq!(late_lines(&r), vec![(4, None)]);
        assert!(r.side_outputs.is_empty());
        assert!(r.state_empty);
    }

    #[test]
    fn equal_timestamp_windows_fire_in_heap_order() {
        // Keys a, b, c register (9999, key, [0, 10000)) in that order; the heap polls a, c, b.
        let json = r#"{
            "job": { "operator": "window_aggregate", "window": { "size": "10s" } },
            "streams": [ { "name": "s", "columns": ["k", "ts"], "key": "k", "time": "ts",
                           "rows": "a, 1000\nb, 2000\nc, 3000\nWM 10000\na, 12000" } ] }"#;
        let r = run(json);
        let keys: Vec<String> = r.windows.iter().map(|w| w.key.to_string()).collect();
        assert_eq!(keys, vec!["a", "c", "b", "a"]);
        assert_eq!(r.windows[0].step, 3);
        assert!(r.windows.iter().all(|w| w.sum.is_none()));
        // With a fourth timer (19999, a) added before the firing watermark, the heap's shape
        // changes and the same three come out a, b, c.
        let r = run(&json.replace("WM 10000\\n", ""));
        let keys: Vec<String> = r.windows.iter().map(|w| w.key.to_string()).collect();
        assert_eq!(keys, vec!["a", "b", "c", "a"]);
    }

    #[test]
    fn double_sums_skip_nulls() {
        let json = r#"{
            "job": { "operator": "window_aggregate", "window": { "size": "10s" }, "aggregate": { "sum": "v" } },
            "streams": [ { "name": "s", "columns": ["k", "v:double", "ts"], "key": "k", "time": "ts",
                           "rows": "a, 0.5, 1000\na, null, 2000\na, 2.25, 3000" } ] }"#;
        let r = run(json);
        assert_eq!(
            results(&r),
            vec![("a".into(), 0, 10_000, 3, Some(2.75), 1, vec![1, 2, 3])]
        );
    }

    #[test]
    fn rows_without_a_window_are_late_only_if_the_element_is_late() {
        // Sliding 5 s every 10 s: rows in [5000, 10000) belong to no window. Flink drops them
        // silently unless ts + lateness <= watermark, then they count as late.
        let json = r#"{
            "job": { "operator": "window_aggregate", "window": { "kind": "sliding", "size": "5s", "slide": "10s" },
                     "late_output": { "left": "late" } },
            "streams": [ { "name": "s", "columns": ["k", "ts"], "key": "k", "time": "ts",
                           "rows": "a, 7000\na, 20000\na, 8000\na, 1000" } ] }"#;
        let r = run(json);
        let got: Vec<(i64, u64)> = r.windows.iter().map(|w| (w.start, w.count)).collect();
        assert_eq!(got, vec![(20_000, 1)]);
        // 7000: no window, not late (watermark −∞) → silently dropped. 8000: no window and
        // late (8000 <= 19999); 1000: its window [0, 5000) is late.
        assert_eq!(
            late_lines(&r),
            vec![(3, Some("late".into())), (4, Some("late".into()))]
        );
        match &r.late[0].reason {
            LateRule::Window { windows, .. } => assert!(windows.is_empty()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn first_firing_can_happen_on_arrival_within_lateness() {
        // The first row of [0, 10000) arrives when the watermark is already past 9999 but
        // before the cleanup time 9999 + 5000: it fires at once (firing 1), no trigger timer.
        let json = r#"{
            "job": { "operator": "window_aggregate", "window": { "size": "10s" }, "allowed_lateness": "5s",
                     "final_watermark": false },
            "streams": [ { "name": "s", "columns": ["k", "ts"], "key": "k", "time": "ts",
                           "rows": "b, 12000\na, 5000" } ] }"#;
        let r = run(json);
        assert_eq!(
            results(&r),
            vec![("a".into(), 0, 10_000, 1, None, 1, vec![2])]
        );
        assert_eq!(r.windows[0].step, 1);
        // State stays until the cleanup timer; without the final watermark it is still there.
        assert!(!r.state_empty);
        let timers: Vec<i64> = r.final_state[0]
            .timers
            .iter()
            .map(|t| t.timestamp)
            .collect();
        assert_eq!(timers, vec![14_999, 19_999, 24_999]);
    }

    #[test]
    fn tumbling_lateness_uses_two_timers_and_cleans_up() {
        let json = r#"{
            "job": { "operator": "window_aggregate", "window": { "size": "10s" }, "allowed_lateness": "1s",
                     "final_watermark": false },
            "streams": [ { "name": "s", "columns": ["k", "ts"], "key": "k", "time": "ts",
                           "rows": "a, 1000\na, 10500\na, 11000" } ] }"#;
        let r = run(json);
        // 10500 → wm 10499: fired; 11000 → wm 10999 ≥ cleanup 10999: state of [0, 10000) gone.
        assert_eq!(
            results(&r),
            vec![("a".into(), 0, 10_000, 1, None, 1, vec![1])]
        );
        let st = &r.final_state[0];
        assert_eq!(
            st.entries
                .iter()
                .map(|e| e.scope.as_str())
                .collect::<Vec<_>>(),
            vec!["window [10000, 20000)"]
        );
        assert_eq!(
            st.timers.iter().map(|t| t.timestamp).collect::<Vec<_>>(),
            vec![19_999, 20_999]
        );
    }
}
