//! The path model: channel paths, switches, storage servers (host adapters,
//! cache and NVS, device adapters, ranks), logical control units with their
//! HyperPAV pools, and each path-model volume's exposures; and the state
//! machine a request goes through on them.
//!
//! A request, once CP has given it an exposure (base, PAV alias, a HyperPAV
//! alias borrowed from its LCU's pool, or one of an EDEV's overlapped slots):
//!
//! 1. waits for a path of its volume's path group: a CHPID that is free and a
//!    host adapter with a free transfer slot (both held together, never one
//!    while waiting for the other); the wait is *pending* time;
//! 2. holds the path for the CMR baseline and the switch hop (*pending*), then
//!    * on a hit (a random read found in cache, a sequential read already
//!      prestaged, a write with room in NVS) for the channel overhead and the
//!      bytes at the path's rate (*connect*), and completes;
//!    * on a miss for half the channel overhead (the command, *connect*), then
//!      disconnects (3);
//! 3. disconnected (*disconnect* time): a random read miss is staged by the
//!    volume's rank (a disk arm: positioning plus the staged bytes at media
//!    rate, then the device adapter); a sequential read waits for the
//!    volume's prestaging; a write waits for NVS space that destaging frees;
//!    with caching off, the disk is accessed directly (positioning only: the
//!    data then moves at media speed while connected);
//! 4. reconnects: waits for a path again (counted in *disconnect*), holds it
//!    for the rest of the overhead and the bytes (*connect*; at the slower of
//!    path and media rate when caching is off), and completes.
//!
//! Ranks run background work when an arm is free: destaging (random writes
//! cost 4 disk operations on RAID-5 and 2 on RAID-10, sequential ones a full
//! stripe), and prestaging ahead of sequential readers. Destaging goes first
//! while NVS is more than half full or writes wait for it.

use super::params::{self, ChpidType, DevKind, EdevPaging, Raid};
use super::{Cx, DevCounters, Ev, Io, Kind, Submitted, VolumeDef, NONE};
use crate::core::rng::{Rng, Stream};
use crate::core::units::{Ns, MS, US};
use std::collections::{HashMap, VecDeque};

// Request phases.
const P_QUEUED: u8 = 0;
/// Started, waiting for a path (pending).
const P_PATH: u8 = 1;
/// Holding the path for the command; a disconnect follows.
const P_CMD: u8 = 2;
/// Holding the path to the end of the I/O.
const P_HOLD: u8 = 3;
/// Disconnected.
const P_BACK: u8 = 4;
/// Waiting for a path to reconnect (disconnect).
const P_RECON: u8 = 5;

// What a disconnected request waits for.
const MISS_STAGE: u8 = 1;
const MISS_PRESTAGE: u8 = 2;
const MISS_NVS: u8 = 3;
const MISS_SYNC: u8 = 4;

// Back-end operations.
const OP_STAGE: u8 = 1;
const OP_SYNC: u8 = 2;
const OP_DESTAGE_RAND: u8 = 3;
const OP_DESTAGE_SEQ: u8 = 4;
const OP_PRESTAGE: u8 = 5;

/// The exposure value of a request running on its volume's base.
const BASE: u32 = u32::MAX - 1;

#[inline]
fn ms(x: f64) -> Ns {
    (x * MS as f64).round() as Ns
}

/// ns per byte at `mb_s` (10^6 bytes per second).
#[inline]
fn npb(mb_s: f64) -> f64 {
    1_000.0 / mb_s
}

/// Cache counters of one volume (the control unit's view of it), cumulative.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheCounters {
    /// Random reads, and those found in cache.
    pub reads: u64,
    pub read_hits: u64,
    /// Sequential reads, and those already prestaged.
    pub seq_reads: u64,
    pub seq_hits: u64,
    /// Writes, and those taken into NVS at once (DASD fast write).
    pub writes: u64,
    pub write_hits: u64,
    /// Writes that waited for NVS space (fast write delayed).
    pub nvs_full: u64,
    /// I/Os that bypassed the cache (caching off: pinned data, failure).
    pub bypass: u64,
    /// Tracks staged for read misses; operations prestaged.
    pub stages: u64,
    pub prestages: u64,
}

/// A channel path's counters for the monitor.
#[derive(Clone, Copy, Debug)]
pub struct ChpSample {
    pub id: u8,
    pub kind: ChpidType,
    /// Link rate, MB/s.
    pub mb_s: f64,
    /// Transfers it carries at once (its busy share is `busy_ns` over
    /// `slots` times the elapsed time).
    pub slots: u32,
    /// Time held by I/Os (summed over its transfers), I/Os carried, bytes
    /// moved (cumulative).
    pub busy_ns: u64,
    pub ios: u64,
    pub bytes: u64,
}

/// A logical control unit for the monitor.
#[derive(Clone, Copy, Debug)]
pub struct CuSample<'a> {
    pub index: u32,
    pub name: &'a str,
    pub cu_type: &'a str,
    pub server_model: &'a str,
    pub chpids: &'a [u8],
    /// HyperPAV pool: aliases, bases using it, free now, and the tries to
    /// get an alias and the tries that found none (cumulative).
    pub hyper_aliases: u32,
    pub bases: u32,
    pub free: u32,
    pub tries: u64,
    pub fails: u64,
    /// Fewest and most aliases free seen since the start.
    pub min_free: u32,
    pub max_free: u32,
}

/// A rank's counters (tests, `ZTWIN_DEBUG`).
#[derive(Clone, Copy, Debug)]
pub struct RankSample<'a> {
    pub name: &'a str,
    pub arms: u32,
    /// Arm-time used (sum over arms), and operations by kind.
    pub busy_ns: u64,
    pub stages: u64,
    pub syncs: u64,
    pub destages: u64,
    pub prestages: u64,
    /// Device-adapter time and bytes of its adapter.
    pub da: u32,
}

/// Totals of the path model (tests, `ZTWIN_DEBUG`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathCounters {
    pub started: u64,
    pub completed: u64,
    pub queued: u64,
    /// Of which aliases carried (static and HyperPAV).
    pub on_alias: u64,
    pub ops: u64,
    /// Most HyperPAV aliases bound at once in any pool.
    pub max_bound: u32,
    /// Device-adapter busy time, summed.
    pub da_busy_ns: u64,
    /// Host-adapter transfers and time held, summed over adapters.
    pub ha_ios: u64,
    pub ha_busy_ns: u64,
    /// Reconnections missed for want of a free path (RPS misses), each a
    /// revolution lost.
    pub rps_misses: u64,
}

#[derive(Clone, Copy, Debug)]
struct Link {
    chp: u16,
    ha: u16,
    /// ns per byte at the slowest of CHPID, switch port and adapter.
    npb: f64,
    /// Switch hop, ns.
    lat: Ns,
    /// Channel overhead per I/O in command mode, ns.
    ovh: Ns,
    fcp: bool,
}

struct Group {
    links: Vec<Link>,
    /// Requests waiting for a path, in arrival order.
    wait: VecDeque<u32>,
    rr: usize,
}

struct Chp {
    id: u8,
    kind: ChpidType,
    mb_s: f64,
    /// Transfers it carries at once: ESCON one (circuit-switched); FICON and
    /// FCP multiplex as many as its rate holds at the rate of its fastest
    /// path (its link is shared, not held).
    slots: u32,
    active: u32,
    groups: Vec<u32>,
    busy_ns: u64,
    ios: u64,
    bytes: u64,
}

struct Ha {
    conc: u32,
    active: u32,
    groups: Vec<u32>,
    ios: u64,
    busy_ns: u64,
}

struct Da {
    npb: f64,
    busy: bool,
    queue: VecDeque<u32>,
    since: Ns,
    busy_ns: u64,
}

