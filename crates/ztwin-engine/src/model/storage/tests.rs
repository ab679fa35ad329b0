//! A bench for the storage component alone: storage from literal sizes, its
//! own core, a fake [`Pager`] standing in for paging, a guest touching pages.

use super::scan::LONG_DORMANT_TICKS;
use super::*;
use crate::core::units::SEC;
use crate::model::Core;

/// Paging as far as storage sees it: it records what it is asked (also the
/// pager of the `frames` and `lock` tests).
#[derive(Default)]
pub(crate) struct FakePager {
    released: Vec<(u32, u32, u32)>,
    migrated: Vec<(u32, u32)>,
}

impl Pager for FakePager {
    fn release(&mut self, b: u32, g: u32, vp: u32) {
        self.released.push((b, g, vp));
    }
    fn migrate(&mut self, _cx: &mut Cx, items: &[(u32, u32)]) -> u32 {
        self.migrated.extend_from_slice(items);
        items.len() as u32
    }
    fn volumes(&self) -> u32 {
        1
    }
}

/// Paging's page-out writes as far as storage sees them: the page-outs a
/// scan chose, taken and completed when a test says (the `era_c` and
/// `lock` tests).
#[derive(Default)]
pub(crate) struct Writes {
    pub(crate) pending: Vec<(u32, u32)>,
    pub(crate) next_block: u32,
}

impl Writes {
    /// Take the page-outs the last scan chose.
    pub(crate) fn collect(&mut self, st: &mut Storage) {
        let outs: Vec<(u32, u32)> = st
            .pageouts()
            .batches()
            .flat_map(|(g, v)| v.iter().map(move |&vp| (g, vp)))
            .collect();
        st.clear_pageouts();
        self.pending.extend(outs);
    }

    /// Complete the first `n` writes (a page reclaimed before its write
    /// started is dropped, as paging does).
    pub(crate) fn complete(&mut self, st: &mut Storage, n: usize) {
        let n = n.min(self.pending.len());
        let done: Vec<(u32, u32)> = self.pending.drain(..n).collect();
        let mut written = 0;
        for &(g, vp) in &done {
            if st.pageout_needed(g, vp) {
                written += 1;
            } else {
                st.drop_pageout(g, vp);
            }
        }
        st.pageouts_done(written);
        for (g, vp) in done {
            if tag(st.entry(g, vp).e) == T_PAGEOUT {
                st.written_out(g, vp, self.next_block);
                self.next_block += 1;
            }
        }
    }
}

/// 16M of central storage (4096 frames, 1024 fixed), 64 XSTOR blocks,
/// blocks of 4 pages, one CPU, two guests of 8192 pages.
pub(crate) fn params(xstor_blocks: u64) -> params::Params {
    params::Params {
        cp_level: "5.4".into(),
        central_storage: 4096 * 4096,
        cp_fixed: 1024 * 4096,
        xstor: xstor_blocks * 4096,
        xstor_low: 0.01,
        block_max: 4,
        migrate_writes: MIGRATE_BLOCKS_PER_VOLUME,
        steal_per_frame_us: 0.3,
        xstor_move_us: 4.0,
        agelist: None,
    }
}

fn storage() -> Storage {
    Storage::new(&params(64), 1, &[8192, 8192])
}

/// Guest 0 first-touches pages `pages`, taking frames like a burst does; the
/// page-outs of each scan are "written" at once to consecutive block numbers.
fn touch(st: &mut Storage, cx: &mut Cx, pager: &mut FakePager, pages: std::ops::Range<u32>) {
    let mut block = 0;
    for vp in pages {
        let f = st.get_frame(cx, pager, 0, vp).expect("a frame");
        st.first_touch(0, vp, f);
        if !st.pageouts().is_empty() {
            let outs: Vec<(u32, u32)> = st
                .pageouts()
                .batches()
                .flat_map(|(g, v)| v.iter().map(move |&vp| (g, vp)))
                .collect();
            st.clear_pageouts();
            st.pageouts_done(outs.len() as u32);
            for (g, vp) in outs {
                assert!(st.written_out(g, vp, block));
                block += 1;
            }
        }
        st.check();
    }
}

