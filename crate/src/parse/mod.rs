//! Reading a stream's rows as typed text.
//!
//! One row per line: comma-separated fields in column order (double quotes around a field that
//! holds a comma or spaces to keep; `""` inside quotes is a quote; unquoted `null` is NULL).
//! Optional parts:
//! - a row kind first, for regular-join inputs: `+I`, `-U`, `+U`, `-D` (default `+I`);
//! - annotations after a `|`: `s=N` (the assigner subtask the row arrives on, 0-based) and
//!   `a=TIME` (its arrival, i.e. processing, time; a date-time needs the `T` form here:
//!   `a=2021-11-01T00:02:10`);
//! - a watermark row `WM <time>` instead of data (a punctuated watermark; see `watermark`).
//!
//! Blank lines and lines starting with `#` or `//` are ignored.

use crate::error::Error;
use crate::scenario::StreamSpec;
use crate::time::parse_timestamp;
use crate::value::{ColumnType, Value};
use serde::Serialize;

mod fast;
mod guess;
#[cfg(test)]
use fast::plain_integer;
use fast::{fast_entry, Lines};
use guess::{widen, Fix, Guess};

/// Which input of a two-input operator a stream feeds (the first stream is the left one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Left,
    Right,
}

impl Side {
    pub fn index(self) -> usize {
        match self {
            Side::Left => 0,
            Side::Right => 1,
        }
    }
    pub fn other(self) -> Side {
        match self {
            Side::Left => Side::Right,
            Side::Right => Side::Left,
        }
    }
}

/// The changelog kind of a row (Flink's `RowKind`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum RowKind {
    #[default]
    #[serde(rename = "+I")]
    Insert,
    #[serde(rename = "-U")]
    UpdateBefore,
    #[serde(rename = "+U")]
    UpdateAfter,
    #[serde(rename = "-D")]
    Delete,
}

impl RowKind {
    pub fn short(self) -> &'static str {
        match self {
            RowKind::Insert => "+I",
            RowKind::UpdateBefore => "-U",
            RowKind::UpdateAfter => "+U",
            RowKind::Delete => "-D",
        }
    }
    /// `+I` and `+U` add to a table; `-U` and `-D` retract (`RowDataUtil.isAccumulateMsg`).
    pub fn is_accumulate(self) -> bool {
        matches!(self, RowKind::Insert | RowKind::UpdateAfter)
    }
}

/// A column of a stream's schema.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Column {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: ColumnType,
}

/// A stream's resolved schema.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Schema {
    pub name: String,
    pub columns: Vec<Column>,
    pub key: Option<usize>,
    pub time: Option<usize>,
}

/// One parsed line of a stream.
#[derive(Clone, Debug, PartialEq)]
pub enum Entry {
    Data(DataRow),
    /// `WM <time>`: a watermark typed among the data.
    Watermark {
        line: u32,
        value: i64,
        subtask: Option<u32>,
        arrival: Option<i64>,
    },
}

/// One data row, typed.
#[derive(Clone, Debug, PartialEq)]
pub struct DataRow {
    /// 1-based line number in the stream's rows text.
    pub line: u32,
    pub kind: RowKind,
    /// Where its values (one per column) are in the buffer of all rows' values
    /// ([`ParsedStream::values`]): no allocation per row.
    pub values: ValueRange,
    /// The event timestamp (value of the time column), if the stream has one.
    pub ts: Option<i64>,
    pub subtask: Option<u32>,
    pub arrival: Option<i64>,
}

/// Where a row's values are in a buffer of many rows' values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ValueRange {
    /// The index of the row's first value.
    pub start: u32,
    /// How many values (the stream's columns).
    pub len: u32,
}

// Every index fits: at most MAX_COLUMNS values a row, MAX_ROWS_PER_STREAM rows a stream, and a
// scenario of a few streams.
const _: () = assert!((MAX_ROWS_PER_STREAM * MAX_COLUMNS * 8) as u64 <= u32::MAX as u64);

