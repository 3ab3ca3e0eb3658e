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

use super::tvf_slicing::{is_window_fired, next_trigger_watermark, Slicer};
use super::{Ctx, LateRule, Operator, SqlValue};
use crate::budget::Work;
use crate::parse::{RowKind, Side};
use crate::partition::SubtaskIndex;
use crate::plan::{KeyId, Plan, RowId};
use crate::scenario::{AggFunc, Scenario};
use crate::time::Watermark;
use crate::timers::Timer;
use crate::trace::StateEntry;
use crate::value::{ColumnType, Value};
use std::collections::BTreeMap;

/// The timer namespace: an aligned window by its end, or a session window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ns {
    /// `Long` window end (`SlicingWindowTimerServiceImpl`).
    Window(i64),
    /// `TimeWindow(start, end)` of a session.
    Session(i64, i64),
}

/// One resolved aggregate call.
#[derive(Clone, Debug)]
struct Call {
    func: AggFunc,
    /// Column index (None: `COUNT(*)`).
    column: Option<usize>,
    ty: ColumnType,
    distinct: bool,
}

/// The accumulator of one aggregate call.
#[derive(Clone, Debug, Default, PartialEq)]
struct CallAcc {
    /// Non-null values seen (COUNT(col), AVG's count, whether SUM is null).
    n: i64,
    /// Integral sum, wrapping as Java `long` arithmetic does.
    isum: i64,
    fsum: f64,
    min: Option<Value>,
    max: Option<Value>,
    /// COUNT(DISTINCT): value → how often (a `MapView`).
    distinct: Vec<(ValueKey, i64)>,
}

/// A totally ordered stand-in for a value (distinct keys, MIN/MAX).
#[derive(Clone, Debug, PartialEq, PartialOrd)]
enum ValueKey {
    Bool(bool),
    Num(f64),
    Str(String),
}

fn value_key(v: &Value) -> Option<ValueKey> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(b) => ValueKey::Bool(*b),
        Value::Str(s) => ValueKey::Str(s.clone()),
        other => ValueKey::Num(other.as_f64()?),
    })
}

/// Flink's `compareTo` order of two non-null values of one column.
fn less(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => x.as_bytes() < y.as_bytes(),
        (Value::Bool(x), Value::Bool(y)) => !*x & *y,
        _ => a.as_f64().unwrap_or(0.0) < b.as_f64().unwrap_or(0.0),
    }
}

/// The accumulators of one (key, slice or window): `COUNT(*)` (always kept, as the planner
/// adds it for the empty check), each call's accumulator, and the rows it holds (for the
/// trace and the verdicts).
#[derive(Clone, Debug, Default, PartialEq)]
struct Acc {
    count_star: i64,
    calls: Vec<CallAcc>,
    rows: Vec<RowId>,
}

impl Acc {
    fn new(n: usize) -> Acc {
        Acc {
            count_star: 0,
            calls: vec![CallAcc::default(); n],
            rows: Vec::new(),
        }
    }

    fn accumulate(&mut self, calls: &[Call], values: &[Value], row: RowId) {
        self.count_star += 1;
        self.rows.push(row);
        for (c, a) in calls.iter().zip(self.calls.iter_mut()) {
            let Some(col) = c.column else {
                a.n += 1;
                continue;
            };
            let v = &values[col];
            if v.is_null() {
                continue;
            }
            if c.distinct {
                let k = value_key(v).unwrap_or(ValueKey::Bool(false));
                match a.distinct.iter_mut().find(|(x, _)| *x == k) {
                    Some(e) => e.1 += 1,
                    None => a.distinct.push((k, 1)),
                }
                continue;
            }
            a.n += 1;
            match v {
                Value::Int(i) => a.isum = a.isum.wrapping_add(*i as i64),
                Value::Long(i) => a.isum = a.isum.wrapping_add(*i),
                Value::Double(d) => a.fsum += d,
                _ => {}
            }
            if a.min.as_ref().is_none_or(|m| less(v, m)) {
                a.min = Some(v.clone());
            }
            if a.max.as_ref().is_none_or(|m| less(m, v)) {
                a.max = Some(v.clone());
            }
        }
    }

