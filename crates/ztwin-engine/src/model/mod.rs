//! The z/VM model: one LPAR, its real storage, XSTOR, paging and minidisk
//! volumes, processors and guests, driven by one event queue.
//!
//! The model is a set of components, each a folder with its state (private
//! fields), its events, its counters and its samples (see each `mod.rs`):
//!
//! * [`storage`] — frames, available list, the Era A demand scan, XSTOR, the
//!   guests' address spaces;
//! * [`paging`] — page slots, paging blocks, the block read and write policy;
//! * [`io`] — DASD volumes, I/O requests and their service;
//! * [`cpu`] — logical CPUs, virtual CPUs, scheduler lists, the dispatcher;
//! * [`workload`] — what virtual CPUs do in a burst (thrasher, CPU, minidisk);
//! * [`lpar`] — the CEC (with `[lpar]`): physical processors, the other
//!   partitions, PR/SM's division of the shared pools, steal;
//! * [`segments`] — saved segments (DCSS/NSS): system data files, their
//!   classes and users, the frames of their shared and private copies;
//! * [`spool`] — spool volumes, spool files, the transfers of saved-segment
//!   pages through `io`;
//! * [`vdisk`] — virtual disks in storage: their system-owned address
//!   spaces in `storage`, SET VDISK's limits, the CP cost and serialisation
//!   of a VDISK I/O;
//! * [`net`] — HiperSockets channel paths and the guests' real QDIO devices
//!   (HiperSockets, OSA): how long a send holds the sender (a HiperSockets
//!   copy waits for the peer partition's processor, from [`lpar`]) and the
//!   peer's turn takes;
//! * [`cp`] — CP commands and DIAGNOSE X'64' as timeline actions, and the
//!   console log of their responses;
//! * [`monitor`] — the outbox of event records, and the emitter that turns
//!   the components' samples into CP Monitor records (one file per domain);
//! * `tests/` — whole-run tests.
//!
//! [`Twin`] is the clock and queue ([`Core`]) plus the [`Model`], the
//! components side by side. This file is the wiring: [`Ev`] (into which each
//! component's own event enum converts), the run loop, and the steps that involve more than one
//! component as `Model` methods that split the borrow: `handle` (which event
//! goes where), `io_done` (each I/O completion to the owner of its
//! [`io::Origin`]), `get_frame` (storage's frame, the scan's page-outs to
//! paging, the frame waiters it woke to cpu), logon, logoff, HF sampling, the
//! timeline. Every step is given a [`Cx`] (the core, the logical CPU doing the
//! work, the CP time it costs). Counters are written only by the component
//! that owns them (per-CPU and per-guest breakdowns included, indexed by
//! `cx.cpu` or the guest); the monitor reads samples.
//!
//! Every CP operation charges CP time (to the guest it serves, or to the
//! system), so T/V and capture ratio come out of the model rather than being
//! set by the scenario.

pub mod cp;
pub mod cpu;
pub mod flash;
pub mod io;
pub mod linux;
pub mod lpar;
pub mod mdc;
pub mod monitor;
pub mod net;
pub mod paging;
pub mod segments;
pub mod spool;
pub mod storage;
pub mod vdisk;
pub mod workload;
pub mod zos;

use crate::core::rng::{Rng, Stream};
use crate::core::units::Ns;
use crate::scenario::{Action, Scenario};
use cpu::{Cpus, GuestDef};
use io::{Io, Origin};
use paging::{Backing, Paging};
use storage::Storage;
use workload::params::Workload;
use workload::Workloads;

/// Events of the simulation. Small and `Copy`: the queue never allocates per
/// event.
///
/// Each component schedules only its own sub-enum (`cpu::Ev`, `io::Ev`,
/// `monitor::Ev`), which converts into this one (`From`); `Model::handle`
/// matches it back to the component. The queue's enum is flat rather than
/// made of the sub-enums: a nested enum's packed tag cost 23 instructions per
/// paging I/O in the S1 window (2,083 -> 2,060). A new component's events are
/// new variants here and one `From` arm.
#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// `cpu::Ev::BurstEnd`.
    BurstEnd { cpu: u32 },
    /// `io::Ev::Done`.
    IoDone { vol: u32 },
    /// `io::Ev::Step` (path model).
    IoStep { req: u32 },
    /// `io::Ev::Arm` (path model).
    IoArm { op: u32 },
    /// `io::Ev::Da` (path model).
    IoDa { op: u32 },
    /// `cpu::Ev::Wake`.
    Wake { vcpu: u32 },
    /// `cpu::Ev::TestIdle`.
    TestIdle { guest: u32, gen: u32 },
    /// `monitor::Ev::Hf`.
    Hf,
    /// `monitor::Ev::Sample`.
    Sample,
    /// A timeline action (the wiring's own).
    Timeline { idx: u32 },
    /// The storage manager's and scheduler's periodic work ([`storage::TICK`]).
    Tick,
    /// `lpar::Ev::Tick`.
    CecTick,
    /// `spool::Ev::Next`.
    SpoolNext { t: u32 },
}

// Events stay small: 12 bytes, 32 per queue entry with its time and sequence.
const _: () = assert!(std::mem::size_of::<Ev>() <= 12);
const _: () = assert!(crate::core::queue::entry_size::<Ev>() == 32);

