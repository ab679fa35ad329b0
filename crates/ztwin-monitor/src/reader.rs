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
//!
//! Collections joined into one file are told apart by a
//! [`SegmentTracker`](crate::segment::SegmentTracker) (in [`Stats::segments`]),
//! which the reader calls per control record, per MRMTRSYS and per sample
//! interval end.

use crate::control::{ControlEntry, ControlRecord, SetKind};
use crate::header::{Header, HeaderError, FRAME, HEADER_LEN};
use crate::layout::{
    dense_slot, detect_release, DenseLayouts, FieldType, LayoutSet, RecordLayout, Release,
    ReleaseSource, DEFAULT_RELEASE, DENSE, DENSE_RECORDS,
};
use crate::segment::SegmentTracker;
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
    /// The record's layout in the release the reader decodes the file as
    /// ([`Stats::release`]), from its layout set; `None` for a record type
    /// without a known layout.
    pub layout: Option<&'static RecordLayout>,
}

impl<'a> RecordRef<'a> {
    /// A record from its parts, with its built-in layout in [`DEFAULT_RELEASE`].
    pub fn new(offset: u64, header: Header, bytes: &'a [u8], set_kind: SetKind) -> RecordRef<'a> {
        RecordRef {
            offset,
            header,
            bytes,
            set_kind,
            layout: crate::layout::lookup(header.domain, header.record, DEFAULT_RELEASE),
        }
    }
}

/// How the reader decodes: which layouts, which release.
#[derive(Clone, Copy, Debug)]
pub struct ReadOptions {
    /// Decode as this release whatever the file says (`--release`); `None`
    /// detects it from the file's MRMTRSYS record.
    pub release: Option<Release>,
    /// The layouts: the built-in tables, or a pack merged over them (`--layouts`).
    pub layouts: &'static LayoutSet,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            release: None,
            layouts: LayoutSet::builtin(),
        }
    }
}

/// How the record data of a group follows its control record (spec 4.2, 4.4),
/// detected per group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataLayout {
    /// Whole 4 KB DCSS frames per control-area entry, in entry order (a frame
    /// shared by two consecutive entries possibly written once).
    Frames,
    /// The bytes of each entry from its start to its end address, back to back
    /// (what Linux's monreader hands over), the group padded to whole blocks.
    Contiguous,
}

/// Records longer than the layout of their release: the known fields are
/// decoded, the trailing bytes ignored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LongerRecords {
    pub count: u64,
    /// Byte offset and length of the first one.
    pub first_offset: u64,
    pub first_len: u16,
    /// The layout's size.
    pub known: u16,
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
#[derive(Clone, Debug)]
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
    /// The release the records were decoded as, and why.
    pub release: Release,
    pub release_source: ReleaseSource,
    /// Records longer than their layout (a newer release appends fields), in
    /// all and per (domain, record).
    pub longer: u64,
    pub longer_bytes: u64,
    pub longer_by_type: BTreeMap<(u8, u16), LongerRecords>,
    /// Groups whose data followed each layout.
    pub frame_groups: u64,
    pub contiguous_groups: u64,
    /// The collections in the file (see [`crate::segment`]).
    pub segments: SegmentTracker,
}

impl Default for Stats {
    fn default() -> Self {
        Stats {
            file_bytes: 0,
            groups: 0,
            records: 0,
            by_type: TypeCounts::default(),
            unknown: 0,
            intervals: 0,
            damage_count: 0,
            damaged_bytes: 0,
            damage: Vec::new(),
            truncated: false,
            release: DEFAULT_RELEASE,
            release_source: ReleaseSource::Default,
            longer: 0,
            longer_bytes: 0,
            longer_by_type: BTreeMap::new(),
            frame_groups: 0,
            contiguous_groups: 0,
            segments: SegmentTracker::default(),
        }
    }
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
    /// The source's read position.
    pos: u64,
    /// Bytes read by [`Blocks::peek`] from outside the window.
    side: Vec<u8>,
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
                pos: 0,
                side: vec![0u8; FRAME],
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
                pos: 0,
                side: Vec::new(),
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
            if idx * FRAME as u64 != self.pos {
                self.src.seek(SeekFrom::Start(idx * FRAME as u64))?;
            }
            self.src.read_exact(&mut self.buf[..n * FRAME])?;
            self.first = idx;
            self.count = n;
            self.pos = (idx + n as u64) * FRAME as u64;
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

