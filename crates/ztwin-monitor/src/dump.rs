//! Rendering decoded records: JSON Lines (`ztwin dump --json`) and one-line text.
//!
//! JSON object per record: `offset`, `domain`, `record`, `name`, `tod` (ISO 8601
//! UTC with microseconds), `length`, `kind` (sample/event) and `fields` keyed by
//! IBM field name. Field values: integers as numbers (durations and counters in
//! their raw units), TOD timestamps as ISO text, character fields as decoded
//! text, bit strings as hex text, absent fields (record shorter than the layout)
//! as `null`. Repeating groups become a list of objects under the group name.

use crate::ebcdic::{Ebcdic, E2A};
use crate::layout::{
    decode_field_ref, group_entries, layout_index, FieldDef, RecordLayout, Value, ValueRef, LAYOUTS,
};
use crate::reader::{RecordRef, Stats};
use crate::tod;
use std::fmt::Write;
use std::sync::OnceLock;

/// Append `s` as a JSON string literal.
pub fn json_str(out: &mut String, s: &str) {
    // Fast path: nothing to escape. 0xC2 leads the UTF-8 of U+0080..U+00BF,
    // among which U+0080..U+009F are escaped.
    if !s
        .bytes()
        .any(|b| b < 0x20 || b == b'"' || b == b'\\' || b == 0x7F || b == 0xC2)
    {
        out.reserve(s.len() + 2);
        out.push('"');
        out.push_str(s);
        out.push('"');
        return;
    }
    out.push('"');
    for c in s.chars() {
        json_char(out, c);
    }
    out.push('"');
}

/// Append one character of a JSON string literal, escaped if needed.
#[inline]
fn json_char(out: &mut String, c: char) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x20 || (0x7F..0xA0).contains(&(c as u32)) => {
            let x = c as u32 as usize;
            out.push_str("\\u00");
            out.push(HEX_LOWER[x >> 4] as char);
            out.push(HEX_LOWER[x & 0xF] as char);
        }
        c => out.push(c),
    }
}

