//! The cpu component: logical CPUs, virtual CPUs, the scheduler's lists and
//! the dispatcher.
//!
//! A logical CPU runs one virtual CPU at a time for a burst of at most the minor
//! time slice. The burst is computed when it starts (page touches, CP work on the
//! guest's behalf, system work such as the demand scan) and ends with an event;
//! a page fault that needs DASD, a think time or the end of the slice ends it.
//!
//! **Owns** the logical CPUs (the burst running, time and dispatch counters,
//! system time owed by interrupt-level work), the ready queue and the
//! eligible list, each guest's scheduling state (user ID, share, QUICKDSP,
//! dormant/eligible/dispatch list, test-idle generation, logon time) and each
//! virtual CPU's (state, CP time owed, total and virtual time, virtual I/O
//! count, high-frequency state counts); STORBUF; the CP time of a dispatch.
//!
//! **Interface**: scheduling transitions ([`Cpus::vcpu_has_work`],
//! [`Cpus::admit_eligible`], [`Cpus::test_idle`], [`Cpus::wake`],
//! [`Cpus::io_wait_over`], [`Cpus::make_ready`]), which tell `storage` each
//! guest's category and read its working-set estimates (STORBUF admission);
//! burst bookkeeping ([`Cpus::begin`], [`Cpus::start_burst`],
//! [`Cpus::end_burst`], [`Cpus::after_burst`]); [`Cpus::hf_tick`]; for the
//! monitor [`Cpus::counters`], [`Cpus::guest`], [`Cpus::vcpus`],
//! [`Cpus::eligible_count`]. The dispatcher itself, which runs the workload's
//! burst, is a wiring method of [`Model`] here.
//!
//! **Parameters**: [`params`] (processors, STORBUF, the dispatch's CP time,
//! the scheduling part of `[[guest]]`: user IDs, virtual CPUs, share).
//!
//! **Events**: [`Ev::BurstEnd`] (one per busy logical CPU), [`Ev::Wake`] (a
//! think time ends), [`Ev::TestIdle`] (stale unless its generation matches).
//!
//! Work done outside a burst (I/O completions, timeline actions) is counted
//! and charged on the logical CPU that dispatched last ([`Cpus::irq_cpu`]).

pub mod params;
#[cfg(test)]
mod tests;

use super::storage::{Cat, Storage};
use super::{Core, Cx, Model};
use crate::core::units::{Ns, MS, SEC};
use params::MINOR_SLICE;
use std::collections::VecDeque;

/// Test-idle time before a guest is dropped from the dispatch list.
pub const TEST_IDLE: Ns = 300 * MS;

/// Elapsed time slices of transaction classes 1, 2 and 3 (\[E\]: class 1
/// 0.5 s; classes 2 and 3 get 6 and 48 times it, spec topic 2). A user that
/// is still in the dispatch list when its class's slice has run out (seen at
/// the scheduler's tick, [`crate::model::storage::TICK`]) has its working set
/// projected, moves up a class (to 3 at most) and must be admitted again.
pub const ETS: [Ns; 3] = [500 * MS, 3 * SEC, 24 * SEC];

/// Page faults per second (over the last scheduler tick) that make a user
/// "loading", a heavy page faulter for LDUBUF (\[E\]).
pub const LOADING_FAULTS_PER_S: f64 = 50.0;

/// Events of the cpu component.
#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// A logical CPU finishes the burst it is running.
    BurstEnd { cpu: u32 },
    /// A virtual CPU's think time ends.
    Wake { vcpu: u32 },
    /// A guest has been idle for the test-idle time (if `gen` still matches).
    TestIdle { guest: u32, gen: u32 },
}

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
    /// Waiting for its own I/O (already started) in an enabled wait state,
    /// as Linux does: CP sees an idle virtual CPU (test idle while its guest
    /// is in the dispatch list), not I/O wait.
    IoEnabledWait,
    /// Nothing to do for this long.
    Think(Ns),
    /// The workload has nothing more to do.
    Idle,
}

/// One burst of a virtual CPU on a logical CPU.
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

impl Burst {
    /// A burst of virtual CPU `v` with nothing done yet.
    pub fn new(v: u32) -> Burst {
        Burst {
            virt: 0,
            cp: 0,
            sys: 0,
            outcome: Outcome::Slice,
            vcpu: v,
            io: None,
        }
    }
}

