//! Flink SQL's event-time temporal join:
//! `FROM probe AS o [LEFT] JOIN versioned FOR SYSTEM_TIME AS OF o.rt AS r ON o.k = r.k`.
//!
//! Mirrors the 2.3.0 bytecode of
//! `flink-table/flink-table-runtime/src/main/java/org/apache/flink/table/runtime/operators/join/temporal/`
//! `TemporalRowTimeJoinOperator.java` (read with `javap -c -p` from
//! `flink-table-runtime-2.3.0.jar`; 2.3.0 has no `TemporalRowTimeJoinOperatorV2`). The left
//! input is the probe side, the right input the versioned table, both keyed by the equi-join
//! key (`StreamExecTemporalJoin`: the versioned table's primary key must be in the `ON`
//! equality), hashed as a SQL `BinaryRowData`.
//!
//! Rules reproduced exactly:
//! - `processElement1` (probe row): `leftState.put(nextLeftIndex++, row)`, then
//!   `registerSmallestTimer(leftTime)`. There is **no lateness check** in 2.3.0: a probe row at
//!   or behind the watermark is buffered like any other; its timer (at its own time, already
//!   passed) fires at the next watermark advance of its subtask, and it joins whatever versions
//!   are left then. (The change that drops late probe rows is not in the 2.3.0 bytecode.)
//! - the versioned table's `-U` rows never reach the operator: the temporal join requires only
//!   `UPDATE_AFTER` from its right input, so `FlinkChangelogModeInferenceProgram` puts a
//!   `StreamPhysicalDropUpdateBefore` after the table's scan (observed on Flink 2.3.0: the
//!   operator's `numRecordsIn` does not count them, and a version is not overwritten by the
//!   `-U` of its own update).
//! - `processElement2` (version row): `rightState.put(rightTime, row)` — one version per
//!   timestamp, a later row with the same timestamp replaces the earlier one, whatever its row
//!   kind (`-U` / `-D` rows are stored too) — then `registerSmallestTimer(rightTime)`. A late
//!   version row is not dropped either.
//! - `registerSmallestTimer(t)`: one event-time timer per key (`ValueState registeredTimer`);
//!   with none, register `t`; with one later than `t`, delete it and register `t`.
//! - `onEventTime`: clear `registeredTimer`; `emitResultAndCleanUpState(currentWatermark)`:
//!   sort the versions by time; take every buffered probe row with `time <= watermark` out of
//!   state **in arrival order** (a `TreeMap` on the probe index, not by time); for each, find
//!   the latest version with `time <= probe time` (binary search); if there is one and it is an
//!   accumulate message (`+I`/`+U`), emit `probe ⋈ version`, else (none, or a `-U`/`-D`) emit
//!   `probe ⋈ null` for a LEFT join and nothing for an INNER join. The output row kind is the
//!   probe row's. Then delete every version older than the latest version at or before the
//!   watermark (`cleanupExpiredVersionInState`, `firstIndexToKeep`); if no version is at or
//!   before the watermark nothing is deleted, and the newest version is always kept. Finally
//!   register a timer at the smallest remaining probe time, if any.
//! - outputs carry no record timestamp (`TimestampedCollector` is never given one); the
//!   watermark is forwarded unchanged (`AbstractStreamOperator.processWatermark`).
//! - the generated `JoinCondition` holds only the non-equi part of `ON` (`StreamExecTemporalJoin`
//!   generates it with `FunctionCodeGenerator.generateJoinCondition`; here `return true`): the
//!   key equality is the keyed state itself, so a NULL key finds the versions with a NULL key
//!   (not checked against Flink: the conformance generator makes no NULL keys).
//! - state retention (`table.exec.state.ttl`, `BaseTwoInputStreamOperatorWithStateRetention`)
//!   is off by default and not simulated.

use super::{Ctx, Operator};
use crate::parse::{RowKind, Side};
use crate::partition::SubtaskIndex;
use crate::plan::{KeyId, Plan, RowId};
use crate::scenario::JoinType;
use crate::timers::Timer;
use crate::trace::StateEntry;
use std::collections::{BTreeMap, HashMap};

/// The state of one key (`leftState`, `rightState`, `nextLeftIndex`, `registeredTimer`).
#[derive(Default)]
struct KeyState {
    /// `MapState<Long index, RowData>`; emitted in index order, so a `BTreeMap` on the index.
    /// The probe row and its time.
    left: BTreeMap<u64, (RowId, i64)>,
    next_index: u64,
    /// `MapState<Long rightTime, RowData>`: one version per timestamp.
    right: BTreeMap<i64, RowId>,
    registered: Option<i64>,
}

