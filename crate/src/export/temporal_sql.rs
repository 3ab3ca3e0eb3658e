//! Flink SQL jobs for the event-time temporal join and the processing-time lookup join.
//!
//! Temporal join: the probe stream becomes a table with `fromDataStream` (the record timestamp
//! as the `TIMESTAMP_LTZ(3)` rowtime attribute `jl_rowtime`, `SOURCE_WATERMARK()`), the
//! versioned table with `fromChangelogStream` and a `Schema` that declares the primary key, the
//! same rowtime attribute and `SOURCE_WATERMARK()` (so its rows keep their row kinds and the
//! table keeps the DataStream's watermarks); the query is
//! `... FROM probe AS L [LEFT] JOIN versioned FOR SYSTEM_TIME AS OF L.jl_rowtime AS R ON ...`.
//!
//! Lookup join: the probe table gets a processing-time attribute (`PROCTIME()`); the dimension
//! table is a `CREATE TABLE` over a small `LookupTableSource` defined in the job
//! (`JoinlabDim`): its lookup function answers from the dimension rows *as they stand at the
//! current simulated processing time*. The dimension rows are not sent through the job; the
//! pacer applies each one to the table when its turn in the arrival order comes, after the
//! job has fully processed every earlier probe row (the lookup join is chained to the probe's
//! assigner, so the pacer's usual wait covers the lookup). That is exactly "the table as it
//! stands at the probe row's arrival", independent of the wall clock, which a real lookup
//! source (JDBC, HBase, …) only approximates.

use super::{assemble, jstr, JobParts, Shape};
use crate::error::Error;
use crate::parse::Schema;
use crate::plan::Plan;
use crate::scenario::OperatorKind;
use crate::value::ColumnType;
use std::fmt::Write;

/// A SQL identifier in backticks.
fn q(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// Text for inside a Java string literal.
fn js(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn select_list(alias: &str, s: &Schema) -> Vec<String> {
    s.columns
        .iter()
        .map(|c| format!("{alias}.{}", q(&c.name)))
        .collect()
}

pub(super) fn sql_type(t: ColumnType) -> std::borrow::Cow<'static, str> {
    t.sql_name()
}

/// The job's `Show` class: prints each change with its row kind (left columns first).
fn show_class() -> String {
    let mut c = String::new();
    let _ = writeln!(
        c,
        "    /** Prints each change with its row kind; the first columns are the probe row's. */"
    );
    c.push_str(
        r#"    static final class Show extends ProcessFunction<Row, String> {
        final int leftColumns;

        Show(int leftColumns) {
            this.leftColumns = leftColumns;
        }

        static String part(Row row, int from, int to) {
            Row p = new Row(to - from);
            boolean allNull = true;
            for (int i = from; i < to; i++) {
                p.setField(i - from, row.getField(i));
                allNull &= row.getField(i) == null;
            }
            return allNull ? "null" : Rt.json(p);
        }

        @Override
        public void processElement(Row row, Context ctx, Collector<String> out) {
            String ts = Rt.ts(ctx.timestamp() == null ? Long.MIN_VALUE : ctx.timestamp());
            out.collect("JL|OUT|" + Rt.subtask(getRuntimeContext()) + "|" + row.getKind().shortString() + "|" + ts + "|" + part(row, 0, leftColumns) + "|" + part(row, leftColumns, row.getArity()) + "|-");
        }
    }

"#,
    );
    c
}

