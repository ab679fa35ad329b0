//! The z/VM model: one LPAR, its real storage, XSTOR, paging and minidisk
//! volumes, processors and guests, driven by one event queue.
//!
//! * [`storage`] — frames, available list, the Era A demand scan, XSTOR;
//! * [`paging`] — page slots, block paging (which volume, how many pages);
//! * [`blocks`] — the table of paging blocks (a block's header and page list side by side);
//! * [`io`] — DASD volumes, I/O requests and their service (a component:
//!   private state, its own events and counters, see its module doc);
//! * [`dispatch`] — logical CPUs, virtual CPUs, scheduler lists, workloads;
//! * [`monitor`] — turning the model's counters into CP Monitor records.
//!
//! [`Twin`] is the clock and queue ([`Core`]) plus the [`Model`]; every step of
//! the model is a method given a [`Cx`] (the core, the logical CPU doing the
//! work, the CP time it costs). Events ([`Ev`]) are small `Copy` values, one
//! variant (or sub-enum) per component; [`Model::io_done`] routes each I/O
//! completion to the owner of its [`io::Origin`].
//!
//! Every CP operation charges CP time (to the guest it serves, or to the
//! system), so T/V and capture ratio come out of the model rather than being
//! set by the scenario.

pub mod blocks;
pub mod dispatch;
pub mod io;
pub mod monitor;
pub mod paging;
pub mod storage;

use crate::core::rng::{Rng, Stream};
use crate::core::units::{Ns, MS, PAGE, US};
use crate::scenario::{Action, Scenario, Workload};
use dispatch::{Cpu, Guest, Vcpu};
use io::{Io, Origin, VolumeDef};
use paging::Paging;
use storage::{Storage, Xstor};

/// Events of the simulation. Small and `Copy`: the queue never allocates per event.
#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// A logical CPU finishes the burst it is running.
    BurstEnd { cpu: u16 },
    /// The I/O component's.
    Io(io::Ev),
    /// A virtual CPU's think time ends.
    Wake { vcpu: u32 },
    /// A guest has been idle for the test-idle time (if `gen` still matches).
    TestIdle { guest: u32, gen: u32 },
    /// High-frequency state sampling.
    Hf,
    /// End of a monitor sample interval.
    Sample,
    /// A timeline action.
    Timeline { idx: u32 },
}

// Events stay small: 12 bytes, 32 per queue entry with its time and sequence.
const _: () = assert!(std::mem::size_of::<Ev>() <= 12);
const _: () = assert!(crate::core::queue::entry_size::<Ev>() == 32);

/// CP costs in nanoseconds.
#[derive(Clone, Copy, Debug)]
pub struct Costs {
    pub fault: Ns,
    pub xmove: Ns,
    pub first_touch: Ns,
    pub page_io: Ns,
    pub io: Ns,
    pub dispatch: Ns,
    pub steal_frame: Ns,
    pub virtual_io: Ns,
}

