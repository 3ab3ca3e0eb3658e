//! Flink's timer queue for the heap state backend, with its exact tie-breaking.
//!
//! With the default `hashmap` state backend, `InternalTimerServiceImpl` keeps its event-time
//! (and processing-time) timers in a `HeapPriorityQueueSet<TimerHeapInternalTimer<K, N>>`
//! (`org.apache.flink.runtime.state.heap.HeapPriorityQueueSet`, created by
//! `HeapPriorityQueueSetFactory.create`). That is a binary min-heap
//! (`org.apache.flink.runtime.state.heap.HeapPriorityQueue` on top of `AbstractHeapPriorityQueue`)
//! ordered **only by timestamp** (`TimerHeapInternalTimer.comparePriorityTo` =
//! `Long.compare(timestamp, other.timestamp)`), plus hash maps that make it a set of
//! `(timestamp, key, namespace)`. Timers with equal timestamps therefore come out in the order
//! the heap mechanics produce — neither insertion nor key order (e.g. keys a, b, c registered at
//! the same timestamp poll as a, c, b). [`TimerQueue`] replays those mechanics exactly:
//!
//! - the heap array is 1-based: the root is index 1, the parent of `i` is `i >>> 1`;
//! - `add` appends at `size + 1` and sifts up while *strictly* smaller than the parent;
//! - removing index `i` (`poll` is `i = 1`) moves the last element to `i`, sifts it down —
//!   taking the right child only if strictly smaller than the left one, moving while the child
//!   is strictly smaller — and, if it did not move, sifts it up
//!   (`HeapPriorityQueue.removeInternal` / `adjustElementAtIndex`). During that sift-down the
//!   heap size still counts the vacated last slot (Flink decrements it afterwards); this
//!   cannot change the result and is reproduced anyway;
//! - adding a timer equal to a present one is a no-op; deleting removes it wherever it is.

use crate::fasthash::FxHashMap;
use std::hash::Hash;

/// A timer: `TimerHeapInternalTimer(timestamp, key, namespace)`. Equality (and so
/// de-duplication) covers all three fields.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Timer<K, N> {
    pub timestamp: i64,
    pub key: K,
    pub namespace: N,
}

/// One heap slot: the priority (timestamp) next to the arena index of the timer.
#[derive(Clone, Copy, Debug)]
struct HeapEntry {
    timestamp: i64,
    slot: u32,
}

/// `HeapPriorityQueueSet<TimerHeapInternalTimer<K, N>>`: a timestamp-ordered min-heap of
/// distinct timers with Flink's exact sift mechanics (see the module documentation).
/// `add`, `delete` and `poll` are O(log n).
///
/// Layout: the heap array holds `(timestamp, slot)` pairs; the timers live in an arena
/// (`timers[slot]`) and each slot's 1-based heap index (`HeapPriorityQueueElement
/// .getInternalIndex`) in a dense `pos[slot]` array, so a sift step writes 4 bytes there.
#[derive(Clone, Debug)]
pub struct TimerQueue<K: Eq + Hash + Clone, N: Eq + Hash + Clone> {
    /// `heap[i]` is Flink's `queue[i]`; `heap[0]` is an unused placeholder (Flink's array
    /// leaves index 0 empty too), so the 1-based index arithmetic needs no `- 1`.
    heap: Vec<HeapEntry>,
    /// The timer of each arena slot (`None` when free).
    timers: Vec<Option<Timer<K, N>>>,
    /// 1-based heap index of each arena slot (stale when free). Kept only with `dedup`
    /// (`delete` finds the slot through `index`); without it, `delete` searches the heap,
    /// which gives the index as well, and the sift loops write nothing here.
    pos: Vec<u32>,
    free: Vec<u32>,
    /// The de-duplication maps (one per key group in Flink; one map here, which does not
    /// affect the order): timer → arena slot. Not kept by a [`TimerQueue::new_unique`] queue
    /// in release builds.
    index: FxHashMap<Timer<K, N>, u32>,
    /// Keep `index` (see [`TimerQueue::new_unique`]).
    dedup: bool,
    /// Made by [`TimerQueue::new_unique`]: a duplicate is the caller's bug.
    unique: bool,
}