impl ValueRange {
    /// The range starting at `start` up to the end of `values` (what was just pushed).
    pub(crate) fn since(start: usize, values: &[Value]) -> ValueRange {
        ValueRange {
            start: start as u32,
            len: (values.len() - start) as u32,
        }
    }
    /// The indices in the buffer.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }
    /// The row's values in `values`.
    pub fn of(self, values: &[Value]) -> &[Value] {
        &values[self.range()]
    }
}

/// A parsed stream.
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedStream {
    pub schema: Schema,
    pub entries: Vec<Entry>,
    /// The values of all its data rows, each row's in its [`DataRow::values`] range.
    pub values: Vec<Value>,
}

impl ParsedStream {
    /// A data row's values.
    pub fn row_values(&self, r: &DataRow) -> &[Value] {
        r.values.of(&self.values)
    }
}

/// Limits that keep a pasted input from exhausting memory.
pub const MAX_ROWS_PER_STREAM: usize = 5_000_000;
pub const MAX_COLUMNS: usize = 64;

/// Resolves a stream's schema and parses its rows. `parallelism` bounds `s=` annotations.
///
/// One pass over the text's bytes: a field is a byte range of its line (no `String` per field,
/// except the value of a string column), typed as it is read. Errors come in the order of the
/// two-step reading they describe: first whatever makes a line unreadable (a quote not closed,
/// a bad annotation, too many rows) anywhere in the text, then the first value that does not fit
/// its column.
pub fn parse_stream(spec: &StreamSpec, parallelism: u32) -> Result<ParsedStream, Error> {
    let lines = entry_capacity(&spec.rows);
    let mut entries = Vec::with_capacity(lines);
    let mut values = Vec::with_capacity(value_capacity(spec, lines));
    let schema = parse_stream_into(spec, parallelism, &mut entries, &mut values)?;
    Ok(ParsedStream {
        schema,
        entries,
        values,
    })
}

