//! A z/OS partition: its real storage manager (RSM), auxiliary storage
//! manager (ASM) over storage-class memory (`model/flash`) and local page
//! data sets, the address spaces of its work, and the operations that
//! stress paging (the morning after the batch, SVC dump, stand-alone dump).
//! docs/zos.md describes the model, its rules and parameters.
//!
//! **Owns** the partition's frames (stealing by unreferenced interval
//! count), every page's place (never backed, a frame, SCM or one page data
//! set, or being read in), the page data sets' queues and their service:
//! behind control units, model/io's component (`Io`, its path model:
//! channels, host adapters, cache, ranks) on an I/O queue of the
//! partition's own, merged with its queue; otherwise `io::Service`, the I/O
//! component's constant pend/disconnect/connect model with read-miss
//! disconnect from the cache hit ratio; the actors (terminals
//! running transactions, garbage collectors, the dump tasks) and the
//! partition's counters.
//!
//! **Its own clock and queue** (`Core<Ev>`): the partition is a separate
//! operating system; it shares nothing with the z/VM partition's queue
//! (engine-style 4.2: per-host queues). With `[lpar]` the CEC divides the
//! processors (`lpar::Cec`); without it the logical processors run at full
//! speed.
//!
//! **Output**: per interval (1 s) and per operation records
//! ([`Output`]), from which the study and reports compute every figure; the
//! model's internals are not read by them.
//!
//! **Phases**: IPL (PLPA written to SCM and a page data set), *prefill* (the
//! online address spaces referenced once, "yesterday"), *batch* (the night's
//! jobs reference their storage an hour later, so the online pages are the
//! oldest and RSM steals them), *drain* (the batch ends, its storage and VIO
//! are freed, page-outs finish), *online* (t = 0 of every record: terminals,
//! garbage collection, the SVC dump), then the stand-alone dump.

pub mod asm;
pub mod params;
#[cfg(test)]
mod tests;

use std::collections::VecDeque;

use serde::Serialize;

use crate::core::queue::EventQueue;
use crate::core::rng::{Rng, Stream};
use crate::core::units::{Ns, MS, PAGE, SEC};
use crate::core::us_to_ns;
use crate::model::flash::{Flash, Unit};
use crate::model::io::{self, Io, Service};
use asm::{Asm, Data, Target};
use params::{Kind, ZosScenario, LARGE};

const UNBACKED: u8 = 0;
const FRAME: u8 = 1;
const SCM: u8 = 2;
const DASD: u8 = 3;
/// Being read in from SCM / from a page data set (its slot still held).
const IN_SCM: u8 = 4;
const IN_DASD: u8 = 5;
const NONE: u32 = u32::MAX;
const NOBODY: u16 = u16::MAX;
/// Unreferenced interval counts start from here when the batch runs: the
/// online work's pages were last referenced an hour of intervals earlier.
const NIGHT: u32 = 3600;
const MAX_UIC: u32 = 255;

#[derive(Clone, Copy, Debug)]
enum Ev {
    /// Prefill and batch: the next megabyte referenced; drain: poll.
    Step,
    /// An interval ended (online phase).
    Tick,
    /// Actor `a` runs.
    Run { a: u16 },
    /// An EADM read finished: page (or large page's first page) `p`.
    Flash {
        p: u32,
        who: u16,
        large: bool,
        keep: bool,
    },
    /// Page data set `d` finished its I/O in service.
    Ds { d: u16 },
    /// The SVC dump starts.
    SvcDump,
    /// The stand-alone dump starts (the online work stops).
    SaDump,
    /// PR/SM's dispatch interval ended (with `[lpar]`).
    Cec,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Prefill,
    Batch,
    Drain,
    Online,
    Sadmp,
    Done,
}

#[derive(Clone, Copy, Debug)]
struct Req {
    /// Read: the page; write: pages in the group.
    page: u32,
    who: u16,
    write: bool,
    keep: bool,
    issued: Ns,
}

/// The page data sets behind control units: model/io's component (its path
/// model: channels, host adapters, cache, ranks) on a clock and queue of its
/// own that the partition's loop merges with its own queue; data set k is
/// volume k. Only I/O events are ever on this queue.
struct Paths {
    io: Io,
    core: crate::core::Core<crate::model::Ev>,
}

struct Ds {
    lcu: u16,
    busy: bool,
    /// Requests the I/O in service carries (reads to one data set are
    /// chained into one I/O, up to a write group's pages).
    n: usize,
    q: VecDeque<Req>,
    rd: Service,
    wr: Service,
    // Cumulative counters (the Page Data Set Activity report).
    reads: u64,
    writes: u64,
    pages_read: u64,
    pages_written: u64,
    busy_ns: u64,
    resp_ns: u64,
}

impl Ds {
    /// The cumulative counters an interval record takes differences of.
    fn counters(&self) -> [u64; 6] {
        [
            self.reads,
            self.writes,
            self.pages_read,
            self.pages_written,
            self.busy_ns,
            self.resp_ns,
        ]
    }
}

struct Space {
    name: String,
    kind: Option<Kind>,
    base: u32,
    pages: u32,
    hot: u32,
    large: u32,
    weight: f64,
    gc: Option<Ns>,
    vio: u32,
    /// Instances alike (servants): this one's number and how many.
    inst: u32,
    count: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Act {
    Tx,
    Gc { sp: u16, t: u16 },
    SvcDump,
    Sadmp,
}

struct Actor {
    kind: Act,
    rng: Rng,
    /// Transaction: references left (0: thinking); GC/dump: position.
    left: u32,
    in_tx: bool,
    /// The page being referenced (NONE: pick the next).
    page: u32,
    sp: u16,
    start: Ns,
    /// The page it waits for (NONE: not waiting).
    wait: u32,
    blocked: bool,
    end: u32,
    outstanding: u32,
    stage: u8,
}

/// Cumulative counters (intervals take differences).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Counters {
    pub tx: u64,
    pub resp_ns: u64,
    pub pagein_scm: u64,
    pub pagein_scm_1m: u64,
    pub pagein_dasd: u64,
    pub pagein_spec: u64,
    pub pageout_scm: u64,
    pub pageout_scm_1m: u64,
    pub pageout_dasd: u64,
    pub pageout_vio_dasd: u64,
    pub pageout_vio_scm: u64,
    pub large_split: u64,
    pub large_4k_backed: u64,
    pub first_refs: u64,
    pub steals: u64,
    pub plpa_scm: u64,
    pub plpa_dasd: u64,
}

/// One interval of the online phase (`t_s`: its end, seconds after the
/// online work started); counts are the interval's.
#[derive(Clone, Debug, Serialize)]
pub struct Interval {
    pub t_s: f64,
    pub tx: u64,
    pub resp_s: f64,
    pub pagein_scm: u64,
    pub pagein_scm_1m: u64,
    pub pagein_dasd: u64,
    pub pagein_spec: u64,
    pub pageout_scm: u64,
    pub pageout_scm_1m: u64,
    pub pageout_dasd: u64,
    pub pageout_vio_dasd: u64,
    pub pageout_vio_scm: u64,
    pub large_split: u64,
    pub frames_free: u64,
    pub scm_slots_used: u64,
    pub ds_slots_used: u64,
    pub system_nd_s: f64,
    pub scm_resp_us: f64,
    pub ds_resp_us: f64,
    /// Mean fraction of a physical processor PR/SM gives the partition's
    /// logical processors at the interval's end (1 without `[lpar]`).
    pub lp_speed: f64,
}

/// An operation: `batch` (before t = 0), `svc_dump`, `sa_dump`.
#[derive(Clone, Debug, Serialize, Default)]
pub struct Operation {
    pub kind: String,
    pub target: String,
    pub start_s: f64,
    pub end_s: f64,
    pub system_nd_s: f64,
    pub as_nd_s: f64,
    pub bytes: u64,
    pub aux_bytes: u64,
    pub aux_read_s: f64,
    pub real_write_s: f64,
}

/// One page data set in one interval of the online phase (`t_s`: the
/// interval's end): slots in use at the end, the interval's I/O.
#[derive(Clone, Debug, Serialize)]
pub struct DsInterval {
    pub t_s: f64,
    /// Index into `data_sets`.
    pub ds: u16,
    pub used: u64,
    pub reads: u64,
    pub writes: u64,
    pub pages_read: u64,
    pub pages_written: u64,
    /// Device busy time of the I/Os started in the interval.
    pub busy_s: f64,
    /// Summed response (queue plus service) of the I/Os that ended in it.
    pub resp_s: f64,
}

