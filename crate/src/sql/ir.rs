//! The query's projection as a small expression language that a scenario stores
//! (`job.query`) and the engine evaluates on every output row (`columns` and `values` of the
//! result).
//!
//! Only what Flink evaluates *after* the join is here: the join itself (keys, time bounds) is
//! the operator's spec. An output row is the left row's columns then the right row's, with a
//! missing side all NULL (an outer join's padding, `OuterJoinPaddingUtil`).

use crate::decimal::Decimal;
use crate::value::Value;
use serde::{Deserialize, Serialize};

/// `SELECT` list of a SQL query; empty means `SELECT *` without a projection of its own.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuerySpec {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub select: Vec<SelectItem>,
    /// `WHERE` conjuncts on the left input alone, pushed below the join as Flink's
    /// `FlinkFilterJoinRule` does for a side whose rows the join keeps (inner joins, the
    /// preserved side of an outer join): the rows it rejects still move their stream's
    /// watermark (the filter runs after the source's watermark generator) but never reach the
    /// join.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub where_left: Option<SqlExpr>,
    /// The same for the right input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub where_right: Option<SqlExpr>,
}

/// One output column: an expression and the name Flink gives it (its alias, the column's own
/// name, or `EXPR$i`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelectItem {
    pub expr: SqlExpr,
    pub name: String,
}

/// A scalar expression over the joined row.
///
/// In a scenario document an expression is one string in prefix form: a column `c0:name`
/// (left input) or `c1:name` (right), literals `null`, `true`, `false`, `'text'` (`''` is a
/// quote), `i:5` (INT), `l:5` (BIGINT), `d:1.5` (DOUBLE), `dec:1.50` (DECIMAL(3, 2), the
/// literal's digits giving its type), `ts:MS` (TIMESTAMP), an interval
/// `iv:MS`, and calls `(op args…)` with `op` one of `+ - * / % = <> < <= > >= and or ||`,
/// `not`, `neg`, `is_null`, `is_not_null`, `coalesce`, `cast:TYPE`, `common:TYPE`, and
/// `(case c1 v1 c2 v2 … [else e])`; a name with other characters than letters, digits and
/// `_` is quoted: `c0:'log id'`. E.g. `(and (> c0:v i:15) (<> c0:v i:30))`. Read and written
/// by hand through a string: the engine's wasm module reads it, and serde's derived code for a
/// recursive enum (or a JSON tree) costs it several kB.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum SqlExpr {
    /// A column of input `input` (0 = left / FROM table, 1 = right / joined table).
    Col {
        input: u8,
        name: String,
    },
    /// A literal; `null` is SQL NULL.
    Lit(Literal),
    /// `INTERVAL …` in milliseconds (only as an operand of `+` / `-` with a time attribute).
    Interval(i64),
    Bin {
        op: BinOp,
        left: Box<SqlExpr>,
        right: Box<SqlExpr>,
    },
    Not(Box<SqlExpr>),
    Neg(Box<SqlExpr>),
    IsNull {
        expr: Box<SqlExpr>,
        negated: bool,
    },
    /// `CASE WHEN c THEN v … ELSE e END` (searched form; the simple form is rewritten).
    Case {
        when: Vec<(SqlExpr, SqlExpr)>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        otherwise: Option<Box<SqlExpr>>,
    },
    Coalesce(Vec<SqlExpr>),
    /// `CAST(e AS t)`; `t` is `INT`, `BIGINT`, `DOUBLE`, `STRING`, `BOOLEAN`, `DECIMAL(p, s)`.
    Cast {
        expr: Box<SqlExpr>,
        ty: String,
    },
    /// A `CASE` or `COALESCE` whose numeric branches have different types, cast to their
    /// common type (the planner's least restrictive type, `LogicalTypeMerging.findCommonType`:
    /// `COALESCE(DECIMAL(10, 2), DECIMAL(20, 5))` is a `DECIMAL(20, 5)` and prints `1.50000`).
    /// Derived from the query when a script is read and printed as the expression alone.
    Common {
        expr: Box<SqlExpr>,
        ty: String,
    },
}

