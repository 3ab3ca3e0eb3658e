//! `GROUPING SETS` / `ROLLUP` / `CUBE` of a window aggregation: the planner's `Expand`.
//!
//! What Flink 2.3.0 plans (checked with `EXPLAIN` on Flink 2.3.0, and the planner's
//! `ExpandUtil.buildExpandNode` / `genExpandId`):
//!
//! - An `Expand` node before the `LocalWindowAggregate` (chained to the assigner subtask)
//!   copies each row once per grouping set: the grouping columns outside the set are `null`,
//!   and a `BIGINT` column `$e` (the expand id) is appended. `genExpandId(fullGroupSet,
//!   groupSet)` sets, for the i-th grouping column (in the aggregate's key order), the bit
//!   `1 << (n - 1 - i)` when the set does *not* hold that column: the full set is 0, the
//!   empty set `2^n - 1`.
//! - The copies come out in the order of the aggregate's `groupSets`, which Calcite keeps
//!   sorted (`ImmutableBitSet` order): that is ascending `$e` (every `EXPLAIN` we ran agrees,
//!   whatever order the query wrote the sets in).
//! - The aggregate is keyed, and the exchange hashed, by the grouping columns *and* `$e`
//!   (`groupBy=[k, item, $e]`, `Exchange(distribution=[hash[k, item, $e]])`): each copy is
//!   routed by the `BinaryRowData` of those values (the nulls included).
//! - The grouping columns are in order of first appearance in the `GROUP BY` clause.
//! - Aggregate arguments keep their values: a grouping column that an aggregate reads is
//!   duplicated by `Expand` before it is nulled (`k AS k_0`).
//! - One grouping set is a plain `GROUP BY` (no `Expand`); two equal sets make Flink plan a
//!   `Union` of two aggregations (not simulated).

use crate::plan::KeyId;
use crate::value::Value;

/// One grouping set, as a copy the `Expand` makes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupingSet {
    /// `$e` of this set's copies.
    pub expand_id: i64,
    /// For each grouping column (in key order), whether this set keeps it.
    pub kept: Vec<bool>,
}

/// The expansion of a window aggregation with two or more grouping sets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Expand {
    /// The sets in the order `Expand` emits the copies (ascending `$e`).
    pub sets: Vec<GroupingSet>,
    /// The key of each copy: row `r`'s copies are `keys[r * sets.len() ..][.. sets.len()]`.
    pub keys: Vec<KeyId>,
    /// For each key of the plan, the index in `sets` of the set it belongs to.
    pub set_of_key: Vec<u16>,
}

impl Expand {
    /// The key of copy `copy` of row number `row`.
    pub fn key(&self, row: usize, copy: usize) -> KeyId {
        self.keys[row * self.sets.len() + copy]
    }

    /// The set of a key.
    pub fn set(&self, key: KeyId) -> &GroupingSet {
        &self.sets[self.set_of_key[key.0 as usize] as usize]
    }
}

/// The most grouping sets one aggregation may have (a `CUBE` over 8 columns).
pub const MAX_SETS: usize = 256;

/// The most copies (rows × sets) one run may make: 80 MB of keys.
pub const MAX_COPIES: usize = 20_000_000;

/// `ExpandUtil.genExpandId`.
pub fn expand_id(kept: &[bool]) -> i64 {
    let n = kept.len();
    kept.iter()
        .enumerate()
        .filter(|(_, k)| !**k)
        .fold(0i64, |v, (i, _)| v | (1i64 << (n - 1 - i)))
}

/// The columns of the sets in order of first appearance (the aggregate's key order).
pub fn keys_of(sets: &[Vec<String>]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for s in sets {
        for c in s {
            if !keys.contains(c) {
                keys.push(c.clone());
            }
        }
    }
    keys
}

