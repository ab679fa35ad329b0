//! The Era A demand scan and XSTOR migration (methods of [`Storage`]).

use super::lock::F_KEEP;
use super::{
    idx, list_entry, pte, tag, Cat, ListEntry, PageEntry, Pager, Pass, Storage, F_AGE, F_LOCK,
    NO_BLOCK, P_CHG, P_REF, STEAL_QUANTUM, T_DASD, T_NONE, T_PAGEOUT, T_RES, T_XS,
};
use crate::model::{prefetch, Cx};

/// Looks in a row that must find a frame unreferenced before pass 1 takes
/// it (\[E\]; spec topic 1.3: CP's steal approximates "not referenced for a
/// while", the frame list being reordered by reference state).
pub const AGE_PASS1: u8 = 2;

/// A dormant user is long-term dormant after this many storage ticks (10 s,
/// \[E\]): the demand scan takes its frames before any short-term dormant
/// user's (spec topic 1.3).
pub const LONG_DORMANT_TICKS: u32 = 5;

/// How far ahead in a user's frame list the demand scan prefetches.
const STEAL_AHEAD: usize = 4;

impl Storage {
    /// Era A demand scan: replenish the available list to the high threshold,
    /// visiting in each pass long-term dormant users, then short-term dormant
    /// ones, then the shared spaces, then eligible, then dispatch-list users
    /// (spec topic 1.3: the order that hurts least; IBM's text as quoted by
    /// Broadcom's CA MICS "Detail VMX Demand Scan Summary"). Each
    /// pass walks every user's frame list at most once (a frame is looked at
    /// once per pass; users are visited in turn, a quantum per visit, until
    /// their walks end or the target is reached). Pass 1 takes a shared
    /// space's unreferenced frames ([`Storage::steal_unreferenced_shared`])
    /// and users' frames found unreferenced at [`AGE_PASS1`] looks in a row
    /// (any unreferenced frame of a long-term dormant user: it has no
    /// working set), respecting a dispatch-list user's working set; pass 2
    /// takes frames not referenced since the last scan (a frame pass 1 found
    /// referenced in this scan is not taken: its look was microseconds ago)
    /// and passes shared address spaces over; the emergency pass takes anything not locked. So when
    /// every frame left was referenced since the last scan, passes 1 and 2
    /// fall short and the emergency pass runs (the S4 case study: referenced
    /// VDISK pages "tend to stick and be ejectable by only emergency scan").
    /// A saved segment's read-only copy (a spool-backed space,
    /// [`Storage::set_spool_backed`]) is the exception: pass 1 walks its list
    /// as a user's, clearing reference bits and taking frames unreferenced at
    /// [`AGE_PASS1`] looks in a row (the D3 chapter: under pressure an XIP
    /// DCSS's pages go to XSTOR while the guests run, about 10 MB of 400
    /// staying resident; that they stuck like S4's VDISK pages kept them all).
    /// Changed pages that find no free XSTOR block are left in the page-out
    /// buffer; they count toward the scan's target (their frames join the
    /// list when the writes complete), so a scan does not go on stealing from
    /// the next users while its page-outs are on their way.
    #[inline(never)]
    pub(super) fn demand_scan(&mut self, cx: &mut Cx, pager: &mut impl Pager) {
        let target = (self.high as usize).saturating_sub(self.pageout_frames as usize);
        if self.avail_len() >= target {
            return;
        }
        // A scan only frees frames: those never taken stay as many, so it
        // counts the freed list against the target less them.
        let target = target - (self.total - self.fresh) as usize;
        self.c.scans += 1;
        self.scan_po0 = self.pageout_frames;
        for sp in &mut self.spaces {
            sp.seen = 0;
        }
        for pass in [Pass::First, Pass::Second, Pass::Emergency] {
            if pass == Pass::Emergency {
                self.c.emergency_scans += 1;
            }
            // Each pass walks each frame list once.
            for sp in &mut self.spaces {
                sp.walk = sp.ufo.len() as u32;
            }
            for (cat, long) in [
                (Cat::Dormant, true),
                (Cat::Dormant, false),
                (Cat::Shared, false),
                (Cat::Eligible, false),
                (Cat::Dispatch, false),
            ] {
                // Pass 2 avoids shared address spaces.
                if cat == Cat::Shared && (pass == Pass::Second || !self.has_shared) {
                    continue;
                }
                // Visit the category's users in turn, taking at most a quantum
                // from each per visit, so no single user bears the whole scan,
                // until every walk of the pass has ended.
                let n = self.spaces.len() as u32;
                loop {
                    let mut more = false;
                    for k in 0..n {
                        if self.scan_got() >= target {
                            break;
                        }
                        let g = (self.scan_cursor + k) % n;
                        let sp = &self.spaces[g as usize];
                        if sp.cat != cat || sp.resident == 0 || sp.walk == 0 {
                            continue;
                        }
                        // Long-term dormant users first, then short-term ones.
                        if cat == Cat::Dormant && (sp.dormant_ticks >= LONG_DORMANT_TICKS) != long {
                            continue;
                        }
                        more |= self.steal_from(cx, pager, g, pass, cat, target);
                    }
                    if !more || self.scan_got() >= target {
                        break;
                    }
                }
            }
            self.scan_cursor = (self.scan_cursor + 1) % (self.spaces.len() as u32).max(1);
            if self.scan_got() >= target {
                break;
            }
        }
    }

