//! Whole-record decoding through a precompiled per-layout plan.
//!
//! [`decode_field_ref`](super::decode_field_ref) reads the type of every field at
//! run time. A [`DecodePlan`] is built once per layout (for the layouts of
//! [`LAYOUTS`](super::LAYOUTS) lazily, in the same table as the dense lookup) and
//! merges consecutive fields of the same fixed width and signedness, at
//! consecutive offsets, into *runs*: "12 fullword counters from offset 24". A
//! [`RecordDecoder`] executes the plan: one bounds check and one tight loop per
//! run (`from_be_bytes` over `chunks_exact`, which the compiler vectorises),
//! writing one `u64` slot per field into a buffer it reuses from record to
//! record. The results are those of `decode_field_ref` on every field, and on
//! every field of every repeating-group entry ([`group_entries`](super::group_entries)):
//! [`DecodedRecord::get`] rebuilds the [`ValueRef`] from a slot, and the
//! equality is tested for every layout at every record length.

use super::{
    index, layout_index, resolve_group_fields, FieldDef, FieldType, RecordLayout, ValueRef, LAYOUTS,
};
use crate::ebcdic::{self, Ebcdic};

/// What one [`Run`] decodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `n` unsigned 1-, 2- or 4-byte fields.
    U1,
    U2,
    U4,
    /// `n` 8-byte fields: U8, S8 (two's complement bits are the same), Tod, Dur.
    W8,
    /// `n` signed 2- or 4-byte fields, sign-extended to 64 bits.
    S2,
    S4,
    /// One character field of `n` bytes (slot: length without trailing blanks/NULs).
    Char,
    /// One bit string of `n` bytes (slot: `n`).
    Bits,
    /// One variable-length text field, its length at `len_at` (slot: its length).
    VarText,
}

/// `n` fields of one kind at consecutive offsets from `off`, decoded into the
/// slots `slot..slot + n` (one field for the text kinds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    kind: Kind,
    off: u32,
    n: u32,
    slot: u32,
    len_at: u32,
}

#[cfg(test)]
impl Run {
    /// Slots this run writes.
    fn slots(&self) -> u32 {
        match self.kind {
            Kind::Char | Kind::Bits | Kind::VarText => 1,
            _ => self.n,
        }
    }
}

/// Numeric kind and width of a fixed-width numeric field type.
const fn numeric_kind(ty: FieldType) -> Option<(Kind, u32)> {
    Some(match ty {
        FieldType::U1 => (Kind::U1, 1),
        FieldType::U2 => (Kind::U2, 2),
        FieldType::U4 => (Kind::U4, 4),
        FieldType::U8 | FieldType::S8 | FieldType::Tod | FieldType::Dur => (Kind::W8, 8),
        FieldType::S2 => (Kind::S2, 2),
        FieldType::S4 => (Kind::S4, 4),
        FieldType::Char(_) | FieldType::Bits(_) | FieldType::VarText { .. } => return None,
    })
}

/// The run that starts at field `i` of `fields` (slot `i`), and the field after it.
const fn next_run(fields: &[FieldDef], i: usize) -> (Run, usize) {
    let f = &fields[i];
    let (off, slot) = (f.offset as u32, i as u32);
    if let Some((kind, w)) = numeric_kind(f.ty) {
        // Extend over the following fields of the same kind at the next offsets.
        let mut n = 1;
        while i + (n as usize) < fields.len() {
            let g = &fields[i + n as usize];
            match numeric_kind(g.ty) {
                Some((k, _)) if k as u8 == kind as u8 && g.offset as u32 == off + w * n => n += 1,
                _ => break,
            }
        }
        let r = Run {
            kind,
            off,
            n,
            slot,
            len_at: 0,
        };
        return (r, i + n as usize);
    }
    let (kind, n, len_at) = match f.ty {
        FieldType::Char(n) => (Kind::Char, n as u32, 0),
        FieldType::Bits(n) => (Kind::Bits, n as u32, 0),
        FieldType::VarText { len_at } => (Kind::VarText, 0, len_at as u32),
        // Numeric types are handled above.
        _ => (Kind::Bits, 0, 0),
    };
    let r = Run {
        kind,
        off,
        n,
        slot,
        len_at,
    };
    (r, i + 1)
}

