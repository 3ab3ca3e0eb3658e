//! The peak state of a run, sampled by a probe around the operator or read from a trace.

use super::*;

/// Peak buffered state of a run, sampled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PeakState {
    /// Largest number of rows held in operator state (all subtasks, summed at the sample).
    pub rows: usize,
    /// Largest number of state entries (a key's timestamp bucket, a window, …).
    pub entries: usize,
    /// Largest number of pending event-time timers (all subtasks).
    pub timers: usize,
    /// Samples taken.
    pub samples: usize,
}

#[derive(Default)]
pub(super) struct ProbeGlobal {
    every: usize,
    /// Per subtask: (rows, entries, timers) at its last sample.
    current: Vec<(usize, usize, usize)>,
    peak: PeakState,
}

thread_local! {
    static PROBE: RefCell<ProbeGlobal> = RefCell::new(ProbeGlobal::default());
}

/// An operator wrapper that samples the wrapped operator's state (`state()`) every
/// `every` elements per subtask, and after every event-time timer batch that follows a
/// sample point, to find the peak buffered state. It changes nothing the operator does.
pub struct Probe<O: Operator> {
    inner: O,
    subtask: usize,
    seen: usize,
}

impl<O: Operator> Probe<O> {
    fn sample(&self, timers: usize) {
        let st = self.inner.state();
        let rows = st.iter().map(|e| e.rows.len()).sum();
        let entries = st.len();
        PROBE.with(|p| {
            let mut p = p.borrow_mut();
            if p.current.len() <= self.subtask {
                p.current.resize(self.subtask + 1, (0, 0, 0));
            }
            p.current[self.subtask] = (rows, entries, timers);
            let (r, e, t) = p
                .current
                .iter()
                .fold((0, 0, 0), |a, c| (a.0 + c.0, a.1 + c.1, a.2 + c.2));
            p.peak.rows = p.peak.rows.max(r);
            p.peak.entries = p.peak.entries.max(e);
            p.peak.timers = p.peak.timers.max(t);
            p.peak.samples += 1;
        });
    }
}

impl<O: Operator> Operator for Probe<O> {
    type Ns = O::Ns;

    fn new(plan: &Plan, subtask: SubtaskIndex) -> Self {
        Probe {
            inner: O::new(plan, subtask),
            subtask: subtask.0 as usize,
            seen: 0,
        }
    }

    fn process_element(&mut self, cx: &mut Ctx<'_, Self::Ns>, side: Side, row: RowId) {
        self.inner.process_element(cx, side, row);
        self.seen += 1;
        let every = PROBE.with(|p| p.borrow().every);
        if self.seen.is_multiple_of(every) {
            self.sample(cx.timers.len());
        }
    }

    fn on_event_time(&mut self, cx: &mut Ctx<'_, Self::Ns>, timer: Timer<KeyId, Self::Ns>) {
        self.inner.on_event_time(cx, timer)
    }

    fn on_processing_time(&mut self, cx: &mut Ctx<'_, Self::Ns>, timer: Timer<KeyId, Self::Ns>) {
        self.inner.on_processing_time(cx, timer)
    }

    fn describe_timer(ns: &Self::Ns) -> String {
        O::describe_timer(ns)
    }

    fn state(&self) -> Vec<StateEntry> {
        self.inner.state()
    }

    fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    fn state_rows(&self) -> usize {
        self.inner.state_rows()
    }

    fn output_watermark_delay(&self) -> i64 {
        self.inner.output_watermark_delay()
    }
}

/// Runs a plan with its operator wrapped in a [`Probe`] sampling every `every` elements per
/// subtask; returns the run and its peak state. Much slower than [`crate::run_plan`]
/// (each sample walks the whole state): use it for state figures, not for timing.
pub fn run_probed(plan: &Plan, every: usize) -> Result<(RunOutput, PeakState), Error> {
    PROBE.with(|p| {
        *p.borrow_mut() = ProbeGlobal {
            every: every.max(1),
            ..ProbeGlobal::default()
        }
    });
    let opts = RunOptions {
        trace: false,
        ..RunOptions::default()
    };
    let out = match plan.operator {
        OperatorKind::WindowJoin | OperatorKind::WindowAggregate => {
            crate::sim::simulate::<Probe<WindowOperator>>(plan, &opts)
        }
        OperatorKind::IntervalJoin => crate::sim::simulate::<Probe<IntervalJoin>>(plan, &opts),
        OperatorKind::SqlIntervalJoin => {
            crate::sim::simulate::<Probe<SqlIntervalJoin>>(plan, &opts)
        }
        OperatorKind::RegularJoin => crate::sim::simulate::<Probe<RegularJoin>>(plan, &opts),
        OperatorKind::Split => crate::sim::simulate::<Probe<Split>>(plan, &opts),
        OperatorKind::WindowTvfAggregate
        | OperatorKind::WindowTvfJoin
        | OperatorKind::TemporalJoin
        | OperatorKind::LookupJoin => crate::run_plan(plan, &opts),
    }?;
    let peak = PROBE.with(|p| p.borrow().peak);
    Ok((out, peak))
}

/// Peak state from a traced run: the largest number of rows in the state snapshots the trace
/// holds (each step has the state of the subtasks it touched).
pub fn peak_state_from_trace(out: &RunOutput) -> PeakState {
    let mut current: Vec<(usize, usize, usize)> = vec![(0, 0, 0); out.watermarks.len()];
    let mut peak = PeakState::default();
    for step in &out.steps {
        for s in &step.state {
            let rows = s.entries.iter().map(|e| e.rows.len()).sum();
            current[s.subtask.0 as usize] = (
                rows,
                s.entries.len(),
                s.timers.iter().filter(|t| !t.processing).count(),
            );
        }
        let (r, e, t) = current
            .iter()
            .fold((0, 0, 0), |a, c| (a.0 + c.0, a.1 + c.1, a.2 + c.2));
        peak.rows = peak.rows.max(r);
        peak.entries = peak.entries.max(e);
        peak.timers = peak.timers.max(t);
        peak.samples += 1;
    }
    peak
}

/// Number of late rows reported by a run.
pub fn late_rows(out: &RunOutput) -> usize {
    out.sink.late.len()
}
