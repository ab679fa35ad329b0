//! Paging: page slots on the paging volumes, the table of paging blocks, and
//! the block read and write policy (which volume, how many pages per block).
//!
//! Paging blocks are runs of contiguous slots holding pages written together;
//! a fault on any of them reads the whole block. The I/O itself is the `io`
//! component's: paging allocates a request with an [`Origin`] naming the
//! block, and `model/mod.rs` routes the completion back here.

use super::blocks::{BlockTable, GONE};
use super::io::{Done, Io, Kind, Origin, Request};
use super::storage::{idx, pte, tag, PageEntry, F_LOCK, NO_BLOCK, T_DASD, T_READIN, T_RES};
use super::{Cx, Model};

/// Paging counters of one paging volume (STOASP), cumulative.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SlotCounters {
    /// SSCHs for reads and writes, and pages read and written.
    pub ssch_rd: u64,
    pub ssch_wr: u64,
    pub pages_rd: u64,
    pub pages_wr: u64,
}

/// System-wide paging counters (cumulative).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PagingCounters {
    /// Pages read from and written to paging volumes.
    pub pages_read: u64,
    pub pages_written: u64,
}

/// Pages read and written by one logical CPU or for one guest (cumulative).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PageIo {
    pub read: u64,
    pub written: u64,
}

/// Paging space as the monitor sees it (SYTASG).
#[derive(Clone, Copy, Debug)]
pub struct PagingSample {
    pub total_slots: u64,
    pub used_slots: u64,
    /// Times slot use crossed 90%.
    pub full90: u64,
    pub c: PagingCounters,
}

/// One paging volume as the monitor sees it (STOASP, MTRPAG).
#[derive(Clone, Copy, Debug)]
pub struct PagingVolSample {
    /// The volume in the `io` component.
    pub dev: u32,
    pub slots: u32,
    pub used: u32,
    pub c: SlotCounters,
}

/// The page slots of one paging volume.
pub struct PagingVol {
    /// The volume in the `io` component.
    pub dev: u32,
    pub slots: u32,
    /// One bit per slot, set when used.
    pub bitmap: Vec<u64>,
    pub used: u32,
    /// Where the next search for free slots starts (next fit).
    pub cursor: u32,
    pub c: SlotCounters,
}

impl PagingVol {
    /// `slots` free page slots on volume `dev`.
    fn new(dev: u32, slots: u32) -> PagingVol {
        PagingVol {
            dev,
            slots,
            bitmap: vec![0; (slots as usize).div_ceil(64)],
            used: 0,
            cursor: 0,
            c: SlotCounters::default(),
        }
    }

    fn is_free(&self, s: u32) -> bool {
        self.bitmap[(s / 64) as usize] & (1u64 << (s % 64)) == 0
    }
    fn set(&mut self, s: u32, v: bool) {
        let w = &mut self.bitmap[(s / 64) as usize];
        if v {
            *w |= 1u64 << (s % 64);
        } else {
            *w &= !(1u64 << (s % 64));
        }
    }

    /// Find up to `want` contiguous free slots from the cursor (next fit),
    /// returning (first slot, length). Scans at most the whole volume once.
    fn find_run(&mut self, want: u32) -> Option<(u32, u32)> {
        if self.used >= self.slots {
            return None;
        }
        let mut s = self.cursor % self.slots;
        let mut scanned = 0u32;
        while scanned < self.slots {
            // Skip fully used words quickly.
            if s % 64 == 0 && self.bitmap[(s / 64) as usize] == u64::MAX && s + 64 <= self.slots {
                s = (s + 64) % self.slots;
                scanned += 64;
                continue;
            }
            if self.is_free(s) {
                let mut n = 1;
                while n < want && s + n < self.slots && self.is_free(s + n) {
                    n += 1;
                }
                self.cursor = (s + n) % self.slots;
                return Some((s, n));
            }
            s = (s + 1) % self.slots;
            scanned += 1;
        }
        None
    }
}

/// A block read in flight: the frames being filled and the virtual CPUs
/// waiting for it (the faulting one first).
#[derive(Default)]
pub struct Read {
    /// (guest, page, frame) of each page being read.
    pub frames: Vec<(u32, u32, u32)>,
    pub waiters: Vec<u32>,
}

