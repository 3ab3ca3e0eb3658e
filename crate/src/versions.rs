//! The versions of a temporal join's versioned table and of a lookup join's dimension table,
//! for the timeline (validity intervals) and for the verdicts in words.
//!
//! Computed from the plan and the run's outputs, not re-simulated.
//! - Temporal join (`TemporalRowTimeJoinOperator`): per key, the right rows by event time, one
//!   per timestamp (a later arrival with the same time replaces the earlier one, as
//!   `rightState.put(rightTime, row)` does); a version is valid from its time to the next
//!   version's time. A `-U`/`-D` row is a version too: from its time on there is no row to join.
//! - Lookup join (`LookupJoinRunner`): a dimension row is in the table from its arrival
//!   (processing time) until the row that replaces or deletes it arrives.

use crate::operators::Sink;
use crate::parse::{RowKind, Side};
use crate::plan::{Arrival, Plan, RowId};
use crate::scenario::OperatorKind;
use crate::value::Value;
use crate::verdict::{Outcome, Verdict};
use serde::Serialize;

/// One version (a row of the versioned or dimension table) and when it is valid.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct VersionSpan {
    pub row: RowId,
    /// The join key value.
    pub key: Value,
    /// Valid from (event time for a temporal join, processing time for a lookup join).
    pub from: i64,
    /// Valid until (exclusive); `None`: still valid at the end.
    pub to: Option<i64>,
    /// `+I`/`+U`: a row to join; `-U`/`-D`: the key has no row from `from` on.
    pub kind: RowKind,
    /// A later row with the same time replaced it before it could ever be joined
    /// (temporal join only; its span is empty).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub replaced: bool,
}

/// A time in words: a clock for times within a day, a date-time for epoch times, else ms.
pub fn show_time(ms: i64) -> String {
    if ms >= 100_000_000_000 {
        crate::time::format_datetime(ms)
    } else if (0..86_400_000).contains(&ms) && ms >= 60_000 {
        let (h, m, s, milli) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
        if milli == 0 {
            format!("{h:02}:{m:02}:{s:02}")
        } else {
            format!("{h:02}:{m:02}:{s:02}.{milli:03}")
        }
    } else {
        format!("{ms} ms")
    }
}

fn key_of(plan: &Plan, id: RowId) -> &Value {
    let r = plan.row(id);
    let k = plan.schemas[r.stream.index()].key.unwrap_or(0);
    &r.values[k]
}

fn label(plan: &Plan, id: RowId) -> String {
    let r = plan.row(id);
    format!("{}:{}", plan.stream_name(r.stream), r.line)
}

/// Rows of the right stream in arrival order.
fn right_in_arrival_order(plan: &Plan) -> Vec<RowId> {
    plan.arrivals
        .iter()
        .filter_map(|a| match a {
            Arrival::Row(id) if plan.row(*id).stream == Side::Right => Some(*id),
            _ => None,
        })
        .collect()
}

/// The validity intervals of every version (empty for other operators).
pub fn spans(plan: &Plan) -> Vec<VersionSpan> {
    match plan.operator {
        OperatorKind::TemporalJoin => temporal_spans(plan),
        OperatorKind::LookupJoin => lookup_spans(plan),
        _ => Vec::new(),
    }
}

fn temporal_spans(plan: &Plan) -> Vec<VersionSpan> {
    // -U rows never reach the join (DropUpdateBefore, see operators/temporal_join.rs).
    let rows: Vec<RowId> = right_in_arrival_order(plan)
        .into_iter()
        .filter(|&id| plan.row(id).kind != RowKind::UpdateBefore)
        .collect();
    let mut out: Vec<VersionSpan> = Vec::new();
    for &id in &rows {
        let r = plan.row(id);
        let t = r.ts.unwrap_or(i64::MIN);
        let key = key_of(plan, id).clone();
        // A later row with the same key and time replaces this one.
        let replaced = rows
            .iter()
            .skip_while(|&&x| x != id)
            .skip(1)
            .any(|&x| plan.row(x).ts == r.ts && key_of(plan, x) == &key);
        let next = rows
            .iter()
            .filter(|&&x| key_of(plan, x) == &key)
            .filter_map(|&x| plan.row(x).ts)
            .filter(|&u| u > t)
            .min();
        out.push(VersionSpan {
            row: id,
            key,
            from: t,
            to: if replaced { Some(t) } else { next },
            kind: r.kind,
            replaced,
        });
    }
    out.sort_by(|a, b| {
        format!("{:?}", a.key)
            .cmp(&format!("{:?}", b.key))
            .then(a.from.cmp(&b.from))
            .then(a.row.cmp(&b.row))
    });
    out
}

