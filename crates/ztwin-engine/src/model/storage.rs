//! Real storage (frames, available list, Era A demand scan) and expanded storage.
//!
//! A guest page's entry ([`PageEntry`]) is two `u32` words: the state word and
//! the DASD block that has a valid copy of the page, if any. The state word has
//! two formats:
//!
//! * resident (bit 31 set): bit 30 the reference bit, bit 29 the change bit,
//!   bits 0-28 the frame (up to 2^29 frames, 2 TB of central storage), so a page
//!   touch reads and writes one word;
//! * otherwise bits 28-30 a state tag and bits 0-27 an index: the XSTOR block
//!   ([`T_XS`]) or the I/O request ([`T_READIN`]). A page being paged out
//!   ([`T_PAGEOUT`]) keeps its frame number in the block word, which is free
//!   then (a stolen page's old DASD copy was released before its write began).

use super::{Cx, Model};
use crate::core::units::Ns;
use std::collections::VecDeque;

/// Resident: the entry holds a frame and its reference and change bits.
pub const RES: u32 = 1 << 31;
pub const P_REF: u32 = 1 << 30;
pub const P_CHG: u32 = 1 << 29;
/// 29-bit frame number: up to 512M frames (2 TB of central storage).
pub const FRAME_MASK: u32 = (1 << 29) - 1;
pub const MAX_FRAMES: u64 = 1 << 29;
pub const TAG_SHIFT: u32 = 28;
/// 28-bit index of a non-resident page: up to 256M XSTOR blocks (1 TB) or I/O requests.
pub const IDX_MASK: u32 = (1 << 28) - 1;
/// Never referenced: no content anywhere.
pub const T_NONE: u32 = 0;
/// Resident in a frame (what [`tag`] answers for entries with [`RES`] set).
pub const T_RES: u32 = 1;
/// In expanded storage (index = XSTOR block).
pub const T_XS: u32 = 2;
/// On DASD only (the block is in the entry's block word).
pub const T_DASD: u32 = 3;
/// Being read in (index = I/O request).
pub const T_READIN: u32 = 4;
/// Stolen, being written to DASD, still in its frame (the frame is in the
/// entry's block word).
pub const T_PAGEOUT: u32 = 5;

#[inline]
pub fn tag(e: u32) -> u32 {
    if e & RES != 0 {
        T_RES
    } else {
        e >> TAG_SHIFT
    }
}
#[inline]
pub fn idx(e: u32) -> u32 {
    if e & RES != 0 {
        e & FRAME_MASK
    } else {
        e & IDX_MASK
    }
}
/// A state word: tag `t` with index `i` (a frame for [`T_RES`]).
#[inline]
pub fn pte(t: u32, i: u32) -> u32 {
    if t == T_RES {
        debug_assert!(i <= FRAME_MASK);
        RES | i
    } else {
        debug_assert!(i <= IDX_MASK);
        debug_assert!(
            t != T_PAGEOUT || i == 0,
            "a page-out's frame is in the block word"
        );
        (t << TAG_SHIFT) | i
    }
}

pub const NO_BLOCK: u32 = u32::MAX;

/// A guest page's entry: its state word and the DASD block holding a valid
/// copy of it ([`NO_BLOCK`] if none), side by side so a fault or a steal reads
/// both with one memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageEntry {
    pub e: u32,
    pub blk: u32,
}
/// XSTOR-to-DASD migration keeps at most this many blocks per paging volume
/// in flight (\[E\]: with no bound, migration floods the paging queues; 16 gives
/// S2's published paging response of 13-29 ms, 2 to 4 times the service time).
pub const MIGRATE_BLOCKS_PER_VOLUME: u32 = 16;

/// Frames the demand scan takes from one user per visit before moving on
/// to the next user of the same category (\[E\]).
pub const STEAL_QUANTUM: u32 = 8;
pub const FREE: u32 = u32::MAX;
/// How far ahead in a user's frame list the demand scan prefetches.
const STEAL_AHEAD: usize = 4;

/// Frame flag: locked (I/O in progress), not stealable.
pub const F_LOCK: u8 = 4;

