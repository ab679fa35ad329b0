//! The storage component: real storage (frames, the available list and its
//! thresholds, the Era A demand scan), expanded storage (XSTOR) and the
//! guests' address spaces. At CP levels 6.3 and later the available list is
//! replenished from the global aging list instead ([`era_c`]: Era C, no
//! XSTOR); the two meet in [`Storage::replenish`].
//!
//! **Owns** the frames (owner, page, flags), the available list, the frame
//! waiters, XSTOR ([`xstor`]), and per guest its address space (`Space`:
//! page table, user frame owned list, resident/XSTOR/DASD page counts, the
//! working-set estimate, its scheduler category as `cpu` reports it); the
//! storage counters (system-wide, per logical CPU, per guest); two reused
//! buffers the wiring drains: page-outs chosen by the demand scan, and frame
//! waiters a freed frame woke.
//!
//! **Interface** (zero-time calls; no events of its own):
//! * frames: [`Storage::get_frame`] (may run the demand scan),
//!   [`Storage::can_take_unscanned`] / [`Storage::take_read_frame`] (block
//!   reads with frames to spare), [`Storage::wait_for_frame`];
//! * page states, one method per transition: first touch, first change,
//!   XSTOR fault ([`Storage::xstor_in`]), reclaim during page-out, read in,
//!   written out, migrated out, discard; [`Storage::maybe_migrate`];
//! * the backdoor [`Storage::table_mut`] lends a page table to the burst loop,
//!   which may only set `P_REF` on resident entries;
//! * scheduling: [`Storage::set_category`], [`Storage::wss`],
//!   [`Storage::tick`] (demand rate, thresholds, working sets, on its own clock);
//! * for the monitor: [`Storage::sample`], [`Storage::by_cpu`],
//!   [`Storage::guest`], [`Storage::space`]; [`Storage::check`].
//! * for CP's QUERY FRAMES: [`Storage::frame_use`] ([`frames`]);
//! * for CP's LOCK and UNLOCK: [`Storage::lock_check`], [`Storage::pin`],
//!   [`Storage::unlock_pages`] ([`lock`]: pinned frames, flag `F_PIN`,
//!   which every steal path leaves; pages not resident are brought in by
//!   the wiring through the transitions above first).
//!
//! **Parameters**: [`params`] (central storage, CP's fixed storage and XSTOR
//! from `[system]`, `[srm] xstor_low`, its CP costs; the bounds).
//!
//! **Peers**: what the demand scan and migration need from paging in the
//! middle of a scan (free a slot, write a migration block) goes through the
//! [`Pager`] trait, implemented by `paging::Backing` and by a test double.
//! Page-outs are not written by the scan: they are left in [`Storage::pageouts`]
//! for the wiring to hand to paging, and frame waiters woken are left in a
//! buffer for the wiring to hand to `cpu` ([`Storage::drain_woken`]).
//!
//! A guest page's entry ([`PageEntry`]) is two `u32` words: the state word and
//! the DASD block that has a valid copy of the page, if any. The state word has
//! two formats:
//!
//! * resident (bit 31 set): bit 30 the reference bit, bit 29 the change bit,
//!   bits 0-28 the frame (up to 2^29 frames, 2 TB of central storage), so a page
//!   touch reads and writes one word;
//! * otherwise bits 28-30 a state tag and bits 0-27 an index: the XSTOR block
//!   ([`T_XS`]) or paging's block read ([`T_READIN`]). A page being paged out
//!   ([`T_PAGEOUT`]) keeps its frame number in the block word, which is free
//!   then (a stolen page's old DASD copy was released before its write began).

pub mod era_c;
pub mod frames;
pub mod lock;
pub mod params;
mod scan;
#[cfg(test)]
pub(crate) mod tests;
pub mod xstor;

use super::Cx;
use crate::core::units::Ns;
use std::collections::VecDeque;
pub use xstor::Xstor;

/// Frames materialised at a time as storage is first used (256 MB of
/// central storage, 576 KB of frame table).
const FRAME_CHUNK: usize = 1 << 16;
/// Central storage up to this many frames (4 GB, 9 MB of frame table) is
/// materialised when the storage is built, as before the lazy table: the
/// memory is first touched at the start then, not in the middle of a run
/// (each new page of table is a page fault: S1-peer's re-read took 129 more
/// of them in its window than at 3c1b623, about 0.5 ms of its 2.5). Larger
/// storage grows a [`FRAME_CHUNK`] at a time.
const FRAMES_AT_ONCE: u32 = 1 << 20;
/// Resident: the entry holds a frame and its reference and change bits.
pub const RES: u32 = 1 << 31;
pub const P_REF: u32 = 1 << 30;
pub const P_CHG: u32 = 1 << 29;
/// 29-bit frame number: up to 512M frames (2 TB of central storage).
pub const FRAME_MASK: u32 = (1 << 29) - 1;
pub use params::MAX_FRAMES;
const _: () = assert!(MAX_FRAMES == FRAME_MASK as u64 + 1);
pub const TAG_SHIFT: u32 = 28;
/// 28-bit index of a non-resident page: up to 256M XSTOR blocks (1 TB) or block reads.
pub const IDX_MASK: u32 = (1 << 28) - 1;
/// Never referenced: no content anywhere.
pub const T_NONE: u32 = 0;
/// Resident in a frame (what [`tag`] answers for entries with [`RES`] set).
pub const T_RES: u32 = 1;
/// In expanded storage (index = XSTOR block).
pub const T_XS: u32 = 2;
/// On DASD only (the block is in the entry's block word).
pub const T_DASD: u32 = 3;
/// Being read in (index = paging's block read).
pub const T_READIN: u32 = 4;
/// Stolen, being written to DASD, still in its frame (the frame is in the
/// entry's block word).
pub const T_PAGEOUT: u32 = 5;

#[inline]
pub fn tag(e: u32) -> u32 {
    if e & RES != 0 {
        T_RES
    } else {
        e >> TAG_SHIFT
    }
}
#[inline]
pub fn idx(e: u32) -> u32 {
    if e & RES != 0 {
        e & FRAME_MASK
    } else {
        e & IDX_MASK
    }
}
/// A state word: tag `t` with index `i` (a frame for [`T_RES`]).
#[inline]
pub fn pte(t: u32, i: u32) -> u32 {
    if t == T_RES {
        debug_assert!(i <= FRAME_MASK);
        RES | i
    } else {
        debug_assert!(i <= IDX_MASK);
        debug_assert!(
            t != T_PAGEOUT || i == 0,
            "a page-out's frame is in the block word"
        );
        (t << TAG_SHIFT) | i
    }
}

pub const NO_BLOCK: u32 = u32::MAX;

/// A guest page's entry: its state word and the DASD block holding a valid
/// copy of it ([`NO_BLOCK`] if none), side by side so a fault or a steal reads
/// both with one memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageEntry {
    pub e: u32,
    pub blk: u32,
}

