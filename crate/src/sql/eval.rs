//! The query's projection on the result: `columns` and each output's `values`.

use super::ir::{EvalValue, RowView};
use crate::operators::SqlValue;
use crate::plan::Plan;
use crate::result::RunResult;
use crate::value::Value;

/// The two inputs' column names and time columns, as the query's expressions address them.
struct Inputs {
    cols: Vec<Vec<String>>,
    time: [Option<usize>; 2],
    /// Each input's `PROCTIME()` column and its place among the input's own columns.
    proctime: [Option<(String, usize)>; 2],
}

impl Inputs {
    fn of(plan: &Plan) -> Inputs {
        // A window join's inputs carry the window TVF's columns after their own.
        let windowed = plan.scenario.job.operator == crate::scenario::OperatorKind::WindowTvfJoin;
        let proctime = [0, 1].map(|i| {
            let names: Vec<String> = plan
                .schemas
                .get(i)?
                .columns
                .iter()
                .map(|c| c.name.clone())
                .collect();
            super::proctime_column(&plan.scenario, i, &names)
        });
        Inputs {
            proctime,
            cols: plan
                .schemas
                .iter()
                .map(|s| {
                    let mut c: Vec<String> = s.columns.iter().map(|c| c.name.clone()).collect();
                    if windowed {
                        c.extend(super::window_join::WINDOW_COLUMNS.map(String::from));
                    }
                    c
                })
                .collect(),
            time: [
                plan.schemas.first().and_then(|s| s.time),
                plan.schemas.get(1).and_then(|s| s.time),
            ],
        }
    }

    /// The left and right column names (empty for an input the plan does not have).
    fn columns(&self) -> [&[String]; 2] {
        [0, 1].map(|i| self.cols.get(i).map_or(&[][..], |c| &c[..]))
    }

    fn proctime_names(&self) -> [Option<&str>; 2] {
        [0, 1].map(|i| self.proctime[i].as_ref().map(|(n, _)| n.as_str()))
    }
}

/// Fills `columns` and `values` when the scenario has a SQL query (`job.query`); `SELECT *`
/// (an empty list) is every column of the left input, then of the right, as Flink's `*`
/// expands, with Calcite's unique names (`SqlValidatorUtil.uniquify`: `k`, `k0`).
///
/// `row_windows`: with SESSION windows, the session each row was emitted with (by row id), as
/// each input's window columns show its own row's session; empty otherwise.
///
/// A `PROCTIME()` column holds the processing time of the step that emitted the output
/// (`step_map`); `SELECT *` lists it where its table declares it.
pub fn project(
    plan: &Plan,
    result: &mut RunResult,
    row_windows: &[Option<[i64; 2]>],
    step_map: &crate::sim::StepMap,
) {
    let Some(q) = &plan.scenario.job.query else {
        return;
    };
    if !result.columns.is_empty() {
        // The operator computed its own rows (the window aggregation's GROUP BY).
        return;
    }
    let inputs = Inputs::of(plan);
    let (columns, time) = (inputs.columns(), inputs.time);
    // A semi or anti join gives the left input's columns only.
    let semi = matches!(
        plan.scenario.job.sql.join,
        crate::scenario::JoinType::Semi | crate::scenario::JoinType::Anti
    ) && plan.scenario.job.operator == crate::scenario::OperatorKind::WindowTvfJoin;
    let items: Vec<(super::ir::SqlExpr, String)> = if q.select.is_empty() {
        let mut v = Vec::new();
        for (side, cs) in columns.iter().enumerate().take(if semi { 1 } else { 2 }) {
            let mut names: Vec<&String> = cs.iter().collect();
            if let Some((p, at)) = &inputs.proctime[side] {
                names.insert((*at).min(names.len()), p);
            }
            for c in names {
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
    let proctime = inputs.proctime_names();
    // One entry per step, built only when a PROCTIME() column is projected.
    let step_times = if items.iter().any(|(e, _)| {
        let mut found = false;
        e.visit_columns(&mut |input, name| {
            found |= proctime[(input as usize).min(1)] == Some(name);
        });
        found
    }) {
        step_map.step_times(plan)
    } else {
        Vec::new()
    };
    let mut failed = None;
    for o in &mut result.outputs {
        let view = RowView {
            columns,
            values: [
                o.left.as_ref().map(|r| &r.values[..]),
                o.right.as_ref().map(|r| &r.values[..]),
            ],
            time,
            window: [&o.left, &o.right].map(|r| match r {
                Some(r) if !row_windows.is_empty() => {
                    row_windows.get(r.id.0 as usize).copied().flatten()
                }
                _ => o.window,
            }),
            proctime,
            now: step_times.get(o.step).copied(),
        };
        o.values = Some(
            items
                .iter()
                .map(|(e, _)| match e.eval(&view) {
                    Ok(v) => to_sql_value(v),
                    Err(m) => {
                        failed.get_or_insert((o.step, m));
                        SqlValue::Null
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

/// Fills `column_scales`: the scale of each column's DECIMAL values (one column has one type,
/// so its first DECIMAL value tells it). Called once the outputs have their `values`.
pub fn decimal_scales(result: &mut RunResult) {
    if result.columns.is_empty() {
        return;
    }
    let mut scales: Vec<Option<u8>> = vec![None; result.columns.len()];
    let mut note = |values: &[SqlValue]| {
        for (slot, v) in scales.iter_mut().zip(values) {
            if let (None, SqlValue::Decimal(d)) = (&slot, v) {
                *slot = Some(d.scale);
            }
        }
    };
    // Read from the compact outputs where they are not built yet (building them costs).
    match result.outputs.views() {
        Some(views) => views.filter_map(|o| o.values).for_each(&mut note),
        None => (&result.outputs)
            .into_iter()
            .filter_map(|o| o.values.as_deref())
            .for_each(&mut note),
    }
    if scales.iter().any(Option::is_some) {
        result.column_scales = scales;
    }
}

/// An evaluated expression as a result value (a time attribute as a `TIMESTAMP(3)`).
fn to_sql_value(v: EvalValue) -> SqlValue {
    match v {
        EvalValue::Ts(ms) => SqlValue::Timestamp(ms),
        EvalValue::V(v) => SqlValue::of(&v),
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
    let inputs = Inputs::of(plan);
    let (columns, time) = (inputs.columns(), inputs.time);
    plan.rows
        .iter()
        .map(|r| {
            let side = r.stream.index().min(1);
            let Some(p) = preds[side] else {
                return false;
            };
            let mut values = [None, None];
            values[side] = Some(plan.row_values(r));
            let view = RowView {
                columns,
                values,
                time,
                window: [None, None],
                proctime: [None, None],
                now: None,
            };
            !matches!(
                p.eval(&view),
                Ok(super::ir::EvalValue::V(Value::Bool(true)))
            )
        })
        .collect()
}
