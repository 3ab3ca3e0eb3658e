//! Window joins in a script, as the Flink documentation writes them: each input windowed by a
//! TVF (`(SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(rt), INTERVAL '5' MINUTES))) AS L`, or
//! `TABLE(TUMBLE(…)) AS L` directly), joined on `window_start`, `window_end` and at most one
//! key; a semi join is `WHERE EXISTS (…)` or `WHERE L.k IN (SELECT R.k …)`, an anti join
//! `WHERE NOT EXISTS (…)`.
//!
//! The inputs of a window join carry the TVF's columns `window_start`, `window_end` and
//! `window_time` after their own (`SqlWindowTableFunction`'s row type), so `SELECT *` and the
//! select list see them; the query evaluator gives them from each result's window.

use super::script::{err, projection_tables, split_and, unsupported, Resolver, Table};
use super::tvf::tvf_call;
use super::SqlError;
use crate::scenario::{JoinType, TvfSpec};
use sqlparser::ast::{
    BinaryOperator, Expr, Ident, InTarget, JoinConstraint, JoinOperator, Select, SelectItem,
    SetExpr, Spanned, TableFactor, TableWithJoins,
};
use sqlparser::tokenizer::Location;

/// The window columns a window TVF adds to its input's columns.
pub const WINDOW_COLUMNS: [&str; 3] = ["window_start", "window_end", "window_time"];

/// One windowed input: its TVF, table index, alias and the TVF call's position.
pub(crate) struct Windowed {
    tvf: TvfSpec,
    /// SESSION's `PARTITION BY` columns.
    partition: Vec<String>,
    table: usize,
    alias: Option<Ident>,
    at: Location,
}

/// What a window join query sets.
pub(crate) struct WindowJoinQuery {
    pub tvf: TvfSpec,
    pub join: JoinType,
    pub keys: Option<(String, String)>,
    /// The two inputs (table index, alias).
    pub inputs: Vec<(usize, Option<Ident>)>,
    /// The tables as the query sees them (with the window columns).
    pub tables: Vec<Table>,
}

/// `(SELECT * FROM TABLE(TVF(…))) [AS] a` or `TABLE(TVF(…)) [AS] a`; `None` for any other
/// FROM item.
pub(crate) fn windowed(tables: &[Table], f: &TableFactor) -> Result<Option<Windowed>, SqlError> {
    let (expr, alias) = match f {
        TableFactor::TableFunction { expr, alias } => (expr, alias),
        TableFactor::Derived {
            subquery, alias, ..
        } => {
            let SetExpr::Select(s) = &*subquery.body else {
                return Ok(None);
            };
            let [TableWithJoins { relation, joins }] = &s.from[..] else {
                return Ok(None);
            };
            let TableFactor::TableFunction { expr, .. } = relation else {
                return Ok(None);
            };
            if !joins.is_empty() {
                return Ok(None);
            }
            let star = matches!(&s.projection[..], [SelectItem::Wildcard(_)]);
            let grouped = !matches!(&s.group_by, sqlparser::ast::GroupByExpr::Expressions(v, _) if v.is_empty());
            if !star || s.selection.is_some() || grouped || subquery.order_by.is_some() {
                return Err(unsupported(
                    s.span().start,
                    "a windowed subquery other than SELECT * FROM TABLE(window TVF)",
                ));
            }
            (expr, alias)
        }
        _ => return Ok(None),
    };
    let (tvf, table, partition) = tvf_call(tables, expr)?;
    Ok(Some(Windowed {
        tvf,
        partition,
        table,
        alias: alias.as_ref().map(|a| a.name.clone()),
        at: expr.span().start,
    }))
}

