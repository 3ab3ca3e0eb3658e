//! The rows parser (`parse::parse_stream`, one pass over bytes) against a reference: the
//! simple two-step reader it replaced (every line split into owned fields first, the untyped
//! columns' types inferred with `value::infer_type`, then every field typed), kept here as it
//! was. Random rows texts, rich in the cases where the two could part (quotes, `""`, bars and
//! annotations, row kinds, watermark rows, wide characters and Unicode spaces, `-0`, integers
//! past 32 and 64 bits, mixed column types, too few or many fields), must give the same
//! entries, schema and error (line, column and message), compared through `Debug` so that
//! `-0.0` and `0.0` differ.

use joinlab::parse::parse_stream;
use joinlab::scenario::StreamSpec;
use proptest::prelude::*;

mod reference {
    use joinlab::error::Error;
    use joinlab::parse::{
        Column, DataRow, Entry, ParsedStream, RowKind, Schema, ValueRange, MAX_COLUMNS,
        MAX_ROWS_PER_STREAM,
    };
    use joinlab::scenario::StreamSpec;
    use joinlab::time::parse_timestamp;
    use joinlab::value::{infer_type, ColumnType, Value};

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

        let mut lines = Vec::new();
        for (i, raw) in spec.rows.lines().enumerate() {
            if let Some(l) = split_line(name, i + 1, raw, parallelism)? {
                if lines.len() >= MAX_ROWS_PER_STREAM {
                    return Err(Error::Limit {
                        message: format!(
                            "stream {name:?} has more than {MAX_ROWS_PER_STREAM} rows"
                        ),
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
        let mut all_values: Vec<Value> = Vec::new();
        for l in lines {
            if let Some((text, column)) = l.wm {
                let value = parse_timestamp(&text).map_err(|m| {
                    Error::row(name, l.number, column, format!("watermark row: {m}"))
                })?;
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
                values: {
                    let start = all_values.len() as u32;
                    all_values.extend(values);
                    ValueRange {
                        start,
                        len: all_values.len() as u32 - start,
                    }
                },
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
            values: all_values,
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
}

/// One field's text: mostly ordinary values, and every form the reader treats apart.
fn field() -> impl Strategy<Value = String> {
    prop_oneof![
        20 => "[0-9]{1,6}",
        6 => "-?[0-9]{1,3}\\.[0-9]{1,2}",
        6 => "[a-c][0-9]?",
        2 => prop::sample::select(vec![
            "", " ", "null", "NULL", "true", "FALSE", "-0", "-00", "+5", "007", "-", "+",
            "2147483647", "2147483648", "-2147483649", "9223372036854775807",
            "9223372036854775808", "99999999999999999999", "9007199254740993",
            "1e5", "1e400", "inf", "NaN", "-inf", "0x10", "1_000", "5s", "1h 30m", "00:01:03",
            "2021-11-01 00:01:03", "2021-11-01T00:01:03.250Z", "2021-02-30", "日本", "é",
            "\u{a0}x\u{a0}", "x\u{0b}", "x\u{85}", "a\"b", "\"\"", "\"a,b\"", "\"x\"\"y\"",
            "\"null\"", "\"5\"", "\" 7 \"", "\"unclosed", "\"q\" x", "\"日\"\"本\"",
        ]).prop_map(str::to_string),
    ]
}

/// One line: a field list with optional kind prefix and annotations, or one of the special
/// lines.
fn line(columns: usize) -> impl Strategy<Value = String> {
    let fields = prop_oneof![
        30 => prop::collection::vec(field(), columns..=columns),
        1 => prop::collection::vec(field(), 0..columns + 2),
    ];
    let sep = prop::sample::select(vec![",", ", ", " ,", "\t,", ",  "]);
    let prefix = prop_oneof![
        20 => Just(""),
        1 => prop::sample::select(vec![
            "+I ", "-U,", "+U\t", "-D ", "-Dx", "+I", "  ", "\u{3000}", "\t"
        ]),
    ];
    let suffix = prop_oneof![
        20 => Just(""),
        1 => prop::sample::select(vec![
            " | s=0", "|s=1 a=5", "| a=2021-11-01T00:00:01", "| x=1", "| s=9", "| s", "|",
            " | a=5x", "|s=0,a=3", " ", "\t", "\u{a0}",
        ]),
    ];
    let special = prop::sample::select(vec![
        "",
        "   ",
        "# comment",
        "//c",
        "/x",
        "WM 5",
        "wm 2021-11-01 00:00:00",
        "WM ",
        "WM 5x",
        "Wm  7 | s=0",
        "WM5",
        "  WM 3",
        "WM -9007199254740993",
    ]);
    prop_oneof![
        12 => (prefix, fields, sep, suffix).prop_map(|(p, f, s, x)| format!("{p}{}{x}", f.join(s))),
        1 => special.prop_map(str::to_string),
    ]
}

fn rows(columns: usize) -> impl Strategy<Value = String> {
    let end = prop_oneof![20 => Just("\n"), 1 => Just("\r\n"), 1 => Just("\r")];
    prop::collection::vec((line(columns), end), 0..14)
        .prop_map(|v| v.into_iter().map(|(l, e)| format!("{l}{e}")).collect())
}

/// Column lists: untyped, typed, the time column typed (its type is ignored), no time column.
fn columns() -> impl Strategy<Value = (Vec<&'static str>, Option<&'static str>)> {
    prop::sample::select(vec![
        (vec!["k", "v", "ts"], Some("ts")),
        (vec!["k:int", "v:double", "ts"], Some("ts")),
        (vec!["k:bigint", "v:boolean", "ts:string"], Some("ts")),
        (vec!["k:string", "v"], None),
        (vec!["k"], Some("k")),
        (vec!["k", "v", "w", "ts"], Some("ts")),
    ])
}

fn spec(cols: &[&str], time: Option<&str>, rows: String) -> StreamSpec {
    StreamSpec {
        name: "s".into(),
        columns: cols.iter().map(|c| c.to_string()).collect(),
        key: Some("k".into()),
        time: time.map(str::to_string),
        rows,
        watermark: None,
        primary_key: Vec::new(),
        scan_watermark_idle_timeout: None,
        time_from: None,
        proctime: None,
    }
}

fn same(sc: &StreamSpec, p: u32) -> Result<(), TestCaseError> {
    let got = format!("{:?}", parse_stream(sc, p));
    let want = format!("{:?}", reference::parse_stream(sc, p));
    prop_assert_eq!(got, want, "rows {:?}", sc.rows);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, .. ProptestConfig::default() })]

    #[test]
    fn parses_as_the_reference(
        (cols, time, text) in columns().prop_flat_map(|(c, t)| {
            let n = c.len();
            (Just(c), Just(t), rows(n))
        }),
        p in 1u32..3,
    ) {
        same(&spec(&cols, time, text), p)?;
    }

    #[test]
    fn one_column_type_mixes_as_the_reference(values in prop::collection::vec(field(), 1..8), p in 1u32..3) {
        // A single untyped column next to the time column: every way its values can mix.
        let text: String = values.iter().enumerate().map(|(i, v)| format!("{v}, {i}\n")).collect();
        same(&spec(&["k", "ts"], Some("ts"), text), p)?;
    }
}

#[test]
fn fixed_cases_parse_as_the_reference() {
    for (cols, text) in [
        (&["k", "ts"][..], "-0, 1\n1.5, 2"),
        (&["k", "ts"][..], "1, 1\n2147483648, 2"),
        (&["k", "ts"][..], "1, 1\n2.5, 2\n9223372036854775807, 3"),
        (&["k", "ts"][..], "1, 1\nx, 2"),
        (&["k", "ts"][..], "true, 1\n1, 2"),
        (&["k", "ts"][..], "true, 1\nnull, 2\nFALSE, 3"),
        (&["k", "ts"][..], "1, 1\n\"2\", 2"),
        (&["k", "ts"][..], "null, 1"),
        (&["k:int", "ts"][..], "x, 1\n\"unclosed, 2"),
        (&["k:int", "ts"][..], "x, 1\na, b, c"),
        (&["k", "ts"][..], "a, 5q\nb, 1 | s=7"),
    ] {
        let sc = spec(cols, Some("ts"), text.to_string());
        assert_eq!(
            format!("{:?}", parse_stream(&sc, 2)),
            format!("{:?}", reference::parse_stream(&sc, 2)),
            "{text:?}"
        );
    }
}
