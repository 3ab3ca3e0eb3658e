//! Work and memory budgets of a run.
//!
//! A scenario of a few hundred characters can ask for an enormous amount of work: a sliding
//! window of 10 s sliding by 1 ms puts every row in 10,000 windows; session windows with no
//! watermark and rows in reverse order merge in O(n²); a traced run keeps a state snapshot
//! per step, so its size grows as steps × state. Row counts say nothing about that, so the
//! engine counts the work itself: every operator charges what it does to the run's
//! [`Budget`] (`Ctx::charge`), the simulator charges timer firings, results and the trace,
//! and estimates the memory the run holds (state, results, trace) after every step. A run
//! past either budget stops with [`crate::error::Error::Limit`], naming what grew, how far,
//! and the setting that made it grow ([`crate::sim`] builds the message).
//!
//! The budgets are [`crate::plan::Limits::max_work`] and [`crate::plan::Limits::max_memory`];
//! the CLI raises them with `--max-work` and `--max-memory`.
//!
//! Cost: per charge two adds, a multiply by the kind's weight (a constant once inlined) and
//! a compare, no allocation; timer firings are charged per batch, the memory estimate is
//! taken every 32 arrivals (every step when tracing).
//! The benchmarks run the same code, with unlimited budgets.

/// What a unit of work is. Each kind has a weight ([`Work::weight`]) so that a unit costs
/// roughly the same time whatever its kind (about 3 ns native: the cheapest unit, one step
/// of the session merge sweep, weighs 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Work {
    /// A row assigned to one window (`WindowAssigner.assignWindows`, one per window).
    WindowAssignments = 0,
    /// A pair of rows tried by a join (results themselves are bounded by
    /// `Limits::max_outputs`).
    PairsTried = 1,
    /// One in-flight window looked at while merging a new session window
    /// (`MergingWindowSet.addWindow`).
    MergeSteps = 2,
    /// A state entry written (a row added to a buffer, a window's accumulator).
    StateEntries = 3,
    /// A timer fired (event time or processing time).
    TimerFirings = 4,
    /// A trace event recorded.
    TraceEvents = 5,
    /// A state entry or pending timer copied into a traced step's snapshot.
    SnapshotEntries = 6,
    /// A row copied into a result (the row list of a window result).
    ResultRows = 7,
}

impl Work {
    /// Every kind, in declaration order.
    pub const ALL: [Work; 8] = [
        Work::WindowAssignments,
        Work::PairsTried,
        Work::MergeSteps,
        Work::StateEntries,
        Work::TimerFirings,
        Work::TraceEvents,
        Work::SnapshotEntries,
        Work::ResultRows,
    ];

    /// Work units per unit of this kind (measured ratios of native time, rounded).
    pub const fn weight(self) -> u64 {
        match self {
            Work::MergeSteps => 1,
            Work::PairsTried | Work::ResultRows => 2,
            Work::WindowAssignments
            | Work::StateEntries
            | Work::TimerFirings
            | Work::TraceEvents
            | Work::SnapshotEntries => 10,
        }
    }

    /// What is counted, in words, plural.
    pub fn words(self) -> &'static str {
        match self {
            Work::WindowAssignments => "window assignments",
            Work::PairsTried => "pairs tried",
            Work::MergeSteps => "session window merge steps",
            Work::StateEntries => "state entries written",
            Work::TimerFirings => "timer firings",
            Work::TraceEvents => "trace events",
            Work::SnapshotEntries => "state snapshot entries in the trace",
            Work::ResultRows => "rows copied into window results",
        }
    }
}

const WEIGHTS: [u64; 8] = {
    let mut w = [0; 8];
    let mut i = 0;
    while i < 8 {
        w[i] = Work::ALL[i].weight();
        i += 1;
    }
    w
};

/// Which budget a run went past.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exceeded {
    /// The work budget, while charging this kind.
    Work(Work),
    /// The memory budget (an estimate in bytes, see [`Memory`]).
    Memory,
}

/// The run's estimated memory: what it holds that grows with the input and the settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    /// Operator state (buffered rows, window contents) and pending timers.
    pub state: u64,
    /// Results held (outputs, window results with their row lists, late rows).
    pub results: u64,
    /// The trace recorded so far (events and state snapshots).
    pub trace: u64,
}

impl Memory {
    pub fn total(&self) -> u64 {
        self.state
            .saturating_add(self.results)
            .saturating_add(self.trace)
    }
}

