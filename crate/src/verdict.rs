//! A verdict for every input row, in words: what it joined with, or why it did not.
//!
//! Computed from the run's outputs and the job's rules (not re-simulated), so the page can
//! answer "why didn't this row join?" without computing anything itself.

use crate::operators::Sink;
use crate::parse::Side;
use crate::plan::{Plan, RowId};
use crate::scenario::{OperatorKind, WindowKind};
use serde::Serialize;

/// What happened to a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Part of at least one join result.
    Joined,
    /// Emitted null-padded by an outer join (and never joined).
    Padded,
    /// Dropped as late, or sent to a late side output.
    Late,
    /// Counted in one or more windows (aggregation).
    Aggregated,
    /// Sent to the main output (split).
    Main,
    /// Sent to a side output (split).
    SideOutput,
    /// Not part of any result.
    Unmatched,
    /// Still in the operator's state at the end (no final watermark).
    Buffered,
}

/// The verdict for one row.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Verdict {
    pub row: RowId,
    pub outcome: Outcome,
    /// Indices into `outputs` (or `windows` for an aggregation) that contain the row.
    pub outputs: Vec<usize>,
    /// Index into `late`, if it was late.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub late: Option<usize>,
    /// The verdict in words.
    pub message: String,
}

fn row_label(plan: &Plan, id: RowId) -> String {
    let r = plan.row(id);
    format!("{}:{}", plan.stream_name(r.stream), r.line)
}

fn ts_of(plan: &Plan, id: RowId) -> i64 {
    plan.row(id).ts.unwrap_or(i64::MIN)
}

/// The windows a timestamp belongs to (tumbling/sliding), as `[start, end)`.
fn windows_of(plan: &Plan, ts: i64) -> Vec<(i64, i64)> {
    let w = &plan.scenario.job.window;
    let size = w.size.0.max(1);
    let slide = match w.kind {
        WindowKind::Tumbling => size,
        WindowKind::Sliding => w.slide.map(|s| s.0).unwrap_or(size).max(1),
        WindowKind::Session => {
            return vec![(ts, ts.saturating_add(w.gap.map(|g| g.0).unwrap_or(0)))]
        }
    };
    let offset = w.offset.0;
    let last = ts - (ts - offset).rem_euclid(slide);
    let mut v = Vec::new();
    let mut s = last;
    while s > ts - size && v.len() < 64 {
        v.push((s, s + size));
        s -= slide;
    }
    v
}

