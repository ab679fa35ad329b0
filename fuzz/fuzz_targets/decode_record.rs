//! Whole-record decoding on arbitrary bytes: `layout::RecordDecoder` (the
//! per-layout plans, generated and run-time) with the input as a record of every
//! known layout, one decoder reused throughout. Must never panic, and must give
//! exactly what `layout::decode_field_ref` gives on every field and on every
//! field of every `layout::group_entries` entry (absent fields included).
#![no_main]

use libfuzzer_sys::fuzz_target;
use ztwin_monitor::layout::{
    decode_field_ref, group_entries, lookup, DecodePlan, FieldDef, FieldValues, RecordDecoder,
    ValueRef, DEFAULT_RELEASE, LAYOUTS,
};
use ztwin_monitor::Header;

fn same(bytes: &[u8], fields: &[FieldDef], d: &FieldValues<'_, '_>, what: &str) {
    assert_eq!(d.len(), fields.len(), "{what}");
    assert_eq!(d.values().len(), fields.len(), "{what}");
    let mut absent = 0;
    for (i, f) in fields.iter().enumerate() {
        let want = decode_field_ref(bytes, f);
        assert_eq!(d.get(i), want, "{what}: {}", f.name);
        let slot = d.values()[i];
        let expect = match want {
            None => {
                absent += 1;
                0
            }
            Some(ValueRef::U(x) | ValueRef::Tod(x) | ValueRef::Dur(x)) => x,
            Some(ValueRef::I(x)) => x as u64,
            Some(ValueRef::Text(t)) => t.len() as u64,
            Some(ValueRef::Bits(b)) => b.len() as u64,
        };
        assert_eq!(slot, expect, "{what}: slot of {}", f.name);
    }
    assert_eq!(d.absent(), absent, "{what}: absent fields");
}

fn check(
    dec: &mut RecordDecoder,
    data: &[u8],
    l: &ztwin_monitor::RecordLayout,
    plan: Option<&DecodePlan>,
) {
    let d = match plan {
        Some(p) => dec.decode_with(data, p),
        None => dec.decode(data, l),
    };
    same(data, l.fields, &d.fixed(), l.name);
    let entries: Vec<&[u8]> = group_entries(data, l).collect();
    assert_eq!(d.entry_count(), entries.len(), "{}: entries", l.name);
    let gfields = l.group.map_or(&[][..], |g| g.fields);
    assert_eq!(d.group_values().len(), entries.len() * gfields.len());
    let mut gabsent = 0;
    for (e, bytes) in entries.iter().enumerate() {
        let de = d.entry(e).expect("entry");
        assert_eq!(de.bytes(), *bytes);
        same(bytes, gfields, &de, l.name);
        gabsent += de.absent();
    }
    assert!(d.entry(entries.len()).is_none());
    assert_eq!(d.group_absent(), gabsent);
}

fuzz_target!(|data: &[u8]| {
    let mut dec = RecordDecoder::new();
    // As the reader would hand it over: the header's own layout, if known.
    if let Ok(h) = Header::parse(data) {
        if let Some(l) = lookup(h.domain, h.record, DEFAULT_RELEASE) {
            check(&mut dec, &data[..h.len as usize], l, None);
        }
    }
    for l in LAYOUTS {
        // The generated decoder, the run-time plan, and a layout built elsewhere.
        check(&mut dec, data, l, None);
        check(&mut dec, data, l, Some(&DecodePlan::new(l)));
        let copy = ztwin_monitor::RecordLayout { ..*l };
        check(&mut dec, data, &copy, None);
    }
});
