//! Scenario files: the LPAR, CP settings, paging volumes, monitor settings,
//! guests and a timeline, in TOML (or the equivalent JSON from the Python API).
//!
//! The schema is enforced: unknown keys, wrong types and impossible values are
//! rejected with a message that names the key (and, for TOML, the line). The
//! reference is `docs/scenario.md`.
//!
//! The sections are the file format. Each component's parameters, their
//! bounds and their conversion to runtime units live in its `params.rs`
//! (`model/storage/params.rs`, `paging`, `io`, `cpu`, `workload`, `monitor`);
//! a section one component owns is that component's serde struct (`[monitor]`,
//! `[[paging]]`/`[[dasd]]`, workloads), and the shared sections (`[system]`,
//! `[srm]`, `[cp_costs]`, `[[guest]]`) are defined here and handed to the
//! components as their `Params` ([`Scenario::storage`] and the like).
//!
//! [`Scenario::validate`] runs each component's `validate` and then the checks
//! that relate sections or entries, in this order: the components
//! (storage, cpu, monitor, paging, workload costs), `[scenario]`
//! ([`Meta::validate`], and its duration against the sample interval), the
//! volume groups, the guests (user IDs unique, workloads against their group
//! and the `[[dasd]]` volumes, total virtual storage), the timeline. Where a new
//! check goes: a bound on one component's parameter in that component's
//! `validate`; a limit on `[scenario]` alone (start date within the TOD clock's
//! range, a maximum duration) in [`Meta::validate`]; a rule for user IDs in
//! `cpu::params::check_userid`; a check that relates two sections (a
//! duration against the sample interval, a device named by a workload, a size
//! against central storage) in [`Scenario::validate`], after the components'.
//! Each returns the first problem as `{ place, reason }`; the place is the key
//! path documented in `docs/scenario.md`.

use crate::core::units::{Duration, Ns, Size, SEC};
use crate::core::{invalid, Invalid};
use crate::model::cpu::params as cpu_params;
use crate::model::{cp, io, monitor, paging, segments, spool, storage, workload};
use serde::Deserialize;
use std::collections::HashSet;

pub use crate::model::cpu::params::{expand_userids, MINOR_SLICE};
pub use crate::model::io::params::{
    cylinders_of, parse_devno, volser, DasdGroup, PagingGroup, ServiceTime, SLOTS_PER_CYL,
};
pub use crate::model::monitor::params::Params as Monitor;
pub use crate::model::workload::params::{split_device, Pattern, Touch, Workload};

/// A scenario problem: where (the TOML line, the key path) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub origin: String,
    /// The line of a TOML file (1-based) the problem is on: the key's own
    /// line, or its table's when the key is not written (a default).
    pub line: Option<usize>,
    /// The key path (`system.central_storage`, `guest[0] (LIN).userid`);
    /// empty for a TOML syntax error, which has only its line.
    pub place: String,
    pub reason: String,
}

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: ", self.origin)?;
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        if !self.place.is_empty() {
            write_one_line(f, &self.place)?;
            f.write_str(": ")?;
        }
        write_one_line(f, &self.reason)
    }
}

/// `s` with control characters escaped (`\n`): a key or value quoted in a
/// message may hold a newline, and the message stays one line.
fn write_one_line(f: &mut std::fmt::Formatter<'_>, s: &str) -> std::fmt::Result {
    use std::fmt::Write;
    for c in s.chars() {
        if c.is_control() {
            write!(f, "{}", c.escape_default())?;
        } else {
            f.write_char(c)?;
        }
    }
    Ok(())
}

impl std::error::Error for ScenarioError {}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default)]
    pub scenario: Meta,
    pub system: System,
    #[serde(default)]
    pub srm: Srm,
    #[serde(default)]
    pub cp_costs: CpCosts,
    #[serde(default)]
    pub monitor: Monitor,
    #[serde(default)]
    pub paging: Vec<PagingGroup>,
    #[serde(default)]
    pub dasd: Vec<DasdGroup>,
    /// Spool volumes (CP-owned SPOOL extents).
    #[serde(default)]
    pub spool: Vec<spool::params::SpoolGroup>,
    #[serde(default)]
    pub spool_options: spool::params::Options,
    /// Saved segments in the system data files when the run starts.
    #[serde(default, rename = "segment")]
    pub segments: Vec<segments::params::SegmentDef>,
    /// `[vdisk]` (`model/vdisk/params.rs`): SET VDISK's limits at IPL, the
    /// CP costs of a VDISK I/O.
    #[serde(default)]
    pub vdisk: crate::model::vdisk::params::Params,
    /// The I/O configuration (`model/io/params.rs`): `[io]`, `[[chpid]]`,
    /// `[[switch]]`, `[[storage_server]]`, `[[control_unit]]`.
    #[serde(default)]
    pub io: io::params::IoParams,
    #[serde(default)]
    pub chpid: Vec<io::params::ChpidDef>,
    #[serde(default)]
    pub switch: Vec<io::params::SwitchDef>,
    #[serde(default)]
    pub storage_server: Vec<io::params::ServerDef>,
    #[serde(default)]
    pub control_unit: Vec<io::params::ControlUnitDef>,
    /// `[mdc]` (`model/mdc/params.rs`): the minidisk cache; absent, it is off.
    #[serde(default)]
    pub mdc: Option<crate::model::mdc::MdcParams>,
    #[serde(default, rename = "guest")]
    pub guests: Vec<GuestGroup>,
    /// The CEC and its other partitions (absent: the LPAR owns its processors).
    #[serde(default)]
    pub lpar: Option<crate::model::lpar::params::Params>,
    /// The CEC's HiperSockets channel paths (`model/net/params.rs`).
    #[serde(default)]
    pub hipersockets: Vec<crate::model::net::params::HiperSockets>,
    /// `[net]`: costs of the network path.
    #[serde(default)]
    pub net: crate::model::net::params::Params,
    /// `[agelist]` (`model/storage/era_c/params.rs`): SET AGELIST, at CP
    /// levels 6.3 and later (absent: IBM's defaults).
    #[serde(default)]
    pub agelist: Option<storage::era_c::params::Params>,
    #[serde(default)]
    pub timeline: Vec<TimelineEntry>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Simulated time to run.
    #[serde(default = "default_duration")]
    pub duration: Duration,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Wall-clock date and time the simulated run starts at (ISO 8601 UTC).
    #[serde(default = "default_start")]
    pub start: String,
    /// Free text: which published figure calibrated which parameter.
    #[serde(default)]
    pub calibration: String,
}

impl Default for Meta {
    fn default() -> Self {
        Meta {
            name: String::new(),
            description: String::new(),
            duration: default_duration(),
            seed: default_seed(),
            start: default_start(),
            calibration: String::new(),
        }
    }
}

