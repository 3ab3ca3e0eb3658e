//! The scenario document: two input streams plus a job configuration, as JSON (serde).
//!
//! The same document is what share URLs carry, so every setting has a default and settings
//! equal to their default are left out when a scenario is written (`to_compact_json`).
//! The format is described for users in `scenarios/README.md`.

use crate::error::Error;
use crate::time::Millis;
use serde::{Deserialize, Serialize};

/// The current format version. Older versions are migrated by [`Scenario::from_json`].
///
/// - 1: the DataStream operators, the SQL interval join and the SQL regular join.
/// - 2: adds the SQL operators (window TVF aggregation and join, temporal and lookup joins),
///   `job.tvf`, `job.group`, `job.settings` and `streams[].primary_key`. A version-1 document
///   is a version-2 document that uses none of these, so migration only renumbers it.
pub const FORMAT_VERSION: u32 = 2;

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}
fn is_true(v: &bool) -> bool {
    *v
}
fn yes() -> bool {
    true
}
fn one() -> u32 {
    1
}
fn is_one(v: &u32) -> bool {
    *v == 1
}
fn version() -> u32 {
    FORMAT_VERSION
}

/// A whole scenario: what a user typed and chose.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default = "version")]
    pub version: u32,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default)]
    pub job: Job,
    #[serde(default)]
    pub streams: Vec<StreamSpec>,
    /// Expected results (a quiz in a docs page, or a golden test); the page compares the run's
    /// result with these. Opaque to the engine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<serde_json::Value>,
    /// The Flink SQL script this scenario was read from, exactly as typed (`crate::sql`);
    /// empty for a scenario made with the controls.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub sql: String,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            version: FORMAT_VERSION,
            title: String::new(),
            description: String::new(),
            job: Job::default(),
            streams: Vec::new(),
            expected: None,
            sql: String::new(),
        }
    }
}

/// Which operator the simulated job runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum OperatorKind {
    /// DataStream `a.join(b).where(..).equalTo(..).window(..)`.
    #[default]
    WindowJoin,
    /// DataStream `a.keyBy(..).intervalJoin(b.keyBy(..)).between(lower, upper)`.
    IntervalJoin,
    /// DataStream `keyBy(..).window(..).allowedLateness(..).sideOutputLateData(..)` with
    /// count and sum.
    WindowAggregate,
    /// Flink SQL interval join (`... AND l.t BETWEEN r.t + lower AND r.t + upper`).
    SqlIntervalJoin,
    /// Flink SQL regular (unbounded) join with its changelog.
    RegularJoin,
    /// A `ProcessFunction` routing rows to the main output or to tagged side outputs.
    Split,
    /// Flink SQL window aggregation over a window table-valued function:
    /// `SELECT window_start, window_end, k, COUNT(*) … FROM TABLE(TUMBLE(…)) GROUP BY
    /// window_start, window_end, k` ([`TvfSpec`], [`GroupSpec`]).
    WindowTvfAggregate,
    /// Flink SQL window join: both inputs windowed by the same TVF, joined on
    /// `window_start`, `window_end` and the equi-keys ([`TvfSpec`], `sql.join`).
    WindowTvfJoin,
    /// Flink SQL event-time temporal join: `JOIN versioned FOR SYSTEM_TIME AS OF probe.rt`
    /// (the right stream is the versioned table, keyed by its primary key).
    TemporalJoin,
    /// Flink SQL processing-time lookup join: `JOIN dim FOR SYSTEM_TIME AS OF probe.proc_time`
    /// (the right stream is the dimension table, its rows changing at their arrival times).
    LookupJoin,
}

