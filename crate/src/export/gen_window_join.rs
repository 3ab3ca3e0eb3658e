//! Random SQL window joins for the conformance suite (`joinlab gen --operator
//! window_tvf_join`): every join type (inner, left, right, full, semi, anti), TUMBLE (with
//! offsets), HOP and CUMULATE windows, parallelism 1–4, 1–5 keys (sometimes none: a single
//! subtask), rows on chosen assigner subtasks, out-of-order and late rows, bounded /
//! monotonous / legacy watermarks emitted per event or periodically, equal timestamps,
//! negative times, and sometimes no final watermark. The same `(seed, index)` always gives
//! the same scenario.
//!
//! About a third of the scenarios are SESSION window joins instead ([`session`], decided by a
//! draw of their own, so the other scenarios of a seed are those of earlier versions): both
//! inputs `PARTITION BY` the key (or no key), timestamps on a coarse grid so that sessions of
//! the two inputs often end together (the join matches sessions by their end), rows behind the
//! watermark that the TVF drops or that merge into an open session, and most often a
//! watermark row per assigner subtask far past every session at the end.

use crate::scenario::{
    ArrivalOrder, Job, JoinType, OperatorKind, Scenario, SqlSpec, Strategy, StreamSpec, TvfKind,
    TvfSpec, WatermarkSpec,
};
use crate::time::Millis;
use std::fmt::Write;

/// SplitMix64, seeded apart from the general generator's sequence.
struct Rng(u64);

impl Rng {
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
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[(self.next() % items.len() as u64) as usize]
    }
}

/// Random window join number `index` of the run seeded with `seed`.
pub fn scenario(seed: u64, index: usize) -> Scenario {
    let mut g = Rng(seed ^ (index as u64).wrapping_mul(0xD1B5_4A32_D192_ED03) ^ 0x7766_1a2b);
    g.next();
    let parallelism = g.pick(&[1u32, 1, 2, 2, 3, 4]);
    let join = g.pick(&[
        JoinType::Inner,
        JoinType::Left,
        JoinType::Right,
        JoinType::Full,
        JoinType::Semi,
        JoinType::Anti,
    ]);
    let kind = g.pick(&[
        TvfKind::Tumble,
        TvfKind::Tumble,
        TvfKind::Hop,
        TvfKind::Cumulate,
    ]);
    let size = g.pick(&[1000i64, 2000, 3000, 4000, 6000]);
    let mut tvf = TvfSpec {
        kind,
        size: Millis(size),
        ..TvfSpec::default()
    };
    match kind {
        TvfKind::Tumble => {
            if g.chance(25) {
                tvf.offset = Millis(g.range(-(size - 1), size - 1) / 100 * 100);
            }
        }
        TvfKind::Hop => {
            let slide = g
                .pick(&[size / 2, size / 3, size, size * 2 / 3, 700])
                .max(100);
            tvf.slide = Some(Millis(slide));
            if g.chance(20) {
                tvf.offset = Millis(g.range(0, slide - 1) / 100 * 100);
            }
        }
        TvfKind::Cumulate => {
            let parts = g.pick(&[2i64, 3, 4]);
            let step = (size / parts).max(100);
            tvf.size = Millis(step * parts);
            tvf.step = Some(Millis(step));
        }
        TvfKind::Session => {}
    }
    let mut wm = WatermarkSpec {
        strategy: g.pick(&[
            Strategy::Bounded,
            Strategy::Bounded,
            Strategy::Monotonous,
            Strategy::Legacy,
        ]),
        delay: Millis(g.pick(&[0i64, 0, 300, 1000, 2000])),
        ..WatermarkSpec::default()
    };
    if wm.strategy == Strategy::Monotonous {
        wm.delay = Millis(0);
    }
    if g.chance(20) {
        wm.per_event = g.chance(40);
        wm.interval = Millis(g.pick(&[100i64, 200, 500]));
    }
    let mut job = Job {
        operator: OperatorKind::WindowTvfJoin,
        parallelism,
        watermark: wm.clone(),
        tvf,
        sql: SqlSpec {
            join,
            ..SqlSpec::default()
        },
        ..Job::default()
    };
    if g.chance(8) {
        job.final_watermark = false;
    }
    if g.chance(10) {
        job.arrival = g.pick(&[ArrivalOrder::LeftFirst, ArrivalOrder::Interleave]);
    }
    let keys = g.range(1, 5);
    let strings = g.chance(35);
    let key = |i: i64| {
        if strings {
            ["a", "b", "c", "d", "e"][i as usize % 5].to_string()
        } else {
            i.to_string()
        }
    };
    let base = if g.chance(10) {
        -g.range(1, 10) * 1000
    } else {
        g.range(0, 3) * 1000
    };
    let mut clock = 0i64;
    let mut streams = Vec::new();
    for si in 0..2 {
        let n = g.range(2, 14);
        let mut t = base;
        let mut max_ts = base;
        let mut text = String::new();
        for i in 0..n {
            let ts = if i > 0 && g.chance(18) {
                max_ts - g.range(1, 10) * 300
            } else if g.chance(20) {
                t + g.range(-8, 3) * 100
            } else {
                t += g.range(0, 12) * 100;
                t
            };
            max_ts = max_ts.max(ts);
            clock += g.range(1, 400);
            let k = key(g.range(0, keys - 1));
            let extra = if si == 0 {
                g.range(-5, 20).to_string()
            } else {
                g.pick(&["x", "y", "z"]).to_string()
            };
            let _ = write!(text, "{k}, {extra}, {ts}");
            let by_time = job.arrival == ArrivalOrder::ByTime;
            annotate(
                &mut g,
                &mut text,
                (parallelism, 50),
                by_time,
                wm.interval.0 > 0,
                clock,
                ts,
            );
        }
        let k = if strings { "k:string" } else { "k:int" };
        streams.push(StreamSpec {
            name: if si == 0 { "left" } else { "right" }.into(),
            columns: if si == 0 {
                vec![k.into(), "v:int".into(), "ts:bigint".into()]
            } else {
                vec![k.into(), "w:string".into(), "ts:bigint".into()]
            },
            key: Some("k".into()),
            time: Some("ts".into()),
            rows: text.trim_end().to_string(),
            ..StreamSpec::default()
        });
    }
    if g.chance(10) {
        // No equi-key: Flink's exchange is SINGLETON, the join runs on one subtask.
        for s in &mut streams {
            s.key = None;
        }
    }
    let mut h = Rng(seed ^ (index as u64).wrapping_mul(0x9FB2_1C65_1E98_DF25) ^ 0x5e55_1011);
    h.next();
    if h.chance(33) {
        session(&mut h, &mut job, &mut streams, strings, base);
    }
    Scenario {
        title: format!("Random WindowTvfJoin #{index} (seed {seed})"),
        description:
            "Generated by `joinlab gen --operator window_tvf_join` for the conformance suite."
                .into(),
        job,
        streams,
        ..Scenario::default()
    }
}

