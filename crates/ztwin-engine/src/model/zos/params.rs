//! A z/OS partition scenario: `[scenario]`, `[flash]` (optional, the CEC's
//! Flash Express feature, `model/flash/params.rs`) and `[zos]` (this file).
//! Every default and its derivation is in docs/zos.md.

use serde::Deserialize;

use crate::core::units::{Duration, Size, PAGE, SEC};
use crate::core::{invalid, Invalid};
use crate::model::flash;
use crate::model::io;
use crate::model::io::params::ServiceTime;
use crate::scenario::{deserialize_toml, line_of, Meta, ScenarioError};

/// Pages in a 1 MB large page.
pub const LARGE: u32 = 256;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZosScenario {
    #[serde(default)]
    pub scenario: Meta,
    #[serde(default)]
    pub flash: Option<flash::params::Params>,
    /// The CEC (`model/lpar`'s `[lpar]`): this partition is its first
    /// partition (weight, capping of `[lpar]` itself), the z/VM partition and
    /// the rest are `[[lpar.partition]]` load profiles. Without it the
    /// partition's logical processors run at full speed.
    #[serde(default)]
    pub lpar: Option<crate::model::lpar::params::Params>,
    /// The I/O configuration the local page data sets sit behind when
    /// `zos.page_data_sets.control_units` names control units: model/io's
    /// `[io]`, `[[chpid]]`, `[[switch]]`, `[[storage_server]]` and
    /// `[[control_unit]]`, as a z/VM scenario writes them.
    #[serde(default)]
    pub io: Option<io::params::IoParams>,
    #[serde(default)]
    pub chpid: Vec<io::params::ChpidDef>,
    #[serde(default)]
    pub switch: Vec<io::params::SwitchDef>,
    #[serde(default)]
    pub storage_server: Vec<io::params::ServerDef>,
    #[serde(default)]
    pub control_unit: Vec<io::params::ControlUnitDef>,
    pub zos: Params,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// The partition's name (its SCM allocation is found by it).
    pub name: String,
    pub real_storage: Size,
    #[serde(default = "d_procs")]
    pub processors: u32,
    /// IEASYSxx PAGESCM: "ALL" (default), "NONE", or a size (at most the
    /// partition's allocation).
    #[serde(default = "d_pagescm")]
    pub pagescm: String,
    /// CPU per page a transaction references, µs.
    #[serde(default = "d_cpu_touch")]
    pub cpu_per_touch_us: f64,
    /// Terminals of the online work: each runs a transaction, thinks, runs the next.
    #[serde(default = "d_users")]
    pub users: u32,
    #[serde(default = "d_think")]
    pub think_time: Duration,
    #[serde(default = "d_touches")]
    pub touches_per_tx: u32,
    /// CPU per heap page a garbage collection sweeps, µs.
    #[serde(default = "d_gc_page")]
    pub gc_per_page_us: f64,
    /// Garbage collection helper threads per servant (each sweeps every
    /// n-th megabyte of the heap).
    #[serde(default = "d_gc_threads")]
    pub gc_threads: u32,
    #[serde(default)]
    pub rsm: Rsm,
    #[serde(default)]
    pub asm: Asm,
    pub page_data_sets: PageDataSets,
    #[serde(default)]
    pub batch: Batch,
    #[serde(default)]
    pub dump: Dump,
    #[serde(rename = "address_space")]
    pub address_spaces: Vec<AddressSpace>,
}

/// The real storage manager.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rsm {
    /// One unreferenced-interval-count update per interval.
    #[serde(default = "d_uic")]
    pub uic_interval: Duration,
    /// Steal when free frames fall below `avail_low`, up to `avail_ok`.
    #[serde(default = "d_low")]
    pub avail_low: Size,
    #[serde(default = "d_ok")]
    pub avail_ok: Size,
}

