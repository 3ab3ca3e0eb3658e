//! Flink SQL window aggregation over a window table-valued function:
//! `SELECT window_start, window_end, k, COUNT(*), … FROM TABLE(TUMBLE|HOP|CUMULATE|SESSION(…))
//! GROUP BY window_start, window_end, k`.
//!
//! What Flink 2.3.0 runs by default (checked with `EXPLAIN` on Flink 2.3.0: the default
//! `table.optimizer.agg-phase-strategy` is `AUTO` and `TwoStageOptimizedWindowAggregateRule`
//! applies to every aligned window, COUNT(DISTINCT) included):
//!
//! - **TUMBLE / HOP / CUMULATE: two phases.** A `LocalWindowAggregate`
//!   (`LocalSlicingWindowAggOperator`) is chained after each assigner subtask, before the
//!   hash exchange. It buffers one accumulator per (key, slice) (`RecordsWindowBuffer`) and
//!   sends them downstream only when its own watermark (the assigner subtask's) moves to or
//!   past the next slice boundary − 1 and a buffered slice has ended
//!   (`processWatermark`: `currentWatermark >= nextTriggerWatermark` then
//!   `advanceProgress` → `isWindowFired(minSliceEnd)` → `flush`). Its watermark starts at 0
//!   (unset fields), so it ignores watermarks ≤ 0. It never drops anything.
//!   The `GlobalWindowAggregate` (`WindowAggOperator` with a
//!   `SliceShared/SliceUnsharedSyncStateWindowAggProcessor`) receives the accumulators on the
//!   keyed subtask. Lateness is decided there, per accumulator, against the global operator's
//!   progress when the accumulator arrives (`AbstractSliceSyncStateWindowAggProcessor
//!   .processElement`): if the slice has fired and its last window too
//!   (`getLastWindowEnd`), the whole accumulator — every row in it — is dropped; if the slice
//!   has fired but a later window it belongs to has not (HOP, CUMULATE), it is merged into
//!   the slice's merge target and a timer is set for the first window not fired yet.
//!   So a row is late only when its local aggregate reaches the global one after the global
//!   watermark passed its last window; a row behind its own assigner's watermark waits in the
//!   local buffer for the next slice boundary.
//! - The global operator buffers too (`RecordsWindowBuffer` + `GlobalAggCombiner`) and moves
//!   the buffer into state in `advanceProgress`, before the timers fire, only when the progress
//!   reaches the next trigger (`getNextTriggerWatermarkWithOffset`); the combiner registers
//!   the window's timer (at `windowEnd − 1`) unless the window already fired at the timer
//!   service's watermark (`AggCombiner.combine`).
//! - A window fires on its timer (`WindowAggOperator.onTimer` → `fireWindow` → `clearWindow`):
//!   slices are merged (`SliceSharedAssigner.mergeSlices`), the result is emitted unless the
//!   window is empty (`WindowIsEmptySupplier`: COUNT(*) = 0), the next window is registered
//!   (`nextTriggerWindow`: HOP while not empty, CUMULATE up to the max size), and the expired
//!   slices are cleared (`expiredSlices`).
//! - **SESSION: one phase** (no local aggregate: `EXPLAIN` shows a single `WindowAggregate`).
//!   `UnsliceSyncStateWindowAggProcessor` with `MergingWindowProcessFunction`: the row's
//!   window `[ts, ts + gap)` merges with every session it touches; a row whose window merged
//!   with nothing and has already ended (`maxTimestamp <= currentWatermark`) is dropped.
//!
//! The output is insert-only: one `+I` row per (key, window), values in the SELECT order
//! `window_start, window_end, keys…, aggregates…` (`EXPR$n` names as Flink gives them).

use super::session_tvf::TableWin;
use super::tvf_slicing::{is_window_fired, next_trigger_watermark, Slicer};
use super::window::Win;
use super::{Ctx, LateRule, Operator, SqlValue};
use crate::budget::Work;
use crate::fasthash::FxHashMap;
use crate::javamap::JavaHashMap;
use crate::parse::{RowKind, Side};
use crate::partition::SubtaskIndex;
use crate::plan::{KeyId, Plan, RowId};
use crate::scenario::{AggFunc, Scenario};
use crate::time::Watermark;
use crate::timers::Timer;
use crate::trace::StateEntry;
use crate::value::{ColumnType, Value};
use std::collections::BTreeMap;