impl OperatorKind {
    /// Whether the operator reads two input streams.
    pub fn two_inputs(self) -> bool {
        matches!(
            self,
            OperatorKind::WindowJoin
                | OperatorKind::IntervalJoin
                | OperatorKind::SqlIntervalJoin
                | OperatorKind::RegularJoin
                | OperatorKind::WindowTvfJoin
                | OperatorKind::TemporalJoin
                | OperatorKind::LookupJoin
        )
    }
    /// Whether keys are Flink SQL `BinaryRowData` (hashed differently from Java `hashCode`).
    pub fn is_sql(self) -> bool {
        matches!(
            self,
            OperatorKind::SqlIntervalJoin
                | OperatorKind::RegularJoin
                | OperatorKind::WindowTvfAggregate
                | OperatorKind::WindowTvfJoin
                | OperatorKind::TemporalJoin
                | OperatorKind::LookupJoin
        )
    }
}

/// The job configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Job {
    #[serde(default)]
    pub operator: OperatorKind,
    /// Parallelism of the assigner stage and of the operator (1–8).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub parallelism: u32,
    /// `pipeline.max-parallelism`; by default computed from the parallelism as Flink does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_parallelism: Option<u32>,
    #[serde(default, skip_serializing_if = "is_default")]
    pub watermark: WatermarkSpec,
    /// Emit `Watermark(Long.MAX_VALUE)` at end of input (Flink does for bounded sources).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub final_watermark: bool,
    #[serde(default, skip_serializing_if = "is_default")]
    pub arrival: ArrivalOrder,
    #[serde(default, skip_serializing_if = "is_default")]
    pub window: WindowSpec,
    #[serde(default, skip_serializing_if = "is_default")]
    pub interval: IntervalSpec,
    #[serde(default, skip_serializing_if = "is_default")]
    pub sql: SqlSpec,
    /// `allowedLateness` of window operators.
    #[serde(default, skip_serializing_if = "is_default")]
    pub allowed_lateness: Millis,
    /// Late-data side outputs: `left` is `sideOutputLeftLateData` of an interval join or
    /// `sideOutputLateData` of a window aggregation; `right` is `sideOutputRightLateData`.
    #[serde(default, skip_serializing_if = "is_default")]
    pub late_output: LateOutput,
    #[serde(default, skip_serializing_if = "is_default")]
    pub aggregate: AggregateSpec,
    #[serde(default, skip_serializing_if = "is_default")]
    pub split: SplitSpec,
    /// The window table-valued function of a SQL window aggregation or window join.
    #[serde(default, skip_serializing_if = "is_default")]
    pub tvf: TvfSpec,
    /// `GROUP BY` and aggregate calls of a SQL window aggregation.
    #[serde(default, skip_serializing_if = "is_default")]
    pub group: GroupSpec,
    /// Flink SQL configuration that changes results (`SET 'key' = 'value'`).
    #[serde(default, skip_serializing_if = "is_default")]
    pub settings: SqlSettings,
    /// The SQL query's projection (`columns` and `values` of the result); `None` for a
    /// scenario made with the controls (no `values` in its result).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<crate::sql::ir::QuerySpec>,
}

impl Default for Job {
    fn default() -> Self {
        Job {
            operator: OperatorKind::default(),
            parallelism: 1,
            max_parallelism: None,
            watermark: WatermarkSpec::default(),
            final_watermark: true,
            arrival: ArrivalOrder::default(),
            window: WindowSpec::default(),
            interval: IntervalSpec::default(),
            sql: SqlSpec::default(),
            allowed_lateness: Millis(0),
            late_output: LateOutput::default(),
            aggregate: AggregateSpec::default(),
            split: SplitSpec::default(),
            tvf: TvfSpec::default(),
            group: GroupSpec::default(),
            settings: SqlSettings::default(),
            query: None,
        }
    }
}

/// How a stream's assigner turns timestamps into watermarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// `WatermarkStrategy.forBoundedOutOfOrderness(delay)`: `maxTs − delay − 1`.
    #[default]
    Bounded,
    /// `WatermarkStrategy.forMonotonousTimestamps()`: `maxTs − 1`.
    Monotonous,
    /// The legacy `BoundedOutOfOrdernessTimestampExtractor(delay)`: `maxTs − delay`.
    Legacy,
    /// Only `WM <time>` rows typed among the data move the watermark.
    Punctuated,
    /// `WatermarkStrategy.noWatermarks()`: only the end-of-input watermark.
    None,
}

