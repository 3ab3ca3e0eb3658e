//! Flink SQL's window join: both inputs windowed by the same window TVF and joined on
//! `L.window_start = R.window_start AND L.window_end = R.window_end AND <equi-keys>`.
//!
//! Mirrors the 2.3.0 runtime classes (flink-table-runtime,
//! `org/apache/flink/table/runtime/operators/join/window/`): `WindowJoinOperator` with its
//! `SyncStateWindowJoinHelper`, and `utils/WindowJoinHelper` (`processElement`,
//! `joinAndClear`, the `Inner`/`SemiAnti`/`LeftOuter`/`RightOuter`/`FullOuter`
//! `WindowJoinProcessor`s), as the planner's `StreamExecWindowJoin` builds it
//! (`StreamPhysicalWindowJoinRule`, `WindowJoinUtil`). Upstream of the join each input runs
//! the TVF ([`crate::tvf`], `AlignedWindowTableFunctionOperator`), which emits one copy of a
//! row per window; all copies of a row carry the same join key, so they reach the same join
//! subtask one after the other, with the same watermark: they are processed here in a loop.
//!
//! The rules:
//! - routing: hash of the remaining equi-keys (the window columns are taken out of the
//!   condition, `excludeWindowStartEqualityAndEndEqualityFromWindowJoinCondition`); with no
//!   equi-key the exchange is `SINGLETON` and the join runs on one subtask;
//! - per windowed row (`WindowJoinHelper.processElement`): late iff
//!   `isWindowFired(windowEnd, currentWatermark)`, i.e. `windowEnd - 1 <= watermark` (UTC,
//!   `TimeWindowUtil`); a late copy is dropped and counted in `leftNumLateRecordsDropped` /
//!   `rightNumLateRecordsDropped` (no side output). Otherwise it is appended to the side's
//!   `ListState` under namespace `windowEnd`, and an event-time timer `(windowEnd - 1, key,
//!   windowEnd)` is registered (`SlicingWindowTimerServiceImpl`; a no-op when present);
//! - `onEventTime`: read both lists of the window (`null` when empty), join, clear both;
//!   - inner: `for l in lefts { for r in rights { if cond: emit (l, r) } }`;
//!   - left outer: nothing without lefts; no rights: pad every left; else per left its
//!     matches, then its padding if none;
//!   - right outer: the mirror, iterating **rights outside, lefts inside**;
//!   - full outer: as left outer, then the rights never matched padded, in list order;
//!   - semi / anti: per left, emitted once if some right matches (semi) / none does (anti);
//! - the join condition (`JoinConditionWithNullFilters`) is false when an equi-key is null;
//! - outputs are `+I`, with no timestamp (`collector.eraseTimestamp()`); the watermark is
//!   forwarded unchanged.
//!
//! With `SESSION` windows the operator is the second of a chain: each input first goes
//! through its SESSION window TVF ([`super::session_tvf`]), which holds each row until its
//! session closes and then emits it with the session as its window; the join then treats the
//! rows exactly as above. Two consequences, seen on Flink 2.3.0:
//! - the join's state namespace is the window end only, and the window columns are taken out
//!   of the condition, so a left session and a right session with the same key and the same
//!   **end** join even when their starts differ (each output keeps its own input's window:
//!   the left row's, or the right row's when the left side is padded);
//! - rows the TVF emits are never late at the join (the TVF emits a session when its own
//!   input's watermark passes the session's end − 1, before it forwards that watermark, and
//!   the join's watermark is at most that input's); late rows are dropped by the TVF.

use super::session_tvf::{Admitted, SessionTvf, Trace};
use super::{Ctx, LateRule, Operator};
use crate::fasthash::FxBuild;
use crate::parse::{RowKind, Side};
use crate::partition::SubtaskIndex;
use crate::plan::{KeyId, Plan, RowId};
use crate::scenario::{JoinType, TvfKind};
use crate::time::Watermark;
use crate::timers::Timer;
use crate::trace::StateEntry;
use crate::tvf::Tvf;
use std::collections::{BTreeMap, HashMap};

/// The two `ListState`s of one window of one key.
#[derive(Default)]
struct WindowLists {
    start: i64,
    left: Vec<RowId>,
    right: Vec<RowId>,
    /// SESSION: each row's own window start (the namespace is the end only), in list order.
    left_starts: Vec<i64>,
    right_starts: Vec<i64>,
}

