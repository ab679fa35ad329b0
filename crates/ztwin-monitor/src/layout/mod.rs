//! Table-driven record layouts keyed by (domain, record, release).
//!
//! Every record type the toolkit understands is described once, as data, in
//! [`tables`]: its IBM name, kind, size in the release it was taken from, and the
//! offset, type and IBM field name of each field. The same table drives decoding
//! (reader, `ztwin dump`, DataFrames) and encoding (the twin's monitor emitter), so
//! the two halves of ztwin cannot disagree about a layout.
//!
//! Each field carries the confidence tag of the specification
//! (`shared/spec/monitor-records.md` section 0). Layouts or fields marked
//! [`Confidence::Inferred`] are our reconstruction; they live only in
//! `tables.rs`, so correcting one from a real file is a one-line change there.

#[rustfmt::skip]
mod tables;

use crate::ebcdic;
use std::sync::OnceLock;

pub use tables::LAYOUTS;

/// Where a layout fact comes from (spec section 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Confidence {
    /// Seen in an IBM control-block or monitor-record page.
    Ibm,
    /// Seen in Linux kernel source or documentation.
    Linux,
    /// Transcribed from the z/VM 5.3 record structs of the open-source zpmd daemon.
    Z53,
    /// Our inference: plausible, unconfirmed. Verify against a real file.
    Inferred,
}

impl Confidence {
    pub fn tag(self) -> &'static str {
        match self {
            Confidence::Ibm => "IBM",
            Confidence::Linux => "LNX",
            Confidence::Z53 => "Z53",
            Confidence::Inferred => "INF",
        }
    }
}

/// Field data types as IBM record maps declare them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldType {
    U1,
    U2,
    U4,
    U8,
    S2,
    S4,
    S8,
    /// 8-byte TOD clock timestamp.
    Tod,
    /// 8-byte duration in TOD units (CPU timer format; µs = value / 4096).
    Dur,
    /// Fixed-width EBCDIC text, blank padded.
    Char(u16),
    /// Flag bytes / bit strings (reported as hex text).
    Bits(u16),
    /// Variable-length EBCDIC text from the field offset to the end of the record,
    /// its length given by the U4 at byte offset `len_at` of the record.
    VarText {
        len_at: u16,
    },
}

impl FieldType {
    /// Fixed byte width (0 for variable text).
    pub const fn width(self) -> usize {
        match self {
            FieldType::U1 => 1,
            FieldType::U2 | FieldType::S2 => 2,
            FieldType::U4 | FieldType::S4 => 4,
            FieldType::U8 | FieldType::S8 | FieldType::Tod | FieldType::Dur => 8,
            FieldType::Char(n) | FieldType::Bits(n) => n as usize,
            FieldType::VarText { .. } => 0,
        }
    }

    pub fn is_numeric(self) -> bool {
        !matches!(
            self,
            FieldType::Char(_) | FieldType::Bits(_) | FieldType::VarText { .. }
        )
    }
}

/// One field of a record layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldDef {
    /// IBM field name including the record prefix, e.g. `SYTRSG_RSAAVAIL`.
    pub name: &'static str,
    /// Byte offset from the start of the record (header included).
    pub offset: u16,
    pub ty: FieldType,
    pub src: Confidence,
}

impl FieldDef {
    /// Byte range end (exclusive) of a fixed-width field.
    pub const fn end(&self) -> usize {
        self.offset as usize + self.ty.width()
    }
}

/// A repeating group of entries inside a record, located through an offset
/// field and an entry-length field of the fixed part (spec section 9 item 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupDef {
    /// Name under which decoded entries are reported.
    pub name: &'static str,
    /// Name of the U2/U4 field holding the offset of the first entry.
    pub offset_field: &'static str,
    /// Name of the U2/U4 field holding the length of one entry.
    pub len_field: &'static str,
    /// Fields of one entry; offsets are relative to the entry start.
    pub fields: &'static [FieldDef],
}

/// What CP writes a record for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecordKind {
    Sample,
    Event,
    /// Configuration data written when monitoring starts (sample or event).
    Config,
    /// Header-only control records (interval end, end of frame, suspend).
    Control,
}

impl RecordKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RecordKind::Sample => "sample",
            RecordKind::Event => "event",
            RecordKind::Config => "config",
            RecordKind::Control => "control",
        }
    }
}

/// A z/VM release, e.g. 5.4 = `Release(5, 4)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Release(pub u8, pub u8);

/// The release whose layouts the twin writes and the reader assumes when a file
/// does not say otherwise (z/VM 5.4 used the 5.3 record maps for these records).
pub const DEFAULT_RELEASE: Release = Release(5, 4);

