//! Reading a script again after a keystroke: only the statements and the `INSERT` rows whose
//! text changed are read again.
//!
//! A script that is typed into is read on every key. Most of its text is `INSERT … VALUES`
//! rows (1,000 rows are ~50 kB), and reading them is most of the work: sqlparser's tokenizer
//! and expression grammar on every value. [`ScriptReader`] keeps, for every row it has read,
//! the row's text, its parsed values and the row text they gave, and reads again only the rows
//! whose text is new. Everything else (`SET`, `CREATE TABLE`, the query, any statement that is
//! not a plain `INSERT INTO t VALUES (…), …;`) is read as [`super::parse`] reads it.
//!
//! The result is the full read's, exactly (scenario and errors, with their positions):
//! - The script is cut into statements at each `;` outside quotes and comments, by a scan of
//!   the bytes; each piece is then tokenized by sqlparser on its own and must end in exactly
//!   the `;` the scan found (else the whole script is read by [`super::parse`]). The tokenizer
//!   decides a token from the characters after it only as far as the next character, and the
//!   token before a piece (`;`, `)`, `,`, whitespace) changes nothing about the piece's first
//!   token (sqlparser's tokenizer looks back only for `.` and words), so the pieces' tokens are
//!   the whole script's.
//! - A cached row is parsed in a frame of its own (its first line is [`REL_BASE`]); its
//!   errors are moved to the row's place in the script when they are reported. Positions that
//!   are not the row's (line 0: sqlparser's empty span, shown at 1:1) stay as they are.
//! - A row's text depends on its table's definition and on the annotation comment at its end;
//!   both are part of what the cached text was computed for.
//! - Anything the fast path does not recognise exactly (a row that does not parse alone, a
//!   separator that is not `,`) is read by the statement's full path, which is the full read's.
//!
//! `tests/sql_incremental.rs` edits the gallery's scripts at random places and checks that
//! every read equals [`super::parse`].

use super::*;
use crate::fasthash::FxHashMap;
use std::rc::Rc;

/// The first line of a cached row's own frame: far beyond any script's lines, so that a
/// position in the frame is told apart from a position elsewhere (and still fits a `usize` of
/// 32 bits, as in wasm).
const REL_BASE: u64 = 1 << 30;

/// What one read did (for the tests and the benchmarks): rows taken from the cache, rows read,
/// statements read in full, and whether the whole script was read by [`super::parse`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadStats {
    pub rows_reused: usize,
    pub rows_read: usize,
    pub statements_read: usize,
    pub full_read: bool,
}

/// A row of an `INSERT … VALUES`, read in its own frame.
struct Row {
    values: Vec<Expr>,
    /// The end of its `)`.
    close: Location,
    /// Its single-line comments (`--`), in its frame.
    comments: Vec<(Location, String)>,
    /// The row text it gave, for a table (its definition) and an annotation comment.
    out: Option<RowText>,
    /// The read that last used it.
    used: u64,
}

/// The rows an `INSERT` gave, for its target table's definition.
struct CachedInsert {
    target: String,
    table: Rc<str>,
    rows: Vec<String>,
    used: u64,
}

/// A row's text (or error, in the row's frame) for its table's definition (`Debug` text) and
/// its annotation comment.
type RowText = (Rc<str>, Option<String>, Result<String, SqlError>);

/// Reads scripts, keeping what it read of the last ones to read the next one faster. Each read
/// gives what [`super::parse`] gives.
#[derive(Default)]
pub struct ScriptReader {
    rows: FxHashMap<String, Row>,
    /// Whole `INSERT`s read on the fast path, by their text: a statement that did not change
    /// takes its rows without looking at each.
    inserts: FxHashMap<String, CachedInsert>,
    generation: u64,
    stats: ReadStats,
}

/// A position in the script while scanning it: the byte, and sqlparser's line and column
/// (columns count characters; only `\n` starts a line, as in sqlparser's tokenizer).
#[derive(Clone, Copy)]
struct Cursor {
    byte: usize,
    at: Location,
}

impl Cursor {
    fn advance(&mut self, b: &[u8], to: usize) {
        for &c in &b[self.byte..to] {
            if c == b'\n' {
                self.at.line += 1;
                self.at.column = 1;
            } else if c & 0xC0 != 0x80 {
                self.at.column += 1;
            }
        }
        self.byte = to;
    }
}