fn us(x: f64) -> Ns {
    (x * US as f64).round() as Ns
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

impl From<io::Ev> for Ev {
    #[inline(always)]
    fn from(e: io::Ev) -> Ev {
        Ev::Io(e)
    }
}

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

/// The model's state. Every step is a method given a [`Cx`].
pub struct Model {
    pub(crate) sc: Scenario,
    pub(crate) costs: Costs,
    pub(crate) st: Storage,
    pub(crate) xs: Xstor,
    pub(crate) pg: Paging,
    pub(crate) io: Io,
    pub(crate) cpus: Vec<Cpu>,
    pub(crate) ready: std::collections::VecDeque<u32>,
    pub(crate) guests: Vec<Guest>,
    pub(crate) vcpus: Vec<Vcpu>,
    pub(crate) refs: u64,
    pub(crate) block_max: u32,
    pub(crate) storbuf: [f64; 3],
    pub(crate) seed: u64,
    /// The logical CPU that dispatched last: work done outside a burst (I/O
    /// completions, timeline actions) is counted and charged on it.
    pub(crate) irq_cpu: u16,
    /// Guests on the eligible list, in arrival order.
    pub(crate) eligible: std::collections::VecDeque<u32>,
    /// Logon/logoff events not yet written.
    pub(crate) events_pending: Vec<(monitor::PendingEvent, u32, Ns)>,
    /// Events handled, by kind (burst end, I/O done, wake, test idle, HF,
    /// sample, timeline), for profiling.
    pub(crate) ev_counts: [u64; 7],
    /// Random touchers prefetch page-table entries ahead of themselves
    /// (dispatch.rs): worth it only when their page tables together outgrow
    /// the processor's caches. Speed only; results are the same either way.
    pub(crate) lookahead: bool,
    /// A block read whose frames are there to spare takes them in one loop
    /// over borrowed tables (paging.rs). Speed only, like `lookahead`; off
    /// only in the test that shows it.
    pub(crate) unscanned_reads: bool,
    /// Block reads that took that loop (for that test).
    #[cfg(test)]
    pub(crate) unscanned_read_count: u64,
}

/// The scenario's volumes, paging groups first, then minidisk groups; and the
/// page slots of each paging volume, as `(volume, slots)`.
fn volumes(sc: &Scenario) -> (Vec<VolumeDef>, Vec<(u32, u32)>) {
    use crate::scenario::{cylinders_of, parse_devno, volser, SLOTS_PER_CYL};
    let mut defs = Vec::new();
    let mut slots = Vec::new();
    for g in &sc.paging {
        let base = parse_devno(&g.first_address).expect("validated");
        let full = cylinders_of(&g.device_type).expect("validated");
        let cyls = g.cylinders.unwrap_or(full);
        for k in 0..g.count {
            slots.push((defs.len() as u32, (cyls as u64 * SLOTS_PER_CYL) as u32));
            defs.push(VolumeDef {
                devno: base + k as u16,
                volser: volser(&g.volser_prefix, k, g.count),
                device_type: g.device_type.clone(),
                cylinders: cyls,
                paging: true,
                service: g.service.clone(),
            });
        }
    }
    for g in &sc.dasd {
        let base = parse_devno(&g.first_address).expect("validated");
        let cyls = cylinders_of(&g.device_type).expect("validated");
        for k in 0..g.count {
            defs.push(VolumeDef {
                devno: base + k as u16,
                volser: volser(&g.volser_prefix, k, g.count),
                device_type: g.device_type.clone(),
                cylinders: cyls,
                paging: false,
                service: g.service.clone(),
            });
        }
    }
    (defs, slots)
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
                if *pattern != crate::scenario::Pattern::Serial =>
            {
                let pages = area.pages().min(g.virtual_storage.pages());
                g.count as u64 * pages * std::mem::size_of::<storage::PageEntry>() as u64
            }
            _ => 0,
        })
        .sum()
}

