//! Era C storage management (z/VM 6.3 and later, spec topic 1.4): the
//! global aging list, trial invalidation and early writes, in place of the
//! Era A three-pass demand scan and XSTOR. Methods of [`Storage`] (they work
//! on its frames and page tables) plus the [`AgeList`] state they own.
//!
//! **Model** (spec topic 1.4, model rule Era B/C):
//! * The demand scan visits the owners cyclically (users and system-owned
//!   shared spaces), taking from each in proportion to its resident frames
//!   \[E: "how many frames are taken from each user in 6.3: not published"\].
//!   A frame found referenced has its reference bit reset and goes to the
//!   back of its owner's list (the protected end); an unreferenced one leaves
//!   the owner's list for the tail of the aging list, invalid but resident
//!   (IBR): it keeps its contents and its page stays valid in the twin's
//!   page table with the reference bit off.
//! * With EARLYWRITES, a changed page entering the list starts its page-out
//!   at once and stays on the list (its frame locked while the write runs);
//!   when the write ends the page is resident, unchanged, with a DASD copy.
//! * A frame is reused from the head (reclaim end) when the available list
//!   is short: if its page was referenced since it entered the list, the
//!   frame goes back to its owner (a revalidation: CP time, no I/O,
//!   counted); if the page is unchanged with a DASD copy (early-written, or
//!   read back and kept its slot) the frame is freed with no I/O; a page
//!   whose early write is still running is freed when the write ends; a
//!   changed page without a copy (EARLYWRITES NO, or changed again) is paged
//!   out then.
//! * A guest touching a page whose early write is running takes the
//!   page-out reclaim fault it takes in Era A (no I/O), and the frame leaves
//!   the list. A touch of an IBR page whose write has ended (or that needed
//!   none) sets the reference bit silently; the revalidation is counted and
//!   charged when the frame reaches the head: the twin detects the reference
//!   when CP would have, at reuse, not at the touch (the CPU is charged
//!   later, the outcome, no I/O and the frame back to its owner, is the same).
//! * There is no reorder (Era A's per-user list revalidation is not run)
//!   and no XSTOR (refused at these levels by `params.rs`).
//!
//! **Frame flags** used here (beside `F_LOCK`): [`F_AGED`] (on the aging
//! list), [`F_EARLY`] (its early write is in flight), [`F_WRITTEN`] (its
//! early write completed while on the list).
//!
//! **Counters** ([`AgeCounters`]): frames moved to the list, revalidated
//! (at the head, or by a fault during the early write), freed with no I/O
//! (and of them early-written), paged out at the head, early writes started.

pub mod params;
#[cfg(test)]
mod tests;

use super::lock::F_KEEP;
use super::{
    idx, list_entry, pte, tag, Frame, ListEntry, PageEntry, Pager, Storage, F_LOCK, NO_BLOCK,
    P_CHG, P_REF, T_DASD, T_PAGEOUT, T_RES,
};
use crate::core::units::Ns;
use crate::core::us_to_ns;
use crate::model::Cx;
use std::collections::VecDeque;

/// Frame flag: on the global aging list.
pub const F_AGED: u8 = 8;
/// Frame flag: its early write (a page-out started as it entered the aging
/// list) is in flight.
pub const F_EARLY: u8 = 16;
/// Frame flag: its early write completed while it was on the aging list.
pub const F_WRITTEN: u8 = 32;

/// Aging-list counters (cumulative).
#[derive(Default, Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgeCounters {
    /// Frames the demand scan moved from owners' lists to the aging list.
    pub moved: u64,
    /// Frames examined by the demand scan (referenced or not).
    pub examined: u64,
    /// Frames found referenced at the head and returned to their owner.
    pub reclaimed: u64,
    /// Frames returned to their owner by a fault during their early write.
    pub reclaimed_fault: u64,
    /// Frames freed from the head with no I/O (unchanged with a DASD copy).
    pub freed_no_io: u64,
    /// Of `freed_no_io`, frames whose early write completed on the list.
    pub freed_written: u64,
    /// Frames taken at the head while their early write was in flight.
    pub freed_wait: u64,
    /// Frames taken at the head that needed a page-out then.
    pub paged_out: u64,
    /// Early writes started.
    pub early_writes: u64,
    /// Replenishments of the available list from the aging list.
    pub replenish: u64,
}

