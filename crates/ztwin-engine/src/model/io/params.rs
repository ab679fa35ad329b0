//! The I/O component's parameters: the `[[paging]]` and `[[dasd]]` volume
//! groups of a scenario (device type, count, addresses, volume serials,
//! service times, where they sit), the `[io]` section (CP's I/O settings and
//! CPU costs per path), the channel paths (`[[chpid]]`), optional switches
//! (`[[switch]]`), the storage servers with their ranks (`[[storage_server]]`,
//! `[[storage_server.rank]]`) and the logical control units
//! (`[[control_unit]]`); their checks ([`validate`]), device geometry, and the
//! volumes they define ([`volumes`]).
//!
//! `[[paging]]` volumes are also paging's: their `cylinders` (the PAGE
//! extent; for FBA and EDEV their `size`) give the page slots ([`volumes`]
//! returns both).
//!
//! A device group without `path` keeps the constant service model (its
//! `service` times, one exposure): scenarios written before the path model
//! run byte for byte as before. A group with `path` gets its times from the
//! path: pending (CMR, channel and host-adapter contention, switch hops),
//! disconnect (cache misses to its rank, NVS full, prestaging) and connect
//! (command overhead and bytes at the link rate), see `path.rs`.
//!
//! Sources of the defaults are given per field: [S] stated by IBM or another
//! consulted source, [K] established domain knowledge, [E] an estimate (a
//! starting value, to be calibrated at most once per study).

use super::VolumeDef;
use crate::core::units::Size;
use crate::core::{invalid, Invalid};
use serde::Deserialize;
use std::collections::{HashMap, HashSet};

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
    /// Size of an FBA or EDEV volume.
    #[serde(default)]
    pub size: Option<Size>,
    #[serde(default)]
    pub service: ServiceTime,
    /// Where the volumes sit (the path model); without it, `service`.
    #[serde(default)]
    pub path: Option<DevicePath>,
    /// Share of the PAGE extent's slots in use when the run starts (0 to 1),
    /// by pages the run does not model; the free rest lies in short gaps
    /// (paging's `occupy`).
    #[serde(default)]
    pub used: f64,
}

/// The fraction of slots in use at the start of each paging volume, in the
/// order of [`volumes`]' slots.
pub fn paging_used(paging: &[PagingGroup]) -> Vec<f64> {
    paging
        .iter()
        .flat_map(|g| std::iter::repeat_n(g.used, g.count as usize))
        .collect()
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
    /// Size of an FBA or EDEV volume.
    #[serde(default)]
    pub size: Option<Size>,
    #[serde(default)]
    pub service: ServiceTime,
    /// Where the volumes sit (the path model); without it, `service`.
    #[serde(default)]
    pub path: Option<DevicePath>,
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

/// The volume groups' checks: known device types (and sizes), counts, device
/// numbers (unique, within FFFF), volume serials (unique, at most 6
/// characters), PAGE extents within the volume, service times; then the I/O
/// sections and the groups' paths ([`validate_paths`]).
pub fn validate(paging: &[PagingGroup], dasd: &[DasdGroup], s: &Sections) -> Result<(), Invalid> {
    for (i, g) in paging.iter().enumerate() {
        if !(0.0..=1.0).contains(&g.used) {
            return invalid(
                format!("paging[{i}].used"),
                format!("{} is not a share of the slots (0 to 1)", g.used),
            );
        }
    }
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
                g.size,
                g.path.as_ref(),
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
                g.size,
                g.path.as_ref(),
            )
        }));
    let mut refs = Vec::new();
    for (place, dtype, count, first, prefix, svc, cyls, size, path) in groups {
        let geo =
            geometry(dtype, size).map_err(|e| Invalid::new(format!("{place}.device_type"), e))?;
        let full = geo.cylinders;
        if cyls.is_some() && geo.kind != DevKind::Eckd {
            return invalid(
                format!("{place}.cylinders"),
                format!("a {dtype} has no cylinders: its size is the paging extent"),
            );
        }
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
        refs.push(GroupRef {
            place,
            device_type: dtype,
            size,
            count,
            first: base,
            path,
        });
    }
    validate_paths(s, &refs, &addrs)
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

/// What a workload needs to know of `[[dasd]]` volume `d` (validated groups).
pub fn dasd_info(dasd: &[DasdGroup], d: u16) -> Option<crate::model::workload::params::DasdInfo> {
    for g in dasd {
        let base = parse_devno(&g.first_address).ok()?;
        if d >= base && (d as u32) < base as u32 + g.count {
            let geo = geometry(&g.device_type, g.size).ok()?;
            return Some(crate::model::workload::params::DasdInfo {
                blocks: geo.blocks,
                kind: geo.kind,
                aliases: g.path.as_ref().map_or(0, |p| p.aliases),
            });
        }
    }
    None
}

