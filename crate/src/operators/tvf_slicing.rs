//! The slices of Flink SQL's aligned window TVFs (`TUMBLE`, `HOP`, `CUMULATE`), as the window
//! aggregation cuts them: `SliceAssigners.{Tumbling,Hopping,Cumulative}SliceAssigner` (Flink
//! 2.3.0, flink-table-runtime `operators.window.tvf.slicing`), and the progress rules of
//! `TimeWindowUtil` (UTC: no time-zone shift, the time column is `TIMESTAMP(3)`).
//!
//! A slice is named by its end. `TUMBLE`'s slices are its windows; `HOP`'s slices are `slide`
//! long and a window is the `size / slide` slices before its end; `CUMULATE`'s slices are `step`
//! long and every window starts at the start of its `max size` window (the first slice's
//! state is shared and the later slices are merged into it as they fire).

use crate::scenario::{TvfKind, TvfSpec};
use crate::tvf::MAX_WINDOWS_PER_ROW;

/// `TimeWindow.getWindowStartWithOffset(timestamp, offset, size)`.
pub fn window_start(timestamp: i64, offset: i64, size: i64) -> i64 {
    let remainder = (timestamp - offset) % size;
    if remainder < 0 {
        timestamp - (remainder + size)
    } else {
        timestamp - remainder
    }
}

/// `TimeWindowUtil.isWindowFired(windowEnd, currentProgress, UTC)`: the window's last
/// millisecond is at or before the progress (`windowEnd - 1 <= progress`).
pub fn is_window_fired(window_end: i64, progress: i64) -> bool {
    if window_end == i64::MAX {
        return false;
    }
    window_end.saturating_sub(1) <= progress
}

/// `TimeWindowUtil.getNextTriggerWatermarkWithOffset(watermark, interval, offset, UTC, false)`:
/// the next progress at which a window may fire (a slice boundary minus one).
pub fn next_trigger_watermark(watermark: i64, interval: i64, offset: i64) -> i64 {
    if watermark == i64::MAX {
        return watermark;
    }
    let trigger = window_start(watermark, offset, interval) + interval - 1;
    if trigger > watermark {
        trigger
    } else {
        trigger + interval
    }
}

/// A slice assigner of an aligned window TVF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slicer {
    /// `TumblingSliceAssigner` (slice = window; unshared).
    Tumble { size: i64, offset: i64 },
    /// `HoppingSliceAssigner` (slice = gcd(size, slide) = slide, since Flink requires
    /// `size % slide == 0`; shared).
    Hop { size: i64, slide: i64, offset: i64 },
    /// `CumulativeSliceAssigner` (slice = step; shared through the first slice).
    Cumulate {
        max_size: i64,
        step: i64,
        offset: i64,
    },
}

impl Slicer {
    /// The assigner of an aligned TVF (`None` for `SESSION`). Arguments are validated by
    /// [`check`].
    pub fn of(tvf: &TvfSpec) -> Option<Slicer> {
        let offset = tvf.offset.0;
        match tvf.kind {
            TvfKind::Tumble => Some(Slicer::Tumble {
                size: tvf.size.0,
                offset,
            }),
            TvfKind::Hop => Some(Slicer::Hop {
                size: tvf.size.0,
                slide: tvf.slide.map_or(tvf.size.0, |s| s.0),
                offset,
            }),
            TvfKind::Cumulate => Some(Slicer::Cumulate {
                max_size: tvf.size.0,
                step: tvf.step.map_or(tvf.size.0, |s| s.0),
                offset,
            }),
            TvfKind::Session => None,
        }
    }

    /// `getSliceEndInterval()`: the slice length.
    pub fn interval(self) -> i64 {
        match self {
            Slicer::Tumble { size, .. } => size,
            Slicer::Hop { slide, .. } => slide,
            Slicer::Cumulate { step, .. } => step,
        }
    }

    /// `getWindowOffset()`.
    pub fn offset(self) -> i64 {
        match self {
            Slicer::Tumble { offset, .. }
            | Slicer::Hop { offset, .. }
            | Slicer::Cumulate { offset, .. } => offset,
        }
    }

    /// Whether slices are shared between windows (`SliceSharedAssigner`).
    pub fn shared(self) -> bool {
        !matches!(self, Slicer::Tumble { .. })
    }

