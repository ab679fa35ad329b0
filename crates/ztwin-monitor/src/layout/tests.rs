use super::*;

#[test]
fn fields_fit_and_do_not_overlap() {
    for l in LAYOUTS {
        let mut spans: Vec<(usize, usize, &str)> = Vec::new();
        for f in l.fields {
            assert!(
                f.offset as usize >= crate::header::HEADER_LEN,
                "{} in header",
                f.name
            );
            let end = match f.ty {
                FieldType::VarText { .. } => f.offset as usize,
                _ => f.end(),
            };
            assert!(
                end <= l.size as usize,
                "{} ends at {} beyond size {} of {}",
                f.name,
                end,
                l.size,
                l.name
            );
            spans.push((f.offset as usize, end, f.name));
        }
        spans.sort();
        for w in spans.windows(2) {
            assert!(
                w[0].1 <= w[1].0,
                "{} overlaps {} in {}",
                w[0].2,
                w[1].2,
                l.name
            );
        }
    }
}

#[test]
fn names_carry_the_record_prefix_and_are_unique() {
    let mut keys = std::collections::HashSet::new();
    for l in LAYOUTS {
        assert!(
            keys.insert((l.domain, l.record, l.since)),
            "duplicate layout {}",
            l.name
        );
        let prefix = format!("{}_", &l.name[2..]);
        let mut names = std::collections::HashSet::new();
        for f in l.fields {
            assert!(
                f.name.starts_with(&prefix),
                "{} lacks prefix {}",
                f.name,
                prefix
            );
            assert!(names.insert(f.name), "duplicate field {}", f.name);
        }
        if let Some(g) = &l.group {
            assert!(l.field(g.offset_field).is_some() && l.field(g.len_field).is_some());
        }
    }
}

#[test]
#[rustfmt::skip]
fn sizes_per_release_match_the_pages() {
    // (record, release, size): sizes seen on IBM's pages (or zpmd's 5.3 structs).
    for (name, rel, size) in [
        ("MRSYTSYP", "5.3", 116), ("MRSYTSYP", "6.4", 116),
        ("MRSYTPRP", "5.3", 108), ("MRSYTPRP", "5.4", 124), ("MRSYTPRP", "6.2", 140),
        ("MRSYTPRP", "6.4", 352), ("MRSYTRSG", "5.3", 492), ("MRSYTRSP", "6.4", 72),
        ("MRSYTASG", "5.3", 84), ("MRSYTASG", "7.3", 112), ("MRSYTUWT", "5.3", 160),
        ("MRSYTUWT", "6.1", 180), ("MRSYTUWT", "7.2", 180), ("MRSYTCUP", "6.2", 64),
        ("MRMTREPR", "7.3", 52), ("MRMTRSYS", "5.3", 184), ("MRMTRSYS", "6.1", 420),
        ("MRMTRMEM", "6.4", 228), ("MRMTRMEM", "7.3", 326), ("MRMTRPAG", "5.4", 48),
        ("MRMTRPAG", "6.4", 48), ("MRMTRPAG", "7.1", 64), ("MRMTRPAG", "7.4", 64),
        ("MRMTRSPR", "5.4", 36), ("MRMTRUSR", "6.2", 224), ("MRMTRUSR", "7.3", 348),
        ("MRMTRXSG", "6.3", 36), ("MRSTORSP", "5.3", 364), ("MRSTORSP", "6.3", 720),
        ("MRUSELON", "5.3", 96), ("MRUSELON", "5.4", 176), ("MRUSELON", "6.2", 180),
        ("MRUSELOF", "5.4", 444), ("MRUSELOF", "6.2", 496), ("MRUSEACT", "6.1", 440),
        ("MRUSEACT", "6.2", 508), ("MRPRCPRP", "7.1", 384), ("MRIODMON", "6.4", 28),
        ("MRIODMDV", "7.2", 36), ("MRMTREND", "7.3", 20), ("MRMTREOF", "5.4", 20),
    ] {
        let r: Release = rel.parse().unwrap();
        let l = by_name_release(name, r).unwrap();
        assert_eq!(l.size, size, "{name} in {rel}");
        assert!(l.covers(r), "{name} in {rel} should count as seen");
    }
    // The twin's release: SYTPRP at its 5.4 size, not the 5.3 one.
    assert_eq!(by_name("MRSYTPRP").unwrap().size, 124);
}