impl WindowLists {
    fn start_of(&self, side: Side, i: usize) -> i64 {
        let starts = match side {
            Side::Left => &self.left_starts,
            Side::Right => &self.right_starts,
        };
        starts.get(i).copied().unwrap_or(self.start)
    }
}

/// Flink SQL's `WindowJoinOperator`, one instance per operator subtask.
pub struct WindowTvfJoin {
    tvf: Option<Tvf>,
    join: JoinType,
    keyed: bool,
    /// Per key, per window end.
    keys: HashMap<KeyId, BTreeMap<i64, WindowLists>, FxBuild>,
    rows: usize,
    /// SESSION: the chained TVF of each input before the join.
    session: Option<SessionTvf>,
}

fn fmt_window(w: (i64, i64)) -> String {
    format!("[{}, {})", w.0, w.1)
}

impl WindowTvfJoin {
    /// `JoinConditionWithNullFilters`: no match when the equi-key is null.
    fn key_joins(&self, plan: &Plan, key: KeyId) -> bool {
        !self.keyed || !plan.keys[key.0 as usize].value.is_null()
    }

    /// `WindowJoinHelper.joinAndClear` with the join type's processor.
    fn join_window(&self, cx: &mut Ctx<'_, i64>, joins: bool, w: &WindowLists, end: i64) {
        let (lefts, rights) = (&w.left, &w.right);
        // The window an output shows: its left row's, or its right row's when padded (with
        // aligned windows every row of the namespace has the same one).
        let lwin = |i: usize| Some((w.start_of(Side::Left, i), end));
        let rwin = |j: usize| Some((w.start_of(Side::Right, j), end));
        let pair = |cx: &mut Ctx<'_, i64>, i: usize, j: usize| {
            cx.emit(
                Some(lefts[i]),
                Some(rights[j]),
                None,
                RowKind::Insert,
                lwin(i),
            )
        };
        let pad_l = |cx: &mut Ctx<'_, i64>, i: usize| {
            cx.emit(Some(lefts[i]), None, None, RowKind::Insert, lwin(i))
        };
        let pad_r = |cx: &mut Ctx<'_, i64>, j: usize| {
            cx.emit(None, Some(rights[j]), None, RowKind::Insert, rwin(j))
        };
        // Empty lists are `null` in Flink (`ListState.get` of an absent namespace).
        match self.join {
            JoinType::Inner => {
                if lefts.is_empty() || rights.is_empty() || !joins {
                    return;
                }
                for i in 0..lefts.len() {
                    for j in 0..rights.len() {
                        pair(cx, i, j);
                    }
                }
            }
            JoinType::Semi | JoinType::Anti => {
                let anti = self.join == JoinType::Anti;
                if lefts.is_empty() {
                    return;
                }
                // A left row matches iff there is a right row and the key is not null.
                let matches = !rights.is_empty() && joins;
                if matches != anti {
                    for i in 0..lefts.len() {
                        pad_l(cx, i);
                    }
                }
            }
            JoinType::Left => {
                if lefts.is_empty() {
                    return;
                }
                for i in 0..lefts.len() {
                    if joins && !rights.is_empty() {
                        for j in 0..rights.len() {
                            pair(cx, i, j);
                        }
                    } else {
                        pad_l(cx, i);
                    }
                }
            }
            JoinType::Right => {
                if rights.is_empty() {
                    return;
                }
                // RightOuterWindowJoinProcessor: rights outside, lefts inside.
                for j in 0..rights.len() {
                    if joins && !lefts.is_empty() {
                        for i in 0..lefts.len() {
                            pair(cx, i, j);
                        }
                    } else {
                        pad_r(cx, j);
                    }
                }
            }
            JoinType::Full => {
                if lefts.is_empty() && rights.is_empty() {
                    return;
                }
                let any = joins && !lefts.is_empty() && !rights.is_empty();
                for i in 0..lefts.len() {
                    if any {
                        for j in 0..rights.len() {
                            pair(cx, i, j);
                        }
                    } else {
                        pad_l(cx, i);
                    }
                }
                if !any {
                    for j in 0..rights.len() {
                        pad_r(cx, j);
                    }
                }
            }
        }
    }
}