impl Ev {
    /// Which kind of event (for counting them by kind: burst end, I/O,
    /// wake, test idle, HF, sample, timeline, tick, spool).
    #[inline]
    pub fn kind(&self) -> usize {
        match self {
            Ev::BurstEnd { .. } => 0,
            Ev::IoDone { .. } | Ev::IoStep { .. } | Ev::IoArm { .. } | Ev::IoDa { .. } => 1,
            Ev::Wake { .. } => 2,
            Ev::TestIdle { .. } => 3,
            Ev::Hf => 4,
            Ev::Sample => 5,
            Ev::Timeline { .. } => 6,
            Ev::Tick => 7,
            Ev::CecTick => 8,
            Ev::SpoolNext { .. } => 9,
        }
    }
}

impl From<cpu::Ev> for Ev {
    #[inline(always)]
    fn from(e: cpu::Ev) -> Ev {
        match e {
            cpu::Ev::BurstEnd { cpu } => Ev::BurstEnd { cpu },
            cpu::Ev::Wake { vcpu } => Ev::Wake { vcpu },
            cpu::Ev::TestIdle { guest, gen } => Ev::TestIdle { guest, gen },
        }
    }
}

impl From<io::Ev> for Ev {
    #[inline(always)]
    fn from(e: io::Ev) -> Ev {
        match e {
            io::Ev::Done { vol } => Ev::IoDone { vol },
            io::Ev::Step { req } => Ev::IoStep { req },
            io::Ev::Arm { op } => Ev::IoArm { op },
            io::Ev::Da { op } => Ev::IoDa { op },
        }
    }
}

impl Ev {
    /// The I/O component's event back from the flat one (an I/O event only).
    #[inline(always)]
    pub(crate) fn into_io(self) -> io::Ev {
        match self {
            Ev::IoDone { vol } => io::Ev::Done { vol },
            Ev::IoStep { req } => io::Ev::Step { req },
            Ev::IoArm { op } => io::Ev::Arm { op },
            Ev::IoDa { op } => io::Ev::Da { op },
            _ => unreachable!("not an I/O event: {self:?}"),
        }
    }
}

impl From<lpar::Ev> for Ev {
    #[inline(always)]
    fn from(e: lpar::Ev) -> Ev {
        match e {
            lpar::Ev::Tick => Ev::CecTick,
        }
    }
}

impl From<spool::Ev> for Ev {
    #[inline(always)]
    fn from(e: spool::Ev) -> Ev {
        match e {
            spool::Ev::Next { t } => Ev::SpoolNext { t },
        }
    }
}

impl From<monitor::Ev> for Ev {
    #[inline(always)]
    fn from(e: monitor::Ev) -> Ev {
        match e {
            monitor::Ev::Hf => Ev::Hf,
            monitor::Ev::Sample => Ev::Sample,
        }
    }
}

/// What a run produced.
#[derive(Clone, Debug, Default)]
pub struct RunSummary {
    pub sim_ns: Ns,
    pub wall_s: f64,
    pub events: u64,
    pub page_refs: u64,
    pub intervals: u64,
    pub records: u64,
    pub bytes: u64,
    /// The CP console: commands of the timeline and their responses.
    pub console: Vec<String>,
}

impl RunSummary {
    pub fn refs_per_s(&self) -> f64 {
        self.page_refs as f64 / self.wall_s.max(1e-9)
    }
    pub fn events_per_s(&self) -> f64 {
        self.events as f64 / self.wall_s.max(1e-9)
    }
    pub fn sim_per_wall(&self) -> f64 {
        self.sim_ns as f64 / 1e9 / self.wall_s.max(1e-9)
    }
}

/// Why a run stopped early.
#[derive(Debug)]
pub enum RunError {
    /// The model reached a state CP itself would not survive (e.g. PGT004).
    Abend {
        at_ns: Ns,
        code: &'static str,
        reason: String,
    },
    Io(String),
    /// Stopped by the caller (e.g. Ctrl-C).
    Interrupted,
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Abend {
                at_ns,
                code,
                reason,
            } => {
                write!(
                    f,
                    "simulated system abend {code} at {:.3} s: {reason}",
                    *at_ns as f64 / 1e9
                )
            }
            RunError::Io(e) => write!(f, "{e}"),
            RunError::Interrupted => write!(f, "interrupted"),
        }
    }
}

impl std::error::Error for RunError {}

impl From<crate::core::Abend> for RunError {
    fn from(a: crate::core::Abend) -> RunError {
        RunError::Abend {
            at_ns: a.at_ns,
            code: a.code,
            reason: a.reason,
        }
    }
}

/// The engine core as the model uses it: its events.
pub type Core = crate::core::Core<Ev>;
/// A component's working context: the core, the logical CPU, the CP time charged.
pub type Cx<'a> = crate::core::Cx<'a, Ev>;

/// The whole simulated LPAR: the clock and event queue, and the model.
pub struct Twin {
    pub(crate) core: Core,
    pub(crate) model: Model,
}

