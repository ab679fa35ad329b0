//! Report values as text, exactly as the Python report layer writes them, so
//! that rows written here equal rows written by `ztwin.reports.model` to the
//! last character:
//!
//! * JSON and CSV numbers are `repr(round(v, 6))` (Python's shortest
//!   round-trip repr of the value correctly rounded to 6 decimals, half to
//!   even; [`round6`], [`push_repr`]);
//! * text cells are Performance Toolkit numbers (`ztwin.reports.text.fmt_num`:
//!   `f"{v:.{d}f}"` without a leading zero, fewer decimals when the value does
//!   not fit, then `k`/`M`/`G`/`T` suffixes; [`push_fmt_num`]);
//! * times are local times (microseconds since 1970) as ISO 8601 text or
//!   `HH:MM:SS` ([`push_iso`], [`push_hms`]).
//!
//! [`write_rows`] lays out whole row blocks of columns (a by-time report's
//! rows) in one of the three formats.

use std::fmt::Write;

/// Python's `round(v, 6)`: `v` correctly rounded (half to even on its exact
/// binary value) to a multiple of 10^-6, as the nearest double.
pub fn round6(v: f64) -> f64 {
    match round6_micros(v) {
        Some(0) => 0.0f64.copysign(v),
        // m is an integer below 2^53 and 10^6 is exact: the quotient is the
        // double nearest to m * 10^-6, what Python's decimal-to-double gives.
        Some(m) => m as f64 / 1e6,
        None if !v.is_finite() => v,
        None => round6_slow(v),
    }
}

/// `v * 10^6` correctly rounded (half to even on the exact value) to an
/// integer, when that is below 4e15 in magnitude; `None` otherwise (and for
/// NaN and infinities).
#[inline]
pub fn round6_micros(v: f64) -> Option<i64> {
    if !v.is_finite() {
        return None;
    }
    if v.abs() < 1e-7 {
        // far below half a unit of the 6th decimal
        return Some(0);
    }
    let y = v * 1e6;
    if y.abs() >= 4.0e15 {
        return None;
    }
    // The exact product is y + e (e from the fused multiply-add is exact);
    // with n = y rounded to an integer and r = y - n (exact, |r| <= 1/2), the
    // exact value is n + r + e. (r -/+ 1/2) are exact too, so the signs
    // below decide the rounding of the exact value exactly.
    let e = v.mul_add(1e6, -y);
    let n = y.round_ties_even();
    let r = y - n;
    let above = (r - 0.5) + e;
    let below = (r + 0.5) + e;
    let m = if above > 0.0 {
        n + 1.0
    } else if above == 0.0 {
        even(n, n + 1.0)
    } else if below < 0.0 {
        n - 1.0
    } else if below == 0.0 {
        even(n - 1.0, n)
    } else {
        n
    };
    Some(m as i64)
}

fn even(a: f64, b: f64) -> f64 {
    if (a * 0.5).fract() == 0.0 {
        a
    } else {
        b
    }
}

#[cold]
fn round6_slow(v: f64) -> f64 {
    // Rust's fixed-precision formatting is exact and rounds half to even,
    // its parsing correctly rounded: Python's dtoa round trip.
    let s = format!("{v:.6}");
    s.parse::<f64>().unwrap_or(v)
}

