//! Linux memory inside one guest, page by page: the guest's real pages
//! (frames, as Linux sees its storage) are kernel, free, page cache or
//! anonymous; a process's anonymous page is in a frame or in a swap slot,
//! never both.
//!
//! Allocation takes a free frame. Below the `low` watermark kswapd is woken
//! and reclaims until `high` (its scans count in `pgscank`); an allocation
//! that finds free memory below `min` reclaims itself first (direct reclaim,
//! `pgscand`). Reclaim is a clock over the frames with a referenced bit per
//! frame (second chance, Linux's active/inactive lists reduced to one bit):
//! an unreferenced cache page is dropped (clean: no I/O), an unreferenced
//! anonymous page is written to the swap device of highest priority with a
//! free slot (`pswpout`) when there is one, otherwise kept. A touch of a
//! swapped page is a major fault: a frame is allocated and the page read
//! back (`pswpin`, `pgmajfault`), and its slot freed. A first touch is a minor
//! fault (`pgfault` counts both). Watermarks as Linux sizes them:
//! `min_free_kbytes` = sqrt(16 × KB of memory) clamped to 128 KB .. 64 MB,
//! `low` = min × 5/4, `high` = min × 3/2.
//!
//! The model does the bookkeeping and says what each operation did
//! ([`Effects`]; the frames swapped out, with device and slot, queued on
//! [`Mem::out`]; the slot a major fault reads back). The engine turns those
//! into CP references and I/O (`model/workload/linux.rs`): a frame queued
//! for swap-out is read by the swap write, so CP must have it resident
//! first (double paging). Kswapd runs at the allocation that wakes it (its
//! work is not spread over time).

/// What a frame holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Frame {
    Kernel,
    Free,
    Cache,
    Anon,
}

const SWAPPED: u32 = 1 << 31;
const NONE: u32 = u32::MAX;

/// A page Linux swapped out whose write is still to be done: the frame it
/// was in (already free in Linux's view) and the slot of device `dev` (its
/// place in priority order, [`Mem::swaps`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwapOut {
    pub dev: u16,
    pub slot: u32,
    pub frame: u32,
}

/// One swap device as the model uses it.
#[derive(Clone, Debug)]
pub struct Swap {
    pub priority: i32,
    /// Its place in `swapon` order (the `swap` list).
    pub tag: usize,
    /// Slot owner: the anonymous page in it, or `NONE`.
    owner: Vec<u32>,
    free: Vec<u32>,
    pub pages_out: u64,
    pub pages_in: u64,
}

impl Swap {
    pub fn slots(&self) -> usize {
        self.owner.len()
    }
    pub fn used(&self) -> usize {
        self.owner.len() - self.free.len()
    }
}

/// Cumulative counters, as `/proc/vmstat` keeps them (pages unless noted).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub pgfault: u64,
    pub pgmajfault: u64,
    pub pswpin: u64,
    pub pswpout: u64,
    /// KB read from and written to block devices (file reads, swap).
    pub pgpgin_kb: u64,
    pub pgpgout_kb: u64,
    pub pgalloc: u64,
    pub pgscank: u64,
    pub pgscand: u64,
    pub pgsteal: u64,
    pub kswapd_wakeups: u64,
}

/// What one operation did besides the bookkeeping.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Effects {
    pub swapped_out: u32,
    pub swapped_in: u32,
    pub dropped: u32,
    /// No memory could be reclaimed: the allocation failed (the OOM case).
    pub oom: bool,
    /// A major fault: the device (priority order) and slot read back.
    pub read: Option<(u16, u32)>,
    /// Frames the reclaim scanned.
    pub scanned: u64,
}

/// A guest's Linux memory.
#[derive(Clone, Debug)]
pub struct Mem {
    frames: Vec<Frame>,
    referenced: Vec<bool>,
    /// Owner of a frame: the anonymous page or file page in it (`NONE`).
    frame_owner: Vec<u32>,
    free: Vec<u32>,
    /// Anonymous page -> frame, or `SWAPPED | device << 24 | slot`... kept
    /// as two arrays for clarity: where it is and which slot.
    anon_frame: Vec<u32>,
    anon_slot: Vec<(u16, u32)>,
    /// File page -> frame holding it in the page cache (`NONE`).
    cache_frame: Vec<u32>,
    swap: Vec<Swap>,
    hand: usize,
    kernel: usize,
    /// Anonymous pages in memory and page-cache pages (kept as they change).
    n_anon: u64,
    n_cache: u64,
    pub wmark_min: usize,
    pub wmark_low: usize,
    pub wmark_high: usize,
    pub c: Counters,
    /// Swap-outs whose writes the engine has still to do, oldest first.
    pub out: std::collections::VecDeque<SwapOut>,
}