/// The components, side by side; the steps that involve several are methods.
pub struct Model {
    pub(crate) st: Storage,
    pub(crate) pg: Paging,
    pub(crate) io: Io,
    pub(crate) cpu: Cpus,
    pub(crate) work: Workloads,
    pub(crate) mdc: mdc::Mdc,
    pub(crate) mon: monitor::Monitor,
    /// The CEC and its other partitions (`[lpar]`), if the scenario has one.
    pub(crate) cec: Option<lpar::Cec>,
    pub(crate) seg: segments::Segments,
    pub(crate) spool: spool::Spool,
    pub(crate) console: cp::Console,
    pub(crate) vdisk: vdisk::Vdisks,
    /// Linux inside the guests that run it (`linux` tables).
    pub(crate) linux: linux::Linux,
    /// HiperSockets CHPIDs and the guests' QDIO devices.
    pub(crate) net: net::Net,
    /// Each guest's directory VDISKs (device, blocks), created at logon.
    vdisk_dir: Vec<Vec<(u16, u64)>>,
    /// DIAGNOSE X'64' calls waiting for the same guest's load to return.
    diag_waiting: Vec<(u32, String)>,
    /// CP LOCK commands waiting for their pages to come in (`cp.rs`).
    lock_waits: Vec<cp::LockWait>,
    /// CP time per spool I/O and per page it moves.
    spool_io_ns: Ns,
    spool_page_ns: Ns,
    /// Guests logged on at time zero.
    initial: Vec<u32>,
    /// The timeline, each action resolved to the guests it names.
    timeline: Vec<TimelineAction>,
    /// Events handled, by kind (burst end, I/O done, wake, test idle, HF,
    /// sample, timeline, tick, CEC tick, spool), for profiling.
    ev_counts: [u64; 10],
}

/// A timeline action at `at`, for guests `guests` (the `cache` and `mdc`
/// actions: on volume `vol` or server `server`, `on` or off).
struct TimelineAction {
    at: Ns,
    action: Action,
    guests: Vec<u32>,
    workload: Option<Workload>,
    command: Option<String>,
    vol: Option<u32>,
    server: Option<String>,
    on: bool,
}

/// Page-table bytes of random touchers above which prefetching ahead of them
/// pays (about a last-level cache; below it the entries mostly stay cached and
/// the prefetching is extra work).
const LOOKAHEAD_MIN_BYTES: u64 = 32 << 20;

/// Page-table bytes covering the areas of the scenario's random (not serial)
/// thrashers, as they log on.
fn random_toucher_tables(sc: &Scenario) -> u64 {
    sc.guests
        .iter()
        .map(|g| match &g.workload {
            Some(Workload::Thrasher { area, pattern, .. })
                if *pattern != workload::params::Pattern::Serial =>
            {
                let pages = area.pages().min(g.virtual_storage.pages());
                g.count as u64 * pages * std::mem::size_of::<storage::PageEntry>() as u64
            }
            _ => 0,
        })
        .sum()
}

