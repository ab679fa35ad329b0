//! Scenario files: the LPAR, CP settings, paging volumes, monitor settings,
//! guests and a timeline, in TOML (or the equivalent JSON from the Python API).
//!
//! The schema is enforced: unknown keys, wrong types and impossible values are
//! rejected with a message that names the key (and, for TOML, the line). The
//! reference is `docs/scenario.md`.

use crate::core::units::{Duration, Ns, Size, MS, SEC, US};
use crate::model::io::params as io;
pub use crate::model::io::params::{cylinders_of, parse_devno, SLOTS_PER_CYL};
use serde::Deserialize;
use std::collections::HashSet;

/// A scenario problem: where (key path or line) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub origin: String,
    pub place: String,
    pub reason: String,
}

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.place.is_empty() {
            write!(f, "{}: {}", self.origin, self.reason)
        } else {
            write!(f, "{}: {}: {}", self.origin, self.place, self.reason)
        }
    }
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
    /// The I/O configuration (`model/io/params.rs`): CP's I/O settings, channel
    /// paths, switches, storage servers and logical control units.
    #[serde(default)]
    pub io: io::IoParams,
    #[serde(default)]
    pub chpid: Vec<io::ChpidDef>,
    #[serde(default)]
    pub switch: Vec<io::SwitchDef>,
    #[serde(default)]
    pub storage_server: Vec<io::ServerDef>,
    #[serde(default)]
    pub control_unit: Vec<io::ControlUnitDef>,
    #[serde(default, rename = "guest")]
    pub guests: Vec<GuestGroup>,
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
    /// CP level: "5.4" (Era A: XSTOR, three-pass steal). Later levels are refused
    /// until their storage manager exists.
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
    /// Largest block of pages CP writes to DASD in one I/O.
    pub block_max: u32,
    /// XSTOR migration starts when free XSTOR falls below this fraction.
    pub xstor_low: f64,
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
            block_max: 4,
            xstor_low: 0.01,
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

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Monitor {
    /// MONITOR SAMPLE INTERVAL.
    pub sample_interval: Duration,
    /// MONITOR SAMPLE RATE (high-frequency state sampling).
    pub hf_rate: Duration,
}

impl Default for Monitor {
    fn default() -> Self {
        Monitor {
            sample_interval: Duration(60 * SEC),
            hf_rate: Duration(2 * SEC),
        }
    }
}

/// Service-time parameters of a DASD volume (milliseconds).
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServiceTime {
    pub pending_ms: f64,
    pub disconnect_ms: f64,
    /// Connect time per I/O (command overhead).
    pub connect_ms_per_io: f64,
    /// Connect time per 4 KB page moved.
    pub connect_ms_per_page: f64,
    /// Relative spread of each component (uniform ±), for realistic variation.
    pub jitter: f64,
}

impl Default for ServiceTime {
    fn default() -> Self {
        ServiceTime {
            pending_ms: 0.2,
            disconnect_ms: 0.0,
            connect_ms_per_io: 0.1,
            connect_ms_per_page: 0.5,
            jitter: 0.1,
        }
    }
}

/// A group of identical paging volumes (CP-owned, PAGE extents).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PagingGroup {
    /// "3390-3", "3390-9", "3390-27", "3390-54".
    pub device_type: String,
    #[serde(default = "one")]
    pub count: u32,
    /// Device number of the first volume (hex); the others follow.
    pub first_address: String,
    /// Volume serials: prefix followed by a sequence number.
    pub volser_prefix: String,
    /// Cylinders used for the PAGE extent (default: the whole volume).
    #[serde(default)]
    pub cylinders: Option<u32>,
    /// Size of an FBA or EDEV volume.
    #[serde(default)]
    pub size: Option<Size>,
    #[serde(default)]
    pub service: ServiceTime,
    /// Where the volumes sit (the path model); without it, `service`.
    #[serde(default)]
    pub path: Option<io::DevicePath>,
}

/// A group of non-paging DASD volumes holding minidisks.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DasdGroup {
    pub device_type: String,
    #[serde(default = "one")]
    pub count: u32,
    pub first_address: String,
    pub volser_prefix: String,
    /// Size of an FBA or EDEV volume.
    #[serde(default)]
    pub size: Option<Size>,
    #[serde(default)]
    pub service: ServiceTime,
    /// Where the volumes sit (the path model); without it, `service`.
    #[serde(default)]
    pub path: Option<io::DevicePath>,
}

