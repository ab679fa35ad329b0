//! VDISK records: MRSTOASI (INFERRED map) for each VDISK's address space at
//! each sample, while the VDISK exists. Written only when the run has VDISKs,
//! so other runs are unchanged. The same record for each saved segment Linux
//! guests mount `-o xip` (the system-owned space holding its shared copy,
//! named `DCSS$` and the segment's name, VDISK fields 0): where its pages
//! are (resident, XSTOR, DASD); written only when such a segment exists.

use super::emitter::L;
use crate::model::Model;
use ztwin_monitor::writer::RecordSet;

/// One MRSTOASI per live VDISK: its space's resident, XSTOR and DASD pages,
/// its size, I/Os, pages moved, faults and spin (cumulative).
pub(super) fn sample(s: &mut RecordSet, l: &L, tod: u64, t: &Model, dur: impl Fn(u64) -> u64) {
    let asi = l.get("MRSTOASI");
    for x in &t.linux.xip {
        let sp = t.st.space(x.space);
        let mut r = s.push_layout(asi, tod);
        r.set_text(fld!(asi, "STOASI_ASCUSRID"), "SYSTEM");
        r.set_text(fld!(asi, "STOASI_ASCNAME"), &format!("DCSS${}", x.name));
        r.set_u(fld!(asi, "STOASI_ASCCTPRS"), sp.resident as u64);
        r.set_u(fld!(asi, "STOASI_ASCCTPXS"), sp.xstor as u64);
        r.set_u(fld!(asi, "STOASI_ASCCTPDS"), sp.dasd as u64);
    }
    if !t.vdisk.any() {
        return;
    }
    for d in t.vdisk.disks().iter().filter(|d| d.live) {
        let sp = t.st.space(d.space);
        let user = t.cpu.guest(d.owner).userid;
        let mut r = s.push_layout(asi, tod);
        r.set_text(fld!(asi, "STOASI_ASCUSRID"), "SYSTEM");
        r.set_text(fld!(asi, "STOASI_ASCNAME"), &d.space_name(user));
        r.set_u(fld!(asi, "STOASI_ASCCTPRS"), sp.resident as u64);
        r.set_u(fld!(asi, "STOASI_ASCCTPXS"), sp.xstor as u64);
        r.set_u(fld!(asi, "STOASI_ASCCTPDS"), sp.dasd as u64);
        r.set_u(fld!(asi, "STOASI_VDIBLKS"), d.blocks);
        r.set_u(fld!(asi, "STOASI_VDIIOCNT"), d.c.ios);
        r.set_u(fld!(asi, "STOASI_VDIPGRD"), d.c.pages_read);
        r.set_u(fld!(asi, "STOASI_VDIPGWT"), d.c.pages_written);
        r.set_u(fld!(asi, "STOASI_VDIFAULT"), d.c.faults);
        r.set_u(fld!(asi, "STOASI_VDISPIN"), dur(d.c.spin_ns));
    }
}