fn default_duration() -> Duration {
    Duration(600 * SEC)
}
fn default_seed() -> u64 {
    1
}
fn default_start() -> String {
    "2008-05-15T15:00:00Z".into()
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
pub enum ProcessorType {
    CP,
    IFL,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct System {
    /// CP level: "5.2", "5.3", "5.4", "6.1" or "6.2" (Era A: XSTOR, three-pass
    /// steal; the monitor records are written at that level's sizes, 5.2's
    /// as 5.3's), or "6.3", "6.4", "7.1" to "7.4" (Era C: the global aging
    /// list, no XSTOR; `model/storage/era_c`).
    #[serde(default = "default_cp_level")]
    pub cp_level: String,
    #[serde(default = "default_system_id")]
    pub system_id: String,
    #[serde(default = "default_model")]
    pub cpu_model: String,
    #[serde(default = "default_lpar")]
    pub lpar_name: String,
    pub processors: u16,
    #[serde(default = "default_ptype")]
    pub processor_type: ProcessorType,
    pub central_storage: Size,
    #[serde(default)]
    pub xstor: Size,
    /// Storage CP keeps for itself (nucleus, tables, free storage): not pageable.
    #[serde(default = "default_cp_fixed")]
    pub cp_fixed: Size,
}

fn default_cp_level() -> String {
    "5.4".into()
}
fn default_system_id() -> String {
    "ZTWIN".into()
}
fn default_model() -> String {
    "2094-606".into()
}
fn default_lpar() -> String {
    "ZTWINLP1".into()
}
fn default_ptype() -> ProcessorType {
    ProcessorType::IFL
}
fn default_cp_fixed() -> Size {
    Size(64 << 20)
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Srm {
    /// SET SRM STORBUF: % of DPA for Q1, Q1+Q2, Q1+Q2+Q3 working sets.
    pub storbuf: [u32; 3],
    /// SET SRM LDUBUF (% of paging exposures for loading users).
    pub ldubuf: [u32; 3],
    /// Largest block of pages CP writes to DASD in one I/O (absent: 4 up
    /// to 6.3, 32 from 6.4, [`Srm::block_max`]).
    pub block_max: Option<u32>,
    /// XSTOR migration starts when free XSTOR falls below this fraction.
    pub xstor_low: f64,
    /// Page-out block writes CP keeps started per paging volume; more wait
    /// in CP's paging queue, frames locked (\[E\] 4; 1: one I/O at a time per
    /// exposure, CP building the next block when the device is free).
    pub pageout_writes: u32,
    /// XSTOR-to-DASD migration blocks CP keeps in flight per paging volume
    /// (\[E\] 16, S2's paging response; 1: one at a time per exposure).
    pub migrate_writes: u32,
}

impl Srm {
    /// The paging block size at CP level `cp_level` when `[srm] block_max`
    /// is not given: 4 pages up to 6.3 (see `Default`), 32 from 6.4, which
    /// "increased I/O payload and raised the number of contiguous slots
    /// written per I/O" \[S: 640hpp; 32 is the low end of the spec's \[E\]
    /// 32 to 64 for 6.4+\].
    pub fn block_max(&self, cp_level: &str) -> u32 {
        self.block_max.unwrap_or_else(|| {
            if io::params::cp_level(cp_level) >= (6, 4) {
                32
            } else {
                4
            }
        })
    }
}

impl Default for Srm {
    fn default() -> Self {
        Srm {
            storbuf: [125, 105, 95],
            ldubuf: [100, 75, 60],
            // Era A (z/VM 5.x) paging block size. The spec's starting estimate
            // was about 16 pages; the published FCX109 "Block Page Size" of a
            // heavily paging 5.2 system (S2: 2 to 3 pages per I/O at 37% slot
            // use) and S1's 439 pages read by about 387 SSCHs per second both
            // point to small blocks, so 4 is used.
            block_max: None,
            xstor_low: 0.01,
            pageout_writes: crate::model::paging::PAGEOUT_WRITES_PER_VOLUME,
            migrate_writes: crate::model::storage::MIGRATE_BLOCKS_PER_VOLUME,
        }
    }
}

/// CP processor time per operation, in microseconds.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CpCosts {
    /// Handling a page fault that needs a DASD read (fault, block read start).
    pub page_fault_us: f64,
    /// Moving one page between central storage and XSTOR.
    pub xstor_move_us: f64,
    /// First reference to a page: obtain and clear a frame.
    pub first_touch_us: f64,
    /// Per page validated after a block read, or written in a block.
    pub page_io_us: f64,
    /// Per real I/O started and its interrupt handled.
    pub io_us: f64,
    /// Per dispatch of a virtual CPU.
    pub dispatch_us: f64,
    /// Demand scan, per frame examined (system time).
    pub steal_per_frame_us: f64,
    /// Guest-initiated (virtual) I/O simulation, per I/O.
    pub virtual_io_us: f64,
}

impl Default for CpCosts {
    fn default() -> Self {
        CpCosts {
            page_fault_us: 8.0,
            xstor_move_us: 4.0,
            first_touch_us: 2.0,
            page_io_us: 6.0,
            io_us: 15.0,
            dispatch_us: 1.0,
            steal_per_frame_us: 0.3,
            virtual_io_us: 20.0,
        }
    }
}

/// The longest run a scenario may ask for (400 days): more than a year of
/// simulated time, so that no typing slip (`1000000000h`) writes until the
/// disk is full. Not a z/VM limit; a MONWRITE file of 400 days at one-minute
/// intervals holds 576,000 intervals.
pub const MAX_DURATION: Ns = 400 * 86_400 * SEC;

/// The TOD clock's range as ISO 8601 text: its zero (1900-01-01) and the
/// last microsecond before it wraps (2042-09-17T23:53:47.370495Z).
fn tod_range() -> (i64, i64) {
    (
        ztwin_monitor::tod::to_unix_us(0),
        ztwin_monitor::tod::to_unix_us(u64::MAX),
    )
}

impl Meta {
    /// `[scenario]` on its own: the start is an ISO 8601 UTC time within
    /// the TOD clock's range, the duration at most [`MAX_DURATION`] and the
    /// run ends before the TOD clock wraps.
    pub fn validate(&self) -> Result<(), Invalid> {
        let Some(start) = ztwin_monitor::tod::parse_iso8601(&self.start) else {
            return invalid(
                "scenario.start".into(),
                format!(
                    "'{}' is not an ISO 8601 UTC time such as 2008-05-15T15:00:00Z",
                    self.start
                ),
            );
        };
        let (first, last) = tod_range();
        if start < first || start > last {
            return invalid(
                "scenario.start".into(),
                format!(
                    "'{}' is outside the TOD clock's range, 1900-01-01T00:00:00Z to {} (where it wraps)",
                    self.start,
                    ztwin_monitor::tod::iso8601_from_unix_us(last)
                ),
            );
        }
        self.check_duration(self.duration.0, "scenario.duration")
    }

    /// A run of `d` ns from this start (the scenario's duration or a
    /// `--duration` override): at most [`MAX_DURATION`], ending before the
    /// TOD clock wraps. `place` names where `d` came from.
    pub fn check_duration(&self, d: Ns, place: &str) -> Result<(), Invalid> {
        if d > MAX_DURATION {
            return invalid(
                place.into(),
                "must be at most 400 days (9600h), the longest run the twin makes".into(),
            );
        }
        let Some(start) = ztwin_monitor::tod::parse_iso8601(&self.start) else {
            return Ok(()); // the start's own check names it
        };
        let end = start.saturating_add((d / 1_000) as i64);
        let (_, last) = tod_range();
        if end > last {
            return invalid(
                place.into(),
                format!(
                    "a run of {} from {} would end after {}, where the TOD clock wraps",
                    human_duration(d),
                    self.start,
                    ztwin_monitor::tod::iso8601_from_unix_us(last)
                ),
            );
        }
        Ok(())
    }
}

/// A duration for a message: seconds, or hours when long.
fn human_duration(d: Ns) -> String {
    let s = d as f64 / SEC as f64;
    if s >= 36_000.0 {
        format!("{:.0}h", s / 3600.0)
    } else {
        format!("{s}s")
    }
}

/// One guest, or `count` identical guests whose user IDs end in 1..count.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GuestGroup {
    pub userid: String,
    #[serde(default = "one")]
    pub count: u32,
    pub virtual_storage: Size,
    #[serde(default = "one")]
    pub virtual_cpus: u32,
    #[serde(default = "share")]
    pub share: u32,
    #[serde(default)]
    pub quickdsp: bool,
    /// Logged on at time zero (otherwise a timeline logon brings it in).
    #[serde(default = "yes")]
    pub logged_on: bool,
    /// The workload started at logon (default idle).
    #[serde(default)]
    pub workload: Option<Workload>,
    /// The directory's V-DISK statements: VDISKs created at logon.
    #[serde(default)]
    pub vdisk: Vec<crate::model::vdisk::params::DirVdisk>,
    /// The guest runs Linux, modelled inside (`model/linux/params.rs`).
    #[serde(default)]
    pub linux: Option<crate::model::linux::params::Params>,
}

fn share() -> u32 {
    100
}
fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Logon,
    Logoff,
    Start,
    Stop,
    /// A CP command (`command`), issued by `guest` (or the operator).
    Cp,
    /// A DIAGNOSE X'64' function (`command`: LOADSHR, LOADNSHR or PURGESG
    /// and a segment name) issued by `guest`, as Linux's dcssblk does.
    Diag64,
    /// Caching on or off for `device` or every volume of `server` (pinned
    /// data, a cache failure; `on` restores it).
    Cache,
    /// SET MDC: the system, a volume (`device`) or a user's minidisks
    /// (`guest`) on or off.
    Mdc,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimelineEntry {
    pub at: Duration,
    pub action: Action,
    /// A user ID, or a group's userid prefix with `*` for all of its members
    /// (the guest actions; `mdc` for a user's minidisks; for `cp`, the
    /// issuer: optional, the operator by default).
    #[serde(default)]
    pub guest: String,
    /// For `cp` and `diag64`: the command line.
    #[serde(default)]
    pub command: Option<String>,
    /// For `start`: the workload to run (default: the guest's own).
    #[serde(default)]
    pub workload: Option<Workload>,
    /// For `cache` and `mdc`: the volume (device number) ...
    #[serde(default)]
    pub device: Option<String>,
    /// ... or, for `cache`, the storage server ...
    #[serde(default)]
    pub server: Option<String>,
    /// ... and on or off.
    #[serde(default)]
    pub on: Option<bool>,
}

fn one() -> u32 {
    1
}

impl Scenario {
    /// Parse TOML text; `origin` (file name) prefixes messages, which name
    /// the line and, past the syntax, the key.
    pub fn from_toml(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
        let mut sc: Scenario = deserialize_toml(text, origin)?;
        sc.normalise();
        sc.validate(origin).map_err(|mut e| {
            e.line = line_of(text, &e.place);
            e
        })?;
        Ok(sc)
    }

    /// Parse JSON (as produced by the Python API); messages name the key path.
    pub fn from_json(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let mut sc: Scenario = serde_path_to_error::deserialize(de).map_err(|e| ScenarioError {
            origin: origin.into(),
            line: None,
            place: e.path().to_string(),
            reason: e.inner().to_string(),
        })?;
        sc.normalise();
        sc.validate(origin)?;
        Ok(sc)
    }

    /// User IDs as CP holds them: upper case (CP translates user IDs to
    /// upper case, in the directory and in commands), so `linux01` is the
    /// guest LINUX01 and a timeline entry may name it either way.
    fn normalise(&mut self) {
        for g in &mut self.guests {
            g.userid.make_ascii_uppercase();
        }
        for t in &mut self.timeline {
            t.guest.make_ascii_uppercase();
        }
    }

    /// Semantic checks that the schema cannot express: each component's
    /// parameters, then the checks across sections (see the module doc).
    pub fn validate(&self, origin: &str) -> Result<(), ScenarioError> {
        let at = |e: Invalid| ScenarioError {
            origin: origin.into(),
            line: None,
            place: e.place,
            reason: e.reason,
        };
        let err = |place: String, reason: String| {
            Err(ScenarioError {
                origin: origin.into(),
                line: None,
                place,
                reason,
            })
        };
        monitor::params::cp_release(&self.system.cp_level).map_err(at)?;
        self.storage().validate().map_err(at)?;
        if self.agelist.is_some() && !storage::era_c::params::is_era_c(&self.system.cp_level) {
            return err(
                "agelist".into(),
                format!(
                    "SET AGELIST exists from z/VM 6.3 (the global aging list); CP level {} manages \
                     storage with XSTOR and the three-pass steal",
                    self.system.cp_level.trim()
                ),
            );
        }
        self.cpu().validate().map_err(at)?;
        if let Some(l) = &self.lpar {
            l.validate(&self.zvm_partition()).map_err(at)?;
        }
        self.net.validate().map_err(at)?;
        crate::model::net::params::validate(&self.hipersockets, |p| self.partition_known(p))
            .map_err(at)?;
        monitor::params::check_system_id(&self.system.system_id).map_err(at)?;
        self.monitor.validate().map_err(at)?;
        self.paging_params().validate().map_err(at)?;
        self.workload_costs().validate().map_err(at)?;
        if self.scenario.duration.0 < self.monitor.sample_interval.0 {
            return err(
                "scenario.duration".into(),
                "must be at least one sample interval".into(),
            );
        }
        self.scenario.validate().map_err(at)?;
        io::params::validate(&self.paging, &self.dasd, &self.io_sections()).map_err(at)?;
        spool::params::validate(&self.spool, &self.paging, &self.dasd, &self.io_sections())
            .map_err(at)?;
        self.spool_options.validate().map_err(at)?;
        let spool_slots: u64 = spool::params::volumes(&self.spool)
            .iter()
            .map(|(_, n)| *n as u64)
            .sum();
        segments::params::validate(&self.segments, spool_slots).map_err(at)?;
        self.vdisk.validate().map_err(at)?;
        if let Some(m) = &self.mdc {
            m.validate().map_err(at)?;
            for (i, u) in m.users_off.iter().chain(&m.nomdcfs).enumerate() {
                if self.resolve_guests(u).is_empty() {
                    return err(
                        format!("mdc.users_off/nomdcfs[{i}]"),
                        format!("'{u}' names no guest"),
                    );
                }
            }
        }
        // Guests: user IDs unique, the workloads they run.
        let mut users = HashSet::new();
        let mut total = 0u64;
        for (i, g) in self.guests.iter().enumerate() {
            let place = format!("guest[{i}] ({})", g.userid);
            if g.count == 0 || g.count > 100_000 {
                return err(format!("{place}.count"), "must be 1 to 100000".into());
            }
            for id in expand_userids(&g.userid, g.count) {
                cpu_params::check_userid(&place, &id).map_err(at)?;
                if !users.insert(id.clone()) {
                    return err(
                        format!("{place}.userid"),
                        format!("user ID '{id}' is defined twice"),
                    );
                }
            }
            let vs = g.virtual_storage.0;
            if !((1 << 20)..=(1u64 << 40)).contains(&vs) {
                return err(
                    format!("{place}.virtual_storage"),
                    "must be 1M to 1T".into(),
                );
            }
            total += vs * g.count as u64;
            cpu_params::check_guest(&place, g.virtual_cpus, g.share).map_err(at)?;
            let mut vdevs = HashSet::new();
            for (k, d) in g.vdisk.iter().enumerate() {
                let (vdev, _) = d.check(&format!("{place}.vdisk[{k}]")).map_err(at)?;
                if !vdevs.insert(vdev) {
                    return err(
                        format!("{place}.vdisk[{k}].vdev"),
                        format!("device {vdev:04X} is defined twice"),
                    );
                }
            }
            if let Some(w) = &g.workload {
                self.check_workload(w, g, &format!("{place}.workload"))
                    .map_err(at)?;
                self.check_net(w, g, &format!("{place}.workload"))
                    .map_err(at)?;
            }
            if g.linux.is_some() {
                self.linux_swap_sizes(g, &format!("{place}.linux"))
                    .map_err(at)?;
            }
        }
        if total > (64u64 << 40) {
            return err(
                "guest".into(),
                "more than 64T of virtual storage in total".into(),
            );
        }
        for (i, t) in self.timeline.iter().enumerate() {
            let place = format!("timeline[{i}]");
            if t.at.0 > self.scenario.duration.0 {
                return err(format!("{place}.at"), "is after the end of the run".into());
            }
            if matches!(t.action, Action::Cache | Action::Mdc) {
                if t.command.is_some() {
                    return err(
                        format!("{place}.command"),
                        "only cp and diag64 actions take a command".into(),
                    );
                }
                self.check_io_action(t, &place).map_err(at)?;
                continue;
            }
            if t.device.is_some() || t.server.is_some() || t.on.is_some() {
                return err(
                    place,
                    "device, server and on go with the cache and mdc actions only".into(),
                );
            }
            match (t.action, &t.command) {
                (Action::Cp, Some(c)) => {
                    cp::parse(c).map_err(|e| ScenarioError {
                        origin: origin.into(),
                        line: None,
                        place: format!("{place}.command"),
                        reason: e,
                    })?;
                    if !t.guest.is_empty() && self.resolve_guests(&t.guest).len() != 1 {
                        return err(
                            format!("{place}.guest"),
                            format!("'{}' must name one guest (the command's issuer)", t.guest),
                        );
                    }
                    continue;
                }
                (Action::Diag64, Some(c)) => {
                    cp::parse_diag64(c).map_err(|e| ScenarioError {
                        origin: origin.into(),
                        line: None,
                        place: format!("{place}.command"),
                        reason: e,
                    })?;
                }
                (Action::Cp | Action::Diag64, None) => {
                    return err(
                        format!("{place}.command"),
                        "a cp or diag64 action needs its command".into(),
                    );
                }
                (_, Some(_)) => {
                    return err(
                        format!("{place}.command"),
                        "only cp and diag64 actions take a command".into(),
                    );
                }
                _ => {}
            }
            let members = self.resolve_guests(&t.guest);
            if members.is_empty() {
                return err(
                    format!("{place}.guest"),
                    format!("'{}' names no guest", t.guest),
                );
            }
            if let Some(w) = &t.workload {
                if t.action != Action::Start {
                    return err(
                        format!("{place}.workload"),
                        "only a start action takes a workload".into(),
                    );
                }
                for (gi, _) in &members {
                    let g = &self.guests[*gi];
                    self.check_workload(w, g, &format!("{place}.workload"))
                        .map_err(at)?;
                    if matches!(w, Workload::Net { .. })
                        && !matches!(g.workload, Some(Workload::Net { .. }))
                    {
                        return err(
                            format!("{place}.workload"),
                            format!(
                                "a net workload needs the guest's QDIO device: {}'s own workload must be a net one",
                                g.userid
                            ),
                        );
                    }
                }
            }
        }
        Ok(())
    }

    /// A partition of the CEC by name: this z/VM partition, or an
    /// `[[lpar.partition]]`.
    fn partition_known(&self, name: &str) -> bool {
        name.eq_ignore_ascii_case(&self.system.lpar_name)
            || self.lpar.as_ref().is_some_and(|l| {
                l.partitions
                    .iter()
                    .any(|p| p.name.eq_ignore_ascii_case(name))
            })
    }

    /// A network workload's references: its peer partition exists, its
    /// HiperSockets CHPID is defined and both partitions are on it, its
    /// devices are not volumes and not another group's.
    fn check_net(&self, w: &Workload, g: &GuestGroup, place: &str) -> Result<(), Invalid> {
        let Workload::Net {
            via,
            chpid,
            device,
            peer,
            ..
        } = w
        else {
            return Ok(());
        };
        if !self.partition_known(peer) {
            return invalid(
                format!("{place}.peer"),
                match &self.lpar {
                    None => format!(
                        "partition '{peer}' does not exist: without an [lpar] section the only partition is this one ({})",
                        self.system.lpar_name
                    ),
                    Some(_) => format!(
                        "partition '{peer}' does not exist (not this z/VM partition {} nor an [[lpar.partition]])",
                        self.system.lpar_name
                    ),
                },
            );
        }
        let id = crate::model::net::params::parse_chpid(chpid)
            .map_err(|e| Invalid::new(format!("{place}.chpid"), e))?;
        if *via == crate::model::net::Via::HiperSockets {
            let Some(h) = self
                .hipersockets
                .iter()
                .find(|h| crate::model::net::params::parse_chpid(&h.chpid).ok() == Some(id))
            else {
                return invalid(
                    format!("{place}.chpid"),
                    format!("HiperSockets CHPID {id:02X} is not defined (no [[hipersockets]] with chpid = \"{id:02X}\")"),
                );
            };
            for p in [peer.as_str(), self.system.lpar_name.as_str()] {
                if !h.partitions.is_empty()
                    && !h.partitions.iter().any(|x| x.eq_ignore_ascii_case(p))
                {
                    return invalid(
                        format!("{place}.peer"),
                        format!("partition '{p}' has no device on HiperSockets CHPID {id:02X} (its partitions list)"),
                    );
                }
            }
        }
        let d = parse_devno(device).map_err(|e| Invalid::new(format!("{place}.device"), e))? as u32;
        let (vols, _) = io::params::volumes(&self.paging, &self.dasd);
        let mine = d..d + 3 * g.count;
        if let Some(v) = vols.iter().find(|v| mine.contains(&(v.devno as u32))) {
            return invalid(
                format!("{place}.device"),
                format!("device {:04X} is a DASD volume", v.devno),
            );
        }
        Ok(())
    }

    /// The guests' QDIO devices, in guest order: for each member of a group
    /// with a network workload its device (3 apart), CHPID, adapter and
    /// peer (`peer` finds the CEC's entry of a partition name).
    pub fn net_devices(
        &self,
        peer: impl Fn(&str) -> Option<usize>,
    ) -> Vec<crate::model::net::DevDef> {
        let mut out = Vec::new();
        let mut guest = 0u32;
        for g in &self.guests {
            if let Some(Workload::Net {
                via,
                chpid,
                device,
                peer: p,
                ..
            }) = &g.workload
            {
                let d = parse_devno(device).expect("validated");
                let chpid = crate::model::net::params::parse_chpid(chpid).expect("validated");
                for k in 0..g.count {
                    out.push(crate::model::net::DevDef {
                        devno: d + 3 * k as u16,
                        guest: guest + k,
                        via: *via,
                        chpid,
                        peer: peer(p),
                    });
                }
            }
            guest += g.count;
        }
        out
    }

    /// Group `g`'s Linux checked against the guest (storage, its VDISKs,
    /// the segments defined): its swap devices' sizes in bytes.
    pub fn linux_swap_sizes(&self, g: &GuestGroup, place: &str) -> Result<Vec<u64>, Invalid> {
        let Some(lx) = &g.linux else {
            return Ok(Vec::new());
        };
        let storage = g.virtual_storage.0;
        if storage > crate::model::linux::MAX_STORAGE {
            return Err(Invalid::new(
                place.to_string(),
                "the Linux memory model takes guests of at most 16G".to_string(),
            ));
        }
        let vdisks: Vec<(u16, u64)> = g
            .vdisk
            .iter()
            .filter_map(|d| d.check(place).ok().map(|(v, b)| (v, b * 512)))
            .collect();
        let segment = |name: &str| {
            self.segments.iter().find_map(|s| {
                let d = s.def().ok()?;
                d.name
                    .eq_ignore_ascii_case(name)
                    .then(|| d.pages().total as u64 * 4096)
            })
        };
        let is_dasd = |d: u16| io::params::dasd_info(&self.dasd, d).is_some();
        lx.check(place, storage, &vdisks, segment, is_dasd)?;
        lx.swap
            .iter()
            .enumerate()
            .map(|(i, s)| s.size_bytes(&format!("{place}.swap[{i}]"), &vdisks, segment, is_dasd))
            .collect()
    }

    /// A `cache` or `mdc` timeline action: what it names exists.
    fn check_io_action(&self, t: &TimelineEntry, place: &str) -> Result<(), Invalid> {
        if t.on.is_none() {
            return invalid(format!("{place}.on"), "say on = true or on = false".into());
        }
        if t.workload.is_some() {
            return invalid(
                format!("{place}.workload"),
                "only a start action takes a workload".into(),
            );
        }
        if let Some(d) = &t.device {
            let dev = parse_devno(d).map_err(|e| Invalid::new(format!("{place}.device"), e))?;
            let (vols, _) = io::params::volumes(&self.paging, &self.dasd);
            let Some(v) = vols.iter().find(|v| v.devno == dev) else {
                return invalid(format!("{place}.device"), format!("{d} is not a volume"));
            };
            if t.action == Action::Cache && v.path.is_none() {
                return invalid(
                    format!("{place}.device"),
                    format!(
                        "{d} has no path: caching is a storage server's (give the volume a path)"
                    ),
                );
            }
        }
        match t.action {
            Action::Cache => {
                if t.device.is_some() == t.server.is_some() {
                    return invalid(place.to_string(), "give a device or a server".into());
                }
                if !t.guest.is_empty() {
                    return invalid(
                        format!("{place}.guest"),
                        "a cache action names no guest".into(),
                    );
                }
                if let Some(sv) = &t.server {
                    if !self.storage_server.iter().any(|s| &s.name == sv) {
                        return invalid(
                            format!("{place}.server"),
                            format!("'{sv}' is not a [[storage_server]]"),
                        );
                    }
                }
            }
            _ => {
                if t.server.is_some() {
                    return invalid(format!("{place}.server"), "SET MDC names no server".into());
                }
                if self.mdc.is_none() {
                    return invalid(place.to_string(), "SET MDC needs an [mdc] section".into());
                }
                if !t.guest.is_empty() {
                    if t.device.is_some() {
                        return invalid(
                            place.to_string(),
                            "give a device or a guest, not both".into(),
                        );
                    }
                    if self.resolve_guests(&t.guest).is_empty() {
                        return invalid(
                            format!("{place}.guest"),
                            format!("'{}' names no guest", t.guest),
                        );
                    }
                }
            }
        }
        Ok(())
    }

    /// Workload `w` run by guest group `g`: its bounds, its area within the
    /// group's virtual storage, its device among the `[[dasd]]` volumes.
    fn check_workload(&self, w: &Workload, g: &GuestGroup, place: &str) -> Result<(), Invalid> {
        // A Linux guest's processes may use more than its storage: what does
        // not fit is swapped (up to its swap devices' sizes).
        let swap: u64 = if g.linux.is_some() {
            self.linux_swap_sizes(g, "linux")
                .map_or(0, |v| v.iter().sum())
        } else {
            0
        };
        w.validate(place, g.virtual_storage.0 + swap, g.count, |d| {
            io::params::dasd_info(&self.dasd, d)
        })
    }

    /// Index among all DASD (non-paging) volumes of device number `d`.
    pub fn dasd_volume_index(&self, d: u16) -> Option<usize> {
        io::params::dasd_volume_index(&self.dasd, d)
    }

    /// Guests named by a timeline entry: (group index, member index).
    pub fn resolve_guests(&self, name: &str) -> Vec<(usize, u32)> {
        let mut out = Vec::new();
        for (gi, g) in self.guests.iter().enumerate() {
            for (k, id) in expand_userids(&g.userid, g.count).into_iter().enumerate() {
                let hit = match name.strip_suffix('*') {
                    Some(prefix) => id.starts_with(prefix),
                    None => id == name,
                };
                if hit {
                    out.push((gi, k as u32));
                }
            }
        }
        out
    }

    /// The z/VM partition as the CEC sees it (`[system]`).
    pub fn zvm_partition(&self) -> crate::model::lpar::params::ZvmPart {
        use crate::model::lpar::params::PType;
        crate::model::lpar::params::ZvmPart {
            name: self.system.lpar_name.clone(),
            ptype: match self.system.processor_type {
                ProcessorType::CP => PType::CP,
                ProcessorType::IFL => PType::IFL,
            },
            logical: self.system.processors,
        }
    }

    /// The z/VM release the monitor records are written for (`system.cp_level`;
    /// validated, so a scenario that passed `validate` always has one).
    pub fn release(&self) -> ztwin_monitor::layout::Release {
        monitor::params::cp_release(&self.system.cp_level)
            .unwrap_or(ztwin_monitor::layout::DEFAULT_RELEASE)
    }

    /// The I/O sections, for their validation.
    pub fn io_sections(&self) -> io::params::Sections<'_> {
        io::params::Sections {
            io: &self.io,
            chpids: &self.chpid,
            switches: &self.switch,
            servers: &self.storage_server,
            control_units: &self.control_unit,
        }
    }

    /// The io component's configuration (the path model's sections and the
    /// CP level).
    pub fn io_config(&self) -> io::IoConfig {
        io::IoConfig {
            params: self.io.clone(),
            chpids: self.chpid.clone(),
            switches: self.switch.clone(),
            servers: self.storage_server.clone(),
            control_units: self.control_unit.clone(),
            cp_level: io::params::cp_level(&self.system.cp_level),
        }
    }

    /// The storage component's parameters.
    pub fn storage(&self) -> storage::params::Params {
        storage::params::Params {
            cp_level: self.system.cp_level.clone(),
            central_storage: self.system.central_storage.0,
            cp_fixed: self.system.cp_fixed.0,
            xstor: self.system.xstor.0,
            xstor_low: self.srm.xstor_low,
            block_max: self.srm.block_max(&self.system.cp_level),
            migrate_writes: self.srm.migrate_writes,
            steal_per_frame_us: self.cp_costs.steal_per_frame_us,
            xstor_move_us: self.cp_costs.xstor_move_us,
            agelist: storage::era_c::params::is_era_c(&self.system.cp_level)
                .then(|| self.agelist.clone().unwrap_or_default()),
        }
    }

    /// The paging component's parameters.
    pub fn paging_params(&self) -> paging::params::Params {
        paging::params::Params {
            block_max: self.srm.block_max(&self.system.cp_level),
            pageout_writes: self.srm.pageout_writes,
            page_fault_us: self.cp_costs.page_fault_us,
            page_io_us: self.cp_costs.page_io_us,
            io_us: self.cp_costs.io_us,
        }
    }

    /// The cpu component's parameters.
    pub fn cpu(&self) -> cpu_params::Params {
        cpu_params::Params {
            processors: self.system.processors,
            storbuf: self.srm.storbuf,
            ldubuf: self.srm.ldubuf,
            dispatch_us: self.cp_costs.dispatch_us,
        }
    }

    /// The CP costs of a workload's burst.
    pub fn workload_costs(&self) -> workload::params::Params {
        workload::params::Params {
            first_touch_us: self.cp_costs.first_touch_us,
            xstor_move_us: self.cp_costs.xstor_move_us,
            page_fault_us: self.cp_costs.page_fault_us,
            virtual_io_us: self.cp_costs.virtual_io_us,
        }
    }
}

