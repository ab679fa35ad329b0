//! The spool component: CP-owned spool volumes, their page slots, the spool
//! files on them (here the system data files of saved segments), and the
//! transfers that move a file's pages between storage and the volumes.
//!
//! **Owns** each spool volume's slots (total, used) and the I/O volume it is;
//! the spool files (spool ID, pages, how many on each volume) in an arena
//! reused through a free list; the transfers in flight (one I/O at a time
//! each: CP moves a saved segment sequentially); the spool counters.
//!
//! **Interface** (zero-time calls):
//! * [`Spool::create`] a file of `pages` pages (slots taken round-robin over
//!   the volumes with room; [`Full`] when they are not there),
//!   [`Spool::purge`] it (its slots freed);
//! * [`Spool::transfer`] moves a file's pages to or from the volumes for an
//!   owner's `tag`: it submits the first I/O; [`Spool::io_done`] (the wiring
//!   routes the completion) counts the pages and submits the next, and says
//!   when the transfer is finished;
//! * for the monitor and CP's QUERY ALLOC SPOOL: [`Spool::sample`],
//!   [`Spool::volume_samples`]; [`Spool::check`].
//!
//! **Events**: [`Ev::Next`] (the next write of a transfer after CP's work on
//! its pages, when `[spool_options] write_page_us` is set). Its I/O is `io`'s:
//! requests of kind `Kind::Spool` (writes for SAVESEG, reads for a load) with
//! the origin `Origin::Spool { transfer }` (see [`origin`]), never minidisk
//! I/O, so the minidisk cache and the path model's minidisk rules never see
//! it.
//!
//! **Parameters**: [`params`] (`[[spool]]`, `[spool_options]`).

pub mod params;
#[cfg(test)]
mod tests;

use super::io::{Io, Kind, Origin, Request};
use super::Cx;

/// The origin of an I/O of transfer `t`.
#[inline]
pub fn origin(t: u32) -> Origin {
    Origin::Spool { transfer: t }
}

/// The transfer an origin names, if it is a spool transfer's.
#[inline]
pub fn transfer_of(o: Origin) -> Option<u32> {
    match o {
        Origin::Spool { transfer } => Some(transfer),
        _ => None,
    }
}

/// Events of the spool component.
#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// Transfer `t` submits its next I/O (CP has prepared its pages).
    Next { t: u32 },
}

/// Spool space is exhausted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Full {
    pub needed: u64,
    pub free: u64,
}

/// Which way a transfer moves pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// Storage to spool (SAVESEG).
    Write,
    /// Spool to storage (a segment's pages loaded).
    Read,
}

/// Spool counters (cumulative).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub files_created: u64,
    pub files_purged: u64,
    pub ssch_rd: u64,
    pub ssch_wr: u64,
    pub pages_rd: u64,
    pub pages_wr: u64,
}

/// A spool volume's state for the monitor and QUERY ALLOC SPOOL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VolSample {
    /// The I/O volume it is.
    pub io_vol: u32,
    pub slots: u32,
    pub used: u32,
    pub c: Counters,
}

/// The spool as a whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    pub slots: u64,
    pub used: u64,
    pub files: u32,
    pub c: Counters,
}

struct Vol {
    io_vol: u32,
    slots: u32,
    used: u32,
    c: Counters,
}

struct File {
    id: u16,
    pages: u32,
    /// Pages on each volume.
    on: Vec<u32>,
    live: bool,
}

/// A transfer's progress.
#[derive(Clone, Copy, Debug)]
struct Transfer {
    file: u32,
    dir: Dir,
    /// Pages to move, pages moved (or in the I/O in flight).
    total: u32,
    issued: u32,
    done: u32,
    /// The volume of the next I/O (round-robin over the file's volumes).
    next_vol: u32,
    tag: u32,
    live: bool,
}

/// A transfer's I/O completed: what it moved, and whether the transfer ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Moved {
    pub tag: u32,
    pub dir: Dir,
    pub pages: u32,
    pub finished: bool,
}

pub struct Spool {
    vols: Vec<Vol>,
    files: Vec<File>,
    free_files: Vec<u32>,
    next_id: u16,
    transfers: Vec<Transfer>,
    free_transfers: Vec<u32>,
    pages_per_io: u32,
    /// CP time per page before a write.
    write_page_ns: crate::core::units::Ns,
    c: Counters,
}

