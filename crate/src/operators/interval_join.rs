//! The DataStream interval join: `keyedA.intervalJoin(keyedB).between(lower, upper)`.
//!
//! A literal model of Flink 2.3's `IntervalJoinOperator`
//! (`flink-runtime/src/main/java/org/apache/flink/streaming/api/operators/co/IntervalJoinOperator.java`;
//! the 2.3.0 bytecode in `flink-dist-2.3.0.jar` agrees), built by `KeyedStream.IntervalJoined`
//! (`flink-runtime/src/main/java/org/apache/flink/streaming/api/datastream/KeyedStream.java`).
//! FLINK-SEMANTICS §6.
//!
//! - **Bounds.** The constructor checks `lower <= upper` on the bounds as given (plan
//!   validation does that), then shifts exclusive ends inward by 1 ms:
//!   `lower = lowerInclusive ? lower : lower + 1`, `upper = upperInclusive ? upper : upper - 1`.
//!   A left element `l` and a right element `r` of the same key join iff
//!   `l.ts + lower <= r.ts <= l.ts + upper`.
//! - **State.** Per key, a `leftBuffer` and a `rightBuffer`, each a
//!   `MapState<Long, List<BufferEntry>>` (timestamp → elements in arrival order). With the
//!   default heap backend that is one `java.util.HashMap` per key (`HeapMapState`), modelled by
//!   [`JavaHashMap`]; `HeapMapState.remove` drops the whole map once it is empty, so the next
//!   insertion starts a fresh 16-bucket map ([`JavaHashMap::new`]).
//! - **processElement** (right side: relative bounds `[-upper, -lower]`), in this order:
//!   1. `isLate(ts) = ts < currentWatermark` (strict): a late element goes to the late side
//!      output (`sideOutputLeftLateData` / `sideOutputRightLateData`) with its own timestamp,
//!      or is dropped; it is neither buffered nor joined;
//!   2. `addToBuffer`: `list = buffer.get(ts)`, append, `buffer.put(ts, list)` (a present
//!      timestamp keeps its place in the map's iteration order);
//!   3. iterate **every** bucket of the other buffer (`otherBuffer.entries()`, HashMap order)
//!      and, for buckets with `ts + relLower <= t <= ts + relUpper`, call the join function for
//!      each element in list order with `(left, right)` — the left element always first — and
//!      the result timestamp `max(leftTs, rightTs)`;
//!   4. register the cleanup timer: `ts + relUpper` if `relUpper > 0`, else `ts` (left: namespace
//!      `CLEANUP_LEFT`, `relUpper = upper`; right: `CLEANUP_RIGHT`, `relUpper = -lower`).
//! - **onEventTime** (fires once the watermark is `>=` the timer): `CLEANUP_LEFT` removes
//!   `leftBuffer[upper <= 0 ? T : T - upper]`, `CLEANUP_RIGHT` removes
//!   `rightBuffer[lower <= 0 ? T + lower : T]` (both recover the element's own timestamp).
//! - **Off-by-one.** A left element `t` is removed when the watermark reaches `t + upper`; a
//!   right element with `ts == watermark == t + upper` is not late (`ts < wm` is false) and
//!   would match, but its partner is gone: no pair, and no late report either. Same on the
//!   other side with `r - lower`.
//! - Arithmetic is Java `long` arithmetic (wrapping), as in Flink.
//!
//! **Performance.** Flink scans every bucket of the other buffer per element, O(buffer). The
//! emission order must stay the HashMap order of the matching buckets, so small buffers are
//! scanned as Flink does; once a buffer holds more than [`INDEX_MIN`] timestamps it also keeps
//! an ordered index ([`BTreeSet`]) that finds the matching timestamps in O(log n + m). Their
//! HashMap order is the order of their table buckets (`spread(hash) & (capacity - 1)`, which
//! is the iteration order across buckets); if two matches share a bucket, the order within it
//! is not observable through `JavaHashMap`'s API, and the operator falls back to Flink's full
//! scan, which is exact by construction.

use super::{Ctx, LateRule, Operator};
use crate::fasthash::FxBuild;
use crate::javahash::long_hash;
use crate::javamap::JavaHashMap;
use crate::parse::{RowKind, Side};
use crate::partition::SubtaskIndex;
use crate::plan::{KeyId, Plan, RowId};
use crate::timers::Timer;
use crate::trace::StateEntry;
use std::collections::{BTreeSet, HashMap};

