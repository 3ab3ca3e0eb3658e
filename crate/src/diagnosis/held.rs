//! Why outputs are held back: a watermark that never passed (an idle or silent input, no
//! final watermark), with the rows it held and the fix.
use super::*;

/// Results the final watermark released (or timers still pending) that watermark `w` would
/// have released: window results and timestamped outputs of the end-of-input step with a
/// timestamp ≤ `w`, SQL outputs of that step (they carry no timestamp), pending event-time
/// timers ≤ `w`.
fn held_count(out: &RunOutput, end_step: Option<usize>, w: Watermark) -> usize {
    if w.is_max() {
        return 0;
    }
    let Some(end) = end_step else {
        return 0;
    };
    let windows = out
        .sink
        .windows
        .iter()
        .rev()
        .take_while(|x| x.step == end)
        .filter(|x| x.timestamp <= w.0)
        .count();
    let outputs = out
        .sink
        .outputs
        .iter()
        .rev()
        .take_while(|o| o.step() == end)
        .filter(|o| o.timestamp().is_none_or(|t| t <= w.0))
        .count();
    let timers = out
        .final_state
        .iter()
        .flat_map(|s| s.timers.iter())
        .filter(|t| !t.processing && t.timestamp <= w.0)
        .count();
    windows + outputs + timers
}

/// Whether stream `s`'s assigner `a` can ever emit a watermark before the end of input.
fn emits_watermarks(plan: &Plan, s: usize, a: Option<u32>) -> bool {
    match plan.generators[s].strategy {
        Strategy::None => false,
        Strategy::Punctuated => plan.arrivals.iter().any(|x| {
            matches!(&x, Arrival::Watermark { stream, assigner, .. }
                if stream.index() == s && a.is_none_or(|a| a == *assigner))
        }),
        _ => true,
    }
}