/// SESSION on both sides: the simulated plan partitions each input's TVF by the key the join
/// equates (or neither side has `PARTITION BY` nor a key), so that a key's TVF subtask is its
/// join subtask (`crate::operators::session_tvf`).
fn session_partitions(
    left: &Windowed,
    right: &Windowed,
    key: Option<&(String, String)>,
) -> Result<(), SqlError> {
    let lower = |v: &[String]| v.iter().map(|c| c.to_lowercase()).collect::<Vec<_>>();
    let (lp, rp) = (lower(&left.partition), lower(&right.partition));
    if lp.is_empty() != rp.is_empty() || lp.len() != rp.len() {
        // Different SessionWindowSpecs: WindowJoinUtil warns and plans a regular join.
        return Err(err(
            right.at,
            "Currently, window join doesn't support different window table function of left and right inputs: the two SESSION calls are partitioned differently. (Flink 2.3 only warns and plans a regular join instead; not simulated.)",
        ));
    }
    let want: Vec<Vec<String>> = match key {
        Some((a, b)) => vec![vec![a.to_lowercase()], vec![b.to_lowercase()]],
        None => vec![Vec::new(), Vec::new()],
    };
    for (w, got, want) in [(left, &lp, &want[0]), (right, &rp, &want[1])] {
        if got != want {
            return Err(unsupported(
                w.at,
                if key.is_some() && got.is_empty() {
                    "SESSION without PARTITION BY in a window join with a key (Flink 2.3 runs the TVF on one subtask, then hashes by the key; Joinlab simulates PARTITION BY the join key)"
                } else if key.is_some() {
                    "SESSION partitioned by anything but the join key in a window join (Flink 2.3 runs it, with the TVF and the join on different exchanges; Joinlab simulates PARTITION BY the join key)"
                } else {
                    "SESSION with PARTITION BY in a window join without a key (Joinlab simulates PARTITION BY the join key, or no PARTITION BY and no key)"
                },
            ));
        }
    }
    Ok(())
}

