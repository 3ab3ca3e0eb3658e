//! Random temporal-join and lookup-join scenarios for the conformance suite
//! (`joinlab gen --operator temporal_join|lookup_join`).
//!
//! Small inputs that exercise what goes wrong in practice: parallelism 1–4 (rows on chosen
//! assigner subtasks), several keys, versions arriving out of order and late (behind the
//! watermark), probe rows late, versions replaced at the same timestamp, `+U` / `-U` / `-D`
//! changelog rows, INNER and LEFT, every watermark strategy, periodic emission with idleness,
//! no final watermark. For the lookup join: dimension rows changing between probe rows, with
//! and without a primary key. The same `(seed, index)` always gives the same scenario.

use crate::scenario::{
    Job, JoinType, OperatorKind, Scenario, SqlSpec, Strategy, StreamSpec, WatermarkSpec,
};
use crate::time::Millis;
use std::fmt::Write;

/// SplitMix64 (as `gen.rs`).
struct Rng(u64);

impl Rng {
    fn new(seed: u64, index: usize, salt: u64) -> Rng {
        let mut r = Rng(seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ salt);
        r.next();
        r
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next() % items.len() as u64) as usize]
    }
}

/// One generated row.
struct Row {
    kind: &'static str,
    key: i64,
    extra: String,
    ts: i64,
    subtask: Option<u32>,
    arrival: i64,
}