mod acc;
#[cfg(test)]
mod tests;

use acc::{resolve, Acc, Call};

/// The timer namespace: an aligned window by its end, or a session window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ns {
    /// `Long` window end (`SlicingWindowTimerServiceImpl`).
    Window(i64),
    /// `TimeWindow(start, end)` of a session.
    Session(i64, i64),
}

/// An insertion-ordered map of (key, slice) → accumulator: Flink's `WindowBytesMultiMap`
/// (iterated in insertion order), with a hash index so that adding is O(1) however many keys
/// a flush holds.
#[derive(Clone, Debug, Default)]
struct Buffer {
    entries: Vec<((KeyId, i64), Acc)>,
    index: FxHashMap<(KeyId, i64), usize>,
    /// Rows held by the entries' accumulators (for [`Operator::state_rows`]).
    rows: usize,
    /// `RecordsWindowBuffer.minSliceEnd`.
    min_slice_end: Option<i64>,
}

impl Buffer {
    /// The accumulator of (key, slice), created empty if absent. Callers that add rows to it
    /// go through [`Buffer::accumulate`] or [`Buffer::merge`], which keep `rows`.
    fn add(&mut self, key: KeyId, slice: i64, n: usize) -> &mut Acc {
        self.min_slice_end = Some(self.min_slice_end.map_or(slice, |m| m.min(slice)));
        let next = self.entries.len();
        let i = *self.index.entry((key, slice)).or_insert(next);
        if i == next {
            self.entries.push(((key, slice), Acc::new(n)));
        }
        &mut self.entries[i].1
    }
    fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    /// Accumulates one row into (key, slice).
    fn accumulate(&mut self, key: KeyId, slice: i64, calls: &[Call], values: &[Value], row: RowId) {
        self.rows += 1;
        let n = calls.len();
        self.add(key, slice, n).accumulate(calls, values, row);
    }
    /// Merges an accumulator into (key, slice).
    fn merge(&mut self, key: KeyId, slice: i64, n: usize, acc: &Acc) {
        self.rows += acc.rows.len();
        self.add(key, slice, n).merge(acc);
    }
    /// The entries in insertion order, leaving the buffer empty (`RecordsWindowBuffer.flush`).
    fn take(&mut self) -> Vec<((KeyId, i64), Acc)> {
        self.index.clear();
        self.rows = 0;
        self.min_slice_end = None;
        std::mem::take(&mut self.entries)
    }
}

/// The `LocalSlicingWindowAggOperator` chained after one assigner subtask, as far as the keys of
/// this operator subtask go (its flush decision depends only on its own watermarks and on
/// whether a buffered slice has ended: see [`WindowTvfAggregate::on_channel_watermark`]).
#[derive(Clone, Debug, Default)]
struct Local {
    /// The accumulators of this operator subtask's keys.
    buffer: Buffer,
    /// `RecordsWindowBuffer.minSliceEnd` of the whole local buffer, every key of the assigner
    /// subtask (those of other operator subtasks too): it alone decides when the local
    /// aggregate flushes, and the flush sends this subtask's accumulators with the rest.
    whole_min_slice_end: Option<i64>,
    /// How far `WindowTvfAggregate::assigner_rows` of this assigner subtask has been read.
    cursor: usize,
    /// `currentWatermark` (a Java field never set before the first watermark: 0).
    watermark: i64,
    /// `nextTriggerWatermark` (0 likewise).
    next_trigger: i64,
}

/// The rows each assigner subtask's local aggregate takes in, as (arrival index, slice end),
/// in arrival order: every row with a time that the query's `WHERE` keeps (a grouping set's
/// copies share their row's slice). Empty for SESSION (no local aggregate).
fn assigner_rows(plan: &Plan, slicer: Option<Slicer>) -> Vec<Vec<(u32, i64)>> {
    let mut out = vec![Vec::new(); plan.assigner_parallelism as usize];
    let Some(sl) = slicer else { return out };
    let rejected = crate::sql::eval::filtered(plan);
    for (i, ref a) in plan.arrivals.iter().enumerate() {
        let crate::plan::Arrival::Row(id) = a else {
            continue;
        };
        if rejected.get(id.0 as usize).copied().unwrap_or(false) {
            continue;
        }
        let r = plan.row(*id);
        if let (Some(ts), Some(list)) = (r.ts, out.get_mut(r.assigner as usize)) {
            list.push((i as u32, sl.slice_end(ts)));
        }
    }
    out
}

