//! The VDISK component on its own (limits, refusals, serialisation), and
//! whole runs: a VDISK's pages as host storage CP pages, CP's commands and
//! messages, the demand scan's treatment of referenced VDISK pages.

use super::params::{parse_limit, Limit, Params};
use super::*;
use crate::model::monitor;
use crate::model::Twin;
use crate::scenario::Scenario;

fn vd(syslim: &str, userlim: &str) -> Vdisks {
    let p = Params {
        syslim: Some(syslim.into()),
        userlim: Some(userlim.into()),
        ..Params::default()
    };
    p.validate().unwrap();
    Vdisks::new(&p, 1 << 30)
}

#[test]
fn limits_parse_as_set_vdisk_takes_them() {
    assert_eq!(parse_limit(&["INFINITE"]), Ok(Limit::Infinite));
    assert_eq!(parse_limit(&["1000", "BLK"]), Ok(Limit::Blocks(1000)));
    assert_eq!(parse_limit(&["2G"]), Ok(Limit::Blocks(4 << 20)));
    assert_eq!(parse_limit(&["512m"]), Ok(Limit::Blocks(1 << 20)));
    assert!(parse_limit(&["lots"]).is_err());
    assert!(parse_limit(&[]).is_err());
    // Built-in defaults: a quarter of central storage; USERLIM 144000.
    let d = Vdisks::new(&Params::default(), 8 << 30);
    assert_eq!(d.limits(), (Limit::Blocks(4 << 20), Limit::Blocks(144_000)));
}

#[test]
fn define_is_refused_over_the_limits() {
    let mut v = vd("3000", "2000");
    assert_eq!(v.can_define(0, 0x300, 2000, false), Ok(()));
    v.define(0, 0x300, 2000, 10, 0, false);
    // Same device again; over USERLIM; a directory VDISK is not bound by it.
    assert_eq!(v.can_define(0, 0x300, 8, false), Err(Refusal::Exists));
    assert_eq!(v.can_define(0, 0x301, 8, false), Err(Refusal::Userlim));
    assert_eq!(v.can_define(0, 0x301, 8, true), Ok(()));
    // Another user: within USERLIM but over SYSLIM.
    assert_eq!(v.can_define(1, 0x300, 1001, false), Err(Refusal::Syslim));
    assert_eq!(v.can_define(1, 0x300, 1000, false), Ok(()));
    assert_eq!(v.in_use(None), 2000);
    // Detached: its blocks are free again.
    assert_eq!(v.detach(0), 10);
    assert_eq!(v.in_use(None), 0);
    assert_eq!(v.find(0, 0x300), None);
    v.set_syslim(Limit::Infinite);
    v.set_userlim(Limit::Infinite);
    assert_eq!(v.can_define(2, 0x300, params::MAX_BLOCKS, false), Ok(()));
    v.check();
}

/// The spin of a one-page I/O on VDISK `k` at `t` (its CP time less its
/// work, the hold included).
fn spin(v: &mut Vdisks, k: u32, t: Ns) -> Ns {
    let before = v.disk(k).c.spin_ns;
    let cp = v.io_cp(k, t, 1);
    let s = v.disk(k).c.spin_ns - before;
    assert_eq!(cp, s + v.io_cost(1).max(v.lock_ns), "CP time = spin + work");
    s
}

#[test]
fn the_serialisation_makes_concurrent_ios_spin() {
    let mut v = vd("infinite", "infinite");
    v.define(0, 0x300, 800, 1, 0, false);
    v.define(1, 0x300, 800, 2, 0, false);
    let hold = crate::core::us_to_ns(Params::default().lock_us);
    // The default hold (1 us) is within the I/O's own CP work (7 us): the
    // I/O costs what it did without the lock.
    assert_eq!(v.io_cp(0, 0, 1), v.io_cost(1));
    // Two users' I/Os at the same instant: the second spins one hold.
    assert_eq!(spin(&mut v, 0, 1000), 0);
    assert_eq!(spin(&mut v, 1, 1000), hold);
    // One after the serialisation is free again: no spin.
    assert_eq!(spin(&mut v, 1, 1000 + 10 * hold), 0);
    assert_eq!(v.disk(1).c.spin_ns, hold);
    // An I/O taking it at a later time (its burst did a long scan first),
    // then one at an earlier time, done before: no spin for the earlier one
    // (it held the serialisation first), and a third, at the later time,
    // queues behind the first.
    let later = 1_000_000_000;
    assert_eq!(spin(&mut v, 0, later), 0);
    assert_eq!(spin(&mut v, 1, 5000), 0);
    assert_eq!(spin(&mut v, 1, later), hold);
    assert_eq!(v.disk(1).c.spin_ns, 2 * hold);
    // Any hold makes an I/O spin, its own VDISK's too (a second virtual CPU
    // of the same guest): the lock is the system's, not the device's.
    assert_eq!(spin(&mut v, 0, 2 * later), 0);
    assert_eq!(spin(&mut v, 0, 2 * later), hold);
}

