//! Flink SQL's window table-valued functions: which windows a row gets.
//!
//! `TUMBLE`, `HOP` and `CUMULATE` are *aligned* windows: the planner runs them in
//! `AlignedWindowTableFunctionOperator` (flink-table-runtime 2.3.0,
//! `org/apache/flink/table/runtime/operators/window/tvf/operator/`), which for every row reads
//! the rowtime, calls the `GroupWindowAssigner`'s `assignWindows(row, ts)` and emits one copy of
//! the row per window, in the order the assigner returns them, with `window_start`,
//! `window_end` and `window_time = end - 1` appended (`WindowTableFunctionOperatorBase.collect`).
//! The TVF operator itself drops nothing for lateness: it keeps no state, registers no timers
//! and never looks at the watermark (checked in the 2.3.0 bytecode of
//! `AlignedWindowTableFunctionOperator.processElement`); it only drops rows whose rowtime is
//! null (`numNullRowTimeRecordsDropped`). Lateness is decided by the operator downstream (the
//! window join or the window aggregation), each in its own way.
//!
//! The assigners (`.../operators/window/groupwindow/assigners/`, 2.3.0 bytecode):
//! - `TumblingWindowAssigner.assignWindows`: one window `[s, s + size)` with
//!   `s = TimeWindow.getWindowStartWithOffset(ts, offset, size)`;
//! - `SlidingWindowAssigner.assignWindows` (`HOP`): `last = start(ts, offset, slide)`, then
//!   windows `[s, s + size)` for `s = last, last - slide, …` while `s > ts - size`
//!   (**descending** starts);
//! - `CumulativeWindowAssigner.assignWindows`: `ws = start(ts, offset, maxSize)`, then windows
//!   `[ws, e)` for `e = start(ts, offset, step) + step, … + step` while `e <= ws + maxSize`
//!   (**ascending** ends).
//!
//! `getWindowStartWithOffset` is `ts - ((ts - offset) % size)`, plus `size` when that Java
//! remainder is negative (floor semantics for negative times). `SESSION` is an *unaligned*
//! window (`UnalignedWindowTableFunctionOperator`, keyed and stateful, it holds rows back until
//! the session closes): a row's window depends on the other rows of its key, so it has no
//! [`Tvf`]; the window join chains it as its own stage
//! ([`crate::operators::session_tvf`]), and the window aggregation merges sessions itself.

use crate::scenario::{TvfKind, TvfSpec};

/// `TimeWindow.getWindowStartWithOffset(timestamp, offset, windowSize)` of the table runtime.
pub fn window_start_with_offset(ts: i64, offset: i64, size: i64) -> i64 {
    let rem = ts.wrapping_sub(offset) % size;
    if rem < 0 {
        ts.wrapping_sub(rem.wrapping_add(size))
    } else {
        ts.wrapping_sub(rem)
    }
}

/// A validated aligned window TVF (`TUMBLE`, `HOP` or `CUMULATE`), in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tvf {
    Tumble {
        size: i64,
        offset: i64,
    },
    Hop {
        size: i64,
        slide: i64,
        offset: i64,
    },
    Cumulate {
        max_size: i64,
        step: i64,
        offset: i64,
    },
}

/// Most windows one row may get (HOP size/slide, CUMULATE size/step).
pub const MAX_WINDOWS_PER_ROW: i64 = 10_000;