#[derive(Default)]
struct Cpu {
    running: Option<Burst>,
    c: CpuCounters,
    /// System time owed by interrupt-level CP work, added to the next burst.
    owed_sys: Ns,
    /// When the running burst started, and how long its leading system work
    /// lasts (the interrupt work it was owed and the dispatch): CP's work
    /// before the virtual CPU runs.
    started: Ns,
    prefix: Ns,
    /// This CPU's dispatch vector: virtual CPUs ready to run here (those that
    /// last ran here), oldest first; entries of virtual CPUs no longer ready
    /// are dropped when met.
    ready: VecDeque<u32>,
    /// When its last burst ended (the CPU idle longest takes work first).
    idle_since: Ns,
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
    /// In the dispatch list with nothing to run (HFTIDL, %TI).
    pub test_idle: u64,
    /// In the dispatch list waiting for its timer or an interrupt (a Linux
    /// guest between its bursts: HFTSVM, %TIW).
    pub test_idle_wait: u64,
    pub eligible: u64,
    pub dormant: u64,
    pub other: u64,
    pub in_queue: u64,
}

struct Vcpu {
    guest: u32,
    addr: u16,
    state: VState,
    /// CP time owed to this virtual CPU (I/O interrupts), charged at next dispatch.
    owed_cp: Ns,
    ttime: Ns,
    vtime: Ns,
    hf: HfCounters,
    /// Virtual (minidisk) I/Os.
    vio: u64,
    /// The I/O it is about to wait for completed while its burst was still
    /// running: do not wait when the burst ends.
    woken: bool,
    /// Its `IoWait` is an enabled wait (`Outcome::IoEnabledWait`): sampled
    /// as test idle, not I/O wait.
    enabled_wait: bool,
    /// The state it left when it became ready (what it is still waiting for
    /// while CP finishes the interrupt work that made it ready).
    waited: VState,
    /// Set by high-frequency sampling while its burst is in its leading
    /// system work.
    in_prefix: bool,
    /// The logical CPU it last ran on (its dispatch vector when it is ready
    /// again); `NO_CPU` before it first runs.
    last_cpu: u16,
    /// When it was last made ready, in ready order (its age in a vector).
    ready_seq: u64,
}

/// A virtual CPU that has not run yet.
const NO_CPU: u16 = u16::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sched {
    LoggedOff,
    Dormant,
    Eligible,
    Dispatch,
}

impl Sched {
    /// The demand scan's category (a logged-off guest counts as dormant).
    fn category(self) -> Cat {
        match self {
            Sched::Dispatch => Cat::Dispatch,
            Sched::Eligible => Cat::Eligible,
            _ => Cat::Dormant,
        }
    }
}

/// A guest as the scheduler defines it.
#[derive(Clone, Debug)]
pub struct GuestDef {
    pub userid: String,
    pub nvcpu: u32,
    pub share: u32,
    pub quickdsp: bool,
}

struct Guest {
    def: GuestDef,
    first_vcpu: u32,
    sched: Sched,
    idle_gen: u32,
    logon_ns: Ns,
    /// Transaction class (1 to 3; QUICKDSP users are class 0 and bypass
    /// STORBUF and LDUBUF): 1 on entry from dormant, one up at each end of
    /// its elapsed time slice.
    class: u8,
    /// When its current stay in the dispatch list (or elapsed time slice)
    /// began.
    stay_start: Ns,
    /// A heavy page faulter (LDUBUF), and its fault count at the last tick.
    loading: bool,
    faults0: u64,
}

impl Guest {
    fn vcpus(&self) -> std::ops::Range<u32> {
        self.first_vcpu..self.first_vcpu + self.def.nvcpu
    }
}

/// A guest as the monitor sees it (MTRUSR, USEACT, USELON, USELOF).
#[derive(Clone, Copy, Debug)]
pub struct GuestSample<'a> {
    pub userid: &'a str,
    pub nvcpu: u32,
    pub share: u32,
    pub quickdsp: bool,
    pub logged_on: bool,
    pub logon_ns: Ns,
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

/// The scheduler's lists at one moment (INDICATE LOAD's Q and E lines).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueCounts {
    pub dispatch: [u32; 4],
    pub dispatch_loading: [u32; 4],
    pub eligible: [u32; 4],
    pub eligible_loading: [u32; 4],
    pub dormant: u32,
}

