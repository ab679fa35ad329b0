//! Sizes and durations as scenario files write them: "768M", "19.5G", "300s",
//! "3.1ms", "14h".

use serde::{de, Deserialize, Deserializer};

/// Simulated time in nanoseconds.
pub type Ns = u64;

pub const US: Ns = 1_000;
pub const MS: Ns = 1_000_000;
pub const SEC: Ns = 1_000_000_000;

/// Bytes per 4 KB page / frame / slot.
pub const PAGE: u64 = 4096;

/// Parse a size with an optional K/M/G/T suffix (binary units). A bare number
/// is bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, mult) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let m: u64 = match c.to_ascii_uppercase() {
                'K' => 1 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                'T' => 1 << 40,
                _ => return Err(format!("size '{s}' has an unknown unit (use K, M, G or T)")),
            };
            (&t[..i], m)
        }
        _ => (t, 1),
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a size such as 768M or 19.5G"))?;
    if !(v.is_finite() && v >= 0.0) {
        return Err(format!("size '{s}' must be a non-negative number"));
    }
    Ok((v * mult as f64).round() as u64)
}

/// Parse a duration: number with ns, us, ms, s, m (minutes) or h; a bare number
/// is seconds.
pub fn parse_duration(s: &str) -> Result<Ns, String> {
    let t = s.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let mult: f64 = match unit.trim() {
        "" | "s" | "sec" => 1e9,
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "m" | "min" => 60e9,
        "h" => 3600e9,
        u => {
            return Err(format!(
                "duration '{s}' has an unknown unit '{u}' (use ns, us, ms, s, min or h)"
            ))
        }
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a duration such as 10s or 3.1ms"))?;
    if !(v.is_finite() && v >= 0.0) {
        return Err(format!("duration '{s}' must be a non-negative number"));
    }
    Ok((v * mult).round() as Ns)
}

/// A size field: a string with a unit or an integer number of bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Size(pub u64);

impl Size {
    pub fn pages(self) -> u64 {
        self.0.div_ceil(PAGE)
    }
}

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Size;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a size: a string such as \"768M\" or a whole number of bytes")
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Size, E> {
                Ok(Size(n))
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Size, E> {
                u64::try_from(n)
                    .map(Size)
                    .map_err(|_| E::custom(format!("a size cannot be negative ({n})")))
            }
            fn visit_f64<E: de::Error>(self, x: f64) -> Result<Size, E> {
                Err(E::custom(format!(
                    "a size is a string such as \"768M\" or a whole number of bytes, not the float {x:?}"
                )))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Size, E> {
                parse_size(s).map(Size).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// A duration field: a string with a unit or a number of seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Duration(pub Ns);

impl<'de> Deserialize<'de> for Duration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Duration;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(
                    "a duration: a string such as \"10s\" or \"3.1ms\", or a number of seconds",
                )
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Duration, E> {
                self.visit_f64(n as f64)
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Duration, E> {
                self.visit_f64(n as f64)
            }
            fn visit_f64<E: de::Error>(self, x: f64) -> Result<Duration, E> {
                if x.is_finite() && x >= 0.0 {
                    Ok(Duration((x * 1e9).round() as Ns))
                } else {
                    Err(E::custom(format!(
                        "a duration is a non-negative number of seconds or a string such as \"10s\", not {x:?}"
                    )))
                }
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Duration, E> {
                parse_duration(s).map(Duration).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_durations_say_what_they_expect() {
        #[derive(Deserialize, Debug)]
        struct T {
            #[allow(dead_code)]
            s: Option<Size>,
            #[allow(dead_code)]
            d: Option<Duration>,
        }
        let e = |text: &str| serde_json::from_str::<T>(text).unwrap_err().to_string();
        assert!(e(r#"{"s": 4.5e9}"#).starts_with(
            "a size is a string such as \"768M\" or a whole number of bytes, not the float 4500000000.0"
        ));
        assert!(e(r#"{"s": -5}"#).starts_with("a size cannot be negative (-5)"));
        assert!(e(r#"{"s": true}"#).contains("expected a size: a string such as \"768M\""));
        assert!(e(r#"{"d": -1.5}"#).starts_with("a duration is a non-negative number of seconds"));
        let ok: T = serde_json::from_str(r#"{"s": "1G", "d": 2}"#).unwrap();
        assert_eq!((ok.s.unwrap().0, ok.d.unwrap().0), (1 << 30, 2 * SEC));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("768M").unwrap(), 768 << 20);
        assert_eq!(parse_size("19.5G").unwrap(), 19_968 << 20);
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert!(parse_size("12Q").is_err());
        assert!(parse_size("-1G").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("3.1ms").unwrap(), 3_100_000);
        assert_eq!(parse_duration("14h").unwrap(), 14 * 3600 * SEC);
        assert_eq!(parse_duration("10").unwrap(), 10 * SEC);
        assert!(parse_duration("5 fortnights").is_err());
    }
}