    /// Frames the running scan has freed or sent out (page-outs count: their
    /// frames join the list when the write completes).
    #[inline]
    fn scan_got(&self) -> usize {
        self.avail.len() + (self.pageout_frames - self.scan_po0) as usize
    }

    /// One visit of the running pass to user `g`: go on with its walk until
    /// a quantum is taken (a shared space gives what it can), the target is
    /// reached or the walk ends. Returns whether its walk goes on.
    fn steal_from(
        &mut self,
        cx: &mut Cx,
        pager: &mut impl Pager,
        g: u32,
        pass: Pass,
        cat: Cat,
        target: usize,
    ) -> bool {
        let gi = g as usize;
        // A saved segment's read-only copy (spool-backed) is walked as a
        // user's list below; other shared spaces (VDISKs) get one look.
        if cat == Cat::Shared && pass == Pass::First && !self.spaces[gi].spool {
            // One look at the space's list: its unreferenced frames.
            self.steal_unreferenced_shared(cx, pager, g, target);
            self.spaces[gi].walk = 0;
            return false;
        }
        let long = cat == Cat::Dormant && self.spaces[gi].dormant_ticks >= LONG_DORMANT_TICKS;
        let protect = if pass == Pass::First && cat == Cat::Dispatch {
            self.spaces[gi].protect as u32
        } else {
            0
        };
        let need = if pass == Pass::First && !long {
            AGE_PASS1
        } else {
            1
        };
        let mut taken = 0u32;
        // Users give at most a quantum per visit, so no one bears the whole
        // scan; a shared space gives what it can.
        let quantum = if cat == Cat::Shared {
            u32::MAX
        } else {
            STEAL_QUANTUM
        };
        let more = loop {
            if self.scan_got() >= target || taken >= quantum {
                break self.spaces[gi].walk > 0;
            }
            let sp = &mut self.spaces[gi];
            if sp.walk == 0 || sp.resident <= protect {
                sp.walk = 0;
                break false;
            }
            // The entries examined a few turns from now: start their misses.
            if let Some(&(fa, vpa)) = sp.ufo.get(STEAL_AHEAD) {
                prefetch(&sp.pt, vpa as usize);
                prefetch(&self.frames, fa as usize);
            }
            // The entries at the back were looked at earlier in this scan.
            let seen = sp.ufo.len() as u32 <= sp.seen;
            let Some((f, vp)) = sp.ufo.pop_front() else {
                sp.walk = 0;
                break false;
            };
            sp.walk -= 1;
            sp.seen -= u32::from(seen);
            let fi = f as usize;
            let e = sp.pt[vp as usize].e;
            match list_entry(e, f, &self.frames, g, vp) {
                ListEntry::Resident => {}
                ListEntry::ReadIn => {
                    // Being read in: keep it for later.
                    sp.ufo.push_back((f, vp));
                    sp.seen += 1;
                    continue;
                }
                ListEntry::Stale => continue,
            }
            self.c.examined += 1;
            cx.charge.sys += self.costs.steal_frame;
            // The reference bit first: it is in the entry already loaded. A
            // look that finds it on clears it and the frame's age; one that
            // finds it off ages the frame by one look (up to 3), unless an
            // earlier pass of this scan looked at it (no time has passed
            // since). Pass 1 takes frames unreferenced at AGE_PASS1 looks in
            // a row (a long-term dormant user's at one), pass 2 at one, the
            // emergency pass anything not locked.
            if pass != Pass::Emergency {
                if e & P_REF != 0 {
                    sp.pt[vp as usize].e = e & !P_REF;
                    self.flags[fi] &= !F_AGE;
                    sp.ufo.push_back((f, vp));
                    sp.seen += 1;
                    continue;
                }
                let mut age = self.flags[fi] & F_AGE;
                if !seen {
                    age += u8::from(age < F_AGE);
                    self.flags[fi] = (self.flags[fi] & !F_AGE) | age;
                }
                if age < need || self.flags[fi] & F_KEEP != 0 {
                    sp.ufo.push_back((f, vp));
                    sp.seen += 1;
                    continue;
                }
            } else if self.flags[fi] & F_KEEP != 0 {
                sp.pt[vp as usize].e = e & !P_REF;
                sp.ufo.push_back((f, vp));
                sp.seen += 1;
                continue;
            }
            self.steal_frame(cx, pager, g, vp, f);
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
                Cat::Shared => {
                    self.c.shared_by_pass[p] += 1;
                    self.by_cpu[cx.cpu as usize].shared_by_pass[p] += 1;
                    continue;
                }
            };
            self.c.by_pass[p][c] += 1;
            self.by_cpu[cx.cpu as usize].by_pass[p][c] += 1;
        };
        self.pageouts.end_visit(g);
        more
    }

    /// Pass 1 over a system-owned shared address space (a VDISK's): take its
    /// frames whose reference bit is off, and leave the referenced ones as
    /// they are, bit and all. The case study (S4, "Finding a Memory Frame"):
    /// pass 1 takes "unreferenced shared address space pages", "referenced
    /// VDISK pages are avoided in Pass 1", pass 2 "avoids shared address
    /// spaces", so "they will tend to stick and be ejectable by only
    /// emergency scan". What resets a frame's reference bit in Era A is the
    /// scan's visit of a user's frame list and the reorder of that list
    /// (spec topic 1.3); a system-owned space is no user, so nothing but the
    /// emergency pass (which takes the frame) ends a shared frame's
    /// referenced state \[K, inferred from the case study and topic 1.3\]
    /// (a saved segment's spool-backed copy excepted: [`Self::demand_scan`]).
    /// The only shared frames with the bit off are then those that came in
    /// unreferenced (a block read's companions, `Space::unref`): they are
    /// examined first, and when they do not reach the target the pass is
    /// charged a look at every other resident frame of the space (CP walks
    /// the list; the outcome is known without the walk).
    fn steal_unreferenced_shared(
        &mut self,
        cx: &mut Cx,
        pager: &mut impl Pager,
        g: u32,
        target: usize,
    ) {
        let gi = g as usize;
        for _ in 0..self.spaces[gi].unref.len() {
            if self.scan_got() >= target {
                break;
            }
            let Some((f, vp)) = self.spaces[gi].unref.pop_front() else {
                break;
            };
            let e = self.spaces[gi].pt[vp as usize].e;
            // Gone since (stolen, discarded) or referenced: no longer a candidate.
            if tag(e) != T_RES || idx(e) != f || e & P_REF != 0 {
                continue;
            }
            self.c.examined += 1;
            cx.charge.sys += self.costs.steal_frame;
            if self.flags[f as usize] & F_KEEP != 0 {
                self.spaces[gi].unref.push_back((f, vp));
                continue;
            }
            self.steal_frame(cx, pager, g, vp, f);
            self.c.shared_by_pass[0] += 1;
            self.by_cpu[cx.cpu as usize].shared_by_pass[0] += 1;
        }
        // Short of the target, CP's pass went over the whole list: every
        // resident frame it left (referenced) was looked at, and that costs
        // CP time as any look does (without changing anything: no walk is
        // needed to know the outcome).
        if self.scan_got() < target {
            let left = self.spaces[gi].resident as u64;
            self.c.examined += left;
            cx.charge.sys += left * self.costs.steal_frame;
        }
    }

    /// Take frame `f` from guest `g`: unchanged pages with a DASD copy are simply
    /// released; others go to XSTOR if it has room, else join a DASD write block.
    fn steal_frame(&mut self, cx: &mut Cx, pager: &mut impl Pager, g: u32, vp: u32, f: u32) {
        let gi = g as usize;
        self.c.steals += 1;
        self.by_cpu[cx.cpu as usize].steals += 1;
        self.by_guest[gi].steals += 1;
        let pe = self.spaces[gi].pt[vp as usize];
        let changed = pe.e & P_CHG != 0;
        let backing = pe.blk;
        if !changed && backing != NO_BLOCK {
            self.spaces[gi].pt[vp as usize].e = pte(T_DASD, 0);
            self.free_frame(f);
            return;
        }
        if backing != NO_BLOCK {
            self.release_slot(pager, g, vp);
        }
        if self.xs.total > 0 && self.xs.has_free() {
            let b = self.xs.take(g, vp, cx.now());
            let sp = &mut self.spaces[gi];
            sp.pt[vp as usize].e = pte(T_XS, b);
            sp.xstor += 1;
            self.by_guest[gi].ms_to_x += 1;
            self.c.xstor_out += 1;
            self.by_cpu[cx.cpu as usize].xs_out += 1;
            cx.charge.sys += self.costs.xmove;
            self.free_frame(f);
            self.maybe_migrate(cx, pager);
            return;
        }
        // XSTOR is full: make room for later steals, and send this page to DASD.
        // Keep the frame (locked) until the write completes.
        if self.xs.total > 0 {
            self.maybe_migrate(cx, pager);
        }
        // A saved segment's read-only page has its copy on spool: dropped,
        // never written to paging DASD (`segments::spool_backed`).
        if self.spaces[gi].spool {
            self.spaces[gi].pt[vp as usize].e = pte(T_NONE, 0);
            self.spool_dropped += 1;
            self.free_frame(f);
            return;
        }
        self.spaces[gi].pt[vp as usize] = PageEntry {
            e: pte(T_PAGEOUT, 0),
            blk: f,
        };
        self.pageout_frames += 1;
        self.flags[f as usize] |= F_LOCK;
        self.pageouts.add(g, vp);
    }

    /// Migrate the oldest XSTOR blocks to DASD when free XSTOR runs below the
    /// low threshold, until free plus in-flight blocks reach twice that.
    pub fn maybe_migrate(&mut self, cx: &mut Cx, pager: &mut impl Pager) {
        if self.xs.free.len() as u32 + self.xs.migrating >= self.xs.low {
            return;
        }
        // Migration runs in the background with a bounded number of pages in
        // flight, `[srm] migrate_writes` blocks per paging volume (default
        // MIGRATE_BLOCKS_PER_VOLUME).
        let cap = self.migrate_writes * self.block_max * pager.volumes();
        let mut items = std::mem::take(&mut self.items);
        while (self.xs.free.len() as u32 + self.xs.migrating) < 2 * self.xs.low
            && self.xs.migrating < cap
        {
            items.clear();
            while items.len() < self.block_max as usize {
                let Some(p) = self.xs.pop_oldest() else {
                    break;
                };
                // A spool-backed page's block is freed, not migrated.
                if self.spaces[p.0 as usize].spool {
                    self.drop_spool_xstor(p.0, p.1);
                    continue;
                }
                items.push(p);
            }
            if items.is_empty() {
                break;
            }
            // A block write may take fewer pages than offered (a short run of
            // free slots): write the rest in further blocks, counting only
            // what is actually in flight.
            let mut rest = &items[..];
            let mut exhausted = false;
            while !rest.is_empty() {
                let n = pager.migrate(cx, rest);
                if n == 0 {
                    exhausted = true; // abend raised
                    break;
                }
                self.xs.migrating += n;
                self.c.migrated += n as u64;
                self.by_cpu[cx.cpu as usize].migrated += n as u64;
                for &(g, _) in &rest[..n as usize] {
                    self.by_guest[g as usize].x_to_ds += 1;
                }
                rest = &rest[n as usize..];
            }
            if exhausted {
                break;
            }
        }
        self.items = items;
    }

    /// Page `vp` of spool-backed space `g`, in XSTOR, is dropped: its block
    /// is free and the page is on spool only.
    fn drop_spool_xstor(&mut self, g: u32, vp: u32) {
        let sp = &mut self.spaces[g as usize];
        let e = sp.pt[vp as usize].e;
        debug_assert_eq!(tag(e), T_XS);
        self.xs.release(idx(e));
        sp.xstor -= 1;
        sp.pt[vp as usize].e = pte(T_NONE, 0);
        self.spool_dropped += 1;
    }
}