/// Runs for `fields`, slot `i` for field `i`.
fn compile(fields: &[FieldDef]) -> Box<[Run]> {
    let mut runs: Vec<Run> = Vec::new();
    let mut i = 0;
    while i < fields.len() {
        let (r, next) = next_run(fields, i);
        runs.push(r);
        i = next;
    }
    runs.into_boxed_slice()
}

/// Whether `f` is present in a record (or group entry) of `len` bytes, as
/// [`decode_field_ref`](super::decode_field_ref) decides it.
#[inline]
fn present(f: &FieldDef, len: usize) -> bool {
    match f.ty {
        FieldType::VarText { len_at } => len_at as usize + 4 <= len && f.offset as usize <= len,
        _ => f.end() <= len,
    }
}

/// The smallest length at which every field of `fields` is present.
const fn full_len(fields: &[FieldDef]) -> usize {
    let (mut i, mut full) = (0, 0);
    while i < fields.len() {
        let f = &fields[i];
        let end = match f.ty {
            FieldType::VarText { len_at } => {
                let la = len_at as usize + 4;
                if la > f.offset as usize {
                    la
                } else {
                    f.offset as usize
                }
            }
            _ => f.end(),
        };
        if end > full {
            full = end;
        }
        i += 1;
    }
    full
}

/// Precompiled decoding of one layout: its fields merged into runs. Built once
/// per layout of [`LAYOUTS`](super::LAYOUTS) ([`decode_plan`]); [`DecodePlan::new`]
/// builds one for any layout.
#[derive(Debug)]
pub struct DecodePlan {
    fields: &'static [FieldDef],
    runs: Box<[Run]>,
    /// The generated decoder of this layout, for the layouts of LAYOUTS.
    fast: Option<DecodeFn>,
    /// Length from which no field is absent.
    full: usize,
    group: Option<GroupPlan>,
}

#[derive(Debug)]
struct GroupPlan {
    fields: &'static [FieldDef],
    runs: Box<[Run]>,
    fast: Option<DecodeFn>,
    full: usize,
    /// The group's offset and entry-length fields in the fixed part.
    of: &'static FieldDef,
    ln: &'static FieldDef,
}

impl DecodePlan {
    /// The plan of `layout` (allocates; [`decode_plan`] gives the prebuilt plan
    /// of a layout of [`LAYOUTS`](super::LAYOUTS)).
    pub fn new(layout: &RecordLayout) -> DecodePlan {
        let group = match (&layout.group, resolve_group_fields(layout)) {
            (Some(g), Some((of, ln))) => Some(GroupPlan {
                fields: g.fields,
                runs: compile(g.fields),
                fast: None,
                full: full_len(g.fields),
                of,
                ln,
            }),
            _ => None,
        };
        DecodePlan {
            fields: layout.fields,
            runs: compile(layout.fields),
            fast: None,
            full: full_len(layout.fields),
            group,
        }
    }

    /// The plan of `LAYOUTS[i]`, with its generated decoders.
    pub(super) fn for_table(i: usize) -> DecodePlan {
        let mut p = DecodePlan::new(&LAYOUTS[i]);
        if let Some(&(fixed, group)) = SPECIALISED.get(i) {
            p.fast = fixed;
            if let Some(g) = &mut p.group {
                g.fast = group;
            }
        }
        p
    }

    /// Whether the plan has a decoder generated at compile time (every layout
    /// of [`LAYOUTS`](super::LAYOUTS), and its group) rather than only runs
    /// read at run time.
    pub fn is_specialised(&self) -> bool {
        self.fast.is_some() && self.group.as_ref().is_none_or(|g| g.fast.is_some())
    }

