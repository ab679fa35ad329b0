//! The CEC on its own: partitions built from params literals, ticks driven by
//! hand, counters checked against PR/SM's rules.

use super::params::{CapGroup, PType, Params, Partition, Physical, ZvmPart};
use super::*;
use crate::core::units::{Duration, MS};
use proptest::prelude::*;

fn part(name: &str, logical: u16, weight: u16, busy: f64) -> Partition {
    Partition {
        name: name.into(),
        ptype: PType::CP,
        logical,
        weight,
        dedicated: false,
        capped: false,
        absolute_cap: None,
        group: None,
        vertical: false,
        busy,
        profile: Vec::new(),
    }
}

fn params(cp: u16, parts: Vec<Partition>) -> Params {
    Params {
        physical: Physical {
            cp,
            ..Default::default()
        },
        dispatch_interval: Duration(10 * MS),
        mgmt_us: 0.0,
        weight: 100,
        dedicated: false,
        capped: false,
        absolute_cap: None,
        group: None,
        vertical: false,
        partitions: parts,
        groups: Vec::new(),
    }
}

fn zvm(logical: u16) -> ZvmPart {
    ZvmPart {
        name: "ZVM1".into(),
        ptype: PType::CP,
        logical,
    }
}

/// Keep the z/VM partition's `n` logical processors busy for one interval.
fn zvm_busy(cec: &mut Cec, n: u16) {
    for c in 0..n {
        cec.stretch(c, cec.interval());
    }
}

fn dispatch(cec: &Cec, k: usize) -> u64 {
    let p = cec.partitions().nth(k).unwrap();
    p.lcpus.iter().map(|c| c.dispatch_ns).sum()
}

/// A CEC with room for everyone: every partition gets what it asks, z/VM's
/// processors run at full speed, no steal.
#[test]
fn room_for_everyone() {
    let p = params(6, vec![part("ZOS1", 4, 300, 2.0)]);
    p.validate(&zvm(2)).unwrap();
    let mut cec = Cec::new(&p, &zvm(2));
    for k in 0..10 {
        zvm_busy(&mut cec, 2);
        cec.tick(k * 10 * MS);
    }
    cec.check();
    assert_eq!(dispatch(&cec, 0), 2 * 10 * 10 * MS);
    assert_eq!(dispatch(&cec, 1), 2 * 10 * 10 * MS);
    assert_eq!(cec.speed(0), 1.0);
    let zos = cec.partitions().nth(1).unwrap();
    assert!(zos.lcpus.iter().all(|c| c.steal_ns() == 0));
}

/// S8's shape: z/OS partitions with 14 logical CPs saturate 6 physical
/// ones; z/VM's 2 logical CPs get their weight's share, and their bursts
/// stretch by the fraction they lost.
#[test]
fn saturated_cec_steals_from_zvm_by_weight() {
    let p = params(
        6,
        vec![
            part("ZOS1", 6, 200, 6.0),
            part("ZOS2", 6, 200, 6.0),
            part("ZOS3", 2, 100, 2.0),
        ],
    );
    let z = zvm(2);
    p.validate(&z).unwrap();
    let mut cec = Cec::new(&p, &z);
    for k in 0..50 {
        zvm_busy(&mut cec, 2);
        cec.tick(k * 10 * MS);
    }
    cec.check();
    // Weights 100 (z/VM), 200, 200, 100 of 600: z/VM's share 1 engine of 6,
    // but it asked for 2 (plus its stretched demand): it gets half a
    // physical CP per logical one at most.
    let z = cec.partitions().next().unwrap();
    let got: u64 = z.lcpus.iter().map(|c| c.dispatch_ns).sum();
    let dem: u64 = z.lcpus.iter().map(|c| c.demand_ns).sum();
    let engines = got as f64 / (50.0 * 10.0 * MS as f64);
    assert!((engines - 1.0).abs() < 0.01, "z/VM got {engines} engines");
    assert!(dem > got, "steal: demand {dem} dispatch {got}");
    assert!((cec.speed(0) - 0.5).abs() < 1e-9, "{}", cec.speed(0));
    assert_eq!(cec.stretch(0, 1_000_000), 2_000_000);
    let pool = cec.pools().find(|p| p.ptype == PType::CP).unwrap();
    assert_eq!(pool.c.busy_ns, pool.c.capacity_ns, "saturated");
}

