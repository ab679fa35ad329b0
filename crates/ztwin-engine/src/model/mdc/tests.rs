//! A bench for the minidisk cache alone: reads, stagings with frames lent by
//! a stand-in for `storage` (a counter), the arbiter fed literal inputs.

use super::*;
use crate::core::rng::{Rng, Stream};
use crate::core::units::Size;

fn params() -> MdcParams {
    MdcParams::default()
}

fn users(n: usize) -> Vec<String> {
    (0..n).map(|k| format!("U{k}")).collect()
}

/// Arbiter input with frames to spare: the cache may grow.
fn roomy() -> ArbiterInput {
    ArbiterInput {
        dpa: 100_000,
        avail: 50_000,
        high: 1_000,
        scans: 0,
        xs_total: 0,
        xs_free: 0,
        xs_low: 0,
        migrations: 0,
    }
}

/// Stand-in for storage: frames lent to the cache and given back.
#[derive(Default)]
struct Lender {
    lent: u64,
    back: u64,
}

impl Lender {
    /// Stage what a miss asks for and insert it, lending what it wants.
    fn stage(&mut self, m: &mut Mdc, vol: u32, g: u32, l: Lookup) -> Ns {
        let Lookup::Miss {
            first,
            units,
            insert,
        } = l
        else {
            panic!("not a miss: {l:?}")
        };
        let slot = m.begin_stage(StageReq {
            vol,
            first,
            units,
            unit_pages: 12,
            guest: g,
            vcpu: 7,
            insert,
        });
        let want = m.stage_frames(slot);
        self.lent += want;
        let (vcpu, cp) = m.end_stage(slot, want);
        assert_eq!(vcpu, 7);
        self.settle(m);
        cp
    }
    fn settle(&mut self, m: &mut Mdc) {
        let (cs, _) = m.take_released();
        self.back += cs;
        m.check();
        assert_eq!(
            self.lent - self.back,
            m.held().0,
            "frames lent = held + returned"
        );
    }
}

#[test]
fn a_staged_track_is_then_a_hit() {
    let mut m = Mdc::new(Some(&params()), &[0xE700, 0xE701], &users(2));
    m.arbiter(&roomy());
    let mut st = Lender::default();
    // Blocks 5..7 lie in track 0.
    let l = m.read(0, 0, 0, 12, 5, 3);
    assert_eq!(
        l,
        Lookup::Miss {
            first: 0,
            units: 1,
            insert: true
        }
    );
    let cp = st.stage(&mut m, 0, 0, l);
    assert_eq!(cp, 12 * 1_000, "insert cost per page");
    assert_eq!(m.held().0, 12);
    // Any block of track 0 now hits, from the other user too.
    assert_eq!(m.read(1, 0, 1, 12, 0, 12), Lookup::Hit { cp: 36_000 });
    assert_eq!(m.read(2, 0, 0, 12, 11, 1), Lookup::Hit { cp: 3_000 });
    // Blocks 11..13 span tracks 0 and 1: a miss staging both.
    assert_eq!(
        m.read(3, 0, 0, 12, 11, 2),
        Lookup::Miss {
            first: 0,
            units: 2,
            insert: true
        }
    );
    // Another volume's track 0 is another entry.
    assert!(matches!(m.read(4, 1, 0, 12, 0, 1), Lookup::Miss { .. }));
    let s = m.sample(100_000, 0);
    assert_eq!((s.c.reads, s.c.hits, s.c.pages_hit), (5, 2, 13));
    assert_eq!((m.avoided(0), m.avoided(1), m.guest_avoided(1)), (2, 0, 1));
}

#[test]
fn off_for_the_system_a_volume_or_a_user_bypasses() {
    let p = MdcParams {
        volumes_off: vec!["E701".into()],
        users_off: vec!["U1".into()],
        ..params()
    };
    let mut m = Mdc::new(Some(&p), &[0xE700, 0xE701], &users(2));
    assert!(matches!(m.read(0, 0, 0, 12, 0, 1), Lookup::Miss { .. }));
    assert_eq!(m.read(0, 1, 0, 12, 0, 1), Lookup::Bypass, "volume off");
    assert_eq!(m.read(0, 0, 1, 12, 0, 1), Lookup::Bypass, "user off");
    m.set(None, None, false);
    assert_eq!(m.read(0, 0, 0, 12, 0, 1), Lookup::Bypass, "system off");
    m.set(None, None, true);
    m.set(Some(1), None, true);
    assert!(matches!(m.read(0, 1, 0, 12, 0, 1), Lookup::Miss { .. }));
    // Without an [mdc] section the cache is off.
    let mut none = Mdc::new(None, &[0xE700], &users(1));
    assert_eq!(none.read(0, 0, 0, 12, 0, 1), Lookup::Bypass);
}

