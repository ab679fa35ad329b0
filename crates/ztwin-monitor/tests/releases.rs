//! Hand-built files for every release 5.3 to 7.4 decode to the right values.
//!
//! The bytes of MRMTRSYS, MRUSEACT, MRUSELOF, MRIODDEV and MRSYTCUP are placed
//! by hand at the offsets of IBM's monitor-record pages (USEACT 20-32, USELOF
//! 20-31, MTRSYS 28) and of zpmd's z/VM 5.3 structs (USELOF 36-51, IODDEV,
//! SYTCUP), at the record sizes IBM's pages give for each release, in both
//! data layouts after the control record. The reader must find the release
//! from MTRSYS_HCPCPEID, decode every value through its own layouts, count the
//! records longer than it knows, and treat the two data layouts alike.

mod handmade;

use handmade::{char_field, put, record, sample_group, Data};
use std::io::Cursor;
use ztwin_monitor::layout::{decode_field, decode_group, Release, Value};
use ztwin_monitor::{Reader, RecordRef};

const TOD: u64 = 0xD9A0_E7C8_E7A0_0000;

/// Record sizes for `r`, from IBM's pages where they show one (MTRSYS 184 up
/// to 5.4 and 420 from 6.1; USEACT 440 in 6.1, 508 in 6.2; USELOF 444 in 5.4,
/// 496 in 6.2), longer than any known size from 6.3 on, as a newer release
/// would write them.
fn sizes(r: Release) -> (usize, usize, usize, usize) {
    let mtrsys = if r < Release(6, 1) { 184 } else { 420 };
    let useact = match (r.0, r.1) {
        (5, _) | (6, 1) => 440,
        (6, 2) => 508,
        _ => 560,
    };
    let uselof = match (r.0, r.1) {
        (5, _) | (6, 1) => 444,
        (6, 2) => 496,
        _ => 540,
    };
    let ioddev = if r < Release(6, 3) { 260 } else { 300 };
    (mtrsys, useact, uselof, ioddev)
}

/// The records of one release's file, bytes placed by hand.
fn records(r: Release) -> Vec<Vec<u8>> {
    let (sys_len, act_len, lof_len, dev_len) = sizes(r);
    let mut sys = record(sys_len, 1, 4, TOD);
    put(&mut sys, 28, &char_field(&format!("{}.{}.0", r.0, r.1), 8)); // MTRSYS_HCPCPEID
    put(&mut sys, 88, &char_field("ZVMHAND", 8)); // MTRSYS_SYSTMID (zpmd)

    let mut act = record(act_len, 4, 3, TOD); // one per virtual CPU: CPU 2 of LINUX07
    put(&mut act, 20, &char_field("LINUX07", 8)); // USEACT_VMDUSER
    put(&mut act, 28, &2u16.to_be_bytes()); // USEACT_VMDCPUAD
    act[30] = 0x01; // USEACT_VMDMODE
    act[31] = 0x44; // USEACT_CALMODE: ESA, z/Arch
    act[32] = 0x20; // USEACT_VMDSLIST

    let mut lof = record(lof_len, 4, 2, TOD); // virtual CPU 1 at logoff
    put(&mut lof, 20, &char_field("LINUX07", 8)); // USELOF_VMDUSER
    put(&mut lof, 28, &1u16.to_be_bytes()); // USELOF_VMDCPUAD
    put(&mut lof, 36, &(4096u64 * 2_500_000).to_be_bytes()); // USELOF_VMDTTIME 2.5 s
    put(&mut lof, 44, &(4096u64 * 2_000_000).to_be_bytes()); // USELOF_VMDVTIME 2.0 s

    let mut dev = record(dev_len, 6, 3, TOD);
    put(&mut dev, 24, &0x0001_0042u32.to_be_bytes()); // IODDEV_RDEVSID
    put(&mut dev, 36, &char_field("PAG001", 6)); // IODDEV_RDEVSER
    put(&mut dev, 52, &1234u16.to_be_bytes()); // IODDEV_SCMSSCH
    put(&mut dev, 56, &98_765u32.to_be_bytes()); // IODDEV_SCMCNTIM
    put(&mut dev, 192, &70_000u32.to_be_bytes()); // IODDEV_SCGSSCH
    put(&mut dev, 200, &0x0A20u16.to_be_bytes()); // IODDEV_RDEVDEV

    // SYTCUP: 64-byte fixed part up to 6.2; a larger one later (IBM: the
    // fixed part grew, CALCPUOF tells where the entries start), and from 6.3
    // the partition's CPUs in two records.
    let fixed = if r < Release(6, 3) { 64 } else { 96 };
    let cup = |cpus: &[(u16, u64)]| {
        let mut c = record(fixed + 40 * cpus.len(), 0, 16, TOD);
        put(&mut c, 20, &char_field("LPAR07", 8)); // SYTCUP_LCUPNAME
        c[28] = 7; // SYTCUP_LCUPPNUM
        c[30] = 3; // SYTCUP_LCUPCPCT
        put(&mut c, 32, &(fixed as u16).to_be_bytes()); // SYTCUP_CALCPUOF
        put(&mut c, 34, &40u16.to_be_bytes()); // SYTCUP_CALCPULN
        for (i, &(cpu, t)) in cpus.iter().enumerate() {
            let e = fixed + 40 * i;
            put(&mut c, e, &cpu.to_be_bytes()); // SYTCUP_LCUCPUID
            put(&mut c, e + 2, &250u16.to_be_bytes()); // SYTCUP_LCUCWGHT
            put(&mut c, e + 6, &t.to_be_bytes()); // SYTCUP_LCUCACTM
        }
        c
    };
    let cpus = [(0u16, 4096u64 * 1000), (1, 4096 * 2000), (2, 4096 * 3000)];
    let mut recs = vec![sys, act, lof, dev];
    if r < Release(6, 3) {
        recs.push(cup(&cpus));
    } else {
        recs.push(cup(&cpus[..2]));
        recs.push(cup(&cpus[2..]));
    }
    recs
}

