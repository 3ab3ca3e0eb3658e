//! A scenario resolved into a runnable plan: typed rows, interned keys, validated settings,
//! keyBy routing and the arrival order of every row.

use crate::error::Error;
use crate::javahash::{java_hash_code, sql_key_hash, sql_key_hash_typed};
use crate::parse::{
    entry_capacity, parse_stream_into, value_capacity, Entry, RowKind, Schema, Side, ValueRange,
};
use crate::partition::{
    default_max_parallelism, key_group_for_hash, subtask_for_key_group, KeyGroup, SubtaskIndex,
};
use crate::scenario::{
    ArrivalOrder, OperatorKind, Scenario, Strategy, TimeKind, WatermarkSpec, WindowKind,
};
use crate::value::{ColumnType, Value};
use serde::Serialize;

mod arrival;
mod keys;
mod validate;

use arrival::{arrival_order, Sequence};
pub use arrival::{Arrivals, Iter as ArrivalIter};
use keys::{composite_key, KeyIndex};
pub use validate::window_join_condition;
use validate::{check_delay, validate_job};

/// Index of an input row in [`Plan::rows`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(transparent)]
pub struct RowId(pub u32);

/// Index of a distinct key value in [`Plan::keys`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(transparent)]
pub struct KeyId(pub u32);

/// One data row of either stream.
#[derive(Clone, Debug, PartialEq)]
pub struct InputRow {
    pub stream: Side,
    /// 1-based line in the stream's rows text.
    pub line: u32,
    pub kind: RowKind,
    /// Where the row's values (one per column) are in [`Plan::values`].
    pub values: ValueRange,
    /// Event timestamp; `None` when the stream has no time column.
    pub ts: Option<i64>,
    pub key: KeyId,
    /// Assigner subtask the row arrives on.
    pub assigner: u32,
    /// Operator subtask the row is routed to.
    pub subtask: SubtaskIndex,
    /// Simulated processing time of its arrival.
    pub arrival: i64,
}

/// One thing that reaches the job, in arrival order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arrival {
    Row(RowId),
    /// A `WM <value>` row for one assigner subtask of a stream.
    Watermark {
        stream: Side,
        line: u32,
        assigner: u32,
        value: i64,
        arrival: i64,
    },
}

/// A distinct key value and where it is routed.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct KeyInfo {
    pub value: Value,
    /// The hash Flink partitions by (`hashCode()` of the Java key, or of the SQL `BinaryRowData`).
    pub hash: i32,
    pub key_group: KeyGroup,
    pub subtask: SubtaskIndex,
}

/// Settings of one stream's watermark generator, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratorConfig {
    pub strategy: Strategy,
    pub delay: i64,
    pub per_event: bool,
    pub interval: i64,
    pub idle_timeout: Option<i64>,
}

/// Limits of a run.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Windows one row may be assigned to (sliding size/slide).
    pub windows_per_row: i64,
    /// Outputs of all kinds before the run stops with an error.
    pub max_outputs: usize,
    /// The work budget in weighted units of about 3 ns native each ([`crate::budget`]).
    pub max_work: u64,
    /// The memory budget: estimated bytes of state, results and trace ([`crate::budget`]).
    pub max_memory: u64,
    /// State entries and timers copied into traced snapshots before the trace stops taking
    /// them (later steps' state is computed on demand, `RunOptions::stop_after`).
    pub max_snapshot_entries: u64,
}

/// The default work budget: 10^9 units, about 3 s of the cheapest work natively (≈ 4–5 s in
/// WebAssembly). Every gallery scenario needs less than 10^6 and a million-row run of
/// the benchmark workloads about 10^8; the O(n²) cases (session windows with no watermark
/// and rows in reverse order, a 1 ms slide on a long window) reach it within seconds.
pub const DEFAULT_MAX_WORK: u64 = 1_000_000_000;
/// The default memory budget: 1 GiB of state, results and trace (estimated). A 32-bit
/// WebAssembly heap ends at 4 GiB and the JSON of a result is a few times its size in memory.
pub const DEFAULT_MAX_MEMORY: u64 = 1 << 30;
/// The default cap on snapshot entries in a trace: a million (about 100 MB in memory and
/// 150 MB of JSON; a gallery scenario needs a few hundred).
pub const DEFAULT_MAX_SNAPSHOT_ENTRIES: u64 = 1_000_000;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            windows_per_row: 10_000,
            max_outputs: 20_000_000,
            max_work: DEFAULT_MAX_WORK,
            max_memory: DEFAULT_MAX_MEMORY,
            max_snapshot_entries: DEFAULT_MAX_SNAPSHOT_ENTRIES,
        }
    }
}

impl Limits {
    /// No budget at all (benchmarks and big-run tests).
    pub fn unlimited() -> Limits {
        Limits {
            windows_per_row: 10_000,
            max_outputs: usize::MAX,
            max_work: u64::MAX,
            max_memory: u64::MAX,
            max_snapshot_entries: u64::MAX,
        }
    }
}

