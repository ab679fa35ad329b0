//! The network component's parameters: `[[hipersockets]]` (the CEC's
//! HiperSockets channel paths) and `[net]` (the costs and latencies of a
//! network send, receive and OSA adapter). The guests' network workloads are
//! the workload component's (`workload = { type = "net", ... }`).

use crate::core::units::Size;
use crate::core::{check_cost_us, invalid, Invalid};
use serde::Deserialize;

/// `[[hipersockets]]`: a HiperSockets (IQD) channel path of the CEC.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HiperSockets {
    /// Its CHPID (two hex digits).
    pub chpid: String,
    /// Maximum frame size: 16K, 24K, 40K or 64K (the IQD CHPID's MFS).
    #[serde(default = "mfs")]
    pub mfs: Size,
    /// Partitions with devices on it (default: every partition of the CEC).
    #[serde(default)]
    pub partitions: Vec<String>,
    /// Bytes per second the firmware copies, in GB/s (0.1 to 100;
    /// default 3, \[E\] 2-5 GB/s: zvm-model.md topic 9).
    #[serde(default = "copy_gb_s")]
    pub copy_gb_s: f64,
}

fn mfs() -> Size {
    Size(16 << 10)
}
fn copy_gb_s() -> f64 {
    3.0
}

/// `[net]`: costs of the network path, in microseconds.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// CP time on the receiving z/VM side per inbound frame (adapter
    /// interrupt, shadow-queue update), charged to the guest (\[E\] 5-20 µs
    /// per frame: zvm-model.md topic 9; default 10).
    pub receive_us: f64,
    /// CPU time of a SIGA that starts an asynchronous (OSA) send (\[E\] 5).
    pub siga_us: f64,
    /// One-way latency of an OSA adapter path (adapter, wire, adapter) (\[E\] 40).
    pub osa_latency_us: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            receive_us: 10.0,
            siga_us: 5.0,
            osa_latency_us: 40.0,
        }
    }
}

/// A CHPID as two hex digits.
pub fn parse_chpid(s: &str) -> Result<u8, String> {
    let t = s.trim();
    if t.is_empty() || t.len() > 2 {
        return Err(format!("'{s}' is not a CHPID (two hex digits, such as F4)"));
    }
    u8::from_str_radix(t, 16)
        .map_err(|_| format!("'{s}' is not a CHPID (two hex digits, such as F4)"))
}

impl Params {
    pub fn validate(&self) -> Result<(), Invalid> {
        check_cost_us("net.receive_us", self.receive_us)?;
        check_cost_us("net.siga_us", self.siga_us)?;
        check_cost_us("net.osa_latency_us", self.osa_latency_us)
    }
}

/// Checks of the `[[hipersockets]]` entries: CHPIDs well formed and
/// distinct, frame sizes HiperSockets offers, copy rates in range, the
/// partitions named on the CEC (`partition_known`).
pub fn validate(
    hs: &[HiperSockets],
    partition_known: impl Fn(&str) -> bool,
) -> Result<(), Invalid> {
    let mut seen = Vec::new();
    for (i, h) in hs.iter().enumerate() {
        let place = format!("hipersockets[{i}]");
        let id = parse_chpid(&h.chpid).map_err(|e| Invalid::new(format!("{place}.chpid"), e))?;
        if seen.contains(&id) {
            return invalid(
                format!("{place}.chpid"),
                format!("CHPID {id:02X} is defined twice"),
            );
        }
        seen.push(id);
        if ![16u64, 24, 40, 64].contains(&(h.mfs.0 >> 10)) || h.mfs.0 % 1024 != 0 {
            return invalid(
                format!("{place}.mfs"),
                "a HiperSockets frame size is 16K, 24K, 40K or 64K".into(),
            );
        }
        if !(h.copy_gb_s.is_finite() && (0.1..=100.0).contains(&h.copy_gb_s)) {
            return invalid(
                format!("{place}.copy_gb_s"),
                "must be 0.1 to 100 (GB/s)".into(),
            );
        }
        for (k, p) in h.partitions.iter().enumerate() {
            if !partition_known(p) {
                return invalid(
                    format!("{place}.partitions[{k}]"),
                    format!("partition '{p}' is not on the CEC (the z/VM partition or an [[lpar.partition]])"),
                );
            }
        }
    }
    Ok(())
}