/// [`parse_stream`] with the entries appended to `entries` and their values to `values` (which
/// hold part of them after an error): `plan::build` reads both streams into one buffer of
/// entries, turned into the plan's rows in place, and one of values, which becomes the plan's.
/// `plan::build` reserves room for both first (`entry_capacity`, `value_capacity`). A caller that
/// parses again and again can clear and reuse the same two buffers: the text path's benchmark
/// does, to time the reader apart from the memory it is given.
pub fn parse_stream_into(
    spec: &StreamSpec,
    parallelism: u32,
    entries: &mut Vec<Entry>,
    values: &mut Vec<Value>,
) -> Result<Schema, Error> {
    let name = spec.name.as_str();
    if name.trim().is_empty() {
        return Err(Error::stream(name, "name", "a stream needs a name"));
    }
    if spec.columns.is_empty() {
        return Err(Error::stream(
            name,
            "columns",
            "a stream needs at least one column",
        ));
    }
    if spec.columns.len() > MAX_COLUMNS {
        return Err(Error::stream(
            name,
            "columns",
            format!("at most {MAX_COLUMNS} columns"),
        ));
    }
    let mut declared: Vec<(String, Option<ColumnType>)> = Vec::new();
    for c in &spec.columns {
        let (n, t) = match c.split_once(':') {
            Some((n, t)) => {
                let ty = ColumnType::parse(t).ok_or_else(|| {
                    Error::stream(name, "columns", format!("unknown type {:?} of column {:?} (string, int, bigint, double, boolean, decimal(p,s))", t.trim(), n.trim()))
                })?;
                (n.trim().to_string(), Some(ty))
            }
            None => (c.trim().to_string(), None),
        };
        if n.is_empty() {
            return Err(Error::stream(name, "columns", "a column needs a name"));
        }
        if declared.iter().any(|(d, _)| *d == n) {
            return Err(Error::stream(
                name,
                "columns",
                format!("column {n:?} appears twice"),
            ));
        }
        declared.push((n, t));
    }
    let find = |field: &str, col: &Option<String>| -> Result<Option<usize>, Error> {
        match col {
            None => Ok(None),
            Some(c) => declared
                .iter()
                .position(|(n, _)| n == c.trim())
                .map(Some)
                .ok_or_else(|| {
                    Error::stream(
                        name,
                        field,
                        format!(
                            "no column named {c:?} (columns: {})",
                            declared
                                .iter()
                                .map(|d| format!("{:?}", d.0))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                }),
        }
    };
    let key = find("key", &spec.key)?;
    let time = find("time", &spec.time)?;

    // The time column is a BIGINT of milliseconds whatever its declared type.
    let slots: Vec<Slot> = declared
        .iter()
        .enumerate()
        .map(|(ci, (_, t))| match (Some(ci) == time, t) {
            (true, _) => Slot::Time,
            (false, Some(ty)) => Slot::Typed(*ty),
            (false, None) => Slot::Infer,
        })
        .collect();
    let names: Vec<&str> = declared.iter().map(|d| d.0.as_str()).collect();
    let reader = Reader {
        stream: name,
        parallelism,
        names: &names,
    };
    let base = entries.len();
    let values_base = values.len();
    let guesses = reader.read(&spec.rows, &slots, entries, values)?;
    let mut types: Vec<ColumnType> = slots
        .iter()
        .map(|s| match s {
            Slot::Time => ColumnType::Long,
            Slot::Typed(t) => *t,
            Slot::Infer => ColumnType::String,
        })
        .collect();
    let mut reread = false;
    for (ci, g) in guesses.iter().enumerate() {
        if slots[ci] == Slot::Infer {
            types[ci] = g.column_type();
            match g.fix(types[ci]) {
                Fix::None => {}
                Fix::Reread => reread = true,
                Fix::Widen => widen(&mut values[values_base..], slots.len(), ci, types[ci]),
            }
        }
    }
    if reread {
        // Some values were read as another type than the column's: read the text again with
        // every column typed (it held no error the first time, so it holds none now).
        let typed: Vec<Slot> = slots
            .iter()
            .zip(&types)
            .map(|(s, t)| match s {
                Slot::Infer => Slot::Typed(*t),
                other => *other,
            })
            .collect();
        entries.truncate(base);
        values.truncate(values_base);
        reader.read(&spec.rows, &typed, entries, values)?;
    }
    let columns = declared
        .into_iter()
        .zip(types)
        .map(|((name, _), ty)| Column { name, ty })
        .collect();
    Ok(Schema {
        name: name.to_string(),
        columns,
        key,
        time,
    })
}

/// The entries a rows text needs room for: a row a line at most, and rows of 4 bytes or more
/// (`1,2\n`) for the most part: one allocation for most texts, and not a row a byte for a text
/// of blank lines.
pub(crate) fn entry_capacity(rows: &str) -> usize {
    let lines = memchr::memchr_iter(b'\n', rows.as_bytes()).count() + 1;
    lines.min(rows.len() / 4 + 1).min(MAX_ROWS_PER_STREAM)
}

/// The values the rows of `spec` need room for, given room for `lines` entries: one a column a
/// line.
pub(crate) fn value_capacity(spec: &StreamSpec, lines: usize) -> usize {
    lines * spec.columns.len().min(MAX_COLUMNS)
}

/// How a column's values are read.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Slot {
    /// The time column: a timestamp (`parse_timestamp`), stored as BIGINT milliseconds.
    Time,
    Typed(ColumnType),
    /// No declared type: [`infer_type`](crate::value::infer_type) decides from all of the column's values.
    Infer,
}

/// A field of a line: byte offsets into the line.
#[derive(Clone, Copy, Debug)]
struct FieldAt {
    /// Where the field starts after its leading spaces (its opening quote if quoted): errors
    /// point here.
    at: usize,
    /// The text: inside the quotes for a quoted field, without trailing white space otherwise.
    start: usize,
    end: usize,
    quoted: bool,
    /// A quoted field holding `""` (a quote): its text is unescaped into a scratch string.
    escaped: bool,
}

/// One line's parts other than its fields.
struct LineParts {
    kind: RowKind,
    /// A watermark row: the time's text range and where it starts.
    wm: Option<(usize, usize)>,
    subtask: Option<u32>,
    arrival: Option<i64>,
}

/// Reads one stream's rows text.
struct Reader<'a> {
    stream: &'a str,
    parallelism: u32,
    names: &'a [&'a str],
}

