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
use crate::parse::{Column, RowKind, Schema, Side};
use crate::partition::{
    default_max_parallelism, key_group_for_hash, subtask_for_key_group, SubtaskIndex,
};
use crate::plan::{Arrival, GeneratorConfig, InputRow, KeyId, KeyInfo, Limits, Plan, RowId};
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
                values: vec![Value::Int(e.key), Value::Long(e.id), Value::Long(e.ts)],
                ts: Some(e.ts),
                key,
                assigner,
                subtask,
                arrival: e.ts,
            });
        }
    }
    // Interleaved arrivals; processing time is the running maximum of the arrival times.
    let mut arrivals = Vec::with_capacity(rows.len());
    let mut now = i64::MIN;
    for i in 0..n {
        for s in 0..streams {
            let id = RowId((s * n + i) as u32);
            let r = &mut rows[id.0 as usize];
            now = now.max(r.arrival);
            r.arrival = now;
            arrivals.push(Arrival::Row(id));
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

/// Output count and checksum of a run, as `BENCH-WORKLOADS.md` defines them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Check {
    /// Join results (or window results, or main-output rows of the split) including padded
    /// rows.
    pub outputs: u64,
    /// Null-padded rows among them (outer joins).
    pub padded: u64,
    pub checksum: u64,
}

impl std::fmt::Display for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} outputs ({} padded), checksum {:#018x}",
            self.outputs, self.padded, self.checksum
        )
    }
}

/// The term of one output row: `(l.id << 32) + r.id`, a missing side counting as `0xFFFFFFFF`.
#[inline]
pub fn pair_term(l: Option<i64>, r: Option<i64>) -> u64 {
    let l = l.map(|v| v as u64).unwrap_or(0xFFFF_FFFF);
    let r = r.map(|v| v as u64).unwrap_or(0xFFFF_FFFF);
    (l << 32).wrapping_add(r)
}

/// The term of one window result: `(key << 48) + (w << 24) + cnt` with `w = start / 10000`.
#[inline]
pub fn window_term(key: i64, start: i64, count: u64) -> u64 {
    ((key as u64) << 48)
        .wrapping_add(((start / 10_000) as u64) << 24)
        .wrapping_add(count)
}

fn id_of(plan: &Plan, id: RowId) -> i64 {
    match plan.row(id).values[1] {
        Value::Long(v) => v,
        Value::Int(v) => v as i64,
        ref other => panic!("id column holds {other:?}"),
    }
}

fn int_of(v: &Value) -> i64 {
    match v {
        Value::Int(x) => *x as i64,
        Value::Long(x) => *x,
        other => panic!("not an integer: {other:?}"),
    }
}

/// The checksum of a run's outputs: window results for a window aggregation, else the
/// (padded) join results / main-output rows.
pub fn checksum(plan: &Plan, out: &RunOutput) -> Check {
    let mut c = Check::default();
    if plan.operator == OperatorKind::WindowAggregate {
        for w in &out.sink.windows {
            c.outputs += 1;
            c.checksum = c.checksum.wrapping_add(window_term(
                int_of(&plan.keys[w.key.0 as usize].value),
                w.start,
                w.count,
            ));
        }
    } else {
        for o in &out.sink.outputs {
            c.outputs += 1;
            if o.left.is_none() || o.right.is_none() {
                c.padded += 1;
            }
            c.checksum = c.checksum.wrapping_add(pair_term(
                o.left.map(|id| id_of(plan, id)),
                o.right.map(|id| id_of(plan, id)),
            ));
        }
    }
    c
}

/// A counting sink: the output count and checksum of a run, accumulated chunk by chunk from
/// [`crate::run_plan_draining`] (the benchmark's equivalent of the counting sink Flink was
/// measured with). Gives the same [`Check`] as [`checksum`] over the whole run.
pub struct CountingSink {
    window_aggregate: bool,
    /// The `id` column by row, the key value by key (looked up once, before the run).
    ids: Vec<i64>,
    keys: Vec<i64>,
    pub check: Check,
}

impl CountingSink {
    pub fn new(plan: &Plan) -> CountingSink {
        let window_aggregate = plan.operator == OperatorKind::WindowAggregate;
        CountingSink {
            window_aggregate,
            ids: if window_aggregate {
                Vec::new()
            } else {
                (0..plan.rows.len())
                    .map(|i| id_of(plan, RowId(i as u32)))
                    .collect()
            },
            keys: if window_aggregate {
                plan.keys.iter().map(|k| int_of(&k.value)).collect()
            } else {
                Vec::new()
            },
            check: Check::default(),
        }
    }

