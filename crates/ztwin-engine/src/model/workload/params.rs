//! The workload component's parameters: the workloads a `[[guest]]` group or
//! a timeline `start` names (`workload = { type = ... }`), their bounds
//! ([`Workload::validate`]), and its share of `[cp_costs]` ([`Params`]).

use super::Costs;
use crate::core::units::{Duration, Size, MS, US};
use crate::core::{check_cost_us, invalid, us_to_ns, Invalid};
use crate::model::io::params::parse_devno;
use serde::Deserialize;

/// Access pattern of a page toucher.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    Serial,
    Random,
    WorkingSet,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Touch {
    Read,
    Write,
}

/// What a guest's virtual CPUs do.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Workload {
    /// Nothing: logged on, dormant.
    Idle,
    /// A page toucher ("thrasher"), one thread per virtual CPU.
    Thrasher {
        area: Size,
        #[serde(default = "pat_serial")]
        pattern: Pattern,
        #[serde(default = "touch_read")]
        touch: Touch,
        /// Guest CPU per page touch, microseconds.
        #[serde(default = "t_cpu")]
        cpu_per_touch_us: f64,
        /// Working-set pattern: fraction of the area that is hot ...
        #[serde(default = "ws_hot")]
        hot_fraction: f64,
        /// ... and the share of touches that go to it.
        #[serde(default = "ws_prob")]
        hot_share: f64,
        /// Working-set pattern: a warm part after the hot one, and its share of
        /// touches (the rest of the area gets what is left: cold).
        #[serde(default)]
        warm_fraction: f64,
        #[serde(default)]
        warm_share: f64,
        /// Write the whole area once before the touching starts (so every page
        /// has content, as a memory initializer leaves it).
        #[serde(default)]
        prefill: bool,
        /// The area starts paged out: every page already on paging slots, in
        /// blocks, as after a long run under memory pressure (no I/O is
        /// simulated to put it there). The working set then pages in.
        #[serde(default)]
        paged_out: bool,
        /// Pause after each pass over the area (serial) or between bursts.
        #[serde(default)]
        think: Duration,
        /// Touches per burst before a think pause (0 = no pause).
        #[serde(default)]
        burst_touches: u64,
        /// CP time for work the model does not detail (timer interrupts,
        /// DIAGNOSE, virtual I/O of the guest), as a fraction of its virtual time.
        #[serde(default)]
        cp_overhead: f64,
        /// Pages per second the guest writes into the rest of its virtual
        /// storage (after `area`), page by page, until all of it has been
        /// written once: Linux filling its page cache (0: off).
        #[serde(default)]
        fill_rate: f64,
        /// Once filled, pages per second the guest writes again, oldest first
        /// (in fill order, wrapping): Linux reusing its least recently used
        /// page-cache pages for new data.
        #[serde(default)]
        reuse_rate: f64,
    },
    /// Consume CPU: `utilization` of each virtual CPU, in bursts.
    Cpu {
        utilization: f64,
        #[serde(default = "cpu_burst")]
        burst: Duration,
        /// As for the thrasher: CP time per unit of virtual time.
        #[serde(default)]
        cp_overhead: f64,
    },
    /// Minidisk I/O driver: a closed loop of CPU work, one I/O, think.
    MinidiskIo {
        /// Device number (hex) of a `[[dasd]]` volume; with a trailing `+`,
        /// member k of a guest group uses the k-th volume from there.
        device: String,
        /// Think time between I/Os.
        #[serde(default)]
        think: Duration,
        #[serde(default = "one")]
        pages_per_io: u32,
        #[serde(default = "t_cpu")]
        cpu_per_io_us: f64,
    },
}

fn pat_serial() -> Pattern {
    Pattern::Serial
}
fn touch_read() -> Touch {
    Touch::Read
}
fn t_cpu() -> f64 {
    1.0
}
fn ws_hot() -> f64 {
    0.2
}
fn ws_prob() -> f64 {
    0.9
}
fn cpu_burst() -> Duration {
    Duration(10 * MS)
}

fn one() -> u32 {
    1
}

