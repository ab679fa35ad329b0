//! A bench for the aging list alone: an Era C storage from literal sizes, a
//! fake pager, guests touching pages; page-out writes completed when the
//! test says.

use super::super::tests::params as era_a_params;
use super::super::tests::Writes;
use super::super::*;
use super::params::Params as AgeParams;
use super::F_AGED;
use crate::core::units::SEC;
use crate::model::Core;
use proptest::prelude::*;

#[derive(Default)]
struct FakePager {
    released: Vec<(u32, u32, u32)>,
}

impl Pager for FakePager {
    fn release(&mut self, b: u32, g: u32, vp: u32) {
        self.released.push((b, g, vp));
    }
    fn migrate(&mut self, _cx: &mut Cx, _items: &[(u32, u32)]) -> u32 {
        panic!("no XSTOR in Era C: nothing migrates")
    }
    fn volumes(&self) -> u32 {
        1
    }
}

/// 16M of central storage (3072 pageable frames), no XSTOR, CP level 7.3,
/// an aging list of `size`% with early writes `ew`; guests of 8192 pages.
fn storage(size: f64, ew: bool, guests: usize) -> Storage {
    let p = params::Params {
        cp_level: "7.3".into(),
        xstor: 0,
        agelist: Some(AgeParams {
            size,
            earlywrites: ew,
            ..AgeParams::default()
        }),
        ..era_a_params(0)
    };
    p.agelist.as_ref().unwrap().validate().expect("valid");
    let st = Storage::new(&p, 1, &vec![8192; guests]);
    assert!(st.era_c());
    st
}

/// Page-outs handed to "paging" and not yet written.
/// Frames are conserved: free (available list) or held by an address space
/// (its count of resident frames, which includes frames on the aging list
/// and frames being paged out).
fn conserved(st: &Storage) {
    let held: u64 = (0..st.spaces()).map(|g| st.space(g).resident as u64).sum();
    assert_eq!(
        st.avail_len() as u64 + held + st.segment_frames() as u64 + st.mdc_lent().0,
        st.dpa() as u64,
        "frames conserved"
    );
    assert!(st.agelist().frames as u64 <= held);
}

/// Guest `g` references page `vp` (writing it if `write`), as a burst does:
/// a frame on a first touch or after a steal (a DASD page is "read" at once
/// here), the reference bit on a resident page, the page-out reclaim on a
/// page being written.
fn touch(
    st: &mut Storage,
    cx: &mut Cx,
    pager: &mut FakePager,
    w: &mut Writes,
    g: u32,
    vp: u32,
    write: bool,
) -> bool {
    let e = st.entry(g, vp).e;
    match tag(e) {
        T_RES => {
            st.table_mut(g)[vp as usize].e |= P_REF;
            if write && e & P_CHG == 0 {
                st.first_change(pager, g, vp);
            }
        }
        T_PAGEOUT => {
            st.reclaim(g, vp);
            if write {
                st.first_change(pager, g, vp);
            }
        }
        T_NONE | T_DASD => {
            let Some(f) = st.get_frame(cx, pager, g, vp) else {
                w.collect(st);
                return false;
            };
            if tag(e) == T_NONE {
                st.first_touch(g, vp, f);
            } else {
                st.mark_reading(g, vp, f, 0);
                st.read_in(g, vp, f, 0);
                st.table_mut(g)[vp as usize].e |= P_REF;
                if write {
                    st.first_change(pager, g, vp);
                }
            }
        }
        _ => unreachable!(),
    }
    w.collect(st);
    true
}

/// The setup the tests share: an Era C storage (see [`storage`]) with its
/// guests' spaces created, a core to charge CPU on, the fake pager and the
/// page-outs pending.
struct Bench {
    st: Storage,
    core: Core,
    pager: FakePager,
    w: Writes,
}

impl Bench {
    fn new(size: f64, ew: bool, guests: usize) -> Bench {
        let mut st = storage(size, ew, guests);
        for g in 0..guests as u32 {
            st.create_space(g);
        }
        Bench {
            st,
            core: Core::new(SEC),
            pager: FakePager::default(),
            w: Writes::default(),
        }
    }