    /// `assignSliceEnd(timestamp)`.
    pub fn slice_end(self, ts: i64) -> i64 {
        window_start(ts, self.offset(), self.interval()) + self.interval()
    }

    /// `getWindowStart(windowEnd)`.
    pub fn window_start_of(self, window_end: i64) -> i64 {
        match self {
            Slicer::Tumble { size, .. } | Slicer::Hop { size, .. } => window_end - size,
            Slicer::Cumulate {
                max_size, offset, ..
            } => window_start(window_end - 1, offset, max_size),
        }
    }

    /// `getLastWindowEnd(sliceEnd)`: the end of the last window the slice belongs to.
    pub fn last_window_end(self, slice_end: i64) -> i64 {
        match self {
            Slicer::Tumble { .. } => slice_end,
            Slicer::Hop { size, slide, .. } => slice_end - slide + size,
            Slicer::Cumulate { max_size, .. } => self.window_start_of(slice_end) + max_size,
        }
    }

    /// The first slice of the `CUMULATE` window ending at `end` (its shared state).
    pub fn cumulate_first_slice(self, end: i64) -> i64 {
        self.window_start_of(end) + self.interval()
    }

    /// `sliceStateMergeTarget` of `SliceSharedSyncStateWindowAggProcessor`: where a row of an
    /// already fired slice goes. `HOP` merges in memory (the slice itself); `CUMULATE` into the
    /// shared first slice. `TUMBLE` keeps the slice.
    pub fn merge_target(self, slice_end: i64) -> i64 {
        match self {
            Slicer::Cumulate { .. } => self.cumulate_first_slice(slice_end),
            _ => slice_end,
        }
    }

    /// The slices merged to fire the window ending at `end` (`mergeSlices`), newest first.
    /// `CUMULATE` merges the slice into the first slice's state (none when it is the first).
    pub fn slices_of_window(self, end: i64) -> Vec<i64> {
        match self {
            Slicer::Tumble { .. } => vec![end],
            Slicer::Hop { size, slide, .. } => (0..size / slide).map(|i| end - i * slide).collect(),
            Slicer::Cumulate { .. } => {
                if end == self.cumulate_first_slice(end) {
                    Vec::new()
                } else {
                    vec![end]
                }
            }
        }
    }

    /// `nextTriggerWindow(windowEnd, isWindowEmpty)`: the window to register a timer for after
    /// firing one (`HOP`: the next one, unless this one was empty; `CUMULATE`: the next step
    /// up to the max size).
    pub fn next_trigger_window(self, end: i64, empty: bool) -> Option<i64> {
        match self {
            Slicer::Tumble { .. } => None,
            Slicer::Hop { slide, .. } => (!empty).then_some(end + slide),
            Slicer::Cumulate { max_size, step, .. } => {
                let next = end + step;
                (next <= self.window_start_of(end) + max_size).then_some(next)
            }
        }
    }

    /// `expiredSlices(windowEnd)`: the slice states cleared after the window fired.
    pub fn expired_slices(self, end: i64) -> Vec<i64> {
        match self {
            Slicer::Tumble { .. } => vec![end],
            Slicer::Hop { size, slide, .. } => vec![end - size + slide],
            Slicer::Cumulate { max_size, .. } => {
                let first = self.cumulate_first_slice(end);
                let last = self.window_start_of(end) + max_size;
                if end == first {
                    Vec::new()
                } else if end == last {
                    vec![end, first]
                } else {
                    vec![end]
                }
            }
        }
    }

    /// The windows `[start, end)` a timestamp belongs to (what the TVF assigns), for verdicts.
    pub fn windows_of(self, ts: i64) -> Vec<(i64, i64)> {
        let slice = self.slice_end(ts);
        match self {
            Slicer::Tumble { size, .. } => vec![(slice - size, slice)],
            Slicer::Hop { size, slide, .. } => (0..size / slide)
                .map(|i| (slice + i * slide - size, slice + i * slide))
                .collect(),
            Slicer::Cumulate { max_size, step, .. } => {
                let start = self.window_start_of(slice);
                let mut v = Vec::new();
                let mut end = slice;
                while end <= start + max_size {
                    v.push((start, end));
                    end += step;
                }
                v
            }
        }
    }
}

