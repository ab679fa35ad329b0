//! The workload component: what guests' virtual CPUs do in their bursts.
//!
//! **Owns** each guest's current workload (and a thrasher's parameters in the
//! form a burst uses, [`ThrashSpec`]), each virtual CPU's progress in it
//! ([`WorkState`], its random stream, the page a thrasher touches next), the
//! count of page references, and its share of CP costs (first touch, XSTOR
//! page move, fault on a page in flight, virtual I/O).
//!
//! **Interface**: wiring methods of [`Model`]: `start_workload`,
//! `stop_workload` (timeline and logon), and `run_burst`, which the
//! dispatcher calls to compute one burst: the thrasher's page-touch loop
//! (`thrash.rs`: the resident fast path on storage's page-table backdoor,
//! faults resolved through storage and paging), a CPU loop, a minidisk I/O
//! loop (its I/O through `io`, with an `Origin::Minidisk`).
//!
//! **Parameters**: [`params`] (the workload types a `[[guest]]` or a
//! timeline `start` names, their bounds, the CP costs of a burst).
//!
//! **Events**: none of its own (think times end with `cpu::Ev::Wake`).

mod disk;
mod linux;
mod linux_db;
mod net;
pub mod params;
#[cfg(test)]
mod tests;
mod thrash;
mod vdisk;

use super::cpu::{Burst, Outcome, VState};
use super::{Cx, Model};
use crate::core::rng::Rng;
use crate::core::units::{Ns, US};
use params::{Pattern, Workload};
pub use thrash::{Fill, ThrashSpec};

/// CP time of operations a burst performs, ns.
#[derive(Clone, Copy, Debug, Default)]
pub struct Costs {
    /// First reference to a page: obtain and clear a frame.
    pub first_touch: Ns,
    /// Moving one page from XSTOR (a synchronous fault).
    pub xmove: Ns,
    /// A fault on a page being read or paged out.
    pub fault: Ns,
    /// Guest-initiated (virtual) I/O simulation, per I/O.
    pub virtual_io: Ns,
}

/// Workload progress of one virtual CPU.
#[derive(Clone, Debug)]
pub enum WorkState {
    None,
    Thrasher {
        pos: u64,
        touches: u64,
        prefill_left: u64,
        fill: Fill,
    },
    Cpu {
        left: Ns,
    },
    /// Minidisk loop: 0 = compute, 1 = start the I/O, 2 = think; `vol` is the
    /// volume, resolved once when the workload starts; with `volumes`, each
    /// I/O's volume is drawn from `spread` (volume, cumulative share up to 1).
    /// `left`: CPU of the current I/O still to run (more than a slice).
    Io {
        phase: u8,
        vol: u32,
        left: Ns,
        spread: Vec<(u32, f64)>,
    },
    /// CMS file I/O or CMS FORMAT: the minidisk and the place on it.
    Cms(disk::CmsState),
    /// Linux sequential I/O: the processes' streams.
    Linux(disk::LinuxState),
    /// VDISK I/O.
    Vdisk(vdisk::VdiskState),
    /// A network workload.
    Net(net::NetState),
    /// Linux database queries: a session.
    Db(linux_db::DbState),
}

/// A guest's workload.
struct GuestWork {
    workload: Workload,
    /// The thrasher's parameters in the form a burst uses, made when the
    /// workload starts (`None` for other workloads).
    thrash: Option<ThrashSpec>,
    first_vcpu: u32,
    nvcpu: u32,
    /// Its member number in its `[[guest]]` group (a minidisk workload with a
    /// trailing `+` uses the volume that many after its device).
    member: u32,
}

/// A virtual CPU's progress.
struct VcpuWork {
    guest: u32,
    work: WorkState,
    rng: Rng,
    /// The page a thrasher touches next (kept across bursts).
    pending_page: Option<u64>,
}

