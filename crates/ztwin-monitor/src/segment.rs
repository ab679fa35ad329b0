//! Segments: the MONWRITE collections inside one file.
//!
//! Joining MONWRITE files (`cat mon.mon1 mon.mon2 > week.mon`) is a common way
//! to keep several collections together, and a reader that does not notice
//! mixes them: time runs backwards between intervals, and one system's devices
//! and users appear under another system's name. The reader feeds a
//! [`SegmentTracker`] the few records that tell collections apart, and the
//! tracker starts a new segment where
//!
//! * configuration records begin again (MRMTRSYS, D1R4, the first record of
//!   the configuration set a MONITOR START or a new MONWRITE file writes) after
//!   sample data: [`SegmentStart::MonitorStart`], or a more specific reason when
//! * the system identifier (MTRSYS_SYSTMID) differs from the current
//!   collection's: [`SegmentStart::SystemChanged`];
//! * the processor (MTRSYS_SYSMTYPE and MTRSYS_SYSMMODL) differs:
//!   [`SegmentStart::CpuModelChanged`];
//! * time goes back: a configuration set stamped before the current
//!   collection's last interval end, or a sample interval end (D1R11) at or
//!   before the previous one: [`SegmentStart::TimeWentBack`].
//!
//! A segment is a byte range of the file: it starts at the control record of
//! the group in which it was noticed (a collection's first group holds its
//! configuration set; an interval end closes a sample set written as one entry
//! of its group) and ends where the next one starts. A reader that needs every
//! record labelled exactly reads the segment list first (one fast pass: the
//! reader decodes only the two record types the tracker looks at) and labels
//! records by offset; the tracker itself can only notice a time-based
//! boundary at the interval end that reveals it.
//!
//! Memory is bounded: the first [`MAX_SEGMENTS_KEPT`] segments are kept, later
//! ones only counted.

use crate::header::Header;
use crate::layout::{decode_field_ref, lookup, FieldDef, RecordLayout, ValueRef, DEFAULT_RELEASE};

/// Segments kept in full; later ones are only counted.
pub const MAX_SEGMENTS_KEPT: usize = 1000;

/// Why a segment starts where it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SegmentStart {
    /// The start of the file.
    FileStart,
    /// Configuration records again after sample data, same system, time going
    /// forward: the monitor was started again (or a later file of the same
    /// system was appended).
    MonitorStart,
    /// Configuration records of another system (MTRSYS_SYSTMID).
    SystemChanged,
    /// Configuration records of the same system on another processor
    /// (MTRSYS_SYSMTYPE, MTRSYS_SYSMMODL).
    CpuModelChanged,
    /// Time went back: a configuration set or interval end at or before the
    /// last interval end seen.
    TimeWentBack,
}

impl SegmentStart {
    pub fn as_str(self) -> &'static str {
        match self {
            SegmentStart::FileStart => "file-start",
            SegmentStart::MonitorStart => "monitor-start",
            SegmentStart::SystemChanged => "system-changed",
            SegmentStart::CpuModelChanged => "cpu-model-changed",
            SegmentStart::TimeWentBack => "time-went-back",
        }
    }
}

/// One collection: where it starts, why, and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Byte offset where the segment starts: 0 for the first, else the offset
    /// of the control record of the group where it was noticed.
    pub offset: u64,
    pub start: SegmentStart,
    /// MTRSYS_SYSTMID (trailing blanks removed), if the segment has
    /// configuration records.
    pub system_id: Option<String>,
    /// MTRSYS_SYSMTYPE-MTRSYS_SYSMMODL, e.g. `2094-606`.
    pub cpu_model: Option<String>,
    /// TOD of the first configuration set or interval end seen in it.
    pub first_tod: Option<u64>,
    /// TOD of its last sample interval end (D1R11).
    pub last_tod: Option<u64>,
    /// Sample interval ends (D1R11) in it.
    pub intervals: u64,
}

impl Segment {
    fn new(offset: u64, start: SegmentStart) -> Segment {
        Segment {
            offset,
            start,
            system_id: None,
            cpu_model: None,
            first_tod: None,
            last_tod: None,
            intervals: 0,
        }
    }

    /// A short description: the reason in words, for messages.
    pub fn reason(&self, previous: Option<&Segment>) -> String {
        let name = |s: &Option<String>| s.clone().unwrap_or_else(|| "?".into());
        match (self.start, previous) {
            (SegmentStart::FileStart, _) => "the start of the file".into(),
            (SegmentStart::SystemChanged, Some(p)) => format!(
                "configuration records of system {} after system {}",
                name(&self.system_id),
                name(&p.system_id)
            ),
            (SegmentStart::CpuModelChanged, Some(p)) => format!(
                "configuration records of processor {} after {}",
                name(&self.cpu_model),
                name(&p.cpu_model)
            ),
            (SegmentStart::TimeWentBack, _) => "time went back".into(),
            (SegmentStart::MonitorStart, _) => "configuration records again (MONITOR START)".into(),
            (_, None) => self.start.as_str().into(),
        }
    }
}