/// Builds the verdicts of every row.
pub fn verdicts(plan: &Plan, sink: &Sink, state_left: &[RowId]) -> Vec<Verdict> {
    let n = plan.rows.len();
    let mut outs: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut padded = vec![false; n];
    for (i, o) in sink.outputs.iter().enumerate() {
        for id in [o.left, o.right].into_iter().flatten() {
            outs[id.0 as usize].push(i);
        }
        if o.left.is_none() || o.right.is_none() {
            for id in [o.left, o.right].into_iter().flatten() {
                padded[id.0 as usize] = true;
            }
        }
    }
    let mut wins: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, w) in sink.windows.iter().enumerate() {
        for id in &w.rows {
            if wins[id.0 as usize].last() != Some(&i) {
                wins[id.0 as usize].push(i);
            }
        }
    }
    let mut late: Vec<Option<usize>> = vec![None; n];
    for (i, l) in sink.late.iter().enumerate() {
        late[l.row.0 as usize].get_or_insert(i);
    }
    let mut side: Vec<Option<String>> = vec![None; n];
    for (tag, rows) in &sink.side_outputs {
        for s in rows {
            side[s.row.0 as usize].get_or_insert_with(|| tag.clone());
        }
    }
    let mut buffered = vec![false; n];
    for id in state_left {
        buffered[id.0 as usize] = true;
    }
    // Rows of each stream by key, for "no partner" explanations.
    let mut by_key: std::collections::HashMap<(Side, u32), Vec<RowId>> =
        std::collections::HashMap::new();
    for (i, r) in plan.rows.iter().enumerate() {
        by_key
            .entry((r.stream, r.key.0))
            .or_default()
            .push(RowId(i as u32));
    }
    let op = plan.operator;
    let job = &plan.scenario.job;
    let versions = crate::versions::Versions::of(plan);
    (0..n)
        .map(|i| {
            let id = RowId(i as u32);
            let r = plan.row(id);
            let key = &plan.keys[r.key.0 as usize];
            let route = format!("key {} → key group {} → subtask {}", key.value, key.key_group.0, key.subtask.0);
            if op == OperatorKind::WindowTvfJoin {
                return tvf_join_verdict(plan, sink, id, &outs[i], buffered[i]);
            }
            if let Some(li) = late[i] {
                let l = &sink.late[li];
                return Verdict { row: id, outcome: Outcome::Late, outputs: Vec::new(), late: Some(li), message: format!("late: {}", crate::result::late_text(plan, l)) };
            }
            if let Some(v) = crate::versions::verdict(plan, sink, &versions, id, &outs[i], buffered[i]) {
                return v;
            }
            match op {
                OperatorKind::Split => {
                    if !outs[i].is_empty() {
                        return Verdict { row: id, outcome: Outcome::Main, outputs: outs[i].clone(), late: None, message: "sent to the main output".into() };
                    }
                    if let Some(t) = &side[i] {
                        return Verdict { row: id, outcome: Outcome::SideOutput, outputs: Vec::new(), late: None, message: format!("sent to side output {t:?}") };
                    }
                    return Verdict { row: id, outcome: Outcome::Unmatched, outputs: Vec::new(), late: None, message: format!("dropped: its {:?} matched no route", job.split.column) };
                }
                OperatorKind::WindowAggregate => {
                    if !wins[i].is_empty() {
                        let ws: Vec<String> = wins[i].iter().map(|&w| format!("[{}, {})", sink.windows[w].start, sink.windows[w].end)).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
                        return Verdict { row: id, outcome: Outcome::Aggregated, outputs: wins[i].clone(), late: None, message: format!("counted in window {} ({route})", ws.join(", ")) };
                    }
                    if buffered[i] {
                        return Verdict { row: id, outcome: Outcome::Buffered, outputs: Vec::new(), late: None, message: "still in its window's state: the watermark never reached the window's end".into() };
                    }
                    return Verdict { row: id, outcome: Outcome::Unmatched, outputs: Vec::new(), late: None, message: "lost: late for some of its windows, and those windows had already fired (no side output, as WindowOperator only reports a row late for all its windows)".into() };
                }
                OperatorKind::WindowTvfAggregate => return window_tvf_verdict(plan, sink, id, &buffered, &route),
                _ => {}
            }
            let joined: Vec<usize> = outs[i].iter().copied().filter(|&o| sink.outputs[o].left.is_some() && sink.outputs[o].right.is_some()).collect();
            if !joined.is_empty() {
                let mut partners: Vec<String> = Vec::new();
                for &o in &joined {
                    let out = &sink.outputs[o];
                    let p = if out.left == Some(id) { out.right } else { out.left };
                    if let Some(p) = p {
                        let s = row_label(plan, p);
                        if !partners.contains(&s) {
                            partners.push(s);
                        }
                    }
                }
                let extra = if joined.len() > partners.len() { format!(" ({} results)", joined.len()) } else { String::new() };
                return Verdict { row: id, outcome: Outcome::Joined, outputs: outs[i].clone(), late: None, message: format!("joined with {}{extra}", partners.join(", ")) };
            }
            let other = r.stream.other();
            let partners = by_key.get(&(other, r.key.0)).cloned().unwrap_or_default();
            let other_name = plan.schemas.get(other.index()).map(|s| s.name.as_str()).unwrap_or("the other stream");
            let why = if partners.is_empty() {
                format!("no {other_name} row has key {} ({route})", key.value)
            } else {
                explain_no_match(plan, id, &partners, &late, other_name)
            };
            if padded[i] {
                Verdict { row: id, outcome: Outcome::Padded, outputs: outs[i].clone(), late: None, message: format!("padded with nulls: {why}") }
            } else if buffered[i] && op == OperatorKind::RegularJoin {
                Verdict { row: id, outcome: Outcome::Buffered, outputs: Vec::new(), late: None, message: format!("still in the join's state at the end (a regular join keeps a row until it is retracted or its state TTL runs out); so far {why}") }
            } else if buffered[i] {
                Verdict { row: id, outcome: Outcome::Buffered, outputs: Vec::new(), late: None, message: format!("still buffered at the end (no final watermark); so far {why}") }
            } else {
                Verdict { row: id, outcome: Outcome::Unmatched, outputs: Vec::new(), late: None, message: format!("not joined: {why}") }
            }
        })
        .collect()
}

