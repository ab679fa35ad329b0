//! A Linux guest's thrasher (a wiring method of [`Model`]): its processes'
//! pages go through Linux's memory model (`model/linux/mem.rs`), which puts
//! them in frames of the guest's storage; CP sees the frames. Linux's
//! reclaim and major faults become I/O on the twin's paths:
//!
//! * **VDISK**: CP's copy between the frame and the VDISK's address space
//!   (each VDISK page resident first, as the VDISK workload's I/O), its CP
//!   time and serialisation the `vdisk` component's;
//! * **DASD**: a real SSCH on the volume the swap minidisk is on (`io`,
//!   `Origin::Minidisk`), the virtual CPU waiting for it;
//! * **DCSS** (dcssblk): a copy by the guest's own CPU, no I/O.
//!
//! Before a swap write reads a frame, CP must have it resident: a frame CP
//! paged out is paged in first (to XSTOR synchronously, from DASD while the
//! virtual CPU waits), counted as the user's page fault and as double
//! paging. The guest waits for its swap writes (direct reclaim writing a
//! batch, up to `swap_cluster` pages per request) and for each major fault's
//! read (one page: no swap readahead). Linux's own CPU (reclaim scans,
//! faults, the swap driver, dcssblk's copies) is the guest's virtual CPU
//! time and its APPLDATA system time.

use super::params::Pattern;
use super::thrash::{next_page, ThrashSpec};
use super::{jittered, WorkState};
use crate::core::rng::Rng;
use crate::core::units::Ns;
use crate::model::cpu::{Burst, Outcome};
use crate::model::io::{Kind, Origin, Request};
use crate::model::linux::params::SwapKind;
use crate::model::linux::Target;
use crate::model::storage::{
    idx, tag, P_CHG, P_REF, T_DASD, T_NONE, T_PAGEOUT, T_READIN, T_RES, T_XS,
};
use crate::model::{Cx, Model};

/// How a page became resident for a reference.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Got {
    /// It was resident (or never written and only read).
    Was,
    /// CP brought it back from XSTOR.
    Xstor,
}

