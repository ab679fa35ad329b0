//! The VDISK component: virtual disks in storage (FBA disks whose blocks live
//! in a CP-owned address space in host storage).
//!
//! **Owns** the VDISKs (owner, virtual device number, size in 512-byte
//! blocks, the number of the system-owned address space that holds its
//! pages in `storage`), the SET VDISK limits (SYSLIM: all VDISKs together;
//! USERLIM: one user's DEFINE), the system's VDISK serialisation (its holds
//! in simulated time, [`lock`]), each VDISK's counters (I/Os, pages read and written,
//! page faults, spin on the serialisation).
//!
//! **Rules modelled**: DEFINE VFB-512 (and a directory V-DISK statement at
//! logon) creates an empty address space: nothing is backed until written,
//! so a large, little-used VDISK costs almost nothing; a write takes a frame
//! for each new page; a read of a never-written page returns zeros without
//! one. The space's pages are the storage manager's like any user's (stolen
//! to XSTOR or paging DASD, faulted back in), except that the Era A demand
//! scan treats the space as shared: pass 1 takes its unreferenced pages
//! first, pass 2 passes it over, only the emergency pass takes its
//! referenced pages (S4's mechanism, `storage/scan.rs`). DEFINE is refused
//! when the VDISK would take the system over SYSLIM or (DEFINE only, not the
//! directory) the user over USERLIM; DETACH (or logoff) destroys the VDISK
//! and its pages. A VDISK I/O costs CP `io_us` plus `page_us` per page
//! (charged to the guest: T/V) and holds the serialisation `lock_us`: one
//! lock for all the system's VDISKs (D2: VDISK swapping "does not scale"
//! past a few guests, each with its own VDISK, "related to lock
//! contention"); an I/O that finds another VDISK's hold spins until it is
//! free (CP time in the guest's I/O path, charged to the guest).
//!
//! **Interface** (zero-time calls; the wiring in `mod.rs` and `cp.rs`
//! creates and destroys the address spaces): [`Vdisks::define`],
//! [`Vdisks::detach`], [`Vdisks::set_syslim`], [`Vdisks::set_userlim`],
//! [`Vdisks::find`], [`Vdisks::io_cp`], [`Vdisks::count_io`]; for the
//! monitor and QUERY VDISK: [`Vdisks::disks`], [`Vdisks::limits`],
//! [`Vdisks::in_use`].
//!
//! **Parameters**: [`params`] (`[vdisk]`, a guest's `vdisk` statements).
//!
//! **Events**: none (its I/O is CP's copy, done in the issuing burst).

mod lock;
pub mod params;
#[cfg(test)]
mod tests;
mod wire;

use crate::core::units::Ns;
use params::Limit;

/// Counters of one VDISK (cumulative).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VdiskCounters {
    /// I/O requests (each a DIAGNOSE or SSCH the guest issued).
    pub ios: u64,
    pub pages_read: u64,
    pub pages_written: u64,
    /// Pages that had to come back from XSTOR or paging DASD first.
    pub faults: u64,
    /// Time its I/Os spun waiting for the serialisation, ns.
    pub spin_ns: u64,
}

/// One virtual disk.
#[derive(Clone, Debug)]
pub struct Vdisk {
    pub owner: u32,
    pub vdev: u16,
    pub blocks: u64,
    /// The storage address space holding its pages.
    pub space: u32,
    pub created: Ns,
    /// Defined in the directory (not counted against USERLIM).
    pub directory: bool,
    /// Not yet detached.
    pub live: bool,
    pub c: VdiskCounters,
}

impl Vdisk {
    /// 4 KB pages of the disk.
    pub fn pages(&self) -> u32 {
        self.blocks.div_ceil(8) as u32
    }

    /// The address space's name as CP's INDICATE SPACES shows a VDISK's
    /// (`VDISK$userid$vdev` style; the exact form is \[E\]).
    pub fn space_name(&self, userid: &str) -> String {
        format!("VDISK${userid}${:04X}", self.vdev)
    }
}

