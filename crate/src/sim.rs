//! The deterministic simulator: sources → assigner subtasks → keyBy → operator subtasks.
//!
//! Single-threaded, one arrival at a time: each row is fully processed by its operator subtask
//! before the watermark it caused is broadcast (`TimestampsAndWatermarksOperator` emits the
//! record first, then calls the generator), and each watermark is fully processed — timers
//! fired, then forwarded (`AbstractStreamOperator.processWatermark`) — before the next
//! arrival. Processing time is simulated: it is the arrival time of the current row.

use crate::budget::{megabytes, thousands, Budget, Exceeded, Memory, Work};
use crate::error::Error;
use crate::operators::{Ctx, Operator, Sink, WatermarkOrigin};
use crate::parse::Side;
use crate::partition::SubtaskIndex;
use crate::plan::{Arrival, KeyId, Plan, RowId};
use crate::scenario::OperatorKind;
use crate::time::Watermark;
use crate::timers::TimerQueue;
use crate::trace::{Cause, Event, Step, SubtaskState, TimerView};
use crate::watermark::{Assigner, Combined, Emission, Valve, ValveOutput};

/// Options of a run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Record the step-by-step trace.
    pub trace: bool,
    /// With the trace, also snapshot the state of every subtask a step touched, after it.
    pub snapshots: bool,
    /// Stop after this step and report the state of every subtask at that point (in
    /// `RunOutput::final_state`): the page asks for the state at a step this way instead of
    /// keeping a snapshot per step.
    pub stop_after: Option<usize>,
}

/// With [`with_trace_window`]: what the page's stepper needs of the steps before the window
/// (the state after step `from - 1`), which it would otherwise add up from a full trace: the
/// result counts and the watermarks of `WatermarkTracker` (web/src/timeline.js).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct WindowStart {
    /// `outputs`, `windows` and `late` emitted before the window.
    pub outputs: usize,
    pub windows: usize,
    pub late: usize,
    /// Per stream, per assigner subtask: the last forwarded watermark and the announced status.
    pub assigner: Vec<Vec<Watermark>>,
    pub idle: Vec<Vec<bool>>,
    /// Per operator subtask, per stream, per assigner subtask: the input channel's watermark.
    pub channel: Vec<Vec<Vec<Watermark>>>,
    /// Per operator subtask: its (combined) watermark and the one it forwards.
    pub operator: Vec<Watermark>,
    pub output: Vec<Watermark>,
}

/// What a run produced, before it is turned into the JSON result.
#[derive(Clone, Debug)]
pub struct RunOutput {
    pub sink: Sink,
    /// The trace (empty unless tracing).
    pub steps: Vec<Step>,
    /// Number of steps of the run.
    pub step_count: usize,
    /// Final operator watermark of each subtask.
    pub watermarks: Vec<Watermark>,
    /// Final state and timers of each subtask.
    pub final_state: Vec<SubtaskState>,
    /// Whether every subtask's state and timer queues are empty at the end.
    pub state_empty: bool,
    /// Per stream, per assigner subtask: the last forwarded watermark.
    pub assigner_watermarks: Vec<Vec<Watermark>>,
    /// The most rows held in operator state at once, all subtasks summed
    /// ([`Operator::state_rows`], sampled after every element and every timer batch).
    pub peak_state_rows: usize,
    /// The most pending event-time timers at once, all subtasks, at the same points.
    pub peak_timers: usize,
    /// With [`with_trace_window`], when the run reached the window.
    pub window_start: Option<WindowStart>,
    /// With snapshots: the step from which the trace has none, the run having copied
    /// `Limits::max_snapshot_entries` into earlier ones.
    pub snapshots_cut: Option<usize>,
    /// Work units the run used ([`crate::budget`]).
    pub work: u64,
    /// The watermarks just before the end of input (`None` when the run stopped earlier):
    /// what the diagnosis reads to tell a watermark held back from one the final watermark
    /// released.
    pub before_end: Option<BeforeEnd>,
    /// Which step each arrival made ([`StepMap::arrival_step`]).
    pub step_map: StepMap,
}

/// The watermarks of the run just before the end of input.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BeforeEnd {
    /// Per stream, per assigner subtask: the last forwarded watermark.
    pub assigner: Vec<Vec<Watermark>>,
    /// Per stream, per assigner subtask: whether it had announced itself idle.
    pub idle: Vec<Vec<bool>>,
    /// Per operator subtask: its (combined) watermark.
    pub operator: Vec<Watermark>,
}

/// The step numbers of arrivals, kept without a per-row cost: one entry per step that no
/// arrival started (a periodic emit, processing-time timers, the end of input), holding the
/// number of arrivals before it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepMap {
    extra: Vec<u32>,
}

impl StepMap {
    /// The step that arrival `i` (an index into `Plan::arrivals`) started.
    pub fn arrival_step(&self, i: usize) -> usize {
        i + self.extra.partition_point(|&a| (a as usize) <= i)
    }
}

enum Inputs {
    /// One logical input (one-input operators; the window join's union of both streams,
    /// left channels first).
    Single(Valve),
    /// A two-input operator: one valve per input, then the combiner.
    Two([Valve; 2], Combined),
}

struct Sub<O: Operator> {
    op: O,
    timers: TimerQueue<KeyId, O::Ns>,
    ptimers: TimerQueue<KeyId, O::Ns>,
    watermark: Watermark,
    inputs: Inputs,
    origin: Option<WatermarkOrigin>,
    touched: bool,
    /// `op.state_rows()` and `timers.len()` at the last sample.
    rows: usize,
    timer_count: usize,
}

impl<O: Operator> Sub<O> {
    /// The operator and a context over this subtask's timers, for one call.
    fn split<'a>(
        &'a mut self,
        plan: &'a Plan,
        sink: &'a mut Sink,
        j: usize,
        now: i64,
    ) -> (&'a mut O, Ctx<'a, O::Ns>) {
        let cx = Ctx {
            plan,
            subtask: SubtaskIndex(j as u32),
            watermark: self.watermark,
            processing_time: now,
            timers: &mut self.timers,
            processing_timers: &mut self.ptimers,
            sink,
            origin: self.origin.clone(),
            describe: O::describe_timer,
        };
        (&mut self.op, cx)
    }

    /// Fires, in heap order, every timer of one queue due at `upto`
    /// (`InternalTimerServiceImpl.advanceWatermark` / `onProcessingTime`).
    fn fire_due(
        &mut self,
        plan: &Plan,
        sink: &mut Sink,
        j: usize,
        now: i64,
        processing: bool,
        upto: i64,
    ) {
        // Charged per 1,024 firings and once for the rest: nothing per timer on the hot path.
        let mut fired: u64 = 0;
        loop {
            let queue = if processing {
                &mut self.ptimers
            } else {
                &mut self.timers
            };
            let Some(timer) = queue.poll_due(upto) else {
                break;
            };
            self.touched = true;
            fired += 1;
            if fired.is_multiple_of(1024) && !sink.budget.charge(Work::TimerFirings, 1024) {
                // Past the budget: the run stops after this step (the timer is consumed, as
                // nothing of this run is kept).
                fired = 0;
                break;
            }
            if sink.tracing {
                sink.events.push(Event::TimerFired {
                    subtask: SubtaskIndex(j as u32),
                    key: timer.key,
                    timestamp: timer.timestamp,
                    what: O::describe_timer(&timer.namespace),
                    processing,
                });
            }
            let (op, mut cx) = self.split(plan, sink, j, now);
            if processing {
                op.on_processing_time(&mut cx, timer);
            } else {
                op.on_event_time(&mut cx, timer);
            }
        }
        if !fired.is_multiple_of(1024) {
            sink.budget.charge(Work::TimerFirings, fired % 1024);
        }
    }
}

