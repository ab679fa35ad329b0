//! The Linux component's parameters: a `[[guest]]`'s `linux` table.
//!
//! ```toml
//! [[guest]]
//! userid = "LNX"
//! virtual_storage = "768M"
//! vdisk = [{ vdev = "0300", size = "512M" }]
//! linux = { appldata = true, kernel = "48M", swap = [
//!     { device = "vdisk", vdev = "0300", priority = 10 },
//!     { device = "dasd", volume = "6000", size = "1G", priority = 5 } ] }
//! ```
//!
//! Linux's own CPU for its memory management (charged as the guest's
//! virtual CPU time and counted as system time in APPLDATA_OS): per frame
//! the reclaim scans, per page fault, per swap I/O request through the block
//! layer and its driver (dasd, FBA over DIAG), per page dcssblk copies.

use crate::core::units::Size;
use crate::core::{invalid, Invalid};
use crate::model::io::params::parse_devno;
use serde::Deserialize;

/// What backs a swap device.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SwapKind {
    /// A DASD minidisk through the dasd driver (ECKD).
    Dasd,
    /// A VDISK (virtual FBA disk in CP storage) through FBA or DIAG.
    Vdisk,
    /// A DCSS through dcssblk.
    Dcss,
}

impl SwapKind {
    pub fn name(self) -> &'static str {
        match self {
            SwapKind::Dasd => "dasd",
            SwapKind::Vdisk => "vdisk",
            SwapKind::Dcss => "dcss",
        }
    }
}

/// One `swapon` device.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwapDevice {
    pub device: SwapKind,
    /// The guest's virtual device (a VDISK of its `vdisk` list).
    #[serde(default)]
    pub vdev: Option<String>,
    /// The segment's name (a DCSS defined in `[[segment]]`).
    #[serde(default)]
    pub segment: Option<String>,
    /// Size of a DASD swap device (a VDISK's or DCSS's is the device's).
    #[serde(default)]
    pub size: Option<Size>,
    /// The `[[dasd]]` volume a DASD swap device's minidisk is on (its real
    /// device number; `6000+`: each member of a `count` group the volume
    /// that many after it).
    #[serde(default)]
    pub volume: Option<String>,
    /// `swapon -p`: higher first; equal priorities are used round robin.
    #[serde(default)]
    pub priority: i32,
}

fn kernel_default() -> Size {
    Size(48 << 20)
}

/// A guest's Linux.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// The appldata modules (mem, os, net_sum) write APPLDATA records.
    #[serde(default)]
    pub appldata: bool,
    /// Storage the kernel and its fixed data take (never reclaimed) \[E\].
    #[serde(default = "kernel_default")]
    pub kernel: Size,
    /// Swap devices (`swapon`), none by default.
    #[serde(default)]
    pub swap: Vec<SwapDevice>,
    /// Network interfaces the net_sum module counts (the twin has no network
    /// model: their counters stay 0).
    #[serde(default = "one")]
    pub interfaces: u32,
    /// Kernel CPU per frame the page reclaim scans, ns \[E\].
    #[serde(default = "scan_ns")]
    pub scan_ns: f64,
    /// Kernel CPU per page fault (minor or major), us \[E\].
    #[serde(default = "fault_us")]
    pub fault_us: f64,
    /// Kernel CPU per swap I/O request (block layer and driver), us \[E\].
    #[serde(default = "swap_io_us")]
    pub swap_io_us: f64,
    /// dcssblk: kernel CPU per page copied to or from the segment, us \[E\].
    #[serde(default = "dcss_page_us")]
    pub dcss_page_us: f64,
    /// Pages per swap write request at most (the reclaim's batch,
    /// SWAP_CLUSTER_MAX) \[E\].
    #[serde(default = "swap_cluster")]
    pub swap_cluster: u32,
}

fn one() -> u32 {
    1
}
fn scan_ns() -> f64 {
    100.0
}
fn fault_us() -> f64 {
    1.0
}
fn swap_io_us() -> f64 {
    15.0
}
fn dcss_page_us() -> f64 {
    1.0
}
fn swap_cluster() -> u32 {
    32
}

/// The smallest storage left to Linux after its kernel: 16 MB \[E\].
pub const MIN_USABLE: u64 = 16 << 20;

