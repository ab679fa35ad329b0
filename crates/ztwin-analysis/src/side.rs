//! The NSS report's side records reduced as the interval kernel's read goes
//! (issue 11: memory flat in file size).
//!
//! NSS reads saved-segment and spool records that are not part of the
//! kernel's catalog: MRSTOSHR (per saved segment), MRSYTSHS (shared storage),
//! MRSTOASP with spool slots (spool volumes) and the segment events MRSTOSHS,
//! MRSTOSHL and MRSTOSHD. Of them it needs, within the window of the
//! intervals read (after the first interval's start, up to the last one's
//! end; events from the start):
//!
//! * per saved segment name: the last record's spool ID and users, the
//!   resident pages' sum and maximum and the number of samples;
//! * shared storage: the number of samples, the sums of active DCSSs and
//!   resident shared frames, and the frames' maximum;
//! * per spool volume: its first record's volser (whole file), the counters
//!   of its last record at or before the window's start and of its last
//!   record in the window;
//! * the events in the window.
//!
//! [`SegmentSide`] keeps only these while the file is read: a record is
//! folded as soon as where it lies relative to the window is known (the
//! window's start is the first interval's, its end moves with each interval),
//! and waits (a few records: those after the last interval's end) until then.
//! Before the first interval, a record at or before the end of the last
//! sample set the kernel closed lies before the window's start (an interval
//! starts at a set's end). What was assumed is checked ([`SegmentSide::exact`]):
//! interval ends that go back, or a first interval that starts before a
//! record already taken as before it, make the result inexact (the caller
//! then reads the records again).

use crate::kernel::{Kernel, EPOCH_1900_US};
use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use ztwin_monitor::layout::{decode_field, FieldDef, Value};
use ztwin_monitor::{tod, RecordRef};

/// MRSTOSHR's fields read: name, spool ID, users shared and exclusive,
/// resident pages.
pub const SHR_FIELDS: [&str; 5] = [
    "STOSHR_SNTNAME",
    "STOSHR_SDFIDNUM",
    "STOSHR_SNTUSRSH",
    "STOSHR_SNTUSREX",
    "STOSHR_ASCCTPRS",
];
/// MRSYTSHS's fields read: active DCSSs, resident shared frames.
pub const SHS_FIELDS: [&str; 2] = ["SYTSHS_SYSTADCS", "SYTSHS_RSASHARE"];
/// MRSTOASP's fields read: spool slots (a spool volume's are not zero),
/// device, volser, then the counters kept ([`SPOOL_COUNTERS`]).
pub const ASP_FIELDS: [&str; 7] = [
    "STOASP_CALSPOOL",
    "STOASP_RDEVDEV",
    "STOASP_CALVSER",
    "STOASP_CPVALOCD",
    "STOASP_EXPCTPWR",
    "STOASP_EXPCTPRD",
    "STOASP_SCGSSCH",
];
/// The spool counters kept per record, in this order.
pub const SPOOL_COUNTERS: [&str; 5] = ["CALSPOOL", "CPVALOCD", "EXPCTPWR", "EXPCTPRD", "SCGSSCH"];
/// The segment events: saved, loaded by its first user, removed by its last.
pub const EVENTS: [&str; 3] = ["MRSTOSHS", "MRSTOSHL", "MRSTOSHD"];
/// Records waiting for the window before the first interval beyond which the
/// result is given up as inexact (a file whose sets never close).
const MAX_PENDING: usize = 1 << 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Shr,
    Shs,
    Asp,
    Event(u8),
}

/// A record type read: what it is and its fields (`None`: not in its layout).
struct Type {
    kind: Kind,
    fields: Vec<Option<&'static FieldDef>>,
}

/// One record's values, waiting or being folded.
struct Row {
    offset: u64,
    tod: i64,
    kind: Kind,
    /// Spool volume: the device.
    dev: i64,
    /// MRSTOSHR: the segment name; an event: its SDFFN.
    name: Option<Value>,
    /// MRSTOSHR: spool ID, users shared, exclusive, resident pages; MRSYTSHS:
    /// DCSSs, frames; MRSTOASP: [`SPOOL_COUNTERS`]; an event: its SDFIDNUM.
    v: [i64; 5],
}

/// A spool volume.
#[derive(Debug, Default, Clone)]
pub struct SpoolVolume {
    /// CALVSER of its first record in the file.
    pub volser: Option<Value>,
    /// (offset, [`SPOOL_COUNTERS`]) of its last record at or before the
    /// window's start, and of its last record in the window.
    pub first: Option<(u64, [i64; 5])>,
    pub last: Option<(u64, [i64; 5])>,
}

