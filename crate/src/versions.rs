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
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::ops::Bound::{Excluded, Unbounded};

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
    &plan.row_values(r)[k]
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
            Arrival::Row(id) if plan.row(id).stream == Side::Right => Some(id),
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
    // Per key, the times of its versions (for where each version ends); walking the rows
    // backwards, whether a later row has the same key and time (then it replaced this one).
    // Both in O(n log n): a link of a few hundred characters can expand to many rows.
    let mut times: HashMap<&Value, BTreeSet<i64>> = HashMap::new();
    for &id in &rows {
        if let Some(t) = plan.row(id).ts {
            times.entry(key_of(plan, id)).or_default().insert(t);
        }
    }
    let mut replaced = vec![false; rows.len()];
    let mut seen: HashSet<(&Value, Option<i64>)> = HashSet::new();
    for (i, &id) in rows.iter().enumerate().rev() {
        replaced[i] = !seen.insert((key_of(plan, id), plan.row(id).ts));
    }
    let mut out: Vec<VersionSpan> = Vec::with_capacity(rows.len());
    for (i, &id) in rows.iter().enumerate() {
        let r = plan.row(id);
        let t = r.ts.unwrap_or(i64::MIN);
        let key = key_of(plan, id);
        let next = times
            .get(key)
            .and_then(|ts| ts.range((Excluded(t), Unbounded)).next().copied());
        out.push(VersionSpan {
            row: id,
            key: key.clone(),
            from: t,
            to: if replaced[i] { Some(t) } else { next },
            kind: r.kind,
            replaced: replaced[i],
        });
    }
    out.sort_by_cached_key(|s| (format!("{:?}", s.key), s.from, s.row));
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
    // The rows in the table, by primary key (or by all values without one), each with its
    // open span; without a primary key equal rows are kept in insertion order and a
    // retraction removes the oldest (`LookupJoinRunner` sees a multiset).
    let mut open: HashMap<Vec<Value>, VecDeque<usize>> = HashMap::new();
    let mut out: Vec<VersionSpan> = Vec::new();
    for &id in &rows {
        let r = plan.row(id);
        let values = plan.row_values(r);
        let k: Vec<Value> = if pk.is_empty() {
            values.to_vec()
        } else {
            pk.iter().map(|&c| values[c].clone()).collect()
        };
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
            let q = open.entry(k).or_default();
            if !pk.is_empty() {
                if let Some(prev) = q.pop_front() {
                    out[prev].to = Some(now);
                }
            }
            q.push_back(span);
        } else if let Some(prev) = open.get_mut(&k).and_then(|q| q.pop_front()) {
            out[prev].to = Some(now);
        }
    }
    out
}

/// The versions of a run, indexed for the verdicts: computed once per result, so that the
/// verdicts of n rows cost O(n log n), not a scan of every version per row.
pub struct Versions {
    spans: Vec<VersionSpan>,
    by_row: HashMap<RowId, usize>,
    /// Per key, the indices of its spans in order of `from` (and arrival).
    by_key: HashMap<Value, Vec<usize>>,
}

impl Versions {
    /// The versions of `plan`'s run (empty for operators without versions).
    pub fn of(plan: &Plan) -> Versions {
        let spans = spans(plan);
        let mut by_row = HashMap::with_capacity(spans.len());
        let mut by_key: HashMap<Value, Vec<usize>> = HashMap::new();
        for (i, s) in spans.iter().enumerate() {
            by_row.insert(s.row, i);
            by_key.entry(s.key.clone()).or_default().push(i);
        }
        Versions {
            spans,
            by_row,
            by_key,
        }
    }

    fn of_row(&self, row: RowId) -> Option<&VersionSpan> {
        self.by_row.get(&row).map(|&i| &self.spans[i])
    }

    fn of_key(&self, key: &Value) -> &[usize] {
        self.by_key.get(key).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The first row put in the table after `time` (lookup join: spans start at arrival).
    fn first_row_after(&self, key: &Value, time: i64) -> Option<&VersionSpan> {
        let ids = self.of_key(key);
        let from = ids.partition_point(|&i| self.spans[i].from <= time);
        ids[from..]
            .iter()
            .map(|&i| &self.spans[i])
            .find(|s| s.kind.is_accumulate())
    }

    /// The version valid at `t` (temporal join): the latest not replaced at or before `t`.
    fn version_at(&self, key: &Value, t: i64) -> Option<&VersionSpan> {
        let ids = self.of_key(key);
        let upto = ids.partition_point(|&i| self.spans[i].from <= t);
        ids[..upto]
            .iter()
            .rev()
            .map(|&i| &self.spans[i])
            .find(|s| !s.replaced)
    }
}

/// The verdicts of a temporal or lookup join's rows (`None` for other operators).
pub fn verdict(
    plan: &Plan,
    sink: &Sink,
    versions: &Versions,
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
    let span_of = |v: RowId| versions.of_row(v);
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
        let later = versions.first_row_after(key, r.arrival);
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
        let before = versions.version_at(key, t);
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
    use super::*;

    /// The quadratic definition the indexed `temporal_spans` must equal.
    fn temporal_spans_reference(plan: &Plan) -> Vec<VersionSpan> {
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

    /// Random versioned tables: few keys, times that repeat, -U/-D rows, rows without time.
    fn random_temporal(seed: u64) -> String {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let mut rates = String::new();
        for _ in 0..(5 + next(60)) {
            let kind = ["", "", "+U ", "-D ", "-U "][next(5) as usize];
            rates.push_str(&format!("{kind}K{}, {}, {}\\n", next(3), next(9), next(12)));
        }
        let mut orders = String::new();
        for i in 0..(1 + next(20)) {
            orders.push_str(&format!("{i}, K{}, {}\\n", next(4), next(14)));
        }
        format!(
            r#"{{"version": 2, "job": {{"operator": "temporal_join", "sql": {{"join": "left"}}}},
            "streams": [
              {{"name": "orders", "columns": ["id:int", "k:string", "rt:bigint"], "key": "k", "time": "rt", "rows": "{orders}"}},
              {{"name": "rates", "columns": ["k:string", "rate:int", "rt:bigint"], "key": "k", "time": "rt", "primary_key": ["k"], "rows": "{rates}"}}]}}"#
        )
    }

    #[test]
    fn indexed_temporal_spans_equal_the_quadratic_definition() {
        let mut checked = 0;
        for seed in 1..300 {
            let text = random_temporal(seed);
            let sc = crate::scenario::Scenario::from_json(&text).expect("scenario");
            let Ok(plan) = crate::plan::build(&sc, crate::plan::Limits::default()) else {
                continue;
            };
            assert_eq!(
                temporal_spans(&plan),
                temporal_spans_reference(&plan),
                "{text}"
            );
            checked += 1;
        }
        assert!(checked > 250, "{checked} random scenarios planned");
    }

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