    /// `merge` of the generated aggregate handler.
    fn merge(&mut self, other: &Acc) {
        self.count_star += other.count_star;
        self.rows.extend_from_slice(&other.rows);
        for (a, b) in self.calls.iter_mut().zip(&other.calls) {
            a.n += b.n;
            a.isum = a.isum.wrapping_add(b.isum);
            a.fsum += b.fsum;
            if let Some(m) = &b.min {
                if a.min.as_ref().is_none_or(|x| less(m, x)) {
                    a.min = Some(m.clone());
                }
            }
            if let Some(m) = &b.max {
                if a.max.as_ref().is_none_or(|x| less(x, m)) {
                    a.max = Some(m.clone());
                }
            }
            for (k, c) in &b.distinct {
                match a.distinct.iter_mut().find(|(x, _)| x == k) {
                    Some(e) => e.1 += c,
                    None => a.distinct.push((k.clone(), *c)),
                }
            }
        }
    }

    /// `getValue`: the aggregates' results with Flink's result types.
    fn values(&self, calls: &[Call]) -> Vec<SqlValue> {
        calls
            .iter()
            .zip(&self.calls)
            .map(|(c, a)| match c.func {
                AggFunc::Count if c.distinct => {
                    SqlValue::Int(a.distinct.iter().filter(|e| e.1 > 0).count() as i64)
                }
                AggFunc::Count => SqlValue::Int(a.n),
                _ if a.n == 0 => SqlValue::Null,
                AggFunc::Sum => match c.ty {
                    // SUM(INT) is INT: Java int arithmetic wraps.
                    ColumnType::Int => SqlValue::Int(a.isum as i32 as i64),
                    ColumnType::Double => SqlValue::Double(a.fsum),
                    _ => SqlValue::Int(a.isum),
                },
                AggFunc::Avg => match c.ty {
                    // IntegralAvgAggFunction: a BIGINT sum divided by the count, cast back to
                    // the argument type (AVG of INT is INT).
                    ColumnType::Int => SqlValue::Int((a.isum / a.n) as i32 as i64),
                    ColumnType::Double => SqlValue::Double(a.fsum / a.n as f64),
                    _ => SqlValue::Int(a.isum / a.n),
                },
                AggFunc::Min => a.min.as_ref().map_or(SqlValue::Null, SqlValue::of),
                AggFunc::Max => a.max.as_ref().map_or(SqlValue::Null, SqlValue::of),
            })
            .collect()
    }
}

/// An insertion-ordered map of (key, slice) → accumulator: Flink's `WindowBytesMultiMap`.
#[derive(Clone, Debug, Default)]
struct Buffer {
    entries: Vec<((KeyId, i64), Acc)>,
    /// `RecordsWindowBuffer.minSliceEnd`.
    min_slice_end: Option<i64>,
}