/// One session window of a key.
#[derive(Clone, Debug)]
struct Session {
    start: i64,
    end: i64,
    acc: Acc,
}

/// The operator instance of one subtask.
pub struct WindowTvfAggregate {
    calls: Vec<Call>,
    slicer: Option<Slicer>,
    gap: i64,
    /// The GROUP BY columns (the first is the stream's key column).
    group_cols: Vec<usize>,
    /// Slice (or, for CUMULATE, shared first-slice) state: (key, slice end) → accumulator.
    state: BTreeMap<(KeyId, i64), Acc>,
    /// Rows held by `state` and `sessions` (kept as they change, for [`Operator::state_rows`]).
    held: usize,
    /// The global operator's window buffer.
    buffer: Buffer,
    /// `currentProgress` of the global processor (`initializeWatermark(Long.MIN_VALUE)`).
    progress: i64,
    /// `nextTriggerProgress` (`Long.MIN_VALUE` at open).
    next_trigger: i64,
    /// One local aggregate per assigner subtask (input channel).
    locals: Vec<Local>,
    /// Per assigner subtask, the rows that reach its local aggregate (arrival index, slice
    /// end), in arrival order: what every operator subtask needs to know of the rows keyed to
    /// the others to flush when Flink's local aggregate does.
    assigner_rows: Vec<Vec<(u32, i64)>>,
    /// SESSION: the windows of each key, by start.
    sessions: BTreeMap<KeyId, Vec<Session>>,
    /// Records dropped as late so far (`numLateRecordsDropped`).
    dropped: u64,
}

/// The output column names, in Flink's order and with its default names.
pub fn columns(plan: &Plan) -> Vec<String> {
    let job = &plan.scenario.job;
    let mut cols = vec!["window_start".to_string(), "window_end".to_string()];
    cols.extend(job.group.keys.iter().cloned());
    for a in &job.group.aggregates {
        let i = cols.len();
        cols.push(if a.alias.is_empty() {
            format!("EXPR${i}")
        } else {
            a.alias.clone()
        });
    }
    cols
}

/// Checks the TVF and `GROUP BY` of a window aggregation (before the plan is built).
pub fn validate(sc: &Scenario) -> Result<(), crate::error::Error> {
    use crate::error::Error;
    let job = &sc.job;
    super::tvf_slicing::check(&job.tvf).map_err(|(f, m)| Error::config(f, m))?;
    if sc.streams.len() != 1 {
        return Err(Error::config(
            "streams",
            "a window aggregation reads exactly one stream",
        ));
    }
    let s = &sc.streams[0];
    if s.time.is_none() {
        return Err(Error::config(
            "streams[0].time",
            "a window TVF needs a time attribute: choose the time column (DESCRIPTOR(…))",
        ));
    }
    if let Some(sets) = &job.group.grouping_sets {
        let sets = crate::grouping_sets::sets(&job.group.keys, sets)
            .map_err(|m| Error::config("job.group.grouping_sets", m))?;
        if sets.is_some() && job.tvf.kind == crate::scenario::TvfKind::Session {
            // EXPLAIN on Flink 2.3.0: Expand → WindowTableFunction(SESSION) → an unbounded
            // GroupAggregate grouped by window_start, window_end, the keys and $e.
            return Err(Error::config(
                "job.group.grouping_sets",
                "GROUPING SETS / ROLLUP / CUBE over SESSION windows: Flink 2.3 plans no window aggregation for them (a SESSION WindowTableFunction then an updating GroupAggregate); not simulated",
            ));
        }
    }
    let key_name = s.key.as_deref();
    let keys: Vec<&str> = job.group.keys.iter().map(String::as_str).collect();
    match (key_name, keys.as_slice()) {
        (None, []) => {}
        (Some(k), [g, ..]) if k == *g => {}
        _ => {
            return Err(Error::config(
                "job.group.keys",
                format!(
                    "the stream's key column ({}) must be the first GROUP BY key (none: no GROUP BY keys)",
                    key_name.unwrap_or("none")
                ),
            ))
        }
    }
    if job.group.aggregates.is_empty() {
        return Err(Error::config(
            "job.group.aggregates",
            "add at least one aggregate (COUNT(*), SUM(col), …)",
        ));
    }
    Ok(())
}

