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
use crate::value::{infer_type, ColumnType, Value};
use serde::Serialize;

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
    pub values: Vec<Value>,
    /// The event timestamp (value of the time column), if the stream has one.
    pub ts: Option<i64>,
    pub subtask: Option<u32>,
    pub arrival: Option<i64>,
}

/// A parsed stream.
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedStream {
    pub schema: Schema,
    pub entries: Vec<Entry>,
}

/// Limits that keep a pasted input from exhausting memory.
pub const MAX_ROWS_PER_STREAM: usize = 5_000_000;
pub const MAX_COLUMNS: usize = 64;

struct Field<'a> {
    text: std::borrow::Cow<'a, str>,
    quoted: bool,
    /// 1-based character column of the field's first character.
    column: usize,
}

struct Line<'a> {
    number: usize,
    kind: RowKind,
    fields: Vec<Field<'a>>,
    wm: Option<(String, usize)>,
    subtask: Option<u32>,
    arrival: Option<i64>,
}

/// Resolves a stream's schema and parses its rows. `parallelism` bounds `s=` annotations.
pub fn parse_stream(spec: &StreamSpec, parallelism: u32) -> Result<ParsedStream, Error> {
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
                    Error::stream(name, "columns", format!("unknown type {:?} of column {:?} (string, int, bigint, double, boolean)", t.trim(), n.trim()))
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
                                .map(|d| d.0.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                }),
        }
    };
    let key = find("key", &spec.key)?;
    let time = find("time", &spec.time)?;

    let mut lines = Vec::new();
    for (i, raw) in spec.rows.lines().enumerate() {
        if let Some(l) = split_line(name, i + 1, raw, parallelism)? {
            if lines.len() >= MAX_ROWS_PER_STREAM {
                return Err(Error::Limit {
                    message: format!("stream {name:?} has more than {MAX_ROWS_PER_STREAM} rows"),
                });
            }
            lines.push(l);
        }
    }

    let columns: Vec<Column> = declared
        .iter()
        .enumerate()
        .map(|(ci, (n, t))| {
            let ty = if Some(ci) == time {
                ColumnType::Long
            } else {
                t.unwrap_or_else(|| {
                    infer_type(
                        lines
                            .iter()
                            .filter_map(|l| {
                                l.fields
                                    .get(ci)
                                    .filter(|f| !f.quoted)
                                    .map(|f| f.text.as_ref())
                            })
                            .chain(
                                // A quoted value anywhere makes the column a string.
                                lines.iter().filter_map(|l| {
                                    l.fields.get(ci).filter(|f| f.quoted).map(|_| "\u{0}")
                                }),
                            ),
                    )
                })
            };
            Column {
                name: n.clone(),
                ty,
            }
        })
        .collect();

    let mut entries = Vec::with_capacity(lines.len());
    for l in lines {
        if let Some((text, column)) = l.wm {
            let value = parse_timestamp(&text)
                .map_err(|m| Error::row(name, l.number, column, format!("watermark row: {m}")))?;
            entries.push(Entry::Watermark {
                line: l.number as u32,
                value,
                subtask: l.subtask,
                arrival: l.arrival,
            });
            continue;
        }
        if l.fields.len() != columns.len() {
            let column = l.fields.last().map(|f| f.column).unwrap_or(1);
            return Err(Error::row(
                name,
                l.number,
                column,
                format!(
                    "expected {} fields ({}), found {}",
                    columns.len(),
                    columns
                        .iter()
                        .map(|c| c.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    l.fields.len()
                ),
            ));
        }
        let mut values = Vec::with_capacity(columns.len());
        let mut ts = None;
        for (ci, f) in l.fields.iter().enumerate() {
            if Some(ci) == time {
                if f.text.is_empty() || (!f.quoted && f.text.eq_ignore_ascii_case("null")) {
                    return Err(Error::row(
                        name,
                        l.number,
                        f.column,
                        format!("the time column {:?} needs a value", columns[ci].name),
                    ));
                }
                let v = parse_timestamp(&f.text).map_err(|m| {
                    Error::row(
                        name,
                        l.number,
                        f.column,
                        format!("time column {:?}: {m}", columns[ci].name),
                    )
                })?;
                ts = Some(v);
                values.push(Value::Long(v));
            } else {
                let v = Value::parse(&f.text, columns[ci].ty, f.quoted).map_err(|m| {
                    Error::row(
                        name,
                        l.number,
                        f.column,
                        format!("column {:?}: {m}", columns[ci].name),
                    )
                })?;
                values.push(v);
            }
        }
        entries.push(Entry::Data(DataRow {
            line: l.number as u32,
            kind: l.kind,
            values,
            ts,
            subtask: l.subtask,
            arrival: l.arrival,
        }));
    }
    Ok(ParsedStream {
        schema: Schema {
            name: name.to_string(),
            columns,
            key,
            time,
        },
        entries,
    })
}