/// The watermark rules: a channel (assigner subtask) or a whole input whose watermark, just
/// before the end of input, was the operator's minimum while the others had moved on, when
/// that held something back. Returns the results the final watermark released because of it.
pub(super) fn held_back(
    plan: &Plan,
    out: &RunOutput,
    c: &Counts,
    be: &BeforeEnd,
    causes: &mut Vec<Finding>,
) -> usize {
    let streams = c.inputs.min(be.assigner.len());
    let pa = plan.assigner_parallelism as usize;
    // Streams that never emit a watermark hold everything: said once, as that.
    let mut silent = [false; 2];
    for (s, quiet) in silent.iter_mut().enumerate().take(streams) {
        *quiet = c.rows[s] > 0 && !emits_watermarks(plan, s, None);
    }
    let active: Vec<(usize, usize, Watermark)> = (0..streams)
        .flat_map(|s| (0..pa).map(move |a| (s, a)))
        .filter(|&(s, a)| !be.idle[s][a])
        .map(|(s, a)| (s, a, be.assigner[s][a]))
        .collect();
    let mut released = 0;
    for s in 0..streams {
        if !silent[s] {
            continue;
        }
        let others = active
            .iter()
            .filter(|x| x.0 != s && !silent[x.0])
            .map(|x| x.2)
            .min()
            .unwrap_or(Watermark::MAX);
        // With no other stream to compare with, everything the final watermark released
        // was held by this one.
        let held = held_count(out, c.end_step, Watermark(others.0.min(i64::MAX - 1)));
        if held == 0 {
            continue;
        }
        released = released.max(held);
        let g = &plan.generators[s];
        let name = plan.stream_name(side_of(s)).to_string();
        let mut patch = BTreeMap::new();
        let path = wm_path(plan, s);
        patch.insert(format!("{path}.strategy"), serde_json::json!("bounded"));
        if !g.per_event && g.interval == 0 {
            patch.insert(format!("{path}.per_event"), serde_json::json!(true));
        }
        let how = match g.strategy {
            Strategy::None => "its strategy is noWatermarks()".to_string(),
            _ => "it is punctuated and no WM row reaches it".to_string(),
        };
        causes.push(Finding {
            kind: CauseKind::NoWatermarks,
            message: format!(
                "stream {name:?} never emits a watermark before the end of input ({how}): its channels stay at −∞ and hold every operator subtask there, so {}",
                held_text(plan, held)
            ),
            evidence: Evidence::Held(held_evidence(plan, out, s, None, others, held)),
            step: c.end_step,
            panel: Panel::Watermarks,
            fix: Some(Fix {
                patch,
                message: format!("give {name:?} bounded-out-of-orderness watermarks"),
            }),
        });
    }
    let live: Vec<&(usize, usize, Watermark)> = active.iter().filter(|x| !silent[x.0]).collect();
    let Some(m) = live.iter().map(|x| x.2).min() else {
        return released;
    };
    let holders: Vec<(usize, usize)> = live
        .iter()
        .filter(|x| x.2 == m)
        .map(|x| (x.0, x.1))
        .collect();
    let Some(others) = live.iter().filter(|x| x.2 > m).map(|x| x.2).min() else {
        return released;
    };
    let held = held_count(out, c.end_step, others);
    if held == 0 {
        return released;
    }
    released = released.max(held);
    let mut by_stream: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (s, a) in holders {
        by_stream.entry(s).or_default().push(a);
    }
    for (s, assigners) in by_stream {
        let other_min = live.iter().filter(|x| x.0 != s).map(|x| x.2).min();
        let own_max = live.iter().filter(|x| x.0 == s).map(|x| x.2).max();
        let whole_input = matches!((other_min, own_max), (Some(o), Some(mx)) if mx < o);
        let name = plan.stream_name(side_of(s)).to_string();
        if whole_input {
            let others = other_min.unwrap_or(others);
            let ev = held_evidence(plan, out, s, None, others, held);
            let fix = idle_fix(plan, s, None);
            let step = ev
                .last_row
                .as_ref()
                .and_then(|r| row_step(plan, out, r.id))
                .or(c.end_step);
            let behind = if m.is_min() {
                "at −∞ (no watermark yet)".to_string()
            } else {
                format!("at {m}")
            };
            causes.push(Finding {
                kind: CauseKind::LaggingInput,
                message: format!(
                    "input {name:?} holds the operator's watermark {behind} while the other input is at {others}: a two-input operator takes the minimum of its inputs, so {}",
                    held_text(plan, held)
                ),
                evidence: Evidence::Held(ev),
                step,
                panel: Panel::Watermarks,
                fix,
            });
        } else {
            for a in assigners {
                let ev = held_evidence(plan, out, s, Some(a as u32), others, held);
                let fix = idle_fix(plan, s, Some(a as u32));
                let what = if ev.rows == 0 {
                    "never received a row and holds its channel at −∞ (Long.MIN_VALUE)".to_string()
                } else {
                    format!(
                        "received its last row early ({} row(s)) and holds its channel at {m}",
                        ev.rows
                    )
                };
                let step = ev
                    .last_row
                    .as_ref()
                    .and_then(|r| row_step(plan, out, r.id))
                    .or(c.end_step);
                causes.push(Finding {
                    kind: CauseKind::IdleAssigner,
                    message: format!(
                        "{name:?} assigner subtask {a} {what}; every operator subtask takes the minimum over its input channels (StatusWatermarkValve), so it stayed there while the other channels reached {others}, and {}",
                        held_text(plan, held)
                    ),
                    evidence: Evidence::Held(ev),
                    step,
                    panel: Panel::Watermarks,
                    fix,
                });
            }
        }
    }
    released
}

/// What a held watermark cost, in words.
fn held_text(plan: &Plan, held: usize) -> String {
    if plan.scenario.job.final_watermark {
        format!("{held} result(s) waited for the end of input")
    } else {
        format!("{held} timer(s) the others' watermark would have fired are still pending")
    }
}

/// Rows stream `s` (assigner `a`, or all) received and its last one.
fn last_activity(plan: &Plan, s: usize, a: Option<u32>) -> (usize, Option<RowId>, Option<i64>) {
    let mut n = 0;
    let mut last = None;
    let mut t = None;
    for (i, r) in plan.rows.iter().enumerate() {
        if r.stream.index() == s && a.is_none_or(|a| a == r.assigner) {
            n += 1;
            last = Some(RowId(i as u32));
            t = Some(t.map_or(r.arrival, |x: i64| x.max(r.arrival)));
        }
    }
    for ref x in &plan.arrivals {
        if let Arrival::Watermark {
            stream,
            assigner,
            arrival,
            ..
        } = x
        {
            if stream.index() == s && a.is_none_or(|a| a == *assigner) {
                t = Some(t.map_or(*arrival, |x: i64| x.max(*arrival)));
            }
        }
    }
    (n, last, t)
}

