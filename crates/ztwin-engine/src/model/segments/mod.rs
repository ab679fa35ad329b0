//! The saved-segments component: DCSS and NSS system data files, their
//! classes, their users, and the real frames their pages occupy.
//!
//! **Owns** the system data files (SDFs): each a [`Def`] (DEFSEG's page
//! ranges with descriptor codes, LOADNSHR, RSTD) in a class — S (skeleton,
//! defined, not yet saved), A (active) or R (active, restricted), P (pending
//! purge: replaced by a re-save or purged while in use, kept for its current
//! users until the last one leaves) —, its spool file (saved pages plus a
//! descriptor page), its users, the frames of its shared copy and of each
//! user's exclusive (or nonshared) copy; CP's one-at-a-time DEFSEG/SAVESEG
//! queue; the operations in flight (a save's spool writes, a load's spool
//! reads); the counters.
//!
//! **Rules modelled**: shared pages (S codes) are one real frame for all
//! users; exclusive pages (E codes) are a private copy per user; a LOADNSHR
//! load makes the whole segment the user's private copy. SW/EW/SR/ER pages
//! are written to spool by SAVESEG and read back when a copy is loaded; SN,
//! EN and SC pages are never on spool (they start empty, and an SN
//! segment's data is lost when its last user leaves). A load reads only the
//! saved pages not already resident: a second user of a shared copy loads at
//! once. Segment frames are not on any user's frame list (the demand scan
//! passes them over), so they never go to paging DASD.
//!
//! **Interface** (zero-time calls; timed work goes through `spool`):
//! [`Segments::defseg`], [`Segments::saveseg`] (starts a save: the wiring
//! hands its pages to spool), [`Segments::purge`], [`Segments::load`],
//! [`Segments::detach`]; the wiring reports a transfer's progress with
//! [`Segments::moved`] and frames with [`Segments::add_frame`]; for the
//! monitor and QUERY NSS: [`Segments::sdfs`]; [`Segments::check`].
//!
//! **Parameters**: [`params`] (`[[segment]]` saved before the run,
//! `[segments]` CP costs).

pub mod defseg;
pub mod params;
#[cfg(test)]
mod tests;

use crate::core::units::Ns;
pub use defseg::{Code, Def, Pages, Range};
use std::collections::VecDeque;

/// Whether the pages of a saved segment with code `code` are backed by its
/// spool file for good: their data is saved (SAVESEG) and no user can change
/// them (SR, ER). The steal rule for such pages (seed 000_4bdb7a9f4f9f704a.txt,
/// "Location of the DCSS pages" and its summary: stolen pages of the shared
/// binaries' DCSS "are moved to expanded storage. They are not moved to the
/// paging DASDs because they could be read from spool"; spec topic 6): they go
/// to XSTOR while it has room, and are never written to paging DASD; when they
/// would be (XSTOR full, or their XSTOR block chosen for migration) CP drops
/// them and the next reference reads them from spool again. Writable (SW, EW)
/// pages a user may have changed, and no-data (SN, EN, SC) pages, are paged
/// like any page.
pub fn spool_backed(code: Code) -> bool {
    matches!(code, Code::SR | Code::ER)
}

/// Whether every page of `def` is [`spool_backed`] (the storage component
/// then applies the rule to the whole address space holding its copy).
pub fn all_spool_backed(def: &Def) -> bool {
    !def.ranges.is_empty() && def.ranges.iter().all(|r| spool_backed(r.code))
}

/// System data file classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Skeleton: defined by DEFSEG, not yet saved.
    S,
    /// Active.
    A,
    /// Active, restricted (RSTD).
    R,
    /// Pending purge: still used, replaced or purged.
    P,
}

impl Class {
    pub fn letter(self) -> char {
        match self {
            Class::S => 'S',
            Class::A => 'A',
            Class::R => 'R',
            Class::P => 'P',
        }
    }
    fn active(self) -> bool {
        matches!(self, Class::A | Class::R)
    }
}

/// How a user loaded a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// LOADSHR: shared pages from the shared copy, exclusive ones private.
    Shared,
    /// LOADNSHR: the whole segment a private copy.
    Nonshared,
}

/// A user of a segment.
#[derive(Clone, Debug)]
struct User {
    guest: u32,
    mode: Mode,
    /// Frames of the user's private pages.
    frames: Vec<u32>,
    /// Private pages still to read from spool (0 once loaded).
    to_read: u32,
    /// Waiting for the shared copy's read.
    waits_shared: bool,
}

