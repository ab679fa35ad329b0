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
    /// CP time per packet a VSWITCH forwards (between a guest's virtual NIC
    /// and the uplink OSA's queues, or between two guests' NICs), charged to
    /// the system: CP moves the data itself, no router guest copies it
    /// (IBM, "z/VM Virtual Switch", z/VM 4.4.0 performance report); the
    /// figure is \[E\] 8 µs, of the order of the per-frame costs above.
    pub vswitch_us: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            receive_us: 10.0,
            siga_us: 5.0,
            osa_latency_us: 40.0,
            vswitch_us: 8.0,
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
        check_cost_us("net.osa_latency_us", self.osa_latency_us)?;
        check_cost_us("net.vswitch_us", self.vswitch_us)
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

/// `[[osa]]`: an OSA-Express feature (OSD CHPID) the VSWITCHes use as uplink.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Osa {
    /// Its CHPID (two hex digits).
    pub chpid: String,
    /// Ports on the feature (1 or 2).
    #[serde(default = "one")]
    pub ports: u8,
    /// Line speed of each port, Gb/s (0.1 to 100; default 1: OSA-Express
    /// 1000BASE-T / GbE).
    #[serde(default = "one_f")]
    pub gbps: f64,
}

fn one() -> u8 {
    1
}
fn one_f() -> f64 {
    1.0
}

/// A VSWITCH's uplink port: the OSA's first device (read, write and data
/// devices follow: DEFINE VSWITCH ... RDEV), its CHPID and port.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Uplink {
    pub rdev: String,
    pub chpid: String,
    #[serde(default)]
    pub port: u8,
}

/// `[[vswitch]]`: a z/VM virtual switch (DEFINE VSWITCH).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vswitch {
    /// Its name (1 to 8 characters).
    pub name: String,
    /// The controller service machine (default DTCVSW1).
    #[serde(default = "controller")]
    pub controller: String,
    /// The uplink OSA port; none: the VSWITCH connects only this
    /// partition's guests.
    #[serde(default)]
    pub uplink: Option<Uplink>,
    /// QUEUESTORAGE, MB (1 to 8; default 8).
    #[serde(default = "qsto")]
    pub queue_storage: u8,
    /// IPTIMEOUT, minutes (1 to 120; default 5).
    #[serde(default = "ipto")]
    pub ip_timeout: u16,
    /// The guests' MTU, bytes (576 to 9000; default 1492): a message is
    /// sent in packets of this size.
    #[serde(default = "mtu")]
    pub mtu: u32,
    /// VLANs the guests may use (SET VSWITCH GRANT ... VLAN); empty: any.
    #[serde(default)]
    pub vlans: Vec<u16>,
}

fn controller() -> String {
    "DTCVSW1".into()
}
fn qsto() -> u8 {
    8
}
fn ipto() -> u16 {
    5
}
fn mtu() -> u32 {
    1492
}

/// A device number as four hex digits.
pub fn parse_rdev(s: &str) -> Result<u16, String> {
    let t = s.trim();
    if t.is_empty() || t.len() > 4 {
        return Err(format!(
            "'{s}' is not a device number (four hex digits, such as 0600)"
        ));
    }
    u16::from_str_radix(t, 16)
        .map_err(|_| format!("'{s}' is not a device number (four hex digits, such as 0600)"))
}

