//! The spool component's parameters: the `[[spool]]` volume groups (CP-owned
//! SPOOL extents) and `[spool_options]` (how CP moves spool pages).

use crate::core::{invalid, Invalid};
use crate::model::io::params::{
    cylinders_of, geometry, parse_devno, volser, DasdGroup, PagingGroup, Sections, ServiceTime,
    SLOTS_PER_CYL,
};
use crate::model::io::VolumeDef;
use serde::Deserialize;

/// A group of identical spool volumes (CP-owned, SPOOL extents).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpoolGroup {
    /// "3390-3", "3390-9", "3390-27", "3390-54".
    pub device_type: String,
    #[serde(default = "one")]
    pub count: u32,
    /// Device number of the first volume (hex); the others follow.
    pub first_address: String,
    /// Volume serials: prefix followed by a sequence number.
    pub volser_prefix: String,
    /// Cylinders of the SPOOL extent (default: the whole volume).
    #[serde(default)]
    pub cylinders: Option<u32>,
    #[serde(default)]
    pub service: ServiceTime,
}

fn one() -> u32 {
    1
}

/// `[spool_options]`: how CP moves spool pages.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// Pages moved by one spool I/O (\[E\]: CP's spool I/O of a saved segment
    /// is modelled as one channel program of this many pages).
    pub pages_per_io: u32,
    /// CP time per page before it is written (SAVESEG fetching and copying
    /// each page, single-threaded, between its spool writes), microseconds
    /// (\[E\]; 0: the writes follow each other at once).
    pub write_page_us: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            pages_per_io: 1,
            write_page_us: 0.0,
        }
    }
}

impl Options {
    pub fn validate(&self) -> Result<(), Invalid> {
        if !(1..=256).contains(&self.pages_per_io) {
            return invalid(
                "spool_options.pages_per_io".into(),
                format!("{}: must be 1 to 256", self.pages_per_io),
            );
        }
        crate::core::check_cost_us("spool_options.write_page_us", self.write_page_us)?;
        Ok(())
    }
}

impl SpoolGroup {
    fn as_paging(&self) -> PagingGroup {
        PagingGroup {
            device_type: self.device_type.clone(),
            count: self.count,
            first_address: self.first_address.clone(),
            volser_prefix: self.volser_prefix.clone(),
            cylinders: self.cylinders,
            size: None,
            service: self.service.clone(),
            // Spool volumes use the constant service-time model.
            path: None,
            used: 0.0,
        }
    }
}

/// The spool groups' checks (the same as the paging groups': device types,
/// counts, addresses, volume serials, extents, service times), and device
/// numbers and volume serials unique across paging, DASD and spool volumes.
pub fn validate(
    spool: &[SpoolGroup],
    paging: &[PagingGroup],
    dasd: &[DasdGroup],
    sections: &Sections,
) -> Result<(), Invalid> {
    let as_paging: Vec<PagingGroup> = spool.iter().map(SpoolGroup::as_paging).collect();
    crate::model::io::params::validate(&as_paging, &[], sections).map_err(|e| Invalid {
        place: e.place.replacen("paging[", "spool[", 1),
        reason: e.reason,
    })?;
    let mut all = paging.to_vec();
    all.extend(as_paging);
    crate::model::io::params::validate(&all, dasd, sections).map_err(|e| {
        // Only a clash between a spool volume and another can fail here.
        let place = match e.place.strip_prefix("paging[") {
            Some(rest) => {
                let (k, tail) = rest.split_once(']').unwrap_or((rest, ""));
                let k: usize = k.parse().unwrap_or(0);
                if k >= paging.len() {
                    format!("spool[{}]{tail}", k - paging.len())
                } else {
                    e.place.clone()
                }
            }
            None => e.place.clone(),
        };
        Invalid {
            place,
            reason: e.reason,
        }
    })
}

/// The spool volumes of validated groups as I/O volumes (not paging), and the
/// page slots of each.
pub fn volumes(spool: &[SpoolGroup]) -> Vec<(VolumeDef, u32)> {
    let mut out = Vec::new();
    for g in spool {
        let base = parse_devno(&g.first_address).expect("validated");
        let full = cylinders_of(&g.device_type).expect("validated");
        let geo = geometry(&g.device_type, None).expect("validated");
        let cyls = g.cylinders.unwrap_or(full);
        for k in 0..g.count {
            out.push((
                VolumeDef {
                    devno: base + k as u16,
                    volser: volser(&g.volser_prefix, k, g.count),
                    device_type: g.device_type.clone(),
                    cylinders: cyls,
                    paging: false,
                    service: g.service.clone(),
                    kind: geo.kind,
                    blocks: geo.blocks,
                    path: None,
                    aliases: Vec::new(),
                },
                (cyls as u64 * SLOTS_PER_CYL) as u32,
            ));
        }
    }
    out
}
