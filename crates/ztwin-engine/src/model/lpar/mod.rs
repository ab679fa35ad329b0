//! The CEC: physical processors by type, the partitions PR/SM runs on them,
//! and how much of a physical processor each logical one gets.
//!
//! **Owns** the physical processor pools (one per type: CP, IFL, zIIP, ICF;
//! dedicated processors taken out of the shared pool), the partitions (the
//! z/VM one first, whose logical processors are the `cpu` component's; the
//! others as load profiles: engines demanded over time), capacity groups, and
//! per logical processor its demand and what it got.
//!
//! **The model** (zvm-model.md topic 9): every dispatch interval (default
//! 12.5 ms) PR/SM divides each shared pool among the partitions that demand
//! it. A partition's share of the pool is its weight over the sum of the
//! weights of the pool's partitions; what one does not use the others get, in
//! proportion to their weights, unless capped: initial capping holds a
//! partition to its weight's share, an absolute cap to a number of engines, a
//! capacity group its members together to the group's limit. A logical
//! processor never gets more than one physical processor. A partition's
//! allocation is spread over its logical processors evenly (horizontal) or, with
//! HiperDispatch's vertical polarisation, filling the first ones whole before
//! the next. PR/SM's own time (LPAR management time) is charged per shared
//! logical processor dispatched in the interval and comes off the pool first.
//! Dedicated logical processors get their physical processor whenever they
//! demand it.
//!
//! **The z/VM partition's side**: each z/VM logical processor runs, in an
//! interval, at the fraction of a physical processor PR/SM would give it if
//! it asked for all of the interval (computed at the interval's start from
//! the others' demands, weights and caps): a burst of CPU time `L` takes
//! `L / fraction` of wall time ([`Cec::stretch`]). Its demand in the
//! interval is the wall time it ran bursts, its dispatch time the CPU time
//! they ran; the difference is steal. z/VM's own CPU timers (its busy in
//! SYTPRP) count only the CPU time, so a constrained CEC shows in z/VM's
//! figures as time neither busy nor waiting (the LPAR report's %Susp). A
//! burst is accounted to intervals pro rata to its wall time; a burst that
//! began at one interval's fraction and runs into a lower one's can overrun
//! that interval's share a little (the pool's busy is clipped at its
//! capacity). Bursts are at most a minor time slice (5 ms).
//!
//! **Events**: [`Ev::Tick`] every dispatch interval.
//!
//! **Counters** (cumulative, owner-written): per logical processor of every
//! partition its demand, dispatch time and management time; per pool its
//! capacity, busy (dispatch plus management) and management time;
//! [`Cec::partitions`], [`Cec::pools`].

pub mod params;
#[cfg(test)]
mod tests;

use crate::core::units::{Ns, SEC};
use params::{PType, Params, ZvmPart};

/// Events of the CEC.
#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// A dispatch interval ended: PR/SM divides the next one.
    Tick,
}

/// A logical processor's cumulative times (ns).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LcpuCounters {
    /// Time it asked for (wall time with work to run).
    pub demand_ns: u64,
    /// Time it ran on a physical processor.
    pub dispatch_ns: u64,
    /// PR/SM's management time on its behalf.
    pub mgmt_ns: u64,
}

impl LcpuCounters {
    /// Demand not delivered: the time it waited for a physical processor.
    pub fn steal_ns(&self) -> u64 {
        self.demand_ns.saturating_sub(self.dispatch_ns)
    }
}

/// A pool's cumulative times (ns).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PoolCounters {
    /// Physical processors times elapsed time.
    pub capacity_ns: u64,
    /// Dispatch plus management time on the pool's processors.
    pub busy_ns: u64,
    /// Management time (PR/SM's own; the "*PHYSICAL*" partition of reports).
    pub mgmt_ns: u64,
}

/// A pool as the monitor sees it.
#[derive(Clone, Copy, Debug)]
pub struct PoolSample {
    pub ptype: PType,
    pub physical: u16,
    pub dedicated: u16,
    pub c: PoolCounters,
}

