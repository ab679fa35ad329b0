//! `ControlRecord::parse` on arbitrary 4096-byte blocks (shorter inputs are
//! zero-padded, longer ones cut). Must never panic. When parsing succeeds, the
//! entry count must follow from the MCA addresses and `encode(parse(x))` must
//! reproduce `x` on the meaningful bytes: 0-19 of the IUCV buffer (path id,
//! IPFLAGS1, IPTYPE, message id, target class, MCA start and end) and, for each
//! entry, its type, the two domain-mask bytes, start and end (byte 3 of an entry
//! is reserved and the rest of the block is not carried).
#![no_main]

use libfuzzer_sys::fuzz_target;
use ztwin_monitor::control::{ControlRecord, ENTRY_LEN, MAX_ENTRIES, MWTCAREA};
use ztwin_monitor::FRAME;

fuzz_target!(|data: &[u8]| {
    let mut block = [0u8; FRAME];
    let n = data.len().min(FRAME);
    block[..n].copy_from_slice(&data[..n]);

    let parsed = ControlRecord::parse(&block);
    assert_eq!(ControlRecord::looks_valid(&block), parsed.is_ok());
    let c = match parsed {
        Ok(c) => c,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let count = (c.mca_end - c.mca_start) as usize / ENTRY_LEN + 1;
    assert!(count >= 1 && count <= MAX_ENTRIES);
    assert_eq!(
        c.entries.len(),
        count,
        "entry count does not follow from the MCA addresses"
    );
    for e in &c.entries {
        assert!(e.start <= e.end);
        assert!(e.page_count() >= 1);
    }

    let mut again = [0xAAu8; FRAME];
    c.encode(&mut again);
    assert_eq!(
        again[..20],
        block[..20],
        "IUCV buffer bytes 0-19 differ after encode(parse(x))"
    );
    for i in 0..count {
        let o = MWTCAREA + i * ENTRY_LEN;
        assert_eq!(
            again[o..o + 3],
            block[o..o + 3],
            "entry {i}: type/domain bytes differ"
        );
        assert_eq!(
            again[o + 4..o + 12],
            block[o + 4..o + 12],
            "entry {i}: start/end differ"
        );
    }
    // Everything else is zero in an encoded block.
    assert!(again[20..MWTCAREA].iter().all(|&b| b == 0));
    assert!(again[MWTCAREA + count * ENTRY_LEN..]
        .iter()
        .all(|&b| b == 0));
    assert_eq!(
        ControlRecord::parse(&again).as_ref(),
        Ok(&c),
        "parse(encode(c)) != c"
    );
});
