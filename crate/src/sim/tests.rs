use super::*;
use crate::parse::RowKind;
use crate::plan::{build, Limits};
use crate::scenario::Scenario;
use crate::timers::Timer;
use crate::trace::StateEntry;

/// A probe operator: registers an event-time timer at each row's timestamp and emits the
/// row when it fires, so outputs show exactly when each subtask's watermark passed it.
struct Probe;

impl Operator for Probe {
    type Ns = RowId;
    fn new(_plan: &Plan, _subtask: SubtaskIndex) -> Self {
        Probe
    }
    fn process_element(&mut self, cx: &mut Ctx<'_, RowId>, _side: Side, row: RowId) {
        let r = cx.plan.row(row);
        cx.register_event_timer(r.key, r.ts.unwrap_or(0), row);
    }
    fn on_event_time(&mut self, cx: &mut Ctx<'_, RowId>, timer: Timer<KeyId, RowId>) {
        let w = cx.watermark;
        cx.emit(
            Some(timer.namespace),
            None,
            Some(w.0),
            RowKind::Insert,
            None,
        );
    }
    fn describe_timer(ns: &RowId) -> String {
        format!("row {}", ns.0)
    }
    fn state(&self) -> Vec<StateEntry> {
        Vec::new()
    }
    fn is_empty(&self) -> bool {
        true
    }
}

fn traced(p: &Plan) -> RunOutput {
    simulate::<Probe>(
        p,
        &RunOptions {
            trace: true,
            ..RunOptions::default()
        },
    )
    .unwrap()
}

fn plan(json: &str) -> Plan {
    build(&Scenario::from_json(json).unwrap(), Limits::default()).unwrap()
}

/// (row line, step, watermark at firing) for each firing.
fn firings(p: &Plan) -> Vec<(u32, usize, i64)> {
    let out = traced(p);
    out.sink
        .outputs
        .iter()
        .map(|o| {
            (
                p.row(o.left.unwrap()).line,
                o.step(),
                o.timestamp().unwrap(),
            )
        })
        .collect()
}

#[test]
fn minimum_over_channels_holds_back_until_every_subtask_advanced() {
    // Seed 003: parallelism 2, round robin; the first row reaches assigner 0 only.
    let p = plan(
        r#"{"job":{"operator":"interval_join","parallelism":2,"watermark":{"delay":"2s"}},
        "streams":[{"name":"a","columns":["k","ts"],"key":"k","time":"ts","rows":"x, 199s\nx, 203s\nx, 203s\nx, 210s"},
                   {"name":"b","columns":["k","ts"],"key":"k","time":"ts","rows":"x, 0 | s=0\nx, 0 | s=1"}]}"#,
    );
    let f = firings(&p);
    // b's rows come first (ts 0): b's watermark stays at -1 until end of input, so
    // nothing fires before the final watermark.
    assert!(f.iter().all(|(_, _, w)| *w == i64::MAX), "{f:?}");
    let p = plan(
        r#"{"job":{"operator":"window_aggregate","parallelism":2,"watermark":{"delay":"2s"}},
        "streams":[{"name":"a","columns":["k","ts"],"key":"k","time":"ts","rows":"x, 199000\nx, 203000\nx, 203000\nx, 210000"}]}"#,
    );
    let out = traced(&p);
    let wms: Vec<(usize, Watermark)> = out
        .steps
        .iter()
        .flat_map(|s| {
            s.events.iter().filter_map(move |e| match e {
                Event::OperatorWatermark {
                    subtask, watermark, ..
                } if subtask.0 == 0 => Some((s.index, *watermark)),
                _ => None,
            })
        })
        .collect();
    // Row 1 → assigner 0 (197000), row 2 → assigner 1 (201000): min 197000 after step 1;
    // row 3 → assigner 0 (201000): 201000; row 4 → assigner 1 (208000): min 201000, no change.
    assert_eq!(
        wms,
        vec![
            (1, Watermark(196_999)),
            (2, Watermark(200_999)),
            (4, Watermark::MAX)
        ]
    );
    // The 199000 timer fires at the first watermark ≥ 199000, i.e. 200999 in step 2.
    let f: Vec<_> = out
        .sink
        .outputs
        .iter()
        .map(|o| {
            (
                p.row(o.left.unwrap()).line,
                o.step(),
                o.timestamp().unwrap(),
            )
        })
        .collect();
    assert_eq!(f[0], (1, 2, 200_999));
}

#[test]
fn two_inputs_take_the_minimum_and_end_of_input_is_one_jump() {
    let p = plan(
        r#"{"job":{"operator":"interval_join"},
        "streams":[{"name":"a","columns":["k","ts"],"key":"k","time":"ts","rows":"x, 10\nx, 30\nx, 31"},
                   {"name":"b","columns":["k","ts"],"key":"k","time":"ts","rows":"x, 20"}]}"#,
    );
    let f = firings(&p);
    // Arrival by time: a10, b20, a30, a31. After b20: min(9, 19) = 9 → timer 10 not yet.
    // After a30: min(29, 19) = 19 → fires 10. a31: min(30, 19) unchanged. End: MAX fires
    // 20, 30, 31 in heap order.
    assert_eq!(f[0], (1, 2, 19));
    assert_eq!(f.len(), 4);
    assert!(
        f[1..]
            .iter()
            .all(|(_, step, w)| *w == i64::MAX && *step == 4),
        "{f:?}"
    );
    let lines: Vec<u32> = f[1..].iter().map(|x| x.0).collect();
    assert_eq!(lines, vec![1, 2, 3]); // b:1 (ts 20), a:2 (30), a:3 (31)
}

