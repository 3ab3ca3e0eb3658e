//! keyBy routing exactly as Flink does it: key hash → key group → subtask.
//!
//! Mirrors `org.apache.flink.runtime.state.KeyGroupRangeAssignment` (flink-runtime),
//! `org.apache.flink.util.MathUtils#murmurHash` / `#roundUpToPowerOfTwo` (flink-core) and the
//! channel selection of `org.apache.flink.streaming.runtime.partitioner.KeyGroupStreamPartitioner`
//! (`assignKeyToParallelOperator(key, maxParallelism, numberOfChannels)`), Flink 2.3.0.
//!
//! The key's hash code is the Java `hashCode()` of the key object (see [`crate::javahash`]):
//! `String.hashCode` for DataStream string keys, `BinaryRowData.hashCode` for SQL keys.

use serde::Serialize;

/// A key group id in `0..maxParallelism` (Flink's `int keyGroup`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(transparent)]
pub struct KeyGroup(pub u32);

/// A subtask (operator instance / output channel) index in `0..parallelism`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(transparent)]
pub struct SubtaskIndex(pub u32);

/// `KeyGroupRangeAssignment.DEFAULT_LOWER_BOUND_MAX_PARALLELISM` (128).
pub const DEFAULT_LOWER_BOUND_MAX_PARALLELISM: u32 = 1 << 7;

/// `KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM` (32768).
pub const UPPER_BOUND_MAX_PARALLELISM: u32 = 1 << 15;

/// `MathUtils.murmurHash(int code)`: one round of 32-bit Murmur3 (seed 0, length 4) over the
/// hash code, made non-negative (`h >= 0 ? h : -h`, and `Integer.MIN_VALUE` maps to 0).
pub fn murmur_hash(code: i32) -> i32 {
    let mut h = code;
    h = h.wrapping_mul(0xcc9e_2d51_u32 as i32);
    h = h.rotate_left(15);
    h = h.wrapping_mul(0x1b87_3593);
    h = h.rotate_left(13);
    h = h.wrapping_mul(5).wrapping_add(0xe654_6b64_u32 as i32);
    h ^= 4;
    h = fmix32(h);
    if h >= 0 {
        h
    } else if h != i32::MIN {
        -h
    } else {
        0
    }
}

/// Murmur3's 32-bit finaliser (`MathUtils.fmix` / `MurmurHashUtils.fmix(int)`), with Java's
/// unsigned shifts (`>>>`).
pub(crate) fn fmix32(h: i32) -> i32 {
    let mut h = h as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h as i32
}

/// `MathUtils.roundUpToPowerOfTwo(int x)` for the non-negative inputs Flink uses (0 maps to 0).
fn round_up_to_power_of_two(x: u32) -> u32 {
    let mut x = x.wrapping_sub(1);
    x |= x >> 1;
    x |= x >> 2;
    x |= x >> 4;
    x |= x >> 8;
    x |= x >> 16;
    x.wrapping_add(1)
}

/// `KeyGroupRangeAssignment.computeDefaultMaxParallelism(parallelism)`: the max parallelism the
/// scheduler gives a vertex when `pipeline.max-parallelism` is not set:
/// `min(max(roundUpToPowerOfTwo(p + p/2), 128), 32768)`.
///
/// Flink rejects `parallelism` outside `1..=32768` (`checkParallelismPreconditions`); this
/// function just evaluates the formula (0 gives 128, anything above the bound gives 32768).
pub fn default_max_parallelism(parallelism: u32) -> u32 {
    let p = parallelism.min(UPPER_BOUND_MAX_PARALLELISM);
    round_up_to_power_of_two(p + p / 2).clamp(
        DEFAULT_LOWER_BOUND_MAX_PARALLELISM,
        UPPER_BOUND_MAX_PARALLELISM,
    )
}

