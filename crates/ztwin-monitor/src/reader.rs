//! Streaming MONWRITE reader (spec sections 4.4 and 9).
//!
//! Memory use is constant whatever the file size: the reader holds one 1 MiB
//! window of blocks, the current control record and bounded statistics. Records
//! are returned as borrowed slices into that window (no copy, no allocation per
//! record).
//!
//! Damage handling, in the order the reader meets it:
//! * a block where a control record is expected fails the signature check: the
//!   reader scans forward block by block to the next valid control record and
//!   reports the skipped span;
//! * a record header is invalid (MRHDRLEN < 20, MRHDRZER not zero, or the record
//!   would cross the 4 KB frame) or a record runs past its entry's end address: the
//!   rest of that frame is skipped and reported (an all-zero frame tail is plain
//!   padding and is not reported);
//! * a valid control record appears where a data frame of the current group
//!   should start: the group is cut short there and reported;
//! * the file ends inside a group or inside a block: the records before the cut
//!   are delivered, the cut is reported, and reading stops cleanly.
//!
//! Only an unreadable file, or one with no valid control record at all, is fatal.

use crate::control::{ControlEntry, ControlRecord, SetKind};
use crate::header::{Header, HeaderError, FRAME, HEADER_LEN};
use crate::layout::{
    dense_slot, lookup, DenseLayouts, RecordLayout, DEFAULT_RELEASE, DENSE, DENSE_RECORDS,
};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

/// Blocks held in the read window (1 MiB).
const WINDOW_BLOCKS: usize = 256;
/// Damage spans kept in full; later ones are only counted.
pub const MAX_DAMAGE_KEPT: usize = 1000;

/// A record delivered by the reader, borrowed from its read window.
#[derive(Clone, Copy, Debug)]
pub struct RecordRef<'a> {
    /// Byte offset of the record in the file.
    pub offset: u64,
    pub header: Header,
    /// The whole record, header included (`header.len` bytes).
    pub bytes: &'a [u8],
    /// Sample or event data, from the control-area entry.
    pub set_kind: SetKind,
    /// The record's layout in [`DEFAULT_RELEASE`] (`lookup(domain, record,
    /// DEFAULT_RELEASE)`), found once by the reader; `None` for a record type
    /// without a known layout.
    pub layout: Option<&'static RecordLayout>,
}

impl<'a> RecordRef<'a> {
    /// A record from its parts, with its layout looked up as the reader does.
    pub fn new(offset: u64, header: Header, bytes: &'a [u8], set_kind: SetKind) -> RecordRef<'a> {
        RecordRef {
            offset,
            header,
            bytes,
            set_kind,
            layout: lookup(header.domain, header.record, DEFAULT_RELEASE),
        }
    }
}

/// What went wrong in a damaged span.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DamageKind {
    /// A block that should be a control record is not one; bytes skipped.
    BadControlRecord,
    /// An invalid record header; the rest of the frame is skipped.
    BadRecordHeader,
    /// A record or bytes run past the end address of their control-area entry.
    OutsideEntry,
    /// A control record found where a data frame was expected.
    GroupCutShort,
    /// The file ends inside a group.
    TruncatedGroup,
    /// The file length is not a multiple of 4096; the partial block is ignored.
    PartialBlock,
}

impl DamageKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DamageKind::BadControlRecord => "bad-control-record",
            DamageKind::BadRecordHeader => "bad-record-header",
            DamageKind::OutsideEntry => "outside-entry",
            DamageKind::GroupCutShort => "group-cut-short",
            DamageKind::TruncatedGroup => "truncated-group",
            DamageKind::PartialBlock => "partial-block",
        }
    }
}

/// A damaged span of the file: `[offset, end)` bytes and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Damage {
    pub offset: u64,
    pub end: u64,
    pub kind: DamageKind,
    pub reason: String,
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "offset {} (X'{:X}'), {} bytes: {}",
            self.offset,
            self.offset,
            self.end.saturating_sub(self.offset),
            self.reason
        )
    }
}

/// An error that stops reading.
#[derive(Debug)]
pub struct FatalError {
    pub offset: u64,
    pub reason: String,
}

impl std::fmt::Display for FatalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "offset {}: {}", self.offset, self.reason)
    }
}

impl std::error::Error for FatalError {}