/// 1-based character columns of byte offsets in a line, counted from the last offset asked
/// for: asked in increasing order (as the parser does), a line costs O(its length) in all,
/// not O(length × fields) (a 1 MB line of commas would otherwise take half a minute).
struct Columns<'a> {
    raw: &'a str,
    ascii: bool,
    /// The last offset asked for and its column.
    last: std::cell::Cell<(usize, usize)>,
}

impl<'a> Columns<'a> {
    fn new(raw: &'a str) -> Columns<'a> {
        Columns {
            raw,
            ascii: raw.is_ascii(),
            last: std::cell::Cell::new((0, 1)),
        }
    }

    fn at(&self, byte: usize) -> usize {
        let byte = byte.min(self.raw.len());
        if self.ascii {
            return byte + 1;
        }
        let (mut from, mut col) = self.last.get();
        if byte < from {
            (from, col) = (0, 1);
        }
        col += self.raw.get(from..byte).map_or(0, |s| s.chars().count());
        self.last.set((byte, col));
        col
    }
}

/// Splits one line into its parts; `None` for blank and comment lines.
fn split_line<'a>(
    stream: &str,
    number: usize,
    raw: &'a str,
    parallelism: u32,
) -> Result<Option<Line<'a>>, Error> {
    let trimmed = raw.trim();
    if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with("//") {
        return Ok(None);
    }
    // Character columns are counted in chars, 1-based, with a running count.
    let cols = Columns::new(raw);
    let col_of = |byte: usize| cols.at(byte);
    // Find the annotation bar outside quotes.
    let mut in_q = false;
    let mut bar = None;
    for (i, c) in raw.char_indices() {
        match c {
            '"' => in_q = !in_q,
            '|' if !in_q => bar = Some(i),
            _ => {}
        }
    }
    if in_q {
        let q = raw.rfind('"').unwrap_or(0);
        return Err(Error::row(
            stream,
            number,
            col_of(q),
            "a quote is not closed",
        ));
    }
    let body_end = bar.unwrap_or(raw.len());
    let mut subtask = None;
    let mut arrival = None;
    if let Some(b) = bar {
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
                    col_of(at),
                    format!("annotation {tok:?} is not key=value (s=SUBTASK, a=ARRIVAL)"),
                )
            })?;
            let vcol = col_of(at + k.len() + 1);
            match k {
                "s" | "subtask" => {
                    let n: u32 = v.parse().map_err(|_| {
                        Error::row(
                            stream,
                            number,
                            vcol,
                            format!("subtask {v:?} is not a number"),
                        )
                    })?;
                    if n >= parallelism {
                        return Err(Error::row(stream, number, vcol, format!("subtask {n} does not exist at parallelism {parallelism} (subtasks 0..{})", parallelism - 1)));
                    }
                    subtask = Some(n);
                }
                "a" | "at" | "arrival" => {
                    arrival = Some(parse_timestamp(v).map_err(|m| {
                        Error::row(stream, number, vcol, format!("arrival time: {m}"))
                    })?);
                }
                other => {
                    return Err(Error::row(
                        stream,
                        number,
                        col_of(at),
                        format!("unknown annotation {other:?} (s=SUBTASK, a=ARRIVAL)"),
                    ))
                }
            }
        }
    }
    let body = &raw[..body_end];
    let lead = body.len() - body.trim_start().len();
    let rest = &body[lead..];
    // A watermark row.
    if rest.len() >= 3
        && rest.get(..2).is_some_and(|p| p.eq_ignore_ascii_case("wm"))
        && rest.as_bytes()[2] == b' '
    {
        let v = rest[3..].trim();
        let vstart = lead + 3 + (rest[3..].len() - rest[3..].trim_start().len());
        if v.is_empty() {
            return Err(Error::row(
                stream,
                number,
                col_of(lead),
                "a watermark row needs a time: WM 5000",
            ));
        }
        return Ok(Some(Line {
            number,
            kind: RowKind::Insert,
            fields: Vec::new(),
            wm: Some((v.to_string(), col_of(vstart))),
            subtask,
            arrival,
        }));
    }
    let (kind, fstart) = match rest.get(..2) {
        Some("+I") => (RowKind::Insert, lead + 2),
        Some("-U") => (RowKind::UpdateBefore, lead + 2),
        Some("+U") => (RowKind::UpdateAfter, lead + 2),
        Some("-D") => (RowKind::Delete, lead + 2),
        _ => (RowKind::Insert, lead),
    };
    if fstart != lead {
        let after = rest.as_bytes().get(2).copied();
        if !matches!(after, Some(b' ') | Some(b'\t') | Some(b',')) {
            // Something like "-Dx": not a kind prefix; read as data.
            return split_fields(stream, number, raw, lead, body_end).map(|fields| {
                Some(Line {
                    number,
                    kind: RowKind::Insert,
                    fields,
                    wm: None,
                    subtask,
                    arrival,
                })
            });
        }
        let skip = if after == Some(b',') { 1 } else { 0 };
        let fields = split_fields(stream, number, raw, fstart + skip, body_end)?;
        return Ok(Some(Line {
            number,
            kind,
            fields,
            wm: None,
            subtask,
            arrival,
        }));
    }
    let fields = split_fields(stream, number, raw, fstart, body_end)?;
    Ok(Some(Line {
        number,
        kind,
        fields,
        wm: None,
        subtask,
        arrival,
    }))
}

