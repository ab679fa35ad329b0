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
//!
//! Decoding, from the cheapest per value: [`RecordDecoder`] decodes every field
//! of a record (and of its repeating group) at once through the layout's
//! precompiled [`DecodePlan`], into reusable `u64` slots; [`decode_field_ref`]
//! decodes one field without allocating; [`decode_field`] and [`decode_group`]
//! give owned values. All three agree field for field, absent fields included.

#[rustfmt::skip]
mod tables;
pub mod pack;
mod plan;
mod release;

use crate::ebcdic::{self, Ebcdic};
use std::collections::HashMap;
use std::sync::OnceLock;

pub use pack::{LayoutPack, LayoutSet, PackError};
pub use plan::{decode_plan, DecodePlan, DecodedRecord, FieldValues, RecordDecoder};
pub use release::{detect_release, ReleaseGuess, ReleaseSource};
pub use tables::{ALIASES, LAYOUTS, RETIRED, VARIABLE_TAIL};

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
    #[inline]
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

    #[inline]
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
    /// Length of one entry in the layout's release (what a writer puts in the
    /// length field; readers always use the length field).
    pub entry_size: u16,
    /// Fields of one entry; offsets are relative to the entry start.
    pub fields: &'static [FieldDef],
}

impl GroupDef {
    /// Entry field by IBM name (or a former ztwin name, see [`ALIASES`]).
    pub fn field(&self, name: &str) -> Option<&'static FieldDef> {
        find_field(self.fields, name)
    }

    /// Entry field by name, as [`RecordLayout::f`] (retired names give
    /// [`RETIRED_FIELD`], other unknown names panic).
    pub fn f(&self, name: &str) -> &'static FieldDef {
        match self.field(name) {
            Some(f) => f,
            None if retired_reason(name).is_some() => &RETIRED_FIELD,
            None => panic!("{} entries have no field {}", self.name, name),
        }
    }
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

/// A z/VM release, e.g. 5.4 = `Release(5, 4)`. `"7.3".parse()` and
/// `Release::to_string()` give and take the `V.R` form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Release(pub u8, pub u8);

impl Release {
    /// The releases the tables describe, oldest first. Layouts of other
    /// releases are those of the nearest earlier one of these (the oldest for
    /// anything before 5.3).
    pub const KNOWN: [Release; 10] = [
        Release(5, 3),
        Release(5, 4),
        Release(6, 1),
        Release(6, 2),
        Release(6, 3),
        Release(6, 4),
        Release(7, 1),
        Release(7, 2),
        Release(7, 3),
        Release(7, 4),
    ];

    /// Position in [`Release::KNOWN`] of the release whose layouts apply.
    #[inline]
    pub fn known_index(self) -> usize {
        Release::KNOWN.iter().rposition(|&k| k <= self).unwrap_or(0)
    }
}

impl std::fmt::Display for Release {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

impl std::str::FromStr for Release {
    type Err = String;

    /// `V.R` with V and R in 0..=255 (`7.3`; `z/VM 7.3` and `7.3.0` too).
    fn from_str(s: &str) -> Result<Release, String> {
        let t = s.trim();
        let t = t
            .strip_prefix("z/VM")
            .or_else(|| t.strip_prefix("z/vm"))
            .unwrap_or(t)
            .trim();
        let mut parts = t.split('.');
        let bad = || format!("{s:?} is not a z/VM release (expected V.R, e.g. 7.3)");
        let v: u8 = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
        let r: u8 = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
        match parts.next() {
            None => {}
            Some(m) if m.parse::<u8>().is_ok() && parts.next().is_none() => {}
            Some(_) => return Err(bad()),
        }
        if v == 0 {
            return Err(bad());
        }
        Ok(Release(v, r))
    }
}

/// The release whose layouts the twin writes and the reader assumes when a file
/// does not say otherwise.
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
    /// Releases whose IBM page (for 5.3: zpmd's struct) showed this layout's
    /// size; releases outside the tables' range (4.x, 5.1, 5.2, 7.5) may be
    /// listed too. See [`RecordLayout::confidence_in`].
    pub seen: &'static [Release],
    /// Where the offsets come from (IBM page names `monNNN`, zpmd structs).
    pub source: &'static str,
    /// One line saying what the layout covers and what is unconfirmed.
    pub note: &'static str,
}