/// A partition as the monitor sees it.
#[derive(Clone, Copy, Debug)]
pub struct PartSample<'a> {
    /// Partition number (1 = the z/VM partition).
    pub number: u16,
    pub name: &'a str,
    pub ptype: PType,
    pub weight: u16,
    pub dedicated: bool,
    pub capped: bool,
    pub absolute_cap: Option<f64>,
    pub vertical: bool,
    pub lcpus: &'a [LcpuCounters],
}

struct Part {
    name: String,
    /// Partition number (from 1; a partition with processors of two types
    /// has two entries with the same name and number).
    number: u16,
    ptype: PType,
    nlog: usize,
    weight: f64,
    weight_u: u16,
    dedicated: bool,
    capped: bool,
    abs_cap: Option<f64>,
    group: Option<usize>,
    vertical: bool,
    /// Engines demanded now, and the changes to come: (time, engines).
    busy: f64,
    profile: Vec<(Ns, f64)>,
    next: usize,
    /// First of its logical processors in the per-LCPU arrays.
    base: usize,
}

pub struct Cec {
    interval: Ns,
    mgmt: f64,
    phys: [u16; 4],
    ded: [u16; 4],
    parts: Vec<Part>,
    group_limit: Vec<f64>,
    /// Wall time and CPU time of the z/VM logical processors' bursts not
    /// yet accounted to an interval; the CPU time of the interval (scratch).
    occ: Vec<Ns>,
    cpu_occ: Vec<Ns>,
    ran: Vec<f64>,
    wall: Vec<f64>,
    /// Delivered fraction of each z/VM logical processor this interval.
    speed: Vec<f64>,
    /// Per logical processor (all partitions): demand and allocation of the
    /// interval (scratch), and the cumulative counters.
    demand: Vec<f64>,
    alloc: Vec<f64>,
    mgmt_of: Vec<f64>,
    lc: Vec<LcpuCounters>,
    pools: [PoolCounters; 4],
    /// Per partition (scratch): limit, allocation, weight.
    lim: Vec<f64>,
    got: Vec<f64>,
    w: Vec<f64>,
    idx: Vec<usize>,
    /// Per partition entry: the fraction of its logical processors' demand
    /// PR/SM delivered in the last interval divided (1 when it demanded
    /// nothing; the z/VM entry: its logical processors' mean fraction).
    avail: Vec<f64>,
    ticks: u64,
}

