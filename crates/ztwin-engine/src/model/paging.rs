//! DASD volumes (paging and minidisk), page slots, block paging and the I/O path.
//!
//! Each volume is one exposure: one I/O at a time, a FIFO queue in CP in front
//! of it. Service time = pending + disconnect + connect (per I/O + per page), each
//! with a small uniform spread. Paging blocks are runs of contiguous slots holding
//! pages written together; a fault on any of them reads the whole block.

use super::blocks::{BlockTable, GONE};
use super::storage::{idx, pte, tag, PageEntry, F_LOCK, NO_BLOCK, T_DASD, T_READIN, T_RES};
use super::{Cx, Ev, Model};
use crate::core::rng::{Rng, Stream};
use crate::core::units::{Ns, MS};
use crate::scenario::{cylinders_of, parse_devno, volser, Scenario, ServiceTime, SLOTS_PER_CYL};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoKind {
    PageRead,
    PageWrite,
    Migrate,
    Minidisk,
}

/// One I/O request.
#[derive(Clone, Debug)]
pub struct IoReq {
    pub kind: IoKind,
    pub vol: u32,
    pub block: u32,
    pub pages: u32,
    pub queued_at: Ns,
    pub started_at: Ns,
    /// Virtual CPUs waiting for this I/O.
    pub waiters: Vec<u32>,
    /// Page reads: (guest, page, frame) being filled.
    pub frames: Vec<(u32, u32, u32)>,
    /// Logical CPU that started it (for per-CPU counters).
    pub cpu: u16,
}

/// Counters of one device, cumulative (the monitor takes differences).
#[derive(Clone, Debug, Default)]
pub struct DevCounters {
    pub ssch: u64,
    pub pend_ns: u64,
    pub disc_ns: u64,
    pub conn_ns: u64,
    /// Paging: SSCHs for reads/writes and pages read/written.
    pub ssch_rd: u64,
    pub ssch_wr: u64,
    pub pages_rd: u64,
    pub pages_wr: u64,
    /// Sum over completed I/Os of queue wait + service (for MLOAD).
    pub resp_ns: u64,
    /// High-frequency samples: count, summed queue length, busy count.
    pub hf_count: u64,
    pub hf_queue: u64,
    pub hf_busy: u64,
}

pub struct Volume {
    pub devno: u16,
    pub volser: String,
    pub device_type: String,
    pub cylinders: u32,
    pub paging: bool,
    /// Page slots (paging volumes) and the slot bitmap.
    pub slots: u32,
    pub bitmap: Vec<u64>,
    pub used: u32,
    pub cursor: u32,
    pub svc: ServiceTime,
    pub rng: Rng,
    pub busy: Option<u32>,
    pub queue: VecDeque<u32>,
    /// Smoothed response time (ms) used to pick volumes for page-outs.
    pub smoothed_ms: f64,
    pub c: DevCounters,
}