    /// Number of runs of the fixed part (each a bounds check and a loop).
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Number of runs of one repeating-group entry (0 without a group).
    pub fn group_runs(&self) -> usize {
        self.group.as_ref().map_or(0, |g| g.runs.len())
    }
}

/// The prebuilt plan of a layout of [`LAYOUTS`](super::LAYOUTS) or of an
/// installed layout pack ([`LayoutSet::install`](super::LayoutSet::install)),
/// or `None` for a layout built elsewhere (use [`DecodePlan::new`]).
#[inline]
pub fn decode_plan(layout: &RecordLayout) -> Option<&'static DecodePlan> {
    match layout_index(layout) {
        Some(i) => Some(&index().plans[i]),
        None => registered_plan(layout),
    }
}

/// Plans of the layouts of installed packs, by layout address. Those layouts
/// are never freed, so an address stays theirs.
static PACK_PLANS: std::sync::RwLock<Vec<(usize, &'static DecodePlan)>> =
    std::sync::RwLock::new(Vec::new());

#[cold]
#[inline(never)]
fn registered_plan(layout: &RecordLayout) -> Option<&'static DecodePlan> {
    let addr = layout as *const RecordLayout as usize;
    let plans = PACK_PLANS.read().unwrap_or_else(|p| p.into_inner());
    plans.iter().find(|(a, _)| *a == addr).map(|(_, p)| *p)
}

/// Keep the plan of `layout`, a layout of an installed pack that lives as
/// long as the process.
pub(super) fn register_plan(layout: &'static RecordLayout) {
    let plan: &'static DecodePlan = Box::leak(Box::new(DecodePlan::new(layout)));
    let mut plans = PACK_PLANS.write().unwrap_or_else(|p| p.into_inner());
    plans.push((layout as *const RecordLayout as usize, plan));
}

/// Decode `n = dst.len()` fields of `W` bytes each from `rec` at `off` into
/// `dst` with `conv`; fields beyond the end of `rec` get 0. Returns how many
/// fields were beyond the end (absent).
#[inline(always)]
fn fixed<const W: usize>(
    rec: &[u8],
    off: usize,
    dst: &mut [u64],
    conv: fn([u8; W]) -> u64,
) -> usize {
    let n = dst.len();
    // One bounds check for the whole run.
    let Some(src) = rec.get(off..off + W * n) else {
        return fixed_short::<W>(rec, off, dst, conv);
    };
    for (d, c) in dst.iter_mut().zip(src.chunks_exact(W)) {
        // A chunk of `chunks_exact(W)` has W bytes: the conversion cannot fail.
        *d = conv(c.try_into().unwrap_or([0; W]));
    }
    0
}

/// [`fixed`] for a run that the record ends inside or before.
#[cold]
#[inline(never)]
fn fixed_short<const W: usize>(
    rec: &[u8],
    off: usize,
    dst: &mut [u64],
    conv: fn([u8; W]) -> u64,
) -> usize {
    let k = (rec.len().saturating_sub(off) / W).min(dst.len());
    let (have, absent) = dst.split_at_mut(k);
    let src = &rec[off.min(rec.len())..];
    for (d, c) in have.iter_mut().zip(src.chunks_exact(W)) {
        *d = conv(c.try_into().unwrap_or([0; W]));
    }
    absent.fill(0);
    absent.len()
}