impl Cec {
    /// The CEC of `p`, whose first partition is `zvm` (the twin's).
    pub fn new(p: &Params, zvm: &ZvmPart) -> Cec {
        let mut parts = Vec::new();
        let group = |g: &Option<String>| {
            g.as_ref()
                .and_then(|g| p.groups.iter().position(|x| &x.name == g))
        };
        let mut base = 0;
        parts.push(Part {
            name: zvm.name.clone(),
            number: 1,
            ptype: zvm.ptype,
            nlog: zvm.logical as usize,
            weight: p.weight as f64,
            weight_u: p.weight,
            dedicated: p.dedicated,
            capped: p.capped,
            abs_cap: p.absolute_cap,
            group: group(&p.group),
            vertical: p.vertical,
            busy: 0.0,
            profile: Vec::new(),
            next: 0,
            base,
        });
        base += zvm.logical as usize;
        for q in &p.partitions {
            let number = match parts.iter().find(|x: &&Part| x.name == q.name) {
                Some(x) => x.number,
                None => parts.iter().map(|x| x.number).max().unwrap_or(0) + 1,
            };
            parts.push(Part {
                name: q.name.clone(),
                number,
                ptype: q.ptype,
                nlog: q.logical as usize,
                weight: q.weight as f64,
                weight_u: q.weight,
                dedicated: q.dedicated,
                capped: q.capped,
                abs_cap: q.absolute_cap,
                group: group(&q.group),
                vertical: q.vertical,
                busy: q.busy,
                profile: q
                    .profile
                    .iter()
                    .map(|&(t, e)| ((t * SEC as f64) as Ns, e))
                    .collect(),
                next: 0,
                base,
            });
            base += q.logical as usize;
        }
        let mut ded = [0u16; 4];
        for q in &parts {
            if q.dedicated {
                ded[q.ptype.index()] += q.nlog as u16;
            }
        }
        let phys = PType::ALL.map(|t| p.physical.of(t));
        let n = parts.len();
        let mut cec = Cec {
            interval: p.dispatch_interval.0,
            mgmt: p.mgmt_us * 1000.0,
            phys,
            ded,
            group_limit: p.groups.iter().map(|g| g.limit).collect(),
            occ: vec![0; zvm.logical as usize],
            cpu_occ: vec![0; zvm.logical as usize],
            ran: vec![0.0; zvm.logical as usize],
            wall: vec![0.0; zvm.logical as usize],
            speed: vec![1.0; zvm.logical as usize],
            demand: vec![0.0; base],
            alloc: vec![0.0; base],
            mgmt_of: vec![0.0; base],
            lc: vec![LcpuCounters::default(); base],
            pools: [PoolCounters::default(); 4],
            lim: vec![0.0; n],
            got: vec![0.0; n],
            w: vec![0.0; n],
            idx: Vec::with_capacity(n),
            avail: vec![1.0; n],
            parts,
            ticks: 0,
        };
        // The others' demands and z/VM's fractions for the first interval.
        let d = cec.interval as f64;
        cec.demand_next(0);
        let nz = cec.parts[0].nlog;
        cec.demand[..nz].fill(d);
        let zt = cec.parts[0].ptype;
        cec.divide(zt, d);
        for c in 0..nz {
            cec.speed[c] = (cec.alloc[c] / d).clamp(0.0, 1.0);
        }
        cec
    }

    /// The dispatch interval.
    pub fn interval(&self) -> Ns {
        self.interval
    }

    /// A burst of `len` ns of CPU time starts on the z/VM partition's
    /// logical processor `c`: the wall time it takes at the fraction of a
    /// physical processor PR/SM gives that logical processor in this
    /// interval (its demand counts the wall time, its dispatch the CPU time).
    #[inline]
    pub fn stretch(&mut self, c: u16, len: Ns) -> Ns {
        let c = c as usize;
        let s = self.speed[c];
        let wall = if s >= 1.0 {
            len
        } else {
            // A logical processor that gets nothing (a share of 0) still
            // moves, a millionth of the time.
            (len as f64 / s.max(1e-6)).ceil() as Ns
        };
        self.occ[c] += wall;
        self.cpu_occ[c] += len;
        wall
    }

