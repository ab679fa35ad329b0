//! The Linux component: Linux inside the guests that run it (opt in with a
//! `[[guest]]`'s `linux` table).
//!
//! **Owns** per Linux guest its memory model ([`mem::Mem`]: frames as kernel,
//! free, page cache or anonymous, swap devices by priority, kswapd and direct
//! reclaim, faults), its load averages and the appldata modules' sync counts.
//!
//! **Interface**: [`Linux::advance`] at each monitor sample feeds the memory
//! model what the guest's processes asked of it since the last one (the
//! workload component's `memory_demand`: anonymous pages of the thrasher's
//! area touched, page-cache pages its fill wrote) and its runnable virtual
//! CPUs; [`Linux::sample`] gives the figures the appldata modules report.
//!
//! **Not wired yet** (issue 14): the model's swap-outs and swap-ins are
//! counted but issue no I/O and touch no CP page (no double paging, no swap
//! device contention); the guest's real page references stay the workload's.
//! A guest without a `linux` table is not touched: runs without one are
//! byte-identical.
//!
//! **Parameters**: [`params`].

pub mod mem;
pub mod params;

use crate::core::units::Ns;
use mem::{Counters, Mem, Usage};

/// Page size, bytes.
const PAGE: u64 = 4096;

/// Storage a Linux guest may have: the model keeps about 22 bytes per page.
pub const MAX_STORAGE: u64 = 16 << 30;

/// One Linux guest.
pub struct Guest {
    pub p: params::Params,
    /// Its storage and swap devices' sizes, bytes (for a new IPL).
    storage: u64,
    swap_bytes: Vec<u64>,
    /// Its appldata buffers at its last logoff.
    ended: Option<Sample>,
    mem: Mem,
    /// Demand already fed: anonymous pages, cache pages, touches seen.
    fed_anon: u64,
    fed_cache: u64,
    /// References seen, and where the re-touch of each region stands.
    seen_refs: u64,
    cursor: [u64; 3],
    /// Load averages (1, 5, 15 minutes), runnable threads.
    avenrun: [f64; 3],
    last: Ns,
    nr_running: u32,
    sync: u32,
    /// The swap devices were checked against the guest's devices (at its
    /// first sample).
    swapon: bool,
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
            let d = self.work.memory_demand(g);
            let running = self
                .cpu
                .vcpus_of(g)
                .filter(|&v| {
                    matches!(
                        self.cpu.vstate(v),
                        crate::model::cpu::VState::Ready
                            | crate::model::cpu::VState::Running
                            | crate::model::cpu::VState::Eligible
                    )
                })
                .count() as u32;
            self.linux.advance(g, now, &d, running);
        }
    }
}

impl Guest {
    /// Linux just IPLed in `storage` bytes with swap devices of `swap` bytes.
    fn boot(p: params::Params, storage: u64, swap: Vec<u64>) -> Guest {
        let total = (storage / PAGE) as usize;
        let kernel = (p.kernel.0 / PAGE) as usize;
        let swaps: Vec<(i32, usize)> = p
            .swap
            .iter()
            .zip(&swap)
            .map(|(s, &b)| (s.priority, (b / PAGE) as usize))
            .collect();
        Guest {
            mem: Mem::new(total, kernel, total, total, &swaps),
            p,
            storage,
            swap_bytes: swap,
            ended: None,
            fed_anon: 0,
            fed_cache: 0,
            seen_refs: 0,
            cursor: [0; 3],
            avenrun: [0.0; 3],
            last: 0,
            nr_running: 0,
            sync: 0,
            swapon: false,
        }
    }
}

/// What the appldata modules report of one guest.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub usage: Usage,
    pub c: Counters,
    /// Load averages in the kernel's fixed point (11 fraction bits, with
    /// the kernel's rounding term FIXED_1/200).
    pub avenrun: [u32; 3],
    pub nr_running: u32,
    pub sync: u32,
    pub interfaces: u32,
}

#[derive(Default)]
pub struct Linux {
    guests: Vec<Option<Guest>>,
}