fn held_evidence(
    plan: &Plan,
    out: &RunOutput,
    s: usize,
    a: Option<u32>,
    others: Watermark,
    held: usize,
) -> HeldEvidence {
    let (rows, last, _) = last_activity(plan, s, a);
    let be = out.before_end.as_ref();
    let watermark = be
        .map(|b| match a {
            Some(a) => b.assigner[s][a as usize],
            None => b.assigner[s]
                .iter()
                .copied()
                .min()
                .unwrap_or(Watermark::MIN),
        })
        .unwrap_or(Watermark::MIN);
    HeldEvidence {
        stream: plan.stream_name(side_of(s)).to_string(),
        side: side_of(s),
        assigner: a,
        rows,
        last_row: last.map(|id| row_pos(plan, id)),
        watermark,
        others,
        operator: be.map(|b| b.operator.clone()).unwrap_or_default(),
        held,
    }
}

/// `withIdleness(timeout)` for stream `s` (`WatermarksWithIdleness`): a timeout after which
/// the holder, silent since its last row, is marked idle while the other channels still
/// receive rows. Idleness is checked on periodic emits only, so the patch also sets a
/// periodic interval when there is none (200 ms, `pipeline.auto-watermark-interval`'s
/// default, smaller when the input is short). The holder goes idle at the first periodic
/// emit more than the timeout after the emit that first saw no new row (`IdlenessTimer`),
/// about `last + 3·interval + timeout`: that must come before the last arrival.
fn idle_fix(plan: &Plan, s: usize, a: Option<u32>) -> Option<Fix> {
    let g = &plan.generators[s];
    let first = plan.rows.iter().map(|r| r.arrival).min()?;
    let end = plan.rows.iter().map(|r| r.arrival).max()?;
    let (_, _, t) = last_activity(plan, s, a);
    let last = t.unwrap_or(first);
    let span = end.saturating_sub(last);
    let mut interval = if g.interval > 0 { g.interval } else { 200 };
    if span < 8 * interval {
        interval = nice_floor((span / 8).max(1));
    }
    let budget = span - 3 * interval;
    if budget < 2 {
        return None;
    }
    let timeout = nice_floor(budget / 2);
    let path = wm_path(plan, s);
    let mut patch = BTreeMap::new();
    patch.insert(format!("{path}.idle_timeout"), dur(timeout));
    if interval != g.interval {
        patch.insert(format!("{path}.interval"), dur(interval));
    }
    let name = plan.stream_name(side_of(s));
    let who = match a {
        Some(a) => format!("{name:?} assigner subtask {a}"),
        None => format!("input {name:?}"),
    };
    Some(Fix {
        patch,
        message: format!(
            "withIdleness({}): {who} is marked idle {} after its last row and stops holding the watermark back{}",
            dur_text(timeout),
            dur_text(timeout),
            if interval != g.interval {
                format!(
                    " (idleness is checked on periodic emits: every {})",
                    dur_text(interval)
                )
            } else {
                String::new()
            }
        ),
    })
}

pub(super) fn no_final_watermark(
    out: &RunOutput,
    c: &Counts,
    rows: usize,
    timers: usize,
) -> Finding {
    let earliest = out
        .final_state
        .iter()
        .flat_map(|s| s.timers.iter())
        .filter(|t| !t.processing)
        .map(|t| t.timestamp)
        .min();
    let mut windows: Vec<[i64; 2]> = out
        .final_state
        .iter()
        .flat_map(|s| s.entries.iter())
        .filter_map(|e| e.window)
        .collect();
    windows.sort_unstable();
    windows.dedup();
    windows.truncate(10);
    let watermarks: Vec<Watermark> = out.watermarks.clone();
    let top = watermarks.iter().copied().max().unwrap_or(Watermark::MIN);
    let what = if windows.is_empty() {
        format!("{rows} row(s) stay buffered")
    } else {
        format!(
            "{} window(s) (first [{}, {})) never fire",
            windows.len(),
            windows[0][0],
            windows[0][1]
        )
    };
    Finding {
        kind: CauseKind::NoFinalWatermark,
        message: format!(
            "the final watermark is off: {what}, and {timers} event-time timer(s) (the earliest at {}) wait for a watermark that never comes (the operator's watermark stopped at {top})",
            earliest.map(|t| t.to_string()).unwrap_or_else(|| "-".into())
        ),
        evidence: Evidence::NoFinalWatermark {
            rows,
            timers,
            earliest_timer: earliest,
            windows,
            watermarks,
        },
        step: c.end_step,
        panel: Panel::State,
        fix: Some(Fix {
            patch: BTreeMap::from([("job.final_watermark".to_string(), serde_json::json!(true))]),
            message: "emit Watermark(Long.MAX_VALUE) at end of input, as a bounded source does"
                .into(),
        }),
    }
}
