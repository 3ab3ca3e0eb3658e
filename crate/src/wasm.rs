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
//!
//! A large untraced run of the page's worker goes through [`Job`] instead: the rows come in as
//! bytes written straight into the module's memory, the phases are called (and timed) one by
//! one, and the result stays here, handed out as its first rows and then in pages
//! ([`crate::paged`]).

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

/// A run of the page's engine worker, step by step, whose result stays in the module.
///
/// The worker gives the scenario without its rows (`new`), then each stream's rows text as it
/// is (`set_rows`: one copy into the module, no JSON escaping and unescaping of 20 MB of
/// rows), and calls the phases one by one (`plan`, `simulate`, `result`), timing each and
/// reporting progress in between. It then asks for the result with its long lists cut to
/// their first rows (`first_rows`) and later for pages of them (`page`): a million-row result
/// is never written whole as JSON text unless the page asks for all of it (`whole`, the
/// expected-result check). A phase that fails keeps its error: every later call answers it.
#[wasm_bindgen]
pub struct Job {
    scenario: Option<Scenario>,
    plan: Option<crate::plan::Plan>,
    out: Option<crate::sim::RunOutput>,
    result: Option<crate::result::RunResult>,
    error: Option<Error>,
    opts: crate::sim::RunOptions,
    /// The buffer of [`Job::rows_buffer`].
    pending: Vec<u8>,
}

#[wasm_bindgen]
impl Job {
    /// A job for the scenario `skeleton_json` (its streams' rows are given by `set_rows`),
    /// traced or not.
    #[wasm_bindgen(constructor)]
    pub fn new(skeleton_json: &str, trace: bool, snapshots: bool) -> Job {
        let (scenario, error) = match Scenario::from_json(skeleton_json) {
            Ok(sc) => (Some(sc), None),
            Err(e) => (None, Some(e)),
        };
        Job {
            scenario,
            plan: None,
            out: None,
            result: None,
            error,
            opts: crate::sim::RunOptions {
                trace,
                snapshots: trace && snapshots,
                stop_after: None,
            },
            pending: Vec::new(),
        }
    }

    /// The rows text of stream `stream` (moved in, not copied again).
    pub fn set_rows(&mut self, stream: usize, rows: String) {
        if let Some(st) = self
            .scenario
            .as_mut()
            .and_then(|sc| sc.streams.get_mut(stream))
        {
            st.rows = rows;
        }
    }

    /// A buffer of `len` bytes in the module's memory, as a `Uint8Array` over it, for the
    /// browser's `TextEncoder.encodeInto` to write a stream's rows into; [`Job::take_rows`]
    /// then makes them the stream's rows. A text of `len` UTF-16 units that is all ASCII fits
    /// (the usual case); `encodeInto` says when it did not, and `set_rows` takes it instead.
    /// The JavaScript glue of `set_rows` copies a string character by character: for the
    /// 20 MB of a million-row paste that was 100–200 ms, `encodeInto` takes a few.
    ///
    /// The view is valid until the module's memory grows: use it at once.
    pub fn rows_buffer(&mut self, len: usize) -> js_sys::Uint8Array {
        self.pending = vec![0; len];
        // SAFETY: the view covers `pending`'s initialised bytes, which nothing else reads or
        // frees until `take_rows` or the next `rows_buffer`; the caller uses it before
        // calling into the module again (see above).
        unsafe { js_sys::Uint8Array::view_mut_raw(self.pending.as_mut_ptr(), len) }
    }

    /// Makes the first `written` bytes of the buffer of [`Job::rows_buffer`] the rows of
    /// stream `stream`. False (and nothing set) when they are not UTF-8.
    pub fn take_rows(&mut self, stream: usize, written: usize) -> bool {
        let mut buf = std::mem::take(&mut self.pending);
        buf.truncate(written);
        match String::from_utf8(buf) {
            Ok(rows) => {
                self.set_rows(stream, rows);
                true
            }
            Err(_) => false,
        }
    }