/// Checks a TVF's arguments as Flink's planner and assigners do; `Err((field, message))`.
pub fn check(tvf: &TvfSpec) -> Result<(), (&'static str, String)> {
    let size = tvf.size.0;
    match tvf.kind {
        TvfKind::Session => {
            let gap = tvf.gap.map_or(0, |g| g.0);
            if gap <= 0 {
                return Err(("job.tvf.gap", "SESSION needs a positive gap".into()));
            }
            return Ok(());
        }
        _ if size <= 0 => return Err(("job.tvf.size", "the window size must be positive".into())),
        TvfKind::Tumble => {}
        TvfKind::Hop => {
            let slide = tvf.slide.map_or(0, |s| s.0);
            if slide <= 0 {
                return Err(("job.tvf.slide", "HOP needs a positive slide".into()));
            }
            if size % slide != 0 {
                // HoppingSliceAssigner's own message.
                return Err(("job.tvf.slide", format!("Slicing Hopping Window requires size must be an integral multiple of slide, but got size {size}ms and slide {slide}ms.")));
            }
            // Joinlab's own limit, not Flink's: every firing merges size/slide slices
            // (`SliceSharedAssigner.mergeSlices`) and a timer fires per slide.
            if size / slide > MAX_WINDOWS_PER_ROW {
                return Err(("job.tvf.slide", format!("size/slide puts every row in {} windows (this playground allows {MAX_WINDOWS_PER_ROW})", size / slide)));
            }
        }
        TvfKind::Cumulate => {
            let step = tvf.step.map_or(0, |s| s.0);
            if step <= 0 {
                return Err(("job.tvf.step", "CUMULATE needs a positive step".into()));
            }
            if size % step != 0 {
                // CumulativeSliceAssigner's own message.
                return Err(("job.tvf.step", format!("Cumulative Window requires maxSize must be an integral multiple of step, but got maxSize {size}ms and step {step}ms.")));
            }
            if size / step > MAX_WINDOWS_PER_ROW {
                return Err(("job.tvf.step", format!("size/step puts a row in up to {} windows (this playground allows {MAX_WINDOWS_PER_ROW})", size / step)));
            }
        }
    }
    if tvf.offset.0.unsigned_abs() >= size.unsigned_abs() && tvf.kind == TvfKind::Tumble {
        return Err(("job.tvf.offset", format!("Tumbling Window parameters must satisfy abs(offset) < size, bot got size {size}ms and offset {}ms.", tvf.offset.0)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hop_slices_and_windows() {
        let h = Slicer::Hop {
            size: 10,
            slide: 5,
            offset: 0,
        };
        assert_eq!(h.slice_end(7), 10);
        assert_eq!(h.last_window_end(10), 15);
        assert_eq!(h.slices_of_window(15), vec![15, 10]);
        assert_eq!(h.expired_slices(15), vec![10]);
        assert_eq!(h.windows_of(7), vec![(0, 10), (5, 15)]);
        assert_eq!(h.windows_of(-1), vec![(-10, 0), (-5, 5)]);
    }

    #[test]
    fn cumulate_shares_the_first_slice() {
        let c = Slicer::Cumulate {
            max_size: 10,
            step: 5,
            offset: 0,
        };
        assert_eq!(c.slice_end(7), 10);
        assert_eq!(c.window_start_of(10), 0);
        assert_eq!(c.cumulate_first_slice(10), 5);
        assert_eq!(c.merge_target(10), 5);
        assert_eq!(c.slices_of_window(5), Vec::<i64>::new());
        assert_eq!(c.expired_slices(5), Vec::<i64>::new());
        assert_eq!(c.expired_slices(10), vec![10, 5]);
        assert_eq!(c.next_trigger_window(5, true), Some(10));
        assert_eq!(c.next_trigger_window(10, false), None);
        assert_eq!(c.windows_of(3), vec![(0, 5), (0, 10)]);
        assert_eq!(c.windows_of(7), vec![(0, 10)]);
    }

    #[test]
    fn progress_rules() {
        assert!(is_window_fired(10, 9));
        assert!(!is_window_fired(10, 8));
        assert_eq!(next_trigger_watermark(0, 10, 0), 9);
        assert_eq!(next_trigger_watermark(9, 10, 0), 19);
        assert_eq!(next_trigger_watermark(9, 10, 3), 12);
        assert_eq!(next_trigger_watermark(i64::MAX, 10, 0), i64::MAX);
        assert_eq!(window_start(-1, 0, 10), -10);
    }
}