/// One address space in one interval of the online phase, at its end:
/// frames it holds, slots on SCM and on page data sets (pages being read
/// in included), pages read in during the interval.
#[derive(Clone, Debug, Serialize)]
pub struct AsInterval {
    pub t_s: f64,
    /// Index into `address_spaces`.
    pub asid: u16,
    pub frames: u64,
    pub scm_slots: u64,
    pub ds_slots: u64,
    pub pageins: u64,
}

/// An address space as the run's records describe it.
#[derive(Clone, Debug, Serialize)]
pub struct AddressSpace {
    /// ASID (1, 2, ... in scenario order).
    pub asid: u16,
    pub name: String,
    /// `common`, `was_control`, ...; `batch` for the night's batch.
    pub kind: String,
    pub pages: u64,
    /// 4 KB pages in pageable 1 MB large pages.
    pub large_pages: u64,
}

/// A page data set as the activity report shows it.
#[derive(Clone, Debug, Serialize)]
pub struct DataSet {
    pub name: String,
    pub lcu: u16,
    /// Device number (synthetic: X'9000' + 256 x LCU + position in the LCU).
    pub devno: u16,
    pub slots: u64,
    pub used: u64,
    pub reads: u64,
    pub writes: u64,
    pub pages_written: u64,
    pub busy_s: f64,
    pub avg_resp_ms: f64,
}

/// Everything a run writes.
#[derive(Clone, Debug, Serialize)]
pub struct Output {
    pub partition: String,
    pub real_bytes: u64,
    pub scm_bytes: u64,
    pub scm_latency_4k_us: f64,
    pub scm_latency_1m_us: f64,
    /// The partition's SCM allocation: online (initial) and maximum, and the
    /// allocation increment.
    pub scm_online_bytes: u64,
    pub scm_max_bytes: u64,
    pub scm_increment_bytes: u64,
    /// Data set holding PLPA's copy (index into `data_sets`; none without PLPA).
    pub plpa_ds: Option<u16>,
    pub plpa_pages: u64,
    pub ds_count: u32,
    pub ds_lcus: u32,
    /// Bytes on auxiliary storage when the online work starts.
    pub aux_at_start_bytes: u64,
    pub scm_at_start_bytes: u64,
    pub intervals: Vec<Interval>,
    pub ds_intervals: Vec<DsInterval>,
    pub as_intervals: Vec<AsInterval>,
    pub operations: Vec<Operation>,
    pub data_sets: Vec<DataSet>,
    pub address_spaces: Vec<AddressSpace>,
    pub totals: Counters,
}

pub struct Zos {
    now: Ns,
    q: EventQueue<Ev>,
    phase: Phase,
    sc: ZosScenario,
    flash: Option<Flash>,
    asm: Asm,
    ds: Vec<Ds>,
    /// With `zos.page_data_sets.control_units`: the I/O path model.
    paths: Option<Box<Paths>>,
    // Pages.
    loc: Vec<u8>,
    aux: Vec<u32>,
    last_ref: Vec<u32>,
    frame: Vec<u32>,
    /// Per 1 MB unit: an intact pageable large page.
    lp: Vec<bool>,
    // Frames.
    frame_page: Vec<u32>,
    free: Vec<u32>,
    hand: usize,
    thr: u32,
    uic_ns: Ns,
    uic_base: u32,
    // SCM write groups: (start, len) into group_pages.
    groups: Vec<(u32, u32)>,
    group_pages: Vec<u32>,
    spaces: Vec<Space>,
    /// Per 1 MB unit of the page space: its address space.
    unit_sp: Vec<u16>,
    /// Per address space: frames held, slots on SCM and on page data sets
    /// (pages being read in included), pages read in (cumulative).
    sp_frames: Vec<u64>,
    sp_scm: Vec<u64>,
    sp_ds: Vec<u64>,
    sp_pagein: Vec<u64>,
    sp_last_pagein: Vec<u64>,
    ds_last: Vec<[u64; 6]>,
    batch: Option<u16>,
    cursor: (usize, u32),
    actors: Vec<Actor>,
    cpu_free: Vec<Ns>,
    cpu_touch: Ns,
    /// The CEC's division of processors (`[lpar]`), if declared.
    cec: Option<crate::model::lpar::Cec>,
    gc_active: Vec<u16>,
    system_nd: bool,
    as_nd: Option<u16>,
    nd_since: Ns,
    nd_in_tick: Ns,
    c: Counters,
    last: Counters,
    t_on: Ns,
    out: Output,
    steal_buf: Vec<u32>,
    done_buf: Vec<Req>,
    /// The SVC dump's and the stand-alone dump's records (indexes into
    /// `out.operations`).
    op_svc: usize,
    op_sa: usize,
    op: Operation,
    error: Option<String>,
}

fn s(ns: Ns) -> f64 {
    ns as f64 / SEC as f64
}

