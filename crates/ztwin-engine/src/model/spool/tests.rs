//! Bench tests of the spool on its own: slots, files, space.

use super::*;

#[test]
fn files_take_slots_round_robin_and_give_them_back() {
    let mut sp = Spool::new(&[(5, 100), (6, 100)], 4);
    let (a, id_a) = sp.create(10).unwrap();
    let (b, id_b) = sp.create(50).unwrap();
    assert_ne!(id_a, id_b);
    let s = sp.sample();
    assert_eq!((s.slots, s.used, s.files), (200, 60, 2));
    let per: Vec<u32> = sp.volume_samples().map(|v| v.used).collect();
    assert_eq!(per.iter().sum::<u32>(), 60);
    assert!(
        per[0].abs_diff(per[1]) <= 4,
        "spread over the volumes: {per:?}"
    );
    sp.check();
    assert_eq!(
        sp.create(141),
        Err(Full {
            needed: 141,
            free: 140
        })
    );
    sp.purge(a);
    sp.check();
    assert_eq!(sp.sample().used, 50);
    let (c, _) = sp.create(150).unwrap();
    assert_eq!(sp.free_slots(), 0);
    sp.purge(b);
    sp.purge(c);
    assert_eq!(sp.sample().used, 0);
    assert_eq!(sp.sample().c.files_created, 3);
    sp.check();
}

#[test]
fn spool_origins_are_told_apart_from_minidisk_ones() {
    assert_eq!(transfer_of(origin(7)), Some(7));
    assert_eq!(origin(7), Origin::Spool { transfer: 7 });
    assert_eq!(transfer_of(Origin::Minidisk { vcpu: 7 }), None);
    assert_eq!(transfer_of(Origin::PageRead { block: 7 }), None);
}
