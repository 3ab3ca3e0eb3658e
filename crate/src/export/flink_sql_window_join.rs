//! The Flink SQL window join as a runnable job: both streams become tables with the record
//! timestamp as a `TIMESTAMP_LTZ(3)` rowtime and `SOURCE_WATERMARK()` (as in [`super::flink_sql`]),
//! each is windowed by the same TVF, and the query joins them on `window_start`,
//! `window_end` and the key:
//!
//! ```sql
//! SELECT L.*, R.*, window columns
//! FROM (SELECT * FROM TABLE(TUMBLE(TABLE `l`, DESCRIPTOR(jl_rowtime), INTERVAL '5' SECOND))) AS L
//! [LEFT|RIGHT|FULL OUTER] JOIN (SELECT * FROM TABLE(TUMBLE(TABLE `r`, …))) AS R
//! ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k
//! ```
//!
//! Semi and anti joins are `WHERE [NOT] EXISTS (SELECT * FROM … AS R WHERE <same condition>)`.
//! The query selects the scenario's columns and the window bounds, but not `window_time` nor
//! the rowtime: a result with two rowtime attributes cannot go through `toChangelogStream`.
//! `table.local-time-zone` is UTC, so the TVF's windows are the scenario's epoch-millisecond
//! windows (`TimeWindowUtil` shifts windows by the session time zone for `TIMESTAMP_LTZ`).
//! Each windowed copy of a row is one record at the join, so the pacer counts a row as the
//! number of windows the TVF gives it (`Rt.ROW_WEIGHT`).
//!
//! `SESSION` is `SESSION(TABLE t PARTITION BY k, DESCRIPTOR(jl_rowtime), gap)` on both sides
//! (no `PARTITION BY` without a key), which Flink runs as a `WindowTableFunction` per input
//! before the `WindowJoin`: the pacer watches those as its local operators (rows in, records
//! out, their watermarks), and the job prints their `numLateRecordsDropped`.

use super::flink_sql::interval;
use super::{assemble, jstr, JobParts, Shape};
use crate::error::Error;
use crate::plan::Plan;
use crate::scenario::{JoinType, TvfKind};
use crate::tvf::Tvf;
use std::fmt::Write;

