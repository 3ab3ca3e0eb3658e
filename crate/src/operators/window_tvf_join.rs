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

use super::{Ctx, LateRule, Operator};
use crate::fasthash::FxBuild;
use crate::parse::{RowKind, Side};
use crate::partition::SubtaskIndex;
use crate::plan::{KeyId, Plan, RowId};
use crate::scenario::JoinType;
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
}

/// Flink SQL's `WindowJoinOperator`, one instance per operator subtask.
pub struct WindowTvfJoin {
    tvf: Option<Tvf>,
    join: JoinType,
    keyed: bool,
    /// Per key, per window end.
    keys: HashMap<KeyId, BTreeMap<i64, WindowLists>, FxBuild>,
    rows: usize,
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
        let win = Some((w.start, end));
        let (lefts, rights) = (&w.left, &w.right);
        let pair = |cx: &mut Ctx<'_, i64>, l: RowId, r: RowId| {
            cx.emit(Some(l), Some(r), None, RowKind::Insert, win)
        };
        let pad_l =
            |cx: &mut Ctx<'_, i64>, l: RowId| cx.emit(Some(l), None, None, RowKind::Insert, win);
        let pad_r =
            |cx: &mut Ctx<'_, i64>, r: RowId| cx.emit(None, Some(r), None, RowKind::Insert, win);
        // Empty lists are `null` in Flink (`ListState.get` of an absent namespace).
        match self.join {
            JoinType::Inner => {
                if lefts.is_empty() || rights.is_empty() || !joins {
                    return;
                }
                for &l in lefts {
                    for &r in rights {
                        pair(cx, l, r);
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
                    for &l in lefts {
                        cx.emit(Some(l), None, None, RowKind::Insert, win);
                    }
                }
            }
            JoinType::Left => {
                if lefts.is_empty() {
                    return;
                }
                for &l in lefts {
                    if joins && !rights.is_empty() {
                        for &r in rights {
                            pair(cx, l, r);
                        }
                    } else {
                        pad_l(cx, l);
                    }
                }
            }
            JoinType::Right => {
                if rights.is_empty() {
                    return;
                }
                // RightOuterWindowJoinProcessor: rights outside, lefts inside.
                for &r in rights {
                    if joins && !lefts.is_empty() {
                        for &l in lefts {
                            pair(cx, l, r);
                        }
                    } else {
                        pad_r(cx, r);
                    }
                }
            }
            JoinType::Full => {
                if lefts.is_empty() && rights.is_empty() {
                    return;
                }
                let any = joins && !lefts.is_empty() && !rights.is_empty();
                for &l in lefts {
                    if any {
                        for &r in rights {
                            pair(cx, l, r);
                        }
                    } else {
                        pad_l(cx, l);
                    }
                }
                if !any {
                    for &r in rights {
                        pad_r(cx, r);
                    }
                }
            }
        }
    }
}

impl Operator for WindowTvfJoin {
    /// The window end (`LongSerializer` namespace of the `window-timers` service).
    type Ns = i64;

    fn new(plan: &Plan, _subtask: SubtaskIndex) -> Self {
        let job = &plan.scenario.job;
        WindowTvfJoin {
            // Validated by `plan::validate_job`; `None` only for an invalid plan.
            tvf: Tvf::of(&job.tvf, "job.tvf").ok(),
            join: job.sql.join,
            keyed: plan.schemas.first().is_some_and(|s| s.key.is_some()),
            keys: HashMap::default(),
            rows: 0,
        }
    }

    fn process_element(&mut self, cx: &mut Ctx<'_, i64>, side: Side, row: RowId) {
        let Some(tvf) = self.tvf else {
            return;
        };
        let r = cx.plan.row(row);
        // AlignedWindowTableFunctionOperator drops rows with a null rowtime.
        let Some(ts) = r.ts else {
            return;
        };
        let key = r.key;
        for (start, end) in tvf.assign(ts) {
            // TimeWindowUtil.isWindowFired: windowEnd - 1 <= currentWatermark.
            if end.wrapping_sub(1) <= cx.watermark.0 {
                cx.late(
                    row,
                    LateRule::WindowTvfJoin {
                        window: (start, end),
                    },
                    None,
                );
                continue;
            }
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
                Side::Left => lists.left.push(row),
                Side::Right => lists.right.push(row),
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

    fn state(&self) -> Vec<StateEntry> {
        let mut keys: Vec<&KeyId> = self.keys.keys().collect();
        keys.sort();
        let mut out = Vec::new();
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
        self.keys.is_empty()
    }

    fn state_rows(&self) -> usize {
        self.rows
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
            for a in &plan.arrivals {
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
