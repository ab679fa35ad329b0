//! System domain records: processors and the LPAR (SYTSYP, SYTPRP, PRCPRP,
//! SYTUWT, SYTCUG, SYTCUP) and the system's configuration records (MTRSYS,
//! MTRPRP, MTRSPR).

use super::emitter::{write_err, L};
use super::{dur, Monitor, SystemId};
use crate::core::units::Ns;
use crate::model::cpu::{CpuCounters, HfCounters};
use crate::model::paging::PageIo;
use crate::model::RunError;
use ztwin_monitor::writer::RecordSet;

const PRBTM_START: u64 = 0x7FFF_FFFF_0000_0000;
/// Domain masks (bit 0 = domain 0).
const SAMPLE_DOMAINS: u8 = 0x80 | 0x40 | 0x10 | 0x08 | 0x04 | 0x02;

/// MTRSYS and one MTRPRP per logical CPU.
pub(super) fn config(s: &mut RecordSet, l: &L, tod: u64, id: &SystemId, ncpu: usize) {
    let sys = l.mtrsys;
    {
        let mut r = s.push_layout(sys, tod);
        r.set_text(fld!(sys, "MTRSYS_HCPCPEID"), &format!("{}.0", id.cp_level));
        r.set_u(
            fld!(sys, "MTRSYS_SYSTODST"),
            tod.saturating_sub(dur(86_400_000_000_000)),
        );
        r.set_text(fld!(sys, "MTRSYS_SYSTMID"), &id.system_id);
        let (mtype, model) = id.cpu_model.split_once('-').unwrap_or((&id.cpu_model, ""));
        r.set_text(fld!(sys, "MTRSYS_SYSMTYPE"), mtype);
        r.set_text(fld!(sys, "MTRSYS_SYSMMODL"), model);
        r.set_u(fld!(sys, "MTRSYS_LPNUMBER"), 1);
        r.set_u(fld!(sys, "MTRSYS_CPUCOUNT"), ncpu as u64);
        r.set_u(fld!(sys, "MTRSYS_CPUCFGCT"), ncpu as u64);
        r.set_text(fld!(sys, "MTRSYS_LPARNAME"), &id.lpar_name);
        r.set_u(fld!(sys, "MTRSYS_CPUDEDCT"), ncpu as u64);
    }
    let prp = l.mtrprp;
    for c in 0..ncpu {
        let mut r = s.push_layout(prp, tod);
        r.set_u(fld!(prp, "MTRPRP_PFXCPUAD"), c as u64);
        r.set_u(fld!(prp, "MTRPRP_PFXCPUTY"), id.cpu_type);
    }
}

/// MTRSPR: the monitor's settings.
pub(super) fn config_spr(s: &mut RecordSet, l: &L, tod: u64, m: &Monitor) {
    let spr = l.mtrspr;
    let mut r = s.push_layout(spr, tod);
    r.set_i(
        fld!(spr, "MTRSPR_INTERVAL"),
        (m.sample_interval / 1_000_000_000) as i64,
    );
    r.set_i(fld!(spr, "MTRSPR_HFRATE"), (m.hf_rate / 10_000_000) as i64);
    r.set_u(fld!(spr, "MTRSPR_SDOMAINS"), SAMPLE_DOMAINS as u64);
    r.set_u(fld!(spr, "MTRSPR_HDOMAINS"), (0x08 | 0x04 | 0x02) as u64);
}

/// SYTSYP and SYTPRP of logical CPU `c`: its SSCHs (`ssch`), pages moved
/// (`pio`) and time. `steal` is the time PR/SM did not dispatch it while it
/// had work (a shared CEC): neither busy nor wait in z/VM's own figures (the
/// LPAR report's %Susp).
#[allow(clippy::too_many_arguments)]
pub(super) fn cpu(
    s: &mut RecordSet,
    l: &L,
    tod: u64,
    now: Ns,
    c: usize,
    cputy: u64,
    cc: &CpuCounters,
    ssch: u64,
    pio: PageIo,
    steal: u64,
) {
    let mut r = s.push_layout(l.sytsyp, tod);
    r.set_u(fld!(l.sytsyp, "SYTSYP_PFXCPUAD"), c as u64);
    r.set_u(fld!(l.sytsyp, "SYTSYP_PLSCTSS"), ssch);
    r.set_u(fld!(l.sytsyp, "SYTSYP_PLSPIOPR"), pio.read);
    r.set_u(fld!(l.sytsyp, "SYTSYP_PLSPIOPW"), pio.written);
    r.set_u(fld!(l.sytsyp, "SYTSYP_PFXCPUTY"), cputy);
    let busy = cc.emul_ns + cc.cp_user_ns + cc.sys_ns;
    let mut r = s.push_layout(l.sytprp, tod);
    r.set_u(fld!(l.sytprp, "SYTPRP_PFXCPUAD"), c as u64);
    r.set_u(
        fld!(l.sytprp, "SYTPRP_PFXPRBTM"),
        PRBTM_START - dur(cc.emul_ns),
    );
    r.set_u(
        fld!(l.sytprp, "SYTPRP_PFXUTIME"),
        dur(cc.emul_ns + cc.cp_user_ns),
    );
    r.set_u(fld!(l.sytprp, "SYTPRP_PFXTMSYS"), dur(cc.sys_ns));
    r.set_u(
        fld!(l.sytprp, "SYTPRP_PFXTOTWT"),
        dur(now.saturating_sub(busy).saturating_sub(steal)),
    );
    r.set_u(fld!(l.sytprp, "SYTPRP_PFXCPUTY"), cputy);
}