/// Python's `repr(v)` of a finite double: the shortest digits that read
/// back as `v`, in fixed notation for 1e-4 <= |v| < 1e16 (with `.0` for a
/// whole number), else as `d.ddde-05` / `de+16`.
pub fn push_repr(out: &mut String, v: f64) {
    if v == 0.0 {
        out.push_str(if v.is_sign_negative() { "-0.0" } else { "0.0" });
        return;
    }
    if !v.is_finite() {
        out.push_str(if v.is_nan() {
            "nan"
        } else if v > 0.0 {
            "inf"
        } else {
            "-inf"
        });
        return;
    }
    // `{:e}` gives the shortest round-trip digits: "-1.2345e-3"
    let mut buf = StackBuf::new();
    let _ = write!(buf, "{:e}", v.abs());
    let s = buf.as_str();
    let (mant, exp) = s.split_once('e').unwrap_or((s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut digits = StackBuf::new();
    for c in mant.bytes() {
        if c != b'.' {
            digits.push(c);
        }
    }
    let mut decpt = exp + 1;
    if digits.len() >= 16 {
        decpt = even_tie(&mut digits, decpt, v.abs());
    }
    if v < 0.0 {
        out.push('-');
    }
    layout(out, digits.as_str(), decpt);
}

/// Python's shortest repr breaks a tie between two equally near shortest
/// digit strings to the even last digit, Rust's formatting upwards. A tie
/// needs the exact binary value to have one decimal digit more than the
/// shortest string (ending in 5), so only values with a short binary
/// fraction are checked, exactly, in integers. `digits` (with the decimal
/// point `decpt` places in) is Rust's choice for `v > 0`; returns the decimal
/// point of the (possibly changed) digits.
fn even_tie(digits: &mut StackBuf, decpt: i32, v: f64) -> i32 {
    if v.fract() == 0.0 || v >= 9.007_199_254_740_992e15 {
        return decpt; // whole numbers end in an even digit or 0: no tie
    }
    // the fewest binary fractional digits k: v = m / 2^k, m < 2^53
    let mut k = 0u32;
    let mut x = v;
    while x.fract() != 0.0 {
        if k == 30 {
            return decpt;
        }
        x *= 2.0;
        k += 1;
    }
    // v exactly, as an integer count of 10^-k
    let exact = x as u128 * 5u128.pow(k);
    let d = digits.as_str();
    let n = d.len() as i32;
    let Ok(dv) = d.parse::<u128>() else {
        return decpt;
    };
    let s = decpt - n + k as i32; // power of ten of the last digit, in 10^-k
    if !(1..=38).contains(&s) {
        return decpt;
    }
    let unit = 10u128.pow(s as u32);
    let Some(val) = dv.checked_mul(unit) else {
        return decpt;
    };
    let diff = exact.abs_diff(val);
    if diff * 2 != unit || dv % 2 == 0 {
        return decpt;
    }
    // a tie and an odd last digit: the other neighbour is even
    let other = if exact > val { dv + 1 } else { dv - 1 };
    let mut t = other.to_string();
    let dp = decpt + (t.len() as i32 - n);
    while t.len() > 1 && t.ends_with('0') {
        t.pop();
    }
    digits.clear();
    digits.push_str(&t);
    dp
}

/// A JSON number of a report value: `repr(round(v, 6))`, `null` for NaN
/// (absent) and infinities (as `_json_value` gives None for them).
pub fn push_json_num(out: &mut String, v: f64) {
    if !v.is_finite() {
        out.push_str("null");
        return;
    }
    push_round6_repr(out, v);
}

/// `repr(round(v, 6))` of a finite value.
#[inline]
pub fn push_round6_repr(out: &mut String, v: f64) {
    match round6_micros(v) {
        Some(m) if m != 0 && m.unsigned_abs() < 1_000_000_000_000_000 => {
            // The double nearest to m * 10^-6 reads back from that decimal,
            // and with at most 15 significant digits no shorter or other
            // decimal of as many digits lies within half its spacing: the
            // decimal itself (without trailing zeros) is Python's repr.
            let mut b = [0u8; 20];
            let mut i = b.len();
            let mut x = m.unsigned_abs();
            while x > 0 {
                i -= 1;
                b[i] = b'0' + (x % 10) as u8;
                x /= 10;
            }
            let nd0 = (b.len() - i) as i32;
            let mut j = b.len();
            while j - i > 1 && b[j - 1] == b'0' {
                j -= 1;
            }
            if m < 0 {
                out.push('-');
            }
            // ASCII digits
            let digits = std::str::from_utf8(&b[i..j]).unwrap_or("0");
            layout(out, digits, nd0 - 6);
        }
        _ => push_repr(out, round6(v)),
    }
}

/// Python's float repr layout of significant digits `digits` (no trailing
/// zeros) with the decimal point `decpt` places in.
#[inline]
fn layout(out: &mut String, digits: &str, decpt: i32) {
    let nd = digits.len() as i32;
    if decpt <= -4 || decpt > 16 {
        out.push_str(&digits[..1]);
        if nd > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let e = decpt - 1;
        let _ = write!(out, "e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    } else if decpt <= 0 {
        out.push_str("0.");
        for _ in 0..-decpt {
            out.push('0');
        }
        out.push_str(digits);
    } else if decpt >= nd {
        out.push_str(digits);
        for _ in 0..decpt - nd {
            out.push('0');
        }
        out.push_str(".0");
    } else {
        out.push_str(&digits[..decpt as usize]);
        out.push('.');
        out.push_str(&digits[decpt as usize..]);
    }
}

/// Python's `f"{v:.{dec}f}"` (exact, half to even; "nan", "inf").
pub fn push_fixed(out: &mut String, v: f64, dec: usize) {
    if v.is_nan() {
        out.push_str("nan");
    } else if v.is_infinite() {
        out.push_str(if v > 0.0 { "inf" } else { "-inf" });
    } else {
        let _ = write!(out, "{v:.dec$}");
    }
}

/// `ztwin.reports.text.fmt_num(v, dec, width)` of a number (`None` -> "...").
pub fn push_fmt_num(out: &mut String, v: Option<f64>, dec: usize, width: usize) {
    let Some(x) = v else {
        out.push_str("...");
        return;
    };
    let mut s = StackBuf::new();
    let mut d = dec;
    loop {
        s.clear();
        let mut tmp = String::new();
        push_fixed(&mut tmp, x, d);
        let t = tmp.as_str();
        if d > 0 {
            if let Some(rest) = t.strip_prefix("0.") {
                s.push(b'.');
                s.push_str(rest);
            } else if let Some(rest) = t.strip_prefix("-0.") {
                s.push_str("-.");
                s.push_str(rest);
            } else {
                s.push_str(t);
            }
        } else {
            s.push_str(t);
        }
        if s.len() <= width || d == 0 {
            break;
        }
        d -= 1;
    }
    if s.len() <= width {
        out.push_str(s.as_str());
        return;
    }
    for (div, suffix) in [(1e3, 'k'), (1e6, 'M'), (1e9, 'G'), (1e12, 'T')] {
        let mut t = String::new();
        push_fixed(&mut t, x / div, 0);
        t.push(suffix);
        if t.len() <= width {
            out.push_str(&t);
            return;
        }
    }
    for _ in 0..width {
        out.push('*');
    }
}

/// (year, month, day) of a count of days since 1970-01-01: the TOD module's.
pub use ztwin_monitor::tod::civil_from_days;

/// `HH:MM:SS` of a local time in microseconds since 1970 (seconds truncated,
/// as `strftime` drops the microseconds).
pub fn push_hms(out: &mut String, us: i64) {
    let s = us.div_euclid(1_000_000).rem_euclid(86_400) as u32;
    push_2(out, s / 3600);
    out.push(':');
    push_2(out, s % 3600 / 60);
    out.push(':');
    push_2(out, s % 60);
}

/// Two decimal digits of `v` < 100 (as `{:02}`; the formatter's machinery
/// cost more than the rest of a row's times).
#[inline]
fn push_2(out: &mut String, v: u32) {
    debug_assert!(v < 100);
    out.push(char::from(b'0' + (v / 10) as u8));
    out.push(char::from(b'0' + (v % 10) as u8));
}

/// `YYYY-MM-DDTHH:MM:SS` of a local time in microseconds since 1970, then
/// `zone` (the system's UTC offset as `Config.iso` writes it: "Z", "+01:00").
pub fn push_iso(out: &mut String, us: i64, zone: &str) {
    let secs = us.div_euclid(1_000_000);
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    if (0..=9999).contains(&y) {
        let y = y as u32;
        push_2(out, y / 100);
        push_2(out, y % 100);
        out.push('-');
        push_2(out, m);
        out.push('-');
        push_2(out, d);
        out.push('T');
    } else {
        let _ = write!(out, "{y:04}-{m:02}-{d:02}T");
    }
    push_hms(out, us);
    out.push_str(zone);
}

/// A small string on the stack (formatting scratch).
struct StackBuf {
    b: [u8; 64],
    n: usize,
    spill: Option<String>,
}

impl StackBuf {
    fn new() -> Self {
        StackBuf {
            b: [0; 64],
            n: 0,
            spill: None,
        }
    }
    fn clear(&mut self) {
        self.n = 0;
        self.spill = None;
    }
    fn push(&mut self, c: u8) {
        self.push_str_bytes(&[c]);
    }
    fn push_str(&mut self, s: &str) {
        self.push_str_bytes(s.as_bytes());
    }
    fn push_str_bytes(&mut self, s: &[u8]) {
        if let Some(sp) = &mut self.spill {
            sp.push_str(std::str::from_utf8(s).unwrap_or(""));
            return;
        }
        if self.n + s.len() > self.b.len() {
            let mut sp = String::from(std::str::from_utf8(&self.b[..self.n]).unwrap_or(""));
            sp.push_str(std::str::from_utf8(s).unwrap_or(""));
            self.spill = Some(sp);
            return;
        }
        self.b[self.n..self.n + s.len()].copy_from_slice(s);
        self.n += s.len();
    }
    fn len(&self) -> usize {
        self.spill.as_ref().map_or(self.n, |s| s.len())
    }
    fn as_str(&self) -> &str {
        match &self.spill {
            Some(s) => s,
            None => std::str::from_utf8(&self.b[..self.n]).unwrap_or(""),
        }
    }
}

impl Write for StackBuf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.push_str(s);
        Ok(())
    }
}

// ------------------------------------------------------------- row blocks

/// The values of one column of a row block.
pub enum ColData<'a> {
    /// Numbers; NaN is an absent value (JSON null, empty CSV cell, "...").
    F64(&'a [f64]),
    /// Local times, microseconds since 1970.
    Time(&'a [i64]),
    /// The same text in every row, already in the output's form (a JSON
    /// value, a CSV cell, a padded text cell).
    Literal(&'a str),
    /// Per row one of a few texts (already in the output's form, as for
    /// `Literal`): row `i` shows `texts[codes[i]]` (a partition name, a
    /// processor type, a count).
    Labels {
        codes: &'a [u32],
        texts: &'a [String],
    },
}

/// One column of a row block and how it is laid out.
pub struct Column<'a> {
    pub data: ColData<'a>,
    /// JSON: the member's key as JSON text followed by ": ".
    pub json_key: &'a str,
    /// Text: the cell width, decimals, and whether left-aligned.
    pub width: usize,
    pub dec: usize,
    pub left: bool,
}

/// Output format of [`write_rows`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Format {
    /// `{"k": v, ...}` objects separated by ", " (`Report.write_json`).
    Json,
    /// Comma-separated lines (`Report.write_csv`).
    Csv,
    /// Fixed-width lines (`Table.row`), cells separated by `gap` blanks,
    /// trailing blanks removed.
    Text { gap: usize },
}

/// `n` rows of `cols` in `fmt`, appended to `out`; `zone` is the UTC offset
/// suffix of ISO times. JSON rows are separated by ", " (none before the
/// first); CSV and text rows end with a newline.
pub fn write_rows(out: &mut String, fmt: Format, cols: &[Column<'_>], n: usize, zone: &str) {
    let mut cell = String::new();
    for i in 0..n {
        match fmt {
            Format::Json => {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push('{');
                for (j, c) in cols.iter().enumerate() {
                    if j > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(c.json_key);
                    match &c.data {
                        ColData::F64(a) => push_json_num(out, a[i]),
                        ColData::Time(a) => {
                            out.push('"');
                            push_iso(out, a[i], zone);
                            out.push('"');
                        }
                        ColData::Literal(s) => out.push_str(s),
                        ColData::Labels { codes, texts } => out.push_str(&texts[codes[i] as usize]),
                    }
                }
                out.push('}');
            }
            Format::Csv => {
                let start = out.len();
                for (j, c) in cols.iter().enumerate() {
                    if j > 0 {
                        out.push(',');
                    }
                    match &c.data {
                        ColData::F64(a) => {
                            if a[i].is_finite() {
                                push_round6_repr(out, a[i]);
                            }
                        }
                        ColData::Time(a) => push_iso(out, a[i], zone),
                        ColData::Literal(s) => out.push_str(s),
                        ColData::Labels { codes, texts } => out.push_str(&texts[codes[i] as usize]),
                    }
                }
                if cols.len() == 1 && out.len() == start {
                    // Python's csv writes a row of one empty field as ""
                    out.push_str("\"\"");
                }
                out.push('\n');
            }
            Format::Text { gap } => {
                let start = out.len();
                for (j, c) in cols.iter().enumerate() {
                    if j > 0 {
                        for _ in 0..gap {
                            out.push(' ');
                        }
                    }
                    match &c.data {
                        ColData::Literal(s) => out.push_str(s),
                        ColData::Labels { codes, texts } => out.push_str(&texts[codes[i] as usize]),
                        data => {
                            cell.clear();
                            match data {
                                ColData::F64(a) => {
                                    let v = a[i];
                                    push_fmt_num(
                                        &mut cell,
                                        (!v.is_nan()).then_some(v),
                                        c.dec,
                                        c.width,
                                    )
                                }
                                ColData::Time(a) => push_hms(&mut cell, a[i]),
                                ColData::Literal(_) | ColData::Labels { .. } => {}
                            }
                            let pad = c.width.saturating_sub(cell.chars().count());
                            if c.left {
                                out.push_str(&cell);
                                (0..pad).for_each(|_| out.push(' '));
                            } else {
                                (0..pad).for_each(|_| out.push(' '));
                                out.push_str(&cell);
                            }
                        }
                    }
                }
                let end = out[start..].trim_end().len() + start;
                out.truncate(end);
                out.push('\n');
            }
        }
    }
}

// ------------------------------------------------------------- folds by key

/// How a column merges (as `schema::merge` and Python's `core.merge`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Fold {
    Sum,
    Min,
    Max,
}

/// Fold the rows of `col` into `out[key]` in row order, as the kernel's
/// window totals and Python's `merged` do: absent values (NaN) change
/// nothing, the first present value is taken as it is, then sums add (a left
/// fold, so the result is the same double), minima and maxima compare.
pub fn fold_by_key(codes: &[u32], col: &[f64], how: Fold, out: &mut [f64]) {
    for (&k, &v) in codes.iter().zip(col) {
        if v.is_nan() {
            continue;
        }
        let o = &mut out[k as usize];
        if o.is_nan() {
            *o = v;
            continue;
        }
        *o = match how {
            Fold::Sum => *o + v,
            Fold::Min => {
                if v < *o {
                    v
                } else {
                    *o
                }
            }
            Fold::Max => {
                if v > *o {
                    v
                } else {
                    *o
                }
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repr(v: f64) -> String {
        let mut s = String::new();
        push_repr(&mut s, v);
        s
    }

    #[test]
    fn repr_is_pythons() {
        for (v, want) in [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123456789.125, "123456789.125"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (-2.5e-6, "-2.5e-06"),
            (-0.0, "-0.0"),
            (1.2345678901234568e17, "1.2345678901234568e+17"),
            (9999999999999998.0, "9999999999999998.0"),
            (1e100, "1e+100"),
        ] {
            assert_eq!(repr(v), want, "{v}");
        }
    }

    #[test]
    fn round6_is_half_even_on_the_exact_value() {
        assert_eq!(round6(0.0078125), 0.007812); // an exact tie: to even
        assert_eq!(round6(2.5e-7), 0.0);
        assert_eq!(round6(-1e-9).to_bits(), (-0.0f64).to_bits());
        assert_eq!(round6(1.0000005), 1.000001);
        assert_eq!(round6(12345678901.234567), 12345678901.234568);
        for v in [
            0.1,
            1.0 / 3.0,
            2.0 / 3.0,
            1234.5678905,
            99.9999995,
            1e20,
            -7.0000005,
        ] {
            let want: f64 = format!("{v:.6}").parse().unwrap();
            assert_eq!(round6(v), want, "{v}");
        }
    }

    #[test]
    fn fmt_num_is_perfkits() {
        let f = |v: f64, d: usize, w: usize| {
            let mut s = String::new();
            push_fmt_num(&mut s, Some(v), d, w);
            s
        };
        assert_eq!(f(0.25, 2, 5), ".25");
        assert_eq!(f(-0.25, 1, 5), "-.2");
        assert_eq!(f(12.34, 1, 5), "12.3");
        assert_eq!(f(123456.0, 1, 5), "123k");
        assert_eq!(f(1027000.0, 0, 5), "1027k");
        assert_eq!(f(99999.6, 1, 5), "100k");
        assert_eq!(f(1e20, 0, 3), "***");
        assert_eq!(f(0.0, 0, 5), "0");
    }

    #[test]
    fn labels_show_the_text_of_each_rows_code() {
        let codes = [1u32, 0, 1];
        let texts = ["\"A\"".to_string(), "\"B\"".to_string()];
        let vals = [1.5, f64::NAN, 3.0];
        let cols = [
            Column {
                data: ColData::Labels {
                    codes: &codes,
                    texts: &texts,
                },
                json_key: "\"p\": ",
                width: 0,
                dec: 0,
                left: false,
            },
            Column {
                data: ColData::F64(&vals),
                json_key: "\"v\": ",
                width: 0,
                dec: 0,
                left: false,
            },
        ];
        let mut s = String::new();
        write_rows(&mut s, Format::Json, &cols, 3, "Z");
        assert_eq!(
            s,
            r#"{"p": "B", "v": 1.5}, {"p": "A", "v": null}, {"p": "B", "v": 3.0}"#
        );
        let texts = ["A  ".to_string(), "B  ".to_string()];
        let cols = [
            Column {
                data: ColData::Labels {
                    codes: &codes,
                    texts: &texts,
                },
                json_key: "",
                width: 3,
                dec: 0,
                left: true,
            },
            Column {
                data: ColData::F64(&vals),
                json_key: "",
                width: 5,
                dec: 1,
                left: false,
            },
        ];
        s.clear();
        write_rows(&mut s, Format::Text { gap: 1 }, &cols, 3, "Z");
        assert_eq!(s, "B     1.5\nA     ...\nB     3.0\n");
    }

    #[test]
    fn times() {
        let mut s = String::new();
        // 2026-01-05 15:10:12.5 local
        let us = (20_458 * 86_400 + 15 * 3600 + 10 * 60 + 12) * 1_000_000 + 500_000;
        push_iso(&mut s, us, "Z");
        assert_eq!(s, "2026-01-05T15:10:12Z");
        s.clear();
        push_iso(&mut s, -1, "+01:00");
        assert_eq!(s, "1969-12-31T23:59:59+01:00");
        // every day of 0000-03-01 .. 9999-12-31 and years beyond, against the formatter
        let day = 86_400_000_000i64;
        for days in (-719_468..2_932_897)
            .step_by(97)
            .chain([-719_469, -800_000, 2_932_897, 3_000_000])
        {
            for (k, us) in [0, 1, 3_599_999_999, 43_199_000_000, day - 1]
                .into_iter()
                .enumerate()
            {
                let t = days * day + us + k as i64;
                let secs = t.div_euclid(1_000_000);
                let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
                let x = secs.rem_euclid(86_400);
                let want = format!(
                    "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}+01:00",
                    x / 3600,
                    x % 3600 / 60,
                    x % 60
                );
                s.clear();
                push_iso(&mut s, t, "+01:00");
                assert_eq!(s, want);
                s.clear();
                push_hms(&mut s, t);
                let at = want.find('T').unwrap_or(0) + 1;
                assert_eq!(s, want[at..at + 8]);
            }
        }
    }

    #[test]
    fn folds_are_left_folds_skipping_absent_values() {
        let codes = [0, 1, 0, 0];
        let col = [0.1, f64::NAN, 0.2, 0.3];
        let mut out = [f64::NAN; 2];
        fold_by_key(&codes, &col, Fold::Sum, &mut out);
        assert_eq!(out[0], (0.1 + 0.2) + 0.3);
        assert!(out[1].is_nan());
    }
}