#[test]
fn the_demand_scan_steals_to_xstor_then_to_dasd_and_counts_add_up() {
    let mut st = storage();
    let mut core = Core::new(SEC);
    let mut cx = Cx::new(&mut core, 0);
    let mut pager = FakePager::default();
    st.create_space(0);
    st.create_space(1);
    let dpa = st.dpa();
    touch(&mut st, &mut cx, &mut pager, 0..dpa + 500);
    let s = st.sample(0);
    let sp = st.space(0);
    assert!(s.c.scans > 0, "{s:?}");
    assert_eq!(s.c.first_touch, (dpa + 500) as u64);
    assert_eq!(s.c.frame_requests, (dpa + 500) as u64);
    // Every page touched is somewhere: resident, in XSTOR, or on DASD.
    assert_eq!(sp.resident + sp.xstor + sp.dasd, dpa + 500, "{sp:?}");
    assert_eq!(s.c.steals, (sp.xstor + sp.dasd) as u64);
    assert_eq!(
        s.c.xstor_out, 64,
        "stolen pages take every free XSTOR block"
    );
    assert!(sp.dasd > 0);
    // XSTOR ran short: the oldest pages were offered for migration.
    assert!(!pager.migrated.is_empty());
    assert_eq!(pager.migrated[0], (0, s.c.xstor_out as u32 - 64));
    assert_eq!(s.c.migrated, pager.migrated.len() as u64);
    // No page had a DASD copy to release.
    assert!(pager.released.is_empty());
    // The scans ran on CPU 0 and charged it system time.
    assert_eq!(st.by_cpu()[0].steals, s.c.steals);
    assert!(cx.charge.sys >= s.c.examined * 300);
    assert_eq!(st.guest(0).steals, s.c.steals);
    assert_eq!(st.guest(1), GuestStor::default());
}

#[test]
fn a_migrated_page_lives_on_dasd_and_a_discard_frees_everything() {
    let mut st = storage();
    let mut core = Core::new(SEC);
    let mut cx = Cx::new(&mut core, 0);
    let mut pager = FakePager::default();
    st.create_space(0);
    let dpa = st.dpa();
    touch(&mut st, &mut cx, &mut pager, 0..dpa + 200);
    // The migration writes complete, each page to its own block.
    let migrated = std::mem::take(&mut pager.migrated);
    for (k, &(g, vp)) in migrated.iter().enumerate() {
        assert!(st.migrated_out(g, vp, 1000 + k as u32));
    }
    st.check();
    let sp = st.space(0);
    assert_eq!(sp.resident + sp.xstor + sp.dasd, dpa + 200);
    // Logoff: every page is forgotten; each page's slot on DASD is released once.
    let on_dasd = sp.dasd;
    assert!(on_dasd > 0);
    st.logoff(0);
    for vp in 0..st.vpages(0) {
        st.discard(&mut pager, 0, vp);
    }
    st.check();
    let sp = st.space(0);
    assert_eq!((sp.resident, sp.xstor, sp.dasd), (0, 0, 0), "{sp:?}");
    assert_eq!(pager.released.len() as u32, on_dasd);
    assert_eq!(
        st.sample(0).avail,
        dpa,
        "every frame back on the available list"
    );
}

#[test]
fn frame_waiters_wake_in_order_when_frames_are_freed() {
    let mut st = storage();
    let mut core = Core::new(SEC);
    let mut cx = Cx::new(&mut core, 0);
    let mut pager = FakePager::default();
    st.create_space(0);
    st.wait_for_frame(0, 7);
    st.wait_for_frame(0, 3);
    touch(&mut st, &mut cx, &mut pager, 0..8);
    assert_eq!(st.drain_woken().count(), 0, "no frame freed yet");
    st.logoff(0);
    for vp in 0..8 {
        st.discard(&mut pager, 0, vp);
    }
    assert_eq!(st.drain_woken().collect::<Vec<_>>(), [7, 3]);
    assert_eq!(st.sample(0).c.frame_waits, 2);
}

#[test]
#[should_panic(expected = "XSTOR count")]
fn check_finds_a_wrong_xstor_count() {
    let mut st = storage();
    st.create_space(0);
    st.spaces[0].xstor += 1;
    st.check();
}