#[test]
fn an_idle_assigner_stops_holding_back_the_watermark() {
    // Assigner 1 of stream a gets one early row and then nothing: with idleness it is
    // excluded and the watermark follows assigner 0.
    let json = |idle: &str| {
        format!(
            r#"{{"job":{{"operator":"window_aggregate","parallelism":2,"watermark":{{"per_event":false,"interval":100{idle}}}}},
            "streams":[{{"name":"a","columns":["k","ts"],"key":"k","time":"ts","rows":"x, 1000 | s=1\nx, 1100 | s=0\nx, 2000 | s=0\nx, 3000 | s=0\nx, 4000 | s=0"}}]}}"#
        )
    };
    let without = plan(&json(""));
    let f = firings(&without);
    // Without idleness assigner 1 stays at 999: rows above 999 fire only at the end.
    assert!(
        f.iter().filter(|x| x.0 > 1).all(|x| x.2 == i64::MAX),
        "{f:?}"
    );
    let with = plan(&json(r#","idle_timeout":500"#));
    let f = firings(&with);
    assert!(
        f.iter().any(|x| x.0 == 2 && x.2 < i64::MAX),
        "row at 1100 fires before the end once assigner 1 is idle: {f:?}"
    );
}

#[test]
fn periodic_emission_happens_at_multiples_of_the_interval() {
    let p = plan(
        r#"{"job":{"operator":"window_aggregate","watermark":{"per_event":false,"interval":200}},
        "streams":[{"name":"a","columns":["k","ts"],"key":"k","time":"ts","rows":"x, 100\nx, 150\nx, 450"}]}"#,
    );
    let out = traced(&p);
    let periodic: Vec<i64> = out
        .steps
        .iter()
        .filter_map(|s| match s.cause {
            Cause::PeriodicEmit { processing_time } => Some(processing_time),
            _ => None,
        })
        .collect();
    // Tick 200 emits 149; tick 400 has nothing new (max still 150); tick 600 is after the
    // last arrival (450) and never happens before end of input.
    assert_eq!(periodic, vec![200]);
}

/// (step, stream, assigner, candidate, last) of every `AssignerHeld` event.
fn held(p: &Plan) -> Vec<(usize, Side, u32, i64, i64)> {
    traced(p)
        .steps
        .iter()
        .flat_map(|s| {
            s.events.iter().filter_map(move |e| match e {
                Event::AssignerHeld {
                    stream,
                    assigner,
                    candidate,
                    last,
                } => Some((s.index, *stream, *assigner, candidate.0, last.0)),
                _ => None,
            })
        })
        .collect()
}

#[test]
fn a_watermark_not_above_the_last_one_is_held_and_traced() {
    // Per event, delay 1 s: 5000 → 3999 forwarded; 3000 leaves the max at 5000, so the
    // generator computes 3999 again (BoundedOutOfOrdernessWatermarks: maxTs − delay − 1),
    // held (not above 3999); 5000 again → 3999 held; 7000 → 5999 forwarded.
    let p = plan(
        r#"{"job":{"operator":"window_aggregate","watermark":{"delay":"1s"}},
        "streams":[{"name":"a","columns":["k","ts"],"key":"k","time":"ts","rows":"x, 5000\nx, 3000 | a=5000\nx, 5000\nx, 7000"}]}"#,
    );
    assert_eq!(
        held(&p),
        vec![
            (1, Side::Left, 0, 3999, 3999),
            (2, Side::Left, 0, 3999, 3999)
        ]
    );
    // A `WM` row below the last watermark is held too.
    let p = plan(
        r#"{"job":{"operator":"window_aggregate","watermark":{"strategy":"punctuated"}},
        "streams":[{"name":"a","columns":["k","ts"],"key":"k","time":"ts","rows":"WM 10\nx, 5\nWM 7"}]}"#,
    );
    assert_eq!(held(&p), vec![(2, Side::Left, 0, 7, 10)]);
    // Periodic: at the 400 tick assigner 0 forwards 1499 while assigner 1's candidate
    // (999, from its only row) is not above what it sent at the 200 tick.
    let p = plan(
        r#"{"job":{"operator":"window_aggregate","parallelism":2,"watermark":{"per_event":false,"interval":200}},
        "streams":[{"name":"a","columns":["k","ts"],"key":"k","time":"ts","rows":"x, 100 | s=0, a=100\nx, 1000 | s=1, a=100\nx, 1500 | s=0, a=300\nx, 1600 | s=0, a=500"}]}"#,
    );
    let h = held(&p);
    assert!(
        h.iter()
            .any(|x| x.1 == Side::Left && x.2 == 1 && x.3 == 999 && x.4 == 999),
        "{h:?}"
    );
    // Untraced runs record no events at all.
    let out = simulate::<Probe>(&p, &RunOptions::default()).unwrap();
    assert!(out.steps.is_empty() && out.sink.events.is_empty());
}
