//! A Linux guest's read-only database queries (`linux_db`, a wiring method
//! of [`Model`]): each query is the guest's CPU and page reads of the
//! database, from one of two places:
//!
//! * **a minidisk** (shared by the guests that name the volume): Linux's
//!   page cache first (`model/linux/mem.rs`, a hit costs nothing more); a
//!   miss takes a frame (Linux may reclaim), CP must have that frame
//!   resident, and the block is read by CP's virtual I/O: from the minidisk
//!   cache when it holds it (synchronous, CP's copy), else a real SSCH (the
//!   cache stages the track when it is on). The virtual CPU waits: Linux's
//!   I/O wait;
//! * **a DCSS mounted `-o xip`** (dcssblk): the page is read in place, in the
//!   segment's shared copy (`Linux::xip`, a system-owned address space in
//!   storage, one frame per page for every guest). A page never touched is
//!   on spool only: its first touch takes a frame and reads it from the
//!   segment's spool file (the virtual CPU waits for that read); a page CP
//!   stole comes back as any page of a shared space does. No page-cache copy
//!   is made in the guest.
//!
//! Not modelled: a second guest touching a page whose spool read is in
//! flight does not wait for it (the frame is the page's from the read's
//! start); Linux readahead on the minidisk (one page per read).

use super::params::Workload;
use super::{jittered, us_f, WorkState};
use crate::core::units::Ns;
use crate::model::cpu::{Burst, Outcome};
use crate::model::io::{Kind, Origin, Request};
use crate::model::mdc::Lookup;
use crate::model::storage::{tag, T_NONE};
use crate::model::{Cx, Model};

/// Where a session's database is.
#[derive(Clone, Copy, Debug)]
pub enum Place {
    /// The minidisk's volume and its blocks per minidisk-cache unit.
    Minidisk { vol: u32, unit: u32 },
    /// The XIP segment (index in `Linux::xip`).
    Xip(usize),
}

/// One session (a virtual CPU's).
#[derive(Clone, Debug)]
pub struct DbState {
    pub place: Place,
    /// Reads left in the current query (0: none running).
    pub left: u32,
    /// The page being read, if its read did not complete in the last burst.
    pub page: Option<u64>,
    /// Its minidisk read is due (the frame is Linux's already).
    pub io_due: bool,
    /// Queries completed.
    pub queries: u64,
    /// Heap writes left after the last read, and the heap page whose CP
    /// reference is to be retried.
    pub heap_left: u32,
    pub heap_page: Option<u32>,
}

