//! Property tests: arbitrary record sets written by the writer read back
//! identically, across frame boundaries, multi-entry groups, several intervals
//! and event sets, including every layout at its size and records padded to the
//! largest size a frame allows.

mod common;

use proptest::prelude::*;
use std::io::Cursor;
use ztwin_monitor::layout::{decode_field, encode_field, FieldType, Value, LAYOUTS};
use ztwin_monitor::writer::{DataLayout, Entry, MonwriteWriter, RecordSet};
use ztwin_monitor::{tod, Reader, SetKind, FRAME};

/// A record expected back: (domain, record, bytes, values set, layout index).
type Expected = (u8, u16, Vec<u8>, Option<Vec<(usize, Value)>>, usize);

/// A value of the right type for `ty`, drawn from `seed`.
fn value_for(ty: FieldType, seed: u64) -> Value {
    let mix = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (seed >> 29);
    match ty {
        FieldType::U1 => Value::U(mix & 0xFF),
        FieldType::U2 => Value::U(mix & 0xFFFF),
        FieldType::U4 => Value::U(mix & 0xFFFF_FFFF),
        FieldType::U8 => Value::U(mix),
        FieldType::S2 => Value::I((mix as u16 as i16) as i64),
        FieldType::S4 => Value::I((mix as u32 as i32) as i64),
        FieldType::S8 => Value::I(mix as i64),
        FieldType::Tod => Value::Tod(mix),
        FieldType::Dur => Value::Dur(mix),
        FieldType::Char(n) => {
            let len = (mix % (n as u64 + 1)) as usize;
            let s: String = (0..len)
                .map(|i| (b'A' + ((mix >> (i % 8)) % 26) as u8) as char)
                .collect();
            Value::Text(s)
        }
        FieldType::Bits(n) => Value::Bits((0..n).map(|i| (mix >> (i % 8 * 8)) as u8).collect()),
        FieldType::VarText { .. } => Value::Text(format!("MONITOR SAMPLE ENABLE {mix}")),
    }
}

#[derive(Debug, Clone)]
struct RecSpec {
    layout: usize,
    /// Extra bytes beyond the layout size (a newer, longer record).
    extra: usize,
    seed: u64,
}

#[derive(Debug, Clone)]
struct EntrySpec {
    event: bool,
    records: Vec<RecSpec>,
}

/// Layouts a caller may add to a set (D1R13 is the writer's own).
fn usable() -> Vec<usize> {
    (0..LAYOUTS.len())
        .filter(|&i| (LAYOUTS[i].domain, LAYOUTS[i].record) != (1, 13))
        .collect()
}

fn rec_spec() -> impl Strategy<Value = RecSpec> {
    (
        prop::sample::select(usable()),
        prop_oneof![4 => Just(0usize), 1 => 0usize..64, 1 => Just(usize::MAX)],
        any::<u64>(),
    )
        .prop_map(|(layout, extra, seed)| RecSpec {
            layout,
            extra,
            seed,
        })
}

fn entry_spec() -> impl Strategy<Value = EntrySpec> {
    (any::<bool>(), prop::collection::vec(rec_spec(), 1..40))
        .prop_map(|(event, records)| EntrySpec { event, records })
}

/// Per record: the layout index and the (field index, value) pairs set.
type Built = Vec<(usize, Vec<(usize, Value)>)>;

