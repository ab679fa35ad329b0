//! `ztwin-monbench`: throughput and memory benchmark of the MONWRITE reader.
//!
//! ```text
//! ztwin-monbench gen PATH --mb N   write a synthetic, deterministic MONWRITE file of about N MB
//! ztwin-monbench raw PATH          read the file in 1 MiB chunks (the baseline)
//! ztwin-monbench scan PATH         structural decode: Reader::next_record over every record
//! ztwin-monbench decode PATH       full decode: layout::RecordDecoder (per-layout plan) on every known record
//! ztwin-monbench decode-field PATH the same through layout::decode_field_ref, field by field
//! ztwin-monbench decode-owned PATH the same fields through layout::decode_field (owned values)
//! ztwin-monbench json PATH         dump::record_json of every record into a reused String
//! ```
//!
//! Each mode prints one JSON line:
//! `{"mode","bytes","seconds","mb_s","records","peak_rss_mb",...}`.
//! MB means 10^6 bytes everywhere (file size, throughput and peak RSS); peak RSS is
//! the process's VmHWM from `/proc/self/status`. `benches/run.py` drives the modes
//! side by side; see BENCHMARKS.md.
//!
//! The generated file models a 5-minute-interval LPAR with 8 logical CPUs, 100
//! users, 16 paging exposures and 120 devices: an initial configuration set, then
//! per interval MRSYTPRP/MRSYTSYP/MRSYTRSP/MRPRCPRP per CPU, MRSYTCUP (with a
//! repeating group), MRSYTRSG, MRSTORSG, MRSTOASP per exposure, MRUSEACT and
//! MRUSEINT per user and MRIODDEV per device, followed by an event set (logons,
//! logoffs, device vary on/off, SCMEASURE changes). Counters move by
//! pseudo-random deltas (xorshift, fixed seed) so no two intervals are alike.

use std::fs::File;
use std::hint::black_box;
use std::io::{BufWriter, Read};
use std::process::ExitCode;
use std::time::Instant;
use ztwin_monitor::layout::{
    self, decode_field, decode_field_ref, decode_group, group_entries, FieldType, RecordDecoder,
    RecordLayout, Value, ValueRef,
};
use ztwin_monitor::writer::{MonwriteWriter, RecordMut, RecordSet};
use ztwin_monitor::{dump, tod, Reader, SetKind};

const USAGE: &str =
    "usage: ztwin-monbench gen PATH --mb N | raw PATH | scan PATH | decode PATH | decode-field PATH | decode-owned PATH | json PATH";

const CPUS: usize = 8;
const USERS: usize = 100;
const EXPOSURES: usize = 16;
const DEVICES: usize = 120;
const INTERVAL_S: u64 = 300;

/// Peak resident set size in MB (10^6 bytes), from VmHWM; 0 if unavailable.
fn peak_rss_mb() -> f64 {
    let Ok(s) = std::fs::read_to_string("/proc/self/status") else {
        return 0.0;
    };
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |kb| kb * 1024.0 / 1e6)
}

fn report(mode: &str, bytes: u64, seconds: f64, records: u64, extra: &str) {
    let mb_s = if seconds > 0.0 {
        bytes as f64 / 1e6 / seconds
    } else {
        0.0
    };
    println!(
        "{{\"mode\":\"{mode}\",\"bytes\":{bytes},\"seconds\":{seconds:.6},\"mb_s\":{mb_s:.1},\"records\":{records},\"peak_rss_mb\":{:.1}{extra}}}",
        peak_rss_mb()
    );
}

// ------------------------------------------------------------------ generator

/// xorshift64*: small, fast, deterministic.
struct Rng(u64);

impl Rng {
    #[inline]
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    #[inline]
    fn below(&mut self, n: u64) -> u64 {
        ((self.next() >> 32) * n) >> 32
    }
}

/// One record type written per entity (CPU, user, device...) with counter state
/// kept per entity and field, so successive intervals carry growing counters.
struct Series {
    layout: &'static RecordLayout,
    state: Vec<Vec<u64>>,
}