/// Layout of one record type in one range of releases.
#[derive(Debug, PartialEq, Eq)]
pub struct RecordLayout {
    pub domain: u8,
    pub record: u16,
    /// IBM record name, e.g. `MRSYTRSG`.
    pub name: &'static str,
    pub kind: RecordKind,
    /// First release this layout applies to.
    pub since: Release,
    /// Record length written by the twin (the size in the source release).
    pub size: u16,
    /// Confidence of the layout as a whole (the weakest of its fields, or the
    /// source the record map was taken from).
    pub src: Confidence,
    pub fields: &'static [FieldDef],
    pub group: Option<GroupDef>,
    /// One line saying where the layout comes from and what is unconfirmed.
    pub note: &'static str,
}

impl RecordLayout {
    /// Field by IBM name (exact match).
    pub fn field(&self, name: &str) -> Option<&'static FieldDef> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// Field by IBM name; panics with the record name when it does not exist.
    /// For code that builds records from a known layout (a missing name is a
    /// programming error caught by the tests).
    pub fn f(&self, name: &str) -> &'static FieldDef {
        self.field(name)
            .unwrap_or_else(|| panic!("{} has no field {}", self.name, name))
    }
}

/// Index from (domain, record) to layout candidates, built once.
struct Index {
    by_key: std::collections::HashMap<(u8, u16), Vec<&'static RecordLayout>>,
    by_name: std::collections::HashMap<&'static str, &'static RecordLayout>,
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut by_key: std::collections::HashMap<(u8, u16), Vec<&'static RecordLayout>> =
            Default::default();
        let mut by_name = std::collections::HashMap::new();
        for l in LAYOUTS {
            by_key.entry((l.domain, l.record)).or_default().push(l);
            by_name.entry(l.name).or_insert(l);
        }
        for v in by_key.values_mut() {
            v.sort_by_key(|l| l.since);
        }
        Index { by_key, by_name }
    })
}

/// Layout for (domain, record) in `release`: the one with the highest `since`
/// not after `release`, or the oldest known one for earlier releases.
pub fn lookup(domain: u8, record: u16, release: Release) -> Option<&'static RecordLayout> {
    let cands = index().by_key.get(&(domain, record))?;
    cands
        .iter()
        .rev()
        .find(|l| l.since <= release)
        .or_else(|| cands.first())
        .copied()
}

/// Layout by IBM record name (e.g. `MRSYTRSG`), newest release first.
pub fn by_name(name: &str) -> Option<&'static RecordLayout> {
    let cands = index().by_key.values().flatten();
    let mut best: Option<&'static RecordLayout> = None;
    for l in cands {
        if l.name == name && best.is_none_or(|b| l.since > b.since) {
            best = Some(l);
        }
    }
    best.or_else(|| index().by_name.get(name).copied())
}

/// IBM name for a (domain, record) pair, or a synthetic `D<d>R<r>` name.
pub fn record_name(domain: u8, record: u16) -> std::borrow::Cow<'static, str> {
    match lookup(domain, record, DEFAULT_RELEASE) {
        Some(l) => std::borrow::Cow::Borrowed(l.name),
        None => std::borrow::Cow::Owned(format!("D{domain}R{record}")),
    }
}

/// A decoded field value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    U(u64),
    I(i64),
    /// Raw TOD clock value.
    Tod(u64),
    /// Duration in TOD units.
    Dur(u64),
    Text(String),
    Bits(Vec<u8>),
}

#[inline]
fn be(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0u64, |acc, &b| (acc << 8) | b as u64)
}

/// Decode one field of `rec` (a whole record, header included). `None` when the
/// field lies beyond the record's length: an older, shorter record, so the field is
/// absent (spec section 9 item 2), not zero.
pub fn decode_field(rec: &[u8], f: &FieldDef) -> Option<Value> {
    let off = f.offset as usize;
    if let FieldType::VarText { len_at } = f.ty {
        let la = len_at as usize;
        if la + 4 > rec.len() || off > rec.len() {
            return None;
        }
        let n = be(&rec[la..la + 4]) as usize;
        let end = off.saturating_add(n).min(rec.len());
        return Some(Value::Text(ebcdic::decode(&rec[off..end])));
    }
    let end = f.end();
    if end > rec.len() {
        return None;
    }
    let b = &rec[off..end];
    Some(match f.ty {
        FieldType::U1 | FieldType::U2 | FieldType::U4 | FieldType::U8 => Value::U(be(b)),
        FieldType::S2 => Value::I(be(b) as u16 as i16 as i64),
        FieldType::S4 => Value::I(be(b) as u32 as i32 as i64),
        FieldType::S8 => Value::I(be(b) as i64),
        FieldType::Tod => Value::Tod(be(b)),
        FieldType::Dur => Value::Dur(be(b)),
        FieldType::Char(_) => Value::Text(ebcdic::decode_field(b)),
        FieldType::Bits(_) => Value::Bits(b.to_vec()),
        FieldType::VarText { .. } => unreachable!(),
    })
}