/// A buffer with more timestamps than this keeps an ordered index of them.
pub const INDEX_MIN: usize = 32;

/// The timer namespace: `CLEANUP_LEFT` / `CLEANUP_RIGHT`. `ts` is the element timestamp the
/// timer stands for (for the trace only: it is a function of the timer's timestamp and the
/// side, so timers are de-duplicated exactly as Flink's `(timestamp, key, namespace)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cleanup {
    pub side: Side,
    pub ts: i64,
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::Left => "left",
        Side::Right => "right",
    }
}

/// The `List<BufferEntry>` of one timestamp, in arrival order; one row is kept inline (the
/// common case), so buffering a row usually allocates nothing besides the map node.
#[derive(Clone, Debug)]
enum Rows {
    One(RowId),
    Many(Vec<RowId>),
}

impl Default for Rows {
    fn default() -> Self {
        Rows::Many(Vec::new())
    }
}

impl Rows {
    fn push(&mut self, row: RowId) {
        match self {
            Rows::Many(v) if v.is_empty() => *self = Rows::One(row),
            Rows::One(a) => *self = Rows::Many(vec![*a, row]),
            Rows::Many(v) => v.push(row),
        }
    }

    fn as_slice(&self) -> &[RowId] {
        match self {
            Rows::One(a) => std::slice::from_ref(a),
            Rows::Many(v) => v,
        }
    }
}

/// One side's `MapState<Long, List<BufferEntry>>` of one key.
#[derive(Default)]
struct Buffer {
    map: JavaHashMap<i64, Rows>,
    /// The map's timestamps, in order; kept once the map has grown past [`INDEX_MIN`].
    index: Option<BTreeSet<i64>>,
}

impl Buffer {
    fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// `addToBuffer`: `get` + append + `put`. Returns whether `ts` is new in the buffer.
    fn add(&mut self, ts: i64, row: RowId) -> bool {
        let before = self.map.len();
        self.map.get_or_insert_with(ts, Rows::default).push(row);
        let new = self.map.len() != before;
        if new {
            match &mut self.index {
                Some(ix) => {
                    ix.insert(ts);
                }
                None if self.map.len() > INDEX_MIN => {
                    self.index = Some(self.map.keys().copied().collect())
                }
                None => {}
            }
        }
        new
    }

    /// `MapState.remove(ts)`; an emptied map is dropped (`HeapMapState.remove` → `clear()`).
    fn remove(&mut self, ts: i64) -> Option<Rows> {
        let rows = self.map.remove(&ts)?;
        if self.map.is_empty() {
            *self = Buffer::default();
        } else if let Some(ix) = &mut self.index {
            ix.remove(&ts);
        }
        Some(rows)
    }

    /// Calls `f(t, rows)` for every timestamp `t` of this buffer with `lo <= t <= hi`, in the
    /// map's iteration order (the order `entries()` visits them). `scratch` is reused.
    fn for_each_match(
        &self,
        lo: i64,
        hi: i64,
        scratch: &mut Vec<i64>,
        mut f: impl FnMut(i64, &[RowId]),
    ) {
        if lo > hi || self.map.is_empty() {
            return;
        }
        if let Some(ix) = &self.index {
            scratch.clear();
            scratch.extend(ix.range(lo..=hi).copied());
            let in_order = scratch.len() < 2 || {
                let mask = self.map.capacity() - 1;
                let bucket = |t: i64| {
                    let h = long_hash(t);
                    // `HashMap.hash`: h ^ (h >>> 16), then the table index.
                    ((h ^ ((h as u32) >> 16) as i32) as u32 as usize) & mask
                };
                scratch.sort_unstable_by_key(|&t| bucket(t));
                scratch.windows(2).all(|w| bucket(w[0]) != bucket(w[1]))
            };
            if in_order {
                for &t in scratch.iter() {
                    if let Some(rows) = self.map.get(&t) {
                        f(t, rows.as_slice());
                    }
                }
                return;
            }
        }
        // Flink's loop: every bucket, in iteration order.
        for (&t, rows) in &self.map {
            if lo <= t && t <= hi {
                f(t, rows.as_slice());
            }
        }
    }