/// Watermark generation of the assigner stage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WatermarkSpec {
    #[serde(default, skip_serializing_if = "is_default")]
    pub strategy: Strategy,
    /// The out-of-orderness bound (must be ≥ 0).
    #[serde(default, skip_serializing_if = "is_default")]
    pub delay: Millis,
    /// Emit a watermark after every event (a generator that emits in `onEvent`). Default true:
    /// deterministic and easy to follow.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub per_event: bool,
    /// `pipeline.auto-watermark-interval` in simulated processing time; 0 = no periodic emit.
    #[serde(default, skip_serializing_if = "is_default")]
    pub interval: Millis,
    /// `withIdleness(timeout)` (checked on periodic emits, so it needs `interval` > 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_timeout: Option<Millis>,
}

impl Default for WatermarkSpec {
    fn default() -> Self {
        WatermarkSpec {
            strategy: Strategy::Bounded,
            delay: Millis(0),
            per_event: true,
            interval: Millis(0),
            idle_timeout: None,
        }
    }
}

/// The order in which rows of the two streams reach the job.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArrivalOrder {
    /// Merge the streams by arrival time (a row's `a=` value, else its event time); each
    /// stream keeps its own line order; ties go to the left stream.
    #[default]
    ByTime,
    /// All rows of the left stream, then all of the right.
    LeftFirst,
    /// One row of each stream in turn, starting with the left.
    Interleave,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum WindowKind {
    #[default]
    Tumbling,
    Sliding,
    Session,
}

/// A window assigner: `TumblingEventTimeWindows.of(size, offset)`,
/// `SlidingEventTimeWindows.of(size, slide, offset)`, `EventTimeSessionWindows.withGap(gap)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WindowSpec {
    #[serde(default, skip_serializing_if = "is_default")]
    pub kind: WindowKind,
    #[serde(default = "ten_seconds")]
    pub size: Millis,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slide: Option<Millis>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap: Option<Millis>,
    #[serde(default, skip_serializing_if = "is_default")]
    pub offset: Millis,
}

fn ten_seconds() -> Millis {
    Millis(10_000)
}

impl Default for WindowSpec {
    fn default() -> Self {
        WindowSpec {
            kind: WindowKind::Tumbling,
            size: ten_seconds(),
            slide: None,
            gap: None,
            offset: Millis(0),
        }
    }
}

/// DataStream interval join bounds: `left.ts + lower <= right.ts <= left.ts + upper`, each end
/// inclusive unless marked exclusive (`lowerBoundExclusive()` / `upperBoundExclusive()`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntervalSpec {
    #[serde(default)]
    pub lower: Millis,
    #[serde(default)]
    pub upper: Millis,
    #[serde(default, skip_serializing_if = "is_default")]
    pub lower_exclusive: bool,
    #[serde(default, skip_serializing_if = "is_default")]
    pub upper_exclusive: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum JoinType {
    #[default]
    Inner,
    Left,
    Right,
    Full,
    /// `WHERE l.k IN (SELECT …)` / `EXISTS`: each left row at most once (window join).
    Semi,
    /// `NOT IN` / `NOT EXISTS`: left rows without a match (window join).
    Anti,
}