impl Twin {
    /// Build the model from a validated scenario.
    pub fn new(sc: &Scenario, seed: u64, duration: Option<Ns>) -> Twin {
        let c = &sc.cp_costs;
        let costs = Costs {
            fault: us(c.page_fault_us),
            xmove: us(c.xstor_move_us),
            first_touch: us(c.first_touch_us),
            page_io: us(c.page_io_us),
            io: us(c.io_us),
            dispatch: us(c.dispatch_us),
            steal_frame: us(c.steal_per_frame_us),
            virtual_io: us(c.virtual_io_us),
        };
        let frames = (sc.system.central_storage.0 / PAGE) as u32;
        let fixed = (sc.system.cp_fixed.0 / PAGE) as u32;
        let st = Storage::new(frames, fixed);
        let xs = Xstor::new((sc.system.xstor.0 / PAGE) as u32, sc.srm.xstor_low);
        let (defs, slots) = volumes(sc);
        let io = Io::new(defs, sc.system.processors as usize, seed);
        let pg = Paging::new(&slots, sc.srm.block_max);
        let cpus = (0..sc.system.processors).map(|_| Cpu::default()).collect();
        let mut m = Model {
            sc: sc.clone(),
            costs,
            st,
            xs,
            pg,
            io,
            cpus,
            ready: Default::default(),
            guests: Vec::new(),
            vcpus: Vec::new(),
            refs: 0,
            block_max: sc.srm.block_max,
            storbuf: sc.srm.storbuf.map(|x| x as f64 / 100.0),
            seed,
            irq_cpu: 0,
            eligible: Default::default(),
            events_pending: Vec::new(),
            ev_counts: [0; 7],
            lookahead: random_toucher_tables(sc) > LOOKAHEAD_MIN_BYTES,
            unscanned_reads: true,
            #[cfg(test)]
            unscanned_read_count: 0,
        };
        m.build_guests();
        Twin {
            core: Core::new(duration.unwrap_or(sc.scenario.duration.0)),
            model: m,
        }
    }

    /// Run to the end, writing monitor records through `emit`.
    pub fn run(
        &mut self,
        emit: &mut monitor::Emitter<impl std::io::Write>,
        progress: &mut dyn FnMut(Ns, Ns) -> bool,
    ) -> Result<(), RunError> {
        self.model.start(&mut self.core);
        emit.config(self)?;
        while let Some((t, ev)) = self.core.q.pop() {
            if t > self.core.end {
                break;
            }
            self.core.now = t;
            self.core.events += 1;
            let m = &mut self.model;
            m.ev_counts[match ev {
                Ev::BurstEnd { .. } => 0,
                Ev::Io(_) => 1,
                Ev::Wake { .. } => 2,
                Ev::TestIdle { .. } => 3,
                Ev::Hf => 4,
                Ev::Sample => 5,
                Ev::Timeline { .. } => 6,
            }] += 1;
            if let Ev::Sample = ev {
                #[cfg(debug_assertions)]
                self.model.check();
                emit.sample(self)?;
                if !progress(t, self.core.end) {
                    return Err(RunError::Interrupted);
                }
                self.core
                    .q
                    .push(t + self.model.sc.monitor.sample_interval.0, Ev::Sample);
            } else {
                let mut cx = Cx::new(&mut self.core, m.irq_cpu);
                m.handle(&mut cx, ev);
            }
            let m = &mut self.model;
            if !m.ready.is_empty() {
                m.dispatch_idle_cpus(&mut self.core);
            }
            if let Some(e) = self.core.abend.take() {
                return Err(e.into());
            }
        }
        self.core.now = self.core.end;
        if std::env::var_os("ZTWIN_DEBUG").is_some() {
            self.model.debug_summary();
        }
        Ok(())
    }
}

impl Model {
    fn build_guests(&mut self) {
        let groups = self.sc.guests.clone();
        for g in &groups {
            for id in crate::scenario::expand_userids(&g.userid, g.count) {
                let gi = self.guests.len() as u32;
                let first_vcpu = self.vcpus.len() as u32;
                for k in 0..g.virtual_cpus {
                    let vi = self.vcpus.len() as u64;
                    self.vcpus.push(Vcpu::new(
                        gi,
                        k as u16,
                        Rng::new(self.seed, Stream::Vcpu, vi),
                    ));
                }
                self.guests.push(Guest::new(
                    id,
                    g.virtual_storage.pages() as u32,
                    first_vcpu,
                    g.virtual_cpus,
                    g.share,
                    g.quickdsp,
                    g.workload.clone().unwrap_or(Workload::Idle),
                ));
            }
        }
    }

