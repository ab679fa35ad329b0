//! Counter deltas between two samples of one key (spec sections 1, 5 and 9).
//!
//! * 16- and 32-bit counters (U2/S2, U4/S4, and U1) wrap: a decrease adds 2^bits.
//! * A 64-bit time (U8, S8, TOD, duration) that falls below half its previous
//!   value was reset: the key's whole sample becomes a new baseline. A smaller
//!   step back is a glitch in the data and counts as no increase.
//! * `SYTPRP_PFXPRBTM` counts down from X'7FFFFFFF00000000'.
//! * T is the time between the key's two samples (MRHDRTOD); a key's first
//!   sample, a sample whose previous one is not in the immediately preceding
//!   sample set, or one of another generation (logon, vary on, a new logon
//!   time) only sets a baseline.
//! * Plausibility: a counter that rose by more than its field can in T
//!   (a time in TOD units, [`Rule::time`], by more than 64 processors' worth,
//!   [`MAX_TIME_PER_S`]; another counter by more than [`MAX_COUNT_PER_S`] per
//!   second) is damage no structural check sees (a flipped bit): the
//!   sample is [`IMPLAUSIBLE`], gives no delta, and the key's next sample is a
//!   new baseline. A reset in any field of the sample decides over that: the
//!   sample is then the new baseline (its counters are of a new generation).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use ztwin_monitor::layout::{FieldDef, FieldType};

/// TOD clock units per second (bit 51 = 1 microsecond).
pub const TOD_PER_S: u64 = 4096 * 1_000_000;
/// Where SYTPRP_PFXPRBTM starts counting down.
pub const DOWN_START: i128 = 0x7FFF_FFFF_0000_0000;

/// 2^bits for a counter that wraps; `None` for 64-bit fields (a decrease is a
/// reset, not a wrap).
pub fn wrap_modulus(ty: FieldType) -> Option<i128> {
    match ty {
        FieldType::U1 => Some(1 << 8),
        FieldType::U2 | FieldType::S2 => Some(1 << 16),
        FieldType::U4 | FieldType::S4 => Some(1 << 32),
        _ => None,
    }
}

/// `a < b / 2` with `b / 2` rounded to a double first, as Python compares an
/// int with the float `b / 2`.
fn lt_half(a: i128, b: i128) -> bool {
    let half = (b as f64) / 2.0;
    cmp_int_float(a, half) == std::cmp::Ordering::Less
}

/// Exact comparison of an integer with a double (Python's int/float rule).
fn cmp_int_float(a: i128, f: f64) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let fl = f.floor();
    // |f| < 2^100 here: the floor converts exactly.
    let fi = fl as i128;
    match a.cmp(&fi) {
        Ordering::Equal => {
            if f > fl {
                Ordering::Less
            } else {
                Ordering::Equal
            }
        }
        o => o,
    }
}

/// The increase of a cumulative counter from `prev` to `cur`; `None` when a
/// 64-bit time was reset.
pub fn counter_delta(prev: i128, cur: i128, modulus: Option<i128>, down: bool) -> Option<i128> {
    let d = if down { prev - cur } else { cur - prev };
    if d >= 0 {
        return Some(d);
    }
    if let Some(m) = modulus {
        return Some(d.rem_euclid(m));
    }
    if down {
        // reset when it rose by more than half of what it had counted down
        let half = ((DOWN_START - prev) as f64) / 2.0;
        let rose = cur - prev;
        return if cmp_int_float(rose, half) == std::cmp::Ordering::Greater {
            None
        } else {
            Some(0)
        };
    }
    if lt_half(cur, prev) {
        None
    } else {
        Some(0)
    }
}

/// A small, fast hasher for the kernel's integer keys (the Fx hash of the
/// Rust compiler): keys are not attacker-controlled record contents that
/// could be chosen to collide at scale, and SipHash was a tenth of the time.
#[derive(Default, Clone, Copy)]
pub struct Fx(u64);

const FX_K: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for Fx {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(b));
        }
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(FX_K);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64)
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64)
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64)
    }
    #[inline]
    fn write_i64(&mut self, i: i64) {
        self.write_u64(i as u64)
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A hash map with the [`Fx`] hasher.
pub type Map<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

/// An integer as a double (exact below 2^53), without the slow 128-bit path.
#[inline(always)]
pub fn to_f64(v: i128) -> f64 {
    if v == v as i64 as i128 {
        v as i64 as f64
    } else {
        wide_to_f64(v)
    }
}

// Not inlined: otherwise the optimizer folds both branches of `to_f64` into
// the slow 128-bit conversion.
#[cold]
#[inline(never)]
fn wide_to_f64(v: i128) -> f64 {
    v as f64
}

/// `v / d` correctly rounded to a double, as Python's `int / int` gives it
/// (for |v| below 2^53 a double division is exact-then-rounded already; above,
/// converting `v` first would round twice).
pub fn div_int(v: i128, d: i128) -> f64 {
    const EXACT: i128 = 1 << 53;
    if v.abs() < EXACT && d.abs() < EXACT {
        // through i64: an i128 to double conversion is a slow library call
        return (v as i64) as f64 / (d as i64) as f64;
    }
    let neg = (v < 0) != (d < 0);
    let r = div_round(v.unsigned_abs(), d.unsigned_abs());
    if neg {
        -r
    } else {
        r
    }
}

/// Correctly rounded (half to even) `v / d` for `v < 2^70`, `0 < d < 2^57`.
fn div_round(v: u128, d: u128) -> f64 {
    if v == 0 || d == 0 {
        return v as f64 / d as f64;
    }
    let q = v / d;
    let (m, sticky, exp): (u128, bool, i32) = if q == 0 {
        // v < d: scale v up until the quotient has 55 bits
        let vb = 128 - v.leading_zeros() as i32;
        let db = 128 - d.leading_zeros() as i32;
        let sh = 55 + db - vb;
        let vv = v << sh;
        (vv / d, vv % d != 0, -sh)
    } else {
        let nb = 128 - q.leading_zeros() as i32;
        if nb >= 55 {
            let sh = nb - 55;
            let rest = q & ((1u128 << sh) - 1);
            (q >> sh, rest != 0 || v % d != 0, sh)
        } else {
            let sh = 55 - nb;
            let vv = v << sh;
            (vv / d, vv % d != 0, -sh)
        }
    };
    // m has 55 (or 56) bits: keep 53, round on the rest with the sticky bit
    let extra = (128 - m.leading_zeros() as i32) - 53;
    let (m53, guard_bits) = (m >> extra, m & ((1u128 << extra) - 1));
    let half = 1u128 << (extra - 1);
    let up = guard_bits > half || (guard_bits == half && (sticky || m53 & 1 == 1));
    let m53 = if up { m53 + 1 } else { m53 };
    (m53 as f64) * 2f64.powi(exp + extra)
}

/// The most a time counter in TOD units can grow per second: 64 processors'
/// worth (no key of the monitor records, a logical CPU, a user's virtual CPU
/// or a partition, runs on more), with 5% for clock jitter.
pub const MAX_TIME_PER_S: f64 = 64.0 * 1.05 * TOD_PER_S as f64;
/// The most another cumulative counter (I/Os, pages, samples, 128 µs units of
/// device time) can grow per second for one key: far above any real rate (a
/// DASD subchannel does tens of thousands of I/Os per second), far below what
/// a flipped high bit of a 32-bit counter gives.
pub const MAX_COUNT_PER_S: f64 = 5.0e6;

/// The most fields one tracker differences (one presence bit each).
pub const MAX_FIELDS: usize = 64;

/// Bit flipped in a 64-bit unsigned field's stored value ([`Rule::wide`]).
const BIAS: i64 = i64::MIN;

/// How one tracked field is differenced.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    pub modulus: Option<i128>,
    pub down: bool,
    /// A time in TOD units (its plausible rise is [`MAX_TIME_PER_S`], else
    /// [`MAX_COUNT_PER_S`]).
    pub time: bool,
    /// A 64-bit unsigned field (U8, TOD, duration): its [`Sample`] value is
    /// the unsigned value with the top bit flipped, so that `i64` order is
    /// the unsigned order and a difference is exact in wrapping arithmetic.
    pub wide: bool,
}

