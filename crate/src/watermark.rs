//! Watermark generation (one generator per assigner subtask) and propagation (one valve per
//! operator input, combined across the two inputs of a join).
//!
//! Mirrors, in Flink 2.3:
//! - `BoundedOutOfOrdernessWatermarks` / `AscendingTimestampsWatermarks` (flink-core
//!   `api/common/eventtime`), the legacy `BoundedOutOfOrdernessTimestampExtractor`;
//! - `WatermarksWithIdleness` and its `IdlenessTimer`;
//! - `TimestampsAndWatermarksOperator.WatermarkEmitter` (forwards only strictly greater
//!   watermarks, marks the output active again only when it forwards one);
//! - `StatusWatermarkValve` (flink-runtime `streaming/runtime/watermarkstatus`);
//! - `IndexedCombinedWatermarkStatus` as used by `AbstractStreamOperator.processWatermark1/2`.

use crate::plan::GeneratorConfig;
use crate::scenario::Strategy;
use crate::time::Watermark;

/// What an assigner subtask sends downstream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emission {
    Watermark(Watermark),
    Idle,
    Active,
}

/// One assigner subtask: a watermark generator wrapped by idleness detection, behind the
/// strictly-increasing `WatermarkEmitter`.
#[derive(Clone, Debug)]
pub struct Assigner {
    cfg: GeneratorConfig,
    /// Highest timestamp seen (`BoundedOutOfOrdernessWatermarks.maxTimestamp`), `None` before
    /// any event (Flink initialises it to `Long.MIN_VALUE + delay + 1`, i.e. emits MIN).
    max_ts: Option<i64>,
    /// The emitter's `currentWatermark`.
    pub last_emitted: Watermark,
    /// The emitter's `idle` flag (the status announced downstream).
    pub idle: bool,
    /// `WatermarksWithIdleness.isIdleNow`.
    idle_now: bool,
    counter: u64,
    last_counter: u64,
    /// `IdlenessTimer.startOfInactivityNanos` (`None` = 0 = no timer).
    inactivity_start: Option<i64>,
}

impl Assigner {
    pub fn new(cfg: GeneratorConfig) -> Assigner {
        Assigner {
            cfg,
            max_ts: None,
            last_emitted: Watermark::MIN,
            idle: false,
            idle_now: false,
            counter: 0,
            last_counter: 0,
            inactivity_start: None,
        }
    }

    /// The watermark the wrapped generator would emit now.
    #[inline]
    fn current(&self) -> Option<Watermark> {
        let m = self.max_ts?;
        let w = match self.cfg.strategy {
            // maxTs - delay - 1 (`BoundedOutOfOrdernessWatermarks.onPeriodicEmit`).
            Strategy::Bounded | Strategy::Monotonous => {
                m.saturating_sub(self.cfg.delay).saturating_sub(1)
            }
            // maxTs - delay (`BoundedOutOfOrdernessTimestampExtractor.getCurrentWatermark`).
            Strategy::Legacy => m.saturating_sub(self.cfg.delay),
            Strategy::Punctuated | Strategy::None => return None,
        };
        Some(Watermark(w))
    }

    /// The emitter: forwards `w` only when strictly greater than the last one, marking the
    /// output active first.
    #[inline]
    fn emit(&mut self, w: Watermark, out: &mut Vec<Emission>) -> bool {
        if w <= self.last_emitted {
            return false;
        }
        self.last_emitted = w;
        if self.idle {
            self.idle = false;
            out.push(Emission::Active);
        }
        out.push(Emission::Watermark(w));
        true
    }

    /// An event with timestamp `ts` passed the assigner (after the record was emitted).
    /// Returns the candidate watermark when per-event emission computed one.
    #[inline]
    pub fn on_event(&mut self, ts: Option<i64>, out: &mut Vec<Emission>) -> Option<Watermark> {
        if let Some(ts) = ts {
            self.max_ts = Some(self.max_ts.map_or(ts, |m| m.max(ts)));
        }
        // WatermarksWithIdleness.onEvent: activity, and not idle any more.
        self.counter += 1;
        self.idle_now = false;
        if self.cfg.per_event {
            if let Some(w) = self.current() {
                self.emit(w, out);
                return Some(w);
            }
        }
        None
    }