struct AssignerSlot {
    a: Assigner,
    max_row: Option<RowId>,
    interval: i64,
    /// The last forwarded watermark came from a `WM` row.
    punctuated: bool,
}

struct Sim<'p, 'c, O: Operator> {
    plan: &'p Plan,
    /// With [`simulate_draining`]: the consumer and the output count that triggers a drain.
    drain: Drain<'c>,
    subs: Vec<Sub<O>>,
    assigners: Vec<Vec<AssignerSlot>>,
    sink: Sink,
    steps: Vec<Step>,
    step_count: usize,
    now: i64,
    union: bool,
    emissions: Vec<Emission>,
    snapshots: bool,
    stop_after: Option<usize>,
    /// With [`with_trace_window`]: the steps `[from, end)` that are traced.
    window: Option<(usize, usize)>,
    /// The next step at which [`Sim::toggle_window`] runs (`usize::MAX`: none).
    window_toggle: usize,
    window_start: Option<WindowStart>,
    stopped: Option<Vec<SubtaskState>>,
    /// Scratch buffers of `broadcast` (kept to avoid an allocation per row).
    scratch_outs: Vec<ValveOutput>,
    scratch_advances: Vec<Watermark>,
    /// Some assigner emits periodic watermarks (`interval > 0`).
    any_periodic: bool,
    /// Watermark origins are needed: tracing, or the operator reports late rows
    /// (`Ctx::late` is the only reader of `Ctx::origin`).
    want_origin: bool,
    /// Rows a SQL query's pushed-down `WHERE` rejects (`crate::sql::eval::filtered`; empty
    /// without one): they reach their watermark generator but not the operator.
    filtered: Vec<bool>,
    /// State rows and event-time timers of all subtasks at their last samples, and the peaks.
    total_rows: usize,
    total_timers: usize,
    peak_rows: usize,
    peak_timers: usize,
    /// State entries and timers copied into snapshots so far, and the step at which the
    /// snapshots stopped (`Limits::max_snapshot_entries`).
    snapshot_entries: u64,
    snapshots_cut: Option<usize>,
    /// Arrivals processed so far, and the steps no arrival started ([`StepMap`]).
    arrivals_done: usize,
    step_map: StepMap,
    before_end: Option<BeforeEnd>,
    /// The run is traced (the result document is then larger per result).
    want_trace: bool,
}

/// A progress callback: `(every, f)` calls `f(arrivals done, arrivals in all)` every `every`
/// arrivals. Thread-local rather than a `RunOptions` field so that the options stay plain data;
/// only the page's worker sets it (through [`with_progress`]).
type Progress = (usize, Box<dyn FnMut(usize, usize)>);

thread_local! {
    static PROGRESS: std::cell::RefCell<Option<Progress>> = const { std::cell::RefCell::new(None) };
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
    static TRACE_WINDOW: std::cell::Cell<Option<(usize, usize)>> = const { std::cell::Cell::new(None) };
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

fn report_progress(done: usize, total: usize) {
    PROGRESS.with(|p| {
        if let Some((_, f)) = p.borrow_mut().as_mut() {
            f(done, total)
        }
    });
}

/// The consumer of [`simulate_draining`] and the output count that triggers a drain.
type Drain<'c> = Option<(&'c mut dyn FnMut(&Sink), usize)>;

/// Runs a plan with operator type `O`.
pub fn simulate<O: Operator>(plan: &Plan, opts: &RunOptions) -> Result<RunOutput, Error> {
    simulate_inner::<O>(plan, opts, None)
}

/// Runs a plan like [`simulate`], but hands the sink to `consumer` whenever a step has left
/// at least `chunk` outputs (join results, window results, late rows) in it, and once at the
/// end, clearing them each time: the sink of the returned [`RunOutput`] holds no outputs.
/// Side outputs are not drained. This is Flink's streaming sink (the benchmark's counting
/// sink consumes the outputs as they are produced); the simulation is the same code path as
/// [`simulate`]. With `opts.trace` the outputs are kept (the trace refers to them by index)
/// and `consumer` sees them once, at the end.
pub fn simulate_draining<O: Operator>(
    plan: &Plan,
    opts: &RunOptions,
    chunk: usize,
    consumer: &mut dyn FnMut(&Sink),
) -> Result<RunOutput, Error> {
    let chunk = if opts.trace { usize::MAX } else { chunk.max(1) };
    simulate_inner::<O>(plan, opts, Some((consumer, chunk)))
}