struct Rank {
    name: String,
    server: u32,
    da: u32,
    arms: u32,
    active: u32,
    /// Mean random positioning time; each access draws its own, uniform
    /// between 0 and twice the mean for a disk (seek distance and rotational
    /// latency vary), between half and one and a half times for flash [E].
    pos: Ns,
    flash: bool,
    rng: Rng,
    seq_pos: Ns,
    /// One revolution (RPS reconnection retry), 0: no RPS.
    rot: Ns,
    npb: f64,
    raid: Raid,
    disks: u32,
    /// Foreground operations (stages, synchronous accesses, prestages).
    fg: VecDeque<u32>,
    /// Dirty data in NVS to destage: random writes (count, bytes) and
    /// sequential bytes.
    rand_n: u64,
    rand_bytes: u64,
    seq_bytes: u64,
    busy_ns: u64,
    stages: u64,
    syncs: u64,
    destages: u64,
    prestages: u64,
}

struct Server {
    name: String,
    model: String,
    cached: bool,
    nvs_total: u64,
    nvs_used: u64,
    nvs_wait: VecDeque<u32>,
    stage: u32,
    destage: u32,
    prestage: u32,
    ahead: u32,
    ranks: Vec<u32>,
    /// Next rank for a volume without one.
    next_rank: usize,
}

struct Lcu {
    name: String,
    cu_type: String,
    server: u32,
    links: Vec<(u16, u16)>,
    chpids: Vec<u8>,
    /// HyperPAV aliases (indexes into `aliases`) and the free ones.
    hyper: Vec<u32>,
    pool: Vec<u32>,
    vols: Vec<u32>,
    /// Requests queued on its volumes.
    queued: u32,
    tries: u64,
    fails: u64,
    min_free: u32,
    max_free: u32,
}

struct Alias {
    devno: u16,
    /// Static: its base volume (path index); HyperPAV: the LCU's first volume
    /// (for the sample) and `pool` set.
    vol: u32,
    hyperpav: bool,
    lcu: u32,
    busy: bool,
    c: DevCounters,
}

/// An alias for the monitor.
pub(super) struct AliasView {
    pub devno: u16,
    /// The volume (Io index) it belongs to or is shown with.
    pub vol: u32,
    pub hyperpav: bool,
    pub pool: u16,
    pub c: DevCounters,
    pub busy: bool,
}

struct PVol {
    /// The volume's index in `Io`.
    vol: u32,
    group: u32,
    lcu: u32,
    server: u32,
    rank: u32,
    kind: DevKind,
    read_hit: f64,
    cached: bool,
    aliases: Vec<u32>,
    base_active: u32,
    /// Requests on the base at once for EDEV direct paging.
    depth: u32,
    chpids: Vec<u8>,
    /// Bytes prestaged and not yet read, prestage operations in flight,
    /// sequential reads waiting for prestaging.
    credit: u64,
    pre_inflight: u32,
    pre_wait: VecDeque<u32>,
    rng: Rng,
    cache: CacheCounters,
}

#[derive(Clone, Copy, Debug)]
struct Op {
    kind: u8,
    rank: u32,
    /// The path volume (prestage), the request (stage, sync) or NONE.
    vol: u32,
    req: u32,
    bytes: u32,
    t0: Ns,
    free: bool,
}

pub(super) struct PathModel {
    vols: Vec<PVol>,
    /// Io volume index -> path volume index (NONE: constant model).
    of_vol: Vec<u32>,
    aliases: Vec<Alias>,
    chp: Vec<Chp>,
    has: Vec<Ha>,
    das: Vec<Da>,
    ranks: Vec<Rank>,
    servers: Vec<Server>,
    lcus: Vec<Lcu>,
    groups: Vec<Group>,
    ops: Vec<Op>,
    op_free: Vec<u32>,
    cmr: Ns,
    transport_mode: bool,
    transport_factor: f64,
    paging_aliases: bool,
    mdc_defect: bool,
    edev_direct: bool,
    edev_depth: u32,
    edev_io_ns: f64,
    edev_page_ns: f64,
    direct_factor: f64,
    path_factor: f64,
    c: PathCounters,
}

