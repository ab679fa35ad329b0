//! A bench for the paging component: slots on two small paging volumes, its
//! own core and I/O component, block writes until paging space runs out.

use super::*;
use crate::core::units::SEC;
use crate::model::io::ServiceTime;
use crate::model::io::VolumeDef;
use crate::model::Core;

fn io(n: u16) -> Io {
    let defs = (0..n)
        .map(|k| VolumeDef {
            devno: 0x100 + k,
            volser: format!("PG{k}"),
            device_type: "3390-3".into(),
            cylinders: 1,
            paging: true,
            service: ServiceTime::default(),
            kind: crate::model::io::DevKind::Eckd,
            blocks: 180,
            path: None,
            aliases: Vec::new(),
        })
        .collect();
    Io::new(defs, 1, 1, &Default::default())
}

/// Two paging volumes of 100 slots, blocks of up to 4 pages, two guests.
fn paging() -> Paging {
    let p = params::Params {
        block_max: 4,
        pageout_writes: PAGEOUT_WRITES_PER_VOLUME,
        page_fault_us: 0.0,
        page_io_us: 0.0,
        io_us: 0.0,
    };
    Paging::new(&p, &[(0, 100), (1, 100)], 1, 2)
}

#[test]
fn blocks_shrink_as_paging_space_fills_and_pgt004_when_full() {
    let (mut pg, mut io) = (paging(), io(2));
    let mut core = Core::new(SEC);
    let mut cx = Cx::new(&mut core, 0);
    let mut vp = 0;
    let mut sizes = vec![];
    loop {
        let items: Vec<(u32, u32)> = (vp..vp + 4).map(|p| (p % 2, p)).collect();
        let n = pg.write_block(&mut cx, &mut io, &items, WriteKind::Migrate);
        pg.check();
        io.check();
        if n == 0 {
            break;
        }
        sizes.push(n);
        vp += n;
    }
    let s = pg.sample();
    assert_eq!((s.used_slots, s.total_slots), (200, 200));
    assert_eq!(s.c.pages_written, 200);
    assert!(s.full90 > 0);
    // Full blocks while at most half full, smaller ones as space fills.
    assert_eq!(sizes[0], 4);
    assert!(sizes.iter().rev().take(5).all(|&n| n == 1), "{sizes:?}");
    assert_eq!(cx.core.abend.as_ref().map(|a| a.code), Some("PGT004"));
    // Each guest's pages written, and the CPU's.
    assert_eq!(pg.guest(0).written + pg.guest(1).written, 200);
    assert_eq!(pg.by_cpu()[0].written, 200);
    // The writes are queued on both volumes.
    let devs: Vec<_> = io.devices().collect();
    assert!(devs.iter().all(|d| d.busy && d.queued > 10), "{devs:?}");
}

#[test]
fn dropped_pages_free_their_slots_and_an_empty_block_is_reused() {
    let (mut pg, mut io) = (paging(), io(2));
    let mut core = Core::new(SEC);
    let mut cx = Cx::new(&mut core, 0);
    let items = [(0, 10), (0, 11), (0, 12)];
    assert_eq!(
        pg.write_block(&mut cx, &mut io, &items, WriteKind::PageOut),
        3
    );
    // The write completes (as `Model::block_written` does).
    pg.blocks.end_write(0);
    assert_eq!(pg.sample().used_slots, 3);
    for &(g, vp) in &items {
        pg.release(0, g, vp);
        pg.check();
    }
    assert_eq!(pg.sample().used_slots, 0);
    assert_eq!(pg.blocks.in_use(), 0, "the empty block is free");
    let b = pg.write_block(&mut cx, &mut io, &[(1, 5)], WriteKind::Migrate);
    assert_eq!(b, 1);
    assert_eq!(pg.blocks.in_use(), 1);
    pg.check();
}

