//! Flink SQL's `SESSION` window table function as the first stage of a window join.
//!
//! Flink 2.3.0 plans `SESSION(TABLE t PARTITION BY k, DESCRIPTOR(rt), gap)` on both sides of a
//! window join as a `WindowTableFunction` per input (`StreamExecWindowTableFunction` with an
//! unaligned window: `UnalignedWindowTableFunctionOperator`, flink-table-runtime
//! `org/apache/flink/table/runtime/operators/window/tvf/operator/`), after an
//! `Exchange(hash[k])` on the `PARTITION BY` keys (`Exchange(single)` without them), then an
//! `Exchange(hash[join keys])` into the `WindowJoin` (`EXPLAIN` on Flink 2.3.0). The planner
//! keeps the window join only if each side's projection keeps its partition keys and both
//! sides have the same `SessionWindowSpec` (gap and partition key indices; `WindowJoinUtil`,
//! `StreamPhysicalWindowJoinRule`); otherwise it warns and plans a regular join.
//!
//! Joinlab simulates the case where the partition keys are the join key (or neither side has
//! a key). The TVF subtask of a key is then the join subtask of that key (the same
//! `BinaryRowData` hash of the same one-column key, the same parallelism), and every TVF
//! subtask of an input sees the same watermarks (each receives all of that input's assigner
//! channels): so one [`SessionTvf`] per join subtask holds, per input, exactly the TVF
//! subtask that feeds it, with that input's valve watermark. The join itself is the next
//! operator of the chain ([`super::window_tvf_join`]): what [`SessionTvf::advance`] emits
//! goes into it before the input's watermark does, as the TVF's records precede its
//! forwarded watermark on each channel.
//!
//! The operator, per key (2.3.0 bytecode and source of `UnalignedWindowTableFunctionOperator`,
//! `MergingWindowProcessFunction`, `MergingWindowSet`, `SessionWindowAssigner`,
//! `EventTimeTriggers.AfterEndOfWindow`, `InternalWindowProcessFunction`):
//! - `processElement`: the row gets the order `session-window-tvf-counter` (per key, counting
//!   every row, dropped ones too) and the window `[ts, ts + gap)`;
//!   `MergingWindowSet.addWindow` merges it with the in-flight windows it touches — only the
//!   `ceiling` and the `floor` of the new window in the sorted set are tried
//!   (`SessionWindowAssigner.mergeWindows`, `TimeWindow.intersects`: touching windows merge).
//!   On a merge: `onMerge` registers a timer at the merged window's `maxTimestamp` (no
//!   watermark check), then for each merged window (a `HashSet`, iterated in Java's order)
//!   its trigger timer and its cleanup timer are deleted; the state windows' rows are copied
//!   into the merged window's state window.
//! - late: if the resulting window's `maxTimestamp <= currentWatermark`
//!   (`isWindowLate`, allowed lateness 0) the window is retired and the row is dropped,
//!   counted by `numLateRecordsDropped` (no side output). Only a row that merges with nothing
//!   can be late: an in-flight window always ends after the watermark.
//! - otherwise the row is put in the state window under its order, the trigger registers a
//!   timer at `maxTimestamp` (`AfterEndOfWindow.onElement`), and a cleanup timer at
//!   `max(0, maxTimestamp)` (`getCleanupTime`; the same timer unless the window ends before
//!   1970).
//! - `onEventTime(t)`: if `t == maxTimestamp` the session fires: its rows are emitted sorted
//!   by their order (arrival order within the key), each with `window_start`, `window_end`,
//!   `window_time`; then, as `t == maxTimestamp` is also the cleanup time of
//!   `MergingWindowProcessFunction`, the state is cleared and the window retired. (The
//!   separate cleanup timer at 0 of a window ending before 1970 later fires and does nothing.)

