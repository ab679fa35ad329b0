//! The minidisk cache (MDC): CP's cache of minidisk data in central storage
//! (and, in Era A, expanded storage).
//!
//! **Owns** the cache entries (an ECKD track of 12 4 KB records, or one FBA
//! 4 KB block, keyed by real volume and track or block), kept in LRU order in
//! two parts (central storage, XSTOR); the part sizes the arbiter allows and
//! the frames and XSTOR blocks it holds (lent by `storage`); the SET MDC
//! settings (system, per volume, per user; NOMDCFS); each user's fair-share
//! state; the stagings in flight; the MDC counters (system-wide, per volume:
//! I/Os avoided; per guest).
//!
//! **Interface** (zero-time calls; no events of its own — a staging is an
//! `io` request with `Origin::Mdc { slot }`):
//! * [`Mdc::read`]: a guest's read of blocks of a minidisk: a hit (the CP
//!   time to copy them; no real I/O), a miss (stage the tracks or blocks with
//!   one real I/O, inserting them unless the user is over its fair share),
//!   or not eligible (a plain real I/O);
//! * [`Mdc::begin_stage`] / [`Mdc::stage_frames`] / [`Mdc::end_stage`]: a
//!   staging's insertion when its I/O completes (the wiring lends it the
//!   frames `storage` can spare; beyond them the cache reuses its own least
//!   recently used);
//! * the arbiter: [`Mdc::arbiter`] sets the target sizes from `storage`'s
//!   state at each high-frequency sample; [`Mdc::shrink`] gives frames back
//!   (the cache is the first victim when the available list runs low);
//!   [`Mdc::take_released`] hands the wiring frames to return;
//! * SET MDC: [`Mdc::set`]; for the monitor [`Mdc::sample`],
//!   [`Mdc::avoided`], [`Mdc::guest_avoided`]; [`Mdc::check`].
//!
//! Writes go through to DASD and update the cached copy (nothing to do
//! here); a read that hits costs `hit_us_per_page` per page (plus the move
//! from XSTOR for pages found there) and no I/O.

pub mod params;
#[cfg(test)]
mod tests;

use crate::core::units::{Ns, PAGE, SEC, US};
pub use params::{MdcAction, MdcParams};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

const NIL: u32 = u32::MAX;
/// The two parts of the cache.
const CS: usize = 0;
const XS: usize = 1;

/// A multiplicative hasher for the `u64` keys (deterministic, no allocation).
#[derive(Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (x ^ (x >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u64,
    frames: u32,
    part: u8,
    prev: u32,
    next: u32,
    live: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct List {
    /// Most recently used.
    head: u32,
    tail: u32,
}

/// A staging in flight: what its I/O brings in, for whom.
#[derive(Clone, Copy, Debug)]
struct Stage {
    vol: u32,
    first: u32,
    units: u32,
    unit_pages: u32,
    guest: u32,
    vcpu: u32,
    insert: bool,
    free: bool,
}

/// A staging: units `first..first + units` of `unit_pages` pages of volume
/// `vol`, for guest `guest`'s virtual CPU `vcpu`; inserted if `insert`.
#[derive(Clone, Copy, Debug)]
pub struct StageReq {
    pub vol: u32,
    pub first: u32,
    pub units: u32,
    pub unit_pages: u32,
    pub guest: u32,
    pub vcpu: u32,
    pub insert: bool,
}

/// What a guest's read finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Not eligible (cache off for the system, volume or user): a plain I/O.
    Bypass,
    /// Every block cached: CP copies them (`cp` ns); no real I/O.
    Hit { cp: Ns },
    /// Not all cached: stage units `first..first + units` with one real I/O,
    /// inserting them if `insert` (the user is within its fair share).
    Miss {
        first: u32,
        units: u32,
        insert: bool,
    },
}

/// MDC counters (cumulative).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MdcCounters {
    /// Eligible reads, reads satisfied from the cache (real I/Os avoided),
    /// and of those the ones that needed pages from XSTOR.
    pub reads: u64,
    pub hits: u64,
    pub xstor_hits: u64,
    /// Pages copied to guests from the cache.
    pub pages_hit: u64,
    /// Stagings, pages inserted, insertions the fair share refused.
    pub stages: u64,
    pub pages_inserted: u64,
    pub fs_denied: u64,
    /// Entries dropped (LRU) and moved to XSTOR.
    pub evicted: u64,
    pub demoted: u64,
    /// Writes to cached minidisks (the cached copy updated).
    pub writes: u64,
}

