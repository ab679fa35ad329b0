//! CP's LOCK and UNLOCK: a guest's pages pinned in their frames.
//!
//! A pinned frame carries [`F_PIN`], a flag of its own beside
//! [`F_LOCK`] (I/O in progress): the completion of a read or a page-out
//! clears `F_LOCK` only, so I/O does not unpin. Every steal path leaves a
//! frame with either flag ([`F_KEEP`]): the Era A demand scan's passes
//! (emergency included), the shared-space pass, the Era C aging-list fill.
//! XSTOR migration moves XSTOR blocks, never resident frames. UNLOCK clears
//! the flag; a guest's logoff frees its pinned frames with the others
//! (`discard` leaves only frames with I/O in flight; freeing a frame clears
//! all its flags).
//!
//! Storage pins resident pages ([`Storage::pin`]); the pages of a LOCK
//! range that are not resident are brought in first by the wiring
//! (`Model::lock` in `cp.rs`: a first touch, a move from XSTOR, a reclaim
//! from a page-out, or paging's block read, each page pinned as it
//! arrives). Storage refuses a range outside the guest's storage, or one
//! whose pages not pinned yet would take more frames than the dynamic
//! paging area has left unpinned ([`Storage::lock_check`]).
//! LOCK references each page it pins (its reference bit set): a frame on
//! the Era C aging list is then revalidated at the list's head, back to its
//! owner, and the aging-list fill passes it over while pinned.
//!
//! The pinned frames are counted per guest and in all as they are pinned
//! and unpinned (for the monitor's USEACT_VMDCTPVL and the checks): never
//! a walk on a hot path; the only cost elsewhere is the wider flag mask of
//! the steal paths' skip conditions.

use super::{idx, tag, Storage, F_LOCK, P_REF, T_PAGEOUT, T_RES};

/// Frame flag: pinned by CP's LOCK command (until UNLOCK or logoff).
pub const F_PIN: u8 = 64;
/// The frames a steal path leaves: I/O in flight or pinned.
pub const F_KEEP: u8 = F_LOCK | F_PIN;

/// Why a LOCK or UNLOCK range was refused (nothing changed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockRefusal {
    /// The range is not within the guest's storage (of this many pages).
    Range(u32),
    /// LOCK: the range's pages not pinned yet (`need`) are more than the
    /// frames of the dynamic paging area not pinned (`room`).
    TooMany { need: u32, room: u32 },
    /// UNLOCK: this page is not locked.
    NotLocked(u32),
}

impl Storage {
    /// The frame of guest `g`'s page `vp` if resident.
    fn resident_frame(&self, g: u32, vp: u32) -> Option<u32> {
        let e = self.spaces[g as usize].pt[vp as usize].e;
        (tag(e) == T_RES).then(|| idx(e))
    }

    fn check_range(&self, g: u32, first: u32, last: u32) -> Result<(), LockRefusal> {
        let n = self.spaces[g as usize].pt.len() as u32;
        if first > last || last >= n {
            return Err(LockRefusal::Range(n));
        }
        Ok(())
    }

    /// LOCK's checks before anything is brought in: the range is within
    /// guest `g`'s storage, and its pages not pinned yet fit in the frames
    /// of the dynamic paging area not pinned (else no frame could ever hold
    /// them all: refused, nothing pinned).
    pub fn lock_check(&self, g: u32, first: u32, last: u32) -> Result<(), LockRefusal> {
        self.check_range(g, first, last)?;
        let need = (first..=last).filter(|&vp| !self.is_pinned(g, vp)).count() as u32;
        let room = self.dpa().saturating_sub(self.pinned_frames);
        if need > room {
            return Err(LockRefusal::TooMany { need, room });
        }
        Ok(())
    }