/// Deserialize TOML `text` (`origin` its file name) into `T`: a syntax error
/// names its line, a schema error its key path and line.
pub(crate) fn deserialize_toml<T: serde::de::DeserializeOwned>(
    text: &str,
    origin: &str,
) -> Result<T, ScenarioError> {
    let syntax = |e: toml::de::Error| {
        let mut reason = e.message().trim().to_string();
        if reason.is_empty() {
            reason = e.to_string().trim().to_string();
        }
        ScenarioError {
            origin: origin.into(),
            line: e.span().map(|s| line_at(text, s.start)),
            place: String::new(),
            reason,
        }
    };
    let de = toml::Deserializer::parse(text).map_err(syntax)?;
    serde_path_to_error::deserialize(de).map_err(|e| {
        let place = key_path(&e.path().to_string());
        let mut err = syntax(e.into_inner());
        if err.line.is_none() {
            err.line = line_of(text, &place);
        }
        err.place = place;
        err
    })
}

/// serde_path_to_error's path as a key path: "." (the top) is none.
fn key_path(p: &str) -> String {
    if p == "." {
        String::new()
    } else {
        p.to_string()
    }
}

/// The line of TOML `text` that key path `place` (as the checks name it:
/// `guest[0] (LIN).workload.area`, `paging[1].count`) is written on: the
/// deepest part of the path present in the file (a key left at its default
/// gives its table's line). `None` when no part of it is in the file.
pub(crate) fn line_of(text: &str, place: &str) -> Option<usize> {
    use toml::de::{DeTable, DeValue};
    // Drop the " (USERID)" notes, which are not keys (and may hold dots).
    let mut path = String::with_capacity(place.len());
    let mut depth = 0usize;
    for c in place.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => path.push(c),
            _ => {}
        }
    }
    let doc = DeTable::parse(text).ok()?;
    let mut table: &DeTable = doc.get_ref();
    let mut at: Option<usize> = None;
    for part in path.split('.') {
        let part = part.trim();
        let (name, index) = match part.split_once('[') {
            Some((n, i)) => (n, i.trim_end_matches(']').parse::<usize>().ok()),
            None => (part, None),
        };
        let Some((k, v)) = table.iter().find(|(k, _)| k.get_ref().as_ref() == name) else {
            break;
        };
        at = Some(k.span().start);
        let mut v = v;
        if let Some(i) = index {
            match v.get_ref() {
                DeValue::Array(a) => match a.get(i) {
                    Some(e) => {
                        v = e;
                        at = Some(e.span().start);
                    }
                    None => break,
                },
                _ => break,
            }
        }
        match v.get_ref() {
            DeValue::Table(t) => table = t,
            _ => break,
        }
    }
    at.map(|a| line_at(text, a))
}