impl Model {
    /// One burst of session `v` (guest `g`).
    pub(super) fn db_burst(
        &mut self,
        cx: &mut Cx,
        v: u32,
        g: u32,
        w: &Workload,
        budget: Ns,
        b: &mut Burst,
    ) {
        let Workload::LinuxDb {
            database,
            reads_per_query,
            cpu_per_query_us,
            hot_fraction,
            hot_share,
            think,
            heap,
            heap_touches,
            ..
        } = w
        else {
            unreachable!()
        };
        let heap_pages = heap.pages();
        let vi = v as usize;
        let k = (v - self.work.guests[g as usize].first_vcpu) as usize;
        let now = cx.now();
        if let Some(x) = self.linux.guest_mut(g) {
            x.rt.wait_ends(k, now);
        }
        self.linux_targets(g);
        let pages = database.pages();
        let per_read = us_f(*cpu_per_query_us) / *reads_per_query as u64;
        let (fault_ns, io_ns, scan_ns) = {
            let p = &self.linux.guest(g).expect("a Linux guest").p;
            (
                (p.fault_us * 1e3) as Ns,
                (p.swap_io_us * 1e3) as Ns,
                p.scan_ns,
            )
        };
        loop {
            if b.virt + cx.charge.cp + cx.charge.sys + per_read > budget {
                b.outcome = Outcome::Slice;
                return;
            }
            // Linux's swap writes its reclaim queued (a guest with swap).
            if !self.linux_swap_writes(cx, g, v, b) || !self.linux_swap_read(cx, g, v, k, b) {
                return;
            }
            // The application's heap writes that follow a read.
            let wv = &mut self.work.vcpus[vi];
            let WorkState::Db(s) = &mut wv.work else {
                unreachable!()
            };
            if s.heap_left > 0 {
                let hp = *s
                    .heap_page
                    .get_or_insert_with(|| (wv.rng.next_u64() % heap_pages) as u32);
                let x = self.linux.guest_mut(g).expect("a Linux guest");
                let mem = x.mem_mut();
                let f = match mem.frame_of(hp) {
                    Some(f) => {
                        mem.reference(f);
                        f
                    }
                    None => {
                        // A fault: Linux gives the page a frame (reclaiming,
                        // maybe swapping out), reading it back if swapped.
                        let e = mem.touch_anon(hp);
                        let kernel = fault_ns + (e.scanned as f64 * scan_ns) as Ns;
                        b.virt += kernel;
                        super::linux::add_sys(&mut x.rt.sys, k, kernel);
                        if e.oom {
                            x.rt.oom += 1;
                            s.heap_page = None;
                            s.heap_left -= 1;
                        } else if let Some(r) = e.read {
                            if x.rt.reads.len() <= k {
                                x.rt.reads.resize(k + 1, None);
                            }
                            x.rt.reads[k] = Some(r);
                        }
                        continue;
                    }
                };
                if self.cp_page(cx, g, f, true, v, b).is_none() {
                    return;
                }
                self.work.refs += 1;
                let WorkState::Db(s) = &mut self.work.vcpus[vi].work else {
                    unreachable!()
                };
                s.heap_page = None;
                s.heap_left -= 1;
                continue;
            }
            if s.left == 0 && s.page.is_none() {
                s.left = *reads_per_query;
            }
            let place = s.place;
            let p = match s.page {
                Some(p) => p,
                None => {
                    // The query's CPU, spread over its reads.
                    b.virt += per_read;
                    let rng = &mut self.work.vcpus[vi].rng;
                    let hot = ((pages as f64 * hot_fraction) as u64).max(1);
                    let p = if rng.f64() < *hot_share {
                        rng.next_u64() % hot
                    } else {
                        rng.next_u64() % pages
                    };
                    let WorkState::Db(s) = &mut self.work.vcpus[vi].work else {
                        unreachable!()
                    };
                    s.page = Some(p);
                    p
                }
            };
            let done = match place {
                Place::Xip(i) => self.xip_read(cx, v, i, p as u32, b),
                Place::Minidisk { vol, unit } => {
                    self.md_read(cx, g, v, k, vol, unit, p, (fault_ns, io_ns, scan_ns), b)
                }
            };
            let WorkState::Db(s) = &mut self.work.vcpus[vi].work else {
                unreachable!()
            };
            match done {
                // The read is complete or on its way (the CPU waits for it).
                Some(waits) => {
                    s.page = None;
                    s.io_due = false;
                    s.left -= 1;
                    s.heap_left = *heap_touches;
                    if s.left == 0 {
                        s.queries += 1;
                        if think.0 > 0 && !waits {
                            b.outcome =
                                Outcome::Think(jittered(think.0, &mut self.work.vcpus[vi].rng));
                            return;
                        }
                    }
                    if waits {
                        return;
                    }
                }
                // CP must bring a frame or page in first: the burst ends.
                None => return,
            }
        }
    }