pub struct Paging {
    /// The paging volumes; a block's volume is an index here.
    pub vols: Vec<PagingVol>,
    pub blocks: BlockTable,
    pub total_slots: u64,
    pub used_slots: u64,
    /// Times slot use crossed 90%.
    pub full90: u64,
    rr: usize,
    /// Block reads in flight (a page being read in points to its read), reused
    /// through `read_free`.
    pub reads: Vec<Read>,
    read_free: Vec<u32>,
    c: PagingCounters,
    by_cpu: Vec<PageIo>,
    by_guest: Vec<PageIo>,
}

impl Paging {
    /// Paging volumes `(io volume, slots)`, blocks of at most `block_max`
    /// pages, for `cpus` logical CPUs and `guests` guests.
    pub fn new(vols: &[(u32, u32)], block_max: u32, cpus: usize, guests: usize) -> Paging {
        Paging {
            vols: vols
                .iter()
                .map(|&(dev, slots)| PagingVol::new(dev, slots))
                .collect(),
            blocks: BlockTable::new(block_max),
            total_slots: vols.iter().map(|&(_, s)| s as u64).sum(),
            used_slots: 0,
            full90: 0,
            rr: 0,
            reads: Vec::new(),
            read_free: Vec::new(),
            c: PagingCounters::default(),
            by_cpu: vec![PageIo::default(); cpus],
            by_guest: vec![PageIo::default(); guests],
        }
    }

    /// Paging space now.
    pub fn sample(&self) -> PagingSample {
        PagingSample {
            total_slots: self.total_slots,
            used_slots: self.used_slots,
            full90: self.full90,
            c: self.c,
        }
    }

    /// The paging volumes, in order.
    pub fn volumes(&self) -> impl Iterator<Item = PagingVolSample> + '_ {
        self.vols.iter().map(|v| PagingVolSample {
            dev: v.dev,
            slots: v.slots,
            used: v.used,
            c: v.c,
        })
    }

    /// Pages read and written by each logical CPU.
    pub fn by_cpu(&self) -> &[PageIo] {
        &self.by_cpu
    }

    /// Pages read and written for guest `g`.
    pub fn guest(&self, g: u32) -> PageIo {
        self.by_guest[g as usize]
    }

    /// Effective block size cap given paging-space fullness: full size below
    /// 50% used, falling linearly to 25% of it at 90% (spec topic 4, [E]).
    fn block_cap(&self, block_max: u32) -> u32 {
        let u = if self.total_slots == 0 {
            1.0
        } else {
            self.used_slots as f64 / self.total_slots as f64
        };
        let f = if u <= 0.5 {
            1.0
        } else {
            (1.0 - 0.75 * ((u - 0.5) / 0.4).min(1.0)).max(0.25)
        };
        ((block_max as f64 * f).round() as u32).max(1)
    }

    /// Pick the paging volume for a write: the lowest smoothed response among
    /// volumes with free slots, round-robin among equals.
    fn pick_volume(&mut self, io: &Io) -> Option<u32> {
        let n = self.vols.len();
        let mut best: Option<(f64, u32)> = None;
        for k in 0..n {
            let pv = ((self.rr + k) % n) as u32;
            let v = &self.vols[pv as usize];
            if v.used >= v.slots {
                continue;
            }
            // Expected wait: smoothed response scaled by requests already queued.
            let l = io.load(v.dev);
            let load = l.smoothed_ms * (1 + l.in_flight as usize) as f64;
            if best.is_none_or(|(b, _)| load < b) {
                best = Some((load, pv));
            }
        }
        self.rr = (self.rr + 1) % n.max(1);
        best.map(|(_, v)| v)
    }

    /// Mark slots `first..first + pages.len()` of paging volume `pv` used and
    /// record them as one block holding `pages`; `writing` while its write is
    /// in flight.
    fn claim_block(&mut self, pv: u32, first: u32, pages: &[(u32, u32)], writing: bool) -> u32 {
        let n = pages.len() as u32;
        let v = &mut self.vols[pv as usize];
        for s in first..first + n {
            v.set(s, true);
        }
        v.used += n;
        self.used_slots += n as u64;
        if self.total_slots > 0 && self.used_slots * 10 >= self.total_slots * 9 {
            self.full90 += 1;
        }
        self.blocks.claim(pv, first, pages, writing)
    }

    /// Forget page (g, vp) in block `b`: free its slot.
    pub fn drop_page(&mut self, b: u32, g: u32, vp: u32) {
        if let Some(slot) = self.blocks.drop_page(b, g, vp) {
            let v = &mut self.vols[self.blocks.vol(b) as usize];
            v.set(slot, false);
            v.used -= 1;
            self.used_slots -= 1;
        }
    }

    /// A new read record (empty lists, their capacity kept).
    fn new_read(&mut self) -> u32 {
        match self.read_free.pop() {
            Some(rd) => {
                let r = &mut self.reads[rd as usize];
                r.frames.clear();
                r.waiters.clear();
                rd
            }
            None => {
                self.reads.push(Read::default());
                (self.reads.len() - 1) as u32
            }
        }
    }

    /// Virtual CPU `v` waits for read `rd` too.
    #[inline]
    pub fn join_read(&mut self, rd: u32, v: u32) {
        self.reads[rd as usize].waiters.push(v);
    }

    /// Consistency: each volume's used-slot count is its bitmap's, and the
    /// totals are the volumes' sums.
    #[cfg(any(test, debug_assertions))]
    pub fn check(&self) {
        let mut used = 0u64;
        for (k, v) in self.vols.iter().enumerate() {
            let bits: u32 = v.bitmap.iter().map(|w| w.count_ones()).sum();
            assert_eq!(
                bits, v.used,
                "paging volume {k}: bitmap and used count differ"
            );
            assert!(v.used <= v.slots);
            used += v.used as u64;
        }
        assert_eq!(used, self.used_slots, "used slots");
        assert_eq!(
            self.vols.iter().map(|v| v.slots as u64).sum::<u64>(),
            self.total_slots
        );
    }

    /// Count a completed paging I/O on its volume.
    fn count(&mut self, block: u32, pages: u32, write: bool) {
        let c = &mut self.vols[self.blocks.vol(block) as usize].c;
        if write {
            c.ssch_wr += 1;
            c.pages_wr += pages as u64;
        } else {
            c.ssch_rd += 1;
            c.pages_rd += pages as u64;
        }
    }
}