    /// Make the file bytes `[from, to)` (at most one block long) part of the
    /// window. Returns false when they run past the last whole block.
    fn ensure(&mut self, from: u64, to: u64) -> io::Result<bool> {
        if to > self.total * FRAME as u64 {
            return Ok(false);
        }
        if self.whole.is_some() {
            return Ok(true);
        }
        let (lo, hi) = (
            self.first * FRAME as u64,
            (self.first + self.count as u64) * FRAME as u64,
        );
        if from >= lo && to <= hi {
            return Ok(true);
        }
        Ok(self.get(from / FRAME as u64)?.is_some())
    }

    /// The file bytes `[from, to)` (at most one block long) without moving the
    /// window: from the window when they are in it, else read on the side (a
    /// look ahead at a group's end must not make the reader read its data
    /// twice). `None` when they run past the last whole block.
    fn peek(&mut self, from: u64, to: u64) -> io::Result<Option<&[u8]>> {
        if to > self.total * FRAME as u64 {
            return Ok(None);
        }
        if let Some(w) = &self.whole {
            return Ok(Some(&w.as_ref().as_ref()[from as usize..to as usize]));
        }
        let (lo, hi) = (
            self.first * FRAME as u64,
            (self.first + self.count as u64) * FRAME as u64,
        );
        if from >= lo && to <= hi {
            return Ok(Some(self.slice(from, to)));
        }
        let n = (to - from) as usize;
        if from != self.pos {
            self.src.seek(SeekFrom::Start(from))?;
        }
        self.src.read_exact(&mut self.side[..n])?;
        self.pos = to;
        Ok(Some(&self.side[..n]))
    }