/// If a quoted string or identifier, or a comment, starts at `i`: the index after it (the
/// end of the text when it is not closed; a `--` comment ends before its `\n`).
fn skip_lexeme(b: &[u8], i: usize) -> Option<usize> {
    let find = |from: usize, pat: &[u8]| {
        b.get(from..)
            .and_then(|rest| rest.windows(pat.len()).position(|w| w == pat))
            .map(|j| from + j)
    };
    match b[i] {
        q @ (b'\'' | b'"' | b'`') => Some(find(i + 1, &[q]).map_or(b.len(), |j| j + 1)),
        b'-' if b.get(i + 1) == Some(&b'-') => Some(find(i + 2, b"\n").unwrap_or(b.len())),
        b'/' if b.get(i + 1) == Some(&b'*') => Some(find(i + 2, b"*/").map_or(b.len(), |j| j + 2)),
        _ => None,
    }
}

/// One statement's text: `start..end`, with the index of its `;` (none for a last statement
/// without one). A `--` comment after the `;` on its line belongs to it, as in [`super::parse`].
struct Piece {
    start: usize,
    semicolon: Option<usize>,
    end: usize,
}

fn pieces(b: &[u8]) -> Vec<Piece> {
    let mut out = Vec::new();
    let (mut i, mut start) = (0, 0);
    while i < b.len() {
        if let Some(j) = skip_lexeme(b, i) {
            i = j;
            continue;
        }
        if b[i] == b';' {
            let mut k = i + 1;
            while k < b.len() && matches!(b[k], b' ' | b'\t') {
                k += 1;
            }
            let end = if b[k..].starts_with(b"--") {
                skip_lexeme(b, k).unwrap_or(b.len())
            } else {
                i + 1
            };
            out.push(Piece {
                start,
                semicolon: Some(i),
                end,
            });
            start = end;
            i = end;
            continue;
        }
        i += 1;
    }
    if start < b.len() {
        out.push(Piece {
            start,
            semicolon: None,
            end: b.len(),
        });
    }
    out
}

/// Moves a position of a text that starts at `origin` to the script's frame.
fn shift(l: &mut Location, origin: Location) {
    if l.line == 1 {
        l.column += origin.column - 1;
    }
    l.line += origin.line - 1;
}

/// sqlparser's tokens of `text`, which starts at `origin`.
fn tokens(text: &str, origin: Location) -> Result<Vec<TokenWithSpan>, SqlError> {
    let mut buf = Vec::new();
    Tokenizer::new(&FlinkDialect, text)
        .tokenize_with_location_into_buf_with_mapper(&mut buf, |mut t| {
            shift(&mut t.span.start, origin);
            shift(&mut t.span.end, origin);
            t
        })
        .map_err(|e| {
            let mut at = e.location;
            shift(&mut at, origin);
            err(at, e.message)
        })?;
    Ok(buf)
}

/// An error of a row's frame, moved to the row at `origin`.
fn unshift(mut e: SqlError, origin: Location) -> SqlError {
    let base = REL_BASE as usize;
    if e.line >= base {
        let line = e.line - base + 1;
        if line == 1 {
            e.column += origin.column as usize - 1;
        }
        e.line = line + origin.line as usize - 1;
    }
    e
}

fn is_ws(t: &TokenWithSpan) -> bool {
    matches!(t.token, Token::Whitespace(_))
}

fn line_comment(t: &TokenWithSpan) -> Option<(Location, String)> {
    match &t.token {
        Token::Whitespace(Whitespace::SingleLineComment { comment, .. }) => {
            Some((t.span.start, comment.clone()))
        }
        _ => None,
    }
}

/// A statement ready to be read: its tokens (without the `;`), or a plain `INSERT … VALUES`.
enum Prepared {
    Tokens(Vec<TokenWithSpan>),
    Insert(Insert),
    /// An `INSERT` whose text is in `inserts`: the piece, and where it starts.
    Cached(usize, Cursor),
}

/// `INSERT INTO target VALUES (…), …;` cut into its rows.
struct Insert {
    target: Ident,
    /// The rows' texts (keys of the cache) and where each starts in the script.
    rows: Vec<(std::ops::Range<usize>, Location)>,
    /// The single-line comments between and after the rows, in the script's frame, each after
    /// the number of rows before it.
    comments: Vec<(usize, Location, String)>,
    /// Whether a row holds a single-line comment.
    row_comments: bool,
    /// Its piece of the script.
    piece: usize,
}

