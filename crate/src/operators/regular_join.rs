//! Flink SQL's regular (unbounded) streaming join and its changelog.
//!
//! Mirrors the 2.3.0 bytecode of
//! `flink-table/flink-table-runtime/src/main/java/org/apache/flink/table/runtime/operators/join/stream/`
//! `StreamingJoinOperator.java` (`processElement`), `AbstractStreamingJoinOperator.java` (the
//! lazy matching iterator), `state/JoinRecordStateViews.java` (`InputSideHasNoUniqueKey`:
//! `MapState<RowData, Integer>` = record → count) and `state/OuterJoinRecordStateViews.java`
//! (`InputSideHasNoUniqueKey`: `MapState<RowData, Tuple2<count, numOfAssociations>>`), and
//! `.../operators/join/JoinConditionWithNullFilters.java` (FLINK-SEMANTICS §8). Our inputs
//! never declare a primary key, so both sides use the "no unique key" views.
//!
//! Rules reproduced exactly:
//! - the input's `RowKind` is read, then reset to `+I` before the record goes into state;
//!   `+I`/`+U` accumulate, `-U`/`-D` retract (`RowDataUtil.isAccumulateMsg`);
//! - records are keys of a heap-backend `java.util.HashMap` whose `hashCode` is the
//!   `BinaryRowData` hash of the whole record ([`crate::javahash::sql_key_hash`] over all
//!   columns, `RowKind` byte = `INSERT`), so the matches of one arrival come out in that
//!   `HashMap`'s iteration order; identical records are one entry with a count and are yielded
//!   `count` times (each yield of an outer entry sees the association count read when the
//!   iterator reached the entry, although `updateNumOfAssociations` rewrites it in between);
//! - `addRecord(record, n)` on an outer view *overwrites* the association count of an existing
//!   identical record; `retractRecord` of an absent record does nothing (and the retraction is
//!   still joined and emitted); an entry whose count drops to zero is removed, and a view that
//!   becomes empty is dropped (`HeapMapState.remove`), so it restarts with 16 buckets;
//! - the equi-join key is not null-safe: a row whose key is NULL matches nothing (the key is
//!   still its state key, and outer rows are padded as usual);
//! - outputs: an inner join passes the input kind through; joins involving an outer side
//!   emit `+I` / `-D` only (`+I[l, null]`, `-D[l, null]`, `+I[l, r]`, …), never `-U`/`+U`
//!   except an inner side's retraction of an outer row's match (`-U[l, r]` for a `-U` right
//!   row in a LEFT join). No record timestamp; no timers (state TTL off; mini-batch off).

use super::{Ctx, Operator};
use crate::javahash::sql_key_hash;
use crate::javamap::{HashedKey, JavaHashMap};
use crate::parse::{RowKind, Side};
use crate::partition::SubtaskIndex;
use crate::plan::{KeyId, Plan, RowId};
use crate::timers::Timer;
use crate::trace::StateEntry;
use crate::value::Value;
use std::collections::HashMap;

/// A stored record: its `BinaryRowData` hash and the first row that carried its values (the
/// `HashMap` key object Flink keeps while identical copies only raise the count).
type RecordKey = HashedKey<RowId>;

/// The value of one record in a view.
#[derive(Clone, Debug)]
struct Entry {
    /// The rows holding this record, first one first; the count is `rows.len()`.
    rows: Vec<RowId>,
    /// `numOfAssociations` (outer views only; `-1` for an inner view, as `OuterRecord` of a
    /// plain view has).
    assoc: i32,
}

/// `JoinRecordStateView` / `OuterJoinRecordStateView` of one key and side.
type View = JavaHashMap<RecordKey, Entry>;

#[derive(Default)]
struct KeyState {
    left: View,
    right: View,
}

/// Flink SQL's `StreamingJoinOperator` (INNER / LEFT / RIGHT / FULL), one instance per subtask.
pub struct RegularJoin {
    left_outer: bool,
    right_outer: bool,
    /// Whether rows are keyed by a key column (else the join has no equi-key and no null filter).
    keyed: bool,
    keys: HashMap<KeyId, KeyState>,
    /// Record interning: `BinaryRowData` hash → the first rows of the distinct records with
    /// that hash (so identical records map to one [`RecordKey`] without copying values).
    records: HashMap<i32, Vec<RowId>>,
    /// Rows in the views ([`Operator::state_rows`]).
    rows: usize,
}

