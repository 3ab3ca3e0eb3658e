//! Java text helpers shared by the generators: literals, comments, identifiers and types.

use super::*;

/// A Java string literal.
pub(crate) fn jstr(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// Text for a Java comment (no `*/`, no line breaks, no unicode escapes javac would read).
pub(crate) fn comment_text(s: &str) -> String {
    s.replace("*/", "* /")
        .replace("\\u", "\\ u")
        .replace(['\n', '\r'], " ")
}

/// Wraps text to lines of at most `width` characters.
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for w in text.split_whitespace() {
        if !cur.is_empty() && cur.chars().count() + 1 + w.chars().count() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(w);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// The body of a Java text block holding `lines` (each line escaped so that the block's
/// content is exactly the lines, joined by `\n`).
pub(crate) fn text_block(lines: &[String], indent: &str) -> String {
    let mut o = String::from("\"\"\"\n");
    for l in lines {
        o.push_str(indent);
        let mut quotes = 0;
        for c in l.chars() {
            match c {
                '\\' => {
                    o.push_str("\\\\");
                    quotes = 0;
                }
                '"' => {
                    quotes += 1;
                    if quotes == 3 {
                        o.push_str("\\\"");
                        quotes = 0;
                    } else {
                        o.push('"');
                    }
                }
                c if (c as u32) < 0x20 => {
                    let _ = write!(o, "\\u{:04x}", c as u32);
                    quotes = 0;
                }
                c => {
                    o.push(c);
                    quotes = 0;
                }
            }
        }
        o.push('\n');
    }
    o.push_str(indent);
    o.push_str("\"\"\"");
    o
}

/// A Java expression for a long text, as text blocks joined at run time when it would exceed
/// the class-file limit of one string constant.
pub(crate) fn text_expr(lines: &[String], indent: &str) -> String {
    const CHUNK: usize = 40_000;
    let mut chunks: Vec<&[String]> = Vec::new();
    let mut start = 0;
    let mut size = 0;
    for (i, l) in lines.iter().enumerate() {
        if size + l.len() > CHUNK && i > start {
            chunks.push(&lines[start..i]);
            start = i;
            size = 0;
        }
        size += l.len() + 1;
    }
    chunks.push(&lines[start..]);
    if chunks.len() == 1 {
        return text_block(chunks[0], indent);
    }
    let parts: Vec<String> = chunks.iter().map(|c| text_block(c, indent)).collect();
    format!("String.join(\"\", {})", parts.join(", "))
}

/// A value as JSON (how rows are embedded in the job and printed by it).
pub(crate) fn json_value(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Str(s) => serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into()),
        Value::Int(i) => i.to_string(),
        Value::Long(l) => l.to_string(),
        Value::Double(d) => serde_json::to_string(d).unwrap_or_else(|_| "0".into()),
        Value::Bool(b) => b.to_string(),
        // A JSON number with the decimal's exact text (read back as a BigDecimal).
        Value::Decimal(d) => d.to_string(),
    }
}

pub(crate) fn type_code(t: ColumnType) -> std::borrow::Cow<'static, str> {
    t.name()
}

/// For a stream with a `DECIMAL(p, s)` column, the `Schema` lines declaring every physical
/// column with its SQL type (`.column("price", DataTypes.DECIMAL(10, 2))`): the DataStream's
/// `BigDecimal` field is otherwise a `DECIMAL(38, 18)` column (`Types.BIG_DEC`), whose results
/// have other types and print other digits. Empty for a stream without one.
pub(crate) fn declared_columns(s: &crate::parse::Schema) -> String {
    if !s
        .columns
        .iter()
        .any(|c| matches!(c.ty, ColumnType::Decimal(..)))
    {
        return String::new();
    }
    s.columns
        .iter()
        .map(|c| {
            let ty = match c.ty {
                ColumnType::Decimal(p, sc) => format!("DECIMAL({p}, {sc})"),
                t => format!("{}()", t.sql_name()),
            };
            format!(
                "                .column({}, DataTypes.{ty})\n",
                jstr(&c.name)
            )
        })
        .collect()
}

/// `Types.X` for a column type.
pub(crate) fn flink_type(t: ColumnType) -> &'static str {
    match t {
        ColumnType::String => "Types.STRING",
        ColumnType::Int => "Types.INT",
        ColumnType::Long => "Types.LONG",
        ColumnType::Double => "Types.DOUBLE",
        ColumnType::Boolean => "Types.BOOLEAN",
        ColumnType::Decimal(..) => "Types.BIG_DEC",
    }
}

/// A Java identifier made from a name (for variables).
pub(crate) fn ident(name: &str, fallback: &str) -> String {
    let mut o = String::new();
    let mut upper = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if upper && !o.is_empty() {
                o.push(c.to_ascii_uppercase());
            } else {
                o.push(c);
            }
            upper = false;
        } else {
            upper = true;
        }
    }
    if o.is_empty()
        || o.starts_with(|c: char| c.is_ascii_digit())
        || JAVA_KEYWORDS.contains(&o.as_str())
    {
        o = format!(
            "{fallback}{}",
            if o.is_empty() {
                String::new()
            } else {
                format!("_{o}")
            }
        );
    }
    if matches!(
        o.as_str(),
        "env" | "args" | "tEnv" | "joined" | "result" | "changes"
    ) {
        o.push('_');
    }
    o
}

pub(crate) const JAVA_KEYWORDS: &[&str] = &[
    "abstract",
    "assert",
    "boolean",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extends",
    "final",
    "finally",
    "float",
    "for",
    "goto",
    "if",
    "implements",
    "import",
    "instanceof",
    "int",
    "interface",
    "long",
    "native",
    "new",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "short",
    "static",
    "strictfp",
    "super",
    "switch",
    "synchronized",
    "this",
    "throw",
    "throws",
    "transient",
    "try",
    "void",
    "volatile",
    "while",
    "true",
    "false",
    "null",
    "var",
    "record",
    "yield",
    "sealed",
    "permits",
];