impl Volume {
    /// An idle volume; `slots` > 0 makes it a paging volume with that many
    /// page slots, all free. Its service-time stream is the `id`-th device's.
    #[allow(clippy::too_many_arguments)]
    fn new(
        devno: u16,
        volser: String,
        device_type: &str,
        cylinders: u32,
        slots: u32,
        svc: &ServiceTime,
        seed: u64,
        id: u64,
    ) -> Volume {
        Volume {
            devno,
            volser,
            device_type: device_type.to_string(),
            cylinders,
            paging: slots > 0,
            slots,
            bitmap: vec![0; (slots as usize).div_ceil(64)],
            used: 0,
            cursor: 0,
            svc: svc.clone(),
            rng: Rng::new(seed, Stream::Device, id),
            busy: None,
            queue: VecDeque::new(),
            smoothed_ms: 0.0,
            c: DevCounters::default(),
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

    /// Service time of one I/O moving `pages` pages: (pend, disc, conn) in ns.
    fn service(&mut self, pages: u32) -> (Ns, Ns, Ns) {
        let j = self.svc.jitter;
        let mut draw = |ms: f64| -> Ns {
            if ms <= 0.0 {
                return 0;
            }
            let f = 1.0 + j * (2.0 * self.rng.f64() - 1.0);
            // Rounded to the nearest ns (non-negative: adding a half and
            // truncating is `round()` without the libm call).
            (ms * f * MS as f64 + 0.5) as Ns
        };
        let pend = draw(self.svc.pending_ms);
        let disc = draw(self.svc.disconnect_ms);
        let conn = draw(self.svc.connect_ms_per_io + self.svc.connect_ms_per_page * pages as f64);
        (pend, disc, conn)
    }
}

pub struct Paging {
    pub vols: Vec<Volume>,
    /// Indices of the paging volumes.
    pub paging_vols: Vec<u32>,
    pub blocks: BlockTable,
    pub total_slots: u64,
    pub used_slots: u64,
    /// Times slot use crossed 90%.
    pub full90: u64,
    rr: usize,
}

impl Paging {
    pub fn new(sc: &Scenario, seed: u64) -> Paging {
        let mut vols = Vec::new();
        let mut paging_vols = Vec::new();
        let mut total = 0u64;
        for g in &sc.paging {
            let base = parse_devno(&g.first_address).expect("validated");
            let full = cylinders_of(&g.device_type).expect("validated");
            let cyls = g.cylinders.unwrap_or(full);
            for k in 0..g.count {
                let slots = (cyls as u64 * SLOTS_PER_CYL) as u32;
                total += slots as u64;
                paging_vols.push(vols.len() as u32);
                let id = vols.len() as u64;
                let devno = base + k as u16;
                let vs = volser(&g.volser_prefix, k, g.count);
                vols.push(Volume::new(
                    devno,
                    vs,
                    &g.device_type,
                    cyls,
                    slots,
                    &g.service,
                    seed,
                    id,
                ));
            }
        }
        for g in &sc.dasd {
            let base = parse_devno(&g.first_address).expect("validated");
            let cyls = cylinders_of(&g.device_type).expect("validated");
            for k in 0..g.count {
                let id = vols.len() as u64;
                let devno = base + k as u16;
                let vs = volser(&g.volser_prefix, k, g.count);
                vols.push(Volume::new(
                    devno,
                    vs,
                    &g.device_type,
                    cyls,
                    0,
                    &g.service,
                    seed,
                    id,
                ));
            }
        }
        Paging {
            vols,
            paging_vols,
            blocks: BlockTable::new(sc.srm.block_max),
            total_slots: total,
            used_slots: 0,
            full90: 0,
            rr: 0,
        }
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
    fn pick_volume(&mut self) -> Option<u32> {
        let n = self.paging_vols.len();
        let mut best: Option<(f64, u32)> = None;
        for k in 0..n {
            let vi = self.paging_vols[(self.rr + k) % n];
            let v = &self.vols[vi as usize];
            if v.used >= v.slots {
                continue;
            }
            // Expected wait: smoothed response scaled by requests already queued.
            let load = v.smoothed_ms * (1 + v.queue.len() + v.busy.is_some() as usize) as f64;
            if best.is_none_or(|(b, _)| load < b) {
                best = Some((load, vi));
            }
        }
        self.rr = (self.rr + 1) % n.max(1);
        best.map(|(_, v)| v)
    }

    /// Mark slots `first..first + pages.len()` of volume `vol` used and record
    /// them as one block holding `pages`; `writing` while its write is in flight.
    fn claim_block(&mut self, vol: u32, first: u32, pages: &[(u32, u32)], writing: bool) -> u32 {
        let n = pages.len() as u32;
        let v = &mut self.vols[vol as usize];
        for s in first..first + n {
            v.set(s, true);
        }
        v.used += n;
        self.used_slots += n as u64;
        if self.total_slots > 0 && self.used_slots * 10 >= self.total_slots * 9 {
            self.full90 += 1;
        }
        self.blocks.claim(vol, first, pages, writing)
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

impl Model {
    fn new_io(&mut self, cx: &mut Cx, kind: IoKind, vol: u32, block: u32, pages: u32) -> u32 {
        let cpu = cx.cpu;
        match self.io_free.pop() {
            Some(i) => {
                // Reuse the request and its vectors' capacity.
                let q = &mut self.io[i as usize];
                q.kind = kind;
                q.vol = vol;
                q.block = block;
                q.pages = pages;
                q.queued_at = cx.now();
                q.started_at = 0;
                q.waiters.clear();
                q.frames.clear();
                q.cpu = cpu;
                i
            }
            None => {
                let r = IoReq {
                    kind,
                    vol,
                    block,
                    pages,
                    queued_at: cx.now(),
                    started_at: 0,
                    waiters: Vec::new(),
                    frames: Vec::new(),
                    cpu,
                };
                self.io.push(r);
                (self.io.len() - 1) as u32
            }
        }
    }

    /// A guest's minidisk I/O of `pages` pages to volume `vol`.
    pub(crate) fn new_minidisk_io(&mut self, cx: &mut Cx, vol: u32, pages: u32, v: u32) -> u32 {
        let r = self.new_io(cx, IoKind::Minidisk, vol, 0, pages);
        self.io[r as usize].waiters.push(v);
        r
    }

    /// Queue an I/O on its volume, starting it if the exposure is free.
    pub(crate) fn submit_io(&mut self, cx: &mut Cx, r: u32) {
        let vol = self.io[r as usize].vol;
        let v = &mut self.pg.vols[vol as usize];
        if v.busy.is_none() {
            self.start_io(cx, vol, r);
        } else {
            v.queue.push_back(r);
        }
    }

    fn start_io(&mut self, cx: &mut Cx, vol: u32, r: u32) {
        let pages = self.io[r as usize].pages;
        let v = &mut self.pg.vols[vol as usize];
        let (pend, disc, conn) = v.service(pages);
        v.busy = Some(r);
        v.c.ssch += 1;
        v.c.pend_ns += pend;
        v.c.disc_ns += disc;
        v.c.conn_ns += conn;
        self.io[r as usize].started_at = cx.now();
        let cpu = self.io[r as usize].cpu as usize;
        self.cpus[cpu].c.ssch += 1;
        cx.at(pend + disc + conn, Ev::IoDone { vol });
    }

    /// Write pages as one block: allocate contiguous slots on the best volume
    /// (possibly fewer pages than offered). Returns pages taken; 0 means paging
    /// space is exhausted (the run abends with PGT004).
    pub(crate) fn start_block_write(
        &mut self,
        cx: &mut Cx,
        items: &[(u32, u32)],
        kind: IoKind,
    ) -> u32 {
        let cap = self.pg.block_cap(self.block_max).min(items.len() as u32);
        let mut tries = self.pg.paging_vols.len();
        let (vol, first, n) = loop {
            let Some(vol) = self.pg.pick_volume() else {
                cx.abend(
                    "PGT004",
                    "paging space is exhausted: no free page slots on any paging volume".into(),
                );
                return 0;
            };
            if let Some((s, n)) = self.pg.vols[vol as usize].find_run(cap) {
                break (vol, s, n);
            }
            tries -= 1;
            if tries == 0 {
                cx.abend("PGT004", "paging space is exhausted".into());
                return 0;
            }
        };
        let b = self.pg.claim_block(vol, first, &items[..n as usize], true);
        self.st.c.pages_written_dasd += n as u64;
        for &(g, _) in &items[..n as usize] {
            self.guests[g as usize].c.page_writes += 1;
        }
        cx.charge.sys += self.costs.io + self.costs.page_io * n as u64;
        self.cpus[cx.cpu as usize].c.pages_written += n as u64;
        let r = self.new_io(cx, kind, vol, b, n);
        self.submit_io(cx, r);
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
                let placed = self.pg.pick_volume().and_then(|vol| {
                    self.pg.vols[vol as usize]
                        .find_run(rest.len() as u32)
                        .map(|(first, k)| (vol, first, k))
                });
                let Some((vol, first, k)) = placed else {
                    cx.abend(
                        "PGT004",
                        "paging space is exhausted while placing paged-out guest storage".into(),
                    );
                    return;
                };
                let b = self.pg.claim_block(vol, first, &rest[..k as usize], false);
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
    /// first. Returns `Some(Some(r))` with the request to submit when the
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
        if let Some(r) = self.pg.blocks.reading(b) {
            self.io[r as usize].waiters.push(v);
            return Some(None);
        }
        let vol = self.pg.blocks.vol(b);
        let r = self.new_io(cx, IoKind::PageRead, vol, b, 0);
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
            let Model {
                st, guests, pg, io, ..
            } = self;
            let list = pg.blocks.pages(b);
            let out = &mut io[r as usize].frames;
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
                guest.pt[pp as usize].e = pte(T_READIN, r);
                out.push((pg_, pp, f));
                n += 1;
            }
        } else {
            n = self.block_read_frames(cx, b, r, g, vp, slots);
        }
        if n == 0 {
            self.io_free.push(r);
            return None;
        }
        self.io[r as usize].pages = n;
        self.io[r as usize].waiters.push(v);
        self.pg.blocks.set_reading(b, Some(r));
        cx.charge.cp += self.costs.fault + self.costs.io;
        Some(Some(r))
    }

    /// Frames for read `r` of block `b` when they may run short: each page
    /// takes its frame through `get_frame` (which may run the demand scan, and
    /// the scan may change the pages' states, so each is checked just before).
    /// Returns the pages that got one; stops at the first that cannot.
    fn block_read_frames(
        &mut self,
        cx: &mut Cx,
        b: u32,
        r: u32,
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
            self.guests[gi].pt[pp as usize].e = pte(T_READIN, r);
            self.io[r as usize].frames.push((pg_, pp, f));
            n += 1;
        }
        n
    }

    /// An I/O finished on `vol`: complete it and start the next queued one.
    pub(crate) fn io_done(&mut self, cx: &mut Cx, vol: u32) {
        let r = self.pg.vols[vol as usize]
            .busy
            .take()
            .expect("I/O done on an idle volume");
        let req = std::mem::take(&mut self.io[r as usize].waiters);
        let (kind, block, pages, queued, started) = {
            let q = &self.io[r as usize];
            (q.kind, q.block, q.pages, q.queued_at, q.started_at)
        };
        let resp = cx.now() - queued;
        {
            let v = &mut self.pg.vols[vol as usize];
            v.c.resp_ns += resp;
            let ms = resp as f64 / MS as f64;
            v.smoothed_ms = if v.smoothed_ms == 0.0 {
                ms
            } else {
                0.8 * v.smoothed_ms + 0.2 * ms
            };
            let _ = started;
            match kind {
                IoKind::PageRead => {
                    v.c.ssch_rd += 1;
                    v.c.pages_rd += pages as u64;
                }
                IoKind::PageWrite | IoKind::Migrate => {
                    v.c.ssch_wr += 1;
                    v.c.pages_wr += pages as u64;
                }
                IoKind::Minidisk => {}
            }
        }
        match kind {
            IoKind::PageRead => self.block_read_done(block, r, pages),
            IoKind::PageWrite => {
                self.pg.blocks.end_write(block);
                self.pageout_done(block);
            }
            IoKind::Migrate => {
                self.pg.blocks.end_write(block);
                self.migration_done(cx, block);
            }
            IoKind::Minidisk => {}
        }
        if kind == IoKind::PageRead {
            // Validating the pages read is CP work for the guest that faulted.
            if let Some(&w) = req.first() {
                self.vcpus[w as usize].owed_cp += self.costs.page_io * pages as u64;
            }
        }
        for w in &req {
            self.io_wait_over(*w);
        }
        let mut req = req;
        req.clear();
        self.io[r as usize].waiters = req;
        self.io_free.push(r);
        // Completion work may already have started a new I/O on this volume.
        if self.pg.vols[vol as usize].busy.is_none() {
            if let Some(next) = self.pg.vols[vol as usize].queue.pop_front() {
                self.start_io(cx, vol, next);
            }
        }
    }

    fn block_read_done(&mut self, b: u32, r: u32, pages: u32) {
        self.st.c.pages_read_dasd += pages as u64;
        let frames = std::mem::take(&mut self.io[r as usize].frames);
        for &(g, vp, f) in &frames {
            let gi = g as usize;
            let e = self.guests[gi].pt[vp as usize].e;
            debug_assert!(tag(e) == T_READIN && idx(e) == r);
            // Pages arrive unreferenced; the faulting virtual CPU references its
            // page when it runs again.
            self.guests[gi].pt[vp as usize].e = pte(T_RES, f);
            self.st.flags[f as usize] = 0;
            self.guests[gi].c.page_reads += 1;
            if self.logged_off(g) {
                self.discard_page(g, vp);
            }
        }
        self.io[r as usize].frames = frames;
        let cpu = self.io[r as usize].cpu as usize;
        self.cpus[cpu].c.pages_read += pages as u64;
        self.pg.blocks.set_reading(b, None);
        // Pages discarded meanwhile may have left the block empty.
        self.pg.blocks.maybe_free(b);
    }
}