impl ScriptReader {
    /// A reader with nothing cached.
    pub fn new() -> Self {
        Self::default()
    }

    /// What the last read did.
    pub fn stats(&self) -> ReadStats {
        self.stats
    }

    /// Reads a script into a scenario, as [`super::parse`] does.
    pub fn read(&mut self, text: &str) -> Result<Scenario, SqlError> {
        self.generation += 1;
        self.stats = ReadStats::default();
        let out = match self.read_pieces(text) {
            Some(r) => r,
            None => {
                self.stats.full_read = true;
                parse(text)
            }
        };
        // Rows no longer in the script go once they outnumber the ones that are.
        let used = self.stats.rows_reused + self.stats.rows_read;
        if self.rows.len() > 2 * used + 256 {
            let g = self.generation;
            self.rows.retain(|_, r| r.used == g);
        }
        if self.inserts.len() > 64 {
            let g = self.generation;
            self.inserts.retain(|_, r| r.used == g);
        }
        out
    }

    /// `None`: the scan and sqlparser's tokenizer disagree about where a statement ends; the
    /// caller reads the script in full.
    fn read_pieces(&mut self, text: &str) -> Option<Result<Scenario, SqlError>> {
        let b = text.as_bytes();
        let list = pieces(b);
        let mut cur = Cursor {
            byte: 0,
            at: Location::new(1, 1),
        };
        // First every statement's tokens, as the full read tokenizes the whole script before
        // it reads a statement (a tokenizer error anywhere comes first).
        let mut prepared = Vec::with_capacity(list.len());
        let n = list.len();
        for (k, p) in list.iter().enumerate() {
            cur.advance(b, p.start);
            let origin = cur.at;
            if let Some(c) = self.inserts.get_mut(&text[p.start..p.end]) {
                c.used = self.generation;
                prepared.push(Prepared::Cached(k, cur));
                continue;
            }
            if let Some(ins) = self.insert(text, p, cur, k) {
                prepared.push(Prepared::Insert(ins));
                continue;
            }
            let toks = match tokens(&text[p.start..p.end], origin) {
                Ok(t) => t,
                // The last statement's tokenizer error is the full read's first one; an
                // earlier statement's may come from a `;` the tokenizer would not see.
                Err(e) if k + 1 == n => return Some(Err(e)),
                Err(_) => return None,
            };
            let semis: Vec<usize> = toks
                .iter()
                .enumerate()
                .filter(|(_, t)| t.token == Token::SemiColon)
                .map(|(i, _)| i)
                .collect();
            let toks = match (p.semicolon, semis.as_slice()) {
                (None, []) => toks,
                (Some(s), [i]) => {
                    let mut at = cur;
                    at.advance(b, s);
                    let after_ok = toks[i + 1..].iter().all(|t| {
                        matches!(
                            t.token,
                            Token::Whitespace(
                                Whitespace::Space
                                    | Whitespace::Tab
                                    | Whitespace::SingleLineComment { .. }
                            )
                        )
                    });
                    if toks[*i].span.start != at.at || !after_ok {
                        return None;
                    }
                    let mut toks = toks;
                    toks.remove(*i);
                    toks
                }
                _ => return None,
            };
            prepared.push(Prepared::Tokens(toks));
        }
        let mut st = State::default();
        for p in prepared {
            let r = match p {
                Prepared::Tokens(toks) => {
                    let Some(first) = toks.iter().find(|t| !is_ws(t)).cloned() else {
                        continue;
                    };
                    self.stats.statements_read += 1;
                    st.statement(&FlinkDialect, toks, first)
                }
                Prepared::Insert(ins) => self.apply_insert(&mut st, text, &list[..], ins),
                Prepared::Cached(k, cur) => {
                    let p = &list[k];
                    let c = &self.inserts[&text[p.start..p.end]];
                    let ti = st
                        .tables
                        .iter()
                        .position(|t| t.name.eq_ignore_ascii_case(&c.target));
                    match ti {
                        Some(ti) if *c.table == *table_key(&st.tables[ti]) => {
                            self.stats.rows_reused += c.rows.len();
                            st.tables[ti].rows.extend(c.rows.iter().cloned());
                            Ok(())
                        }
                        // Another table than when it was read: read it row by row (its text
                        // read the same way then, so this cannot fail to cut it).
                        _ => match self.insert(text, p, cur, k) {
                            Some(ins) => self.apply_insert(&mut st, text, &list[..], ins),
                            None => return None,
                        },
                    }
                }
            };
            if let Err(e) = r {
                return Some(Err(e));
            }
        }
        Some(st.finish(text))
    }

