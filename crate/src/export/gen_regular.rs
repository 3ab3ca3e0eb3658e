//! Random regular-join scenarios with primary keys, upserts and state TTL, for the conformance
//! suite (`joinlab gen --operator regular_join --seed S --count N --out DIR`).
//!
//! Each input is a changelog: without a primary key, inserts, `-U`/`+U` pairs and deletes of
//! stored rows (now and then a retraction of a row never inserted); with one (the join key, an
//! id that is not the join key, or both), upserts: inserts of new ids, bare `+U` replacing the
//! row of an id (sometimes moving it to another join key), `-U`/`+U` pairs, deletes (sometimes
//! with stale values), repeated inserts of a live id. Join type INNER / LEFT / RIGHT / FULL,
//! parallelism 1–4, one to four keys of int or string type.
//!
//! Half of the scenarios set a state TTL (`table.exec.state.ttl` and/or `STATE_TTL` hints).
//! Real Flink stamps state with the wall clock, so those scenarios put every arrival on a grid
//! of [`GRID`] ms and every TTL half a grid step off it: the gap between two rows is then never
//! closer than [`GRID`]` / 2` to a TTL, far more than the pacer's timing jitter
//! ([`super::TTL_MARGIN_MS`] is what the conformance check requires).

use super::gen::Rng;
use crate::scenario::StreamSpec;
use crate::scenario::{ArrivalOrder, Job, JoinType, OperatorKind, Scenario, SqlSettings, SqlSpec};
use crate::time::Millis;
use std::collections::BTreeMap;

/// Arrival grid of TTL scenarios (ms).
pub const GRID: i64 = 600;

#[derive(Clone, Copy, PartialEq)]
enum Pk {
    None,
    /// The join key (`JoinKeyContainsUniqueKey`).
    JoinKey,
    /// An id column (`InputSideHasUniqueKey`).
    Id,
    /// Id and join key (`InputSideHasUniqueKey` on two columns).
    IdAndKey,
}

