//! Flink SQL's time-interval join (`... ON l.id = r.id AND l.t BETWEEN r.t + lower AND r.t + upper`).
//!
//! Mirrors, line by line, the 2.3.0 runtime classes
//! `flink-table/flink-table-runtime/src/main/java/org/apache/flink/table/runtime/operators/join/interval/`
//! `TimeIntervalJoin.java` (the algorithm), `RowTimeIntervalJoin.java` (event time) and
//! `ProcTimeIntervalJoin.java` (processing time), `IntervalJoinFunction.java` (null-key filter),
//! wrapped in `.../operators/join/KeyedCoProcessOperatorWithWatermarkDelay.java` (event time) or
//! a plain `KeyedCoProcessOperator` (processing time), as the planner's
//! `flink-table/flink-table-planner/.../plan/nodes/exec/stream/StreamExecIntervalJoin.java`
//! builds them (bounds from `.../plan/utils/IntervalJoinUtil.scala`). Checked against the
//! bytecode of `flink-table-runtime-2.3.0.jar` (no early-fire, FLIP-497 is not in 2.3).
//!
//! The rules, in short (FLINK-SEMANTICS §7):
//! - bounds: the predicate `L.t >= R.t + lower AND L.t <= R.t + upper` gives
//!   `leftLowerBound = lower` (`+ 1` when strict, `>`) and `leftUpperBound = upper` (`- 1` when
//!   strict, `<`); `leftRelativeSize = -leftLowerBound`, `rightRelativeSize = leftUpperBound`,
//!   `allowedLateness = 0`, `minCleanUpInterval = table.exec.interval-join.min-cleanup-interval`.
//! - a negative window (`leftUpperBound < leftLowerBound`) has no join operator at all: the
//!   planner unions a "filter all" and/or a "pad" map per input (`createNegativeWindowSizeJoin`),
//!   so an outer side's rows come out null-padded at once.
//! - per key: a left and a right cache `MapState<rowtime, List<(row, emitted)>>` (the heap
//!   backend's `java.util.HashMap`, so scans follow `HashMap` order of the rowtime) and two
//!   `ValueState<Long>` holding the pending cleanup timer of each cache; the expiration times
//!   are operator-instance fields **shared by all keys** of the subtask.
//! - the row time is the time column's value (`row.getLong(timeIdx)`) for event time, and the
//!   current processing time for processing time; the operator time is
//!   `max(currentWatermark, 0)` (event time) or the processing time.
//! - the SQL interval join never reports late rows: a late row just finds its partners gone.
//! - every output is `+I` and carries no timestamp (SQL results after `toChangelogStream`).

use super::{Ctx, Operator};
use crate::javamap::JavaHashMap;
use crate::parse::{RowKind, Side};
use crate::partition::SubtaskIndex;
use crate::plan::{KeyId, Plan, RowId};
use crate::scenario::{JoinType, TimeKind};
use crate::timers::Timer;
use crate::trace::StateEntry;
use std::collections::HashMap;

/// One side's cache of one key: `MapState<Long, List<Tuple2<RowData, Boolean>>>`, the flag
/// telling whether the row has joined (and been emitted) at least once.
type Cache = JavaHashMap<i64, Vec<(RowId, bool)>>;

/// The keyed state of one key.
#[derive(Default)]
struct KeyState {
    /// `leftCache`.
    left: Cache,
    /// `rightCache`.
    right: Cache,
    /// `leftTimerState`: the pending timer that cleans the **right** cache.
    left_timer: Option<i64>,
    /// `rightTimerState`: the pending timer that cleans the **left** cache.
    right_timer: Option<i64>,
}

impl KeyState {
    /// Whether the state holds nothing that would behave differently from fresh state (an
    /// empty `HashMap` that grew beyond 16 buckets keeps its capacity, and so its order).
    fn is_vacant(&self) -> bool {
        self.left_timer.is_none()
            && self.right_timer.is_none()
            && self.left.is_empty()
            && self.right.is_empty()
            && self.left.capacity() <= 16
            && self.right.capacity() <= 16
    }
}