impl PathModel {
    /// Build the resources from `cfg` for the volumes of `defs` that have a
    /// path (validated: every name resolves).
    pub fn new(defs: &[VolumeDef], cfg: &super::IoConfig, seed: u64) -> PathModel {
        let p = &cfg.params;
        let level53 = cfg.cp_level >= (5, 3);
        let mut pm = PathModel {
            vols: Vec::new(),
            of_vol: vec![NONE; defs.len()],
            aliases: Vec::new(),
            chp: Vec::new(),
            has: Vec::new(),
            das: Vec::new(),
            ranks: Vec::new(),
            servers: Vec::new(),
            lcus: Vec::new(),
            groups: Vec::new(),
            ops: Vec::new(),
            op_free: Vec::new(),
            cmr: ms(p.cmr_ms),
            transport_mode: p.transport_mode,
            transport_factor: p.transport_factor,
            paging_aliases: p.paging_aliases,
            mdc_defect: p.mdc_pav_defect,
            edev_direct: match p.edev_paging {
                EdevPaging::Auto => level53,
                EdevPaging::Fba => false,
                EdevPaging::Direct => true,
            },
            edev_depth: p.edev_paging_depth,
            edev_io_ns: p.edev_io_us * US as f64,
            edev_page_ns: p.edev_page_us * US as f64,
            direct_factor: p.scsi_direct_factor,
            path_factor: if level53 { p.scsi_path_factor } else { 1.0 },
            c: PathCounters::default(),
        };
        // Channel paths, in definition order.
        let mut chp_of: HashMap<u8, usize> = HashMap::new();
        let mut chp_def: Vec<&params::ChpidDef> = Vec::new();
        for (id, i) in params::expand_chpids(&cfg.chpids) {
            let d = &cfg.chpids[i];
            chp_of.insert(id, pm.chp.len());
            chp_def.push(d);
            pm.chp.push(Chp {
                id,
                kind: d.kind,
                mb_s: d.rate_mb_s(),
                slots: 1,
                active: 0,
                groups: Vec::new(),
                busy_ns: 0,
                ios: 0,
                bytes: 0,
            });
        }
        // Storage servers: host adapters, device adapters, ranks.
        let mut server_of: HashMap<&str, usize> = HashMap::new();
        let mut ha_base: Vec<usize> = Vec::new();
        let mut rank_of: HashMap<String, Vec<u32>> = HashMap::new();
        for (si, sv) in cfg.servers.iter().enumerate() {
            server_of.insert(sv.name.as_str(), si);
            ha_base.push(pm.has.len());
            for _ in 0..sv.host_adapters {
                pm.has.push(Ha {
                    conc: sv.ha_concurrency,
                    active: 0,
                    groups: Vec::new(),
                    ios: 0,
                    busy_ns: 0,
                });
            }
            let da0 = pm.das.len() as u32;
            for _ in 0..sv.device_adapters {
                pm.das.push(Da {
                    npb: npb(sv.da_mb_s),
                    busy: false,
                    queue: VecDeque::new(),
                    since: 0,
                    busy_ns: 0,
                });
            }
            let mut ranks = Vec::new();
            let mut k = 0u32;
            for r in &sv.rank {
                let mut these = Vec::new();
                for j in 0..r.count {
                    let da = r.device_adapter.unwrap_or(k % sv.device_adapters);
                    k += 1;
                    let name = if r.count == 1 {
                        r.name.clone()
                    } else {
                        format!("{}.{}", r.name, j + 1)
                    };
                    these.push(pm.ranks.len() as u32);
                    ranks.push(pm.ranks.len() as u32);
                    pm.ranks.push(Rank {
                        name,
                        server: si as u32,
                        da: da0 + da,
                        arms: r.disks,
                        active: 0,
                        pos: ms(r.position()),
                        flash: r.media == params::Media::Flash,
                        rng: Rng::new(
                            seed,
                            Stream::System,
                            0x5241_4e4b_0000 + pm.ranks.len() as u64,
                        ),
                        seq_pos: ms(r.seq_position()),
                        rot: r.rotation_ms.map_or(0, ms),
                        npb: npb(r.media_rate()),
                        raid: r.raid,
                        disks: r.disks,
                        fg: VecDeque::new(),
                        rand_n: 0,
                        rand_bytes: 0,
                        seq_bytes: 0,
                        busy_ns: 0,
                        stages: 0,
                        syncs: 0,
                        destages: 0,
                        prestages: 0,
                    });
                }
                if r.count > 1 {
                    for (j, &rk) in these.iter().enumerate() {
                        rank_of.insert(format!("{}.{}", r.name, j + 1), vec![rk]);
                    }
                }
                rank_of.insert(r.name.clone(), these);
            }
            pm.servers.push(Server {
                name: sv.name.clone(),
                model: sv.model.clone(),
                cached: true,
                nvs_total: sv.nvs.0,
                nvs_used: 0,
                nvs_wait: VecDeque::new(),
                stage: sv.stage.0 as u32,
                destage: sv.destage.0 as u32,
                prestage: sv.prestage.0 as u32,
                ahead: sv.prestage_ahead,
                ranks,
                next_rank: 0,
            });
        }
        // A link: CHPID `c` to host adapter `h` (absolute) of server `si`.
        let link = |c: usize, h: usize, si: usize| -> Link {
            let d = chp_def[c];
            let mut rate = d.rate_mb_s().min(cfg.servers[si].ha_mb_s);
            let mut lat = 0;
            if let Some(w) = &d.switch {
                let sw = cfg
                    .switches
                    .iter()
                    .find(|s| &s.name == w)
                    .expect("validated");
                rate = rate.min(sw.port_mb_s);
                lat = (sw.latency_us * US as f64).round() as Ns;
            }
            Link {
                chp: c as u16,
                ha: h as u16,
                npb: npb(rate),
                lat,
                ovh: ms(d.overhead()),
                fcp: d.kind == ChpidType::Fcp,
            }
        };
        // Logical control units.
        let mut lcu_of: HashMap<&str, usize> = HashMap::new();
        for cu in &cfg.control_units {
            let si = server_of[cu.server.as_str()];
            let nha = cfg.servers[si].host_adapters as usize;
            let mut links = Vec::new();
            let mut ids = Vec::new();
            for (k, c) in cu.chpids.iter().enumerate() {
                let id = params::parse_chpid(c).expect("validated");
                let h = cu.host_adapters.get(k).map_or(k % nha, |&h| h as usize);
                links.push((chp_of[&id] as u16, (ha_base[si] + h) as u16));
                ids.push(id);
            }
            lcu_of.insert(cu.name.as_str(), pm.lcus.len());
            pm.lcus.push(Lcu {
                name: cu.name.clone(),
                cu_type: cu.cu_type.clone(),
                server: si as u32,
                links,
                chpids: ids,
                hyper: Vec::new(),
                pool: Vec::new(),
                vols: Vec::new(),
                queued: 0,
                tries: 0,
                fails: 0,
                min_free: 0,
                max_free: 0,
            });
        }
        // Volumes.
        let mut group_of: HashMap<Vec<(u16, u16)>, u32> = HashMap::new();
        let mut rank_turn: HashMap<String, usize> = HashMap::new();
        for (k, d) in defs.iter().enumerate() {
            let Some(path) = &d.path else { continue };
            let (lcu, si, pairs) = match &path.control_unit {
                Some(c) => {
                    let li = lcu_of[c.as_str()];
                    let l = &pm.lcus[li];
                    let mut pairs = l.links.clone();
                    if !path.chpids.is_empty() {
                        let want: Vec<u8> = path
                            .chpids
                            .iter()
                            .map(|c| params::parse_chpid(c).expect("validated"))
                            .collect();
                        pairs.retain(|&(c, _)| want.contains(&pm.chp[c as usize].id));
                    }
                    (li as u32, l.server as usize, pairs)
                }
                None => {
                    let si = server_of[path.server.as_deref().expect("validated")];
                    let nha = cfg.servers[si].host_adapters as usize;
                    let pairs = path
                        .chpids
                        .iter()
                        .enumerate()
                        .map(|(j, c)| {
                            let id = params::parse_chpid(c).expect("validated");
                            (chp_of[&id] as u16, (ha_base[si] + j % nha) as u16)
                        })
                        .collect();
                    (NONE, si, pairs)
                }
            };
            let g = match group_of.get(&pairs) {
                Some(&g) => g,
                None => {
                    let g = pm.groups.len() as u32;
                    let links = pairs
                        .iter()
                        .map(|&(c, h)| link(c as usize, h as usize, si))
                        .collect();
                    for &(c, h) in &pairs {
                        pm.chp[c as usize].groups.push(g);
                        pm.has[h as usize].groups.push(g);
                    }
                    pm.groups.push(Group {
                        links,
                        wait: VecDeque::new(),
                        rr: 0,
                    });
                    group_of.insert(pairs.clone(), g);
                    g
                }
            };
            let sv = &mut pm.servers[si];
            let rank = match &path.rank {
                Some(r) => {
                    let list = &rank_of[r];
                    let t = rank_turn.entry(r.clone()).or_insert(0);
                    let rk = list[*t % list.len()];
                    *t += 1;
                    rk
                }
                None => {
                    let rk = sv.ranks[sv.next_rank % sv.ranks.len()];
                    sv.next_rank += 1;
                    rk
                }
            };
            let p = pm.vols.len() as u32;
            pm.of_vol[k] = p;
            if lcu != NONE {
                pm.lcus[lcu as usize].vols.push(p);
            }
            let mut aliases = Vec::new();
            for &a in &d.aliases {
                aliases.push(pm.aliases.len() as u32);
                pm.aliases.push(Alias {
                    devno: a,
                    vol: p,
                    hyperpav: false,
                    lcu,
                    busy: false,
                    c: DevCounters::default(),
                });
            }
            let chpids = pairs.iter().map(|&(c, _)| pm.chp[c as usize].id).collect();
            pm.vols.push(PVol {
                vol: k as u32,
                group: g,
                lcu,
                server: si as u32,
                rank,
                kind: d.kind,
                read_hit: path.read_hit.unwrap_or(cfg.servers[si].read_hit),
                cached: true,
                aliases,
                base_active: 0,
                depth: if d.kind == DevKind::Edev && pm.edev_direct {
                    pm.edev_depth
                } else {
                    1
                },
                chpids,
                credit: 0,
                pre_inflight: 0,
                pre_wait: VecDeque::new(),
                rng: Rng::new(seed, Stream::Device, k as u64),
                cache: CacheCounters::default(),
            });
        }
        // FICON and FCP channels multiplex: as many transfers as their rate
        // holds at the rate of their fastest path.
        let mut slots = vec![u32::MAX; pm.chp.len()];
        for g in &pm.groups {
            for l in &g.links {
                let c = &pm.chp[l.chp as usize];
                if c.kind != ChpidType::Escon {
                    let link = 1_000.0 / l.npb;
                    let k = ((c.mb_s / link) + 1e-9).floor().max(1.0) as u32;
                    slots[l.chp as usize] = slots[l.chp as usize].min(k);
                }
            }
        }
        for (c, k) in pm.chp.iter_mut().zip(slots) {
            c.slots = if k == u32::MAX { 1 } else { k };
        }
        // HyperPAV pools of the LCUs that have volumes.
        for (li, cu) in cfg.control_units.iter().enumerate() {
            if cu.hyperpav_aliases == 0 || pm.lcus[li].vols.is_empty() {
                continue;
            }
            let first = params::parse_devno(cu.alias_address.as_deref().expect("validated"))
                .expect("validated");
            let shown = pm.lcus[li].vols[0];
            for a in 0..cu.hyperpav_aliases {
                let ai = pm.aliases.len() as u32;
                pm.aliases.push(Alias {
                    devno: first + a as u16,
                    vol: shown,
                    hyperpav: true,
                    lcu: li as u32,
                    busy: false,
                    c: DevCounters::default(),
                });
                pm.lcus[li].hyper.push(ai);
            }
            let l = &mut pm.lcus[li];
            // Aliases leave the pool from its end: the lowest number first.
            l.pool = l.hyper.iter().rev().copied().collect();
            l.min_free = l.pool.len() as u32;
            l.max_free = l.pool.len() as u32;
        }
        pm
    }

