//! MONWRITE file writer (spec section 4.5).
//!
//! Records are built into a [`RecordSet`] (one contiguous buffer, no per-record
//! allocation) and written as groups: one MWTBK control record followed by the
//! record data of each entry. Every entry starts on a frame boundary; a record
//! that does not fit in the rest of a frame moves to the next frame after a D1R13
//! end-of-frame record; sample sets end with D1R11. DCSS addresses are allocated
//! in a sample area and an event area that are used as rings, as CP does. Output
//! is a pure function of the calls made: no clock, no randomness.
//!
//! The data after a control record is written as whole 4 KB frames, entry
//! after entry ([`DataLayout::Frames`], the default: what ztwin assumes
//! MONWRITE writes; spec 4.2 marks it inferred). [`MonwriteWriter::set_data_layout`]
//! with [`DataLayout::Contiguous`] writes instead each entry's bytes from its
//! start to its end address, back to back, the group padded with zeros to
//! whole blocks (the byte stream Linux's monreader hands over). The reader
//! accepts both.

use crate::control::{
    domain_bit, ControlEntry, ControlRecord, SetKind, IPFLAGS1_RMDATA, IPTYPE_MSG, MAX_ENTRIES,
};
use crate::header::{Header, FRAME, HEADER_LEN};
use crate::layout::{encode_field, EncodeError, FieldDef, RecordLayout, Value};
pub use crate::reader::DataLayout;
use std::io::{self, Write};

/// Domain and record numbers of the monitor control records.
pub const D1R11_INTERVAL_END: (u8, u16) = (1, 11);
pub const D1R12_SUSPEND: (u8, u16) = (1, 12);
pub const D1R13_END_OF_FRAME: (u8, u16) = (1, 13);

/// Errors raised while building or writing records.
#[derive(Debug)]
pub enum WriteError {
    Io(io::Error),
    Encode(EncodeError),
    /// A record whose length is outside 20..=4096 bytes.
    RecordLength(usize),
    /// A record set that does not fit in its DCSS area.
    AreaFull {
        kind: SetKind,
        pages_needed: u64,
        area_pages: u32,
    },
    /// A group with no entries or more than fit in a control record.
    EntryCount(usize),
    /// D1R13 (end of frame) is placed by the writer itself, never by callers.
    ReservedRecord,
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Io(e) => write!(f, "write failed: {e}"),
            WriteError::Encode(e) => write!(f, "{e}"),
            WriteError::RecordLength(n) => write!(f, "record length {n} is outside 20..=4096"),
            WriteError::AreaFull {
                kind,
                pages_needed,
                area_pages,
            } => write!(
                f,
                "{} set needs {pages_needed} pages but the {} area has {area_pages}",
                kind.as_str(),
                kind.as_str()
            ),
            WriteError::ReservedRecord => {
                write!(
                    f,
                    "D1R13 end-of-frame records are placed by the writer, not added to a set"
                )
            }
            WriteError::EntryCount(n) => {
                write!(
                    f,
                    "a control record holds 1 to {MAX_ENTRIES} entries, not {n}"
                )
            }
        }
    }
}

impl std::error::Error for WriteError {}

impl From<io::Error> for WriteError {
    fn from(e: io::Error) -> Self {
        WriteError::Io(e)
    }
}

impl From<EncodeError> for WriteError {
    fn from(e: EncodeError) -> Self {
        WriteError::Encode(e)
    }
}

/// Records of one set (one control-area entry), packed back to back.
#[derive(Clone, Debug)]
pub struct RecordSet {
    pub kind: SetKind,
    buf: Vec<u8>,
    count: usize,
    domains: u16,
}

impl RecordSet {
    pub fn new(kind: SetKind) -> RecordSet {
        RecordSet {
            kind,
            buf: Vec::new(),
            count: 0,
            domains: 0,
        }
    }