/// What [`RecordLayout::f`] gives for a field name ztwin no longer has (see
/// [`RETIRED`]): a field that fits no record, so writing it stores nothing.
pub static RETIRED_FIELD: FieldDef = FieldDef {
    name: "(retired)",
    offset: u16::MAX,
    ty: FieldType::U1,
    src: Confidence::Inferred,
};

/// `name` in `fields`, or the field a former name in [`ALIASES`] now stands for.
fn find_field(fields: &'static [FieldDef], name: &str) -> Option<&'static FieldDef> {
    if let Some(f) = fields.iter().find(|f| f.name == name) {
        return Some(f);
    }
    let new = ALIASES.iter().find(|(old, _)| *old == name)?.1;
    fields.iter().find(|f| f.name == new)
}

/// Why a former ztwin field name is gone, if it is one (see [`RETIRED`]).
pub fn retired_reason(name: &str) -> Option<&'static str> {
    RETIRED
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, why)| *why)
}

/// The current name of a former ztwin field name (see [`ALIASES`]).
pub fn alias_of(name: &str) -> Option<&'static str> {
    ALIASES
        .iter()
        .find(|(old, _)| *old == name)
        .map(|(_, new)| *new)
}

impl RecordLayout {
    /// Field by IBM name, or by a former ztwin name listed in [`ALIASES`].
    pub fn field(&self, name: &str) -> Option<&'static FieldDef> {
        find_field(self.fields, name)
    }

    /// Field by IBM name (or former name). A name listed in [`RETIRED`] gives
    /// [`RETIRED_FIELD`], which writers skip; any other unknown name panics
    /// with the record name: for code that builds records from a known layout,
    /// a missing name is a programming error caught by the tests.
    pub fn f(&self, name: &str) -> &'static FieldDef {
        match self.field(name) {
            Some(f) => f,
            None if retired_reason(name).is_some() => &RETIRED_FIELD,
            None => panic!("{} has no field {}", self.name, name),
        }
    }

    /// Whether the size of this layout was seen for `release`, or for releases
    /// on both sides of it (IBM only appends fields, so equal sizes on both
    /// sides mean the same map in between).
    pub fn covers(&self, release: Release) -> bool {
        self.seen.contains(&release)
            || (self.seen.iter().any(|&s| s < release) && self.seen.iter().any(|&s| s > release))
    }

    /// Confidence of field `f` of this layout in `release`: the field's own tag
    /// where the layout is [`covers`](RecordLayout::covers)ed, [`Confidence::Inferred`]
    /// where the layout was carried over from another release.
    pub fn confidence_in(&self, f: &FieldDef, release: Release) -> Confidence {
        if self.covers(release) {
            f.src
        } else {
            Confidence::Inferred
        }
    }
}

/// Domains and record numbers below these bounds are looked up in a dense table
/// (every known layout today); others go through a hash map.
pub(crate) const DENSE_DOMAINS: usize = 16;
pub(crate) const DENSE_RECORDS: usize = 64;
pub(crate) const DENSE: usize = DENSE_DOMAINS * DENSE_RECORDS;

/// [`lookup`] in one release for each dense (domain, record) slot.
pub(crate) type DenseLayouts = [Option<&'static RecordLayout>; DENSE];

/// Slot of (domain, record) in the dense tables (`domain * 64 + record`), if it
/// has one.
#[inline(always)]
pub(crate) fn dense_slot(domain: u8, record: u16) -> Option<usize> {
    if (domain as usize) < DENSE_DOMAINS && (record as usize) < DENSE_RECORDS {
        Some(domain as usize * DENSE_RECORDS + record as usize)
    } else {
        None
    }
}

/// Index from (domain, record) to layout candidates, built once.
struct Index {
    /// Per release of [`Release::KNOWN`] (same position): the answer of
    /// [`lookup`] for each dense slot.
    dense: Vec<Box<DenseLayouts>>,
    /// Every candidate per (domain, record), oldest `since` first.
    by_key: HashMap<(u8, u16), Vec<&'static RecordLayout>>,
    /// (domain, record) per IBM record name.
    by_name: HashMap<&'static str, (u8, u16)>,
    /// Per layout of [`LAYOUTS`] (same position): its group's offset and
    /// entry-length fields, resolved once.
    group_fields: Vec<Option<(&'static FieldDef, &'static FieldDef)>>,
    /// Per layout of [`LAYOUTS`] (same position): its decode plan.
    plans: Vec<DecodePlan>,
}

static INDEX: OnceLock<Index> = OnceLock::new();

#[inline(always)]
fn index() -> &'static Index {
    match INDEX.get() {
        Some(ix) => ix,
        None => build_index(),
    }
}