/// XSTOR-to-DASD migration keeps at most this many blocks per paging volume
/// in flight (\[E\]: with no bound, migration floods the paging queues; 16 gives
/// S2's published paging response of 13-29 ms, 2 to 4 times the service time).
pub const MIGRATE_BLOCKS_PER_VOLUME: u32 = 16;

/// The storage manager's period: demand rate, thresholds, working sets.
pub const TICK: Ns = 2 * crate::core::units::SEC;

/// Frames the demand scan takes from one user per visit before moving on
/// to the next user of the same category (\[E\]).
pub const STEAL_QUANTUM: u32 = 8;
pub const FREE: u32 = u32::MAX;
/// The owner of frames holding saved-segment pages (the `segments`
/// component's: a shared copy, or a user's nonshared copy).
pub const SEG_OWNER: u32 = u32::MAX - 2;
/// The owner of frames and XSTOR blocks lent to the minidisk cache.
pub const MDC_OWNER: u32 = u32::MAX - 1;

/// Frame flag: locked (I/O in progress), not stealable.
pub const F_LOCK: u8 = 4;
/// Frame flags, bits 0-1: looks of the demand scan in a row that found the
/// frame unreferenced (0-3; cleared by a look that finds it referenced).
pub const F_AGE: u8 = 3;

/// Steal passes (for STORSP counters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    First,
    Second,
    Emergency,
}

/// Scheduler categories in demand-scan order (a logged-off guest counts as
/// dormant: it may still hold frames locked for I/O).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cat {
    Dormant,
    Eligible,
    Dispatch,
    /// A system-owned shared address space (a VDISK's): pass 1 takes its
    /// unreferenced pages before any user's, pass 2 passes it over, the
    /// emergency pass takes anything (the Era A steal order in the S4 case
    /// study's "Finding a Memory Frame").
    Shared,
}

/// What the demand scan and XSTOR migration need from paging while a scan
/// runs (they cannot wait for it to end: the slots they free and take decide
/// where later blocks go).
pub trait Pager {
    /// The copy of page (g, vp) in block `b` is no longer valid: free its slot
    /// (and the block, once empty and idle).
    fn release(&mut self, b: u32, g: u32, vp: u32);
    /// Write `items` (pages leaving XSTOR) as one block, possibly fewer pages
    /// than offered; returns the pages taken, 0 when paging space is
    /// exhausted (the run abends).
    fn migrate(&mut self, cx: &mut Cx, items: &[(u32, u32)]) -> u32;
    /// Paging volumes (migration keeps a bounded number of blocks in flight
    /// per volume).
    fn volumes(&self) -> u32;
}

/// CP time of storage operations, ns.
#[derive(Clone, Copy, Debug, Default)]
pub struct Costs {
    /// Demand scan, per frame examined (system time).
    pub steal_frame: Ns,
    /// Moving one page between central storage and XSTOR.
    pub xmove: Ns,
}

/// System-wide storage counters (cumulative).
#[derive(Default, Clone, Copy, Debug, PartialEq, Eq)]
pub struct StorageCounters {
    pub frame_requests: u64,
    pub frame_waits: u64,
    pub steals: u64,
    pub scans: u64,
    pub emergency_scans: u64,
    pub list_empty: u64,
    /// Steals by pass (first, second, emergency) and category (dormant, eligible, dispatch).
    pub by_pass: [[u64; 3]; 3],
    /// Frames stolen from system-owned shared address spaces (VDISKs), by
    /// pass (pass 2 never takes them).
    pub shared_by_pass: [u64; 3],
    pub examined: u64,
    pub xstor_in: u64,
    pub xstor_out: u64,
    pub migrated: u64,
    pub first_touch: u64,
}

/// Storage work done on one logical CPU (cumulative): SYTRSP, SYTXSP, STORSP.
#[derive(Default, Clone, Copy, Debug, PartialEq, Eq)]
pub struct StorCpu {
    /// Frames stolen from shared address spaces (VDISKs), by pass.
    pub shared_by_pass: [u64; 3],
    pub steals: u64,
    pub frame_waits: u64,
    pub xs_in: u64,
    pub xs_out: u64,
    pub migrated: u64,
    /// Steals by pass (first, second, emergency) and category (dormant, eligible, dispatch).
    pub by_pass: [[u64; 3]; 3],
}

/// Storage counters of one guest (cumulative): USEACT.
#[derive(Default, Clone, Copy, Debug, PartialEq, Eq)]
pub struct GuestStor {
    /// Page faults on pages with content (in XSTOR, on DASD, being read or
    /// written), not first touches.
    pub faults: u64,
    pub first_touch: u64,
    pub steals: u64,
    /// Pages moved central storage to XSTOR, XSTOR to central, XSTOR to DASD.
    pub ms_to_x: u64,
    pub x_to_ms: u64,
    pub x_to_ds: u64,
}

/// Real storage and XSTOR as the monitor sees them.
#[derive(Clone, Copy, Debug)]
pub struct StorageSample {
    pub fixed: u32,
    pub dpa: u32,
    pub avail: u32,
    pub low: u32,
    pub high: u32,
    pub c: StorageCounters,
    pub xs_total: u32,
    pub xs_free: u32,
    pub xs_low: u32,
    /// Mean age of the pages in XSTOR, ns.
    pub xs_mean_age: u128,
}

/// A guest's address space as the monitor sees it.
#[derive(Clone, Copy, Debug)]
pub struct SpaceSample {
    pub vpages: u32,
    pub resident: u32,
    pub wss: f64,
    pub xstor: u32,
    pub dasd: u32,
    /// Pages pinned by CP's LOCK ([`lock`]).
    pub pinned: u32,
}

/// A frame's owner (a guest, or [`FREE`]) and the guest page in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    pub owner: u32,
    pub vpage: u32,
}

/// What an entry (frame `f`, page `vp`) of owner `g`'s frame list stands
/// for, read from the page's state word `e`: the walks of the Era A demand
/// scan and of the Era C aging-list fill share it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum ListEntry {
    /// The frame holds the page.
    Resident,
    /// The page is being read into the frame: the entry is kept for later.
    ReadIn,
    /// The frame was freed or reused since the entry was made.
    Stale,
}

/// Classify a frame-list entry (see [`ListEntry`]). The page table says
/// whether a resident entry is current (one memory access instead of
/// checking the frame's owner and page); a read-in's frame is in no state
/// word, so its owner is checked.
#[inline(always)]
pub(super) fn list_entry(e: u32, f: u32, frames: &[Frame], g: u32, vp: u32) -> ListEntry {
    match tag(e) {
        T_RES if idx(e) == f => ListEntry::Resident,
        T_READIN
            if frames[f as usize]
                == (Frame {
                    owner: g,
                    vpage: vp,
                }) =>
        {
            ListEntry::ReadIn
        }
        _ => ListEntry::Stale,
    }
}

