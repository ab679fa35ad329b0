//! The emitter: writes the configuration set at the start, then every
//! interval the pending event records and one sample set, as genuine CP
//! Monitor records through `ztwin-monitor`. It asks the components for their
//! samples and hands them to the domain files in the order of the set.

use super::{dur, io, linux, net, paging, segments, storage, system, user, vdisk, PendingEvent};
use crate::core::units::Ns;
use crate::model::{Model, RunError, Twin};
use std::io::Write;
use ztwin_monitor::layout::{by_name_release, RecordLayout, Release};
use ztwin_monitor::writer::{MonwriteWriter, RecordSet};
use ztwin_monitor::{tod, SetKind};

/// Domain masks (X'80' = domain 0): user events (domain 4); with QDIO
/// devices also I/O events (domain 6).
const EVENT_DOMAINS: u8 = 0x08;
const EVENT_DOMAINS_IO: u8 = 0x02;

/// The layouts of every record the emitter writes, in the release of the
/// scenario's `cp_level` (its sizes and field offsets), found once.
pub(super) struct L {
    pub sytsyp: &'static RecordLayout,
    pub sytprp: &'static RecordLayout,
    pub sytrsg: &'static RecordLayout,
    pub sytrsp: &'static RecordLayout,
    pub sytxsp: &'static RecordLayout,
    pub sytasg: &'static RecordLayout,
    pub sytuwt: &'static RecordLayout,
    pub sytxsg: &'static RecordLayout,
    pub sytcug: &'static RecordLayout,
    pub sytcup: &'static RecordLayout,
    pub storsg: &'static RecordLayout,
    pub storsp: &'static RecordLayout,
    pub stoasp: &'static RecordLayout,
    pub stoxsg: &'static RecordLayout,
    pub useact: &'static RecordLayout,
    pub useint: &'static RecordLayout,
    pub prcprp: &'static RecordLayout,
    pub ioddev: &'static RecordLayout,
    pub mtrsys: &'static RecordLayout,
    pub mtrprp: &'static RecordLayout,
    pub mtrspr: &'static RecordLayout,
    pub mtrepr: &'static RecordLayout,
    pub mtrecm: &'static RecordLayout,
    pub mtrdev: &'static RecordLayout,
    pub mtrpag: &'static RecordLayout,
    pub mtrmem: &'static RecordLayout,
    pub mtrxsg: &'static RecordLayout,
    pub mtrusr: &'static RecordLayout,
    pub uselon: &'static RecordLayout,
    pub uselof: &'static RecordLayout,
    pub mtrhpp: &'static RecordLayout,
    pub iodcad: &'static RecordLayout,
    pub iodszi: &'static RecordLayout,
    pub iodhpp: &'static RecordLayout,
    pub sytepm: &'static RecordLayout,
    /// The release the layouts are of (for the records looked up by name).
    pub release: Release,
}

impl L {
    /// Layout `name` of the run's release, for records written rarely
    /// (saved segments and spool) and not kept as fields.
    pub fn get(&self, name: &str) -> &'static RecordLayout {
        by_name_release(name, self.release)
            .unwrap_or_else(|| panic!("layout {name} missing for z/VM {}", self.release))
    }

    /// The layouts of `release`.
    pub fn new(release: Release) -> L {
        let l = |name: &str| {
            by_name_release(name, release)
                .unwrap_or_else(|| panic!("layout {name} missing for z/VM {release}"))
        };
        L {
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
            mtrsys: l("MRMTRSYS"),
            mtrprp: l("MRMTRPRP"),
            mtrspr: l("MRMTRSPR"),
            mtrepr: l("MRMTREPR"),
            mtrecm: l("MRMTRECM"),
            mtrdev: l("MRMTRDEV"),
            mtrpag: l("MRMTRPAG"),
            mtrmem: l("MRMTRMEM"),
            mtrxsg: l("MRMTRXSG"),
            mtrusr: l("MRMTRUSR"),
            uselon: l("MRUSELON"),
            uselof: l("MRUSELOF"),
            mtrhpp: l("MRMTRHPP"),
            iodcad: l("MRIODCAD"),
            iodszi: l("MRIODSZI"),
            iodhpp: l("MRIODHPP"),
            sytepm: l("MRSYTEPM"),
            release,
        }
    }
}