impl Zos {
    /// Build the partition of a validated scenario.
    pub fn new(sc: &ZosScenario) -> Zos {
        let z = &sc.zos;
        let seed = sc.scenario.seed;
        let flash = sc.flash.as_ref().map(Flash::new);
        let scm_bytes = sc.scm_bytes().unwrap_or(0);
        let d = &z.page_data_sets;
        let ds_slots = vec![d.size.0 / PAGE; d.count as usize];
        let rd_svc = d.service(true);
        let ds_resp = if d.on_paths() {
            (unloaded_read_ms(sc) * MS as f64) as Ns
        } else {
            ((rd_svc.pending_ms
                + rd_svc.disconnect_ms
                + rd_svc.connect_ms_per_io
                + rd_svc.connect_ms_per_page)
                * MS as f64) as Ns
        };
        let (lat4k, lat1m) = sc
            .flash
            .as_ref()
            .map_or((0.0, 0.0), |f| (f.latency_4k_us, f.latency_1m_us));
        let asm = Asm::new(
            scm_bytes / PAGE,
            us_to_ns(lat4k),
            &ds_slots,
            ds_resp,
            z.asm.smoothing.0,
            z.asm.overload_queue,
        );
        let ds = (0..d.count)
            .map(|i| Ds {
                lcu: d.lcu_of(i) as u16,
                busy: false,
                n: 0,
                q: VecDeque::new(),
                rd: Service::new(
                    &d.service(true),
                    Rng::new(seed, Stream::Device, 1000 + 2 * i as u64),
                ),
                wr: Service::new(
                    &d.service(false),
                    Rng::new(seed, Stream::Device, 1001 + 2 * i as u64),
                ),
                reads: 0,
                writes: 0,
                pages_read: 0,
                pages_written: 0,
                busy_ns: 0,
                resp_ns: 0,
            })
            .collect();
        // Address spaces, each on a 1 MB boundary of the page space.
        let mut spaces = Vec::new();
        let mut base = 0u32;
        let align = |p: u64| (p.div_ceil(LARGE as u64) * LARGE as u64) as u32;
        for a in &z.address_spaces {
            for k in 0..a.count {
                let pages = (a.size.0 / PAGE) as u32;
                let name = if a.count > 1 {
                    format!("{}{}", a.name, k + 1)
                } else {
                    a.name.clone()
                };
                spaces.push(Space {
                    name,
                    kind: Some(a.kind),
                    base,
                    pages,
                    hot: a.hot.map_or(pages, |h| (h.0 / PAGE) as u32),
                    large: (a.large.0 / PAGE) as u32,
                    weight: a.touch_weight,
                    gc: a.gc_interval.map(|g| g.0),
                    vio: 0,
                    inst: k,
                    count: a.count,
                });
                base += align(pages as u64);
            }
        }
        let mut batch = None;
        if z.batch.size.0 > 0 {
            let pages = (z.batch.size.0 / PAGE) as u32;
            batch = Some(spaces.len() as u16);
            spaces.push(Space {
                name: "BATCH".into(),
                kind: None,
                base,
                pages,
                hot: pages,
                large: 0,
                weight: 0.0,
                gc: None,
                vio: (z.batch.vio.0 / PAGE) as u32,
                inst: 0,
                count: 1,
            });
            base += align(pages as u64);
        }
        let npages = base as usize;
        let nframes = (z.real_storage.0 / PAGE) as usize;
        let mut lp = vec![false; npages / LARGE as usize];
        let mut c = Counters::default();
        for sp in &spaces {
            let units = sp.large / LARGE;
            for u in 0..units {
                let i = (sp.base / LARGE + u) as usize;
                if asm.has_scm() {
                    lp[i] = true;
                } else {
                    c.large_4k_backed += 1;
                }
            }
        }
        let gc_active = vec![0; spaces.len()];
        let mut unit_sp = vec![0u16; npages / LARGE as usize];
        for (i, sp) in spaces.iter().enumerate() {
            let (first, n) = (
                sp.base / LARGE,
                (sp.pages as u64).div_ceil(LARGE as u64) as u32,
            );
            for u in first..first + n {
                unit_sp[u as usize] = i as u16;
            }
        }
        let nsp = spaces.len();
        let address_spaces = spaces
            .iter()
            .enumerate()
            .map(|(i, sp)| AddressSpace {
                asid: i as u16 + 1,
                name: sp.name.clone(),
                kind: sp
                    .kind
                    .map_or("batch".to_string(), |k| k.name().to_string()),
                pages: sp.pages as u64,
                large_pages: sp.large as u64,
            })
            .collect();
        let (alloc_on, alloc_max) = sc
            .flash
            .as_ref()
            .and_then(|f| f.allocation(&z.name))
            .unwrap_or((0, 0));
        let mut zos = Zos {
            now: 0,
            q: EventQueue::new(),
            phase: Phase::Prefill,
            flash,
            asm,
            ds,
            paths: d.on_paths().then(|| {
                Box::new(Paths {
                    io: Io::new(
                        sc.ds_volumes(),
                        z.processors as usize,
                        seed ^ 0x5A05_0019,
                        &sc.io_config(),
                    ),
                    core: crate::core::Core::new(Ns::MAX),
                })
            }),
            loc: vec![UNBACKED; npages],
            aux: vec![NONE; npages],
            last_ref: vec![0; npages],
            frame: vec![NONE; npages],
            lp,
            frame_page: vec![NONE; nframes],
            free: (0..nframes as u32).rev().collect(),
            hand: 0,
            thr: MAX_UIC,
            uic_ns: z.rsm.uic_interval.0,
            uic_base: 0,
            groups: Vec::new(),
            group_pages: Vec::new(),
            spaces,
            unit_sp,
            sp_frames: vec![0; nsp],
            sp_scm: vec![0; nsp],
            sp_ds: vec![0; nsp],
            sp_pagein: vec![0; nsp],
            sp_last_pagein: vec![0; nsp],
            ds_last: vec![[0; 6]; d.count as usize],
            batch,
            cursor: (0, 0),
            actors: Vec::new(),
            cpu_free: vec![0; z.processors as usize],
            cpu_touch: us_to_ns(z.cpu_per_touch_us),
            cec: sc
                .lpar
                .as_ref()
                .map(|l| crate::model::lpar::Cec::new(l, &sc.cec_partition())),
            gc_active,
            system_nd: false,
            as_nd: None,
            nd_since: 0,
            nd_in_tick: 0,
            c,
            last: Counters::default(),
            t_on: 0,
            out: Output {
                partition: z.name.clone(),
                real_bytes: z.real_storage.0,
                scm_bytes,
                scm_latency_4k_us: lat4k,
                scm_latency_1m_us: lat1m,
                scm_online_bytes: alloc_on,
                scm_max_bytes: alloc_max,
                scm_increment_bytes: crate::model::flash::params::INCREMENT,
                plpa_ds: None,
                plpa_pages: z.asm.plpa.0 / PAGE,
                ds_count: d.count,
                ds_lcus: d.lcu_count(),
                aux_at_start_bytes: 0,
                scm_at_start_bytes: 0,
                intervals: Vec::new(),
                ds_intervals: Vec::new(),
                as_intervals: Vec::new(),
                operations: Vec::new(),
                data_sets: Vec::new(),
                address_spaces,
                totals: Counters::default(),
            },
            steal_buf: Vec::new(),
            done_buf: Vec::new(),
            op_svc: 0,
            op_sa: 0,
            op: Operation::default(),
            error: None,
            sc: sc.clone(),
        };
        zos.ipl();
        zos
    }

    /// IPL: PLPA to SCM and a page data set (slot accounting: its pages are
    /// not in the page space).
    fn ipl(&mut self) {
        let n = self.sc.zos.asm.plpa.0 / PAGE;
        if n == 0 {
            return;
        }
        match self.asm.place(Data::Plpa, n, &|_| 0) {
            Target::Both(d) => {
                self.c.plpa_scm += n;
                self.c.plpa_dasd += n;
                self.out.plpa_ds = Some(d);
            }
            Target::Ds(d) => {
                self.c.plpa_dasd += n;
                self.out.plpa_ds = Some(d);
            }
            _ => {}
        }
    }

    fn at(&mut self, d: Ns, ev: Ev) {
        self.q.push(self.now + d, ev);
    }

    fn interval(&self) -> u32 {
        self.uic_base + (self.now / self.uic_ns) as u32
    }

    // ------------------------------------------------------------ frames (RSM)

    fn take_frame(&mut self, p: u32) {
        if self.free.is_empty() {
            self.steal(1);
        }
        let f = self.free.pop().expect("steal frees frames");
        self.frame_page[f as usize] = p;
        self.frame[p as usize] = f;
        self.loc[p as usize] = FRAME;
        let sp = self.sp_of(p);
        self.sp_frames[sp] += 1;
        self.last_ref[p as usize] = self.interval();
    }

    fn drop_frame(&mut self, p: u32) {
        let f = self.frame[p as usize];
        debug_assert!(f != NONE);
        self.frame_page[f as usize] = NONE;
        self.frame[p as usize] = NONE;
        self.free.push(f);
        let sp = self.sp_of(p);
        self.sp_frames[sp] -= 1;
    }

    fn sp_of(&self, p: u32) -> usize {
        self.unit_sp[(p / LARGE) as usize] as usize
    }

    /// Keep the available frames above the low threshold.
    fn replenish(&mut self) {
        let low = (self.sc.zos.rsm.avail_low.0 / PAGE) as usize;
        if self.free.len() < low {
            let ok = (self.sc.zos.rsm.avail_ok.0 / PAGE) as usize;
            self.steal(ok - self.free.len());
        }
    }

    /// Steal at least `want` frames, highest unreferenced interval count
    /// first: the clock takes pages unreferenced for `thr` intervals or more,
    /// halving `thr` after each revolution that found too few.
    fn steal(&mut self, want: usize) {
        let n = self.frame_page.len();
        let now = self.interval();
        let mut buf = std::mem::take(&mut self.steal_buf);
        buf.clear();
        let mut got = 0usize;
        let mut scanned = 0usize;
        while got < want {
            if scanned >= n {
                if self.thr == 0 {
                    break;
                }
                self.thr /= 2;
                scanned = 0;
            }
            let f = self.hand;
            self.hand = (self.hand + 1) % n;
            scanned += 1;
            let p = self.frame_page[f];
            if p == NONE || self.loc[p as usize] != FRAME {
                continue;
            }
            if now.saturating_sub(self.last_ref[p as usize]) < self.thr {
                continue;
            }
            let unit = (p / LARGE) as usize;
            if self.lp[unit] {
                // A pageable large page goes whole.
                let first = p - p % LARGE;
                for q in first..first + LARGE {
                    self.drop_frame(q);
                }
                buf.push(first | 1 << 31);
                got += LARGE as usize;
            } else {
                self.drop_frame(p);
                buf.push(p);
                got += 1;
            }
        }
        self.c.steals += got as u64;
        self.page_out(&buf);
        self.steal_buf = buf;
    }

    fn is_vio(&self, p: u32) -> bool {
        self.batch.is_some_and(|b| {
            let sp = &self.spaces[b as usize];
            p >= sp.base && p < sp.base + sp.vio
        })
    }

    // ------------------------------------------------------------ page-out (ASM)