/// Checks the parts of the job that need the parsed streams.
pub fn validate_plan(plan: &Plan) -> Result<(), crate::error::Error> {
    resolve(plan).map_err(|m| crate::error::Error::config("job.group.aggregates", m))?;
    if let Some(r) = plan.rows.iter().find(|r| r.kind != RowKind::Insert) {
        return Err(crate::error::Error::config(
            "streams[0].rows",
            format!(
                "line {}: the window aggregation reads an insert-only table; row kinds are not simulated here",
                r.line
            ),
        ));
    }
    Ok(())
}

/// The grouping set of a copy's key, for the late verdict: `(a, b) $e=1`.
fn grouping_set(plan: &Plan, key: KeyId) -> Option<String> {
    let ex = plan.expand.as_ref()?;
    let set = ex.set(key);
    let cols: Vec<&str> = plan
        .scenario
        .job
        .group
        .keys
        .iter()
        .zip(&set.kept)
        .filter(|(_, k)| **k)
        .map(|(c, _)| c.as_str())
        .collect();
    Some(format!("({}) $e={}", cols.join(", "), set.expand_id))
}

fn fmt_window(s: i64, e: i64) -> String {
    format!("[{s}, {e})")
}

impl WindowTvfAggregate {
    fn key_value(&self, cx: &Ctx<'_, Ns>, key: KeyId, acc: &Acc) -> Vec<SqlValue> {
        if let (Some(ex), Some(&r)) = (&cx.plan.expand, acc.rows.first()) {
            // A grouping set's copy: the columns outside the set are null (Expand).
            let row = cx.plan.row(r);
            let set = ex.set(key);
            return self
                .group_cols
                .iter()
                .zip(&set.kept)
                .map(|(&c, &kept)| {
                    if kept {
                        SqlValue::of(&cx.plan.row_values(row)[c])
                    } else {
                        SqlValue::Null
                    }
                })
                .collect();
        }
        match (&self.group_cols[..], acc.rows.first()) {
            ([], _) => Vec::new(),
            ([_], _) => vec![SqlValue::of(&cx.plan.keys[key.0 as usize].value)],
            // Several GROUP BY columns: the values of any row of the group.
            (cols, Some(&r)) => {
                let row = cx.plan.row(r);
                cols.iter()
                    .map(|&c| SqlValue::of(&cx.plan.row_values(row)[c]))
                    .collect()
            }
            (cols, None) => vec![SqlValue::Null; cols.len()],
        }
    }

    fn emit(&self, cx: &mut Ctx<'_, Ns>, key: KeyId, start: i64, end: i64, acc: &Acc) {
        let mut v = vec![SqlValue::Timestamp(start), SqlValue::Timestamp(end)];
        v.extend(self.key_value(cx, key, acc));
        v.extend(acc.values(&self.calls));
        cx.emit_values(v, acc.rows.clone(), (start, end));
    }

    /// `AbstractSliceSyncStateWindowAggProcessor.processElement` of the global operator for one
    /// accumulator from a local aggregate.
    fn global_element(&mut self, cx: &mut Ctx<'_, Ns>, key: KeyId, slice: i64, acc: Acc) {
        let Some(sl) = self.slicer else { return };
        let n = self.calls.len();
        if is_window_fired(slice, self.progress) {
            let last = sl.last_window_end(slice);
            if is_window_fired(last, self.progress) {
                let (ws, we) = (sl.window_start_of(last), last);
                self.dropped += 1;
                for &r in &acc.rows {
                    cx.late(
                        r,
                        LateRule::WindowTvf {
                            window: (ws, we),
                            progress: self.progress,
                            slice: (slice - sl.interval(), slice),
                            record: self.dropped,
                            local: true,
                            grouping_set: grouping_set(cx.plan, key),
                        },
                        None,
                    );
                }
                return;
            }
            let target = sl.merge_target(slice);
            self.buffer.merge(key, target, n, &acc);
            let mut first = slice;
            while is_window_fired(first, self.progress) {
                first += sl.interval();
            }
            cx.register_event_timer(key, first - 1, Ns::Window(first));
        } else {
            self.buffer.merge(key, slice, n, &acc);
        }
    }