/// The work done so far and the budgets; lives in the run's `Sink`.
#[derive(Clone, Debug)]
pub struct Budget {
    /// Weighted work units used.
    used: u64,
    max_work: u64,
    max_memory: u64,
    /// Units (unweighted) charged per kind.
    counts: [u64; 8],
    /// Estimated bytes of the trace (added to as it is recorded).
    pub(crate) trace_bytes: u64,
    /// Rows copied into window results so far (their memory, 4 bytes each).
    pub(crate) result_rows: u64,
    /// The last memory estimate that was checked.
    pub(crate) memory: Memory,
    exceeded: Option<Exceeded>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget::new(u64::MAX, u64::MAX)
    }
}

impl Budget {
    /// A budget of `max_work` weighted units and `max_memory` estimated bytes.
    pub fn new(max_work: u64, max_memory: u64) -> Budget {
        Budget {
            used: 0,
            max_work,
            max_memory,
            counts: [0; 8],
            trace_bytes: 0,
            result_rows: 0,
            memory: Memory::default(),
            exceeded: None,
        }
    }

    /// Counts `n` units of `work`; `false` once the run is past its work budget (the caller
    /// may stop early; the simulator stops the run after the step either way).
    ///
    /// Plain (wrapping) arithmetic, on the hot path: a charge is at most a few times the
    /// length of something in memory (< 2^48), so the sums cannot wrap before 2^60 units of
    /// work, centuries of it.
    #[inline(always)]
    pub fn charge(&mut self, work: Work, n: u64) -> bool {
        let i = work as usize;
        self.counts[i] = self.counts[i].wrapping_add(n);
        self.used = self.used.wrapping_add(n.wrapping_mul(WEIGHTS[i]));
        if self.used > self.max_work {
            self.trip(Exceeded::Work(work));
            return false;
        }
        true
    }

    /// Checks the memory estimate; `false` once the run is past its memory budget.
    #[inline]
    pub fn check_memory(&mut self, m: Memory) -> bool {
        self.memory = m;
        if m.total() > self.max_memory {
            self.trip(Exceeded::Memory);
            return false;
        }
        true
    }

    #[cold]
    fn trip(&mut self, e: Exceeded) {
        self.exceeded.get_or_insert(e);
    }

    /// Whether the run went past a budget, and which.
    #[inline]
    pub fn exceeded(&self) -> Option<Exceeded> {
        self.exceeded
    }

    /// Weighted units used so far.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// Units charged of one kind.
    pub fn count(&self, work: Work) -> u64 {
        self.counts[work as usize]
    }

    pub fn max_work(&self) -> u64 {
        self.max_work
    }

    pub fn max_memory(&self) -> u64 {
        self.max_memory
    }

    /// The kind with the most weighted units (what grew the most).
    pub fn largest(&self) -> Work {
        Work::ALL
            .into_iter()
            .max_by_key(|w| self.counts[*w as usize].saturating_mul(w.weight()))
            .unwrap_or(Work::PairsTried)
    }
}

/// `n` with thousands separators ("10,000").
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Bytes as megabytes, rounded up ("12 MB").
pub fn megabytes(bytes: u64) -> String {
    format!("{} MB", thousands(bytes.div_ceil(1 << 20)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_are_weighted_and_trip_once() {
        let mut b = Budget::new(25, u64::MAX);
        assert!(b.charge(Work::MergeSteps, 5));
        assert!(b.charge(Work::TimerFirings, 2));
        assert_eq!(b.used(), 25);
        assert!(!b.charge(Work::PairsTried, 1));
        assert!(!b.charge(Work::TimerFirings, 1));
        assert_eq!(b.exceeded(), Some(Exceeded::Work(Work::PairsTried)));
        assert_eq!(b.count(Work::TimerFirings), 3);
        assert_eq!(b.largest(), Work::TimerFirings);
    }

    #[test]
    fn an_unlimited_budget_never_trips() {
        let mut b = Budget::default();
        for _ in 0..1000 {
            assert!(b.charge(Work::TraceEvents, 1 << 48));
        }
        assert_eq!(b.exceeded(), None);
    }

    #[test]
    fn memory_budget() {
        let mut b = Budget::new(u64::MAX, 100);
        assert!(b.check_memory(Memory {
            state: 50,
            results: 50,
            trace: 0
        }));
        assert!(!b.check_memory(Memory {
            state: 50,
            results: 50,
            trace: 1
        }));
        assert_eq!(b.exceeded(), Some(Exceeded::Memory));
    }

    #[test]
    fn numbers_in_words() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(10_000), "10,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(megabytes(1), "1 MB");
        assert_eq!(megabytes(3 << 20), "3 MB");
    }
}