use super::window::Win;
use crate::fasthash::FxBuild;
use crate::javamap::{JavaHash, JavaHashMap};
use crate::parse::Side;
use crate::partition::SubtaskIndex;
use crate::plan::{KeyId, RowId};
use crate::timers::{Timer, TimerQueue};
use crate::trace::{Event, StateEntry};
use std::collections::{BTreeMap, HashMap};

/// The table runtime's `TimeWindow` (its own `hashCode`, unlike the DataStream one): the
/// element of the `java.util.HashSet` a session merge collects, here and in the window
/// aggregation's SESSION windows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TableWin(pub(crate) Win);

/// `org.apache.flink.table.runtime.operators.window.TimeWindow.modInverse`.
fn mod_inverse(x: i32) -> i32 {
    let mut inverse = x.wrapping_mul(x).wrapping_mul(x);
    for _ in 0..3 {
        inverse = inverse.wrapping_mul(2i32.wrapping_sub(x.wrapping_mul(inverse)));
    }
    inverse
}

/// `TimeWindow.hashCode` of the table runtime (2.3.0 bytecode):
/// `(int) (start + modInverse((int) (end << 1) + 1))`.
impl JavaHash for TableWin {
    fn java_hash(&self) -> i32 {
        let inv = mod_inverse((self.0.end.wrapping_shl(1) as i32).wrapping_add(1));
        self.0.start.wrapping_add(inv as i64) as i32
    }
}

/// `getCleanupTime`: `max(0, maxTimestamp)` (UTC).
fn cleanup_time(w: Win) -> i64 {
    w.max_timestamp().max(0)
}

/// The state of one key of one TVF subtask.
#[derive(Default)]
struct KeyState {
    /// `session-window-tvf-counter`.
    counter: i64,
    /// `MergingWindowSet`: in-flight window → state window, sorted by `(start, end)` (the
    /// `TreeSet` of windows).
    windows: Vec<(Win, Win)>,
    /// `session-window-tvf-acc`: state window → (order, row), in order.
    state: BTreeMap<Win, Vec<(i64, RowId)>>,
}

impl KeyState {
    fn state_of(&mut self, w: Win) -> &mut Vec<(i64, RowId)> {
        self.state.entry(w).or_default()
    }

    fn mapping(&self, w: Win) -> Option<Win> {
        let i = self.windows.binary_search_by(|(x, _)| x.cmp(&w)).ok()?;
        Some(self.windows[i].1)
    }

    fn insert_window(&mut self, w: Win, state: Win) {
        match self.windows.binary_search_by(|(x, _)| x.cmp(&w)) {
            Ok(i) => self.windows[i].1 = state,
            Err(i) => self.windows.insert(i, (w, state)),
        }
    }

    fn remove_window(&mut self, w: Win) -> Option<Win> {
        let i = self.windows.binary_search_by(|(x, _)| x.cmp(&w)).ok()?;
        Some(self.windows.remove(i).1)
    }
}

/// One input's `UnalignedWindowTableFunctionOperator` subtask.
struct Stage {
    /// The timer service's `currentWatermark` (the input's valve watermark).
    watermark: i64,
    /// `session-window-tvf-timers` (namespace: the window).
    timers: TimerQueue<KeyId, Win>,
    keys: HashMap<KeyId, KeyState, FxBuild>,
    rows: usize,
    /// `numLateRecordsDropped`.
    dropped: u64,
}

impl Default for Stage {
    fn default() -> Self {
        Stage {
            watermark: i64::MIN,
            timers: TimerQueue::new(),
            keys: HashMap::default(),
            rows: 0,
            dropped: 0,
        }
    }
}

/// What happened to a row at the TVF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admitted {
    /// Held in this session until it closes.
    Held { session: (i64, i64) },
    /// Dropped: its window `[ts, ts + gap)` had ended at the TVF's watermark.
    Late {
        window: (i64, i64),
        watermark: i64,
        /// The TVF subtask's `numLateRecordsDropped` after this row.
        record: u64,
    },
}

/// A row the TVF emits when its session closes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Emitted {
    pub key: KeyId,
    pub row: RowId,
    pub window: (i64, i64),
}