impl JoinType {
    pub fn left_outer(self) -> bool {
        matches!(self, JoinType::Left | JoinType::Full)
    }
    pub fn right_outer(self) -> bool {
        matches!(self, JoinType::Right | JoinType::Full)
    }
    pub fn sql(self) -> &'static str {
        match self {
            JoinType::Inner => "JOIN",
            JoinType::Left => "LEFT JOIN",
            JoinType::Right => "RIGHT JOIN",
            JoinType::Full => "FULL OUTER JOIN",
            JoinType::Semi => "LEFT SEMI JOIN",
            JoinType::Anti => "LEFT ANTI JOIN",
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum TimeKind {
    #[default]
    Event,
    Processing,
}

/// Flink SQL join settings. For the interval join the predicate is
/// `L.t >= R.t + lower AND L.t <= R.t + upper` (`BETWEEN R.t + lower AND R.t + upper`);
/// a strict end uses `>` / `<` instead.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SqlSpec {
    #[serde(default, skip_serializing_if = "is_default")]
    pub join: JoinType,
    #[serde(default, skip_serializing_if = "is_default")]
    pub lower: Millis,
    #[serde(default, skip_serializing_if = "is_default")]
    pub upper: Millis,
    #[serde(default, skip_serializing_if = "is_default")]
    pub lower_strict: bool,
    #[serde(default, skip_serializing_if = "is_default")]
    pub upper_strict: bool,
    /// Event-time (`rowtime`) or processing-time (`proctime`) interval join.
    #[serde(default, skip_serializing_if = "is_default")]
    pub time: TimeKind,
    /// `table.exec.interval-join.min-cleanup-interval` (default 0).
    #[serde(default, skip_serializing_if = "is_default")]
    pub min_cleanup: Millis,
    /// Window join: which window columns the `ON` condition equates. Flink plans a window join
    /// only when both are there.
    #[serde(default, skip_serializing_if = "is_default")]
    pub window_columns: WindowColumns,
    /// Window join: the right input's TVF, when it differs from `job.tvf` (the left one).
    /// Flink plans a window join only when both inputs use the same window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right_tvf: Option<TvfSpec>,
}

/// Which window columns a window join's `ON` condition equates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowColumns {
    /// `L.window_start = R.window_start AND L.window_end = R.window_end`.
    #[default]
    Both,
    /// Only `L.window_start = R.window_start`.
    StartOnly,
    /// Only `L.window_end = R.window_end`.
    EndOnly,
}

/// Tags of late-data side outputs; `None` drops late rows (they are still reported as late).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LateOutput {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right: Option<String>,
}

/// Window aggregation: a count per key and window, and optionally the sum of a column.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AggregateSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sum: Option<String>,
}

/// A `ProcessFunction` split on one column's value.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitSpec {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub column: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub routes: Vec<SplitRoute>,
    /// Where rows matching no route go (`"main"` or a tag); `None` drops them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub otherwise: Option<String>,
}

/// Rows whose column equals `value` go to `to`: `"main"` (`out.collect`) or a side-output tag.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitRoute {
    pub value: String,
    pub to: String,
}

/// Which window table-valued function windows the input(s).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TvfKind {
    /// `TUMBLE(TABLE t, DESCRIPTOR(rt), size [, offset])`.
    #[default]
    Tumble,
    /// `HOP(TABLE t, DESCRIPTOR(rt), slide, size [, offset])`.
    Hop,
    /// `CUMULATE(TABLE t, DESCRIPTOR(rt), step, size [, offset])`.
    Cumulate,
    /// `SESSION(TABLE t PARTITION BY k, DESCRIPTOR(rt), gap)`.
    Session,
}

/// A window TVF's arguments. The time attribute is each stream's `time` column; `SESSION`'s
/// `PARTITION BY` columns are the grouping (or join) keys.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TvfSpec {
    #[serde(default, skip_serializing_if = "is_default")]
    pub kind: TvfKind,
    /// Window size (`TUMBLE`, `HOP`, `CUMULATE`'s max size).
    #[serde(default = "ten_seconds")]
    pub size: Millis,
    /// `HOP`'s slide.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slide: Option<Millis>,
    /// `CUMULATE`'s step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<Millis>,
    /// `SESSION`'s gap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap: Option<Millis>,
    /// The optional `offset` argument (`TUMBLE`, `HOP`, `CUMULATE`).
    #[serde(default, skip_serializing_if = "is_default")]
    pub offset: Millis,
}

