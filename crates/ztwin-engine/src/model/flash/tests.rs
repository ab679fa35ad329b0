use super::params::{Alloc, Params};
use super::*;
use crate::core::units::Size;

fn part(name: &str, init: u64, max: Option<u64>) -> Alloc {
    Alloc {
        name: name.into(),
        initial: Size(init << 30),
        maximum: max.map(|m| Size(m << 30)),
    }
}

#[test]
fn defaults_are_valid_and_capacity_is_per_pair() {
    let p = Params {
        card_pairs: 4,
        ..Params::default()
    };
    p.validate().unwrap();
    assert_eq!(p.capacity(), 4 * (1400u64 << 30));
}

#[test]
fn allocation_must_be_16g_multiple() {
    let p = Params {
        partition: vec![part("ZOS1", 20, None)],
        ..Params::default()
    };
    let e = p.validate().unwrap_err();
    assert_eq!(e.place, "flash.partition[0].initial");
    assert!(e.reason.contains("increments of 16G"), "{}", e.reason);
}

#[test]
fn initial_allocations_over_capacity_are_refused() {
    let p = Params {
        partition: vec![part("A", 1024, None), part("B", 512, None)],
        ..Params::default()
    };
    let e = p.validate().unwrap_err();
    assert_eq!(e.place, "flash.partition[1].initial");
    assert!(
        e.reason.contains("over the usable capacity"),
        "{}",
        e.reason
    );
    // The same with two pairs fits.
    let p = Params { card_pairs: 2, ..p };
    p.validate().unwrap();
}

#[test]
fn maximum_over_capacity_or_below_initial_is_refused() {
    let p = Params {
        partition: vec![part("A", 16, Some(2048))],
        ..Params::default()
    };
    assert!(p
        .validate()
        .unwrap_err()
        .reason
        .contains("over the usable capacity"));
    let p = Params {
        partition: vec![part("A", 32, Some(16))],
        ..Params::default()
    };
    assert!(p
        .validate()
        .unwrap_err()
        .reason
        .contains("below the initial"));
    let p = Params {
        card_pairs: 5,
        ..Params::default()
    };
    assert_eq!(p.validate().unwrap_err().place, "flash.card_pairs");
}

#[test]
fn transfers_queue_beyond_parallelism() {
    let p = Params {
        parallelism: 2,
        ..Params::default()
    };
    assert_eq!(Params::default().parallelism, 4);
    let mut f = Flash::new(&p);
    let l = f.latency(Unit::Page);
    assert_eq!(l, 50_000);
    assert_eq!(f.transfer(0, Unit::Page, true), l);
    assert_eq!(f.transfer(0, Unit::Page, true), l);
    // The third waits for the first server.
    assert_eq!(f.transfer(0, Unit::Page, true), 2 * l);
    assert_eq!(f.in_flight(1), 2);
    let c = f.counters();
    assert_eq!(c.reads_4k, 3);
    assert_eq!(c.wait_ns, l);
    // A 1 MB transfer takes its own latency.
    assert_eq!(f.transfer(10 * l, Unit::Large, false), 10 * l + 400_000);
    assert_eq!(f.counters().writes_1m, 1);
    assert_eq!(f.counters().bytes, 3 * 4096 + (1 << 20));
}

#[test]
fn online_changes_stay_within_maximum_and_capacity() {
    let p = Params {
        partition: vec![part("A", 16, Some(64)), part("B", 1024, Some(1392))],
        ..Params::default()
    };
    p.validate().unwrap();
    let mut f = Flash::new(&p);
    f.set_online("a", 64 << 30).unwrap();
    assert_eq!(f.allocation("A").unwrap().online, 64 << 30);
    assert!(f.set_online("A", 80 << 30).is_err());
    assert!(f.set_online("A", 40 << 30).is_err());
    // B to its maximum would exceed what A leaves.
    let e = f.set_online("B", 1392 << 30).unwrap_err();
    assert!(
        e.reason.contains("not online to other partitions"),
        "{}",
        e.reason
    );
    assert!(f.set_online("C", 0).is_err());
}