/// Append EBCDIC text as a JSON string literal (the same text as decoding it
/// and calling [`json_str`]).
pub fn json_ebcdic(out: &mut String, t: Ebcdic<'_>) {
    out.reserve(t.len() + 2);
    out.push('"');
    for &b in t.bytes() {
        let c = E2A[b as usize];
        if (0x20..0x7F).contains(&c) && c != b'"' && c != b'\\' {
            out.push(c as char);
        } else {
            json_char(out, c as char);
        }
    }
    out.push('"');
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";
const HEX_LOWER: &[u8; 16] = b"0123456789abcdef";

fn hex(out: &mut String, b: &[u8]) {
    out.reserve(2 * b.len());
    for &x in b {
        out.push(HEX[(x >> 4) as usize] as char);
        out.push(HEX[(x & 0xF) as usize] as char);
    }
}

/// "0000" to "9999", four ASCII digits each.
static QUAD_BYTES: [u8; 40_000] = {
    let mut t = [0u8; 40_000];
    let mut i = 0;
    while i < 10_000 {
        t[4 * i] = b'0' + (i / 1000) as u8;
        t[4 * i + 1] = b'0' + (i / 100 % 10) as u8;
        t[4 * i + 2] = b'0' + (i / 10 % 10) as u8;
        t[4 * i + 3] = b'0' + (i % 10) as u8;
        i += 1;
    }
    t
};
static QUADS: &str = match std::str::from_utf8(&QUAD_BYTES) {
    Ok(s) => s,
    Err(_) => panic!("ASCII digits"),
};

/// Append `q` (below 10 000) as four digits, with leading zeros.
#[inline(always)]
fn push_quad(out: &mut String, q: u32) {
    let i = 4 * q as usize;
    out.push_str(&QUADS[i..i + 4]);
}

/// Append `q` (below 10 000) without leading zeros.
#[inline(always)]
fn push_quad_lead(out: &mut String, q: u32) {
    let skip = if q >= 1000 {
        0
    } else if q >= 100 {
        1
    } else if q >= 10 {
        2
    } else {
        3
    };
    let i = 4 * q as usize;
    out.push_str(&QUADS[i + skip..i + 4]);
}

/// Append `n` (below 10^8) as eight digits, with leading zeros.
#[inline(always)]
fn push_octet(out: &mut String, n: u32) {
    push_quad(out, n / 10_000);
    push_quad(out, n % 10_000);
}

/// Append `n` (below 10^8) without leading zeros.
#[inline(always)]
fn push_u32_small(out: &mut String, n: u32) {
    if n < 10_000 {
        push_quad_lead(out, n);
    } else {
        push_quad_lead(out, n / 10_000);
        push_quad(out, n % 10_000);
    }
}

/// Append `n` in decimal (the same text as `write!(out, "{n}")`).
#[inline]
pub fn push_u64(out: &mut String, n: u64) {
    const E8: u64 = 100_000_000;
    if n < E8 {
        push_u32_small(out, n as u32);
    } else if n < E8 * E8 {
        push_u32_small(out, (n / E8) as u32);
        push_octet(out, (n % E8) as u32);
    } else {
        let hi = n / E8;
        push_u32_small(out, (hi / E8) as u32);
        push_octet(out, (hi % E8) as u32);
        push_octet(out, (n % E8) as u32);
    }
}

/// Append `n` in decimal (the same text as `write!(out, "{n}")`).
#[inline]
pub fn push_i64(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    push_u64(out, n.unsigned_abs());
}

/// Append one value as JSON.
pub fn json_value(out: &mut String, v: &Option<Value>) {
    match v {
        None => out.push_str("null"),
        Some(Value::U(x)) | Some(Value::Dur(x)) => push_u64(out, *x),
        Some(Value::I(x)) => push_i64(out, *x),
        Some(Value::Tod(t)) => json_tod(out, *t),
        Some(Value::Text(s)) => json_str(out, s),
        Some(Value::Bits(b)) => json_hex(out, b),
    }
}

/// Append one borrowed value as JSON (the same text as [`json_value`] of its
/// owned form).
#[inline]
pub fn json_value_ref(out: &mut String, v: Option<ValueRef<'_>>) {
    match v {
        None => out.push_str("null"),
        Some(ValueRef::U(x)) | Some(ValueRef::Dur(x)) => push_u64(out, x),
        Some(ValueRef::I(x)) => push_i64(out, x),
        Some(ValueRef::Tod(t)) => json_tod(out, t),
        Some(ValueRef::Text(t)) => json_ebcdic(out, t),
        Some(ValueRef::Bits(b)) => json_hex(out, b),
    }
}

fn json_tod(out: &mut String, t: u64) {
    out.push('"');
    tod::write_iso8601(out, tod::to_unix_us(t));
    out.push('"');
}

fn json_hex(out: &mut String, b: &[u8]) {
    out.push('"');
    hex(out, b);
    out.push('"');
}

/// JSON text of one layout rendered once: the name and every key.
struct LayoutJson {
    /// `"MRSYTRSG"`.
    name: String,
    /// `"FIELD":` for the first field, `,"FIELD":` for the others.
    keys: Vec<String>,
    /// `"GROUP":[` (with a leading comma after fields), if the layout has a group.
    group: String,
    /// `"FIELD":` / `,"FIELD":` for the fields of one group entry.
    group_keys: Vec<String>,
}

impl LayoutJson {
    fn new(l: &RecordLayout) -> LayoutJson {
        let key = |i: usize, name: &str| {
            let mut k = String::new();
            if i > 0 {
                k.push(',');
            }
            json_str(&mut k, name);
            k.push(':');
            k
        };
        let keys_of = |fields: &[FieldDef]| -> Vec<String> {
            fields
                .iter()
                .enumerate()
                .map(|(i, f)| key(i, f.name))
                .collect()
        };
        let (group, group_keys) = match &l.group {
            Some(g) => {
                let mut k = key(l.fields.len(), g.name);
                k.push('[');
                (k, keys_of(g.fields))
            }
            None => (String::new(), Vec::new()),
        };
        let keys = keys_of(l.fields);
        let mut name = String::new();
        json_str(&mut name, l.name);
        LayoutJson {
            name,
            keys,
            group,
            group_keys,
        }
    }
}

/// The pre-rendered JSON text of every layout of [`LAYOUTS`], by position.
fn layouts_json() -> &'static [LayoutJson] {
    static CACHE: OnceLock<Vec<LayoutJson>> = OnceLock::new();
    CACHE.get_or_init(|| LAYOUTS.iter().map(LayoutJson::new).collect())
}