/// The two inputs' SESSION TVF subtasks that feed one window join subtask.
pub struct SessionTvf {
    gap: i64,
    stages: [Stage; 2],
    subtask: SubtaskIndex,
}

/// Trace-only context: where the stage's events go.
pub struct Trace<'a> {
    pub events: Option<&'a mut Vec<Event>>,
}

impl Trace<'_> {
    fn timer(&mut self, e: impl FnOnce() -> Event) {
        if let Some(ev) = self.events.as_deref_mut() {
            ev.push(e());
        }
    }
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::Left => "left",
        Side::Right => "right",
    }
}

fn describe(side: Side, w: Win) -> String {
    format!(
        "SESSION window TVF ({} input): session [{}, {}) closes",
        side_name(side),
        w.start,
        w.end
    )
}

impl SessionTvf {
    /// The TVF subtasks of join subtask `subtask`, with the session gap.
    pub fn new(gap: i64, subtask: SubtaskIndex) -> Self {
        SessionTvf {
            gap: gap.max(1),
            stages: [Stage::default(), Stage::default()],
            subtask,
        }
    }

    /// The TVF's current watermark on `side`.
    pub fn watermark(&self, side: Side) -> i64 {
        self.stages[side.index()].watermark
    }

    fn change_timer(
        &mut self,
        t: &mut Trace<'_>,
        side: Side,
        add: bool,
        key: KeyId,
        ts: i64,
        w: Win,
    ) {
        let timer = Timer {
            timestamp: ts,
            key,
            namespace: w,
        };
        let st = &mut self.stages[side.index()];
        let changed = if add {
            st.timers.add(timer)
        } else {
            st.timers.delete(&timer)
        };
        if changed {
            let subtask = self.subtask;
            t.timer(|| {
                let what = describe(side, w);
                if add {
                    Event::TimerRegistered {
                        subtask,
                        key,
                        timestamp: ts,
                        what,
                        processing: false,
                    }
                } else {
                    Event::TimerDeleted {
                        subtask,
                        key,
                        timestamp: ts,
                        what,
                        processing: false,
                    }
                }
            });
        }
    }

