//! Flink SQL's regular (unbounded) streaming join and its changelog.
//!
//! Mirrors the 2.3.0 bytecode of
//! `flink-table/flink-table-runtime/src/main/java/org/apache/flink/table/runtime/operators/join/stream/`
//! `StreamingJoinOperator.java` (`processElement`), `AbstractStreamingJoinOperator.java` (the
//! lazy matching iterator), `state/JoinRecordStateViews.java` (`InputSideHasNoUniqueKey`:
//! `MapState<RowData, Integer>` = record → count) and `state/OuterJoinRecordStateViews.java`
//! (`InputSideHasNoUniqueKey`: `MapState<RowData, Tuple2<count, numOfAssociations>>`), and
//! `.../operators/join/JoinConditionWithNullFilters.java` (FLINK-SEMANTICS §8), and with a
//! `PRIMARY KEY` on an input the unique-key views of the same classes (`InputSideHasUniqueKey`:
//! `MapState<uniqueKey, record>`; `JoinKeyContainsUniqueKey`: `ValueState<record>`), chosen as
//! the planner's `JoinUtil.analyzeJoinInput` / `StreamExecJoin` choose them ([`InputSideSpec`]).
//!
//! State TTL (`table.exec.state.ttl`, the `STATE_TTL` hint per input) mirrors
//! `StateConfigUtil.createTtlConfig`: `StateTtlConfig` with `OnCreateAndWrite` and
//! `NeverReturnExpired` on processing time (`TtlTimeProvider.DEFAULT`, here the row's simulated
//! arrival time). Every `put` stamps an entry (adding a record, a count change,
//! `updateNumOfAssociations`); an entry is expired once `stamp + ttl <= now`
//! (`TtlUtils.expired`). Expired entries are never returned: `TtlMapState`'s entries iterator
//! skips and removes them (the map stays), `TtlMapState.get` removes them (and the map once
//! empty, `HeapMapState.remove`). The heap backend's default incremental cleanup
//! (`StateTtlConfig.Builder`: cleanup in background, 5 entries per state access) may remove
//! expired entries earlier; that only changes a map's capacity (hence iteration order) when a
//! key's view held more than 12 entries, which this model does not track.
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
use crate::javahash::sql_key_hash_typed;
use crate::javamap::{HashedKey, JavaHashMap};
use crate::parse::{RowKind, Side};
use crate::partition::SubtaskIndex;
use crate::plan::{KeyId, Plan, RowId};
use crate::timers::Timer;
use crate::trace::StateEntry;
use crate::value::Value;
use std::collections::HashMap;

/// The map key of a stored record: a `BinaryRowData` hash and the first row that carried
/// those values (the `HashMap` key object Flink keeps; identical later copies reuse it). For a
/// view without a unique key the values are the whole record; with one they are the unique
/// key's columns.
type RecordKey = HashedKey<RowId>;

/// The value of one map entry in a view.
#[derive(Clone, Debug)]
struct Entry {
    /// The rows holding this record, first one first; the count is `rows.len()`. A view with a
    /// unique key holds exactly one row per entry (the latest `put`).
    rows: Vec<RowId>,
    /// `numOfAssociations` (outer views only; `-1` for an inner view, as `OuterRecord` of a
    /// plain view has).
    assoc: i32,
    /// Processing time of the entry's last write (`TtlValue.lastAccessTimestamp`; the join's
    /// `StateTtlConfig` uses `OnCreateAndWrite`, so reads never refresh it).
    written: i64,
}

/// `JoinRecordStateView` / `OuterJoinRecordStateView` of one key and side.
type View = JavaHashMap<RecordKey, Entry>;

#[derive(Default)]
struct KeyState {
    left: View,
    right: View,
}

/// Which state view an input side gets: Flink's `JoinInputSideSpec`, as
/// `JoinUtil.analyzeJoinInput` derives it from the input's upsert key (a source scan with a
/// `PRIMARY KEY` and `ChangelogMode.all()` has the primary key as its upsert key).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputSideSpec {
    /// `InputSideHasNoUniqueKey`: `MapState<record, count>` (outer: `<count, associations>`).
    NoUniqueKey,
    /// `InputSideHasUniqueKey`: `MapState<uniqueKey, record>` keyed by the unique key's
    /// columns (ascending column order, as the planner's `ImmutableBitSet` lists them).
    UniqueKey(Vec<usize>),
    /// `JoinKeyContainsUniqueKey`: a `ValueState<record>`: at most one record per join key.
    /// Modelled as a map with at most one entry (the unique key is fixed by the join key).
    JoinKeyContainsUniqueKey(Vec<usize>),
}

