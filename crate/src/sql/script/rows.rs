//! `INSERT INTO t VALUES (…)`: an input table's rows in arrival order, and the literals they
//! may hold.

use super::*;

impl State {
    pub(super) fn row(
        &self,
        ti: usize,
        content: &[Expr],
        at: Location,
        end: Location,
        comments: &[(Span, String)],
    ) -> Result<String, SqlError> {
        let t = &self.tables[ti];
        // A computed rowtime column takes no value in the row: it is computed below.
        let computed = t.time_from.as_ref().map(|(rt, _, _)| rt.as_str());
        let physical = t.columns.len() - usize::from(computed.is_some());
        if content.len() != physical {
            return Err(err(
                at,
                format!(
                    "Column types of query result and sink for '{}' do not match: {} values for {} columns",
                    t.name,
                    content.len(),
                    physical
                ),
            ));
        }
        let mut fields = Vec::new();
        let physical_columns = t
            .columns
            .iter()
            .filter(|(n, _, _)| Some(n.as_str()) != computed);
        let mut source = None;
        for (e, (name, ty, _)) in content.iter().zip(physical_columns) {
            let pos = e.span().start;
            let lit = row_value(e, name, *ty)?;
            let text = match (&lit, ty) {
                (Literal::Null, SqlType::Timestamp { .. }) => {
                    return Err(err(pos, format!("the rowtime column {name} needs a value")))
                }
                (Literal::Null, _) => "null".to_string(),
                (Literal::Timestamp(ms), SqlType::Timestamp { .. }) => {
                    crate::time::format_datetime(*ms)
                }
                (Literal::Str(s), SqlType::Timestamp { .. }) => {
                    // A string literal is cast to TIMESTAMP by Flink.
                    let ms = parse_timestamp(s).map_err(|m| err(pos, m))?;
                    crate::time::format_datetime(ms)
                }
                (Literal::Int(_) | Literal::Long(_), SqlType::Int | SqlType::Bigint)
                | (Literal::Int(_) | Literal::Long(_) | Literal::Double(_), SqlType::Double)
                | (Literal::Bool(_), SqlType::Boolean) => lit_text(&lit),
                // A DECIMAL literal into a DOUBLE column: DecimalDataUtils.doubleValue.
                (Literal::Decimal(d), SqlType::Double) => format!("{:?}", d.to_f64()),
                // Into a DECIMAL(p, s) column the literal is cast as Flink's INSERT casts it:
                // HALF_UP to the scale, NULL when it has too many integral digits.
                (
                    Literal::Int(_) | Literal::Long(_) | Literal::Decimal(_),
                    SqlType::Decimal(p, s),
                ) => {
                    let exact = lit_text(&lit);
                    match crate::decimal::Decimal::parse_literal(&exact, *p, *s) {
                        Ok(Some(d)) => d.to_string(),
                        Ok(None) => "null".to_string(),
                        Err(m) => return Err(err(pos, m)),
                    }
                }
                (Literal::Double(_), SqlType::Decimal(..)) => {
                    // DecimalDataUtils.castFrom(double) goes through Java 17's
                    // Double.toString, whose digits Rust's shortest form does not always match.
                    return Err(unsupported(
                        pos,
                        "a DOUBLE literal (with an exponent) in a DECIMAL column (write it without the exponent)",
                    ));
                }
                (Literal::Str(s), SqlType::String) => field(s),
                _ => {
                    return Err(err(
                        pos,
                        format!(
                            "this value does not fit column {name} of type {}",
                            ty.sql_name()
                        ),
                    ))
                }
            };
            if let (Literal::Long(_), SqlType::Int) = (&lit, ty) {
                return Err(err(
                    pos,
                    format!("this value is out of range for INT column {name}"),
                ));
            }
            if t.time_from.as_ref().is_some_and(|(_, c, _)| c == name) {
                source = Some((lit.clone(), pos));
            }
            fields.push(text);
        }
        if let Some((rt, c, precision)) = &t.time_from {
            // TO_TIMESTAMP_LTZ: epoch milliseconds (precision 3) or seconds (precision 0). A
            // NULL gives a NULL rowtime, on which Flink fails the job
            // (WatermarkAssignerOperator: "RowTime field should not be null").
            // Precision 3 and 0 checked on Flink 2.3.0 (conformance/collect_check.py).
            let raw = match source {
                Some((Literal::Int(v), _)) => Some(v as i64),
                Some((Literal::Long(v), _)) => Some(v),
                _ => None,
            };
            let pos = source.as_ref().map_or(at, |(_, p)| *p);
            let Some(raw) = raw else {
                return Err(err(
                    pos,
                    format!("the rowtime column {rt} = TO_TIMESTAMP_LTZ({c}, {precision}) needs a value of {c}"),
                ));
            };
            let ms = if *precision == 0 {
                raw.saturating_mul(1000)
            } else {
                raw
            };
            // A TIMESTAMP_LTZ is within the years 0001 to 9999.
            if !(-62_135_596_800_000..=253_402_300_799_999).contains(&ms) {
                return Err(err(
                    pos,
                    format!("TO_TIMESTAMP_LTZ({c}, {precision}) of this value is outside the years 0001 to 9999"),
                ));
            }
            if let Some(i) = t.columns.iter().position(|(n, _, _)| n == rt) {
                fields.insert(i, crate::time::format_datetime(ms));
            }
        }
        let mut text = fields.join(", ");
        // Row annotations in a comment on the row's line: `-- -U a=2021-11-01T00:03:10 s=1`.
        if let Some((_, c)) = comments
            .iter()
            .find(|(s, _)| s.start.line == end.line && s.start.column > end.column)
        {
            let words: Vec<&str> = c.split_whitespace().collect();
            let is_annotation = words.first().is_some_and(|w| {
                matches!(*w, "+I" | "-U" | "+U" | "-D")
                    || w.starts_with("a=")
                    || w.starts_with("s=")
            });
            if is_annotation {
                let mut ann = Vec::new();
                for w in words {
                    match w {
                        "+I" => {}
                        "-U" | "+U" | "-D" => text = format!("{w} {text}"),
                        _ if w.starts_with("a=") || w.starts_with("s=") => ann.push(w.to_string()),
                        _ => {
                            return Err(err(
                                end,
                                format!(
                                    "row annotation {w:?}: expected +I, -U, +U, -D, a=TIME or s=N"
                                ),
                            ))
                        }
                    }
                }
                if !ann.is_empty() {
                    text = format!("{text} | {}", ann.join(" "));
                }
            }
        }
        Ok(text)
    }
}