    /// A punctuated watermark typed among the data.
    pub fn on_punctuation(&mut self, value: i64, out: &mut Vec<Emission>) -> bool {
        self.counter += 1;
        self.idle_now = false;
        self.emit(Watermark(value), out)
    }

    /// The periodic emit at processing time `now` (`WatermarksWithIdleness.onPeriodicEmit`).
    pub fn on_periodic(&mut self, now: i64, out: &mut Vec<Emission>) -> Option<Watermark> {
        if let Some(timeout) = self.cfg.idle_timeout {
            if self.check_if_idle(now, timeout) {
                if !self.idle_now {
                    self.idle_now = true;
                    // WatermarkEmitter.markIdle
                    if !self.idle {
                        self.idle = true;
                        out.push(Emission::Idle);
                    }
                }
                return None;
            }
        }
        let w = self.current()?;
        self.emit(w, out);
        Some(w)
    }

    /// `IdlenessTimer.checkIfIdle`.
    fn check_if_idle(&mut self, now: i64, timeout: i64) -> bool {
        if self.counter != self.last_counter {
            self.last_counter = self.counter;
            self.inactivity_start = None;
            false
        } else {
            match self.inactivity_start {
                None => {
                    self.inactivity_start = Some(now);
                    false
                }
                Some(start) => now - start > timeout,
            }
        }
    }

    /// The next processing time (a multiple of the interval, after `now`) at which a periodic
    /// emit could change anything, so idle stretches of simulated time can be skipped.
    pub fn next_interesting_tick(&self, now: i64, interval: i64) -> Option<i64> {
        let next = now
            .div_euclid(interval)
            .saturating_add(1)
            .saturating_mul(interval);
        let emit_pending = self.current().is_some_and(|w| w > self.last_emitted);
        match self.cfg.idle_timeout {
            _ if emit_pending => Some(next),
            None => None,
            Some(timeout) => {
                if self.idle_now {
                    return None;
                }
                if self.counter != self.last_counter || self.inactivity_start.is_none() {
                    return Some(next);
                }
                // Idle at the first tick strictly after start + timeout.
                let start = self.inactivity_start.unwrap_or(now);
                let due = start.saturating_add(timeout);
                let t = due
                    .div_euclid(interval)
                    .saturating_add(1)
                    .saturating_mul(interval);
                Some(t.max(next))
            }
        }
    }

    /// The row timestamp that set the current maximum, if any.
    pub fn max_ts(&self) -> Option<i64> {
        self.max_ts
    }

    /// End of input: the source's `Watermark(Long.MAX_VALUE)` is forwarded by the emitter.
    pub fn end_of_input(&mut self, out: &mut Vec<Emission>) {
        self.emit(Watermark::MAX, out);
    }
}

#[derive(Clone, Debug)]
struct Channel {
    watermark: Watermark,
    active: bool,
    aligned: bool,
}

/// `StatusWatermarkValve`: one logical input with several channels.
#[derive(Clone, Debug)]
pub struct Valve {
    channels: Vec<Channel>,
    pub last_output: Watermark,
    pub active: bool,
}

/// What a valve (or the two-input combiner) passes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValveOutput {
    Watermark(Watermark),
    Idle,
    Active,
}

impl Valve {
    pub fn new(channels: usize) -> Valve {
        Valve {
            channels: vec![
                Channel {
                    watermark: Watermark::MIN,
                    active: true,
                    aligned: true
                };
                channels
            ],
            last_output: Watermark::MIN,
            active: true,
        }
    }

    pub fn channel_watermark(&self, ch: usize) -> Watermark {
        self.channels[ch].watermark
    }
    pub fn channel_active(&self, ch: usize) -> bool {
        self.channels[ch].active
    }
    pub fn channel_count(&self) -> usize {
        self.channels.len()
    }

    /// The channel holding the current minimum (the one that decided the last output).
    pub fn min_channel(&self) -> Option<usize> {
        self.channels
            .iter()
            .enumerate()
            .filter(|(_, c)| c.active && c.aligned)
            .min_by_key(|(_, c)| c.watermark)
            .map(|(i, _)| i)
    }

    fn min_aligned(&self) -> Option<Watermark> {
        self.channels
            .iter()
            .filter(|c| c.active && c.aligned)
            .map(|c| c.watermark)
            .min()
    }

