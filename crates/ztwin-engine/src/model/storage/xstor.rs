//! Expanded storage: blocks with owners and a FIFO of insertion order (the
//! oldest block is the least recently used, since a block read back is freed).
//! Part of the storage component; its fields are visible to `storage` only.

use super::FREE;
use crate::core::units::Ns;
use std::collections::VecDeque;

pub struct Xstor {
    pub(super) total: u32,
    /// Owner guest ([`FREE`] if free) and guest page of each block.
    pub(super) owner: Vec<u32>,
    pub(super) vpage: Vec<u32>,
    /// Incremented when a block is freed, so a FIFO entry of an earlier use
    /// is recognised as stale.
    pub(super) gen: Vec<u32>,
    pub(super) free: Vec<u32>,
    /// Blocks in insertion order, with their generation at insertion.
    pub(super) fifo: VecDeque<(u32, u32)>,
    /// Pages being written to DASD by migration.
    pub(super) migrating: u32,
    /// Migration starts when free blocks fall below this.
    pub(super) low: u32,
    /// Insertion time of each block, for the age statistics.
    born: Vec<Ns>,
    /// Sum of `born` over the blocks in use (the average age without a scan).
    born_sum: u128,
}

impl Xstor {
    /// `total` blocks; migration starts below `low_frac` of them free (at
    /// least 16 blocks, or all of a smaller XSTOR).
    pub fn new(total: u32, low_frac: f64) -> Xstor {
        Xstor {
            total,
            owner: vec![FREE; total as usize],
            vpage: vec![0; total as usize],
            gen: vec![0; total as usize],
            free: (0..total).rev().collect(),
            fifo: VecDeque::new(),
            migrating: 0,
            low: ((total as f64 * low_frac) as u32).max(if total > 0 { 16.min(total) } else { 0 }),
            born: vec![0; total as usize],
            born_sum: 0,
        }
    }

    pub fn used(&self) -> u32 {
        self.total - self.free.len() as u32
    }

    /// A free block for a stolen page: a changed stolen page goes to XSTOR
    /// while it has any (spec topic 3, M2 in docs/fidelity.md); migration
    /// keeps blocks free from the low threshold on.
    pub fn has_free(&self) -> bool {
        !self.free.is_empty()
    }

    /// Mean age in ns of the pages in XSTOR at `now` (0 when empty).
    pub fn mean_age(&self, now: Ns) -> u128 {
        match self.used() {
            0 => 0,
            n => (n as u128 * now as u128 - self.born_sum) / n as u128,
        }
    }

    /// A free block for page `vp` of guest `g`, stored at `now` (the caller
    /// checked [`Xstor::has_free`]); it joins the migration FIFO.
    pub(super) fn take(&mut self, g: u32, vp: u32, now: Ns) -> u32 {
        let b = self.free.pop().expect("room checked");
        let bi = b as usize;
        self.owner[bi] = g;
        self.vpage[bi] = vp;
        self.born[bi] = now;
        self.born_sum += now as u128;
        self.fifo.push_back((b, self.gen[bi]));
        b
    }

    /// Block `b` is free again (what [`Xstor::take`] did is undone).
    pub(super) fn release(&mut self, b: u32) {
        self.born_sum -= self.born[b as usize] as u128;
        self.owner[b as usize] = FREE;
        self.gen[b as usize] = self.gen[b as usize].wrapping_add(1);
        self.free.push(b);
    }

    /// The oldest block still in use: its owner and page (stale FIFO entries
    /// are dropped on the way). `None` when the FIFO is empty.
    pub(super) fn pop_oldest(&mut self) -> Option<(u32, u32)> {
        while let Some((b, gen)) = self.fifo.pop_front() {
            let bi = b as usize;
            if self.gen[bi] != gen || self.owner[bi] == FREE {
                continue;
            }
            return Some((self.owner[bi], self.vpage[bi]));
        }
        None
    }
}