fn one() -> u32 {
    1
}

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
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimelineEntry {
    pub at: Duration,
    pub action: Action,
    /// A user ID, or a group's userid prefix with `*` for all of its members.
    pub guest: String,
    /// For `start`: the workload to run (default: the guest's own).
    #[serde(default)]
    pub workload: Option<Workload>,
}

impl Scenario {
    /// Parse TOML text; `origin` (file name) prefixes messages.
    pub fn from_toml(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
        let sc: Scenario = toml::from_str(text).map_err(|e| {
            let msg = e.to_string();
            let place = match e.span() {
                Some(span) => {
                    let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
                    format!("line {line}")
                }
                None => String::new(),
            };
            let reason = msg.lines().last().unwrap_or(&msg).trim().to_string();
            let reason = if reason.is_empty() {
                msg.clone()
            } else {
                reason
            };
            ScenarioError {
                origin: origin.into(),
                place,
                reason,
            }
        })?;
        sc.validate(origin)?;
        Ok(sc)
    }

    /// Parse JSON (as produced by the Python API); messages name the key path.
    pub fn from_json(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let sc: Scenario = serde_path_to_error::deserialize(de).map_err(|e| ScenarioError {
            origin: origin.into(),
            place: e.path().to_string(),
            reason: e.inner().to_string(),
        })?;
        sc.validate(origin)?;
        Ok(sc)
    }