/// Steal passes (for STORSP counters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    First,
    Second,
    Emergency,
}

/// Scheduler categories in demand-scan order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cat {
    Dormant,
    Eligible,
    Dispatch,
}

/// System-wide storage counters (cumulative).
#[derive(Default, Clone, Copy, Debug, PartialEq, Eq)]
pub struct StorageCounters {
    pub frame_requests: u64,
    pub frame_waits: u64,
    pub steals: u64,
    pub scans: u64,
    pub emergency_scans: u64,
    pub list_empty: u64,
    /// Steals by pass (first, second, emergency) and category (dormant, eligible, dispatch).
    pub by_pass: [[u64; 3]; 3],
    pub examined: u64,
    pub xstor_in: u64,
    pub xstor_out: u64,
    pub migrated: u64,
    pub first_touch: u64,
}

/// Storage work done on one logical CPU (cumulative): SYTRSP, SYTXSP, STORSP.
#[derive(Default, Clone, Copy, Debug, PartialEq, Eq)]
pub struct StorCpu {
    pub steals: u64,
    pub frame_waits: u64,
    pub xs_in: u64,
    pub xs_out: u64,
    pub migrated: u64,
    /// Steals by pass (first, second, emergency) and category (dormant, eligible, dispatch).
    pub by_pass: [[u64; 3]; 3],
}

/// Storage counters of one guest (cumulative): USEACT.
#[derive(Default, Clone, Copy, Debug, PartialEq, Eq)]
pub struct GuestStor {
    /// Page faults on pages with content (in XSTOR, on DASD, being read or
    /// written), not first touches.
    pub faults: u64,
    pub first_touch: u64,
    pub steals: u64,
    /// Pages moved central storage to XSTOR, XSTOR to central, XSTOR to DASD.
    pub ms_to_x: u64,
    pub x_to_ms: u64,
    pub x_to_ds: u64,
}

/// Real storage and XSTOR as the monitor sees them.
#[derive(Clone, Copy, Debug)]
pub struct StorageSample {
    pub fixed: u32,
    pub dpa: u32,
    pub avail: u32,
    pub low: u32,
    pub high: u32,
    pub c: StorageCounters,
    pub xs_total: u32,
    pub xs_free: u32,
    pub xs_low: u32,
    /// Mean age of the pages in XSTOR, ns.
    pub xs_mean_age: u128,
}

/// A frame's owner (a guest, or [`FREE`]) and the guest page in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    pub owner: u32,
    pub vpage: u32,
}

/// Real storage.
pub struct Storage {
    pub total: u32,
    /// Frames CP keeps (not pageable).
    pub fixed: u32,
    /// Owner and page of each frame, side by side (written together when a
    /// frame is taken).
    pub frames: Vec<Frame>,
    pub flags: Vec<u8>,
    pub avail: Vec<u32>,
    pub low: u32,
    pub high: u32,
    /// Requests since the last rate update, and the smoothed rate (frames/s).
    pub req_window: u64,
    pub rate: f64,
    pub waiters: VecDeque<u32>,
    /// Frames stolen and being written to DASD (they join the list when done).
    pub pageout_frames: u32,
    /// Where the next demand scan starts among the users.
    pub scan_cursor: u32,
    pub xs: Xstor,
    c: StorageCounters,
    by_cpu: Vec<StorCpu>,
    by_guest: Vec<GuestStor>,
}

impl Storage {
    /// `total` frames of which CP keeps `fixed`, XSTOR `xs`, for `cpus`
    /// logical CPUs and `guests` guests.
    pub fn new(total: u32, fixed: u32, xs: Xstor, cpus: usize, guests: usize) -> Storage {
        let dpa = total - fixed;
        let mut s = Storage {
            total,
            fixed,
            frames: vec![
                Frame {
                    owner: FREE,
                    vpage: 0
                };
                total as usize
            ],
            flags: vec![0; total as usize],
            // Highest frames first on the stack so low frames go out first.
            avail: (fixed..total).rev().collect(),
            low: 0,
            high: 0,
            req_window: 0,
            rate: 0.0,
            waiters: VecDeque::new(),
            pageout_frames: 0,
            scan_cursor: 0,
            xs,
            c: StorageCounters::default(),
            by_cpu: vec![StorCpu::default(); cpus],
            by_guest: vec![GuestStor::default(); guests],
        };
        s.set_thresholds(dpa);
        s
    }

