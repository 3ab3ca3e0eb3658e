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
use crate::parse::Side;
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
    left: BTreeMap<u64, RowId>,
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
                ks.left.insert(idx, row);
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
                cx.buffered(row, || format!("versions (time {t}, {})", kind.short()));
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
            .filter(|(_, &r)| ts(r) <= wm)
            .map(|(&i, &r)| (i, r))
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
        if let Some(min) = ks.left.values().map(|&r| ts(r)).min() {
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
            for (i, r) in &ks.left {
                out.push(StateEntry {
                    key: *k,
                    side: Some(Side::Left),
                    scope: format!("probe row #{i}"),
                    rows: vec![*r],
                    window: None,
                });
            }
            for (t, r) in &ks.right {
                out.push(StateEntry {
                    key: *k,
                    side: Some(Side::Right),
                    scope: format!("version at {t}"),
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