    fn page_out(&mut self, stolen: &[u32]) {
        let group = self.sc.zos.asm.write_group as usize;
        let mut normal: Vec<u32> = Vec::new();
        let mut vio: Vec<u32> = Vec::new();
        for &e in stolen {
            if e & 1 << 31 != 0 {
                let first = e & !(1 << 31);
                match self.asm.place(Data::Large, LARGE as u64, &|_| 0) {
                    Target::Scm => {
                        for q in first..first + LARGE {
                            self.loc[q as usize] = SCM;
                            self.aux[q as usize] = NONE;
                        }
                        let sp = self.sp_of(first);
                        self.sp_scm[sp] += LARGE as u64;
                        let now = self.now;
                        let f = self.flash.as_mut().expect("SCM without flash");
                        let done = f.transfer(now, Unit::Large, false);
                        self.asm.observe_scm(now, done - now);
                        self.c.pageout_scm_1m += 1;
                    }
                    _ => {
                        // Broken into 4 KB pages for the page data sets.
                        self.lp[(first / LARGE) as usize] = false;
                        self.c.large_split += 1;
                        normal.extend(first..first + LARGE);
                    }
                }
            } else if self.is_vio(e) {
                vio.push(e);
            } else {
                normal.push(e);
            }
        }
        for (pages, data) in [(&normal, Data::Normal), (&vio, Data::Vio)] {
            for chunk in pages.chunks(group) {
                self.write_group(chunk, data);
                if self.error.is_some() {
                    return;
                }
            }
        }
    }

    fn write_group(&mut self, pages: &[u32], data: Data) {
        let n = pages.len() as u64;
        let ds = &self.ds;
        let t = self.asm.place(data, n, &|d| {
            let x = &ds[d as usize];
            x.q.len() as u32 + x.busy as u32
        });
        match t {
            Target::Scm => {
                let g = self.groups.len() as u32;
                self.groups.push((self.group_pages.len() as u32, n as u32));
                self.group_pages.extend_from_slice(pages);
                let now = self.now;
                let f = self.flash.as_mut().expect("SCM without flash");
                for &p in pages {
                    self.loc[p as usize] = SCM;
                    self.aux[p as usize] = g;
                    let sp = self.unit_sp[(p / LARGE) as usize] as usize;
                    self.sp_scm[sp] += 1;
                }
                let done = f.transfer_pages(now, n as u32, false);
                self.asm.observe_scm(now, done - now);
                self.c.pageout_scm += n;
                if data == Data::Vio {
                    self.c.pageout_vio_scm += n;
                }
            }
            Target::Ds(d) | Target::Both(d) => {
                for &p in pages {
                    self.loc[p as usize] = DASD;
                    self.aux[p as usize] = d as u32;
                    let sp = self.sp_of(p);
                    self.sp_ds[sp] += 1;
                }
                self.c.pageout_dasd += n;
                if data == Data::Vio {
                    self.c.pageout_vio_dasd += n;
                }
                let r = Req {
                    page: n as u32,
                    who: NOBODY,
                    write: true,
                    keep: true,
                    issued: self.now,
                };
                self.submit(d, r);
            }
            Target::Split | Target::Full => {
                self.error = Some(format!(
                    "IRA201E CRITICAL AUXILIARY STORAGE SHORTAGE at {:.3} s: no page data set or SCM has room for {n} pages",
                    s(self.now)
                ));
            }
        }
    }

    // ------------------------------------------------------------ page data sets

    fn submit(&mut self, d: u16, r: Req) {
        let ds = &mut self.ds[d as usize];
        ds.q.push_back(r);
        if !ds.busy {
            self.start_io(d);
        }
    }

    fn start_io(&mut self, d: u16) {
        let max = self.sc.zos.asm.write_group as usize;
        let ds = &mut self.ds[d as usize];
        let Some(r) = ds.q.front() else { return };
        if let Some(p) = self.paths.as_mut() {
            // Behind a control unit: one I/O at a time per data set (ASM's
            // queue), its times from the path model.
            let rq = if r.write {
                ds.n = 1;
                io::Request::write(r.page, io::Kind::Paging)
            } else {
                let n = ds.q.iter().take(max).take_while(|r| !r.write).count();
                ds.n = n;
                io::Request::read(n as u32, io::Kind::Paging)
            };
            ds.busy = true;
            p.core.now = self.now;
            let mut cx = crate::model::Cx::new(&mut p.core, 0);
            let req =
                p.io.alloc_req(&cx, d as u32, rq, io::Origin::PageRead { block: d as u32 });
            p.io.submit(&mut cx, req);
            return;
        }
        let t = if r.write {
            ds.n = 1;
            ds.wr.draw(r.page)
        } else {
            let n = ds.q.iter().take(max).take_while(|r| !r.write).count();
            ds.n = n;
            ds.rd.draw(n as u32)
        };
        ds.busy = true;
        ds.busy_ns += t.total();
        self.at(t.total(), Ev::Ds { d });
    }

    fn ds_done(&mut self, d: u16) {
        let n = {
            let ds = &mut self.ds[d as usize];
            ds.busy = false;
            ds.n
        };
        let mut done = std::mem::take(&mut self.done_buf);
        done.clear();
        for _ in 0..n {
            let r = self.ds[d as usize]
                .q
                .pop_front()
                .expect("a request in service");
            let resp = self.now - r.issued;
            let ds = &mut self.ds[d as usize];
            ds.resp_ns += resp;
            if r.write {
                ds.writes += 1;
                ds.pages_written += r.page as u64;
            } else {
                ds.reads += 1;
                ds.pages_read += 1;
            }
            done.push(r);
        }
        if let Some(r) = done.first() {
            self.asm.observe_ds(d, self.now, self.now - r.issued);
        }
        self.start_io(d);
        for r in done.iter() {
            if !r.write {
                self.arrived(r.page, r.who, false, r.keep);
            }
        }
        self.done_buf = done;
    }

    // ------------------------------------------------------------ page-in

    /// Start reading page `p` (on SCM or a data set) for `who`; `keep`:
    /// into a frame (a fault), else only read (a dump's copy).
    fn read(&mut self, p: u32, who: u16, keep: bool) {
        let now = self.now;
        match self.loc[p as usize] {
            SCM => {
                let unit = (p / LARGE) as usize;
                let large = self.lp[unit];
                let first = if large { p - p % LARGE } else { p };
                let f = self.flash.as_mut().expect("SCM without flash");
                let done = f.transfer(now, if large { Unit::Large } else { Unit::Page }, true);
                self.asm.observe_scm(now, done - now);
                if keep {
                    if large {
                        for q in first..first + LARGE {
                            self.loc[q as usize] = IN_SCM;
                        }
                        self.c.pagein_scm_1m += 1;
                    } else {
                        self.loc[p as usize] = IN_SCM;
                        self.c.pagein_scm += 1;
                    }
                }
                self.q.push(
                    done,
                    Ev::Flash {
                        p: first,
                        who,
                        large,
                        keep,
                    },
                );
                if keep && !large && self.sc.zos.asm.speculative_pagein {
                    self.speculate(p);
                }
            }
            DASD => {
                let d = self.aux[p as usize] as u16;
                if keep {
                    self.loc[p as usize] = IN_DASD;
                    self.c.pagein_dasd += 1;
                }
                self.submit(
                    d,
                    Req {
                        page: p,
                        who,
                        write: false,
                        keep,
                        issued: now,
                    },
                );
            }
            _ => {}
        }
    }

    /// The other pages of `p`'s write group still on SCM come in with it,
    /// in one EADM request.
    fn speculate(&mut self, p: u32) {
        let g = self.aux[p as usize];
        if g == NONE {
            return;
        }
        let (start, len) = self.groups[g as usize];
        let mut n = 0u32;
        for i in start..start + len {
            let q = self.group_pages[i as usize];
            if q != p
                && self.loc[q as usize] == SCM
                && self.aux[q as usize] == g
                && !self.lp[(q / LARGE) as usize]
            {
                self.loc[q as usize] = IN_SCM;
                n += 1;
            }
        }
        if n == 0 {
            return;
        }
        let f = self.flash.as_mut().expect("SCM without flash");
        let done = f.transfer_pages(self.now, n, true);
        self.c.pagein_spec += n as u64;
        for i in start..start + len {
            let q = self.group_pages[i as usize];
            if q != p && self.loc[q as usize] == IN_SCM && self.aux[q as usize] == g {
                self.q.push(
                    done,
                    Ev::Flash {
                        p: q,
                        who: NOBODY,
                        large: false,
                        keep: true,
                    },
                );
            }
        }
    }

