//! The aggregate calls of a window aggregation and their accumulators: `COUNT(*)`,
//! `COUNT([DISTINCT] col)`, `SUM`, `MIN`, `MAX`, `AVG`, kept per slice and merged per window.

use super::*;
use crate::decimal::Decimal;

/// One resolved aggregate call.
#[derive(Clone, Debug)]
pub(super) struct Call {
    pub(super) func: AggFunc,
    /// Column index (None: `COUNT(*)`).
    pub(super) column: Option<usize>,
    pub(super) ty: ColumnType,
    pub(super) distinct: bool,
}

/// The accumulator of one aggregate call.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct CallAcc {
    /// Non-null values seen (COUNT(col), AVG's count, whether SUM is null).
    pub(super) n: i64,
    /// Integral sum, wrapping as Java `long` arithmetic does.
    pub(super) isum: i64,
    pub(super) fsum: f64,
    /// The `DECIMAL(38, s)` sum of a DECIMAL column (SUM, AVG); `None` is NULL.
    pub(super) dsum: Option<Decimal>,
    /// AVG's DECIMAL sum overflowed: it stays NULL (its `aggDecimalPlus` of NULL is NULL,
    /// where SUM's `ifThenElse(isNull(sum), operand, …)` starts again from the next value).
    pub(super) dsum_lost: bool,
    /// The call is an AVG (see `dsum_lost`).
    pub(super) dsum_avg: bool,
    pub(super) min: Option<Value>,
    pub(super) max: Option<Value>,
    /// COUNT(DISTINCT): value → how often (a `MapView`).
    pub(super) distinct: Vec<(ValueKey, i64)>,
}

/// A totally ordered stand-in for a value (distinct keys, MIN/MAX).
#[derive(Clone, Debug, PartialEq, PartialOrd)]
pub(super) enum ValueKey {
    Bool(bool),
    Num(f64),
    /// A DECIMAL's unscaled value (one column has one scale).
    Dec(i128),
    Str(String),
}

pub(super) fn value_key(v: &Value) -> Option<ValueKey> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(b) => ValueKey::Bool(*b),
        Value::Str(s) => ValueKey::Str(s.to_string()),
        Value::Decimal(d) => ValueKey::Dec(d.unscaled),
        other => ValueKey::Num(other.as_f64()?),
    })
}

/// Flink's `compareTo` order of two non-null values of one column.
pub(super) fn less(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => x.as_bytes() < y.as_bytes(),
        (Value::Bool(x), Value::Bool(y)) => !*x & *y,
        (Value::Decimal(x), Value::Decimal(y)) => x.compare(y) == std::cmp::Ordering::Less,
        _ => a.as_f64().unwrap_or(0.0) < b.as_f64().unwrap_or(0.0),
    }
}

/// The accumulators of one (key, slice or window): `COUNT(*)` (always kept, as the planner
/// adds it for the empty check), each call's accumulator, and the rows it holds (for the
/// trace and the verdicts).
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Acc {
    pub(super) count_star: i64,
    pub(super) calls: Vec<CallAcc>,
    pub(super) rows: Vec<RowId>,
}

impl Acc {
    pub(super) fn new(n: usize) -> Acc {
        Acc {
            count_star: 0,
            calls: vec![CallAcc::default(); n],
            rows: Vec::new(),
        }
    }

    pub(super) fn accumulate(&mut self, calls: &[Call], values: &[Value], row: RowId) {
        self.count_star += 1;
        self.rows.push(row);
        for (c, a) in calls.iter().zip(self.calls.iter_mut()) {
            let Some(col) = c.column else {
                a.n += 1;
                continue;
            };
            let v = &values[col];
            if v.is_null() {
                continue;
            }
            if c.distinct {
                let k = value_key(v).unwrap_or(ValueKey::Bool(false));
                match a.distinct.iter_mut().find(|(x, _)| *x == k) {
                    Some(e) => e.1 += 1,
                    None => a.distinct.push((k, 1)),
                }
                continue;
            }
            a.n += 1;
            match v {
                Value::Int(i) => a.isum = a.isum.wrapping_add(*i as i64),
                Value::Long(i) => a.isum = a.isum.wrapping_add(*i),
                Value::Double(d) => a.fsum += d,
                Value::Decimal(d) => add_decimal(a, c.func, Some(**d)),
                _ => {}
            }
            if a.min.as_ref().is_none_or(|m| less(v, m)) {
                a.min = Some(v.clone());
            }
            if a.max.as_ref().is_none_or(|m| less(m, v)) {
                a.max = Some(v.clone());
            }
        }
    }

    /// `merge` of the generated aggregate handler.
    pub(super) fn merge(&mut self, other: &Acc) {
        self.count_star += other.count_star;
        self.rows.extend_from_slice(&other.rows);
        for (a, b) in self.calls.iter_mut().zip(&other.calls) {
            a.n += b.n;
            a.isum = a.isum.wrapping_add(b.isum);
            a.fsum += b.fsum;
            if b.dsum_lost {
                a.dsum_lost = true;
                a.dsum = None;
            } else if b.dsum.is_some() {
                // mergeExpressions: the same null handling and aggDecimalPlus as accumulate.
                let func = if b.dsum_avg {
                    AggFunc::Avg
                } else {
                    AggFunc::Sum
                };
                add_decimal(a, func, b.dsum);
            }
            if let Some(m) = &b.min {
                if a.min.as_ref().is_none_or(|x| less(m, x)) {
                    a.min = Some(m.clone());
                }
            }
            if let Some(m) = &b.max {
                if a.max.as_ref().is_none_or(|x| less(x, m)) {
                    a.max = Some(m.clone());
                }
            }
            for (k, c) in &b.distinct {
                match a.distinct.iter_mut().find(|(x, _)| x == k) {
                    Some(e) => e.1 += c,
                    None => a.distinct.push((k.clone(), *c)),
                }
            }
        }
    }

