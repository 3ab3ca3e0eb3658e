//! A small, fast hasher (the Fx hash of rustc) for the engine's own lookup maps: keyed state
//! by `KeyId`, timer de-duplication. Their iteration order never reaches the output — where
//! Flink's order matters, [`crate::javamap`] is used instead.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

impl FxHasher {
    #[inline]
    fn add(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// A byte string (a string key, hashed for every row that has one) is read in one or two
/// loads per 8 bytes, not copied into a word a byte at a time.
impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, b: &[u8]) {
        let n = b.len();
        let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or_default());
        let half = |i: usize| {
            u64::from(u32::from_le_bytes(
                b[i..i + 4].try_into().unwrap_or_default(),
            ))
        };
        if n >= 8 {
            let mut i = 0;
            while i + 8 <= n {
                self.add(word(i));
                i += 8;
            }
            if i < n {
                // The last 8 bytes, overlapping the word before.
                self.add(word(n - 8));
            }
        } else if n >= 4 {
            // The first and the last 4 bytes (overlapping below 8), and the length.
            self.add(half(0) | half(n - 4) << 32 ^ (n as u64) << 59);
        } else if n > 0 {
            self.add(
                u64::from(b[0])
                    | u64::from(b[n / 2]) << 8
                    | u64::from(b[n - 1]) << 16
                    | (n as u64) << 24,
            );
        }
    }
    #[inline]
    fn write_u8(&mut self, v: u8) {
        self.add(v as u64);
    }
    #[inline]
    fn write_u32(&mut self, v: u32) {
        self.add(v as u64);
    }
    #[inline]
    fn write_i64(&mut self, v: i64) {
        self.add(v as u64);
    }
    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.add(v);
    }
    #[inline]
    fn write_usize(&mut self, v: usize) {
        self.add(v as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

pub type FxBuild = BuildHasherDefault<FxHasher>;
pub type FxHashMap<K, V> = HashMap<K, V, FxBuild>;
pub type FxHashSet<K> = HashSet<K, FxBuild>;
