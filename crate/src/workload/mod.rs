//! Generated workloads for benchmarks and large-scale correctness checks.
//!
//! The events are those of `BENCH-WORKLOADS.md` (shared with the project), bit for bit:
//!
//! ```text
//! splitmix64(x): z = x + 0x9E3779B97F4A7C15
//!                z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
//!                z = (z ^ (z >> 27)) * 0x94D049BB133111EB
//!                return z ^ (z >> 31)
//! event i (0 <= i < N) of stream s (L = 0, R = 1):
//!     h   = splitmix64((S << 32) + 2*i + s)
//!     key = (h >> 32) % KEYS
//!     ts  = i + (h & 0xFFFFFFFF) % J          # milliseconds
//!     id  = i
//! ```
//!
//! with `S = 42`, `KEYS = 1000`, `J = 1000` for the reference workloads W1–W4. The
//! benchmarks can add late rows ([`Gen::late_percent`]): an event is made late iff
//! `splitmix64(h) % 100 < late_percent`, and then `ts -= late_shift` (3 s by default: with a
//! 1 s out-of-orderness bound such a row is almost always behind the watermark).
//!
//! Both streams have the columns `key:int, id:bigint, ts` (key column `key`, time column
//! `ts`); watermarks are bounded out-of-orderness 1 s emitted per event; the streams arrive
//! interleaved event by event (`L0, R0, L1, R1, …`, `arrival: interleave`).
//!
//! A [`Scenario`] with the rows as text is what users paste; parsing millions of lines is
//! slow, so [`plan`] builds the [`Plan`] directly, exactly as [`crate::plan::build`] would
//! from that scenario (same row ids, key ids in first-appearance order, keyBy routing via
//! [`crate::partition`] and [`crate::javahash`], round-robin assigners, arrival times); a test
//! checks the two agree.
//!
//! Checksums ([`checksum`]) are those of `BENCH-WORKLOADS.md`: wrapping `u64` sums,
//! independent of output order.

use crate::error::Error;
use crate::javahash::{java_hash_code, sql_key_hash};
use crate::operators::{
    interval_join::IntervalJoin, regular_join::RegularJoin, split::Split,
    sql_interval_join::SqlIntervalJoin, window::WindowOperator, Ctx, Operator, Sink,
};
use crate::parse::{Column, RowKind, Schema, Side, ValueRange};
use crate::partition::{
    default_max_parallelism, key_group_for_hash, subtask_for_key_group, SubtaskIndex,
};
use crate::plan::{Arrivals, GeneratorConfig, InputRow, KeyId, KeyInfo, Limits, Plan, RowId};
use crate::result::RunResult;
use crate::scenario::{
    ArrivalOrder, IntervalSpec, JoinType, LateOutput, OperatorKind, Scenario, SplitRoute,
    SplitSpec, SqlSpec, Strategy, StreamSpec, WatermarkSpec, WindowKind, WindowSpec,
};
use crate::sim::{RunOptions, RunOutput};
use crate::time::Millis;
use crate::timers::Timer;
use crate::trace::StateEntry;
use crate::value::{ColumnType, Value};
use std::cell::RefCell;
use std::fmt::Write;

mod checksum;
mod probe;

pub use checksum::*;
pub use probe::*;

/// The reference seed `S`.
pub const SEED: u64 = 42;
/// The reference number of keys.
pub const KEYS: u64 = 1000;
/// The reference jitter `J` in milliseconds.
pub const JITTER: u64 = 1000;

/// `splitmix64` as defined in `BENCH-WORKLOADS.md`.
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// How to generate the two streams.
#[derive(Clone, Debug, PartialEq)]
pub struct Gen {
    /// Events per stream.
    pub n: u64,
    pub seed: u64,
    pub keys: u64,
    pub jitter: u64,
    /// Percentage (0–100) of events moved back by `late_shift` (0: the reference workloads).
    pub late_percent: u64,
    pub late_shift: i64,
}

impl Gen {
    /// The reference events of `BENCH-WORKLOADS.md` (no late rows).
    pub fn reference(n: u64) -> Gen {
        Gen {
            n,
            seed: SEED,
            keys: KEYS,
            jitter: JITTER,
            late_percent: 0,
            late_shift: 3000,
        }
    }

