//! Layout packs from arbitrary text (TOML, or JSON when it starts with `{`):
//! parsing and checking must never panic; a pack that passes is installed (up
//! to the per-process cap) and every layout it makes, in every release, decodes
//! the input bytes as a record exactly as `layout::decode_field_ref` does,
//! through `layout::RecordDecoder` and the registered plan.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ztwin_monitor::layout::{
    decode_field_ref, decode_plan, LayoutPack, LayoutSet, RecordDecoder, Release,
};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let pack = match LayoutPack::parse(&text, "fuzz.toml") {
        Ok(p) => p,
        Err(e) => {
            // The message names the file.
            assert!(e.to_string().starts_with("fuzz.toml: "));
            return;
        }
    };
    // Every field of the pack decodes (or is absent) on the raw input.
    for r in &pack.records {
        for f in &r.fields {
            let _ = decode_field_ref(data, &f.def());
        }
    }
    let Ok(set) = LayoutSet::install(pack) else {
        return; // more packs than one process keeps
    };
    let mut dec = RecordDecoder::new();
    for &rel in &Release::KNOWN {
        for l in set.all(rel) {
            assert!(decode_plan(l).is_some(), "{} has a plan", l.name);
            let d = dec.decode(data, l);
            assert_eq!(d.len(), l.fields.len());
            for (i, f) in l.fields.iter().enumerate() {
                assert_eq!(d.get(i), decode_field_ref(data, f), "{}: {}", l.name, f.name);
            }
        }
    }
});
