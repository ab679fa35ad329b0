//! Seed corpus for the fuzz targets, written at run time (the corpus directory
//! is not committed): `cargo run --example gen_corpus [DIR]` (default: the
//! `corpus` directory beside this crate's Cargo.toml).
//!
//! * `DIR/reader/`: small valid MONWRITE files made with `ztwin_monitor::writer`
//!   (configuration, two sample intervals with one record of every sample layout,
//!   event sets with one record of every event layout; a multi-entry group; a
//!   copy cut inside a block; a hand-made group whose two entries share one DCSS
//!   page written once);
//! * `DIR/control/`: the control records (first block of each group) of those files;
//! * `DIR/record/` and `DIR/decode_record/`: one record of every type and
//!   size (every layout version), as the reader delivers them;
//! * `DIR/release/`: the reader files with the contiguous data layout too, each
//!   behind a byte that picks the release (0: detect);
//! * `DIR/layout_pack/`: layout packs in TOML and JSON, valid and not.

use std::path::{Path, PathBuf};
use ztwin_monitor::control::{ControlEntry, ControlRecord, IPFLAGS1_RMDATA, IPTYPE_MSG};
use ztwin_monitor::layout::{FieldType, RecordKind, RecordLayout, Value, LAYOUTS};
use ztwin_monitor::writer::{DataLayout, Entry, MonwriteWriter, RecordSet};
use ztwin_monitor::{tod, Header, Reader, SetKind, FRAME};

fn push(set: &mut RecordSet, l: &RecordLayout, t: u64, seed: u64) {
    if let Some(g) = &l.group {
        // Two repeating-group entries after the fixed part.
        let (base, elen) = (l.size as usize, g.entry_size as usize);
        let mut r = set
            .push(l.domain, l.record, t, base + 2 * elen)
            .expect("fits");
        r.set_u(l.f(g.offset_field), base as u64)
            .set_u(l.f(g.len_field), elen as u64);
        for i in 0..2 {
            let o = base + i * elen;
            let mut e = ztwin_monitor::writer::RecordMut {
                bytes: &mut r.bytes[o..o + elen],
            };
            for (k, f) in g.fields.iter().enumerate() {
                if f.ty.is_numeric() {
                    e.set_u(f, seed + i as u64 * 31 + k as u64);
                } else {
                    e.set_text(f, "IFL");
                }
            }
        }
        return;
    }
    let var = l
        .fields
        .iter()
        .find(|f| matches!(f.ty, FieldType::VarText { .. }));
    let text = "MONITOR SAMPLE ENABLE ALL";
    let len = var.map_or(l.size as usize, |f| {
        (f.offset as usize + text.len()).max(l.size as usize)
    });
    let mut r = set.push(l.domain, l.record, t, len).expect("fits");
    for (k, f) in l.fields.iter().enumerate() {
        let v = seed.wrapping_mul(2654435761).wrapping_add(k as u64 * 977);
        match f.ty {
            FieldType::Char(_) => {
                r.set_text(f, "LINUX001");
            }
            FieldType::VarText { .. } => {
                r.set(f, &Value::Text(text.into())).expect("text fits");
            }
            FieldType::Bits(n) => {
                let at = f.offset as usize;
                r.bytes[at..at + n as usize].fill(v as u8 | 0x80);
            }
            FieldType::Tod => {
                r.set_u(f, t);
            }
            _ => {
                r.set_u(f, v);
            }
        }
    }
}

fn is_control(l: &RecordLayout) -> bool {
    l.kind == RecordKind::Control
}

/// Configuration, two intervals and two event sets, one record of every layout,
/// the data after each control record in `layout`.
fn basic(layout: DataLayout) -> Vec<u8> {
    let t0 = tod::from_unix_us(tod::days_from_civil(2026, 1, 5) * 86_400_000_000);
    let mut w = MonwriteWriter::new(Vec::new());
    w.set_data_layout(layout);
    let mut cfg = RecordSet::new(SetKind::Sample);
    let mut ecfg = RecordSet::new(SetKind::Event);
    for l in LAYOUTS.iter().filter(|l| l.kind == RecordKind::Config) {
        if l.name == "MRMTREPR" {
            push(&mut ecfg, l, t0, 1);
        } else {
            push(&mut cfg, l, t0, 2);
        }
    }
    w.write_sample_set(&cfg, t0).expect("write");
    w.write_event_set(&ecfg).expect("write");
    for i in 1..=2u64 {
        let t = t0 + i * 300 * 1_000_000 * tod::UNITS_PER_US;
        let mut s = RecordSet::new(SetKind::Sample);
        let mut e = RecordSet::new(SetKind::Event);
        for l in LAYOUTS.iter().filter(|l| !is_control(l)) {
            match l.kind {
                RecordKind::Sample => push(&mut s, l, t, i * 10),
                RecordKind::Event => push(&mut e, l, t, i * 20),
                _ => {}
            }
        }
        w.write_sample_set(&s, t + 4096).expect("write");
        w.write_event_set(&e).expect("write");
    }
    w.finish().expect("in memory")
}

