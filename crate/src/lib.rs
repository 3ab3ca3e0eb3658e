//! Joinlab: Apache Flink 2.3's event-time semantics — watermarks, keyBy partitioning, window
//! and interval joins, SQL joins and side outputs — as a deterministic, single-threaded
//! simulator.
//!
//! A [`scenario::Scenario`] (two streams of typed rows and a job configuration) is resolved
//! into a [`plan::Plan`] and run by [`sim::simulate`]; [`run`] does both and returns a
//! [`result::RunResult`], the document the CLI prints and the page draws.

pub mod budget;
pub mod decimal;
pub mod diagnosis;
pub mod error;
pub mod export;
pub mod fasthash;
pub mod grouping_sets;
pub mod javahash;
pub mod javamap;
pub mod jsontext;
pub mod operators;
pub mod outputs;
pub mod paged;
pub mod parse;
pub mod partition;
pub mod plan;
pub mod result;
pub mod scenario;
pub mod sim;
pub mod sql;
pub mod thinstr;
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

/// Whether this build simulates the SQL operators (window TVF aggregation and join, temporal
/// and lookup joins) and evaluates a SQL query's projection and `WHERE` (`crate::sql::eval`).
/// Every build does except the page's first-load wasm module (the default wasm build, also
/// with the `bench` feature, whose workloads are the DataStream and SQL interval joins): it
/// leaves them to the lazily loaded operators' module (cargo feature `ops-module`, web/pkg-ops/,
/// which the page loads only for a scenario that needs it), and answers such a scenario with
/// [`needs_ops_module`]'s error. A constant, not `cfg` attributes: the arms it turns off are
/// dead code the optimiser and the linker drop, and every build type-checks all of them.
pub const SQL_OPERATORS: bool = cfg!(any(
    not(target_arch = "wasm32"),
    feature = "ops-module",
    feature = "export-module",
    feature = "sql-module"
));

/// The error of a build without [`SQL_OPERATORS`] for a plan that needs them, or `None`.
pub fn needs_ops_module(plan: &Plan) -> Option<Error> {
    if SQL_OPERATORS {
        return None;
    }
    let what = match plan.operator {
        OperatorKind::WindowTvfAggregate => "the window aggregation",
        OperatorKind::WindowTvfJoin => "the window join",
        OperatorKind::TemporalJoin => "the temporal join",
        OperatorKind::LookupJoin => "the lookup join",
        _ if plan.scenario.job.query.is_some() => "the SQL query's projection and WHERE",
        _ => return None,
    };
    Some(Error::config(
        "job.operator",
        format!(
            "{what} is simulated by the SQL operators' module (web/pkg-ops/), not by this one: \
             run the scenario with that module"
        ),
    ))
}

/// Runs a resolved plan with the operator it names.
pub fn run_plan(plan: &Plan, opts: &RunOptions) -> Result<RunOutput, Error> {
    if let Some(e) = needs_ops_module(plan) {
        return Err(e);
    }
    match plan.operator {
        OperatorKind::WindowJoin | OperatorKind::WindowAggregate => {
            sim::simulate::<WindowOperator>(plan, opts)
        }
        OperatorKind::IntervalJoin => sim::simulate::<IntervalJoin>(plan, opts),
        OperatorKind::SqlIntervalJoin => sim::simulate::<SqlIntervalJoin>(plan, opts),
        OperatorKind::RegularJoin => sim::simulate::<RegularJoin>(plan, opts),
        OperatorKind::Split => sim::simulate::<Split>(plan, opts),
        OperatorKind::TemporalJoin if SQL_OPERATORS => sim::simulate::<TemporalJoin>(plan, opts),
        OperatorKind::LookupJoin if SQL_OPERATORS => sim::simulate::<LookupJoin>(plan, opts),
        OperatorKind::WindowTvfAggregate if SQL_OPERATORS => {
            sim::simulate::<WindowTvfAggregate>(plan, opts)
        }
        OperatorKind::WindowTvfJoin if SQL_OPERATORS => sim::simulate::<WindowTvfJoin>(plan, opts),
        // Only without SQL_OPERATORS, where needs_ops_module has answered already.
        _ => {
            Err(needs_ops_module(plan)
                .unwrap_or_else(|| Error::config("job.operator", "unsupported")))
        }
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
    if let Some(e) = needs_ops_module(plan) {
        return Err(e);
    }
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
        OperatorKind::TemporalJoin if SQL_OPERATORS => {
            sim::simulate_draining::<TemporalJoin>(plan, opts, chunk, consumer)
        }
        OperatorKind::LookupJoin if SQL_OPERATORS => {
            sim::simulate_draining::<LookupJoin>(plan, opts, chunk, consumer)
        }
        OperatorKind::WindowTvfAggregate if SQL_OPERATORS => {
            sim::simulate_draining::<WindowTvfAggregate>(plan, opts, chunk, consumer)
        }
        OperatorKind::WindowTvfJoin if SQL_OPERATORS => {
            sim::simulate_draining::<WindowTvfJoin>(plan, opts, chunk, consumer)
        }
        _ => {
            Err(needs_ops_module(plan)
                .unwrap_or_else(|| Error::config("job.operator", "unsupported")))
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
    Ok(RunResult::build_owned(plan, out, opts.trace))
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