/// A system data file.
#[derive(Clone, Debug)]
pub struct Sdf {
    pub def: Def,
    pub class: Class,
    /// Spool file (index in `spool`) and spool ID, once saved.
    pub file: Option<u32>,
    pub spoolid: u16,
    pub created: Ns,
    users: Vec<User>,
    /// Frames of the shared copy.
    shared: Vec<u32>,
    /// The shared copy's saved pages are being read.
    shared_reading: bool,
    live: bool,
}

/// A saved segment as the monitor and QUERY NSS see it.
#[derive(Clone, Copy, Debug)]
pub struct SdfSample<'a> {
    pub index: u32,
    pub def: &'a Def,
    pub class: Class,
    pub spoolid: u16,
    pub created: Ns,
    pub users: u32,
    /// Users with a nonshared (LOADNSHR) copy.
    pub nonshared_users: u32,
    /// Resident pages of the shared copy (one frame each, however many users).
    pub shared_resident: u32,
    /// Resident private pages, all users together.
    pub private_resident: u32,
    pub pages: Pages,
}

/// Timed work in flight, named by its `tag` in a spool transfer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// SAVESEG of SDF `sdf` by `issuer` (a guest, or `u32::MAX` for the
    /// operator), started at `at`.
    Save { sdf: u32, issuer: u32, at: Ns },
    /// Reading the shared copy of SDF `sdf`.
    LoadShared { sdf: u32 },
    /// Reading guest `guest`'s private copy of SDF `sdf`.
    LoadPrivate { sdf: u32, guest: u32 },
}

/// What the wiring must do next after a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// Nothing more: the response lines are final.
    Done,
    /// Write `pages` pages of new spool file `file` (op `tag`).
    Write { tag: u32, file: u32, pages: u32 },
    /// Read `pages` pages of spool file `file` (op `tag`).
    Read { tag: u32, file: u32, pages: u32 },
}

/// Something the monitor records as an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegEvent {
    /// Saved (STOSHS).
    Saved { sdf: u32 },
    /// Loaded into storage by its first user (STOSHL).
    Loaded { sdf: u32 },
    /// Removed from storage by its last user (STOSHD).
    Removed { sdf: u32 },
    /// Purged (its spool file deleted).
    Purged { sdf: u32 },
}

/// Counters (cumulative).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub defsegs: u64,
    pub saves: u64,
    pub purges: u64,
    pub loads: u64,
    pub detaches: u64,
    pub pages_saved: u64,
    pub pages_loaded: u64,
    /// Pages read from spool for which no frame could be had.
    pub frames_missed: u64,
}

/// A queued DEFSEG/SAVESEG (CP runs one at a time).
#[derive(Clone, Debug)]
pub struct Queued {
    pub issuer: u32,
    pub command: String,
}

pub struct Segments {
    sdfs: Vec<Sdf>,
    ops: Vec<Option<Op>>,
    free_ops: Vec<u32>,
    /// A SAVESEG is running: further DEFSEG/SAVESEG commands wait here.
    busy: bool,
    waiting: VecDeque<Queued>,
    events: Vec<(SegEvent, Ns)>,
    frames: u64,
    c: Counters,
}

/// Frames released by a call, for the wiring to give back to storage.
pub type Released = Vec<u32>;

impl Default for Segments {
    fn default() -> Self {
        Self::new()
    }
}

impl Segments {
    pub fn new() -> Segments {
        Segments {
            sdfs: Vec::new(),
            ops: Vec::new(),
            free_ops: Vec::new(),
            busy: false,
            waiting: VecDeque::new(),
            events: Vec::new(),
            frames: 0,
            c: Counters::default(),
        }
    }

    fn op(&mut self, op: Op) -> u32 {
        match self.free_ops.pop() {
            Some(i) => {
                self.ops[i as usize] = Some(op);
                i
            }
            None => {
                self.ops.push(Some(op));
                (self.ops.len() - 1) as u32
            }
        }
    }

    fn end_op(&mut self, tag: u32) {
        self.ops[tag as usize] = None;
        self.free_ops.push(tag);
    }

    /// The current (active) version of `name`, if any.
    fn current(&self, name: &str) -> Option<u32> {
        self.sdfs
            .iter()
            .position(|s| s.live && s.class.active() && s.def.name == name)
            .map(|k| k as u32)
    }