    /// The path index of Io volume `vol`, if it has a path.
    pub fn index_of(&self, vol: u32) -> Option<u32> {
        let p = self.of_vol[vol as usize];
        (p != NONE).then_some(p)
    }

    /// Requests running on path volume `p` (any exposure).
    pub fn running(&self, p: u32) -> u32 {
        let v = &self.vols[p as usize];
        let aliases = v
            .aliases
            .iter()
            .filter(|&&a| self.aliases[a as usize].busy)
            .count() as u32;
        let hyper = if v.lcu == NONE {
            0
        } else {
            self.lcus[v.lcu as usize]
                .hyper
                .iter()
                .filter(|&&a| self.aliases[a as usize].busy && self.aliases[a as usize].vol == p)
                .count() as u32
        };
        v.base_active + aliases + hyper
    }

    /// Requests running on the base subchannel of path volume `p`.
    pub fn running_base(&self, p: u32) -> u32 {
        self.vols[p as usize].base_active
    }

    pub fn vol_info(&self, p: u32) -> (&[u8], u32, CacheCounters) {
        let v = &self.vols[p as usize];
        (&v.chpids, v.lcu, v.cache)
    }

    /// Does the storage server cache path volume `p` now?
    pub fn cached(&self, p: u32) -> bool {
        let v = &self.vols[p as usize];
        v.cached && self.servers[v.server as usize].cached
    }

    pub fn alias_count(&self) -> u32 {
        self.aliases.len() as u32
    }

    pub fn alias(&self, a: u32) -> AliasView {
        let s = &self.aliases[a as usize];
        AliasView {
            devno: s.devno,
            vol: self.vols[s.vol as usize].vol,
            hyperpav: s.hyperpav,
            pool: if s.hyperpav { s.lcu as u16 + 1 } else { 0 },
            c: s.c,
            busy: s.busy,
        }
    }