/// `BinaryRowData.equals`: byte equality, i.e. equal values with doubles compared by bits.
fn same_record(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Value::Double(p), Value::Double(q)) => p.to_bits() == q.to_bits(),
            _ => x == y,
        })
}

/// What one matching stored record looks like to `processElement`.
struct Match {
    row: RowId,
    /// `OuterRecord.numOfAssociations` as the iterator captured it.
    assoc: i32,
}

impl RegularJoin {
    fn record_key(&mut self, plan: &Plan, row: RowId) -> RecordKey {
        let values = &plan.row(row).values;
        let hash = sql_key_hash(values);
        let list = self.records.entry(hash).or_default();
        let canonical = match list
            .iter()
            .find(|&&r| same_record(&plan.row(r).values, values))
        {
            Some(&r) => r,
            None => {
                list.push(row);
                row
            }
        };
        HashedKey {
            hash,
            value: canonical,
        }
    }

    fn is_outer(&self, side: Side) -> bool {
        match side {
            Side::Left => self.left_outer,
            Side::Right => self.right_outer,
        }
    }

    fn emit(cx: &mut Ctx<'_, ()>, input_side: Side, input: RowId, other: RowId, kind: RowKind) {
        match input_side {
            Side::Left => cx.emit(Some(input), Some(other), None, kind, None),
            Side::Right => cx.emit(Some(other), Some(input), None, kind, None),
        }
    }

    /// `outputNullPadding(row, isLeft)`.
    fn emit_padded(cx: &mut Ctx<'_, ()>, side: Side, row: RowId, kind: RowKind) {
        match side {
            Side::Left => cx.emit(Some(row), None, None, kind, None),
            Side::Right => cx.emit(None, Some(row), None, kind, None),
        }
    }
}

/// `addRecord(record)` (inner view) / `addRecord(record, n)` (outer view).
fn add_record(view: &mut View, key: RecordKey, row: RowId, assoc: i32) {
    let e = view.get_or_insert_with(key, || Entry {
        rows: Vec::new(),
        assoc,
    });
    e.rows.push(row);
    e.assoc = assoc;
}

/// `retractRecord(record)`: count − 1, or remove the entry (and drop the map once empty).
/// Returns the row that left state, if any.
fn retract_record(view: &mut View, key: &RecordKey) -> Option<RowId> {
    let e = view.get_mut(key)?;
    if e.rows.len() > 1 {
        return e.rows.pop();
    }
    let e = view.remove(key)?;
    if view.is_empty() {
        *view = JavaHashMap::new();
    }
    e.rows.first().copied()
}

/// Visits the records of `view` as `AbstractStreamingJoinOperator.iterator` yields them
/// (entry by entry in `HashMap` order, each `count` times, with the association count captured
/// when the entry is reached), letting `f` rewrite that entry's association count in between
/// (`updateNumOfAssociations` on a present record changes the value in place).
fn for_each_match(view: &mut View, mut f: impl FnMut(&Match, &mut i32)) {
    view.for_each_mut(|_, e| {
        let captured = e.assoc;
        for i in 0..e.rows.len() {
            let m = Match {
                row: e.rows[i],
                assoc: captured,
            };
            f(&m, &mut e.assoc);
        }
    });
}

impl Operator for RegularJoin {
    type Ns = ();

    fn new(plan: &Plan, _subtask: SubtaskIndex) -> Self {
        let join = plan.scenario.job.sql.join;
        RegularJoin {
            left_outer: join.left_outer(),
            right_outer: join.right_outer(),
            keyed: plan.schemas.first().is_some_and(|s| s.key.is_some()),
            keys: HashMap::new(),
            records: HashMap::new(),
            rows: 0,
        }
    }