#[test]
fn state_words_round_trip_at_the_limits() {
    let top = (MAX_FRAMES - 1) as u32;
    for f in [0, 1, 12345, top] {
        let e = pte(T_RES, f) | P_REF | P_CHG;
        assert_eq!((tag(e), idx(e)), (T_RES, f));
        assert_eq!((tag(e & !P_REF), idx(e & !P_CHG)), (T_RES, f));
    }
    for t in [T_NONE, T_XS, T_DASD, T_READIN] {
        for i in [0, 7, IDX_MASK] {
            let e = pte(t, i);
            assert_eq!((tag(e), idx(e)), (t, i));
            assert_eq!(e & RES, 0);
        }
    }
    assert_eq!(tag(pte(T_PAGEOUT, 0)), T_PAGEOUT);
}

/// Central storage up to FRAMES_AT_ONCE frames is materialised when it is
/// built (no frame table grows during the run); one frame more is lazy.
#[test]
fn small_storage_is_materialised_at_once() {
    for (frames, at_once) in [(FRAMES_AT_ONCE, true), (FRAMES_AT_ONCE + 1, false)] {
        let p = params::Params {
            central_storage: frames as u64 * 4096,
            cp_fixed: 64 << 20,
            xstor: 0,
            ..params(0)
        };
        let (total, fixed, _) = p.frames();
        let mut st = Storage::new(&p, 1, &[8192]);
        st.create_space(0);
        let want = if at_once { total } else { fixed };
        assert_eq!(st.frames.len(), want as usize, "{frames} frames");
        let mut core = Core::new(SEC);
        let mut cx = Cx::new(&mut core, 0);
        let f = st.get_frame(&mut cx, &mut FakePager::default(), 0, 0);
        assert_eq!(f, Some(fixed));
        st.first_touch(0, 0, fixed);
        let want = if at_once {
            total as usize
        } else {
            fixed as usize + FRAME_CHUNK
        };
        assert_eq!(st.frames.len(), want, "{frames} frames");
        st.check();
    }
}

/// Frames are materialised as they are first taken: 2 TB of central storage
/// with one small guest holds memory for CP's frames and the guest's, and
/// the frames go out as a list of every frame would hand them out: never
/// taken ones lowest first, freed ones before them, the last freed first.
#[test]
fn frames_cost_memory_as_they_are_used() {
    let p = params::Params {
        central_storage: 1 << 41,
        cp_fixed: 64 << 20,
        xstor: 0,
        ..params(0)
    };
    let (total, fixed, _) = p.frames();
    let mut st = Storage::new(&p, 1, &[8192, 8192]);
    let mut core = Core::new(SEC);
    let mut cx = Cx::new(&mut core, 0);
    let mut pager = FakePager::default();
    st.create_space(0);
    st.create_space(1);
    assert_eq!(st.frames.len(), fixed as usize);
    assert_eq!(st.sample(0).avail, total - fixed);
    let chunk = fixed as usize + FRAME_CHUNK;
    let mut got = Vec::new();
    for vp in 0..100 {
        let f = st.get_frame(&mut cx, &mut pager, 0, vp).expect("a frame");
        st.first_touch(0, vp, f);
        got.push(f);
    }
    assert_eq!(got, (fixed..fixed + 100).collect::<Vec<_>>());
    assert_eq!(st.frames.len(), chunk);
    assert_eq!(st.flags.len(), st.frames.len());
    assert_eq!(st.sample(0).avail, total - fixed - 100);
    st.check();
    // Guest 0 logs off and its pages are discarded: its 100 frames go back
    // on the list and are taken again, the last freed first, before any
    // frame never taken.
    st.logoff(0);
    for vp in 0..100 {
        st.discard(&mut pager, 0, vp);
    }
    let freed: Vec<u32> = (fixed..fixed + 100).rev().collect();
    assert_eq!(st.avail.len(), 100);
    let mut again = Vec::new();
    for vp in 0..110 {
        let f = st.get_frame(&mut cx, &mut pager, 1, vp).expect("a frame");
        st.first_touch(1, vp, f);
        again.push(f);
    }
    assert_eq!(&again[..100], &freed[..]);
    assert_eq!(
        &again[100..],
        &(fixed + 100..fixed + 110).collect::<Vec<_>>()[..]
    );
    assert_eq!(st.frames.len(), chunk);
    assert_eq!(st.sample(0).avail, total - fixed - 110);
    st.check();
    assert!(pager.released.is_empty() && pager.migrated.is_empty());
}