impl WindowTvfJoin {
    /// `WindowJoinHelper.processElement` for one windowed record of `row`.
    fn join_element(
        &mut self,
        cx: &mut Ctx<'_, i64>,
        side: Side,
        key: KeyId,
        row: RowId,
        (start, end): (i64, i64),
    ) {
        // TimeWindowUtil.isWindowFired: windowEnd - 1 <= currentWatermark.
        if end.wrapping_sub(1) <= cx.watermark.0 {
            cx.late(
                row,
                LateRule::WindowTvfJoin {
                    window: (start, end),
                },
                None,
            );
            return;
        }
        let session = self.session.is_some();
        let lists = self
            .keys
            .entry(key)
            .or_default()
            .entry(end)
            .or_insert_with(|| WindowLists {
                start,
                ..WindowLists::default()
            });
        match side {
            Side::Left => {
                lists.left.push(row);
                if session {
                    lists.left_starts.push(start);
                }
            }
            Side::Right => {
                lists.right.push(row);
                if session {
                    lists.right_starts.push(start);
                }
            }
        }
        self.rows += 1;
        cx.buffered(row, || {
            format!(
                "{} records of window {}",
                if side == Side::Left { "left" } else { "right" },
                fmt_window((start, end))
            )
        });
        cx.register_event_timer(key, end.wrapping_sub(1), end);
    }
}

impl Operator for WindowTvfJoin {
    /// The window end (`LongSerializer` namespace of the `window-timers` service).
    type Ns = i64;

    fn new(plan: &Plan, subtask: SubtaskIndex) -> Self {
        let job = &plan.scenario.job;
        WindowTvfJoin {
            // Validated by `plan::validate_job`; `None` only for an invalid plan (and SESSION).
            tvf: Tvf::of(&job.tvf, "job.tvf").ok(),
            join: job.sql.join,
            keyed: plan.schemas.first().is_some_and(|s| s.key.is_some()),
            keys: HashMap::default(),
            rows: 0,
            session: (job.tvf.kind == TvfKind::Session)
                .then(|| SessionTvf::new(job.tvf.gap.map_or(1, |g| g.0), subtask)),
        }
    }

    fn process_element(&mut self, cx: &mut Ctx<'_, i64>, side: Side, row: RowId) {
        let r = cx.plan.row(row);
        // Both TVF operators drop rows with a null rowtime (numNullRowTimeRecordsDropped).
        let Some(ts) = r.ts else {
            return;
        };
        let key = r.key;
        if let Some(tvf) = self.session.as_mut() {
            let mut t = Trace {
                events: cx.sink.tracing.then_some(&mut cx.sink.events),
            };
            match tvf.process_element(&mut t, side, key, row, ts) {
                Admitted::Held { session } => {
                    cx.buffered(row, || {
                        format!(
                            "SESSION window TVF ({} input): session {}, until the watermark reaches {}",
                            if side == Side::Left { "left" } else { "right" },
                            fmt_window(session),
                            session.1.wrapping_sub(1)
                        )
                    });
                }
                Admitted::Late {
                    window,
                    watermark,
                    record,
                } => {
                    // The TVF's own watermark (its input's), not the join's.
                    let (wm, origin) = (cx.watermark, cx.origin);
                    cx.origin = &None;
                    cx.watermark = Watermark(watermark);
                    cx.late(row, LateRule::SessionTvf { window, record }, None);
                    cx.watermark = wm;
                    cx.origin = origin;
                }
            }
            return;
        }
        let Some(tvf) = self.tvf else {
            return;
        };
        for w in tvf.assign(ts) {
            self.join_element(cx, side, key, row, w);
        }
    }

    /// The watermark of input `side` advances (its valve's output) at the SESSION TVF: the
    /// sessions it closes are emitted into the join before the watermark goes on.
    fn on_input_watermark(&mut self, cx: &mut Ctx<'_, i64>, side: Side, w: Watermark) {
        let Some(tvf) = self.session.as_mut() else {
            return;
        };
        let mut t = Trace {
            events: cx.sink.tracing.then_some(&mut cx.sink.events),
        };
        let emitted = tvf.advance(&mut t, side, w.0);
        for e in emitted {
            cx.sink.session_windows.push((e.row, e.window));
            self.join_element(cx, side, e.key, e.row, e.window);
        }
    }