    pub fn chpids(&self) -> impl Iterator<Item = ChpSample> + '_ {
        let mut order: Vec<usize> = (0..self.chp.len()).collect();
        order.sort_by_key(|&i| self.chp[i].id);
        order.into_iter().map(|i| {
            let c = &self.chp[i];
            ChpSample {
                id: c.id,
                kind: c.kind,
                mb_s: c.mb_s,
                slots: c.slots,
                busy_ns: c.busy_ns,
                ios: c.ios,
                bytes: c.bytes,
            }
        })
    }

    pub fn control_units(&self) -> impl Iterator<Item = CuSample<'_>> + '_ {
        self.lcus.iter().enumerate().map(|(i, l)| CuSample {
            index: i as u32,
            name: &l.name,
            cu_type: &l.cu_type,
            server_model: &self.servers[l.server as usize].model,
            chpids: &l.chpids,
            hyper_aliases: l.hyper.len() as u32,
            bases: l.vols.len() as u32,
            free: l.pool.len() as u32,
            tries: l.tries,
            fails: l.fails,
            min_free: l.min_free,
            max_free: l.max_free,
        })
    }

    pub fn ranks(&self) -> impl Iterator<Item = RankSample<'_>> + '_ {
        self.ranks.iter().map(|r| RankSample {
            name: &r.name,
            arms: r.arms,
            busy_ns: r.busy_ns,
            stages: r.stages,
            syncs: r.syncs,
            destages: r.destages,
            prestages: r.prestages,
            da: r.da,
        })
    }

    pub fn counters(&self) -> PathCounters {
        let mut c = self.c;
        c.da_busy_ns = self.das.iter().map(|d| d.busy_ns).sum();
        c.ha_ios = self.has.iter().map(|h| h.ios).sum();
        c.ha_busy_ns = self.has.iter().map(|h| h.busy_ns).sum();
        c
    }

    /// CP CPU beyond the base costs for an I/O on path volume `p`.
    pub fn cp_extra(&self, p: u32, kind: Kind, pages: u32) -> Ns {
        let v = &self.vols[p as usize];
        if v.kind != DevKind::Edev {
            return 0;
        }
        let mut t = self.edev_io_ns + self.edev_page_ns * pages as f64;
        if kind == Kind::Paging && self.edev_direct {
            t *= self.direct_factor;
        }
        (t * self.path_factor).round() as Ns
    }

    pub fn set_cache(&mut self, p: Option<u32>, server: Option<&str>, on: bool) {
        if let Some(p) = p {
            self.vols[p as usize].cached = on;
        }
        if let Some(name) = server {
            for s in &mut self.servers {
                if s.name == name {
                    s.cached = on;
                }
            }
        }
    }

    pub fn hf_tick(&mut self) {
        for a in &mut self.aliases {
            a.c.hf_count += 1;
            a.c.hf_busy += a.busy as u64;
        }
    }

    /// May request `kind` use aliases of its volume?
    #[inline]
    fn pavable(&self, kind: Kind) -> bool {
        match kind {
            Kind::Minidisk => true,
            Kind::Mdc => !self.mdc_defect,
            Kind::Paging => self.paging_aliases,
            Kind::Dedicated { .. } | Kind::Spool => false,
        }
    }

    /// The exposure a request of `kind` on path volume `p` may start on now
    /// (`take`: and take it).
    fn expo_for(&mut self, p: u32, kind: Kind) -> Option<u32> {
        let pav = self.pavable(kind);
        let v = &mut self.vols[p as usize];
        match kind {
            Kind::Dedicated { expo: 0 } => {
                if v.base_active == 0 {
                    v.base_active = 1;
                    return Some(BASE);
                }
                return None;
            }
            Kind::Dedicated { expo } => {
                let a = *v.aliases.get(expo as usize - 1)?;
                if self.aliases[a as usize].busy {
                    return None;
                }
                self.aliases[a as usize].busy = true;
                return Some(a);
            }
            _ => {}
        }
        let cap = if kind == Kind::Paging { v.depth } else { 1 };
        if v.base_active < cap {
            v.base_active += 1;
            return Some(BASE);
        }
        if !pav {
            return None;
        }
        for &a in &v.aliases {
            if !self.aliases[a as usize].busy {
                self.aliases[a as usize].busy = true;
                return Some(a);
            }
        }
        if v.lcu == NONE {
            return None;
        }
        let l = &mut self.lcus[v.lcu as usize];
        if l.hyper.is_empty() {
            return None;
        }
        l.tries += 1;
        let Some(a) = l.pool.pop() else {
            l.fails += 1;
            return None;
        };
        l.min_free = l.min_free.min(l.pool.len() as u32);
        let bound = (l.hyper.len() - l.pool.len()) as u32;
        self.c.max_bound = self.c.max_bound.max(bound);
        let al = &mut self.aliases[a as usize];
        al.busy = true;
        al.vol = p;
        Some(a)
    }

    /// Give exposure `e` of path volume `p` back.
    fn free_expo(&mut self, p: u32, e: u32) {
        if e == BASE {
            let v = &mut self.vols[p as usize];
            debug_assert!(v.base_active > 0);
            v.base_active -= 1;
            return;
        }
        let a = &mut self.aliases[e as usize];
        debug_assert!(a.busy);
        a.busy = false;
        if a.hyperpav {
            let l = &mut self.lcus[a.lcu as usize];
            l.pool.push(e);
            l.max_free = l.max_free.max(l.pool.len() as u32);
        }
    }

    /// A path of group `g` free now (CHPID and an adapter slot), taken.
    #[inline]
    fn acquire(&mut self, g: u32) -> Option<u16> {
        let gr = &mut self.groups[g as usize];
        let n = gr.links.len();
        for k in 0..n {
            let li = (gr.rr + k) % n;
            let l = gr.links[li];
            let c = &mut self.chp[l.chp as usize];
            let h = &mut self.has[l.ha as usize];
            if c.active < c.slots && h.active < h.conc {
                c.active += 1;
                c.ios += 1;
                h.active += 1;
                h.ios += 1;
                gr.rr = (li + 1) % n;
                return Some(li as u16);
            }
        }
        None
    }

    #[inline]
    fn can_acquire(&self, g: u32) -> bool {
        self.groups[g as usize].links.iter().any(|l| {
            let h = &self.has[l.ha as usize];
            let c = &self.chp[l.chp as usize];
            c.active < c.slots && h.active < h.conc
        })
    }

    /// Release path `li` of group `g`, held for `held` ns.
    #[inline]
    fn release(&mut self, g: u32, li: u16, held: Ns, bytes: u64) -> (u16, u16) {
        let l = self.groups[g as usize].links[li as usize];
        let c = &mut self.chp[l.chp as usize];
        debug_assert!(c.active > 0);
        c.active -= 1;
        c.busy_ns += held;
        c.bytes += bytes;
        let h = &mut self.has[l.ha as usize];
        h.active -= 1;
        h.busy_ns += held;
        (l.chp, l.ha)
    }

    fn new_op(&mut self, kind: u8, rank: u32, vol: u32, req: u32, bytes: u32) -> u32 {
        let op = Op {
            kind,
            rank,
            vol,
            req,
            bytes,
            t0: 0,
            free: false,
        };
        self.c.ops += 1;
        match self.op_free.pop() {
            Some(i) => {
                self.ops[i as usize] = op;
                i
            }
            None => {
                self.ops.push(op);
                (self.ops.len() - 1) as u32
            }
        }
    }

    fn free_op(&mut self, op: u32) {
        self.ops[op as usize].free = true;
        self.op_free.push(op);
    }

    /// Server `s` needs destaging first: writes wait for NVS, or it is more
    /// than half full.
    #[inline]
    fn urgent(&self, s: u32) -> bool {
        let sv = &self.servers[s as usize];
        !sv.nvs_wait.is_empty() || sv.nvs_used * 2 > sv.nvs_total
    }

    /// Start operations on rank `k`'s free arms.
    fn kick_rank(&mut self, cx: &mut Cx, k: u32) {
        loop {
            let r = &self.ranks[k as usize];
            if r.active >= r.arms {
                return;
            }
            let dirty = r.rand_n > 0 || r.seq_bytes > 0;
            let op = if dirty && (r.fg.is_empty() || self.urgent(r.server)) {
                self.destage_op(k)
            } else if let Some(op) = self.ranks[k as usize].fg.pop_front() {
                op
            } else {
                return;
            };
            let t = self.op_time(op);
            let r = &mut self.ranks[k as usize];
            r.active += 1;
            self.ops[op as usize].t0 = cx.now();
            cx.at(t, Ev::Arm { op });
        }
    }

    /// A destage operation for rank `k`'s dirty data (sequential first).
    fn destage_op(&mut self, k: u32) -> u32 {
        let stripe = self.servers[self.ranks[k as usize].server as usize].destage;
        let r = &mut self.ranks[k as usize];
        let (kind, bytes) = if r.seq_bytes > 0 {
            let b = r.seq_bytes.min(stripe as u64);
            r.seq_bytes -= b;
            (OP_DESTAGE_SEQ, b as u32)
        } else {
            let b = r.rand_bytes / r.rand_n;
            r.rand_n -= 1;
            r.rand_bytes -= b;
            (OP_DESTAGE_RAND, b as u32)
        };
        self.new_op(kind, k, NONE, NONE, bytes)
    }

    /// Arm time of operation `op`.
    fn op_time(&mut self, op: u32) -> Ns {
        let o = self.ops[op as usize];
        let r = &mut self.ranks[o.rank as usize];
        let xfer = o.bytes as f64 * r.npb;
        let u = r.rng.f64();
        let pos = r.pos as f64 * if r.flash { 0.5 + u } else { 2.0 * u };
        let t = match o.kind {
            OP_STAGE => pos + xfer,
            OP_SYNC => pos,
            OP_PRESTAGE => r.seq_pos as f64 + xfer,
            OP_DESTAGE_RAND => {
                let ops = match r.raid {
                    Raid::Raid5 => 4.0,
                    Raid::Raid10 => 2.0,
                    Raid::None => 1.0,
                };
                ops * (r.pos as f64 + xfer)
            }
            _ => {
                let f = match r.raid {
                    Raid::Raid5 => r.disks as f64 / (r.disks as f64 - 1.0),
                    Raid::Raid10 => 2.0,
                    Raid::None => 1.0,
                };
                r.seq_pos as f64 + xfer * f
            }
        };
        t.round().max(1.0) as Ns
    }

    /// Keep path volume `p`'s prestaging ahead of its sequential reader.
    fn top_up(&mut self, cx: &mut Cx, p: u32) {
        let v = &self.vols[p as usize];
        let sv = &self.servers[v.server as usize];
        let (unit, ahead, rank) = (sv.prestage as u64, sv.ahead as u64, v.rank);
        let mut issued = false;
        while {
            let v = &self.vols[p as usize];
            v.credit + v.pre_inflight as u64 * unit < ahead * unit
        } {
            let op = self.new_op(OP_PRESTAGE, rank, p, NONE, unit as u32);
            self.ranks[rank as usize].fg.push_back(op);
            let v = &mut self.vols[p as usize];
            v.pre_inflight += 1;
            v.cache.prestages += 1;
            issued = true;
        }
        if issued {
            self.kick_rank(cx, rank);
        }
    }
}

impl Io {
    /// Path-model submit: take an exposure or queue in CP.
    pub(super) fn pm_submit(&mut self, cx: &mut Cx, r: u32) -> Submitted {
        let q = self.reqs[r as usize];
        let pm = self.pm.as_mut().expect("path model");
        let p = self.vols[q.vol as usize].pm.expect("a path volume");
        // Requests already waiting go first.
        let e = if self.vols[q.vol as usize].queue.is_empty() {
            pm.expo_for(p, q.kind)
        } else {
            None
        };
        match e {
            Some(e) => {
                self.pm_start(cx, r, e);
                Submitted::Started
            }
            None => {
                self.vols[q.vol as usize].queue.push_back(r);
                let pm = self.pm.as_mut().unwrap();
                let l = pm.vols[p as usize].lcu;
                if l != NONE {
                    pm.lcus[l as usize].queued += 1;
                }
                pm.c.queued += 1;
                Submitted::Queued
            }
        }
    }

