//! The thrasher's page-touch loop (a wiring method of [`Model`]): touches
//! resident pages on storage's page-table backdoor with no event and no
//! allocation; resolves faults through storage (first touch, XSTOR, reclaim)
//! and paging (block reads).

use super::params::{Pattern, Touch, Workload};
use super::{jittered, us_f, WorkState};
use crate::core::rng::Rng;
use crate::core::units::Ns;
use crate::model::cpu::{Burst, Outcome};
use crate::model::storage::{
    idx, tag, PageEntry, NO_BLOCK, P_CHG, P_REF, RES, T_DASD, T_NONE, T_PAGEOUT, T_READIN, T_RES,
    T_XS,
};
use crate::model::{prefetch, Cx, Model};

impl Model {
    /// The page-toucher loop: the resident fast path touches pages with no
    /// event and no allocation; faults are resolved inline when CP can do so
    /// synchronously (first touch, XSTOR) and end the burst otherwise.
    /// The prefetching instance of the toucher loop, kept out of line so the
    /// plain instance is compiled exactly as it would be without it.
    #[inline(never)]
    pub(super) fn thrash_ahead<const FILL: bool>(
        &mut self,
        cx: &mut Cx,
        v: u32,
        s: &ThrashSpec,
        budget: Ns,
        b: &mut Burst,
    ) {
        self.thrash::<true, FILL>(cx, v, s, budget, b)
    }

