//! Record-level decoders on arbitrary bytes: `Header::parse`, and
//! `layout::decode_field` / `layout::decode_group` of every known layout with the
//! input as the record. Must never panic. Also checks that a field is absent
//! exactly when it lies beyond the record, that the value's kind matches the
//! field type, that fixed-width fields re-encode to the same bytes, that group
//! entries stay inside the record, and renders the record with `dump::record_json`
//! as the reader would deliver it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ztwin_monitor::layout::{
    decode_field, decode_group, encode_field, lookup, FieldDef, FieldType, Value, DEFAULT_RELEASE,
    LAYOUTS,
};
use ztwin_monitor::{dump, Header, RecordRef, SetKind, HEADER_LEN};

fn check_field(rec: &[u8], f: &FieldDef) {
    let v = decode_field(rec, f);
    if let FieldType::VarText { len_at } = f.ty {
        let present = len_at as usize + 4 <= rec.len() && f.offset as usize <= rec.len();
        assert_eq!(
            v.is_some(),
            present,
            "{}: presence of variable text",
            f.name
        );
        if let Some(v) = v {
            assert!(matches!(v, Value::Text(_)), "{}: {v:?}", f.name);
        }
        return;
    }
    let end = f.end();
    assert_eq!(
        v.is_some(),
        end <= rec.len(),
        "{}: absent iff beyond the record",
        f.name
    );
    let Some(v) = v else { return };
    let kind_ok = match f.ty {
        FieldType::U1 | FieldType::U2 | FieldType::U4 | FieldType::U8 => matches!(v, Value::U(_)),
        FieldType::S2 | FieldType::S4 | FieldType::S8 => matches!(v, Value::I(_)),
        FieldType::Tod => matches!(v, Value::Tod(_)),
        FieldType::Dur => matches!(v, Value::Dur(_)),
        FieldType::Char(_) => matches!(v, Value::Text(_)),
        FieldType::Bits(n) => matches!(&v, Value::Bits(b) if b.len() == n as usize),
        FieldType::VarText { .. } => unreachable!(),
    };
    assert!(kind_ok, "{}: {v:?} does not match {:?}", f.name, f.ty);
    if !matches!(f.ty, FieldType::Char(_)) {
        // Numbers, timestamps and bit strings re-encode to the very same bytes.
        let mut copy = rec.to_vec();
        copy[f.offset as usize..end].fill(0x5A);
        encode_field(&mut copy, f, &v)
            .unwrap_or_else(|e| panic!("{}: re-encode failed: {e}", f.name));
        assert_eq!(
            copy[f.offset as usize..end],
            rec[f.offset as usize..end],
            "{}: re-encode differs",
            f.name
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let header = Header::parse(data);
    if let Ok(h) = &header {
        assert!(h.len as usize >= HEADER_LEN && h.len as usize <= data.len());
    }
    for l in LAYOUTS {
        for f in l.fields {
            check_field(data, f);
        }
        let groups = decode_group(data, l);
        if let Some(g) = &l.group {
            let ln = l
                .field(g.len_field)
                .and_then(|f| ztwin_monitor::layout::read_u64(data, f));
            if let Some(ln) = ln.filter(|&n| n > 0) {
                assert!(
                    groups.len() as u64 <= data.len() as u64 / ln,
                    "{}: more entries than fit",
                    l.name
                );
            }
            for entry in &groups {
                assert_eq!(entry.len(), g.fields.len());
            }
        } else {
            assert!(groups.is_empty());
        }
    }
    // Render as the reader would deliver it: the header's own type, or D0R0.
    let h = header.unwrap_or(Header {
        len: data.len().min(u16::MAX as usize) as u16,
        domain: 0,
        record: 0,
        tod: 0,
    });
    let bytes = &data[..(h.len as usize).min(data.len())];
    let mut out = String::new();
    for kind in [SetKind::Sample, SetKind::Event] {
        let r = RecordRef::new(0, h, bytes, kind);
        out.clear();
        dump::record_json(&mut out, &r);
        out.clear();
        dump::record_line(&mut out, &r, 80);
    }
    let _ = lookup(h.domain, h.record, DEFAULT_RELEASE);
});