    /// A read finished: page `p` (a large page's first page when `large`).
    fn arrived(&mut self, p: u32, who: u16, large: bool, keep: bool) {
        if keep {
            let n = if large { LARGE } else { 1 };
            if self.free.len() < n as usize {
                self.steal(n as usize - self.free.len());
            }
            let sp = self.sp_of(p);
            self.sp_pagein[sp] += n as u64;
            for q in p..p + n {
                match self.loc[q as usize] {
                    IN_SCM => {
                        self.sp_scm[sp] -= 1;
                        if !large {
                            self.asm.free_scm(1);
                        }
                    }
                    IN_DASD => {
                        self.sp_ds[sp] -= 1;
                        self.asm.free_ds(self.aux[q as usize] as u16, 1)
                    }
                    _ => debug_assert!(false, "page {q} arrived but was not being read"),
                }
                self.aux[q as usize] = NONE;
                self.take_frame(q);
            }
            if large {
                self.asm.free_scm(LARGE as u64);
            }
            self.replenish();
            for a in 0..self.actors.len() {
                let w = self.actors[a].wait;
                if w != NONE && w >= p && w < p + n {
                    self.actors[a].wait = NONE;
                    self.at(0, Ev::Run { a: a as u16 });
                }
            }
        } else if who != NOBODY {
            let a = &mut self.actors[who as usize];
            a.outstanding -= 1;
            if a.outstanding == 0 || a.stage & 0x80 != 0 {
                a.stage &= !0x80;
                self.at(0, Ev::Run { a: who });
            }
        }
    }

    /// First reference: a frame (all 256 of an intact large page).
    fn first_ref(&mut self, p: u32) {
        let unit = (p / LARGE) as usize;
        if self.lp[unit] {
            let first = p - p % LARGE;
            if self.free.len() < LARGE as usize {
                self.steal(LARGE as usize - self.free.len());
            }
            for q in first..first + LARGE {
                if self.loc[q as usize] == UNBACKED {
                    self.take_frame(q);
                    self.c.first_refs += 1;
                }
            }
        } else {
            self.take_frame(p);
            self.c.first_refs += 1;
        }
        self.replenish();
    }

    // ------------------------------------------------------------ actors

    fn cpu(&mut self, cost: Ns) -> Ns {
        let mut best = 0;
        for i in 1..self.cpu_free.len() {
            if self.cpu_free[i] < self.cpu_free[best] {
                best = i;
            }
        }
        // With a CEC, the burst takes the wall time PR/SM's share of a
        // physical processor gives this logical processor.
        let wall = match self.cec.as_mut() {
            Some(c) => c.stretch(best as u16, cost),
            None => cost,
        };
        let done = self.cpu_free[best].max(self.now) + wall;
        self.cpu_free[best] = done;
        done
    }

    fn blocked_for(&self, kind: Act, sp: u16) -> bool {
        if self.phase != Phase::Online {
            return kind != Act::Sadmp;
        }
        match kind {
            Act::Tx => self.system_nd || self.as_nd == Some(sp) || self.gc_active[sp as usize] > 0,
            Act::Gc { .. } => self.system_nd || self.as_nd == Some(sp),
            _ => false,
        }
    }

    fn unblock(&mut self) {
        for a in 0..self.actors.len() {
            if self.actors[a].blocked {
                self.actors[a].blocked = false;
                self.at(0, Ev::Run { a: a as u16 });
            }
        }
    }

    fn set_system_nd(&mut self, on: bool) {
        if on {
            self.nd_since = self.now;
        } else {
            self.nd_in_tick += self.now - self.nd_since;
        }
        self.system_nd = on;
    }

    fn run_actor(&mut self, a: u16) {
        let ai = a as usize;
        if self.actors[ai].wait != NONE || self.actors[ai].blocked {
            return;
        }
        match self.actors[ai].kind {
            Act::Tx => self.run_tx(a),
            Act::Gc { sp, t } => self.run_gc(a, sp, t),
            Act::SvcDump | Act::Sadmp => self.run_dump(a),
        }
    }

    /// The next page a transaction of terminal `a` references: an address
    /// space by weight (of several alike, the terminal's own: WLM routes
    /// its work to one servant), a page of its referenced part.
    fn pick(&mut self, a: usize) -> (u16, u32) {
        let total: f64 = self
            .spaces
            .iter()
            .filter(|s| s.inst == 0)
            .map(|s| s.weight)
            .sum();
        let mut x = self.actors[a].rng.f64() * total;
        let mut sp = 0;
        for (i, s) in self.spaces.iter().enumerate() {
            if s.weight > 0.0 && s.inst == 0 {
                sp = i;
                if x < s.weight {
                    break;
                }
                x -= s.weight;
            }
        }
        sp += a % self.spaces[sp].count as usize;
        let s = &self.spaces[sp];
        let (base, hot) = (s.base, s.hot);
        let off = self.actors[a].rng.below(hot as u64) as u32;
        (sp as u16, base + off)
    }

    fn run_tx(&mut self, a: u16) {
        let ai = a as usize;
        if !self.actors[ai].in_tx {
            let act = &mut self.actors[ai];
            act.in_tx = true;
            act.start = self.now;
            act.left = self.sc.zos.touches_per_tx;
            act.page = NONE;
        }
        let mut cost: Ns = 0;
        while self.actors[ai].left > 0 {
            if self.actors[ai].page == NONE {
                let (sp, p) = self.pick(ai);
                self.actors[ai].sp = sp;
                self.actors[ai].page = p;
            }
            let (sp, p) = (self.actors[ai].sp, self.actors[ai].page);
            if self.blocked_for(Act::Tx, sp) {
                if cost == 0 {
                    self.actors[ai].blocked = true;
                    return;
                }
                break;
            }
            match self.loc[p as usize] {
                FRAME | UNBACKED => {
                    if self.loc[p as usize] == UNBACKED {
                        self.first_ref(p);
                    }
                    self.last_ref[p as usize] = self.interval();
                    cost += self.cpu_touch;
                    let act = &mut self.actors[ai];
                    act.left -= 1;
                    act.page = NONE;
                }
                state => {
                    if cost > 0 {
                        break;
                    }
                    self.actors[ai].wait = p;
                    if state == SCM || state == DASD {
                        self.read(p, a, true);
                    }
                    return;
                }
            }
        }
        if cost > 0 {
            let done = self.cpu(cost);
            self.q.push(done, Ev::Run { a });
            return;
        }
        // The transaction is complete: count it, think, start the next.
        let act = &mut self.actors[ai];
        act.in_tx = false;
        let resp = self.now - act.start;
        let think = act.rng.exp(self.sc.zos.think_time.0 as f64) as Ns;
        self.c.tx += 1;
        self.c.resp_ns += resp;
        self.at(think.max(1), Ev::Run { a });
    }

    /// Garbage collection thread `t` of servant `sp`: it sweeps its stripe
    /// of the heap (every `gc_threads`-th megabyte), the servant's
    /// transactions waiting until every thread is done.
    fn run_gc(&mut self, a: u16, sp: u16, t: u16) {
        let ai = a as usize;
        let threads = self.sc.zos.gc_threads;
        let s = &self.spaces[sp as usize];
        let (base, heap) = (s.base, if s.large > 0 { s.large } else { s.pages });
        let interval = s.gc.unwrap_or(SEC);
        let kind = Act::Gc { sp, t };
        if self.actors[ai].stage == 0 {
            if self.blocked_for(kind, sp) {
                self.actors[ai].blocked = true;
                return;
            }
            self.gc_active[sp as usize] += 1;
            let act = &mut self.actors[ai];
            act.stage = 1;
            act.left = base + t as u32 * LARGE;
            act.end = base + heap;
            act.start = self.now;
        }
        let per_page = us_to_ns(self.sc.zos.gc_per_page_us);
        let mut cost: Ns = 0;
        let mut budget = 4096;
        while self.actors[ai].left < self.actors[ai].end && budget > 0 {
            budget -= 1;
            if self.blocked_for(kind, sp) {
                if cost == 0 {
                    self.actors[ai].blocked = true;
                    return;
                }
                break;
            }
            let p = self.actors[ai].left;
            match self.loc[p as usize] {
                FRAME | UNBACKED => {
                    if self.loc[p as usize] == UNBACKED {
                        self.first_ref(p);
                    }
                    self.last_ref[p as usize] = self.interval();
                    cost += per_page;
                    let mut next = p + 1;
                    if (next - base) % LARGE == 0 {
                        next += (threads - 1) * LARGE;
                    }
                    self.actors[ai].left = next;
                }
                state => {
                    if cost > 0 {
                        break;
                    }
                    self.actors[ai].wait = p;
                    if state == SCM || state == DASD {
                        self.read(p, a, true);
                    }
                    return;
                }
            }
        }
        if self.actors[ai].left < self.actors[ai].end || cost > 0 {
            let done = self.cpu(cost.max(1));
            self.q.push(done, Ev::Run { a });
            return;
        }
        // This thread is done; the last one lets the servant's transactions run.
        self.gc_active[sp as usize] -= 1;
        self.actors[ai].stage = 0;
        if self.gc_active[sp as usize] == 0 {
            self.unblock();
        }
        self.at(interval, Ev::Run { a });
    }