impl<K: Eq + Hash + Clone, N: Eq + Hash + Clone> Default for TimerQueue<K, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Eq + Hash + Clone, N: Eq + Hash + Clone> TimerQueue<K, N> {
    /// An empty queue.
    pub fn new() -> Self {
        TimerQueue {
            heap: vec![PLACEHOLDER],
            timers: Vec::new(),
            pos: Vec::new(),
            free: Vec::new(),
            index: FxHashMap::default(),
            dedup: true,
            unique: false,
        }
    }

    /// An empty queue for a caller that never adds a timer equal to a pending one (and so
    /// needs no de-duplication): the heap is the same, without the hash set's two lookups
    /// per timer. `delete` and `contains` then search linearly. Debug builds keep the set
    /// anyway and panic on a duplicate, so the tests check the caller's promise.
    pub fn new_unique() -> Self {
        TimerQueue {
            dedup: cfg!(debug_assertions),
            unique: true,
            ..Self::new()
        }
    }

    /// A queue without `dedup` and without positions, as `new_unique` makes it in release
    /// builds (tests compare it with the others in debug builds too).
    #[cfg(test)]
    fn new_untracked() -> Self {
        TimerQueue {
            dedup: false,
            unique: true,
            ..Self::new()
        }
    }

    /// The arena slot and the 1-based heap index of a pending timer equal to `timer`.
    fn find(&self, timer: &Timer<K, N>) -> Option<(u32, usize)> {
        if self.dedup {
            let slot = *self.index.get(timer)?;
            Some((slot, self.pos[slot as usize] as usize))
        } else {
            self.heap[1..]
                .iter()
                .position(|e| self.timers[e.slot as usize].as_ref() == Some(timer))
                .map(|i| (self.heap[i + 1].slot, i + 1))
        }
    }

    /// Number of timers.
    pub fn len(&self) -> usize {
        self.heap.len() - 1
    }

    /// `true` if there is no timer.
    pub fn is_empty(&self) -> bool {
        self.heap.len() == 1
    }

    /// `true` if an equal timer (same timestamp, key and namespace) is queued.
    pub fn contains(&self, timer: &Timer<K, N>) -> bool {
        self.find(timer).is_some()
    }

    /// `HeapPriorityQueueSet.add`: queues the timer unless an equal one is present. Returns
    /// `true` if it was added. (Flink's own return value means "the head may have changed".)
    pub fn add(&mut self, timer: Timer<K, N>) -> bool {
        use std::collections::hash_map::Entry;
        let timestamp = timer.timestamp;
        if !self.dedup {
            let slot = match self.free.pop() {
                Some(s) => {
                    self.timers[s as usize] = Some(timer);
                    s
                }
                None => {
                    self.timers.push(Some(timer));
                    (self.timers.len() - 1) as u32
                }
            };
            self.push_heap(timestamp, slot);
            return true;
        }
        // One hash per add: the entry is looked up once, whether or not it is present.
        let vacant = match self.index.entry(timer) {
            Entry::Occupied(_) => {
                assert!(!self.unique, "duplicate timer added to a unique TimerQueue");
                return false;
            }
            Entry::Vacant(v) => v,
        };
        let slot = match self.free.pop() {
            Some(s) => {
                self.timers[s as usize] = Some(vacant.key().clone());
                s
            }
            None => {
                self.timers.push(Some(vacant.key().clone()));
                self.pos.push(0);
                (self.timers.len() - 1) as u32
            }
        };
        vacant.insert(slot);
        self.push_heap(timestamp, slot);
        true
    }

    /// `HeapPriorityQueue.addInternal`: increaseSizeByOne, moveElementToIdx, siftUp.
    fn push_heap(&mut self, timestamp: i64, slot: u32) {
        self.heap.push(HeapEntry { timestamp, slot });
        let idx = self.heap.len() - 1;
        if self.dedup {
            self.pos[slot as usize] = idx as u32;
            self.sift_up::<true>(idx);
        } else {
            self.sift_up::<false>(idx);
        }
    }

