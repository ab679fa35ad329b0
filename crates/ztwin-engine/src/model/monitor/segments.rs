//! Saved-segment and spool records: shared storage (SYTSHS), each saved
//! segment (STOSHR), its events (STOSHS saved, STOSHL loaded by its first
//! user, STOSHD removed by its last), each spool volume (STOASP with its
//! SPOOL slots; MTRPAG with type 'SPOL') and the spool totals in SYTASG.
//! Written only when the scenario has spool volumes or saved segments, so
//! other runs are unchanged.

use super::emitter::L;
use crate::core::units::Ns;
use crate::model::io::Io;
use crate::model::segments::{Class, SegEvent, Segments};
use crate::model::spool::Spool;
use ztwin_monitor::writer::RecordSet;

/// MTRPAG of each spool volume (type 'SPOL'), after the paging volumes'
/// (`first_sid`: the subchannel numbering continues the I/O volumes').
pub(super) fn config(s: &mut RecordSet, l: &L, tod: u64, spool: &Spool, io: &Io) {
    let pag = l.get("MRMTRPAG");
    for v in spool.volume_samples() {
        let d = io.def(v.io_vol);
        let mut r = s.push_layout(pag, tod);
        r.set_text(fld!(pag, "MTRPAG_CPVOLSER"), &d.volser);
        r.set_u(fld!(pag, "MTRPAG_RDEVDEV"), d.devno as u64);
        r.set_u(fld!(pag, "MTRPAG_RDEVSID"), 0x0001_0000 + v.io_vol as u64);
        r.set_text(fld!(pag, "MTRPAG_CALTYPE"), "SPOL");
        r.set_u(fld!(pag, "MTRPAG_CALSTART"), 0);
        r.set_u(fld!(pag, "MTRPAG_CALCYLNO"), d.cylinders as u64);
    }
}

/// The TOD's high word, as SDFCLTIM keeps a file's creation time (units of
/// 2^32 TOD units, about 1.05 s: INFERRED).
fn cltim(tod: u64) -> u64 {
    tod >> 32
}

/// STOASP of each spool volume, and SYTSHS and STOSHR for the saved segments.
#[allow(clippy::too_many_arguments)] // the record set, its layouts and the three components sampled
pub(super) fn sample(
    s: &mut RecordSet,
    l: &L,
    tod: u64,
    start_tod: u64,
    seg: &Segments,
    spool: &Spool,
    io: &Io,
    dur: impl Fn(Ns) -> u64,
) {
    let asp = l.get("MRSTOASP");
    for v in spool.volume_samples() {
        let d = io.device(v.io_vol);
        let mut r = s.push_layout(asp, tod);
        r.set_text(fld!(asp, "STOASP_CALVSER"), &d.def.volser);
        r.set_u(fld!(asp, "STOASP_RDEVDEV"), d.def.devno as u64);
        r.set_u(fld!(asp, "STOASP_RDEVSID"), 0x0001_0000 + v.io_vol as u64);
        r.set_u(fld!(asp, "STOASP_CALSPOOL"), v.slots as u64);
        r.set_u(fld!(asp, "STOASP_CALPAGE"), 0);
        r.set_u(fld!(asp, "STOASP_EXPCTSRD"), v.c.ssch_rd);
        r.set_u(fld!(asp, "STOASP_EXPCTSWR"), v.c.ssch_wr);
        r.set_u(fld!(asp, "STOASP_EXPCTPRD"), v.c.pages_rd);
        r.set_u(fld!(asp, "STOASP_EXPCTPWR"), v.c.pages_wr);
        r.set_u(fld!(asp, "STOASP_EXPCURQC"), d.queued as u64);
        r.set_u(fld!(asp, "STOASP_SCMSSCH"), d.c.ssch);
        r.set_u(
            fld!(asp, "STOASP_EXPMLOAD"),
            (d.smoothed_ms * 1000.0) as u64,
        );
        r.set_u(fld!(asp, "STOASP_CPVALOCD"), v.used as u64);
        r.set_u(fld!(asp, "STOASP_SCGSSCH"), d.c.ssch);
    }
    let mut any = false;
    let (mut dcss, mut shared) = (0u64, 0u64);
    for x in seg.sdfs().filter(|x| x.class != Class::S) {
        any = true;
        dcss += 1;
        shared += x.shared_resident as u64;
    }
    if !any && seg.frames() == 0 {
        return;
    }
    let shs = l.get("MRSYTSHS");
    let mut r = s.push_layout(shs, tod);
    r.set_u(fld!(shs, "SYTSHS_SYSTANSS"), 0);
    r.set_u(fld!(shs, "SYTSHS_SYSTADCS"), dcss);
    r.set_u(fld!(shs, "SYTSHS_RSASHARE"), shared);
    let shr = l.get("MRSTOSHR");
    for x in seg.sdfs().filter(|x| x.class != Class::S) {
        // Users of a nonshared copy are exclusive users.
        let ex = x.nonshared_users as u64;
        let sh = x.users as u64 - ex;
        let mut r = s.push_layout(shr, tod);
        r.set_text(fld!(shr, "STOSHR_SNTNAME"), &x.def.name);
        r.set_i(fld!(shr, "STOSHR_SDFIDNUM"), x.spoolid as i64);
        r.set_u(
            fld!(shr, "STOSHR_SDFCLTIM"),
            cltim(start_tod + dur(x.created)),
        );
        r.set_u(fld!(shr, "STOSHR_SNTUSRSH"), sh);
        r.set_u(fld!(shr, "STOSHR_SNTUSREX"), ex);
        r.set_u(
            fld!(shr, "STOSHR_ASCCTPRS"),
            x.shared_resident as u64 + x.private_resident as u64,
        );
    }
}

/// The event records of `events` (saved, loaded, removed; purges have none).
pub(super) fn events(
    ev: &mut RecordSet,
    l: &L,
    start_tod: u64,
    seg: &Segments,
    events: &[(SegEvent, Ns)],
    dur: impl Fn(Ns) -> u64,
) {
    for &(e, at) in events {
        let tod = start_tod + dur(at);
        let (name, sdf) = match e {
            SegEvent::Saved { sdf } => ("MRSTOSHS", sdf),
            SegEvent::Loaded { sdf } => ("MRSTOSHL", sdf),
            SegEvent::Removed { sdf } => ("MRSTOSHD", sdf),
            SegEvent::Purged { .. } => continue,
        };
        let lay = l.get(name);
        let x = seg.sdf(sdf);
        let pre = &name[2..];
        let f = |suffix: &str| lay.f(&format!("{pre}_{suffix}"));
        let mut r = ev.push_layout(lay, tod);
        r.set_text(f("SDFFN"), &x.def.name);
        r.set_text(f("SDFFT"), "DCSS");
        r.set_u(f("SDFCLTIM"), cltim(start_tod + dur(x.created)));
        r.set_i(f("SDFIDNUM"), x.spoolid as i64);
    }
}