impl Buffer {
    fn add(&mut self, key: KeyId, slice: i64, n: usize) -> &mut Acc {
        self.min_slice_end = Some(self.min_slice_end.map_or(slice, |m| m.min(slice)));
        let i = match self.entries.iter().position(|(k, _)| *k == (key, slice)) {
            Some(i) => i,
            None => {
                self.entries.push(((key, slice), Acc::new(n)));
                self.entries.len() - 1
            }
        };
        &mut self.entries[i].1
    }
    fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The `LocalSlicingWindowAggOperator` chained after one assigner subtask, as far as the keys of
/// this operator subtask go (its flush decision depends only on its own watermarks and on
/// whether a buffered slice has ended: see [`WindowTvfAggregate::on_channel_watermark`]).
#[derive(Clone, Debug, Default)]
struct Local {
    buffer: Buffer,
    /// `currentWatermark` (a Java field never set before the first watermark: 0).
    watermark: i64,
    /// `nextTriggerWatermark` (0 likewise).
    next_trigger: i64,
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
    /// The global operator's window buffer.
    buffer: Buffer,
    /// `currentProgress` of the global processor (`initializeWatermark(Long.MIN_VALUE)`).
    progress: i64,
    /// `nextTriggerProgress` (`Long.MIN_VALUE` at open).
    next_trigger: i64,
    /// One local aggregate per assigner subtask (input channel).
    locals: Vec<Local>,
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

/// Resolves the aggregate calls against the stream's columns.
fn resolve(plan: &Plan) -> Result<Vec<Call>, String> {
    let schema = &plan.schemas[0];
    plan.scenario
        .job
        .group
        .aggregates
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let (column, ty) = match &a.column {
                None => {
                    if a.func != AggFunc::Count {
                        return Err(format!(
                            "aggregate {}: {:?}(*) is not SQL; name a column",
                            i + 1,
                            a.func
                        ));
                    }
                    (None, ColumnType::Long)
                }
                Some(name) => {
                    let c = schema
                        .columns
                        .iter()
                        .position(|c| c.name == *name)
                        .ok_or_else(|| {
                            format!(
                                "aggregate {}: column {name:?} is not in {}",
                                i + 1,
                                schema.name
                            )
                        })?;
                    (Some(c), schema.columns[c].ty)
                }
            };
            if matches!(a.func, AggFunc::Sum | AggFunc::Avg)
                && !matches!(ty, ColumnType::Int | ColumnType::Long | ColumnType::Double)
            {
                return Err(format!(
                    "aggregate {}: {:?} needs a numeric column, not {}",
                    i + 1,
                    a.func,
                    ty.sql_name()
                ));
            }
            if a.distinct && a.func != AggFunc::Count {
                return Err(format!(
                    "aggregate {}: only COUNT(DISTINCT col) is simulated",
                    i + 1
                ));
            }
            Ok(Call {
                func: a.func,
                column,
                ty,
                distinct: a.distinct && column.is_some(),
            })
        })
        .collect()
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
                        SqlValue::of(&row.values[c])
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
                cols.iter().map(|&c| SqlValue::of(&row.values[c])).collect()
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
            self.buffer.add(key, target, n).merge(&acc);
            let mut first = slice;
            while is_window_fired(first, self.progress) {
                first += sl.interval();
            }
            cx.register_event_timer(key, first - 1, Ns::Window(first));
        } else {
            self.buffer.add(key, slice, n).merge(&acc);
        }
    }

    /// `RecordsWindowBuffer.flush` with `GlobalAggCombiner`: accumulators into state, and the
    /// window timer unless the window fired at the timer service's watermark.
    fn flush_global(&mut self, cx: &mut Ctx<'_, Ns>) {
        let n = self.calls.len();
        let entries = std::mem::take(&mut self.buffer.entries);
        self.buffer.min_slice_end = None;
        for ((key, slice), acc) in entries {
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
                self.state.insert((key, first), base.clone());
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

    /// `UnsliceSyncStateWindowAggProcessor.processElement` for SESSION.
    fn session_element(&mut self, cx: &mut Ctx<'_, Ns>, key: KeyId, ts: i64, row: RowId) {
        let n = self.calls.len();
        let (mut start, mut end) = (ts, ts.saturating_add(self.gap));
        let list = self.sessions.entry(key).or_default();
        // TimeWindow.intersects: start <= other.end && end >= other.start.
        let hits: Vec<usize> = (0..list.len())
            .filter(|&i| list[i].start <= end && list[i].end >= start)
            .collect();
        if hits.is_empty() && is_window_fired(end, cx.watermark.0) {
            // MergingWindowProcessFunction: isWindowLate(actualWindow) → retired, dropped.
            self.dropped += 1;
            cx.late(
                row,
                LateRule::WindowTvf {
                    window: (start, end),
                    progress: cx.watermark.0,
                    slice: (start, end),
                    record: self.dropped,
                    local: false,
                    grouping_set: None,
                },
                None,
            );
            return;
        }
        let mut acc = Acc::new(n);
        let mut removed = Vec::new();
        for &i in hits.iter().rev() {
            let s = list.remove(i);
            start = start.min(s.start);
            end = end.max(s.end);
            removed.push((s.start, s.end));
            acc.merge(&s.acc);
        }
        let values = cx.plan.row(row).values.clone();
        acc.accumulate(&self.calls, &values, row);
        let pos = list.partition_point(|s| s.start < start);
        list.insert(pos, Session { start, end, acc });
        for (s, e) in removed {
            if (s, e) != (start, end) {
                cx.delete_event_timer(key, e - 1, Ns::Session(s, e));
            }
        }
        cx.register_event_timer(key, end - 1, Ns::Session(start, end));
        cx.buffered(row, || format!("session window {}", fmt_window(start, end)));
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
                let n = self.calls.len();
                let values = r.values.clone();
                if let Some(local) = self.locals.get_mut(a) {
                    local
                        .buffer
                        .add(key, slice, n)
                        .accumulate(&self.calls, &values, row);
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
            sessions: BTreeMap::new(),
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
        // buffer holds every key of the assigner subtask; a flush that another subtask's key
        // causes only sends this subtask's accumulators earlier than their slice end, which
        // changes nothing downstream (their windows cannot have fired there yet).
        let flush = local
            .buffer
            .min_slice_end
            .is_some_and(|m| is_window_fired(m, w.0));
        local.next_trigger = next_trigger_watermark(w.0, sl.interval(), sl.offset());
        if flush {
            let entries = std::mem::take(&mut local.buffer.entries);
            local.buffer.min_slice_end = None;
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

    const REPORTS_LATE: bool = true;
}

#[cfg(test)]
mod tests {
    use super::super::tvf_slicing::Slicer;
    use crate::scenario::{Scenario, TvfKind, TvfSpec};
    use crate::time::Millis;
    use std::collections::BTreeMap;

    /// (window start, window end, key) → (COUNT(*), SUM(v)) from the engine's value rows.
    type Table = BTreeMap<(String, String, String), (i64, i64)>;

    fn run(sc: &Scenario) -> (Table, usize) {
        let r = crate::run(sc, false).unwrap();
        let mut t = Table::new();
        for o in &r.outputs {
            let v = serde_json::to_value(o.values.as_ref().unwrap()).unwrap();
            let key = (
                v[0].as_str().unwrap().to_string(),
                v[1].as_str().unwrap().to_string(),
                v[2].to_string(),
            );
            assert!(t
                .insert(key, (v[3].as_i64().unwrap(), v[4].as_i64().unwrap()))
                .is_none());
        }
        (t, r.late.len())
    }

    fn scenario(tvf: TvfSpec, parallelism: u32, rows: &[(u32, i64, i64)]) -> Scenario {
        let text: String = rows
            .iter()
            .map(|(k, v, ts)| format!("k{k}, {v}, {ts}\n"))
            .collect();
        let json = serde_json::json!({
            "job": {"operator": "window_tvf_aggregate", "parallelism": parallelism,
                    "watermark": {"strategy": "monotonous"},
                    "group": {"keys": ["k"], "aggregates": [{"func": "count"}, {"func": "sum", "column": "v"}]}},
            "streams": [{"name": "t", "columns": ["k", "v:bigint", "ts:bigint"], "key": "k", "time": "ts", "rows": text}]
        });
        let mut sc: Scenario = serde_json::from_value(json).unwrap();
        sc.job.tvf = tvf;
        sc
    }

    /// What the TVF + GROUP BY compute, by brute force over all rows.
    fn reference(tvf: &TvfSpec, rows: &[(u32, i64, i64)]) -> Table {
        let ts = |ms: i64| crate::operators::SqlValue::timestamp_text(ms);
        let mut t = Table::new();
        let mut add = |s: i64, e: i64, k: u32, v: i64| {
            let e2 = t
                .entry((ts(s), ts(e), format!("\"k{k}\"")))
                .or_insert((0, 0));
            e2.0 += 1;
            e2.1 += v;
        };
        match Slicer::of(tvf) {
            Some(sl) => {
                for &(k, v, time) in rows {
                    for (s, e) in sl.windows_of(time) {
                        add(s, e, k, v);
                    }
                }
            }
            None => {
                let gap = tvf.gap.unwrap().0;
                let mut by_key: BTreeMap<u32, Vec<(i64, i64)>> = BTreeMap::new();
                for &(k, v, time) in rows {
                    by_key.entry(k).or_default().push((time, v));
                }
                for (k, mut list) in by_key {
                    list.sort();
                    let mut i = 0;
                    while i < list.len() {
                        let (start, mut end, mut j) = (list[i].0, list[i].0 + gap, i);
                        while j + 1 < list.len() && list[j + 1].0 <= end {
                            j += 1;
                            end = end.max(list[j].0 + gap);
                        }
                        for &(_, v) in &list[i..=j] {
                            add(start, end, k, v);
                        }
                        i = j + 1;
                    }
                }
            }
        }
        t
    }

    /// In-order rows (monotonous watermarks: nothing is late) give exactly the brute-force
    /// windows, for every TVF, parallelism and offset.
    #[test]
    fn in_order_rows_give_the_brute_force_windows() {
        let mut seed = 7u64;
        let mut next = |n: i64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as i64).rem_euclid(n)
        };
        for case in 0..200 {
            let kind = [
                TvfKind::Tumble,
                TvfKind::Hop,
                TvfKind::Cumulate,
                TvfKind::Session,
            ][case % 4];
            let unit = 100 * (1 + next(5));
            let mut tvf = TvfSpec {
                kind,
                size: Millis(unit * (2 + next(4))),
                ..TvfSpec::default()
            };
            match kind {
                TvfKind::Hop => tvf.slide = Some(Millis(tvf.size.0 / [1, 2][next(2) as usize])),
                TvfKind::Cumulate => tvf.step = Some(Millis(tvf.size.0 / [1, 2][next(2) as usize])),
                TvfKind::Session => tvf.gap = Some(Millis(unit * (1 + next(3)))),
                TvfKind::Tumble => {}
            }
            if kind != TvfKind::Session && next(3) == 0 {
                tvf.offset = Millis(next(tvf.size.0));
            }
            // Positive times: the local aggregate ignores watermarks <= 0 (see
            // `local_aggregate_ignores_watermarks_up_to_zero`).
            let mut t = unit + next(6 * unit);
            let rows: Vec<(u32, i64, i64)> = (0..2 + next(20))
                .map(|_| {
                    t += next(unit);
                    (next(4) as u32, next(10) - 2, t)
                })
                .collect();
            let sc = scenario(tvf.clone(), 1 + next(4) as u32, &rows);
            let (got, late) = run(&sc);
            assert_eq!(late, 0, "case {case}: {}", sc.to_compact_json());
            assert_eq!(got, reference(&tvf, &rows), "case {case}: {tvf:?} {rows:?}");
        }
    }

    #[test]
    fn avg_of_int_is_int_and_types_follow_the_column() {
        let json = r#"{"job": {"operator": "window_tvf_aggregate", "tvf": {"kind": "tumble", "size": 10},
            "group": {"aggregates": [{"func": "avg", "column": "i"}, {"func": "avg", "column": "d"},
                                     {"func": "sum", "column": "i"}, {"func": "count", "column": "i"},
                                     {"func": "min", "column": "s"}, {"func": "count", "column": "s", "distinct": true}]}},
            "streams": [{"name": "t", "columns": ["i:int", "d:double", "s", "ts"], "time": "ts",
                         "rows": "1, 1.0, b, 1\n2, 2.0, a, 2\nnull, null, b, 3\n2147483647, 0.5, null, 4"}]}"#;
        let r = crate::run_json(json, false).unwrap();
        assert_eq!(
            r.columns[2..],
            ["EXPR$2", "EXPR$3", "EXPR$4", "EXPR$5", "EXPR$6", "EXPR$7"]
        );
        let v = serde_json::to_string(r.outputs[0].values.as_ref().unwrap()).unwrap();
        // AVG(INT) = (1 + 2 + 2147483647) / 3 in BIGINT, cast to INT; SUM(INT) wraps.
        assert_eq!(
            v,
            r#"["1970-01-01 00:00:00.000","1970-01-01 00:00:00.010",715827883,1.1666666666666667,-2147483646,3,"a",2]"#
        );
    }

    #[test]
    fn grouping_sets_and_other_keys_are_refused_with_the_field() {
        let json = r#"{"job": {"operator": "window_tvf_aggregate", "tvf": {"kind": "hop", "size": 10, "slide": 3},
            "group": {"aggregates": [{"func": "count"}]}},
            "streams": [{"name": "t", "columns": ["k", "ts"], "time": "ts", "rows": "a, 1"}]}"#;
        let e = crate::run_json(json, false).unwrap_err().to_string();
        assert!(
            e.contains("job.tvf.slide") && e.contains("integral multiple"),
            "{e}"
        );
        let json = json
            .replace(r#""slide": 3"#, r#""slide": 5"#)
            .replace(r#""aggregates""#, r#""keys": ["x"], "aggregates""#);
        let e = crate::run_json(&json, false).unwrap_err().to_string();
        assert!(e.contains("job.group.keys"), "{e}");
    }
}

