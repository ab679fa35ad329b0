//! Hand-built APPLDATA records, one per kernel struct, checked field by field.
//!
//! Each struct is written here as the kernel declares it, member after member
//! with its C width (`__attribute__((packed))`, big-endian as on s390), and
//! packed independently of the tables: a table offset that disagrees with the
//! kernel's declaration order fails.

use super::*;
use crate::layout::{by_name_release, Release, ValueRef};

/// Members in declaration order: (name, bytes).
const MEM_STRUCT: &[(&str, usize)] = &[
    ("timestamp", 8),
    ("sync_count_1", 4),
    ("sync_count_2", 4),
    ("pgpgin", 8),
    ("pgpgout", 8),
    ("pswpin", 8),
    ("pswpout", 8),
    ("sharedram", 8),
    ("totalram", 8),
    ("freeram", 8),
    ("totalhigh", 8),
    ("freehigh", 8),
    ("bufferram", 8),
    ("cached", 8),
    ("totalswap", 8),
    ("freeswap", 8),
    ("pgalloc", 8),
    ("pgfault", 8),
    ("pgmajfault", 8),
];

const OS_STRUCT: &[(&str, usize)] = &[
    ("timestamp", 8),
    ("sync_count_1", 4),
    ("sync_count_2", 4),
    ("nr_cpus", 4),
    ("per_cpu_size", 4),
    ("cpu_offset", 4),
    ("nr_running", 4),
    ("nr_threads", 4),
    ("avenrun_0", 4),
    ("avenrun_1", 4),
    ("avenrun_2", 4),
    ("nr_iowait", 4),
];

const OS_CPU_STRUCT: &[(&str, usize)] = &[
    ("per_cpu_user", 4),
    ("per_cpu_nice", 4),
    ("per_cpu_system", 4),
    ("per_cpu_idle", 4),
    ("per_cpu_irq", 4),
    ("per_cpu_softirq", 4),
    ("per_cpu_iowait", 4),
    ("per_cpu_steal", 4),
    ("cpu_id", 4),
];

const NET_STRUCT: &[(&str, usize)] = &[
    ("timestamp", 8),
    ("sync_count_1", 4),
    ("sync_count_2", 4),
    ("nr_interfaces", 4),
    ("padding", 4),
    ("rx_packets", 8),
    ("tx_packets", 8),
    ("rx_bytes", 8),
    ("tx_bytes", 8),
    ("rx_errors", 8),
    ("tx_errors", 8),
    ("rx_dropped", 8),
    ("tx_dropped", 8),
    ("collisions", 8),
];

/// A distinct value per member: its index times a large odd number, cut to
/// the member's width (so a field read at a wrong offset or width differs).
fn value(i: usize, width: usize, salt: u64) -> u64 {
    let v = (i as u64 + 1).wrapping_mul(0x0123_4567_89AB_CDEF) ^ salt;
    if width == 8 {
        v
    } else {
        v & ((1u64 << (8 * width)) - 1)
    }
}

/// Pack members big-endian; `overrides` replaces chosen values.
fn pack(members: &[(&str, usize)], salt: u64, overrides: &[(&str, u64)]) -> (Vec<u8>, Vec<u64>) {
    let mut out = Vec::new();
    let mut vals = Vec::new();
    for (i, &(name, w)) in members.iter().enumerate() {
        let v = overrides
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(value(i, w, salt), |&(_, v)| v);
        out.extend_from_slice(&v.to_be_bytes()[8 - w..]);
        vals.push(v);
    }
    (out, vals)
}

/// A whole MRAPLSDT record: 20-byte header, fixed part, data.
fn record(userid: &str, product: ProductId, data: &[u8]) -> Vec<u8> {
    let l = by_name_release("MRAPLSDT", Release(5, 4)).unwrap();
    let len = FIXED_PART + data.len();
    let mut rec = vec![0u8; len];
    crate::header::Header {
        len: len as u16,
        domain: 10,
        record: 2,
        tod: 0xC5_0000_0000_0000,
    }
    .write(&mut rec);
    fill_fixed(&mut rec, l, userid, &product).copy_from_slice(data);
    rec
}