    /// Start request `r` on exposure `e`: the SSCH.
    fn pm_start(&mut self, cx: &mut Cx, r: u32, e: u32) {
        let now = cx.now();
        let q = &mut self.reqs[r as usize];
        q.expo = e;
        q.phase = P_PATH;
        q.mark = now;
        q.pend = 0;
        q.disc = 0;
        q.conn = 0;
        q.cmr = 0;
        q.miss = 0;
        let (vol, cpu) = (q.vol, q.cpu);
        self.ssch_by_cpu[cpu as usize] += 1;
        let pm = self.pm.as_mut().unwrap();
        pm.c.started += 1;
        let p = self.vols[vol as usize].pm.unwrap();
        let has_aliases = !pm.vols[p as usize].aliases.is_empty()
            || (pm.vols[p as usize].lcu != NONE
                && !pm.lcus[pm.vols[p as usize].lcu as usize].hyper.is_empty());
        let kind = self.reqs[r as usize].kind;
        let c = &mut self.vols[vol as usize].c;
        if e == BASE {
            c.ssch += 1;
            if has_aliases && !pm.pavable(kind) && !matches!(kind, Kind::Dedicated { .. }) {
                c.pav_inelig += 1;
            }
        } else {
            c.pav_uses += 1;
            pm.aliases[e as usize].c.ssch += 1;
            pm.c.on_alias += 1;
        }
        self.pm_try_path(cx, r);
    }

    /// Get a path for `r` now, or wait for one in its group's FIFO.
    fn pm_try_path(&mut self, cx: &mut Cx, r: u32) {
        let vol = self.reqs[r as usize].vol;
        let p = self.vols[vol as usize].pm.unwrap();
        let pm = self.pm.as_mut().unwrap();
        let g = pm.vols[p as usize].group;
        let got = if pm.groups[g as usize].wait.is_empty() {
            pm.acquire(g)
        } else {
            None
        };
        match got {
            Some(li) => self.pm_hold(cx, r, li),
            None => pm.groups[g as usize].wait.push_back(r),
        }
    }

    /// `r` got path `li`: decide what the I/O does and hold the path.
    fn pm_hold(&mut self, cx: &mut Cx, r: u32, li: u16) {
        let now = cx.now();
        let q = self.reqs[r as usize];
        let p = self.vols[q.vol as usize].pm.unwrap();
        let pm = self.pm.as_mut().unwrap();
        let g = pm.vols[p as usize].group;
        let l = pm.groups[g as usize].links[li as usize];
        let transport = pm.transport_mode && q.kind == Kind::Paging && !l.fcp;
        let ovh = if transport {
            (l.ovh as f64 * pm.transport_factor).round() as Ns
        } else {
            l.ovh
        };
        let waited = now - q.mark;
        let (phase, d, miss) = if q.phase == P_PATH {
            let lat = l.lat + if l.fcp { 0 } else { pm.cmr };
            let miss = pm.decide(cx, p, &q);
            let qm = &mut self.reqs[r as usize];
            qm.pend += waited + lat;
            qm.cmr += lat;
            if miss == 0 {
                let d = ovh + (q.bytes as f64 * l.npb).round() as Ns;
                qm.conn += d;
                (P_HOLD, lat + d, 0)
            } else {
                let d = ovh / 2;
                qm.conn += d;
                (P_CMD, lat + d, miss)
            }
        } else {
            debug_assert_eq!(q.phase, P_RECON);
            let mut rate = l.npb;
            if q.miss == MISS_SYNC {
                let rk = &pm.ranks[pm.vols[p as usize].rank as usize];
                rate = rate.max(rk.npb);
            }
            let d = ovh - ovh / 2 + (q.bytes as f64 * rate).round() as Ns;
            let qm = &mut self.reqs[r as usize];
            qm.disc += waited;
            qm.conn += d;
            (P_HOLD, d, q.miss)
        };
        let qm = &mut self.reqs[r as usize];
        qm.phase = phase;
        qm.link = li;
        qm.held_at = now;
        qm.miss = miss;
        cx.at(d.max(1), Ev::Step { req: r });
    }

    /// Request `r`'s hold on its path ended.
    pub(super) fn pm_step(&mut self, cx: &mut Cx, r: u32) -> Option<super::Done> {
        let now = cx.now();
        let q = self.reqs[r as usize];
        if q.phase == P_BACK {
            // A revolution after an RPS miss: the sector is back.
            self.pm_reconnect(cx, r);
            return None;
        }
        let p = self.vols[q.vol as usize].pm.unwrap();
        let pm = self.pm.as_mut().unwrap();
        let g = pm.vols[p as usize].group;
        let bytes = if q.phase == P_HOLD { q.bytes as u64 } else { 0 };
        let (c, h) = pm.release(g, q.link, now - q.held_at, bytes);
        let done = match q.phase {
            P_CMD => {
                let qm = &mut self.reqs[r as usize];
                qm.phase = P_BACK;
                qm.mark = now;
                self.pm_backend(cx, r, p);
                None
            }
            P_HOLD => Some(self.pm_complete(cx, r, p)),
            ph => unreachable!("step in phase {ph}"),
        };
        self.pm_serve_paths(cx, c, h);
        done
    }

    /// Waiting requests of the groups using CHPID `c` or adapter `h` take
    /// the paths that are free, oldest wait first.
    fn pm_serve_paths(&mut self, cx: &mut Cx, c: u16, h: u16) {
        loop {
            let pm = self.pm.as_ref().unwrap();
            let mut best: Option<(Ns, u32)> = None;
            let nc = pm.chp[c as usize].groups.len();
            let nh = pm.has[h as usize].groups.len();
            for i in 0..nc + nh {
                let g = if i < nc {
                    pm.chp[c as usize].groups[i]
                } else {
                    pm.has[h as usize].groups[i - nc]
                };
                if let Some(&w) = pm.groups[g as usize].wait.front() {
                    let m = self.reqs[w as usize].mark;
                    if best.is_none_or(|(b, _)| m < b) && pm.can_acquire(g) {
                        best = Some((m, g));
                    }
                }
            }
            let Some((_, g)) = best else { return };
            let pm = self.pm.as_mut().unwrap();
            let w = pm.groups[g as usize].wait.pop_front().unwrap();
            let li = pm.acquire(g).expect("a path was free");
            self.pm_hold(cx, w, li);
        }
    }

    /// `r` disconnected: start what it waits for.
    fn pm_backend(&mut self, cx: &mut Cx, r: u32, p: u32) {
        let q = self.reqs[r as usize];
        let pm = self.pm.as_mut().unwrap();
        let v = &pm.vols[p as usize];
        let (rank, server) = (v.rank, v.server);
        match q.miss {
            MISS_STAGE => {
                let bytes = q.bytes.max(pm.servers[server as usize].stage);
                let op = pm.new_op(OP_STAGE, rank, p, r, bytes);
                pm.ranks[rank as usize].fg.push_back(op);
                pm.kick_rank(cx, rank);
            }
            MISS_SYNC => {
                let op = pm.new_op(OP_SYNC, rank, p, r, q.bytes);
                pm.ranks[rank as usize].fg.push_back(op);
                pm.kick_rank(cx, rank);
            }
            MISS_PRESTAGE => {
                pm.vols[p as usize].pre_wait.push_back(r);
                pm.top_up(cx, p);
            }
            MISS_NVS => {
                pm.servers[server as usize].nvs_wait.push_back(r);
                let ranks = pm.servers[server as usize].ranks.clone();
                for k in ranks {
                    pm.kick_rank(cx, k);
                }
            }
            m => unreachable!("backend for miss {m}"),
        }
    }

