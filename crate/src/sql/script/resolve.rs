//! Names and expressions of a query read against its two inputs: columns (qualified or not,
//! a `PROCTIME()` column where allowed), equi-join keys, time bounds and the scalar
//! expressions of the projection and `WHERE`.

use super::*;

/// A bound on `L.t - R.t`: (is the lower bound, value in ms, strict).
pub(super) type Bound = (bool, i64, bool);

#[derive(Clone, Copy)]
pub(crate) struct Resolver<'a> {
    pub(crate) tables: &'a [Table],
    pub(crate) inputs: &'a [(usize, Option<Ident>)],
    /// Whether a `PROCTIME()` column may be named (in the select list).
    pub(crate) proctime_ok: bool,
}

impl Resolver<'_> {
    pub(super) fn side_of(&self, q: &Ident) -> Result<usize, SqlError> {
        for (side, (ti, alias)) in self.inputs.iter().enumerate() {
            let name_ok = match alias {
                Some(a) => a.value.eq_ignore_ascii_case(&q.value),
                None => self.tables[*ti].name.eq_ignore_ascii_case(&q.value),
            };
            if name_ok {
                return Ok(side);
            }
        }
        Err(err(q.span.start, format!("Table '{}' not found", q.value)))
    }

    /// A column reference -> (side, canonical name).
    pub(crate) fn column(&self, e: &Expr) -> Result<Option<(usize, String)>, SqlError> {
        match e {
            Expr::Identifier(id) => {
                let hits: Vec<usize> = self
                    .inputs
                    .iter()
                    .enumerate()
                    .filter(|(_, (ti, _))| self.tables[*ti].has(&id.value))
                    .map(|(s, _)| s)
                    .collect();
                match hits.as_slice() {
                    [s] => Ok(Some((
                        *s,
                        self.tables[self.inputs[*s].0]
                            .canonical(&id.value)
                            .unwrap_or_default(),
                    ))),
                    [] => Err(err(
                        id.span.start,
                        format!("Column '{}' not found in any table", id.value),
                    )),
                    _ => Err(err(
                        id.span.start,
                        format!("Column '{}' is ambiguous", id.value),
                    )),
                }
            }
            Expr::CompoundIdentifier(parts) if parts.len() == 2 => {
                let side = self.side_of(&parts[0])?;
                let t = &self.tables[self.inputs[side].0];
                match t.canonical(&parts[1].value) {
                    Some(n) => Ok(Some((side, n))),
                    None => Err(err(
                        parts[1].span.start,
                        format!(
                            "Column '{}' not found in table '{}'",
                            parts[1].value, parts[0].value
                        ),
                    )),
                }
            }
            Expr::Nested(inner) => self.column(inner),
            _ => Ok(None),
        }
    }

    pub(super) fn is_time_attr(&self, side: usize, name: &str) -> bool {
        let t = &self.tables[self.inputs[side].0];
        t.watermark.as_ref().is_some_and(|(c, _, _)| c == name)
            || t.proctime.as_deref() == Some(name)
    }

    /// `L.k = R.k`.
    pub(super) fn equi(&self, e: &Expr) -> Result<Option<(String, String)>, SqlError> {
        if let Expr::BinaryOp {
            left,
            op: BinaryOperator::Eq,
            right,
        } = e
        {
            if let (Some((sa, a)), Some((sb, b))) = (self.column(left)?, self.column(right)?) {
                if sa != sb && !self.is_time_attr(sa, &a) {
                    // Keys of different DECIMAL types are both cast to their common type
                    // before the exchange, which then hashes that type's bytes.
                    let ty = |side: usize, n: &str| {
                        self.tables[self.inputs[side].0]
                            .columns
                            .iter()
                            .find(|(c, _, _)| c == n)
                            .map(|(_, t, _)| *t)
                    };
                    let (ta, tb) = (ty(sa, &a), ty(sb, &b));
                    if ta != tb
                        && [ta, tb]
                            .iter()
                            .any(|t| matches!(t, Some(SqlType::Decimal(..))))
                    {
                        return Err(unsupported(
                            e.span().start,
                            "a join key equality of columns of different types where one is a DECIMAL (declare both with the same DECIMAL(p, s))",
                        ));
                    }
                    return Ok(Some(if sa == 0 { (a, b) } else { (b, a) }));
                }
            }
        }
        Ok(None)
    }

    /// `X.t [± INTERVAL]` -> (side, offset).
    pub(super) fn time_term(&self, e: &Expr) -> Result<Option<(usize, i64)>, SqlError> {
        if let Some((s, n)) = self.column(e)? {
            return Ok(self.is_time_attr(s, &n).then_some((s, 0)));
        }
        match e {
            Expr::BinaryOp {
                left,
                op: op @ (BinaryOperator::Plus | BinaryOperator::Minus),
                right,
            } => {
                if let Some((s, o)) = self.time_term(left)? {
                    if matches!(right.as_ref(), Expr::Interval(_)) {
                        let ms = interval_ms(right)?;
                        return Ok(Some((
                            s,
                            if *op == BinaryOperator::Plus {
                                o + ms
                            } else {
                                o - ms
                            },
                        )));
                    }
                }
                Ok(None)
            }
            Expr::Nested(inner) => self.time_term(inner),
            _ => Ok(None),
        }
    }

    /// A time condition -> bounds on `L.t - R.t`: (is_lower, value, strict).
    pub(super) fn time_bound(&self, e: &Expr) -> Result<Option<Vec<Bound>>, SqlError> {
        let cmp = |a: &Expr,
                   op: &BinaryOperator,
                   b: &Expr|
         -> Result<Option<(bool, i64, bool)>, SqlError> {
            let (Some((sa, oa)), Some((sb, ob))) = (self.time_term(a)?, self.time_term(b)?) else {
                return Ok(None);
            };
            if sa == sb {
                return Ok(None);
            }
            // Normalise to L.t op R.t + c.
            let (op, c) = if sa == 0 {
                (op.clone(), ob - oa)
            } else {
                let flipped = match op {
                    BinaryOperator::Lt => BinaryOperator::Gt,
                    BinaryOperator::LtEq => BinaryOperator::GtEq,
                    BinaryOperator::Gt => BinaryOperator::Lt,
                    BinaryOperator::GtEq => BinaryOperator::LtEq,
                    o => o.clone(),
                };
                (flipped, oa - ob)
            };
            Ok(match op {
                BinaryOperator::GtEq => Some((true, c, false)),
                BinaryOperator::Gt => Some((true, c, true)),
                BinaryOperator::LtEq => Some((false, c, false)),
                BinaryOperator::Lt => Some((false, c, true)),
                _ => None,
            })
        };
        match e {
            Expr::Between {
                expr,
                negated: false,
                low,
                high,
            } => {
                let lo = cmp(expr, &BinaryOperator::GtEq, low)?;
                let hi = cmp(expr, &BinaryOperator::LtEq, high)?;
                Ok(match (lo, hi) {
                    (Some(a), Some(b)) => Some(vec![a, b]),
                    _ => None,
                })
            }
            Expr::BinaryOp { left, op, right } => Ok(cmp(left, op, right)?.map(|b| vec![b])),
            Expr::Nested(inner) => self.time_bound(inner),
            _ => Ok(None),
        }
    }

    /// The static type of an expression over the inputs' columns, as the planner infers it
    /// (`None`: NULL, an interval, or a type the simulation does not track). Arithmetic
    /// follows Calcite / `LogicalTypeMerging`: integers stay integers (`INT` op `BIGINT` is
    /// `BIGINT`), any `DOUBLE` makes a `DOUBLE`, otherwise a `DECIMAL` by
    /// `findAdditionDecimalType` and the others (an integer as `DECIMAL(10, 0)` /
    /// `DECIMAL(19, 0)`).
    pub(super) fn static_type(&self, e: &SqlExpr) -> Option<SqlType> {
        use crate::decimal as dec;
        use crate::sql::ir::Literal;
        let as_dec = |t: SqlType| match t {
            SqlType::Int => Some((10, 0)),
            SqlType::Bigint => Some((19, 0)),
            SqlType::Decimal(p, s) => Some((p, s)),
            _ => None,
        };
        Some(match e {
            SqlExpr::Col { input, name } => {
                let (ti, _) = self.inputs.get(*input as usize)?;
                let t = &self.tables[*ti];
                if self.is_time_attr(*input as usize, name) {
                    return Some(SqlType::Timestamp { ltz: false });
                }
                t.columns.iter().find(|(n, _, _)| n == name)?.1
            }
            SqlExpr::Lit(l) => match l {
                Literal::Null => return None,
                Literal::Int(_) => SqlType::Int,
                Literal::Long(_) => SqlType::Bigint,
                Literal::Double(_) => SqlType::Double,
                Literal::Decimal(d) => SqlType::Decimal(d.precision, d.scale),
                Literal::Str(_) => SqlType::String,
                Literal::Bool(_) => SqlType::Boolean,
                Literal::Timestamp(_) => SqlType::Timestamp { ltz: false },
            },
            SqlExpr::Interval(_) => return None,
            SqlExpr::Not(_) | SqlExpr::IsNull { .. } => SqlType::Boolean,
            SqlExpr::Neg(x) => self.static_type(x)?,
            SqlExpr::Cast { ty, .. } | SqlExpr::Common { ty, .. } => {
                match crate::value::ColumnType::parse(ty)? {
                    crate::value::ColumnType::Decimal(p, s) => SqlType::Decimal(p, s),
                    crate::value::ColumnType::Int => SqlType::Int,
                    crate::value::ColumnType::Long => SqlType::Bigint,
                    crate::value::ColumnType::Double => SqlType::Double,
                    crate::value::ColumnType::Boolean => SqlType::Boolean,
                    crate::value::ColumnType::String => SqlType::String,
                }
            }
            SqlExpr::Coalesce(args) => self.common_type(args.iter())?,
            SqlExpr::Case { when, otherwise } => {
                self.common_type(when.iter().map(|(_, v)| v).chain(otherwise.as_deref()))?
            }
            SqlExpr::Bin { op, left, right } => match op {
                BinOp::Concat => SqlType::String,
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod => {
                    let (l, r) = (self.static_type(left)?, self.static_type(right)?);
                    match (l, r) {
                        (SqlType::Int, SqlType::Int) => SqlType::Int,
                        (SqlType::Int | SqlType::Bigint, SqlType::Int | SqlType::Bigint) => {
                            SqlType::Bigint
                        }
                        (SqlType::Double, _) | (_, SqlType::Double) => SqlType::Double,
                        _ => {
                            let ((p1, s1), (p2, s2)) = (as_dec(l)?, as_dec(r)?);
                            let (p, s) = match op {
                                BinOp::Add | BinOp::Sub => dec::addition_type(p1, s1, p2, s2),
                                BinOp::Mul => dec::multiplication_type(p1, s1, p2, s2),
                                BinOp::Div => dec::division_type(p1, s1, p2, s2),
                                _ => dec::modulo_type(p1, s1, p2, s2),
                            };
                            SqlType::Decimal(p, s)
                        }
                    }
                }
                _ => SqlType::Boolean,
            },
        })
    }

    /// The common type of a `CASE`'s or `COALESCE`'s branches when they are all numeric
    /// (`LogicalTypeMerging.findCommonType`: `createCommonExactNumericType` keeps the most
    /// integral digits and the largest scale within 38 digits; any `DOUBLE` gives `DOUBLE`);
    /// NULL branches do not count.
    pub(super) fn common_type<'e>(
        &self,
        branches: impl Iterator<Item = &'e SqlExpr>,
    ) -> Option<SqlType> {
        let mut acc: Option<SqlType> = None;
        for b in branches {
            let Some(t) = self.static_type(b) else {
                if matches!(b, SqlExpr::Lit(crate::sql::ir::Literal::Null)) {
                    continue;
                }
                return None;
            };
            acc = Some(match acc {
                None => t,
                Some(a) if a == t => a,
                Some(a) => common_numeric(a, t)?,
            });
        }
        acc
    }

    /// Wraps a `CASE` / `COALESCE` whose numeric branches differ in type into a cast to their
    /// common type (see [`SqlExpr::Common`]).
    pub(super) fn common(&self, e: SqlExpr) -> SqlExpr {
        let branches: Vec<&SqlExpr> = match &e {
            SqlExpr::Coalesce(a) => a.iter().collect(),
            SqlExpr::Case { when, otherwise } => when
                .iter()
                .map(|(_, v)| v)
                .chain(otherwise.as_deref())
                .collect(),
            _ => return e,
        };
        let Some(t) = self.common_type(branches.iter().copied()) else {
            return e;
        };
        let differ = branches.iter().any(|b| {
            !matches!(b, SqlExpr::Lit(crate::sql::ir::Literal::Null))
                && self.static_type(b) != Some(t)
        });
        if differ
            && matches!(
                t,
                SqlType::Int | SqlType::Bigint | SqlType::Double | SqlType::Decimal(..)
            )
        {
            SqlExpr::Common {
                expr: Box::new(e),
                ty: t.sql_name().into(),
            }
        } else {
            e
        }
    }

    pub(super) fn expr(&self, e: &Expr) -> Result<SqlExpr, SqlError> {
        let at = e.span().start;
        if let Some((side, name)) = self.column(e)? {
            if !self.proctime_ok
                && self.tables[self.inputs[side].0].proctime.as_deref() == Some(name.as_str())
            {
                // Flink materialises it as the wall clock when the row is processed
                // (PROCTIME_MATERIALIZE): not a value the simulation gives.
                return Err(unsupported(
                    at,
                    "a PROCTIME() column in a WHERE (its value is the wall clock when Flink processes the row)",
                ));
            }
            return Ok(SqlExpr::Col {
                input: side as u8,
                name,
            });
        }
        let b = |x: &Expr| -> Result<Box<SqlExpr>, SqlError> { Ok(Box::new(self.expr(x)?)) };
        Ok(match e {
            Expr::Value(_) | Expr::TypedString(_) => SqlExpr::Lit(literal(e)?),
            Expr::Interval(_) => SqlExpr::Interval(interval_ms(e)?),
            Expr::Nested(inner) => self.expr(inner)?,
            Expr::UnaryOp {
                op: UnaryOperator::Not,
                expr,
            } => SqlExpr::Not(b(expr)?),
            Expr::UnaryOp {
                op: UnaryOperator::Minus,
                expr,
            } => SqlExpr::Neg(b(expr)?),
            Expr::UnaryOp {
                op: UnaryOperator::Plus,
                expr,
            } => self.expr(expr)?,
            Expr::IsNull(x) => SqlExpr::IsNull {
                expr: b(x)?,
                negated: false,
            },
            Expr::IsNotNull(x) => SqlExpr::IsNull {
                expr: b(x)?,
                negated: true,
            },
            Expr::BinaryOp { left, op, right } => {
                let op = match op {
                    BinaryOperator::Plus => BinOp::Add,
                    BinaryOperator::Minus => BinOp::Sub,
                    BinaryOperator::Multiply => BinOp::Mul,
                    BinaryOperator::Divide => BinOp::Div,
                    BinaryOperator::Modulo => BinOp::Mod,
                    BinaryOperator::Eq => BinOp::Eq,
                    BinaryOperator::NotEq => BinOp::Ne,
                    BinaryOperator::Lt => BinOp::Lt,
                    BinaryOperator::LtEq => BinOp::Le,
                    BinaryOperator::Gt => BinOp::Gt,
                    BinaryOperator::GtEq => BinOp::Ge,
                    BinaryOperator::And => BinOp::And,
                    BinaryOperator::Or => BinOp::Or,
                    BinaryOperator::StringConcat => BinOp::Concat,
                    other => return Err(unsupported(at, &format!("the operator {other}"))),
                };
                SqlExpr::Bin {
                    op,
                    left: b(left)?,
                    right: b(right)?,
                }
            }
            Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => {
                let mut when = Vec::new();
                for c in conditions {
                    let cond = match operand {
                        Some(o) => SqlExpr::Bin {
                            op: BinOp::Eq,
                            left: b(o)?,
                            right: b(&c.condition)?,
                        },
                        None => self.expr(&c.condition)?,
                    };
                    when.push((cond, self.expr(&c.result)?));
                }
                let case = SqlExpr::Case {
                    when,
                    otherwise: match else_result {
                        Some(x) => Some(b(x)?),
                        None => None,
                    },
                };
                self.common(case)
            }
            Expr::Cast {
                expr, data_type, ..
            } => {
                let target = sql_type(data_type, at)?;
                let ty = match target {
                    SqlType::Timestamp { .. } => return Err(unsupported(at, "CAST to TIMESTAMP")),
                    t => t.sql_name(),
                };
                let inner = b(expr)?;
                if let SqlType::Decimal(..) = target {
                    // DOUBLE -> DECIMAL goes through Java 17's Double.toString
                    // (DecimalDataUtils.castFrom(double)), whose digits Rust's shortest form does
                    // not always match; STRING and BOOLEAN casts have rules of their own.
                    if let Some(from @ (SqlType::Double | SqlType::String | SqlType::Boolean)) =
                        self.static_type(&inner)
                    {
                        return Err(unsupported(
                            at,
                            &format!("a CAST of a {} to {ty}", from.sql_name()),
                        ));
                    }
                }
                SqlExpr::Cast {
                    expr: inner,
                    ty: ty.into(),
                }
            }
            Expr::Function(f) if last_ident(&f.name).value.eq_ignore_ascii_case("COALESCE") => {
                let FunctionArguments::List(l) = &f.args else {
                    return Err(err(at, "COALESCE needs arguments"));
                };
                let mut args = Vec::new();
                for a in &l.args {
                    match a {
                        FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => args.push(self.expr(x)?),
                        _ => return Err(err(at, "COALESCE takes plain arguments")),
                    }
                }
                self.common(SqlExpr::Coalesce(args))
            }
            Expr::Function(f) if last_ident(&f.name).value == TABLE_ARG => {
                return Err(err(at, "TABLE t is a table function's argument"))
            }
            Expr::Function(f) => {
                let n = last_ident(&f.name).value.to_ascii_uppercase();
                if matches!(n.as_str(), "COUNT" | "SUM" | "MIN" | "MAX" | "AVG") {
                    return Err(unsupported(
                        at,
                        &format!("{n} without a window TVF GROUP BY (an unbounded aggregation)"),
                    ));
                }
                return Err(unsupported(at, &format!("the function {n}")));
            }
            _ => return Err(unsupported(at, "this expression")),
        })
    }
}

/// `LogicalTypeMerging.createCommonExactNumericType` / `createCommonApproximateNumericType` for
/// two numeric types (`None` when one is not numeric).
pub(super) fn common_numeric(a: SqlType, b: SqlType) -> Option<SqlType> {
    let prec = |t: SqlType| match t {
        SqlType::Int => Some((10u8, 0u8)),
        SqlType::Bigint => Some((19, 0)),
        SqlType::Decimal(p, s) => Some((p, s)),
        _ => None,
    };
    Some(match (a, b) {
        (SqlType::Double, x) | (x, SqlType::Double) => {
            prec(x)?;
            SqlType::Double
        }
        (SqlType::Decimal(..), _) | (_, SqlType::Decimal(..)) => {
            let ((p1, s1), (p2, s2)) = (prec(a)?, prec(b)?);
            let int = (p1 - s1).max(p2 - s2).min(38);
            let scale = s1.max(s2).min(38 - int);
            SqlType::Decimal(int + scale, scale)
        }
        _ => {
            let ((p1, _), (p2, _)) = (prec(a)?, prec(b)?);
            if p1 >= p2 {
                a
            } else {
                b
            }
        }
    })
}