    /// SVC dump (stage 1: common storage, the system non-dispatchable;
    /// stage 2: the address space, it alone non-dispatchable) and the
    /// stand-alone dump's reading of paged-out storage (stage 3).
    fn run_dump(&mut self, a: u16) {
        let ai = a as usize;
        let oi = self.op_index(ai);
        let par = self.sc.zos.dump.parallel_reads;
        let copy = (PAGE as f64 / (self.sc.zos.dump.capture_gb_s * (1u64 << 30) as f64)
            * SEC as f64) as Ns;
        loop {
            let mut copy_ns: Ns = 0;
            let mut budget = 8192;
            while self.actors[ai].left < self.actors[ai].end && budget > 0 {
                budget -= 1;
                let p = self.actors[ai].left;
                let state = self.loc[p as usize];
                match state {
                    SCM | DASD => {
                        if self.actors[ai].stage == 3
                            && self.out.operations[oi].aux_bytes >= self.out.operations[oi].bytes
                        {
                            self.actors[ai].left = self.actors[ai].end;
                            break;
                        }
                        if self.actors[ai].outstanding >= par {
                            self.actors[ai].stage |= 0x80;
                            break;
                        }
                        let large = state == SCM && self.lp[(p / LARGE) as usize];
                        self.read(p, a, false);
                        let act = &mut self.actors[ai];
                        act.outstanding += 1;
                        let step = if large { LARGE - p % LARGE } else { 1 };
                        self.out.operations[oi].aux_bytes += step as u64 * PAGE;
                        act.left += step;
                    }
                    UNBACKED => self.actors[ai].left += 1,
                    _ => {
                        if self.actors[ai].stage != 3 {
                            copy_ns += copy;
                        }
                        self.actors[ai].left += 1;
                    }
                }
            }
            if copy_ns > 0 || budget == 0 {
                self.at(copy_ns.max(1), Ev::Run { a });
                return;
            }
            let act = &self.actors[ai];
            if act.stage & 0x80 != 0 || act.left < act.end || act.outstanding > 0 {
                return;
            }
            // This range is done: the next, or the next stage.
            if !self.next_dump_range(a) {
                return;
            }
        }
    }

    /// Move the dump to its next range of pages; false when it has ended.
    fn next_dump_range(&mut self, a: u16) -> bool {
        let ai = a as usize;
        let oi = self.op_index(ai);
        let stage = self.actors[ai].stage;
        if stage == 1 {
            // Further common areas?
            let from = self.actors[ai].sp as usize + 1;
            if let Some(i) =
                (from..self.spaces.len()).find(|&i| self.spaces[i].kind == Some(Kind::Common))
            {
                self.set_range(ai, i as u16, 1);
                return true;
            }
            // Global capture done: the system runs again, the address space stays stopped.
            self.set_system_nd(false);
            self.out.operations[oi].system_nd_s = s(self.now - self.actors[ai].start);
            let t = self
                .spaces
                .iter()
                .position(|s| s.name.eq_ignore_ascii_case(&self.sc.zos.dump.svc_target));
            let t = t.unwrap_or(0) as u16;
            self.as_nd = Some(t);
            self.unblock();
            self.set_range(ai, t, 2);
            return true;
        }
        if stage == 2 {
            self.as_nd = None;
            self.out.operations[oi].as_nd_s = s(self.now - self.actors[ai].start);
            self.out.operations[oi].end_s = s(self.now - self.t_on);
            self.unblock();
            self.actors[ai].end = 0;
            self.actors[ai].left = 0;
            self.actors[ai].stage = 4;
            return false;
        }
        if stage == 3 {
            let aux_read = self.now - self.actors[ai].start;
            let out_rate = self.sc.zos.dump.sa_output_mb_s * (1u64 << 20) as f64;
            let aux_write =
                (self.out.operations[oi].aux_bytes as f64 / out_rate * SEC as f64) as Ns;
            self.out.operations[oi].aux_read_s = s(aux_read);
            let end = self.actors[ai].start + aux_read.max(aux_write);
            self.out.operations[oi].end_s = s(end - self.t_on);
            self.out.operations[oi].system_nd_s =
                self.out.operations[oi].end_s - self.out.operations[oi].start_s;
            self.phase = Phase::Done;
            return false;
        }
        false
    }

    fn op_index(&self, ai: usize) -> usize {
        if self.actors[ai].kind == Act::Sadmp {
            self.op_sa
        } else {
            self.op_svc
        }
    }

    fn set_range(&mut self, ai: usize, sp: u16, stage: u8) {
        let s = &self.spaces[sp as usize];
        let (base, pages) = (s.base, s.pages);
        let act = &mut self.actors[ai];
        act.sp = sp;
        act.left = base;
        act.end = base + pages;
        act.stage = stage;
    }

    fn new_actor(&mut self, kind: Act, id: u64) -> u16 {
        self.actors.push(Actor {
            kind,
            rng: Rng::new(self.sc.scenario.seed, Stream::Vcpu, 50_000 + id),
            left: 0,
            in_tx: false,
            page: NONE,
            sp: 0,
            start: self.now,
            wait: NONE,
            blocked: false,
            end: 0,
            outstanding: 0,
            stage: 0,
        });
        (self.actors.len() - 1) as u16
    }

    fn svc_dump(&mut self) {
        let target = self.sc.zos.dump.svc_target.clone();
        let a = self.new_actor(Act::SvcDump, 9_000);
        self.op_svc = self.out.operations.len();
        self.out.operations.push(Operation {
            kind: "svc_dump".into(),
            target: target.to_ascii_uppercase(),
            start_s: s(self.now - self.t_on),
            ..Operation::default()
        });
        self.set_system_nd(true);
        let first = self
            .spaces
            .iter()
            .position(|s| s.kind == Some(Kind::Common));
        let ai = a as usize;
        match first {
            Some(i) => self.set_range(ai, i as u16, 1),
            None => {
                // No common areas: the global stage is empty.
                self.actors[ai].sp = self.spaces.len() as u16;
                self.actors[ai].stage = 1;
            }
        }
        self.at(0, Ev::Run { a });
    }

    fn sa_dump(&mut self) {
        let size = self.sc.zos.dump.sa_size.0;
        if size == 0 {
            self.phase = Phase::Done;
            return;
        }
        if self.system_nd {
            self.set_system_nd(false);
        }
        self.phase = Phase::Sadmp;
        let used = (self.frame_page.len() - self.free.len()) as u64 * PAGE;
        let real = used.min(size);
        let out_rate = self.sc.zos.dump.sa_output_mb_s * (1u64 << 20) as f64;
        let real_ns = (real as f64 / out_rate * SEC as f64) as Ns;
        self.op_sa = self.out.operations.len();
        self.out.operations.push(Operation {
            kind: "sa_dump".into(),
            target: "*".into(),
            start_s: s(self.now - self.t_on),
            // The paged-out storage to read (the dump is real + this).
            bytes: size - real,
            real_write_s: s(real_ns),
            ..Operation::default()
        });
        let a = self.new_actor(Act::Sadmp, 9_001);
        let ai = a as usize;
        let end = self.loc.len() as u32;
        let act = &mut self.actors[ai];
        act.stage = 3;
        act.left = 0;
        act.end = end;
        act.start = self.now + real_ns;
        self.at(real_ns, Ev::Run { a });
    }

    // ------------------------------------------------------------ phases

