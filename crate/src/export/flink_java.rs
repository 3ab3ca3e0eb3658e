//! DataStream API jobs: window join, interval join, window aggregation, side-output split.
//!
//! Each is the plain Flink 2.3 API a user would write; the only addition is that late rows are
//! always sent to a side output (with an internal tag `jl-late-…` when the scenario has none),
//! so the conformance suite sees them — that does not change any other result.
//! The window join is built the way `JoinedStreams`/`CoGroupedStreams` build it (tagged union →
//! `keyBy` → `window` → list state → left-major nested loop), because the public join API has
//! no `sideOutputLateData`.

use super::{assemble, duration, flink_type, ident, jstr, JobParts, Shape};
use crate::error::Error;
use crate::parse::Schema;
use crate::plan::Plan;
use crate::scenario::{OperatorKind, WindowKind};
use crate::value::ColumnType;
use std::fmt::Write;

/// Name given to the operator (its metrics are found by it).
const OP_NAME: &str = "joinlab operator";

pub(crate) fn generate(plan: &Plan, class_name: &str) -> Result<String, Error> {
    let parts = match plan.operator {
        OperatorKind::IntervalJoin => interval_join(plan),
        OperatorKind::WindowJoin => window_join(plan)?,
        OperatorKind::WindowAggregate => window_aggregate(plan)?,
        OperatorKind::Split => split(plan)?,
        OperatorKind::SqlIntervalJoin
        | OperatorKind::RegularJoin
        | OperatorKind::WindowTvfAggregate
        | OperatorKind::WindowTvfJoin
        | OperatorKind::TemporalJoin
        | OperatorKind::LookupJoin => {
            return Err(Error::config(
                "job.operator",
                "a SQL operator: use the SQL export",
            ));
        }
    };
    assemble(plan, class_name, parts)
}

/// `DataStream<Row> x = Rt.source(env, i);` for every stream, with the schema as a comment.
pub(crate) fn sources(plan: &Plan) -> (String, Vec<String>) {
    let mut o = String::new();
    let mut vars = Vec::new();
    for (i, s) in plan.schemas.iter().enumerate() {
        let mut v = ident(&s.name, &format!("stream{i}"));
        if vars.contains(&v) {
            v = format!("{v}{i}");
        }
        let cols: Vec<String> = s
            .columns
            .iter()
            .enumerate()
            .map(|(ci, c)| {
                let mut t = format!("{} {}", c.name, c.ty.sql_name());
                if Some(ci) == s.key {
                    t.push_str(" (key)");
                }
                if Some(ci) == s.time {
                    t.push_str(" (event time, ms)");
                }
                t
            })
            .collect();
        let _ = writeln!(
            o,
            "        // {}: {}",
            super::comment_text(&s.name),
            super::comment_text(&cols.join(", "))
        );
        let _ = writeln!(o, "        DataStream<Row> {v} = Rt.source(env, {i});");
        vars.push(v);
    }
    (o, vars)
}

/// The Java type of a stream's key and an expression extracting it from Row `r`.
fn key_of(s: &Schema, var: &str) -> (&'static str, String) {
    let k = s.key.unwrap_or(0);
    let ty = s.columns[k].ty;
    (
        ty.java_name(),
        format!("({}) {var}.getField({k})", ty.java_name()),
    )
}

fn key_type(s: &Schema) -> ColumnType {
    s.columns[s.key.unwrap_or(0)].ty
}

fn late_tag(plan: &Plan, left: bool) -> (String, bool) {
    let lo = &plan.scenario.job.late_output;
    let t = if left { &lo.left } else { &lo.right };
    match t {
        Some(t) => (t.clone(), true),
        None => (
            format!("jl-late-{}", if left { "left" } else { "right" }),
            false,
        ),
    }
}

