//! Java `hashCode()` of the key types a job can use, and the hash Flink SQL partitions by.
//!
//! A DataStream `keyBy` hashes the key object with its Java `hashCode()`
//! (`String`, `Integer`, `Long`, `Double`, `Boolean`, mirrored here bit for bit). A Flink SQL
//! hash exchange (`StreamExecExchange` → `KeyGroupStreamPartitioner` with a
//! `BinaryRowDataKeySelector`) instead hashes a `BinaryRowData` holding the key columns:
//! [`sql_key_hash`] rebuilds that row's bytes (`BinaryRowWriter` layout) and applies
//! `BinaryRowData.hashCode` (`BinarySegmentUtils.hashByWords` →
//! `MurmurHashUtils.hashBytesByWords`, Murmur3 over 4-byte words with seed 42).

use crate::value::Value;

/// `java.lang.String.hashCode()`: `s[0]*31^(n-1) + … + s[n-1]` over the UTF-16 code units,
/// with `int` overflow. (Characters outside the BMP count as their two surrogates.)
pub fn string_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    })
}

/// `java.lang.Integer.hashCode(int)`: the value itself.
pub fn int_hash(v: i32) -> i32 {
    v
}

/// `java.lang.Long.hashCode(long)`: `(int) (v ^ (v >>> 32))`.
pub fn long_hash(v: i64) -> i32 {
    let bits = v as u64;
    (bits ^ (bits >> 32)) as i32
}

/// `java.lang.Double.hashCode(double)`: `Long.hashCode(Double.doubleToLongBits(v))`;
/// `doubleToLongBits` maps every NaN to the canonical `0x7ff8000000000000`. `0.0` and `-0.0`
/// differ.
pub fn double_hash(v: f64) -> i32 {
    let bits = if v.is_nan() {
        0x7ff8_0000_0000_0000_u64
    } else {
        v.to_bits()
    };
    (bits ^ (bits >> 32)) as i32
}

/// `java.lang.Boolean.hashCode(boolean)`: 1231 for `true`, 1237 for `false`.
pub fn bool_hash(v: bool) -> i32 {
    if v {
        1231
    } else {
        1237
    }
}

/// `java.util.Objects.hashCode(o)` of the boxed Java value (`Integer`, `Long`, `String`,
/// `Double`, `Boolean`); SQL `NULL` / Java `null` hashes to 0.
pub fn java_hash_code(v: &Value) -> i32 {
    match v {
        Value::Null => 0,
        Value::Str(s) => string_hash(s),
        Value::Int(i) => int_hash(*i),
        Value::Long(l) => long_hash(*l),
        Value::Double(d) => double_hash(*d),
        Value::Bool(b) => bool_hash(*b),
        Value::Decimal(d) => big_decimal_hash(d),
    }
}

/// `java.math.BigDecimal.hashCode()` of a decimal with its scale: `31 * unscaled.hashCode() +
/// scale`, where `BigInteger.hashCode()` folds the magnitude's big-endian 32-bit words
/// (`h = 31 * h + word`) and multiplies by the sign (the compact form computes the same for a
/// `long`). `1.50` and `1.5` differ, as in Java.
pub fn big_decimal_hash(d: &crate::decimal::Decimal) -> i32 {
    let mag = d.unscaled.unsigned_abs();
    let words = [
        (mag >> 96) as u32,
        (mag >> 64) as u32,
        (mag >> 32) as u32,
        mag as u32,
    ];
    let h = words
        .iter()
        .skip_while(|w| **w == 0)
        .fold(0i32, |h, &w| h.wrapping_mul(31).wrapping_add(w as i32));
    let h = if d.unscaled < 0 { h.wrapping_neg() } else { h };
    h.wrapping_mul(31).wrapping_add(d.scale as i32)
}

/// Size in bytes of a `BinaryRowData` header (`BinaryRowData.calculateBitSetWidthInBytes`):
/// one byte of `RowKind` plus one null bit per field, rounded up to 8-byte words.
fn null_bits_size_in_bytes(arity: usize) -> usize {
    (arity + 63 + 8) / 64 * 8
}

