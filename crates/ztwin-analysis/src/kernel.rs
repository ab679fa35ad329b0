//! The interval kernel: one streaming pass over the records, aggregated per
//! sample interval (the rules of `docs/reports.md`, "How figures are computed").
//!
//! Records are buffered one *sample set* at a time (the records between two
//! `MRMTREND` markers, or, without markers, records less than half a second
//! apart); when a set closes every keyed counter is differenced against the
//! same key's sample in the previous set and the interval's sums are added.
//! Only that set and one previous sample per key are held.

use crate::delta::{
    delta_f64, delta_seconds, div_int, given, to_f64, Fx, Hint, Map, Sample, Tracker, IMPLAUSIBLE,
    NO_HINT, TOD_PER_S,
};
use crate::fields::{bits_int, num, raw_bytes, text, text_bytes, Resolver};
use crate::schema::{
    self, add, add_deltas, add_level, add_row, cpu, device, exposure, lpar, merge, merge_sums,
    system, user,
};
use std::collections::HashSet;
use std::hash::BuildHasherDefault;
use ztwin_monitor::layout::{group_entries, RecordLayout};
use ztwin_monitor::{RecordRef, SetKind};

/// Microseconds from 1900-01-01 (the TOD epoch) to 1970-01-01.
pub const EPOCH_1900_US: i64 = 2_208_988_800_000_000;
/// Configuration records kept for the caller (beyond this they are counted only).
pub const MAX_CONFIG_RECORDS: usize = 200_000;

/// Which keys get per-interval rows (window totals are always kept).
#[derive(Clone, Debug, Default)]
pub enum Select<T> {
    #[default]
    None,
    All,
    Some(HashSet<T>),
}

impl<T: std::hash::Hash + Eq> Select<T> {
    pub fn wants(&self, k: &T) -> bool {
        match self {
            Select::None => false,
            Select::All => true,
            Select::Some(s) => s.contains(k),
        }
    }
}

/// One end of the window: a time of day (seconds after midnight, on the date
/// of the first interval's start) or a local date and time (seconds since
/// 1900-01-01 00:00, local time of the monitored system).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeSpec {
    OfDay(i64),
    At(i64),
}

impl TimeSpec {
    fn resolve(self, day_start_s: i64) -> i64 {
        match self {
            TimeSpec::OfDay(s) => day_start_s + s,
            TimeSpec::At(s) => s,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Options {
    pub from: Option<TimeSpec>,
    pub to: Option<TimeSpec>,
    pub users: Select<String>,
    pub devices: Select<i64>,
    pub exposures: Select<i64>,
    /// Byte ranges `[start, end)` of the segments (collections joined in one
    /// file, `ztwin_monitor::segment`) to read, in file order; `None` reads
    /// every record. Records outside them are skipped; at the start of each
    /// range after the first, every key starts a new baseline and no interval
    /// spans the boundary (a new collection's counters do not continue the
    /// previous one's).
    pub ranges: Option<Vec<(u64, u64)>>,
    /// Records (IBM names, e.g. `MRUSEINT`) read as if the file did not have
    /// them: their samples neither add to the sums nor configure anything.
    /// Shows which records a figure depends on (the reports' field notes
    /// are checked this way); empty reads every record.
    pub ignore: Vec<String>,
}

/// A logical CPU: (partition name, CPU address).
pub type LparKey = (String, Option<i64>);

/// A per-interval row of a keyed table.
#[derive(Clone, Debug)]
pub struct Row<K, const N: usize> {
    pub interval: u64,
    pub key: K,
    pub v: [f64; N],
    /// Per-sample flags of the key's samples in the interval
    /// ([`crate::delta::WRAPPED`], [`crate::delta::GLITCH`]).
    pub flags: u8,
}

/// One interval: its place and times, and the system sums.
#[derive(Clone, Debug)]
pub struct SysRow {
    pub index: u64,
    pub start_tod: u64,
    pub end_tod: u64,
    /// Local time (UTC plus the system's zone), microseconds since 1970.
    pub start_us: i64,
    pub end_us: i64,
    pub seconds: f64,
    pub v: [f64; system::N],
    /// Every flag of the interval's samples, and [`crate::delta::RESET`] /
    /// [`crate::delta::BASELINE`] when a key's sample only set a baseline.
    pub flags: u8,
}

/// Per-interval rows produced since the last [`Kernel::take`].
#[derive(Default, Debug)]
pub struct Batch {
    pub system: Vec<SysRow>,
    pub cpu: Vec<Row<Option<i64>, { cpu::N }>>,
    pub lpar: Vec<Row<(String, Option<i64>), { lpar::N }>>,
    /// Keyed by user id ([`UserIds`]).
    pub user: Vec<Row<u32, { user::N }>>,
    pub device: Vec<Row<i64, { device::N }>>,
    pub exposure: Vec<Row<i64, { exposure::N }>>,
}

impl Batch {
    pub fn is_empty(&self) -> bool {
        self.system.is_empty()
    }
}

/// Window totals per key, in the order the keys first gave data.
#[derive(Debug)]
pub struct Totals {
    pub system: [f64; system::N],
    pub cpu: Keyed<Option<i64>, { cpu::N }>,
    pub lpar: Keyed<(String, Option<i64>), { lpar::N }>,
    pub user: Keyed<u32, { user::N }>,
    pub device: Keyed<i64, { device::N }>,
    pub exposure: Keyed<i64, { exposure::N }>,
}

/// Sums per key in first-seen order.
#[derive(Debug)]
pub struct Keyed<K, const N: usize> {
    pub index: Map<K, usize>,
    pub rows: Vec<(K, [f64; N])>,
}

impl<K, const N: usize> Default for Keyed<K, N> {
    fn default() -> Self {
        Keyed {
            index: Map::default(),
            rows: Vec::new(),
        }
    }
}

impl<K: std::hash::Hash + Eq + Clone, const N: usize> Keyed<K, N> {
    /// Merge `v` into `key`'s sums; `sums`: every column of `cols` merges
    /// by sum (the schema's `SUMS`).
    fn merge(&mut self, cols: &[schema::Col], sums: bool, key: &K, v: &[f64; N]) {
        match self.index.get(key) {
            Some(&i) if sums => merge_sums(&mut self.rows[i].1, v),
            Some(&i) => merge(cols, &mut self.rows[i].1, v),
            None => {
                self.index.insert(key.clone(), self.rows.len());
                let mut r = [f64::NAN; N];
                merge(cols, &mut r, v);
                self.rows.push((key.clone(), r));
            }
        }
    }

    /// [`Keyed::merge`] with the row `hint` names when it is `key`'s (a
    /// comparison instead of a hash lookup); else as `merge`, and `hint`
    /// set to `key`'s row.
    #[inline]
    fn merge_at(
        &mut self,
        hint: &mut Hint,
        cols: &[schema::Col],
        sums: bool,
        key: &K,
        v: &[f64; N],
    ) {
        let h = *hint as usize;
        if h < self.rows.len() && self.rows[h].0 == *key {
            if sums {
                merge_sums(&mut self.rows[h].1, v);
            } else {
                merge(cols, &mut self.rows[h].1, v);
            }
            return;
        }
        self.merge(cols, sums, key, v);
        *hint = self.index[key] as Hint;
    }
}

/// Last-seen description of a device (from MRIODDEV).
#[derive(Clone, Debug, Default)]
pub struct DeviceInfo {
    pub volser: Option<String>,
    pub type_code: Option<i64>,
    pub dev_class: Option<i64>,
    pub flags: Option<String>,
    pub base: Option<i64>,
    /// The volser bytes (`None`: no such field) the text is decoded from
    /// ([`Info::resolve`]), and whether they changed since.
    raw_volser: Option<Vec<u8>>,
    dirty: bool,
}

/// Last-seen description of a paging exposure (from MRSTOASP).
#[derive(Clone, Debug, Default)]
pub struct ExposureInfo {
    pub volser: Option<String>,
    pub flags: Option<i64>,
    pub page_slots: Option<i64>,
    pub spool_slots: Option<i64>,
    /// The volser bytes (`None`: no field) the text is decoded from
    /// ([`Info::resolve`]), and whether they changed since.
    raw: Option<Vec<u8>>,
    dirty: bool,
}

/// Last-seen description of a partition (MRSYTCUP) and its logical CPUs.
#[derive(Clone, Debug, Default)]
pub struct LparInfo {
    pub number: Option<i64>,
    pub logical_cpus: Option<i64>,
    /// Not in MRSYTCUP's fixed part (weights are per logical CPU): `None`.
    pub weight: Option<i64>,
    /// The meaning of SYTCUP_CALFLGS' bits was not seen: `None`.
    pub dedicated: Option<bool>,
    /// The partition's processor type, text (SYTCUP_LCPTYPE).
    pub cpu_type: Option<String>,
    /// Per logical CPU address: (weight, cpu type as text), in first-seen order.
    pub lcpus: Vec<(Option<i64>, Option<i64>, Option<String>)>,
}

/// The global LPAR description (last MRSYTCUG).
#[derive(Clone, Debug, Default)]
pub struct CugInfo {
    pub partitions: Option<i64>,
    pub physical_cpus: Option<i64>,
    pub time_slice_ms: Option<i64>,
    /// The first LPAR name seen.
    pub lpar_name: Option<String>,
}

/// A record kept for the caller: configuration (domain 1) and the latest
/// logon/configuration record and logoff time per user.
#[derive(Clone, Debug)]
pub struct KeptRecord {
    pub offset: u64,
    pub kind: SetKind,
    pub bytes: Vec<u8>,
}

/// What the kernel learnt besides the sums.
#[derive(Debug, Default)]
pub struct Info {
    /// Domain 1 configuration records in file order (not MRMTRUSR).
    pub config: Vec<KeptRecord>,
    pub config_dropped: u64,
    /// Per user in first-seen order: the latest MRMTRUSR or MRUSELON record
    /// and the TOD of a logoff after it.
    pub users: Vec<(String, KeptRecord, Option<u64>)>,
    users_ix: Map<String, usize>,
    pub devices: Vec<(i64, DeviceInfo)>,
    devices_ix: Map<i64, usize>,
    pub exposures: Vec<(i64, ExposureInfo)>,
    exposures_ix: Map<i64, usize>,
    pub lpars: Vec<(String, LparInfo)>,
    lpars_ix: Map<String, usize>,
    pub cug: Option<CugInfo>,
    /// Processor type per CPU address (first seen in the window).
    pub cpu_types: Vec<(Option<i64>, i64)>,
    /// Local times (µs since 1970) of the first and last sample sets with data.
    pub data_start_us: Option<i64>,
    pub data_end_us: Option<i64>,
    pub sets: u64,
    pub stopped_early: bool,
    /// `--from` did not resolve before `--to`.
    pub window_error: bool,
    pub intervals: u64,
    /// Samples left out because their figures cannot be (the first
    /// [`MAX_IMPLAUSIBLE_KEPT`]), and how many there were in all.
    pub implausible: Vec<Implausible>,
    pub implausible_count: u64,
}

impl Info {
    /// Decode the device and exposure texts whose bytes changed since the
    /// last call (the kernel keeps only their bytes while it reads). Called
    /// by [`Kernel::finish`]; call it before reading `devices` or
    /// `exposures` in the middle of a file.
    pub fn resolve(&mut self) {
        for (_, d) in &mut self.devices {
            if !d.dirty {
                continue;
            }
            d.dirty = false;
            d.volser = d.raw_volser.as_deref().and_then(ebcdic_text);
        }
        for (_, e) in &mut self.exposures {
            if !e.dirty {
                continue;
            }
            e.dirty = false;
            e.volser = e.raw.as_deref().and_then(ebcdic_text);
        }
    }
}

/// EBCDIC text without surrounding blanks, `None` when blank (`fields::text`).
fn ebcdic_text(b: &[u8]) -> Option<String> {
    let t = ztwin_monitor::ebcdic::decode(b);
    let t = t.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// Store `new` in `old` when it differs; true when it did.
fn changed(old: &mut Option<Vec<u8>>, new: Option<&[u8]>) -> bool {
    if old.as_deref() == new {
        return false;
    }
    match (old.as_mut(), new) {
        (Some(o), Some(n)) => {
            o.clear();
            o.extend_from_slice(n);
        }
        (_, n) => *old = n.map(<[u8]>::to_vec),
    }
    true
}

/// Implausible samples kept in full; later ones are only counted.
pub const MAX_IMPLAUSIBLE_KEPT: usize = 1000;

/// A sample left out of every sum: a counter rose by more than it can in the
/// interval, or a derived figure cannot be (a device busy beyond 100%, a
/// service time beyond [`MAX_SERVICE_S`], a user's processor time beyond
/// what the processors give). Bits flipped in a record's data do this; no
/// structural check sees them.
#[derive(Clone, Debug, PartialEq)]
pub struct Implausible {
    /// Byte offset of the record in the file.
    pub offset: u64,
    /// IBM record name.
    pub record: &'static str,
    /// The key in words ("device 0A00", "user LINUX01", "CPU 1").
    pub key: String,
    /// What cannot be, with the figure.
    pub reason: String,
}

/// Service time per I/O above which a device sample is implausible: CP's
/// missing-interrupt handler acts on DASD I/O after far less.
pub const MAX_SERVICE_S: f64 = 30.0;

fn slot<K: std::hash::Hash + Eq + Clone, V: Default>(
    v: &mut Vec<(K, V)>,
    ix: &mut Map<K, usize>,
    k: &K,
) -> usize {
    if let Some(&i) = ix.get(k) {
        return i;
    }
    ix.insert(k.clone(), v.len());
    v.push((k.clone(), V::default()));
    v.len() - 1
}

// ------------------------------------------------------------ record families

/// What a record is to the kernel.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Code {
    Cpu(u8),
    Global(u8),
    Cup,
    Cug,
    Act,
    Hf,
    Dev,
    Asp,
    /// A sample record the kernel does not read (it still makes the set non-empty).
    Other,
    /// A configuration record (domain 1) kept for the caller.
    Config,
}

impl Code {
    /// The code's bucket in a [`Set`] (one per code).
    #[inline]
    fn slot(self) -> usize {
        match self {
            Code::Cpu(i) => i as usize,
            Code::Global(i) => CPU_FAMILIES + i as usize,
            Code::Cup => CODE_FIXED,
            Code::Cug => CODE_FIXED + 1,
            Code::Act => CODE_FIXED + 2,
            Code::Hf => CODE_FIXED + 3,
            Code::Dev => CODE_FIXED + 4,
            Code::Asp => CODE_FIXED + 5,
            Code::Other => CODE_FIXED + 6,
            Code::Config => CODE_FIXED + 7,
        }
    }
}

/// The first bucket after the CPU and global families'.
const CODE_FIXED: usize = CPU_FAMILIES + GLOBALS;
/// Buckets of a [`Set`].
const CODE_SLOTS: usize = CODE_FIXED + 8;

/// A sample set being closed: its records in file order, and per code the
/// indices of its records of that code in file order (so that each record
/// family is found without a pass over the whole set).
struct Set<'a> {
    recs: &'a [(Code, Buffered)],
    by: &'a [Vec<u32>],
}

impl<'a> Set<'a> {
    /// The records of `code`, in file order, with their index in the set.
    #[inline]
    fn of(&self, code: Code) -> impl Iterator<Item = (usize, &'a Buffered)> + 'a {
        let recs = self.recs;
        self.by[code.slot()]
            .iter()
            .map(move |&i| (i as usize, &recs[i as usize].1))
    }

    /// The first record of `code`.
    #[inline]
    fn first(&self, code: Code) -> Option<&'a Buffered> {
        self.by[code.slot()]
            .first()
            .map(|&i| &self.recs[i as usize].1)
    }

    /// The last record of `code`.
    #[inline]
    fn last(&self, code: Code) -> Option<&'a Buffered> {
        self.by[code.slot()]
            .last()
            .map(|&i| &self.recs[i as usize].1)
    }

    /// Record `i` of the set.
    #[inline]
    fn get(&self, i: usize) -> &'a Buffered {
        &self.recs[i].1
    }
}