fn num(v: Option<ValueRef<'_>>) -> Option<u64> {
    match v? {
        ValueRef::U(x) | ValueRef::Tod(x) | ValueRef::Dur(x) => Some(x),
        other => panic!("not a number: {other:?}"),
    }
}

fn layout() -> &'static RecordLayout {
    by_name_release("MRAPLSDT", Release(5, 4)).unwrap()
}

/// Every member of `members` decodes from `a` to the value packed.
fn check_struct(a: &Appldata<'_>, members: &[(&str, usize)], vals: &[u64]) {
    let fields: Vec<_> = a.fields().collect();
    assert_eq!(fields.len(), members.len(), "one field per struct member");
    for ((name, width), (&(f, v), want)) in members.iter().zip(fields.iter().zip(vals)) {
        assert_eq!(f.name, *name, "declaration order");
        assert_eq!(f.ty.width(), *width, "{name}: width");
        assert_eq!(f.src, Confidence::Linux, "{name}: source tag");
        assert_eq!(num(v), Some(*want), "{name}");
    }
}

#[test]
fn mem_record_field_by_field() {
    let (data, vals) = pack(MEM_STRUCT, 0x55, &[]);
    assert_eq!(data.len(), 144, "sizeof(struct appldata_mem_data)");
    let rec = record("LINUX01", ProductId::linux(Kind::Mem, 0), &data);
    let a = Appldata::parse(&rec, layout()).unwrap();
    assert_eq!(a.kind, Some(Kind::Mem));
    assert_eq!(a.product.text(), "LINUXKRNL 01 2601 00");
    assert_eq!(a.check(), None);
    check_struct(&a, MEM_STRUCT, &vals);
}

#[test]
fn net_sum_record_field_by_field() {
    let (data, vals) = pack(NET_STRUCT, 0x77, &[]);
    assert_eq!(data.len(), 96, "sizeof(struct appldata_net_sum_data)");
    let rec = record("LINUX01", ProductId::linux(Kind::NetSum, 0), &data);
    let a = Appldata::parse(&rec, layout()).unwrap();
    assert_eq!(a.kind, Some(Kind::NetSum));
    assert_eq!(a.check(), None);
    check_struct(&a, NET_STRUCT, &vals);
}

#[test]
fn os_record_field_by_field_with_cpus() {
    for (cpu_size, mod_lvl) in [(OS_CPU_SIZE_01, 1), (OS_CPU_SIZE_00, 0)] {
        let ncpu = 3u64;
        let (mut data, vals) = pack(
            OS_STRUCT,
            0x99,
            &[
                ("nr_cpus", ncpu),
                ("per_cpu_size", cpu_size as u64),
                ("cpu_offset", 52),
            ],
        );
        assert_eq!(data.len(), 52, "offsetof(struct appldata_os_data, os_cpu)");
        let members = &OS_CPU_STRUCT[..cpu_size / 4];
        let mut cpu_vals = Vec::new();
        for c in 0..ncpu {
            let (e, v) = pack(members, 0x1000 + c, &[]);
            data.extend_from_slice(&e);
            cpu_vals.push(v);
        }
        let rec = record("LINUX02", ProductId::linux(Kind::Os, mod_lvl), &data);
        let a = Appldata::parse(&rec, layout()).unwrap();
        assert_eq!(a.kind, Some(Kind::Os));
        assert_eq!(a.product.mod_level(), Some(mod_lvl));
        assert_eq!(a.check(), None);
        check_struct(&a, OS_STRUCT, &vals);
        let entries: Vec<_> = a.cpu_entries().collect();
        assert_eq!(entries.len(), ncpu as usize);
        for (e, want) in entries.iter().zip(&cpu_vals) {
            for (i, f) in OS_CPU.iter().enumerate() {
                let got = num(decode_field_ref(e, f));
                // Level 00 entries end before steal and cpu_id: absent, not zero.
                assert_eq!(
                    got,
                    want.get(i).copied(),
                    "{} (entry size {cpu_size})",
                    f.name
                );
            }
        }
    }
}