/// The cache for the monitor (SYTXSG, STORSG).
#[derive(Clone, Copy, Debug)]
pub struct MdcSample {
    pub on: bool,
    /// Frames held in central storage and the target the arbiter set, and
    /// its bounds (the maximum is the DPA when not set).
    pub cs_frames: u64,
    pub cs_target: u64,
    pub cs_min: u64,
    pub cs_max: u64,
    /// The same for XSTOR blocks.
    pub xs_blocks: u64,
    pub xs_target: u64,
    pub xs_min: u64,
    pub xs_max: u64,
    pub bias: f64,
    pub c: MdcCounters,
}

/// What the arbiter reads from `storage` at a high-frequency sample.
#[derive(Clone, Copy, Debug)]
pub struct ArbiterInput {
    pub dpa: u64,
    pub avail: u64,
    pub high: u64,
    /// Demand scans so far (cumulative; the arbiter takes the difference).
    pub scans: u64,
    pub xs_total: u64,
    pub xs_free: u64,
    pub xs_low: u64,
    /// Pages migrated from XSTOR so far (cumulative).
    pub migrations: u64,
}

/// A guest's fair-share window.
#[derive(Clone, Copy, Debug, Default)]
struct Fair {
    window: u64,
    inserted: u64,
}

pub struct Mdc {
    configured: bool,
    on: bool,
    vol_on: Vec<bool>,
    user_off: Vec<bool>,
    nomdcfs: Vec<bool>,
    map: HashMap<u64, u32, BuildHasherDefault<KeyHasher>>,
    ents: Vec<Entry>,
    free: Vec<u32>,
    lru: [List; 2],
    /// Frames (XSTOR blocks) holding entries, those lent by `storage` (held:
    /// at least `used`), and the arbiter's targets.
    used: [u64; 2],
    held: [u64; 2],
    target: [u64; 2],
    min: [u64; 2],
    max: [Option<u64>; 2],
    /// Frames and blocks freed for the wiring to give back to `storage`.
    released: [u64; 2],
    bias: f64,
    step: f64,
    fair: Vec<Fair>,
    fair_share: f64,
    fair_floor: u64,
    /// The fair-share window now, insertions and users inserting in it, and
    /// the average per inserting user in the window before.
    fs_window: u64,
    fs_total: u64,
    fs_users: u64,
    fs_avg: f64,
    hit_ns: f64,
    insert_ns: f64,
    xs_ns: f64,
    stages: Vec<Stage>,
    stage_free: Vec<u32>,
    c: MdcCounters,
    by_vol: Vec<u64>,
    by_guest: Vec<u64>,
    /// The arbiter's last view of the cumulative scans and migrations.
    last_scans: u64,
    last_migrations: u64,
}

impl Mdc {
    /// The cache for `vols` volumes (device numbers `devnos`) and `guests`
    /// guests (user IDs `users`); `p` is `None` without an `[mdc]` section
    /// (the cache is off).
    pub fn new(p: Option<&MdcParams>, devnos: &[u16], users: &[String]) -> Mdc {
        let d = MdcParams::default();
        let on = p.is_some_and(|p| p.system);
        let configured = p.is_some();
        let p = p.unwrap_or(&d);
        let off: Vec<u16> = p
            .volumes_off
            .iter()
            .filter_map(|s| crate::model::io::params::parse_devno(s).ok())
            .collect();
        let frames = |s: crate::core::units::Size| s.0 / PAGE;
        Mdc {
            configured,
            on,
            vol_on: devnos.iter().map(|d| !off.contains(d)).collect(),
            user_off: users.iter().map(|u| p.users_off.contains(u)).collect(),
            nomdcfs: users.iter().map(|u| p.nomdcfs.contains(u)).collect(),
            map: HashMap::default(),
            ents: Vec::new(),
            free: Vec::new(),
            lru: [List {
                head: NIL,
                tail: NIL,
            }; 2],
            used: [0; 2],
            held: [0; 2],
            target: [frames(p.storage_min), frames(p.xstor_min)],
            min: [frames(p.storage_min), frames(p.xstor_min)],
            max: [p.storage_max.map(frames), p.xstor_max.map(frames)],
            released: [0; 2],
            bias: p.bias,
            step: p.step,
            fair: vec![Fair::default(); users.len()],
            fair_share: p.fair_share,
            fair_floor: p.fair_share_floor as u64,
            fs_window: 0,
            fs_total: 0,
            fs_users: 0,
            fs_avg: 0.0,
            hit_ns: p.hit_us_per_page * US as f64,
            insert_ns: p.insert_us_per_page * US as f64,
            xs_ns: p.xstor_us_per_page * US as f64,
            stages: Vec::new(),
            stage_free: Vec::new(),
            c: MdcCounters::default(),
            by_vol: vec![0; devnos.len()],
            by_guest: vec![0; users.len()],
            last_scans: 0,
            last_migrations: 0,
        }
    }

