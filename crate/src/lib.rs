//! Joinlab: Apache Flink 2.3's event-time semantics — watermarks, keyBy partitioning, window
//! and interval joins, SQL joins and side outputs — as a deterministic, single-threaded
//! simulator.
//!
//! A [`scenario::Scenario`] (two streams of typed rows and a job configuration) is resolved
//! into a [`plan::Plan`] and run by [`sim::simulate`]; [`run`] does both and returns a
//! [`result::RunResult`], the document the CLI prints and the page draws.

pub mod budget;
pub mod diagnosis;
pub mod error;
pub mod export;
pub mod fasthash;
pub mod grouping_sets;
pub mod javahash;
pub mod javamap;
pub mod jsontext;
pub mod operators;
pub mod parse;
pub mod partition;
pub mod plan;
pub mod result;
pub mod scenario;
pub mod sim;
pub mod sql;
pub mod time;
pub mod timers;
pub mod trace;
pub mod trace_window;
pub mod tvf;
pub mod value;
pub mod verdict;
pub mod versions;
pub mod watermark;
pub mod workload;

#[cfg(all(
    target_arch = "wasm32",
    not(feature = "export-module"),
    not(feature = "sql-module")
))]
pub mod wasm;
#[cfg(all(target_arch = "wasm32", feature = "bench"))]
mod wasm_bench;
#[cfg(all(target_arch = "wasm32", feature = "export-module"))]
pub mod wasm_export;
#[cfg(all(target_arch = "wasm32", feature = "sql-module"))]
pub mod wasm_sql;

use error::Error;
use operators::{
    interval_join::IntervalJoin, lookup_join::LookupJoin, regular_join::RegularJoin, split::Split,
    sql_interval_join::SqlIntervalJoin, temporal_join::TemporalJoin, window::WindowOperator,
    window_tvf_aggregate::WindowTvfAggregate, window_tvf_join::WindowTvfJoin,
};
use plan::{Limits, Plan};
use result::RunResult;
use scenario::{OperatorKind, Scenario};
use sim::{RunOptions, RunOutput};

/// Runs a resolved plan with the operator it names.
pub fn run_plan(plan: &Plan, opts: &RunOptions) -> Result<RunOutput, Error> {
    match plan.operator {
        OperatorKind::WindowJoin | OperatorKind::WindowAggregate => {
            sim::simulate::<WindowOperator>(plan, opts)
        }
        OperatorKind::IntervalJoin => sim::simulate::<IntervalJoin>(plan, opts),
        OperatorKind::SqlIntervalJoin => sim::simulate::<SqlIntervalJoin>(plan, opts),
        OperatorKind::RegularJoin => sim::simulate::<RegularJoin>(plan, opts),
        OperatorKind::Split => sim::simulate::<Split>(plan, opts),
        OperatorKind::TemporalJoin => sim::simulate::<TemporalJoin>(plan, opts),
        OperatorKind::LookupJoin => sim::simulate::<LookupJoin>(plan, opts),
        OperatorKind::WindowTvfAggregate => sim::simulate::<WindowTvfAggregate>(plan, opts),
        OperatorKind::WindowTvfJoin => sim::simulate::<WindowTvfJoin>(plan, opts),
    }
}

/// Runs a resolved plan like [`run_plan`], handing the outputs to `consumer` in chunks of
/// about `chunk` as they are produced ([`sim::simulate_draining`]).
pub fn run_plan_draining(
    plan: &Plan,
    opts: &RunOptions,
    chunk: usize,
    consumer: &mut dyn FnMut(&operators::Sink),
) -> Result<RunOutput, Error> {
    match plan.operator {
        OperatorKind::WindowJoin | OperatorKind::WindowAggregate => {
            sim::simulate_draining::<WindowOperator>(plan, opts, chunk, consumer)
        }
        OperatorKind::IntervalJoin => {
            sim::simulate_draining::<IntervalJoin>(plan, opts, chunk, consumer)
        }
        OperatorKind::SqlIntervalJoin => {
            sim::simulate_draining::<SqlIntervalJoin>(plan, opts, chunk, consumer)
        }
        OperatorKind::RegularJoin => {
            sim::simulate_draining::<RegularJoin>(plan, opts, chunk, consumer)
        }
        OperatorKind::Split => sim::simulate_draining::<Split>(plan, opts, chunk, consumer),
        OperatorKind::TemporalJoin => {
            sim::simulate_draining::<TemporalJoin>(plan, opts, chunk, consumer)
        }
        OperatorKind::LookupJoin => {
            sim::simulate_draining::<LookupJoin>(plan, opts, chunk, consumer)
        }
        OperatorKind::WindowTvfAggregate => {
            sim::simulate_draining::<WindowTvfAggregate>(plan, opts, chunk, consumer)
        }
        OperatorKind::WindowTvfJoin => {
            sim::simulate_draining::<WindowTvfJoin>(plan, opts, chunk, consumer)
        }
    }
}

/// Runs a scenario: parse and validate it, simulate it, and build the result. With `trace`,
/// the result also holds the rows, keys, verdicts and the step-by-step trace (with a state
/// snapshot of each touched subtask after each step).
pub fn run(scenario: &Scenario, trace: bool) -> Result<RunResult, Error> {
    run_with(
        scenario,
        &RunOptions {
            trace,
            snapshots: trace,
            stop_after: None,
        },
    )
}

/// Runs a scenario with explicit options.
pub fn run_with(scenario: &Scenario, opts: &RunOptions) -> Result<RunResult, Error> {
    run_limited(scenario, opts, Limits::default())
}

/// Runs a scenario with explicit options and budgets ([`budget`]).
pub fn run_limited(
    scenario: &Scenario,
    opts: &RunOptions,
    limits: Limits,
) -> Result<RunResult, Error> {
    let plan = plan::build(scenario, limits)?;
    let out = run_plan(&plan, opts)?;
    Ok(RunResult::build(&plan, out, opts.trace))
}

/// The state and pending timers of every operator subtask right after step `step`.
pub fn state_at(scenario: &Scenario, step: usize) -> Result<Vec<trace::SubtaskState>, Error> {
    let plan = plan::build(scenario, Limits::default())?;
    let out = run_plan(
        &plan,
        &RunOptions {
            trace: false,
            snapshots: false,
            stop_after: Some(step),
        },
    )?;
    Ok(out.final_state)
}

/// Runs a scenario given as JSON text.
pub fn run_json(text: &str, trace: bool) -> Result<RunResult, Error> {
    run(&Scenario::from_json(text)?, trace)
}