/// A literal value.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Null,
    Int(i32),
    Long(i64),
    Double(f64),
    Str(String),
    Bool(bool),
    /// `TIMESTAMP '…'` as epoch milliseconds.
    Timestamp(i64),
    /// An exact numeric literal with a point (`1.50`, `DECIMAL(3, 2)`).
    Decimal(crate::decimal::Decimal),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Concat,
}

impl BinOp {
    const ALL: [BinOp; 14] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::Mod,
        BinOp::Eq,
        BinOp::Ne,
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
        BinOp::And,
        BinOp::Or,
        BinOp::Concat,
    ];
    /// The SQL operator.
    pub fn sql(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
            BinOp::Eq => "=",
            BinOp::Ne => "<>",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "AND",
            BinOp::Or => "OR",
            BinOp::Concat => "||",
        }
    }
}

/// A value during evaluation: a typed value, or a timestamp (epoch ms).
#[derive(Clone, Debug, PartialEq)]
pub enum EvalValue {
    V(Value),
    Ts(i64),
}

/// The inputs of one output row: each side's values and the index of its time attribute.
pub struct RowView<'a> {
    pub columns: [&'a [String]; 2],
    pub values: [Option<&'a [Value]>; 2],
    pub time: [Option<usize>; 2],
    /// A window join's window `[start, end)` of each input's row: the columns after an
    /// input's own are its `window_start`, `window_end` and `window_time` (`end - 1`), all
    /// timestamps. (With SESSION windows the two inputs' starts may differ.)
    pub window: [Option<[i64; 2]>; 2],
    /// Each input's `PROCTIME()` column, if its table declares one.
    pub proctime: [Option<&'a str>; 2],
    /// The output's processing time: what a `PROCTIME()` column holds (Flink materialises
    /// it, `PROCTIME_MATERIALIZE`, when the joined row is emitted; the simulation's clock
    /// then). `None` where no output is being projected (a pushed-down `WHERE`).
    pub now: Option<i64>,
}

fn null() -> EvalValue {
    EvalValue::V(Value::Null)
}

fn is_null(v: &EvalValue) -> bool {
    matches!(v, EvalValue::V(Value::Null))
}

fn truth(v: &EvalValue) -> Option<bool> {
    match v {
        EvalValue::V(Value::Bool(b)) => Some(*b),
        _ => None,
    }
}

/// A numeric operand: an `INT` (`false`) or `BIGINT` (`true`), a `DOUBLE`, a `DECIMAL`.
enum Num {
    I(i64, bool),
    F(f64),
    D(Decimal),
}

fn num(v: &EvalValue) -> Option<Num> {
    match v {
        EvalValue::V(Value::Int(i)) => Some(Num::I(*i as i64, false)),
        EvalValue::V(Value::Long(i)) => Some(Num::I(*i, true)),
        EvalValue::V(Value::Double(d)) => Some(Num::F(*d)),
        EvalValue::V(Value::Decimal(d)) => Some(Num::D(**d)),
        _ => None,
    }
}

/// An exact operand as a decimal: an integer has the type Calcite gives it in decimal
/// arithmetic (`INT` is `DECIMAL(10, 0)`, `BIGINT` `DECIMAL(19, 0)`); `None` for a `DOUBLE`.
fn as_dec(n: &Num) -> Option<Decimal> {
    match n {
        Num::I(i, true) => Some(crate::decimal::of_long(*i)),
        Num::I(i, false) => Some(crate::decimal::of_int(*i as i32)),
        Num::D(d) => Some(*d),
        Num::F(_) => None,
    }
}

fn dec_value(d: Option<Decimal>) -> EvalValue {
    // NULL where the exact result has more digits than its type (DecimalData.fromBigDecimal).
    d.map_or(null(), |d| EvalValue::V(Value::Decimal(Box::new(d))))
}

impl SqlExpr {
    /// Calls `f` with the input and name of every column the expression reads.
    pub fn visit_columns<'a>(&'a self, f: &mut impl FnMut(u8, &'a str)) {
        match self {
            SqlExpr::Col { input, name } => f(*input, name),
            SqlExpr::Lit(_) | SqlExpr::Interval(_) => {}
            SqlExpr::Bin { left, right, .. } => {
                left.visit_columns(f);
                right.visit_columns(f);
            }
            SqlExpr::Not(x)
            | SqlExpr::Neg(x)
            | SqlExpr::Cast { expr: x, .. }
            | SqlExpr::Common { expr: x, .. } => x.visit_columns(f),
            SqlExpr::IsNull { expr, .. } => expr.visit_columns(f),
            SqlExpr::Case { when, otherwise } => {
                for (c, v) in when {
                    c.visit_columns(f);
                    v.visit_columns(f);
                }
                if let Some(e) = otherwise {
                    e.visit_columns(f);
                }
            }
            SqlExpr::Coalesce(xs) => xs.iter().for_each(|x| x.visit_columns(f)),
        }
    }

    /// Evaluates the expression on one output row. Errors (a division by zero, an unknown
    /// column) become NULL only where Flink's would be NULL; otherwise they are reported.
    pub fn eval(&self, row: &RowView) -> Result<EvalValue, String> {
        Ok(match self {
            SqlExpr::Col { input, name } => {
                let i = (*input as usize).min(1);
                if row.proctime[i] == Some(name.as_str()) {
                    // A null-padded side has no row, and so no processing time of its own.
                    return Ok(match (row.values[i], row.now) {
                        (Some(_), Some(t)) => EvalValue::Ts(t),
                        _ => null(),
                    });
                }
                let Some(ci) = row.columns[i].iter().position(|c| c == name) else {
                    return Err(format!("unknown column {name}"));
                };
                match row.values[i] {
                    None => null(),
                    Some(vals) if ci >= vals.len() => match (row.window[i], ci - vals.len()) {
                        (Some([start, _]), 0) => EvalValue::Ts(start),
                        (Some([_, end]), 1) => EvalValue::Ts(end),
                        (Some([_, end]), _) => EvalValue::Ts(end.saturating_sub(1)),
                        (None, _) => null(),
                    },
                    Some(vals) => match (&vals[ci], row.time[i] == Some(ci)) {
                        (Value::Long(ms), true) => EvalValue::Ts(*ms),
                        (v, _) => EvalValue::V(v.clone()),
                    },
                }
            }
            SqlExpr::Lit(l) => match l {
                Literal::Null => null(),
                Literal::Int(v) => EvalValue::V(Value::Int(*v)),
                Literal::Long(v) => EvalValue::V(Value::Long(*v)),
                Literal::Double(v) => EvalValue::V(Value::Double(*v)),
                Literal::Str(v) => EvalValue::V(Value::Str(v.as_str().into())),
                Literal::Bool(v) => EvalValue::V(Value::Bool(*v)),
                Literal::Timestamp(v) => EvalValue::Ts(*v),
                Literal::Decimal(d) => EvalValue::V(Value::Decimal(Box::new(*d))),
            },
            SqlExpr::Interval(ms) => EvalValue::V(Value::Long(*ms)),
            SqlExpr::Not(e) => match truth(&e.eval(row)?) {
                Some(b) => EvalValue::V(Value::Bool(!b)),
                None => null(),
            },
            SqlExpr::Neg(e) => match num(&e.eval(row)?) {
                Some(Num::I(i, true)) => EvalValue::V(Value::Long(i.wrapping_neg())),
                Some(Num::I(i, false)) => EvalValue::V(Value::Int((i as i32).wrapping_neg())),
                Some(Num::F(f)) => EvalValue::V(Value::Double(-f)),
                Some(Num::D(d)) => EvalValue::V(Value::Decimal(Box::new(d.neg()))),
                None => null(),
            },
            SqlExpr::IsNull { expr, negated } => {
                EvalValue::V(Value::Bool(is_null(&expr.eval(row)?) != *negated))
            }
            SqlExpr::Case { when, otherwise } => {
                for (c, v) in when {
                    if truth(&c.eval(row)?) == Some(true) {
                        return v.eval(row);
                    }
                }
                match otherwise {
                    Some(e) => e.eval(row)?,
                    None => null(),
                }
            }
            SqlExpr::Coalesce(args) => {
                for a in args {
                    let v = a.eval(row)?;
                    if !is_null(&v) {
                        return Ok(v);
                    }
                }
                null()
            }
            SqlExpr::Cast { expr, ty } | SqlExpr::Common { expr, ty } => cast(expr.eval(row)?, ty)?,
            SqlExpr::Bin { op, left, right } => {
                let l = left.eval(row)?;
                // AND / OR: three-valued logic (a FALSE / TRUE side decides alone).
                if matches!(op, BinOp::And | BinOp::Or) {
                    let r = right.eval(row)?;
                    let (a, b) = (truth(&l), truth(&r));
                    let v = if *op == BinOp::And {
                        match (a, b) {
                            (Some(false), _) | (_, Some(false)) => Some(false),
                            (Some(true), Some(true)) => Some(true),
                            _ => None,
                        }
                    } else {
                        match (a, b) {
                            (Some(true), _) | (_, Some(true)) => Some(true),
                            (Some(false), Some(false)) => Some(false),
                            _ => None,
                        }
                    };
                    return Ok(v.map(|b| EvalValue::V(Value::Bool(b))).unwrap_or(null()));
                }
                let r = right.eval(row)?;
                if is_null(&l) || is_null(&r) {
                    return Ok(null());
                }
                binary(*op, l, r)?
            }
        })
    }
}

fn binary(op: BinOp, l: EvalValue, r: EvalValue) -> Result<EvalValue, String> {
    use std::cmp::Ordering;
    let cmp = |o: Ordering| -> bool {
        match op {
            BinOp::Eq => o == Ordering::Equal,
            BinOp::Ne => o != Ordering::Equal,
            BinOp::Lt => o == Ordering::Less,
            BinOp::Le => o != Ordering::Greater,
            BinOp::Gt => o == Ordering::Greater,
            _ => o != Ordering::Less,
        }
    };
    Ok(match op {
        BinOp::Concat => EvalValue::V(Value::Str(format!("{}{}", text(&l), text(&r)).into())),
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            let o = match (&l, &r) {
                (EvalValue::Ts(a), EvalValue::Ts(b)) => a.cmp(b),
                (EvalValue::V(Value::Str(a)), EvalValue::V(Value::Str(b))) => a.cmp(b),
                (EvalValue::V(Value::Bool(a)), EvalValue::V(Value::Bool(b))) => a.cmp(b),
                _ => match (num(&l), num(&r)) {
                    (Some(Num::I(a, _)), Some(Num::I(b, _))) => a.cmp(&b),
                    // DECIMAL with DECIMAL or an integer: exact (DecimalData.compareTo).
                    (Some(a), Some(b)) if as_dec(&a).is_some() && as_dec(&b).is_some() => {
                        match (as_dec(&a), as_dec(&b)) {
                            (Some(a), Some(b)) => a.compare(&b),
                            _ => Ordering::Equal,
                        }
                    }
                    (Some(a), Some(b)) => {
                        let (a, b) = (as_f(&a), as_f(&b));
                        a.partial_cmp(&b).unwrap_or(Ordering::Equal)
                    }
                    _ => return Err("cannot compare values of different types".into()),
                },
            };
            EvalValue::V(Value::Bool(cmp(o)))
        }
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod => {
            // Interval arithmetic on a time attribute: TIMESTAMP ± INTERVAL.
            if let (EvalValue::Ts(t), Some(Num::I(ms, _))) = (&l, num(&r)) {
                return Ok(match op {
                    BinOp::Add => EvalValue::Ts(t.wrapping_add(ms)),
                    BinOp::Sub => EvalValue::Ts(t.wrapping_sub(ms)),
                    _ => return Err("only + and - apply to a timestamp".into()),
                });
            }
            match (num(&l), num(&r)) {
                (Some(Num::I(a, la)), Some(Num::I(b, lb))) => {
                    let long = la || lb;
                    let v = match op {
                        BinOp::Add => a.wrapping_add(b),
                        BinOp::Sub => a.wrapping_sub(b),
                        BinOp::Mul => a.wrapping_mul(b),
                        // Integer division by zero fails the job in Flink.
                        BinOp::Div if b == 0 => return Err("division by zero".into()),
                        BinOp::Div => a.wrapping_div(b),
                        BinOp::Mod if b == 0 => return Err("division by zero".into()),
                        _ => a.wrapping_rem(b),
                    };
                    if long {
                        EvalValue::V(Value::Long(v))
                    } else {
                        EvalValue::V(Value::Int(v as i32))
                    }
                }
                // DECIMAL arithmetic (DecimalDataUtils) when no operand is a DOUBLE.
                (Some(a), Some(b)) if as_dec(&a).is_some() && as_dec(&b).is_some() => {
                    let (Some(a), Some(b)) = (as_dec(&a), as_dec(&b)) else {
                        return Ok(null());
                    };
                    match op {
                        BinOp::Add => dec_value(a.add(&b)),
                        BinOp::Sub => dec_value(a.sub(&b)),
                        BinOp::Mul => dec_value(a.mul(&b)),
                        BinOp::Div => dec_value(a.div(&b)?),
                        _ => dec_value(a.rem(&b)?),
                    }
                }
                (Some(a), Some(b)) => {
                    let (a, b) = (as_f(&a), as_f(&b));
                    EvalValue::V(Value::Double(match op {
                        BinOp::Add => a + b,
                        BinOp::Sub => a - b,
                        BinOp::Mul => a * b,
                        BinOp::Div => a / b,
                        _ => a % b,
                    }))
                }
                _ => return Err(format!("{} needs numbers", op.sql())),
            }
        }
        BinOp::And | BinOp::Or => unreachable_logic(),
    })
}

fn unreachable_logic() -> EvalValue {
    // AND / OR are handled before `binary` (three-valued logic).
    null()
}

fn as_f(n: &Num) -> f64 {
    match n {
        Num::I(i, _) => *i as f64,
        Num::F(f) => *f,
        // DecimalDataUtils.doubleValue.
        Num::D(d) => d.to_f64(),
    }
}

/// The value as Flink prints it in a string context.
pub fn text(v: &EvalValue) -> String {
    match v {
        EvalValue::Ts(ms) => timestamp_text(*ms),
        EvalValue::V(Value::Double(d)) => format!("{d:?}"),
        EvalValue::V(v) => v.to_string(),
    }
}

/// `YYYY-MM-DD HH:MM:SS.sss`, the form `joinlab run --json` gives timestamps.
pub fn timestamp_text(ms: i64) -> String {
    let s = crate::time::format_datetime(ms);
    if s.len() == 19 {
        format!("{s}.000")
    } else {
        s
    }
}

fn cast(v: EvalValue, ty: &str) -> Result<EvalValue, String> {
    if is_null(&v) {
        return Ok(v);
    }
    let s = text(&v);
    let n = num(&v);
    if let Some(crate::value::ColumnType::Decimal(p, sc)) =
        crate::value::ColumnType::parse(ty).filter(|_| ty.starts_with("DECIMAL"))
    {
        // DecimalDataUtils.castFrom / castToDecimal: HALF_UP to the scale, NULL when too long.
        return match n.as_ref().and_then(as_dec) {
            Some(d) => Ok(dec_value(d.cast(p, sc))),
            None => Err(format!(
                "CAST of {} to {ty} is not simulated",
                match n {
                    Some(Num::F(_)) => "a DOUBLE",
                    _ => "this value",
                }
            )),
        };
    }
    Ok(match ty {
        "STRING" => EvalValue::V(Value::Str(s.into())),
        "INT" => match n {
            Some(Num::I(i, _)) => EvalValue::V(Value::Int(i as i32)),
            Some(Num::F(f)) => EvalValue::V(Value::Int(f as i32)),
            // DecimalDataUtils.castToIntegral, then Java's (int) of the long.
            Some(Num::D(d)) => EvalValue::V(Value::Int(d.to_long() as i32)),
            None => s
                .trim()
                .parse()
                .map(Value::Int)
                .map(EvalValue::V)
                .unwrap_or(null()),
        },
        "BIGINT" => match (n, &v) {
            (_, EvalValue::Ts(ms)) => EvalValue::V(Value::Long(*ms)),
            (Some(Num::I(i, _)), _) => EvalValue::V(Value::Long(i)),
            (Some(Num::F(f)), _) => EvalValue::V(Value::Long(f as i64)),
            (Some(Num::D(d)), _) => EvalValue::V(Value::Long(d.to_long())),
            _ => s
                .trim()
                .parse()
                .map(Value::Long)
                .map(EvalValue::V)
                .unwrap_or(null()),
        },
        "DOUBLE" => match n {
            Some(x) => EvalValue::V(Value::Double(as_f(&x))),
            None => s
                .trim()
                .parse()
                .map(Value::Double)
                .map(EvalValue::V)
                .unwrap_or(null()),
        },
        // DecimalDataUtils.castToBoolean: not zero.
        "BOOLEAN" if matches!(n, Some(Num::D(_))) => {
            EvalValue::V(Value::Bool(!matches!(n, Some(Num::D(d)) if d.is_zero())))
        }
        "BOOLEAN" => match s.trim().to_ascii_lowercase().as_str() {
            "true" => EvalValue::V(Value::Bool(true)),
            "false" => EvalValue::V(Value::Bool(false)),
            _ => null(),
        },
        _ => v,
    })
}

/// An evaluated value as the result carries it: a typed value (serialized as a JSON number,
/// string, boolean or null), a timestamp as its `YYYY-MM-DD HH:MM:SS.sss` text.
pub fn to_value(v: EvalValue) -> Value {
    match v {
        EvalValue::Ts(ms) => Value::Str(timestamp_text(ms).into()),
        EvalValue::V(v) => v,
    }
}

/// A type in the prefix form, one word: `DECIMAL(10, 2)` is `DECIMAL_10_2`.
fn type_token(ty: &str) -> String {
    match crate::value::ColumnType::parse(ty) {
        Some(crate::value::ColumnType::Decimal(p, s)) if ty.starts_with("DECIMAL") => {
            format!("DECIMAL_{p}_{s}")
        }
        _ => ty.to_string(),
    }
}

/// See [`type_token`].
fn type_of_token(tok: &str) -> String {
    match tok.strip_prefix("DECIMAL_").and_then(|r| r.split_once('_')) {
        Some((p, s)) => format!("DECIMAL({p}, {s})"),
        None => tok.to_string(),
    }
}

fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn name_text(n: &str) -> String {
    if !n.is_empty() && n.chars().all(|c| c.is_alphanumeric() || c == '_') {
        n.to_string()
    } else {
        quoted(n)
    }
}

impl std::fmt::Display for SqlExpr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = |f: &mut std::fmt::Formatter<'_>, op: &str, args: &[&SqlExpr]| {
            write!(f, "({op}")?;
            for a in args {
                write!(f, " {a}")?;
            }
            write!(f, ")")
        };
        match self {
            SqlExpr::Col { input, name } => write!(f, "c{}:{}", input.min(&1), name_text(name)),
            SqlExpr::Lit(l) => match l {
                Literal::Null => write!(f, "null"),
                Literal::Bool(b) => write!(f, "{b}"),
                Literal::Int(i) => write!(f, "i:{i}"),
                Literal::Long(i) => write!(f, "l:{i}"),
                Literal::Double(d) => write!(f, "d:{d:?}"),
                Literal::Str(s) => write!(f, "{}", quoted(s)),
                Literal::Timestamp(ms) => write!(f, "ts:{ms}"),
                Literal::Decimal(d) => write!(f, "dec:{d}"),
            },
            SqlExpr::Interval(ms) => write!(f, "iv:{ms}"),
            SqlExpr::Bin { op, left, right } => list(f, op.sql_lower(), &[left, right]),
            SqlExpr::Not(x) => list(f, "not", &[x]),
            SqlExpr::Neg(x) => list(f, "neg", &[x]),
            SqlExpr::IsNull { expr, negated } => {
                list(f, if *negated { "is_not_null" } else { "is_null" }, &[expr])
            }
            SqlExpr::Coalesce(a) => list(f, "coalesce", &a.iter().collect::<Vec<_>>()),
            SqlExpr::Cast { expr, ty } => list(f, &format!("cast:{}", type_token(ty)), &[expr]),
            SqlExpr::Common { expr, ty } => list(f, &format!("common:{}", type_token(ty)), &[expr]),
            SqlExpr::Case { when, otherwise } => {
                write!(f, "(case")?;
                for (c, v) in when {
                    write!(f, " {c} {v}")?;
                }
                if let Some(o) = otherwise {
                    write!(f, " else {o}")?;
                }
                write!(f, ")")
            }
        }
    }
}

