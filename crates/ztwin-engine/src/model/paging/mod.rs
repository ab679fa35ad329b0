//! The paging component: page slots on the paging volumes, the table of
//! paging blocks ([`blocks`]), and the block read and write policy (which
//! volume, how many pages per block).
//!
//! **Owns** the slots of each paging volume (bitmap, next-fit cursor, used
//! count, the STOASP read/write counters), the block table, the block reads
//! in flight (frames being filled, virtual CPUs waiting; a page being read in
//! points to its read), the paging counters (system-wide, per logical CPU,
//! per guest) and its share of CP costs.
//!
//! **Interface**: [`Paging::write_block`] (one block on the least loaded
//! volume, submitted to `io`), [`Paging::write_pageouts`] (the demand scan's
//! page-outs in blocks), [`Paging::drop_page`], [`Paging::join_read`];
//! [`Backing`], the [`Pager`] that `storage` calls during a scan; for the
//! monitor [`Paging::sample`], [`Paging::volumes`], [`Paging::by_cpu`],
//! [`Paging::guest`]; [`Paging::check`]. The steps that change page states
//! with paging I/O are wiring methods of [`Model`] here: a fault's block read
//! (`start_block_read`; `read_for_lock`, the same read for CP's LOCK with no
//! virtual CPU waiting), its completion (`block_read_done`), a page-out's and
//! a migration's completion, placing a guest's pages on DASD at start.
//!
//! **Parameters**: [`params`] (the block size, its CP costs; slots from the
//! `[[paging]]` groups).
//!
//! **Events**: none of its own. Its I/O is the `io` component's: a request
//! with an [`Origin`] naming the block, routed back by `Model::io_done`.
//!
//! Paging blocks are runs of contiguous slots holding pages written together
//! (a page-out block: the pages of one demand-scan visit to a user; a
//! migration block: XSTOR's oldest pages, whoever owns them); a fault on any
//! of them reads the whole block and makes all its pages valid.

pub mod blocks;
pub mod params;
#[cfg(test)]
mod tests;

use super::io::{Done, Io, Kind, Origin, Request};
use super::storage::{tag, PageEntry, PageOuts, Pager, NO_BLOCK, T_DASD, T_NONE};
use super::{Cx, Model};
use crate::core::units::Ns;
use blocks::{BlockTable, GONE};
use std::collections::VecDeque;

/// Page-out block writes in flight per paging volume (\[E\]): page-outs wait
/// in paging's queue, their frames locked, until a volume has room, so the
/// page reads guests wait for queue behind at most this many page-out writes
/// (not behind a whole demand scan's worth).
pub const PAGEOUT_WRITES_PER_VOLUME: u32 = 4;

/// In paging's queue of page-outs, the page that starts a demand-scan visit's
/// pages (a bit of the page number: virtual storage is far below 2^31 pages).
/// A page-out block holds the pages of one visit only (M1).
const VISIT: u32 = 1 << 31;