/// The kernel's code of each record type: a table for the small domain and
/// record numbers every layout has, a map beyond.
#[derive(Default)]
struct Codes {
    table: Vec<Option<Code>>,
    more: Map<(u8, u16), Code>,
}

const CODE_DOMAINS: usize = 16;
const CODE_RECORDS: usize = 64;

impl Codes {
    fn set(&mut self, k: (u8, u16), c: Code) {
        if self.table.is_empty() {
            self.table = vec![None; CODE_DOMAINS * CODE_RECORDS];
        }
        if (k.0 as usize) < CODE_DOMAINS && (k.1 as usize) < CODE_RECORDS {
            self.table[k.0 as usize * CODE_RECORDS + k.1 as usize] = Some(c);
        } else {
            self.more.insert(k, c);
        }
    }

    #[inline]
    fn get(&self, k: (u8, u16)) -> Option<Code> {
        if (k.0 as usize) < CODE_DOMAINS && (k.1 as usize) < CODE_RECORDS {
            self.table
                .get(k.0 as usize * CODE_RECORDS + k.1 as usize)
                .copied()
                .flatten()
        } else {
            self.more.get(&k).copied()
        }
    }
}

const CPU_FAMILIES: usize = 6;
/// (record, key field, [(column, field)], down-counting field)
type CpuFamily = (
    &'static str,
    &'static [&'static str],
    &'static [usize],
    Option<&'static str>,
);
// Field lists: the key field first, then the counters.
static CPU_DEFS: [CpuFamily; CPU_FAMILIES] = [
    (
        "MRSYTPRP",
        &[
            "SYTPRP_PFXCPUAD",
            "SYTPRP_PFXUTIME",
            "SYTPRP_PFXTMSYS",
            "SYTPRP_PFXTOTWT",
            "SYTPRP_PFXPRBTM",
            "SYTPRP_PFXSPINT",
            "SYTPRP_PFXCPUTY",
        ],
        &[],
        Some("SYTPRP_PFXPRBTM"),
    ),
    (
        "MRSYTSYP",
        &[
            "SYTSYP_PFXCPUAD",
            "SYTSYP_PLSCTSS",
            "SYTSYP_PLSCTRS",
            "SYTSYP_PLSPIOPR",
            "SYTSYP_PLSPIOPW",
            "SYTSYP_PLSPIOSR",
            "SYTSYP_PLSPIOSW",
            "SYTSYP_PLSDIAGT",
            "SYTSYP_PLSPRVIS",
        ],
        &[
            cpu::ssch,
            cpu::rsch,
            cpu::page_reads,
            cpu::page_writes,
            cpu::spool_reads,
            cpu::spool_writes,
            cpu::diagnose,
            cpu::simulated,
        ],
        None,
    ),
    (
        "MRSYTRSP",
        &[
            "SYTRSP_PFXCPUAD",
            "SYTRSP_PLSSTLFR",
            "SYTRSP_PLSPRQDF",
            "SYTRSP_PLSSHRRD",
        ],
        &[cpu::steals, cpu::frame_deferred, cpu::shared_reads],
        None,
    ),
    (
        "MRSYTXSP",
        &[
            "SYTXSP_PFXCPUAD",
            "SYTXSP_PLSPGIN",
            "SYTXSP_PLSPGOUT",
            "SYTXSP_PLSPGMRD",
        ],
        &[cpu::pgin, cpu::pgout, cpu::migrations],
        None,
    ),
    (
        "MRSTORSP",
        &[
            "STORSP_PFXCPUAD",
            "STORSP_PLSPGDRD",
            "STORSP_PLSPGDWT",
            "STORSP_PLSLTD1",
            "STORSP_PLSDORM1",
            "STORSP_PLSSHAR1",
            "STORSP_PLSELIG1",
            "STORSP_PLSDISP1",
            "STORSP_PLSLTD2",
            "STORSP_PLSDORM2",
            "STORSP_PLSELIG2",
            "STORSP_PLSDISP2",
            "STORSP_PLSSHARE",
            "STORSP_PLSDORME",
            "STORSP_PLSELIGE",
            "STORSP_PLSDISPE",
        ],
        &[
            cpu::dasd_page_reads,
            cpu::dasd_page_writes,
            cpu::steal_pass1,
            cpu::steal_pass1,
            cpu::steal_pass1,
            cpu::steal_pass1,
            cpu::steal_pass1,
            cpu::steal_pass2,
            cpu::steal_pass2,
            cpu::steal_pass2,
            cpu::steal_pass2,
            cpu::steal_emerg,
            cpu::steal_emerg,
            cpu::steal_emerg,
            cpu::steal_emerg,
        ],
        None,
    ),
    (
        "MRPRCPRP",
        &["PRCPRP_PFXCPUAD", "PRCPRP_HFCOUNT", "PRCPRP_PFXDSPCS"],
        &[cpu::hf_count, cpu::dispatches],
        None,
    ),
];
/// Column of the system row counting the seconds of each CPU family.
const CPU_SEC: [usize; CPU_FAMILIES] = [
    system::sec_MRSYTPRP,
    system::sec_MRSYTSYP,
    system::sec_MRSYTRSP,
    system::sec_MRSYTXSP,
    system::sec_MRSTORSP,
    system::sec_MRPRCPRP,
];

const GLOBALS: usize = 6;
/// (record, [(system column, counter field)], [(system column of the level, field)], sec, lsec)
type GlobalFamily = (
    &'static str,
    &'static [(usize, &'static str)],
    &'static [(usize, &'static str)],
    usize,
    usize,
);
static GLOBAL_DEFS: [GlobalFamily; GLOBALS] = [
    (
        "MRSYTRSG",
        &[(system::rsg_frame_waits, "SYTRSG_RSAFRQWT")],
        &[
            (system::avail_frames, "SYTRSG_RSAAVAIL"),
            (system::pageable_frames, "SYTRSG_RSAPGABL"),
            (system::cp_locked, "SYTRSG_RSACPLOK"),
            (system::nonpageable, "SYTRSG_RSANONPG"),
            (system::save_frames, "SYTRSG_RSASAVFR"),
            (system::reserved_frames, "SYTRSG_SYSRSVPG"),
        ],
        system::sec_MRSYTRSG,
        system::lsec_MRSYTRSG,
    ),
    (
        "MRSTORSG",
        &[
            (system::emergency_scans, "STORSG_RSAEMERG"),
            (system::list_empty, "STORSG_RSAEMPTY"),
            (system::frame_waits, "STORSG_RSAFRQWT"),
            (system::scans, "STORSG_RSASTLWT"),
        ],
        &[
            (system::avail_low, "STORSG_RSAAVLLT"),
            (system::avail_high, "STORSG_RSAAVLHT"),
            (system::avail_low_g, "STORSG_RSAAVLLG"),
            (system::avail_high_g, "STORSG_RSAAVLHG"),
            (system::max_pageable, "STORSG_RSAMAXPP"),
        ],
        system::sec_MRSTORSG,
        system::lsec_MRSTORSG,
    ),
    (
        "MRSYTASG",
        &[(system::full90, "SYTASG_CAL90FUL")],
        &[
            (system::slots_total, "SYTASG_CALSLTA1"),
            (system::slots_used, "SYTASG_CALSLTI1"),
            (system::spool_total, "SYTASG_CALSLTA2"),
            (system::spool_used, "SYTASG_CALSLTI2"),
            (system::dump_total, "SYTASG_CALDMPAV"),
            (system::dump_used, "SYTASG_CALDMPIU"),
        ],
        system::sec_MRSYTASG,
        system::lsec_MRSYTASG,
    ),
    (
        "MRSYTUWT",
        &[
            (system::uwt_ti, "SYTUWT_CALTIDL"),
            (system::uwt_tiw, "SYTUWT_CALTSVM"),
            (system::uwt_iow, "SYTUWT_CALIOWT"),
            (system::uwt_pgw, "SYTUWT_CALWTPAG"),
            (system::uwt_cfw, "SYTUWT_CALCFWT"),
            (system::uwt_sim, "SYTUWT_CALSIMWT"),
            (system::uwt_cpu, "SYTUWT_CALCPUWT"),
            (system::uwt_run, "SYTUWT_CALCPURN"),
            (system::uwt_oth, "SYTUWT_CALOTHR"),
            (system::uwt_queue, "SYTUWT_CALQDISP"),
            (system::uwt_el, "SYTUWT_CALELSVM"),
            (system::uwt_ioa, "SYTUWT_CALIOACT"),
            (system::uwt_lim, "SYTUWT_CALLLIST"),
        ],
        &[(system::elist, "SYTUWT_SRMCELIG")],
        system::sec_MRSYTUWT,
        system::lsec_MRSYTUWT,
    ),
    (
        "MRSYTXSG",
        &[
            (system::xstor_gets, "SYTXSG_XSTXBGET"),
            (system::xstor_releases, "SYTXSG_XSTXBREL"),
        ],
        &[
            (system::xstor_free, "SYTXSG_XSTCTXAV"),
            (system::xstor_total, "SYTXSG_XSTCPPAR"),
        ],
        system::sec_MRSYTXSG,
        system::lsec_MRSYTXSG,
    ),
    (
        "MRSTOXSG",
        &[(system::xstor_migrations, "STOXSG_XSTMIGS")],
        &[
            (system::xstor_age, "STOXSG_XSTSUMAG"),
            (system::xstor_low, "STOXSG_XSTLOTHR"),
        ],
        system::sec_MRSTOXSG,
        system::lsec_MRSTOXSG,
    ),
];

