//! A MONWRITE file assembled byte by byte from the specification, without the
//! writer, decodes with the expected values: header, TOD, EBCDIC text, counters,
//! frames ended by D1R13, an interval ended by D1R11, an event entry ending at its
//! end address, and an entry that starts in the middle of a page.

mod handmade;

use handmade::{control, header, put, BASE};
use std::io::Cursor;
use ztwin_monitor::layout::{by_name, decode_field, Value};
use ztwin_monitor::{Reader, SetKind};

// EBCDIC by hand: "ZVMSYS1" and "LIN102".
const ZVMSYS1: [u8; 8] = [0xE9, 0xE5, 0xD4, 0xE2, 0xE8, 0xE2, 0xF1, 0x40];
const LIN102: [u8; 8] = [0xD3, 0xC9, 0xD5, 0xF1, 0xF0, 0xF2, 0x40, 0x40];
const TOD_2010: u64 = 0xC551_F564_1600_0000; // 2010-01-01T00:00:00Z
const TOD_2021: u64 = 0xD9A0_E7C8_E7A0_0000; // 2021-04-28T01:21:47.170304Z

fn file() -> Vec<u8> {
    let mut f = Vec::new();
    // Group 1: one sample entry over two pages (page 1 and 2 of the DCSS).
    let p1 = BASE + 4096;
    // Page 1: MTRSYS (184 bytes) at 0, SYTRSG (492) at 184, then 3400 bytes of
    // USEACT-sized records would not fit: end the frame with D1R13.
    let mut page1 = vec![0u8; 4096];
    header(&mut page1, 0, 184, 1, 4, TOD_2010);
    put(&mut page1, 88, &ZVMSYS1);
    put(&mut page1, 152, &2u16.to_be_bytes()); // MTRSYS_CPUCOUNT
    header(&mut page1, 184, 492, 0, 3, TOD_2010);
    put(&mut page1, 184 + 52, &123_456u32.to_be_bytes()); // SYTRSG_RSAAVAIL
    put(&mut page1, 184 + 48, &5_000_000u32.to_be_bytes()); // SYTRSG_RSAPGABL
    header(&mut page1, 676, 20, 1, 13, TOD_2010); // end of frame
    page1[700..720].fill(0xEE); // left-over DCSS bytes after D1R13: ignored
                                // Page 2: USEACT (440) for LIN102, then D1R11 interval end.
    let mut page2 = vec![0u8; 4096];
    header(&mut page2, 0, 440, 4, 3, TOD_2021);
    put(&mut page2, 20, &LIN102);
    put(&mut page2, 28, &1u16.to_be_bytes()); // VMDCPUAD: virtual CPU 1
    put(&mut page2, 36, &(4096u64 * 1_500_000).to_be_bytes()); // VMDTTIME 1.5 s
    put(&mut page2, 112, &439u32.to_be_bytes()); // CALCPPGR
    header(&mut page2, 440, 20, 1, 11, TOD_2021);
    let end1 = p1 + 4096 + 459;
    f.extend(control(1, &[(0xE2, 0xC8, p1, end1)]));
    f.extend(page1);
    f.extend(page2);
    // Group 2: an event entry that starts 100 bytes into DCSS page 40 and ends
    // exactly at the last byte of its one record (no terminator).
    let start = BASE + 40 * 4096 + 100;
    let mut page = vec![0xAAu8; 4096]; // garbage outside the entry's range
    header(&mut page, 100, 28, 6, 13, TOD_2021);
    put(&mut page, 120, &0x0001_0203u32.to_be_bytes()); // IODMON_RDEVSID
    put(&mut page, 124, &0x0A20u16.to_be_bytes()); // IODMON_RDEVDEV
    f.extend(control(2, &[(0xC5, 0x02, start, start + 27)]));
    f.extend(page);
    f
}

