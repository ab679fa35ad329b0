//! Processors, virtual CPUs, the scheduler's lists and the workloads.
//!
//! A logical CPU runs one virtual CPU at a time for a burst of at most the minor
//! time slice. The burst is computed when it starts (page touches, CP work on the
//! guest's behalf, system work such as the demand scan) and ends with an event;
//! a page fault that needs DASD, a think time or the end of the slice ends it.

use super::storage::{
    idx, pte, tag, Cat, PageEntry, NO_BLOCK, P_CHG, P_REF, RES, T_DASD, T_NONE, T_PAGEOUT,
    T_READIN, T_RES, T_XS,
};
use super::{prefetch, Core, Cx, Ev, Model, TEST_IDLE};
use crate::core::rng::Rng;
use crate::core::units::{Ns, US};
use crate::scenario::{Pattern, Touch, Workload, MINOR_SLICE};
use std::collections::VecDeque;

/// Per logical CPU counters (cumulative).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuCounters {
    /// Guest (emulation) time.
    pub emul_ns: Ns,
    /// CP time on behalf of guests.
    pub cp_user_ns: Ns,
    /// CP time not attributable to a guest.
    pub sys_ns: Ns,
    pub dispatches: u64,
    pub hf_count: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Slice used up: back to the ready queue.
    Slice,
    /// Waiting for a page-in I/O (already arranged).
    PageWait,
    /// No frame available: wait for one.
    FrameWait,
    /// Waiting for a minidisk I/O (already started).
    IoWait,
    /// Nothing to do for this long.
    Think(Ns),
    /// The workload has nothing more to do.
    Idle,
}

#[derive(Clone, Copy, Debug)]
pub struct Burst {
    pub virt: Ns,
    pub cp: Ns,
    pub sys: Ns,
    pub outcome: Outcome,
    pub vcpu: u32,
    /// An I/O to start when the burst ends (the fault happens at its end).
    pub io: Option<u32>,
}

#[derive(Default)]
pub struct Cpu {
    pub running: Option<Burst>,
    pub c: CpuCounters,
    /// System time owed by interrupt-level CP work, added to the next burst.
    pub owed_sys: Ns,
}

/// Virtual CPU states, as high-frequency sampling sees them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VState {
    Idle,
    Ready,
    Running,
    PageWait,
    IoWait,
    Think,
    Eligible,
}

/// Per virtual CPU high-frequency counters (USEINT).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HfCounters {
    pub total: u64,
    pub running: u64,
    pub cpu_wait: u64,
    pub page_wait: u64,
    pub io_wait: u64,
    pub test_idle: u64,
    pub eligible: u64,
    pub dormant: u64,
    pub other: u64,
    pub in_queue: u64,
}

/// Workload progress of one virtual CPU.
#[derive(Clone, Debug)]
pub enum WorkState {
    None,
    Thrasher {
        pos: u64,
        touches: u64,
        prefill_left: u64,
    },
    Cpu {
        left: Ns,
    },
    /// Minidisk loop: 0 = compute, 1 = start the I/O, 2 = think; `vol` is the
    /// volume, resolved once when the workload starts.
    Io {
        phase: u8,
        vol: u32,
    },
}

pub struct Vcpu {
    pub guest: u32,
    pub addr: u16,
    pub state: VState,
    pub work: WorkState,
    pub rng: Rng,
    /// CP time owed to this virtual CPU (I/O interrupts), charged at next dispatch.
    pub owed_cp: Ns,
    pub ttime: Ns,
    pub vtime: Ns,
    pub hf: HfCounters,
    pub vio: u64,
    /// The page a thrasher touches next (kept across bursts).
    pub pending_page: Option<u64>,
    /// The I/O it is about to wait for completed while its burst was still
    /// running: do not wait when the burst ends.
    pub woken: bool,
}

