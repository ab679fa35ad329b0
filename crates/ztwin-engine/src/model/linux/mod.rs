//! The Linux component: Linux inside the guests that run it (opt in with a
//! `[[guest]]`'s `linux` table).
//!
//! **Owns** per Linux guest its memory model ([`mem::Mem`]: frames as kernel,
//! free, page cache or anonymous, swap devices by priority, kswapd and direct
//! reclaim, faults), its load averages and the appldata modules' sync counts.
//!
//! **Interface**: a Linux guest's thrasher runs through Linux
//! (`model/workload/linux.rs`, a wiring method of the model): each page the
//! processes touch is Linux's anonymous page (or a page-cache page of the
//! fill), in a frame of the guest's storage that Linux gives it
//! ([`mem::Mem`]); CP sees the frames. Linux's reclaim swaps pages out to its
//! swap devices and a major fault reads one back, through the twin's paths:
//! a VDISK by CP's DIAG copy (`vdisk`), a DASD minidisk by a real SSCH
//! (`io`), a DCSS by dcssblk's copy (the guest's CPU only). A frame Linux
//! swaps out that CP has paged out is paged in by CP first (double paging).
//! [`Linux::advance`] at each monitor sample keeps the load averages;
//! [`Linux::sample`] gives the figures the appldata modules report.
//! A guest without a `linux` table is not touched: runs without one are
//! byte-identical.
//!
//! **Parameters**: [`params`].

pub mod mem;
pub mod params;

use crate::core::units::Ns;
use mem::{Counters, Mem, Usage};

/// Where a swap device's I/O goes (resolved at the guest's first burst).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The guest's VDISK `vdev` (looked up at each I/O: CP may not have it).
    Vdisk(u16),
    /// The `io` volume its minidisk is on.
    Dasd(u32),
    Dcss,
}

/// The engine's side of one Linux guest's swapping.
#[derive(Clone, Debug, Default)]
pub struct Runtime {
    /// Each swap device's target, in priority order (empty until resolved).
    pub targets: Vec<Target>,
    /// Per virtual CPU (from the guest's first): the slot its major fault
    /// has still to read (device in priority order, slot).
    pub reads: Vec<Option<(u16, u32)>>,
    /// The swap write being gathered: device, pages.
    pub batch: Option<(u16, u32)>,
    /// Frames CP paged in for Linux to write them to swap (double paging).
    pub double_paging: u64,
    /// Swap I/O requests (reads, writes).
    pub swap_ios: [u64; 2],
    /// Linux's own CPU per virtual CPU, ns (APPLDATA_OS system time).
    pub sys: Vec<Ns>,
    /// Allocations that found nothing to reclaim (the OOM case).
    pub oom: u64,
    /// Per virtual CPU: time waiting for a block I/O (APPLDATA_OS iowait),
    /// and when its current wait began.
    pub iowait: Vec<Ns>,
    pub wait_since: Vec<Option<Ns>>,
}

impl Runtime {
    /// Virtual CPU `k` starts waiting for a block I/O at `t`.
    pub fn wait_begins(&mut self, k: usize, t: Ns) {
        if self.wait_since.len() <= k {
            self.wait_since.resize(k + 1, None);
        }
        self.wait_since[k] = Some(t);
    }

    /// Virtual CPU `k` runs again at `t`: a wait it was in is over.
    pub fn wait_ends(&mut self, k: usize, t: Ns) {
        if let Some(s) = self.wait_since.get_mut(k).and_then(Option::take) {
            if self.iowait.len() <= k {
                self.iowait.resize(k + 1, 0);
            }
            self.iowait[k] += t.saturating_sub(s);
        }
    }
}

/// Page size, bytes.
const PAGE: u64 = 4096;

/// Storage a Linux guest may have: the model keeps about 22 bytes per page.
pub const MAX_STORAGE: u64 = 16 << 30;

/// One Linux guest.
pub struct Guest {
    pub p: params::Params,
    /// Its storage and swap devices' sizes, bytes (for a new IPL).
    storage: u64,
    /// Pages of the files its page cache may hold (at least its storage).
    files: usize,
    swap_bytes: Vec<u64>,
    /// Its appldata buffers at its last logoff.
    ended: Option<Sample>,
    mem: Mem,
    /// Load averages (1, 5, 15 minutes), runnable threads.
    avenrun: [f64; 3],
    last: Ns,
    nr_running: u32,
    nr_iowait: u32,
    sync: u32,
    /// The swap devices were checked against the guest's devices (at its
    /// first sample).
    swapon: bool,
    pub rt: Runtime,
}