/// Scenario number `index` of the run seeded with `seed`.
pub fn scenario(seed: u64, index: usize) -> Scenario {
    let mut g = Rng::new(seed ^ 0x7e61_a9b1, index);
    let parallelism = *g.pick(&[1u32, 1, 2, 2, 3, 4]);
    let join = *g.pick(&[
        JoinType::Inner,
        JoinType::Left,
        JoinType::Right,
        JoinType::Full,
    ]);
    let keys = g.range(1, 4);
    let str_keys = g.chance(40);
    let key_col = if str_keys { "k:string" } else { "k:int" };
    let key_val = |k: i64| -> String {
        if str_keys {
            ["a", "b", "c", "d"][k as usize % 4].to_string()
        } else {
            k.to_string()
        }
    };
    let pks = [
        *g.pick(&[Pk::None, Pk::JoinKey, Pk::Id, Pk::Id, Pk::IdAndKey]),
        *g.pick(&[Pk::None, Pk::JoinKey, Pk::Id, Pk::Id, Pk::IdAndKey]),
    ];
    let ttl = g.chance(50);
    let mut settings = SqlSettings::default();
    if ttl {
        let pick = |g: &mut Rng| Millis(g.range(1, 3) * GRID + GRID / 2);
        if g.chance(70) {
            settings.state_ttl = Some(pick(&mut g));
        }
        if g.chance(35) || settings.state_ttl.is_none() {
            settings.state_ttl_left = Some(pick(&mut g));
        }
        if g.chance(35) {
            settings.state_ttl_right = Some(pick(&mut g));
        }
    }
    // Arrival times of both streams, merged by time (ties: left first).
    let n = [g.range(1, 8) as usize, g.range(1, 8) as usize];
    let mut times = [Vec::new(), Vec::new()];
    for (s, count) in n.iter().enumerate() {
        let mut t = 0i64;
        for _ in 0..*count {
            t += if ttl {
                *g.pick(&[0i64, 0, 1, 1, 2]) * GRID
            } else {
                g.range(0, 3) * 100
            };
            times[s].push(t);
        }
    }
    let mut streams = Vec::new();
    for s in 0..2 {
        let pk = pks[s];
        let (id, val) = if s == 0 { ("id", "v") } else { ("rid", "w") };
        let columns = vec![
            format!("{id}:int"),
            key_col.to_string(),
            format!("{val}:string"),
        ];
        let primary_key: Vec<String> = match pk {
            Pk::None => vec![],
            Pk::JoinKey => vec!["k".into()],
            Pk::Id => vec![id.into()],
            Pk::IdAndKey => vec![id.into(), "k".into()],
        };
        let vals = ["x", "y", "z"];
        // Live rows by unique key (or, without one, a list of stored rows).
        let mut live: BTreeMap<(i64, i64), (i64, i64, &str)> = BTreeMap::new();
        let mut stored: Vec<(i64, i64, &str)> = Vec::new();
        let mut lines = Vec::new();
        let push = |kind: &str, (i, k, v): (i64, i64, &str), t: i64, lines: &mut Vec<String>| {
            let prefix = if kind.is_empty() {
                String::new()
            } else {
                format!("{kind} ")
            };
            lines.push(format!("{prefix}{i}, {}, {v} | a={t}", key_val(k)));
        };
        for &t in &times[s] {
            match pk {
                Pk::None => {
                    let r = g.next() % 100;
                    if stored.is_empty() || r < 45 {
                        let row = (g.range(1, 3), g.range(0, keys - 1), *g.pick(&vals));
                        stored.push(row);
                        push("", row, t, &mut lines);
                    } else if r < 70 {
                        let at = (g.next() % stored.len() as u64) as usize;
                        let old = stored.remove(at);
                        push("-D", old, t, &mut lines);
                    } else if r < 92 {
                        let at = (g.next() % stored.len() as u64) as usize;
                        let old = stored[at];
                        let new = (old.0, old.1, *g.pick(&vals));
                        stored[at] = new;
                        push("-U", old, t, &mut lines);
                        push("+U", new, t, &mut lines);
                    } else {
                        let row = (9, g.range(0, keys - 1), "never");
                        push("-D", row, t, &mut lines);
                    }
                }
                _ => {
                    let id_of = |g: &mut Rng| g.range(1, 3);
                    let k_new = g.range(0, keys - 1);
                    let uk = |i: i64, k: i64| match pk {
                        Pk::JoinKey => (0, k),
                        Pk::Id => (i, 0),
                        _ => (i, k),
                    };
                    let i = id_of(&mut g);
                    let key = uk(i, k_new);
                    let v = *g.pick(&vals);
                    match live.get(&key).copied() {
                        None => {
                            let row = (i, k_new, v);
                            live.insert(key, row);
                            push(if g.chance(20) { "+U" } else { "" }, row, t, &mut lines);
                        }
                        Some(old) => {
                            let r = g.next() % 100;
                            // Only a primary key on the id alone can move a row to another key.
                            let k = if pk == Pk::Id && g.chance(25) {
                                k_new
                            } else {
                                old.1
                            };
                            let new = (old.0, k, v);
                            if r < 35 {
                                live.insert(key, new);
                                push("+U", new, t, &mut lines);
                            } else if r < 60 {
                                live.insert(key, new);
                                push("-U", old, t, &mut lines);
                                push("+U", new, t, &mut lines);
                            } else if r < 85 {
                                live.remove(&key);
                                let gone = if g.chance(20) {
                                    (old.0, old.1, "stale")
                                } else {
                                    old
                                };
                                push("-D", gone, t, &mut lines);
                            } else {
                                live.insert(key, new);
                                push("", new, t, &mut lines);
                            }
                        }
                    }
                }
            }
        }
        streams.push(StreamSpec {
            name: if s == 0 { "l".into() } else { "r".into() },
            columns,
            key: Some("k".into()),
            time: None,
            rows: lines.join("\n"),
            watermark: None,
            primary_key,
            scan_watermark_idle_timeout: None,
            time_from: None,
            proctime: None,
        });
    }
    let pk_text = |p: Pk| match p {
        Pk::None => "no key",
        Pk::JoinKey => "join key",
        Pk::Id => "id",
        Pk::IdAndKey => "id+key",
    };
    Scenario {
        title: format!(
            "Random regular {join:?} join, primary keys {} / {}{} (seed {seed}, #{index})",
            pk_text(pks[0]),
            pk_text(pks[1]),
            if ttl { ", state TTL" } else { "" }
        ),
        job: Job {
            operator: OperatorKind::RegularJoin,
            parallelism,
            arrival: ArrivalOrder::ByTime,
            sql: SqlSpec {
                join,
                ..SqlSpec::default()
            },
            settings,
            ..Job::default()
        },
        streams,
        ..Scenario::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runnable_deterministic_and_never_excluded() {
        let mut ttl = 0;
        let mut pk = 0;
        for i in 0..300 {
            let a = scenario(7, i);
            assert_eq!(a, scenario(7, i));
            let json = a.to_pretty_json();
            crate::run_json(&json, false).unwrap_or_else(|e| panic!("#{i}: {e}\n{json}"));
            crate::export::export(&a, crate::export::ExportKind::FlinkSql).unwrap();
            assert_eq!(crate::export::conformance_exclusion(&a), None, "#{i}");
            ttl += (a.job.settings != SqlSettings::default()) as usize;
            pk += a.streams.iter().any(|s| !s.primary_key.is_empty()) as usize;
        }
        assert!(ttl > 100 && pk > 150, "ttl {ttl}, pk {pk}");
    }

    /// The SQL export declares the primary key, sets the TTL on the TableConfig, puts the
    /// STATE_TTL hint in the query and paces events on the wall clock.
    #[test]
    fn export_carries_keys_ttl_and_hints() {
        let sc = Scenario::from_json(
            r#"{"job": {"operator": "regular_join", "sql": {"join": "left"},
                 "settings": {"state_ttl": "2s", "state_ttl_right": "900ms"}},
                "streams": [
                  {"name": "l", "columns": ["id:int", "k:int"], "key": "k", "primary_key": ["id"], "rows": "1, 1 | a=0"},
                  {"name": "r", "columns": ["k:int", "w"], "key": "k", "rows": "1, x | a=1200"}]}"#,
        )
        .unwrap();
        let java = crate::export::export(&sc, crate::export::ExportKind::FlinkSql).unwrap();
        for want in [
            "Schema.newBuilder().primaryKey(\"id\").build(), ChangelogMode.all()",
            "tEnv.getConfig().set(\"table.exec.state.ttl\", \"2000 ms\");",
            "SELECT /*+ STATE_TTL('R' = '900 ms') */ ",
            "static final boolean PACE_WALL_CLOCK = true;",
            "R 1 0 0 @1200",
        ] {
            assert!(java.contains(want), "missing {want:?}");
        }
        // 1200 ms apart with a TTL of 900 ms: 300 ms of margin, enough.
        assert_eq!(crate::export::conformance_exclusion(&sc), None);
        let close = Scenario::from_json(&sc.to_compact_json().replace("a=1200", "a=950")).unwrap();
        assert!(crate::export::conformance_exclusion(&close).is_some());
    }
}
