//! Flink's `TimeWindow` (`api/windowing/windows/TimeWindow.java`: `maxTimestamp`,
//! `intersects`, `cover`, `getWindowStartWithOffset`, `hashCode`) and the DataStream window
//! assigners (`api/windowing/assigners/{TumblingEventTimeWindows,SlidingEventTimeWindows,
//! EventTimeSessionWindows}.java`, `assignWindows`), as the window operator
//! ([`super::window`]) uses them; 2.3.0.

use crate::javamap::JavaHash;
use std::fmt;

/// A `TimeWindow` `[start, end)`: the timer namespace and the state namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Win {
    pub start: i64,
    pub end: i64,
}

impl Win {
    /// `TimeWindow.maxTimestamp()` = `end - 1`.
    pub fn max_timestamp(self) -> i64 {
        self.end.wrapping_sub(1)
    }

    /// `TimeWindow.intersects`: overlapping or touching.
    pub fn intersects(self, o: Win) -> bool {
        self.start <= o.end && self.end >= o.start
    }

    /// `TimeWindow.cover`.
    pub fn cover(self, o: Win) -> Win {
        Win {
            start: self.start.min(o.start),
            end: self.end.max(o.end),
        }
    }
}

impl fmt::Display for Win {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {})", self.start, self.end)
    }
}

/// `TimeWindow.hashCode()`; `TimeWindow` is not `Comparable`.
impl JavaHash for Win {
    fn java_hash(&self) -> i32 {
        long_to_int_with_bit_mixing(self.start.wrapping_add(self.end))
    }
}

/// `org.apache.flink.util.MathUtils.longToIntWithBitMixing` (2.3.0 bytecode: the splitmix64
/// finaliser, shifts 30/27/31).
pub fn long_to_int_with_bit_mixing(v: i64) -> i32 {
    let mut x = v as u64;
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^= x >> 31;
    x as u32 as i32
}

/// `TimeWindow.getWindowStartWithOffset` (Java `%` truncates; negative remainders floor).
pub fn window_start_with_offset(ts: i64, offset: i64, size: i64) -> i64 {
    let rem = ts.wrapping_sub(offset).wrapping_rem(size);
    if rem < 0 {
        ts.wrapping_sub(rem.wrapping_add(size))
    } else {
        ts.wrapping_sub(rem)
    }
}

/// The window assigner of the job.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Assigner {
    /// `TumblingEventTimeWindows.of(size, offset)` (stagger ALIGNED).
    Tumbling { size: i64, offset: i64 },
    /// `SlidingEventTimeWindows.of(size, slide, offset)`.
    Sliding { size: i64, slide: i64, offset: i64 },
    /// `EventTimeSessionWindows.withGap(gap)`.
    Session { gap: i64 },
}

