//! The storage component's parameters: central storage, CP's fixed storage
//! and XSTOR (from `[system]`), XSTOR migration and the block size (from
//! `[srm]`), its CP costs (from `[cp_costs]`). `scenario.rs` builds them from
//! those sections; [`Params::validate`] holds their bounds.

use super::Costs;
use crate::core::units::PAGE;
use crate::core::{check_cost_us, invalid, us_to_ns, Invalid};

/// The page-table entry holds a 29-bit frame number: up to 2^29 frames (2 TB).
pub const MAX_FRAMES: u64 = 1 << 29;

/// CP levels whose storage management is modelled (Era A: XSTOR and the
/// three-pass demand scan, z/VM up to 6.2). The storage model is the same
/// for all five; the monitor records differ by level (5.2 is written with
/// 5.3's layouts, the oldest ztwin has), and the I/O settings that changed
/// between levels follow it (`io/params.rs`).
pub const ERA_A_LEVELS: [&str; 5] = ["5.2", "5.3", "5.4", "6.1", "6.2"];

#[derive(Clone, Debug)]
pub struct Params {
    /// CP level: one of [`ERA_A_LEVELS`] (Era A: XSTOR, three-pass demand scan).
    pub cp_level: String,
    /// Bytes of central storage, of CP's fixed storage, of XSTOR.
    pub central_storage: u64,
    pub cp_fixed: u64,
    pub xstor: u64,
    /// Migration starts when free XSTOR falls below this fraction.
    pub xstor_low: f64,
    /// Pages per block written by migration (validated by paging).
    pub block_max: u32,
    /// XSTOR-to-DASD migration blocks kept in flight per paging volume.
    pub migrate_writes: u32,
    /// CP time per frame the demand scan examines, per XSTOR page move (µs).
    pub steal_per_frame_us: f64,
    pub xstor_move_us: f64,
    /// SET AGELIST (`[agelist]`): `Some` at the Era C levels
    /// ([`super::era_c::params::ERA_C_LEVELS`]), `None` in Era A.
    pub agelist: Option<super::era_c::params::Params>,
}

impl Params {
    pub fn validate(&self) -> Result<(), Invalid> {
        // 5.2 to 6.2 share the Era A storage manager; the I/O settings that
        // changed between them follow the level (`io/params.rs`).
        // 6.3 and later: the global aging list (era_c), no XSTOR.
        let era_c = super::era_c::params::is_era_c(&self.cp_level);
        if !ERA_A_LEVELS.contains(&self.cp_level.trim()) && !era_c {
            return invalid(
                "system.cp_level".into(),
                format!(
                    "CP level '{}' is not modelled: the storage managers ztwin has are Era A \
                     (XSTOR, three-pass steal: {}) and Era C (global aging list: {})",
                    self.cp_level,
                    ERA_A_LEVELS.join(", "),
                    super::era_c::params::ERA_C_LEVELS.join(", ")
                ),
            );
        }
        if era_c && self.xstor > 0 {
            return invalid(
                "system.xstor".into(),
                format!(
                    "XSTOR on CP level {}: the storage manager of z/VM 6.3 and later (global aging \
                     list) is modelled without XSTOR (6.3 still accepted it, IBM advised configuring \
                     it as central storage; 6.4 and later have none): remove xstor or use a level \
                     up to 6.2",
                    self.cp_level.trim()
                ),
            );
        }
        if let Some(a) = &self.agelist {
            a.validate()?;
        }
        let cs = self.central_storage;
        if cs < (256 << 20) {
            return invalid(
                "system.central_storage".into(),
                "central storage must be at least 256M".into(),
            );
        }
        if cs > MAX_FRAMES * PAGE {
            return invalid(
                "system.central_storage".into(),
                "central storage above 2T is not supported".into(),
            );
        }
        if self.cp_fixed >= cs / 2 {
            return invalid(
                "system.cp_fixed".into(),
                "CP fixed storage must be less than half of central storage".into(),
            );
        }
        if self.xstor > (128u64 << 30) {
            return invalid(
                "system.xstor".into(),
                "XSTOR above 128G is not supported by z/VM".into(),
            );
        }
        if !(1..=64).contains(&self.migrate_writes) {
            return invalid("srm.migrate_writes".into(), "must be 1 to 64 writes".into());
        }
        if !(0.0..0.5).contains(&self.xstor_low) {
            return invalid(
                "srm.xstor_low".into(),
                "must be a fraction below 0.5".into(),
            );
        }
        check_cost_us("cp_costs.xstor_move_us", self.xstor_move_us)?;
        check_cost_us("cp_costs.steal_per_frame_us", self.steal_per_frame_us)
    }

    /// Frames of central storage, of them CP's fixed, and XSTOR blocks.
    pub fn frames(&self) -> (u32, u32, u32) {
        (
            (self.central_storage / PAGE) as u32,
            (self.cp_fixed / PAGE) as u32,
            (self.xstor / PAGE) as u32,
        )
    }

    pub fn costs(&self) -> Costs {
        Costs {
            steal_frame: us_to_ns(self.steal_per_frame_us),
            xmove: us_to_ns(self.xstor_move_us),
        }
    }
}