/// A saved segment name's samples in the window.
#[derive(Debug, Clone)]
pub struct SegmentSamples {
    /// The last sample's offset, spool ID, users shared, users exclusive.
    pub last: (u64, i64, i64, i64),
    pub resident_sum: i128,
    pub resident_max: i64,
    pub samples: u64,
}

/// A segment event in the window.
#[derive(Debug, Clone)]
pub struct SegmentEvent {
    pub offset: u64,
    /// Microseconds since 1970.
    pub tod: i64,
    /// Index in [`EVENTS`].
    pub kind: u8,
    pub name: Option<Value>,
    pub spoolid: i64,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Before,
    During,
    After,
    Waiting,
}

/// NSS's side records, reduced as they are read (see the module's text).
#[derive(Default)]
pub struct SegmentSide {
    /// Per domain, per record number: 0 not seen yet, 1 not read, 2 + i
    /// the type `types[i]` (a lookup per record of the file).
    slots: Vec<Vec<u8>>,
    types: Vec<Type>,
    /// The window: first interval's start, last interval's end (µs since 1970).
    pub lo: Option<i64>,
    pub hi: Option<i64>,
    /// No more intervals come (the kernel finished).
    closed: bool,
    /// Before the first interval: the end of the last set the kernel closed.
    bound: Option<i64>,
    /// The largest `bound` a record was taken as before the window by.
    bound_used: Option<i64>,
    intervals_seen: u64,
    pending: Vec<Row>,
    inexact: bool,
    /// Per device, in device order.
    pub spool: BTreeMap<i64, SpoolVolume>,
    /// MRSYTSHS in the window: samples, sum of DCSSs, sum of frames, maximum frames.
    pub shs: (u64, i128, i128, i64),
    /// Per MRSTOSHR name (as decoded, before trimming), first-seen order.
    pub segments: Vec<(Option<Value>, SegmentSamples)>,
    segments_ix: BTreeMap<Option<String>, usize>,
    pub events: Vec<SegmentEvent>,
}

fn int(v: Option<&Value>) -> i64 {
    match v {
        Some(Value::U(x) | Value::Dur(x)) => *x as i64,
        Some(Value::I(x)) => *x,
        Some(Value::Tod(t)) => tod::to_unix_us(*t),
        _ => 0,
    }
}

/// A TOD clock value as microseconds since 1970 (`MRHDRTOD` as the side
/// records' `tod`, an interval's ends as NSS compares them).
fn us(t: u64) -> i64 {
    (t >> 12) as i64 - EPOCH_1900_US
}

impl SegmentSide {
    pub fn new() -> SegmentSide {
        SegmentSide::default()
    }

    /// Whether the assumptions held (see the module's text); when not, the
    /// sums are not those of the window.
    pub fn exact(&self) -> bool {
        !self.inexact && (self.lo.is_none() || self.bound_used.is_none_or(|b| Some(b) <= self.lo))
    }

    /// The record's type among those read (its fields found at its first
    /// record with a layout).
    #[inline]
    fn known(&mut self, r: &RecordRef<'_>) -> Option<usize> {
        let (d, n) = (r.header.domain as usize, r.header.record as usize);
        match self.slots.get(d).and_then(|v| v.get(n)) {
            Some(0) | None => self.first_of_type(r, d, n),
            Some(1) => None,
            Some(&c) => Some(c as usize - 2),
        }
    }

    #[cold]
    fn first_of_type(&mut self, r: &RecordRef<'_>, d: usize, n: usize) -> Option<usize> {
        let l = r.layout?;
        let by_name = |names: &[&str]| names.iter().map(|n| l.field(n)).collect();
        let t = match l.name {
            "MRSTOSHR" => Some((Kind::Shr, by_name(&SHR_FIELDS))),
            "MRSYTSHS" => Some((Kind::Shs, by_name(&SHS_FIELDS))),
            "MRSTOASP" => Some((Kind::Asp, by_name(&ASP_FIELDS))),
            name => EVENTS.iter().position(|e| *e == name).map(|i| {
                let p = &name[2..];
                let fields = vec![
                    l.field(&format!("{p}_SDFFN")),
                    l.field(&format!("{p}_SDFIDNUM")),
                ];
                (Kind::Event(i as u8), fields)
            }),
        };
        let ix = t.map(|(kind, fields)| {
            self.types.push(Type { kind, fields });
            self.types.len() - 1
        });
        if self.slots.len() <= d {
            self.slots.resize(d + 1, Vec::new());
        }
        let v = &mut self.slots[d];
        if v.len() <= n {
            v.resize(n + 1, 0);
        }
        v[n] = ix.map_or(1, |i| i as u8 + 2);
        ix
    }