impl Tvf {
    /// Validates a scenario's TVF; `field` names the setting in error messages. The messages
    /// are Flink's own (the constructors of the 2.3.0 `TumblingWindowAssigner`,
    /// `SlidingWindowAssigner`, `CumulativeWindowAssigner`, and the planner's
    /// `WindowUtil.convertToWindowingStrategy` for TUMBLE's offset).
    pub fn of(spec: &TvfSpec, field: &str) -> Result<Tvf, (String, String)> {
        let err = |f: &str, m: String| Err((format!("{field}.{f}"), m));
        let size = spec.size.0;
        let offset = spec.offset.0;
        match spec.kind {
            TvfKind::Tumble => {
                if size <= 0 {
                    return err("size", "TumblingWindowAssigner parameters must satisfy size > 0".into());
                }
                // WindowUtil.convertToWindowingStrategy (planner).
                if offset.unsigned_abs() >= size.unsigned_abs() {
                    return err("offset", format!("TUMBLE table function parameters must satisfy abs(offset) < size, but got size {size} ms and offset {offset} ms."));
                }
                Ok(Tvf::Tumble { size, offset })
            }
            TvfKind::Hop => {
                let slide = spec.slide.map(|s| s.0).unwrap_or(0);
                if slide <= 0 || size <= 0 {
                    return err("slide", "SlidingWindowAssigner parameters must satisfy slide > 0 and size > 0".into());
                }
                if size / slide + i64::from(size % slide != 0) > MAX_WINDOWS_PER_ROW {
                    return err(
                        "slide",
                        format!("size/slide puts every row in more than {MAX_WINDOWS_PER_ROW} windows (this playground's limit)"),
                    );
                }
                Ok(Tvf::Hop {
                    size,
                    slide,
                    offset,
                })
            }
            TvfKind::Cumulate => {
                let step = spec.step.map(|s| s.0).unwrap_or(0);
                if step <= 0 || size <= 0 {
                    return err("step", "CumulativeWindowAssigner parameters must satisfy step > 0 and size > 0".into());
                }
                if size % step != 0 {
                    return err("step", "CumulativeWindowAssigner requires size must be an integral multiple of step.".into());
                }
                if size / step > MAX_WINDOWS_PER_ROW {
                    return err(
                        "step",
                        format!("size/step puts a row in up to {} windows (this playground allows {MAX_WINDOWS_PER_ROW})", size / step),
                    );
                }
                Ok(Tvf::Cumulate {
                    max_size: size,
                    step,
                    offset,
                })
            }
            // An unaligned window: no fixed windows per row (see the module documentation).
            TvfKind::Session => err(
                "kind",
                "SESSION is an unaligned window: a row's session depends on the other rows of its key".into(),
            ),
        }
    }

    /// The windows of a row with rowtime `ts`, as `(start, end)`, in the order Flink's
    /// assigner returns them (and so the order the TVF emits the row's copies).
    pub fn assign(&self, ts: i64) -> Vec<(i64, i64)> {
        match *self {
            Tvf::Tumble { size, offset } => {
                let s = window_start_with_offset(ts, offset, size);
                vec![(s, s.saturating_add(size))]
            }
            Tvf::Hop {
                size,
                slide,
                offset,
            } => {
                let mut out = Vec::new();
                let mut s = window_start_with_offset(ts, offset, slide);
                while s > ts.saturating_sub(size) {
                    out.push((s, s.saturating_add(size)));
                    s = match s.checked_sub(slide) {
                        Some(v) => v,
                        None => break,
                    };
                }
                out
            }
            Tvf::Cumulate {
                max_size,
                step,
                offset,
            } => {
                let ws = window_start_with_offset(ts, offset, max_size);
                let last = ws.saturating_add(max_size);
                let mut e = window_start_with_offset(ts, offset, step).saturating_add(step);
                let mut out = Vec::new();
                while e <= last {
                    out.push((ws, e));
                    e = match e.checked_add(step) {
                        Some(v) => v,
                        None => break,
                    };
                }
                out
            }
        }
    }

    /// The TVF call as Flink SQL (`TUMBLE(TABLE t, DESCRIPTOR(c), INTERVAL …)`), given the
    /// table and time column text and a formatter for intervals.
    pub fn sql(&self, table: &str, time: &str, interval: &dyn Fn(i64) -> String) -> String {
        let off = |o: i64| {
            if o == 0 {
                String::new()
            } else if o < 0 {
                // A signed literal (`INTERVAL -'1' SECOND`): Flink wants a constant, and
                // `-INTERVAL …` is an expression ("Only constant window descriptors").
                format!(", {}", interval(o).replacen("INTERVAL ", "INTERVAL -", 1))
            } else {
                format!(", {}", interval(o))
            }
        };
        match *self {
            Tvf::Tumble { size, offset } => format!(
                "TUMBLE(TABLE {table}, DESCRIPTOR({time}), {}{})",
                interval(size),
                off(offset)
            ),
            Tvf::Hop {
                size,
                slide,
                offset,
            } => format!(
                "HOP(TABLE {table}, DESCRIPTOR({time}), {}, {}{})",
                interval(slide),
                interval(size),
                off(offset)
            ),
            Tvf::Cumulate {
                max_size,
                step,
                offset,
            } => format!(
                "CUMULATE(TABLE {table}, DESCRIPTOR({time}), {}, {}{})",
                interval(step),
                interval(max_size),
                off(offset)
            ),
        }
    }
}

/// `TimeUtils.formatWithHighestUnit(Duration)`: the largest unit that divides the duration
/// ("5 s", "10 min", "1500 ms"), as Flink prints window specs.
pub fn format_with_highest_unit(ms: i64) -> String {
    for (unit, name) in [
        (86_400_000, "d"),
        (3_600_000, "h"),
        (60_000, "min"),
        (1000, "s"),
    ] {
        if ms != 0 && ms % unit == 0 {
            return format!("{} {name}", ms / unit);
        }
    }
    format!("{ms} ms")
}