#[test]
fn fixed_part_round_trip() {
    let (data, _) = pack(MEM_STRUCT, 1, &[]);
    let rec = record("LNXGUEST", ProductId::linux(Kind::Mem, 0), &data);
    let l = layout();
    let get = |n: &str| crate::layout::decode_field(&rec, l.f(n)).unwrap();
    assert_eq!(get("APLSDT_USERID"), crate::Value::Text("LNXGUEST".into()));
    assert_eq!(get("APLSDT_CALDATOF"), crate::Value::U(52));
    assert_eq!(rec.len(), 52 + 144);
    // The product ID in EBCDIC: "LINUXKRNL", X'01', "2601", "00".
    assert_eq!(
        &rec[32..48],
        &[
            0xD3, 0xC9, 0xD5, 0xE4, 0xE7, 0xD2, 0xD9, 0xD5, 0xD3, 0x01, 0xF2, 0xF6, 0xF0, 0xF1,
            0xF0, 0xF0
        ]
    );
}

#[test]
fn wrong_lengths_are_problems_not_panics() {
    let (data, _) = pack(MEM_STRUCT, 3, &[]);
    // Cut short: the fields that fit decode, the rest are absent.
    let rec = record("LINUX01", ProductId::linux(Kind::Mem, 0), &data[..100]);
    let a = Appldata::parse(&rec, layout()).unwrap();
    assert_eq!(
        a.check(),
        Some(Problem::Length {
            kind: Kind::Mem,
            got: 100,
            expected: 144
        })
    );
    let absent = a.fields().filter(|(_, v)| v.is_none()).count();
    assert_eq!(absent, 6, "fields from offset 96 on");
    // Too long.
    let mut long = data.clone();
    long.extend_from_slice(&[0; 8]);
    let rec = record("LINUX01", ProductId::linux(Kind::Mem, 0), &long);
    assert!(matches!(
        Appldata::parse(&rec, layout()).unwrap().check(),
        Some(Problem::Length { got: 152, .. })
    ));
    // CALDATOF past the record.
    let mut rec = record("LINUX01", ProductId::linux(Kind::Mem, 0), &data);
    rec[28..30].copy_from_slice(&400u16.to_be_bytes());
    assert_eq!(
        Appldata::parse(&rec, layout()).unwrap_err(),
        Problem::DataOffset {
            caldatof: 400,
            len: 196
        }
    );
    // Shorter than the fixed part.
    assert_eq!(
        Appldata::parse(&rec[..40], layout()).unwrap_err(),
        Problem::ShortRecord { len: 40 }
    );
    // OS data claiming more CPUs than it holds.
    let (mut os, _) = pack(
        OS_STRUCT,
        5,
        &[("nr_cpus", 1000), ("per_cpu_size", 36), ("cpu_offset", 52)],
    );
    os.extend_from_slice(&[0; 36]);
    let rec = record("LINUX01", ProductId::linux(Kind::Os, 1), &os);
    let a = Appldata::parse(&rec, layout()).unwrap();
    assert!(matches!(
        a.check(),
        Some(Problem::CpuEntries { nr_cpus: 1000, .. })
    ));
    assert_eq!(a.cpu_entries().count(), 1);
}

#[test]
fn other_products_are_not_decoded() {
    let mut p = ProductId::linux(Kind::Mem, 0);
    p.bytes[0] = 0xC1; // "A..."
    let rec = record("APPL", p, &[1, 2, 3]);
    let a = Appldata::parse(&rec, layout()).unwrap();
    assert_eq!(a.kind, None);
    assert_eq!(a.check(), None);
    assert_eq!(a.fields().count(), 0);
    assert_eq!(a.data, &[1, 2, 3]);
    // A Linux record number the kernel does not define (4 was appldata_proc).
    let mut p = ProductId::linux(Kind::Mem, 0);
    p.bytes[9] = 4;
    assert_eq!(p.kind(), None);
    assert!(p.is_linux());
}

#[test]
fn sync_counts() {
    let (data, _) = pack(MEM_STRUCT, 0, &[("sync_count_1", 7), ("sync_count_2", 7)]);
    let rec = record("L", ProductId::linux(Kind::Mem, 0), &data);
    assert!(Appldata::parse(&rec, layout()).unwrap().consistent());
    let (data, _) = pack(MEM_STRUCT, 0, &[("sync_count_1", 8), ("sync_count_2", 7)]);
    let rec = record("L", ProductId::linux(Kind::Mem, 0), &data);
    assert!(!Appldata::parse(&rec, layout()).unwrap().consistent());
}