impl Vcpu {
    pub fn new(guest: u32, addr: u16, rng: Rng) -> Vcpu {
        Vcpu {
            guest,
            addr,
            state: VState::Idle,
            work: WorkState::None,
            rng,
            owed_cp: 0,
            ttime: 0,
            vtime: 0,
            hf: HfCounters::default(),
            vio: 0,
            pending_page: None,
            woken: false,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sched {
    LoggedOff,
    Dormant,
    Eligible,
    Dispatch,
}

pub struct Guest {
    pub userid: String,
    pub vpages: u32,
    pub first_vcpu: u32,
    pub nvcpu: u32,
    pub share: u32,
    pub quickdsp: bool,
    pub workload: Workload,
    /// The thrasher's parameters in the form a burst uses, made when the
    /// workload starts (`None` for other workloads).
    pub thrash: Option<ThrashSpec>,
    pub sched: Sched,
    /// Page table: per virtual page, its entry and its DASD block.
    pub pt: Vec<PageEntry>,
    pub resident: u32,
    pub xstor: u32,
    pub dasd: u32,
    pub wss: f64,
    pub ufo: VecDeque<(u32, u32)>,
    pub idle_gen: u32,
    pub logon_ns: Ns,
}

impl Guest {
    pub fn new(
        userid: String,
        vpages: u32,
        first_vcpu: u32,
        nvcpu: u32,
        share: u32,
        quickdsp: bool,
        workload: Workload,
    ) -> Guest {
        Guest {
            userid,
            vpages,
            first_vcpu,
            nvcpu,
            share,
            quickdsp,
            workload,
            thrash: None,
            sched: Sched::LoggedOff,
            pt: Vec::new(),
            resident: 0,
            xstor: 0,
            dasd: 0,
            wss: 0.0,
            ufo: VecDeque::new(),
            idle_gen: 0,
            logon_ns: 0,
        }
    }

    pub fn category(&self) -> Cat {
        match self.sched {
            Sched::Dispatch => Cat::Dispatch,
            Sched::Eligible => Cat::Eligible,
            _ => Cat::Dormant,
        }
    }

    /// Frame `f` now holds page `vp`: it joins the user frame owned list.
    #[inline(always)]
    pub fn gained_frame(&mut self, f: u32, vp: u32) {
        self.ufo.push_back((f, vp));
        self.resident += 1;
    }

    pub fn dasd_pages_add(&mut self, d: i32) {
        self.dasd = (self.dasd as i64 + d as i64).max(0) as u32;
    }

    pub fn vcpus(&self) -> std::ops::Range<u32> {
        self.first_vcpu..self.first_vcpu + self.nvcpu
    }
}

/// A guest as the monitor sees it (MTRUSR, USEACT, USELON, USELOF).
#[derive(Clone, Copy, Debug)]
pub struct GuestSample<'a> {
    pub userid: &'a str,
    pub vpages: u32,
    pub nvcpu: u32,
    pub share: u32,
    pub quickdsp: bool,
    pub logged_on: bool,
    pub logon_ns: Ns,
    /// Its storage: frames, working-set estimate, XSTOR blocks, DASD pages.
    pub resident: u32,
    pub wss: f64,
    pub xstor: u32,
    pub dasd: u32,
}

/// A virtual CPU as the monitor sees it (USEACT, USEINT).
#[derive(Clone, Copy, Debug)]
pub struct VcpuSample {
    pub addr: u16,
    /// Total (virtual + CP) and virtual time.
    pub ttime: Ns,
    pub vtime: Ns,
    /// Virtual I/Os (minidisk).
    pub vio: u64,
    pub hf: HfCounters,
}

fn us_f(x: f64) -> Ns {
    (x * US as f64).round().max(1.0) as Ns
}

impl Model {
    // ------------------------------------------------------------ samples

    /// Each logical CPU's counters.
    pub(crate) fn cpu_counters(&self) -> impl ExactSizeIterator<Item = CpuCounters> + '_ {
        self.cpus.iter().map(|c| c.c)
    }

    /// Guests, logged on or not.
    pub(crate) fn guest_count(&self) -> u32 {
        self.guests.len() as u32
    }

    /// Guest `g` for the monitor.
    pub(crate) fn guest_sample(&self, g: u32) -> GuestSample<'_> {
        let gu = &self.guests[g as usize];
        GuestSample {
            userid: &gu.userid,
            vpages: gu.vpages,
            nvcpu: gu.nvcpu,
            share: gu.share,
            quickdsp: gu.quickdsp,
            logged_on: gu.sched != Sched::LoggedOff,
            logon_ns: gu.logon_ns,
            resident: gu.resident,
            wss: gu.wss,
            xstor: gu.xstor,
            dasd: gu.dasd,
        }
    }

