//! The WebAssembly bindings of the SQL script reader (cargo feature `sql-module`): a module of
//! its own, which the page loads only when a SQL scenario opens or the SQL tab is used, like
//! the exporter's (src/wasm_export.rs). It holds sqlparser, [`crate::sql`] and the scenario
//! types, not the simulator. Errors are returned as data.

use crate::scenario::Scenario;
use crate::sql::script::ScriptReader;
use crate::sql::{scenario_to_sql as to_sql, sql_to_scenario as to_scenario, SqlError};
use serde::Serialize;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

#[derive(Serialize)]
struct Parsed<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    scenario: Option<&'a Scenario>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    errors: Vec<SqlError>,
}

#[derive(Serialize)]
struct ErrorOut<'a> {
    error: &'a crate::error::Error,
    message: String,
}

fn to_js<T: Serialize>(v: &T) -> JsValue {
    match serde_json::to_string(v) {
        Ok(text) => js_sys::JSON::parse(&text).unwrap_or(JsValue::NULL),
        Err(_) => JsValue::NULL,
    }
}

/// A Flink SQL script -> `{ scenario }` (the scenario document, with the script in `sql`) or
/// `{ errors: [{ line, column, message }] }` (1-based positions in the script).
#[wasm_bindgen]
pub fn sql_to_scenario(text: &str) -> JsValue {
    match to_scenario(text) {
        Ok(sc) => to_js(&Parsed {
            scenario: Some(&sc),
            errors: Vec::new(),
        }),
        Err(e) => to_js(&Parsed {
            scenario: None,
            errors: vec![e],
        }),
    }
}

thread_local! {
    /// The SQL editor's reader: it keeps the rows of the scripts it read (crate::sql::script's
    /// `ScriptReader`), so that a key re-reads only the rows and statements it changed.
    static READER: RefCell<ScriptReader> = RefCell::new(ScriptReader::new());
}

/// What the last `sql_read` reused and read again (for the page's tests and benchmarks).
#[derive(Serialize)]
struct ReadOut {
    rows_reused: usize,
    rows_read: usize,
    statements_read: usize,
    full_read: bool,
}

#[derive(Serialize)]
struct ParsedRead<'a> {
    #[serde(flatten)]
    parsed: Parsed<'a>,
    read: ReadOut,
}

/// [`sql_to_scenario`] for a script being typed: the same answer, read by a reader that keeps
/// what it read of the previous scripts and reads again only the statements and `INSERT` rows
/// whose text changed. Also `read`: how much it reused. The scenario comes without its `sql`
/// (the text passed in, which the caller has): the script is most of the answer's size.
#[wasm_bindgen]
pub fn sql_read(text: &str) -> JsValue {
    READER.with(|r| {
        let mut r = r.borrow_mut();
        let mut res = r.read(text);
        if let Ok(sc) = &mut res {
            sc.sql = String::new();
        }
        let s = r.stats();
        let read = ReadOut {
            rows_reused: s.rows_reused,
            rows_read: s.rows_read,
            statements_read: s.statements_read,
            full_read: s.full_read,
        };
        let parsed = match &res {
            Ok(sc) => Parsed {
                scenario: Some(sc),
                errors: Vec::new(),
            },
            Err(e) => Parsed {
                scenario: None,
                errors: vec![e.clone()],
            },
        };
        to_js(&ParsedRead { parsed, read })
    })
}

/// A scenario (JSON text) -> its Flink SQL script (a string; the scenario's own `sql` when it
/// has one), or `{ error, message }` when it has no script form.
#[wasm_bindgen]
pub fn scenario_to_sql(scenario_json: &str) -> JsValue {
    match Scenario::from_json(scenario_json).and_then(|sc| to_sql(&sc)) {
        Ok(text) => JsValue::from_str(&text),
        Err(e) => to_js(&ErrorOut {
            message: e.to_string(),
            error: &e,
        }),
    }
}

/// What the exporter's module needs from a scenario's script (JSON text of
/// [`crate::export::ScriptFacts`]: its query and `PROCTIME()` columns), or `null` when the
/// scenario does not parse. The page hands it to `export_flink`: the exporter has no SQL parser.
#[wasm_bindgen]
pub fn script_facts(scenario_json: &str) -> JsValue {
    match Scenario::from_json(scenario_json) {
        Ok(sc) => serde_json::to_string(&crate::export::ScriptFacts::read(&sc))
            .map_or(JsValue::NULL, |t| JsValue::from_str(&t)),
        Err(_) => JsValue::NULL,
    }
}
