//! No input can panic the engine: random bytes as a scenario document, and random scenarios
//! (random settings, random row text) either run or return an error value.

use proptest::prelude::*;
use serde_json::json;

fn operators() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "window_join",
        "interval_join",
        "window_aggregate",
        "sql_interval_join",
        "regular_join",
        "split",
        "nope",
    ])
}

fn time_text() -> impl Strategy<Value = serde_json::Value> {
    // Mostly valid values, so that most scenarios reach the simulator.
    prop_oneof![
        60 => (1i64..60).prop_map(|v| json!(v)),
        10 => (-30i64..1).prop_map(|v| json!(v)),
        10 => (1i64..20).prop_map(|v| json!(format!("{v}ms"))),
        1 => any::<i64>().prop_map(|v| json!(v)),
        1 => prop_oneof![
            "[-+]?[0-9]{0,20}(ms|s|m|h|d|x)?".prop_map(|s| json!(s)),
            "[0-9]{1,3}:[0-9]{1,3}(:[0-9]{1,3})?".prop_map(|s| json!(s)),
            Just(json!(1.5)),
            Just(json!(null)),
        ],
    ]
}

fn row_line() -> impl Strategy<Value = String> {
    prop_oneof![
        40 => "[a-c], [0-9]{1,2}",
        10 => "[a-c], [0-9]{1,2} \\| s=[0-1]( a=[0-9]{1,2})?",
        5 => "(WM|wm) [0-9]{1,2}",
        2 => "[+-][IUD] [a-c], [0-9]{1,3}",
        1 => "[a-c], ?-?[0-9]{0,12}",
        1 => "[a-c], [0-9]{1,4}( \\| (s|a|x)=[0-9a-z]{0,3}){0,3}",
        1 => "(WM|wm) [-0-9smh:]{0,10}",
        1 => "\"[a-c,\" ]{0,5}\"?, [0-9]{1,3}",
        1 => ".{0,20}",
        1 => Just("日本, 5".to_string()),
        1 => Just("a, 2021-11-01 00:01:03".to_string()),
        1 => Just("a, 9999999999999999999".to_string()),
    ]
}

fn rows() -> impl Strategy<Value = String> {
    prop::collection::vec(row_line(), 0..12).prop_map(|v| v.join("\n"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, .. ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = joinlab::run_json(&text, true);
    }

    #[test]
    fn random_json_never_panics(text in "\\{(\"[a-z_]{1,10}\": ?(\\{\\}|\\[\\]|[0-9]{1,3}|\"[a-z]{0,4}\"|true|null),? ?){0,6}\\}") {
        let _ = joinlab::run_json(&text, true);
    }
}

/// Random scenarios (random settings and row text) either run or return an error value. The
/// strategy is large, so it runs on a thread with a big stack.
#[test]
fn random_scenarios_never_panic() {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(|| {
            let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig { cases: 600, ..ProptestConfig::default() });
            runner
                .run(&((operators(), prop_oneof![20 => 1u32..5, 1 => 0u32..10], prop::sample::select(vec!["bounded", "monotonous", "legacy", "punctuated", "none"]), time_text(), time_text(), time_text(), any::<bool>(), prop::sample::select(vec!["tumbling", "sliding", "session"])), (time_text(), time_text(), time_text(), time_text(), time_text(), time_text(), time_text(), prop::sample::select(vec!["inner", "left", "right", "full"])), (rows(), rows(), any::<bool>(), prop::sample::select(vec!["by_time", "left_first", "interleave"]), prop_oneof![20 => Just("k"), 1 => prop::sample::select(vec!["k:int", "k:bigint", "k:double", "k:boolean", "k:wat", ""])])), |((op, p, strategy, delay, interval, idle, per_event, kind), (size, slide, gap, offset, lo, hi, lateness, join), (l, r, final_wm, arrival, types))| {
        let sc = json!({
            "job": {
                "operator": op, "parallelism": p, "final_watermark": final_wm, "arrival": arrival,
                "watermark": {"strategy": strategy, "delay": delay, "interval": interval, "idle_timeout": idle, "per_event": per_event},
                "window": {"kind": kind, "size": size, "slide": slide, "gap": gap, "offset": offset},
                "interval": {"lower": lo.clone(), "upper": hi.clone()},
                "sql": {"join": join, "lower": lo, "upper": hi},
                "allowed_lateness": lateness,
                "late_output": {"left": "late"},
                "aggregate": {"sum": "ts"},
                "split": {"column": "k", "routes": [{"value": "a", "to": "main"}, {"value": "b", "to": "x"}]}
            },
            "streams": [
                {"name": "L", "columns": [types, "ts"], "key": "k", "time": "ts", "rows": l},
                {"name": "R", "columns": ["k", "ts"], "key": "k", "time": "ts", "rows": r}
            ]
        });
        // Either a result or an error value; both must also serialise.
        match joinlab::run_json(&sc.to_string(), true) {
            Ok(res) => { let _ = serde_json::to_string(&res).unwrap(); RAN.fetch_add(1, std::sync::atomic::Ordering::Relaxed); }
            Err(e) => { let _ = e.to_string(); }
        }
                    Ok(())
                })
                .unwrap();
        })
        .unwrap()
        .join()
        .unwrap();
    // The generator must reach the simulator, not only the validation.
    assert!(
        RAN.load(std::sync::atomic::Ordering::Relaxed) >= 60,
        "only {} random scenarios ran",
        RAN.load(std::sync::atomic::Ordering::Relaxed)
    );
}

static RAN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[test]
fn extreme_values_do_not_overflow() {
    for op in [
        "window_join",
        "interval_join",
        "window_aggregate",
        "sql_interval_join",
    ] {
        for (lo, hi) in [
            (i64::MIN / 2, i64::MAX / 2),
            (-(1i64 << 53), 1i64 << 53),
            (0, 0),
        ] {
            let sc = json!({
                "job": {"operator": op, "parallelism": 2, "interval": {"lower": lo, "upper": hi}, "sql": {"join": "full", "lower": lo, "upper": hi},
                        "window": {"kind": "sliding", "size": 1i64 << 53, "slide": 1i64 << 50}, "allowed_lateness": 1i64 << 53},
                "streams": [
                    {"name": "L", "columns": ["k", "ts"], "key": "k", "time": "ts", "rows": "a, 9007199254740992\na, -9007199254740992\na, 0"},
                    {"name": "R", "columns": ["k", "ts"], "key": "k", "time": "ts", "rows": "a, 9007199254740992\na, -9007199254740992"}
                ]
            });
            let _ = joinlab::run_json(&sc.to_string(), true);
        }
    }
}