fn simulate_inner<'c, O: Operator>(
    plan: &Plan,
    opts: &RunOptions,
    drain: Drain<'c>,
) -> Result<RunOutput, Error> {
    let progress_every = PROGRESS.with(|p| p.borrow().as_ref().map(|(e, _)| *e));
    let window = TRACE_WINDOW
        .with(|w| w.get())
        .filter(|&(from, end)| from < end);
    // A windowed trace stops after its last step, unless asked to stop earlier.
    let stop_after = match window {
        Some((_, end)) => Some(opts.stop_after.map_or(end - 1, |s| s.min(end - 1))),
        None => opts.stop_after,
    };
    let mut progress_countdown = progress_every.unwrap_or(usize::MAX);
    let pa = plan.assigner_parallelism as usize;
    let streams = plan.schemas.len();
    let union = plan.operator == OperatorKind::WindowJoin;
    let subs = (0..plan.operator_parallelism)
        .map(|j| Sub {
            op: O::new(plan, SubtaskIndex(j)),
            timers: if O::UNIQUE_TIMERS {
                TimerQueue::new_unique()
            } else {
                TimerQueue::new()
            },
            ptimers: TimerQueue::new(),
            watermark: Watermark::MIN,
            inputs: if streams == 2 && !union {
                Inputs::Two([Valve::new(pa), Valve::new(pa)], Combined::default())
            } else {
                Inputs::Single(Valve::new(pa * streams))
            },
            origin: None,
            touched: false,
            rows: 0,
            timer_count: 0,
        })
        .collect();
    let assigners = plan
        .generators
        .iter()
        .map(|g| {
            (0..pa)
                .map(|_| AssignerSlot {
                    a: Assigner::new(g.clone()),
                    max_row: None,
                    interval: g.interval,
                    punctuated: false,
                })
                .collect()
        })
        .collect();
    let mut sim = Sim {
        plan,
        drain,
        subs,
        assigners,
        sink: Sink {
            tracing: opts.trace && window.is_none(),
            max_outputs: plan.limits.max_outputs,
            budget: Budget::new(plan.limits.max_work, plan.limits.max_memory),
            ..Sink::default()
        },
        steps: Vec::new(),
        step_count: 0,
        now: plan
            .arrivals
            .first()
            .map(|a| arrival_time(plan, a))
            .unwrap_or(0),
        union,
        emissions: Vec::new(),
        snapshots: opts.snapshots,
        stop_after,
        window,
        window_toggle: window.map_or(usize::MAX, |(from, _)| from),
        window_start: None,
        stopped: None,
        scratch_outs: Vec::new(),
        scratch_advances: Vec::new(),
        any_periodic: plan.generators.iter().any(|g| g.interval > 0),
        filtered: if crate::SQL_OPERATORS {
            crate::sql::eval::filtered(plan)
        } else {
            Vec::new()
        },
        want_origin: opts.trace || window.is_some() || O::REPORTS_LATE,
        total_rows: 0,
        total_timers: 0,
        peak_rows: 0,
        peak_timers: 0,
        snapshot_entries: 0,
        snapshots_cut: None,
        arrivals_done: 0,
        step_map: StepMap::default(),
        before_end: None,
        want_trace: opts.trace,
    };
    if window.is_some_and(|(from, _)| from == 0) {
        sim.window_start = Some(sim.window_start());
    }
    for (i, a) in plan.arrivals.iter().enumerate() {
        progress_countdown -= 1;
        if progress_countdown == 0 {
            progress_countdown = progress_every.unwrap_or(usize::MAX);
            report_progress(i, plan.arrivals.len());
        }
        sim.arrivals_done = i;
        let t = arrival_time(plan, a);
        sim.advance_processing_time(t);
        match a {
            Arrival::Row(id) => sim.row(*id),
            Arrival::Watermark {
                stream,
                line,
                assigner,
                value,
                arrival,
            } => {
                sim.begin(Cause::WatermarkRow {
                    stream: *stream,
                    line: *line,
                    assigner: *assigner,
                    value: *value,
                    processing_time: *arrival,
                });
                let mut em = std::mem::take(&mut sim.emissions);
                em.clear();
                let slot = &mut sim.assigners[stream.index()][*assigner as usize];
                let last = slot.a.last_emitted;
                if slot.a.on_punctuation(*value, &mut em) {
                    slot.punctuated = true;
                } else if sim.sink.tracing {
                    // `WatermarkEmitter.emitWatermark` drops a watermark that is not strictly
                    // greater than the last one it sent.
                    sim.sink.events.push(Event::AssignerHeld {
                        stream: *stream,
                        assigner: *assigner,
                        candidate: Watermark(*value),
                        last,
                    });
                }
                sim.broadcast(*stream, *assigner, &em, None);
                sim.emissions = em;
                sim.end();
            }
        }
        if sim.sink.overflow {
            return Err(Error::Limit {
                message: format!(
                    "the run produced more than {} results; make the input or the windows smaller",
                    plan.limits.max_outputs
                ),
            });
        }
        // The memory estimate every 32 arrivals: an arrival adds at most what its work
        // budget allows, and a lean run's arrival is ~20 ns.
        if i % 32 == 31 {
            let memory = sim.memory();
            sim.sink.budget.check_memory(memory);
        }
        if let Some(e) = sim.sink.budget.exceeded() {
            return Err(limit_error(plan, &sim.sink.budget, e, i + 1));
        }
        if sim.stopped.is_some() {
            break;
        }
    }
    if sim.stopped.is_none() {
        sim.arrivals_done = plan.arrivals.len();
        sim.end_of_input();
    }
    if sim.sink.overflow {
        return Err(Error::Limit {
            message: format!(
                "the run produced more than {} results; make the input or the windows smaller",
                plan.limits.max_outputs
            ),
        });
    }
    let memory = sim.memory();
    sim.sink.budget.check_memory(memory);
    if let Some(e) = sim.sink.budget.exceeded() {
        return Err(limit_error(plan, &sim.sink.budget, e, plan.arrivals.len()));
    }
    if let Some((consumer, _)) = sim.drain.as_mut() {
        sim.sink.drain(&mut **consumer);
    }
    let watermarks = sim.subs.iter().map(|s| s.watermark).collect();
    let state_empty = sim
        .subs
        .iter()
        .all(|s| s.op.is_empty() && s.timers.is_empty() && s.ptimers.is_empty());
    // The snapshots are read by the trace's verdicts, by `state_at` (a `stop_after` past the
    // last step gets the final state) and, when something is left, by the result
    // (`RunResult::build` drops them when the state is empty): skip building them (a
    // `String` per entry) for a lean run that ends empty.
    let final_state = match sim.stopped.take() {
        Some(state) => state,
        None if opts.trace || stop_after.is_some() || !state_empty => {
            (0..sim.subs.len()).map(|j| sim.snapshot(j)).collect()
        }
        None => Vec::new(),
    };
    let assigner_watermarks = sim
        .assigners
        .iter()
        .map(|v| v.iter().map(|s| s.a.last_emitted).collect())
        .collect();
    let work = sim.sink.budget.used();
    Ok(RunOutput {
        sink: sim.sink,
        steps: sim.steps,
        step_count: sim.step_count,
        watermarks,
        final_state,
        state_empty,
        assigner_watermarks,
        peak_state_rows: sim.peak_rows,
        peak_timers: sim.peak_timers,
        window_start: sim.window_start,
        snapshots_cut: sim.snapshots_cut,
        work,
        before_end: sim.before_end,
        step_map: sim.step_map,
    })
}

/// Estimated bytes of one snapshot.
fn snapshot_bytes(s: &SubtaskState) -> u64 {
    use crate::trace::StateEntry;
    use std::mem::size_of;
    let entries: usize = s
        .entries
        .iter()
        .map(|e| size_of::<StateEntry>() + e.scope.len() + e.rows.len() * 4)
        .sum();
    let timers: usize = s
        .timers
        .iter()
        .map(|t| size_of::<TimerView>() + t.what.len())
        .sum();
    (size_of::<SubtaskState>() + entries + timers) as u64
}