/// Checks the grouping sets against the `GROUP BY` keys and orders them as `Expand` does.
/// `Ok(None)`: one set, a plain `GROUP BY`. Errors are `(field, message)`.
pub fn sets(keys: &[String], sets: &[Vec<String>]) -> Result<Option<Vec<GroupingSet>>, String> {
    if sets.is_empty() {
        return Err("GROUPING SETS needs at least one set (`()` is the empty set)".into());
    }
    if sets.len() > MAX_SETS {
        return Err(format!(
            "{} grouping sets; this playground allows {MAX_SETS}",
            sets.len()
        ));
    }
    let first = keys_of(sets);
    if first != keys {
        return Err(format!(
            "the keys must be the sets' columns in order of first appearance (Flink's key order): [{}]",
            first.join(", ")
        ));
    }
    if keys.len() > 62 {
        return Err("more than 62 grouping columns".into());
    }
    let mut out: Vec<GroupingSet> = Vec::new();
    for (i, s) in sets.iter().enumerate() {
        for (j, c) in s.iter().enumerate() {
            if s[..j].contains(c) {
                return Err(format!("set {}: column {c:?} appears twice", i + 1));
            }
        }
        let kept: Vec<bool> = keys.iter().map(|k| s.contains(k)).collect();
        let expand_id = expand_id(&kept);
        if out.iter().any(|g| g.expand_id == expand_id) {
            return Err(format!(
                "set {} is written twice; Flink then plans a Union of two aggregations (not simulated)",
                i + 1
            ));
        }
        out.push(GroupingSet { expand_id, kept });
    }
    if out.len() == 1 {
        return Ok(None);
    }
    out.sort_by_key(|g| g.expand_id);
    Ok(Some(out))
}

/// The grouping values of one copy: the columns the set does not keep are null, then `$e`
/// (a `BIGINT`), as the key row the exchange hashes.
pub fn copy_key(values: &[Value], set: &GroupingSet) -> Vec<Value> {
    let mut k: Vec<Value> = values
        .iter()
        .zip(&set.kept)
        .map(|(v, &kept)| if kept { v.clone() } else { Value::Null })
        .collect();
    k.push(Value::Long(set.expand_id));
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&[&str]]) -> Vec<Vec<String>> {
        v.iter()
            .map(|x| x.iter().map(|c| c.to_string()).collect())
            .collect()
    }

    /// The `$e` values and order of the `Expand` nodes Flink 2.3.0's `EXPLAIN` printed.
    #[test]
    fn expand_ids_and_order_are_flinks() {
        let keys = |v: &[&str]| v.iter().map(|c| c.to_string()).collect::<Vec<_>>();
        // GROUPING SETS ((item), (k), (k, item), ()) → groupBy [item, k, $e], $e 0, 1, 2, 3.
        let g = sets(
            &keys(&["item", "k"]),
            &s(&[&["item"], &["k"], &["k", "item"], &[]]),
        )
        .unwrap()
        .unwrap();
        let e: Vec<i64> = g.iter().map(|x| x.expand_id).collect();
        assert_eq!(e, [0, 1, 2, 3]);
        assert_eq!(g[1].kept, [true, false]);
        // GROUPING SETS ((n), (k, n), (item)) → groupBy [n, k, item]; copies $e 1, 3, 6.
        let g = sets(
            &keys(&["n", "k", "item"]),
            &s(&[&["n"], &["k", "n"], &["item"]]),
        )
        .unwrap()
        .unwrap();
        let e: Vec<i64> = g.iter().map(|x| x.expand_id).collect();
        assert_eq!(e, [1, 3, 6]);
        // One set: a plain GROUP BY.
        assert_eq!(sets(&keys(&["k"]), &s(&[&["k"]])).unwrap(), None);
        // Duplicates and a key order that is not the first appearance are refused.
        assert!(sets(&keys(&["k"]), &s(&[&["k"], &["k"], &[]])).is_err());
        assert!(sets(&keys(&["k", "item"]), &s(&[&["item"], &["k"]])).is_err());
    }

    #[test]
    fn copy_key_nulls_the_other_columns_and_appends_the_expand_id() {
        let set = GroupingSet {
            expand_id: 1,
            kept: vec![true, false],
        };
        let k = copy_key(&[Value::Str("a".into()), Value::Int(3)], &set);
        assert_eq!(k, [Value::Str("a".into()), Value::Null, Value::Long(1)]);
    }
}
