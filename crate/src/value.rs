//! Typed field values of the rows a user types, and the column types they are parsed as.
//!
//! The Java type of a key decides its `hashCode`, and so the key group and subtask it lands on,
//! so values keep the type a Flink job would give them (`Integer`, `Long`, `String`, …).

use crate::decimal::Decimal;
use crate::thinstr::ThinStr;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

/// The type of a column. `Int` is a Java `Integer` / SQL `INT`, `Long` a `Long` / `BIGINT`,
/// `Decimal(p, s)` a SQL `DECIMAL(p, s)` (a `java.math.BigDecimal`).
///
/// In a scenario document it is a lowercase name: `string`, `int`, `long`, `double`,
/// `boolean`, `decimal(p,s)` (e.g. `decimal(10,2)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(
    feature = "ts",
    ts(
        export,
        type = "\"string\" | \"int\" | \"long\" | \"double\" | \"boolean\" | `decimal(${number},${number})`"
    )
)]
pub enum ColumnType {
    String,
    Int,
    Long,
    Double,
    Boolean,
    /// `DECIMAL(precision, scale)`, `1 <= precision <= 38`, `0 <= scale <= precision`.
    Decimal(u8, u8),
}

impl ColumnType {
    /// Reads a type name (`int`, `bigint`, `decimal(10,2)`, `DECIMAL(10, 2)`, `decimal` =
    /// `DECIMAL(10, 0)` as Flink's default); `None` when it is not a type (or not a valid
    /// `DECIMAL`: see [`ColumnType::parse_checked`] for the reason).
    pub fn parse(name: &str) -> Option<ColumnType> {
        Self::parse_checked(name).ok().flatten()
    }

    /// As [`ColumnType::parse`], with `Err` saying why a `DECIMAL(p, s)` is invalid.
    pub fn parse_checked(name: &str) -> Result<Option<ColumnType>, String> {
        let n = name.trim().to_ascii_lowercase();
        Ok(Some(match n.as_str() {
            "string" | "str" | "varchar" | "text" => ColumnType::String,
            "int" | "integer" | "i32" => ColumnType::Int,
            "long" | "bigint" | "i64" => ColumnType::Long,
            "double" | "float" | "f64" => ColumnType::Double,
            "boolean" | "bool" => ColumnType::Boolean,
            // DecimalType.DEFAULT_PRECISION / DEFAULT_SCALE.
            "decimal" | "dec" | "numeric" => ColumnType::Decimal(10, 0),
            _ => {
                // `decimal(p)` / `decimal(p, s)` (and `dec`, `numeric`).
                let Some(args) = n
                    .strip_prefix("decimal")
                    .or_else(|| n.strip_prefix("numeric"))
                    .or_else(|| n.strip_prefix("dec"))
                    .and_then(|r| r.trim().strip_prefix('('))
                    .and_then(|r| r.strip_suffix(')'))
                else {
                    return Ok(None);
                };
                let (p, s) = args.split_once(',').unwrap_or((args, "0"));
                let (Ok(p), Ok(s)) = (p.trim().parse::<u32>(), s.trim().parse::<u32>()) else {
                    return Ok(None);
                };
                crate::decimal::valid_type(p, s)?;
                ColumnType::Decimal(p as u8, s as u8)
            }
        }))
    }

    /// The scenario document's name (`decimal(10,2)`).
    pub fn name(self) -> Cow<'static, str> {
        Cow::Borrowed(match self {
            ColumnType::String => "string",
            ColumnType::Int => "int",
            ColumnType::Long => "long",
            ColumnType::Double => "double",
            ColumnType::Boolean => "boolean",
            ColumnType::Decimal(p, s) => return Cow::Owned(format!("decimal({p},{s})")),
        })
    }

    /// The Java class name used in exported jobs.
    pub fn java_name(self) -> &'static str {
        match self {
            ColumnType::String => "String",
            ColumnType::Int => "Integer",
            ColumnType::Long => "Long",
            ColumnType::Double => "Double",
            ColumnType::Boolean => "Boolean",
            ColumnType::Decimal(..) => "java.math.BigDecimal",
        }
    }

    /// The Flink SQL type name used in exported jobs (`DECIMAL(10, 2)`).
    pub fn sql_name(self) -> Cow<'static, str> {
        Cow::Borrowed(match self {
            ColumnType::String => "STRING",
            ColumnType::Int => "INT",
            ColumnType::Long => "BIGINT",
            ColumnType::Double => "DOUBLE",
            ColumnType::Boolean => "BOOLEAN",
            ColumnType::Decimal(p, s) => return Cow::Owned(format!("DECIMAL({p}, {s})")),
        })
    }
}

impl Serialize for ColumnType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

impl<'de> Deserialize<'de> for ColumnType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ColumnType, D::Error> {
        let s = Cow::<str>::deserialize(d)?;
        match ColumnType::parse_checked(&s) {
            Ok(Some(t)) if s == t.name() => Ok(t),
            Err(m) => Err(serde::de::Error::custom(m)),
            _ => Err(serde::de::Error::custom(format!(
                "unknown column type {s:?} (string, int, long, double, boolean, decimal(p,s))"
            ))),
        }
    }
}