const ACT_NAMES: &[&str] = &[
    "USEACT_VMDUSER",
    "USEACT_VMDCPUAD",
    "USEACT_CALTODON",
    // time fields
    "USEACT_VMDTTIME",
    "USEACT_VMDVTIME",
    "USEACT_VMDVDSCT",
    // store fields
    "USEACT_CALCPPGR",
    "USEACT_CALCPPGW",
    "USEACT_CALCPPST",
    "USEACT_CALCPXRD",
    "USEACT_CALCPXWT",
    "USEACT_CALCPMIG",
    "USEACT_VMDCTFLT",
    // levels
    "USEACT_VMDWSSPR",
    "USEACT_VMDCTPVR",
    "USEACT_VMDCTPVG",
    "USEACT_VMDCTPVL",
    "USEACT_VMDCTXBK",
    "USEACT_CALCTPGS",
    "USEACT_VMDSSIZE",
];
const ACT_STORE_COLS: [usize; 7] = [
    user::page_reads,
    user::page_writes,
    user::steals,
    user::x_to_ms,
    user::ms_to_x,
    user::x_to_ds,
    user::faults,
];
const ACT_LEVEL_COLS: [usize; 7] = [
    user::wss,
    user::res_lt2g,
    user::res_gt2g,
    user::locked,
    user::xstor,
    user::dasd,
    user::storage_pages,
];
const HF_NAMES: &[&str] = &[
    "USEINT_VMDUSER",
    "USEINT_VMDCPUAD",
    "USEINT_HFSTCT",
    "USEINT_HFQUCT",
    "USEINT_HFCPURN",
    "USEINT_HFCPUWT",
    "USEINT_HFLOAD",
    "USEINT_HFWTPAG",
    "USEINT_HFIOWT",
    "USEINT_HFSIMWT",
    "USEINT_HFTSVM",
    "USEINT_HFCFWT",
    "USEINT_HFTIDL",
    "USEINT_HFESVM",
    "USEINT_HFDORM",
    "USEINT_HFIOACT",
    "USEINT_HFPGACT",
    "USEINT_HFLLIST",
    "USEINT_HFOTHR",
    "USEINT_HFDISP0",
    "USEINT_HFDISP1",
    "USEINT_HFDISP2",
    "USEINT_HFDISP3",
    "USEINT_HFELIG0",
    "USEINT_HFELIG1",
    "USEINT_HFELIG2",
    "USEINT_HFELIG3",
];
const HF_COLS: [usize; 25] = [
    user::hf_total,
    user::hf_queue,
    user::hf_run,
    user::hf_cpu,
    user::hf_ldg,
    user::hf_pgw,
    user::hf_iow,
    user::hf_sim,
    user::hf_tiw,
    user::hf_cfw,
    user::hf_ti,
    user::hf_el,
    user::hf_dm,
    user::hf_ioa,
    user::hf_pga,
    user::hf_lim,
    user::hf_oth,
    user::hf_q0,
    user::hf_q1,
    user::hf_q2,
    user::hf_q3,
    user::hf_e,
    user::hf_e,
    user::hf_e,
    user::hf_e,
];
/// How many of HF_COLS are the user columns from `hf_total` in order (the
/// rest add into `hf_e`).
const HF_ONE_TO_ONE: usize = 21;
const _: () = {
    let mut j = 0;
    while j < HF_COLS.len() {
        let want = if j < HF_ONE_TO_ONE {
            user::hf_total + j
        } else {
            user::hf_e
        };
        assert!(HF_COLS[j] == want);
        j += 1;
    }
};
/// User columns added into the system sums, and their system columns.
const SYS_USER_KEYS: &[(usize, usize)] = &[
    (user::ttime, system::user_ttime),
    (user::vtime, system::user_vtime),
    (user::store_seconds, system::users_store_seconds),
    (user::hf_total, system::users_hf_total),
    (user::hf_queue, system::users_hf_queue),
    (user::hf_run, system::users_hf_run),
    (user::hf_cpu, system::users_hf_cpu),
    (user::hf_ldg, system::users_hf_ldg),
    (user::hf_pgw, system::users_hf_pgw),
    (user::hf_iow, system::users_hf_iow),
    (user::hf_sim, system::users_hf_sim),
    (user::hf_tiw, system::users_hf_tiw),
    (user::hf_cfw, system::users_hf_cfw),
    (user::hf_ti, system::users_hf_ti),
    (user::hf_el, system::users_hf_el),
    (user::hf_dm, system::users_hf_dm),
    (user::hf_ioa, system::users_hf_ioa),
    (user::hf_pga, system::users_hf_pga),
    (user::hf_lim, system::users_hf_lim),
    (user::hf_oth, system::users_hf_oth),
    (user::hf_q0, system::users_hf_q0),
    (user::hf_q1, system::users_hf_q1),
    (user::hf_q2, system::users_hf_q2),
    (user::hf_q3, system::users_hf_q3),
    (user::hf_e, system::users_hf_e),
    (user::page_reads, system::users_page_reads),
    (user::page_writes, system::users_page_writes),
    (user::steals, system::users_steals),
    (user::x_to_ms, system::users_x_to_ms),
    (user::ms_to_x, system::users_ms_to_x),
    (user::x_to_ds, system::users_x_to_ds),
    (user::faults, system::users_faults),
];
const SYS_LEVEL_KEYS: &[(usize, usize)] = &[
    (user::wss, system::users_wss),
    (user::res_lt2g, system::users_res_lt2g),
    (user::res_gt2g, system::users_res_gt2g),
    (user::locked, system::users_locked),
    (user::xstor, system::users_xstor),
    (user::dasd, system::users_dasd),
    (user::storage_pages, system::users_storage_pages),
];

// Device type, class and PAV base are in the device configuration record
// (MRMTRDEV), not in MRIODDEV; the number of high-frequency samples is the
// processors' (PRCPRP_HFCOUNT). IODDEV_HFRDEVCT / HFCTIO: high-frequency counts
// of queued requests and of I/O active, RDEVMCIA: minidisk-cache I/Os avoided
// (meanings inferred from the names; docs/monitor-format.md).
const DEV_NAMES: &[&str] = &[
    "IODDEV_RDEVDEV",
    "IODDEV_RDEVSER",
    // counters
    "IODDEV_HFRDEVCT",
    "IODDEV_HFCTIO",
    "IODDEV_SCMSSCH",
    "IODDEV_SCMCOUNT",
    "IODDEV_SCMCNTIM",
    "IODDEV_SCMFPTIM",
    "IODDEV_SCMDDTIM",
    "IODDEV_SCMCQTIM",
    "IODDEV_SCGSSCH",
    "IODDEV_SCGCOUNT",
    "IODDEV_RDEVMCIA",
    // PAV: I/Os of the base's volume started on an alias, and I/Os that had
    // to run on the base while it had aliases (zpmd's names; meaning inferred)
    "IODDEV_PAVUSES",
    "IODDEV_PAVINELG",
];
const DEV_COUNTERS: usize = 2;
/// A device's type, class and PAV base, from its MRMTRDEV.
type DevConf = (Option<i64>, Option<i64>, Option<i64>);
/// From the device configuration record: device number, type, class, PAV base.
const MTRDEV_NAMES: [&str; 4] = [
    "MTRDEV_RDEVDEV",
    "MTRDEV_RDEVTYPE",
    "MTRDEV_RDEVCLAS",
    "MTRDEV_CALRDEVDEV",
];
const ASP_NAMES: &[&str] = &[
    "STOASP_RDEVDEV",
    "STOASP_CALFLAG1",
    "STOASP_CALVSER",
    // counters
    "STOASP_EXPCTSRD",
    "STOASP_EXPCTSWR",
    "STOASP_EXPCTPRD",
    "STOASP_EXPCTPWR",
    "STOASP_SCMSSCH",
    "STOASP_SCGSSCH",
    // levels
    "STOASP_EXPCURQC",
    "STOASP_EXPMLOAD",
    "STOASP_CPVALOCD",
    "STOASP_CALPAGE",
    "STOASP_CALSPOOL",
];
const ASP_LEVEL_COLS: [usize; 5] = [
    exposure::queue,
    exposure::mload_us,
    exposure::slots_used,
    exposure::page_slots,
    exposure::spool_slots,
];
// One MRSYTCUP record per partition, or (from z/VM 6.3) several: the entries
// are keyed by partition and CPU, never by record.
const CUP_NAMES: &[&str] = &[
    "SYTCUP_LCUPNAME",
    "SYTCUP_LCUPPNUM",
    "SYTCUP_LCUPCPCT",
    "SYTCUP_LCPTYPE",
];
const CUP_GROUP: &[&str] = &[
    "SYTCUP_LCUCPUID",
    "SYTCUP_LCUCWGHT",
    "SYTCUP_LCXCPTYP",
    "SYTCUP_LCUCACTM",
    "SYTCUP_LCUCLPTM",
];
const CUG_NAMES: &[&str] = &[
    "SYTCUG_LCUTNPAR",
    "SYTCUG_LCUTPCCT",
    "SYTCUG_LCUTSLCE",
    "SYTCUG_LPARNAME",
];

/// Domain 1 configuration records handed to the caller.
const CONFIG_NAMES: &[&str] = &[
    "MRMTRSYS", "MRMTRPRP", "MRMTRDEV", "MRMTRMEM", "MRMTRPAG", "MRMTRSPR", "MRMTRUSR", "MRMTRXSG",
    "MRMTREPR", "MRMTRSCM", "MRMTRECM", "MRMTRDDR", "MRMTRSUS",
];

/// A record of the current sample set: where its bytes are in the set's arena.
#[derive(Clone, Copy)]
struct Buffered {
    tod: u64,
    at: usize,
    len: usize,
    layout: &'static RecordLayout,
    /// Byte offset of the record in the file (for implausible samples).
    offset: u64,
}

fn key_of(l: &RecordLayout) -> (u8, u16) {
    (l.domain, l.record)
}

fn f64o(v: Option<i128>) -> Option<f64> {
    v.map(to_f64)
}

fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b != 0.0 => Some(a / b),
        _ => None,
    }
}

fn opt(v: f64) -> Option<f64> {
    (!v.is_nan()).then_some(v)
}

/// Why a device interval's figures cannot be, if they cannot: a subchannel
/// busy (function pending, connected or disconnected: one start function at
/// a time) for more than the interval (5% for clock jitter), or a service
/// time per I/O beyond [`MAX_SERVICE_S`]. Times are in the measurement
/// block's 128 µs units.
fn device_implausible(r: &[f64; device::N]) -> Option<String> {
    const UNIT_S: f64 = 128e-6;
    let nz = |v: f64| if v.is_nan() { 0.0 } else { v };
    let t = r[device::seconds];
    let serv = (nz(r[device::conn]) + nz(r[device::pend]) + nz(r[device::disc])) * UNIT_S;
    if t > 0.0 && serv > 1.05 * t + 0.01 {
        return Some(format!(
            "{:.0}% busy (pending + disconnect + connect time over the interval)",
            100.0 * serv / t
        ));
    }
    let io = nz(r[device::measured]);
    if io >= 1.0 && serv / io > MAX_SERVICE_S {
        return Some(format!("{:.0} ms service time per I/O", 1000.0 * serv / io));
    }
    None
}

/// DEVICE (FCX108) response and service time of one device interval, as
/// `ztwin.reports.metrics.device_metrics` computes them: (resp_ms, serv_ms).
fn device_resp_serv(r: &[f64; device::N]) -> (Option<f64>, Option<f64>) {
    const SCM_MS: f64 = 0.128;
    let seconds = opt(r[device::seconds]);
    let measured = opt(r[device::measured]);
    let io_rate = ratio(opt(r[device::ssch]), seconds);
    let ms = |k: usize| ratio(opt(r[k]), measured).map(|v| v * SCM_MS);
    let (pend, disc, conn) = (ms(device::pend), ms(device::disc), ms(device::conn));
    let serv = match (pend, disc, conn) {
        (Some(p), Some(d), Some(c)) => Some(0.0 + p + d + c),
        _ => None,
    };
    let queued = ratio(opt(r[device::hf_queue]), opt(r[device::hf_count]));
    let wait_ms = match queued {
        None => None,
        Some(q) => {
            if q == 0.0 {
                Some(0.0)
            } else {
                match io_rate {
                    Some(rate) if rate != 0.0 => Some(1000.0 * q / rate),
                    _ => None,
                }
            }
        }
    };
    let resp = serv.map(|s| s + wait_ms.unwrap_or(0.0));
    (resp, serv)
}

/// User ids interned as small integers (the kernel's keys), with their text.
#[derive(Default, Debug)]
pub struct UserIds {
    short: Map<u64, u32>,
    raw: Map<Vec<u8>, u32>,
    by_name: Map<String, u32>,
    pub names: Vec<String>,
}

impl UserIds {
    /// The id of a user named `name` (text without surrounding blanks).
    pub fn by_text(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.by_name.get(name) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(name.to_string());
        self.by_name.insert(name.to_string(), i);
        i
    }

    /// The id of the user whose EBCDIC name field holds `raw`; `None` for a
    /// blank name.
    #[inline]
    pub fn by_raw(&mut self, raw: &[u8]) -> Option<u32> {
        if raw.len() <= 8 {
            // the usual 8-byte name, packed (trailing blanks and NULs are
            // already gone, so zero padding is unambiguous)
            let mut b = [0u8; 8];
            b[..raw.len()].copy_from_slice(raw);
            let k = u64::from_be_bytes(b);
            if let Some(&i) = self.short.get(&k) {
                return (i != u32::MAX).then_some(i);
            }
            let i = self.intern(raw);
            self.short.insert(k, i);
            return (i != u32::MAX).then_some(i);
        }
        if let Some(&i) = self.raw.get(raw) {
            return (i != u32::MAX).then_some(i);
        }
        let i = self.intern(raw);
        self.raw.insert(raw.to_vec(), i);
        (i != u32::MAX).then_some(i)
    }

