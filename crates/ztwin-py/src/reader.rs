//! Record-by-record reading: the `Reader` iterator and the statistics dict.

use crate::convert::{value_to_py, TodAs};
use crate::errors::{fatal, os_error, LayoutPackError};
use pyo3::exceptions::{PyIsADirectoryError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use ztwin_monitor::dump::longer_warning;
use ztwin_monitor::layout::{
    decode_field, decode_group, record_name, LayoutPack, LayoutSet, Release,
};
use ztwin_monitor::mapped::map_file;
pub use ztwin_monitor::mapped::PageRelease;
use ztwin_monitor::reader::ReadOptions;
use ztwin_monitor::{RecordRef, Segment, Stats, FRAME};

/// The streaming reader over a file, as the bindings use it.
pub type FileReader = ztwin_monitor::Reader<BufReader<File>>;

/// The layout set of a pack file (installed once per process), or the
/// built-in one. A pack that cannot be read or fails its checks raises
/// `LayoutPackError`.
pub fn layout_set(layouts: Option<&Path>) -> PyResult<&'static LayoutSet> {
    match layouts {
        None => Ok(LayoutSet::builtin()),
        Some(p) => LayoutPack::load(p)
            .and_then(LayoutSet::install)
            .map_err(|e| LayoutPackError::new_err(e.to_string())),
    }
}

/// A release given as text (`"7.3"`), checked.
pub fn parse_release(release: Option<&str>) -> PyResult<Option<Release>> {
    release
        .map(|r| r.parse::<Release>().map_err(PyValueError::new_err))
        .transpose()
}

/// Reader options from the Python arguments `release` and `layouts`.
pub fn read_options(release: Option<&str>, layouts: Option<&PathBuf>) -> PyResult<ReadOptions> {
    Ok(ReadOptions {
        release: parse_release(release)?,
        layouts: layout_set(layouts.map(PathBuf::as_path))?,
    })
}

/// Open `path` for streaming. A missing or unreadable path raises `OSError`;
/// an empty or too short file raises `MonwriteError`.
pub fn open(py: Python<'_>, path: &Path, opts: ReadOptions) -> PyResult<FileReader> {
    let file = File::open(path).map_err(|e| os_error(path, &e))?;
    let meta = file.metadata().map_err(|e| os_error(path, &e))?;
    if meta.is_dir() {
        return Err(PyIsADirectoryError::new_err((
            21,
            "Is a directory",
            path.to_string_lossy().into_owned(),
        )));
    }
    // The reader keeps its own 1 MiB window; a small buffer only smooths seeks.
    ztwin_monitor::Reader::with_options(BufReader::with_capacity(FRAME, file), opts)
        .map_err(|e| fatal(py, &e))
}

/// A reader over a mapped file, or over `read()` when the file cannot be
/// mapped (the interval kernel's reader).
pub enum KernelReader {
    Mapped(ztwin_monitor::Reader<std::io::Empty>, PageRelease),
    Buffered(FileReader),
}

impl KernelReader {
    pub fn stats(&self) -> &Stats {
        match self {
            KernelReader::Mapped(r, _) => &r.stats,
            KernelReader::Buffered(r) => &r.stats,
        }
    }
}

/// Open `path` for the interval kernel: mapped when possible (see
/// [`map_file`]); errors as [`open`].
pub fn open_mapped(py: Python<'_>, path: &Path, opts: ReadOptions) -> PyResult<KernelReader> {
    let file = File::open(path).map_err(|e| os_error(path, &e))?;
    if let Some(m) = map_file(&file) {
        let release = PageRelease::new(&m);
        return ztwin_monitor::Reader::from_whole(Box::new(m), opts)
            .map(|r| KernelReader::Mapped(r, release))
            .map_err(|e| fatal(py, &e));
    }
    open(py, path, opts).map(KernelReader::Buffered)
}

/// The reader's statistics as a dict (see `Stats` in `_native.pyi`).
pub fn stats_dict<'py>(py: Python<'py>, s: &Stats) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("file_bytes", s.file_bytes)?;
    d.set_item("groups", s.groups)?;
    d.set_item("records", s.records)?;
    let by_type = PyDict::new(py);
    for ((dom, rec), n) in &s.by_type {
        by_type.set_item(record_name(dom, rec).as_ref(), n)?;
    }
    d.set_item("by_type", by_type)?;
    d.set_item("unknown", s.unknown)?;
    d.set_item("intervals", s.intervals)?;
    let damage = PyList::empty(py);
    for span in &s.damage {
        let e = PyDict::new(py);
        e.set_item("offset", span.offset)?;
        e.set_item("end", span.end)?;
        e.set_item("kind", span.kind.as_str())?;
        e.set_item("reason", span.reason.as_str())?;
        damage.append(e)?;
    }
    d.set_item("damage", damage)?;
    d.set_item("damage_count", s.damage_count)?;
    d.set_item("damaged_bytes", s.damaged_bytes)?;
    d.set_item("truncated", s.truncated)?;
    d.set_item("release", s.release.to_string())?;
    d.set_item("release_source", s.release_source.to_string())?;
    d.set_item("longer", s.longer)?;
    d.set_item("longer_bytes", s.longer_bytes)?;
    let longer = PyDict::new(py);
    for (&(dom, rec), l) in &s.longer_by_type {
        let e = PyDict::new(py);
        e.set_item("count", l.count)?;
        e.set_item("first_offset", l.first_offset)?;
        e.set_item("first_length", l.first_len)?;
        e.set_item("known", l.known)?;
        longer.set_item(record_name(dom, rec).as_ref(), e)?;
    }
    d.set_item("longer_types", longer)?;
    d.set_item("longer_warning", longer_warning(s))?;
    d.set_item("frame_groups", s.frame_groups)?;
    d.set_item("contiguous_groups", s.contiguous_groups)?;
    d.set_item("segments", segments_list(py, s)?)?;
    d.set_item("segment_count", s.segments.count)?;
    Ok(d)
}

