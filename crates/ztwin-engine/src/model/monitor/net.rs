//! QDIO records (domain 6): MRIODQDA when a guest's real QDIO device is
//! activated (its network workload starts), MRIODQDS at each sample for each
//! active device (SIGA counts, buffers and bytes moved, cumulative), MRIODQDD
//! with the final counts when it is deactivated (the workload stops or the
//! guest logs off). Written only when the run has QDIO devices, so other runs
//! are unchanged. MRIODVSW at each sample for each VSWITCH with an uplink
//! (its uplink's traffic, cumulative), only when there is one.

use super::emitter::L;
use crate::model::net::{DevEvent, DevSample, VswSample};
use ztwin_monitor::writer::{RecordMut, RecordSet};

/// Input and output queues a Linux qeth device establishes (\[E\]: one
/// inbound queue; four outbound queues for priority queueing on an OSA, one
/// on HiperSockets).
fn queues(format: u8) -> (u64, u64) {
    if format == 2 {
        (1, 1)
    } else {
        (1, 4)
    }
}

/// The counters MRIODQDS and MRIODQDD share; `p` selects the record's fields.
fn counters(
    r: &mut RecordMut,
    l: &'static ztwin_monitor::layout::RecordLayout,
    d: &DevSample,
    user: &str,
) {
    let f = |name: &str| l.f(name);
    let p = if l.name == "MRIODQDS" {
        "IODQDS_"
    } else {
        "IODQDD_"
    };
    let c = &d.c;
    r.set_u(f(&format!("{p}RDEVDEV")), d.devno as u64);
    // 32-bit counters wrap as CP's do.
    r.set_u(f(&format!("{p}QDIOCSGR")), c.siga_r & 0xFFFF_FFFF);
    r.set_u(f(&format!("{p}QDIOCSGW")), c.siga_w & 0xFFFF_FFFF);
    r.set_text(f(&format!("{p}VMDUSER")), user);
    r.set_u(f(&format!("{p}QDIOFMT")), d.format as u64);
    r.set_u(f(&format!("{p}CHPID")), d.chpid as u64);
    r.set_u(f(&format!("{p}BUFSOUT")), c.frames_out);
    r.set_u(f(&format!("{p}BUFSIN")), c.frames_in);
    r.set_u(f(&format!("{p}BYTESOUT")), c.bytes_out);
    r.set_u(f(&format!("{p}BYTESIN")), c.bytes_in);
}

/// One MRIODQDS per active device.
pub(super) fn sample<'a>(
    s: &mut RecordSet,
    l: &L,
    tod: u64,
    devs: impl Iterator<Item = (DevSample, &'a str)>,
) {
    let qds = l.get("MRIODQDS");
    for (d, user) in devs.filter(|(d, _)| d.active) {
        let mut r = s.push_layout(qds, tod);
        counters(&mut r, qds, &d, user);
    }
}

/// The activation or deactivation of device `d` owned by `user`.
pub(super) fn event(
    ev: &mut RecordSet,
    l: &L,
    tod: u64,
    kind: DevEvent,
    d: &DevSample,
    user: &str,
) {
    match kind {
        DevEvent::Activate => {
            let qda = l.get("MRIODQDA");
            let (inq, outq) = queues(d.format);
            let mut r = ev.push_layout(qda, tod);
            r.set_u(fld!(qda, "IODQDA_RDEVDEV"), d.devno as u64);
            r.set_text(fld!(qda, "IODQDA_VMDUSER"), user);
            // The guest's device is dedicated at the same number.
            r.set_u(fld!(qda, "IODQDA_VDEVDEV"), d.devno as u64);
            r.set_u(fld!(qda, "IODQDA_QDIOFMT"), d.format as u64);
            r.set_u(fld!(qda, "IODQDA_QDINPCT"), inq);
            r.set_u(fld!(qda, "IODQDA_QDIOUTCT"), outq);
        }
        DevEvent::Deactivate => {
            let qdd = l.get("MRIODQDD");
            let mut r = ev.push_layout(qdd, tod);
            counters(&mut r, qdd, d, user);
        }
    }
}

/// One MRIODVSW per VSWITCH with an uplink: the uplink's DATA device, the
/// VSWITCH's settings and controller, its bytes, packets and discards out
/// and in, the SIGAs CP issued to the OSA and the PCI interrupts it took
/// (32-bit counters wrap as CP's do).
pub(super) fn vswitch_sample(
    s: &mut RecordSet,
    l: &L,
    tod: u64,
    vsws: impl Iterator<Item = VswSample>,
) {
    let vsw = l.get("MRIODVSW");
    let f = |name: &str| vsw.f(name);
    let w32 = |x: u64| x & 0xFFFF_FFFF;
    for v in vsws {
        let Some((rdev, _, port)) = v.uplink else {
            continue;
        };
        let c = &v.c;
        let mut r = s.push_layout(vsw, tod);
        r.set_u(f("IODVSW_RDEVDEV"), rdev as u64);
        r.set_u(f("IODVSW_LANFSV"), v.queue_storage as u64);
        r.set_u(f("IODVSW_LANIPTO"), v.ip_timeout_min as u64 * 2);
        r.set_u(f("IODVSW_LANRDD_OSAPORTN"), port as u64);
        r.set_text(f("IODVSW_VMDUSER"), &v.controller);
        r.set_u(f("IODVSW_NICTXBYT"), c.tx_bytes);
        r.set_u(f("IODVSW_NICRXBYT"), c.rx_bytes);
        r.set_u(f("IODVSW_NICTXPKT"), w32(c.tx_packets));
        r.set_u(f("IODVSW_NICTXDSC"), w32(c.tx_discards));
        r.set_u(f("IODVSW_NICRXPKT"), w32(c.rx_packets));
        r.set_u(f("IODVSW_NICRXDSC"), w32(c.rx_discards));
        r.set_u(f("IODVSW_SIGWRITE"), w32(c.siga_w));
        r.set_u(f("IODVSW_PCIRCVD"), w32(c.pci_received));
        r.set_u(f("IODVSW_PCIPROC"), w32(c.pci_processed));
        if vsw.fields.iter().any(|x| x.name == "IODVSW_LANID") {
            r.set_text(f("IODVSW_LANID"), &format!("{:<8}{:<8}", "SYSTEM", v.name));
        }
    }
}