/// A guest's address space.
struct Space {
    vpages: u32,
    /// Page table: per virtual page, its entry and its DASD block (empty
    /// until the guest logs on).
    pt: Vec<PageEntry>,
    /// User frame owned list: (frame, page) in the order the frames were
    /// taken; entries of frames since freed are skipped by the scan.
    ufo: VecDeque<(u32, u32)>,
    resident: u32,
    xstor: u32,
    dasd: u32,
    /// Working-set estimate (pages): the scheduler's projection, made when
    /// the user leaves the dispatch list or its elapsed time slice ends
    /// ([`Storage::project_wss`]).
    wss: f64,
    /// The current stay in the dispatch list: resident pages when it began,
    /// frames gained since (first touches, pages brought back from XSTOR or
    /// DASD), and the direction of the last change of the projection.
    stay_res0: u32,
    stay_gained: u32,
    wss_dir: i8,
    /// What pass 1 of the demand scan leaves a dispatch-list user: an
    /// exponential mean of its resident pages, updated at each storage tick
    /// while it is in the dispatch list (the estimate before M8; the
    /// projection `wss` protected dispatch-list users more and cut S2's
    /// paging by 12%, docs/fidelity.md M8).
    protect: f64,
    cat: Cat,
    /// Storage ticks the user has been dormant for (0 while in the
    /// dispatch or eligible list): long-term dormant users are stolen from first.
    dormant_ticks: u32,
    on: bool,
    /// A system-owned shared space's frames that came in unreferenced (the
    /// companions of a block read): the only ones pass 1 can take from it,
    /// as it does not reset a shared frame's reference bit
    /// ([`Storage::steal_unreferenced_shared`]). Empty for a guest's space.
    unref: VecDeque<(u32, u32)>,
    /// Its pages are a saved segment's read-only copy, backed by the
    /// segment's spool file (`segments::all_spool_backed`): never written
    /// to paging DASD, dropped instead ([`Storage::set_spool_backed`]).
    spool: bool,
    /// The running demand scan's pass: entries of `ufo` still to look at
    /// (each frame is looked at once per pass).
    walk: u32,
    /// Pages pinned by CP's LOCK ([`lock`]), while logged on.
    pinned: u32,
    /// The running demand scan: how many entries at the back of `ufo` it
    /// has looked at already (a look moves an entry to the back).
    seen: u32,
}

impl Space {
    /// An empty space of `vpages` pages in scan category `cat`.
    fn new(vpages: u32, cat: Cat) -> Space {
        Space {
            vpages,
            pt: Vec::new(),
            ufo: VecDeque::new(),
            resident: 0,
            xstor: 0,
            dasd: 0,
            wss: 0.0,
            stay_res0: 0,
            stay_gained: 0,
            wss_dir: 0,
            protect: 0.0,
            cat,
            dormant_ticks: 0,
            on: false,
            unref: VecDeque::new(),
            walk: 0,
            seen: 0,
            spool: false,
            pinned: 0,
        }
    }

    /// Frame `f` now holds page `vp`: it joins the user frame owned list.
    #[inline(always)]
    fn gained_frame(&mut self, f: u32, vp: u32) {
        self.ufo.push_back((f, vp));
        self.resident += 1;
        self.stay_gained = self.stay_gained.wrapping_add(1);
    }

    /// A stay in the dispatch list begins.
    fn begin_stay(&mut self) {
        self.stay_res0 = self.resident;
        self.stay_gained = 0;
    }

    fn dasd_pages_add(&mut self, d: i32) {
        self.dasd = (self.dasd as i64 + d as i64).max(0) as u32;
    }
}

/// Page-outs chosen by a demand scan, one batch per visit to a guest, in the
/// order of the visits (reused: nothing is allocated once warm).
#[derive(Default)]
pub struct PageOuts {
    /// (guest, pages in steal order); only the first `active` are in use.
    batches: Vec<(u32, Vec<u32>)>,
    active: usize,
    /// Each guest's batch (`u32::MAX`: none).
    batch_of: Vec<u32>,
}

impl PageOuts {
    fn add(&mut self, g: u32, vp: u32) {
        let b = self.batch_of[g as usize];
        if b != u32::MAX {
            self.batches[b as usize].1.push(vp);
            return;
        }
        if self.active == self.batches.len() {
            self.batches.push((g, Vec::new()));
        }
        let k = self.active;
        self.batches[k].0 = g;
        self.batches[k].1.push(vp);
        self.batch_of[g as usize] = k as u32;
        self.active += 1;
    }

    /// The demand scan's visit to guest `g` ended: its next steal starts a
    /// new batch, so a page-out block never joins pages of two visits (M1:
    /// CP writes the pages stolen from a user in one visit together).
    #[inline]
    fn end_visit(&mut self, g: u32) {
        self.batch_of[g as usize] = u32::MAX;
    }

    pub fn is_empty(&self) -> bool {
        self.active == 0
    }

    /// The batches: (guest, the pages stolen in one visit, in steal order).
    pub fn batches(&self) -> impl Iterator<Item = (u32, &[u32])> + '_ {
        self.batches[..self.active]
            .iter()
            .map(|(g, v)| (*g, v.as_slice()))
    }

    fn clear(&mut self) {
        for (g, v) in &mut self.batches[..self.active] {
            self.batch_of[*g as usize] = u32::MAX;
            v.clear();
        }
        self.active = 0;
    }
}

/// Real storage, XSTOR and the address spaces.
pub struct Storage {
    total: u32,
    /// Frames CP keeps (not pageable).
    fixed: u32,
    /// Owner and page of each frame, side by side (written together when a
    /// frame is taken). Beyond [`FRAMES_AT_ONCE`] frames of central storage,
    /// frames are materialised as they are first taken, a [`FRAME_CHUNK`] at
    /// a time (`frames.len()` is `fresh` rounded up to a chunk): memory
    /// follows the frames in use, not the central storage configured (2 TB
    /// with three small guests took 6.3 GB).
    frames: Vec<Frame>,
    flags: Vec<u8>,
    /// Frames freed back to the available list, the most recent on top.
    avail: Vec<u32>,
    /// The next frame never taken: frames `fresh..total` are on the available
    /// list too, below `avail`, lowest first (the order a list built of every
    /// frame, highest at the bottom, would hand them out in).
    fresh: u32,
    low: u32,
    high: u32,
    /// Requests since the last rate update, and the smoothed rate (frames/s).
    req_window: u64,
    rate: f64,
    /// Virtual CPUs waiting for a frame, and those a freed frame woke (for
    /// the wiring to make ready).
    waiters: VecDeque<u32>,
    woken: Vec<u32>,
    /// Frames stolen and being written to DASD (they join the list when done).
    pageout_frames: u32,
    /// Where the next demand scan starts among the users.
    scan_cursor: u32,
    /// `pageout_frames` when the running demand scan began.
    scan_po0: u32,
    /// Pages per block written by migration.
    block_max: u32,
    /// Migration blocks in flight per paging volume (`[srm] migrate_writes`).
    migrate_writes: u32,
    costs: Costs,
    xs: Xstor,
    spaces: Vec<Space>,
    pageouts: PageOuts,
    /// Migration's scratch list of pages.
    items: Vec<(u32, u32)>,
    c: StorageCounters,
    by_cpu: Vec<StorCpu>,
    by_guest: Vec<GuestStor>,
    /// Frames holding saved-segment pages.
    seg_frames: u32,
    /// Some system-owned shared address space exists (the demand scan
    /// visits the shared category only then).
    /// See [`Storage::spool_drops`].
    spool_dropped: u64,
    has_shared: bool,
    /// Frames and XSTOR blocks lent to the minidisk cache.
    mdc_frames: Vec<u32>,
    mdc_blocks: Vec<u32>,
    /// The global aging list (Era C levels; `on` false in Era A).
    age: era_c::AgeList,
    /// Frames pinned by CP's LOCK, all guests ([`lock`]).
    pinned_frames: u32,
}