pub struct Workloads {
    guests: Vec<GuestWork>,
    vcpus: Vec<VcpuWork>,
    /// Page references so far.
    refs: u64,
    /// Random touchers prefetch page-table entries ahead of themselves
    /// (`thrash.rs`): worth it only when their page tables together outgrow
    /// the processor's caches. Speed only; results are the same either way.
    pub(crate) lookahead: bool,
    costs: Costs,
}

impl Workloads {
    /// Guests' initial workloads, virtual CPU counts and member numbers in
    /// their groups, in guest order (virtual CPUs numbered on); `rng(v)` is
    /// virtual CPU `v`'s random stream; CP costs from `p`.
    pub fn new(
        guests: Vec<(Workload, u32, u32)>,
        mut rng: impl FnMut(u32) -> Rng,
        lookahead: bool,
        p: &params::Params,
    ) -> Workloads {
        let costs = p.costs();
        let mut vcpus = Vec::new();
        let guests = guests
            .into_iter()
            .enumerate()
            .map(|(g, (workload, nvcpu, member))| {
                let first_vcpu = vcpus.len() as u32;
                for _ in 0..nvcpu {
                    let v = vcpus.len() as u32;
                    vcpus.push(VcpuWork {
                        guest: g as u32,
                        work: WorkState::None,
                        rng: rng(v),
                        pending_page: None,
                    });
                }
                GuestWork {
                    workload,
                    thrash: None,
                    first_vcpu,
                    nvcpu,
                    member,
                }
            })
            .collect();
        Workloads {
            guests,
            vcpus,
            refs: 0,
            lookahead,
            costs,
        }
    }

    /// Page references so far.
    pub fn refs(&self) -> u64 {
        self.refs
    }

    /// Guest `g`'s current workload.
    pub fn workload(&self, g: u32) -> &Workload {
        &self.guests[g as usize].workload
    }
}

fn us_f(x: f64) -> Ns {
    (x * US as f64).round().max(1.0) as Ns
}

/// A think time drawn uniformly from 50% to 150% of `mean`: guests that think
/// for exactly the same time would run in lockstep, which real ones do not.
fn jittered(mean: Ns, rng: &mut Rng) -> Ns {
    (mean as f64 * (0.5 + rng.f64())) as Ns
}