    /// The matching timestamps in emission order (tests).
    #[cfg(test)]
    fn matching(&self, lo: i64, hi: i64) -> Vec<i64> {
        let mut out = Vec::new();
        self.for_each_match(lo, hi, &mut Vec::new(), |t, _| out.push(t));
        out
    }
}

/// Both buffers of one key.
#[derive(Default)]
struct KeyState {
    sides: [Buffer; 2],
}

/// One subtask of `IntervalJoinOperator`.
pub struct IntervalJoin {
    /// The shifted (inclusive) bounds.
    lower: i64,
    upper: i64,
    left_late: Option<String>,
    right_late: Option<String>,
    keys: HashMap<KeyId, KeyState, FxBuild>,
    /// Scratch list of matching timestamps.
    scratch: Vec<i64>,
    /// Rows in the buffers ([`Operator::state_rows`]).
    rows: usize,
}

impl IntervalJoin {
    /// The join bounds after the constructor's shift of exclusive ends.
    pub fn bounds(&self) -> (i64, i64) {
        (self.lower, self.upper)
    }
}

impl Operator for IntervalJoin {
    // `WindowOperator.isElementLate` / `IntervalJoinOperator.isLate`.
    const REPORTS_LATE: bool = true;
    // Never deletes a timer, never registers one twice (see `process_element`).
    const UNIQUE_TIMERS: bool = true;

    type Ns = Cleanup;

    fn new(plan: &Plan, _subtask: SubtaskIndex) -> Self {
        let job = &plan.scenario.job;
        let iv = &job.interval;
        let lower = if iv.lower_exclusive {
            iv.lower.0.wrapping_add(1)
        } else {
            iv.lower.0
        };
        let upper = if iv.upper_exclusive {
            iv.upper.0.wrapping_sub(1)
        } else {
            iv.upper.0
        };
        IntervalJoin {
            lower,
            upper,
            left_late: job.late_output.left.clone(),
            right_late: job.late_output.right.clone(),
            keys: HashMap::default(),
            scratch: Vec::new(),
            rows: 0,
        }
    }

    fn process_element(&mut self, cx: &mut Ctx<'_, Cleanup>, side: Side, row: RowId) {
        let r = cx.plan.row(row);
        // The plan requires a time column; Flink throws on a record without a timestamp.
        let Some(ts) = r.ts else { return };
        let key = r.key;
        if ts < cx.watermark.0 {
            let tag = match side {
                Side::Left => self.left_late.as_deref(),
                Side::Right => self.right_late.as_deref(),
            };
            cx.late(row, LateRule::IntervalJoin, tag);
            return;
        }
        let (rel_lower, rel_upper) = match side {
            Side::Left => (self.lower, self.upper),
            Side::Right => (self.upper.wrapping_neg(), self.lower.wrapping_neg()),
        };

        let state = self.keys.entry(key).or_default();
        let new_ts = state.sides[side.index()].add(ts, row);
        self.rows += 1;
        cx.buffered(row, || format!("{} buffer, ts {ts}", side_name(side)));

        let other = &state.sides[side.other().index()];
        let mut scratch = std::mem::take(&mut self.scratch);
        other.for_each_match(
            ts.wrapping_add(rel_lower),
            ts.wrapping_add(rel_upper),
            &mut scratch,
            |t, rows| {
                let result_ts = Some(ts.max(t));
                for &o in rows {
                    match side {
                        Side::Left => cx.emit(Some(row), Some(o), result_ts, RowKind::Insert, None),
                        Side::Right => {
                            cx.emit(Some(o), Some(row), result_ts, RowKind::Insert, None)
                        }
                    }
                }
            },
        );
        self.scratch = scratch;

        let cleanup = if rel_upper > 0 {
            ts.wrapping_add(rel_upper)
        } else {
            ts
        };
        // A timestamp already in the buffer has this very timer pending (the entry and its
        // timer are created together here and leave together in `on_event_time`), and
        // registering it again is a no-op in Flink's queue: skipped, so no timer is ever
        // registered twice (`UNIQUE_TIMERS`). `IntervalJoinOperator.processElement` registers
        // `cleanupTime` on every element; `onEventTime` maps a timer back to exactly one
        // bucket (left: `t - upperBound` or `t`; right: `t + lowerBound` or `t`), the inverse
        // of `cleanupTime`, and `HeapPriorityQueueSet.add` leaves the heap untouched for a
        // timer already queued — so skipping the re-registration changes no firing order.
        if new_ts {
            cx.register_event_timer(key, cleanup, Cleanup { side, ts });
        }
    }

