#[cfg(test)]
mod operator_tests {
    use super::super::super::tvf_slicing::Slicer;
    use crate::scenario::{Scenario, TvfKind, TvfSpec};
    use crate::time::Millis;
    use std::collections::BTreeMap;

    /// (window start, window end, key) → (COUNT(*), SUM(v)) from the engine's value rows.
    type Table = BTreeMap<(String, String, String), (i64, i64)>;

    fn run(sc: &Scenario) -> (Table, usize) {
        let r = crate::run(sc, false).unwrap();
        let mut t = Table::new();
        for o in &r.outputs {
            let v = serde_json::to_value(o.values.as_ref().unwrap()).unwrap();
            let key = (
                v[0].as_str().unwrap().to_string(),
                v[1].as_str().unwrap().to_string(),
                v[2].to_string(),
            );
            assert!(t
                .insert(key, (v[3].as_i64().unwrap(), v[4].as_i64().unwrap()))
                .is_none());
        }
        (t, r.late.len())
    }

    fn scenario(tvf: TvfSpec, parallelism: u32, rows: &[(u32, i64, i64)]) -> Scenario {
        let text: String = rows
            .iter()
            .map(|(k, v, ts)| format!("k{k}, {v}, {ts}\n"))
            .collect();
        let json = serde_json::json!({
            "job": {"operator": "window_tvf_aggregate", "parallelism": parallelism,
                    "watermark": {"strategy": "monotonous"},
                    "group": {"keys": ["k"], "aggregates": [{"func": "count"}, {"func": "sum", "column": "v"}]}},
            "streams": [{"name": "t", "columns": ["k", "v:bigint", "ts:bigint"], "key": "k", "time": "ts", "rows": text}]
        });
        let mut sc: Scenario = serde_json::from_value(json).unwrap();
        sc.job.tvf = tvf;
        sc
    }

    /// What the TVF + GROUP BY compute, by brute force over all rows.
    fn reference(tvf: &TvfSpec, rows: &[(u32, i64, i64)]) -> Table {
        let ts = |ms: i64| crate::operators::SqlValue::timestamp_text(ms);
        let mut t = Table::new();
        let mut add = |s: i64, e: i64, k: u32, v: i64| {
            let e2 = t
                .entry((ts(s), ts(e), format!("\"k{k}\"")))
                .or_insert((0, 0));
            e2.0 += 1;
            e2.1 += v;
        };
        match Slicer::of(tvf) {
            Some(sl) => {
                for &(k, v, time) in rows {
                    for (s, e) in sl.windows_of(time) {
                        add(s, e, k, v);
                    }
                }
            }
            None => {
                let gap = tvf.gap.unwrap().0;
                let mut by_key: BTreeMap<u32, Vec<(i64, i64)>> = BTreeMap::new();
                for &(k, v, time) in rows {
                    by_key.entry(k).or_default().push((time, v));
                }
                for (k, mut list) in by_key {
                    list.sort();
                    let mut i = 0;
                    while i < list.len() {
                        let (start, mut end, mut j) = (list[i].0, list[i].0 + gap, i);
                        while j + 1 < list.len() && list[j + 1].0 <= end {
                            j += 1;
                            end = end.max(list[j].0 + gap);
                        }
                        for &(_, v) in &list[i..=j] {
                            add(start, end, k, v);
                        }
                        i = j + 1;
                    }
                }
            }
        }
        t
    }

