//! Random scenarios for the conformance suite (`joinlab gen --seed S --count N --out DIR`).
//!
//! Each scenario is small (a few keys, 2–14 rows per stream) but exercises what goes wrong in
//! practice: every operator; parallelism 1–4 (sometimes a small max parallelism, so key groups
//! spread differently); rows on chosen assigner subtasks; out-of-order and late rows (a row whose
//! timestamp is far behind the stream's maximum); bounded / monotonous / legacy / punctuated
//! watermarks, per-event or periodic with idleness; random window sizes, slides, offsets,
//! gaps, allowed lateness; interval bounds of either sign, exclusive ends; SQL join types,
//! strict bounds; regular-join retractions; negative timestamps; no final watermark.
//! The same `(seed, index)` always gives the same scenario.

use crate::scenario::{
    AggregateSpec, ArrivalOrder, IntervalSpec, Job, JoinType, LateOutput, OperatorKind, Scenario,
    SplitRoute, SplitSpec, SqlSpec, Strategy, StreamSpec, WatermarkSpec, WindowKind, WindowSpec,
};
use crate::time::Millis;
use std::fmt::Write;

/// SplitMix64: small, fast, good enough, and the same everywhere.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64, index: usize) -> Rng {
        let mut r = Rng(seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5151_7eed);
        r.next();
        r
    }
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }
    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next() % items.len() as u64) as usize]
    }
}

#[derive(Clone, Copy, PartialEq)]
enum KeyType {
    Int,
    Long,
    Str,
    LongStr,
    Double,
    Bool,
}

impl KeyType {
    fn column(self) -> &'static str {
        match self {
            KeyType::Int => "k:int",
            KeyType::Long => "k:bigint",
            KeyType::Str | KeyType::LongStr => "k:string",
            KeyType::Double => "k:double",
            KeyType::Bool => "k:boolean",
        }
    }
    fn value(self, i: i64) -> String {
        match self {
            KeyType::Int => i.to_string(),
            // Values beyond 32 bits: Long.hashCode mixes the high word in.
            KeyType::Long => (i * 4_294_967_311 + 7).to_string(),
            KeyType::Str => ["a", "b", "c", "d", "e", "f"][i as usize % 6].to_string(),
            // Longer than 7 bytes (a BinaryRowData stores it out of line), some not ASCII.
            KeyType::LongStr => format!(
                "{}-{i:02}",
                ["customer", "Zoë", "user@example.com", "日本"][i as usize % 4]
            ),
            KeyType::Double => format!("{:?}", i as f64 * 0.5 - 1.0),
            KeyType::Bool => (i % 2 == 0).to_string(),
        }
    }
}

/// One generated row before it is written as text.
struct GenRow {
    key: i64,
    ts: i64,
    extra: String,
    subtask: Option<u32>,
    arrival: i64,
    kind: &'static str,
}

/// Scenario number `index` of the run seeded with `seed`.
pub fn scenario(seed: u64, index: usize) -> Scenario {
    scenario_of(seed, index, None)
}

/// The scenario `index` of `seed`, only of `operator` when given (operators with their own
/// generator use it; the others filter the mixed generator's draws).
pub fn scenario_of(seed: u64, index: usize, operator: Option<OperatorKind>) -> Scenario {
    match operator {
        Some(OperatorKind::WindowTvfAggregate) => {
            return super::gen_window_tvf_agg::scenario(seed, index)
        }
        Some(op @ (OperatorKind::TemporalJoin | OperatorKind::LookupJoin)) => {
            return super::temporal_gen::scenario(seed, index, op)
        }
        Some(OperatorKind::RegularJoin) => return super::gen_regular::scenario(seed, index),
        Some(OperatorKind::WindowTvfJoin) => return super::gen_window_join::scenario(seed, index),
        Some(op) => {
            // The mixed generator's scenarios of that operator, in order.
            let mut found = 0;
            for i in 0.. {
                let sc = mixed(seed, i);
                if sc.job.operator == op {
                    if found == index {
                        return sc;
                    }
                    found += 1;
                }
                if i > 1000 * (index + 1) {
                    break;
                }
            }
            return mixed(seed, index);
        }
        None => {}
    }
    mixed(seed, index)
}