/// The auxiliary storage manager.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Asm {
    /// Time constant of the smoothed response per target.
    #[serde(default = "d_smooth")]
    pub smoothing: Duration,
    /// A page data set with this many I/Os queued or running is overloaded.
    #[serde(default = "d_overload")]
    pub overload_queue: u32,
    /// On a page-in from SCM, read the other pages written with it.
    #[serde(default = "d_true")]
    pub speculative_pagein: bool,
    /// Most 4 KB pages written in one group (one I/O to a page data set).
    #[serde(default = "d_group")]
    pub write_group: u32,
    /// The pageable link pack area, written to SCM and to page data sets at IPL.
    #[serde(default = "d_plpa")]
    pub plpa: Size,
}

/// The local page data sets: `count` alike, spread over logical control
/// units. Either behind the `[[control_unit]]`s named in `control_units`
/// (model/io's path model: channels, host adapters, cache, ranks), or, without
/// them, over `lcus` control units with a fixed service model (`pending_ms`,
/// `miss_ms`, `connect_ms_*`, `jitter`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageDataSets {
    pub count: u32,
    /// Control units without `control_units` (default 1); with them, their
    /// number (may be left out).
    #[serde(default)]
    pub lcus: Option<u32>,
    pub size: Size,
    /// The `[[control_unit]]`s the data sets sit behind: data set k (from 0)
    /// on `control_units[k * n / count]`.
    #[serde(default)]
    pub control_units: Vec<String>,
    /// Device type of a page data set's volume (with `control_units`).
    #[serde(default = "d_devtype")]
    pub device_type: String,
    /// Read cache hits, percent (default 97.5 without control units; with
    /// them, the storage server's `read_hit` unless given).
    #[serde(default)]
    pub cache_hit_pct: Option<f64>,
    /// The fixed service model (without `control_units` only).
    #[serde(default)]
    pub pending_ms: Option<f64>,
    /// Back-end (rank) time of a read miss.
    #[serde(default)]
    pub miss_ms: Option<f64>,
    #[serde(default)]
    pub connect_ms_per_io: Option<f64>,
    #[serde(default)]
    pub connect_ms_per_page: Option<f64>,
    #[serde(default)]
    pub jitter: Option<f64>,
}

/// The night's batch, run before the online work starts.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Batch {
    /// Storage the batch jobs reference (their own pages; VIO included).
    #[serde(default)]
    pub size: Size,
    /// Of which VIO data sets (temporary data paged like storage).
    #[serde(default)]
    pub vio: Size,
    /// How fast the batch references new storage.
    #[serde(default = "d_rate")]
    pub rate_mb_s: f64,
}

/// Dump capture.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dump {
    /// SVC dump: when (after the online work starts) and of which address space.
    #[serde(default)]
    pub svc_at: Option<Duration>,
    #[serde(default)]
    pub svc_target: String,
    /// Resident storage copied per second into the dump.
    #[serde(default = "d_capture")]
    pub capture_gb_s: f64,
    /// Page-ins a dump keeps in flight.
    #[serde(default = "d_dpar")]
    pub parallel_reads: u32,
    /// Stand-alone dump at the end of the run: its size (0: none).
    #[serde(default)]
    pub sa_size: Size,
    /// Rate SADMP writes to its output data set.
    #[serde(default = "d_out")]
    pub sa_output_mb_s: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Common storage (CSA/SQA): captured with the system non-dispatchable.
    Common,
    WasControl,
    WasServant,
    Cics,
    Db2,
}