/// Reads a window join whose left input is `left`.
pub(crate) fn read(
    tables: &[Table],
    sel: &Select,
    from: &TableWithJoins,
    left: Windowed,
    at: Location,
) -> Result<WindowJoinQuery, SqlError> {
    if from.joins.len() > 1 {
        return Err(unsupported(
            from.joins[1].relation.span().start,
            "a join of more than two tables",
        ));
    }
    let not_windowed = |at: Location| {
        unsupported(
            at,
            "a join of a windowed input with an input that is not windowed (Flink plans a regular join)",
        )
    };
    // (right input, join type, the conditions, where they are, the IN key pair)
    let (right, join, on, on_at, in_keys) = if let Some(j) = from.joins.first() {
        let right =
            windowed(tables, &j.relation)?.ok_or_else(|| not_windowed(j.relation.span().start))?;
        let (jt, c) = match &j.join_operator {
            JoinOperator::Join(c) | JoinOperator::Inner(c) => (JoinType::Inner, c),
            JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => (JoinType::Left, c),
            JoinOperator::Right(c) | JoinOperator::RightOuter(c) => (JoinType::Right, c),
            JoinOperator::FullOuter(c) => (JoinType::Full, c),
            _ => return Err(unsupported(j.relation.span().start, "this kind of join")),
        };
        let JoinConstraint::On(on) = c else {
            return Err(unsupported(
                j.relation.span().start,
                "a window join without ON",
            ));
        };
        if let Some(w) = &sel.selection {
            return Err(unsupported(w.span().start, "WHERE after a window join"));
        }
        (right, jt, Some(on), on.span().start, None)
    } else {
        // WHERE [NOT] EXISTS (SELECT … FROM <windowed> WHERE …) / WHERE L.k IN (SELECT R.k …).
        let Some(w) = &sel.selection else {
            return Err(unsupported(
                at,
                "a window TVF without a join or GROUP BY (a window table)",
            ));
        };
        let (sub, join, key) = match w {
            Expr::Exists { subquery, negated } => (
                subquery,
                if *negated {
                    JoinType::Anti
                } else {
                    JoinType::Semi
                },
                None,
            ),
            Expr::In {
                expr,
                target: InTarget::Subquery(subquery),
                negated: false,
                ..
            } => (subquery, JoinType::Semi, Some(&**expr)),
            Expr::In {
                target: InTarget::Subquery(_),
                negated: true,
                ..
            } => {
                // NOT IN is a null-aware anti join (its condition has `k IS NULL OR …`),
                // which is not the window join's anti join.
                return Err(unsupported(
                    w.span().start,
                    "NOT IN with a windowed subquery (a null-aware anti join); write NOT EXISTS",
                ));
            }
            other => {
                return Err(unsupported(
                    other.span().start,
                    "this WHERE on a windowed input (a window semi or anti join is WHERE [NOT] EXISTS or IN with a windowed subquery)",
                ))
            }
        };
        let SetExpr::Select(s) = &*sub.body else {
            return Err(unsupported(sub.span().start, "this subquery"));
        };
        let [TableWithJoins { relation, joins }] = &s.from[..] else {
            return Err(unsupported(s.span().start, "this subquery's FROM"));
        };
        if !joins.is_empty() {
            return Err(unsupported(
                joins[0].relation.span().start,
                "a join in the subquery",
            ));
        }
        let right =
            windowed(tables, relation)?.ok_or_else(|| not_windowed(relation.span().start))?;
        let in_keys = match key {
            None => None,
            Some(k) => match &s.projection[..] {
                [SelectItem::UnnamedExpr(r)] => Some((k, r)),
                _ => return Err(err(s.span().start, "the IN subquery selects one column")),
            },
        };
        let on_at = s
            .selection
            .as_ref()
            .map_or(s.span().start, |e| e.span().start);
        (right, join, s.selection.as_ref(), on_at, in_keys)
    };
    if right.table == left.table {
        return Err(unsupported(right.at, "a self-join"));
    }
    // PlannerBase's WindowJoinUtil: both inputs need the same window.
    if right.tvf != left.tvf {
        return Err(err(
            right.at,
            format!(
                "Currently, window join doesn't support different window table function of left and right inputs.\nThe left window table function is {}.\nThe right window table function is {}.\n(Flink 2.3 only warns and plans a regular join instead; not simulated.)",
                crate::tvf::spec_string(&left.tvf),
                crate::tvf::spec_string(&right.tvf)
            ),
        ));
    }
    let inputs = vec![
        (left.table, left.alias.clone()),
        (right.table, right.alias.clone()),
    ];
    let wtables = projection_tables(tables);
    let resolver = Resolver {
        tables: &wtables,
        inputs: &inputs,
        proctime_ok: false,
    };
    let mut conj = Vec::new();
    if let Some(on) = on {
        split_and(on, &mut conj);
    }
    let (mut start, mut end) = (false, false);
    let mut keys: Vec<(String, String)> = Vec::new();
    // In a semi join's subquery, an unqualified column is the subquery's own table's first
    // (SQL scoping, Calcite's SqlValidatorImpl: the inner scope, then the outer one); the IN's
    // left side is in the outer query, which sees the left input only.
    let subquery = from.joins.is_empty();
    let inner = |e: &Expr| scoped_column(&resolver, e, subquery.then_some(1));
    type Col = Option<(usize, String)>;
    let mut pair = |a: Col, b: Col, whole: &Expr| -> Result<(), SqlError> {
        let (Some((sa, ca)), Some((sb, cb))) = (a, b) else {
            return Err(unsupported(
                whole.span().start,
                "this window join condition (only window_start, window_end and key equalities are simulated)",
            ));
        };
        if sa == sb {
            return Err(unsupported(
                whole.span().start,
                "a condition on one input in a window join",
            ));
        }
        let (l, r) = if sa == 0 { (ca, cb) } else { (cb, ca) };
        let wa = WINDOW_COLUMNS.iter().position(|w| *w == l);
        let wb = WINDOW_COLUMNS.iter().position(|w| *w == r);
        match (wa, wb) {
            (Some(0), Some(0)) => start = true,
            (Some(1), Some(1)) => end = true,
            (None, None) => keys.push((l, r)),
            _ => {
                return Err(unsupported(
                    whole.span().start,
                    "this window column condition (a window join equates window_start with window_start and window_end with window_end)",
                ))
            }
        }
        Ok(())
    };
    if let Some((k, r)) = in_keys {
        // The IN's left side: the outer query's scope (the left input only).
        let outer = scoped_column(&resolver, k, Some(0))?;
        if outer.as_ref().is_some_and(|(s, _)| *s != 0) {
            return Err(err(
                k.span().start,
                "the left side of IN refers to the subquery's table, which the outer query does not see",
            ));
        }
        pair(outer, inner(r)?, k)?;
    }
    for c in conj {
        match c {
            Expr::BinaryOp {
                left: a,
                op: BinaryOperator::Eq,
                right: b,
            } => pair(inner(a)?, inner(b)?, c)?,
            other => {
                return Err(unsupported(
                    other.span().start,
                    "this window join condition (only window_start, window_end and key equalities are simulated)",
                ))
            }
        }
    }
    if !(start && end) {
        // WindowJoinUtil.excludeWindowStartEqualityAndEndEqualityFromJoinInfoPairs.
        return Err(err(
            on_at,
            "Currently, window join requires JOIN ON condition must contain both window starts equality of input tables and window ends equality of input tables. (Flink 2.3 only warns and plans a regular join instead; not simulated.)",
        ));
    }
    if keys.len() > 1 {
        return Err(unsupported(on_at, "a window join on several key columns"));
    }
    if left.tvf.kind == crate::scenario::TvfKind::Session {
        session_partitions(&left, &right, keys.first())?;
    }
    Ok(WindowJoinQuery {
        tvf: left.tvf,
        join,
        keys: keys.pop(),
        inputs,
        tables: wtables,
    })
}