    fn process_element(&mut self, cx: &mut Ctx<'_, ()>, side: Side, row: RowId) {
        let plan = cx.plan;
        let r = plan.row(row);
        let key = r.key;
        let input_kind = r.kind;
        let accumulate = input_kind.is_accumulate();
        let input_outer = self.is_outer(side);
        let other_outer = self.is_outer(side.other());
        // JoinConditionWithNullFilters: a null equi-key field fails every match.
        let joins = !self.keyed || !plan.keys[key.0 as usize].value.is_null();
        let record = self.record_key(plan, row);
        let ks = self.keys.entry(key).or_default();
        let (input_view, other_view) = match side {
            Side::Left => (&mut ks.left, &mut ks.right),
            Side::Right => (&mut ks.right, &mut ks.left),
        };
        let other = side.other();
        let side_name = if side == Side::Left { "left" } else { "right" };
        if accumulate {
            if input_outer {
                let has_match = joins && !other_view.is_empty();
                if !has_match {
                    Self::emit_padded(cx, side, row, RowKind::Insert);
                    add_record(input_view, record, row, 0);
                    self.rows += 1;
                    cx.buffered(row, || {
                        format!("{side_name} records (no match: 0 associations)")
                    });
                } else {
                    let mut n = 0i32;
                    for_each_match(other_view, |m, assoc| {
                        if other_outer {
                            if m.assoc == 0 {
                                Self::emit_padded(cx, other, m.row, RowKind::Delete);
                            }
                            *assoc = m.assoc + 1;
                        }
                        Self::emit(cx, side, row, m.row, RowKind::Insert);
                        n += 1;
                    });
                    add_record(input_view, record, row, n);
                    self.rows += 1;
                    cx.buffered(row, || format!("{side_name} records ({n} associations)"));
                }
            } else {
                add_record(input_view, record, row, -1);
                self.rows += 1;
                cx.buffered(row, || format!("{side_name} records"));
                if joins {
                    for_each_match(other_view, |m, assoc| {
                        if other_outer {
                            if m.assoc == 0 {
                                Self::emit_padded(cx, other, m.row, RowKind::Delete);
                            }
                            *assoc = m.assoc + 1;
                            Self::emit(cx, side, row, m.row, RowKind::Insert);
                        } else {
                            Self::emit(cx, side, row, m.row, input_kind);
                        }
                    });
                }
            }
        } else {
            let gone = retract_record(input_view, &record);
            self.rows -= gone.is_some() as usize;
            if let Some(g) = gone {
                cx.cleared(
                    || vec![g],
                    || {
                        format!(
                            "{side_name} records: retracted by {} line {}",
                            input_kind.short(),
                            r.line
                        )
                    },
                );
            }
            let has_match = joins && !other_view.is_empty();
            if !has_match {
                if input_outer {
                    Self::emit_padded(cx, side, row, RowKind::Delete);
                }
            } else {
                let kind = if input_outer {
                    RowKind::Delete
                } else {
                    input_kind
                };
                for_each_match(other_view, |m, assoc| {
                    Self::emit(cx, side, row, m.row, kind);
                    if other_outer {
                        if m.assoc == 1 {
                            Self::emit_padded(cx, other, m.row, RowKind::Insert);
                        }
                        *assoc = m.assoc - 1;
                    }
                });
            }
        }
        if ks.left.is_empty() && ks.right.is_empty() {
            self.keys.remove(&key);
        }
    }