    fn skeleton(&self, name: &str) -> Option<u32> {
        self.sdfs
            .iter()
            .position(|s| s.live && s.class == Class::S && s.def.name == name)
            .map(|k| k as u32)
    }

    fn new_sdf(&mut self, def: Def, class: Class, now: Ns) -> u32 {
        let s = Sdf {
            def,
            class,
            file: None,
            spoolid: 0,
            created: now,
            users: Vec::new(),
            shared: Vec::new(),
            shared_reading: false,
            live: true,
        };
        match self.sdfs.iter().position(|s| !s.live) {
            Some(k) => {
                self.sdfs[k] = s;
                k as u32
            }
            None => {
                self.sdfs.push(s);
                (self.sdfs.len() - 1) as u32
            }
        }
    }

    /// Whether a SAVESEG is running (DEFSEG and SAVESEG must wait).
    pub fn busy(&self) -> bool {
        self.busy
    }

    /// Queue a DEFSEG/SAVESEG behind the running SAVESEG.
    pub fn enqueue(&mut self, q: Queued) {
        self.waiting.push_back(q);
    }

    /// The next queued command once CP is free.
    pub fn next_queued(&mut self) -> Option<Queued> {
        if self.busy {
            None
        } else {
            self.waiting.pop_front()
        }
    }

    /// DEFSEG: a skeleton (class S) file for `def`, replacing an earlier
    /// skeleton of the same name. Returns the response.
    pub fn defseg(&mut self, def: Def, now: Ns) -> Result<String, String> {
        // A new skeleton must not overlap other saved segments' pages? CP
        // allows overlapping segments (they cannot be loaded together); the
        // load checks that.
        if let Some(k) = self.skeleton(&def.name) {
            self.sdfs[k as usize].live = false;
        }
        self.new_sdf(def, Class::S, now);
        self.c.defsegs += 1;
        Ok(String::new())
    }

    /// A segment saved before the run (in the system data files at IPL):
    /// active at once, with its spool file `file` (spool ID `spoolid`).
    pub fn preload(&mut self, def: Def, file: u32, spoolid: u16) -> u32 {
        let class = if def.rstd { Class::R } else { Class::A };
        let k = self.new_sdf(def, class, 0);
        let s = &mut self.sdfs[k as usize];
        s.file = Some(file);
        s.spoolid = spoolid;
        k
    }

    /// SAVESEG `name` by `issuer`: the pages to write (saved pages plus the
    /// descriptor page). The wiring creates the spool file and calls
    /// [`Segments::save_started`], or [`Segments::save_failed`].
    pub fn saveseg(&mut self, name: &str) -> Result<(u32, u32), String> {
        let Some(k) = self.skeleton(name) else {
            let why = if self.current(name).is_some() {
                "it is already saved; DEFSEG it again to re-save"
            } else {
                "it is not defined"
            };
            return Err(format!(
                "HCP1364E Saved segment {name} cannot be saved: {why}"
            ));
        };
        let pages = self.sdfs[k as usize].def.pages().saved() + 1;
        Ok((k, pages))
    }

    /// The save of skeleton `sdf` starts with spool file `file`: CP is busy
    /// until it ends. Returns the op's tag.
    pub fn save_started(&mut self, sdf: u32, file: u32, spoolid: u16, issuer: u32, now: Ns) -> u32 {
        let s = &mut self.sdfs[sdf as usize];
        s.file = Some(file);
        s.spoolid = spoolid;
        self.busy = true;
        self.op(Op::Save {
            sdf,
            issuer,
            at: now,
        })
    }

    /// The op `tag` names.
    pub fn op_of(&self, tag: u32) -> Option<Op> {
        self.ops.get(tag as usize).copied().flatten()
    }