/// Flink SQL's interval join (`TimeIntervalJoin` with `RowTimeIntervalJoin` or
/// `ProcTimeIntervalJoin`), one instance per operator subtask.
pub struct SqlIntervalJoin {
    join: JoinType,
    /// `leftRelativeSize = -leftLowerBound`.
    left_rel: i64,
    /// `rightRelativeSize = leftUpperBound`.
    right_rel: i64,
    min_cleanup: i64,
    proctime: bool,
    /// `leftUpperBound < leftLowerBound`: no join operator, only padding maps.
    negative: bool,
    /// Whether rows are keyed by a key column (else all share the empty key, and the join
    /// condition has no null filter).
    keyed: bool,
    /// `leftExpirationTime` (operator-instance field, shared across keys).
    left_exp: i64,
    /// `rightExpirationTime` (operator-instance field, shared across keys).
    right_exp: i64,
    keys: HashMap<KeyId, KeyState>,
}

/// `leftLowerBound` and `leftUpperBound` for `L.t >= R.t + lower AND L.t <= R.t + upper`
/// (`IntervalJoinUtil`: a strict `>` adds 1, a strict `<` subtracts 1).
pub fn left_bounds(lower: i64, upper: i64, lower_strict: bool, upper_strict: bool) -> (i64, i64) {
    let lo = if lower_strict { lower.wrapping_add(1) } else { lower };
    let hi = if upper_strict { upper.wrapping_sub(1) } else { upper };
    (lo, hi)
}

impl SqlIntervalJoin {
    /// `calExpirationTime(operatorTime, relativeSize)` with `allowedLateness = 0`.
    fn expiration(op_time: i64, rel: i64) -> i64 {
        if op_time < i64::MAX {
            op_time.wrapping_sub(rel).wrapping_sub(1)
        } else {
            i64::MAX
        }
    }

    /// `updateOperatorTime`: `max(watermark, 0)` for rowtime, the processing time for proctime.
    fn operator_time(&self, cx: &Ctx<'_, ()>) -> i64 {
        if self.proctime {
            cx.processing_time
        } else if cx.watermark.0 > 0 {
            cx.watermark.0
        } else {
            0
        }
    }

    /// `registerCleanUpTimer(ctx, rowTime, leftRow)`: a left row's timer cleans the left cache
    /// and is stored in `rightTimerState`, and vice versa.
    fn register_cleanup(&self, cx: &mut Ctx<'_, ()>, ks: &mut KeyState, key: KeyId, row_time: i64, left_row: bool) {
        let rel = if left_row { self.left_rel } else { self.right_rel };
        let t = row_time.wrapping_add(rel).wrapping_add(self.min_cleanup).wrapping_add(1);
        if self.proctime {
            cx.register_processing_timer(key, t, ());
        } else {
            cx.register_event_timer(key, t, ());
        }
        if left_row {
            ks.right_timer = Some(t);
        } else {
            ks.left_timer = Some(t);
        }
    }

    /// Whether the join condition can hold for this key: `IntervalJoinFunction.join` returns
    /// nothing when the (non-null-safe) equi-join key has a null field.
    fn key_joins(&self, cx: &Ctx<'_, ()>, key: KeyId) -> bool {
        !self.keyed || !cx.plan.keys[key.0 as usize].value.is_null()
    }

    fn emit_pair(cx: &mut Ctx<'_, ()>, input: Side, row: RowId, other: RowId) {
        match input {
            Side::Left => cx.emit(Some(row), Some(other), None, RowKind::Insert, None),
            Side::Right => cx.emit(Some(other), Some(row), None, RowKind::Insert, None),
        }
    }

    fn emit_padded(cx: &mut Ctx<'_, ()>, side: Side, row: RowId) {
        match side {
            Side::Left => cx.emit(Some(row), None, None, RowKind::Insert, None),
            Side::Right => cx.emit(None, Some(row), None, RowKind::Insert, None),
        }
    }

    fn outer(&self, side: Side) -> bool {
        match side {
            Side::Left => self.join.left_outer(),
            Side::Right => self.join.right_outer(),
        }
    }

