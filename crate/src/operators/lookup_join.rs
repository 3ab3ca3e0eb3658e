//! Flink SQL's processing-time lookup join:
//! `FROM probe AS o [LEFT] JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.k = d.k`.
//!
//! Mirrors `StreamExecLookupJoin` and the 2.3.0 bytecode of
//! `flink-table/flink-table-runtime/src/main/java/org/apache/flink/table/runtime/operators/join/lookup/`
//! `LookupJoinRunner.java` (a `ProcessFunction` in a `ProcessOperator`; with a filter or
//! projection on the dimension table, `LookupJoinWithCalcRunner` runs it on each fetched row
//! first — there is none here):
//! - the operator is not keyed: the planner adds no exchange before it (no `LOOKUP` shuffle
//!   hint), so it runs chained on the subtask the probe row arrives on, and the dimension table
//!   is an external system every subtask reads;
//! - `processElement`: `fetcher.flatMap(probe)` looks the probe's join key up in the table as it
//!   stands *now* (processing time: the probe row's arrival) and emits `probe ⋈ dim` for every
//!   row found, with the probe row's `RowKind`; for a LEFT join with nothing found it emits
//!   `probe ⋈ null` (`collector.isCollected()` false);
//! - the operator keeps no state and registers no timers: a later change of the dimension table
//!   never retracts or updates an earlier result, and the watermark passes through.
//!
//! The dimension table's rows are the right stream's rows, applied in arrival order at their
//! (simulated) arrival times: with a primary key, `+I`/`+U` insert or replace the row with the
//! same key and `-U`/`-D` delete it; without, `+I`/`+U` add a row and `-U`/`-D` remove one equal
//! row. A lookup returns the rows with an equal join key in the order they entered the table
//! (a replaced row keeps its place). A NULL key finds nothing (`=` is not null-safe).

use super::{Ctx, Operator};
use crate::parse::Side;
use crate::partition::SubtaskIndex;
use crate::plan::{Arrival, KeyId, Plan, RowId};
use crate::scenario::JoinType;
use crate::timers::Timer;
use crate::trace::StateEntry;
use crate::value::Value;

/// `LookupJoinRunner`, one instance per subtask, with its own view of the dimension table.
pub struct LookupJoin {
    left_outer: bool,
    /// The join key column of the probe and of the dimension table.
    probe_key: usize,
    dim_key: usize,
    /// The dimension table's primary key columns (empty: rows are a multiset).
    pk: Vec<usize>,
    /// Dimension rows in arrival order, with their position in the arrival sequence.
    changes: Vec<(usize, RowId)>,
    /// Position of each row in the arrival sequence.
    position: Vec<usize>,
    applied: usize,
    /// The table as of the last lookup, in insertion order.
    table: Vec<RowId>,
}

impl LookupJoin {
    fn same_pk(&self, plan: &Plan, a: RowId, b: RowId) -> bool {
        let (x, y) = (plan.values(a), plan.values(b));
        if self.pk.is_empty() {
            x == y
        } else {
            self.pk.iter().all(|&c| x[c] == y[c])
        }
    }

    /// Applies the dimension changes that arrived before position `pos`.
    fn advance(&mut self, plan: &Plan, pos: usize) {
        while let Some(&(p, row)) = self.changes.get(self.applied) {
            if p >= pos {
                break;
            }
            self.applied += 1;
            let existing = self.table.iter().position(|&r| self.same_pk(plan, r, row));
            if plan.row(row).kind.is_accumulate() {
                match existing {
                    Some(i) if !self.pk.is_empty() => self.table[i] = row,
                    _ => self.table.push(row),
                }
            } else if let Some(i) = existing {
                self.table.remove(i);
            }
        }
    }
}

impl Operator for LookupJoin {
    type Ns = ();

    fn new(plan: &Plan, _subtask: SubtaskIndex) -> Self {
        let mut position = vec![0usize; plan.rows.len()];
        let mut changes = Vec::new();
        for (i, ref a) in plan.arrivals.iter().enumerate() {
            if let Arrival::Row(id) = a {
                position[id.0 as usize] = i;
                if plan.row(*id).stream == Side::Right {
                    changes.push((i, *id));
                }
            }
        }
        let dim = plan.schemas.get(1);
        let pk = plan
            .scenario
            .streams
            .get(1)
            .map(|s| {
                s.primary_key
                    .iter()
                    .filter_map(|name| {
                        dim.and_then(|d| d.columns.iter().position(|c| c.name == name.trim()))
                    })
                    .collect()
            })
            .unwrap_or_default();
        LookupJoin {
            left_outer: plan.scenario.job.sql.join == JoinType::Left,
            probe_key: plan.schemas[0].key.unwrap_or(0),
            dim_key: dim.and_then(|d| d.key).unwrap_or(0),
            pk,
            changes,
            position,
            applied: 0,
            table: Vec::new(),
        }
    }