/// Execute run `r` on `rec` into `vals`; `whole` is the record `rec` was cut
/// from (variable text runs to its end). Returns the number of absent fields.
#[inline(always)]
fn exec_one(rec: &[u8], whole: &[u8], r: &Run, vals: &mut [u64]) -> usize {
    let (off, n, slot) = (r.off as usize, r.n as usize, r.slot as usize);
    match r.kind {
        Kind::U4 => fixed::<4>(rec, off, &mut vals[slot..slot + n], |b| {
            u32::from_be_bytes(b) as u64
        }),
        Kind::W8 => fixed::<8>(rec, off, &mut vals[slot..slot + n], u64::from_be_bytes),
        Kind::U2 => fixed::<2>(rec, off, &mut vals[slot..slot + n], |b| {
            u16::from_be_bytes(b) as u64
        }),
        Kind::U1 => fixed::<1>(rec, off, &mut vals[slot..slot + n], |b| b[0] as u64),
        Kind::S2 => fixed::<2>(rec, off, &mut vals[slot..slot + n], |b| {
            i16::from_be_bytes(b) as i64 as u64
        }),
        Kind::S4 => fixed::<4>(rec, off, &mut vals[slot..slot + n], |b| {
            i32::from_be_bytes(b) as i64 as u64
        }),
        Kind::Char => {
            let (v, absent) = match rec.get(off..off + n) {
                Some(b) => (ebcdic::trim_field(b).len() as u64, 0),
                None => (0, 1),
            };
            vals[slot] = v;
            absent
        }
        Kind::Bits => {
            let (v, absent) = if off + n <= rec.len() {
                (n as u64, 0)
            } else {
                (0, 1)
            };
            vals[slot] = v;
            absent
        }
        Kind::VarText => {
            let la = r.len_at as usize;
            let (v, absent) = match whole.get(la..la + 4) {
                Some(b) if off <= whole.len() => {
                    let n = u32::from_be_bytes(b.try_into().unwrap_or([0; 4])) as usize;
                    ((off.saturating_add(n).min(whole.len()) - off) as u64, 0)
                }
                _ => (0, 1),
            };
            vals[slot] = v;
            absent
        }
    }
}

/// Execute `runs` on `rec` (a record or a group entry) into `vals` (one slot per
/// field), reading each run's kind at run time. Returns the number of absent
/// fields.
#[inline]
fn exec(rec: &[u8], runs: &[Run], vals: &mut [u64]) -> usize {
    let mut absent = 0;
    for r in runs {
        absent += exec_one(rec, rec, r, vals);
    }
    absent
}

/// [`exec`] kept out of the callers' hot paths (layouts without a generated
/// decoder).
#[inline(never)]
fn exec_out_of_line(rec: &[u8], runs: &[Run], vals: &mut [u64]) -> usize {
    exec(rec, runs, vals)
}

/// Lengthen a slot buffer to `n` (buffers only grow).
#[cold]
#[inline(never)]
fn grow(v: &mut Vec<u64>, n: usize) {
    v.resize(n, 0);
}

// ---------------------------------------------------------- specialised plans
//
// For the layouts of LAYOUTS the runs are also computed at compile time, and a
// decoding function is generated per layout (and per repeating group) in which
// every run's kind, offset, count and slot are constants: no dispatch on the
// kind, no bounds check on the slots, and for a record at least as long as the
// layout a single length check for all the runs. Shorter records go through
// `exec`, the same runs read at run time.

/// Most runs in one specialised plan; a field list with more runs is decoded by
/// `exec` only (a test checks that every layout of LAYOUTS fits).
const MAX_RUNS: usize = 32;
/// Layouts of LAYOUTS with a specialised decoder (the first 96).
const MAX_LAYOUTS: usize = 96;

/// Runs of one field list, computed at compile time.
#[derive(Clone, Copy)]
struct ConstPlan {
    runs: [Run; MAX_RUNS],
    /// Runs used (`runs[..n]`); 0 with `ok` false when there are more than
    /// `MAX_RUNS`.
    n: usize,
    fields: usize,
    full: usize,
    ok: bool,
}

const NO_RUN: Run = Run {
    kind: Kind::Bits,
    off: 0,
    n: 0,
    slot: 0,
    len_at: 0,
};

const NO_PLAN: ConstPlan = ConstPlan {
    runs: [NO_RUN; MAX_RUNS],
    n: 0,
    fields: 0,
    full: 0,
    ok: false,
};