    /// Forget the records but keep the buffer's capacity.
    pub fn clear(&mut self) {
        self.buf.clear();
        self.count = 0;
        self.domains = 0;
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Domain mask of the records added so far.
    pub fn domains(&self) -> u16 {
        self.domains
    }

    /// Append a zeroed record of `len` bytes with its header filled in, and
    /// return it for filling.
    pub fn push(
        &mut self,
        domain: u8,
        record: u16,
        tod: u64,
        len: usize,
    ) -> Result<RecordMut<'_>, WriteError> {
        if !(HEADER_LEN..=FRAME).contains(&len) {
            return Err(WriteError::RecordLength(len));
        }
        if (domain, record) == D1R13_END_OF_FRAME {
            return Err(WriteError::ReservedRecord);
        }
        let at = self.buf.len();
        self.buf.resize(at + len, 0);
        Header {
            len: len as u16,
            domain,
            record,
            tod,
        }
        .write(&mut self.buf[at..]);
        self.count += 1;
        self.domains |= domain_bit(domain);
        Ok(RecordMut {
            bytes: &mut self.buf[at..at + len],
        })
    }

    /// Append a record of `layout` at its standard size.
    pub fn push_layout(&mut self, layout: &RecordLayout, tod: u64) -> RecordMut<'_> {
        self.push(layout.domain, layout.record, tod, layout.size as usize)
            .expect("layout sizes are within one frame")
    }

    /// Append an already encoded record (its header is validated).
    pub fn push_raw(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        let h = Header::parse(bytes).map_err(|_| WriteError::RecordLength(bytes.len()))?;
        if h.len as usize != bytes.len() || bytes.len() > FRAME {
            return Err(WriteError::RecordLength(bytes.len()));
        }
        if (h.domain, h.record) == D1R13_END_OF_FRAME {
            return Err(WriteError::ReservedRecord);
        }
        self.buf.extend_from_slice(bytes);
        self.count += 1;
        self.domains |= domain_bit(h.domain);
        Ok(())
    }

    /// The records, each a whole record including its header.
    pub fn records(&self) -> RecordIter<'_> {
        RecordIter { buf: &self.buf }
    }
}

/// Iterator over the records of a [`RecordSet`].
pub struct RecordIter<'a> {
    buf: &'a [u8],
}

impl<'a> Iterator for RecordIter<'a> {
    type Item = &'a [u8];
    fn next(&mut self) -> Option<&'a [u8]> {
        if self.buf.len() < 2 {
            return None;
        }
        let n = u16::from_be_bytes([self.buf[0], self.buf[1]]) as usize;
        let (rec, rest) = self.buf.split_at(n);
        self.buf = rest;
        Some(rec)
    }
}

/// A record being filled in.
pub struct RecordMut<'a> {
    pub bytes: &'a mut [u8],
}

impl RecordMut<'_> {
    /// Store a value in a field (checked against the field's type and width).
    pub fn set(&mut self, f: &FieldDef, v: &Value) -> Result<&mut Self, EncodeError> {
        encode_field(self.bytes, f, v)?;
        Ok(self)
    }

    /// Store an unsigned integer, truncated to the field width as a real
    /// wrapping counter would be. A field that does not fit in the record (a
    /// field of a later release, or a retired name's
    /// [`RETIRED_FIELD`](crate::layout::RETIRED_FIELD)) is skipped.
    #[inline]
    pub fn set_u(&mut self, f: &FieldDef, v: u64) -> &mut Self {
        let w = f.ty.width();
        let off = f.offset as usize;
        if let Some(slot) = self.bytes.get_mut(off..off + w) {
            slot.copy_from_slice(&v.to_be_bytes()[8 - w..]);
        }
        self
    }

    /// Store a signed integer (two's complement, truncated to the width).
    #[inline]
    pub fn set_i(&mut self, f: &FieldDef, v: i64) -> &mut Self {
        self.set_u(f, v as u64)
    }

    /// Store text in a character field (EBCDIC, blank padded); skipped like
    /// [`RecordMut::set_u`] when the field does not fit.
    pub fn set_text(&mut self, f: &FieldDef, text: &str) -> &mut Self {
        let off = f.offset as usize;
        if let Some(slot) = self.bytes.get_mut(off..off + f.ty.width()) {
            crate::ebcdic::encode_field(text, slot);
        }
        self
    }
}

/// Where the writer places record sets in the simulated monitor DCSS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DcssLayout {
    /// DCSS base address (page aligned).
    pub base: u32,
    /// Pages of the sample area (configuration and interval data).
    pub sample_pages: u32,
    /// Pages of the event area.
    pub event_pages: u32,
}

