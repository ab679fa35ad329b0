//! The APPLDATA decoder (`ztwin_monitor::appldata`) on arbitrary bytes: the
//! input is a whole domain 10 record, decoded with the MRAPLSDT and MRAPLEDT
//! layouts of every known release. Must never panic; what it gives must hold
//! together: the data lies inside the record from the fixed part on, a field
//! is absent exactly when it does not fit the data, per-CPU entries lie
//! inside the data, and the problem tracker counts what `check` reports.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ztwin_monitor::appldata::{Appldata, Problems, FIXED_PART, OS_CPU};
use ztwin_monitor::layout::{by_name_release, decode_field_ref, Release};

fuzz_target!(|data: &[u8]| {
    for r in Release::KNOWN {
        for name in ["MRAPLSDT", "MRAPLEDT"] {
            let l = by_name_release(name, r).expect("domain 10 layouts");
            let mut problems = Problems::default();
            let noted = problems.note(0, data, l);
            match Appldata::parse(data, l) {
                Err(p) => {
                    assert!(noted.is_none());
                    assert_eq!(problems.count, 1);
                    assert!(!p.to_string().is_empty());
                }
                Ok(a) => {
                    assert!(data.len() >= FIXED_PART);
                    let start = data.len() - a.data.len();
                    assert!(start >= FIXED_PART);
                    assert_eq!(problems.count, u64::from(a.check().is_some()));
                    for (f, v) in a.fields() {
                        assert_eq!(v.is_some(), f.end() <= a.data.len(), "{}", f.name);
                    }
                    let mut n = 0usize;
                    for e in a.cpu_entries() {
                        n += 1;
                        assert!(e.len() <= a.data.len());
                        for f in OS_CPU {
                            let _ = decode_field_ref(e, f);
                        }
                    }
                    assert!(n <= a.data.len().max(1));
                    let _ = a.consistent();
                    let _ = a.product.text();
                    if let Some(w) = problems.warning() {
                        assert!(w.contains("offset 0"));
                    }
                }
            }
        }
    }
});