impl Rule {
    pub fn of(f: Option<&FieldDef>, down: bool) -> Rule {
        let ty = f.map(|f| f.ty);
        Rule {
            modulus: f.and_then(|f| wrap_modulus(f.ty)),
            down,
            time: matches!(ty, Some(FieldType::Tod) | Some(FieldType::Dur)),
            wide: matches!(
                ty,
                Some(FieldType::U8) | Some(FieldType::Tod) | Some(FieldType::Dur)
            ),
        }
    }

    /// The field's value as an integer from its stored [`Sample`] value.
    #[inline]
    pub fn value(&self, stored: i64) -> i128 {
        if self.wide {
            unbias(stored) as i128
        } else {
            stored as i128
        }
    }

    /// The stored value of an integer `v` of the field (the inverse of
    /// [`Rule::value`] for values the field can hold).
    #[inline]
    pub fn store(&self, v: i128) -> i64 {
        if self.wide {
            (v as u64 as i64) ^ BIAS
        } else {
            v as i64
        }
    }
}

/// The rules of a tracker's fields, with the bits of its times and of its
/// fields that count down (bit `i` for field `i`), so that differencing does
/// not read a [`Rule`] per field.
#[derive(Clone, Copy, Debug)]
pub struct Rules<'a> {
    pub all: &'a [Rule],
    time: u64,
    down: u64,
}

impl<'a> Rules<'a> {
    pub fn new(all: &'a [Rule]) -> Rules<'a> {
        let mut time = 0;
        let mut down = 0;
        for (i, r) in all.iter().enumerate().take(MAX_FIELDS) {
            time |= (r.time as u64) << i;
            down |= (r.down as u64) << i;
        }
        Rules { all, time, down }
    }

    /// The rules of fields `range` (field `range.start` becomes field 0).
    #[inline]
    pub fn range(self, range: std::ops::Range<usize>) -> Rules<'a> {
        let sh = |m: u64| m.checked_shr(range.start as u32).unwrap_or(0);
        Rules {
            all: &self.all[range.clone()],
            time: sh(self.time),
            down: sh(self.down),
        }
    }

    /// The rules of the fields from `start` on.
    #[inline]
    pub fn from(self, start: usize) -> Rules<'a> {
        self.range(start..self.all.len())
    }
}

/// A 64-bit unsigned field's value from its stored form (the top bit
/// flipped back: [`stored`]).
#[inline(always)]
pub fn unbias(stored: i64) -> u64 {
    (stored ^ BIAS) as u64
}

/// A numeric field as a [`Sample`] stores it (the encoding [`Rule::of`] the
/// same field decodes): 64-bit unsigned fields (U8, TOD, duration) with the
/// top bit flipped, every other numeric field as its value (all fit an
/// `i64`). `None` when absent or not numeric.
#[inline(always)]
pub fn stored(rec: &[u8], f: Option<&FieldDef>) -> Option<i64> {
    #[inline(always)]
    fn be<const N: usize>(rec: &[u8], off: usize) -> Option<[u8; N]> {
        rec.get(off..off + N)
            .map(|b| b.try_into().unwrap_or([0; N]))
    }
    let f = f?;
    let off = f.offset as usize;
    Some(match f.ty {
        FieldType::U4 => u32::from_be_bytes(be(rec, off)?) as i64,
        FieldType::U8 | FieldType::Tod | FieldType::Dur => i64::from_be_bytes(be(rec, off)?) ^ BIAS,
        FieldType::U1 => *rec.get(off)? as i64,
        FieldType::U2 => u16::from_be_bytes(be(rec, off)?) as i64,
        FieldType::S2 => i16::from_be_bytes(be(rec, off)?) as i64,
        FieldType::S4 => i32::from_be_bytes(be(rec, off)?) as i64,
        FieldType::S8 => i64::from_be_bytes(be(rec, off)?),
        FieldType::Char(_) | FieldType::Bits(_) | FieldType::VarText { .. } => return None,
    })
}

/// How a [`Plan`] reads one numeric field: the big-endian 8 bytes at `at`
/// (the 8 that end where the field ends, or the record's first 8 for a
/// field that ends before byte 8), shifted left by `shl` (the field's first
/// byte to the top), right arithmetically by `sar` (to the field's width,
/// sign extended), then `& mask` (an unsigned field narrower than 8 bytes:
/// its width's bits; 0 for an absent field) and `^ xor` (a 64-bit unsigned
/// field's flipped top bit, [`stored`]): what [`stored`] gives, without a
/// match on the field's type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FieldStep {
    at: u16,
    shl: u8,
    sar: u8,
    mask: i64,
    xor: i64,
}

impl FieldStep {
    /// An absent field: 0.
    const ABSENT: FieldStep = FieldStep {
        at: 0,
        shl: 0,
        sar: 0,
        mask: 0,
        xor: 0,
    };

    /// The step of `f` and the end of its bytes (`None` when absent or not
    /// a number).
    fn of(f: Option<&FieldDef>) -> (FieldStep, Option<usize>) {
        let Some(f) = f else {
            return (FieldStep::ABSENT, None);
        };
        let (signed, xor) = match f.ty {
            FieldType::U1 | FieldType::U2 | FieldType::U4 => (false, 0),
            FieldType::U8 | FieldType::Tod | FieldType::Dur => (true, BIAS),
            FieldType::S2 | FieldType::S4 | FieldType::S8 => (true, 0),
            FieldType::Char(_) | FieldType::Bits(_) | FieldType::VarText { .. } => {
                return (FieldStep::ABSENT, None)
            }
        };
        let (off, w) = (f.offset as usize, f.ty.width());
        let end = off + w;
        let at = end.saturating_sub(8);
        let mask = if signed || w == 8 {
            -1
        } else {
            (1i64 << (8 * w)) - 1
        };
        (
            FieldStep {
                at: at as u16,
                shl: (8 * (off - at)) as u8,
                sar: (64 - 8 * w) as u8,
                mask,
                xor,
            },
            Some(end),
        )
    }