const fn const_plan(fields: &[FieldDef]) -> ConstPlan {
    let mut p = NO_PLAN;
    let mut i = 0;
    while i < fields.len() {
        if p.n == MAX_RUNS {
            return NO_PLAN;
        }
        let (r, next) = next_run(fields, i);
        p.runs[p.n] = r;
        p.n += 1;
        i = next;
    }
    p.fields = fields.len();
    p.full = full_len(fields);
    p.ok = true;
    p
}

/// A field list whose plan is known at compile time.
trait Spec {
    const PLAN: ConstPlan;
}

/// The fixed part of `LAYOUTS[I]`.
struct FixedPart<const I: usize>;

impl<const I: usize> Spec for FixedPart<I> {
    const PLAN: ConstPlan = if I < LAYOUTS.len() {
        const_plan(LAYOUTS[I].fields)
    } else {
        NO_PLAN
    };
}

/// One repeating-group entry of `LAYOUTS[I]`.
struct GroupPart<const I: usize>;

impl<const I: usize> Spec for GroupPart<I> {
    const PLAN: ConstPlan = if I < LAYOUTS.len() {
        match &LAYOUTS[I].group {
            Some(g) => const_plan(g.fields),
            None => NO_PLAN,
        }
    } else {
        NO_PLAN
    };
}

/// Run `K` of `S`'s plan, as constants.
struct RunAt<S, const K: usize>(std::marker::PhantomData<S>);

impl<S: Spec, const K: usize> RunAt<S, K> {
    const LIVE: bool = K < S::PLAN.n;
    const RUN: Run = S::PLAN.runs[K];
}

/// Run `K` of `S` on a record at least `S::PLAN.full` bytes long.
#[inline(always)]
fn run_at<S: Spec, const K: usize>(rec: &[u8], whole: &[u8], vals: &mut [u64]) {
    if RunAt::<S, K>::LIVE {
        // Every field is present: nothing to count.
        exec_one(rec, whole, &RunAt::<S, K>::RUN, vals);
    }
}

/// Run `K` of `S` on a record shorter than `S::PLAN.full`: the run checks its
/// own bounds. Returns the number of absent fields.
#[inline(always)]
fn run_at_short<S: Spec, const K: usize>(whole: &[u8], vals: &mut [u64]) -> usize {
    if RunAt::<S, K>::LIVE {
        exec_one(whole, whole, &RunAt::<S, K>::RUN, vals)
    } else {
        0
    }
}

/// `S`'s decoding with its runs unrolled: [`exec`] with constants.
fn exec_spec<S: Spec>(whole: &[u8], vals: &mut [u64]) -> usize {
    let p = &S::PLAN;
    let Some(vals) = vals.get_mut(..p.fields) else {
        return exec(whole, &p.runs[..p.n], vals);
    };
    let Some(rec) = whole.get(..p.full) else {
        return exec_spec_short::<S>(whole, vals);
    };
    macro_rules! runs {
        ($($k:literal)*) => { $( run_at::<S, $k>(rec, whole, vals); )* };
    }
    runs!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31);
    0
}

/// [`exec_spec`] for a record (or entry) shorter than the layout: an older
/// release's record, or one cut short; still constants, one bounds check per run.
#[inline(never)]
fn exec_spec_short<S: Spec>(whole: &[u8], vals: &mut [u64]) -> usize {
    let mut absent = 0;
    macro_rules! runs {
        ($($k:literal)*) => { $( absent += run_at_short::<S, $k>(whole, vals); )* };
    }
    runs!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31);
    absent
}

/// A specialised decoder: `(record or entry, slots) -> absent fields`.
type DecodeFn = fn(&[u8], &mut [u64]) -> usize;

const fn spec_fn<S: Spec>() -> Option<DecodeFn> {
    if S::PLAN.ok {
        Some(exec_spec::<S>)
    } else {
        None
    }
}

const _: () = assert!(
    LAYOUTS.len() <= MAX_LAYOUTS,
    "raise MAX_LAYOUTS and extend SPECIALISED in layout/plan.rs"
);