impl Default for TvfSpec {
    fn default() -> Self {
        TvfSpec {
            kind: TvfKind::Tumble,
            size: ten_seconds(),
            slide: None,
            step: None,
            gap: None,
            offset: Millis(0),
        }
    }
}

/// An aggregate function of a SQL window aggregation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AggFunc {
    /// `COUNT(*)` (no column) or `COUNT(col)` (non-null values).
    #[default]
    Count,
    Sum,
    Min,
    Max,
    Avg,
}

/// One aggregate call: `FUNC([DISTINCT] column) AS alias`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AggCall {
    pub func: AggFunc,
    /// The argument column; `None` is `COUNT(*)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
    #[serde(default, skip_serializing_if = "is_default")]
    pub distinct: bool,
    /// The output column's name (Flink's default, e.g. `EXPR$3`, when empty).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub alias: String,
}

/// `GROUP BY window_start, window_end, keys…` (optionally `GROUPING SETS` / `ROLLUP` / `CUBE`
/// over the keys) and the aggregate calls of a SQL window aggregation.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupSpec {
    /// The grouping columns besides the window (in `GROUP BY` order).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<String>,
    /// `GROUPING SETS ((…), (…))` over `keys`, already expanded from `ROLLUP` / `CUBE`;
    /// `None` is a plain `GROUP BY`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grouping_sets: Option<Vec<Vec<String>>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aggregates: Vec<AggCall>,
}

/// Flink SQL options that change results, as `SET 'key' = 'value'` would give them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SqlSettings {
    /// `table.exec.source.idle-timeout` (0 / absent: sources never go idle).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_idle_timeout: Option<Millis>,
    /// `table.exec.state.ttl` (absent: state is kept forever).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_ttl: Option<Millis>,
    /// The `/*+ STATE_TTL('left' = '…') */` hint on the left input of a regular join.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_ttl_left: Option<Millis>,
    /// The `STATE_TTL` hint on the right input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_ttl_right: Option<Millis>,
}

/// One input stream: its schema and its rows as typed text.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamSpec {
    pub name: String,
    /// Column names, each optionally typed: `"deptno:int"`. Untyped columns are inferred.
    pub columns: Vec<String>,
    /// The key column (`keyBy` / join equality).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The event-time column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    /// The rows, one per line (see `scenarios/README.md`).
    #[serde(default)]
    pub rows: String,
    /// This stream's own watermark settings, when they differ from the job's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watermark: Option<WatermarkSpec>,
    /// `PRIMARY KEY (…) NOT ENFORCED` of a SQL table: the regular join's state view
    /// (`JoinInputSideSpec`), the temporal join's versioned-table key.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub primary_key: Vec<String>,
    /// The table option `'scan.watermark.idle-timeout'` of a SQL table (overrides
    /// `table.exec.source.idle-timeout` for this table; 0 switches idleness off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scan_watermark_idle_timeout: Option<Millis>,
    /// A SQL table's computed rowtime column: the time column is `time AS
    /// TO_TIMESTAMP_LTZ(c, 3)` over the numeric column `c` named here (`c:0` for precision 0,
    /// epoch seconds). The rows carry the time column's value too (the event time in
    /// milliseconds); the SQL printer writes the computed form back and leaves it out of the
    /// rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_from: Option<String>,
    /// A SQL table's `PROCTIME()` column where the table declares it otherwise than the
    /// default (see `sql::proctime_column`): `name` (after the other columns), `name:i` (at
    /// column `i`), or `-` (none). `SELECT *` lists it where the table declares it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proctime: Option<String>,
}