    /// `RecordsWindowBuffer.flush` with `GlobalAggCombiner`: accumulators into state, and the
    /// window timer unless the window fired at the timer service's watermark.
    fn flush_global(&mut self, cx: &mut Ctx<'_, Ns>) {
        let n = self.calls.len();
        let entries = self.buffer.take();
        for ((key, slice), acc) in entries {
            self.held += acc.rows.len();
            self.state
                .entry((key, slice))
                .or_insert_with(|| Acc::new(n))
                .merge(&acc);
            if !is_window_fired(slice, cx.watermark.0) {
                cx.register_event_timer(key, slice - 1, Ns::Window(slice));
            }
        }
    }

    /// `fireWindow` + `clearWindow` of the slice processors.
    fn fire_slicing(&mut self, cx: &mut Ctx<'_, Ns>, key: KeyId, end: i64) {
        let Some(sl) = self.slicer else { return };
        let n = self.calls.len();
        let merged = match sl {
            Slicer::Tumble { .. } => self.state.get(&(key, end)).cloned(),
            Slicer::Hop { .. } => {
                // Merged in memory (a null merge target): a fresh accumulator.
                let mut m = Acc::new(n);
                let slices = sl.slices_of_window(end);
                cx.charge(Work::MergeSteps, slices.len() as u64);
                for s in slices {
                    if let Some(a) = self.state.get(&(key, s)) {
                        m.merge(a);
                    }
                }
                Some(m)
            }
            Slicer::Cumulate { .. } => {
                // Merged into the first slice's state, which is then updated.
                let first = sl.cumulate_first_slice(end);
                let mut base = self
                    .state
                    .get(&(key, first))
                    .cloned()
                    .unwrap_or_else(|| Acc::new(n));
                let slices = sl.slices_of_window(end);
                cx.charge(Work::MergeSteps, slices.len() as u64);
                for s in slices {
                    if let Some(a) = self.state.get(&(key, s)) {
                        let a = a.clone();
                        base.merge(&a);
                    }
                }
                let old = self.state.insert((key, first), base.clone());
                self.held = self.held + base.rows.len() - old.map_or(0, |o| o.rows.len());
                Some(base)
            }
        };
        let acc = merged.unwrap_or_else(|| Acc::new(n));
        let empty = acc.count_star == 0;
        if !empty {
            self.emit(cx, key, sl.window_start_of(end), end, &acc);
        }
        if let Some(next) = sl.next_trigger_window(end, empty) {
            cx.register_event_timer(key, next - 1, Ns::Window(next));
        }
        let mut cleared = Vec::new();
        for s in sl.expired_slices(end) {
            if let Some(a) = self.state.remove(&(key, s)) {
                self.held -= a.rows.len();
                cleared.extend(a.rows);
            }
        }
        if cx.tracing() && !cleared.is_empty() {
            cx.cleared(
                || cleared,
                || {
                    format!(
                        "slice state cleared after window {}",
                        fmt_window(sl.window_start_of(end), end)
                    )
                },
            );
        }
    }