/// The aging list as the monitor sees it.
#[derive(Clone, Copy, Debug, Default)]
pub struct AgeSample {
    /// Frames on the list, its target size, early writes in flight.
    pub frames: u32,
    pub target: u32,
    pub early_inflight: u32,
    /// Early writes are on (`[agelist] earlywrites`).
    pub earlywrites: bool,
    pub c: AgeCounters,
}

/// The global aging list and its settings.
pub struct AgeList {
    /// Era C storage management is in use (cp_level 6.3 or later).
    pub on: bool,
    earlywrites: bool,
    /// Target length (frames).
    target: u32,
    /// (frame, owner, page) in the order they entered; entries whose frame
    /// left the list another way are skipped at the head (the frame's
    /// [`F_AGED`] flag, owner and page tell).
    list: VecDeque<(u32, u32, u32)>,
    /// Frames with [`F_AGED`] set.
    aged: u32,
    /// Early writes in flight: counted in `pageout_frames` (paging's write
    /// completion counts them off with the others) but not on their way to
    /// the available list.
    pub(super) early_inflight: u32,
    /// Where the next visit of the owners starts.
    cursor: u32,
    reclaim_cost: Ns,
    c: AgeCounters,
}

impl AgeList {
    /// The aging list of a storage of `dpa` pageable frames: `p` at an Era C
    /// level, none (`on` false) otherwise.
    pub fn new(p: Option<&params::Params>, dpa: u32) -> AgeList {
        AgeList {
            on: p.is_some(),
            earlywrites: p.is_some_and(|p| p.earlywrites),
            target: p.map_or(0, |p| p.target(dpa)),
            list: VecDeque::new(),
            aged: 0,
            early_inflight: 0,
            cursor: 0,
            reclaim_cost: p.map_or(0, |p| us_to_ns(p.reclaim_us)),
            c: AgeCounters::default(),
        }
    }
}

impl Storage {
    /// Frames on their way to the available list: page-outs in flight other
    /// than early writes (0 of those in Era A).
    #[inline(always)]
    pub(super) fn on_way(&self) -> u32 {
        self.pageout_frames - self.age.early_inflight
    }

    /// Replenish the available list: the Era A demand scan, or at Era C
    /// levels the aging list.
    #[inline(never)]
    pub(super) fn replenish(&mut self, cx: &mut Cx, pager: &mut impl Pager) {
        if self.age.on {
            self.agelist_replenish(cx, pager);
        } else {
            self.demand_scan(cx, pager);
        }
    }

    /// Frames free or on their way.
    #[inline]
    fn age_got(&self) -> usize {
        self.avail_len() + self.on_way() as usize
    }

    /// Era C: bring the available list (with the frames on their way) up to
    /// the high threshold from the head of the aging list, refilling the list
    /// from the owners when it runs dry, then top the list up to its target.
    fn agelist_replenish(&mut self, cx: &mut Cx, pager: &mut impl Pager) {
        let want = self.high as usize;
        if self.age_got() >= want {
            return;
        }
        self.c.scans += 1;
        self.age.c.replenish += 1;
        // The list is refilled first when it is below a quarter of its
        // target (at the first shortage it is empty): the frames reused then
        // are the oldest the scan finds unreferenced.
        for _ in 0..4 {
            if self.age.aged < self.age.target / 4 || self.age.list.is_empty() {
                let need = (self.age.target - self.age.aged.min(self.age.target))
                    .max((want - self.age_got().min(want)) as u32);
                if self.fill_agelist(cx, pager, need) == 0 && self.age.list.is_empty() {
                    break;
                }
            }
            while self.age_got() < want {
                if !self.reuse_head(cx, pager) {
                    break;
                }
            }
            if self.age_got() >= want {
                break;
            }
        }
        // Keep the list at its target: frames need time on it to be
        // referenced again before they reach the head.
        let short = self.age.target.saturating_sub(self.age.aged);
        if short > 0 {
            self.fill_agelist(cx, pager, short);
        }
    }

