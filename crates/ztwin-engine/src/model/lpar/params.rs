//! The CEC's parameters: the `[lpar]` section (the machine's physical
//! processors by type, PR/SM's dispatch interval and management time, this
//! z/VM partition's weight and capping) with its `[[lpar.partition]]` (the
//! other partitions, as load profiles) and `[[lpar.group]]` (capacity
//! groups). Without `[lpar]` the z/VM partition owns its processors outright,
//! as before: nothing here runs.
//!
//! Weights are PR/SM's (1 to 999); caps are in engines (1.5 = one and a half
//! physical processors); a load profile is the number of engines a
//! partition's work would use if PR/SM gave it all it asked for.

use crate::core::units::{Duration, MS, US};
use crate::core::{check_cost_us, invalid, Invalid};
use serde::Deserialize;

/// A processor type of the CEC.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PType {
    CP,
    IFL,
    #[serde(rename = "zIIP")]
    ZIIP,
    ICF,
}

impl PType {
    pub const ALL: [PType; 4] = [PType::CP, PType::IFL, PType::ZIIP, PType::ICF];

    /// Position in [`PType::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            PType::CP => "CP",
            PType::IFL => "IFL",
            PType::ZIIP => "zIIP",
            PType::ICF => "ICF",
        }
    }

    /// CPU type code as CP writes it (MTRPRP_PFXCPUTY, SYTCUP entries):
    /// 0 CP, 2 zIIP, 3 IFL, 4 ICF (IBM's PFXCPUTY values; 1 is zAAP).
    pub fn code(self) -> u64 {
        match self {
            PType::CP => 0,
            PType::ZIIP => 2,
            PType::IFL => 3,
            PType::ICF => 4,
        }
    }
}

/// The CEC's physical processors by type.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Physical {
    pub cp: u16,
    pub ifl: u16,
    #[serde(rename = "ziip")]
    pub ziip: u16,
    pub icf: u16,
}

impl Physical {
    pub fn of(&self, t: PType) -> u16 {
        match t {
            PType::CP => self.cp,
            PType::IFL => self.ifl,
            PType::ZIIP => self.ziip,
            PType::ICF => self.icf,
        }
    }
}

/// `[lpar]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Physical processors of the CEC: `{ cp = 6, ifl = 4, ziip = 0, icf = 0 }`.
    pub physical: Physical,
    /// PR/SM's dispatch interval: the model recomputes every partition's share
    /// this often (1ms to 100ms; default 12.5ms, PR/SM's default time slice).
    #[serde(default = "default_interval")]
    pub dispatch_interval: Duration,
    /// LPAR management time: PR/SM's own time per shared logical processor
    /// dispatched in an interval, in µs (0 to 1000; default 25).
    #[serde(default = "default_mgmt")]
    pub mgmt_us: f64,
    /// This z/VM partition's weight (1 to 999).
    #[serde(default = "default_weight")]
    pub weight: u16,
    /// Its logical processors are dedicated physical ones.
    #[serde(default)]
    pub dedicated: bool,
    /// Initial capping: never more than its weight's share of the pool.
    #[serde(default)]
    pub capped: bool,
    /// Absolute capping, in engines.
    #[serde(default)]
    pub absolute_cap: Option<f64>,
    /// The capacity group it belongs to (a `[[lpar.group]]` name).
    #[serde(default)]
    pub group: Option<String>,
    /// HiperDispatch: vertical polarisation of its logical processors.
    #[serde(default)]
    pub vertical: bool,
    /// The other partitions.
    #[serde(default, rename = "partition")]
    pub partitions: Vec<Partition>,
    /// Capacity groups.
    #[serde(default, rename = "group_cap")]
    pub groups: Vec<CapGroup>,
}

fn default_interval() -> Duration {
    Duration(12_500 * US)
}
fn default_mgmt() -> f64 {
    25.0
}
fn default_weight() -> u16 {
    100
}

/// `[[lpar.partition]]`: another partition, as a load profile.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Partition {
    /// Partition name (1 to 8 characters).
    pub name: String,
    /// Processor type of its logical processors.
    #[serde(rename = "type", default = "default_ptype")]
    pub ptype: PType,
    /// Logical processors.
    pub logical: u16,
    #[serde(default = "default_weight")]
    pub weight: u16,
    #[serde(default)]
    pub dedicated: bool,
    #[serde(default)]
    pub capped: bool,
    #[serde(default)]
    pub absolute_cap: Option<f64>,
    #[serde(default)]
    pub group: Option<String>,
    #[serde(default)]
    pub vertical: bool,
    /// Engines its work asks for (0 to `logical`), from time zero.
    #[serde(default)]
    pub busy: f64,
    /// Changes of `busy` over the run: `[[seconds, engines], ...]`, times
    /// ascending.
    #[serde(default)]
    pub profile: Vec<(f64, f64)>,
}

