//! Helpers shared by the integration tests: a deterministic sample file.
#![allow(dead_code)]

use std::io::Cursor;
use ztwin_monitor::layout::{by_name, Value};
use ztwin_monitor::writer::{MonwriteWriter, RecordSet};
use ztwin_monitor::{tod, Reader, SetKind, Stats};

pub const T0_US: i64 = 1_262_304_000_000_000; // 2010-01-01T00:00:00Z

/// A small file: configuration set, `intervals` sample sets of ~3 frames each
/// (so frames end with D1R13), and an event set after each interval.
pub fn sample_file(intervals: u32) -> Vec<u8> {
    let mut w = MonwriteWriter::new(Vec::new());
    let mut cfg = RecordSet::new(SetKind::Sample);
    let t0 = tod::from_unix_us(T0_US);
    let sys = by_name("MRMTRSYS").unwrap();
    cfg.push_layout(sys, t0)
        .set_text(sys.f("MTRSYS_SYSTMID"), "ZTWIN01");
    let spr = by_name("MRMTRSPR").unwrap();
    cfg.push_layout(spr, t0).set_i(spr.f("MTRSPR_INTERVAL"), 60);
    w.write_sample_set(&cfg, t0).unwrap();
    let act = by_name("MRUSEACT").unwrap();
    let rsg = by_name("MRSYTRSG").unwrap();
    let lon = by_name("MRUSELON").unwrap();
    let mut s = RecordSet::new(SetKind::Sample);
    let mut e = RecordSet::new(SetKind::Event);
    for i in 1..=intervals {
        let t = tod::from_unix_us(T0_US + i as i64 * 60_000_000);
        s.clear();
        s.push_layout(rsg, t)
            .set_u(rsg.f("SYTRSG_RSAAVAIL"), 1000 + i as u64);
        for u in 0..30u64 {
            let mut r = s.push_layout(act, t);
            r.set_text(act.f("USEACT_VMDUSER"), &format!("LINUX{u:03}"));
            r.set_u(act.f("USEACT_CALCPPGR"), u * 100 + i as u64);
        }
        w.write_sample_set(&s, t).unwrap();
        e.clear();
        let mut r = e.push_layout(lon, t);
        r.set(lon.f("USELON_VMDUSER"), &Value::Text(format!("NEW{i}")))
            .unwrap();
        w.write_event_set(&e).unwrap();
    }
    w.finish().unwrap()
}

/// One record as read: (offset, domain, record, record bytes).
pub type ReadRecord = (u64, u8, u16, Vec<u8>);

/// Read all records of `bytes`: (offset, domain, record, record bytes) and
/// stats. The bytes are read twice, through a seekable source and as a
/// whole in memory ([`Reader::from_whole`], the memory-mapped path), and both
/// must give the same records, statistics and errors.
pub fn read_all(bytes: &[u8]) -> Result<(Vec<ReadRecord>, Stats), ztwin_monitor::FatalError> {
    let a = drain(Reader::new(Cursor::new(bytes)));
    let b = drain(Reader::from_whole(
        Box::new(bytes.to_vec()),
        ztwin_monitor::reader::ReadOptions::default(),
    ));
    match (&a, &b) {
        (Ok((ra, sa)), Ok((rb, sb))) => {
            assert!(ra == rb, "the whole-bytes reader gave other records");
            assert_eq!(format!("{sa:?}"), format!("{sb:?}"));
        }
        (Err(ea), Err(eb)) => assert_eq!((ea.offset, &ea.reason), (eb.offset, &eb.reason)),
        _ => panic!("the readers disagree: {:?} / {:?}", a.is_ok(), b.is_ok()),
    }
    a
}

fn drain<R: std::io::Read + std::io::Seek>(
    r: Result<Reader<R>, ztwin_monitor::FatalError>,
) -> Result<(Vec<ReadRecord>, Stats), ztwin_monitor::FatalError> {
    let mut r = r?;
    let mut out = Vec::new();
    while let Some(rec) = r.next_record()? {
        out.push((
            rec.offset,
            rec.header.domain,
            rec.header.record,
            rec.bytes.to_vec(),
        ));
    }
    Ok((out, r.stats))
}