/// The dense table of every release of [`Release::KNOWN`] for `by_key`.
fn dense_tables(by_key: &HashMap<(u8, u16), Vec<&'static RecordLayout>>) -> Vec<Box<DenseLayouts>> {
    Release::KNOWN
        .iter()
        .map(|&rel| {
            let mut t: Box<DenseLayouts> = Box::new([None; DENSE]);
            for (&(d, r), cands) in by_key {
                if let Some(s) = dense_slot(d, r) {
                    t[s] = pick(cands, rel);
                }
            }
            t
        })
        .collect()
}

#[cold]
#[inline(never)]
fn build_index() -> &'static Index {
    INDEX.get_or_init(|| {
        let mut by_key: HashMap<(u8, u16), Vec<&'static RecordLayout>> = HashMap::new();
        let mut by_name: HashMap<&'static str, (u8, u16)> = HashMap::new();
        for l in LAYOUTS {
            by_key.entry((l.domain, l.record)).or_default().push(l);
            by_name.insert(l.name, (l.domain, l.record));
        }
        for v in by_key.values_mut() {
            v.sort_by_key(|l| l.since);
        }
        let dense = dense_tables(&by_key);
        let group_fields = LAYOUTS.iter().map(resolve_group_fields).collect();
        let plans = (0..LAYOUTS.len()).map(DecodePlan::for_table).collect();
        Index {
            dense,
            by_key,
            by_name,
            group_fields,
            plans,
        }
    })
}

/// The candidate for `release` among layouts sorted by `since`.
fn pick(cands: &[&'static RecordLayout], release: Release) -> Option<&'static RecordLayout> {
    cands
        .iter()
        .rev()
        .find(|l| l.since <= release)
        .or_else(|| cands.first())
        .copied()
}

fn resolve_group_fields(l: &RecordLayout) -> Option<(&'static FieldDef, &'static FieldDef)> {
    let g = l.group.as_ref()?;
    Some((l.field(g.offset_field)?, l.field(g.len_field)?))
}

/// The dense table of the built-in layouts for `release`, for the reader.
pub(crate) fn dense_layouts(release: Release) -> &'static DenseLayouts {
    &index().dense[release.known_index()]
}

/// Position of `l` in [`LAYOUTS`], or `None` for a layout built elsewhere.
#[inline]
pub(crate) fn layout_index(l: &RecordLayout) -> Option<usize> {
    let size = std::mem::size_of::<RecordLayout>();
    let base = LAYOUTS.as_ptr() as usize;
    let p = l as *const RecordLayout as usize;
    let d = p.wrapping_sub(base);
    if d < std::mem::size_of_val(LAYOUTS) && d % size == 0 {
        Some(d / size)
    } else {
        None
    }
}

/// Layout for (domain, record) in `release`: the one with the highest `since`
/// not after `release`, or the oldest known one for earlier releases.
///
/// For small domain and record numbers (every known layout) this is one load
/// from a dense table built once per release of [`Release::KNOWN`].
#[inline]
pub fn lookup(domain: u8, record: u16, release: Release) -> Option<&'static RecordLayout> {
    let ix = index();
    if let Some(s) = dense_slot(domain, record) {
        let i = if release == DEFAULT_RELEASE {
            1
        } else {
            release.known_index()
        };
        return ix.dense[i][s];
    }
    pick(ix.by_key.get(&(domain, record))?, release)
}