    /// In-order rows (monotonous watermarks: nothing is late) give exactly the brute-force
    /// windows, for every TVF, parallelism and offset.
    #[test]
    fn in_order_rows_give_the_brute_force_windows() {
        let mut seed = 7u64;
        let mut next = |n: i64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as i64).rem_euclid(n)
        };
        for case in 0..200 {
            let kind = [
                TvfKind::Tumble,
                TvfKind::Hop,
                TvfKind::Cumulate,
                TvfKind::Session,
            ][case % 4];
            let unit = 100 * (1 + next(5));
            let mut tvf = TvfSpec {
                kind,
                size: Millis(unit * (2 + next(4))),
                ..TvfSpec::default()
            };
            match kind {
                TvfKind::Hop => tvf.slide = Some(Millis(tvf.size.0 / [1, 2][next(2) as usize])),
                TvfKind::Cumulate => tvf.step = Some(Millis(tvf.size.0 / [1, 2][next(2) as usize])),
                TvfKind::Session => tvf.gap = Some(Millis(unit * (1 + next(3)))),
                TvfKind::Tumble => {}
            }
            if kind != TvfKind::Session && next(3) == 0 {
                tvf.offset = Millis(next(tvf.size.0));
            }
            // Positive times: the local aggregate ignores watermarks <= 0 (see
            // `local_aggregate_ignores_watermarks_up_to_zero`).
            let mut t = unit + next(6 * unit);
            let rows: Vec<(u32, i64, i64)> = (0..2 + next(20))
                .map(|_| {
                    t += next(unit);
                    (next(4) as u32, next(10) - 2, t)
                })
                .collect();
            let sc = scenario(tvf.clone(), 1 + next(4) as u32, &rows);
            let (got, late) = run(&sc);
            assert_eq!(late, 0, "case {case}: {}", sc.to_compact_json());
            assert_eq!(got, reference(&tvf, &rows), "case {case}: {tvf:?} {rows:?}");
        }
    }

    #[test]
    fn avg_of_int_is_int_and_types_follow_the_column() {
        let json = r#"{"job": {"operator": "window_tvf_aggregate", "tvf": {"kind": "tumble", "size": 10},
            "group": {"aggregates": [{"func": "avg", "column": "i"}, {"func": "avg", "column": "d"},
                                     {"func": "sum", "column": "i"}, {"func": "count", "column": "i"},
                                     {"func": "min", "column": "s"}, {"func": "count", "column": "s", "distinct": true}]}},
            "streams": [{"name": "t", "columns": ["i:int", "d:double", "s", "ts"], "time": "ts",
                         "rows": "1, 1.0, b, 1\n2, 2.0, a, 2\nnull, null, b, 3\n2147483647, 0.5, null, 4"}]}"#;
        let r = crate::run_json(json, false).unwrap();
        assert_eq!(
            r.columns[2..],
            ["EXPR$2", "EXPR$3", "EXPR$4", "EXPR$5", "EXPR$6", "EXPR$7"]
        );
        let v = serde_json::to_string(r.outputs[0].values.as_ref().unwrap()).unwrap();
        // AVG(INT) = (1 + 2 + 2147483647) / 3 in BIGINT, cast to INT; SUM(INT) wraps.
        assert_eq!(
            v,
            r#"["1970-01-01 00:00:00.000","1970-01-01 00:00:00.010",715827883,1.1666666666666667,-2147483646,3,"a",2]"#
        );
    }

    #[test]
    fn grouping_sets_and_other_keys_are_refused_with_the_field() {
        let json = r#"{"job": {"operator": "window_tvf_aggregate", "tvf": {"kind": "hop", "size": 10, "slide": 3},
            "group": {"aggregates": [{"func": "count"}]}},
            "streams": [{"name": "t", "columns": ["k", "ts"], "time": "ts", "rows": "a, 1"}]}"#;
        let e = crate::run_json(json, false).unwrap_err().to_string();
        assert!(
            e.contains("job.tvf.slide") && e.contains("integral multiple"),
            "{e}"
        );
        let json = json
            .replace(r#""slide": 3"#, r#""slide": 5"#)
            .replace(r#""aggregates""#, r#""keys": ["x"], "aggregates""#);
        let e = crate::run_json(&json, false).unwrap_err().to_string();
        assert!(e.contains("job.group.keys"), "{e}");
    }
}

#[cfg(test)]
mod local_tests {
    /// `LocalSlicingWindowAggOperator.currentWatermark` starts at 0 (a field `open()` never
    /// sets), so a local aggregate ignores watermarks <= 0 and flushes nothing on them, while
    /// still forwarding them: an in-order row at ts -649 waits in the local buffer while the
    /// global watermark reaches 0 and fires its last window [-1000, 0); when the local flushes
    /// at its first positive watermark, the row is late there.
    #[test]
    fn local_aggregate_ignores_watermarks_up_to_zero() {
        let json = r#"{"job":{"operator":"window_tvf_aggregate","parallelism":2,"watermark":{"strategy":"monotonous"},
            "tvf":{"kind":"hop","size":1000,"slide":500},"group":{"keys":["k"],"aggregates":[{"func":"count"}]}},
            "streams":[{"name":"t","columns":["k","ts:bigint"],"key":"k","time":"ts",
            "rows":"k0, -878\nk0, -649\nk2, -259\nk2, 1\nk3, 349\nk0, 514"}]}"#;
        let r = crate::run_json(json, false).unwrap();
        assert_eq!(r.late.len(), 1);
        assert_eq!(r.late[0].row.line, 2);
        assert_eq!(r.late[0].step, 5);
    }
}