fn lookup_spans(plan: &Plan) -> Vec<VersionSpan> {
    let rows = right_in_arrival_order(plan);
    let schema = &plan.schemas[1];
    let pk: Vec<usize> = plan
        .scenario
        .streams
        .get(1)
        .map(|s| {
            s.primary_key
                .iter()
                .filter_map(|p| schema.columns.iter().position(|c| c.name == p.trim()))
                .collect()
        })
        .unwrap_or_default();
    let same = |a: RowId, b: RowId| {
        let (x, y) = (&plan.row(a).values, &plan.row(b).values);
        if pk.is_empty() {
            x == y
        } else {
            pk.iter().all(|&c| x[c] == y[c])
        }
    };
    // The table in insertion order, with each row's open span index.
    let mut table: Vec<(RowId, usize)> = Vec::new();
    let mut out: Vec<VersionSpan> = Vec::new();
    for &id in &rows {
        let r = plan.row(id);
        let at = table.iter().position(|&(x, _)| same(x, id));
        let now = r.arrival;
        if r.kind.is_accumulate() {
            let span = out.len();
            out.push(VersionSpan {
                row: id,
                key: key_of(plan, id).clone(),
                from: now,
                to: None,
                kind: r.kind,
                replaced: false,
            });
            match at {
                Some(i) if !pk.is_empty() => {
                    out[table[i].1].to = Some(now);
                    table[i] = (id, span);
                }
                _ => table.push((id, span)),
            }
        } else if let Some(i) = at {
            out[table[i].1].to = Some(now);
            table.remove(i);
        }
    }
    out
}