impl crate::model::Model {
    /// Feed every Linux guest's memory model what its workload asked of it
    /// by `now` (the monitor calls this before a sample).
    pub(crate) fn linux_advance(&mut self, now: Ns) {
        for g in 0..self.cpu.guest_count() {
            if self.linux.guest(g).is_none() || !self.cpu.guest(g).logged_on {
                continue;
            }
            let vdisk = &self.vdisk;
            self.linux.swapon(g, |v| vdisk.find(g, v).is_some());
            // Runnable: dispatched or waiting for CP (a CP page fault is
            // invisible to Linux); waiting for a swap I/O: Linux's D state.
            let (mut running, mut iowait) = (0, 0);
            for v in self.cpu.vcpus_of(g) {
                use crate::model::cpu::VState;
                match self.cpu.vstate(v) {
                    VState::Ready | VState::Running | VState::Eligible | VState::PageWait => {
                        running += 1
                    }
                    VState::IoWait => iowait += 1,
                    _ => {}
                }
            }
            self.linux.advance(g, now, running, iowait);
        }
    }
}

impl Guest {
    pub fn mem(&self) -> &Mem {
        &self.mem
    }

    pub fn mem_mut(&mut self) -> &mut Mem {
        &mut self.mem
    }

    /// Linux just IPLed in `storage` bytes with swap devices of `swap` bytes.
    fn boot(p: params::Params, storage: u64, swap: Vec<u64>, files: usize) -> Guest {
        let total = (storage / PAGE) as usize;
        let kernel = (p.kernel.0 / PAGE) as usize;
        let swaps: Vec<(i32, usize)> = p
            .swap
            .iter()
            .zip(&swap)
            .map(|(s, &b)| (s.priority, (b / PAGE) as usize))
            .collect();
        // Processes' pages: what fits in storage and swap.
        let anon = total + swaps.iter().map(|s| s.1).sum::<usize>();
        Guest {
            mem: Mem::new(total, kernel, anon, total.max(files), &swaps),
            p,
            storage,
            files,
            swap_bytes: swap,
            ended: None,
            avenrun: [0.0; 3],
            last: 0,
            nr_running: 0,
            nr_iowait: 0,
            sync: 0,
            swapon: false,
            rt: Runtime::default(),
        }
    }
}

/// What the appldata modules report of one guest.
#[derive(Clone, Debug)]
pub struct Sample {
    /// Linux's own CPU (memory management, swap) per virtual CPU, ns.
    pub sys: Vec<Ns>,
    /// Time waiting for block I/O per virtual CPU, ns.
    pub iowait: Vec<Ns>,
    pub usage: Usage,
    pub c: Counters,
    /// Load averages in the kernel's fixed point (11 fraction bits, with
    /// the kernel's rounding term FIXED_1/200).
    pub avenrun: [u32; 3],
    pub nr_running: u32,
    pub nr_iowait: u32,
    pub sync: u32,
    pub interfaces: u32,
}

/// A Linux guest's definition: its `linux` table, storage and swap device
/// sizes in bytes, and the pages of the files its workload reads.
pub type GuestDef = (params::Params, u64, Vec<u64>, usize);

#[derive(Default)]
pub struct Linux {
    guests: Vec<Option<Guest>>,
    /// Saved segments mounted `-o xip` (by name): the system-owned address
    /// space in storage that holds each one's shared copy, and its spool file.
    pub xip: Vec<Xip>,
}

/// A DCSS mounted with `-o xip` by Linux guests: its pages are the shared
/// copy in a system-owned address space (one frame per page however many
/// guests map it), each loaded from the segment's spool file by its first
/// touch; only the pages used are ever loaded.
#[derive(Clone, Debug)]
pub struct Xip {
    pub name: String,
    pub space: u32,
    /// Spool reads of pages loaded by a first touch.
    pub loads: u64,
}

impl Linux {
    /// Per guest (in guest order) its `linux` table, storage and swap device
    /// sizes in bytes (checked by the scenario), and the pages of the files
    /// its workload reads (a database on a minidisk).
    pub fn new(defs: Vec<Option<GuestDef>>) -> Linux {
        Linux::default().new_guests(defs)
    }

    /// No guests yet; the XIP segments' spaces `xip`.
    pub fn with_xip(xip: Vec<Xip>) -> Linux {
        Linux {
            guests: Vec::new(),
            xip,
        }
    }

    /// These guests (as [`Linux::new`]).
    pub fn new_guests(mut self, defs: Vec<Option<GuestDef>>) -> Linux {
        self.guests = defs
            .into_iter()
            .map(|d| d.map(|(p, storage, swap, files)| Guest::boot(p, storage, swap, files)))
            .collect();
        self
    }