    /// Whether `n` frames can be taken in a row with no demand scan due before
    /// any of them: `get_frame` scans when the list plus the frames on their
    /// way out is at or below the low threshold, so after `n - 1` takes it
    /// must still be above it.
    #[inline]
    pub fn can_take_unscanned(&self, n: u32) -> bool {
        let a = self.avail.len() as u64;
        a >= n as u64 && a + self.pageout_frames as u64 >= self.low as u64 + n as u64
    }

    /// Take the frame on top of the available list for guest `g`, page `vp`,
    /// with frame flags `flags`, counting the request; `None` when the list is
    /// empty. The guest's side is [`Guest::gained_frame`].
    #[inline(always)]
    pub fn take(&mut self, g: u32, vp: u32, flags: u8) -> Option<u32> {
        self.c.frame_requests += 1;
        self.req_window += 1;
        let Some(f) = self.avail.pop() else {
            self.c.list_empty += 1;
            return None;
        };
        self.frames[f as usize] = Frame {
            owner: g,
            vpage: vp,
        };
        self.flags[f as usize] = flags;
        Some(f)
    }

    /// Virtual CPU `v` on logical CPU `cpu` waits for a frame.
    pub fn wait_for_frame(&mut self, cpu: u16, v: u32) {
        self.c.frame_waits += 1;
        self.by_cpu[cpu as usize].frame_waits += 1;
        self.waiters.push_back(v);
    }

    /// Guest `g` touched a page for the first time.
    #[inline]
    pub fn count_first_touch(&mut self, g: u32) {
        self.by_guest[g as usize].first_touch += 1;
        self.c.first_touch += 1;
    }

    /// Guest `g` faulted on a page that has content (in XSTOR, on DASD, being
    /// read or written).
    #[inline]
    pub fn count_fault(&mut self, g: u32) {
        self.by_guest[g as usize].faults += 1;
    }

    /// Real storage and XSTOR now.
    pub fn sample(&self, now: Ns) -> StorageSample {
        StorageSample {
            fixed: self.fixed,
            dpa: self.dpa(),
            avail: self.avail.len() as u32,
            low: self.low,
            high: self.high,
            c: self.c,
            xs_total: self.xs.total,
            xs_free: self.xs.free.len() as u32,
            xs_low: self.xs.low,
            xs_mean_age: self.xs.mean_age(now),
        }
    }

    /// Storage work by logical CPU.
    pub fn by_cpu(&self) -> &[StorCpu] {
        &self.by_cpu
    }

    /// Guest `g`'s storage counters.
    pub fn guest(&self, g: u32) -> GuestStor {
        self.by_guest[g as usize]
    }

    /// Dynamic-paging-area frames.
    pub fn dpa(&self) -> u32 {
        self.total - self.fixed
    }

    /// Low/high available-list thresholds: 0.5 s and 1.5 s of recent demand,
    /// bounded to a sensible share of the DPA (spec topic 1, \[E\]).
    pub fn set_thresholds(&mut self, dpa: u32) {
        let d = dpa as f64;
        let low = (self.rate * 0.5).clamp(d * 0.0005, d * 0.05);
        let high = (self.rate * 1.5).clamp(low * 1.5, d * 0.1);
        self.low = low.max(16.0) as u32;
        self.high = high.max(32.0) as u32;
    }

    /// Update the demand rate over an elapsed window.
    pub fn update_rate(&mut self, window: Ns) {
        let r = self.req_window as f64 / (window as f64 / 1e9);
        self.rate = 0.5 * self.rate + 0.5 * r;
        self.req_window = 0;
        let dpa = self.dpa();
        self.set_thresholds(dpa);
    }
}