impl Scenario {
    /// Parses a scenario document, migrating older format versions.
    ///
    /// Errors are in the user's terms ([`crate::jsontext`]): a value of the wrong type or out
    /// of range names its setting (`job.window.size: …`) rather than a JSON position, and
    /// the nesting depth is checked before parsing.
    pub fn from_json(text: &str) -> Result<Scenario, Error> {
        use crate::jsontext;
        if let Some((at, path)) = jsontext::too_deep(text, jsontext::MAX_DEPTH) {
            let (line, column) = jsontext::line_col(text, at);
            let field = if path.is_empty() {
                "document".to_string()
            } else {
                path
            };
            return Err(Error::Json {
                line,
                column,
                message: format!(
                    "{field}: nested more than {} levels deep",
                    jsontext::MAX_DEPTH
                ),
            });
        }
        let sc: Scenario = serde_json::from_str(text).map_err(|e| {
            let raw = e.to_string();
            let message = jsontext::strip_position(&raw);
            if e.classify() != serde_json::error::Category::Data {
                return Error::Json {
                    line: e.line(),
                    column: e.column(),
                    message: jsontext::shorten_values(message),
                };
            }
            let path = jsontext::path_at(text, jsontext::offset_of(text, e.line(), e.column()));
            if path == "version" {
                let v = serde_json::from_str::<serde_json::Value>(text)
                    .ok()
                    .and_then(|v| v.get("version").map(|v| v.to_string()))
                    .unwrap_or_default();
                return unknown_version(&jsontext::shorten(&v, 40));
            }
            let message = jsontext::shorten_values(&jsontext::humanize(message));
            if path.is_empty() || message.starts_with("unknown field") {
                Error::Json {
                    line: e.line(),
                    column: e.column(),
                    message,
                }
            } else {
                Error::Config {
                    field: path,
                    message,
                }
            }
        })?;
        if sc.version == 0 || sc.version > FORMAT_VERSION {
            return Err(unknown_version(&sc.version.to_string()));
        }
        sc.migrate()
    }

    /// Brings an older document to [`FORMAT_VERSION`]. Version 2 only added fields, so a
    /// version-1 document is renumbered.
    fn migrate(mut self) -> Result<Scenario, Error> {
        if self.version == 1 {
            self.version = 2;
        }
        Ok(self)
    }

    /// The scenario as JSON with every default left out (for share URLs).
    pub fn to_compact_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The scenario as indented JSON (for files).
    pub fn to_pretty_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// The error of a format version this build does not read.
fn unknown_version(v: &str) -> Error {
    let known: Vec<String> = (1..=FORMAT_VERSION).map(|v| v.to_string()).collect();
    Error::config(
        "version",
        format!(
            "format version {v} is not known; this build reads version{} {}",
            if known.len() > 1 { "s" } else { "" },
            known.join(", ")
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_left_out() {
        let sc = Scenario::default();
        assert_eq!(
            sc.to_compact_json(),
            r#"{"version":2,"job":{"operator":"window_join"},"streams":[]}"#
        );
        let back = Scenario::from_json(&sc.to_compact_json()).unwrap();
        assert_eq!(back, sc);
    }

    #[test]
    fn unknown_fields_are_errors_with_position() {
        let e = Scenario::from_json("{\n \"jobb\": {}}").unwrap_err();
        match e {
            Error::Json { line, .. } => assert_eq!(line, 2),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn version_1_documents_are_migrated() {
        let sc =
            Scenario::from_json(r#"{"version":1,"job":{"operator":"interval_join"}}"#).unwrap();
        assert_eq!(sc.version, FORMAT_VERSION);
        assert_eq!(sc.job.operator, OperatorKind::IntervalJoin);
        // No version at all is the current one.
        assert_eq!(Scenario::from_json("{}").unwrap().version, FORMAT_VERSION);
    }

    #[test]
    fn unknown_versions_name_the_known_ones() {
        let e = Scenario::from_json(r#"{"version":99999}"#).unwrap_err();
        assert!(e.to_string().contains("versions 1, 2"), "{e}");
    }

    #[test]
    fn human_durations() {
        let sc = Scenario::from_json(
            r#"{"job":{"operator":"interval_join","interval":{"lower":"-5ms","upper":"1h"}}}"#,
        )
        .unwrap();
        assert_eq!(sc.job.interval.lower, Millis(-5));
        assert_eq!(sc.job.interval.upper, Millis(3_600_000));
    }
}
