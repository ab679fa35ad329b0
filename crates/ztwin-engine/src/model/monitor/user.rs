//! User records: each logged-on guest's activity and wait states (USEACT,
//! USEINT, per virtual CPU), logons and logoffs (USELON, USELOF), and the
//! configuration record MTRUSR.

use super::dur;
use super::emitter::L;
use crate::model::cpu::{GuestSample, HfCounters, VcpuSample};
use crate::model::paging::PageIo;
use crate::model::storage::{GuestStor, SpaceSample};

/// A guest's samples from the components that keep them.
pub(super) struct Guest<'a> {
    pub id: &'a GuestSample<'a>,
    pub space: SpaceSample,
    pub stor: GuestStor,
    pub pio: PageIo,
}
use ztwin_monitor::writer::RecordSet;

/// MTRUSR of a logged-on guest.
pub(super) fn config(
    s: &mut RecordSet,
    l: &L,
    tod: u64,
    start_tod: u64,
    u: &GuestSample,
    sp: &SpaceSample,
) {
    let usr = l.mtrusr;
    let mut r = s.push_layout(usr, tod);
    r.set_text(fld!(usr, "MTRUSR_VMDUSER"), u.userid);
    r.set_u(fld!(usr, "MTRUSR_VMDCPUCT"), u.nvcpu as u64);
    r.set_u(
        fld!(usr, "MTRUSR_VMDFLAGS"),
        if u.quickdsp { 0x80 } else { 0 },
    );
    r.set_u(fld!(usr, "MTRUSR_VMDRELSH"), u.share as u64);
    r.set_u(fld!(usr, "MTRUSR_VMDSSIZE"), sp.vpages as u64);
    r.set_u(fld!(usr, "MTRUSR_CALTODON"), start_tod + dur(u.logon_ns));
}

/// Add a virtual CPU's HF counts to `sum`.
pub(super) fn add_hf(sum: &mut HfCounters, h: &HfCounters) {
    sum.total += h.total;
    sum.running += h.running;
    sum.cpu_wait += h.cpu_wait;
    sum.page_wait += h.page_wait;
    sum.io_wait += h.io_wait;
    sum.test_idle += h.test_idle;
    sum.test_idle_wait += h.test_idle_wait;
    sum.eligible += h.eligible;
    sum.dormant += h.dormant;
    sum.other += h.other;
    sum.in_queue += h.in_queue;
}