/// Why DEFINE VFB-512 was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The user already has device `vdev`.
    Exists,
    /// The system's VDISKs would exceed SYSLIM.
    Syslim,
    /// The user's VDISKs would exceed USERLIM.
    Userlim,
}

pub struct Vdisks {
    disks: Vec<Vdisk>,
    syslim: Limit,
    userlim: Limit,
    /// CP cost per I/O and per page (ns).
    io_ns: Ns,
    page_ns: Ns,
    /// The system's VDISK serialisation (one lock for all VDISKs), its hold.
    lock: lock::Lock,
    lock_ns: Ns,
    /// Refused DEFINEs (SYSLIM, USERLIM).
    pub refused: [u64; 2],
}

impl Vdisks {
    pub fn new(p: &params::Params, central: u64) -> Vdisks {
        let (syslim, userlim) = p.limits(central);
        Vdisks {
            disks: Vec::new(),
            syslim,
            userlim,
            io_ns: crate::core::us_to_ns(p.io_us),
            page_ns: crate::core::us_to_ns(p.page_us),
            lock: lock::Lock::new(crate::core::us_to_ns(p.lock_us)),
            lock_ns: crate::core::us_to_ns(p.lock_us),
            refused: [0; 2],
        }
    }

    /// Blocks of all live VDISKs (what SYSLIM bounds), and of user `g`'s
    /// DEFINEd ones (what USERLIM bounds).
    pub fn in_use(&self, g: Option<u32>) -> u64 {
        self.disks
            .iter()
            .filter(|d| d.live && g.is_none_or(|g| d.owner == g && !d.directory))
            .map(|d| d.blocks)
            .sum()
    }

    pub fn limits(&self) -> (Limit, Limit) {
        (self.syslim, self.userlim)
    }

    pub fn set_syslim(&mut self, l: Limit) {
        self.syslim = l;
    }

    pub fn set_userlim(&mut self, l: Limit) {
        self.userlim = l;
    }

    /// Can user `g` define device `vdev` of `blocks`? (`directory`: a
    /// directory statement, which USERLIM does not bound.)
    pub fn can_define(
        &self,
        g: u32,
        vdev: u16,
        blocks: u64,
        directory: bool,
    ) -> Result<(), Refusal> {
        if self.find(g, vdev).is_some() {
            return Err(Refusal::Exists);
        }
        if !self.syslim.allows(self.in_use(None) + blocks) {
            return Err(Refusal::Syslim);
        }
        if !directory && !self.userlim.allows(self.in_use(Some(g)) + blocks) {
            return Err(Refusal::Userlim);
        }
        Ok(())
    }

    /// Count a refusal.
    pub fn refuse(&mut self, r: Refusal) {
        match r {
            Refusal::Syslim => self.refused[0] += 1,
            Refusal::Userlim => self.refused[1] += 1,
            Refusal::Exists => {}
        }
    }

    /// Record a VDISK whose pages are in storage space `space` (checked
    /// first with [`Vdisks::can_define`]); returns its index.
    pub fn define(
        &mut self,
        g: u32,
        vdev: u16,
        blocks: u64,
        space: u32,
        now: Ns,
        directory: bool,
    ) -> u32 {
        debug_assert!(self.can_define(g, vdev, blocks, directory).is_ok() || directory);
        self.disks.push(Vdisk {
            owner: g,
            vdev,
            blocks,
            space,
            created: now,
            directory,
            live: true,
            c: VdiskCounters::default(),
        });
        (self.disks.len() - 1) as u32
    }

    /// User `g`'s live VDISK at `vdev`.
    #[inline]
    pub fn find(&self, g: u32, vdev: u16) -> Option<u32> {
        self.disks
            .iter()
            .position(|d| d.live && d.owner == g && d.vdev == vdev)
            .map(|k| k as u32)
    }

