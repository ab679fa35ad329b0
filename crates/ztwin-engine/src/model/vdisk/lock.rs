//! The VDISK serialisation: one lock for the whole system, held `hold` ns
//! per VDISK I/O (DIAGNOSE or SSCH to any user's VDISK).
//!
//! It stands for the lock the DCSS paper blames for VDISK swapping not
//! scaling ("lock contention", each guest with its own VDISK). CP's data
//! areas name no such lock: the VDISK I/O lock they document is one per
//! VDISK (QDISK's QDILOCK), and the VDISK-wide lockwords (QDGBL's QDGALOCK,
//! QDGCLOCK) serialise allocation, not I/O; which shared lock it is, and its
//! hold, are not known (`docs/fidelity.md`, D2, "Which lock?").
//!
//! The twin computes each burst to its end before the next one, so the
//! I/Os of bursts that overlap in simulated time arrive here out of time
//! order: a burst at 10 ms may reach its I/O at 10.4 ms after another burst
//! has already taken the lock at 10.6 ms. The lock therefore keeps its holds
//! as a calendar (disjoint `[from, to)` spans in time order, adjacent ones
//! merged) and gives each I/O the first gap of `hold` at or after its time:
//! two holds never overlap, whatever order they were asked in, and an I/O
//! that finds the lock held spins until that gap.
//!
//! Spans older than [`HORIZON`] before the latest time asked are dropped (no
//! burst reaches back that far), so the calendar stays small: a saturated
//! lock is one merged span.

use crate::core::units::Ns;
use std::collections::VecDeque;

/// How far before the latest request an I/O may still arrive (a burst's
/// length is far less: a time slice, a demand scan).
pub const HORIZON: Ns = 1_000_000_000;

#[derive(Debug)]
pub struct Lock {
    hold: Ns,
    spans: VecDeque<(Ns, Ns)>,
    latest: Ns,
}

impl Lock {
    pub fn new(hold: Ns) -> Lock {
        Lock {
            hold,
            spans: VecDeque::with_capacity(if hold > 0 { 256 } else { 0 }),
            latest: 0,
        }
    }

    /// An I/O at `t` takes the lock: when it holds it (`t` or later).
    #[inline]
    pub fn take(&mut self, t: Ns) -> Ns {
        if self.hold == 0 {
            return t;
        }
        if t > self.latest {
            self.latest = t;
            let keep = self.latest.saturating_sub(HORIZON);
            while self.spans.front().is_some_and(|s| s.1 < keep) {
                self.spans.pop_front();
            }
        }
        // The first span ending after t, then the first gap of `hold`.
        let mut i = self.spans.partition_point(|s| s.1 <= t);
        let mut start = t;
        while i < self.spans.len() {
            let (from, to) = self.spans[i];
            if start + self.hold <= from {
                break;
            }
            start = start.max(to);
            i += 1;
        }
        let end = start + self.hold;
        // Insert [start, end) before span i, merged with touching neighbours.
        let joins_prev = i > 0 && self.spans[i - 1].1 == start;
        let joins_next = i < self.spans.len() && self.spans[i].0 == end;
        match (joins_prev, joins_next) {
            (true, true) => {
                self.spans[i - 1].1 = self.spans[i].1;
                self.spans.remove(i);
            }
            (true, false) => self.spans[i - 1].1 = end,
            (false, true) => self.spans[i].0 = start,
            (false, false) => self.spans.insert(i, (start, end)),
        }
        start
    }

    /// The spans held (for tests: disjoint, in order).
    #[cfg(test)]
    pub fn spans(&self) -> Vec<(Ns, Ns)> {
        self.spans.iter().copied().collect()
    }
}