    fn on_event_time(&mut self, _cx: &mut Ctx<'_, ()>, _timer: Timer<KeyId, ()>) {}

    fn describe_timer(_ns: &()) -> String {
        "none (the regular join registers no timers)".to_string()
    }

    fn state(&self) -> Vec<StateEntry> {
        let mut keys: Vec<&KeyId> = self.keys.keys().collect();
        keys.sort();
        let mut out = Vec::new();
        for k in keys {
            let ks = &self.keys[k];
            for (side, view, outer) in [
                (Side::Left, &ks.left, self.left_outer),
                (Side::Right, &ks.right, self.right_outer),
            ] {
                for (_, e) in view.iter() {
                    let scope = if outer {
                        format!("count {}, associations {}", e.rows.len(), e.assoc)
                    } else {
                        format!("count {}", e.rows.len())
                    };
                    out.push(StateEntry {
                        key: *k,
                        side: Some(side),
                        scope,
                        rows: e.rows.clone(),
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
    use crate::result::RunResult;
    use serde_json::json;

    use crate::result::sql_change_text as show;

    /// Runs a regular join of `l(id, v)` and `r(id, w)` with the rows in `left_first` order
    /// unless `a=` annotations order them.
    fn run(join: &str, arrival: &str, left: &str, right: &str) -> RunResult {
        let sc = json!({
            "version": 1,
            "job": { "operator": "regular_join", "sql": { "join": join }, "arrival": arrival },
            "streams": [
                { "name": "l", "columns": ["id:int", "v:string"], "key": "id", "rows": left },
                { "name": "r", "columns": ["id:int", "w:string"], "key": "id", "rows": right }
            ]
        });
        crate::run_json(&sc.to_string(), false).expect("scenario runs")
    }

    fn outputs(r: &RunResult) -> Vec<String> {
        r.outputs.iter().map(show).collect()
    }

    fn gallery(name: &str) -> RunResult {
        let path = format!("{}/../scenarios/{name}", env!("CARGO_MANIFEST_DIR"));
        crate::run_json(&std::fs::read_to_string(path).unwrap(), false).unwrap()
    }

    #[test]
    fn seed_001_left_join_retracts_the_padded_row() {
        let r = gallery("sql-regular-left-join.json");
        let got: Vec<String> = outputs(&r)
            .iter()
            .map(|s| s.replace(",1635724", ",_"))
            .collect();
        assert_eq!(
            got,
            [
                "+I[1,_863000,show_params|null]",
                "-D[1,_863000,show_params|null]",
                "+I[1,_863000,show_params|1,_913000,click_params]",
                "+I[2,_980000,show_params2|null]",
                "-D[2,_980000,show_params2|null]",
                "+I[2,_980000,show_params2|2,_921000,click_params2]",
                "+I[3,1635725100000,show_params3|null]",
            ]
        );
        // A regular join keeps its rows forever (no state TTL).
        assert!(!r.state_empty);
    }

    /// Expected changelog printed by real Flink 2.3.0 for the same input (a MiniCluster job
    /// reading both inputs with `fromChangelogStream`, paced one event at a time).
    #[test]
    fn changelog_input_matches_flink() {
        let r = gallery("sql-regular-retraction.json");
        assert_eq!(
            outputs(&r),
            [
                "+I[1,book|null]",
                "-D[1,book|null]",
                "+I[1,book|1,10.0]",
                "-U[1,book|1,10.0]",
                "+I[1,book|null]",
                "-D[1,book|null]",
                "+I[1,book|1,12.5]",
                "+I[2,lamp|null]",
                "-D[2,lamp|null]",
                "+I[2,lamp|2,30.0]",
                "+I[null,pen|null]",
                "-D[2,lamp|2,30.0]",
                "-D[null,pen|null]",
            ]
        );
    }

    #[test]
    fn inner_join_forwards_the_input_kind() {
        let r = run(
            "inner",
            "by_time",
            "+I 1, a | a=1",
            "+I 1, x | a=2\n-U 1, x | a=3\n+U 1, y | a=4\n-D 1, y | a=5",
        );
        assert_eq!(
            outputs(&r),
            ["+I[1,a|1,x]", "-U[1,a|1,x]", "+U[1,a|1,y]", "-D[1,a|1,y]"]
        );
        // Both right rows retracted: only the left row remains.
        let r = run(
            "inner",
            "by_time",
            "+I 1, a | a=1\n-D 1, a | a=6",
            "+I 1, x | a=2\n-D 1, x | a=5",
        );
        assert!(r.state_empty);
        assert_eq!(outputs(&r), ["+I[1,a|1,x]", "-D[1,a|1,x]"]);
    }

    #[test]
    fn full_join_pads_both_sides_and_re_pads_on_retraction() {
        let r = run(
            "full",
            "by_time",
            "1, a | a=1\n-D 1, a | a=3",
            "1, x | a=2\n2, y | a=4",
        );
        assert_eq!(
            outputs(&r),
            [
                "+I[1,a|null]",
                // The right row is the outer side here: it deletes the left padding itself.
                "-D[1,a|null]",
                "+I[1,a|1,x]",
                // Deleting the left row: -D of the pair, then the right row padded again.
                "-D[1,a|1,x]",
                "+I[null|1,x]",
                "+I[null|2,y]",
            ]
        );
    }

    #[test]
    fn left_join_right_side_update_uses_input_kind_then_pads() {
        // In a LEFT join the right side is not outer: its -U/-D are forwarded with their kind.
        let r = run("left", "by_time", "1, a | a=1", "1, x | a=2\n-D 1, x | a=3");
        assert_eq!(
            outputs(&r),
            [
                "+I[1,a|null]",
                "-D[1,a|null]",
                "+I[1,a|1,x]",
                "-D[1,a|1,x]",
                "+I[1,a|null]"
            ]
        );
    }

    /// Order printed by real Flink 2.3.0: 18 left rows of key 1 (`fromData`), then one right
    /// row of key 1 after a 4 s sleep, INNER and LEFT join, parallelism 1. The matches come out
    /// in `HashMap` order of the `BinaryRowData` records, the duplicate "dup" twice in a row.
    #[test]
    fn matches_follow_hashmap_order_of_binary_rows_like_flink() {
        let names = [
            "Alice",
            "Bob",
            "Cary",
            "Mary",
            "dup",
            "zeta",
            "a-much-longer-name",
            "x1",
            "x2",
            "x3",
            "x4",
            "x5",
            "x6",
            "x7",
            "x8",
            "dup",
            "y1",
            "y2",
        ];
        let left: Vec<String> = names.iter().map(|n| format!("1, {n}")).collect();
        let left = left.join("\n");
        let flink = [
            "zeta",
            "x8",
            "Mary",
            "x3",
            "x5",
            "x6",
            "x7",
            "x2",
            "x4",
            "Cary",
            "y1",
            "y2",
            "Alice",
            "Bob",
            "dup",
            "dup",
            "x1",
            "a-much-longer-name",
        ];
        let inner = run("inner", "left_first", &left, "1, r");
        let want: Vec<String> = flink.iter().map(|n| format!("+I[1,{n}|1,r]")).collect();
        assert_eq!(outputs(&inner), want);
        let l = run("left", "left_first", &left, "1, r");
        let mut want: Vec<String> = names.iter().map(|n| format!("+I[1,{n}|null]")).collect();
        for n in flink {
            want.push(format!("-D[1,{n}|null]"));
            want.push(format!("+I[1,{n}|1,r]"));
        }
        assert_eq!(outputs(&l), want);
    }

    #[test]
    fn duplicate_records_share_one_association_count() {
        // Two identical left rows are one entry (count 2). The right row's arrival yields it
        // twice with the association count read once (0): two -D/+I pairs; the count becomes 1,
        // not 2. Retracting the right row yields it twice with count 1: each time -D of the
        // pair and the left row padded again.
        let r = run(
            "left",
            "by_time",
            "1, a | a=1\n1, a | a=2",
            "1, x | a=3\n-D 1, x | a=4",
        );
        assert_eq!(
            outputs(&r),
            [
                "+I[1,a|null]",
                "+I[1,a|null]",
                "-D[1,a|null]",
                "+I[1,a|1,x]",
                "-D[1,a|null]",
                "+I[1,a|1,x]",
                "-D[1,a|1,x]",
                "+I[1,a|null]",
                "-D[1,a|1,x]",
                "+I[1,a|null]",
            ]
        );
    }

    #[test]
    fn retraction_of_an_absent_record_is_still_joined() {
        // retractRecord does nothing when the record is not in state, but the matches of the
        // other side are still iterated and emitted.
        let r = run("inner", "by_time", "-D 1, never | a=2", "1, x | a=1");
        assert_eq!(outputs(&r), ["-D[1,never|1,x]"]);
        let r = run("left", "by_time", "-U 1, never | a=1", "");
        assert_eq!(outputs(&r), ["-D[1,never|null]"]);
    }

    #[test]
    fn null_keys_never_match() {
        let r = run("full", "by_time", "null, a | a=1", "null, x | a=2");
        assert_eq!(outputs(&r), ["+I[null,a|null]", "+I[null|null,x]"]);
        let r = run("inner", "by_time", "null, a | a=1", "null, x | a=2");
        assert!(r.outputs.is_empty());
    }

    #[test]
    fn state_empties_when_everything_is_retracted() {
        let r = run(
            "left",
            "by_time",
            "1, a | a=1\n-D 1, a | a=3",
            "1, x | a=2\n-D 1, x | a=4",
        );
        assert_eq!(
            outputs(&r),
            ["+I[1,a|null]", "-D[1,a|null]", "+I[1,a|1,x]", "-D[1,a|1,x]"]
        );
        assert!(r.state_empty);
    }
}
