//! The arrival order of both streams' rows and watermarks (the job's `arrival`), each at the
//! running maximum of the arrival times so far, and [`Arrivals`], the order kept without an
//! entry per row.

use super::*;

/// Everything that reaches the job, in arrival order ([`Plan::arrivals`]), kept without an
/// entry per row: the rows of one stream are consecutive ids and arrive in id order, so which
/// stream's next row comes is one bit a row, and only the watermarks are kept whole, each with
/// its place in the order. Read with [`Arrivals::iter`], which gives each [`Arrival`].
#[derive(Clone, Debug, Default)]
pub struct Arrivals {
    /// The id of each stream's next row to push (after the last push: one past its last row).
    next: [u32; 2],
    /// The first row id of each stream.
    first: [u32; 2],
    /// Bit `i % 64` of word `i / 64`: the `i`-th row to arrive is the right stream's.
    right: Vec<u64>,
    /// Rows pushed.
    rows: usize,
    /// The watermarks in order, each with the number of rows that arrive before it.
    watermarks: Vec<(usize, Arrival)>,
}

impl Arrivals {
    /// An empty order whose left rows start at id `left` and right rows at id `right`.
    pub fn new(left: RowId, right: RowId) -> Arrivals {
        Arrivals {
            next: [left.0, right.0],
            first: [left.0, right.0],
            ..Arrivals::default()
        }
    }

    /// Appends row `id` of `stream`, which must be that stream's next row (its rows arrive in
    /// id order, one after another).
    #[inline]
    pub fn push_row(&mut self, stream: Side, id: RowId) {
        let s = stream.index();
        assert_eq!(
            id.0, self.next[s],
            "the rows of a stream arrive in the order of their ids"
        );
        self.next[s] += 1;
        let (word, bit) = (self.rows / 64, self.rows % 64);
        if bit == 0 {
            self.right.push(0);
        }
        self.right[word] |= (s as u64) << bit;
        self.rows += 1;
    }

    /// Appends a watermark ([`Arrival::Watermark`]).
    pub fn push_watermark(&mut self, wm: Arrival) {
        debug_assert!(matches!(wm, Arrival::Watermark { .. }));
        self.watermarks.push((self.rows, wm));
    }

    /// Reserves room for `rows` more rows.
    pub fn reserve_rows(&mut self, rows: usize) {
        self.right
            .reserve((self.rows + rows).div_ceil(64) - self.right.len());
    }

    /// Rows and watermarks in all.
    pub fn len(&self) -> usize {
        self.rows + self.watermarks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The arrivals in order.
    pub fn iter(&self) -> Iter<'_> {
        let wm_at = self.watermarks.first().map_or(usize::MAX, |w| w.0);
        Iter {
            next: self.first,
            row: 0,
            bits: 0,
            wm: 0,
            wm_at,
            stop: wm_at.min(self.rows),
            of: self,
        }
    }

    pub fn first(&self) -> Option<Arrival> {
        self.iter().next()
    }

    pub fn last(&self) -> Option<Arrival> {
        match self.watermarks.last() {
            Some((at, wm)) if *at == self.rows => Some(*wm),
            _ if self.rows == 0 => None,
            _ => {
                let i = self.rows - 1;
                let s = (self.right[i / 64] >> (i % 64)) as usize & 1;
                Some(Arrival::Row(RowId(self.next[s] - 1)))
            }
        }
    }
}

/// The same arrivals in the same order (however they were pushed).
impl PartialEq for Arrivals {
    fn eq(&self, other: &Arrivals) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<'a> IntoIterator for &'a Arrivals {
    type Item = Arrival;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// The iterator of [`Arrivals::iter`].
#[derive(Clone)]
pub struct Iter<'a> {
    of: &'a Arrivals,
    /// Each stream's next row id.
    next: [u32; 2],
    /// Rows given so far.
    row: usize,
    /// The bits of the rows not yet given in the current word (the next row's lowest).
    bits: u64,
    /// The next watermark's index in `of.watermarks`, and the rows before it.
    wm: usize,
    wm_at: usize,
    /// Rows are given without a further check while `row < stop` (the next watermark's place
    /// or the end of the rows, whichever comes first).
    stop: usize,
}

impl Iterator for Iter<'_> {
    type Item = Arrival;

    #[inline]
    fn next(&mut self) -> Option<Arrival> {
        let of = self.of;
        if self.row >= self.stop {
            if self.row != self.wm_at {
                return None;
            }
            let wm = of.watermarks[self.wm].1;
            self.wm += 1;
            self.wm_at = of.watermarks.get(self.wm).map_or(usize::MAX, |w| w.0);
            self.stop = self.wm_at.min(of.rows);
            return Some(wm);
        }
        if self.row.is_multiple_of(64) {
            self.bits = of.right[self.row / 64];
        }
        let s = (self.bits & 1) as usize;
        self.bits >>= 1;
        let id = self.next[s];
        self.next[s] += 1;
        self.row += 1;
        Some(Arrival::Row(RowId(id)))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.of.rows - self.row) + (self.of.watermarks.len() - self.wm);
        (n, Some(n))
    }
}

impl ExactSizeIterator for Iter<'_> {}

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
) -> Arrivals {
    let [mut left, mut right] = seqs;
    let mut out = Arrivals::new(RowId(left.next), RowId(right.next));
    out.reserve_rows((left.end - left.next) as usize + (right.end - right.next) as usize);
    let mut now = i64::MIN;
    let mut place = |rows: &mut [InputRow], side: Side, a: Option<Arrival>| {
        let Some(mut a) = a else { return };
        match &mut a {
            Arrival::Row(id) => {
                // Written only when raised: most rows already arrive in order, and a row
                // not written is a cache line not dirtied.
                let r = &mut rows[id.0 as usize].arrival;
                if *r < now {
                    *r = now;
                } else {
                    now = *r;
                }
                out.push_row(side, *id);
            }
            Arrival::Watermark { arrival, .. } => {
                now = now.max(*arrival);
                *arrival = now;
                out.push_watermark(a);
            }
        }
    };
    match order {
        ArrivalOrder::LeftFirst => {
            while let Some(a) = left.pop() {
                place(rows, Side::Left, Some(a));
            }
            while let Some(a) = right.pop() {
                place(rows, Side::Right, Some(a));
            }
        }
        ArrivalOrder::Interleave => loop {
            match (left.pop(), right.pop()) {
                (None, None) => break,
                (a, b) => {
                    place(rows, Side::Left, a);
                    place(rows, Side::Right, b);
                }
            }
        },
        ArrivalOrder::ByTime => loop {
            let (side, next) = match (left.peek_time(rows), right.peek_time(rows)) {
                (None, None) => break,
                (Some(l), Some(r)) if l > r => (Side::Right, right.pop()),
                (Some(_), _) => (Side::Left, left.pop()),
                (None, Some(_)) => (Side::Right, right.pop()),
            };
            place(rows, side, next);
        },
    }
    out
}