impl Storage {
    /// Storage with parameters `p`, for `cpus` logical CPUs and guests of
    /// `vpages` pages each.
    pub fn new(p: &params::Params, cpus: usize, vpages: &[u32]) -> Storage {
        let (total, fixed, xs_blocks) = p.frames();
        let xs = Xstor::new(xs_blocks, p.xstor_low);
        let (block_max, costs) = (p.block_max, p.costs());
        let dpa = total - fixed;
        let mut s = Storage {
            total,
            fixed,
            // CP's own frames (below `fixed`) are never on the list.
            frames: vec![
                Frame {
                    owner: FREE,
                    vpage: 0
                };
                Self::first_frames(total, fixed)
            ],
            flags: vec![0; Self::first_frames(total, fixed)],
            avail: Vec::new(),
            fresh: fixed,
            low: 0,
            high: 0,
            req_window: 0,
            rate: 0.0,
            waiters: VecDeque::new(),
            woken: Vec::new(),
            pageout_frames: 0,
            scan_cursor: 0,
            scan_po0: 0,
            block_max,
            migrate_writes: p.migrate_writes,
            costs,
            xs,
            spaces: vpages
                .iter()
                .map(|&vpages| Space::new(vpages, Cat::Dormant))
                .collect(),
            pageouts: PageOuts {
                batch_of: vec![u32::MAX; vpages.len()],
                ..Default::default()
            },
            items: Vec::with_capacity(block_max as usize),
            c: StorageCounters::default(),
            by_cpu: vec![StorCpu::default(); cpus],
            by_guest: vec![GuestStor::default(); vpages.len()],
            seg_frames: 0,
            has_shared: false,
            spool_dropped: 0,
            mdc_frames: Vec::new(),
            mdc_blocks: Vec::new(),
            age: era_c::AgeList::new(p.agelist.as_ref(), dpa),
            pinned_frames: 0,
        };
        s.set_thresholds(dpa);
        s
    }

    // ------------------------------------------------------------ frames

    /// Whether `n` frames can be taken in a row with no demand scan due before
    /// any of them: `get_frame` scans when the list plus the frames on their
    /// way out is at or below the low threshold, so after `n - 1` takes it
    /// must still be above it.
    #[inline]
    pub fn can_take_unscanned(&self, n: u32) -> bool {
        let a = self.avail_len() as u64;
        a >= n as u64 && a + self.on_way() as u64 >= self.low as u64 + n as u64
    }

    /// Take the frame on top of the available list for guest `g`, page `vp`,
    /// with frame flags `flags`, counting the request; `None` when the list is
    /// empty. The page table is the caller's to set.
    #[inline(always)]
    fn take(&mut self, g: u32, vp: u32, flags: u8) -> Option<u32> {
        self.c.frame_requests += 1;
        self.req_window += 1;
        let frame = Frame {
            owner: g,
            vpage: vp,
        };
        if let Some(f) = self.avail.pop() {
            self.frames[f as usize] = frame;
            self.flags[f as usize] = flags;
            return Some(f);
        }
        self.take_fresh(frame, flags)
    }

    /// A frame never taken before; `None` (the list is empty) when every
    /// frame has been.
    #[inline]
    fn take_fresh(&mut self, frame: Frame, flags: u8) -> Option<u32> {
        if self.fresh == self.total {
            self.c.list_empty += 1;
            return None;
        }
        let f = self.fresh;
        self.fresh += 1;
        if f as usize == self.frames.len() {
            self.grow_frames();
        }
        self.frames[f as usize] = frame;
        self.flags[f as usize] = flags;
        Some(f)
    }

    /// Frames materialised when the storage is built: all of a central
    /// storage up to [`FRAMES_AT_ONCE`], else CP's own.
    fn first_frames(total: u32, fixed: u32) -> usize {
        if total <= FRAMES_AT_ONCE {
            total as usize
        } else {
            fixed as usize
        }
    }

    /// Materialise the next [`FRAME_CHUNK`] frames (free), at most up to
    /// central storage.
    #[cold]
    #[inline(never)]
    fn grow_frames(&mut self) {
        let n = (self.frames.len() + FRAME_CHUNK).min(self.total as usize);
        self.frames.resize(
            n,
            Frame {
                owner: FREE,
                vpage: 0,
            },
        );
        self.flags.resize(n, 0);
    }

    /// Frames on the available list: freed ones and those never taken.
    #[inline(always)]
    pub(super) fn avail_len(&self) -> usize {
        self.avail.len() + (self.total - self.fresh) as usize
    }

    /// Take a frame for guest `g`, page `vp`, running the demand scan when the
    /// available list is low (page-outs it chooses are left in
    /// [`Storage::pageouts`]). `None` when no frame can be had now.
    #[inline(always)]
    pub fn get_frame(
        &mut self,
        cx: &mut Cx,
        pager: &mut impl Pager,
        g: u32,
        vp: u32,
    ) -> Option<u32> {
        // Frames already being paged out are on their way to the list.
        if self.avail_len() as u32 + self.on_way() <= self.low {
            self.replenish(cx, pager);
        }
        let f = self.take(g, vp, 0)?;
        self.spaces[g as usize].gained_frame(f, vp);
        Some(f)
    }

    // ------------------------------------------------------------ saved segments

    /// A frame for a saved segment's page (owned by `segments`: not on any
    /// user's frame owned list, so the demand scan passes it over; its
    /// owner decides when it is released). Runs the demand scan first when the
    /// available list is low, as [`Storage::get_frame`] does (the page-outs
    /// are left in [`Storage::pageouts`]). `None` when no frame can be had now.
    pub fn take_segment_frame(&mut self, cx: &mut Cx, pager: &mut impl Pager) -> Option<u32> {
        if self.avail_len() as u32 + self.on_way() <= self.low {
            self.replenish(cx, pager);
        }
        let f = self.take(SEG_OWNER, 0, 0)?;
        self.seg_frames += 1;
        Some(f)
    }

