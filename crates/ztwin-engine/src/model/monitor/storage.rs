//! Storage domain records: real storage and XSTOR (SYTRSG, STORSG, SYTXSG,
//! STOXSG), per logical CPU (SYTRSP, SYTXSP, STORSP), and the configuration
//! records MTRMEM and MTRXSG.

use super::emitter::L;
use crate::model::mdc::MdcSample;
use crate::model::paging::PageIo;
use crate::model::storage::era_c::AgeSample;
use crate::model::storage::{StorCpu, StorageSample};
use ztwin_monitor::writer::RecordSet;

/// MTRMEM: central storage, `bytes`.
pub(super) fn config_mem(s: &mut RecordSet, l: &L, tod: u64, bytes: u64) {
    let mem = l.mtrmem;
    let mut r = s.push_layout(mem, tod);
    r.set_u(fld!(mem, "MTRMEM_RSASTORE"), bytes.min(u32::MAX as u64));
    r.set_u(fld!(mem, "MTRMEM_SYSGSTOR"), bytes);
}

/// MTRXSG: XSTOR of `blocks` 4 KB blocks.
pub(super) fn config_xsg(s: &mut RecordSet, l: &L, tod: u64, blocks: u32) {
    let xsg = l.mtrxsg;
    let mut r = s.push_layout(xsg, tod);
    r.set_u(fld!(xsg, "MTRXSG_XSTOTALB"), blocks as u64);
    r.set_u(fld!(xsg, "MTRXSG_SYSXTSIZ"), blocks as u64);
}

/// SYTRSP, SYTXSP and STORSP of logical CPU `c`: its storage work `sc` and
/// the pages it moved to and from DASD (`pio`).
pub(super) fn cpu(
    s: &mut RecordSet,
    l: &L,
    tod: u64,
    c: usize,
    cputy: u64,
    sc: &StorCpu,
    pio: PageIo,
) {
    let mut r = s.push_layout(l.sytrsp, tod);
    r.set_u(fld!(l.sytrsp, "SYTRSP_PFXCPUAD"), c as u64);
    r.set_u(fld!(l.sytrsp, "SYTRSP_PLSSTLFR"), sc.steals);
    r.set_u(fld!(l.sytrsp, "SYTRSP_PLSPRQDF"), sc.frame_waits);
    r.set_u(fld!(l.sytrsp, "SYTRSP_PFXCPUTY"), cputy);
    let mut r = s.push_layout(l.sytxsp, tod);
    r.set_u(fld!(l.sytxsp, "SYTXSP_PFXCPUAD"), c as u64);
    r.set_u(fld!(l.sytxsp, "SYTXSP_PLSPGIN"), sc.xs_in);
    r.set_u(fld!(l.sytxsp, "SYTXSP_PLSPGOUT"), sc.xs_out);
    r.set_u(fld!(l.sytxsp, "SYTXSP_PLSPGMRD"), sc.migrated);
    r.set_u(fld!(l.sytxsp, "SYTXSP_PFXCPUTY"), cputy);
    let mut r = s.push_layout(l.storsp, tod);
    r.set_u(fld!(l.storsp, "STORSP_PFXCPUAD"), c as u64);
    r.set_u(fld!(l.storsp, "STORSP_PLSPREAD"), pio.read);
    r.set_u(fld!(l.storsp, "STORSP_PLSPGDRD"), pio.read);
    r.set_u(fld!(l.storsp, "STORSP_PLSPGDWT"), pio.written);
    let bp = &sc.by_pass;
    for (name, v) in [
        ("STORSP_PLSDORM1", bp[0][0]),
        ("STORSP_PLSELIG1", bp[0][1]),
        ("STORSP_PLSDISP1", bp[0][2]),
        ("STORSP_PLSDORM2", bp[1][0]),
        ("STORSP_PLSELIG2", bp[1][1]),
        ("STORSP_PLSDISP2", bp[1][2]),
        ("STORSP_PLSDORME", bp[2][0]),
        ("STORSP_PLSELIGE", bp[2][1]),
        ("STORSP_PLSDISPE", bp[2][2]),
        // Shared address spaces (VDISKs): pass 1 and emergency (pass 2
        // passes them over; zero without VDISKs).
        ("STORSP_PLSSHAR1", sc.shared_by_pass[0]),
        ("STORSP_PLSSHARE", sc.shared_by_pass[2]),
    ] {
        r.set_u(l.storsp.f(name), v);
    }
    r.set_u(fld!(l.storsp, "STORSP_PFXCPUTY"), cputy);
}

