//! Why rows that were expected to pair did not: keys that never met, and bounds or windows
//! that kept equal keys apart.
use super::*;

/// The key rule and the bound rules, when no row joined.
pub(super) fn pairing(plan: &Plan, out: &RunOutput, causes: &mut Vec<Finding>) {
    // A keyless SQL join runs on one subtask: every pair meets.
    if plan.schemas.iter().any(|s| s.key.is_none()) {
        return;
    }
    let nk = plan.keys.len();
    let mut seen = vec![[0usize; 2]; nk];
    for r in &plan.rows {
        seen[r.key.0 as usize][r.stream.index()] += 1;
    }
    let count = |f: &dyn Fn(&[usize; 2]) -> bool| seen.iter().filter(|x| f(x)).count();
    let left_keys = count(&|x| x[0] > 0);
    let right_keys = count(&|x| x[1] > 0);
    let common = count(&|x| x[0] > 0 && x[1] > 0);
    let only = |side: usize| -> Vec<Value> {
        seen.iter()
            .enumerate()
            .filter(|(_, x)| x[side] > 0 && x[1 - side] == 0)
            .take(10)
            .map(|(k, _)| plan.keys[k].value.clone())
            .collect()
    };
    let unmatched = |side: usize| -> usize {
        seen.iter()
            .filter(|x| x[1 - side] == 0)
            .map(|x| x[side])
            .sum()
    };
    if common < left_keys.max(right_keys) {
        let (l, r) = (&plan.schemas[0], &plan.schemas[1]);
        let types = match (l.key, r.key) {
            (Some(a), Some(b)) if l.columns[a].ty != r.columns[b].ty => format!(
                "; the key columns have different types ({} and {}), and values of different types are never equal",
                l.columns[a].ty.sql_name(),
                r.columns[b].ty.sql_name()
            ),
            _ => String::new(),
        };
        let ev = KeyEvidence {
            left_keys,
            right_keys,
            common,
            left_only: only(0),
            right_only: only(1),
            left_rows: unmatched(0),
            right_rows: unmatched(1),
        };
        let list = |v: &[Value]| {
            let mut t: Vec<String> = v.iter().take(5).map(|x| x.to_string()).collect();
            if v.len() > 5 {
                t.push("…".into());
            }
            t.join(", ")
        };
        let message = if common == 0 {
            format!(
                "the keys never meet: {:?} has {left_keys} key(s) ({}), {:?} has {right_keys} ({}), none in common{types}",
                l.name,
                list(&ev.left_only),
                r.name,
                list(&ev.right_only)
            )
        } else {
            format!(
                "the keys only partly meet: {} of {:?}'s and {} of {:?}'s row(s) have a key the other stream never has{types}",
                ev.left_rows, l.name, ev.right_rows, r.name
            )
        };
        let first = plan
            .rows
            .iter()
            .position(|r| {
                let x = seen[r.key.0 as usize];
                x[0] == 0 || x[1] == 0
            })
            .and_then(|i| row_step(plan, out, RowId(i as u32)));
        causes.push(Finding {
            kind: CauseKind::KeysNeverMeet,
            message,
            evidence: Evidence::Keys(ev),
            step: first,
            panel: Panel::Inputs,
            fix: None,
        });
    }
    if common == 0 {
        return;
    }
    if let Some(f) = bounds(plan, out, &seen) {
        causes.push(f);
    }
}

/// Per key present on both sides: the (timestamp, row) of each side, sorted.
fn by_key(plan: &Plan, seen: &[[usize; 2]]) -> BTreeMap<KeyId, [Vec<(i64, RowId)>; 2]> {
    let mut m: BTreeMap<KeyId, [Vec<(i64, RowId)>; 2]> = BTreeMap::new();
    for (i, r) in plan.rows.iter().enumerate() {
        let x = seen[r.key.0 as usize];
        if x[0] == 0 || x[1] == 0 {
            continue;
        }
        if let Some(ts) = r.ts {
            m.entry(r.key).or_default()[r.stream.index()].push((ts, RowId(i as u32)));
        }
    }
    for v in m.values_mut() {
        v[0].sort_unstable();
        v[1].sort_unstable();
    }
    m
}