/// Every version of (domain, record), oldest first (empty when unknown).
pub fn versions(domain: u8, record: u16) -> &'static [&'static RecordLayout] {
    index()
        .by_key
        .get(&(domain, record))
        .map_or(&[], |v| v.as_slice())
}

/// Layout by IBM record name (e.g. `MRSYTRSG`) in [`DEFAULT_RELEASE`], the
/// release the twin writes.
pub fn by_name(name: &str) -> Option<&'static RecordLayout> {
    by_name_release(name, DEFAULT_RELEASE)
}

/// Layout by IBM record name in `release`: what a writer of that release's
/// records uses (its `size`, its fields). For the twin's emitter:
///
/// ```
/// use ztwin_monitor::layout::{by_name_release, Release};
/// let r: Release = "5.4".parse().unwrap();
/// let prp = by_name_release("MRSYTPRP", r).unwrap();
/// assert_eq!(prp.size, 124); // IBM's z/VM 5.4 size
/// let f = prp.f("SYTPRP_PFXUTIME"); // offset and type for encoding
/// assert_eq!(f.offset, 32);
/// ```
pub fn by_name_release(name: &str, release: Release) -> Option<&'static RecordLayout> {
    let &(d, r) = index().by_name.get(name)?;
    lookup(d, r, release)
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

/// A decoded field value that borrows from the record: no allocation. Returned
/// by [`decode_field_ref`]; [`ValueRef::to_value`] gives the owned [`Value`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueRef<'a> {
    U(u64),
    I(i64),
    /// Raw TOD clock value.
    Tod(u64),
    /// Duration in TOD units.
    Dur(u64),
    /// EBCDIC text, converted only when asked ([`Ebcdic::decode_into`]): a
    /// character field without its trailing blanks and NULs, or variable text as
    /// stored. Decodes to the same text as [`Value::Text`].
    Text(Ebcdic<'a>),
    /// Flag bytes, borrowed from the record.
    Bits(&'a [u8]),
}

impl ValueRef<'_> {
    /// The owned value ([`decode_field`]'s result for the same field).
    pub fn to_value(&self) -> Value {
        match *self {
            ValueRef::U(x) => Value::U(x),
            ValueRef::I(x) => Value::I(x),
            ValueRef::Tod(x) => Value::Tod(x),
            ValueRef::Dur(x) => Value::Dur(x),
            ValueRef::Text(t) => Value::Text(t.decode()),
            ValueRef::Bits(b) => Value::Bits(b.to_vec()),
        }
    }
}

impl From<ValueRef<'_>> for Value {
    fn from(v: ValueRef<'_>) -> Value {
        v.to_value()
    }
}

/// `N` bytes of `rec` at `off`, or `None` past the end.
#[inline(always)]
fn load<const N: usize>(rec: &[u8], off: usize) -> Option<[u8; N]> {
    match rec.get(off..off + N) {
        Some(b) => b.try_into().ok(),
        None => None,
    }
}

/// Decode one field of `rec` (a whole record, header included) without
/// allocating: text and bit strings borrow from `rec`. `None` when the field
/// lies beyond the record's length: an older, shorter record, so the field is
/// absent (spec section 9 item 2), not zero.
#[inline]
pub fn decode_field_ref<'a>(rec: &'a [u8], f: &FieldDef) -> Option<ValueRef<'a>> {
    let off = f.offset as usize;
    // Most fields are fullword counters: a plain test before the type switch.
    if let FieldType::U4 = f.ty {
        return Some(ValueRef::U(u32::from_be_bytes(load(rec, off)?) as u64));
    }
    Some(match f.ty {
        FieldType::U1 => ValueRef::U(*rec.get(off)? as u64),
        FieldType::U2 => ValueRef::U(u16::from_be_bytes(load(rec, off)?) as u64),
        FieldType::U4 => ValueRef::U(u32::from_be_bytes(load(rec, off)?) as u64),
        FieldType::U8 => ValueRef::U(u64::from_be_bytes(load(rec, off)?)),
        FieldType::S2 => ValueRef::I(i16::from_be_bytes(load(rec, off)?) as i64),
        FieldType::S4 => ValueRef::I(i32::from_be_bytes(load(rec, off)?) as i64),
        FieldType::S8 => ValueRef::I(i64::from_be_bytes(load(rec, off)?)),
        FieldType::Tod => ValueRef::Tod(u64::from_be_bytes(load(rec, off)?)),
        FieldType::Dur => ValueRef::Dur(u64::from_be_bytes(load(rec, off)?)),
        FieldType::Char(n) => {
            ValueRef::Text(Ebcdic(ebcdic::trim_field(rec.get(off..off + n as usize)?)))
        }
        FieldType::Bits(n) => ValueRef::Bits(rec.get(off..off + n as usize)?),
        FieldType::VarText { len_at } => {
            let n = u32::from_be_bytes(load(rec, len_at as usize)?) as usize;
            if off > rec.len() {
                return None;
            }
            ValueRef::Text(Ebcdic(&rec[off..off.saturating_add(n).min(rec.len())]))
        }
    })
}

