//! Benchmark exports of the WebAssembly build (cargo feature `bench`, not in the page's
//! module): the engine's workloads generated, simulated and checked inside wasm, so
//! `scripts/bench-wasm.mjs` can time the simulation alone from JavaScript and compare it with
//! the native build on the same cases (`crate/benches/scaling.rs --twin`).
//!
//! wasm32-unknown-unknown has no clock (`std::time::Instant` panics there), so the timing is
//! done around the calls by the caller: [`bench_prepare`] (generate + plan, untimed),
//! [`bench_simulate`] (timed), [`bench_check`] (count and checksum, verified against
//! `BENCH-WORKLOADS.md` for the reference workloads).

use crate::plan::Plan;
use crate::sim::{RunOptions, RunOutput};
use crate::workload::{self, Gen, Job};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

struct Prepared {
    job: Job,
    n: u64,
    reference: bool,
    plan: Plan,
    out: Option<RunOutput>,
}

thread_local! {
    static CASE: RefCell<Option<Prepared>> = const { RefCell::new(None) };
}

/// The generator of a case: `BENCH-WORKLOADS.md`'s (no late rows) for the reference
/// workloads, else the operator benchmarks' (5 % late rows; the regular join with N/10 keys),
/// the same as `crate/benches/engine.rs`.
pub fn bench_gen(job: Job, n: u64, reference: bool) -> Gen {
    if reference {
        return Gen::reference(n);
    }
    let mut g = Gen::with_late(n);
    if job == Job::RegularJoin {
        g.keys = (n / 10).max(1000);
    }
    g
}

/// Generates the events of `job` (a [`Job::name`]) at `n` events per stream and builds its
/// plan for parallelism `p`; `reference`: the reference generator. Returns the number of
/// input events, or -1 for an unknown job.
#[wasm_bindgen]
pub fn bench_prepare(job: &str, n: u32, p: u32, reference: bool) -> f64 {
    let Some(job) = Job::ALL.into_iter().find(|j| j.name() == job) else {
        return -1.0;
    };
    // Free the previous case first: the 1M cases need most of the 4 GB address space.
    CASE.with(|c| c.borrow_mut().take());
    let n = n as u64;
    let plan = workload::plan(job, &bench_gen(job, n, reference), p);
    let events = plan.rows.len() as f64;
    CASE.with(|c| {
        *c.borrow_mut() = Some(Prepared {
            job,
            n,
            reference,
            plan,
            out: None,
        })
    });
    events
}

/// Simulates the prepared case with the trace off (what the timed part of the native
/// benchmark does). Returns the number of simulation steps, or -1 without a case.
#[wasm_bindgen]
pub fn bench_simulate() -> f64 {
    CASE.with(|c| {
        let mut c = c.borrow_mut();
        let Some(case) = c.as_mut() else {
            return -1.0;
        };
        // Drop the previous run's output before the next run, as the native bench does.
        case.out = None;
        let out = crate::run_plan(&case.plan, &RunOptions::default()).expect("runs");
        let steps = out.step_count as f64;
        case.out = Some(out);
        steps
    })
}

/// Count and checksum of the last simulation, as JSON text: `{"outputs", "padded",
/// "checksum", "late", "expected"?, "ok"?}` (`expected`/`ok` for the reference workloads).
#[wasm_bindgen]
pub fn bench_check() -> String {
    CASE.with(|c| {
        let c = c.borrow();
        let Some(case) = c.as_ref() else {
            return String::from("{}");
        };
        let Some(out) = case.out.as_ref() else {
            return String::from("{}");
        };
        let check = workload::checksum(&case.plan, out);
        let mut s = format!(
            "{{\"outputs\":{},\"padded\":{},\"checksum\":\"{:#018x}\",\"late\":{}",
            check.outputs,
            check.padded,
            check.checksum,
            out.sink.late.len()
        );
        if let Some(e) = workload::expected(case.job, case.n).filter(|_| case.reference) {
            s.push_str(&format!(
                ",\"expected\":\"{:#018x}\",\"ok\":{}",
                e.checksum,
                e == check
            ));
        }
        s.push('}');
        s
    })
}

/// Frees the prepared case.
#[wasm_bindgen]
pub fn bench_release() {
    CASE.with(|c| c.borrow_mut().take());
}