/// `WindowSpec.toString()` of the planner (`TumblingWindowSpec`: `TUMBLE(size=[5 s])`,
/// `HoppingWindowSpec`: `HOP(size=[..], slide=[..])`, `CumulativeWindowSpec`:
/// `CUMULATE(max_size=[..], step=[..])`, `SessionWindowSpec`: `SESSION(gap=[..])`).
pub fn spec_string(spec: &TvfSpec) -> String {
    let f = format_with_highest_unit;
    match spec.kind {
        TvfKind::Tumble => format!("TUMBLE(size=[{}])", f(spec.size.0)),
        TvfKind::Hop => format!(
            "HOP(size=[{}], slide=[{}])",
            f(spec.size.0),
            f(spec.slide.map(|s| s.0).unwrap_or(0))
        ),
        TvfKind::Cumulate => format!(
            "CUMULATE(max_size=[{}], step=[{}])",
            f(spec.size.0),
            f(spec.step.map(|s| s.0).unwrap_or(0))
        ),
        TvfKind::Session => format!("SESSION(gap=[{}])", f(spec.gap.map(|g| g.0).unwrap_or(0))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: every window of the TVF's family that contains `ts`.
    fn brute(tvf: &Tvf, ts: i64) -> Vec<(i64, i64)> {
        let mut v = Vec::new();
        for s in (ts - 200)..=ts {
            match *tvf {
                Tvf::Tumble { size, offset } => {
                    if (s - offset).rem_euclid(size) == 0 && ts < s + size {
                        v.push((s, s + size));
                    }
                }
                Tvf::Hop {
                    size,
                    slide,
                    offset,
                } => {
                    if (s - offset).rem_euclid(slide) == 0 && ts < s + size {
                        v.push((s, s + size));
                    }
                }
                Tvf::Cumulate {
                    max_size,
                    step,
                    offset,
                } => {
                    if (s - offset).rem_euclid(max_size) == 0 && ts < s + max_size {
                        let mut e = s + step;
                        while e <= s + max_size {
                            if ts < e {
                                v.push((s, e));
                            }
                            e += step;
                        }
                    }
                }
            }
        }
        v
    }

    #[test]
    fn assigners_agree_with_brute_force_and_flinks_order() {
        let tvfs = [
            Tvf::Tumble { size: 7, offset: 0 },
            Tvf::Tumble { size: 7, offset: 3 },
            Tvf::Tumble {
                size: 7,
                offset: -2,
            },
            Tvf::Hop {
                size: 10,
                slide: 3,
                offset: 0,
            },
            Tvf::Hop {
                size: 9,
                slide: 3,
                offset: 1,
            },
            Tvf::Cumulate {
                max_size: 12,
                step: 4,
                offset: 0,
            },
            Tvf::Cumulate {
                max_size: 12,
                step: 3,
                offset: 5,
            },
        ];
        for tvf in &tvfs {
            for ts in -40..40 {
                let got = tvf.assign(ts);
                let mut want = brute(tvf, ts);
                let mut sorted = got.clone();
                sorted.sort();
                want.sort();
                assert_eq!(sorted, want, "{tvf:?} ts {ts}");
                match tvf {
                    // Descending starts (SlidingWindowAssigner).
                    Tvf::Hop { .. } => assert!(got.windows(2).all(|w| w[0].0 > w[1].0)),
                    // Ascending ends (CumulativeWindowAssigner).
                    Tvf::Cumulate { .. } => assert!(got.windows(2).all(|w| w[0].1 < w[1].1)),
                    Tvf::Tumble { .. } => assert_eq!(got.len(), 1),
                }
            }
        }
    }

    #[test]
    fn window_start_floors() {
        assert_eq!(window_start_with_offset(-1, 0, 7), -7);
        assert_eq!(window_start_with_offset(13, 3, 5), 13);
        assert_eq!(window_start_with_offset(12, 3, 5), 8);
    }

    #[test]
    fn flink_spec_strings() {
        let mut s = TvfSpec {
            size: crate::time::Millis(5000),
            ..TvfSpec::default()
        };
        assert_eq!(spec_string(&s), "TUMBLE(size=[5 s])");
        s.kind = TvfKind::Hop;
        s.size = crate::time::Millis(600_000);
        s.slide = Some(crate::time::Millis(1500));
        assert_eq!(spec_string(&s), "HOP(size=[10 min], slide=[1500 ms])");
    }
}