fn mixed(seed: u64, index: usize) -> Scenario {
    let mut g = Rng::new(seed, index);
    let operator = *g.pick(&[
        OperatorKind::WindowJoin,
        OperatorKind::IntervalJoin,
        OperatorKind::WindowAggregate,
        OperatorKind::SqlIntervalJoin,
        OperatorKind::RegularJoin,
        OperatorKind::Split,
    ]);
    // A third of the scenarios are bigger: more rows and keys, higher parallelism, equal
    // timestamps, epoch-millisecond times (HashMap order of large Long timestamps).
    let hard = g.chance(35);
    // Some are long: one or two keys with many rows each (state maps grow past Java's HashMap
    // resize thresholds, so their iteration order is tested).
    let big = !hard && g.chance(12);
    let parallelism = if hard {
        *g.pick(&[2u32, 3, 4, 5, 6, 8])
    } else {
        *g.pick(&[1u32, 1, 2, 2, 3, 4])
    };
    let mut job = Job {
        operator,
        parallelism,
        ..Job::default()
    };
    if g.chance(10) {
        job.max_parallelism = Some(g.range(parallelism.max(2) as i64, 16) as u32);
    }
    let keys = if hard {
        g.range(3, 12)
    } else if big {
        g.range(1, 2)
    } else {
        g.range(1, 5)
    };
    let key_type = match operator {
        OperatorKind::Split => KeyType::Str,
        _ if hard => *g.pick(&[
            KeyType::Int,
            KeyType::Str,
            KeyType::Long,
            KeyType::LongStr,
            KeyType::Double,
            KeyType::Bool,
        ]),
        _ => *g.pick(&[KeyType::Int, KeyType::Int, KeyType::Str, KeyType::Long]),
    };
    let base = if hard && g.chance(40) {
        1_635_724_800_000 + g.range(0, 100) * 1000
    } else if g.chance(12) {
        -g.range(1, 20) * 1000
    } else {
        g.range(0, 5) * 1000
    };
    let quantum = if hard { 100 } else { 1 };
    let spread = *g.pick(&[2_000i64, 5_000, 10_000, 30_000]);

    // Watermarks.
    let mut wm = WatermarkSpec {
        strategy: *g.pick(&[
            Strategy::Bounded,
            Strategy::Bounded,
            Strategy::Bounded,
            Strategy::Monotonous,
            Strategy::Legacy,
            Strategy::Punctuated,
            Strategy::None,
        ]),
        delay: Millis(*g.pick(&[0i64, 0, 500, 1000, 2000, 3000])),
        ..WatermarkSpec::default()
    };
    let regular = operator == OperatorKind::RegularJoin;
    if g.chance(35) && !regular {
        wm.per_event = g.chance(30);
        wm.interval = Millis(*g.pick(&[100i64, 200, 500, 1000]));
        if g.chance(60) {
            wm.idle_timeout = Some(Millis(*g.pick(&[300i64, 1000, 2000])));
        }
        if wm.strategy == Strategy::Punctuated {
            wm.strategy = Strategy::Bounded;
        }
    }
    if wm.strategy == Strategy::Monotonous {
        wm.delay = Millis(0);
    }
    job.watermark = wm.clone();
    if g.chance(8) {
        job.final_watermark = false;
    }
    if g.chance(15) {
        job.arrival = *g.pick(&[ArrivalOrder::LeftFirst, ArrivalOrder::Interleave]);
    }

    // Operator settings.
    match operator {
        OperatorKind::WindowJoin | OperatorKind::WindowAggregate => {
            let kind = *g.pick(&[
                WindowKind::Tumbling,
                WindowKind::Tumbling,
                WindowKind::Sliding,
                WindowKind::Session,
            ]);
            let size = *g.pick(&[1000i64, 2000, 3000, 5000, 10_000]);
            let mut w = WindowSpec {
                kind,
                size: Millis(size),
                ..WindowSpec::default()
            };
            match kind {
                WindowKind::Tumbling => {
                    if g.chance(25) {
                        w.offset = Millis(g.range(-(size - 1), size - 1) / 100 * 100);
                    }
                }
                WindowKind::Sliding => {
                    let slide = *g.pick(&[size / 2, size / 4, size / 3, size]);
                    let slide = slide.max(100);
                    w.slide = Some(Millis(slide));
                    if g.chance(25) {
                        w.offset = Millis(g.range(-(slide - 1), slide - 1) / 100 * 100);
                    }
                }
                WindowKind::Session => w.gap = Some(Millis(*g.pick(&[500i64, 1000, 2000, 3000]))),
            }
            job.window = w;
            if g.chance(40) {
                job.allowed_lateness = Millis(*g.pick(&[500i64, 1000, 2000, 5000]));
            }
            if operator == OperatorKind::WindowAggregate {
                if g.chance(60) {
                    job.late_output = LateOutput {
                        left: Some("late".into()),
                        right: None,
                    };
                }
                if g.chance(70) {
                    job.aggregate = AggregateSpec {
                        sum: Some("v".into()),
                    };
                }
            }
        }
        OperatorKind::IntervalJoin => {
            let lower = g.range(-40, 10) * 100;
            let upper = lower + g.range(0, 50) * 100;
            job.interval = IntervalSpec {
                lower: Millis(lower),
                upper: Millis(upper),
                lower_exclusive: g.chance(20),
                upper_exclusive: g.chance(20),
            };
            if job.interval.lower == job.interval.upper
                && (job.interval.lower_exclusive || job.interval.upper_exclusive)
            {
                job.interval.upper = Millis(upper + 100);
            }
            if g.chance(60) {
                job.late_output.left = Some("late-left".into());
            }
            if g.chance(60) {
                job.late_output.right = Some("late-right".into());
            }
        }
        OperatorKind::SqlIntervalJoin | OperatorKind::RegularJoin => {
            let join = *g.pick(&[
                JoinType::Inner,
                JoinType::Left,
                JoinType::Right,
                JoinType::Full,
            ]);
            let mut sql = SqlSpec {
                join,
                ..SqlSpec::default()
            };
            if operator == OperatorKind::SqlIntervalJoin {
                let lower = g.range(-40, 10) * 100;
                let upper = lower + g.range(0, 50) * 100;
                sql.lower = Millis(lower);
                sql.upper = Millis(upper);
                sql.lower_strict = g.chance(20);
                sql.upper_strict = g.chance(20);
                if lower == upper {
                    sql.lower_strict = false;
                    sql.upper_strict = false;
                }
                if g.chance(15) {
                    sql.min_cleanup = Millis(*g.pick(&[500i64, 1000, 3000]));
                }
            }
            job.sql = sql;
        }
        OperatorKind::WindowTvfAggregate
        | OperatorKind::WindowTvfJoin
        | OperatorKind::TemporalJoin
        | OperatorKind::LookupJoin => {}
        OperatorKind::Split => {
            let mut routes = vec![
                SplitRoute {
                    value: "a".into(),
                    to: "main".into(),
                },
                SplitRoute {
                    value: "b".into(),
                    to: "tag-b".into(),
                },
            ];
            if g.chance(50) {
                routes.push(SplitRoute {
                    value: "c".into(),
                    to: "tag-c".into(),
                });
            }
            if g.chance(30) {
                routes.push(SplitRoute {
                    value: "d".into(),
                    to: "main".into(),
                });
            }
            job.split = SplitSpec {
                column: "k".into(),
                routes,
                otherwise: if g.chance(50) {
                    Some((*g.pick(&["main", "rest", "tag-b"])).to_string())
                } else {
                    None
                },
            };
        }
    }

    // Rows.
    let two = operator.two_inputs();
    let n_streams = if two { 2 } else { 1 };
    let mut streams = Vec::new();
    let mut clock = 0i64;
    for si in 0..n_streams {
        let n = if hard {
            g.range(8, 28)
        } else if big {
            g.range(30, 90)
        } else {
            g.range(2, 14)
        };
        let mut rows: Vec<GenRow> = Vec::new();
        let mut max_ts = base;
        let mut t = base;
        for _ in 0..n {
            let late = g.chance(15) && !rows.is_empty();
            let ts = if late {
                max_ts - g.range(1, 8) * 500
            } else if g.chance(25) {
                // Mildly out of order.
                t + g.range(-15, 5) * 100
            } else {
                t += g.range(0, spread / 5);
                t
            };
            let ts = ts.div_euclid(quantum) * quantum;
            max_ts = max_ts.max(ts);
            clock += g.range(1, 400);
            rows.push(GenRow {
                key: g.range(0, keys - 1),
                ts,
                extra: match (operator, si) {
                    (OperatorKind::Split, _) => String::new(),
                    (_, 0) => g.range(-5, 20).to_string(),
                    _ => (*g.pick(&["x", "y", "z", "x y", "\"q,r\""])).to_string(),
                },
                subtask: if parallelism > 1 && g.chance(50) {
                    Some(g.range(0, parallelism as i64 - 1) as u32)
                } else {
                    None
                },
                arrival: if wm.interval.0 > 0 || g.chance(50) {
                    clock
                } else {
                    ts
                },
                kind: "",
            });
        }
        if regular {
            // A retraction of a row that was never inserted, or an update with no before-image.
            if g.chance(15) {
                clock += g.range(1, 400);
                let kind = *g.pick(&["-D", "+U", "-U"]);
                rows.push(GenRow {
                    key: g.range(0, keys - 1),
                    ts: base + g.range(0, 20) * 100,
                    extra: if si == 0 { "77".into() } else { "never".into() },
                    subtask: None,
                    arrival: clock,
                    kind,
                });
            }
            // Retractions of earlier rows (the same values), and updates.
            let m = rows.len();
            for i in 0..m {
                if g.chance(25) {
                    let kind = *g.pick(&["-D", "-U"]);
                    clock += g.range(1, 400);
                    let src = &rows[i];
                    let (key, ts, extra, subtask) =
                        (src.key, src.ts, src.extra.clone(), src.subtask);
                    rows.push(GenRow {
                        key,
                        ts,
                        extra: extra.clone(),
                        subtask,
                        arrival: clock,
                        kind,
                    });
                    if kind == "-U" {
                        rows.push(GenRow {
                            key,
                            ts,
                            extra: if si == 0 {
                                format!("{}", extra.parse::<i64>().unwrap_or(0) + 100)
                            } else {
                                "u".into()
                            },
                            subtask,
                            arrival: clock,
                            kind: "+U",
                        });
                    }
                }
            }
        }
        let punctuated = wm.strategy == Strategy::Punctuated || g.chance(8);
        let mut text = String::new();
        let mut cur_max = i64::MIN;
        for (ri, r) in rows.iter().enumerate() {
            cur_max = cur_max.max(r.ts);
            if !r.kind.is_empty() {
                text.push_str(r.kind);
                text.push(' ');
            }
            let key = if operator == OperatorKind::Split {
                ["a", "b", "c", "d", "e"][r.key as usize % 5].to_string()
            } else {
                key_type.value(r.key)
            };
            match (operator, si) {
                (OperatorKind::Split, _) => {
                    let _ = write!(text, "{key}, {}", r.ts);
                }
                (_, 0) => {
                    let _ = write!(text, "{key}, {}, {}", r.extra, r.ts);
                }
                _ => {
                    let _ = write!(text, "{key}, {}, {}", r.extra, r.ts);
                }
            }
            let mut ann = Vec::new();
            if let Some(s) = r.subtask {
                ann.push(format!("s={s}"));
            }
            if job.arrival == ArrivalOrder::ByTime {
                ann.push(format!("a={}", r.arrival));
            }
            if !ann.is_empty() {
                let _ = write!(text, " | {}", ann.join(" "));
            }
            text.push('\n');
            if punctuated && g.chance(30) && ri + 1 < rows.len() {
                let w = cur_max - g.range(0, 3) * 500;
                let _ = write!(text, "WM {w}");
                let mut ann = Vec::new();
                if parallelism > 1 && g.chance(50) {
                    ann.push(format!("s={}", g.range(0, parallelism as i64 - 1)));
                }
                if job.arrival == ArrivalOrder::ByTime {
                    ann.push(format!("a={}", r.arrival));
                }
                if !ann.is_empty() {
                    let _ = write!(text, " | {}", ann.join(" "));
                }
                text.push('\n');
            }
        }
        let name = if si == 0 { "left" } else { "right" };
        let columns: Vec<String> = match (operator, si) {
            (OperatorKind::Split, _) => vec!["k:string".into(), "ts:bigint".into()],
            (_, 0) => vec![key_type.column().into(), "v:int".into(), "ts:bigint".into()],
            _ => vec![
                key_type.column().into(),
                "w:string".into(),
                "ts:bigint".into(),
            ],
        };
        let no_time = regular && g.chance(30);
        streams.push(StreamSpec {
            name: name.into(),
            columns,
            key: if operator == OperatorKind::Split {
                None
            } else {
                Some("k".into())
            },
            time: if no_time { None } else { Some("ts".into()) },
            rows: text.trim_end().to_string(),
            watermark: None,
            primary_key: Vec::new(),
            scan_watermark_idle_timeout: None,
            time_from: None,
            proctime: None,
        });
    }
    if operator.is_sql() && g.chance(8) {
        // No equi-key: Flink runs the join on one subtask.
        for s in &mut streams {
            s.key = None;
        }
    }
    if two && streams.iter().any(|s| s.time.is_none()) {
        for s in &mut streams {
            s.time = None;
        }
        job.watermark = WatermarkSpec::default();
    }
    if two && g.chance(10) && !regular {
        // The right stream with its own watermark delay.
        let mut w2 = job.watermark.clone();
        w2.delay = Millis(*g.pick(&[0i64, 1000, 4000]));
        if w2.strategy == Strategy::Monotonous {
            w2.strategy = Strategy::Bounded;
        }
        streams[1].watermark = Some(w2);
    }
    Scenario {
        title: format!("Random {operator:?} #{index} (seed {seed})"),
        description: "Generated by `joinlab gen` for the conformance suite.".into(),
        job,
        streams,
        ..Scenario::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_runnable() {
        for i in 0..300 {
            let a = scenario(7, i);
            assert_eq!(a, scenario(7, i), "scenario {i} is not deterministic");
            let json = a.to_pretty_json();
            if let Err(e) = crate::run_json(&json, false) {
                panic!("random scenario {i} does not run: {e}\n{json}");
            }
            if crate::export::conformance_exclusion(&a).is_none() {
                let kind = if a.job.operator.is_sql() {
                    crate::export::ExportKind::FlinkSql
                } else {
                    crate::export::ExportKind::FlinkJava
                };
                crate::export::export(&a, kind)
                    .unwrap_or_else(|e| panic!("scenario {i} does not export: {e}"));
            }
        }
    }

    #[test]
    fn covers_every_operator() {
        let mut seen = std::collections::HashSet::new();
        for i in 0..60 {
            seen.insert(format!("{:?}", scenario(1, i).job.operator));
        }
        assert_eq!(seen.len(), 6, "{seen:?}");
    }
}
