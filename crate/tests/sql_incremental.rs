//! The incremental script reader (`ScriptReader`, what the page's SQL editor reads each key
//! with) gives exactly what the full read (`sql_to_scenario`) gives: the same scenario, or the
//! same error at the same line and column, after any sequence of edits of the gallery's
//! scripts. And it does read only what a key changed.

use joinlab::scenario::Scenario;
use joinlab::sql::script::ScriptReader;
use joinlab::sql::{scenario_to_sql, sql_to_scenario};
use proptest::prelude::*;
use std::path::PathBuf;

fn scenarios_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios")
}

/// A script of `n` rows per table, as the page's benchmark types into (two tables, an interval
/// join), with row annotations and comments in a few places.
fn big_script(n: usize) -> String {
    let mut s = String::from("-- two tables\nSET 'parallelism.default' = '1';\n");
    for (t, base) in [("l", 0), ("r", 1000)] {
        s.push_str(&format!(
            "CREATE TABLE {t} (\n  k STRING,\n  v INT,\n  ts TIMESTAMP(3),\n  WATERMARK FOR ts AS ts - INTERVAL '0.001' SECOND(1, 3)\n);\nINSERT INTO {t} VALUES\n"
        ));
        for i in 0..n {
            let sep = if i + 1 == n { "\n;" } else { "," };
            let note = match i % 7 {
                3 => " -- s=1",
                5 => " /* c */",
                _ => "",
            };
            s.push_str(&format!(
                "  ('k{}', {}, TIMESTAMP '1970-01-01 00:00:{:02}.{:03}'){sep}{note}\n",
                i % 10,
                base + i,
                i / 10 % 60,
                i % 1000
            ));
        }
    }
    s.push_str("SELECT *\nFROM l AS L\nJOIN r AS R\n  ON L.k = R.k\n  AND L.ts >= R.ts - INTERVAL '0.010' SECOND(1, 3)\n  AND L.ts <= R.ts + INTERVAL '0.010' SECOND(1, 3);\n");
    s
}

/// The gallery's scripts: the `.sql` files and every SQL scenario printed as a script, and a
/// bigger one.
fn corpus() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(scenarios_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    for p in paths {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if !p.is_file() {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        if name.ends_with(".sql") {
            out.push((name, text));
        } else if name.ends_with(".json") && !name.ends_with(".expected.json") {
            let Ok(sc) = Scenario::from_json(&text) else {
                continue;
            };
            if let Ok(script) = scenario_to_sql(&sc) {
                out.push((name, script));
            }
        }
    }
    out.push(("big".into(), big_script(40)));
    out
}

/// What a key can type: characters and the pieces that change how a script splits.
const TYPED: &[&str] = &[
    "1",
    "9",
    "a",
    "k",
    " ",
    "\n",
    "\t",
    ",",
    ";",
    "(",
    ")",
    "'",
    "\"",
    "`",
    "-",
    "/",
    "*",
    ".",
    "=",
    "--",
    "/*",
    "*/",
    "-- -U",
    " -- a=1970-01-01T00:00:05 s=1",
    "), (",
    "''",
    "NULL",
    "TIMESTAMP '2020-01-01 00:00:01'",
    "\r\n",
    "é",
    "VALUES",
    "INSERT INTO l VALUES (1);",
    "x",
    "-U",
    ";\n",
];

#[derive(Clone, Debug)]
enum Edit {
    Insert(usize, usize),
    Delete(usize, usize),
}

fn apply(text: &str, e: &Edit) -> String {
    let chars: Vec<char> = text.chars().collect();
    match *e {
        Edit::Insert(at, what) => {
            let at = if chars.is_empty() {
                0
            } else {
                at % (chars.len() + 1)
            };
            let mut s: String = chars[..at].iter().collect();
            s.push_str(TYPED[what % TYPED.len()]);
            s.extend(&chars[at..]);
            s
        }
        Edit::Delete(at, len) => {
            if chars.is_empty() {
                return String::new();
            }
            let at = at % chars.len();
            let end = (at + 1 + len % 3).min(chars.len());
            chars[..at].iter().chain(&chars[end..]).collect()
        }
    }
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (any::<usize>(), any::<usize>()).prop_map(|(a, w)| Edit::Insert(a, w)),
        2 => (any::<usize>(), any::<usize>()).prop_map(|(a, l)| Edit::Delete(a, l)),
    ]
}

