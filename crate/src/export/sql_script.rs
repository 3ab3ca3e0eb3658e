//! A scenario read from a Flink SQL script (`scenario.sql`) as a Flink job that runs the
//! user's own query text.
//!
//! Each table's rows come from the pacer as a `DataStream<Row>` with the scenario's
//! watermarks (as in `flink_sql.rs`) and become a view with the script's column names: the
//! record timestamp is the rowtime attribute under the time column's name
//! (`columnByMetadata("rowtime")` + `SOURCE_WATERMARK()`, a `TIMESTAMP_LTZ(3)`), or
//! `PROCTIME()` for a processing-time table. The query is the script's query, verbatim, run
//! the way Flink's SQL client runs it: `executeSql(query).collect()`, each row with its row
//! kind, printed as the values of the query's columns (timestamps as
//! `YYYY-MM-DD HH:MM:SS.sss`, UTC). The collect sink has no subtask: results print with
//! subtask `-` and `compare.py` compares them without one. (`toChangelogStream` would reject
//! a result with more than one rowtime column, e.g. `SELECT *` of a window semi join.)

use super::{assemble, jstr, sql_bounds, JobParts, Shape};
use crate::error::Error;
use crate::plan::Plan;
use crate::scenario::{OperatorKind, Scenario, TimeKind};
use serde::{Deserialize, Serialize};
use std::fmt::Write;

fn q(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// What this export reads from the script's text: the query, verbatim, and the name of each
/// table's `PROCTIME()` column. Read with the SQL parser ([`ScriptFacts::read`]) where the build
/// has one; the exporter's wasm module has none (sqlparser would be most of it) and is given
/// them by the page, which reads them with the SQL module's `script_facts`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScriptFacts {
    /// The script's query (`SELECT …` or `INSERT INTO … SELECT …`), as typed.
    pub query: Option<String>,
    /// `(table, column)` of each table with a `PROCTIME()` column.
    pub proctime: Vec<(String, String)>,
}

/// Whether this build reads a script itself: every build but the exporter's wasm module.
pub const READS_SCRIPTS: bool = !cfg!(all(target_arch = "wasm32", feature = "export-module"));

impl ScriptFacts {
    /// Reads them from the scenario's script (`scenario.sql`).
    pub fn read(sc: &Scenario) -> ScriptFacts {
        ScriptFacts {
            query: crate::sql::script::query_text(&sc.sql),
            proctime: sc
                .streams
                .iter()
                .filter_map(|s| {
                    crate::sql::script::proctime_column(&sc.sql, &s.name)
                        .map(|c| (s.name.clone(), c))
                })
                .collect(),
        }
    }
}

/// Stream `i`'s `PROCTIME()` column and its place among the table's columns, where the
/// table declares it (`SELECT *` lists it there): the scenario's, named as the script names it.
fn proctime_at(
    sc: &Scenario,
    facts: &ScriptFacts,
    i: usize,
    s: &crate::parse::Schema,
) -> Option<(String, usize)> {
    let names: Vec<String> = s.columns.iter().map(|c| c.name.clone()).collect();
    let (name, at) = crate::sql::proctime_column(sc, i, &names)?;
    let name = facts
        .proctime
        .iter()
        .find(|(t, _)| *t == sc.streams[i].name)
        .map_or(name, |(_, c)| c.clone());
    Some((name, at.min(names.len())))
}

