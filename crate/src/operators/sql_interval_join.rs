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
use crate::fasthash::FxBuild;
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
type Cache = JavaHashMap<i64, Entries>;

/// The list of one rowtime, in arrival order. One row is kept inline (the common case: a
/// rowtime is rarely shared within a key), so caching a row allocates no list.
#[derive(Clone, Debug)]
enum Entries {
    One((RowId, bool)),
    Many(Vec<(RowId, bool)>),
}

impl Entries {
    fn push(&mut self, e: (RowId, bool)) {
        match self {
            Entries::Many(v) if v.is_empty() => *self = Entries::One(e),
            Entries::One(a) => *self = Entries::Many(vec![*a, e]),
            Entries::Many(v) => v.push(e),
        }
    }

    fn iter(&self) -> std::slice::Iter<'_, (RowId, bool)> {
        match self {
            Entries::One(a) => std::slice::from_ref(a).iter(),
            Entries::Many(v) => v.iter(),
        }
    }

    fn iter_mut(&mut self) -> std::slice::IterMut<'_, (RowId, bool)> {
        match self {
            Entries::One(a) => std::slice::from_mut(a).iter_mut(),
            Entries::Many(v) => v.iter_mut(),
        }
    }
}

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

    fn cache(&mut self, side: Side) -> &mut Cache {
        match side {
            Side::Left => &mut self.left,
            Side::Right => &mut self.right,
        }
    }
}

/// The operator's fixed settings (what the planner passes to the `TimeIntervalJoin`
/// constructor).
#[derive(Clone, Copy)]
struct Config {
    join: JoinType,
    /// `leftRelativeSize = -leftLowerBound`.
    left_rel: i64,
    /// `rightRelativeSize = leftUpperBound`.
    right_rel: i64,
    /// `minCleanUpInterval` (`table.exec.interval-join.min-cleanup-interval`).
    min_cleanup: i64,
    proctime: bool,
    /// `leftUpperBound < leftLowerBound`: no join operator, only padding maps.
    negative: bool,
    /// Whether rows are keyed by a key column (else all share the empty key, and the join
    /// condition has no null filter).
    keyed: bool,
}

/// Flink SQL's interval join (`TimeIntervalJoin` with `RowTimeIntervalJoin` or
/// `ProcTimeIntervalJoin`), one instance per operator subtask.
pub struct SqlIntervalJoin {
    cfg: Config,
    /// `leftExpirationTime` (operator-instance field, shared across keys).
    left_exp: i64,
    /// `rightExpirationTime` (operator-instance field, shared across keys).
    right_exp: i64,
    keys: HashMap<KeyId, KeyState, FxBuild>,
    /// Rows in the caches ([`Operator::state_rows`]).
    rows: usize,
}

/// `leftLowerBound` and `leftUpperBound` for `L.t >= R.t + lower AND L.t <= R.t + upper`
/// (`IntervalJoinUtil`: a strict `>` adds 1, a strict `<` subtracts 1).
pub fn left_bounds(lower: i64, upper: i64, lower_strict: bool, upper_strict: bool) -> (i64, i64) {
    let lo = if lower_strict {
        lower.wrapping_add(1)
    } else {
        lower
    };
    let hi = if upper_strict {
        upper.wrapping_sub(1)
    } else {
        upper
    };
    (lo, hi)
}

/// `calExpirationTime(operatorTime, relativeSize)` with `allowedLateness = 0`.
fn expiration(op_time: i64, rel: i64) -> i64 {
    if op_time < i64::MAX {
        op_time.wrapping_sub(rel).wrapping_sub(1)
    } else {
        i64::MAX
    }
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::Left => "left",
        Side::Right => "right",
    }
}

fn emit_pair(cx: &mut Ctx<'_, ()>, input: Side, row: RowId, other: RowId) {
    match input {
        Side::Left => cx.emit(Some(row), Some(other), None, RowKind::Insert, None),
        Side::Right => cx.emit(Some(other), Some(row), None, RowKind::Insert, None),
    }
}