    /// `HeapPriorityQueueSet.remove`: deletes the equal timer if present; returns `true` if
    /// one was removed.
    pub fn delete(&mut self, timer: &Timer<K, N>) -> bool {
        let Some((slot, pos)) = self.find(timer) else {
            return false;
        };
        if self.dedup {
            self.index.remove(timer);
        }
        self.remove_at(pos);
        self.timers[slot as usize] = None;
        self.free.push(slot);
        true
    }

    /// The timer with the smallest timestamp (Flink's heap head), if any.
    pub fn peek(&self) -> Option<&Timer<K, N>> {
        self.heap.get(1).map(|e| self.timer(e.slot))
    }

    /// The smallest timestamp (the head's), if any: cheaper than `peek` (no arena access).
    pub fn peek_timestamp(&self) -> Option<i64> {
        self.heap.get(1).map(|e| e.timestamp)
    }

    /// `HeapPriorityQueueSet.poll`: removes and returns the head.
    pub fn poll(&mut self) -> Option<Timer<K, N>> {
        let head = self.heap.get(1)?.slot;
        self.remove_at(1);
        let timer = self.timers[head as usize].take().expect("live slot");
        self.free.push(head);
        if self.dedup {
            self.index.remove(&timer);
        }
        Some(timer)
    }

    /// Polls the head if its timestamp is `<= time` — one step of
    /// `InternalTimerServiceImpl.advanceWatermark(time)` (or `onProcessingTime`), which
    /// repeats this until it returns `None`, firing each timer as it is polled.
    #[inline]
    pub fn poll_due(&mut self, time: i64) -> Option<Timer<K, N>> {
        if self.heap.get(1)?.timestamp <= time {
            self.poll()
        } else {
            None
        }
    }

    /// The timers in heap-array order (`HeapPriorityQueue.iterator()`), e.g. for display.
    pub fn iter(&self) -> impl Iterator<Item = &Timer<K, N>> + '_ {
        self.heap[1..].iter().map(|e| self.timer(e.slot))
    }

    /// Removes every timer (`HeapPriorityQueueSet.clear`).
    pub fn clear(&mut self) {
        self.heap.truncate(1);
        self.timers.clear();
        self.pos.clear();
        self.free.clear();
        self.index.clear();
    }

    // ---- heap mechanics (HeapPriorityQueue) ----------------------------------------------

    fn timer(&self, slot: u32) -> &Timer<K, N> {
        self.timers[slot as usize].as_ref().expect("live slot")
    }

    /// Flink's `queue[i]` (1-based).
    #[inline]
    fn at(&self, i: usize) -> HeapEntry {
        self.heap[i]
    }

    /// `HeapPriorityQueue.removeInternal(removeIdx)`.
    fn remove_at(&mut self, remove_idx: usize) {
        if self.dedup {
            self.remove_at_with::<true>(remove_idx)
        } else {
            self.remove_at_with::<false>(remove_idx)
        }
    }

    /// `remove_at`, keeping `pos` up to date if `POS`.
    #[inline]
    fn remove_at_with<const POS: bool>(&mut self, remove_idx: usize) {
        let old_size = self.heap.len() - 1;
        if remove_idx != old_size {
            // moveElementToIdx
            let element = self.at(old_size);
            self.heap[remove_idx] = element;
            if POS {
                self.pos[element.slot as usize] = remove_idx as u32;
            }
            // adjustElementAtIndex: siftDown, then siftUp if it stayed. The size is still
            // `old_size` here, as in Flink (the stale copy in the last slot compares equal).
            self.sift_down::<POS>(remove_idx, old_size);
            if self.at(remove_idx).slot == element.slot {
                self.sift_up::<POS>(remove_idx);
            }
        }
        self.heap.pop();
    }

    /// `HeapPriorityQueue.siftUp`.
    fn sift_up<const POS: bool>(&mut self, mut idx: usize) {
        let heap = &mut self.heap[..];
        let pos = &mut self.pos[..];
        let current = heap[idx];
        let mut parent = idx >> 1;
        while parent > 0 && current.timestamp < heap[parent].timestamp {
            let p = heap[parent];
            heap[idx] = p;
            if POS {
                pos[p.slot as usize] = idx as u32;
            }
            idx = parent;
            parent >>= 1;
        }
        heap[idx] = current;
        if POS {
            pos[current.slot as usize] = idx as u32;
        }
    }

    /// `HeapPriorityQueue.siftDown` with Flink's `heapSize`. The hot loop of `poll`: it works
    /// on a slice of exactly `heap_size + 1` entries, so every child index it reads is
    /// checked once by the loop condition (no separate bounds check).
    fn sift_down<const POS: bool>(&mut self, mut idx: usize, heap_size: usize) {
        let heap = &mut self.heap[..=heap_size];
        let pos = &mut self.pos[..];
        let current = heap[idx];
        let mut first = idx << 1;
        if first < heap_size && heap[first + 1].timestamp < heap[first].timestamp {
            first += 1;
        }
        while first <= heap_size && heap[first].timestamp < current.timestamp {
            let child = heap[first];
            heap[idx] = child;
            if POS {
                pos[child.slot as usize] = idx as u32;
            }
            idx = first;
            first = idx << 1;
            if first < heap_size && heap[first + 1].timestamp < heap[first].timestamp {
                first += 1;
            }
        }
        heap[idx] = current;
        if POS {
            pos[current.slot as usize] = idx as u32;
        }
    }
}