macro_rules! specialised {
    ($($i:literal)*) => {
        /// Per position in LAYOUTS: the specialised decoders of the fixed part
        /// and of a group entry.
        static SPECIALISED: [(Option<DecodeFn>, Option<DecodeFn>); MAX_LAYOUTS] =
            [$((spec_fn::<FixedPart<$i>>(), spec_fn::<GroupPart<$i>>())),*];
    };
}

specialised!(
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
    64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95
);

/// Reusable output buffers of whole-record decoding: decode records one after
/// the other with [`RecordDecoder::decode`]; after the first records of each
/// layout, decoding allocates nothing.
///
/// ```
/// use ztwin_monitor::layout::{by_name, RecordDecoder, ValueRef};
/// let l = by_name("MRSYTRSP").unwrap();
/// let rec = vec![0u8; l.size as usize];
/// let mut dec = RecordDecoder::new();
/// let d = dec.decode(&rec, l);
/// assert_eq!(d.len(), l.fields.len());
/// assert_eq!(d.get(0), Some(ValueRef::U(0)));
/// // Fullword counters and every other numeric field as u64 slots.
/// assert!(d.values().iter().all(|&v| v == 0));
/// ```
#[derive(Clone, Debug, Default)]
pub struct RecordDecoder {
    vals: Vec<u64>,
    group_vals: Vec<u64>,
    /// The last record's fields and absent count, and its group.
    fields: &'static [FieldDef],
    absent: usize,
    group: GroupValues,
    /// Address of the last table layout decoded and its plan: consecutive
    /// records are often of one type.
    last: (usize, Option<&'static DecodePlan>),
}

impl Default for GroupValues {
    fn default() -> GroupValues {
        GroupValues::EMPTY
    }
}

impl RecordDecoder {
    pub fn new() -> RecordDecoder {
        RecordDecoder::default()
    }

    /// Decode every field of `rec` (a whole record, header included) as
    /// `layout` describes it, and every field of every entry of its repeating
    /// group. The same values as [`decode_field_ref`](super::decode_field_ref)
    /// on each field (fields beyond a short record's end are absent), through the
    /// layout's [`DecodePlan`]; a layout that is not in
    /// [`LAYOUTS`](super::LAYOUTS) has its plan built for the call (allocating:
    /// keep a [`DecodePlan`] and use [`RecordDecoder::decode_with`] instead).
    #[inline]
    pub fn decode<'a>(&mut self, rec: &'a [u8], layout: &RecordLayout) -> DecodedRecord<'a, '_> {
        let addr = layout as *const RecordLayout as usize;
        let plan = if self.last.0 == addr {
            self.last.1
        } else {
            let p = decode_plan(layout);
            if p.is_some() {
                // Only table layouts (statics: their address is theirs for ever).
                self.last = (addr, p);
            }
            p
        };
        match plan {
            Some(p) => self.decode_with(rec, p),
            None => self.decode_foreign(rec, layout),
        }
    }

    #[cold]
    #[inline(never)]
    fn decode_foreign<'a>(
        &mut self,
        rec: &'a [u8],
        layout: &RecordLayout,
    ) -> DecodedRecord<'a, '_> {
        // Nothing of the result borrows the plan (only its 'static field lists).
        self.decode_with(rec, &DecodePlan::new(layout))
    }

    /// [`RecordDecoder::decode`] with a given plan.
    #[inline]
    pub fn decode_with<'a>(&mut self, rec: &'a [u8], plan: &DecodePlan) -> DecodedRecord<'a, '_> {
        let n = plan.fields.len();
        // Every slot is written below: resizing only adjusts the length.
        // The buffer only grows (no zero fill per record): every slot of
        // `..n` is written below.
        if self.vals.len() < n {
            grow(&mut self.vals, n);
        }
        let vals = &mut self.vals[..n];
        let absent = match plan.fast {
            Some(f) => f(rec, vals),
            None => exec_out_of_line(rec, &plan.runs, vals),
        };
        debug_assert!(rec.len() < plan.full || absent == 0);
        self.fields = plan.fields;
        self.absent = absent;
        self.group = match &plan.group {
            Some(g) => decode_group_into(rec, g, &mut self.group_vals),
            None => GroupValues::EMPTY,
        };
        // The result is two references: the record and the decoder's state.
        DecodedRecord { rec, dec: self }
    }
}

