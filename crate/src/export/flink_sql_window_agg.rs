//! Flink SQL job of a window TVF aggregation:
//! `SELECT window_start, window_end, k, COUNT(*), … FROM TABLE(TUMBLE(TABLE t,
//! DESCRIPTOR(jl_rowtime), …)) GROUP BY window_start, window_end, k`.
//!
//! The stream comes from the pacer as a `DataStream<Row>` with the scenario's watermark
//! strategy and becomes a table with `fromDataStream`, the record timestamp as a
//! `TIMESTAMP_LTZ(3)` rowtime attribute and `SOURCE_WATERMARK()`, as for the SQL interval join.
//! `table.local-time-zone` is UTC, so windows are not shifted by a session time zone
//! (`TimeWindowUtil.toUtcTimestampMills`) and `window_start` / `window_end` print in UTC.
//!
//! Flink plans TUMBLE / HOP / CUMULATE in two phases by default: a `LocalWindowAggregate`
//! chained to each assigner subtask and a `GlobalWindowAggregate` after the hash exchange. The
//! pacer then waits, after each event, until the local aggregates have taken the rows in and
//! the global one has taken in every accumulator the local ones sent (`numRecordsOut` of the
//! local = `numRecordsIn` of the global). SESSION runs in one `WindowAggregate`.

use super::flink_sql::{interval, q};
use super::{assemble, jstr, JobParts, Shape};
use crate::error::Error;
use crate::plan::Plan;
use crate::scenario::{AggFunc, TvfKind};
use std::fmt::Write;

/// `INTERVAL …` with the sign of `ms` (the TVF offset may be negative).
fn signed_interval(ms: i64) -> Result<String, Error> {
    let i = interval(ms)?;
    Ok(if ms < 0 {
        i.replacen("INTERVAL '", "INTERVAL '-", 1)
    } else {
        i
    })
}

/// The query, in one line.
pub(crate) fn query(plan: &Plan) -> Result<String, Error> {
    let job = &plan.scenario.job;
    let s = &plan.schemas[0];
    let t = &job.tvf;
    let table = q(&s.name);
    let keys: Vec<String> = job.group.keys.iter().map(|k| q(k)).collect();
    let tvf = match t.kind {
        TvfKind::Tumble => {
            let mut a = format!(
                "TUMBLE(TABLE {table}, DESCRIPTOR(jl_rowtime), {}",
                interval(t.size.0)?
            );
            if t.offset.0 != 0 {
                let _ = write!(a, ", {}", signed_interval(t.offset.0)?);
            }
            a + ")"
        }
        TvfKind::Hop => {
            let mut a = format!(
                "HOP(TABLE {table}, DESCRIPTOR(jl_rowtime), {}, {}",
                interval(t.slide.map_or(t.size.0, |x| x.0))?,
                interval(t.size.0)?
            );
            if t.offset.0 != 0 {
                let _ = write!(a, ", {}", signed_interval(t.offset.0)?);
            }
            a + ")"
        }
        TvfKind::Cumulate => {
            let mut a = format!(
                "CUMULATE(TABLE {table}, DESCRIPTOR(jl_rowtime), {}, {}",
                interval(t.step.map_or(t.size.0, |x| x.0))?,
                interval(t.size.0)?
            );
            if t.offset.0 != 0 {
                let _ = write!(a, ", {}", signed_interval(t.offset.0)?);
            }
            a + ")"
        }
        TvfKind::Session => {
            let part = match keys.len() {
                0 => String::new(),
                1 => format!(" PARTITION BY {}", keys[0]),
                _ => format!(" PARTITION BY ({})", keys.join(", ")),
            };
            format!(
                "SESSION(TABLE {table}{part}, DESCRIPTOR(jl_rowtime), {})",
                interval(t.gap.map_or(1, |g| g.0))?
            )
        }
    };
    let mut select = vec!["window_start".to_string(), "window_end".to_string()];
    select.extend(keys.iter().cloned());
    for a in &job.group.aggregates {
        let f = match a.func {
            AggFunc::Count => "COUNT",
            AggFunc::Sum => "SUM",
            AggFunc::Min => "MIN",
            AggFunc::Max => "MAX",
            AggFunc::Avg => "AVG",
        };
        let arg = match &a.column {
            None => "*".to_string(),
            Some(c) if a.distinct => format!("DISTINCT {}", q(c)),
            Some(c) => q(c),
        };
        let mut e = format!("{f}({arg})");
        if !a.alias.is_empty() {
            let _ = write!(e, " AS {}", q(&a.alias));
        }
        select.push(e);
    }
    let mut group = vec!["window_start".to_string(), "window_end".to_string()];
    match &job.group.grouping_sets {
        // The sets as the scenario lists them (ROLLUP / CUBE already expanded); Flink
        // orders the copies itself (crate::grouping_sets).
        Some(sets) => {
            let sets: Vec<String> = sets
                .iter()
                .map(|s| {
                    format!(
                        "({})",
                        s.iter().map(|k| q(k)).collect::<Vec<_>>().join(", ")
                    )
                })
                .collect();
            group.push(format!("GROUPING SETS ({})", sets.join(", ")));
        }
        None => group.extend(keys),
    }
    Ok(format!(
        "SELECT {} FROM TABLE({tvf}) GROUP BY {}",
        select.join(", "),
        group.join(", ")
    ))
}

