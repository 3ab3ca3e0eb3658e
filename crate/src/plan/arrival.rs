//! The arrival order of both streams' rows and watermarks (the job's `arrival`), each at the
//! running maximum of the arrival times so far.

use super::*;

/// One stream's arrivals in its own order: rows `next..end` (consecutive ids), and its
/// watermarks, each after the rows with ids below the one it is stored with.
#[derive(Default)]
pub(super) struct Sequence {
    pub(super) next: u32,
    pub(super) end: u32,
    pub(super) watermarks: std::collections::VecDeque<(u32, Arrival)>,
}

impl Sequence {
    /// The arrival time of what comes next (a row's before the running maximum is applied).
    fn peek_time(&self, rows: &[InputRow]) -> Option<i64> {
        match self.watermarks.front() {
            Some((at, Arrival::Watermark { arrival, .. })) if *at == self.next => Some(*arrival),
            _ if self.next < self.end => Some(rows[self.next as usize].arrival),
            _ => None,
        }
    }

    fn pop(&mut self) -> Option<Arrival> {
        if self
            .watermarks
            .front()
            .is_some_and(|(at, _)| *at == self.next)
        {
            return self.watermarks.pop_front().map(|(_, a)| a);
        }
        if self.next < self.end {
            self.next += 1;
            return Some(Arrival::Row(RowId(self.next - 1)));
        }
        // Only watermarks after the last row are left (a stream's rows end where its
        // watermarks' positions stop).
        self.watermarks.pop_front().map(|(_, a)| a)
    }
}

/// Both streams' arrivals in the job's order, each at the running maximum of the arrival
/// times so far (processing time never goes backwards). The order compares the times as
/// written; a row's time is raised only once it is placed.
pub(super) fn arrival_order(
    rows: &mut [InputRow],
    seqs: [Sequence; 2],
    order: ArrivalOrder,
) -> Vec<Arrival> {
    let [mut left, mut right] = seqs;
    let total = (left.end - left.next) as usize
        + (right.end - right.next) as usize
        + left.watermarks.len()
        + right.watermarks.len();
    let mut out = Vec::with_capacity(total);
    let mut now = i64::MIN;
    let mut place = |rows: &mut [InputRow], a: Option<Arrival>| {
        let Some(mut a) = a else { return };
        match &mut a {
            Arrival::Row(id) => {
                let r = &mut rows[id.0 as usize];
                now = now.max(r.arrival);
                r.arrival = now;
            }
            Arrival::Watermark { arrival, .. } => {
                now = now.max(*arrival);
                *arrival = now;
            }
        }
        out.push(a);
    };
    match order {
        ArrivalOrder::LeftFirst => {
            while let Some(a) = left.pop() {
                place(rows, Some(a));
            }
            while let Some(a) = right.pop() {
                place(rows, Some(a));
            }
        }
        ArrivalOrder::Interleave => loop {
            match (left.pop(), right.pop()) {
                (None, None) => break,
                (a, b) => {
                    place(rows, a);
                    place(rows, b);
                }
            }
        },
        ArrivalOrder::ByTime => loop {
            let next = match (left.peek_time(rows), right.peek_time(rows)) {
                (None, None) => break,
                (Some(l), Some(r)) if l > r => right.pop(),
                (Some(_), _) => left.pop(),
                (None, Some(_)) => right.pop(),
            };
            place(rows, next);
        },
    }
    out
}
