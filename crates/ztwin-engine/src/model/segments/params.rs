//! The saved-segments component's parameters: `[[segment]]`, the saved
//! segments in the system data files when the run starts.

use super::defseg;
use crate::core::{invalid, Invalid};
use serde::Deserialize;

/// A saved segment that exists (saved) when the run starts.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SegmentDef {
    /// DEFSEG's operands: `"DCSS1G 20000-5FFFF SR LOADNSHR"`.
    pub defseg: String,
    /// Saved (class A/R, its pages on spool) rather than a skeleton (class S).
    #[serde(default = "yes")]
    pub saved: bool,
}

fn yes() -> bool {
    true
}

impl SegmentDef {
    /// The definition, or CP's message for it.
    pub fn def(&self) -> Result<defseg::Def, String> {
        defseg::parse(&self.defseg.split_whitespace().collect::<Vec<_>>())
    }
}

/// The `[[segment]]` entries' checks: each a valid DEFSEG, names unique; a
/// saved one needs spool volumes with room (`spool_slots`).
pub fn validate(segs: &[SegmentDef], spool_slots: u64) -> Result<(), Invalid> {
    let mut names = std::collections::HashSet::new();
    let mut need = 0u64;
    for (i, s) in segs.iter().enumerate() {
        let place = format!("segment[{i}].defseg");
        let d = s.def().map_err(|e| Invalid::new(place.clone(), e))?;
        if !names.insert(d.name.clone()) {
            return invalid(place, format!("saved segment {} is defined twice", d.name));
        }
        if s.saved {
            need += d.pages().saved() as u64 + 1;
        }
    }
    if need > spool_slots {
        return invalid(
            "segment".into(),
            format!(
                "the saved segments need {need} spool pages; the [[spool]] volumes have {spool_slots}"
            ),
        );
    }
    Ok(())
}