impl Kind {
    /// The scenario's name of the kind.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Common => "common",
            Kind::WasControl => "was_control",
            Kind::WasServant => "was_servant",
            Kind::Cics => "cics",
            Kind::Db2 => "db2",
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AddressSpace {
    pub name: String,
    pub kind: Kind,
    /// Virtual storage in use.
    pub size: Size,
    /// How many alike (WAS servants: SR1, SR2, ...).
    #[serde(default = "d_one")]
    pub count: u32,
    /// The part the online work references (from the start): default all.
    #[serde(default)]
    pub hot: Option<Size>,
    /// The part backed by pageable 1 MB large pages (a Java heap with -Xlp).
    #[serde(default)]
    pub large: Size,
    /// Share of a transaction's references going to this address space
    /// (spread over `count`).
    #[serde(default)]
    pub touch_weight: f64,
    /// Garbage collection: every this long the heap (`large`, or the whole
    /// space) is swept, the servant's transactions waiting.
    #[serde(default)]
    pub gc_interval: Option<Duration>,
}

fn d_procs() -> u32 {
    4
}
fn d_pagescm() -> String {
    "ALL".into()
}
fn d_cpu_touch() -> f64 {
    20.0
}
fn d_users() -> u32 {
    50
}
fn d_think() -> Duration {
    Duration(SEC)
}
fn d_touches() -> u32 {
    40
}
fn d_gc_threads() -> u32 {
    4
}
fn d_gc_page() -> f64 {
    0.5
}
fn d_uic() -> Duration {
    Duration(SEC)
}
fn d_low() -> Size {
    Size(64 << 20)
}
fn d_ok() -> Size {
    Size(80 << 20)
}
fn d_smooth() -> Duration {
    Duration(SEC)
}
fn d_overload() -> u32 {
    3
}
fn d_true() -> bool {
    true
}
fn d_group() -> u32 {
    64
}
fn d_plpa() -> Size {
    Size(128 << 20)
}
fn d_one() -> u32 {
    1
}
fn d_devtype() -> String {
    "3390-54".into()
}
fn d_hit() -> f64 {
    97.5
}
fn d_pend() -> f64 {
    0.1
}
fn d_miss() -> f64 {
    5.0
}
fn d_conn_io() -> f64 {
    0.1
}
fn d_conn_page() -> f64 {
    0.02
}
fn d_jitter() -> f64 {
    0.1
}
fn d_rate() -> f64 {
    1000.0
}
fn d_capture() -> f64 {
    4.0
}
fn d_dpar() -> u32 {
    32
}
fn d_out() -> f64 {
    400.0
}

impl Default for Rsm {
    fn default() -> Self {
        Rsm {
            uic_interval: d_uic(),
            avail_low: d_low(),
            avail_ok: d_ok(),
        }
    }
}
impl Default for Asm {
    fn default() -> Self {
        Asm {
            smoothing: d_smooth(),
            overload_queue: d_overload(),
            speculative_pagein: true,
            write_group: d_group(),
            plpa: d_plpa(),
        }
    }
}
impl Default for Batch {
    fn default() -> Self {
        Batch {
            size: Size(0),
            vio: Size(0),
            rate_mb_s: d_rate(),
        }
    }
}
impl Default for Dump {
    fn default() -> Self {
        Dump {
            svc_at: None,
            svc_target: String::new(),
            capture_gb_s: d_capture(),
            parallel_reads: d_dpar(),
            sa_size: Size(0),
            sa_output_mb_s: d_out(),
        }
    }
}

impl PageDataSets {
    /// Behind `[[control_unit]]`s (the path model)?
    pub fn on_paths(&self) -> bool {
        !self.control_units.is_empty()
    }
    /// Logical control units the data sets are spread over.
    pub fn lcu_count(&self) -> u32 {
        if self.on_paths() {
            self.control_units.len() as u32
        } else {
            self.lcus.unwrap_or(1)
        }
    }
    /// The logical control unit (0-based) of data set `k`.
    pub fn lcu_of(&self, k: u32) -> u32 {
        k * self.lcu_count() / self.count
    }
    pub fn hit_pct(&self) -> f64 {
        self.cache_hit_pct.unwrap_or_else(d_hit)
    }