    /// `UnsliceSyncStateWindowAggProcessor.processElement` for SESSION (Flink 2.3.0 bytecode).
    ///
    /// `MergingWindowProcessFunction.assignStateNamespace` adds the row's window `[ts, ts +
    /// gap)` to the key's `MergingWindowSet`: the table `SessionWindowAssigner.mergeWindows`
    /// looks only at the `ceiling` and the `floor` of the new window among the in-flight ones
    /// (sorted by start, then end), collecting those it intersects into a `java.util.HashSet`,
    /// then the new window. `addWindow` removes the new window from that set; unless the rest
    /// is only the merge result itself, `MergingFunctionImpl.merge` runs: the trigger's
    /// `onMerge` registers the merge result's timer *first*, then, in the set's iteration
    /// order, each merged window's timer is deleted (`clearTrigger`, then `deleteCleanupTimer`:
    /// the same timer with no allowed lateness). Then the state windows merge into the first
    /// merged window's, the row is accumulated, and `processElement` registers the actual
    /// window's timer (a no-op after a merge). The order of those registrations and deletions
    /// shapes the timer heap, and so the order in which windows with equal ends fire.
    fn session_element(&mut self, cx: &mut Ctx<'_, Ns>, key: KeyId, ts: i64, row: RowId) {
        let n = self.calls.len();
        let new = Win {
            start: ts,
            end: ts.saturating_add(self.gap),
        };
        let list = self.sessions.entry(key).or_default();
        let at = |i: usize| Win {
            start: list[i].start,
            end: list[i].end,
        };
        // NavigableSet.ceiling / floor under TimeWindow.compareTo (start, then end).
        let ceiling = (0..list.len()).find(|&i| (at(i).start, at(i).end) >= (new.start, new.end));
        let floor = (0..list.len())
            .rev()
            .find(|&i| (at(i).start, at(i).end) <= (new.start, new.end));
        let mut merged: JavaHashMap<TableWin, usize> = JavaHashMap::new();
        let mut merge_result = new;
        for i in [ceiling, floor].into_iter().flatten() {
            if merge_result.intersects(at(i)) {
                merged.insert(TableWin(at(i)), i);
                merge_result = merge_result.cover(at(i));
            }
        }
        if !merged.is_empty() {
            merged.insert(TableWin(new), usize::MAX);
        }
        // mergedWindows.remove(newWindow); the new window equal to an in-flight one merges
        // into nothing.
        let merged_windows: Vec<(Win, usize)> = merged
            .iter()
            .map(|(w, i)| (w.0, *i))
            .filter(|(w, _)| *w != new)
            .collect();
        let actual = if merged.is_empty() { new } else { merge_result };
        if merged.is_empty() && is_window_fired(actual.end, cx.watermark.0) {
            // MergingWindowProcessFunction: isWindowLate(actualWindow) → retireWindow, dropped.
            self.dropped += 1;
            cx.late(
                row,
                LateRule::WindowTvf {
                    window: (new.start, new.end),
                    progress: cx.watermark.0,
                    slice: (new.start, new.end),
                    record: self.dropped,
                    local: false,
                    grouping_set: None,
                },
                None,
            );
            return;
        }
        // The plan outlives `cx`: its values stay borrowed while `cx` changes below.
        let plan: &Plan = cx.plan;
        let values = plan.values(row);
        if merged_windows.is_empty() {
            // A new session, or the new window equal to an in-flight one.
            match list
                .iter()
                .position(|s| s.start == actual.start && s.end == actual.end)
            {
                Some(i) => list[i].acc.accumulate(&self.calls, values, row),
                None => {
                    let mut acc = Acc::new(n);
                    acc.accumulate(&self.calls, values, row);
                    let pos = list.partition_point(|s| s.start < actual.start);
                    list.insert(
                        pos,
                        Session {
                            start: actual.start,
                            end: actual.end,
                            acc,
                        },
                    );
                }
            }
        } else {
            let only_itself = merged_windows.len() == 1 && merged_windows[0].0 == merge_result;
            if !only_itself {
                // onMerge registers the merge result's timer before the merged ones go.
                cx.register_event_timer(
                    key,
                    merge_result.end - 1,
                    Ns::Session(merge_result.start, merge_result.end),
                );
                for (m, _) in &merged_windows {
                    cx.delete_event_timer(key, m.end - 1, Ns::Session(m.start, m.end));
                }
            }
            // DefaultAccMergingConsumer: the first merged window's state takes the others' in
            // the set's order; then the row is accumulated into it.
            let mut taken: Vec<(usize, Acc)> = Vec::with_capacity(merged_windows.len());
            let mut idx: Vec<usize> = merged_windows.iter().map(|(_, i)| *i).collect();
            idx.sort_unstable_by(|a, b| b.cmp(a));
            for i in idx {
                taken.push((i, list.remove(i).acc));
            }
            let acc_of = |i: usize, taken: &mut Vec<(usize, Acc)>| {
                let p = taken
                    .iter()
                    .position(|(j, _)| *j == i)
                    .expect("merged window");
                taken.swap_remove(p).1
            };
            let mut acc = acc_of(merged_windows[0].1, &mut taken);
            for (_, i) in &merged_windows[1..] {
                let other = acc_of(*i, &mut taken);
                acc.merge(&other);
            }
            acc.accumulate(&self.calls, values, row);
            let pos = list.partition_point(|s| s.start < merge_result.start);
            list.insert(
                pos,
                Session {
                    start: merge_result.start,
                    end: merge_result.end,
                    acc,
                },
            );
        }
        // The row is in a session's accumulator now (merges only moved the others' rows).
        self.held += 1;
        cx.register_event_timer(key, actual.end - 1, Ns::Session(actual.start, actual.end));
        cx.buffered(row, || {
            format!("session window {}", fmt_window(actual.start, actual.end))
        });
    }