    fn on_event_time(&mut self, cx: &mut Ctx<'_, Cleanup>, timer: Timer<KeyId, Cleanup>) {
        let t = timer.timestamp;
        let side = timer.namespace.side;
        let ts = match side {
            Side::Left if self.upper <= 0 => t,
            Side::Left => t.wrapping_sub(self.upper),
            Side::Right if self.lower <= 0 => t.wrapping_add(self.lower),
            Side::Right => t,
        };
        debug_assert_eq!(ts, timer.namespace.ts);
        let Some(state) = self.keys.get_mut(&timer.key) else {
            return;
        };
        if let Some(rows) = state.sides[side.index()].remove(ts) {
            self.rows -= rows.as_slice().len();
            cx.cleared(
                || rows.as_slice().to_vec(),
                || format!("{} buffer, ts {ts}", side_name(side)),
            );
        }
        if state.sides.iter().all(Buffer::is_empty) {
            self.keys.remove(&timer.key);
        }
    }

    fn describe_timer(ns: &Cleanup) -> String {
        format!("cleanup {} ts {}", side_name(ns.side), ns.ts)
    }

    /// Per key (by key id), left then right buffer, one entry per timestamp in the buffer's
    /// HashMap iteration order (the order a join scan visits them).
    fn state(&self) -> Vec<StateEntry> {
        let mut keys: Vec<&KeyId> = self.keys.keys().collect();
        keys.sort();
        let mut out = Vec::new();
        for key in keys {
            let st = &self.keys[key];
            for side in [Side::Left, Side::Right] {
                for (ts, rows) in &st.sides[side.index()].map {
                    out.push(StateEntry {
                        key: *key,
                        side: Some(side),
                        scope: format!("ts {ts}"),
                        rows: rows.as_slice().to_vec(),
                        window: None,
                    });
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::{Output, RunResult};

    fn run(json: &str) -> RunResult {
        crate::run_json(json, false).expect("scenario runs")
    }

    /// (left line, right line, timestamp) of each output, in emission order.
    fn pairs(r: &RunResult) -> Vec<(u32, u32, i64)> {
        r.outputs
            .iter()
            .map(|o: &Output| {
                (
                    o.left.as_ref().unwrap().line,
                    o.right.as_ref().unwrap().line,
                    o.timestamp.unwrap(),
                )
            })
            .collect()
    }

    fn scenario(job: &str, left: &str, right: &str) -> String {
        format!(
            r#"{{
                "version": 1,
                "job": {job},
                "streams": [
                    {{"name": "emp", "columns": ["empno", "ename", "deptno", "ts"], "key": "deptno", "time": "ts", "rows": "{left}"}},
                    {{"name": "dept", "columns": ["deptno", "dname", "ts"], "key": "deptno", "time": "ts", "rows": "{right}"}}
                ]
            }}"#
        )
    }

    const SEED_JOB_P1: &str = r#"{"operator": "interval_join", "watermark": {"strategy": "monotonous"},
        "interval": {"lower": "-5ms", "upper": "5ms"}, "late_output": {"left": "late-emp"}}"#;

    #[test]
    fn seed_000_parallelism_1() {
        // Arrival: emp 9, dept 9, emp 8, emp 7.
        let left = r"100, zhangsan, 10, 9 | a=1\n101, lisi, 10, 8 | a=3\n102, wangwu, 10, 7 | a=4";
        let right = r"10, baigong, 9 | a=2";
        let r = run(&scenario(SEED_JOB_P1, left, right));
        // emp 9 arrives first: nothing to join. dept 9 joins emp 9; emp 8 joins dept 9.
        assert_eq!(pairs(&r), [(1, 1, 9), (2, 1, 9)]);
        // emp 7: watermark min(emp 9 − 1, dept 9 − 1) = 8, 7 < 8 → late, to the side output.
        assert_eq!(r.late.len(), 1);
        assert_eq!(r.late[0].row.line, 3);
        assert_eq!(r.late[0].watermark, crate::time::Watermark(8));
        assert_eq!(r.late[0].side_output.as_deref(), Some("late-emp"));
        let side: Vec<(u32, Option<i64>)> = r.side_outputs["late-emp"]
            .iter()
            .map(|s| (s.row.line, s.timestamp))
            .collect();
        assert_eq!(side, [(3, Some(7))]);
        assert!(r.state_empty);
    }

    #[test]
    fn seed_000_parallelism_2_idle_assigner_holds_watermark() {
        let job = r#"{"operator": "interval_join", "parallelism": 2, "watermark": {"strategy": "monotonous"},
            "interval": {"lower": "-5ms", "upper": "5ms"}, "late_output": {"left": "late-emp"}}"#;
        let left = r"100, zhangsan, 10, 9 | a=1 s=0\n101, lisi, 10, 8 | a=3 s=1\n102, wangwu, 10, 7 | a=4 s=0";
        let right = r"10, baigong, 9 | a=2 s=0";
        let r = run(&scenario(job, left, right));
        // dept's assigner subtask 1 never sees a row: its channel stays at MIN, so the join's
        // watermark stays MIN until the end and nothing is late.
        assert_eq!(pairs(&r), [(1, 1, 9), (2, 1, 9), (3, 1, 9)]);
        assert!(r.late.is_empty());
        assert!(r.side_outputs.is_empty());
        // With a dept row on each assigner subtask, the right input's watermark is 8, but emp's
        // assigner subtask 1 only saw ts 8 (watermark 7): the join's watermark is 7 when emp 7
        // arrives, and 7 < 7 is false — it still joins.
        let right2 = r"10, baigong, 9 | a=2 s=0\n10, baigong, 9 | a=2 s=1";
        let r = run(&scenario(job, left, right2));
        assert_eq!(
            pairs(&r),
            [
                (1, 1, 9),
                (1, 2, 9),
                (2, 1, 9),
                (2, 2, 9),
                (3, 1, 9),
                (3, 2, 9)
            ]
        );
        assert!(r.late.is_empty());
        // Once emp's subtask 1 has seen ts 9 too, the watermark is 8 and emp 7 is late again.
        let left3 = r"100, zhangsan, 10, 9 | a=1 s=0\n103, zhaoliu, 10, 9 | a=1 s=1\n101, lisi, 10, 8 | a=3 s=1\n102, wangwu, 10, 7 | a=4 s=0";
        let r = run(&scenario(job, left3, right2));
        assert_eq!(r.outputs.len(), 6);
        assert_eq!(r.late.len(), 1);
        assert_eq!(r.late[0].row.line, 4);
        assert_eq!(r.late[0].watermark, crate::time::Watermark(8));
    }