impl Model {
    /// Guest `g` starts workload `w` (a logged-off guest ignores it).
    pub(crate) fn start_workload(&mut self, cx: &mut Cx, g: u32, w: Workload) {
        if !self.cpu.logged_on(g) {
            return;
        }
        let gi = g as usize;
        // A guest that leaves its network workload ends its QDIO device's use.
        if !matches!(w, Workload::Net { .. }) {
            if let Some(dev) = self.net.device_of(g) {
                self.net.deactivate(dev, cx.now());
            }
        }
        self.work.guests[gi].workload = w.clone();
        self.work.guests[gi].thrash = ThrashSpec::of(&w, self.st.vpages(g) as u64);
        if let Workload::Thrasher {
            area,
            paged_out: true,
            ..
        } = &w
        {
            let n = area.pages().min(self.st.vpages(g) as u64) as u32;
            self.place_paged_out(cx, g, n);
        }
        let (first, nvcpu) = (self.work.guests[gi].first_vcpu, self.work.guests[gi].nvcpu);
        for v in first..first + nvcpu {
            let vi = v as usize;
            self.work.vcpus[vi].pending_page = None;
            self.work.vcpus[vi].work = match &w {
                Workload::Idle => WorkState::None,
                Workload::Thrasher { area, prefill, .. } => {
                    let pages = area.pages();
                    // Threads start at different points of the area.
                    let k = (v - first) as u64;
                    let pos = pages * k / nvcpu as u64;
                    let fills = k == 0
                        && self.work.guests[gi]
                            .thrash
                            .is_some_and(|s| s.fill_pages > 0);
                    WorkState::Thrasher {
                        pos,
                        touches: 0,
                        prefill_left: if *prefill && k == 0 { pages } else { 0 },
                        fill: match (&self.work.vcpus[vi].work, fills) {
                            (_, false) => Fill::OFF,
                            // A new workload of a guest that was filling: its
                            // page cache is where it was.
                            (WorkState::Thrasher { fill, .. }, true) if fill.clock != Ns::MAX => {
                                *fill
                            }
                            (_, true) => Fill {
                                clock: cx.now(),
                                ..Fill::OFF
                            },
                        },
                    }
                }
                Workload::Cpu { .. } => WorkState::Cpu { left: 0 },
                Workload::MinidiskIo {
                    device, volumes, ..
                } if !volumes.is_empty() => {
                    let mut spread = Vec::new();
                    let mut sum = 0.0;
                    for s in volumes {
                        let d =
                            crate::model::io::params::parse_devno(&s.device).expect("validated");
                        for k in 0..s.count {
                            sum += s.share;
                            let vol = self.io.by_devno(d + k as u16).expect("validated");
                            spread.push((vol, sum));
                        }
                    }
                    for e in &mut spread {
                        e.1 /= sum;
                    }
                    debug_assert!(device.is_empty());
                    WorkState::Io {
                        phase: 0,
                        vol: spread[0].0,
                        left: 0,
                        spread,
                    }
                }
                Workload::MinidiskIo { device, .. } => {
                    let (dev, spread) = params::split_device(device);
                    let mut dev = crate::model::io::params::parse_devno(dev).expect("validated");
                    if spread {
                        dev += self.work.guests[gi].member as u16;
                    }
                    WorkState::Io {
                        phase: 0,
                        vol: self.io.by_devno(dev).expect("validated"),
                        left: 0,
                        spread: Vec::new(),
                    }
                }
                Workload::Cms {
                    device, minidisk, ..
                }
                | Workload::CmsFormat {
                    device, minidisk, ..
                } => {
                    let (dev, spread) = params::split_device(device);
                    let mut dev = crate::model::io::params::parse_devno(dev).expect("validated");
                    let member = self.work.guests[gi].member as u64;
                    let blocks = minidisk.0 / crate::core::units::PAGE;
                    // Its own volume (+), or the member's minidisk on a shared one.
                    let base = if spread {
                        dev += member as u16;
                        0
                    } else {
                        member * blocks
                    };
                    let vol = self.io.by_devno(dev).expect("validated");
                    WorkState::Cms(disk::CmsState {
                        phase: 0,
                        vol,
                        base,
                        blocks,
                        unit: disk::unit_blocks(self.io.def(vol).kind),
                        pos: 0,
                        file_done: false,
                        left: 0,
                        inflight: 0,
                    })
                }
                Workload::Net { .. } => match self.net.device_of(g) {
                    Some(dev) => {
                        self.net.activate(dev, cx.now());
                        WorkState::Net(net::NetState {
                            phase: 0,
                            step: 0,
                            left: 0,
                            t0: 0,
                            reply: 0,
                            dev,
                        })
                    }
                    // A guest whose scenario workload is not a network one has
                    // no device: a timeline start of one leaves it idle.
                    None => WorkState::None,
                },
                Workload::LinuxDb {
                    device, segment, ..
                } => {
                    let place = match (device, segment) {
                        (Some(d), _) => {
                            let dev = crate::model::io::params::parse_devno(d).expect("validated");
                            let vol = self.io.by_devno(dev).expect("validated");
                            linux_db::Place::Minidisk {
                                vol,
                                unit: disk::unit_blocks(self.io.def(vol).kind),
                            }
                        }
                        (None, Some(n)) => {
                            linux_db::Place::Xip(self.linux.xip_of(n).expect("validated"))
                        }
                        _ => unreachable!("validated"),
                    };
                    if self.linux.runs(g) {
                        WorkState::Db(linux_db::DbState {
                            place,
                            left: 0,
                            page: None,
                            io_due: false,
                            queries: 0,
                            heap_left: 0,
                            heap_page: None,
                        })
                    } else {
                        WorkState::None
                    }
                }
                Workload::VdiskIo { vdev, .. } => WorkState::Vdisk(vdisk::VdiskState {
                    phase: 0,
                    vdev: crate::model::vdisk::params::parse_vdev(vdev).expect("validated"),
                    pos: 0,
                    passes: 0,
                    cur: None,
                }),
                Workload::LinuxSeq {
                    device,
                    processes,
                    record,
                    request,
                    paths,
                    ..
                } => {
                    let (dev, spread) = params::split_device(device);
                    let dev = crate::model::io::params::parse_devno(dev).expect("validated");
                    let member = self.work.guests[gi].member;
                    let k = v - first;
                    // Processes in turn over the virtual CPUs.
                    let streams = (0..*processes)
                        .filter(|p| p % nvcpu == k)
                        .map(|p| {
                            let d = if spread {
                                dev + (member * processes + p) as u16
                            } else {
                                dev
                            };
                            disk::Stream {
                                vol: self.io.by_devno(d).expect("validated"),
                                paths: *paths as u8,
                                busy: 0,
                                next_path: 0,
                            }
                        })
                        .collect::<Vec<_>>();
                    let request = request.map_or(record.0.min(128 << 10), |r| r.0) as u32;
                    if streams.is_empty() {
                        WorkState::None
                    } else {
                        WorkState::Linux(disk::LinuxState {
                            streams,
                            rr: 0,
                            request,
                        })
                    }
                }
            };
            if !matches!(w, Workload::Idle)
                && matches!(self.cpu.vstate(v), VState::Idle | VState::Think)
            {
                self.cpu.vcpu_has_work(&mut self.st, v, cx.now());
            }
        }
    }