    /// The fixed I/O service model of one page data set (topic 8): a read
    /// miss adds the back end's time in proportion to the miss ratio.
    pub fn service(&self, read: bool) -> ServiceTime {
        ServiceTime {
            pending_ms: self.pending_ms.unwrap_or_else(d_pend),
            disconnect_ms: if read {
                (1.0 - self.hit_pct() / 100.0) * self.miss_ms.unwrap_or_else(d_miss)
            } else {
                0.0
            },
            connect_ms_per_io: self.connect_ms_per_io.unwrap_or_else(d_conn_io),
            connect_ms_per_page: self.connect_ms_per_page.unwrap_or_else(d_conn_page),
            jitter: self.jitter.unwrap_or_else(d_jitter),
        }
    }
}

/// Device number of page data set `k` of `d` (synthetic: X'9000' + 256 x
/// its LCU + its position in the LCU).
pub fn ds_devno(d: &PageDataSets, k: u32) -> u16 {
    let lcu = d.lcu_of(k);
    let nth = (0..k).filter(|&j| d.lcu_of(j) == lcu).count() as u32;
    (0x9000 + 0x100 * lcu + nth) as u16
}

/// PAGESCM as the partition applies it: bytes of SCM ASM may use.
pub fn pagescm_bytes(p: &Params, allocated: u64) -> Result<u64, Invalid> {
    let v = p.pagescm.trim();
    if v.eq_ignore_ascii_case("ALL") {
        return Ok(allocated);
    }
    if v.eq_ignore_ascii_case("NONE") {
        return Ok(0);
    }
    let b = crate::core::units::parse_size(v).map_err(|e| Invalid::new("zos.pagescm", e))?;
    if b > allocated {
        return invalid(
            "zos.pagescm".into(),
            format!(
                "{v}: larger than the partition's storage-class memory allocation ({}G)",
                allocated >> 30
            ),
        );
    }
    Ok(b)
}

fn pos(place: &str, v: f64, lo: f64, hi: f64) -> Result<(), Invalid> {
    if !(v.is_finite() && v >= lo && v <= hi) {
        return invalid(place.into(), format!("{v}: must be {lo} to {hi}"));
    }
    Ok(())
}

impl ZosScenario {
    /// Parse and check a z/OS partition scenario; messages name the file,
    /// the line and the key.
    pub fn from_toml(text: &str, origin: &str) -> Result<ZosScenario, ScenarioError> {
        let sc: ZosScenario = deserialize_toml(text, origin)?;
        sc.validate().map_err(|e| ScenarioError {
            origin: origin.into(),
            line: line_of(text, &e.place),
            place: e.place,
            reason: e.reason,
        })?;
        Ok(sc)
    }

    /// The SCM this partition may page to (allocation limited by PAGESCM).
    pub fn scm_bytes(&self) -> Result<u64, Invalid> {
        let alloc = self
            .flash
            .as_ref()
            .and_then(|f| f.allocation(&self.zos.name))
            .map_or(0, |(init, _)| init);
        pagescm_bytes(&self.zos, alloc)
    }

    /// This partition as the CEC sees it: its name, CPs, `processors`
    /// logical processors.
    pub fn cec_partition(&self) -> crate::model::lpar::params::ZvmPart {
        crate::model::lpar::params::ZvmPart {
            name: self.zos.name.clone(),
            ptype: crate::model::lpar::params::PType::CP,
            logical: self.zos.processors as u16,
        }
    }

    /// The I/O configuration of the page data sets' paths (model/io's
    /// sections), for [`crate::model::io::Io::new`].
    pub fn io_config(&self) -> io::IoConfig {
        io::IoConfig {
            params: self.io.clone().unwrap_or_default(),
            chpids: self.chpid.clone(),
            switches: self.switch.clone(),
            servers: self.storage_server.clone(),
            control_units: self.control_unit.clone(),
            // z/OS: every CP-level-dependent setting at its newest (only
            // `write_same` follows it, and page data sets never use it).
            cp_level: (7, 4),
        }
    }

    /// Page data set `k`'s volume behind its control unit.
    fn ds_path(&self, k: u32) -> io::DevicePath {
        let d = &self.zos.page_data_sets;
        io::DevicePath {
            control_unit: Some(d.control_units[d.lcu_of(k) as usize].clone()),
            read_hit: d.cache_hit_pct.map(|h| h / 100.0),
            ..Default::default()
        }
    }