impl Model {
    /// One burst of virtual CPU `v` of a Linux guest running a thrasher.
    pub(super) fn linux_thrash(
        &mut self,
        cx: &mut Cx,
        v: u32,
        s: &ThrashSpec,
        budget: Ns,
        b: &mut Burst,
    ) {
        let vi = v as usize;
        let g = self.work.vcpus[vi].guest;
        let k = (v - self.work.guests[g as usize].first_vcpu) as usize;
        self.linux_targets(g);
        let WorkState::Thrasher {
            mut pos,
            mut touches,
            mut prefill_left,
            mut fill,
        } = self.work.vcpus[vi].work.clone()
        else {
            unreachable!()
        };
        fill.due(s, cx.now());
        let mut rng = std::mem::replace(&mut self.work.vcpus[vi].rng, Rng::PLACEHOLDER);
        let mut cur = match self.work.vcpus[vi].pending_page.take() {
            Some(p) => p,
            None => match fill.take_unused(s, |_| true) {
                Some(p) => p,
                None => next_page(s, &mut pos, &mut rng, prefill_left > 0),
            },
        };
        let (scan_ns, fault_ns) = {
            let p = &self.linux.guest(g).expect("a Linux guest").p;
            (p.scan_ns, (p.fault_us * 1e3) as Ns)
        };
        // The page at `cur` was just given a frame.
        let mut fresh = false;
        loop {
            if b.virt + cx.charge.cp + cx.charge.sys + s.cpu > budget {
                b.outcome = Outcome::Slice;
                break;
            }
            // Swap writes due first, then this CPU's major-fault read.
            if !self.linux_swap_writes(cx, g, v, b) || !self.linux_swap_read(cx, g, v, k, b) {
                break;
            }
            let write = s.write || prefill_left > 0 || cur >= s.pages;
            let x = self.linux.guest_mut(g).expect("a Linux guest");
            let mem = x.mem_mut();
            let frame = if cur < s.pages {
                match mem.frame_of(cur as u32) {
                    Some(f) => {
                        mem.reference(f);
                        Some(f)
                    }
                    None => None,
                }
            } else {
                let q = (cur - s.pages) as u32;
                mem.write_file(q);
                mem.cached(q)
            };
            let Some(f) = frame else {
                // A fault: Linux gives the page a frame (reclaiming, maybe
                // swapping out), reading it back if it was swapped.
                let e = mem.touch_anon(cur as u32);
                let kernel = fault_ns + (e.scanned as f64 * scan_ns) as Ns;
                b.virt += kernel;
                add_sys(&mut x.rt.sys, k, kernel);
                if e.oom {
                    // Nothing to reclaim: the touch does not happen.
                    x.rt.oom += 1;
                    cur = next_page(s, &mut pos, &mut rng, prefill_left > 0);
                    continue;
                }
                if let Some(r) = e.read {
                    if x.rt.reads.len() <= k {
                        x.rt.reads.resize(k + 1, None);
                    }
                    x.rt.reads[k] = Some(r);
                }
                fresh = true;
                continue;
            };
            // CP's side of the reference: the frame is the guest's page (a
            // frame Linux just gave the page is written: cleared or read in).
            if self.cp_page(cx, g, f, write || fresh, v, b).is_none() {
                break;
            }
            fresh = false;
            b.virt += s.cpu;
            self.work.refs += 1;
            let area = cur < s.pages;
            touches += area as u64;
            prefill_left = prefill_left.saturating_sub(1);
            let wrapped = s.pattern == Pattern::Serial && prefill_left == 0 && cur + 1 == s.pages;
            cur = match fill.take_unused(s, |_| true) {
                Some(p) => p,
                None => next_page(s, &mut pos, &mut rng, prefill_left > 0),
            };
            let done = area && s.burst_touches > 0 && touches % s.burst_touches == 0;
            if s.think > 0 && (done || (wrapped && s.burst_touches == 0)) {
                b.outcome = Outcome::Think(jittered(s.think, &mut rng));
                break;
            }
        }
        if s.cp_overhead > 0.0 {
            cx.charge.cp += (b.virt as f64 * s.cp_overhead) as Ns;
        }
        self.thrash_save(vi, pos, touches, prefill_left, fill, rng, cur, b);
    }

    /// Guest `g`'s swap devices' targets, once.
    pub(super) fn linux_targets(&mut self, g: u32) {
        let member = self.work.guests[g as usize].member;
        let vdisk = &self.vdisk;
        self.linux.swapon(g, |v| vdisk.find(g, v).is_some());
        let x = self.linux.guest_mut(g).expect("a Linux guest");
        if !x.rt.targets.is_empty() || x.mem().swaps().is_empty() {
            return;
        }
        let targets = x
            .mem()
            .swaps()
            .iter()
            .map(|sw| {
                let d = &x.p.swap[sw.tag];
                match d.device {
                    SwapKind::Vdisk => Target::Vdisk(
                        crate::model::io::params::parse_devno(d.vdev.as_deref().unwrap_or(""))
                            .expect("validated"),
                    ),
                    SwapKind::Dasd => {
                        let (dev, spread) =
                            super::params::split_device(d.volume.as_deref().unwrap_or(""));
                        let mut dev =
                            crate::model::io::params::parse_devno(dev).expect("validated");
                        if spread {
                            dev += member as u16;
                        }
                        Target::Dasd(self.io.by_devno(dev).expect("validated"))
                    }
                    SwapKind::Dcss => Target::Dcss,
                }
            })
            .collect();
        self.linux.guest_mut(g).expect("a Linux guest").rt.targets = targets;
    }