/// Reads `text` both ways; counts the reads that used the reader's cache.
fn same(
    reader: &mut ScriptReader,
    text: &str,
    what: &str,
    cached: &mut usize,
) -> Result<(), TestCaseError> {
    let full = sql_to_scenario(text);
    let inc = reader.read(text);
    prop_assert_eq!(
        &inc,
        &full,
        "{}: the incremental read differs on\n{}",
        what,
        text
    );
    let s = reader.stats();
    if !s.full_read && s.rows_reused > 0 {
        *cached += 1;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Edits typed one after the other into each gallery script, each read by the same reader:
    /// every read equals the full read.
    #[test]
    fn edits_read_as_the_full_read(edits in proptest::collection::vec(edit(), 1..12)) {
        let mut cached = 0;
        for (name, script) in corpus() {
            let mut reader = ScriptReader::new();
            let mut text = script.clone();
            same(&mut reader, &text, &name, &mut cached)?;
            for e in &edits {
                text = apply(&text, e);
                same(&mut reader, &text, &name, &mut cached)?;
            }
            // And back to the start (rows read long ago, at other places).
            same(&mut reader, &script, &name, &mut cached)?;
        }
        // The comparisons above are of the fast path, not only of its fallback.
        prop_assert!(cached > 20, "only {} reads used the cache", cached);
    }
}

/// A key in one row reads that row only; a key in the query reads no row; an error in a row
/// after a line typed above it is at the row's new place, as in the full read.
#[test]
fn a_key_reads_only_what_it_changed() {
    let script = big_script(200);
    let mut reader = ScriptReader::new();
    let first = reader.read(&script).unwrap();
    assert_eq!(reader.stats().rows_read, 400, "{:?}", reader.stats());
    assert!(!reader.stats().full_read);

    // A digit typed into the value of the first row of l.
    let at = script.find("('k0', 0,").unwrap() + "('k0', 0".len();
    let typed = format!("{}7{}", &script[..at], &script[at..]);
    let sc = reader.read(&typed).unwrap();
    let s = reader.stats();
    assert_eq!(
        (s.rows_read, s.rows_reused, s.full_read),
        (1, 399, false),
        "{s:?}"
    );
    assert_eq!(sc, sql_to_scenario(&typed).unwrap());
    assert_ne!(sc.streams[0].rows, first.streams[0].rows);

    // A key in the query.
    let q = typed.replace("SELECT *", "SELECT  *");
    reader.read(&q).unwrap();
    let s = reader.stats();
    assert_eq!((s.rows_read, s.rows_reused), (0, 400), "{s:?}");

    // A column type changed in the DDL of r: r's rows are read again for the new table (an
    // INSERT whose text did not change is not taken as it was).
    let ddl = q.replacen("  v INT,", "  v BIGINT,", 2);
    let sc = reader.read(&ddl).unwrap();
    assert_eq!(sc, sql_to_scenario(&ddl).unwrap());
    assert!(!reader.stats().full_read);
    reader.read(&q).unwrap();

    // A line typed above everything, and a value of the wrong type in the last row of r.
    let last = q.rfind("('k9', 1199,").unwrap() + "('k9', ".len();
    let bad = format!("\n{}'x'{}", &q[..last], &q[last + 4..]);
    let e = reader.read(&bad).unwrap_err();
    assert_eq!(Err(e.clone()), sql_to_scenario(&bad));
    assert!(e.message.contains("does not fit"), "{e}");
    let s = reader.stats();
    assert_eq!((s.rows_read, s.full_read), (1, false), "{s:?}");
}