/// Expanded storage: blocks with owners and a FIFO of insertion order (the
/// oldest block is the least recently used, since a block read back is freed).
pub struct Xstor {
    pub total: u32,
    pub owner: Vec<u32>,
    pub vpage: Vec<u32>,
    pub gen: Vec<u32>,
    pub free: Vec<u32>,
    pub fifo: VecDeque<(u32, u32)>,
    pub migrating: u32,
    pub low: u32,
    /// Insertion time of each block, for the age statistics.
    pub born: Vec<Ns>,
    /// Sum of `born` over the blocks in use (the average age without a scan).
    pub born_sum: u128,
}

impl Xstor {
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

    /// Room to take a page without dipping under the migration threshold.
    pub fn has_room(&self) -> bool {
        self.free.len() as u32 > self.low / 2
    }

    /// Mean age in ns of the pages in XSTOR at `now` (0 when empty).
    pub fn mean_age(&self, now: Ns) -> u128 {
        match self.used() {
            0 => 0,
            n => (n as u128 * now as u128 - self.born_sum) / n as u128,
        }
    }

    /// A free block for page `vp` of guest `g`, stored at `now` (the caller
    /// checked [`Xstor::has_room`]); it joins the migration FIFO.
    fn take(&mut self, g: u32, vp: u32, now: Ns) -> u32 {
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
    pub(crate) fn release(&mut self, b: u32) {
        self.born_sum -= self.born[b as usize] as u128;
        self.owner[b as usize] = FREE;
        self.gen[b as usize] = self.gen[b as usize].wrapping_add(1);
        self.free.push(b);
    }
}

impl Model {
    /// Take a frame for guest `g`, page `vp`, running the demand scan when the
    /// available list is low. `None` when no frame can be had now.
    #[inline(always)]
    pub(crate) fn get_frame(&mut self, cx: &mut Cx, g: u32, vp: u32) -> Option<u32> {
        // Frames already being paged out are on their way to the list.
        if self.st.avail.len() as u32 + self.st.pageout_frames <= self.st.low {
            self.demand_scan(cx);
        }
        let f = self.st.take(g, vp, 0)?;
        self.guests[g as usize].gained_frame(f, vp);
        Some(f)
    }

    /// Consistency of real storage, XSTOR and the page tables: every frame
    /// is free (and on the available list once) or owned by a resident page
    /// (or one being read or paged out) of its owner, whose frame count
    /// matches; every XSTOR block is free (once) or owned by the page that
    /// points to it, and back.
    #[cfg(any(test, debug_assertions))]
    pub(crate) fn check_storage(&self) {
        let st = &self.st;
        let mut on_list = vec![false; st.total as usize];
        for &f in &st.avail {
            assert!(
                !on_list[f as usize],
                "frame {f} is on the available list twice"
            );
            on_list[f as usize] = true;
            assert_eq!(
                st.frames[f as usize].owner, FREE,
                "available frame {f} has an owner"
            );
        }
        let mut owned = vec![0u32; self.guests.len()];
        for (f, fr) in st.frames.iter().enumerate() {
            if fr.owner == FREE {
                continue;
            }
            owned[fr.owner as usize] += 1;
            let pe = self.guests[fr.owner as usize].pt[fr.vpage as usize];
            let holds = match tag(pe.e) {
                T_RES => idx(pe.e) == f as u32,
                T_PAGEOUT => pe.blk == f as u32,
                T_READIN => st.flags[f] & F_LOCK != 0,
                _ => false,
            };
            assert!(
                holds,
                "frame {f} owned by ({}, {}) which is elsewhere",
                fr.owner, fr.vpage
            );
        }
        for (g, gu) in self.guests.iter().enumerate() {
            assert_eq!(
                owned[g], gu.resident,
                "{}: frames owned vs resident",
                gu.userid
            );
        }
        let xs = &st.xs;
        let mut free = vec![false; xs.total as usize];
        for &b in &xs.free {
            assert!(!free[b as usize], "XSTOR block {b} is free twice");
            free[b as usize] = true;
            assert_eq!(xs.owner[b as usize], FREE);
        }
        let mut in_xs = vec![0u32; self.guests.len()];
        for (b, &o) in xs.owner.iter().enumerate() {
            if o == FREE {
                assert!(free[b], "XSTOR block {b} has no owner and is not free");
                continue;
            }
            let e = self.guests[o as usize].pt[xs.vpage[b] as usize].e;
            assert_eq!((tag(e), idx(e)), (T_XS, b as u32), "XSTOR block {b}");
            in_xs[o as usize] += 1;
        }
        for (g, gu) in self.guests.iter().enumerate() {
            let n = gu.pt.iter().filter(|pe| tag(pe.e) == T_XS).count() as u32;
            assert_eq!(n, in_xs[g], "{}: pages in XSTOR vs blocks owned", gu.userid);
            assert_eq!(n, gu.xstor, "{}: XSTOR count", gu.userid);
        }
    }