    /// The rows the state holds, counted over every accumulator (what `state_rows` keeps).
    fn recount_rows(&self) -> usize {
        self.locals
            .iter()
            .flat_map(|l| l.buffer.entries.iter())
            .chain(self.buffer.entries.iter())
            .map(|e| e.1.rows.len())
            .sum::<usize>()
            + self.state.values().map(|a| a.rows.len()).sum::<usize>()
            + self
                .sessions
                .values()
                .flat_map(|l| l.iter())
                .map(|s| s.acc.rows.len())
                .sum::<usize>()
    }

    /// One row (or one grouping set's copy of it) keyed `key`.
    fn element(&mut self, cx: &mut Ctx<'_, Ns>, key: KeyId, row: RowId) {
        let r = cx.plan.row(row);
        let Some(ts) = r.ts else { return };
        match self.slicer {
            None => self.session_element(cx, key, ts, row),
            Some(sl) => {
                // LocalSlicingWindowAggOperator.processElement: into the local buffer.
                let slice = sl.slice_end(ts);
                let a = r.assigner as usize;
                let values = cx.plan.row_values(r);
                if let Some(local) = self.locals.get_mut(a) {
                    local
                        .buffer
                        .accumulate(key, slice, &self.calls, values, row);
                }
                cx.buffered(row, || {
                    format!(
                        "local aggregate after assigner {a}, slice {}",
                        fmt_window(slice - sl.interval(), slice)
                    )
                });
            }
        }
    }
}

impl Operator for WindowTvfAggregate {
    type Ns = Ns;

    fn new(plan: &Plan, _subtask: SubtaskIndex) -> Self {
        let job = &plan.scenario.job;
        WindowTvfAggregate {
            calls: resolve(plan).unwrap_or_default(),
            slicer: Slicer::of(&job.tvf),
            gap: job.tvf.gap.map_or(1, |g| g.0),
            group_cols: job
                .group
                .keys
                .iter()
                .filter_map(|k| plan.schemas[0].columns.iter().position(|c| c.name == *k))
                .collect(),
            state: BTreeMap::new(),
            buffer: Buffer::default(),
            progress: i64::MIN,
            next_trigger: i64::MIN,
            locals: vec![Local::default(); plan.assigner_parallelism as usize],
            assigner_rows: assigner_rows(plan, Slicer::of(&job.tvf)),
            sessions: BTreeMap::new(),
            held: 0,
            dropped: 0,
        }
    }

    fn process_element(&mut self, cx: &mut Ctx<'_, Ns>, _side: Side, row: RowId) {
        let key = cx.plan.row(row).key;
        self.element(cx, key, row);
    }

    fn process_copy(&mut self, cx: &mut Ctx<'_, Ns>, _side: Side, row: RowId, copy: usize) {
        let Some(ex) = &cx.plan.expand else { return };
        let key = ex.key(row.0 as usize, copy);
        self.element(cx, key, row);
    }

    fn on_channel_watermark(
        &mut self,
        cx: &mut Ctx<'_, Ns>,
        _stream: Side,
        assigner: u32,
        w: Watermark,
    ) {
        let Some(sl) = self.slicer else { return };
        let Some(local) = self.locals.get_mut(assigner as usize) else {
            return;
        };
        // LocalSlicingWindowAggOperator.processWatermark.
        if w.0 <= local.watermark {
            return;
        }
        local.watermark = w.0;
        if w.0 < local.next_trigger {
            return;
        }
        // RecordsWindowBuffer.advanceProgress: flush if a buffered slice has ended. Flink's
        // buffer holds every key of the assigner subtask, so a slice of a key keyed to another
        // operator subtask can flush this subtask's accumulators before their own slice ends:
        // they then reach the global buffer earlier, and the global operator registers its
        // window timers in buffer order (which decides the firing order of equal timers).
        let rows = &self.assigner_rows[assigner as usize];
        let read = cx.sink.arrivals_read;
        while let Some(&(arrival, slice)) = rows.get(local.cursor) {
            if arrival as usize >= read {
                break;
            }
            local.whole_min_slice_end =
                Some(local.whole_min_slice_end.map_or(slice, |m| m.min(slice)));
            local.cursor += 1;
        }
        let flush = local
            .whole_min_slice_end
            .is_some_and(|m| is_window_fired(m, w.0));
        local.next_trigger = next_trigger_watermark(w.0, sl.interval(), sl.offset());
        if flush {
            let entries = local.buffer.take();
            local.whole_min_slice_end = None;
            for ((key, slice), acc) in entries {
                self.global_element(cx, key, slice, acc);
            }
        }
    }