    /// `removeExpiredRows`: drops the rows of `side`'s cache with `rowtime <= expiration`
    /// (null-padding unjoined ones if `side` is outer), then re-registers a cleanup timer for
    /// the earliest remaining rowtime — only if it is `> 0` (else, with rows possibly left,
    /// the whole cache is cleared without padding: Flink's quirk).
    fn remove_expired(&self, cx: &mut Ctx<'_, ()>, ks: &mut KeyState, key: KeyId, side: Side, expiration: i64) {
        let pad = self.outer(side);
        let cache = match side {
            Side::Left => &mut ks.left,
            Side::Right => &mut ks.right,
        };
        let mut earliest: i64 = -1;
        let mut removed: Vec<RowId> = Vec::new();
        let tracing = cx.tracing();
        cache.retain(|&rt, rows| {
            if rt <= expiration {
                for &(r, joined) in rows.iter() {
                    if pad && !joined {
                        Self::emit_padded(cx, side, r);
                    }
                    if tracing {
                        removed.push(r);
                    }
                }
                false
            } else {
                if rt < earliest || earliest < 0 {
                    earliest = rt;
                }
                true
            }
        });
        if !removed.is_empty() {
            cx.cleared(|| removed, || format!("{} cache: rowtime <= {expiration} expired", side_name(side)));
        }
        if earliest > 0 {
            self.register_cleanup(cx, ks, key, earliest, side == Side::Left);
        } else {
            let cache = match side {
                Side::Left => &mut ks.left,
                Side::Right => &mut ks.right,
            };
            if tracing && !cache.is_empty() {
                let rows: Vec<RowId> = cache.values().flatten().map(|(r, _)| *r).collect();
                cx.cleared(|| rows, || format!("{} cache cleared without padding (earliest remaining rowtime {earliest} <= 0)", side_name(side)));
            }
            // `timerState.clear(); rowCache.clear()`: the state map is dropped.
            *cache = JavaHashMap::new();
            match side {
                Side::Left => ks.right_timer = None,
                Side::Right => ks.left_timer = None,
            }
        }
    }

    /// `onTimer`: the same for event and processing time.
    fn on_timer(&mut self, cx: &mut Ctx<'_, ()>, timer: Timer<KeyId, ()>) {
        let key = timer.key;
        let Some(mut ks) = self.keys.remove(&key) else { return };
        let op_time = self.operator_time(cx);
        if ks.left_timer == Some(timer.timestamp) {
            self.right_exp = Self::expiration(op_time, self.right_rel);
            let exp = self.right_exp;
            self.remove_expired(cx, &mut ks, key, Side::Right, exp);
        }
        if ks.right_timer == Some(timer.timestamp) {
            self.left_exp = Self::expiration(op_time, self.left_rel);
            let exp = self.left_exp;
            self.remove_expired(cx, &mut ks, key, Side::Left, exp);
        }
        if !ks.is_vacant() {
            self.keys.insert(key, ks);
        }
    }
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::Left => "left",
        Side::Right => "right",
    }
}

impl Operator for SqlIntervalJoin {
    /// `VoidNamespace`: both cleanup timers of a key share it, so equal timestamps are one timer.
    type Ns = ();

    fn new(plan: &Plan, _subtask: SubtaskIndex) -> Self {
        let sql = &plan.scenario.job.sql;
        let (lo, hi) = left_bounds(sql.lower.0, sql.upper.0, sql.lower_strict, sql.upper_strict);
        SqlIntervalJoin {
            join: sql.join,
            left_rel: lo.wrapping_neg(),
            right_rel: hi,
            min_cleanup: sql.min_cleanup.0.max(0),
            proctime: sql.time == TimeKind::Processing,
            // `relativeWindowSize = leftUpperBound - leftLowerBound < 0`.
            negative: (hi as i128) - (lo as i128) < 0,
            keyed: plan.schemas.first().is_some_and(|s| s.key.is_some()),
            left_exp: 0,
            right_exp: 0,
            keys: HashMap::new(),
        }
    }