impl InputSideSpec {
    /// `JoinUtil.analyzeJoinInput`: no unique key → no unique key; a unique key whose
    /// columns are all join-key columns → `JoinKeyContainsUniqueKey`; else `InputSideHasUniqueKey`.
    pub fn analyze(primary_key: &[usize], join_key: Option<usize>) -> InputSideSpec {
        if primary_key.is_empty() {
            return InputSideSpec::NoUniqueKey;
        }
        let mut cols = primary_key.to_vec();
        cols.sort_unstable();
        cols.dedup();
        if join_key.is_some_and(|k| cols.iter().all(|&c| c == k)) {
            InputSideSpec::JoinKeyContainsUniqueKey(cols)
        } else {
            InputSideSpec::UniqueKey(cols)
        }
    }

    fn unique_key(&self) -> Option<&[usize]> {
        match self {
            InputSideSpec::NoUniqueKey => None,
            InputSideSpec::UniqueKey(c) | InputSideSpec::JoinKeyContainsUniqueKey(c) => Some(c),
        }
    }

    /// Flink's class name of the view, for the trace.
    pub fn flink_name(&self) -> &'static str {
        match self {
            InputSideSpec::NoUniqueKey => "InputSideHasNoUniqueKey",
            InputSideSpec::UniqueKey(_) => "InputSideHasUniqueKey",
            InputSideSpec::JoinKeyContainsUniqueKey(_) => "JoinKeyContainsUniqueKey",
        }
    }
}

/// One input side's settings.
struct SideConf {
    outer: bool,
    spec: InputSideSpec,
    /// State retention in ms (`STATE_TTL` hint, else `table.exec.state.ttl`); `None` = off.
    ttl: Option<i64>,
}

/// Flink SQL's `StreamingJoinOperator` (INNER / LEFT / RIGHT / FULL), one instance per subtask.
pub struct RegularJoin {
    left: SideConf,
    right: SideConf,
    /// Whether rows are keyed by a key column (else the join has no equi-key and no null filter).
    keyed: bool,
    keys: HashMap<KeyId, KeyState>,
    /// Record interning: `BinaryRowData` hash → the first rows of the distinct records (or
    /// unique keys) with that hash, per side (so equal values map to one [`RecordKey`]
    /// without copying values).
    records: [HashMap<i32, Vec<RowId>>; 2],
    /// Rows in the views ([`Operator::state_rows`]), expired ones included until removed.
    rows: usize,
    /// Processing time of the element being processed (for the state display).
    now: i64,
}

/// `BinaryRowData.equals`: byte equality, i.e. equal values with doubles compared by bits.
fn same_values<'a>(a: impl Iterator<Item = &'a Value>, b: impl Iterator<Item = &'a Value>) -> bool {
    let mut a = a;
    let mut b = b;
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) => {
                let same = match (x, y) {
                    (Value::Double(p), Value::Double(q)) => p.to_bits() == q.to_bits(),
                    _ => x == y,
                };
                if !same {
                    return false;
                }
            }
            _ => return false,
        }
    }
}

/// What one matching stored record looks like to `processElement`.
struct Match {
    row: RowId,
    /// `OuterRecord.numOfAssociations` as the iterator captured it.
    assoc: i32,
}

/// `TtlUtils.expired`: `lastAccess + ttl <= now` (the sum saturating at `Long.MAX_VALUE`).
fn expired(ttl: Option<i64>, written: i64, now: i64) -> bool {
    ttl.is_some_and(|t| written.saturating_add(t) <= now)
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::Left => "left",
        Side::Right => "right",
    }
}

impl RegularJoin {
    fn conf(&self, side: Side) -> &SideConf {
        match side {
            Side::Left => &self.left,
            Side::Right => &self.right,
        }
    }

