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
//!   new baseline.

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

/// A field's value as an integer (numeric fields; a TOD is its raw value).
pub type Val = Option<i128>;

/// The most a time counter in TOD units can grow per second: 64 processors'
/// worth (no key of the monitor records, a logical CPU, a user's virtual CPU
/// or a partition, runs on more), with 5% for clock jitter.
pub const MAX_TIME_PER_S: f64 = 64.0 * 1.05 * TOD_PER_S as f64;
/// The most another cumulative counter (I/Os, pages, samples, 128 µs units of
/// device time) can grow per second for one key: far above any real rate (a
/// DASD subchannel does tens of thousands of I/Os per second), far below what
/// a flipped high bit of a 32-bit counter gives.
pub const MAX_COUNT_PER_S: f64 = 5.0e6;

/// How one tracked field is differenced.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    pub modulus: Option<i128>,
    pub down: bool,
    /// A time in TOD units (its plausible rise is [`MAX_TIME_PER_S`], else
    /// [`MAX_COUNT_PER_S`]).
    pub time: bool,
}

impl Rule {
    pub fn of(f: Option<&FieldDef>, down: bool) -> Rule {
        Rule {
            modulus: f.and_then(|f| wrap_modulus(f.ty)),
            down,
            time: matches!(f.map(|f| f.ty), Some(FieldType::Tod) | Some(FieldType::Dur)),
        }
    }
}

struct Prev<G> {
    seq: u64,
    tod: u64,
    gen: G,
    vals: Vec<Val>,
}

/// Previous samples of one record family's counters, per key.
pub struct Tracker<K, G> {
    prev: Map<K, Prev<G>>,
    /// Why the last [`Tracker::delta`] gave nothing: [`RESET`], [`BASELINE`]
    /// or [`IMPLAUSIBLE`].
    pub why: u8,
    /// For [`IMPLAUSIBLE`]: the field (index into the rules) and its rise per
    /// second.
    pub bad: (usize, f64),
}

impl<K: Hash + Eq, G: PartialEq> Default for Tracker<K, G> {
    fn default() -> Self {
        Tracker {
            prev: Map::default(),
            why: 0,
            bad: (0, 0.0),
        }
    }
}

/// What [`Tracker::delta`] returns: T in seconds and one delta per field
/// (`None` where either sample lacks the field).
pub struct Delta<'a> {
    pub seconds: f64,
    pub d: &'a [Option<i128>],
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

impl<K: Hash + Eq, G: PartialEq> Tracker<K, G> {
    /// Store a sample without differencing (outside the window).
    pub fn note(&mut self, key: K, seq: u64, tod: u64, gen: G, cur: &[Val]) {
        match self.prev.get_mut(&key) {
            Some(p) => {
                p.seq = seq;
                p.tod = tod;
                p.gen = gen;
                p.vals.clear();
                p.vals.extend_from_slice(cur);
            }
            None => {
                self.prev.insert(
                    key,
                    Prev {
                        seq,
                        tod,
                        gen,
                        vals: cur.to_vec(),
                    },
                );
            }
        }
    }