/// What the reader saw, for the closing summary. Bounded in size.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub file_bytes: u64,
    /// Control records (groups) read.
    pub groups: u64,
    pub records: u64,
    /// Records per (domain, record number), known or not.
    pub by_type: TypeCounts,
    /// Records with no known layout.
    pub unknown: u64,
    /// Intervals ended (D1R11 records).
    pub intervals: u64,
    pub damage_count: u64,
    pub damaged_bytes: u64,
    /// The first [`MAX_DAMAGE_KEPT`] damaged spans.
    pub damage: Vec<Damage>,
    /// The file ended inside a group or a block.
    pub truncated: bool,
}

/// Record counts per (domain, record number): [`Stats::by_type`].
///
/// Counting is one array increment per record for domains below 16 and record
/// numbers below 64 (every record type known today), and a map entry for
/// others. Read it as a map, in (domain, record) order, with [`TypeCounts::iter`]
/// or `for ((domain, record), n) in &stats.by_type`; [`TypeCounts::to_map`]
/// builds the `BTreeMap`. Types never seen are not listed.
#[derive(Clone, PartialEq, Eq)]
pub struct TypeCounts {
    /// Counts per dense (domain, record) slot (`layout::dense_slot`).
    dense: Box<[u64; DENSE]>,
    other: BTreeMap<(u8, u16), u64>,
}

impl Default for TypeCounts {
    fn default() -> Self {
        TypeCounts {
            dense: Box::new([0; DENSE]),
            other: BTreeMap::new(),
        }
    }
}

impl TypeCounts {
    /// Count one record of type (domain, record).
    #[inline]
    pub fn add(&mut self, domain: u8, record: u16) {
        match dense_slot(domain, record) {
            Some(s) => self.add_slot(s),
            None => self.add_other(domain, record),
        }
    }

    /// Count one record of the type of dense slot `s`.
    #[inline(always)]
    fn add_slot(&mut self, s: usize) {
        self.dense[s] += 1;
    }

    #[cold]
    #[inline(never)]
    fn add_other(&mut self, domain: u8, record: u16) {
        *self.other.entry((domain, record)).or_insert(0) += 1;
    }

    /// Records of type (domain, record) (0 if never seen).
    pub fn get(&self, domain: u8, record: u16) -> u64 {
        match dense_slot(domain, record) {
            Some(i) => self.dense[i],
            None => self.other.get(&(domain, record)).copied().unwrap_or(0),
        }
    }

    /// The counts as a map, types never seen left out.
    pub fn to_map(&self) -> BTreeMap<(u8, u16), u64> {
        let mut m = self.other.clone();
        for (i, &n) in self.dense.iter().enumerate() {
            if n != 0 {
                let key = ((i / DENSE_RECORDS) as u8, (i % DENSE_RECORDS) as u16);
                m.insert(key, n);
            }
        }
        m
    }

    /// ((domain, record), count) for every type seen, in (domain, record) order.
    pub fn iter(&self) -> std::collections::btree_map::IntoIter<(u8, u16), u64> {
        self.to_map().into_iter()
    }

