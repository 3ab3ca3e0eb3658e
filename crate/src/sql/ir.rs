//! The query's projection as a small expression language that a scenario stores
//! (`job.query`) and the engine evaluates on every output row (`columns` and `values` of the
//! result).
//!
//! Only what Flink evaluates *after* the join is here: the join itself (keys, time bounds) is
//! the operator's spec. An output row is the left row's columns then the right row's, with a
//! missing side all NULL (an outer join's padding, `OuterJoinPaddingUtil`).

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
/// In JSON: `{"col": [input, "name"]}`, `{"lit": value}` (a JSON number, string, boolean or
/// null; `{"ts": ms}` for a `TIMESTAMP` literal; `{"long": n}` for a BIGINT that fits 32 bits),
/// `{"interval": ms}`, `{"op": "+", "args": [l, r]}` (also `not`, `neg`, `is_null`,
/// `is_not_null`, `coalesce`), `{"case": [[when, then], …], "else": e}`,
/// `{"cast": e, "to": "INT"}`. Converted by hand (not derived): the engine's wasm module reads
/// it, and derived visitors for a recursive enum would cost it several kB.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "serde_json::Value", into = "serde_json::Value")]
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
    /// `CAST(e AS t)`; `t` is `INT`, `BIGINT`, `DOUBLE`, `STRING`, `BOOLEAN`.
    Cast {
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

enum Num {
    I(i64, bool),
    F(f64),
}

fn num(v: &EvalValue) -> Option<Num> {
    match v {
        EvalValue::V(Value::Int(i)) => Some(Num::I(*i as i64, false)),
        EvalValue::V(Value::Long(i)) => Some(Num::I(*i, true)),
        EvalValue::V(Value::Double(d)) => Some(Num::F(*d)),
        _ => None,
    }
}

impl SqlExpr {
    /// Evaluates the expression on one output row. Errors (a division by zero, an unknown
    /// column) become NULL only where Flink's would be NULL; otherwise they are reported.
    pub fn eval(&self, row: &RowView) -> Result<EvalValue, String> {
        Ok(match self {
            SqlExpr::Col { input, name } => {
                let i = (*input as usize).min(1);
                let Some(ci) = row.columns[i].iter().position(|c| c == name) else {
                    return Err(format!("unknown column {name}"));
                };
                match row.values[i] {
                    None => null(),
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
                Literal::Str(v) => EvalValue::V(Value::Str(v.clone())),
                Literal::Bool(v) => EvalValue::V(Value::Bool(*v)),
                Literal::Timestamp(v) => EvalValue::Ts(*v),
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
            SqlExpr::Cast { expr, ty } => cast(expr.eval(row)?, ty),
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
        BinOp::Concat => EvalValue::V(Value::Str(format!("{}{}", text(&l), text(&r)))),
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            let o = match (&l, &r) {
                (EvalValue::Ts(a), EvalValue::Ts(b)) => a.cmp(b),
                (EvalValue::V(Value::Str(a)), EvalValue::V(Value::Str(b))) => a.cmp(b),
                (EvalValue::V(Value::Bool(a)), EvalValue::V(Value::Bool(b))) => a.cmp(b),
                _ => match (num(&l), num(&r)) {
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

fn cast(v: EvalValue, ty: &str) -> EvalValue {
    if is_null(&v) {
        return v;
    }
    let s = text(&v);
    let n = num(&v);
    match ty {
        "STRING" => EvalValue::V(Value::Str(s)),
        "INT" => match n {
            Some(Num::I(i, _)) => EvalValue::V(Value::Int(i as i32)),
            Some(Num::F(f)) => EvalValue::V(Value::Int(f as i32)),
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
        "BOOLEAN" => match s.trim().to_ascii_lowercase().as_str() {
            "true" => EvalValue::V(Value::Bool(true)),
            "false" => EvalValue::V(Value::Bool(false)),
            _ => null(),
        },
        _ => v,
    }
}

/// An evaluated value as the result carries it: a typed value (serialized as a JSON number,
/// string, boolean or null), a timestamp as its `YYYY-MM-DD HH:MM:SS.sss` text.
pub fn to_value(v: EvalValue) -> Value {
    match v {
        EvalValue::Ts(ms) => Value::Str(timestamp_text(ms)),
        EvalValue::V(v) => v,
    }
}

use serde_json::{json, Value as J};

impl From<SqlExpr> for J {
    fn from(e: SqlExpr) -> J {
        match e {
            SqlExpr::Col { input, name } => json!({ "col": [input, name] }),
            SqlExpr::Lit(l) => json!({ "lit": match l {
                Literal::Null => J::Null,
                Literal::Int(i) => i.into(),
                Literal::Long(i) => json!({ "long": i }),
                Literal::Double(d) => json!({ "double": d }),
                Literal::Str(s) => s.into(),
                Literal::Bool(b) => b.into(),
                Literal::Timestamp(ms) => json!({ "ts": ms }),
            } }),
            SqlExpr::Interval(ms) => json!({ "interval": ms }),
            SqlExpr::Bin { op, left, right } => {
                json!({ "op": op.sql(), "args": [J::from(*left), J::from(*right)] })
            }
            SqlExpr::Not(x) => json!({ "op": "not", "args": [J::from(*x)] }),
            SqlExpr::Neg(x) => json!({ "op": "neg", "args": [J::from(*x)] }),
            SqlExpr::IsNull { expr, negated } => json!({
                "op": if negated { "is_not_null" } else { "is_null" },
                "args": [J::from(*expr)]
            }),
            SqlExpr::Coalesce(a) => {
                json!({ "op": "coalesce", "args": a.into_iter().map(J::from).collect::<Vec<_>>() })
            }
            SqlExpr::Case { when, otherwise } => {
                let w: Vec<J> = when
                    .into_iter()
                    .map(|(c, v)| J::Array(vec![c.into(), v.into()]))
                    .collect();
                match otherwise {
                    Some(o) => json!({ "case": w, "else": J::from(*o) }),
                    None => json!({ "case": w }),
                }
            }
            SqlExpr::Cast { expr, ty } => json!({ "cast": J::from(*expr), "to": ty }),
        }
    }
}

impl TryFrom<J> for SqlExpr {
    type Error = String;
    fn try_from(v: J) -> Result<SqlExpr, String> {
        let bad = || format!("not a query expression: {v}");
        let o = v.as_object().ok_or_else(bad)?;
        let sub = |x: &J| SqlExpr::try_from(x.clone());
        if let Some(c) = o.get("col") {
            let (i, n) = (c.get(0).and_then(J::as_u64), c.get(1).and_then(J::as_str));
            return match (i, n) {
                (Some(i), Some(n)) if i < 2 => Ok(SqlExpr::Col {
                    input: i as u8,
                    name: n.to_string(),
                }),
                _ => Err(bad()),
            };
        }
        if let Some(l) = o.get("lit") {
            return Ok(SqlExpr::Lit(match l {
                J::Null => Literal::Null,
                J::Bool(b) => Literal::Bool(*b),
                J::String(s) => Literal::Str(s.clone()),
                J::Number(n) => Literal::Int(
                    n.as_i64()
                        .and_then(|i| i32::try_from(i).ok())
                        .ok_or_else(bad)?,
                ),
                J::Object(m) => match (m.get("long"), m.get("double"), m.get("ts")) {
                    (Some(n), _, _) => Literal::Long(n.as_i64().ok_or_else(bad)?),
                    (_, Some(n), _) => Literal::Double(n.as_f64().ok_or_else(bad)?),
                    (_, _, Some(n)) => Literal::Timestamp(n.as_i64().ok_or_else(bad)?),
                    _ => return Err(bad()),
                },
                _ => return Err(bad()),
            }));
        }
        if let Some(ms) = o.get("interval") {
            return Ok(SqlExpr::Interval(ms.as_i64().ok_or_else(bad)?));
        }
        if let Some(w) = o.get("case") {
            let mut when = Vec::new();
            for p in w.as_array().ok_or_else(bad)? {
                match p.as_array().map(Vec::as_slice) {
                    Some([c, v]) => when.push((sub(c)?, sub(v)?)),
                    _ => return Err(bad()),
                }
            }
            let otherwise = match o.get("else") {
                Some(e) => Some(Box::new(sub(e)?)),
                None => None,
            };
            return Ok(SqlExpr::Case { when, otherwise });
        }
        if let Some(e) = o.get("cast") {
            let ty = o.get("to").and_then(J::as_str).ok_or_else(bad)?.to_string();
            return Ok(SqlExpr::Cast {
                expr: Box::new(sub(e)?),
                ty,
            });
        }
        let op = o.get("op").and_then(J::as_str).ok_or_else(bad)?;
        let args: Vec<SqlExpr> = o
            .get("args")
            .and_then(J::as_array)
            .ok_or_else(bad)?
            .iter()
            .map(sub)
            .collect::<Result<_, _>>()?;
        let one = |args: Vec<SqlExpr>| -> Result<Box<SqlExpr>, String> {
            match <[SqlExpr; 1]>::try_from(args) {
                Ok([a]) => Ok(Box::new(a)),
                Err(_) => Err(format!("{op} takes one argument")),
            }
        };
        Ok(match op {
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
            _ => {
                let b = BinOp::ALL
                    .into_iter()
                    .find(|b| b.sql() == op)
                    .ok_or_else(bad)?;
                match <[SqlExpr; 2]>::try_from(args) {
                    Ok([l, r]) => SqlExpr::Bin {
                        op: b,
                        left: Box::new(l),
                        right: Box::new(r),
                    },
                    Err(_) => return Err(format!("{op} takes two arguments")),
                }
            }
        })
    }
}