/// The message of a run stopped by its budget: what grew, how far, and the settings that
/// made it grow. `arrivals` is how many arrivals had been read.
fn limit_error(plan: &Plan, b: &Budget, e: Exceeded, arrivals: usize) -> Error {
    let job = &plan.scenario.job;
    let at = format!(
        "after {} of {} input rows and watermark rows",
        thousands(arrivals as u64),
        thousands(plan.arrivals.len() as u64)
    );
    let message = match e {
        Exceeded::Memory => {
            let m = b.memory;
            let (what, bytes, hint) = if m.trace >= m.state && m.trace >= m.results {
                (
                    "the trace",
                    m.trace,
                    "run without the trace (--trace), or with fewer rows",
                )
            } else if m.state >= m.results {
                ("operator state", m.state, "the watermark delay, the window size, the interval bounds or the state TTL keep rows in state; lower them or give fewer rows")
            } else {
                (
                    "the results",
                    m.results,
                    "fewer rows, smaller windows or a narrower join make fewer results",
                )
            };
            format!(
                "{what} grew to about {} ({at}), past the memory budget of {} (state {}, results {}, trace {}); {hint}; raise the budget with --max-memory",
                megabytes(bytes),
                megabytes(b.max_memory()),
                megabytes(m.state),
                megabytes(m.results),
                megabytes(m.trace),
            )
        }
        Exceeded::Work(_) => {
            let w = b.largest();
            let n = thousands(b.count(w));
            // A setting that multiplies the work of every row, named whatever grew.
            let win = &job.window;
            let sliding = match (win.kind, win.slide) {
                (crate::scenario::WindowKind::Sliding, Some(slide))
                    if slide.0 > 0 && win.size.0 / slide.0 >= 100 =>
                {
                    let per = (win.size.0 + slide.0 - 1) / slide.0;
                    Some(format!(
                        "the sliding window puts every row in {} windows: size {} / slide {} (job.window.size, job.window.slide)",
                        thousands(per as u64),
                        crate::time::format_duration(win.size.0),
                        crate::time::format_duration(slide.0)
                    ))
                }
                _ => None,
            };
            let why = match w {
                Work::WindowAssignments => sliding
                    .clone()
                    .unwrap_or_else(|| "every row is assigned to windows (job.window)".into()),
                Work::MergeSteps => "session windows stay in flight and every new row is merged against all of them: with no watermark (or one held back) nothing retires them, and rows out of order make this O(rows²) (job.window.gap, job.watermark)".to_string(),
                Work::PairsTried => "the join pairs many rows (every row of a key with every row of the other side that matches): fewer rows per key, a narrower interval or smaller windows make fewer pairs".to_string(),
                Work::TimerFirings => "timers fire for every window and key (job.window, job.allowed_lateness)".to_string(),
                Work::ResultRows => format!(
                    "windows re-fire on every allowed-late row and each firing lists the window's rows (job.allowed_lateness = {})",
                    crate::time::format_duration(job.allowed_lateness.0)
                ),
                Work::TraceEvents | Work::SnapshotEntries => {
                    "the trace records every step and the state after it; run without the trace (--trace) or with fewer rows".to_string()
                }
                Work::StateEntries => "the operator writes many state entries per row".to_string(),
            };
            let why = match sliding {
                Some(s) if w != Work::WindowAssignments => format!("{s}, and {why}"),
                _ => why,
            };
            format!(
                "{why}; the run stopped {at}, having done {n} {} (work {} units, past the budget of {}); raise the budget with --max-work",
                w.words(),
                thousands(b.used()),
                thousands(b.max_work()),
            )
        }
    };
    Error::Limit { message }
}

fn arrival_time(plan: &Plan, a: &Arrival) -> i64 {
    match a {
        Arrival::Row(id) => plan.row(*id).arrival,
        Arrival::Watermark { arrival, .. } => *arrival,
    }
}

impl<O: Operator> Sim<'_, '_, O> {
    fn begin(&mut self, cause: Cause) {
        if self.step_count == self.window_toggle {
            self.toggle_window();
        }
        if !matches!(cause, Cause::Row { .. } | Cause::WatermarkRow { .. }) {
            self.step_map.extra.push(self.arrivals_done as u32);
        }
        self.sink.step = self.step_count;
        self.step_count += 1;
        if self.sink.tracing {
            self.steps.push(Step {
                index: self.sink.step,
                cause,
                events: Vec::new(),
                state: Vec::new(),
            });
        }
    }

    /// The trace window's first step turns the trace on, the step after its last one off.
    #[cold]
    #[inline(never)]
    fn toggle_window(&mut self) {
        let Some((from, end)) = self.window else {
            return;
        };
        let on = self.step_count == from;
        if on {
            // Untraced steps leave `touched` set; the window's first step starts clean.
            for s in &mut self.subs {
                s.touched = false;
            }
        }
        self.sink.tracing = on;
        self.window_toggle = if on { end } else { usize::MAX };
    }

    /// The counts and watermarks after the last step before the window.
    fn window_start(&self) -> WindowStart {
        let streams = self.plan.schemas.len();
        let pa = self.plan.assigner_parallelism as usize;
        let channel = |sub: &Sub<O>, st: usize, a: usize| match &sub.inputs {
            Inputs::Single(v) if self.union => v.channel_watermark(st * pa + a),
            Inputs::Single(v) => v.channel_watermark(a),
            Inputs::Two(vs, _) => vs[st].channel_watermark(a),
        };
        WindowStart {
            outputs: self.sink.outputs.len(),
            windows: self.sink.windows.len(),
            late: self.sink.late.len(),
            assigner: self
                .assigners
                .iter()
                .map(|v| v.iter().map(|s| s.a.last_emitted).collect())
                .collect(),
            idle: self
                .assigners
                .iter()
                .map(|v| v.iter().map(|s| s.a.idle).collect())
                .collect(),
            channel: self
                .subs
                .iter()
                .map(|sub| {
                    (0..streams)
                        .map(|st| (0..pa).map(|a| channel(sub, st, a)).collect())
                        .collect()
                })
                .collect(),
            operator: self.subs.iter().map(|s| s.watermark).collect(),
            // As the trace's `OperatorWatermark.output` (`process_watermark`).
            output: self
                .subs
                .iter()
                .map(|s| {
                    let d = s.op.output_watermark_delay();
                    if d == 0 || s.watermark.is_min() {
                        s.watermark
                    } else {
                        Watermark(s.watermark.0.saturating_sub(d))
                    }
                })
                .collect(),
        }
    }

    fn end(&mut self) {
        if self.step_count == self.window_toggle && !self.sink.tracing {
            // After the last step before the window (not at its `begin`: a periodic step's
            // assigners have already emitted by then).
            self.window_start = Some(self.window_start());
        }
        // `touched` and the step's events are only read here, for the trace.
        if self.sink.tracing {
            let events = std::mem::take(&mut self.sink.events);
            let mut bytes = (events.len() * std::mem::size_of::<Event>()) as u64;
            self.sink
                .budget
                .charge(Work::TraceEvents, events.len() as u64);
            let mut state = Vec::new();
            for j in 0..self.subs.len() {
                if self.subs[j].touched {
                    self.subs[j].touched = false;
                    if self.snapshots {
                        // Snapshots grow as steps × state: count the entries before copying
                        // them, and stop taking snapshots past the cap (the state of a later
                        // step is computed on demand, `RunOptions::stop_after`).
                        let s = &self.subs[j];
                        let n = (s.rows + s.timers.len() + s.ptimers.len() + 1) as u64;
                        if self.snapshot_entries.saturating_add(n)
                            > self.plan.limits.max_snapshot_entries
                        {
                            self.snapshots = false;
                            self.snapshots_cut = Some(self.sink.step);
                            continue;
                        }
                        self.snapshot_entries += n;
                        self.sink.budget.charge(Work::SnapshotEntries, n);
                        let snap = self.snapshot(j);
                        bytes += snapshot_bytes(&snap);
                        state.push(snap);
                    }
                }
            }
            self.sink.budget.trace_bytes = self.sink.budget.trace_bytes.saturating_add(bytes);
            if let Some(step) = self.steps.last_mut() {
                step.events = events;
                step.state = state;
            }
            // Traced, the memory estimate after every step (the lean run's is checked every
            // 32 arrivals, in `simulate_inner`).
            let memory = self.memory();
            self.sink.budget.check_memory(memory);
        }

        if self.stopped.is_none() && self.stop_after == Some(self.step_count - 1) {
            self.stopped = Some((0..self.subs.len()).map(|j| self.snapshot(j)).collect());
        }
        if let Some((consumer, chunk)) = self.drain.as_mut() {
            let s = &self.sink;
            if s.outputs.len() + s.windows.len() + s.late.len() >= *chunk {
                self.sink.drain(&mut **consumer);
            }
        }
    }