pub struct Cpus {
    cpus: Vec<Cpu>,
    /// Entries in all dispatch vectors (stale ones included).
    ready: u32,
    /// Dispatch vector of the next virtual CPU that has not run yet
    /// (round-robin).
    next_home: u16,
    /// Virtual CPUs made ready so far (each one's `ready_seq`).
    ready_seq: u64,
    /// Guests on the eligible list, in arrival order.
    eligible: VecDeque<u32>,
    guests: Vec<Guest>,
    vcpus: Vec<Vcpu>,
    irq_cpu: u16,
    /// SET SRM STORBUF as fractions of the DPA.
    storbuf: [f64; 3],
    /// SET SRM LDUBUF as fractions of the paging exposures, and their count.
    ldubuf: [f64; 3],
    exposures: u32,
    /// CP time of a dispatch.
    dispatch: Ns,
}

impl Cpus {
    /// The logical CPUs, STORBUF and dispatch cost of `p`; guests `guests`
    /// (all logged off), their virtual CPUs numbered in guest order.
    pub fn new(p: &params::Params, guests: Vec<GuestDef>) -> Cpus {
        let (ncpu, storbuf, dispatch) = (p.processors as usize, p.storbuf(), p.dispatch());
        let ldubuf = p.ldubuf();
        let mut vcpus = Vec::new();
        let guests = guests
            .into_iter()
            .enumerate()
            .map(|(g, def)| {
                let first_vcpu = vcpus.len() as u32;
                for k in 0..def.nvcpu {
                    vcpus.push(Vcpu {
                        guest: g as u32,
                        addr: k as u16,
                        state: VState::Idle,
                        owed_cp: 0,
                        ttime: 0,
                        vtime: 0,
                        hf: HfCounters::default(),
                        vio: 0,
                        woken: false,
                        enabled_wait: false,
                        waited: VState::Idle,
                        in_prefix: false,
                        last_cpu: NO_CPU,
                        ready_seq: 0,
                    });
                }
                Guest {
                    class: if def.quickdsp { 0 } else { 1 },
                    def,
                    first_vcpu,
                    sched: Sched::LoggedOff,
                    idle_gen: 0,
                    logon_ns: 0,
                    stay_start: 0,
                    loading: false,
                    faults0: 0,
                }
            })
            .collect();
        Cpus {
            cpus: (0..ncpu).map(|_| Cpu::default()).collect(),
            ready: 0,
            next_home: 0,
            ready_seq: 0,
            eligible: VecDeque::new(),
            guests,
            vcpus,
            irq_cpu: 0,
            storbuf,
            ldubuf,
            exposures: 0,
            dispatch,
        }
    }

    /// The paging exposures LDUBUF counts in (the paging volumes).
    pub fn set_exposures(&mut self, n: u32) {
        self.exposures = n;
    }

    // ------------------------------------------------------------ guests

    #[inline]
    pub fn logged_on(&self, g: u32) -> bool {
        self.guests[g as usize].sched != Sched::LoggedOff
    }

    pub fn sched(&self, g: u32) -> Sched {
        self.guests[g as usize].sched
    }

    /// Guest `g`'s virtual CPUs.
    pub fn vcpus_of(&self, g: u32) -> std::ops::Range<u32> {
        self.guests[g as usize].vcpus()
    }

    pub fn vstate(&self, v: u32) -> VState {
        self.vcpus[v as usize].state
    }

    /// Guest `g` logs on at `now`: dormant.
    pub fn logon(&mut self, g: u32, now: Ns) {
        let gu = &mut self.guests[g as usize];
        gu.sched = Sched::Dormant;
        gu.logon_ns = now;
    }

    /// Guest `g` logs off.
    pub fn logoff(&mut self, g: u32) {
        self.guests[g as usize].sched = Sched::LoggedOff;
    }

    fn set_sched(&mut self, st: &mut Storage, g: u32, s: Sched) {
        self.guests[g as usize].sched = s;
        st.set_category(g, s.category());
    }

    /// Guest `g` enters the dispatch list at `now` (a stay begins).
    fn enter_dispatch(&mut self, st: &mut Storage, g: u32, now: Ns) {
        self.set_sched(st, g, Sched::Dispatch);
        self.guests[g as usize].stay_start = now;
    }

    /// Queue virtual CPU `v`, which has work again: on its dispatch vector,
    /// or, while its guest waits in the eligible list, there.
    #[inline]
    fn ready_or_eligible(&mut self, v: u32) {
        let g = self.vcpus[v as usize].guest;
        if self.guests[g as usize].sched == Sched::Eligible {
            self.vcpus[v as usize].state = VState::Eligible;
        } else {
            self.make_ready(v);
        }
    }

    // ------------------------------------------------------------ scheduling

