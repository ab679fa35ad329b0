//! The plan decoder gives what `decode_field_ref` gives, field by field, for
//! every layout at every length, and for repeating groups.

use super::super::{by_name, decode_field_ref, group_entries, Value, LAYOUTS};
use super::*;
use proptest::prelude::*;

/// xorshift64: random record bytes without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// Every check of one decoded part against `decode_field_ref` on `bytes`.
fn assert_same(bytes: &[u8], fields: &[FieldDef], d: &FieldValues<'_, '_>, what: &str) {
    assert_eq!(d.len(), fields.len(), "{what}");
    assert_eq!(d.values().len(), fields.len(), "{what}");
    assert_eq!(d.bytes(), bytes, "{what}");
    let mut absent = 0;
    for (i, f) in fields.iter().enumerate() {
        let want = decode_field_ref(bytes, f);
        assert_eq!(
            d.get(i),
            want,
            "{what} {} at length {}",
            f.name,
            bytes.len()
        );
        assert_eq!(d.is_present(i), want.is_some(), "{what} {}", f.name);
        let slot = d.values()[i];
        match want {
            None => {
                absent += 1;
                assert_eq!(slot, 0, "{what} {}: absent slot", f.name);
            }
            Some(ValueRef::U(x) | ValueRef::Tod(x) | ValueRef::Dur(x)) => assert_eq!(slot, x),
            Some(ValueRef::I(x)) => assert_eq!(slot, x as u64),
            Some(ValueRef::Text(t)) => assert_eq!(slot, t.len() as u64),
            Some(ValueRef::Bits(b)) => assert_eq!(slot, b.len() as u64),
        }
    }
    assert_eq!(d.absent(), absent, "{what}: absent count");
    assert_eq!(d.get(fields.len()), None);
    assert!(!d.is_present(fields.len()));
    let pairs: Vec<_> = d.iter().map(|(f, v)| (f.name, v)).collect();
    let want: Vec<_> = fields
        .iter()
        .map(|f| (f.name, decode_field_ref(bytes, f)))
        .collect();
    assert_eq!(pairs, want, "{what}: iter");
}

/// The whole record, fixed part and group, against the per-field API.
fn check(dec: &mut RecordDecoder, rec: &[u8], l: &RecordLayout) {
    let d = dec.decode(rec, l);
    assert_same(rec, l.fields, &d.fixed(), l.name);
    assert_eq!(d.len(), l.fields.len());
    assert_eq!(d.absent(), d.fixed().absent());
    let entries: Vec<&[u8]> = group_entries(rec, l).collect();
    assert_eq!(d.entry_count(), entries.len(), "{}: entries", l.name);
    let gfields = l.group.map_or(&[][..], |g| g.fields);
    assert_eq!(d.group_values().len(), entries.len() * gfields.len());
    let mut gabsent = 0;
    for (e, bytes) in entries.iter().enumerate() {
        let de = d.entry(e).unwrap();
        assert_same(bytes, gfields, &de, l.name);
        assert_eq!(
            &d.group_values()[e * gfields.len()..(e + 1) * gfields.len()],
            de.values()
        );
        gabsent += de.absent();
    }
    assert!(d.entry(entries.len()).is_none());
    assert_eq!(d.entries().count(), entries.len());
    assert_eq!(d.group_absent(), gabsent);
    // The owned group decoder agrees too.
    let owned: Vec<Vec<(&str, Option<Value>)>> = d
        .entries()
        .map(|e| {
            e.iter()
                .map(|(f, v)| (f.name, v.map(|v| v.to_value())))
                .collect()
        })
        .collect();
    assert_eq!(owned, super::super::decode_group(rec, l), "{}", l.name);
}