    /// Disconnected request `r` reconnects: it waits for a path again. An
    /// uncached access on a disk with rotational position sensing cannot
    /// wait: with no path free when its sector comes round it misses and
    /// tries again a revolution later (an `Ev::Step` in phase `P_BACK`).
    fn pm_reconnect(&mut self, cx: &mut Cx, r: u32) {
        let q = self.reqs[r as usize];
        debug_assert_eq!(q.phase, P_BACK);
        if q.miss == MISS_SYNC {
            let pm = self.pm.as_mut().unwrap();
            let v = &pm.vols[self.vols[q.vol as usize].pm.unwrap() as usize];
            let (g, rot) = (v.group, pm.ranks[v.rank as usize].rot);
            if rot > 0 && !(pm.groups[g as usize].wait.is_empty() && pm.can_acquire(g)) {
                pm.c.rps_misses += 1;
                cx.at(rot, Ev::Step { req: r });
                return;
            }
        }
        let q = &mut self.reqs[r as usize];
        q.disc += cx.now() - q.mark;
        q.phase = P_RECON;
        q.mark = cx.now();
        self.pm_try_path(cx, r);
    }

    /// An operation's disk access ended.
    pub(super) fn pm_arm(&mut self, cx: &mut Cx, op: u32) {
        let pm = self.pm.as_mut().unwrap();
        let o = pm.ops[op as usize];
        let r = &mut pm.ranks[o.rank as usize];
        r.active -= 1;
        r.busy_ns += cx.now() - o.t0;
        match o.kind {
            OP_STAGE => r.stages += 1,
            OP_SYNC => r.syncs += 1,
            OP_PRESTAGE => r.prestages += 1,
            _ => r.destages += 1,
        }
        let da = r.da;
        if o.kind == OP_SYNC {
            pm.free_op(op);
            pm.kick_rank(cx, o.rank);
            self.pm_reconnect(cx, o.req);
            return;
        }
        let d = &mut pm.das[da as usize];
        d.queue.push_back(op);
        if !d.busy {
            pm_da_start(pm, cx, da);
        }
        pm.kick_rank(cx, o.rank);
    }

    /// An operation's device-adapter transfer ended.
    pub(super) fn pm_da(&mut self, cx: &mut Cx, op: u32) {
        let pm = self.pm.as_mut().unwrap();
        let o = pm.ops[op as usize];
        let da = pm.ranks[o.rank as usize].da;
        let d = &mut pm.das[da as usize];
        d.busy = false;
        d.busy_ns += cx.now() - d.since;
        pm.free_op(op);
        if !pm.das[da as usize].queue.is_empty() {
            pm_da_start(pm, cx, da);
        }
        match o.kind {
            OP_STAGE => {
                pm.vols[o.vol as usize].cache.stages += 1;
                self.pm_reconnect(cx, o.req);
            }
            OP_PRESTAGE => {
                let p = o.vol;
                let v = &mut pm.vols[p as usize];
                v.credit += o.bytes as u64;
                v.pre_inflight -= 1;
                let mut woken: Vec<u32> = Vec::new();
                while let Some(&w) = v.pre_wait.front() {
                    let b = self.reqs[w as usize].bytes as u64;
                    if v.credit < b {
                        break;
                    }
                    v.credit -= b;
                    v.pre_wait.pop_front();
                    woken.push(w);
                }
                pm.top_up(cx, p);
                for w in woken {
                    self.pm_reconnect(cx, w);
                }
            }
            _ => {
                let s = pm.ranks[o.rank as usize].server;
                pm.servers[s as usize].nvs_used -= o.bytes as u64;
                let mut woken: Vec<u32> = Vec::new();
                loop {
                    let sv = &pm.servers[s as usize];
                    let Some(&w) = sv.nvs_wait.front() else { break };
                    let q = self.reqs[w as usize];
                    if sv.nvs_used + (q.span as u64).min(sv.nvs_total) > sv.nvs_total {
                        break;
                    }
                    pm.servers[s as usize].nvs_wait.pop_front();
                    let p = self.vols[q.vol as usize].pm.unwrap();
                    pm.dirty(p, &q);
                    woken.push(w);
                }
                let ranks = pm.servers[s as usize].ranks.clone();
                for k in ranks {
                    pm.kick_rank(cx, k);
                }
                for w in woken {
                    self.pm_reconnect(cx, w);
                }
            }
        }
    }

    /// Request `r` on path volume `p` completes: count it, free its exposure
    /// and start what was queued for it.
    fn pm_complete(&mut self, cx: &mut Cx, r: u32, p: u32) -> super::Done {
        let now = cx.now();
        let q = self.reqs[r as usize];
        let resp = now - q.queued_at;
        let pm = self.pm.as_mut().unwrap();
        pm.c.completed += 1;
        let c = if q.expo == BASE {
            &mut self.vols[q.vol as usize].c
        } else {
            &mut pm.aliases[q.expo as usize].c
        };
        c.pend_ns += q.pend;
        c.disc_ns += q.disc;
        c.conn_ns += q.conn;
        c.resp_ns += resp;
        c.cmr_ns += q.cmr;
        if q.write {
            c.bytes_wr += q.bytes as u64;
        } else {
            c.bytes_rd += q.bytes as u64;
        }
        self.vols[q.vol as usize].smooth(resp);
        pm.free_expo(p, q.expo);
        let qm = &mut self.reqs[r as usize];
        qm.expo = NONE;
        qm.phase = P_QUEUED;
        // Whoever waits for the exposure freed: this volume's queue, or for a
        // HyperPAV alias any volume of the LCU.
        let lcu = pm.vols[p as usize].lcu;
        let hyper = q.expo != BASE && pm.aliases[q.expo as usize].hyperpav;
        self.pm_start_queued(cx, q.vol);
        if hyper {
            self.pm_start_lcu(cx, lcu);
        }
        super::Done {
            origin: q.origin,
            req: r,
            vol: q.vol,
            pages: q.pages,
            resp_ns: resp,
            cpu: q.cpu,
        }
    }

    /// Start queued requests of Io volume `vol`, in order, while exposures
    /// take them.
    pub(super) fn pm_start_queued(&mut self, cx: &mut Cx, vol: u32) {
        let p = self.vols[vol as usize].pm.unwrap();
        let mut i = 0;
        while i < self.vols[vol as usize].queue.len() {
            let r = self.vols[vol as usize].queue[i];
            let kind = self.reqs[r as usize].kind;
            let pm = self.pm.as_mut().unwrap();
            match pm.expo_for(p, kind) {
                Some(e) => {
                    self.vols[vol as usize].queue.remove(i);
                    let l = pm.vols[p as usize].lcu;
                    if l != NONE {
                        pm.lcus[l as usize].queued -= 1;
                    }
                    self.pm_start(cx, r, e);
                }
                None => {
                    // A request bound to a busy exposure lets later ones by;
                    // one that could take any exposure means none is free.
                    if matches!(kind, Kind::Dedicated { .. }) {
                        i += 1;
                    } else {
                        return;
                    }
                }
            }
        }
    }

    /// A HyperPAV alias of LCU `l` came free: the volume whose first queued
    /// request has waited longest takes it, while aliases are free.
    fn pm_start_lcu(&mut self, cx: &mut Cx, l: u32) {
        loop {
            let pm = self.pm.as_ref().unwrap();
            let lc = &pm.lcus[l as usize];
            if lc.queued == 0 || lc.pool.is_empty() {
                return;
            }
            let mut best: Option<(Ns, u32)> = None;
            for &p in &lc.vols {
                let vol = pm.vols[p as usize].vol;
                for &r in &self.vols[vol as usize].queue {
                    let q = &self.reqs[r as usize];
                    if pm.pavable(q.kind) {
                        if best.is_none_or(|(t, _)| q.queued_at < t) {
                            best = Some((q.queued_at, vol));
                        }
                        break;
                    }
                }
            }
            let Some((_, vol)) = best else { return };
            let before = self.vols[vol as usize].queue.len();
            self.pm_start_queued(cx, vol);
            if self.vols[vol as usize].queue.len() == before {
                return;
            }
        }
    }

