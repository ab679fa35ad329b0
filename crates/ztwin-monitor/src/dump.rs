//! Rendering decoded records: JSON Lines (`ztwin dump --json`) and one-line text.
//!
//! JSON object per record: `offset`, `domain`, `record`, `name`, `tod` (ISO 8601
//! UTC with microseconds), `length`, `kind` (sample/event) and `fields` keyed by
//! IBM field name. Field values: integers as numbers (durations and counters in
//! their raw units), TOD timestamps as ISO text, character fields as decoded
//! text, bit strings as hex text, absent fields (record shorter than the layout)
//! as `null`. Repeating groups become a list of objects under the group name.

use crate::layout::{decode_field, decode_group, lookup, Release, Value};
use crate::reader::{RecordRef, Stats};
use crate::tod;
use std::fmt::Write;

/// Append `s` as a JSON string literal.
pub fn json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || (0x7F..0xA0).contains(&(c as u32)) => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn hex(out: &mut String, b: &[u8]) {
    for x in b {
        let _ = write!(out, "{x:02X}");
    }
}

/// Append one value as JSON.
pub fn json_value(out: &mut String, v: &Option<Value>) {
    match v {
        None => out.push_str("null"),
        Some(Value::U(x)) | Some(Value::Dur(x)) => {
            let _ = write!(out, "{x}");
        }
        Some(Value::I(x)) => {
            let _ = write!(out, "{x}");
        }
        Some(Value::Tod(t)) => {
            out.push('"');
            tod::write_iso8601(out, tod::to_unix_us(*t));
            out.push('"');
        }
        Some(Value::Text(s)) => json_str(out, s),
        Some(Value::Bits(b)) => {
            out.push('"');
            hex(out, b);
            out.push('"');
        }
    }
}

/// Append the JSON object (no newline) for one record.
pub fn record_json(out: &mut String, r: &RecordRef<'_>, release: Release) {
    let h = &r.header;
    let layout = lookup(h.domain, h.record, release);
    let _ = write!(
        out,
        "{{\"offset\":{},\"domain\":{},\"record\":{},\"name\":",
        r.offset, h.domain, h.record
    );
    match layout {
        Some(l) => json_str(out, l.name),
        None => {
            let _ = write!(out, "\"D{}R{}\"", h.domain, h.record);
        }
    }
    out.push_str(",\"tod\":\"");
    tod::write_iso8601(out, tod::to_unix_us(h.tod));
    let _ = write!(
        out,
        "\",\"length\":{},\"kind\":\"{}\",\"fields\":{{",
        h.len,
        r.set_kind.as_str()
    );
    if let Some(l) = layout {
        let mut first = true;
        for f in l.fields {
            if !first {
                out.push(',');
            }
            first = false;
            json_str(out, f.name);
            out.push(':');
            json_value(out, &decode_field(r.bytes, f));
        }
        if let Some(g) = &l.group {
            if !first {
                out.push(',');
            }
            json_str(out, g.name);
            out.push_str(":[");
            for (i, entry) in decode_group(r.bytes, l).iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push('{');
                for (j, (name, v)) in entry.iter().enumerate() {
                    if j > 0 {
                        out.push(',');
                    }
                    json_str(out, name);
                    out.push(':');
                    json_value(out, v);
                }
                out.push('}');
            }
            out.push(']');
        }
    }
    out.push_str("}}");
}

/// Append a one-line text rendering of a record (at most `width` characters of
/// fields after the fixed columns).
pub fn record_line(out: &mut String, r: &RecordRef<'_>, release: Release, width: usize) {
    let h = &r.header;
    let layout = lookup(h.domain, h.record, release);
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
    if let Some(l) = layout {
        for f in l.fields {
            if out.len() - start > width {
                out.push_str(" ...");
                break;
            }
            let v = decode_field(r.bytes, f);
            let short = f.name.split_once('_').map_or(f.name, |(_, s)| s);
            let _ = write!(out, " {short}=");
            match v {
                None => out.push('-'),
                Some(Value::U(x)) | Some(Value::Dur(x)) => {
                    let _ = write!(out, "{x}");
                }
                Some(Value::I(x)) => {
                    let _ = write!(out, "{x}");
                }
                Some(Value::Tod(t)) => tod::write_iso8601(out, tod::to_unix_us(t)),
                Some(Value::Text(s)) => {
                    let _ = write!(out, "'{}'", s.trim_end());
                }
                Some(Value::Bits(b)) => hex(out, &b),
            }
        }
    }
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
    s
}