/// `TemporalRowTimeJoinOperator` (INNER / LEFT), one instance per subtask.
pub struct TemporalJoin {
    left_outer: bool,
    keys: HashMap<KeyId, KeyState>,
    rows: usize,
}

impl TemporalJoin {
    /// `registerSmallestTimer`.
    fn register_smallest(cx: &mut Ctx<'_, ()>, ks: &mut KeyState, key: KeyId, t: i64) {
        match ks.registered {
            None => Self::register(cx, ks, key, t),
            Some(cur) if cur > t => {
                cx.delete_event_timer(key, cur, ());
                Self::register(cx, ks, key, t);
            }
            Some(_) => {}
        }
    }

    /// `registerTimer`.
    fn register(cx: &mut Ctx<'_, ()>, ks: &mut KeyState, key: KeyId, t: i64) {
        ks.registered = Some(t);
        cx.register_event_timer(key, t, ());
    }
}

/// The latest version at or before `t` (`latestRightRowToJoin`).
fn version_at(right: &BTreeMap<i64, RowId>, t: i64) -> Option<RowId> {
    right.range(..=t).next_back().map(|(_, r)| *r)
}

impl Operator for TemporalJoin {
    type Ns = ();

    fn new(plan: &Plan, _subtask: SubtaskIndex) -> Self {
        TemporalJoin {
            left_outer: plan.scenario.job.sql.join == JoinType::Left,
            keys: HashMap::new(),
            rows: 0,
        }
    }

    fn process_element(&mut self, cx: &mut Ctx<'_, ()>, side: Side, row: RowId) {
        let r = cx.plan.row(row);
        let key = r.key;
        let t = r.ts.unwrap_or(i64::MIN);
        let ks = self.keys.entry(key).or_default();
        match side {
            Side::Left => {
                let idx = ks.next_index;
                ks.next_index += 1;
                ks.left.insert(idx, (row, t));
                self.rows += 1;
                let wm = cx.watermark;
                cx.buffered(row, || {
                    if t <= wm.0 {
                        format!("probe rows (waiting for the next watermark: its time {t} is already at or behind the watermark {wm}, and 2.3.0 buffers it anyway)")
                    } else {
                        format!("probe rows (waiting for watermark {t})")
                    }
                });
            }
            Side::Right if r.kind == RowKind::UpdateBefore => {
                // FlinkChangelogModeInferenceProgram: the join requires only UPDATE_AFTER from
                // the versioned table, so the planner inserts a DropUpdateBefore after its scan
                // (StreamPhysicalDropUpdateBefore): a -U row never reaches the operator.
                cx.cleared(
                    || vec![row],
                    || {
                        "dropped before the join: -U rows are filtered out (DropUpdateBefore)"
                            .into()
                    },
                );
                return;
            }
            Side::Right => {
                let replaced = ks.right.insert(t, row);
                match replaced {
                    Some(old) => cx.cleared(
                        || vec![old],
                        || format!("versions: replaced by the row with the same time {t}"),
                    ),
                    None => self.rows += 1,
                }
                let kind = r.kind;
                let wm = cx.watermark;
                cx.buffered(row, || {
                    if t <= wm.0 {
                        format!("versions (time {t}, {}; behind the watermark {wm}, and 2.3.0 keeps it)", kind.short())
                    } else {
                        format!("versions (time {t}, {})", kind.short())
                    }
                });
            }
        }
        Self::register_smallest(cx, ks, key, t);
    }