    /// The benchmark events: the reference ones with 5 % of them moved back 3 s.
    pub fn with_late(n: u64) -> Gen {
        Gen {
            late_percent: 5,
            ..Gen::reference(n)
        }
    }

    /// Event `i` of stream `s` (0 = L, 1 = R).
    #[inline]
    pub fn event(&self, i: u64, s: u64) -> Event {
        let h = splitmix64((self.seed << 32).wrapping_add(2 * i).wrapping_add(s));
        let key = ((h >> 32) % self.keys) as i32;
        let mut ts = (i + (h & 0xFFFF_FFFF) % self.jitter) as i64;
        if self.late_percent > 0 && splitmix64(h) % 100 < self.late_percent {
            ts -= self.late_shift;
        }
        Event {
            key,
            id: i as i64,
            ts,
        }
    }
}

/// One generated event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    pub key: i32,
    pub id: i64,
    pub ts: i64,
}

/// The jobs the benchmarks run. `W1`–`W4` of `BENCH-WORKLOADS.md` are
/// [`Job::IntervalJoin`], [`Job::WindowJoinTumbling`], [`Job::SqlIntervalLeft`] and
/// [`Job::WindowCount`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Job {
    /// W1: `intervalJoin().between(−5 s, +5 s)`, both ends inclusive.
    IntervalJoin,
    /// W2: window join, tumbling 10 s.
    WindowJoinTumbling,
    /// Window join, sliding 10 s / 5 s.
    WindowJoinSliding,
    /// Window join, session gap 1 s.
    WindowJoinSession,
    /// W4: count per key, tumbling 10 s, L only.
    WindowCount,
    /// Count and sum per key, tumbling 10 s, allowed lateness 2 s, late rows to side output
    /// `late`, L only.
    WindowAggLateness,
    /// W3: SQL `L LEFT JOIN R ON L.key = R.key AND L.ts BETWEEN R.ts − 5 s AND R.ts + 5 s`.
    SqlIntervalLeft,
    /// The same as a FULL OUTER JOIN.
    SqlIntervalFull,
    /// SQL regular (unbounded) inner join on the key.
    RegularJoin,
    /// A `ProcessFunction` split on `key`: key 7 to side output `sevens`, the rest to main;
    /// L only.
    Split,
}

