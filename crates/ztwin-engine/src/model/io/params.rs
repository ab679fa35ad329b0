//! The I/O component's parameters: the `[[paging]]` and `[[dasd]]` volume
//! groups of a scenario (device type, count, addresses, volume serials,
//! service times), their checks, and the volumes they define.
//!
//! `[[paging]]` volumes are also paging's: their `cylinders` (the PAGE
//! extent) give the page slots ([`volumes`] returns both).

use super::VolumeDef;
use crate::core::{invalid, Invalid};
use serde::Deserialize;
use std::collections::HashSet;

/// Service-time parameters of a DASD volume (milliseconds).
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServiceTime {
    pub pending_ms: f64,
    pub disconnect_ms: f64,
    /// Connect time per I/O (command overhead).
    pub connect_ms_per_io: f64,
    /// Connect time per 4 KB page moved.
    pub connect_ms_per_page: f64,
    /// Relative spread of each component (uniform ±), for realistic variation.
    pub jitter: f64,
}

impl Default for ServiceTime {
    fn default() -> Self {
        ServiceTime {
            pending_ms: 0.2,
            disconnect_ms: 0.0,
            connect_ms_per_io: 0.1,
            connect_ms_per_page: 0.5,
            jitter: 0.1,
        }
    }
}

/// A group of identical paging volumes (CP-owned, PAGE extents).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PagingGroup {
    /// "3390-3", "3390-9", "3390-27", "3390-54".
    pub device_type: String,
    #[serde(default = "one")]
    pub count: u32,
    /// Device number of the first volume (hex); the others follow.
    pub first_address: String,
    /// Volume serials: prefix followed by a sequence number.
    pub volser_prefix: String,
    /// Cylinders used for the PAGE extent (default: the whole volume).
    #[serde(default)]
    pub cylinders: Option<u32>,
    #[serde(default)]
    pub service: ServiceTime,
}

/// A group of non-paging DASD volumes holding minidisks.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DasdGroup {
    pub device_type: String,
    #[serde(default = "one")]
    pub count: u32,
    pub first_address: String,
    pub volser_prefix: String,
    #[serde(default)]
    pub service: ServiceTime,
}

fn one() -> u32 {
    1
}

/// 3390 geometry: cylinders per model.
pub fn cylinders_of(device_type: &str) -> Option<u32> {
    match device_type {
        "3390-1" => Some(1_113),
        "3390-2" => Some(2_226),
        "3390-3" => Some(3_339),
        "3390-9" => Some(10_017),
        "3390-27" => Some(32_760),
        "3390-54" => Some(65_520),
        _ => None,
    }
}

/// Page slots per 3390 cylinder (15 tracks of 12 pages).
pub const SLOTS_PER_CYL: u64 = 180;

pub fn parse_devno(s: &str) -> Result<u16, String> {
    u16::from_str_radix(s.trim(), 16)
        .map_err(|_| format!("'{s}' is not a hexadecimal device number such as 9F01"))
}

/// Volume serial for member `k` of a group of `count` volumes.
pub fn volser(prefix: &str, k: u32, count: u32) -> String {
    if count == 1 {
        return prefix.to_string();
    }
    let w = count.to_string().len().max(1);
    format!("{prefix}{:0w$}", k + 1)
}