    /// Return a frame to the available list and wake a frame waiter.
    pub(crate) fn free_frame(&mut self, f: u32) {
        let fi = f as usize;
        let g = self.st.frames[fi].owner;
        if g != FREE {
            self.guests[g as usize].resident -= 1;
        }
        self.st.frames[fi].owner = FREE;
        self.st.flags[fi] = 0;
        self.st.avail.push(f);
        if let Some(v) = self.st.waiters.pop_front() {
            self.make_ready(v);
        }
    }

    /// Era A demand scan: replenish the available list to the high threshold,
    /// visiting dormant, then eligible, then dispatch-list users; pass 1 takes
    /// unreferenced frames above a dispatch-list user's working set, pass 2 any
    /// unreferenced frame, the emergency pass anything not locked.
    #[inline(never)]
    pub(crate) fn demand_scan(&mut self, cx: &mut Cx) {
        let target = (self.st.high as usize).saturating_sub(self.st.pageout_frames as usize);
        if self.st.avail.len() >= target {
            return;
        }
        self.st.c.scans += 1;
        let mut batches: Vec<(u32, Vec<u32>)> = Vec::new();
        for pass in [super::storage::Pass::First, Pass::Second, Pass::Emergency] {
            if pass == Pass::Emergency {
                self.st.c.emergency_scans += 1;
            }
            for cat in [Cat::Dormant, Cat::Eligible, Cat::Dispatch] {
                // Visit the category's users in turn, taking at most a quantum
                // from each per visit, so no single user bears the whole scan.
                let n = self.guests.len() as u32;
                loop {
                    let before = self.st.avail.len();
                    for k in 0..n {
                        if self.st.avail.len() >= target {
                            break;
                        }
                        let g = (self.st.scan_cursor + k) % n;
                        if self.guests[g as usize].category() != cat
                            || self.guests[g as usize].resident == 0
                        {
                            continue;
                        }
                        self.steal_from(cx, g, pass, cat, target, &mut batches);
                    }
                    if self.st.avail.len() >= target || self.st.avail.len() == before {
                        break;
                    }
                }
            }
            self.st.scan_cursor = (self.st.scan_cursor + 1) % (self.guests.len() as u32).max(1);
            if self.st.avail.len() >= target {
                break;
            }
        }
        self.flush_pageouts(cx, batches);
    }