    /// A save's spool writes are done: the skeleton becomes active; the
    /// version it replaces becomes pending purge if in use, or is purged
    /// (its spool file is returned for the wiring to purge). Returns the
    /// response and the spool file to purge.
    pub fn save_done(&mut self, tag: u32, now: Ns) -> (String, Option<u32>) {
        let Some(Op::Save { sdf, .. }) = self.op_of(tag) else {
            unreachable!("save_done of a non-save op")
        };
        self.end_op(tag);
        self.busy = false;
        let name = self.sdfs[sdf as usize].def.name.clone();
        let mut purge_file = None;
        if let Some(old) = self.current(&name) {
            let o = &mut self.sdfs[old as usize];
            if o.users.is_empty() {
                o.live = false;
                purge_file = o.file.take();
                self.events.push((SegEvent::Purged { sdf: old }, now));
            } else {
                o.class = Class::P;
            }
        }
        let s = &mut self.sdfs[sdf as usize];
        s.class = if s.def.rstd { Class::R } else { Class::A };
        s.created = now;
        self.c.saves += 1;
        self.c.pages_saved += s.def.pages().saved() as u64;
        self.events.push((SegEvent::Saved { sdf }, now));
        (
            format!(
                "HCP440I Saved segment {name} was successfully saved in fileid {:04}.",
                s.spoolid
            ),
            purge_file,
        )
    }

    /// A save could not start (spool full): CP is free again.
    pub fn save_failed(&mut self, name: &str, needed: u64, free: u64) -> String {
        format!(
            "HCP1365E Saved segment {name} was not saved: spool space is full ({needed} pages needed, {free} free)"
        )
    }

    /// PURGE NSS NAME `name` (or by spool ID): versions not in use are
    /// purged (their spool files returned for the wiring to purge), those in
    /// use become class P.
    pub fn purge(
        &mut self,
        name: Option<&str>,
        spoolid: Option<u16>,
        now: Ns,
    ) -> Result<(String, Vec<u32>), String> {
        let mut files = Vec::new();
        let mut n = 0;
        for k in 0..self.sdfs.len() {
            let s = &mut self.sdfs[k];
            let hit = s.live
                && name.is_none_or(|nm| s.def.name == nm)
                && spoolid.is_none_or(|id| s.file.is_some() && s.spoolid == id);
            if !hit {
                continue;
            }
            // A save in progress keeps its skeleton.
            if s.class == Class::S && s.file.is_some() {
                continue;
            }
            n += 1;
            if s.users.is_empty() {
                s.live = false;
                files.extend(s.file.take());
                self.events.push((SegEvent::Purged { sdf: k as u32 }, now));
            } else {
                s.class = Class::P;
            }
        }
        if n == 0 {
            let what = name
                .map(String::from)
                .unwrap_or_else(|| format!("{:04}", spoolid.unwrap_or(0)));
            return Err(format!("HCP1366E Saved segment {what} does not exist"));
        }
        self.c.purges += n;
        Ok((format!("{n:04} FILE(S) PURGED"), files))
    }

    /// Guest `g` loads segment `name` in `mode` (DIAGNOSE X'64' LOADSHR or
    /// LOADNSHR). Returns the reads to start (shared copy, private copy).
    pub fn load(&mut self, g: u32, name: &str, mode: Mode, now: Ns) -> Result<Vec<Next>, String> {
        let Some(k) = self.current(name) else {
            return Err(format!("RC=44 segment {name} does not exist"));
        };
        if mode == Mode::Nonshared && !self.sdfs[k as usize].def.loadnshr {
            return Err(format!(
                "RC=281 segment {name} was not defined with LOADNSHR"
            ));
        }
        // Already loaded (this or an older version), or overlapping another
        // segment the guest has loaded.
        let (lo, hi) = self.sdfs[k as usize].def.span();
        for (j, s) in self.sdfs.iter().enumerate() {
            if !s.live || !s.users.iter().any(|u| u.guest == g) {
                continue;
            }
            if s.def.name == name {
                return Err(format!("RC=0 segment {name} is already loaded"));
            }
            let (a, b) = s.def.span();
            if a <= hi && lo <= b {
                let _ = j;
                return Err(format!(
                    "RC=44 segment {name} overlaps segment {} already loaded",
                    s.def.name
                ));
            }
        }
        let s = &mut self.sdfs[k as usize];
        let p = s.def.pages();
        let file = s.file.expect("an active segment has its spool file");
        let first = s.users.is_empty();
        let mut next = Vec::new();
        let private = match mode {
            Mode::Shared => p.excl_saved,
            Mode::Nonshared => p.saved(),
        };
        let need_shared =
            mode == Mode::Shared && p.shared_saved > 0 && s.shared.len() < p.shared_saved as usize;
        let start_shared = need_shared && !s.shared_reading;
        if start_shared {
            s.shared_reading = true;
        }
        s.users.push(User {
            guest: g,
            mode,
            frames: Vec::new(),
            to_read: private,
            waits_shared: need_shared,
        });
        self.c.loads += 1;
        if first {
            self.events.push((SegEvent::Loaded { sdf: k }, now));
        }
        if start_shared {
            let missing = p.shared_saved - self.sdfs[k as usize].shared.len() as u32;
            let tag = self.op(Op::LoadShared { sdf: k });
            next.push(Next::Read {
                tag,
                file,
                pages: missing,
            });
        }
        if private > 0 {
            let tag = self.op(Op::LoadPrivate { sdf: k, guest: g });
            next.push(Next::Read {
                tag,
                file,
                pages: private,
            });
        }
        Ok(next)
    }