impl BinOp {
    fn sql_lower(self) -> &'static str {
        match self {
            BinOp::And => "and",
            BinOp::Or => "or",
            other => other.sql(),
        }
    }
}

impl From<SqlExpr> for String {
    fn from(e: SqlExpr) -> String {
        e.to_string()
    }
}

/// Tokens of the prefix form: `(`, `)`, quoted strings (kept with their quotes), words.
fn tokens(s: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut it = s.chars().peekable();
    while let Some(&c) = it.peek() {
        if c.is_whitespace() {
            it.next();
        } else if c == '(' || c == ')' {
            out.push(c.to_string());
            it.next();
        } else {
            let mut w = String::new();
            let mut in_quote = false;
            while let Some(&c) = it.peek() {
                if !in_quote && (c.is_whitespace() || c == '(' || c == ')') {
                    break;
                }
                if c == '\'' {
                    in_quote = !in_quote;
                }
                w.push(c);
                it.next();
            }
            if in_quote {
                return Err(format!("unterminated quote in {s:?}"));
            }
            out.push(w);
        }
    }
    Ok(out)
}

fn unquote(w: &str) -> Option<String> {
    let inner = w.strip_prefix('\'')?.strip_suffix('\'')?;
    Some(inner.replace("''", "'"))
}