    fn steal_from(
        &mut self,
        cx: &mut Cx,
        g: u32,
        pass: Pass,
        cat: Cat,
        target: usize,
        batches: &mut Vec<(u32, Vec<u32>)>,
    ) {
        let gi = g as usize;
        let protect = if pass == Pass::First && cat == Cat::Dispatch {
            self.guests[gi].wss as u32
        } else {
            0
        };
        let n = self.guests[gi].ufo.len();
        let mut taken = 0u32;
        for _ in 0..n {
            if self.st.avail.len() >= target
                || self.guests[gi].resident <= protect
                || taken >= STEAL_QUANTUM
            {
                break;
            }
            // The entries examined a few turns from now: start their misses.
            if let Some(&(fa, vpa)) = self.guests[gi].ufo.get(STEAL_AHEAD) {
                super::prefetch(&self.guests[gi].pt, vpa as usize);
                super::prefetch(&self.st.frames, fa as usize);
            }
            let Some((f, vp)) = self.guests[gi].ufo.pop_front() else {
                break;
            };
            let fi = f as usize;
            // The page table says whether the entry is current (one memory
            // access instead of checking the frame's owner and page).
            let e = self.guests[gi].pt[vp as usize].e;
            match tag(e) {
                T_RES if idx(e) == f => {}
                T_READIN
                    if self.st.frames[fi]
                        == (Frame {
                            owner: g,
                            vpage: vp,
                        }) =>
                {
                    // Being read in: keep it for later.
                    self.guests[gi].ufo.push_back((f, vp));
                    continue;
                }
                _ => continue, // stale entry: the frame was freed or reused since
            }
            self.st.c.examined += 1;
            cx.charge.sys += self.costs.steal_frame;
            // The reference bit first: it is in the entry already loaded, and
            // it decides most examinations without touching the frame's flags.
            if (pass != Pass::Emergency && e & P_REF != 0) || self.st.flags[fi] & F_LOCK != 0 {
                self.guests[gi].pt[vp as usize].e = e & !P_REF;
                self.guests[gi].ufo.push_back((f, vp));
                continue;
            }
            self.steal_frame(cx, g, vp, f, batches);
            taken += 1;
            let p = match pass {
                Pass::First => 0,
                Pass::Second => 1,
                Pass::Emergency => 2,
            };
            let c = match cat {
                Cat::Dormant => 0,
                Cat::Eligible => 1,
                Cat::Dispatch => 2,
            };
            self.st.c.by_pass[p][c] += 1;
            self.st.by_cpu[cx.cpu as usize].by_pass[p][c] += 1;
        }
    }

    /// Take frame `f` from guest `g`: unchanged pages with a DASD copy are simply
    /// released; others go to XSTOR if it has room, else join a DASD write block.
    fn steal_frame(
        &mut self,
        cx: &mut Cx,
        g: u32,
        vp: u32,
        f: u32,
        batches: &mut Vec<(u32, Vec<u32>)>,
    ) {
        let gi = g as usize;
        self.st.c.steals += 1;
        self.st.by_cpu[cx.cpu as usize].steals += 1;
        self.st.by_guest[gi].steals += 1;
        let changed = self.guests[gi].pt[vp as usize].e & P_CHG != 0;
        let backing = self.guests[gi].pt[vp as usize].blk;
        if !changed && backing != NO_BLOCK {
            self.guests[gi].pt[vp as usize].e = pte(T_DASD, 0);
            self.free_frame(f);
            return;
        }
        if backing != NO_BLOCK {
            self.release_slot(g, vp);
        }
        if self.st.xs.total > 0 && self.st.xs.has_room() {
            let b = self.st.xs.take(g, vp, cx.now());
            self.guests[gi].pt[vp as usize].e = pte(T_XS, b);
            self.guests[gi].xstor += 1;
            self.st.by_guest[gi].ms_to_x += 1;
            self.st.c.xstor_out += 1;
            self.st.by_cpu[cx.cpu as usize].xs_out += 1;
            cx.charge.sys += self.costs.xmove;
            self.free_frame(f);
            self.maybe_migrate(cx);
            return;
        }
        // XSTOR is full: make room for later steals, and send this page to DASD.
        // Keep the frame (locked) until the write completes.
        if self.st.xs.total > 0 {
            self.maybe_migrate(cx);
        }
        self.guests[gi].pt[vp as usize] = PageEntry {
            e: pte(T_PAGEOUT, 0),
            blk: f,
        };
        self.st.pageout_frames += 1;
        self.st.flags[f as usize] |= F_LOCK;
        match batches.iter_mut().find(|(bg, _)| *bg == g) {
            Some((_, v)) => v.push(vp),
            None => batches.push((g, vec![vp])),
        }
    }