/// The volumes of validated groups, paging groups first, then minidisk
/// groups; and the page slots of each paging volume, as `(volume, slots)`.
pub fn volumes(paging: &[PagingGroup], dasd: &[DasdGroup]) -> (Vec<VolumeDef>, Vec<(u32, u32)>) {
    let mut defs = Vec::new();
    let mut slots = Vec::new();
    let groups = paging
        .iter()
        .map(|g| {
            (
                true,
                &g.device_type,
                g.count,
                &g.first_address,
                &g.volser_prefix,
                g.cylinders,
                g.size,
                &g.service,
                &g.path,
            )
        })
        .chain(dasd.iter().map(|g| {
            (
                false,
                &g.device_type,
                g.count,
                &g.first_address,
                &g.volser_prefix,
                None,
                g.size,
                &g.service,
                &g.path,
            )
        }));
    for (is_paging, dtype, count, first, prefix, cylinders, size, service, path) in groups {
        let base = parse_devno(first).expect("validated");
        let geo = geometry(dtype, size).expect("validated");
        let cyls = cylinders.unwrap_or(geo.cylinders);
        let npav = path.as_ref().map_or(0, |p| p.aliases);
        let alias0 = path
            .as_ref()
            .and_then(|p| p.alias_address.as_deref())
            .map_or(base.wrapping_add(0x80), |a| {
                parse_devno(a).expect("validated")
            });
        for k in 0..count {
            if is_paging {
                let n = if geo.kind == DevKind::Eckd {
                    cyls as u64 * SLOTS_PER_CYL
                } else {
                    geo.blocks
                };
                slots.push((defs.len() as u32, n as u32));
            }
            defs.push(VolumeDef {
                devno: base + k as u16,
                volser: volser(prefix, k, count),
                device_type: dtype.clone(),
                cylinders: cyls,
                paging: is_paging,
                service: service.clone(),
                kind: geo.kind,
                blocks: geo.blocks,
                path: path.clone(),
                aliases: (0..npav).map(|j| alias0 + (k * npav + j) as u16).collect(),
            });
        }
    }
    (defs, slots)
}

// ------------------------------------------------------------------ the path model

fn bad<T>(place: impl Into<String>, reason: impl Into<String>) -> Result<T, Invalid> {
    Err(Invalid {
        place: place.into(),
        reason: reason.into(),
    })
}

// ------------------------------------------------------------------ [io]

/// How CP pages to an EDEV (SCSI LUN emulated as FBA).
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EdevPaging {
    /// From the CP level: `fba` before 5.3, `direct` from 5.3.
    Auto,
    /// Through CP's FBA emulation, one I/O at a time per LUN (z/VM 5.2).
    Fba,
    /// Paging calls the SCSI layer directly and overlaps several I/Os per
    /// LUN (z/VM 5.3 and later) [S: IBM z/VM 5.3 SCSI performance report].
    Direct,
}

/// A yes/no setting whose default follows the CP level.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Auto {
    Auto,
    Yes,
    No,
}

/// `[io]`: CP's I/O settings and CPU costs that depend on the path.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct IoParams {
    /// Command-response (CMR) baseline of pending time on a path-model
    /// device, ms [E: spec topic 8, 0.02-0.1].
    pub cmr_ms: f64,
    /// CP uses High Performance FICON (transport mode) for its paging I/O
    /// (z/VM 6.4+) [S: 640hpp]: the command overhead of connect time is cut
    /// by `transport_factor`.
    pub transport_mode: bool,
    /// Share of command-mode connect overhead left in transport mode
    /// [E: spec topic 8, about half].
    pub transport_factor: f64,
    /// CP paging may use HyperPAV aliases (z/VM 6.4+) [S: 640hpp]. Minidisk
    /// I/O uses the aliases of its volume from 5.3 (static PAV from 5.2).
    pub paging_aliases: bool,
    /// The defect of APAR VM64199 (z/VM 5.2 before UM32047): the minidisk
    /// cache's own I/Os are forced to the base device and never use its PAV
    /// aliases [S: case study S5].
    pub mdc_pav_defect: bool,
    /// EDEV paging path: `auto`, `fba` or `direct`.
    pub edev_paging: EdevPaging,
    /// Overlapped paging I/Os per EDEV LUN when paging calls the SCSI layer
    /// directly [E; one under FBA emulation].
    pub edev_paging_depth: u32,
    /// CMS FORMAT of an EDEV minidisk zeroes it with SCSI WRITE SAME
    /// (`auto`: from 5.3) [S: 530scsi].
    pub write_same: Auto,
    /// CP CPU per I/O to an EDEV through the FBA emulation (SCSI command
    /// build, QDIO queueing, interrupt), µs, on top of `cp_costs.io_us` [E:
    /// spec topic 4.7, "a much longer path than ECKD"; with `edev_page_us`
    /// chosen so that 5.3 EDEV paging costs about 1.65 times ECKD's CP per
    /// page moved, the middle of the spec's 1.3-2].
    pub edev_io_us: f64,
    /// CP CPU per 4 KB block an EDEV I/O moves through the FBA emulation
    /// (block translation, buffer handling), µs [E].
    pub edev_page_us: f64,
    /// Factor on the EDEV paging costs when paging calls the SCSI layer
    /// directly [S: 530scsi, CP CPU per page moved -25%].
    pub scsi_direct_factor: f64,
    /// Factor on every EDEV cost from the 5.3 SCSI path tuning [S: 530scsi,
    /// -4 to -15% CP CPU per unit of work; 0.9 taken].
    pub scsi_path_factor: f64,
}