    /// The map key of `row` in `side`'s view: the whole record, or its unique key's columns.
    fn record_key(&mut self, plan: &Plan, side: Side, row: RowId) -> RecordKey {
        let values = plan.values(row);
        let cols = match side {
            Side::Left => self.left.spec.unique_key(),
            Side::Right => self.right.spec.unique_key(),
        };
        // The columns' types: a NULL of a wide DECIMAL is written differently (javahash).
        let types: Vec<crate::value::ColumnType> = plan
            .schemas
            .get(side.index())
            .map(|s| s.columns.iter().map(|c| c.ty).collect())
            .unwrap_or_default();
        let (hash, list) = match cols {
            None => (
                sql_key_hash_typed(values, &types),
                &mut self.records[side.index()],
            ),
            Some(cols) => {
                let uk: Vec<Value> = cols.iter().map(|&c| values[c].clone()).collect();
                let ut: Vec<_> = cols.iter().filter_map(|&c| types.get(c).copied()).collect();
                (
                    sql_key_hash_typed(&uk, &ut),
                    &mut self.records[side.index()],
                )
            }
        };
        let project = |r: RowId| -> Vec<&Value> {
            let v = plan.values(r);
            match cols {
                None => v.iter().collect(),
                Some(cols) => cols.iter().map(|&c| &v[c]).collect(),
            }
        };
        let mine = project(row);
        let bucket = list.entry(hash).or_default();
        let canonical = match bucket
            .iter()
            .find(|&&r| same_values(project(r).into_iter(), mine.iter().copied()))
        {
            Some(&r) => r,
            None => {
                bucket.push(row);
                row
            }
        };
        HashedKey {
            hash,
            value: canonical,
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

/// Traces rows that left state because their TTL ran out.
fn trace_expired(cx: &mut Ctx<'_, ()>, side: Side, rows: Vec<RowId>, e: &Entry, ttl: Option<i64>) {
    let now = cx.processing_time;
    let ttl = ttl.unwrap_or(0);
    cx.cleared(
        || rows,
        || {
            format!(
                "{} records: expired (state TTL {ttl} ms: last written at processing time {}, expired at {}, now {now}); never matched again",
                side_name(side),
                e.written,
                e.written.saturating_add(ttl)
            )
        },
    );
}

impl Operator for RegularJoin {
    type Ns = ();

    fn new(plan: &Plan, _subtask: SubtaskIndex) -> Self {
        let job = &plan.scenario.job;
        let join = job.sql.join;
        let ttls = side_ttls(plan);
        let spec = |i: usize| {
            let schema = &plan.schemas[i];
            let pk = primary_key_columns(plan, i);
            InputSideSpec::analyze(&pk, schema.key)
        };
        RegularJoin {
            left: SideConf {
                outer: join.left_outer(),
                spec: spec(0),
                ttl: ttls[0],
            },
            right: SideConf {
                outer: join.right_outer(),
                spec: spec(1),
                ttl: ttls[1],
            },
            keyed: plan.schemas.first().is_some_and(|s| s.key.is_some()),
            keys: HashMap::new(),
            records: [HashMap::new(), HashMap::new()],
            rows: 0,
            now: i64::MIN,
        }
    }

    fn process_element(&mut self, cx: &mut Ctx<'_, ()>, side: Side, row: RowId) {
        let plan = cx.plan;
        let now = cx.processing_time;
        self.now = now;
        let r = plan.row(row);
        let key = r.key;
        let input_kind = r.kind;
        let accumulate = input_kind.is_accumulate();
        let other = side.other();
        let input_outer = self.conf(side).outer;
        let other_outer = self.conf(other).outer;
        let input_ttl = self.conf(side).ttl;
        let other_ttl = self.conf(other).ttl;
        let input_unique = self.conf(side).spec.unique_key().is_some();
        let view_name = self.conf(side).spec.flink_name();
        // JoinConditionWithNullFilters: a null equi-key field fails every match.
        let joins = !self.keyed || !plan.keys[key.0 as usize].value.is_null();
        let record = self.record_key(plan, side, row);
        let ks = self.keys.entry(key).or_default();
        let (input_view, other_view) = match side {
            Side::Left => (&mut ks.left, &mut ks.right),
            Side::Right => (&mut ks.right, &mut ks.left),
        };
        let sname = side_name(side);
        let mut rows = self.rows as isize;
        // The other side's records, as AbstractStreamingJoinOperator's iterator over
        // getRecords() / getRecordsAndNumOfAssociations() yields them. With state TTL the
        // iterator is TtlMapState's EntriesIterator (NeverReturnExpired): an expired entry is
        // skipped and removed through the map's iterator (the map itself stays).
        if other_ttl.is_some() {
            other_view.retain(|_, e| {
                if expired(other_ttl, e.written, now) {
                    rows -= e.rows.len() as isize;
                    trace_expired(cx, other, e.rows.clone(), e, other_ttl);
                    false
                } else {
                    true
                }
            });
        }
        let has_match = joins && !other_view.is_empty();
        // The input side's own record state: a view without a unique key reads the record's
        // entry first (TtlMapState.get: an expired entry is removed, and the map with it once
        // empty); a unique-key view puts / removes by unique key without reading.
        if !input_unique && input_ttl.is_some() {
            if let Some(e) = input_view.get(&record) {
                if expired(input_ttl, e.written, now) {
                    let e = e.clone();
                    input_view.remove(&record);
                    if input_view.is_empty() {
                        *input_view = JavaHashMap::new();
                    }
                    rows -= e.rows.len() as isize;
                    trace_expired(cx, side, e.rows.clone(), &e, input_ttl);
                }
            }
        }
        if accumulate {
            if input_outer {
                if !has_match {
                    Self::emit_padded(cx, side, row, RowKind::Insert);
                    rows += add_record(cx, input_view, input_unique, record, row, 0, now, sname);
                    cx.buffered(row, || {
                        format!("{sname} records, {view_name} (no match: 0 associations)")
                    });
                } else {
                    let mut n = 0i32;
                    for_each_match(other_view, |m, e| {
                        if other_outer {
                            if m.assoc == 0 {
                                Self::emit_padded(cx, other, m.row, RowKind::Delete);
                            }
                            // updateNumOfAssociations: a put, which refreshes the TTL.
                            e.assoc = m.assoc + 1;
                            e.written = now;
                        }
                        Self::emit(cx, side, row, m.row, RowKind::Insert);
                        n += 1;
                    });
                    rows += add_record(cx, input_view, input_unique, record, row, n, now, sname);
                    cx.buffered(row, || {
                        format!("{sname} records, {view_name} ({n} associations)")
                    });
                }
            } else {
                rows += add_record(cx, input_view, input_unique, record, row, -1, now, sname);
                cx.buffered(row, || format!("{sname} records, {view_name}"));
                if joins {
                    for_each_match(other_view, |m, e| {
                        if other_outer {
                            if m.assoc == 0 {
                                Self::emit_padded(cx, other, m.row, RowKind::Delete);
                            }
                            e.assoc = m.assoc + 1;
                            e.written = now;
                            Self::emit(cx, side, row, m.row, RowKind::Insert);
                        } else {
                            Self::emit(cx, side, row, m.row, input_kind);
                        }
                    });
                }
            }
        } else {
            let gone = retract_record(input_view, input_unique, &record, now);
            rows -= gone.is_some() as isize;
            if let Some(g) = gone {
                cx.cleared(
                    || vec![g],
                    || {
                        if input_unique {
                            format!(
                                "{sname} records, {view_name}: removed by unique key by {} line {}",
                                input_kind.short(),
                                r.line
                            )
                        } else {
                            format!(
                                "{sname} records: retracted by {} line {}",
                                input_kind.short(),
                                r.line
                            )
                        }
                    },
                );
            }
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
                for_each_match(other_view, |m, e| {
                    Self::emit(cx, side, row, m.row, kind);
                    if other_outer {
                        if m.assoc == 1 {
                            Self::emit_padded(cx, other, m.row, RowKind::Insert);
                        }
                        e.assoc = m.assoc - 1;
                        e.written = now;
                    }
                });
            }
        }
        self.rows = rows.max(0) as usize;
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
            for (side, view, conf) in [
                (Side::Left, &ks.left, &self.left),
                (Side::Right, &ks.right, &self.right),
            ] {
                for (_, e) in view.iter() {
                    let mut scope = if conf.outer {
                        format!("count {}, associations {}", e.rows.len(), e.assoc)
                    } else {
                        format!("count {}", e.rows.len())
                    };
                    if conf.spec != InputSideSpec::NoUniqueKey {
                        scope = format!("{}, {scope}", conf.spec.flink_name());
                    }
                    if let Some(t) = conf.ttl {
                        let at = e.written.saturating_add(t);
                        if at <= self.now {
                            scope.push_str(&format!(", expired at {at} (not yet removed)"));
                        } else {
                            scope.push_str(&format!(", expires at {at}"));
                        }
                    }
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

/// The state retention of each input in ms: `StreamExecJoin` takes a side's `STATE_TTL` hint,
/// else `table.exec.state.ttl`; `StateConfigUtil.createTtlConfig` disables TTL for a
/// retention <= 0. `None` = off.
pub fn side_ttls(plan: &Plan) -> [Option<i64>; 2] {
    let s = &plan.scenario.job.settings;
    let f = |h: Option<crate::time::Millis>| h.or(s.state_ttl).map(|m| m.0).filter(|&t| t > 0);
    [f(s.state_ttl_left), f(s.state_ttl_right)]
}

/// The primary key of input `i` as column indices (names resolved by `plan::build`).
pub fn primary_key_columns(plan: &Plan, i: usize) -> Vec<usize> {
    let (Some(stream), Some(schema)) = (plan.scenario.streams.get(i), plan.schemas.get(i)) else {
        return Vec::new();
    };
    stream
        .primary_key
        .iter()
        .filter_map(|n| schema.columns.iter().position(|c| c.name == n.trim()))
        .collect()
}

/// `addRecord(record)` / `addRecord(record, n)`. Without a unique key: `get` then `put` of
/// count + 1 (the association count is overwritten). With one: `put(uniqueKey, record)`, which
/// replaces the stored row of that unique key in place (its `HashMap` position kept). Every
/// write stamps the entry with the current processing time. Returns the change in stored rows.
#[allow(clippy::too_many_arguments)]
fn add_record(
    cx: &mut Ctx<'_, ()>,
    view: &mut View,
    unique: bool,
    key: RecordKey,
    row: RowId,
    assoc: i32,
    now: i64,
    sname: &str,
) -> isize {
    let e = view.get_or_insert_with(key, || Entry {
        rows: Vec::new(),
        assoc,
        written: now,
    });
    e.assoc = assoc;
    e.written = now;
    if unique {
        let old = std::mem::replace(&mut e.rows, vec![row]);
        if old.is_empty() {
            return 1;
        }
        let line = cx.plan.row(row).line;
        cx.cleared(
            || old,
            || {
                format!(
                    "{sname} records: replaced by the row with the same unique key (line {line})"
                )
            },
        );
        return 0;
    }
    e.rows.push(row);
    1
}

/// `retractRecord(record)`. Without a unique key: count − 1 (a `put`, stamping the entry), or
/// remove the entry (and drop the map once empty; an absent record is ignored). With one:
/// `remove(uniqueKey)`, whatever row is stored under that key. Returns the row that left state.
fn retract_record(view: &mut View, unique: bool, key: &RecordKey, now: i64) -> Option<RowId> {
    let e = view.get_mut(key)?;
    if !unique && e.rows.len() > 1 {
        e.written = now;
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
/// when the entry is reached), letting `f` rewrite that entry in between
/// (`updateNumOfAssociations` on a present record changes the value in place).
fn for_each_match(view: &mut View, mut f: impl FnMut(&Match, &mut Entry)) {
    view.for_each_mut(|_, e| {
        let captured = e.assoc;
        for i in 0..e.rows.len() {
            let m = Match {
                row: e.rows[i],
                assoc: captured,
            };
            f(&m, e);
        }
    });
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

    /// Flink's `StreamingJoinOperatorTestBase` tables: `orders(order_id, line_order_id,
    /// shipping_address)` ⋈ `line_orders(line_order_id0, line_order_ship_mode)` on the line
    /// order id, each with its join key as primary key (`JoinKeyContainsUniqueKey` on both
    /// sides), state retention left / right from the test's tags. `a=` is the harness's
    /// `setStateTtlProcessingTime`.
    fn orders(join: &str, ttl: Option<(&str, &str)>, left: &str, right: &str) -> RunResult {
        let mut job = json!({ "operator": "regular_join", "sql": { "join": join } });
        if let Some((l, r)) = ttl {
            job["settings"] = json!({ "state_ttl_left": l, "state_ttl_right": r });
        }
        let sc = json!({
            "version": 1,
            "job": job,
            "streams": [
                { "name": "orders", "columns": ["order_id", "line_order_id", "shipping_address"],
                  "key": "line_order_id", "primary_key": ["line_order_id"], "rows": left },
                { "name": "line_orders", "columns": ["line_order_id0", "line_order_ship_mode"],
                  "key": "line_order_id0", "primary_key": ["line_order_id0"], "rows": right }
            ]
        });
        crate::run_json(&sc.to_string(), false).expect("scenario runs")
    }

    const A1: &str = "3 Bellevue Drive";
    const A2: &str = "68 Manor Station Street";

    /// `StreamingJoinOperatorTest.testInnerJoinWithDifferentStateRetentionTime` (left 4000 ms,
    /// right 1000 ms).
    #[test]
    fn flink_inner_join_with_different_state_retention_time() {
        let left = format!("Ord#1, LineOrd#1, {A1} | a=1\nOrd#1, LineOrd#2, {A1} | a=1\n+U Ord#1, LineOrd#2, {A2} | a=3000");
        let right = "LineOrd#2, AIR | a=1\n+U LineOrd#2, SHIP | a=3000\nLineOrd#1, TRUCK | a=4001\n-D LineOrd#2, SHIP | a=4001\nLineOrd#2, RAIL | a=7000";
        let r = orders("inner", Some(("4000", "1000")), &left, right);
        assert_eq!(
            outputs(&r),
            [
                format!("+I[Ord#1,LineOrd#2,{A1}|LineOrd#2,AIR]"),
                format!("+U[Ord#1,LineOrd#2,{A2}|LineOrd#2,SHIP]"),
                format!("-D[Ord#1,LineOrd#2,{A2}|LineOrd#2,SHIP]"),
            ]
        );
        // testInnerJoinWithStateRetentionDisabled: the same input without TTL.
        let r = orders("inner", None, &left, right);
        assert_eq!(
            outputs(&r),
            [
                format!("+I[Ord#1,LineOrd#2,{A1}|LineOrd#2,AIR]"),
                format!("+U[Ord#1,LineOrd#2,{A2}|LineOrd#2,AIR]"),
                format!("+U[Ord#1,LineOrd#2,{A2}|LineOrd#2,SHIP]"),
                format!("+I[Ord#1,LineOrd#1,{A1}|LineOrd#1,TRUCK]"),
                format!("-D[Ord#1,LineOrd#2,{A2}|LineOrd#2,SHIP]"),
                format!("+I[Ord#1,LineOrd#2,{A2}|LineOrd#2,RAIL]"),
            ]
        );
    }

    /// `testInnerJoinWithSameStateRetentionTime`: a write at 4000 extends the row to 8000;
    /// expired means `written + ttl <= now`.
    #[test]
    fn flink_inner_join_with_same_state_retention_time() {
        let left = format!("Ord#1, LineOrd#1, {A1} | a=1\nOrd#1, LineOrd#2, {A1} | a=1\n+U Ord#1, LineOrd#2, {A2} | a=4000");
        let right = "LineOrd#2, AIR | a=1\nLineOrd#1, TRUCK | a=4001\n+U LineOrd#2, TRUCK | a=7999\n+U LineOrd#2, RAIL | a=8000";
        let r = orders("inner", Some(("4000", "4000")), &left, right);
        assert_eq!(
            outputs(&r),
            [
                format!("+I[Ord#1,LineOrd#2,{A1}|LineOrd#2,AIR]"),
                format!("+U[Ord#1,LineOrd#2,{A2}|LineOrd#2,AIR]"),
                format!("+U[Ord#1,LineOrd#2,{A2}|LineOrd#2,TRUCK]"),
            ]
        );
    }

    /// `testLeftOuterJoinWithDifferentStateRetentionTime`.
    #[test]
    fn flink_left_outer_join_with_different_state_retention_time() {
        let left = format!("Ord#1, LineOrd#1, {A1} | a=1\nOrd#1, LineOrd#2, {A1} | a=1\n+U Ord#1, LineOrd#2, {A2} | a=3000");
        let right = "LineOrd#2, AIR | a=1\n+U LineOrd#2, SHIP | a=3000\nLineOrd#1, TRUCK | a=4001\n-D LineOrd#2, SHIP | a=4001\nLineOrd#2, RAIL | a=8001";
        let r = orders("left", Some(("4000", "1000")), &left, right);
        assert_eq!(
            outputs(&r),
            [
                format!("+I[Ord#1,LineOrd#1,{A1}|null]"),
                format!("+I[Ord#1,LineOrd#2,{A1}|null]"),
                format!("-D[Ord#1,LineOrd#2,{A1}|null]"),
                format!("+I[Ord#1,LineOrd#2,{A1}|LineOrd#2,AIR]"),
                format!("+I[Ord#1,LineOrd#2,{A2}|null]"),
                format!("-D[Ord#1,LineOrd#2,{A2}|null]"),
                format!("+I[Ord#1,LineOrd#2,{A2}|LineOrd#2,SHIP]"),
                format!("-D[Ord#1,LineOrd#2,{A2}|LineOrd#2,SHIP]"),
                format!("+I[Ord#1,LineOrd#2,{A2}|null]"),
            ]
        );
    }

    /// `testRightOuterJoinWithDifferentStateRetentionTime`: `updateNumOfAssociations` is a write
    /// and refreshes the right row's TTL.
    #[test]
    fn flink_right_outer_join_with_different_state_retention_time() {
        let left = format!("Ord#1, LineOrd#1, {A1} | a=1\nOrd#1, LineOrd#2, {A1} | a=1\n+U Ord#1, LineOrd#2, {A2} | a=5001\n+U Ord#1, LineOrd#1, 3 North Winchester Drive | a=6000\n-D Ord#1, LineOrd#1, 3 North Winchester Drive | a=7000");
        let right = "LineOrd#2, AIR | a=4001\nLineOrd#1, TRUCK | a=4001\n+U LineOrd#2, SHIP | a=5001\n+U LineOrd#1, RAIL | a=5001";
        let r = orders("right", Some(("4000", "1000")), &left, right);
        assert_eq!(
            outputs(&r),
            [
                "+I[null|LineOrd#2,AIR]".to_string(),
                "+I[null|LineOrd#1,TRUCK]".to_string(),
                format!("+I[Ord#1,LineOrd#2,{A2}|LineOrd#2,SHIP]"),
                "+I[null|LineOrd#1,RAIL]".to_string(),
                "-D[null|LineOrd#1,RAIL]".to_string(),
                "+I[Ord#1,LineOrd#1,3 North Winchester Drive|LineOrd#1,RAIL]".to_string(),
            ]
        );
    }

    /// 2.3.0's `StreamingJoinOperator` has no special case for unique keys: a bare `+U` on the
    /// inner side of a LEFT join replaces the stored row but still raises the left row's
    /// association count, so deleting the row afterwards does not pad the left row again
    /// (the padding comes back only in later Flink versions).
    #[test]
    fn bare_update_after_on_the_inner_side_keeps_the_association() {
        let r = orders(
            "left",
            None,
            &format!("Ord#1, LineOrd#1, {A1} | a=1"),
            "LineOrd#1, AIR | a=2\n+U LineOrd#1, SHIP | a=3\n-D LineOrd#1, SHIP | a=4",
        );
        assert_eq!(
            outputs(&r),
            [
                format!("+I[Ord#1,LineOrd#1,{A1}|null]"),
                format!("-D[Ord#1,LineOrd#1,{A1}|null]"),
                format!("+I[Ord#1,LineOrd#1,{A1}|LineOrd#1,AIR]"),
                format!("+I[Ord#1,LineOrd#1,{A1}|LineOrd#1,SHIP]"),
                format!("-D[Ord#1,LineOrd#1,{A1}|LineOrd#1,SHIP]"),
            ]
        );
    }

    fn keyed(pk: &[&str], left: &str, right: &str) -> RunResult {
        let sc = json!({
            "version": 1,
            "job": { "operator": "regular_join", "sql": { "join": "inner" } },
            "streams": [
                { "name": "l", "columns": ["id:int", "k:int", "v"], "key": "k",
                  "primary_key": pk, "rows": left },
                { "name": "r", "columns": ["k:int", "w"], "key": "k", "rows": right }
            ]
        });
        crate::run_json(&sc.to_string(), false).expect("scenario runs")
    }

    #[test]
    fn analyze_join_input_picks_the_view() {
        use super::InputSideSpec as S;
        assert_eq!(S::analyze(&[], Some(0)), S::NoUniqueKey);
        assert_eq!(
            S::analyze(&[0], Some(0)),
            S::JoinKeyContainsUniqueKey(vec![0])
        );
        assert_eq!(S::analyze(&[2, 0], Some(1)), S::UniqueKey(vec![0, 2]));
        assert_eq!(S::analyze(&[0], None), S::UniqueKey(vec![0]));
    }

    /// A primary key not contained in the join key (`InputSideHasUniqueKey`): an upsert
    /// replaces the row stored under its id, so a later right row joins the latest version
    /// only; without the key both versions stay in state and both join.
    #[test]
    fn upserts_replace_rows_with_a_unique_key() {
        let left = "1, 10, a | a=1\n+U 1, 10, b | a=2\n2, 10, c | a=3";
        let right = "10, x | a=4";
        let with = keyed(&["id"], left, right);
        let mut got = outputs(&with);
        got.sort();
        assert_eq!(got, ["+I[1,10,b|10,x]", "+I[2,10,c|10,x]"]);
        let without = keyed(&[], left, right);
        let mut got = outputs(&without);
        got.sort();
        assert_eq!(
            got,
            ["+I[1,10,a|10,x]", "+I[1,10,b|10,x]", "+I[2,10,c|10,x]"]
        );
        // A retraction removes whatever row is stored under the id, even with other values.
        let r = keyed(
            &["id"],
            "1, 10, a | a=1\n-D 1, 10, zzz | a=2",
            "10, x | a=3",
        );
        assert!(r.outputs.is_empty());
        let r = keyed(&[], "1, 10, a | a=1\n-D 1, 10, zzz | a=2", "10, x | a=3");
        assert_eq!(outputs(&r), ["+I[1,10,a|10,x]"]);
    }

    #[test]
    fn primary_key_errors_say_where() {
        let e = crate::run_json(
            &json!({"job": {"operator": "regular_join"}, "streams": [
                {"name": "l", "columns": ["id", "k"], "key": "k", "primary_key": ["nope"], "rows": "1, 2"},
                {"name": "r", "columns": ["k"], "key": "k", "rows": "2"}]})
            .to_string(),
            false,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("streams[0].primary_key[0]"), "{e}");
        let e = crate::run_json(
            &json!({"job": {"operator": "regular_join"}, "streams": [
                {"name": "l", "columns": ["id", "k"], "key": "k", "primary_key": ["id"], "rows": "1, 2\nnull, 2"},
                {"name": "r", "columns": ["k"], "key": "k", "rows": "2"}]})
            .to_string(),
            false,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("line 2") && e.contains("NULL"), "{e}");
    }

    /// Without a unique key an identical record re-added after its entry expired starts again
    /// at count 1 (`TtlMapState.get` removed the expired entry first).
    #[test]
    fn ttl_expired_duplicates_start_a_new_count() {
        let sc = json!({
            "version": 1,
            "job": { "operator": "regular_join", "settings": { "state_ttl": "1s" } },
            "streams": [
                { "name": "l", "columns": ["id:int", "v"], "key": "id", "rows": "1, a | a=0\n1, a | a=1500\n1, a | a=1600" },
                { "name": "r", "columns": ["id:int", "w"], "key": "id", "rows": "1, x | a=1700\n1, y | a=2550" }
            ]
        });
        let r = crate::run_json(&sc.to_string(), false).unwrap();
        // At 1700: count 2 (the first copy expired at 1000). At 2550: the entry was written at
        // 1600, so it expired at 2600 > 2550: still there.
        assert_eq!(
            outputs(&r),
            ["+I[1,a|1,x]", "+I[1,a|1,x]", "+I[1,a|1,y]", "+I[1,a|1,y]"]
        );
    }

    /// The gallery's TTL pitfall: the expired order is traced as leaving state, and both rows'
    /// verdicts name the state TTL.
    #[test]
    fn ttl_loss_is_traced_and_explained() {
        let path = format!(
            "{}/../scenarios/sql-regular-state-ttl-lost-match.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(path).unwrap();
        let r = crate::run_json(&text, true).unwrap();
        let json = serde_json::to_string(&r).unwrap();
        assert!(json.contains("left records: expired (state TTL 2000 ms: last written at processing time 500, expired at 2500, now 3000)"), "{json}");
        let verdicts = r.verdicts.clone().unwrap_or_default();
        let v: Vec<&str> = verdicts.iter().map(|v| v.message.as_str()).collect();
        assert!(v[1].starts_with("padded with nulls: state TTL:"), "{v:?}");
        assert!(
            v[3].contains("orders:2 (arrived at processing time 500, expired at 2500"),
            "{v:?}"
        );
    }
}