/// Frames never taken count as free for the minidisk cache and for the
/// frame-shortage tests (the frame table is lazy): a large storage with
/// nothing touched lends what is asked, from never-taken frames.
#[test]
fn frames_never_taken_are_free_for_the_minidisk_cache() {
    let p = params::Params {
        central_storage: 4 << 30,
        cp_fixed: 64 << 20,
        xstor: 0,
        ..params(0)
    };
    let (total, fixed, _) = p.frames();
    let mut st = Storage::new(&p, 1, &[8192]);
    st.create_space(0);
    assert!(st.frames_free());
    assert!(!st.short_of_frames());
    let lent = st.lend_mdc(16384);
    assert_eq!(lent, 16384);
    assert_eq!(st.mdc_lent().0, 16384);
    assert_eq!(st.sample(0).avail, total - fixed - 16384);
    st.check();
    st.unlend_mdc(16384);
    assert_eq!(st.sample(0).avail, total - fixed);
    st.check();
}

/// Guest `g` first-touches pages `pages`; page-outs are written at once.
fn touch_as(
    st: &mut Storage,
    cx: &mut Cx,
    pager: &mut FakePager,
    g: u32,
    pages: std::ops::Range<u32>,
) {
    for vp in pages {
        let f = st.get_frame(cx, pager, g, vp).expect("a frame");
        st.first_touch(g, vp, f);
        let outs: Vec<(u32, u32)> = st
            .pageouts()
            .batches()
            .flat_map(|(g, v)| v.iter().map(move |&vp| (g, vp)))
            .collect();
        st.clear_pageouts();
        st.pageouts_done(outs.len() as u32);
        for (k, (g, vp)) in outs.into_iter().enumerate() {
            assert!(st.written_out(g, vp, 5000 + k as u32));
        }
    }
    st.check();
}

#[test]
fn long_term_dormant_users_are_stolen_from_first() {
    let mut st = storage();
    let mut core = Core::new(SEC);
    let mut cx = Cx::new(&mut core, 0);
    let mut pager = FakePager::default();
    st.create_space(0);
    st.create_space(1);
    // Guest 1 fills half of storage and goes dormant for good; guest 0
    // fills a quarter and is dormant only since the last tick.
    let q = st.dpa() / 4;
    touch_as(&mut st, &mut cx, &mut pager, 1, 0..2 * q);
    touch_as(&mut st, &mut cx, &mut pager, 0, 0..q);
    for _ in 0..LONG_DORMANT_TICKS {
        st.tick();
    }
    st.set_category(0, Cat::Dispatch);
    st.set_category(0, Cat::Dormant);
    // Guest 0 touches more than the free frames: the scans take guest 1's.
    touch_as(&mut st, &mut cx, &mut pager, 0, q..3 * q);
    assert!(st.sample(0).c.steals > 0);
    assert_eq!(
        st.guest(0).steals,
        0,
        "the short-term dormant user keeps its frames"
    );
    assert_eq!(st.guest(1).steals, st.sample(0).c.steals);
}

#[test]
fn page_outs_count_toward_the_scan_target() {
    // No XSTOR: every stolen changed page is a page-out whose frame joins the
    // list only when its write completes.
    let mut st = Storage::new(&params(0), 1, &[8192, 8192]);
    let mut core = Core::new(SEC);
    let mut cx = Cx::new(&mut core, 0);
    let mut pager = FakePager::default();
    st.create_space(0);
    let dpa = st.dpa();
    for vp in 0..dpa + 1 {
        let f = st.get_frame(&mut cx, &mut pager, 0, vp).expect("a frame");
        st.first_touch(0, vp, f);
        if !st.pageouts().is_empty() {
            break;
        }
    }
    // The first scan stole up to its high threshold (plus at most one
    // user's quantum), not every unreferenced frame it could find.
    let s = st.sample(0);
    assert_eq!(s.c.scans, 1);
    assert!(s.c.steals > 0);
    assert!(
        s.c.steals <= (s.high + STEAL_QUANTUM) as u64,
        "{} stolen for a high threshold of {}",
        s.c.steals,
        s.high
    );
}