    /// A plain `INSERT INTO t VALUES (…), (…);` cut into rows, each read (or found) in the
    /// cache; `None` for any other statement, or when a row does not read on its own.
    fn insert(&mut self, text: &str, p: &Piece, start: Cursor, piece: usize) -> Option<Insert> {
        let b = text.as_bytes();
        let semi = p.semicolon?;
        // Cheap test first: the statement's first word is INSERT.
        let mut i = p.start;
        while i < semi {
            match b[i] {
                b' ' | b'\t' | b'\n' | b'\r' => i += 1,
                b'-' | b'/' => i = skip_lexeme(b, i)?,
                _ => break,
            }
        }
        if !b[i..semi].get(..6)?.eq_ignore_ascii_case(b"insert") {
            return None;
        }
        // The header, up to the first `(`.
        while i < semi && b[i] != b'(' {
            i = match skip_lexeme(b, i) {
                Some(j) => j,
                None if b[i] == b')' => return None,
                None => i + 1,
            };
        }
        if i >= semi {
            return None;
        }
        let head = tokens(&text[p.start..i], start.at).ok()?;
        let mut ps = Parser::new(&FlinkDialect).with_tokens_with_locations(head);
        if !is_kw(&ps.next_token(), Keyword::INSERT) {
            return None;
        }
        ps.expect_keyword_is(Keyword::INTO).ok()?;
        let target = last_ident(&ps.parse_object_name(false).ok()?);
        if !ps.parse_keyword(Keyword::VALUES) || ps.peek_token().token != Token::EOF {
            return None;
        }
        let mut cur = start;
        let mut rows = Vec::new();
        let mut comments = Vec::new();
        let mut row_comments = false;
        loop {
            // A row: `(` to its matching `)`.
            let open = i;
            let mut depth = 0usize;
            loop {
                if i >= semi {
                    return None;
                }
                if let Some(j) = skip_lexeme(b, i) {
                    i = j;
                    continue;
                }
                match b[i] {
                    b'(' => depth += 1,
                    b')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            i += 1;
            cur.advance(b, open);
            row_comments |= self.row_entry(&text[open..i])?;
            rows.push((open..i, cur.at));
            // What follows: `,` and the next row, or the end.
            let sep = i;
            let mut commas = 0;
            let mut plain = true;
            while i < semi {
                match b[i] {
                    b' ' | b'\t' | b'\n' | b'\r' => i += 1,
                    b',' if commas == 0 => {
                        commas += 1;
                        i += 1
                    }
                    b'-' | b'/' => {
                        plain = false;
                        i = skip_lexeme(b, i)?;
                    }
                    _ => break,
                }
            }
            let last = i >= semi;
            if last != (commas == 0) || (!last && b[i] != b'(') {
                return None;
            }
            let to = if last { p.end } else { i };
            if !plain || last {
                cur.advance(b, sep);
                let toks = tokens(&text[sep..to], cur.at).ok()?;
                let want = if last { Token::SemiColon } else { Token::Comma };
                let mut words = toks.iter().filter(|t| !is_ws(t));
                let w = words.next()?;
                if w.token != want || words.next().is_some() {
                    return None;
                }
                if last {
                    // The `;` is the one the scan found.
                    let mut at = cur;
                    at.advance(b, semi);
                    if w.span.start != at.at {
                        return None;
                    }
                }
                comments.extend(
                    toks.iter()
                        .filter_map(line_comment)
                        .map(|(at, c)| (rows.len(), at, c)),
                );
            }
            if last {
                break;
            }
        }
        Some(Insert {
            target,
            rows,
            comments,
            row_comments,
            piece,
        })
    }

    /// The cached row of this text, read now if it is new, and whether it holds a single-line
    /// comment; `None` when it does not read on its own as `( value, … )`.
    fn row_entry(&mut self, text: &str) -> Option<bool> {
        let g = self.generation;
        if let Some(r) = self.rows.get_mut(text) {
            r.used = g;
            self.stats.rows_reused += 1;
            return Some(!r.comments.is_empty());
        }
        let toks = tokens(text, Location::new(REL_BASE, 1)).ok()?;
        let comments: Vec<_> = toks.iter().filter_map(line_comment).collect();
        let has = !comments.is_empty();
        let mut p = Parser::new(&FlinkDialect).with_tokens_with_locations(toks);
        p.expect_token(&Token::LParen).ok()?;
        let values = p.parse_comma_separated(Parser::parse_expr).ok()?;
        let close = p.expect_token(&Token::RParen).ok()?.span.end;
        if p.peek_token().token != Token::EOF {
            return None;
        }
        self.stats.rows_read += 1;
        self.rows.insert(
            text.to_string(),
            Row {
                values,
                close,
                comments,
                out: None,
                used: g,
            },
        );
        Some(has)
    }

    /// Reads a cut `INSERT` as [`State::statement`] reads it once its rows are parsed.
    fn apply_insert(
        &mut self,
        st: &mut State,
        text: &str,
        list: &[Piece],
        ins: Insert,
    ) -> Result<(), SqlError> {
        let Some(ti) = st
            .tables
            .iter()
            .position(|t| t.name.eq_ignore_ascii_case(&ins.target.value))
        else {
            return Err(err(
                ins.target.span.start,
                format!("Object '{}' not found", ins.target.value),
            ));
        };
        let table = table_key(&st.tables[ti]);
        // The statement's single-line comments in order, in the script's frame (a row's
        // annotation is the first one on the line of its `)`, after it).
        let mut comments: Vec<(Location, String)> = Vec::new();
        if !ins.comments.is_empty() || ins.row_comments {
            let mut extra = ins.comments.into_iter().peekable();
            for (k, (r, origin)) in ins.rows.iter().enumerate() {
                while let Some((_, at, c)) = extra.next_if(|(n, _, _)| *n <= k) {
                    comments.push((at, c));
                }
                if let Some(row) = self.rows.get(&text[r.clone()]) {
                    for (at, c) in &row.comments {
                        let mut at = *at;
                        at.line -= REL_BASE - 1;
                        shift(&mut at, *origin);
                        comments.push((at, c.clone()));
                    }
                }
            }
            comments.extend(extra.map(|(_, at, c)| (at, c)));
        }
        let mut out = Vec::with_capacity(ins.rows.len());
        for (r, origin) in &ins.rows {
            let Some(row) = self.rows.get_mut(&text[r.clone()]) else {
                continue;
            };
            let mut close = row.close;
            close.line -= REL_BASE - 1;
            shift(&mut close, *origin);
            let note = comments
                .iter()
                .find(|(at, _)| at.line == close.line && at.column > close.column);
            let fresh = match &row.out {
                Some((t, n, _)) => {
                    !(Rc::ptr_eq(t, &table) || **t == *table)
                        || n.as_deref() != note.map(|(_, c)| c.as_str())
                }
                None => true,
            };
            if fresh {
                // The annotation in the row's frame: on the line of its `)`.
                let notes: Vec<(Span, String)> = note
                    .map(|(at, c)| {
                        let column = if at.line == origin.line {
                            at.column - origin.column + 1
                        } else {
                            at.column
                        };
                        let l = Location::new(row.close.line, column);
                        vec![(Span::new(l, l), c.clone())]
                    })
                    .unwrap_or_default();
                let res = st.row(
                    ti,
                    &row.values,
                    Location::new(REL_BASE, 1),
                    row.close,
                    &notes,
                );
                row.out = Some((table.clone(), note.map(|(_, c)| c.clone()), res));
            }
            match &row.out {
                Some((_, _, Ok(t))) => out.push(t.clone()),
                Some((_, _, Err(e))) => return Err(unshift(e.clone(), *origin)),
                None => {}
            }
        }
        if let Some(p) = list.get(ins.piece) {
            self.inserts.insert(
                text[p.start..p.end].to_string(),
                CachedInsert {
                    target: ins.target.value.clone(),
                    table,
                    rows: out.clone(),
                    used: self.generation,
                },
            );
        }
        st.tables[ti].rows.extend(out);
        Ok(())
    }
}

/// What a row's text depends on besides the row: its table's definition (without the rows and
/// the positions, which a row's text does not depend on).
fn table_key(t: &Table) -> Rc<str> {
    let mut t = t.clone();
    t.rows = Vec::new();
    t.at = Location::empty();
    for (_, _, at) in &mut t.columns {
        *at = Location::empty();
    }
    if let Some((_, _, at)) = &mut t.watermark {
        *at = Location::empty();
    }
    format!("{t:?}").into()
}