impl Spool {
    /// Spool volumes `vols` as (I/O volume, slots), moving `pages_per_io`
    /// pages per I/O.
    pub fn new(vols: &[(u32, u32)], pages_per_io: u32) -> Spool {
        Spool {
            vols: vols
                .iter()
                .map(|&(io_vol, slots)| Vol {
                    io_vol,
                    slots,
                    used: 0,
                    c: Counters::default(),
                })
                .collect(),
            files: Vec::new(),
            free_files: Vec::new(),
            next_id: 1,
            transfers: Vec::new(),
            free_transfers: Vec::new(),
            pages_per_io: pages_per_io.max(1),
            write_page_ns: 0,
            c: Counters::default(),
        }
    }

    /// CP time per page before each write (`[spool_options] write_page_us`).
    pub fn set_write_page_ns(&mut self, ns: crate::core::units::Ns) {
        self.write_page_ns = ns;
    }

    /// Submit transfer `t`'s next I/O now, or (a write, with CP time per page)
    /// after CP has prepared its pages ([`Ev::Next`]).
    fn next(&mut self, cx: &mut Cx, io: &mut Io, t: u32) {
        let tr = &self.transfers[t as usize];
        if tr.dir == Dir::Write && self.write_page_ns > 0 {
            let n = (tr.total - tr.issued).min(self.pages_per_io) as u64;
            cx.at(self.write_page_ns * n, Ev::Next { t });
        } else {
            self.issue(cx, io, t);
        }
    }

    /// [`Ev::Next`]: transfer `t`'s next I/O.
    pub fn on_next(&mut self, cx: &mut Cx, io: &mut Io, t: u32) {
        let tr = &self.transfers[t as usize];
        let n = (tr.total - tr.issued).min(self.pages_per_io) as u64;
        cx.charge.sys += self.write_page_ns * n;
        self.issue(cx, io, t);
    }

    /// Whether any spool volume is defined.
    pub fn exists(&self) -> bool {
        !self.vols.is_empty()
    }

    /// Free slots in all.
    pub fn free_slots(&self) -> u64 {
        self.vols.iter().map(|v| (v.slots - v.used) as u64).sum()
    }

    /// A new spool file of `pages` pages: its index and spool ID. Its slots are
    /// taken `pages_per_io` at a time round-robin over the volumes with room.
    pub fn create(&mut self, pages: u32) -> Result<(u32, u16), Full> {
        let free = self.free_slots();
        if (pages as u64) > free {
            return Err(Full {
                needed: pages as u64,
                free,
            });
        }
        let mut on = vec![0u32; self.vols.len()];
        let mut left = pages;
        let mut k = 0usize;
        while left > 0 {
            let v = &mut self.vols[k];
            let n = left.min(self.pages_per_io).min(v.slots - v.used);
            v.used += n;
            on[k] += n;
            left -= n;
            k = (k + 1) % self.vols.len();
        }
        let id = self.next_id;
        // Spool IDs run 1 to 9999 and wrap, as CP's do.
        self.next_id = if self.next_id >= 9999 {
            1
        } else {
            self.next_id + 1
        };
        let f = File {
            id,
            pages,
            on,
            live: true,
        };
        self.c.files_created += 1;
        let i = match self.free_files.pop() {
            Some(i) => {
                self.files[i as usize] = f;
                i
            }
            None => {
                self.files.push(f);
                (self.files.len() - 1) as u32
            }
        };
        Ok((i, id))
    }

    /// Purge file `f`: its slots are free again.
    pub fn purge(&mut self, f: u32) {
        let file = &mut self.files[f as usize];
        debug_assert!(file.live, "spool file purged twice");
        for (k, &n) in file.on.iter().enumerate() {
            self.vols[k].used -= n;
        }
        file.live = false;
        file.on.clear();
        self.free_files.push(f);
        self.c.files_purged += 1;
    }

    /// The I/O volume a saved segment's page `p` is read from by a demand
    /// load (its page groups spread over the spool volumes in turn).
    pub fn read_volume(&self, p: u32) -> u32 {
        let n = self.vols.len().max(1) as u32;
        let group = p / self.pages_per_io;
        self.vols[(group % n) as usize].io_vol
    }

    /// Spool ID and pages of file `f`.
    pub fn file(&self, f: u32) -> (u16, u32) {
        let file = &self.files[f as usize];
        (file.id, file.pages)
    }