impl Default for IoParams {
    fn default() -> Self {
        IoParams {
            cmr_ms: 0.05,
            transport_mode: false,
            transport_factor: 0.5,
            paging_aliases: false,
            mdc_pav_defect: false,
            edev_paging: EdevPaging::Auto,
            edev_paging_depth: 4,
            write_same: Auto::Auto,
            edev_io_us: 30.0,
            edev_page_us: 5.0,
            scsi_direct_factor: 0.75,
            scsi_path_factor: 0.9,
        }
    }
}

impl IoParams {
    pub fn validate(&self) -> Result<(), Invalid> {
        if !(self.cmr_ms.is_finite() && (0.0..=100.0).contains(&self.cmr_ms)) {
            return bad("io.cmr_ms", "must be 0 to 100 ms");
        }
        if !(self.transport_factor > 0.0 && self.transport_factor <= 1.0) {
            return bad("io.transport_factor", "must be in (0, 1]");
        }
        if !(1..=64).contains(&self.edev_paging_depth) {
            return bad("io.edev_paging_depth", "must be 1 to 64");
        }
        for (k, v) in [
            ("edev_io_us", self.edev_io_us),
            ("edev_page_us", self.edev_page_us),
        ] {
            if !(v.is_finite() && (0.0..=100_000.0).contains(&v)) {
                return bad(format!("io.{k}"), "must be 0 to 100000 microseconds");
            }
        }
        for (k, v) in [
            ("scsi_direct_factor", self.scsi_direct_factor),
            ("scsi_path_factor", self.scsi_path_factor),
        ] {
            if !(v > 0.0 && v <= 2.0) {
                return bad(format!("io.{k}"), "must be in (0, 2]");
            }
        }
        Ok(())
    }
}

/// CP level as (version, release), e.g. "5.3" -> (5, 3).
pub fn cp_level(s: &str) -> (u32, u32) {
    let mut it = s.split('.').map(|p| p.trim().parse::<u32>().unwrap_or(0));
    (it.next().unwrap_or(0), it.next().unwrap_or(0))
}

// ------------------------------------------------------------------ devices

/// The kinds of DASD CP drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DevKind {
    /// Count-key-data (3390) volumes.
    Eckd,
    /// Fixed-block (9336 and the like).
    Fba,
    /// A SCSI LUN behind FCP adapters, emulated by CP as an FBA device.
    Edev,
}

/// A device type's kind and capacity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    pub kind: DevKind,
    /// Cylinders (ECKD), 0 otherwise.
    pub cylinders: u32,
    /// Capacity in 4 KB blocks (page slots).
    pub blocks: u64,
}

/// 4 KB records per 3390 track [K].
pub const PAGES_PER_TRACK: u32 = 12;
/// Tracks per 3390 cylinder [K].
pub const TRACKS_PER_CYL: u32 = 15;

/// The kind and size of `device_type` (`size` for FBA and EDEV).
pub fn geometry(device_type: &str, size: Option<Size>) -> Result<Geometry, String> {
    if let Some(c) = cylinders_of(device_type) {
        if size.is_some() {
            return Err(format!(
                "a {device_type} has a fixed size: give no size (cylinders for a paging extent)"
            ));
        }
        return Ok(Geometry {
            kind: DevKind::Eckd,
            cylinders: c,
            blocks: c as u64 * SLOTS_PER_CYL,
        });
    }
    let kind = match device_type {
        "9336" | "FBA" => DevKind::Fba,
        "EDEV" => DevKind::Edev,
        _ => {
            return Err(format!(
                "'{device_type}' is not a known device type (3390-1/-2/-3/-9/-27/-54, 9336 or FBA, EDEV)"
            ))
        }
    };
    let Some(s) = size else {
        return Err(format!(
            "a {device_type} device needs its size (size = \"2G\")"
        ));
    };
    if s.0 < (1 << 20) || s.0 > (2u64 << 40) {
        return Err("size must be 1M to 2T".into());
    }
    Ok(Geometry {
        kind,
        cylinders: 0,
        blocks: s.0 / 4096,
    })
}

pub fn parse_chpid(s: &str) -> Result<u8, String> {
    u8::from_str_radix(s.trim(), 16)
        .map_err(|_| format!("'{s}' is not a hexadecimal CHPID such as 4A"))
}

/// Where a device group sits: `path = { control_unit = "LCU0", aliases = 3,
/// alias_address = "E7FC", rank = "R1" }`.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct DevicePath {
    /// The logical control unit (its storage server, CHPIDs, HyperPAV pool).
    pub control_unit: Option<String>,
    /// Without a control unit (EDEV, or a direct attachment): the storage
    /// server ...
    pub server: Option<String>,
    /// ... and the CHPIDs (hex, at most 8). With a control unit: a subset of
    /// its CHPIDs to use instead of all of them.
    pub chpids: Vec<String>,
    /// The rank holding the volumes (default: the server's ranks in turn).
    pub rank: Option<String>,
    /// Static PAV aliases per base volume (ECKD only).
    pub aliases: u32,
    /// Device number of the first alias; the group's aliases follow (base 1's
    /// aliases, then base 2's, ...). Default: 0x80 after the first base.
    pub alias_address: Option<String>,
    /// Read hit ratio of random reads in the storage server's cache (default:
    /// the server's `read_hit`).
    pub read_hit: Option<f64>,
}