/// Makes the scenario a SESSION window join (same join type, parallelism and watermarks).
fn session(g: &mut Rng, job: &mut Job, streams: &mut [StreamSpec], strings: bool, base: i64) {
    let gap = g.pick(&[1000i64, 1500, 2000, 2500]);
    job.tvf = TvfSpec {
        kind: TvfKind::Session,
        gap: Some(Millis(gap)),
        ..TvfSpec::default()
    };
    let parallelism = job.parallelism;
    let keys = g.range(1, 3);
    let keyed = !g.chance(10);
    let key = |i: i64| {
        if strings {
            ["a", "b", "c"][i as usize % 3].to_string()
        } else {
            i.to_string()
        }
    };
    let mut clock = 0i64;
    let mut max_ts = base;
    let mut texts = [String::new(), String::new()];
    for (si, text) in texts.iter_mut().enumerate() {
        let n = g.range(2, 12);
        let mut t = base;
        for i in 0..n {
            // A coarse grid: sessions of the two inputs often end together.
            let ts = if i > 0 && g.chance(20) {
                t - g.range(1, 8) * 500
            } else {
                t += g.range(0, 4) * 500;
                t
            };
            max_ts = max_ts.max(ts);
            clock += g.range(1, 400);
            let extra = if si == 0 {
                g.range(-5, 20).to_string()
            } else {
                g.pick(&["x", "y", "z"]).to_string()
            };
            let _ = write!(text, "{}, {extra}, {ts}", key(g.range(0, keys - 1)));
            let by_time = job.arrival == ArrivalOrder::ByTime;
            let periodic = job.watermark.interval.0 > 0;
            annotate(g, text, (parallelism, 60), by_time, periodic, clock, ts);
        }
    }
    // The end of input is a race on Flink: both inputs' last watermarks reach the join in
    // either order, and so do the sessions their TVFs emit, which changes the order of the
    // join's timers at equal times. A watermark row per assigner subtask of each input, far
    // past every session, closes everything one input after the other before the end.
    if job.final_watermark && (parallelism > 1 || g.chance(70)) {
        let far = max_ts.max(0) + 4 * gap + 1000;
        for text in texts.iter_mut() {
            for a in 0..parallelism {
                let at = if job.arrival == ArrivalOrder::ByTime {
                    clock += 1;
                    format!(" a={clock}")
                } else {
                    String::new()
                };
                let _ = writeln!(text, "WM {far} | s={a}{at}");
            }
        }
    }
    for (s, text) in streams.iter_mut().zip(texts) {
        s.rows = text.trim_end().to_string();
        s.key = keyed.then(|| "k".to_string());
    }
}

/// Ends a row line with its annotations: `s=` (an assigner subtask, drawn with the given
/// percent chance when there are several) and, with arrival by time, `a=` (the row's
/// processing-time arrival: the clock, or its event time when the watermark is not periodic
/// and a coin says so); then the newline.
fn annotate(
    g: &mut Rng,
    text: &mut String,
    (parallelism, s_chance): (u32, u64),
    by_time: bool,
    periodic: bool,
    clock: i64,
    ts: i64,
) {
    let mut ann = Vec::new();
    if parallelism > 1 && g.chance(s_chance) {
        ann.push(format!("s={}", g.range(0, parallelism as i64 - 1)));
    }
    if by_time {
        let a = if periodic || g.chance(50) { clock } else { ts };
        ann.push(format!("a={a}"));
    }
    if !ann.is_empty() {
        let _ = write!(text, " | {}", ann.join(" "));
    }
    text.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_runnable_and_exportable() {
        let mut joins = std::collections::HashSet::new();
        let mut late = 0;
        for i in 0..200 {
            let a = scenario(3, i);
            assert_eq!(a, scenario(3, i));
            joins.insert(format!("{:?}/{:?}", a.job.sql.join, a.job.tvf.kind));
            let r = crate::run(&a, false).unwrap_or_else(|e| {
                panic!("scenario {i} does not run: {e}\n{}", a.to_pretty_json())
            });
            late += r.late.len();
            assert!(crate::export::conformance_exclusion(&a).is_none(), "{i}");
            crate::export::export(&a, crate::export::ExportKind::FlinkSql)
                .unwrap_or_else(|e| panic!("scenario {i} does not export: {e}"));
        }
        assert_eq!(joins.len(), 24, "{joins:?}");
        assert!(late > 20, "late rows are generated ({late})");
    }
}