fn q(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// Java source text of a string in a Java string literal.
fn java_lit(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

pub(crate) fn generate(plan: &Plan, class_name: &str) -> Result<String, Error> {
    let job = &plan.scenario.job;
    let session = job.tvf.kind == TvfKind::Session;
    let tvf = if session {
        None
    } else {
        Some(Tvf::of(&job.tvf, "job.tvf").map_err(|(f, m)| Error::config(f, m))?)
    };
    let join = job.sql.join;
    let (l, r) = (&plan.schemas[0], &plan.schemas[1]);
    let (src, vars) = super::flink_java::sources(plan);
    let mut m = src;
    let _ = writeln!(
        m,
        "        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);"
    );
    let _ = writeln!(
        m,
        "        tEnv.getConfig().set(\"table.local-time-zone\", \"UTC\");"
    );
    for (i, s) in plan.schemas.iter().enumerate() {
        let _ = writeln!(
            m,
            "        tEnv.createTemporaryView({}, tEnv.fromDataStream({}, Schema.newBuilder()",
            jstr(&s.name),
            vars[i]
        );
        m.push_str(&super::text::declared_columns(s));
        let _ = writeln!(m, "                .columnByMetadata(\"jl_rowtime\", DataTypes.TIMESTAMP_LTZ(3), \"rowtime\") // the record timestamp = the time column");
        let _ = writeln!(m, "                .watermark(\"jl_rowtime\", \"SOURCE_WATERMARK()\")   // the DataStream's watermarks");
        let _ = writeln!(m, "                .build()));");
    }
    // Every interval of the TVF must have a literal (checked here, so the closure cannot fail).
    for ms in [job.tvf.size.0, job.tvf.offset.0]
        .into_iter()
        .chain(job.tvf.slide.map(|s| s.0))
        .chain(job.tvf.step.map(|s| s.0))
        .chain(job.tvf.gap.map(|s| s.0))
    {
        interval(ms)?;
    }
    let iv = |ms: i64| interval(ms).unwrap_or_default();
    let keyed = l.key.is_some() && r.key.is_some();
    let windowed = |s: &crate::parse::Schema| match tvf {
        Some(t) => t.sql(&q(&s.name), "jl_rowtime", &iv),
        // SESSION, partitioned by the key the join equates (the simulated plan).
        None => format!(
            "SESSION(TABLE {}{}, DESCRIPTOR(jl_rowtime), {})",
            q(&s.name),
            match s.key {
                Some(k) if keyed => format!(" PARTITION BY {}", q(&s.columns[k].name)),
                _ => String::new(),
            },
            iv(job.tvf.gap.map_or(0, |g| g.0))
        ),
    };
    let lw = windowed(l);
    let rw = windowed(r);
    let mut conds = vec![
        "L.window_start = R.window_start".to_string(),
        "L.window_end = R.window_end".to_string(),
    ];
    if keyed {
        conds.push(format!(
            "L.{} = R.{}",
            q(&l.columns[l.key.unwrap_or(0)].name),
            q(&r.columns[r.key.unwrap_or(0)].name)
        ));
    }
    let cols = |alias: &str, s: &crate::parse::Schema| -> Vec<String> {
        s.columns
            .iter()
            .map(|c| format!("{alias}.{}", q(&c.name)))
            .collect()
    };
    let semi = matches!(join, JoinType::Semi | JoinType::Anti);
    let mut select = cols("L", l);
    if !semi {
        select.extend(cols("R", r));
    }
    select.push("L.window_start AS jl_lws".into());
    select.push("L.window_end AS jl_lwe".into());
    if !semi {
        select.push("R.window_start AS jl_rws".into());
        select.push("R.window_end AS jl_rwe".into());
    }
    let lt = format!("(SELECT * FROM TABLE({lw}))");
    let rt = format!("(SELECT * FROM TABLE({rw}))");
    let query_lines: Vec<String> = if semi {
        vec![
            format!("SELECT {} ", select.join(", ")),
            format!("FROM {lt} AS L "),
            format!(
                "WHERE {}EXISTS (SELECT * FROM {rt} AS R ",
                if join == JoinType::Anti { "NOT " } else { "" }
            ),
            format!("WHERE {})", conds.join(" AND ")),
        ]
    } else {
        vec![
            format!("SELECT {} ", select.join(", ")),
            format!("FROM {lt} AS L "),
            format!("{} {rt} AS R ", join.sql()),
            format!("ON {}", conds.join(" AND ")),
        ]
    };
    let query: String = query_lines.concat();
    let _ = writeln!(m, "        Table result = tEnv.sqlQuery(");
    for (i, line) in query_lines.iter().enumerate() {
        let _ = writeln!(
            m,
            "                {}\"{}\"{}",
            if i == 0 { "" } else { "+ " },
            java_lit(line),
            if i + 1 == query_lines.len() { ");" } else { "" }
        );
    }
    let _ = writeln!(
        m,
        "        DataStream<Row> changes = tEnv.toChangelogStream(result);"
    );
    // Each row reaches the join once per window the TVF gives it (SESSION: one row into
    // the TVF, the pacer's local operator).
    if tvf.is_some() {
        let _ = writeln!(
            m,
            "        Rt.ROW_WEIGHT = (s, row) -> windowCount((Long) row.getField(TIME_COLUMN[s]));"
        );
    }
    let _ = writeln!(m, "        changes.process(new Show({}, {})).setParallelism(OPERATOR_PARALLELISM).sinkTo(new Rt.Print()).setParallelism(OPERATOR_PARALLELISM).name(\"print changelog\");", l.columns.len(), if semi { 0 } else { r.columns.len() });
    let mut c = tvf.map(window_count_helpers).unwrap_or_default();
    let _ = writeln!(
        c,
        "    /** Prints each result: the left row, the right row (null when padded), the window. */"
    );
    let _ = writeln!(
        c,
        "    static final class Show extends ProcessFunction<Row, String> {{"
    );
    let _ = writeln!(c, "        final int leftColumns, rightColumns;\n");
    let _ = writeln!(c, "        Show(int leftColumns, int rightColumns) {{");
    let _ = writeln!(c, "            this.leftColumns = leftColumns;");
    let _ = writeln!(c, "            this.rightColumns = rightColumns;");
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
    let _ = writeln!(c, "        static long millis(Object t) {{");
    let _ = writeln!(c, "            return ((java.time.LocalDateTime) t).toInstant(java.time.ZoneOffset.UTC).toEpochMilli();");
    let _ = writeln!(c, "        }}\n");
    let _ = writeln!(c, "        @Override");
    let _ = writeln!(
        c,
        "        public void processElement(Row row, Context ctx, Collector<String> out) {{"
    );
    let _ = writeln!(c, "            int w = leftColumns + rightColumns;");
    let _ = writeln!(
        c,
        "            // The window of the left row, or of the right one when the left is padded."
    );
    let _ = writeln!(
        c,
        "            int ws = row.getField(w) != null || rightColumns == 0 ? w : w + 2;"
    );
    let _ = writeln!(c, "            String window = millis(row.getField(ws)) + \",\" + millis(row.getField(ws + 1));");
    let _ = writeln!(
        c,
        "            String right = rightColumns == 0 ? \"null\" : part(row, leftColumns, w);"
    );
    let _ = writeln!(
        c,
        "            out.collect(\"JL|OUT|\" + Rt.subtask(getRuntimeContext()) + \"|\" + row.getKind().shortString() + \"|-|\" + part(row, 0, leftColumns) + \"|\" + right + \"|\" + window + \"|\" + Rt.CURRENT_EVENT);"
    );
    let _ = writeln!(c, "        }}");
    let _ = writeln!(c, "    }}\n");
    let parts = JobParts {
        imports: vec![
            "import org.apache.flink.streaming.api.functions.ProcessFunction;".into(),
            "import org.apache.flink.table.api.DataTypes;".into(),
            "import org.apache.flink.table.api.Schema;".into(),
            "import org.apache.flink.table.api.Table;".into(),
            "import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;".into(),
        ],
        summary: vec![format!("Flink SQL window join: {query}.")],
        operator_name: "WindowJoin".into(),
        shape: Shape::Two,
        output_watermark_delay: 0,
        pace_watermarks: true,
        main: m,
        classes: c,
    };
    assemble(plan, class_name, parts)
}

/// `windowStart` and `windowCount` (Java): how many windows the TVF gives a row, for the
/// pacer's `Rt.ROW_WEIGHT` (each windowed copy is one record at the join).
pub(crate) fn window_count_helpers(tvf: Tvf) -> String {
    let mut c = String::new();
    let (kind, a, b, off) = match tvf {
        Tvf::Tumble { size, offset } => (0, size, 0, offset),
        Tvf::Hop {
            size,
            slide,
            offset,
        } => (1, size, slide, offset),
        Tvf::Cumulate {
            max_size,
            step,
            offset,
        } => (2, max_size, step, offset),
    };
    let _ = writeln!(c, "    /** TimeWindow.getWindowStartWithOffset. */");
    let _ = writeln!(
        c,
        "    static long windowStart(long ts, long offset, long size) {{"
    );
    let _ = writeln!(c, "        long rem = (ts - offset) % size;");
    let _ = writeln!(c, "        return rem < 0 ? ts - (rem + size) : ts - rem;");
    let _ = writeln!(c, "    }}\n");
    let _ = writeln!(
        c,
        "    /** How many windows the TVF gives a row with rowtime ts (its assigner's loop). */"
    );
    let _ = writeln!(c, "    static long windowCount(long ts) {{");
    let _ = writeln!(c, "        final int kind = {kind};");
    let _ = writeln!(c, "        final long a = {a}L, b = {b}L, offset = {off}L;");
    let _ = writeln!(c, "        if (kind == 0) {{");
    let _ = writeln!(c, "            return 1;");
    let _ = writeln!(c, "        }}");
    let _ = writeln!(c, "        long n = 0;");
    let _ = writeln!(
        c,
        "        if (kind == 1) {{ // SlidingWindowAssigner: size a, slide b"
    );
    let _ = writeln!(
        c,
        "            for (long s = windowStart(ts, offset, b); s > ts - a; s -= b) {{"
    );
    let _ = writeln!(c, "                n++;");
    let _ = writeln!(c, "            }}");
    let _ = writeln!(c, "            return n;");
    let _ = writeln!(c, "        }}");
    let _ = writeln!(c, "        long ws = windowStart(ts, offset, a); // CumulativeWindowAssigner: max size a, step b");
    let _ = writeln!(
        c,
        "        for (long e = windowStart(ts, offset, b) + b; e <= ws + a; e += b) {{"
    );
    let _ = writeln!(c, "            n++;");
    let _ = writeln!(c, "        }}");
    let _ = writeln!(c, "        return n;");
    let _ = writeln!(c, "    }}\n");
    c
}