impl Series {
    fn new(name: &str, entities: usize) -> Series {
        let layout = layout::by_name(name).unwrap_or_else(|| panic!("no layout {name}"));
        let state = (0..entities)
            .map(|e| {
                layout
                    .fields
                    .iter()
                    .enumerate()
                    .map(|(i, _)| (e as u64 + 1) * 1000 + i as u64)
                    .collect()
            })
            .collect();
        Series { layout, state }
    }
}

/// Entity identity used for key fields and character fields.
struct Ident<'a> {
    num: u64,
    name: &'a str,
}

/// Fill every field of `layout` in `rec`: counters grow, timestamps follow `tod`,
/// text carries the entity name, key fields carry the entity number.
fn fill(
    rec: &mut RecordMut<'_>,
    layout: &RecordLayout,
    state: &mut [u64],
    rng: &mut Rng,
    tod: u64,
    id: &Ident<'_>,
) {
    for (i, f) in layout.fields.iter().enumerate() {
        let n = f.name;
        if n.ends_with("_PFXCPUAD") {
            rec.set_u(f, id.num);
            continue;
        }
        if n.ends_with("_VMDCPUAD") {
            // A user's base virtual processor.
            rec.set_u(f, 0);
            continue;
        }
        if n.ends_with("_RDEVDEV") || n.ends_with("_CALRDEVDEV") {
            rec.set_u(f, 0x0200 + id.num);
            continue;
        }
        if n.ends_with("_RDEVSID") || n.ends_with("_CALRDEVSID") {
            rec.set_u(f, 0x0001_0000 + id.num);
            continue;
        }
        match f.ty {
            FieldType::U1 => {
                rec.set_u(f, rng.below(4));
            }
            FieldType::U2 | FieldType::S2 => {
                state[i] = state[i].wrapping_add(rng.below(64));
                rec.set_u(f, state[i]);
            }
            FieldType::U4 | FieldType::S4 | FieldType::U8 | FieldType::S8 => {
                // MRUSEINT: 150 high-frequency samples per interval, each
                // state counted in a few of them (a user's percentages stay
                // below 100).
                if n == "STOASP_CALSPOOL" {
                    // Exposures 0 and 1 hold spool space, the others page only.
                    let slots = if id.num < 2 { 100_000 } else { 0 };
                    rec.set_u(f, slots);
                    continue;
                }
                let step = match (layout.name, n) {
                    ("MRUSEINT", "USEINT_HFSTCT") => 150,
                    ("MRUSEINT", _) => rng.below(16),
                    _ => rng.below(1 << 16),
                };
                state[i] = state[i].wrapping_add(step);
                rec.set_u(f, state[i]);
            }
            FieldType::Dur => {
                // Up to 5 s of CPU per interval, in TOD units (a user up to
                // 0.1 s: the users' time stays below the processors').
                let most = if layout.name == "MRUSEACT" {
                    100_000
                } else {
                    5_000_000
                };
                state[i] = state[i].wrapping_add(rng.below(most) * tod::UNITS_PER_US);
                rec.set_u(f, state[i]);
            }
            FieldType::Tod => {
                // Fixed per entity (a logon time, an IPL time): a time that
                // moved would be a new session every interval.
                if state[i] < 1 << 40 {
                    state[i] = tod - rng.below(3_600_000_000) * tod::UNITS_PER_US;
                }
                rec.set_u(f, state[i]);
            }
            FieldType::Char(_) if n.ends_with("_HCPCPEID") => {
                rec.set_text(f, "5.4.0");
            }
            FieldType::Char(_) => {
                rec.set_text(f, id.name);
            }
            FieldType::Bits(w) => {
                let off = f.offset as usize;
                for b in &mut rec.bytes[off..off + w as usize] {
                    *b = rng.next() as u8;
                }
            }
            FieldType::VarText { .. } => {}
        }
    }
}

fn push_series(set: &mut RecordSet, s: &mut Series, rng: &mut Rng, tod: u64, names: &[String]) {
    for (e, state) in s.state.iter_mut().enumerate() {
        let t = tod + (e as u64 * 7) * tod::UNITS_PER_US;
        let mut rec = set.push_layout(s.layout, t);
        fill(
            &mut rec,
            s.layout,
            state,
            rng,
            t,
            &Ident {
                num: e as u64,
                name: &names[e],
            },
        );
    }
}