#[test]
fn a_hold_longer_than_the_work_is_the_ios_cp_time() {
    let p = Params {
        lock_us: 800.0,
        ..Params::default()
    };
    let mut v = Vdisks::new(&p, 1 << 30);
    v.define(0, 0x300, 800, 1, 0, false);
    // CP does the I/O's work with the lock held: 800 us of CP time, not 7.
    assert_eq!(v.io_cp(0, 0, 1), 800_000);
    // A 1,000-page I/O's work (6 + 1,000 us) outlasts the hold.
    assert_eq!(v.io_cp(0, 800_000, 1000), 1_006_000);
    assert_eq!(v.disk(0).c.spin_ns, 0);
}

/// Holds of the serialisation never overlap, whatever order the I/Os ask
/// in (bursts computed out of time order), each I/O holds it exactly
/// `lock_us`, and none starts before its own time.
mod lock_holds {
    use super::*;
    use proptest::prelude::*;

    fn lock(hold_us: f64) -> Vdisks {
        let p = Params {
            lock_us: hold_us,
            ..Params::default()
        };
        let mut v = Vdisks::new(&p, 1 << 30);
        for g in 0..4 {
            v.define(g, 0x300, 800, g + 1, 0, false);
        }
        v
    }

    proptest! {
        #[test]
        fn holds_never_overlap(ios in proptest::collection::vec((0u64..5_000_000, 0u32..4), 1..200), hold in 1u32..400) {
            let mut v = lock(hold as f64);
            let h = hold as u64 * 1000;
            for &(t, k) in &ios {
                let s = spin(&mut v, k, t);
                // Spinning is for other I/Os' holds and the gaps between
                // them too short for one: less than two holds per I/O.
                prop_assert!(s < 2 * h * ios.len() as u64);
            }
            // The calendar covers exactly the holds given (one each, never
            // two at once), in time order.
            let spans = v.lock_spans();
            prop_assert_eq!(spans.iter().map(|s| s.1 - s.0).sum::<u64>(), h * ios.len() as u64);
            for w in spans.windows(2) {
                prop_assert!(w[0].1 < w[1].0, "spans {:?} and {:?} overlap or touch", w[0], w[1]);
            }
        }

        /// One guest alone (one virtual CPU: each I/O after the previous
        /// one's CP time, then any think) never spins and never has a hold
        /// booked beyond its current time plus one hold, whatever the hold
        /// and the I/Os' sizes: it cannot book the lock ahead of its own
        /// progress.
        #[test]
        fn one_guest_never_spins_nor_books_ahead(
            ios in proptest::collection::vec((0u64..2_000_000, 1u32..64), 1..200),
            hold in 1u32..2000,
        ) {
            let mut v = lock(hold as f64);
            let h = hold as u64 * 1000;
            let mut t = 0;
            for (think, pages) in ios {
                t += think;
                let cp = v.io_cp(0, t, pages);
                prop_assert_eq!(cp, v.io_cost(pages).max(h), "no spin");
                let booked = v.lock_spans().last().unwrap().1;
                prop_assert!(booked <= t + h, "booked to {} at {} + {}", booked, t, h);
                t += cp;
            }
            prop_assert_eq!(v.disk(0).c.spin_ns, 0);
        }

        /// Two guests issuing I/Os back to back (each its next as soon as
        /// its previous one ends), asked in time order: they alternate on
        /// the lock, each spinning one hold per I/O after the first.
        #[test]
        fn two_guests_alternate(n in 2usize..50, hold in 8u32..2000, t0 in 0u64..1_000_000) {
            let mut v = lock(hold as f64);
            let h = hold as u64 * 1000;
            let mut next = [t0, t0];
            let mut order = Vec::new();
            for _ in 0..2 * n {
                // The earlier of the two next I/Os first (ties: guest 0).
                let k = if next[1] < next[0] { 1 } else { 0 };
                let t = next[k];
                let cp = v.io_cp(k as u32, t, 1);
                // Its hold started when the spin ended.
                order.push((t + cp - h, k));
                next[k] = t + cp;
            }
            order.sort();
            for (i, &(start, k)) in order.iter().enumerate() {
                prop_assert_eq!(k, i % 2, "holds alternate: {:?}", order);
                prop_assert_eq!(start, t0 + i as u64 * h, "back to back: {:?}", order);
            }
            // Every I/O but each guest's first spun one hold (the first of
            // guest 1 waited for guest 0's first).
            prop_assert_eq!(v.disk(0).c.spin_ns, (n as u64 - 1) * h);
            prop_assert_eq!(v.disk(1).c.spin_ns, n as u64 * h);
        }
    }