fn interval_join(plan: &Plan) -> JobParts {
    let iv = &plan.scenario.job.interval;
    let (src, vars) = sources(plan);
    let (l, r) = (&plan.schemas[0], &plan.schemas[1]);
    let (kt_l, ke_l) = key_of(l, "r");
    let (kt_r, ke_r) = key_of(r, "r");
    let (tl, user_l) = late_tag(plan, true);
    let (tr, user_r) = late_tag(plan, false);
    let mut m = src;
    let _ = writeln!(
        m,
        "        final OutputTag<Row> lateLeft = new OutputTag<>({}, Rt.rowType(0));{}",
        jstr(&tl),
        if user_l {
            ""
        } else {
            " // (added so late rows can be seen)"
        }
    );
    let _ = writeln!(
        m,
        "        final OutputTag<Row> lateRight = new OutputTag<>({}, Rt.rowType(1));{}",
        jstr(&tr),
        if user_r {
            ""
        } else {
            " // (added so late rows can be seen)"
        }
    );
    let _ = writeln!(
        m,
        "        SingleOutputStreamOperator<String> joined = {}",
        vars[0]
    );
    let _ = writeln!(
        m,
        "                .keyBy(r -> {ke_l}, {})",
        flink_type(key_type(l))
    );
    let _ = writeln!(
        m,
        "                .intervalJoin({}.keyBy(r -> {ke_r}, {}))",
        vars[1],
        flink_type(key_type(r))
    );
    let _ = writeln!(
        m,
        "                .between({}, {})",
        duration(iv.lower.0),
        duration(iv.upper.0)
    );
    if iv.lower_exclusive {
        let _ = writeln!(m, "                .lowerBoundExclusive()");
    }
    if iv.upper_exclusive {
        let _ = writeln!(m, "                .upperBoundExclusive()");
    }
    let _ = writeln!(m, "                .sideOutputLeftLateData(lateLeft)");
    let _ = writeln!(m, "                .sideOutputRightLateData(lateRight)");
    let _ = writeln!(m, "                .process(new Join())");
    let _ = writeln!(m, "                .name(OPERATOR_NAME);");
    let _ = writeln!(
        m,
        "        joined.sinkTo(new Rt.Print()).name(\"print results\");"
    );
    let _ = writeln!(m, "        joined.getSideOutput(lateLeft).process(new Late(0, {})).sinkTo(new Rt.Print()).name(\"print late {}\");", jstr(if user_l { &tl } else { "-" }), super::comment_text(&l.name).replace('"', "'"));
    let _ = writeln!(m, "        joined.getSideOutput(lateRight).process(new Late(1, {})).sinkTo(new Rt.Print()).name(\"print late {}\");", jstr(if user_r { &tr } else { "-" }), super::comment_text(&r.name).replace('"', "'"));
    let mut c = String::new();
    let _ = writeln!(
        c,
        "    /** Prints each joined pair; the result's timestamp is max(left, right). */"
    );
    let _ = writeln!(
        c,
        "    static final class Join extends ProcessJoinFunction<Row, Row, String> {{"
    );
    let _ = writeln!(c, "        @Override");
    let _ = writeln!(c, "        public void processElement(Row left, Row right, Context ctx, Collector<String> out) {{");
    let _ = writeln!(c, "            out.collect(\"JL|OUT|\" + Rt.subtask(getRuntimeContext()) + \"|+I|\" + Rt.ts(ctx.getTimestamp()) + \"|\" + Rt.json(left) + \"|\" + Rt.json(right) + \"|-\");");
    let _ = writeln!(c, "        }}");
    let _ = writeln!(c, "    }}\n");
    c.push_str(LATE_CLASS);
    let _ = (kt_l, kt_r);
    JobParts {
        imports: vec![
            "import org.apache.flink.streaming.api.functions.co.ProcessJoinFunction;".into(),
            "import org.apache.flink.streaming.api.functions.ProcessFunction;".into(),
        ],
        summary: vec![format!(
            "DataStream interval join: {}.keyBy({}).intervalJoin({}.keyBy({})).between({} ms, {} ms){}{}.",
            l.name,
            l.columns[l.key.unwrap_or(0)].name,
            r.name,
            r.columns[r.key.unwrap_or(0)].name,
            iv.lower.0,
            iv.upper.0,
            if iv.lower_exclusive { ".lowerBoundExclusive()" } else { "" },
            if iv.upper_exclusive { ".upperBoundExclusive()" } else { "" }
        )],
        operator_name: OP_NAME.into(),
        shape: Shape::Two,
        output_watermark_delay: 0,
        pace_watermarks: true,
        main: m,
        classes: c,
    }
}

