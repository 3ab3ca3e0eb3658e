//! The trace's bookkeeping of the simulator: where a step begins and ends, the trace window,
//! snapshots of a subtask's state, and the memory estimate the budget checks.

use super::*;

impl<O: Operator> Sim<'_, '_, O> {
    /// Per stream, per assigner subtask: the last watermark it forwarded.
    pub(super) fn assigner_watermarks(&self) -> Vec<Vec<Watermark>> {
        self.assigners
            .iter()
            .map(|v| v.iter().map(|s| s.a.last_emitted).collect())
            .collect()
    }

    /// Per stream, per assigner subtask: whether it has announced itself idle.
    pub(super) fn assigner_idle(&self) -> Vec<Vec<bool>> {
        self.assigners
            .iter()
            .map(|v| v.iter().map(|s| s.a.idle).collect())
            .collect()
    }

    pub(super) fn begin(&mut self, cause: Cause) {
        if self.step_count == self.window_toggle {
            self.toggle_window();
        }
        if !matches!(cause, Cause::Row { .. } | Cause::WatermarkRow { .. }) {
            self.step_map.extra.push(self.arrivals_done as u32);
            self.step_map.extra_time.push(self.now);
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
    pub(super) fn toggle_window(&mut self) {
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
    pub(super) fn window_start(&self) -> WindowStart {
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
            assigner: self.assigner_watermarks(),
            idle: self.assigner_idle(),
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

    pub(super) fn end(&mut self) {
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

    pub(super) fn snapshot(&self, j: usize) -> SubtaskState {
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
            .chain(s.op.own_timers())
            .collect();
        sort_timer_views(&mut timers);
        SubtaskState {
            subtask: SubtaskIndex(j as u32),
            watermark: s.watermark,
            entries: s.op.state(),
            timers,
        }
    }

    /// Samples subtask `j`'s state size after an operator call (O(1)): updates the totals
    /// and the peaks.
    pub(super) fn sample(&mut self, j: usize) {
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
    pub(super) fn memory(&self) -> Memory {
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
}

/// Orders a snapshot's timers: event time before processing time, then by time and key. Not
/// generic, so that the simulator of every operator shares one copy of the (stable) sort
/// instead of one each (15 kB of the wasm module).
#[inline(never)]
fn sort_timer_views(timers: &mut [TimerView]) {
    timers.sort_by_key(|t| (t.processing, t.timestamp, t.key));
}
