//! The workload component's parameters: the workloads a `[[guest]]` group or
//! a timeline `start` names (`workload = { type = ... }`), their bounds
//! ([`Workload::validate`]), and its share of `[cp_costs]` ([`Params`]).

use super::Costs;
use crate::core::units::{Duration, Size, MS, US};
use crate::core::{check_cost_us, invalid, us_to_ns, Invalid};
use crate::model::io::params::parse_devno;
use serde::Deserialize;

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
        /// Pages per second the guest writes into the rest of its virtual
        /// storage (after `area`), page by page, until all of it has been
        /// written once: Linux filling its page cache (0: off).
        #[serde(default)]
        fill_rate: f64,
        /// Once filled, pages per second the guest writes again, oldest first
        /// (in fill order, wrapping): Linux reusing its least recently used
        /// page-cache pages for new data.
        #[serde(default)]
        reuse_rate: f64,
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
        /// Empty when `volumes` spreads the I/O.
        #[serde(default)]
        device: String,
        /// The I/O spread over several volumes (in place of `device`): each
        /// I/O goes to one of them at random, in proportion to its `share`
        /// (a guest whose data sits on many volumes: FCX108's I/O rate per
        /// volume). Each entry covers `count` volumes from `device` on.
        #[serde(default)]
        volumes: Vec<VolumeShare>,
        /// Think time between I/Os.
        #[serde(default)]
        think: Duration,
        #[serde(default = "one")]
        pages_per_io: u32,
        /// Guest CPU per I/O; more than a time slice runs over several.
        #[serde(default = "t_cpu")]
        cpu_per_io_us: f64,
        /// The guest waits for its I/O in an enabled wait state (Linux: the
        /// SSCH completes at once and the virtual CPU loads a wait PSW until
        /// the I/O interrupt): CP finds it idle (test idle while in the
        /// dispatch list), not in I/O wait. Off: CMS's synchronous I/O wait.
        #[serde(default)]
        enabled_wait: bool,
        /// As for the thrasher: CP time per unit of virtual time (work the
        /// model does not detail), besides the virtual I/O's own CP cost.
        #[serde(default)]
        cp_overhead: f64,
    },
    /// CMS file I/O to a minidisk through CP's virtual I/O (and the minidisk
    /// cache when it is on): one virtual CPU reads (and writes) blocks, one
    /// I/O at a time.
    Cms {
        /// Device number (hex) of a `[[dasd]]` volume; with a trailing `+`,
        /// member k of a guest group uses the k-th volume from there.
        device: String,
        /// The minidisk: its size (4 KB blocks). Members of a group sharing a
        /// volume get consecutive minidisks on it.
        minidisk: Size,
        /// `file`: read a file of `file_blocks` blocks from its first block to
        /// its last, again and again (XEDIT loading a file); `random`: blocks
        /// anywhere in the minidisk, the first `hot_fraction` of it receiving
        /// `hot_share` of them (a database).
        #[serde(default = "cms_file")]
        access: CmsAccess,
        #[serde(default = "hundred")]
        file_blocks: u32,
        /// 4 KB blocks per I/O.
        #[serde(default = "one")]
        blocks_per_io: u32,
        /// Share of the I/Os that write.
        #[serde(default)]
        write_share: f64,
        #[serde(default = "unit")]
        hot_fraction: f64,
        #[serde(default = "unit")]
        hot_share: f64,
        /// Guest (CMS) CPU per I/O, microseconds.
        #[serde(default = "cms_cpu")]
        cpu_per_io_us: f64,
        /// Pause after each file read (`file`) or each I/O (`random`).
        #[serde(default)]
        think: Duration,
        /// I/Os issued at once per request (`random`): a server virtual
        /// machine doing asynchronous I/O for its clients (a database agent's
        /// prefetch, several agents) starts `ios_per_request` reads or writes
        /// together, one SSCH after the other, and waits for all of them
        /// before its think time. 1 (the default) is a plain CMS user.
        #[serde(default = "one")]
        ios_per_request: u32,
    },
    /// CMS FORMAT of a minidisk: every block written once, then idle. On an
    /// EDEV with WRITE SAME (`[io] write_same`, 5.3+) CP zeroes ranges with
    /// one command each and moves one block per command.
    CmsFormat {
        device: String,
        minidisk: Size,
        /// 4 KB blocks per write (default: a track on ECKD, 16 on FBA) [E].
        #[serde(default)]
        blocks_per_io: Option<u32>,
        /// Blocks one WRITE SAME covers [E].
        #[serde(default = "ws_blocks")]
        write_same_blocks: u32,
        #[serde(default = "cms_cpu")]
        cpu_per_io_us: f64,
    },
    /// I/O to a virtual disk in storage (`model/vdisk/`): a closed loop of
    /// guest CPU, one VDISK I/O (DIAGNOSE X'250' or SSCH: CP copies the
    /// pages between the guest's buffer and the VDISK, synchronously),
    /// think. CMS FORMAT of a VDISK is `access = "serial"`, `write_share =
    /// 1`, `passes = 1`; Linux swap to a VDISK is `access = "random"` with a
    /// hot part.
    VdiskIo {
        /// The guest's VDISK (its virtual device number, hex): a directory
        /// `vdisk` statement or a DEFINE VFB-512. While it does not exist
        /// the guest retries every second.
        vdev: String,
        #[serde(default = "vdisk_serial")]
        access: VdiskAccess,
        /// 4 KB pages per I/O.
        #[serde(default = "one")]
        pages_per_io: u32,
        /// Share of the I/Os that write.
        #[serde(default = "unit")]
        write_share: f64,
        #[serde(default = "unit")]
        hot_fraction: f64,
        #[serde(default = "unit")]
        hot_share: f64,
        /// Passes over the disk before the workload ends (serial access;
        /// 0: forever).
        #[serde(default)]
        passes: u32,
        /// Guest CPU per I/O, microseconds.
        #[serde(default = "cms_cpu")]
        cpu_per_io_us: f64,
        #[serde(default)]
        think: Duration,
    },
    /// A Linux guest's queries of a read-only database (Swingbench-like),
    /// one session per virtual CPU: each query takes `cpu_per_query_us` of
    /// the guest's CPU and reads `reads_per_query` 4 KB pages of the
    /// database (the first `hot_fraction` of it receiving `hot_share` of the
    /// reads), then `think`. The database is a file on a minidisk on
    /// `device` (shared by every guest that names it: read through Linux's
    /// page cache, a miss by CP's virtual I/O and the minidisk cache when it
    /// is on) or in saved segment `segment` (dcssblk, an ext2 file system
    /// mounted `-o xip`: read in place, each page the segment's shared copy,
    /// loaded from spool by its first touch). The guest needs a `linux` table.
    /// With a `heap` (an application server's memory: Java heap, database
    /// buffers), each page read is followed by `heap_touches` writes of
    /// pages of it, chosen at random: Linux's anonymous pages, which compete
    /// with the page cache for the guest's storage.
    LinuxDb {
        database: Size,
        #[serde(default)]
        device: Option<String>,
        #[serde(default)]
        segment: Option<String>,
        #[serde(default = "eight")]
        reads_per_query: u32,
        #[serde(default = "query_cpu")]
        cpu_per_query_us: f64,
        #[serde(default = "ws_hot")]
        hot_fraction: f64,
        #[serde(default = "ws_prob")]
        hot_share: f64,
        #[serde(default)]
        think: Duration,
        #[serde(default)]
        heap: Size,
        #[serde(default)]
        heap_touches: u32,
    },
    /// Linux sequential file I/O (iozone-like): `processes` each read or
    /// write a file of `file_size` in records of `record`, again and again;
    /// the block layer issues requests of `request` bytes, one at a time per
    /// path, over `paths` paths (Linux multipath over the base and the first
    /// `paths - 1` PAV aliases of the volume, dedicated to the guest).
    LinuxSeq {
        /// Volume of the first process; with a trailing `+` process k uses the
        /// k-th volume from there (one disk per process), else all share it.
        device: String,
        #[serde(default = "one")]
        processes: u32,
        #[serde(default = "file_size")]
        file_size: Size,
        #[serde(default = "record")]
        record: Size,
        /// Block-layer request size (default: the record, at most 128K) [E].
        #[serde(default)]
        request: Option<Size>,
        mode: SeqMode,
        #[serde(default = "one")]
        paths: u32,
        /// Guest CPU per MB moved (copy, file system, driver), microseconds [E].
        #[serde(default = "cpu_mb")]
        cpu_per_mb_us: f64,
    },
    /// A Linux network workload over a real QDIO device the guest owns
    /// (`model/net/`): HiperSockets (a synchronous copy, the sender held
    /// until the peer's processor takes it) or an OSA (asynchronous) to a
    /// server in partition `peer`. `rr`: request, the server's turn,
    /// response, think; `crr`: a connection per transaction (a connect
    /// round trip first, a close after); `stream`: messages of `request`
    /// bytes sent one after another (no response), `think` between them.
    Net {
        pattern: NetPattern,
        #[serde(default = "via_hs")]
        via: crate::model::net::Via,
        /// The CHPID: a `[[hipersockets]]` one for `via = "hipersockets"`
        /// (not used with `via = "vswitch"`).
        #[serde(default)]
        chpid: String,
        /// `via = "vswitch"`: the `[[vswitch]]` the guest's virtual NIC is
        /// coupled to, and its VLAN (0: none).
        #[serde(default)]
        vswitch: String,
        #[serde(default)]
        vlan: u16,
        /// The guest's QDIO data device (hex); member k of a group uses the
        /// device 3k after it (read, write and data subchannels each).
        device: String,
        /// The partition the server runs in (an `[[lpar.partition]]`, or
        /// this z/VM partition).
        peer: String,
        /// Bytes of a request (a stream's message) and of a response.
        #[serde(default = "net_request")]
        request: u64,
        #[serde(default = "net_response")]
        response: u64,
        /// Pause between transactions ...
        #[serde(default)]
        think: Duration,
        /// ... drawn from `think` (1 - jitter) to `think` (1 + jitter)
        /// (0 to 1; default 0.5; 0: exactly `think`, so a guest's
        /// transaction rate tells its response time).
        #[serde(default = "net_jitter")]
        jitter: f64,
        /// Guest CPU per transaction (stream: per message), microseconds.
        #[serde(default = "net_client")]
        client_cpu_us: f64,
        /// The server's CPU per request in its partition, microseconds
        /// (a connect takes a fifth of it).
        #[serde(default = "net_server")]
        server_cpu_us: f64,
    },
}