    /// Write stolen pages to DASD in blocks of up to the block size.
    fn flush_pageouts(&mut self, cx: &mut Cx, batches: Vec<(u32, Vec<u32>)>) {
        for (g, pages) in batches {
            let mut rest = &pages[..];
            while !rest.is_empty() {
                let want = (rest.len() as u32).min(self.block_max);
                let items: Vec<(u32, u32)> =
                    rest[..want as usize].iter().map(|&vp| (g, vp)).collect();
                let n = self.start_block_write(cx, &items, super::paging::WriteKind::PageOut);
                if n == 0 {
                    return; // abend raised
                }
                rest = &rest[n as usize..];
            }
        }
    }

    /// Migrate the oldest XSTOR blocks to DASD when free XSTOR runs below the
    /// low threshold, until free plus in-flight blocks reach twice that.
    pub(crate) fn maybe_migrate(&mut self, cx: &mut Cx) {
        if self.st.xs.free.len() as u32 + self.st.xs.migrating >= self.st.xs.low {
            return;
        }
        // Migration runs in the background with a bounded number of pages in
        // flight, MIGRATE_BLOCKS_PER_VOLUME blocks per paging volume.
        let cap = MIGRATE_BLOCKS_PER_VOLUME * self.block_max * self.pg.vols.len() as u32;
        while (self.st.xs.free.len() as u32 + self.st.xs.migrating) < 2 * self.st.xs.low
            && self.st.xs.migrating < cap
        {
            let mut items = Vec::with_capacity(self.block_max as usize);
            while items.len() < self.block_max as usize {
                let Some((b, gen)) = self.st.xs.fifo.pop_front() else {
                    break;
                };
                let bi = b as usize;
                if self.st.xs.gen[bi] != gen || self.st.xs.owner[bi] == FREE {
                    continue;
                }
                items.push((self.st.xs.owner[bi], self.st.xs.vpage[bi]));
            }
            if items.is_empty() {
                return;
            }
            // A block write may take fewer pages than offered (a short run of
            // free slots): write the rest in further blocks, counting only
            // what is actually in flight.
            let mut rest = &items[..];
            while !rest.is_empty() {
                let n = self.start_block_write(cx, rest, super::paging::WriteKind::Migrate);
                if n == 0 {
                    return; // abend raised
                }
                self.st.xs.migrating += n;
                self.st.c.migrated += n as u64;
                self.st.by_cpu[cx.cpu as usize].migrated += n as u64;
                for &(g, _) in &rest[..n as usize] {
                    self.st.by_guest[g as usize].x_to_ds += 1;
                }
                rest = &rest[n as usize..];
            }
        }
    }

    /// A migration write finished: pages still in XSTOR now live on DASD.
    /// Continue migrating if XSTOR is still short (interrupt-level CP work:
    /// the caller owes `cx`'s charge to the CPU's next burst).
    pub(crate) fn migration_done(&mut self, cx: &mut Cx, block: u32) {
        self.finish_migration(block);
        self.maybe_migrate(cx);
    }

    fn finish_migration(&mut self, block: u32) {
        // By index, not by copying the list: completion work may mark slots gone.
        for k in 0..self.pg.blocks.len(block) {
            let (g, vp) = self.pg.blocks.page(block, k);
            self.st.xs.migrating = self.st.xs.migrating.saturating_sub(1);
            let gi = g as usize;
            let e = self.guests[gi].pt[vp as usize].e;
            if tag(e) == T_XS {
                let b = idx(e);
                self.st.xs.release(b);
                self.guests[gi].xstor -= 1;
                self.guests[gi].pt[vp as usize].e = pte(T_DASD, 0);
                self.guests[gi].pt[vp as usize].blk = block;
                self.guests[gi].dasd_pages_add(1);
            } else {
                // Read back (or discarded) while the write ran: the copy is not needed.
                self.pg.drop_page(block, g, vp);
            }
        }
        self.pg.blocks.maybe_free(block);
    }