/// A resolved scenario.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The scenario without its streams' rows text (`StreamSpec::rows` is empty): the rows are
    /// read into [`Plan::rows`], and a copy of the text would be as large again.
    pub scenario: Scenario,
    pub operator: OperatorKind,
    pub schemas: Vec<Schema>,
    pub rows: Vec<InputRow>,
    /// The values of all rows, each row's in its [`InputRow::values`] range: one buffer, no
    /// allocation per row.
    pub values: Vec<Value>,
    pub keys: Vec<KeyInfo>,
    /// Everything that reaches the job, in order ([`Arrivals::iter`]).
    pub arrivals: Arrivals,
    pub assigner_parallelism: u32,
    pub operator_parallelism: u32,
    pub max_parallelism: u32,
    pub generators: Vec<GeneratorConfig>,
    pub limits: Limits,
    pub warnings: Vec<String>,
    /// `GROUPING SETS` of a window aggregation: each row's copies and their keys.
    pub expand: Option<crate::grouping_sets::Expand>,
}

impl Plan {
    pub fn row(&self, id: RowId) -> &InputRow {
        &self.rows[id.0 as usize]
    }
    /// The values of row `id`.
    pub fn values(&self, id: RowId) -> &[Value] {
        self.rows[id.0 as usize].values.of(&self.values)
    }
    /// The values of `row` (a row of this plan).
    pub fn row_values(&self, row: &InputRow) -> &[Value] {
        row.values.of(&self.values)
    }
    pub fn stream_name(&self, side: Side) -> &str {
        &self.schemas[side.index()].name
    }
}

/// Resolves and validates a scenario. Values echoed in an error are shortened
/// ([`Error::shortened`]).
pub fn build(scenario: &Scenario, limits: Limits) -> Result<Plan, Error> {
    build_unchecked(Source::Borrowed(scenario), limits).map_err(Error::shortened)
}

/// [`build`] of a scenario given away: its rows text is freed as soon as it is read (before
/// the plan's rows and arrival order are built, so they can reuse its memory), and the plan
/// keeps the rest of the scenario as it is (no copy).
pub fn build_owned(scenario: Scenario, limits: Limits) -> Result<Plan, Error> {
    build_unchecked(Source::Owned(Box::new(scenario)), limits).map_err(Error::shortened)
}

/// The scenario a plan is built from: lent or given.
enum Source<'a> {
    Borrowed(&'a Scenario),
    Owned(Box<Scenario>),
}

impl Source<'_> {
    fn get(&self) -> &Scenario {
        match self {
            Source::Borrowed(sc) => sc,
            Source::Owned(sc) => sc,
        }
    }

    /// The scenario the plan keeps ([`Plan::scenario`]): without its streams' rows text.
    fn into_kept(self) -> Scenario {
        match self {
            Source::Borrowed(sc) => without_rows(sc),
            Source::Owned(sc) => {
                let mut sc = *sc;
                for st in &mut sc.streams {
                    st.rows = String::new();
                }
                sc
            }
        }
    }
}

/// A copy of `sc` without its streams' rows text (every other field listed, so that a new
/// field is not forgotten).
fn without_rows(sc: &Scenario) -> Scenario {
    let Scenario {
        version,
        title,
        description,
        job,
        streams,
        expected,
        sql,
    } = sc;
    let streams = streams
        .iter()
        .map(|st| {
            let crate::scenario::StreamSpec {
                name,
                columns,
                key,
                time,
                rows: _,
                watermark,
                primary_key,
                scan_watermark_idle_timeout,
                time_from,
                proctime,
            } = st;
            crate::scenario::StreamSpec {
                name: name.clone(),
                columns: columns.clone(),
                key: key.clone(),
                time: time.clone(),
                rows: String::new(),
                watermark: watermark.clone(),
                primary_key: primary_key.clone(),
                scan_watermark_idle_timeout: *scan_watermark_idle_timeout,
                time_from: time_from.clone(),
                proctime: proctime.clone(),
            }
        })
        .collect();
    Scenario {
        version: *version,
        title: title.clone(),
        description: description.clone(),
        job: job.clone(),
        streams,
        expected: expected.clone(),
        sql: sql.clone(),
    }
}