#[cfg(test)]
mod key_tests {
    use crate::javahash::sql_key_hash;
    use crate::value::Value;

    /// GROUP BY two columns: one group per pair, keyed (and so routed) by the BinaryRowData of
    /// both values, and both values in the output.
    #[test]
    fn group_by_two_columns() {
        let json = r#"{"job": {"operator": "window_tvf_aggregate", "parallelism": 4, "tvf": {"kind": "tumble", "size": 10},
            "group": {"keys": ["k", "n"], "aggregates": [{"func": "count"}]}},
            "streams": [{"name": "t", "columns": ["k", "n:int", "ts"], "key": "k", "time": "ts",
                         "rows": "a, 1, 1\na, 2, 2\na, 1, 3\nb, 1, 4"}]}"#;
        let r = crate::run_json(json, false).unwrap();
        assert_eq!(
            r.columns,
            ["window_start", "window_end", "k", "n", "EXPR$4"]
        );
        let mut got: Vec<String> = r
            .outputs
            .iter()
            .map(|o| serde_json::to_string(&o.values.as_ref().unwrap()[2..]).unwrap())
            .collect();
        got.sort();
        assert_eq!(got, [r#"["a",1,2]"#, r#"["a",2,1]"#, r#"["b",1,1]"#]);
        let plan = crate::plan::build(
            &crate::scenario::Scenario::from_json(json).unwrap(),
            crate::plan::Limits::default(),
        )
        .unwrap();
        let k = &plan.keys[plan.rows[1].key.0 as usize];
        assert_eq!(k.value, Value::Str("(\"a\", 2)".into()));
        assert_eq!(
            k.hash,
            sql_key_hash(&[Value::Str("a".into()), Value::Int(2)])
        );
    }
}

#[cfg(test)]
mod grouping_tests {
    use super::super::super::tvf_slicing::Slicer;
    use crate::scenario::{Scenario, TvfKind, TvfSpec};
    use crate::time::Millis;
    use std::collections::BTreeMap;

    /// (window start, window end, k, k2) → COUNT(*), from the value rows.
    type Table = BTreeMap<(String, String, String, String), i64>;