    /// The field's stored value in `rec` (at least `at + 8` bytes long).
    #[inline(always)]
    fn value(&self, rec: &[u8]) -> i64 {
        let at = self.at as usize;
        let b: [u8; 8] = rec[at..at + 8].try_into().unwrap_or([0; 8]);
        let x = i64::from_be_bytes(b);
        (((x << self.shl) >> self.sar) & self.mask) ^ self.xor
    }
}

/// A read plan of a list of field definitions in one layout: a [`FieldStep`]
/// per field, the bits of the fields that are numbers, and the record
/// length that holds them all. Made once per layout and name list
/// ([`crate::fields::Resolver`]), so that a sample is read by a straight
/// loop ([`Sample::read_plan`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    steps: Vec<FieldStep>,
    present: u64,
    need: u32,
}

/// Fields `range` of a [`Plan`] (field `range.start` becomes field 0).
#[derive(Clone, Copy, Debug)]
pub struct PlanRange<'a> {
    steps: &'a [FieldStep],
    present: u64,
    /// The plan's whole list's `need` (a record that long holds every field).
    need: u32,
}

impl Plan {
    pub fn of(defs: &[Option<&FieldDef>]) -> Plan {
        let mut steps = Vec::with_capacity(defs.len());
        let mut present = 0u64;
        // every step reads 8 bytes from `at` >= 0
        let mut need = 8usize;
        for (i, f) in defs.iter().enumerate() {
            let (s, end) = FieldStep::of(*f);
            steps.push(s);
            if let Some(end) = end {
                need = need.max(end);
                if i < MAX_FIELDS {
                    present |= 1 << i;
                }
            }
        }
        Plan {
            steps,
            present,
            // more fields than presence bits: never the straight loop
            need: if defs.len() > MAX_FIELDS {
                u32::MAX
            } else {
                need as u32
            },
        }
    }

    /// The whole plan as a range.
    #[inline]
    pub fn all(&self) -> PlanRange<'_> {
        PlanRange {
            steps: &self.steps,
            present: self.present,
            need: self.need,
        }
    }

    /// Fields `range` of the plan.
    #[inline]
    pub fn range(&self, range: std::ops::Range<usize>) -> PlanRange<'_> {
        let n = range.len();
        let low = if n >= 64 { !0 } else { (1u64 << n) - 1 };
        PlanRange {
            steps: &self.steps[range.clone()],
            present: self.present.checked_shr(range.start as u32).unwrap_or(0) & low,
            need: self.need,
        }
    }

    /// The fields from `start` on.
    #[inline]
    pub fn from(&self, start: usize) -> PlanRange<'_> {
        self.range(start..self.steps.len())
    }
}

/// One sample of a key's counters: a value per field ([`stored`]) and a bit
/// per field that is present (bit `i` for field `i`; at most [`MAX_FIELDS`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sample {
    pub v: Vec<i64>,
    pub present: u64,
}

impl Sample {
    /// The sample of `defs`' fields in `rec` (a field beyond
    /// [`MAX_FIELDS`] is absent).
    #[inline]
    pub fn read(&mut self, rec: &[u8], defs: &[Option<&FieldDef>]) {
        self.v.clear();
        self.v.resize(defs.len(), 0);
        let mut present = 0u64;
        for (i, (f, v)) in defs.iter().zip(self.v.iter_mut()).enumerate() {
            if let Some(x) = stored(rec, *f) {
                if i < MAX_FIELDS {
                    present |= 1 << i;
                    *v = x;
                }
            }
        }
        self.present = present;
    }

    /// [`Sample::read`] by a [`Plan`] of the same definitions (`plan` is
    /// [`Plan::of`]`(defs)`, or a [`Plan::range`] of the plan of a longer
    /// list that `defs` is the same range of): when the record holds every
    /// field of the plan's whole list, one straight loop without a type
    /// dispatch or a bound per field; otherwise (a record cut short)
    /// [`Sample::read`].
    #[inline]
    pub fn read_plan(&mut self, rec: &[u8], defs: &[Option<&FieldDef>], plan: PlanRange<'_>) {
        debug_assert_eq!(defs.len(), plan.steps.len());
        let Some(rec) = rec.get(..plan.need as usize) else {
            return self.read(rec, defs);
        };
        self.v.clear();
        self.v.extend(plan.steps.iter().map(|s| s.value(rec)));
        self.present = plan.present;
    }

    /// Field `i`'s stored value, `None` when absent.
    #[inline]
    pub fn get(&self, i: usize) -> Option<i64> {
        (i < MAX_FIELDS && self.present >> i & 1 == 1).then(|| self.v[i])
    }
}

/// A delta that is absent (either sample lacks the field). Deltas that are
/// given are in `0..=i64::MAX`: a larger rise is [`IMPLAUSIBLE`] in any T.
pub const ABSENT: i64 = i64::MIN;

/// A delta as an option ([`ABSENT`] is `None`).
#[inline(always)]
pub fn given(d: i64) -> Option<i64> {
    (d != ABSENT).then_some(d)
}

/// A delta as a double (`None` when [`ABSENT`]).
#[inline(always)]
pub fn delta_f64(d: i64) -> Option<f64> {
    (d != ABSENT).then_some(d as f64)
}

/// A delta of a time in TOD units as seconds, correctly rounded (`None`
/// when [`ABSENT`]).
#[inline(always)]
pub fn delta_seconds(d: i64) -> Option<f64> {
    (d != ABSENT).then(|| tod_seconds(d))
}

/// `d` TOD units as seconds, what [`div_int`] gives (below 2^53 one double
/// division, without its 128-bit tests).
#[inline(always)]
pub fn tod_seconds(d: i64) -> f64 {
    if (d as u64) < 1 << 53 {
        d as f64 / TOD_PER_S as f64
    } else {
        div_int(d as i128, TOD_PER_S as i128)
    }
}

struct Prev<G> {
    seq: u64,
    tod: u64,
    gen: G,
    vals: Sample,
    /// False once the key's sample was implausible: no base to difference
    /// against (as if the key had never been seen).
    live: bool,
}

/// A key's slot in its [`Tracker`] as the caller last saw it (the kernel
/// keeps one per user and record), so that the next sample of the key
/// finds its previous one by one comparison instead of a hash lookup.
/// [`NO_HINT`] (or any stale value) falls back to the lookup.
pub type Hint = u32;

/// A [`Hint`] that holds no slot.
pub const NO_HINT: Hint = u32::MAX;