    /// Move `pages` pages of file `f` in direction `dir` for the owner's
    /// `tag`: the first I/O is submitted now. Returns the transfer, or `None`
    /// if there is nothing to move (the owner finishes at once).
    pub fn transfer(
        &mut self,
        cx: &mut Cx,
        io: &mut Io,
        f: u32,
        pages: u32,
        dir: Dir,
        tag: u32,
    ) -> Option<u32> {
        let pages = pages.min(self.files[f as usize].pages);
        if pages == 0 {
            return None;
        }
        let t = Transfer {
            file: f,
            dir,
            total: pages,
            issued: 0,
            done: 0,
            next_vol: 0,
            tag,
            live: true,
        };
        let i = match self.free_transfers.pop() {
            Some(i) => {
                self.transfers[i as usize] = t;
                i
            }
            None => {
                self.transfers.push(t);
                (self.transfers.len() - 1) as u32
            }
        };
        self.next(cx, io, i);
        Some(i)
    }

    /// Submit transfer `t`'s next I/O.
    fn issue(&mut self, cx: &mut Cx, io: &mut Io, t: u32) {
        let tr = &mut self.transfers[t as usize];
        let file = &self.files[tr.file as usize];
        // The next volume holding pages of the file.
        let nv = file.on.len() as u32;
        let mut k = tr.next_vol % nv;
        for _ in 0..nv {
            if file.on[k as usize] > 0 {
                break;
            }
            k = (k + 1) % nv;
        }
        tr.next_vol = k + 1;
        let n = (tr.total - tr.issued).min(self.pages_per_io);
        tr.issued += n;
        let v = &mut self.vols[k as usize];
        let rq = match tr.dir {
            Dir::Write => {
                v.c.ssch_wr += 1;
                self.c.ssch_wr += 1;
                Request::write(n, Kind::Spool)
            }
            Dir::Read => {
                v.c.ssch_rd += 1;
                self.c.ssch_rd += 1;
                Request::read(n, Kind::Spool)
            }
        };
        let r = io.alloc_req(cx, v.io_vol, rq, origin(t));
        io.submit(cx, r);
    }

    /// An I/O of transfer `t` moved `pages` pages: counted; the next I/O is
    /// submitted unless the transfer is finished (its record is then reused).
    pub fn io_done(&mut self, cx: &mut Cx, io: &mut Io, t: u32, vol: u32, pages: u32) -> Moved {
        let tr = &mut self.transfers[t as usize];
        debug_assert!(tr.live, "I/O of a finished spool transfer");
        tr.done += pages;
        let (tag, dir) = (tr.tag, tr.dir);
        let finished = tr.done >= tr.total;
        if let Some(v) = self.vols.iter_mut().find(|v| v.io_vol == vol) {
            match dir {
                Dir::Write => v.c.pages_wr += pages as u64,
                Dir::Read => v.c.pages_rd += pages as u64,
            }
        }
        match dir {
            Dir::Write => self.c.pages_wr += pages as u64,
            Dir::Read => self.c.pages_rd += pages as u64,
        }
        if finished {
            self.transfers[t as usize].live = false;
            self.free_transfers.push(t);
        } else {
            self.next(cx, io, t);
        }
        Moved {
            tag,
            dir,
            pages,
            finished,
        }
    }

    /// The spool as a whole.
    pub fn sample(&self) -> Sample {
        Sample {
            slots: self.vols.iter().map(|v| v.slots as u64).sum(),
            used: self.vols.iter().map(|v| v.used as u64).sum(),
            files: self.files.iter().filter(|f| f.live).count() as u32,
            c: self.c,
        }
    }

    /// Each spool volume, in order.
    pub fn volume_samples(&self) -> impl Iterator<Item = VolSample> + '_ {
        self.vols.iter().map(|v| VolSample {
            io_vol: v.io_vol,
            slots: v.slots,
            used: v.used,
            c: v.c,
        })
    }

    /// Consistency: each volume's used slots are the live files' pages on it;
    /// the arenas' free lists hold exactly the dead records.
    #[cfg(any(test, debug_assertions))]
    pub fn check(&self) {
        let mut used = vec![0u32; self.vols.len()];
        for f in self.files.iter().filter(|f| f.live) {
            assert_eq!(f.on.iter().sum::<u32>(), f.pages, "spool file {}", f.id);
            for (k, &n) in f.on.iter().enumerate() {
                used[k] += n;
            }
        }
        for (k, v) in self.vols.iter().enumerate() {
            assert_eq!(used[k], v.used, "spool volume {k}: used slots");
            assert!(v.used <= v.slots, "spool volume {k} over full");
        }
        assert_eq!(
            self.files.iter().filter(|f| !f.live).count(),
            self.free_files.len(),
            "spool file free list"
        );
        assert_eq!(
            self.transfers.iter().filter(|t| !t.live).count(),
            self.free_transfers.len(),
            "spool transfer free list"
        );
    }
}