/// PRCPRP of logical CPU `c`: dispatches and HF samples.
pub(super) fn prcprp(s: &mut RecordSet, l: &L, tod: u64, c: usize, cputy: u64, cc: &CpuCounters) {
    let mut r = s.push_layout(l.prcprp, tod);
    r.set_u(fld!(l.prcprp, "PRCPRP_PFXCPUAD"), c as u64);
    r.set_u(fld!(l.prcprp, "PRCPRP_PFXDSPCS"), cc.dispatches);
    r.set_u(fld!(l.prcprp, "PRCPRP_HFCOUNT"), cc.hf_count);
    r.set_u(fld!(l.prcprp, "PRCPRP_PFXCPUTY"), cputy);
}

/// SYTUWT: the virtual CPUs' high-frequency states summed (`hf`), and the
/// eligible list's length.
pub(super) fn sytuwt(s: &mut RecordSet, l: &L, tod: u64, hf: &HfCounters, eligible: u32) {
    let mut r = s.push_layout(l.sytuwt, tod);
    // Users in test idle, with or without a wait pending.
    r.set_u(
        fld!(l.sytuwt, "SYTUWT_CALTIDL"),
        hf.test_idle + hf.test_idle_wait,
    );
    r.set_i(fld!(l.sytuwt, "SYTUWT_CALIOWT"), hf.io_wait as i64);
    r.set_i(fld!(l.sytuwt, "SYTUWT_CALWTPAG"), hf.page_wait as i64);
    r.set_i(fld!(l.sytuwt, "SYTUWT_CALCPUWT"), hf.cpu_wait as i64);
    r.set_i(fld!(l.sytuwt, "SYTUWT_CALCPURN"), hf.running as i64);
    r.set_i(fld!(l.sytuwt, "SYTUWT_CALOTHR"), hf.other as i64);
    r.set_i(fld!(l.sytuwt, "SYTUWT_CALQDISP"), hf.in_queue as i64);
    r.set_i(fld!(l.sytuwt, "SYTUWT_CALELSVM"), hf.eligible as i64);
    r.set_u(fld!(l.sytuwt, "SYTUWT_SRMCELIG"), eligible as u64);
}

/// SYTCUG and SYTCUP: the LPAR and its logical CPUs. With a CEC (`[lpar]`),
/// [`cec`] writes every partition instead.
pub(super) fn lpar(
    s: &mut RecordSet,
    l: &L,
    tod: u64,
    id: &SystemId,
    cpus: impl ExactSizeIterator<Item = CpuCounters>,
) -> Result<(), RunError> {
    let n = cpus.len() as u64;
    let cputy = id.cpu_type;
    let mut r = s.push_layout(l.sytcug, tod);
    r.set_u(fld!(l.sytcug, "SYTCUG_LCUTNPAR"), 1);
    r.set_u(fld!(l.sytcug, "SYTCUG_LCUTPCCT"), n);
    r.set_u(fld!(l.sytcug, "SYTCUG_LPNUMBER"), 1);
    r.set_u(fld!(l.sytcug, "SYTCUG_CPUCOUNT"), n);
    r.set_u(fld!(l.sytcug, "SYTCUG_CPUCFGCT"), n);
    r.set_text(fld!(l.sytcug, "SYTCUG_LPARNAME"), &id.lpar_name);
    r.set_u(fld!(l.sytcug, "SYTCUG_CPUDEDCT"), n);
    // Entries at the layout's fixed-part size, of its entry size.
    let g = l.sytcup.group.expect("MRSYTCUP has logical-CPU entries");
    let (fixed, entry) = (l.sytcup.size as usize, g.entry_size as usize);
    let len = fixed + entry * n as usize;
    let mut r = s
        .push(l.sytcup.domain, l.sytcup.record, tod, len)
        .map_err(write_err)?;
    r.set_u(fld!(l.sytcup, "SYTCUP_CALCPUOF"), fixed as u64);
    r.set_u(fld!(l.sytcup, "SYTCUP_CALCPULN"), entry as u64);
    r.set_u(fld!(l.sytcup, "SYTCUP_LCXLPNUM"), 1);
    r.set_u(fld!(l.sytcup, "SYTCUP_LCXCPCNT"), n);
    r.set_text(fld!(l.sytcup, "SYTCUP_LCXPNAME"), &id.lpar_name);
    r.set_u(fld!(l.sytcup, "SYTCUP_LCXFLAGS"), 0x80); // dedicated processors
    r.set_u(fld!(l.sytcup, "SYTCUP_LCXCPUTY"), cputy);
    r.set_u(fld!(l.sytcup, "SYTCUP_LCXPHYCT"), n);
    for (c, cc) in cpus.enumerate() {
        let o = fixed + c * entry;
        let busy = cc.emul_ns + cc.cp_user_ns + cc.sys_ns;
        let mut e = ztwin_monitor::writer::RecordMut {
            bytes: &mut r.bytes[o..o + entry],
        };
        e.set_u(g.f("SYTCUP_LCUCPUID"), c as u64);
        e.set_u(g.f("SYTCUP_LCUCFLGS"), 0x80);
        e.set_u(g.f("SYTCUP_LCUCACTM"), dur(busy));
    }
    Ok(())
}

