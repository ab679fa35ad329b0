//! The Linux component's parameters: a `[[guest]]`'s `linux` table.
//!
//! ```toml
//! [[guest]]
//! userid = "LNX"
//! virtual_storage = "768M"
//! vdisk = [{ vdev = "0300", size = "512M" }]
//! linux = { appldata = true, kernel = "48M", swap = [
//!     { device = "vdisk", vdev = "0300", priority = 10 },
//!     { device = "dasd", size = "1G", priority = 5 } ] }
//! ```

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
}

fn one() -> u32 {
    1
}

/// The smallest storage left to Linux after its kernel: 16 MB \[E\].
pub const MIN_USABLE: u64 = 16 << 20;

impl Params {
    /// Checks against the guest: `place` is the `linux` table's place,
    /// `storage` the guest's virtual storage, `vdisks` its VDISKs (vdev,
    /// bytes), `segment` a DCSS's size by name (`None`: not defined).
    pub fn check(
        &self,
        place: &str,
        storage: u64,
        vdisks: &[(u16, u64)],
        segment: impl Fn(&str) -> Option<u64>,
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
        for (i, s) in self.swap.iter().enumerate() {
            let p = format!("{place}.swap[{i}]");
            s.size_bytes(&p, vdisks, &segment)?;
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