/// MRSYTCUP: fixed part plus one logical-CPU entry (40 bytes) per CPU.
fn push_sytcup(set: &mut RecordSet, rng: &mut Rng, tod: u64, dsp: &mut [u64; CPUS]) {
    let l = layout::by_name("MRSYTCUP").expect("MRSYTCUP");
    let g = l.group.as_ref().expect("SYTCUP group");
    let (base, elen) = (l.size as usize, g.entry_size as usize);
    let mut rec = set
        .push(l.domain, l.record, tod, base + CPUS * elen)
        .expect("SYTCUP fits");
    rec.set_u(l.f("SYTCUP_CALCPUOF"), base as u64)
        .set_u(l.f("SYTCUP_CALCPULN"), elen as u64)
        .set_u(l.f("SYTCUP_LCUPPNUM"), 3)
        .set_u(l.f("SYTCUP_LCUPCPCT"), CPUS as u64)
        .set_text(l.f("SYTCUP_LCUPNAME"), "LPAR03")
        .set_text(l.f("SYTCUP_LCPTYPE"), "IFL");
    for (c, d) in dsp.iter_mut().enumerate() {
        *d += rng.below(290_000_000) * tod::UNITS_PER_US;
        let o = base + c * elen;
        let mut e = RecordMut {
            bytes: &mut rec.bytes[o..o + elen],
        };
        for f in g.fields {
            if !f.ty.is_numeric() {
                e.set_text(f, "IFL");
                continue;
            }
            let v = match f.name {
                "SYTCUP_LCUCPUID" => c as u64,
                "SYTCUP_LCUCWGHT" => 300,
                "SYTCUP_LCUCACTM" => *d,
                "SYTCUP_LCUCLPTM" => *d / 20,
                _ => rng.below(256),
            };
            e.set_u(f, v);
        }
    }
}

fn push_text(set: &mut RecordSet, name: &str, tod: u64, text: &str) {
    let l = layout::by_name(name).expect("layout");
    let var = l
        .fields
        .iter()
        .find(|f| matches!(f.ty, FieldType::VarText { .. }))
        .expect("VarText field");
    let len = (var.offset as usize + text.len()).max(l.size as usize);
    let mut rec = set.push(l.domain, l.record, tod, len).expect("fits");
    for f in l.fields {
        match f.ty {
            FieldType::Tod => {
                rec.set_u(f, tod);
            }
            FieldType::VarText { .. } => {
                rec.set(f, &Value::Text(text.to_string()))
                    .expect("text fits");
            }
            _ => {}
        }
    }
}

