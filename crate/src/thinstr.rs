//! [`ThinStr`]: an immutable string behind one pointer.
//!
//! Every row of a plan holds its values, and a million-row plan holds millions of them. A
//! `String` (or `Box<str>`) is two or three words, which makes every [`Value`](crate::value::Value)
//! three words natively; behind a single pointer (its length and capacity stored in the heap
//! block, in front of the bytes: `thin_vec::ThinVec`) a value is two words, whatever its type.
//! The empty string allocates nothing.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use thin_vec::ThinVec;

/// An immutable UTF-8 string stored behind one pointer. Reads as a `str` (it dereferences to
/// one); hashes, compares and prints exactly as that `str` does.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ThinStr(ThinVec<u8>);

impl ThinStr {
    /// The string.
    pub fn as_str(&self) -> &str {
        // SAFETY: the bytes are only ever set from a `&str` (`From<&str>`) and never changed.
        unsafe { std::str::from_utf8_unchecked(&self.0) }
    }
}

impl Deref for ThinStr {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for ThinStr {
    fn from(s: &str) -> ThinStr {
        if s.is_empty() {
            return ThinStr(ThinVec::new());
        }
        // One copy of the bytes (`extend_from_slice` would push them one by one).
        let mut v: ThinVec<u8> = ThinVec::with_capacity(s.len());
        // SAFETY: the capacity is at least `s.len()`, the regions are distinct, and the
        // length is set to the bytes just written.
        unsafe {
            std::ptr::copy_nonoverlapping(s.as_ptr(), v.as_mut_ptr(), s.len());
            v.set_len(s.len());
        }
        ThinStr(v)
    }
}

impl From<String> for ThinStr {
    fn from(s: String) -> ThinStr {
        ThinStr::from(s.as_str())
    }
}

/// As `str` hashes.
impl Hash for ThinStr {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl PartialOrd for ThinStr {
    fn partial_cmp(&self, other: &ThinStr) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ThinStr {
    fn cmp(&self, other: &ThinStr) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

/// As a JSON string, like `str`.
impl serde::Serialize for ThinStr {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl fmt::Debug for ThinStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for ThinStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::ThinStr;
    use std::collections::hash_map::DefaultHasher;
    use std::hash::{Hash, Hasher};

    fn hash_of<T: Hash + ?Sized>(t: &T) -> u64 {
        let mut h = DefaultHasher::new();
        t.hash(&mut h);
        h.finish()
    }

    #[test]
    fn reads_hashes_orders_and_prints_as_its_str() {
        assert_eq!(std::mem::size_of::<ThinStr>(), std::mem::size_of::<usize>());
        let long = "x".repeat(1000);
        let words = ["", "a", "ab", "b", "é", "日本", "a\u{0}b", "zz", &long];
        for a in words {
            let t = ThinStr::from(a);
            assert_eq!(&*t, a);
            assert_eq!(t.len(), a.len());
            assert_eq!(hash_of(&t), hash_of(a));
            assert_eq!(format!("{t}"), a.to_string());
            assert_eq!(format!("{t:?}"), format!("{a:?}"));
            assert_eq!(t.clone(), t);
            for b in words {
                let u = ThinStr::from(b.to_string());
                assert_eq!(t.cmp(&u), a.cmp(b), "{a:?} vs {b:?}");
                assert_eq!(t == u, a == b);
            }
        }
    }
}