impl Job {
    pub const ALL: [Job; 10] = [
        Job::IntervalJoin,
        Job::WindowJoinTumbling,
        Job::WindowJoinSliding,
        Job::WindowJoinSession,
        Job::WindowCount,
        Job::WindowAggLateness,
        Job::SqlIntervalLeft,
        Job::SqlIntervalFull,
        Job::RegularJoin,
        Job::Split,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Job::IntervalJoin => "interval_join",
            Job::WindowJoinTumbling => "window_join_tumbling",
            Job::WindowJoinSliding => "window_join_sliding",
            Job::WindowJoinSession => "window_join_session",
            Job::WindowCount => "window_count",
            Job::WindowAggLateness => "window_agg_lateness",
            Job::SqlIntervalLeft => "sql_interval_left",
            Job::SqlIntervalFull => "sql_interval_full",
            Job::RegularJoin => "regular_join",
            Job::Split => "split",
        }
    }

    pub fn operator(self) -> OperatorKind {
        match self {
            Job::IntervalJoin => OperatorKind::IntervalJoin,
            Job::WindowJoinTumbling | Job::WindowJoinSliding | Job::WindowJoinSession => {
                OperatorKind::WindowJoin
            }
            Job::WindowCount | Job::WindowAggLateness => OperatorKind::WindowAggregate,
            Job::SqlIntervalLeft | Job::SqlIntervalFull => OperatorKind::SqlIntervalJoin,
            Job::RegularJoin => OperatorKind::RegularJoin,
            Job::Split => OperatorKind::Split,
        }
    }

    /// Whether the job reads both streams (else L only).
    pub fn two_inputs(self) -> bool {
        self.operator().two_inputs()
    }

    /// The job settings.
    pub fn job(self, parallelism: u32) -> crate::scenario::Job {
        let mut job = crate::scenario::Job {
            operator: self.operator(),
            parallelism,
            watermark: WatermarkSpec {
                strategy: Strategy::Bounded,
                delay: Millis(1000),
                per_event: true,
                interval: Millis(0),
                idle_timeout: None,
            },
            arrival: ArrivalOrder::Interleave,
            ..crate::scenario::Job::default()
        };
        let tumbling = WindowSpec {
            kind: WindowKind::Tumbling,
            size: Millis(10_000),
            slide: None,
            gap: None,
            offset: Millis(0),
        };
        match self {
            Job::IntervalJoin => {
                job.interval = IntervalSpec {
                    lower: Millis(-5000),
                    upper: Millis(5000),
                    lower_exclusive: false,
                    upper_exclusive: false,
                }
            }
            Job::WindowJoinTumbling | Job::WindowCount => job.window = tumbling,
            Job::WindowJoinSliding => {
                job.window = WindowSpec {
                    kind: WindowKind::Sliding,
                    slide: Some(Millis(5000)),
                    ..tumbling
                }
            }
            Job::WindowJoinSession => {
                job.window = WindowSpec {
                    kind: WindowKind::Session,
                    gap: Some(Millis(1000)),
                    ..tumbling
                }
            }
            Job::WindowAggLateness => {
                job.window = tumbling;
                job.allowed_lateness = Millis(2000);
                job.late_output = LateOutput {
                    left: Some("late".into()),
                    right: None,
                };
                job.aggregate.sum = Some("id".into());
            }
            Job::SqlIntervalLeft | Job::SqlIntervalFull => {
                let join = if self == Job::SqlIntervalLeft {
                    JoinType::Left
                } else {
                    JoinType::Full
                };
                job.sql = SqlSpec {
                    join,
                    lower: Millis(-5000),
                    upper: Millis(5000),
                    ..SqlSpec::default()
                };
            }
            Job::RegularJoin => {
                job.sql = SqlSpec {
                    join: JoinType::Inner,
                    ..SqlSpec::default()
                }
            }
            Job::Split => {
                job.split = SplitSpec {
                    column: "key".into(),
                    routes: vec![SplitRoute {
                        value: "7".into(),
                        to: "sevens".into(),
                    }],
                    otherwise: Some("main".into()),
                }
            }
        }
        job
    }
}

/// The stream names.
pub const STREAMS: [&str; 2] = ["L", "R"];

fn columns() -> Vec<String> {
    vec!["key:int".into(), "id:bigint".into(), "ts".into()]
}

fn stream_spec(side: usize, rows: String) -> StreamSpec {
    StreamSpec {
        name: STREAMS[side].into(),
        columns: columns(),
        key: Some("key".into()),
        time: Some("ts".into()),
        rows,
        watermark: None,
        primary_key: Vec::new(),
        scan_watermark_idle_timeout: None,
        time_from: None,
        proctime: None,
    }
}

/// The scenario of `job` on `gen`'s events, with the rows as text (`key,id,ts` per line).
pub fn scenario(job: Job, gen: &Gen, parallelism: u32) -> Scenario {
    let streams = if job.two_inputs() { 2 } else { 1 };
    let mut specs = Vec::new();
    for s in 0..streams {
        let mut rows = String::with_capacity(gen.n as usize * 16);
        for i in 0..gen.n {
            let e = gen.event(i, s as u64);
            let _ = writeln!(rows, "{},{},{}", e.key, e.id, e.ts);
        }
        specs.push(stream_spec(s, rows));
    }
    Scenario {
        title: format!("{} on {} generated events per stream", job.name(), gen.n),
        job: job.job(parallelism),
        streams: specs,
        ..Scenario::default()
    }
}

/// Limits for big runs: no cap on the number of outputs, no work or memory budget.
pub fn limits() -> Limits {
    Limits::unlimited()
}