    #[cold]
    fn intern(&mut self, raw: &[u8]) -> u32 {
        let t = ztwin_monitor::ebcdic::decode(raw);
        let t = t.trim();
        if t.is_empty() {
            u32::MAX
        } else {
            self.by_text(t)
        }
    }
}

/// A user's [`Hint`]s: its slots in the activity time tracker (one per
/// MRUSEACT record of the user in a set, in the set's order), the store
/// tracker and the MRUSEINT tracker (one per record), and its row of the
/// window totals. A stale hint (a user with more records this set, or
/// the default 0) costs a lookup, never a wrong slot: the slot's key is
/// compared.
#[derive(Default)]
struct UserHints {
    act: Vec<Hint>,
    store: Hint,
    hf: Vec<Hint>,
    total: Hint,
}

/// Where the device of the MRIODDEV record at one position of a sample set
/// was found the last time (devices come in the same order set after set):
/// its slot in the device tracker, its row of the window totals and of
/// [`Info::devices`], and its generation and configuration as of `epoch`.
/// A stale hint (another device at that position, a changed epoch) costs
/// the lookups, never a wrong place: the keys are compared.
#[derive(Clone, Copy)]
struct DevHint {
    devno: Option<i64>,
    tr: Hint,
    total: Hint,
    info: usize,
    epoch: u64,
    gen: u64,
    conf: DevConf,
}

impl Default for DevHint {
    fn default() -> Self {
        DevHint {
            devno: None,
            tr: NO_HINT,
            total: NO_HINT,
            info: usize::MAX,
            epoch: 0,
            gen: 0,
            conf: (None, None, None),
        }
    }
}

/// The hint at `j` of `v` (grown with [`NO_HINT`] as needed).
#[inline]
fn hint_at(v: &mut Vec<Hint>, j: usize) -> &mut Hint {
    if v.len() <= j {
        v.resize(j + 1, NO_HINT);
    }
    &mut v[j]
}

/// The kernel's state between records.
pub struct Kernel {
    opts: Options,
    codes: Codes,
    uselon: Option<(u8, u16)>,
    uselof: Option<(u8, u16)>,
    iodvon: Option<(u8, u16)>,
    iodvof: Option<(u8, u16)>,
    mtrsys: Option<(u8, u16)>,
    mtrusr: Option<(u8, u16)>,
    // the current sample set
    arena: Vec<u8>,
    set: Vec<(Code, Buffered)>,
    /// Per code ([`Code::slot`]): the indices in `set` of its records.
    set_by: Vec<Vec<u32>>,
    set_first: Option<u64>,
    set_last: u64,
    seen_end: bool,
    prev_end: Option<u64>,
    seq: u64,
    zone_s: i64,
    window: Option<(Option<i64>, Option<i64>)>,
    stop: bool,
    user_gen: Vec<u64>,
    /// User ids (the keys of the user rows and totals).
    pub user_ids: UserIds,
    u_act: Vec<Vec<usize>>,
    u_hf: Vec<Vec<usize>>,
    u_order: Vec<u32>,
    /// Per user: its [`Hint`]s (tracker slots and window-total row).
    u_hint: Vec<UserHints>,
    /// `cpus`' buffers, kept between sets: the set's logical processors
    /// and its per-CPU rows.
    cpus_seen: Vec<Option<i64>>,
    cpu_per: Vec<(Option<i64>, [f64; cpu::N], u8)>,
    dev_gen: Map<i64, u64>,
    /// Bumped whenever `dev_gen` or `dev_conf` changes (a [`DevHint`]'s
    /// copies of them are current while its `epoch` is this).
    dev_epoch: u64,
    /// Per position among a set's MRIODDEV records: its device's places.
    dev_hint: Vec<DevHint>,
    /// Per device number, from its last MRMTRDEV: type, class, PAV base.
    dev_conf: Map<i64, DevConf>,
    mtrdev: Option<(u8, u16)>,
    // trackers and field resolvers
    cpu_res: Vec<Resolver>,
    cpu_tr: Vec<Tracker<Option<i64>, ()>>,
    glob_res: Vec<Resolver>,
    glob_tr: Vec<Tracker<(), ()>>,
    cup_res: Resolver,
    lcpu_tr: Tracker<(String, Option<i64>), ()>,
    cug_res: Resolver,
    act_res: Resolver,
    act_time: Tracker<(u32, Option<i64>), (u64, Option<i128>)>,
    act_store: Tracker<u32, (u64, Option<i128>)>,
    hf_res: Resolver,
    hf_tr: Tracker<(u32, Option<i64>), (u64, Option<i128>)>,
    dev_res: Resolver,
    dev_tr: Tracker<i64, u64>,
    asp_res: Resolver,
    asp_tr: Tracker<i64, u64>,
    ev_res: Resolver,
    // scratch
    vals: Sample,
    out: Vec<i64>,
    // results
    pub batch: Batch,
    pub totals: Totals,
    pub info: Info,
    cpu_types_seen: HashSet<Option<i64>, BuildHasherDefault<Fx>>,
    /// Flags of the samples of the set being closed.
    set_flags: u8,
    /// Index in `opts.ranges` of the range being read.
    range: usize,
    /// Logical processors with a processor record in the set being closed.
    set_cpus: usize,
    /// A processor's MRSYTPRP sample of that set was implausible.
    set_cpu_bad: bool,
    /// The system column each CPU column adds into (same name).
    cpu_sys: [usize; cpu::N],
}

impl Kernel {
    pub fn new(opts: Options) -> Kernel {
        use ztwin_monitor::layout::by_name;
        let mut codes = Codes::default();
        let ignore = opts.ignore.clone();
        let ignored = move |name: &str| ignore.iter().any(|n| n.eq_ignore_ascii_case(name));
        let mut put = |name: &str, c: Code| {
            if ignored(name) {
                return;
            }
            if let Some(l) = by_name(name) {
                codes.set(key_of(l), c);
            }
        };
        for (i, d) in CPU_DEFS.iter().enumerate() {
            put(d.0, Code::Cpu(i as u8));
        }
        for (i, d) in GLOBAL_DEFS.iter().enumerate() {
            put(d.0, Code::Global(i as u8));
        }
        put("MRSYTCUP", Code::Cup);
        put("MRSYTCUG", Code::Cug);
        put("MRUSEACT", Code::Act);
        put("MRUSEINT", Code::Hf);
        put("MRIODDEV", Code::Dev);
        put("MRSTOASP", Code::Asp);
        for n in CONFIG_NAMES {
            put(n, Code::Config);
        }
        let k = |n: &str| {
            if ignored(n) {
                None
            } else {
                by_name(n).map(key_of)
            }
        };
        Kernel {
            opts,
            codes,
            uselon: k("MRUSELON"),
            uselof: k("MRUSELOF"),
            iodvon: k("MRIODVON"),
            iodvof: k("MRIODVOF"),
            mtrsys: k("MRMTRSYS"),
            mtrusr: k("MRMTRUSR"),
            arena: Vec::new(),
            set: Vec::new(),
            set_by: (0..CODE_SLOTS).map(|_| Vec::new()).collect(),
            set_first: None,
            set_last: 0,
            seen_end: false,
            prev_end: None,
            seq: 0,
            zone_s: 0,
            window: None,
            stop: false,
            user_gen: Vec::new(),
            u_hint: Vec::new(),
            cpus_seen: Vec::new(),
            cpu_per: Vec::new(),
            user_ids: UserIds::default(),
            u_act: Vec::new(),
            u_hf: Vec::new(),
            u_order: Vec::new(),
            dev_gen: Map::default(),
            dev_epoch: 0,
            dev_hint: Vec::new(),
            dev_conf: Map::default(),
            mtrdev: k("MRMTRDEV"),
            cpu_res: CPU_DEFS
                .iter()
                .map(|d| match d.3 {
                    Some(down) => Resolver::new(d.1, &[]).with_down(down),
                    None => Resolver::new(d.1, &[]),
                })
                .collect(),
            cpu_tr: (0..CPU_FAMILIES).map(|_| Tracker::default()).collect(),
            glob_res: (0..GLOBALS)
                .map(|i| Resolver::new(GLOBAL_NAMES[i], &[]))
                .collect(),
            glob_tr: (0..GLOBALS).map(|_| Tracker::default()).collect(),
            cup_res: Resolver::new(CUP_NAMES, CUP_GROUP),
            lcpu_tr: Tracker::default(),
            cug_res: Resolver::new(CUG_NAMES, &[]),
            act_res: Resolver::new(ACT_NAMES, &[]),
            act_time: Tracker::default(),
            act_store: Tracker::default(),
            hf_res: Resolver::new(HF_NAMES, &[]),
            hf_tr: Tracker::default(),
            dev_res: Resolver::new(DEV_NAMES, &[]),
            dev_tr: Tracker::default(),
            asp_res: Resolver::new(ASP_NAMES, &[]),
            asp_tr: Tracker::default(),
            ev_res: Resolver::new(EVENT_NAMES, &[]),
            vals: Sample::default(),
            out: Vec::new(),
            batch: Batch::default(),
            totals: Totals {
                system: [f64::NAN; system::N],
                cpu: Keyed::default(),
                lpar: Keyed::default(),
                user: Keyed::default(),
                device: Keyed::default(),
                exposure: Keyed::default(),
            },
            info: Info::default(),
            cpu_types_seen: HashSet::default(),
            set_flags: 0,
            range: 0,
            set_cpus: 0,
            set_cpu_bad: false,
            cpu_sys: std::array::from_fn(cpu_to_system),
        }
    }

    /// Whether a record at `offset` is in the chosen ranges; entering a later
    /// range starts a new segment ([`Kernel::new_segment`]).
    #[inline]
    fn in_ranges(&mut self, offset: u64) -> bool {
        let Some(ranges) = &self.opts.ranges else {
            return true;
        };
        let mut i = self.range;
        while i < ranges.len() && offset >= ranges[i].1 {
            i += 1;
        }
        let Some(&(start, _)) = ranges.get(i) else {
            return false;
        };
        if offset < start {
            return false;
        }
        if i != self.range {
            self.range = i;
            self.new_segment();
        }
        true
    }

    /// A new collection starts: the set being gathered is dropped, no interval
    /// spans the boundary, and every key's next sample is a new baseline.
    pub fn new_segment(&mut self) {
        self.set.clear();
        self.set_by.iter_mut().for_each(Vec::clear);
        self.arena.clear();
        self.set_first = None;
        self.seen_end = false;
        self.prev_end = None;
        // Trackers difference a key's sample only against the immediately
        // preceding sample set: skipping a number breaks every chain.
        self.seq += 1;
    }

    /// Keep an implausible sample's place and reason (bounded).
    #[cold]
    fn implausible(&mut self, b: &Buffered, key: String, reason: String) {
        self.set_flags |= IMPLAUSIBLE;
        self.info.implausible_count += 1;
        if self.info.implausible.len() < MAX_IMPLAUSIBLE_KEPT {
            self.info.implausible.push(Implausible {
                offset: b.offset,
                record: b.layout.name,
                key,
                reason,
            });
        }
    }