    /// Read page `p` of XIP segment `i` in place. `Some(waits)`: the read is
    /// done (`waits`: the CPU waits for the page's spool read); `None`: the
    /// burst ends on CP's side (the read is retried).
    #[allow(clippy::too_many_arguments)]
    fn xip_read(&mut self, cx: &mut Cx, v: u32, i: usize, p: u32, b: &mut Burst) -> Option<bool> {
        let space = self.linux.xip[i].space;
        if tag(self.st.entry(space, p).e) == T_NONE {
            // On spool only: the first touch loads it.
            let Some(f) = self.get_frame(cx, space, p) else {
                b.outcome = Outcome::FrameWait;
                return None;
            };
            self.st.first_touch(space, p, f);
            cx.charge.cp += self.work.costs.first_touch + self.spool_io_ns + self.spool_page_ns;
            self.linux.xip[i].loads += 1;
            let vol = self.spool.read_volume(p);
            b.io = Some(self.io.alloc_req(
                cx,
                vol,
                Request::read(1, Kind::Spool),
                Origin::Minidisk { vcpu: v },
            ));
            // A CP page fault: invisible to Linux (no I/O wait of its own).
            b.outcome = Outcome::PageWait;
            return Some(true);
        }
        self.cp_page(cx, space, p, false, v, b).map(|_| false)
    }

    /// Read page `p` of the database on minidisk volume `vol` through the
    /// page cache. As [`Model::xip_read`].
    #[allow(clippy::too_many_arguments)]
    fn md_read(
        &mut self,
        cx: &mut Cx,
        g: u32,
        v: u32,
        k: usize,
        vol: u32,
        unit: u32,
        p: u64,
        (fault_ns, io_ns, scan_ns): (Ns, Ns, f64),
        b: &mut Burst,
    ) -> Option<bool> {
        let vi = v as usize;
        let x = self.linux.guest_mut(g).expect("a Linux guest");
        let io_due = matches!(&self.work.vcpus[vi].work, WorkState::Db(s) if s.io_due);
        let f = match x.mem().cached(p as u32) {
            Some(f) if !io_due => {
                x.mem_mut().reference(f);
                // A page-cache hit: CP's side of the reference only.
                return self.cp_page(cx, g, f, false, v, b).map(|_| false);
            }
            Some(f) => f,
            None => {
                let e = x.mem_mut().read_file(p as u32, false);
                let kernel = fault_ns + (e.scanned as f64 * scan_ns) as Ns;
                b.virt += kernel;
                super::linux::add_sys(&mut x.rt.sys, k, kernel);
                let Some(f) = x.mem().cached(p as u32) else {
                    // Nothing to reclaim: the read does not happen.
                    x.rt.oom += 1;
                    return Some(false);
                };
                if let WorkState::Db(s) = &mut self.work.vcpus[vi].work {
                    s.io_due = true;
                }
                f
            }
        };
        // The read fills the frame: CP must have it.
        self.cp_page(cx, g, f, true, v, b)?;
        let x = self.linux.guest_mut(g).expect("a Linux guest");
        b.virt += io_ns;
        super::linux::add_sys(&mut x.rt.sys, k, io_ns);
        cx.charge.cp += self.work.costs.virtual_io + self.io.cp_extra(vol, Kind::Minidisk, 1);
        self.cpu.count_virtual_io(v);
        let wait_at = cx.now() + b.virt + cx.charge.cp + cx.charge.sys;
        match self.mdc.read(cx.now(), vol, g, unit, p, 1) {
            Lookup::Hit { cp } => {
                cx.charge.cp += cp;
                Some(false)
            }
            Lookup::Miss {
                first,
                units,
                insert: true,
            } => {
                b.io = Some(self.mdc_stage_read(cx, vol, first, units, unit, g, v));
                b.outcome = Outcome::IoWait;
                let x = self.linux.guest_mut(g).expect("a Linux guest");
                x.rt.wait_begins(k, wait_at);
                Some(true)
            }
            Lookup::Miss { .. } | Lookup::Bypass => {
                let rq = Request::read(1, Kind::Minidisk);
                b.io = Some(self.io.alloc_req(cx, vol, rq, Origin::Minidisk { vcpu: v }));
                b.outcome = Outcome::IoWait;
                let x = self.linux.guest_mut(g).expect("a Linux guest");
                x.rt.wait_begins(k, wait_at);
                Some(true)
            }
        }
    }
}