    /// Move up to `n` frames from the owners' lists to the aging list,
    /// visiting owners cyclically and taking from each in proportion to its
    /// resident frames. A frame found referenced has its bit reset and goes
    /// to the back of its owner's list. Three rounds at most: the first two
    /// take unreferenced frames only, the third takes any unlocked frame
    /// (every resident frame was referenced since the last look). Returns
    /// the frames moved.
    fn fill_agelist(&mut self, cx: &mut Cx, pager: &mut impl Pager, n: u32) -> u32 {
        let ns = self.spaces.len() as u32;
        if ns == 0 || n == 0 {
            return 0;
        }
        let mut moved = 0u32;
        for round in 0..3 {
            let res: u64 = self.spaces.iter().map(|sp| sp.resident as u64).sum();
            if res == 0 {
                break;
            }
            let left = n - moved;
            for k in 0..ns {
                if moved >= n {
                    break;
                }
                let g = (self.age.cursor + k) % ns;
                let r = self.spaces[g as usize].resident as u64;
                if r == 0 {
                    continue;
                }
                let quota = ((left as u64 * r).div_ceil(res)).min((n - moved) as u64) as u32;
                moved += self.visit_owner(cx, pager, g, quota, round == 2);
            }
            if moved >= n {
                break;
            }
        }
        self.age.cursor = (self.age.cursor + 1) % ns;
        moved
    }

    /// One visit of the scan to owner `g`: walk its list once at most until
    /// `quota` frames moved to the aging list (`any`: referenced ones too).
    fn visit_owner(
        &mut self,
        cx: &mut Cx,
        pager: &mut impl Pager,
        g: u32,
        quota: u32,
        any: bool,
    ) -> u32 {
        let gi = g as usize;
        let mut moved = 0;
        let mut walk = self.spaces[gi].ufo.len();
        while moved < quota && walk > 0 {
            walk -= 1;
            let sp = &mut self.spaces[gi];
            let Some((f, vp)) = sp.ufo.pop_front() else {
                break;
            };
            let fi = f as usize;
            let e = sp.pt[vp as usize].e;
            match list_entry(e, f, &self.frames, g, vp) {
                ListEntry::Resident if self.flags[fi] & F_AGED == 0 => {}
                ListEntry::ReadIn => {
                    sp.ufo.push_back((f, vp));
                    continue;
                }
                // Stale (freed or reused), or already on the aging list.
                _ => continue,
            }
            self.age.c.examined += 1;
            self.c.examined += 1;
            cx.charge.sys += self.costs.steal_frame;
            if self.flags[fi] & F_KEEP != 0 || (e & P_REF != 0 && !any) {
                sp.pt[vp as usize].e = e & !P_REF;
                sp.ufo.push_back((f, vp));
                continue;
            }
            // Trial invalidation: the frame joins the aging list, its page
            // unreferenced from now on.
            sp.pt[vp as usize].e = e & !P_REF;
            self.flags[fi] |= F_AGED;
            self.age.aged += 1;
            self.age.list.push_back((f, g, vp));
            self.age.c.moved += 1;
            moved += 1;
            let pe = self.spaces[gi].pt[vp as usize];
            if self.age.earlywrites && (pe.e & P_CHG != 0 || pe.blk == NO_BLOCK) {
                self.early_write(pager, g, vp, f);
            }
        }
        moved
    }