    /// End of a dispatch interval at `now`: PR/SM's division of the interval
    /// that ended (the others' demands as they were, z/VM's as its bursts
    /// ran), the counters, then the others' demands for the next interval and
    /// the fraction of a physical processor each z/VM logical processor will
    /// get in it (what it would get asking for all of it: PR/SM's share does
    /// not wait for z/VM's demand to show).
    pub fn tick(&mut self, now: Ns) {
        let d = self.interval as f64;
        self.ticks += 1;
        // z/VM's demand (wall time with a burst) and CPU time, whole bursts
        // pro rata across the interval's end.
        let nz = self.parts[0].nlog;
        for c in 0..nz {
            let occ = self.occ[c];
            let took = occ.min(self.interval);
            let cpu = if took == occ {
                self.cpu_occ[c]
            } else {
                (self.cpu_occ[c] as u128 * took as u128 / occ as u128) as Ns
            };
            self.occ[c] -= took;
            self.cpu_occ[c] -= cpu;
            // PR/SM is asked for the CPU time z/VM could use at its fraction;
            // the wall time beyond it is steal.
            self.wall[c] = took as f64;
            self.demand[c] = cpu as f64;
            self.ran[c] = cpu as f64;
        }
        for t in PType::ALL {
            if !self.parts.iter().any(|p| p.ptype == t) {
                continue;
            }
            let mgmt = self.divide(t, d);
            // Counters: the others get what PR/SM gave them; z/VM's logical
            // processors ran what their bursts ran (at most what PR/SM gave:
            // the fraction they ran at was their share asking for all).
            let mut busy = mgmt;
            for (k, p) in self.parts.iter().enumerate() {
                if p.ptype != t {
                    continue;
                }
                if k > 0 {
                    let r = p.base..p.base + p.nlog;
                    let dem: f64 = self.demand[r.clone()].iter().sum();
                    let got: f64 = self.alloc[r].iter().sum();
                    self.avail[k] = if dem > 0.0 {
                        (got / dem).clamp(0.0, 1.0)
                    } else {
                        1.0
                    };
                }
                for i in p.base..p.base + p.nlog {
                    let (want, got) = if k == 0 {
                        (self.wall[i], self.ran[i])
                    } else {
                        (self.demand[i], self.alloc[i])
                    };
                    let got = got.min(want);
                    let c = &mut self.lc[i];
                    c.demand_ns += want as u64;
                    c.dispatch_ns += got as u64;
                    c.mgmt_ns += self.mgmt_of[i] as u64;
                    busy += got;
                }
            }
            let ti = t.index();
            let pool = &mut self.pools[ti];
            pool.capacity_ns += self.phys[ti] as u64 * self.interval;
            // Whole ns, never above capacity (a burst that began at one
            // interval's fraction and ran into the next can overrun it).
            pool.busy_ns += busy.min(self.phys[ti] as f64 * d) as u64;
            pool.mgmt_ns += mgmt as u64;
        }
        self.demand_next(now);
        // z/VM's fractions for the next interval: its share asking for all.
        let zt = self.parts[0].ptype;
        self.demand[..nz].fill(d);
        self.divide(zt, d);
        for c in 0..nz {
            self.speed[c] = (self.alloc[c] / d).clamp(0.0, 1.0);
        }
        self.avail[0] = self.speed.iter().sum::<f64>() / nz.max(1) as f64;
    }

    /// The other partitions' demands from `now` on (their profiles).
    fn demand_next(&mut self, now: Ns) {
        let d = self.interval as f64;
        for p in self.parts.iter_mut().skip(1) {
            while p.next < p.profile.len() && p.profile[p.next].0 <= now {
                p.busy = p.profile[p.next].1;
                p.next += 1;
            }
            spread(
                p.busy * d,
                p.vertical,
                d,
                &mut self.demand[p.base..p.base + p.nlog],
            );
        }
    }