    /// In-order rows: GROUPING SETS give, for every set, the windows of a plain GROUP BY of
    /// the set's columns with the other grouping columns null (brute force), and each copy is
    /// emitted on the subtask of the key (k or null, k2 or null, $e).
    #[test]
    fn grouping_sets_give_one_plain_aggregation_per_set() {
        let mut seed = 11u64;
        let mut next = |n: i64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as i64).rem_euclid(n)
        };
        let choices: [&[&[&str]]; 5] = [
            &[&["k"], &[]],
            &[&["k", "k2"], &["k"], &[]],
            &[&["k", "k2"], &["k"], &["k2"], &[]],
            &[&["k"], &["k2"]],
            &[&["k", "k2"], &["k2"]],
        ];
        for case in 0..120 {
            let sets: Vec<Vec<String>> = choices[case % 5]
                .iter()
                .map(|s| s.iter().map(|c| c.to_string()).collect())
                .collect();
            let kind = [TvfKind::Tumble, TvfKind::Hop, TvfKind::Cumulate][case % 3];
            let unit = 100 * (1 + next(3));
            let mut tvf = TvfSpec {
                kind,
                size: Millis(unit * (2 + next(3))),
                ..TvfSpec::default()
            };
            match kind {
                TvfKind::Hop => tvf.slide = Some(Millis(tvf.size.0)),
                TvfKind::Cumulate => tvf.step = Some(Millis(tvf.size.0)),
                _ => {}
            }
            let mut t = unit;
            let rows: Vec<(i64, i64, i64)> = (0..2 + next(15))
                .map(|_| {
                    t += next(unit);
                    (next(3), next(2), t)
                })
                .collect();
            let text: String = rows
                .iter()
                .map(|(k, k2, ts)| format!("k{k}, {k2}, {ts}\n"))
                .collect();
            let json = serde_json::json!({
                "job": {"operator": "window_tvf_aggregate", "parallelism": 1 + next(4),
                        "watermark": {"strategy": "monotonous"},
                        "group": {"keys": crate::grouping_sets::keys_of(&sets), "grouping_sets": sets,
                                  "aggregates": [{"func": "count"}]}},
                "streams": [{"name": "t", "columns": ["k", "k2:int", "ts:bigint"], "key": "k", "time": "ts", "rows": text}]
            });
            let mut sc: Scenario = serde_json::from_value(json).unwrap();
            sc.job.tvf = tvf.clone();
            let r = crate::run(&sc, false).unwrap();
            let plan = crate::plan::build(&sc, crate::plan::Limits::default()).unwrap();
            let keys = &sc.job.group.keys;
            let mut got = Table::new();
            for o in &r.outputs {
                let v = serde_json::to_value(o.values.as_ref().unwrap()).unwrap();
                let col = |name: &str| {
                    keys.iter()
                        .position(|k| k == name)
                        .map_or("null".to_string(), |i| v[2 + i].to_string())
                };
                let key = (
                    v[0].as_str().unwrap().to_string(),
                    v[1].as_str().unwrap().to_string(),
                    col("k"),
                    col("k2"),
                );
                let n = v[2 + keys.len()].as_i64().unwrap();
                assert!(
                    got.insert(key, n).is_none(),
                    "case {case}: one row per group"
                );
                // The subtask is the one of the copy's key: (values with nulls…, $e).
                let mut kv: Vec<crate::value::Value> = Vec::new();
                for i in 0..keys.len() {
                    kv.push(match &v[2 + i] {
                        serde_json::Value::Null => crate::value::Value::Null,
                        serde_json::Value::String(s) => crate::value::Value::Str(s.as_str().into()),
                        x => crate::value::Value::Int(x.as_i64().unwrap() as i32),
                    });
                }
                let kept: Vec<bool> = (0..keys.len()).map(|i| !v[2 + i].is_null()).collect();
                let e = crate::grouping_sets::expand_id(&kept);
                let ex = plan.expand.as_ref().unwrap();
                if ex.sets.iter().any(|s| s.expand_id == e) {
                    kv.push(crate::value::Value::Long(e));
                    let h = crate::javahash::sql_key_hash(&kv);
                    let kg = crate::partition::key_group_for_hash(h, plan.max_parallelism);
                    let sub = crate::partition::subtask_for_key_group(
                        plan.max_parallelism,
                        plan.operator_parallelism,
                        kg,
                    );
                    assert_eq!(o.subtask, sub, "case {case}");
                }
            }
            let sl = Slicer::of(&tvf).unwrap();
            let ts = |ms: i64| crate::operators::SqlValue::timestamp_text(ms);
            let mut want = Table::new();
            for &(k, k2, time) in &rows {
                for (s, e) in sl.windows_of(time) {
                    for set in &sets {
                        let a = if set.contains(&"k".to_string()) {
                            format!("\"k{k}\"")
                        } else {
                            "null".into()
                        };
                        let b = if set.contains(&"k2".to_string()) {
                            k2.to_string()
                        } else {
                            "null".into()
                        };
                        *want.entry((ts(s), ts(e), a, b)).or_insert(0) += 1;
                    }
                }
            }
            assert_eq!(got, want, "case {case}: {}", sc.to_compact_json());
        }
    }

    #[test]
    fn session_grouping_sets_and_duplicate_sets_are_refused() {
        let json = r#"{"job": {"operator": "window_tvf_aggregate", "tvf": {"kind": "session", "gap": 10},
            "group": {"keys": ["k"], "grouping_sets": [["k"], []], "aggregates": [{"func": "count"}]}},
            "streams": [{"name": "t", "columns": ["k", "ts"], "key": "k", "time": "ts", "rows": "a, 1"}]}"#;
        let e = crate::run_json(json, false).unwrap_err().to_string();
        assert!(
            e.contains("job.group.grouping_sets") && e.contains("GroupAggregate"),
            "{e}"
        );
        let json = json
            .replace(
                r#""kind": "session", "gap": 10"#,
                r#""kind": "tumble", "size": 10"#,
            )
            .replace(r#"[["k"], []]"#, r#"[["k"], ["k"], []]"#);
        let e = crate::run_json(&json, false).unwrap_err().to_string();
        assert!(e.contains("written twice"), "{e}");
    }

    /// The script reader crosses the GROUP BY items as Calcite does and keeps the columns in
    /// order of first appearance; the printer writes the sets back (round trip).
    #[test]
    fn scripts_read_rollup_cube_and_mixed_keys_as_their_sets() {
        let script = |group: &str, select: &str| {
            format!(
                "CREATE TABLE bid (supplier_id STRING, item STRING, price INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts);\n\
                 INSERT INTO bid VALUES ('s1', 'A', 1, TIMESTAMP '1970-01-01 00:00:01');\n\
                 SELECT window_start, window_end, {select}, COUNT(*) FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, {group};"
            )
        };
        let sets = |sc: &Scenario| sc.job.group.grouping_sets.clone().unwrap();
        let s = |v: &[&[&str]]| -> Vec<Vec<String>> {
            v.iter()
                .map(|x| x.iter().map(|c| c.to_string()).collect())
                .collect()
        };
        let sc =
            crate::sql::sql_to_scenario(&script("ROLLUP (supplier_id, item)", "supplier_id, item"))
                .unwrap();
        assert_eq!(
            sets(&sc),
            s(&[&["supplier_id", "item"], &["supplier_id"], &[]])
        );
        let sc =
            crate::sql::sql_to_scenario(&script("CUBE (item, supplier_id)", "item, supplier_id"))
                .unwrap();
        assert_eq!(
            sets(&sc),
            s(&[&["item", "supplier_id"], &["item"], &["supplier_id"], &[]])
        );
        assert_eq!(sc.job.group.keys, ["item", "supplier_id"]);
        // k, ROLLUP (item) = GROUPING SETS ((k, item), (k)).
        let sc =
            crate::sql::sql_to_scenario(&script("supplier_id, ROLLUP (item)", "supplier_id, item"))
                .unwrap();
        assert_eq!(sets(&sc), s(&[&["supplier_id", "item"], &["supplier_id"]]));
        assert_eq!(sc.streams[0].key.as_deref(), Some("supplier_id"));
        let r = crate::run(&sc, false).unwrap();
        assert_eq!(r.outputs.len(), 2);
        // Printed and read back: the same job.
        let text = crate::sql::scenario_to_sql(&sc).unwrap();
        let back = crate::sql::sql_to_scenario(&text).unwrap();
        assert_eq!(back.job.group, sc.job.group);
        // Duplicate sets: Flink plans a Union; refused at the GROUP BY.
        let e = crate::sql::sql_to_scenario(&script(
            "GROUPING SETS ((supplier_id), (supplier_id), ())",
            "supplier_id",
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains("written twice"), "{e}");
    }
}

