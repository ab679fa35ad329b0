//! `[flash]`: the Flash Express feature of the CEC and each partition's
//! allocation (storage-class memory, SCM).
//!
//! Defaults and where they come from (docs/zos.md has the table):
//! * `card_pairs = 1`: a Flash Express feature is a redundant pair of PCIe
//!   cards (RAID 10 over the pair); a CEC takes up to 4 pairs [S, topic 11].
//! * `usable_per_pair = "1400G"`: about 1.4 TB usable per pair [S]; taken as
//!   1,400 GB (binary units, as every size in a scenario): 87 whole
//!   increments of 16 GB.
//! * `latency_4k_us = 50`: one 4 KB EADM transfer, inside the 20-100 µs the
//!   model rule gives [E]; `latency_1m_us = 400`: one 1 MB transfer, "a few
//!   hundred µs" [E] (about 2.6 GB/s per transfer stream once started).
//! * `parallelism = 4`: EADM requests in service at once per card pair [E,
//!   an assumption: the feature's internal parallelism is not published;
//!   4 x 1 MB per 400 µs is about 10 GB/s, 4 x 4 KB per 50 µs 80,000 pages/s].

use serde::Deserialize;

use crate::core::units::Size;
use crate::core::{invalid, Invalid};

/// Allocation increment of storage-class memory: 16 GB.
pub const INCREMENT: u64 = 16 << 30;
/// Most card pairs a CEC takes.
pub const MAX_PAIRS: u32 = 4;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    #[serde(default = "d_pairs")]
    pub card_pairs: u32,
    #[serde(default = "d_usable")]
    pub usable_per_pair: Size,
    #[serde(default = "d_lat4k")]
    pub latency_4k_us: f64,
    #[serde(default = "d_lat1m")]
    pub latency_1m_us: f64,
    #[serde(default = "d_par")]
    pub parallelism: u32,
    /// `[[flash.partition]]`: allocations per partition.
    #[serde(default)]
    pub partition: Vec<Alloc>,
}

/// One partition's SCM allocation (the HMC's "initial" and "maximum").
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Alloc {
    pub name: String,
    pub initial: Size,
    /// Default: the initial allocation.
    #[serde(default)]
    pub maximum: Option<Size>,
}

fn d_pairs() -> u32 {
    1
}
fn d_usable() -> Size {
    Size(1400 << 30)
}
fn d_lat4k() -> f64 {
    50.0
}
fn d_lat1m() -> f64 {
    400.0
}
fn d_par() -> u32 {
    4
}

impl Default for Params {
    fn default() -> Self {
        Params {
            card_pairs: d_pairs(),
            usable_per_pair: d_usable(),
            latency_4k_us: d_lat4k(),
            latency_1m_us: d_lat1m(),
            parallelism: d_par(),
            partition: Vec::new(),
        }
    }
}

fn gb(b: u64) -> String {
    format!("{}G", b >> 30)
}

impl Params {
    /// Usable capacity of the installed card pairs, bytes.
    pub fn capacity(&self) -> u64 {
        self.card_pairs as u64 * self.usable_per_pair.0
    }

    /// The allocation of partition `name` (initial, maximum), if any.
    pub fn allocation(&self, name: &str) -> Option<(u64, u64)> {
        self.partition
            .iter()
            .find(|a| a.name.eq_ignore_ascii_case(name))
            .map(|a| (a.initial.0, a.maximum.map_or(a.initial.0, |m| m.0)))
    }

    pub fn validate(&self) -> Result<(), Invalid> {
        if !(1..=MAX_PAIRS).contains(&self.card_pairs) {
            return invalid(
                "flash.card_pairs".into(),
                format!(
                    "{}: a CEC takes 1 to {MAX_PAIRS} Flash Express card pairs",
                    self.card_pairs
                ),
            );
        }
        if self.usable_per_pair.0 < INCREMENT {
            return invalid(
                "flash.usable_per_pair".into(),
                format!(
                    "{} bytes: a card pair holds at least one 16G increment",
                    self.usable_per_pair.0
                ),
            );
        }
        for (k, v, lo, hi) in [
            ("latency_4k_us", self.latency_4k_us, 1.0, 10_000.0),
            ("latency_1m_us", self.latency_1m_us, 1.0, 100_000.0),
        ] {
            if !(v.is_finite() && (lo..=hi).contains(&v)) {
                return invalid(
                    format!("flash.{k}"),
                    format!("{v}: must be {lo} to {hi} microseconds"),
                );
            }
        }
        if self.latency_1m_us < self.latency_4k_us {
            return invalid(
                "flash.latency_1m_us".into(),
                format!(
                    "{}: a 1 MB transfer cannot be faster than a 4 KB one ({} us)",
                    self.latency_1m_us, self.latency_4k_us
                ),
            );
        }
        if !(1..=256).contains(&self.parallelism) {
            return invalid(
                "flash.parallelism".into(),
                format!(
                    "{}: must be 1 to 256 transfers per card pair",
                    self.parallelism
                ),
            );
        }
        let cap = self.capacity();
        let mut total = 0u64;
        for (i, a) in self.partition.iter().enumerate() {
            let at = |k: &str| format!("flash.partition[{i}].{k}");
            if a.name.is_empty() || a.name.len() > 8 {
                return invalid(
                    at("name"),
                    format!("'{}': a partition name is 1 to 8 characters", a.name),
                );
            }
            if self.partition[..i]
                .iter()
                .any(|b| b.name.eq_ignore_ascii_case(&a.name))
            {
                return invalid(
                    at("name"),
                    format!("partition {} has two allocations", a.name),
                );
            }
            let max = a.maximum.map_or(a.initial.0, |m| m.0);
            for (k, v) in [("initial", a.initial.0), ("maximum", max)] {
                if v % INCREMENT != 0 {
                    return invalid(
                        at(k),
                        format!(
                            "{v} bytes: storage-class memory is allocated in increments of 16G"
                        ),
                    );
                }
            }
            total += a.initial.0;
            if total > cap {
                return invalid(
                    at("initial"),
                    format!(
                        "initial allocations add up to {}, over the usable capacity of the {} card pair(s) ({})",
                        gb(total),
                        self.card_pairs,
                        gb(cap)
                    ),
                );
            }
            if max < a.initial.0 {
                return invalid(
                    at("maximum"),
                    format!(
                        "{}: below the initial allocation {}",
                        gb(max),
                        gb(a.initial.0)
                    ),
                );
            }
            if max > cap {
                return invalid(
                    at("maximum"),
                    format!(
                        "{}: over the usable capacity of the {} card pair(s) ({})",
                        gb(max),
                        self.card_pairs,
                        gb(cap)
                    ),
                );
            }
        }
        Ok(())
    }
}