    fn step(&mut self) {
        let rate = self.sc.zos.batch.rate_mb_s;
        let dt = (SEC as f64 / rate) as Ns;
        match self.phase {
            Phase::Prefill => {
                // Online spaces referenced once, each from its top (the part
                // the online work does not use first).
                let (mut i, mut off) = self.cursor;
                let online = self.batch.map_or(self.spaces.len(), |b| b as usize);
                let mut n = 0;
                while n < LARGE && i < online {
                    let s = &self.spaces[i];
                    if off >= s.pages {
                        i += 1;
                        off = 0;
                        continue;
                    }
                    let p = s.base + s.pages - 1 - off;
                    if self.loc[p as usize] == UNBACKED {
                        self.first_ref(p);
                    }
                    off += 1;
                    n += 1;
                }
                self.cursor = (i, off);
                if i >= online {
                    self.phase = Phase::Batch;
                    self.uic_base = NIGHT.saturating_sub((self.now / self.uic_ns) as u32);
                    self.cursor = (online, 0);
                    self.op = Operation {
                        kind: "batch".into(),
                        target: "BATCH".into(),
                        ..Operation::default()
                    };
                    self.op.start_s = s(self.now);
                }
                self.at(dt, Ev::Step);
            }
            Phase::Batch => {
                let Some(b) = self.batch else {
                    self.phase = Phase::Drain;
                    self.at(0, Ev::Step);
                    return;
                };
                let (base, pages) = (self.spaces[b as usize].base, self.spaces[b as usize].pages);
                let off = self.cursor.1;
                let end = (off + LARGE).min(pages);
                for p in base + off..base + end {
                    if self.loc[p as usize] == UNBACKED {
                        self.first_ref(p);
                    } else if self.loc[p as usize] == FRAME {
                        self.last_ref[p as usize] = self.interval();
                    }
                }
                self.cursor.1 = end;
                if end >= pages {
                    self.end_batch(b);
                    self.phase = Phase::Drain;
                }
                self.at(dt, Ev::Step);
            }
            Phase::Drain => {
                if self.ds.iter().any(|d| d.busy || !d.q.is_empty()) {
                    self.at(10 * MS, Ev::Step);
                } else {
                    self.online();
                }
            }
            _ => {}
        }
    }

    /// The batch ends: its storage and VIO data sets are freed.
    fn end_batch(&mut self, b: u16) {
        let (base, pages) = (self.spaces[b as usize].base, self.spaces[b as usize].pages);
        for p in base..base + pages {
            match self.loc[p as usize] {
                FRAME => self.drop_frame(p),
                SCM => {
                    self.sp_scm[b as usize] -= 1;
                    self.asm.free_scm(1)
                }
                DASD => {
                    self.sp_ds[b as usize] -= 1;
                    self.asm.free_ds(self.aux[p as usize] as u16, 1)
                }
                _ => {}
            }
            self.loc[p as usize] = UNBACKED;
            self.aux[p as usize] = NONE;
        }
        self.op.end_s = s(self.now);
        self.op.bytes = pages as u64 * PAGE;
        self.out.operations.push(std::mem::take(&mut self.op));
    }