fn build_unchecked(source: Source<'_>, limits: Limits) -> Result<Plan, Error> {
    let scenario = source.get();
    let job = &scenario.job;
    let op = job.operator;
    let mut warnings = Vec::new();
    if !(1..=8).contains(&job.parallelism) {
        return Err(Error::config(
            "job.parallelism",
            format!("parallelism must be 1..8, not {}", job.parallelism),
        ));
    }
    let inputs = if op.two_inputs() { 2 } else { 1 };
    if scenario.streams.len() < inputs {
        return Err(Error::config(
            "streams",
            format!(
                "{op:?} needs {inputs} stream(s), the scenario has {}",
                scenario.streams.len()
            ),
        ));
    }
    if scenario.streams.len() > 2 {
        return Err(Error::config("streams", "at most two streams"));
    }
    if inputs == 2 && scenario.streams[0].name == scenario.streams[1].name {
        return Err(Error::config(
            "streams",
            "the two streams need different names",
        ));
    }
    let p = job.parallelism;
    let streams = &scenario.streams[..inputs];
    if inputs == 1 && scenario.streams.len() == 2 && !scenario.streams[1].rows.trim().is_empty() {
        warnings.push(format!(
            "{op:?} reads only the first stream; stream {:?} is ignored",
            scenario.streams[1].name
        ));
    }

    // Validate the operator settings before reading rows.
    validate_job(scenario)?;

    // Both streams' entries in one buffer, which becomes the plan's rows in place (below).
    // Room for both at once: growing the buffer for the second stream would copy the first's
    // entries where `realloc` cannot move pages (WebAssembly).
    // Their values in another, which becomes the plan's values; room for both streams too.
    let lines: Vec<usize> = streams.iter().map(|s| entry_capacity(&s.rows)).collect();
    let mut entries: Vec<Entry> = Vec::with_capacity(lines.iter().sum());
    let mut values: Vec<Value> = Vec::with_capacity(
        streams
            .iter()
            .zip(&lines)
            .map(|(s, &n)| value_capacity(s, n))
            .sum(),
    );
    let mut parsed = Vec::new();
    for s in streams {
        let start = entries.len();
        let schema = parse_stream_into(s, p, &mut entries, &mut values)?;
        parsed.push(Parsed {
            schema,
            range: start..entries.len(),
        });
    }
    // The rows text is read: from here on the scenario is the one the plan keeps.
    let kept = source.into_kept();
    let scenario = &kept;
    let job = &scenario.job;
    let streams = &scenario.streams[..inputs];
    // The lookup join is not keyed: it runs where the probe row arrives (StreamExecLookupJoin).
    let keyed = !matches!(op, OperatorKind::Split | OperatorKind::LookupJoin);
    let sql = op.is_sql();
    let mut keyless_sql = false;
    for ps in &parsed {
        let n = &ps.schema.name;
        if keyed && ps.schema.key.is_none() {
            if sql {
                keyless_sql = true;
            } else {
                return Err(Error::stream(
                    n,
                    "key",
                    "this operator is keyed: choose a key column",
                ));
            }
        }
        let needs_time = match op {
            OperatorKind::RegularJoin | OperatorKind::Split | OperatorKind::LookupJoin => false,
            OperatorKind::SqlIntervalJoin => job.sql.time == TimeKind::Event,
            _ => true,
        };
        if needs_time && ps.schema.time.is_none() {
            return Err(Error::stream(
                n,
                "time",
                "this operator runs on event time: choose a time column",
            ));
        }
    }
    // PRIMARY KEY (…) NOT ENFORCED: every column must exist, and its values are NOT NULL
    // (a primary key makes its columns NOT NULL in Flink's schema).
    for (i, (s, ps)) in streams.iter().zip(&parsed).enumerate() {
        let mut cols = Vec::new();
        for (j, n) in s.primary_key.iter().enumerate() {
            match ps.schema.columns.iter().position(|c| c.name == n.trim()) {
                Some(c) if cols.contains(&c) => {
                    return Err(Error::config(
                        format!("streams[{i}].primary_key[{j}]"),
                        format!("column {n:?} is listed twice"),
                    ))
                }
                Some(c) => cols.push(c),
                None => {
                    return Err(Error::config(
                        format!("streams[{i}].primary_key[{j}]"),
                        format!("stream {:?} has no column named {n:?}", ps.schema.name),
                    ))
                }
            }
        }
        for e in entries[ps.range.clone()]
            .iter()
            .filter(|_| !cols.is_empty())
        {
            if let Entry::Data(r) = e {
                let rv = r.values.of(&values);
                if let Some(&c) = cols.iter().find(|&&c| rv[c].is_null()) {
                    return Err(Error::row(&ps.schema.name, r.line as usize, 1, format!("the primary key column {:?} is NULL (a PRIMARY KEY column is NOT NULL)", ps.schema.columns[c].name)));
                }
            }
        }
    }
    for (field, v) in [
        ("job.settings.state_ttl", job.settings.state_ttl),
        ("job.settings.state_ttl_left", job.settings.state_ttl_left),
        ("job.settings.state_ttl_right", job.settings.state_ttl_right),
        (
            "job.settings.source_idle_timeout",
            job.settings.source_idle_timeout,
        ),
    ] {
        if v.is_some_and(|m| m.0 < 0) {
            return Err(Error::config(field, "must not be negative"));
        }
    }
    if keyless_sql && parsed.iter().any(|ps| ps.schema.key.is_some()) {
        return Err(Error::config("streams", "either both streams have a key column or neither (no key: Flink runs the join on one subtask)"));
    }
    if inputs == 2 && !keyless_sql {
        let kt: Vec<_> = parsed
            .iter()
            .map(|ps| ps.schema.columns[ps.schema.key.unwrap_or(0)].ty)
            .collect();
        if kt[0] != kt[1] {
            if sql {
                return Err(Error::config("streams", format!("the key columns have different types ({} and {}); Flink SQL needs comparable key types", kt[0].sql_name(), kt[1].sql_name())));
            }
            warnings.push(format!("the key columns have different Java types ({} and {}): equal-looking keys never match (Integer.equals(Long) is false)", kt[0].java_name(), kt[1].java_name()));
        }
    }

    if op == OperatorKind::WindowAggregate {
        if let Some(col) = &job.aggregate.sum {
            let schema = &parsed[0].schema;
            match schema.columns.iter().find(|c| c.name == col.trim()) {
                None => {
                    return Err(Error::config(
                        "job.aggregate.sum",
                        format!("no column named {col:?} in stream {:?}", schema.name),
                    ))
                }
                Some(c)
                    if !matches!(
                        c.ty,
                        ColumnType::Int | ColumnType::Long | ColumnType::Double
                    ) =>
                {
                    return Err(Error::config(
                        "job.aggregate.sum",
                        format!("column {col:?} is {}, not a number", c.ty.sql_name()),
                    ));
                }
                Some(_) => {}
            }
        }
    }
    if op == OperatorKind::WindowJoin
        && (job.late_output.left.is_some() || job.late_output.right.is_some())
    {
        warnings.push("the DataStream window join has no late side output (JoinedStreams exposes none): late rows are dropped; the late tags are ignored".into());
    }
    let operator_parallelism = if keyless_sql { 1 } else { p };
    if keyless_sql {
        warnings.push(
            "no key column: Flink SQL runs this join on a single subtask (global exchange)".into(),
        );
    }
    let max_parallelism = match job.max_parallelism {
        Some(m) => {
            if m < operator_parallelism || m > 32_768 {
                return Err(Error::config("job.max_parallelism", format!("max parallelism must be between the parallelism ({operator_parallelism}) and 32768")));
            }
            m
        }
        None => default_max_parallelism(operator_parallelism),
    };

    let mut generators = Vec::new();
    for (i, s) in streams.iter().enumerate() {
        let mut g = match &s.watermark {
            Some(w) => check_delay(&format!("streams[{i}].watermark"), w)?,
            None => check_delay("job.watermark", &job.watermark)?,
        };
        if let Some(t) = s.scan_watermark_idle_timeout {
            if t.0 < 0 {
                return Err(Error::config(
                    format!("streams[{i}].scan_watermark_idle_timeout"),
                    "must not be negative",
                ));
            }
        }
        if op.is_sql() {
            // A SQL table's source watermarks (a FLIP-27 source with watermark push-down):
            // WatermarkPushDownSpec.calculateIdleTimeoutMillis takes the table's
            // 'scan.watermark.idle-timeout' when set (>= 0), else table.exec.source.idle-timeout,
            // and a value > 0 wraps the pushed-down strategy in withIdleness
            // (WatermarksWithIdleness, the rule of crate::watermark).
            let global = job.settings.source_idle_timeout.map(|m| m.0).unwrap_or(0);
            let table = s.scan_watermark_idle_timeout.map(|m| m.0);
            if table.is_some() || global > 0 {
                let t = table.unwrap_or(global);
                g.idle_timeout = (t > 0).then_some(t);
            }
        }
        if g.idle_timeout.is_some() && g.interval == 0 {
            warnings.push(format!("stream {:?}: idleness is only checked on periodic emits (Flink's WatermarksWithIdleness), and the periodic interval is 0, so it never goes idle", s.name));
        }
        generators.push(g);
    }

    // Rows, keys, routing. The parsed entries become the plan's rows in place (the buffer
    // of both streams' entries is reused: an `Entry` and an `InputRow` have the same size),
    // their values moved, not copied; a key is looked up by reference (cloned once, when it
    // is new).
    let mut keys: Vec<KeyInfo> = Vec::new();
    let mut key_ids = KeyIndex::default();
    // Each stream's arrivals in its own order: its rows are consecutive ids, so only its
    // watermarks are kept, each with the id of the row after it (no `Arrival` per row here).
    let mut per_stream: [Sequence; 2] = Default::default();
    let mut expand: Option<crate::grouping_sets::Expand> = None;
    // A key seen for the first time: its key group and subtask from its hash
    // (KeyGroupRangeAssignment), and its id.
    let new_key =
        |keys: &mut Vec<KeyInfo>, key_ids: &mut KeyIndex, value: Value, hash: i32| -> KeyId {
            let key_group = key_group_for_hash(hash, max_parallelism);
            let subtask = subtask_for_key_group(max_parallelism, operator_parallelism, key_group);
            let id = KeyId(keys.len() as u32);
            key_ids.insert(&value, id);
            keys.push(KeyInfo {
                value,
                hash,
                key_group,
                subtask,
            });
            id
        };
    let null = Value::Null;
    // Each stream's settings for its rows; an error is returned when its rows are reached, so
    // errors come in the order of a stream-by-stream reading.
    let mut contexts: Vec<Option<Result<StreamContext, Error>>> = parsed
        .iter()
        .enumerate()
        .map(|(si, ps)| Some(stream_context(job, op, keyed, si, &ps.schema)))
        .collect();
    // The stream being read (`usize::MAX` before the first) and its state.
    let mut si = usize::MAX;
    let mut cx = StreamContext::default();
    // `pos`: the index of the entry being read in the buffer of both streams.
    let (mut rr, mut clock, mut n_rows, mut pos) = (0u32, None::<i64>, 0usize, 0usize);
    let mut enter = |si: &mut usize,
                     cx: &mut StreamContext,
                     rr: &mut u32,
                     clock: &mut Option<i64>,
                     per_stream: &mut [Sequence; 2],
                     n_rows: usize|
     -> Result<(), Error> {
        *si = si.wrapping_add(1);
        *cx = contexts[*si]
            .take()
            .unwrap_or_else(|| Ok(StreamContext::default()))?;
        per_stream[*si].next = n_rows as u32;
        per_stream[*si].end = n_rows as u32;
        *rr = 0;
        *clock = None;
        Ok(())
    };
    let mut row = |e: Entry| -> Result<Option<InputRow>, Error> {
        while si == usize::MAX || pos >= parsed[si].range.end {
            enter(
                &mut si,
                &mut cx,
                &mut rr,
                &mut clock,
                &mut per_stream,
                n_rows,
            )?;
        }
        pos += 1;
        let schema = &parsed[si].schema;
        match e {
            Entry::Data(r) => {
                if r.kind != RowKind::Insert && !cx.changelog_ok {
                    return Err(Error::row(&schema.name, r.line as usize, 1, format!("row kind {} is only accepted by the regular join and by the versioned or dimension table (right stream) of a temporal or lookup join (this input must be append-only)", r.kind.short())));
                }
                let rv = r.values.of(&values);
                let group_key: Option<Vec<Value>> = cx
                    .group_cols
                    .as_ref()
                    .map(|cols| cols.iter().map(|&c| rv[c].clone()).collect());
                let composite = group_key.as_deref().map(composite_key);
                let key_value = match (&composite, cx.key_col) {
                    (Some(c), _) => c,
                    (None, Some(k)) => &rv[k],
                    _ => &null,
                };
                if keyed && !sql && key_value.is_null() {
                    let col = schema.key.unwrap_or(0);
                    return Err(Error::row(
                        &schema.name,
                        r.line as usize,
                        1,
                        format!(
                            "the key column {:?} is null; Flink's keyBy fails on a null key",
                            schema.columns[col].name
                        ),
                    ));
                }
                let key = match key_ids.get(key_value) {
                    // Copied rows are keyed per copy (below).
                    _ if cx.expand_sets.is_some() => KeyId(0),
                    Some(k) => k,
                    None => {
                        let hash = if !keyed {
                            0
                        } else if keyless_sql {
                            // An empty BinaryRowData key: every row on subtask 0.
                            sql_key_hash(&[])
                        } else if let Some(g) = &group_key {
                            sql_key_hash_typed(g, &cx.key_types)
                        } else if sql {
                            sql_key_hash_typed(std::slice::from_ref(key_value), &cx.key_types)
                        } else {
                            java_hash_code(key_value)
                        };
                        new_key(&mut keys, &mut key_ids, key_value.clone(), hash)
                    }
                };
                if let (Some(sets), Some(g)) = (&cx.expand_sets, &group_key) {
                    let ex = expand.get_or_insert_with(|| crate::grouping_sets::Expand {
                        sets: sets.clone(),
                        ..Default::default()
                    });
                    for (i, set) in sets.iter().enumerate() {
                        let copy = crate::grouping_sets::copy_key(g, set);
                        let value = composite_key(&copy);
                        let id = match key_ids.get(&value) {
                            Some(k) => k,
                            None => new_key(
                                &mut keys,
                                &mut key_ids,
                                value,
                                sql_key_hash_typed(&copy, &cx.key_types),
                            ),
                        };
                        ex.keys.push(id);
                        if ex.keys.len() > crate::grouping_sets::MAX_COPIES {
                            return Err(Error::config(
                                "job.group.grouping_sets",
                                format!("rows × grouping sets exceed {} copies (this playground's limit)", crate::grouping_sets::MAX_COPIES),
                            ));
                        }
                        if ex.set_of_key.len() <= id.0 as usize {
                            ex.set_of_key.resize(id.0 as usize + 1, u16::MAX);
                        }
                        ex.set_of_key[id.0 as usize] = i as u16;
                    }
                }
                let assigner = match r.subtask {
                    Some(s) => s,
                    // Round robin (`rr` counts modulo `p`: no division per row).
                    None => {
                        let s = rr;
                        rr = if rr + 1 == p { 0 } else { rr + 1 };
                        s
                    }
                };
                // A copied row is shown on its first copy's key and subtask.
                let key = match &expand {
                    Some(ex) if cx.expand_sets.is_some() => ex.key(n_rows, 0),
                    _ => key,
                };
                let subtask = if keyed {
                    keys[key.0 as usize].subtask
                } else {
                    SubtaskIndex(assigner)
                };
                let arrival = r.arrival.or(r.ts).or(clock).unwrap_or(0);
                clock = Some(arrival);
                let id = RowId(n_rows as u32);
                n_rows += 1;
                per_stream[si].end = id.0 + 1;
                Ok(Some(InputRow {
                    stream: cx.side,
                    line: r.line,
                    kind: r.kind,
                    values: r.values,
                    ts: r.ts,
                    key,
                    assigner,
                    subtask,
                    arrival,
                }))
            }
            Entry::Watermark {
                line,
                value,
                subtask,
                arrival,
            } => {
                let at = arrival.or(clock).unwrap_or(0);
                clock = Some(at);
                let targets = match subtask {
                    Some(s) => s..s + 1,
                    None => 0..p,
                };
                for a in targets {
                    per_stream[si].watermarks.push_back((
                        n_rows as u32,
                        Arrival::Watermark {
                            stream: cx.side,
                            line,
                            assigner: a,
                            value,
                            arrival: at,
                        },
                    ));
                }
                Ok(None)
            }
        }
    };
    // The first error stops the reading (the entries after it are dropped unread); kept
    // aside rather than collected through a `Result`, which would move every row through it.
    let mut failed = None;
    // The entries become the rows in the entries' own buffer (std's in-place collect) only
    // when the two have one size: the assertion below keeps it that way; a second buffer
    // would cost its page faults, about 25 ms a million rows.
    let mut rows: Vec<InputRow> = entries
        .into_iter()
        .filter_map(|e| match failed {
            Some(_) => None,
            None => row(e).unwrap_or_else(|e| {
                failed = Some(e);
                None
            }),
        })
        .collect();
    if let Some(e) = failed {
        return Err(e);
    }
    // Streams after the last entry (without rows) are entered too, for their errors.
    while si.wrapping_add(1) < parsed.len() {
        enter(
            &mut si,
            &mut cx,
            &mut rr,
            &mut clock,
            &mut per_stream,
            n_rows,
        )?;
    }
    let schemas: Vec<Schema> = parsed.into_iter().map(|ps| ps.schema).collect();

    let arrivals = arrival_order(&mut rows, per_stream, job.arrival);

    let plan = Plan {
        scenario: kept,
        operator: op,
        schemas,
        rows,
        values,
        keys,
        arrivals,
        assigner_parallelism: p,
        operator_parallelism,
        max_parallelism,
        generators,
        limits,
        warnings,
        expand,
    };
    if crate::SQL_OPERATORS && op == OperatorKind::WindowTvfAggregate {
        crate::operators::window_tvf_aggregate::validate_plan(&plan)?;
    }
    Ok(plan)
}

