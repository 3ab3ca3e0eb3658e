//! The WebAssembly bindings: a thin layer over [`crate::run`]. Scenarios come in as JSON text
//! and results go out as JavaScript objects; errors are returned as data
//! (`{ "error": { "kind": "row", "stream": …, "line": …, "column": …, "message": … } }`),
//! never thrown.
//!
//! The result documents are serialised once, to JSON text, and handed to the browser's own
//! `JSON.parse` (fast, and only one serde serializer is compiled into the module); the state
//! snapshots of `state_at` too (serde-wasm-bindgen, which they went through before, added a
//! second serializer of the same types).
//!
//! The page's first-load module leaves out `trace_window` (the windowed trace of an input too
//! large for a full trace, about 16 kB of the gzipped module): only the SQL operators' module
//! (cargo feature `ops-module`, web/pkg-ops/) has it, and the page's worker loads that module
//! the first time it is asked for a window (web/src/worker.js).

use crate::error::Error;
use crate::scenario::Scenario;
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

#[derive(Serialize)]
struct ErrorOut<'a> {
    error: &'a Error,
    message: String,
}

/// A document as a JavaScript object, through JSON text and the browser's `JSON.parse`.
/// The most JSON text one answer may become. A `String` cannot pass 2 GB in wasm32 (its
/// growth panics with "capacity overflow", which the page saw as `RuntimeError: unreachable`),
/// and the page could not take a result that large anyway; the engine's memory budget
/// estimates its own structures, not this text, so the text is bounded here.
const MAX_JSON_BYTES: usize = 256 << 20;

/// A buffer that refuses to grow past [`MAX_JSON_BYTES`].
struct Capped(Vec<u8>);

impl std::io::Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.0.len() + buf.len() > MAX_JSON_BYTES {
            return Err(std::io::Error::other("the JSON text is too large"));
        }
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `v` as JSON text, or an error that says the result is too large to hand to the page.
fn json_text<T: Serialize>(v: &T) -> Result<String, Error> {
    let mut w = Capped(Vec::new());
    match serde_json::to_writer(&mut w, v) {
        Ok(()) => Ok(String::from_utf8(w.0).unwrap_or_default()),
        Err(_) => Err(Error::Limit {
            message: format!(
                "the result would be more than {} MB of JSON text, more than the page can hold: \
                 fewer rows, fewer windows per row (a larger slide) or narrower bounds make it smaller",
                MAX_JSON_BYTES >> 20
            ),
        }),
    }
}

/// An answer as JSON text: the value, or the error when the value is too large.
fn answer_text<T: Serialize>(v: &T) -> String {
    json_text(v).unwrap_or_else(|e| error_text(&e))
}

/// An error as JSON text. Through [`json_text`] like every other answer: one instantiation of
/// the serializer (serde_json's `to_string` writes to another writer type, which compiles the
/// error's serialization a second time).
fn error_text(e: &Error) -> String {
    json_text(&ErrorOut {
        error: e,
        message: e.to_string(),
    })
    .unwrap_or_default()
}

fn to_js<T: Serialize>(v: &T) -> JsValue {
    js_sys::JSON::parse(&answer_text(v)).unwrap_or(JsValue::NULL)
}

fn error(e: &Error) -> JsValue {
    to_js(&ErrorOut {
        error: e,
        message: e.to_string(),
    })
}

/// Runs a scenario (JSON text). With `trace`, the result holds rows, keys and the trace.
#[wasm_bindgen]
pub fn run(scenario_json: &str, trace: bool) -> JsValue {
    match crate::run_json(scenario_json, trace) {
        Ok(r) => to_js(&r),
        Err(e) => error(&e),
    }
}

/// Runs a scenario with the trace but, unless `snapshots`, without a state snapshot per step
/// (ask for the state at a step with [`state_at`] instead: the trace stays small).
#[wasm_bindgen]
pub fn run_traced(scenario_json: &str, snapshots: bool) -> JsValue {
    let opts = crate::sim::RunOptions {
        trace: true,
        snapshots,
        stop_after: None,
    };
    match Scenario::from_json(scenario_json).and_then(|sc| crate::run_with(&sc, &opts)) {
        Ok(r) => to_js(&r),
        Err(e) => error(&e),
    }
}