/// The `k`-th page of a block read's order: the faulting page `first` at
/// `k = 0`, then slot `k - 1` of the block (`slot(i)` gives slot `i`); `None`
/// for a slot whose copy is gone and for the faulting page's own slot.
#[inline(always)]
fn read_order(
    k: usize,
    first: (u32, u32),
    slot: impl FnOnce(usize) -> (u32, u32),
) -> Option<(u32, u32)> {
    if k == 0 {
        return Some(first);
    }
    let p = slot(k - 1);
    (p != GONE && p != first).then_some(p)
}

/// Whether a page is still to be read from block `b`: on DASD, its copy there.
#[inline(always)]
fn awaits_read(pe: PageEntry, b: u32) -> bool {
    tag(pe.e) == T_DASD && pe.blk == b
}

/// Why a block is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteKind {
    /// Pages stolen from central storage.
    PageOut,
    /// Pages migrated from XSTOR.
    Migrate,
}

impl Model {
    /// Write pages as one block: allocate contiguous slots on the best volume
    /// (possibly fewer pages than offered). Returns pages taken; 0 means paging
    /// space is exhausted (the run abends with PGT004).
    pub(crate) fn start_block_write(
        &mut self,
        cx: &mut Cx,
        items: &[(u32, u32)],
        kind: WriteKind,
    ) -> u32 {
        let cap = self.pg.block_cap(self.block_max).min(items.len() as u32);
        let mut tries = self.pg.vols.len();
        let (pv, first, n) = loop {
            let Some(pv) = self.pg.pick_volume(&self.io) else {
                cx.abend(
                    "PGT004",
                    "paging space is exhausted: no free page slots on any paging volume".into(),
                );
                return 0;
            };
            if let Some((s, n)) = self.pg.vols[pv as usize].find_run(cap) {
                break (pv, s, n);
            }
            tries -= 1;
            if tries == 0 {
                cx.abend("PGT004", "paging space is exhausted".into());
                return 0;
            }
        };
        let b = self.pg.claim_block(pv, first, &items[..n as usize], true);
        self.pg.c.pages_written += n as u64;
        for &(g, _) in &items[..n as usize] {
            self.pg.by_guest[g as usize].written += 1;
        }
        let dev = self.pg.vols[pv as usize].dev;
        cx.charge.sys +=
            self.costs.io + self.costs.page_io * n as u64 + self.io.cp_extra(dev, Kind::Paging, n);
        self.pg.by_cpu[cx.cpu as usize].written += n as u64;
        let origin = match kind {
            WriteKind::PageOut => Origin::PageWrite { block: b },
            WriteKind::Migrate => Origin::Migrate { block: b },
        };
        let r = self
            .io
            .alloc_req(cx, dev, Request::write(n, Kind::Paging), origin);
        self.io.submit(cx, r);
        n
    }