/// `KeyGroupRangeAssignment.computeKeyGroupForKeyHash(keyHash, maxParallelism)`:
/// `murmurHash(keyHash) % maxParallelism`. `assignToKeyGroup(key, maxP)` is this applied to
/// `key.hashCode()`.
pub fn key_group_for_hash(hash_code: i32, max_parallelism: u32) -> KeyGroup {
    assert!(max_parallelism > 0, "max parallelism must be positive");
    // murmur_hash is non-negative, so Java's `%` equals the unsigned remainder.
    KeyGroup(murmur_hash(hash_code) as u32 % max_parallelism)
}

/// `KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(maxParallelism, parallelism,
/// keyGroupId)`: `keyGroup * parallelism / maxParallelism` (integer division).
pub fn subtask_for_key_group(max_parallelism: u32, parallelism: u32, kg: KeyGroup) -> SubtaskIndex {
    assert!(max_parallelism > 0, "max parallelism must be positive");
    SubtaskIndex((u64::from(kg.0) * u64::from(parallelism) / u64::from(max_parallelism)) as u32)
}

/// `KeyGroupRangeAssignment.assignKeyToParallelOperator` for a key whose Java `hashCode()` is
/// `hash_code`: the channel `KeyGroupStreamPartitioner` sends the record to.
pub fn subtask_for_hash(hash_code: i32, max_parallelism: u32, parallelism: u32) -> SubtaskIndex {
    subtask_for_key_group(
        max_parallelism,
        parallelism,
        key_group_for_hash(hash_code, max_parallelism),
    )
}

