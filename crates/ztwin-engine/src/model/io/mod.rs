//! The I/O component: DASD volumes, the I/O requests on them and their
//! service, from the subchannel to the disk.
//!
//! **Owns** the volumes (device number, volume serial, type, size), each with
//! its exposures (the base subchannel, and PAV aliases or a HyperPAV pool's) and
//! a FIFO queue in CP in front of them; the request arena (records reused
//! through a free list, a request is a `u32`); each volume's service; the
//! channel paths, switches, storage servers (host adapters, cache and NVS,
//! device adapters, ranks) and logical control units of the path model
//! (`path.rs`); the per-device, per-channel, per-control-unit counters and the
//! SSCH count of each logical CPU.
//!
//! **Two service models**, chosen per device group by the scenario:
//! * *constant* (a group without `path`): each I/O's pending, disconnect and
//!   connect times are drawn from the group's `service` parameters; one
//!   exposure. This is the model every scenario written before the path model
//!   uses, unchanged to the byte.
//! * *path* (a group with `path`, see `params.rs`): the times come from the
//!   shared resources: pending = CMR baseline + switch hop + waiting for a free
//!   channel path and host adapter; disconnect = a read miss staged from the
//!   volume's rank (a k-server queue of disk arms, then its device adapter), a
//!   sequential read waiting for prestaging, a write waiting for NVS space
//!   freed by destaging, or a synchronous disk access when caching is off;
//!   connect = the channel's command overhead (less in transport mode) plus the
//!   bytes at the slowest link rate of the path. CP queues a request while no
//!   exposure may take it (PAV, HyperPAV, EDEV queue depth, see [`Kind`]).
//!
//! **Interface** (zero-time calls):
//! * [`Io::alloc`] / [`Io::alloc_req`] a request for an [`Origin`] (stamped
//!   with its queueing time and the CPU that issues it), then [`Io::submit`] it:
//!   it starts at once if an exposure may take it ([`Submitted::Started`]) or
//!   waits in the volume's queue ([`Submitted::Queued`]); the owner of the
//!   request keeps nothing, `io` keeps the FIFO and restarts from it.
//! * [`Io::handle`] takes the component's events; it returns a [`Done`] when a
//!   request completes. The caller acts on its origin, then [`Io::release`]s
//!   the request and calls [`Io::start_next`] (completion work may itself
//!   submit to the same volume).
//! * [`Io::cp_extra`]: CP CPU an I/O costs beyond the ECKD base costs (EDEV).
//! * [`Io::load`] (response time and requests in flight, for choosing a
//!   paging volume), [`Io::by_devno`], [`Io::set_cache`] (timeline: pinned
//!   data or a cache failure).
//! * For the monitor: [`Io::devices`] (one [`DevSample`] per subchannel: the
//!   bases, then the aliases), [`Io::chpids`], [`Io::control_units`],
//!   [`Io::ssch_by_cpu`], [`Io::hf_tick`] (high-frequency sampling).
//!
//! **Events**: [`Ev::Done`] (constant model: one outstanding per busy
//! exposure); [`Ev::Step`] (path model: a request's hold on a channel path
//! ended), [`Ev::Arm`] and [`Ev::Da`] (a back-end operation's disk access and
//! device-adapter transfer ended).
//!
//! **Parameters**: [`params`] (the `[[paging]]` and `[[dasd]]` volume groups,
//! the `[io]` settings and the path model's sections, their checks,
//! [`params::volumes`]).
//!
//! **Origins**: `io` never interprets an [`Origin`]; `model/mod.rs` routes each
//! completion to its owner. A new kind of I/O is a new `Origin` variant and one
//! arm there. What `io` needs to know about a request (direction, size,
//! sequential, which exposures CP may use) comes with it as a [`Request`].

pub mod params;
mod path;
#[cfg(test)]
mod tests;

use super::Cx;
use crate::core::rng::{Rng, Stream};
use crate::core::units::{Ns, MS, PAGE};
pub use params::{DevKind, DevicePath, ServiceTime};
use path::PathModel;
pub use path::{CacheCounters, ChpSample, CuSample, PathCounters, RankSample};
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
    /// The minidisk cache's staging `slot` (a guest waits for it).
    Mdc { slot: u32 },
    /// A Linux guest's request on path `path` of stream `stream` of virtual
    /// CPU `vcpu`.
    Linux { vcpu: u32, stream: u16, path: u16 },
    /// CP's spool I/O: a page group of spool transfer `transfer` (SAVESEG's
    /// writes, a saved segment's reads).
    Spool { transfer: u32 },
}