/// Capping: an initially capped partition stays at its weight's share even
/// with idle capacity; an absolute cap holds it to its engines; a capacity
/// group holds its members together.
#[test]
fn caps_hold() {
    let mut a = part("CAPD", 4, 100, 4.0);
    a.capped = true;
    let mut b = part("ABS", 4, 100, 4.0);
    b.absolute_cap = Some(1.5);
    let mut g1 = part("G1", 4, 100, 4.0);
    g1.group = Some("GRP".into());
    let mut g2 = part("G2", 4, 100, 4.0);
    g2.group = Some("GRP".into());
    let mut p = params(8, vec![a, b, g1, g2]);
    p.groups = vec![CapGroup {
        name: "GRP".into(),
        limit: 2.0,
    }];
    let z = zvm(1);
    p.validate(&z).unwrap();
    let mut cec = Cec::new(&p, &z);
    for k in 0..10 {
        cec.tick(k * 10 * MS);
    }
    cec.check();
    let e = |k| dispatch(&cec, k) as f64 / (10.0 * 10.0 * MS as f64);
    // Weights 100 each of 500 on 8 engines: 1.6 engines' share.
    assert!((e(1) - 1.6).abs() < 1e-6, "initial cap {}", e(1));
    assert!((e(2) - 1.5).abs() < 1e-6, "absolute cap {}", e(2));
    assert!(
        (e(3) + e(4) - 2.0).abs() < 1e-6,
        "group {} + {}",
        e(3),
        e(4)
    );
    assert!((e(3) - e(4)).abs() < 1e-6, "equal weights in the group");
}

/// Vertical polarisation fills the first logical processors whole; PR/SM's
/// management time comes off the pool and is charged per dispatched one.
#[test]
fn vertical_and_management_time() {
    let mut v = part("VERT", 4, 100, 1.5);
    v.vertical = true;
    let mut p = params(4, vec![v, part("HORZ", 4, 100, 1.5)]);
    p.mgmt_us = 100.0;
    let z = zvm(1);
    let mut cec = Cec::new(&p, &z);
    cec.tick(0);
    cec.check();
    let vert = cec.partitions().nth(1).unwrap();
    let got: Vec<u64> = vert.lcpus.iter().map(|c| c.dispatch_ns).collect();
    assert_eq!(got, [10 * MS, 5 * MS, 0, 0]);
    assert_eq!(vert.lcpus.iter().filter(|c| c.mgmt_ns > 0).count(), 2);
    let horz = cec.partitions().nth(2).unwrap();
    assert!(horz.lcpus.iter().all(|c| c.dispatch_ns == 10 * MS * 3 / 8));
    assert_eq!(horz.lcpus.iter().filter(|c| c.mgmt_ns > 0).count(), 4);
    let pool = cec.pools().next().unwrap();
    assert_eq!(pool.c.mgmt_ns, 6 * 100_000);
    assert_eq!(pool.c.busy_ns, 30 * MS + 600_000);
}

/// Dedicated processors get what they demand, outside the shared pool.
#[test]
fn dedicated_outside_the_pool() {
    let mut d = part("DED", 2, 100, 2.0);
    d.dedicated = true;
    let p = params(4, vec![d, part("SHR", 4, 100, 4.0)]);
    let z = zvm(1);
    p.validate(&z).unwrap();
    let mut cec = Cec::new(&p, &z);
    zvm_busy(&mut cec, 1);
    cec.tick(0);
    cec.check();
    assert_eq!(dispatch(&cec, 1), 20 * MS);
    // The shared pool is 2 engines for z/VM (1 asked) and SHR (4 asked),
    // equal weights: z/VM 1, SHR 1 (z/VM limited by its demand).
    assert_eq!(dispatch(&cec, 0), 10 * MS);
    assert_eq!(dispatch(&cec, 2), 10 * MS);
}

/// A profile changes a partition's demand at its times.
#[test]
fn profile_steps() {
    let mut a = part("ZOS1", 4, 100, 1.0);
    a.profile = vec![(0.05, 3.0)];
    let p = params(4, vec![a]);
    let mut cec = Cec::new(&p, &zvm(1));
    for k in 1..=10 {
        cec.tick(k * 10 * MS);
    }
    // The intervals from 0 to 50 ms at 1 engine, from 50 to 100 ms at 3 (an
    // interval's demand is the profile's at its start).
    assert_eq!(dispatch(&cec, 1), (5 * 10 + 5 * 30) * MS);
}