    /// Schedule the initial events: logons, monitor ticks, timeline.
    fn start(&mut self, core: &mut Core) {
        let mut cx = Cx::new(core, 0);
        for gi in 0..self.guests.len() as u32 {
            let (grp, _) = self.group_of(gi);
            if self.sc.guests[grp].logged_on {
                self.logon(&mut cx, gi);
            }
        }
        debug_assert_eq!(cx.charge, Default::default());
        let hf = self.sc.monitor.hf_rate.0;
        core.q.push(hf, Ev::Hf);
        core.q.push(self.sc.monitor.sample_interval.0, Ev::Sample);
        for (i, t) in self.sc.timeline.iter().enumerate() {
            core.q.push(t.at.0, Ev::Timeline { idx: i as u32 });
        }
    }

    /// Handle one event (all but the sample, which the emitter takes).
    #[inline(always)]
    fn handle(&mut self, cx: &mut Cx, ev: Ev) {
        match ev {
            Ev::BurstEnd { cpu } => self.burst_end(cx, cpu),
            Ev::Io(io::Ev::Done { vol }) => {
                self.io_done(cx, vol);
                // Interrupt-level CP work (the migration it continues) is
                // charged to the CPU's next burst, so busy time never runs
                // ahead of elapsed time.
                self.cpus[cx.cpu as usize].owed_sys += std::mem::take(&mut cx.charge.sys);
            }
            Ev::Wake { vcpu } => self.wake(vcpu),
            Ev::TestIdle { guest, gen } => self.test_idle(guest, gen),
            Ev::Hf => {
                self.hf_sample();
                cx.at(self.sc.monitor.hf_rate.0, Ev::Hf);
            }
            Ev::Sample => unreachable!("the emitter takes samples"),
            Ev::Timeline { idx } => self.timeline(cx, idx as usize),
        }
        debug_assert_eq!(cx.charge, Default::default(), "{ev:?} charged CP time");
    }

    /// An I/O completed on `vol`: its origin's owner takes it; then the
    /// volume starts its next request (unless the completion work already
    /// started one there). This match is the list of who issues I/O.
    fn io_done(&mut self, cx: &mut Cx, vol: u32) {
        let d = self.io.done(cx, vol);
        match d.origin {
            Origin::PageRead { block } => self.block_read_done(&d, block),
            Origin::PageWrite { block } => {
                self.block_written(&d, block);
                self.pageout_done(block);
            }
            Origin::Migrate { block } => {
                self.block_written(&d, block);
                self.migration_done(cx, block);
            }
            Origin::Minidisk { vcpu } => self.io_wait_over(vcpu),
        }
        self.io.release(d.req);
        self.io.start_next(cx, vol);
    }

    /// Consistency of the components' state (debug builds, at each sample).
    #[cfg(any(test, debug_assertions))]
    pub(crate) fn check(&self) {
        self.io.check();
        self.pg.check();
    }

    /// Guest group and member index of guest `gi`.
    pub(crate) fn group_of(&self, gi: u32) -> (usize, u32) {
        let mut base = 0u32;
        for (i, g) in self.sc.guests.iter().enumerate() {
            if gi < base + g.count {
                return (i, gi - base);
            }
            base += g.count;
        }
        unreachable!("guest index out of range")
    }

    fn timeline(&mut self, cx: &mut Cx, idx: usize) {
        let t = self.sc.timeline[idx].clone();
        let members = self.sc.resolve_guests(&t.guest);
        for (grp, k) in members {
            let base: u32 = self.sc.guests[..grp].iter().map(|g| g.count).sum();
            let gi = base + k;
            match t.action {
                Action::Logon => self.logon(cx, gi),
                Action::Logoff => self.logoff(cx, gi),
                Action::Start => {
                    let w = t
                        .workload
                        .clone()
                        .unwrap_or_else(|| self.guests[gi as usize].workload.clone());
                    self.start_workload(cx, gi, w);
                }
                Action::Stop => self.stop_workload(gi),
            }
        }
    }