    /// `AHEAD`: prefetch page-table entries ahead of a random toucher (a
    /// separate instance of the loop, so the plain one pays nothing for it).
    /// `FILL`: the guest fills its storage (`s.fill_pages > 0`); without a
    /// fill, every page touched is in the area and no fill write is ever due,
    /// so that instance of the loop leaves out the fill's per-touch checks.
    pub(super) fn thrash<const AHEAD: bool, const FILL: bool>(
        &mut self,
        cx: &mut Cx,
        v: u32,
        s: &ThrashSpec,
        budget: Ns,
        b: &mut Burst,
    ) {
        let vi = v as usize;
        let g = self.work.vcpus[vi].guest;
        let WorkState::Thrasher {
            mut pos,
            mut touches,
            mut prefill_left,
            mut fill,
        } = self.work.vcpus[vi].work.clone()
        else {
            unreachable!()
        };
        fill.due(s, cx.now());
        let mut rng = std::mem::replace(&mut self.work.vcpus[vi].rng, Rng::PLACEHOLDER);
        let mut cur = match self.work.vcpus[vi].pending_page.take() {
            Some(p) => p,
            None => match fill.take(s, self.st.table(g)) {
                Some(p) => p,
                None => next_page(s, &mut pos, &mut rng, prefill_left > 0),
            },
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
        let blocks_on = ahead_on && self.st.dasd_pages(g) > 0;
        let mut ahead = Rng::PLACEHOLDER;
        // Pages LOOKAHEAD + 1 .. 2 x LOOKAHEAD ahead, oldest at `ring_at`.
        let mut ring = [0u64; LOOKAHEAD];
        let mut ring_at = 0;
        if ahead_on {
            ahead = rng.clone();
            for k in 0..2 * LOOKAHEAD {
                let p = next_page(s, &mut 0, &mut ahead, false);
                prefetch(self.st.table(g), p as usize);
                if k >= LOOKAHEAD {
                    ring[k - LOOKAHEAD] = p;
                }
            }
        }
        loop {
            // Fast path: resident pages.
            {
                let pte_v = self.st.table_mut(g);
                let write = s.write || prefill_left > 0;
                // The burst's CP and system time do not change on the fast
                // path: a touch fits while the virtual time stays within
                // `room` (none fits if CP time alone fills the budget). The
                // virtual time and the references counted here are kept in
                // locals and stored on the way out.
                let room = budget.checked_sub(cx.charge.cp + cx.charge.sys + s.cpu);
                let mut virt = b.virt;
                let mut refs = 0u64;
                while room.is_some_and(|r| virt <= r) {
                    let e = &mut pte_v[cur as usize].e;
                    if *e & RES == 0 {
                        break;
                    }
                    // Fill writes (pages after the area) are writes.
                    let area = !FILL || cur < s.pages;
                    if (write || !area) && *e & P_CHG == 0 {
                        break; // first change of a page: the slow path drops its DASD copy
                    }
                    *e |= P_REF;
                    virt += s.cpu;
                    // Fill writes are extra work: they do not count toward
                    // the burst's touches.
                    touches += area as u64;
                    prefill_left = prefill_left.saturating_sub(1);
                    if area && s.burst_touches > 0 && touches % s.burst_touches == 0 && s.think > 0
                    {
                        b.outcome = Outcome::Think(jittered(s.think, &mut rng));
                        cur = match fill_take::<FILL>(&mut fill, s, pte_v) {
                            Some(p) => p,
                            None => next_page(s, &mut pos, &mut rng, prefill_left > 0),
                        };
                        b.virt = virt;
                        self.work.refs += refs + 1;
                        return self.thrash_save(vi, pos, touches, prefill_left, fill, rng, cur, b);
                    }
                    // A serial pass ends with the area's last page.
                    let wrapped =
                        s.pattern == Pattern::Serial && prefill_left == 0 && cur + 1 == s.pages;
                    if let Some(p) = fill_take::<FILL>(&mut fill, s, pte_v) {
                        // Fill writes take their turn; the look-ahead copy
                        // follows only the area's draws.
                        cur = p;
                    } else {
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
                                self.pg.prefetch_block(pe.blk);
                            }
                        }
                    }
                    refs += 1;
                    if wrapped && s.think > 0 && s.burst_touches == 0 {
                        b.outcome = Outcome::Think(jittered(s.think, &mut rng));
                        b.virt = virt;
                        self.work.refs += refs;
                        return self.thrash_save(vi, pos, touches, prefill_left, fill, rng, cur, b);
                    }
                }
                b.virt = virt;
                self.work.refs += refs;
            }
            if b.virt + cx.charge.cp + cx.charge.sys + s.cpu > budget {
                b.outcome = Outcome::Slice;
                return self.thrash_save(vi, pos, touches, prefill_left, fill, rng, cur, b);
            }
            // Slow path: the page at `cur` is not resident, or is being changed
            // for the first time.
            let vp = cur as u32;
            let e = self.st.entry(g, vp).e;
            match tag(e) {
                T_RES => self.first_change(g, vp),
                T_NONE => {
                    let Some(f) = self.get_frame(cx, g, vp) else {
                        b.outcome = Outcome::FrameWait;
                        return self.thrash_save(vi, pos, touches, prefill_left, fill, rng, cur, b);
                    };
                    self.st.first_touch(g, vp, f);
                    cx.charge.cp += self.work.costs.first_touch;
                }
                T_XS => {
                    let Some(f) = self.get_frame(cx, g, vp) else {
                        b.outcome = Outcome::FrameWait;
                        return self.thrash_save(vi, pos, touches, prefill_left, fill, rng, cur, b);
                    };
                    self.st.xstor_in(cx, g, vp, f);
                    // A page move is CP's own work (system time).
                    cx.charge.sys += self.work.costs.xmove;
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
                    return self.thrash_save(vi, pos, touches, prefill_left, fill, rng, cur, b);
                }
                T_READIN => {
                    self.st.count_fault(g);
                    let r = idx(e);
                    self.pg.join_read(r, v);
                    cx.charge.cp += self.work.costs.fault;
                    b.outcome = Outcome::PageWait;
                    return self.thrash_save(vi, pos, touches, prefill_left, fill, rng, cur, b);
                }
                T_PAGEOUT => {
                    // Reclaimed from the page-out in progress: no I/O needed.
                    self.st.reclaim(g, vp);
                    cx.charge.cp += self.work.costs.fault;
                }
                _ => unreachable!("bad page state"),
            }
        }
    }

    /// Put a thrasher's state back into virtual CPU `vi` at the end of a
    /// burst, `cur` the page to touch next (the thrasher's and a Linux
    /// guest's: [`Model::linux_thrash`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn thrash_save(
        &mut self,
        vi: usize,
        pos: u64,
        touches: u64,
        prefill_left: u64,
        fill: Fill,
        rng: Rng,
        cur: u64,
        _b: &mut Burst,
    ) {
        // `pos` already points past `cur`; step back so `cur` is touched next time.
        let _ = cur;
        let w = &mut self.work.vcpus[vi];
        w.work = WorkState::Thrasher {
            pos,
            touches,
            prefill_left,
            fill,
        };
        w.pending_page = Some(cur);
        w.rng = rng;
    }
}

/// The next fill write due, if the guest fills its storage (`FILL`).
#[inline(always)]
fn fill_take<const FILL: bool>(
    fill: &mut Fill,
    s: &ThrashSpec,
    table: &[PageEntry],
) -> Option<u64> {
    if FILL {
        fill.take(s, table)
    } else {
        None
    }
}