impl Workload {
    /// The workload's own bounds, and those that depend on the guest group
    /// that runs it: its area fits the group's `virtual_storage`; a minidisk
    /// workload's device (one per member with a trailing `+`, `count`
    /// members) is a `[[dasd]]` volume (`is_dasd`).
    pub fn validate(
        &self,
        place: &str,
        virtual_storage: u64,
        count: u32,
        is_dasd: impl Fn(u16) -> bool,
    ) -> Result<(), Invalid> {
        let err = |p: &str, reason: String| invalid(format!("{place}.{p}"), reason);
        match self {
            Workload::Idle => {}
            Workload::Thrasher {
                area,
                cpu_per_touch_us,
                hot_fraction,
                hot_share,
                warm_fraction,
                warm_share,
                cp_overhead,
                fill_rate,
                reuse_rate,
                ..
            } => {
                for (key, r) in [("fill_rate", fill_rate), ("reuse_rate", reuse_rate)] {
                    if !(r.is_finite() && (0.0..=1e6).contains(r)) {
                        return err(key, "must be pages per second from 0 to 1000000".into());
                    }
                }
                if *reuse_rate > 0.0 && *fill_rate == 0.0 {
                    return err(
                        "reuse_rate",
                        "needs a fill_rate (what is reused is the filled storage)".into(),
                    );
                }
                if *fill_rate > 0.0 && area.0 >= virtual_storage {
                    return err(
                        "fill_rate",
                        "the area is all of virtual_storage: nothing is left to fill".into(),
                    );
                }
                if !(0.0..=10.0).contains(cp_overhead) {
                    return err("cp_overhead", "must be a fraction between 0 and 10".into());
                }
                if area.0 < 4096 || area.0 > virtual_storage {
                    return err(
                        "area",
                        format!(
                            "{} bytes: must be at least one page and no more than virtual_storage",
                            area.0
                        ),
                    );
                }
                if !(cpu_per_touch_us.is_finite()
                    && *cpu_per_touch_us > 0.0
                    && *cpu_per_touch_us <= 1e6)
                {
                    return err(
                        "cpu_per_touch_us",
                        "must be above 0 and at most 1000000".into(),
                    );
                }
                if !(*hot_fraction > 0.0 && *hot_fraction <= 1.0) {
                    return err("hot_fraction", "must be in (0, 1]".into());
                }
                if !(0.0..=1.0).contains(hot_share) {
                    return err("hot_share", "must be in [0, 1]".into());
                }
                if !(0.0..=1.0).contains(warm_fraction) || hot_fraction + warm_fraction > 1.0 {
                    return err(
                        "warm_fraction",
                        "must be in [0, 1] with hot_fraction + warm_fraction <= 1".into(),
                    );
                }
                if !(0.0..=1.0).contains(warm_share) || hot_share + warm_share > 1.0 {
                    return err(
                        "warm_share",
                        "must be in [0, 1] with hot_share + warm_share <= 1".into(),
                    );
                }
            }
            Workload::Cpu {
                utilization,
                burst,
                cp_overhead,
            } => {
                if !(0.0..=10.0).contains(cp_overhead) {
                    return err("cp_overhead", "must be a fraction between 0 and 10".into());
                }
                if !(*utilization > 0.0 && *utilization <= 1.0) {
                    return err("utilization", "must be in (0, 1]".into());
                }
                if burst.0 < 10 * US {
                    return err("burst", "must be at least 10us".into());
                }
            }
            Workload::MinidiskIo {
                device,
                pages_per_io,
                cpu_per_io_us,
                ..
            } => {
                let (dev, spread) = split_device(device);
                let d = parse_devno(dev).map_err(|e| Invalid::new(format!("{place}.device"), e))?;
                let last = if spread {
                    d as u32 + count - 1
                } else {
                    d as u32
                };
                if last > 0xFFFF {
                    return err("device", format!("{device}: device numbers run past FFFF"));
                }
                for a in d as u32..=last {
                    if !is_dasd(a as u16) {
                        return err("device", format!("{a:04X} is not a [[dasd]] volume"));
                    }
                }
                if *pages_per_io == 0 || *pages_per_io > 64 {
                    return err("pages_per_io", "must be 1 to 64".into());
                }
                if !(cpu_per_io_us.is_finite() && *cpu_per_io_us >= 0.0) {
                    return err("cpu_per_io_us", "must be non-negative".into());
                }
            }
        }
        Ok(())
    }
}

/// A minidisk workload's device: the device number and whether group members
/// spread over consecutive volumes (a trailing `+`).
pub fn split_device(device: &str) -> (&str, bool) {
    match device.trim().strip_suffix('+') {
        Some(d) => (d, true),
        None => (device.trim(), false),
    }
}

/// The CP costs a burst charges (µs); `first_touch_us` and `virtual_io_us`
/// are the workload's to check, the others their owners' (storage, paging).
#[derive(Clone, Debug)]
pub struct Params {
    pub first_touch_us: f64,
    pub xstor_move_us: f64,
    pub page_fault_us: f64,
    pub virtual_io_us: f64,
}

impl Params {
    pub fn validate(&self) -> Result<(), Invalid> {
        check_cost_us("cp_costs.first_touch_us", self.first_touch_us)?;
        check_cost_us("cp_costs.virtual_io_us", self.virtual_io_us)
    }

    pub fn costs(&self) -> Costs {
        Costs {
            first_touch: us_to_ns(self.first_touch_us),
            xmove: us_to_ns(self.xstor_move_us),
            fault: us_to_ns(self.page_fault_us),
            virtual_io: us_to_ns(self.virtual_io_us),
        }
    }
}