#[test]
fn pass_one_takes_a_frame_only_after_two_unreferenced_looks() {
    let mut st = storage();
    let mut core = Core::new(SEC);
    let mut cx = Cx::new(&mut core, 0);
    let mut pager = FakePager::default();
    st.create_space(0);
    // One guest, short-term dormant, touching new pages. Scan 1 finds every
    // frame referenced (first touches) and resets the bits; scan 2 finds
    // the rest unreferenced at one look, too few for pass 1 (pass 2 takes
    // them); scan 3 finds those it left unreferenced at a second look in a
    // row, and pass 1 takes them.
    let mut next = 0;
    touch_until_scan(&mut st, &mut cx, &mut pager, 0, &mut next, 2);
    let s2 = by_pass(&st);
    assert_eq!(s2[0], 0, "{s2:?}");
    touch_until_scan(&mut st, &mut cx, &mut pager, 0, &mut next, 3);
    let s3 = by_pass(&st);
    assert!(s3[0] > 0, "{s2:?} -> {s3:?}");
    assert_eq!((s3[1], s3[2]), (s2[1], s2[2]), "{s2:?} -> {s3:?}");
}

#[test]
fn referenced_shared_frames_are_left_to_the_emergency_pass() {
    let mut st = storage();
    let mut core = Core::new(SEC);
    let mut cx = Cx::new(&mut core, 0);
    let mut pager = FakePager::default();
    st.create_space(0);
    // A system-owned space (a VDISK's) written over most of storage: its
    // frames are referenced (a VDISK write is CP's store into them).
    let dpa = st.dpa();
    let s = st.create_system_space(8192);
    let filled = dpa - 200;
    touch_as(&mut st, &mut cx, &mut pager, s, 0..filled);
    // A user then takes frames scan after scan: its own frames go (passes 1
    // and 2, once a scan has looked at them: at the first scan every frame
    // was referenced since, and the emergency pass took the target), the
    // shared space's referenced ones stay however often the scans look (the
    // old rule, a look clearing the bit, took them in pass 1 from the third
    // scan on).
    touch_as(&mut st, &mut cx, &mut pager, 0, 0..2000);
    let c = st.sample(0).c;
    assert!(c.scans >= 3, "{} scans", c.scans);
    assert_eq!(c.emergency_scans, 1, "{c:?}");
    assert_eq!(c.shared_by_pass[..2], [0, 0]);
    assert!(c.by_pass[0][0] + c.by_pass[1][0] > 0, "{c:?}");
    assert_eq!(
        st.space(s).resident as u64,
        filled as u64 - c.shared_by_pass[2]
    );
    let emergency0 = c.shared_by_pass[2];
    // The space itself goes on writing new pages with nothing else to take:
    // only the emergency pass takes its frames.
    let steals0 = c.steals;
    touch_as(&mut st, &mut cx, &mut pager, s, filled..filled + 2000);
    let c = st.sample(0).c;
    assert!(c.emergency_scans > 0);
    assert_eq!(
        c.shared_by_pass[0], 0,
        "pass 1 took referenced shared frames"
    );
    assert_eq!(c.shared_by_pass[1], 0, "pass 2 visited the shared space");
    assert!(c.shared_by_pass[2] > emergency0);
    assert!(c.steals - steals0 >= c.shared_by_pass[2] - emergency0);
}

#[test]
fn a_spool_backed_segment_copy_is_aged_and_taken_in_pass_one() {
    // As the VDISK case above, but the space is a saved segment's read-only
    // copy (spool-backed, D3): pass 1 walks its list as a user's, clearing
    // the reference bits it finds on, and takes the frames it finds off at
    // AGE_PASS1 looks in a row; pass 2 still passes it over.
    let mut st = storage();
    let mut core = Core::new(SEC);
    let mut cx = Cx::new(&mut core, 0);
    let mut pager = FakePager::default();
    st.create_space(0);
    let dpa = st.dpa();
    let s = st.create_system_space(8192);
    st.set_spool_backed(s);
    let filled = dpa - 200;
    touch_as(&mut st, &mut cx, &mut pager, s, 0..filled);
    touch_as(&mut st, &mut cx, &mut pager, 0, 0..2000);
    let c = st.sample(0).c;
    assert!(c.scans >= 3, "{} scans", c.scans);
    assert!(c.shared_by_pass[0] > 0, "pass 1 took none: {c:?}");
    assert_eq!(c.shared_by_pass[1], 0, "pass 2 visited the shared space");
    assert_eq!(
        st.space(s).resident as u64,
        filled as u64 - c.shared_by_pass[0] - c.shared_by_pass[2]
    );
    // Pages of the copy referenced before every allocation (the hot
    // binaries) are never taken: each look finds their bit on.
    let hot: Vec<u32> = (0..filled)
        .filter(|&vp| tag(st.entry(s, vp).e) == T_RES)
        .take(100)
        .collect();
    assert_eq!(hot.len(), 100);
    let scans0 = c.scans;
    for vp in 2000..4000 {
        for &h in &hot {
            assert_eq!(tag(st.entry(s, h).e), T_RES, "hot page {h} was taken");
            st.table_mut(s)[h as usize].e |= P_REF;
        }
        touch_as(&mut st, &mut cx, &mut pager, 0, vp..vp + 1);
    }
    let c = st.sample(0).c;
    assert!(c.scans > scans0 + 2, "{c:?}");
    st.check();
}