/// Build a record set; returns the set and what each record holds.
fn build(spec: &EntrySpec, t: u64) -> (RecordSet, Built) {
    let mut set = RecordSet::new(if spec.event {
        SetKind::Event
    } else {
        SetKind::Sample
    });
    let mut expect = Vec::new();
    for r in &spec.records {
        let l = &LAYOUTS[r.layout];
        let var = l
            .fields
            .iter()
            .find(|f| matches!(f.ty, FieldType::VarText { .. }));
        let text_len = var.map_or(0, |f| match value_for(f.ty, r.seed) {
            Value::Text(t) => t.len(),
            _ => 0,
        });
        let len = if r.extra == usize::MAX {
            FRAME
        } else {
            l.size as usize + text_len + r.extra
        };
        let rec = set
            .push(l.domain, l.record, t + r.seed % 1000, len)
            .unwrap();
        let mut vals = Vec::new();
        for (i, f) in l.fields.iter().enumerate() {
            if let FieldType::VarText { .. } = f.ty {
                continue; // written with its length field below
            }
            let v = value_for(f.ty, r.seed.wrapping_add(i as u64));
            encode_field(rec.bytes, f, &v).unwrap();
            vals.push((i, v));
        }
        if let Some((i, f)) = l
            .fields
            .iter()
            .enumerate()
            .find(|(_, f)| matches!(f.ty, FieldType::VarText { .. }))
        {
            let v = value_for(f.ty, r.seed);
            encode_field(rec.bytes, f, &v).unwrap();
            let FieldType::VarText { len_at } = f.ty else {
                unreachable!()
            };
            vals.retain(|(j, _)| l.fields[*j].offset != len_at);
            vals.push((i, v));
        }
        expect.push((r.layout, vals));
    }
    (set, expect)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn write_then_read_is_identity(groups in prop::collection::vec(prop::collection::vec(entry_spec(), 1..4), 1..6)) {
        let mut w = MonwriteWriter::new(Vec::new());
        let mut expected: Vec<Expected> = Vec::new();
        for (gi, g) in groups.iter().enumerate() {
            let t = tod::from_unix_us(common::T0_US + gi as i64 * 60_000_000);
            let built: Vec<_> = g.iter().map(|e| build(e, t)).collect();
            let entries: Vec<Entry> = built
                .iter()
                .map(|(set, _)| Entry { set, interval_end: (set.kind == SetKind::Sample).then_some(t) })
                .collect();
            w.write_group(&entries).unwrap();
            for (set, vals) in &built {
                for (rec, (l, v)) in set.records().zip(vals) {
                    expected.push((rec[4], u16::from_be_bytes([rec[6], rec[7]]), rec.to_vec(), Some(v.clone()), *l));
                }
                if set.kind == SetKind::Sample {
                    expected.push((1, 11, Vec::new(), None, 0));
                }
            }
        }
        let bytes = w.finish().unwrap();
        prop_assert_eq!(bytes.len() % FRAME, 0);
        let mut r = Reader::new(Cursor::new(&bytes)).unwrap();
        let mut got = 0usize;
        while let Some(rec) = r.next_record().unwrap() {
            let (d, rc, raw, vals, li) = &expected[got];
            prop_assert_eq!((rec.header.domain, rec.header.record), (*d, *rc));
            prop_assert_eq!(rec.offset % FRAME as u64 + rec.bytes.len() as u64 <= FRAME as u64, true);
            if let Some(vals) = vals {
                prop_assert_eq!(rec.bytes, &raw[..]);
                // Decode with the layout (version) the record was built from.
                let l = &LAYOUTS[*li];
                for (i, v) in vals {
                    let f = &l.fields[*i];
                    let dv = decode_field(rec.bytes, f).unwrap();
                    match (&dv, v) {
                        // Character fields lose trailing blanks only.
                        (Value::Text(a), Value::Text(b)) => prop_assert_eq!(a.trim_end(), b.trim_end()),
                        _ => prop_assert_eq!(&dv, v),
                    }
                }
            }
            got += 1;
        }
        prop_assert_eq!(got, expected.len());
        prop_assert_eq!(r.stats.damage_count, 0, "damage: {:?}", r.stats.damage);
        prop_assert!(!r.stats.truncated);
        prop_assert_eq!(r.stats.groups as usize, groups.len());
    }
}

#[test]
fn every_layout_at_its_size_and_at_a_full_frame() {
    let t = tod::from_unix_us(common::T0_US);
    let mut set = RecordSet::new(SetKind::Sample);
    for i in usable() {
        let l = &LAYOUTS[i];
        for len in [l.size as usize + 64, FRAME] {
            let rec = set.push(l.domain, l.record, t, len).unwrap();
            for (j, f) in l.fields.iter().enumerate() {
                encode_field(rec.bytes, f, &value_for(f.ty, (i * 100 + j) as u64)).unwrap();
            }
        }
    }
    let mut w = MonwriteWriter::new(Vec::new());
    w.write_sample_set(&set, t).unwrap();
    let bytes = w.finish().unwrap();
    let (recs, stats) = common::read_all(&bytes).unwrap();
    assert_eq!(stats.damage_count, 0);
    assert_eq!(recs.len(), 2 * usable().len() + 1);
    for ((_, _, _, got), want) in recs.iter().zip(set.records()) {
        assert_eq!(&got[..], want);
    }
    assert_eq!(stats.unknown, 0);
}

#[test]
fn writer_is_deterministic() {
    assert_eq!(common::sample_file(5), common::sample_file(5));
}