/// The cache holds at most its target: the least recently used tracks go,
/// to XSTOR while it has blocks, and XSTOR hits cost the page move.
#[test]
fn lru_evicts_to_xstor_then_drops() {
    let p = MdcParams {
        storage_max: Some(Size(2 * 12 * 4096)),
        ..params()
    };
    let mut m = Mdc::new(Some(&p), &[0xE700], &users(1));
    m.arbiter(&ArbiterInput {
        xs_total: 1_000,
        xs_free: 1_000,
        xs_low: 10,
        ..roomy()
    });
    m.lend_xstor(12);
    let mut st = Lender::default();
    for track in 0..4u64 {
        let l = m.read(track, 0, 0, 12, track * 12, 1);
        st.stage(&mut m, 0, 0, l);
    }
    assert_eq!(m.held().0, 24, "two tracks in central storage");
    let s = m.sample(100_000, 1_000);
    assert_eq!((s.c.demoted, s.c.evicted), (2, 1), "{:?}", s.c);
    // Track 0 was dropped, track 1 is in XSTOR, tracks 2 and 3 in storage.
    assert!(matches!(m.read(9, 0, 0, 12, 0, 1), Lookup::Miss { .. }));
    assert_eq!(
        m.read(9, 0, 0, 12, 12, 1),
        Lookup::Hit {
            cp: 3_000 + 12 * 4_000
        }
    );
    assert_eq!(m.read(9, 0, 0, 12, 36, 2), Lookup::Hit { cp: 6_000 });
    m.check();
}

#[test]
fn fair_share_limits_a_user_inserting_far_above_the_others() {
    let p = MdcParams {
        nomdcfs: vec!["U2".into()],
        ..params()
    };
    let mut m = Mdc::new(Some(&p), &[0xE700], &users(3));
    m.arbiter(&roomy());
    let mut st = Lender::default();
    let mut denied = [0u64; 3];
    let mut track = 0u64;
    // Second 0: U0 and U1 insert 10 tracks each; second 1: U0 tries 60,
    // U1 10, U2 (NOMDCFS) 60.
    for (sec, plan) in [(0u64, [10u32, 10, 0]), (1, [60, 10, 60])] {
        for (g, &n) in plan.iter().enumerate() {
            for _ in 0..n {
                let l = m.read(sec * 1_000_000_000 + 1, 0, g as u32, 12, track * 12, 1);
                track += 1;
                if let Lookup::Miss { insert: false, .. } = l {
                    denied[g] += 1;
                }
                st.stage(&mut m, 0, g as u32, l);
            }
        }
    }
    // Average in second 0: 120 pages per user; limit 2 x 120 = 240 pages,
    // but the floor is 256: U0 may insert 21 tracks (252 pages) of 60.
    assert_eq!(denied, [39, 0, 0]);
    assert_eq!(m.sample(0, 0).c.fs_denied, 39);
}

#[test]
fn the_arbiter_grows_with_spare_frames_and_shrinks_after_scans() {
    let p = MdcParams {
        storage_min: Size(100 * 4096),
        storage_max: Some(Size(20_000 * 4096)),
        nomdcfs: vec!["U0".into()],
        ..params()
    };
    let mut m = Mdc::new(Some(&p), &[0xE700], &users(1));
    let mut last = 0;
    for _ in 0..200 {
        m.arbiter(&roomy());
        let t = m.sample(100_000, 0).cs_target;
        assert!(t >= last && t <= 20_000);
        last = t;
    }
    assert_eq!(last, 20_000, "grown to its maximum");
    // Fill it, then a demand scan: it shrinks by the step (10%), less with a
    // bias above 1.
    let mut st = Lender::default();
    for track in 0..2_000u64 {
        let l = m.read(0, 0, 0, 12, track * 12, 1);
        st.stage(&mut m, 0, 0, l);
    }
    assert_eq!(m.held().0, 19_992);
    m.arbiter(&ArbiterInput {
        scans: 3,
        avail: 10,
        ..roomy()
    });
    st.settle(&mut m);
    assert_eq!(m.sample(100_000, 0).cs_target, 18_000);
    assert!(m.held().0 <= 18_000);
    // First victim: shrink on demand, never below the minimum.
    m.shrink(1_000_000);
    st.settle(&mut m);
    assert!(m.held().0 <= 100, "{}", m.held().0);
    assert_eq!(m.sample(100_000, 0).cs_target, 100);
    let mut b = Mdc::new(
        Some(&MdcParams {
            bias: 2.0,
            ..p.clone()
        }),
        &[0xE700],
        &users(1),
    );
    for _ in 0..200 {
        b.arbiter(&roomy());
    }
    b.arbiter(&ArbiterInput {
        scans: 1,
        avail: 10,
        ..roomy()
    });
    assert_eq!(
        b.sample(100_000, 0).cs_target,
        19_000,
        "bias 2 halves the shrink"
    );
}

/// Random reads, stagings and arbiter steps: the lists, the map and the
/// frame counts always agree, and every frame lent is held or given back.
#[test]
fn frames_lent_are_held_or_returned() {
    let mut m = Mdc::new(Some(&params()), &[1, 2, 3], &users(4));
    let mut rng = Rng::new(5, Stream::System, 0);
    let mut st = Lender::default();
    m.lend_xstor(0);
    for i in 0..20_000u64 {
        let vol = (rng.next_u64() % 3) as u32;
        let g = (rng.next_u64() % 4) as u32;
        let block = rng.next_u64() % 2_000;
        let n = 1 + (rng.next_u64() % 20) as u32;
        let l = m.read(i * 10_000_000, vol, g, 12, block, n);
        if let Lookup::Miss { .. } = l {
            st.stage(&mut m, vol, g, l);
        }
        if i % 500 == 0 {
            let scans = i / 1_000;
            m.arbiter(&ArbiterInput {
                scans,
                avail: if i % 1_000 == 0 { 10 } else { 5_000 },
                ..roomy()
            });
            st.settle(&mut m);
        }
    }
    let s = m.sample(100_000, 0);
    assert!(s.c.hits > 1_000 && s.c.evicted > 100, "{:?}", s.c);
}