/// Checks of `[[osa]]` and `[[vswitch]]`: CHPIDs well formed and distinct
/// (also from the HiperSockets ones), ports and speeds in range; VSWITCH
/// names distinct, their uplinks on a defined OSA and port, their uplink
/// devices not another's, their settings in CP's ranges.
pub fn validate_vswitches(
    osa: &[Osa],
    vsw: &[Vswitch],
    hs: &[HiperSockets],
) -> Result<(), Invalid> {
    let mut seen: Vec<u8> = hs
        .iter()
        .filter_map(|h| parse_chpid(&h.chpid).ok())
        .collect();
    for (i, o) in osa.iter().enumerate() {
        let place = format!("osa[{i}]");
        let id = parse_chpid(&o.chpid).map_err(|e| Invalid::new(format!("{place}.chpid"), e))?;
        if seen.contains(&id) {
            return invalid(
                format!("{place}.chpid"),
                format!("CHPID {id:02X} is defined twice ([[osa]] or [[hipersockets]])"),
            );
        }
        seen.push(id);
        if !(1..=2).contains(&o.ports) {
            return invalid(
                format!("{place}.ports"),
                "an OSA feature has 1 or 2 ports".into(),
            );
        }
        if !(o.gbps.is_finite() && (0.1..=100.0).contains(&o.gbps)) {
            return invalid(format!("{place}.gbps"), "must be 0.1 to 100 (Gb/s)".into());
        }
    }
    let mut names: Vec<String> = Vec::new();
    let mut rdevs: Vec<(u16, usize)> = Vec::new();
    for (i, v) in vsw.iter().enumerate() {
        let place = format!("vswitch[{i}]");
        if v.name.is_empty() || v.name.len() > 8 || !v.name.is_ascii() {
            return invalid(
                format!("{place}.name"),
                "a VSWITCH name is 1 to 8 characters".into(),
            );
        }
        let up = v.name.to_ascii_uppercase();
        if names.contains(&up) {
            return invalid(
                format!("{place}.name"),
                format!("VSWITCH {up} is defined twice"),
            );
        }
        names.push(up);
        if v.controller.is_empty() || v.controller.len() > 8 || !v.controller.is_ascii() {
            return invalid(
                format!("{place}.controller"),
                "a user ID is 1 to 8 characters".into(),
            );
        }
        if !(1..=8).contains(&v.queue_storage) {
            return invalid(
                format!("{place}.queue_storage"),
                "must be 1 to 8 (MB)".into(),
            );
        }
        if !(1..=120).contains(&v.ip_timeout) {
            return invalid(
                format!("{place}.ip_timeout"),
                "must be 1 to 120 (minutes)".into(),
            );
        }
        if !(576..=9000).contains(&v.mtu) {
            return invalid(format!("{place}.mtu"), "must be 576 to 9000 (bytes)".into());
        }
        for (k, vl) in v.vlans.iter().enumerate() {
            if !(1..=4094).contains(vl) {
                return invalid(
                    format!("{place}.vlans[{k}]"),
                    "a VLAN ID is 1 to 4094".into(),
                );
            }
        }
        if let Some(u) = &v.uplink {
            let d =
                parse_rdev(&u.rdev).map_err(|e| Invalid::new(format!("{place}.uplink.rdev"), e))?;
            if d > 0xFFFD {
                return invalid(
                    format!("{place}.uplink.rdev"),
                    format!("{d:04X}: the read, write and data devices run past FFFF"),
                );
            }
            if let Some((_, j)) = rdevs.iter().find(|(r, _)| r.abs_diff(d) < 3) {
                return invalid(
                    format!("{place}.uplink.rdev"),
                    format!(
                        "devices {d:04X}-{:04X} overlap the uplink of vswitch[{j}]",
                        d + 2
                    ),
                );
            }
            rdevs.push((d, i));
            let id = parse_chpid(&u.chpid)
                .map_err(|e| Invalid::new(format!("{place}.uplink.chpid"), e))?;
            let Some(o) = osa.iter().find(|o| parse_chpid(&o.chpid).ok() == Some(id)) else {
                return invalid(
                    format!("{place}.uplink.chpid"),
                    format!("uplink OSA CHPID {id:02X} is not defined (no [[osa]] with chpid = \"{id:02X}\")"),
                );
            };
            if u.port >= o.ports {
                return invalid(
                    format!("{place}.uplink.port"),
                    format!(
                        "OSA CHPID {id:02X} has {} port(s): port {} does not exist",
                        o.ports, u.port
                    ),
                );
            }
        }
    }
    Ok(())
}