#[test]
fn writer_rejects_oversized_records_and_sets() {
    let mut set = RecordSet::new(SetKind::Sample);
    assert!(matches!(
        set.push(1, 13, 0, 20),
        Err(ztwin_monitor::WriteError::ReservedRecord)
    ));
    assert!(set.push(0, 3, 0, FRAME + 1).is_err());
    assert!(set.push(0, 3, 0, 19).is_err());
    let dcss = ztwin_monitor::writer::DcssLayout {
        base: 0x0A00_0000,
        sample_pages: 2,
        event_pages: 2,
    };
    let mut w = MonwriteWriter::with_layout(Vec::new(), dcss);
    for _ in 0..3 {
        set.push(0, 3, 0, 4000).unwrap();
    }
    let err = w.write_sample_set(&set, 0).unwrap_err();
    assert!(err.to_string().contains("needs 3 pages"), "{err}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// The same groups written as whole frames and as contiguous entry bytes
    /// read back as the same records, each group's layout detected.
    #[test]
    fn both_data_layouts_read_the_same(groups in prop::collection::vec(prop::collection::vec(entry_spec(), 1..4), 1..5)) {
        let mut files = Vec::new();
        for layout in [DataLayout::Frames, DataLayout::Contiguous] {
            let mut w = MonwriteWriter::new(Vec::new());
            w.set_data_layout(layout);
            for (gi, g) in groups.iter().enumerate() {
                let t = tod::from_unix_us(common::T0_US + gi as i64 * 60_000_000);
                let built: Vec<_> = g.iter().map(|e| build(e, t)).collect();
                let entries: Vec<Entry> = built
                    .iter()
                    .map(|(set, _)| Entry { set, interval_end: (set.kind == SetKind::Sample).then_some(t) })
                    .collect();
                w.write_group(&entries).unwrap();
            }
            files.push(w.finish().unwrap());
        }
        let mut seen = Vec::new();
        for (bytes, layout) in files.iter().zip([DataLayout::Frames, DataLayout::Contiguous]) {
            prop_assert_eq!(bytes.len() % FRAME, 0);
            // the in-memory (mapped) path reads the same records and stats
            common::read_all(bytes).unwrap();
            let mut r = Reader::new(Cursor::new(bytes)).unwrap();
            let mut recs = Vec::new();
            while let Some(rec) = r.next_record().unwrap() {
                recs.push((rec.header, rec.set_kind, rec.bytes.to_vec()));
            }
            prop_assert_eq!(r.stats.damage_count, 0, "{:?}: {:?}", layout, r.stats.damage);
            prop_assert_eq!(r.stats.groups as usize, groups.len());
            // A group whose data is the same either way (one entry of whole
            // frames) counts as frames.
            if layout == DataLayout::Frames {
                prop_assert_eq!(r.stats.contiguous_groups, 0);
            }
            seen.push(recs);
        }
        prop_assert_eq!(&seen[0], &seen[1]);
    }
}

/// A source that counts the bytes read from it.
struct Counting<'a> {
    inner: Cursor<&'a [u8]>,
    read: u64,
}

impl std::io::Read for Counting<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        Ok(n)
    }
}

impl std::io::Seek for Counting<'_> {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(pos)
    }
}

/// Groups larger than the reader's 1 MiB window and ending at every kind of
/// place in it, in both data layouts: every record read back, and the file
/// read once (the look ahead at a group's end peeks at single blocks instead of
/// moving the window there and back).
#[test]
fn groups_across_the_window_are_read_once() {
    let act = ztwin_monitor::layout::by_name("MRUSEACT").unwrap();
    let sizes = [3000usize, 17, 2500, 900, 2900, 1, 1200, 2600];
    for layout in [DataLayout::Frames, DataLayout::Contiguous] {
        let mut w = MonwriteWriter::new(Vec::new());
        w.set_data_layout(layout);
        let mut written = 0usize;
        for (gi, &n) in sizes.iter().enumerate() {
            let t = tod::from_unix_us(common::T0_US + gi as i64 * 60_000_000);
            let mut s = RecordSet::new(SetKind::Sample);
            for u in 0..n {
                let mut r = s.push_layout(act, t);
                r.set_text(act.f("USEACT_VMDUSER"), &format!("U{u:07}"));
                r.set_u(act.f("USEACT_VMDCPUAD"), (u % 4) as u64);
            }
            let mut e = RecordSet::new(SetKind::Event);
            e.push(4, 1, t, 96 + gi).unwrap();
            written += n + 2; // + D1R11 + the event
            let entries = [
                Entry {
                    set: &s,
                    interval_end: Some(t),
                },
                Entry {
                    set: &e,
                    interval_end: None,
                },
            ];
            w.write_group(&entries).unwrap();
        }
        let bytes = w.finish().unwrap();
        assert!(bytes.len() > 4 << 20, "{}", bytes.len());
        let mut src = Counting {
            inner: Cursor::new(&bytes[..]),
            read: 0,
        };
        let mut r = Reader::new(&mut src).unwrap();
        let mut n = 0usize;
        while r.next_record().unwrap().is_some() {
            n += 1;
        }
        assert_eq!(r.stats.damage_count, 0, "{layout:?}: {:?}", r.stats.damage);
        assert_eq!(n, written, "{layout:?}");
        let groups = sizes.len() as u64;
        match layout {
            DataLayout::Frames => assert_eq!(r.stats.frame_groups, groups),
            DataLayout::Contiguous => assert_eq!(r.stats.contiguous_groups, groups),
        }
        drop(r);
        // One block of look ahead per hypothesis and group at most.
        let extra = src.read.saturating_sub(bytes.len() as u64);
        assert!(
            extra <= groups * 3 * FRAME as u64,
            "{layout:?}: {} bytes read for {}",
            src.read,
            bytes.len()
        );
    }
}