    /// Guest `g`'s virtual CPUs for the monitor, base first.
    pub(crate) fn vcpu_samples(&self, g: u32) -> impl Iterator<Item = VcpuSample> + '_ {
        self.guests[g as usize].vcpus().map(|v| {
            let vc = &self.vcpus[v as usize];
            VcpuSample {
                addr: vc.addr,
                ttime: vc.ttime,
                vtime: vc.vtime,
                vio: vc.vio,
                hf: vc.hf,
            }
        })
    }

    /// Guests on the eligible list.
    pub(crate) fn eligible_count(&self) -> u32 {
        self.eligible.len() as u32
    }

    // ------------------------------------------------------------ guests

    pub(crate) fn logon(&mut self, cx: &mut Cx, g: u32) {
        let gi = g as usize;
        if self.guests[gi].sched != Sched::LoggedOff {
            return;
        }
        let n = self.guests[gi].vpages as usize;
        self.guests[gi].pt = vec![
            PageEntry {
                e: pte(T_NONE, 0),
                blk: NO_BLOCK
            };
            n
        ];
        self.guests[gi].sched = Sched::Dormant;
        self.guests[gi].logon_ns = cx.now();
        self.mon
            .event(super::monitor::PendingEvent::Logon, g, cx.now());
        let w = self.guests[gi].workload.clone();
        self.start_workload(cx, g, w);
    }

    pub(crate) fn logoff(&mut self, cx: &mut Cx, g: u32) {
        let gi = g as usize;
        if self.guests[gi].sched == Sched::LoggedOff {
            return;
        }
        self.stop_workload(g);
        self.guests[gi].sched = Sched::LoggedOff;
        for vp in 0..self.guests[gi].vpages {
            self.discard_page(g, vp);
        }
        self.guests[gi].wss = 0.0;
        self.mon
            .event(super::monitor::PendingEvent::Logoff, g, cx.now());
    }

    pub(crate) fn start_workload(&mut self, cx: &mut Cx, g: u32, w: Workload) {
        let gi = g as usize;
        if self.guests[gi].sched == Sched::LoggedOff {
            return;
        }
        self.guests[gi].workload = w.clone();
        self.guests[gi].thrash = ThrashSpec::of(&w);
        if let Workload::Thrasher {
            area,
            paged_out: true,
            ..
        } = &w
        {
            self.place_paged_out(
                cx,
                g,
                area.pages().min(self.guests[gi].vpages as u64) as u32,
            );
        }
        for v in self.guests[gi].vcpus() {
            let vi = v as usize;
            self.vcpus[vi].pending_page = None;
            self.vcpus[vi].work = match &w {
                Workload::Idle => WorkState::None,
                Workload::Thrasher { area, prefill, .. } => {
                    let pages = area.pages();
                    // Threads start at different points of the area.
                    let k = (v - self.guests[gi].first_vcpu) as u64;
                    let pos = pages * k / self.guests[gi].nvcpu as u64;
                    WorkState::Thrasher {
                        pos,
                        touches: 0,
                        prefill_left: if *prefill && k == 0 { pages } else { 0 },
                    }
                }
                Workload::Cpu { .. } => WorkState::Cpu { left: 0 },
                Workload::MinidiskIo { device, .. } => {
                    let (dev, spread) = crate::scenario::split_device(device);
                    let mut dev = crate::scenario::parse_devno(dev).expect("validated");
                    if spread {
                        dev += self.group_of(g).1 as u16;
                    }
                    WorkState::Io {
                        phase: 0,
                        vol: self.io.by_devno(dev).expect("validated"),
                    }
                }
            };
            if !matches!(w, Workload::Idle)
                && matches!(self.vcpus[vi].state, VState::Idle | VState::Think)
            {
                self.vcpu_has_work(v);
            }
        }
    }

    pub(crate) fn stop_workload(&mut self, g: u32) {
        let gi = g as usize;
        self.guests[gi].workload = Workload::Idle;
        self.guests[gi].thrash = None;
        for v in self.guests[gi].vcpus() {
            self.vcpus[v as usize].work = WorkState::None;
        }
    }

    /// A virtual CPU has something to run: queue it, admitting its guest to the
    /// dispatch list first if needed.
    pub(crate) fn vcpu_has_work(&mut self, v: u32) {
        let g = self.vcpus[v as usize].guest;
        let gi = g as usize;
        match self.guests[gi].sched {
            Sched::LoggedOff => {}
            Sched::Dispatch => {
                self.guests[gi].idle_gen = self.guests[gi].idle_gen.wrapping_add(1);
                self.make_ready(v);
            }
            Sched::Eligible => self.vcpus[v as usize].state = VState::Eligible,
            Sched::Dormant => {
                if self.admissible(g) {
                    self.guests[gi].sched = Sched::Dispatch;
                    self.guests[gi].idle_gen = self.guests[gi].idle_gen.wrapping_add(1);
                    self.make_ready(v);
                } else {
                    self.guests[gi].sched = Sched::Eligible;
                    self.eligible.push_back(g);
                    self.vcpus[v as usize].state = VState::Eligible;
                }
            }
        }
    }

    /// STORBUF admission: class-3 (long-running) guests may fill the third
    /// STORBUF percentage of the DPA with their working sets; QUICKDSP bypasses.
    fn admissible(&self, g: u32) -> bool {
        let gu = &self.guests[g as usize];
        if gu.quickdsp {
            return true;
        }
        let sum: f64 = self
            .guests
            .iter()
            .filter(|x| x.sched == Sched::Dispatch && !x.quickdsp)
            .map(|x| x.wss)
            .sum();
        sum + gu.wss <= self.storbuf[2] * self.st.dpa() as f64 || sum == 0.0
    }

    /// Admit eligible guests in arrival order while STORBUF allows.
    pub(crate) fn admit_eligible(&mut self) {
        while let Some(&g) = self.eligible.front() {
            if self.guests[g as usize].sched != Sched::Eligible {
                self.eligible.pop_front();
                continue;
            }
            if !self.admissible(g) {
                break;
            }
            self.eligible.pop_front();
            let gi = g as usize;
            self.guests[gi].sched = Sched::Dispatch;
            for v in self.guests[gi].vcpus() {
                if self.vcpus[v as usize].state == VState::Eligible {
                    self.make_ready(v);
                }
            }
        }
    }

    /// Queue a virtual CPU for dispatch. CPUs pick up ready work only between
    /// events (`dispatch_idle_cpus`), never from inside another burst.
    pub(crate) fn make_ready(&mut self, v: u32) {
        self.vcpus[v as usize].state = VState::Ready;
        self.ready.push_back(v);
    }

    pub(crate) fn dispatch_idle_cpus(&mut self, core: &mut Core) {
        for c in 0..self.cpus.len() {
            if self.ready.is_empty() {
                return;
            }
            if self.cpus[c].running.is_none() {
                self.dispatch(core, c as u16);
            }
        }
    }

    /// Run the next ready virtual CPU on logical CPU `c`.
    fn dispatch(&mut self, core: &mut Core, c: u16) {
        while let Some(v) = self.ready.pop_front() {
            if self.vcpus[v as usize].state != VState::Ready {
                continue;
            }
            self.irq_cpu = c;
            self.vcpus[v as usize].state = VState::Running;
            let mut cx = Cx::new(core, c);
            let mut b = self.run_vcpu(&mut cx, v, MINOR_SLICE);
            b.sys += std::mem::take(&mut self.cpus[c as usize].owed_sys);
            self.cpus[c as usize].c.dispatches += 1;
            self.cpus[c as usize].running = Some(b);
            let total = (b.virt + b.cp + b.sys).max(1);
            cx.at(total, Ev::BurstEnd { cpu: c });
            return;
        }
    }

    /// A burst ended: account for it and act on its outcome.
    pub(crate) fn burst_end(&mut self, cx: &mut Cx, c: u16) {
        let b = self.cpus[c as usize]
            .running
            .take()
            .expect("burst end on an idle CPU");
        let cc = &mut self.cpus[c as usize].c;
        cc.emul_ns += b.virt;
        cc.cp_user_ns += b.cp;
        cc.sys_ns += b.sys;
        let v = b.vcpu;
        let vi = v as usize;
        if let Some(r) = b.io {
            self.io.submit(cx, r);
        }
        let woken = std::mem::take(&mut self.vcpus[vi].woken);
        self.vcpus[vi].vtime += b.virt;
        self.vcpus[vi].ttime += b.virt + b.cp;
        let g = self.vcpus[vi].guest;
        if self.guests[g as usize].sched == Sched::LoggedOff {
            self.vcpus[vi].state = VState::Idle;
        } else {
            match b.outcome {
                Outcome::Slice => self.make_ready(v),
                Outcome::PageWait | Outcome::IoWait if woken => self.make_ready(v),
                Outcome::PageWait | Outcome::FrameWait => {
                    self.vcpus[vi].state = VState::PageWait;
                    if b.outcome == Outcome::FrameWait {
                        self.st.wait_for_frame(c, v);
                    }
                }
                Outcome::IoWait => self.vcpus[vi].state = VState::IoWait,
                Outcome::Think(d) => {
                    self.vcpus[vi].state = VState::Think;
                    cx.at(d, Ev::Wake { vcpu: v });
                    // Back before the test-idle time is up, this CPU keeps its
                    // guest in the dispatch list: no test-idle check needed.
                    if d >= TEST_IDLE {
                        self.maybe_test_idle(cx, g);
                    }
                }
                Outcome::Idle => {
                    self.vcpus[vi].state = VState::Idle;
                    self.maybe_test_idle(cx, g);
                }
            }
        }
    }

    fn maybe_test_idle(&mut self, cx: &mut Cx, g: u32) {
        let gi = g as usize;
        let all_idle = self.guests[gi]
            .vcpus()
            .all(|v| matches!(self.vcpus[v as usize].state, VState::Idle | VState::Think));
        if all_idle && self.guests[gi].sched == Sched::Dispatch {
            let gen = self.guests[gi].idle_gen;
            cx.at(TEST_IDLE, Ev::TestIdle { guest: g, gen });
        }
    }

    /// Drop a guest that stayed idle through the test-idle time to dormant.
    pub(crate) fn test_idle(&mut self, g: u32, gen: u32) {
        let gi = g as usize;
        if self.guests[gi].idle_gen != gen || self.guests[gi].sched != Sched::Dispatch {
            return;
        }
        if self.guests[gi]
            .vcpus()
            .all(|v| matches!(self.vcpus[v as usize].state, VState::Idle | VState::Think))
        {
            self.guests[gi].sched = Sched::Dormant;
            self.admit_eligible();
        }
    }

    pub(crate) fn wake(&mut self, v: u32) {
        if self.vcpus[v as usize].state == VState::Think {
            self.vcpus[v as usize].state = VState::Idle;
            self.vcpu_has_work(v);
        }
    }

    /// An I/O (page read or minidisk) the virtual CPU waited for completed.
    #[inline]
    pub(crate) fn io_wait_over(&mut self, v: u32) {
        let vi = v as usize;
        if self.vcpus[vi].state == VState::Running {
            // Joined an I/O already in flight that finished before the burst
            // that found it ended.
            self.vcpus[vi].woken = true;
            return;
        }
        if matches!(self.vcpus[vi].state, VState::PageWait | VState::IoWait) {
            if self.guests[self.vcpus[vi].guest as usize].sched == Sched::LoggedOff {
                self.vcpus[vi].state = VState::Idle;
                return;
            }
            self.make_ready(v);
        }
    }

    /// High-frequency sampling: every virtual CPU's state, device queues, and
    /// the scheduler's working-set estimates.
    pub(crate) fn hf_sample(&mut self) {
        for c in &mut self.cpus {
            c.c.hf_count += 1;
        }
        for g in &mut self.guests {
            if g.sched == Sched::LoggedOff {
                continue;
            }
            if g.sched == Sched::Dispatch {
                g.wss = 0.5 * g.wss + 0.5 * g.resident as f64;
            }
            let in_queue = matches!(g.sched, Sched::Dispatch | Sched::Eligible);
            for v in g.vcpus() {
                let vc = &mut self.vcpus[v as usize];
                let h = &mut vc.hf;
                h.total += 1;
                if in_queue {
                    h.in_queue += 1;
                }
                match vc.state {
                    VState::Running => h.running += 1,
                    VState::Ready => h.cpu_wait += 1,
                    VState::PageWait => h.page_wait += 1,
                    VState::IoWait => h.io_wait += 1,
                    VState::Eligible => h.eligible += 1,
                    VState::Idle | VState::Think => {
                        if g.sched == Sched::Dispatch {
                            h.test_idle += 1
                        } else {
                            h.dormant += 1
                        }
                    }
                }
            }
        }
        self.io.hf_tick();
        self.st.update_rate(self.mon.hf_rate);
        self.admit_eligible();
    }

    // ------------------------------------------------------------ bursts

    /// Compute one burst of virtual CPU `v` of at most `budget` ns.
    /// Its CP time is what `cx` was charged (which starts with the dispatch).
    fn run_vcpu(&mut self, cx: &mut Cx, v: u32, budget: Ns) -> Burst {
        let vi = v as usize;
        cx.charge.cp += self.costs.dispatch + std::mem::take(&mut self.vcpus[vi].owed_cp);
        let mut b = Burst {
            virt: 0,
            cp: 0,
            sys: 0,
            outcome: Outcome::Slice,
            vcpu: v,
            io: None,
        };
        self.run_workload(cx, v, budget, &mut b);
        b.cp = cx.charge.cp;
        b.sys = cx.charge.sys;
        b
    }

    /// The workload's part of a burst: `b.virt`, its outcome and its I/O.
    #[inline(always)]
    fn run_workload(&mut self, cx: &mut Cx, v: u32, budget: Ns, b: &mut Burst) {
        let vi = v as usize;
        let g = self.vcpus[vi].guest;
        if let Some(spec) = self.guests[g as usize].thrash {
            if self.lookahead && spec.pattern != Pattern::Serial {
                self.thrash_ahead(cx, v, &spec, budget, b);
            } else {
                self.thrash::<false>(cx, v, &spec, budget, b);
            }
            if spec.cp_overhead > 0.0 {
                cx.charge.cp += (b.virt as f64 * spec.cp_overhead) as Ns;
            }
            return;
        }
        // Borrow the workload out of the guest for the burst (nothing in a burst
        // reads it), so no burst clones it.
        let w = std::mem::replace(&mut self.guests[g as usize].workload, Workload::Idle);
        match &w {
            Workload::Idle => b.outcome = Outcome::Idle,
            Workload::Thrasher { .. } => unreachable!("a thrasher runs from its ThrashSpec"),
            Workload::Cpu {
                utilization,
                burst,
                cp_overhead,
            } => {
                let (utilization, burst, cp_overhead) = (*utilization, *burst, *cp_overhead);
                let WorkState::Cpu { left } = &mut self.vcpus[vi].work else {
                    unreachable!()
                };
                if *left == 0 {
                    *left = burst.0;
                }
                let run = (*left).min(budget);
                *left -= run;
                b.virt = run;
                cx.charge.cp += (run as f64 * cp_overhead) as Ns;
                if *left == 0 {
                    let idle = burst.0 as f64 * (1.0 - utilization) / utilization;
                    let d = if idle > 0.0 {
                        (idle * (0.5 + self.vcpus[vi].rng.f64())) as Ns
                    } else {
                        0
                    };
                    b.outcome = if d > 0 {
                        Outcome::Think(d)
                    } else {
                        Outcome::Slice
                    };
                }
            }
            Workload::MinidiskIo {
                think,
                pages_per_io,
                cpu_per_io_us,
                ..
            } => {
                let WorkState::Io { phase, vol } = &mut self.vcpus[vi].work else {
                    unreachable!()
                };
                match *phase {
                    0 => {
                        *phase = 1;
                        b.virt = us_f(*cpu_per_io_us).min(budget);
                        b.outcome = Outcome::Slice;
                    }
                    1 => {
                        *phase = 2;
                        let vol = *vol;
                        cx.charge.cp += self.costs.virtual_io;
                        self.vcpus[vi].vio += 1;
                        let origin = super::io::Origin::Minidisk { vcpu: v };
                        b.io = Some(self.io.alloc(cx, vol, *pages_per_io, origin));
                        b.outcome = Outcome::IoWait;
                    }
                    _ => {
                        *phase = 0;
                        b.outcome = if think.0 > 0 {
                            Outcome::Think(jittered(think.0, &mut self.vcpus[vi].rng))
                        } else {
                            Outcome::Slice
                        };
                    }
                }
            }
        }
        self.guests[g as usize].workload = w;
    }

    /// The page-toucher loop: the resident fast path touches pages with no
    /// event and no allocation; faults are resolved inline when CP can do so
    /// synchronously (first touch, XSTOR) and end the burst otherwise.
    /// The prefetching instance of the toucher loop, kept out of line so the
    /// plain instance is compiled exactly as it would be without it.
    #[inline(never)]
    fn thrash_ahead(&mut self, cx: &mut Cx, v: u32, s: &ThrashSpec, budget: Ns, b: &mut Burst) {
        self.thrash::<true>(cx, v, s, budget, b)
    }

    /// `AHEAD`: prefetch page-table entries ahead of a random toucher (a
    /// separate instance of the loop, so the plain one pays nothing for it).
    fn thrash<const AHEAD: bool>(
        &mut self,
        cx: &mut Cx,
        v: u32,
        s: &ThrashSpec,
        budget: Ns,
        b: &mut Burst,
    ) {
        let vi = v as usize;
        let g = self.vcpus[vi].guest;
        let gi = g as usize;
        let WorkState::Thrasher {
            mut pos,
            mut touches,
            mut prefill_left,
        } = self.vcpus[vi].work.clone()
        else {
            unreachable!()
        };
        let mut rng = std::mem::replace(&mut self.vcpus[vi].rng, Rng::PLACEHOLDER);
        let mut cur = match self.vcpus[vi].pending_page.take() {
            Some(p) => p,
            None => next_page(s, &mut pos, &mut rng, prefill_left > 0),
        };
        // Random patterns: a copy of the generator runs 2 x LOOKAHEAD pages
        // ahead of the toucher and prefetches their page-table entries; when
        // a page is LOOKAHEAD pages away its entry is in the cache, and if the
        // touch will need the page's DASD block (a fault, or the first change
        // of a page with a DASD copy) the block is prefetched too. So the cache
        // misses of a scattered working set overlap instead of coming one by
        // one. The copy draws exactly what the toucher will draw next
        // (next_page is all the toucher draws until its burst ends), and
        // nothing in the model depends on it.
        let ahead_on = AHEAD && prefill_left == 0;
        // Blocks matter only to a guest with pages on DASD.
        let blocks_on = ahead_on && self.guests[gi].dasd > 0;
        let mut ahead = Rng::PLACEHOLDER;
        // Pages LOOKAHEAD + 1 .. 2 x LOOKAHEAD ahead, oldest at `ring_at`.
        let mut ring = [0u64; LOOKAHEAD];
        let mut ring_at = 0;
        if ahead_on {
            ahead = rng.clone();
            for k in 0..2 * LOOKAHEAD {
                let p = next_page(s, &mut 0, &mut ahead, false);
                prefetch(&self.guests[gi].pt, p as usize);
                if k >= LOOKAHEAD {
                    ring[k - LOOKAHEAD] = p;
                }
            }
        }
        loop {
            // Fast path: resident pages.
            {
                let pte_v = &mut self.guests[gi].pt;
                let write = s.write || prefill_left > 0;
                while b.virt + cx.charge.cp + cx.charge.sys + s.cpu <= budget {
                    let e = &mut pte_v[cur as usize].e;
                    if *e & RES == 0 {
                        break;
                    }
                    if write && *e & P_CHG == 0 {
                        break; // first change of a page: the slow path drops its DASD copy
                    }
                    *e |= P_REF;
                    b.virt += s.cpu;
                    touches += 1;
                    prefill_left = prefill_left.saturating_sub(1);
                    if s.burst_touches > 0 && touches % s.burst_touches == 0 && s.think > 0 {
                        b.outcome = Outcome::Think(jittered(s.think, &mut rng));
                        cur = next_page(s, &mut pos, &mut rng, prefill_left > 0);
                        self.refs += 1;
                        return self.thrash_save(vi, pos, touches, prefill_left, rng, cur, b);
                    }
                    // A serial pass ends with the area's last page.
                    let wrapped =
                        s.pattern == Pattern::Serial && prefill_left == 0 && cur + 1 == s.pages;
                    cur = next_page(s, &mut pos, &mut rng, prefill_left > 0);
                    let mut far = 0;
                    if ahead_on {
                        far = next_page(s, &mut 0, &mut ahead, false);
                        prefetch(pte_v, far as usize);
                    }
                    if blocks_on {
                        let near = std::mem::replace(&mut ring[ring_at], far);
                        ring_at = if ring_at + 1 == LOOKAHEAD {
                            0
                        } else {
                            ring_at + 1
                        };
                        let pe = pte_v[near as usize];
                        let t = tag(pe.e);
                        if (t == T_DASD || (t == T_RES && write && pe.e & P_CHG == 0))
                            && pe.blk != NO_BLOCK
                        {
                            self.pg.blocks.prefetch(pe.blk);
                        }
                    }
                    self.refs += 1;
                    if wrapped && s.think > 0 && s.burst_touches == 0 {
                        b.outcome = Outcome::Think(jittered(s.think, &mut rng));
                        return self.thrash_save(vi, pos, touches, prefill_left, rng, cur, b);
                    }
                }
            }
            if b.virt + cx.charge.cp + cx.charge.sys + s.cpu > budget {
                b.outcome = Outcome::Slice;
                return self.thrash_save(vi, pos, touches, prefill_left, rng, cur, b);
            }
            // Slow path: the page at `cur` is not resident, or is being changed
            // for the first time.
            let vp = cur as u32;
            let e = self.guests[gi].pt[vp as usize].e;
            let write = s.write || prefill_left > 0;
            match tag(e) {
                T_RES => {
                    self.guests[gi].pt[vp as usize].e = e | P_CHG;
                    if self.guests[gi].pt[vp as usize].blk != NO_BLOCK {
                        self.release_slot(g, vp);
                    }
                    let _ = write;
                }
                T_NONE => {
                    let Some(f) = self.get_frame(cx, g, vp) else {
                        b.outcome = Outcome::FrameWait;
                        return self.thrash_save(vi, pos, touches, prefill_left, rng, cur, b);
                    };
                    self.guests[gi].pt[vp as usize].e = pte(T_RES, f) | P_REF | P_CHG;
                    cx.charge.cp += self.costs.first_touch;
                    self.st.count_first_touch(g);
                }
                T_XS => {
                    let Some(f) = self.get_frame(cx, g, vp) else {
                        b.outcome = Outcome::FrameWait;
                        return self.thrash_save(vi, pos, touches, prefill_left, rng, cur, b);
                    };
                    self.xstor_in(cx, g, vp, f);
                    cx.charge.cp += self.costs.xmove;
                    self.st.count_fault(g);
                }
                T_DASD => {
                    self.st.count_fault(g);
                    b.outcome = match self.start_block_read(cx, g, vp, v) {
                        Some(io) => {
                            b.io = io;
                            Outcome::PageWait
                        }
                        None => Outcome::FrameWait,
                    };
                    return self.thrash_save(vi, pos, touches, prefill_left, rng, cur, b);
                }
                T_READIN => {
                    self.st.count_fault(g);
                    let r = idx(e);
                    self.pg.join_read(r, v);
                    cx.charge.cp += self.costs.fault;
                    b.outcome = Outcome::PageWait;
                    return self.thrash_save(vi, pos, touches, prefill_left, rng, cur, b);
                }
                T_PAGEOUT => {
                    // Reclaimed from the page-out in progress: no I/O needed.
                    let f = self.guests[gi].pt[vp as usize].blk;
                    self.guests[gi].pt[vp as usize] = PageEntry {
                        e: pte(T_RES, f) | P_REF,
                        blk: NO_BLOCK,
                    };
                    self.guests[gi].ufo.push_back((f, vp));
                    cx.charge.cp += self.costs.fault;
                }
                _ => unreachable!("bad page state"),
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn thrash_save(
        &mut self,
        vi: usize,
        pos: u64,
        touches: u64,
        prefill_left: u64,
        rng: Rng,
        cur: u64,
        _b: &mut Burst,
    ) {
        // `pos` already points past `cur`; step back so `cur` is touched next time.
        let _ = cur;
        self.vcpus[vi].work = WorkState::Thrasher {
            pos,
            touches,
            prefill_left,
        };
        self.vcpus[vi].pending_page = Some(cur);
        self.vcpus[vi].rng = rng;
    }
}

/// Pages a random toucher's prefetching runs ahead of it.
const LOOKAHEAD: usize = 6;

/// A think time drawn uniformly from 50% to 150% of `mean`: guests that think
/// for exactly the same time would run in lockstep, which real ones do not.
fn jittered(mean: Ns, rng: &mut Rng) -> Ns {
    (mean as f64 * (0.5 + rng.f64())) as Ns
}

/// Parameters of a thrasher burst.
#[derive(Clone, Copy, Debug)]
pub struct ThrashSpec {
    pub pages: u64,
    pub pattern: Pattern,
    pub write: bool,
    pub cpu: Ns,
    pub hot: u64,
    pub warm: u64,
    pub hot_share: f64,
    pub warm_share: f64,
    pub think: Ns,
    pub burst_touches: u64,
    pub cp_overhead: f64,
}

impl ThrashSpec {
    /// The burst parameters of a thrasher workload (`None` for other workloads).
    fn of(w: &Workload) -> Option<ThrashSpec> {
        let Workload::Thrasher {
            area,
            pattern,
            touch,
            cpu_per_touch_us,
            hot_fraction,
            hot_share,
            warm_fraction,
            warm_share,
            think,
            burst_touches,
            cp_overhead,
            ..
        } = w
        else {
            return None;
        };
        let pages = area.pages();
        let hot = ((pages as f64 * hot_fraction) as u64).clamp(1, pages);
        Some(ThrashSpec {
            pages,
            pattern: *pattern,
            write: *touch == Touch::Write,
            cpu: us_f(*cpu_per_touch_us),
            hot,
            warm: ((pages as f64 * warm_fraction) as u64).min(pages - hot),
            hot_share: *hot_share,
            warm_share: *warm_share,
            think: think.0,
            burst_touches: *burst_touches,
            cp_overhead: *cp_overhead,
        })
    }
}

/// The next page a thrasher touches.
#[inline]
fn next_page(s: &ThrashSpec, pos: &mut u64, rng: &mut Rng, prefill: bool) -> u64 {
    if prefill || s.pattern == Pattern::Serial {
        let p = *pos;
        *pos = if p + 1 >= s.pages { 0 } else { p + 1 };
        return p;
    }
    match s.pattern {
        Pattern::Random => rng.below(s.pages),
        Pattern::WorkingSet => {
            let u = rng.f64();
            let cold = s.pages - s.hot - s.warm;
            if u < s.hot_share || s.hot >= s.pages {
                rng.below(s.hot)
            } else if (u < s.hot_share + s.warm_share && s.warm > 0) || cold == 0 {
                s.hot + rng.below(s.warm.max(1))
            } else {
                s.hot + s.warm + rng.below(cold)
            }
        }
        Pattern::Serial => unreachable!(),
    }
}