/// A write error as the run reports it.
pub(super) fn write_err(e: ztwin_monitor::WriteError) -> RunError {
    RunError::Io(format!("writing the MONWRITE file: {e}"))
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
    /// An emitter writing to `out` records of z/VM `release` (the
    /// scenario's `cp_level`: every record at that release's size, its fields
    /// at that release's offsets).
    pub fn new(out: W, start_unix_us: i64, release: Release) -> Emitter<W> {
        Emitter {
            w: MonwriteWriter::new(out),
            start_tod: tod::from_unix_us(start_unix_us),
            set: RecordSet::new(SetKind::Sample),
            ev: RecordSet::new(SetKind::Event),
            lay: L::new(release),
            intervals: 0,
            records: 0,
        }
    }

    fn tod_at(&self, ns: Ns) -> u64 {
        self.start_tod + dur(ns)
    }

    pub fn bytes(&self) -> u64 {
        self.w.bytes_written()
    }

    pub fn finish(self) -> Result<W, RunError> {
        self.w.finish().map_err(write_err)
    }

    /// Configuration records (sample configuration ending in D1R11, then the
    /// event profile).
    pub fn config(&mut self, tw: &Twin) -> Result<(), RunError> {
        let t = &tw.model;
        let tod = self.tod_at(0);
        let s = &mut self.set;
        s.clear();
        let id = &t.mon.id;
        let ncpu = t.cpu.counters().len();
        let l = &self.lay;
        system::config(s, l, tod, id, ncpu);
        io::config(s, l, tod, t.io.devices(), t.io.control_units());
        storage::config_mem(s, l, tod, id.central_storage);
        paging::config(s, l, tod, t.pg.volumes(), &t.io);
        segments::config(s, l, tod, &t.spool, &t.io);
        system::config_spr(s, l, tod, &t.mon);
        for g in 0..t.cpu.guest_count() {
            let u = t.cpu.guest(g);
            if u.logged_on {
                user::config(s, l, tod, self.start_tod, &u, &t.st.space(g));
            }
        }
        storage::config_xsg(s, l, tod, t.st.sample(tw.core.now).xs_total);
        self.records += s.len() as u64 + 1;
        self.w.write_sample_set(&self.set, tod).map_err(write_err)?;
        let ev = &mut self.ev;
        ev.clear();
        let epr = self.lay.mtrepr;
        ev.push_layout(epr, tod).set_u(
            fld!(epr, "MTREPR_EDOMAINS"),
            (EVENT_DOMAINS | if t.net.any() { EVENT_DOMAINS_IO } else { 0 }) as u64,
        );
        self.records += 1;
        self.w.write_event_set(&self.ev).map_err(write_err)
    }

    /// Write pending events, then one interval's sample records.
    pub fn sample(&mut self, tw: &mut Twin) -> Result<(), RunError> {
        let now = tw.core.now;
        let t = &mut tw.model;
        let tod = self.tod_at(now);
        let pending = t.mon.take_events();
        let r = if pending.is_empty() {
            Ok(())
        } else {
            self.events(t, &pending)
        };
        t.mon.return_events(pending);
        r?;
        self.segment_events(t)?;
        self.net_events(t)?;
        if t.linux.any() {
            t.linux_advance(now);
        }
        let t = &tw.model;
        let l = &self.lay;
        let s = &mut self.set;
        s.clear();
        let cputy = t.mon.id.cpu_type;
        let st = t.st.sample(now);
        let pg = t.pg.sample();
        let ssch = t.io.ssch_by_cpu();
        let pio = t.pg.by_cpu();
        let stc = t.st.by_cpu();
        // Per CPU, its system and storage records side by side.
        let zvm = t.cec.as_ref().and_then(|x| x.partitions().next());
        for (c, cc) in t.cpu.counters().enumerate() {
            let steal = zvm.map_or(0, |z| z.lcpus[c].steal_ns());
            system::cpu(s, l, tod, now, c, cputy, &cc, ssch[c], pio[c], steal);
            storage::cpu(s, l, tod, c, cputy, &stc[c], pio[c]);
            system::prcprp(s, l, tod, c, cputy, &cc);
        }
        let mdc = t
            .mdc
            .configured()
            .then(|| t.mdc.sample(st.dpa as u64, st.xs_total as u64));
        let age = t.st.era_c().then(|| t.st.agelist());
        storage::system(s, l, tod, &st, mdc.as_ref(), age.as_ref());
        let spool = t.spool.exists().then(|| t.spool.sample());
        paging::sytasg(s, l, tod, &pg, spool.as_ref());
        let mut hf = crate::model::cpu::HfCounters::default();
        for g in 0..t.cpu.guest_count() {
            for v in t.cpu.vcpus(g) {
                user::add_hf(&mut hf, &v.hf);
            }
        }
        system::sytuwt(s, l, tod, &hf, t.cpu.eligible_count());
        storage::xstor(s, l, tod, &st, mdc.as_ref());
        match &t.cec {
            Some(cec) => system::cec(s, l, tod, &t.mon.id, cec)?,
            None => system::lpar(s, l, tod, &t.mon.id, t.cpu.counters())?,
        }
        for v in t.pg.volumes() {
            paging::stoasp(s, l, tod, &v, &t.io.device(v.dev));
        }
        segments::sample(s, l, tod, self.start_tod, &t.seg, &t.spool, &t.io, dur);
        vdisk::sample(s, l, tod, t, dur);
        if t.linux.any() {
            for g in 0..t.cpu.guest_count() {
                let u = t.cpu.guest(g);
                let on = t.linux.guest(g).is_some_and(|x| x.p.appldata);
                if let (true, true, Some(lx)) = (u.logged_on, on, t.linux.sample(g)) {
                    let since = now.saturating_sub(u.logon_ns);
                    linux::sample(s, l, tod, u.userid, since, &lx, t.cpu.vcpus(g));
                }
            }
        }
        for g in 0..t.cpu.guest_count() {
            let u = t.cpu.guest(g);
            if u.logged_on {
                let guest = user::Guest {
                    id: &u,
                    space: t.st.space(g),
                    stor: t.st.guest(g),
                    pio: t.pg.guest(g),
                };
                let avoided = t.mdc.guest_avoided(g);
                user::activity(s, l, tod, self.start_tod, &guest, t.cpu.vcpus(g), avoided);
            }
        }
        for d in t.io.devices() {
            io::ioddev(s, l, tod, &d, io::avoided(&t.mdc, &d));
        }
        // The path model's records: cache activity, EDEVs, HyperPAV pools,
        // the channel paths.
        for d in t.io.devices() {
            if d.cache.is_some() {
                io::iodcad(s, l, tod, &d);
            }
            if d.def.kind == crate::model::io::DevKind::Edev && d.alias_of.is_none() {
                io::iodszi(s, l, tod, now, &d);
            }
        }
        for c in
            t.io.control_units()
                .filter(|c| c.hyper_aliases > 0 && c.bases > 0)
        {
            io::iodhpp(s, l, tod, &c);
        }
        if t.net.any() {
            let devs = t.net.devices().map(|d| (d, t.cpu.guest(d.guest).userid));
            net::sample(s, l, tod, devs);
        }
        if t.net.any_uplink() {
            net::vswitch_sample(s, l, tod, t.net.vswitches());
        }
        let chps: Vec<_> = t.io.chpids().collect();
        if !chps.is_empty() {
            io::sytepm(s, l, tod, &chps).map_err(write_err)?;
        }
        self.records += s.len() as u64 + 1;
        self.intervals += 1;
        self.w.write_sample_set(&self.set, tod).map_err(write_err)
    }

    /// The system abended at `at` (simulated ns) with `code`: write the events
    /// still pending (they happened before it) and an event record that says
    /// so, MRMTRECM with the text "ZTWIN: SYSTEM ABEND code AT ...: reason".
    /// A real MONWRITE file simply ends where CP stopped sending data; the
    /// twin says why, and a report's MONSET shows it with the monitor commands.
    pub fn abend(
        &mut self,
        tw: &mut Twin,
        at: Ns,
        code: &str,
        reason: &str,
    ) -> Result<(), RunError> {
        let t = &mut tw.model;
        let pending = t.mon.take_events();
        let r = if pending.is_empty() {
            Ok(())
        } else {
            self.events(t, &pending)
        };
        t.mon.return_events(pending);
        r?;
        let tod = self.tod_at(at);
        let when = {
            let mut s = String::new();
            tod::write_iso8601(&mut s, tod::to_unix_us(tod));
            s
        };
        let text = format!("ZTWIN: SYSTEM ABEND {code} AT {when}: {reason}");
        let ecm = self.lay.mtrecm;
        let cmd = fld!(ecm, "MTRECM_CALCMD");
        let len = (ecm.size as usize).max(cmd.offset as usize + text.len());
        let ev = &mut self.ev;
        ev.clear();
        ev.push(ecm.domain, ecm.record, tod, len)
            .map_err(write_err)?
            .set(cmd, &ztwin_monitor::Value::Text(text))
            .map_err(|e| RunError::Io(format!("writing the abend record: {e}")))?;
        self.records += 1;
        self.w.write_event_set(&self.ev).map_err(write_err)
    }

    /// The saved segments' event records since the last interval.
    fn segment_events(&mut self, t: &mut Model) -> Result<(), RunError> {
        let events = t.seg.take_events();
        if events.is_empty() {
            return Ok(());
        }
        let l = &self.lay;
        let ev = &mut self.ev;
        ev.clear();
        segments::events(ev, l, self.start_tod, &t.seg, &events, dur);
        if self.ev.is_empty() {
            return Ok(());
        }
        self.records += self.ev.len() as u64;
        self.w.write_event_set(&self.ev).map_err(write_err)
    }

    /// QDIO device activations and deactivations since the last interval.
    fn net_events(&mut self, t: &mut Model) -> Result<(), RunError> {
        let events = t.net.take_events();
        if events.is_empty() {
            return Ok(());
        }
        let ev = &mut self.ev;
        ev.clear();
        for &(kind, dev, at) in &events {
            let d = t.net.device(dev);
            let user = t.cpu.guest(d.guest).userid;
            net::event(ev, &self.lay, self.start_tod + dur(at), kind, &d, user);
        }
        self.records += self.ev.len() as u64;
        self.w.write_event_set(&self.ev).map_err(write_err)
    }

    fn events(&mut self, t: &Model, pending: &[(PendingEvent, u32, Ns)]) -> Result<(), RunError> {
        let ev = &mut self.ev;
        ev.clear();
        for &(kind, g, at) in pending {
            let u = t.cpu.guest(g);
            let tod = self.start_tod + dur(at);
            match kind {
                PendingEvent::Logon => user::logon(ev, &self.lay, tod, &u, &t.st.space(g)),
                PendingEvent::Logoff => {
                    user::logoff(
                        ev,
                        &self.lay,
                        tod,
                        self.start_tod,
                        &u,
                        t.pg.guest(g),
                        t.cpu.vcpus(g),
                    );
                    if let Some(lx) = t.linux.ended(g) {
                        let since = at.saturating_sub(u.logon_ns);
                        linux::ended(ev, &self.lay, tod, u.userid, since, &lx, t.cpu.vcpus(g));
                    }
                }
            }
        }
        if self.ev.is_empty() {
            return Ok(());
        }
        self.records += self.ev.len() as u64;
        self.w.write_event_set(&self.ev).map_err(write_err)
    }
}