fn gen(path: &str, mb: u64) -> Result<(), String> {
    let target = mb * 1_000_000;
    let t0 = Instant::now();
    let file = File::create(path).map_err(|e| format!("cannot create {path}: {e}"))?;
    let mut w = MonwriteWriter::new(BufWriter::with_capacity(1 << 20, file));
    let mut rng = Rng(0x5EED_2026_0000_0001);
    let err = |e: ztwin_monitor::WriteError| e.to_string();

    let cpus: Vec<String> = (0..CPUS).map(|c| format!("CPU{c:02}")).collect();
    let users: Vec<String> = (0..USERS)
        .map(|u| match u {
            0 => "TCPIP".into(),
            1 => "OPERATOR".into(),
            2 => "PERFSVM".into(),
            u => format!("LINUX{u:03}"),
        })
        .collect();
    let exps: Vec<String> = (0..EXPOSURES).map(|p| format!("PAG{p:03}")).collect();
    let devs: Vec<String> = (0..DEVICES).map(|d| format!("VOL{d:03}")).collect();
    let one = vec!["ZTWIN1".to_string()];

    let mut sytprp = Series::new("MRSYTPRP", CPUS);
    let mut sytsyp = Series::new("MRSYTSYP", CPUS);
    let mut sytrsp = Series::new("MRSYTRSP", CPUS);
    let mut prcprp = Series::new("MRPRCPRP", CPUS);
    let mut sytrsg = Series::new("MRSYTRSG", 1);
    let mut storsg = Series::new("MRSTORSG", 1);
    let mut stoasp = Series::new("MRSTOASP", EXPOSURES);
    let mut useact = Series::new("MRUSEACT", USERS);
    let mut useint = Series::new("MRUSEINT", USERS);
    let mut ioddev = Series::new("MRIODDEV", DEVICES);
    let mut dsp = [0u64; CPUS];

    // 2026-01-05 00:00:00 UTC.
    let start = tod::from_unix_us(tod::days_from_civil(2026, 1, 5) * 86_400_000_000);
    let mut set = RecordSet::new(SetKind::Sample);
    let mut ev = RecordSet::new(SetKind::Event);

    // Initial configuration: sample configuration ending with D1R11, then the
    // event configuration.
    {
        let t = start;
        for (name, n, names) in [
            ("MRMTRSYS", 1, &one),
            ("MRMTRPRP", CPUS, &cpus),
            ("MRMTRMEM", 1, &one),
            ("MRMTRSPR", 1, &one),
            ("MRMTRPAG", EXPOSURES, &exps),
            ("MRMTRDEV", DEVICES, &devs),
            ("MRMTRUSR", USERS, &users),
            ("MRMTRXSG", 1, &one),
        ] {
            push_series(&mut set, &mut Series::new(name, n), &mut rng, t, names);
        }
        push_text(&mut set, "MRMTRSCM", t, "MONITOR SAMPLE ENABLE ALL");
        w.write_sample_set(&set, t).map_err(err)?;
        ev.clear();
        push_series(&mut ev, &mut Series::new("MRMTREPR", 1), &mut rng, t, &one);
        push_text(&mut ev, "MRMTRECM", t, "MONITOR EVENT ENABLE USER ALL");
        w.write_event_set(&ev).map_err(err)?;
    }

    let mut uselon = Series::new("MRUSELON", USERS);
    let mut uselof = Series::new("MRUSELOF", USERS);
    let mut iodvon = Series::new("MRIODVON", DEVICES);
    let mut iodvof = Series::new("MRIODVOF", DEVICES);
    let mut iodmon = Series::new("MRIODMON", DEVICES);
    let mut iodmof = Series::new("MRIODMOF", DEVICES);
    let mut iodmdv = Series::new("MRIODMDV", DEVICES);

    let mut interval = 0u64;
    while w.bytes_written() < target {
        interval += 1;
        let t = start + interval * INTERVAL_S * 1_000_000 * tod::UNITS_PER_US;
        set.clear();
        push_series(&mut set, &mut sytprp, &mut rng, t, &cpus);
        push_series(&mut set, &mut sytsyp, &mut rng, t, &cpus);
        push_series(&mut set, &mut sytrsp, &mut rng, t, &cpus);
        push_sytcup(&mut set, &mut rng, t, &mut dsp);
        push_series(&mut set, &mut sytrsg, &mut rng, t, &one);
        push_series(&mut set, &mut storsg, &mut rng, t, &one);
        push_series(&mut set, &mut stoasp, &mut rng, t, &exps);
        push_series(&mut set, &mut useact, &mut rng, t, &users);
        push_series(&mut set, &mut useint, &mut rng, t, &users);
        push_series(&mut set, &mut prcprp, &mut rng, t, &cpus);
        push_series(&mut set, &mut ioddev, &mut rng, t, &devs);
        w.write_sample_set(&set, t + 1000 * tod::UNITS_PER_US)
            .map_err(err)?;

        // Events of the interval: a few users log off and on again, now and then
        // a device is varied or its measurement switched.
        ev.clear();
        let et = t + 60_000_000 * tod::UNITS_PER_US;
        for _ in 0..rng.below(12) {
            let u = rng.below(USERS as u64) as usize;
            let id = Ident {
                num: u as u64,
                name: &users[u],
            };
            let mut r = ev.push_layout(uselof.layout, et);
            fill(
                &mut r,
                uselof.layout,
                &mut uselof.state[u],
                &mut rng,
                et,
                &id,
            );
            let mut r = ev.push_layout(uselon.layout, et);
            fill(
                &mut r,
                uselon.layout,
                &mut uselon.state[u],
                &mut rng,
                et,
                &id,
            );
        }
        for _ in 0..rng.below(4) {
            let d = rng.below(DEVICES as u64) as usize;
            let id = Ident {
                num: d as u64,
                name: &devs[d],
            };
            for s in [
                &mut iodvof,
                &mut iodvon,
                &mut iodmof,
                &mut iodmon,
                &mut iodmdv,
            ] {
                if rng.below(2) == 0 {
                    let mut r = ev.push_layout(s.layout, et);
                    fill(&mut r, s.layout, &mut s.state[d], &mut rng, et, &id);
                }
            }
        }
        if !ev.is_empty() {
            w.write_event_set(&ev).map_err(err)?;
        }
    }
    let bytes = w.bytes_written();
    w.finish().map_err(err)?;
    report(
        "gen",
        bytes,
        t0.elapsed().as_secs_f64(),
        0,
        &format!(",\"intervals\":{interval}"),
    );
    Ok(())
}