    fn snapshot(&self, j: usize) -> SubtaskState {
        let s = &self.subs[j];
        let mut timers: Vec<TimerView> = s
            .timers
            .iter()
            .map(|t| TimerView {
                key: t.key,
                timestamp: t.timestamp,
                what: O::describe_timer(&t.namespace),
                processing: false,
            })
            .chain(s.ptimers.iter().map(|t| TimerView {
                key: t.key,
                timestamp: t.timestamp,
                what: O::describe_timer(&t.namespace),
                processing: true,
            }))
            .collect();
        timers.sort_by_key(|t| (t.processing, t.timestamp, t.key));
        SubtaskState {
            subtask: SubtaskIndex(j as u32),
            watermark: s.watermark,
            entries: s.op.state(),
            timers,
        }
    }

    /// Samples subtask `j`'s state size after an operator call (O(1)): updates the totals
    /// and the peaks.
    fn sample(&mut self, j: usize) {
        let s = &mut self.subs[j];
        let (rows, timers) = (s.op.state_rows(), s.timers.len());
        self.total_rows = self.total_rows + rows - s.rows;
        self.total_timers = self.total_timers + timers - s.timer_count;
        (s.rows, s.timer_count) = (rows, timers);
        self.peak_rows = self.peak_rows.max(self.total_rows);
        self.peak_timers = self.peak_timers.max(self.total_timers);
    }

    /// The run's estimated memory after a step (O(1)): state rows and timers as sampled,
    /// results held, the trace so far.
    fn memory(&self) -> Memory {
        use crate::operators::{LateRow, WindowResult};
        use std::mem::size_of;
        let s = &self.sink;
        let timers: usize = self.total_timers;
        Memory {
            // A buffered row: its id and its share of a map entry; a timer: heap entry, set
            // entry and namespace.
            state: (self.total_rows as u64) * 16 + (timers as u64) * 64,
            results: (s.outputs.len() * 32
                + s.output_windows.len() * 24
                + s.windows.len() * size_of::<WindowResult>()
                + s.late.len() * size_of::<LateRow>()) as u64
                // A row id in a window result's list; traced, the result document also lists
                // it in the row's verdict (an output index) and the page's copy of the list.
                + s.budget.result_rows * if self.want_trace { 20 } else { 4 },
            trace: s.budget.trace_bytes + (self.steps.len() * size_of::<Step>()) as u64,
        }
    }

    fn ctx_parts(&mut self, j: usize) -> (&mut Sub<O>, &mut Sink) {
        (&mut self.subs[j], &mut self.sink)
    }

    fn row(&mut self, id: RowId) {
        let plan = self.plan;
        let r = plan.row(id);
        self.begin(Cause::Row {
            row: id,
            stream: r.stream,
            assigner: r.assigner,
            processing_time: r.arrival,
        });
        let j = r.subtask.0 as usize;
        if self.filtered.get(id.0 as usize).copied().unwrap_or(false) {
            // Rejected by the query's WHERE (a Calc between the source and the join): only
            // the watermark generator sees it.
        } else if let Some(ex) = &plan.expand {
            // GROUPING SETS: the planner's Expand copies the row once per set, in order, and
            // each copy goes to the subtask of its own key (crate::grouping_sets).
            for copy in 0..ex.sets.len() {
                let key = ex.key(id.0 as usize, copy);
                let j = plan.keys[key.0 as usize].subtask.0 as usize;
                self.deliver_to(id, j, key, Some(copy));
            }
        } else {
            self.deliver(id, j);
        }
        self.after_row(id);
    }

    /// Routes row `id` to operator subtask `j` and processes it there.
    fn deliver(&mut self, id: RowId, j: usize) {
        let key = self.plan.row(id).key;
        self.deliver_to(id, j, key, None);
    }

    /// Routes row `id` (or its copy number `copy`, keyed `key`) to operator subtask `j`.
    fn deliver_to(&mut self, id: RowId, j: usize, key: KeyId, copy: Option<usize>) {
        let plan = self.plan;
        let r = plan.row(id);
        if self.sink.tracing {
            let keyed = plan.operator != OperatorKind::Split;
            let k = &plan.keys[key.0 as usize];
            self.sink.events.push(Event::Route {
                row: id,
                key: keyed.then_some(key),
                key_group: keyed.then_some(k.key_group),
                subtask: if copy.is_some() { k.subtask } else { r.subtask },
            });
        }
        let now = self.now;
        {
            let (sub, sink) = self.ctx_parts(j);
            sub.touched = true;
            let (op, mut cx) = sub.split(plan, sink, j, now);
            match copy {
                Some(c) => op.process_copy(&mut cx, r.stream, id, c),
                None => op.process_element(&mut cx, r.stream, id),
            }
        }
        self.sample(j);
    }

    /// The generator's part of a row's arrival (after the operator, if the row reached it).
    fn after_row(&mut self, id: RowId) {
        let plan = self.plan;
        let r = plan.row(id);
        // Then the generator sees the event.
        let mut em = std::mem::take(&mut self.emissions);
        em.clear();
        let slot = &mut self.assigners[r.stream.index()][r.assigner as usize];
        if let Some(ts) = r.ts {
            if slot.a.max_ts().is_none_or(|m| ts > m) {
                slot.max_row = Some(id);
            }
        }
        let before = slot.a.last_emitted;
        let candidate = slot.a.on_event(r.ts, &mut em);
        if slot.a.last_emitted != before {
            slot.punctuated = false;
        }
        if self.sink.tracing {
            // A per-event generator computed `candidate`; `WatermarkEmitter.emitWatermark`
            // (TimestampsAndWatermarksOperator) forwards it only when strictly greater than
            // the last watermark sent.
            if let Some(w) = candidate.filter(|&w| w <= before) {
                self.sink.events.push(Event::AssignerHeld {
                    stream: r.stream,
                    assigner: r.assigner,
                    candidate: w,
                    last: before,
                });
            }
        }
        self.broadcast(r.stream, r.assigner, &em, None);
        self.emissions = em;
        self.end();
    }