/// A row's value for column `name` of type `ty`. A bare `NULL` has no type, which Calcite's
/// validator rejects in a `VALUES` row ("Illegal use of 'NULL'", also `-NULL` and `(NULL)`);
/// `CAST(NULL AS t)` is a NULL of type `t`, which the sink column takes when `t` casts to it
/// implicitly (`DynamicSinkUtils`' schema check, `LogicalTypeCasts.supportsImplicitCast`:
/// INT to BIGINT, DOUBLE and DECIMAL; BIGINT, DECIMAL and DOUBLE to DOUBLE and DECIMAL; each
/// type to itself, any DECIMAL to any DECIMAL, either timestamp to a timestamp; checked on
/// Flink 2.3.0 type by type).
fn row_value(e: &Expr, name: &str, ty: SqlType) -> Result<Literal, SqlError> {
    let at = e.span().start;
    let mut inner = e;
    while let Expr::Nested(x)
    | Expr::UnaryOp {
        op: UnaryOperator::Minus | UnaryOperator::Plus,
        expr: x,
    } = inner
    {
        inner = x;
    }
    if matches!(inner, Expr::Value(v) if matches!(v.value, SValue::Null)) {
        return Err(err(inner.span().start, "Illegal use of 'NULL'"));
    }
    let mut cast = e;
    while let Expr::Nested(x) = cast {
        cast = x;
    }
    let Expr::Cast {
        expr, data_type, ..
    } = cast
    else {
        return literal(e);
    };
    let mut x = expr.as_ref();
    while let Expr::Nested(n) = x {
        x = n;
    }
    if !matches!(x, Expr::Value(v) if matches!(v.value, SValue::Null)) {
        return Err(err(
            at,
            "a row value must be a literal (a number, 'text', TIMESTAMP '…' or CAST(NULL AS type))",
        ));
    }
    let from = super::ddl::sql_type(data_type, at)?;
    let fits = matches!(
        (from, ty),
        (
            SqlType::Int,
            SqlType::Int | SqlType::Bigint | SqlType::Double | SqlType::Decimal(..)
        ) | (SqlType::Bigint, SqlType::Bigint)
            | (
                SqlType::Bigint | SqlType::Double | SqlType::Decimal(..),
                SqlType::Double | SqlType::Decimal(..),
            )
            | (SqlType::String, SqlType::String)
            | (SqlType::Boolean, SqlType::Boolean)
            | (SqlType::Timestamp { .. }, SqlType::Timestamp { .. })
    );
    if !fits {
        return Err(err(
            at,
            format!(
                "a NULL of type {} does not fit column {name} of type {}",
                from.sql_name(),
                ty.sql_name()
            ),
        ));
    }
    Ok(Literal::Null)
}