    /// Read one record (file order).
    pub fn record(&mut self, r: &RecordRef<'_>) {
        let Some(ix) = self.known(r) else { return };
        let t = &self.types[ix];
        let f = |i: usize| t.fields[i].and_then(|d| decode_field(r.bytes, d));
        let mut row = Row {
            offset: r.offset,
            tod: tod::to_unix_us(r.header.tod),
            kind: t.kind,
            dev: 0,
            name: None,
            v: [0; 5],
        };
        match t.kind {
            Kind::Shr => {
                row.name = f(0);
                for i in 1..5 {
                    row.v[i - 1] = int(f(i).as_ref());
                }
            }
            Kind::Shs => {
                row.v[0] = int(f(0).as_ref());
                row.v[1] = int(f(1).as_ref());
            }
            Kind::Asp => {
                let slots = f(0);
                if !matches!(slots, Some(Value::U(v)) if v != 0)
                    && !matches!(slots, Some(Value::I(v)) if v != 0)
                {
                    return; // not a spool volume
                }
                row.dev = int(f(1).as_ref());
                row.v[0] = int(slots.as_ref());
                for i in 3..7 {
                    row.v[i - 2] = int(f(i).as_ref());
                }
                if let Entry::Vacant(slot) = self.spool.entry(row.dev) {
                    slot.insert(SpoolVolume {
                        volser: f(2),
                        ..SpoolVolume::default()
                    });
                }
            }
            Kind::Event(_) => {
                row.name = f(0);
                row.v[0] = int(f(1).as_ref());
            }
        }
        match self.place(&row) {
            Place::Waiting => {
                self.pending.push(row);
                if self.lo.is_none() && self.pending.len() > MAX_PENDING {
                    self.give_up();
                }
            }
            p => self.fold(row, p),
        }
    }

    /// The window is not known and cannot be waited for: the result is
    /// inexact and nothing more is kept.
    fn give_up(&mut self) {
        self.inexact = true;
        self.closed = true;
        self.pending = Vec::new();
    }

    fn place(&mut self, r: &Row) -> Place {
        // events count from the window's start, samples after it
        let before = |lo: i64| match r.kind {
            Kind::Event(_) => r.tod < lo,
            _ => r.tod <= lo,
        };
        let Some(lo) = self.lo else {
            if self.closed {
                return Place::After;
            }
            return match self.bound {
                Some(b) if before(b) => {
                    self.bound_used = Some(self.bound_used.map_or(b, |u| u.max(b)));
                    Place::Before
                }
                _ => Place::Waiting,
            };
        };
        if before(lo) {
            Place::Before
        } else if self.hi.is_some_and(|h| r.tod <= h) {
            Place::During
        } else if self.closed {
            Place::After
        } else {
            Place::Waiting
        }
    }

    fn fold(&mut self, r: Row, p: Place) {
        if self.inexact {
            return;
        }
        match (p, r.kind) {
            (Place::Before, Kind::Asp) => {
                let s = self.spool.entry(r.dev).or_default();
                if s.first.is_none_or(|(o, _)| o < r.offset) {
                    s.first = Some((r.offset, r.v));
                }
            }
            (Place::During, Kind::Asp) => {
                let s = self.spool.entry(r.dev).or_default();
                if s.last.is_none_or(|(o, _)| o < r.offset) {
                    s.last = Some((r.offset, r.v));
                }
            }
            (Place::During, Kind::Shs) => {
                let s = &mut self.shs;
                s.3 = if s.0 == 0 { r.v[1] } else { s.3.max(r.v[1]) };
                s.0 += 1;
                s.1 += r.v[0] as i128;
                s.2 += r.v[1] as i128;
            }
            (Place::During, Kind::Shr) => {
                let k = match &r.name {
                    Some(Value::Text(s)) => Some(s.clone()),
                    None => None,
                    Some(other) => Some(format!("{other:?}")),
                };
                let last = (r.offset, r.v[0], r.v[1], r.v[2]);
                let res = r.v[3];
                match self.segments_ix.get(&k) {
                    Some(&i) => {
                        let s = &mut self.segments[i].1;
                        if s.last.0 < r.offset {
                            s.last = last;
                        }
                        s.resident_sum += res as i128;
                        s.resident_max = s.resident_max.max(res);
                        s.samples += 1;
                    }
                    None => {
                        self.segments_ix.insert(k, self.segments.len());
                        let s = SegmentSamples {
                            last,
                            resident_sum: res as i128,
                            resident_max: res,
                            samples: 1,
                        };
                        self.segments.push((r.name, s));
                    }
                }
            }
            (Place::During, Kind::Event(kind)) => self.events.push(SegmentEvent {
                offset: r.offset,
                tod: r.tod,
                kind,
                name: r.name,
                spoolid: r.v[0],
            }),
            _ => {}
        }
    }

