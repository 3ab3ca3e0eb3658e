//! Key values to key ids while the plan is built ([`KeyIndex`]), and the shown value of a
//! composite key.

use super::KeyId;
use crate::fasthash::FxHashMap;
use crate::value::Value;

/// The key value of a composite key, shown as a tuple: `(a, 1, null)` (strings quoted when
/// that keeps two tuples apart).
pub(super) fn composite_key(values: &[Value]) -> Value {
    let parts: Vec<String> = values
        .iter()
        .map(|v| match v {
            Value::Str(s) => serde_json::to_string(s).unwrap_or_default(),
            other => other.to_string(),
        })
        .collect();
    Value::Str(format!("({})", parts.join(", ")).into())
}

/// Key values to their ids: small non-negative INT and BIGINT keys (the common case) by
/// position in a table, any other value by hash. The ids are the same either way.
#[derive(Default)]
pub(super) struct KeyIndex {
    map: FxHashMap<Value, KeyId>,
    /// `KeyId + 1` of `Value::Int(i)` at `i` (0: none yet).
    ints: Vec<u32>,
    /// The same for `Value::Long`.
    longs: Vec<u32>,
}

/// Keys below this are looked up by position (a table of at most 256 KB per type).
const SMALL_KEYS: u64 = 1 << 16;

impl KeyIndex {
    /// The table and slot of a small integer key.
    #[inline]
    fn slot(&mut self, v: &Value) -> Option<(&mut Vec<u32>, usize)> {
        let (table, n) = match *v {
            Value::Int(n) => (&mut self.ints, n as i64),
            Value::Long(n) => (&mut self.longs, n),
            _ => return None,
        };
        u64::try_from(n)
            .ok()
            .filter(|&n| n < SMALL_KEYS)
            .map(|n| (table, n as usize))
    }

    #[inline]
    pub(super) fn get(&mut self, v: &Value) -> Option<KeyId> {
        match self.slot(v) {
            Some((table, i)) => match table.get(i) {
                Some(&id) if id > 0 => Some(KeyId(id - 1)),
                _ => None,
            },
            None => self.map.get(v).copied(),
        }
    }

    pub(super) fn insert(&mut self, v: &Value, id: KeyId) {
        match self.slot(v) {
            Some((table, i)) => {
                if table.len() <= i {
                    table.resize(i + 1, 0);
                }
                table[i] = id.0 + 1;
            }
            None => {
                self.map.insert(v.clone(), id);
            }
        }
    }
}