impl Twin {
    /// Build the model from a validated scenario: each component from its
    /// parameters.
    pub fn new(sc: &Scenario, seed: u64, duration: Option<Ns>) -> Twin {
        let ncpu = sc.system.processors as usize;
        // The guests, in group order, each group's members numbered.
        let mut defs = Vec::new();
        let mut users = Vec::new();
        let mut vpages = Vec::new();
        let mut works = Vec::new();
        let mut initial = Vec::new();
        let mut vdisk_dir = Vec::new();
        for g in &sc.guests {
            for (k, id) in cpu::params::expand_userids(&g.userid, g.count)
                .into_iter()
                .enumerate()
            {
                if g.logged_on {
                    initial.push(defs.len() as u32);
                }
                users.push(id.clone());
                defs.push(GuestDef {
                    userid: id,
                    nvcpu: g.virtual_cpus,
                    share: g.share,
                    quickdsp: g.quickdsp,
                });
                vpages.push(g.virtual_storage.pages() as u32);
                vdisk_dir.push(
                    g.vdisk
                        .iter()
                        .map(|d| d.check("").expect("validated"))
                        .collect(),
                );
                works.push((
                    g.workload.clone().unwrap_or(Workload::Idle),
                    g.virtual_cpus,
                    k as u32,
                ));
            }
        }
        let defs_len = defs.len();
        let mut st = Storage::new(&sc.storage(), ncpu, &vpages);
        // Saved segments Linux guests mount -o xip: one shared address space each.
        let mut xip: Vec<linux::Xip> = Vec::new();
        for g in &sc.guests {
            if let Some(workload::params::Workload::LinuxDb {
                segment: Some(name),
                ..
            }) = &g.workload
            {
                let name = name.to_ascii_uppercase();
                if xip.iter().any(|x| x.name == name) {
                    continue;
                }
                let def = sc
                    .segments
                    .iter()
                    .filter_map(|s| s.def().ok())
                    .find(|d| d.name.eq_ignore_ascii_case(&name))
                    .expect("validated");
                let space = st.create_system_space(def.pages().total);
                if segments::all_spool_backed(&def) {
                    st.set_spool_backed(space);
                }
                xip.push(linux::Xip {
                    name,
                    space,
                    loads: 0,
                });
            }
        }
        let (mut vols, slots) = io::params::volumes(&sc.paging, &sc.dasd);
        // Spool volumes follow the paging and minidisk volumes (so those keep
        // their numbers and random streams).
        let mut spool_vols = Vec::new();
        for (def, n) in spool::params::volumes(&sc.spool) {
            spool_vols.push((vols.len() as u32, n));
            vols.push(def);
        }
        let devnos: Vec<u16> = vols.iter().map(|v| v.devno).collect();
        let io = Io::new(vols, ncpu, seed, &sc.io_config());
        let mdc = mdc::Mdc::new(sc.mdc.as_ref(), &devnos, &users);
        let mut spool = spool::Spool::new(&spool_vols, sc.spool_options.pages_per_io);
        spool.set_write_page_ns(crate::core::us_to_ns(sc.spool_options.write_page_us));
        let mut seg = segments::Segments::new();
        for s in &sc.segments {
            let def = s.def().expect("validated");
            if s.saved {
                let pages = def.pages().saved() + 1;
                let (file, id) = spool.create(pages).expect("validated: spool has room");
                seg.preload(def, file, id);
            } else {
                seg.defseg(def, 0).expect("a skeleton");
            }
        }
        let mut pg = Paging::new(&sc.paging_params(), &slots, ncpu, defs.len());
        for (pv, used) in io::params::paging_used(&sc.paging).into_iter().enumerate() {
            if used > 0.0 {
                pg.occupy(pv as u32, used);
            }
        }
        let mut cpu = Cpus::new(&sc.cpu(), defs);
        cpu.set_exposures(slots.len() as u32);
        let work = Workloads::new(
            works,
            |v| Rng::new(seed, Stream::Vcpu, v as u64),
            random_toucher_tables(sc) > LOOKAHEAD_MIN_BYTES,
            &sc.workload_costs(),
        );
        let cec = sc
            .lpar
            .as_ref()
            .map(|p| lpar::Cec::new(p, &sc.zvm_partition()));
        let net_devs = sc.net_devices(|name| cec.as_ref().and_then(|c| c.find(name)));
        let mon = monitor::Monitor::new(
            &sc.monitor,
            monitor::SystemId {
                cp_level: sc.system.cp_level.clone(),
                system_id: sc.system.system_id.clone(),
                cpu_model: sc.system.cpu_model.clone(),
                lpar_name: sc.system.lpar_name.clone(),
                cpu_type: match sc.system.processor_type {
                    crate::scenario::ProcessorType::CP => 0,
                    crate::scenario::ProcessorType::IFL => 3,
                },
                central_storage: sc.system.central_storage.0,
            },
        );
        // Guest numbers of the groups' first members.
        let mut first = Vec::new();
        let mut n = 0;
        for g in &sc.guests {
            first.push(n);
            n += g.count;
        }
        let timeline = sc
            .timeline
            .iter()
            .map(|t| TimelineAction {
                at: t.at.0,
                action: t.action,
                guests: sc
                    .resolve_guests(&t.guest)
                    .into_iter()
                    .map(|(grp, k)| first[grp] + k)
                    .collect(),
                workload: t.workload.clone(),
                command: t.command.clone(),
                vol: t.device.as_deref().map(|d| {
                    let dev = io::params::parse_devno(d).expect("validated");
                    devnos.iter().position(|&x| x == dev).expect("validated") as u32
                }),
                server: t.server.clone(),
                on: t.on.unwrap_or(true),
            })
            .collect();
        Twin {
            core: Core::new(duration.unwrap_or(sc.scenario.duration.0)),
            model: Model {
                st,
                pg,
                io,
                cpu,
                work,
                mdc,
                mon,
                cec,
                seg,
                spool,
                console: cp::Console::default(),
                vdisk: vdisk::Vdisks::new(&sc.vdisk, sc.system.central_storage.0),
                vdisk_dir,
                linux: linux::Linux::with_xip(xip).new_guests(
                    sc.guests
                        .iter()
                        .flat_map(|g| {
                            let d = g.linux.as_ref().map(|p| {
                                let swap = sc.linux_swap_sizes(g, "linux").expect("validated");
                                let files = match &g.workload {
                                    Some(workload::params::Workload::LinuxDb {
                                        database,
                                        device: Some(_),
                                        ..
                                    }) => database.pages() as usize,
                                    _ => 0,
                                };
                                (p.clone(), g.virtual_storage.0, swap, files)
                            });
                            std::iter::repeat_n(d, g.count as usize)
                        })
                        .collect(),
                ),
                net: net::Net::new(
                    &sc.net,
                    &sc.hipersockets,
                    &sc.osa,
                    &sc.vswitch,
                    net_devs,
                    defs_len,
                ),
                diag_waiting: Vec::new(),
                lock_waits: Vec::new(),
                spool_io_ns: crate::core::us_to_ns(sc.cp_costs.io_us),
                spool_page_ns: crate::core::us_to_ns(sc.cp_costs.page_io_us),
                initial,
                timeline,
                ev_counts: [0; 10],
            },
        }
    }

    /// Run to the end, writing monitor records through `emit`.
    pub fn run(
        &mut self,
        emit: &mut monitor::Emitter<impl std::io::Write>,
        progress: &mut dyn FnMut(Ns, Ns) -> bool,
    ) -> Result<(), RunError> {
        self.begin(emit)?;
        self.resume(emit, progress)
    }

