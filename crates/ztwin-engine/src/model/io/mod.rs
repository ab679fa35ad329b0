//! The I/O component: DASD volumes, the I/O requests on them and their service.
//!
//! **Owns** the volumes (device number, volume serial, type, size), each with one
//! exposure (one I/O at a time) and a FIFO queue in CP in front of it; the
//! request arena (records reused through a free list, a request is a `u32`);
//! each volume's service model and its random stream; the per-device counters
//! and the SSCH count of each logical CPU.
//!
//! **Interface** (zero-time calls):
//! * [`Io::alloc`] a request of `pages` pages for an [`Origin`] (stamped with
//!   its queueing time and the CPU that issues it), then [`Io::submit`] it: it
//!   starts at once if the exposure is free ([`Submitted::Started`]) or waits in
//!   the volume's queue ([`Submitted::Queued`]). Callers must not assume either.
//! * [`Io::done`] handles the volume's completion event and returns a [`Done`];
//!   the caller acts on its origin, then [`Io::release`]s the request and calls
//!   [`Io::start_next`] (completion work may itself submit to the same volume).
//! * [`Io::load`] (response time and requests in flight, for choosing a
//!   paging volume), [`Io::by_devno`].
//! * For the monitor: [`Io::devices`] (one [`DevSample`] per volume),
//!   [`Io::ssch_by_cpu`], [`Io::hf_tick`] (high-frequency sampling).
//!
//! **Events**: [`Ev::Done`], one outstanding per busy exposure.
//!
//! **Parameters**: [`params`] (the `[[paging]]` and `[[dasd]]` volume groups,
//! their checks, [`params::volumes`]).
//!
//! **Origins**: `io` never interprets an [`Origin`]; `model/mod.rs` routes each
//! completion to its owner (paging for page reads, page-outs and migrations,
//! the workload's virtual CPU for minidisk I/O). A new kind of I/O is a new
//! `Origin` variant and one arm there.
//!
//! **Service**: an I/O's time is pending + disconnect + connect ([`Timing`]),
//! drawn when it starts ([`Service`]). Today each volume draws from its own
//! parameters; a path model (channels, control units, the storage server, PAV
//! aliases as further exposures) replaces [`Service`]'s draw with times that
//! depend on shared resources (pending under channel contention, disconnect
//! under cache misses), and may hold a request back (`Submitted::Queued` while
//! no path or alias is free) and restart it from its own queue when one frees.

pub mod params;
#[cfg(test)]
mod tests;

use super::Cx;
use crate::core::rng::{Rng, Stream};
use crate::core::units::{Ns, MS};
pub use params::ServiceTime;
use std::collections::VecDeque;

/// Who an I/O is for: routed back to its owner when it completes. Never
/// interpreted by `io`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Paging: the read of paging block `block`.
    PageRead { block: u32 },
    /// Paging: the write of block `block` of pages stolen from central storage.
    PageWrite { block: u32 },
    /// Paging: the write of block `block` of pages migrated from XSTOR.
    Migrate { block: u32 },
    /// A guest's minidisk I/O, which virtual CPU `vcpu` waits for.
    Minidisk { vcpu: u32 },
}

/// Events of the I/O component.
#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// The I/O running on volume `vol` completes.
    Done { vol: u32 },
}

/// What [`Io::submit`] did with a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Submitted {
    /// The exposure was free: the I/O runs now.
    Started,
    /// It waits in the volume's queue.
    Queued,
}

/// A completed I/O, for its origin's owner.
#[derive(Clone, Copy, Debug)]
pub struct Done {
    pub origin: Origin,
    /// The request (to [`Io::release`] once the completion is handled).
    pub req: u32,
    pub vol: u32,
    pub pages: u32,
    /// Queue wait plus service.
    pub resp_ns: Ns,
    /// The logical CPU that issued it.
    pub cpu: u16,
}

/// The three parts of an I/O's service time, in ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    pub pend: Ns,
    pub disc: Ns,
    pub conn: Ns,
}

impl Timing {
    #[inline]
    pub fn total(&self) -> Ns {
        self.pend + self.disc + self.conn
    }
}

/// A volume's service model: its parameters and its own random stream.
pub struct Service {
    svc: ServiceTime,
    rng: Rng,
}

impl Service {
    pub fn new(svc: &ServiceTime, rng: Rng) -> Service {
        Service {
            svc: svc.clone(),
            rng,
        }
    }

    /// The service time of one I/O moving `pages` pages: each part drawn
    /// uniformly within ±jitter of its mean (the connect part per I/O plus
    /// per page).
    #[inline]
    pub fn draw(&mut self, pages: u32) -> Timing {
        let j = self.svc.jitter;
        let rng = &mut self.rng;
        let mut draw = |ms: f64| -> Ns {
            if ms <= 0.0 {
                return 0;
            }
            let f = 1.0 + j * (2.0 * rng.f64() - 1.0);
            // Rounded to the nearest ns (non-negative: adding a half and
            // truncating is `round()` without the libm call).
            (ms * f * MS as f64 + 0.5) as Ns
        };
        let pend = draw(self.svc.pending_ms);
        let disc = draw(self.svc.disconnect_ms);
        let conn = draw(self.svc.connect_ms_per_io + self.svc.connect_ms_per_page * pages as f64);
        Timing { pend, disc, conn }
    }
}