#[test]
fn carried_layouts_count_as_inferred() {
    let r61: Release = "6.1".parse().unwrap();
    // SYTPRP in 6.1: no page seen, the 5.4 layout carried over.
    let l = by_name_release("MRSYTPRP", r61).unwrap();
    assert_eq!(l.size, 124);
    assert!(!l.covers(r61));
    let cpuad = l.f("SYTPRP_PFXCPUAD");
    assert_eq!(cpuad.src, Confidence::Ibm);
    assert_eq!(l.confidence_in(cpuad, r61), Confidence::Inferred);
    assert_eq!(
        by_name("MRSYTPRP")
            .unwrap()
            .confidence_in(cpuad, DEFAULT_RELEASE),
        Confidence::Ibm
    );
    // Between two releases with pages showing the same size: covered.
    let cup = by_name_release("MRSYTCUP", DEFAULT_RELEASE).unwrap();
    assert!(cup.covers(DEFAULT_RELEASE));
}

#[test]
fn former_names_resolve_or_are_retired() {
    let mem = by_name("MRMTRMEM").unwrap();
    assert_eq!(mem.f("MTRMEM_SYSGSTOR").name, "MTRMEM_RSAGSTOR");
    let uwt = by_name("MRSYTUWT").unwrap();
    assert_eq!(uwt.field("SYTUWT_CALSVMWT").unwrap().offset, 24);
    let dev = by_name("MRIODDEV").unwrap();
    assert_eq!(dev.f("IODDEV_HFBUSY").name, "IODDEV_HFCTIO");
    assert!(dev.field("IODDEV_HFCOUNT").is_none());
    assert!(std::ptr::eq(dev.f("IODDEV_HFCOUNT"), &RETIRED_FIELD));
    assert!(retired_reason("IODDEV_HFCOUNT").is_some());
    let cup = by_name("MRSYTCUP").unwrap();
    assert_eq!(
        cup.group.unwrap().field("SYTCUP_LCCDSPTM").unwrap().name,
        "SYTCUP_LCUCACTM"
    );
    // Every alias and retired name is sound.
    for (old, new) in ALIASES {
        assert!(retired_reason(old).is_none(), "{old}");
        let found = LAYOUTS.iter().any(|l| {
            l.field(new).is_some()
                || l.group
                    .is_some_and(|g| g.name == *new || g.field(new).is_some())
        });
        assert!(found, "alias {old} -> {new} leads nowhere");
    }
    for (name, _) in RETIRED {
        assert!(
            LAYOUTS
                .iter()
                .all(|l| l.fields.iter().all(|f| f.name != *name)),
            "{name}"
        );
    }
}

#[test]
#[should_panic(expected = "MRIODDEV has no field IODDEV_TYPO")]
fn unknown_names_still_panic() {
    by_name("MRIODDEV").unwrap().f("IODDEV_TYPO");
}

#[test]
fn inferred_layouts_are_marked() {
    for name in ["MRUSEINT", "MRUSEACT", "MRUSELOF"] {
        let l = by_name(name).unwrap();
        assert_eq!(l.src, Confidence::Inferred, "{name}");
        assert!(
            l.fields.iter().any(|f| f.src == Confidence::Inferred),
            "{name}"
        );
    }
    // A confirmed layout has no inferred field.
    assert!(by_name("MRIODMDV")
        .unwrap()
        .fields
        .iter()
        .all(|f| f.src == Confidence::Ibm));
    // The layout's tag is the weakest of its fields'.
    let rank = |c: Confidence| match c {
        Confidence::Ibm => 0,
        Confidence::Linux => 1,
        Confidence::Z53 => 2,
        Confidence::Inferred => 3,
    };
    for l in LAYOUTS {
        let group = l.group.map_or(&[][..], |g| g.fields);
        let weakest = l
            .fields
            .iter()
            .chain(group)
            .map(|f| rank(f.src))
            .max()
            .unwrap_or(0);
        assert_eq!(rank(l.src), weakest, "{} since {}", l.name, l.since);
    }
}

