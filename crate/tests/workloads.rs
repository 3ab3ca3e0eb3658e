//! The reference workloads of `BENCH-WORKLOADS.md` at scale: output counts and checksums must
//! equal the table (a correctness check of the operators on ~10^5–10^6 outputs).

use joinlab::sim::RunOptions;
use joinlab::workload::{self, Check, Gen, Job, REFERENCE_JOBS};

fn run_fast(job: Job, n: u64, p: u32) -> Check {
    let g = Gen::reference(n);
    let plan = workload::plan(job, &g, p);
    let out = joinlab::run_plan(
        &plan,
        &RunOptions {
            trace: false,
            ..RunOptions::default()
        },
    )
    .expect("runs");
    assert!(
        out.state_empty,
        "{job:?} n={n} p={p}: state left after the final watermark"
    );
    assert!(
        out.sink.late.is_empty(),
        "{job:?} n={n} p={p}: no event is late in the reference workloads"
    );
    workload::checksum(&plan, &out)
}

fn check_all(n: u64, p: u32) {
    let mut bad = Vec::new();
    for job in REFERENCE_JOBS {
        let got = run_fast(job, n, p);
        let want = workload::expected(job, n).unwrap();
        if got != want {
            bad.push(format!("{job:?} n={n} p={p}: got {got}, want {want}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn reference_workloads_10k_p1() {
    check_all(10_000, 1);
}

#[test]
fn reference_workloads_10k_p4() {
    check_all(10_000, 4);
}

/// The same through the user-facing path: rows as text, parsed, run, and the JSON-ready
/// result.
#[test]
fn reference_workloads_10k_text_path() {
    let mut bad = Vec::new();
    for job in REFERENCE_JOBS {
        let sc = workload::scenario(job, &Gen::reference(10_000), 1);
        let res = joinlab::run(&sc, false).expect("runs");
        let got = workload::checksum_result(&res);
        let want = workload::expected(job, 10_000).unwrap();
        if got != want {
            bad.push(format!("{job:?}: got {got}, want {want}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// About 7 s in a debug build.
#[test]
fn reference_workloads_100k() {
    check_all(100_000, 1);
    check_all(100_000, 4);
}

#[test]
#[ignore = "slow; run with --release -- --ignored"]
fn reference_workloads_1m() {
    check_all(1_000_000, 1);
}