/// `heap[0]`: never read as an element.
const PLACEHOLDER: HeapEntry = HeapEntry {
    timestamp: i64::MIN,
    slot: u32::MAX,
};

#[cfg(test)]
mod tests {
    use super::*;

    type Q = TimerQueue<String, String>;

    fn t(ts: i64, key: &str, ns: &str) -> Timer<String, String> {
        Timer {
            timestamp: ts,
            key: key.to_string(),
            namespace: ns.to_string(),
        }
    }

    fn list(v: &[(i64, &str, &str)]) -> Vec<Timer<String, String>> {
        v.iter().map(|&(ts, k, n)| t(ts, k, n)).collect()
    }

    fn drain(q: &mut Q) -> Vec<Timer<String, String>> {
        std::iter::from_fn(|| q.poll()).collect()
    }

    fn heap(q: &Q) -> Vec<Timer<String, String>> {
        q.iter().cloned().collect()
    }

    /// Checks the heap property and the stored positions.
    fn check(q: &Q) {
        for i in 1..=q.len() {
            if q.dedup {
                assert_eq!(q.pos[q.at(i).slot as usize] as usize, i);
            }
            if i > 1 {
                assert!(q.at(i >> 1).timestamp <= q.at(i).timestamp);
            }
        }
        assert_eq!(q.index.len(), q.len());
    }

    // Expected orders below were printed by real Flink 2.3.0
    // `org.apache.flink.runtime.state.heap.HeapPriorityQueueSet` holding
    // `org.apache.flink.streaming.api.operators.TimerHeapInternalTimer`s, created like
    // `HeapPriorityQueueSetFactory.create` (conformance/vectors/TimerCheck.java).

    #[test]
    fn equal_timestamps_poll_in_flink_order() {
        let mut q = Q::new();
        for k in ["a", "b", "c"] {
            assert!(q.add(t(9, k, "w")));
        }
        assert_eq!(
            heap(&q),
            list(&[(9, "a", "w"), (9, "b", "w"), (9, "c", "w")])
        );
        assert_eq!(
            drain(&mut q),
            list(&[(9, "a", "w"), (9, "c", "w"), (9, "b", "w")])
        );

        for k in ["a", "b", "c", "d", "e", "f", "g"] {
            q.add(t(9, k, "w"));
        }
        assert_eq!(
            drain(&mut q),
            list(&[
                (9, "a", "w"),
                (9, "g", "w"),
                (9, "f", "w"),
                (9, "e", "w"),
                (9, "d", "w"),
                (9, "c", "w"),
                (9, "b", "w")
            ])
        );
    }