    fn on_watermark(&mut self, cx: &mut Ctx<'_, Ns>, w: Watermark) {
        let Some(sl) = self.slicer else { return };
        // AbstractSliceSyncStateWindowAggProcessor.advanceProgress (before the timers fire).
        if w.0 > self.progress {
            self.progress = w.0;
            if self.progress >= self.next_trigger {
                if self
                    .buffer
                    .min_slice_end
                    .is_some_and(|m| is_window_fired(m, self.progress))
                {
                    self.flush_global(cx);
                }
                self.next_trigger =
                    next_trigger_watermark(self.progress, sl.interval(), sl.offset());
            }
        }
    }

    fn on_event_time(&mut self, cx: &mut Ctx<'_, Ns>, timer: Timer<KeyId, Ns>) {
        match timer.namespace {
            Ns::Window(end) => self.fire_slicing(cx, timer.key, end),
            Ns::Session(s, e) => {
                let list = self.sessions.entry(timer.key).or_default();
                if let Some(i) = list.iter().position(|x| x.start == s && x.end == e) {
                    let sess = list.remove(i);
                    self.held -= sess.acc.rows.len();
                    if list.is_empty() {
                        self.sessions.remove(&timer.key);
                    }
                    if sess.acc.count_star != 0 {
                        self.emit(cx, timer.key, s, e, &sess.acc);
                    }
                    let rows = sess.acc.rows;
                    cx.cleared(
                        || rows,
                        || format!("session window {} fired", fmt_window(s, e)),
                    );
                }
            }
        }
    }

    fn describe_timer(ns: &Ns) -> String {
        match ns {
            Ns::Window(end) => format!("window ending {end}"),
            Ns::Session(s, e) => format!("session window {}", fmt_window(*s, *e)),
        }
    }

    fn state(&self) -> Vec<StateEntry> {
        let mut v = Vec::new();
        let window_of = |slice: i64| -> [i64; 2] {
            match self.slicer {
                Some(sl) => [slice - sl.interval(), slice],
                None => [slice, slice],
            }
        };
        for (a, l) in self.locals.iter().enumerate() {
            for ((key, slice), acc) in &l.buffer.entries {
                let w = window_of(*slice);
                v.push(StateEntry {
                    key: *key,
                    side: None,
                    scope: format!(
                        "local aggregate (assigner {a}) slice {}",
                        fmt_window(w[0], w[1])
                    ),
                    rows: acc.rows.clone(),
                    window: Some(w),
                });
            }
        }
        for ((key, slice), acc) in &self.buffer.entries {
            let w = window_of(*slice);
            v.push(StateEntry {
                key: *key,
                side: None,
                scope: format!("window buffer slice {}", fmt_window(w[0], w[1])),
                rows: acc.rows.clone(),
                window: Some(w),
            });
        }
        for ((key, slice), acc) in &self.state {
            let w = window_of(*slice);
            v.push(StateEntry {
                key: *key,
                side: None,
                scope: format!("slice {} ({} rows)", fmt_window(w[0], w[1]), acc.count_star),
                rows: acc.rows.clone(),
                window: Some(w),
            });
        }
        for (key, list) in &self.sessions {
            for s in list {
                v.push(StateEntry {
                    key: *key,
                    side: None,
                    scope: format!("session window {}", fmt_window(s.start, s.end)),
                    rows: s.acc.rows.clone(),
                    window: Some([s.start, s.end]),
                });
            }
        }
        v
    }

    fn is_empty(&self) -> bool {
        self.state.is_empty()
            && self.buffer.is_empty()
            && self.locals.iter().all(|l| l.buffer.is_empty())
            && self.sessions.is_empty()
    }

    fn state_rows(&self) -> usize {
        let buffered: usize = self.locals.iter().map(|l| l.buffer.rows).sum();
        let n = buffered + self.buffer.rows + self.held;
        debug_assert_eq!(n, self.recount_rows(), "state rows kept as they change");
        n
    }

    const REPORTS_LATE: bool = true;
}
