//! Why rows were dropped as late, with the watermark that had passed them.
use super::*;

/// The late rule: one cause per stream with late rows.
pub(super) fn late_rows(plan: &Plan, out: &RunOutput, causes: &mut Vec<Finding>) {
    if out.sink.late.is_empty() {
        return;
    }
    let job = &plan.scenario.job;
    for s in 0..plan.schemas.len() {
        let side = side_of(s);
        let rows: Vec<_> = out
            .sink
            .late
            .iter()
            .filter(|l| plan.row(l.row).stream == side)
            .collect();
        let Some(first) = rows.first() else {
            continue;
        };
        let name = plan.stream_name(side).to_string();
        let behind = |l: &crate::operators::LateRow| {
            plan.row(l.row)
                .ts
                .map_or(0, |t| l.watermark.0.saturating_sub(t))
        };
        let max_behind = rows.iter().map(|l| behind(l)).max().unwrap_or(0);
        let to_side = rows.iter().filter(|l| l.side_output.is_some()).count();
        // The fix. Window operators: allowedLateness so that each row's last window is not
        // late any more (WindowOperator.isWindowLate: maxTimestamp + allowedLateness <=
        // watermark). The interval join (IntervalJoinOperator.isLate: ts < watermark): a
        // larger out-of-orderness delay of the stream the watermark came from, which lowers
        // that watermark by as much — only when every such watermark came from rows
        // (not from a WM row or the end of input).
        let mut patch = BTreeMap::new();
        let mut fix_text = String::new();
        match &first.reason {
            LateRule::Window { .. } => {
                let need = rows
                    .iter()
                    .map(|l| match &l.reason {
                        LateRule::Window { windows, .. } => {
                            let max_ts = windows
                                .iter()
                                .map(|w| w.1 - 1)
                                .max()
                                .or(plan.row(l.row).ts)
                                .unwrap_or(0);
                            l.watermark.0.saturating_sub(max_ts).saturating_add(1)
                        }
                        LateRule::IntervalJoin
                        | LateRule::WindowTvf { .. }
                        | LateRule::WindowTvfJoin { .. }
                        | LateRule::SessionTvf { .. } => behind(l) + 1,
                    })
                    .max()
                    .unwrap_or(1)
                    .max(job.allowed_lateness.0 + 1);
                patch.insert("job.allowed_lateness".into(), dur(need));
                fix_text = format!(
                    "allowedLateness({}): their windows stay open until the watermark passes them by that much",
                    dur_text(need)
                );
            }
            // The SQL window aggregation has no allowed lateness
            // (SlicingWindowProcessor drops what `isWindowFired` says): a larger delay.
            LateRule::IntervalJoin
            | LateRule::WindowTvf { .. }
            | LateRule::WindowTvfJoin { .. }
            | LateRule::SessionTvf { .. } => {
                let from_rows = rows.iter().all(|l| {
                    l.origin
                        .as_ref()
                        .is_some_and(|o| o.max_ts.is_some() && !o.end_of_input)
                });
                if from_rows {
                    let mut streams: Vec<usize> = rows
                        .iter()
                        .filter_map(|l| l.origin.as_ref().map(|o| o.stream.index()))
                        .collect();
                    streams.sort_unstable();
                    streams.dedup();
                    for o in streams {
                        let g = &plan.generators[o];
                        let path = wm_path(plan, o);
                        patch.insert(format!("{path}.delay"), dur(g.delay + max_behind));
                        if g.strategy == Strategy::Monotonous {
                            patch.insert(format!("{path}.strategy"), serde_json::json!("bounded"));
                        }
                    }
                    fix_text = format!(
                        "an out-of-orderness delay {} larger: the watermark they lost to stays at or below their timestamps",
                        dur_text(max_behind)
                    );
                }
            }
        }
        let examples = rows
            .iter()
            .take(5)
            .map(|l| LateExample {
                row: row_pos(plan, l.row),
                step: l.step,
                subtask: l.subtask.0,
                watermark: l.watermark,
                origin: l.origin.clone(),
                message: late_text(plan, l),
            })
            .collect();
        let where_to = if to_side == rows.len() {
            "sent to the late side output".to_string()
        } else if to_side == 0 {
            "dropped".to_string()
        } else {
            format!("dropped ({to_side} sent to the late side output)")
        };
        causes.push(Finding {
            kind: CauseKind::LateRows,
            message: format!(
                "{} row(s) of {name:?} came after the watermark had passed them and were {where_to}; the first: {}",
                rows.len(),
                late_text(plan, first)
            ),
            evidence: Evidence::Late(LateEvidence {
                stream: name,
                side,
                rows: rows.len(),
                to_side_output: to_side,
                max_behind,
                examples,
            }),
            step: Some(first.step),
            panel: Panel::Late,
            fix: (!patch.is_empty()).then_some(Fix {
                patch,
                message: fix_text,
            }),
        });
    }
}