    fn process_element(&mut self, cx: &mut Ctx<'_, ()>, side: Side, row: RowId) {
        if self.negative {
            // `PaddingLeftMapFunction` / `PaddingRightMapFunction` or `FilterAllFlatMapFunction`.
            if self.outer(side) {
                Self::emit_padded(cx, side, row);
            }
            return;
        }
        let key = cx.plan.row(row).key;
        let op_time = self.operator_time(cx);
        let t = if self.proctime { op_time } else { cx.plan.row(row).ts.unwrap_or(0) };
        let joins = self.key_joins(cx, key);
        let other = side.other();
        // For a left row the other side's qualifying range is [t - rightRel, t + leftRel];
        // for a right row it is [t - leftRel, t + rightRel] (processElement2 mirrors it).
        let (my_rel, other_rel) = match side {
            Side::Left => (self.left_rel, self.right_rel),
            Side::Right => (self.right_rel, self.left_rel),
        };
        let lower = t.wrapping_sub(other_rel);
        let upper = t.wrapping_add(my_rel);
        let other_outer = self.outer(other);
        let mut ks = self.keys.remove(&key).unwrap_or_default();
        let mut emitted = false;
        let other_exp = match other {
            Side::Left => &mut self.left_exp,
            Side::Right => &mut self.right_exp,
        };
        if *other_exp < upper {
            *other_exp = Self::expiration(op_time, other_rel);
            let exp = *other_exp;
            let cache = match other {
                Side::Left => &mut ks.left,
                Side::Right => &mut ks.right,
            };
            let tracing = cx.tracing();
            let mut removed: Vec<RowId> = Vec::new();
            cache.retain(|&ot, rows| {
                if ot >= lower && ot <= upper && joins {
                    for (o, joined) in rows.iter_mut() {
                        Self::emit_pair(cx, side, row, *o);
                        emitted = true;
                        if other_outer && !*joined {
                            *joined = true;
                        }
                    }
                }
                if ot <= exp {
                    for &(o, joined) in rows.iter() {
                        if other_outer && !joined {
                            Self::emit_padded(cx, other, o);
                        }
                        if tracing {
                            removed.push(o);
                        }
                    }
                    false
                } else {
                    true
                }
            });
            if !removed.is_empty() {
                cx.cleared(|| removed, || format!("{} cache: rowtime <= {exp} expired", side_name(other)));
            }
        }
        // Cache the row if rows of the other side may still come to match it.
        if op_time < upper {
            let cache = match side {
                Side::Left => &mut ks.left,
                Side::Right => &mut ks.right,
            };
            cache.get_or_insert_with(t, Vec::new).push((row, emitted));
            cx.buffered(row, || format!("{} cache, rowtime {t}", side_name(side)));
            let pending = match side {
                Side::Left => ks.right_timer,
                Side::Right => ks.left_timer,
            };
            if pending.is_none() {
                self.register_cleanup(cx, &mut ks, key, t, side == Side::Left);
            }
        } else if !emitted && self.outer(side) {
            Self::emit_padded(cx, side, row);
        }
        if !ks.is_vacant() {
            self.keys.insert(key, ks);
        }
    }

    fn on_event_time(&mut self, cx: &mut Ctx<'_, ()>, timer: Timer<KeyId, ()>) {
        if !self.proctime {
            self.on_timer(cx, timer);
        }
    }

    fn on_processing_time(&mut self, cx: &mut Ctx<'_, ()>, timer: Timer<KeyId, ()>) {
        if self.proctime {
            self.on_timer(cx, timer);
        }
    }

    fn describe_timer(_ns: &()) -> String {
        "interval-join cache cleanup".to_string()
    }

    fn state(&self) -> Vec<StateEntry> {
        let mut keys: Vec<&KeyId> = self.keys.keys().collect();
        keys.sort();
        let mut out = Vec::new();
        for k in keys {
            let ks = &self.keys[k];
            for (side, cache) in [(Side::Left, &ks.left), (Side::Right, &ks.right)] {
                for (t, rows) in cache.iter() {
                    for joined in [false, true] {
                        let group: Vec<RowId> = rows.iter().filter(|(_, j)| *j == joined).map(|(r, _)| *r).collect();
                        if group.is_empty() {
                            continue;
                        }
                        let scope = if joined { format!("rowtime {t}, joined") } else { format!("rowtime {t}") };
                        out.push(StateEntry { key: *k, side: Some(side), scope, rows: group });
                    }
                }
            }
        }
        out
    }

    fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// `KeyedCoProcessOperatorWithWatermarkDelay`: `max(leftRelativeSize, rightRelativeSize) +
    /// allowedLateness` for event time; the processing-time join (plain
    /// `KeyedCoProcessOperator`) and the negative-window union delay nothing.
    fn output_watermark_delay(&self) -> i64 {
        if self.proctime || self.negative {
            0
        } else {
            self.left_rel.max(self.right_rel)
        }
    }
}
