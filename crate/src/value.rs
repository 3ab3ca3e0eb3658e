//! Typed field values of the rows a user types, and the column types they are parsed as.
//!
//! The Java type of a key decides its `hashCode`, and so the key group and subtask it lands on,
//! so values keep the type a Flink job would give them (`Integer`, `Long`, `String`, …).

use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// The type of a column. `Int` is a Java `Integer` / SQL `INT`, `Long` a `Long` / `BIGINT`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "lowercase")]
pub enum ColumnType {
    String,
    Int,
    Long,
    Double,
    Boolean,
}

impl ColumnType {
    pub fn parse(name: &str) -> Option<ColumnType> {
        Some(match name.trim().to_ascii_lowercase().as_str() {
            "string" | "str" | "varchar" | "text" => ColumnType::String,
            "int" | "integer" | "i32" => ColumnType::Int,
            "long" | "bigint" | "i64" => ColumnType::Long,
            "double" | "float" | "f64" => ColumnType::Double,
            "boolean" | "bool" => ColumnType::Boolean,
            _ => return None,
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
        }
    }

    /// The Flink SQL type name used in exported jobs.
    pub fn sql_name(self) -> &'static str {
        match self {
            ColumnType::String => "STRING",
            ColumnType::Int => "INT",
            ColumnType::Long => "BIGINT",
            ColumnType::Double => "DOUBLE",
            ColumnType::Boolean => "BOOLEAN",
        }
    }
}

/// One field value.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(export, type = "string | number | boolean | null"))]
pub enum Value {
    Null,
    Str(String),
    Int(i32),
    Long(i64),
    Double(f64),
    Bool(bool),
}

impl Value {
    /// Parses one field of a row as the given type. `null` (any case) is SQL NULL.
    pub fn parse(text: &str, ty: ColumnType, quoted: bool) -> Result<Value, String> {
        if !quoted && text.eq_ignore_ascii_case("null") {
            return Ok(Value::Null);
        }
        Ok(match ty {
            ColumnType::String => Value::Str(text.to_string()),
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
            _ => None,
        }
    }
}

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
        }
    }
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