/// Runs a scenario like [`run_traced`] (or untraced, without `trace`) and reports how far it
/// got: `on_progress(phase, done, total)` with `phase` one of `"reading"` (parsing and
/// resolving the rows: 0 of 1, then 1 of 1), `"simulating"` (arrivals processed of all
/// arrivals, about 100 calls in all) and `"result"` (building the result document). For the
/// page's worker: a large input shows a progress bar driven by the engine itself.
#[wasm_bindgen]
pub fn run_progress(
    scenario_json: &str,
    trace: bool,
    snapshots: bool,
    on_progress: &js_sys::Function,
) -> JsValue {
    let report = {
        let f = on_progress.clone();
        move |phase: &str, done: usize, total: usize| {
            let _ = f.call3(
                &JsValue::NULL,
                &JsValue::from_str(phase),
                &JsValue::from_f64(done as f64),
                &JsValue::from_f64(total as f64),
            );
        }
    };
    let opts = crate::sim::RunOptions {
        trace,
        snapshots: trace && snapshots,
        stop_after: None,
    };
    report("reading", 0, 1);
    let plan = match Scenario::from_json(scenario_json)
        .and_then(|sc| crate::plan::build(&sc, crate::plan::Limits::default()))
    {
        Ok(p) => p,
        Err(e) => return error(&e),
    };
    let total = plan.arrivals.len();
    report("reading", 1, 1);
    report("simulating", 0, total);
    let every = (total / 100).max(1000);
    let tick = report.clone();
    let out = crate::sim::with_progress(
        every,
        move |done, total| tick("simulating", done, total),
        || crate::run_plan(&plan, &opts),
    );
    report("simulating", total, total);
    match out {
        Ok(out) => {
            report("result", 0, 1);
            to_js(&crate::result::RunResult::build_owned(
                plan, out, opts.trace,
            ))
        }
        Err(e) => error(&e),
    }
}

/// The state and pending timers of every operator subtask right after step `step`.
#[wasm_bindgen]
pub fn state_at(scenario_json: &str, step: usize) -> JsValue {
    match Scenario::from_json(scenario_json).and_then(|sc| crate::state_at(&sc, step)) {
        Ok(s) => to_js(&s),
        Err(e) => error(&e),
    }
}

/// The trace of steps `[from, from + count)` only, for an input too large for a full trace:
/// `{from, steps, total_steps?, state_end, rows, keys, outputs, late, windows, side_outputs}`
/// (see [`crate::trace_window::TraceWindow`]), as JSON text (the worker posts it to the page).
#[cfg(feature = "ops-module")]
#[wasm_bindgen]
pub fn trace_window(scenario_json: &str, from: usize, count: usize) -> String {
    let w = Scenario::from_json(scenario_json)
        .and_then(|sc| crate::trace_window::trace_window(&sc, from, count));
    match w {
        Ok(w) => answer_text(&w),
        Err(e) => error_text(&e),
    }
}

/// Runs a scenario and returns the result as JSON text (faster for very large results).
#[wasm_bindgen]
pub fn run_to_json(scenario_json: &str, trace: bool) -> String {
    match crate::run_json(scenario_json, trace) {
        Ok(r) => answer_text(&r),
        Err(e) => error_text(&e),
    }
}

/// Validates and normalises a scenario: returns its compact JSON (defaults left out), for
/// share URLs, or an error object.
#[wasm_bindgen]
pub fn normalize(scenario_json: &str) -> JsValue {
    match Scenario::from_json(scenario_json) {
        Ok(sc) => JsValue::from_str(&sc.to_compact_json()),
        Err(e) => error(&e),
    }
}

/// The engine's version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// Runs a scenario like [`run_traced`] (or untraced, without `trace`) within a work budget
/// and a memory budget (`crate::budget`; `0` keeps the default of `plan::Limits`): for the
/// page's main thread, which runs small scenarios itself and hands a run that stops with an
/// error of kind `"limit"` to the worker (with the default budgets).
#[wasm_bindgen]
pub fn run_budgeted(
    scenario_json: &str,
    trace: bool,
    snapshots: bool,
    max_work: f64,
    max_memory_mb: f64,
) -> JsValue {
    let mut limits = crate::plan::Limits::default();
    if max_work >= 1.0 {
        limits.max_work = max_work as u64;
    }
    if max_memory_mb >= 1.0 {
        limits.max_memory = (max_memory_mb as u64).saturating_mul(1 << 20);
    }
    let opts = crate::sim::RunOptions {
        trace,
        snapshots: trace && snapshots,
        stop_after: None,
    };
    match Scenario::from_json(scenario_json).and_then(|sc| crate::run_limited(&sc, &opts, limits)) {
        Ok(r) => to_js(&r),
        Err(e) => error(&e),
    }
}