impl Default for DcssLayout {
    /// IBM's example MONDCSS sizing: 8192 pages, 2048 for events, 6144 for
    /// samples, at X'0A000000' (page X'A000').
    fn default() -> Self {
        DcssLayout {
            base: 0x0A00_0000,
            sample_pages: 6144,
            event_pages: 2048,
        }
    }
}

/// One ring area of the DCSS.
#[derive(Clone, Copy, Debug)]
struct Area {
    first_page: u32,
    pages: u32,
    next: u32,
}

impl Area {
    /// First page for a set of `n` pages, wrapping to the start of the area when
    /// the set does not fit before its end.
    fn allocate(&mut self, n: u64, kind: SetKind) -> Result<u32, WriteError> {
        if n > self.pages as u64 {
            return Err(WriteError::AreaFull {
                kind,
                pages_needed: n,
                area_pages: self.pages,
            });
        }
        let n = n as u32;
        if self.next + n > self.pages {
            self.next = 0;
        }
        let p = self.first_page + self.next;
        self.next = (self.next + n) % self.pages;
        Ok(p)
    }
}

/// Layout of one entry's records in its pages: total pages and end offset.
fn plan(records: &RecordSet, terminate: bool) -> (u64, usize) {
    let mut pages = 1u64;
    let mut pos = 0usize;
    let mut place = |len: usize| {
        if pos + len > FRAME {
            pages += 1;
            pos = 0;
        }
        pos += len;
    };
    for r in records.records() {
        place(r.len());
    }
    if terminate {
        place(HEADER_LEN);
    }
    (pages, pos)
}

/// The MONWRITE file writer.
pub struct MonwriteWriter<W: Write> {
    out: W,
    dcss: DcssLayout,
    sample: Area,
    event: Area,
    path_id: u16,
    msg_id: u32,
    page: Box<[u8; FRAME]>,
    bytes: u64,
    groups: u64,
    layout: DataLayout,
    /// Contiguous layout: the group's data, padded at the end.
    data: Vec<u8>,
}

/// One entry of a group: a record set and whether it ends with D1R11.
pub struct Entry<'a> {
    pub set: &'a RecordSet,
    /// Append an interval-end record (D1R11) with this TOD.
    pub interval_end: Option<u64>,
}

impl<W: Write> MonwriteWriter<W> {
    pub fn new(out: W) -> MonwriteWriter<W> {
        MonwriteWriter::with_layout(out, DcssLayout::default())
    }

    pub fn with_layout(out: W, dcss: DcssLayout) -> MonwriteWriter<W> {
        let base_page = dcss.base / FRAME as u32;
        MonwriteWriter {
            out,
            dcss,
            // Page 0 of the DCSS holds the monitor control area.
            sample: Area {
                first_page: base_page + 1,
                pages: dcss.sample_pages,
                next: 0,
            },
            event: Area {
                first_page: base_page + 1 + dcss.sample_pages,
                pages: dcss.event_pages,
                next: 0,
            },
            path_id: 1,
            msg_id: 0,
            page: Box::new([0u8; FRAME]),
            bytes: 0,
            groups: 0,
            layout: DataLayout::Frames,
            data: Vec::new(),
        }
    }

    /// How the data after each control record is written (default: whole
    /// frames; see the module documentation).
    pub fn set_data_layout(&mut self, layout: DataLayout) {
        self.layout = layout;
    }

    /// Bytes written so far.
    pub fn bytes_written(&self) -> u64 {
        self.bytes
    }

    /// Control records (groups) written so far.
    pub fn groups_written(&self) -> u64 {
        self.groups
    }

    /// Write a sample set (interval data or initial configuration) ending with a
    /// D1R11 interval-end record stamped `end_tod`.
    pub fn write_sample_set(&mut self, set: &RecordSet, end_tod: u64) -> Result<(), WriteError> {
        self.write_group(&[Entry {
            set,
            interval_end: Some(end_tod),
        }])
    }

    /// Write an event set (no terminator record).
    pub fn write_event_set(&mut self, set: &RecordSet) -> Result<(), WriteError> {
        self.write_group(&[Entry {
            set,
            interval_end: None,
        }])
    }