/// One group with three entries (sample, event, sample).
fn multi(layout: DataLayout) -> Vec<u8> {
    let t = tod::from_unix_us(0);
    let mut a = RecordSet::new(SetKind::Sample);
    let mut b = RecordSet::new(SetKind::Event);
    let mut c = RecordSet::new(SetKind::Sample);
    for (i, l) in LAYOUTS.iter().filter(|l| !is_control(l)).enumerate() {
        match i % 3 {
            0 => push(&mut a, l, t, i as u64),
            1 => push(&mut b, l, t, i as u64),
            _ => push(&mut c, l, t, i as u64),
        }
    }
    let mut w = MonwriteWriter::new(Vec::new());
    w.set_data_layout(layout);
    w.write_group(&[
        Entry {
            set: &a,
            interval_end: Some(t),
        },
        Entry {
            set: &b,
            interval_end: None,
        },
        Entry {
            set: &c,
            interval_end: Some(t),
        },
    ])
    .expect("write");
    w.finish().expect("in memory")
}

/// A group whose two entries share one DCSS page, written once (spec 4.4 step 4),
/// followed by a second, normal group.
fn shared() -> Vec<u8> {
    let base = 0x0A00_0000u32;
    let page = base + 5 * FRAME as u32;
    let ctl = ControlRecord {
        path_id: 1,
        flags1: IPFLAGS1_RMDATA,
        iptype: IPTYPE_MSG,
        msg_id: 1,
        trgcls: 0xE200_0000,
        mca_start: base,
        mca_end: base + 23,
        entries: vec![
            ControlEntry {
                kind: SetKind::Sample,
                domains: 0x4000,
                start: page,
                end: page + 59,
            },
            ControlEntry {
                kind: SetKind::Event,
                domains: 0x0800,
                start: page + 60,
                end: page + 119,
            },
        ],
    };
    let mut out = vec![0u8; 2 * FRAME];
    ctl.encode((&mut out[..FRAME]).try_into().expect("block"));
    let data = &mut out[FRAME..];
    let t = tod::from_unix_us(1_000_000);
    Header {
        len: 40,
        domain: 0,
        record: 3,
        tod: t,
    }
    .write(&mut data[0..]);
    Header {
        len: 20,
        domain: 1,
        record: 11,
        tod: t,
    }
    .write(&mut data[40..]);
    Header {
        len: 60,
        domain: 4,
        record: 2,
        tod: t,
    }
    .write(&mut data[60..]);
    out.extend_from_slice(&multi(DataLayout::Frames));
    out
}

/// Layout packs: valid ones and a few with one mistake each.
const PACKS: &[(&str, &str)] = &[
    ("ok-field.toml", "[[record]]\nname = \"MRIODDEV\"\nrelease = \"7.3\"\nsize = 300\n[[record.field]]\nname = \"IODDEV_NEWCTR\"\noffset = 268\ntype = \"U4\"\nconfidence = \"IBM\"\n"),
    ("ok-group.toml", "[[record]]\nname = \"MRSYTCUP\"\n[record.group]\nname = \"SYTCUP_CPUDATA\"\noffset_field = \"SYTCUP_CALCPUOF\"\nlen_field = \"SYTCUP_CALCPULN\"\nentry_size = 48\n[[record.group.field]]\nname = \"SYTCUP_LCUCPUID\"\noffset = 0\ntype = \"U2\"\n"),
    ("ok-new.json", "{\"record\": [{\"name\": \"MRSCLXYZ\", \"domain\": 2, \"record\": 60, \"kind\": \"event\", \"size\": 40, \"field\": [{\"name\": \"SCLXYZ_TEXT\", \"offset\": 24, \"type\": \"VARTEXT(20)\"}, {\"name\": \"SCLXYZ_LEN\", \"offset\": 20, \"type\": \"U4\"}]}]}"),
    ("ok-remove.toml", "[[record]]\nname = \"MRMTRPAG\"\nreplace = false\nremove = [\"MTRPAG_RDEVDEV\"]\nseen = [\"7.4\"]\n"),
    ("bad-overlap.toml", "[[record]]\nname = \"MRIODDEV\"\n[[record.field]]\nname = \"IODDEV_X\"\noffset = 53\ntype = \"U2\"\n"),
    ("bad-type.json", "{\"record\": [{\"name\": \"MRIODDEV\", \"field\": [{\"name\": \"IODDEV_X\", \"offset\": 280, \"type\": \"CHAR(0)\"}]}]}"),
];

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(dir.join(name), bytes)
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", dir.join(name).display()));
}