/// The bound rules: same-key pairs exist, none satisfies the operator's pairing predicate.
pub(super) fn bounds(plan: &Plan, out: &RunOutput, seen: &[[usize; 2]]) -> Option<Finding> {
    let job = &plan.scenario.job;
    let groups = by_key(plan, seen);
    let pairs: u64 = groups
        .values()
        .map(|v| v[0].len() as u64 * v[1].len() as u64)
        .sum();
    let mut best: Option<Miss> = None;
    let mut consider = |m: Miss| {
        if best.as_ref().is_none_or(|b| m.0 < b.0) {
            best = Some(m);
        }
    };
    let desc;
    match plan.operator {
        // IntervalJoinOperator: right.ts ∈ [left.ts + lower, left.ts + upper] (ends
        // exclusive when asked: KeyedStream.IntervalJoined.lowerBoundExclusive()).
        OperatorKind::IntervalJoin => {
            let iv = &job.interval;
            let lo = iv.lower.0 + iv.lower_exclusive as i64;
            let hi = iv.upper.0 - iv.upper_exclusive as i64;
            desc = format!(
                "right.ts ∈ left.ts + {}{}, {}{}",
                if iv.lower_exclusive { "(" } else { "[" },
                iv.lower.0,
                iv.upper.0,
                if iv.upper_exclusive { ")" } else { "]" }
            );
            for v in groups.values() {
                for &(l, lid) in &v[0] {
                    let (a, b) = (l.saturating_add(lo), l.saturating_add(hi));
                    let i = v[1].partition_point(|x| x.0 < a);
                    if v[1].get(i).is_some_and(|x| x.0 <= b) {
                        return None;
                    }
                    if let Some(&(r, rid)) = i.checked_sub(1).map(|j| &v[1][j]) {
                        let miss = a - r;
                        let mut p = BTreeMap::new();
                        p.insert("job.interval.lower".into(), dur(iv.lower.0 - miss));
                        consider((miss, lid, rid, format!("the lower bound {}", iv.lower.0), p));
                    }
                    if let Some(&(r, rid)) = v[1].get(i) {
                        let miss = r - b;
                        let mut p = BTreeMap::new();
                        p.insert("job.interval.upper".into(), dur(iv.upper.0 + miss));
                        consider((miss, lid, rid, format!("the upper bound {}", iv.upper.0), p));
                    }
                }
            }
        }
        // RowTimeIntervalJoin's predicate: L.t >= R.t + lower AND L.t <= R.t + upper (strict
        // ends > / <), i.e. R.t ∈ [L.t − upper, L.t − lower].
        OperatorKind::SqlIntervalJoin if job.sql.time == TimeKind::Event => {
            let q = &job.sql;
            desc = format!(
                "l.t {} r.t + {} AND l.t {} r.t + {}",
                if q.lower_strict { ">" } else { ">=" },
                q.lower.0,
                if q.upper_strict { "<" } else { "<=" },
                q.upper.0
            );
            for v in groups.values() {
                for &(l, lid) in &v[0] {
                    let a = l
                        .saturating_sub(q.upper.0)
                        .saturating_add(q.upper_strict as i64);
                    let b = l
                        .saturating_sub(q.lower.0)
                        .saturating_sub(q.lower_strict as i64);
                    let i = v[1].partition_point(|x| x.0 < a);
                    if v[1].get(i).is_some_and(|x| x.0 <= b) {
                        return None;
                    }
                    if let Some(&(r, rid)) = i.checked_sub(1).map(|j| &v[1][j]) {
                        // r.t too small: l.t − r.t exceeds the upper bound.
                        let miss = a - r;
                        let mut p = BTreeMap::new();
                        p.insert("job.sql.upper".into(), dur(q.upper.0 + miss));
                        consider((miss, lid, rid, format!("the upper bound {}", q.upper.0), p));
                    }
                    if let Some(&(r, rid)) = v[1].get(i) {
                        let miss = r - b;
                        let mut p = BTreeMap::new();
                        p.insert("job.sql.lower".into(), dur(q.lower.0 - miss));
                        consider((miss, lid, rid, format!("the lower bound {}", q.lower.0), p));
                    }
                }
            }
        }
        // WindowOperator over the union of both streams (JoinedStreams → coGroup): a pair
        // joins when one window holds both rows.
        OperatorKind::WindowJoin => {
            let w = &job.window;
            match w.kind {
                WindowKind::Tumbling | WindowKind::Sliding => {
                    let size = w.size.0;
                    let slide = match w.kind {
                        WindowKind::Sliding => w.slide.map(|s| s.0).unwrap_or(size),
                        _ => size,
                    };
                    if size <= 0 || slide <= 0 {
                        return None;
                    }
                    let off = w.offset.0;
                    desc = format!(
                        "{:?} windows of {} (slide {}, offset {})",
                        w.kind, size, slide, off
                    );
                    for v in groups.values() {
                        for &(l, lid) in &v[0] {
                            let i = v[1].partition_point(|x| x.0 < l);
                            let near = [i.checked_sub(1).map(|j| v[1][j]), v[1].get(i).copied()];
                            for &(r, rid) in near.iter().flatten() {
                                let (a, b) = (l.min(r), l.max(r));
                                // The last window holding `a` (TimeWindow.getWindowStartWithOffset).
                                let start = a - (a - off).rem_euclid(slide);
                                let end = start + size;
                                if b < end {
                                    return None;
                                }
                                let miss = b - end + 1;
                                let mut p = BTreeMap::new();
                                let d = b - a;
                                if d < size {
                                    p.insert("job.window.offset".into(), dur(a.rem_euclid(slide)));
                                } else {
                                    let new_size = d + 1;
                                    let new_slide = if w.kind == WindowKind::Tumbling {
                                        new_size
                                    } else {
                                        slide
                                    };
                                    p.insert("job.window.size".into(), dur(new_size));
                                    p.insert(
                                        "job.window.offset".into(),
                                        dur(a.rem_euclid(new_slide)),
                                    );
                                }
                                consider((miss, lid, rid, format!("window [{start}, {end})"), p));
                            }
                        }
                    }
                }
                // Session windows merge across both streams: a pair joins when their
                // sessions merged ([ts, ts + gap) windows overlap).
                WindowKind::Session => {
                    let gap = w.gap.map(|g| g.0).unwrap_or(0);
                    if gap <= 0 {
                        return None;
                    }
                    desc = format!("session windows with gap {gap}");
                    for v in groups.values() {
                        let mut all: Vec<(i64, usize, RowId)> = v[0]
                            .iter()
                            .map(|&(t, id)| (t, 0, id))
                            .chain(v[1].iter().map(|&(t, id)| (t, 1, id)))
                            .collect();
                        all.sort_unstable();
                        let mut sides = [false; 2];
                        let mut end = i64::MIN;
                        for (i, &(t, side, _)) in all.iter().enumerate() {
                            if t >= end {
                                sides = [false; 2];
                            }
                            sides[side] = true;
                            if sides[0] && sides[1] {
                                return None;
                            }
                            end = end.max(t.saturating_add(gap));
                            if i > 0 && all[i - 1].1 != side {
                                let (pt, _, pid) = all[i - 1];
                                let d = t - pt;
                                let (lid, rid) = if side == 0 {
                                    (all[i].2, pid)
                                } else {
                                    (pid, all[i].2)
                                };
                                let mut p = BTreeMap::new();
                                p.insert("job.window.gap".into(), dur(d + 1));
                                consider((
                                    d + 1 - gap,
                                    lid,
                                    rid,
                                    format!("the session gap {gap}"),
                                    p,
                                ));
                            }
                        }
                    }
                }
            }
        }
        // Other operators: no pairing predicate known here (the key rule still applies).
        _ => return None,
    }
    let (miss, lid, rid, missed, patch) = best?;
    let key = plan.keys[plan.row(lid).key.0 as usize].value.clone();
    let (l, r) = (row_pos(plan, lid), row_pos(plan, rid));
    let later = if plan.row(lid).arrival >= plan.row(rid).arrival {
        lid
    } else {
        rid
    };
    let fix_text = patch
        .iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect::<Vec<_>>()
        .join(", ");
    Some(Finding {
        kind: CauseKind::BoundsExcludeAll,
        message: format!(
            "{pairs} same-key pair(s), and {desc} excludes every one: the nearest, {}:{} (ts {}) and {}:{} (ts {}), key {key}, misses {missed} by {miss} ms",
            l.stream,
            l.line,
            l.timestamp.unwrap_or(0),
            r.stream,
            r.line,
            r.timestamp.unwrap_or(0)
        ),
        evidence: Evidence::Bounds(BoundsEvidence {
            pairs,
            left: l,
            right: r,
            key,
            miss,
            missed,
        }),
        step: row_step(plan, out, later),
        panel: Panel::Timeline,
        fix: Some(Fix {
            patch,
            message: format!(
                "{fix_text}: the nearest pair ({}:{} and {}:{}) joins",
                plan.stream_name(Side::Left),
                plan.row(lid).line,
                plan.stream_name(Side::Right),
                plan.row(rid).line
            ),
        }),
    })
}