    /// Pin guest `g`'s page `vp` in its frame if it is resident (a page
    /// reclaimed from its page-out is: it keeps the write's `F_LOCK` until
    /// the write ends). Pinned already: nothing changes. Returns the frame,
    /// `None` when the page is not resident (the caller brings it in).
    pub fn pin(&mut self, g: u32, vp: u32) -> Option<u32> {
        let f = self.resident_frame(g, vp)?;
        if self.flags[f as usize] & F_PIN == 0 {
            self.flags[f as usize] |= F_PIN;
            self.spaces[g as usize].pinned += 1;
            self.pinned_frames += 1;
        }
        self.spaces[g as usize].pt[vp as usize].e |= P_REF;
        Some(f)
    }

    /// Whether guest `g`'s page `vp` is being paged out (stolen, still in
    /// its frame): LOCK reclaims it first ([`Storage::reclaim`]).
    pub fn paging_out(&self, g: u32, vp: u32) -> bool {
        tag(self.spaces[g as usize].pt[vp as usize].e) == T_PAGEOUT
    }

    /// UNLOCK: unpin guest `g`'s pages `first..=last`, all pinned (else
    /// nothing is unpinned); they are stealable again. Returns the pages
    /// unpinned.
    pub fn unlock_pages(&mut self, g: u32, first: u32, last: u32) -> Result<u32, LockRefusal> {
        self.check_range(g, first, last)?;
        for vp in first..=last {
            if !self.is_pinned(g, vp) {
                return Err(LockRefusal::NotLocked(vp));
            }
        }
        for vp in first..=last {
            let f = self
                .resident_frame(g, vp)
                .expect("pinned pages are resident");
            self.flags[f as usize] &= !F_PIN;
        }
        let n = last - first + 1;
        self.spaces[g as usize].pinned -= n;
        self.pinned_frames -= n;
        Ok(n)
    }

    /// Whether guest `g`'s page `vp` is pinned.
    pub fn is_pinned(&self, g: u32, vp: u32) -> bool {
        self.resident_frame(g, vp)
            .is_some_and(|f| self.flags[f as usize] & F_PIN != 0)
    }

    /// Guest `g`'s pinned pages (its count, kept as pages are pinned and
    /// unpinned; 0 once it logged off).
    pub fn pinned(&self, g: u32) -> u32 {
        self.spaces[g as usize].pinned
    }

    /// A guest logs off: its pinned frames leave the counts (the frames are
    /// freed as its pages are discarded).
    pub(super) fn unpin_all(&mut self, g: u32) {
        let sp = &mut self.spaces[g as usize];
        self.pinned_frames -= sp.pinned;
        sp.pinned = 0;
    }

    /// The pinned-frame counts against the frame flags: each logged-on
    /// guest's count is its frames with [`F_PIN`]; the total is the sum.
    #[cfg(any(test, debug_assertions))]
    pub(super) fn check_pinned(&self) {
        let mut by = vec![0u32; self.spaces.len()];
        for (f, fr) in self.frames.iter().enumerate() {
            if (fr.owner as usize) < by.len() && self.flags[f] & F_PIN != 0 {
                by[fr.owner as usize] += 1;
            }
        }
        let mut total = 0;
        for (g, sp) in self.spaces.iter().enumerate() {
            if sp.on {
                assert_eq!(by[g], sp.pinned, "guest {g}: pinned frames vs count");
            }
            total += sp.pinned;
        }
        assert_eq!(total, self.pinned_frames, "pinned frames in all");
    }
}

#[cfg(test)]
mod tests {
    use super::super::era_c::params::Params as AgeParams;
    use super::super::tests::{params, FakePager, Writes};
    use super::*;
    use crate::core::units::SEC;
    use crate::model::{Core, Cx};

    /// 16M (3072 pageable frames), no XSTOR, four guests of 8192 pages
    /// logged on: Era A (5.4) or Era C (7.3, an aging list of 2% with
    /// early writes).
    fn storage(era_c: bool) -> Storage {
        let mut p = params(0);
        if era_c {
            p.cp_level = "7.3".into();
            p.agelist = Some(AgeParams {
                size: 2.0,
                earlywrites: true,
                ..AgeParams::default()
            });
        }
        let mut st = Storage::new(&p, 1, &[8192; 4]);
        assert_eq!(st.era_c(), era_c);
        for g in 0..4 {
            st.create_space(g);
        }
        st
    }

