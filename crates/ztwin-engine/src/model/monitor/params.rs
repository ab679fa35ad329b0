//! The monitor's parameters: the `[monitor]` section (sample interval and
//! high-frequency sampling rate) and the names `[system]` gives the
//! configuration records ([`check_system_id`]).

use crate::core::units::{Duration, MS, SEC};
use crate::core::{invalid, Invalid};
use serde::Deserialize;
use ztwin_monitor::layout::Release;

/// `[monitor]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// MONITOR SAMPLE INTERVAL (1s to 1h).
    pub sample_interval: Duration,
    /// MONITOR SAMPLE RATE: high-frequency state sampling (10ms up to the interval).
    pub hf_rate: Duration,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            sample_interval: Duration(60 * SEC),
            hf_rate: Duration(2 * SEC),
        }
    }
}

impl Params {
    pub fn validate(&self) -> Result<(), Invalid> {
        if self.sample_interval.0 < SEC || self.sample_interval.0 > 3600 * SEC {
            return invalid("monitor.sample_interval".into(), "must be 1s to 1h".into());
        }
        if self.hf_rate.0 < 10 * MS || self.hf_rate.0 > self.sample_interval.0 {
            return invalid(
                "monitor.hf_rate".into(),
                "must be 10ms up to the sample interval".into(),
            );
        }
        Ok(())
    }
}

/// The system identifier written to MTRSYS (1 to 8 characters).
pub fn check_system_id(id: &str) -> Result<(), Invalid> {
    if id.is_empty() || id.len() > 8 {
        return invalid(
            "system.system_id".into(),
            "must be 1 to 8 characters".into(),
        );
    }
    Ok(())
}

/// The z/VM release of `cp_level` (`"5.4"`): one of the releases whose record
/// layouts ztwin knows ([`Release::KNOWN`], 5.3 to 7.4, and 5.2 written as 5.3); the emitter writes
/// every record at that release's size and offsets. Whether the engine models
/// the release's CP (its storage management) is the storage component's check.
pub fn cp_release(cp_level: &str) -> Result<Release, Invalid> {
    let known = || {
        std::iter::once(&Release(5, 2))
            .chain(Release::KNOWN.iter())
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let bad = || {
        Invalid::new(
            "system.cp_level",
            format!(
                "'{cp_level}' is not a z/VM level ztwin knows (expected one of {})",
                known()
            ),
        )
    };
    let t = cp_level.trim();
    // "V.R" exactly: a modification level or other decoration is not a level.
    if t.split('.').count() != 2 {
        return Err(bad());
    }
    let r: Release = t.parse().map_err(|_| bad())?;
    // 5.2 (the studies' S2-era systems) has no layouts of its own: its
    // records are written with the oldest ztwin knows (5.3's), as the reader
    // decodes a 5.2 file.
    if !Release::KNOWN.contains(&r) && r != Release(5, 2) {
        return Err(bad());
    }
    Ok(r)
}
