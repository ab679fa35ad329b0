//! I/O records: each device (IODDEV) and the configuration record MTRDEV.

use super::emitter::{l, L};
use crate::model::io::DevSample;
use ztwin_monitor::writer::RecordSet;

/// Subchannel-measurement units: 128 µs.
#[inline]
fn scm(ns: u64) -> u64 {
    ns / 128_000
}

/// MTRDEV per device.
pub(super) fn config<'a>(s: &mut RecordSet, tod: u64, devs: impl Iterator<Item = DevSample<'a>>) {
    let dev = l("MRMTRDEV");
    for d in devs {
        let v = d.def;
        let mut r = s.push_layout(dev, tod);
        r.set_u(fld!(dev, "MTRDEV_RDEVTYPE"), 0x04);
        r.set_u(fld!(dev, "MTRDEV_RDEVCLAS"), 0x04);
        r.set_u(fld!(dev, "MTRDEV_RDEVDVID"), 0x3390);
        let model: u64 = v
            .device_type
            .rsplit('-')
            .next()
            .and_then(|m| m.parse().ok())
            .unwrap_or(0);
        r.set_u(fld!(dev, "MTRDEV_CALMODLN"), model);
        r.set_u(fld!(dev, "MTRDEV_RDEVDEV"), d.devno as u64);
        r.set_u(fld!(dev, "MTRDEV_RDEVSID"), 0x0001_0000 + d.index as u64);
        r.set_text(fld!(dev, "MTRDEV_RDEVSER"), &v.volser);
        r.set_u(fld!(dev, "MTRDEV_RDEVCYLS"), v.cylinders as u64);
    }
}

/// IODDEV of device `d`.
pub(super) fn ioddev(s: &mut RecordSet, l: &L, tod: u64, d: &DevSample) {
    let v = d.def;
    let mut r = s.push_layout(l.ioddev, tod);
    let f = |n: &str| l.ioddev.f(n);
    r.set_u(f("IODDEV_RDEVSID"), 0x0001_0000 + d.index as u64);
    r.set_u(f("IODDEV_RDEVDEV"), d.devno as u64);
    r.set_u(f("IODDEV_RDEVTYPE"), 0x04);
    r.set_u(f("IODDEV_RDEVCLAS"), 0x04);
    r.set_text(f("IODDEV_RDEVSER"), &v.volser);
    r.set_u(f("IODDEV_CALFLAGS"), if v.paging { 0x80 } else { 0 });
    r.set_u(f("IODDEV_RDEVSSCH"), d.c.ssch);
    r.set_u(f("IODDEV_HFCOUNT"), d.c.hf_count);
    r.set_u(f("IODDEV_HFQUEUE"), d.c.hf_queue);
    r.set_u(f("IODDEV_HFBUSY"), d.c.hf_busy);
    r.set_u(f("IODDEV_SCMSSCH"), d.c.ssch);
    r.set_u(f("IODDEV_SCMCOUNT"), d.c.ssch);
    r.set_u(f("IODDEV_SCMCNTIM"), scm(d.c.conn_ns));
    r.set_u(f("IODDEV_SCMFPTIM"), scm(d.c.pend_ns));
    r.set_u(f("IODDEV_SCMDDTIM"), scm(d.c.disc_ns));
    r.set_u(f("IODDEV_SCGSSCH"), d.c.ssch);
    r.set_u(f("IODDEV_SCGCOUNT"), d.c.ssch);
}