/// One MRAPLSDT per kernel module (OS with two CPUs), and one of another
/// product, for the `appldata` target.
fn appldata_seeds(dir: &Path) {
    use ztwin_monitor::appldata::{fill_fixed, put, Kind, ProductId, OS, OS_CPU_SIZE_01};
    std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    let l = ztwin_monitor::layout::by_name_release("MRAPLSDT", ztwin_monitor::Release(5, 4)).expect("layout");
    for kind in Kind::ALL {
        let n = kind.size() + if kind == Kind::Os { 2 * OS_CPU_SIZE_01 } else { 0 };
        let len = 52 + n;
        let mut rec = vec![0u8; len];
        ztwin_monitor::Header { len: len as u16, domain: 10, record: 2, tod: 0xC000_0000_0000_0000 }.write(&mut rec);
        let d = fill_fixed(&mut rec, l, "LINUX01", &ProductId::linux(kind, kind.mod_level()));
        for (i, f) in kind.fields().iter().enumerate() {
            put(d, f, i as u64 + 1);
        }
        if kind == Kind::Os {
            let field = |n: &str| OS.iter().find(|f| f.name == n).expect("field");
            put(d, field("nr_cpus"), 2);
            put(d, field("per_cpu_size"), OS_CPU_SIZE_01 as u64);
            put(d, field("cpu_offset"), 52);
        }
        write(dir, &format!("{}.rec", kind.name()), &rec);
    }
    let mut other = vec![0u8; 60];
    ztwin_monitor::Header { len: 60, domain: 10, record: 2, tod: 0 }.write(&mut other);
    let mut p = ProductId::linux(Kind::Mem, 0);
    p.bytes[0] = 0xC1;
    fill_fixed(&mut other, l, "APPL", &p);
    write(dir, "other.rec", &other);
}

fn main() {
    let root: PathBuf = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus"));
    let (rd, cd, recd, decd, reld, packd) = (
        root.join("reader"),
        root.join("control"),
        root.join("record"),
        root.join("decode_record"),
        root.join("release"),
        root.join("layout_pack"),
    );
    for d in [&rd, &cd, &recd, &decd, &reld, &packd] {
        std::fs::create_dir_all(d).unwrap_or_else(|e| panic!("cannot create {}: {e}", d.display()));
    }
    for (name, text) in PACKS {
        write(&packd, name, text.as_bytes());
    }
    appldata_seeds(&root.join("appldata"));
    let frames = basic(DataLayout::Frames);
    let cut = frames[..frames.len() - FRAME - 1000].to_vec();
    let files = [
        ("seed-basic.mon", frames),
        ("seed-multi.mon", multi(DataLayout::Frames)),
        ("seed-shared.mon", shared()),
        ("seed-cut.mon", cut),
        ("seed-basic-contiguous.mon", basic(DataLayout::Contiguous)),
        ("seed-multi-contiguous.mon", multi(DataLayout::Contiguous)),
    ];
    let (mut ncontrol, mut nrecord) = (0, 0);
    let mut seen = std::collections::BTreeSet::new();
    for (i, (name, bytes)) in files.iter().enumerate() {
        write(&rd, name, bytes);
        let mut with_release = vec![(i % 12) as u8];
        with_release.extend_from_slice(bytes);
        write(&reld, name, &with_release);
        let mut r = Reader::new(std::io::Cursor::new(&bytes[..])).expect("seed is a MONWRITE file");
        while let Some(rec) = r.next_record().expect("seed reads") {
            // One seed per record and size: each layout version (e.g. MRSTORSG
            // at 6.3 with its aging-list block) gets its own.
            let key = (rec.header.domain, rec.header.record, rec.bytes.len());
            if seen.insert(key) {
                let name = format!("d{}r{}-{}.rec", key.0, key.1, key.2);
                write(&recd, &name, rec.bytes);
                write(&decd, &name, rec.bytes);
                nrecord += 1;
            }
        }
        let s = &r.stats;
        println!(
            "  {name}: {} bytes, {} groups, {} records, {} damaged spans",
            bytes.len(),
            s.groups,
            s.records,
            s.damage_count
        );
        if *name != "seed-cut.mon" {
            assert_eq!(
                s.damage_count, 0,
                "{name} should read without damage: {:?}",
                s.damage
            );
        }
        for (i, blk) in bytes.chunks_exact(FRAME).enumerate() {
            if ControlRecord::looks_valid(blk.try_into().expect("block")) {
                write(
                    &cd,
                    &format!("{}-{i}.ctl", name.trim_end_matches(".mon")),
                    blk,
                );
                ncontrol += 1;
            }
        }
    }
    // MRSTOASI (a VDISK's address space, D3R14): written only by runs with
    // VDISKs, so no seed file above holds one.
    let mut asi = vec![0u8; 92];
    Header {
        len: 92,
        domain: 3,
        record: 14,
        tod: tod::from_unix_us(1_000_000),
    }
    .write(&mut asi[..]);
    asi[20..28].copy_from_slice(&[0xE2, 0xE8, 0xE2, 0xE3, 0xC5, 0xD4, 0x40, 0x40]); // SYSTEM
    asi[64..68].copy_from_slice(&4_194_296u32.to_be_bytes());
    for d in [&recd, &decd] {
        write(d, "d3r14.rec", &asi);
    }
    nrecord += 1;
    println!(
        "seed corpus in {}: {} reader files, {ncontrol} control blocks, {nrecord} records",
        root.display(),
        files.len()
    );
}
