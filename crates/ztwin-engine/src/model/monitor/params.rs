//! The monitor's parameters: the `[monitor]` section (sample interval and
//! high-frequency sampling rate) and the names `[system]` gives the
//! configuration records ([`check_system_id`]).

use crate::core::units::{Duration, MS, SEC};
use crate::core::{invalid, Invalid};
use serde::Deserialize;

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