/// The line (1-based) byte offset `at` of `text` is on.
fn line_at(text: &str, at: usize) -> usize {
    let b = text.as_bytes();
    b[..at.min(b.len())].iter().filter(|&&c| c == b'\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: &str = r#"
[system]
processors = 1
central_storage = "1G"
[[paging]]
device_type = "3390-9"
count = 2
first_address = "9F01"
volser_prefix = "PG"
[[guest]]
userid = "LIN"
count = 3
virtual_storage = "256M"
workload = { type = "thrasher", area = "100M" }
"#;

    /// A check on the values of a TOML file names the key and its line
    /// (issue 15's bad-input list for the CEC).
    #[test]
    fn value_errors_name_the_line() {
        let cec = |body: &str| format!("{MIN}[lpar]\nphysical = {{ ifl = 6 }}\n{body}");
        // MIN ends at line 14; [lpar] is line 15, physical 16, the body from 17.
        for (body, place, line, want) in [
            ("weight = 0\n", "lpar.weight", 17, "a weight is 1 to 999"),
            (
                "[[lpar.partition]]\nname = \"LNX2\"\ntype = \"IFL\"\nlogical = 4\nweight = 0\n",
                "lpar.partition[0].weight",
                18,
                "a weight is 1 to 999",
            ),
            (
                "[[lpar.partition]]\nname = \"LNX2\"\ntype = \"IFL\"\nlogical = 4\ndedicated = true\n\
                 [[lpar.partition]]\nname = \"LNX3\"\ntype = \"IFL\"\nlogical = 4\ndedicated = true\n",
                "lpar.partition[1].dedicated",
                23,
                "but the CEC has 6 and 4 are already dedicated",
            ),
            (
                "[[lpar.partition]]\nname = \"LNX2\"\ntype = \"IFL\"\nlogical = 4\ndedicated = true\nabsolute_cap = 1.5\n",
                "lpar.partition[0].absolute_cap",
                18,
                "below its dedicated share",
            ),
        ] {
            let e = Scenario::from_toml(&cec(body), "c.toml").unwrap_err();
            assert_eq!(e.place, place, "{e}");
            assert!(e.reason.contains(want), "{e}");
            // The partition's table starts at its [[lpar.partition]] header.
            let l = e.line.unwrap();
            assert!(l == line || (place.contains('[') && l >= line), "{e}");
            assert!(e.to_string().starts_with(&format!("c.toml: line {l}: {place}: ")), "{e}");
        }
        let e = Scenario::from_toml(
            &MIN.replace("[system]\n", "[system]\ncp_level = \"6.5\"\n"),
            "c.toml",
        )
        .unwrap_err();
        assert_eq!(
            (e.line, e.place.as_str()),
            (Some(3), "system.cp_level"),
            "{e}"
        );
        // 7.3 is modelled (Era C) but has no XSTOR: the xstor line is named.
        let toml = MIN.replace(
            "[system]\n",
            "[system]\ncp_level = \"7.3\"\nxstor = \"1G\"\n",
        );
        assert!(Scenario::from_toml(&toml.replace("xstor = \"1G\"\n", ""), "c.toml").is_ok());
        let e = Scenario::from_toml(&toml, "c.toml").unwrap_err();
        assert_eq!((e.line, e.place.as_str()), (Some(4), "system.xstor"), "{e}");
        assert!(e.reason.contains("XSTOR on CP level 7.3"), "{e}");
        // [agelist] belongs to 6.3 and later.
        let e =
            Scenario::from_toml(&format!("{MIN}\n[agelist]\nsize = 5.0\n"), "c.toml").unwrap_err();
        assert_eq!(e.place, "agelist", "{e}");
        assert!(e.line.is_some(), "{e}");
        let toml = MIN.replace("[system]\n", "[system]\ncp_level = \"6.4\"\n");
        let e = Scenario::from_toml(&format!("{toml}\n[agelist]\nsize = 50.0\n"), "c.toml")
            .unwrap_err();
        assert_eq!(e.place, "agelist.size", "{e}");
        assert!(e.line.is_some(), "{e}");
        let sc =
            Scenario::from_toml(&format!("{toml}\n[agelist]\nsize = 5.0\n"), "c.toml").unwrap();
        assert_eq!(sc.storage().agelist.unwrap().size, 5.0);
        assert_eq!(
            sc.paging_params().block_max,
            32,
            "6.4's larger paging blocks"
        );
        // A default has no line: the key is named alone.
        assert_eq!(line_of(MIN, "lpar.weight"), None);
        assert_eq!(line_of(MIN, "guest[0].workload"), Some(14));
        assert_eq!(line_of(MIN, "guest[0] (LIN001).count"), Some(12));
    }

    #[test]
    fn minimal_scenario_parses() {
        let s = Scenario::from_toml(MIN, "min.toml").unwrap();
        assert_eq!(s.system.central_storage.0, 1 << 30);
        assert_eq!(s.srm.storbuf, [125, 105, 95]);
        assert_eq!(expand_userids("LIN", 3), ["LIN1", "LIN2", "LIN3"]);
        assert_eq!(s.resolve_guests("LIN*").len(), 3);
        assert_eq!(volser("PG", 0, 2), "PG1");
    }

    #[test]
    fn unknown_key_names_the_line() {
        let bad = MIN.replace("processors = 1", "processors = 1\nprocesors = 2");
        let e = Scenario::from_toml(&bad, "x.toml").unwrap_err();
        assert_eq!(e.line, Some(4), "{e}");
        assert_eq!(e.place, "system.procesors", "{e}");
        assert!(e.reason.contains("procesors"), "{e}");
        assert!(
            e.to_string()
                .starts_with("x.toml: line 4: system.procesors: unknown field"),
            "{e}"
        );
        // A wrong type names its line and its key.
        let bad = MIN.replace("processors = 1", "processors = \"two\"");
        let e = Scenario::from_toml(&bad, "x.toml").unwrap_err();
        assert_eq!(
            (e.line, e.place.as_str()),
            (Some(3), "system.processors"),
            "{e}"
        );
        // A syntax error has only its line.
        let e = Scenario::from_toml("[system\n", "x.toml").unwrap_err();
        assert_eq!((e.line, e.place.as_str()), (Some(1), ""), "{e}");
    }

    /// Semantic errors name the line the key is on; a key left at its
    /// default names its table's line; JSON has no lines.
    #[test]
    fn semantic_errors_name_the_line() {
        let bad = MIN.replace("area = \"100M\"", "area = \"300M\"");
        let e = Scenario::from_toml(&bad, "x.toml").unwrap_err();
        let want = bad.lines().position(|l| l.contains("300M")).unwrap() + 1;
        assert_eq!(e.line, Some(want), "{e}");
        assert!(
            e.to_string().starts_with(&format!(
                "x.toml: line {want}: guest[0] (LIN).workload.area: "
            )),
            "{e}"
        );
        let bad = format!("{MIN}[[guest]]\nuserid = \"X.Y\"\nvirtual_storage = \"1M\"\n");
        let e = Scenario::from_toml(&bad, "x.toml").unwrap_err();
        let want = bad.lines().position(|l| l.contains("X.Y")).unwrap() + 1;
        assert_eq!(
            (e.line, e.place.as_str()),
            (Some(want), "guest[1] (X.Y).userid"),
            "{e}"
        );
        // The duration is not written: the check names [scenario]'s line.
        let bad = format!("[scenario]\nname = \"n\"\n[monitor]\nsample_interval = \"1h\"\n{MIN}");
        let e = Scenario::from_toml(&bad, "x.toml").unwrap_err();
        assert_eq!(
            (e.line, e.place.as_str()),
            (Some(1), "scenario.duration"),
            "{e}"
        );
        assert_eq!(line_of(MIN, "nosuch.key"), None);
        // A quoted key with a newline stays on one line in the message.
        let bad = MIN.replace("processors = 1", "processors = 1\n\"a\\nb\" = 2");
        let e = Scenario::from_toml(&bad, "x.toml").unwrap_err();
        assert!(
            e.reason.contains('\n') && !e.to_string().contains('\n'),
            "{e}"
        );
        assert_eq!(e.line, Some(4), "{e}");
    }

    fn meta_err(scenario: &str) -> ScenarioError {
        Scenario::from_toml(&format!("[scenario]\n{scenario}\n{MIN}"), "x.toml").unwrap_err()
    }

    fn meta_ok(scenario: &str) {
        if let Err(e) = Scenario::from_toml(&format!("[scenario]\n{scenario}\n{MIN}"), "x.toml") {
            panic!("{scenario}: {e}");
        }
    }

    #[test]
    fn start_within_the_tod_clocks_range() {
        meta_ok("start = \"1900-01-01T00:00:00Z\"");
        meta_ok("start = \"2042-09-17T00:00:00Z\"\nduration = \"23h\"");
        for start in [
            "1899-12-31T23:59:59Z",
            "1800-01-01T00:00:00Z",
            "2042-09-18T00:00:00Z",
            "2050-01-01T00:00:00Z",
        ] {
            let e = meta_err(&format!("start = \"{start}\""));
            assert_eq!(
                (e.line, e.place.as_str()),
                (Some(2), "scenario.start"),
                "{e}"
            );
            assert!(
                e.reason.contains(
                    "outside the TOD clock's range, 1900-01-01T00:00:00Z to 2042-09-17T23:53:47"
                ),
                "{e}"
            );
        }
        // The default duration (600 s) from a start just before the wrap.
        let e = meta_err("start = \"2042-09-17T23:50:00Z\"");
        assert_eq!(e.place, "scenario.duration", "{e}");
        assert!(
            e.reason.contains("would end after 2042-09-17T23:53:47"),
            "{e}"
        );
        let e = meta_err("start = \"yesterday\"");
        assert!(e.reason.contains("not an ISO 8601 UTC time"), "{e}");
    }

    #[test]
    fn duration_at_most_400_days() {
        meta_ok("duration = \"9600h\"");
        for d in ["\"9601h\"", "\"1000000000h\"", "1e30"] {
            let e = meta_err(&format!("duration = {d}"));
            assert_eq!(
                (e.line, e.place.as_str()),
                (Some(2), "scenario.duration"),
                "{d}: {e}"
            );
            assert!(e.reason.contains("must be at most 400 days (9600h)"), "{e}");
        }
        let sc = Scenario::from_toml(MIN, "x.toml").unwrap();
        assert!(sc.scenario.check_duration(MAX_DURATION, "d").is_ok());
        assert_eq!(
            sc.scenario
                .check_duration(MAX_DURATION + 1, "d")
                .unwrap_err()
                .place,
            "d"
        );
    }

    #[test]
    fn user_ids_as_cp_has_them() {
        let with =
            |id: &str| MIN.replace("userid = \"LIN\"\ncount = 3", &format!("userid = \"{id}\""));
        for ok in [
            "A", "LINUX01", "@#$_-9", "Z1234567", "LOGNABC", "SYSTEMM", "LOGX0001",
        ] {
            assert!(Scenario::from_toml(&with(ok), "x.toml").is_ok(), "{ok}");
        }
        for (id, why) in [
            ("", "it has 0 characters, CP allows 1 to 8"),
            ("ABCDEFGHI", "it has 9 characters, CP allows 1 to 8"),
            (
                "A.B",
                "'.' is not one of the characters CP allows (A-Z 0-9 @ # $ _ -)",
            ),
            ("MÜLLER", "'Ü' is not one of"),
            ("SYSTEM", "reserved for CP"),
            ("SYSTEMMP", "reserved for CP"),
            ("LOGN0001", "reserved for CP"),
            ("LOGL00A1", "reserved for CP"),
            ("logv0001", "reserved for CP"),
        ] {
            let e = Scenario::from_toml(&with(id), "x.toml").unwrap_err();
            assert_eq!(e.line, Some(11), "{id}: {e}");
            assert!(
                e.place.ends_with(".userid") && e.reason.contains(why),
                "{id}: {e}"
            );
        }
        // Lower case is CP's upper case: the guest is LINUX01, and a timeline
        // entry may name it either way; the two spellings are one user.
        let lower = format!(
            "{}[[timeline]]\nat = 60\naction = \"logoff\"\nguest = \"Linux01\"\n",
            with("linux01")
        );
        let sc = Scenario::from_toml(&lower, "x.toml").unwrap();
        assert_eq!(sc.guests[0].userid, "LINUX01");
        assert_eq!(sc.resolve_guests("LINUX01").len(), 1);
        let twice = format!(
            "{}[[guest]]\nuserid = \"LINUX01\"\nvirtual_storage = \"1M\"\n",
            with("linux01")
        );
        let e = Scenario::from_toml(&twice, "x.toml").unwrap_err();
        assert!(e.reason.contains("'LINUX01' is defined twice"), "{e}");
    }

    #[test]
    fn semantic_errors_name_the_key() {
        let bad = MIN.replace("area = \"100M\"", "area = \"300M\"");
        let e = Scenario::from_toml(&bad, "x.toml").unwrap_err();
        assert_eq!(e.place, "guest[0] (LIN).workload.area");
        let bad = MIN.replace("3390-9", "3390-X");
        assert!(Scenario::from_toml(&bad, "x.toml")
            .unwrap_err()
            .to_string()
            .contains("paging[0].device_type"));
        let bad = format!("{MIN}\n[[paging]]\ndevice_type = \"3390-3\"\nfirst_address = \"9F02\"\nvolser_prefix = \"X\"\n");
        let e = Scenario::from_toml(&bad, "x.toml").unwrap_err();
        assert!(e.reason.contains("9F02 is defined twice"), "{e}");
    }

    #[test]
    fn central_storage_up_to_two_terabytes() {
        let big = MIN.replace("central_storage = \"1G\"", "central_storage = \"2T\"");
        assert!(Scenario::from_toml(&big, "x.toml").is_ok());
        let over = MIN.replace("central_storage = \"1G\"", "central_storage = \"2097156M\"");
        let e = Scenario::from_toml(&over, "x.toml").unwrap_err();
        assert_eq!(
            (e.line, e.place.as_str()),
            (Some(4), "system.central_storage")
        );
        assert!(e.reason.contains("above 2T"), "{e}");
    }

    /// Each component's checks and the cross-section ones still name their
    /// key (the places `docs/scenario.md` documents).
    #[test]
    fn every_section_checks_its_keys() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "cp_level = \"5.4\"",
                "cp_level = \"6.5\"",
                "system.cp_level",
            ),
            ("processors = 1", "processors = 0", "system.processors"),
            (
                "central_storage = \"1G\"",
                "central_storage = \"100M\"",
                "system.central_storage",
            ),
            (
                "cp_fixed = \"64M\"",
                "cp_fixed = \"600M\"",
                "system.cp_fixed",
            ),
            ("xstor = \"0\"", "xstor = \"200G\"", "system.xstor"),
            (
                "system_id = \"ZTWIN\"",
                "system_id = \"TOOLONGID\"",
                "system.system_id",
            ),
            ("block_max = 4", "block_max = 0", "srm.block_max"),
            ("xstor_low = 0.01", "xstor_low = 0.7", "srm.xstor_low"),
            (
                "storbuf = [125, 105, 95]",
                "storbuf = [95, 105, 125]",
                "srm.storbuf",
            ),
            ("io_us = 15.0", "io_us = -1.0", "cp_costs.io_us"),
            (
                "dispatch_us = 1.0",
                "dispatch_us = 1e9",
                "cp_costs.dispatch_us",
            ),
            (
                "virtual_io_us = 20.0",
                "virtual_io_us = -2.0",
                "cp_costs.virtual_io_us",
            ),
            ("hf_rate = \"2s\"", "hf_rate = \"5ms\"", "monitor.hf_rate"),
            (
                "sample_interval = \"60s\"",
                "sample_interval = \"2h\"",
                "monitor.sample_interval",
            ),
            (
                "duration = \"600s\"",
                "duration = \"10s\"",
                "scenario.duration",
            ),
            (
                "start = \"2008-05-15T15:00:00Z\"",
                "start = \"yesterday\"",
                "scenario.start",
            ),
            ("count = 2", "count = 2000", "paging[0].count"),
            (
                "first_address = \"9F01\"",
                "first_address = \"XYZ\"",
                "paging[0].first_address",
            ),
            (
                "virtual_cpus = 1",
                "virtual_cpus = 65",
                "guest[0] (LIN).virtual_cpus",
            ),
            ("share = 100", "share = 0", "guest[0] (LIN).share"),
            (
                "userid = \"LIN\"",
                "userid = \"LINUXGUEST\"",
                "guest[0] (LINUXGUEST).userid",
            ),
        ];
        let full = format!(
            "[scenario]\nduration = \"600s\"\nstart = \"2008-05-15T15:00:00Z\"\n{}\n[srm]\nstorbuf = [125, 105, 95]\nblock_max = 4\nxstor_low = 0.01\n[cp_costs]\nio_us = 15.0\ndispatch_us = 1.0\nvirtual_io_us = 20.0\n[monitor]\nsample_interval = \"60s\"\nhf_rate = \"2s\"\n",
            MIN.replace(
                "processors = 1",
                "processors = 1\ncp_level = \"5.4\"\nsystem_id = \"ZTWIN\"\nxstor = \"0\"\ncp_fixed = \"64M\""
            )
            .replace("virtual_storage = \"256M\"", "virtual_storage = \"256M\"\nvirtual_cpus = 1\nshare = 100")
        );
        Scenario::from_toml(&full, "x.toml").expect("the base scenario is valid");
        for (from, to, place) in cases {
            assert!(full.contains(from), "{from}");
            let bad = full.replacen(from, to, 1);
            let e = Scenario::from_toml(&bad, "x.toml").unwrap_err();
            assert_eq!(e.place, *place, "{to}: {e}");
        }
    }

    #[test]
    fn json_errors_name_the_path() {
        let e = Scenario::from_json(
            r#"{"system": {"processors": "two", "central_storage": "1G"}}"#,
            "api",
        )
        .unwrap_err();
        assert_eq!(e.place, "system.processors");
    }
}
