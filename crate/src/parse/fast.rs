//! The rows text's fast path: the common line (plain fields, one per column) read straight
//! from its bytes; anything else goes back to the full reader ([`super::Reader`]), which gives
//! the same entry or the error with its line and column.

use super::*;

/// The lines of a text as [`str::lines`] gives them (split after each `\n`, then one `\n` and
/// one `\r` before it taken off), found with `memchr` (`str::lines` searches for a `char`,
/// which costs a `memcmp` per line).
pub(super) struct Lines<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Lines<'a> {
    pub(super) fn new(text: &'a str) -> Lines<'a> {
        Lines { text, pos: 0 }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a str;
    fn next(&mut self) -> Option<&'a str> {
        let (text, start) = (self.text, self.pos);
        if start >= text.len() {
            return None;
        }
        let bytes = text.as_bytes();
        match memchr::memchr(b'\n', &bytes[start..]) {
            Some(k) => {
                let nl = start + k;
                self.pos = nl + 1;
                let end = if nl > start && bytes[nl - 1] == b'\r' {
                    nl - 1
                } else {
                    nl
                };
                // Both ends are next to an ASCII byte, so on character boundaries.
                Some(&text[start..end])
            }
            None => {
                self.pos = text.len();
                Some(&text[start..])
            }
        }
    }
}

/// The entry of a line in the common form, or `None` to read it the full way
/// ([`Reader::split_line`] and [`Reader::entry`]), which then gives the same entry or the
/// error: the line is not blank, a comment, a watermark row or a kind-prefixed row; it holds no
/// quote and no `|`; it has one field per column; no field ends in a non-ASCII character (which
/// may be white space); every time and typed value reads. The untyped columns' guesses are
/// changed only once the line is known to take this path, so a line that falls back is read
/// once, as before.
pub(super) fn fast_entry(
    number: usize,
    raw: &str,
    slots: &[Slot],
    infer: bool,
    guesses: &mut [Guess],
    spans: &mut Vec<(usize, usize)>,
    values: &mut Vec<Value>,
) -> Option<Entry> {
    let b = raw.as_bytes();
    let c0 = *b.first()?;
    // `leading_space`: a line starting with white space (any) is read the full way.
    if matches!(c0, b'\t'..=b'\r' | b' ' | b'#' | b'/')
        || (c0 >= 0x80 && !first_char_not_space(raw))
    {
        return None;
    }
    // A kind prefix (`+I`, `-U`, `+U`, `-D`) or a watermark row (`WM `).
    if b.len() >= 2 {
        let c1 = b[1];
        if matches!((c0, c1), (b'+', b'I' | b'U') | (b'-', b'U' | b'D')) {
            return None;
        }
        if c0.eq_ignore_ascii_case(&b'w')
            && c1.eq_ignore_ascii_case(&b'm')
            && b.get(2) == Some(&b' ')
        {
            return None;
        }
    }
    // Split at commas; a quote or a bar anywhere sends the line the full way.
    spans.clear();
    let mut start = 0;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b',' => {
                spans.push((start, i));
                start = i + 1;
            }
            b'"' | b'|' => return None,
            _ => {}
        }
    }
    spans.push((start, b.len()));
    if spans.len() != slots.len() {
        return None;
    }
    // Each field without its leading spaces and tabs and its trailing white space (as
    // `Reader::split_fields`); a field ending in a non-ASCII character goes the full way.
    for sp in spans.iter_mut() {
        let (mut s, mut e) = *sp;
        while s < e && (b[s] == b' ' || b[s] == b'\t') {
            s += 1;
        }
        while e > s && matches!(b[e - 1], b'\t'..=b'\r' | b' ') {
            e -= 1;
        }
        if e > s && b[e - 1] >= 0x80 {
            return None;
        }
        *sp = (s, e);
    }
    // Time and typed values first: any of them that does not read sends the line the full way
    // before a guess is touched.
    // Pushed to the end of `values`; the caller drops them when this gives up (`None`).
    let start = values.len();
    let mut ts = None;
    for (slot, &(s, e)) in slots.iter().zip(spans.iter()) {
        let text = &raw[s..e];
        let v = match *slot {
            Slot::Time => {
                if text.is_empty() || text.eq_ignore_ascii_case("null") {
                    return None;
                }
                let v = timestamp(text).ok()?;
                ts = Some(v);
                Value::Long(v)
            }
            Slot::Typed(ty) => match (ty, plain_integer(text.as_bytes())) {
                // `str::parse` accepts exactly these texts (an optional sign, then digits).
                (ColumnType::Long, Some(v)) => Value::Long(v),
                (ColumnType::Int, Some(v)) => Value::Int(i32::try_from(v).ok()?),
                _ => Value::parse(text, ty, false).ok()?,
            },
            // Filled in below.
            Slot::Infer => Value::Null,
        };
        values.push(v);
    }
    if infer {
        for (ci, (slot, &(s, e))) in slots.iter().zip(spans.iter()).enumerate() {
            if *slot == Slot::Infer {
                values[start + ci] = guesses[ci].read(&raw[s..e], false);
            }
        }
    }
    Some(Entry::Data(DataRow {
        line: number as u32,
        kind: RowKind::Insert,
        values: ValueRange::since(start, values),
        ts,
        subtask: None,
        arrival: None,
    }))
}

/// Whether a line's first character (not ASCII) is not white space.
#[cold]
fn first_char_not_space(raw: &str) -> bool {
    raw.chars().next().is_some_and(|c| !c.is_whitespace())
}

/// An integer of an optional sign and 1 to 18 ASCII digits (so it cannot overflow an `i64`):
/// the value `str::parse::<i64>` gives it; `None` for any other text.
#[inline]
pub(super) fn plain_integer(b: &[u8]) -> Option<i64> {
    let (neg, digits) = match b.first()? {
        b'-' => (true, &b[1..]),
        b'+' => (false, &b[1..]),
        _ => (false, b),
    };
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    let mut v = 0i64;
    for &d in digits {
        let d = d.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + i64::from(d);
    }
    Some(if neg { -v } else { v })
}
