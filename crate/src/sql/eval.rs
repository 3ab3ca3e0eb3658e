//! The query's projection on the result: `columns` and each output's `values`.

use super::ir::{to_value, RowView};
use crate::plan::Plan;
use crate::result::RunResult;
use crate::value::Value;

/// Fills `columns` and `values` when the scenario has a SQL query (`job.query`); `SELECT *`
/// (an empty list) is every column of the left input, then of the right, as Flink's `*`
/// expands, with Calcite's unique names (`SqlValidatorUtil.uniquify`: `k`, `k0`).
pub fn project(plan: &Plan, result: &mut RunResult) {
    let Some(q) = &plan.scenario.job.query else {
        return;
    };
    let cols: Vec<Vec<String>> = plan
        .schemas
        .iter()
        .map(|s| s.columns.iter().map(|c| c.name.clone()).collect())
        .collect();
    let empty: Vec<String> = Vec::new();
    let columns: [&[String]; 2] = [
        cols.first().unwrap_or(&empty),
        cols.get(1).unwrap_or(&empty),
    ];
    let time = [
        plan.schemas.first().and_then(|s| s.time),
        plan.schemas.get(1).and_then(|s| s.time),
    ];
    let items: Vec<(super::ir::SqlExpr, String)> = if q.select.is_empty() {
        let mut v = Vec::new();
        for (side, cs) in columns.iter().enumerate() {
            for c in cs.iter() {
                v.push((
                    super::ir::SqlExpr::Col {
                        input: side as u8,
                        name: c.clone(),
                    },
                    c.clone(),
                ));
            }
        }
        let mut seen: Vec<String> = Vec::new();
        for it in &mut v {
            if seen.iter().any(|s| s.eq_ignore_ascii_case(&it.1)) {
                let mut k = 0;
                while seen
                    .iter()
                    .any(|s| s.eq_ignore_ascii_case(&format!("{}{k}", it.1)))
                {
                    k += 1;
                }
                it.1 = format!("{}{k}", it.1);
            }
            seen.push(it.1.clone());
        }
        v
    } else {
        q.select
            .iter()
            .map(|s| (s.expr.clone(), s.name.clone()))
            .collect()
    };
    result.columns = items.iter().map(|(_, n)| n.clone()).collect();
    let mut failed = None;
    for o in &mut result.outputs {
        let view = RowView {
            columns,
            values: [
                o.left.as_ref().map(|r| &r.values[..]),
                o.right.as_ref().map(|r| &r.values[..]),
            ],
            time,
        };
        o.values = Some(
            items
                .iter()
                .map(|(e, _)| match e.eval(&view) {
                    Ok(v) => to_value(v),
                    Err(m) => {
                        failed.get_or_insert((o.step, m));
                        Value::Null
                    }
                })
                .collect(),
        );
    }
    let rejected = filtered(plan);
    let n = rejected.iter().filter(|r| **r).count();
    if n > 0 {
        result.warnings.push(format!(
            "{n} input row(s) rejected by the WHERE clause before the join (they still move their stream's watermark)"
        ));
    }
    // Flink fails the job where an expression fails (e.g. an integer division by zero); the
    // result says so instead of passing the NULL off as Flink's.
    if let Some((step, m)) = failed {
        result.warnings.push(format!(
            "the query's expression fails at step {step} ({m}): Flink would fail the job there"
        ));
    }
}

/// Which input rows a pushed-down `WHERE` rejects (indexed by row id); empty when the query
/// has no `WHERE`. A row whose predicate is not TRUE (FALSE or NULL) is rejected, as SQL does.
pub fn filtered(plan: &Plan) -> Vec<bool> {
    let Some(q) = &plan.scenario.job.query else {
        return Vec::new();
    };
    let preds = [q.where_left.as_ref(), q.where_right.as_ref()];
    if preds.iter().all(Option::is_none) {
        return Vec::new();
    }
    let cols: Vec<Vec<String>> = plan
        .schemas
        .iter()
        .map(|s| s.columns.iter().map(|c| c.name.clone()).collect())
        .collect();
    let empty: Vec<String> = Vec::new();
    let columns: [&[String]; 2] = [
        cols.first().unwrap_or(&empty),
        cols.get(1).unwrap_or(&empty),
    ];
    let time = [
        plan.schemas.first().and_then(|s| s.time),
        plan.schemas.get(1).and_then(|s| s.time),
    ];
    plan.rows
        .iter()
        .map(|r| {
            let side = r.stream.index().min(1);
            let Some(p) = preds[side] else {
                return false;
            };
            let mut values = [None, None];
            values[side] = Some(&r.values[..]);
            let view = RowView {
                columns,
                values,
                time,
            };
            !matches!(
                p.eval(&view),
                Ok(super::ir::EvalValue::V(Value::Bool(true)))
            )
        })
        .collect()
}