/// Where a record's group entries are and how many fields each lacks.
#[derive(Clone, Copy, Debug)]
struct GroupValues {
    fields: &'static [FieldDef],
    start: usize,
    entry_len: usize,
    entries: usize,
    absent_per_entry: usize,
}

impl GroupValues {
    const EMPTY: GroupValues = GroupValues {
        fields: &[],
        start: 0,
        entry_len: 0,
        entries: 0,
        absent_per_entry: 0,
    };
}

#[inline(never)]
fn decode_group_into(rec: &[u8], g: &GroupPlan, out: &mut Vec<u64>) -> GroupValues {
    let Some((start, entry_len)) = super::group_span(rec, g.of, g.ln) else {
        return GroupValues::EMPTY;
    };
    let gn = g.fields.len();
    let entries = (rec.len() - start) / entry_len;
    if out.len() < entries * gn {
        grow(out, entries * gn);
    }
    let out = &mut out[..entries * gn];
    let mut absent_per_entry = 0;
    if gn > 0 {
        // Every entry has the same length, so the same fields absent.
        for (entry, vals) in rec[start..]
            .chunks_exact(entry_len)
            .zip(out.chunks_exact_mut(gn))
        {
            absent_per_entry = match g.fast {
                Some(f) => f(entry, vals),
                None => exec_out_of_line(entry, &g.runs, vals),
            };
        }
    }
    debug_assert!(entry_len < g.full || absent_per_entry == 0);
    GroupValues {
        fields: g.fields,
        start,
        entry_len,
        entries,
        absent_per_entry,
    }
}

/// Decoded fields of a record's fixed part or of one group entry: one `u64`
/// slot per field, in the order of the field list.
#[derive(Clone, Copy, Debug)]
pub struct FieldValues<'a, 'b> {
    bytes: &'a [u8],
    fields: &'static [FieldDef],
    vals: &'b [u64],
    absent: usize,
}

impl<'a, 'b> FieldValues<'a, 'b> {
    /// Number of fields (present or not).
    #[inline]
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// The field definitions, slot `i` for field `i`.
    #[inline]
    pub fn fields(&self) -> &'static [FieldDef] {
        self.fields
    }

    /// The bytes decoded (the record, or the group entry).
    #[inline]
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The slots, one per field: an unsigned field's value; a signed field's
    /// value as `i64` bits (sign-extended, `v as i64` gives it back); a TOD or
    /// duration's raw 64 bits; a text field's length in bytes (a character field
    /// without its trailing blanks and NULs); a bit string's width; 0 for an
    /// absent field (tell absent from zero with [`FieldValues::is_present`] or
    /// [`FieldValues::get`]).
    #[inline]
    pub fn values(&self) -> &'b [u64] {
        self.vals
    }

    /// How many fields are absent (beyond the end of a short record or entry).
    #[inline]
    pub fn absent(&self) -> usize {
        self.absent
    }

    /// Whether field `i` is present (`false` for `i` out of range).
    #[inline]
    pub fn is_present(&self, i: usize) -> bool {
        self.fields
            .get(i)
            .is_some_and(|f| present(f, self.bytes.len()))
    }

    /// Field `i`'s value, exactly as [`decode_field_ref`](super::decode_field_ref)
    /// gives it; `None` when absent or `i` is out of range.
    #[inline]
    pub fn get(&self, i: usize) -> Option<ValueRef<'a>> {
        let f = self.fields.get(i)?;
        let v = *self.vals.get(i)?;
        let rec = self.bytes;
        if !present(f, rec.len()) {
            return None;
        }
        let off = f.offset as usize;
        Some(match f.ty {
            FieldType::U1 | FieldType::U2 | FieldType::U4 | FieldType::U8 => ValueRef::U(v),
            FieldType::S2 | FieldType::S4 | FieldType::S8 => ValueRef::I(v as i64),
            FieldType::Tod => ValueRef::Tod(v),
            FieldType::Dur => ValueRef::Dur(v),
            FieldType::Char(_) | FieldType::VarText { .. } => {
                ValueRef::Text(Ebcdic(&rec[off..off + v as usize]))
            }
            FieldType::Bits(n) => ValueRef::Bits(&rec[off..off + n as usize]),
        })
    }

    /// `(field, value)` for every field, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static FieldDef, Option<ValueRef<'a>>)> + '_ {
        self.fields
            .iter()
            .enumerate()
            .map(|(i, f)| (f, self.get(i)))
    }
}