    fn on_event_time(&mut self, cx: &mut Ctx<'_, i64>, timer: Timer<KeyId, i64>) {
        let key = timer.key;
        let end = timer.namespace;
        let Some(windows) = self.keys.get_mut(&key) else {
            return;
        };
        let Some(w) = windows.remove(&end) else {
            return;
        };
        if windows.is_empty() {
            self.keys.remove(&key);
        }
        let joins = self.key_joins(cx.plan, key);
        self.join_window(cx, joins, &w, end);
        self.rows -= w.left.len() + w.right.len();
        let start = w.start;
        cx.cleared(
            || w.left.iter().chain(w.right.iter()).copied().collect(),
            || format!("window {} joined and cleared", fmt_window((start, end))),
        );
    }

    fn describe_timer(ns: &i64) -> String {
        format!("window ending {ns} fires")
    }

    fn own_timers(&self) -> Vec<crate::trace::TimerView> {
        self.session
            .as_ref()
            .map(|s| s.timers())
            .unwrap_or_default()
    }

    fn state(&self) -> Vec<StateEntry> {
        let mut keys: Vec<&KeyId> = self.keys.keys().collect();
        keys.sort();
        let mut out = self.session.as_ref().map(|s| s.state()).unwrap_or_default();
        for k in keys {
            for (&end, w) in &self.keys[k] {
                for (side, rows) in [(Side::Left, &w.left), (Side::Right, &w.right)] {
                    if rows.is_empty() {
                        continue;
                    }
                    out.push(StateEntry {
                        key: *k,
                        side: Some(side),
                        scope: format!("window {}", fmt_window((w.start, end))),
                        rows: rows.clone(),
                        window: Some([w.start, end]),
                    });
                }
            }
        }
        out
    }

    fn is_empty(&self) -> bool {
        self.keys.is_empty() && self.session.as_ref().is_none_or(|s| s.is_empty())
    }

    fn state_rows(&self) -> usize {
        self.rows + self.session.as_ref().map_or(0, |s| s.rows())
    }

    const REPORTS_LATE: bool = true;
}

#[cfg(test)]
mod tests {
    use crate::result::sql_change_text;
    use crate::scenario::Scenario;

