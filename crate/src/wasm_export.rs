//! The WebAssembly bindings of the Flink exporter (cargo feature `export-module`): a module of
//! its own, which the page loads only when its Export panel is opened (web/src/export-runtime.js).
//! It holds the scenario reader, the planner and [`crate::export`], not the simulator: most
//! visits never export, and the exporter's code and Java templates would otherwise be about a
//! tenth of the engine module's gzipped size. Errors are returned as data, like the engine's
//! bindings (src/wasm.rs): `{ "error": { … }, "message": … }`.

use crate::error::Error;
use crate::export::{export_with_facts, ExportKind, ScriptFacts};
use crate::scenario::Scenario;
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[derive(Serialize)]
struct ErrorOut<'a> {
    error: &'a Error,
    message: String,
}

/// The scenario (JSON text) as a runnable Apache Flink job: `kind` is `"java"` (DataStream
/// API) or `"sql"` (Flink SQL). Returns the job's source text (with the runtime marker in
/// place of the runtime, see `RUNTIME_MARKER`), or an error object. A scenario read from a SQL
/// script also needs `facts`: the SQL module's `script_facts` of it (JSON text; this module
/// has no SQL parser).
#[wasm_bindgen]
pub fn export_flink(scenario_json: &str, kind: &str, facts: Option<String>) -> JsValue {
    let kind = match kind {
        "sql" => ExportKind::FlinkSql,
        _ => ExportKind::FlinkJava,
    };
    let facts = match facts.as_deref().map(serde_json::from_str::<ScriptFacts>) {
        None => None,
        Some(Ok(f)) => Some(f),
        Some(Err(e)) => {
            return error(&Error::config(
                "sql",
                format!("the script's facts are not valid: {e}"),
            ))
        }
    };
    match Scenario::from_json(scenario_json)
        .and_then(|sc| export_with_facts(&sc, kind, facts.as_ref()))
    {
        Ok(text) => JsValue::from_str(&text),
        Err(e) => error(&e),
    }
}

fn error(e: &Error) -> JsValue {
    let out = ErrorOut {
        error: e,
        message: e.to_string(),
    };
    match serde_json::to_string(&out) {
        Ok(text) => js_sys::JSON::parse(&text).unwrap_or(JsValue::NULL),
        Err(_) => JsValue::NULL,
    }
}