    #[inline]
    fn key(vol: u32, unit: u32) -> u64 {
        ((vol as u64) << 32) | unit as u64
    }

    /// Has the scenario an `[mdc]` section (the arbiter runs even while SET
    /// MDC SYSTEM is off, to follow storage)?
    pub fn configured(&self) -> bool {
        self.configured
    }

    /// Is guest `g`'s I/O to volume `vol` eligible for the cache?
    #[inline]
    pub fn eligible(&self, vol: u32, g: u32) -> bool {
        self.on && self.vol_on[vol as usize] && !self.user_off[g as usize]
    }

    /// Guest `g` reads `n` blocks from block `block` of volume `vol`, whose
    /// cache unit is `unit_pages` blocks (12, a 3390 track; 1 for FBA), at
    /// time `now`.
    pub fn read(
        &mut self,
        now: Ns,
        vol: u32,
        g: u32,
        unit_pages: u32,
        block: u64,
        n: u32,
    ) -> Lookup {
        if !self.eligible(vol, g) || n == 0 {
            return Lookup::Bypass;
        }
        self.c.reads += 1;
        let first = (block / unit_pages as u64) as u32;
        let last = ((block + n as u64 - 1) / unit_pages as u64) as u32;
        let mut xs_pages = 0u64;
        let mut all = true;
        for u in first..=last {
            match self.map.get(&Self::key(vol, u)) {
                Some(&e) => {
                    if self.ents[e as usize].part as usize == XS {
                        xs_pages += self.ents[e as usize].frames as u64;
                    }
                }
                None => {
                    all = false;
                    break;
                }
            }
        }
        if all {
            for u in first..=last {
                let e = self.map[&Self::key(vol, u)];
                self.touch(e);
            }
            self.c.hits += 1;
            self.c.pages_hit += n as u64;
            if xs_pages > 0 {
                self.c.xstor_hits += 1;
            }
            self.by_vol[vol as usize] += 1;
            self.by_guest[g as usize] += 1;
            let cp = self.hit_ns * n as f64 + self.xs_ns * xs_pages as f64;
            return Lookup::Hit {
                cp: cp.round() as Ns,
            };
        }
        let units = last - first + 1;
        let insert = self.fair_ok(now, g, (units * unit_pages) as u64);
        if !insert {
            self.c.fs_denied += 1;
        }
        Lookup::Miss {
            first,
            units,
            insert,
        }
    }

    /// A guest's write to a cached minidisk: the copy in the cache is updated
    /// with the data written (write-through; nothing to move here).
    pub fn write(&mut self, vol: u32, g: u32) {
        if self.eligible(vol, g) {
            self.c.writes += 1;
        }
    }

    /// Fair share: may guest `g` insert `pages` now? Counts them if so.
    fn fair_ok(&mut self, now: Ns, g: u32, pages: u64) -> bool {
        let w = now / SEC;
        if w != self.fs_window {
            self.fs_avg = if self.fs_users > 0 && w == self.fs_window + 1 {
                self.fs_total as f64 / self.fs_users as f64
            } else {
                0.0
            };
            self.fs_window = w;
            self.fs_total = 0;
            self.fs_users = 0;
        }
        let f = &mut self.fair[g as usize];
        if f.window != w {
            f.window = w;
            f.inserted = 0;
        }
        let limit = (self.fair_share * self.fs_avg).max(self.fair_floor as f64);
        if !self.nomdcfs[g as usize] && f.inserted > 0 && (f.inserted + pages) as f64 > limit {
            return false;
        }
        if f.inserted == 0 {
            self.fs_users += 1;
        }
        f.inserted += pages;
        self.fs_total += pages;
        true
    }

