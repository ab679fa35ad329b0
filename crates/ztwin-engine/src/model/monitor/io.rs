//! I/O records. Configuration: each subchannel (MTRDEV: type, CHPIDs, PAV
//! base or alias, HyperPAV pool, EDEV) and each HyperPAV pool (MTRHPP).
//! Sample: each subchannel's activity (IODDEV: SSCHs and the measured
//! pending, disconnect, connect and initial command response times, queue and
//! busy samples, I/Os the minidisk cache avoided, PAV use), the cache activity
//! of each base device on a caching control unit (IODCAD), each EDEV's SCSI
//! activity (IODSZI), each HyperPAV pool (IODHPP), and the channel paths'
//! measurement (SYTEPM, written with the I/O records).
//!
//! Devices of the constant service model (no `path`) get the records they
//! always had, byte for byte; the path model's devices add what it knows.

use super::dur;
use super::emitter::{l, L};
use crate::core::units::Ns;
use crate::model::io::{ChpSample, CuSample, DevKind, DevSample};
use crate::model::mdc::Mdc;
use ztwin_monitor::writer::{RecordMut, RecordSet};

/// Subchannel-measurement units: 128 µs.
#[inline]
fn scm(ns: u64) -> u64 {
    ns / 128_000
}

/// The eight CHPIDs of a subchannel's paths, as the 8-byte RDEVCHPS field
/// (unused positions zero) and the logical path mask (a bit per path).
fn chps(ids: &[u8]) -> (u64, u64) {
    let mut v = 0u64;
    let mut lpm = 0u64;
    for (k, &c) in ids.iter().take(8).enumerate() {
        v |= (c as u64) << (56 - 8 * k);
        lpm |= 0x80 >> k;
    }
    (v, lpm)
}

/// PAV flags of a subchannel [INF]: X'80' a base with static aliases, X'40'
/// a static alias, X'20' a HyperPAV base, X'10' a HyperPAV alias.
fn pav_flags(d: &DevSample, hyper_pool: bool, has_aliases: bool) -> u64 {
    match (d.alias_of, d.hyperpav) {
        (Some(_), _) => 0x40,
        (None, true) => 0x10,
        (None, false) if hyper_pool => 0x20,
        (None, false) if has_aliases => 0x80,
        _ => 0,
    }
}

/// Device type and class codes and the device identifier of a volume.
fn dev_ids(kind: DevKind) -> (u64, u64, u64) {
    match kind {
        // DASD class X'04'; 3390 ECKD, 9336 FBA (an EDEV is emulated as one).
        DevKind::Eckd => (0x04, 0x04, 0x3390),
        DevKind::Fba | DevKind::Edev => (0x04, 0x04, 0x9336),
    }
}

/// MTRDEV per subchannel; MTRHPP per HyperPAV pool.
pub(super) fn config<'a>(
    s: &mut RecordSet,
    tod: u64,
    devs: impl Iterator<Item = DevSample<'a>>,
    cus: impl Iterator<Item = CuSample<'a>>,
) {
    let dev = l("MRMTRDEV");
    let pools: Vec<u32> = cus
        .filter(|c| c.hyper_aliases > 0)
        .map(|c| c.index)
        .collect();
    for d in devs {
        let v = d.def;
        let mut r = s.push_layout(dev, tod);
        let (ty, class, id) = dev_ids(v.kind);
        r.set_u(fld!(dev, "MTRDEV_RDEVTYPE"), ty);
        r.set_u(fld!(dev, "MTRDEV_RDEVCLAS"), class);
        r.set_u(fld!(dev, "MTRDEV_RDEVDVID"), id);
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
        if v.path.is_none() {
            continue;
        }
        // The path model's devices: paths, PAV relations, pools, EDEV.
        let (chp, lpm) = chps(d.chpids);
        r.set_u(fld!(dev, "MTRDEV_RDEVCHPS"), chp);
        r.set_u(fld!(dev, "MTRDEV_RDEVLPM"), lpm);
        let hyper = pools.contains(&d.cu);
        let flags = pav_flags(&d, hyper, !v.aliases.is_empty());
        r.set_u(fld!(dev, "MTRDEV_RDEVPVFG"), flags);
        if let Some(base) = d.alias_of {
            r.set_u(fld!(dev, "MTRDEV_CALRDEVDEV"), base as u64);
            r.set_u(fld!(dev, "MTRDEV_CALRDEVSID"), 0x0001_0000 + base_index(&d));
        }
        if hyper || d.hyperpav {
            r.set_u(fld!(dev, "MTRDEV_RDEVHPPL"), d.cu as u64 + 1);
        }
        if v.kind == DevKind::Edev {
            // EDEV type 1: a SCSI LUN emulated as FBA [INF].
            r.set_u(fld!(dev, "MTRDEV_EDEVTYPE"), 1);
        }
    }
    let hpp = l("MRMTRHPP");
    for p in pools {
        let mut r = s.push_layout(hpp, tod);
        r.set_u(fld!(hpp, "MTRHPP_HPPOOLNM"), p as u64 + 1);
        r.set_u(fld!(hpp, "MTRHPP_HPPTOKEN"), p as u64 + 1);
    }
}

