use super::*;
use crate::result::RunResult;
use crate::scenario::Scenario;

fn run(json: &str) -> (Scenario, RunResult) {
    let sc = Scenario::from_json(json).unwrap();
    let r = crate::run(&sc, false).unwrap();
    (sc, r)
}

fn kinds(r: &RunResult) -> Vec<CauseKind> {
    r.diagnosis
        .as_ref()
        .map(|d| d.causes.iter().map(|c| c.kind).collect())
        .unwrap_or_default()
}

fn cause(r: &RunResult, k: CauseKind) -> &Finding {
    r.diagnosis
        .as_ref()
        .and_then(|d| d.causes.iter().find(|c| c.kind == k))
        .unwrap_or_else(|| panic!("no {k:?} in {:#?}", r.diagnosis))
}

/// Applies the cause's fix, re-runs, and checks the cause is gone.
fn fixed(sc: &Scenario, r: &RunResult, k: CauseKind) -> RunResult {
    let fix = cause(r, k).fix.clone().expect("a fix");
    let sc2 = apply_fix(sc, &fix).unwrap();
    let r2 = crate::run(&sc2, false).unwrap();
    assert!(
        !kinds(&r2).contains(&k),
        "{k:?} still there after {fix:?}: {:#?}",
        r2.diagnosis
    );
    r2
}

fn agg(p: u32, wm: &str, final_wm: bool, rows: &str) -> String {
    format!(
        r#"{{"job":{{"operator":"window_aggregate","parallelism":{p},"final_watermark":{final_wm},"watermark":{wm},"window":{{"size":"5s"}}}},
        "streams":[{{"name":"clicks","columns":["user","ts"],"key":"user","time":"ts","rows":"{rows}"}}]}}"#
    )
}

const STALLED: &str = r"u1, 1s | s=1\nu1, 2s | s=0\nu2, 3s | s=0\nu1, 6s | s=0\nu2, 8s | s=0\nu1, 12s | s=0\nu2, 17s | s=0\nu1, 21s | s=0";

#[test]
fn an_assigner_that_stopped_receiving_rows_holds_the_watermark() {
    let wm = r#"{"per_event":false,"interval":"200ms"}"#;
    let (sc, r) = run(&agg(2, wm, true, STALLED));
    let c = cause(&r, CauseKind::IdleAssigner);
    match &c.evidence {
        Evidence::Held(h) => {
            assert_eq!(
                (h.assigner, h.rows, h.watermark),
                (Some(1), 1, Watermark(999))
            );
            assert_eq!(h.others, Watermark(16_999));
            assert!(h.held > 0);
        }
        e => panic!("{e:?}"),
    }
    assert_eq!(c.panel, Panel::Watermarks);
    assert!(c
        .fix
        .as_ref()
        .unwrap()
        .patch
        .contains_key("job.watermark.idle_timeout"));
    // With the idle timeout the windows fire before the end of input.
    let r2 = fixed(&sc, &r, CauseKind::IdleAssigner);
    assert!(
        r2.windows.iter().any(|w| w.step + 1 < r2.steps),
        "{:?}",
        r2.windows
    );
    // Without the cause (every row on subtask 0... parallelism 1): no diagnosis.
    let (_, r) = run(&agg(
        1,
        wm,
        true,
        &STALLED.replace(" | s=1", "").replace(" | s=0", ""),
    ));
    assert_eq!(r.diagnosis, None);
}