    fn run(job: &str, left: &str, right: &str) -> crate::result::RunResult {
        let text = format!(
            r#"{{"job":{{"operator":"window_tvf_join",{job}}},"streams":[
            {{"name":"L","columns":["k","v","t"],"key":"k","time":"t","rows":{left:?}}},
            {{"name":"R","columns":["k","v","t"],"key":"k","time":"t","rows":{right:?}}}]}}"#
        );
        let sc = Scenario::from_json(&text).expect("scenario");
        crate::run(&sc, false).expect("runs")
    }

    fn outs(r: &crate::result::RunResult) -> Vec<String> {
        r.outputs
            .iter()
            .map(|o| {
                let w = o.window.expect("window");
                format!("{}@{}-{}", sql_change_text(o), w[0], w[1])
            })
            .collect()
    }

    #[test]
    fn inner_join_waits_for_the_window_end() {
        let r = run(
            r#""tvf":{"size":10}"#,
            "1, a, 1\n1, b, 12\n2, c, 3",
            "1, x, 5\n2, y, 14",
        );
        assert_eq!(outs(&r), vec!["+I[1,a,1|1,x,5]@0-10"]);
        // Every output comes from the step of a watermark at or after end - 1 = 9.
        assert!(r.outputs.iter().all(|o| o.step >= 3));
    }

    #[test]
    fn outer_joins_pad_and_right_iterates_rights_first() {
        let l = "1, a, 1\n1, b, 2\n3, c, 3";
        let rr = "1, x, 4\n1, y, 5\n4, z, 6";
        let right = run(r#""tvf":{"size":10},"sql":{"join":"right"}"#, l, rr);
        let o = outs(&right);
        // The two keys' timers fire in heap order; within key 1 rights are outside.
        let k1: Vec<&String> = o
            .iter()
            .filter(|s| s.contains("x") || s.contains("y"))
            .collect();
        assert_eq!(
            k1,
            vec![
                "+I[1,a,1|1,x,4]@0-10",
                "+I[1,b,2|1,x,4]@0-10",
                "+I[1,a,1|1,y,5]@0-10",
                "+I[1,b,2|1,y,5]@0-10"
            ]
        );
        assert!(o.contains(&"+I[null|4,z,6]@0-10".to_string()));
        assert!(!o.iter().any(|s| s.contains("3,c,3")));
        let full = run(r#""tvf":{"size":10},"sql":{"join":"full"}"#, l, rr);
        assert_eq!(full.outputs.len(), 6);
        assert!(outs(&full).contains(&"+I[3,c,3|null]@0-10".to_string()));
    }

    #[test]
    fn semi_and_anti_emit_each_left_row_once() {
        let l = "1, a, 1\n2, b, 2";
        let rr = "1, x, 4\n1, y, 5";
        let semi = run(r#""tvf":{"size":10},"sql":{"join":"semi"}"#, l, rr);
        assert_eq!(outs(&semi), vec!["+I[1,a,1|null]@0-10"]);
        let anti = run(r#""tvf":{"size":10},"sql":{"join":"anti"}"#, l, rr);
        assert_eq!(outs(&anti), vec!["+I[2,b,2|null]@0-10"]);
    }

    #[test]
    fn late_copies_are_dropped_per_window() {
        // HOP size 10 slide 5: ts 7 is in [5, 15) and [0, 10). Once the watermark is 10
        // (min of both inputs' ts 11 / 12 - 0 - 1), [0, 10) has fired (10 - 1 <= 10): only the
        // copies for [5, 15) are kept.
        let r = run(
            r#""tvf":{"kind":"hop","size":10,"slide":5},"arrival":"interleave""#,
            "1, a, 11\n1, b, 7",
            "1, x, 12\n1, y, 8",
        );
        assert_eq!(r.late.len(), 2);
        assert!(r.late.iter().all(|l| matches!(
            l.reason,
            crate::operators::LateRule::WindowTvfJoin { window: (0, 10) }
        )));
        assert!(outs(&r).contains(&"+I[1,b,7|1,y,8]@5-15".to_string()));
        assert!(!outs(&r).iter().any(|s| s.ends_with("@0-10")));
    }

    #[test]
    fn cumulate_emits_every_step() {
        let r = run(
            r#""tvf":{"kind":"cumulate","size":10,"step":5}"#,
            "1, a, 1",
            "1, x, 2",
        );
        assert_eq!(
            outs(&r),
            vec!["+I[1,a,1|1,x,2]@0-5", "+I[1,a,1|1,x,2]@0-10"]
        );
    }

    #[test]
    fn null_keys_never_match_and_no_key_joins_the_whole_window() {
        let l = "null, a, 1\n1, b, 2";
        let rr = "null, x, 3\n1, y, 4";
        let left = run(r#""tvf":{"size":10},"sql":{"join":"left"}"#, l, rr);
        let o = outs(&left);
        assert!(o.contains(&"+I[null,a,1|null]@0-10".to_string()), "{o:?}");
        assert!(o.contains(&"+I[1,b,2|1,y,4]@0-10".to_string()), "{o:?}");
        assert_eq!(o.len(), 2);
        // No key column: one subtask, every left row with every right row of the window.
        let text = r#"{"job":{"operator":"window_tvf_join","parallelism":3,"tvf":{"size":10}},"streams":[
            {"name":"L","columns":["v","t"],"time":"t","rows":"a, 1\nb, 2\nc, 12"},
            {"name":"R","columns":["w","t"],"time":"t","rows":"x, 3\ny, 15"}]}"#;
        let r = crate::run(&Scenario::from_json(text).expect("scenario"), false).expect("runs");
        assert_eq!(r.operator_parallelism, 1);
        assert_eq!(
            outs(&r),
            vec![
                "+I[a,1|x,3]@0-10",
                "+I[b,2|x,3]@0-10",
                "+I[c,12|y,15]@10-20"
            ]
        );
    }

    #[test]
    fn session_windows_join_by_their_end() {
        // Left u1: 5, 20 → [5, 50); right u1: 10, 20 → [10, 50): same end, joined although
        // the starts differ (Flink 2.3.0 keys the join's state by window_end only). Left u2
        // [60, 90) and right u2 [70, 100) never join.
        let r = run(
            r#""tvf":{"kind":"session","gap":30}"#,
            "1, a, 5\n1, b, 20\n2, c, 60",
            "1, x, 10\n1, y, 20\n2, z, 70",
        );
        let o = outs(&r);
        assert_eq!(
            o,
            vec![
                "+I[1,a,5|1,x,10]@5-50",
                "+I[1,a,5|1,y,20]@5-50",
                "+I[1,b,20|1,x,10]@5-50",
                "+I[1,b,20|1,y,20]@5-50"
            ]
        );
        // A FULL join pads each side with its own session.
        let full = run(
            r#""tvf":{"kind":"session","gap":30},"sql":{"join":"full"}"#,
            "2, c, 60",
            "2, z, 70",
        );
        assert_eq!(
            outs(&full),
            vec!["+I[2,c,60|null]@60-90", "+I[null|2,z,70]@70-100"]
        );
    }

    #[test]
    fn session_tvf_drops_late_rows_before_the_join() {
        // Right watermark 49 after ts 50: ts 1's window [1, 11) is late at the TVF; ts 40's
        // [40, 50) is as late but touches the open session [50, 60) and merges.
        let r = run(
            r#""tvf":{"kind":"session","gap":10},"sql":{"join":"right"},"arrival":"left_first""#,
            "9, a, 0",
            "2, p, 50\n3, q, 1\n2, s, 40",
        );
        assert_eq!(r.late.len(), 1);
        assert!(matches!(
            r.late[0].reason,
            crate::operators::LateRule::SessionTvf {
                window: (1, 11),
                record: 1
            }
        ));
        assert_eq!(r.late[0].watermark.0, 49);
        assert_eq!(
            outs(&r),
            vec!["+I[null|2,p,50]@40-60", "+I[null|2,s,40]@40-60"]
        );
    }

    /// On random SESSION scenarios: every session the TVFs emit is a chain of its rows
    /// (`[min ts, max ts + gap)`, consecutive timestamps at most `gap` apart) of one key and
    /// input, each row is emitted at most once, and the join's outputs are exactly the
    /// brute-force join of the emitted rows grouped by (key, window_end), per join type.
    #[test]
    fn random_session_scenarios_agree_with_a_brute_force_join() {
        use crate::scenario::{JoinType, TvfKind};
        use std::collections::BTreeMap;
        let mut checked = 0;
        for i in 0..400 {
            let sc = crate::export::gen_window_join::scenario(17, i);
            if sc.job.tvf.kind != TvfKind::Session || !sc.job.final_watermark {
                continue;
            }
            let gap = sc.job.tvf.gap.expect("gap").0;
            let plan = crate::plan::build(&sc, crate::plan::Limits::default()).expect("plan");
            let out = crate::sim::simulate::<super::WindowTvfJoin>(
                &plan,
                &crate::sim::RunOptions::default(),
            )
            .expect("runs");
            let sink = &out.sink;
            // (side, key, window) -> rows; each row once.
            let mut sessions: BTreeMap<(usize, u32, (i64, i64)), Vec<i64>> = BTreeMap::new();
            let mut seen = std::collections::HashSet::new();
            for &(r, w) in &sink.session_windows {
                assert!(seen.insert(r), "scenario {i}: row {r:?} emitted twice");
                let row = plan.row(r);
                sessions
                    .entry((row.stream.index(), row.key.0, w))
                    .or_default()
                    .push(row.ts.expect("ts"));
            }
            for ((_, _, (s, e)), ts) in &mut sessions {
                ts.sort_unstable();
                assert_eq!(*s, ts[0], "scenario {i}");
                assert_eq!(*e, ts[ts.len() - 1] + gap, "scenario {i}");
                assert!(ts.windows(2).all(|p| p[1] - p[0] <= gap), "scenario {i}");
            }
            // The join, by (key, end): (left rows, right rows) in emission order.
            type Group = (Vec<u32>, Vec<u32>);
            let mut groups: BTreeMap<(u32, i64), Group> = BTreeMap::new();
            for &(r, (_, e)) in &sink.session_windows {
                let row = plan.row(r);
                let g = groups.entry((row.key.0, e)).or_default();
                match row.stream {
                    crate::parse::Side::Left => g.0.push(r.0),
                    crate::parse::Side::Right => g.1.push(r.0),
                }
            }
            let join = sc.job.sql.join;
            let mut want: Vec<(Option<u32>, Option<u32>)> = Vec::new();
            for ((key, _), (ls, rs)) in &groups {
                let joins =
                    plan.schemas[0].key.is_none() || !plan.keys[*key as usize].value.is_null();
                let m = joins && !ls.is_empty() && !rs.is_empty();
                match join {
                    JoinType::Semi | JoinType::Anti => {
                        if m == (join == JoinType::Semi) {
                            want.extend(ls.iter().map(|l| (Some(*l), None)));
                        }
                    }
                    _ => {
                        if m {
                            for l in ls {
                                for r in rs {
                                    want.push((Some(*l), Some(*r)));
                                }
                            }
                        }
                        if !m && matches!(join, JoinType::Left | JoinType::Full) {
                            want.extend(ls.iter().map(|l| (Some(*l), None)));
                        }
                        if !m && matches!(join, JoinType::Right | JoinType::Full) {
                            want.extend(rs.iter().map(|r| (None, Some(*r))));
                        }
                    }
                }
            }
            let mut got: Vec<(Option<u32>, Option<u32>)> = sink
                .outputs
                .iter()
                .map(|o| (o.left.map(|x| x.0), o.right.map(|x| x.0)))
                .collect();
            want.sort();
            got.sort();
            assert_eq!(got, want, "scenario {i}:\n{}", sc.to_pretty_json());
            checked += 1;
        }
        assert!(checked > 80, "{checked} session scenarios");
    }

    /// Against a brute-force reference on random scenarios: per (key, window), the rows whose
    /// copy for that window was not dropped as late, joined by the join type's definition
    /// (outputs compared as multisets; the order is checked against Flink by the conformance
    /// suite).
    #[test]
    fn random_scenarios_agree_with_a_brute_force_join() {
        use crate::scenario::JoinType;
        use std::collections::BTreeMap;
        type Out = (Option<u32>, Option<u32>, (i64, i64));
        /// (key, window) -> (left rows, right rows).
        type Groups = BTreeMap<(u32, (i64, i64)), (Vec<u32>, Vec<u32>)>;
        for i in 0..300 {
            let sc = crate::export::gen_window_join::scenario(11, i);
            if sc.job.tvf.kind == crate::scenario::TvfKind::Session {
                continue; // checked below
            }
            let plan = crate::plan::build(&sc, crate::plan::Limits::default()).expect("plan");
            let r = crate::run(&sc, false).expect("runs");
            if !r.state_empty {
                continue;
            }
            let tvf = crate::tvf::Tvf::of(&sc.job.tvf, "job.tvf").expect("tvf");
            let late: std::collections::HashSet<(u32, (i64, i64))> = r
                .late
                .iter()
                .map(|l| match l.reason {
                    crate::operators::LateRule::WindowTvfJoin { window } => (l.row.id.0, window),
                    _ => panic!("other late rule"),
                })
                .collect();
            // (key, window) -> (lefts, rights), rows in arrival order.
            let mut groups: Groups = BTreeMap::new();
            for ref a in &plan.arrivals {
                if let crate::plan::Arrival::Row(id) = a {
                    let row = plan.row(*id);
                    for w in tvf.assign(row.ts.expect("ts")) {
                        if late.contains(&(id.0, w)) {
                            continue;
                        }
                        let g = groups.entry((row.key.0, w)).or_default();
                        match row.stream {
                            crate::parse::Side::Left => g.0.push(id.0),
                            crate::parse::Side::Right => g.1.push(id.0),
                        }
                    }
                }
            }
            let mut want: Vec<Out> = Vec::new();
            for ((key, w), (ls, rs)) in &groups {
                let joins =
                    plan.schemas[0].key.is_none() || !plan.keys[*key as usize].value.is_null();
                let m = joins && !ls.is_empty() && !rs.is_empty();
                let join = sc.job.sql.join;
                if m && !matches!(join, JoinType::Semi | JoinType::Anti) {
                    for l in ls {
                        for rr in rs {
                            want.push((Some(*l), Some(*rr), *w));
                        }
                    }
                }
                let pad_left = match join {
                    JoinType::Left | JoinType::Full => !m,
                    JoinType::Semi => m,
                    JoinType::Anti => !m,
                    _ => false,
                };
                if pad_left {
                    want.extend(ls.iter().map(|l| (Some(*l), None, *w)));
                }
                if matches!(join, JoinType::Right | JoinType::Full) && !m {
                    want.extend(rs.iter().map(|rr| (None, Some(*rr), *w)));
                }
            }
            let mut got: Vec<Out> = r
                .outputs
                .iter()
                .map(|o| {
                    let w = o.window.expect("window");
                    (
                        o.left.as_ref().map(|x| x.id.0),
                        o.right.as_ref().map(|x| x.id.0),
                        (w[0], w[1]),
                    )
                })
                .collect();
            want.sort();
            got.sort();
            assert_eq!(got, want, "scenario {i}:\n{}", sc.to_pretty_json());
        }
    }
}
