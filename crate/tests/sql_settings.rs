//! The SQL settings that change results: how `table.exec.source.idle-timeout` and the table
//! option `scan.watermark.idle-timeout` reach the sources' watermark generators
//! (`WatermarkPushDownSpec.calculateIdleTimeoutMillis`).

use joinlab::plan::{build, Limits};
use joinlab::scenario::Scenario;
use serde_json::json;

fn idle_timeouts(settings: serde_json::Value, table: [Option<&str>; 2]) -> Vec<Option<i64>> {
    let mut streams = Vec::new();
    for (i, t) in table.iter().enumerate() {
        let mut s = json!({ "name": format!("s{i}"), "columns": ["k", "ts"], "key": "k", "time": "ts",
                            "rows": "a, 1" });
        if let Some(t) = t {
            s["scan_watermark_idle_timeout"] = json!(t);
        }
        streams.push(s);
    }
    let sc = json!({
        "job": { "operator": "sql_interval_join", "watermark": { "interval": "200ms" },
                 "settings": settings },
        "streams": streams
    });
    let sc = Scenario::from_json(&sc.to_string()).unwrap();
    let plan = build(&sc, Limits::default()).unwrap();
    plan.generators.iter().map(|g| g.idle_timeout).collect()
}

#[test]
fn the_table_option_overrides_the_global_setting() {
    assert_eq!(idle_timeouts(json!({}), [None, None]), [None, None]);
    assert_eq!(
        idle_timeouts(json!({ "source_idle_timeout": "1s" }), [None, None]),
        [Some(1000), Some(1000)]
    );
    assert_eq!(
        idle_timeouts(
            json!({ "source_idle_timeout": "1s" }),
            [Some("300ms"), Some("0")]
        ),
        [Some(300), None]
    );
    assert_eq!(
        idle_timeouts(json!({}), [Some("2s"), None]),
        [Some(2000), None]
    );
}

#[test]
fn negative_settings_are_rejected_with_their_field() {
    let sc = json!({
        "job": { "operator": "regular_join", "settings": { "state_ttl": "-1s" } },
        "streams": [
            { "name": "l", "columns": ["k"], "key": "k", "rows": "1" },
            { "name": "r", "columns": ["k"], "key": "k", "rows": "1" }
        ]
    });
    let e = joinlab::run_json(&sc.to_string(), false)
        .unwrap_err()
        .to_string();
    assert!(e.contains("job.settings.state_ttl"), "{e}");
}