    /// Start the page-out of changed page (g, vp) in frame `f` as it enters
    /// the aging list; it stays there, its frame locked while the write runs.
    fn early_write(&mut self, pager: &mut impl Pager, g: u32, vp: u32, f: u32) {
        if self.spaces[g as usize].pt[vp as usize].blk != NO_BLOCK {
            // Changed since read back: the old copy is no longer valid (the
            // first change released it already; kept for safety).
            self.release_slot(pager, g, vp);
        }
        self.spaces[g as usize].pt[vp as usize] = PageEntry {
            e: pte(T_PAGEOUT, 0),
            blk: f,
        };
        self.flags[f as usize] |= F_LOCK | F_EARLY;
        self.pageout_frames += 1;
        self.age.early_inflight += 1;
        self.age.c.early_writes += 1;
        self.pageouts.add(g, vp);
    }

    /// Take the frame at the head of the aging list. Returns false when the
    /// list is empty.
    fn reuse_head(&mut self, cx: &mut Cx, pager: &mut impl Pager) -> bool {
        let _ = pager;
        loop {
            let Some((f, g, vp)) = self.age.list.pop_front() else {
                return false;
            };
            let fi = f as usize;
            if self.flags[fi] & F_AGED == 0
                || self.frames[fi]
                    != (Frame {
                        owner: g,
                        vpage: vp,
                    })
            {
                continue; // left the list another way
            }
            let gi = g as usize;
            let pe = self.spaces[gi].pt[vp as usize];
            match tag(pe.e) {
                T_RES if idx(pe.e) == f => {
                    let written = self.flags[fi] & F_WRITTEN != 0;
                    self.flags[fi] &= !(F_AGED | F_WRITTEN);
                    self.age.aged -= 1;
                    if pe.e & P_REF != 0 {
                        // Referenced while on the list: revalidated, back
                        // to its owner (no I/O).
                        self.spaces[gi].ufo.push_back((f, vp));
                        self.age.c.reclaimed += 1;
                        cx.charge.sys += self.age.reclaim_cost;
                        continue;
                    }
                    self.c.steals += 1;
                    self.by_cpu[cx.cpu as usize].steals += 1;
                    self.by_guest[gi].steals += 1;
                    if pe.e & P_CHG == 0 && pe.blk != NO_BLOCK {
                        // A valid copy on DASD: reused with no I/O.
                        self.age.c.freed_no_io += 1;
                        self.age.c.freed_written += u64::from(written);
                        self.spaces[gi].pt[vp as usize].e = pte(T_DASD, 0);
                        self.free_frame(f);
                    } else {
                        // Changed and not written: paged out now, the frame
                        // freed when the write completes.
                        if pe.blk != NO_BLOCK {
                            self.release_slot(pager, g, vp);
                        }
                        self.spaces[gi].pt[vp as usize] = PageEntry {
                            e: pte(T_PAGEOUT, 0),
                            blk: f,
                        };
                        self.flags[fi] |= F_LOCK;
                        self.pageout_frames += 1;
                        self.pageouts.add(g, vp);
                        self.age.c.paged_out += 1;
                    }
                    return true;
                }
                T_PAGEOUT if pe.blk == f => {
                    // The early write is still running: the frame is freed
                    // when it completes (a plain page-out from now on).
                    self.flags[fi] &= !(F_AGED | F_EARLY);
                    self.age.aged -= 1;
                    self.age.early_inflight -= 1;
                    self.c.steals += 1;
                    self.by_cpu[cx.cpu as usize].steals += 1;
                    self.by_guest[gi].steals += 1;
                    self.age.c.freed_wait += 1;
                    return true;
                }
                _ => {
                    debug_assert!(false, "aged frame {f} of ({g}, {vp}) not resident");
                    self.flags[fi] &= !F_AGED;
                    self.age.aged -= 1;
                }
            }
        }
    }

    // ---------------------------------------------------------- hooks

