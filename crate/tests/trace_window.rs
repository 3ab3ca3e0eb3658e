//! The trace of a window of steps (`sim::with_trace_window`, `trace_window::trace_window`)
//! equals the same steps of a full trace, and the state at its end equals `state_at`.

use joinlab::scenario::Scenario;
use joinlab::sim::RunOptions;
use joinlab::trace::Step;
use joinlab::trace_window::trace_window;
use joinlab::workload::{self, Gen, Job};

fn full_trace(sc: &Scenario) -> (Vec<Step>, usize) {
    let opts = RunOptions {
        trace: true,
        snapshots: false,
        stop_after: None,
    };
    let r = joinlab::run_with(sc, &opts).unwrap();
    (r.trace.unwrap(), r.steps)
}

fn check(name: &str, sc: &Scenario) {
    let (full, n) = full_trace(sc);
    assert_eq!(full.len(), n, "{name}");
    let count = (n / 7).clamp(1, 200);
    let mut froms = vec![0, n / 2, n.saturating_sub(count), n.saturating_sub(1)];
    froms.dedup();
    for from in froms {
        let w = trace_window(sc, from, count).unwrap();
        let end = (from + count).min(n);
        assert_eq!(w.steps.len(), end - from, "{name}: window at {from}");
        assert_eq!(w.steps, full[from..end], "{name}: window at {from}");
        assert_eq!(
            w.total_steps,
            (end == n).then_some(n),
            "{name}: window at {from}"
        );
        let at = joinlab::state_at(sc, end - 1).unwrap();
        assert_eq!(w.state_end, at, "{name}: state after the window at {from}");
        for s in &w.steps {
            if let joinlab::trace::Cause::Row { row, .. } = s.cause {
                assert!(
                    w.rows.contains_key(&row.0),
                    "{name}: row {row:?} of step {}",
                    s.index
                );
            }
        }
    }
}

#[test]
fn windows_of_gallery_scenarios_equal_the_full_trace() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenarios");
    let mut seen = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if !name.ends_with(".json") || name.ends_with(".expected.json") {
            continue;
        }
        let sc = Scenario::from_json(&std::fs::read_to_string(&p).unwrap()).unwrap();
        check(&name, &sc);
        seen += 1;
    }
    assert!(seen >= 10, "{seen} scenarios");
}

#[test]
fn windows_of_generated_workloads_with_late_rows_equal_the_full_trace() {
    for (job, p) in [
        (Job::IntervalJoin, 1),
        (Job::IntervalJoin, 4),
        (Job::WindowJoinSession, 2),
        (Job::WindowJoinSliding, 1),
        (Job::WindowAggLateness, 2),
        (Job::SqlIntervalFull, 1),
        (Job::RegularJoin, 2),
        (Job::Split, 1),
    ] {
        let sc = workload::scenario(job, &Gen::with_late(3000), p);
        check(&format!("{job:?} p={p}"), &sc);
    }
}

#[test]
fn a_window_past_the_end_is_empty_and_knows_the_step_count() {
    let sc = workload::scenario(Job::IntervalJoin, &Gen::with_late(100), 1);
    let (_, n) = full_trace(&sc);
    let w = trace_window(&sc, n + 5, 10).unwrap();
    assert!(w.steps.is_empty());
    assert_eq!(w.total_steps, Some(n));
}