    /// Staging `rq` begins (its I/O is about to be submitted): its slot.
    pub fn begin_stage(&mut self, rq: StageReq) -> u32 {
        self.c.stages += 1;
        let s = Stage {
            vol: rq.vol,
            first: rq.first,
            units: rq.units,
            unit_pages: rq.unit_pages,
            guest: rq.guest,
            vcpu: rq.vcpu,
            insert: rq.insert,
            free: false,
        };
        match self.stage_free.pop() {
            Some(i) => {
                self.stages[i as usize] = s;
                i
            }
            None => {
                self.stages.push(s);
                (self.stages.len() - 1) as u32
            }
        }
    }

    /// Frames staging `slot` would add to the central-storage part (units not
    /// cached yet), within the room its target leaves: what the wiring asks
    /// `storage` to lend.
    pub fn stage_frames(&self, slot: u32) -> u64 {
        let s = self.stages[slot as usize];
        if !s.insert || !self.on {
            return 0;
        }
        let new = (0..s.units)
            .filter(|&k| !self.map.contains_key(&Self::key(s.vol, s.first + k)))
            .count() as u64
            * s.unit_pages as u64;
        new.min(self.target[CS].saturating_sub(self.held[CS]))
    }

    /// Staging `slot`'s I/O completed: insert its units (with `lent` new
    /// frames from `storage`; beyond them the least recently used entries
    /// make room). Returns the virtual CPU waiting and the CP time of the
    /// insertion.
    pub fn end_stage(&mut self, slot: u32, lent: u64) -> (u32, Ns) {
        let s = self.stages[slot as usize];
        self.stages[slot as usize].free = true;
        self.stage_free.push(slot);
        self.held[CS] += lent;
        let mut pages = 0u64;
        if s.insert && self.on {
            for k in 0..s.units {
                let key = Self::key(s.vol, s.first + k);
                if let Some(&e) = self.map.get(&key) {
                    self.touch(e);
                    continue;
                }
                let need = s.unit_pages as u64;
                if !self.make_room(need) {
                    break;
                }
                self.add(key, s.unit_pages);
                self.used[CS] += need;
                pages += need;
            }
        }
        self.c.pages_inserted += pages;
        (s.vcpu, (self.insert_ns * pages as f64).round() as Ns)
    }

    /// The guest a staging is for.
    pub fn stage_guest(&self, slot: u32) -> u32 {
        self.stages[slot as usize].guest
    }

    /// Make `need` frames free among those the central-storage part holds,
    /// evicting its least recently used entries (to XSTOR while the XSTOR
    /// part has blocks to spare): false when it cannot.
    fn make_room(&mut self, need: u64) -> bool {
        while self.held[CS] - self.used[CS] < need {
            let e = self.lru[CS].tail;
            if e == NIL {
                return false;
            }
            self.evict(e);
        }
        true
    }

    /// Evict entry `e` of central storage: to XSTOR if it has a spare block
    /// for each page, else dropped. Its frames stay held (free).
    fn evict(&mut self, e: u32) {
        let frames = self.ents[e as usize].frames as u64;
        self.unlink(e);
        self.used[CS] -= frames;
        // Room in XSTOR: its own least recently used go first.
        if self.held[XS] >= frames {
            while self.held[XS] - self.used[XS] < frames {
                let x = self.lru[XS].tail;
                let xf = self.ents[x as usize].frames as u64;
                self.unlink(x);
                self.drop_entry(x);
                self.used[XS] -= xf;
            }
        }
        if self.held[XS] - self.used[XS] >= frames {
            self.ents[e as usize].part = XS as u8;
            self.push_head(e);
            self.used[XS] += frames;
            self.c.demoted += 1;
        } else {
            self.drop_entry(e);
        }
    }

    fn drop_entry(&mut self, e: u32) {
        let key = self.ents[e as usize].key;
        self.map.remove(&key);
        self.ents[e as usize].live = false;
        self.free.push(e);
        self.c.evicted += 1;
    }