#[test]
fn runs_cover_every_field_once() {
    let mut total = (0, 0);
    for l in LAYOUTS {
        let p = decode_plan(l).unwrap();
        let mut parts = vec![(l.fields, &p.runs)];
        if let (Some(g), Some(gp)) = (&l.group, &p.group) {
            parts.push((g.fields, &gp.runs));
        }
        for (fields, runs) in parts {
            let mut next = 0;
            for r in runs.iter() {
                assert_eq!(r.slot, next, "{}: runs in field order", l.name);
                for k in 0..r.slots() {
                    let f = &fields[(r.slot + k) as usize];
                    let w = numeric_kind(f.ty).map_or(0, |(_, w)| w);
                    assert_eq!(f.offset as u32, r.off + k * w, "{}", f.name);
                }
                next += r.slots();
            }
            assert_eq!(next as usize, fields.len(), "{}: every field", l.name);
            total.0 += fields.len();
            total.1 += runs.len();
        }
    }
    // Merging must actually happen: far fewer runs than fields.
    assert!(total.1 * 2 < total.0, "{total:?}");
    let rsg = decode_plan(by_name("MRSYTRSP").unwrap()).unwrap();
    assert!(rsg.runs() < by_name("MRSYTRSP").unwrap().fields.len());
}

#[test]
fn every_table_layout_has_a_generated_decoder() {
    for (i, l) in LAYOUTS.iter().enumerate() {
        let p = decode_plan(l).unwrap();
        assert!(p.is_specialised(), "{}: more than {MAX_RUNS} runs?", l.name);
        assert!(!DecodePlan::new(l).is_specialised());
        // The compile-time runs are the run-time ones.
        let (fixed, group) = (const_plan(l.fields), l.group.map(|g| const_plan(g.fields)));
        assert_eq!(&fixed.runs[..fixed.n], &p.runs[..], "{}", l.name);
        assert_eq!(
            (fixed.fields, fixed.full),
            (l.fields.len(), p.full),
            "{}",
            l.name
        );
        if let (Some(g), Some(gp)) = (group, &p.group) {
            assert_eq!(&g.runs[..g.n], &gp.runs[..], "{}", l.name);
        }
        assert!(SPECIALISED[i].0.is_some());
        assert_eq!(SPECIALISED[i].1.is_some(), l.group.is_some(), "{}", l.name);
    }
    assert!(SPECIALISED[LAYOUTS.len()..]
        .iter()
        .all(|s| s.0.is_none() && s.1.is_none()));
}

#[test]
fn every_layout_at_every_length() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut dec = RecordDecoder::new();
    for round in 0..4 {
        for l in LAYOUTS {
            let full = l.size as usize + 16;
            for len in 0..=full {
                let mut rec = rng.bytes(len);
                if round == 0 {
                    // Blank-padded text and NULs, so trimming is exercised.
                    for b in rec.iter_mut().filter(|b| **b & 3 == 0) {
                        *b = if *b & 4 == 0 { 0x40 } else { 0 };
                    }
                }
                check(&mut dec, &rec, l);
            }
        }
    }
}

#[test]
fn variable_text_lengths() {
    let mut dec = RecordDecoder::new();
    let mut rng = Rng(7);
    for name in ["MRMTRSCM", "MRMTRECM"] {
        let l = by_name(name).unwrap();
        let FieldType::VarText { len_at } = l
            .fields
            .iter()
            .find(|f| matches!(f.ty, FieldType::VarText { .. }))
            .unwrap()
            .ty
        else {
            unreachable!()
        };
        for len in 0..80usize {
            for n in [0u32, 1, 5, len as u32, u32::MAX, u32::MAX - 3, 200] {
                let mut rec = rng.bytes(len);
                let la = len_at as usize;
                if la + 4 <= len {
                    rec[la..la + 4].copy_from_slice(&n.to_be_bytes());
                }
                check(&mut dec, &rec, l);
            }
        }
    }
}

#[test]
fn repeating_groups() {
    let mut rng = Rng(0xDEAD_BEEF_1234_5678);
    let mut dec = RecordDecoder::new();
    for l in LAYOUTS.iter().filter(|l| l.group.is_some()) {
        let g = l.group.unwrap();
        let (of, ln) = (l.f(g.offset_field), l.f(g.len_field));
        let full = full_len(g.fields);
        for _ in 0..3000 {
            let entry_len = match rng.next() % 4 {
                0 => full,
                1 => 1 + (rng.next() % (full as u64 + 8)) as usize,
                2 => 0,
                _ => rng.next() as u16 as usize,
            };
            let entries = (rng.next() % 10) as usize;
            let start = match rng.next() % 4 {
                0 => l.size as usize,
                1 => (rng.next() % 400) as usize,
                _ => 20 + (rng.next() % 60) as usize,
            };
            let len = (start + entries * entry_len.min(64) + (rng.next() % 30) as usize)
                .max(ln.end().max(of.end()));
            let mut rec = rng.bytes(len);
            encode_field_u(&mut rec, of, start as u64);
            encode_field_u(&mut rec, ln, entry_len as u64);
            check(&mut dec, &rec, l);
            // The same record with a shorter length (groups cut off).
            let cut = (rng.next() % (len as u64 + 1)) as usize;
            check(&mut dec, &rec[..cut], l);
        }
    }
}