impl Reader<'_> {
    /// The entries of `rows` with each column read as `slots` says, appended to `entries`, and
    /// what was seen of the untyped columns.
    fn read(
        &self,
        rows: &str,
        slots: &[Slot],
        entries: &mut Vec<Entry>,
        values: &mut Vec<Value>,
    ) -> Result<Vec<Guess>, Error> {
        let stream = self.stream;
        let mut guesses = vec![Guess::new(); slots.len()];
        let mut fields: Vec<FieldAt> = Vec::with_capacity(slots.len());
        let mut spans: Vec<(usize, usize)> = Vec::with_capacity(slots.len());
        let mut scratch = String::new();
        let infer = slots.contains(&Slot::Infer);
        // The first value that does not fit its column. Lines that cannot be read at all are
        // reported before it, wherever they are, so reading goes on, checking only the lines.
        let mut bad_value: Option<Error> = None;
        let mut count = 0usize;
        for (i, raw) in Lines::new(rows).enumerate() {
            let number = i + 1;
            // The common line (plain fields, no quotes, kind, annotations or comment) and
            // values that read without an error take the fast path; anything else, and every
            // error, the full one below (so messages come from one place).
            if bad_value.is_none() && count < MAX_ROWS_PER_STREAM {
                let start = values.len();
                match fast_entry(number, raw, slots, infer, &mut guesses, &mut spans, values) {
                    Some(e) => {
                        count += 1;
                        entries.push(e);
                        continue;
                    }
                    // The values it read before giving up are read again below.
                    None => values.truncate(start),
                }
            }
            let Some(parts) = self.split_line(number, raw, &mut fields)? else {
                continue;
            };
            if count >= MAX_ROWS_PER_STREAM {
                return Err(Error::Limit {
                    message: format!("stream {stream:?} has more than {MAX_ROWS_PER_STREAM} rows"),
                });
            }
            count += 1;
            if bad_value.is_some() {
                continue;
            }
            match self.entry(
                number,
                raw,
                parts,
                &fields,
                slots,
                &mut guesses,
                &mut scratch,
                values,
            ) {
                Ok(e) => entries.push(e),
                Err(e) => bad_value = Some(e),
            }
        }
        match bad_value {
            Some(e) => Err(e),
            None => Ok(guesses),
        }
    }

    /// The typed entry of a line that was split.
    #[allow(clippy::too_many_arguments)]
    fn entry(
        &self,
        number: usize,
        raw: &str,
        parts: LineParts,
        fields: &[FieldAt],
        slots: &[Slot],
        guesses: &mut [Guess],
        scratch: &mut String,
        values: &mut Vec<Value>,
    ) -> Result<Entry, Error> {
        let stream = self.stream;
        if let Some((start, end)) = parts.wm {
            let value = timestamp(&raw[start..end]).map_err(|m| {
                Error::row(
                    stream,
                    number,
                    char_column(raw, start),
                    format!("watermark row: {m}"),
                )
            })?;
            return Ok(Entry::Watermark {
                line: number as u32,
                value,
                subtask: parts.subtask,
                arrival: parts.arrival,
            });
        }
        if fields.len() != slots.len() {
            let column = fields.last().map_or(1, |f| char_column(raw, f.at));
            return Err(Error::row(
                stream,
                number,
                column,
                format!(
                    "expected {} fields ({}), found {}",
                    slots.len(),
                    self.names.join(", "),
                    fields.len()
                ),
            ));
        }
        let start = values.len();
        let mut ts = None;
        for (ci, f) in fields.iter().enumerate() {
            let text = field_text(raw, f, scratch);
            let v = match slots[ci] {
                Slot::Time => {
                    if text.is_empty() || (!f.quoted && text.eq_ignore_ascii_case("null")) {
                        return Err(Error::row(
                            stream,
                            number,
                            char_column(raw, f.at),
                            format!("the time column {:?} needs a value", self.names[ci]),
                        ));
                    }
                    let v = timestamp(text).map_err(|m| {
                        Error::row(
                            stream,
                            number,
                            char_column(raw, f.at),
                            format!("time column {:?}: {m}", self.names[ci]),
                        )
                    })?;
                    ts = Some(v);
                    Value::Long(v)
                }
                Slot::Typed(ty) => Value::parse(text, ty, f.quoted).map_err(|m| {
                    Error::row(
                        stream,
                        number,
                        char_column(raw, f.at),
                        format!("column {:?}: {m}", self.names[ci]),
                    )
                })?,
                Slot::Infer => guesses[ci].read(text, f.quoted),
            };
            values.push(v);
        }
        Ok(Entry::Data(DataRow {
            line: number as u32,
            kind: parts.kind,
            values: ValueRange::since(start, values),
            ts,
            subtask: parts.subtask,
            arrival: parts.arrival,
        }))
    }

    /// Splits one line into its parts, its fields into `fields`; `None` for blank and comment
    /// lines.
    fn split_line(
        &self,
        number: usize,
        raw: &str,
        fields: &mut Vec<FieldAt>,
    ) -> Result<Option<LineParts>, Error> {
        let stream = self.stream;
        let bytes = raw.as_bytes();
        fields.clear();
        let first = leading_space(raw, 0, raw.len());
        // Byte by byte: a slice comparison of two bytes is a `memcmp` call.
        if first == raw.len()
            || bytes[first] == b'#'
            || (bytes[first] == b'/' && bytes.get(first + 1) == Some(&b'/'))
        {
            return Ok(None);
        }
        // The annotation bar: the last `|` outside quotes. Quotes and bars are ASCII, so they
        // are found byte by byte (never inside a multi-byte character).
        let mut bar = None;
        if let Some(from) = bytes[first..].iter().position(|&c| c == b'"' || c == b'|') {
            let mut in_q = false;
            for (i, &c) in bytes.iter().enumerate().skip(first + from) {
                match c {
                    b'"' => in_q = !in_q,
                    b'|' if !in_q => bar = Some(i),
                    _ => {}
                }
            }
            if in_q {
                let q = raw.rfind('"').unwrap_or(0);
                return Err(Error::row(
                    stream,
                    number,
                    char_column(raw, q),
                    "a quote is not closed",
                ));
            }
        }
        let body_end = bar.unwrap_or(raw.len());
        let (subtask, arrival) = match bar {
            Some(b) => self.annotations(number, raw, b)?,
            None => (None, None),
        };
        let lead = first.min(body_end);
        let rest = &bytes[lead..body_end];
        // A watermark row.
        if rest.len() >= 3
            && rest[0].eq_ignore_ascii_case(&b'w')
            && rest[1].eq_ignore_ascii_case(&b'm')
            && rest[2] == b' '
        {
            let vstart = leading_space(raw, lead + 3, body_end);
            let vend = lead + 3 + raw[lead + 3..body_end].trim_end().len();
            if vstart >= vend {
                return Err(Error::row(
                    stream,
                    number,
                    char_column(raw, lead),
                    "a watermark row needs a time: WM 5000",
                ));
            }
            return Ok(Some(LineParts {
                kind: RowKind::Insert,
                wm: Some((vstart, vend)),
                subtask,
                arrival,
            }));
        }
        let kind = match (rest.first(), rest.get(1)) {
            (Some(b'+'), Some(b'I')) => Some(RowKind::Insert),
            (Some(b'-'), Some(b'U')) => Some(RowKind::UpdateBefore),
            (Some(b'+'), Some(b'U')) => Some(RowKind::UpdateAfter),
            (Some(b'-'), Some(b'D')) => Some(RowKind::Delete),
            _ => None,
        };
        let (kind, fstart) = match (kind, rest.get(2)) {
            (Some(k), Some(b' ' | b'\t')) => (k, lead + 2),
            (Some(k), Some(b',')) => (k, lead + 3),
            // No prefix, or something like "-Dx": not a kind prefix; read as data.
            _ => (RowKind::Insert, lead),
        };
        self.split_fields(number, raw, fstart, body_end, fields)?;
        Ok(Some(LineParts {
            kind,
            wm: None,
            subtask,
            arrival,
        }))
    }

    /// The `s=` and `a=` annotations after the bar at byte `b`.
    fn annotations(
        &self,
        number: usize,
        raw: &str,
        b: usize,
    ) -> Result<(Option<u32>, Option<i64>), Error> {
        let (stream, parallelism) = (self.stream, self.parallelism);
        let mut subtask = None;
        let mut arrival = None;
        let mut pos = b + 1;
        for tok in raw[b + 1..].split([' ', ',', '\t']) {
            let at = pos;
            pos += tok.len() + 1;
            if tok.is_empty() {
                continue;
            }
            let (k, v) = tok.split_once('=').ok_or_else(|| {
                Error::row(
                    stream,
                    number,
                    char_column(raw, at),
                    format!("annotation {tok:?} is not key=value (s=SUBTASK, a=ARRIVAL)"),
                )
            })?;
            let vcol = || char_column(raw, at + k.len() + 1);
            match k {
                "s" | "subtask" => {
                    let n: u32 = v.parse().map_err(|_| {
                        Error::row(
                            stream,
                            number,
                            vcol(),
                            format!("subtask {v:?} is not a number"),
                        )
                    })?;
                    if n >= parallelism {
                        return Err(Error::row(stream, number, vcol(), format!("subtask {n} does not exist at parallelism {parallelism} (subtasks 0..{})", parallelism - 1)));
                    }
                    subtask = Some(n);
                }
                "a" | "at" | "arrival" => {
                    arrival = Some(parse_timestamp(v).map_err(|m| {
                        Error::row(stream, number, vcol(), format!("arrival time: {m}"))
                    })?);
                }
                other => {
                    return Err(Error::row(
                        stream,
                        number,
                        char_column(raw, at),
                        format!("unknown annotation {other:?} (s=SUBTASK, a=ARRIVAL)"),
                    ))
                }
            }
        }
        Ok((subtask, arrival))
    }

    /// Splits `raw[start..end]` at commas outside quotes into `fields`: at least one field.
    fn split_fields(
        &self,
        number: usize,
        raw: &str,
        start: usize,
        end: usize,
        fields: &mut Vec<FieldAt>,
    ) -> Result<(), Error> {
        let stream = self.stream;
        let bytes = raw.as_bytes();
        let mut i = start;
        loop {
            // Skip leading spaces.
            while i < end && (bytes[i] == b' ' || bytes[i] == b'\t') {
                i += 1;
            }
            let at = i;
            if i < end && bytes[i] == b'"' {
                i += 1;
                let text_start = i;
                let mut escaped = false;
                loop {
                    if i >= end {
                        return Err(Error::row(
                            stream,
                            number,
                            char_column(raw, at),
                            "a quote is not closed",
                        ));
                    }
                    if bytes[i] == b'"' {
                        if i + 1 < end && bytes[i + 1] == b'"' {
                            escaped = true;
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                let text_end = i;
                i += 1;
                while i < end && (bytes[i] == b' ' || bytes[i] == b'\t') {
                    i += 1;
                }
                if i < end && bytes[i] != b',' {
                    return Err(Error::row(
                        stream,
                        number,
                        char_column(raw, i),
                        "expected a comma after the quoted field",
                    ));
                }
                fields.push(FieldAt {
                    at,
                    start: text_start,
                    end: text_end,
                    quoted: true,
                    escaped,
                });
            } else {
                let j = bytes[i..end]
                    .iter()
                    .position(|&c| c == b',')
                    .map_or(end, |k| i + k);
                // Trailing white space (any, as `str::trim_end`); ASCII text needs no decoding.
                let text_end = match bytes[i..j].last() {
                    Some(&c) if c.is_ascii() && !c.is_ascii_whitespace() && c != 0x0b => j,
                    _ => i + raw[i..j].trim_end().len(),
                };
                fields.push(FieldAt {
                    at,
                    start: i,
                    end: text_end,
                    quoted: false,
                    escaped: false,
                });
                i = j;
            }
            if i < end && bytes[i] == b',' {
                i += 1;
                continue;
            }
            return Ok(());
        }
    }
}

/// The offset of the first character at or after `from` (before `end`) that is not white space
/// (as `str::trim_start`), or `end`.
fn leading_space(raw: &str, from: usize, end: usize) -> usize {
    match raw.as_bytes().get(from) {
        Some(&c) if from < end && c.is_ascii() && !c.is_ascii_whitespace() && c != 0x0b => from,
        _ => end - raw[from..end].trim_start().len(),
    }
}

/// The text of a field, its `""` unescaped (into `scratch`).
fn field_text<'a>(raw: &'a str, f: &FieldAt, scratch: &'a mut String) -> &'a str {
    let text = &raw[f.start..f.end];
    if !f.escaped {
        return text;
    }
    scratch.clear();
    let mut rest = text;
    while let Some(q) = rest.find("\"\"") {
        scratch.push_str(&rest[..=q]);
        rest = &rest[q + 2..];
    }
    scratch.push_str(rest);
    scratch
}

/// The 1-based character column of a byte offset in a line (counted only for an error, so a
/// line costs O(its length) however many fields it has).
fn char_column(raw: &str, byte: usize) -> usize {
    let byte = byte.min(raw.len());
    raw.get(..byte).map_or(1, |s| s.chars().count() + 1)
}

/// A timestamp as [`parse_timestamp`] reads it, with a fast path for a plain integer of
/// milliseconds (the form of almost every generated or pasted row).
fn timestamp(text: &str) -> Result<i64, String> {
    let b = text.as_bytes();
    let (neg, digits) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        Some(b'+') => (false, &b[1..]),
        _ => (false, b),
    };
    // At most 16 digits cannot overflow; within ±2^53 (MAX_TYPED_MS) it is the value that
    // `parse_duration` gives; anything else takes the full path (and its messages).
    if !digits.is_empty() && digits.len() <= 16 && digits.iter().all(u8::is_ascii_digit) {
        let v = digits
            .iter()
            .fold(0i64, |v, &d| v * 10 + i64::from(d - b'0'));
        if v <= crate::time::MAX_TYPED_MS {
            return Ok(if neg { -v } else { v });
        }
    }
    parse_timestamp(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(cols: &[&str], key: &str, time: &str, rows: &str) -> StreamSpec {
        StreamSpec {
            name: "s".into(),
            columns: cols.iter().map(|c| c.to_string()).collect(),
            key: Some(key.into()),
            time: Some(time.into()),
            rows: rows.into(),
            watermark: None,
            primary_key: Vec::new(),
            scan_watermark_idle_timeout: None,
            time_from: None,
            proctime: None,
        }
    }

    #[test]
    fn rows_types_and_annotations() {
        let p = parse_stream(
            &spec(
                &["user", "n", "ts"],
                "user",
                "ts",
                "Alice, 35, 2s\n# c\n\n\"Bo, b\", 20, 8000 | s=1 a=5\nWM 3000\n-D Al, 1, 1",
            ),
            2,
        )
        .unwrap();
        assert_eq!(p.schema.columns[1].ty, ColumnType::Int);
        assert_eq!(p.entries.len(), 4);
        match &p.entries[1] {
            Entry::Data(r) => {
                assert_eq!(r.line, 4);
                assert_eq!(p.row_values(r)[0], Value::Str("Bo, b".into()));
                assert_eq!(r.subtask, Some(1));
                assert_eq!(r.arrival, Some(5));
                assert_eq!(r.ts, Some(8000));
            }
            e => panic!("{e:?}"),
        }
        assert!(matches!(p.entries[2], Entry::Watermark { value: 3000, .. }));
        match &p.entries[3] {
            Entry::Data(r) => assert_eq!(r.kind, RowKind::Delete),
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = parse_stream(
            &spec(
                &["user", "n:int", "ts"],
                "user",
                "ts",
                "Alice, 35, 2s\nBob, x1, 3",
            ),
            1,
        )
        .unwrap_err();
        assert_eq!(
            e,
            Error::row(
                "s",
                2,
                6,
                "column \"n\": \"x1\" is not an INT (32-bit integer)"
            )
        );
        let e =
            parse_stream(&spec(&["user", "n", "ts"], "user", "ts", "Alice, 35"), 1).unwrap_err();
        assert!(matches!(e, Error::Row { line: 1, .. }));
        let e = parse_stream(
            &spec(&["user", "n", "ts"], "user", "ts", "A, 1, 2 | s=3"),
            2,
        )
        .unwrap_err();
        assert!(
            matches!(
                e,
                Error::Row {
                    line: 1,
                    column: 13,
                    ..
                }
            ),
            "{e:?}"
        );
        let e = parse_stream(&spec(&["user", "n", "ts"], "nokey", "ts", ""), 1).unwrap_err();
        assert!(matches!(e, Error::Stream { .. }));
        let e = parse_stream(&spec(&["user", "n", "ts"], "user", "ts", "A, 1, 5q"), 1).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Row {
                    line: 1,
                    column: 7,
                    ..
                }
            ),
            "{e:?}"
        );
    }

    #[test]
    fn lines_are_those_of_str_lines() {
        for text in [
            "",
            "\n",
            "a",
            "a\n",
            "a\nb",
            "a\r\nb\r\n",
            "a\r",
            "\r",
            "\r\n",
            "a\n\n",
            "\n\nb",
            "a\r\r\nb",
            "x\ry\n",
            "日本\r\n本",
        ] {
            assert_eq!(
                Lines::new(text).collect::<Vec<_>>(),
                text.lines().collect::<Vec<_>>(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn plain_integers_read_as_str_parse() {
        for t in [
            "0",
            "-0",
            "+5",
            "-",
            "+",
            "",
            "007",
            "123456789012345678",
            "1234567890123456789",
            "12a",
            " 1",
            "1 ",
            "--1",
            "+-1",
            "-9223372036854775808",
        ] {
            let want = t.parse::<i64>().ok().filter(|_| t.len() <= 19);
            match plain_integer(t.as_bytes()) {
                Some(v) => assert_eq!(Some(v), want, "{t:?}"),
                // Longer texts go the full way.
                None => assert!(want.is_none() || t.trim_start_matches(['-', '+']).len() > 18),
            }
        }
    }

    #[test]
    fn unicode_columns_are_counted_in_chars() {
        let e = parse_stream(
            &spec(&["user", "n:int", "ts"], "user", "ts", "日本, x, 1"),
            1,
        )
        .unwrap_err();
        assert!(matches!(e, Error::Row { column: 5, .. }), "{e:?}");
    }
}