    /// The start of a run: the initial events, the configuration records,
    /// the first dispatch.
    pub(crate) fn begin(
        &mut self,
        emit: &mut monitor::Emitter<impl std::io::Write>,
    ) -> Result<(), RunError> {
        self.model.start(&mut self.core);
        emit.config(self)?;
        // Guests that log on with work start at once (not at the first event).
        if self.model.cpu.any_ready() {
            self.model.dispatch_idle_cpus(&mut self.core);
        }
        Ok(())
    }

    /// Run on from where the last run stopped to `core.end` (a test may move
    /// the end and resume: the first event after the old end was kept).
    pub(crate) fn resume(
        &mut self,
        emit: &mut monitor::Emitter<impl std::io::Write>,
        progress: &mut dyn FnMut(Ns, Ns) -> bool,
    ) -> Result<(), RunError> {
        while let Some((t, ev)) = self.core.q.pop() {
            if t > self.core.end {
                self.core.q.push(t, ev);
                break;
            }
            self.core.now = t;
            self.core.events += 1;
            let m = &mut self.model;
            m.ev_counts[ev.kind()] += 1;
            if let Ev::Sample = ev {
                #[cfg(debug_assertions)]
                self.model.check();
                emit.sample(self)?;
                if !progress(t, self.core.end) {
                    return Err(RunError::Interrupted);
                }
                let next = t + self.model.mon.sample_interval;
                self.core.q.push(next, monitor::Ev::Sample.into());
            } else {
                let mut cx = Cx::new(&mut self.core, m.cpu.irq_cpu());
                m.handle(&mut cx, ev);
            }
            let m = &mut self.model;
            if m.cpu.any_ready() {
                m.dispatch_idle_cpus(&mut self.core);
            }
            if self.core.abend.is_some() {
                let e = self.core.abend.take().expect("an abend");
                return Err(e.into());
            }
        }
        self.core.now = self.core.end;
        if std::env::var_os("ZTWIN_DEBUG").is_some() {
            self.model.debug_summary(self.core.now);
        }
        Ok(())
    }

    /// Page references so far.
    pub fn refs(&self) -> u64 {
        self.model.work.refs()
    }
}

impl Model {
    /// Schedule the initial events: logons, monitor ticks, timeline.
    fn start(&mut self, core: &mut Core) {
        let mut cx = Cx::new(core, 0);
        for k in 0..self.initial.len() {
            let g = self.initial[k];
            self.logon(&mut cx, g);
        }
        debug_assert_eq!(cx.charge, Default::default());
        core.q.push(self.mon.hf_rate, monitor::Ev::Hf.into());
        core.q.push(storage::TICK, Ev::Tick);
        core.q
            .push(self.mon.sample_interval, monitor::Ev::Sample.into());
        for (i, t) in self.timeline.iter().enumerate() {
            core.q.push(t.at, Ev::Timeline { idx: i as u32 });
        }
        if let Some(cec) = &self.cec {
            core.q.push(cec.interval(), lpar::Ev::Tick.into());
        }
    }

    /// Handle one event (all but the sample, which the emitter takes): which
    /// component each event goes to.
    #[inline(always)]
    fn handle(&mut self, cx: &mut Cx, ev: Ev) {
        match ev {
            Ev::BurstEnd { cpu } => self.burst_end(cx, cpu as u16),
            Ev::IoDone { .. } | Ev::IoStep { .. } | Ev::IoArm { .. } | Ev::IoDa { .. } => {
                if let Some(d) = self.io.handle(cx, ev.into_io()) {
                    self.io_done(cx, d);
                }
                // Interrupt-level CP work (the migration it continues) is
                // charged to the CPU's next burst, so busy time never runs
                // ahead of elapsed time.
                if cx.charge.sys != 0 {
                    self.cpu.owe_sys(cx.cpu, std::mem::take(&mut cx.charge.sys));
                }
            }
            Ev::Wake { vcpu } => self.cpu.wake(&mut self.st, vcpu, cx.now()),
            Ev::TestIdle { guest, gen } => self.cpu.test_idle(&mut self.st, guest, gen, cx.now()),
            Ev::Hf => {
                self.hf_sample(cx.now());
                cx.at(self.mon.hf_rate, monitor::Ev::Hf);
            }
            Ev::Sample => unreachable!("the emitter takes samples"),
            Ev::Timeline { idx } => self.timeline(cx, idx as usize),
            Ev::SpoolNext { t } => {
                self.spool.on_next(cx, &mut self.io, t);
                if cx.charge.sys != 0 {
                    self.cpu.owe_sys(cx.cpu, std::mem::take(&mut cx.charge.sys));
                }
            }
            Ev::Tick => {
                self.tick(cx.now());
                cx.at(storage::TICK, Ev::Tick);
            }
            Ev::CecTick => {
                let cec = self.cec.as_mut().expect("a CEC tick without a CEC");
                cec.tick(cx.core.now);
                cx.at(cec.interval(), lpar::Ev::Tick);
            }
        }
        debug_assert_eq!(cx.charge, Default::default(), "{ev:?} charged CP time");
    }

