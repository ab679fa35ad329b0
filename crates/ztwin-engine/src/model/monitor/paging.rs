//! Paging records: paging space (SYTASG), each paging volume (STOASP), and
//! the configuration record MTRPAG.

use super::emitter::L;
use crate::model::io::{DevSample, Io};
use crate::model::paging::{PagingSample, PagingVolSample};
use ztwin_monitor::writer::RecordSet;

/// MTRPAG per paging volume.
pub(super) fn config(
    s: &mut RecordSet,
    l: &L,
    tod: u64,
    vols: impl Iterator<Item = PagingVolSample>,
    io: &Io,
) {
    let pag = l.mtrpag;
    for (i, pv) in vols.enumerate() {
        let v = io.def(pv.dev);
        let mut r = s.push_layout(pag, tod);
        r.set_text(fld!(pag, "MTRPAG_CPVOLSER"), &v.volser);
        r.set_u(fld!(pag, "MTRPAG_RDEVDEV"), v.devno as u64);
        r.set_u(fld!(pag, "MTRPAG_RDEVSID"), 0x0001_0000 + i as u64);
        r.set_u(fld!(pag, "MTRPAG_CALFLAG1"), 0x80);
        r.set_u(fld!(pag, "MTRPAG_CALSTART"), 0);
        r.set_u(
            fld!(pag, "MTRPAG_CALEND"),
            v.cylinders.saturating_sub(1) as u64,
        );
        r.set_u(fld!(pag, "MTRPAG_CALSLOTS"), pv.slots as u64);
    }
}

/// SYTASG: paging space, and spool space when there are spool volumes.
pub(super) fn sytasg(
    s: &mut RecordSet,
    l: &L,
    tod: u64,
    pg: &PagingSample,
    spool: Option<&crate::model::spool::Sample>,
) {
    let mut r = s.push_layout(l.sytasg, tod);
    r.set_u(fld!(l.sytasg, "SYTASG_CAL90FUL"), pg.full90);
    r.set_u(fld!(l.sytasg, "SYTASG_CALSLTA1"), pg.total_slots);
    r.set_u(fld!(l.sytasg, "SYTASG_CALSLTI1"), pg.used_slots);
    if let Some(sp) = spool {
        r.set_u(fld!(l.sytasg, "SYTASG_CALSLTA2"), sp.slots);
        r.set_u(fld!(l.sytasg, "SYTASG_CALSLTI2"), sp.used);
        r.set_u(fld!(l.sytasg, "SYTASG_SYSSFCRT"), sp.c.files_created);
        r.set_u(fld!(l.sytasg, "SYTASG_SYSSFPUR"), sp.c.files_purged);
    }
}

/// STOASP of paging volume `pv` (on device `d`).
pub(super) fn stoasp(s: &mut RecordSet, l: &L, tod: u64, pv: &PagingVolSample, d: &DevSample) {
    let v = d.def;
    let mut r = s.push_layout(l.stoasp, tod);
    r.set_text(fld!(l.stoasp, "STOASP_CALVSER"), &v.volser);
    r.set_u(fld!(l.stoasp, "STOASP_RDEVDEV"), v.devno as u64);
    r.set_u(
        fld!(l.stoasp, "STOASP_RDEVSID"),
        0x0001_0000 + d.index as u64,
    );
    r.set_u(fld!(l.stoasp, "STOASP_CALPAGE"), pv.slots as u64);
    r.set_u(fld!(l.stoasp, "STOASP_EXPCTSRD"), pv.c.ssch_rd);
    r.set_u(fld!(l.stoasp, "STOASP_EXPCTSWR"), pv.c.ssch_wr);
    r.set_u(fld!(l.stoasp, "STOASP_EXPCTPRD"), pv.c.pages_rd);
    r.set_u(fld!(l.stoasp, "STOASP_EXPCTPWR"), pv.c.pages_wr);
    r.set_u(fld!(l.stoasp, "STOASP_EXPCURQC"), d.queued as u64);
    r.set_u(fld!(l.stoasp, "STOASP_SCMSSCH"), d.c.ssch);
    r.set_u(fld!(l.stoasp, "STOASP_CALFLAG1"), 0x80);
    r.set_u(
        fld!(l.stoasp, "STOASP_EXPMLOAD"),
        (d.smoothed_ms * 1000.0) as u64,
    );
    r.set_u(fld!(l.stoasp, "STOASP_CPVALOCD"), pv.used as u64);
    r.set_u(fld!(l.stoasp, "STOASP_SCGSSCH"), d.c.ssch);
}