/// Previous samples of one record family's counters, per key.
pub struct Tracker<K, G> {
    /// Each key's slot in `slots` (slots are never removed).
    index: Map<K, u32>,
    slots: Vec<(K, Prev<G>)>,
    /// Why the last [`Tracker::delta`] gave nothing: [`RESET`], [`BASELINE`]
    /// or [`IMPLAUSIBLE`].
    pub why: u8,
    /// For [`IMPLAUSIBLE`]: the field (index into the rules) and its rise per
    /// second.
    pub bad: (usize, f64),
    /// The limits of the last T differenced (the bits of T in seconds, the
    /// most a time and another counter can rise in it): the keys of a set
    /// mostly share their T, so the two conversions are made once.
    lims: (u64, i64, i64),
}

impl<K: Hash + Eq + Clone, G: PartialEq> Default for Tracker<K, G> {
    fn default() -> Self {
        Tracker {
            index: Map::default(),
            slots: Vec::new(),
            why: 0,
            bad: (0, 0.0),
            lims: (f64::NAN.to_bits(), 0, 0),
        }
    }
}

/// What [`Tracker::delta`] returns: T in seconds and one delta per field
/// ([`ABSENT`] where either sample lacks the field).
pub struct Delta<'a> {
    pub seconds: f64,
    pub d: &'a [i64],
    /// [`WRAPPED`] and [`GLITCH`] bits of this sample.
    pub flags: u8,
}

/// Per-sample flags (the `flags` column of the interval tables).
/// A 16- or 32-bit counter decreased and was taken as a wrap.
pub const WRAPPED: u8 = 1;
/// A 64-bit time stepped back by less than half: taken as no increase.
pub const GLITCH: u8 = 2;
/// A key's 64-bit time was reset: its sample only set a new baseline.
pub const RESET: u8 = 4;
/// A key's sample only set a baseline: its first, one after a set without
/// it, or one of a new generation (logon, vary on).
pub const BASELINE: u8 = 8;
/// A key's sample rose by more than its fields can ([`MAX_TIME_PER_S`],
/// [`MAX_COUNT_PER_S`]) or
/// gave figures that cannot be (a device more than 100% busy): left out of
/// every sum, and the key's next sample is a new baseline.
pub const IMPLAUSIBLE: u8 = 16;

/// What differencing one field gave.
enum Step {
    /// The delta of a counter that fell (a wrap or a glitch).
    Rose(i64),
    /// It rose by more than `lim`: the rise.
    Over(f64),
    /// A 64-bit time was reset.
    Reset,
}

/// A field whose counter fell (or, counting down, rose): [`counter_delta`]
/// on the values, as the rules have it.
#[cold]
#[inline(never)]
fn fell(r: &Rule, pv: i64, c: i64, lim: i64) -> Step {
    match counter_delta(r.value(pv), r.value(c), r.modulus, r.down) {
        Some(d) if d > lim as i128 => Step::Over(to_f64(d)),
        // d <= lim <= i64::MAX
        Some(d) => Step::Rose(d as i64),
        None => Step::Reset,
    }
}

/// Every field's difference into `o` as if it rose by at most its limit:
/// stored values compare in the fields' own order, and the difference of
/// an ordered pair is exact as a u64. The bits of the fields that fell (or,
/// counting down, rose) or rose by more than their limit are returned.
/// `DOWN`: some field counts down (else none is looked at).
#[inline(always)]
fn scan<const DOWN: bool>(
    cv: &[i64],
    pvv: &[i64],
    o: &mut [i64],
    rules: Rules<'_>,
    lim_time: i64,
    lim_count: i64,
) -> u64 {
    let mut slow = 0u64;
    for (i, ((&c, &pv), o)) in cv.iter().zip(pvv).zip(o.iter_mut()).enumerate() {
        let (hi, lo) = if DOWN && rules.down >> i & 1 != 0 {
            (pv, c)
        } else {
            (c, pv)
        };
        let lim = if rules.time >> i & 1 != 0 {
            lim_time
        } else {
            lim_count
        };
        let d = hi.wrapping_sub(lo);
        *o = d;
        slow |= ((hi < lo || d as u64 > lim as u64) as u64) << i;
    }
    slow
}

impl<K: Hash + Eq + Clone, G: PartialEq> Tracker<K, G> {
    /// `key`'s slot: `hint` when it holds the key, else by the index (and
    /// `hint` set to it).
    #[inline]
    fn find(&self, key: &K, hint: &mut Hint) -> Option<usize> {
        let h = *hint as usize;
        if h < self.slots.len() && self.slots[h].0 == *key {
            return Some(h);
        }
        let i = *self.index.get(key)?;
        *hint = i;
        Some(i as usize)
    }

    /// Store a sample without differencing (outside the window). The
    /// sample is taken: `cur` is left holding another one's buffer.
    pub fn note(&mut self, key: K, seq: u64, tod: u64, gen: G, cur: &mut Sample) {
        let mut h = NO_HINT;
        self.note_at(&mut h, key, seq, tod, gen, cur)
    }

    /// [`Tracker::note`] with the key's [`Hint`].
    pub fn note_at(
        &mut self,
        hint: &mut Hint,
        key: K,
        seq: u64,
        tod: u64,
        gen: G,
        cur: &mut Sample,
    ) {
        match self.find(&key, hint) {
            Some(i) => {
                let p = &mut self.slots[i].1;
                p.seq = seq;
                p.tod = tod;
                p.gen = gen;
                p.live = true;
                std::mem::swap(&mut p.vals, cur);
            }
            None => {
                let i = self.slots.len() as u32;
                self.index.insert(key.clone(), i);
                *hint = i;
                self.slots.push((
                    key,
                    Prev {
                        seq,
                        tod,
                        gen,
                        vals: std::mem::take(cur),
                        live: true,
                    },
                ));
            }
        }
    }

