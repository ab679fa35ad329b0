//! APPLDATA records (domain 10) of the Linux guests whose `linux` table
//! turns the appldata modules on: at each sample one MRAPLSDT per module
//! (mem, os, net_sum), its data laid out as the kernel's structs
//! (`ztwin_monitor::appldata`). Written only when such guests exist, so other
//! runs are unchanged.
//!
//! Where the figures come from: memory from the Linux component's model
//! (`model/linux`); CPU from the guest's virtual CPUs as the CPU component
//! counts them, in jiffies (100 per second): `user` is the virtual CPU's own
//! (emulation) time less `system`, Linux's own memory management and swap
//! work as the Linux component counts it (`model/workload/linux.rs`), `steal`
//! the CP time spent for it (Linux's CPU timer does not run then), `idle` the
//! rest of the time since logon less `iowait`, the time a virtual CPU waited
//! for a block read of a `linux_db` workload (its minidisk reads); `nr_iowait`
//! the virtual CPUs waiting for a swap I/O at the sample; the twin does not
//! count interrupts (`nice`, `irq`, `softirq` are 0). Network: the twin has no network model;
//! `nr_interfaces` is the table's, every counter 0.

use super::emitter::L;
use crate::core::units::Ns;
use crate::model::cpu::VcpuSample;
use crate::model::linux::Sample;
use ztwin_monitor::appldata::{self, field, put, Kind, ProductId, NET_SUM, OS, OS_CPU};
use ztwin_monitor::layout::RecordLayout;
use ztwin_monitor::writer::RecordSet;

/// Jiffies (USER_HZ 100) in `ns`.
fn jiffies(ns: Ns) -> u64 {
    ns / 10_000_000
}

/// The three MRAPLSDT records of one guest at a sample.
pub(super) fn sample(
    s: &mut RecordSet,
    l: &L,
    tod: u64,
    userid: &str,
    since_logon: Ns,
    lx: &Sample,
    vcpus: impl Iterator<Item = VcpuSample>,
) {
    records(s, l.get("MRAPLSDT"), tod, userid, since_logon, lx, vcpus);
}

/// The three MRAPLEDT records of a guest that logged off: CP gives up its
/// buffers (a virtual storage reset), the data as the buffers last held it.
pub(super) fn ended(
    s: &mut RecordSet,
    l: &L,
    tod: u64,
    userid: &str,
    since_logon: Ns,
    lx: &Sample,
    vcpus: impl Iterator<Item = VcpuSample>,
) {
    records(s, l.get("MRAPLEDT"), tod, userid, since_logon, lx, vcpus);
}

/// A new record of layout `sdt` for module `kind` (its data `extra` bytes
/// longer than the struct): the fixed part filled, the data returned.
fn begin<'s>(
    s: &'s mut RecordSet,
    sdt: &RecordLayout,
    tod: u64,
    userid: &str,
    kind: Kind,
    extra: usize,
) -> &'s mut [u8] {
    let r = s
        .push(
            sdt.domain,
            sdt.record,
            tod,
            appldata::FIXED_PART + kind.size() + extra,
        )
        .expect("an APPLDATA record fits a frame");
    appldata::fill_fixed(
        r.bytes,
        sdt,
        userid,
        &ProductId::linux(kind, kind.mod_level()),
    )
}

/// One record per module of layout `sdt` (MRAPLSDT or MRAPLEDT).
fn records(
    s: &mut RecordSet,
    sdt: &RecordLayout,
    tod: u64,
    userid: &str,
    since_logon: Ns,
    lx: &Sample,
    vcpus: impl Iterator<Item = VcpuSample>,
) {
    let sync = lx.sync as u64;
    // Memory.
    let mem = appldata::MEM;
    let d = begin(s, sdt, tod, userid, Kind::Mem, 0);
    let u = &lx.usage;
    let c = &lx.c;
    let kb = |pages: u64| pages * 4;
    for (name, v) in [
        ("timestamp", tod),
        ("sync_count_1", sync),
        ("sync_count_2", sync),
        ("pgpgin", c.pgpgin_kb),
        ("pgpgout", c.pgpgout_kb),
        ("pswpin", c.pswpin),
        ("pswpout", c.pswpout),
        ("sharedram", 0),
        ("totalram", kb(u.total)),
        ("freeram", kb(u.free)),
        ("totalhigh", 0),
        ("freehigh", 0),
        ("bufferram", 0),
        ("cached", kb(u.cache)),
        ("totalswap", kb(u.swap_total)),
        ("freeswap", kb(u.swap_total - u.swapped)),
        ("pgalloc", c.pgalloc),
        ("pgfault", c.pgfault),
        ("pgmajfault", c.pgmajfault),
    ] {
        put(d, field(mem, name), v);
    }
    // OS, with one entry per virtual CPU.
    let cpus: Vec<VcpuSample> = vcpus.collect();
    let n = cpus.len();
    let d = begin(s, sdt, tod, userid, Kind::Os, n * appldata::OS_CPU_SIZE_01);
    for (name, v) in [
        ("timestamp", tod),
        ("sync_count_1", sync),
        ("sync_count_2", sync),
        ("nr_cpus", n as u64),
        ("per_cpu_size", appldata::OS_CPU_SIZE_01 as u64),
        ("cpu_offset", Kind::Os.size() as u64),
        ("nr_running", lx.nr_running as u64),
        ("nr_threads", n as u64),
        ("avenrun_0", lx.avenrun[0] as u64),
        ("avenrun_1", lx.avenrun[1] as u64),
        ("avenrun_2", lx.avenrun[2] as u64),
        ("nr_iowait", lx.nr_iowait as u64),
    ] {
        put(d, field(OS, name), v);
    }
    for (i, v) in cpus.iter().enumerate() {
        let at = Kind::Os.size() + i * appldata::OS_CPU_SIZE_01;
        let e = &mut d[at..at + appldata::OS_CPU_SIZE_01];
        let io = lx.iowait.get(i).copied().unwrap_or(0);
        let idle = since_logon.saturating_sub(v.ttime).saturating_sub(io);
        let sys = lx.sys.get(i).copied().unwrap_or(0).min(v.vtime);
        for (name, x) in [
            ("per_cpu_user", jiffies(v.vtime) - jiffies(sys)),
            ("per_cpu_system", jiffies(sys)),
            ("per_cpu_idle", jiffies(idle)),
            ("per_cpu_iowait", jiffies(io)),
            ("per_cpu_steal", jiffies(v.ttime.saturating_sub(v.vtime))),
            ("cpu_id", i as u64),
        ] {
            put(e, field(OS_CPU, name), x);
        }
    }
    // Network.
    let d = begin(s, sdt, tod, userid, Kind::NetSum, 0);
    for (name, v) in [
        ("timestamp", tod),
        ("sync_count_1", sync),
        ("sync_count_2", sync),
        ("nr_interfaces", lx.interfaces as u64),
    ] {
        put(d, field(NET_SUM, name), v);
    }
}