    /// Guest `g` logs on: Linux is IPLed afresh (empty memory, counters 0).
    pub fn logon(&mut self, g: u32) {
        if let Some(x) = self.guests.get_mut(g as usize).and_then(Option::as_mut) {
            let ended = x.ended.take();
            let p = x.p.clone();
            *x = Guest::boot(p, x.storage, std::mem::take(&mut x.swap_bytes), x.files);
            x.ended = ended;
        }
    }

    /// Guest `g` logs off: its appldata buffers as they were last filled,
    /// for the MRAPLEDT records CP writes when it gives them up.
    pub fn logoff(&mut self, g: u32) {
        let s = self.sample(g);
        if let Some(x) = self.guests.get_mut(g as usize).and_then(Option::as_mut) {
            x.ended = s.filter(|_| x.p.appldata && x.sync > 0);
        }
    }

    /// The buffers guest `g` had when it last logged off (appldata on).
    pub fn ended(&self, g: u32) -> Option<Sample> {
        self.guest(g).and_then(|x| x.ended.clone())
    }

    /// Whether any guest runs Linux.
    pub fn any(&self) -> bool {
        self.guests.iter().any(Option::is_some)
    }

    pub fn guest(&self, g: u32) -> Option<&Guest> {
        self.guests.get(g as usize).and_then(Option::as_ref)
    }

    #[inline]
    pub fn guest_mut(&mut self, g: u32) -> Option<&mut Guest> {
        self.guests.get_mut(g as usize).and_then(Option::as_mut)
    }

    /// The XIP segment `name`'s index.
    pub fn xip_of(&self, name: &str) -> Option<usize> {
        self.xip
            .iter()
            .position(|x| x.name.eq_ignore_ascii_case(name))
    }

    /// Whether guest `g` runs Linux.
    #[inline]
    pub fn runs(&self, g: u32) -> bool {
        matches!(self.guests.get(g as usize), Some(Some(_)))
    }

    /// Guest `g`'s `swapon`, once: a VDISK swap device the guest does not
    /// have (CP refused to define it: SYSLIM) takes no pages, as `swapon`
    /// fails on a missing device. `has_vdisk(vdev)` says whether it exists.
    pub fn swapon(&mut self, g: u32, has_vdisk: impl Fn(u16) -> bool) {
        let Some(x) = self.guests.get_mut(g as usize).and_then(Option::as_mut) else {
            return;
        };
        if std::mem::replace(&mut x.swapon, true) {
            return;
        }
        for (i, s) in x.p.swap.iter().enumerate() {
            let vdev = s
                .vdev
                .as_deref()
                .and_then(|v| crate::model::io::params::parse_devno(v).ok());
            if let (params::SwapKind::Vdisk, Some(v)) = (s.device, vdev) {
                if !has_vdisk(v) {
                    x.mem.disable_swap(i);
                }
            }
        }
    }

    /// Guest `g` at `now`, `running` virtual CPUs runnable and `iowait`
    /// waiting for swap I/O: the load averages (which count both, as
    /// Linux's do) and the appldata modules' sync count.
    pub fn advance(&mut self, g: u32, now: Ns, running: u32, iowait: u32) {
        let Some(x) = self.guests.get_mut(g as usize).and_then(Option::as_mut) else {
            return;
        };
        // Load averages: the kernel's exponential decay, applied over the
        // time since the last sample with the runnable count seen now.
        let dt = now.saturating_sub(x.last) as f64 / 1e9;
        for (a, period) in x.avenrun.iter_mut().zip([60.0, 300.0, 900.0]) {
            let k = (-dt / period).exp();
            *a = *a * k + (running + iowait) as f64 * (1.0 - k);
        }
        x.last = now;
        x.nr_running = running;
        x.nr_iowait = iowait;
        x.sync = x.sync.wrapping_add(1);
    }

    /// What guest `g`'s appldata modules report.
    pub fn sample(&self, g: u32) -> Option<Sample> {
        let x = self.guest(g)?;
        Some(Sample {
            sys: x.rt.sys.clone(),
            iowait: x.rt.iowait.clone(),
            usage: x.mem.usage(),
            c: x.mem.c,
            avenrun: x.avenrun.map(|a| (a * 2048.0) as u32 + 2048 / 200),
            nr_running: x.nr_running,
            nr_iowait: x.nr_iowait,
            sync: x.sync,
            interfaces: x.p.interfaces,
        })
    }
}

#[cfg(test)]
mod tests;