fn parse_expr(t: &[String], i: &mut usize, depth: usize) -> Result<SqlExpr, String> {
    // Bounded nesting: the evaluator recurses as deep as the expression.
    if depth > 100 {
        return Err("the expression is nested too deeply".into());
    }
    let w = t.get(*i).ok_or("unexpected end of expression")?.clone();
    *i += 1;
    if w != "(" {
        let num = |v: &str| v.parse::<i64>().map_err(|_| format!("bad number {w:?}"));
        return Ok(if let Some(s) = unquote(&w) {
            SqlExpr::Lit(Literal::Str(s))
        } else if let Some(n) = w.strip_prefix("c0:").or(w.strip_prefix("c1:")) {
            SqlExpr::Col {
                input: u8::from(w.starts_with("c1")),
                name: unquote(n).unwrap_or_else(|| n.to_string()),
            }
        } else if let Some(v) = w.strip_prefix("i:") {
            SqlExpr::Lit(Literal::Int(
                v.parse().map_err(|_| format!("bad INT {w:?}"))?,
            ))
        } else if let Some(v) = w.strip_prefix("l:") {
            SqlExpr::Lit(Literal::Long(num(v)?))
        } else if let Some(v) = w.strip_prefix("d:") {
            SqlExpr::Lit(Literal::Double(
                v.parse().map_err(|_| format!("bad DOUBLE {w:?}"))?,
            ))
        } else if let Some(v) = w.strip_prefix("dec:") {
            SqlExpr::Lit(Literal::Decimal(crate::decimal::Decimal::literal(v)?))
        } else if let Some(v) = w.strip_prefix("ts:") {
            SqlExpr::Lit(Literal::Timestamp(num(v)?))
        } else if let Some(v) = w.strip_prefix("iv:") {
            SqlExpr::Interval(num(v)?)
        } else {
            match w.as_str() {
                "null" => SqlExpr::Lit(Literal::Null),
                "true" => SqlExpr::Lit(Literal::Bool(true)),
                "false" => SqlExpr::Lit(Literal::Bool(false)),
                _ => return Err(format!("unknown term {w:?}")),
            }
        });
    }
    let op = t.get(*i).ok_or("unexpected end of expression")?.clone();
    *i += 1;
    let mut args = Vec::new();
    let mut otherwise = None;
    loop {
        match t.get(*i).map(String::as_str) {
            None => return Err("missing )".into()),
            Some(")") => {
                *i += 1;
                break;
            }
            Some("else") if op == "case" => {
                *i += 1;
                otherwise = Some(Box::new(parse_expr(t, i, depth + 1)?));
            }
            Some(_) => args.push(parse_expr(t, i, depth + 1)?),
        }
    }
    let one = |mut a: Vec<SqlExpr>| -> Result<Box<SqlExpr>, String> {
        match (a.pop(), a.is_empty()) {
            (Some(x), true) => Ok(Box::new(x)),
            _ => Err(format!("({op} …) takes one argument")),
        }
    };
    Ok(match op.as_str() {
        "not" => SqlExpr::Not(one(args)?),
        "neg" => SqlExpr::Neg(one(args)?),
        "is_null" => SqlExpr::IsNull {
            expr: one(args)?,
            negated: false,
        },
        "is_not_null" => SqlExpr::IsNull {
            expr: one(args)?,
            negated: true,
        },
        "coalesce" => SqlExpr::Coalesce(args),
        "case" => {
            if args.len() % 2 != 0 {
                return Err("(case …) takes condition/value pairs".into());
            }
            let mut when = Vec::new();
            let mut it = args.into_iter();
            while let (Some(c), Some(v)) = (it.next(), it.next()) {
                when.push((c, v));
            }
            SqlExpr::Case { when, otherwise }
        }
        _ if op.starts_with("cast:") => SqlExpr::Cast {
            expr: one(args)?,
            ty: type_of_token(&op[5..]),
        },
        _ if op.starts_with("common:") => SqlExpr::Common {
            expr: one(args)?,
            ty: type_of_token(&op[7..]),
        },
        _ => {
            let b = BinOp::ALL
                .into_iter()
                .find(|b| b.sql_lower() == op)
                .ok_or_else(|| format!("unknown operator {op:?}"))?;
            let mut it = args.into_iter();
            match (it.next(), it.next(), it.next()) {
                (Some(l), Some(r), None) => SqlExpr::Bin {
                    op: b,
                    left: Box::new(l),
                    right: Box::new(r),
                },
                _ => return Err(format!("({op} …) takes two arguments")),
            }
        }
    })
}

impl TryFrom<String> for SqlExpr {
    type Error = String;
    fn try_from(s: String) -> Result<SqlExpr, String> {
        let t = tokens(&s)?;
        let mut i = 0;
        let e = parse_expr(&t, &mut i, 0)?;
        if i != t.len() {
            return Err(format!("trailing text in expression {s:?}"));
        }
        Ok(e)
    }
}