/// Counts by state (pages).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub total: u64,
    pub kernel: u64,
    pub free: u64,
    pub cache: u64,
    pub anon: u64,
    pub swapped: u64,
    pub swap_total: u64,
}

impl Mem {
    /// Memory of `total` pages, the first `kernel` of them the kernel's;
    /// processes with `anon_pages` anonymous pages and files of `file_pages`
    /// pages; swap devices of (priority, pages), in `swapon` order.
    pub fn new(
        total: usize,
        kernel: usize,
        anon_pages: usize,
        file_pages: usize,
        swaps: &[(i32, usize)],
    ) -> Mem {
        let mut frames = vec![Frame::Free; total];
        for f in frames.iter_mut().take(kernel) {
            *f = Frame::Kernel;
        }
        // Free frames are taken from the low end first (popped from the back).
        let free: Vec<u32> = (kernel as u32..total as u32).rev().collect();
        let kb = total as f64 * 4.0;
        let min_kb = (16.0 * kb).sqrt().clamp(128.0, 65536.0);
        let wmark_min = (min_kb / 4.0).ceil() as usize;
        let mut swap: Vec<Swap> = swaps
            .iter()
            .enumerate()
            .map(|(tag, &(priority, n))| Swap {
                priority,
                tag,
                owner: vec![NONE; n],
                free: (0..n as u32).rev().collect(),
                pages_out: 0,
                pages_in: 0,
            })
            .collect();
        // Highest priority first; equal priorities keep swapon order.
        swap.sort_by_key(|s| std::cmp::Reverse(s.priority));
        Mem {
            frames,
            referenced: vec![false; total],
            frame_owner: vec![NONE; total],
            free,
            anon_frame: vec![NONE; anon_pages],
            anon_slot: vec![(0, 0); anon_pages],
            cache_frame: vec![NONE; file_pages],
            swap,
            hand: kernel,
            kernel,
            n_anon: 0,
            n_cache: 0,
            wmark_min,
            wmark_low: wmark_min * 5 / 4,
            wmark_high: wmark_min * 3 / 2,
            c: Counters::default(),
            out: std::collections::VecDeque::new(),
        }
    }

    /// `swapon` of device `tag` failed (its device does not exist): the
    /// device takes no pages. Only before anything was swapped to it.
    pub fn disable_swap(&mut self, tag: usize) {
        if let Some(s) = self.swap.iter_mut().find(|s| s.tag == tag) {
            if s.used() == 0 {
                s.owner.clear();
                s.free.clear();
            }
        }
    }

    /// Pages of memory.
    pub fn total(&self) -> u64 {
        self.frames.len() as u64
    }

    pub fn swaps(&self) -> &[Swap] {
        &self.swap
    }

    /// The frame anonymous page `p` is in, if it is in memory.
    #[inline]
    pub fn frame_of(&self, p: u32) -> Option<u32> {
        let f = self.anon_frame[p as usize];
        (f != NONE && f & SWAPPED == 0).then_some(f)
    }

    /// The frame file page `p` is cached in, if it is.
    #[inline]
    pub fn cached(&self, p: u32) -> Option<u32> {
        let f = self.cache_frame[p as usize];
        (f != NONE).then_some(f)
    }

    /// Frame `f` was referenced (a hit: no fault).
    #[inline]
    pub fn reference(&mut self, f: u32) {
        self.referenced[f as usize] = true;
    }

    pub fn usage(&self) -> Usage {
        let mut u = Usage {
            total: self.frames.len() as u64,
            kernel: self.kernel as u64,
            free: self.free.len() as u64,
            ..Usage::default()
        };
        for s in &self.swap {
            u.swapped += s.used() as u64;
            u.swap_total += s.slots() as u64;
        }
        u.anon = self.n_anon;
        u.cache = self.n_cache;
        u
    }