/// Pages a random toucher's prefetching runs ahead of it.
const LOOKAHEAD: usize = 6;

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
    /// Pages after the area, which the guest reuses once filled (0: no fill).
    pub fill_pages: u64,
    /// Time between fill writes while filling, and between reuse writes once
    /// filled (0: none).
    pub fill_every: Ns,
    pub reuse_every: Ns,
}

/// A thrasher's fill of its storage (`fill_rate`, `reuse_rate`), on the
/// guest's first virtual CPU only. The fill writes the pages after the area,
/// in address order, skipping any already used (Linux putting its page cache
/// in the storage its applications leave free); then the reuse writes them
/// again, oldest first, wrapping (Linux reusing its least recently used
/// page-cache pages for new data).
#[derive(Clone, Copy, Debug, Default)]
pub struct Fill {
    /// Writes are due up to this time (`Ns::MAX`: no fill).
    pub clock: Ns,
    /// Pages passed: the first `fill_pages` fill (used pages skipped), then
    /// one more to mark the end of the fill, then reuse writes.
    pub done: u64,
    /// Writes due and not yet done.
    pub left: u64,
}

impl Fill {
    pub const OFF: Fill = Fill {
        clock: Ns::MAX,
        done: 0,
        left: 0,
    };

    /// Add the writes that fell due by `now`.
    #[inline]
    pub(super) fn due(&mut self, s: &ThrashSpec, now: Ns) {
        if self.clock == Ns::MAX || now <= self.clock {
            return;
        }
        let every = if self.done < s.fill_pages {
            s.fill_every
        } else {
            s.reuse_every
        };
        if every == 0 {
            self.clock = now;
            return;
        }
        let n = (now - self.clock) / every;
        self.left += n;
        self.clock += n * every;
    }

    /// The next page to write, if a write is due: while filling, the next
    /// page after the area not yet used (`table` says which); once filled,
    /// the next one to reuse.
    #[inline]
    fn take(&mut self, s: &ThrashSpec, table: &[PageEntry]) -> Option<u64> {
        self.take_unused(s, |p| tag(table[p as usize].e) == T_NONE)
    }

    /// As [`Fill::take`], `unused(p)` saying whether page `p` is unused.
    #[inline(always)]
    pub(super) fn take_unused(
        &mut self,
        s: &ThrashSpec,
        unused: impl Fn(u64) -> bool,
    ) -> Option<u64> {
        if self.left == 0 {
            return None;
        }
        while self.done < s.fill_pages {
            let p = s.pages + self.done;
            self.done += 1;
            if unused(p) {
                self.left -= 1;
                return Some(p);
            }
        }
        if self.done == s.fill_pages {
            // Filled: writes due at the fill rate are not carried into reuse.
            self.done += 1;
            self.left = 0;
            return None;
        }
        self.left -= 1;
        let p = s.pages + (self.done - s.fill_pages - 1) % s.fill_pages;
        self.done += 1;
        Some(p)
    }
}

impl ThrashSpec {
    /// The burst parameters of a thrasher workload (`None` for other
    /// workloads) of a guest with `vpages` pages of virtual storage.
    pub(super) fn of(w: &Workload, vpages: u64) -> Option<ThrashSpec> {
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
            fill_rate,
            reuse_rate,
            ..
        } = w
        else {
            return None;
        };
        let pages = area.pages();
        let every = |r: f64| if r > 0.0 { (1e9 / r).max(1.0) as Ns } else { 0 };
        let fill_pages = if *fill_rate > 0.0 {
            vpages.saturating_sub(pages)
        } else {
            0
        };
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
            fill_pages,
            fill_every: if fill_pages > 0 { every(*fill_rate) } else { 0 },
            reuse_every: if fill_pages > 0 {
                every(*reuse_rate)
            } else {
                0
            },
        })
    }
}

/// The next page a thrasher touches. Serial and random draws are inlined in
/// the toucher loop (its generator stays in registers instead of going
/// through memory at each call); working-set draws are a call.
#[inline(always)]
pub(super) fn next_page(s: &ThrashSpec, pos: &mut u64, rng: &mut Rng, prefill: bool) -> u64 {
    if prefill || s.pattern == Pattern::Serial {
        let p = *pos;
        *pos = if p + 1 >= s.pages { 0 } else { p + 1 };
        return p;
    }
    match s.pattern {
        Pattern::Random => rng.below(s.pages),
        Pattern::WorkingSet => working_set_page(s, rng),
        Pattern::Serial => unreachable!(),
    }
}

/// A working-set thrasher's next page: hot, warm or cold by `hot_share` and
/// `warm_share`.
#[inline(never)]
fn working_set_page(s: &ThrashSpec, rng: &mut Rng) -> u64 {
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
