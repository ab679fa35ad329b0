//! The interval kernel (`ztwin-analysis`) over arbitrary bytes read as a
//! MONWRITE file, with every key's per-interval rows kept. Must never panic;
//! every interval it produces has positive seconds, its rows belong to an
//! interval it produced, and window totals count the intervals' rows.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::io::Cursor;
use ztwin_analysis::{run, Options, Select};
use ztwin_monitor::Reader;

fuzz_target!(|data: &[u8]| {
    let Ok(reader) = Reader::new(Cursor::new(data)) else {
        return;
    };
    let opts = Options {
        users: Select::All,
        devices: Select::All,
        exposures: Select::All,
        ..Options::default()
    };
    let mut seen = 0u64;
    let mut user_rows = 0usize;
    let res = run(reader, opts, 3, |k| {
        let b = k.take();
        for s in &b.system {
            assert!(s.seconds > 0.0 && s.end_tod > s.start_tod);
            assert_eq!(s.index, seen);
            seen += 1;
        }
        for r in &b.user {
            assert!(r.interval < seen);
            assert!(r.v[ztwin_analysis::schema::user::seconds] > 0.0);
        }
        user_rows += b.user.len();
        true
    });
    if let Ok((k, _)) = res {
        assert_eq!(k.intervals(), seen);
        let intervals_in_totals: f64 = k
            .totals
            .user
            .rows
            .iter()
            .map(|(_, v)| v[ztwin_analysis::schema::user::intervals])
            .sum();
        assert_eq!(intervals_in_totals as usize, user_rows);
    }
});