/// The plan of `job` on `gen`'s events, built directly: the same plan [`crate::plan::build`]
/// makes from [`scenario`] (with [`limits`]), without writing and parsing the rows.
pub fn plan(job: Job, gen: &Gen, parallelism: u32) -> Plan {
    let p = parallelism;
    let op = job.operator();
    let keyed = op != OperatorKind::Split;
    let sql = op.is_sql();
    let streams = if job.two_inputs() { 2 } else { 1 };
    let n = gen.n as usize;
    let max_parallelism = default_max_parallelism(p);
    let mut rows = Vec::with_capacity(n * streams);
    let mut values: Vec<Value> = Vec::with_capacity(n * streams * 3);
    let mut keys: Vec<KeyInfo> = Vec::new();
    // Key value → KeyId (keys are small non-negative ints).
    let mut key_ids: Vec<Option<KeyId>> = vec![None; if keyed { gen.keys as usize } else { 1 }];
    for s in 0..streams {
        let side = if s == 0 { Side::Left } else { Side::Right };
        for i in 0..gen.n {
            let e = gen.event(i, s as u64);
            let slot = if keyed { e.key as usize } else { 0 };
            let key = match key_ids[slot] {
                Some(k) => k,
                None => {
                    let value = if keyed {
                        Value::Int(e.key)
                    } else {
                        Value::Null
                    };
                    let hash = if !keyed {
                        0
                    } else if sql {
                        sql_key_hash(std::slice::from_ref(&value))
                    } else {
                        java_hash_code(&value)
                    };
                    let key_group = key_group_for_hash(hash, max_parallelism);
                    let subtask = subtask_for_key_group(max_parallelism, p, key_group);
                    let id = KeyId(keys.len() as u32);
                    keys.push(KeyInfo {
                        value,
                        hash,
                        key_group,
                        subtask,
                    });
                    key_ids[slot] = Some(id);
                    id
                }
            };
            let assigner = (i % p as u64) as u32;
            let subtask = if keyed {
                keys[key.0 as usize].subtask
            } else {
                SubtaskIndex(assigner)
            };
            rows.push(InputRow {
                stream: side,
                line: (i + 1) as u32,
                kind: RowKind::Insert,
                values: {
                    let start = values.len();
                    values.extend([Value::Int(e.key), Value::Long(e.id), Value::Long(e.ts)]);
                    ValueRange::since(start, &values)
                },
                ts: Some(e.ts),
                key,
                assigner,
                subtask,
                arrival: e.ts,
            });
        }
    }
    // Interleaved arrivals; processing time is the running maximum of the arrival times.
    let mut arrivals = Arrivals::new(RowId(0), RowId(n as u32));
    arrivals.reserve_rows(rows.len());
    let mut now = i64::MIN;
    for i in 0..n {
        for (s, side) in [Side::Left, Side::Right]
            .into_iter()
            .take(streams)
            .enumerate()
        {
            let id = RowId((s * n + i) as u32);
            let r = &mut rows[id.0 as usize];
            now = now.max(r.arrival);
            r.arrival = now;
            arrivals.push_row(side, id);
        }
    }
    let mut sc = scenario(
        job,
        &Gen {
            n: 0,
            ..gen.clone()
        },
        p,
    );
    sc.title = format!("{} on {} generated events per stream", job.name(), gen.n);
    let w = &sc.job.watermark;
    let generator = GeneratorConfig {
        strategy: w.strategy,
        delay: w.delay.0,
        per_event: w.per_event,
        interval: w.interval.0,
        idle_timeout: None,
    };
    let schema = |s: usize| Schema {
        name: STREAMS[s].into(),
        columns: vec![
            Column {
                name: "key".into(),
                ty: ColumnType::Int,
            },
            Column {
                name: "id".into(),
                ty: ColumnType::Long,
            },
            Column {
                name: "ts".into(),
                ty: ColumnType::Long,
            },
        ],
        key: Some(0),
        time: Some(2),
    };
    Plan {
        scenario: sc,
        operator: op,
        schemas: (0..streams).map(schema).collect(),
        rows,
        values,
        keys,
        arrivals,
        assigner_parallelism: p,
        operator_parallelism: p,
        max_parallelism,
        generators: vec![generator; streams],
        limits: limits(),
        warnings: Vec::new(),
        expand: None,
    }
}