    /// Write one control record and the frames of all its entries.
    pub fn write_group(&mut self, entries: &[Entry<'_>]) -> Result<(), WriteError> {
        if entries.is_empty() || entries.len() > MAX_ENTRIES {
            return Err(WriteError::EntryCount(entries.len()));
        }
        let mut ctl_entries = Vec::with_capacity(entries.len());
        let mut firsts = Vec::with_capacity(entries.len());
        for e in entries {
            let (pages, end_pos) = plan(e.set, e.interval_end.is_some());
            let area = match e.set.kind {
                SetKind::Sample => &mut self.sample,
                SetKind::Event => &mut self.event,
            };
            let first = area.allocate(pages, e.set.kind)?;
            let last = first + pages as u32 - 1;
            let start = first * FRAME as u32;
            // An empty event set still spans its first byte.
            let end = last * FRAME as u32 + end_pos.max(1) as u32 - 1;
            let mut domains = e.set.domains();
            if e.interval_end.is_some() {
                domains |= domain_bit(1);
            }
            if domains == 0 {
                domains = domain_bit(1);
            }
            ctl_entries.push(ControlEntry {
                kind: e.set.kind,
                domains,
                start,
                end,
            });
            firsts.push(first);
        }
        self.msg_id = self.msg_id.wrapping_add(1);
        let n = ctl_entries.len() as u32;
        let ctl = ControlRecord {
            path_id: self.path_id,
            flags1: IPFLAGS1_RMDATA,
            iptype: IPTYPE_MSG,
            msg_id: self.msg_id,
            // Target class: the kind flag of the first entry in byte 0. [INF]
            trgcls: (entries[0].set.kind.flag() as u32) << 24,
            mca_start: self.dcss.base,
            mca_end: self.dcss.base + n * 12 - 1,
            entries: ctl_entries,
        };
        ctl.encode(&mut self.page);
        self.out.write_all(&self.page[..])?;
        self.bytes += FRAME as u64;
        self.data.clear();
        for (e, c) in entries.iter().zip(&ctl.entries) {
            self.write_entry(e, (c.end - c.start) as usize + 1)?;
        }
        if self.layout == DataLayout::Contiguous {
            let padded = self.data.len().div_ceil(FRAME) * FRAME;
            self.data.resize(padded, 0);
            self.out.write_all(&self.data)?;
            self.bytes += padded as u64;
        }
        self.groups += 1;
        Ok(())
    }

    /// One frame of an entry: written out (frames), or appended to the group's
    /// data up to the entry's `left` remaining bytes (contiguous).
    fn emit_frame(&mut self, left: &mut usize) -> Result<(), WriteError> {
        match self.layout {
            DataLayout::Frames => {
                self.out.write_all(&self.page[..])?;
                self.bytes += FRAME as u64;
            }
            DataLayout::Contiguous => {
                let n = (*left).min(FRAME);
                self.data.extend_from_slice(&self.page[..n]);
                *left -= n;
            }
        }
        Ok(())
    }

    /// Write the frames of entry `e`, whose data is `len` bytes long.
    fn write_entry(&mut self, e: &Entry<'_>, len: usize) -> Result<(), WriteError> {
        let mut left = len;
        self.page.fill(0);
        let mut pos = 0usize;
        let mut last_tod = 0u64;
        let terminator = e.interval_end.map(|tod| {
            let mut t = [0u8; HEADER_LEN];
            Header {
                len: HEADER_LEN as u16,
                domain: 1,
                record: 11,
                tod,
            }
            .write(&mut t);
            t
        });
        let recs = e.set.records().chain(terminator.as_ref().map(|t| &t[..]));
        for r in recs {
            if pos + r.len() > FRAME {
                if pos + HEADER_LEN <= FRAME {
                    let (d, rc) = D1R13_END_OF_FRAME;
                    Header {
                        len: HEADER_LEN as u16,
                        domain: d,
                        record: rc,
                        tod: last_tod,
                    }
                    .write(&mut self.page[pos..]);
                }
                self.emit_frame(&mut left)?;
                self.page.fill(0);
                pos = 0;
            }
            self.page[pos..pos + r.len()].copy_from_slice(r);
            last_tod = u64::from_be_bytes(r[8..16].try_into().expect("8 bytes"));
            pos += r.len();
        }
        self.emit_frame(&mut left)
    }

    /// Flush and return the underlying writer.
    pub fn finish(mut self) -> Result<W, WriteError> {
        self.out.flush()?;
        Ok(self.out)
    }
}