#[test]
fn an_assigner_that_never_received_a_row_holds_the_minimum() {
    let rows = r"u1, 1s | s=0\nu1, 6s | s=0\nu1, 12s | s=0\nu1, 21s | s=0";
    let (sc, r) = run(&agg(2, "{}", true, rows));
    let c = cause(&r, CauseKind::IdleAssigner);
    assert!(c.message.contains("never received a row"), "{}", c.message);
    match &c.evidence {
        Evidence::Held(h) => assert_eq!((h.rows, h.watermark), (0, Watermark::MIN)),
        e => panic!("{e:?}"),
    }
    let fix = &c.fix.as_ref().unwrap().patch;
    // Per-event emission only: idleness needs a periodic interval.
    assert!(fix.contains_key("job.watermark.interval"), "{fix:?}");
    fixed(&sc, &r, CauseKind::IdleAssigner);
    // Rows on both assigners: nothing held.
    let (_, r) = run(&agg(2, "{}", true, &rows.replace("12s | s=0", "12s | s=1")));
    assert!(
        !kinds(&r).contains(&CauseKind::IdleAssigner),
        "{:?}",
        r.diagnosis
    );
}

fn wjoin(extra: &str, left: &str, right: &str) -> String {
    format!(
        r#"{{"job":{{"operator":"window_join"{extra}}},
        "streams":[{{"name":"a","columns":["k","ts"],"key":"k","time":"ts","rows":"{left}"}},
                   {{"name":"b","columns":["k","ts"],"key":"k","time":"ts","rows":"{right}"}}]}}"#
    )
}

#[test]
fn one_input_lagging_the_other() {
    let left = r"x, 1s\nx, 12s\nx, 25s\nx, 38s\nx, 51s";
    let (sc, r) = run(&wjoin("", left, r"x, 2s"));
    let c = cause(&r, CauseKind::LaggingInput);
    match &c.evidence {
        Evidence::Held(h) => {
            assert_eq!((h.stream.as_str(), h.assigner), ("b", None));
            assert_eq!(h.watermark, Watermark(1999));
        }
        e => panic!("{e:?}"),
    }
    let r2 = fixed(&sc, &r, CauseKind::LaggingInput);
    assert!(
        r2.outputs.iter().all(|o| o.step + 1 < r2.steps),
        "{:?}",
        r2.outputs
    );
    // Both inputs keep up: the join fires on time, no diagnosis.
    let (_, r) = run(&wjoin("", left, r"x, 2s\nx, 13s\nx, 26s\nx, 39s\nx, 52s"));
    assert_eq!(r.diagnosis, None);
}

#[test]
fn a_stream_without_watermarks() {
    let left = r"x, 1s\nx, 12s\nx, 25s";
    let right = r"x, 2s\nx, 13s\nx, 26s";
    let none = r#","watermark":{"strategy":"none"}"#;
    let (sc, r) = run(&wjoin(none, left, right));
    assert_eq!(
        kinds(&r),
        vec![CauseKind::NoWatermarks, CauseKind::NoWatermarks]
    );
    let fix = cause(&r, CauseKind::NoWatermarks).fix.clone().unwrap();
    let r2 = crate::run(&apply_fix(&sc, &fix).unwrap(), false).unwrap();
    assert_eq!(r2.diagnosis, None);
    let (_, r) = run(&wjoin("", left, right));
    assert_eq!(r.diagnosis, None);
}

#[test]
fn windows_wait_for_the_final_watermark() {
    let rows = r"u1, 1s\nu1, 6s\nu2, 7s";
    let (sc, r) = run(&agg(1, "{}", false, rows));
    let c = cause(&r, CauseKind::NoFinalWatermark);
    match &c.evidence {
        Evidence::NoFinalWatermark {
            windows, timers, ..
        } => {
            assert_eq!(windows, &vec![[5000, 10000]]);
            assert_eq!(*timers, 2);
        }
        e => panic!("{e:?}"),
    }
    assert_eq!(c.step, Some(r.steps - 1));
    let symptoms: Vec<_> = r
        .diagnosis
        .as_ref()
        .unwrap()
        .symptoms
        .iter()
        .map(|s| s.kind)
        .collect();
    assert!(symptoms.contains(&SymptomKind::StateLeft));
    let r2 = fixed(&sc, &r, CauseKind::NoFinalWatermark);
    assert_eq!(r2.diagnosis, None);
    assert_eq!(r2.windows.len(), 3);
    // The same job with the final watermark: nothing waits.
    let (_, r) = run(&agg(1, "{}", true, rows));
    assert_eq!(r.diagnosis, None);
}