/// Subchannel index of an alias's base (bases are numbered by volume).
fn base_index(d: &DevSample) -> u64 {
    d.base_vol as u64
}

/// IODDEV of subchannel `d` (the I/Os the minidisk cache avoided on it:
/// `avoided`).
pub(super) fn ioddev(s: &mut RecordSet, l: &L, tod: u64, d: &DevSample, avoided: u64) {
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
    if avoided > 0 {
        r.set_u(fld!(l.ioddev, "IODDEV_RDEVMCIA"), avoided);
    }
    if v.path.is_none() {
        return;
    }
    let (chp, lpm) = chps(d.chpids);
    r.set_u(fld!(l.ioddev, "IODDEV_RDEVCHPS"), chp);
    r.set_u(fld!(l.ioddev, "IODDEV_RDEVLPM"), lpm);
    r.set_u(fld!(l.ioddev, "IODDEV_SCMIRTIM"), scm(d.c.cmr_ns));
    let busy = d.c.pend_ns + d.c.disc_ns + d.c.conn_ns;
    r.set_u(fld!(l.ioddev, "IODDEV_SCMDBTIM"), scm(busy));
    r.set_u(fld!(l.ioddev, "IODDEV_PAVUSES"), d.c.pav_uses);
    r.set_u(fld!(l.ioddev, "IODDEV_PAVINELG"), d.c.pav_inelig);
    if d.hyperpav {
        r.set_u(fld!(l.ioddev, "IODDEV_RDEVHPPL"), d.pool as u64);
    }
    if v.kind == DevKind::Edev {
        r.set_u(fld!(l.ioddev, "IODDEV_EDEVTYPE"), 1);
    }
}

/// IODCAD of base device `d` (on a caching control unit): its cache counters,
/// status 0 while the control unit caches it, -2 ("no data") while caching
/// is off for it (pinned data, a cache failure).
pub(super) fn iodcad(s: &mut RecordSet, tod: u64, d: &DevSample) {
    let Some(c) = d.cache else { return };
    let cad = l("MRIODCAD");
    let mut r = s.push_layout(cad, tod);
    r.set_u(fld!(cad, "IODCAD_RDEVSID"), 0x0001_0000 + d.index as u64);
    r.set_u(fld!(cad, "IODCAD_RDEVDEV"), d.devno as u64);
    if !d.cached {
        r.set_i(fld!(cad, "IODCAD_STATUS"), -2);
        return;
    }
    r.set_u(fld!(cad, "IODCAD_NRDREQ"), c.reads);
    r.set_u(fld!(cad, "IODCAD_NRDHIT"), c.read_hits);
    r.set_u(fld!(cad, "IODCAD_SQRDREQ"), c.seq_reads);
    r.set_u(fld!(cad, "IODCAD_SQRDHIT"), c.seq_hits);
    r.set_u(fld!(cad, "IODCAD_WRTREQ"), c.writes);
    r.set_u(fld!(cad, "IODCAD_DFWHIT"), c.write_hits);
    r.set_u(fld!(cad, "IODCAD_DFWDLY"), c.nvs_full);
    r.set_u(fld!(cad, "IODCAD_BYPASS"), c.bypass);
    r.set_u(fld!(cad, "IODCAD_STAGED"), c.stages);
}

/// IODSZI of EDEV `d`: transfers, 512-byte blocks read and written, the
/// mean transfer rate (KB/s) and block size, busy status, per path.
pub(super) fn iodszi(s: &mut RecordSet, tod: u64, now: Ns, d: &DevSample) {
    let szi = l("MRIODSZI");
    let mut r = s.push_layout(szi, tod);
    let c = &d.c;
    r.set_u(fld!(szi, "IODSZI_RDEVDEV"), d.devno as u64);
    r.set_u(
        fld!(szi, "IODSZI_DSKSTAT"),
        if d.busy { 0x80 } else { 0x40 },
    );
    r.set_u(
        fld!(szi, "IODSZI_DSKTIME"),
        dur(c.pend_ns + c.disc_ns + c.conn_ns) >> 12,
    );
    let kb = (c.bytes_rd + c.bytes_wr) / 1024;
    let secs = (now as f64 / 1e9).max(1e-9);
    r.set_u(fld!(szi, "IODSZI_DSKXRATE"), (kb as f64 / secs) as u64);
    r.set_u(fld!(szi, "IODSZI_DSKBLKSZ"), 512);
    r.set_u(fld!(szi, "IODSZI_DSKXFERS"), c.ssch);
    r.set_u(fld!(szi, "IODSZI_DSKBLKSR"), c.bytes_rd / 512);
    r.set_u(fld!(szi, "IODSZI_DSKBLKSW"), c.bytes_wr / 512);
    if let Some(&p) = d.chpids.first() {
        r.set_u(fld!(szi, "IODSZI_PTH1ID"), p as u64);
        r.set_u(fld!(szi, "IODSZI_PTH1XFERS"), c.ssch);
    }
}