    /// Frame `f` is freed (hook of `free_frame`): off the aging list.
    #[inline(always)]
    pub(super) fn age_freed(&mut self, f: u32) {
        if self.flags[f as usize] & F_AGED != 0 {
            self.age.aged -= 1;
        }
    }

    /// Page (g, vp) in frame `f`, being written, was touched (hook of
    /// `reclaim`): a frame on the aging list is revalidated and leaves it.
    #[inline]
    pub(super) fn age_reclaimed(&mut self, f: u32) {
        let fl = &mut self.flags[f as usize];
        if *fl & F_AGED != 0 {
            *fl &= !(F_AGED | F_WRITTEN);
            self.age.aged -= 1;
            self.age.c.reclaimed_fault += 1;
        }
    }

    /// The page-out of the page in frame `f` ended, or was dropped (hook of
    /// `written_out` and `drop_pageout`): an early write is no longer in
    /// flight. Returns whether the frame stays on the aging list (an early
    /// write of a page still on it: the caller keeps the frame, the page
    /// resident and unchanged).
    #[inline]
    pub(super) fn age_write_ended(&mut self, f: u32) -> bool {
        let fl = &mut self.flags[f as usize];
        if *fl & F_EARLY == 0 {
            return false;
        }
        *fl &= !F_EARLY;
        self.age.early_inflight -= 1;
        if *fl & F_AGED != 0 {
            *fl |= F_WRITTEN;
            true
        } else {
            false
        }
    }

    // ---------------------------------------------------------- samples

    /// The aging list now (zeros in Era A).
    pub fn agelist(&self) -> AgeSample {
        AgeSample {
            frames: self.age.aged,
            target: self.age.target,
            early_inflight: self.age.early_inflight,
            earlywrites: self.age.earlywrites,
            c: self.age.c,
        }
    }

    /// Era C storage management is in use.
    pub fn era_c(&self) -> bool {
        self.age.on
    }

    /// Consistency of the aging list: its count is the frames flagged on
    /// it, each such frame owned by a page that holds it (resident, or
    /// being early-written) and not on its owner's list; early writes in
    /// flight are the frames flagged so.
    #[cfg(any(test, debug_assertions))]
    pub(super) fn check_agelist(&self) {
        use super::FREE;
        let mut aged = 0u32;
        let mut early = 0u32;
        for (f, fr) in self.frames.iter().enumerate() {
            let fl = self.flags[f];
            if fl & F_EARLY != 0 {
                early += 1;
            }
            if fl & F_AGED == 0 {
                continue;
            }
            aged += 1;
            assert!(fr.owner != FREE, "aged frame {f} is free");
            let pe = self.spaces[fr.owner as usize].pt[fr.vpage as usize];
            let holds = match tag(pe.e) {
                T_RES => idx(pe.e) == f as u32,
                T_PAGEOUT => pe.blk == f as u32 && fl & F_EARLY != 0,
                _ => false,
            };
            assert!(holds, "aged frame {f} not held by its page");
        }
        assert_eq!(aged, self.age.aged, "frames on the aging list");
        assert_eq!(early, self.age.early_inflight, "early writes in flight");
        for (g, sp) in self.spaces.iter().enumerate() {
            for &(f, vp) in &sp.ufo {
                let e = sp.pt[vp as usize].e;
                if tag(e) == T_RES && idx(e) == f {
                    assert!(
                        self.flags[f as usize] & F_AGED == 0,
                        "frame {f} of guest {g} is on its list and on the aging list"
                    );
                }
            }
        }
        let listed = self
            .age
            .list
            .iter()
            .filter(|&&(f, g, vp)| {
                self.flags[f as usize] & F_AGED != 0
                    && self.frames[f as usize]
                        == Frame {
                            owner: g,
                            vpage: vp,
                        }
            })
            .count() as u32;
        assert!(listed >= self.age.aged, "aged frames missing from the list");
    }
}