/// Counters of one device, cumulative (the monitor takes differences).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DevCounters {
    pub ssch: u64,
    pub pend_ns: u64,
    pub disc_ns: u64,
    pub conn_ns: u64,
    /// Sum over completed I/Os of queue wait + service (for MLOAD).
    pub resp_ns: u64,
    /// High-frequency samples: count, summed queue length, busy count.
    pub hf_count: u64,
    pub hf_queue: u64,
    pub hf_busy: u64,
}

/// A volume as the scenario defines it.
#[derive(Clone, Debug)]
pub struct VolumeDef {
    pub devno: u16,
    pub volser: String,
    pub device_type: String,
    pub cylinders: u32,
    /// A CP-owned paging volume (IODDEV's flag).
    pub paging: bool,
    pub service: ServiceTime,
}

struct Volume {
    def: VolumeDef,
    svc: Service,
    /// The request running on the exposure.
    busy: Option<u32>,
    queue: VecDeque<u32>,
    /// Smoothed response time (ms), for choosing paging volumes and MLOAD.
    smoothed_ms: f64,
    c: DevCounters,
}

/// One request.
#[derive(Clone, Copy, Debug)]
struct Req {
    origin: Origin,
    vol: u32,
    pages: u32,
    queued_at: Ns,
    cpu: u16,
    /// In the arena's free list (for `check`).
    free: bool,
}

/// A volume's state for the monitor.
#[derive(Clone, Copy, Debug)]
pub struct DevSample<'a> {
    /// Index of the volume (its subchannel is `0x0001_0000 + index`).
    pub index: u32,
    pub def: &'a VolumeDef,
    pub c: DevCounters,
    /// Requests waiting (not counting the one running).
    pub queued: u32,
    pub busy: bool,
    pub smoothed_ms: f64,
}

/// A volume's load, for choosing where to page out.
#[derive(Clone, Copy, Debug)]
pub struct Load {
    pub smoothed_ms: f64,
    /// Requests running or waiting.
    pub in_flight: u32,
}

pub struct Io {
    vols: Vec<Volume>,
    reqs: Vec<Req>,
    free: Vec<u32>,
    /// SSCHs issued by each logical CPU.
    ssch_by_cpu: Vec<u64>,
}

impl Io {
    /// Volumes `defs` (volume `k`'s service stream is the `k`-th device's of
    /// `seed`), for an LPAR of `cpus` logical CPUs.
    pub fn new(defs: Vec<VolumeDef>, cpus: usize, seed: u64) -> Io {
        let vols = defs
            .into_iter()
            .enumerate()
            .map(|(k, def)| Volume {
                svc: Service::new(&def.service, Rng::new(seed, Stream::Device, k as u64)),
                def,
                busy: None,
                queue: VecDeque::new(),
                smoothed_ms: 0.0,
                c: DevCounters::default(),
            })
            .collect();
        Io {
            vols,
            reqs: Vec::new(),
            free: Vec::new(),
            ssch_by_cpu: vec![0; cpus],
        }
    }

    /// A request of `pages` pages to volume `vol` for `origin`, queued now by
    /// `cx.cpu`; not yet submitted.
    #[inline]
    pub fn alloc(&mut self, cx: &Cx, vol: u32, pages: u32, origin: Origin) -> u32 {
        let r = Req {
            origin,
            vol,
            pages,
            queued_at: cx.now(),
            cpu: cx.cpu,
            free: false,
        };
        match self.free.pop() {
            Some(i) => {
                self.reqs[i as usize] = r;
                i
            }
            None => {
                self.reqs.push(r);
                (self.reqs.len() - 1) as u32
            }
        }
    }

    /// Start request `r` on its volume, or queue it there.
    #[inline]
    pub fn submit(&mut self, cx: &mut Cx, r: u32) -> Submitted {
        let vol = self.reqs[r as usize].vol;
        let v = &mut self.vols[vol as usize];
        if v.busy.is_none() {
            self.start(cx, vol, r);
            Submitted::Started
        } else {
            v.queue.push_back(r);
            Submitted::Queued
        }
    }

    #[inline]
    fn start(&mut self, cx: &mut Cx, vol: u32, r: u32) {
        let q = &self.reqs[r as usize];
        let (pages, cpu) = (q.pages, q.cpu);
        let v = &mut self.vols[vol as usize];
        debug_assert!(v.busy.is_none(), "I/O started on a busy exposure");
        let t = v.svc.draw(pages);
        v.busy = Some(r);
        v.c.ssch += 1;
        v.c.pend_ns += t.pend;
        v.c.disc_ns += t.disc;
        v.c.conn_ns += t.conn;
        self.ssch_by_cpu[cpu as usize] += 1;
        cx.at(t.total(), Ev::Done { vol });
    }