/// The segments (collections) of a read as a list of dicts; `end` is where
/// the next one starts (the file size for the last one kept).
fn segments_list<'py>(py: Python<'py>, s: &Stats) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    let segs = &s.segments.segments;
    for (i, seg) in segs.iter().enumerate() {
        let e = PyDict::new(py);
        let prev: Option<&Segment> = i.checked_sub(1).map(|j| &segs[j]);
        e.set_item("index", i + 1)?;
        e.set_item("offset", seg.offset)?;
        e.set_item(
            "end",
            segs.get(i + 1).map_or(s.file_bytes, |next| next.offset),
        )?;
        e.set_item("start", seg.start.as_str())?;
        e.set_item("reason", seg.reason(prev))?;
        e.set_item("system_id", seg.system_id.as_deref())?;
        e.set_item("cpu_model", seg.cpu_model.as_deref())?;
        e.set_item("first_tod", seg.first_tod)?;
        e.set_item("last_tod", seg.last_tod)?;
        e.set_item("intervals", seg.intervals)?;
        list.append(e)?;
    }
    Ok(list)
}

/// Read a file to the end without decoding fields and return its statistics
/// (record counts, damage, segments): the fast structural pass.
#[pyfunction]
#[pyo3(signature = (path, *, release = None, layouts = None))]
pub fn scan<'py>(
    py: Python<'py>,
    path: PathBuf,
    release: Option<&str>,
    layouts: Option<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut r = open(py, &path, read_options(release, layouts.as_ref())?)?;
    let res = py.detach(|| -> Result<(), ztwin_monitor::FatalError> {
        while r.next_record()?.is_some() {}
        Ok(())
    });
    res.map_err(|e| fatal(py, &e))?;
    stats_dict(py, &r.stats)
}

/// One decoded record as a dict (see `Record` in `_native.pyi`). Field values
/// follow `ztwin dump --json`: TOD fields as ISO text, bit strings as hex text,
/// absent fields as `None`, a repeating group as a list of dicts.
pub(crate) fn record_dict<'py>(py: Python<'py>, r: &RecordRef<'_>) -> PyResult<Bound<'py, PyDict>> {
    let h = &r.header;
    let layout = r.layout;
    let d = PyDict::new(py);
    d.set_item("offset", r.offset)?;
    d.set_item("domain", h.domain)?;
    d.set_item("record", h.record)?;
    match layout {
        Some(l) => d.set_item("name", l.name)?,
        None => d.set_item("name", record_name(h.domain, h.record).as_ref())?,
    }
    d.set_item("tod", ztwin_monitor::tod::iso8601(h.tod))?;
    d.set_item("tod_raw", h.tod)?;
    d.set_item("length", h.len)?;
    d.set_item("kind", r.set_kind.as_str())?;
    let fields = PyDict::new(py);
    if let Some(l) = layout {
        for f in l.fields {
            fields.set_item(
                f.name,
                value_to_py(py, decode_field(r.bytes, f).as_ref(), TodAs::Iso)?,
            )?;
        }
        if let Some(g) = &l.group {
            let entries = PyList::empty(py);
            for entry in decode_group(r.bytes, l) {
                let e = PyDict::new(py);
                for (name, v) in &entry {
                    e.set_item(*name, value_to_py(py, v.as_ref(), TodAs::Iso)?)?;
                }
                entries.append(e)?;
            }
            fields.set_item(g.name, entries)?;
        }
    }
    d.set_item("fields", fields)?;
    Ok(d)
}

/// Iterator over the records of a MONWRITE file, each a dict.
///
/// Damage is skipped and counted (see `stats()`); only fatal damage raises
/// `MonwriteError`, and after it the iterator is exhausted. `ranges`, a list of
/// `(start, end)` byte offsets in file order, keeps only the records whose
/// offset lies in one of them (a choice of segments).
#[pyclass(module = "ztwin._native")]
pub struct Reader {
    inner: FileReader,
    finished: bool,
    ranges: Option<Vec<(u64, u64)>>,
}

#[pymethods]
impl Reader {
    /// `release` (e.g. "7.3") decodes as that release instead of the one the
    /// file's MRMTRSYS record names; `layouts` merges a layout pack file.
    #[new]
    #[pyo3(signature = (path, ranges = None, *, release = None, layouts = None))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        ranges: Option<Vec<(u64, u64)>>,
        release: Option<&str>,
        layouts: Option<PathBuf>,
    ) -> PyResult<Self> {
        let opts = read_options(release, layouts.as_ref())?;
        Ok(Reader {
            inner: open(py, &path, opts)?,
            finished: false,
            ranges,
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        if self.finished {
            return Ok(None);
        }
        let ranges = self.ranges.as_deref();
        let next = loop {
            match self.inner.next_record() {
                Ok(Some(r))
                    if ranges.is_some_and(|rs| {
                        !rs.iter().any(|&(a, b)| a <= r.offset && r.offset < b)
                    }) =>
                {
                    continue
                }
                other => break other,
            }
        };
        match next {
            Ok(Some(r)) => record_dict(py, &r).map(Some),
            Ok(None) => {
                self.finished = true;
                Ok(None)
            }
            Err(e) => {
                self.finished = true;
                Err(fatal(py, &e))
            }
        }
    }

    /// What the reader has seen so far: counts per record type, damage spans.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        stats_dict(py, &self.inner.stats)
    }
}