    /// Sends an assigner subtask's emissions to every operator subtask (`broadcastEmit`).
    /// With `defer`, watermark advances are only recorded there, per subtask (end of input:
    /// one jump).
    fn broadcast(
        &mut self,
        stream: Side,
        assigner: u32,
        em: &[Emission],
        mut defer: Option<&mut [Option<Watermark>]>,
    ) {
        if em.is_empty() {
            return;
        }
        if self.sink.tracing {
            for e in em {
                match e {
                    Emission::Watermark(w) => {
                        let slot = &self.assigners[stream.index()][assigner as usize];
                        let from_row = if w.is_max() { None } else { slot.max_row };
                        self.sink.events.push(Event::AssignerWatermark {
                            stream,
                            assigner,
                            watermark: *w,
                            from_row,
                        });
                    }
                    Emission::Idle => self.sink.events.push(Event::AssignerStatus {
                        stream,
                        assigner,
                        idle: true,
                    }),
                    Emission::Active => self.sink.events.push(Event::AssignerStatus {
                        stream,
                        assigner,
                        idle: false,
                    }),
                }
            }
        }
        let pa = self.plan.assigner_parallelism as usize;
        let tracing = self.sink.tracing;
        // Reused scratch buffers: no allocation per row.
        let mut outs = std::mem::take(&mut self.scratch_outs);
        let mut advances = std::mem::take(&mut self.scratch_advances);
        #[allow(clippy::needless_range_loop)] // `self` is borrowed mutably inside the loop
        for j in 0..self.subs.len() {
            for e in em {
                advances.clear();
                {
                    outs.clear();
                    let (input, ch) = match (&self.subs[j].inputs, self.union) {
                        (Inputs::Single(_), true) => (0, stream.index() * pa + assigner as usize),
                        (Inputs::Single(_), false) => (0, assigner as usize),
                        (Inputs::Two(..), _) => (stream.index(), assigner as usize),
                    };
                    let sub = &mut self.subs[j];
                    if let Emission::Watermark(w) = e {
                        // A pre-shuffle operator chained to the assigner sees the watermark
                        // first (and may send this subtask records ahead of it).
                        let plan = self.plan;
                        let now = self.now;
                        let (op, mut cx) = sub.split(plan, &mut self.sink, j, now);
                        op.on_channel_watermark(&mut cx, stream, assigner, *w);
                    }
                    let valve = match &mut sub.inputs {
                        Inputs::Single(v) => v,
                        Inputs::Two(vs, _) => &mut vs[input],
                    };
                    match e {
                        Emission::Watermark(w) => {
                            if tracing && valve.channel_active(ch) {
                                self.sink.events.push(Event::ChannelWatermark {
                                    subtask: SubtaskIndex(j as u32),
                                    stream,
                                    assigner,
                                    watermark: *w,
                                });
                            }
                            valve.input_watermark(*w, ch, &mut outs)
                        }
                        Emission::Idle => valve.input_status(true, ch, &mut outs),
                        Emission::Active => valve.input_status(false, ch, &mut outs),
                    }
                    for &o in &outs {
                        let adv = match (&mut sub.inputs, o) {
                            (Inputs::Single(_), ValveOutput::Watermark(w)) => Some(w),
                            (Inputs::Single(_), _) => None,
                            (Inputs::Two(_, c), ValveOutput::Watermark(w)) => {
                                c.update_watermark(input, w)
                            }
                            (Inputs::Two(_, c), ValveOutput::Idle) => {
                                c.update_status(input, true).0
                            }
                            (Inputs::Two(_, c), ValveOutput::Active) => {
                                c.update_status(input, false).0
                            }
                        };
                        advances.extend(adv);
                    }
                }
                for &w in &advances {
                    match defer.as_deref_mut() {
                        Some(pending) => pending[j] = Some(w),
                        None => self.advance(j, w),
                    }
                }
            }
        }
        self.scratch_outs = outs;
        self.scratch_advances = advances;
    }

    /// Where subtask `j`'s watermark `w` comes from: a channel whose watermark equals it.
    fn origin_of(&self, j: usize, w: Watermark) -> Option<WatermarkOrigin> {
        let pa = self.plan.assigner_parallelism as usize;
        let find = |v: &Valve| -> Option<usize> {
            (0..v.channel_count())
                .filter(|&c| v.channel_watermark(c) == w)
                .min_by_key(|&c| !v.channel_active(c))
        };
        let (stream, assigner) = match &self.subs[j].inputs {
            Inputs::Single(v) => {
                let c = find(v)?;
                if self.union {
                    (if c < pa { Side::Left } else { Side::Right }, c % pa)
                } else {
                    (Side::Left, c)
                }
            }
            Inputs::Two(vs, comb) => {
                let first = comb.min_input();
                let (i, c) = find(&vs[first])
                    .map(|c| (first, c))
                    .or_else(|| find(&vs[1 - first]).map(|c| (1 - first, c)))?;
                (if i == 0 { Side::Left } else { Side::Right }, c)
            }
        };
        let slot = &self.assigners[stream.index()][assigner];
        let eoi = w.is_max();
        // Only timestamp-driven strategies derive the watermark from the max timestamp; with
        // `WM` rows the watermark is what the row said.
        let from_data = !eoi && !slot.punctuated && slot.a.last_emitted == w;
        Some(WatermarkOrigin {
            stream,
            assigner: assigner as u32,
            max_ts: if from_data { slot.a.max_ts() } else { None },
            from_row: if from_data { slot.max_row } else { None },
            end_of_input: eoi,
        })
    }

    /// `processWatermark(w)` of subtask `j`: fire event-time timers up to `w`, then forward.
    fn advance(&mut self, j: usize, w: Watermark) {
        let origin = if self.want_origin {
            self.origin_of(j, w)
        } else {
            None
        };
        let plan = self.plan;
        let now = self.now;
        let (sub, sink) = self.ctx_parts(j);
        sub.touched = true;
        sub.origin = origin;
        {
            let (op, mut cx) = sub.split(plan, sink, j, now);
            op.on_watermark(&mut cx, w);
        }
        sub.watermark = w;
        sub.fire_due(plan, sink, j, now, false, w.0);
        let tracing = sink.tracing;
        self.sample(j);
        let (sub, sink) = self.ctx_parts(j);
        if tracing {
            let d = sub.op.output_watermark_delay();
            let output = if d == 0 || w.is_min() {
                w
            } else {
                Watermark(w.0.saturating_sub(d))
            };
            sink.events.push(Event::OperatorWatermark {
                subtask: SubtaskIndex(j as u32),
                watermark: w,
                output,
            });
        }
    }

    /// Moves simulated processing time to `t`: periodic watermark emits and processing-time
    /// timers due before it fire, in time order (periodic emits first at equal times).
    fn advance_processing_time(&mut self, t: i64) {
        if !self.any_periodic && self.subs.iter().all(|s| s.ptimers.is_empty()) {
            // Nothing can fire: no periodic emission and no processing-time timer.
            self.now = self.now.max(t);
            return;
        }
        loop {
            let tick = self
                .assigners
                .iter()
                .flatten()
                .filter(|s| s.interval > 0)
                .filter_map(|s| s.a.next_interesting_tick(self.now, s.interval))
                .min();
            let ptimer = self
                .subs
                .iter()
                .filter_map(|s| s.ptimers.peek_timestamp())
                .min();
            match (tick, ptimer) {
                (Some(tk), p) if tk <= t && p.is_none_or(|p| tk <= p) => self.periodic(tk),
                (_, Some(p)) if p <= t => self.fire_processing_timers(p),
                _ => break,
            }
        }
        self.now = self.now.max(t);
    }