    /// A saved segment's frame `f` goes back to the available list.
    pub fn free_segment_frame(&mut self, f: u32) {
        debug_assert_eq!(self.frames[f as usize].owner, SEG_OWNER);
        self.seg_frames -= 1;
        self.frames[f as usize].owner = FREE;
        self.flags[f as usize] = 0;
        self.avail.push(f);
        if let Some(v) = self.waiters.pop_front() {
            self.woken.push(v);
        }
    }

    /// Frames holding saved-segment pages.
    pub fn segment_frames(&self) -> u32 {
        self.seg_frames
    }

    /// Return a frame to the available list and wake a frame waiter.
    fn free_frame(&mut self, f: u32) {
        let fi = f as usize;
        let g = self.frames[fi].owner;
        if g != FREE {
            self.spaces[g as usize].resident -= 1;
        }
        self.age_freed(f);
        self.frames[fi].owner = FREE;
        self.flags[fi] = 0;
        self.avail.push(f);
        if let Some(v) = self.waiters.pop_front() {
            self.woken.push(v);
        }
    }

    /// Virtual CPU `v` on logical CPU `cpu` waits for a frame.
    pub fn wait_for_frame(&mut self, cpu: u16, v: u32) {
        self.c.frame_waits += 1;
        self.by_cpu[cpu as usize].frame_waits += 1;
        self.waiters.push_back(v);
    }

