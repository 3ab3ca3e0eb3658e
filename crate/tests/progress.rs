//! The progress callback the page's worker uses (`sim::with_progress`): it reports how many
//! arrivals were processed, and it does not change the result.

use joinlab::plan::{self, Limits};
use joinlab::result::RunResult;
use joinlab::scenario::Scenario;
use joinlab::sim::{with_progress, RunOptions};
use std::cell::RefCell;
use std::rc::Rc;

fn scenario(n: usize) -> Scenario {
    let rows = |side: i64| {
        (0..n)
            .map(|i| format!("k{}, {}, {}", i % 100, i, i as i64 * 10 + side))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let json = serde_json::json!({
        "job": { "operator": "interval_join", "interval": { "lower": -10, "upper": 10 } },
        "streams": [
            { "name": "l", "columns": ["k", "v:int", "ts"], "key": "k", "time": "ts", "rows": rows(0) },
            { "name": "r", "columns": ["k", "v:int", "ts"], "key": "k", "time": "ts", "rows": rows(3) }
        ]
    });
    Scenario::from_json(&json.to_string()).unwrap()
}

fn run(sc: &Scenario, opts: &RunOptions) -> RunResult {
    let plan = plan::build(sc, Limits::default()).unwrap();
    let out = joinlab::run_plan(&plan, opts).unwrap();
    RunResult::build(&plan, out, opts.trace)
}

#[test]
fn progress_reports_every_n_arrivals_and_leaves_the_result_alone() {
    let sc = scenario(2500);
    let total = plan::build(&sc, Limits::default()).unwrap().arrivals.len();
    assert_eq!(total, 5000);
    for trace in [false, true] {
        let opts = RunOptions {
            trace,
            snapshots: false,
            stop_after: None,
        };
        let calls = Rc::new(RefCell::new(Vec::new()));
        let seen = calls.clone();
        let with = with_progress(
            700,
            move |done, all| seen.borrow_mut().push((done, all)),
            || run(&sc, &opts),
        );
        let without = run(&sc, &opts);
        assert_eq!(
            with, without,
            "trace {trace}: the same result with and without progress"
        );
        // Reported after each 700th arrival: 699, 1399, …, 4899 of 5000.
        let want: Vec<(usize, usize)> = (1..=total / 700).map(|k| (k * 700 - 1, total)).collect();
        assert_eq!(*calls.borrow(), want, "trace {trace}");
    }
    // Outside `with_progress` nothing is reported (the callback was removed).
    let calls = Rc::new(RefCell::new(0));
    let seen = calls.clone();
    with_progress(1, move |_, _| *seen.borrow_mut() += 1, || ());
    run(&sc, &RunOptions::default());
    assert_eq!(*calls.borrow(), 0);
}