    /// `inputWatermark(watermark, channelIndex)`.
    pub fn input_watermark(&mut self, w: Watermark, ch: usize, out: &mut Vec<ValveOutput>) {
        if !self.active || !self.channels[ch].active {
            return;
        }
        let c = &mut self.channels[ch];
        if w > c.watermark {
            c.watermark = w;
            if !c.aligned && w >= self.last_output {
                c.aligned = true;
            }
            self.find_and_output_new_min(out);
        }
    }

    fn find_and_output_new_min(&mut self, out: &mut Vec<ValveOutput>) {
        if let Some(m) = self.min_aligned() {
            if m > self.last_output {
                self.last_output = m;
                out.push(ValveOutput::Watermark(m));
            }
        }
    }

    /// `inputWatermarkStatus(status, channelIndex)`.
    pub fn input_status(&mut self, idle: bool, ch: usize, out: &mut Vec<ValveOutput>) {
        let c_active = self.channels[ch].active;
        if idle && c_active {
            self.channels[ch].active = false;
            self.channels[ch].aligned = false;
            let any_active = self.channels.iter().any(|c| c.active);
            let was_min = self.channels[ch].watermark == self.last_output;
            if !any_active {
                if was_min {
                    // The last channel went idle: flush the max over all channels.
                    let max = self
                        .channels
                        .iter()
                        .map(|c| c.watermark)
                        .max()
                        .unwrap_or(Watermark::MIN);
                    if max > self.last_output {
                        self.last_output = max;
                        out.push(ValveOutput::Watermark(max));
                    }
                }
                self.active = false;
                out.push(ValveOutput::Idle);
            } else if was_min {
                self.find_and_output_new_min(out);
            }
        } else if !idle && !c_active {
            let c = &mut self.channels[ch];
            c.active = true;
            if c.watermark >= self.last_output {
                c.aligned = true;
            }
            if !self.active {
                self.active = true;
                out.push(ValveOutput::Active);
            }
        }
    }
}

/// `IndexedCombinedWatermarkStatus` for a two-input operator: the minimum over non-idle
/// inputs (or the maximum when both are idle); passed on only when it strictly increases.
#[derive(Clone, Debug)]
pub struct Combined {
    inputs: [(Watermark, bool); 2],
    pub combined: Watermark,
    pub idle: bool,
}

impl Default for Combined {
    fn default() -> Self {
        Combined {
            inputs: [(Watermark::MIN, false); 2],
            combined: Watermark::MIN,
            idle: false,
        }
    }
}

impl Combined {
    fn recompute(&self) -> Watermark {
        let active: Vec<Watermark> = self.inputs.iter().filter(|i| !i.1).map(|i| i.0).collect();
        if active.is_empty() {
            self.inputs
                .iter()
                .map(|i| i.0)
                .max()
                .unwrap_or(Watermark::MIN)
        } else {
            active.into_iter().min().unwrap_or(Watermark::MIN)
        }
    }

    /// A watermark from input `i`'s valve; returns the new combined watermark if it increased.
    pub fn update_watermark(&mut self, i: usize, w: Watermark) -> Option<Watermark> {
        self.inputs[i] = (w, false);
        self.advance()
    }

    /// A status change from input `i`'s valve. Returns (new watermark if it increased,
    /// status flip of the whole operator if any).
    pub fn update_status(&mut self, i: usize, idle: bool) -> (Option<Watermark>, Option<bool>) {
        self.inputs[i].1 = idle;
        let w = self.advance();
        let all_idle = self.inputs.iter().all(|i| i.1);
        let flip = if all_idle != self.idle {
            self.idle = all_idle;
            Some(all_idle)
        } else {
            None
        };
        (w, flip)
    }

    fn advance(&mut self) -> Option<Watermark> {
        let c = self.recompute();
        if c > self.combined {
            self.combined = c;
            Some(c)
        } else {
            None
        }
    }