    #[test]
    fn sliding_window_timers_poll_in_flink_order() {
        // Sliding windows of size 10, slide 5: each element registers a timer at
        // window.maxTimestamp for each of its windows, latest window start first.
        let events: [(&str, i64); 9] = [
            ("a", 1),
            ("b", 2),
            ("c", 3),
            ("a", 6),
            ("c", 7),
            ("b", 8),
            ("b", 11),
            ("a", 12),
            ("c", 14),
        ];
        let mut q = Q::new();
        for (key, ts) in events {
            let last_start = ts - ts.rem_euclid(5);
            let mut start = last_start;
            while start > ts - 10 {
                q.add(t(start + 9, key, &format!("[{},{})", start, start + 10)));
                start -= 5;
            }
        }
        check(&q);
        #[rustfmt::skip]
        assert_eq!(heap(&q), list(&[(4, "a", "[-5,5)"), (4, "b", "[-5,5)"), (4, "c", "[-5,5)"), (9, "a", "[0,10)"), (9, "c", "[0,10)"), (9, "b", "[0,10)"), (14, "a", "[5,15)"), (14, "c", "[5,15)"), (14, "b", "[5,15)"), (19, "b", "[10,20)"), (19, "a", "[10,20)"), (19, "c", "[10,20)")]));
        #[rustfmt::skip]
        assert_eq!(drain(&mut q), list(&[(4, "a", "[-5,5)"), (4, "b", "[-5,5)"), (4, "c", "[-5,5)"), (9, "a", "[0,10)"), (9, "c", "[0,10)"), (9, "b", "[0,10)"), (14, "b", "[5,15)"), (14, "c", "[5,15)"), (14, "a", "[5,15)"), (19, "c", "[10,20)"), (19, "b", "[10,20)"), (19, "a", "[10,20)")]));
    }

    #[test]
    fn delete_readd_and_duplicates_match_flink() {
        let mut q = Q::new();
        for (i, ts) in [5, 3, 8, 3, 1, 9, 3, 5, 2, 7].into_iter().enumerate() {
            q.add(t(ts, &format!("k{i}"), "n"));
        }
        #[rustfmt::skip]
        assert_eq!(heap(&q), list(&[(1, "k4", "n"), (2, "k8", "n"), (3, "k6", "n"), (3, "k1", "n"), (3, "k3", "n"), (9, "k5", "n"), (8, "k2", "n"), (5, "k7", "n"), (5, "k0", "n"), (7, "k9", "n")]));
        assert!(q.delete(&t(3, "k3", "n")));
        assert!(q.delete(&t(5, "k0", "n")));
        assert!(!q.delete(&t(99, "k0", "n")));
        check(&q);
        #[rustfmt::skip]
        assert_eq!(heap(&q), list(&[(1, "k4", "n"), (2, "k8", "n"), (3, "k6", "n"), (3, "k1", "n"), (7, "k9", "n"), (9, "k5", "n"), (8, "k2", "n"), (5, "k7", "n")]));
        assert!(q.add(t(3, "k3", "n")));
        assert!(!q.add(t(3, "k6", "n")));
        #[rustfmt::skip]
        assert_eq!(heap(&q), list(&[(1, "k4", "n"), (2, "k8", "n"), (3, "k6", "n"), (3, "k1", "n"), (7, "k9", "n"), (9, "k5", "n"), (8, "k2", "n"), (5, "k7", "n"), (3, "k3", "n")]));
        let polls: Vec<_> = (0..3).filter_map(|_| q.poll()).collect();
        assert_eq!(
            polls,
            list(&[(1, "k4", "n"), (2, "k8", "n"), (3, "k3", "n")])
        );
        #[rustfmt::skip]
        assert_eq!(heap(&q), list(&[(3, "k1", "n"), (5, "k7", "n"), (3, "k6", "n"), (8, "k2", "n"), (7, "k9", "n"), (9, "k5", "n")]));
        #[rustfmt::skip]
        assert_eq!(drain(&mut q), list(&[(3, "k1", "n"), (3, "k6", "n"), (5, "k7", "n"), (7, "k9", "n"), (8, "k2", "n"), (9, "k5", "n")]));
        assert!(q.is_empty());
        assert!(q.peek().is_none());
    }

    /// The LCG used by conformance/vectors/TimerCheck.java.
    struct Lcg(i64);