const _: () = assert!(std::mem::size_of::<Entry>() == std::mem::size_of::<InputRow>());

/// A stream's schema and its entries' place in the buffer of both streams' entries.
struct Parsed {
    schema: Schema,
    range: std::ops::Range<usize>,
}

/// What the rows of one stream need from the job.
struct StreamContext {
    side: Side,
    /// GROUPING SETS of a window aggregation.
    expand_sets: Option<Vec<crate::grouping_sets::GroupingSet>>,
    /// The GROUP BY columns of a window aggregation keyed by several columns.
    group_cols: Option<Vec<usize>>,
    /// Rows other than `+I` are accepted.
    changelog_ok: bool,
    key_col: Option<usize>,
    /// The key columns' types: a NULL of a wide DECIMAL is written differently (javahash).
    key_types: Vec<crate::value::ColumnType>,
}

impl Default for StreamContext {
    fn default() -> Self {
        StreamContext {
            side: Side::Left,
            expand_sets: None,
            group_cols: None,
            changelog_ok: false,
            key_col: None,
            key_types: Vec::new(),
        }
    }
}

fn stream_context(
    job: &crate::scenario::Job,
    op: OperatorKind,
    keyed: bool,
    si: usize,
    schema: &Schema,
) -> Result<StreamContext, Error> {
    let side = if si == 0 { Side::Left } else { Side::Right };
    let name = &schema.name;
    // A SQL window aggregation grouped by several columns is keyed by all of them (the
    // BinaryRowData of the GROUP BY keys); its key value is shown as a tuple.
    // With GROUPING SETS each row is copied once per set (the planner's Expand), every
    // copy keyed by all grouping columns and `$e` (crate::grouping_sets).
    let expand_sets = match (&job.group.grouping_sets, op) {
        (Some(sets), OperatorKind::WindowTvfAggregate) => {
            crate::grouping_sets::sets(&job.group.keys, sets)
                .map_err(|m| Error::config("job.group.grouping_sets", m))?
        }
        _ => None,
    };
    let group_cols: Option<Vec<usize>> = if op == OperatorKind::WindowTvfAggregate
        && (job.group.keys.len() > 1 || expand_sets.is_some())
    {
        let mut cols = Vec::new();
        for k in &job.group.keys {
            match schema.columns.iter().position(|c| c.name == *k) {
                Some(c) => cols.push(c),
                None => {
                    return Err(Error::config(
                        "job.group.keys",
                        format!("GROUP BY column {k:?} is not a column of {name}"),
                    ))
                }
            }
        }
        Some(cols)
    } else {
        None
    };
    // The versioned / dimension table (right) of a temporal or lookup join may be a
    // changelog; probe rows are append-only.
    let changelog_ok = op == OperatorKind::RegularJoin
        || (side == Side::Right
            && matches!(op, OperatorKind::TemporalJoin | OperatorKind::LookupJoin));
    let key_col = schema.key.filter(|_| keyed);
    let key_types: Vec<crate::value::ColumnType> = match (&group_cols, key_col) {
        (Some(cols), _) => cols.iter().map(|&c| schema.columns[c].ty).collect(),
        (None, Some(k)) => vec![schema.columns[k].ty],
        _ => Vec::new(),
    };
    Ok(StreamContext {
        side,
        expand_sets,
        group_cols,
        changelog_ok,
        key_col,
        key_types,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The arrival order as it was built before [`Sequence`]: an `Arrival` per row and
    /// watermark for each stream, merged, then the running maximum applied.
    fn reference(
        rows: &mut [InputRow],
        per_stream: [Vec<Arrival>; 2],
        order: ArrivalOrder,
    ) -> Vec<Arrival> {
        let key = |rows: &[InputRow], a: &Arrival| match a {
            Arrival::Row(id) => rows[id.0 as usize].arrival,
            Arrival::Watermark { arrival, .. } => *arrival,
        };
        let [left, right] = per_stream;
        let mut out: Vec<Arrival> = match order {
            ArrivalOrder::LeftFirst => left.into_iter().chain(right).collect(),
            ArrivalOrder::Interleave => {
                let mut out = Vec::new();
                let (mut l, mut r) = (left.into_iter(), right.into_iter());
                loop {
                    match (l.next(), r.next()) {
                        (None, None) => break,
                        (a, b) => {
                            out.extend(a);
                            out.extend(b);
                        }
                    }
                }
                out
            }
            ArrivalOrder::ByTime => {
                let mut out = Vec::new();
                let (mut i, mut j) = (0, 0);
                while i < left.len() || j < right.len() {
                    if j >= right.len()
                        || (i < left.len() && key(rows, &left[i]) <= key(rows, &right[j]))
                    {
                        out.push(left[i]);
                        i += 1;
                    } else {
                        out.push(right[j]);
                        j += 1;
                    }
                }
                out
            }
        };
        let mut now = i64::MIN;
        for a in out.iter_mut() {
            match a {
                Arrival::Row(id) => {
                    let r = &mut rows[id.0 as usize];
                    now = now.max(r.arrival);
                    r.arrival = now;
                }
                Arrival::Watermark { arrival, .. } => {
                    now = now.max(*arrival);
                    *arrival = now;
                }
            }
        }
        out
    }

    #[test]
    fn arrival_order_is_the_merge_of_both_streams() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rand = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for case in 0..3000 {
            let order = [
                ArrivalOrder::LeftFirst,
                ArrivalOrder::Interleave,
                ArrivalOrder::ByTime,
            ][case % 3];
            let mut rows = Vec::new();
            let mut seqs: [Sequence; 2] = Default::default();
            let mut lists: [Vec<Arrival>; 2] = Default::default();
            for (si, side) in [Side::Left, Side::Right].into_iter().enumerate() {
                seqs[si].next = rows.len() as u32;
                seqs[si].end = rows.len() as u32;
                for line in 0..rand(8) as u32 {
                    let arrival = rand(20) as i64;
                    if rand(3) == 0 {
                        let wm = Arrival::Watermark {
                            stream: side,
                            line,
                            assigner: rand(2) as u32,
                            value: rand(30) as i64,
                            arrival,
                        };
                        seqs[si].watermarks.push_back((rows.len() as u32, wm));
                        lists[si].push(wm);
                    } else {
                        lists[si].push(Arrival::Row(RowId(rows.len() as u32)));
                        rows.push(InputRow {
                            stream: side,
                            line,
                            kind: RowKind::Insert,
                            values: ValueRange::default(),
                            ts: None,
                            key: KeyId(0),
                            assigner: 0,
                            subtask: SubtaskIndex(0),
                            arrival,
                        });
                        seqs[si].end = rows.len() as u32;
                    }
                }
            }
            let mut want_rows = rows.clone();
            let want = reference(&mut want_rows, lists, order);
            let arrivals = arrival_order(&mut rows, seqs, order);
            let got: Vec<Arrival> = arrivals.iter().collect();
            assert_eq!(got, want, "case {case}");
            assert_eq!(arrivals.len(), want.len(), "case {case}");
            assert_eq!(arrivals.iter().len(), want.len(), "case {case}");
            assert_eq!(arrivals.first(), want.first().copied(), "case {case}");
            assert_eq!(arrivals.last(), want.last().copied(), "case {case}");
            assert_eq!(rows, want_rows, "case {case}");
        }
    }

    #[test]
    fn arrivals_are_compared_and_read_as_a_sequence() {
        let wm = |value| Arrival::Watermark {
            stream: Side::Right,
            line: 1,
            assigner: 0,
            value,
            arrival: 5,
        };
        // A left stream of rows 0..3 and no right rows: where the right rows would start
        // does not matter.
        let mut a = Arrivals::new(RowId(0), RowId(3));
        let mut b = Arrivals::new(RowId(0), RowId(0));
        for x in [&mut a, &mut b] {
            x.push_watermark(wm(1));
            for i in 0..3 {
                x.push_row(Side::Left, RowId(i));
            }
            x.push_watermark(wm(2));
            x.push_watermark(wm(3));
        }
        assert_eq!(a, b);
        let want = vec![
            wm(1),
            Arrival::Row(RowId(0)),
            Arrival::Row(RowId(1)),
            Arrival::Row(RowId(2)),
            wm(2),
            wm(3),
        ];
        assert_eq!(a.iter().collect::<Vec<_>>(), want);
        assert_eq!(
            (a.len(), a.first(), a.last()),
            (6, Some(wm(1)), Some(wm(3)))
        );
        b.push_watermark(wm(4));
        assert_ne!(a, b);
        // More than a word of rows, both streams, and the last one a row.
        let mut c = Arrivals::new(RowId(0), RowId(100));
        let mut want = Vec::new();
        let (mut l, mut r) = (0, 100);
        for i in 0..150u32 {
            let (side, id) = if i % 3 == 0 {
                r += 1;
                (Side::Right, r - 1)
            } else {
                l += 1;
                (Side::Left, l - 1)
            };
            c.push_row(side, RowId(id));
            want.push(Arrival::Row(RowId(id)));
        }
        assert_eq!(c.iter().collect::<Vec<_>>(), want);
        assert_eq!(c.last(), want.last().copied());
        assert!(Arrivals::default().first().is_none() && Arrivals::default().last().is_none());
    }

    #[test]
    fn a_given_scenario_builds_the_same_plan_without_the_rows_text() {
        let scenario = |rows_l: &str, rows_r: &str| {
            Scenario::from_json(
                &serde_json::json!({
                    "title": "t",
                    "job": { "operator": "interval_join", "parallelism": 2,
                             "watermark": { "strategy": "punctuated" },
                             "interval": { "lower": -10, "upper": 10 } },
                    "streams": [
                        { "name": "l", "columns": ["k", "v:int", "ts"], "key": "k", "time": "ts", "rows": rows_l },
                        { "name": "r", "columns": ["k", "v:int", "ts"], "key": "k", "time": "ts", "rows": rows_r },
                    ],
                })
                .to_string(),
            )
            .unwrap()
        };
        let sc = scenario(
            "a, 1, 5\nWM 3\nb, 2, 9 | a=20\n\"a\", 3, 7",
            "b, 1, 6\nc, 2, 8 | s=1\nWM 8",
        );
        let a = build(&sc, Limits::default()).unwrap();
        let b = build_owned(sc.clone(), Limits::default()).unwrap();
        assert_eq!(
            (&a.rows, &a.keys, &a.arrivals, &a.schemas, &a.warnings),
            (&b.rows, &b.keys, &b.arrivals, &b.schemas, &b.warnings)
        );
        // Each `WM` row without `s=` reaches both assigner subtasks.
        assert_eq!((a.rows.len(), a.arrivals.len()), (5, 5 + 2 * 2));
        assert_eq!(a.scenario, b.scenario);
        // The plan's scenario is the one given, less the rows text.
        let mut want = sc.clone();
        for st in &mut want.streams {
            st.rows.clear();
        }
        assert_eq!(a.scenario, want);
        // An error is the same either way.
        let bad = scenario("a, 1, 5\nb, x, 6", "");
        let e = build(&bad, Limits::default()).unwrap_err();
        assert_eq!(build_owned(bad, Limits::default()).unwrap_err(), e);
        assert!(e.to_string().contains("line 2"), "{e}");
    }

    #[test]
    #[should_panic(expected = "the rows of a stream arrive in the order of their ids")]
    fn a_stream_rows_arrive_in_id_order() {
        let mut a = Arrivals::new(RowId(0), RowId(2));
        a.push_row(Side::Left, RowId(1));
    }

    #[test]
    fn small_integer_keys_and_others_share_one_index() {
        let mut ix = KeyIndex::default();
        let values = [
            Value::Int(3),
            Value::Long(3),
            Value::Int(-1),
            Value::Int(70_000),
            Value::Long(65_535),
            Value::Str("3".into()),
            Value::Null,
            // Strings of every length the hash reads differently, and strings that differ
            // only where one load or the other does not look.
            Value::Str("".into()),
            Value::Str("k7".into()),
            Value::Str("k77".into()),
            Value::Str("kx7".into()),
            Value::Str("abcd".into()),
            Value::Str("abcxyd".into()),
            Value::Str("abcyxd".into()),
            Value::Str("12345678".into()),
            Value::Str("123456789abcdefgh".into()),
            Value::Str("123456789abcdefgi".into()),
            Value::Str("1234567x9abcdefgh".into()),
        ];
        for (i, v) in values.iter().enumerate() {
            assert_eq!(ix.get(v), None);
            ix.insert(v, KeyId(i as u32));
        }
        for (i, v) in values.iter().enumerate() {
            assert_eq!(ix.get(v), Some(KeyId(i as u32)), "{v:?}");
        }
        assert_eq!(ix.get(&Value::Int(4)), None);
        assert_eq!(ix.get(&Value::Long(70_000)), None);
    }
}
