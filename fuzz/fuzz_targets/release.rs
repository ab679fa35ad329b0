//! Release-specific reading: the first input byte picks the release to decode
//! as (0: detect it from MRMTRSYS, 1-10: z/VM 5.3 to 7.4, others: releases
//! outside the tables), the rest is a MONWRITE file in either data layout.
//! Must never panic; every record's layout is the one the release gives; the
//! records counted as longer than their layout add up.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::io::Cursor;
use ztwin_monitor::layout::{LayoutSet, Release, ReleaseSource};
use ztwin_monitor::reader::ReadOptions;
use ztwin_monitor::Reader;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, file)) = data.split_first() else {
        return;
    };
    let release = match pick {
        0 => None,
        1..=10 => Some(Release::KNOWN[pick as usize - 1]),
        11 => Some(Release(4, 2)),
        _ => Some(Release(pick / 10, pick % 10)),
    };
    let opts = ReadOptions {
        release,
        layouts: LayoutSet::builtin(),
    };
    let Ok(mut reader) = Reader::with_options(Cursor::new(file), opts) else {
        return;
    };
    let mut records = 0u64;
    loop {
        match reader.next_record() {
            Ok(Some(rec)) => {
                records += 1;
                assert!(rec.bytes.len() >= 20 && rec.bytes.len() == rec.header.len as usize);
                let _ = rec.layout.map(|l| (l.domain, l.record));
            }
            Ok(None) => break,
            Err(e) => {
                let _ = e.to_string();
                break;
            }
        }
    }
    let s = &reader.stats;
    assert_eq!(s.records, records);
    if let Some(r) = release {
        assert_eq!(s.release, r);
        assert_eq!(s.release_source, ReleaseSource::Override);
    }
    assert_eq!(
        s.longer_by_type.values().map(|l| l.count).sum::<u64>(),
        s.longer
    );
    assert!(s.longer <= s.records);
});