    /// `UnalignedWindowTableFunctionOperator.processElement` of the row `row` (rowtime `ts`,
    /// key `key`) on input `side`.
    pub fn process_element(
        &mut self,
        t: &mut Trace<'_>,
        side: Side,
        key: KeyId,
        row: RowId,
        ts: i64,
    ) -> Admitted {
        let gap = self.gap;
        let wm = self.stages[side.index()].watermark;
        let new = Win {
            start: ts,
            end: ts.saturating_add(gap),
        };
        let ks = self.stages[side.index()].keys.entry(key).or_default();
        let order = ks.counter;
        ks.counter = ks.counter.wrapping_add(1);
        // SessionWindowAssigner.mergeWindows: the ceiling, then the floor (TreeSet order:
        // start, then end), each merged if it intersects the window grown so far.
        let at = ks.windows.partition_point(|(w, _)| *w < new);
        let ceiling = ks.windows.get(at).map(|(w, _)| *w);
        let floor = match ks.windows.get(at) {
            Some((w, _)) if *w == new => Some(*w),
            _ => at.checked_sub(1).map(|i| ks.windows[i].0),
        };
        let mut cover = new;
        // java.util.HashSet of the merged windows, then the new window.
        let mut set: JavaHashMap<TableWin, ()> = JavaHashMap::new();
        for other in [ceiling, floor].into_iter().flatten() {
            if cover.intersects(other) {
                set.insert(TableWin(other), ());
                cover = cover.cover(other);
            }
        }
        let mut actual = new;
        // (merge result, merged windows, state window, state windows to merge) for the merge
        // function, when it is called.
        let mut merge: Option<(Win, Vec<Win>, Win, Vec<Win>)> = None;
        if set.is_empty() {
            // No merge: mapping.put(newWindow, newWindow).
            ks.insert_window(new, new);
        } else {
            set.insert(TableWin(new), ());
            // MergingWindowSet.addWindow: mergedWindows.remove(newWindow).
            let merged: Vec<Win> = set.keys().map(|w| w.0).filter(|w| *w != new).collect();
            let new_merged = set.len() > merged.len();
            if new_merged {
                actual = cover;
            }
            if !merged.is_empty() {
                let state_window = ks.mapping(merged[0]).unwrap_or(merged[0]);
                let mut state_windows = Vec::new();
                for m in &merged {
                    if let Some(s) = ks.remove_window(*m) {
                        if s != state_window {
                            state_windows.push(s);
                        }
                    }
                }
                ks.insert_window(cover, state_window);
                if !(merged.len() == 1 && merged[0] == cover) {
                    merge = Some((cover, merged, state_window, state_windows));
                }
            }
            if !new_merged {
                ks.insert_window(new, new);
            }
        }
        if let Some((result, merged, state_window, state_windows)) = merge {
            // MergingFunctionImpl.merge: onMerge (AfterEndOfWindow.onMerge registers the
            // merged window's trigger time), then clearTrigger + deleteCleanupTimer per merged
            // window, then the MergingConsumer copies the merged state windows' rows.
            self.change_timer(t, side, true, key, result.max_timestamp(), result);
            for m in merged {
                self.change_timer(t, side, false, key, m.max_timestamp(), m);
                self.change_timer(t, side, false, key, cleanup_time(m), m);
            }
            let ks = self.stages[side.index()].keys.entry(key).or_default();
            let mut moved = Vec::new();
            for s in state_windows {
                // The source namespaces are copied, not cleared, in Flink; they are never read
                // again, so dropping them here changes nothing but memory.
                if let Some(rows) = ks.state.remove(&s) {
                    moved.extend(rows);
                }
            }
            if !moved.is_empty() {
                // Two runs in order: the sort only merges them.
                let target = ks.state_of(state_window);
                target.extend(moved);
                target.sort();
            }
        }
        let st = &mut self.stages[side.index()];
        let ks = st.keys.entry(key).or_default();
        // MergingWindowProcessFunction.assignStateNamespace: isWindowLate(actual) →
        // retireWindow, and the row is dropped (lateRecordsDroppedRate.markEvent).
        if actual.max_timestamp() <= wm {
            // The key's counter stays (Flink's ValueState keeps numbering its rows).
            ks.remove_window(actual);
            st.dropped += 1;
            return Admitted::Late {
                window: (new.start, new.end),
                watermark: wm,
                record: st.dropped,
            };
        }
        let state_window = ks.mapping(actual).unwrap_or(actual);
        ks.state_of(state_window).push((order, row));
        st.rows += 1;
        // AfterEndOfWindow.onElement (maxTimestamp > watermark here), then
        // registerCleanupTimer.
        self.change_timer(t, side, true, key, actual.max_timestamp(), actual);
        self.change_timer(t, side, true, key, cleanup_time(actual), actual);
        Admitted::Held {
            session: (actual.start, actual.end),
        }
    }