    /// The deltas from the key's previous sample when it is in the preceding
    /// set (`seq - 1`) and of the same generation; the sample is stored as the
    /// new previous one either way. `out` receives the deltas.
    #[allow(clippy::too_many_arguments)]
    pub fn delta<'o>(
        &mut self,
        key: K,
        seq: u64,
        tod: u64,
        gen: G,
        cur: &[Val],
        rules: &[Rule],
        out: &'o mut Vec<Option<i128>>,
    ) -> Option<Delta<'o>> {
        out.clear();
        self.why = BASELINE;
        let p = match self.prev.get_mut(&key) {
            Some(p) => p,
            None => {
                self.note(key, seq, tod, gen, cur);
                return None;
            }
        };
        let ok = p.seq + 1 == seq && p.gen == gen;
        let prev_tod = p.tod;
        let mut result = ok;
        let mut flags = 0u8;
        let mut seconds = 0.0;
        if ok {
            seconds = div_int(tod as i128 - prev_tod as i128, TOD_PER_S as i128);
            if seconds <= 0.0 {
                result = false;
            } else {
                // The most a field can rise in T (d > max x T, exactly: d is
                // an integer; i64 converts in one instruction, i128 does not).
                let lim_time = (MAX_TIME_PER_S * seconds) as i64 as i128;
                let lim_count = (MAX_COUNT_PER_S * seconds) as i64 as i128;
                let n = cur.len().min(p.vals.len()).min(rules.len());
                out.reserve(n);
                for ((c, pv), r) in cur[..n].iter().zip(&p.vals[..n]).zip(&rules[..n]) {
                    match (c, pv) {
                        (Some(c), Some(pv)) => {
                            let lim = if r.time { lim_time } else { lim_count };
                            if !r.down && *c >= *pv {
                                let d = *c - *pv;
                                if d > lim {
                                    self.bad = (out.len(), to_f64(d) / seconds);
                                    result = false;
                                    self.why = IMPLAUSIBLE;
                                    break;
                                }
                                out.push(Some(d));
                            } else {
                                match counter_delta(*pv, *c, r.modulus, r.down) {
                                    Some(d) if d > lim => {
                                        self.bad = (out.len(), to_f64(d) / seconds);
                                        result = false;
                                        self.why = IMPLAUSIBLE;
                                        break;
                                    }
                                    Some(d) => {
                                        let fell = if r.down { c > pv } else { c < pv };
                                        if fell {
                                            flags |=
                                                if r.modulus.is_some() { WRAPPED } else { GLITCH };
                                        }
                                        out.push(Some(d))
                                    }
                                    None => {
                                        result = false;
                                        self.why = RESET;
                                        break;
                                    }
                                }
                            }
                        }
                        _ => out.push(None),
                    }
                }
            }
        }
        if self.why == IMPLAUSIBLE {
            // Neither this sample nor the one before it is a base to
            // difference the next one against.
            self.prev.remove(&key);
            return None;
        }
        p.seq = seq;
        p.tod = tod;
        p.gen = gen;
        if p.vals.len() == cur.len() {
            p.vals.copy_from_slice(cur);
        } else {
            p.vals.clear();
            p.vals.extend_from_slice(cur);
        }
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
        assert_eq!(div_int(1 << 60, 1 << 3), (1u64 << 57) as f64);
        // ties go to even: (2^54 + 2) / 2 = 2^53 + 1 -> 2^53 (even)
        assert_eq!(div_int((1i128 << 54) + 2, 2), 9_007_199_254_740_992.0);
        assert_eq!(div_int((1i128 << 54) + 6, 2), 9_007_199_254_740_996.0);
    }

    #[test]
    fn baselines_generations_and_sets() {
        let mut t: Tracker<u32, u32> = Tracker::default();
        let rules = [Rule {
            modulus: Some(1 << 32),
            down: false,
            time: false,
        }];
        let mut out = Vec::new();
        let s = TOD_PER_S;
        assert!(t
            .delta(1, 1, 60 * s, 0, &[Some(10)], &rules, &mut out)
            .is_none());
        let d = t
            .delta(1, 2, 120 * s, 0, &[Some(25)], &rules, &mut out)
            .unwrap();
        assert_eq!((d.seconds, d.d[0]), (60.0, Some(15)));
        // a set without the key in between: baseline
        assert!(t
            .delta(1, 4, 240 * s, 0, &[Some(30)], &rules, &mut out)
            .is_none());
        // another generation: baseline
        assert!(t
            .delta(1, 5, 300 * s, 1, &[Some(40)], &rules, &mut out)
            .is_none());
        let d = t
            .delta(1, 6, 360 * s, 1, &[None], &rules, &mut out)
            .unwrap();
        assert_eq!(d.d[0], None);
    }

    #[test]
    fn implausible_rises_give_nothing_and_a_new_baseline() {
        let mut t: Tracker<u32, u32> = Tracker::default();
        let rules = [
            Rule {
                modulus: Some(1 << 32),
                down: false,
                time: false,
            },
            Rule {
                modulus: None,
                down: false,
                time: true,
            },
        ];
        let mut out = Vec::new();
        let s = TOD_PER_S;
        let t64 = |secs: u64| Some((secs * s) as i128);
        t.delta(1, 1, 60 * s, 0, &[Some(10), t64(0)], &rules, &mut out);
        // 60 s: a CPU time of 60 x 64 processors is the most; 3 hours is not
        assert!(t
            .delta(
                1,
                2,
                120 * s,
                0,
                &[Some(20), t64(3 * 3600)],
                &rules,
                &mut out
            )
            .is_none());
        assert_eq!((t.why, t.bad.0), (IMPLAUSIBLE, 1));
        // the next sample only sets a baseline, the one after it counts again
        assert!(t
            .delta(1, 3, 180 * s, 0, &[Some(30), t64(3600)], &rules, &mut out)
            .is_none());
        assert_eq!(t.why, BASELINE);
        let d = t
            .delta(1, 4, 240 * s, 0, &[Some(40), t64(3660)], &rules, &mut out)
            .unwrap();
        assert_eq!(d.d, [Some(10), Some((60 * s) as i128)]);
        // a flipped high bit of a 32-bit counter (2^31 in 60 s)
        assert!(t
            .delta(
                1,
                5,
                300 * s,
                0,
                &[Some(40 + (1 << 31)), t64(3720)],
                &rules,
                &mut out
            )
            .is_none());
        assert_eq!((t.why, t.bad.0), (IMPLAUSIBLE, 0));
    }
}
