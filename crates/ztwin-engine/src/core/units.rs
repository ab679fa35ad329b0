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
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            N(u64),
            S(String),
        }
        match Raw::deserialize(d)? {
            Raw::N(n) => Ok(Size(n)),
            Raw::S(s) => parse_size(&s).map(Size).map_err(de::Error::custom),
        }
    }
}

/// A duration field: a string with a unit or a number of seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Duration(pub Ns);

impl<'de> Deserialize<'de> for Duration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            N(f64),
            S(String),
        }
        match Raw::deserialize(d)? {
            Raw::N(n) if n.is_finite() && n >= 0.0 => Ok(Duration((n * 1e9).round() as Ns)),
            Raw::N(n) => Err(de::Error::custom(format!(
                "duration {n} must be a non-negative number of seconds"
            ))),
            Raw::S(s) => parse_duration(&s).map(Duration).map_err(de::Error::custom),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