    /// A page-out write finished: free the frames of pages not reclaimed meanwhile.
    pub(crate) fn pageout_done(&mut self, block: u32) {
        let n = self.pg.blocks.len(block);
        self.st.pageout_frames -= n;
        for k in 0..n {
            let (g, vp) = self.pg.blocks.page(block, k);
            let gi = g as usize;
            let e = self.guests[gi].pt[vp as usize].e;
            match tag(e) {
                T_PAGEOUT => {
                    let f = self.guests[gi].pt[vp as usize].blk;
                    self.guests[gi].pt[vp as usize].e = pte(T_DASD, 0);
                    self.guests[gi].pt[vp as usize].blk = block;
                    self.guests[gi].dasd_pages_add(1);
                    self.free_frame(f);
                }
                T_RES => {
                    // Reclaimed during the write: the frame stays; the copy is good
                    // unless the page was changed again.
                    let f = idx(e);
                    self.st.flags[f as usize] &= !F_LOCK;
                    if e & P_CHG == 0 {
                        self.guests[gi].pt[vp as usize].blk = block;
                        self.guests[gi].dasd_pages_add(1);
                    } else {
                        self.pg.drop_page(block, g, vp);
                    }
                }
                _ => self.pg.drop_page(block, g, vp),
            }
            if self.logged_off(g) {
                self.discard_page(g, vp);
            }
        }
        self.pg.blocks.maybe_free(block);
    }

    /// Forget page `vp` of a guest that logged off: free its frame, XSTOR
    /// block and slot. A page with I/O in flight (being read in, being paged
    /// out, or reclaimed during its page-out) is left to the I/O's completion,
    /// which calls this again once the guest is logged off.
    pub(crate) fn discard_page(&mut self, g: u32, vp: u32) {
        let gi = g as usize;
        let e = self.guests[gi].pt[vp as usize].e;
        match tag(e) {
            T_RES => {
                let f = idx(e);
                if self.st.flags[f as usize] & F_LOCK != 0 {
                    return;
                }
                self.free_frame(f);
            }
            T_XS => {
                self.st.xs.release(idx(e));
                self.guests[gi].xstor -= 1;
            }
            T_READIN | T_PAGEOUT => return,
            _ => {}
        }
        self.release_slot(g, vp);
        self.guests[gi].pt[vp as usize].e = pte(T_NONE, 0);
    }

    pub(crate) fn logged_off(&self, g: u32) -> bool {
        self.guests[g as usize].sched == super::dispatch::Sched::LoggedOff
    }

    /// The DASD copy of a page is no longer valid: release its slot.
    pub(crate) fn release_slot(&mut self, g: u32, vp: u32) {
        let gi = g as usize;
        let b = self.guests[gi].pt[vp as usize].blk;
        if b == NO_BLOCK {
            return;
        }
        self.guests[gi].pt[vp as usize].blk = NO_BLOCK;
        self.guests[gi].dasd_pages_add(-1);
        self.pg.drop_page(b, g, vp);
        self.pg.blocks.maybe_free(b);
    }

    /// Bring an XSTOR page into frame `f` (synchronous page move).
    pub(crate) fn xstor_in(&mut self, cx: &mut Cx, g: u32, vp: u32, f: u32) {
        let gi = g as usize;
        let e = self.guests[gi].pt[vp as usize].e;
        let b = idx(e);
        self.st.xs.release(b);
        self.guests[gi].xstor -= 1;
        // The page has no other copy now: mark it changed so a steal writes it.
        self.guests[gi].pt[vp as usize].e = pte(T_RES, f) | P_REF | P_CHG;
        self.st.by_guest[gi].x_to_ms += 1;
        self.st.c.xstor_in += 1;
        self.st.by_cpu[cx.cpu as usize].xs_in += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_words_round_trip_at_the_limits() {
        let top = (MAX_FRAMES - 1) as u32;
        for f in [0, 1, 12345, top] {
            let e = pte(T_RES, f) | P_REF | P_CHG;
            assert_eq!((tag(e), idx(e)), (T_RES, f));
            assert_eq!((tag(e & !P_REF), idx(e & !P_CHG)), (T_RES, f));
        }
        for t in [T_NONE, T_XS, T_DASD, T_READIN] {
            for i in [0, 7, IDX_MASK] {
                let e = pte(t, i);
                assert_eq!((tag(e), idx(e)), (t, i));
                assert_eq!(e & RES, 0);
            }
        }
        assert_eq!(tag(pte(T_PAGEOUT, 0)), T_PAGEOUT);
    }
}
