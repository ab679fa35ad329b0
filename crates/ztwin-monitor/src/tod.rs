//! z/Architecture TOD clock values (spec section 5).
//!
//! A TOD value is an unsigned 64-bit count where bit 51 is one microsecond, so
//! `tod >> 12` is microseconds since 1900-01-01 00:00:00 UTC. Conversions here are
//! exact to the microsecond in both directions: `from_unix_us(to_unix_us(t))`
//! returns `t` with its sub-microsecond bits cleared.

/// TOD value of the Unix epoch, 1970-01-01 00:00:00 UTC (2 208 988 800 s).
pub const UNIX_EPOCH_TOD: u64 = 0x7D91_048B_CA00_0000;
/// TOD units per microsecond.
pub const UNITS_PER_US: u64 = 4096;

/// Microseconds since the Unix epoch (negative before 1970) for a TOD value.
pub fn to_unix_us(tod: u64) -> i64 {
    let diff = tod as i128 - UNIX_EPOCH_TOD as i128;
    diff.div_euclid(UNITS_PER_US as i128) as i64
}

/// TOD value for microseconds since the Unix epoch. Values outside the TOD range
/// (before 1900 or after 2042-09-17) saturate.
pub fn from_unix_us(us: i64) -> u64 {
    let v = UNIX_EPOCH_TOD as i128 + us as i128 * UNITS_PER_US as i128;
    v.clamp(0, u64::MAX as i128) as u64
}

/// Duration in TOD units (CPU timers, elapsed times) to microseconds.
pub fn dur_to_us(units: u64) -> u64 {
    units / UNITS_PER_US
}

/// Microseconds to a TOD-format duration.
pub fn dur_from_us(us: u64) -> u64 {
    us.saturating_mul(UNITS_PER_US)
}

/// Civil date from days since 1970-01-01 (proleptic Gregorian).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Days since 1970-01-01 for a civil date.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 } as i64;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// ISO 8601 UTC text with microseconds, e.g. `2010-01-01T00:00:00.000000Z`.
pub fn iso8601_from_unix_us(us: i64) -> String {
    let mut s = String::with_capacity(27);
    write_iso8601(&mut s, us);
    s
}

/// Append ISO 8601 UTC text for `us` to `out` (no allocation beyond growth).
pub fn write_iso8601(out: &mut String, us: i64) {
    let secs = us.div_euclid(1_000_000);
    let micros = us.rem_euclid(1_000_000) as u32;
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400) as u32;
    let (y, m, d) = civil_from_days(days);
    let (hh, mi, ss) = (sod / 3600, (sod / 60) % 60, sod % 60);
    if !(0..=9999).contains(&y) {
        use std::fmt::Write;
        let _ = write!(
            out,
            "{y:04}-{m:02}-{d:02}T{hh:02}:{mi:02}:{ss:02}.{micros:06}Z"
        );
        return;
    }
    let mut b = *b"0000-00-00T00:00:00.000000Z";
    let mut put = |at: usize, width: usize, mut v: u32| {
        for i in (at..at + width).rev() {
            b[i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    };
    put(0, 4, y as u32);
    put(5, 2, m);
    put(8, 2, d);
    put(11, 2, hh);
    put(14, 2, mi);
    put(17, 2, ss);
    put(20, 6, micros);
    out.push_str(std::str::from_utf8(&b).expect("ASCII"));
}

/// ISO 8601 text for a TOD value.
pub fn iso8601(tod: u64) -> String {
    iso8601_from_unix_us(to_unix_us(tod))
}

/// Parse `YYYY-MM-DD[T ]HH:MM:SS[.ffffff][Z]` (UTC) to Unix microseconds.
pub fn parse_iso8601(text: &str) -> Option<i64> {
    let t = text.trim().trim_end_matches('Z');
    let (date, time) = t.split_once(['T', ' '])?;
    let mut dp = date.splitn(3, '-');
    let y: i64 = dp.next()?.parse().ok()?;
    let m: u32 = dp.next()?.parse().ok()?;
    let d: u32 = dp.next()?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let (hms, frac) = match time.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (time, None),
    };
    let mut tp = hms.splitn(3, ':');
    let hh: i64 = tp.next()?.parse().ok()?;
    let mm: i64 = tp.next()?.parse().ok()?;
    let ss: i64 = tp.next()?.parse().ok()?;
    if hh > 23 || mm > 59 || ss > 60 {
        return None;
    }
    let micros: i64 = match frac {
        None => 0,
        Some(f) if !f.is_empty() && f.len() <= 6 && f.bytes().all(|b| b.is_ascii_digit()) => {
            f.parse::<i64>().ok()? * 10i64.pow(6 - f.len() as u32)
        }
        Some(_) => return None,
    };
    let days = days_from_civil(y, m, d);
    Some(((days * 86_400 + hh * 3600 + mm * 60 + ss) * 1_000_000) + micros)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn spec_test_vectors() {
        assert_eq!(
            iso8601(0xC551_F564_1600_0000),
            "2010-01-01T00:00:00.000000Z"
        );
        assert_eq!(
            iso8601(0xCF2C_B3AD_7500_0000),
            "2015-06-30T12:00:00.000000Z"
        );
        assert_eq!(
            iso8601(0xD9A0_E7C8_E7A0_0000),
            "2021-04-28T01:21:47.170304Z"
        );
        assert_eq!(iso8601(UNIX_EPOCH_TOD), "1970-01-01T00:00:00.000000Z");
        assert_eq!(iso8601(0), "1900-01-01T00:00:00.000000Z");
    }

    #[test]
    fn iso8601_outside_four_digit_years() {
        // Years before 0 or after 9999 take the formatting path.
        let mut s = String::new();
        write_iso8601(&mut s, -62_167_219_200_000_001);
        assert_eq!(s, "-001-12-31T23:59:59.999999Z");
        s.clear();
        write_iso8601(&mut s, 253_402_300_800_000_000);
        assert_eq!(s, "10000-01-01T00:00:00.000000Z");
        s.clear();
        write_iso8601(&mut s, 253_402_300_799_999_999);
        assert_eq!(s, "9999-12-31T23:59:59.999999Z");
    }

    #[test]
    fn parse_matches_format() {
        let us = parse_iso8601("2021-04-28T01:21:47.170304Z").unwrap();
        assert_eq!(from_unix_us(us), 0xD9A0_E7C8_E7A0_0000);
        assert_eq!(parse_iso8601("2021-13-01T00:00:00"), None);
        assert_eq!(parse_iso8601("nonsense"), None);
    }

    proptest! {
        #[test]
        fn us_round_trip(us in -2_208_988_800_000_000i64..2_000_000_000_000_000i64) {
            prop_assert_eq!(to_unix_us(from_unix_us(us)), us);
            let text = iso8601_from_unix_us(us);
            prop_assert_eq!(parse_iso8601(&text), Some(us));
        }

        #[test]
        fn tod_round_trip_clears_sub_us(tod in any::<u64>()) {
            let back = from_unix_us(to_unix_us(tod));
            prop_assert_eq!(back, tod & !0xFFF);
        }
    }
}