    /// The input's watermark reaches the TVF (`processWatermark`): the timers up to `w` fire
    /// in heap order and the closed sessions' rows are returned in emission order. The caller
    /// then forwards the watermark.
    pub fn advance(&mut self, t: &mut Trace<'_>, side: Side, w: i64) -> Vec<Emitted> {
        let subtask = self.subtask;
        let st = &mut self.stages[side.index()];
        if w <= st.watermark {
            return Vec::new();
        }
        st.watermark = w;
        let mut out = Vec::new();
        while let Some(timer) = st.timers.poll_due(w) {
            let win = timer.namespace;
            let key = timer.key;
            t.timer(|| Event::TimerFired {
                subtask,
                key,
                timestamp: timer.timestamp,
                what: describe(side, win),
                processing: false,
            });
            // AfterEndOfWindow.onEventTime fires iff time == maxTimestamp;
            // cleanWindowIfNeeded cleans iff time == cleanupTime = maxTimestamp (lateness 0).
            if timer.timestamp != win.max_timestamp() {
                continue;
            }
            let Some(ks) = st.keys.get_mut(&key) else {
                continue;
            };
            let Some(state_window) = ks.mapping(win) else {
                continue;
            };
            // emitWindowResult: the state window's rows sorted by order (a TreeMap).
            let mut rows = ks.state.remove(&state_window).unwrap_or_default();
            rows.sort_unstable();
            for &(_, row) in &rows {
                out.push(Emitted {
                    key,
                    row,
                    window: (win.start, win.end),
                });
            }
            st.rows -= rows.len();
            // clearTrigger: the trigger timer at maxTimestamp (the one firing, already
            // polled); clearWindowState; retireWindow.
            ks.remove_window(win);
        }
        out
    }

    /// The rows the TVFs hold, for the state view.
    pub fn state(&self) -> Vec<StateEntry> {
        let mut out = Vec::new();
        for side in [Side::Left, Side::Right] {
            let st = &self.stages[side.index()];
            let mut keys: Vec<&KeyId> = st.keys.keys().collect();
            keys.sort();
            for k in keys {
                let ks = &st.keys[k];
                for &(w, s) in &ks.windows {
                    let Some(rows) = ks.state.get(&s) else {
                        continue;
                    };
                    if rows.is_empty() {
                        continue;
                    }
                    out.push(StateEntry {
                        key: *k,
                        side: Some(side),
                        scope: format!(
                            "SESSION TVF: session [{}, {}) (closes at watermark {})",
                            w.start,
                            w.end,
                            w.max_timestamp()
                        ),
                        rows: rows.iter().map(|&(_, r)| r).collect(),
                        window: Some([w.start, w.end]),
                    });
                }
            }
        }
        out
    }

    /// Both TVFs' pending timers, for the state view (the trace shows them as they change).
    pub fn timers(&self) -> Vec<crate::trace::TimerView> {
        let mut out = Vec::new();
        for side in [Side::Left, Side::Right] {
            for t in self.stages[side.index()].timers.iter() {
                out.push(crate::trace::TimerView {
                    key: t.key,
                    timestamp: t.timestamp,
                    what: describe(side, t.namespace),
                    processing: false,
                });
            }
        }
        out
    }

    /// Rows held by both TVFs.
    pub fn rows(&self) -> usize {
        self.stages[0].rows + self.stages[1].rows
    }