/// Share of a spread minidisk workload's I/O that goes to `count` volumes
/// from `device` on (each of them).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VolumeShare {
    pub device: String,
    pub share: f64,
    #[serde(default = "one")]
    pub count: u32,
}

/// A network workload's exchange.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NetPattern {
    /// Request/response.
    Rr,
    /// Connect, request/response, close.
    Crr,
    /// One-way messages.
    Stream,
}

fn via_hs() -> crate::model::net::Via {
    crate::model::net::Via::HiperSockets
}
fn net_request() -> u64 {
    200
}
fn net_response() -> u64 {
    1000
}
fn net_jitter() -> f64 {
    0.5
}
fn net_client() -> f64 {
    100.0
}
fn net_server() -> f64 {
    500.0
}

/// Which pages of a VDISK an I/O moves next.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum VdiskAccess {
    /// From the first page to the last, then again (CMS FORMAT, `dd`).
    Serial,
    /// Anywhere, the first `hot_fraction` of the disk receiving `hot_share`
    /// of the I/Os (Linux swapping to it).
    Random,
}

/// How a CMS workload picks its blocks.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CmsAccess {
    File,
    Random,
}

/// Sequential read or write.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SeqMode {
    Read,
    Write,
}

/// What a minidisk workload's validation needs to know of a `[[dasd]]` volume.
#[derive(Debug, Clone, Copy)]
pub struct DasdInfo {
    /// Capacity in 4 KB blocks.
    pub blocks: u64,
    pub kind: crate::model::io::params::DevKind,
    /// Static PAV aliases of the volume.
    pub aliases: u32,
}