    fn process_element(&mut self, cx: &mut Ctx<'_, ()>, side: Side, row: RowId) {
        let plan = cx.plan;
        if side == Side::Right {
            let kind = plan.row(row).kind;
            let now = cx.processing_time;
            cx.buffered(row, || {
                format!(
                    "the dimension table ({} at processing time {now}; external, not operator state)",
                    kind.short()
                )
            });
            return;
        }
        self.advance(plan, self.position[row.0 as usize]);
        let probe = plan.row(row);
        let k = &plan.row_values(probe)[self.probe_key];
        let mut found = false;
        if !k.is_null() {
            for i in 0..self.table.len() {
                let d = self.table[i];
                if equal_key(&plan.values(d)[self.dim_key], k) {
                    found = true;
                    cx.emit(Some(row), Some(d), None, probe.kind, None);
                }
            }
        }
        if !found && self.left_outer {
            cx.emit(Some(row), None, None, probe.kind, None);
        }
    }

    fn on_event_time(&mut self, _cx: &mut Ctx<'_, ()>, _timer: Timer<KeyId, ()>) {}

    fn describe_timer(_ns: &()) -> String {
        "none (the lookup join registers no timers)".to_string()
    }

    fn state(&self) -> Vec<StateEntry> {
        // Not operator state: the external table this subtask last read, for display.
        self.table
            .iter()
            .map(|&r| StateEntry {
                key: KeyId(0),
                side: Some(Side::Right),
                scope: "dimension table row (external, as last looked up)".into(),
                rows: vec![r],
                window: None,
            })
            .collect()
    }

    fn is_empty(&self) -> bool {
        true
    }
}

/// SQL `=` on the join key (never true for NULL).
fn equal_key(a: &Value, b: &Value) -> bool {
    !a.is_null() && a == b
}

#[cfg(test)]
mod tests {
    use crate::result::{sql_change_text as show, RunResult};
    use serde_json::json;

    /// `orders(k, id)` [LEFT] JOIN `dim(k, d)` FOR SYSTEM_TIME AS OF proc_time.
    fn run(join: &str, p: u32, pk: bool, left: &str, right: &str) -> RunResult {
        let sc = json!({
            "version": 1,
            "job": { "operator": "lookup_join", "parallelism": p, "sql": { "join": join } },
            "streams": [
                { "name": "orders", "columns": ["k:string", "id:int"], "key": "k", "rows": left },
                { "name": "dim", "columns": ["k:string", "d:string"], "key": "k",
                  "primary_key": if pk { vec!["k"] } else { vec![] }, "rows": right }
            ]
        });
        crate::run_json(&sc.to_string(), true).expect("scenario runs")
    }

    fn outputs(r: &RunResult) -> Vec<String> {
        r.outputs.iter().map(show).collect()
    }

    #[test]
    fn each_probe_sees_the_table_at_its_arrival_and_nothing_is_retracted() {
        let r = run(
            "left",
            1,
            true,
            "a, 1 | a=5\na, 2 | a=15\na, 3 | a=25\nb, 4 | a=26",
            "a, x | a=10\n+U a, y | a=20\n-D a, y | a=24\nb, z | a=30",
        );
        assert_eq!(
            outputs(&r),
            [
                "+I[a,1|null]",
                "+I[a,2|a,x]",
                "+I[a,3|null]",
                "+I[b,4|null]"
            ]
        );
        assert!(r.state_empty, "the operator keeps no state");
    }

    #[test]
    fn without_a_primary_key_rows_accumulate_and_inner_drops_misses() {
        let r = run(
            "inner",
            1,
            false,
            "a, 1 | a=15\nc, 2 | a=16\na, 3 | a=25",
            "a, x | a=10\na, y | a=11\n-D a, x | a=20",
        );
        assert_eq!(outputs(&r), ["+I[a,1|a,x]", "+I[a,1|a,y]", "+I[a,3|a,y]"]);
    }

    #[test]
    fn the_probe_row_stays_on_its_assigner_subtask() {
        let r = run(
            "inner",
            3,
            true,
            "a, 1 | s=2 a=15\na, 2 | s=1 a=16",
            "a, x | s=0 a=10",
        );
        let subs: Vec<u32> = r.outputs.iter().map(|o| o.subtask.0).collect();
        assert_eq!(subs, [2, 1]);
    }
}