/// A device group as validation sees it (from `[[paging]]` or `[[dasd]]`).
pub struct GroupRef<'a> {
    pub place: String,
    pub device_type: &'a str,
    pub size: Option<Size>,
    pub count: u32,
    pub first: u16,
    pub path: Option<&'a DevicePath>,
}

// ------------------------------------------------------------------ channels

/// A channel path's type.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ChpidType {
    /// ESCON: circuit-switched, about 17 MB/s [K].
    Escon,
    /// FICON (Express): 100 to 800 MB/s by generation [K].
    Ficon,
    /// FCP (SCSI over Fibre Channel) for EDEVs and Linux SCSI.
    Fcp,
}

/// `[[chpid]]`: one or `count` consecutive channel paths.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChpidDef {
    /// First CHPID (two hex digits).
    pub id: String,
    #[serde(default = "one")]
    pub count: u32,
    #[serde(rename = "type")]
    pub kind: ChpidType,
    /// Link data rate, MB/s (default by type: ESCON 17, FICON and FCP 200,
    /// i.e. 2 Gb/s links) [K].
    #[serde(default)]
    pub mb_s: Option<f64>,
    /// Channel overhead per I/O in connect time, ms (default by type:
    /// ESCON 0.5, FICON 0.1 in command mode, FCP 0.05) [E: spec topic 8].
    #[serde(default)]
    pub overhead_ms: Option<f64>,
    /// The switch (director) the path goes through, if any.
    #[serde(default)]
    pub switch: Option<String>,
}

impl ChpidDef {
    pub fn rate_mb_s(&self) -> f64 {
        self.mb_s.unwrap_or(match self.kind {
            ChpidType::Escon => 17.0,
            ChpidType::Ficon | ChpidType::Fcp => 200.0,
        })
    }
    pub fn overhead(&self) -> f64 {
        self.overhead_ms.unwrap_or(match self.kind {
            ChpidType::Escon => 0.5,
            ChpidType::Ficon => 0.1,
            ChpidType::Fcp => 0.05,
        })
    }
}

/// `[[switch]]`: a FICON director or Fibre Channel switch.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchDef {
    pub name: String,
    /// Rate of its ports towards the storage server, MB/s (the path runs at
    /// the slowest of CHPID, switch port and host adapter).
    #[serde(default = "sw_rate")]
    pub port_mb_s: f64,
    /// Added to pending time per I/O, µs [E].
    #[serde(default = "sw_lat")]
    pub latency_us: f64,
}

fn sw_rate() -> f64 {
    200.0
}
fn sw_lat() -> f64 {
    2.0
}

// ------------------------------------------------------------------ storage server

/// A rank's media.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Media {
    Hdd,
    Flash,
}

/// RAID scheme of a rank.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Raid {
    /// Parity: a random destage costs 4 disk operations, a full stripe
    /// n/(n-1) of its bytes [K].
    Raid5,
    /// Mirrored: every destage is written twice [K].
    Raid10,
    /// No redundancy (a single old DASD, a JBOD).
    None,
}

/// `[[storage_server.rank]]`: one or `count` identical RAID arrays.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RankDef {
    pub name: String,
    #[serde(default = "one")]
    pub count: u32,
    #[serde(default = "media")]
    pub media: Media,
    /// Disks (arms) of the array; each serves one back-end operation at a time.
    #[serde(default = "disks")]
    pub disks: u32,
    #[serde(default = "raid")]
    pub raid: Raid,
    /// Positioning time of a random access (seek + half a rotation), ms
    /// (default HDD 6 — a 10k rpm disk [E: spec B, 4-8]; flash 0.15 [E]).
    #[serde(default)]
    pub position_ms: Option<f64>,
    /// Positioning within a sequential run, ms (default HDD 0.3, flash 0.02) [E].
    #[serde(default)]
    pub seq_position_ms: Option<f64>,
    /// Media transfer rate of one disk, MB/s (default HDD 40 — 10k rpm disks
    /// of 2002 [E]; flash 300 [E]).
    #[serde(default)]
    pub media_mb_s: Option<f64>,
    /// The device adapter (pair) the rank hangs off, 0-based (default: ranks
    /// in turn over the server's adapters).
    #[serde(default)]
    pub device_adapter: Option<u32>,
    /// One revolution of the disk, ms, for rotational position sensing: an
    /// uncached access that finds no free channel path when its sector comes
    /// round misses the reconnection and waits a whole revolution to try
    /// again (an RPS miss; a 3390 turns in 14.1 ms [K]). Without it (the
    /// default: cached subsystems buffer the data) a reconnection queues
    /// for a path.
    #[serde(default)]
    pub rotation_ms: Option<f64>,
}

fn media() -> Media {
    Media::Hdd
}
fn disks() -> u32 {
    8
}
fn raid() -> Raid {
    Raid::Raid5
}