    /// The page data sets' volumes (with `control_units`), data set k is
    /// volume k.
    pub fn ds_volumes(&self) -> Vec<io::VolumeDef> {
        let d = &self.zos.page_data_sets;
        let geo = io::params::geometry(&d.device_type, None).expect("validated device type");
        (0..d.count)
            .map(|k| io::VolumeDef {
                devno: ds_devno(d, k),
                volser: format!("PAGE{:02}", k + 1),
                device_type: d.device_type.clone(),
                cylinders: geo.cylinders,
                paging: true,
                service: ServiceTime::default(),
                kind: geo.kind,
                blocks: geo.blocks,
                path: Some(self.ds_path(k)),
                aliases: Vec::new(),
            })
            .collect()
    }

    /// The data sets behind control units: each named one defined, the I/O
    /// sections consistent (model/io's checks), the data sets fitting their
    /// volumes.
    fn validate_paths(&self) -> Result<(), Invalid> {
        let d = &self.zos.page_data_sets;
        let n = d.control_units.len() as u32;
        if n > d.count {
            return invalid(
                "zos.page_data_sets.control_units".into(),
                format!("{n} control units for {} page data sets", d.count),
            );
        }
        if let Some(l) = d.lcus {
            if l != n {
                return invalid(
                    "zos.page_data_sets.lcus".into(),
                    format!("{l}, but control_units names {n} control units"),
                );
            }
        }
        for (k, v) in [
            ("pending_ms", d.pending_ms),
            ("miss_ms", d.miss_ms),
            ("connect_ms_per_io", d.connect_ms_per_io),
            ("connect_ms_per_page", d.connect_ms_per_page),
            ("jitter", d.jitter),
        ] {
            if v.is_some() {
                return invalid(
                    format!("zos.page_data_sets.{k}"),
                    "the fixed service model does not apply to data sets behind control units (their times come from the channels, host adapters, cache and ranks)".into(),
                );
            }
        }
        let mut seen = std::collections::HashSet::new();
        for (i, c) in d.control_units.iter().enumerate() {
            let place = format!("zos.page_data_sets.control_units[{i}]");
            if !self.control_unit.iter().any(|u| &u.name == c) {
                return invalid(place, format!("'{c}' is not a [[control_unit]]"));
            }
            if !seen.insert(c.as_str()) {
                return invalid(place, format!("'{c}' is named twice"));
            }
        }
        let geo = io::params::geometry(&d.device_type, None).map_err(|e| {
            Invalid::new(
                "zos.page_data_sets.device_type",
                format!("{e} (a page data set's volume is a 3390)"),
            )
        })?;
        if geo.kind != io::DevKind::Eckd {
            return invalid(
                "zos.page_data_sets.device_type".into(),
                "a page data set's volume is a 3390".into(),
            );
        }
        if d.size.0 / PAGE > geo.blocks {
            return invalid(
                "zos.page_data_sets.size".into(),
                format!("does not fit a {} ({} slots)", d.device_type, geo.blocks),
            );
        }
        // model/io's checks of the sections and of the data sets' paths
        // (one group per control unit).
        let paths: Vec<io::DevicePath> = (0..d.count).map(|k| self.ds_path(k)).collect();
        let devnos: Vec<u16> = (0..d.count).map(|k| ds_devno(d, k)).collect();
        let groups: Vec<io::params::GroupRef> = (0..d.count)
            .map(|k| io::params::GroupRef {
                place: format!("zos.page_data_sets.control_units[{}]", d.lcu_of(k)),
                device_type: &d.device_type,
                size: None,
                count: 1,
                first: devnos[k as usize],
                path: Some(&paths[k as usize]),
            })
            .collect();
        let io_params = self.io.clone().unwrap_or_default();
        let sections = io::params::Sections {
            io: &io_params,
            chpids: &self.chpid,
            switches: &self.switch,
            servers: &self.storage_server,
            control_units: &self.control_unit,
        };
        let taken = devnos.iter().copied().collect();
        io::params::validate_paths(&sections, &groups, &taken).map_err(|mut e| {
            // A place inside a data set's path is the control unit's entry.
            if let Some(i) = e.place.find(".path") {
                e.place.truncate(i);
            }
            e
        })
    }