pub(crate) fn generate(
    plan: &Plan,
    class_name: &str,
    facts: Option<&ScriptFacts>,
) -> Result<String, Error> {
    let sc = &plan.scenario;
    let job = &sc.job;
    let read;
    let facts = match facts {
        Some(f) => f,
        None if READS_SCRIPTS => {
            read = ScriptFacts::read(sc);
            &read
        }
        None => {
            return Err(Error::config(
                "sql",
                "the script's query was not given to the exporter (the SQL module reads it: script_facts)",
            ))
        }
    };
    let Some(query) = facts.query.clone() else {
        return Err(Error::config("sql", "the script has no query"));
    };
    let interval_join = plan.operator == OperatorKind::SqlIntervalJoin;
    let temporal = plan.operator == OperatorKind::TemporalJoin;
    let lookup = plan.operator == OperatorKind::LookupJoin;
    let proctime = match plan.operator {
        OperatorKind::SqlIntervalJoin => job.sql.time == TimeKind::Processing,
        OperatorKind::LookupJoin => true,
        _ => false,
    };
    let (src, vars) = super::flink_java::sources(plan);
    // A lookup join reads its dimension table through a lookup source (as in temporal_sql.rs):
    // the pacer applies each dimension row at its turn in the arrival order, and the lookup
    // answers from the table as it stands then (the simulated processing time).
    let mut m = if lookup {
        super::temporal_sql::lookup_sources(&src, class_name)
    } else {
        src
    };
    if temporal {
        // The planner puts a DropUpdateBefore after the versioned table's scan (the temporal
        // join needs only UPDATE_AFTER): its -U rows never reach the join (as in temporal_sql.rs).
        let _ = writeln!(m, "        Rt.UB_DROPPED_STREAM = 1;");
    }
    let _ = writeln!(
        m,
        "        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);"
    );
    let _ = writeln!(
        m,
        "        tEnv.getConfig().set(\"table.local-time-zone\", \"UTC\");"
    );
    let _ = writeln!(m, "        tEnv.getConfig().set(\"table.exec.interval-join.min-cleanup-interval\", \"{} ms\");", job.sql.min_cleanup.0);
    if let Some(t) = job.settings.state_ttl {
        let _ = writeln!(
            m,
            "        tEnv.getConfig().set(\"table.exec.state.ttl\", \"{} ms\");",
            t.0
        );
    }
    for (i, s) in plan.schemas.iter().enumerate() {
        if lookup && i == 1 {
            // The lookup table: the script's columns over the job's lookup source.
            let mut cols: Vec<String> = s
                .columns
                .iter()
                .enumerate()
                .map(|(ci, c)| {
                    let ty = if Some(ci) == s.time {
                        "TIMESTAMP(3)".into()
                    } else {
                        super::temporal_sql::sql_type(c.ty)
                    };
                    format!("{} {ty}", q(&c.name))
                })
                .collect();
            if let Some((c, at)) = proctime_at(sc, facts, i, s) {
                cols.insert(at, format!("{} AS PROCTIME()", q(&c)));
            }
            let ddl = super::temporal_sql::dim_ddl(&s.name, &cols, &sc.streams[i].primary_key);
            let _ = writeln!(m, "        tEnv.executeSql({});", jstr(&ddl));
            continue;
        }
        let v = &vars[i];
        let src_name = format!("jl_src_{i}");
        // A regular join's tables may carry -U/+U/-D rows and a primary key: a changelog
        // table (ChangelogMode.all(): no ChangelogNormalize, the join reads the rows as typed,
        // as in flink_sql.rs). So is a temporal join's versioned table, which Flink requires
        // to have a primary key and a rowtime attribute with a watermark (temporal_sql.rs).
        let changelog = plan.operator == OperatorKind::RegularJoin || (temporal && i == 1);
        let _ = writeln!(
            m,
            "        tEnv.createTemporaryView({}, tEnv.{}({v}, Schema.newBuilder()",
            jstr(&src_name),
            if changelog {
                "fromChangelogStream"
            } else {
                "fromDataStream"
            }
        );
        if proctime {
            let _ = writeln!(
                m,
                "                .columnByExpression(\"jl_time\", \"PROCTIME()\")"
            );
        } else if s.time.is_some() {
            let _ = writeln!(m, "                .columnByMetadata(\"jl_time\", DataTypes.TIMESTAMP_LTZ(3), \"rowtime\")");
            let _ = writeln!(
                m,
                "                .watermark(\"jl_time\", \"SOURCE_WATERMARK()\")"
            );
        }
        let pk = &sc.streams[i].primary_key;
        if changelog && !pk.is_empty() {
            let cols: Vec<String> = pk.iter().map(|c| jstr(c.trim())).collect();
            let _ = writeln!(m, "                .primaryKey({})", cols.join(", "));
        }
        if changelog {
            let _ = writeln!(m, "                .build(), ChangelogMode.all()));");
        } else {
            let _ = writeln!(m, "                .build()));");
        }
        // The view: the script's columns in order, the time column being the attribute.
        let mut cols: Vec<String> = s
            .columns
            .iter()
            .enumerate()
            .map(|(ci, c)| {
                if Some(ci) == s.time && proctime {
                    // A processing-time table's TIMESTAMP column is data (the rows' own time),
                    // given in milliseconds.
                    format!("TO_TIMESTAMP_LTZ({}, 3) AS {}", q(&c.name), q(&c.name))
                } else if Some(ci) == s.time {
                    format!("jl_time AS {}", q(&c.name))
                } else if let crate::value::ColumnType::Decimal(p, sc) = c.ty {
                    // The stream's BigDecimal is a DECIMAL(38, 18) column (Types.BIG_DEC): the
                    // view gives it the script's DECIMAL(p, s) (its values already fit it).
                    format!(
                        "CAST({} AS DECIMAL({p}, {sc})) AS {}",
                        q(&c.name),
                        q(&c.name)
                    )
                } else {
                    q(&c.name)
                }
            })
            .collect();
        if proctime {
            let (name, at) =
                proctime_at(sc, facts, i, s).unwrap_or_else(|| ("proc_time".into(), cols.len()));
            cols.insert(at, format!("jl_time AS {}", q(&name)));
        }
        let view = format!(
            "CREATE TEMPORARY VIEW {} AS SELECT {} FROM {}",
            q(&s.name),
            cols.join(", "),
            src_name
        );
        let _ = writeln!(m, "        tEnv.executeSql({});", jstr(&view));
    }
    let window_join = plan.operator == OperatorKind::WindowTvfJoin;
    // A SESSION window join's TVFs are the pacer's local operators, one record in per row
    // (as in flink_sql_window_join.rs): the default weight.
    let session = job.tvf.kind == crate::scenario::TvfKind::Session;
    if window_join && !session {
        // Each row reaches the window join once per window its TVF gives it.
        let _ = writeln!(
            m,
            "        Rt.ROW_WEIGHT = (s, row) -> windowCount((Long) row.getField(TIME_COLUMN[s]));"
        );
    }
    // Rows a pushed-down WHERE rejects never reach the join (they still move their table's
    // watermark): the pacer must not wait for them. ROWS[s] is stream s's rows in the plan's
    // order; equal rows get the same verdict, so the first equal one's index is enough.
    let rejected = crate::sql::eval::filtered(plan);
    let mut per_stream: [Vec<usize>; 2] = [Vec::new(), Vec::new()];
    let mut seen = [0usize; 2];
    for (id, r) in plan.rows.iter().enumerate() {
        let si = r.stream.index().min(1);
        if rejected.get(id).copied().unwrap_or(false) {
            per_stream[si].push(seen[si]);
        }
        seen[si] += 1;
    }
    let has_rejected = per_stream.iter().any(|v| !v.is_empty());
    // A window aggregation's GROUPING SETS / ROLLUP / CUBE: Expand copies each row once per
    // grouping set before the (local) window aggregate, whose numRecordsIn the pacer waits
    // for (as in flink_sql_window_agg.rs).
    let copies = plan.expand.as_ref().map_or(1, |ex| ex.sets.len());
    if has_rejected {
        let _ = writeln!(
            m,
            "        Rt.ROW_WEIGHT = (s, row) -> rejectedByWhere(s, row) ? 0 : {copies};"
        );
    } else if copies != 1 {
        let _ = writeln!(m, "        Rt.ROW_WEIGHT = (s, row) -> {copies}L;");
    }
    // As Flink's SQL client runs a query: executeSql(query).collect(), each row with its row
    // kind. The collect sink has no subtask, so results print with subtask '-'. The job runs
    // on a MiniCluster of its own (executeSql submits through the environment's executor),
    // whose metric reporter the pacer reads.
    let _ = writeln!(
        m,
        "        if (System.getProperties().get(\"joinlab.minicluster\") != null) {{"
    );
    let _ = writeln!(m, "            Rt.installReporter();");
    let _ = writeln!(m, "        }}");
    let _ = writeln!(
        m,
        "        TableResult result = tEnv.executeSql({});",
        jstr(&query)
    );
    // A PROCTIME() column among the results (e.g. `SELECT *` of a lookup join) holds the wall
    // clock, which the engine does not give: it is left out of the printed values, and named.
    let _ = writeln!(
        m,
        "        boolean[] shown = ShowValues.shown(result.getResolvedSchema());"
    );
    let _ = writeln!(
        m,
        "        try (CloseableIterator<Row> it = result.collect()) {{"
    );
    let _ = writeln!(m, "            while (it.hasNext()) {{");
    let _ = writeln!(m, "                Row row = it.next();");
    let _ = writeln!(m, "                System.out.println(\"JL|OUT|-|\" + row.getKind().shortString() + \"|\" + Rt.ts(Long.MIN_VALUE) + \"|\" + ShowValues.values(row, shown) + \"|null|-\" + (Rt.EV_EXPECT.length > 0 && Rt.EV_EXPECT[0] >= 0 ? \"|step=\" + Rt.RELEASED : \"\"));");
    let _ = writeln!(m, "                Rt.OUT_COUNT.incrementAndGet();");
    let _ = writeln!(m, "            }}");
    let _ = writeln!(m, "        }}");
    // The operator's late counters (a window join drops late copies without a side output).
    let _ = writeln!(m, "        for (java.util.Map.Entry<String, Counter> e : new java.util.TreeMap<>(Rt.OP_LATE).entrySet()) {{");
    let _ = writeln!(m, "            System.out.println(\"JL|LATECOUNT|\" + e.getKey() + \"|\" + e.getValue().getCount());");
    let _ = writeln!(m, "        }}");
    if window_join && session {
        // The SESSION window TVFs drop late rows before the join and count them in their
        // numLateRecordsDropped (UnalignedWindowTableFunctionOperator), per input and subtask,
        // printed as the runtime's own run does.
        let _ = writeln!(m, "        for (java.util.Map.Entry<String, Counter> e : new java.util.TreeMap<>(Rt.LOCAL_LATE).entrySet()) {{");
        let _ = writeln!(m, "            String[] k = e.getKey().split(\"\\\\|\");");
        let _ = writeln!(
            m,
            "            String side = Rt.localInput(k[0]) == 0 ? \"left\" : \"right\";"
        );
        let _ = writeln!(m, "            System.out.println(\"JL|LATECOUNT|\" + k[1] + \"|\" + side + \"TvfNumLateRecordsDropped|\" + e.getValue().getCount());");
        let _ = writeln!(m, "        }}");
    }
    if plan.operator == OperatorKind::WindowTvfAggregate {
        // The window aggregate drops late rows silently and counts them in
        // numLateRecordsDropped (WindowAggOperator), per subtask.
        let _ = writeln!(m, "        for (java.util.Map.Entry<Integer, Counter> e : new java.util.TreeMap<>(Rt.LATE_DROPPED).entrySet()) {{");
        let _ = writeln!(
            m,
            "            System.out.println(\"JL|LATEDROP|\" + e.getKey() + \"|\" + e.getValue().getCount());"
        );
        let _ = writeln!(m, "        }}");
    }
    let _ = writeln!(m, "        System.out.flush();");
    let _ = writeln!(m, "        Rt.COLLECTED = true;");
    let mut c = r#"    /** Prints each change with its row kind and the query's values. */
    static final class ShowValues {
        static final java.time.format.DateTimeFormatter F =
                java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

        static String value(Object v) {
            if (v instanceof java.time.Instant) {
                return "\"" + F.format(java.time.LocalDateTime.ofInstant((java.time.Instant) v, java.time.ZoneOffset.UTC)) + "\"";
            }
            if (v instanceof java.time.LocalDateTime) {
                return "\"" + F.format((java.time.LocalDateTime) v) + "\"";
            }
            return Rt.json(v);
        }

        /** The result columns printed: all but the processing-time attributes (wall clock). */
        static boolean[] shown(org.apache.flink.table.catalog.ResolvedSchema schema) {
            java.util.List<org.apache.flink.table.catalog.Column> cols = schema.getColumns();
            boolean[] shown = new boolean[cols.size()];
            System.out.println("JL|COLUMNS|" + String.join("\t", schema.getColumnNames()));
            for (int i = 0; i < shown.length; i++) {
                shown[i] = !org.apache.flink.table.types.logical.utils.LogicalTypeChecks.isProctimeAttribute(cols.get(i).getDataType().getLogicalType());
                if (!shown[i]) {
                    System.out.println("JL|NOTE|not compared: the processing-time column " + cols.get(i).getName() + " (wall clock)");
                }
            }
            return shown;
        }

        static String values(Row row, boolean[] shown) {
            StringBuilder b = new StringBuilder("[");
            boolean first = true;
            for (int i = 0; i < row.getArity(); i++) {
                if (i < shown.length && !shown[i]) {
                    continue;
                }
                if (!first) {
                    b.append(',');
                }
                first = false;
                b.append(value(row.getField(i)));
            }
            return b.append(']').toString();
        }
    }

"#
    .to_string();
    if has_rejected {
        let lists: Vec<String> = per_stream
            .iter()
            .map(|v| {
                format!(
                    "{{{}}}",
                    v.iter()
                        .map(|i| i.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
            .collect();
        let _ = writeln!(
            c,
            "    /** Each stream's rows (indices) the query's WHERE rejects before the join. */"
        );
        let _ = writeln!(
            c,
            "    static final int[][] REJECTED_BY_WHERE = {{{}}};\n",
            lists.join(", ")
        );
        let _ = writeln!(c, "    static boolean rejectedByWhere(int s, Row row) {{");
        let _ = writeln!(
            c,
            "        int i = java.util.Arrays.asList(Rt.ROWS[s]).indexOf(row);"
        );
        let _ = writeln!(c, "        for (int r : REJECTED_BY_WHERE[s]) {{");
        let _ = writeln!(c, "            if (r == i) {{");
        let _ = writeln!(c, "                return true;");
        let _ = writeln!(c, "            }}");
        let _ = writeln!(c, "        }}");
        let _ = writeln!(c, "        return false;");
        let _ = writeln!(c, "    }}\n");
    }
    let window_agg = plan.operator == OperatorKind::WindowTvfAggregate;
    let (delay, op_name) = if window_agg {
        // TUMBLE / HOP / CUMULATE run in two phases (LocalWindowAggregate chained to the
        // source, GlobalWindowAggregate after the shuffle), SESSION in one WindowAggregate.
        let name = if super::flink_sql_window_agg::two_phase(plan) {
            "GlobalWindowAggregate"
        } else {
            "WindowAggregate"
        };
        (0, name)
    } else if interval_join {
        let (lo, hi) = sql_bounds(plan);
        ((-lo).max(hi).max(0), "IntervalJoin")
    } else if window_join {
        if !session {
            let tvf =
                crate::tvf::Tvf::of(&job.tvf, "job.tvf").map_err(|(f, m)| Error::config(f, m))?;
            c.push_str(&super::flink_sql_window_join::window_count_helpers(tvf));
        }
        (0, "WindowJoin")
    } else if temporal {
        (0, "TemporalJoin")
    } else if lookup {
        let ts: Vec<usize> = plan.schemas[1].time.into_iter().collect();
        c.push_str(&super::temporal_sql::lookup_classes(plan, &ts));
        (0, "LookupJoin")
    } else {
        (0, "Join")
    };
    let mut imports: Vec<String> = vec![
        "import org.apache.flink.table.api.TableResult;".into(),
        "import org.apache.flink.table.connector.ChangelogMode;".into(),
        "import org.apache.flink.util.CloseableIterator;".into(),
        "import org.apache.flink.table.api.DataTypes;".into(),
        "import org.apache.flink.table.api.Schema;".into(),
        "import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;".into(),
    ];
    if lookup {
        imports.extend(super::temporal_sql::lookup_imports());
    }
    let parts = JobParts {
        imports,
        summary: vec![format!("The script's query, as written: {query}")],
        operator_name: op_name.into(),
        // The lookup join is chained to the probe's assigner (forward edges, same parallelism).
        shape: if window_agg {
            Shape::One
        } else if lookup {
            Shape::Chained
        } else {
            Shape::Two
        },
        output_watermark_delay: if proctime { 0 } else { delay },
        pace_watermarks: !proctime,
        main: m,
        classes: c,
    };
    assemble(plan, class_name, parts)
}

#[cfg(test)]
mod tests {
    use super::ScriptFacts;
    use crate::export::{export, export_with_facts, ExportKind};

    /// The exporter's wasm module is given the script's facts as JSON (read by the SQL module):
    /// the job it writes from them is the job the native exporter writes from the script.
    #[test]
    fn given_facts_give_the_same_job() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
        let mut n = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            if path.extension().and_then(|x| x.to_str()) != Some("sql") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let sc = crate::sql::sql_to_scenario(&text).unwrap();
            let facts = ScriptFacts::read(&sc);
            assert!(facts.query.is_some(), "{}", path.display());
            let json = serde_json::to_string(&facts).unwrap();
            let back: ScriptFacts = serde_json::from_str(&json).unwrap();
            assert_eq!(back, facts);
            let kind = ExportKind::FlinkSql;
            assert_eq!(
                export_with_facts(&sc, kind, Some(&back)).unwrap(),
                export(&sc, kind).unwrap(),
                "{}",
                path.display()
            );
            n += 1;
        }
        assert!(n >= 3);
    }

    /// A temporal join script's versioned table is a changelog view with its primary key and
    /// watermark; a lookup join script's lookup table is the job's lookup source with the
    /// script's columns, applied by the pacer; both jobs wait for the engine's results per event.
    #[test]
    fn temporal_and_lookup_scripts_get_their_sources() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
        let job = |name: &str| {
            let text = std::fs::read_to_string(dir.join(name)).unwrap();
            let sc = crate::sql::sql_to_scenario(&text).unwrap();
            export(&sc, ExportKind::FlinkSql).unwrap()
        };
        let t = job("sql-temporal-join-late-rate.sql");
        assert!(t.contains("tEnv.fromChangelogStream(currencyRates"), "{t}");
        assert!(t.contains(".primaryKey(\"currency\")"), "{t}");
        assert!(t.contains("Rt.UB_DROPPED_STREAM = 1;"), "{t}");
        assert!(t.contains("OPERATOR_NAME = \"TemporalJoin\""), "{t}");
        // o_000 comes out when o_001 (the fourth event) moves the watermark past 11:40.
        assert!(t.contains("R 0 0 1 =1\n"), "{t}");
        let l = job("sql-pitfall-lookup-join.sql");
        assert!(!l.contains("Rt.source(env, 1)"), "{l}");
        assert!(l.contains("Rt.SIDE_EVENT = JoinlabJob::applyDim;"), "{l}");
        assert!(
            l.contains("CREATE TEMPORARY TABLE `rates` (`currency` STRING, `rate` DOUBLE, PRIMARY KEY (`currency`) NOT ENFORCED) WITH ('connector' = 'joinlab-dim')"),
            "{l}"
        );
        assert!(
            l.contains("TO_TIMESTAMP_LTZ(`order_time`, 3) AS `order_time`, jl_time AS `proc_time`"),
            "{l}"
        );
        assert!(l.contains("OPERATOR_NAME = \"LookupJoin\""), "{l}");
    }
}