#[cfg(test)]
mod local_tests {
    /// `LocalSlicingWindowAggOperator.currentWatermark` starts at 0 (a field `open()` never
    /// sets), so a local aggregate ignores watermarks <= 0 and flushes nothing on them, while
    /// still forwarding them: an in-order row at ts -649 waits in the local buffer while the
    /// global watermark reaches 0 and fires its last window [-1000, 0); when the local flushes
    /// at its first positive watermark, the row is late there.
    #[test]
    fn local_aggregate_ignores_watermarks_up_to_zero() {
        let json = r#"{"job":{"operator":"window_tvf_aggregate","parallelism":2,"watermark":{"strategy":"monotonous"},
            "tvf":{"kind":"hop","size":1000,"slide":500},"group":{"keys":["k"],"aggregates":[{"func":"count"}]}},
            "streams":[{"name":"t","columns":["k","ts:bigint"],"key":"k","time":"ts",
            "rows":"k0, -878\nk0, -649\nk2, -259\nk2, 1\nk3, 349\nk0, 514"}]}"#;
        let r = crate::run_json(json, false).unwrap();
        assert_eq!(r.late.len(), 1);
        assert_eq!(r.late[0].row.line, 2);
        assert_eq!(r.late[0].step, 5);
    }
}

#[cfg(test)]
mod key_tests {
    use crate::javahash::sql_key_hash;
    use crate::value::Value;