    /// The gallery scenarios say what they show.
    #[test]
    fn gallery_scenarios() {
        let r = run(include_str!("../../../scenarios/interval-emp-dept-p1.json"));
        assert_eq!(pairs(&r), [(1, 1, 9), (2, 1, 9)]);
        assert_eq!(r.late.iter().map(|l| l.row.line).collect::<Vec<_>>(), [3]);
        let r = run(include_str!("../../../scenarios/interval-emp-dept-p2.json"));
        assert_eq!(pairs(&r), [(1, 1, 9), (2, 1, 9), (3, 1, 9)]);
        assert!(r.late.is_empty());
        let r = run(include_str!(
            "../../../scenarios/interval-exclusive-bounds.json"
        ));
        let got: Vec<(u32, u32)> = r
            .outputs
            .iter()
            .map(|o| {
                (
                    o.left.as_ref().unwrap().line,
                    o.right.as_ref().unwrap().line,
                )
            })
            .collect();
        assert_eq!(got, [(1, 2), (1, 3), (2, 6)]);
        let r = run(include_str!(
            "../../../scenarios/interval-cleanup-edge.json"
        ));
        assert_eq!(pairs(&r), [(2, 1, 15000), (3, 2, 15001)]);
        assert_eq!(
            r.late
                .iter()
                .map(|l| (l.stream.as_str(), l.row.line))
                .collect::<Vec<_>>(),
            [("buys", 4)]
        );
        let r = run(include_str!(
            "../../../scenarios/interval-key-on-other-subtask.json"
        ));
        assert_eq!(r.outputs.len(), 4);
        assert!(r.late.is_empty());
        assert!(!r.state_empty);
        let subtasks: Vec<u32> = r.outputs.iter().map(|o| o.subtask.0).collect();
        assert_eq!(subtasks, [1, 0, 1, 1]);
    }