#[test]
#[should_panic(expected = "bitmap and used count differ")]
fn check_finds_a_slot_count_that_does_not_match_the_bitmap() {
    let mut pg = paging();
    pg.vols[1].used += 1;
    pg.check();
}

/// Page-out writes in flight are bounded per volume: with both volumes
/// writing, a further page-out waits (no abend, nothing written) until a
/// write completes; migrations are not held back.
#[test]
fn pageout_writes_in_flight_are_bounded_per_volume() {
    let (mut pg, mut io) = (paging(), io(2));
    let mut core = Core::new(SEC);
    let mut cx = Cx::new(&mut core, 0);
    let w = PAGEOUT_WRITES_PER_VOLUME as usize;
    for k in 0..2 * w as u32 {
        assert_eq!(
            pg.write_block(&mut cx, &mut io, &[(0, k)], WriteKind::PageOut),
            1
        );
    }
    assert_eq!(
        pg.write_block(&mut cx, &mut io, &[(0, 99)], WriteKind::PageOut),
        0
    );
    assert!(cx.core.abend.is_none());
    assert_eq!(
        pg.write_block(&mut cx, &mut io, &[(1, 7)], WriteKind::Migrate),
        1
    );
    assert_eq!(pg.sample().c.pages_written, 2 * w as u64 + 1);
}

/// `[srm] pageout_writes` = 1: one page-out write per volume at a time (CP
/// building the next block when the exposure is free).
#[test]
fn one_pageout_write_per_volume_when_asked() {
    let p = params::Params {
        block_max: 4,
        pageout_writes: 1,
        page_fault_us: 0.0,
        page_io_us: 0.0,
        io_us: 0.0,
    };
    let mut pg = Paging::new(&p, &[(0, 100), (1, 100)], 1, 2);
    let mut io = io(2);
    let mut core = Core::new(SEC);
    let mut cx = Cx::new(&mut core, 0);
    for k in 0..2 {
        assert_eq!(
            pg.write_block(&mut cx, &mut io, &[(0, k)], WriteKind::PageOut),
            1
        );
    }
    assert_eq!(
        pg.write_block(&mut cx, &mut io, &[(0, 9)], WriteKind::PageOut),
        0
    );
    assert!(p.validate().is_ok());
    let bad = params::Params {
        pageout_writes: 0,
        ..p
    };
    assert_eq!(bad.validate().unwrap_err().place, "srm.pageout_writes");
}

/// Slots occupied at the start: the share asked for is in use (counted, and
/// kept by `check`), the free rest lies in short gaps so blocks written to a
/// nearly full volume are short, and a full volume takes no block.
#[test]
fn occupied_volumes_offer_short_runs_and_keep_their_slots() {
    let p = params::Params {
        block_max: 16,
        pageout_writes: 4,
        page_fault_us: 0.0,
        page_io_us: 0.0,
        io_us: 0.0,
    };
    let mut pg = Paging::new(&p, &[(0, 3200), (1, 3200)], 1, 2);
    pg.occupy(0, 0.875);
    pg.occupy(1, 1.0);
    assert_eq!(pg.vols[0].used, 2800);
    assert_eq!(pg.vols[1].used, 3200);
    assert_eq!(pg.sample().used_slots, 6000);
    pg.check();
    // No free run on volume 0 is longer than its gap of 4.
    let longest = (0..pg.vols[0].slots)
        .fold((0u32, 0u32), |(best, run), s| {
            let run = if pg.vols[0].is_free(s) { run + 1 } else { 0 };
            (best.max(run), run)
        })
        .0;
    assert_eq!(longest, 4);
    let mut io = io(2);
    let mut core = Core::new(SEC);
    let mut cx = Cx::new(&mut core, 0);
    let items: Vec<(u32, u32)> = (0..16).map(|k| (0, k)).collect();
    assert_eq!(
        pg.write_block(&mut cx, &mut io, &items, WriteKind::Migrate),
        4
    );
    pg.check();
}