/// SYTCUG and one SYTCUP per partition of the CEC (the z/VM one first), as
/// CP writes them when the HMC lets a partition see the others' data: the
/// entries carry PR/SM's view, each logical processor's dispatch time
/// (LCUCACTM) and management time (LCUCLPTM), its weight and type.
pub(super) fn cec(
    s: &mut RecordSet,
    l: &L,
    tod: u64,
    id: &SystemId,
    cec: &crate::model::lpar::Cec,
) -> Result<(), RunError> {
    let zvm = cec.partitions().next().expect("the z/VM partition");
    let physical: u64 = cec.pools().map(|p| p.physical as u64).sum();
    let n = zvm.lcpus.len() as u64;
    let mut r = s.push_layout(l.sytcug, tod);
    r.set_u(
        fld!(l.sytcug, "SYTCUG_LCUTNPAR"),
        cec.partition_count() as u64,
    );
    r.set_u(fld!(l.sytcug, "SYTCUG_LCUTSLCE"), 0); // dynamic dispatch interval
    r.set_u(fld!(l.sytcug, "SYTCUG_LCUTPCCT"), physical);
    r.set_u(fld!(l.sytcug, "SYTCUG_LPNUMBER"), 1);
    r.set_u(fld!(l.sytcug, "SYTCUG_CPUCOUNT"), n);
    r.set_u(fld!(l.sytcug, "SYTCUG_CPUCFGCT"), n);
    r.set_text(fld!(l.sytcug, "SYTCUG_LPARNAME"), &id.lpar_name);
    let (ded, shr) = if zvm.dedicated { (n, 0) } else { (0, n) };
    r.set_u(fld!(l.sytcug, "SYTCUG_CPUDEDCT"), ded);
    r.set_u(fld!(l.sytcug, "SYTCUG_CPUSHARD"), shr);
    let g = l.sytcup.group.expect("MRSYTCUP has logical-CPU entries");
    let (fixed, entry) = (l.sytcup.size as usize, g.entry_size as usize);
    // One record per partition: a partition with processors of two types
    // (its entries share a number) lists them all, CPU addresses running on
    // from one type's to the next's; the partition's type (LCPTYPE) is its
    // first entry's.
    for number in 1..=cec.partition_count() as u16 {
        let mut entries = cec.partitions().filter(|p| p.number == number);
        let Some(first) = entries.next() else {
            continue;
        };
        let n: usize = cec
            .partitions()
            .filter(|p| p.number == number)
            .map(|p| p.lcpus.len())
            .sum();
        let len = fixed + entry * n;
        let mut r = s
            .push(l.sytcup.domain, l.sytcup.record, tod, len)
            .map_err(write_err)?;
        r.set_u(fld!(l.sytcup, "SYTCUP_CALCPUOF"), fixed as u64);
        r.set_u(fld!(l.sytcup, "SYTCUP_CALCPULN"), entry as u64);
        r.set_text(fld!(l.sytcup, "SYTCUP_LCUPNAME"), first.name);
        r.set_u(fld!(l.sytcup, "SYTCUP_LCUPPNUM"), number as u64);
        r.set_u(fld!(l.sytcup, "SYTCUP_LCUPCPCT"), n as u64);
        r.set_text(fld!(l.sytcup, "SYTCUP_LCPTYPE"), first.ptype.name());
        let mut c = 0usize;
        for p in std::iter::once(first).chain(entries) {
            for lc in p.lcpus {
                let o = fixed + c * entry;
                let mut e = ztwin_monitor::writer::RecordMut {
                    bytes: &mut r.bytes[o..o + entry],
                };
                e.set_u(g.f("SYTCUP_LCUCPUID"), c as u64);
                e.set_u(
                    g.f("SYTCUP_LCUCWGHT"),
                    if p.dedicated { 0 } else { p.weight as u64 },
                );
                e.set_u(g.f("SYTCUP_LCUCFLGS"), if p.dedicated { 0x80 } else { 0 });
                e.set_u(g.f("SYTCUP_LCUCACTM"), dur(lc.dispatch_ns));
                e.set_u(g.f("SYTCUP_LCUCLPTM"), dur(lc.mgmt_ns));
                e.set_text(g.f("SYTCUP_LCXCPTYP"), p.ptype.name());
                c += 1;
            }
        }
    }
    Ok(())
}