    #[test]
    fn exclusive_bounds_shift_by_one() {
        // Left at 10; right rows exactly at 10 + lower = 5 and 10 + upper = 15, and inside.
        let left = r"1, a, 10, 10 | a=1";
        let right = r"10, lo, 5 | a=2\n10, mid, 12 | a=2\n10, hi, 15 | a=2";
        let base = |lx: bool, ux: bool| {
            format!(
                r#"{{"operator": "interval_join", "watermark": {{"strategy": "punctuated"}},
                "interval": {{"lower": "-5ms", "upper": "5ms", "lower_exclusive": {lx}, "upper_exclusive": {ux}}}}}"#
            )
        };
        let lines = |r: &RunResult| {
            r.outputs
                .iter()
                .map(|o| o.right.as_ref().unwrap().line)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            lines(&run(&scenario(&base(false, false), left, right))),
            [1, 2, 3]
        );
        assert_eq!(
            lines(&run(&scenario(&base(true, false), left, right))),
            [2, 3]
        );
        assert_eq!(
            lines(&run(&scenario(&base(false, true), left, right))),
            [1, 2]
        );
        assert_eq!(lines(&run(&scenario(&base(true, true), left, right))), [2]);
    }

    #[test]
    fn cleanup_off_by_one_edge() {
        // between(-5, 5). Key 10: emp at 10 (cleanup timer at 15). Key 20 rows push both
        // watermarks to 15, the timer fires, then dept 10 @ 15 arrives: not late (15 < 15 is
        // false) but emp 10 is gone. Key 30: the same pair before the watermark passes joins.
        let job = r#"{"operator": "interval_join", "watermark": {"strategy": "monotonous"},
            "interval": {"lower": "-5ms", "upper": "5ms"}, "late_output": {"left": "late-emp", "right": "late-dept"}}"#;
        let left = r"1, a, 10, 10 | a=1\n3, c, 30, 10 | a=2\n2, b, 20, 16 | a=4";
        let right = r"30, c, 15 | a=3\n20, b, 16 | a=5\n10, a, 15 | a=6\n10, a, 14 | a=7";
        let r = run(&scenario(job, left, right));
        // (3, c, 30 @10) with (30 @15); (b @16) with (b @16); nothing for key 10.
        assert_eq!(pairs(&r), [(2, 1, 15), (3, 2, 16)]);
        // dept 10 @ 15 is not late; dept 10 @ 14 is (14 < 15).
        let late: Vec<(String, u32)> = r
            .late
            .iter()
            .map(|l| (l.stream.clone(), l.row.line))
            .collect();
        assert_eq!(late, [("dept".to_string(), 4)]);
        assert_eq!(r.side_outputs["late-dept"].len(), 1);
        assert!(r.state_empty);
    }

    /// Matches come out in the HashMap order of the buffer's timestamps, not sorted.
    #[test]
    fn emission_follows_hashmap_order() {
        // Right buffer 15, 16, 17 (buckets 15, 0, 1 of 16), then a left row at 16 scans it:
        // HashMap order 16, 17, 15 (FLINK-SEMANTICS §11). Punctuated: no watermark until the end.
        let job = r#"{"operator": "interval_join", "watermark": {"strategy": "punctuated"},
            "interval": {"lower": "-100ms", "upper": "100ms"}}"#;
        let left = r"1, a, 10, 16 | a=10";
        let right = r"10, x, 15 | a=1\n10, y, 16 | a=2\n10, z, 17 | a=3";
        let r = run(&scenario(job, left, right));
        assert_eq!(pairs(&r), [(1, 2, 16), (1, 3, 17), (1, 1, 16)]);
        // Negative timestamps: Long.hashCode(-1) = 0, (-2) = 1, (-17) = 16 → bucket 0 of 16
        // after 0's bucket; order -1 (bucket 0, first in), -17 (bucket 0, second), -2 (bucket 1).
        let right = r"10, x, -2 | a=1\n10, y, -1 | a=2\n10, z, -17 | a=3";
        let left = r"1, a, 10, -5 | a=10";
        let r = run(&scenario(job, left, right));
        assert_eq!(pairs(&r), [(1, 2, -1), (1, 3, -5), (1, 1, -2)]);
    }

    /// The indexed path must give exactly the order of Flink's full scan.
    #[test]
    fn indexed_matching_equals_full_scan() {
        let mut rng = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        for round in 0..200 {
            let mut b = Buffer::default();
            let n = 1 + (next() % 400) as usize;
            let spread = [50i64, 1000, 100_000, 1 << 40][round % 4];
            let mut live: Vec<i64> = Vec::new();
            for i in 0..n {
                let t = (next() % spread as u64) as i64 - spread / 3;
                b.add(t, RowId(i as u32));
                live.push(t);
                if next() % 5 == 0 {
                    let victim = live[(next() % live.len() as u64) as usize];
                    b.remove(victim);
                    live.retain(|&x| x != victim);
                }
            }
            for _ in 0..20 {
                let a = (next() % (spread as u64 + 10)) as i64 - spread / 3;
                let w = (next() % (spread as u64 / 2 + 2)) as i64;
                let (lo, hi) = (a, a + w);
                let got = b.matching(lo, hi);
                let want: Vec<i64> = b
                    .map
                    .keys()
                    .copied()
                    .filter(|&t| lo <= t && t <= hi)
                    .collect();
                assert_eq!(got, want, "round {round} range {lo}..={hi}");
            }
            if let Some(ix) = &b.index {
                let mut keys: Vec<i64> = b.map.keys().copied().collect();
                keys.sort();
                assert_eq!(ix.iter().copied().collect::<Vec<_>>(), keys);
            }
        }
    }

    #[test]
    fn emptied_buffer_starts_a_fresh_map() {
        let mut b = Buffer::default();
        for t in 0..40 {
            b.add(t * 64, RowId(t as u32));
        }
        assert!(b.map.capacity() > 16);
        assert!(b.index.is_some());
        for t in 0..40 {
            b.remove(t * 64);
        }
        assert_eq!(b.map.capacity(), 0);
        assert!(b.index.is_none());
    }

    #[test]
    fn negative_bounds_and_timer_recovery() {
        // between(-10, -2): right must be 2..10 before left. Right cleanup timer at r + 10,
        // left cleanup at l (upper <= 0).
        let job = r#"{"operator": "interval_join", "watermark": {"strategy": "monotonous"},
            "interval": {"lower": "-10ms", "upper": "-2ms"}}"#;
        let left = r"1, a, 10, 20 | a=2\n2, b, 10, 21 | a=3\n3, c, 10, 30 | a=5";
        let right = r"10, x, 12 | a=1\n10, y, 19 | a=4\n10, z, 25 | a=6";
        let r = run(&scenario(job, left, right));
        // Arrival: right 12, left 20, left 21, right 19, left 30, right 25.
        // left 20 (wm −∞): right in [10, 18] → 12. left 21 (wm 11): [11, 19] → 12.
        // right 19 (wm 11): left in [21, 29] → 21. left 30 (wm 18): [20, 28] → none.
        // right 25 (wm 18): left in [27, 35] → 30.
        assert_eq!(pairs(&r), [(1, 1, 20), (2, 1, 21), (2, 2, 21), (3, 3, 30)]);
        assert!(r.state_empty);
    }

    #[test]
    fn state_and_timers_in_trace() {
        let left = r"100, zhangsan, 10, 9 | a=1\n101, lisi, 10, 8 | a=3";
        let right = r"10, baigong, 9 | a=2";
        let r = crate::run_json(&scenario(SEED_JOB_P1, left, right), true).unwrap();
        let trace = r.trace.as_ref().unwrap();
        // After emp 8 (step 2): left buffer ts 9 and ts 8, right ts 9.
        let st = &trace[2].state[0];
        let scopes: Vec<(Option<Side>, &str)> = st
            .entries
            .iter()
            .map(|e| (e.side, e.scope.as_str()))
            .collect();
        assert_eq!(
            scopes,
            [
                (Some(Side::Left), "ts 8"),
                (Some(Side::Left), "ts 9"),
                (Some(Side::Right), "ts 9")
            ]
        );
        let mut timers: Vec<(i64, &str)> = st
            .timers
            .iter()
            .map(|t| (t.timestamp, t.what.as_str()))
            .collect();
        timers.sort();
        assert_eq!(
            timers,
            [
                (13, "cleanup left ts 8"),
                (14, "cleanup left ts 9"),
                (14, "cleanup right ts 9")
            ]
        );
    }
}
