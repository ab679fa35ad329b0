//! Which z/VM release wrote a file, from its system configuration record
//! (D1R4 MRMTRSYS).
//!
//! IBM's pages describe MTRSYS_HCPCPEID (8 characters at offset 28, from the
//! z/VM 5.3 map) only by name; its exact content was not seen. The detector
//! therefore reads the release from the text when it has a recognisable form
//! (`5.4.0`, `V5R4`, `VM 7.3`, `0730`, `730`, `7.3`), checks it against the
//! length of the record (108 bytes in 4.2, 176 in 4.3 and 4.4, 184 in 5.1 to
//! 5.4, 420 from 6.1: IBM's pages), and otherwise falls back on the length
//! alone. The reader's `--release` option overrides it.

use super::Release;
use crate::ebcdic;

/// How the release used for a file was chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReleaseSource {
    /// Given by the user (`--release`).
    Override,
    /// Read from MTRSYS_HCPCPEID (the decoded text).
    Hcpcpeid(String),
    /// Inferred from the length of MRMTRSYS (the text said nothing usable).
    RecordLength(u16),
    /// No configuration record seen: [`DEFAULT_RELEASE`](super::DEFAULT_RELEASE).
    Default,
}

impl std::fmt::Display for ReleaseSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReleaseSource::Override => write!(f, "given with --release"),
            ReleaseSource::Hcpcpeid(t) => write!(f, "MTRSYS_HCPCPEID {t:?}"),
            ReleaseSource::RecordLength(n) => {
                write!(
                    f,
                    "length of MRMTRSYS ({n} bytes; MTRSYS_HCPCPEID unreadable)"
                )
            }
            ReleaseSource::Default => write!(f, "no MRMTRSYS record: default"),
        }
    }
}

/// A release and how it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReleaseGuess {
    pub release: Release,
    pub source: ReleaseSource,
}

/// Offset and width of MTRSYS_HCPCPEID.
const HCPCPEID: std::ops::Range<usize> = 28..36;

/// The release class of an MRMTRSYS record of `len` bytes (IBM's sizes), as
/// the release whose layouts fit it best.
fn by_length(len: usize) -> Release {
    match len {
        0..=175 => Release(4, 2),
        176..=183 => Release(4, 3),
        184..=419 => Release(5, 4),
        _ => Release(6, 1),
    }
}

/// Whether `r` is consistent with an MRMTRSYS of `len` bytes.
fn plausible(r: Release, len: usize) -> bool {
    let expect = by_length(len);
    match (expect.0, expect.1) {
        (4, 2) => r < Release(4, 3),
        (4, 3) => (Release(4, 3)..Release(5, 0)).contains(&r),
        (5, 4) => (Release(5, 0)..Release(6, 0)).contains(&r),
        _ => r >= Release(6, 0),
    }
}

/// The release written in `text`, if it has one of the recognised forms.
pub fn parse_cp_level(text: &str) -> Option<Release> {
    let t = text.trim().to_ascii_uppercase();
    let t = t.trim_start_matches("Z/VM").trim_start_matches("VM").trim();
    // V5R4, V5R4M0
    if let Some(rest) = t.strip_prefix('V') {
        if let Some((v, r)) = rest.split_once('R') {
            let r: String = r.chars().take_while(|c| c.is_ascii_digit()).collect();
            if let (Ok(v), Ok(r)) = (v.parse::<u8>(), r.parse::<u8>()) {
                return valid(Release(v, r));
            }
        }
    }
    // 5.4, 5.4.0
    if t.contains('.') {
        let mut it = t.split('.');
        let v = it.next()?.trim().parse::<u8>().ok()?;
        let r: String = it
            .next()?
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        return valid(Release(v, r.parse().ok()?));
    }
    // 730, 0730 (version, release, modification)
    let digits: String = t.chars().filter(|c| !c.is_whitespace()).collect();
    if (3..=4).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) {
        let d = digits.trim_start_matches('0').as_bytes();
        if d.len() == 3 {
            return valid(Release(d[0] - b'0', d[1] - b'0'));
        }
    }
    None
}

/// Releases z/VM has had (3.1 to 9.9 as a generous range).
fn valid(r: Release) -> Option<Release> {
    (Release(3, 1)..=Release(9, 9))
        .contains(&r)
        .then_some(r)
        .filter(|r| r.1 <= 9)
}

/// The release of the system that wrote `mtrsys` (a whole D1R4 record).
pub fn detect_release(mtrsys: &[u8]) -> ReleaseGuess {
    let len = mtrsys.len();
    let text = mtrsys
        .get(HCPCPEID)
        .map(|b| ebcdic::decode(ebcdic::trim_field(b)))
        .unwrap_or_default();
    if let Some(r) = parse_cp_level(&text) {
        if plausible(r, len) {
            return ReleaseGuess {
                release: r,
                source: ReleaseSource::Hcpcpeid(text),
            };
        }
    }
    ReleaseGuess {
        release: by_length(len),
        source: ReleaseSource::RecordLength(len as u16),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mtrsys(len: usize, id: &str) -> Vec<u8> {
        let mut r = vec![0u8; len];
        ebcdic::encode_field(id, &mut r[28..36]);
        r
    }

    #[test]
    fn cp_level_forms() {
        for (t, want) in [
            ("5.4.0", Some(Release(5, 4))),
            ("7.3", Some(Release(7, 3))),
            ("V6R2", Some(Release(6, 2))),
            ("V7R1M0", Some(Release(7, 1))),
            ("z/VM 6.4", Some(Release(6, 4))),
            ("0730", Some(Release(7, 3))),
            ("540", Some(Release(5, 4))),
            ("", None),
            ("HCP", None),
            ("99.9", None),
            ("12345", None),
        ] {
            assert_eq!(parse_cp_level(t), want, "{t:?}");
        }
    }

    #[test]
    fn text_checked_against_the_record_length() {
        assert_eq!(detect_release(&mtrsys(184, "5.4.0")).release, Release(5, 4));
        assert_eq!(detect_release(&mtrsys(420, "V7R3")).release, Release(7, 3));
        // Text contradicting the length: the length wins.
        let g = detect_release(&mtrsys(184, "7.3.0"));
        assert_eq!(
            g,
            ReleaseGuess {
                release: Release(5, 4),
                source: ReleaseSource::RecordLength(184)
            }
        );
        // Unreadable text: the length class.
        assert_eq!(detect_release(&mtrsys(420, "")).release, Release(6, 1));
        assert_eq!(detect_release(&mtrsys(176, "????")).release, Release(4, 3));
        // A record too short for the field.
        assert_eq!(detect_release(&[0u8; 24]).release, Release(4, 2));
    }
}
