//! What the run's budget counts in bytes, and the message of a run it stopped.

use super::*;

/// Estimated bytes of one snapshot.
pub(super) fn snapshot_bytes(s: &SubtaskState) -> u64 {
    use crate::trace::StateEntry;
    use std::mem::size_of;
    let entries: usize = s
        .entries
        .iter()
        .map(|e| size_of::<StateEntry>() + e.scope.len() + e.rows.len() * 4)
        .sum();
    let timers: usize = s
        .timers
        .iter()
        .map(|t| size_of::<TimerView>() + t.what.len())
        .sum();
    (size_of::<SubtaskState>() + entries + timers) as u64
}

/// The message of a run stopped by its budget: what grew, how far, and the settings that
/// made it grow. `arrivals` is how many arrivals had been read.
pub(super) fn limit_error(plan: &Plan, b: &Budget, e: Exceeded, arrivals: usize) -> Error {
    let job = &plan.scenario.job;
    let at = format!(
        "after {} of {} input rows and watermark rows",
        thousands(arrivals as u64),
        thousands(plan.arrivals.len() as u64)
    );
    let message = match e {
        Exceeded::Memory => {
            let m = b.memory;
            let (what, bytes, hint) = if m.trace >= m.state && m.trace >= m.results {
                (
                    "the trace",
                    m.trace,
                    "run without the trace (--trace), or with fewer rows",
                )
            } else if m.state >= m.results {
                ("operator state", m.state, "the watermark delay, the window size, the interval bounds or the state TTL keep rows in state; lower them or give fewer rows")
            } else {
                (
                    "the results",
                    m.results,
                    "fewer rows, smaller windows or a narrower join make fewer results",
                )
            };
            format!(
                "{what} grew to about {} ({at}), past the memory budget of {} (state {}, results {}, trace {}); {hint}; raise the budget with --max-memory",
                megabytes(bytes),
                megabytes(b.max_memory()),
                megabytes(m.state),
                megabytes(m.results),
                megabytes(m.trace),
            )
        }
        Exceeded::Work(_) => {
            let w = b.largest();
            let n = thousands(b.count(w));
            // A setting that multiplies the work of every row, named whatever grew.
            let win = &job.window;
            let sliding = match (win.kind, win.slide) {
                (crate::scenario::WindowKind::Sliding, Some(slide))
                    if slide.0 > 0 && win.size.0 / slide.0 >= 100 =>
                {
                    let per = (win.size.0 + slide.0 - 1) / slide.0;
                    Some(format!(
                        "the sliding window puts every row in {} windows: size {} / slide {} (job.window.size, job.window.slide)",
                        thousands(per as u64),
                        crate::time::format_duration(win.size.0),
                        crate::time::format_duration(slide.0)
                    ))
                }
                _ => None,
            };
            let why = match w {
                Work::WindowAssignments => sliding
                    .clone()
                    .unwrap_or_else(|| "every row is assigned to windows (job.window)".into()),
                Work::MergeSteps => "session windows stay in flight and every new row is merged against all of them: with no watermark (or one held back) nothing retires them, and rows out of order make this O(rows²) (job.window.gap, job.watermark)".to_string(),
                Work::PairsTried => "the join pairs many rows (every row of a key with every row of the other side that matches): fewer rows per key, a narrower interval or smaller windows make fewer pairs".to_string(),
                Work::TimerFirings => "timers fire for every window and key (job.window, job.allowed_lateness)".to_string(),
                Work::ResultRows => format!(
                    "windows re-fire on every allowed-late row and each firing lists the window's rows (job.allowed_lateness = {})",
                    crate::time::format_duration(job.allowed_lateness.0)
                ),
                Work::TraceEvents | Work::SnapshotEntries => {
                    "the trace records every step and the state after it; run without the trace (--trace) or with fewer rows".to_string()
                }
                Work::StateEntries => "the operator writes many state entries per row".to_string(),
            };
            let why = match sliding {
                Some(s) if w != Work::WindowAssignments => format!("{s}, and {why}"),
                _ => why,
            };
            format!(
                "{why}; the run stopped {at}, having done {n} {} (work {} units, past the budget of {}); raise the budget with --max-work",
                w.words(),
                thousands(b.used()),
                thousands(b.max_work()),
            )
        }
    };
    Error::Limit { message }
}