/// Read a fixed-width numeric field as u64 without allocating (`None` if absent
/// or not numeric). Signed fields are returned as their two's-complement bits.
#[inline]
pub fn read_u64(rec: &[u8], f: &FieldDef) -> Option<u64> {
    if !f.ty.is_numeric() {
        return None;
    }
    let end = f.end();
    if end > rec.len() {
        return None;
    }
    Some(be(&rec[f.offset as usize..end]))
}

/// Why a value could not be stored in a field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EncodeError {
    DoesNotFit { field: &'static str, len: usize },
    WrongType { field: &'static str },
    OutOfRange { field: &'static str },
}

impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EncodeError::DoesNotFit { field, len } => {
                write!(f, "field {field} does not fit in a record of {len} bytes")
            }
            EncodeError::WrongType { field } => write!(f, "value has the wrong type for {field}"),
            EncodeError::OutOfRange { field } => write!(f, "value out of range for {field}"),
        }
    }
}

impl std::error::Error for EncodeError {}

/// Store `v` into field `f` of record buffer `rec` (big-endian, EBCDIC text).
pub fn encode_field(rec: &mut [u8], f: &FieldDef, v: &Value) -> Result<(), EncodeError> {
    let off = f.offset as usize;
    if let FieldType::VarText { len_at } = f.ty {
        let Value::Text(t) = v else {
            return Err(EncodeError::WrongType { field: f.name });
        };
        let bytes = ebcdic::encode(t);
        let la = len_at as usize;
        if off + bytes.len() > rec.len() || la + 4 > rec.len() {
            return Err(EncodeError::DoesNotFit {
                field: f.name,
                len: rec.len(),
            });
        }
        rec[la..la + 4].copy_from_slice(&(bytes.len() as u32).to_be_bytes());
        rec[off..off + bytes.len()].copy_from_slice(&bytes);
        return Ok(());
    }
    let w = f.ty.width();
    if off + w > rec.len() {
        return Err(EncodeError::DoesNotFit {
            field: f.name,
            len: rec.len(),
        });
    }
    let slot = &mut rec[off..off + w];
    match (f.ty, v) {
        (FieldType::Char(_), Value::Text(t)) => ebcdic::encode_field(t, slot),
        (FieldType::Bits(_), Value::Bits(b)) => {
            if b.len() != w {
                return Err(EncodeError::OutOfRange { field: f.name });
            }
            slot.copy_from_slice(b);
        }
        (FieldType::U1 | FieldType::U2 | FieldType::U4 | FieldType::U8, Value::U(x))
        | (FieldType::Tod, Value::Tod(x))
        | (FieldType::Dur, Value::Dur(x)) => {
            if w < 8 && *x >> (8 * w) != 0 {
                return Err(EncodeError::OutOfRange { field: f.name });
            }
            slot.copy_from_slice(&x.to_be_bytes()[8 - w..]);
        }
        (FieldType::S2 | FieldType::S4 | FieldType::S8, Value::I(x)) => {
            let bits = 8 * w as u32;
            if bits < 64 {
                let lim = 1i64 << (bits - 1);
                if *x < -lim || *x >= lim {
                    return Err(EncodeError::OutOfRange { field: f.name });
                }
            }
            slot.copy_from_slice(&x.to_be_bytes()[8 - w..]);
        }
        _ => return Err(EncodeError::WrongType { field: f.name }),
    }
    Ok(())
}

/// Decoded entries of a record's repeating group, each as (field, value) pairs.
/// Entries are bounded by the record length; a zero or absurd entry length yields
/// no entries.
pub fn decode_group(rec: &[u8], layout: &RecordLayout) -> Vec<Vec<(&'static str, Option<Value>)>> {
    let Some(g) = &layout.group else {
        return Vec::new();
    };
    let (Some(of), Some(ln)) = (layout.field(g.offset_field), layout.field(g.len_field)) else {
        return Vec::new();
    };
    let (Some(of), Some(ln)) = (read_u64(rec, of), read_u64(rec, ln)) else {
        return Vec::new();
    };
    let (of, ln) = (of as usize, ln as usize);
    if ln == 0 || of < crate::header::HEADER_LEN || of > rec.len() {
        return Vec::new();
    }
    rec[of..]
        .chunks_exact(ln)
        .map(|entry| {
            g.fields
                .iter()
                .map(|f| (f.name, decode_field(entry, f)))
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests;