/// Append the JSON object (no newline) for one record, decoded with the
/// layout the reader chose for it ([`RecordRef::layout`]: its layout set, the
/// file's release).
pub fn record_json(out: &mut String, r: &RecordRef<'_>) {
    let h = &r.header;
    let layout = r.layout;
    let built;
    let lj = match layout {
        Some(l) => match layout_index(l) {
            Some(i) => Some(&layouts_json()[i]),
            None => {
                built = LayoutJson::new(l);
                Some(&built)
            }
        },
        None => None,
    };
    out.push_str("{\"offset\":");
    push_u64(out, r.offset);
    out.push_str(",\"domain\":");
    push_u64(out, h.domain as u64);
    out.push_str(",\"record\":");
    push_u64(out, h.record as u64);
    out.push_str(",\"name\":");
    match lj {
        Some(lj) => out.push_str(&lj.name),
        None => {
            out.push_str("\"D");
            push_u64(out, h.domain as u64);
            out.push('R');
            push_u64(out, h.record as u64);
            out.push('"');
        }
    }
    out.push_str(",\"tod\":\"");
    tod::write_iso8601(out, tod::to_unix_us(h.tod));
    out.push_str("\",\"length\":");
    push_u64(out, h.len as u64);
    out.push_str(",\"kind\":\"");
    out.push_str(r.set_kind.as_str());
    out.push_str("\",\"fields\":{");
    if let (Some(l), Some(lj)) = (layout, lj) {
        for (f, key) in l.fields.iter().zip(&lj.keys) {
            out.push_str(key);
            json_value_ref(out, decode_field_ref(r.bytes, f));
        }
        if let Some(g) = &l.group {
            out.push_str(&lj.group);
            for (i, entry) in group_entries(r.bytes, l).enumerate() {
                out.push_str(if i > 0 { ",{" } else { "{" });
                for (f, key) in g.fields.iter().zip(&lj.group_keys) {
                    out.push_str(key);
                    json_value_ref(out, decode_field_ref(entry, f));
                }
                out.push('}');
            }
            out.push(']');
        }
        if h.domain == 10 {
            appldata_json(out, r.bytes, l);
            return;
        }
    }
    out.push_str("}}");
}

/// The rest of a domain 10 record's JSON after its fields: `"appldata"`
/// with the product ID, the kernel module and its struct's fields (OS data's
/// per-CPU entries under `"cpus"`), and `"problem"` when the data does not
/// fit the struct; then the closing braces.
fn appldata_json(out: &mut String, rec: &[u8], l: &RecordLayout) {
    use crate::appldata::{Appldata, OS_CPU};
    out.push('}');
    let a = match Appldata::parse(rec, l) {
        Ok(a) => a,
        Err(p) => {
            out.push_str(",\"appldata\":{\"problem\":");
            json_str(out, &p.to_string());
            out.push_str("}}");
            return;
        }
    };
    out.push_str(",\"appldata\":{\"product\":");
    json_str(out, &a.product.text());
    if let Some(k) = a.kind {
        out.push_str(",\"module\":\"");
        out.push_str(k.name());
        out.push_str("\",\"consistent\":");
        out.push_str(if a.consistent() { "true" } else { "false" });
        out.push_str(",\"fields\":{");
        for (i, (f, v)) in a.fields().enumerate() {
            if i > 0 {
                out.push(',');
            }
            json_str(out, f.name);
            out.push(':');
            json_value_ref(out, v);
        }
        out.push('}');
        if k == crate::appldata::Kind::Os {
            out.push_str(",\"cpus\":[");
            for (i, e) in a.cpu_entries().enumerate() {
                out.push_str(if i > 0 { ",{" } else { "{" });
                for (j, f) in OS_CPU.iter().enumerate() {
                    if j > 0 {
                        out.push(',');
                    }
                    json_str(out, f.name);
                    out.push(':');
                    json_value_ref(out, decode_field_ref(e, f));
                }
                out.push('}');
            }
            out.push(']');
        }
    }
    if let Some(p) = a.check() {
        out.push_str(",\"problem\":");
        json_str(out, &p.to_string());
    }
    out.push_str("}}");
}