fn default_ptype() -> PType {
    PType::CP
}

/// `[[lpar.group_cap]]`: a capacity group (group capping).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapGroup {
    pub name: String,
    /// The group's members together use at most this many engines.
    pub limit: f64,
}

/// The z/VM partition as `[system]` describes it.
#[derive(Debug, Clone)]
pub struct ZvmPart {
    pub name: String,
    pub ptype: PType,
    pub logical: u16,
}

impl Params {
    /// Checks, with the z/VM partition's name, type and logical processors
    /// from `[system]`.
    pub fn validate(&self, zvm: &ZvmPart) -> Result<(), Invalid> {
        let d = self.dispatch_interval.0;
        if !(MS..=100 * MS).contains(&d) {
            return invalid(
                "lpar.dispatch_interval".into(),
                "must be 1ms to 100ms".into(),
            );
        }
        check_cost_us("lpar.mgmt_us", self.mgmt_us)?;
        if self.mgmt_us > 1000.0 {
            return invalid(
                "lpar.mgmt_us".into(),
                format!(
                    "{} µs per logical processor and interval is more than 1000",
                    self.mgmt_us
                ),
            );
        }
        let p = self.physical;
        if p.cp + p.ifl + p.ziip + p.icf == 0 {
            return invalid(
                "lpar.physical".into(),
                "the CEC needs at least one physical processor (cp, ifl, ziip, icf)".into(),
            );
        }
        for (i, g) in self.groups.iter().enumerate() {
            let place = format!("lpar.group_cap[{i}]");
            check_name(&format!("{place}.name"), &g.name)?;
            if self.groups[..i].iter().any(|o| o.name == g.name) {
                return invalid(
                    format!("{place}.name"),
                    format!("capacity group {} is defined twice", g.name),
                );
            }
            if !(g.limit.is_finite() && g.limit > 0.0) {
                return invalid(
                    format!("{place}.limit"),
                    format!(
                        "a group's limit is a positive number of engines, not {}",
                        g.limit
                    ),
                );
            }
        }
        // The z/VM partition, then the others: one list of (place, view).
        let mut parts = vec![(
            "lpar".to_string(),
            View {
                name: &zvm.name,
                ptype: zvm.ptype,
                logical: zvm.logical,
                weight: self.weight,
                dedicated: self.dedicated,
                capped: self.capped,
                absolute_cap: self.absolute_cap,
                group: self.group.as_deref(),
                vertical: self.vertical,
            },
        )];
        for (i, q) in self.partitions.iter().enumerate() {
            parts.push((
                format!("lpar.partition[{i}]"),
                View {
                    name: &q.name,
                    ptype: q.ptype,
                    logical: q.logical,
                    weight: q.weight,
                    dedicated: q.dedicated,
                    capped: q.capped,
                    absolute_cap: q.absolute_cap,
                    group: q.group.as_deref(),
                    vertical: q.vertical,
                },
            ));
        }
        let mut dedicated = [0u16; 4];
        for (k, (place, v)) in parts.iter().enumerate() {
            if k > 0 {
                check_name(&format!("{place}.name"), v.name)?;
            }
            // A partition with processors of two types (z/OS with CPs and
            // zIIPs) is one entry per type under the same name; the z/VM
            // partition's processors are all of [system]'s type.
            if let Some((j, (_, o))) = parts[..k]
                .iter()
                .enumerate()
                .find(|(j, (_, o))| o.name == v.name && (*j == 0 || o.ptype == v.ptype))
            {
                let why = if j == 0 {
                    "the z/VM partition is [system] lpar_name"
                } else {
                    "a partition's second entry must be of another processor type"
                };
                let _ = o;
                return invalid(
                    format!("{place}.name"),
                    format!("partition {} is defined twice ({why})", v.name),
                );
            }
            let phys = p.of(v.ptype);
            // The z/VM partition's logical processors are [system]'s.
            let lplace = if k == 0 {
                "system.processors".to_string()
            } else {
                format!("{place}.logical")
            };
            if v.logical == 0 {
                return invalid(
                    lplace,
                    format!("partition {} needs at least one logical processor", v.name),
                );
            }
            if v.logical > phys {
                return invalid(
                    lplace,
                    format!(
                        "partition {} has {} logical {}s but the CEC has {} physical {}s \
                         (a logical processor runs on one physical one at a time)",
                        v.name,
                        v.logical,
                        v.ptype.name(),
                        phys,
                        v.ptype.name()
                    ),
                );
            }
            if v.weight == 0 || v.weight > 999 {
                return invalid(
                    format!("{place}.weight"),
                    format!(
                        "partition {}: a weight is 1 to 999 (PR/SM), not {}",
                        v.name, v.weight
                    ),
                );
            }
            if v.dedicated {
                let t = v.ptype.index();
                dedicated[t] += v.logical;
                if dedicated[t] > phys {
                    return invalid(
                        format!("{place}.dedicated"),
                        format!(
                            "partition {} dedicates {} {}s, but the CEC has {} and {} are already \
                             dedicated to other partitions",
                            v.name,
                            v.logical,
                            v.ptype.name(),
                            phys,
                            dedicated[t] - v.logical
                        ),
                    );
                }
                if v.capped {
                    return invalid(
                        format!("{place}.capped"),
                        format!(
                            "partition {} has dedicated processors: they cannot be capped",
                            v.name
                        ),
                    );
                }
                if v.vertical {
                    return invalid(
                        format!("{place}.vertical"),
                        format!(
                            "partition {} has dedicated processors: vertical polarisation applies to shared ones",
                            v.name
                        ),
                    );
                }
            }
            if let Some(c) = v.absolute_cap {
                if !(c.is_finite() && c > 0.0) {
                    return invalid(
                        format!("{place}.absolute_cap"),
                        format!("partition {}: an absolute cap is a positive number of engines, not {c}", v.name),
                    );
                }
                if v.dedicated && c < v.logical as f64 {
                    return invalid(
                        format!("{place}.absolute_cap"),
                        format!(
                            "partition {}: a cap of {c} engines is below its dedicated share ({} dedicated {}s)",
                            v.name,
                            v.logical,
                            v.ptype.name()
                        ),
                    );
                }
            }
            if let Some(g) = v.group {
                if !self.groups.iter().any(|x| x.name == g) {
                    return invalid(
                        format!("{place}.group"),
                        format!("partition {}: no [[lpar.group_cap]] named {g}", v.name),
                    );
                }
                if v.dedicated {
                    return invalid(
                        format!("{place}.group"),
                        format!("partition {} has dedicated processors: group capping applies to shared ones", v.name),
                    );
                }
            }
        }
        for (i, q) in self.partitions.iter().enumerate() {
            let place = format!("lpar.partition[{i}]");
            let n = q.logical as f64;
            if !(q.busy.is_finite() && (0.0..=n).contains(&q.busy)) {
                return invalid(
                    format!("{place}.busy"),
                    format!(
                        "partition {}: busy is 0 to its {} logical processors, not {}",
                        q.name, q.logical, q.busy
                    ),
                );
            }
            let mut last = -1.0;
            for (k, &(t, e)) in q.profile.iter().enumerate() {
                if !(t.is_finite() && t >= 0.0 && t > last) {
                    return invalid(
                        format!("{place}.profile[{k}]"),
                        format!(
                            "partition {}: profile times are seconds, ascending; {t} is not",
                            q.name
                        ),
                    );
                }
                if !(e.is_finite() && (0.0..=n).contains(&e)) {
                    return invalid(
                        format!("{place}.profile[{k}]"),
                        format!(
                            "partition {}: engines are 0 to its {} logical processors, not {e}",
                            q.name, q.logical
                        ),
                    );
                }
                last = t;
            }
        }
        // A shared pool for every type some partition shares.
        for (place, v) in &parts {
            let t = v.ptype.index();
            if !v.dedicated && p.of(v.ptype) <= dedicated[t] {
                return invalid(
                    format!("{place}.dedicated"),
                    format!(
                        "partition {} shares {}s, but all {} of the CEC's are dedicated",
                        v.name,
                        v.ptype.name(),
                        p.of(v.ptype)
                    ),
                );
            }
        }
        Ok(())
    }
}

/// One partition's checked keys.
struct View<'a> {
    name: &'a str,
    ptype: PType,
    logical: u16,
    weight: u16,
    dedicated: bool,
    capped: bool,
    absolute_cap: Option<f64>,
    group: Option<&'a str>,
    vertical: bool,
}

fn check_name(place: &str, name: &str) -> Result<(), Invalid> {
    if name.is_empty() || name.len() > 8 || !name.is_ascii() {
        return invalid(
            place.into(),
            format!("a partition or group name is 1 to 8 characters, not {name:?}"),
        );
    }
    Ok(())
}