    /// Fold the waiting records whose place is now known.
    fn settle(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let rows = std::mem::take(&mut self.pending);
        for r in rows {
            match self.place(&r) {
                Place::Waiting => self.pending.push(r),
                p => self.fold(r, p),
            }
        }
    }

    /// An interval the kernel produced (TOD clock values).
    pub fn interval(&mut self, start_tod: u64, end_tod: u64) {
        let (start, end) = (us(start_tod), us(end_tod));
        if self.lo.is_none() {
            self.lo = Some(start);
        }
        if self.hi.is_some_and(|h| end < h) {
            self.inexact = true; // rows taken as before the end may not be
        }
        self.hi = Some(end);
        self.settle();
    }

    /// Follow the kernel after a record: its new intervals, or before the
    /// first one the end of the last set it closed.
    pub fn follow(&mut self, k: &Kernel) {
        let n = k.intervals();
        if n > self.intervals_seen {
            let rows = &k.batch.system;
            let new = ((n - self.intervals_seen) as usize).min(rows.len());
            for r in &rows[rows.len() - new..] {
                self.interval(r.start_tod, r.end_tod);
            }
            self.intervals_seen = n;
        } else if self.lo.is_none() {
            if let Some(e) = k.last_set_end().map(us) {
                if self.bound != Some(e) {
                    if self.bound.is_some_and(|b| e < b) {
                        self.inexact = true;
                    }
                    self.bound = Some(e);
                    self.settle();
                }
            }
        }
    }

    /// No more intervals: the waiting records lie after the window, and so
    /// do those read from now on.
    pub fn close(&mut self) {
        self.closed = true;
        self.settle();
        self.pending = Vec::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(offset: u64, tod: i64, kind: Kind, v0: i64) -> Row {
        Row {
            offset,
            tod,
            kind,
            dev: 7,
            name: Some(Value::Text("S".into())),
            v: [v0, 0, 0, v0, 0],
        }
    }

    fn put(s: &mut SegmentSide, r: Row) {
        match s.place(&r) {
            Place::Waiting => s.pending.push(r),
            p => s.fold(r, p),
        }
    }

    fn t(us_: i64) -> u64 {
        ((us_ + EPOCH_1900_US) as u64) << 12
    }

    #[test]
    fn records_fold_by_their_place_in_the_window() {
        let mut s = SegmentSide::new();
        s.bound = Some(100);
        put(&mut s, row(1, 100, Kind::Asp, 1)); // before (at the bound)
        put(&mut s, row(2, 150, Kind::Asp, 2)); // waits
        put(&mut s, row(3, 150, Kind::Shs, 5)); // waits
        put(&mut s, row(4, 200, Kind::Event(0), 9)); // waits
        assert_eq!(s.pending.len(), 3);
        s.interval(t(150), t(300)); // lo 150: the 150s are before, the event in
        assert!(s.pending.is_empty());
        let v = &s.spool[&7];
        assert_eq!(v.first.map(|f| f.0), Some(2)); // the later record
        assert!(v.last.is_none());
        assert_eq!(s.shs.0, 0);
        assert_eq!(s.events.len(), 1);
        put(&mut s, row(5, 250, Kind::Shr, 4));
        put(&mut s, row(6, 400, Kind::Shr, 8)); // after 300: waits
        put(&mut s, row(7, 260, Kind::Shr, 2));
        s.close();
        assert_eq!(s.segments.len(), 1);
        let g = &s.segments[0].1;
        assert_eq!(
            (g.samples, g.resident_sum, g.resident_max, g.last.0),
            (2, 6, 4, 7)
        );
        assert!(s.exact());
    }

    #[test]
    fn an_interval_before_an_assumed_bound_is_inexact() {
        let mut s = SegmentSide::new();
        s.bound = Some(100);
        put(&mut s, row(1, 90, Kind::Asp, 1));
        s.interval(t(50), t(300));
        assert!(!s.exact());
        let mut s = SegmentSide::new();
        s.interval(t(0), t(300));
        s.interval(t(300), t(200));
        assert!(!s.exact());
    }
}
