//! The monitor emitter: configuration records at start, an event set for
//! logons/logoffs and a sample set every interval, written as genuine CP
//! Monitor records through `ztwin-monitor`. Counters are cumulative, as CP keeps
//! them; 16- and 32-bit fields wrap exactly as real ones do.

use super::dispatch::Sched;
use super::{RunError, Twin};
use crate::scenario::ProcessorType;
use crate::units::Ns;
use std::io::Write;
use ztwin_monitor::layout::{by_name, RecordLayout};
use ztwin_monitor::writer::{MonwriteWriter, RecordSet};
use ztwin_monitor::{tod, SetKind};

/// Field `name` of layout `l` (a `&'static RecordLayout`), found once per call
/// site: the samples set thousands of fields per interval, and finding each by
/// name every time was a visible share of a run. The cached field is used only
/// for the layout it was found in.
macro_rules! fld {
    ($l:expr, $name:literal) => {{
        static FOUND: std::sync::OnceLock<(usize, &'static ztwin_monitor::layout::FieldDef)> =
            std::sync::OnceLock::new();
        let l: &'static ztwin_monitor::layout::RecordLayout = $l;
        let key = l as *const ztwin_monitor::layout::RecordLayout as usize;
        let &(at, f) = FOUND.get_or_init(|| (key, l.f($name)));
        if at == key {
            f
        } else {
            l.f($name)
        }
    }};
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PendingEvent {
    Logon,
    Logoff,
}

/// TOD units per nanosecond is 4.096; durations are converted exactly via µs.
#[inline]
fn dur(ns: Ns) -> u64 {
    ns * 4096 / 1000
}

/// Subchannel-measurement units: 128 µs.
#[inline]
fn scm(ns: Ns) -> u64 {
    ns / 128_000
}

const PRBTM_START: u64 = 0x7FFF_FFFF_0000_0000;
/// Domain masks (bit 0 = domain 0).
const SAMPLE_DOMAINS: u8 = 0x80 | 0x40 | 0x10 | 0x08 | 0x04 | 0x02;
const EVENT_DOMAINS: u8 = 0x08;

struct L {
    sytsyp: &'static RecordLayout,
    sytprp: &'static RecordLayout,
    sytrsg: &'static RecordLayout,
    sytrsp: &'static RecordLayout,
    sytxsp: &'static RecordLayout,
    sytasg: &'static RecordLayout,
    sytuwt: &'static RecordLayout,
    sytxsg: &'static RecordLayout,
    sytcug: &'static RecordLayout,
    sytcup: &'static RecordLayout,
    storsg: &'static RecordLayout,
    storsp: &'static RecordLayout,
    stoasp: &'static RecordLayout,
    stoxsg: &'static RecordLayout,
    useact: &'static RecordLayout,
    useint: &'static RecordLayout,
    prcprp: &'static RecordLayout,
    ioddev: &'static RecordLayout,
}

fn l(name: &str) -> &'static RecordLayout {
    by_name(name).unwrap_or_else(|| panic!("layout {name} missing"))
}

pub struct Emitter<W: Write> {
    w: MonwriteWriter<W>,
    start_tod: u64,
    set: RecordSet,
    ev: RecordSet,
    lay: L,
    pub intervals: u64,
    pub records: u64,
}

impl<W: Write> Emitter<W> {
    pub fn new(out: W, start_unix_us: i64) -> Emitter<W> {
        Emitter {
            w: MonwriteWriter::new(out),
            start_tod: tod::from_unix_us(start_unix_us),
            set: RecordSet::new(SetKind::Sample),
            ev: RecordSet::new(SetKind::Event),
            lay: L {
                sytsyp: l("MRSYTSYP"),
                sytprp: l("MRSYTPRP"),
                sytrsg: l("MRSYTRSG"),
                sytrsp: l("MRSYTRSP"),
                sytxsp: l("MRSYTXSP"),
                sytasg: l("MRSYTASG"),
                sytuwt: l("MRSYTUWT"),
                sytxsg: l("MRSYTXSG"),
                sytcug: l("MRSYTCUG"),
                sytcup: l("MRSYTCUP"),
                storsg: l("MRSTORSG"),
                storsp: l("MRSTORSP"),
                stoasp: l("MRSTOASP"),
                stoxsg: l("MRSTOXSG"),
                useact: l("MRUSEACT"),
                useint: l("MRUSEINT"),
                prcprp: l("MRPRCPRP"),
                ioddev: l("MRIODDEV"),
            },
            intervals: 0,
            records: 0,
        }
    }

    fn tod_at(&self, ns: Ns) -> u64 {
        self.start_tod + dur(ns)
    }

    fn io(e: ztwin_monitor::WriteError) -> RunError {
        RunError::Io(format!("writing the MONWRITE file: {e}"))
    }

    pub fn bytes(&self) -> u64 {
        self.w.bytes_written()
    }

    pub fn finish(self) -> Result<W, RunError> {
        self.w.finish().map_err(Self::io)
    }

    /// Configuration records (sample configuration ending in D1R11, then the
    /// event profile).
    pub fn config(&mut self, t: &Twin) -> Result<(), RunError> {
        let tod = self.tod_at(0);
        let s = &mut self.set;
        s.clear();
        let sc = &t.sc;
        let sys = l("MRMTRSYS");
        {
            let mut r = s.push_layout(sys, tod);
            r.set_text(
                fld!(sys, "MTRSYS_HCPCPEID"),
                &format!("{}.0", sc.system.cp_level),
            );
            r.set_u(
                fld!(sys, "MTRSYS_SYSTODST"),
                tod.saturating_sub(dur(86_400_000_000_000)),
            );
            r.set_text(fld!(sys, "MTRSYS_SYSTMID"), &sc.system.system_id);
            let (mtype, model) = sc
                .system
                .cpu_model
                .split_once('-')
                .unwrap_or((&sc.system.cpu_model, ""));
            r.set_text(fld!(sys, "MTRSYS_SYSMTYPE"), mtype);
            r.set_text(fld!(sys, "MTRSYS_SYSMMODL"), model);
            r.set_u(fld!(sys, "MTRSYS_LPNUMBER"), 1);
            r.set_u(fld!(sys, "MTRSYS_CPUCOUNT"), t.cpus.len() as u64);
            r.set_u(fld!(sys, "MTRSYS_CPUCFGCT"), t.cpus.len() as u64);
            r.set_text(fld!(sys, "MTRSYS_LPARNAME"), &sc.system.lpar_name);
            r.set_u(fld!(sys, "MTRSYS_CPUDEDCT"), t.cpus.len() as u64);
        }
        let prp = l("MRMTRPRP");
        let cputy = match sc.system.processor_type {
            ProcessorType::CP => 0,
            ProcessorType::IFL => 3,
        };
        for c in 0..t.cpus.len() {
            let mut r = s.push_layout(prp, tod);
            r.set_u(fld!(prp, "MTRPRP_PFXCPUAD"), c as u64);
            r.set_u(fld!(prp, "MTRPRP_PFXCPUTY"), cputy);
        }
        let dev = l("MRMTRDEV");
        for (i, v) in t.pg.vols.iter().enumerate() {
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
            r.set_u(fld!(dev, "MTRDEV_RDEVDEV"), v.devno as u64);
            r.set_u(fld!(dev, "MTRDEV_RDEVSID"), 0x0001_0000 + i as u64);
            r.set_text(fld!(dev, "MTRDEV_RDEVSER"), &v.volser);
            r.set_u(fld!(dev, "MTRDEV_RDEVCYLS"), v.cylinders as u64);
        }
        let mem = l("MRMTRMEM");
        {
            let bytes = sc.system.central_storage.0;
            let mut r = s.push_layout(mem, tod);
            r.set_u(fld!(mem, "MTRMEM_RSASTORE"), bytes.min(u32::MAX as u64));
            r.set_u(fld!(mem, "MTRMEM_SYSGSTOR"), bytes);
        }
        let pag = l("MRMTRPAG");
        for (i, &vi) in t.pg.paging_vols.iter().enumerate() {
            let v = &t.pg.vols[vi as usize];
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
            r.set_u(fld!(pag, "MTRPAG_CALSLOTS"), v.slots as u64);
        }
        let spr = l("MRMTRSPR");
        {
            let mut r = s.push_layout(spr, tod);
            r.set_i(
                fld!(spr, "MTRSPR_INTERVAL"),
                (sc.monitor.sample_interval.0 / 1_000_000_000) as i64,
            );
            r.set_i(
                fld!(spr, "MTRSPR_HFRATE"),
                (sc.monitor.hf_rate.0 / 10_000_000) as i64,
            );
            r.set_u(fld!(spr, "MTRSPR_SDOMAINS"), SAMPLE_DOMAINS as u64);
            r.set_u(fld!(spr, "MTRSPR_HDOMAINS"), (0x08 | 0x04 | 0x02) as u64);
        }
        let usr = l("MRMTRUSR");
        for (gi, g) in t.guests.iter().enumerate() {
            if g.sched == Sched::LoggedOff {
                continue;
            }
            let mut r = s.push_layout(usr, tod);
            r.set_text(fld!(usr, "MTRUSR_VMDUSER"), &g.userid);
            r.set_u(fld!(usr, "MTRUSR_VMDCPUCT"), g.nvcpu as u64);
            r.set_u(
                fld!(usr, "MTRUSR_VMDFLAGS"),
                if g.quickdsp { 0x80 } else { 0 },
            );
            r.set_u(fld!(usr, "MTRUSR_VMDRELSH"), g.share as u64);
            r.set_u(fld!(usr, "MTRUSR_VMDSSIZE"), g.vpages as u64);
            r.set_u(
                fld!(usr, "MTRUSR_CALTODON"),
                self.start_tod + dur(g.logon_ns),
            );
            let _ = gi;
        }
        let xsg = l("MRMTRXSG");
        {
            let mut r = s.push_layout(xsg, tod);
            r.set_u(fld!(xsg, "MTRXSG_XSTOTALB"), t.xs.total as u64);
            r.set_u(fld!(xsg, "MTRXSG_SYSXTSIZ"), t.xs.total as u64);
        }
        self.records += s.len() as u64 + 1;
        self.w.write_sample_set(&self.set, tod).map_err(Self::io)?;
        let ev = &mut self.ev;
        ev.clear();
        let epr = l("MRMTREPR");
        ev.push_layout(epr, tod)
            .set_u(fld!(epr, "MTREPR_EDOMAINS"), EVENT_DOMAINS as u64);
        self.records += 1;
        self.w.write_event_set(&self.ev).map_err(Self::io)
    }

    /// Write pending events, then one interval's sample records.
    pub fn sample(&mut self, t: &mut Twin) -> Result<(), RunError> {
        let now = t.now;
        let tod = self.tod_at(now);
        if !t.events_pending.is_empty() {
            self.events(t)?;
        }
        let l = &self.lay;
        let s = &mut self.set;
        s.clear();
        let dpa = t.st.dpa() as u64;
        let cputy = match t.sc.system.processor_type {
            ProcessorType::CP => 0,
            ProcessorType::IFL => 3,
        };
        for (c, cpu) in t.cpus.iter().enumerate() {
            let cc = &cpu.c;
            let mut r = s.push_layout(l.sytsyp, tod);
            r.set_u(fld!(l.sytsyp, "SYTSYP_PFXCPUAD"), c as u64);
            r.set_u(fld!(l.sytsyp, "SYTSYP_PLSCTSS"), cc.ssch);
            r.set_u(fld!(l.sytsyp, "SYTSYP_PLSPIOPR"), cc.pages_read);
            r.set_u(fld!(l.sytsyp, "SYTSYP_PLSPIOPW"), cc.pages_written);
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
                dur(now.saturating_sub(busy)),
            );
            r.set_u(fld!(l.sytprp, "SYTPRP_PFXCPUTY"), cputy);
            let mut r = s.push_layout(l.sytrsp, tod);
            r.set_u(fld!(l.sytrsp, "SYTRSP_PFXCPUAD"), c as u64);
            r.set_u(fld!(l.sytrsp, "SYTRSP_PLSSTLFR"), cpu.steals);
            r.set_u(fld!(l.sytrsp, "SYTRSP_PLSPRQDF"), cpu.frame_waits);
            r.set_u(fld!(l.sytrsp, "SYTRSP_PFXCPUTY"), cputy);
            let mut r = s.push_layout(l.sytxsp, tod);
            r.set_u(fld!(l.sytxsp, "SYTXSP_PFXCPUAD"), c as u64);
            r.set_u(fld!(l.sytxsp, "SYTXSP_PLSPGIN"), cpu.xs_in);
            r.set_u(fld!(l.sytxsp, "SYTXSP_PLSPGOUT"), cpu.xs_out);
            r.set_u(fld!(l.sytxsp, "SYTXSP_PLSPGMRD"), cpu.migrated);
            r.set_u(fld!(l.sytxsp, "SYTXSP_PFXCPUTY"), cputy);
            let mut r = s.push_layout(l.storsp, tod);
            r.set_u(fld!(l.storsp, "STORSP_PFXCPUAD"), c as u64);
            r.set_u(fld!(l.storsp, "STORSP_PLSPREAD"), cc.pages_read);
            r.set_u(fld!(l.storsp, "STORSP_PLSPGDRD"), cc.pages_read);
            r.set_u(fld!(l.storsp, "STORSP_PLSPGDWT"), cc.pages_written);
            let bp = &cpu.by_pass;
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
            ] {
                r.set_u(l.storsp.f(name), v);
            }
            r.set_u(fld!(l.storsp, "STORSP_PFXCPUTY"), cputy);
            let mut r = s.push_layout(l.prcprp, tod);
            r.set_u(fld!(l.prcprp, "PRCPRP_PFXCPUAD"), c as u64);
            r.set_u(fld!(l.prcprp, "PRCPRP_PFXDSPCS"), cc.dispatches);
            r.set_u(fld!(l.prcprp, "PRCPRP_HFCOUNT"), cc.hf_count);
            r.set_u(fld!(l.prcprp, "PRCPRP_PFXCPUTY"), cputy);
        }
        {
            let st = &t.st;
            let mut r = s.push_layout(l.sytrsg, tod);
            r.set_u(fld!(l.sytrsg, "SYTRSG_RSACPLOK"), st.fixed as u64);
            r.set_u(fld!(l.sytrsg, "SYTRSG_RSANONPG"), st.fixed as u64);
            r.set_u(fld!(l.sytrsg, "SYTRSG_RSAPGABL"), dpa);
            r.set_u(fld!(l.sytrsg, "SYTRSG_RSAAVAIL"), st.avail.len() as u64);
            r.set_u(fld!(l.sytrsg, "SYTRSG_RSAFRQWT"), st.c.frame_waits);
            r.set_u(fld!(l.sytrsg, "SYTRSG_RSA2GAVL"), st.avail.len() as u64);
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
        }
        {
            let mut r = s.push_layout(l.sytasg, tod);
            r.set_u(fld!(l.sytasg, "SYTASG_CAL90FUL"), t.pg.full90);
            r.set_u(fld!(l.sytasg, "SYTASG_CALSLTA1"), t.pg.total_slots);
            r.set_u(fld!(l.sytasg, "SYTASG_CALSLTI1"), t.pg.used_slots);
        }
        {
            let mut hf = super::dispatch::HfCounters::default();
            for v in &t.vcpus {
                let h = &v.hf;
                hf.running += h.running;
                hf.cpu_wait += h.cpu_wait;
                hf.page_wait += h.page_wait;
                hf.io_wait += h.io_wait;
                hf.test_idle += h.test_idle;
                hf.eligible += h.eligible;
                hf.other += h.other;
                hf.in_queue += h.in_queue;
            }
            let mut r = s.push_layout(l.sytuwt, tod);
            r.set_u(fld!(l.sytuwt, "SYTUWT_CALTIDL"), hf.test_idle);
            r.set_i(fld!(l.sytuwt, "SYTUWT_CALIOWT"), hf.io_wait as i64);
            r.set_i(fld!(l.sytuwt, "SYTUWT_CALWTPAG"), hf.page_wait as i64);
            r.set_i(fld!(l.sytuwt, "SYTUWT_CALCPUWT"), hf.cpu_wait as i64);
            r.set_i(fld!(l.sytuwt, "SYTUWT_CALCPURN"), hf.running as i64);
            r.set_i(fld!(l.sytuwt, "SYTUWT_CALOTHR"), hf.other as i64);
            r.set_i(fld!(l.sytuwt, "SYTUWT_CALQDISP"), hf.in_queue as i64);
            r.set_i(fld!(l.sytuwt, "SYTUWT_CALELSVM"), hf.eligible as i64);
            r.set_u(fld!(l.sytuwt, "SYTUWT_SRMCELIG"), t.eligible.len() as u64);
        }
        {
            let xs = &t.xs;
            let mut r = s.push_layout(l.sytxsg, tod);
            r.set_u(fld!(l.sytxsg, "SYTXSG_XSTXBGET"), t.st.c.xstor_out);
            r.set_u(
                fld!(l.sytxsg, "SYTXSG_XSTXBREL"),
                t.st.c.xstor_in + t.st.c.migrated,
            );
            r.set_u(fld!(l.sytxsg, "SYTXSG_XSTCTXAV"), xs.free.len() as u64);
            r.set_u(fld!(l.sytxsg, "SYTXSG_XSTCPPAR"), xs.total as u64);
            let mut r = s.push_layout(l.stoxsg, tod);
            r.set_u(fld!(l.stoxsg, "STOXSG_XSTMIGS"), t.st.c.migrated);
            r.set_u(fld!(l.stoxsg, "STOXSG_XSTLOTHR"), xs.low as u64);
            let age = (xs.mean_age(now) / 1_000_000_000) as u64;
            r.set_u(fld!(l.stoxsg, "STOXSG_XSTSUMAG"), age);
        }
        {
            let n = t.cpus.len() as u64;
            let mut r = s.push_layout(l.sytcug, tod);
            r.set_u(fld!(l.sytcug, "SYTCUG_LCUTNPAR"), 1);
            r.set_u(fld!(l.sytcug, "SYTCUG_LCUTPCCT"), n);
            r.set_u(fld!(l.sytcug, "SYTCUG_LPNUMBER"), 1);
            r.set_u(fld!(l.sytcug, "SYTCUG_CPUCOUNT"), n);
            r.set_u(fld!(l.sytcug, "SYTCUG_CPUCFGCT"), n);
            r.set_text(fld!(l.sytcug, "SYTCUG_LPARNAME"), &t.sc.system.lpar_name);
            r.set_u(fld!(l.sytcug, "SYTCUG_CPUDEDCT"), n);
            // Entries at the layout's fixed-part size, of its entry size.
            let g = l.sytcup.group.expect("MRSYTCUP has logical-CPU entries");
            let (fixed, entry) = (l.sytcup.size as usize, g.entry_size as usize);
            let len = fixed + entry * t.cpus.len();
            let mut r = s.push(0, 16, tod, len).map_err(Self::io)?;
            r.set_u(fld!(l.sytcup, "SYTCUP_CALCPUOF"), fixed as u64);
            r.set_u(fld!(l.sytcup, "SYTCUP_CALCPULN"), entry as u64);
            r.set_u(fld!(l.sytcup, "SYTCUP_LCXLPNUM"), 1);
            r.set_u(fld!(l.sytcup, "SYTCUP_LCXCPCNT"), n);
            r.set_text(fld!(l.sytcup, "SYTCUP_LCXPNAME"), &t.sc.system.lpar_name);
            r.set_u(fld!(l.sytcup, "SYTCUP_LCXFLAGS"), 0x80); // dedicated processors
            r.set_u(fld!(l.sytcup, "SYTCUP_LCXCPUTY"), cputy);
            r.set_u(fld!(l.sytcup, "SYTCUP_LCXPHYCT"), n);
            for (c, cpu) in t.cpus.iter().enumerate() {
                let o = fixed + c * entry;
                let busy = cpu.c.emul_ns + cpu.c.cp_user_ns + cpu.c.sys_ns;
                let mut e = ztwin_monitor::writer::RecordMut {
                    bytes: &mut r.bytes[o..o + entry],
                };
                e.set_u(g.f("SYTCUP_LCUCPUID"), c as u64);
                e.set_u(g.f("SYTCUP_LCUCFLGS"), 0x80);
                e.set_u(g.f("SYTCUP_LCUCACTM"), dur(busy));
            }
        }
        for &vi in &t.pg.paging_vols {
            let v = &t.pg.vols[vi as usize];
            let mut r = s.push_layout(l.stoasp, tod);
            r.set_text(fld!(l.stoasp, "STOASP_CALVSER"), &v.volser);
            r.set_u(fld!(l.stoasp, "STOASP_RDEVDEV"), v.devno as u64);
            r.set_u(fld!(l.stoasp, "STOASP_RDEVSID"), 0x0001_0000 + vi as u64);
            r.set_u(fld!(l.stoasp, "STOASP_CALPAGE"), v.slots as u64);
            r.set_u(fld!(l.stoasp, "STOASP_EXPCTSRD"), v.c.ssch_rd);
            r.set_u(fld!(l.stoasp, "STOASP_EXPCTSWR"), v.c.ssch_wr);
            r.set_u(fld!(l.stoasp, "STOASP_EXPCTPRD"), v.c.pages_rd);
            r.set_u(fld!(l.stoasp, "STOASP_EXPCTPWR"), v.c.pages_wr);
            r.set_u(fld!(l.stoasp, "STOASP_EXPCURQC"), v.queue.len() as u64);
            r.set_u(fld!(l.stoasp, "STOASP_SCMSSCH"), v.c.ssch);
            r.set_u(fld!(l.stoasp, "STOASP_CALFLAG1"), 0x80);
            r.set_u(
                fld!(l.stoasp, "STOASP_EXPMLOAD"),
                (v.smoothed_ms * 1000.0) as u64,
            );
            r.set_u(fld!(l.stoasp, "STOASP_CPVALOCD"), v.used as u64);
            r.set_u(fld!(l.stoasp, "STOASP_SCGSSCH"), v.c.ssch);
        }
        for (gi, g) in t.guests.iter().enumerate() {
            if g.sched == Sched::LoggedOff {
                continue;
            }
            let _ = gi;
            for vc in g.vcpus() {
                let v = &t.vcpus[vc as usize];
                let base = vc == g.first_vcpu;
                let mut r = s.push_layout(l.useact, tod);
                let f = |n: &str| l.useact.f(n);
                r.set_text(f("USEACT_VMDUSER"), &g.userid);
                r.set_u(f("USEACT_VMDCPUAD"), v.addr as u64);
                r.set_u(f("USEACT_VMDTTIME"), dur(v.ttime));
                r.set_u(f("USEACT_VMDVTIME"), dur(v.vtime));
                r.set_u(f("USEACT_VMDVDSCT"), v.vio);
                r.set_u(f("USEACT_VMDRELSH"), g.share as u64);
                r.set_u(f("USEACT_VMDSSIZE"), g.vpages as u64);
                r.set_u(f("USEACT_CALTODON"), self.start_tod + dur(g.logon_ns));
                if base {
                    let c = &g.c;
                    r.set_u(f("USEACT_VMDCTPVR"), g.resident as u64);
                    r.set_u(f("USEACT_VMDWSSPR"), g.wss as u64);
                    r.set_u(f("USEACT_VMDCTXBK"), g.xstor as u64);
                    r.set_u(f("USEACT_CALCTPGS"), g.dasd as u64);
                    r.set_u(f("USEACT_VMDCTFLT"), c.faults);
                    r.set_u(f("USEACT_CALCPPGR"), c.page_reads);
                    r.set_u(f("USEACT_CALCPPGW"), c.page_writes);
                    r.set_u(f("USEACT_CALCPPST"), c.steals);
                    r.set_u(f("USEACT_CALCPMIG"), c.x_to_ds);
                    r.set_u(f("USEACT_CALCPXWT"), c.ms_to_x);
                    r.set_u(f("USEACT_CALCPXRD"), c.x_to_ms);
                }
                let h = &v.hf;
                let mut r = s.push_layout(l.useint, tod);
                let f = |n: &str| l.useint.f(n);
                r.set_text(f("USEINT_VMDUSER"), &g.userid);
                r.set_u(f("USEINT_VMDCPUAD"), v.addr as u64);
                r.set_u(f("USEINT_HFSTCT"), h.total);
                r.set_u(f("USEINT_HFQUCT"), h.in_queue);
                r.set_u(f("USEINT_HFCPURN"), h.running);
                r.set_u(f("USEINT_HFCPUWT"), h.cpu_wait);
                r.set_u(f("USEINT_HFWTPAG"), h.page_wait);
                r.set_u(f("USEINT_HFIOWT"), h.io_wait);
                r.set_u(f("USEINT_HFTIDL"), h.test_idle);
                r.set_u(f("USEINT_HFESVM"), h.eligible);
                r.set_u(f("USEINT_HFDORM"), h.dormant);
                r.set_u(f("USEINT_HFOTHR"), h.other);
            }
        }
        for (i, v) in t.pg.vols.iter().enumerate() {
            let mut r = s.push_layout(l.ioddev, tod);
            let f = |n: &str| l.ioddev.f(n);
            r.set_u(f("IODDEV_RDEVSID"), 0x0001_0000 + i as u64);
            r.set_u(f("IODDEV_RDEVDEV"), v.devno as u64);
            r.set_u(f("IODDEV_RDEVTYPE"), 0x04);
            r.set_u(f("IODDEV_RDEVCLAS"), 0x04);
            r.set_text(f("IODDEV_RDEVSER"), &v.volser);
            r.set_u(f("IODDEV_CALFLAGS"), if v.paging { 0x80 } else { 0 });
            r.set_u(f("IODDEV_RDEVSSCH"), v.c.ssch);
            r.set_u(f("IODDEV_HFCOUNT"), v.c.hf_count);
            r.set_u(f("IODDEV_HFQUEUE"), v.c.hf_queue);
            r.set_u(f("IODDEV_HFBUSY"), v.c.hf_busy);
            r.set_u(f("IODDEV_SCMSSCH"), v.c.ssch);
            r.set_u(f("IODDEV_SCMCOUNT"), v.c.ssch);
            r.set_u(f("IODDEV_SCMCNTIM"), scm(v.c.conn_ns));
            r.set_u(f("IODDEV_SCMFPTIM"), scm(v.c.pend_ns));
            r.set_u(f("IODDEV_SCMDDTIM"), scm(v.c.disc_ns));
            r.set_u(f("IODDEV_SCGSSCH"), v.c.ssch);
            r.set_u(f("IODDEV_SCGCOUNT"), v.c.ssch);
        }
        self.records += s.len() as u64 + 1;
        self.intervals += 1;
        self.w.write_sample_set(&self.set, tod).map_err(Self::io)
    }

    fn events(&mut self, t: &mut Twin) -> Result<(), RunError> {
        let lon = l("MRUSELON");
        let lof = l("MRUSELOF");
        let ev = &mut self.ev;
        ev.clear();
        for (kind, g, at) in t.events_pending.drain(..) {
            let gu = &t.guests[g as usize];
            let tod = self.start_tod + dur(at);
            match kind {
                PendingEvent::Logon => {
                    let mut r = ev.push_layout(lon, tod);
                    r.set_text(fld!(lon, "USELON_VMDUSER"), &gu.userid);
                    r.set_u(fld!(lon, "USELON_VMDCPUCT"), gu.nvcpu as u64);
                    r.set_u(fld!(lon, "USELON_VMDRELSH"), gu.share as u64);
                    r.set_u(fld!(lon, "USELON_VMDSSIZE"), gu.vpages as u64);
                    r.set_u(fld!(lon, "USELON_CALTODON"), tod);
                }
                PendingEvent::Logoff => {
                    let (tt, vt) = gu.vcpus().fold((0, 0), |(a, b), v| {
                        (a + t.vcpus[v as usize].ttime, b + t.vcpus[v as usize].vtime)
                    });
                    let mut r = ev.push_layout(lof, tod);
                    r.set_text(fld!(lof, "USELOF_VMDUSER"), &gu.userid);
                    r.set_u(fld!(lof, "USELOF_VMDTTIME"), dur(tt));
                    r.set_u(fld!(lof, "USELOF_VMDVTIME"), dur(vt));
                    r.set_u(fld!(lof, "USELOF_CALCPPGR"), gu.c.page_reads);
                    r.set_u(fld!(lof, "USELOF_CALCPPGW"), gu.c.page_writes);
                    r.set_u(
                        fld!(lof, "USELOF_CALTODON"),
                        self.start_tod + dur(gu.logon_ns),
                    );
                }
            }
        }
        if self.ev.is_empty() {
            return Ok(());
        }
        self.records += self.ev.len() as u64;
        self.w.write_event_set(&self.ev).map_err(Self::io)
    }
}
