//! The `[mdc]` section: CP's minidisk cache settings (SET MDC), its CPU costs
//! and the arbiter's bounds. Without the section the cache is off, as in every
//! scenario written before it existed.

use crate::core::units::Size;
use serde::Deserialize;

use crate::core::Invalid;

/// `[mdc]`: SET MDC and the cache's costs.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MdcParams {
    /// SET MDC SYSTEM ON/OFF.
    pub system: bool,
    /// SET MDC STORAGE min max: bounds of the cache in central storage
    /// (`storage_max` absent: up to the whole dynamic paging area) [S].
    pub storage_min: Size,
    pub storage_max: Option<Size>,
    /// SET MDC XSTORE min max (Era A): bounds of the cache in expanded
    /// storage (absent: up to all of XSTOR; by default z/VM used both) [S].
    pub xstor_min: Size,
    pub xstor_max: Option<Size>,
    /// SET MDC STORAGE BIAS: above 1 the arbiter favours the cache over
    /// paging, below 1 paging [S: default 1.0].
    pub bias: f64,
    /// Volumes (device numbers) with caching off (SET MDC RDEV OFF).
    pub volumes_off: Vec<String>,
    /// Users whose minidisks are not cached (SET MDC MDISK ... OFF).
    pub users_off: Vec<String>,
    /// Users exempt from the fair-share limit (directory option NOMDCFS).
    pub nomdcfs: Vec<String>,
    /// Fair share: in each second a user may insert up to this factor times
    /// the average insertions per inserting user of the second before, and
    /// at least `fair_share_floor` pages [E].
    pub fair_share: f64,
    pub fair_share_floor: u32,
    /// CP CPU per 4 KB page copied to the guest on a hit, µs [E: spec B, 2-5].
    pub hit_us_per_page: f64,
    /// CP CPU per 4 KB page inserted into the cache, µs [E].
    pub insert_us_per_page: f64,
    /// Extra CP CPU per page found in the XSTOR part (the page move), µs
    /// [E: as `cp_costs.xstor_move_us`].
    pub xstor_us_per_page: f64,
    /// The arbiter's step, as a share of the cache per high-frequency sample:
    /// it shrinks by this share (divided by `bias`) after a demand scan, grows
    /// by it (times `bias`, at least 256 frames) while the available list is
    /// above its high threshold [E].
    pub step: f64,
}

impl Default for MdcParams {
    fn default() -> Self {
        MdcParams {
            system: true,
            storage_min: Size(0),
            storage_max: None,
            xstor_min: Size(0),
            xstor_max: None,
            bias: 1.0,
            volumes_off: Vec::new(),
            users_off: Vec::new(),
            nomdcfs: Vec::new(),
            fair_share: 2.0,
            fair_share_floor: 256,
            hit_us_per_page: 3.0,
            insert_us_per_page: 1.0,
            xstor_us_per_page: 4.0,
            step: 0.1,
        }
    }
}

impl MdcParams {
    pub fn validate(&self) -> Result<(), Invalid> {
        let bad = |p: &str, r: &str| {
            Err(Invalid {
                place: format!("mdc.{p}"),
                reason: r.into(),
            })
        };
        if let Some(m) = self.storage_max {
            if m < self.storage_min {
                return bad("storage_max", "must not be below storage_min");
            }
        }
        if let Some(m) = self.xstor_max {
            if m < self.xstor_min {
                return bad("xstor_max", "must not be below xstor_min");
            }
        }
        if !(self.bias > 0.0 && self.bias <= 100.0) {
            return bad("bias", "must be above 0 and at most 100");
        }
        if !(self.fair_share > 0.0 && self.fair_share <= 1000.0) {
            return bad("fair_share", "must be above 0 and at most 1000");
        }
        for (k, v) in [
            ("hit_us_per_page", self.hit_us_per_page),
            ("insert_us_per_page", self.insert_us_per_page),
            ("xstor_us_per_page", self.xstor_us_per_page),
        ] {
            if !(v.is_finite() && (0.0..=10_000.0).contains(&v)) {
                return bad(k, "must be 0 to 10000 microseconds");
            }
        }
        if !(self.step > 0.0 && self.step <= 1.0) {
            return bad("step", "must be in (0, 1]");
        }
        for d in &self.volumes_off {
            if crate::model::io::params::parse_devno(d).is_err() {
                return bad("volumes_off", &format!("'{d}' is not a device number"));
            }
        }
        Ok(())
    }
}

/// A timeline SET MDC: the system, one volume, or one user's minidisks on or
/// off (`mdc = { device = "E700", on = false }`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MdcAction {
    #[serde(default)]
    pub device: Option<String>,
    #[serde(default)]
    pub user: Option<String>,
    pub on: bool,
}
