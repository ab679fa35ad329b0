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
//! LOCK pins resident pages only: a range with a page not resident (in
//! XSTOR, on DASD, never touched, being read or paged out) is refused whole,
//! nothing pinned (ztwin does not page the pages in first, as CP does).
//! LOCK references each page it pins (its reference bit set): a frame on
//! the Era C aging list is then revalidated at the list's head, back to its
//! owner, and the aging-list fill passes it over while pinned.
//!
//! Never on a hot path: the only cost elsewhere is the wider flag mask of
//! the steal paths' skip conditions.

use super::{idx, tag, Storage, F_LOCK, P_REF, T_RES};

/// Frame flag: pinned by CP's LOCK command (until UNLOCK or logoff).
pub const F_PIN: u8 = 64;
/// The frames a steal path leaves: I/O in flight or pinned.
pub const F_KEEP: u8 = F_LOCK | F_PIN;

/// Why a LOCK or UNLOCK range was refused (nothing changed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockRefusal {
    /// The range is not within the guest's storage (of this many pages).
    Range(u32),
    /// LOCK: this page is not resident.
    NotResident(u32),
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

    /// LOCK: pin guest `g`'s pages `first..=last`, all resident (else
    /// nothing is pinned). Pages pinned already stay pinned. Returns each
    /// page's frame, in page order.
    pub fn lock_pages(
        &mut self,
        g: u32,
        first: u32,
        last: u32,
    ) -> Result<Vec<(u32, u32)>, LockRefusal> {
        self.check_range(g, first, last)?;
        let mut map = Vec::with_capacity((last - first + 1) as usize);
        for vp in first..=last {
            let f = self
                .resident_frame(g, vp)
                .ok_or(LockRefusal::NotResident(vp))?;
            map.push((vp, f));
        }
        let pt = &mut self.spaces[g as usize].pt;
        for &(vp, f) in &map {
            self.flags[f as usize] |= F_PIN;
            pt[vp as usize].e |= P_REF;
        }
        Ok(map)
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
        Ok(last - first + 1)
    }

    /// Whether guest `g`'s page `vp` is pinned.
    pub fn is_pinned(&self, g: u32, vp: u32) -> bool {
        self.resident_frame(g, vp)
            .is_some_and(|f| self.flags[f as usize] & F_PIN != 0)
    }

    /// Guest `g`'s pinned pages (a walk of its page table: for commands and
    /// tests, not a hot path).
    pub fn pinned(&self, g: u32) -> u32 {
        (0..self.spaces[g as usize].pt.len() as u32)
            .filter(|&vp| self.is_pinned(g, vp))
            .count() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::super::era_c::params::Params as AgeParams;
    use super::super::tests::{params, FakePager};
    use super::super::T_PAGEOUT;
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
        let outs: Vec<(u32, u32)> = st
            .pageouts()
            .batches()
            .flat_map(|(g, v)| v.iter().map(move |&vp| (g, vp)))
            .collect();
        st.clear_pageouts();
        let mut written = 0;
        for &(g, vp) in &outs {
            if st.pageout_needed(g, vp) {
                written += 1;
            } else {
                st.drop_pageout(g, vp);
            }
        }
        st.pageouts_done(written);
        for (g, vp) in outs {
            if tag(st.entry(g, vp).e) == T_PAGEOUT {
                st.written_out(g, vp, *block);
                *block += 1;
            }
        }
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
        let map = st.lock_pages(0, 0x10, 0x1f).unwrap();
        assert_eq!(map.len(), 16);
        assert_eq!(st.pinned(0), 16);
        let used = |st: &Storage| st.frame_use()[0];
        assert_eq!(used(&st).locked_cmd, 16);
        // Locking again changes nothing.
        assert_eq!(st.lock_pages(0, 0x10, 0x10).unwrap(), vec![map[0]]);
        assert_eq!(used(&st).locked_cmd, 16);
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
        // A page not resident: LOCK refused, nothing pinned.
        assert_eq!(
            st.lock_pages(0, 0x1f, 0x20),
            Err(LockRefusal::NotResident(0x20))
        );
        assert!(!st.is_pinned(0, 0x20));
        assert_eq!(st.lock_pages(0, 0, 8192), Err(LockRefusal::Range(8192)));
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
        assert_eq!(st.lock_pages(g, p, p), Err(LockRefusal::NotResident(p)));
        st.reclaim(g, p);
        let f = st.lock_pages(g, p, p).unwrap()[0].1;
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