    /// Touch anonymous page `p` (a write when `write`; the model keeps no
    /// dirty state apart: an anonymous page is always written to swap).
    pub fn touch_anon(&mut self, p: u32) -> Effects {
        let mut e = Effects::default();
        let f = self.anon_frame[p as usize];
        if f != NONE && f & SWAPPED == 0 {
            self.referenced[f as usize] = true;
            return e;
        }
        self.c.pgfault += 1;
        let Some(frame) = self.alloc(&mut e) else {
            return e;
        };
        if f != NONE {
            // Swapped: read it back and free its slot.
            let (d, slot) = self.anon_slot[p as usize];
            let s = &mut self.swap[d as usize];
            s.owner[slot as usize] = NONE;
            s.free.push(slot);
            s.pages_in += 1;
            self.c.pgmajfault += 1;
            self.c.pswpin += 1;
            self.c.pgpgin_kb += 4;
            e.swapped_in += 1;
            e.read = Some((d, slot));
        }
        self.frames[frame as usize] = Frame::Anon;
        self.n_anon += 1;
        self.frame_owner[frame as usize] = p;
        self.referenced[frame as usize] = true;
        self.anon_frame[p as usize] = frame;
        e
    }

    /// Read file page `p` through the page cache: a miss allocates a frame
    /// and reads the page (a major fault when `mapped`, else a plain read).
    pub fn read_file(&mut self, p: u32, mapped: bool) -> Effects {
        let mut e = Effects::default();
        let f = self.cache_frame[p as usize];
        if f != NONE {
            self.referenced[f as usize] = true;
            return e;
        }
        if mapped {
            self.c.pgfault += 1;
            self.c.pgmajfault += 1;
        }
        let Some(frame) = self.alloc(&mut e) else {
            return e;
        };
        self.c.pgpgin_kb += 4;
        self.frames[frame as usize] = Frame::Cache;
        self.n_cache += 1;
        self.frame_owner[frame as usize] = p;
        self.referenced[frame as usize] = true;
        self.cache_frame[p as usize] = frame;
        e
    }

    /// Write file page `p` (a new page of a file: the page cache takes it,
    /// and writeback writes it to disk).
    pub fn write_file(&mut self, p: u32) -> Effects {
        let mut e = Effects::default();
        let f = self.cache_frame[p as usize];
        if f != NONE {
            self.referenced[f as usize] = true;
            self.c.pgpgout_kb += 4;
            return e;
        }
        let Some(frame) = self.alloc(&mut e) else {
            return e;
        };
        self.c.pgpgout_kb += 4;
        self.frames[frame as usize] = Frame::Cache;
        self.n_cache += 1;
        self.frame_owner[frame as usize] = p;
        self.referenced[frame as usize] = true;
        self.cache_frame[p as usize] = frame;
        e
    }

    /// Process exit or `free()`: anonymous page `p` is released (its frame
    /// goes back to the free list: CP keeps it until it steals it).
    pub fn release_anon(&mut self, p: u32) {
        let f = self.anon_frame[p as usize];
        if f == NONE {
            return;
        }
        if f & SWAPPED != 0 {
            let (d, slot) = self.anon_slot[p as usize];
            let s = &mut self.swap[d as usize];
            s.owner[slot as usize] = NONE;
            s.free.push(slot);
        } else {
            self.put_free(f);
            self.n_anon -= 1;
        }
        self.anon_frame[p as usize] = NONE;
    }

    fn put_free(&mut self, f: u32) {
        self.frames[f as usize] = Frame::Free;
        self.frame_owner[f as usize] = NONE;
        self.referenced[f as usize] = false;
        self.free.push(f);
    }

    /// A free frame, reclaiming first as Linux would.
    fn alloc(&mut self, e: &mut Effects) -> Option<u32> {
        if self.free.len() <= self.wmark_min {
            // Direct reclaim by the allocating process.
            let target = self.wmark_min + 1;
            let scanned = self.reclaim(target, e);
            self.c.pgscand += scanned;
            e.scanned += scanned;
        }
        if self.free.len() <= self.wmark_low {
            self.c.kswapd_wakeups += 1;
            let target = self.wmark_high;
            let scanned = self.reclaim(target, e);
            self.c.pgscank += scanned;
            e.scanned += scanned;
        }
        match self.free.pop() {
            Some(f) => {
                self.c.pgalloc += 1;
                Some(f)
            }
            None => {
                e.oom = true;
                None
            }
        }
    }