    /// Counts and checksums one drained chunk.
    pub fn consume(&mut self, sink: &Sink) {
        let c = &mut self.check;
        if self.window_aggregate {
            for w in &sink.windows {
                c.outputs += 1;
                c.checksum = c.checksum.wrapping_add(window_term(
                    self.keys[w.key.0 as usize],
                    w.start,
                    w.count,
                ));
            }
        } else {
            let ids = &self.ids;
            for o in &sink.outputs {
                c.outputs += 1;
                if o.left.is_none() || o.right.is_none() {
                    c.padded += 1;
                }
                c.checksum = c.checksum.wrapping_add(pair_term(
                    o.left.map(|id| ids[id.0 as usize]),
                    o.right.map(|id| ids[id.0 as usize]),
                ));
            }
        }
    }
}

/// Runs `plan` (trace off) through a [`CountingSink`], handing it the outputs every `chunk`
/// outputs: the count and checksum, and the run's output (whose sink holds no outputs).
pub fn run_counting(plan: &Plan, chunk: usize) -> Result<(Check, RunOutput), Error> {
    let mut counter = CountingSink::new(plan);
    let out = crate::run_plan_draining(plan, &RunOptions::default(), chunk, &mut |s| {
        counter.consume(s)
    })?;
    Ok((counter.check, out))
}

/// The same checksum over a [`RunResult`] (the JSON-ready document).
pub fn checksum_result(res: &RunResult) -> Check {
    let mut c = Check::default();
    if res.operator == OperatorKind::WindowAggregate {
        for w in &res.windows {
            c.outputs += 1;
            c.checksum = c
                .checksum
                .wrapping_add(window_term(int_of(&w.key), w.start, w.count));
        }
    } else if let Some(views) = res.outputs.views() {
        // Without building the `Output`s.
        for o in views {
            c.outputs += 1;
            if o.left.is_none() || o.right.is_none() {
                c.padded += 1;
            }
            let id = |r: Option<crate::outputs::RowView<'_>>| r.map(|r| int_of(&r.values[1]));
            c.checksum = c.checksum.wrapping_add(pair_term(id(o.left), id(o.right)));
        }
    } else {
        for o in &res.outputs {
            c.outputs += 1;
            if o.left.is_none() || o.right.is_none() {
                c.padded += 1;
            }
            let id = |r: &Option<crate::result::RowRef>| r.as_ref().map(|r| int_of(&r.values[1]));
            c.checksum = c
                .checksum
                .wrapping_add(pair_term(id(&o.left), id(&o.right)));
        }
    }
    c
}

/// `BENCH-WORKLOADS.md`'s reference workloads.
pub const REFERENCE_JOBS: [Job; 4] = [
    Job::IntervalJoin,
    Job::WindowJoinTumbling,
    Job::SqlIntervalLeft,
    Job::WindowCount,
];

/// The expected results of `BENCH-WORKLOADS.md`: `(N, [W1, W2, W3, W4])`.
pub const EXPECTED: [(u64, [Check; 4]); 4] = [
    (
        10_000,
        [
            Check {
                outputs: 74_800,
                padded: 0,
                checksum: 0x1636b22016318c35,
            },
            Check {
                outputs: 90_481,
                padded: 0,
                checksum: 0x199e97d019bb95c2,
            },
            Check {
                outputs: 74_809,
                padded: 9,
                checksum: 0x1637555516318c2c,
            },
            Check {
                outputs: 1_381,
                padded: 0,
                checksum: 0x90d400017d002710,
            },
        ],
    ),
    (
        100_000,
        [
            Check {
                outputs: 975_828,
                padded: 0,
                checksum: 0x5ab076995ac3d173,
            },
            Check {
                outputs: 989_708,
                padded: 0,
                checksum: 0x8266a42982d1650d,
            },
            Check {
                outputs: 975_851,
                padded: 23,
                checksum: 0x5ac948995ac3d15c,
            },
            Check {
                outputs: 10_374,
                padded: 0,
                checksum: 0x10ec00be680186a0,
            },
        ],
    ),
    (
        1_000_000,
        [
            Check {
                outputs: 9_975_361,
                padded: 0,
                checksum: 0x5325c57c536b01f6,
            },
            Check {
                outputs: 9_988_146,
                padded: 0,
                checksum: 0xfdce91d60000c2e8,
            },
            Check {
                outputs: 9_975_397,
                padded: 36,
                checksum: 0x541dcb77536b01d2,
            },
            Check {
                outputs: 100_391,
                padded: 0,
                checksum: 0x34e34c21630f4240,
            },
        ],
    ),
    (
        5_000_000,
        [
            Check {
                outputs: 49_979_988,
                padded: 0,
                checksum: 0x121d65fa1153d3ff,
            },
            Check {
                outputs: 49_985_756,
                padded: 0,
                checksum: 0xe07b96b2e584ed5c,
            },
            Check {
                outputs: 49_980_171,
                padded: 183,
                checksum: 0x2d90c5721153d348,
            },
            Check {
                outputs: 500_373,
                padded: 0,
                checksum: 0xc17a72770e4c4b40,
            },
        ],
    ),
];