#[test]
fn an_unreferenced_shared_frame_goes_in_pass_one() {
    let mut st = storage();
    let mut core = Core::new(SEC);
    let mut cx = Cx::new(&mut core, 0);
    let mut pager = FakePager::default();
    st.create_space(0);
    let dpa = st.dpa();
    let s = st.create_system_space(8192);
    // Eight pages of the shared space come in by a block read and are not
    // touched since (a read's companions): unreferenced.
    for vp in 0..8 {
        let f = st.get_frame(&mut cx, &mut pager, s, vp).expect("a frame");
        st.mark_reading(s, vp, f, 1);
        assert!(st.read_in(s, vp, f, 1));
    }
    // The rest of storage is the shared space's too, referenced.
    touch_as(&mut st, &mut cx, &mut pager, s, 8..dpa - 100);
    touch_as(&mut st, &mut cx, &mut pager, 0, 0..400);
    let c = st.sample(0).c;
    // Pass 1 took the eight unreferenced ones, none of the others.
    assert_eq!(c.shared_by_pass[0], 8);
    assert_eq!(c.shared_by_pass[1], 0);
    for vp in 0..8 {
        assert_ne!(tag(st.entry(s, vp).e), T_RES, "page {vp} still resident");
    }
    st.check();
}

#[test]
fn long_term_dormant_users_go_before_the_shared_spaces() {
    // IBM's order within a pass (spec topic 1.3: long-term dormant, then
    // short-term dormant, then the shared frame-owned list, then the
    // eligible and the dispatch list): a long-term dormant user's
    // unreferenced frames meet the target before pass 1 reaches a shared
    // space's unreferenced ones. (The old order, shared spaces first, took
    // the shared space's eight in pass 1 of the first scan.)
    let mut st = storage();
    let mut core = Core::new(SEC);
    let mut cx = Cx::new(&mut core, 0);
    let mut pager = FakePager::default();
    st.create_space(0);
    st.create_space(1);
    let s = st.create_system_space(8192);
    // Eight pages of the shared space come in by a block read, untouched
    // since (unreferenced); others are written (referenced).
    for vp in 0..8 {
        let f = st.get_frame(&mut cx, &mut pager, s, vp).expect("a frame");
        st.mark_reading(s, vp, f, 1);
        assert!(st.read_in(s, vp, f, 1));
    }
    touch_as(&mut st, &mut cx, &mut pager, s, 8..1000);
    for vp in 8..1000 {
        st.table_mut(s)[vp as usize].e |= P_REF;
    }
    // Guest 1 fills half of storage, goes dormant for good and touches
    // nothing since: its frames are unreferenced.
    touch_as(&mut st, &mut cx, &mut pager, 1, 0..1500);
    for pe in st.table_mut(1) {
        pe.e &= !P_REF;
    }
    for _ in 0..LONG_DORMANT_TICKS {
        st.tick();
    }
    assert_eq!(st.sample(0).c.scans, 0);
    // Guest 0, in the dispatch list, takes the rest and more.
    st.set_category(0, Cat::Dispatch);
    let mut next = 0;
    touch_until_scan(&mut st, &mut cx, &mut pager, 0, &mut next, 1);
    let c = st.sample(0).c;
    assert_eq!(c.shared_by_pass, [0, 0, 0], "{c:?}");
    assert!(c.by_pass[0][0] > 0, "{c:?}");
    assert_eq!(st.guest(1).steals, c.steals);
    for vp in 0..8 {
        assert_eq!(tag(st.entry(s, vp).e), T_RES, "page {vp} was taken");
    }
    st.check();
}