fn ijoin(bounds: &str, left: &str, right: &str) -> String {
    format!(
        r#"{{"job":{{"operator":"interval_join","interval":{bounds}}},
        "streams":[{{"name":"a","columns":["k","ts"],"key":"k","time":"ts","rows":"{left}"}},
                   {{"name":"b","columns":["k","ts"],"key":"k","time":"ts","rows":"{right}"}}]}}"#
    )
}

#[test]
fn keys_that_never_meet() {
    let b = r#"{"lower":"-1s","upper":"1s"}"#;
    let (_, r) = run(&ijoin(b, r"x, 1s\ny, 2s", r"z, 1s\nw, 2s"));
    let c = cause(&r, CauseKind::KeysNeverMeet);
    match &c.evidence {
        Evidence::Keys(k) => assert_eq!((k.common, k.left_rows, k.right_rows), (0, 2, 2)),
        e => panic!("{e:?}"),
    }
    assert!(c.fix.is_none());
    // Partly: x meets, y and w do not, and nothing joins (x's pair is out of bounds).
    let (_, r) = run(&ijoin(b, r"x, 1s\ny, 2s", r"x, 5s\nw, 2s"));
    let c = cause(&r, CauseKind::KeysNeverMeet);
    assert!(c.message.contains("partly"), "{}", c.message);
    assert!(kinds(&r).contains(&CauseKind::BoundsExcludeAll));
    // Same keys, in bounds: no diagnosis.
    let (_, r) = run(&ijoin(b, r"x, 1s\ny, 2s", r"x, 1s\ny, 2s"));
    assert_eq!(r.diagnosis, None);
}

#[test]
fn interval_bounds_that_exclude_every_pair() {
    let b = r#"{"lower":"0s","upper":"1s"}"#;
    let (sc, r) = run(&ijoin(b, r"x, 10s\nx, 20s", r"x, 13s\nx, 40s"));
    let c = cause(&r, CauseKind::BoundsExcludeAll);
    match &c.evidence {
        Evidence::Bounds(e) => {
            assert_eq!((e.left.line, e.right.line, e.miss), (1, 1, 2000));
            assert_eq!(e.pairs, 4);
        }
        e => panic!("{e:?}"),
    }
    assert_eq!(
        c.fix.as_ref().unwrap().patch.get("job.interval.upper"),
        Some(&serde_json::json!("3s"))
    );
    let r2 = fixed(&sc, &r, CauseKind::BoundsExcludeAll);
    assert_eq!(r2.outputs.len(), 1);
    // A negative miss: the right row is before the lower bound.
    let (sc, r) = run(&ijoin(
        r#"{"lower":"1s","upper":"2s","lower_exclusive":true}"#,
        r"x, 10s",
        r"x, 10500",
    ));
    match &cause(&r, CauseKind::BoundsExcludeAll).evidence {
        Evidence::Bounds(e) => assert_eq!(e.miss, 501),
        e => panic!("{e:?}"),
    }
    fixed(&sc, &r, CauseKind::BoundsExcludeAll);
    let (_, r) = run(&ijoin(b, r"x, 10s", r"x, 11s"));
    assert_eq!(r.diagnosis, None);
}