    /// The reason for a tracker's [`IMPLAUSIBLE`] answer: the field (from
    /// `defs`, the definitions its rules were taken from) and its rise.
    #[cold]
    fn rise_reason(
        defs: &[Option<&'static ztwin_monitor::layout::FieldDef>],
        (field, rate): (usize, f64),
    ) -> String {
        let f = defs.get(field).copied().flatten();
        let name = f.map_or("?", |f| f.name);
        let time = f.is_some_and(|f| {
            matches!(
                f.ty,
                ztwin_monitor::FieldType::Tod | ztwin_monitor::FieldType::Dur
            )
        });
        if time {
            format!(
                "{name} rose by {:.0} seconds per second of the interval",
                rate / TOD_PER_S as f64
            )
        } else {
            format!("{name} rose by {rate:.0} per second")
        }
    }

    /// Whether the kernel wants no more records (the window has ended).
    pub fn stopped(&self) -> bool {
        self.stop
    }

    /// Intervals completed so far.
    pub fn intervals(&self) -> u64 {
        self.info.intervals
    }

    /// Local time in microseconds since 1970 of a TOD value.
    /// The end (TOD) of the last sample set closed, in the window or not:
    /// the start of the next interval ([`crate::side`] follows it).
    pub fn last_set_end(&self) -> Option<u64> {
        self.prev_end
    }

    fn local_us(&self, tod: u64) -> i64 {
        (tod / 4096) as i64 - EPOCH_1900_US + self.zone_s * 1_000_000
    }

    /// Feed one record. Returns false once the window has ended (stop reading).
    pub fn record(&mut self, r: &RecordRef<'_>) -> bool {
        if self.stop {
            return false;
        }
        if self.opts.ranges.is_some() && !self.in_ranges(r.offset) {
            return true;
        }
        let h = &r.header;
        let key = (h.domain, h.record);
        let tod = h.tod;
        if h.domain == 1 {
            if key == (1, 11) {
                if r.set_kind == SetKind::Sample {
                    self.seen_end = true;
                    self.close_set(tod);
                }
            } else if self.codes.get(key) == Some(Code::Config) {
                self.config(r);
            }
            return !self.stop;
        }
        if r.set_kind == SetKind::Event {
            self.event(r);
            return true;
        }
        match self.set_first {
            None => self.set_first = Some(tod),
            Some(first) => {
                if !self.seen_end && tod.wrapping_sub(first) as i64 > (TOD_PER_S / 2) as i64 {
                    // No MRMTREND seen so far: a jump in time starts a new set.
                    let last = self.set_last;
                    self.close_set(last);
                    if self.stop {
                        return false;
                    }
                    self.set_first = Some(tod);
                }
            }
        }
        self.set_last = tod;
        if let (Some(code), Some(layout)) = (self.codes.get(key), r.layout) {
            let at = self.arena.len();
            self.arena.extend_from_slice(r.bytes);
            self.set_by[code.slot()].push(self.set.len() as u32);
            self.set.push((
                code,
                Buffered {
                    tod,
                    at,
                    len: r.bytes.len(),
                    layout,
                    offset: r.offset,
                },
            ));
        } else {
            // A sample record the kernel does not read still makes the set non-empty.
            self.set.push((
                Code::Other,
                Buffered {
                    tod,
                    at: self.arena.len(),
                    len: 0,
                    layout: NO_LAYOUT,
                    offset: r.offset,
                },
            ));
        }
        !self.stop
    }

    /// The end of the file: a writer that never closes its sets with
    /// MRMTREND gets its last set taken.
    pub fn finish(&mut self) {
        if !self.stop && !self.set.is_empty() && !self.seen_end {
            let last = self.set_last;
            self.close_set(last);
        }
        if self.stop {
            self.info.stopped_early = true;
        }
        self.info.resolve();
    }

    /// The per-interval rows produced since the last call.
    pub fn take(&mut self) -> Batch {
        std::mem::take(&mut self.batch)
    }

    fn keep(&mut self, r: &RecordRef<'_>) -> KeptRecord {
        KeptRecord {
            offset: r.offset,
            kind: r.set_kind,
            bytes: r.bytes.to_vec(),
        }
    }

    fn config(&mut self, r: &RecordRef<'_>) {
        let key = (r.header.domain, r.header.record);
        let Some(layout) = r.layout else { return };
        if Some(key) == self.mtrsys {
            if let Some(f) = layout.field("MTRSYS_SYSZONE") {
                if let Some(z) = num(r.bytes, Some(f)) {
                    if z.abs() <= 86_400 {
                        self.zone_s = z as i64;
                    }
                }
            }
        }
        if Some(key) == self.mtrdev {
            let [dev, ty, class, base] = MTRDEV_NAMES.map(|n| num(r.bytes, layout.field(n)));
            if let Some(devno) = dev {
                let base = base.filter(|&b| b != 0 && b != devno).map(|b| b as i64);
                let conf = (ty.map(|x| x as i64), class.map(|x| x as i64), base);
                self.dev_conf.insert(devno as i64, conf);
                self.dev_epoch += 1;
            }
        }
        if Some(key) == self.mtrusr {
            if let Some(u) = text(r.bytes, layout.field("MTRUSR_VMDUSER")) {
                self.user_conf(u, r);
            }
            return;
        }
        if self.info.config.len() < MAX_CONFIG_RECORDS {
            let k = self.keep(r);
            self.info.config.push(k);
        } else {
            self.info.config_dropped += 1;
        }
    }

    fn user_conf(&mut self, userid: String, r: &RecordRef<'_>) {
        let k = self.keep(r);
        match self.info.users_ix.get(&userid) {
            Some(&i) => self.info.users[i] = (userid, k, None),
            None => {
                self.info
                    .users_ix
                    .insert(userid.clone(), self.info.users.len());
                self.info.users.push((userid, k, None));
            }
        }
    }

    /// A logon or logoff: the user's counters start a new generation.
    fn bump_user(&mut self, name: &str) {
        let i = self.user_ids.by_text(name) as usize;
        if self.user_gen.len() <= i {
            self.user_gen.resize(i + 1, 0);
        }
        self.user_gen[i] += 1;
    }

    fn event(&mut self, r: &RecordRef<'_>) {
        let key = Some((r.header.domain, r.header.record));
        let Some(layout) = r.layout else { return };
        let defs = self.ev_res.defs(layout);
        let (user_f, dev_f) = (defs[0].or(defs[1]), defs[2].or(defs[3]));
        if key == self.uselon {
            if let Some(u) = text(r.bytes, user_f) {
                self.bump_user(&u);
                self.user_conf(u, r);
            }
        } else if key == self.uselof {
            if let Some(u) = text(r.bytes, user_f) {
                self.bump_user(&u);
                if let Some(&i) = self.info.users_ix.get(&u) {
                    self.info.users[i].2 = Some(r.header.tod);
                }
            }
        } else if key == self.iodvon || key == self.iodvof {
            if let Some(d) = num(r.bytes, dev_f) {
                *self.dev_gen.entry(d as i64).or_insert(0) += 1;
                self.dev_epoch += 1;
            }
        }
    }

    /// Where an interval lies relative to the window (times rounded to the
    /// second): -1 before, 0 in, 1 after.
    fn window_status(&mut self, start_us: i64, end_us: i64) -> i8 {
        let (from, to) = match self.window {
            Some(w) => w,
            None => {
                // Resolve on the first interval: times of day on its start's date.
                let s1900 = (start_us + EPOCH_1900_US).div_euclid(1_000_000);
                let day = s1900 - s1900.rem_euclid(86_400);
                let from = self.opts.from.map(|t| t.resolve(day));
                let to = self.opts.to.map(|t| t.resolve(day));
                if let (Some(a), Some(b)) = (from, to) {
                    if a >= b {
                        self.info.window_error = true;
                        self.stop = true;
                    }
                }
                self.window = Some((from, to));
                (from, to)
            }
        };
        let round = |us: i64| (us + EPOCH_1900_US + 500_000).div_euclid(1_000_000);
        let (s, e) = (round(start_us), round(end_us));
        if to.is_some_and(|t| e > t) {
            return 1;
        }
        if from.is_some_and(|f| s < f) {
            return -1;
        }
        0
    }

    fn close_set(&mut self, end_tod: u64) {
        let set = std::mem::take(&mut self.set);
        let mut by = std::mem::take(&mut self.set_by);
        self.set_first = None;
        if set.is_empty() {
            self.arena.clear();
            by.iter_mut().for_each(Vec::clear);
            self.set_by = by;
            return;
        }
        self.seq += 1;
        let seq = self.seq;
        let prev_end = self.prev_end.replace(end_tod);
        let end_us = self.local_us(end_tod);
        if self.info.data_start_us.is_none() {
            self.info.data_start_us = Some(end_us);
        }
        self.info.data_end_us = Some(end_us);
        self.info.sets += 1;
        let mut iv: Option<SysRow> = None;
        if let Some(pe) = prev_end {
            if end_tod > pe {
                let start_us = self.local_us(pe);
                let status = self.window_status(start_us, end_us);
                if self.stop || status > 0 {
                    self.stop = true;
                    self.arena.clear();
                    by.iter_mut().for_each(Vec::clear);
                    self.set_by = by;
                    return;
                }
                if status == 0 {
                    let seconds = div_int(end_tod as i128 - pe as i128, TOD_PER_S as i128);
                    let mut v = [f64::NAN; system::N];
                    v[system::seconds] = seconds;
                    v[system::intervals] = 1.0;
                    iv = Some(SysRow {
                        index: self.info.intervals,
                        start_tod: pe,
                        end_tod,
                        start_us,
                        end_us,
                        seconds,
                        v,
                        flags: 0,
                    });
                }
            }
        }
        let arena = std::mem::take(&mut self.arena);
        self.set_flags = 0;
        let view = Set {
            recs: &set,
            by: &by,
        };
        self.cpus(&view, &arena, seq, iv.as_mut());
        self.globals(&view, &arena, seq, iv.as_mut());
        self.lpar(&view, &arena, seq, iv.as_mut());
        self.users(&view, &arena, seq, iv.as_mut());
        if let Some(sys) = iv.as_mut() {
            self.capture_check(&view, sys);
        }
        self.devices(&view, &arena, seq, iv.as_mut());
        self.exposures(&view, &arena, seq, iv.as_mut());
        self.arena = arena;
        self.arena.clear();
        by.iter_mut().for_each(Vec::clear);
        self.set_by = by;
        // the set's buffer is kept for the next set
        let mut set = set;
        set.clear();
        self.set = set;
        if let Some(mut iv) = iv {
            iv.flags = std::mem::take(&mut self.set_flags);
            merge(system::COLS, &mut self.totals.system, &iv.v);
            self.info.intervals += 1;
            self.batch.system.push(iv);
        }
    }

    /// The users' processor time cannot exceed the processors' busy time
    /// (a capture ratio above 1, 5% and 1% of the interval allowed for the
    /// records' different sampling moments): if it does, some user's time is
    /// damaged and which one cannot be told, so the users' time leaves the
    /// system sums of the interval (capture ratio and user T/V unknown there).
    fn capture_check(&mut self, set: &Set<'_>, sys: &mut SysRow) {
        let (tt, cu, cs) = (
            sys.v[system::user_ttime],
            sys.v[system::cpu_user],
            sys.v[system::cpu_sys],
        );
        if tt.is_nan() {
            return;
        }
        if cu.is_nan() || self.set_cpu_bad {
            // A processor's sample was left out (or none came): the users'
            // time has nothing whole to be compared with.
            sys.v[system::user_ttime] = f64::NAN;
            sys.v[system::user_vtime] = f64::NAN;
            return;
        }
        let busy = cu + if cs.is_nan() { 0.0 } else { cs };
        if tt > 1.05 * busy + 0.01 * sys.seconds {
            sys.v[system::user_ttime] = f64::NAN;
            sys.v[system::user_vtime] = f64::NAN;
            if let Some(b) = set.first(Code::Act) {
                let why = format!(
                    "the users' processor time {tt:.1} s is more than the processors were busy ({busy:.1} s)"
                );
                self.implausible(b, "(all users)".into(), why);
            }
        }
    }

    fn cpus(&mut self, set: &Set<'_>, arena: &[u8], seq: u64, mut iv: Option<&mut SysRow>) {
        // Logical processors in this set (their records), for the users' bound.
        let mut cpus_seen = std::mem::take(&mut self.cpus_seen);
        cpus_seen.clear();
        self.set_cpu_bad = false;
        // Per CPU sums of this interval, in first-seen order.
        let mut per = std::mem::take(&mut self.cpu_per);
        per.clear();
        for fam in 0..CPU_FAMILIES {
            let (_, names, cols, _) = CPU_DEFS[fam];
            let mut seen = false;
            for (_, b) in set.of(Code::Cpu(fam as u8)) {
                let rec = &arena[b.at..b.at + b.len];
                let (defs, rl_all, plan) = self.cpu_res[fam].get_ref(b.layout);
                let key: Option<i64> = match defs[0] {
                    None => Some(0),
                    Some(f) => num(rec, Some(f)).map(|x| x as i64),
                };
                let n = if fam == 0 { 5 } else { names.len() - 1 };
                if fam == 0 && !cpus_seen.contains(&key) {
                    cpus_seen.push(key);
                }
                self.vals
                    .read_plan(rec, &defs[1..1 + n], plan.range(1..1 + n));
                let cputy = if fam == 0 { num(rec, defs[6]) } else { None };
                let rl = rl_all.range(1..1 + n);
                let Some(sys) = iv.as_deref_mut() else {
                    self.cpu_tr[fam].note(key, seq, b.tod, (), &mut self.vals);
                    continue;
                };
                let Some(d) =
                    self.cpu_tr[fam].delta(key, seq, b.tod, (), &mut self.vals, rl, &mut self.out)
                else {
                    self.set_flags |= self.cpu_tr[fam].why;
                    if self.cpu_tr[fam].why == IMPLAUSIBLE {
                        self.set_cpu_bad |= fam == 0;
                        let why = Self::rise_reason(&defs[1..1 + n], self.cpu_tr[fam].bad);
                        let k = key.map_or("?".to_string(), |k| k.to_string());
                        self.implausible(b, format!("CPU {k}"), why);
                    }
                    continue;
                };
                if fam == 0 {
                    // A logical CPU's user, system, wait and emulation time
                    // each fit in T (5% and 10 ms for clock jitter).
                    let t = d.seconds;
                    let over = (0..4).find_map(|j| {
                        delta_seconds(d.d[j])
                            .filter(|&v| v > 1.05 * t + 0.01)
                            .map(|v| (j, v))
                    });
                    if let Some((j, v)) = over {
                        let name = defs[1 + j].map_or("?", |f| f.name);
                        let k = key.map_or("?".to_string(), |k| k.to_string());
                        let why = format!("{name} {v:.1} s in an interval of {t:.1} s");
                        self.set_cpu_bad = true;
                        self.implausible(b, format!("CPU {k}"), why);
                        continue;
                    }
                }
                seen = true;
                self.set_flags |= d.flags;
                let i = match per.iter().position(|(k, _, _)| *k == key) {
                    Some(i) => i,
                    None => {
                        per.push((key, [f64::NAN; cpu::N], 0));
                        per.len() - 1
                    }
                };
                per[i].2 |= d.flags;
                let p = &mut per[i].1;
                if fam == 0 {
                    let seconds = d.seconds;
                    p[cpu::seconds] = seconds;
                    if let Some(t) = cputy {
                        if self.cpu_types_seen.insert(key) {
                            self.info.cpu_types.push((key, t as i64));
                        }
                    }
                    let (usr, sys_, wait, emul, spin) = (
                        delta_seconds(d.d[0]),
                        delta_seconds(d.d[1]),
                        delta_seconds(d.d[2]),
                        delta_seconds(d.d[3]),
                        delta_seconds(d.d[4]),
                    );
                    // Busy is the time not waiting, but never more than the
                    // CPU timers counted (user + system): on a shared CEC a
                    // logical CPU PR/SM did not dispatch while it had work
                    // was neither busy nor waiting (the LPAR report's %Susp).
                    let busy = match wait {
                        Some(w) => {
                            let x = seconds - w;
                            let x = if x > 0.0 { x } else { 0.0 };
                            Some(match (usr, sys_) {
                                (Some(u), Some(s)) if u + s < x => u + s,
                                _ => x,
                            })
                        }
                        None => usr.map(|u| u + sys_.unwrap_or(0.0)),
                    };
                    add(&mut sys.v, system::cpu_seconds, Some(seconds));
                    let vals = [
                        (cpu::cpu_busy, system::cpu_busy, busy),
                        (cpu::cpu_user, system::cpu_user, usr),
                        (cpu::cpu_sys, system::cpu_sys, sys_),
                        (cpu::cpu_wait, system::cpu_wait, wait),
                        (cpu::cpu_emul, system::cpu_emul, emul),
                        (cpu::cpu_spin, system::cpu_spin, spin),
                    ];
                    for (c, s, v) in vals {
                        add(p, c, v);
                        add(&mut sys.v, s, v);
                    }
                } else {
                    for (c, v) in cols.iter().zip(d.d) {
                        add(p, *c, delta_f64(*v));
                        add(&mut sys.v, self.cpu_sys[*c], delta_f64(*v));
                    }
                }
            }
            if seen {
                if let Some(sys) = iv.as_deref_mut() {
                    let s = sys.seconds;
                    add(&mut sys.v, CPU_SEC[fam], Some(s));
                }
            }
            if fam == 0 {
                self.set_cpus = cpus_seen.len();
            }
        }
        if let Some(sys) = iv {
            for (key, p, flags) in per.drain(..) {
                self.totals.cpu.merge(cpu::COLS, cpu::SUMS, &key, &p);
                self.batch.cpu.push(Row {
                    interval: sys.index,
                    key,
                    v: p,
                    flags,
                });
            }
        }
        // the (emptied) buffers kept for the next set
        self.cpus_seen = cpus_seen;
        self.cpu_per = per;
    }

    #[allow(clippy::needless_range_loop)]
    fn globals(&mut self, set: &Set<'_>, arena: &[u8], seq: u64, mut iv: Option<&mut SysRow>) {
        for g in 0..GLOBALS {
            let (_, counters, levels, sec, lsec) = GLOBAL_DEFS[g];
            let Some(b) = set.last(Code::Global(g as u8)) else {
                continue;
            };
            let rec = &arena[b.at..b.at + b.len];
            let (defs, rl_all, plan) = self.glob_res[g].get_ref(b.layout);
            let nc = counters.len();
            self.vals.read_plan(rec, &defs[..nc], plan.range(0..nc));
            let rl = rl_all.range(0..nc);
            let Some(sys) = iv.as_deref_mut() else {
                self.glob_tr[g].note((), seq, b.tod, (), &mut self.vals);
                continue;
            };
            let s = sys.seconds;
            if let Some(d) =
                self.glob_tr[g].delta((), seq, b.tod, (), &mut self.vals, rl, &mut self.out)
            {
                self.set_flags |= d.flags;
                add(&mut sys.v, sec, Some(s));
                for ((c, _), v) in counters.iter().zip(d.d) {
                    add(&mut sys.v, *c, delta_f64(*v));
                }
            } else {
                self.set_flags |= self.glob_tr[g].why;
                if self.glob_tr[g].why == IMPLAUSIBLE {
                    let why = Self::rise_reason(&defs[..nc], self.glob_tr[g].bad);
                    self.implausible(b, "the system".into(), why);
                }
            }
            add(&mut sys.v, lsec, Some(s));
            for ((c, _), f) in levels.iter().zip(&defs[nc..]) {
                add_level(&mut sys.v, *c, f64o(num(rec, *f)), s);
            }
        }
        // The LPAR description (last record of the set wins).
        if let Some(b) = set.last(Code::Cug) {
            if b.len > 0 {
                let rec = &arena[b.at..b.at + b.len];
                let defs = self.cug_res.defs(b.layout);
                let c = self.info.cug.get_or_insert_with(CugInfo::default);
                c.partitions = num(rec, defs[0]).map(|x| x as i64);
                c.physical_cpus = num(rec, defs[1]).map(|x| x as i64);
                c.time_slice_ms = num(rec, defs[2]).map(|x| x as i64);
                if c.lpar_name.is_none() {
                    c.lpar_name = text(rec, defs[3]);
                }
            }
        }
    }

    fn lpar(&mut self, set: &Set<'_>, arena: &[u8], seq: u64, iv: Option<&mut SysRow>) {
        let index = iv.as_ref().map(|s| s.index);
        let mut per: Vec<(LparKey, [f64; lpar::N], u8)> = Vec::new();
        for (_, b) in set.of(Code::Cup) {
            let rec = &arena[b.at..b.at + b.len];
            let (defs, rl_all, _) = self.cup_res.get_ref(b.layout);
            let number = num(rec, defs[1]).map(|x| x as i64);
            let pname = text(rec, defs[0]).unwrap_or_else(|| match number {
                Some(n) => format!("LP{n}"),
                None => "LPNone".to_string(),
            });
            let pi = slot(&mut self.info.lpars, &mut self.info.lpars_ix, &pname);
            {
                let info = &mut self.info.lpars[pi].1;
                info.number = number;
                info.logical_cpus = num(rec, defs[2]).map(|x| x as i64);
                info.weight = None;
                info.dedicated = None;
                info.cpu_type = text(rec, defs[3]);
            }
            let g = &defs[CUP_NAMES.len()..];
            let rl = rl_all.range(CUP_NAMES.len() + 3..CUP_NAMES.len() + 5);
            for entry in group_entries(rec, b.layout) {
                let cpu_ = num(entry, g[0]).map(|x| x as i64);
                let (w, t) = (num(entry, g[1]).map(|x| x as i64), text(entry, g[2]));
                let lc = &mut self.info.lpars[pi].1.lcpus;
                match lc.iter_mut().find(|e| e.0 == cpu_) {
                    Some(e) => *e = (cpu_, w, t),
                    None => lc.push((cpu_, w, t)),
                }
                let key = (pname.clone(), cpu_);
                self.vals.read(entry, &g[3..5]);
                if index.is_none() {
                    self.lcpu_tr.note(key, seq, b.tod, (), &mut self.vals);
                    continue;
                }
                let Some(d) = self.lcpu_tr.delta(
                    key.clone(),
                    seq,
                    b.tod,
                    (),
                    &mut self.vals,
                    rl,
                    &mut self.out,
                ) else {
                    self.set_flags |= self.lcpu_tr.why;
                    if self.lcpu_tr.why == IMPLAUSIBLE {
                        let why = Self::rise_reason(&g[3..5], self.lcpu_tr.bad);
                        let c = cpu_.map_or("?".to_string(), |c| c.to_string());
                        self.implausible(b, format!("logical CPU {c} of {pname}"), why);
                    }
                    continue;
                };
                let flags = d.flags;
                self.set_flags |= flags;
                let mut raw = [f64::NAN; lpar::N];
                raw[lpar::seconds] = d.seconds;
                add(&mut raw, lpar::dispatch, delta_seconds(d.d[0]));
                add(&mut raw, lpar::overhead, delta_seconds(d.d[1]));
                self.totals.lpar.merge(lpar::COLS, lpar::SUMS, &key, &raw);
                match per.iter_mut().find(|(k, _, _)| *k == key) {
                    Some(e) => {
                        e.1 = raw;
                        e.2 |= flags;
                    }
                    None => per.push((key, raw, flags)),
                }
            }
        }
        if let Some(index) = index {
            for (key, v, flags) in per {
                self.batch.lpar.push(Row {
                    interval: index,
                    key,
                    v,
                    flags,
                });
            }
        }
    }

    fn users(&mut self, set: &Set<'_>, arena: &[u8], seq: u64, mut iv: Option<&mut SysRow>) {
        // Records per user, users in the order of their first record (activity first).
        let mut order = std::mem::take(&mut self.u_order);
        order.clear();
        let mut any = false;
        for pass in [Code::Act, Code::Hf] {
            for (i, b) in set.of(pass) {
                any = true;
                let rec = &arena[b.at..b.at + b.len];
                let defs = if pass == Code::Act {
                    self.act_res.defs(b.layout)
                } else {
                    self.hf_res.defs(b.layout)
                };
                let Some(u) = raw_bytes(rec, defs[0]).and_then(|r| self.user_ids.by_raw(r)) else {
                    continue;
                };
                let u = u as usize;
                if self.u_act.len() <= u {
                    self.u_act.resize_with(u + 1, Vec::new);
                    self.u_hf.resize_with(u + 1, Vec::new);
                    self.u_hint.resize_with(u + 1, UserHints::default);
                }
                if self.u_act[u].is_empty() && self.u_hf[u].is_empty() {
                    order.push(u as u32);
                }
                if pass == Code::Act {
                    self.u_act[u].push(i);
                } else {
                    self.u_hf[u].push(i);
                }
            }
        }
        if !any {
            self.u_order = order;
            return;
        }
        if let Some(sys) = iv.as_deref_mut() {
            let s = sys.seconds;
            add(&mut sys.v, system::sec_users, Some(s));
            add(
                &mut sys.v,
                system::users_logged,
                Some(order.len() as f64 * s),
            );
        }
        let mut active = 0u64;
        // The system's user columns, summed here per user column in the
        // users' order (as `add` into the system row would) and put back
        // into the system row once for the set.
        let mut usum = [f64::NAN; user::N];
        if let Some(sys) = iv.as_deref() {
            for &(k, sk) in SYS_USER_KEYS.iter().chain(SYS_LEVEL_KEYS) {
                usum[k] = sys.v[sk];
            }
        }
        for &uid in &order {
            let u = uid as usize;
            let gen = self.user_gen.get(u).copied().unwrap_or(0);
            let recs = std::mem::take(&mut self.u_act[u]);
            let hfs = std::mem::take(&mut self.u_hf[u]);
            let mut raw = [f64::NAN; user::N];
            let mut uflags = 0u8;
            let mut seconds: Option<f64> = None;
            // the base record: the lowest virtual CPU address (first of equals)
            let mut base: Option<usize> = None;
            let mut base_cpu = 0i128;
            for &i in &recs {
                let b = set.get(i);
                let rec = &arena[b.at..b.at + b.len];
                let defs = self.act_res.defs(b.layout);
                let c = num(rec, defs[1]).unwrap_or(0);
                if base.is_none() || c < base_cpu {
                    base = Some(i);
                    base_cpu = c;
                }
            }
            for (j, &i) in recs.iter().enumerate() {
                let b = *set.get(i);
                let rec = &arena[b.at..b.at + b.len];
                let (defs, rl, plan) = self.act_res.get_ref(b.layout);
                let key = (uid, num(rec, defs[1]).map(|x| x as i64));
                let g = (gen, num(rec, defs[2]).map(|t| t / 4096));
                self.vals.read_plan(rec, &defs[3..6], plan.range(3..6));
                let hint = hint_at(&mut self.u_hint[u].act, j);
                if iv.is_none() {
                    self.act_time
                        .note_at(hint, key, seq, b.tod, g, &mut self.vals);
                    continue;
                }
                let Some(d) = self.act_time.delta_at(
                    hint,
                    key,
                    seq,
                    b.tod,
                    g,
                    &mut self.vals,
                    rl.range(3..6),
                    &mut self.out,
                ) else {
                    self.set_flags |= self.act_time.why;
                    if self.act_time.why == IMPLAUSIBLE {
                        let why = Self::rise_reason(&defs[3..6], self.act_time.bad);
                        let who = format!("user {}", self.user_ids.names[u]);
                        self.implausible(&b, who, why);
                    }
                    continue;
                };
                let (t, dflags) = (d.seconds, d.flags);
                let (ttime, vtime, vio) = (
                    delta_seconds(d.d[0]),
                    delta_seconds(d.d[1]),
                    delta_f64(d.d[2]),
                );
                // A virtual CPU's processor time cannot exceed what the
                // logical processors give in T (5% for clock jitter).
                let cpus = if self.set_cpus == 0 {
                    64
                } else {
                    self.set_cpus
                };
                if let Some(tt) = ttime.filter(|&tt| tt > 1.05 * t * cpus as f64 + 0.01) {
                    let who = format!("user {}", self.user_ids.names[u]);
                    let why = format!(
                        "{:.1} s of processor time in {t:.1} s with {cpus} processor(s)",
                        tt
                    );
                    self.implausible(&b, who, why);
                    continue;
                }
                uflags |= dflags;
                seconds = seconds.or(Some(t));
                add(&mut raw, user::vcpu_seconds, Some(t));
                add(&mut raw, user::ttime, ttime);
                add(&mut raw, user::vtime, vtime);
                add(&mut raw, user::virtual_io, vio);
            }
            let mut base_on: Option<i128> = None;
            if let Some(bi) = base {
                let b = *set.get(bi);
                let rec = &arena[b.at..b.at + b.len];
                let (defs, rl, plan) = self.act_res.get_ref(b.layout);
                base_on = num(rec, defs[2]).map(|t| t / 4096);
                let g = (gen, base_on);
                self.vals.read_plan(rec, &defs[6..13], plan.range(6..13));
                let hint = &mut self.u_hint[u].store;
                let store = if iv.is_none() {
                    self.act_store
                        .note_at(hint, uid, seq, b.tod, g, &mut self.vals);
                    None
                } else {
                    let d = self.act_store.delta_at(
                        hint,
                        uid,
                        seq,
                        b.tod,
                        g,
                        &mut self.vals,
                        rl.range(6..13),
                        &mut self.out,
                    );
                    if d.is_none() && self.act_store.why == IMPLAUSIBLE {
                        let why = Self::rise_reason(&defs[6..13], self.act_store.bad);
                        let who = format!("user {}", self.user_ids.names[u]);
                        self.implausible(&b, who, why);
                        None
                    } else {
                        d.map(|d| (d.seconds, d.flags))
                    }
                };
                if let Some((s, dflags)) = store {
                    uflags |= dflags;
                    seconds = seconds.or(Some(s));
                    raw[user::store_seconds] = s;
                    for (c, v) in ACT_STORE_COLS.iter().zip(&self.out) {
                        add(&mut raw, *c, delta_f64(*v));
                    }
                    for (c, f) in ACT_LEVEL_COLS.iter().zip(&defs[13..20]) {
                        if let Some(v) = num(rec, *f) {
                            raw[*c] = to_f64(v) * s;
                        }
                    }
                }
            }
            let hgen = (gen, base_on);
            for (j, &i) in hfs.iter().enumerate() {
                let b = *set.get(i);
                let rec = &arena[b.at..b.at + b.len];
                let (defs, rl, plan) = self.hf_res.get_ref(b.layout);
                let key = (uid, num(rec, defs[1]).map(|x| x as i64));
                self.vals.read_plan(rec, &defs[2..], plan.from(2));
                let hint = hint_at(&mut self.u_hint[u].hf, j);
                if iv.is_none() {
                    self.hf_tr
                        .note_at(hint, key, seq, b.tod, hgen, &mut self.vals);
                    continue;
                }
                let Some(d) = self.hf_tr.delta_at(
                    hint,
                    key,
                    seq,
                    b.tod,
                    hgen,
                    &mut self.vals,
                    rl.from(2),
                    &mut self.out,
                ) else {
                    self.set_flags |= self.hf_tr.why;
                    if self.hf_tr.why == IMPLAUSIBLE {
                        let why = Self::rise_reason(&defs[2..], self.hf_tr.bad);
                        let who = format!("user {}", self.user_ids.names[u]);
                        self.implausible(&b, who, why);
                    }
                    continue;
                };
                uflags |= d.flags;
                seconds = seconds.or(Some(d.seconds));
                // HF_COLS: the user columns from hf_total one to one, then
                // four into hf_e (HF_ONE_TO_ONE); absent deltas add nothing.
                let d = &d.d[..d.d.len().min(HF_COLS.len())];
                let (one, e) = d.split_at(d.len().min(HF_ONE_TO_ONE));
                add_deltas(
                    &mut raw[user::hf_total..user::hf_total + HF_ONE_TO_ONE],
                    one,
                );
                for &v in e {
                    add(&mut raw, user::hf_e, delta_f64(v));
                }
            }
            // give the (now empty) buffers back for the next set
            self.u_act[u] = recs;
            self.u_act[u].clear();
            self.u_hf[u] = hfs;
            self.u_hf[u].clear();
            let (Some(sys), Some(seconds)) = (iv.as_deref_mut(), seconds) else {
                continue;
            };
            raw[user::seconds] = seconds;
            raw[user::intervals] = 1.0;
            let pos = |v: f64| !v.is_nan() && v > 0.0;
            if pos(raw[user::ttime]) || pos(raw[user::hf_queue]) {
                active += 1;
                raw[user::active_seconds] = seconds;
            }
            self.totals.user.merge_at(
                &mut self.u_hint[u].total,
                user::COLS,
                user::SUMS,
                &uid,
                &raw,
            );
            let s = sys.seconds;
            add(&mut sys.v, system::users_counted, Some(s));
            // The level columns are present only with store_seconds (a
            // store delta sets them all), so every present column adds.
            add_row(&mut usum, &raw);
            if !raw[user::store_seconds].is_nan() {
                add(&mut sys.v, system::users_store_n, Some(s));
            }
            self.set_flags |= uflags;
            if self.opts.users.wants(&self.user_ids.names[u]) {
                self.batch.user.push(Row {
                    interval: sys.index,
                    key: uid,
                    v: raw,
                    flags: uflags,
                });
            }
        }
        if let Some(sys) = iv {
            let s = sys.seconds;
            add(&mut sys.v, system::users_active, Some(active as f64 * s));
            for &(k, sk) in SYS_USER_KEYS.iter().chain(SYS_LEVEL_KEYS) {
                sys.v[sk] = usum[k];
            }
        }
        self.u_order = order;
    }

    fn devices(&mut self, set: &Set<'_>, arena: &[u8], seq: u64, mut iv: Option<&mut SysRow>) {
        let mut seen = false;
        // MRIODDEV does not carry the number of high-frequency samples: the
        // processors' of this interval (PRCPRP_HFCOUNT), as the CPU rows have it.
        let hf_samples: Option<i128> = iv.as_deref().and_then(|sys| {
            let m = self
                .batch
                .cpu
                .iter()
                .rev()
                .take_while(|r| r.interval == sys.index)
                .map(|r| r.v[cpu::hf_count])
                .filter(|x| !x.is_nan())
                .fold(0.0f64, f64::max);
            (m > 0.0).then_some(m as i128)
        });
        let hf_samples = f64o(hf_samples);
        let mut hints = std::mem::take(&mut self.dev_hint);
        for (j, (_, b)) in set.of(Code::Dev).enumerate() {
            let rec = &arena[b.at..b.at + b.len];
            let (defs, rl_all, plan) = self.dev_res.get_ref(b.layout);
            let Some(devno) = num(rec, defs[0]).map(|x| x as i64) else {
                continue;
            };
            if hints.len() <= j {
                hints.resize(j + 1, DevHint::default());
            }
            let h = &mut hints[j];
            let known = h.devno == Some(devno)
                && h.epoch == self.dev_epoch
                && self.info.devices.get(h.info).is_some_and(|d| d.0 == devno);
            if !known {
                h.devno = Some(devno);
                h.epoch = self.dev_epoch;
                h.gen = self.dev_gen.get(&devno).copied().unwrap_or(0);
                h.info = slot(&mut self.info.devices, &mut self.info.devices_ix, &devno);
                h.conf = self
                    .dev_conf
                    .get(&devno)
                    .copied()
                    .unwrap_or((None, None, None));
            }
            let (gen, di) = (h.gen, h.info);
            let (type_code, dev_class, base) = h.conf;
            {
                let info = &mut self.info.devices[di].1;
                info.type_code = type_code;
                info.dev_class = dev_class;
                info.base = base;
                // MRIODDEV has no device flags (IODDEV_CALFLAGS is not in the record).
                info.flags = None;
                // the volser's text is decoded when asked for ([`Info::resolve`]);
                // here only its bytes are kept when they change
                info.dirty |= changed(&mut info.raw_volser, text_bytes(rec, defs[1]));
            }
            self.vals
                .read_plan(rec, &defs[DEV_COUNTERS..], plan.from(DEV_COUNTERS));
            let Some(sys) = iv.as_deref_mut() else {
                self.dev_tr
                    .note_at(&mut h.tr, devno, seq, b.tod, gen, &mut self.vals);
                continue;
            };
            let rl = rl_all.from(DEV_COUNTERS);
            let Some(d) = self.dev_tr.delta_at(
                &mut h.tr,
                devno,
                seq,
                b.tod,
                gen,
                &mut self.vals,
                rl,
                &mut self.out,
            ) else {
                self.set_flags |= self.dev_tr.why;
                if self.dev_tr.why == IMPLAUSIBLE {
                    let why = Self::rise_reason(&defs[DEV_COUNTERS..], self.dev_tr.bad);
                    self.implausible(b, format!("device {devno:04X}"), why);
                }
                continue;
            };
            seen = true;
            let flags = d.flags;
            self.set_flags |= flags;
            // as doubles (each delta an integer in 0..=i64::MAX: what `f64o`
            // gives it), converted once
            let dd: [Option<f64>; 13] =
                std::array::from_fn(|i| d.d.get(i).copied().and_then(delta_f64));
            let (hfqueue, hfbusy, scmssch, scmcount) = (dd[0], dd[1], dd[2], dd[3]);
            let (conn, pend, disc, cuq, scgssch, scgcount, mdc) =
                (dd[4], dd[5], dd[6], dd[7], dd[8], dd[9], dd[10]);
            let (pav_uses, pav_inelig) = (dd[11], dd[12]);
            let rdevssch: Option<f64> = None;
            let cur_scgssch = num(rec, defs[DEV_COUNTERS + 8]).unwrap_or(0);
            let cur_scgcount = num(rec, defs[DEV_COUNTERS + 9]).unwrap_or(0);
            let mut raw = [f64::NAN; device::N];
            raw[device::seconds] = d.seconds;
            let mut ssch = if cur_scgssch != 0 && scgssch.is_some() {
                scgssch
            } else {
                scmssch
            };
            if ssch.is_none() {
                ssch = rdevssch;
            }
            let mut count = if cur_scgcount != 0 && scgcount.is_some() {
                scgcount
            } else {
                scmcount
            };
            if count.is_none() {
                count = ssch;
            }
            add(&mut raw, device::ssch, ssch);
            add(&mut raw, device::measured, count);
            add(&mut raw, device::conn, conn);
            add(&mut raw, device::pend, pend);
            add(&mut raw, device::disc, disc);
            add(&mut raw, device::cuq, cuq);
            add(&mut raw, device::hf_count, hf_samples);
            add(&mut raw, device::hf_queue, hfqueue);
            add(&mut raw, device::hf_busy, hfbusy);
            add(&mut raw, device::mdc_hits, mdc);
            add(&mut raw, device::pav_uses, pav_uses);
            add(&mut raw, device::pav_inelig, pav_inelig);
            raw[device::intervals] = 1.0;
            if let Some(why) = device_implausible(&raw) {
                self.implausible(b, format!("device {devno:04X}"), why);
                continue;
            }
            self.totals
                .device
                .merge_at(&mut h.total, device::COLS, device::SUMS, &devno, &raw);
            if dev_class.is_none() || dev_class == Some(0x04) {
                let (resp, serv) = device_resp_serv(&raw);
                let io = if raw[device::ssch].is_nan() {
                    0.0
                } else {
                    raw[device::ssch]
                };
                add(&mut sys.v, system::dasd_ssch, Some(io));
                let s = sys.seconds;
                add(&mut sys.v, system::dasd_devices, Some(s));
                if io != 0.0 {
                    if let Some(resp) = resp {
                        add(&mut sys.v, system::dasd_resp_x_io, Some(resp * io));
                        add(&mut sys.v, system::dasd_serv_x_io, serv.map(|sv| sv * io));
                        add(&mut sys.v, system::dasd_resp_io, Some(io));
                    }
                }
            }
            if self.opts.devices.wants(&devno) {
                self.batch.device.push(Row {
                    interval: sys.index,
                    key: devno,
                    v: raw,
                    flags,
                });
            }
        }
        self.dev_hint = hints;
        if seen {
            if let Some(sys) = iv {
                let s = sys.seconds;
                add(&mut sys.v, system::sec_MRIODDEV, Some(s));
            }
        }
    }

    fn exposures(&mut self, set: &Set<'_>, arena: &[u8], seq: u64, mut iv: Option<&mut SysRow>) {
        let mut seen = false;
        for (_, b) in set.of(Code::Asp) {
            let rec = &arena[b.at..b.at + b.len];
            let (defs, rl_all, plan) = self.asp_res.get_ref(b.layout);
            let Some(devno) = num(rec, defs[0]).map(|x| x as i64) else {
                continue;
            };
            let ei = slot(
                &mut self.info.exposures,
                &mut self.info.exposures_ix,
                &devno,
            );
            let levels: [Option<i128>; 5] = std::array::from_fn(|i| num(rec, defs[9 + i]));
            {
                let e = &mut self.info.exposures[ei].1;
                e.flags = bits_int(rec, defs[1]).map(|x| x as i64);
                e.page_slots = levels[3].map(|x| x as i64);
                e.spool_slots = levels[4].map(|x| x as i64);
                if changed(&mut e.raw, text_bytes(rec, defs[2])) {
                    e.dirty = true;
                }
            }
            let gen = self.dev_gen.get(&devno).copied().unwrap_or(0);
            self.vals.read_plan(rec, &defs[3..9], plan.range(3..9));
            let Some(sys) = iv.as_deref_mut() else {
                self.asp_tr.note(devno, seq, b.tod, gen, &mut self.vals);
                continue;
            };
            let rl = rl_all.range(3..9);
            let Some(d) =
                self.asp_tr
                    .delta(devno, seq, b.tod, gen, &mut self.vals, rl, &mut self.out)
            else {
                self.set_flags |= self.asp_tr.why;
                if self.asp_tr.why == IMPLAUSIBLE {
                    let why = Self::rise_reason(&defs[3..9], self.asp_tr.bad);
                    self.implausible(b, format!("paging exposure {devno:04X}"), why);
                }
                continue;
            };
            seen = true;
            let flags = d.flags;
            self.set_flags |= flags;
            let seconds = d.seconds;
            let dd: [Option<i128>; 6] = std::array::from_fn(|i| given(d.d[i]).map(i128::from));
            let (srd, swr, prd, pwr, scm, scg) = (dd[0], dd[1], dd[2], dd[3], dd[4], dd[5]);
            let mut raw = [f64::NAN; exposure::N];
            raw[exposure::seconds] = seconds;
            raw[exposure::intervals] = 1.0;
            add(&mut raw, exposure::ssch_reads, f64o(srd));
            add(&mut raw, exposure::ssch_writes, f64o(swr));
            add(&mut raw, exposure::page_reads, f64o(prd));
            add(&mut raw, exposure::page_writes, f64o(pwr));
            let cur_scg = num(rec, defs[8]).unwrap_or(0);
            let mut ssch = if cur_scg != 0 && scg.is_some() {
                scg
            } else {
                scm
            };
            if ssch.is_none() {
                if let (Some(a), Some(b)) = (srd, swr) {
                    ssch = Some(a + b);
                }
            }
            add(&mut raw, exposure::ssch, f64o(ssch));
            for (c, v) in ASP_LEVEL_COLS.iter().zip(&levels) {
                add_level(&mut raw, *c, f64o(*v), seconds);
            }
            self.totals
                .exposure
                .merge(exposure::COLS, exposure::SUMS, &devno, &raw);
            for (c, s) in [
                (exposure::ssch_reads, system::exp_ssch_reads),
                (exposure::ssch_writes, system::exp_ssch_writes),
                (exposure::page_reads, system::exp_page_reads),
                (exposure::page_writes, system::exp_page_writes),
                (exposure::ssch, system::exp_ssch),
            ] {
                add(&mut sys.v, s, opt(raw[c]));
            }
            if self.opts.exposures.wants(&devno) {
                self.batch.exposure.push(Row {
                    interval: sys.index,
                    key: devno,
                    v: raw,
                    flags,
                });
            }
        }
        if seen {
            if let Some(sys) = iv {
                let s = sys.seconds;
                add(&mut sys.v, system::sec_MRSTOASP, Some(s));
            }
        }
    }
}

/// The system column a per-CPU counter column adds into (same name).
fn cpu_to_system(c: usize) -> usize {
    let name = cpu::COLS[c].name;
    schema::index_of(system::COLS, name).unwrap_or(system::seconds)
}

/// Field names of the global records: counters, then levels.
static GLOBAL_NAMES: [&[&str]; GLOBALS] = [
    &[
        "SYTRSG_RSAFRQWT",
        "SYTRSG_RSAAVAIL",
        "SYTRSG_RSAPGABL",
        "SYTRSG_RSACPLOK",
        "SYTRSG_RSANONPG",
        "SYTRSG_RSASAVFR",
        "SYTRSG_SYSRSVPG",
    ],
    &[
        "STORSG_RSAEMERG",
        "STORSG_RSAEMPTY",
        "STORSG_RSAFRQWT",
        "STORSG_RSASTLWT",
        "STORSG_RSAAVLLT",
        "STORSG_RSAAVLHT",
        "STORSG_RSAAVLLG",
        "STORSG_RSAAVLHG",
        "STORSG_RSAMAXPP",
    ],
    &[
        "SYTASG_CAL90FUL",
        "SYTASG_CALSLTA1",
        "SYTASG_CALSLTI1",
        "SYTASG_CALSLTA2",
        "SYTASG_CALSLTI2",
        "SYTASG_CALDMPAV",
        "SYTASG_CALDMPIU",
    ],
    &[
        "SYTUWT_CALTIDL",
        "SYTUWT_CALTSVM",
        "SYTUWT_CALIOWT",
        "SYTUWT_CALWTPAG",
        "SYTUWT_CALCFWT",
        "SYTUWT_CALSIMWT",
        "SYTUWT_CALCPUWT",
        "SYTUWT_CALCPURN",
        "SYTUWT_CALOTHR",
        "SYTUWT_CALQDISP",
        "SYTUWT_CALELSVM",
        "SYTUWT_CALIOACT",
        "SYTUWT_CALLLIST",
        "SYTUWT_SRMCELIG",
    ],
    &[
        "SYTXSG_XSTXBGET",
        "SYTXSG_XSTXBREL",
        "SYTXSG_XSTCTXAV",
        "SYTXSG_XSTCPPAR",
    ],
    &["STOXSG_XSTMIGS", "STOXSG_XSTSUMAG", "STOXSG_XSTLOTHR"],
];

const EVENT_NAMES: &[&str] = &[
    "USELON_VMDUSER",
    "USELOF_VMDUSER",
    "IODVON_RDEVDEV",
    "IODVOF_RDEVDEV",
];

/// Every field the kernel reads, by IBM name (`PREFIX_FIELD`, in record
/// `MR` + `PREFIX`), in the order of its name lists, each once. The domain 1
/// configuration records (`CONFIG_NAMES`) are handed to the caller whole:
/// the fields read from them are the caller's.
pub fn fields_read() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    let lists = CPU_DEFS
        .iter()
        .map(|d| d.1)
        .chain(GLOBAL_NAMES.iter().copied())
        .chain([
            ACT_NAMES,
            HF_NAMES,
            DEV_NAMES,
            &MTRDEV_NAMES[..],
            ASP_NAMES,
            CUP_NAMES,
            CUP_GROUP,
            CUG_NAMES,
            EVENT_NAMES,
            &["MTRSYS_SYSZONE", "MTRUSR_VMDUSER"][..],
        ]);
    for list in lists {
        for &n in list {
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out
}

/// The records the kernel reads (IBM names), configuration records included.
pub fn records_read() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = CPU_DEFS.iter().map(|d| d.0).collect();
    out.extend(GLOBAL_DEFS.iter().map(|d| d.0));
    out.extend([
        "MRSYTCUP", "MRSYTCUG", "MRUSEACT", "MRUSEINT", "MRIODDEV", "MRSTOASP", "MRUSELON",
        "MRUSELOF", "MRIODVON", "MRIODVOF",
    ]);
    out.extend(CONFIG_NAMES.iter().copied());
    out
}

/// A layout for sample records the kernel does not read (never decoded).
static NO_LAYOUT: &RecordLayout = &RecordLayout {
    domain: 255,
    record: 65535,
    name: "",
    kind: ztwin_monitor::layout::RecordKind::Sample,
    since: ztwin_monitor::layout::Release(0, 0),
    size: 0,
    src: ztwin_monitor::layout::Confidence::Inferred,
    fields: &[],
    group: None,
    seen: &[],
    source: "",
    note: "",
};

#[cfg(test)]
mod reads_tests {
    use super::*;
    use ztwin_monitor::layout::by_name;

