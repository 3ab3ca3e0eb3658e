//! Watermarks through the simulated job: the assigners' emissions broadcast to the operator
//! subtasks through their input valves, processing time, periodic emission and the end of input.

use super::*;

impl<O: Operator> Sim<'_, '_, O> {
    /// Sends an assigner subtask's emissions to every operator subtask (`broadcastEmit`).
    /// With `defer`, watermark advances are only recorded there, per subtask (end of input:
    /// one jump).
    pub(super) fn broadcast(
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
                        if let (Inputs::Two(..), ValveOutput::Watermark(w)) = (&sub.inputs, o) {
                            // An input's own stage before the join (the SESSION window TVF)
                            // takes the input's watermark and may send records ahead of it.
                            let plan = self.plan;
                            let now = self.now;
                            let (op, mut cx) = sub.split(plan, &mut self.sink, j, now);
                            op.on_input_watermark(&mut cx, stream, w);
                        }
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
    pub(super) fn origin_of(&self, j: usize, w: Watermark) -> Option<WatermarkOrigin> {
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
    pub(super) fn advance(&mut self, j: usize, w: Watermark) {
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
    pub(super) fn advance_processing_time(&mut self, t: i64) {
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

    pub(super) fn periodic(&mut self, tick: i64) {
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

    pub(super) fn fire_processing_timers(&mut self, t: i64) {
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
    pub(super) fn end_of_input(&mut self) {
        self.before_end = Some(BeforeEnd {
            assigner: self.assigner_watermarks(),
            idle: self.assigner_idle(),
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