#[test]
fn sql_interval_bounds_that_exclude_every_pair() {
    let json = |sql: &str| {
        format!(
            r#"{{"job":{{"operator":"sql_interval_join","sql":{sql}}},
            "streams":[{{"name":"a","columns":["k","ts"],"key":"k","time":"ts","rows":"x, 10s"}},
                       {{"name":"b","columns":["k","ts"],"key":"k","time":"ts","rows":"x, 4s"}}]}}"#
        )
    };
    // l.t BETWEEN r.t - 1s AND r.t + 2s; l − r = 6 s: misses the upper bound by 4 s.
    let (sc, r) = run(&json(r#"{"lower":"-1s","upper":"2s"}"#));
    let c = cause(&r, CauseKind::BoundsExcludeAll);
    match &c.evidence {
        Evidence::Bounds(e) => assert_eq!(e.miss, 4000),
        e => panic!("{e:?}"),
    }
    let r2 = fixed(&sc, &r, CauseKind::BoundsExcludeAll);
    assert_eq!(r2.outputs.len(), 1);
    let (_, r) = run(&json(r#"{"lower":"-1s","upper":"6s"}"#));
    assert_eq!(r.diagnosis, None);
}

#[test]
fn windows_that_split_every_pair() {
    let tumbling = r#","window":{"size":"10s"}"#;
    let (sc, r) = run(&wjoin(tumbling, r"x, 9500", r"x, 10500"));
    let c = cause(&r, CauseKind::BoundsExcludeAll);
    match &c.evidence {
        Evidence::Bounds(e) => {
            assert_eq!(e.miss, 501);
            assert_eq!(e.missed, "window [0, 10000)");
        }
        e => panic!("{e:?}"),
    }
    let r2 = fixed(&sc, &r, CauseKind::BoundsExcludeAll);
    assert_eq!(r2.outputs.len(), 1);
    // Farther apart than the window size: the size grows.
    let (sc, r) = run(&wjoin(tumbling, r"x, 1s", r"x, 25s"));
    let fix = &cause(&r, CauseKind::BoundsExcludeAll)
        .fix
        .as_ref()
        .unwrap()
        .patch;
    assert!(fix.contains_key("job.window.size"), "{fix:?}");
    assert_eq!(fixed(&sc, &r, CauseKind::BoundsExcludeAll).outputs.len(), 1);
    // Sliding and session windows.
    let sliding = r#","window":{"kind":"sliding","size":"4s","slide":"2s"}"#;
    let (sc, r) = run(&wjoin(sliding, r"x, 1s", r"x, 7s"));
    assert_eq!(fixed(&sc, &r, CauseKind::BoundsExcludeAll).outputs.len(), 1);
    let session = r#","window":{"kind":"session","gap":"2s"}"#;
    let (sc, r) = run(&wjoin(session, r"x, 1s\nx, 2s", r"x, 5s"));
    match &cause(&r, CauseKind::BoundsExcludeAll).evidence {
        Evidence::Bounds(e) => assert_eq!(e.miss, 1001),
        e => panic!("{e:?}"),
    }
    assert_eq!(fixed(&sc, &r, CauseKind::BoundsExcludeAll).outputs.len(), 2);
    let (_, r) = run(&wjoin(tumbling, r"x, 8500", r"x, 9500"));
    assert_eq!(r.diagnosis, None);
}

#[test]
fn late_rows_and_the_watermark_they_lost_to() {
    let rows = r"u1, 1s\nu1, 12s\nu1, 3s";
    let (sc, r) = run(&agg(1, "{}", true, rows));
    let c = cause(&r, CauseKind::LateRows);
    match &c.evidence {
        Evidence::Late(e) => {
            assert_eq!((e.rows, e.max_behind), (1, 11_999 - 3000));
            assert_eq!(e.examples[0].watermark, Watermark(11_999));
            assert_eq!(e.examples[0].origin.as_ref().unwrap().max_ts, Some(12_000));
        }
        e => panic!("{e:?}"),
    }
    assert_eq!(c.step, Some(r.late[0].step));
    let r2 = fixed(&sc, &r, CauseKind::LateRows);
    assert!(r2.late.is_empty());
    // The interval join: a larger delay.
    let b = r#"{"lower":"-1s","upper":"1s"}"#;
    let (sc, r) = run(&ijoin(b, r"x, 1s\nx, 12s\nx, 3s", r"x, 3500"));
    let fix = &cause(&r, CauseKind::LateRows).fix.as_ref().unwrap().patch;
    assert!(fix.contains_key("job.watermark.delay"), "{fix:?}");
    let r2 = fixed(&sc, &r, CauseKind::LateRows);
    assert!(r2.late.is_empty());
    assert_eq!(r2.outputs.len(), 1);
    let (_, r) = run(&agg(1, "{}", true, r"u1, 1s\nu1, 3s\nu1, 12s"));
    assert_eq!(r.diagnosis, None);
}

#[test]
fn split_rows_that_match_no_route() {
    let json = |otherwise: &str| {
        format!(
            r#"{{"job":{{"operator":"split","split":{{"column":"v","routes":[{{"value":"a","to":"main"}}]{otherwise}}}}},
            "streams":[{{"name":"s","columns":["v"],"rows":"a\nb\nc"}}]}}"#
        )
    };
    let (sc, r) = run(&json(""));
    match &cause(&r, CauseKind::UnroutedRows).evidence {
        Evidence::Unrouted { rows, values } => {
            assert_eq!(*rows, 2);
            assert_eq!(values, &vec!["b".to_string(), "c".to_string()]);
        }
        e => panic!("{e:?}"),
    }
    let r2 = fixed(&sc, &r, CauseKind::UnroutedRows);
    assert_eq!(r2.outputs.len(), 3);
    let (_, r) = run(&json(r#","otherwise":"rest""#));
    assert_eq!(r.diagnosis, None);
}

#[test]
fn regular_join_keys_and_an_empty_input() {
    let json = |left: &str, right: &str| {
        format!(
            r#"{{"job":{{"operator":"regular_join"}},
            "streams":[{{"name":"a","columns":["k:int","v"],"key":"k","rows":"{left}"}},
                       {{"name":"b","columns":["k:int","w"],"key":"k","rows":"{right}"}}]}}"#
        )
    };
    let (_, r) = run(&json(r"1, x\n2, y", r"3, z"));
    assert_eq!(kinds(&r), vec![CauseKind::KeysNeverMeet]);
    let (_, r) = run(&json(r"1, x\n2, y", ""));
    assert_eq!(kinds(&r), vec![CauseKind::EmptyInput]);
    let (_, r) = run(&json(r"1, x\n2, y", r"2, z"));
    assert_eq!(r.diagnosis, None);
}

#[test]
fn the_lean_and_the_traced_result_agree() {
    let wm = r#"{"per_event":false,"interval":"200ms"}"#;
    let sc = Scenario::from_json(&agg(2, wm, true, STALLED)).unwrap();
    let lean = crate::run(&sc, false).unwrap();
    let traced = crate::run(&sc, true).unwrap();
    assert!(lean.diagnosis.is_some());
    assert_eq!(lean.diagnosis, traced.diagnosis);
    // The evidence's steps are the trace's: the idle assigner's last row arrives there.
    let c = cause(&traced, CauseKind::IdleAssigner);
    let step = &traced.trace.as_ref().unwrap()[c.step.unwrap()];
    assert!(matches!(step.cause, crate::trace::Cause::Row { row, .. } if row == RowId(0)));
}

#[test]
fn patches_apply_to_the_scenario_document() {
    let sc = Scenario::from_json(&wjoin("", "x, 1", "x, 2")).unwrap();
    let fix = Fix {
        patch: BTreeMap::from([
            (
                "streams.1.watermark.idle_timeout".to_string(),
                serde_json::json!("5s"),
            ),
            ("job.final_watermark".to_string(), serde_json::json!(false)),
        ]),
        message: String::new(),
    };
    let sc2 = apply_fix(&sc, &fix).unwrap();
    assert_eq!(
        sc2.streams[1].watermark.as_ref().unwrap().idle_timeout,
        Some(crate::time::Millis(5000))
    );
    assert!(!sc2.job.final_watermark);
    let bad = Fix {
        patch: BTreeMap::from([("streams.7.rows".to_string(), serde_json::json!(""))]),
        message: String::new(),
    };
    assert!(apply_fix(&sc, &bad).is_err());
}

#[test]
fn nice_values() {
    assert_eq!(
        [0, 1, 3, 7, 19, 99, 100, 4999, 9700].map(nice_floor),
        [1, 1, 2, 5, 10, 50, 100, 2000, 5000]
    );
}