/// IODHPP of HyperPAV pool `c`.
pub(super) fn iodhpp(s: &mut RecordSet, tod: u64, c: &CuSample) {
    let hpp = l("MRIODHPP");
    let mut r = s.push_layout(hpp, tod);
    r.set_u(fld!(hpp, "IODHPP_HPPOOLNM"), c.index as u64 + 1);
    r.set_u(fld!(hpp, "IODHPP_HPPTOKEN"), c.index as u64 + 1);
    r.set_u(fld!(hpp, "IODHPP_HPPNBASE"), c.bases as u64);
    r.set_u(fld!(hpp, "IODHPP_HPPNALIS"), c.hyper_aliases as u64);
    r.set_u(fld!(hpp, "IODHPP_HPPTRIES"), c.tries);
    r.set_u(fld!(hpp, "IODHPP_HPPFAILS"), c.fails);
    r.set_u(fld!(hpp, "IODHPP_HPPMINCT"), c.min_free as u64);
    r.set_u(fld!(hpp, "IODHPP_HPPMAXCT"), c.max_free as u64);
}

/// SYTEPM: the channel paths' measurements, one entry per CHPID (several
/// records when the entries outgrow a frame).
pub(super) fn sytepm(
    s: &mut RecordSet,
    tod: u64,
    chps: &[ChpSample],
) -> Result<(), ztwin_monitor::WriteError> {
    let epm = l("MRSYTEPM");
    let g = epm.group.expect("MRSYTEPM has channel-path entries");
    let (fixed, entry) = (epm.size as usize, g.entry_size as usize);
    let per = (4000 - fixed) / entry;
    for chunk in chps.chunks(per) {
        let len = fixed + entry * chunk.len();
        let mut r = s.push(epm.domain, epm.record, tod, len)?;
        r.set_u(fld!(epm, "SYTEPM_CALOFFST"), fixed as u64);
        r.set_u(fld!(epm, "SYTEPM_CALENTLN"), entry as u64);
        r.set_u(fld!(epm, "SYTEPM_CALENTCT"), chunk.len() as u64);
        for (k, c) in chunk.iter().enumerate() {
            let o = fixed + k * entry;
            let mut e = RecordMut {
                bytes: &mut r.bytes[o..o + entry],
            };
            use crate::model::io::params::ChpidType;
            let (cmg, ty) = match c.kind {
                ChpidType::Escon => (1, 1),
                ChpidType::Ficon => (2, 2),
                ChpidType::Fcp => (2, 3),
            };
            e.set_u(g.f("SYTEPM_CHPID"), c.id as u64);
            e.set_u(g.f("SYTEPM_CALCMG"), cmg);
            e.set_u(g.f("SYTEPM_CHPTYPE"), ty);
            e.set_u(g.f("SYTEPM_CALSLOTS"), c.slots as u64);
            e.set_u(g.f("SYTEPM_CALSPEED"), c.mb_s as u64);
            e.set_u(g.f("SYTEPM_CALTOD"), tod);
            // Busy as a share of the channel's capacity: the time its
            // transfers held it, over the transfers it carries at once.
            let busy = dur(c.busy_ns / c.slots.max(1) as u64);
            e.set_u(g.f("SYTEPM_CALTBUSY"), busy);
            e.set_u(g.f("SYTEPM_CALPBUSY"), busy);
            e.set_u(g.f("SYTEPM_CALPDATA"), c.bytes / 32);
            e.set_u(g.f("SYTEPM_CALPWORK"), c.ios);
        }
    }
    Ok(())
}

/// Whether the minidisk cache is worth a field: the I/Os it avoided on
/// volume `vol`.
pub(super) fn avoided(mdc: &Mdc, d: &DevSample) -> u64 {
    if d.alias_of.is_some() || d.hyperpav {
        0
    } else {
        mdc.avoided(d.index)
    }
}