    /// An I/O completed: its origin's owner takes it; then the volume starts
    /// its next request (unless the completion work already started one
    /// there). This match is the list of who issues I/O.
    fn io_done(&mut self, cx: &mut Cx, d: io::Done) {
        let vol = d.vol;
        match d.origin {
            Origin::PageRead { block } => {
                self.block_read_done(cx, &d, block);
                self.lock_waits_go_on(cx);
            }
            Origin::PageWrite { block } => {
                self.block_written(&d, block);
                self.pageout_done(block);
                self.pump_pageouts(cx);
                self.lock_waits_go_on(cx);
            }
            Origin::Migrate { block } => {
                self.block_written(&d, block);
                self.migration_done(cx, block);
            }
            Origin::Spool { .. } => self.spool_io_done(cx, &d),
            Origin::Minidisk { vcpu } => self.minidisk_io_done(vcpu),
            Origin::Mdc { slot } => self.mdc_stage_done(slot),
            Origin::Linux { vcpu, stream, path } => self.linux_io_done(vcpu, stream, path),
        }
        self.io.release(d.req);
        self.io.start_next(cx, vol);
    }

    /// A frame for page (g, vp): storage takes it, running the demand scan
    /// if the available list is low; the page-outs the scan chose go to
    /// paging, the frame waiters freed frames woke go to cpu.
    #[inline(always)]
    pub(crate) fn get_frame(&mut self, cx: &mut Cx, g: u32, vp: u32) -> Option<u32> {
        // The minidisk cache is the first victim when frames run short.
        if self.st.short_of_frames() && self.mdc.held().0 > 0 {
            self.mdc_first_victim();
        }
        let Model { st, pg, io, .. } = self;
        let f = st.get_frame(cx, &mut Backing { pg, io }, g, vp);
        if !st.pageouts().is_empty() {
            self.write_pageouts(cx);
        }
        self.wake_frame_waiters();
        f
    }

    /// Take frames back from the minidisk cache before a demand scan (an
    /// eighth of what it holds, at least 64).
    #[inline(never)]
    fn mdc_first_victim(&mut self) {
        let held = self.mdc.held().0;
        self.mdc.shrink((held / 8).max(64));
        self.mdc_give_back();
    }

    /// Hand the demand scan's page-outs to paging, which writes them as the
    /// paging volumes have room.
    #[inline(never)]
    fn write_pageouts(&mut self, cx: &mut Cx) {
        self.pg.queue_pageouts(self.st.pageouts());
        self.st.clear_pageouts();
        self.pump_pageouts(cx);
    }

    /// Frame waiters woken by freed frames are ready to run.
    #[inline(always)]
    pub(crate) fn wake_frame_waiters(&mut self) {
        for v in self.st.drain_woken() {
            self.cpu.make_ready(v);
        }
    }

    /// First change of resident page (g, vp): its DASD copy is released.
    #[inline]
    pub(crate) fn first_change(&mut self, g: u32, vp: u32) {
        let Model { st, pg, io, .. } = self;
        st.first_change(&mut Backing { pg, io }, g, vp);
    }

    /// Forget page `vp` of a guest that logged off (see `Storage::discard`).
    pub(crate) fn discard_page(&mut self, g: u32, vp: u32) {
        let Model { st, pg, io, .. } = self;
        st.discard(&mut Backing { pg, io }, g, vp);
        self.wake_frame_waiters();
    }

    /// Guest `g` logs on: an empty address space, dormant, its workload started.
    pub(crate) fn logon(&mut self, cx: &mut Cx, g: u32) {
        if self.cpu.logged_on(g) {
            return;
        }
        self.st.create_space(g);
        self.cpu.logon(g, cx.now());
        self.linux.logon(g);
        self.mon.event(monitor::PendingEvent::Logon, g, cx.now());
        self.vdisk_logon(cx, g);
        let w = self.work.workload(g).clone();
        self.start_workload(cx, g, w);
    }

    /// Guest `g` logs off: its workload stops and its pages are forgotten
    /// (those with I/O in flight when the I/O completes).
    pub(crate) fn logoff(&mut self, cx: &mut Cx, g: u32) {
        if !self.cpu.logged_on(g) {
            return;
        }
        self.stop_workload(g, cx.now());
        self.linux.logoff(g);
        self.cpu.logoff(g);
        self.st.logoff(g);
        for vp in 0..self.st.vpages(g) {
            self.discard_page(g, vp);
        }
        self.st.clear_wss(g);
        self.detach_segments(cx, g, None);
        self.vdisk_logoff(g);
        self.mon.event(monitor::PendingEvent::Logoff, g, cx.now());
    }

    /// High-frequency sampling (the monitor's): CPU counts and virtual CPU
    /// states, then device queues. It changes nothing in the system.
    fn hf_sample(&mut self, now: Ns) {
        self.cpu.hf_tick(now);
        self.io.hf_tick();
    }

    /// The storage manager's tick (its own period, [`storage::TICK`]): the
    /// demand rate, thresholds and working sets, the minidisk cache's
    /// arbiter (its targets from storage's state), then admission to the
    /// dispatch list.
    fn tick(&mut self, now: Ns) {
        self.st.tick();
        self.mdc_arbiter(now);
        self.cpu.tick(&mut self.st, now);
        self.cpu.admit_eligible(&mut self.st, now);
    }