    /// Guest `g` stops its workload at `now`: idle (its network device, if
    /// it has one, deactivated).
    pub(crate) fn stop_workload(&mut self, g: u32, now: Ns) {
        if let Some(dev) = self.net.device_of(g) {
            self.net.deactivate(dev, now);
        }
        let gw = &mut self.work.guests[g as usize];
        gw.workload = Workload::Idle;
        gw.thrash = None;
        let (first, nvcpu) = (gw.first_vcpu, gw.nvcpu);
        for v in first..first + nvcpu {
            self.work.vcpus[v as usize].work = WorkState::None;
        }
    }

    /// Compute one burst of virtual CPU `v` of at most `budget` ns. Its CP and
    /// system time are what `cx` was charged (which starts with the dispatch).
    pub(crate) fn run_burst(&mut self, cx: &mut Cx, v: u32, budget: Ns) -> Burst {
        let mut b = Burst::new(v);
        self.run_workload(cx, v, budget, &mut b);
        b.cp = cx.charge.cp;
        b.sys = cx.charge.sys;
        b
    }

    /// The workload's part of a burst: `b.virt`, its outcome and its I/O.
    #[inline(always)]
    fn run_workload(&mut self, cx: &mut Cx, v: u32, budget: Ns, b: &mut Burst) {
        let vi = v as usize;
        let g = self.work.vcpus[vi].guest;
        if let Some(spec) = self.work.guests[g as usize].thrash {
            if self.linux.runs(g) {
                return self.linux_thrash(cx, v, &spec, budget, b);
            }
            let ahead = self.work.lookahead && spec.pattern != Pattern::Serial;
            match (ahead, spec.fill_pages > 0) {
                (true, false) => self.thrash_ahead::<false>(cx, v, &spec, budget, b),
                (true, true) => self.thrash_ahead::<true>(cx, v, &spec, budget, b),
                (false, false) => self.thrash::<false, false>(cx, v, &spec, budget, b),
                (false, true) => self.thrash::<false, true>(cx, v, &spec, budget, b),
            }
            if spec.cp_overhead > 0.0 {
                cx.charge.cp += (b.virt as f64 * spec.cp_overhead) as Ns;
            }
            return;
        }
        // Borrow the workload out of the guest for the burst (nothing in a burst
        // reads it), so no burst clones it.
        let w = std::mem::replace(&mut self.work.guests[g as usize].workload, Workload::Idle);
        match &w {
            Workload::Idle => b.outcome = Outcome::Idle,
            Workload::Cms { .. } => self.cms_burst(cx, v, g, &w, budget, b),
            Workload::LinuxDb { .. } => {
                if matches!(self.work.vcpus[vi].work, WorkState::Db(_)) {
                    self.db_burst(cx, v, g, &w, budget, b);
                } else {
                    b.outcome = Outcome::Idle;
                }
            }
            Workload::CmsFormat { .. } => self.format_burst(cx, v, &w, budget, b),
            Workload::VdiskIo { .. } => self.vdisk_burst(cx, v, g, &w, budget, b),
            Workload::Net { .. } => {
                if matches!(self.work.vcpus[vi].work, WorkState::Net(_)) {
                    self.net_burst(cx, v, &w, budget, b);
                } else {
                    b.outcome = Outcome::Idle;
                }
            }
            Workload::LinuxSeq { .. } => {
                if matches!(self.work.vcpus[vi].work, WorkState::None) {
                    b.outcome = Outcome::Idle;
                } else {
                    self.linux_burst(cx, v, &w, budget, b);
                }
            }
            Workload::Thrasher { .. } => unreachable!("a thrasher runs from its ThrashSpec"),
            Workload::Cpu {
                utilization,
                burst,
                cp_overhead,
            } => {
                let (utilization, burst, cp_overhead) = (*utilization, *burst, *cp_overhead);
                let WorkState::Cpu { left } = &mut self.work.vcpus[vi].work else {
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
                        (idle * (0.5 + self.work.vcpus[vi].rng.f64())) as Ns
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
                enabled_wait,
                cp_overhead,
                ..
            } => {
                let vw = &mut self.work.vcpus[vi];
                let WorkState::Io {
                    phase,
                    vol,
                    left,
                    spread,
                } = &mut vw.work
                else {
                    unreachable!()
                };
                match *phase {
                    0 => {
                        // The I/O's CPU; what a slice cannot hold runs in the
                        // next (a guest computing longer than a slice per I/O).
                        if *left == 0 {
                            *left = us_f(*cpu_per_io_us);
                        }
                        b.virt = (*left).min(budget);
                        *left -= b.virt;
                        if *cp_overhead > 0.0 {
                            cx.charge.cp += (b.virt as f64 * cp_overhead) as Ns;
                        }
                        if *left == 0 {
                            *phase = 1;
                        }
                        b.outcome = Outcome::Slice;
                    }
                    1 => {
                        *phase = 2;
                        let vol = if spread.is_empty() {
                            *vol
                        } else {
                            // the first volume whose cumulative share passes x
                            let x = vw.rng.f64();
                            let k = spread.partition_point(|e| e.1 <= x);
                            spread[k.min(spread.len() - 1)].0
                        };
                        cx.charge.cp += self.work.costs.virtual_io;
                        self.cpu.count_virtual_io(v);
                        let origin = super::io::Origin::Minidisk { vcpu: v };
                        b.io = Some(self.io.alloc(cx, vol, *pages_per_io, origin));
                        b.outcome = if *enabled_wait {
                            Outcome::IoEnabledWait
                        } else {
                            Outcome::IoWait
                        };
                    }
                    _ => {
                        *phase = 0;
                        b.outcome = if think.0 > 0 {
                            Outcome::Think(jittered(think.0, &mut self.work.vcpus[vi].rng))
                        } else {
                            Outcome::Slice
                        };
                    }
                }
            }
        }
        self.work.guests[g as usize].workload = w;
    }
}
