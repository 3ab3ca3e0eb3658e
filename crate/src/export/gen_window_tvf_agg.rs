//! Random window TVF aggregations for the conformance suite
//! (`joinlab gen --operator window_tvf_aggregate …`).
//!
//! Parallelism 1–4, one to five keys (or none: a global aggregate), TUMBLE / HOP / CUMULATE /
//! SESSION with random sizes and offsets, rows out of order and late (far behind the
//! stream's maximum, so they reach an already fired slice, locally or globally), rows on
//! chosen assigner subtasks, a subset of COUNT(*), COUNT(col), COUNT(DISTINCT col), SUM, MIN,
//! MAX, AVG over INT / BIGINT / DOUBLE (halves only: exact sums in any order) columns with
//! NULLs, sometimes `GROUPING SETS` / `ROLLUP` / `CUBE` over `k` and `k2` (aligned windows),
//! and sometimes no final watermark. Watermarks are emitted per event (so every pacer
//! event is one engine step and the steps of the outputs can be compared).

use super::gen::Rng;
use crate::scenario::{
    AggCall, AggFunc, GroupSpec, Job, OperatorKind, Scenario, Strategy, StreamSpec, TvfKind,
    TvfSpec, WatermarkSpec,
};
use crate::time::Millis;
use std::fmt::Write;