    fn on_event_time(&mut self, cx: &mut Ctx<'_, ()>, timer: Timer<KeyId, ()>) {
        let key = timer.key;
        let Some(ks) = self.keys.get_mut(&key) else {
            return;
        };
        ks.registered = None;
        let wm = cx.watermark.0;
        let plan = cx.plan;
        let ts = |id: RowId| plan.row(id).ts.unwrap_or(i64::MIN);
        let due: Vec<(u64, RowId)> = ks
            .left
            .iter()
            .filter(|(_, &(_, t))| t <= wm)
            .map(|(&i, &(r, _))| (i, r))
            .collect();
        for (i, probe) in &due {
            ks.left.remove(i);
            self.rows -= 1;
            let kind = plan.row(*probe).kind;
            match version_at(&ks.right, ts(*probe)) {
                Some(v) if plan.row(v).kind.is_accumulate() => {
                    cx.emit(Some(*probe), Some(v), None, kind, None)
                }
                _ if self.left_outer => cx.emit(Some(*probe), None, None, kind, None),
                _ => {}
            }
        }
        if !due.is_empty() {
            cx.cleared(
                || due.iter().map(|(_, r)| *r).collect(),
                || format!("probe rows: joined at watermark {wm}"),
            );
        }
        // cleanupExpiredVersionInState: keep the latest version at or before the watermark
        // (or the newest one) and everything after it.
        let keep_from = match ks.right.range(wm.saturating_add(1)..).next() {
            Some((&first_newer, _)) => ks.right.range(..first_newer).next_back().map(|(&t, _)| t),
            None => ks.right.keys().next_back().copied(),
        };
        if let Some(keep) = keep_from {
            let expired: Vec<i64> = ks.right.range(..keep).map(|(&t, _)| t).collect();
            if !expired.is_empty() {
                let gone: Vec<RowId> = expired.iter().filter_map(|t| ks.right.remove(t)).collect();
                self.rows -= gone.len();
                cx.cleared(
                    || gone,
                    || format!("versions older than the one valid at watermark {wm} (time {keep})"),
                );
            }
        }
        if let Some(min) = ks.left.values().map(|&(_, t)| t).min() {
            Self::register(cx, ks, key, min);
        }
        if ks.left.is_empty() && ks.right.is_empty() && ks.registered.is_none() {
            self.keys.remove(&key);
        }
    }

    fn describe_timer(_ns: &()) -> String {
        "join the probe rows up to the watermark, clean up old versions".to_string()
    }

