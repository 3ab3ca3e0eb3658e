//! Thread-local hooks around a simulation that keep `RunOptions` plain data: the page's
//! progress callback and the stepper's trace window.

/// A progress callback: `(every, f)` calls `f(arrivals done, arrivals in all)` every `every`
/// arrivals. Thread-local rather than a `RunOptions` field so that the options stay plain data;
/// only the page's worker sets it (through [`with_progress`]).
pub(super) type Progress = (usize, Box<dyn FnMut(usize, usize)>);

thread_local! {
    pub(super) static PROGRESS: std::cell::RefCell<Option<Progress>> = const { std::cell::RefCell::new(None) };
}

/// Runs `body` with `f(done, total)` called every `every` arrivals of the simulation (the
/// page's progress bar for a large input).
pub fn with_progress<R>(
    every: usize,
    f: impl FnMut(usize, usize) + 'static,
    body: impl FnOnce() -> R,
) -> R {
    PROGRESS.with(|p| *p.borrow_mut() = Some((every.max(1), Box::new(f))));
    let r = body();
    PROGRESS.with(|p| *p.borrow_mut() = None);
    r
}

thread_local! {
    pub(super) static TRACE_WINDOW: std::cell::Cell<Option<(usize, usize)>> = const { std::cell::Cell::new(None) };
}

/// Runs `body` with the trace of every simulation in it recorded only for steps
/// `[from, from + count)`: the page's stepper over an input too large for a full trace asks
/// for the steps around the slider this way. Step numbers stay global (the steps before
/// `from` run untraced but count), watermark origins are tracked throughout (a late row in the
/// window is explained as in a full trace), and the run stops after the window's last step
/// (its `final_state` is the state there, as with `stop_after`). Outputs are kept, so the
/// window's events refer to them by their index in the full result. The window's steps equal
/// the same steps of a full trace without snapshots (`tests/trace_window.rs`). Thread-local,
/// like [`with_progress`], so that `RunOptions` stays plain data; `opts.trace` is ignored
/// inside.
pub fn with_trace_window<R>(from: usize, count: usize, body: impl FnOnce() -> R) -> R {
    TRACE_WINDOW.with(|w| w.set(Some((from, from.saturating_add(count)))));
    let r = body();
    TRACE_WINDOW.with(|w| w.set(None));
    r
}

pub(super) fn report_progress(done: usize, total: usize) {
    PROGRESS.with(|p| {
        if let Some((_, f)) = p.borrow_mut().as_mut() {
            f(done, total)
        }
    });
}