    /// [`touch`] on CPU 0.
    fn touch(&mut self, g: u32, vp: u32, write: bool) -> bool {
        let mut cx = Cx::new(&mut self.core, 0);
        touch(
            &mut self.st,
            &mut cx,
            &mut self.pager,
            &mut self.w,
            g,
            vp,
            write,
        )
    }

    /// Complete the first `n` pending writes.
    fn complete(&mut self, n: usize) {
        self.w.complete(&mut self.st, n);
    }

    /// Touch new pages of guest 0 from `vp` on (writing them if `write`),
    /// completing every write at once, until `done` holds; returns the next
    /// page. The storage is checked after each touch.
    fn fill_until(&mut self, mut vp: u32, write: bool, done: impl Fn(&Storage) -> bool) -> u32 {
        while !done(&self.st) {
            assert!(self.touch(0, vp, write));
            self.complete(usize::MAX);
            self.st.check();
            conserved(&self.st);
            vp += 1;
            assert!(vp < 8192, "the condition never held");
        }
        vp
    }
}

#[test]
fn the_scan_moves_unreferenced_frames_to_the_aging_list_and_early_writes_them() {
    let mut b = Bench::new(2.0, true, 2);
    // Fill storage: every page changed (first touches).
    for vp in 0..3400 {
        if !b.touch(vp % 2, vp / 2, true) {
            // No frame until page-outs complete.
            b.complete(usize::MAX);
            assert!(b.touch(vp % 2, vp / 2, true));
        }
        b.st.check();
        conserved(&b.st);
    }
    let a = b.st.agelist();
    assert_eq!(a.target, 61, "2% of 3072 frames");
    assert!(a.c.moved > 0, "the scan moved frames to the list: {a:?}");
    // Changed pages entering the list were written early.
    assert!(a.c.early_writes > 0 && !b.w.pending.is_empty(), "{a:?}");
    assert_eq!(b.st.sample(0).xs_total, 0, "no XSTOR");
    assert_eq!(b.st.sample(0).c.xstor_out, 0);
}

#[test]
fn early_written_frames_are_reused_without_io() {
    let mut b = Bench::new(5.0, true, 1);
    // Touch new pages until the first replenishment ran, completing every
    // write at once (the early writes end while their frames are on the
    // list).
    b.fill_until(0, true, |st| st.agelist().c.replenish >= 3);
    let a = b.st.agelist();
    assert!(a.c.early_writes > 0, "{a:?}");
    assert!(
        a.c.freed_written > 0 && a.c.freed_written == a.c.freed_no_io,
        "early-written frames reused with no I/O: {a:?}"
    );
    // Every frame reused from the list was early-written (its write done,
    // or still running at the first replenishment, before any write could
    // complete): none needed a page-out at the head.
    assert_eq!(a.c.paged_out, 0, "{a:?}");
    assert_eq!(a.c.freed_no_io + a.c.freed_wait, b.st.sample(0).c.steals);
    assert!(b.w.pending.is_empty());
}

#[test]
fn without_early_writes_the_head_pages_out() {
    let mut b = Bench::new(2.0, false, 1);
    b.fill_until(0, true, |st| st.agelist().c.replenish >= 3);
    let a = b.st.agelist();
    assert_eq!(a.c.early_writes, 0);
    assert_eq!(a.c.freed_no_io, 0, "changed pages need their write: {a:?}");
    assert!(a.c.paged_out > 0, "{a:?}");
}