    /// The file bytes `[from, to)`, already in the window (after a successful
    /// [`Blocks::ensure`]).
    #[inline]
    fn slice(&self, from: u64, to: u64) -> &[u8] {
        if let Some(w) = &self.whole {
            return &w.as_ref().as_ref()[from as usize..to as usize];
        }
        let base = self.first * FRAME as u64;
        &self.buf[(from - base) as usize..(to - base) as usize]
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
    /// Records of page `page` of entry `entry`, from byte `pos` up to `limit`
    /// (exclusive) of the DCSS frame whose byte 0 is at file offset `base`;
    /// the bytes `base + pos .. base + limit` are in the window.
    Page {
        entry: usize,
        page: u64,
        base: u64,
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
    /// File offset of byte 0 of the first DCSS frame of each entry (for
    /// contiguous data, a virtual position before the entry's first byte).
    entry_base: Vec<u64>,
    /// Block after the current group's last data block.
    group_end: u64,
    seen_control: bool,
    /// The layouts and release decoded with.
    set: &'static LayoutSet,
    fixed_release: bool,
    /// The set's layout for each dense (domain, record) slot in the release.
    layouts: &'static DenseLayouts,
    /// Per dense slot: the length beyond which a record is longer than its
    /// layout (`u16::MAX` for variable-length layouts and unknown types).
    known_len: Box<[u16; DENSE]>,
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
    /// and errors as [`Reader::with_options`] over the same bytes.
    pub fn from_whole(data: WholeBytes, opts: ReadOptions) -> Result<Self, FatalError> {
        let (blocks, len) = Blocks::from_whole(io::empty(), data);
        Reader::with_blocks(blocks, len, opts)
    }
}

/// The number of records in `bytes` (the rest of a DCSS frame from a record's
/// start) when they read as a consistent chain, else `None`: every header
/// valid with a domain of 0 to 10, the chain ending exactly at the end, at an
/// end-of-frame record (D1R13) or where only zeros remain.
fn record_chain(bytes: &[u8]) -> Option<usize> {
    let (mut pos, mut n) = (0usize, 0usize);
    while pos < bytes.len() {
        let rest = &bytes[pos..];
        match Header::parse(rest) {
            Ok(h) if h.domain <= 10 => {
                n += 1;
                if (h.domain, h.record) == (1, 13) {
                    return Some(n);
                }
                pos += h.len as usize;
            }
            _ => return rest.iter().all(|&b| b == 0).then_some(n),
        }
    }
    Some(n)
}

/// The record length beyond which each layout of `t` has trailing bytes it
/// does not describe (none for layouts of variable length).
fn known_lengths(t: &DenseLayouts) -> Box<[u16; DENSE]> {
    let mut k = Box::new([u16::MAX; DENSE]);
    for (slot, l) in t.iter().enumerate() {
        if let Some(l) = l {
            let variable = l.group.is_some()
                || crate::layout::VARIABLE_TAIL.contains(&(l.domain, l.record))
                || l.fields
                    .iter()
                    .any(|f| matches!(f.ty, FieldType::VarText { .. }));
            if !variable {
                k[slot] = l.size;
            }
        }
    }
    k
}

impl<R: Read + Seek> Reader<R> {
    /// A reader with the built-in layouts, detecting the release.
    pub fn new(src: R) -> Result<Self, FatalError> {
        Reader::with_options(src, ReadOptions::default())
    }

    /// A reader with the given layouts and release choice.
    pub fn with_options(src: R, opts: ReadOptions) -> Result<Self, FatalError> {
        let (blocks, len) = Blocks::new(src).map_err(|e| FatalError {
            offset: 0,
            reason: format!("cannot read: {e}"),
        })?;
        Reader::with_blocks(blocks, len, opts)
    }

    fn with_blocks(blocks: Blocks<R>, len: u64, opts: ReadOptions) -> Result<Self, FatalError> {
        let (release, source) = match opts.release {
            Some(r) => (r, ReleaseSource::Override),
            None => (DEFAULT_RELEASE, ReleaseSource::Default),
        };
        let layouts = opts.layouts.dense(release);
        let mut r = Reader {
            blocks,
            state: State::Control(0),
            ctl_block: 0,
            entries: Vec::new(),
            entry_base: Vec::new(),
            group_end: 0,
            seen_control: false,
            set: opts.layouts,
            fixed_release: opts.release.is_some(),
            layouts,
            known_len: known_lengths(layouts),
            stats: Stats {
                file_bytes: len,
                release,
                release_source: source,
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
                    let hint = self.misalignment_hint(blk)?;
                    if !self.seen_control {
                        return Err(FatalError {
                            offset: blk * FRAME as u64,
                            reason: format!(
                                "not a MONWRITE file: no valid control record found ({reason}){hint}"
                            ),
                        });
                    }
                    self.damage(
                        blk * FRAME as u64,
                        b * FRAME as u64,
                        DamageKind::BadControlRecord,
                        format!(
                            "{reason}; no further control record before the end of the file{hint}"
                        ),
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
        self.stats.segments.group(b * FRAME as u64);
        self.ctl_block = b;
        self.entries = ctl.entries;
        // Three hypotheses for the data after the control record (spec 4.4
        // step 4): whole frames, one copy of every page per entry; whole frames,
        // a page shared by consecutive entries written once; or each entry's
        // bytes from its start to its end address, back to back. A hypothesis
        // fits when a control record (or the end of the file) follows its data;
        // among those that fit, the one whose entries start with valid record
        // headers wins, the earlier in this order on a tie.
        let data = (b + 1) * FRAME as u64;
        let mut per_entry = Vec::with_capacity(self.entries.len());
        let mut shared = Vec::with_capacity(self.entries.len());
        let mut contiguous = Vec::with_capacity(self.entries.len());
        let (mut n1, mut n2, mut bytes) = (0u64, 0u64, 0u64);
        let mut prev_last: Option<u32> = None;
        for e in &self.entries {
            let (first, last) = e.pages();
            per_entry.push(data + n1 * FRAME as u64);
            n1 += e.page_count();
            if prev_last == Some(first) {
                shared.push(data + (n2 - 1) * FRAME as u64); // the previous entry's last block
                n2 += e.page_count() - 1;
            } else {
                shared.push(data + n2 * FRAME as u64);
                n2 += e.page_count();
            }
            prev_last = Some(last);
            let s = (e.start as usize % FRAME) as u64;
            contiguous.push(data + bytes - s);
            bytes += (e.end.saturating_sub(e.start) as u64) + 1;
        }
        let n3 = bytes.div_ceil(FRAME as u64);
        let mut candidates = vec![(per_entry, n1, DataLayout::Frames)];
        if n2 != n1 {
            candidates.push((shared, n2, DataLayout::Frames));
        }
        candidates.push((contiguous, n3, DataLayout::Contiguous));
        // The look ahead peeks at single blocks without moving the window; the
        // record headers are only compared when more than one hypothesis fits.
        let mut fits = Vec::with_capacity(candidates.len());
        for c in candidates {
            if self.is_control_or_eof(b + 1 + c.1)? {
                fits.push(c);
            }
        }
        let chosen = if fits.len() > 1 {
            let mut best = ((0usize, 0usize), 0usize); // (score, index)
            for (i, (bases, ..)) in fits.iter().enumerate() {
                let score = self.header_score(bases)?;
                if i == 0 || score > best.0 {
                    best = (score, i);
                }
            }
            Some(fits.swap_remove(best.1))
        } else {
            fits.pop()
        };
        // None fits: frames per entry, and resynchronise later if needed.
        let (bases, n, layout) = match chosen {
            Some(c) => c,
            None => {
                let bases = (0..self.entries.len())
                    .scan(0u64, |acc, i| {
                        let at = data + *acc * FRAME as u64;
                        *acc += self.entries[i].page_count();
                        Some(at)
                    })
                    .collect();
                (bases, n1, DataLayout::Frames)
            }
        };
        match layout {
            DataLayout::Frames => self.stats.frame_groups += 1,
            DataLayout::Contiguous => self.stats.contiguous_groups += 1,
        }
        self.entry_base = bases;
        self.group_end = b + 1 + n;
        self.state = State::Entry {
            entry: 0,
            page: 0,
            pos: (self.entries[0].start as usize) % FRAME,
        };
        Ok(true)
    }

    /// When no control record was found from block `from` to the end: the
    /// reader looks for them only at 4096-byte boundaries, so say so, and say
    /// where one starts off the boundary (bytes were added or lost before it),
    /// looking through at most one read window.
    #[cold]
    #[inline(never)]
    fn misalignment_hint(&mut self, from: u64) -> Result<String, FatalError> {
        let mut buf = vec![0u8; 2 * FRAME];
        let last = self.blocks.total.min(from + WINDOW_BLOCKS as u64);
        for b in from..last.saturating_sub(1) {
            let off = b * FRAME as u64;
            let Some(x) = self.blocks.get(b).map_err(|e| Self::io_err(off, e))? else {
                break;
            };
            buf[..FRAME].copy_from_slice(x);
            let Some(y) = self.blocks.get(b + 1).map_err(|e| Self::io_err(off, e))? else {
                break;
            };
            buf[FRAME..].copy_from_slice(y);
            for o in 1..FRAME {
                let cand: &[u8; FRAME] = buf[o..o + FRAME].try_into().expect("one block");
                if ControlRecord::looks_valid(cand) {
                    let at = off + o as u64;
                    let before = at % FRAME as u64;
                    return Ok(format!(
                        "; a control record starts at offset {at} (X'{at:X}'), {before} bytes past a \
                         4096-byte boundary: bytes were added or lost before it, and the reader \
                         resynchronises only on 4096-byte boundaries"
                    ));
                }
            }
        }
        Ok("; the reader looks for control records at every 4096-byte boundary".into())
    }

    /// How well `bases` (file offsets of each entry's first frame) fit the
    /// data: (entries whose first frame reads as a consistent chain of
    /// records, records in those chains). A chain is consistent when every
    /// header is valid (domain 0-10) and it ends exactly at the end of the
    /// frame (or of the entry), at an end-of-frame record, or at a zero tail;
    /// a valid header met by chance inside a record rarely starts one.
    fn header_score(&mut self, bases: &[u64]) -> Result<(usize, usize), FatalError> {
        let (mut entries, mut records) = (0, 0);
        for (e, &base) in self.entries.iter().zip(bases) {
            let first_page = e.start as u64 & !(FRAME as u64 - 1);
            let at = base + e.start as u64 - first_page;
            // The rest of the frame, or of the entry when it ends in this frame.
            let to = base + (FRAME as u64).min(e.end as u64 - first_page + 1);
            if at + HEADER_LEN as u64 > to {
                continue;
            }
            let bytes = self
                .blocks
                .peek(at, to)
                .map_err(|er| Self::io_err(at, er))?;
            if let Some(n) = bytes.and_then(record_chain) {
                entries += 1;
                records += n;
            }
        }
        Ok((entries, records))
    }

    fn is_control_or_eof(&mut self, blk: u64) -> Result<bool, FatalError> {
        let off = blk * FRAME as u64;
        Ok(
            match self
                .blocks
                .peek(off, off + FRAME as u64)
                .map_err(|e| Self::io_err(off, e))?
            {
                None => true,
                Some(b) => ControlRecord::looks_valid(b.try_into().expect("one block")),
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
                    base,
                    limit,
                    pos,
                    kind,
                } => {
                    if pos + HEADER_LEN > limit {
                        self.page_tail(entry, page, base, limit, pos);
                        continue;
                    }
                    let rest = self.blocks.slice(base + pos as u64, base + limit as u64);
                    let h = match Header::parse(rest) {
                        Ok(h)
                            if pos + h.len as usize <= limit && (h.domain, h.record) != (1, 13) =>
                        {
                            h
                        }
                        _ => {
                            self.page_stop(entry, page, base, limit, pos);
                            continue;
                        }
                    };
                    let len = h.len as usize;
                    self.state = State::Page {
                        entry,
                        page,
                        base,
                        limit,
                        pos: pos + len,
                        kind,
                    };
                    self.stats.records += 1;
                    let at = base + pos as u64;
                    if (h.domain, h.record) == (1, 4) && !self.fixed_release {
                        self.detect(at, len);
                    }
                    let layout = match dense_slot(h.domain, h.record) {
                        Some(s) => {
                            self.stats.by_type.add_slot(s);
                            if h.len > self.known_len[s] {
                                self.longer(h, at, s);
                            }
                            self.layouts[s]
                        }
                        None => {
                            self.stats.by_type.add(h.domain, h.record);
                            self.set.lookup(h.domain, h.record, self.stats.release)
                        }
                    };
                    if h.domain == 1 && (h.record == 11 || h.record == 4) {
                        self.monitor_record(&h, at, kind);
                    }
                    if layout.is_none() {
                        self.stats.unknown += 1;
                    }
                    return Ok(Some(RecordRef {
                        offset: at,
                        header: h,
                        bytes: self.blocks.slice(at, at + len as u64),
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

    /// D1R11 (interval end) and D1R4 (MRMTRSYS): interval count and segments.
    #[inline(never)]
    fn monitor_record(&mut self, h: &Header, at: u64, kind: SetKind) {
        if h.record == 11 {
            self.stats.intervals += 1;
            if kind == SetKind::Sample {
                self.stats.segments.interval_end(h.tod);
            }
        } else {
            let layout = dense_slot(1, 4).and_then(|s| self.layouts[s]);
            let rec = self.blocks.slice(at, at + h.len as u64);
            self.stats.segments.system_record(h, rec, layout);
        }
    }

    /// The release of the file from its MRMTRSYS record at `at` (`len` bytes):
    /// switch the layouts to it.
    #[cold]
    #[inline(never)]
    fn detect(&mut self, at: u64, len: usize) {
        let g = detect_release(self.blocks.slice(at, at + len as u64));
        if g.release != self.stats.release || self.stats.release_source == ReleaseSource::Default {
            self.layouts = self.set.dense(g.release);
            self.known_len = known_lengths(self.layouts);
        }
        self.stats.release = g.release;
        self.stats.release_source = g.source;
    }

    /// Count a record longer than its layout (dense slot `s`).
    #[cold]
    #[inline(never)]
    fn longer(&mut self, h: Header, at: u64, s: usize) {
        let known = self.known_len[s];
        self.stats.longer += 1;
        self.stats.longer_bytes += (h.len - known) as u64;
        self.stats
            .longer_by_type
            .entry((h.domain, h.record))
            .and_modify(|l| l.count += 1)
            .or_insert(LongerRecords {
                count: 1,
                first_offset: at,
                first_len: h.len,
                known,
            });
    }

    /// Start page `page` of entry `entry` at byte `pos`: move to the next entry
    /// or group when the entry is finished, bring the frame's bytes into the
    /// window, and check that it is not a control record. Returns false when
    /// the file ends (reading is over).
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
        let base = self.entry_base[entry] + page * FRAME as u64;
        let limit = if page + 1 == pages {
            e.end as usize % FRAME + 1
        } else {
            FRAME
        };
        let (from, to) = (base + pos.min(limit) as u64, base + limit as u64);
        if !self
            .blocks
            .ensure(from, to)
            .map_err(|er| Self::io_err(from, er))?
        {
            self.stats.truncated = true;
            let ctl_off = self.ctl_block * FRAME as u64;
            let need = self.group_end - self.ctl_block - 1;
            let have = self.blocks.total.saturating_sub(self.ctl_block + 1);
            // The span stops at the last whole block; a partial
            // block after it is reported once, as such, by finish().
            let whole_end = self.blocks.total * FRAME as u64;
            self.damage(
                from.min(whole_end),
                whole_end,
                DamageKind::TruncatedGroup,
                format!(
                    "the group whose control record is at offset {ctl_off} needs {need} data block(s); the file ends after {have}"
                ),
            );
            self.finish();
            return Ok(false);
        }
        if from % FRAME as u64 == 0 {
            let blk = from / FRAME as u64;
            let is_ctl = match self.blocks.get(blk).map_err(|er| Self::io_err(from, er))? {
                Some(block) => ControlRecord::looks_valid(block),
                None => false,
            };
            if is_ctl {
                // A new group starts where this one's data should be.
                self.damage(
                    from,
                    from,
                    DamageKind::GroupCutShort,
                    format!(
                        "control record found where data frame {page} of entry {entry} (group at offset {}) was expected",
                        self.ctl_block * FRAME as u64
                    ),
                );
                self.state = State::Control(blk);
                return Ok(true);
            }
            // `get` may have moved the window: bring the frame back.
            self.blocks
                .ensure(from, to)
                .map_err(|er| Self::io_err(from, er))?;
        }
        // The frame's bytes stay in the window until the next call of
        // `Blocks::get` or `Blocks::ensure`, which only happens once this page
        // is finished.
        self.state = State::Page {
            entry,
            page,
            base,
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
    fn page_tail(&mut self, entry: usize, page: u64, base: u64, limit: usize, pos: usize) {
        if pos < limit {
            // Bytes left in the frame or entry that cannot hold a record.
            let (o, end) = (base + pos as u64, base + limit as u64);
            if limit < FRAME && self.blocks.slice(o, end).iter().any(|&b| b != 0) {
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
    fn page_stop(&mut self, entry: usize, page: u64, base: u64, limit: usize, pos: usize) {
        let (o, end) = (base + pos as u64, base + limit as u64);
        match Header::parse(self.blocks.slice(o, end)) {
            Err(err) => {
                let rest = self.blocks.slice(o, end);
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