/// The expected result of reference workload `job` at `n` events per stream, if tabled.
pub fn expected(job: Job, n: u64) -> Option<Check> {
    let w = REFERENCE_JOBS.iter().position(|j| *j == job)?;
    EXPECTED.iter().find(|(m, _)| *m == n).map(|(_, c)| c[w])
}

/// Computes the reference results independently of the engine, from the definitions in
/// `BENCH-WORKLOADS.md` (only valid without late rows): a cross-check of the table for
/// sizes it does not list.
pub fn brute_force(job: Job, gen: &Gen) -> Check {
    assert_eq!(
        gen.late_percent, 0,
        "the direct computation assumes no late rows"
    );
    let n = gen.n;
    let mut by_key: Vec<Vec<Event>> = vec![Vec::new(); gen.keys as usize];
    for i in 0..n {
        let e = gen.event(i, 1);
        by_key[e.key as usize].push(e);
    }
    for v in &mut by_key {
        v.sort_by_key(|e| e.ts);
    }
    let mut c = Check::default();
    match job {
        Job::IntervalJoin | Job::SqlIntervalLeft | Job::WindowJoinTumbling => {
            for i in 0..n {
                let l = gen.event(i, 0);
                let rs = &by_key[l.key as usize];
                let (lo, hi) = match job {
                    Job::WindowJoinTumbling => {
                        let s = l.ts.div_euclid(10_000) * 10_000;
                        (s, s + 9_999)
                    }
                    _ => (l.ts - 5000, l.ts + 5000),
                };
                let a = rs.partition_point(|e| e.ts < lo);
                let b = rs.partition_point(|e| e.ts <= hi);
                for r in &rs[a..b] {
                    c.outputs += 1;
                    c.checksum = c.checksum.wrapping_add(pair_term(Some(l.id), Some(r.id)));
                }
                if a == b && job == Job::SqlIntervalLeft {
                    c.outputs += 1;
                    c.padded += 1;
                    c.checksum = c.checksum.wrapping_add(pair_term(Some(l.id), None));
                }
            }
        }
        Job::WindowCount => {
            let mut counts = std::collections::HashMap::new();
            for i in 0..n {
                let l = gen.event(i, 0);
                *counts
                    .entry((l.key, l.ts.div_euclid(10_000)))
                    .or_insert(0u64) += 1;
            }
            for ((k, w), cnt) in counts {
                c.outputs += 1;
                c.checksum = c
                    .checksum
                    .wrapping_add(window_term(k as i64, w * 10_000, cnt));
            }
        }
        other => panic!("no direct computation for {other:?}"),
    }
    c
}

// ---------------------------------------------------------------------------------------------
// Peak state: a probe around an operator.

/// Peak buffered state of a run, sampled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PeakState {
    /// Largest number of rows held in operator state (all subtasks, summed at the sample).
    pub rows: usize,
    /// Largest number of state entries (a key's timestamp bucket, a window, …).
    pub entries: usize,
    /// Largest number of pending event-time timers (all subtasks).
    pub timers: usize,
    /// Samples taken.
    pub samples: usize,
}

#[derive(Default)]
struct ProbeGlobal {
    every: usize,
    /// Per subtask: (rows, entries, timers) at its last sample.
    current: Vec<(usize, usize, usize)>,
    peak: PeakState,
}

thread_local! {
    static PROBE: RefCell<ProbeGlobal> = RefCell::new(ProbeGlobal::default());
}

/// An operator wrapper that samples the wrapped operator's state (`state()`) every
/// `every` elements per subtask, and after every event-time timer batch that follows a
/// sample point, to find the peak buffered state. It changes nothing the operator does.
pub struct Probe<O: Operator> {
    inner: O,
    subtask: usize,
    seen: usize,
}