/// The MRMTRSYS fields the tracker reads, in the layout of the release being
/// read (the default release when the reader has none).
fn sys_fields(layout: Option<&'static RecordLayout>) -> Option<[&'static FieldDef; 3]> {
    let l = layout.or_else(|| lookup(1, 4, DEFAULT_RELEASE))?;
    Some([
        l.field("MTRSYS_SYSTMID")?,
        l.field("MTRSYS_SYSMTYPE")?,
        l.field("MTRSYS_SYSMMODL")?,
    ])
}

fn text(rec: &[u8], f: &FieldDef) -> Option<String> {
    match decode_field_ref(rec, f)? {
        ValueRef::Text(t) => {
            let s = t.decode();
            let s = s.trim();
            (!s.is_empty()).then(|| s.to_string())
        }
        _ => None,
    }
}

/// Tracks collections while a file is read (see the module documentation).
#[derive(Clone, Debug)]
pub struct SegmentTracker {
    /// The first [`MAX_SEGMENTS_KEPT`] segments.
    pub segments: Vec<Segment>,
    /// Segments seen in all (the current one included).
    pub count: u64,
    /// The current segment (kept even when the list is full).
    cur: Segment,
    /// Offset of the control record of the group being read.
    group_offset: u64,
}

impl Default for SegmentTracker {
    fn default() -> Self {
        let first = Segment::new(0, SegmentStart::FileStart);
        SegmentTracker {
            segments: vec![first.clone()],
            count: 1,
            cur: first,
            group_offset: 0,
        }
    }
}

impl SegmentTracker {
    /// Index (from 0) of the segment being read.
    pub fn current(&self) -> u64 {
        self.count - 1
    }

    /// A control record at byte `offset` starts a group.
    #[inline]
    pub fn group(&mut self, offset: u64) {
        self.group_offset = offset;
    }

    /// An MRMTRSYS record (header `h`, whole record `rec`) decoded with
    /// `layout` (the release's MRMTRSYS layout; `None`: the default release).
    #[cold]
    pub fn system_record(&mut self, h: &Header, rec: &[u8], layout: Option<&'static RecordLayout>) {
        let (id, model) = match sys_fields(layout) {
            Some([systmid, mtype, mmodl]) => {
                let model = match (text(rec, mtype), text(rec, mmodl)) {
                    (Some(t), Some(m)) => Some(format!("{t}-{m}")),
                    (Some(t), None) => Some(t),
                    (None, m) => m,
                };
                (text(rec, systmid), model)
            }
            None => (None, None),
        };
        let has_data = self.cur.intervals > 0;
        let known = self.cur.system_id.is_some() || self.cur.cpu_model.is_some();
        let other_system = known && id != self.cur.system_id;
        let other_model = known && model != self.cur.cpu_model;
        let went_back = self.cur.last_tod.is_some_and(|t| h.tod <= t);
        let start = if other_system {
            Some(SegmentStart::SystemChanged)
        } else if other_model {
            Some(SegmentStart::CpuModelChanged)
        } else if went_back {
            Some(SegmentStart::TimeWentBack)
        } else if has_data {
            Some(SegmentStart::MonitorStart)
        } else {
            None
        };
        if let Some(s) = start {
            self.begin(s);
        }
        if self.cur.system_id.is_none() && self.cur.cpu_model.is_none() {
            self.cur.system_id = id;
            self.cur.cpu_model = model;
        }
        if self.cur.first_tod.is_none() {
            self.cur.first_tod = Some(h.tod);
        }
        self.store();
    }

    /// A sample interval end (D1R11 in a sample set) stamped `tod`.
    #[inline]
    pub fn interval_end(&mut self, tod: u64) {
        if self.cur.last_tod.is_some_and(|t| tod <= t) {
            self.begin(SegmentStart::TimeWentBack);
        }
        self.cur.intervals += 1;
        if self.cur.first_tod.is_none() {
            self.cur.first_tod = Some(tod);
        }
        self.cur.last_tod = Some(tod);
        self.store();
    }

    #[cold]
    fn begin(&mut self, start: SegmentStart) {
        self.cur = Segment::new(self.group_offset, start);
        self.count += 1;
        if self.segments.len() < MAX_SEGMENTS_KEPT {
            self.segments.push(self.cur.clone());
        }
    }