    /// Put pages 0..n of guest `g` that have no content yet on paging slots, in
    /// blocks of the block size, without simulating the writes (an initial
    /// state: the guest was paged out before the run began).
    pub(crate) fn place_paged_out(&mut self, cx: &mut Cx, g: u32, n: u32) {
        let gi = g as usize;
        let bmax = self.block_max as usize;
        let mut vp = 0u32;
        let mut items: Vec<(u32, u32)> = Vec::with_capacity(bmax);
        while vp < n {
            items.clear();
            while vp < n && items.len() < bmax {
                if tag(self.guests[gi].pt[vp as usize].e) == super::storage::T_NONE {
                    items.push((g, vp));
                } else if !items.is_empty() {
                    vp += 1;
                    break;
                }
                vp += 1;
            }
            let mut rest = &items[..];
            while !rest.is_empty() {
                let placed = self.pg.pick_volume(&self.io).and_then(|pv| {
                    self.pg.vols[pv as usize]
                        .find_run(rest.len() as u32)
                        .map(|(first, k)| (pv, first, k))
                });
                let Some((pv, first, k)) = placed else {
                    cx.abend(
                        "PGT004",
                        "paging space is exhausted while placing paged-out guest storage".into(),
                    );
                    return;
                };
                let b = self.pg.claim_block(pv, first, &rest[..k as usize], false);
                for &(_, p) in &rest[..k as usize] {
                    self.guests[gi].pt[p as usize].e = pte(T_DASD, 0);
                    self.guests[gi].pt[p as usize].blk = b;
                }
                self.guests[gi].dasd_pages_add(k as i32);
                rest = &rest[k as usize..];
            }
        }
    }

    /// Prepare the read of block `b` after a fault on (g, vp) by virtual CPU
    /// `v`. Frames are taken for the pages still on DASD, the faulting page
    /// first. Returns `Some(Some(r))` with the I/O request to submit when the
    /// faulting burst ends, `Some(None)` when the block is already being read
    /// (the CPU joined its waiters), `None` when not even one frame could be had.
    pub(crate) fn start_block_read(
        &mut self,
        cx: &mut Cx,
        g: u32,
        vp: u32,
        v: u32,
    ) -> Option<Option<u32>> {
        let b = self.guests[g as usize].pt[vp as usize].blk;
        debug_assert_ne!(b, NO_BLOCK);
        if let Some(rd) = self.pg.blocks.reading(b) {
            self.pg.join_read(rd, v);
            return Some(None);
        }
        let rd = self.pg.new_read();
        // The faulting page first, then the other pages of the block still on
        // DASD (slot k of the block, k = 0..n; no list is built).
        let slots = self.pg.blocks.len(b);
        let mut n = 0u32;
        if self.unscanned_reads && self.st.can_take_unscanned(slots + 1) {
            #[cfg(test)]
            {
                self.unscanned_read_count += 1;
            }
            // Frames to spare: no demand scan can run while the block's pages
            // take theirs, so nothing else changes under the loop and it runs
            // on borrowed tables. The same steps as the loop below.
            let Model { st, guests, pg, .. } = self;
            let Paging { blocks, reads, .. } = pg;
            let list = blocks.pages(b);
            let out = &mut reads[rd as usize].frames;
            for k in 0..=list.len() / 2 {
                let Some((pg_, pp)) = read_order(k, (g, vp), |i| (list[2 * i], list[2 * i + 1]))
                else {
                    continue;
                };
                let guest = &mut guests[pg_ as usize];
                if !awaits_read(guest.pt[pp as usize], b) {
                    continue;
                }
                let f = st.take(pg_, pp, F_LOCK).expect("frames were counted");
                guest.gained_frame(f, pp);
                guest.pt[pp as usize].e = pte(T_READIN, rd);
                out.push((pg_, pp, f));
                n += 1;
            }
        } else {
            n = self.block_read_frames(cx, b, rd, g, vp, slots);
        }
        if n == 0 {
            self.pg.read_free.push(rd);
            return None;
        }
        self.pg.join_read(rd, v);
        self.pg.blocks.set_reading(b, Some(rd));
        let dev = self.pg.vols[self.pg.blocks.vol(b) as usize].dev;
        cx.charge.cp += self.costs.fault + self.costs.io + self.io.cp_extra(dev, Kind::Paging, n);
        Some(Some(self.io.alloc_req(
            cx,
            dev,
            Request::read(n, Kind::Paging),
            Origin::PageRead { block: b },
        )))
    }

