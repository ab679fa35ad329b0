//! The VDISK component's parameters: `[vdisk]` (the SET VDISK limits CP
//! starts with and the CP costs of a VDISK I/O) and the directory's V-DISK
//! statements of a `[[guest]]` (`vdisk = [{ vdev = "0300", size = "2G" }]`).

use crate::core::units::Size;
use crate::core::{check_cost_us, invalid, Invalid};
use serde::Deserialize;

/// 512-byte blocks of the largest VFB-512 virtual disk (2 GB less 8 blocks:
/// CP's maximum for DEFINE VFB-512).
pub const MAX_BLOCKS: u64 = 4_194_296;

/// USERLIM's built-in default in blocks \[E\]: 144000 blocks (about 70 MB),
/// as recalled from CP's documentation; not confirmed from the sources.
pub const USERLIM_DEFAULT: u64 = 144_000;

/// A SET VDISK limit: a number of 512-byte blocks, or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Infinite,
    Blocks(u64),
}

impl Limit {
    /// Whether `blocks` fit.
    pub fn allows(self, blocks: u64) -> bool {
        match self {
            Limit::Infinite => true,
            Limit::Blocks(n) => blocks <= n,
        }
    }

    /// As QUERY VDISK shows it.
    pub fn show(self) -> String {
        match self {
            Limit::Infinite => "INFINITE".into(),
            Limit::Blocks(n) => format!("{n} BLK"),
        }
    }
}

/// A limit as SET VDISK takes it: `INFINITE`, a number of blocks (optionally
/// followed by `BLK`), or a size with K, M, G or T. Errors are the reason.
pub fn parse_limit(words: &[&str]) -> Result<Limit, String> {
    match words {
        [w] if w.eq_ignore_ascii_case("INFINITE") => Ok(Limit::Infinite),
        [n, b] if b.eq_ignore_ascii_case("BLK") => parse_blocks(n).map(Limit::Blocks),
        [n] => parse_blocks(n).map(Limit::Blocks),
        [] => Err("a limit is missing".into()),
        _ => Err(format!("'{}' is not a limit", words.join(" "))),
    }
}

/// A number of blocks, or a size (`512M`, `2G`) in blocks.
pub fn parse_blocks(w: &str) -> Result<u64, String> {
    let up = w.to_ascii_uppercase();
    let (digits, mult) = match up.chars().last() {
        Some('K') => (&up[..up.len() - 1], 1u64 << 10),
        Some('M') => (&up[..up.len() - 1], 1 << 20),
        Some('G') => (&up[..up.len() - 1], 1 << 30),
        Some('T') => (&up[..up.len() - 1], 1 << 40),
        _ => (&up[..], 0),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("'{w}' is not a number of blocks or a size"))?;
    if mult == 0 {
        return Ok(n);
    }
    n.checked_mul(mult)
        .map(|b| b / 512)
        .ok_or_else(|| format!("'{w}' is too large"))
}

/// `[vdisk]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// SET VDISK SYSLIM at IPL: `"infinite"`, blocks, or a size (`"8G"`);
    /// default: a quarter of central storage \[E\] (CP's built-in default
    /// depends on storage size; its rule is not in the sources).
    #[serde(default)]
    pub syslim: Option<String>,
    /// SET VDISK USERLIM at IPL (same forms); default 144000 blocks \[E\].
    #[serde(default)]
    pub userlim: Option<String>,
    /// CP time per VDISK I/O (DIAGNOSE X'250' or SSCH path, the copy's set
    /// up), microseconds \[E\]: 5-10.
    #[serde(default = "io_us")]
    pub io_us: f64,
    /// CP time per 4 KB page moved between the guest's buffer and the VDISK
    /// \[E\]: about 1.
    #[serde(default = "page_us")]
    pub page_us: f64,
    /// Time one VDISK I/O holds the system's VDISK serialisation (one lock
    /// for all VDISKs), microseconds. The DCSS paper (D2) names "lock
    /// contention" as why VDISK swapping stops scaling at four guests, each
    /// with its own VDISK, so the lock is system-wide (which lock is not
    /// known: CP's documented VDISK I/O lock, QDISK's QDILOCK, is one per
    /// VDISK; `docs/fidelity.md`, D2); its hold is not
    /// published: the default 1 \[E\] is small (S6's 280 users do about 4,500
    /// VDISK I/Os/s on z/VM 5.2 without a visible limit), D2's scenario
    /// calibrates its own on the knee (`docs/fidelity.md`, D2). Waiting
    /// guests spin (CP time charged to them).
    #[serde(default = "lock_us")]
    pub lock_us: f64,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            syslim: None,
            userlim: None,
            io_us: io_us(),
            page_us: page_us(),
            lock_us: lock_us(),
        }
    }
}

fn io_us() -> f64 {
    6.0
}
fn page_us() -> f64 {
    1.0
}
fn lock_us() -> f64 {
    1.0
}

impl Params {
    /// The limits at IPL for a system of `central` bytes.
    pub fn limits(&self, central: u64) -> (Limit, Limit) {
        let lim = |s: &Option<String>, dflt: Limit| match s {
            None => dflt,
            Some(s) => parse_limit(&s.split_whitespace().collect::<Vec<_>>()).expect("validated"),
        };
        (
            lim(&self.syslim, Limit::Blocks(central / 4 / 512)),
            lim(&self.userlim, Limit::Blocks(USERLIM_DEFAULT)),
        )
    }

    pub fn validate(&self) -> Result<(), Invalid> {
        for (k, v) in [
            ("vdisk.syslim", &self.syslim),
            ("vdisk.userlim", &self.userlim),
        ] {
            if let Some(s) = v {
                parse_limit(&s.split_whitespace().collect::<Vec<_>>()).map_err(|e| {
                    Invalid::new(
                        k,
                        format!("{e} (\"infinite\", blocks or a size such as \"8G\")"),
                    )
                })?;
            }
        }
        check_cost_us("vdisk.io_us", self.io_us)?;
        check_cost_us("vdisk.page_us", self.page_us)?;
        check_cost_us("vdisk.lock_us", self.lock_us)?;
        Ok(())
    }
}

/// A directory V-DISK statement (`MDISK vdev FB-512 V-DISK blocks`): the
/// VDISK is created when the guest logs on and destroyed when it logs off.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirVdisk {
    /// Virtual device number (hex).
    pub vdev: String,
    /// Its size (a multiple of 512 bytes; at most 4194296 blocks).
    pub size: Size,
}

impl DirVdisk {
    /// The statement's device number and blocks, or why not.
    pub fn check(&self, place: &str) -> Result<(u16, u64), Invalid> {
        let vdev = parse_vdev(&self.vdev).map_err(|e| Invalid::new(format!("{place}.vdev"), e))?;
        let blocks = self.size.0 / 512;
        if self.size.0 % 512 != 0 || blocks == 0 || blocks > MAX_BLOCKS {
            return invalid(
                format!("{place}.size"),
                format!(
                    "{} bytes: a VDISK is 1 to {MAX_BLOCKS} blocks of 512 bytes",
                    self.size.0
                ),
            );
        }
        Ok((vdev, blocks))
    }
}

/// A virtual device number: 1 to 4 hex digits.
pub fn parse_vdev(s: &str) -> Result<u16, String> {
    if s.is_empty() || s.len() > 4 {
        return Err(format!("'{s}' is not a device number (1 to 4 hex digits)"));
    }
    u16::from_str_radix(s, 16)
        .map_err(|_| format!("'{s}' is not a device number (1 to 4 hex digits)"))
}