    /// Copy the current segment's state into the kept list.
    #[inline]
    fn store(&mut self) {
        if self.count as usize <= self.segments.len() {
            let last = self.segments.len() - 1;
            let s = &mut self.segments[last];
            s.intervals = self.cur.intervals;
            s.first_tod = self.cur.first_tod;
            s.last_tod = self.cur.last_tod;
            if s.system_id.is_none() && s.cpu_model.is_none() {
                s.system_id.clone_from(&self.cur.system_id);
                s.cpu_model.clone_from(&self.cur.cpu_model);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::SetKind;
    use crate::writer::RecordSet;

    fn hdr(tod: u64) -> Header {
        Header {
            len: 184,
            domain: 1,
            record: 4,
            tod,
        }
    }

    fn sys(id: &str, model: &str) -> Vec<u8> {
        let l = lookup(1, 4, DEFAULT_RELEASE).unwrap();
        let mut set = RecordSet::new(SetKind::Sample);
        {
            let mut r = set.push_layout(l, 0);
            r.set_text(l.f("MTRSYS_SYSTMID"), id);
            let (t, m) = model.split_once('-').unwrap();
            r.set_text(l.f("MTRSYS_SYSMTYPE"), t);
            r.set_text(l.f("MTRSYS_SYSMMODL"), m);
        }
        set.records().next().unwrap().to_vec()
    }

    #[test]
    fn one_collection_is_one_segment() {
        let mut t = SegmentTracker::default();
        t.group(0);
        t.system_record(&hdr(100), &sys("TINY", "2094-606"), None);
        for k in 1..5 {
            t.group(k * 8192);
            t.interval_end(100 + k);
        }
        assert_eq!(t.count, 1);
        let s = &t.segments[0];
        assert_eq!(
            (s.offset, s.start, s.intervals),
            (0, SegmentStart::FileStart, 4)
        );
        assert_eq!(s.system_id.as_deref(), Some("TINY"));
        assert_eq!(s.cpu_model.as_deref(), Some("2094-606"));
        assert_eq!((s.first_tod, s.last_tod), (Some(100), Some(104)));
    }

    #[test]
    fn each_reason_starts_a_segment_at_its_group() {
        let mut t = SegmentTracker::default();
        t.group(0);
        t.system_record(&hdr(100), &sys("TINY", "2094-606"), None);
        t.interval_end(160);
        t.group(4096);
        t.system_record(&hdr(200), &sys("TINY", "2094-606"), None); // restart, forward
        t.interval_end(260);
        t.group(8192);
        t.system_record(&hdr(300), &sys("VSPSYS", "2094-606"), None);
        t.interval_end(360);
        t.group(12288);
        t.system_record(&hdr(400), &sys("VSPSYS", "2817-716"), None);
        t.interval_end(460);
        t.group(16384);
        t.system_record(&hdr(50), &sys("VSPSYS", "2817-716"), None); // earlier
        t.interval_end(110);
        t.group(20480);
        t.interval_end(100); // an interval end before the last one
        let got: Vec<_> = t.segments.iter().map(|s| (s.offset, s.start)).collect();
        assert_eq!(
            got,
            [
                (0, SegmentStart::FileStart),
                (4096, SegmentStart::MonitorStart),
                (8192, SegmentStart::SystemChanged),
                (12288, SegmentStart::CpuModelChanged),
                (16384, SegmentStart::TimeWentBack),
                (20480, SegmentStart::TimeWentBack),
            ]
        );
        assert_eq!(t.current(), 5);
        assert_eq!(t.segments[5].system_id, None); // no configuration records of its own
        assert!(t.segments[2]
            .reason(Some(&t.segments[1]))
            .contains("VSPSYS after system TINY"));
    }

    #[test]
    fn configuration_before_any_data_does_not_split() {
        let mut t = SegmentTracker::default();
        t.system_record(&hdr(100), &sys("TINY", "2094-606"), None);
        t.system_record(&hdr(100), &sys("TINY", "2094-606"), None);
        t.interval_end(160);
        assert_eq!(t.count, 1);
    }

    #[test]
    fn the_list_is_bounded() {
        let mut t = SegmentTracker::default();
        for k in 0..(MAX_SEGMENTS_KEPT as u64 + 50) {
            t.group(k * 4096);
            t.interval_end(1_000_000 - k); // always back
        }
        assert_eq!(t.segments.len(), MAX_SEGMENTS_KEPT);
        assert!(t.count > MAX_SEGMENTS_KEPT as u64);
    }
}