    #[test]
    fn an_earlier_io_asked_later_queues_behind_a_hold_it_overlaps() {
        let mut v = lock(100.0);
        // A burst took the lock at 1.00 ms; another user's I/O at 0.95 ms,
        // computed afterwards, would overlap it: it waits until 1.10 ms
        // (the old rule let it pass).
        assert_eq!(spin(&mut v, 0, 1_000_000), 0);
        assert_eq!(spin(&mut v, 1, 950_000), 150_000);
        // A third user's at 0.80 ms fits in the gap before: no spin.
        assert_eq!(spin(&mut v, 2, 800_000), 0);
        assert_eq!(
            v.lock_spans(),
            vec![(800_000, 900_000), (1_000_000, 1_200_000)]
        );
        // Filling the gap merges the spans.
        assert_eq!(spin(&mut v, 3, 850_000), 50_000);
        assert_eq!(v.lock_spans(), vec![(800_000, 1_200_000)]);
        // Spans older than the horizon are dropped.
        assert_eq!(spin(&mut v, 0, 5_000_000_000), 0);
        assert_eq!(v.lock_spans(), vec![(5_000_000_000, 5_000_100_000)]);
    }
}

/// 512 MB central storage, XSTOR, paging; one Linux guest with a working
/// set, a writer with a 256 MB directory VDISK; CP commands on the way.
const VDISK: &str = r#"
[scenario]
duration = "60s"
[system]
processors = 2
central_storage = "384M"
xstor = "128M"
[monitor]
sample_interval = "10s"
[vdisk]
syslim = "400M"
userlim = "infinite"
[[paging]]
device_type = "3390-3"
count = 2
first_address = "7900"
volser_prefix = "PG"
[[guest]]
userid = "LNX"
virtual_storage = "512M"
workload = { type = "thrasher", area = "400M", pattern = "working_set", hot_fraction = 0.5, hot_share = 0.9, touch = "write", cpu_per_touch_us = 5.0, burst_touches = 50, think = "10ms" }
[[guest]]
userid = "VDW"
virtual_storage = "64M"
vdisk = [{ vdev = "0300", size = "256M" }]
workload = { type = "vdisk_io", vdev = "300", access = "random", pages_per_io = 8, write_share = 0.7, hot_fraction = 0.5, hot_share = 0.9, think = "1ms" }
[[timeline]]
at = "1s"
action = "cp"
guest = "VDW"
command = "define vfb-512 as 301 blk 400000"
[[timeline]]
at = "2s"
action = "cp"
command = "set vdisk syslim 1G"
[[timeline]]
at = "3s"
action = "cp"
guest = "VDW"
command = "define vfb-512 as 301 blk 400000"
[[timeline]]
at = "4s"
action = "cp"
command = "query vdisk syslim"
[[timeline]]
at = "30s"
action = "cp"
command = "query vdisk"
[[timeline]]
at = "40s"
action = "cp"
guest = "VDW"
command = "detach 301"
[[timeline]]
at = "41s"
action = "cp"
guest = "VDW"
command = "detach 301"
"#;