fn split_fields<'a>(
    stream: &str,
    number: usize,
    raw: &'a str,
    start: usize,
    end: usize,
) -> Result<Vec<Field<'a>>, Error> {
    let cols = Columns::new(raw);
    let col_of = |byte: usize| cols.at(byte);
    let mut fields = Vec::new();
    let bytes = raw.as_bytes();
    let mut i = start;
    loop {
        // Skip leading spaces.
        while i < end && (bytes[i] == b' ' || bytes[i] == b'\t') {
            i += 1;
        }
        let fstart = i;
        if i < end && bytes[i] == b'"' {
            let mut s = String::new();
            i += 1;
            loop {
                if i >= end {
                    return Err(Error::row(
                        stream,
                        number,
                        col_of(fstart),
                        "a quote is not closed",
                    ));
                }
                if bytes[i] == b'"' {
                    if i + 1 < end && bytes[i + 1] == b'"' {
                        s.push('"');
                        i += 2;
                        continue;
                    }
                    i += 1;
                    break;
                }
                let ch = raw[i..].chars().next().unwrap_or(' ');
                s.push(ch);
                i += ch.len_utf8();
            }
            while i < end && (bytes[i] == b' ' || bytes[i] == b'\t') {
                i += 1;
            }
            if i < end && bytes[i] != b',' {
                return Err(Error::row(
                    stream,
                    number,
                    col_of(i),
                    "expected a comma after the quoted field",
                ));
            }
            fields.push(Field {
                text: s.into(),
                quoted: true,
                column: col_of(fstart),
            });
        } else {
            let mut j = i;
            while j < end && bytes[j] != b',' {
                j += 1;
            }
            let text = raw[i..j].trim_end();
            fields.push(Field {
                text: text.into(),
                quoted: false,
                column: col_of(fstart),
            });
            i = j;
        }
        if i < end && bytes[i] == b',' {
            i += 1;
            continue;
        }
        break;
    }
    Ok(fields)
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
                assert_eq!(r.values[0], Value::Str("Bo, b".into()));
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
    fn unicode_columns_are_counted_in_chars() {
        let e = parse_stream(
            &spec(&["user", "n:int", "ts"], "user", "ts", "日本, x, 1"),
            1,
        )
        .unwrap_err();
        assert!(matches!(e, Error::Row { column: 5, .. }), "{e:?}");
    }
}