    fn add(&mut self, key: u64, frames: u32) {
        let ent = Entry {
            key,
            frames,
            part: CS as u8,
            prev: NIL,
            next: NIL,
            live: true,
        };
        let e = match self.free.pop() {
            Some(i) => {
                self.ents[i as usize] = ent;
                i
            }
            None => {
                self.ents.push(ent);
                (self.ents.len() - 1) as u32
            }
        };
        self.map.insert(key, e);
        self.push_head(e);
    }

    /// Entry `e` was used: most recently used of its part (an entry found in
    /// XSTOR stays there: CP moves its pages to the guest from XSTOR).
    fn touch(&mut self, e: u32) {
        self.unlink(e);
        self.push_head(e);
    }

    fn unlink(&mut self, e: u32) {
        let Entry {
            prev, next, part, ..
        } = self.ents[e as usize];
        let l = &mut self.lru[part as usize];
        if prev == NIL {
            l.head = next;
        } else {
            self.ents[prev as usize].next = next;
        }
        if next == NIL {
            l.tail = prev;
        } else {
            self.ents[next as usize].prev = prev;
        }
    }

    fn push_head(&mut self, e: u32) {
        let part = self.ents[e as usize].part as usize;
        let old = self.lru[part].head;
        self.ents[e as usize].prev = NIL;
        self.ents[e as usize].next = old;
        if old == NIL {
            self.lru[part].tail = e;
        } else {
            self.ents[old as usize].prev = e;
        }
        self.lru[part].head = e;
    }

    /// Shrink part `part` to at most `to` frames held (least recently used
    /// entries out); the frames freed are released.
    fn shrink_to(&mut self, part: usize, to: u64) {
        while self.used[part] > to {
            let e = self.lru[part].tail;
            if e == NIL {
                break;
            }
            let frames = self.ents[e as usize].frames as u64;
            self.unlink(e);
            self.drop_entry(e);
            self.used[part] -= frames;
        }
        if self.held[part] > to.max(self.used[part]) {
            let spare = self.held[part] - to.max(self.used[part]);
            self.held[part] -= spare;
            self.released[part] += spare;
        }
    }

    /// Give back up to `frames` frames of central storage now (the cache is
    /// the first victim when the available list runs low), not below its
    /// minimum. Returns what was freed (also in [`Mdc::take_released`]).
    pub fn shrink(&mut self, frames: u64) -> u64 {
        let floor = self.min[CS];
        let to = self.held[CS].saturating_sub(frames).max(floor);
        let before = self.released[CS];
        self.target[CS] = self.target[CS].min(to);
        self.shrink_to(CS, to);
        self.released[CS] - before
    }

    /// The arbiter, at each high-frequency sample: shrink the parts after a
    /// demand scan (or XSTOR migration), grow them while storage has frames
    /// to spare, within SET MDC's bounds and with its bias.
    pub fn arbiter(&mut self, a: &ArbiterInput) {
        let scans = a.scans.saturating_sub(self.last_scans);
        let migrations = a.migrations.saturating_sub(self.last_migrations);
        self.last_scans = a.scans;
        self.last_migrations = a.migrations;
        if !self.on {
            return;
        }
        let max_cs = self.max[CS].unwrap_or(a.dpa).min(a.dpa);
        let t = self.target[CS] as f64;
        let next = if scans > 0 {
            t * (1.0 - self.step / self.bias)
        } else if a.avail > a.high {
            let room = (a.avail - a.high) as f64;
            t + room.min((t * self.step * self.bias).max(256.0))
        } else {
            t
        };
        self.target[CS] = (next as u64).clamp(self.min[CS], max_cs.max(self.min[CS]));
        let to = self.target[CS];
        self.shrink_to(CS, to);
        let max_xs = self.max[XS].unwrap_or(a.xs_total).min(a.xs_total);
        let t = self.target[XS] as f64;
        let next = if migrations > 0 || a.xs_free <= a.xs_low {
            t * (1.0 - self.step / self.bias)
        } else if a.xs_free > a.xs_low {
            let room = (a.xs_free - a.xs_low) as f64;
            t + room.min((t * self.step * self.bias).max(256.0))
        } else {
            t
        };
        self.target[XS] = (next as u64).clamp(self.min[XS], max_xs.max(self.min[XS]));
        let to = self.target[XS];
        self.shrink_to(XS, to);
    }