    fn state(&self) -> Vec<StateEntry> {
        let mut keys: Vec<&KeyId> = self.keys.keys().collect();
        keys.sort();
        let mut out = Vec::new();
        for k in keys {
            let ks = &self.keys[k];
            for (i, (r, t)) in &ks.left {
                out.push(StateEntry {
                    key: *k,
                    side: Some(Side::Left),
                    scope: format!("probe row #{i}, waiting for watermark {t}"),
                    rows: vec![*r],
                    window: None,
                });
            }
            let times: Vec<i64> = ks.right.keys().copied().collect();
            for (i, (t, r)) in ks.right.iter().enumerate() {
                let until = match times.get(i + 1) {
                    Some(next) => format!("valid from {t} to {next}"),
                    None => format!("valid from {t} on"),
                };
                out.push(StateEntry {
                    key: *k,
                    side: Some(Side::Right),
                    scope: format!("version {until}"),
                    rows: vec![*r],
                    window: None,
                });
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

/// Checks a temporal or lookup join's settings (`plan::validate_job`).
pub fn validate(sc: &crate::scenario::Scenario) -> Result<(), crate::error::Error> {
    use crate::error::Error;
    use crate::scenario::OperatorKind;
    let job = &sc.job;
    let temporal = job.operator == OperatorKind::TemporalJoin;
    let what = if temporal { "temporal" } else { "lookup" };
    if !matches!(job.sql.join, JoinType::Inner | JoinType::Left) {
        return Err(Error::config(
            "job.sql.join",
            format!("a {what} join is INNER or LEFT only (Flink: {:?} is not supported for FOR SYSTEM_TIME AS OF)", job.sql.join),
        ));
    }
    if job.settings != Default::default() {
        return Err(Error::config(
            "job.settings",
            format!("state TTL and the source idle timeout are not simulated for the {what} join"),
        ));
    }
    for (i, s) in sc.streams.iter().take(2).enumerate() {
        if s.key.as_deref().is_none_or(|k| k.trim().is_empty()) {
            return Err(Error::stream(
                &s.name,
                "key",
                format!(
                    "the {what} join needs the equi-join key column of both streams (ON o.k = r.k)"
                ),
            ));
        }
        if i == 0 && !s.primary_key.is_empty() && temporal {
            // A primary key on the probe side changes nothing in the operator; allowed.
        }
    }
    if temporal {
        if let Some(r) = sc.streams.get(1) {
            let key = r.key.as_deref().unwrap_or("").trim();
            if r.primary_key.is_empty() {
                return Err(Error::stream(&r.name, "primary_key", "No primary key defined in versioned table of Event-time temporal table join (Flink requires PRIMARY KEY (…) NOT ENFORCED and a watermark on the versioned table)"));
            }
            if r.primary_key.len() != 1 || r.primary_key[0].trim() != key {
                return Err(Error::stream(&r.name, "primary_key", format!("Join key [{key}] must be the same as temporal table's primary key [{}] (this playground joins on one key column)", r.primary_key.join(", "))));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::result::{sql_change_text as show, RunResult};
    use serde_json::json;

    /// `orders(k, id, ts)` [LEFT] JOIN `rates(k, r, ts)` with punctuated watermarks (`WM` rows).
    fn run(join: &str, left: &str, right: &str) -> RunResult {
        let sc = json!({
            "version": 1,
            "job": { "operator": "temporal_join", "sql": { "join": join },
                     "watermark": { "strategy": "punctuated" } },
            "streams": [
                { "name": "orders", "columns": ["k:string", "id:int", "ts:bigint"], "key": "k", "time": "ts", "rows": left },
                { "name": "rates", "columns": ["k:string", "r:string", "ts:bigint"], "key": "k", "time": "ts",
                  "primary_key": ["k"], "rows": right }
            ]
        });
        crate::run_json(&sc.to_string(), true).expect("scenario runs")
    }

    fn outputs(r: &RunResult) -> Vec<String> {
        r.outputs.iter().map(show).collect()
    }

    #[test]
    fn probe_rows_come_out_in_arrival_order_not_time_order() {
        let r = run(
            "inner",
            "a, 1, 5000 | a=1\na, 2, 3000 | a=2\nWM 6000 | a=5",
            "a, r1, 1000 | a=0\nWM 6000 | a=6",
        );
        assert_eq!(
            outputs(&r),
            ["+I[a,1,5000|a,r1,1000]", "+I[a,2,3000|a,r1,1000]"]
        );
    }

    #[test]
    fn the_latest_version_at_or_before_the_probe_time_and_one_version_per_timestamp() {
        let r = run(
            "left",
            "a, 1, 1999 | a=10\na, 2, 2000 | a=11\na, 3, 999 | a=12\nWM 9000 | a=20",
            "a, r1, 1000 | a=0\na, r2, 2000 | a=1\na, r2bis, 2000 | a=2\nWM 9000 | a=21",
        );
        assert_eq!(
            outputs(&r),
            [
                "+I[a,1,1999|a,r1,1000]",
                "+I[a,2,2000|a,r2bis,2000]",
                "+I[a,3,999|null]"
            ]
        );
    }

    #[test]
    fn a_retraction_is_a_version_without_a_row() {
        let r = run(
            "left",
            "a, 1, 1500 | a=10\na, 2, 2500 | a=11\nWM 9000 | a=20",
            "a, r1, 1000 | a=0\n-D a, r1, 2000 | a=1\nWM 9000 | a=21",
        );
        assert_eq!(outputs(&r), ["+I[a,1,1500|a,r1,1000]", "+I[a,2,2500|null]"]);
    }

    #[test]
    fn a_late_probe_row_is_kept_and_joins_what_cleanup_left() {
        // Watermark 5000 deletes the versions at 500 and 2000 (the one at 4000 is the latest
        // at or before it). The probe row at 1000 then arrives behind the watermark: 2.3.0
        // buffers it, and at the next watermark no version at or before 1000 is left.
        let r = run(
            "left",
            "a, 1, 4500 | a=10\nWM 5000 | a=11\na, 2, 1000 | a=30\nWM 6000 | a=31",
            "a, r0, 500 | a=0\na, r1, 2000 | a=1\na, r2, 4000 | a=2\nWM 7000 | a=12",
        );
        assert_eq!(outputs(&r), ["+I[a,1,4500|a,r2,4000]", "+I[a,2,1000|null]"]);
        assert!(r.late.is_empty(), "nothing is dropped as late");
        // The late probe row waited for the next watermark advance (step of `WM 6000`).
        let step = r.outputs[1].step;
        assert_eq!(r.outputs[0].step + 2, step);
    }

    #[test]
    fn a_late_version_is_kept_and_joined() {
        let r = run(
            "inner",
            "a, 1, 3000 | a=10\nWM 2500 | a=11\nWM 9000 | a=30",
            "a, r1, 1000 | a=0\nWM 2600 | a=12\na, late, 2000 | a=13\nWM 9000 | a=31",
        );
        assert_eq!(outputs(&r), ["+I[a,1,3000|a,late,2000]"]);
    }

    #[test]
    fn versions_without_a_primary_key_are_rejected() {
        let sc = json!({
            "job": { "operator": "temporal_join" },
            "streams": [
                { "name": "o", "columns": ["k", "ts"], "key": "k", "time": "ts", "rows": "1, 1" },
                { "name": "r", "columns": ["k", "ts"], "key": "k", "time": "ts", "rows": "1, 1" }
            ]
        });
        let e = crate::run_json(&sc.to_string(), false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("No primary key"), "{e}");
    }
}