/// Append a one-line text rendering of a record (at most `width` characters of
/// fields after the fixed columns), with the layout the reader chose for it.
pub fn record_line(out: &mut String, r: &RecordRef<'_>, width: usize) {
    let h = &r.header;
    let layout = r.layout;
    let name = layout.map_or_else(
        || format!("D{}R{}", h.domain, h.record),
        |l| l.name.to_string(),
    );
    let _ = write!(
        out,
        "{:>12} D{}R{:<3} {:<9} ",
        r.offset, h.domain, h.record, name
    );
    tod::write_iso8601(out, tod::to_unix_us(h.tod));
    let _ = write!(out, " {:>5}", h.len);
    let start = out.len();
    let mut text = String::new();
    if let Some(l) = layout {
        for f in l.fields {
            if out.len() - start > width {
                out.push_str(" ...");
                break;
            }
            let v = decode_field_ref(r.bytes, f);
            let short = f.name.split_once('_').map_or(f.name, |(_, s)| s);
            out.push(' ');
            out.push_str(short);
            out.push('=');
            match v {
                None => out.push('-'),
                // Device numbers in hex, as CP and every report show them.
                Some(ValueRef::U(x)) if f.name.ends_with("RDEVDEV") => {
                    let _ = write!(out, "{x:04X}");
                }
                Some(ValueRef::U(x)) | Some(ValueRef::Dur(x)) => push_u64(out, x),
                Some(ValueRef::I(x)) => push_i64(out, x),
                Some(ValueRef::Tod(t)) => tod::write_iso8601(out, tod::to_unix_us(t)),
                Some(ValueRef::Text(t)) => {
                    text.clear();
                    t.decode_into(&mut text);
                    out.push('\'');
                    out.push_str(text.trim_end());
                    out.push('\'');
                }
                Some(ValueRef::Bits(b)) => hex(out, b),
            }
        }
    }
}

/// One line about records longer than the layouts of the release they were
/// decoded as (their known fields decoded, the rest ignored), or `None`.
pub fn longer_warning(stats: &Stats) -> Option<String> {
    let (&(d, r), first) = stats.longer_by_type.iter().next()?;
    let types = stats.longer_by_type.len();
    Some(format!(
        "{} record(s) of {types} type(s) are longer than ztwin's z/VM {} layouts; their known fields were \
         decoded and {} trailing byte(s) ignored (first: {} at offset {}, {} bytes, {} known; a layout \
         pack or --release can describe the rest)",
        stats.longer,
        stats.release,
        stats.longer_bytes,
        crate::layout::record_name(d, r),
        first.first_offset,
        first.first_len,
        first.known
    ))
}