    /// Frames (central storage) and XSTOR blocks to give back to `storage`
    /// now: those freed, and central-storage frames held but empty.
    pub fn take_released(&mut self) -> (u64, u64) {
        let spare = self.held[CS] - self.used[CS];
        self.held[CS] -= spare;
        let r = (self.released[CS] + spare, self.released[XS]);
        self.released = [0; 2];
        r
    }

    /// Frames and XSTOR blocks held now.
    pub fn held(&self) -> (u64, u64) {
        (self.held[CS], self.held[XS])
    }

    /// XSTOR blocks the XSTOR part wants lent now (up to its target).
    pub fn xstor_room(&self) -> u64 {
        if !self.on {
            return 0;
        }
        self.target[XS].saturating_sub(self.held[XS])
    }

    /// `storage` lent `n` XSTOR blocks.
    pub fn lend_xstor(&mut self, n: u64) {
        self.held[XS] += n;
    }

    /// SET MDC: the system, a volume or a user's minidisks on or off.
    pub fn set(&mut self, vol: Option<u32>, g: Option<u32>, on: bool) {
        match (vol, g) {
            (Some(v), _) => self.vol_on[v as usize] = on,
            (None, Some(g)) => self.user_off[g as usize] = !on,
            (None, None) => {
                self.on = on;
                if !on {
                    self.shrink_to(CS, 0);
                    self.shrink_to(XS, 0);
                    self.target = self.min;
                }
            }
        }
    }

    /// SET MDCACHE STORAGE (`xstor` false) or XSTORE min max: the part's
    /// bounds in frames (XSTOR blocks), `max` `None` for no bound (the
    /// whole DPA, all of XSTOR), as the `[mdc]` keys set them. The target
    /// moves into the new bounds (a part above its new maximum shrinks now:
    /// the wiring gives the frames back); below its new minimum it grows
    /// as storage lends it frames.
    pub fn set_bounds(&mut self, xstor: bool, min: u64, max: Option<u64>) {
        let part = if xstor { XS } else { CS };
        self.min[part] = min;
        self.max[part] = max;
        self.target[part] = self.target[part]
            .max(min)
            .min(max.unwrap_or(u64::MAX).max(min));
        let to = self.target[part];
        self.shrink_to(part, to);
    }

    /// SET MDCACHE STORAGE BIAS: the arbiter's bias (the `[mdc] bias` key).
    pub fn set_bias(&mut self, bias: f64) {
        self.bias = bias;
    }

    pub fn sample(&self, dpa: u64, xs_total: u64) -> MdcSample {
        MdcSample {
            on: self.on,
            cs_frames: self.held[CS],
            cs_target: self.target[CS],
            cs_min: self.min[CS],
            cs_max: self.max[CS].unwrap_or(dpa).min(dpa),
            xs_blocks: self.held[XS],
            xs_target: self.target[XS],
            xs_min: self.min[XS],
            xs_max: self.max[XS].unwrap_or(xs_total).min(xs_total),
            bias: self.bias,
            c: self.c,
        }
    }

    /// Real I/Os avoided on volume `vol` (cumulative).
    pub fn avoided(&self, vol: u32) -> u64 {
        self.by_vol.get(vol as usize).copied().unwrap_or(0)
    }

    /// Guest `g`'s reads satisfied from the cache (cumulative).
    pub fn guest_avoided(&self, g: u32) -> u64 {
        self.by_guest.get(g as usize).copied().unwrap_or(0)
    }

    /// Consistency: the map, the lists and the frame counts agree.
    #[cfg(any(test, debug_assertions))]
    pub fn check(&self) {
        let mut used = [0u64; 2];
        let mut n = 0usize;
        for part in [CS, XS] {
            let mut e = self.lru[part].head;
            let mut prev = NIL;
            while e != NIL {
                let en = &self.ents[e as usize];
                assert!(en.live, "a dead entry in the LRU list");
                assert_eq!(en.part as usize, part);
                assert_eq!(en.prev, prev, "LRU links");
                assert_eq!(self.map.get(&en.key), Some(&e), "entry not in the map");
                used[part] += en.frames as u64;
                n += 1;
                prev = e;
                e = en.next;
            }
            assert_eq!(self.lru[part].tail, prev);
        }
        assert_eq!(n, self.map.len(), "map and lists hold the same entries");
        assert_eq!(used, self.used, "frames holding entries");
        assert!(self.used[CS] <= self.held[CS] && self.used[XS] <= self.held[XS]);
    }
}