    /// Whether guest `g` waits for a load (its DIAGNOSE X'64' has not returned).
    pub fn loading(&self, g: u32) -> bool {
        self.sdfs.iter().any(|s| {
            s.live
                && s.users
                    .iter()
                    .any(|u| u.guest == g && (u.to_read > 0 || u.waits_shared))
        })
    }

    /// Whether guest `g`'s load of `name` is complete (all its pages in).
    pub fn loaded(&self, g: u32, name: &str) -> bool {
        self.sdfs.iter().any(|s| {
            s.live
                && s.def.name == name
                && s.users
                    .iter()
                    .any(|u| u.guest == g && u.to_read == 0 && !u.waits_shared)
        })
    }

    /// A frame `f` for op `tag`'s page (the wiring took it from storage).
    /// Returns false if the op no longer wants it (the user left): the
    /// wiring frees it.
    pub fn add_frame(&mut self, tag: u32, f: u32) -> bool {
        match self.op_of(tag) {
            Some(Op::LoadShared { sdf }) => {
                let s = &mut self.sdfs[sdf as usize];
                if s.users.is_empty() {
                    // Its users left while it was read.
                    return false;
                }
                s.shared.push(f);
                self.frames += 1;
                true
            }
            Some(Op::LoadPrivate { sdf, guest }) => {
                let s = &mut self.sdfs[sdf as usize];
                match s.users.iter_mut().find(|u| u.guest == guest) {
                    Some(u) => {
                        u.frames.push(f);
                        self.frames += 1;
                        true
                    }
                    None => false,
                }
            }
            _ => false,
        }
    }

    /// Op `tag` could not get `n` frames (storage exhausted): those pages
    /// are counted as missed and stay out of storage (not modelled further:
    /// scenarios size central storage for their segments).
    pub fn frames_missed(&mut self, n: u32) {
        self.c.frames_missed += n as u64;
    }

    /// Op `tag`'s spool transfer finished. Returns the guests whose loads
    /// completed.
    pub fn read_done(&mut self, tag: u32) -> Vec<u32> {
        let mut done = Vec::new();
        match self.op_of(tag) {
            Some(Op::LoadShared { sdf }) => {
                let s = &mut self.sdfs[sdf as usize];
                s.shared_reading = false;
                for u in &mut s.users {
                    if u.waits_shared {
                        u.waits_shared = false;
                        if u.to_read == 0 {
                            done.push(u.guest);
                        }
                    }
                }
                self.c.pages_loaded += s.def.pages().shared_saved as u64;
            }
            Some(Op::LoadPrivate { sdf, guest }) => {
                let s = &mut self.sdfs[sdf as usize];
                if let Some(u) = s.users.iter_mut().find(|u| u.guest == guest) {
                    self.c.pages_loaded += u.to_read as u64;
                    u.to_read = 0;
                    if !u.waits_shared {
                        done.push(guest);
                    }
                }
            }
            _ => {}
        }
        self.end_op(tag);
        done
    }