    /// Do guest `g`'s swap writes due, on virtual CPU `v`: each frame
    /// resident in CP first (double paging), then the write, a batch of
    /// pages of one device at a time. `false`: the burst ends (`b` says on
    /// what it waits).
    pub(super) fn linux_swap_writes(&mut self, cx: &mut Cx, g: u32, v: u32, b: &mut Burst) -> bool {
        loop {
            let x = self.linux.guest_mut(g).expect("a Linux guest");
            let cluster = x.p.swap_cluster;
            let next = x.mem().out.front().copied();
            let batch = x.rt.batch;
            // Write the batch when it is full or the next page is another
            // device's (or there is none).
            if let Some((d, n)) = batch {
                if n >= cluster || next.is_none_or(|o| o.dev != d) {
                    x.rt.batch = None;
                    if !self.linux_swap_io(cx, g, v, d, n, true, b) {
                        return false;
                    }
                    continue;
                }
            }
            let Some(o) = next else {
                return true;
            };
            // The swap write reads the frame: CP must have it.
            let before = self.st.entry(g, o.frame).e;
            if matches!(tag(before), T_XS | T_DASD) {
                self.linux
                    .guest_mut(g)
                    .expect("a Linux guest")
                    .rt
                    .double_paging += 1;
            }
            if self.cp_page(cx, g, o.frame, false, v, b).is_none() {
                return false;
            }
            // A VDISK's page the slot is in is written: resident first.
            let target = self.linux.guest(g).expect("a Linux guest").rt.targets[o.dev as usize];
            if let Target::Vdisk(vdev) = target {
                if let Some(kd) = self.vdisk.find(g, vdev) {
                    let space = self.vdisk.disk(kd).space;
                    if tag(self.st.entry(space, o.slot).e) == T_DASD {
                        self.vdisk.count_fault(kd);
                    }
                    if self.cp_page(cx, space, o.slot, true, v, b).is_none() {
                        return false;
                    }
                }
            }
            let x = self.linux.guest_mut(g).expect("a Linux guest");
            x.mem_mut().out.pop_front();
            x.rt.batch = Some((o.dev, x.rt.batch.map_or(0, |(_, n)| n) + 1));
        }
    }

    /// Virtual CPU `v`'s major-fault read, if one is due (its `k`-th CPU
    /// in guest `g`). `false`: the burst ends. Called at every step of a
    /// Linux burst: the check stays inline, the read out of line.
    #[inline]
    pub(super) fn linux_swap_read(
        &mut self,
        cx: &mut Cx,
        g: u32,
        v: u32,
        k: usize,
        b: &mut Burst,
    ) -> bool {
        let x = self.linux.guest_mut(g).expect("a Linux guest");
        match x.rt.reads.get(k).copied().flatten() {
            None => true,
            Some((d, slot)) => self.linux_swap_read_due(cx, g, v, k, (d, slot), b),
        }
    }

    /// [`Self::linux_swap_read`]'s read of `slot` from swap device `d`.
    #[inline(never)]
    fn linux_swap_read_due(
        &mut self,
        cx: &mut Cx,
        g: u32,
        v: u32,
        k: usize,
        (d, slot): (u16, u32),
        b: &mut Burst,
    ) -> bool {
        let x = self.linux.guest_mut(g).expect("a Linux guest");
        if let Target::Vdisk(vdev) = x.rt.targets[d as usize] {
            if let Some(kd) = self.vdisk.find(g, vdev) {
                let space = self.vdisk.disk(kd).space;
                if matches!(tag(self.st.entry(space, slot).e), T_DASD) {
                    self.vdisk.count_fault(kd);
                }
                if self.cp_page(cx, space, slot, false, v, b).is_none() {
                    return false;
                }
            }
        }
        self.linux.guest_mut(g).expect("a Linux guest").rt.reads[k] = None;
        self.linux_swap_io(cx, g, v, d, 1, false, b)
    }

