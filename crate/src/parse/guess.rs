//! The type of an untyped column, guessed value by value as the rows are read (the flags of
//! [`infer_type`](crate::value::infer_type)), and the stored values fixed once it is known.

use super::*;

/// What is known of an untyped column so far: the flags of [`infer_type`](crate::value::infer_type), kept value by value,
/// and which types its values were stored as meanwhile (each as the narrowest type it reads
/// as: INT, BIGINT, DOUBLE, BOOLEAN or STRING).
#[derive(Clone, Debug)]
pub(super) struct Guess {
    int: bool,
    long: bool,
    double: bool,
    boolean: bool,
    any: bool,
    stored_int: bool,
    stored_long: bool,
    stored_double: bool,
    stored_bool: bool,
    /// An integer written with a minus sign that reads as 0 (`-0`): as a DOUBLE it is -0.0,
    /// which the stored integer 0 cannot give back.
    negative_zero: bool,
}

/// What a column's stored values need once its type is known.
pub(super) enum Fix {
    None,
    /// Integers stored as INT (or as INT and BIGINT) in a wider numeric column.
    Widen,
    /// Values stored as a type that cannot be turned into the column's without their text.
    Reread,
}

impl Guess {
    pub(super) fn new() -> Guess {
        Guess {
            int: true,
            long: true,
            double: true,
            boolean: true,
            any: false,
            stored_int: false,
            stored_long: false,
            stored_double: false,
            stored_bool: false,
            negative_zero: false,
        }
    }

    /// The type [`infer_type`](crate::value::infer_type) gives the values seen.
    pub(super) fn column_type(&self) -> ColumnType {
        if !self.any {
            ColumnType::String
        } else if self.int {
            ColumnType::Int
        } else if self.long {
            ColumnType::Long
        } else if self.double {
            ColumnType::Double
        } else if self.boolean {
            ColumnType::Boolean
        } else {
            ColumnType::String
        }
    }

    pub(super) fn fix(&self, ty: ColumnType) -> Fix {
        match ty {
            // Every value read as an INT (or NULL).
            ColumnType::Int => Fix::None,
            ColumnType::Long if self.stored_int => Fix::Widen,
            ColumnType::Long => Fix::None,
            // `i64 as f64` rounds to nearest like the decimal text does, except for `-0`.
            ColumnType::Double if self.negative_zero => Fix::Reread,
            ColumnType::Double if self.stored_int || self.stored_long => Fix::Widen,
            ColumnType::Double => Fix::None,
            // Never inferred: a DECIMAL column is declared.
            ColumnType::Boolean | ColumnType::Decimal(..) => Fix::None,
            ColumnType::String
                if self.stored_int
                    || self.stored_long
                    || self.stored_double
                    || self.stored_bool =>
            {
                Fix::Reread
            }
            ColumnType::String => Fix::None,
        }
    }

    /// Reads one value of an untyped column, as [`Value::parse`] would read it once the
    /// column's type is known (or as near to it as [`Guess::fix`] can mend).
    pub(super) fn read(&mut self, text: &str, quoted: bool) -> Value {
        if !quoted && text.eq_ignore_ascii_case("null") {
            return Value::Null;
        }
        self.any = true;
        if quoted {
            // A quoted value makes the column a string (`infer_type` sees it as "\0").
            self.int = false;
            self.long = false;
            self.double = false;
            self.boolean = false;
            return Value::Str(text.into());
        }
        if !(self.int || self.long || self.double || self.boolean) {
            return Value::Str(text.into());
        }
        if self.long {
            // `str::parse::<i32>` accepts exactly the i64 texts within i32's range.
            if let Ok(v) = text.parse::<i64>() {
                self.boolean = false;
                if v == 0 && text.starts_with('-') {
                    self.negative_zero = true;
                }
                return match i32::try_from(v) {
                    Ok(i) => {
                        self.stored_int = true;
                        Value::Int(i)
                    }
                    Err(_) => {
                        self.int = false;
                        self.stored_long = true;
                        Value::Long(v)
                    }
                };
            }
        }
        self.int = false;
        self.long = false;
        if self.double {
            match text.parse::<f64>() {
                Ok(v) if v.is_finite() && !text.contains(['i', 'n', 'N', 'I']) => {
                    self.boolean = false;
                    self.stored_double = true;
                    return Value::Double(v);
                }
                _ => self.double = false,
            }
        }
        let b = if text.eq_ignore_ascii_case("true") {
            Some(true)
        } else if text.eq_ignore_ascii_case("false") {
            Some(false)
        } else {
            None
        };
        match b {
            Some(b) if self.boolean => {
                self.stored_bool = true;
                Value::Bool(b)
            }
            _ => {
                self.boolean = false;
                Value::Str(text.into())
            }
        }
    }
}

/// Turns the integers stored in column `ci` into the column's wider type (`Fix::Widen`).
/// `values` holds the stream's rows' values, `columns` a row.
pub(super) fn widen(values: &mut [Value], columns: usize, ci: usize, ty: ColumnType) {
    for v in values.iter_mut().skip(ci).step_by(columns) {
        let n = match *v {
            Value::Int(n) => n as i64,
            Value::Long(n) => n,
            _ => continue,
        };
        *v = match ty {
            ColumnType::Double => Value::Double(n as f64),
            _ => Value::Long(n),
        };
    }
}