    /// Reads the rows and builds the plan (`plan::build`). False on an error.
    pub fn plan(&mut self) -> bool {
        let Some(sc) = self.scenario.take() else {
            return false;
        };
        // The scenario is given to the plan: its rows text is freed as soon as it is read,
        // before the plan's rows are built, which can then reuse its memory.
        match crate::plan::build_owned(sc, crate::plan::Limits::default()) {
            Ok(plan) => {
                self.plan = Some(plan);
                true
            }
            Err(e) => {
                self.error = Some(e);
                false
            }
        }
    }

    /// Only reads the rows (`parse::parse_stream` of each stream, as `plan::build` does) and
    /// drops what it read: for the page benchmark, which times the reading apart from the
    /// plan on a job of its own. False on an error.
    pub fn parse_only(&self) -> bool {
        let Some(sc) = &self.scenario else {
            return false;
        };
        let p = sc.job.parallelism.clamp(1, 8);
        sc.streams
            .iter()
            .all(|s| crate::parse::parse_stream(s, p).is_ok())
    }

    /// The number of arrivals to simulate (0 before the plan).
    pub fn arrivals(&self) -> usize {
        self.plan.as_ref().map_or(0, |p| p.arrivals.len())
    }

    /// Simulates the plan, calling `on_progress(done, total)` every `every` arrivals. False on
    /// an error.
    pub fn simulate(&mut self, every: usize, on_progress: &js_sys::Function) -> bool {
        let Some(plan) = &self.plan else {
            return false;
        };
        let f = on_progress.clone();
        let tick = move |done: usize, total: usize| {
            let _ = f.call2(
                &JsValue::NULL,
                &JsValue::from_f64(done as f64),
                &JsValue::from_f64(total as f64),
            );
        };
        let opts = self.opts.clone();
        match crate::sim::with_progress(every, tick, || crate::run_plan(plan, &opts)) {
            Ok(out) => {
                self.out = Some(out);
                true
            }
            Err(e) => {
                self.plan = None;
                self.error = Some(e);
                false
            }
        }
    }

    /// Builds the result from the simulation (the plan is handed over and dropped). False on
    /// an error.
    pub fn result(&mut self) -> bool {
        match (self.plan.take(), self.out.take()) {
            (Some(plan), Some(out)) => {
                self.result = Some(crate::result::RunResult::build_owned(
                    plan,
                    out,
                    self.opts.trace,
                ));
                true
            }
            _ => false,
        }
    }

    /// `{"result": …, "paged"?: {…}}` as JSON text: the result with every list longer than
    /// `max` cut to its first `first` rows, and the full lengths of the lists that were cut
    /// ([`crate::paged`]); or the error of the phase that failed.
    pub fn first_rows(&mut self, max: usize, first: usize) -> String {
        match self.result.as_mut() {
            Some(r) => crate::paged::with_first_rows(r, max, first, |result, paged| {
                answer_text(&crate::paged::FirstRows { result, paged })
            }),
            None => error_text(&self.failure()),
        }
    }

    /// Rows `from..from + count` of the list `field` (`outputs`, `late`, `windows`) or of the
    /// side output `tag`, as JSON text (an array), or an error.
    pub fn page(&self, field: &str, tag: Option<String>, from: usize, count: usize) -> String {
        match &self.result {
            Some(r) => match crate::paged::page(r, field, tag.as_deref(), from, count) {
                Ok(p) => answer_text(&p),
                Err(e) => error_text(&e),
            },
            None => error_text(&self.failure()),
        }
    }

    /// The whole result as JSON text (what `run_to_json` answers), or the error.
    pub fn whole(&self) -> String {
        match &self.result {
            Some(r) => answer_text(r),
            None => error_text(&self.failure()),
        }
    }

    fn failure(&self) -> Error {
        self.error
            .clone()
            .unwrap_or_else(|| Error::config("run", "the run's phases were called out of order"))
    }
}

/// The size of this module's memory in bytes (it only grows: the most a run has needed).
#[wasm_bindgen]
pub fn memory_bytes() -> f64 {
    (core::arch::wasm32::memory_size(0) as f64) * 65536.0
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