/// USEACT and USEINT for each virtual CPU of guest `gs` (the base one carries
/// the guest's storage and paging counts).
pub(super) fn activity(
    s: &mut RecordSet,
    l: &L,
    tod: u64,
    start_tod: u64,
    gs: &Guest,
    vcpus: impl Iterator<Item = VcpuSample>,
    mdc_avoided: u64,
) {
    let (u, sp, st, pio) = (gs.id, &gs.space, gs.stor, gs.pio);
    for (k, v) in vcpus.enumerate() {
        let base = k == 0;
        let mut r = s.push_layout(l.useact, tod);
        let f = |n: &str| l.useact.f(n);
        r.set_text(f("USEACT_VMDUSER"), u.userid);
        r.set_u(f("USEACT_VMDCPUAD"), v.addr as u64);
        r.set_u(f("USEACT_VMDTTIME"), dur(v.ttime));
        r.set_u(f("USEACT_VMDVTIME"), dur(v.vtime));
        r.set_u(f("USEACT_VMDVDSCT"), v.vio);
        r.set_u(f("USEACT_VMDRELSH"), u.share as u64);
        r.set_u(f("USEACT_VMDSSIZE"), sp.vpages as u64);
        r.set_u(f("USEACT_CALTODON"), start_tod + dur(u.logon_ns));
        if base {
            r.set_u(f("USEACT_VMDCTPVR"), sp.resident as u64);
            // Pages pinned by CP's LOCK (0 unless a LOCK is in force; the
            // name from zpmd's 5.3 struct, the meaning from the name and
            // FCX113's locked-pages columns, the offset INF).
            r.set_u(f("USEACT_VMDCTPVL"), sp.pinned as u64);
            r.set_u(f("USEACT_VMDWSSPR"), sp.wss as u64);
            r.set_u(f("USEACT_VMDCTXBK"), sp.xstor as u64);
            r.set_u(f("USEACT_CALCTPGS"), sp.dasd as u64);
            r.set_u(f("USEACT_VMDCTFLT"), st.faults);
            r.set_u(f("USEACT_CALCPPGR"), pio.read);
            r.set_u(f("USEACT_CALCPPGW"), pio.written);
            r.set_u(f("USEACT_CALCPPST"), st.steals);
            r.set_u(f("USEACT_CALCPMIG"), st.x_to_ds);
            if mdc_avoided > 0 {
                // Reads the minidisk cache satisfied (meaning inferred from
                // the name, as IODDEV's RDEVMCIA).
                r.set_u(fld!(l.useact, "USEACT_VMDMDCIA"), mdc_avoided);
            }
            r.set_u(f("USEACT_CALCPXWT"), st.ms_to_x);
            r.set_u(f("USEACT_CALCPXRD"), st.x_to_ms);
        }
        let h = &v.hf;
        let mut r = s.push_layout(l.useint, tod);
        let f = |n: &str| l.useint.f(n);
        r.set_text(f("USEINT_VMDUSER"), u.userid);
        r.set_u(f("USEINT_VMDCPUAD"), v.addr as u64);
        r.set_u(f("USEINT_HFSTCT"), h.total);
        r.set_u(f("USEINT_HFQUCT"), h.in_queue);
        r.set_u(f("USEINT_HFCPURN"), h.running);
        r.set_u(f("USEINT_HFCPUWT"), h.cpu_wait);
        r.set_u(f("USEINT_HFWTPAG"), h.page_wait);
        r.set_u(f("USEINT_HFIOWT"), h.io_wait);
        r.set_u(f("USEINT_HFTIDL"), h.test_idle);
        r.set_u(f("USEINT_HFTSVM"), h.test_idle_wait);
        r.set_u(f("USEINT_HFESVM"), h.eligible);
        r.set_u(f("USEINT_HFDORM"), h.dormant);
        r.set_u(f("USEINT_HFOTHR"), h.other);
    }
}

/// USELON: guest `u` logged on at `tod`.
pub(super) fn logon(ev: &mut RecordSet, l: &L, tod: u64, u: &GuestSample, sp: &SpaceSample) {
    let lon = l.uselon;
    let mut r = ev.push_layout(lon, tod);
    r.set_text(fld!(lon, "USELON_VMDUSER"), u.userid);
    r.set_u(fld!(lon, "USELON_VMDCPUCT"), u.nvcpu as u64);
    r.set_u(fld!(lon, "USELON_VMDRELSH"), u.share as u64);
    r.set_u(fld!(lon, "USELON_VMDSSIZE"), sp.vpages as u64);
    r.set_u(fld!(lon, "USELON_CALTODON"), tod);
}

/// USELOF: guest `u` logged off at `tod`, with its totals.
pub(super) fn logoff(
    ev: &mut RecordSet,
    l: &L,
    tod: u64,
    start_tod: u64,
    u: &GuestSample,
    pio: PageIo,
    vcpus: impl Iterator<Item = VcpuSample>,
) {
    let lof = l.uselof;
    let (tt, vt) = vcpus.fold((0, 0), |(a, b), v| (a + v.ttime, b + v.vtime));
    let mut r = ev.push_layout(lof, tod);
    r.set_text(fld!(lof, "USELOF_VMDUSER"), u.userid);
    r.set_u(fld!(lof, "USELOF_VMDTTIME"), dur(tt));
    r.set_u(fld!(lof, "USELOF_VMDVTIME"), dur(vt));
    r.set_u(fld!(lof, "USELOF_CALCPPGR"), pio.read);
    r.set_u(fld!(lof, "USELOF_CALCPPGW"), pio.written);
    r.set_u(fld!(lof, "USELOF_CALTODON"), start_tod + dur(u.logon_ns));
}