    impl Lcg {
        fn next(&mut self) -> i64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 as u64) >> 33) as i64
        }
    }

    fn mix(h: i64, t: &Timer<i64, i64>) -> i64 {
        h.wrapping_mul(1000003)
            .wrapping_add(t.timestamp)
            .wrapping_mul(1000003)
            .wrapping_add(t.key)
            .wrapping_mul(1000003)
            .wrapping_add(t.namespace)
    }

    #[test]
    fn randomized_sequences_match_flink() {
        // (seed, ops, polled count, poll-order checksum, first 30 polled, final size,
        // final heap-order checksum) from real Flink 2.3.0 HeapPriorityQueueSet (TimerCheck).
        type Case<'a> = (i64, usize, usize, i64, &'a [(i64, i64, i64)], usize, i64);
        #[rustfmt::skip]
        let cases: &[Case] = &[
            (1, 4000, 1056, 7606911256603019790, &[(20, 2, 1), (0, 2, 1), (0, 6, 0), (4, 2, 0), (5, 3, 0), (5, 7, 1), (7, 6, 0), (7, 0, 0), (9, 1, 2), (12, 4, 2), (17, 6, 1), (7, 5, 2), (8, 6, 2), (16, 4, 2), (9, 3, 0), (12, 2, 2), (12, 2, 0), (15, 5, 2), (17, 6, 0), (18, 7, 1), (3, 6, 2), (6, 6, 0), (2, 6, 0), (2, 1, 2), (4, 3, 1), (7, 0, 0), (3, 1, 0), (4, 7, 2), (5, 7, 0), (6, 1, 2)], 233, 4448632941249240876),
            (2, 4000, 1016, -3013581706848836817, &[(7, 0, 2), (1, 7, 0), (13, 6, 1), (16, 3, 1), (2, 3, 1), (6, 2, 1), (4, 6, 0), (7, 0, 1), (9, 5, 2), (11, 6, 0), (11, 2, 1), (3, 7, 0), (3, 4, 0), (7, 4, 2), (10, 6, 1), (11, 4, 0), (13, 6, 2), (11, 1, 0), (3, 0, 1), (2, 6, 0), (4, 2, 1), (0, 0, 2), (6, 6, 1), (8, 0, 1), (3, 3, 2), (0, 2, 2), (4, 3, 1), (5, 6, 1), (7, 0, 1), (7, 4, 0)], 224, -4647857506376655236),
            (3, 4000, 1035, -7509177312856330143, &[(3, 7, 2), (9, 4, 1), (6, 0, 2), (6, 3, 1), (3, 3, 1), (5, 4, 0), (10, 2, 2), (2, 5, 1), (1, 6, 1), (1, 4, 0), (4, 0, 2), (4, 7, 1), (3, 3, 0), (4, 0, 1), (1, 6, 1), (8, 6, 0), (8, 0, 1), (8, 1, 2), (0, 0, 2), (1, 0, 2), (4, 6, 2), (5, 2, 1), (0, 7, 0), (6, 6, 2), (6, 7, 1), (11, 3, 2), (11, 2, 1), (11, 4, 0), (11, 4, 1), (12, 5, 1)], 200, -7472715581061181537),
            (11, 4000, 1022, -8630153607760097924, &[(8, 1, 0), (13, 3, 2), (0, 3, 2), (6, 5, 1), (2, 6, 0), (9, 3, 0), (5, 5, 1), (2, 6, 2), (10, 7, 0), (12, 4, 1), (1, 3, 0), (12, 5, 1), (13, 5, 2), (11, 2, 1), (17, 7, 0), (2, 7, 2), (1, 0, 1), (1, 5, 1), (5, 0, 0), (2, 1, 0), (1, 6, 2), (5, 2, 2), (8, 3, 0), (0, 1, 0), (8, 5, 0), (8, 3, 1), (9, 0, 2), (6, 1, 1), (8, 5, 0), (4, 0, 1)], 247, -3072345374627016614),
            (2024, 4000, 1011, -6860185912159517078, &[(1, 6, 0), (3, 3, 0), (13, 2, 2), (11, 4, 2), (10, 5, 2), (22, 0, 2), (13, 5, 0), (17, 5, 1), (19, 0, 0), (2, 4, 2), (2, 4, 1), (3, 3, 1), (10, 5, 0), (14, 0, 2), (14, 7, 2), (1, 4, 1), (17, 0, 0), (4, 5, 1), (5, 1, 1), (8, 2, 1), (12, 0, 0), (13, 7, 1), (14, 2, 2), (15, 3, 2), (15, 7, 0), (3, 1, 2), (0, 6, 0), (2, 3, 0), (4, 4, 2), (9, 2, 0)], 240, 7665502065590137049),
        ];
        for &(seed, ops, polled, sum, first, size, heap_sum) in cases {
            let mut rng = Lcg(seed);
            let mut q: TimerQueue<i64, i64> = TimerQueue::new();
            let (mut h, mut n, mut got_first) = (0i64, 0usize, Vec::new());
            for _ in 0..ops {
                let kind = rng.next() % 100;
                let timer = Timer {
                    timestamp: rng.next() % 25,
                    key: rng.next() % 8,
                    namespace: rng.next() % 3,
                };
                if kind < 55 {
                    let present = q.contains(&timer);
                    assert_eq!(q.add(timer), !present);
                } else if kind < 75 {
                    let present = q.contains(&timer);
                    assert_eq!(q.delete(&timer), present);
                } else if let Some(t) = q.poll() {
                    h = mix(h, &t);
                    if n < 30 {
                        got_first.push((t.timestamp, t.key, t.namespace));
                    }
                    n += 1;
                }
            }
            assert_eq!((n, h), (polled, sum), "seed {seed}");
            assert_eq!(got_first, first, "seed {seed}");
            assert_eq!(q.len(), size);
            assert_eq!(q.iter().fold(0, mix), heap_sum, "seed {seed}");
        }
    }

    #[test]
    fn a_unique_queue_polls_like_a_deduplicating_one() {
        // The same distinct timers, deletes and polls on both kinds of queue (LCG as above).
        let mut rng = Lcg(99);
        let mut a: TimerQueue<i64, i64> = TimerQueue::new();
        let mut b: TimerQueue<i64, i64> = TimerQueue::new_unique();
        // And the release build's unique queue (no set, no positions), in any build.
        let mut c: TimerQueue<i64, i64> = TimerQueue::new_untracked();
        for _ in 0..4000 {
            let timer = Timer {
                timestamp: rng.next() % 25,
                key: rng.next() % 8,
                namespace: rng.next() % 3,
            };
            match rng.next() % 4 {
                0 | 1 if !a.contains(&timer) => {
                    assert!(a.add(timer.clone()) && b.add(timer.clone()) && c.add(timer.clone()));
                }
                2 => {
                    let deleted = a.delete(&timer);
                    assert_eq!(deleted, b.delete(&timer));
                    assert_eq!(deleted, c.delete(&timer));
                }
                _ => {
                    let polled = a.poll();
                    assert_eq!(polled, b.poll());
                    assert_eq!(polled, c.poll());
                }
            }
            assert_eq!(a.contains(&timer), c.contains(&timer));
            assert_eq!(a.iter().collect::<Vec<_>>(), b.iter().collect::<Vec<_>>());
            assert_eq!(a.iter().collect::<Vec<_>>(), c.iter().collect::<Vec<_>>());
        }
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "duplicate timer")]
    fn a_unique_queue_rejects_duplicates_in_debug_builds() {
        let mut q: TimerQueue<i64, i64> = TimerQueue::new_unique();
        let t = Timer {
            timestamp: 1,
            key: 2,
            namespace: 3,
        };
        q.add(t.clone());
        q.add(t);
    }

    #[test]
    fn poll_due_and_clear() {
        let mut q: TimerQueue<&str, ()> = TimerQueue::new();
        for (ts, k) in [(10, "a"), (5, "b"), (10, "c"), (20, "d")] {
            q.add(Timer {
                timestamp: ts,
                key: k,
                namespace: (),
            });
        }
        assert_eq!(q.peek().map(|t| t.key), Some("b"));
        let fired: Vec<&str> = std::iter::from_fn(|| q.poll_due(10))
            .map(|t| t.key)
            .collect();
        assert_eq!(fired, ["b", "a", "c"]);
        assert_eq!(q.len(), 1);
        assert!(q.poll_due(19).is_none());
        q.clear();
        assert!(q.is_empty());
        assert!(q.poll_due(i64::MAX).is_none());
    }
}