// ------------------------------------------------------------------ readers

fn raw(path: &str) -> Result<(), String> {
    let t0 = Instant::now();
    let mut f = File::open(path).map_err(|e| format!("cannot open {path}: {e}"))?;
    let mut buf = vec![0u8; 1 << 20];
    let (mut bytes, mut sum) = (0u64, 0u64);
    loop {
        let n = f.read(&mut buf).map_err(|e| format!("read {path}: {e}"))?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        // Touch one byte per 4 KB block so the read cannot be elided.
        sum = buf[..n]
            .iter()
            .step_by(4096)
            .fold(sum, |a, &b| a.wrapping_add(b as u64));
    }
    black_box(sum);
    report("raw", bytes, t0.elapsed().as_secs_f64(), 0, "");
    Ok(())
}

fn open(path: &str) -> Result<Reader<std::io::BufReader<File>>, String> {
    Reader::open(path).map_err(|e| e.to_string())
}

fn fin(mode: &str, r: &Reader<std::io::BufReader<File>>, t0: Instant, extra: &str) {
    let s = &r.stats;
    report(
        mode,
        s.file_bytes,
        t0.elapsed().as_secs_f64(),
        s.records,
        &format!(
            ",\"damage\":{},\"unknown\":{}{extra}",
            s.damage_count, s.unknown
        ),
    );
}

fn scan(path: &str) -> Result<(), String> {
    let t0 = Instant::now();
    let mut r = open(path)?;
    let mut sum = 0u64;
    while let Some(rec) = r.next_record().map_err(|e| e.to_string())? {
        sum += rec.bytes.len() as u64;
    }
    black_box(sum);
    fin("scan", &r, t0, &format!(",\"record_bytes\":{sum}"));
    Ok(())
}

#[inline]
fn fold(acc: u64, v: &Option<Value>) -> u64 {
    match v {
        None => acc.wrapping_add(1),
        Some(Value::U(x)) | Some(Value::Tod(x)) | Some(Value::Dur(x)) => acc.wrapping_add(*x),
        Some(Value::I(x)) => acc.wrapping_add(*x as u64),
        Some(Value::Text(s)) => acc.wrapping_add(s.len() as u64),
        Some(Value::Bits(b)) => acc.wrapping_add(b.len() as u64),
    }
}

#[inline]
fn fold_ref(acc: u64, v: Option<ValueRef<'_>>) -> u64 {
    match v {
        None => acc.wrapping_add(1),
        Some(ValueRef::U(x)) | Some(ValueRef::Tod(x)) | Some(ValueRef::Dur(x)) => {
            acc.wrapping_add(x)
        }
        Some(ValueRef::I(x)) => acc.wrapping_add(x as u64),
        Some(ValueRef::Text(t)) => acc.wrapping_add(t.len() as u64),
        Some(ValueRef::Bits(b)) => acc.wrapping_add(b.len() as u64),
    }
}

/// Full decode with the crate's fastest API: `layout::RecordDecoder` runs the
/// precompiled plan of the layout the reader found (`RecordRef::layout`) and
/// leaves one u64 slot per field, the repeating group's entries included; the
/// slots are summed. The checksum equals `decode-field`'s: a slot holds the
/// value, a text's length or a bit string's width, and 0 for an absent field,
/// which `absent()` counts (`fold_ref` adds 1 for it).
fn decode(path: &str) -> Result<(), String> {
    let mut dec = RecordDecoder::new();
    decode_run("decode", path, true, |bytes, l, sum| {
        let d = dec.decode(bytes, l);
        *sum = d.values().iter().fold(*sum, |a, &v| a.wrapping_add(v));
        *sum = sum.wrapping_add(d.absent() as u64);
        let mut fields = d.values().len() as u64;
        if d.entry_count() > 0 {
            *sum = d
                .group_values()
                .iter()
                .fold(*sum, |a, &v| a.wrapping_add(v));
            *sum = sum.wrapping_add(d.group_absent() as u64);
            fields += d.group_values().len() as u64;
        }
        fields
    })
}