/// The lookup source classes: a `DynamicTableSourceFactory` found through the job's own
/// service file, a `LookupTableSource`, and its `LookupFunction` reading `Rt`'s dimension table.
const LOOKUP_CLASSES: &str = r#"    /**
     * The dimension table: the right stream's rows applied in arrival order by the pacer
     * (Rt.SIDE_EVENT), read by the lookup function at processing time. With a primary key a row
     * replaces the row with the same key in place (+I/+U) or deletes it (-U/-D); without, +I/+U
     * append and -U/-D remove one equal row. A lookup returns the rows with an equal key in
     * table order.
     */
    static final List<Row> DIM = new ArrayList<>();

    static boolean samePk(Row a, Row b) {
        if (DIM_PK.length == 0) {
            for (int i = 0; i < a.getArity(); i++) {
                if (!java.util.Objects.equals(a.getField(i), b.getField(i))) {
                    return false;
                }
            }
            return true;
        }
        for (int c : DIM_PK) {
            if (!java.util.Objects.equals(a.getField(c), b.getField(c))) {
                return false;
            }
        }
        return true;
    }

    static synchronized void applyDim(int row) {
        Row r = Rt.ROWS[1][row];
        int at = -1;
        for (int i = 0; i < DIM.size(); i++) {
            if (samePk(DIM.get(i), r)) {
                at = i;
                break;
            }
        }
        boolean acc = r.getKind() == RowKind.INSERT || r.getKind() == RowKind.UPDATE_AFTER;
        if (acc) {
            if (at >= 0 && DIM_PK.length > 0) {
                DIM.set(at, r);
            } else {
                DIM.add(r);
            }
        } else if (at >= 0) {
            DIM.remove(at);
        }
    }

    static synchronized List<Row> lookupDim(Object key) {
        List<Row> found = new ArrayList<>();
        if (key == null) {
            return found;
        }
        for (Row r : DIM) {
            if (key.equals(r.getField(DIM_KEY))) {
                found.add(r);
            }
        }
        return found;
    }

    /** `'connector' = 'joinlab-dim'`. */
    public static final class DimFactory implements DynamicTableSourceFactory {
        @Override
        public String factoryIdentifier() {
            return "joinlab-dim";
        }

        @Override
        public java.util.Set<ConfigOption<?>> requiredOptions() {
            return new java.util.HashSet<>();
        }

        @Override
        public java.util.Set<ConfigOption<?>> optionalOptions() {
            return new java.util.HashSet<>();
        }

        @Override
        public DynamicTableSource createDynamicTableSource(DynamicTableFactory.Context context) {
            return new DimSource();
        }
    }

    static final class DimSource implements LookupTableSource {
        @Override
        public LookupRuntimeProvider getLookupRuntimeProvider(LookupTableSource.LookupContext context) {
            return LookupFunctionProvider.of(new DimLookup());
        }

        @Override
        public DynamicTableSource copy() {
            return new DimSource();
        }

        @Override
        public String asSummaryString() {
            return "joinlab dimension table";
        }
    }

    /** Answers from the dimension table as it stands now (the pacer's processing time). */
    public static final class DimLookup extends LookupFunction {
        @Override
        public java.util.Collection<RowData> lookup(RowData keyRow) {
            Object key = internalToJava(keyRow, 0, DIM_TYPES[DIM_KEY]);
            List<RowData> out = new ArrayList<>();
            for (Row r : lookupDim(key)) {
                GenericRowData g = new GenericRowData(r.getArity());
                for (int i = 0; i < r.getArity(); i++) {
                    Object v = r.getField(i);
                    if (v instanceof String) {
                        v = StringData.fromString((String) v);
                    } else if (DIM_TS[i] && v instanceof Long) {
                        // A TIMESTAMP(3) column of a script's lookup table (milliseconds in the rows).
                        v = TimestampData.fromEpochMillis((Long) v);
                    }
                    g.setField(i, v);
                }
                out.add(g);
            }
            return out;
        }

        static Object internalToJava(RowData row, int i, String type) {
            if (row.isNullAt(i)) {
                return null;
            }
            switch (type) {
                case "int": return row.getInt(i);
                case "long": return row.getLong(i);
                case "double": return row.getDouble(i);
                case "boolean": return row.getBoolean(i);
                case "string": return row.getString(i).toString();
                default: { // decimal(p,s)
                    String[] ps = type.substring(8, type.length() - 1).split(",");
                    return row.getDecimal(i, Integer.parseInt(ps[0]), Integer.parseInt(ps[1])).toBigDecimal();
                }
            }
        }
    }

    /** Makes DimFactory discoverable (Flink finds table factories with ServiceLoader). */
    static void installDimFactory() throws Exception {
        Path dir = Files.createTempDirectory("joinlab-dim");
        Path svc = dir.resolve("META-INF/services/" + Factory.class.getName());
        Files.createDirectories(svc.getParent());
        Files.writeString(svc, DimFactory.class.getName() + "\n");
        ClassLoader parent = Thread.currentThread().getContextClassLoader();
        if (parent == null) {
            parent = DimFactory.class.getClassLoader();
        }
        Thread.currentThread().setContextClassLoader(new URLClassLoader(new URL[] {dir.toUri().toURL()}, parent));
    }

"#;

/// The lookup join's main() lines before the table environment: only the probe stream runs
/// through the job; the dimension rows are applied by the pacer (`Rt.SIDE_EVENT`) when their
/// turn in the arrival order comes. `src` is `flink_java::sources`' text.
pub(super) fn lookup_sources(src: &str, class_name: &str) -> String {
    let mut m: String = src
        .lines()
        .filter(|line| !line.contains("Rt.source(env, 1)"))
        .map(|line| format!("{line}\n"))
        .collect();
    let _ = writeln!(m, "        Rt.SIDE_STREAM = 1;");
    let _ = writeln!(m, "        Rt.SIDE_EVENT = {class_name}::applyDim;");
    let _ = writeln!(m, "        DIM.clear();");
    let _ = writeln!(m, "        installDimFactory();");
    m
}