mod session_window_tests {
    use crate::javamap::{JavaHash, JavaHashMap};
    use crate::operators::session_tvf::TableWin;
    use crate::operators::window::Win;

    /// `org.apache.flink.table.runtime.operators.window.TimeWindow.of(s, e).hashCode()` printed
    /// by Flink 2.3.0 (a small Java program against flink-table-runtime-2.3.0.jar).
    #[test]
    fn table_time_window_hash_is_flinks() {
        let cases: [(i64, i64, i32); 7] = [
            (0, 1000, 1575465265),
            (5750, 9000, -1834559193),
            (8000, 9000, -1834556943),
            (-3750, -2750, 2114285479),
            (1500, 2750, -1883975247),
            (123456789, 987654321, 1917257056),
            (-9000, 1000, 1575456265),
        ];
        for (start, end, want) in cases {
            assert_eq!(
                TableWin(Win { start, end }).java_hash(),
                want,
                "[{start}, {end})"
            );
        }
    }

    /// A `java.util.HashSet` of [7500, 8500), [5750, 7500), [8000, 9000) (inserted in that
    /// order) iterates as Java 17 printed it.
    #[test]
    fn merged_windows_iterate_as_a_java_hash_set() {
        let mut set: JavaHashMap<TableWin, ()> = JavaHashMap::new();
        for (start, end) in [(7500, 8500), (5750, 7500), (8000, 9000)] {
            set.insert(TableWin(Win { start, end }), ());
        }
        let order: Vec<(i64, i64)> = set.keys().map(|w| (w.0.start, w.0.end)).collect();
        assert_eq!(order, vec![(5750, 7500), (8000, 9000), (7500, 8500)]);
    }
}