/// Full decode field by field through the zero-allocation API (what `decode`
/// measured before the plan decoder): `layout::decode_field_ref` on every field,
/// and `layout::group_entries` + `decode_field_ref` for repeating groups. Text
/// stays EBCDIC bytes (a caller converts it with `Ebcdic::decode_into` when
/// needed).
fn decode_field_mode(path: &str) -> Result<(), String> {
    decode_run("decode-field", path, true, |bytes, l, sum| {
        for f in l.fields {
            *sum = fold_ref(*sum, decode_field_ref(bytes, f));
        }
        let mut fields = l.fields.len() as u64;
        if let Some(g) = &l.group {
            for entry in group_entries(bytes, l) {
                for f in g.fields {
                    *sum = fold_ref(*sum, decode_field_ref(entry, f));
                }
                fields += g.fields.len() as u64;
            }
        }
        fields
    })
}

/// Full decode into owned values: `layout::decode_field` (a `String` per
/// character field, a `Vec` per bit string) and `layout::decode_group`, the API
/// that hands values over to Python. The same fields as `decode`.
fn decode_owned(path: &str) -> Result<(), String> {
    decode_run("decode-owned", path, false, |bytes, l, sum| {
        for f in l.fields {
            *sum = fold(*sum, &decode_field(bytes, f));
        }
        let mut fields = l.fields.len() as u64;
        if l.group.is_some() {
            for entry in decode_group(bytes, l) {
                for (_, v) in &entry {
                    *sum = fold(*sum, v);
                }
                fields += entry.len() as u64;
            }
        }
        fields
    })
}

/// The full-decode modes' run: `decode_record` gets every record the reader
/// found a layout for, folds its values into the checksum and returns how many
/// fields it decoded; the mode's line has the fields (and the checksum).
fn decode_run(
    mode: &str,
    path: &str,
    checksum: bool,
    mut decode_record: impl FnMut(&[u8], &'static RecordLayout, &mut u64) -> u64,
) -> Result<(), String> {
    let t0 = Instant::now();
    let mut r = open(path)?;
    let (mut sum, mut fields) = (0u64, 0u64);
    while let Some(rec) = r.next_record().map_err(|e| e.to_string())? {
        if let Some(l) = rec.layout {
            fields += decode_record(rec.bytes, l, &mut sum);
        }
    }
    black_box(sum);
    let extra = if checksum {
        format!(",\"fields\":{fields},\"checksum\":{sum}")
    } else {
        format!(",\"fields\":{fields}")
    };
    fin(mode, &r, t0, &extra);
    Ok(())
}

fn json(path: &str) -> Result<(), String> {
    let t0 = Instant::now();
    let mut r = open(path)?;
    let mut out = String::with_capacity(64 * 1024);
    let mut json_bytes = 0u64;
    while let Some(rec) = r.next_record().map_err(|e| e.to_string())? {
        out.clear();
        dump::record_json(&mut out, &rec);
        json_bytes += out.len() as u64 + 1; // + newline
    }
    black_box(&out);
    fin("json", &r, t0, &format!(",\"json_bytes\":{json_bytes}"));
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let res = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["gen", path, "--mb", n] | ["gen", "--mb", n, path] => match n.parse::<u64>() {
            Ok(mb) if mb > 0 => gen(path, mb),
            _ => Err(format!(
                "--mb wants a positive whole number of MB, not {n:?}"
            )),
        },
        ["raw", path] => raw(path),
        ["scan", path] => scan(path),
        ["decode", path] => decode(path),
        ["decode-field", path] => decode_field_mode(path),
        ["json", path] => json(path),
        ["decode-owned", path] => decode_owned(path),
        _ => Err(USAGE.to_string()),
    };
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ztwin-monbench: {e}");
            ExitCode::from(2)
        }
    }
}