/// The bytes of the `BinaryRowData` that Flink SQL's key selector produces for these key
/// fields: what the planner's generated projection (`ProjectionCodeGenerator`, writing with
/// `org.apache.flink.table.data.writer.BinaryRowWriter`: `reset()`, one write per field,
/// `complete()`) emits, copied by `BinaryRowDataKeySelector.getKey`. Little-endian, as on the
/// x86/ARM JVMs Flink runs on.
///
/// Layout (`BinaryRowData`, `AbstractBinaryWriter`):
/// - header of [`null_bits_size_in_bytes`]: byte 0 is the `RowKind` (always `INSERT` = 0: the
///   writer's `reset()` zeroes the header and the projection never sets a kind), field `i`'s
///   null flag is bit `i + 8`;
/// - one 8-byte slot per field: `INT` as 4 bytes (the other 4 stay zero), `BIGINT` 8 bytes,
///   `DOUBLE` the raw IEEE bits, `BOOLEAN` one byte, `NULL` an all-zero slot;
/// - `STRING` (UTF-8) of at most 7 bytes is stored inline: the bytes, then byte 7 of the slot
///   is `0x80 | len`; a longer string goes to the variable part after the fixed part (padded
///   with zeros to a multiple of 8) and the slot holds `(offset << 32) | len`, `offset` counted
///   from the row start.
///
/// `Value::Int` is `INT`, `Long` `BIGINT`, `Str` `STRING` (any `VARCHAR(n)` / `CHAR(n)` is
/// written the same way), `Double` `DOUBLE`, `Bool` `BOOLEAN`; a `Null` field sets its null bit
/// (its declared type does not matter, except for a wide `DECIMAL`: see
/// [`sql_key_row_bytes_typed`]).
///
/// A `DECIMAL(p, s)` (`AbstractBinaryWriter.writeDecimal`): with `p <= 18` (compact) the
/// unscaled value as a `long` in the slot; otherwise 16 bytes are reserved in the variable
/// part, the unscaled value's big-endian two's-complement bytes (`BigInteger.toByteArray`)
/// written at their start, and the slot holds `(offset << 32) | byte count`. Pass values with the key *column's* SQL type: an `INT`
/// and a `BIGINT` slot agree for non-negative values but not for negative ones (the upper
/// 4 bytes of an `INT` slot stay zero). `DOUBLE` uses the raw bits, so `0.0` and `-0.0`
/// differ.
pub fn sql_key_row_bytes(key: &[Value]) -> Vec<u8> {
    sql_key_row_bytes_typed(key, &[])
}

/// [`sql_key_row_bytes`] knowing the key columns' types (`types[i]` for field `i`; missing
/// entries are unknown): a NULL of a `DECIMAL(p, s)` with `p > 18` is written as
/// `writeDecimal(i, null, p)` (`CodeGenUtils.binaryWriterWriteNull`), which reserves its 16
/// zero bytes in the variable part and points the slot at them, besides the null bit.
pub fn sql_key_row_bytes_typed(key: &[Value], types: &[crate::value::ColumnType]) -> Vec<u8> {
    use crate::decimal::MAX_COMPACT_PRECISION;
    use crate::value::ColumnType;
    let header = null_bits_size_in_bytes(key.len());
    let fixed = header + 8 * key.len();
    let mut row = vec![0u8; fixed];
    for (i, field) in key.iter().enumerate() {
        let slot = header + 8 * i;
        match field {
            Value::Null => {
                let bit = i + 8;
                row[bit >> 3] |= 1 << (bit & 7);
                if let Some(ColumnType::Decimal(p, _)) = types.get(i) {
                    if *p > MAX_COMPACT_PRECISION {
                        let offset = row.len() as u64;
                        row[slot..slot + 8].copy_from_slice(&(offset << 32).to_le_bytes());
                        row.resize(row.len() + 16, 0);
                    }
                }
            }
            Value::Decimal(d) if d.precision <= MAX_COMPACT_PRECISION => {
                row[slot..slot + 8].copy_from_slice(&(d.unscaled as i64).to_le_bytes());
            }
            Value::Decimal(d) => {
                let bytes = d.unscaled_bytes();
                let offset = row.len() as u64;
                let offset_and_size = (offset << 32) | bytes.len() as u64;
                row[slot..slot + 8].copy_from_slice(&offset_and_size.to_le_bytes());
                row.resize(row.len() + 16, 0);
                row[offset as usize..offset as usize + bytes.len()].copy_from_slice(&bytes);
            }
            Value::Int(v) => row[slot..slot + 4].copy_from_slice(&v.to_le_bytes()),
            Value::Long(v) => row[slot..slot + 8].copy_from_slice(&v.to_le_bytes()),
            Value::Double(v) => row[slot..slot + 8].copy_from_slice(&v.to_bits().to_le_bytes()),
            Value::Bool(v) => row[slot] = u8::from(*v),
            Value::Str(s) => {
                let bytes = s.as_bytes();
                if bytes.len() <= 7 {
                    row[slot..slot + bytes.len()].copy_from_slice(bytes);
                    row[slot + 7] = 0x80 | bytes.len() as u8;
                } else {
                    let offset = row.len() as u64;
                    let offset_and_size = (offset << 32) | bytes.len() as u64;
                    row[slot..slot + 8].copy_from_slice(&offset_and_size.to_le_bytes());
                    row.extend_from_slice(bytes);
                    row.resize(row.len().next_multiple_of(8), 0);
                }
            }
        }
    }
    row
}