    /// Developer aid (`ZTWIN_DEBUG=1`): the model's internal counters at the
    /// end of a run, on stderr. Nothing here reaches the MONWRITE file.
    fn debug_summary(&self) {
        eprintln!(
            "events by kind (burst, io, wake, testidle, hf, sample, timeline): {:?}",
            self.ev_counts
        );
        eprintln!("storage counters: {:?}", self.st.c);
        eprintln!(
            "xstor free {} migrating {} low {} fifo {}; available {} (low {}, high {}), frame waiters {}, ready {}",
            self.xs.free.len(),
            self.xs.migrating,
            self.xs.low,
            self.xs.fifo.len(),
            self.st.avail.len(),
            self.st.low,
            self.st.high,
            self.st.waiters.len(),
            self.ready.len()
        );
        let busy: Vec<_> = self.io.devices().map(|d| (d.busy, d.queued)).collect();
        let (reqs, free) = self.io.arena();
        eprintln!("volumes (busy, queued): {busy:?}; I/O requests {reqs} ({free} free)");
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

/// Test-idle time before a guest is dropped from the dispatch list.
pub(crate) const TEST_IDLE: Ns = 300 * MS;

#[cfg(test)]
mod tests {
    use super::*;

    /// Random touchers that page, small enough for a unit test.
    const PAGING: &str = r#"
[scenario]
duration = "40s"
[system]
processors = 2
central_storage = "256M"
xstor = "64M"
[monitor]
sample_interval = "10s"
[[paging]]
device_type = "3390-3"
count = 4
first_address = "7900"
volser_prefix = "PG"
[[guest]]
userid = "LNX"
count = 3
virtual_storage = "256M"
workload = { type = "thrasher", area = "160M", pattern = "working_set", hot_fraction = 0.2, hot_share = 0.8, warm_fraction = 0.3, warm_share = 0.15, touch = "write", cpu_per_touch_us = 5.0, burst_touches = 40, think = "20ms" }
[[guest]]
userid = "RND"
virtual_storage = "128M"
workload = { type = "thrasher", area = "100M", pattern = "random", touch = "read", cpu_per_touch_us = 2.0, prefill = true }
"#;

    /// A guest that logs off while it pages leaves nothing behind: no frame,
    /// no XSTOR block, no slot, and no XSTOR block freed twice (I/O in flight
    /// at logoff is cleaned up when it completes).
    #[test]
    fn logoff_while_paging_frees_everything_once() {
        // A small XSTOR, so migrations are in flight when the guests leave.
        let text = format!(
            "{}\n[[timeline]]\nat = \"25s\"\naction = \"logoff\"\nguest = \"LNX*\"\n",
            PAGING.replace("xstor = \"64M\"", "xstor = \"8M\"")
        );
        let sc = Scenario::from_toml(&text, "logoff.toml").unwrap();
        let (_, twin) = run(&sc, 3, false);
        assert!(twin.model.st.c.migrated > 1000, "{:?}", twin.model.st.c);
        let off: Vec<u32> = (0..twin.model.guests.len() as u32)
            .filter(|&g| twin.model.guests[g as usize].sched == dispatch::Sched::LoggedOff)
            .collect();
        assert_eq!(off.len(), 3);
        for &g in &off {
            let gu = &twin.model.guests[g as usize];
            assert_eq!((gu.resident, gu.xstor, gu.dasd), (0, 0, 0), "{}", gu.userid);
            assert!(!twin.model.st.frames.iter().any(|f| f.owner == g));
            assert!(!twin.model.xs.owner.contains(&g));
        }
        let mut free = twin.model.xs.free.clone();
        free.sort_unstable();
        free.dedup();
        assert_eq!(
            free.len(),
            twin.model.xs.free.len(),
            "an XSTOR block is free twice"
        );
        let owned = twin
            .model
            .xs
            .owner
            .iter()
            .filter(|&&o| o != storage::FREE)
            .count();
        assert_eq!(owned as u32, twin.model.xs.used());
        // Every XSTOR block in use belongs to the page that points to it, and back.
        for (b, &o) in twin.model.xs.owner.iter().enumerate() {
            if o != storage::FREE {
                let e = twin.model.guests[o as usize].pt[twin.model.xs.vpage[b] as usize].e;
                assert_eq!(
                    (storage::tag(e), storage::idx(e)),
                    (storage::T_XS, b as u32)
                );
            }
        }
        for (g, gu) in twin.model.guests.iter().enumerate() {
            let mut in_xs = 0;
            for (vp, pe) in gu.pt.iter().enumerate() {
                if storage::tag(pe.e) == storage::T_XS {
                    in_xs += 1;
                    let b = storage::idx(pe.e) as usize;
                    assert_eq!(
                        (twin.model.xs.owner[b], twin.model.xs.vpage[b]),
                        (g as u32, vp as u32)
                    );
                }
            }
            assert_eq!(in_xs, gu.xstor, "{}", gu.userid);
        }
    }

    /// Run `sc` with `seed`, prefetching or not: the MONWRITE bytes and the
    /// model at the end.
    fn run(sc: &Scenario, seed: u64, lookahead: bool) -> (Vec<u8>, Twin) {
        run_with(sc, seed, |t| t.model.lookahead = lookahead)
    }

    /// Run `sc` with `seed` after `set` adjusts the model.
    fn run_with(sc: &Scenario, seed: u64, set: impl FnOnce(&mut Twin)) -> (Vec<u8>, Twin) {
        let mut twin = Twin::new(sc, seed, None);
        set(&mut twin);
        let start = ztwin_monitor::tod::parse_iso8601(&sc.scenario.start).unwrap();
        let mut emit = monitor::Emitter::new(Vec::new(), start);
        twin.run(&mut emit, &mut |_, _| true).unwrap();
        (emit.finish().unwrap(), twin)
    }

    /// Prefetching ahead of random touchers is for speed only: the MONWRITE
    /// file is the same byte for byte with and without it.
    #[test]
    fn lookahead_changes_nothing_but_speed() {
        let sc = Scenario::from_toml(PAGING, "paging.toml").unwrap();
        let (plain, a) = run(&sc, 11, false);
        let (ahead, b) = run(&sc, 11, true);
        assert!(
            a.model.refs > 100_000,
            "the guests touch pages ({})",
            a.model.refs
        );
        assert_eq!(a.model.refs, b.model.refs);
        assert!(plain == ahead, "lookahead changed the MONWRITE file");
        // The scenario pages, so faults interrupt the lookahead.
        assert!(
            a.model.st.c.pages_read_dasd + a.model.st.c.xstor_in > 1000,
            "{:?}",
            a.model.st.c
        );
        let (other_seed, _) = run(&sc, 12, true);
        assert!(other_seed != plain, "another seed gives another file");
    }

    /// A block read with frames to spare takes them without checking for a
    /// demand scan before each page (paging.rs): the MONWRITE file is the same
    /// byte for byte as when every page takes its frame through `get_frame`.
    /// The scenario has both cases: reads while storage fills, and reads
    /// while the demand scan keeps the available list near its threshold.
    #[test]
    fn unscanned_block_reads_change_nothing_but_speed() {
        let sc = Scenario::from_toml(PAGING, "paging.toml").unwrap();
        let (per_page, a) = run_with(&sc, 5, |t| t.model.unscanned_reads = false);
        let (unscanned, b) = run_with(&sc, 5, |_| {});
        assert_eq!(a.model.unscanned_read_count, 0);
        let reads = b.model.pg.vols.iter().map(|v| v.c.ssch_rd).sum::<u64>();
        assert!(
            b.model.unscanned_read_count > 1000 && b.model.unscanned_read_count + 20 < reads,
            "both kinds of read: {} of {reads} unscanned",
            b.model.unscanned_read_count
        );
        assert!(b.model.st.c.scans > 10, "{:?}", b.model.st.c);
        assert!(
            per_page == unscanned,
            "the unscanned loop changed the MONWRITE file"
        );
    }
}