/// The scenario `index` of `seed`.
pub fn scenario(seed: u64, index: usize) -> Scenario {
    let mut g = Rng::new(seed ^ 0x7f_a6, index);
    let parallelism = *g.pick(&[1u32, 2, 2, 3, 4]);
    let keyed = !g.chance(15);
    // Sometimes GROUP BY two columns (a BinaryRowData key of both).
    let two_keys = keyed && g.chance(30);
    let keys = g.range(1, 5);
    let key_type = *g.pick(&["string", "int", "bigint"]);
    let v_type = *g.pick(&["int", "int", "bigint", "double"]);
    let unit = *g.pick(&[100i64, 500, 1000]);
    let kind = *g.pick(&[
        TvfKind::Tumble,
        TvfKind::Hop,
        TvfKind::Cumulate,
        TvfKind::Session,
    ]);
    let mut tvf = TvfSpec {
        kind,
        ..TvfSpec::default()
    };
    match kind {
        TvfKind::Tumble => tvf.size = Millis(g.range(2, 10) * unit),
        TvfKind::Hop => {
            let slide = g.range(1, 4) * unit;
            tvf.slide = Some(Millis(slide));
            tvf.size = Millis(slide * g.range(2, 4));
        }
        TvfKind::Cumulate => {
            let step = g.range(1, 4) * unit;
            tvf.step = Some(Millis(step));
            tvf.size = Millis(step * g.range(2, 4));
        }
        TvfKind::Session => tvf.gap = Some(Millis(g.range(1, 5) * unit)),
    }
    let slots = tvf.size.0 / unit;
    if kind != TvfKind::Session && slots > 1 && g.chance(20) {
        let offset = g.range(1, slots - 1) * unit;
        tvf.offset = Millis(if kind == TvfKind::Tumble && g.chance(30) {
            -offset
        } else {
            offset
        });
    }
    let mut aggregates = Vec::new();
    let candidates: Vec<AggCall> = vec![
        AggCall {
            func: AggFunc::Count,
            ..AggCall::default()
        },
        AggCall {
            func: AggFunc::Count,
            column: Some("v".into()),
            ..AggCall::default()
        },
        AggCall {
            func: AggFunc::Count,
            column: Some("s".into()),
            distinct: true,
            ..AggCall::default()
        },
        AggCall {
            func: AggFunc::Sum,
            column: Some("v".into()),
            ..AggCall::default()
        },
        AggCall {
            func: AggFunc::Min,
            column: Some("v".into()),
            ..AggCall::default()
        },
        AggCall {
            func: AggFunc::Max,
            column: Some("s".into()),
            ..AggCall::default()
        },
        AggCall {
            func: AggFunc::Avg,
            column: Some("v".into()),
            ..AggCall::default()
        },
    ];
    for c in &candidates {
        if g.chance(45) {
            aggregates.push(c.clone());
        }
    }
    if aggregates.is_empty() {
        aggregates.push(candidates[0].clone());
    }
    if g.chance(20) {
        let i = g.range(0, aggregates.len() as i64 - 1) as usize;
        aggregates[i].alias = "agg".into();
    }
    let delay = g.range(0, 3) * unit;
    let strategy = if g.chance(15) {
        Strategy::Monotonous
    } else {
        Strategy::Bounded
    };
    let mut job = Job {
        operator: OperatorKind::WindowTvfAggregate,
        parallelism,
        watermark: WatermarkSpec {
            strategy,
            delay: Millis(delay),
            ..WatermarkSpec::default()
        },
        final_watermark: !g.chance(8),
        tvf,
        group: GroupSpec {
            keys: match (keyed, two_keys) {
                (false, _) => Vec::new(),
                (true, false) => vec!["k".into()],
                (true, true) => vec!["k".into(), "k2".into()],
            },
            grouping_sets: None,
            aggregates,
        },
        ..Job::default()
    };
    // Rows.
    let n = g.range(3, 22);
    let base = if g.chance(10) { -5 * unit } else { 0 };
    let mut t = base;
    let mut max_ts = base;
    let mut text = String::new();
    for _ in 0..n {
        let ts = if g.chance(18) && max_ts > base {
            max_ts - g.range(1, 12) * unit / 2
        } else if g.chance(25) {
            t + g.range(-6, 2) * unit / 4
        } else {
            t += g.range(0, 3) * unit / 2;
            t
        };
        max_ts = max_ts.max(ts);
        let k = g.range(0, keys - 1);
        let key = match key_type {
            "string" => ["a", "b", "c", "d", "e"][k as usize].to_string(),
            _ => (k * 7 + 1).to_string(),
        };
        let v = if g.chance(10) {
            "null".to_string()
        } else {
            let x = g.range(-3, 20);
            if v_type == "double" {
                format!("{}.5", x)
            } else {
                x.to_string()
            }
        };
        let s = if g.chance(10) {
            "null"
        } else {
            *g.pick(&["x", "y", "z", "w"])
        };
        let k2 = g.range(0, 1);
        let _ = write!(text, "{key}, {k2}, {v}, {s}, {ts}");
        if parallelism > 1 && g.chance(50) {
            let _ = write!(text, " | s={}", g.range(0, parallelism as i64 - 1));
        }
        text.push('\n');
    }
    // GROUPING SETS / ROLLUP / CUBE on some keyed aligned windows (drawn after the rows, so
    // the other scenarios of a seed stay as they were): the sets in a random written order
    // (Flink sorts the copies by $e), the stream's key column first in appearance.
    if keyed && kind != TvfKind::Session && g.chance(35) {
        let k = || "k".to_string();
        let k2 = || "k2".to_string();
        let mut sets: Vec<Vec<String>> = match g.range(0, 4) {
            0 => vec![vec![k()], vec![]],
            1 => vec![vec![k(), k2()], vec![k()], vec![]],
            2 => vec![vec![k(), k2()], vec![k()], vec![k2()], vec![]],
            3 => vec![vec![k()], vec![k2()]],
            _ => vec![vec![k(), k2()], vec![k2()]],
        };
        if g.chance(50) {
            sets.reverse();
        }
        let keys = crate::grouping_sets::keys_of(&sets);
        if keys[0] != "k" {
            sets.reverse();
        }
        job.group.keys = crate::grouping_sets::keys_of(&sets);
        job.group.grouping_sets = Some(sets);
        if g.chance(30) {
            // An aggregate of a grouping column: Expand keeps its value (k AS k_0).
            job.group.aggregates.push(AggCall {
                func: AggFunc::Max,
                column: Some("k2".into()),
                ..AggCall::default()
            });
        }
    }
    // End of input is a race on Flink: the assigner subtasks finish in any order, and a local
    // aggregate sends what it still buffers just before its own Long.MAX_VALUE watermark, so
    // whether a late accumulator still finds its window open depends on which subtasks finished
    // first. A watermark row per assigner subtask, far past every window, makes every local
    // aggregate flush, one subtask after the other, before the end.
    if parallelism > 1 || g.chance(50) {
        let far = max_ts.max(0) + 4 * tvf_span(&job.tvf) + 1000;
        for a in 0..parallelism {
            let _ = writeln!(text, "WM {far} | s={a}");
        }
    }
    Scenario {
        title: format!("random window TVF aggregation {seed}/{index}"),
        job,
        streams: vec![StreamSpec {
            name: "t".into(),
            columns: vec![
                format!("k:{key_type}"),
                "k2:int".into(),
                format!("v:{v_type}"),
                "s:string".into(),
                "ts:bigint".into(),
            ],
            key: keyed.then(|| "k".into()),
            time: Some("ts".into()),
            rows: text,
            ..StreamSpec::default()
        }],
        ..Scenario::default()
    }
}

/// The longest window of a TVF (the session gap for SESSION).
fn tvf_span(t: &TvfSpec) -> i64 {
    match t.kind {
        TvfKind::Session => t.gap.map_or(0, |g| g.0),
        _ => t.size.0,
    }
}