    /// `Keyed::merge_at` gives `merge`'s rows and index whatever the hint
    /// holds, and leaves it on the key's row.
    #[test]
    fn merge_at_is_merge() {
        let cols = user::COLS;
        let mut plain: Keyed<u32, { user::N }> = Keyed::default();
        let mut hinted: Keyed<u32, { user::N }> = Keyed::default();
        let mut hints = [NO_HINT; 4];
        for n in 0..60u32 {
            let key = (n * 7) % 4;
            let mut v = [f64::NAN; user::N];
            v[(n as usize) % user::N] = n as f64;
            v[user::seconds] = 60.0;
            plain.merge(cols, user::SUMS, &key, &v);
            let h = &mut hints[key as usize];
            match n % 3 {
                0 => *h = (key + 1) % 4,
                1 => *h = 999,
                _ => {}
            }
            hinted.merge_at(h, cols, user::SUMS, &key, &v);
            assert_eq!(hinted.rows[*h as usize].0, key);
        }
        assert_eq!(plain.index, hinted.index);
        assert_eq!(plain.rows.len(), hinted.rows.len());
        for (a, b) in plain.rows.iter().zip(&hinted.rows) {
            assert_eq!(a.0, b.0);
            assert_eq!(a.1.map(f64::to_bits), b.1.map(f64::to_bits));
        }
    }