    /// Divide the pool of type `t` for one interval of `d` ns among the
    /// demands in `demand`: `alloc` and `mgmt_of` of its partitions' logical
    /// processors; the management time in all.
    fn divide(&mut self, t: PType, d: f64) -> f64 {
        let ti = t.index();
        let shared = (self.phys[ti] - self.ded[ti]) as f64 * d;
        // Dedicated: what they demand; management time of the shared ones.
        let mut mgmt = 0.0;
        self.idx.clear();
        for (k, p) in self.parts.iter().enumerate() {
            if p.ptype != t {
                continue;
            }
            let r = p.base..p.base + p.nlog;
            if p.dedicated {
                for i in r {
                    self.alloc[i] = self.demand[i];
                    self.mgmt_of[i] = 0.0;
                }
            } else {
                for i in r {
                    self.mgmt_of[i] = if self.demand[i] > 0.0 { self.mgmt } else { 0.0 };
                    mgmt += self.mgmt_of[i];
                }
                self.idx.push(k);
            }
        }
        if mgmt > shared {
            let f = shared / mgmt;
            for &k in &self.idx {
                let p = &self.parts[k];
                for m in &mut self.mgmt_of[p.base..p.base + p.nlog] {
                    *m *= f;
                }
            }
            mgmt = shared;
        }
        let cap = (shared - mgmt).max(0.0);
        // Limits of the shared partitions.
        let wsum: f64 = self.idx.iter().map(|&k| self.parts[k].weight).sum();
        for (j, &k) in self.idx.iter().enumerate() {
            let p = &self.parts[k];
            let dem: f64 = self.demand[p.base..p.base + p.nlog].iter().sum();
            let mut l = dem.min(p.nlog as f64 * d);
            if let Some(c) = p.abs_cap {
                l = l.min(c * d);
            }
            if p.capped {
                l = l.min(shared * p.weight / wsum);
            }
            self.lim[j] = l;
            self.w[j] = p.weight;
        }
        let n = self.idx.len();
        waterfill(cap, &self.w[..n], &self.lim[..n], &mut self.got[..n]);
        // Capacity groups over their limit: the group's limit divided among
        // its members, as their new limits; then the pool again.
        let mut again = false;
        for (g, &limit) in self.group_limit.iter().enumerate() {
            let members = |j: usize| self.parts[self.idx[j]].group == Some(g);
            let sum: f64 = (0..n).filter(|&j| members(j)).map(|j| self.got[j]).sum();
            if sum > limit * d * (1.0 + 1e-12) {
                let js: Vec<usize> = (0..n).filter(|&j| members(j)).collect();
                let w: Vec<f64> = js.iter().map(|&j| self.w[j]).collect();
                let l: Vec<f64> = js.iter().map(|&j| self.lim[j]).collect();
                let mut o = vec![0.0; js.len()];
                waterfill(limit * d, &w, &l, &mut o);
                for (x, &j) in js.iter().enumerate() {
                    self.lim[j] = o[x];
                }
                again = true;
            }
        }
        if again {
            waterfill(cap, &self.w[..n], &self.lim[..n], &mut self.got[..n]);
        }
        // Each partition's allocation over its logical processors.
        for (j, &k) in self.idx.iter().enumerate() {
            let p = &self.parts[k];
            let r = p.base..p.base + p.nlog;
            give(
                self.got[j],
                p.vertical,
                &self.demand[r.clone()],
                &mut self.alloc[r],
            );
        }
        mgmt
    }

    /// The pools of the types some partition uses.
    pub fn pools(&self) -> impl Iterator<Item = PoolSample> + '_ {
        PType::ALL
            .into_iter()
            .filter(|&t| self.parts.iter().any(|p| p.ptype == t) || self.phys[t.index()] > 0)
            .map(|t| PoolSample {
                ptype: t,
                physical: self.phys[t.index()],
                dedicated: self.ded[t.index()],
                c: self.pools[t.index()],
            })
    }

    /// Every partition entry, the z/VM one first (number 1); a partition
    /// with processors of two types has an entry per type, with the same
    /// name and number, one after the other in number order only if the
    /// scenario lists them so (group by [`PartSample::number`]).
    pub fn partitions(&self) -> impl ExactSizeIterator<Item = PartSample<'_>> + '_ {
        self.parts.iter().map(|p| PartSample {
            number: p.number,
            name: &p.name,
            ptype: p.ptype,
            weight: p.weight_u,
            dedicated: p.dedicated,
            capped: p.capped,
            absolute_cap: p.abs_cap,
            vertical: p.vertical,
            lcpus: &self.lc[p.base..p.base + p.nlog],
        })
    }

    /// Partitions (distinct names: a partition with two processor types
    /// counts once).
    pub fn partition_count(&self) -> usize {
        self.parts.iter().map(|p| p.number).max().unwrap_or(0) as usize
    }

    /// The entry of partition `name` whose logical processors run its
    /// operating system (a CP or IFL entry before a zIIP or ICF one): for a
    /// peer of a network connection. `None`: no such partition.
    pub fn find(&self, name: &str) -> Option<usize> {
        let mut hit = None;
        for (k, p) in self.parts.iter().enumerate() {
            if p.name.eq_ignore_ascii_case(name) {
                if matches!(p.ptype, PType::CP | PType::IFL) {
                    return Some(k);
                }
                hit.get_or_insert(k);
            }
        }
        hit
    }

    /// Partition entry `k`'s availability now: the fraction of a logical
    /// processor's ready time PR/SM gives it (the fraction of its demand
    /// delivered in the last interval divided; the z/VM entry: its logical
    /// processors' mean delivered fraction). 1 = a logical processor that
    /// has work runs at once.
    pub fn availability(&self, k: usize) -> f64 {
        self.avail[k]
    }

    /// Logical processors of partition entry `k`.
    pub fn logical(&self, k: usize) -> usize {
        self.parts[k].nlog
    }

    /// The z/VM logical processor `c`'s delivered fraction this interval.
    pub fn speed(&self, c: u16) -> f64 {
        self.speed[c as usize]
    }

    /// Dispatch intervals divided so far.
    pub fn ticks(&self) -> u64 {
        self.ticks
    }

    /// Invariants (tests and debug builds): no pool busier than its
    /// capacity, no logical processor given more than it asked for or more
    /// than elapsed time.
    #[cfg(any(test, debug_assertions))]
    pub fn check(&self) {
        for (t, p) in self.pools.iter().enumerate() {
            assert!(p.busy_ns <= p.capacity_ns, "pool {t}: {p:?}");
        }
        let elapsed = self.ticks * self.interval;
        for (i, c) in self.lc.iter().enumerate() {
            assert!(c.dispatch_ns <= c.demand_ns + self.ticks, "lcpu {i}: {c:?}");
            assert!(c.dispatch_ns <= elapsed, "lcpu {i}: {c:?} in {elapsed}");
        }
    }
}