fn field(rec: &RecordRef<'_>, name: &str) -> Option<Value> {
    let l = rec.layout.expect("a known record");
    decode_field(
        rec.bytes,
        l.field(name)
            .unwrap_or_else(|| panic!("{} has no {name}", l.name)),
    )
}

fn text(s: &str) -> Option<Value> {
    Some(Value::Text(s.into()))
}

/// Decode one release's file; returns the LPAR CPUs found (address, time).
fn check(r: Release, data: Data) -> Vec<(u64, u64)> {
    let file = sample_group(
        1,
        1,
        if data == Data::Contiguous { 100 } else { 0 },
        &records(r),
        TOD,
        data,
    );
    let mut reader = Reader::new(Cursor::new(&file)).unwrap();
    let mut lcpus = Vec::new();
    let mut names = Vec::new();
    while let Some(rec) = reader.next_record().unwrap() {
        let name = rec.layout.map_or("?", |l| l.name);
        names.push(name);
        match name {
            "MRMTRSYS" => assert_eq!(field(&rec, "MTRSYS_SYSTMID"), text("ZVMHAND")),
            "MRUSEACT" => {
                assert_eq!(field(&rec, "USEACT_VMDUSER"), text("LINUX07"));
                assert_eq!(field(&rec, "USEACT_VMDCPUAD"), Some(Value::U(2)));
                assert_eq!(field(&rec, "USEACT_VMDMODE"), Some(Value::Bits(vec![0x01])));
                assert_eq!(field(&rec, "USEACT_CALMODE"), Some(Value::Bits(vec![0x44])));
                assert_eq!(
                    field(&rec, "USEACT_VMDSLIST"),
                    Some(Value::Bits(vec![0x20]))
                );
            }
            "MRUSELOF" => {
                assert_eq!(field(&rec, "USELOF_VMDUSER"), text("LINUX07"));
                assert_eq!(field(&rec, "USELOF_VMDCPUAD"), Some(Value::U(1)));
                assert_eq!(
                    field(&rec, "USELOF_VMDTTIME"),
                    Some(Value::Dur(4096 * 2_500_000))
                );
                assert_eq!(
                    field(&rec, "USELOF_VMDVTIME"),
                    Some(Value::Dur(4096 * 2_000_000))
                );
            }
            "MRIODDEV" => {
                assert_eq!(field(&rec, "IODDEV_RDEVSID"), Some(Value::U(0x0001_0042)));
                assert_eq!(field(&rec, "IODDEV_RDEVSER"), text("PAG001"));
                assert_eq!(field(&rec, "IODDEV_SCMSSCH"), Some(Value::U(1234)));
                assert_eq!(field(&rec, "IODDEV_SCMCNTIM"), Some(Value::U(98_765)));
                assert_eq!(field(&rec, "IODDEV_SCGSSCH"), Some(Value::U(70_000)));
                assert_eq!(field(&rec, "IODDEV_RDEVDEV"), Some(Value::U(0x0A20)));
            }
            "MRSYTCUP" => {
                assert_eq!(field(&rec, "SYTCUP_LCUPNAME"), text("LPAR07"));
                assert_eq!(field(&rec, "SYTCUP_LCUPPNUM"), Some(Value::U(7)));
                assert_eq!(field(&rec, "SYTCUP_LCUPCPCT"), Some(Value::U(3)));
                for e in decode_group(rec.bytes, rec.layout.unwrap()) {
                    let get =
                        |n: &str| e.iter().find(|(f, _)| *f == n).and_then(|(_, v)| v.clone());
                    assert_eq!(get("SYTCUP_LCUCWGHT"), Some(Value::U(250)));
                    match (get("SYTCUP_LCUCPUID"), get("SYTCUP_LCUCACTM")) {
                        (Some(Value::U(c)), Some(Value::Dur(t))) => lcpus.push((c, t)),
                        other => panic!("{r} SYTCUP entry {other:?}"),
                    }
                }
            }
            "MRMTREND" => {}
            other => panic!("{r}: unexpected record {other}"),
        }
    }
    let s = &reader.stats;
    assert_eq!(s.damage_count, 0, "{r} {data:?}: {:?}", s.damage);
    assert_eq!(s.release, r, "{r}: release from MTRSYS_HCPCPEID");
    assert!(matches!(
        &s.release_source,
        ztwin_monitor::layout::ReleaseSource::Hcpcpeid(_)
    ));
    assert_eq!(
        names.iter().filter(|n| **n == "MRSYTCUP").count(),
        if r < Release(6, 3) { 1 } else { 2 }
    );
    match data {
        Data::Frames => assert_eq!((s.frame_groups, s.contiguous_groups), (1, 0), "{r}"),
        Data::Contiguous => assert_eq!((s.frame_groups, s.contiguous_groups), (0, 1), "{r}"),
    }
    // From 6.3 the hand-built records are longer than ztwin knows for some of
    // them: counted, decoded as far as known.
    let longer: Vec<&str> = s
        .longer_by_type
        .keys()
        .map(|&(d, rc)| ztwin_monitor::layout::lookup(d, rc, r).unwrap().name)
        .collect();
    if r >= Release(6, 3) {
        assert!(longer.contains(&"MRIODDEV"), "{r}: {longer:?}");
        assert!(longer.contains(&"MRUSEACT"), "{r}: {longer:?}");
        assert_eq!(
            s.longer_by_type.values().map(|l| l.count).sum::<u64>(),
            s.longer
        );
    } else {
        assert!(longer.is_empty(), "{r}: {longer:?}");
    }
    lcpus
}

#[test]
fn every_release_decodes_hand_placed_bytes_in_both_data_layouts() {
    for r in Release::KNOWN {
        for data in [Data::Frames, Data::Contiguous] {
            let cpus = check(r, data);
            assert_eq!(
                cpus,
                [(0, 4096 * 1000), (1, 4096 * 2000), (2, 4096 * 3000)],
                "{r} {data:?}: every logical CPU of the partition, across records"
            );
        }
    }
}

#[test]
fn the_release_can_be_forced() {
    // A 7.3 file read as 5.4: the 5.4 layouts, and the source says why.
    let file = sample_group(1, 1, 0, &records(Release(7, 3)), TOD, Data::Frames);
    let opts = ztwin_monitor::reader::ReadOptions {
        release: Some(Release(5, 4)),
        ..Default::default()
    };
    let mut reader = Reader::with_options(Cursor::new(&file), opts).unwrap();
    while reader.next_record().unwrap().is_some() {}
    assert_eq!(reader.stats.release, Release(5, 4));
    assert_eq!(
        reader.stats.release_source,
        ztwin_monitor::layout::ReleaseSource::Override
    );
}