    /// Reclaim until `target` frames are free or two sweeps found nothing;
    /// returns the frames scanned.
    fn reclaim(&mut self, target: usize, e: &mut Effects) -> u64 {
        let n = self.frames.len();
        let span = n - self.kernel;
        if span == 0 {
            return 0;
        }
        // Only page cache and anonymous pages with a swap slot to go to can
        // be reclaimed: without either, scanning would find nothing.
        if self.n_cache == 0 && self.swap.iter().all(|s| s.free.is_empty()) {
            return 0;
        }
        let mut scanned = 0u64;
        let mut since_progress = 0usize;
        while self.free.len() < target && since_progress < 2 * span {
            let f = self.hand;
            self.hand = if self.hand + 1 == n {
                self.kernel
            } else {
                self.hand + 1
            };
            scanned += 1;
            since_progress += 1;
            match self.frames[f] {
                Frame::Kernel | Frame::Free => continue,
                _ if self.referenced[f] => {
                    self.referenced[f] = false;
                    continue;
                }
                Frame::Cache => {
                    let p = self.frame_owner[f];
                    self.cache_frame[p as usize] = NONE;
                    self.put_free(f as u32);
                    self.n_cache -= 1;
                    self.c.pgsteal += 1;
                    e.dropped += 1;
                    since_progress = 0;
                }
                Frame::Anon => {
                    let Some(d) = self.swap.iter().position(|s| !s.free.is_empty()) else {
                        continue;
                    };
                    let p = self.frame_owner[f];
                    let s = &mut self.swap[d];
                    let slot = s.free.pop().expect("checked");
                    s.owner[slot as usize] = p;
                    s.pages_out += 1;
                    self.anon_frame[p as usize] = SWAPPED;
                    self.n_anon -= 1;
                    self.anon_slot[p as usize] = (d as u16, slot);
                    self.put_free(f as u32);
                    self.out.push_back(SwapOut {
                        dev: d as u16,
                        slot,
                        frame: f as u32,
                    });
                    self.c.pswpout += 1;
                    self.c.pgpgout_kb += 4;
                    self.c.pgsteal += 1;
                    e.swapped_out += 1;
                    since_progress = 0;
                }
            }
        }
        scanned
    }