/// Events of the I/O component.
#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// Constant model: the I/O running on volume `vol` completes.
    Done { vol: u32 },
    /// Path model: request `req`'s hold on its channel path ends.
    Step { req: u32 },
    /// Path model: back-end operation `op`'s disk access ends.
    Arm { op: u32 },
    /// Path model: back-end operation `op`'s device-adapter transfer ends.
    Da { op: u32 },
}

/// What [`Io::submit`] did with a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Submitted {
    /// An exposure was free: the I/O runs now.
    Started,
    /// It waits in the volume's queue.
    Queued,
}

/// What CP does the I/O for: decides which exposures it may use (and, for
/// EDEVs, what it costs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// CP paging. Uses PAV/HyperPAV aliases only with `[io] paging_aliases`
    /// (z/VM 6.4+); on an EDEV with direct SCSI paging, overlaps up to
    /// `edev_paging_depth` I/Os; transport mode with `[io] transport_mode`.
    Paging,
    /// A guest's minidisk I/O: CP may start it on any free exposure of the
    /// volume (base, PAV aliases, the LCU's HyperPAV pool).
    Minidisk,
    /// The minidisk cache's own I/O (track staging): as `Minidisk`, but forced
    /// to the base under `[io] mdc_pav_defect`.
    Mdc,
    /// A guest's I/O to a dedicated exposure: 0 the base, k the k-th PAV
    /// alias of the volume (Linux multipath over base and aliases).
    Dedicated { expo: u8 },
    /// CP's spool I/O (SAVESEG, a saved segment's load): never minidisk I/O,
    /// so never cached by the minidisk cache; on the base exposure only
    /// (\[E\]: no source says CP starts spool I/O on aliases; spool volumes
    /// are on the constant model today, so the path model does not see it).
    Spool,
}

/// The shape of an I/O request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// 4 KB pages moved (paging blocks, minidisk blocks).
    pub pages: u32,
    /// Bytes moved over the channel (`pages` x 4096 unless set).
    pub bytes: u32,
    /// Bytes the storage server writes for it (`bytes`, unless a command
    /// such as SCSI WRITE SAME makes the server write more than moves).
    pub span: u32,
    pub write: bool,
    /// Part of a sequential run (prestaged on reads, destaged in full stripes).
    pub seq: bool,
    pub kind: Kind,
}

impl Request {
    /// A random read of `pages` pages.
    pub fn read(pages: u32, kind: Kind) -> Request {
        let bytes = pages.saturating_mul(PAGE as u32);
        Request {
            pages,
            bytes,
            span: bytes,
            write: false,
            seq: false,
            kind,
        }
    }
    /// A random write of `pages` pages.
    pub fn write(pages: u32, kind: Kind) -> Request {
        Request {
            write: true,
            ..Request::read(pages, kind)
        }
    }
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

/// A volume's constant service model: its parameters and its own random stream.
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

/// Counters of one subchannel (base or alias), cumulative (the monitor takes
/// differences).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DevCounters {
    pub ssch: u64,
    pub pend_ns: u64,
    pub disc_ns: u64,
    pub conn_ns: u64,
    /// Sum over completed I/Os of queue wait + service, on the subchannel
    /// that ran them (the queue wait of an I/O queued at the base and run on
    /// an alias counts on the alias).
    pub resp_ns: u64,
    /// High-frequency samples: count, summed queue length, busy count.
    pub hf_count: u64,
    pub hf_queue: u64,
    pub hf_busy: u64,
    /// Path model: the command-response part of pending time (the
    /// subchannel's initial command response time).
    pub cmr_ns: u64,
    /// Path model, on a base with aliases: I/Os an alias carried for it, and
    /// I/Os CP could not give an alias (not PAV-eligible: paging before 6.4,
    /// the minidisk cache's own I/O under the VM64199 defect).
    pub pav_uses: u64,
    pub pav_inelig: u64,
    /// Path model: bytes read and written.
    pub bytes_rd: u64,
    pub bytes_wr: u64,
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
    /// ECKD, FBA or EDEV.
    pub kind: DevKind,
    /// Capacity in 4 KB blocks.
    pub blocks: u64,
    /// Where it sits (path model); `None`: the constant model.
    pub path: Option<DevicePath>,
    /// Device numbers of its static PAV aliases.
    pub aliases: Vec<u16>,
}