/// A record decoded by [`RecordDecoder::decode`]: the fixed part's fields (the
/// methods of [`FieldValues`], through [`DecodedRecord::fixed`] or directly) and
/// the repeating group's entries. Borrows the record (`'a`) and the decoder's
/// buffers (`'b`).
#[derive(Clone, Copy, Debug)]
pub struct DecodedRecord<'a, 'b> {
    rec: &'a [u8],
    dec: &'b RecordDecoder,
}

impl<'a, 'b> DecodedRecord<'a, 'b> {
    /// The fields of the layout's field list.
    #[inline]
    pub fn fixed(&self) -> FieldValues<'a, 'b> {
        FieldValues {
            bytes: self.rec,
            fields: self.dec.fields,
            vals: &self.dec.vals[..self.dec.fields.len()],
            absent: self.dec.absent,
        }
    }

    /// Number of fields of the fixed part.
    #[inline]
    pub fn len(&self) -> usize {
        self.dec.fields.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.dec.fields.is_empty()
    }

    /// The fixed part's slots ([`FieldValues::values`]).
    #[inline]
    pub fn values(&self) -> &'b [u64] {
        &self.dec.vals[..self.dec.fields.len()]
    }

    /// Absent fields of the fixed part.
    #[inline]
    pub fn absent(&self) -> usize {
        self.dec.absent
    }

    /// Field `i` of the fixed part ([`FieldValues::get`]).
    #[inline]
    pub fn get(&self, i: usize) -> Option<ValueRef<'a>> {
        self.fixed().get(i)
    }

    /// Number of repeating-group entries ([`group_entries`](super::group_entries)).
    #[inline]
    pub fn entry_count(&self) -> usize {
        self.dec.group.entries
    }

    /// Entry `e` of the repeating group (`None` past the last).
    #[inline]
    pub fn entry(&self, e: usize) -> Option<FieldValues<'a, 'b>> {
        let g = &self.dec.group;
        if e >= g.entries {
            return None;
        }
        let gn = g.fields.len();
        let at = g.start + e * g.entry_len;
        Some(FieldValues {
            bytes: &self.rec[at..at + g.entry_len],
            fields: g.fields,
            vals: &self.dec.group_vals[e * gn..(e + 1) * gn],
            absent: g.absent_per_entry,
        })
    }

    /// The repeating group's entries, in order.
    pub fn entries(&self) -> impl Iterator<Item = FieldValues<'a, 'b>> + '_ {
        (0..self.dec.group.entries).filter_map(|e| self.entry(e))
    }

    /// Every entry's slots, entry after entry (`entry_count() * fields` slots).
    #[inline]
    pub fn group_values(&self) -> &'b [u64] {
        let g = &self.dec.group;
        &self.dec.group_vals[..g.entries * g.fields.len()]
    }

    /// Absent fields in all the entries together (entries shorter than their
    /// field list).
    #[inline]
    pub fn group_absent(&self) -> usize {
        self.dec.group.entries * self.dec.group.absent_per_entry
    }
}

#[cfg(test)]
mod tests;
