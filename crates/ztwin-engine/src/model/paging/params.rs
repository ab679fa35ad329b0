//! The paging component's parameters: the block size (from `[srm]`) and its
//! CP costs (from `[cp_costs]`); its slots come from the `[[paging]]` volume
//! groups (`io::params::volumes`). [`Params::validate`] holds their bounds.

use super::Costs;
use crate::core::{check_cost_us, invalid, us_to_ns, Invalid};

#[derive(Clone, Debug)]
pub struct Params {
    /// Largest block of pages CP writes to DASD in one I/O (1 to 255).
    pub block_max: u32,
    /// Page-out block writes CP keeps started per paging volume (1 to 64).
    pub pageout_writes: u32,
    /// CP time of a fault that needs a DASD read, per page read or written,
    /// per real I/O (µs).
    pub page_fault_us: f64,
    pub page_io_us: f64,
    pub io_us: f64,
}

impl Params {
    pub fn validate(&self) -> Result<(), Invalid> {
        if !(1..=255).contains(&self.block_max) {
            return invalid("srm.block_max".into(), "must be 1 to 255 pages".into());
        }
        if !(1..=64).contains(&self.pageout_writes) {
            return invalid("srm.pageout_writes".into(), "must be 1 to 64 writes".into());
        }
        check_cost_us("cp_costs.page_fault_us", self.page_fault_us)?;
        check_cost_us("cp_costs.page_io_us", self.page_io_us)?;
        check_cost_us("cp_costs.io_us", self.io_us)
    }

    pub fn costs(&self) -> Costs {
        Costs {
            fault: us_to_ns(self.page_fault_us),
            page_io: us_to_ns(self.page_io_us),
            io: us_to_ns(self.io_us),
        }
    }
}