fn vdisk_serial() -> VdiskAccess {
    VdiskAccess::Serial
}
fn cms_file() -> CmsAccess {
    CmsAccess::File
}
fn hundred() -> u32 {
    100
}
fn unit() -> f64 {
    1.0
}
fn cms_cpu() -> f64 {
    20.0
}
fn ws_blocks() -> u32 {
    256
}
fn file_size() -> Size {
    Size(1 << 30)
}
fn record() -> Size {
    Size(64 << 10)
}
fn cpu_mb() -> f64 {
    1_000.0
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

fn one() -> u32 {
    1
}
fn eight() -> u32 {
    8
}
fn query_cpu() -> f64 {
    1000.0
}

impl Workload {
    /// The workload's own bounds, and those that depend on the guest group
    /// that runs it: its area fits the group's `virtual_storage`; a minidisk
    /// workload's device (one per member with a trailing `+`, `count`
    /// members) is a `[[dasd]]` volume (`dasd`) its minidisks fit on.
    pub fn validate(
        &self,
        place: &str,
        virtual_storage: u64,
        count: u32,
        dasd: impl Fn(u16) -> Option<DasdInfo>,
    ) -> Result<(), Invalid> {
        let is_dasd = |d: u16| dasd(d).is_some();
        let err = |p: &str, reason: String| invalid(format!("{place}.{p}"), reason);
        match self {
            Workload::Idle => {}
            Workload::Thrasher {
                area,
                cpu_per_touch_us,
                hot_fraction,
                hot_share,
                warm_fraction,
                warm_share,
                cp_overhead,
                fill_rate,
                reuse_rate,
                ..
            } => {
                for (key, r) in [("fill_rate", fill_rate), ("reuse_rate", reuse_rate)] {
                    if !(r.is_finite() && (0.0..=1e6).contains(r)) {
                        return err(key, "must be pages per second from 0 to 1000000".into());
                    }
                }
                if *reuse_rate > 0.0 && *fill_rate == 0.0 {
                    return err(
                        "reuse_rate",
                        "needs a fill_rate (what is reused is the filled storage)".into(),
                    );
                }
                if *fill_rate > 0.0 && area.0 >= virtual_storage {
                    return err(
                        "fill_rate",
                        "the area is all of virtual_storage: nothing is left to fill".into(),
                    );
                }
                if !(0.0..=10.0).contains(cp_overhead) {
                    return err("cp_overhead", "must be a fraction between 0 and 10".into());
                }
                if area.0 < 4096 || area.0 > virtual_storage {
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
                check_hot_set(place, *hot_fraction, *hot_share)?;
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
            Workload::MinidiskIo { cp_overhead, .. } if !(0.0..=10.0).contains(cp_overhead) => {
                return err("cp_overhead", "must be a fraction between 0 and 10".into());
            }
            Workload::MinidiskIo {
                device,
                volumes,
                pages_per_io,
                cpu_per_io_us,
                ..
            } if !volumes.is_empty() => {
                if !device.is_empty() {
                    return err("volumes", "give either device or volumes, not both".into());
                }
                for (k, v) in volumes.iter().enumerate() {
                    let d = parse_devno(&v.device)
                        .map_err(|e| Invalid::new(format!("{place}.volumes[{k}].device"), e))?;
                    if v.count == 0 || d as u32 + v.count - 1 > 0xFFFF {
                        return err(
                            &format!("volumes[{k}].count"),
                            format!(
                                "{}: must be at least 1, device numbers within FFFF",
                                v.count
                            ),
                        );
                    }
                    for a in d as u32..d as u32 + v.count {
                        if !is_dasd(a as u16) {
                            return err(
                                &format!("volumes[{k}].device"),
                                format!("{a:04X} is not a [[dasd]] volume"),
                            );
                        }
                    }
                    if !(v.share.is_finite() && v.share > 0.0) {
                        return err(&format!("volumes[{k}].share"), "must be positive".into());
                    }
                }
                check_minidisk_io(place, *pages_per_io, *cpu_per_io_us)?;
            }
            Workload::MinidiskIo {
                device,
                pages_per_io,
                cpu_per_io_us,
                ..
            } => {
                if device.is_empty() {
                    return err("device", "missing: give a device or volumes".into());
                }
                let (d, last, _) = device_range(place, device, count)?;
                for a in d..=last {
                    if !is_dasd(a as u16) {
                        return err("device", format!("{a:04X} is not a [[dasd]] volume"));
                    }
                }
                check_minidisk_io(place, *pages_per_io, *cpu_per_io_us)?;
            }
            Workload::Cms {
                device,
                minidisk,
                access,
                file_blocks,
                blocks_per_io,
                write_share,
                hot_fraction,
                hot_share,
                cpu_per_io_us,
                ios_per_request,
                ..
            } => {
                let mdk = minidisk.0 / 4096;
                if *ios_per_request == 0 || *ios_per_request > 64 {
                    return err(
                        "ios_per_request",
                        format!("{ios_per_request}: must be 1 to 64"),
                    );
                }
                if *ios_per_request > 1 && *access != CmsAccess::Random {
                    return err(
                        "ios_per_request",
                        "more than 1 needs access = \"random\" (a server's requests)".into(),
                    );
                }
                check_minidisks(place, device, count, mdk, &dasd)?;
                if *blocks_per_io == 0 || *blocks_per_io > 256 {
                    return err("blocks_per_io", "must be 1 to 256".into());
                }
                if *access == CmsAccess::File && (*file_blocks == 0 || *file_blocks as u64 > mdk) {
                    return err(
                        "file_blocks",
                        format!("{file_blocks}: must be 1 to the minidisk's {mdk} blocks"),
                    );
                }
                if *blocks_per_io as u64 > mdk {
                    return err("blocks_per_io", "more blocks than the minidisk has".into());
                }
                if !(0.0..=1.0).contains(write_share) {
                    return err("write_share", "must be in [0, 1]".into());
                }
                check_hot_set(place, *hot_fraction, *hot_share)?;
                check_cpu_per_io_us(place, *cpu_per_io_us)?;
            }
            Workload::CmsFormat {
                device,
                minidisk,
                blocks_per_io,
                write_same_blocks,
                cpu_per_io_us,
            } => {
                check_minidisks(place, device, count, minidisk.0 / 4096, &dasd)?;
                if let Some(b) = blocks_per_io {
                    if *b == 0 || *b > 256 {
                        return err("blocks_per_io", "must be 1 to 256".into());
                    }
                }
                if *write_same_blocks == 0 || *write_same_blocks > 65_536 {
                    return err("write_same_blocks", "must be 1 to 65536".into());
                }
                check_cpu_per_io_us(place, *cpu_per_io_us)?;
            }
            Workload::VdiskIo {
                vdev,
                pages_per_io,
                write_share,
                hot_fraction,
                hot_share,
                cpu_per_io_us,
                passes,
                ..
            } => {
                crate::model::vdisk::params::parse_vdev(vdev)
                    .map_err(|e| Invalid::new(format!("{place}.vdev"), e))?;
                if *pages_per_io == 0 || *pages_per_io > 256 {
                    return err("pages_per_io", "must be 1 to 256".into());
                }
                if !(0.0..=1.0).contains(write_share) {
                    return err("write_share", "must be in [0, 1]".into());
                }
                check_hot_set(place, *hot_fraction, *hot_share)?;
                if *passes > 1_000_000 {
                    return err("passes", "must be 0 (forever) to 1000000".into());
                }
                check_cpu_per_io_us(place, *cpu_per_io_us)?;
            }
            Workload::LinuxSeq {
                device,
                processes,
                file_size,
                record,
                request,
                paths,
                cpu_per_mb_us,
                ..
            } => {
                if *processes == 0 || *processes > 64 {
                    return err("processes", "must be 1 to 64".into());
                }
                let (dev, spread) = split_device(device);
                let d = parse_devno(dev).map_err(|e| Invalid::new(format!("{place}.device"), e))?;
                let n = if spread { count * processes } else { 1 };
                if d as u32 + n - 1 > 0xFFFF {
                    return err("device", format!("{device}: device numbers run past FFFF"));
                }
                for a in d as u32..d as u32 + n {
                    let Some(v) = dasd(a as u16) else {
                        return err("device", format!("{a:04X} is not a [[dasd]] volume"));
                    };
                    if *paths > 1 + v.aliases {
                        return err(
                            "paths",
                            format!(
                                "{paths} paths: volume {a:04X} has {} PAV aliases",
                                v.aliases
                            ),
                        );
                    }
                }
                if *paths == 0 || *paths > 8 {
                    return err("paths", "must be 1 to 8".into());
                }
                if record.0 < 4096 || record.0 > (16 << 20) {
                    return err("record", "must be 4K to 16M".into());
                }
                if file_size.0 < record.0 {
                    return err("file_size", "must be at least one record".into());
                }
                if let Some(r) = request {
                    if r.0 < 4096 || r.0 > (16 << 20) {
                        return err("request", "must be 4K to 16M".into());
                    }
                }
                if !(cpu_per_mb_us.is_finite() && (0.0..=1e7).contains(cpu_per_mb_us)) {
                    return err("cpu_per_mb_us", "must be 0 to 10000000".into());
                }
            }
            Workload::LinuxDb {
                database,
                device,
                segment,
                reads_per_query,
                cpu_per_query_us,
                hot_fraction,
                hot_share,
                heap,
                heap_touches,
                ..
            } => {
                if heap.0 % 4096 != 0 || heap.0 > virtual_storage {
                    return err(
                        "heap",
                        format!("must be a multiple of 4K, at most the guest's storage and swap ({} MB)", virtual_storage >> 20),
                    );
                }
                if *heap_touches > 10_000 || (*heap_touches > 0) != (heap.0 > 0) {
                    return err(
                        "heap_touches",
                        "must be 1 to 10000 with a heap, 0 without".into(),
                    );
                }
                if database.0 < 4096 || database.0 > (64 << 30) {
                    return err("database", "must be 4K to 64G".into());
                }
                if !(1..=10_000).contains(reads_per_query) {
                    return err("reads_per_query", "must be 1 to 10000".into());
                }
                if !(cpu_per_query_us.is_finite() && (0.0..=1e7).contains(cpu_per_query_us)) {
                    return err("cpu_per_query_us", "must be 0 to 10000000".into());
                }
                check_hot_set(place, *hot_fraction, *hot_share)?;
                match (device, segment) {
                    (Some(d), None) => {
                        let dev = parse_devno(d)
                            .map_err(|e| Invalid::new(format!("{place}.device"), e))?;
                        let Some(v) = dasd(dev) else {
                            return err("device", format!("{dev:04X} is not a [[dasd]] volume"));
                        };
                        if database.pages() > v.blocks {
                            return err(
                                "database",
                                format!(
                                    "{} pages do not fit on volume {dev:04X} ({} blocks)",
                                    database.pages(),
                                    v.blocks
                                ),
                            );
                        }
                    }
                    (None, Some(_)) => {} // checked against [[segment]] by the scenario
                    _ => {
                        return err(
                            "device",
                            "name the database's place: a minidisk volume (device) or a saved segment (segment), one of them".into(),
                        )
                    }
                }
            }
            Workload::Net {
                via,
                chpid,
                vswitch,
                vlan,
                device,
                peer,
                request,
                response,
                client_cpu_us,
                server_cpu_us,
                jitter,
                ..
            } => {
                if !(0.0..=1.0).contains(jitter) {
                    return err("jitter", "must be 0 to 1".into());
                }
                if *via == crate::model::net::Via::Vswitch {
                    if vswitch.is_empty() {
                        return err(
                            "vswitch",
                            "via = \"vswitch\" needs the VSWITCH the NIC is coupled to".into(),
                        );
                    }
                    if *vlan > 4094 {
                        return err("vlan", "a VLAN ID is 1 to 4094 (0: none)".into());
                    }
                } else {
                    crate::model::net::params::parse_chpid(chpid)
                        .map_err(|e| Invalid::new(format!("{place}.chpid"), e))?;
                    if !vswitch.is_empty() || *vlan != 0 {
                        return err(
                            "vswitch",
                            "vswitch and vlan belong to via = \"vswitch\"".into(),
                        );
                    }
                }
                let d =
                    parse_devno(device).map_err(|e| Invalid::new(format!("{place}.device"), e))?;
                if d as u32 + 3 * count - 1 > 0xFFFF {
                    return err(
                        "device",
                        format!("{device}: {count} devices of 3 subchannels run past FFFF"),
                    );
                }
                if peer.is_empty() || peer.len() > 8 {
                    return err("peer", "a partition name is 1 to 8 characters".into());
                }
                for (key, b) in [("request", request), ("response", response)] {
                    if !(1..=(64 << 20)).contains(b) {
                        return err(key, "must be 1 to 67108864 bytes (64M)".into());
                    }
                }
                for (key, us) in [
                    ("client_cpu_us", client_cpu_us),
                    ("server_cpu_us", server_cpu_us),
                ] {
                    if !(us.is_finite() && (0.0..=1e6).contains(us)) {
                        return err(key, "must be 0 to 1000000".into());
                    }
                }
            }
        }
        Ok(())
    }
}

/// A minidisk workload's device numbers: the first and the last (`count`
/// consecutive ones with a trailing `+`, else the one), and whether it is
/// spread; the last must be within FFFF.
fn device_range(place: &str, device: &str, count: u32) -> Result<(u32, u32, bool), Invalid> {
    let (dev, spread) = split_device(device);
    let d = parse_devno(dev).map_err(|e| Invalid::new(format!("{place}.device"), e))? as u32;
    let last = if spread { d + count - 1 } else { d };
    if last > 0xFFFF {
        return invalid(
            format!("{place}.device"),
            format!("{device}: device numbers run past FFFF"),
        );
    }
    Ok((d, last, spread))
}

/// A workload's hot set: `hot_fraction` of its pages or blocks, in (0, 1],
/// get `hot_share` of its references, in [0, 1].
fn check_hot_set(place: &str, hot_fraction: f64, hot_share: f64) -> Result<(), Invalid> {
    if !(hot_fraction > 0.0 && hot_fraction <= 1.0) {
        return invalid(format!("{place}.hot_fraction"), "must be in (0, 1]".into());
    }
    if !(0.0..=1.0).contains(&hot_share) {
        return invalid(format!("{place}.hot_share"), "must be in [0, 1]".into());
    }
    Ok(())
}

/// A minidisk workload's I/O: 1 to 64 pages, a non-negative virtual CPU
/// per I/O.
fn check_minidisk_io(place: &str, pages_per_io: u32, cpu_per_io_us: f64) -> Result<(), Invalid> {
    if pages_per_io == 0 || pages_per_io > 64 {
        return invalid(format!("{place}.pages_per_io"), "must be 1 to 64".into());
    }
    if !(cpu_per_io_us.is_finite() && cpu_per_io_us >= 0.0) {
        return invalid(
            format!("{place}.cpu_per_io_us"),
            "must be non-negative".into(),
        );
    }
    Ok(())
}

/// A CMS or VDISK workload's virtual CPU per I/O, 0 to 1 s.
fn check_cpu_per_io_us(place: &str, cpu_per_io_us: f64) -> Result<(), Invalid> {
    if !(cpu_per_io_us.is_finite() && (0.0..=1e6).contains(&cpu_per_io_us)) {
        return invalid(
            format!("{place}.cpu_per_io_us"),
            "must be 0 to 1000000".into(),
        );
    }
    Ok(())
}

/// A minidisk workload's device and minidisks: `mdk` blocks for each of the
/// group's `count` members, on consecutive volumes (`+`) or one after the
/// other on one volume.
fn check_minidisks(
    place: &str,
    device: &str,
    count: u32,
    mdk: u64,
    dasd: &impl Fn(u16) -> Option<DasdInfo>,
) -> Result<(), Invalid> {
    let (d, last, spread) = device_range(place, device, count)?;
    if mdk == 0 {
        return invalid(format!("{place}.minidisk"), "must be at least 4K".into());
    }
    let per_vol = if spread { 1 } else { count as u64 };
    for a in d..=last {
        let Some(v) = dasd(a as u16) else {
            return invalid(
                format!("{place}.device"),
                format!("{a:04X} is not a [[dasd]] volume"),
            );
        };
        if mdk * per_vol > v.blocks {
            return invalid(
                format!("{place}.minidisk"),
                format!(
                    "{per_vol} minidisk(s) of {mdk} blocks do not fit on {a:04X} ({} blocks)",
                    v.blocks
                ),
            );
        }
    }
    Ok(())
}

/// A minidisk workload's device: the device number and whether group members
/// spread over consecutive volumes (a trailing `+`).
pub fn split_device(device: &str) -> (&str, bool) {
    match device.trim().strip_suffix('+') {
        Some(d) => (d, true),
        None => (device.trim(), false),
    }
}

/// The CP costs a burst charges (µs); `first_touch_us` and `virtual_io_us`
/// are the workload's to check, the others their owners' (storage, paging).
#[derive(Clone, Debug)]
pub struct Params {
    pub first_touch_us: f64,
    pub xstor_move_us: f64,
    pub page_fault_us: f64,
    pub virtual_io_us: f64,
}

impl Params {
    pub fn validate(&self) -> Result<(), Invalid> {
        check_cost_us("cp_costs.first_touch_us", self.first_touch_us)?;
        check_cost_us("cp_costs.virtual_io_us", self.virtual_io_us)
    }

    pub fn costs(&self) -> Costs {
        Costs {
            first_touch: us_to_ns(self.first_touch_us),
            xmove: us_to_ns(self.xstor_move_us),
            fault: us_to_ns(self.page_fault_us),
            virtual_io: us_to_ns(self.virtual_io_us),
        }
    }
}
