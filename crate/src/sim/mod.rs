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

mod hooks;
mod limits;
mod steps;
#[cfg(test)]
mod tests;
mod watermarks;

use hooks::{report_progress, PROGRESS, TRACE_WINDOW};
pub use hooks::{with_progress, with_trace_window};
use limits::{limit_error, snapshot_bytes};

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
    /// The processing clock when each of those steps began.
    extra_time: Vec<i64>,
}

impl StepMap {
    /// The step that arrival `i` (an index into `Plan::arrivals`) started.
    pub fn arrival_step(&self, i: usize) -> usize {
        i + self.extra.partition_point(|&a| (a as usize) <= i)
    }

    /// The simulated processing time of every step, in step order: the clock when the step
    /// began (an arrival moves it to its arrival time, never back). One entry per step: built
    /// only for what asks for it (a query's `PROCTIME()` column).
    pub fn step_times(&self, plan: &Plan) -> Vec<i64> {
        let mut times = Vec::with_capacity(plan.arrivals.len() + self.extra.len());
        let mut clock = plan
            .arrivals
            .first()
            .map(|a| arrival_time(plan, &a))
            .unwrap_or(0);
        let mut j = 0;
        for (i, ref a) in plan.arrivals.iter().enumerate() {
            while j < self.extra.len() && (self.extra[j] as usize) <= i {
                clock = clock.max(self.extra_time[j]);
                times.push(clock);
                j += 1;
            }
            clock = clock.max(arrival_time(plan, a));
            times.push(clock);
        }
        for &t in &self.extra_time[j..] {
            clock = clock.max(t);
            times.push(clock);
        }
        times
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
            // Borrowed: only a late row reads it (`Ctx::late`).
            origin: &self.origin,
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
    /// No step of the run is traced or stopped at, and rows are not copied per grouping
    /// set: an arrival's step is [`Sim::row_lean`], which does only what the result needs.
    lean: bool,
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
            timers: if O::unique_timers(plan) {
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
            .map(|a| arrival_time(plan, &a))
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
        lean: !opts.trace && window.is_none() && stop_after.is_none() && plan.expand.is_none(),
    };
    if window.is_some_and(|(from, _)| from == 0) {
        sim.window_start = Some(sim.window_start());
    }
    for (i, ref a) in plan.arrivals.iter().enumerate() {
        progress_countdown -= 1;
        if progress_countdown == 0 {
            progress_countdown = progress_every.unwrap_or(usize::MAX);
            report_progress(i, plan.arrivals.len());
        }
        sim.arrivals_done = i;
        sim.sink.arrivals_read = i;
        let t = arrival_time(plan, a);
        sim.advance_processing_time(t);
        sim.sink.arrivals_read = i + 1;
        match a {
            Arrival::Row(id) if sim.lean => sim.row_lean(*id),
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
        sim.sink.arrivals_read = plan.arrivals.len();
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

fn arrival_time(plan: &Plan, a: &Arrival) -> i64 {
    match a {
        Arrival::Row(id) => plan.row(*id).arrival,
        Arrival::Watermark { arrival, .. } => *arrival,
    }
}

impl<O: Operator> Sim<'_, '_, O> {
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

    /// [`Sim::row`] of a lean run (see [`Sim::lean`]): the same work for the operator, the
    /// generator, the watermarks and the budgets, without what only the trace reads (the
    /// step's cause and events, `touched`, the trace window's and `stop_after`'s checks).
    /// Only a watermark the generator forwarded goes through the valves.
    #[inline]
    fn row_lean(&mut self, id: RowId) {
        let plan = self.plan;
        let r = plan.row(id);
        debug_assert!(self.lean && !self.sink.tracing && self.window_toggle == usize::MAX);
        // `begin`: the step's number.
        self.sink.step = self.step_count;
        self.step_count += 1;
        let j = r.subtask.0 as usize;
        if !self.filtered.get(id.0 as usize).copied().unwrap_or(false) {
            let now = self.now;
            let (op, mut cx) = self.subs[j].split(plan, &mut self.sink, j, now);
            op.process_element(&mut cx, r.stream, id);
            self.sample(j);
        }
        // `after_row`: the generator sees the event.
        let slot = &mut self.assigners[r.stream.index()][r.assigner as usize];
        if let Some(ts) = r.ts {
            if slot.a.max_ts().is_none_or(|m| ts > m) {
                slot.max_row = Some(id);
            }
        }
        let mut em = std::mem::take(&mut self.emissions);
        em.clear();
        let before = slot.a.last_emitted;
        slot.a.on_event(r.ts, &mut em);
        if !em.is_empty() {
            if slot.a.last_emitted != before {
                slot.punctuated = false;
            }
            self.broadcast(r.stream, r.assigner, &em, None);
        }
        self.emissions = em;
        // `end`: only the drain.
        if let Some((consumer, chunk)) = self.drain.as_mut() {
            let s = &self.sink;
            if s.outputs.len() + s.windows.len() + s.late.len() >= *chunk {
                self.sink.drain(&mut **consumer);
            }
        }
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
}