    fn periodic(&mut self, tick: i64) {
        self.now = tick;
        let mut all = Vec::new();
        // Candidates the emitter did not forward (traced only): reported in this tick's step
        // when it has one. A tick at which no assigner forwards anything makes no step (and
        // `Assigner::next_interesting_tick` skips most of them), so its held candidates are
        // not reported.
        let mut held = Vec::new();
        // Whether the step this tick may begin is traced (`begin` turns a trace window on or
        // off before the step's events).
        let tracing = if self.step_count == self.window_toggle {
            self.window.is_some_and(|(from, _)| self.step_count == from)
        } else {
            self.sink.tracing
        };
        for (si, stream) in self.assigners.iter_mut().enumerate() {
            for (a, slot) in stream.iter_mut().enumerate() {
                if slot.interval > 0 && tick.rem_euclid(slot.interval) == 0 {
                    let mut em = Vec::new();
                    let before = slot.a.last_emitted;
                    let candidate = slot.a.on_periodic(tick, &mut em);
                    if slot.a.last_emitted != before {
                        slot.punctuated = false;
                    }
                    if tracing {
                        if let Some(w) = candidate.filter(|&w| w <= before) {
                            held.push(Event::AssignerHeld {
                                stream: if si == 0 { Side::Left } else { Side::Right },
                                assigner: a as u32,
                                candidate: w,
                                last: before,
                            });
                        }
                    }
                    if !em.is_empty() {
                        all.push((si, a, em));
                    }
                }
            }
        }
        if all.is_empty() {
            return;
        }
        self.begin(Cause::PeriodicEmit {
            processing_time: tick,
        });
        if self.sink.tracing {
            self.sink.events.append(&mut held);
        }
        for (si, a, em) in all {
            let side = if si == 0 { Side::Left } else { Side::Right };
            self.broadcast(side, a as u32, &em, None);
        }
        self.end();
    }

    fn fire_processing_timers(&mut self, t: i64) {
        self.now = t;
        self.begin(Cause::ProcessingTime { processing_time: t });
        let plan = self.plan;
        for j in 0..self.subs.len() {
            let (sub, sink) = self.ctx_parts(j);
            sub.fire_due(plan, sink, j, t, true, t);
            self.sample(j);
        }
        self.end();
    }