/// One field value.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(export, type = "string | number | boolean | null"))]
pub enum Value {
    Null,
    /// A string, behind one pointer ([`ThinStr`]): a value is two words natively
    /// (three with a `String`), and every row of a plan holds several.
    Str(ThinStr),
    Int(i32),
    Long(i64),
    Double(f64),
    Bool(bool),
    /// An exact `DECIMAL(p, s)` (`DecimalData`), boxed: its 128-bit unscaled value would
    /// double the size of every value (16 bytes in wasm32, 32 natively, as without it).
    Decimal(Box<Decimal>),
}

impl Value {
    /// Parses one field of a row as the given type. `null` (any case) is SQL NULL.
    pub fn parse(text: &str, ty: ColumnType, quoted: bool) -> Result<Value, String> {
        if !quoted && text.eq_ignore_ascii_case("null") {
            return Ok(Value::Null);
        }
        Ok(match ty {
            ColumnType::String => Value::Str(text.into()),
            ColumnType::Int => Value::Int(
                text.parse()
                    .map_err(|_| format!("{text:?} is not an INT (32-bit integer)"))?,
            ),
            ColumnType::Long => Value::Long(
                text.parse()
                    .map_err(|_| format!("{text:?} is not a BIGINT (64-bit integer)"))?,
            ),
            ColumnType::Double => {
                let v: f64 = text
                    .parse()
                    .map_err(|_| format!("{text:?} is not a number"))?;
                if !v.is_finite() {
                    return Err(format!("{text:?} is not a finite number"));
                }
                Value::Double(v)
            }
            ColumnType::Boolean => match text.to_ascii_lowercase().as_str() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => return Err(format!("{text:?} is not true or false")),
            },
            // As an INSERT of the literal into the column: HALF_UP to the scale, NULL when
            // too many integral digits for the precision (see `Decimal::parse_literal`; the
            // text need not be a valid SQL literal: a stored value may have more digits).
            ColumnType::Decimal(p, s) => match Decimal::parse_value(text, p, s)? {
                Some(d) => Value::Decimal(Box::new(d)),
                None => Value::Null,
            },
        })
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The value as a number, for sums.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(v) => Some(*v as f64),
            Value::Long(v) => Some(*v as f64),
            Value::Double(v) => Some(*v),
            Value::Decimal(d) => Some(d.to_f64()),
            _ => None,
        }
    }
}

// Every row of a plan holds its values: keep a value at two words natively.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Value>() == 16);

impl Eq for Value {}

impl std::hash::Hash for Value {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            Value::Null => {}
            Value::Str(s) => s.hash(state),
            Value::Int(v) => v.hash(state),
            Value::Long(v) => v.hash(state),
            Value::Double(v) => v.to_bits().hash(state),
            Value::Bool(v) => v.hash(state),
            Value::Decimal(v) => v.hash(state),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => write!(f, "null"),
            Value::Str(s) => write!(f, "{s}"),
            Value::Int(v) => write!(f, "{v}"),
            Value::Long(v) => write!(f, "{v}"),
            Value::Double(v) => write!(f, "{v:?}"),
            Value::Bool(v) => write!(f, "{v}"),
            Value::Decimal(v) => write!(f, "{v}"),
        }
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_none(),
            Value::Str(v) => s.serialize_str(v),
            Value::Int(v) => s.serialize_i32(*v),
            Value::Long(v) => s.serialize_i64(*v),
            Value::Double(v) => s.serialize_f64(*v),
            Value::Bool(v) => s.serialize_bool(*v),
            Value::Decimal(v) => serialize_decimal(v, s),
        }
    }
}

/// A decimal as a JSON number whose text is Flink's (`1.50`: the scale kept), through
/// `serde_json`'s raw value (a serializer other than `serde_json`'s sees a string). In the
/// page's WebAssembly module it is that text as a JSON string: `JSON.parse` would drop the
/// trailing zeros of a number (and digits past 2^53), and the raw value support costs the
/// module about 3.4 kB gzipped; the page prints the string as it is.
#[cfg(not(target_arch = "wasm32"))]
pub fn serialize_decimal<S: Serializer>(d: &Decimal, s: S) -> Result<S::Ok, S::Error> {
    match serde_json::value::RawValue::from_string(d.to_string()) {
        Ok(raw) => raw.serialize(s),
        Err(_) => s.serialize_str(&d.to_string()),
    }
}

/// See the native [`serialize_decimal`].
#[cfg(target_arch = "wasm32")]
pub fn serialize_decimal<S: Serializer>(d: &Decimal, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&d.to_string())
}

/// Guesses a column's type from its values when the scenario does not declare it: INT when
/// every value is an integer that fits 32 bits, BIGINT for larger integers, DOUBLE for other
/// numbers, BOOLEAN for true/false, STRING otherwise (nulls are ignored).
pub fn infer_type<'a>(values: impl Iterator<Item = &'a str>) -> ColumnType {
    let mut int = true;
    let mut long = true;
    let mut double = true;
    let mut boolean = true;
    let mut any = false;
    for v in values {
        if v.eq_ignore_ascii_case("null") {
            continue;
        }
        any = true;
        int &= v.parse::<i32>().is_ok();
        long &= v.parse::<i64>().is_ok();
        double &= v.parse::<f64>().map(f64::is_finite).unwrap_or(false)
            && !v.contains(['i', 'n', 'N', 'I']);
        boolean &= v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("false");
    }
    if !any {
        ColumnType::String
    } else if int {
        ColumnType::Int
    } else if long {
        ColumnType::Long
    } else if double {
        ColumnType::Double
    } else if boolean {
        ColumnType::Boolean
    } else {
        ColumnType::String
    }
}