    /// The I/O on `vol` completed ([`Ev::Done`]): the exposure is free.
    #[inline]
    pub fn done(&mut self, cx: &Cx, vol: u32) -> Done {
        let v = &mut self.vols[vol as usize];
        let r = v.busy.take().expect("I/O done on an idle volume");
        let q = &self.reqs[r as usize];
        let resp = cx.now() - q.queued_at;
        v.c.resp_ns += resp;
        let ms = resp as f64 / MS as f64;
        v.smoothed_ms = if v.smoothed_ms == 0.0 {
            ms
        } else {
            0.8 * v.smoothed_ms + 0.2 * ms
        };
        Done {
            origin: q.origin,
            req: r,
            vol,
            pages: q.pages,
            resp_ns: resp,
            cpu: q.cpu,
        }
    }

    /// Request `r` is finished with: its record is reused.
    #[inline]
    pub fn release(&mut self, r: u32) {
        debug_assert!(!self.reqs[r as usize].free);
        self.reqs[r as usize].free = true;
        self.free.push(r);
    }

    /// Start the next queued request on `vol` if its exposure is free.
    #[inline]
    pub fn start_next(&mut self, cx: &mut Cx, vol: u32) {
        let v = &mut self.vols[vol as usize];
        if v.busy.is_none() {
            if let Some(next) = v.queue.pop_front() {
                self.start(cx, vol, next);
            }
        }
    }

    /// Response time and requests in flight on `vol`.
    #[inline]
    pub fn load(&self, vol: u32) -> Load {
        let v = &self.vols[vol as usize];
        Load {
            smoothed_ms: v.smoothed_ms,
            in_flight: v.queue.len() as u32 + v.busy.is_some() as u32,
        }
    }

    /// The volume with device number `devno`.
    pub fn by_devno(&self, devno: u16) -> Option<u32> {
        self.vols
            .iter()
            .position(|v| v.def.devno == devno)
            .map(|k| k as u32)
    }

    pub fn volumes(&self) -> usize {
        self.vols.len()
    }

    pub fn def(&self, vol: u32) -> &VolumeDef {
        &self.vols[vol as usize].def
    }

    /// Volume `vol`'s sample.
    pub fn device(&self, vol: u32) -> DevSample<'_> {
        let v = &self.vols[vol as usize];
        DevSample {
            index: vol,
            def: &v.def,
            c: v.c,
            queued: v.queue.len() as u32,
            busy: v.busy.is_some(),
            smoothed_ms: v.smoothed_ms,
        }
    }

    /// Every volume's sample, in volume order.
    pub fn devices(&self) -> impl Iterator<Item = DevSample<'_>> + '_ {
        (0..self.vols.len() as u32).map(|k| self.device(k))
    }

    /// SSCHs issued by each logical CPU (cumulative).
    pub fn ssch_by_cpu(&self) -> &[u64] {
        &self.ssch_by_cpu
    }

    /// High-frequency sampling: each volume's queue length and busy state.
    pub fn hf_tick(&mut self) {
        for v in &mut self.vols {
            v.c.hf_count += 1;
            v.c.hf_queue += v.queue.len() as u64;
            v.c.hf_busy += v.busy.is_some() as u64;
        }
    }

    /// Requests in the arena and how many are free (`ZTWIN_DEBUG`).
    pub fn arena(&self) -> (usize, usize) {
        (self.reqs.len(), self.free.len())
    }

    /// Consistency: a request waits only behind a busy exposure, runs or waits
    /// on its own volume only, and is in exactly one place (running, queued,
    /// or free; or held by its issuer between `alloc` and `submit`, or between
    /// `done` and `release`).
    #[cfg(any(test, debug_assertions))]
    pub fn check(&self) {
        let mut seen = vec![false; self.reqs.len()];
        let mut mark = |r: u32, what: &str| {
            assert!(!seen[r as usize], "request {r} is in two places ({what})");
            seen[r as usize] = true;
        };
        for (k, v) in self.vols.iter().enumerate() {
            assert!(
                v.busy.is_some() || v.queue.is_empty(),
                "volume {k}: requests wait behind an idle exposure"
            );
            for &r in v.busy.iter().chain(v.queue.iter()) {
                let q = &self.reqs[r as usize];
                assert_eq!(q.vol, k as u32, "request {r} on the wrong volume");
                assert!(!q.free, "free request {r} on volume {k}");
                mark(r, "volume");
            }
        }
        for &r in &self.free {
            assert!(self.reqs[r as usize].free);
            mark(r, "free list");
        }
        assert_eq!(
            self.reqs.iter().filter(|q| q.free).count(),
            self.free.len(),
            "a request marked free is not in the free list"
        );
    }
}