impl<O: Operator> Probe<O> {
    fn sample(&self, timers: usize) {
        let st = self.inner.state();
        let rows = st.iter().map(|e| e.rows.len()).sum();
        let entries = st.len();
        PROBE.with(|p| {
            let mut p = p.borrow_mut();
            if p.current.len() <= self.subtask {
                p.current.resize(self.subtask + 1, (0, 0, 0));
            }
            p.current[self.subtask] = (rows, entries, timers);
            let (r, e, t) = p
                .current
                .iter()
                .fold((0, 0, 0), |a, c| (a.0 + c.0, a.1 + c.1, a.2 + c.2));
            p.peak.rows = p.peak.rows.max(r);
            p.peak.entries = p.peak.entries.max(e);
            p.peak.timers = p.peak.timers.max(t);
            p.peak.samples += 1;
        });
    }
}

impl<O: Operator> Operator for Probe<O> {
    type Ns = O::Ns;

    fn new(plan: &Plan, subtask: SubtaskIndex) -> Self {
        Probe {
            inner: O::new(plan, subtask),
            subtask: subtask.0 as usize,
            seen: 0,
        }
    }

    fn process_element(&mut self, cx: &mut Ctx<'_, Self::Ns>, side: Side, row: RowId) {
        self.inner.process_element(cx, side, row);
        self.seen += 1;
        let every = PROBE.with(|p| p.borrow().every);
        if self.seen.is_multiple_of(every) {
            self.sample(cx.timers.len());
        }
    }

    fn on_event_time(&mut self, cx: &mut Ctx<'_, Self::Ns>, timer: Timer<KeyId, Self::Ns>) {
        self.inner.on_event_time(cx, timer)
    }

    fn on_processing_time(&mut self, cx: &mut Ctx<'_, Self::Ns>, timer: Timer<KeyId, Self::Ns>) {
        self.inner.on_processing_time(cx, timer)
    }

    fn describe_timer(ns: &Self::Ns) -> String {
        O::describe_timer(ns)
    }

    fn state(&self) -> Vec<StateEntry> {
        self.inner.state()
    }

    fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    fn state_rows(&self) -> usize {
        self.inner.state_rows()
    }

    fn output_watermark_delay(&self) -> i64 {
        self.inner.output_watermark_delay()
    }
}

/// Runs a plan with its operator wrapped in a [`Probe`] sampling every `every` elements per
/// subtask; returns the run and its peak state. Much slower than [`crate::run_plan`]
/// (each sample walks the whole state): use it for state figures, not for timing.
pub fn run_probed(plan: &Plan, every: usize) -> Result<(RunOutput, PeakState), Error> {
    PROBE.with(|p| {
        *p.borrow_mut() = ProbeGlobal {
            every: every.max(1),
            ..ProbeGlobal::default()
        }
    });
    let opts = RunOptions {
        trace: false,
        ..RunOptions::default()
    };
    let out = match plan.operator {
        OperatorKind::WindowJoin | OperatorKind::WindowAggregate => {
            crate::sim::simulate::<Probe<WindowOperator>>(plan, &opts)
        }
        OperatorKind::IntervalJoin => crate::sim::simulate::<Probe<IntervalJoin>>(plan, &opts),
        OperatorKind::SqlIntervalJoin => {
            crate::sim::simulate::<Probe<SqlIntervalJoin>>(plan, &opts)
        }
        OperatorKind::RegularJoin => crate::sim::simulate::<Probe<RegularJoin>>(plan, &opts),
        OperatorKind::Split => crate::sim::simulate::<Probe<Split>>(plan, &opts),
        OperatorKind::WindowTvfAggregate
        | OperatorKind::WindowTvfJoin
        | OperatorKind::TemporalJoin
        | OperatorKind::LookupJoin => crate::run_plan(plan, &opts),
    }?;
    let peak = PROBE.with(|p| p.borrow().peak);
    Ok((out, peak))
}

/// Peak state from a traced run: the largest number of rows in the state snapshots the trace
/// holds (each step has the state of the subtasks it touched).
pub fn peak_state_from_trace(out: &RunOutput) -> PeakState {
    let mut current: Vec<(usize, usize, usize)> = vec![(0, 0, 0); out.watermarks.len()];
    let mut peak = PeakState::default();
    for step in &out.steps {
        for s in &step.state {
            let rows = s.entries.iter().map(|e| e.rows.len()).sum();
            current[s.subtask.0 as usize] = (
                rows,
                s.entries.len(),
                s.timers.iter().filter(|t| !t.processing).count(),
            );
        }
        let (r, e, t) = current
            .iter()
            .fold((0, 0, 0), |a, c| (a.0 + c.0, a.1 + c.1, a.2 + c.2));
        peak.rows = peak.rows.max(r);
        peak.entries = peak.entries.max(e);
        peak.timers = peak.timers.max(t);
        peak.samples += 1;
    }
    peak
}

/// Number of late rows reported by a run.
pub fn late_rows(out: &RunOutput) -> usize {
    out.sink.late.len()
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
