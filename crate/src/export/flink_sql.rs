//! Flink SQL jobs: the SQL interval join and the regular (unbounded) join.
//!
//! A Java `main` with a `StreamTableEnvironment`: each stream comes from the pacer as a
//! `DataStream<Row>` with the scenario's watermark strategy and becomes a table —
//! `fromDataStream` with the record timestamp as a `TIMESTAMP_LTZ(3)` rowtime attribute and
//! `SOURCE_WATERMARK()` (so the table keeps the DataStream's watermarks), or
//! `fromChangelogStream` for the regular join, whose inputs may carry row kinds. The query is
//! plain SQL; `toChangelogStream` hands back every result with its row kind.

use super::{assemble, jstr, sql_bounds, JobParts, Shape};
use crate::error::Error;
use crate::parse::Schema;
use crate::plan::Plan;
use crate::scenario::{OperatorKind, TimeKind};
use std::fmt::Write;

/// A SQL identifier in backticks.
pub(crate) fn q(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// `INTERVAL '…' …` for a number of milliseconds (the sign is the caller's), as the SQL
/// printer writes it ([`crate::sql::print::interval`]); Flink 2.3 has no `DAY(4)`, so a bound
/// of 1000 days or more is an error here.
pub(crate) fn interval(ms: i64) -> Result<String, Error> {
    if ms.unsigned_abs() / 86_400_000 >= 1000 {
        return Err(Error::config(
            "job.sql",
            "an interval bound of 1000 days or more has no Flink SQL literal here",
        ));
    }
    Ok(crate::sql::print::interval(ms))
}

/// `R.t + x` / `R.t - x`.
fn offset(t: &str, ms: i64) -> Result<String, Error> {
    Ok(if ms == 0 {
        t.to_string()
    } else if ms < 0 {
        format!("{t} - {}", interval(ms)?)
    } else {
        format!("{t} + {}", interval(ms)?)
    })
}

fn select_list(alias: &str, s: &Schema) -> Vec<String> {
    s.columns
        .iter()
        .map(|c| format!("{alias}.{}", q(&c.name)))
        .collect()
}

pub(crate) fn generate(plan: &Plan, class_name: &str) -> Result<String, Error> {
    let job = &plan.scenario.job;
    let sql = &job.sql;
    let (l, r) = (&plan.schemas[0], &plan.schemas[1]);
    let interval_join = plan.operator == OperatorKind::SqlIntervalJoin;
    let proctime = interval_join && sql.time == TimeKind::Processing;
    let time_attr = if proctime {
        "jl_proctime"
    } else {
        "jl_rowtime"
    };
    let (src, vars) = super::flink_java::sources(plan);
    let mut m = src;
    let _ = writeln!(
        m,
        "        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);"
    );
    if interval_join {
        let _ = writeln!(m, "        tEnv.getConfig().set(\"table.exec.interval-join.min-cleanup-interval\", \"{} ms\");", sql.min_cleanup.0);
    }
    let settings = &job.settings;
    if let Some(t) = settings.source_idle_timeout {
        // For a table whose source pushes its watermarks down (a FLIP-27 connector such as
        // Kafka), WatermarkPushDownSpec wraps the watermark strategy in withIdleness(this).
        // These tables come from DataStreams with SOURCE_WATERMARK(), so the option has no
        // effect here; the DataStream's own WatermarkStrategy above carries the same
        // withIdleness, which is what the simulation runs.
        let _ = writeln!(
            m,
            "        tEnv.getConfig().set(\"table.exec.source.idle-timeout\", \"{} ms\"); // no effect on these SOURCE_WATERMARK() tables: their WatermarkStrategy.withIdleness carries it",
            t.0
        );
    }
    if !interval_join {
        if let Some(t) = settings.state_ttl {
            let _ = writeln!(
                m,
                "        tEnv.getConfig().set(\"table.exec.state.ttl\", \"{} ms\");",
                t.0
            );
        }
    }
    for (i, s) in plan.schemas.iter().enumerate() {
        let v = &vars[i];
        if interval_join {
            let _ = writeln!(
                m,
                "        tEnv.createTemporaryView({}, tEnv.fromDataStream({v}, Schema.newBuilder()",
                jstr(&s.name)
            );
            m.push_str(&super::text::declared_columns(s));
            if proctime {
                let _ = writeln!(
                    m,
                    "                .columnByExpression(\"{time_attr}\", \"PROCTIME()\")"
                );
            } else {
                let _ = writeln!(m, "                .columnByMetadata(\"{time_attr}\", DataTypes.TIMESTAMP_LTZ(3), \"rowtime\") // the record timestamp = the time column");
                let _ = writeln!(m, "                .watermark(\"{time_attr}\", \"SOURCE_WATERMARK()\")   // the DataStream's watermarks");
            }
            let _ = writeln!(m, "                .build()));");
        } else {
            let pk = &plan.scenario.streams[i].primary_key;
            let declared = super::text::declared_columns(s);
            let schema = if !declared.is_empty() {
                let pk: Vec<String> = pk.iter().map(|c| jstr(c.trim())).collect();
                format!(
                    "Schema.newBuilder()\n{declared}{}                .build()",
                    if pk.is_empty() {
                        String::new()
                    } else {
                        format!("                .primaryKey({})\n", pk.join(", "))
                    }
                )
            } else if pk.is_empty() {
                "Schema.derived()".to_string()
            } else {
                // PRIMARY KEY (…) NOT ENFORCED; ChangelogMode.all() keeps the planner from adding
                // a ChangelogNormalize (DynamicSourceUtils.changelogNormalizeEnabled is false for
                // a source that sends UPDATE_BEFORE, with table.exec.source.cdc-events-duplicate
                // off), so the join sees the rows as typed.
                let cols: Vec<String> = pk.iter().map(|c| jstr(c.trim())).collect();
                format!(
                    "Schema.newBuilder().primaryKey({}).build()",
                    cols.join(", ")
                )
            };
            let _ = writeln!(m, "        tEnv.createTemporaryView({}, tEnv.fromChangelogStream({v}, {schema}, ChangelogMode.all()));", jstr(&s.name));
        }
    }
    let keyed = l.key.is_some() && r.key.is_some();
    let mut conds = Vec::new();
    if keyed {
        conds.push(format!(
            "L.{} = R.{}",
            q(&l.columns[l.key.unwrap_or(0)].name),
            q(&r.columns[r.key.unwrap_or(0)].name)
        ));
    }
    if interval_join {
        let lt = format!("L.{time_attr}");
        let rt = format!("R.{time_attr}");
        conds.push(format!(
            "{lt} {} {}",
            if sql.lower_strict { ">" } else { ">=" },
            offset(&rt, sql.lower.0)?
        ));
        conds.push(format!(
            "{lt} {} {}",
            if sql.upper_strict { "<" } else { "<=" },
            offset(&rt, sql.upper.0)?
        ));
    }
    if conds.is_empty() {
        conds.push("TRUE".into());
    }
    let cols: Vec<String> = select_list("L", l)
        .into_iter()
        .chain(select_list("R", r))
        .collect();
    // /*+ STATE_TTL('L' = '…', 'R' = '…') */ names the inputs by their aliases.
    let mut hint_parts = Vec::new();
    if !interval_join {
        if let Some(t) = settings.state_ttl_left {
            hint_parts.push(format!("'L' = '{} ms'", t.0));
        }
        if let Some(t) = settings.state_ttl_right {
            hint_parts.push(format!("'R' = '{} ms'", t.0));
        }
    }
    let hint = if hint_parts.is_empty() {
        String::new()
    } else {
        format!("/*+ STATE_TTL({}) */ ", hint_parts.join(", "))
    };
    let query = format!(
        "SELECT {hint}{} FROM {} AS L {} {} AS R ON {}",
        cols.join(", "),
        q(&l.name),
        sql.join.sql(),
        q(&r.name),
        conds.join(" AND ")
    );
    let _ = writeln!(m, "        Table result = tEnv.sqlQuery(");
    let _ = writeln!(
        m,
        "                \"SELECT {hint}{} \"",
        cols.join(", ").replace('\\', "\\\\").replace('"', "\\\"")
    );
    let _ = writeln!(
        m,
        "                + \"FROM {} AS L {} {} AS R \"",
        q(&l.name).replace('\\', "\\\\").replace('"', "\\\""),
        sql.join.sql(),
        q(&r.name).replace('\\', "\\\\").replace('"', "\\\"")
    );
    let _ = writeln!(
        m,
        "                + \"ON {}\");",
        conds
            .join(" AND ")
            .replace('\\', "\\\\")
            .replace('"', "\\\"")
    );
    let _ = writeln!(
        m,
        "        DataStream<Row> changes = tEnv.toChangelogStream(result);"
    );
    let _ = writeln!(m, "        changes.process(new Show({})).setParallelism(OPERATOR_PARALLELISM).sinkTo(new Rt.Print()).setParallelism(OPERATOR_PARALLELISM).name(\"print changelog\");", l.columns.len());
    let mut c = String::new();
    let _ = writeln!(
        c,
        "    /** Prints each change with its row kind; the first columns are the left row's. */"
    );
    let _ = writeln!(
        c,
        "    static final class Show extends ProcessFunction<Row, String> {{"
    );
    let _ = writeln!(c, "        final int leftColumns;\n");
    let _ = writeln!(c, "        Show(int leftColumns) {{");
    let _ = writeln!(c, "            this.leftColumns = leftColumns;");
    let _ = writeln!(c, "        }}\n");
    let _ = writeln!(
        c,
        "        static String part(Row row, int from, int to) {{"
    );
    let _ = writeln!(c, "            Row p = new Row(to - from);");
    let _ = writeln!(c, "            boolean allNull = true;");
    let _ = writeln!(c, "            for (int i = from; i < to; i++) {{");
    let _ = writeln!(c, "                p.setField(i - from, row.getField(i));");
    let _ = writeln!(c, "                allNull &= row.getField(i) == null;");
    let _ = writeln!(c, "            }}");
    let _ = writeln!(c, "            return allNull ? \"null\" : Rt.json(p);");
    let _ = writeln!(c, "        }}\n");
    let _ = writeln!(c, "        @Override");
    let _ = writeln!(
        c,
        "        public void processElement(Row row, Context ctx, Collector<String> out) {{"
    );
    let _ = writeln!(c, "            String ts = Rt.ts(ctx.timestamp() == null ? Long.MIN_VALUE : ctx.timestamp());");
    let _ = writeln!(
        c,
        "            out.collect(\"JL|OUT|\" + Rt.subtask(getRuntimeContext()) + \"|\" + row.getKind().shortString() + \"|\" + ts + \"|\" + part(row, 0, leftColumns) + \"|\" + part(row, leftColumns, row.getArity()) + \"|-\" + (Rt.EV_EXPECT.length > 0 && Rt.EV_EXPECT[0] >= 0 ? \"|step=\" + Rt.RELEASED : \"\"));"
    );
    let _ = writeln!(c, "        }}");
    let _ = writeln!(c, "    }}\n");
    let (delay, op_name) = if interval_join {
        let (lo, hi) = sql_bounds(plan);
        ((-lo).max(hi).max(0), "IntervalJoin")
    } else {
        (0, "Join")
    };
    let summary = vec![
        format!(
            "Flink SQL {}: {query}.",
            if interval_join {
                "interval join"
            } else {
                "regular join"
            }
        ),
        if interval_join && !proctime {
            format!("The join holds back the watermarks it forwards by {delay} ms (KeyedCoProcessOperatorWithWatermarkDelay).")
        } else {
            String::new()
        },
    ];
    let parts = JobParts {
        imports: vec![
            "import org.apache.flink.streaming.api.functions.ProcessFunction;".into(),
            "import org.apache.flink.table.api.DataTypes;".into(),
            "import org.apache.flink.table.api.Schema;".into(),
            "import org.apache.flink.table.api.Table;".into(),
            "import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;".into(),
            "import org.apache.flink.table.connector.ChangelogMode;".into(),
        ],
        summary: summary.into_iter().filter(|s| !s.is_empty()).collect(),
        operator_name: op_name.into(),
        shape: Shape::Two,
        output_watermark_delay: if proctime { 0 } else { delay },
        // fromChangelogStream without a watermark declaration drops the DataStream's
        // watermarks; the regular join does not use them.
        pace_watermarks: interval_join && !proctime,
        main: m,
        classes: c,
    };
    assemble(plan, class_name, parts)
}