/// `CREATE TEMPORARY TABLE name (columns…[, PRIMARY KEY (…) NOT ENFORCED]) WITH ('connector' =
/// 'joinlab-dim')`: the lookup table over the job's `JoinlabDim` source. `columns` are SQL
/// column definitions (`` `c` TYPE `` or a computed column).
pub(super) fn dim_ddl(name: &str, columns: &[String], pk: &[String]) -> String {
    let pk_sql = if pk.is_empty() {
        String::new()
    } else {
        format!(
            ", PRIMARY KEY ({}) NOT ENFORCED",
            pk.iter()
                .map(|p| q(p.trim()))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    format!(
        "CREATE TEMPORARY TABLE {} ({}{pk_sql}) WITH ('connector' = 'joinlab-dim')",
        q(name),
        columns.join(", ")
    )
}

/// The lookup source's classes (and the dimension table's key, primary key, types and
/// `TIMESTAMP(3)` columns `ts`, which the rows give as milliseconds).
pub(super) fn lookup_classes(plan: &Plan, ts: &[usize]) -> String {
    let r = &plan.schemas[1];
    let pk = &plan.scenario.streams[1].primary_key;
    let mut c = String::new();
    let pk_idx: Vec<String> = pk
        .iter()
        .filter_map(|p| r.columns.iter().position(|col| col.name == p.trim()))
        .map(|i| i.to_string())
        .collect();
    let _ = writeln!(
        c,
        "    /** The dimension table's primary key columns, join key column, types and timestamp columns. */"
    );
    let _ = writeln!(
        c,
        "    static final int[] DIM_PK = {{{}}};",
        pk_idx.join(", ")
    );
    let _ = writeln!(c, "    static final int DIM_KEY = {};", r.key.unwrap_or(0));
    let _ = writeln!(c, "    static final String[] DIM_TYPES = COLUMN_TYPES[1];");
    let flags: Vec<&str> = (0..r.columns.len())
        .map(|i| if ts.contains(&i) { "true" } else { "false" })
        .collect();
    let _ = writeln!(
        c,
        "    static final boolean[] DIM_TS = {{{}}};\n",
        flags.join(", ")
    );
    c.push_str(LOOKUP_CLASSES);
    c
}

/// The imports of the lookup source's classes.
pub(super) fn lookup_imports() -> Vec<String> {
    [
        "org.apache.flink.configuration.ConfigOption",
        "org.apache.flink.table.connector.source.DynamicTableSource",
        "org.apache.flink.table.connector.source.LookupTableSource",
        "org.apache.flink.table.connector.source.lookup.LookupFunctionProvider",
        "org.apache.flink.table.data.GenericRowData",
        "org.apache.flink.table.data.RowData",
        "org.apache.flink.table.data.StringData",
        "org.apache.flink.table.data.TimestampData",
        "org.apache.flink.table.factories.DynamicTableFactory",
        "org.apache.flink.table.factories.DynamicTableSourceFactory",
        "org.apache.flink.table.factories.Factory",
        "org.apache.flink.table.functions.LookupFunction",
    ]
    .iter()
    .map(|s| format!("import {s};"))
    .collect()
}

pub(crate) fn generate(plan: &Plan, class_name: &str) -> Result<String, Error> {
    let job = &plan.scenario.job;
    let sql = &job.sql;
    let (l, r) = (&plan.schemas[0], &plan.schemas[1]);
    let lookup = plan.operator == OperatorKind::LookupJoin;
    let (src, vars) = super::flink_java::sources(plan);
    let mut m = String::new();
    let mut c = show_class();
    if lookup {
        m.push_str(&lookup_sources(&src, class_name));
    } else {
        m.push_str(&src);
        // The planner puts a DropUpdateBefore after the versioned table's scan (the temporal
        // join needs only UPDATE_AFTER): its -U rows never reach the join.
        let _ = writeln!(m, "        Rt.UB_DROPPED_STREAM = 1;");
    }
    let _ = writeln!(
        m,
        "        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);"
    );
    let lv = &vars[0];
    let _ = writeln!(
        m,
        "        tEnv.createTemporaryView({}, tEnv.fromDataStream({lv}, Schema.newBuilder()",
        jstr(&l.name)
    );
    m.push_str(&super::text::declared_columns(l));
    if lookup {
        let _ = writeln!(
            m,
            "                .columnByExpression(\"jl_proctime\", \"PROCTIME()\")"
        );
    } else {
        let _ = writeln!(m, "                .columnByMetadata(\"jl_rowtime\", DataTypes.TIMESTAMP_LTZ(3), \"rowtime\") // the record timestamp = the time column");
        let _ = writeln!(
            m,
            "                .watermark(\"jl_rowtime\", \"SOURCE_WATERMARK()\")"
        );
    }
    let _ = writeln!(m, "                .build()));");
    let pk = &plan.scenario.streams[1].primary_key;
    if lookup {
        let cols: Vec<String> = r
            .columns
            .iter()
            .map(|col| format!("{} {}", q(&col.name), sql_type(col.ty)))
            .collect();
        let ddl = dim_ddl(&r.name, &cols, pk);
        let _ = writeln!(m, "        tEnv.executeSql(\"{}\");", js(&ddl));
    } else {
        let rv = &vars[1];
        let _ = writeln!(
            m,
            "        tEnv.createTemporaryView({}, tEnv.fromChangelogStream({rv}, Schema.newBuilder()",
            jstr(&r.name)
        );
        for col in &r.columns {
            let nn = if pk.iter().any(|p| p.trim() == col.name) {
                ".notNull()"
            } else {
                ""
            };
            let _ = writeln!(
                m,
                "                .column({}, DataTypes.{}{nn})",
                jstr(&col.name),
                match col.ty {
                    ColumnType::Decimal(p, s) => format!("DECIMAL({p}, {s})"),
                    t => format!("{}()", sql_type(t)),
                }
            );
        }
        let _ = writeln!(m, "                .columnByMetadata(\"jl_rowtime\", DataTypes.TIMESTAMP_LTZ(3), \"rowtime\") // the record timestamp = the time column");
        let _ = writeln!(m, "                .watermark(\"jl_rowtime\", \"SOURCE_WATERMARK()\") // the versioned table needs a watermark");
        let _ = writeln!(
            m,
            "                .primaryKey({})                                      // ... and a primary key",
            pk.iter().map(|p| jstr(p.trim())).collect::<Vec<_>>().join(", ")
        );
        let _ = writeln!(m, "                .build(), ChangelogMode.all()));");
    }
    let lk = &l.columns[l.key.unwrap_or(0)].name;
    let rk = &r.columns[r.key.unwrap_or(0)].name;
    let time_attr = if lookup { "jl_proctime" } else { "jl_rowtime" };
    let cols: Vec<String> = select_list("L", l)
        .into_iter()
        .chain(select_list("R", r))
        .collect();
    let query = format!(
        "SELECT {} FROM {} AS L {} {} FOR SYSTEM_TIME AS OF L.{time_attr} AS R ON L.{} = R.{}",
        cols.join(", "),
        q(&l.name),
        sql.join.sql(),
        q(&r.name),
        q(lk),
        q(rk)
    );
    let _ = writeln!(
        m,
        "        Table result = tEnv.sqlQuery(\"{}\");",
        js(&query)
    );
    let _ = writeln!(
        m,
        "        DataStream<Row> changes = tEnv.toChangelogStream(result);"
    );
    let _ = writeln!(m, "        changes.process(new Show({})).setParallelism(OPERATOR_PARALLELISM).sinkTo(new Rt.Print()).setParallelism(OPERATOR_PARALLELISM).name(\"print changelog\");", l.columns.len());
    if lookup {
        // The dimension table's columns are typed as the scenario types them (no TIMESTAMP).
        c.push_str(&lookup_classes(plan, &[]));
    }
    let summary = if lookup {
        vec![
            format!("Flink SQL lookup join (processing time): {query}."),
            "The dimension table is a LookupTableSource defined below that answers from the dimension rows as they stand at the simulated processing time (the pacer applies each dimension row at its arrival).".into(),
        ]
    } else {
        vec![format!("Flink SQL event-time temporal join: {query}.")]
    };
    let mut imports: Vec<String> = [
        "org.apache.flink.streaming.api.functions.ProcessFunction",
        "org.apache.flink.table.api.DataTypes",
        "org.apache.flink.table.api.Schema",
        "org.apache.flink.table.api.Table",
        "org.apache.flink.table.api.bridge.java.StreamTableEnvironment",
        "org.apache.flink.table.connector.ChangelogMode",
    ]
    .iter()
    .map(|s| format!("import {s};"))
    .collect();
    if lookup {
        imports.extend(lookup_imports());
    }
    let parts = JobParts {
        imports,
        summary,
        operator_name: if lookup { "LookupJoin" } else { "TemporalJoin" }.into(),
        // The lookup join is chained to the probe's assigner (forward edges, same parallelism).
        shape: if lookup { Shape::Chained } else { Shape::Two },
        output_watermark_delay: 0,
        pace_watermarks: !lookup,
        main: m,
        classes: c,
    };
    assemble(plan, class_name, parts)
}