    /// A minidisk-cache staging completed: storage lends the frames the
    /// cache may take for it, the cache inserts (reusing its own least
    /// recently used frames beyond them), the waiting guest owes the
    /// insertion's CP time and runs again.
    fn mdc_stage_done(&mut self, slot: u32) {
        let want = self.mdc.stage_frames(slot);
        let lent = if want > 0 { self.st.lend_mdc(want) } else { 0 };
        let (vcpu, cp) = self.mdc.end_stage(slot, lent);
        self.mdc_give_back();
        self.cpu.owe_cp(vcpu, cp);
        self.minidisk_io_done(vcpu);
    }

    /// Frames and XSTOR blocks the minidisk cache freed go back to storage.
    #[inline]
    fn mdc_give_back(&mut self) {
        let (cs, xs) = self.mdc.take_released();
        if cs > 0 {
            self.st.unlend_mdc(cs);
            self.wake_frame_waiters();
        }
        if xs > 0 {
            self.st.unlend_mdc_xstor(xs);
        }
    }

    /// The minidisk cache's arbiter (at each storage tick): its
    /// targets from storage's state, then the XSTOR blocks it may hold.
    fn mdc_arbiter(&mut self, now: Ns) {
        if !self.mdc.configured() {
            return;
        }
        let s = self.st.sample(now);
        self.mdc.arbiter(&mdc::ArbiterInput {
            dpa: s.dpa as u64,
            avail: s.avail as u64,
            high: s.high as u64,
            scans: s.c.scans,
            xs_total: s.xs_total as u64,
            xs_free: s.xs_free as u64,
            xs_low: s.xs_low as u64,
            migrations: s.c.migrated,
        });
        self.mdc_give_back();
        let room = self.mdc.xstor_room();
        if room > 0 {
            let n = self.st.lend_mdc_xstor(room);
            self.mdc.lend_xstor(n);
        }
    }

    /// Consistency of the components' state (debug builds, at each sample).
    #[cfg(any(test, debug_assertions))]
    pub(crate) fn check(&self) {
        self.io.check();
        self.pg.check();
        self.st.check();
        self.spool.check();
        self.seg.check();
        self.vdisk.check();
        self.net.check();
        assert_eq!(
            self.st.segment_frames() as u64,
            self.seg.frames(),
            "frames storage lent to saved segments vs frames they hold"
        );
        self.mdc.check();
        let (cs, xs) = self.mdc.held();
        assert_eq!(
            (cs, xs),
            self.st.mdc_lent(),
            "frames the cache holds vs lent"
        );
    }

    /// Timeline action `idx`, for each guest it names in turn.
    fn timeline(&mut self, cx: &mut Cx, idx: usize) {
        if let (Action::Cp, Some(c)) = (self.timeline[idx].action, &self.timeline[idx].command) {
            let c = c.clone();
            let issuer = self.timeline[idx]
                .guests
                .first()
                .copied()
                .unwrap_or(u32::MAX);
            self.cp_command(cx, issuer, &c);
            return;
        }
        let t = &self.timeline[idx];
        match t.action {
            Action::Cache => {
                self.io.set_cache(t.vol, t.server.as_deref(), t.on);
                return;
            }
            Action::Mdc => {
                let (vol, on) = (t.vol, t.on);
                if t.guests.is_empty() {
                    self.mdc.set(vol, None, on);
                } else {
                    for k in 0..t.guests.len() {
                        let g = self.timeline[idx].guests[k];
                        self.mdc.set(None, Some(g), on);
                    }
                }
                self.mdc_give_back();
                return;
            }
            _ => {}
        }
        for k in 0..self.timeline[idx].guests.len() {
            let t = &self.timeline[idx];
            let gi = t.guests[k];
            match t.action {
                Action::Logon => self.logon(cx, gi),
                Action::Logoff => self.logoff(cx, gi),
                Action::Start => {
                    let w = t
                        .workload
                        .clone()
                        .unwrap_or_else(|| self.work.workload(gi).clone());
                    self.start_workload(cx, gi, w);
                }
                Action::Stop => self.stop_workload(gi, cx.now()),
                Action::Cp | Action::Cache | Action::Mdc => unreachable!("handled above"),
                Action::Diag64 => {
                    let c = t.command.clone().expect("validated");
                    self.diag64(cx, gi, &c);
                }
            }
        }
    }

    /// Developer aid (`ZTWIN_DEBUG=1`): the components' samples at the end of
    /// a run, on stderr. Nothing here reaches the MONWRITE file.
    fn debug_summary(&self, now: Ns) {
        eprintln!(
            "events by kind (burst, io, wake, testidle, hf, sample, timeline, tick, spool): {:?}",
            self.ev_counts
        );
        eprintln!("storage: {:?}", self.st.sample(now));
        let (migrating, fifo, waiters) = self.st.debug_state();
        eprintln!(
            "xstor migrating {migrating} fifo {fifo}; frame waiters {waiters}, ready {}",
            self.cpu.ready_count()
        );
        eprintln!("paging: {:?}", self.pg.sample());
        let busy: Vec<_> = self.io.devices().map(|d| (d.busy, d.queued)).collect();
        let (reqs, free) = self.io.arena();
        eprintln!("volumes (busy, queued): {busy:?}; I/O requests {reqs} ({free} free)");
        self.debug_io(now);
    }