/// Text summary of a read: records per type, unknown records, damage.
pub fn summary_text(stats: &Stats) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "ztwin dump: {} bytes, {} control records, {} records, {} intervals",
        stats.file_bytes, stats.groups, stats.records, stats.intervals
    );
    for ((d, r), n) in &stats.by_type {
        let name = crate::layout::record_name(d, r);
        let _ = writeln!(s, "  D{d}R{r:<3} {name:<9} {n:>10}");
    }
    let _ = writeln!(s, "  unknown records: {}", stats.unknown);
    let _ = writeln!(
        s,
        "  decoded as z/VM {} ({})",
        stats.release, stats.release_source
    );
    if stats.contiguous_groups > 0 {
        let _ = writeln!(
            s,
            "  record data: {} group(s) in whole frames, {} contiguous",
            stats.frame_groups, stats.contiguous_groups
        );
    }
    if let Some(line) = longer_warning(stats) {
        let _ = writeln!(s, "  {line}");
    }
    let _ = writeln!(
        s,
        "  damaged spans: {} ({} bytes)",
        stats.damage_count, stats.damaged_bytes
    );
    for d in &stats.damage {
        let _ = writeln!(s, "    {}: {d}", d.kind.as_str());
    }
    if stats.damage_count > stats.damage.len() as u64 {
        let _ = writeln!(
            s,
            "    ... {} more not listed",
            stats.damage_count - stats.damage.len() as u64
        );
    }
    let segs = &stats.segments;
    if segs.count > 1 {
        let _ = writeln!(
            s,
            "  segments (collections joined in one file): {}",
            segs.count
        );
        for (i, g) in segs.segments.iter().enumerate() {
            let prev = i.checked_sub(1).map(|j| &segs.segments[j]);
            let _ = writeln!(
                s,
                "    {:>3}  offset {:>12} (X'{:X}')  system {:<8}  processor {:<10}  {} intervals  {}",
                i + 1,
                g.offset,
                g.offset,
                g.system_id.as_deref().unwrap_or("?"),
                g.cpu_model.as_deref().unwrap_or("?"),
                g.intervals,
                g.reason(prev)
            );
        }
        if segs.count > segs.segments.len() as u64 {
            let _ = writeln!(
                s,
                "    ... {} more not listed",
                segs.count - segs.segments.len() as u64
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ebcdic::A2E;

    /// The escaping rule of `json_str`, one character at a time.
    fn json_str_ref(s: &str) -> String {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if (c as u32) < 0x20 || (0x7F..0xA0).contains(&(c as u32)) => {
                    out.push_str(&format!("\\u{:04x}", c as u32));
                }
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    #[test]
    fn integers_match_format() {
        let mut cases = vec![0u64, u64::MAX, u64::MAX - 1, 1 << 63];
        for p in 0..20u32 {
            let t = 10u64.pow(p);
            cases.extend([t - 1, t, t + 1, t.wrapping_mul(7) / 3]);
        }
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            cases.push(x >> (x % 64));
        }
        let mut out = String::new();
        for n in cases {
            out.clear();
            push_u64(&mut out, n);
            assert_eq!(out, n.to_string());
            for i in [n as i64, (n as i64).wrapping_neg(), i64::MIN, i64::MAX] {
                out.clear();
                push_i64(&mut out, i);
                assert_eq!(out, i.to_string());
            }
        }
    }

    #[test]
    fn strings_escape_like_the_reference() {
        let mut samples: Vec<String> = vec![
            "".into(),
            "plain ASCII".into(),
            "quote \" backslash \\ tab \t nl \n cr \r".into(),
            "\u{1}\u{1f}\u{7f}\u{80}\u{9f}\u{a0}\u{ff}é€😀".into(),
        ];
        samples.push((0..=0x2FFu32).filter_map(char::from_u32).collect());
        for s in &samples {
            let mut out = String::new();
            json_str(&mut out, s);
            assert_eq!(out, json_str_ref(s), "{s:?}");
        }
        // Every EBCDIC byte, through the borrowed path.
        let all: Vec<u8> = (0..=255u8).collect();
        let mut out = String::new();
        json_ebcdic(&mut out, Ebcdic(&all));
        assert_eq!(out, json_str_ref(&crate::ebcdic::decode(&all)));
        let mut out = String::new();
        let text: Vec<u8> = "MAINT \"X\"".bytes().map(|b| A2E[b as usize]).collect();
        json_ebcdic(&mut out, Ebcdic(&text));
        assert_eq!(out, "\"MAINT \\\"X\\\"\"");
    }

    #[test]
    fn values_render_the_same_borrowed_or_owned() {
        let bits = [0x00u8, 0x0F, 0xA5, 0xFF];
        let text = [0xD4u8, 0xC1, 0xC9, 0xD5, 0xE3];
        let cases = [
            None,
            Some(ValueRef::U(0)),
            Some(ValueRef::U(u64::MAX)),
            Some(ValueRef::I(-42)),
            Some(ValueRef::Dur(4096)),
            Some(ValueRef::Tod(0xC551_F564_1600_0000)),
            Some(ValueRef::Text(Ebcdic(&text))),
            Some(ValueRef::Bits(&bits)),
        ];
        for v in cases {
            let (mut a, mut b) = (String::new(), String::new());
            json_value_ref(&mut a, v);
            json_value(&mut b, &v.map(|v| v.to_value()));
            assert_eq!(a, b);
        }
        let mut out = String::new();
        json_value_ref(&mut out, Some(ValueRef::Bits(&bits)));
        assert_eq!(out, "\"000FA5FF\"");
        out.clear();
        json_value_ref(&mut out, Some(ValueRef::Tod(0xC551_F564_1600_0000)));
        assert_eq!(out, "\"2010-01-01T00:00:00.000000Z\"");
    }

    #[test]
    fn keys_are_rendered_once_per_layout() {
        let cache = layouts_json();
        assert_eq!(cache.len(), LAYOUTS.len());
        for (l, lj) in LAYOUTS.iter().zip(cache) {
            assert_eq!(lj.name, json_str_ref(l.name));
            for (i, (f, k)) in l.fields.iter().zip(&lj.keys).enumerate() {
                let sep = if i > 0 { "," } else { "" };
                assert_eq!(*k, format!("{sep}{}:", json_str_ref(f.name)));
            }
            assert_eq!(lj.group.is_empty(), l.group.is_none());
        }
    }
}