fn arb_part(i: usize) -> impl Strategy<Value = Partition> {
    (
        1u16..=6,
        1u16..=999,
        0.0f64..=1.0,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(move |(logical, weight, load, capped, vertical)| {
            let mut p = part(&format!("P{i}"), logical, weight, load * logical as f64);
            p.capped = capped;
            p.vertical = vertical;
            p
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Physical busy never above capacity; nobody gets more than it asked or
    /// more than one engine per logical processor; z/VM's fractions in 0..=1.
    #[test]
    fn physical_busy_never_above_capacity(
        cp in 6u16..=12,
        parts in (0usize..6).prop_flat_map(|n| (0..n).map(arb_part).collect::<Vec<_>>()),
        zl in 1u16..=6,
        mgmt in 0.0f64..=500.0,
        ticks in 1u64..20,
    ) {
        let mut p = params(cp, parts);
        p.mgmt_us = mgmt;
        let z = zvm(zl);
        prop_assume!(p.validate(&z).is_ok());
        let mut cec = Cec::new(&p, &z);
        for k in 0..ticks {
            zvm_busy(&mut cec, zl);
            cec.tick(k * 10 * MS);
            cec.check();
            for c in 0..zl {
                prop_assert!((0.0..=1.0).contains(&cec.speed(c)));
            }
        }
        for pool in cec.pools() {
            prop_assert!(pool.c.busy_ns <= pool.c.capacity_ns, "{:?}", pool);
        }
    }

    /// Under contention (every partition asks for all its logical
    /// processors), within one dispatch interval: partitions not held by
    /// their logical count or a cap get shares in proportion to their
    /// weights; a held one gets no more than that level; the pool is used up.
    #[test]
    fn weights_honoured_within_the_dispatch_interval(
        ws in proptest::collection::vec((1u16..=999, 1u16..=8), 1..6),
        zw in 1u16..=999,
        zl in 1u16..=8,
    ) {
        let parts: Vec<Partition> = ws
            .iter()
            .enumerate()
            .map(|(i, &(w, n))| part(&format!("P{i}"), n, w, n as f64))
            .collect();
        let mut p = params(8, parts);
        p.weight = zw;
        let z = zvm(zl);
        p.validate(&z).unwrap();
        let mut cec = Cec::new(&p, &z);
        zvm_busy(&mut cec, zl);
        cec.tick(0);
        cec.check();
        let d = 10.0 * MS as f64;
        let got: Vec<(f64, f64, f64)> = cec
            .partitions()
            .map(|q| {
                let g: u64 = q.lcpus.iter().map(|c| c.dispatch_ns).sum();
                (g as f64, q.weight as f64, q.lcpus.len() as f64 * d)
            })
            .collect();
        // The common level: got/weight of the partitions below their limit
        // (each logical processor's time is whole ns, and z/VM's is its
        // bursts' CPU time at its fraction, a ceil and a floor: up to 2 ns
        // per logical processor, 16 ns a partition, that the others take).
        let free: Vec<(f64, f64)> = got
            .iter()
            .filter(|(g, _, l)| *g < l - 16.0)
            .map(|&(g, w, _)| (g, w))
            .collect();
        if let Some(&(g0, w0)) = free.first() {
            let lv = g0 / w0;
            let tol = |g: f64, w: f64| 16.0 + 16.0 * w / w0 + 1e-9 * g;
            for &(g, w) in &free {
                prop_assert!((g - lv * w).abs() <= tol(g, w), "{:?}", got);
            }
            for &(g, w, l) in &got {
                if g >= l - 16.0 {
                    prop_assert!(g <= lv * w + tol(g, w), "{:?}", got);
                }
            }
            // The pool is used up (a partition below its limit wanted more).
            let total: f64 = got.iter().map(|x| x.0).sum();
            prop_assert!(total >= 8.0 * d - got.len() as f64 * 8.0, "{} of {}", total, 8.0 * d);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// Under contention (every partition, z/VM's too, asks for all its
    /// logical processors; horizontal polarisation), each partition's
    /// logical processors share its weight's part evenly, and what z/VM's
    /// logical processors run in an interval (the fraction of a physical
    /// processor its bursts get: its own busy) is what PR/SM dispatched them.
    #[test]
    fn logical_busy_consistent_with_the_share_under_contention(
        ws in proptest::collection::vec((1u16..=999, 1u16..=8), 1..6),
        zw in 1u16..=999,
        zl in 1u16..=8,
    ) {
        let parts: Vec<Partition> = ws
            .iter()
            .enumerate()
            .map(|(i, &(w, n))| part(&format!("P{i}"), n, w, n as f64))
            .collect();
        let mut p = params(8, parts);
        p.weight = zw;
        let z = zvm(zl);
        p.validate(&z).unwrap();
        let mut cec = Cec::new(&p, &z);
        let d = cec.interval();
        zvm_busy(&mut cec, zl);
        cec.tick(d);
        let before: Vec<Vec<u64>> = cec
            .partitions()
            .map(|q| q.lcpus.iter().map(|c| c.dispatch_ns).collect())
            .collect();
        let speed: Vec<f64> = (0..zl).map(|c| cec.speed(c)).collect();
        zvm_busy(&mut cec, zl);
        cec.tick(2 * d);
        cec.check();
        for (k, q) in cec.partitions().enumerate() {
            let got: Vec<u64> = q
                .lcpus
                .iter()
                .zip(&before[k])
                .map(|(c, b)| c.dispatch_ns - b)
                .collect();
            let (lo, hi) = (got.iter().min().unwrap(), got.iter().max().unwrap());
            prop_assert!(hi - lo <= 4, "partition {k}: {:?}", got);
            if k == 0 {
                // The z/VM entry: each logical processor ran its fraction.
                for (c, &g) in got.iter().enumerate() {
                    let ran = speed[c] * d as f64;
                    prop_assert!((g as f64 - ran).abs() <= 4.0 + 1e-9 * ran, "cpu {c}: {g} vs {ran}");
                }
            }
        }
    }
}

/// The bad-input list of issue 15, each naming its key.
#[test]
fn bad_input_names_the_key() {
    let z = zvm(2);
    let check = |p: &Params, place: &str, want: &str| {
        let e = p.validate(&z).unwrap_err();
        assert_eq!(e.place, place, "{}", e.reason);
        assert!(e.reason.contains(want), "{}", e.reason);
    };
    // More dedicated processors than the CEC has.
    let mut a = part("ZOS1", 4, 100, 1.0);
    a.dedicated = true;
    let mut b = part("ZOS2", 4, 100, 1.0);
    b.dedicated = true;
    check(
        &params(6, vec![a.clone(), b]),
        "lpar.partition[1].dedicated",
        "dedicates 4 CPs, but the CEC has 6 and 4 are already dedicated",
    );
    // A weight of 0.
    check(
        &params(6, vec![part("ZOS1", 2, 0, 1.0)]),
        "lpar.partition[0].weight",
        "a weight is 1 to 999",
    );
    let mut p = params(6, vec![]);
    p.weight = 0;
    check(&p, "lpar.weight", "a weight is 1 to 999");
    // A cap below a dedicated share.
    let mut c = a.clone();
    c.absolute_cap = Some(2.0);
    check(
        &params(6, vec![c]),
        "lpar.partition[0].absolute_cap",
        "below its dedicated share (4 dedicated CPs)",
    );
    // More logical processors than physical ones of the type.
    check(
        &params(6, vec![part("ZOS1", 8, 100, 1.0)]),
        "lpar.partition[0].logical",
        "8 logical CPs but the CEC has 6 physical CPs",
    );
    // Names: twice, the z/VM partition's, too long.
    check(
        &params(6, vec![part("ZVM1", 2, 100, 1.0)]),
        "lpar.partition[0].name",
        "defined twice",
    );
    check(
        &params(6, vec![part("TOOLONGNAME", 2, 100, 1.0)]),
        "lpar.partition[0].name",
        "1 to 8 characters",
    );
    // A group that does not exist; busy above the logical processors.
    let mut g = part("ZOS1", 2, 100, 1.0);
    g.group = Some("NOPE".into());
    check(
        &params(6, vec![g]),
        "lpar.partition[0].group",
        "no [[lpar.group_cap]] named NOPE",
    );
    check(
        &params(6, vec![part("ZOS1", 2, 100, 3.0)]),
        "lpar.partition[0].busy",
        "busy is 0 to its 2 logical processors",
    );
    // Every processor of the type dedicated: nothing left to share.
    let mut all = part("ZOS1", 6, 100, 1.0);
    all.dedicated = true;
    check(
        &params(6, vec![all]),
        "lpar.dedicated",
        "all 6 of the CEC's are dedicated",
    );
    // A profile going back in time.
    let mut pr = part("ZOS1", 2, 100, 1.0);
    pr.profile = vec![(10.0, 1.0), (5.0, 2.0)];
    check(
        &params(6, vec![pr]),
        "lpar.partition[0].profile[1]",
        "ascending",
    );
}

/// A z/OS partition with CPs and zIIPs: two entries under one name, one
/// partition number, each type divided in its own pool.
#[test]
fn a_partition_with_two_processor_types() {
    let mut p = params(
        6,
        vec![part("ZOS1", 4, 300, 4.0), part("ZOS2", 2, 100, 2.0)],
    );
    p.physical.ziip = 2;
    let mut z = part("ZOS1", 2, 50, 0.5);
    z.ptype = PType::ZIIP;
    p.partitions.push(z);
    p.validate(&zvm(2)).unwrap();
    let mut cec = Cec::new(&p, &zvm(2));
    for k in 1..=10u64 {
        cec.tick(k * cec.interval());
    }
    cec.check();
    assert_eq!(cec.partition_count(), 3);
    let nums: Vec<(u16, &str, PType)> = cec
        .partitions()
        .map(|p| (p.number, p.name, p.ptype))
        .collect();
    assert_eq!(
        nums,
        [
            (1, "ZVM1", PType::CP),
            (2, "ZOS1", PType::CP),
            (3, "ZOS2", PType::CP),
            (2, "ZOS1", PType::ZIIP)
        ]
    );
    // The zIIP pool (2) is ZOS1's alone: its 0.5 engines in full.
    let d = cec.interval() as f64 * 10.0;
    let ziip: u64 = cec
        .partitions()
        .nth(3)
        .unwrap()
        .lcpus
        .iter()
        .map(|l| l.dispatch_ns)
        .sum();
    assert!((ziip as f64 / d - 0.5).abs() < 1e-6, "{}", ziip as f64 / d);
    // The same name twice with the same type is still refused.
    let mut twice = params(
        6,
        vec![part("ZOS1", 2, 100, 1.0), part("ZOS1", 2, 100, 1.0)],
    );
    twice.physical.ziip = 2;
    let e = twice.validate(&zvm(2)).unwrap_err();
    assert_eq!(e.place, "lpar.partition[1].name");
    assert!(
        e.reason
            .contains("second entry must be of another processor type"),
        "{}",
        e.reason
    );
}

/// A partition's availability (for the network's rendezvous): the share of
/// its demand PR/SM delivered in the last interval; 1 when it asks for no
/// more than it gets or asks for nothing; found by name, its CP entry first.
#[test]
fn availability_is_the_delivered_share_of_demand() {
    let mut zip = part("ZOS1", 2, 300, 1.0);
    zip.ptype = PType::ZIIP;
    let p = Params {
        physical: Physical {
            cp: 4,
            ziip: 2,
            ..Default::default()
        },
        ..params(
            4,
            vec![
                zip,
                part("ZOS1", 4, 100, 4.0),
                part("ZOS2", 4, 300, 4.0),
                part("IDLE", 2, 100, 0.0),
            ],
        )
    };
    let z = zvm(1);
    p.validate(&z).unwrap();
    let mut cec = Cec::new(&p, &z);
    for k in 1..=5 {
        cec.tick(k * 10 * MS);
    }
    // Weights 100 (z/VM, asking nothing), 100, 300 and 100 (idle) on 4 CPs:
    // ZOS1 gets 1 engine of the 4 it asks for, ZOS2 3 of 4.
    let zos1 = cec.find("zos1").unwrap();
    assert_eq!(zos1, 2, "the CP entry, not the zIIP one");
    assert!(
        (cec.availability(zos1) - 0.25).abs() < 1e-9,
        "{}",
        cec.availability(zos1)
    );
    let zos2 = cec.find("ZOS2").unwrap();
    assert!((cec.availability(zos2) - 0.75).abs() < 1e-9);
    assert_eq!(cec.availability(cec.find("IDLE").unwrap()), 1.0);
    assert_eq!(cec.availability(1), 1.0, "the zIIP pool has room");
    assert_eq!(cec.logical(zos1), 4);
    assert!(cec.find("NOSUCH").is_none());
}