/// The configuration the path model is built from (the scenario's I/O
/// sections), and the CP CPU costs an I/O has whatever its path.
#[derive(Clone, Debug, Default)]
pub struct IoConfig {
    pub params: params::IoParams,
    pub chpids: Vec<params::ChpidDef>,
    pub switches: Vec<params::SwitchDef>,
    pub servers: Vec<params::ServerDef>,
    pub control_units: Vec<params::ControlUnitDef>,
    /// CP level (version, release), for the settings that follow it.
    pub cp_level: (u32, u32),
}

struct Volume {
    def: VolumeDef,
    svc: Service,
    /// Constant model: the request running on the exposure.
    busy: Option<u32>,
    queue: VecDeque<u32>,
    /// Smoothed response time (ms), for choosing paging volumes and MLOAD.
    smoothed_ms: f64,
    /// The base subchannel's counters.
    c: DevCounters,
    /// Path model: the volume's index in the path model.
    pm: Option<u32>,
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
    // The path model's.
    bytes: u32,
    span: u32,
    write: bool,
    seq: bool,
    kind: Kind,
    /// The exposure running it (`NONE` while queued).
    expo: u32,
    /// The channel path it holds (index in its path group), since when.
    link: u16,
    held_at: Ns,
    phase: u8,
    /// What its disconnect waits for (path.rs `MISS_*`).
    miss: u8,
    /// When the current wait began.
    mark: Ns,
    pend: Ns,
    disc: Ns,
    conn: Ns,
    cmr: Ns,
}

const NONE: u32 = u32::MAX;

/// A subchannel's state for the monitor.
#[derive(Clone, Copy, Debug)]
pub struct DevSample<'a> {
    /// Index of the subchannel (its number is `0x0001_0000 + index`): the
    /// volumes first, in order, then the aliases.
    pub index: u32,
    /// Its device number.
    pub devno: u16,
    /// The volume (for an alias, its base's, or the first of its LCU's for
    /// a HyperPAV alias not bound now).
    pub def: &'a VolumeDef,
    /// For an alias: the base device number (static PAV) and whether it is a
    /// HyperPAV alias.
    pub alias_of: Option<u16>,
    pub hyperpav: bool,
    /// HyperPAV pool (LCU) number + 1, 0 when none.
    pub pool: u16,
    pub c: DevCounters,
    /// Requests waiting (not counting the ones running).
    pub queued: u32,
    pub busy: bool,
    pub smoothed_ms: f64,
    /// Path model: CHPIDs of its paths, the control unit, cache counters
    /// (bases only) and whether the server caches the volume now.
    pub chpids: &'a [u8],
    pub cu: u32,
    pub cache: Option<CacheCounters>,
    pub cached: bool,
    /// The volume it belongs to (its own index for a base; an alias's base).
    pub base_vol: u32,
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
    /// The path model (channels, control units, storage servers), when any
    /// volume has a path.
    pm: Option<Box<PathModel>>,
    /// CMS FORMAT on an EDEV zeroes ranges with SCSI WRITE SAME.
    write_same: bool,
}