/// The verdicts of a temporal or lookup join's rows (`None` for other operators).
pub fn verdict(
    plan: &Plan,
    sink: &Sink,
    id: RowId,
    outputs: &[usize],
    buffered: bool,
) -> Option<Verdict> {
    let lookup = match plan.operator {
        OperatorKind::TemporalJoin => false,
        OperatorKind::LookupJoin => true,
        _ => return None,
    };
    let r = plan.row(id);
    let joined: Vec<usize> = outputs
        .iter()
        .copied()
        .filter(|&o| sink.outputs[o].right.is_some())
        .collect();
    let padded = outputs.iter().any(|&o| sink.outputs[o].right.is_none());
    let spans = spans(plan);
    let span_of = |v: RowId| spans.iter().find(|s| s.row == v);
    let valid = |s: &VersionSpan| match s.to {
        Some(to) => format!("from {} to {}", show_time(s.from), show_time(to)),
        None => format!("from {} on", show_time(s.from)),
    };
    let other = plan.stream_name(r.stream.other()).to_string();
    let key = key_of(plan, id);
    let v = |outcome, message: String| {
        Some(Verdict {
            row: id,
            outcome,
            outputs: outputs.to_vec(),
            late: None,
            message,
        })
    };
    if r.stream == Side::Right {
        let Some(s) = span_of(id) else {
            return v(
                Outcome::Unmatched,
                if lookup {
                    "never in the dimension table (it retracts a row that is not there)".into()
                } else {
                    "dropped before the join: the planner puts a DropUpdateBefore after a versioned table's scan (the temporal join reads only +I/+U/-D)".into()
                },
            );
        };
        let what = if lookup {
            "in the dimension table"
        } else {
            "version"
        };
        if !s.kind.is_accumulate() {
            return v(
                Outcome::Unmatched,
                format!(
                    "a {} of key {key}: {what} has no row {}",
                    s.kind.short(),
                    valid(s)
                ),
            );
        }
        if s.replaced {
            return v(Outcome::Unmatched, format!("never joined: a later row with the same time {} replaced it (one version per timestamp)", show_time(s.from)));
        }
        let partners: Vec<String> = joined
            .iter()
            .filter_map(|&o| sink.outputs[o].left)
            .map(|p| label(plan, p))
            .collect();
        let time = if lookup { "processing time " } else { "" };
        if partners.is_empty() {
            return v(
                Outcome::Unmatched,
                format!("{what} valid {time}{}; no {other} row joined it", valid(s)),
            );
        }
        return v(
            Outcome::Joined,
            format!(
                "{what} valid {time}{}; joined with {}",
                valid(s),
                partners.join(", ")
            ),
        );
    }
    // A probe row.
    if !joined.is_empty() {
        let parts: Vec<String> = joined
            .iter()
            .filter_map(|&o| sink.outputs[o].right)
            .map(|d| match span_of(d) {
                Some(s) if lookup => format!(
                    "{} (in the table at processing time {}, {})",
                    label(plan, d),
                    show_time(r.arrival),
                    valid(s)
                ),
                Some(s) => format!("the version {} valid {}", label(plan, d), valid(s)),
                None => label(plan, d),
            })
            .collect();
        return v(Outcome::Joined, format!("joined with {}", parts.join(", ")));
    }
    let why = if lookup {
        let later = spans
            .iter()
            .find(|s| &s.key == key && s.kind.is_accumulate() && s.from > r.arrival);
        let mut m = format!(
            "no {other} row with key {key} was in the table at processing time {} (its arrival)",
            show_time(r.arrival)
        );
        if let Some(s) = later {
            m.push_str(&format!(
                "; {} arrived later, at {}, and a lookup join never looks again",
                label(plan, s.row),
                show_time(s.from)
            ));
        }
        m
    } else {
        let t = r.ts.unwrap_or(i64::MIN);
        let before = spans
            .iter()
            .filter(|s| &s.key == key && !s.replaced && s.from <= t)
            .max_by_key(|s| s.from);
        match before {
            None => format!("no version at or before {}", show_time(t)),
            Some(s) if !s.kind.is_accumulate() => format!(
                "the version at or before {} is a {} ({}): no row to join",
                show_time(t),
                s.kind.short(),
                label(plan, s.row)
            ),
            Some(s) => format!(
                "the version valid at {} ({}) was not in state when the watermark released it: it arrived later, or a newer version at or before the watermark had already replaced it",
                show_time(t),
                label(plan, s.row)
            ),
        }
    };
    if padded {
        v(Outcome::Padded, format!("padded with nulls: {why}"))
    } else if buffered {
        v(
            Outcome::Buffered,
            if lookup {
                why
            } else {
                format!(
                    "still waiting for the watermark to reach {} (no final watermark)",
                    show_time(r.ts.unwrap_or(i64::MIN))
                )
            },
        )
    } else {
        v(Outcome::Unmatched, format!("not joined: {why}"))
    }
}

#[cfg(test)]
mod tests {
    fn gallery(name: &str) -> crate::result::RunResult {
        let path = format!("{}/../scenarios/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(path).expect("gallery scenario");
        crate::run_json(&text, true).expect("runs")
    }

    fn messages(r: &crate::result::RunResult) -> Vec<String> {
        r.verdicts
            .as_ref()
            .expect("verdicts")
            .iter()
            .map(|v| v.message.clone())
            .collect()
    }

    #[test]
    fn temporal_verdicts_name_the_version_and_its_validity() {
        let r = gallery("temporal-join-late-version.json");
        let m = messages(&r);
        assert_eq!(
            m[0],
            "joined with the version rates:1 valid from 12:00:00 to 12:03:00"
        );
        assert_eq!(m[1], "padded with nulls: no version at or before 12:01:00");
        assert_eq!(
            m[2],
            "joined with the version rates:4 valid from 12:03:00 to 12:05:00"
        );
        // The validity intervals of the EUR versions: 12:00–12:03, 12:03–12:05, 12:05–.
        let eur: Vec<(i64, Option<i64>)> = r
            .versions
            .iter()
            .filter(|s| s.key.to_string() == "EUR")
            .map(|s| (s.from, s.to))
            .collect();
        assert_eq!(
            eur,
            [
                (43_200_000, Some(43_380_000)),
                (43_380_000, Some(43_500_000)),
                (43_500_000, None)
            ]
        );
    }

    #[test]
    fn lookup_verdicts_say_what_the_table_held_at_arrival() {
        let r = gallery("lookup-join-dimension-changes.json");
        let m = messages(&r);
        assert!(
            m[4].contains("customers:5 arrived later, at 10:01:00"),
            "{}",
            m[4]
        );
        // Alice's row was replaced at 10:00:20 (processing time).
        assert_eq!(r.versions[0].to, Some(36_020_000));
    }
}