impl Assigner {
    /// `assignWindows` into `out` (cleared first), in Flink's order.
    pub(super) fn assign(self, ts: i64, out: &mut Vec<Win>) {
        out.clear();
        match self {
            Assigner::Tumbling { size, offset } => {
                let start = window_start_with_offset(ts, offset.wrapping_rem(size), size);
                out.push(Win {
                    start,
                    end: start.wrapping_add(size),
                });
            }
            Assigner::Sliding {
                size,
                slide,
                offset,
            } => {
                let last = window_start_with_offset(ts, offset, slide);
                let lower = ts.wrapping_sub(size);
                let mut start = last;
                while start > lower {
                    out.push(Win {
                        start,
                        end: start.wrapping_add(size),
                    });
                    start = start.wrapping_sub(slide);
                }
            }
            Assigner::Session { gap } => out.push(Win {
                start: ts,
                end: ts.wrapping_add(gap),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::javamap::JavaHashMap;

    fn ws(v: &[(i64, i64)]) -> Vec<Win> {
        v.iter().map(|&(start, end)| Win { start, end }).collect()
    }

    #[test]
    fn window_start_floors_like_time_window() {
        // TimeWindowTest.testGetWindowStartWithOffset and floor semantics for negatives.
        assert_eq!(window_start_with_offset(7, 0, 7), 7);
        assert_eq!(window_start_with_offset(6, 0, 7), 0);
        assert_eq!(window_start_with_offset(-1, 0, 7), -7);
        assert_eq!(window_start_with_offset(-7, 0, 7), -7);
        assert_eq!(window_start_with_offset(-8, 0, 7), -14);
        assert_eq!(window_start_with_offset(1, 2, 7), -5);
        assert_eq!(window_start_with_offset(2, 2, 7), 2);
        assert_eq!(window_start_with_offset(8, -1, 7), 6);
    }

    #[test]
    fn assigners_follow_flink_order() {
        let mut out = Vec::new();
        Assigner::Tumbling {
            size: 10_000,
            offset: 3_000,
        }
        .assign(2_000, &mut out);
        assert_eq!(out, ws(&[(-7_000, 3_000)]));
        Assigner::Tumbling {
            size: 10_000,
            offset: -3_000,
        }
        .assign(7_000, &mut out);
        assert_eq!(out, ws(&[(7_000, 17_000)]));
        // Descending start order; start > ts - size.
        Assigner::Sliding {
            size: 6_000,
            slide: 2_000,
            offset: 0,
        }
        .assign(199_000, &mut out);
        assert_eq!(
            out,
            ws(&[(198_000, 204_000), (196_000, 202_000), (194_000, 200_000)])
        );
        // A slide that does not divide the size: 2 or 3 windows depending on ts.
        Assigner::Sliding {
            size: 5_000,
            slide: 2_000,
            offset: 0,
        }
        .assign(4_000, &mut out);
        assert_eq!(out, ws(&[(4_000, 9_000), (2_000, 7_000), (0, 5_000)]));
        Assigner::Sliding {
            size: 5_000,
            slide: 2_000,
            offset: 0,
        }
        .assign(5_000, &mut out);
        assert_eq!(out, ws(&[(4_000, 9_000), (2_000, 7_000)]));
        // slide > size: a row in the gap has no window at all.
        Assigner::Sliding {
            size: 5_000,
            slide: 10_000,
            offset: 0,
        }
        .assign(7_000, &mut out);
        assert!(out.is_empty());
        Assigner::Sliding {
            size: 10_000,
            slide: 5_000,
            offset: 1_000,
        }
        .assign(1_000, &mut out);
        assert_eq!(out, ws(&[(1_000, 11_000), (-4_000, 6_000)]));
        Assigner::Session { gap: 5_000 }.assign(199_000, &mut out);
        assert_eq!(out, ws(&[(199_000, 204_000)]));
    }

    #[test]
    fn time_window_hash_code_matches_java() {
        // new TimeWindow(s, e).hashCode() printed by Flink 2.3.0.
        assert_eq!(
            Win {
                start: 1000,
                end: 4000
            }
            .java_hash(),
            1040397190
        );
        assert_eq!(
            Win {
                start: 4000,
                end: 7000
            }
            .java_hash(),
            -1472369174
        );
        assert_eq!(
            Win {
                start: 5000,
                end: 8000
            }
            .java_hash(),
            1536163781
        );
        // new HashSet<>(A, N, B) iterated as [1000,4000) [4000,7000) [5000,8000).
        let mut set: JavaHashMap<Win, ()> = JavaHashMap::new();
        for w in ws(&[(1000, 4000), (4000, 7000), (5000, 8000)]) {
            set.insert(w, ());
        }
        assert_eq!(
            set.keys().copied().collect::<Vec<_>>(),
            ws(&[(1000, 4000), (4000, 7000), (5000, 8000)])
        );
        let mut set: JavaHashMap<Win, ()> = JavaHashMap::new();
        for w in ws(&[(10_000, 13_000), (13_000, 16_000), (14_000, 17_000)]) {
            set.insert(w, ());
        }
        // java.util.HashSet order printed by Java 17; MergingWindowSet (2.3.0) removes the new
        // window [13000,16000) and picks [14000,17000) as the state window.
        assert_eq!(
            set.keys().copied().collect::<Vec<_>>(),
            ws(&[(13_000, 16_000), (14_000, 17_000), (10_000, 13_000)])
        );
    }
}