impl Io {
    /// Volumes `defs` (volume `k`'s service stream is the `k`-th device's of
    /// `seed`), for an LPAR of `cpus` logical CPUs; the path model from `cfg`
    /// for the volumes that have a path.
    pub fn new(defs: Vec<VolumeDef>, cpus: usize, seed: u64, cfg: &IoConfig) -> Io {
        let pm = if defs.iter().any(|d| d.path.is_some()) {
            Some(Box::new(PathModel::new(&defs, cfg, seed)))
        } else {
            None
        };
        let vols = defs
            .into_iter()
            .enumerate()
            .map(|(k, def)| Volume {
                svc: Service::new(&def.service, Rng::new(seed, Stream::Device, k as u64)),
                pm: pm.as_ref().and_then(|p| p.index_of(k as u32)),
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
            pm,
            write_same: match cfg.params.write_same {
                params::Auto::Auto => cfg.cp_level >= (5, 3),
                params::Auto::Yes => true,
                params::Auto::No => false,
            },
        }
    }

    /// Does CMS FORMAT of an EDEV minidisk use SCSI WRITE SAME?
    pub fn write_same(&self) -> bool {
        self.write_same
    }

    /// A read request of `pages` pages to volume `vol` for `origin`, queued
    /// now by `cx.cpu`; not yet submitted. (The constant model needs only the
    /// size; the path model takes the request's shape from [`Io::alloc_req`].)
    #[inline]
    pub fn alloc(&mut self, cx: &Cx, vol: u32, pages: u32, origin: Origin) -> u32 {
        self.alloc_req(cx, vol, Request::read(pages, Kind::Minidisk), origin)
    }

    /// A request `rq` to volume `vol` for `origin`, queued now by `cx.cpu`;
    /// not yet submitted.
    #[inline]
    pub fn alloc_req(&mut self, cx: &Cx, vol: u32, rq: Request, origin: Origin) -> u32 {
        let r = Req {
            origin,
            vol,
            pages: rq.pages,
            queued_at: cx.now(),
            cpu: cx.cpu,
            free: false,
            bytes: rq.bytes.max(1),
            span: rq.span.max(rq.bytes).max(1),
            write: rq.write,
            seq: rq.seq,
            kind: rq.kind,
            expo: NONE,
            link: 0,
            held_at: 0,
            phase: 0,
            miss: 0,
            mark: 0,
            pend: 0,
            disc: 0,
            conn: 0,
            cmr: 0,
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
        if v.pm.is_some() {
            return self.pm_submit(cx, r);
        }
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

    /// Handle one of the component's events; a completed request comes back
    /// as a [`Done`] for its origin's owner.
    #[inline]
    pub fn handle(&mut self, cx: &mut Cx, ev: Ev) -> Option<Done> {
        match ev {
            Ev::Done { vol } => Some(self.done(cx, vol)),
            Ev::Step { req } => self.pm_step(cx, req),
            Ev::Arm { op } => {
                self.pm_arm(cx, op);
                None
            }
            Ev::Da { op } => {
                self.pm_da(cx, op);
                None
            }
        }
    }

    /// The I/O on `vol` completed ([`Ev::Done`], constant model): the
    /// exposure is free.
    #[inline]
    pub fn done(&mut self, cx: &Cx, vol: u32) -> Done {
        let v = &mut self.vols[vol as usize];
        let r = v.busy.take().expect("I/O done on an idle volume");
        let q = &self.reqs[r as usize];
        let resp = cx.now() - q.queued_at;
        v.c.resp_ns += resp;
        v.smooth(resp);
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

    /// Start the next queued request on `vol` if an exposure may take it.
    #[inline]
    pub fn start_next(&mut self, cx: &mut Cx, vol: u32) {
        let v = &mut self.vols[vol as usize];
        if v.pm.is_some() {
            self.pm_start_queued(cx, vol);
            return;
        }
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
        let running = match (v.pm, &self.pm) {
            (Some(p), Some(pm)) => pm.running(p),
            _ => v.busy.is_some() as u32,
        };
        Load {
            smoothed_ms: v.smoothed_ms,
            in_flight: v.queue.len() as u32 + running,
        }
    }

    /// CP CPU an I/O of kind `kind` moving `pages` pages to `vol` costs beyond
    /// the base costs every I/O is charged (`cp_costs.io_us`, `page_io_us`):
    /// zero for ECKD and FBA, the SCSI path for an EDEV.
    #[inline]
    pub fn cp_extra(&self, vol: u32, kind: Kind, pages: u32) -> Ns {
        match (self.vols[vol as usize].pm, &self.pm) {
            (Some(p), Some(pm)) => pm.cp_extra(p, kind, pages),
            _ => 0,
        }
    }

    /// Caching on or off for volume `vol`, or for every volume of the
    /// storage server named `server` (pinned data, a cache failure).
    pub fn set_cache(&mut self, vol: Option<u32>, server: Option<&str>, on: bool) {
        if let Some(pm) = &mut self.pm {
            let p = vol.and_then(|v| self.vols[v as usize].pm);
            pm.set_cache(p, server, on);
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

    /// Volume `vol`'s base subchannel sample.
    pub fn device(&self, vol: u32) -> DevSample<'_> {
        let v = &self.vols[vol as usize];
        let (busy, chpids, cu, cache, cached) = match (v.pm, &self.pm) {
            (Some(p), Some(pm)) => {
                let (chp, cu, cache) = pm.vol_info(p);
                (pm.running_base(p) > 0, chp, cu, Some(cache), pm.cached(p))
            }
            _ => (v.busy.is_some(), &[][..], NONE, None, false),
        };
        DevSample {
            index: vol,
            devno: v.def.devno,
            def: &v.def,
            alias_of: None,
            hyperpav: false,
            pool: 0,
            c: v.c,
            queued: v.queue.len() as u32,
            busy,
            smoothed_ms: v.smoothed_ms,
            chpids,
            cu,
            cache,
            cached,
            base_vol: vol,
        }
    }

    /// Every subchannel's sample: the volumes in order, then the aliases.
    pub fn devices(&self) -> impl Iterator<Item = DevSample<'_>> + '_ {
        let n = self.vols.len() as u32;
        let aliases = self.pm.as_ref().map_or(0, |p| p.alias_count());
        (0..n)
            .map(|k| self.device(k))
            .chain((0..aliases).map(move |a| self.alias_sample(n, a)))
    }

    fn alias_sample(&self, nvols: u32, a: u32) -> DevSample<'_> {
        let pm = self
            .pm
            .as_ref()
            .expect("aliases exist only in the path model");
        let s = pm.alias(a);
        let v = &self.vols[s.vol as usize];
        let (chpids, cu, _) = pm.vol_info(v.pm.expect("a path volume"));
        DevSample {
            index: nvols + a,
            devno: s.devno,
            def: &v.def,
            alias_of: (!s.hyperpav).then_some(v.def.devno),
            hyperpav: s.hyperpav,
            pool: s.pool,
            c: s.c,
            queued: 0,
            busy: s.busy,
            smoothed_ms: 0.0,
            chpids,
            cu,
            cache: None,
            cached: false,
            base_vol: s.vol,
        }
    }

    /// The channel paths (path model), in CHPID order.
    pub fn chpids(&self) -> impl Iterator<Item = ChpSample> + '_ {
        self.pm.iter().flat_map(|p| p.chpids())
    }

    /// The logical control units (path model).
    pub fn control_units(&self) -> impl Iterator<Item = CuSample<'_>> + '_ {
        self.pm.iter().flat_map(|p| p.control_units())
    }

    /// The ranks (path model; for tests and `ZTWIN_DEBUG`, no z/VM record
    /// carries them).
    pub fn ranks(&self) -> impl Iterator<Item = RankSample<'_>> + '_ {
        self.pm.iter().flat_map(|p| p.ranks())
    }

    /// Path-model totals (for tests and `ZTWIN_DEBUG`).
    pub fn path_counters(&self) -> PathCounters {
        self.pm.as_ref().map(|p| p.counters()).unwrap_or_default()
    }

    /// SSCHs issued by each logical CPU (cumulative).
    pub fn ssch_by_cpu(&self) -> &[u64] {
        &self.ssch_by_cpu
    }

    /// High-frequency sampling: each volume's queue length and each
    /// subchannel's busy state.
    pub fn hf_tick(&mut self) {
        for v in &mut self.vols {
            v.c.hf_count += 1;
            v.c.hf_queue += v.queue.len() as u64;
            let busy = match (v.pm, &self.pm) {
                (Some(p), Some(pm)) => pm.running_base(p) > 0,
                _ => v.busy.is_some(),
            };
            v.c.hf_busy += busy as u64;
        }
        if let Some(pm) = &mut self.pm {
            pm.hf_tick();
        }
    }

    /// Requests in the arena and how many are free (`ZTWIN_DEBUG`).
    pub fn arena(&self) -> (usize, usize) {
        (self.reqs.len(), self.free.len())
    }

    /// Consistency: a request waits only while no exposure may take it, runs
    /// or waits on its own volume only, and is in exactly one place (running,
    /// queued, or free; or held by its issuer between `alloc` and `submit`,
    /// or between `done` and `release`); the path model's resources agree
    /// with the requests and operations that hold them.
    #[cfg(any(test, debug_assertions))]
    pub fn check(&self) {
        let mut seen = vec![false; self.reqs.len()];
        let mut mark = |r: u32, what: &str| {
            assert!(!seen[r as usize], "request {r} is in two places ({what})");
            seen[r as usize] = true;
        };
        for (k, v) in self.vols.iter().enumerate() {
            if v.pm.is_none() {
                assert!(
                    v.busy.is_some() || v.queue.is_empty(),
                    "volume {k}: requests wait behind an idle exposure"
                );
            }
            for &r in v.busy.iter().chain(v.queue.iter()) {
                let q = &self.reqs[r as usize];
                assert_eq!(q.vol, k as u32, "request {r} on the wrong volume");
                assert!(!q.free, "free request {r} on volume {k}");
                mark(r, "volume");
            }
        }
        if let Some(pm) = &self.pm {
            let _ = pm;
            for r in self.pm_running() {
                let q = &self.reqs[r as usize];
                assert!(!q.free, "free request {r} runs in the path model");
                mark(r, "path model");
            }
            self.pm_check();
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

impl Volume {
    #[inline]
    fn smooth(&mut self, resp: Ns) {
        let ms = resp as f64 / MS as f64;
        self.smoothed_ms = if self.smoothed_ms == 0.0 {
            ms
        } else {
            0.8 * self.smoothed_ms + 0.2 * ms
        };
    }
}