    pub fn validate(&self) -> Result<(), Invalid> {
        if let Some(f) = &self.flash {
            f.validate()?;
        }
        let z = &self.zos;
        if let Some(l) = &self.lpar {
            // The CEC names the twin's partition's keys as `[system]`'s.
            l.validate(&self.cec_partition()).map_err(|mut e| {
                if let Some(rest) = e.place.strip_prefix("system.") {
                    e.place = format!("zos.{rest}");
                }
                e
            })?;
        }
        if z.name.is_empty() || z.name.len() > 8 {
            return invalid(
                "zos.name".into(),
                format!("'{}': a partition name is 1 to 8 characters", z.name),
            );
        }
        self.scm_bytes()?;
        if z.real_storage.0 < (1 << 30) || z.real_storage.0 % PAGE != 0 {
            return invalid(
                "zos.real_storage".into(),
                "must be at least 1G, in whole 4K frames".into(),
            );
        }
        pos("zos.processors", z.processors as f64, 1.0, 64.0)?;
        pos("zos.cpu_per_touch_us", z.cpu_per_touch_us, 0.0, 10_000.0)?;
        pos("zos.users", z.users as f64, 0.0, 10_000.0)?;
        pos("zos.gc_per_page_us", z.gc_per_page_us, 0.0, 1000.0)?;
        pos("zos.gc_threads", z.gc_threads as f64, 1.0, 64.0)?;
        pos(
            "zos.touches_per_tx",
            z.touches_per_tx as f64,
            1.0,
            100_000.0,
        )?;
        if z.rsm.uic_interval.0 < SEC / 100 {
            return invalid(
                "zos.rsm.uic_interval".into(),
                "must be at least 10ms".into(),
            );
        }
        if z.rsm.avail_ok.0 <= z.rsm.avail_low.0 || z.rsm.avail_ok.0 * 4 > z.real_storage.0 {
            return invalid(
                "zos.rsm.avail_ok".into(),
                "must be above avail_low and at most a quarter of real storage".into(),
            );
        }
        pos(
            "zos.asm.overload_queue",
            z.asm.overload_queue as f64,
            1.0,
            64.0,
        )?;
        pos("zos.asm.write_group", z.asm.write_group as f64, 1.0, 256.0)?;
        if z.asm.smoothing.0 == 0 {
            return invalid("zos.asm.smoothing".into(), "must be above 0".into());
        }
        let d = &z.page_data_sets;
        pos("zos.page_data_sets.count", d.count as f64, 1.0, 256.0)?;
        if let Some(h) = d.cache_hit_pct {
            pos("zos.page_data_sets.cache_hit_pct", h, 0.0, 100.0)?;
        }
        if d.size.0 < (16 << 20) {
            return invalid(
                "zos.page_data_sets.size".into(),
                "must be at least 16M".into(),
            );
        }
        if d.on_paths() {
            self.validate_paths()?;
        } else {
            if let Some(l) = d.lcus {
                pos("zos.page_data_sets.lcus", l as f64, 1.0, d.count as f64)?;
            }
            for (k, v, hi) in [
                ("pending_ms", d.pending_ms, 100.0),
                ("miss_ms", d.miss_ms, 100.0),
                ("connect_ms_per_io", d.connect_ms_per_io, 100.0),
                ("connect_ms_per_page", d.connect_ms_per_page, 100.0),
                ("jitter", d.jitter, 0.9),
            ] {
                if let Some(v) = v {
                    pos(&format!("zos.page_data_sets.{k}"), v, 0.0, hi)?;
                }
            }
            // I/O sections with no data set behind them would do nothing.
            let unused = [
                ("io", self.io.is_some()),
                ("chpid", !self.chpid.is_empty()),
                ("switch", !self.switch.is_empty()),
                ("storage_server", !self.storage_server.is_empty()),
                ("control_unit", !self.control_unit.is_empty()),
            ];
            if let Some((k, _)) = unused.iter().find(|(_, given)| *given) {
                return invalid(
                    (*k).into(),
                    "no page data set is behind a control unit: name them in zos.page_data_sets.control_units".into(),
                );
            }
        }
        if z.asm.plpa.0 > d.size.0 {
            return invalid(
                "zos.asm.plpa".into(),
                "larger than one page data set".into(),
            );
        }
        if z.batch.vio.0 > z.batch.size.0 {
            return invalid(
                "zos.batch.vio".into(),
                "larger than the batch's storage (zos.batch.size)".into(),
            );
        }
        pos("zos.batch.rate_mb_s", z.batch.rate_mb_s, 1.0, 1e6)?;
        pos("zos.dump.capture_gb_s", z.dump.capture_gb_s, 0.01, 1e4)?;
        pos(
            "zos.dump.parallel_reads",
            z.dump.parallel_reads as f64,
            1.0,
            1024.0,
        )?;
        pos("zos.dump.sa_output_mb_s", z.dump.sa_output_mb_s, 1.0, 1e6)?;
        if z.address_spaces.is_empty() {
            return invalid(
                "zos.address_space".into(),
                "a z/OS partition needs address spaces".into(),
            );
        }
        let mut virt = z.batch.size.0;
        for (i, a) in z.address_spaces.iter().enumerate() {
            let at = |k: &str| format!("zos.address_space[{i}].{k}");
            if a.name.is_empty() || a.name.len() > 8 {
                return invalid(
                    at("name"),
                    format!("'{}': a job name is 1 to 8 characters", a.name),
                );
            }
            if a.size.0 < (1 << 20) || a.size.0 % (1 << 20) != 0 {
                return invalid(
                    at("size"),
                    "must be a whole number of megabytes, at least 1M".into(),
                );
            }
            if a.large.0 % (1 << 20) != 0 || a.large.0 > a.size.0 {
                return invalid(
                    at("large"),
                    "must be whole megabytes within the address space's size".into(),
                );
            }
            if let Some(h) = a.hot {
                if h.0 > a.size.0 || h.0 < PAGE {
                    return invalid(at("hot"), "must be within the address space's size".into());
                }
            }
            pos(&at("count"), a.count as f64, 1.0, 64.0)?;
            pos(&at("touch_weight"), a.touch_weight, 0.0, 1e6)?;
            if a.gc_interval.is_some_and(|g| g.0 < SEC / 10) {
                return invalid(at("gc_interval"), "must be at least 100ms".into());
            }
            virt += a.size.0 * a.count as u64;
        }
        if z.address_spaces.iter().all(|a| a.touch_weight == 0.0) && z.users > 0 {
            return invalid(
                "zos.address_space".into(),
                "no address space has a touch_weight: transactions reference nothing".into(),
            );
        }
        if !z.dump.svc_target.is_empty()
            && !z
                .address_spaces
                .iter()
                .any(|a| a.name.eq_ignore_ascii_case(&z.dump.svc_target))
        {
            return invalid(
                "zos.dump.svc_target".into(),
                format!("no address space {}", z.dump.svc_target),
            );
        }
        if z.dump.svc_at.is_some() && z.dump.svc_target.is_empty() {
            return invalid(
                "zos.dump.svc_target".into(),
                "an SVC dump needs its address space".into(),
            );
        }
        let aux = d.size.0 * d.count as u64 + self.scm_bytes()?;
        if virt > z.real_storage.0 + aux {
            return invalid(
                "zos.page_data_sets.size".into(),
                format!(
                    "virtual storage {}G does not fit real storage and auxiliary storage ({}G)",
                    virt >> 30,
                    (z.real_storage.0 + aux) >> 30
                ),
            );
        }
        if virt > (u32::MAX as u64 - 1) * PAGE {
            return invalid(
                "zos.address_space".into(),
                "more than 16T of virtual storage".into(),
            );
        }
        Ok(())
    }
}