    /// The model's invariants (tests): every frame in exactly one state and
    /// its owner pointing back at it; every anonymous page in a frame, in a
    /// slot, or nowhere, never in both; the free list and the swap free lists
    /// exactly the free frames and slots.
    pub fn check(&self) -> Result<(), String> {
        let mut free_seen = vec![false; self.frames.len()];
        for &f in &self.free {
            if self.frames[f as usize] != Frame::Free
                || std::mem::replace(&mut free_seen[f as usize], true)
            {
                return Err(format!("free list holds frame {f} twice or not free"));
            }
        }
        for (f, st) in self.frames.iter().enumerate() {
            let o = self.frame_owner[f];
            match st {
                Frame::Kernel if f >= self.kernel => {
                    return Err(format!("kernel frame {f} outside the kernel"))
                }
                Frame::Free if !free_seen[f] => {
                    return Err(format!("free frame {f} not on the free list"))
                }
                Frame::Anon if self.anon_frame[o as usize] != f as u32 => {
                    return Err(format!("anon frame {f} not owned back"))
                }
                Frame::Cache if self.cache_frame[o as usize] != f as u32 => {
                    return Err(format!("cache frame {f} not owned back"))
                }
                _ => {}
            }
        }
        for (p, &f) in self.anon_frame.iter().enumerate() {
            if f == NONE {
                continue;
            }
            if f & SWAPPED != 0 {
                let (d, slot) = self.anon_slot[p];
                if self.swap[d as usize].owner[slot as usize] != p as u32 {
                    return Err(format!("anon page {p} swapped to a slot it does not own"));
                }
            } else if self.frames[f as usize] != Frame::Anon {
                return Err(format!("anon page {p} in a frame that is not anonymous"));
            }
        }
        for (d, s) in self.swap.iter().enumerate() {
            for (slot, &o) in s.owner.iter().enumerate() {
                if o == NONE {
                    continue;
                }
                let f = self.anon_frame[o as usize];
                if f & SWAPPED == 0 || self.anon_slot[o as usize] != (d as u16, slot as u32) {
                    return Err(format!(
                        "page {o} both in swap and in memory, or its slot mismatched"
                    ));
                }
            }
            if s.free.len() != s.owner.iter().filter(|&&o| o == NONE).count() {
                return Err(format!(
                    "swap device {d}: free list does not match the free slots"
                ));
            }
        }
        for o in &self.out {
            let ok = self
                .swap
                .get(o.dev as usize)
                .is_some_and(|s| (o.slot as usize) < s.slots())
                && (o.frame as usize) < self.frames.len();
            if !ok {
                return Err(format!("swap-out {o:?} names no slot or frame"));
            }
        }
        let u = self.usage();
        // Every live anonymous page is in a frame or in a slot.
        let live = self.anon_frame.iter().filter(|&&f| f != NONE).count() as u64;
        if live != u.anon + u.swapped {
            return Err(format!("{live} anonymous pages live, {u:?}"));
        }
        let anon = self
            .anon_frame
            .iter()
            .filter(|&&f| f != NONE && f & SWAPPED == 0)
            .count() as u64;
        let cache = self.cache_frame.iter().filter(|&&f| f != NONE).count() as u64;
        if (u.anon, u.cache) != (anon, cache) {
            return Err(format!(
                "counts kept {u:?}, counted anon {anon} cache {cache}"
            ));
        }
        if u.kernel + u.free + u.cache + u.anon != u.total {
            return Err(format!("pages not conserved: {u:?}"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn fills_free_then_reclaims_cache_before_swapping() {
        // 4096 pages (16 MB), 1024 kernel, swap of 2048.
        let mut m = Mem::new(4096, 1024, 4096, 4096, &[(0, 2048)]);
        for p in 0..2000 {
            m.read_file(p, false);
        }
        assert_eq!(m.usage().cache, 2000);
        assert_eq!(m.c.pswpout, 0);
        for p in 0..2500 {
            m.touch_anon(p);
        }
        m.check().unwrap();
        let u = m.usage();
        // Cache went first: 3072 usable pages cannot hold 2500 anon and 2000
        // cache; only when cache is nearly gone is anonymous memory swapped.
        assert!(u.cache < 2000 && u.anon > 0, "{u:?}");
        assert!(m.c.pgsteal > 0 && m.c.pgscank > 0);
        assert_eq!(m.c.pgfault, 2500);
    }

    #[test]
    fn swapped_page_touched_again_is_a_major_fault() {
        let mut m = Mem::new(2048, 512, 4096, 0, &[(0, 4096)]);
        for p in 0..3000 {
            m.touch_anon(p);
        }
        assert!(m.c.pswpout > 0);
        let before = m.c.pgmajfault;
        // Page 0 was among the first written out.
        let e = m.touch_anon(0);
        assert_eq!(e.swapped_in, 1);
        assert_eq!(m.c.pgmajfault, before + 1);
        m.check().unwrap();
    }

    #[test]
    fn without_swap_anonymous_memory_stays_and_allocation_fails() {
        let mut m = Mem::new(1024, 256, 2048, 0, &[]);
        let mut oom = 0;
        for p in 0..2048 {
            if m.touch_anon(p).oom {
                oom += 1;
            }
        }
        assert!(oom > 0);
        assert_eq!(m.c.pswpout, 0);
        m.check().unwrap();
    }

    #[test]
    fn higher_priority_device_fills_first() {
        let mut m = Mem::new(1024, 256, 4096, 0, &[(1, 500), (5, 300)]);
        for p in 0..1600 {
            m.touch_anon(p);
        }
        let s = m.swaps();
        assert_eq!(s[0].priority, 5);
        assert_eq!(s[0].used(), 300, "the priority 5 device is full first");
        assert!(s[1].used() > 0);
        m.check().unwrap();
    }

    #[derive(Clone, Debug)]
    enum Op {
        Anon(u32),
        File(u32, bool),
        Release(u32),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0u32..600).prop_map(Op::Anon),
            (0u32..400, any::<bool>()).prop_map(|(p, m)| Op::File(p, m)),
            (0u32..600).prop_map(Op::Release),
        ]
    }

    proptest! {
        /// Pages are conserved across kernel, free, cache and anonymous; no
        /// anonymous page is both in swap and in memory; counters agree.
        #[test]
        fn invariants_hold(
            total in 200usize..700,
            swaps in prop::collection::vec((-2i32..3, 0usize..200), 0..3),
            ops in prop::collection::vec(op(), 1..600),
        ) {
            let mut m = Mem::new(total, 64, 600, 400, &swaps);
            for o in ops {
                match o {
                    Op::Anon(p) => { m.touch_anon(p); }
                    Op::File(p, mapped) => { m.read_file(p, mapped); }
                    Op::Release(p) => m.release_anon(p),
                }
                prop_assert_eq!(m.check(), Ok(()));
            }
            let u = m.usage();
            prop_assert!(u.swapped <= u.swap_total);
            prop_assert!(m.c.pgmajfault <= m.c.pgfault);
            prop_assert!(m.c.pswpin <= m.c.pswpout);
            let out: u64 = m.swaps().iter().map(|s| s.pages_out).sum();
            prop_assert_eq!(out, m.c.pswpout);
        }
    }
}