    /// Frames for read `rd` of block `b` when they may run short: each page
    /// takes its frame through `get_frame` (which may run the demand scan, and
    /// the scan may change the pages' states, so each is checked just before).
    /// Returns the pages that got one; stops at the first that cannot.
    fn block_read_frames(
        &mut self,
        cx: &mut Cx,
        b: u32,
        rd: u32,
        g: u32,
        vp: u32,
        slots: u32,
    ) -> u32 {
        let mut n = 0u32;
        for k in 0..=slots as usize {
            let Some((pg_, pp)) = read_order(k, (g, vp), |i| self.pg.blocks.page(b, i as u32))
            else {
                continue;
            };
            let gi = pg_ as usize;
            if !awaits_read(self.guests[gi].pt[pp as usize], b) {
                continue;
            }
            let Some(f) = self.get_frame(cx, pg_, pp) else {
                break;
            };
            self.st.flags[f as usize] = F_LOCK;
            self.guests[gi].pt[pp as usize].e = pte(T_READIN, rd);
            self.pg.reads[rd as usize].frames.push((pg_, pp, f));
            n += 1;
        }
        n
    }

    /// The write of block `block` completed (`Origin::PageWrite` or `Migrate`).
    pub(crate) fn block_written(&mut self, d: &Done, block: u32) {
        self.pg.count(block, d.pages, true);
        self.pg.blocks.end_write(block);
    }

    /// The read of block `b` completed: its pages are resident, the virtual
    /// CPUs waiting for it run again.
    pub(crate) fn block_read_done(&mut self, d: &Done, b: u32) {
        let pages = d.pages;
        self.pg.count(b, pages, false);
        let rd = self.pg.blocks.reading(b).expect("a block read in flight");
        self.pg.c.pages_read += pages as u64;
        let frames = std::mem::take(&mut self.pg.reads[rd as usize].frames);
        for &(g, vp, f) in &frames {
            let gi = g as usize;
            let e = self.guests[gi].pt[vp as usize].e;
            debug_assert!(tag(e) == T_READIN && idx(e) == rd);
            // Pages arrive unreferenced; the faulting virtual CPU references its
            // page when it runs again.
            self.guests[gi].pt[vp as usize].e = pte(T_RES, f);
            self.st.flags[f as usize] = 0;
            self.pg.by_guest[gi].read += 1;
            if self.logged_off(g) {
                self.discard_page(g, vp);
            }
        }
        self.pg.reads[rd as usize].frames = frames;
        self.pg.by_cpu[d.cpu as usize].read += pages as u64;
        self.pg.blocks.set_reading(b, None);
        // Pages discarded meanwhile may have left the block empty.
        self.pg.blocks.maybe_free(b);
        let waiters = std::mem::take(&mut self.pg.reads[rd as usize].waiters);
        // Validating the pages read is CP work for the guest that faulted.
        if let Some(&w) = waiters.first() {
            self.vcpus[w as usize].owed_cp += self.costs.page_io * pages as u64;
        }
        for &w in &waiters {
            self.io_wait_over(w);
        }
        self.pg.reads[rd as usize].waiters = waiters;
        self.pg.read_free.push(rd);
    }
}
