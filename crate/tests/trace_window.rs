//! The trace of a window of steps (`sim::with_trace_window`, `trace_window::trace_window`)
//! equals the same steps of a full trace, and the state at its end equals `state_at`.

use joinlab::scenario::Scenario;
use joinlab::sim::{RunOptions, WindowStart};
use joinlab::time::Watermark;
use joinlab::trace::{Event, Step};
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

/// The counts and watermarks after `upto` steps, added up from a full trace as the page's
/// `WatermarkTracker` (web/src/timeline.js) does.
fn replay(sc: &Scenario, full: &[Step], upto: usize) -> WindowStart {
    let r = joinlab::run(sc, false).unwrap();
    let (streams, pa, po) = (
        r.streams.len(),
        r.parallelism as usize,
        r.operator_parallelism as usize,
    );
    let mut w = WindowStart {
        assigner: vec![vec![Watermark::MIN; pa]; streams],
        idle: vec![vec![false; pa]; streams],
        channel: vec![vec![vec![Watermark::MIN; pa]; streams]; po],
        operator: vec![Watermark::MIN; po],
        output: vec![Watermark::MIN; po],
        ..WindowStart::default()
    };
    for s in &full[..upto] {
        for e in &s.events {
            match e {
                Event::AssignerWatermark {
                    stream,
                    assigner,
                    watermark,
                    ..
                } => w.assigner[stream.index()][*assigner as usize] = *watermark,
                Event::AssignerStatus {
                    stream,
                    assigner,
                    idle,
                } => w.idle[stream.index()][*assigner as usize] = *idle,
                Event::ChannelWatermark {
                    subtask,
                    stream,
                    assigner,
                    watermark,
                } => w.channel[subtask.0 as usize][stream.index()][*assigner as usize] = *watermark,
                Event::OperatorWatermark {
                    subtask,
                    watermark,
                    output,
                } => {
                    w.operator[subtask.0 as usize] = *watermark;
                    w.output[subtask.0 as usize] = *output;
                }
                Event::Output { .. } => w.outputs += 1,
                Event::Window { .. } => w.windows += 1,
                Event::Late { .. } => w.late += 1,
                _ => {}
            }
        }
    }
    w
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
        if from < n {
            let before = w.before.as_ref().expect("the run reached the window");
            assert_eq!(*before, replay(sc, &full, from), "{name}: before {from}");
        }
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

#[test]
fn held_watermarks_of_a_periodic_step_are_in_every_window() {
    // Parallelism 2, periodic emission: at each tick one assigner forwards a watermark while
    // the other's candidate is held; a window starting at any step has the same events.
    let sc = Scenario::from_json(
        r#"{"job":{"operator":"window_aggregate","parallelism":2,"watermark":{"per_event":false,"interval":200}},
        "streams":[{"name":"a","columns":["k","ts"],"key":"k","time":"ts","rows":"x, 100 | s=0, a=100\nx, 1000 | s=1, a=100\nx, 1500 | s=0, a=300\nx, 1600 | s=0, a=500\nx, 1700 | s=0, a=700"}]}"#,
    )
    .unwrap();
    let (full, n) = full_trace(&sc);
    let held = |steps: &[Step]| {
        steps
            .iter()
            .flat_map(|s| s.events.iter())
            .filter(|e| matches!(e, Event::AssignerHeld { .. }))
            .count()
    };
    assert!(held(&full) >= 2, "{full:#?}");
    for from in 0..n {
        let w = trace_window(&sc, from, 1).unwrap();
        assert_eq!(w.steps, full[from..from + 1], "window at {from}");
    }
}