    /// Queue a virtual CPU for dispatch on the dispatch vector of the logical
    /// CPU it last ran on (CP's DSVBK: work stays where its cache is; idle
    /// CPUs take work from others, see `Model::dispatch_idle_cpus`). CPUs pick
    /// up ready work only between events, never from inside another burst.
    #[inline]
    pub fn make_ready(&mut self, v: u32) {
        let vc = &mut self.vcpus[v as usize];
        vc.waited = vc.state;
        vc.state = VState::Ready;
        vc.ready_seq = self.ready_seq;
        self.ready_seq += 1;
        let mut c = vc.last_cpu;
        if c == NO_CPU {
            c = self.next_home;
            vc.last_cpu = c;
            self.next_home = (c + 1) % self.cpus.len() as u16;
        }
        self.cpus[c as usize].ready.push_back(v);
        self.ready += 1;
    }

    /// A virtual CPU has something to run: queue it, admitting its guest to the
    /// dispatch list first if needed.
    pub fn vcpu_has_work(&mut self, st: &mut Storage, v: u32, now: Ns) {
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
                // A new transaction: class 1 (QUICKDSP: 0).
                self.guests[gi].class = if self.guests[gi].def.quickdsp { 0 } else { 1 };
                if self.admissible(st, g) {
                    self.enter_dispatch(st, g, now);
                    self.guests[gi].idle_gen = self.guests[gi].idle_gen.wrapping_add(1);
                    self.make_ready(v);
                } else {
                    self.set_sched(st, g, Sched::Eligible);
                    self.eligible.push_back(g);
                    self.vcpus[v as usize].state = VState::Eligible;
                }
            }
        }
    }

    /// STORBUF and LDUBUF admission (SET SRM; spec topic 2): with guest `g`
    /// added to the dispatch list (less `g` itself if it is there), the
    /// working-set estimates of Q1 users stay within the first STORBUF
    /// percentage of the DPA, those of Q1+Q2 within the second and those of
    /// Q1+Q2+Q3 within the third; and, if `g` is loading, the loading users
    /// of Q1, Q1+Q2 and Q1+Q2+Q3 within the LDUBUF percentages of the paging
    /// exposures. Class 0 (QUICKDSP) bypasses both and is not counted; a
    /// guest is always admitted to an otherwise empty dispatch list, and a
    /// loading one when no other loading user is there.
    fn admissible(&self, st: &Storage, g: u32) -> bool {
        let gu = &self.guests[g as usize];
        if gu.class == 0 {
            return true;
        }
        let mut wss = [0.0f64; 4];
        let mut loading = [0u32; 4];
        let mut others = false;
        for (k, x) in self.guests.iter().enumerate() {
            if k as u32 == g || x.sched != Sched::Dispatch || x.class == 0 {
                continue;
            }
            others = true;
            wss[x.class as usize] += st.wss(k as u32);
            loading[x.class as usize] += x.loading as u32;
        }
        if !others {
            return true;
        }
        let any_loading = loading.iter().any(|&n| n > 0);
        let c = gu.class as usize;
        wss[c] += st.wss(g);
        loading[c] += gu.loading as u32;
        let dpa = st.dpa() as f64;
        let exp = self.exposures as f64;
        let (mut sw, mut sl) = (0.0, 0u32);
        for j in 0..3 {
            sw += wss[j + 1];
            sl += loading[j + 1];
            if sw > self.storbuf[j] * dpa {
                return false;
            }
            if gu.loading && any_loading && sl as f64 > self.ldubuf[j] * exp {
                return false;
            }
        }
        true
    }

    /// The scheduler's tick at `now`: which users are loading (their page
    /// faults since the last tick, from storage), and the end of elapsed time
    /// slices. A user whose slice has run out has its working set projected
    /// and moves up a class; it stays in the dispatch list only if it would
    /// be admitted now and no one waits in the eligible list, else it joins
    /// the eligible list (its ready virtual CPUs leave the dispatch vectors).
    pub fn tick(&mut self, st: &mut Storage, now: Ns) {
        let secs = crate::model::storage::TICK as f64 / SEC as f64;
        for g in 0..self.guests.len() {
            let gu = &mut self.guests[g];
            if gu.sched == Sched::LoggedOff {
                continue;
            }
            let f = st.guest(g as u32).faults;
            let rate = f.saturating_sub(gu.faults0) as f64 / secs;
            gu.faults0 = f;
            gu.loading = gu.sched != Sched::Dormant && rate >= LOADING_FAULTS_PER_S;
        }
        for g in 0..self.guests.len() as u32 {
            let gu = &self.guests[g as usize];
            if gu.sched != Sched::Dispatch || gu.class == 0 {
                continue;
            }
            if now.saturating_sub(gu.stay_start) < ETS[gu.class as usize - 1] {
                continue;
            }
            st.project_wss(g);
            let gu = &mut self.guests[g as usize];
            gu.class = (gu.class + 1).min(3);
            gu.stay_start = now;
            if self.eligible.is_empty() && self.admissible(st, g) {
                continue;
            }
            self.set_sched(st, g, Sched::Eligible);
            self.eligible.push_back(g);
            for v in self.guests[g as usize].vcpus() {
                if self.vcpus[v as usize].state == VState::Ready {
                    self.vcpus[v as usize].state = VState::Eligible;
                }
            }
        }
    }

    /// Admit eligible guests in arrival order while STORBUF and LDUBUF allow.
    pub fn admit_eligible(&mut self, st: &mut Storage, now: Ns) {
        while let Some(&g) = self.eligible.front() {
            if self.guests[g as usize].sched != Sched::Eligible {
                self.eligible.pop_front();
                continue;
            }
            if !self.admissible(st, g) {
                break;
            }
            self.eligible.pop_front();
            self.enter_dispatch(st, g, now);
            for v in self.guests[g as usize].vcpus() {
                if self.vcpus[v as usize].state == VState::Eligible {
                    self.make_ready(v);
                }
            }
        }
    }

    /// Schedule the test-idle check of guest `g` if all its virtual CPUs are
    /// idle or thinking.
    fn maybe_test_idle(&mut self, cx: &mut Cx, g: u32) {
        let gu = &self.guests[g as usize];
        let all_idle = gu
            .vcpus()
            .all(|v| matches!(self.vcpus[v as usize].state, VState::Idle | VState::Think));
        if all_idle && gu.sched == Sched::Dispatch {
            let gen = gu.idle_gen;
            cx.at(TEST_IDLE, Ev::TestIdle { guest: g, gen });
        }
    }

    /// Drop a guest that stayed idle through the test-idle time to dormant.
    pub fn test_idle(&mut self, st: &mut Storage, g: u32, gen: u32, now: Ns) {
        let gu = &self.guests[g as usize];
        if gu.idle_gen != gen || gu.sched != Sched::Dispatch {
            return;
        }
        if gu
            .vcpus()
            .all(|v| matches!(self.vcpus[v as usize].state, VState::Idle | VState::Think))
        {
            self.set_sched(st, g, Sched::Dormant);
            self.admit_eligible(st, now);
        }
    }

    /// A virtual CPU's think time ended.
    pub fn wake(&mut self, st: &mut Storage, v: u32, now: Ns) {
        if self.vcpus[v as usize].state == VState::Think {
            self.vcpus[v as usize].state = VState::Idle;
            self.vcpu_has_work(st, v, now);
        }
    }

    /// An I/O (page read or minidisk) the virtual CPU waited for completed.
    #[inline]
    pub fn io_wait_over(&mut self, v: u32) {
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
            self.ready_or_eligible(v);
        }
    }

    /// CP work done for virtual CPU `v` outside its burst (an I/O interrupt),
    /// charged at its next dispatch.
    #[inline]
    pub fn owe_cp(&mut self, v: u32, ns: Ns) {
        self.vcpus[v as usize].owed_cp += ns;
    }

    /// System time owed by interrupt-level work on logical CPU `c`, added to
    /// its next burst.
    #[inline]
    pub fn owe_sys(&mut self, c: u16, ns: Ns) {
        self.cpus[c as usize].owed_sys += ns;
    }

    /// Virtual CPU `v` started a virtual (minidisk) I/O.
    #[inline]
    pub fn count_virtual_io(&mut self, v: u32) {
        self.vcpus[v as usize].vio += 1;
    }

    // ------------------------------------------------------------ bursts

    /// Work ready to run.
    #[inline]
    pub fn any_ready(&self) -> bool {
        self.ready != 0
    }

    pub fn cpu_count(&self) -> usize {
        self.cpus.len()
    }

    #[inline]
    pub fn idle(&self, c: u16) -> bool {
        self.cpus[c as usize].running.is_none()
    }

    /// The logical CPU that dispatched last: work outside bursts runs on it.
    #[inline]
    pub fn irq_cpu(&self) -> u16 {
        self.irq_cpu
    }

    /// The oldest ready virtual CPU in logical CPU `c`'s dispatch vector
    /// (entries of virtual CPUs no longer ready are dropped).
    #[inline]
    pub fn next_ready(&mut self, c: u16) -> Option<u32> {
        while let Some(v) = self.cpus[c as usize].ready.pop_front() {
            self.ready -= 1;
            if self.vcpus[v as usize].state == VState::Ready {
                return Some(v);
            }
        }
        None
    }

    /// The oldest ready virtual CPU in logical CPU `c`'s dispatch vector,
    /// left there (stale entries before it are dropped).
    #[inline]
    fn head(&mut self, c: u16) -> Option<u32> {
        let ready = &mut self.cpus[c as usize].ready;
        while let Some(&v) = ready.front() {
            if self.vcpus[v as usize].state == VState::Ready {
                return Some(v);
            }
            ready.pop_front();
            self.ready -= 1;
        }
        None
    }

    /// Whose dispatch vector idle logical CPU `c` takes its next work from:
    /// its own, unless a busy CPU's vector holds work made ready before the
    /// oldest of its own (CP dispatches by priority, and a processor looking
    /// for work takes a VMDBK waiting behind a busy one: so three CPU-bound
    /// users on two processors share them instead of one keeping a
    /// processor to itself).
    #[inline(always)]
    pub fn source_vector(&mut self, c: u16) -> u16 {
        // Every entry is in `c`'s own vector (the common case of one ready
        // virtual CPU): no other vector has work to compare with. Stale
        // entries are dropped by `next_ready` as `head` would drop them.
        if self.cpus[c as usize].ready.len() == self.ready as usize {
            return c;
        }
        self.source_vector_among(c)
    }

    /// [`Cpus::source_vector`] when other vectors hold entries.
    #[inline(never)]
    fn source_vector_among(&mut self, c: u16) -> u16 {
        let Some(own) = self.head(c) else {
            return c;
        };
        let mut best = (self.vcpus[own as usize].ready_seq, c);
        for k in 0..self.cpus.len() as u16 {
            if k == c || self.cpus[k as usize].running.is_none() {
                continue;
            }
            if let Some(v) = self.head(k) {
                let seq = self.vcpus[v as usize].ready_seq;
                if seq < best.0 {
                    best = (seq, k);
                }
            }
        }
        best.1
    }

    /// Work for idle logical CPU `c` from another CPU's dispatch vector: the
    /// oldest entry of the longest one (lowest CPU number among equals).
    pub fn steal_ready(&mut self, c: u16) -> Option<u32> {
        loop {
            let (mut best, mut len) = (NO_CPU, 0);
            for (k, cpu) in self.cpus.iter().enumerate() {
                if k as u16 != c && cpu.ready.len() > len {
                    (best, len) = (k as u16, cpu.ready.len());
                }
            }
            if best == NO_CPU {
                return None;
            }
            if let Some(v) = self.next_ready(best) {
                return Some(v);
            }
        }
    }

    /// The idle logical CPU that has been idle longest (lowest number among
    /// equals), if any.
    pub fn longest_idle(&self) -> Option<u16> {
        let mut best: Option<(Ns, u16)> = None;
        for (k, cpu) in self.cpus.iter().enumerate() {
            if cpu.running.is_none() && best.is_none_or(|(t, _)| cpu.idle_since < t) {
                best = Some((cpu.idle_since, k as u16));
            }
        }
        best.map(|(_, k)| k)
    }

    /// Whether logical CPU `c` has work in its own dispatch vector.
    #[inline]
    pub fn has_own_work(&self, c: u16) -> bool {
        !self.cpus[c as usize].ready.is_empty()
    }

    /// Virtual CPU `v` runs on logical CPU `c`: the CP time its burst starts
    /// with, as (the guest's: what it was owed; system: the dispatch itself,
    /// CP's own work).
    #[inline]
    pub fn begin(&mut self, c: u16, v: u32) -> (Ns, Ns) {
        self.irq_cpu = c;
        let vc = &mut self.vcpus[v as usize];
        vc.state = VState::Running;
        vc.last_cpu = c;
        (std::mem::take(&mut vc.owed_cp), self.dispatch)
    }

    /// Burst `b` runs on logical CPU `c` from `now` (with the system time the
    /// CPU owes): its length.
    #[inline]
    pub fn start_burst(&mut self, c: u16, mut b: Burst, now: Ns) -> Ns {
        let cpu = &mut self.cpus[c as usize];
        let owed = std::mem::take(&mut cpu.owed_sys);
        b.sys += owed;
        cpu.started = now;
        cpu.prefix = owed + self.dispatch;
        cpu.c.dispatches += 1;
        cpu.running = Some(b);
        (b.virt + b.cp + b.sys).max(1)
    }

    /// The burst on logical CPU `c` ended at `now`: its time is counted.
    #[inline]
    pub fn end_burst(&mut self, c: u16, now: Ns) -> Burst {
        let cpu = &mut self.cpus[c as usize];
        let b = cpu.running.take().expect("burst end on an idle CPU");
        cpu.idle_since = now;
        cpu.c.emul_ns += b.virt;
        cpu.c.cp_user_ns += b.cp;
        cpu.c.sys_ns += b.sys;
        b
    }

    /// Act on the outcome of burst `b`, which ran on logical CPU `c`.
    #[inline]
    pub fn after_burst(&mut self, cx: &mut Cx, st: &mut Storage, c: u16, b: &Burst) {
        let v = b.vcpu;
        let vi = v as usize;
        let woken = std::mem::take(&mut self.vcpus[vi].woken);
        self.vcpus[vi].vtime += b.virt;
        self.vcpus[vi].ttime += b.virt + b.cp;
        let g = self.vcpus[vi].guest;
        if self.guests[g as usize].sched == Sched::LoggedOff {
            self.vcpus[vi].state = VState::Idle;
            return;
        }
        match b.outcome {
            Outcome::Slice => self.ready_or_eligible(v),
            Outcome::PageWait | Outcome::IoWait | Outcome::IoEnabledWait if woken => {
                self.ready_or_eligible(v)
            }
            // Frames freed while the burst ran (a fast page-out) woke no one:
            // it takes one at its next dispatch rather than wait for the next.
            Outcome::FrameWait if st.frames_free() => self.ready_or_eligible(v),
            Outcome::PageWait | Outcome::FrameWait => {
                self.vcpus[vi].state = VState::PageWait;
                if b.outcome == Outcome::FrameWait {
                    st.wait_for_frame(c, v);
                }
            }
            Outcome::IoWait | Outcome::IoEnabledWait => {
                self.vcpus[vi].state = VState::IoWait;
                self.vcpus[vi].enabled_wait = b.outcome == Outcome::IoEnabledWait;
            }
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

    /// High-frequency sampling at `now`: each CPU's sample count and every
    /// logged-on virtual CPU's state. A virtual CPU whose burst is still in
    /// its leading system work (CP finishing the interrupt that made it ready,
    /// and dispatching it) counts in the state it was waiting in.
    pub fn hf_tick(&mut self, now: Ns) {
        for c in &mut self.cpus {
            c.c.hf_count += 1;
            if let Some(b) = &c.running {
                if now < c.started + c.prefix {
                    self.vcpus[b.vcpu as usize].in_prefix = true;
                }
            }
        }
        for g in &self.guests {
            if g.sched == Sched::LoggedOff {
                continue;
            }
            let in_queue = matches!(g.sched, Sched::Dispatch | Sched::Eligible);
            for v in g.vcpus() {
                let vc = &mut self.vcpus[v as usize];
                let h = &mut vc.hf;
                h.total += 1;
                if in_queue {
                    h.in_queue += 1;
                }
                let state = if vc.in_prefix {
                    vc.in_prefix = false;
                    vc.waited
                } else {
                    vc.state
                };
                match state {
                    VState::Running => h.running += 1,
                    VState::Ready => h.cpu_wait += 1,
                    VState::PageWait => h.page_wait += 1,
                    VState::IoWait if !vc.enabled_wait => h.io_wait += 1,
                    VState::IoWait if g.sched == Sched::Dispatch => h.test_idle_wait += 1,
                    VState::IoWait => h.dormant += 1,
                    VState::Eligible => h.eligible += 1,
                    VState::Think if g.sched == Sched::Dispatch => h.test_idle_wait += 1,
                    VState::Idle if g.sched == Sched::Dispatch => h.test_idle += 1,
                    VState::Idle | VState::Think => h.dormant += 1,
                }
            }
        }
    }

    // ------------------------------------------------------------ samples

    /// Each logical CPU's counters.
    pub fn counters(&self) -> impl ExactSizeIterator<Item = CpuCounters> + '_ {
        self.cpus.iter().map(|c| c.c)
    }

    /// Guests, logged on or not.
    pub fn guest_count(&self) -> u32 {
        self.guests.len() as u32
    }

    /// Guest `g` for the monitor.
    pub fn guest(&self, g: u32) -> GuestSample<'_> {
        let gu = &self.guests[g as usize];
        GuestSample {
            userid: &gu.def.userid,
            nvcpu: gu.def.nvcpu,
            share: gu.def.share,
            quickdsp: gu.def.quickdsp,
            logged_on: gu.sched != Sched::LoggedOff,
            logon_ns: gu.logon_ns,
        }
    }

    /// Guest `g`'s virtual CPUs for the monitor, base first.
    pub fn vcpus(&self, g: u32) -> impl Iterator<Item = VcpuSample> + '_ {
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
    pub fn eligible_count(&self) -> u32 {
        self.eligible.len() as u32
    }

    /// SET SRM STORBUF / LDUBUF (percentages, as the `[srm]` keys):
    /// the same fractions `Cpus::new` takes from the scenario.
    pub(crate) fn set_srm(&mut self, storbuf: Option<[u32; 3]>, ldubuf: Option<[u32; 3]>) {
        if let Some(b) = storbuf {
            self.storbuf = b.map(|x| x as f64 / 100.0);
        }
        if let Some(b) = ldubuf {
            self.ldubuf = b.map(|x| x as f64 / 100.0);
        }
    }

    /// STORBUF and LDUBUF now, as percentages (QUERY SRM).
    pub(crate) fn srm(&self) -> ([u32; 3], [u32; 3]) {
        let pct = |b: [f64; 3]| b.map(|x| (x * 100.0).round() as u32);
        (pct(self.storbuf), pct(self.ldubuf))
    }

    /// The scheduler's lists for INDICATE LOAD: guests in the dispatch
    /// list by transaction class (Q0-Q3) and on the eligible list by class
    /// (E1-E3, index 0 unused), each with how many of them are loading
    /// users, and the dormant guests (logged on, in neither list).
    pub(crate) fn queue_counts(&self) -> QueueCounts {
        let mut q = QueueCounts::default();
        for gu in &self.guests {
            let c = gu.class as usize;
            let l = gu.loading as u32;
            match gu.sched {
                Sched::Dispatch => {
                    q.dispatch[c] += 1;
                    q.dispatch_loading[c] += l;
                }
                Sched::Eligible => {
                    q.eligible[c] += 1;
                    q.eligible_loading[c] += l;
                }
                Sched::Dormant => q.dormant += 1,
                Sched::LoggedOff => {}
            }
        }
        q
    }

    /// Ready queue length (`ZTWIN_DEBUG`).
    pub fn ready_count(&self) -> usize {
        self.ready as usize
    }
}