/// SYTRSG and STORSG: the frames, the available list and its thresholds;
/// at Era C levels (`age`) the global aging list in STORSG's INFERRED
/// aging-list block (`STORSG_AGL*`, ztwin's offsets: see the layout).
pub(super) fn system(
    s: &mut RecordSet,
    l: &L,
    tod: u64,
    st: &StorageSample,
    mdc: Option<&MdcSample>,
    age: Option<&AgeSample>,
) {
    let dpa = st.dpa as u64;
    let mut r = s.push_layout(l.sytrsg, tod);
    r.set_u(fld!(l.sytrsg, "SYTRSG_RSACPLOK"), st.fixed as u64);
    r.set_u(fld!(l.sytrsg, "SYTRSG_RSANONPG"), st.fixed as u64);
    r.set_u(fld!(l.sytrsg, "SYTRSG_RSAPGABL"), dpa);
    r.set_u(fld!(l.sytrsg, "SYTRSG_RSAAVAIL"), st.avail as u64);
    r.set_u(fld!(l.sytrsg, "SYTRSG_RSAFRQWT"), st.c.frame_waits);
    r.set_u(fld!(l.sytrsg, "SYTRSG_RSA2GAVL"), st.avail as u64);
    if let Some(m) = mdc {
        // The minidisk cache in central storage: the arbiter's target
        // (ideal), the frames it holds, SET MDC STORAGE min and max [INF].
        r.set_u(fld!(l.sytrsg, "SYTRSG_TCMMIDSZ"), m.cs_target);
        r.set_u(fld!(l.sytrsg, "SYTRSG_TCMMAIN"), m.cs_frames);
        r.set_u(fld!(l.sytrsg, "SYTRSG_TCMMNMIN"), m.cs_min);
        r.set_u(fld!(l.sytrsg, "SYTRSG_TCMMNMAX"), m.cs_max);
    }
    let mut r = s.push_layout(l.storsg, tod);
    r.set_u(fld!(l.storsg, "STORSG_RSAMAXPP"), dpa);
    r.set_u(fld!(l.storsg, "STORSG_RSACPLOK"), st.fixed as u64);
    r.set_u(fld!(l.storsg, "STORSG_RSAAVLLT"), st.low as u64);
    r.set_u(fld!(l.storsg, "STORSG_RSAAVLHT"), st.high as u64);
    r.set_u(fld!(l.storsg, "STORSG_RSAAVLLG"), st.low as u64);
    r.set_u(fld!(l.storsg, "STORSG_RSAAVLHG"), st.high as u64);
    r.set_u(fld!(l.storsg, "STORSG_RSAFRQWT"), st.c.frame_waits);
    r.set_u(fld!(l.storsg, "STORSG_RSAEMERG"), st.c.emergency_scans);
    r.set_u(fld!(l.storsg, "STORSG_RSAEMPTY"), st.c.list_empty);
    r.set_u(fld!(l.storsg, "STORSG_RSASTLWT"), st.c.scans);
    if let Some(a) = age {
        let c = &a.c;
        for (name, v) in [
            ("STORSG_AGLFRAME", a.frames as u64),
            ("STORSG_AGLTARGT", a.target as u64),
            ("STORSG_AGLEWINF", a.early_inflight as u64),
            // X'80': early writes on (STORAGE AGELIST EARLYWRITES YES).
            ("STORSG_AGLFLAGS", if a.earlywrites { 0x80 } else { 0 }),
            ("STORSG_AGLMOVED", c.moved),
            ("STORSG_AGLEXAMD", c.examined),
            ("STORSG_AGLRECLM", c.reclaimed),
            ("STORSG_AGLRCLFT", c.reclaimed_fault),
            ("STORSG_AGLFRNIO", c.freed_no_io),
            ("STORSG_AGLFRWRT", c.freed_written),
            ("STORSG_AGLFRWAI", c.freed_wait),
            ("STORSG_AGLPGOUT", c.paged_out),
            ("STORSG_AGLEWRIT", c.early_writes),
            ("STORSG_AGLREPLN", c.replenish),
        ] {
            r.set_u(l.storsg.f(name), v);
        }
    }
}

/// SYTXSG and STOXSG: XSTOR.
pub(super) fn xstor(
    s: &mut RecordSet,
    l: &L,
    tod: u64,
    st: &StorageSample,
    mdc: Option<&MdcSample>,
) {
    let mut r = s.push_layout(l.sytxsg, tod);
    r.set_u(fld!(l.sytxsg, "SYTXSG_XSTXBGET"), st.c.xstor_out);
    r.set_u(
        fld!(l.sytxsg, "SYTXSG_XSTXBREL"),
        st.c.xstor_in + st.c.migrated,
    );
    r.set_u(fld!(l.sytxsg, "SYTXSG_XSTCTXAV"), st.xs_free as u64);
    r.set_u(fld!(l.sytxsg, "SYTXSG_XSTCPPAR"), st.xs_total as u64);
    if let Some(m) = mdc {
        // Minidisk cache counters [INF meanings of zpmd's 5.3 names]: eligible
        // reads, writes, reads satisfied (I/Os avoided), pages inserted,
        // insertions refused by the fair share, the XSTOR part's target,
        // minimum and blocks held.
        let c = &m.c;
        r.set_u(fld!(l.sytxsg, "SYTXSG_HCPMDCPR"), c.reads);
        r.set_u(fld!(l.sytxsg, "SYTXSG_HCPMDCPW"), c.writes);
        r.set_u(fld!(l.sytxsg, "SYTXSG_HCPMDCIA"), c.hits);
        r.set_u(fld!(l.sytxsg, "SYTXSG_HCPMDCIS"), c.pages_inserted);
        r.set_u(fld!(l.sytxsg, "SYTXSG_HCPMDCNE"), c.fs_denied);
        r.set_u(fld!(l.sytxsg, "SYTXSG_TCMXIDSZ"), m.xs_target);
        r.set_u(fld!(l.sytxsg, "SYTXSG_TCMXSMIN"), m.xs_min);
        r.set_u(fld!(l.sytxsg, "SYTXSG_CALMDCAU"), m.xs_blocks);
    }
    let mut r = s.push_layout(l.stoxsg, tod);
    if l.stoxsg.fields.is_empty() {
        // 7.1 and later: the record is written, header only ("no longer
        // valid", expanded storage support removed) [S: IBM mon710].
        return;
    }
    r.set_u(fld!(l.stoxsg, "STOXSG_XSTMIGS"), st.c.migrated);
    r.set_u(fld!(l.stoxsg, "STOXSG_XSTLOTHR"), st.xs_low as u64);
    let age = (st.xs_mean_age / 1_000_000_000) as u64;
    r.set_u(fld!(l.stoxsg, "STOXSG_XSTSUMAG"), age);
}