    /// The I/O side of `ZTWIN_DEBUG` (whole run): per subchannel its SSCH
    /// rate and mean pending, disconnect, connect and response, and the
    /// I/Os the minidisk cache avoided; channels, ranks, the cache, and
    /// each guest's virtual I/Os and CPU.
    fn debug_io(&self, now: Ns) {
        let secs = now as f64 / 1e9;
        if secs <= 0.0 {
            return;
        }
        let ms = |ns: u64, n: u64| ns as f64 / n.max(1) as f64 / 1e6;
        for d in self.io.devices().filter(|d| d.c.ssch > 0) {
            let c = d.c;
            eprintln!(
                "dev {:04X}{} ssch/s {:.1} avoid/s {:.1} pend {:.3} disc {:.3} conn {:.3} resp {:.3} ms hfq {:.2}",
                d.devno,
                d.alias_of.map_or(String::new(), |b| format!("->{b:04X}")),
                c.ssch as f64 / secs,
                if d.alias_of.is_none() && !d.hyperpav { self.mdc.avoided(d.index) as f64 / secs } else { 0.0 },
                ms(c.pend_ns, c.ssch),
                ms(c.disc_ns, c.ssch),
                ms(c.conn_ns, c.ssch),
                ms(c.resp_ns, c.ssch),
                c.hf_queue as f64 / c.hf_count.max(1) as f64,
            );
        }
        for c in self.io.chpids() {
            eprintln!(
                "chpid {:02X} {:?} busy {:.1}% ios/s {:.1} MB/s {:.1}",
                c.id,
                c.kind,
                c.busy_ns as f64 / (now as f64 * c.slots as f64) * 100.0,
                c.ios as f64 / secs,
                c.bytes as f64 / secs / 1e6
            );
        }
        for r in self.io.ranks() {
            eprintln!(
                "rank {} busy {:.1}% (of {} arms) stages {} syncs {} destages {} prestages {}",
                r.name,
                r.busy_ns as f64 / (now as f64 * r.arms as f64) * 100.0,
                r.arms,
                r.stages,
                r.syncs,
                r.destages,
                r.prestages
            );
        }
        let pc = self.io.path_counters();
        if pc.started > 0 {
            eprintln!(
                "path model: {pc:?}; adapters busy {:.1}% (device) / {:.1}% (host, summed)",
                pc.da_busy_ns as f64 / now as f64 * 100.0,
                pc.ha_busy_ns as f64 / now as f64 * 100.0
            );
        }
        if self.mdc.configured() {
            let s = self.st.sample(now);
            eprintln!(
                "mdc: {:?}",
                self.mdc.sample(s.dpa as u64, s.xs_total as u64)
            );
        }
        for g in 0..self.cpu.guest_count() {
            let (mut vio, mut tt, mut vt) = (0u64, 0u64, 0u64);
            for v in self.cpu.vcpus(g) {
                vio += v.vio;
                tt += v.ttime;
                vt += v.vtime;
            }
            if vio > 0 || tt > 0 {
                eprintln!(
                    "guest {} vio/s {:.1} cpu {:.1}% (virt {:.1}%) cp us/vio {:.2} virt us/vio {:.2}",
                    self.cpu.guest(g).userid,
                    vio as f64 / secs,
                    tt as f64 / now as f64 * 100.0,
                    vt as f64 / now as f64 * 100.0,
                    (tt - vt) as f64 / vio.max(1) as f64 / 1e3,
                    vt as f64 / vio.max(1) as f64 / 1e3,
                );
            }
        }
        let (mut emul, mut cpu_cp, mut sys) = (0u64, 0u64, 0u64);
        for c in self.cpu.counters() {
            emul += c.emul_ns;
            cpu_cp += c.cp_user_ns;
            sys += c.sys_ns;
        }
        let pg = self.pg.sample();
        let moves = pg.c.pages_read + pg.c.pages_written;
        eprintln!(
            "cpu: emulation {:.2} s, CP for users {:.2} s, system {:.2} s; pages moved {} ({:.1}/s), CP+system us per move {:.2}; refs {} ({:.0}/s)",
            emul as f64 / 1e9,
            cpu_cp as f64 / 1e9,
            sys as f64 / 1e9,
            moves,
            moves as f64 / secs,
            (cpu_cp + sys) as f64 / moves.max(1) as f64 / 1e3,
            self.work.refs(),
            self.work.refs() as f64 / secs
        );
    }
}

/// Hint the processor to bring `v[i]` into the cache: no effect on results
/// (used to overlap the cache misses of scattered page-table, frame and block
/// accesses). A no-op off x86-64.
#[inline(always)]
pub(crate) fn prefetch<T>(v: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE is part of the x86-64 baseline, and a prefetch reads no
        // memory the program can see: it cannot fault whatever the address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(v.as_ptr().wrapping_add(i) as *const i8) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (v, i);
}

#[cfg(test)]
mod tests;