#[test]
fn lookup_by_release_and_name() {
    let l = lookup(0, 3, DEFAULT_RELEASE).unwrap();
    assert_eq!(l.name, "MRSYTRSG");
    // Releases older than any known layout fall back to the oldest one.
    assert_eq!(lookup(0, 3, Release(4, 2)).unwrap().name, "MRSYTRSG");
    assert!(lookup(0, 99, DEFAULT_RELEASE).is_none());
    assert_eq!(record_name(9, 9), "D9R9");
    assert_eq!(record_name(1, 13), "MRMTREOF");
}

#[test]
fn encode_decode_each_type() {
    let l = by_name("MRMTRSCM").unwrap();
    let mut rec = vec![0u8; 64];
    encode_field(
        &mut rec,
        l.f("MTRSCM_CALTOD"),
        &Value::Tod(0xC551_F564_1600_0000),
    )
    .unwrap();
    encode_field(
        &mut rec,
        l.f("MTRSCM_CALCMD"),
        &Value::Text("MONITOR SAMPLE INTERVAL 60 SEC".into()),
    )
    .unwrap();
    assert_eq!(
        decode_field(&rec, l.f("MTRSCM_CALBYCT")),
        Some(Value::U(30))
    );
    assert_eq!(
        decode_field(&rec, l.f("MTRSCM_CALCMD")),
        Some(Value::Text("MONITOR SAMPLE INTERVAL 60 SEC".into()))
    );
    let u = by_name("MRSYTUWT").unwrap();
    let mut r = vec![0u8; 160];
    encode_field(&mut r, u.f("SYTUWT_CALIOWT"), &Value::I(-5)).unwrap();
    assert_eq!(decode_field(&r, u.f("SYTUWT_CALIOWT")), Some(Value::I(-5)));
    assert_eq!(
        encode_field(&mut r, u.f("SYTUWT_SRMCELIG"), &Value::U(70_000)),
        Err(EncodeError::OutOfRange {
            field: "SYTUWT_SRMCELIG"
        })
    );
    assert_eq!(
        encode_field(&mut r, u.f("SYTUWT_SRMCELIG"), &Value::Text("x".into())),
        Err(EncodeError::WrongType {
            field: "SYTUWT_SRMCELIG"
        })
    );
}

#[test]
fn short_record_reports_absent_fields() {
    // A 4.3-sized SYTRSP (48 bytes) has no fields from offset 48 on.
    let l = by_name("MRSYTRSP").unwrap();
    let rec = vec![0u8; 48];
    assert_eq!(
        decode_field(&rec, l.f("SYTRSP_PLSMVB2G")),
        Some(Value::U(0))
    );
    assert_eq!(decode_field(&rec, l.f("SYTRSP_PLSALEMG")), None);
    assert_eq!(read_u64(&rec, l.f("SYTRSP_PLSALECG")), None);
}

#[test]
fn group_entries_are_bounded() {
    let l = by_name("MRSYTCUP").unwrap();
    let mut rec = vec![0u8; 64 + 2 * 40 + 5];
    encode_field(&mut rec, l.f("SYTCUP_CALCPUOF"), &Value::U(64)).unwrap();
    encode_field(&mut rec, l.f("SYTCUP_CALCPULN"), &Value::U(40)).unwrap();
    rec[64 + 40 + 1] = 7; // second entry's CPU address
    let g = decode_group(&rec, l);
    assert_eq!(g.len(), 2);
    assert_eq!(g[1][0], ("SYTCUP_LCUCPUID", Some(Value::U(7))));
    // An entry length of zero or an offset past the end yields nothing.
    encode_field(&mut rec, l.f("SYTCUP_CALCPULN"), &Value::U(0)).unwrap();
    assert!(decode_group(&rec, l).is_empty());
    encode_field(&mut rec, l.f("SYTCUP_CALCPUOF"), &Value::U(9999)).unwrap();
    encode_field(&mut rec, l.f("SYTCUP_CALCPULN"), &Value::U(40)).unwrap();
    assert!(decode_group(&rec, l).is_empty());
}