#[test]
fn decodes_a_hand_built_file() {
    let bytes = file();
    let mut r = Reader::new(Cursor::new(&bytes)).unwrap();
    let mut seen = Vec::new();
    while let Some(rec) = r.next_record().unwrap() {
        let l = ztwin_monitor::lookup(
            rec.header.domain,
            rec.header.record,
            ztwin_monitor::layout::DEFAULT_RELEASE,
        )
        .unwrap();
        seen.push((
            rec.offset,
            l.name,
            rec.header.tod,
            rec.set_kind,
            rec.bytes.to_vec(),
        ));
    }
    assert_eq!(r.stats.damage_count, 0, "{:?}", r.stats.damage);
    let names: Vec<_> = seen.iter().map(|s| s.1).collect();
    assert_eq!(
        names,
        ["MRMTRSYS", "MRSYTRSG", "MRUSEACT", "MRMTREND", "MRIODMON"]
    );
    let offsets: Vec<_> = seen.iter().map(|s| s.0).collect();
    assert_eq!(
        offsets,
        [4096, 4096 + 184, 8192, 8192 + 440, 4 * 4096 + 100]
    );
    assert_eq!(seen[4].3, SetKind::Event);
    assert_eq!(
        ztwin_monitor::tod::iso8601(seen[2].2),
        "2021-04-28T01:21:47.170304Z"
    );

    let sys = by_name("MRMTRSYS").unwrap();
    assert_eq!(
        decode_field(&seen[0].4, sys.f("MTRSYS_SYSTMID")),
        Some(Value::Text("ZVMSYS1".into()))
    );
    assert_eq!(
        decode_field(&seen[0].4, sys.f("MTRSYS_CPUCOUNT")),
        Some(Value::U(2))
    );
    let rsg = by_name("MRSYTRSG").unwrap();
    assert_eq!(
        decode_field(&seen[1].4, rsg.f("SYTRSG_RSAAVAIL")),
        Some(Value::U(123_456))
    );
    assert_eq!(
        decode_field(&seen[1].4, rsg.f("SYTRSG_RSAPGABL")),
        Some(Value::U(5_000_000))
    );
    let act = by_name("MRUSEACT").unwrap();
    assert_eq!(
        decode_field(&seen[2].4, act.f("USEACT_VMDUSER")),
        Some(Value::Text("LIN102".into()))
    );
    assert_eq!(
        decode_field(&seen[2].4, act.f("USEACT_VMDCPUAD")),
        Some(Value::U(1))
    );
    assert_eq!(
        decode_field(&seen[2].4, act.f("USEACT_VMDTTIME")),
        Some(Value::Dur(4096 * 1_500_000))
    );
    assert_eq!(
        decode_field(&seen[2].4, act.f("USEACT_CALCPPGR")),
        Some(Value::U(439))
    );
    let mon = by_name("MRIODMON").unwrap();
    assert_eq!(
        decode_field(&seen[4].4, mon.f("IODMON_RDEVDEV")),
        Some(Value::U(0x0A20))
    );
    assert_eq!(r.stats.groups, 2);
    assert_eq!(r.stats.intervals, 1);
}

#[test]
fn shared_page_written_once_is_recognised() {
    // Two entries where the second starts in the page the first ends in, and
    // MONWRITE wrote that page once (spec 4.4 step 4, alternative hypothesis).
    let p = BASE + 4096;
    let mut page = vec![0u8; 4096];
    header(&mut page, 0, 28, 6, 13, TOD_2010);
    header(&mut page, 28, 20, 1, 11, TOD_2010);
    header(&mut page, 48, 28, 6, 13, TOD_2021);
    let mut f = control(1, &[(0xE2, 0x42, p, p + 47), (0xC5, 0x02, p + 48, p + 75)]);
    f.extend(page);
    let second = control(2, &[(0xC5, 0x02, p + 4096, p + 4096 + 27)]);
    f.extend(&second);
    let mut page2 = vec![0u8; 4096];
    header(&mut page2, 0, 28, 6, 13, TOD_2021);
    f.extend(page2);
    let mut r = Reader::new(Cursor::new(&f)).unwrap();
    let mut n = 0;
    while r.next_record().unwrap().is_some() {
        n += 1;
    }
    assert_eq!(n, 4);
    assert_eq!(r.stats.damage_count, 0, "{:?}", r.stats.damage);
    assert_eq!(r.stats.groups, 2);
}