    /// DETACH: VDISK `k` is gone; returns its address space (whose pages the
    /// wiring discards).
    pub fn detach(&mut self, k: u32) -> u32 {
        let d = &mut self.disks[k as usize];
        d.live = false;
        d.space
    }

    /// User `g`'s live VDISKs (for logoff).
    pub fn owned_by(&self, g: u32) -> Vec<u32> {
        (0..self.disks.len() as u32)
            .filter(|&k| {
                let d = &self.disks[k as usize];
                d.live && d.owner == g
            })
            .collect()
    }

    pub fn disk(&self, k: u32) -> &Vdisk {
        &self.disks[k as usize]
    }

    /// Every VDISK defined in the run (detached ones too, `live` false).
    pub fn disks(&self) -> &[Vdisk] {
        &self.disks
    }

    pub fn any(&self) -> bool {
        !self.disks.is_empty()
    }

    /// CP time of an I/O moving `pages` pages.
    #[inline]
    pub fn io_cost(&self, pages: u32) -> Ns {
        self.io_ns + self.page_ns * pages as Ns
    }

    /// A virtual CPU's I/O of `pages` pages on VDISK `k`, issued at `t`:
    /// its CP time, charged to the guest (T/V) and ending the I/O, so the
    /// virtual CPU's next instruction (its next I/O) comes after it. The I/O
    /// is synchronous for the issuing virtual CPU (DIAGNOSE X'250', or an
    /// SSCH CP completes before it returns): CP takes the system's one VDISK
    /// serialisation, spinning while another processor holds it, then does
    /// the I/O's work with it held for the first `lock_us` of that work.
    /// The hold is the holder's CPU time (a spin lock is held by a running
    /// processor), so the I/O's CP time is its cost (`io_us` + `page_us` per
    /// page) or the hold, whichever is longer. Holds never overlap, whatever
    /// order the bursts asked in (see [`lock`]); a guest's own earlier hold
    /// ended before its next I/O (its time is past it), so one guest alone
    /// never spins and never holds the lock beyond its own progress.
    #[inline]
    pub fn io_cp(&mut self, k: u32, t: Ns, pages: u32) -> Ns {
        let start = self.lock.take(t);
        let spin = start - t;
        self.disks[k as usize].c.spin_ns += spin;
        spin + self.io_cost(pages).max(self.lock_ns)
    }

    #[cfg(test)]
    pub(crate) fn lock_spans(&self) -> Vec<(Ns, Ns)> {
        self.lock.spans()
    }

    /// An I/O on VDISK `k` moved `pages` pages (`write`), `faults` of them
    /// brought back from XSTOR or DASD first.
    #[inline]
    pub fn count_io(&mut self, k: u32, pages: u32, write: bool, faults: u32) {
        let c = &mut self.disks[k as usize].c;
        c.ios += 1;
        if write {
            c.pages_written += pages as u64;
        } else {
            c.pages_read += pages as u64;
        }
        c.faults += faults as u64;
    }

    /// An I/O on VDISK `k` waits for one of its pages to be read from
    /// paging DASD.
    #[inline]
    pub fn count_fault(&mut self, k: u32) {
        self.disks[k as usize].c.faults += 1;
    }

    /// Consistency: live VDISKs fit SYSLIM unless it was lowered below them
    /// (CP does not take a VDISK away when the limit drops), devices unique
    /// per user.
    #[cfg(any(test, debug_assertions))]
    pub fn check(&self) {
        let live: Vec<&Vdisk> = self.disks.iter().filter(|d| d.live).collect();
        for (i, a) in live.iter().enumerate() {
            for b in &live[i + 1..] {
                assert!(
                    !(a.owner == b.owner && a.vdev == b.vdev),
                    "VDISK {:04X} of user {} defined twice",
                    a.vdev,
                    a.owner
                );
            }
            assert!(a.blocks <= params::MAX_BLOCKS && a.blocks > 0);
        }
    }
}