#[test]
fn dense_lookup_agrees_with_the_candidate_lists() {
    let ix = index();
    for d in 0..=255u8 {
        for r in (0..300u16).chain([1000, u16::MAX]) {
            let slow = ix
                .by_key
                .get(&(d, r))
                .and_then(|c| pick(c, DEFAULT_RELEASE));
            assert_eq!(lookup(d, r, DEFAULT_RELEASE), slow, "D{d}R{r}");
        }
    }
    for l in LAYOUTS {
        assert_eq!(layout_index(l).map(|i| &LAYOUTS[i]), Some(l));
        assert_eq!(by_name_release(l.name, l.since), Some(l));
        for &r in &Release::KNOWN {
            let slow = ix
                .by_key
                .get(&(l.domain, l.record))
                .and_then(|c| pick(c, r));
            assert_eq!(lookup(l.domain, l.record, r), slow);
        }
    }
    let copy = RecordLayout {
        ..*by_name("MRSYTCUP").unwrap()
    };
    assert_eq!(layout_index(&copy), None);
}

#[test]
fn borrowed_and_owned_decoding_agree() {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    for l in LAYOUTS {
        for len in [
            20,
            l.size as usize / 2,
            l.size as usize - 1,
            l.size as usize,
            l.size as usize + 9,
        ] {
            let len = len.max(20);
            let rec: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            for f in l.fields {
                let r = decode_field_ref(&rec, f);
                assert_eq!(r.map(|v| v.to_value()), decode_field(&rec, f), "{}", f.name);
                let present = match f.ty {
                    FieldType::VarText { len_at } => {
                        len_at as usize + 4 <= len && f.offset as usize <= len
                    }
                    _ => f.end() <= len,
                };
                assert_eq!(r.is_some(), present, "{}", f.name);
                if f.ty.is_numeric() {
                    let bits = match r.unwrap_or(ValueRef::U(0)) {
                        ValueRef::U(v) | ValueRef::Tod(v) | ValueRef::Dur(v) => v,
                        ValueRef::I(v) => v as u64 & (u64::MAX >> (64 - 8 * f.ty.width())),
                        other => panic!("{}: {other:?}", f.name),
                    };
                    assert_eq!(read_u64(&rec, f), r.map(|_| bits), "{}", f.name);
                }
            }
        }
    }
}

#[test]
fn group_entries_are_the_decoded_groups() {
    let l = by_name("MRSYTCUP").unwrap();
    let g = l.group.as_ref().unwrap();
    let mut rec = vec![0u8; 64 + 3 * 40 + 5];
    encode_field(&mut rec, l.f("SYTCUP_CALCPUOF"), &Value::U(64)).unwrap();
    encode_field(&mut rec, l.f("SYTCUP_CALCPULN"), &Value::U(40)).unwrap();
    for (i, b) in rec.iter_mut().enumerate().skip(64) {
        *b = i as u8;
    }
    let owned = decode_group(&rec, l);
    let entries: Vec<&[u8]> = group_entries(&rec, l).collect();
    assert_eq!(entries.len(), 3);
    assert_eq!(owned.len(), 3);
    for (e, o) in entries.iter().zip(&owned) {
        let borrowed: Vec<_> = g
            .fields
            .iter()
            .map(|f| (f.name, decode_field_ref(e, f).map(|v| v.to_value())))
            .collect();
        assert_eq!(&borrowed, o);
    }
    // A layout without a group, and a layout built elsewhere.
    assert_eq!(group_entries(&rec, by_name("MRSYTRSG").unwrap()).count(), 0);
    let copy = RecordLayout { ..*l };
    assert_eq!(group_entries(&rec, &copy).count(), 3);
}