impl Model {
    /// Dispatch ready virtual CPUs on idle logical CPUs (between events): each
    /// idle CPU first runs the work in its own dispatch vector; then idle CPUs,
    /// the one idle longest first, take the oldest work of the longest other
    /// vector (CP balances its processors this way: DSVBK's "possible processor
    /// workload imbalance", and an idle processor looks for a VMDBK elsewhere).
    pub(crate) fn dispatch_idle_cpus(&mut self, core: &mut Core) {
        for c in 0..self.cpu.cpu_count() as u16 {
            if !self.cpu.any_ready() {
                return;
            }
            if self.cpu.idle(c) && self.cpu.has_own_work(c) {
                let from = self.cpu.source_vector(c);
                if let Some(v) = self.cpu.next_ready(from) {
                    self.dispatch(core, c, v);
                }
            }
        }
        while self.cpu.any_ready() {
            let Some(c) = self.cpu.longest_idle() else {
                return;
            };
            let v = match self.cpu.next_ready(c) {
                Some(v) => v,
                None => match self.cpu.steal_ready(c) {
                    Some(v) => v,
                    None => return,
                },
            };
            self.dispatch(core, c, v);
        }
    }

    /// Run ready virtual CPU `v` on logical CPU `c`.
    fn dispatch(&mut self, core: &mut Core, c: u16, v: u32) {
        let mut cx = Cx::new(core, c);
        (cx.charge.cp, cx.charge.sys) = self.cpu.begin(c, v);
        let b = self.run_burst(&mut cx, v, MINOR_SLICE);
        let mut total = self.cpu.start_burst(c, b, cx.now());
        if let Some(cec) = &mut self.cec {
            // The logical CPU runs at the share PR/SM gives it.
            total = cec.stretch(c, total);
        }
        cx.at(total, Ev::BurstEnd { cpu: c as u32 });
    }

    /// A burst ended: account for it, start the I/O its fault needs, and act
    /// on its outcome.
    pub(crate) fn burst_end(&mut self, cx: &mut Cx, c: u16) {
        let b = self.cpu.end_burst(c, cx.now());
        if let Some(r) = b.io {
            self.io.submit(cx, r);
        }
        self.cpu.after_burst(cx, &mut self.st, c, &b);
    }
}