    /// GROUP BY two columns: one group per pair, keyed (and so routed) by the BinaryRowData of
    /// both values, and both values in the output.
    #[test]
    fn group_by_two_columns() {
        let json = r#"{"job": {"operator": "window_tvf_aggregate", "parallelism": 4, "tvf": {"kind": "tumble", "size": 10},
            "group": {"keys": ["k", "n"], "aggregates": [{"func": "count"}]}},
            "streams": [{"name": "t", "columns": ["k", "n:int", "ts"], "key": "k", "time": "ts",
                         "rows": "a, 1, 1\na, 2, 2\na, 1, 3\nb, 1, 4"}]}"#;
        let r = crate::run_json(json, false).unwrap();
        assert_eq!(
            r.columns,
            ["window_start", "window_end", "k", "n", "EXPR$4"]
        );
        let mut got: Vec<String> = r
            .outputs
            .iter()
            .map(|o| serde_json::to_string(&o.values.as_ref().unwrap()[2..]).unwrap())
            .collect();
        got.sort();
        assert_eq!(got, [r#"["a",1,2]"#, r#"["a",2,1]"#, r#"["b",1,1]"#]);
        let plan = crate::plan::build(
            &crate::scenario::Scenario::from_json(json).unwrap(),
            crate::plan::Limits::default(),
        )
        .unwrap();
        let k = &plan.keys[plan.rows[1].key.0 as usize];
        assert_eq!(k.value, Value::Str("(\"a\", 2)".into()));
        assert_eq!(
            k.hash,
            sql_key_hash(&[Value::Str("a".into()), Value::Int(2)])
        );
    }
}