    /// Which input holds the combined minimum.
    pub fn min_input(&self) -> usize {
        let (a, b) = (self.inputs[0], self.inputs[1]);
        match (a.1, b.1) {
            (false, true) => 0,
            (true, false) => 1,
            _ if a.0 <= b.0 => 0,
            _ => 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(
        strategy: Strategy,
        delay: i64,
        per_event: bool,
        interval: i64,
        idle: Option<i64>,
    ) -> GeneratorConfig {
        GeneratorConfig {
            strategy,
            delay,
            per_event,
            interval,
            idle_timeout: idle,
        }
    }

    #[test]
    fn bounded_monotonous_legacy() {
        let mut out = Vec::new();
        let mut a = Assigner::new(cfg(Strategy::Bounded, 2000, true, 0, None));
        assert_eq!(a.on_event(Some(7000), &mut out), Some(Watermark(4999)));
        let mut m = Assigner::new(cfg(Strategy::Monotonous, 0, true, 0, None));
        assert_eq!(m.on_event(Some(9), &mut out), Some(Watermark(8)));
        let mut l = Assigner::new(cfg(Strategy::Legacy, 2000, true, 0, None));
        assert_eq!(l.on_event(Some(7000), &mut out), Some(Watermark(5000)));
    }

    #[test]
    fn only_strictly_greater_is_forwarded() {
        let mut out = Vec::new();
        let mut a = Assigner::new(cfg(Strategy::Bounded, 0, true, 0, None));
        a.on_event(Some(10), &mut out);
        a.on_event(Some(5), &mut out);
        a.on_event(Some(10), &mut out);
        a.on_event(Some(11), &mut out);
        assert_eq!(
            out,
            vec![
                Emission::Watermark(Watermark(9)),
                Emission::Watermark(Watermark(10))
            ]
        );
    }

    #[test]
    fn idleness_needs_two_quiet_ticks_and_more_than_the_timeout() {
        let mut out = Vec::new();
        let mut a = Assigner::new(cfg(Strategy::Bounded, 0, false, 100, Some(250)));
        a.on_event(Some(1000), &mut out);
        a.on_periodic(100, &mut out); // activity -> emits 999
        a.on_periodic(200, &mut out); // start = 200
        a.on_periodic(300, &mut out);
        a.on_periodic(400, &mut out);
        a.on_periodic(450, &mut out); // 250 elapsed: not > timeout
        assert!(!a.idle);
        a.on_periodic(500, &mut out); // 300 > 250
        assert!(a.idle);
        assert_eq!(
            out,
            vec![Emission::Watermark(Watermark(999)), Emission::Idle]
        );
        // A record that does not raise the watermark leaves the status idle.
        a.on_event(Some(500), &mut out);
        a.on_periodic(600, &mut out);
        assert!(a.idle);
        a.on_event(Some(2000), &mut out);
        a.on_periodic(700, &mut out);
        assert!(!a.idle);
        assert_eq!(
            &out[2..],
            &[Emission::Active, Emission::Watermark(Watermark(1999))]
        );
    }

    #[test]
    fn valve_minimum_and_idleness() {
        let mut out = Vec::new();
        let mut v = Valve::new(2);
        v.input_watermark(Watermark(5), 0, &mut out);
        assert!(out.is_empty(), "channel 1 still at MIN holds it back");
        v.input_watermark(Watermark(3), 1, &mut out);
        assert_eq!(out, vec![ValveOutput::Watermark(Watermark(3))]);
        out.clear();
        v.input_status(true, 1, &mut out);
        assert_eq!(out, vec![ValveOutput::Watermark(Watermark(5))]);
        out.clear();
        v.input_status(true, 0, &mut out);
        assert_eq!(out, vec![ValveOutput::Idle]);
        out.clear();
        v.input_status(false, 1, &mut out);
        assert_eq!(out, vec![ValveOutput::Active]);
        out.clear();
        // Channel 1 (at 3) is not aligned until it catches up with 5.
        v.input_watermark(Watermark(4), 1, &mut out);
        assert!(out.is_empty());
        v.input_watermark(Watermark(6), 1, &mut out);
        assert_eq!(out, vec![ValveOutput::Watermark(Watermark(6))]);
    }

    #[test]
    fn combined_two_inputs() {
        let mut c = Combined::default();
        assert_eq!(c.update_watermark(0, Watermark(10)), None);
        assert_eq!(c.update_watermark(1, Watermark(4)), Some(Watermark(4)));
        assert_eq!(c.update_status(1, true), (Some(Watermark(10)), None));
        assert_eq!(c.update_status(0, true), (None, Some(true)));
    }
}