    /// Requests the path model runs now (for `check`).
    #[cfg(any(test, debug_assertions))]
    pub(super) fn pm_running(&self) -> impl Iterator<Item = u32> + '_ {
        self.reqs
            .iter()
            .enumerate()
            .filter(|(_, q)| !q.free && q.expo != NONE)
            .map(|(i, _)| i as u32)
    }

    /// The path model's resources agree with the requests and operations.
    #[cfg(any(test, debug_assertions))]
    pub(super) fn pm_check(&self) {
        let pm = self.pm.as_ref().unwrap();
        let mut chp_busy = vec![0u32; pm.chp.len()];
        let mut ha_active = vec![0u32; pm.has.len()];
        let mut base = vec![0u32; pm.vols.len()];
        let mut alias_busy = vec![0u32; pm.aliases.len()];
        for r in self.pm_running() {
            let q = &self.reqs[r as usize];
            let p = self.vols[q.vol as usize]
                .pm
                .expect("running on a path volume");
            if q.expo == BASE {
                base[p as usize] += 1;
            } else {
                alias_busy[q.expo as usize] += 1;
            }
            let g = pm.vols[p as usize].group as usize;
            match q.phase {
                P_CMD | P_HOLD => {
                    let l = pm.groups[g].links[q.link as usize];
                    chp_busy[l.chp as usize] += 1;
                    ha_active[l.ha as usize] += 1;
                }
                P_PATH | P_RECON => assert!(
                    pm.groups[g].wait.contains(&r),
                    "request {r} waits for a path outside its group's queue"
                ),
                P_BACK => {}
                ph => panic!("request {r} runs in phase {ph}"),
            }
        }
        for (i, c) in pm.chp.iter().enumerate() {
            assert_eq!(chp_busy[i], c.active, "CHPID {:02X} transfers", c.id);
            assert!(c.active <= c.slots);
        }
        for (i, h) in pm.has.iter().enumerate() {
            assert_eq!(ha_active[i], h.active, "host adapter {i} transfers");
            assert!(h.active <= h.conc);
        }
        for (p, v) in pm.vols.iter().enumerate() {
            assert_eq!(base[p], v.base_active, "volume {} base exposures", v.vol);
            assert!(v.base_active <= v.depth.max(1));
            // A queued request waits only while no exposure may take it.
            if let Some(&r) = self.vols[v.vol as usize].queue.front() {
                let k = self.reqs[r as usize].kind;
                if !matches!(k, Kind::Dedicated { .. }) {
                    assert!(
                        !pm.could_start(p as u32, k),
                        "volume {}: a request waits behind a free exposure",
                        v.vol
                    );
                }
            }
        }
        for (a, al) in pm.aliases.iter().enumerate() {
            assert_eq!(
                alias_busy[a], al.busy as u32,
                "alias {:04X} busy state",
                al.devno
            );
        }
        for l in &pm.lcus {
            let free = l
                .hyper
                .iter()
                .filter(|&&a| !pm.aliases[a as usize].busy)
                .count();
            assert_eq!(free, l.pool.len(), "LCU {} pool", l.name);
            assert!(
                l.pool.len() <= l.hyper.len(),
                "LCU {}: more aliases free than it has",
                l.name
            );
            let q: usize = l
                .vols
                .iter()
                .map(|&p| self.vols[pm.vols[p as usize].vol as usize].queue.len())
                .sum();
            assert_eq!(q as u32, l.queued, "LCU {} queued count", l.name);
        }
        // NVS holds the dirty data and the destages in flight.
        let mut inflight = vec![0u64; pm.servers.len()];
        for o in pm.ops.iter().filter(|o| !o.free) {
            if matches!(o.kind, OP_DESTAGE_RAND | OP_DESTAGE_SEQ) {
                inflight[pm.ranks[o.rank as usize].server as usize] += o.bytes as u64;
            }
        }
        for (s, sv) in pm.servers.iter().enumerate() {
            let dirty: u64 = sv
                .ranks
                .iter()
                .map(|&k| pm.ranks[k as usize].rand_bytes + pm.ranks[k as usize].seq_bytes)
                .sum();
            assert_eq!(
                sv.nvs_used,
                dirty + inflight[s],
                "server {}: NVS in use",
                sv.name
            );
            assert!(
                sv.nvs_used <= sv.nvs_total,
                "server {}: NVS over its size",
                sv.name
            );
        }
        for r in &pm.ranks {
            assert!(
                r.active <= r.arms,
                "rank {}: more operations than arms",
                r.name
            );
        }
    }
}

#[cfg(any(test, debug_assertions))]
impl PathModel {
    /// Could a request of `kind` on path volume `p` start now (for `check`)?
    fn could_start(&self, p: u32, kind: Kind) -> bool {
        let pm = self;
        let v = &pm.vols[p as usize];
        let cap = if kind == Kind::Paging { v.depth } else { 1 };
        if v.base_active < cap {
            return true;
        }
        if !pm.pavable(kind) {
            return false;
        }
        if v.aliases.iter().any(|&a| !pm.aliases[a as usize].busy) {
            return true;
        }
        v.lcu != NONE && !pm.lcus[v.lcu as usize].pool.is_empty()
    }
}

fn pm_da_start(pm: &mut PathModel, cx: &mut Cx, da: u32) {
    let d = &mut pm.das[da as usize];
    let op = d.queue.pop_front().expect("an operation for the adapter");
    d.busy = true;
    d.since = cx.now();
    let t = (pm.ops[op as usize].bytes as f64 * d.npb).round().max(1.0) as Ns;
    cx.at(t, Ev::Da { op });
}

impl PathModel {
    /// Hit or miss for request `q` on path volume `p`, which has just got
    /// its path (0: hit).
    fn decide(&mut self, cx: &mut Cx, p: u32, q: &super::Req) -> u8 {
        let s = self.vols[p as usize].server;
        let cached = self.vols[p as usize].cached && self.servers[s as usize].cached;
        if !cached {
            self.vols[p as usize].cache.bypass += 1;
            return MISS_SYNC;
        }
        if q.write {
            self.vols[p as usize].cache.writes += 1;
            let sv = &self.servers[s as usize];
            if sv.nvs_wait.is_empty()
                && sv.nvs_used + (q.span as u64).min(sv.nvs_total) <= sv.nvs_total
            {
                self.dirty(p, q);
                self.vols[p as usize].cache.write_hits += 1;
                let rank = self.vols[p as usize].rank;
                self.kick_rank(cx, rank);
                0
            } else {
                self.vols[p as usize].cache.nvs_full += 1;
                MISS_NVS
            }
        } else if q.seq {
            let v = &mut self.vols[p as usize];
            v.cache.seq_reads += 1;
            let hit = v.credit >= q.bytes as u64;
            if hit {
                v.credit -= q.bytes as u64;
                v.cache.seq_hits += 1;
            }
            self.top_up(cx, p);
            if hit {
                0
            } else {
                MISS_PRESTAGE
            }
        } else {
            let v = &mut self.vols[p as usize];
            v.cache.reads += 1;
            if v.rng.f64() < v.read_hit {
                v.cache.read_hits += 1;
                0
            } else {
                MISS_STAGE
            }
        }
    }

    /// Write `q` on path volume `p` is in NVS: dirty data for its rank.
    fn dirty(&mut self, p: u32, q: &super::Req) {
        let v = &self.vols[p as usize];
        let b = (q.span as u64).min(self.servers[v.server as usize].nvs_total);
        self.servers[v.server as usize].nvs_used += b;
        let r = &mut self.ranks[v.rank as usize];
        if q.seq {
            r.seq_bytes += b;
        } else {
            r.rand_n += 1;
            r.rand_bytes += b;
        }
    }
}