    /// The deltas from the key's previous sample when it is in the preceding
    /// set (`seq - 1`) and of the same generation; the sample is stored as the
    /// new previous one either way (taken, as [`Tracker::note`] takes it).
    /// `out` receives the deltas.
    #[allow(clippy::too_many_arguments)]
    pub fn delta<'o>(
        &mut self,
        key: K,
        seq: u64,
        tod: u64,
        gen: G,
        cur: &mut Sample,
        rules: Rules<'_>,
        out: &'o mut Vec<i64>,
    ) -> Option<Delta<'o>> {
        let mut h = NO_HINT;
        self.delta_at(&mut h, key, seq, tod, gen, cur, rules, out)
    }

    /// [`Tracker::delta`] with the key's [`Hint`].
    #[allow(clippy::too_many_arguments)]
    pub fn delta_at<'o>(
        &mut self,
        hint: &mut Hint,
        key: K,
        seq: u64,
        tod: u64,
        gen: G,
        cur: &mut Sample,
        rules: Rules<'_>,
        out: &'o mut Vec<i64>,
    ) -> Option<Delta<'o>> {
        out.clear();
        self.why = BASELINE;
        let p = match self.find(&key, hint) {
            Some(i) if self.slots[i].1.live => &mut self.slots[i].1,
            _ => {
                self.note_at(hint, key, seq, tod, gen, cur);
                return None;
            }
        };
        let ok = p.seq + 1 == seq && p.gen == gen;
        let prev_tod = p.tod;
        let mut result = ok;
        let mut flags = 0u8;
        let mut seconds = 0.0;
        if ok {
            seconds = if tod >= prev_tod {
                tod_seconds((tod - prev_tod) as i64)
            } else {
                div_int(tod as i128 - prev_tod as i128, TOD_PER_S as i128)
            };
            if seconds <= 0.0 {
                result = false;
            } else {
                // The most a field can rise in T (d > max x T, exactly: d is
                // an integer). Both are in 0..=i64::MAX.
                let (lim_time, lim_count) = if self.lims.0 == seconds.to_bits() {
                    (self.lims.1, self.lims.2)
                } else {
                    let l = (
                        (MAX_TIME_PER_S * seconds) as i64,
                        (MAX_COUNT_PER_S * seconds) as i64,
                    );
                    self.lims = (seconds.to_bits(), l.0, l.1);
                    l
                };
                let n = cur.v.len().min(p.vals.v.len()).min(rules.all.len());
                out.resize(n, ABSENT);
                let m = n.min(MAX_FIELDS);
                let (cv, pvv, o) = (&cur.v[..m], &p.vals.v[..m], &mut out[..m]);
                // Every field as if it rose by at most its limit: stored
                // values compare in the fields' own order, and the difference
                // of an ordered pair is exact as a u64. A field that fell
                // (or counting down, rose) or rose by more is marked for the
                // rules below.
                let slow = if rules.down == 0 {
                    scan::<false>(cv, pvv, o, rules, lim_time, lim_count)
                } else {
                    scan::<true>(cv, pvv, o, rules, lim_time, lim_count)
                };
                let all = if m == 64 { !0 } else { (1u64 << m) - 1 };
                let both = cur.present & p.vals.present & all;
                let mut absent = !both & all;
                while absent != 0 {
                    o[absent.trailing_zeros() as usize] = ABSENT;
                    absent &= absent - 1;
                }
                // The marked fields in order: a reset anywhere makes the
                // sample a new baseline (its counters are of another
                // generation, so no rise against the old sample means
                // anything); otherwise the first that rose too much makes it
                // implausible; a wrap or a glitch flags the sample.
                let mut slow = slow & both;
                let mut over: Option<(usize, f64)> = None;
                while slow != 0 {
                    let i = slow.trailing_zeros() as usize;
                    slow &= slow - 1;
                    let r = &rules.all[i];
                    let (c, pv) = (cv[i], pvv[i]);
                    let lim = if r.time { lim_time } else { lim_count };
                    let (hi, lo) = if r.down { (pv, c) } else { (c, pv) };
                    let step = if hi >= lo {
                        Step::Over(hi.wrapping_sub(lo) as u64 as f64)
                    } else {
                        fell(r, pv, c, lim)
                    };
                    match step {
                        Step::Rose(d) => {
                            flags |= if r.modulus.is_some() { WRAPPED } else { GLITCH };
                            o[i] = d;
                        }
                        Step::Over(d) => {
                            over.get_or_insert((i, d / seconds));
                        }
                        Step::Reset => {
                            result = false;
                            self.why = RESET;
                            over = None;
                            break;
                        }
                    }
                }
                if let Some(bad) = over {
                    self.bad = bad;
                    result = false;
                    self.why = IMPLAUSIBLE;
                }
            }
        }
        if self.why == IMPLAUSIBLE {
            // Neither this sample nor the one before it is a base to
            // difference the next one against.
            p.live = false;
            return None;
        }
        p.seq = seq;
        p.tod = tod;
        p.gen = gen;
        std::mem::swap(&mut p.vals, cur);
        if !result {
            return None;
        }
        self.why = 0;
        Some(Delta {
            seconds,
            d: out,
            flags,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_resets_and_counting_down() {
        assert_eq!(counter_delta(65000, 64, Some(1 << 16), false), Some(600));
        assert_eq!(
            counter_delta((1 << 32) - 100, 500, Some(1 << 32), false),
            Some(600)
        );
        assert_eq!(counter_delta(100, 350, Some(1 << 32), false), Some(250));
        assert_eq!(counter_delta(10_000, 20, None, false), None);
        assert_eq!(counter_delta(10_000, 9_990, None, false), Some(0));
        let s = DOWN_START;
        assert_eq!(counter_delta(s - 500, s - 800, None, true), Some(300));
        assert_eq!(counter_delta(s - 5000, s - 10, None, true), None);
        // a glitch upwards that is less than half of what was counted
        assert_eq!(counter_delta(s - 5000, s - 4000, None, true), Some(0));
    }

    #[test]
    fn integer_division_is_correctly_rounded() {
        // the values Python's int / int gives (float.hex)
        let d = TOD_PER_S as i128;
        for (v, want) in [
            ((1i128 << 60) + 12345, 281474976.710659),
            ((1i128 << 53) + 1, 2199023.2555520004),
            (1_152_921_504_606_846_975, 281474976.710656),
            (9_007_199_254_740_993 * 4096, 9007199254.740993),
            ((1i128 << 64) - 1, 4503599627.370496),
            (-(1i128 << 60) - 7, -281474976.710656),
            (123_456_789_012_345_678_901, 30140817629.967205),
        ] {
            assert_eq!(div_int(v, d), want, "{v}");
        }
        assert_eq!(div_int(6, 4), 1.5);
        for v in [
            0i64,
            1,
            4095,
            1 << 52,
            (1 << 53) - 1,
            1 << 53,
            (1 << 53) + 1,
            (1 << 60) + 12345,
            i64::MAX,
        ] {
            assert_eq!(tod_seconds(v), div_int(v as i128, d), "{v}");
        }
        assert_eq!(div_int(1 << 60, 1 << 3), (1u64 << 57) as f64);
        // ties go to even: (2^54 + 2) / 2 = 2^53 + 1 -> 2^53 (even)
        assert_eq!(div_int((1i128 << 54) + 2, 2), 9_007_199_254_740_992.0);
        assert_eq!(div_int((1i128 << 54) + 6, 2), 9_007_199_254_740_996.0);
    }

    /// Rules of a 32-bit counter and a 64-bit time.
    fn rule(modulus: Option<i128>, time: bool) -> Rule {
        Rule {
            modulus,
            down: false,
            time,
            wide: time,
        }
    }

    /// A sample of integer values as the tracker stores them under `rules`.
    fn sample(rules: &[Rule], vals: &[Option<i128>]) -> Sample {
        let mut s = Sample::default();
        for (i, (r, v)) in rules.iter().zip(vals).enumerate() {
            match v {
                Some(v) => {
                    s.present |= 1 << i;
                    s.v.push(r.store(*v));
                }
                None => s.v.push(0),
            }
        }
        s
    }

    fn opts(d: &[i64]) -> Vec<Option<i128>> {
        d.iter().map(|&x| given(x).map(i128::from)).collect()
    }

    #[test]
    fn baselines_generations_and_sets() {
        let mut t: Tracker<u32, u32> = Tracker::default();
        let rules = [rule(Some(1 << 32), false)];
        let v = |x: Option<i128>| sample(&rules, &[x]);
        let mut out = Vec::new();
        let s = TOD_PER_S;
        assert!(t
            .delta(
                1,
                1,
                60 * s,
                0,
                &mut v(Some(10)),
                Rules::new(&rules),
                &mut out
            )
            .is_none());
        let d = t
            .delta(
                1,
                2,
                120 * s,
                0,
                &mut v(Some(25)),
                Rules::new(&rules),
                &mut out,
            )
            .unwrap();
        assert_eq!((d.seconds, d.d[0]), (60.0, 15));
        // a set without the key in between: baseline
        assert!(t
            .delta(
                1,
                4,
                240 * s,
                0,
                &mut v(Some(30)),
                Rules::new(&rules),
                &mut out
            )
            .is_none());
        // another generation: baseline
        assert!(t
            .delta(
                1,
                5,
                300 * s,
                1,
                &mut v(Some(40)),
                Rules::new(&rules),
                &mut out
            )
            .is_none());
        let d = t
            .delta(1, 6, 360 * s, 1, &mut v(None), Rules::new(&rules), &mut out)
            .unwrap();
        assert_eq!(d.d[0], ABSENT);
        assert_eq!(given(d.d[0]), None);
    }

    #[test]
    fn implausible_rises_give_nothing_and_a_new_baseline() {
        let mut t: Tracker<u32, u32> = Tracker::default();
        let rules = [rule(Some(1 << 32), false), rule(None, true)];
        let v = |a: i128, b: u64| sample(&rules, &[Some(a), Some((b * TOD_PER_S) as i128)]);
        let mut out = Vec::new();
        let s = TOD_PER_S;
        t.delta(1, 1, 60 * s, 0, &mut v(10, 0), Rules::new(&rules), &mut out);
        // 60 s: a CPU time of 60 x 64 processors is the most; 3 hours is not
        assert!(t
            .delta(
                1,
                2,
                120 * s,
                0,
                &mut v(20, 3 * 3600),
                Rules::new(&rules),
                &mut out
            )
            .is_none());
        assert_eq!((t.why, t.bad.0), (IMPLAUSIBLE, 1));
        // the next sample only sets a baseline, the one after it counts again
        assert!(t
            .delta(
                1,
                3,
                180 * s,
                0,
                &mut v(30, 3600),
                Rules::new(&rules),
                &mut out
            )
            .is_none());
        assert_eq!(t.why, BASELINE);
        let d = t
            .delta(
                1,
                4,
                240 * s,
                0,
                &mut v(40, 3660),
                Rules::new(&rules),
                &mut out,
            )
            .unwrap();
        assert_eq!(d.d, [10, (60 * s) as i64]);
        // a flipped high bit of a 32-bit counter (2^31 in 60 s)
        assert!(t
            .delta(
                1,
                5,
                300 * s,
                0,
                &mut v(40 + (1 << 31), 3720),
                Rules::new(&rules),
                &mut out
            )
            .is_none());
        assert_eq!((t.why, t.bad.0), (IMPLAUSIBLE, 0));
    }

    /// A sample with one field rising too much and a later one reset is a
    /// new baseline (the reset decides, whatever the fields' order): the next
    /// sample counts against it, as the Python reference does.
    #[test]
    fn a_reset_decides_over_an_implausible_rise() {
        let mut t: Tracker<u32, u32> = Tracker::default();
        // a 32-bit counter first, then a 64-bit time
        let rules = [rule(Some(1 << 32), false), rule(None, true)];
        let v = |a: i128, b: i128| sample(&rules, &[Some(a), Some(b)]);
        let mut out = Vec::new();
        let s = TOD_PER_S;
        let r = Rules::new(&rules);
        t.delta(1, 1, 60 * s, 0, &mut v(10, 1 << 50), r, &mut out);
        // the counter rises by 2^31 in 60 s (too much) and the time falls to
        // a quarter (a reset)
        assert!(t
            .delta(
                1,
                2,
                120 * s,
                0,
                &mut v(10 + (1 << 31), 1 << 48),
                r,
                &mut out
            )
            .is_none());
        assert_eq!(t.why, RESET);
        let d = t
            .delta(
                1,
                3,
                180 * s,
                0,
                &mut v(20 + (1 << 31), (1 << 48) + 5),
                r,
                &mut out,
            )
            .unwrap();
        assert_eq!(d.d, [10, 5]);
    }

    /// `delta_at` gives what `delta` gives whatever the hint holds (none,
    /// the key's slot, another key's, out of range), through baselines, an
    /// implausible sample (the key's slot kept but dead, so that a second
    /// sample of the key in the same set is a baseline) and new keys; the
    /// hint ends on the key's slot.
    #[test]
    fn hints_change_nothing() {
        let rules = [rule(Some(1 << 32), false), rule(None, true)];
        let s = TOD_PER_S;
        let v = |a: i128, b: u64| sample(&rules, &[Some(a), Some((b * TOD_PER_S) as i128)]);
        let mut plain: Tracker<u32, u32> = Tracker::default();
        let mut hinted: Tracker<u32, u32> = Tracker::default();
        let (mut o1, mut o2) = (Vec::new(), Vec::new());
        let mut hints = [NO_HINT; 3];
        let mut samples = Vec::new();
        for seq in 1..40u64 {
            for key in 0..3u32 {
                if (seq + key as u64) % 7 == 0 {
                    continue; // a set without the key: its next sample is a baseline
                }
                if key == 1 && seq % 5 == 0 {
                    // 3 hours of CPU in 60 s, then a plausible sample
                    samples.push((seq, key, seq * 60 + 3 * 3600));
                }
                samples.push((seq, key, seq * 60));
            }
        }
        let mut why = [0usize; 32];
        let mut last = None;
        for (seq, key, cpu) in samples {
            let a = 10 * seq as i128;
            let rl = Rules::new(&rules);
            let tod = seq * 60 * s;
            let want = plain
                .delta(key, seq, tod, 0, &mut v(a, cpu), rl, &mut o1)
                .map(|d| (d.seconds, d.d.to_vec(), d.flags));
            let h = &mut hints[key as usize];
            match seq % 4 {
                0 => *h = NO_HINT,
                1 => *h = (key + 1) % 3, // another key's slot (or none yet)
                2 => *h = 1000,
                _ => {}
            }
            let rl = Rules::new(&rules);
            let got = hinted
                .delta_at(h, key, seq, tod, 0, &mut v(a, cpu), rl, &mut o2)
                .map(|d| (d.seconds, d.d.to_vec(), d.flags));
            assert_eq!(got, want, "key {key} set {seq}");
            assert_eq!((hinted.why, hinted.bad.0), (plain.why, plain.bad.0));
            assert_eq!(hinted.slots[*h as usize].0, key);
            if last == Some((seq, key, IMPLAUSIBLE)) {
                assert_eq!(hinted.why, BASELINE, "key {key} set {seq}");
            }
            last = Some((seq, key, hinted.why));
            why[hinted.why as usize] += 1;
        }
        assert_eq!(hinted.slots.len(), 3);
        assert!(why[0] > 50 && why[BASELINE as usize] > 10, "{why:?}");
        assert_eq!(why[IMPLAUSIBLE as usize], 5);
    }

    /// A sample read by a plan is the sample [`Sample::read`] gives: every
    /// layout's fields (numeric, character, bit strings, absent ones among
    /// them), whole, in ranges, and in records cut short at and around every
    /// field's start and end; lists longer than the presence bits.
    #[test]
    fn plan_reads_what_read_reads() {
        use ztwin_monitor::layout::LAYOUTS;
        let mut rec = vec![0u8; 4096];
        for (i, b) in rec.iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(151).wrapping_add(0x80);
        }
        let mut n = 0;
        for l in LAYOUTS.iter() {
            let mut defs: Vec<Option<&FieldDef>> = l.fields.iter().map(Some).collect();
            // an absent field first and between
            defs.insert(0, None);
            defs.insert(defs.len() / 2, None);
            for chunk in defs.chunks(40).chain([&defs[..defs.len().min(70)]]) {
                let plan = Plan::of(chunk);
                let mut cuts = vec![rec.len(), 0, 7, 8, 9];
                for f in chunk.iter().flatten() {
                    for c in [
                        f.offset as usize,
                        f.end().saturating_sub(1),
                        f.end(),
                        f.end() + 1,
                    ] {
                        cuts.push(c);
                    }
                }
                for cut in cuts {
                    let r = &rec[..cut.min(rec.len())];
                    let (mut a, mut b) = (Sample::default(), Sample::default());
                    a.read(r, chunk);
                    b.read_plan(r, chunk, plan.all());
                    assert_eq!(a, b, "{} cut {cut}", l.name);
                    let k = chunk.len();
                    for range in [1..k, k / 3..k, 0..k / 2, k / 2..k / 2] {
                        a.read(r, &chunk[range.clone()]);
                        b.read_plan(r, &chunk[range.clone()], plan.range(range.clone()));
                        assert_eq!(a, b, "{} cut {cut} {range:?}", l.name);
                    }
                    a.read(r, &chunk[1..]);
                    b.read_plan(r, &chunk[1..], plan.from(1));
                    assert_eq!(a, b, "{} cut {cut} from 1", l.name);
                    n += 1;
                }
            }
        }
        assert!(n > 1000, "{n}");
        // negative and high-bit values of every numeric type
        rec.fill(0xFF);
        for l in LAYOUTS.iter() {
            let defs: Vec<Option<&FieldDef>> = l.fields.iter().take(64).map(Some).collect();
            let (mut a, mut b) = (Sample::default(), Sample::default());
            a.read(&rec, &defs);
            b.read_plan(&rec, &defs, Plan::of(&defs).all());
            assert_eq!(a, b, "{}", l.name);
        }
    }

    /// The stored values keep each type's order and range: the extremes of
    /// every width read back as themselves and compare as the integers do.
    #[test]
    fn stored_values_keep_order_and_range() {
        use ztwin_monitor::layout::{Confidence, FieldDef};
        let types = [
            (FieldType::U1, 1usize, false),
            (FieldType::U2, 2, false),
            (FieldType::S2, 2, true),
            (FieldType::U4, 4, false),
            (FieldType::S4, 4, true),
            (FieldType::U8, 8, false),
            (FieldType::S8, 8, true),
            (FieldType::Tod, 8, false),
            (FieldType::Dur, 8, false),
        ];
        for (ty, w, signed) in types {
            let f = FieldDef {
                name: "X",
                offset: 0,
                ty,
                src: Confidence::Inferred,
            };
            let r = Rule::of(Some(&f), false);
            let bits = 8 * w as u32;
            let (lo, hi): (i128, i128) = if signed {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            } else {
                (0, (1i128 << bits) - 1)
            };
            let mut prev: Option<(i128, i64)> = None;
            for v in [lo, lo + 1, -1, 0, 1, hi / 2, hi / 2 + 1, hi - 1, hi] {
                if v < lo || v > hi {
                    continue;
                }
                let bytes = (v as u128).to_be_bytes();
                let rec = &bytes[16 - w..];
                let st = stored(rec, Some(&f)).unwrap();
                assert_eq!(r.value(st), v, "{ty:?} {v}");
                assert_eq!(r.store(v), st, "{ty:?} {v}");
                if let Some((pv, ps)) = prev {
                    assert_eq!(pv.cmp(&v), ps.cmp(&st), "{ty:?} {pv} {v}");
                }
                prev = Some((v, st));
                // cut short: absent
                assert_eq!(stored(&rec[..w - 1], Some(&f)), None);
            }
        }
    }

    /// The tracker's rules as they were on `Option<i128>` values (the
    /// reference the `i64` representation must agree with): the deltas and
    /// flags, or why there are none and (for [`IMPLAUSIBLE`]) the field and
    /// its rise per second.
    type RefOut = Result<(Vec<Option<i128>>, u8), (u8, usize, f64)>;

    fn reference(prev: &[Option<i128>], cur: &[Option<i128>], rules: &[Rule], t: f64) -> RefOut {
        let lim_time = (MAX_TIME_PER_S * t) as i64 as i128;
        let lim_count = (MAX_COUNT_PER_S * t) as i64 as i128;
        let mut out = Vec::new();
        let mut flags = 0;
        let mut over = None;
        for ((c, pv), r) in cur.iter().zip(prev).zip(rules) {
            let (Some(c), Some(pv)) = (c, pv) else {
                out.push(None);
                continue;
            };
            let lim = if r.time { lim_time } else { lim_count };
            match counter_delta(*pv, *c, r.modulus, r.down) {
                // A reset in any field decides over a rise too large in another.
                Some(d) if d > lim => {
                    over.get_or_insert((IMPLAUSIBLE, out.len(), to_f64(d) / t));
                    out.push(Some(d));
                }
                Some(d) => {
                    if if r.down { c > pv } else { c < pv } {
                        flags |= if r.modulus.is_some() { WRAPPED } else { GLITCH };
                    }
                    out.push(Some(d));
                }
                None => return Err((RESET, 0, 0.0)),
            }
        }
        match over {
            Some(e) => Err(e),
            None => Ok((out, flags)),
        }
    }

    /// Values near the edges: wraps at 2^8, 2^16, 2^32, a 64-bit counter at
    /// 2^64 - 1, signed extremes, the count-down start, resets (a fall below
    /// half), glitches (a smaller fall), absent fields.
    #[test]
    fn edges_agree_with_the_reference() {
        let u64max = u64::MAX as i128;
        let cases: [(Rule, &[i128]); 7] = [
            (
                Rule::of(None, false),
                &[0, 1, 255, 65535, 1 << 31, (1 << 32) - 1],
            ),
            (rule(Some(1 << 8), false), &[0, 1, 100, 254, 255]),
            (rule(Some(1 << 16), false), &[0, 1, 64, 65000, 65534, 65535]),
            (
                rule(Some(1 << 32), false),
                &[0, 1, 500, (1 << 32) - 100, (1 << 32) - 1],
            ),
            (
                rule(None, true),
                &[
                    0,
                    1,
                    1 << 40,
                    (1 << 63) - 1,
                    1 << 63,
                    u64max - 1000,
                    u64max - 1,
                    u64max,
                ],
            ),
            (
                Rule {
                    modulus: None,
                    down: true,
                    time: true,
                    wide: true,
                },
                &[
                    DOWN_START - 5000,
                    DOWN_START - 4000,
                    DOWN_START - 800,
                    DOWN_START - 10,
                    DOWN_START,
                    u64max,
                    0,
                ],
            ),
            (
                // S8: signed 64 bits, no wrap
                Rule {
                    modulus: None,
                    down: false,
                    time: false,
                    wide: false,
                },
                &[i64::MIN as i128, -1, 0, 1, 1 << 40, i64::MAX as i128],
            ),
        ];
        let mut n = 0;
        for (r, vals) in cases {
            let rules = [r];
            for &a in vals {
                for &b in vals {
                    for secs in [1u64, 60, 3600, 1 << 30] {
                        check(&rules, &[Some(a)], &[Some(b)], secs * TOD_PER_S);
                        n += 1;
                    }
                }
            }
            check(&rules, &[None], &[Some(vals[0])], 60 * TOD_PER_S);
            check(&rules, &[Some(vals[0])], &[None], 60 * TOD_PER_S);
        }
        assert!(n > 500, "{n}");
    }

    /// One key's two samples `t` TOD units apart through the tracker, against
    /// the reference.
    fn check(rules: &[Rule], prev: &[Option<i128>], cur: &[Option<i128>], t: u64) {
        let mut tr: Tracker<u32, ()> = Tracker::default();
        let mut out = Vec::new();
        let t0 = 1000 * TOD_PER_S;
        assert!(tr
            .delta(
                7,
                1,
                t0,
                (),
                &mut sample(rules, prev),
                Rules::new(rules),
                &mut out
            )
            .is_none());
        let got = tr.delta(
            7,
            2,
            t0 + t,
            (),
            &mut sample(rules, cur),
            Rules::new(rules),
            &mut out,
        );
        let seconds = div_int(t as i128, TOD_PER_S as i128);
        let want = reference(prev, cur, rules, seconds);
        match (got, want) {
            (Some(d), Ok((w, flags))) => {
                assert_eq!(opts(d.d), w, "{prev:?} -> {cur:?} in {t}");
                assert_eq!(d.flags, flags, "{prev:?} -> {cur:?}");
                assert_eq!(d.seconds, seconds);
            }
            (None, Err((why, field, rate))) => {
                assert_eq!(tr.why, why, "{prev:?} -> {cur:?} in {t}");
                if why == IMPLAUSIBLE {
                    assert_eq!(tr.bad, (field, rate), "{prev:?} -> {cur:?}");
                }
            }
            (got, want) => panic!(
                "{prev:?} -> {cur:?} in {t}: got {:?}, want {want:?}",
                got.map(|d| opts(d.d))
            ),
        }
    }

    mod property {
        use super::*;
        use proptest::prelude::*;

        /// A field type's rule and a value of it, near an edge more often
        /// than not.
        fn field() -> impl Strategy<Value = (u8, bool)> {
            (0u8..6, any::<bool>())
        }

        fn rule_of(kind: u8, down: bool) -> Rule {
            match kind {
                0 => rule(Some(1 << 8), false),
                1 => rule(Some(1 << 16), false),
                2 => rule(Some(1 << 32), false),
                3 => Rule {
                    modulus: None,
                    down,
                    time: true,
                    wide: true,
                },
                4 => Rule {
                    modulus: None,
                    down: false,
                    time: false,
                    wide: true,
                },
                _ => Rule {
                    modulus: None,
                    down: false,
                    time: false,
                    wide: false,
                },
            }
        }

        fn value(kind: u8, raw: u64, near: u8, absent: bool) -> Option<i128> {
            if absent {
                return None;
            }
            let (lo, hi): (i128, i128) = match kind {
                0 => (0, 255),
                1 => (0, 65535),
                2 => (0, (1 << 32) - 1),
                3 | 4 => (0, u64::MAX as i128),
                _ => (i64::MIN as i128, i64::MAX as i128),
            };
            let span = (hi - lo) as u128 + 1;
            let small = (raw % 4096) as i128;
            Some(match near {
                0 => lo + small,
                1 => hi - small,
                2 => ((lo + hi) / 2 + small).min(hi),
                _ => lo + (raw as u128 % span) as i128,
            })
        }

        proptest! {
            #[test]
            fn i64_samples_agree_with_option_i128(
                fields in proptest::collection::vec(
                    (field(), any::<u64>(), 0u8..4, any::<u64>(), 0u8..4, 0u8..10, any::<i32>()),
                    1..30,
                ),
                secs in prop_oneof![Just(1u64), Just(60), 1u64..100_000, Just(1 << 30)],
            ) {
                let rules: Vec<Rule> = fields.iter().map(|((k, d), ..)| rule_of(*k, *d)).collect();
                let mut prev = Vec::new();
                let mut cur = Vec::new();
                for ((k, _), a, na, b, nb, miss, step) in &fields {
                    let pv = value(*k, *a, *na, *miss == 0);
                    // the next value: another anywhere, or a small step from
                    // the previous one (a rise, or a fall: a wrap or a glitch)
                    let c = match (pv, nb) {
                        (Some(p), 0 | 1) => {
                            let lohi = value(*k, 0, 0, false).unwrap()..=value(*k, 0, 1, false).unwrap();
                            let n = p + *step as i128;
                            Some(if lohi.contains(&n) { n } else { p })
                        }
                        _ => value(*k, *b, *nb, *miss == 1),
                    };
                    prev.push(pv);
                    cur.push(c);
                }
                check(&rules, &prev, &cur, secs * TOD_PER_S);
            }
        }
    }
}
