//! The workloads' output count and checksum as `BENCH-WORKLOADS.md` defines them: from a
//! run, from a counting sink, from a result document, the table of reference values and a
//! computation of them that does not use the engine.

use super::*;

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

pub(super) fn id_of(plan: &Plan, id: RowId) -> i64 {
    match plan.values(id)[1] {
        Value::Long(v) => v,
        Value::Int(v) => v as i64,
        ref other => panic!("id column holds {other:?}"),
    }
}

pub(super) fn int_of(v: &Value) -> i64 {
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