/// `MurmurHashUtils.hashBytesByWords(segment, offset, length)` with the default seed 42:
/// Murmur3 (x86, 32 bit) over the little-endian 4-byte words, then `fmix(h ^ length)`.
/// `bytes.len()` must be a multiple of 4 (a `BinaryRowData` is always a multiple of 8).
pub fn murmur_hash_bytes_by_words(bytes: &[u8]) -> i32 {
    debug_assert!(
        bytes.len().is_multiple_of(4),
        "hashBytesByWords needs whole words"
    );
    let mut h1: i32 = 42;
    for word in bytes.chunks_exact(4) {
        let mut k1 = i32::from_le_bytes([word[0], word[1], word[2], word[3]]);
        k1 = k1.wrapping_mul(0xcc9e_2d51_u32 as i32);
        k1 = k1.rotate_left(15);
        k1 = k1.wrapping_mul(0x1b87_3593);
        h1 ^= k1;
        h1 = h1.rotate_left(13);
        h1 = h1.wrapping_mul(5).wrapping_add(0xe654_6b64_u32 as i32);
    }
    crate::partition::fmix32(h1 ^ bytes.len() as i32)
}

/// `BinaryRowData.hashCode()` of the key row Flink SQL builds for these key fields (see
/// [`sql_key_row_bytes`]): the `key.hashCode()` that `KeyGroupStreamPartitioner` feeds to
/// `KeyGroupRangeAssignment` for a SQL join / aggregation hash exchange. It is unrelated to
/// the Java hash codes of the field values.
pub fn sql_key_hash(key: &[Value]) -> i32 {
    murmur_hash_bytes_by_words(&sql_key_row_bytes(key))
}

