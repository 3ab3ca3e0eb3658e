//! Reading a scenario document's JSON text for messages in the user's terms: the setting a
//! position is in (`job.window.size`, not "line 1 column 190"), a nesting depth checked
//! before parsing, serde's type names turned into words, and long values shortened.
//!
//! Everything here is one linear pass over the text, whatever it holds.

/// The deepest nesting of arrays and objects a scenario document may have. A scenario needs
/// 4 levels; `expected` (opaque to the engine) is allowed more, but a document nested
/// thousands deep would exhaust a recursive parser's stack (serde_json stops at 128, the
/// page's `JSON.parse` and renderers may not).
pub const MAX_DEPTH: usize = 64;

/// The longest value echoed in a message, in characters.
pub const MAX_VALUE_CHARS: usize = 80;

/// One level of the path while scanning.
enum Level {
    /// An object and the key of the member being read (`None` before the first key).
    Object(Option<String>),
    /// An array and the index of the element being read.
    Array(usize),
}

/// The path of the value at byte `offset` (`job.window.size`, `streams[0].rows`), or an
/// empty string at the top level. With `max_depth`, stops at the first place nested deeper
/// and returns its byte offset too.
fn scan(text: &str, offset: usize, max_depth: Option<usize>) -> (String, Option<usize>) {
    let b = text.as_bytes();
    let mut stack: Vec<Level> = Vec::new();
    let mut i = 0;
    // Whether the next string in an object is a key.
    let mut want_key = false;
    let end = offset.min(b.len());
    let mut deep = None;
    while i < end {
        match b[i] {
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                if want_key {
                    if let Some(Level::Object(k)) = stack.last_mut() {
                        let raw = &text.get(start..i.min(b.len())).unwrap_or("");
                        *k = Some(raw.to_string());
                    }
                    want_key = false;
                }
            }
            b'{' => {
                stack.push(Level::Object(None));
                want_key = true;
            }
            b'[' => {
                stack.push(Level::Array(0));
                want_key = false;
            }
            b'}' | b']' => {
                stack.pop();
                want_key = false;
            }
            b',' => match stack.last_mut() {
                Some(Level::Array(n)) => *n += 1,
                Some(Level::Object(_)) => want_key = true,
                None => {}
            },
            _ => {}
        }
        if let Some(m) = max_depth {
            if stack.len() > m {
                deep = Some(i);
                break;
            }
        }
        i += 1;
    }
    let mut path = String::new();
    for l in &stack {
        match l {
            Level::Object(Some(k)) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&shorten(k, 40));
            }
            Level::Object(None) => {}
            Level::Array(n) => {
                path.push_str(&format!("[{n}]"));
            }
        }
    }
    (path, deep)
}

/// The setting path of the value at byte `offset` of a JSON document.
pub fn path_at(text: &str, offset: usize) -> String {
    scan(text, offset, None).0
}

/// Where the document first nests deeper than `max` levels: (byte offset, path there).
pub fn too_deep(text: &str, max: usize) -> Option<(usize, String)> {
    match scan(text, text.len(), Some(max)) {
        (path, Some(at)) => Some((at, path)),
        _ => None,
    }
}

/// The byte offset of serde_json's 1-based `line` and `column` (a column counts bytes).
pub fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match text[start..].find('\n') {
            Some(n) => start += n + 1,
            None => return text.len(),
        }
    }
    (start + column.saturating_sub(1)).min(text.len())
}

/// (line, column) of a byte offset, both 1-based, the column in characters.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut off = offset.min(text.len());
    while !text.is_char_boundary(off) {
        off -= 1;
    }
    let before = &text[..off];
    let line = before.bytes().filter(|&c| c == b'\n').count() + 1;
    let col = before
        .rfind('\n')
        .map_or(before, |n| &before[n + 1..])
        .chars()
        .count()
        + 1;
    (line, col)
}

/// `s` cut to at most `max` characters, with `…` where it was cut.
pub fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max.saturating_sub(1)) {
        Some((i, _)) if s[i..].chars().nth(1).is_some() => {
            format!("{}…", &s[..i])
        }
        _ => s.to_string(),
    }
}

/// A message with every quoted or back-quoted value longer than [`MAX_VALUE_CHARS`] cut
/// (`"xxxx…"`), and the message cut at [`MAX_MESSAGE_CHARS`] characters, so that with the
/// place an error names before it (a stream and field, a line and column, each cut to
/// [`MAX_VALUE_CHARS`]) the whole stays within 1,000 (Flink's own messages, quoted by some
/// errors, run to several hundred): a bad value of 3 MB must not come back whole in its
/// message.
pub fn shorten_values(msg: &str) -> String {
    if msg.len() <= MAX_VALUE_CHARS {
        return msg.to_string();
    }
    let mut out = String::with_capacity(msg.len().min(600));
    let mut chars = msg.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        out.push(c);
        if c == '"' || c == '`' {
            // Copy the quoted run, at most MAX_VALUE_CHARS of it.
            let mut n = 0;
            let mut cut = false;
            while let Some(&(_, d)) = chars.peek() {
                if d == c {
                    break;
                }
                chars.next();
                if d == '\\' && c == '"' {
                    // An escape: keep it with the next character.
                    if n < MAX_VALUE_CHARS {
                        out.push(d);
                    }
                    if let Some((_, e)) = chars.next() {
                        if n < MAX_VALUE_CHARS {
                            out.push(e);
                        }
                    }
                } else if n < MAX_VALUE_CHARS {
                    out.push(d);
                }
                n += 1;
                if n == MAX_VALUE_CHARS {
                    cut = true;
                }
            }
            if cut && n > MAX_VALUE_CHARS {
                out.push('…');
            }
            if let Some((_, q)) = chars.next() {
                out.push(q);
            }
        }
    }
    shorten(&out, MAX_MESSAGE_CHARS)
}