#[cfg(test)]
mod grouping_tests {
    use super::super::tvf_slicing::Slicer;
    use crate::scenario::{Scenario, TvfKind, TvfSpec};
    use crate::time::Millis;
    use std::collections::BTreeMap;

    /// (window start, window end, k, k2) → COUNT(*), from the value rows.
    type Table = BTreeMap<(String, String, String, String), i64>;

    /// In-order rows: GROUPING SETS give, for every set, the windows of a plain GROUP BY of
    /// the set's columns with the other grouping columns null (brute force), and each copy is
    /// emitted on the subtask of the key (k or null, k2 or null, $e).
    #[test]
    fn grouping_sets_give_one_plain_aggregation_per_set() {
        let mut seed = 11u64;
        let mut next = |n: i64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as i64).rem_euclid(n)
        };
        let choices: [&[&[&str]]; 5] = [
            &[&["k"], &[]],
            &[&["k", "k2"], &["k"], &[]],
            &[&["k", "k2"], &["k"], &["k2"], &[]],
            &[&["k"], &["k2"]],
            &[&["k", "k2"], &["k2"]],
        ];
        for case in 0..120 {
            let sets: Vec<Vec<String>> = choices[case % 5]
                .iter()
                .map(|s| s.iter().map(|c| c.to_string()).collect())
                .collect();
            let kind = [TvfKind::Tumble, TvfKind::Hop, TvfKind::Cumulate][case % 3];
            let unit = 100 * (1 + next(3));
            let mut tvf = TvfSpec {
                kind,
                size: Millis(unit * (2 + next(3))),
                ..TvfSpec::default()
            };
            match kind {
                TvfKind::Hop => tvf.slide = Some(Millis(tvf.size.0)),
                TvfKind::Cumulate => tvf.step = Some(Millis(tvf.size.0)),
                _ => {}
            }
            let mut t = unit;
            let rows: Vec<(i64, i64, i64)> = (0..2 + next(15))
                .map(|_| {
                    t += next(unit);
                    (next(3), next(2), t)
                })
                .collect();
            let text: String = rows
                .iter()
                .map(|(k, k2, ts)| format!("k{k}, {k2}, {ts}\n"))
                .collect();
            let json = serde_json::json!({
                "job": {"operator": "window_tvf_aggregate", "parallelism": 1 + next(4),
                        "watermark": {"strategy": "monotonous"},
                        "group": {"keys": crate::grouping_sets::keys_of(&sets), "grouping_sets": sets,
                                  "aggregates": [{"func": "count"}]}},
                "streams": [{"name": "t", "columns": ["k", "k2:int", "ts:bigint"], "key": "k", "time": "ts", "rows": text}]
            });
            let mut sc: Scenario = serde_json::from_value(json).unwrap();
            sc.job.tvf = tvf.clone();
            let r = crate::run(&sc, false).unwrap();
            let plan = crate::plan::build(&sc, crate::plan::Limits::default()).unwrap();
            let keys = &sc.job.group.keys;
            let mut got = Table::new();
            for o in &r.outputs {
                let v = serde_json::to_value(o.values.as_ref().unwrap()).unwrap();
                let col = |name: &str| {
                    keys.iter()
                        .position(|k| k == name)
                        .map_or("null".to_string(), |i| v[2 + i].to_string())
                };
                let key = (
                    v[0].as_str().unwrap().to_string(),
                    v[1].as_str().unwrap().to_string(),
                    col("k"),
                    col("k2"),
                );
                let n = v[2 + keys.len()].as_i64().unwrap();
                assert!(
                    got.insert(key, n).is_none(),
                    "case {case}: one row per group"
                );
                // The subtask is the one of the copy's key: (values with nulls…, $e).
                let mut kv: Vec<crate::value::Value> = Vec::new();
                for i in 0..keys.len() {
                    kv.push(match &v[2 + i] {
                        serde_json::Value::Null => crate::value::Value::Null,
                        serde_json::Value::String(s) => crate::value::Value::Str(s.clone()),
                        x => crate::value::Value::Int(x.as_i64().unwrap() as i32),
                    });
                }
                let kept: Vec<bool> = (0..keys.len()).map(|i| !v[2 + i].is_null()).collect();
                let e = crate::grouping_sets::expand_id(&kept);
                let ex = plan.expand.as_ref().unwrap();
                if ex.sets.iter().any(|s| s.expand_id == e) {
                    kv.push(crate::value::Value::Long(e));
                    let h = crate::javahash::sql_key_hash(&kv);
                    let kg = crate::partition::key_group_for_hash(h, plan.max_parallelism);
                    let sub = crate::partition::subtask_for_key_group(
                        plan.max_parallelism,
                        plan.operator_parallelism,
                        kg,
                    );
                    assert_eq!(o.subtask, sub, "case {case}");
                }
            }
            let sl = Slicer::of(&tvf).unwrap();
            let ts = |ms: i64| crate::operators::SqlValue::timestamp_text(ms);
            let mut want = Table::new();
            for &(k, k2, time) in &rows {
                for (s, e) in sl.windows_of(time) {
                    for set in &sets {
                        let a = if set.contains(&"k".to_string()) {
                            format!("\"k{k}\"")
                        } else {
                            "null".into()
                        };
                        let b = if set.contains(&"k2".to_string()) {
                            k2.to_string()
                        } else {
                            "null".into()
                        };
                        *want.entry((ts(s), ts(e), a, b)).or_insert(0) += 1;
                    }
                }
            }
            assert_eq!(got, want, "case {case}: {}", sc.to_compact_json());
        }
    }

    #[test]
    fn session_grouping_sets_and_duplicate_sets_are_refused() {
        let json = r#"{"job": {"operator": "window_tvf_aggregate", "tvf": {"kind": "session", "gap": 10},
            "group": {"keys": ["k"], "grouping_sets": [["k"], []], "aggregates": [{"func": "count"}]}},
            "streams": [{"name": "t", "columns": ["k", "ts"], "key": "k", "time": "ts", "rows": "a, 1"}]}"#;
        let e = crate::run_json(json, false).unwrap_err().to_string();
        assert!(
            e.contains("job.group.grouping_sets") && e.contains("GroupAggregate"),
            "{e}"
        );
        let json = json
            .replace(
                r#""kind": "session", "gap": 10"#,
                r#""kind": "tumble", "size": 10"#,
            )
            .replace(r#"[["k"], []]"#, r#"[["k"], ["k"], []]"#);
        let e = crate::run_json(&json, false).unwrap_err().to_string();
        assert!(e.contains("written twice"), "{e}");
    }

    /// The script reader crosses the GROUP BY items as Calcite does and keeps the columns in
    /// order of first appearance; the printer writes the sets back (round trip).
    #[test]
    fn scripts_read_rollup_cube_and_mixed_keys_as_their_sets() {
        let script = |group: &str, select: &str| {
            format!(
                "CREATE TABLE bid (supplier_id STRING, item STRING, price INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts);\n\
                 INSERT INTO bid VALUES ('s1', 'A', 1, TIMESTAMP '1970-01-01 00:00:01');\n\
                 SELECT window_start, window_end, {select}, COUNT(*) FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, {group};"
            )
        };
        let sets = |sc: &Scenario| sc.job.group.grouping_sets.clone().unwrap();
        let s = |v: &[&[&str]]| -> Vec<Vec<String>> {
            v.iter()
                .map(|x| x.iter().map(|c| c.to_string()).collect())
                .collect()
        };
        let sc =
            crate::sql::sql_to_scenario(&script("ROLLUP (supplier_id, item)", "supplier_id, item"))
                .unwrap();
        assert_eq!(
            sets(&sc),
            s(&[&["supplier_id", "item"], &["supplier_id"], &[]])
        );
        let sc =
            crate::sql::sql_to_scenario(&script("CUBE (item, supplier_id)", "item, supplier_id"))
                .unwrap();
        assert_eq!(
            sets(&sc),
            s(&[&["item", "supplier_id"], &["item"], &["supplier_id"], &[]])
        );
        assert_eq!(sc.job.group.keys, ["item", "supplier_id"]);
        // k, ROLLUP (item) = GROUPING SETS ((k, item), (k)).
        let sc =
            crate::sql::sql_to_scenario(&script("supplier_id, ROLLUP (item)", "supplier_id, item"))
                .unwrap();
        assert_eq!(sets(&sc), s(&[&["supplier_id", "item"], &["supplier_id"]]));
        assert_eq!(sc.streams[0].key.as_deref(), Some("supplier_id"));
        let r = crate::run(&sc, false).unwrap();
        assert_eq!(r.outputs.len(), 2);
        // Printed and read back: the same job.
        let text = crate::sql::scenario_to_sql(&sc).unwrap();
        let back = crate::sql::sql_to_scenario(&text).unwrap();
        assert_eq!(back.job.group, sc.job.group);
        // Duplicate sets: Flink plans a Union; refused at the GROUP BY.
        let e = crate::sql::sql_to_scenario(&script(
            "GROUPING SETS ((supplier_id), (supplier_id), ())",
            "supplier_id",
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains("written twice"), "{e}");
    }
}