/// Scenario number `index` of operator `op` (`TemporalJoin` or `LookupJoin`).
pub fn scenario(seed: u64, index: usize, op: OperatorKind) -> Scenario {
    let lookup = op == OperatorKind::LookupJoin;
    let mut g = Rng::new(seed, index, if lookup { 0x100c } else { 0x7e3b });
    let parallelism = *g.pick(&[1u32, 1, 2, 2, 3, 4]);
    let keys = g.range(1, 5);
    let key_type = *g.pick(&["int", "int", "string", "bigint"]);
    let key_value = |k: i64| match key_type {
        "string" => ["EUR", "USD", "GBP", "JPY", "CHF"][k as usize % 5].to_string(),
        "bigint" => (k * 4_294_967_311 + 7).to_string(),
        _ => k.to_string(),
    };
    let mut wm = WatermarkSpec {
        strategy: *g.pick(&[
            Strategy::Bounded,
            Strategy::Bounded,
            Strategy::Bounded,
            Strategy::Monotonous,
            Strategy::Legacy,
            Strategy::Punctuated,
        ]),
        delay: Millis(*g.pick(&[0i64, 0, 500, 1000, 2000])),
        ..WatermarkSpec::default()
    };
    if g.chance(30) {
        wm.per_event = g.chance(30);
        wm.interval = Millis(*g.pick(&[200i64, 500, 1000]));
        if g.chance(50) {
            wm.idle_timeout = Some(Millis(*g.pick(&[300i64, 1000, 2000])));
        }
        if wm.strategy == Strategy::Punctuated {
            wm.strategy = Strategy::Bounded;
        }
    }
    if wm.strategy == Strategy::Monotonous {
        wm.delay = Millis(0);
    }
    let job = Job {
        operator: op,
        parallelism,
        watermark: wm.clone(),
        final_watermark: !g.chance(8),
        sql: SqlSpec {
            join: *g.pick(&[JoinType::Inner, JoinType::Left]),
            ..SqlSpec::default()
        },
        ..Job::default()
    };
    let base = if g.chance(10) {
        -g.range(1, 10) * 1000
    } else {
        g.range(0, 5) * 1000
    };
    // Both streams share one processing-time clock, so their rows interleave.
    let mut clock = base.max(0);
    let mut gen_stream = |g: &mut Rng, si: usize| -> Vec<Row> {
        let n = g.range(2, 12);
        let mut rows: Vec<Row> = Vec::new();
        let mut t = base;
        let mut max_ts = base;
        for _ in 0..n {
            let late = g.chance(20) && !rows.is_empty();
            let ts = if late {
                max_ts - g.range(1, 8) * 500
            } else if g.chance(20) {
                t + g.range(-10, 5) * 100
            } else {
                t += g.range(0, 1500);
                t
            };
            max_ts = max_ts.max(ts);
            clock += g.range(1, 600);
            let key = g.range(0, keys - 1);
            let extra = if si == 0 {
                g.range(-5, 40).to_string()
            } else {
                (*g.pick(&["x", "y", "z", "v1", "v2"])).to_string()
            };
            let mut kind = "";
            if si == 1 && !rows.is_empty() {
                kind = *g.pick(&["", "", "", "+U", "+U", "-D", "-U"]);
            }
            let subtask = if parallelism > 1 && g.chance(50) {
                Some(g.range(0, parallelism as i64 - 1) as u32)
            } else {
                None
            };
            if kind == "-U" || (kind == "-D" && g.chance(50)) {
                // Retract an earlier version of some key with its own values (as CDC does).
                let i = g.range(0, rows.len() as i64 - 1) as usize;
                let (k, e, ts0) = (rows[i].key, rows[i].extra.clone(), rows[i].ts);
                rows.push(Row {
                    kind,
                    key: k,
                    extra: e,
                    ts: if g.chance(70) { ts0 } else { ts },
                    subtask,
                    arrival: clock,
                });
                if kind == "-U" {
                    clock += g.range(0, 50);
                    rows.push(Row {
                        kind: "+U",
                        key: k,
                        extra: "u".into(),
                        ts: ts.max(ts0),
                        subtask,
                        arrival: clock,
                    });
                }
                continue;
            }
            rows.push(Row {
                kind,
                key,
                extra,
                ts,
                subtask,
                arrival: clock,
            });
        }
        rows
    };
    // The two streams' rows, generated in turn so that their arrival times interleave.
    let mut parts = [Vec::new(), Vec::new()];
    let rounds = g.range(1, 3);
    for _ in 0..rounds {
        for (si, part) in parts.iter_mut().enumerate() {
            let mut more = gen_stream(&mut g, si);
            part.append(&mut more);
        }
    }
    let punctuated = wm.strategy == Strategy::Punctuated;
    let mut streams = Vec::new();
    for (si, rows) in parts.iter_mut().enumerate() {
        rows.sort_by_key(|r| r.arrival);
        let mut text = String::new();
        let mut cur_max = i64::MIN;
        for (ri, r) in rows.iter().enumerate() {
            cur_max = cur_max.max(r.ts);
            if !r.kind.is_empty() {
                text.push_str(r.kind);
                text.push(' ');
            }
            let _ = write!(text, "{}, {}, {}", key_value(r.key), r.extra, r.ts);
            let mut ann = Vec::new();
            if let Some(s) = r.subtask {
                ann.push(format!("s={s}"));
            }
            ann.push(format!("a={}", r.arrival));
            let _ = writeln!(text, " | {}", ann.join(" "));
            if punctuated && g.chance(35) && ri + 1 < rows.len() {
                let w = cur_max - g.range(0, 3) * 500;
                let _ = writeln!(text, "WM {w} | a={}", r.arrival);
            }
        }
        let (name, cols) = if si == 0 {
            (
                "orders",
                vec![format!("k:{key_type}"), "v:int".into(), "ts:bigint".into()],
            )
        } else {
            (
                if lookup { "dim" } else { "rates" },
                vec![
                    format!("k:{key_type}"),
                    "w:string".into(),
                    "ts:bigint".into(),
                ],
            )
        };
        let pk = if si == 1 && (!lookup || g.chance(60)) {
            vec!["k".to_string()]
        } else {
            Vec::new()
        };
        streams.push(StreamSpec {
            name: name.into(),
            columns: cols,
            key: Some("k".into()),
            time: if lookup && si == 1 {
                None
            } else {
                Some("ts".into())
            },
            rows: text.trim_end().to_string(),
            watermark: None,
            primary_key: pk,
            ..StreamSpec::default()
        });
    }
    if !lookup && g.chance(10) {
        let mut w2 = wm.clone();
        w2.delay = Millis(*g.pick(&[0i64, 1000, 3000]));
        if w2.strategy == Strategy::Monotonous {
            w2.strategy = Strategy::Bounded;
        }
        streams[1].watermark = Some(w2);
    }
    Scenario {
        title: format!("Random {op:?} #{index} (seed {seed})"),
        description: "Generated by `joinlab gen --operator` for the conformance suite.".into(),
        job,
        streams,
        ..Scenario::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_runnable_and_exportable() {
        for op in [OperatorKind::TemporalJoin, OperatorKind::LookupJoin] {
            for i in 0..200 {
                let a = scenario(3, i, op);
                assert_eq!(a, scenario(3, i, op));
                let json = a.to_pretty_json();
                if let Err(e) = crate::run_json(&json, false) {
                    panic!("{op:?} scenario {i} does not run: {e}\n{json}");
                }
                assert!(
                    crate::export::conformance_exclusion(&a).is_none(),
                    "{op:?} {i}"
                );
                crate::export::export(&a, crate::export::ExportKind::FlinkSql)
                    .unwrap_or_else(|e| panic!("{op:?} scenario {i} does not export: {e}"));
            }
        }
    }
}