/// `KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(maxParallelism, parallelism,
/// operatorIndex)`: the inclusive key-group range `(start, end)` owned by a subtask,
/// `start = (i*maxP + p - 1) / p`, `end = ((i+1)*maxP - 1) / p`.
pub fn key_group_range(
    max_parallelism: u32,
    parallelism: u32,
    subtask: SubtaskIndex,
) -> (KeyGroup, KeyGroup) {
    assert!(parallelism > 0, "parallelism must be positive");
    let (max_p, p, i) = (
        u64::from(max_parallelism),
        u64::from(parallelism),
        u64::from(subtask.0),
    );
    let start = (i * max_p).div_ceil(p);
    let end = ((i + 1) * max_p - 1) / p;
    (KeyGroup(start as u32), KeyGroup(end as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Produced by real Flink 2.3.0 `org.apache.flink.util.MathUtils.murmurHash(int)`
    /// (conformance/vectors/PartitionCheck.java).
    const MURMUR: &[(i32, i32)] = &[
        (0, 593689054),
        (1, 68075478),
        (-1, 1982413648),
        (2, 1085422463),
        (42, 1134849565),
        (1000, 3506311),
        (-2147483648, 1718298732),
        (2147483647, 1653689534),
        (123456789, 1088346449),
        (-987654321, 1314828554),
        (63353862, 169632719),
        (66965, 665036798),
    ];

    #[test]
    fn murmur_matches_flink() {
        for &(code, expected) in MURMUR {
            assert_eq!(murmur_hash(code), expected, "murmurHash({code})");
        }
    }

    /// Produced by real Flink 2.3.0 `KeyGroupRangeAssignment.assignToKeyGroup(key, maxP)` and
    /// `assignKeyToParallelOperator(key, maxP, p)` for Java `String`, `Integer` and `Long` keys
    /// (conformance/vectors/PartitionCheck.java). Columns: `key.hashCode()`, key group at maxP 128,
    /// subtask at maxP 128 for p = 1..=8, key group at maxP 256, subtask at maxP 256 for
    /// p = 3, 7, 100. The trailing comment is the Java key.
    type Route = (i32, u32, [u32; 8], u32, [u32; 3]);
    #[rustfmt::skip]
    const ROUTES: &[Route] = &[
        (63350368, 95, [0, 1, 2, 2, 3, 4, 5, 5], 223, [2, 6, 87]), // String "Alice"
        (66965, 126, [0, 1, 2, 3, 4, 5, 6, 7], 254, [2, 6, 99]), // String "Bob"
        (2092869, 87, [0, 1, 2, 2, 3, 4, 4, 5], 215, [2, 5, 83]), // String "Cary"
        (2390779, 42, [0, 0, 0, 1, 1, 1, 2, 2], 170, [1, 4, 66]), // String "Mary"
        (97520992, 98, [0, 1, 2, 3, 3, 4, 5, 6], 226, [2, 6, 88]), // String "flink"
        (0, 94, [0, 1, 2, 2, 3, 4, 5, 5], 222, [2, 6, 86]), // String ""
        (233, 30, [0, 0, 0, 0, 1, 1, 1, 1], 30, [0, 0, 11]), // String "\u{e9}"
        (835047, 95, [0, 1, 2, 2, 3, 4, 5, 5], 95, [1, 2, 37]), // String "\u{65e5}\u{672c}"
        (-147182656, 20, [0, 0, 0, 0, 0, 0, 1, 1], 148, [1, 4, 57]), // String "user-42"
        (754356912, 2, [0, 0, 0, 0, 0, 0, 0, 0], 2, [0, 0, 0]), // String "order_1000"
        (97, 81, [0, 1, 1, 2, 3, 3, 4, 5], 209, [2, 5, 81]), // String "a"
        (98, 22, [0, 0, 0, 0, 0, 1, 1, 1], 150, [1, 4, 58]), // String "b"
        (99, 62, [0, 0, 1, 1, 2, 2, 3, 3], 62, [0, 1, 24]), // String "c"
        (100, 64, [0, 1, 1, 2, 2, 3, 3, 4], 64, [0, 1, 25]), // String "d"
        (101, 4, [0, 0, 0, 0, 0, 0, 0, 0], 4, [0, 0, 1]), // String "e"
        (102, 28, [0, 0, 0, 0, 1, 1, 1, 1], 28, [0, 0, 10]), // String "f"
        (103, 55, [0, 0, 1, 1, 2, 2, 3, 3], 55, [0, 1, 21]), // String "g"
        (104, 26, [0, 0, 0, 0, 1, 1, 1, 1], 26, [0, 0, 10]), // String "h"
        (105, 21, [0, 0, 0, 0, 0, 0, 1, 1], 21, [0, 0, 8]), // String "i"
        (106, 88, [0, 1, 2, 2, 3, 4, 4, 5], 88, [1, 2, 34]), // String "j"
        (107, 21, [0, 0, 0, 0, 0, 0, 1, 1], 149, [1, 4, 58]), // String "k"
        (108, 73, [0, 1, 1, 2, 2, 3, 3, 4], 73, [0, 1, 28]), // String "l"
        (109, 68, [0, 1, 1, 2, 2, 3, 3, 4], 68, [0, 1, 26]), // String "m"
        (110, 32, [0, 0, 0, 1, 1, 1, 1, 2], 160, [1, 4, 62]), // String "n"
        (111, 30, [0, 0, 0, 0, 1, 1, 1, 1], 30, [0, 0, 11]), // String "o"
        (112, 71, [0, 1, 1, 2, 2, 3, 3, 4], 71, [0, 1, 27]), // String "p"
        (113, 26, [0, 0, 0, 0, 1, 1, 1, 1], 154, [1, 4, 60]), // String "q"
        (114, 118, [0, 1, 2, 3, 4, 5, 6, 7], 118, [1, 3, 46]), // String "r"
        (115, 66, [0, 1, 1, 2, 2, 3, 3, 4], 194, [2, 5, 75]), // String "s"
        (116, 84, [0, 1, 1, 2, 3, 3, 4, 5], 212, [2, 5, 82]), // String "t"
        (117, 40, [0, 0, 0, 1, 1, 1, 2, 2], 40, [0, 1, 15]), // String "u"
        (118, 22, [0, 0, 0, 0, 0, 1, 1, 1], 150, [1, 4, 58]), // String "v"
        (119, 1, [0, 0, 0, 0, 0, 0, 0, 0], 129, [1, 3, 50]), // String "w"
        (120, 55, [0, 0, 1, 1, 2, 2, 3, 3], 183, [2, 5, 71]), // String "x"
        (121, 106, [0, 1, 2, 3, 4, 4, 5, 6], 106, [1, 2, 41]), // String "y"
        (122, 65, [0, 1, 1, 2, 2, 3, 3, 4], 193, [2, 5, 75]), // String "z"
        (0, 94, [0, 1, 2, 2, 3, 4, 5, 5], 222, [2, 6, 86]), // Integer 0
        (1, 86, [0, 1, 2, 2, 3, 4, 4, 5], 214, [2, 5, 83]), // Integer 1
        (2, 127, [0, 1, 2, 3, 4, 5, 6, 7], 127, [1, 3, 49]), // Integer 2
        (3, 113, [0, 1, 2, 3, 4, 5, 6, 7], 113, [1, 3, 44]), // Integer 3
        (4, 7, [0, 0, 0, 0, 0, 0, 0, 0], 7, [0, 0, 2]), // Integer 4
        (5, 126, [0, 1, 2, 3, 4, 5, 6, 7], 126, [1, 3, 49]), // Integer 5
        (6, 18, [0, 0, 0, 0, 0, 0, 0, 1], 146, [1, 3, 57]), // Integer 6
        (7, 113, [0, 1, 2, 3, 4, 5, 6, 7], 241, [2, 6, 94]), // Integer 7
        (8, 15, [0, 0, 0, 0, 0, 0, 0, 0], 15, [0, 0, 5]), // Integer 8
        (9, 51, [0, 0, 1, 1, 1, 2, 2, 3], 179, [2, 4, 69]), // Integer 9
        (10, 67, [0, 1, 1, 2, 2, 3, 3, 4], 67, [0, 1, 26]), // Integer 10
        (11, 102, [0, 1, 2, 3, 3, 4, 5, 6], 230, [2, 6, 89]), // Integer 11
        (12, 50, [0, 0, 1, 1, 1, 2, 2, 3], 50, [0, 1, 19]), // Integer 12
        (13, 1, [0, 0, 0, 0, 0, 0, 0, 0], 129, [1, 3, 50]), // Integer 13
        (14, 27, [0, 0, 0, 0, 1, 1, 1, 1], 27, [0, 0, 10]), // Integer 14
        (15, 70, [0, 1, 1, 2, 2, 3, 3, 4], 198, [2, 5, 77]), // Integer 15
        (16, 116, [0, 1, 2, 3, 4, 5, 6, 7], 116, [1, 3, 45]), // Integer 16
        (17, 81, [0, 1, 1, 2, 3, 3, 4, 5], 209, [2, 5, 81]), // Integer 17
        (18, 79, [0, 1, 1, 2, 3, 3, 4, 4], 207, [2, 5, 80]), // Integer 18
        (19, 127, [0, 1, 2, 3, 4, 5, 6, 7], 255, [2, 6, 99]), // Integer 19
        (20, 79, [0, 1, 1, 2, 3, 3, 4, 4], 207, [2, 5, 80]), // Integer 20
        (-1, 80, [0, 1, 1, 2, 3, 3, 4, 5], 80, [0, 2, 31]), // Integer -1
        (-2147483648, 108, [0, 1, 2, 3, 4, 5, 5, 6], 108, [1, 2, 42]), // Integer -2147483648
        (2147483647, 62, [0, 0, 1, 1, 2, 2, 3, 3], 190, [2, 5, 74]), // Integer 2147483647
        (1000, 7, [0, 0, 0, 0, 0, 0, 0, 0], 135, [1, 3, 52]), // Integer 1000
        (-123456, 117, [0, 1, 2, 3, 4, 5, 6, 7], 245, [2, 6, 95]), // Integer -123456
        (0, 94, [0, 1, 2, 2, 3, 4, 5, 5], 222, [2, 6, 86]), // Long 0
        (1, 86, [0, 1, 2, 2, 3, 4, 4, 5], 214, [2, 5, 83]), // Long 1
        (0, 94, [0, 1, 2, 2, 3, 4, 5, 5], 222, [2, 6, 86]), // Long -1
        (42, 29, [0, 0, 0, 0, 1, 1, 1, 1], 29, [0, 0, 11]), // Long 42
        (1000, 7, [0, 0, 0, 0, 0, 0, 0, 0], 135, [1, 3, 52]), // Long 1000
        (-807048821, 64, [0, 1, 1, 2, 2, 3, 3, 4], 192, [2, 5, 75]), // Long 1700000000000
        (-2147483648, 108, [0, 1, 2, 3, 4, 5, 5, 6], 108, [1, 2, 42]), // Long -9223372036854775808
        (-2147483648, 108, [0, 1, 2, 3, 4, 5, 5, 6], 108, [1, 2, 42]), // Long 9223372036854775807
        (1, 86, [0, 1, 2, 2, 3, 4, 4, 5], 214, [2, 5, 83]), // Long 4294967296
        (-1, 80, [0, 1, 1, 2, 3, 3, 4, 5], 80, [0, 2, 31]), // Long -4294967296
    ];

    #[test]
    fn routing_matches_flink() {
        for &(hash, kg128, subtasks128, kg256, subtasks256) in ROUTES {
            assert_eq!(
                key_group_for_hash(hash, 128),
                KeyGroup(kg128),
                "kg(hash {hash}, 128)"
            );
            assert_eq!(
                key_group_for_hash(hash, 256),
                KeyGroup(kg256),
                "kg(hash {hash}, 256)"
            );
            for (i, &expected) in subtasks128.iter().enumerate() {
                let p = i as u32 + 1;
                assert_eq!(
                    subtask_for_hash(hash, 128, p),
                    SubtaskIndex(expected),
                    "hash {hash} p {p}"
                );
                let kg = key_group_for_hash(hash, 128);
                let (start, end) = key_group_range(128, p, SubtaskIndex(expected));
                assert!(
                    start <= kg && kg <= end,
                    "key group {kg:?} within its subtask's range"
                );
            }
            for (&p, &expected) in [3, 7, 100].iter().zip(subtasks256.iter()) {
                assert_eq!(
                    subtask_for_hash(hash, 256, p),
                    SubtaskIndex(expected),
                    "hash {hash} p {p} @256"
                );
            }
        }
    }

    /// Produced by real Flink 2.3.0 `KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex`
    /// (conformance/vectors/PartitionCheck.java): (maxP, p, subtask, start, end).
    const RANGES: &[(u32, u32, u32, u32, u32)] = &[
        (128, 1, 0, 0, 127),
        (128, 2, 0, 0, 63),
        (128, 2, 1, 64, 127),
        (128, 3, 0, 0, 42),
        (128, 3, 1, 43, 85),
        (128, 3, 2, 86, 127),
        (128, 4, 0, 0, 31),
        (128, 4, 1, 32, 63),
        (128, 4, 2, 64, 95),
        (128, 4, 3, 96, 127),
        (128, 5, 0, 0, 25),
        (128, 5, 1, 26, 51),
        (128, 5, 2, 52, 76),
        (128, 5, 3, 77, 102),
        (128, 5, 4, 103, 127),
        (128, 6, 0, 0, 21),
        (128, 6, 1, 22, 42),
        (128, 6, 2, 43, 63),
        (128, 6, 3, 64, 85),
        (128, 6, 4, 86, 106),
        (128, 6, 5, 107, 127),
        (128, 7, 0, 0, 18),
        (128, 7, 1, 19, 36),
        (128, 7, 2, 37, 54),
        (128, 7, 3, 55, 73),
        (128, 7, 4, 74, 91),
        (128, 7, 5, 92, 109),
        (128, 7, 6, 110, 127),
        (128, 8, 0, 0, 15),
        (128, 8, 1, 16, 31),
        (128, 8, 2, 32, 47),
        (128, 8, 3, 48, 63),
        (128, 8, 4, 64, 79),
        (128, 8, 5, 80, 95),
        (128, 8, 6, 96, 111),
        (128, 8, 7, 112, 127),
        (256, 3, 0, 0, 85),
        (256, 3, 1, 86, 170),
        (256, 3, 2, 171, 255),
        (256, 7, 0, 0, 36),
        (256, 7, 1, 37, 73),
        (256, 7, 2, 74, 109),
        (256, 7, 3, 110, 146),
        (256, 7, 4, 147, 182),
        (256, 7, 5, 183, 219),
        (256, 7, 6, 220, 255),
        (10, 3, 0, 0, 3),
        (10, 3, 1, 4, 6),
        (10, 3, 2, 7, 9),
        (128, 128, 0, 0, 0),
        (128, 128, 17, 17, 17),
        (128, 128, 34, 34, 34),
        (128, 128, 51, 51, 51),
        (128, 128, 68, 68, 68),
        (128, 128, 85, 85, 85),
        (128, 128, 102, 102, 102),
        (128, 128, 119, 119, 119),
        (128, 128, 127, 127, 127),
        (128, 100, 0, 0, 1),
        (128, 100, 17, 22, 23),
        (128, 100, 34, 44, 44),
        (128, 100, 51, 66, 66),
        (128, 100, 68, 88, 88),
        (128, 100, 85, 109, 110),
        (128, 100, 99, 127, 127),
    ];

    #[test]
    fn key_group_ranges_match_flink() {
        for &(max_p, p, i, start, end) in RANGES {
            assert_eq!(
                key_group_range(max_p, p, SubtaskIndex(i)),
                (KeyGroup(start), KeyGroup(end)),
                "range(maxP {max_p}, p {p}, subtask {i})"
            );
        }
    }

    #[test]
    fn ranges_partition_all_key_groups_consistently() {
        for max_p in [1, 7, 10, 128, 256, 1000] {
            for p in 1..=max_p.min(40) {
                let mut next = 0;
                for i in 0..p {
                    let (start, end) = key_group_range(max_p, p, SubtaskIndex(i));
                    assert_eq!(start.0, next);
                    for kg in start.0..=end.0 {
                        assert_eq!(
                            subtask_for_key_group(max_p, p, KeyGroup(kg)),
                            SubtaskIndex(i)
                        );
                    }
                    next = end.0 + 1;
                }
                assert_eq!(next, max_p);
            }
        }
    }

    /// Produced by real Flink 2.3.0 `KeyGroupRangeAssignment.computeDefaultMaxParallelism`
    /// (conformance/vectors/PartitionCheck.java).
    const DEFAULT_MAX_P: &[(u32, u32)] = &[
        (1, 128),
        (2, 128),
        (8, 128),
        (64, 128),
        (85, 128),
        (86, 256),
        (100, 256),
        (170, 256),
        (171, 256),
        (172, 512),
        (341, 512),
        (342, 1024),
        (1000, 2048),
        (10000, 16384),
        (21845, 32768),
        (21846, 32768),
        (30000, 32768),
        (32768, 32768),
    ];

    #[test]
    fn default_max_parallelism_matches_flink() {
        for &(p, expected) in DEFAULT_MAX_P {
            assert_eq!(default_max_parallelism(p), expected, "p = {p}");
        }
        assert_eq!(default_max_parallelism(0), 128);
    }

    #[test]
    fn serializes_transparently() {
        assert_eq!(serde_json::to_string(&KeyGroup(7)).unwrap(), "7");
        assert_eq!(serde_json::to_string(&SubtaskIndex(3)).unwrap(), "3");
    }
}