/// [`sql_key_hash`] knowing the key columns' types (see [`sql_key_row_bytes_typed`]).
pub fn sql_key_hash_typed(key: &[Value], types: &[crate::value::ColumnType]) -> i32 {
    murmur_hash_bytes_by_words(&sql_key_row_bytes_typed(key, types))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> Value {
        Value::Str(v.into())
    }
    fn i(v: i32) -> Value {
        Value::Int(v)
    }
    fn l(v: i64) -> Value {
        Value::Long(v)
    }
    fn d(v: f64) -> Value {
        Value::Double(v)
    }
    fn b(v: bool) -> Value {
        Value::Bool(v)
    }
    fn n() -> Value {
        Value::Null
    }

    /// Produced by real Java 17 `String.hashCode()` (conformance/vectors/JavaHashCheck.java).
    const STRINGS: &[(&str, i32)] = &[
        ("", 0),
        ("a", 97),
        ("A", 65),
        ("Alice", 63350368),
        ("Bob", 66965),
        ("Cary", 2092869),
        ("Mary", 2390779),
        ("flink", 97520992),
        ("abcdefg", -1206291356),
        ("abcdefgh", 1259673732),
        ("abcdefghi", 395180133),
        ("0123456789abcde", -1791907458),
        ("0123456789abcdef", 285443752),
        ("0123456789abcdefg", 258821823),
        ("\u{e9}", 233),
        ("\u{65e5}\u{672c}", 835047),
        ("\u{65e5}\u{672c}\u{8a9e}", 25921943),
        ("\u{1f600}", 1772899),
        ("a\u{1f600}b", 57849694),
        ("Z\u{fc}rich", -1482116162),
        ("user-42", -147182656),
        (
            "hello world, this is a longer key of more than thirty-two bytes",
            1563998716,
        ),
    ];

    /// Produced by real Java 17 `Integer.hashCode(int)`.
    const INTS: &[(i32, i32)] = &[
        (0, 0),
        (1, 1),
        (-1, -1),
        (42, 42),
        (-2147483648, -2147483648),
        (2147483647, 2147483647),
    ];

    /// Produced by real Java 17 `Long.hashCode(long)`.
    const LONGS: &[(i64, i32)] = &[
        (0, 0),
        (1, 1),
        (-1, 0),
        (42, 42),
        (4294967296, 1),
        (-4294967296, -1),
        (1700000000000, -807048821),
        (-9223372036854775808, -2147483648),
        (9223372036854775807, -2147483648),
        (81985529216486895, -2004318072),
    ];

    /// Produced by real Java 17 `Double.hashCode(double)`.
    const DOUBLES: &[(f64, i32)] = &[
        (0.0, 0),
        (-0.0, -2147483648),
        (1.0, 1072693248),
        (-1.0, -1074790400),
        (1.5, 1073217536),
        (0.1, -1507852285),
        (std::f64::consts::PI, 340593891), // 3.141592653589793
        (1.0E300, -164130400),
        (-2.5E-300, 839776648),
        (f64::NAN, 2146959360),
        (1.7976931348623157E308, -2146435072),
        (4.9E-324, 1),
        (f64::INFINITY, 2146435072),
    ];

    #[test]
    fn java_hash_codes_match_java() {
        for &(v, h) in STRINGS {
            assert_eq!(string_hash(v), h, "{v:?}.hashCode()");
            assert_eq!(java_hash_code(&s(v)), h);
        }
        for &(v, h) in INTS {
            assert_eq!(int_hash(v), h);
            assert_eq!(java_hash_code(&i(v)), h);
        }
        for &(v, h) in LONGS {
            assert_eq!(long_hash(v), h, "Long.hashCode({v})");
            assert_eq!(java_hash_code(&l(v)), h);
        }
        for &(v, h) in DOUBLES {
            assert_eq!(double_hash(v), h, "Double.hashCode({v})");
            assert_eq!(java_hash_code(&d(v)), h);
        }
        // A NaN with a non-canonical payload hashes like the canonical NaN (doubleToLongBits).
        assert_eq!(
            double_hash(f64::from_bits(0x7ff0_0000_0000_0001)),
            2146959360
        );
        // Boolean.hashCode from Java 17: (true, 1231), (false, 1237).
        assert_eq!(bool_hash(true), 1231);
        assert_eq!(bool_hash(false), 1237);
        assert_eq!(java_hash_code(&b(true)), 1231);
        assert_eq!(java_hash_code(&n()), 0);
    }

    /// Produced by real Flink 2.3.0 (conformance/vectors/JavaHashCheck.java): `hashCode()` of the
    /// `org.apache.flink.table.data.binary.BinaryRowData` written by
    /// `org.apache.flink.table.data.writer.BinaryRowWriter` (reset, write fields, complete, copy —
    /// what the planner's key projection does), cross-checked in Java against
    /// `RowDataSerializer.toBinaryRow(GenericRowData.of(...))` and against changing the declared
    /// type of null fields. Types: `s` STRING, `i` INT, `l` BIGINT, `d` DOUBLE, `b` BOOLEAN,
    /// `n()` NULL.
    #[rustfmt::skip]
    fn sql_key_vectors() -> Vec<(Vec<Value>, i32)> {
        vec![
            (vec![s("")], 302122119),
            (vec![s("a")], 943281246),
            (vec![s("A")], -1204487263),
            (vec![s("Alice")], 1285337400),
            (vec![s("Bob")], 1359740369),
            (vec![s("Cary")], 245413925),
            (vec![s("Mary")], 1525322463),
            (vec![s("flink")], 36939213),
            (vec![s("abcdefg")], -1431907323),
            (vec![s("abcdefgh")], -843760178),
            (vec![s("abcdefghi")], 890550442),
            (vec![s("0123456789abcde")], -761732598),
            (vec![s("0123456789abcdef")], -1187815606),
            (vec![s("0123456789abcdefg")], 1053126342),
            (vec![s("\u{e9}")], -1531579217),
            (vec![s("\u{65e5}\u{672c}")], -687604583),
            (vec![s("\u{65e5}\u{672c}\u{8a9e}")], -476998221),
            (vec![s("\u{1f600}")], -1697268522),
            (vec![s("a\u{1f600}b")], -529223215),
            (vec![s("Z\u{fc}rich")], 419219858),
            (vec![s("user-42")], 1762087818),
            (vec![s("hello world, this is a longer key of more than thirty-two bytes")], 1038554833),
            (vec![i(0)], -300363099),
            (vec![i(1)], 1465514398),
            (vec![i(-1)], 1133687267),
            (vec![i(42)], 907821237),
            (vec![i(1000)], 18631685),
            (vec![i(-2147483648)], 916225219),
            (vec![i(2147483647)], -1125657321),
            (vec![l(0)], -300363099),
            (vec![l(1)], 1465514398),
            (vec![l(-1)], -821098432),
            (vec![l(42)], 907821237),
            (vec![l(1700000000000)], -234226969),
            (vec![l(-9223372036854775808)], 302122119),
            (vec![l(9223372036854775807)], -1566569095),
            (vec![d(0.0)], -300363099),
            (vec![d(-0.0)], 302122119),
            (vec![d(1.5)], 1860889473),
            (vec![d(-2.25)], -413435051),
            (vec![d(1.0E300)], -254947669),
            (vec![b(true)], 1465514398),
            (vec![b(false)], -300363099),
            (vec![n()], -1748325344),
            (vec![s("Alice"), i(1)], 1519508418),
            (vec![i(1), s("Alice")], -1546314994),
            (vec![s("Alice"), s("Bob")], 1359107804),
            (vec![s("a longer string #1"), s("another longer string #2")], -512010949),
            (vec![s("short"), s("a longer string value")], -1898749718),
            (vec![s("a longer string value"), s("short")], 499928237),
            (vec![l(5), n()], -1485691927),
            (vec![n(), l(5)], 1401948696),
            (vec![n(), n()], -1130415291),
            (vec![s("x"), n(), i(7)], 843647052),
            (vec![i(1), l(2), s("three"), d(4.0), b(true)], 245535359),
            (vec![i(-7), l(-7), s("\u{65e5}\u{672c}\u{8a9e}\u{65e5}\u{672c}\u{8a9e}"), b(false), n()], -1405752864),
            (vec![i(0), i(31), i(62), n(), i(124), i(155), i(186), i(217), i(248), i(279), n(), i(341), i(372), i(403), i(434), i(465), i(496), n(), i(558), i(589), i(620), i(651), i(682), i(713), n(), i(775), i(806), i(837), i(868), i(899), i(930), n(), i(992), i(1023), i(1054), i(1085), i(1116), i(1147), n(), i(1209), i(1240), i(1271), i(1302), i(1333), i(1364), n(), i(1426), i(1457), i(1488), i(1519), i(1550), i(1581), n(), i(1643), i(1674), i(1705), i(1736), i(1767), i(1798), n()], 513729253),
            (vec![l(0), l(1), l(2), l(3), l(4), l(5), l(6), l(7), l(8), l(9), l(10), l(11), l(12), l(13), l(14), l(15), l(16), l(17), l(18), l(19), l(20), l(21), l(22), l(23), l(24), l(25), l(26), l(27), l(28), l(29), l(30), l(31), l(32), l(33), l(34), l(35), l(36), l(37), l(38), l(39), l(40), l(41), l(42), l(43), l(44), l(45), l(46), l(47), l(48), l(49), l(50), l(51), l(52), l(53), l(54), n()], -2134068760),
            (vec![l(0), l(1), l(2), l(3), l(4), l(5), l(6), l(7), l(8), l(9), l(10), l(11), l(12), l(13), l(14), l(15), l(16), l(17), l(18), l(19), l(20), l(21), l(22), l(23), l(24), l(25), l(26), l(27), l(28), l(29), l(30), l(31), l(32), l(33), l(34), l(35), l(36), l(37), l(38), l(39), l(40), l(41), l(42), l(43), l(44), l(45), l(46), l(47), l(48), l(49), l(50), l(51), l(52), l(53), l(54), l(55), n()], -785623908),
        ]
    }

    #[test]
    fn sql_key_hash_matches_flink_binary_row_data() {
        for (key, expected) in sql_key_vectors() {
            assert_eq!(
                sql_key_hash(&key),
                expected,
                "BinaryRowData{key:?}.hashCode()"
            );
        }
    }

    /// Row bytes printed by real Flink 2.3.0 (`BinaryRowData` segment bytes, hex).
    #[test]
    fn sql_key_row_bytes_match_flink_layout() {
        let cases: Vec<(Vec<Value>, &str)> = vec![
            (vec![s("Alice")], "0000000000000000416c696365000085"),
            (vec![s("abcdefgh")], "000000000000000008000000100000006162636465666768"),
            (vec![i(-1)], "0000000000000000ffffffff00000000"),
            (vec![n()], "00010000000000000000000000000000"),
            (vec![s("short"), s("a longer string value")], "000000000000000073686f7274000085150000001800000061206c6f6e67657220737472696e672076616c7565000000"),
            (vec![i(1), l(2), s("three"), d(4.0), b(true)], "000000000000000001000000000000000200000000000000746872656500008500000000000010400100000000000000"),
        ];
        for (key, hex) in cases {
            let got: String = sql_key_row_bytes(&key)
                .iter()
                .map(|x| format!("{x:02x}"))
                .collect();
            assert_eq!(got, hex, "bytes of {key:?}");
        }
    }

    /// `BinaryRowData.hashCode()` and bytes of decimal key rows, printed by real Flink 2.3.0
    /// (conformance/vectors/DecimalCheck.java: `BinaryRowWriter.writeDecimal`, a wide NULL as
    /// `writeDecimal(i, null, p)` as the generated projection writes it).
    #[test]
    fn sql_key_hash_of_decimals_matches_flink() {
        use crate::decimal::Decimal;
        use crate::value::ColumnType;
        let dec = |t: &str, p: u8, s: u8| {
            Value::Decimal(Box::new(Decimal::parse_value(t, p, s).unwrap().unwrap()))
        };
        #[rustfmt::skip]
        let cases: Vec<(Vec<Value>, Vec<ColumnType>, i32, &str)> = vec![
            (vec![dec("1.50", 10, 2)], vec![], -616511498, "00000000000000009600000000000000"),
            (vec![dec("-1.50", 10, 2)], vec![], 853994690, "00000000000000006affffffffffffff"),
            (vec![dec("0.00", 10, 2)], vec![], -300363099, "00000000000000000000000000000000"),
            (vec![dec("12.34", 4, 2)], vec![], -1096042293, "0000000000000000d204000000000000"),
            (vec![dec("999999999999999999", 18, 0)], vec![], 892685092, "0000000000000000ffff63a7b3b6e00d"),
            (vec![dec("-999999999999999999", 18, 0)], vec![], -391672493, "000000000000000001009c584c491ff2"),
            (vec![dec("1.50", 19, 2)], vec![], 1232543739, "0000000000000000020000001000000000960000000000000000000000000000"),
            (vec![dec("-1.50", 19, 2)], vec![], 635775811, "00000000000000000200000010000000ff6a0000000000000000000000000000"),
            (vec![dec("0", 19, 0)], vec![], 728486185, "0000000000000000010000001000000000000000000000000000000000000000"),
            (vec![dec("127", 20, 0)], vec![], 1891628258, "000000000000000001000000100000007f000000000000000000000000000000"),
            (vec![dec("128", 20, 0)], vec![], -795104203, "0000000000000000020000001000000000800000000000000000000000000000"),
            (vec![dec("-128", 20, 0)], vec![], 1196242097, "0000000000000000010000001000000080000000000000000000000000000000"),
            (vec![dec("-129", 20, 0)], vec![], -104809469, "00000000000000000200000010000000ff7f0000000000000000000000000000"),
            (vec![dec("9999999999999999999", 19, 0)], vec![], -302890208, "00000000000000000900000010000000008ac7230489e7ffff00000000000000"),
            (vec![dec("-9999999999999999999", 19, 0)], vec![], -1460138027, "00000000000000000900000010000000ff7538dcfb7618000100000000000000"),
            (vec![dec("12345678901234567890123456789012.345678", 38, 6)], vec![], 496617349, "000000000000000010000000100000000949b0f6f0023313c4499050de38f34e"),
            (vec![dec("-99999999999999999999999999999999999999", 38, 0)], vec![], 2078814714, "00000000000000001000000010000000b4c4b357a5793b85f675ddc000000001"),
            (vec![dec("99999999999999999999999999999999999999", 38, 0)], vec![], -1064641625, "000000000000000010000000100000004b3b4ca85a86c47a098a223fffffffff"),
            (vec![dec("1.000000000000000000", 38, 18)], vec![], -1317624139, "000000000000000008000000100000000de0b6b3a76400000000000000000000"),
            (vec![n()], vec![ColumnType::Decimal(10, 2)], -1748325344, "00010000000000000000000000000000"),
            (vec![n()], vec![ColumnType::Decimal(19, 2)], -1380280760, "0001000000000000000000001000000000000000000000000000000000000000"),
            (vec![n()], vec![ColumnType::Decimal(38, 18)], -1380280760, "0001000000000000000000001000000000000000000000000000000000000000"),
            (vec![dec("1.50", 38, 2), i(7)], vec![], 1540997278, "00000000000000000200000018000000070000000000000000960000000000000000000000000000"),
            (vec![n(), dec("2.5", 32, 1), n()], vec![ColumnType::Decimal(20, 1), ColumnType::Decimal(32, 1), ColumnType::Decimal(5, 1)], 365652497, "00050000000000000000000020000000010000003000000000000000000000000000000000000000000000000000000019000000000000000000000000000000"),
            (vec![dec("3.25", 10, 2), dec("-7.125", 38, 3), i(42)], vec![], -2051164307, "0000000000000000450100000000000002000000200000002a00000000000000e42b0000000000000000000000000000"),
        ];
        for (key, types, hash, hex) in cases {
            let got: String = sql_key_row_bytes_typed(&key, &types)
                .iter()
                .map(|x| format!("{x:02x}"))
                .collect();
            assert_eq!(got, hex, "bytes of {key:?}");
            assert_eq!(sql_key_hash_typed(&key, &types), hash, "hash of {key:?}");
        }
    }

    /// Subtask of each DECIMAL join key in a real Flink 2.3.0 SQL LEFT JOIN at parallelism 4
    /// (max parallelism 128; conformance/vectors/DecimalJoinRouting.java), for a compact
    /// `DECIMAL(10, 2)` key and a wide `DECIMAL(20, 3)` one. The NULL key goes to subtask 3 as
    /// a compact decimal (a bare null bit) and to subtask 1 as a wide one (its 16 reserved
    /// bytes: `writeDecimal(i, null, p)`).
    #[test]
    fn real_sql_join_routes_decimal_keys_like_sql_key_hash() {
        use crate::decimal::Decimal;
        use crate::partition::{subtask_for_hash, SubtaskIndex};
        use crate::value::ColumnType;
        type Keys<'a> = &'a [(Option<&'a str>, u32)];
        #[rustfmt::skip]
        let cases: &[(u8, u8, Keys)] = &[
            (10, 2, &[(Some("1.50"), 3), (Some("2.25"), 1), (Some("-3.10"), 3), (Some("10.00"), 3), (Some("0.01"), 2), (Some("123.45"), 2), (Some("-0.50"), 0), (Some("99999999.99"), 3), (Some("7.00"), 1), (Some("42.42"), 0), (Some("0"), 3), (Some("-1"), 0), (None, 3)]),
            (20, 3, &[(Some("1.50"), 2), (Some("2.25"), 2), (Some("-3.10"), 3), (Some("10.00"), 0), (Some("0.01"), 1), (Some("123.45"), 2), (Some("-0.50"), 3), (Some("99999999.99"), 1), (Some("7.00"), 2), (Some("42.42"), 2), (Some("0"), 1), (Some("-1"), 3), (None, 1)]),
        ];
        for &(p, s, keys) in cases {
            for &(k, subtask) in keys {
                let v = match k {
                    Some(t) => {
                        Value::Decimal(Box::new(Decimal::parse_value(t, p, s).unwrap().unwrap()))
                    }
                    None => Value::Null,
                };
                let h = sql_key_hash_typed(&[v], &[ColumnType::Decimal(p, s)]);
                assert_eq!(
                    subtask_for_hash(h, 128, 4),
                    SubtaskIndex(subtask),
                    "{k:?} as DECIMAL({p}, {s})"
                );
            }
        }
    }

    /// Subtask of each join key in a real Flink 2.3.0 SQL job (conformance/vectors/SqlJoinRouting.java):
    /// `SELECT … FROM L JOIN R ON L.k = R.k` at parallelism 4 (max parallelism 128), the subtask
    /// index read in a map forward-connected to the join. Keys: `k VARCHAR(21)`; `k INT`;
    /// `(k VARCHAR(21), v * 10 INT)` for `ON L.k = R.k AND L.v * 10 = R.w`.
    #[test]
    fn real_sql_join_routes_keys_like_sql_key_hash() {
        use crate::partition::{subtask_for_hash, SubtaskIndex};
        let route = |key: &[Value]| subtask_for_hash(sql_key_hash(key), 128, 4);
        #[rustfmt::skip]
        let strings: &[(&str, u32)] = &[("Alice", 2), ("Bob", 2), ("Cary", 3), ("Mary", 1), ("flink", 3), ("", 3), ("a longer string value", 0), ("\u{65e5}\u{672c}\u{8a9e}", 2), ("k1", 0), ("k2", 0), ("k3", 3), ("k4", 3), ("k5", 3), ("k6", 1), ("k7", 3), ("k8", 3)];
        for &(k, subtask) in strings {
            assert_eq!(route(&[s(k)]), SubtaskIndex(subtask), "{k:?}");
        }
        #[rustfmt::skip]
        let ints: &[(i32, u32)] = &[(0, 3), (1, 2), (2, 2), (3, 3), (4, 0), (5, 0), (6, 3), (7, 0), (8, 1), (9, 3), (10, 0), (11, 1), (12, 1), (13, 1), (14, 2), (15, 1)];
        for &(k, subtask) in ints {
            assert_eq!(route(&[i(k)]), SubtaskIndex(subtask), "{k}");
        }
        // (k, row index in the VALUES list: the INT key field is index * 10)
        #[rustfmt::skip]
        let pairs: &[(&str, i32, u32)] = &[("Alice", 0, 3), ("Bob", 10, 3), ("Cary", 20, 1), ("Mary", 30, 2), ("flink", 40, 2), ("", 50, 0), ("a longer string value", 60, 2), ("\u{65e5}\u{672c}\u{8a9e}", 70, 0), ("k1", 80, 0), ("k2", 90, 1), ("k3", 100, 1), ("k4", 110, 0), ("k5", 120, 0), ("k6", 130, 1), ("k7", 140, 0), ("k8", 150, 1)];
        for &(k, v, subtask) in pairs {
            assert_eq!(route(&[s(k), i(v)]), SubtaskIndex(subtask), "({k:?}, {v})");
        }
    }
}