#[test]
fn page_outs_are_batched_by_visit() {
    // No XSTOR: a scan's steals from the only user are page-outs, taken a
    // quantum per visit; each visit's pages are a batch of their own (M1:
    // a page-out block never joins pages of two visits).
    let mut st = Storage::new(&params(0), 1, &[8192, 8192]);
    let mut core = Core::new(SEC);
    let mut cx = Cx::new(&mut core, 0);
    let mut pager = FakePager::default();
    st.create_space(0);
    let dpa = st.dpa();
    for vp in 0..dpa + 1 {
        let f = st.get_frame(&mut cx, &mut pager, 0, vp).expect("a frame");
        st.first_touch(0, vp, f);
        if !st.pageouts().is_empty() {
            break;
        }
    }
    let batches: Vec<(u32, usize)> = st.pageouts().batches().map(|(g, v)| (g, v.len())).collect();
    let pages: usize = batches.iter().map(|b| b.1).sum();
    assert_eq!(pages as u64, st.sample(0).c.steals);
    assert!(batches.len() > 1, "one visit cannot take {pages} pages");
    assert!(
        batches
            .iter()
            .all(|&(g, n)| g == 0 && (1..=STEAL_QUANTUM as usize).contains(&n)),
        "{batches:?}"
    );
}

/// Every resident page of space `g` is referenced (as if its owner, or a
/// VDISK's users, touched them all since the last scan).
fn reference_all(st: &mut Storage, g: u32) {
    for pe in st.table_mut(g) {
        if tag(pe.e) == T_RES {
            pe.e |= P_REF;
        }
    }
}

/// Guest `g` first-touches new pages from `*next` until the demand scan has
/// run `scans` times in all; page-outs are written at once.
fn touch_until_scan(
    st: &mut Storage,
    cx: &mut Cx,
    pager: &mut FakePager,
    g: u32,
    next: &mut u32,
    scans: u64,
) {
    while st.sample(0).c.scans < scans {
        touch_as(st, cx, pager, g, *next..*next + 1);
        *next += 1;
    }
}

/// Steals by pass (first, second, emergency), all categories and shared.
fn by_pass(st: &Storage) -> [u64; 3] {
    let c = st.sample(0).c;
    std::array::from_fn(|p| c.by_pass[p].iter().sum::<u64>() + c.shared_by_pass[p])
}

#[test]
fn each_pass_looks_at_a_frame_once_so_pass_two_falls_short_on_referenced_frames() {
    let mut st = storage();
    let mut core = Core::new(SEC);
    let mut cx = Cx::new(&mut core, 0);
    let mut pager = FakePager::default();
    st.create_space(0);
    let mut next = 0;
    // Scan 1: every frame was first touched (referenced) since there was no
    // scan: pass 1 resets the bits and takes nothing, pass 2 takes no frame
    // pass 1 found referenced microseconds earlier, so the emergency pass
    // makes up the target. (The old rule, a pass going round the user's
    // list until it reached its target, took them all in pass 1 at the
    // third look.)
    touch_until_scan(&mut st, &mut cx, &mut pager, 0, &mut next, 1);
    let s1 = by_pass(&st);
    assert_eq!(st.sample(0).c.emergency_scans, 1);
    assert_eq!(s1[0] + s1[1], 0, "{s1:?}");
    assert!(s1[2] > 0, "{s1:?}");
    // Each pass walked the list once: pass 1 and pass 2 looked at every
    // frame once, the emergency pass at those it took.
    let resident_before = st.space(0).resident as u64 + s1[2];
    assert!(st.sample(0).c.examined <= 3 * resident_before);
    // Scan 2: the frames left were not referenced since scan 1: pass 1 finds
    // them unreferenced once (it needs two looks), pass 2 takes them; no
    // emergency.
    touch_until_scan(&mut st, &mut cx, &mut pager, 0, &mut next, 2);
    let s2 = by_pass(&st);
    assert_eq!(st.sample(0).c.emergency_scans, 1);
    assert_eq!(s2[0] - s1[0], 0, "{s1:?} -> {s2:?}");
    assert!(s2[1] - s1[1] > 0, "{s1:?} -> {s2:?}");
    assert_eq!(s2[2], s1[2]);
    // Scan 3: everything referenced again since scan 2: the emergency pass.
    reference_all(&mut st, 0);
    touch_until_scan(&mut st, &mut cx, &mut pager, 0, &mut next, 3);
    let s3 = by_pass(&st);
    assert_eq!(st.sample(0).c.emergency_scans, 2);
    assert_eq!((s3[0], s3[1]), (s2[0], s2[1]), "{s2:?} -> {s3:?}");
    assert!(s3[2] > s2[2]);
    st.check();
}

