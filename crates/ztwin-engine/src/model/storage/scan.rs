//! The Era A demand scan and XSTOR migration (methods of [`Storage`]).

use super::{
    idx, pte, tag, Cat, Frame, PageEntry, Pager, Pass, Storage, F_LOCK, NO_BLOCK, P_CHG, P_REF,
    STEAL_QUANTUM, T_DASD, T_PAGEOUT, T_READIN, T_RES, T_XS,
};
use crate::model::{prefetch, Cx};

/// How far ahead in a user's frame list the demand scan prefetches.
const STEAL_AHEAD: usize = 4;

impl Storage {
    /// Era A demand scan: replenish the available list to the high threshold,
    /// visiting dormant, then eligible, then dispatch-list users; pass 1 takes
    /// unreferenced frames above a dispatch-list user's working set, pass 2 any
    /// unreferenced frame, the emergency pass anything not locked. Changed
    /// pages that find no room in XSTOR are left in the page-out buffer.
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
        for pass in [Pass::First, Pass::Second, Pass::Emergency] {
            if pass == Pass::Emergency {
                self.c.emergency_scans += 1;
            }
            for cat in [Cat::Dormant, Cat::Eligible, Cat::Dispatch] {
                // Visit the category's users in turn, taking at most a quantum
                // from each per visit, so no single user bears the whole scan.
                let n = self.spaces.len() as u32;
                loop {
                    let before = self.avail.len();
                    for k in 0..n {
                        if self.avail.len() >= target {
                            break;
                        }
                        let g = (self.scan_cursor + k) % n;
                        let sp = &self.spaces[g as usize];
                        if sp.cat != cat || sp.resident == 0 {
                            continue;
                        }
                        self.steal_from(cx, pager, g, pass, cat, target);
                    }
                    if self.avail.len() >= target || self.avail.len() == before {
                        break;
                    }
                }
            }
            self.scan_cursor = (self.scan_cursor + 1) % (self.spaces.len() as u32).max(1);
            if self.avail.len() >= target {
                break;
            }
        }
    }

    fn steal_from(
        &mut self,
        cx: &mut Cx,
        pager: &mut impl Pager,
        g: u32,
        pass: Pass,
        cat: Cat,
        target: usize,
    ) {
        let gi = g as usize;
        let protect = if pass == Pass::First && cat == Cat::Dispatch {
            self.spaces[gi].wss as u32
        } else {
            0
        };
        let n = self.spaces[gi].ufo.len();
        let mut taken = 0u32;
        for _ in 0..n {
            if self.avail.len() >= target
                || self.spaces[gi].resident <= protect
                || taken >= STEAL_QUANTUM
            {
                break;
            }
            let sp = &mut self.spaces[gi];
            // The entries examined a few turns from now: start their misses.
            if let Some(&(fa, vpa)) = sp.ufo.get(STEAL_AHEAD) {
                prefetch(&sp.pt, vpa as usize);
                prefetch(&self.frames, fa as usize);
            }
            let Some((f, vp)) = sp.ufo.pop_front() else {
                break;
            };
            let fi = f as usize;
            // The page table says whether the entry is current (one memory
            // access instead of checking the frame's owner and page).
            let e = sp.pt[vp as usize].e;
            match tag(e) {
                T_RES if idx(e) == f => {}
                T_READIN
                    if self.frames[fi]
                        == (Frame {
                            owner: g,
                            vpage: vp,
                        }) =>
                {
                    // Being read in: keep it for later.
                    sp.ufo.push_back((f, vp));
                    continue;
                }
                _ => continue, // stale entry: the frame was freed or reused since
            }
            self.c.examined += 1;
            cx.charge.sys += self.costs.steal_frame;
            // The reference bit first: it is in the entry already loaded, and
            // it decides most examinations without touching the frame's flags.
            if (pass != Pass::Emergency && e & P_REF != 0) || self.flags[fi] & F_LOCK != 0 {
                sp.pt[vp as usize].e = e & !P_REF;
                sp.ufo.push_back((f, vp));
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
            };
            self.c.by_pass[p][c] += 1;
            self.by_cpu[cx.cpu as usize].by_pass[p][c] += 1;
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
        if self.xs.total > 0 && self.xs.has_room() {
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
}