/// Slots per gap-and-run cell of a volume [`Paging::occupy`] fills (\[E\]):
/// twice the 16-page block of z/VM 5.x, so a volume 88% full offers runs of
/// about 4 free slots, as FCX109 shows for S6's 3390-3s (block size 4 at
/// 86-88% used, 5 at 83-84%, 1-2 at 99-100%); calibrated on the 88% line.
pub const OCCUPY_CELL: u32 = 32;

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
struct PagingVol {
    /// The volume in the `io` component.
    dev: u32,
    slots: u32,
    /// One bit per slot, set when used.
    bitmap: Vec<u64>,
    used: u32,
    /// Where the next search for free slots starts (next fit).
    cursor: u32,
    /// Page-out block writes in flight.
    writes: u32,
    /// Slots in use at the start by pages the run does not model (see
    /// [`Paging::occupy`]); never freed.
    foreign: u32,
    c: SlotCounters,
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
            writes: 0,
            foreign: 0,
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
struct Read {
    /// (guest, page, frame) of each page being read.
    frames: Vec<(u32, u32, u32)>,
    waiters: Vec<u32>,
}

/// CP time of paging operations, ns.
#[derive(Clone, Copy, Debug, Default)]
pub struct Costs {
    /// Handling a page fault that needs a DASD read (fault, block read start).
    pub fault: Ns,
    /// Per page validated after a block read, or written in a block.
    pub page_io: Ns,
    /// Per real I/O started and its interrupt handled.
    pub io: Ns,
}

pub struct Paging {
    /// The paging volumes; a block's volume is an index here.
    vols: Vec<PagingVol>,
    blocks: BlockTable,
    block_max: u32,
    /// Page-out block writes CP keeps started per volume (`[srm]
    /// pageout_writes`); the rest wait in `pending`.
    pageout_writes: u32,
    costs: Costs,
    total_slots: u64,
    used_slots: u64,
    /// Times slot use crossed 90%.
    full90: u64,
    rr: usize,
    /// Block reads in flight (a page being read in points to its read), reused
    /// through `read_free`.
    reads: Vec<Read>,
    read_free: Vec<u32>,
    /// Scratch list of pages for a block write.
    items: Vec<(u32, u32)>,
    /// Page-outs waiting for a volume with room for a write (guest, page), in
    /// the order the demand scan stole them; their frames stay locked.
    pending: VecDeque<(u32, u32)>,
    /// A block read whose frames are there to spare takes them in one loop
    /// over borrowed tables. Speed only; off only in the test that shows it.
    pub(crate) unscanned_reads: bool,
    /// Block reads that took that loop (for that test).
    #[cfg(test)]
    pub(crate) unscanned_read_count: u64,
    c: PagingCounters,
    by_cpu: Vec<PageIo>,
    by_guest: Vec<PageIo>,
}

impl Paging {
    /// Paging with parameters `p` on paging volumes `(io volume, slots)`, for
    /// `cpus` logical CPUs and `guests` guests.
    pub fn new(p: &params::Params, vols: &[(u32, u32)], cpus: usize, guests: usize) -> Paging {
        let block_max = p.block_max;
        let costs = p.costs();
        Paging {
            vols: vols
                .iter()
                .map(|&(dev, slots)| PagingVol::new(dev, slots))
                .collect(),
            blocks: BlockTable::new(block_max),
            block_max,
            pageout_writes: p.pageout_writes,
            costs,
            total_slots: vols.iter().map(|&(_, s)| s as u64).sum(),
            used_slots: 0,
            full90: 0,
            rr: 0,
            reads: Vec::new(),
            read_free: Vec::new(),
            items: Vec::with_capacity(block_max as usize),
            pending: VecDeque::new(),
            unscanned_reads: true,
            #[cfg(test)]
            unscanned_read_count: 0,
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

    /// A system-owned address space was added after the guests' (a
    /// VDISK's): its pages are counted as a guest's are.
    pub fn add_space(&mut self) {
        self.by_guest.push(PageIo::default());
    }

    /// Pages read and written for guest `g` (or system space `g`).
    pub fn guest(&self, g: u32) -> PageIo {
        self.by_guest[g as usize]
    }

    /// Effective block size cap given paging-space fullness: full size below
    /// 50% used, falling linearly to 25% of it at 90% (spec topic 4, [E]).
    fn block_cap(&self) -> u32 {
        let block_max = self.block_max;
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
    /// volumes with free slots (and, for a page-out, room for another write),
    /// round-robin among equals.
    fn pick_volume(&mut self, io: &Io, page_out: bool) -> Option<u32> {
        let n = self.vols.len();
        let mut best: Option<(f64, u32)> = None;
        for k in 0..n {
            let pv = ((self.rr + k) % n) as u32;
            let v = &self.vols[pv as usize];
            if v.used >= v.slots || (page_out && v.writes >= self.pageout_writes) {
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

    /// Paging volume `pv` starts with `frac` of its slots in use by pages
    /// the run does not model (a system that has paged for weeks: the page
    /// slots of users' and VDISKs' old pages), never freed. The free space
    /// left is spread over the volume in gaps, [`OCCUPY_CELL`] slots to a
    /// gap and its used run, so a nearly full volume offers only short runs
    /// and CP writes small blocks to it (FCX109 "Block Size" falls as
    /// "Used %" rises, S6 after). Called once, before the run starts.
    pub fn occupy(&mut self, pv: u32, frac: f64) {
        let v = &mut self.vols[pv as usize];
        debug_assert!(v.used == 0 && (0.0..=1.0).contains(&frac));
        let target = (v.slots as f64 * frac).round() as u64;
        let cells = (v.slots as u64).div_ceil(OCCUPY_CELL as u64);
        let mut done = 0u64;
        for c in 0..cells {
            let lo = (c * OCCUPY_CELL as u64) as u32;
            let hi = (lo + OCCUPY_CELL).min(v.slots);
            // Slots to use by the end of this cell (spread evenly).
            let want = (target * (c + 1)).div_ceil(cells).min(target);
            let n = (want - done).min((hi - lo) as u64) as u32;
            // The gap first, then the used run to the end of the cell.
            for s in hi - n..hi {
                v.set(s, true);
            }
            done += n as u64;
        }
        v.used += done as u32;
        v.foreign += done as u32;
        self.used_slots += done;
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

    /// Start bringing block `b`'s header and page list into the cache (for a
    /// toucher that will fault on, or first change, a page in it).
    #[inline]
    pub fn prefetch_block(&self, b: u32) {
        self.blocks.prefetch(b);
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

    /// Consistency: each volume's used-slot count is its bitmap's, the totals
    /// are the volumes' sums, and the used slots are exactly those of the
    /// blocks' live pages.
    #[cfg(any(test, debug_assertions))]
    pub fn check(&self) {
        // Every live page of a block holds its slot.
        let mut held = 0u64;
        self.blocks.check(|pv, first, k| {
            let v = &self.vols[pv as usize];
            assert!(!v.is_free(first + k), "a live page's slot is free");
            held += 1;
        });
        let foreign: u64 = self.vols.iter().map(|v| v.foreign as u64).sum();
        assert_eq!(
            held + foreign,
            self.used_slots,
            "slots used vs live pages in blocks and slots occupied at start"
        );
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

    /// Count a completed paging I/O on paging volume `pv`.
    fn count(&mut self, pv: u32, pages: u32, write: bool) {
        let c = &mut self.vols[pv as usize].c;
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

impl Paging {
    /// Write pages as one block: allocate contiguous slots on the best volume
    /// (possibly fewer pages than offered) and submit the write. Returns pages
    /// taken; 0 means paging space is exhausted (the run abends with PGT004)
    /// or, for a page-out, that no volume has room for another write yet.
    pub fn write_block(
        &mut self,
        cx: &mut Cx,
        io: &mut Io,
        items: &[(u32, u32)],
        kind: WriteKind,
    ) -> u32 {
        let cap = self.block_cap().min(items.len() as u32);
        let mut tries = self.vols.len();
        let page_out = kind == WriteKind::PageOut;
        let (pv, first, n) = loop {
            let Some(pv) = self.pick_volume(io, page_out) else {
                if page_out && self.vols.iter().any(|v| v.used < v.slots) {
                    return 0; // no volume has room for another page-out yet
                }
                cx.abend(
                    "PGT004",
                    "paging space is exhausted: no free page slots on any paging volume".into(),
                );
                return 0;
            };
            if let Some((s, n)) = self.vols[pv as usize].find_run(cap) {
                break (pv, s, n);
            }
            tries -= 1;
            if tries == 0 {
                cx.abend("PGT004", "paging space is exhausted".into());
                return 0;
            }
        };
        let b = self.claim_block(pv, first, &items[..n as usize], true);
        if page_out {
            self.vols[pv as usize].writes += 1;
        }
        self.c.pages_written += n as u64;
        for &(g, _) in &items[..n as usize] {
            self.by_guest[g as usize].written += 1;
        }
        let dev = self.vols[pv as usize].dev;
        cx.charge.sys +=
            self.costs.io + self.costs.page_io * n as u64 + io.cp_extra(dev, Kind::Paging, n);
        self.by_cpu[cx.cpu as usize].written += n as u64;
        let origin = match kind {
            WriteKind::PageOut => Origin::PageWrite { block: b },
            WriteKind::Migrate => Origin::Migrate { block: b },
        };
        let r = io.alloc_req(cx, dev, Request::write(n, Kind::Paging), origin);
        io.submit(cx, r);
        n
    }

    /// Queue the demand scan's page-outs (the pages of each visit to a guest
    /// together, in steal order, the first marked [`VISIT`]);
    /// `Model::pump_pageouts` writes them as volumes have room, a block never
    /// reaching into the next visit's pages.
    pub fn queue_pageouts(&mut self, pageouts: &PageOuts) {
        for (g, pages) in pageouts.batches() {
            self.pending.extend(
                pages
                    .iter()
                    .enumerate()
                    .map(|(k, &vp)| (g, if k == 0 { vp | VISIT } else { vp })),
            );
        }
    }

    /// Whether a page-out is waiting and some paging volume with free slots
    /// has room for a page-out write.
    #[inline]
    fn can_write_pageout(&self) -> bool {
        !self.pending.is_empty()
            && self
                .vols
                .iter()
                .any(|v| v.writes < self.pageout_writes && v.used < v.slots)
    }

    /// Page-outs waiting for a volume.
    pub fn pending_pageouts(&self) -> usize {
        self.pending.len()
    }

    /// Forget page (g, vp) in block `b` and recycle the block if that was its
    /// last page and it has no I/O in flight.
    fn release(&mut self, b: u32, g: u32, vp: u32) {
        self.drop_page(b, g, vp);
        self.blocks.maybe_free(b);
    }
}

/// Paging as the demand scan's [`Pager`]: slots freed and migration blocks
/// written while the scan runs.
pub struct Backing<'a> {
    pub pg: &'a mut Paging,
    pub io: &'a mut Io,
}

impl Pager for Backing<'_> {
    #[inline]
    fn release(&mut self, b: u32, g: u32, vp: u32) {
        self.pg.release(b, g, vp);
    }

    fn migrate(&mut self, cx: &mut Cx, items: &[(u32, u32)]) -> u32 {
        self.pg.write_block(cx, self.io, items, WriteKind::Migrate)
    }

    fn volumes(&self) -> u32 {
        self.pg.vols.len() as u32
    }
}

impl Model {
    /// Put pages 0..n of guest `g` that have no content yet on paging slots, in
    /// blocks of the block size, without simulating the writes (an initial
    /// state: the guest was paged out before the run began).
    pub(crate) fn place_paged_out(&mut self, cx: &mut Cx, g: u32, n: u32) {
        let Model { st, pg, io, .. } = self;
        let bmax = pg.block_max as usize;
        let mut vp = 0u32;
        let mut items: Vec<(u32, u32)> = Vec::with_capacity(bmax);
        while vp < n {
            items.clear();
            while vp < n && items.len() < bmax {
                if tag(st.entry(g, vp).e) == T_NONE {
                    items.push((g, vp));
                } else if !items.is_empty() {
                    vp += 1;
                    break;
                }
                vp += 1;
            }
            let mut rest = &items[..];
            while !rest.is_empty() {
                let placed = pg.pick_volume(io, false).and_then(|pv| {
                    pg.vols[pv as usize]
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
                let b = pg.claim_block(pv, first, &rest[..k as usize], false);
                for &(_, p) in &rest[..k as usize] {
                    st.paged_out(g, p, b);
                }
                st.add_dasd_pages(g, k);
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
        let b = self.st.entry(g, vp).blk;
        debug_assert_ne!(b, NO_BLOCK);
        if let Some(rd) = self.pg.blocks.reading(b) {
            self.pg.join_read(rd, v);
            return Some(None);
        }
        let (rd, r) = self.open_block_read(cx, g, vp, b)?;
        self.pg.join_read(rd, v);
        Some(Some(r))
    }

    /// Bring page (g, vp) in from DASD for CP's LOCK (no virtual CPU
    /// waits: the LOCK command watches the page's state). Its block's read
    /// is started and submitted now unless it is being read already.
    /// `false` when not even one frame could be had. A block already being
    /// read may not have taken a frame for this page (a read short of
    /// frames): the page is still on DASD when it ends, and the caller asks
    /// again then.
    pub(crate) fn read_for_lock(&mut self, cx: &mut Cx, g: u32, vp: u32) -> bool {
        let b = self.st.entry(g, vp).blk;
        debug_assert_ne!(b, NO_BLOCK);
        if self.pg.blocks.reading(b).is_some() {
            return true;
        }
        let Some((_, r)) = self.open_block_read(cx, g, vp, b) else {
            return false;
        };
        self.io.submit(cx, r);
        true
    }

    /// Start read `rd` of block `b` (not being read) after a fault on (g,
    /// vp): frames for the pages still on DASD, the faulting page first;
    /// the fault's and the I/O's CP time charged. Returns the read and the
    /// I/O request to submit, `None` when not even one frame could be had.
    #[inline(always)]
    fn open_block_read(&mut self, cx: &mut Cx, g: u32, vp: u32, b: u32) -> Option<(u32, u32)> {
        let rd = self.pg.new_read();
        // The faulting page first, then the other pages of the block still on
        // DASD (slot k of the block, k = 0..n; no list is built).
        let slots = self.pg.blocks.len(b);
        let mut n = 0u32;
        if self.pg.unscanned_reads && self.st.can_take_unscanned(slots + 1) {
            #[cfg(test)]
            {
                self.pg.unscanned_read_count += 1;
            }
            // Frames to spare: no demand scan can run while the block's pages
            // take theirs, so nothing else changes under the loop and it runs
            // on borrowed tables. The same steps as the loop below.
            let Model { st, pg, .. } = self;
            let Paging { blocks, reads, .. } = pg;
            let list = blocks.pages(b);
            let out = &mut reads[rd as usize].frames;
            for k in 0..=list.len() / 2 {
                let Some((pg_, pp)) = read_order(k, (g, vp), |i| (list[2 * i], list[2 * i + 1]))
                else {
                    continue;
                };
                if !awaits_read(st.entry(pg_, pp), b) {
                    continue;
                }
                let f = st.take_read_frame(pg_, pp, rd);
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
        self.pg.blocks.set_reading(b, Some(rd));
        // Handling the fault is the guest's CP time; starting the paging I/O
        // (and EDEV's extra CP work for it) is CP's own (system time, not
        // captured).
        let dev = self.pg.vols[self.pg.blocks.vol(b) as usize].dev;
        cx.charge.cp += self.pg.costs.fault;
        cx.charge.sys += self.pg.costs.io + self.io.cp_extra(dev, Kind::Paging, n);
        let r = self.io.alloc_req(
            cx,
            dev,
            Request::read(n, Kind::Paging),
            Origin::PageRead { block: b },
        );
        Some((rd, r))
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
            if !awaits_read(self.st.entry(pg_, pp), b) {
                continue;
            }
            let Some(f) = self.get_frame(cx, pg_, pp) else {
                break;
            };
            self.st.mark_reading(pg_, pp, f, rd);
            self.pg.reads[rd as usize].frames.push((pg_, pp, f));
            n += 1;
        }
        n
    }

    /// The write of block `block` completed (`Origin::PageWrite` or `Migrate`).
    pub(crate) fn block_written(&mut self, d: &Done, block: u32) {
        self.pg.count(self.pg.blocks.vol(block), d.pages, true);
        self.pg.blocks.end_write(block);
    }

    /// Write queued page-outs while paging volumes have room: each block is
    /// the pages of one demand-scan visit to a guest, up to the block size. A
    /// page reclaimed while it waited needs no write: its frame is unlocked.
    pub(crate) fn pump_pageouts(&mut self, cx: &mut Cx) {
        let mut items = std::mem::take(&mut self.pg.items);
        while self.pg.can_write_pageout() {
            items.clear();
            let g = self.pg.pending.front().expect("pending").0;
            while items.len() < self.pg.block_max as usize {
                match self.pg.pending.front() {
                    // A block ends where the next visit's pages begin.
                    Some(&(h, vp)) if h == g && (vp & VISIT == 0 || items.is_empty()) => {
                        let vp = vp & !VISIT;
                        self.pg.pending.pop_front();
                        if self.st.pageout_needed(g, vp) {
                            items.push((g, vp));
                        } else {
                            self.st.drop_pageout(g, vp);
                            self.wake_frame_waiters();
                            if !self.st.logged_on(g) {
                                self.discard_page(g, vp);
                            }
                        }
                    }
                    _ => break,
                }
            }
            if items.is_empty() {
                continue;
            }
            let n = self
                .pg
                .write_block(cx, &mut self.io, &items, WriteKind::PageOut)
                as usize;
            if n == 0 {
                break; // abend raised
            }
            // A short run of free slots: the rest wait at the front, in
            // order, as a block of their own.
            for (k, &(h, vp)) in items.iter().enumerate().skip(n).rev() {
                let vp = if k == n { vp | VISIT } else { vp };
                self.pg.pending.push_front((h, vp));
            }
        }
        self.pg.items = items;
    }

    /// The read of block `b` completed: its pages are resident, the virtual
    /// CPUs waiting for it run again. Handling the interrupt and validating
    /// the pages is CP's own work (system time on the CPU that takes the
    /// interrupt, charged to `cx`).
    pub(crate) fn block_read_done(&mut self, cx: &mut Cx, d: &Done, b: u32) {
        let pages = d.pages;
        // The block is no longer being read (pages discarded below may free it).
        let (pv, rd) = self.pg.blocks.end_read(b);
        self.pg.count(pv, pages, false);
        self.pg.c.pages_read += pages as u64;
        let frames = std::mem::take(&mut self.pg.reads[rd as usize].frames);
        for &(g, vp, f) in &frames {
            let on = self.st.read_in(g, vp, f, rd);
            self.pg.by_guest[g as usize].read += 1;
            if !on {
                self.discard_page(g, vp);
            }
        }
        self.pg.reads[rd as usize].frames = frames;
        self.pg.by_cpu[d.cpu as usize].read += pages as u64;
        // Pages discarded meanwhile may have left the block empty.
        self.pg.blocks.maybe_free(b);
        let waiters = std::mem::take(&mut self.pg.reads[rd as usize].waiters);
        cx.charge.sys += self.pg.costs.page_io * pages as u64;
        for &w in &waiters {
            self.cpu.io_wait_over(w);
        }
        self.pg.reads[rd as usize].waiters = waiters;
        self.pg.read_free.push(rd);
    }

    /// A page-out write finished: free the frames of pages not reclaimed
    /// meanwhile; the volume has room for the next page-out.
    pub(crate) fn pageout_done(&mut self, block: u32) {
        let n = self.pg.blocks.len(block);
        self.pg.vols[self.pg.blocks.vol(block) as usize].writes -= 1;
        self.st.pageouts_done(n);
        for k in 0..n {
            let (g, vp) = self.pg.blocks.page(block, k);
            if !self.st.written_out(g, vp, block) {
                self.pg.drop_page(block, g, vp);
            }
            self.wake_frame_waiters();
            if !self.st.logged_on(g) {
                self.discard_page(g, vp);
            }
        }
        self.pg.blocks.maybe_free(block);
    }

    /// A migration write finished: pages still in XSTOR now live on DASD.
    /// Continue migrating if XSTOR is still short (interrupt-level CP work:
    /// the caller owes `cx`'s charge to the CPU's next burst).
    pub(crate) fn migration_done(&mut self, cx: &mut Cx, block: u32) {
        // By index, not by copying the list: completion work may mark slots gone.
        for k in 0..self.pg.blocks.len(block) {
            let (g, vp) = self.pg.blocks.page(block, k);
            if !self.st.migrated_out(g, vp, block) {
                // Read back (or discarded) while the write ran: the copy is not needed.
                self.pg.drop_page(block, g, vp);
            }
        }
        self.pg.blocks.maybe_free(block);
        let Model { st, pg, io, .. } = self;
        st.maybe_migrate(cx, &mut Backing { pg, io });
    }
}