const LATE_CLASS: &str = "    /** Prints a late row (a late side output). */
    static final class Late extends ProcessFunction<Row, String> {
        final int stream;
        final String tag;

        Late(int stream, String tag) {
            this.stream = stream;
            this.tag = tag;
        }

        @Override
        public void processElement(Row row, Context ctx, Collector<String> out) {
            out.collect(\"JL|LATE|\" + Rt.subtask(getRuntimeContext()) + \"|\" + STREAM_NAMES[stream] + \"|\" + tag + \"|\" + Rt.ts(ctx.timestamp()) + \"|\" + Rt.json(row));
        }
    }
";

/// The window assigner expression.
fn assigner(plan: &Plan) -> String {
    let w = &plan.scenario.job.window;
    match w.kind {
        WindowKind::Tumbling => format!(
            "TumblingEventTimeWindows.of({}, {})",
            duration(w.size.0),
            duration(w.offset.0)
        ),
        WindowKind::Sliding => format!(
            "SlidingEventTimeWindows.of({}, {}, {})",
            duration(w.size.0),
            duration(w.slide.map(|s| s.0).unwrap_or(0)),
            duration(w.offset.0)
        ),
        WindowKind::Session => format!(
            "EventTimeSessionWindows.withGap({})",
            duration(w.gap.map(|g| g.0).unwrap_or(w.size.0))
        ),
    }
}

fn window_import(plan: &Plan) -> String {
    match plan.scenario.job.window.kind {
        WindowKind::Tumbling => {
            "import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;"
                .into()
        }
        WindowKind::Sliding => {
            "import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;"
                .into()
        }
        WindowKind::Session => {
            "import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;"
                .into()
        }
    }
}

fn window_join(plan: &Plan) -> Result<JobParts, Error> {
    let job = &plan.scenario.job;
    let (src, vars) = sources(plan);
    let (l, r) = (&plan.schemas[0], &plan.schemas[1]);
    if key_type(l) != key_type(r) {
        return Err(Error::config(
            "streams",
            format!("the key columns have different Java types ({} and {}); JoinedStreams requires equal key types", key_type(l).java_name(), key_type(r).java_name()),
        ));
    }
    let kt = key_type(l).java_name();
    let kl = l.key.unwrap_or(0);
    let kr = r.key.unwrap_or(0);
    let mut m = src;
    let _ = writeln!(m, "        // What {}.join({}).where(..).equalTo(..).window(..).apply(..) builds (JoinedStreams ->", vars[0], vars[1]);
    let _ = writeln!(m, "        // CoGroupedStreams): each side tagged, the union keyed, one WindowOperator with list");
    let _ = writeln!(
        m,
        "        // state. Built by hand only to add sideOutputLateData, which the join API lacks."
    );
    let _ = writeln!(m, "        final RowTypeInfo tagged = new RowTypeInfo(new TypeInformation<?>[] {{Types.INT, Rt.rowType(0), Rt.rowType(1)}}, new String[] {{\"side\", \"left\", \"right\"}});");
    let _ = writeln!(m, "        final OutputTag<Row> late = new OutputTag<>(\"jl-late\", tagged); // (added so late rows can be seen)");
    let _ = writeln!(m, "        DataStream<Row> taggedLeft = {}.map(r -> Row.of(0, r, null)).returns(tagged).name(\"tag {}\");", vars[0], super::comment_text(&l.name).replace('"', "'"));
    let _ = writeln!(m, "        DataStream<Row> taggedRight = {}.map(r -> Row.of(1, null, r)).returns(tagged).name(\"tag {}\");", vars[1], super::comment_text(&r.name).replace('"', "'"));
    let _ = writeln!(
        m,
        "        SingleOutputStreamOperator<String> joined = taggedLeft.union(taggedRight)"
    );
    let _ = writeln!(
        m,
        "                .keyBy(u -> (Integer) u.getField(0) == 0 ? ({kt}) ((Row) u.getField(1)).getField({kl}) : ({kt}) ((Row) u.getField(2)).getField({kr}), {})",
        flink_type(key_type(l))
    );
    let _ = writeln!(m, "                .window({})", assigner(plan));
    if job.allowed_lateness.0 > 0 {
        let _ = writeln!(
            m,
            "                .allowedLateness({})",
            duration(job.allowed_lateness.0)
        );
    }
    let _ = writeln!(m, "                .sideOutputLateData(late)");
    let _ = writeln!(m, "                .apply(new Join())");
    let _ = writeln!(m, "                .name(OPERATOR_NAME);");
    let _ = writeln!(
        m,
        "        joined.sinkTo(new Rt.Print()).name(\"print results\");"
    );
    let _ = writeln!(m, "        joined.getSideOutput(late).process(new LateTagged()).sinkTo(new Rt.Print()).name(\"print late rows\");");
    let mut c = String::new();
    let _ = writeln!(
        c,
        "    /** CoGroupedStreams' window function with JoinedStreams' nested loop: left-major. */"
    );
    let _ = writeln!(
        c,
        "    static final class Join extends RichWindowFunction<Row, String, {kt}, TimeWindow> {{"
    );
    let _ = writeln!(c, "        @Override");
    let _ = writeln!(c, "        public void apply({kt} key, TimeWindow window, Iterable<Row> input, Collector<String> out) {{");
    let _ = writeln!(c, "            List<Row> lefts = new ArrayList<>();");
    let _ = writeln!(c, "            List<Row> rights = new ArrayList<>();");
    let _ = writeln!(c, "            for (Row u : input) {{");
    let _ = writeln!(c, "                if ((Integer) u.getField(0) == 0) {{");
    let _ = writeln!(c, "                    lefts.add((Row) u.getField(1));");
    let _ = writeln!(c, "                }} else {{");
    let _ = writeln!(c, "                    rights.add((Row) u.getField(2));");
    let _ = writeln!(c, "                }}");
    let _ = writeln!(c, "            }}");
    let _ = writeln!(c, "            String head = \"JL|OUT|\" + Rt.subtask(getRuntimeContext()) + \"|+I|\" + window.maxTimestamp() + \"|\";");
    let _ = writeln!(
        c,
        "            String tail = \"|\" + window.getStart() + \",\" + window.getEnd();"
    );
    let _ = writeln!(c, "            for (Row l : lefts) {{");
    let _ = writeln!(c, "                for (Row r : rights) {{");
    let _ = writeln!(
        c,
        "                    out.collect(head + Rt.json(l) + \"|\" + Rt.json(r) + tail);"
    );
    let _ = writeln!(c, "                }}");
    let _ = writeln!(c, "            }}");
    let _ = writeln!(c, "        }}");
    let _ = writeln!(c, "    }}\n");
    let _ = writeln!(c, "    /** Prints a late row of either side. */");
    let _ = writeln!(
        c,
        "    static final class LateTagged extends ProcessFunction<Row, String> {{"
    );
    let _ = writeln!(c, "        @Override");
    let _ = writeln!(
        c,
        "        public void processElement(Row u, Context ctx, Collector<String> out) {{"
    );
    let _ = writeln!(c, "            int side = (Integer) u.getField(0);");
    let _ = writeln!(c, "            out.collect(\"JL|LATE|\" + Rt.subtask(getRuntimeContext()) + \"|\" + STREAM_NAMES[side] + \"|-|\" + Rt.ts(ctx.timestamp()) + \"|\" + Rt.json((Row) u.getField(side + 1)));");
    let _ = writeln!(c, "        }}");
    let _ = writeln!(c, "    }}\n");
    Ok(JobParts {
        imports: vec![
            window_import(plan),
            "import org.apache.flink.streaming.api.functions.windowing.RichWindowFunction;".into(),
            "import org.apache.flink.streaming.api.functions.ProcessFunction;".into(),
            "import org.apache.flink.streaming.api.windowing.windows.TimeWindow;".into(),
        ],
        summary: vec![format!(
            "DataStream window join: {}.join({}).where({}).equalTo({}).window({}){}.apply(..).",
            l.name,
            r.name,
            l.columns[kl].name,
            r.columns[kr].name,
            assigner(plan),
            if job.allowed_lateness.0 > 0 {
                format!(".allowedLateness({} ms)", job.allowed_lateness.0)
            } else {
                String::new()
            }
        )],
        operator_name: OP_NAME.into(),
        shape: Shape::Union,
        output_watermark_delay: 0,
        pace_watermarks: true,
        main: m,
        classes: c,
    })
}

fn window_aggregate(plan: &Plan) -> Result<JobParts, Error> {
    let job = &plan.scenario.job;
    let (src, vars) = sources(plan);
    let s = &plan.schemas[0];
    let kt = key_type(s).java_name();
    let (_, ke) = key_of(s, "r");
    let sum = job.aggregate.sum.as_ref().and_then(|name| {
        let i = s.columns.iter().position(|c| c.name == name.trim())?;
        match s.columns[i].ty {
            ColumnType::Int | ColumnType::Long => {
                Some((i, "Long", "long", "0L", "((Number) v).longValue()"))
            }
            ColumnType::Double => Some((i, "Double", "double", "0.0", "(Double) v")),
            _ => None,
        }
    });
    let (tag, user) = late_tag(plan, true);
    let mut m = src;
    let _ = writeln!(
        m,
        "        final OutputTag<Row> late = new OutputTag<>({}, Rt.rowType(0));{}",
        jstr(&tag),
        if user {
            ""
        } else {
            " // (added so late rows can be seen)"
        }
    );
    let _ = writeln!(
        m,
        "        SingleOutputStreamOperator<String> windows = {}",
        vars[0]
    );
    let _ = writeln!(
        m,
        "                .keyBy(r -> {ke}, {})",
        flink_type(key_type(s))
    );
    let _ = writeln!(m, "                .window({})", assigner(plan));
    if job.allowed_lateness.0 > 0 {
        let _ = writeln!(
            m,
            "                .allowedLateness({})",
            duration(job.allowed_lateness.0)
        );
    }
    let _ = writeln!(m, "                .sideOutputLateData(late)");
    let _ = writeln!(
        m,
        "                .aggregate(new CountAndSum(), new WithWindow())"
    );
    let _ = writeln!(m, "                .name(OPERATOR_NAME);");
    let _ = writeln!(
        m,
        "        windows.sinkTo(new Rt.Print()).name(\"print results\");"
    );
    let _ = writeln!(m, "        windows.getSideOutput(late).process(new Late(0, {})).sinkTo(new Rt.Print()).name(\"print late rows\");", jstr(if user { &tag } else { "-" }));
    let (st, sp, zero) = match sum {
        Some((_, b, p, z, _)) => (b, p, z),
        None => ("Long", "long", "0L"),
    };
    let mut c = String::new();
    let _ = writeln!(
        c,
        "    /** count{} per key and window, folded in arrival order. */",
        if sum.is_some() { " and sum" } else { "" }
    );
    let _ = writeln!(c, "    static final class CountAndSum implements AggregateFunction<Row, Tuple2<Long, {st}>, Tuple2<Long, {st}>> {{");
    let _ = writeln!(c, "        @Override");
    let _ = writeln!(
        c,
        "        public Tuple2<Long, {st}> createAccumulator() {{"
    );
    let _ = writeln!(c, "            return Tuple2.of(0L, {zero});");
    let _ = writeln!(c, "        }}\n");
    let _ = writeln!(c, "        @Override");
    let _ = writeln!(
        c,
        "        public Tuple2<Long, {st}> add(Row r, Tuple2<Long, {st}> a) {{"
    );
    match sum {
        Some((i, _, _, _, conv)) => {
            let _ = writeln!(c, "            Object v = r.getField({i});");
            let _ = writeln!(c, "            {sp} x = v == null ? {zero} : {conv};");
            let _ = writeln!(c, "            return Tuple2.of(a.f0 + 1, a.f1 + x);");
        }
        None => {
            let _ = writeln!(c, "            return Tuple2.of(a.f0 + 1, a.f1);");
        }
    }
    let _ = writeln!(c, "        }}\n");
    let _ = writeln!(c, "        @Override");
    let _ = writeln!(
        c,
        "        public Tuple2<Long, {st}> getResult(Tuple2<Long, {st}> a) {{"
    );
    let _ = writeln!(c, "            return a;");
    let _ = writeln!(c, "        }}\n");
    let _ = writeln!(c, "        @Override");
    let _ = writeln!(
        c,
        "        public Tuple2<Long, {st}> merge(Tuple2<Long, {st}> a, Tuple2<Long, {st}> b) {{"
    );
    let _ = writeln!(c, "            return Tuple2.of(a.f0 + b.f0, a.f1 + b.f1);");
    let _ = writeln!(c, "        }}");
    let _ = writeln!(c, "    }}\n");
    let _ = writeln!(c, "    /**\n     * Prints (key, window, count, sum) and the firing number of the window (allowed lateness\n     * re-fires it; the map is only for that annotation: leave it out in production).\n     */");
    let _ = writeln!(c, "    static final class WithWindow extends ProcessWindowFunction<Tuple2<Long, {st}>, String, {kt}, TimeWindow> {{");
    let _ = writeln!(
        c,
        "        private final Map<String, Integer> firings = new HashMap<>();\n"
    );
    let _ = writeln!(c, "        @Override");
    let _ = writeln!(c, "        public void process({kt} key, Context ctx, Iterable<Tuple2<Long, {st}>> acc, Collector<String> out) {{");
    let _ = writeln!(
        c,
        "            Tuple2<Long, {st}> a = acc.iterator().next();"
    );
    let _ = writeln!(c, "            TimeWindow w = ctx.window();");
    let _ = writeln!(c, "            int firing = firings.merge(key + \"@\" + w.getStart() + \",\" + w.getEnd(), 1, Integer::sum);");
    let sum_text = if sum.is_some() { "a.f1" } else { "\"null\"" };
    let _ = writeln!(
        c,
        "            out.collect(\"JL|WIN|\" + Rt.subtask(getRuntimeContext()) + \"|\" + Rt.json(key) + \"|\" + w.getStart() + \"|\" + w.getEnd() + \"|\" + a.f0 + \"|\" + {sum_text} + \"|\" + w.maxTimestamp() + \"|\" + firing);"
    );
    let _ = writeln!(c, "        }}");
    let _ = writeln!(c, "    }}\n");
    c.push_str(LATE_CLASS);
    let _ = sp;
    Ok(JobParts {
        imports: vec![
            window_import(plan),
            "import org.apache.flink.api.common.functions.AggregateFunction;".into(),
            "import org.apache.flink.api.java.tuple.Tuple2;".into(),
            "import org.apache.flink.streaming.api.functions.ProcessFunction;".into(),
            "import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;".into(),
            "import org.apache.flink.streaming.api.windowing.windows.TimeWindow;".into(),
        ],
        summary: vec![format!(
            "DataStream window aggregation: {}.keyBy({}).window({}){}.sideOutputLateData(..).aggregate(count{}).",
            s.name,
            s.columns[s.key.unwrap_or(0)].name,
            assigner(plan),
            if job.allowed_lateness.0 > 0 { format!(".allowedLateness({} ms)", job.allowed_lateness.0) } else { String::new() },
            match sum {
                Some((i, ..)) => format!(", sum({})", s.columns[i].name),
                None => String::new(),
            }
        )],
        operator_name: OP_NAME.into(),
        shape: Shape::One,
        output_watermark_delay: 0,
        pace_watermarks: true,
        main: m,
        classes: c,
    })
}

fn split(plan: &Plan) -> Result<JobParts, Error> {
    let spec = &plan.scenario.job.split;
    let (src, vars) = sources(plan);
    let s = &plan.schemas[0];
    let col = s
        .columns
        .iter()
        .position(|c| c.name == spec.column.trim())
        .ok_or_else(|| {
            Error::config(
                "job.split.column",
                format!("no column named {:?}", spec.column),
            )
        })?;
    // Tags in first-use order.
    let mut tags: Vec<String> = Vec::new();
    for t in spec
        .routes
        .iter()
        .map(|r| r.to.as_str())
        .chain(spec.otherwise.as_deref())
    {
        if t != "main" && !tags.iter().any(|x| x == t) {
            tags.push(t.to_string());
        }
    }
    let mut m = src;
    let _ = writeln!(m, "        SingleOutputStreamOperator<Row> main = {}.process(new Route()).name(OPERATOR_NAME);", vars[0]);
    let _ = writeln!(
        m,
        "        main.process(new Show(null)).sinkTo(new Rt.Print()).name(\"print main output\");"
    );
    for (i, t) in tags.iter().enumerate() {
        let _ = writeln!(m, "        main.getSideOutput(TAGS[{i}]).process(new Show({})).sinkTo(new Rt.Print()).name(\"print side output {i}\");", jstr(t));
    }
    let mut c = String::new();
    let _ = writeln!(c, "    @SuppressWarnings(\"unchecked\")");
    let _ = writeln!(
        c,
        "    static final OutputTag<Row>[] TAGS = new OutputTag[] {{"
    );
    for t in &tags {
        let _ = writeln!(c, "        new OutputTag<>({}, Rt.rowType(0)),", jstr(t));
    }
    let _ = writeln!(c, "    }};\n");
    let _ = writeln!(
        c,
        "    /** Routes each row by the text of column {} (the first matching route wins). */",
        super::comment_text(&s.columns[col].name)
    );
    let _ = writeln!(
        c,
        "    static final class Route extends ProcessFunction<Row, Row> {{"
    );
    let _ = writeln!(c, "        @Override");
    let _ = writeln!(
        c,
        "        public void processElement(Row row, Context ctx, Collector<Row> out) {{"
    );
    let _ = writeln!(
        c,
        "            String v = String.valueOf(row.getField({col}));"
    );
    let target = |to: &str| -> String {
        if to == "main" {
            "out.collect(row);".into()
        } else {
            let i = tags.iter().position(|t| t == to).unwrap_or(0);
            format!("ctx.output(TAGS[{i}], row);")
        }
    };
    let mut first = true;
    for r in &spec.routes {
        let _ = writeln!(
            c,
            "            {}if (v.equals({})) {{",
            if first { "" } else { "} else " },
            jstr(&r.value)
        );
        let _ = writeln!(c, "                {}", target(&r.to));
        first = false;
    }
    match (&spec.otherwise, first) {
        (Some(o), true) => {
            let _ = writeln!(c, "            {}", target(o));
        }
        (Some(o), false) => {
            let _ = writeln!(c, "            }} else {{");
            let _ = writeln!(c, "                {}", target(o));
            let _ = writeln!(c, "            }}");
        }
        (None, false) => {
            let _ = writeln!(c, "            }} // anything else is dropped");
        }
        (None, true) => {}
    }
    let _ = writeln!(c, "        }}");
    let _ = writeln!(c, "    }}\n");
    let _ = writeln!(
        c,
        "    /** Prints a row of the main output (tag null) or of a side output. */"
    );
    let _ = writeln!(
        c,
        "    static final class Show extends ProcessFunction<Row, String> {{"
    );
    let _ = writeln!(c, "        final String tag;\n");
    let _ = writeln!(c, "        Show(String tag) {{");
    let _ = writeln!(c, "            this.tag = tag;");
    let _ = writeln!(c, "        }}\n");
    let _ = writeln!(c, "        @Override");
    let _ = writeln!(
        c,
        "        public void processElement(Row row, Context ctx, Collector<String> out) {{"
    );
    let _ = writeln!(
        c,
        "            String sub = Integer.toString(Rt.subtask(getRuntimeContext()));"
    );
    let _ = writeln!(c, "            String ts = Rt.ts(ctx.timestamp() == null ? Long.MIN_VALUE : ctx.timestamp());");
    let _ = writeln!(c, "            out.collect(tag == null ? \"JL|OUT|\" + sub + \"|+I|\" + ts + \"|\" + Rt.json(row) + \"|null|-\" : \"JL|SIDE|\" + sub + \"|\" + tag + \"|\" + ts + \"|\" + Rt.json(row));");
    let _ = writeln!(c, "        }}");
    let _ = writeln!(c, "    }}\n");
    let routes: Vec<String> = spec
        .routes
        .iter()
        .map(|r| format!("{} -> {}", r.value, r.to))
        .collect();
    Ok(JobParts {
        imports: vec!["import org.apache.flink.streaming.api.functions.ProcessFunction;".into()],
        summary: vec![format!(
            "DataStream side outputs: {}.process(ProcessFunction) routing on {}: {}{}.",
            s.name,
            s.columns[col].name,
            routes.join(", "),
            spec.otherwise
                .as_ref()
                .map(|o| format!(", otherwise -> {o}"))
                .unwrap_or_else(|| ", otherwise dropped".into())
        )],
        operator_name: OP_NAME.into(),
        shape: Shape::Chained,
        output_watermark_delay: 0,
        pace_watermarks: true,
        main: m,
        classes: c,
    })
}