    /// A swap I/O of `n` pages to or from device `d` (priority order) of
    /// guest `g`, by virtual CPU `v`. `false`: the CPU waits for it.
    #[allow(clippy::too_many_arguments)]
    fn linux_swap_io(
        &mut self,
        cx: &mut Cx,
        g: u32,
        v: u32,
        d: u16,
        n: u32,
        write: bool,
        b: &mut Burst,
    ) -> bool {
        let first = self.work.guests[g as usize].first_vcpu;
        let k = (v - first) as usize;
        let x = self.linux.guest_mut(g).expect("a Linux guest");
        x.rt.swap_ios[write as usize] += 1;
        let (io_ns, dcss_ns) = ((x.p.swap_io_us * 1e3) as Ns, x.p.dcss_page_us * 1e3);
        match x.rt.targets[d as usize] {
            Target::Dcss => {
                let t = (dcss_ns * n as f64) as Ns;
                add_sys(&mut x.rt.sys, k, t);
                b.virt += t;
                true
            }
            Target::Vdisk(vdev) => {
                add_sys(&mut x.rt.sys, k, io_ns);
                b.virt += io_ns;
                let Some(kd) = self.vdisk.find(g, vdev) else {
                    return true;
                };
                let t = cx.now() + b.virt + cx.charge.cp + cx.charge.sys;
                // The I/O is synchronous: the spin on the serialisation and
                // CP's work (the hold in it) delay the guest (its burst) and
                // are charged to it.
                cx.charge.cp += self.vdisk.io_cp(kd, t, n);
                self.vdisk.count_io(kd, n, write, 0);
                self.cpu.count_virtual_io(v);
                true
            }
            Target::Dasd(vol) => {
                add_sys(&mut x.rt.sys, k, io_ns);
                b.virt += io_ns;
                let rq = if write {
                    Request::write(n, Kind::Minidisk)
                } else {
                    Request::read(n, Kind::Minidisk)
                };
                cx.charge.cp +=
                    self.work.costs.virtual_io + self.io.cp_extra(vol, Kind::Minidisk, n);
                self.cpu.count_virtual_io(v);
                b.io = Some(self.io.alloc_req(cx, vol, rq, Origin::Minidisk { vcpu: v }));
                b.outcome = Outcome::IoWait;
                false
            }
        }
    }

    /// Make page `vp` of address space `space` resident for a reference by
    /// virtual CPU `v` (`write`: a change), as CP does: a first touch takes
    /// a frame (a read of a never-written page needs none), XSTOR comes back
    /// synchronously, a page being paged out is reclaimed; a page on DASD or
    /// being read ends the burst (`None`, `b` waiting for it). The VDISK
    /// workload's I/O and a Linux guest's references use it.
    pub(super) fn cp_page(
        &mut self,
        cx: &mut Cx,
        space: u32,
        vp: u32,
        write: bool,
        v: u32,
        b: &mut Burst,
    ) -> Option<Got> {
        let e = self.st.entry(space, vp).e;
        match tag(e) {
            T_RES => {
                if write && e & P_CHG == 0 {
                    self.first_change(space, vp);
                }
                let e = &mut self.st.table_mut(space)[vp as usize].e;
                *e |= P_REF | if write { P_CHG } else { 0 };
                Some(Got::Was)
            }
            T_NONE if !write => Some(Got::Was),
            T_NONE => {
                let Some(f) = self.get_frame(cx, space, vp) else {
                    b.outcome = Outcome::FrameWait;
                    return None;
                };
                self.st.first_touch(space, vp, f);
                cx.charge.cp += self.work.costs.first_touch;
                Some(Got::Was)
            }
            T_XS => {
                let Some(f) = self.get_frame(cx, space, vp) else {
                    b.outcome = Outcome::FrameWait;
                    return None;
                };
                self.st.xstor_in(cx, space, vp, f);
                cx.charge.sys += self.work.costs.xmove;
                self.st.count_fault(space);
                Some(Got::Xstor)
            }
            T_DASD => {
                self.st.count_fault(space);
                b.outcome = match self.start_block_read(cx, space, vp, v) {
                    Some(io) => {
                        b.io = io;
                        Outcome::PageWait
                    }
                    None => Outcome::FrameWait,
                };
                None
            }
            T_READIN => {
                self.st.count_fault(space);
                self.pg.join_read(idx(e), v);
                cx.charge.cp += self.work.costs.fault;
                b.outcome = Outcome::PageWait;
                None
            }
            T_PAGEOUT => {
                self.st.reclaim(space, vp);
                cx.charge.cp += self.work.costs.fault;
                Some(Got::Was)
            }
            _ => unreachable!("bad page state"),
        }
    }
}

/// Add `t` to virtual CPU `k`'s Linux system time.
pub(super) fn add_sys(sys: &mut Vec<Ns>, k: usize, t: Ns) {
    if sys.len() <= k {
        sys.resize(k + 1, 0);
    }
    sys[k] += t;
}