#[test]
fn a_page_referenced_on_the_aging_list_is_reclaimed_without_io() {
    let mut b = Bench::new(5.0, true, 1);
    let vp = b.fill_until(0, true, |st| st.agelist().frames > 0);
    // Reference every page whose frame is on the aging list (IBR pages:
    // resident in the twin's table, reference bit off).
    let aged: Vec<u32> = (0..vp)
        .filter(|&p| {
            let e = b.st.entry(0, p).e;
            tag(e) == T_RES && b.st.flags[idx(e) as usize] & F_AGED != 0
        })
        .collect();
    assert!(!aged.is_empty());
    for &p in &aged {
        b.touch(0, p, false);
    }
    let want = b.st.agelist().c.reclaimed + aged.len() as u64;
    // Drive reuse: new pages until every referenced frame reached the head.
    b.fill_until(vp, false, |st| st.agelist().c.reclaimed >= want);
    // The referenced pages are still resident, in the same frames, and
    // their reclaim wrote nothing.
    for &p in &aged {
        assert_eq!(tag(b.st.entry(0, p).e), T_RES, "page {p} stayed resident");
    }
    assert_eq!(
        b.pager.released.len(),
        0,
        "no slot released: no page changed"
    );
}

#[test]
fn a_fault_during_the_early_write_takes_the_frame_off_the_list() {
    let mut b = Bench::new(2.0, true, 1);
    let mut vp = 0;
    while b.w.pending.is_empty() {
        assert!(b.touch(0, vp, true));
        vp += 1;
    }
    let (g, p) =
        *b.w.pending
            .iter()
            .find(|&&(g, p)| b.st.flags[b.st.entry(g, p).blk as usize] & F_AGED != 0)
            .expect("an early write of a frame still on the list");
    assert_eq!(tag(b.st.entry(g, p).e), T_PAGEOUT);
    let aged = b.st.agelist().frames;
    b.touch(g, p, false);
    assert_eq!(b.st.agelist().frames, aged - 1);
    assert_eq!(b.st.agelist().c.reclaimed_fault, 1);
    b.st.check();
    // The write had not started (still queued): paging drops it, the page
    // keeps its frame, unlocked, and the early write is no longer in flight.
    b.complete(usize::MAX);
    let pe = b.st.entry(g, p);
    assert_eq!(tag(pe.e), T_RES);
    assert_eq!(b.st.flags[idx(pe.e) as usize] & (F_LOCK | F_AGED), 0);
    assert_eq!(b.st.agelist().early_inflight, 0);
    b.st.check();
}

#[test]
fn xstor_and_unknown_levels_are_refused_naming_the_key() {
    let p = params::Params {
        cp_level: "7.3".into(),
        agelist: Some(AgeParams::default()),
        ..era_a_params(64)
    };
    let e = p.validate().unwrap_err();
    assert_eq!(e.place, "system.xstor");
    assert!(e.reason.contains("XSTOR on CP level 7.3"), "{}", e.reason);
    let p = params::Params {
        cp_level: "6.5".into(),
        ..era_a_params(0)
    };
    assert_eq!(p.validate().unwrap_err().place, "system.cp_level");
    let p = params::Params {
        cp_level: "6.4".into(),
        agelist: Some(AgeParams {
            size: 90.0,
            ..AgeParams::default()
        }),
        ..era_a_params(0)
    };
    assert_eq!(p.validate().unwrap_err().place, "agelist.size");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Random touches of three guests overcommitting storage, writes
    /// completing late and in bursts: frames are conserved, no frame is on
    /// both a user's list and the aging list (`check`), and the counters of
    /// frames reused add up to the steals.
    #[test]
    fn frames_are_conserved_under_random_touches(
        ops in proptest::collection::vec((0u32..3, 0u32..1600, any::<bool>(), 0u8..8), 200..1500),
        size in 1.0f64..10.0,
        ew in any::<bool>(),
    ) {
        let mut b = Bench::new(size, ew, 3);
        for (g, vp, write, done) in ops {
            if !b.touch(g, vp, write) {
                // No frame now: the writes complete.
                b.complete(usize::MAX);
            }
            if done == 0 {
                b.complete(7);
            }
            b.st.check();
            conserved(&b.st);
        }
        b.complete(usize::MAX);
        b.st.check();
        conserved(&b.st);
        let a = b.st.agelist();
        prop_assert_eq!(
            a.c.freed_no_io + a.c.freed_wait + a.c.paged_out,
            b.st.sample(0).c.steals
        );
        prop_assert_eq!(a.early_inflight, 0);
    }
}