impl RankDef {
    pub fn position(&self) -> f64 {
        self.position_ms.unwrap_or(match self.media {
            Media::Hdd => 6.0,
            Media::Flash => 0.15,
        })
    }
    pub fn seq_position(&self) -> f64 {
        self.seq_position_ms.unwrap_or(match self.media {
            Media::Hdd => 0.3,
            Media::Flash => 0.02,
        })
    }
    pub fn media_rate(&self) -> f64 {
        self.media_mb_s.unwrap_or(match self.media {
            Media::Hdd => 40.0,
            Media::Flash => 300.0,
        })
    }
}

/// `[[storage_server]]`: a cached DASD subsystem (3990, RVA, ESS, DS8000).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerDef {
    pub name: String,
    /// Machine type and model, for the configuration records (e.g. "2105-F20").
    #[serde(default = "server_model")]
    pub model: String,
    /// Cache size (for the cache reports; hits are `read_hit`).
    #[serde(default = "cache")]
    pub cache: Size,
    /// Non-volatile storage for fast writes: a write waits (disconnect) while
    /// NVS is full of data not yet destaged.
    #[serde(default = "nvs")]
    pub nvs: Size,
    /// Read hit ratio of random reads (sequential reads hit when prestaging
    /// keeps up; writes hit NVS) [E].
    #[serde(default = "read_hit")]
    pub read_hit: f64,
    /// Host adapters (cards) ...
    #[serde(default = "has")]
    pub host_adapters: u32,
    /// ... in this many bays (for the configuration; adapters fill bays in turn).
    #[serde(default = "bays")]
    pub bays: u32,
    /// Rate a host adapter sustains per transfer, MB/s (the path runs at the
    /// slowest of CHPID, switch port and adapter) [E].
    #[serde(default = "ha_rate")]
    pub ha_mb_s: f64,
    /// Transfers a host adapter carries at once (its ports in use) [E].
    #[serde(default = "one")]
    pub ha_concurrency: u32,
    /// Device adapters (pairs) between cache and ranks ...
    #[serde(default = "das")]
    pub device_adapters: u32,
    /// ... and the rate each sustains, MB/s [E].
    #[serde(default = "da_rate")]
    pub da_mb_s: f64,
    /// Bytes staged on a random read miss (a track of 12 4K records) [K].
    #[serde(default = "stage")]
    pub stage: Size,
    /// Bytes a sequential destage writes at once (a full stripe; random
    /// writes destage one at a time) [E].
    #[serde(default = "destage")]
    pub destage: Size,
    /// Bytes prestaged per operation ahead of a sequential reader, and how
    /// many such operations run ahead at most per volume [E].
    #[serde(default = "prestage")]
    pub prestage: Size,
    #[serde(default = "prestage_ahead")]
    pub prestage_ahead: u32,
    pub rank: Vec<RankDef>,
}

fn server_model() -> String {
    "2105-F20".into()
}
fn cache() -> Size {
    Size(16 << 30)
}
fn nvs() -> Size {
    Size(2 << 30)
}
fn read_hit() -> f64 {
    0.9
}
fn has() -> u32 {
    4
}
fn bays() -> u32 {
    4
}
fn ha_rate() -> f64 {
    200.0
}
fn das() -> u32 {
    4
}
fn da_rate() -> f64 {
    320.0
}
fn stage() -> Size {
    Size(48 << 10)
}
fn destage() -> Size {
    Size(256 << 10)
}
fn prestage() -> Size {
    Size(256 << 10)
}
fn prestage_ahead() -> u32 {
    4
}

/// `[[control_unit]]`: a logical control unit (LCU / LSS) of a storage server.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControlUnitDef {
    pub name: String,
    pub server: String,
    /// Control unit type for the configuration records (e.g. "2105").
    #[serde(default = "cu_type")]
    pub cu_type: String,
    /// The channel paths to it (hex CHPIDs, 1 to 8).
    pub chpids: Vec<String>,
    /// The host adapter each CHPID reaches (0-based; default CHPID k to
    /// adapter k modulo the server's adapters).
    #[serde(default)]
    pub host_adapters: Vec<u32>,
    /// HyperPAV alias pool of the LCU (z/VM 5.3+): any free alias may carry
    /// an I/O to any base for the duration of that I/O.
    #[serde(default)]
    pub hyperpav_aliases: u32,
    /// Device number of the first HyperPAV alias; the others follow.
    #[serde(default)]
    pub alias_address: Option<String>,
}

fn cu_type() -> String {
    "2105".into()
}

/// The I/O configuration sections of a scenario, for validation.
pub struct Sections<'a> {
    pub io: &'a IoParams,
    pub chpids: &'a [ChpidDef],
    pub switches: &'a [SwitchDef],
    pub servers: &'a [ServerDef],
    pub control_units: &'a [ControlUnitDef],
}

/// Every CHPID number defined, expanded, in order, with its definition.
pub fn expand_chpids(defs: &[ChpidDef]) -> Vec<(u8, usize)> {
    let mut out = Vec::new();
    for (i, d) in defs.iter().enumerate() {
        if let Ok(first) = parse_chpid(&d.id) {
            for k in 0..d.count {
                if first as u32 + k <= 0xFF {
                    out.push(((first as u32 + k) as u8, i));
                }
            }
        }
    }
    out
}

