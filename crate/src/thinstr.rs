//! [`ThinStr`]: an immutable string in one 8-byte word.
//!
//! Every row of a plan holds its values, and a million-row plan holds millions of them. A
//! `String` (or `Box<str>`) is two or three words, which makes every [`Value`](crate::value::Value)
//! three words natively; in one word (a string of up to 7 bytes in the word itself, a longer one
//! behind a pointer with its length and capacity stored in the heap block, in front of the bytes:
//! `thin_vec::ThinVec`) a value is two words, whatever its type.
//!
//! The short form matters as much as the word: the keys and labels people type (`k7`, `EUR`,
//! `click`) are short, and a string of up to 7 bytes then costs no allocation, so reading a
//! million rows with a string key makes no million heap blocks (each at least 32 bytes with
//! glibc) and frees none when the rows go.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::mem::ManuallyDrop;
use std::ops::Deref;
use thin_vec::ThinVec;

/// The longest string kept in the word itself.
const INLINE_MAX: usize = 7;

// The tag is the lowest bit of the word's first byte in memory, which is the lowest bit of the
// heap pointer only on a little-endian target (x86-64, aarch64, wasm32).
const _: () = assert!(
    cfg!(target_endian = "little"),
    "ThinStr tells its two forms apart by the pointer's lowest bit, in its first byte"
);

/// The word: either a `ThinVec` (a pointer to its header, aligned, so its lowest bit is 0), or
/// `[1 | len << 1, bytes…]` with the string's up to 7 bytes after the tag byte.
#[repr(C, align(8))]
union Repr {
    heap: ManuallyDrop<ThinVec<u8>>,
    inline: [u8; 8],
}

/// An immutable UTF-8 string in one 8-byte word. Reads as a `str` (it dereferences to one);
/// hashes, compares and prints exactly as that `str` does.
pub struct ThinStr(Repr);

// The union's heap form is a `ThinVec<u8>`, which is `Send` and `Sync`; the inline form is bytes.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<ThinStr>();
};

impl ThinStr {
    /// Whether the string is in the word itself. Reads only the first byte, which both forms
    /// initialise (the heap form is written over a zeroed word).
    #[inline]
    fn is_inline(&self) -> bool {
        // SAFETY: every byte of the word is initialised (see `heap` and `inline`).
        unsafe { self.0.inline[0] & 1 == 1 }
    }

    /// A string of at most [`INLINE_MAX`] bytes, in the word.
    #[inline]
    fn inline(s: &str) -> ThinStr {
        debug_assert!(s.len() <= INLINE_MAX);
        let mut w = [0u8; 8];
        w[0] = 1 | (s.len() as u8) << 1;
        w[1..1 + s.len()].copy_from_slice(s.as_bytes());
        ThinStr(Repr { inline: w })
    }

    /// A longer string, behind the pointer.
    fn heap(v: ThinVec<u8>) -> ThinStr {
        // Zero the whole word first: on a 32-bit target the pointer fills half of it, and
        // `is_inline` and `inline` read bytes of the word whatever the form.
        let mut r = Repr { inline: [0; 8] };
        r.heap = ManuallyDrop::new(v);
        ThinStr(r)
    }

    /// The string.
    #[inline]
    pub fn as_str(&self) -> &str {
        // SAFETY: the form is the one `is_inline` tells; the bytes of either form were copied
        // from a `&str` (`From<&str>`) and are never changed, so they are UTF-8; an inline
        // length is at most 7, within the word.
        unsafe {
            let bytes: &[u8] = if self.is_inline() {
                let len = (self.0.inline[0] >> 1) as usize;
                self.0.inline.get_unchecked(1..1 + len)
            } else {
                &self.0.heap
            };
            std::str::from_utf8_unchecked(bytes)
        }
    }
}

impl Drop for ThinStr {
    fn drop(&mut self) {
        if !self.is_inline() {
            // SAFETY: the heap form holds a live `ThinVec`, dropped once, here.
            unsafe { ManuallyDrop::drop(&mut self.0.heap) }
        }
    }
}

impl Clone for ThinStr {
    fn clone(&self) -> ThinStr {
        if self.is_inline() {
            // SAFETY: the inline form is plain bytes.
            ThinStr(Repr {
                inline: unsafe { self.0.inline },
            })
        } else {
            // SAFETY: the heap form holds a live `ThinVec`.
            ThinStr::heap(unsafe { (*self.0.heap).clone() })
        }
    }
}

impl Default for ThinStr {
    fn default() -> ThinStr {
        ThinStr::inline("")
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
        if s.len() <= INLINE_MAX {
            return ThinStr::inline(s);
        }
        // One copy of the bytes (`extend_from_slice` would push them one by one).
        let mut v: ThinVec<u8> = ThinVec::with_capacity(s.len());
        // SAFETY: the capacity is at least `s.len()`, the regions are distinct, and the
        // length is set to the bytes just written.
        unsafe {
            std::ptr::copy_nonoverlapping(s.as_ptr(), v.as_mut_ptr(), s.len());
            v.set_len(s.len());
        }
        ThinStr::heap(v)
    }
}

impl From<String> for ThinStr {
    fn from(s: String) -> ThinStr {
        ThinStr::from(s.as_str())
    }
}

impl PartialEq for ThinStr {
    fn eq(&self, other: &ThinStr) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for ThinStr {}

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
    use super::{ThinStr, INLINE_MAX};
    use std::collections::hash_map::DefaultHasher;
    use std::hash::{Hash, Hasher};

    fn hash_of<T: Hash + ?Sized>(t: &T) -> u64 {
        let mut h = DefaultHasher::new();
        t.hash(&mut h);
        h.finish()
    }

    #[test]
    fn reads_hashes_orders_and_prints_as_its_str() {
        assert_eq!(std::mem::size_of::<ThinStr>(), 8);
        let long = "x".repeat(1000);
        // Both sides of the inline limit (7 bytes), in ASCII and in multi-byte characters.
        let words = [
            "",
            "a",
            "ab",
            "b",
            "é",
            "日本",
            "a\u{0}b",
            "zz",
            "abcdefg",
            "abcdefgh",
            "日本x",
            "日本語",
            "1234567",
            "12345678",
            &long,
        ];
        for a in words {
            let t = ThinStr::from(a);
            assert_eq!(t.is_inline(), a.len() <= INLINE_MAX, "{a:?}");
            assert_eq!(&*t, a);
            assert_eq!(t.len(), a.len());
            assert_eq!(hash_of(&t), hash_of(a));
            assert_eq!(format!("{t}"), a.to_string());
            assert_eq!(format!("{t:?}"), format!("{a:?}"));
            let c = t.clone();
            assert_eq!(c, t);
            assert_eq!(&*c, a);
            drop(t);
            assert_eq!(&*c, a, "a clone outlives its original");
            for b in words {
                let u = ThinStr::from(b.to_string());
                assert_eq!(c.cmp(&u), a.cmp(b), "{a:?} vs {b:?}");
                assert_eq!(c == u, a == b);
            }
        }
        assert_eq!(&*ThinStr::default(), "");
    }
}