    /// The page-outs chosen so far, handed to "paging": written at once
    /// (a page reclaimed meanwhile is dropped, as paging does).
    fn write_all(st: &mut Storage, block: &mut u32) {
        let mut w = Writes {
            next_block: *block,
            ..Writes::default()
        };
        w.collect(st);
        w.complete(st, usize::MAX);
        *block = w.next_block;
    }

    /// Guest `g` first-touches pages `pages`, every page-out written at once.
    fn touch(st: &mut Storage, g: u32, pages: std::ops::Range<u32>, block: &mut u32) {
        let mut core = Core::new(SEC);
        let mut cx = Cx::new(&mut core, 0);
        for vp in pages {
            let f = match st.get_frame(&mut cx, &mut FakePager::default(), g, vp) {
                Some(f) => f,
                None => {
                    write_all(st, block);
                    st.get_frame(&mut cx, &mut FakePager::default(), g, vp)
                        .expect("a frame")
                }
            };
            st.first_touch(g, vp, f);
            write_all(st, block);
            st.check();
        }
    }

    /// LOCK of a resident range as `Model::lock` does it: the checks, then
    /// each page pinned; (page, frame) in page order.
    fn lock(
        st: &mut Storage,
        g: u32,
        first: u32,
        last: u32,
    ) -> Result<Vec<(u32, u32)>, LockRefusal> {
        st.lock_check(g, first, last)?;
        Ok((first..=last)
            .map(|vp| (vp, st.pin(g, vp).expect("resident")))
            .collect())
    }

    /// Guests 1-3 first-touch their pages in turn, 256 at a time, from
    /// `next` (a page number over the three guests), until `done` holds.
    fn fill_until(
        st: &mut Storage,
        next: &mut u32,
        block: &mut u32,
        done: impl Fn(&Storage) -> bool,
    ) {
        while !done(st) {
            assert!(*next < 3 * 8192, "the condition never held");
            let (g, vp) = (1 + *next / 8192, *next % 8192);
            touch(st, g, vp..vp + 256, block);
            *next += 256;
        }
    }