fn name_ok(place: &str, n: &str) -> Result<(), Invalid> {
    if n.is_empty() || n.len() > 16 {
        return bad(format!("{place}.name"), "must be 1 to 16 characters");
    }
    Ok(())
}

fn pos(place: String, v: f64, max: f64) -> Result<(), Invalid> {
    if !(v.is_finite() && v > 0.0 && v <= max) {
        return bad(place, format!("{v}: must be above 0 and at most {max}"));
    }
    Ok(())
}

/// Check the I/O sections and the device groups' paths together; `taken` is
/// every device number the groups use (aliases must not collide with them).
pub fn validate_paths(
    s: &Sections,
    groups: &[GroupRef],
    taken: &HashSet<u16>,
) -> Result<(), Invalid> {
    s.io.validate()?;
    // Switches.
    let mut switches = HashSet::new();
    for (i, w) in s.switches.iter().enumerate() {
        let place = format!("switch[{i}]");
        name_ok(&place, &w.name)?;
        if !switches.insert(w.name.as_str()) {
            return bad(
                format!("{place}.name"),
                format!("switch '{}' is defined twice", w.name),
            );
        }
        pos(format!("{place}.port_mb_s"), w.port_mb_s, 100_000.0)?;
        if !(w.latency_us.is_finite() && (0.0..=10_000.0).contains(&w.latency_us)) {
            return bad(format!("{place}.latency_us"), "must be 0 to 10000");
        }
    }
    // CHPIDs.
    let mut chpids: HashMap<u8, ChpidType> = HashMap::new();
    for (i, c) in s.chpids.iter().enumerate() {
        let place = format!("chpid[{i}]");
        let first = parse_chpid(&c.id).map_err(|e| Invalid {
            place: format!("{place}.id"),
            reason: e,
        })?;
        if c.count == 0 || first as u32 + c.count > 0x100 {
            return bad(
                format!("{place}.count"),
                "CHPIDs run past FF (or count is 0)",
            );
        }
        for k in 0..c.count {
            let id = (first as u32 + k) as u8;
            if chpids.insert(id, c.kind).is_some() {
                return bad(
                    format!("{place}.id"),
                    format!("CHPID {id:02X} is defined twice"),
                );
            }
        }
        pos(format!("{place}.mb_s"), c.rate_mb_s(), 100_000.0)?;
        let o = c.overhead();
        if !(o.is_finite() && (0.0..=100.0).contains(&o)) {
            return bad(format!("{place}.overhead_ms"), "must be 0 to 100 ms");
        }
        if let Some(w) = &c.switch {
            if !switches.contains(w.as_str()) {
                return bad(
                    format!("{place}.switch"),
                    format!("'{w}' is not a [[switch]]"),
                );
            }
        }
    }
    // Storage servers and ranks.
    let mut servers: HashMap<&str, &ServerDef> = HashMap::new();
    let mut ranks: HashMap<String, &str> = HashMap::new();
    for (i, sv) in s.servers.iter().enumerate() {
        let place = format!("storage_server[{i}]");
        name_ok(&place, &sv.name)?;
        if servers.insert(sv.name.as_str(), sv).is_some() {
            return bad(
                format!("{place}.name"),
                format!("server '{}' is defined twice", sv.name),
            );
        }
        if !(0.0..=1.0).contains(&sv.read_hit) {
            return bad(format!("{place}.read_hit"), "must be in [0, 1]");
        }
        if sv.nvs.0 < (1 << 20) || sv.cache.0 < sv.nvs.0 {
            return bad(
                format!("{place}.nvs"),
                "NVS must be at least 1M and no more than the cache",
            );
        }
        if !(1..=64).contains(&sv.host_adapters) || !(1..=16).contains(&sv.bays) {
            return bad(
                format!("{place}.host_adapters"),
                "1 to 64 host adapters in 1 to 16 bays",
            );
        }
        if !(1..=16).contains(&sv.ha_concurrency) {
            return bad(format!("{place}.ha_concurrency"), "must be 1 to 16");
        }
        if !(1..=32).contains(&sv.device_adapters) {
            return bad(format!("{place}.device_adapters"), "must be 1 to 32");
        }
        pos(format!("{place}.ha_mb_s"), sv.ha_mb_s, 100_000.0)?;
        pos(format!("{place}.da_mb_s"), sv.da_mb_s, 100_000.0)?;
        for (k, v) in [
            ("stage", sv.stage),
            ("destage", sv.destage),
            ("prestage", sv.prestage),
        ] {
            if v.0 < 4096 || v.0 > (16 << 20) {
                return bad(format!("{place}.{k}"), "must be 4K to 16M");
            }
        }
        if !(1..=64).contains(&sv.prestage_ahead) {
            return bad(format!("{place}.prestage_ahead"), "must be 1 to 64");
        }
        if sv.rank.is_empty() {
            return bad(
                format!("{place}.rank"),
                "a storage server needs at least one [[storage_server.rank]]",
            );
        }
        for (j, r) in sv.rank.iter().enumerate() {
            let rp = format!("{place}.rank[{j}]");
            name_ok(&rp, &r.name)?;
            if ranks.insert(r.name.clone(), sv.name.as_str()).is_some() {
                return bad(
                    format!("{rp}.name"),
                    format!("rank '{}' is defined twice", r.name),
                );
            }
            // Ranks of a group are also named one by one: NAME.1, NAME.2, ...
            if r.count > 1 {
                for k in 1..=r.count {
                    ranks.insert(format!("{}.{k}", r.name), sv.name.as_str());
                }
            }
            if !(1..=256).contains(&r.count) {
                return bad(format!("{rp}.count"), "must be 1 to 256");
            }
            let min = match r.raid {
                Raid::Raid5 => 3,
                Raid::Raid10 => 2,
                Raid::None => 1,
            };
            if r.disks < min || r.disks > 64 {
                return bad(
                    format!("{rp}.disks"),
                    format!("must be {min} to 64 for this RAID scheme"),
                );
            }
            pos(format!("{rp}.position_ms"), r.position(), 1000.0)?;
            pos(format!("{rp}.seq_position_ms"), r.seq_position(), 1000.0)?;
            pos(format!("{rp}.media_mb_s"), r.media_rate(), 100_000.0)?;
            if let Some(t) = r.rotation_ms {
                pos(format!("{rp}.rotation_ms"), t, 1000.0)?;
            }
            if let Some(da) = r.device_adapter {
                if da >= sv.device_adapters {
                    return bad(
                        format!("{rp}.device_adapter"),
                        format!(
                            "{da}: the server has {} device adapters (0-based)",
                            sv.device_adapters
                        ),
                    );
                }
            }
        }
    }
    // Control units.
    let mut cus: HashMap<&str, &ControlUnitDef> = HashMap::new();
    for (i, cu) in s.control_units.iter().enumerate() {
        let place = format!("control_unit[{i}]");
        name_ok(&place, &cu.name)?;
        if cus.insert(cu.name.as_str(), cu).is_some() {
            return bad(
                format!("{place}.name"),
                format!("control unit '{}' is defined twice", cu.name),
            );
        }
        let Some(sv) = servers.get(cu.server.as_str()) else {
            return bad(
                format!("{place}.server"),
                format!("'{}' is not a [[storage_server]]", cu.server),
            );
        };
        check_chpids(&format!("{place}.chpids"), &cu.chpids, &chpids, false)?;
        if !cu.host_adapters.is_empty() && cu.host_adapters.len() != cu.chpids.len() {
            return bad(
                format!("{place}.host_adapters"),
                "give one adapter per CHPID, or none",
            );
        }
        if let Some(h) = cu.host_adapters.iter().find(|&&h| h >= sv.host_adapters) {
            return bad(
                format!("{place}.host_adapters"),
                format!(
                    "{h}: the server has {} host adapters (0-based)",
                    sv.host_adapters
                ),
            );
        }
        if cu.hyperpav_aliases > 254 {
            return bad(format!("{place}.hyperpav_aliases"), "must be 0 to 254");
        }
        if cu.alias_address.is_some() && cu.hyperpav_aliases == 0 {
            return bad(
                format!("{place}.alias_address"),
                "only with hyperpav_aliases",
            );
        }
    }
    // Device groups and their aliases.
    let mut alias_devs: HashSet<u16> = HashSet::new();
    for g in groups {
        let geo = geometry(g.device_type, g.size).map_err(|e| Invalid {
            place: format!("{}.device_type", g.place),
            reason: e,
        })?;
        let Some(p) = g.path else {
            if geo.kind == DevKind::Edev {
                return bad(
                    format!("{}.path", g.place),
                    "an EDEV needs its path (path = { server = ..., chpids = [FCP CHPIDs] })",
                );
            }
            continue;
        };
        let place = format!("{}.path", g.place);
        let server = match (&p.control_unit, &p.server) {
            (Some(c), None) => {
                let Some(cu) = cus.get(c.as_str()) else {
                    return bad(
                        format!("{place}.control_unit"),
                        format!("'{c}' is not a [[control_unit]]"),
                    );
                };
                if geo.kind == DevKind::Edev {
                    return bad(
                        format!("{place}.control_unit"),
                        "an EDEV is reached through FCP CHPIDs: give server and chpids, not a control unit",
                    );
                }
                if !p.chpids.is_empty() {
                    check_chpids(&format!("{place}.chpids"), &p.chpids, &chpids, false)?;
                    let of_cu: HashSet<u8> = cu
                        .chpids
                        .iter()
                        .filter_map(|c| parse_chpid(c).ok())
                        .collect();
                    if let Some(c) = p
                        .chpids
                        .iter()
                        .find(|c| !of_cu.contains(&parse_chpid(c).unwrap_or(0)))
                    {
                        return bad(
                            format!("{place}.chpids"),
                            format!("{c} is not a path of control unit '{}'", cu.name),
                        );
                    }
                }
                cu.server.as_str()
            }
            (None, Some(sv)) => {
                if !servers.contains_key(sv.as_str()) {
                    return bad(
                        format!("{place}.server"),
                        format!("'{sv}' is not a [[storage_server]]"),
                    );
                }
                if p.chpids.is_empty() {
                    return bad(
                        format!("{place}.chpids"),
                        "without a control unit, give the CHPIDs",
                    );
                }
                check_chpids(
                    &format!("{place}.chpids"),
                    &p.chpids,
                    &chpids,
                    geo.kind == DevKind::Edev,
                )?;
                sv.as_str()
            }
            (Some(_), Some(_)) => {
                return bad(
                    format!("{place}.server"),
                    "give a control unit or a server, not both",
                );
            }
            (None, None) => return bad(place, "give control_unit (or server and chpids)"),
        };
        if geo.kind != DevKind::Edev {
            let fcp = path_chpids(p, &cus)
                .into_iter()
                .find(|c| chpids.get(c) == Some(&ChpidType::Fcp));
            if let Some(c) = fcp {
                return bad(
                    format!("{place}.chpids"),
                    format!("CHPID {c:02X} is FCP: only EDEVs use FCP paths"),
                );
            }
        }
        if let Some(r) = &p.rank {
            match ranks.get(r.as_str()) {
                Some(&sv) if sv == server => {}
                Some(&sv) => {
                    return bad(
                        format!("{place}.rank"),
                        format!("rank '{r}' is in server '{sv}', not '{server}'"),
                    )
                }
                None => return bad(format!("{place}.rank"), format!("'{r}' is not a rank")),
            }
        }
        if let Some(h) = p.read_hit {
            if !(0.0..=1.0).contains(&h) {
                return bad(format!("{place}.read_hit"), "must be in [0, 1]");
            }
        }
        if p.aliases > 0 && geo.kind != DevKind::Eckd {
            return bad(
                format!("{place}.aliases"),
                "PAV aliases exist for ECKD volumes only",
            );
        }
        if p.aliases > 8 {
            return bad(format!("{place}.aliases"), "must be 0 to 8 per base");
        }
        if p.alias_address.is_some() && p.aliases == 0 {
            return bad(format!("{place}.alias_address"), "only with aliases");
        }
        if p.aliases > 0 {
            let first = match &p.alias_address {
                Some(a) => parse_devno(a).map_err(|e| Invalid {
                    place: format!("{place}.alias_address"),
                    reason: e,
                })?,
                None => g.first.wrapping_add(0x80),
            };
            let n = g.count * p.aliases;
            if first as u32 + n > 0x1_0000 {
                return bad(
                    format!("{place}.alias_address"),
                    "alias device numbers run past FFFF",
                );
            }
            for k in 0..n {
                let a = first + k as u16;
                if taken.contains(&a) || !alias_devs.insert(a) {
                    return bad(
                        format!("{place}.alias_address"),
                        format!("alias {a:04X} is already a device"),
                    );
                }
            }
        }
    }
    for (i, cu) in s.control_units.iter().enumerate() {
        if cu.hyperpav_aliases == 0 {
            continue;
        }
        let place = format!("control_unit[{i}].alias_address");
        let Some(a) = &cu.alias_address else {
            return bad(
                place,
                "a HyperPAV pool needs the device number of its first alias",
            );
        };
        let first = parse_devno(a).map_err(|e| Invalid {
            place: place.clone(),
            reason: e,
        })?;
        if first as u32 + cu.hyperpav_aliases > 0x1_0000 {
            return bad(place, "alias device numbers run past FFFF");
        }
        for k in 0..cu.hyperpav_aliases {
            let a = first + k as u16;
            if taken.contains(&a) || !alias_devs.insert(a) {
                return bad(place, format!("alias {a:04X} is already a device"));
            }
        }
    }
    Ok(())
}