/// Decode one field of `rec` (a whole record, header included) into an owned
/// [`Value`]. `None` when the field lies beyond the record's length: an older,
/// shorter record, so the field is absent (spec section 9 item 2), not zero.
/// [`decode_field_ref`] does the same without allocating.
#[inline]
pub fn decode_field(rec: &[u8], f: &FieldDef) -> Option<Value> {
    decode_field_ref(rec, f).map(|v| v.to_value())
}

/// Read a fixed-width numeric field as u64 without allocating (`None` if absent
/// or not numeric). Signed fields are returned as their two's-complement bits.
#[inline]
pub fn read_u64(rec: &[u8], f: &FieldDef) -> Option<u64> {
    let off = f.offset as usize;
    match f.ty {
        FieldType::U1 => rec.get(off).map(|&b| b as u64),
        FieldType::U2 | FieldType::S2 => load(rec, off).map(|b| u16::from_be_bytes(b) as u64),
        FieldType::U4 | FieldType::S4 => load(rec, off).map(|b| u32::from_be_bytes(b) as u64),
        FieldType::U8 | FieldType::S8 | FieldType::Tod | FieldType::Dur => {
            load(rec, off).map(u64::from_be_bytes)
        }
        FieldType::Char(_) | FieldType::Bits(_) | FieldType::VarText { .. } => None,
    }
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

/// The entries of a record's repeating group, as byte slices of one entry
/// length each (decode them with [`decode_field_ref`] and the group's fields).
/// Entries are bounded by the record length; a record without a group, or with
/// a zero or absurd entry length or offset, yields no entries. No allocation.
#[inline]
pub fn group_entries<'a>(rec: &'a [u8], layout: &RecordLayout) -> std::slice::ChunksExact<'a, u8> {
    let none = rec[..0].chunks_exact(1);
    let fields = match layout_index(layout) {
        Some(i) => index().group_fields[i],
        None => resolve_group_fields(layout),
    };
    let Some((of, ln)) = fields.and_then(|(of, ln)| group_span(rec, of, ln)) else {
        return none;
    };
    rec[of..].chunks_exact(ln)
}

/// Start and entry length of the repeating group whose offset and entry-length
/// fields are `of` and `ln`, or `None` when absent, zero or absurd.
#[inline]
fn group_span(rec: &[u8], of: &FieldDef, ln: &FieldDef) -> Option<(usize, usize)> {
    let (of, ln) = (read_u64(rec, of)? as usize, read_u64(rec, ln)? as usize);
    if ln == 0 || of < crate::header::HEADER_LEN || of > rec.len() {
        return None;
    }
    Some((of, ln))
}

/// Decoded entries of a record's repeating group, each as (field, value) pairs.
/// Entries are bounded by the record length; a zero or absurd entry length yields
/// no entries. [`group_entries`] and [`decode_field_ref`] do the same without
/// allocating.
pub fn decode_group(rec: &[u8], layout: &RecordLayout) -> Vec<Vec<(&'static str, Option<Value>)>> {
    let Some(g) = &layout.group else {
        return Vec::new();
    };
    group_entries(rec, layout)
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
