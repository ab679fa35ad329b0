//! The auxiliary storage manager's write placement (zvm-model.md topic 11,
//! model rule): where a group of pages being paged out goes.
//!
//! Targets are storage-class memory (SCM, when PAGESCM allows any) and the
//! local page data sets. Each has slots and an exponentially smoothed
//! response time per I/O, updated from every completed transfer with a time
//! constant (`zos.asm.smoothing`). The rules, in order:
//!
//! 1. PLPA (at IPL) goes to both SCM and the best page data set.
//! 2. VIO goes to page data sets only (SCM does not survive an IPL).
//! 3. A 1 MB large page goes whole to SCM when it has room for it and the
//!    better response; otherwise the caller breaks it into 4 KB pages.
//! 4. Other pages go to SCM while it has room and a better smoothed response
//!    than the best page data set; otherwise to the page data set with the
//!    best response among those with room that are not overloaded (fewer
//!    than `overload_queue` I/Os queued or running); if all are overloaded,
//!    the one with the shortest queue; with no room on any data set, to SCM
//!    if it has room (flash full -> disk, disk full -> flash).
//! 5. No room anywhere: auxiliary storage is exhausted (the caller stops).

use crate::core::units::Ns;

/// What is being written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Data {
    Normal,
    Vio,
    /// A whole 1 MB large page (256 slots).
    Large,
    Plpa,
}

/// Where it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Scm,
    Ds(u16),
    /// PLPA: SCM and this data set.
    Both(u16),
    /// A large page that cannot go whole to SCM: break it up.
    Split,
    /// No room anywhere.
    Full,
}

#[derive(Clone, Copy, Debug)]
struct Slots {
    total: u64,
    used: u64,
    /// Smoothed response per I/O, ns.
    resp: f64,
    last: Ns,
}

impl Slots {
    fn room(&self, n: u64) -> bool {
        self.used + n <= self.total
    }
    fn observe(&mut self, now: Ns, resp: Ns, tau: f64) {
        let dt = now.saturating_sub(self.last) as f64;
        let w = 1.0 - (-dt / tau).exp();
        // A first sample, or one long after the last, counts almost fully.
        self.resp += (resp as f64 - self.resp) * w.max(0.02);
        self.last = now;
    }
}

pub struct Asm {
    scm: Slots,
    ds: Vec<Slots>,
    tau: f64,
    overload: u32,
}

impl Asm {
    /// `scm_slots` 0 when the partition has no SCM (or PAGESCM=NONE);
    /// initial smoothed responses are the targets' unloaded service times.
    pub fn new(
        scm_slots: u64,
        scm_resp: Ns,
        ds_slots: &[u64],
        ds_resp: Ns,
        tau: Ns,
        overload: u32,
    ) -> Asm {
        let s = |total: u64, resp: Ns| Slots {
            total,
            used: 0,
            resp: resp as f64,
            last: 0,
        };
        Asm {
            scm: s(scm_slots, scm_resp),
            ds: ds_slots.iter().map(|&t| s(t, ds_resp)).collect(),
            tau: tau as f64,
            overload,
        }
    }

    pub fn has_scm(&self) -> bool {
        self.scm.total > 0
    }

    /// The best page data set with room for `n` slots: the lowest smoothed
    /// response among the not overloaded, else the shortest queue.
    fn best_ds(&self, n: u64, queue: &dyn Fn(u16) -> u32) -> Option<u16> {
        let mut best: Option<(u16, f64)> = None;
        for (i, d) in self.ds.iter().enumerate() {
            if d.room(n) && queue(i as u16) < self.overload && best.is_none_or(|(_, r)| d.resp < r)
            {
                best = Some((i as u16, d.resp));
            }
        }
        if let Some((i, _)) = best {
            return Some(i);
        }
        let mut least: Option<(u16, u32)> = None;
        for (i, d) in self.ds.iter().enumerate() {
            let q = queue(i as u16);
            if d.room(n) && least.is_none_or(|(_, l)| q < l) {
                least = Some((i as u16, q));
            }
        }
        least.map(|(i, _)| i)
    }

    fn best_ds_resp(&self, n: u64) -> Option<f64> {
        self.ds
            .iter()
            .filter(|d| d.room(n))
            .map(|d| d.resp)
            .reduce(f64::min)
    }

    /// Where `n` pages of `data` go; `queue(ds)` is a data set's I/Os queued
    /// or running. Reserves the slots (PLPA: on both).
    pub fn place(&mut self, data: Data, n: u64, queue: &dyn Fn(u16) -> u32) -> Target {
        let scm_better =
            |a: &Asm, n: u64| a.scm.room(n) && a.best_ds_resp(n).is_none_or(|r| a.scm.resp < r);
        let t = match data {
            Data::Plpa => match self.best_ds(n, queue) {
                Some(d) if self.scm.room(n) => Target::Both(d),
                Some(d) => Target::Ds(d),
                None => Target::Full,
            },
            Data::Vio => self.best_ds(n, queue).map_or(Target::Full, Target::Ds),
            Data::Large => {
                if scm_better(self, 256) {
                    Target::Scm
                } else {
                    Target::Split
                }
            }
            Data::Normal => {
                if scm_better(self, n) {
                    Target::Scm
                } else if let Some(d) = self.best_ds(n, queue) {
                    Target::Ds(d)
                } else if self.scm.room(n) {
                    Target::Scm
                } else {
                    Target::Full
                }
            }
        };
        let n = if data == Data::Large { 256 } else { n };
        match t {
            Target::Scm => self.scm.used += n,
            Target::Ds(d) => self.ds[d as usize].used += n,
            Target::Both(d) => {
                self.scm.used += n;
                self.ds[d as usize].used += n;
            }
            Target::Split | Target::Full => {}
        }
        t
    }

    /// Slots given back when pages leave a target.
    pub fn free_scm(&mut self, n: u64) {
        debug_assert!(self.scm.used >= n);
        self.scm.used -= n;
    }
    pub fn free_ds(&mut self, d: u16, n: u64) {
        let s = &mut self.ds[d as usize];
        debug_assert!(s.used >= n);
        s.used -= n;
    }

    /// A transfer to or from SCM / a data set completed after `resp`.
    pub fn observe_scm(&mut self, now: Ns, resp: Ns) {
        let tau = self.tau;
        self.scm.observe(now, resp, tau);
    }
    pub fn observe_ds(&mut self, d: u16, now: Ns, resp: Ns) {
        let tau = self.tau;
        self.ds[d as usize].observe(now, resp, tau);
    }

    pub fn scm_used(&self) -> u64 {
        self.scm.used
    }
    pub fn scm_total(&self) -> u64 {
        self.scm.total
    }
    pub fn ds_used(&self, d: u16) -> u64 {
        self.ds[d as usize].used
    }
    pub fn ds_count(&self) -> usize {
        self.ds.len()
    }
    pub fn scm_resp(&self) -> f64 {
        self.scm.resp
    }
    pub fn ds_resp(&self, d: u16) -> f64 {
        self.ds[d as usize].resp
    }
}