    /// Guest `g` detaches `name` (DIAGNOSE X'64' PURGESG, or logoff when
    /// `name` is `None`: every segment). Returns the frames to free and the
    /// spool files to purge (a class P version's last user left).
    pub fn detach(
        &mut self,
        g: u32,
        name: Option<&str>,
        now: Ns,
    ) -> Result<(Released, Vec<u32>), String> {
        let mut frames = Vec::new();
        let mut files = Vec::new();
        let mut hit = false;
        for k in 0..self.sdfs.len() {
            let s = &mut self.sdfs[k];
            if !s.live || name.is_some_and(|n| s.def.name != n) {
                continue;
            }
            let Some(i) = s.users.iter().position(|u| u.guest == g) else {
                continue;
            };
            hit = true;
            let u = s.users.remove(i);
            self.frames -= u.frames.len() as u64;
            frames.extend(u.frames);
            self.c.detaches += 1;
            if s.users.is_empty() {
                // The last user: the shared copy leaves storage (an SN
                // segment's data is lost; a saved one stays on spool).
                self.frames -= s.shared.len() as u64;
                frames.append(&mut s.shared);
                self.events.push((SegEvent::Removed { sdf: k as u32 }, now));
                if s.class == Class::P {
                    s.live = false;
                    files.extend(s.file.take());
                    self.events.push((SegEvent::Purged { sdf: k as u32 }, now));
                }
            }
        }
        if !hit && name.is_some() {
            return Err(format!(
                "RC=44 segment {} is not loaded",
                name.unwrap_or_default()
            ));
        }
        Ok((frames, files))
    }

    /// Whether SDF `sdf`'s shared copy is being read or a user's private copy
    /// is (a detach then must wait for the read's frames to be freed as they
    /// come: [`Segments::add_frame`] refuses them).
    pub fn reading(&self, sdf: u32) -> bool {
        self.sdfs[sdf as usize].shared_reading
    }

    /// The monitor event records since the last call, oldest first.
    pub fn take_events(&mut self) -> Vec<(SegEvent, Ns)> {
        std::mem::take(&mut self.events)
    }

    /// Every live system data file, in table order.
    pub fn sdfs(&self) -> impl Iterator<Item = SdfSample<'_>> + '_ {
        self.sdfs
            .iter()
            .enumerate()
            .filter(|(_, s)| s.live)
            .map(|(k, s)| SdfSample {
                index: k as u32,
                def: &s.def,
                class: s.class,
                spoolid: s.spoolid,
                created: s.created,
                users: s.users.len() as u32,
                nonshared_users: s.users.iter().filter(|u| u.mode == Mode::Nonshared).count()
                    as u32,
                shared_resident: s.shared.len() as u32,
                private_resident: s.users.iter().map(|u| u.frames.len() as u32).sum(),
                pages: s.def.pages(),
            })
    }

    /// SDF `k` (also a dead one: event records name it after it is gone).
    pub fn sdf(&self, k: u32) -> &Sdf {
        &self.sdfs[k as usize]
    }

    /// Users of SDF `k` (guest numbers).
    pub fn users(&self, k: u32) -> impl Iterator<Item = u32> + '_ {
        self.sdfs[k as usize].users.iter().map(|u| u.guest)
    }

    /// Frames held, all segments.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    pub fn counters(&self) -> Counters {
        self.c
    }

    /// Consistency: the frame count is the frames held; a shared copy never
    /// holds more frames than its shared saved pages, nor a user's private
    /// copy more than it loads; no frame is held twice; each name has at
    /// most one skeleton and one active version.
    #[cfg(any(test, debug_assertions))]
    pub fn check(&self) {
        let mut all: Vec<u32> = Vec::new();
        for s in self.sdfs.iter().filter(|s| s.live) {
            let p = s.def.pages();
            assert!(
                s.shared.len() as u32 <= p.shared_saved,
                "{}: shared frames",
                s.def.name
            );
            all.extend(&s.shared);
            for u in &s.users {
                let most = match u.mode {
                    Mode::Shared => p.excl_saved,
                    Mode::Nonshared => p.saved(),
                };
                assert!(
                    u.frames.len() as u32 <= most,
                    "{}: private frames",
                    s.def.name
                );
                all.extend(&u.frames);
            }
            let same = |c: fn(Class) -> bool| {
                self.sdfs
                    .iter()
                    .filter(|t| t.live && t.def.name == s.def.name && c(t.class))
                    .count()
            };
            assert!(
                same(|c| c == Class::S) <= 1,
                "{}: two skeletons",
                s.def.name
            );
            assert!(
                same(Class::active) <= 1,
                "{}: two active versions",
                s.def.name
            );
            if s.class == Class::P {
                assert!(!s.users.is_empty(), "{}: class P without users", s.def.name);
            }
        }
        assert_eq!(all.len() as u64, self.frames, "segment frame count");
        all.sort_unstable();
        assert!(all.windows(2).all(|w| w[0] != w[1]), "a frame held twice");
    }
}