    /// Semantic checks that the schema cannot express.
    pub fn validate(&self, origin: &str) -> Result<(), ScenarioError> {
        let err = |place: String, reason: String| {
            Err(ScenarioError {
                origin: origin.into(),
                place,
                reason,
            })
        };
        if !["5.2", "5.3", "5.4"].contains(&self.system.cp_level.as_str()) {
            return err(
                "system.cp_level".into(),
                format!(
                    "CP level '{}' is not modelled yet: \"5.2\", \"5.3\" or \"5.4\" (Era A: XSTOR, three-pass steal)",
                    self.system.cp_level
                ),
            );
        }
        if self.system.processors == 0 || self.system.processors > 64 {
            return err(
                "system.processors".into(),
                format!("{} processors: must be 1 to 64", self.system.processors),
            );
        }
        let cs = self.system.central_storage.0;
        if cs < (256 << 20) {
            return err(
                "system.central_storage".into(),
                "central storage must be at least 256M".into(),
            );
        }
        // The page-table entry holds a 29-bit frame number.
        if cs > crate::model::storage::MAX_FRAMES * crate::core::units::PAGE {
            return err(
                "system.central_storage".into(),
                "central storage above 2T is not supported".into(),
            );
        }
        if self.system.cp_fixed.0 >= cs / 2 {
            return err(
                "system.cp_fixed".into(),
                "CP fixed storage must be less than half of central storage".into(),
            );
        }
        if self.system.xstor.0 > (128u64 << 30) {
            return err(
                "system.xstor".into(),
                "XSTOR above 128G is not supported by z/VM".into(),
            );
        }
        if self.system.system_id.is_empty() || self.system.system_id.len() > 8 {
            return err(
                "system.system_id".into(),
                "must be 1 to 8 characters".into(),
            );
        }
        let sb = self.srm.storbuf;
        if !(sb[0] >= sb[1] && sb[1] >= sb[2]) || sb[0] > 999 {
            return err(
                "srm.storbuf".into(),
                format!("{sb:?}: values must be 0-999 with Q1 >= Q1+Q2 >= Q1+Q2+Q3"),
            );
        }
        if !(1..=255).contains(&self.srm.block_max) {
            return err("srm.block_max".into(), "must be 1 to 255 pages".into());
        }
        if !(0.0..0.5).contains(&self.srm.xstor_low) {
            return err(
                "srm.xstor_low".into(),
                "must be a fraction below 0.5".into(),
            );
        }
        let m = &self.monitor;
        if m.sample_interval.0 < SEC || m.sample_interval.0 > 3600 * SEC {
            return err("monitor.sample_interval".into(), "must be 1s to 1h".into());
        }
        if m.hf_rate.0 < 10 * MS || m.hf_rate.0 > m.sample_interval.0 {
            return err(
                "monitor.hf_rate".into(),
                "must be 10ms up to the sample interval".into(),
            );
        }
        if self.scenario.duration.0 < m.sample_interval.0 {
            return err(
                "scenario.duration".into(),
                "must be at least one sample interval".into(),
            );
        }
        if ztwin_monitor::tod::parse_iso8601(&self.scenario.start).is_none() {
            return err(
                "scenario.start".into(),
                format!("'{}' is not an ISO 8601 UTC time", self.scenario.start),
            );
        }
        for (name, c) in [
            ("page_fault_us", self.cp_costs.page_fault_us),
            ("xstor_move_us", self.cp_costs.xstor_move_us),
            ("first_touch_us", self.cp_costs.first_touch_us),
            ("page_io_us", self.cp_costs.page_io_us),
            ("io_us", self.cp_costs.io_us),
            ("dispatch_us", self.cp_costs.dispatch_us),
            ("steal_per_frame_us", self.cp_costs.steal_per_frame_us),
            ("virtual_io_us", self.cp_costs.virtual_io_us),
        ] {
            if !(c.is_finite() && (0.0..=100_000.0).contains(&c)) {
                return err(
                    format!("cp_costs.{name}"),
                    format!("{c}: must be 0 to 100000 microseconds"),
                );
            }
        }
        // Devices: addresses unique, types known.
        let mut addrs = HashSet::new();
        let mut volsers = HashSet::new();
        let groups = self
            .paging
            .iter()
            .enumerate()
            .map(|(i, g)| {
                (
                    format!("paging[{i}]"),
                    &g.device_type,
                    g.count,
                    &g.first_address,
                    &g.volser_prefix,
                    &g.service,
                    g.cylinders,
                    g.size,
                    g.path.as_ref(),
                )
            })
            .chain(self.dasd.iter().enumerate().map(|(i, g)| {
                (
                    format!("dasd[{i}]"),
                    &g.device_type,
                    g.count,
                    &g.first_address,
                    &g.volser_prefix,
                    &g.service,
                    None,
                    g.size,
                    g.path.as_ref(),
                )
            }));
        let mut refs = Vec::new();
        for (place, dtype, count, first, prefix, svc, cyls, size, path) in groups {
            let geo = io::geometry(dtype, size).map_err(|e| ScenarioError {
                origin: origin.into(),
                place: format!("{place}.device_type"),
                reason: e,
            })?;
            let full = geo.cylinders;
            if cyls.is_some() && geo.kind != io::DevKind::Eckd {
                return err(
                    format!("{place}.cylinders"),
                    format!("a {dtype} has no cylinders: its size is the paging extent"),
                );
            }
            if count == 0 || count > 1000 {
                return err(format!("{place}.count"), "must be 1 to 1000".into());
            }
            let base = parse_devno(first).map_err(|e| ScenarioError {
                origin: origin.into(),
                place: format!("{place}.first_address"),
                reason: e,
            })?;
            if base as u32 + count > 0x1_0000 {
                return err(
                    format!("{place}.count"),
                    "device numbers run past FFFF".into(),
                );
            }
            if let Some(c) = cyls {
                if c == 0 || c > full {
                    return err(
                        format!("{place}.cylinders"),
                        format!("{c} cylinders: a {dtype} has {full}"),
                    );
                }
            }
            for k in 0..count {
                let a = base + k as u16;
                if !addrs.insert(a) {
                    return err(
                        format!("{place}.first_address"),
                        format!("device {a:04X} is defined twice"),
                    );
                }
                let v = volser(prefix, k, count);
                if v.len() > 6 {
                    return err(
                        format!("{place}.volser_prefix"),
                        format!("volume serial '{v}' is longer than 6 characters"),
                    );
                }
                if !volsers.insert(v.clone()) {
                    return err(
                        format!("{place}.volser_prefix"),
                        format!("volume serial '{v}' is used twice"),
                    );
                }
            }
            for (n, v) in [
                ("pending_ms", svc.pending_ms),
                ("disconnect_ms", svc.disconnect_ms),
                ("connect_ms_per_io", svc.connect_ms_per_io),
                ("connect_ms_per_page", svc.connect_ms_per_page),
            ] {
                if !(v.is_finite() && (0.0..=10_000.0).contains(&v)) {
                    return err(
                        format!("{place}.service.{n}"),
                        format!("{v}: must be 0 to 10000 ms"),
                    );
                }
            }
            if svc.pending_ms + svc.disconnect_ms + svc.connect_ms_per_io + svc.connect_ms_per_page
                <= 0.0
            {
                return err(
                    format!("{place}.service"),
                    "service time must be positive".into(),
                );
            }
            if !(0.0..1.0).contains(&svc.jitter) {
                return err(
                    format!("{place}.service.jitter"),
                    "must be in [0, 1)".into(),
                );
            }
            refs.push(io::GroupRef {
                place,
                device_type: dtype,
                size,
                count,
                first: base,
                path,
            });
        }
        let sections = io::Sections {
            io: &self.io,
            chpids: &self.chpid,
            switches: &self.switch,
            servers: &self.storage_server,
            control_units: &self.control_unit,
        };
        io::validate(&sections, &refs, &addrs).map_err(|e| ScenarioError {
            origin: origin.into(),
            place: e.place,
            reason: e.reason,
        })?;
        // Guests.
        let mut users = HashSet::new();
        let mut total = 0u64;
        for (i, g) in self.guests.iter().enumerate() {
            let place = format!("guest[{i}] ({})", g.userid);
            if g.count == 0 || g.count > 100_000 {
                return err(format!("{place}.count"), "must be 1 to 100000".into());
            }
            for id in expand_userids(&g.userid, g.count) {
                if id.is_empty()
                    || id.len() > 8
                    || !id
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "$#@_-".contains(c))
                {
                    return err(
                        format!("{place}.userid"),
                        format!("'{id}' is not a valid user ID (1-8 characters A-Z 0-9 $#@)"),
                    );
                }
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
            if g.virtual_cpus == 0 || g.virtual_cpus > 64 {
                return err(format!("{place}.virtual_cpus"), "must be 1 to 64".into());
            }
            if g.share == 0 || g.share > 10_000 {
                return err(
                    format!("{place}.share"),
                    "relative share must be 1 to 10000".into(),
                );
            }
            if let Some(w) = &g.workload {
                self.check_workload(w, g, &format!("{place}.workload"), origin)?;
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
                    self.check_workload(
                        w,
                        &self.guests[*gi],
                        &format!("{place}.workload"),
                        origin,
                    )?;
                }
            }
        }
        Ok(())
    }

    fn check_workload(
        &self,
        w: &Workload,
        g: &GuestGroup,
        place: &str,
        origin: &str,
    ) -> Result<(), ScenarioError> {
        let err = |p: &str, reason: String| {
            Err(ScenarioError {
                origin: origin.into(),
                place: format!("{place}.{p}"),
                reason,
            })
        };
        match w {
            Workload::Idle => {}
            Workload::Thrasher {
                area,
                cpu_per_touch_us,
                hot_fraction,
                hot_share,
                warm_fraction,
                warm_share,
                cp_overhead,
                ..
            } => {
                if !(0.0..=10.0).contains(cp_overhead) {
                    return err("cp_overhead", "must be a fraction between 0 and 10".into());
                }
                if area.0 < 4096 || area.0 > g.virtual_storage.0 {
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
                let d = parse_devno(dev).map_err(|e| ScenarioError {
                    origin: origin.into(),
                    place: format!("{place}.device"),
                    reason: e,
                })?;
                let last = if spread {
                    d as u32 + g.count - 1
                } else {
                    d as u32
                };
                if last > 0xFFFF {
                    return err("device", format!("{device}: device numbers run past FFFF"));
                }
                for a in d as u32..=last {
                    if self.dasd_volume_index(a as u16).is_none() {
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

    /// Index among all DASD (non-paging) volumes of device number `d`.
    pub fn dasd_volume_index(&self, d: u16) -> Option<usize> {
        let mut idx = 0usize;
        for g in &self.dasd {
            let base = parse_devno(&g.first_address).ok()?;
            if d >= base && (d as u32) < base as u32 + g.count {
                return Some(idx + (d - base) as usize);
            }
            idx += g.count as usize;
        }
        None
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
}

/// A minidisk workload's device: the device number and whether group members
/// spread over consecutive volumes (a trailing `+`).
pub fn split_device(device: &str) -> (&str, bool) {
    match device.trim().strip_suffix('+') {
        Some(d) => (d, true),
        None => (device.trim(), false),
    }
}

/// User IDs of a guest group: the ID itself for one guest, else the ID followed
/// by 1..count, zero-padded to the width of count (LINUX01 .. LINUX30).
pub fn expand_userids(userid: &str, count: u32) -> Vec<String> {
    if count == 1 {
        return vec![userid.to_string()];
    }
    let w = count.to_string().len();
    (1..=count).map(|k| format!("{userid}{k:0w$}")).collect()
}

/// Volume serial for member `k` of a group of `count` volumes.
pub fn volser(prefix: &str, k: u32, count: u32) -> String {
    if count == 1 {
        return prefix.to_string();
    }
    let w = count.to_string().len().max(1);
    format!("{prefix}{:0w$}", k + 1)
}

/// Default time slice of the dispatcher.
pub const MINOR_SLICE: Ns = 5 * MS;

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
        assert_eq!(e.place, "line 4", "{e}");
        assert!(e.reason.contains("procesors"), "{e}");
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
        assert_eq!(e.place, "system.central_storage");
        assert!(e.reason.contains("above 2T"), "{e}");
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