impl Params {
    /// Checks against the guest: `place` is the `linux` table's place,
    /// `storage` the guest's virtual storage, `vdisks` its VDISKs (vdev,
    /// bytes), `segment` a DCSS's size by name (`None`: not defined),
    /// `is_dasd` whether a device number is a `[[dasd]]` volume.
    pub fn check(
        &self,
        place: &str,
        storage: u64,
        vdisks: &[(u16, u64)],
        segment: impl Fn(&str) -> Option<u64>,
        is_dasd: impl Fn(u16) -> bool,
    ) -> Result<(), Invalid> {
        let k = self.kernel.0;
        if k < (4 << 20) || k % 4096 != 0 {
            return invalid(
                format!("{place}.kernel"),
                "must be at least 4M and a multiple of 4K".into(),
            );
        }
        if storage < k + MIN_USABLE {
            return invalid(
                format!("{place}.kernel"),
                format!(
                    "the guest's {} MB of storage is smaller than the kernel needs ({} MB and {} MB to run in)",
                    storage >> 20,
                    k >> 20,
                    MIN_USABLE >> 20
                ),
            );
        }
        if self.interfaces > 64 {
            return invalid(format!("{place}.interfaces"), "must be 0 to 64".into());
        }
        for (key, v) in [
            ("scan_ns", self.scan_ns),
            ("fault_us", self.fault_us),
            ("swap_io_us", self.swap_io_us),
            ("dcss_page_us", self.dcss_page_us),
        ] {
            if !(v.is_finite() && (0.0..=1e6).contains(&v)) {
                return invalid(format!("{place}.{key}"), "must be 0 to 1000000".into());
            }
        }
        if !(1..=256).contains(&self.swap_cluster) {
            return invalid(format!("{place}.swap_cluster"), "must be 1 to 256".into());
        }
        for (i, s) in self.swap.iter().enumerate() {
            let p = format!("{place}.swap[{i}]");
            s.size_bytes(&p, vdisks, &segment, &is_dasd)?;
        }
        Ok(())
    }
}

impl SwapDevice {
    /// The device's size in bytes, checked against what the guest has.
    pub fn size_bytes(
        &self,
        place: &str,
        vdisks: &[(u16, u64)],
        segment: impl Fn(&str) -> Option<u64>,
        is_dasd: impl Fn(u16) -> bool,
    ) -> Result<u64, Invalid> {
        let only = |key: &str, ok: bool| -> Result<(), Invalid> {
            if ok {
                Ok(())
            } else {
                invalid(
                    format!("{place}.{key}"),
                    format!("does not go with a {} swap device", self.device.name()),
                )
            }
        };
        let n = match self.device {
            SwapKind::Dasd => {
                only("vdev", self.vdev.is_none())?;
                only("segment", self.segment.is_none())?;
                let Some(v) = &self.volume else {
                    return invalid(
                        format!("{place}.volume"),
                        "a DASD swap device names the [[dasd]] volume its minidisk is on".into(),
                    );
                };
                let (dev, _) = crate::model::workload::params::split_device(v);
                let d = parse_devno(dev).map_err(|e| Invalid::new(format!("{place}.volume"), e))?;
                if !is_dasd(d) {
                    return invalid(
                        format!("{place}.volume"),
                        format!("{d:04X} is not a [[dasd]] volume"),
                    );
                }
                match self.size {
                    Some(s) if s.0 >= 1 << 20 => s.0,
                    _ => {
                        return invalid(
                            format!("{place}.size"),
                            "a DASD swap device needs a size of at least 1M".into(),
                        )
                    }
                }
            }
            SwapKind::Vdisk => {
                only("segment", self.segment.is_none())?;
                only("volume", self.volume.is_none())?;
                only("size", self.size.is_none())?;
                let Some(v) = &self.vdev else {
                    return invalid(
                        format!("{place}.vdev"),
                        "a VDISK swap device names the guest's VDISK".into(),
                    );
                };
                let d = parse_devno(v).map_err(|e| Invalid::new(format!("{place}.vdev"), e))?;
                match vdisks.iter().find(|(x, _)| *x == d) {
                    Some(&(_, b)) => b,
                    None => {
                        return invalid(
                            format!("{place}.vdev"),
                            format!("the guest has no VDISK {d:04X} (its vdisk list)"),
                        )
                    }
                }
            }
            SwapKind::Dcss => {
                only("vdev", self.vdev.is_none())?;
                only("volume", self.volume.is_none())?;
                only("size", self.size.is_none())?;
                let Some(name) = &self.segment else {
                    return invalid(
                        format!("{place}.segment"),
                        "a DCSS swap device names the segment".into(),
                    );
                };
                match segment(name) {
                    Some(b) => b,
                    None => {
                        return invalid(
                            format!("{place}.segment"),
                            format!("no saved segment {name} is defined"),
                        )
                    }
                }
            }
        };
        if n < 4096 {
            return invalid(place.to_string(), "is smaller than one page".into());
        }
        Ok(n)
    }
}