/// The longest message body [`shorten_values`] leaves (see there).
pub const MAX_MESSAGE_CHARS: usize = 850;

/// Serde's words for what it expected or found, in a user's words.
fn words(serde: &str) -> String {
    let s = serde.trim();
    let int = |bits: &str| match bits {
        "u8" | "u16" | "u32" | "u64" | "usize" => "a whole number (0 or more)",
        _ => "a whole number",
    };
    match s {
        "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64" | "isize" => {
            int(s).to_string()
        }
        "f32" | "f64" => "a number".into(),
        "a boolean" | "bool" => "true or false".into(),
        "a string" => "text in quotes".into(),
        "a sequence" => "a list [ … ]".into(),
        "a map" => "an object { … }".into(),
        "unit value" | "null" => "null".into(),
        "map" => "an object { … }".into(),
        "sequence" => "a list [ … ]".into(),
        _ if s.starts_with("struct ") => "an object { … }".into(),
        _ if s.starts_with("floating point `") => {
            format!(
                "the number {}",
                s.trim_start_matches("floating point ").trim_matches('`')
            )
        }
        _ if s.starts_with("integer `") => {
            format!(
                "the number {}",
                s.trim_start_matches("integer ").trim_matches('`')
            )
        }
        _ if s.starts_with("boolean `") => s
            .trim_start_matches("boolean ")
            .trim_matches('`')
            .to_string(),
        _ if s.starts_with("string ") => format!("the text {}", &s[7..]),
        _ => s.to_string(),
    }
}

/// A serde_json error message (without its " at line L column C") in a user's words:
/// `invalid type: floating point `1.5`, expected u32` → `expected a whole number (0 or
/// more), found the number 1.5`.
pub fn humanize(msg: &str) -> String {
    // A whole number past an unsigned setting's range.
    if let Some(rest) = msg.strip_prefix("invalid value: integer `") {
        if let Some((n, expected)) = rest.split_once("`, expected ") {
            let max = match expected {
                "u8" => Some(u8::MAX as u64),
                "u16" => Some(u16::MAX as u64),
                "u32" => Some(u32::MAX as u64),
                _ => None,
            };
            if let Some(max) = max {
                return format!("{n} is out of range: expected a whole number from 0 to {max}");
            }
        }
    }
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = msg.strip_prefix(prefix) {
            if let Some((found, expected)) = rest.rsplit_once(", expected ") {
                return format!("expected {}, found {}", words(expected), words(found));
            }
        }
    }
    if let Some(rest) = msg.strip_prefix("invalid length ") {
        return format!("wrong number of items: {rest}");
    }
    msg.to_string()
}

/// serde_json's message without the position it appends.
pub fn strip_position(msg: &str) -> &str {
    match msg.rfind(" at line ") {
        Some(i) if msg[i..].contains(" column ") => &msg[..i],
        _ => msg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        let t = r#"{"job":{"window":{"size":1e30}},"streams":[{"name":"a"},{"rows":"x"}]}"#;
        let at = t.find("1e30").unwrap() + 4;
        assert_eq!(path_at(t, at), "job.window.size");
        let at = t.find("\"x\"").unwrap() + 3;
        assert_eq!(path_at(t, at), "streams[1].rows");
        assert_eq!(path_at(t, 0), "");
    }

    #[test]
    fn depth() {
        let deep = format!("{{\"expected\":{}1{}}}", "[".repeat(100), "]".repeat(100));
        let (at, path) = too_deep(&deep, MAX_DEPTH).unwrap();
        assert_eq!(at, 12 + MAX_DEPTH - 1);
        assert!(path.starts_with("expected[0][0]"), "{path}");
        assert!(too_deep(r#"{"a":[{"b":[1]}]}"#, MAX_DEPTH).is_none());
        // Brackets inside strings do not count.
        assert!(too_deep(&format!("{{\"a\":\"{}\"}}", "[".repeat(100)), MAX_DEPTH).is_none());
    }

    #[test]
    fn words_and_shortening() {
        assert_eq!(
            humanize("invalid type: floating point `1.5`, expected u32"),
            "expected a whole number (0 or more), found the number 1.5"
        );
        assert_eq!(
            humanize("invalid value: integer `-1`, expected u32"),
            "-1 is out of range: expected a whole number from 0 to 4294967295"
        );
        assert_eq!(
            humanize("invalid type: map, expected a sequence"),
            "expected a list [ … ], found an object { … }"
        );
        let long = format!("bad value \"{}\" here", "x".repeat(3_000_000));
        let s = shorten_values(&long);
        assert!(s.chars().count() < 120, "{}", s.len());
        assert!(s.contains("…\" here"), "{s}");
        assert_eq!(shorten("abc", 80), "abc");
        assert_eq!(shorten("abcdef", 3), "ab…");
        assert_eq!(
            strip_position("bad thing at line 1 column 190"),
            "bad thing"
        );
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
        assert_eq!(offset_of("ab\ncd", 2, 2), 4);
    }
}