    /// Whether both TVFs hold no rows.
    pub fn is_empty(&self) -> bool {
        self.rows() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(gap: i64, events: &[(&str, i64)]) -> (Vec<Admitted>, Vec<Emitted>) {
        let mut tvf = SessionTvf::new(gap, SubtaskIndex(0));
        let mut t = Trace { events: None };
        let (mut adm, mut em) = (Vec::new(), Vec::new());
        let mut row = 0;
        for &(what, v) in events {
            match what {
                "row" => {
                    adm.push(tvf.process_element(&mut t, Side::Left, KeyId(0), RowId(row), v));
                    row += 1;
                }
                _ => em.extend(tvf.advance(&mut t, Side::Left, v)),
            }
        }
        (adm, em)
    }

    #[test]
    fn sessions_merge_touching_windows_and_emit_in_arrival_order() {
        // gap 5: 10 → [10, 15); 20 → [20, 25); 15 touches both → one session [10, 25).
        let (adm, em) = run(5, &[("row", 20), ("row", 10), ("row", 15), ("wm", 24)]);
        assert_eq!(adm[2], Admitted::Held { session: (10, 25) });
        let rows: Vec<u32> = em.iter().map(|e| e.row.0).collect();
        assert_eq!(rows, vec![0, 1, 2]);
        assert!(em.iter().all(|e| e.window == (10, 25)));
    }

    #[test]
    fn pending_timers_are_listed_for_the_state_view() {
        let mut tvf = SessionTvf::new(5, SubtaskIndex(0));
        let mut t = Trace { events: None };
        // [10, 15) and [20, 25), then 15 merges them into [10, 25): one trigger timer at 24
        // (the merged windows' timers deleted; the cleanup timer is the same timer).
        for (i, ts) in [10, 20].into_iter().enumerate() {
            tvf.process_element(&mut t, Side::Left, KeyId(0), RowId(i as u32), ts);
        }
        tvf.process_element(&mut t, Side::Right, KeyId(1), RowId(2), 3);
        let mut ts: Vec<(i64, String)> = tvf
            .timers()
            .into_iter()
            .map(|t| (t.timestamp, t.what))
            .collect();
        ts.sort();
        assert_eq!(
            ts,
            vec![
                (
                    7,
                    "SESSION window TVF (right input): session [3, 8) closes".to_string()
                ),
                (
                    14,
                    "SESSION window TVF (left input): session [10, 15) closes".to_string()
                ),
                (
                    24,
                    "SESSION window TVF (left input): session [20, 25) closes".to_string()
                ),
            ]
        );
        tvf.process_element(&mut t, Side::Left, KeyId(0), RowId(3), 15);
        let left: Vec<i64> = tvf
            .timers()
            .into_iter()
            .filter(|t| t.what.contains("left"))
            .map(|t| t.timestamp)
            .collect();
        assert_eq!(left, vec![24]);
        assert!(tvf.timers()[..].iter().any(|t| t.what.contains("[10, 25)")));
        tvf.advance(&mut t, Side::Left, 24);
        assert_eq!(
            tvf.timers().len(),
            1,
            "the right input's session is still open"
        );
    }

    #[test]
    fn a_row_whose_own_window_ended_is_dropped_unless_it_merges() {
        // watermark 20: a row at 12 ([12, 17), maxTs 16 <= 20) is late; one at 16 touches the
        // open session [19, 24) and is kept.
        let (adm, em) = run(
            5,
            &[
                ("row", 19),
                ("wm", 20),
                ("row", 12),
                ("row", 16),
                ("wm", 100),
            ],
        );
        assert!(matches!(
            adm[1],
            Admitted::Late {
                window: (12, 17),
                watermark: 20,
                record: 1
            }
        ));
        assert_eq!(adm[2], Admitted::Held { session: (16, 24) });
        assert_eq!(em.len(), 2);
        assert!(em.iter().all(|e| e.window == (16, 24)));
    }

    #[test]
    fn sessions_before_1970_close_at_their_end() {
        let (_, em) = run(5, &[("row", -20), ("wm", -16), ("row", -3)]);
        assert_eq!(em.len(), 1);
        assert_eq!(em[0].window, (-20, -15));
    }

    #[test]
    fn table_time_window_hash() {
        // Values printed by Java 17 for new TimeWindow(s, e).hashCode() (table runtime).
        let h = |s: i64, e: i64| TableWin(Win { start: s, end: e }).java_hash();
        assert_eq!(h(0, 0), 1);
        assert_eq!(h(10, 0), 11);
        assert_eq!(h(1000, 8000), 1923220841);
        assert_eq!(h(3000, 8000), 1923222841);
        assert_eq!(h(-20, -15), -1332920905);
        assert_eq!(h(123456, 654321), -455940085);
        // new HashSet<>() with [20, 25), [10, 15), [15, 20) added iterates as Java 17 prints.
        let mut set: JavaHashMap<TableWin, ()> = JavaHashMap::new();
        for (s, e) in [(20, 25), (10, 15), (15, 20)] {
            set.insert(TableWin(Win { start: s, end: e }), ());
        }
        let order: Vec<(i64, i64)> = set.keys().map(|w| (w.0.start, w.0.end)).collect();
        assert_eq!(order, vec![(20, 25), (10, 15), (15, 20)]);
    }
}
