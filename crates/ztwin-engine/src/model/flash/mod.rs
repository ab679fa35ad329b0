//! Flash Express: storage-class memory (SCM) on PCIe card pairs, reached
//! through the Extended Asynchronous Data Mover (EADM).
//!
//! **Owns** the installed capacity (card pairs, RAID 10 inside each pair, so
//! the usable capacity is what the scenario gives per pair), each
//! partition's allocation (initial, maximum, what is online, in 16 GB
//! increments) and the EADM transfer servers with their counters.
//!
//! **The model** (zvm-model.md topic 11): a transfer moves one 4 KB page or
//! one 1 MB large page; it takes the scenario's latency for its unit once a
//! server is free. The feature runs `parallelism` transfers at once per card
//! pair; more wait in FIFO order for the first server to free. Transfers are
//! an atomic call ([`Flash::transfer`]) that returns the completion time, so
//! the caller (the z/OS partition) schedules its own completion event.
//!
//! **Counters** (cumulative, owner-written): transfers by unit and
//! direction, bytes, busy time and time transfers waited for a server.

pub mod params;
#[cfg(test)]
mod tests;

use crate::core::units::Ns;
use crate::core::{invalid, us_to_ns, Invalid};
use params::{Params, INCREMENT};

/// What one EADM transfer moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// One 4 KB page.
    Page,
    /// One 1 MB large page.
    Large,
}

impl Unit {
    pub fn bytes(self) -> u64 {
        match self {
            Unit::Page => 4096,
            Unit::Large => 1 << 20,
        }
    }
}

/// Cumulative counters of the feature.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub reads_4k: u64,
    pub reads_1m: u64,
    pub writes_4k: u64,
    pub writes_1m: u64,
    pub bytes: u64,
    /// Sum over transfers of their service time.
    pub busy_ns: u64,
    /// Sum over transfers of the time they waited for a server.
    pub wait_ns: u64,
}

/// A partition's allocation.
#[derive(Clone, Debug)]
pub struct Allocation {
    pub name: String,
    pub initial: u64,
    pub maximum: u64,
    /// Online now (CONFIG SCM ONLINE/OFFLINE changes it within the maximum).
    pub online: u64,
}

pub struct Flash {
    capacity: u64,
    lat_4k: Ns,
    lat_1m: Ns,
    /// When each transfer server is next free.
    free_at: Vec<Ns>,
    parts: Vec<Allocation>,
    c: Counters,
}

impl Flash {
    /// The feature as `p` (validated) installs it, every allocation at its
    /// initial size.
    pub fn new(p: &Params) -> Flash {
        Flash {
            capacity: p.capacity(),
            lat_4k: us_to_ns(p.latency_4k_us),
            lat_1m: us_to_ns(p.latency_1m_us),
            free_at: vec![0; (p.card_pairs * p.parallelism) as usize],
            parts: p
                .partition
                .iter()
                .map(|a| Allocation {
                    name: a.name.to_ascii_uppercase(),
                    initial: a.initial.0,
                    maximum: a.maximum.map_or(a.initial.0, |m| m.0),
                    online: a.initial.0,
                })
                .collect(),
            c: Counters::default(),
        }
    }

    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    pub fn allocation(&self, name: &str) -> Option<&Allocation> {
        self.parts
            .iter()
            .find(|a| a.name.eq_ignore_ascii_case(name))
    }

    /// Bytes online to all partitions.
    pub fn online_total(&self) -> u64 {
        self.parts.iter().map(|a| a.online).sum()
    }

    /// CONFIG SCM(...) ONLINE/OFFLINE: set partition `name`'s online amount
    /// to `bytes` (a 16 GB multiple within its maximum and the free capacity).
    pub fn set_online(&mut self, name: &str, bytes: u64) -> Result<(), Invalid> {
        let others: u64 = self
            .parts
            .iter()
            .filter(|a| !a.name.eq_ignore_ascii_case(name))
            .map(|a| a.online)
            .sum();
        let cap = self.capacity;
        let Some(a) = self
            .parts
            .iter_mut()
            .find(|a| a.name.eq_ignore_ascii_case(name))
        else {
            return invalid(
                "flash".into(),
                format!("partition {name} has no storage-class memory allocation"),
            );
        };
        if bytes % INCREMENT != 0 {
            return invalid(
                a.name.clone(),
                format!("{bytes} bytes: SCM goes online in 16G increments"),
            );
        }
        if bytes > a.maximum {
            return invalid(
                a.name.clone(),
                format!(
                    "{}G: over the maximum allocation {}G",
                    bytes >> 30,
                    a.maximum >> 30
                ),
            );
        }
        if others + bytes > cap {
            return invalid(
                a.name.clone(),
                format!(
                    "{}G: only {}G of the feature is not online to other partitions",
                    bytes >> 30,
                    (cap - others) >> 30
                ),
            );
        }
        a.online = bytes;
        Ok(())
    }

    /// The service time of one transfer of `unit` (no queueing).
    pub fn latency(&self, unit: Unit) -> Ns {
        match unit {
            Unit::Page => self.lat_4k,
            Unit::Large => self.lat_1m,
        }
    }

    /// Start a transfer at `now` (a read into real storage when `read`):
    /// it takes the first free server, waiting for one if all are busy, and
    /// completes at the returned time.
    pub fn transfer(&mut self, now: Ns, unit: Unit, read: bool) -> Ns {
        // The server free first (lowest index on ties: deterministic).
        let mut best = 0;
        for (i, &f) in self.free_at.iter().enumerate() {
            if f < self.free_at[best] {
                best = i;
            }
            if f <= now {
                best = i;
                break;
            }
        }
        let start = self.free_at[best].max(now);
        let lat = self.latency(unit);
        let done = start + lat;
        self.free_at[best] = done;
        let c = &mut self.c;
        match (unit, read) {
            (Unit::Page, true) => c.reads_4k += 1,
            (Unit::Page, false) => c.writes_4k += 1,
            (Unit::Large, true) => c.reads_1m += 1,
            (Unit::Large, false) => c.writes_1m += 1,
        }
        c.bytes += unit.bytes();
        c.busy_ns += lat;
        c.wait_ns += start - now;
        done
    }

    /// One EADM request moving `pages` 4 KB pages (a write group, or the
    /// pages a request gathers): its latency runs from the 4 KB one to the
    /// 1 MB one in proportion to the pages; counted as one request of its
    /// unit (4 KB below 256 pages).
    pub fn transfer_pages(&mut self, now: Ns, pages: u32, read: bool) -> Ns {
        let pages = pages.clamp(1, 256);
        let extra = (self.lat_1m - self.lat_4k) * (pages as Ns - 1) / 255;
        let unit = if pages == 256 {
            Unit::Large
        } else {
            Unit::Page
        };
        let done = self.transfer(now, unit, read);
        // The extra pages lengthen the request on the server it took.
        if pages > 1 && pages < 256 {
            if let Some(f) = self.free_at.iter_mut().find(|f| **f == done) {
                *f += extra;
            }
            self.c.busy_ns += extra;
            self.c.bytes += (pages as u64 - 1) * 4096;
            return done + extra;
        }
        done
    }

    /// Transfers in service or waiting at `now`.
    pub fn in_flight(&self, now: Ns) -> usize {
        self.free_at.iter().filter(|&&f| f > now).count()
    }

    pub fn counters(&self) -> Counters {
        self.c
    }
}