/// A column reference in a scope whose innermost table is input `first` (`None`: the join's
/// own scope, both inputs at one level): an unqualified name the `first` input has is that
/// input's; any other reference resolves as in the join.
fn scoped_column(
    resolver: &Resolver,
    e: &Expr,
    first: Option<usize>,
) -> Result<Option<(usize, String)>, SqlError> {
    let id = match e {
        Expr::Identifier(id) => id,
        Expr::Nested(inner) => return scoped_column(resolver, inner, first),
        _ => return resolver.column(e),
    };
    if let Some(side) = first {
        let t = &resolver.tables[resolver.inputs[side].0];
        if let Some(name) = t.canonical(&id.value) {
            return Ok(Some((side, name)));
        }
    }
    resolver.column(e)
}

#[cfg(test)]
mod tests {
    use crate::scenario::TvfKind;
    use crate::sql::{scenario_to_sql, sql_to_scenario};

    const DDL: &str = "CREATE TABLE l (k INT, v STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts);\nCREATE TABLE r (k INT, w STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts);\nINSERT INTO l VALUES (1, 'a', TIMESTAMP '2024-01-01 00:00:05');\nINSERT INTO r VALUES (1, 'x', TIMESTAMP '2024-01-01 00:00:10');\n";

    fn session(l: &str, r: &str, on_key: bool) -> String {
        let key = if on_key { " AND L.k = R.k" } else { "" };
        format!("{DDL}SELECT * FROM TABLE(SESSION(TABLE l{l}, DESCRIPTOR(ts), INTERVAL '30' SECOND)) AS L LEFT JOIN (SELECT * FROM TABLE(SESSION(TABLE r{r}, DESCRIPTOR(ts), INTERVAL '30' SECOND))) AS R ON L.window_start = R.window_start AND L.window_end = R.window_end{key};")
    }

    #[test]
    fn session_window_joins_read_and_print_back() {
        let sc =
            sql_to_scenario(&session(" PARTITION BY k", " PARTITION BY k", true)).expect("reads");
        assert_eq!(sc.job.tvf.kind, TvfKind::Session);
        assert_eq!(sc.job.tvf.gap.map(|g| g.0), Some(30_000));
        let text = scenario_to_sql(&sc).expect("prints");
        assert!(
            text.contains("SESSION(TABLE l PARTITION BY k, DESCRIPTOR(ts), INTERVAL '30' SECOND)"),
            "{text}"
        );
        let back = sql_to_scenario(&text).expect("reads back");
        assert_eq!(back.job, sc.job);
        // Both left rows' session [5 s, 35 s) and the right's [10 s, 40 s) differ: padded.
        let r = crate::run(&sc, false).expect("runs");
        assert_eq!(r.outputs.len(), 1);
        assert!(r.outputs[0].right.is_none());
        // Without a key, neither side has PARTITION BY.
        assert!(sql_to_scenario(&session("", "", false)).is_ok());
    }

    #[test]
    fn session_partitions_other_than_the_join_key_are_reported() {
        let err = |l: &str, r: &str, k: bool| {
            sql_to_scenario(&session(l, r, k))
                .expect_err("rejected")
                .to_string()
        };
        assert!(err(" PARTITION BY k", "", true).contains("partitioned differently"));
        assert!(
            err(" PARTITION BY v", " PARTITION BY w", true).contains("anything but the join key")
        );
        assert!(err("", "", true).contains("without PARTITION BY"));
        assert!(err(" PARTITION BY k", " PARTITION BY k", false).contains("without a key"));
    }
}