    fn online(&mut self) {
        self.phase = Phase::Online;
        self.t_on = self.now;
        let plpa = self.c.plpa_scm + self.c.plpa_dasd;
        let ds_used: u64 = (0..self.asm.ds_count())
            .map(|d| self.asm.ds_used(d as u16))
            .sum();
        self.out.scm_at_start_bytes = (self.asm.scm_used() - self.c.plpa_scm) * PAGE;
        self.out.aux_at_start_bytes = (self.asm.scm_used() + ds_used - plpa) * PAGE;
        self.last = self.c;
        self.nd_in_tick = 0;
        self.sp_last_pagein.clone_from(&self.sp_pagein);
        for d in 0..self.ds.len() {
            self.ds_last[d] = self.ds[d].counters();
        }
        let think = self.sc.zos.think_time.0 as f64;
        for u in 0..self.sc.zos.users {
            let a = self.new_actor(Act::Tx, u as u64);
            let d = (self.actors[a as usize].rng.f64() * think) as Ns;
            self.at(d, Ev::Run { a });
        }
        let gcs: Vec<(u16, Ns)> = self
            .spaces
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.gc.map(|g| (i as u16, g)))
            .collect();
        let n = gcs.len() as u64;
        for (k, (sp, g)) in gcs.into_iter().enumerate() {
            for t in 0..self.sc.zos.gc_threads as u16 {
                let a = self.new_actor(Act::Gc { sp, t }, 20_000 + 64 * sp as u64 + t as u64);
                self.at(g * (k as u64 + 1) / (n + 1), Ev::Run { a });
            }
        }
        if let Some(t) = self.sc.zos.dump.svc_at {
            self.at(t.0, Ev::SvcDump);
        }
        self.at(SEC, Ev::Tick);
        self.at(self.sc.scenario.duration.0, Ev::SaDump);
    }

    fn tick(&mut self) {
        if self.phase != Phase::Online {
            return;
        }
        if self.system_nd {
            self.nd_in_tick += self.now - self.nd_since;
            self.nd_since = self.now;
        }
        let c = self.c;
        let l = self.last;
        let ds_used: u64 = (0..self.asm.ds_count())
            .map(|d| self.asm.ds_used(d as u16))
            .sum();
        let ds_resp = (0..self.asm.ds_count())
            .map(|d| self.asm.ds_resp(d as u16))
            .sum::<f64>()
            / self.asm.ds_count() as f64;
        self.out.intervals.push(Interval {
            t_s: s(self.now - self.t_on),
            tx: c.tx - l.tx,
            resp_s: s(c.resp_ns - l.resp_ns),
            pagein_scm: c.pagein_scm - l.pagein_scm,
            pagein_scm_1m: c.pagein_scm_1m - l.pagein_scm_1m,
            pagein_dasd: c.pagein_dasd - l.pagein_dasd,
            pagein_spec: c.pagein_spec - l.pagein_spec,
            pageout_scm: c.pageout_scm - l.pageout_scm,
            pageout_scm_1m: c.pageout_scm_1m - l.pageout_scm_1m,
            pageout_dasd: c.pageout_dasd - l.pageout_dasd,
            pageout_vio_dasd: c.pageout_vio_dasd - l.pageout_vio_dasd,
            pageout_vio_scm: c.pageout_vio_scm - l.pageout_vio_scm,
            large_split: c.large_split - l.large_split,
            frames_free: self.free.len() as u64,
            scm_slots_used: self.asm.scm_used(),
            ds_slots_used: ds_used,
            system_nd_s: s(self.nd_in_tick),
            scm_resp_us: if self.asm.has_scm() {
                self.asm.scm_resp() / 1e3
            } else {
                0.0
            },
            ds_resp_us: ds_resp / 1e3,
            lp_speed: self.cec.as_ref().map_or(1.0, |c| {
                let n = self.cpu_free.len();
                (0..n).map(|i| c.speed(i as u16)).sum::<f64>() / n as f64
            }),
        });
        self.last = c;
        self.nd_in_tick = 0;
        let t_s = s(self.now - self.t_on);
        for d in 0..self.ds.len() {
            let now = self.ds[d].counters();
            let l = self.ds_last[d];
            self.out.ds_intervals.push(DsInterval {
                t_s,
                ds: d as u16,
                used: self.asm.ds_used(d as u16),
                reads: now[0] - l[0],
                writes: now[1] - l[1],
                pages_read: now[2] - l[2],
                pages_written: now[3] - l[3],
                busy_s: s(now[4] - l[4]),
                resp_s: s(now[5] - l[5]),
            });
            self.ds_last[d] = now;
        }
        for i in 0..self.spaces.len() {
            self.out.as_intervals.push(AsInterval {
                t_s,
                asid: i as u16 + 1,
                frames: self.sp_frames[i],
                scm_slots: self.sp_scm[i],
                ds_slots: self.sp_ds[i],
                pageins: self.sp_pagein[i] - self.sp_last_pagein[i],
            });
            self.sp_last_pagein[i] = self.sp_pagein[i];
        }
        // Unreferenced interval counts grow: the steal threshold climbs back.
        self.thr = (self.thr * 2 + 1).min(MAX_UIC);
        self.at(SEC, Ev::Tick);
    }

    /// The next event of the page data sets' I/O path model; a completed
    /// I/O ends that data set's request in service.
    fn io_event(&mut self) {
        let p = self.paths.as_mut().expect("an I/O event without paths");
        let (t, ev) = p.core.q.pop().expect("peeked");
        p.core.now = t;
        p.core.events += 1;
        let mut cx = crate::model::Cx::new(&mut p.core, 0);
        let Some(done) = p.io.handle(&mut cx, ev.into_io()) else {
            return;
        };
        p.io.release(done.req);
        p.io.start_next(&mut cx, done.vol);
        let d = done.vol as u16;
        self.ds[d as usize].busy_ns += done.resp_ns;
        self.ds_done(d);
    }

    fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::Step => self.step(),
            Ev::Tick => self.tick(),
            Ev::Run { a } => self.run_actor(a),
            Ev::Flash {
                p,
                who,
                large,
                keep,
            } => self.arrived(p, who, large, keep),
            Ev::Ds { d } => self.ds_done(d),
            Ev::SvcDump => {
                if self.phase == Phase::Online {
                    self.svc_dump()
                }
            }
            Ev::SaDump => self.sa_dump(),
            Ev::Cec => {
                if let Some(c) = self.cec.as_mut() {
                    c.tick(self.now);
                    let d = c.interval();
                    self.at(d, Ev::Cec);
                }
            }
        }
    }

    /// Run to the end (the stand-alone dump done, or the duration without one).
    pub fn run(self) -> Result<Output, String> {
        self.run_checked(0)
    }

    /// Run, checking the invariants ([`Zos::check`]) every `every` events
    /// (0: never).
    pub fn run_checked(mut self, every: u64) -> Result<Output, String> {
        self.at(0, Ev::Step);
        if let Some(c) = &self.cec {
            let d = c.interval();
            self.at(d, Ev::Cec);
        }
        let mut n = 0u64;
        loop {
            // The I/O queue's event first at equal times.
            let tz = self.q.peek_time();
            let ti = self.paths.as_ref().and_then(|p| p.core.q.peek_time());
            match (tz, ti) {
                (None, None) => break,
                (_, Some(ti)) if tz.is_none_or(|tz| ti <= tz) => {
                    self.now = ti;
                    self.io_event();
                }
                _ => {
                    let (t, ev) = self.q.pop().expect("peeked");
                    self.now = t;
                    self.handle(ev);
                }
            }
            if let Some(e) = self.error.take() {
                return Err(e);
            }
            n += 1;
            if every > 0 && n % every == 0 {
                self.check()
                    .map_err(|e| format!("after event {n} at {:.6} s: {e}", s(self.now)))?;
            }
            if self.phase == Phase::Done {
                break;
            }
        }
        if every > 0 {
            self.check()?;
        }
        if self.phase != Phase::Done {
            return Err(format!(
                "the run stopped at {:.3} s in phase {:?}",
                s(self.now),
                self.phase
            ));
        }
        self.out.totals = self.c;
        self.out.data_sets = (0..self.ds.len())
            .map(|i| {
                let d = &self.ds[i];
                let ios = d.reads + d.writes;
                let nth = self.ds[..i].iter().filter(|x| x.lcu == d.lcu).count() as u16;
                DataSet {
                    name: format!("PAGE.{}.LOCAL{:02}", self.sc.zos.name, i + 1),
                    lcu: d.lcu,
                    devno: 0x9000 + 0x100 * d.lcu + nth,
                    slots: self.sc.zos.page_data_sets.size.0 / PAGE,
                    used: self.asm.ds_used(i as u16),
                    reads: d.reads,
                    writes: d.writes,
                    pages_written: d.pages_written,
                    busy_s: s(d.busy_ns),
                    avg_resp_ms: if ios > 0 {
                        d.resp_ns as f64 / ios as f64 / MS as f64
                    } else {
                        0.0
                    },
                }
            })
            .collect();
        Ok(self.out)
    }

    /// Invariants: every page in exactly one place (a frame, SCM, one page
    /// data set, being read from one of them, or never backed); frames and
    /// slots add up to the pages that hold them (PLPA's slots on top).
    pub fn check(&self) -> Result<(), String> {
        #[cfg(any(test, debug_assertions))]
        if let Some(p) = &self.paths {
            p.io.check();
        }
        let mut on_frames = 0usize;
        let mut scm = 0u64;
        let mut ds = vec![0u64; self.ds.len()];
        let nsp = self.spaces.len();
        let (mut spf, mut sps, mut spd) = (vec![0u64; nsp], vec![0u64; nsp], vec![0u64; nsp]);
        for (p, &l) in self.loc.iter().enumerate() {
            let f = self.frame[p];
            let sp = self.sp_of(p as u32);
            match l {
                FRAME => spf[sp] += 1,
                SCM | IN_SCM => sps[sp] += 1,
                DASD | IN_DASD => spd[sp] += 1,
                _ => {}
            }
            match l {
                FRAME => {
                    if f == NONE || self.frame_page[f as usize] != p as u32 {
                        return Err(format!("page {p} resident without its frame"));
                    }
                    if self.aux[p] != NONE {
                        return Err(format!("page {p} in a frame and on auxiliary storage"));
                    }
                    on_frames += 1;
                }
                SCM | IN_SCM => {
                    scm += 1;
                    if f != NONE {
                        return Err(format!("page {p} on SCM and in a frame"));
                    }
                }
                DASD | IN_DASD => {
                    if f != NONE {
                        return Err(format!("page {p} on a page data set and in a frame"));
                    }
                    ds[self.aux[p] as usize] += 1;
                }
                _ => {
                    if f != NONE || self.aux[p] != NONE {
                        return Err(format!("page {p} never backed but holds a frame or slot"));
                    }
                }
            }
        }
        for i in 0..nsp {
            let kept = (self.sp_frames[i], self.sp_scm[i], self.sp_ds[i]);
            if kept != (spf[i], sps[i], spd[i]) {
                return Err(format!(
                    "address space {}: frames, SCM and data set slots kept as {:?}, counted {:?}",
                    self.spaces[i].name,
                    kept,
                    (spf[i], sps[i], spd[i])
                ));
            }
        }
        if on_frames + self.free.len() != self.frame_page.len() {
            return Err(format!(
                "{} resident pages + {} free frames != {} frames",
                on_frames,
                self.free.len(),
                self.frame_page.len()
            ));
        }
        if scm + self.c.plpa_scm != self.asm.scm_used() {
            return Err(format!(
                "SCM: {} pages + PLPA {} != {} slots used",
                scm,
                self.c.plpa_scm,
                self.asm.scm_used()
            ));
        }
        let plpa_ds: u64 = self.c.plpa_dasd;
        let used: u64 = (0..self.ds.len()).map(|d| self.asm.ds_used(d as u16)).sum();
        if ds.iter().sum::<u64>() + plpa_ds != used {
            return Err(format!(
                "page data sets: {} pages + PLPA {} != {} slots used",
                ds.iter().sum::<u64>(),
                plpa_ds,
                used
            ));
        }
        Ok(())
    }
}

/// The unloaded response of a one-page read from a page data set behind its
/// control unit (ASM's starting smoothed response): the CMR baseline, the
/// channel's overhead and the page at the path's rate, and the miss share of
/// a rank access, on the first data set's first channel path, server and
/// rank.
fn unloaded_read_ms(sc: &ZosScenario) -> f64 {
    let d = &sc.zos.page_data_sets;
    let io = sc.io.clone().unwrap_or_default();
    let Some(cu) = sc
        .control_unit
        .iter()
        .find(|c| c.name == d.control_units[0])
    else {
        return 0.0;
    };
    let chp = cu
        .chpids
        .first()
        .and_then(|c| io::params::parse_chpid(c).ok())
        .and_then(|c| {
            io::params::expand_chpids(&sc.chpid)
                .into_iter()
                .find(|&(id, _)| id == c)
                .map(|(_, i)| &sc.chpid[i])
        });
    let sv = sc.storage_server.iter().find(|s| s.name == cu.server);
    let (ovh, rate) = chp.map_or((0.0, 200.0), |c| (c.overhead(), c.rate_mb_s()));
    let rate = sv.map_or(rate, |s| rate.min(s.ha_mb_s));
    let hit = d
        .cache_hit_pct
        .map(|h| h / 100.0)
        .or(sv.map(|s| s.read_hit))
        .unwrap_or(1.0);
    let pos = sv
        .and_then(|s| s.rank.first())
        .map_or(0.0, |r| r.position());
    io.cmr_ms + ovh + PAGE as f64 / (rate * 1e3) + (1.0 - hit) * pos
}

/// Parse, build and run a z/OS partition scenario.
pub fn run_toml(text: &str, origin: &str) -> Result<Output, String> {
    let sc = ZosScenario::from_toml(text, origin).map_err(|e| e.to_string())?;
    Zos::new(&sc).run().map_err(|e| format!("{origin}: {e}"))
}

impl Output {
    /// The records as JSON text (what the Python layer reads).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("records serialise")
    }
}