/// The volume groups' checks: known device types, counts, device numbers
/// (unique, within FFFF), volume serials (unique, at most 6 characters),
/// PAGE extents within the volume, service times.
pub fn validate(paging: &[PagingGroup], dasd: &[DasdGroup]) -> Result<(), Invalid> {
    let mut addrs = HashSet::new();
    let mut volsers = HashSet::new();
    let groups = paging
        .iter()
        .enumerate()
        .map(|(i, g)| {
            (
                format!("paging[{i}]"),
                &g.device_type,
                g.count,
                &g.first_address,
                &g.volser_prefix,
                &g.service,
                g.cylinders,
            )
        })
        .chain(dasd.iter().enumerate().map(|(i, g)| {
            (
                format!("dasd[{i}]"),
                &g.device_type,
                g.count,
                &g.first_address,
                &g.volser_prefix,
                &g.service,
                None,
            )
        }));
    for (place, dtype, count, first, prefix, svc, cyls) in groups {
        let Some(full) = cylinders_of(dtype) else {
            return invalid(
                format!("{place}.device_type"),
                format!("'{dtype}' is not a known device type (3390-1/-2/-3/-9/-27/-54)"),
            );
        };
        if count == 0 || count > 1000 {
            return invalid(format!("{place}.count"), "must be 1 to 1000".into());
        }
        let base =
            parse_devno(first).map_err(|e| Invalid::new(format!("{place}.first_address"), e))?;
        if base as u32 + count > 0x1_0000 {
            return invalid(
                format!("{place}.count"),
                "device numbers run past FFFF".into(),
            );
        }
        if let Some(c) = cyls {
            if c == 0 || c > full {
                return invalid(
                    format!("{place}.cylinders"),
                    format!("{c} cylinders: a {dtype} has {full}"),
                );
            }
        }
        for k in 0..count {
            let a = base + k as u16;
            if !addrs.insert(a) {
                return invalid(
                    format!("{place}.first_address"),
                    format!("device {a:04X} is defined twice"),
                );
            }
            let v = volser(prefix, k, count);
            if v.len() > 6 {
                return invalid(
                    format!("{place}.volser_prefix"),
                    format!("volume serial '{v}' is longer than 6 characters"),
                );
            }
            if !volsers.insert(v.clone()) {
                return invalid(
                    format!("{place}.volser_prefix"),
                    format!("volume serial '{v}' is used twice"),
                );
            }
        }
        for (n, v) in [
            ("pending_ms", svc.pending_ms),
            ("disconnect_ms", svc.disconnect_ms),
            ("connect_ms_per_io", svc.connect_ms_per_io),
            ("connect_ms_per_page", svc.connect_ms_per_page),
        ] {
            if !(v.is_finite() && (0.0..=10_000.0).contains(&v)) {
                return invalid(
                    format!("{place}.service.{n}"),
                    format!("{v}: must be 0 to 10000 ms"),
                );
            }
        }
        if svc.pending_ms + svc.disconnect_ms + svc.connect_ms_per_io + svc.connect_ms_per_page
            <= 0.0
        {
            return invalid(
                format!("{place}.service"),
                "service time must be positive".into(),
            );
        }
        if !(0.0..1.0).contains(&svc.jitter) {
            return invalid(
                format!("{place}.service.jitter"),
                "must be in [0, 1)".into(),
            );
        }
    }
    Ok(())
}

/// Index among all DASD (non-paging) volumes of device number `d`.
pub fn dasd_volume_index(dasd: &[DasdGroup], d: u16) -> Option<usize> {
    let mut idx = 0usize;
    for g in dasd {
        let base = parse_devno(&g.first_address).ok()?;
        if d >= base && (d as u32) < base as u32 + g.count {
            return Some(idx + (d - base) as usize);
        }
        idx += g.count as usize;
    }
    None
}

/// The volumes of validated groups, paging groups first, then minidisk
/// groups; and the page slots of each paging volume, as `(volume, slots)`.
pub fn volumes(paging: &[PagingGroup], dasd: &[DasdGroup]) -> (Vec<VolumeDef>, Vec<(u32, u32)>) {
    let mut defs = Vec::new();
    let mut slots = Vec::new();
    for g in paging {
        let base = parse_devno(&g.first_address).expect("validated");
        let full = cylinders_of(&g.device_type).expect("validated");
        let cyls = g.cylinders.unwrap_or(full);
        for k in 0..g.count {
            slots.push((defs.len() as u32, (cyls as u64 * SLOTS_PER_CYL) as u32));
            defs.push(VolumeDef {
                devno: base + k as u16,
                volser: volser(&g.volser_prefix, k, g.count),
                device_type: g.device_type.clone(),
                cylinders: cyls,
                paging: true,
                service: g.service.clone(),
            });
        }
    }
    for g in dasd {
        let base = parse_devno(&g.first_address).expect("validated");
        let cyls = cylinders_of(&g.device_type).expect("validated");
        for k in 0..g.count {
            defs.push(VolumeDef {
                devno: base + k as u16,
                volser: volser(&g.volser_prefix, k, g.count),
                device_type: g.device_type.clone(),
                cylinders: cyls,
                paging: false,
                service: g.service.clone(),
            });
        }
    }
    (defs, slots)
}