/// The CHPIDs of a device's path (its own list, else its control unit's).
fn path_chpids(p: &DevicePath, cus: &HashMap<&str, &ControlUnitDef>) -> Vec<u8> {
    let list = if !p.chpids.is_empty() {
        &p.chpids
    } else if let Some(cu) = p.control_unit.as_deref().and_then(|c| cus.get(c)) {
        &cu.chpids
    } else {
        return Vec::new();
    };
    list.iter().filter_map(|c| parse_chpid(c).ok()).collect()
}

fn check_chpids(
    place: &str,
    list: &[String],
    defined: &HashMap<u8, ChpidType>,
    fcp: bool,
) -> Result<(), Invalid> {
    if list.is_empty() || list.len() > 8 {
        return bad(place, "1 to 8 CHPIDs");
    }
    let mut seen = HashSet::new();
    for c in list {
        let id = parse_chpid(c).map_err(|e| Invalid {
            place: place.into(),
            reason: e,
        })?;
        let Some(&t) = defined.get(&id) else {
            return bad(place, format!("CHPID {id:02X} is not defined in [[chpid]]"));
        };
        if fcp && t != ChpidType::Fcp {
            return bad(
                place,
                format!("CHPID {id:02X} is not FCP: an EDEV is reached through FCP paths"),
            );
        }
        if !seen.insert(id) {
            return bad(place, format!("CHPID {id:02X} is listed twice"));
        }
    }
    Ok(())
}