/// Why a row with same-key partners joined none of them.
fn explain_no_match(
    plan: &Plan,
    id: RowId,
    partners: &[RowId],
    late: &[Option<usize>],
    other_name: &str,
) -> String {
    let r = plan.row(id);
    let t = ts_of(plan, id);
    let job = &plan.scenario.job;
    let list = |v: &[RowId]| {
        v.iter()
            .take(4)
            .map(|p| format!("{} (ts {})", row_label(plan, *p), ts_of(plan, *p)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match plan.operator {
        OperatorKind::IntervalJoin | OperatorKind::SqlIntervalJoin => {
            // The range of partner timestamps that match this row.
            let (lo, hi) = if plan.operator == OperatorKind::IntervalJoin {
                let iv = &job.interval;
                let lo = iv.lower.0 + i64::from(iv.lower_exclusive);
                let hi = iv.upper.0 - i64::from(iv.upper_exclusive);
                // left.ts + lo <= right.ts <= left.ts + hi
                if r.stream == Side::Left {
                    (t.saturating_add(lo), t.saturating_add(hi))
                } else {
                    (t.saturating_sub(hi), t.saturating_sub(lo))
                }
            } else {
                let s = &job.sql;
                let lo = s.lower.0 + i64::from(s.lower_strict);
                let hi = s.upper.0 - i64::from(s.upper_strict);
                // R.t + lo <= L.t <= R.t + hi
                if r.stream == Side::Left {
                    (t.saturating_sub(hi), t.saturating_sub(lo))
                } else {
                    (t.saturating_add(lo), t.saturating_add(hi))
                }
            };
            let in_range: Vec<RowId> = partners
                .iter()
                .copied()
                .filter(|p| (lo..=hi).contains(&ts_of(plan, *p)))
                .collect();
            if in_range.is_empty() {
                return format!("{other_name} rows with this key ({}) are all outside [{lo}, {hi}], the range that matches ts {t}", list(partners));
            }
            let alive: Vec<RowId> = in_range
                .iter()
                .copied()
                .filter(|p| late[p.0 as usize].is_none())
                .collect();
            if alive.is_empty() {
                return format!(
                    "its partners in [{lo}, {hi}] ({}) were late",
                    list(&in_range)
                );
            }
            format!(
                "its partners in [{lo}, {hi}] ({}) and it were never in state together: one had already been cleaned up when the other arrived (the watermark had passed its cleanup time)",
                list(&alive)
            )
        }
        OperatorKind::WindowJoin => {
            let mine = windows_of(plan, t);
            let ws = mine
                .iter()
                .map(|(s, e)| format!("[{s}, {e})"))
                .collect::<Vec<_>>()
                .join(", ");
            if job.window.kind == WindowKind::Session {
                return format!(
                    "no {other_name} row with this key fell in its session ({})",
                    list(partners)
                );
            }
            let shared: Vec<RowId> = partners
                .iter()
                .copied()
                .filter(|p| {
                    windows_of(plan, ts_of(plan, *p))
                        .iter()
                        .any(|w| mine.contains(w))
                })
                .collect();
            if shared.is_empty() {
                format!("its window {ws} had no {other_name} row with this key; they fell in other windows: {}", list(partners))
            } else {
                format!("its window partners ({}) were late", list(&shared))
            }
        }
        OperatorKind::RegularJoin => {
            // State TTL (processing time): a stored row stops matching once its last write is
            // `ttl` old. Each row is written at its own arrival at the latest, so a partner
            // that arrived `ttl` or more before this row (or this row `ttl` or more before a
            // partner) was gone, unless a later write (a match of an outer row) refreshed it.
            let ttls = crate::operators::regular_join::side_ttls(plan);
            let me = r.arrival;
            let mine = ttls[r.stream.index()];
            let theirs = ttls[r.stream.other().index()];
            let mut expired = Vec::new();
            for &p in partners {
                let pa = plan.row(p).arrival;
                if pa <= me && theirs.is_some_and(|t| pa.saturating_add(t) <= me) {
                    expired.push(format!("{} (arrived at processing time {pa}, expired at {} under the state TTL of {} ms; this row arrived at {me})", row_label(plan, p), pa.saturating_add(theirs.unwrap_or(0)), theirs.unwrap_or(0)));
                } else if pa > me && mine.is_some_and(|t| me.saturating_add(t) <= pa) {
                    expired.push(format!("{} (arrived at processing time {pa}, after this row had expired at {} under the state TTL of {} ms)", row_label(plan, p), me.saturating_add(mine.unwrap_or(0)), mine.unwrap_or(0)));
                }
            }
            if expired.is_empty() {
                format!(
                    "its {other_name} partners were retracted ({})",
                    list(partners)
                )
            } else {
                format!(
                    "state TTL: its {other_name} partners never met it in state: {}",
                    expired.join("; ")
                )
            }
        }
        _ => String::new(),
    }
}

/// The verdict of a row of a SQL window aggregation: the result rows it was counted in, and the
/// windows of its TVF it is missing from (they had fired before it reached the aggregation).
fn window_tvf_verdict(
    plan: &Plan,
    sink: &Sink,
    id: RowId,
    buffered: &[bool],
    route: &str,
) -> Verdict {
    use crate::time::format_datetime as dt;
    let fmt = |(s, e): (i64, i64)| format!("[{}, {})", dt(s), dt(e));
    let mut outputs = Vec::new();
    let mut counted = Vec::new();
    for v in &sink.output_values {
        if v.rows.contains(&id) {
            outputs.push(v.index);
            if let Some(w) = sink.output_window(v.index) {
                counted.push(w);
            }
        }
    }
    let ts = ts_of(plan, id);
    let tvf = &plan.scenario.job.tvf;
    let all: Vec<(i64, i64)> = match crate::operators::tvf_slicing::Slicer::of(tvf) {
        Some(sl) => sl.windows_of(ts),
        None => Vec::new(),
    };
    if counted.is_empty() {
        if buffered[id.0 as usize] {
            return Verdict { row: id, outcome: Outcome::Buffered, outputs, late: None, message: "still in the aggregation's state at the end: the watermark never passed its window's end".into() };
        }
        return Verdict {
            row: id,
            outcome: Outcome::Unmatched,
            outputs,
            late: None,
            message: format!("in no result ({route})"),
        };
    }
    let ws: Vec<String> = counted.iter().map(|&w| fmt(w)).collect();
    let missed: Vec<String> = all
        .iter()
        .filter(|w| !counted.contains(w))
        .map(|&w| fmt(w))
        .collect();
    let mut message = if counted.len() == 1 {
        format!("counted in window {} ({route})", ws[0])
    } else {
        format!(
            "counted in {} windows: {} ({route})",
            counted.len(),
            ws.join(", ")
        )
    };
    if !missed.is_empty() {
        message.push_str(&format!(
            "; not in {}: fired before the row reached the aggregation",
            missed.join(", ")
        ));
    }
    Verdict {
        row: id,
        outcome: Outcome::Aggregated,
        outputs,
        late: None,
        message,
    }
}

/// A SESSION window join's row that never reached the join: dropped late by its input's
/// SESSION window TVF, or still held there (its session had not closed).
fn session_tvf_verdict(plan: &Plan, sink: &Sink, id: RowId, buffered: bool) -> Option<Verdict> {
    use crate::operators::LateRule;
    if let Some(li) = sink
        .late
        .iter()
        .position(|l| l.row == id && matches!(l.reason, LateRule::SessionTvf { .. }))
    {
        let l = &sink.late[li];
        return Some(Verdict {
            row: id,
            outcome: Outcome::Late,
            outputs: Vec::new(),
            late: Some(li),
            message: format!(
                "dropped late by the SESSION window TVF: {}",
                crate::result::late_text(plan, l)
            ),
        });
    }
    if buffered && !sink.session_windows.iter().any(|(x, _)| *x == id) {
        return Some(Verdict {
            row: id,
            outcome: Outcome::Buffered,
            outputs: Vec::new(),
            late: None,
            message: "still held by the SESSION window TVF: its session never closed (no final watermark), so it never reached the join".into(),
        });
    }
    None
}

/// The verdict of a row of a SQL window join, window by window: the TVF gives the row one copy
/// per window, and each copy is joined, padded, emitted (semi/anti), left unmatched or dropped
/// as late on its own (`WindowJoinHelper.processElement` / `joinAndClear`).
fn tvf_join_verdict(
    plan: &Plan,
    sink: &Sink,
    id: RowId,
    outs: &[usize],
    buffered: bool,
) -> Verdict {
    use crate::operators::LateRule;
    use crate::scenario::JoinType;
    let job = &plan.scenario.job;
    let r = plan.row(id);
    if job.tvf.kind == crate::scenario::TvfKind::Session {
        if let Some(v) = session_tvf_verdict(plan, sink, id, buffered) {
            return v;
        }
    }
    let windows = if job.tvf.kind == crate::scenario::TvfKind::Session {
        // The session the TVF emitted the row with.
        sink.session_windows
            .iter()
            .filter(|(x, _)| *x == id)
            .map(|&(_, w)| w)
            .collect()
    } else {
        crate::tvf::Tvf::of(&job.tvf, "job.tvf")
            .map(|t| t.assign(r.ts.unwrap_or(0)))
            .unwrap_or_default()
    };
    let join = job.sql.join;
    let other = plan
        .schemas
        .get(r.stream.other().index())
        .map(|s| s.name.as_str())
        .unwrap_or("the other stream");
    let mut parts = Vec::new();
    let (mut joined, mut padded, mut late_n) = (false, false, 0);
    let mut first_late = None;
    for &(s, e) in &windows {
        let w = format!("[{s}, {e})");
        if let Some(li) = sink.late.iter().position(|l| {
            l.row == id
                && matches!(l.reason, LateRule::WindowTvfJoin { window } if window == (s, e))
        }) {
            late_n += 1;
            first_late.get_or_insert(li);
            let l = &sink.late[li];
            parts.push(format!(
                "dropped for window {w}: it had already fired at watermark {} (window_end − 1 = {} <= watermark)",
                l.watermark,
                e.saturating_sub(1)
            ));
            continue;
        }
        let here: Vec<usize> = outs
            .iter()
            .copied()
            .filter(|&o| sink.output_window(o) == Some((s, e)))
            .collect();
        let partners: Vec<String> = here
            .iter()
            .filter_map(|&o| {
                let out = &sink.outputs[o];
                let p = if out.left == Some(id) {
                    out.right
                } else {
                    out.left
                };
                p.map(|p| row_label(plan, p))
            })
            .collect();
        if matches!(join, JoinType::Semi | JoinType::Anti) {
            if !here.is_empty() {
                joined = true;
                parts.push(if join == JoinType::Semi {
                    format!("emitted for window {w}: a {other} row with its key is in that window")
                } else {
                    format!("emitted for window {w}: no {other} row with its key is in that window")
                });
            } else if buffered {
                parts.push(format!("still in window {w}'s state (no final watermark)"));
            } else if r.stream == Side::Left {
                parts.push(if join == JoinType::Semi {
                    format!("not emitted for window {w}: no {other} row with its key in it")
                } else {
                    format!("not emitted for window {w}: a {other} row with its key is in it")
                });
            } else {
                parts.push(format!(
                    "in window {w}, where it decides which left rows come out"
                ));
            }
        } else if !partners.is_empty() {
            joined = true;
            parts.push(format!("joined in window {w} with {}", partners.join(", ")));
        } else if !here.is_empty() {
            padded = true;
            parts.push(format!(
                "padded with nulls in window {w}: no {other} row with its key in it"
            ));
        } else if buffered {
            parts.push(format!(
                "still in window {w}'s state: the watermark never reached {}",
                e.saturating_sub(1)
            ));
        } else {
            parts.push(format!(
                "not joined in window {w}: no {other} row with its key in it"
            ));
        }
    }
    let outcome = if joined {
        Outcome::Joined
    } else if padded {
        Outcome::Padded
    } else if late_n > 0 && late_n == windows.len() {
        Outcome::Late
    } else if buffered {
        Outcome::Buffered
    } else {
        Outcome::Unmatched
    };
    Verdict {
        row: id,
        outcome,
        outputs: outs.to_vec(),
        late: first_late,
        message: parts.join("; "),
    }
}