pub(super) fn literal(e: &Expr) -> Result<Literal, SqlError> {
    let at = e.span().start;
    Ok(match e {
        Expr::Value(v) => match &v.value {
            SValue::Null => Literal::Null,
            SValue::Boolean(b) => Literal::Bool(*b),
            SValue::SingleQuotedString(s) => Literal::Str(s.clone()),
            SValue::Number(n, _) => number(n, at)?,
            other => return Err(err(at, format!("unexpected literal {other}"))),
        },
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => match literal(expr)? {
            Literal::Int(i) => Literal::Int(-i),
            Literal::Long(i) => match i.checked_neg() {
                Some(n)
                    if n >= i32::MIN as i64 && n <= i32::MAX as i64 && i <= i32::MAX as i64 + 1 =>
                {
                    Literal::Int(n as i32)
                }
                Some(n) => Literal::Long(n),
                None => return Err(err(at, "number out of range")),
            },
            Literal::Double(d) => Literal::Double(-d),
            Literal::Decimal(d) => Literal::Decimal(d.neg()),
            _ => return Err(err(at, "a minus sign needs a number")),
        },
        Expr::TypedString(ts) if matches!(ts.data_type, DataType::Timestamp(..)) => {
            let s = match &ts.value.value {
                SValue::SingleQuotedString(s) => s.clone(),
                other => other.to_string(),
            };
            Literal::Timestamp(parse_timestamp(&s).map_err(|m| err(at, m))?)
        }
        Expr::Nested(inner) => literal(inner)?,
        _ => return Err(err(
            at,
            "a row value must be a literal (a number, 'text', TIMESTAMP '…' or CAST(NULL AS type))",
        )),
    })
}

/// A numeric literal with Calcite's type: `INT`, `BIGINT`, a `DECIMAL(p, s)` for one with a
/// point or too long for a `BIGINT` (`1.50` is `DECIMAL(3, 2)`; more than 38 digits is
/// Calcite's "Numeric literal … out of range"), a `DOUBLE` with an exponent (`1.5e0`).
pub(super) fn number(n: &str, at: Location) -> Result<Literal, SqlError> {
    if let Ok(i) = n.parse::<i32>() {
        return Ok(Literal::Int(i));
    }
    if let Ok(i) = n.parse::<i64>() {
        return Ok(Literal::Long(i));
    }
    if !n.contains(['e', 'E']) {
        return crate::decimal::Decimal::literal(n)
            .map(Literal::Decimal)
            .map_err(|m| err(at, m));
    }
    n.parse::<f64>()
        .ok()
        .filter(|d| d.is_finite())
        .map(Literal::Double)
        .ok_or_else(|| err(at, format!("{n} is not a number")))
}

pub(super) fn lit_text(l: &Literal) -> String {
    match l {
        Literal::Null => "null".into(),
        Literal::Int(i) => i.to_string(),
        Literal::Long(i) => i.to_string(),
        Literal::Double(d) => format!("{d:?}"),
        Literal::Decimal(d) => d.to_string(),
        Literal::Str(s) => field(s),
        Literal::Bool(b) => b.to_string(),
        Literal::Timestamp(ms) => crate::time::format_datetime(*ms),
    }
}