/// `paddingUtil.padLeft(row)` / `padRight(row)`.
fn emit_padded(cx: &mut Ctx<'_, ()>, side: Side, row: RowId) {
    match side {
        Side::Left => cx.emit(Some(row), None, None, RowKind::Insert, None),
        Side::Right => cx.emit(None, Some(row), None, RowKind::Insert, None),
    }
}

impl Config {
    fn time_name(&self) -> &'static str {
        if self.proctime {
            "proctime"
        } else {
            "rowtime"
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

    fn outer(&self, side: Side) -> bool {
        match side {
            Side::Left => self.join.left_outer(),
            Side::Right => self.join.right_outer(),
        }
    }

    /// The relative size of `side`: how far ahead of a row of `side` a row of the other side
    /// may be (`leftRelativeSize` for the left side, `rightRelativeSize` for the right).
    fn rel(&self, side: Side) -> i64 {
        match side {
            Side::Left => self.left_rel,
            Side::Right => self.right_rel,
        }
    }

    /// Whether the join condition can hold for this key: `IntervalJoinFunction.join` returns
    /// nothing when the (non-null-safe) equi-join key has a null field.
    fn key_joins(&self, cx: &Ctx<'_, ()>, key: KeyId) -> bool {
        !self.keyed || !cx.plan.keys[key.0 as usize].value.is_null()
    }

    /// `registerCleanUpTimer(ctx, rowTime, leftRow)`: a left row's timer cleans the left cache
    /// and is stored in `rightTimerState`, and vice versa.
    fn register_cleanup(
        &self,
        cx: &mut Ctx<'_, ()>,
        ks: &mut KeyState,
        key: KeyId,
        row_time: i64,
        side: Side,
    ) {
        let t = row_time
            .wrapping_add(self.rel(side))
            .wrapping_add(self.min_cleanup)
            .wrapping_add(1);
        if self.proctime {
            cx.register_processing_timer(key, t, ());
        } else {
            cx.register_event_timer(key, t, ());
        }
        match side {
            Side::Left => ks.right_timer = Some(t),
            Side::Right => ks.left_timer = Some(t),
        }
    }

    /// `removeExpiredRows`: drops the rows of `side`'s cache with `rowtime <= expiration`
    /// (null-padding unjoined ones if `side` is outer), then re-registers a cleanup timer for
    /// the earliest remaining rowtime — only if it is `> 0` (else, with rows possibly left,
    /// the whole cache is cleared without padding: Flink's quirk). Returns how many rows
    /// left the cache.
    fn remove_expired(
        &self,
        cx: &mut Ctx<'_, ()>,
        ks: &mut KeyState,
        key: KeyId,
        side: Side,
        expiration: i64,
    ) -> usize {
        let pad = self.outer(side);
        let mut gone = 0;
        let mut earliest: i64 = -1;
        let mut removed: Vec<RowId> = Vec::new();
        let tracing = cx.tracing();
        ks.cache(side).retain(|&rt, rows| {
            if rt <= expiration {
                for &(r, joined) in rows.iter() {
                    gone += 1;
                    if pad && !joined {
                        emit_padded(cx, side, r);
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
            cx.cleared(
                || removed,
                || format!("{} cache: rowtime <= {expiration} expired", side_name(side)),
            );
        }
        if earliest > 0 {
            self.register_cleanup(cx, ks, key, earliest, side);
        } else {
            let cache = ks.cache(side);
            if tracing && !cache.is_empty() {
                let rows: Vec<RowId> = cache
                    .values()
                    .flat_map(Entries::iter)
                    .map(|(r, _)| *r)
                    .collect();
                cx.cleared(
                    || rows,
                    || format!("{} cache cleared without padding (earliest remaining rowtime {earliest} <= 0)", side_name(side)),
                );
            }
            // `timerState.clear(); rowCache.clear()`: the state map is dropped.
            gone += cache.values().map(|e| e.iter().len()).sum::<usize>();
            *cache = JavaHashMap::new();
            match side {
                Side::Left => ks.right_timer = None,
                Side::Right => ks.left_timer = None,
            }
        }
        gone
    }
}

impl SqlIntervalJoin {
    /// `onTimer`: the same for event and processing time.
    fn on_timer(&mut self, cx: &mut Ctx<'_, ()>, timer: Timer<KeyId, ()>) {
        let cfg = self.cfg;
        let key = timer.key;
        let Some(ks) = self.keys.get_mut(&key) else {
            return;
        };
        let op_time = cfg.operator_time(cx);
        if ks.left_timer == Some(timer.timestamp) {
            self.right_exp = expiration(op_time, cfg.right_rel);
            self.rows -= cfg.remove_expired(cx, ks, key, Side::Right, self.right_exp);
        }
        if ks.right_timer == Some(timer.timestamp) {
            self.left_exp = expiration(op_time, cfg.left_rel);
            self.rows -= cfg.remove_expired(cx, ks, key, Side::Left, self.left_exp);
        }
        if ks.is_vacant() {
            self.keys.remove(&key);
        }
    }
}

impl Operator for SqlIntervalJoin {
    /// `VoidNamespace`: both cleanup timers of a key share it, so equal timestamps are one timer.
    type Ns = ();

    fn new(plan: &Plan, _subtask: SubtaskIndex) -> Self {
        let sql = &plan.scenario.job.sql;
        let (lo, hi) = left_bounds(sql.lower.0, sql.upper.0, sql.lower_strict, sql.upper_strict);
        SqlIntervalJoin {
            cfg: Config {
                join: sql.join,
                left_rel: lo.wrapping_neg(),
                right_rel: hi,
                min_cleanup: sql.min_cleanup.0.max(0),
                proctime: sql.time == TimeKind::Processing,
                // `relativeWindowSize = leftUpperBound - leftLowerBound < 0`.
                negative: (hi as i128) - (lo as i128) < 0,
                keyed: plan.schemas.first().is_some_and(|s| s.key.is_some()),
            },
            left_exp: 0,
            right_exp: 0,
            keys: HashMap::default(),
            rows: 0,
        }
    }

    /// `processElement1` (left) / `processElement2` (right, the mirror image).
    fn process_element(&mut self, cx: &mut Ctx<'_, ()>, side: Side, row: RowId) {
        let cfg = self.cfg;
        if cfg.negative {
            // `PaddingLeftMapFunction` / `PaddingRightMapFunction` or `FilterAllFlatMapFunction`.
            if cfg.outer(side) {
                emit_padded(cx, side, row);
            }
            return;
        }
        let key = cx.plan.row(row).key;
        let op_time = cfg.operator_time(cx);
        let t = if cfg.proctime {
            op_time
        } else {
            cx.plan.row(row).ts.unwrap_or(0)
        };
        let joins = cfg.key_joins(cx, key);
        let other = side.other();
        // For a left row the other side's qualifying range is [t - rightRel, t + leftRel];
        // for a right row it is [t - leftRel, t + rightRel].
        let lower = t.wrapping_sub(cfg.rel(other));
        let upper = t.wrapping_add(cfg.rel(side));
        let other_outer = cfg.outer(other);
        let ks = self.keys.entry(key).or_default();
        let mut emitted = false;
        let other_exp = match other {
            Side::Left => &mut self.left_exp,
            Side::Right => &mut self.right_exp,
        };
        // `rightExpirationTime < rightQualifiedUpperBound` (resp. left): otherwise the other
        // cache is not scanned at all.
        if *other_exp < upper {
            *other_exp = expiration(op_time, cfg.rel(other));
            let exp = *other_exp;
            let tracing = cx.tracing();
            let mut removed: Vec<RowId> = Vec::new();
            let mut gone = 0;
            ks.cache(other).retain(|&ot, rows| {
                if ot >= lower && ot <= upper && joins {
                    for (o, joined) in rows.iter_mut() {
                        emit_pair(cx, side, row, *o);
                        emitted = true;
                        if other_outer {
                            *joined = true;
                        }
                    }
                }
                // Eager removal of expired rows during the same pass.
                if ot <= exp {
                    for &(o, joined) in rows.iter() {
                        gone += 1;
                        if other_outer && !joined {
                            emit_padded(cx, other, o);
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
            self.rows -= gone;
            if !removed.is_empty() {
                cx.cleared(
                    || removed,
                    || format!("{} cache: rowtime <= {exp} expired", side_name(other)),
                );
            }
        }
        // Cache the row if rows of the other side may still come to match it.
        if op_time < upper {
            ks.cache(side)
                .get_or_insert_with(t, || Entries::Many(Vec::new()))
                .push((row, emitted));
            self.rows += 1;
            let time = cfg.time_name();
            cx.buffered(row, || format!("{} cache, {time} {t}", side_name(side)));
            let pending = match side {
                Side::Left => ks.right_timer,
                Side::Right => ks.left_timer,
            };
            if pending.is_none() {
                cfg.register_cleanup(cx, ks, key, t, side);
            }
        } else if !emitted && cfg.outer(side) {
            emit_padded(cx, side, row);
        }
        if ks.is_vacant() {
            self.keys.remove(&key);
        }
    }

    fn on_event_time(&mut self, cx: &mut Ctx<'_, ()>, timer: Timer<KeyId, ()>) {
        if !self.cfg.proctime {
            self.on_timer(cx, timer);
        }
    }

    fn on_processing_time(&mut self, cx: &mut Ctx<'_, ()>, timer: Timer<KeyId, ()>) {
        if self.cfg.proctime {
            self.on_timer(cx, timer);
        }
    }

    fn describe_timer(_ns: &()) -> String {
        "interval-join cache cleanup".to_string()
    }

    fn state(&self) -> Vec<StateEntry> {
        let mut keys: Vec<&KeyId> = self.keys.keys().collect();
        keys.sort();
        let time = self.cfg.time_name();
        let mut out = Vec::new();
        for k in keys {
            let ks = &self.keys[k];
            for (side, cache) in [(Side::Left, &ks.left), (Side::Right, &ks.right)] {
                for (t, rows) in cache.iter() {
                    for joined in [false, true] {
                        let group: Vec<RowId> = rows
                            .iter()
                            .filter(|(_, j)| *j == joined)
                            .map(|(r, _)| *r)
                            .collect();
                        if group.is_empty() {
                            continue;
                        }
                        let scope = if joined {
                            format!("{time} {t}, joined")
                        } else {
                            format!("{time} {t}")
                        };
                        out.push(StateEntry {
                            key: *k,
                            side: Some(side),
                            scope,
                            rows: group,
                            window: None,
                        });
                    }
                }
            }
        }
        out
    }

    fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    fn state_rows(&self) -> usize {
        self.rows
    }

    /// `KeyedCoProcessOperatorWithWatermarkDelay`: `max(leftRelativeSize, rightRelativeSize) +
    /// allowedLateness` for event time; the processing-time join (plain
    /// `KeyedCoProcessOperator`) and the negative-window union delay nothing.
    fn output_watermark_delay(&self) -> i64 {
        if self.cfg.proctime || self.cfg.negative {
            0
        } else {
            self.cfg.left_rel.max(self.cfg.right_rel)
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::result::RunResult;
    use crate::trace::{Cause, Event};
    use serde_json::json;

    use crate::result::sql_change_text as show;

    fn run(
        sql: serde_json::Value,
        extra_job: serde_json::Value,
        left: &str,
        right: &str,
    ) -> RunResult {
        let mut job = json!({ "operator": "sql_interval_join", "sql": sql });
        if let serde_json::Value::Object(m) = extra_job {
            for (k, v) in m {
                job[k] = v;
            }
        }
        let sc = json!({
            "version": 1,
            "job": job,
            "streams": [
                { "name": "l", "columns": ["id", "t"], "key": "id", "time": "t", "rows": left },
                { "name": "r", "columns": ["id", "t"], "key": "id", "time": "t", "rows": right }
            ]
        });
        crate::run_json(&sc.to_string(), true).expect("scenario runs")
    }

    fn outputs(r: &RunResult) -> Vec<String> {
        r.outputs.iter().map(show).collect()
    }

    /// The step kind of each output (row arrival = its stream and line, end of input = "end").
    fn steps(r: &RunResult) -> Vec<String> {
        let trace = r.trace.as_ref().unwrap();
        r.outputs
            .iter()
            .map(|o| match &trace[o.step].cause {
                Cause::Row { row, .. } => {
                    let info = &r.rows.as_ref().unwrap()[row.0 as usize];
                    format!("{:?}{}", info.side, info.line).to_lowercase()
                }
                Cause::EndOfInput { .. } => "end".into(),
                Cause::ProcessingTime { processing_time } => format!("pt{processing_time}"),
                c => format!("{c:?}"),
            })
            .collect()
    }

    #[test]
    fn seed_001_left_join_pads_show_3_at_the_final_watermark() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../scenarios/sql-interval-left-join.json"
        ))
        .unwrap();
        let r = crate::run_json(&text, true).unwrap();
        let got: Vec<String> = outputs(&r);
        assert_eq!(
            got,
            [
                "+I[1,1635724863000,show_params|1,1635724913000,click_params]",
                "+I[2,1635724980000,show_params2|2,1635724921000,click_params2]",
                "+I[3,1635725100000,show_params3|null]",
            ]
        );
        // Joined rows come out on arrival of the second partner; the padding at end of input.
        assert_eq!(steps(&r), ["right1", "left2", "end"]);
        assert!(r.late.is_empty());
        assert!(r.state_empty);
    }

    #[test]
    fn strict_and_inclusive_bounds() {
        // L.t BETWEEN R.t - 5 AND R.t + 5: right 100 matches left 95..105 inclusive.
        let left = "a, 95\na, 105\na, 94\na, 106";
        let right = "a, 100 | a=200";
        let r = run(
            json!({ "lower": -5, "upper": 5 }),
            json!({ "arrival": "left_first" }),
            left,
            right,
        );
        // HashMap order of the left cache: 105 is in bucket 9, 95 in bucket 15.
        assert_eq!(outputs(&r), ["+I[a,105|a,100]", "+I[a,95|a,100]"]);
        // L.t > R.t - 5 AND L.t < R.t + 5 (IntervalJoinUtil: bounds -4 and +4).
        let r = run(
            json!({ "lower": -5, "upper": 5, "lower_strict": true, "upper_strict": true }),
            json!({ "arrival": "left_first" }),
            left,
            right,
        );
        assert!(outputs(&r).is_empty(), "{:?}", outputs(&r));
        let r = run(
            json!({ "lower": -5, "upper": 5, "lower_strict": true, "upper_strict": true }),
            json!({ "arrival": "left_first" }),
            "a, 96\na, 104",
            right,
        );
        assert_eq!(outputs(&r), ["+I[a,96|a,100]", "+I[a,104|a,100]"]);
    }

    #[test]
    fn negative_window_has_no_join_operator() {
        // lower 5 > upper 2: StreamExecIntervalJoin.createNegativeWindowSizeJoin.
        let left = "a, 10\nb, 20";
        let right = "a, 8\nc, 30";
        let inner = run(json!({ "lower": 5, "upper": 2 }), json!({}), left, right);
        assert!(inner.outputs.is_empty());
        let l = run(
            json!({ "join": "left", "lower": 5, "upper": 2 }),
            json!({}),
            left,
            right,
        );
        assert_eq!(outputs(&l), ["+I[a,10|null]", "+I[b,20|null]"]);
        // Padded at arrival, in arrival order (by time: r a@8, l a@10, l b@20, r c@30).
        let f = run(
            json!({ "join": "full", "lower": 5, "upper": 2 }),
            json!({}),
            left,
            right,
        );
        assert_eq!(
            outputs(&f),
            [
                "+I[null|a,8]",
                "+I[a,10|null]",
                "+I[b,20|null]",
                "+I[null|c,30]"
            ]
        );
        assert_eq!(steps(&f), ["right1", "left1", "left2", "right2"]);
        // Strictness can make a zero-width window negative: L.t > R.t AND L.t < R.t.
        let z = run(
            json!({ "join": "left", "lower": 0, "upper": 0, "lower_strict": true, "upper_strict": true }),
            json!({}),
            "a, 8",
            "a, 8",
        );
        assert_eq!(outputs(&z), ["+I[a,8|null]"]);
        assert!(z.state_empty);
    }

    #[test]
    fn matches_come_out_in_hashmap_order_of_rowtime() {
        // Left rows buffered at 2, 33, 17 (HashMap buckets 2, 1, 1) → iteration 33, 17, 2.
        let r = run(
            json!({ "lower": -100, "upper": 100 }),
            json!({ "arrival": "left_first" }),
            "a, 2\na, 33\na, 17",
            "a, 20",
        );
        assert_eq!(
            outputs(&r),
            ["+I[a,33|a,20]", "+I[a,17|a,20]", "+I[a,2|a,20]"]
        );
    }

    #[test]
    fn expiration_time_is_shared_across_keys() {
        // ±1000 ms, min cleanup 5000 ms so that right row b@1000 stays cached (timer 7001).
        // Punctuated watermarks: WM 3000 on both inputs before the left rows.
        let sql = json!({ "join": "full", "lower": -1000, "upper": 1000, "min_cleanup": 5000 });
        let job = json!({ "watermark": { "strategy": "punctuated" } });
        // Without key a: left b@500 (upper bound 1500 > rightExpirationTime 0) scans the right
        // cache and joins b@1000 although it is late.
        let solo = run(
            sql.clone(),
            job.clone(),
            "WM 3000 | a=3\nb, 500 | a=5",
            "b, 1000 | a=1\nWM 3000 | a=2",
        );
        assert_eq!(outputs(&solo), ["+I[b,500|b,1000]"]);
        // Key a's row first sets rightExpirationTime = 3000 - 1000 - 1 = 1999 ≥ 1500, so left
        // b@500 skips the scan: it is padded at once, and right b@1000 at its timer.
        let shared = run(
            sql,
            job,
            "WM 3000 | a=3\na, 5000 | a=4\nb, 500 | a=5",
            "b, 1000 | a=1\nWM 3000 | a=2",
        );
        assert_eq!(
            outputs(&shared),
            ["+I[b,500|null]", "+I[null|b,1000]", "+I[a,5000|null]"]
        );
        assert_eq!(steps(&shared), ["left3", "end", "end"]);
        assert!(shared.state_empty);
    }

    #[test]
    fn earliest_remaining_rowtime_not_positive_clears_without_padding() {
        // leftRelativeSize 10000: left rows at -9000 and -500 are cached (opTime 0 < t + 10000),
        // one cleanup timer at -9000 + 10001 = 1001.
        let sql = json!({ "join": "left", "lower": -10000, "upper": 1000 });
        let job = json!({ "watermark": { "strategy": "punctuated" }, "arrival": "left_first" });
        let r = run(sql, job, "a, -9000\na, -500\nWM 1001", "WM 1001");
        // The timer expires rows <= 1001 - 10000 - 1 = -9000 (padded); the earliest remaining
        // rowtime is -500 <= 0, so the cache is cleared and -500 is never emitted.
        assert_eq!(outputs(&r), ["+I[a,-9000|null]"]);
        assert!(r.state_empty);
        let trace = r.trace.as_ref().unwrap();
        let cleared: Vec<&str> = trace
            .iter()
            .flat_map(|s| &s.events)
            .filter_map(|e| match e {
                Event::Cleared { what, .. } => Some(what.as_str()),
                _ => None,
            })
            .collect();
        assert!(
            cleared.iter().any(|w| w.contains("without padding")),
            "{cleared:?}"
        );
    }

    #[test]
    fn one_cleanup_timer_per_key_and_side_and_min_cleanup() {
        // LEFT ±10, min cleanup 50: left a@100 registers the left-cache timer
        // 100 + 10 + 50 + 1 = 161; a@120 and a@200 arrive while it is pending and register none.
        // At watermark 161 rows <= 161 - 10 - 1 = 150 expire — a@100 and also a@120, whose own
        // timer would have been 181 — and a timer for the earliest remaining row follows
        // (200 + 61 = 261).
        let sql = json!({ "join": "left", "lower": -10, "upper": 10, "min_cleanup": 50 });
        let job = json!({ "watermark": { "strategy": "punctuated" } });
        // The right input's watermark is at 1000 first, so the left WM rows drive the operator.
        let r = run(
            sql,
            job,
            "a, 100 | a=1\na, 120 | a=2\na, 200 | a=3\nWM 161 | a=4\nWM 260 | a=5\nWM 261 | a=6",
            "WM 1000 | a=0",
        );
        assert_eq!(
            outputs(&r),
            ["+I[a,100|null]", "+I[a,120|null]", "+I[a,200|null]"]
        );
        let trace = r.trace.as_ref().unwrap();
        let wm_lines: Vec<u32> = r
            .outputs
            .iter()
            .map(|o| match trace[o.step].cause {
                Cause::WatermarkRow { line, .. } => line,
                ref c => panic!("{c:?}"),
            })
            .collect();
        assert_eq!(wm_lines, [4, 4, 6]);
        let registered: Vec<i64> = trace
            .iter()
            .flat_map(|s| &s.events)
            .filter_map(|e| match e {
                Event::TimerRegistered { timestamp, .. } => Some(*timestamp),
                _ => None,
            })
            .collect();
        assert_eq!(registered, [161, 261]);
    }

    #[test]
    fn late_row_joins_what_is_still_cached_and_is_never_reported_late() {
        // LEFT ±1000, arrival by time: right a@1000, left c@5001, right b@6000 (operator
        // watermark min(5000, 5999) = 5000), then left a@1500 arrives late (a=7000).
        let left = "c, 5001\na, 1500 | a=7000";
        let right = "a, 1000\nb, 6000";
        // Right a@1000's cleanup timer (1000 + 1000 + 1 = 2001) fired at watermark 5000, so the
        // late a@1500 finds nothing; it cannot be matched later (opTime 5000 >= 1500 + 1000):
        // padded at once.
        let r = run(
            json!({ "join": "left", "lower": -1000, "upper": 1000 }),
            json!({}),
            left,
            right,
        );
        assert!(r.late.is_empty());
        assert_eq!(outputs(&r), ["+I[a,1500|null]", "+I[c,5001|null]"]);
        assert_eq!(steps(&r), ["left2", "end"]);
        // With min cleanup 10 s the timer is at 12001: a@1000 is still cached, and the late row
        // still joins it (rightExpirationTime -2 < 2500, then 3999: a@1000 is expired in the
        // same scan, after joining). The late row is not cached and, joined, not padded.
        let r = run(
            json!({ "join": "left", "lower": -1000, "upper": 1000, "min_cleanup": 10000 }),
            json!({}),
            left,
            right,
        );
        assert!(r.late.is_empty());
        assert_eq!(outputs(&r), ["+I[a,1500|a,1000]", "+I[c,5001|null]"]);
        assert_eq!(steps(&r), ["left2", "end"]);
    }

    #[test]
    fn null_keys_never_match_but_are_padded() {
        let sql = json!({ "join": "full", "lower": -10, "upper": 10 });
        let r = run(sql, json!({}), "null, 100", "null, 100");
        // Both rows are cached under the NULL key; IntervalJoinFunction rejects the pair. Both
        // cleanup timers are at 100 + 10 + 1 = 111: one timer, and onTimer cleans the right
        // cache (leftTimerState) before the left one.
        assert_eq!(outputs(&r), ["+I[null|null,100]", "+I[null,100|null]"]);
        assert!(r.state_empty);
    }

    #[test]
    fn output_watermark_is_held_back_by_the_larger_relative_size() {
        let r = run(
            json!({ "lower": -1000, "upper": 3000 }),
            json!({}),
            "a, 10000",
            "a, 10000",
        );
        let trace = r.trace.as_ref().unwrap();
        let wms: Vec<(i64, i64)> = trace
            .iter()
            .flat_map(|s| &s.events)
            .filter_map(|e| match e {
                Event::OperatorWatermark {
                    watermark, output, ..
                } if !watermark.is_max() => Some((watermark.0, output.0)),
                _ => None,
            })
            .collect();
        assert_eq!(wms, [(9999, 6999)]);
    }

    #[test]
    fn processing_time_join_uses_arrival_times_and_processing_timers() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../scenarios/sql-interval-proctime.json"
        ))
        .unwrap();
        let r = crate::run_json(&text, true).unwrap();
        assert_eq!(
            outputs(&r),
            ["+I[1,q1|1,r1]", "+I[2,q2|null]", "+I[3,q3|3,r3]"]
        );
        // q2 is padded by its processing-time timer at 1000 + 3000 + 1.
        assert_eq!(steps(&r), ["right1", "pt4001", "right3"]);
        // q4's timer (11001) never fires: processing-time timers are dropped at end of input.
        assert!(!r.state_empty);
    }
}