fn run(text: &str, seed: u64) -> (Vec<u8>, Twin, Vec<String>) {
    let sc = Scenario::from_toml(text, "vdisk.toml").unwrap();
    let mut twin = Twin::new(&sc, seed, None);
    let start = ztwin_monitor::tod::parse_iso8601(&sc.scenario.start).unwrap();
    let mut emit = monitor::Emitter::new(Vec::new(), start, sc.release());
    twin.run(&mut emit, &mut |_, _| true).unwrap();
    let console = twin.model.console.take();
    (emit.finish().unwrap(), twin, console)
}

#[test]
fn vdisk_pages_are_host_storage_cp_pages() {
    let (bytes, twin, console) = run(VDISK, 1);
    let m = &twin.model;
    m.check();
    let con = console.join("\n");
    let d = m.vdisk.disk(0);
    assert_eq!((d.vdev, d.blocks, d.directory), (0x300, 524_288, true));
    // 524288 + 400000 > 819200 (SYSLIM 400M): refused, then allowed at 1G.
    assert!(
        con.contains("> define vfb-512 as 301 blk 400000\n"),
        "{con}"
    );
    assert!(
        con.contains("HCP1380E Virtual disk 0301 not defined"),
        "{con}"
    );
    assert!(con.contains("DASD 0301 DEFINED"), "{con}");
    assert!(
        con.contains("VDISK SYSTEM LIMIT IS 2097152 BLK, 924288 BLK IN USE"),
        "{con}"
    );
    assert!(con.contains("OWNERID  VDEV     BLOCKS RESIDENT"), "{con}");
    assert!(con.contains("VDW      0300     524288"), "{con}");
    assert!(con.contains("DASD 0301 DETACHED"), "{con}");
    assert!(con.contains("HCP040E Device 0301 does not exist"), "{con}");
    assert_eq!(m.vdisk.refused, [1, 0]);
    // The writer's I/Os: CP copies, pages written become resident, the
    // little-read rest never takes a frame.
    let c = d.c;
    assert!(c.ios > 10_000, "{c:?}");
    assert!(c.pages_written > c.pages_read, "{c:?}");
    let sp = m.st.space(d.space);
    assert!(sp.resident > 1000, "{sp:?}");
    assert!(sp.resident + sp.xstor + sp.dasd <= d.pages(), "{sp:?}");
    // Storage is short: frames were stolen, and the steals took VDISK pages
    // (written, so referenced) only in the emergency pass, the only one that
    // takes a referenced shared page; never in pass 2.
    let st = m.st.sample(twin.core.now);
    assert!(st.c.steals > 1000, "{st:?}");
    assert_eq!(st.c.shared_by_pass[1], 0, "{st:?}");
    // Pass 1 takes a VDISK page only unreferenced: one read back in with a
    // block and not touched since, after the emergency pass took it.
    if st.c.shared_by_pass[2] == 0 {
        assert_eq!(st.c.shared_by_pass[0], 0, "{st:?}");
    }
    // The detached VDISK left nothing behind.
    let d1 = m.vdisk.disk(1);
    assert!(!d1.live);
    let sp1 = m.st.space(d1.space);
    assert_eq!((sp1.resident, sp1.xstor), (0, 0), "{sp1:?}");
    // Same seed, same bytes.
    let (again, _, console2) = run(VDISK, 1);
    assert!(again == bytes, "the run repeats byte for byte");
    assert_eq!(console, console2);
}

#[test]
fn a_reader_of_an_unwritten_vdisk_takes_no_frames() {
    let text = VDISK[..VDISK.find("[[timeline]]").unwrap()]
        .replace("write_share = 0.7", "write_share = 0.0")
        .replace("duration = \"60s\"", "duration = \"20s\"");
    let (_, twin, _) = run(&text, 2);
    let d = twin.model.vdisk.disk(0);
    assert!(d.c.ios > 1000 && d.c.pages_written == 0, "{:?}", d.c);
    assert_eq!(twin.model.st.space(d.space).resident, 0);
}

#[test]
fn logoff_destroys_the_directory_vdisk() {
    let text =
        format!("{VDISK}\n[[timeline]]\nat = \"50s\"\naction = \"logoff\"\nguest = \"VDW\"\n");
    let (_, twin, _) = run(&text, 3);
    let m = &twin.model;
    m.check();
    for d in m.vdisk.disks() {
        assert!(!d.live);
        let sp = m.st.space(d.space);
        assert_eq!((sp.resident, sp.xstor), (0, 0), "{sp:?}");
    }
    assert_eq!(m.vdisk.in_use(None), 0);
}