/// Whether Flink runs the aggregation in two phases (every aligned window; not SESSION).
pub(crate) fn two_phase(plan: &Plan) -> bool {
    plan.scenario.job.tvf.kind != TvfKind::Session
}

pub(crate) fn generate(plan: &Plan, class_name: &str) -> Result<String, Error> {
    let s = &plan.schemas[0];
    let query = query(plan)?;
    let (src, vars) = super::flink_java::sources(plan);
    let mut m = src;
    let _ = writeln!(
        m,
        "        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);"
    );
    let _ = writeln!(
        m,
        "        // Windows in UTC: no session time-zone shift of the TIMESTAMP_LTZ rowtime."
    );
    let _ = writeln!(
        m,
        "        tEnv.getConfig().set(\"table.local-time-zone\", \"UTC\");"
    );
    let _ = writeln!(
        m,
        "        tEnv.createTemporaryView({}, tEnv.fromDataStream({}, Schema.newBuilder()",
        jstr(&s.name),
        vars[0]
    );
    m.push_str(&super::text::declared_columns(s));
    let _ = writeln!(m, "                .columnByMetadata(\"jl_rowtime\", DataTypes.TIMESTAMP_LTZ(3), \"rowtime\") // the record timestamp = the time column");
    let _ = writeln!(
        m,
        "                .watermark(\"jl_rowtime\", \"SOURCE_WATERMARK()\")   // the DataStream's watermarks"
    );
    let _ = writeln!(m, "                .build()));");
    if let Some(ex) = &plan.expand {
        // Expand copies each row once per grouping set before the local aggregate, whose
        // numRecordsIn the pacer waits for.
        let _ = writeln!(m, "        Rt.ROW_WEIGHT = (s, row) -> {}L;", ex.sets.len());
    }
    let _ = writeln!(m, "        Table result = tEnv.sqlQuery({});", jstr(&query));
    let _ = writeln!(
        m,
        "        DataStream<Row> changes = tEnv.toChangelogStream(result);"
    );
    let _ = writeln!(m, "        changes.process(new ShowValues()).setParallelism(OPERATOR_PARALLELISM).sinkTo(new Rt.Print()).setParallelism(OPERATOR_PARALLELISM).name(\"print changelog\");");
    let mut c = String::new();
    let _ = writeln!(
        c,
        "    /** Prints each result row with its kind, its values and the pacer event that made it. */"
    );
    let _ = writeln!(
        c,
        "    static final class ShowValues extends ProcessFunction<Row, String> {{"
    );
    let _ = writeln!(c, "        @Override");
    let _ = writeln!(
        c,
        "        public void processElement(Row row, Context ctx, Collector<String> out) {{"
    );
    let _ = writeln!(c, "            StringBuilder b = new StringBuilder(\"[\");");
    let _ = writeln!(c, "            for (int i = 0; i < row.getArity(); i++) {{");
    let _ = writeln!(c, "                Object v = row.getField(i);");
    let _ = writeln!(c, "                if (i > 0) b.append(',');");
    let _ = writeln!(
        c,
        "                if (v instanceof java.time.LocalDateTime) {{"
    );
    let _ = writeln!(c, "                    b.append('\"').append(((java.time.LocalDateTime) v).format(java.time.format.DateTimeFormatter.ofPattern(\"yyyy-MM-dd HH:mm:ss.SSS\"))).append('\"');");
    let _ = writeln!(c, "                }} else {{");
    let _ = writeln!(c, "                    b.append(Rt.json(v));");
    let _ = writeln!(c, "                }}");
    let _ = writeln!(c, "            }}");
    let _ = writeln!(c, "            b.append(']');");
    let _ = writeln!(
        c,
        "            out.collect(\"JL|ROW|\" + Rt.subtask(getRuntimeContext()) + \"|\" + row.getKind().shortString() + \"|\" + Rt.CURRENT + \"|\" + b);"
    );
    let _ = writeln!(c, "        }}");
    let _ = writeln!(c, "    }}\n");
    let two = two_phase(plan);
    let parts = JobParts {
        imports: vec![
            "import org.apache.flink.streaming.api.functions.ProcessFunction;".into(),
            "import org.apache.flink.table.api.DataTypes;".into(),
            "import org.apache.flink.table.api.Schema;".into(),
            "import org.apache.flink.table.api.Table;".into(),
            "import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;".into(),
        ],
        summary: vec![
            format!("Flink SQL window aggregation: {query}."),
            if two {
                "Flink plans it in two phases (LocalWindowAggregate before the shuffle, GlobalWindowAggregate after it; table.optimizer.agg-phase-strategy AUTO).".into()
            } else {
                "SESSION windows run in one WindowAggregate after the shuffle.".into()
            },
        ],
        operator_name: if two {
            "GlobalWindowAggregate".into()
        } else {
            "WindowAggregate".into()
        },
        shape: Shape::One,
        output_watermark_delay: 0,
        pace_watermarks: true,
        main: m,
        classes: c,
    };
    assemble(plan, class_name, parts)
}
