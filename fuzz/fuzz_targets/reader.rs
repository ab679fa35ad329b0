//! Whole-file fuzzing of the streaming reader: arbitrary bytes as a MONWRITE file.
//!
//! Must never panic. For every delivered record it checks that the record lies
//! inside the input (offset + length <= input length), that its bytes are exactly
//! the input bytes at that offset, that their length equals MRHDRLEN, that the
//! header re-parses to the same value, and that the record does not cross a 4 KB
//! block (while every group read so far had frame-aligned data: contiguous data
//! puts DCSS frames across blocks). Every record is rendered with `dump::record_json` and `dump::record_line`
//! (which decode all of its fields and repeating groups).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::io::Cursor;
use ztwin_monitor::reader::MAX_DAMAGE_KEPT;
use ztwin_monitor::{dump, Header, Reader, FRAME};

fuzz_target!(|data: &[u8]| {
    let Ok(mut reader) = Reader::new(Cursor::new(data)) else {
        return;
    };
    let mut out = String::new();
    let mut delivered = 0u64;
    let mut spans = Vec::new();
    loop {
        let rec = match reader.next_record() {
            Ok(Some(r)) => r,
            Ok(None) => break,
            Err(e) => {
                let _ = e.to_string();
                break;
            }
        };
        delivered += 1;
        let off = usize::try_from(rec.offset).expect("offset fits usize");
        let len = rec.bytes.len();
        assert!(
            off + len <= data.len(),
            "record at {off} of {len} bytes past the end ({})",
            data.len()
        );
        assert_eq!(
            len, rec.header.len as usize,
            "record bytes length != MRHDRLEN at {off}"
        );
        assert_eq!(
            rec.bytes,
            &data[off..off + len],
            "record bytes are not the file bytes at {off}"
        );
        assert_eq!(
            Header::parse(rec.bytes),
            Ok(rec.header),
            "header does not re-parse at {off}"
        );
        spans.push((off, len));
        out.clear();
        dump::record_json(&mut out, &rec);
        assert!(out.starts_with('{') && out.ends_with('}'));
        out.clear();
        dump::record_line(&mut out, &rec, 200);
    }
    let s = &reader.stats;
    if s.contiguous_groups == 0 {
        for (off, len) in spans {
            assert!(
                off % FRAME + len <= FRAME,
                "record at {off} of {len} bytes crosses a 4 KB block"
            );
        }
    }
    assert_eq!(
        s.longer_by_type.values().map(|l| l.count).sum::<u64>(),
        s.longer,
        "longer records per type add up"
    );
    assert_eq!(
        s.records, delivered,
        "stats.records disagrees with records delivered"
    );
    assert_eq!(s.file_bytes, data.len() as u64);
    assert!(s.damage.len() <= MAX_DAMAGE_KEPT && s.damage.len() as u64 <= s.damage_count);
    for d in &s.damage {
        assert!(
            d.offset <= d.end && d.end <= data.len() as u64,
            "damage span {d} outside the file"
        );
        let _ = d.to_string();
    }
    let _ = dump::summary_text(s);
});