impl Linux {
    /// Per guest (in guest order) its `linux` table, storage and swap device
    /// sizes in bytes (checked by the scenario).
    pub fn new(defs: Vec<Option<(params::Params, u64, Vec<u64>)>>) -> Linux {
        let guests = defs
            .into_iter()
            .map(|d| d.map(|(p, storage, swap)| Guest::boot(p, storage, swap)))
            .collect();
        Linux { guests }
    }

    /// Guest `g` logs on: Linux is IPLed afresh (empty memory, counters 0).
    pub fn logon(&mut self, g: u32) {
        if let Some(x) = self.guests.get_mut(g as usize).and_then(Option::as_mut) {
            let ended = x.ended.take();
            let p = x.p.clone();
            *x = Guest::boot(p, x.storage, std::mem::take(&mut x.swap_bytes));
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
        self.guest(g).and_then(|x| x.ended)
    }

    /// Whether any guest runs Linux.
    pub fn any(&self) -> bool {
        self.guests.iter().any(Option::is_some)
    }

    pub fn guest(&self, g: u32) -> Option<&Guest> {
        self.guests.get(g as usize).and_then(Option::as_ref)
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

    /// Guest `g` at `now`: what its processes asked of memory so far
    /// (cumulative, from the workload: [`MemoryDemand`]); `running` virtual
    /// CPUs are runnable.
    ///
    /// The pages in use are referenced again, region by region: the
    /// distinct pages the references since the last sample reached (a
    /// region's share of them; drawn at random, `n` references reach
    /// `len × (1 − e^(−n/len))` pages; in address order, at most the region
    /// once), walked from where the last sample stopped; a page reused within
    /// an interval counts once. Then the new anonymous and cache pages are
    /// touched.
    pub fn advance(
        &mut self,
        g: u32,
        now: Ns,
        d: &crate::model::workload::MemoryDemand,
        running: u32,
    ) {
        let Some(x) = self.guests.get_mut(g as usize).and_then(Option::as_mut) else {
            return;
        };
        let total = x.mem.total();
        let anon = d.anon.min(total);
        let cache = d.cache.min(total);
        let n = d.refs.saturating_sub(x.seen_refs);
        x.seen_refs = x.seen_refs.max(d.refs);
        for (r, &(start, len, share)) in d.regions.iter().enumerate() {
            // Only pages already given to the processes are reused.
            let len = len.min(x.fed_anon.saturating_sub(start));
            if len == 0 || share <= 0.0 {
                continue;
            }
            let refs = n as f64 * share;
            let pages = if d.random {
                (len as f64 * (1.0 - (-refs / len as f64).exp())).round() as u64
            } else {
                (refs as u64).min(len)
            };
            for i in 0..pages {
                let p = start + (x.cursor[r] + i) % len;
                x.mem.touch_anon(p as u32);
            }
            x.cursor[r] = (x.cursor[r] + pages) % len;
        }
        while x.fed_anon < anon {
            x.mem.touch_anon(x.fed_anon as u32);
            x.fed_anon += 1;
        }
        while x.fed_cache < cache {
            x.mem.write_file(x.fed_cache as u32);
            x.fed_cache += 1;
        }
        // Load averages: the kernel's exponential decay, applied over the
        // time since the last sample with the runnable count seen now.
        let dt = now.saturating_sub(x.last) as f64 / 1e9;
        for (a, period) in x.avenrun.iter_mut().zip([60.0, 300.0, 900.0]) {
            let k = (-dt / period).exp();
            *a = *a * k + running as f64 * (1.0 - k);
        }
        x.last = now;
        x.nr_running = running;
        x.sync = x.sync.wrapping_add(1);
    }

    /// What guest `g`'s appldata modules report.
    pub fn sample(&self, g: u32) -> Option<Sample> {
        let x = self.guest(g)?;
        Some(Sample {
            usage: x.mem.usage(),
            c: x.mem.c,
            avenrun: x.avenrun.map(|a| (a * 2048.0) as u32 + 2048 / 200),
            nr_running: x.nr_running,
            sync: x.sync,
            interfaces: x.p.interfaces,
        })
    }
}

#[cfg(test)]
mod tests;