    /// `getValue`: the aggregates' results with Flink's result types.
    pub(super) fn values(&self, calls: &[Call]) -> Vec<SqlValue> {
        calls
            .iter()
            .zip(&self.calls)
            .map(|(c, a)| match c.func {
                AggFunc::Count if c.distinct => {
                    SqlValue::Int(a.distinct.iter().filter(|e| e.1 > 0).count() as i64)
                }
                AggFunc::Count => SqlValue::Int(a.n),
                _ if a.n == 0 => SqlValue::Null,
                // SumAggFunction.DecimalSumAggFunction: DECIMAL(38, s).
                AggFunc::Sum if matches!(c.ty, ColumnType::Decimal(..)) => a
                    .dsum
                    .map_or(SqlValue::Null, |d| SqlValue::Decimal(Box::new(d))),
                // AvgAggFunction.DecimalAvgAggFunction: cast(div(sum, count)) into
                // findAvgAggType, DECIMAL(38, max(s, 6)); the division is DecimalDataUtils.divide.
                AggFunc::Avg if matches!(c.ty, ColumnType::Decimal(..)) => {
                    let ColumnType::Decimal(_, s) = c.ty else {
                        return SqlValue::Null;
                    };
                    let (p, s) = crate::decimal::avg_type(s);
                    match a.dsum {
                        Some(sum) => sum
                            .div_as(&crate::decimal::of_long(a.n), p, s)
                            .ok()
                            .flatten()
                            .map_or(SqlValue::Null, |d| SqlValue::Decimal(Box::new(d))),
                        None => SqlValue::Null,
                    }
                }
                AggFunc::Sum => match c.ty {
                    // SUM(INT) is INT: Java int arithmetic wraps.
                    ColumnType::Int => SqlValue::Int(a.isum as i32 as i64),
                    ColumnType::Double => SqlValue::Double(a.fsum),
                    _ => SqlValue::Int(a.isum),
                },
                AggFunc::Avg => match c.ty {
                    // IntegralAvgAggFunction: a BIGINT sum divided by the count, cast back to
                    // the argument type (AVG of INT is INT).
                    ColumnType::Int => SqlValue::Int((a.isum / a.n) as i32 as i64),
                    ColumnType::Double => SqlValue::Double(a.fsum / a.n as f64),
                    _ => SqlValue::Int(a.isum / a.n),
                },
                AggFunc::Min => a.min.as_ref().map_or(SqlValue::Null, SqlValue::of),
                AggFunc::Max => a.max.as_ref().map_or(SqlValue::Null, SqlValue::of),
            })
            .collect()
    }
}

/// Adds a DECIMAL value (or a merged partial sum) to a call's `DECIMAL(38, s)` sum with
/// `aggDecimalPlus` (`DecimalDataUtils.add(sum, v, 38, s)`: NULL when the exact sum needs more
/// than 38 digits). SUM starts from the first non-null value and again after an overflow
/// (`ifThenElse(isNull(sum), operand, plus)`); AVG starts from a `0` and a NULL sum stays NULL.
fn add_decimal(a: &mut CallAcc, func: AggFunc, v: Option<Decimal>) {
    let Some(v) = v else {
        return;
    };
    a.dsum_avg |= func == AggFunc::Avg;
    if a.dsum_lost {
        return;
    }
    a.dsum = match a.dsum {
        None => Some(Decimal {
            precision: crate::decimal::MAX_PRECISION,
            ..v
        }),
        Some(sum) => {
            let r = sum.add_as(&v, crate::decimal::MAX_PRECISION, sum.scale);
            if r.is_none() && a.dsum_avg {
                a.dsum_lost = true;
            }
            r
        }
    };
}

/// Resolves the aggregate calls against the stream's columns.
pub(super) fn resolve(plan: &Plan) -> Result<Vec<Call>, String> {
    let schema = &plan.schemas[0];
    plan.scenario
        .job
        .group
        .aggregates
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let (column, ty) = match &a.column {
                None => {
                    if a.func != AggFunc::Count {
                        return Err(format!(
                            "aggregate {}: {:?}(*) is not SQL; name a column",
                            i + 1,
                            a.func
                        ));
                    }
                    (None, ColumnType::Long)
                }
                Some(name) => {
                    let c = schema
                        .columns
                        .iter()
                        .position(|c| c.name == *name)
                        .ok_or_else(|| {
                            format!(
                                "aggregate {}: column {name:?} is not in {}",
                                i + 1,
                                schema.name
                            )
                        })?;
                    (Some(c), schema.columns[c].ty)
                }
            };
            if matches!(a.func, AggFunc::Sum | AggFunc::Avg)
                && !matches!(
                    ty,
                    ColumnType::Int
                        | ColumnType::Long
                        | ColumnType::Double
                        | ColumnType::Decimal(..)
                )
            {
                return Err(format!(
                    "aggregate {}: {:?} needs a numeric column, not {}",
                    i + 1,
                    a.func,
                    ty.sql_name()
                ));
            }
            if a.distinct && a.func != AggFunc::Count {
                return Err(format!(
                    "aggregate {}: only COUNT(DISTINCT col) is simulated",
                    i + 1
                ));
            }
            Ok(Call {
                func: a.func,
                column,
                ty,
                distinct: a.distinct && column.is_some(),
            })
        })
        .collect()
}