    /// Frame waiters woken by freed frames since the last drain, in order.
    #[inline]
    pub fn drain_woken(&mut self) -> std::vec::Drain<'_, u32> {
        self.woken.drain(..)
    }

    // ------------------------------------------------------------ minidisk cache

    /// Lend up to `n` frames to the minidisk cache: only frames above the
    /// available list's high threshold, so the cache never causes a demand
    /// scan. Returns how many.
    pub fn lend_mdc(&mut self, n: u64) -> u64 {
        // Frames never taken count as available (the frame table is lazy):
        // freed frames go first, then never-taken ones, as `take` hands them.
        let avail = self.avail_len() as u64;
        let on_way = avail + self.on_way() as u64;
        let k = n.min(on_way.saturating_sub(self.high as u64)).min(avail);
        for _ in 0..k {
            let f = match self.avail.pop() {
                Some(f) => {
                    self.frames[f as usize].owner = MDC_OWNER;
                    f
                }
                None => {
                    let mdc = Frame {
                        owner: MDC_OWNER,
                        vpage: 0,
                    };
                    self.take_fresh(mdc, 0).expect("counted")
                }
            };
            self.mdc_frames.push(f);
        }
        k
    }

    /// The minidisk cache gives back `n` frames.
    pub fn unlend_mdc(&mut self, n: u64) {
        for _ in 0..n {
            let f = self.mdc_frames.pop().expect("frames lent to the cache");
            self.frames[f as usize].owner = FREE;
            self.flags[f as usize] = 0;
            self.avail.push(f);
            if let Some(v) = self.waiters.pop_front() {
                self.woken.push(v);
            }
        }
    }

    /// Lend up to `n` XSTOR blocks to the minidisk cache (above the
    /// migration threshold). Returns how many.
    pub fn lend_mdc_xstor(&mut self, n: u64) -> u64 {
        let k = n.min((self.xs.free.len() as u64).saturating_sub(self.xs.low as u64));
        for _ in 0..k {
            let b = self.xs.free.pop().expect("counted");
            self.xs.owner[b as usize] = MDC_OWNER;
            self.mdc_blocks.push(b);
        }
        k
    }

    /// The minidisk cache gives back `n` XSTOR blocks.
    pub fn unlend_mdc_xstor(&mut self, n: u64) {
        for _ in 0..n {
            let b = self.mdc_blocks.pop().expect("blocks lent to the cache");
            self.xs.owner[b as usize] = FREE;
            self.xs.free.push(b);
        }
    }

    /// Frames and XSTOR blocks lent to the minidisk cache.
    pub fn mdc_lent(&self) -> (u64, u64) {
        (self.mdc_frames.len() as u64, self.mdc_blocks.len() as u64)
    }

    /// Frames on the available list now.
    #[inline]
    pub fn frames_free(&self) -> bool {
        self.avail_len() > 0
    }

    /// The available list (with the frames on their way to it) is at or
    /// below its low threshold: the next frame taken runs the demand scan.
    #[inline]
    pub fn short_of_frames(&self) -> bool {
        self.avail_len() as u32 + self.on_way() <= self.low
    }

    /// The page-outs the last demand scan chose (see [`Storage::clear_pageouts`]).
    #[inline]
    pub fn pageouts(&self) -> &PageOuts {
        &self.pageouts
    }

    /// The page-outs have been handed to paging.
    pub fn clear_pageouts(&mut self) {
        self.pageouts.clear();
    }

    /// A frame for page (g, vp) of a block read `rd` when [`can_take_unscanned`]
    /// said frames are there to spare: locked, the page marked being read.
    ///
    /// [`can_take_unscanned`]: Storage::can_take_unscanned
    #[inline(always)]
    pub fn take_read_frame(&mut self, g: u32, vp: u32, rd: u32) -> u32 {
        let f = self.take(g, vp, F_LOCK).expect("frames were counted");
        let sp = &mut self.spaces[g as usize];
        sp.gained_frame(f, vp);
        sp.pt[vp as usize].e = pte(T_READIN, rd);
        f
    }

    /// Page (g, vp), given frame `f` by [`Storage::get_frame`], is being read
    /// by block read `rd`: the frame is locked.
    #[inline]
    pub fn mark_reading(&mut self, g: u32, vp: u32, f: u32, rd: u32) {
        self.flags[f as usize] = F_LOCK;
        self.spaces[g as usize].pt[vp as usize].e = pte(T_READIN, rd);
    }

    // ------------------------------------------------------------ page states

    /// Guest `g`'s page table, lent to the burst loop (a backdoor, for speed).
    /// Contract: the borrower may only set [`P_REF`] on resident entries;
    /// every other change of state goes through a `Storage` method.
    #[inline(always)]
    pub fn table_mut(&mut self, g: u32) -> &mut [PageEntry] {
        &mut self.spaces[g as usize].pt
    }

    /// Guest `g`'s page table, read only.
    #[inline(always)]
    pub fn table(&self, g: u32) -> &[PageEntry] {
        &self.spaces[g as usize].pt
    }

    #[inline(always)]
    pub fn entry(&self, g: u32, vp: u32) -> PageEntry {
        self.spaces[g as usize].pt[vp as usize]
    }

    /// Pages of guest `g` with a copy on DASD.
    #[inline]
    pub fn dasd_pages(&self, g: u32) -> u32 {
        self.spaces[g as usize].dasd
    }

    /// First reference to page (g, vp), given frame `f`: resident, referenced
    /// and changed.
    #[inline]
    pub fn first_touch(&mut self, g: u32, vp: u32, f: u32) {
        self.spaces[g as usize].pt[vp as usize].e = pte(T_RES, f) | P_REF | P_CHG;
        self.by_guest[g as usize].first_touch += 1;
        self.c.first_touch += 1;
    }

    /// First change of resident page (g, vp): its DASD copy, if any, is no
    /// longer valid.
    #[inline]
    pub fn first_change(&mut self, pager: &mut impl Pager, g: u32, vp: u32) {
        let pt = &mut self.spaces[g as usize].pt[vp as usize];
        pt.e |= P_CHG;
        if pt.blk != NO_BLOCK {
            self.release_slot(pager, g, vp);
        }
    }

    /// Guest `g` faulted on a page that has content (in XSTOR, on DASD, being
    /// read or written).
    #[inline]
    pub fn count_fault(&mut self, g: u32) {
        self.by_guest[g as usize].faults += 1;
    }

    /// Bring XSTOR page (g, vp) into frame `f` (synchronous page move).
    pub fn xstor_in(&mut self, cx: &mut Cx, g: u32, vp: u32, f: u32) {
        let gi = g as usize;
        let sp = &mut self.spaces[gi];
        let e = sp.pt[vp as usize].e;
        let b = idx(e);
        self.xs.release(b);
        sp.xstor -= 1;
        // The page has no other copy now: mark it changed so a steal writes it.
        sp.pt[vp as usize].e = pte(T_RES, f) | P_REF | P_CHG;
        self.by_guest[gi].x_to_ms += 1;
        self.c.xstor_in += 1;
        self.by_cpu[cx.cpu as usize].xs_in += 1;
    }

    /// Page (g, vp), stolen and being written out, is referenced again: it
    /// stays in its frame (no I/O needed); the write goes on.
    #[inline]
    pub fn reclaim(&mut self, g: u32, vp: u32) {
        let sp = &mut self.spaces[g as usize];
        let f = sp.pt[vp as usize].blk;
        sp.pt[vp as usize] = PageEntry {
            e: pte(T_RES, f) | P_REF,
            blk: NO_BLOCK,
        };
        sp.ufo.push_back((f, vp));
        self.age_reclaimed(f);
    }

    /// Page (g, vp) of block read `rd` arrived in frame `f`: resident,
    /// unreferenced (the faulting virtual CPU references its page when it runs
    /// again), the frame unlocked. Returns whether guest `g` is logged on (if
    /// not, the caller discards the page).
    #[inline]
    pub fn read_in(&mut self, g: u32, vp: u32, f: u32, rd: u32) -> bool {
        let sp = &mut self.spaces[g as usize];
        let pt = &mut sp.pt[vp as usize];
        debug_assert!(tag(pt.e) == T_READIN && idx(pt.e) == rd);
        let _ = rd;
        pt.e = pte(T_RES, f);
        self.flags[f as usize] = 0;
        if sp.cat == Cat::Shared {
            sp.unref.push_back((f, vp));
        }
        sp.on
    }

    /// Page (g, vp) on DASD in block `b` without an I/O (a guest that starts
    /// paged out).
    pub fn paged_out(&mut self, g: u32, vp: u32, b: u32) {
        let pt = &mut self.spaces[g as usize].pt[vp as usize];
        pt.e = pte(T_DASD, 0);
        pt.blk = b;
    }

    /// `n` more pages of guest `g` have a DASD copy.
    pub fn add_dasd_pages(&mut self, g: u32, n: u32) {
        self.spaces[g as usize].dasd_pages_add(n as i32);
    }

    /// Whether page (g, vp), stolen for a page-out, still needs its write
    /// (it was not reclaimed while the write waited).
    #[inline]
    pub fn pageout_needed(&self, g: u32, vp: u32) -> bool {
        tag(self.spaces[g as usize].pt[vp as usize].e) == T_PAGEOUT
    }

    /// Page (g, vp) was reclaimed while its page-out waited for a volume: no
    /// write is needed; its frame (locked for the write) is unlocked.
    pub fn drop_pageout(&mut self, g: u32, vp: u32) {
        self.pageout_frames -= 1;
        let e = self.spaces[g as usize].pt[vp as usize].e;
        debug_assert_eq!(tag(e), T_RES);
        self.age_write_ended(idx(e));
        self.flags[idx(e) as usize] &= !F_LOCK;
    }

    /// A page-out write of `n` pages completed (the caller then reports each
    /// page through [`Storage::written_out`]).
    pub fn pageouts_done(&mut self, n: u32) {
        self.pageout_frames -= n;
    }

    /// Page (g, vp) was written to block `block`. A page still stolen leaves
    /// its frame (freed) for DASD; one reclaimed during the write keeps its
    /// frame and, if unchanged since, the copy. Returns whether the copy in
    /// `block` is kept.
    pub fn written_out(&mut self, g: u32, vp: u32, block: u32) -> bool {
        let sp = &mut self.spaces[g as usize];
        let e = sp.pt[vp as usize].e;
        match tag(e) {
            T_PAGEOUT => {
                let f = sp.pt[vp as usize].blk;
                if self.age_write_ended(f) {
                    // An early write (Era C): the page stays on the aging
                    // list, resident and unchanged, with its DASD copy.
                    let sp = &mut self.spaces[g as usize];
                    sp.pt[vp as usize] = PageEntry {
                        e: pte(T_RES, f),
                        blk: block,
                    };
                    sp.dasd_pages_add(1);
                    self.flags[f as usize] &= !F_LOCK;
                    return true;
                }
                let sp = &mut self.spaces[g as usize];
                sp.pt[vp as usize].e = pte(T_DASD, 0);
                sp.pt[vp as usize].blk = block;
                sp.dasd_pages_add(1);
                self.free_frame(f);
                true
            }
            T_RES => {
                // Reclaimed during the write: the frame stays; the copy is good
                // unless the page was changed again.
                let f = idx(e);
                self.age_write_ended(f);
                let sp = &mut self.spaces[g as usize];
                self.flags[f as usize] &= !F_LOCK;
                if e & P_CHG == 0 {
                    sp.pt[vp as usize].blk = block;
                    sp.dasd_pages_add(1);
                    true
                } else {
                    false
                }
            }
            _ => false,
        }
    }

    /// Page (g, vp) was written to block `block` by migration. A page still in
    /// XSTOR now lives on DASD; one read back (or discarded) meanwhile does
    /// not need the copy. Returns whether the copy is kept.
    pub fn migrated_out(&mut self, g: u32, vp: u32, block: u32) -> bool {
        self.xs.migrating = self.xs.migrating.saturating_sub(1);
        let sp = &mut self.spaces[g as usize];
        let e = sp.pt[vp as usize].e;
        if tag(e) != T_XS {
            return false;
        }
        self.xs.release(idx(e));
        sp.xstor -= 1;
        sp.pt[vp as usize].e = pte(T_DASD, 0);
        sp.pt[vp as usize].blk = block;
        sp.dasd_pages_add(1);
        true
    }

    /// Forget page `vp` of a guest that logged off: free its frame, XSTOR
    /// block and slot. A page with I/O in flight (being read in, being paged
    /// out, or reclaimed during its page-out) is left to the I/O's completion,
    /// which calls this again once the guest is logged off.
    pub fn discard(&mut self, pager: &mut impl Pager, g: u32, vp: u32) {
        let gi = g as usize;
        let e = self.spaces[gi].pt[vp as usize].e;
        match tag(e) {
            T_RES => {
                let f = idx(e);
                if self.flags[f as usize] & F_LOCK != 0 {
                    return;
                }
                self.free_frame(f);
            }
            T_XS => {
                self.xs.release(idx(e));
                self.spaces[gi].xstor -= 1;
            }
            T_READIN | T_PAGEOUT => return,
            _ => {}
        }
        self.release_slot(pager, g, vp);
        self.spaces[gi].pt[vp as usize].e = pte(T_NONE, 0);
    }

    /// The DASD copy of a page is no longer valid: release its slot.
    fn release_slot(&mut self, pager: &mut impl Pager, g: u32, vp: u32) {
        let sp = &mut self.spaces[g as usize];
        let b = sp.pt[vp as usize].blk;
        if b == NO_BLOCK {
            return;
        }
        sp.pt[vp as usize].blk = NO_BLOCK;
        sp.dasd_pages_add(-1);
        pager.release(b, g, vp);
    }

    // ------------------------------------------------------------ guests

    /// Guest `g` logs on: an empty address space, dormant.
    pub fn create_space(&mut self, g: u32) {
        let sp = &mut self.spaces[g as usize];
        sp.pt = vec![
            PageEntry {
                e: pte(T_NONE, 0),
                blk: NO_BLOCK
            };
            sp.vpages as usize
        ];
        sp.on = true;
        sp.cat = Cat::Dormant;
        sp.dormant_ticks = 0;
        sp.unref.clear();
    }

    /// A system-owned shared address space of `vpages` pages (a VDISK's,
    /// for the `vdisk` component): empty, in the demand scan's shared
    /// category. Its number follows the guests' and earlier spaces'; it is
    /// used like a guest's (page table, faults, steals, page-outs).
    pub fn create_system_space(&mut self, vpages: u32) -> u32 {
        let g = self.spaces.len() as u32;
        self.spaces.push(Space::new(vpages, Cat::Shared));
        self.by_guest.push(GuestStor::default());
        self.pageouts.batch_of.push(u32::MAX);
        self.create_space(g);
        self.spaces[g as usize].cat = Cat::Shared;
        self.has_shared = true;
        g
    }

    /// System space `g` holds a saved segment's read-only copy whose pages
    /// are all on spool (the `segments` component's rule,
    /// `segments::all_spool_backed`): a stolen page of it goes to XSTOR
    /// while XSTOR has room and is otherwise dropped, as is its XSTOR block
    /// when migration picks it; the next reference reads it from spool.
    pub fn set_spool_backed(&mut self, g: u32) {
        self.spaces[g as usize].spool = true;
    }

    /// Pages of spool-backed spaces dropped instead of written to paging
    /// DASD (stolen with XSTOR full, or their XSTOR block migrated).
    pub fn spool_drops(&self) -> u64 {
        self.spool_dropped
    }

    /// System space `g` is destroyed: as a guest's logoff, its pages are
    /// then discarded one by one (those with I/O in flight when it
    /// completes); its number is not reused.
    pub fn destroy_system_space(&mut self, g: u32) {
        self.logoff(g);
        self.spaces[g as usize].cat = Cat::Shared;
    }

    /// Address spaces (guests' and system-owned).
    pub fn spaces(&self) -> u32 {
        self.spaces.len() as u32
    }

    /// Guest `g` logs off (its pages are then discarded one by one).
    pub fn logoff(&mut self, g: u32) {
        self.unpin_all(g);
        let sp = &mut self.spaces[g as usize];
        sp.on = false;
        sp.cat = Cat::Dormant;
    }

    /// Guest `g`'s working-set estimate is forgotten (after logoff).
    pub fn clear_wss(&mut self, g: u32) {
        let sp = &mut self.spaces[g as usize];
        sp.wss = 0.0;
        sp.wss_dir = 0;
        sp.protect = 0.0;
    }

    #[inline]
    pub fn logged_on(&self, g: u32) -> bool {
        self.spaces[g as usize].on
    }

    /// Pages of guest `g`'s virtual storage.
    pub fn vpages(&self, g: u32) -> u32 {
        self.spaces[g as usize].vpages
    }

    /// The scheduler moved guest `g` to category `cat`.
    #[inline]
    pub fn set_category(&mut self, g: u32, cat: Cat) {
        let was = self.spaces[g as usize].cat;
        if was == Cat::Dispatch && cat != Cat::Dispatch {
            // Dropped from the dispatch list: project the working set.
            self.project_wss(g);
        }
        let sp = &mut self.spaces[g as usize];
        if was != Cat::Dispatch && cat == Cat::Dispatch {
            sp.begin_stay();
        }
        sp.cat = cat;
        if cat != Cat::Dormant {
            sp.dormant_ticks = 0;
        }
    }

    /// Project guest `g`'s working set at the end of a stay in the dispatch
    /// list (a drop, or the end of its elapsed time slice; M8, spec topic 2)
    /// and begin the next stay. The pages used in the stay: its resident
    /// pages now, or the pages it brought in during the stay if more (under
    /// overcommitment its resident count shrinks as frames are stolen, and
    /// the pages it had to bring back are what it needed), bounded by the
    /// pages it has anywhere. The VM/370 rule: if the trend reversed, the
    /// mean of the previous projection and this stay's pages, else this
    /// stay's pages. (The upper bound, resident at the stay's start plus the
    /// pages brought in, was tried: it counts a light guest's cold pages and
    /// held S1's light guests in the eligible list while the hog ran.)
    pub fn project_wss(&mut self, g: u32) {
        let sp = &mut self.spaces[g as usize];
        let owned = sp.resident as u64 + sp.xstor as u64 + sp.dasd as u64;
        let used = (sp.resident as u64).max(sp.stay_gained as u64).min(owned) as f64;
        let prev = sp.wss;
        let dir = if used > prev {
            1
        } else if used < prev {
            -1
        } else {
            0
        };
        sp.wss = if prev > 0.0 && dir != 0 && sp.wss_dir != 0 && dir != sp.wss_dir {
            0.5 * (prev + used)
        } else {
            used
        };
        if dir != 0 {
            sp.wss_dir = dir;
        }
        sp.begin_stay();
    }

    /// Guest `g`'s working-set estimate.
    #[inline]
    pub fn wss(&self, g: u32) -> f64 {
        self.spaces[g as usize].wss
    }

    /// The storage manager's periodic work ([`TICK`]): the frame demand rate
    /// and the available-list thresholds (working sets are projected by the
    /// scheduler, [`Storage::project_wss`]). Its own clock, not the
    /// monitor's: the monitor's sampling rate does not change the system.
    pub fn tick(&mut self) {
        self.update_rate(TICK);
        for sp in &mut self.spaces {
            if sp.on && sp.cat == Cat::Dispatch {
                sp.protect = 0.5 * sp.protect + 0.5 * sp.resident as f64;
            }
            if sp.cat == Cat::Dormant {
                sp.dormant_ticks = sp.dormant_ticks.saturating_add(1);
            }
        }
    }

    /// Dynamic-paging-area frames.
    pub fn dpa(&self) -> u32 {
        self.total - self.fixed
    }

    /// Low/high available-list thresholds: 0.5 s and 1.5 s of recent demand,
    /// bounded to a sensible share of the DPA (spec topic 1, \[E\]).
    fn set_thresholds(&mut self, dpa: u32) {
        let d = dpa as f64;
        let low = (self.rate * 0.5).clamp(d * 0.0005, d * 0.05);
        let high = (self.rate * 1.5).clamp(low * 1.5, d * 0.1);
        self.low = low.max(16.0) as u32;
        self.high = high.max(32.0) as u32;
    }

    /// Update the demand rate over an elapsed window.
    fn update_rate(&mut self, window: Ns) {
        let r = self.req_window as f64 / (window as f64 / 1e9);
        self.rate = 0.5 * self.rate + 0.5 * r;
        self.req_window = 0;
        let dpa = self.dpa();
        self.set_thresholds(dpa);
    }

    // ------------------------------------------------------------ samples

    /// Real storage and XSTOR now.
    pub fn sample(&self, now: Ns) -> StorageSample {
        StorageSample {
            fixed: self.fixed,
            dpa: self.dpa(),
            avail: self.avail_len() as u32,
            low: self.low,
            high: self.high,
            c: self.c,
            xs_total: self.xs.total,
            xs_free: self.xs.free.len() as u32,
            xs_low: self.xs.low,
            xs_mean_age: self.xs.mean_age(now),
        }
    }

    /// Storage work by logical CPU.
    pub fn by_cpu(&self) -> &[StorCpu] {
        &self.by_cpu
    }

    /// Guest `g`'s storage counters.
    pub fn guest(&self, g: u32) -> GuestStor {
        self.by_guest[g as usize]
    }

    /// Guest `g`'s address space.
    pub fn space(&self, g: u32) -> SpaceSample {
        let sp = &self.spaces[g as usize];
        SpaceSample {
            vpages: sp.vpages,
            resident: sp.resident,
            wss: sp.wss,
            xstor: sp.xstor,
            dasd: sp.dasd,
            pinned: sp.pinned,
        }
    }

    /// Internal state for `ZTWIN_DEBUG`: XSTOR pages migrating, the XSTOR FIFO,
    /// frame waiters.
    pub fn debug_state(&self) -> (u32, usize, usize) {
        (self.xs.migrating, self.xs.fifo.len(), self.waiters.len())
    }

    /// Consistency of real storage, XSTOR and the page tables: every frame
    /// is free (and on the available list once) or owned by a resident page
    /// (or one being read or paged out) of its owner, whose frame count
    /// matches; every XSTOR block is free (once) or owned by the page that
    /// points to it, and back; each guest's XSTOR count is its pages there.
    #[cfg(any(test, debug_assertions))]
    pub fn check(&self) {
        assert!(
            self.frames.len() >= self.fresh as usize
                && self.frames.len()
                    <= ((self.fresh as usize).max(self.fixed as usize) + FRAME_CHUNK)
                        .max(Self::first_frames(self.total, self.fixed))
                && self.flags.len() == self.frames.len(),
            "frames materialised: {} for {} taken",
            self.frames.len(),
            self.fresh
        );
        for f in self.fresh as usize..self.frames.len() {
            assert!(
                self.frames[f].owner == FREE && self.flags[f] == 0,
                "never-taken frame {f} is in use"
            );
        }
        let mut on_list = vec![false; self.fresh as usize];
        for &f in &self.avail {
            assert!(f < self.fresh, "never-taken frame {f} on the freed list");
            assert!(
                !on_list[f as usize],
                "frame {f} is on the available list twice"
            );
            on_list[f as usize] = true;
            assert_eq!(
                self.frames[f as usize].owner, FREE,
                "available frame {f} has an owner"
            );
        }
        let mut owned = vec![0u32; self.spaces.len()];
        let mut segs = 0u32;
        let mut mdc = 0usize;
        for (f, fr) in self.frames.iter().enumerate() {
            if fr.owner == FREE {
                continue;
            }
            if fr.owner == SEG_OWNER {
                assert!(!on_list[f], "saved-segment frame {f} is on the list");
                segs += 1;
                continue;
            }
            if fr.owner == MDC_OWNER {
                assert!(!on_list[f], "frame {f} lent to the cache is on the list");
                mdc += 1;
                continue;
            }
            owned[fr.owner as usize] += 1;
            let pe = self.spaces[fr.owner as usize].pt[fr.vpage as usize];
            let holds = match tag(pe.e) {
                T_RES => idx(pe.e) == f as u32,
                T_PAGEOUT => pe.blk == f as u32,
                T_READIN => self.flags[f] & F_LOCK != 0,
                _ => false,
            };
            assert!(
                holds,
                "frame {f} owned by ({}, {}) which is elsewhere",
                fr.owner, fr.vpage
            );
        }
        assert_eq!(mdc, self.mdc_frames.len(), "frames lent to the cache");
        for (g, sp) in self.spaces.iter().enumerate() {
            assert_eq!(owned[g], sp.resident, "guest {g}: frames owned vs resident");
        }
        assert_eq!(segs, self.seg_frames, "saved-segment frames");
        let xs = &self.xs;
        let mut free = vec![false; xs.total as usize];
        for &b in &xs.free {
            assert!(!free[b as usize], "XSTOR block {b} is free twice");
            free[b as usize] = true;
            assert_eq!(
                xs.owner[b as usize], FREE,
                "free XSTOR block {b} has an owner"
            );
        }
        let mut in_xs = vec![0u32; self.spaces.len()];
        for (b, &o) in xs.owner.iter().enumerate() {
            if o == FREE {
                assert!(free[b], "XSTOR block {b} has no owner and is not free");
                continue;
            }
            if o == MDC_OWNER {
                assert!(
                    self.mdc_blocks.contains(&(b as u32)),
                    "XSTOR block {b} lent to nobody"
                );
                continue;
            }
            let e = self.spaces[o as usize].pt[xs.vpage[b] as usize].e;
            assert_eq!((tag(e), idx(e)), (T_XS, b as u32), "XSTOR block {b}");
            in_xs[o as usize] += 1;
        }
        for (g, sp) in self.spaces.iter().enumerate() {
            let n = sp.pt.iter().filter(|pe| tag(pe.e) == T_XS).count() as u32;
            assert_eq!(n, in_xs[g], "guest {g}: pages in XSTOR vs blocks owned");
            assert_eq!(n, sp.xstor, "guest {g}: XSTOR count");
        }
        self.check_agelist();
        self.check_pinned();
    }
}