    /// Number of record types seen.
    pub fn len(&self) -> usize {
        self.dense.iter().filter(|&&n| n != 0).count() + self.other.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl IntoIterator for &TypeCounts {
    type Item = ((u8, u16), u64);
    type IntoIter = std::collections::btree_map::IntoIter<(u8, u16), u64>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl std::fmt::Debug for TypeCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// The bytes of a whole source held in memory by the caller (for example a
/// memory-mapped file, `ztwin-py`): the reader takes its blocks from them
/// without copying ([`Reader::from_whole`]).
pub type WholeBytes = Box<dyn AsRef<[u8]> + Send + Sync>;

/// Fixed-size window over a seekable source, read in 1 MiB steps (or the
/// whole source in memory).
struct Blocks<R> {
    src: R,
    buf: Vec<u8>,
    whole: Option<WholeBytes>,
    first: u64,
    count: usize,
    /// Whole blocks in the source.
    total: u64,
}

impl<R: Read + Seek> Blocks<R> {
    fn new(mut src: R) -> io::Result<(Blocks<R>, u64)> {
        let len = src.seek(SeekFrom::End(0))?;
        src.seek(SeekFrom::Start(0))?;
        Ok((
            Blocks {
                src,
                buf: vec![0u8; WINDOW_BLOCKS * FRAME],
                whole: None,
                first: 0,
                count: 0,
                total: len / FRAME as u64,
            },
            len,
        ))
    }

    fn from_whole(src: R, whole: WholeBytes) -> (Blocks<R>, u64) {
        let len = whole.as_ref().as_ref().len() as u64;
        (
            Blocks {
                src,
                buf: Vec::new(),
                whole: Some(whole),
                first: 0,
                count: 0,
                total: len / FRAME as u64,
            },
            len,
        )
    }

    /// Block `idx`, or `None` past the last whole block.
    fn get(&mut self, idx: u64) -> io::Result<Option<&[u8; FRAME]>> {
        if idx >= self.total {
            return Ok(None);
        }
        if self.whole.is_none() && (idx < self.first || idx >= self.first + self.count as u64) {
            let n = (self.total - idx).min(WINDOW_BLOCKS as u64) as usize;
            if idx != self.first + self.count as u64 {
                self.src.seek(SeekFrom::Start(idx * FRAME as u64))?;
            }
            self.src.read_exact(&mut self.buf[..n * FRAME])?;
            self.first = idx;
            self.count = n;
        }
        Ok(Some(self.block(idx)))
    }

    /// Block `idx`, already in the window (after a successful [`Blocks::get`]).
    #[inline]
    fn block(&self, idx: u64) -> &[u8; FRAME] {
        if let Some(w) = &self.whole {
            let o = idx as usize * FRAME;
            return w.as_ref().as_ref()[o..o + FRAME]
                .try_into()
                .expect("one block");
        }
        let o = (idx - self.first) as usize * FRAME;
        self.buf[o..o + FRAME].try_into().expect("one block")
    }
}

#[derive(Clone, Copy, Debug)]
enum State {
    /// Expect a control record at this block.
    Control(u64),
    /// Start page `page` of entry `entry` of the current group at byte `pos`.
    Entry {
        entry: usize,
        page: u64,
        pos: usize,
    },
    /// Records of page `page` of entry `entry`, whose block `blk` is in the
    /// window, from byte `pos` up to `limit` (exclusive).
    Page {
        entry: usize,
        page: u64,
        blk: u64,
        limit: usize,
        pos: usize,
        kind: SetKind,
    },
    Done,
}

/// The streaming reader. Call [`Reader::next_record`] until it returns `None`.
pub struct Reader<R> {
    blocks: Blocks<R>,
    state: State,
    ctl_block: u64,
    entries: Vec<ControlEntry>,
    /// Block index of the first page of each entry.
    entry_block: Vec<u64>,
    /// Block after the current group's last data block.
    group_end: u64,
    seen_control: bool,
    /// [`lookup`] in [`DEFAULT_RELEASE`] for each dense (domain, record) slot.
    layouts: &'static DenseLayouts,
    pub stats: Stats,
}

impl Reader<io::BufReader<File>> {
    /// Open a MONWRITE file. Fails only if the file cannot be opened.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, FatalError> {
        let p = path.as_ref();
        let f = File::open(p).map_err(|e| FatalError {
            offset: 0,
            reason: format!("cannot open {}: {e}", p.display()),
        })?;
        // The window does its own buffering; a small BufReader only smooths seeks.
        Reader::new(io::BufReader::with_capacity(FRAME, f))
    }
}

impl Reader<io::Empty> {
    /// A reader over a whole file already in memory (a memory map): blocks
    /// are taken from `data` without copying. The same records, statistics
    /// and errors as [`Reader::new`] over the same bytes.
    pub fn from_whole(data: WholeBytes) -> Result<Self, FatalError> {
        let (blocks, len) = Blocks::from_whole(io::empty(), data);
        Reader::with_blocks(blocks, len)
    }
}

impl<R: Read + Seek> Reader<R> {
    pub fn new(src: R) -> Result<Self, FatalError> {
        let (blocks, len) = Blocks::new(src).map_err(|e| FatalError {
            offset: 0,
            reason: format!("cannot read: {e}"),
        })?;
        Reader::with_blocks(blocks, len)
    }

    fn with_blocks(blocks: Blocks<R>, len: u64) -> Result<Self, FatalError> {
        let mut r = Reader {
            blocks,
            state: State::Control(0),
            ctl_block: 0,
            entries: Vec::new(),
            entry_block: Vec::new(),
            group_end: 0,
            seen_control: false,
            layouts: crate::layout::default_layouts(),
            stats: Stats {
                file_bytes: len,
                ..Stats::default()
            },
        };
        if len == 0 {
            return Err(FatalError {
                offset: 0,
                reason: "the file is empty".into(),
            });
        }
        if len < FRAME as u64 {
            return Err(FatalError {
                offset: 0,
                reason: format!(
                    "the file is {len} bytes, shorter than one 4096-byte MONWRITE control record"
                ),
            });
        }
        if len % FRAME as u64 != 0 {
            r.stats.truncated = true;
        }
        Ok(r)
    }

    fn damage(&mut self, offset: u64, end: u64, kind: DamageKind, reason: String) {
        self.stats.damage_count += 1;
        self.stats.damaged_bytes += end.saturating_sub(offset);
        if self.stats.damage.len() < MAX_DAMAGE_KEPT {
            self.stats.damage.push(Damage {
                offset,
                end,
                kind,
                reason,
            });
        }
    }

    fn io_err(offset: u64, e: io::Error) -> FatalError {
        FatalError {
            offset,
            reason: format!("read error: {e}"),
        }
    }

    /// Finish: report a partial trailing block once.
    fn finish(&mut self) {
        if let State::Done = self.state {
            return;
        }
        self.state = State::Done;
        let whole = self.blocks.total * FRAME as u64;
        if self.stats.file_bytes > whole {
            self.damage(
                whole,
                self.stats.file_bytes,
                DamageKind::PartialBlock,
                format!(
                    "the file ends {} bytes into a 4096-byte block (MONWRITE stopped or the copy was cut)",
                    self.stats.file_bytes - whole
                ),
            );
        }
    }

    /// Read the control record at `blk` (resynchronising if needed) and set up the
    /// group. Returns false at end of file.
    fn start_group(&mut self, blk: u64) -> Result<bool, FatalError> {
        let mut b = blk;
        let mut first_err: Option<String> = None;
        let ctl = loop {
            let off = b * FRAME as u64;
            let Some(block) = self.blocks.get(b).map_err(|e| Self::io_err(off, e))? else {
                if let Some(reason) = first_err {
                    if !self.seen_control {
                        return Err(FatalError {
                            offset: blk * FRAME as u64,
                            reason: format!(
                                "not a MONWRITE file: no valid control record found ({reason})"
                            ),
                        });
                    }
                    self.damage(
                        blk * FRAME as u64,
                        b * FRAME as u64,
                        DamageKind::BadControlRecord,
                        format!("{reason}; no further control record before the end of the file"),
                    );
                }
                return Ok(false);
            };
            match ControlRecord::parse(block) {
                Ok(c) => break c,
                Err(e) => {
                    if first_err.is_none() {
                        first_err = Some(format!("expected a control record: {e}"));
                    }
                    b += 1;
                }
            }
        };
        if let Some(reason) = first_err {
            self.damage(
                blk * FRAME as u64,
                b * FRAME as u64,
                DamageKind::BadControlRecord,
                format!(
                    "{reason}; resynchronised on the control record at offset {}",
                    b * FRAME as u64
                ),
            );
        }
        self.seen_control = true;
        self.stats.groups += 1;
        self.ctl_block = b;
        self.entries = ctl.entries;
        // Two hypotheses for the data blocks (spec 4.4 step 4): one copy of every
        // page per entry, or a page shared by consecutive entries written once.
        let mut per_entry = Vec::with_capacity(self.entries.len());
        let mut shared = Vec::with_capacity(self.entries.len());
        let (mut n1, mut n2) = (0u64, 0u64);
        let mut prev_last: Option<u32> = None;
        for e in &self.entries {
            let (first, last) = e.pages();
            per_entry.push(b + 1 + n1);
            n1 += e.page_count();
            if prev_last == Some(first) {
                shared.push(b + n2); // the previous entry's last block
                n2 += e.page_count() - 1;
            } else {
                shared.push(b + 1 + n2);
                n2 += e.page_count();
            }
            prev_last = Some(last);
        }
        let use_shared = n1 != n2
            && !self.is_control_or_eof(b + 1 + n1)?
            && self.is_control_or_eof(b + 1 + n2)?;
        if use_shared {
            self.entry_block = shared;
            self.group_end = b + 1 + n2;
        } else {
            self.entry_block = per_entry;
            self.group_end = b + 1 + n1;
        }
        self.state = State::Entry {
            entry: 0,
            page: 0,
            pos: (self.entries[0].start as usize) % FRAME,
        };
        Ok(true)
    }

    fn is_control_or_eof(&mut self, blk: u64) -> Result<bool, FatalError> {
        let off = blk * FRAME as u64;
        Ok(
            match self.blocks.get(blk).map_err(|e| Self::io_err(off, e))? {
                None => true,
                Some(b) => ControlRecord::looks_valid(b),
            },
        )
    }

    /// The next record, or `None` at the end of the data. Damage is recorded in
    /// [`Reader::stats`] and reading continues; only fatal errors are returned.
    pub fn next_record(&mut self) -> Result<Option<RecordRef<'_>>, FatalError> {
        loop {
            match self.state {
                State::Page {
                    entry,
                    page,
                    blk,
                    limit,
                    pos,
                    kind,
                } => {
                    if pos + HEADER_LEN > limit {
                        self.page_tail(entry, page, blk, limit, pos);
                        continue;
                    }
                    let parsed = Header::parse(&self.blocks.block(blk)[pos..]);
                    let h = match parsed {
                        Ok(h)
                            if pos + h.len as usize <= limit && (h.domain, h.record) != (1, 13) =>
                        {
                            h
                        }
                        _ => {
                            self.page_stop(entry, page, blk, limit, pos);
                            continue;
                        }
                    };
                    let len = h.len as usize;
                    self.state = State::Page {
                        entry,
                        page,
                        blk,
                        limit,
                        pos: pos + len,
                        kind,
                    };
                    self.stats.records += 1;
                    let layout = match dense_slot(h.domain, h.record) {
                        Some(s) => {
                            self.stats.by_type.add_slot(s);
                            self.layouts[s]
                        }
                        None => {
                            self.stats.by_type.add(h.domain, h.record);
                            lookup(h.domain, h.record, DEFAULT_RELEASE)
                        }
                    };
                    if layout.is_none() {
                        self.stats.unknown += 1;
                    }
                    if (h.domain, h.record) == (1, 11) {
                        self.stats.intervals += 1;
                    }
                    let page_off = blk * FRAME as u64;
                    return Ok(Some(RecordRef {
                        offset: page_off + pos as u64,
                        header: h,
                        bytes: &self.blocks.block(blk)[pos..pos + len],
                        set_kind: kind,
                        layout,
                    }));
                }
                State::Entry { entry, page, pos } => {
                    if !self.enter_page(entry, page, pos)? {
                        return Ok(None);
                    }
                }
                State::Control(blk) => {
                    if !self.start_group(blk)? {
                        self.finish();
                        return Ok(None);
                    }
                }
                State::Done => return Ok(None),
            }
        }
    }

    /// Start page `page` of entry `entry` at byte `pos`: move to the next entry
    /// or group when the entry is finished, read the block, and check that it is
    /// not a control record. Returns false when the file ends (reading is over).
    #[inline(never)]
    fn enter_page(&mut self, entry: usize, page: u64, pos: usize) -> Result<bool, FatalError> {
        let e = self.entries[entry];
        let pages = e.page_count();
        if page >= pages {
            // Entry finished; next entry or next group.
            self.state = if entry + 1 < self.entries.len() {
                let n = self.entries[entry + 1];
                State::Entry {
                    entry: entry + 1,
                    page: 0,
                    pos: n.start as usize % FRAME,
                }
            } else {
                State::Control(self.group_end)
            };
            return Ok(true);
        }
        let blk = self.entry_block[entry] + page;
        let page_off = blk * FRAME as u64;
        let limit = if page + 1 == pages {
            e.end as usize % FRAME + 1
        } else {
            FRAME
        };
        let Some(block) = self
            .blocks
            .get(blk)
            .map_err(|er| Self::io_err(page_off, er))?
        else {
            self.stats.truncated = true;
            let ctl_off = self.ctl_block * FRAME as u64;
            let need = self.group_end - self.ctl_block - 1;
            let have = self.blocks.total.saturating_sub(self.ctl_block + 1);
            // The span stops at the last whole block; a partial
            // block after it is reported once, as such, by finish().
            let whole_end = self.blocks.total * FRAME as u64;
            self.damage(
                page_off.min(whole_end),
                whole_end,
                DamageKind::TruncatedGroup,
                format!(
                    "the group whose control record is at offset {ctl_off} needs {need} data block(s); the file ends after {have}"
                ),
            );
            self.finish();
            return Ok(false);
        };
        if pos == 0 && ControlRecord::looks_valid(block) {
            // A new group starts where this one's data should be.
            self.damage(
                page_off,
                page_off,
                DamageKind::GroupCutShort,
                format!(
                    "control record found where data frame {page} of entry {entry} (group at offset {}) was expected",
                    self.ctl_block * FRAME as u64
                ),
            );
            self.state = State::Control(blk);
            return Ok(true);
        }
        // The block stays in the window until the next call of `Blocks::get`,
        // which only happens once this page is finished.
        self.state = State::Page {
            entry,
            page,
            blk,
            limit,
            pos,
            kind: e.kind,
        };
        Ok(true)
    }

    /// The end of a page's records at `pos`: fewer than a header's bytes left
    /// before `limit`. Reports non-zero leftovers at the end of an entry, then
    /// moves to the next page.
    #[cold]
    #[inline(never)]
    fn page_tail(&mut self, entry: usize, page: u64, blk: u64, limit: usize, pos: usize) {
        if pos < limit {
            // Bytes left in the frame or entry that cannot hold a record.
            let block = self.blocks.block(blk);
            if limit < FRAME && block[pos..limit].iter().any(|&b| b != 0) {
                let page_off = blk * FRAME as u64;
                let (o, end) = (page_off + pos as u64, page_off + limit as u64);
                let e_end = self.entries[entry].end;
                self.damage(
                    o,
                    end,
                    DamageKind::OutsideEntry,
                    format!(
                        "entry {entry} ends (end address X'{e_end:08X}') inside a record header"
                    ),
                );
            }
        }
        self.state = State::Entry {
            entry,
            page: page + 1,
            pos: 0,
        };
    }

    /// A record position at `pos` that ends the page: an invalid header, a
    /// record running past the entry's end, or the end-of-frame record D1R13.
    /// Reports the damage, if any, and moves to the next page.
    #[cold]
    #[inline(never)]
    fn page_stop(&mut self, entry: usize, page: u64, blk: u64, limit: usize, pos: usize) {
        let page_off = blk * FRAME as u64;
        let (o, end) = (page_off + pos as u64, page_off + limit as u64);
        match Header::parse(&self.blocks.block(blk)[pos..]) {
            Err(err) => {
                let rest = &self.blocks.block(blk)[pos..limit];
                let padding =
                    matches!(err, HeaderError::LengthTooSmall(0)) && rest.iter().all(|&b| b == 0);
                if !padding {
                    self.damage(
                        o,
                        end,
                        DamageKind::BadRecordHeader,
                        format!("{err}; rest of the frame skipped"),
                    );
                }
            }
            Ok(h) if pos + h.len as usize > limit => {
                let e_end = self.entries[entry].end;
                self.damage(
                    o,
                    end,
                    DamageKind::OutsideEntry,
                    format!(
                        "record D{}R{} of length {} runs past its entry's end address X'{e_end:08X}'",
                        h.domain, h.record, h.len
                    ),
                );
            }
            // D1R13, end of frame: the rest of the frame is unused.
            Ok(_) => {}
        }
        self.state = State::Entry {
            entry,
            page: page + 1,
            pos: 0,
        };
    }

    /// Read to the end, calling `f` for each record. Returns the statistics.
    pub fn for_each(mut self, mut f: impl FnMut(&RecordRef<'_>)) -> Result<Stats, FatalError> {
        while let Some(r) = self.next_record()? {
            f(&r);
        }
        Ok(self.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_counts_read_as_a_sorted_map() {
        let mut c = TypeCounts::default();
        assert!(c.is_empty());
        for (d, r, n) in [
            (1u8, 11u16, 3u64),
            (0, 2, 1),
            (0, 200, 2),
            (15, 63, 1),
            (16, 0, 4),
            (255, 65535, 1),
        ] {
            for _ in 0..n {
                c.add(d, r);
            }
        }
        let want: BTreeMap<(u8, u16), u64> = [
            ((0, 2), 1),
            ((0, 200), 2),
            ((1, 11), 3),
            ((15, 63), 1),
            ((16, 0), 4),
            ((255, 65535), 1),
        ]
        .into_iter()
        .collect();
        assert_eq!(c.to_map(), want);
        assert_eq!(
            (&c).into_iter().collect::<Vec<_>>(),
            want.clone().into_iter().collect::<Vec<_>>()
        );
        assert_eq!(c.len(), 6);
        assert_eq!(c.get(1, 11), 3);
        assert_eq!(c.get(0, 200), 2);
        assert_eq!(c.get(7, 7), 0);
        assert_eq!(format!("{c:?}"), format!("{want:?}"));
    }
}
