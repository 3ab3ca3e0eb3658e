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
        let canonical = match list.iter().find(|&&r| same_record(&plan.row(r).values, values)) {
            Some(&r) => r,
            None => {
                list.push(row);
                row
            }
        };
        HashedKey { hash, value: canonical }
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
    let e = view.get_or_insert_with(key, || Entry { rows: Vec::new(), assoc });
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
            let m = Match { row: e.rows[i], assoc: captured };
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
                    cx.buffered(row, || format!("{side_name} records (no match: 0 associations)"));
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
                    cx.buffered(row, || format!("{side_name} records ({n} associations)"));
                }
            } else {
                add_record(input_view, record, row, -1);
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
            if let Some(g) = gone {
                cx.cleared(|| vec![g], || format!("{side_name} records: retracted by {} line {}", input_kind.short(), r.line));
            }
            let has_match = joins && !other_view.is_empty();
            if !has_match {
                if input_outer {
                    Self::emit_padded(cx, side, row, RowKind::Delete);
                }
            } else {
                let kind = if input_outer { RowKind::Delete } else { input_kind };
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
            for (side, view, outer) in [(Side::Left, &ks.left, self.left_outer), (Side::Right, &ks.right, self.right_outer)] {
                for (_, e) in view.iter() {
                    let scope = if outer {
                        format!("count {}, associations {}", e.rows.len(), e.assoc)
                    } else {
                        format!("count {}", e.rows.len())
                    };
                    out.push(StateEntry { key: *k, side: Some(side), scope, rows: e.rows.clone() });
                }
            }
        }
        out
    }

    fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}