    /// End of input: each source emits `Watermark(Long.MAX_VALUE)`; every operator subtask
    /// sees it as one jump of its watermark to +∞ (the order in which the channels finish is
    /// not deterministic in Flink).
    fn end_of_input(&mut self) {
        self.before_end = Some(BeforeEnd {
            assigner: self
                .assigners
                .iter()
                .map(|v| v.iter().map(|s| s.a.last_emitted).collect())
                .collect(),
            idle: self
                .assigners
                .iter()
                .map(|v| v.iter().map(|s| s.a.idle).collect())
                .collect(),
            operator: self.subs.iter().map(|s| s.watermark).collect(),
        });
        let final_wm = self.plan.scenario.job.final_watermark;
        self.begin(Cause::EndOfInput {
            final_watermark: final_wm,
        });
        if final_wm {
            let mut pending: Vec<Option<Watermark>> = vec![None; self.subs.len()];
            for si in 0..self.assigners.len() {
                for a in 0..self.assigners[si].len() {
                    let mut em = Vec::new();
                    self.assigners[si][a].a.end_of_input(&mut em);
                    let side = if si == 0 { Side::Left } else { Side::Right };
                    self.broadcast(side, a as u32, &em, Some(&mut pending));
                }
            }
            for (j, p) in pending.into_iter().enumerate() {
                if let Some(w) = p {
                    self.advance(j, w);
                }
            }
        }
        self.end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::RowKind;
    use crate::plan::{build, Limits};
    use crate::scenario::Scenario;
    use crate::timers::Timer;
    use crate::trace::StateEntry;

    /// A probe operator: registers an event-time timer at each row's timestamp and emits the
    /// row when it fires, so outputs show exactly when each subtask's watermark passed it.
    struct Probe;

    impl Operator for Probe {
        type Ns = RowId;
        fn new(_plan: &Plan, _subtask: SubtaskIndex) -> Self {
            Probe
        }
        fn process_element(&mut self, cx: &mut Ctx<'_, RowId>, _side: Side, row: RowId) {
            let r = cx.plan.row(row);
            cx.register_event_timer(r.key, r.ts.unwrap_or(0), row);
        }
        fn on_event_time(&mut self, cx: &mut Ctx<'_, RowId>, timer: Timer<KeyId, RowId>) {
            let w = cx.watermark;
            cx.emit(
                Some(timer.namespace),
                None,
                Some(w.0),
                RowKind::Insert,
                None,
            );
        }
        fn describe_timer(ns: &RowId) -> String {
            format!("row {}", ns.0)
        }
        fn state(&self) -> Vec<StateEntry> {
            Vec::new()
        }
        fn is_empty(&self) -> bool {
            true
        }
    }

    fn traced(p: &Plan) -> RunOutput {
        simulate::<Probe>(
            p,
            &RunOptions {
                trace: true,
                ..RunOptions::default()
            },
        )
        .unwrap()
    }

    fn plan(json: &str) -> Plan {
        build(&Scenario::from_json(json).unwrap(), Limits::default()).unwrap()
    }

    /// (row line, step, watermark at firing) for each firing.
    fn firings(p: &Plan) -> Vec<(u32, usize, i64)> {
        let out = traced(p);
        out.sink
            .outputs
            .iter()
            .map(|o| {
                (
                    p.row(o.left.unwrap()).line,
                    o.step(),
                    o.timestamp().unwrap(),
                )
            })
            .collect()
    }

    #[test]
    fn minimum_over_channels_holds_back_until_every_subtask_advanced() {
        // Seed 003: parallelism 2, round robin; the first row reaches assigner 0 only.
        let p = plan(
            r#"{"job":{"operator":"interval_join","parallelism":2,"watermark":{"delay":"2s"}},
            "streams":[{"name":"a","columns":["k","ts"],"key":"k","time":"ts","rows":"x, 199s\nx, 203s\nx, 203s\nx, 210s"},
                       {"name":"b","columns":["k","ts"],"key":"k","time":"ts","rows":"x, 0 | s=0\nx, 0 | s=1"}]}"#,
        );
        let f = firings(&p);
        // b's rows come first (ts 0): b's watermark stays at -1 until end of input, so
        // nothing fires before the final watermark.
        assert!(f.iter().all(|(_, _, w)| *w == i64::MAX), "{f:?}");
        let p = plan(
            r#"{"job":{"operator":"window_aggregate","parallelism":2,"watermark":{"delay":"2s"}},
            "streams":[{"name":"a","columns":["k","ts"],"key":"k","time":"ts","rows":"x, 199000\nx, 203000\nx, 203000\nx, 210000"}]}"#,
        );
        let out = traced(&p);
        let wms: Vec<(usize, Watermark)> = out
            .steps
            .iter()
            .flat_map(|s| {
                s.events.iter().filter_map(move |e| match e {
                    Event::OperatorWatermark {
                        subtask, watermark, ..
                    } if subtask.0 == 0 => Some((s.index, *watermark)),
                    _ => None,
                })
            })
            .collect();
        // Row 1 → assigner 0 (197000), row 2 → assigner 1 (201000): min 197000 after step 1;
        // row 3 → assigner 0 (201000): 201000; row 4 → assigner 1 (208000): min 201000, no change.
        assert_eq!(
            wms,
            vec![
                (1, Watermark(196_999)),
                (2, Watermark(200_999)),
                (4, Watermark::MAX)
            ]
        );
        // The 199000 timer fires at the first watermark ≥ 199000, i.e. 200999 in step 2.
        let f: Vec<_> = out
            .sink
            .outputs
            .iter()
            .map(|o| {
                (
                    p.row(o.left.unwrap()).line,
                    o.step(),
                    o.timestamp().unwrap(),
                )
            })
            .collect();
        assert_eq!(f[0], (1, 2, 200_999));
    }

    #[test]
    fn two_inputs_take_the_minimum_and_end_of_input_is_one_jump() {
        let p = plan(
            r#"{"job":{"operator":"interval_join"},
            "streams":[{"name":"a","columns":["k","ts"],"key":"k","time":"ts","rows":"x, 10\nx, 30\nx, 31"},
                       {"name":"b","columns":["k","ts"],"key":"k","time":"ts","rows":"x, 20"}]}"#,
        );
        let f = firings(&p);
        // Arrival by time: a10, b20, a30, a31. After b20: min(9, 19) = 9 → timer 10 not yet.
        // After a30: min(29, 19) = 19 → fires 10. a31: min(30, 19) unchanged. End: MAX fires
        // 20, 30, 31 in heap order.
        assert_eq!(f[0], (1, 2, 19));
        assert_eq!(f.len(), 4);
        assert!(
            f[1..]
                .iter()
                .all(|(_, step, w)| *w == i64::MAX && *step == 4),
            "{f:?}"
        );
        let lines: Vec<u32> = f[1..].iter().map(|x| x.0).collect();
        assert_eq!(lines, vec![1, 2, 3]); // b:1 (ts 20), a:2 (30), a:3 (31)
    }

    #[test]
    fn an_idle_assigner_stops_holding_back_the_watermark() {
        // Assigner 1 of stream a gets one early row and then nothing: with idleness it is
        // excluded and the watermark follows assigner 0.
        let json = |idle: &str| {
            format!(
                r#"{{"job":{{"operator":"window_aggregate","parallelism":2,"watermark":{{"per_event":false,"interval":100{idle}}}}},
                "streams":[{{"name":"a","columns":["k","ts"],"key":"k","time":"ts","rows":"x, 1000 | s=1\nx, 1100 | s=0\nx, 2000 | s=0\nx, 3000 | s=0\nx, 4000 | s=0"}}]}}"#
            )
        };
        let without = plan(&json(""));
        let f = firings(&without);
        // Without idleness assigner 1 stays at 999: rows above 999 fire only at the end.
        assert!(
            f.iter().filter(|x| x.0 > 1).all(|x| x.2 == i64::MAX),
            "{f:?}"
        );
        let with = plan(&json(r#","idle_timeout":500"#));
        let f = firings(&with);
        assert!(
            f.iter().any(|x| x.0 == 2 && x.2 < i64::MAX),
            "row at 1100 fires before the end once assigner 1 is idle: {f:?}"
        );
    }

    #[test]
    fn periodic_emission_happens_at_multiples_of_the_interval() {
        let p = plan(
            r#"{"job":{"operator":"window_aggregate","watermark":{"per_event":false,"interval":200}},
            "streams":[{"name":"a","columns":["k","ts"],"key":"k","time":"ts","rows":"x, 100\nx, 150\nx, 450"}]}"#,
        );
        let out = traced(&p);
        let periodic: Vec<i64> = out
            .steps
            .iter()
            .filter_map(|s| match s.cause {
                Cause::PeriodicEmit { processing_time } => Some(processing_time),
                _ => None,
            })
            .collect();
        // Tick 200 emits 149; tick 400 has nothing new (max still 150); tick 600 is after the
        // last arrival (450) and never happens before end of input.
        assert_eq!(periodic, vec![200]);
    }

    /// (step, stream, assigner, candidate, last) of every `AssignerHeld` event.
    fn held(p: &Plan) -> Vec<(usize, Side, u32, i64, i64)> {
        traced(p)
            .steps
            .iter()
            .flat_map(|s| {
                s.events.iter().filter_map(move |e| match e {
                    Event::AssignerHeld {
                        stream,
                        assigner,
                        candidate,
                        last,
                    } => Some((s.index, *stream, *assigner, candidate.0, last.0)),
                    _ => None,
                })
            })
            .collect()
    }

    #[test]
    fn a_watermark_not_above_the_last_one_is_held_and_traced() {
        // Per event, delay 1 s: 5000 → 3999 forwarded; 3000 leaves the max at 5000, so the
        // generator computes 3999 again (BoundedOutOfOrdernessWatermarks: maxTs − delay − 1),
        // held (not above 3999); 5000 again → 3999 held; 7000 → 5999 forwarded.
        let p = plan(
            r#"{"job":{"operator":"window_aggregate","watermark":{"delay":"1s"}},
            "streams":[{"name":"a","columns":["k","ts"],"key":"k","time":"ts","rows":"x, 5000\nx, 3000 | a=5000\nx, 5000\nx, 7000"}]}"#,
        );
        assert_eq!(
            held(&p),
            vec![
                (1, Side::Left, 0, 3999, 3999),
                (2, Side::Left, 0, 3999, 3999)
            ]
        );
        // A `WM` row below the last watermark is held too.
        let p = plan(
            r#"{"job":{"operator":"window_aggregate","watermark":{"strategy":"punctuated"}},
            "streams":[{"name":"a","columns":["k","ts"],"key":"k","time":"ts","rows":"WM 10\nx, 5\nWM 7"}]}"#,
        );
        assert_eq!(held(&p), vec![(2, Side::Left, 0, 7, 10)]);
        // Periodic: at the 400 tick assigner 0 forwards 1499 while assigner 1's candidate
        // (999, from its only row) is not above what it sent at the 200 tick.
        let p = plan(
            r#"{"job":{"operator":"window_aggregate","parallelism":2,"watermark":{"per_event":false,"interval":200}},
            "streams":[{"name":"a","columns":["k","ts"],"key":"k","time":"ts","rows":"x, 100 | s=0, a=100\nx, 1000 | s=1, a=100\nx, 1500 | s=0, a=300\nx, 1600 | s=0, a=500"}]}"#,
        );
        let h = held(&p);
        assert!(
            h.iter()
                .any(|x| x.1 == Side::Left && x.2 == 1 && x.3 == 999 && x.4 == 999),
            "{h:?}"
        );
        // Untraced runs record no events at all.
        let out = simulate::<Probe>(&p, &RunOptions::default()).unwrap();
        assert!(out.steps.is_empty() && out.sink.events.is_empty());
    }
}