#[test]
fn a_record_without_group_after_one_with_entries() {
    let cup = by_name("MRSYTCUP").unwrap();
    let mut rec = vec![0u8; 64 + 3 * 24];
    encode_field_u(&mut rec, cup.f("SYTCUP_CALCPUOF"), 64);
    encode_field_u(&mut rec, cup.f("SYTCUP_CALCPULN"), 24);
    let mut dec = RecordDecoder::new();
    assert_eq!(dec.decode(&rec, cup).entry_count(), 3);
    assert_eq!(dec.decode(&rec, cup).group_values().len(), 3 * 6);
    let rsg = by_name("MRSYTRSG").unwrap();
    let d = dec.decode(&rec, rsg);
    assert_eq!(
        (d.entry_count(), d.group_values().len(), d.group_absent()),
        (0, 0, 0)
    );
    check(&mut dec, &rec, rsg);
    // A group record whose group is gone (entry length 0).
    assert_eq!(dec.decode(&rec, cup).entry_count(), 3);
    encode_field_u(&mut rec, cup.f("SYTCUP_CALCPULN"), 0);
    let d = dec.decode(&rec, cup);
    assert_eq!((d.entry_count(), d.group_values().len()), (0, 0));
}

fn encode_field_u(rec: &mut [u8], f: &FieldDef, v: u64) {
    let w = f.ty.width();
    let v = v & (u64::MAX >> (64 - 8 * w as u32));
    super::super::encode_field(rec, f, &Value::U(v)).unwrap();
}

#[test]
fn a_layout_built_elsewhere_decodes_the_same() {
    let mut dec = RecordDecoder::new();
    let mut rng = Rng(3);
    for l in LAYOUTS {
        let copy = RecordLayout { ..*l };
        assert!(decode_plan(&copy).is_none());
        for len in [
            0,
            20,
            l.size as usize / 2,
            l.size as usize,
            l.size as usize + 50,
        ] {
            let rec = rng.bytes(len);
            check(&mut dec, &rec, &copy);
            let want: Vec<_> = dec.decode(&rec, l).values().to_vec();
            assert_eq!(dec.decode(&rec, &copy).values(), &want[..]);
            let plan = DecodePlan::new(l);
            assert_eq!(dec.decode_with(&rec, &plan).values(), &want[..]);
        }
    }
}

#[test]
fn signed_fields_keep_their_sign() {
    let l = by_name("MRSYTUWT").unwrap();
    let f = l.f("SYTUWT_CALIOWT");
    let mut rec = vec![0u8; l.size as usize];
    super::super::encode_field(&mut rec, f, &Value::I(-5)).unwrap();
    let mut dec = RecordDecoder::new();
    let d = dec.decode(&rec, l);
    let i = l.fields.iter().position(|x| x.name == f.name).unwrap();
    assert_eq!(d.get(i), Some(ValueRef::I(-5)));
    assert_eq!(d.values()[i] as i64, -5);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn any_bytes_any_layout(k in 0..LAYOUTS.len(), rec in proptest::collection::vec(any::<u8>(), 0..600)) {
        let mut dec = RecordDecoder::new();
        check(&mut dec, &rec, &LAYOUTS[k]);
    }

    #[test]
    fn a_reused_decoder_forgets_the_previous_record(
        a in 0..LAYOUTS.len(), b in 0..LAYOUTS.len(),
        ra in proptest::collection::vec(any::<u8>(), 0..500),
        rb in proptest::collection::vec(any::<u8>(), 0..500),
    ) {
        let mut dec = RecordDecoder::new();
        let _ = dec.decode(&ra, &LAYOUTS[a]);
        check(&mut dec, &rb, &LAYOUTS[b]);
        let _ = dec.decode(&rb, &LAYOUTS[b]);
        check(&mut dec, &ra, &LAYOUTS[a]);
    }
}