    /// Guest 0's pages 0x10-0x1F pinned survive guests 1-3 taking all of
    /// storage (scans that steal every other page of guest 0); QUERY
    /// FRAMES's count is the pinned pages; UNLOCK makes them stealable;
    /// logoff frees pinned frames.
    fn pinned_pages_survive_the_demand_scan(era_c: bool) {
        let mut st = storage(era_c);
        let mut block = 0;
        touch(&mut st, 0, 0..400, &mut block);
        let map = lock(&mut st, 0, 0x10, 0x1f).unwrap();
        assert_eq!(map.len(), 16);
        assert_eq!(st.pinned(0), 16);
        let used = |st: &Storage| st.frame_use()[0];
        assert_eq!(used(&st).locked_cmd, 16);
        // Locking again changes nothing.
        assert_eq!(lock(&mut st, 0, 0x10, 0x10).unwrap(), vec![map[0]]);
        assert_eq!(used(&st).locked_cmd, 16);
        assert_eq!(st.pinned(0), 16);
        let mut next = 0;
        fill_until(&mut st, &mut next, &mut block, |st| {
            st.space(0).resident <= 16
        });
        assert_eq!(st.space(0).resident, 16, "every unpinned page stolen");
        for &(vp, f) in &map {
            assert!(st.is_pinned(0, vp));
            assert_eq!(tag(st.entry(0, vp).e), T_RES);
            assert_eq!(idx(st.entry(0, vp).e), f, "the same frame");
        }
        assert_eq!(used(&st).locked_cmd, 16);
        // A page not resident: storage does not pin it (the wiring brings
        // it in first).
        assert_eq!(st.pin(0, 0x20), None);
        assert!(!st.is_pinned(0, 0x20));
        assert_eq!(st.pinned(0), 16);
        assert_eq!(lock(&mut st, 0, 0, 8192), Err(LockRefusal::Range(8192)));
        // More pages than the frames not pinned: refused before anything.
        let room = st.dpa() - 16;
        assert_eq!(
            st.lock_check(0, 0, room + 16),
            Err(LockRefusal::TooMany {
                need: room + 1,
                room
            })
        );
        assert_eq!(st.lock_check(0, 0, room + 15), Ok(()));
        // UNLOCK: only pinned pages; then stealable again.
        assert_eq!(
            st.unlock_pages(0, 0x18, 0x20),
            Err(LockRefusal::NotLocked(0x20))
        );
        assert_eq!(st.pinned(0), 16, "nothing unlocked");
        assert_eq!(st.unlock_pages(0, 0x18, 0x1f), Ok(8));
        assert_eq!(used(&st).locked_cmd, 8);
        fill_until(&mut st, &mut next, &mut block, |st| {
            st.space(0).resident <= 8
        });
        assert_eq!(st.space(0).resident, 8, "the unlocked pages were stolen");
        assert_eq!(st.pinned(0), 8);
        // Logoff: the pinned frames are freed with the rest.
        let avail = st.avail_len();
        st.logoff(0);
        for vp in 0..8192 {
            st.discard(&mut FakePager::default(), 0, vp);
        }
        assert_eq!(st.space(0).resident, 0);
        assert_eq!(st.avail_len(), avail + 8);
        assert_eq!(used(&st).locked_cmd, 0);
        assert_eq!(st.pinned(0), 0);
        st.check();
    }

    #[test]
    fn pinned_pages_survive_the_era_a_demand_scan() {
        pinned_pages_survive_the_demand_scan(false);
    }

    #[test]
    fn pinned_pages_survive_the_era_c_aging_list() {
        pinned_pages_survive_the_demand_scan(true);
    }

    /// A page reclaimed during its page-out (its frame locked for the
    /// write) and then pinned stays pinned when the write completes; a page
    /// being paged out cannot be locked.
    #[test]
    fn io_completion_does_not_unpin() {
        let mut st = storage(false);
        let mut block = 0;
        touch(&mut st, 0, 0..3000, &mut block);
        let mut core = Core::new(SEC);
        let mut cx = Cx::new(&mut core, 0);
        // Take frames until a scan chooses page-outs; keep them unwritten.
        let mut vp = 3000;
        while st.pageouts().is_empty() {
            let f = st
                .get_frame(&mut cx, &mut FakePager::default(), 0, vp)
                .unwrap();
            st.first_touch(0, vp, f);
            vp += 1;
        }
        let outs: Vec<(u32, u32)> = st
            .pageouts()
            .batches()
            .flat_map(|(g, v)| v.iter().map(move |&vp| (g, vp)))
            .collect();
        st.clear_pageouts();
        let (g, p) = outs[0];
        assert_eq!(tag(st.entry(g, p).e), T_PAGEOUT);
        assert!(st.paging_out(g, p));
        assert_eq!(st.pin(g, p), None);
        st.reclaim(g, p);
        let f = lock(&mut st, g, p, p).unwrap()[0].1;
        assert_eq!(
            st.flags[f as usize] & F_KEEP,
            F_KEEP,
            "locked for I/O and pinned"
        );
        st.pageouts_done(outs.len() as u32);
        for &(g, vp) in &outs {
            st.written_out(g, vp, block);
            block += 1;
        }
        assert_eq!(
            st.flags[f as usize] & F_KEEP,
            F_PIN,
            "the write unlocked, still pinned"
        );
        assert!(st.is_pinned(g, p));
        st.check();
    }
}
