//! The event queue: a binary heap ordered by (time, sequence number). Ties in
//! time resolve in scheduling order, which keeps runs deterministic. Events are
//! small `Copy` values; the heap reuses its storage, so scheduling allocates
//! nothing once the queue has grown to its working size.
//!
//! In front of the heap sits one slot for an event earlier than everything in
//! the heap. A simulation mostly schedules its very next event (a burst's end,
//! then the I/O that burst starts), and such an event goes through the slot
//! without a heap push and pop. The order of events is exactly the heap's.

use crate::core::units::Ns;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

#[derive(Clone, Copy, Debug)]
struct Entry<E> {
    time: Ns,
    seq: u64,
    ev: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, o: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap, we want the earliest first.
        o.time.cmp(&self.time).then(o.seq.cmp(&self.seq))
    }
}

/// Bytes per queued event of type `E` (time, sequence number and the event):
/// the model asserts its events keep this at 32.
pub const fn entry_size<E>() -> usize {
    std::mem::size_of::<Entry<E>>()
}

pub struct EventQueue<E> {
    /// Earlier than every entry of `heap`, when present.
    slot: Option<Entry<E>>,
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
    pub scheduled: u64,
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            slot: None,
            heap: BinaryHeap::with_capacity(1024),
            seq: 0,
            scheduled: 0,
        }
    }

    #[inline]
    pub fn push(&mut self, time: Ns, ev: E) {
        self.seq += 1;
        self.scheduled += 1;
        let e = Entry {
            time,
            seq: self.seq,
            ev,
        };
        // `Entry`'s order is reversed (greater = earlier).
        match self.slot {
            Some(s) if e > s => {
                self.heap.push(s);
                self.slot = Some(e);
            }
            Some(_) => self.heap.push(e),
            None => match self.heap.peek() {
                Some(top) if *top > e => self.heap.push(e),
                _ => self.slot = Some(e),
            },
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Ns, E)> {
        match self.slot.take() {
            Some(e) => Some((e.time, e.ev)),
            None => self.heap.pop().map(|e| (e.time, e.ev)),
        }
    }

    #[inline]
    pub fn peek_time(&self) -> Option<Ns> {
        match &self.slot {
            Some(e) => Some(e.time),
            None => self.heap.peek().map(|e| e.time),
        }
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.slot.is_some() as usize
    }

    pub fn is_empty(&self) -> bool {
        self.slot.is_none() && self.heap.is_empty()
    }
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_then_insertion() {
        let mut q = EventQueue::new();
        q.push(5, 'a');
        q.push(1, 'b');
        q.push(5, 'c');
        q.push(3, 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|x| x.1)).collect();
        assert_eq!(order, ['b', 'd', 'a', 'c']);
    }

    /// The slot in front of the heap keeps exactly the heap's order, also for
    /// ties and for pushes interleaved with pops.
    #[test]
    fn same_order_as_a_plain_sort() {
        let mut rng = crate::core::rng::Rng::new(7, crate::core::rng::Stream::System, 0);
        let mut q = EventQueue::new();
        let mut reference: Vec<(Ns, u64)> = Vec::new();
        let mut now = 0;
        let mut id = 0u64;
        for round in 0..20_000 {
            for _ in 0..rng.below(3) {
                // Many ties: times on a coarse grid ahead of now.
                let t = now + rng.below(8) * 10;
                q.push(t, id);
                reference.push((t, id));
                id += 1;
            }
            if round % 3 != 0 || q.len() > 50 {
                if let Some((t, ev)) = q.pop() {
                    // The earliest time, first scheduled among ties.
                    let k = (0..reference.len()).min_by_key(|&k| reference[k]).unwrap();
                    assert_eq!((t, ev), reference.swap_remove(k));
                    assert!(t >= now);
                    now = t;
                }
            }
            assert_eq!(q.len(), reference.len());
            assert_eq!(q.peek_time(), reference.iter().map(|r| r.0).min());
        }
        while let Some((t, ev)) = q.pop() {
            let k = (0..reference.len()).min_by_key(|&k| reference[k]).unwrap();
            assert_eq!((t, ev), reference.swap_remove(k));
        }
        assert!(q.is_empty());
    }
}