/// The plan through the text path: [`scenario`] then [`crate::plan::build`].
pub fn plan_from_text(job: Job, gen: &Gen, parallelism: u32) -> Result<Plan, Error> {
    crate::plan::build(&scenario(job, gen, parallelism), limits())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_events_match_the_document() {
        let g = Gen::reference(4);
        let l: Vec<(i32, i64)> = (0..4)
            .map(|i| g.event(i, 0))
            .map(|e| (e.key, e.ts))
            .collect();
        let r: Vec<(i32, i64)> = (0..4)
            .map(|i| g.event(i, 1))
            .map(|e| (e.key, e.ts))
            .collect();
        assert_eq!(l, vec![(849, 971), (507, 953), (585, 145), (818, 523)]);
        assert_eq!(r, vec![(672, 404), (718, 408), (132, 876), (838, 882)]);
    }

    #[test]
    fn the_counting_sink_sees_every_output_once() {
        // Small chunks (many drains, runs of window-join windows cut mid-firing) and one
        // drain at the end give the table's counts and checksums, as the full output does.
        let g = Gen::reference(10_000);
        for job in REFERENCE_JOBS {
            for p in [1, 4] {
                let plan = plan(job, &g, p);
                for chunk in [1, 7, 4096, usize::MAX] {
                    let (check, out) = run_counting(&plan, chunk).unwrap();
                    assert_eq!(
                        check,
                        expected(job, 10_000).unwrap(),
                        "{job:?} p={p} {chunk}"
                    );
                    assert!(out.sink.outputs.is_empty() && out.sink.windows.is_empty());
                    assert!(out.state_empty);
                }
            }
        }
        // The limit still counts drained outputs.
        let mut plan = plan(Job::IntervalJoin, &g, 1);
        plan.limits.max_outputs = 1000;
        assert!(run_counting(&plan, 10).is_err());
    }

    #[test]
    fn the_simulators_peak_state_equals_a_probe_sampling_every_element() {
        // p = 1: the probe samples `state()` after every element; the simulator's O(1) counters
        // (`Operator::state_rows`, sampled after every element and timer batch) must see the
        // same peaks. With 5 % late rows (dropped, side outputs, late firings) and without.
        let jobs = Job::ALL;
        for gen in [Gen::with_late(400), Gen::reference(400)] {
            for job in jobs {
                let plan = plan(job, &gen, 1);
                let (out, peak) = run_probed(&plan, 1).unwrap();
                assert_eq!(
                    (out.peak_state_rows, out.peak_timers),
                    (peak.rows, peak.timers),
                    "{job:?}"
                );
                assert!(peak.rows > 0 || job == Job::Split, "{job:?}");
            }
        }
    }

    #[test]
    fn direct_computation_matches_the_table_at_10k() {
        let g = Gen::reference(10_000);
        for job in REFERENCE_JOBS {
            assert_eq!(
                brute_force(job, &g),
                expected(job, 10_000).unwrap(),
                "{job:?}"
            );
        }
    }

    #[test]
    fn fast_plan_equals_parsed_plan() {
        for job in Job::ALL {
            for p in [1, 4] {
                for g in [Gen::reference(300), Gen::with_late(300)] {
                    let a = plan(job, &g, p);
                    let b = plan_from_text(job, &g, p).unwrap();
                    assert_eq!(a.operator, b.operator);
                    assert_eq!(a.schemas, b.schemas, "{job:?}");
                    assert_eq!(a.rows, b.rows, "{job:?} p={p}");
                    assert_eq!(a.keys, b.keys, "{job:?} p={p}");
                    assert_eq!(a.arrivals, b.arrivals, "{job:?} p={p}");
                    assert_eq!(a.generators, b.generators);
                    assert_eq!(a.warnings, b.warnings);
                    assert_eq!(
                        (
                            a.assigner_parallelism,
                            a.operator_parallelism,
                            a.max_parallelism
                        ),
                        (
                            b.assigner_parallelism,
                            b.operator_parallelism,
                            b.max_parallelism
                        )
                    );
                    assert_eq!(a.scenario.job, b.scenario.job);
                }
            }
        }
    }

    #[test]
    fn late_generator_moves_about_five_percent() {
        let g = Gen::with_late(20_000);
        let r = Gen::reference(20_000);
        let moved = (0..g.n)
            .filter(|&i| g.event(i, 0).ts != r.event(i, 0).ts)
            .count();
        assert!((800..1200).contains(&moved), "{moved}");
    }
}