/// `engines_ns` of demand over logical processors `out` (each at most `d`):
/// evenly, or (vertical) filling the first ones whole.
fn spread(engines_ns: f64, vertical: bool, d: f64, out: &mut [f64]) {
    let n = out.len() as f64;
    if vertical {
        let mut left = engines_ns;
        for x in out.iter_mut() {
            *x = left.min(d);
            left -= *x;
        }
    } else {
        let each = (engines_ns / n).min(d);
        out.fill(each);
    }
}

/// A partition's `total` over its logical processors of demands `dem`:
/// evenly up to each one's demand (what one does not need the others get),
/// or (vertical) to the first ones first.
fn give(total: f64, vertical: bool, dem: &[f64], out: &mut [f64]) {
    if vertical {
        let mut left = total;
        for (x, &q) in out.iter_mut().zip(dem) {
            *x = left.min(q);
            left -= *x;
        }
        return;
    }
    // Equal weights: water-fill without a weights array.
    out.fill(0.0);
    let mut left = total;
    loop {
        let open = out.iter().zip(dem).filter(|(x, q)| **x < **q).count();
        if open == 0 || left <= 1e-9 {
            return;
        }
        let each = left / open as f64;
        let mut filled = false;
        for (x, &q) in out.iter_mut().zip(dem) {
            if *x < q && *x + each >= q {
                left -= q - *x;
                *x = q;
                filled = true;
            }
        }
        if !filled {
            for (x, &q) in out.iter_mut().zip(dem) {
                if *x < q {
                    *x += each;
                }
            }
            return;
        }
    }
}

/// Divide `cap` among claimants of weights `w` and limits `lim`: in
/// proportion to the weights, none above its limit, what a limited one
/// leaves going to the others in proportion to theirs (weighted max-min
/// fairness). `out` gets the shares; their sum is at most `cap`.
pub(crate) fn waterfill(cap: f64, w: &[f64], lim: &[f64], out: &mut [f64]) {
    out.fill(0.0);
    let mut left = cap;
    loop {
        let wsum: f64 = w
            .iter()
            .zip(lim)
            .zip(out.iter())
            .filter(|((_, l), o)| **o < **l)
            .map(|((w, _), _)| *w)
            .sum();
        if wsum <= 0.0 || left <= 1e-9 {
            return;
        }
        let level = left / wsum;
        let mut filled = false;
        for i in 0..out.len() {
            if out[i] < lim[i] && out[i] + level * w[i] >= lim[i] {
                left -= lim[i] - out[i];
                out[i] = lim[i];
                filled = true;
            }
        }
        if !filled {
            for i in 0..out.len() {
                if out[i] < lim[i] {
                    out[i] += level * w[i];
                }
            }
            return;
        }
    }
}