#[test]
fn referenced_vdisk_pages_are_taken_only_by_the_emergency_pass() {
    let mut st = storage();
    let mut core = Core::new(SEC);
    let mut cx = Cx::new(&mut core, 0);
    let mut pager = FakePager::default();
    st.create_space(0);
    // The guest is in the dispatch list (as S4's Linux guests): in every
    // pass the shared spaces come before it (a dormant user would come
    // before them, spec topic 1.3).
    st.set_category(0, Cat::Dispatch);
    // A VDISK's shared space holds half of storage, written (referenced).
    let vd = st.create_system_space(8192);
    let half = st.dpa() / 2;
    touch_as(&mut st, &mut cx, &mut pager, vd, 0..half);
    assert_eq!(st.sample(0).c.scans, 0);
    // The guest takes the rest and more; everything is referenced when the
    // scans run.
    let mut next = 0;
    reference_all(&mut st, vd);
    touch_until_scan(&mut st, &mut cx, &mut pager, 0, &mut next, 1);
    let c = st.sample(0).c;
    // Pass 1 found the VDISK pages referenced, pass 2 passed the shared
    // space over, so the emergency pass, shared space before the
    // dispatch list, took them.
    assert_eq!(c.shared_by_pass[0] + c.shared_by_pass[1], 0, "{c:?}");
    assert!(c.shared_by_pass[2] > 0, "{c:?}");
    assert_eq!(
        st.guest(0).steals,
        0,
        "the guest's frames are taken after the VDISK's"
    );
    let vdisk0 = st.space(vd).resident;
    // The guest's frames left alone since that scan: the next one takes
    // them in pass 2, and no VDISK page (pass 2 passes the space over).
    touch_until_scan(&mut st, &mut cx, &mut pager, 0, &mut next, 2);
    let c2 = st.sample(0).c;
    assert_eq!(c2.emergency_scans, 1, "{c2:?}");
    assert_eq!(c2.shared_by_pass, c.shared_by_pass);
    assert!(c2.by_pass[1][2] > 0, "{c2:?}");
    assert_eq!(st.space(vd).resident, vdisk0);
    st.check();
}

/// A system space holding a saved segment's read-only copy written over more
/// than storage and XSTOR hold, with the spool rule on (`spool`) or off.
fn segment_copy_overcommitted(spool: bool) -> (Storage, FakePager, u32, u32) {
    let mut st = storage();
    let mut core = Core::new(SEC);
    let mut cx = Cx::new(&mut core, 0);
    let mut pager = FakePager::default();
    st.create_space(0);
    let s = st.create_system_space(8192);
    if spool {
        st.set_spool_backed(s);
    }
    let n = st.dpa() + 500;
    touch_as(&mut st, &mut cx, &mut pager, s, 0..n);
    (st, pager, s, n)
}

#[test]
fn a_spool_backed_segment_page_goes_to_xstor_or_is_dropped_never_to_dasd() {
    let (st, pager, s, n) = segment_copy_overcommitted(true);
    let sp = st.space(s);
    let c = st.sample(0).c;
    assert!(c.steals > 0, "{c:?}");
    // Stolen pages filled XSTOR; the rest, and the XSTOR blocks migration
    // picked, were dropped: on spool only, nothing written to paging DASD.
    assert_eq!(sp.dasd, 0, "{sp:?}");
    assert!(sp.xstor > 0, "{sp:?}");
    assert!(
        pager.migrated.iter().all(|&(g, _)| g != s),
        "migrated a segment page"
    );
    assert!(st.spool_drops() > 0);
    assert_eq!(
        (sp.resident + sp.xstor) as u64 + st.spool_drops(),
        n as u64,
        "{sp:?}"
    );
    let dropped = (0..n)
        .filter(|&vp| tag(st.entry(s, vp).e) == T_NONE)
        .count() as u64;
    assert_eq!(dropped, st.spool_drops());
}

#[test]
fn without_the_spool_rule_the_same_pages_go_to_dasd() {
    // The control: the same space as an ordinary shared one (a VDISK's).
    let (st, pager, s, _) = segment_copy_overcommitted(false);
    let sp = st.space(s);
    assert_eq!(st.spool_drops(), 0);
    assert!(
        sp.dasd > 0 || pager.migrated.iter().any(|&(g, _)| g == s),
        "{sp:?}"
    );
}