    /// The users' system columns are gathered and put back by their user
    /// column: each user column and each system column once.
    #[test]
    fn sys_user_keys_are_one_to_one() {
        let keys: Vec<_> = SYS_USER_KEYS.iter().chain(SYS_LEVEL_KEYS).collect();
        let users: HashSet<usize> = keys.iter().map(|k| k.0).collect();
        let systems: HashSet<usize> = keys.iter().map(|k| k.1).collect();
        assert_eq!((users.len(), systems.len()), (keys.len(), keys.len()));
    }

    /// Each code has its own bucket of a set, and a set's buckets hold
    /// each record of their code in file order.
    #[test]
    fn set_buckets_are_one_per_code() {
        let mut codes: Vec<Code> = (0..CPU_FAMILIES as u8).map(Code::Cpu).collect();
        codes.extend((0..GLOBALS as u8).map(Code::Global));
        codes.extend([
            Code::Cup,
            Code::Cug,
            Code::Act,
            Code::Hf,
            Code::Dev,
            Code::Asp,
            Code::Other,
            Code::Config,
        ]);
        let slots: HashSet<usize> = codes.iter().map(|c| c.slot()).collect();
        assert_eq!(slots.len(), codes.len());
        assert!(slots.iter().all(|&s| s < CODE_SLOTS));
        let b = Buffered {
            tod: 0,
            at: 0,
            len: 0,
            layout: NO_LAYOUT,
            offset: 0,
        };
        let recs: Vec<(Code, Buffered)> = [Code::Act, Code::Dev, Code::Act, Code::Hf, Code::Act]
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                (
                    c,
                    Buffered {
                        offset: i as u64,
                        ..b
                    },
                )
            })
            .collect();
        let mut by = vec![Vec::new(); CODE_SLOTS];
        for (i, (c, _)) in recs.iter().enumerate() {
            by[c.slot()].push(i as u32);
        }
        let set = Set {
            recs: &recs,
            by: &by,
        };
        let acts: Vec<(usize, u64)> = set.of(Code::Act).map(|(i, b)| (i, b.offset)).collect();
        assert_eq!(acts, [(0, 0), (2, 2), (4, 4)]);
        assert_eq!(set.first(Code::Act).map(|b| b.offset), Some(0));
        assert_eq!(set.last(Code::Act).map(|b| b.offset), Some(4));
        assert_eq!(set.last(Code::Asp).map(|b| b.offset), None);
        assert_eq!(set.get(3).offset, 3);
    }

    /// Every name the kernel reads is a field of its record (`MR` + prefix),
    /// in a group entry or the fixed part, and its record is one the kernel
    /// lists as read.
    #[test]
    fn fields_read_name_fields_of_records_read() {
        let records = records_read();
        let fields = fields_read();
        assert!(fields.len() > 100, "{}", fields.len());
        for f in &fields {
            let (prefix, _) = f.split_once('_').expect("PREFIX_FIELD");
            let rec = format!("MR{prefix}");
            assert!(
                records.contains(&rec.as_str()),
                "{f}: {rec} not in records_read"
            );
            let l = by_name(&rec).unwrap_or_else(|| panic!("{f}: no layout {rec}"));
            let in_group = l
                .group
                .as_ref()
                .is_some_and(|g| g.fields.iter().any(|x| x.name == *f));
            assert!(
                l.field(f).is_some() || in_group,
                "{f}: not a field of {rec}"
            );
        }
        let mut sorted = fields.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), fields.len(), "a field listed twice");
    }

    /// An ignored record is not read: its code is gone, as if no layout had it.
    #[test]
    fn ignored_records_are_not_read() {
        let key = |n: &str| by_name(n).map(key_of).unwrap();
        let all = Kernel::new(Options::default());
        let some = Kernel::new(Options {
            ignore: vec!["MRUSEINT".into(), "mrmtrsys".into(), "MRUSELON".into()],
            ..Options::default()
        });
        assert_eq!(all.codes.get(key("MRUSEINT")), Some(Code::Hf));
        assert_eq!(some.codes.get(key("MRUSEINT")), None);
        assert_eq!(some.codes.get(key("MRMTRSYS")), None);
        assert_eq!(some.codes.get(key("MRUSEACT")), Some(Code::Act));
        assert!(all.uselon.is_some() && some.uselon.is_none());
        assert_eq!(some.mtrsys, None);
    }
}
