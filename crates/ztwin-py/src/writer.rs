//! The MONWRITE writer for Python: records by IBM name and field dicts, written
//! atomically (a temporary file in the target directory, renamed on `close()`).

use crate::convert::{tod_from_py, value_from_py};
use crate::errors::os_error;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyMapping, PyMappingMethods, PyType};
use std::fs::{self, File};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use ztwin_monitor::layout::{
    alias_of, by_name_release, encode_field, retired_reason, FieldDef, RecordLayout, Release,
    Value, DEFAULT_RELEASE,
};
use ztwin_monitor::writer::{DataLayout, D1R11_INTERVAL_END, D1R13_END_OF_FRAME};
use ztwin_monitor::{Header, MonwriteWriter, RecordSet, SetKind, WriteError, FRAME, HEADER_LEN};

/// Distinguishes temporary files of writers created by one process.
static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// `path` may be replaced: it does not exist or is a regular file (not a
/// directory, device, FIFO, socket or symbolic link), the rule of
/// `ztwin.safeout` that every ztwin output follows.
fn check_replaceable(path: &Path) -> PyResult<()> {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(os_error(path, &e)),
    };
    let t = meta.file_type();
    let what = if t.is_file() {
        return Ok(());
    } else if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file (a device, FIFO or socket)"
    };
    Err(PyValueError::new_err(format!(
        "{} is {what}; the writer replaces only regular files",
        path.display()
    )))
}

/// Create a fresh temporary file next to `path`.
fn create_temp(path: &Path) -> PyResult<(PathBuf, File)> {
    check_replaceable(path)?;
    let name = path
        .file_name()
        .ok_or_else(|| PyValueError::new_err(format!("{} does not name a file", path.display())))?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    loop {
        let n = TMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(
            ".{}.{}-{n}.tmp",
            name.to_string_lossy(),
            std::process::id()
        ));
        match File::options().write(true).create_new(true).open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(os_error(path, &e)),
        }
    }
}

/// `ValueError` for a field name a record does not have, saying why when it
/// is a former ztwin name.
fn no_field(record: &str, what: &str, key: &str) -> PyErr {
    let has = if what.is_empty() { "has" } else { "have" };
    match retired_reason(key) {
        Some(why) => PyValueError::new_err(format!(
            "{record}{what} {has} no field {key:?} any more: {why}"
        )),
        None => PyValueError::new_err(format!("{record}{what} {has} no field {key:?}")),
    }
}

fn closed_error(path: &Path) -> PyErr {
    PyValueError::new_err(format!("the writer for {} is closed", path.display()))
}

/// The values of one record, checked against its layout before any byte is written.
struct Plan {
    layout: &'static RecordLayout,
    values: Vec<(&'static FieldDef, Value)>,
    /// Repeating-group entries, each a list of (entry field, value).
    group: Option<Vec<Vec<(&'static FieldDef, Value)>>>,
    /// End offset of variable-length text in the record (0 when none is given).
    text_end: usize,
}

impl Plan {
    fn new(layout: &'static RecordLayout, fields: Option<&Bound<'_, PyMapping>>) -> PyResult<Plan> {
        let mut plan = Plan {
            layout,
            values: Vec::new(),
            group: None,
            text_end: 0,
        };
        let Some(fields) = fields else {
            return Ok(plan);
        };
        for item in fields.items()?.iter() {
            let (key, obj): (String, Bound<'_, PyAny>) = item.extract()?;
            let is_group = |g: &&ztwin_monitor::layout::GroupDef| {
                g.name == key || alias_of(&key) == Some(g.name)
            };
            if let Some(g) = layout.group.as_ref().filter(is_group) {
                let mut entries = Vec::new();
                for entry in obj.try_iter()? {
                    let entry = entry?;
                    let entry = entry.cast::<PyMapping>().map_err(|_| {
                        PyTypeError::new_err(format!(
                            "{key}: each entry must be a dict of {} fields",
                            g.name
                        ))
                    })?;
                    entries.push(Self::entry_values(layout, g, entry)?);
                }
                plan.group = Some(entries);
                continue;
            }
            let f = layout
                .field(&key)
                .ok_or_else(|| no_field(layout.name, "", &key))?;
            let v = value_from_py(&obj, f)?;
            if let (ztwin_monitor::FieldType::VarText { .. }, Value::Text(t)) = (f.ty, &v) {
                plan.text_end = plan.text_end.max(f.offset as usize + t.chars().count());
            }
            plan.values.push((f, v));
        }
        if let (Some(g), Some(_)) = (&layout.group, &plan.group) {
            if let Some((f, _)) = plan
                .values
                .iter()
                .find(|(f, _)| f.name == g.offset_field || f.name == g.len_field)
            {
                return Err(PyValueError::new_err(format!(
                    "{}: set by the writer when {} entries are given",
                    f.name, g.name
                )));
            }
        }
        Ok(plan)
    }

    fn entry_values(
        layout: &RecordLayout,
        g: &ztwin_monitor::layout::GroupDef,
        entry: &Bound<'_, PyMapping>,
    ) -> PyResult<Vec<(&'static FieldDef, Value)>> {
        let mut values = Vec::new();
        for item in entry.items()?.iter() {
            let (key, obj): (String, Bound<'_, PyAny>) = item.extract()?;
            let f = g
                .field(&key)
                .ok_or_else(|| no_field(layout.name, " group entries", &key))?;
            values.push((f, value_from_py(&obj, f)?));
        }
        Ok(values)
    }

    /// Length of one group entry in the layout's release.
    fn entry_len(&self) -> usize {
        self.layout.group.map_or(0, |g| g.entry_size as usize)
    }

    /// Record length needed: the layout size, grown for text and group entries.
    fn needed_len(&self) -> usize {
        let entries = self.group.as_ref().map_or(0, Vec::len);
        (self.layout.size as usize).max(self.text_end) + entries * self.entry_len()
    }

    /// Encode the record into a new buffer of `len` bytes.
    fn encode(&self, tod: u64, len: usize) -> PyResult<Vec<u8>> {
        if !(HEADER_LEN..=FRAME).contains(&len) {
            return Err(PyValueError::new_err(format!(
                "{}: record length {len} is outside {HEADER_LEN}..{FRAME}",
                self.layout.name
            )));
        }
        let l = self.layout;
        let mut buf = vec![0u8; len];
        Header {
            len: len as u16,
            domain: l.domain,
            record: l.record,
            tod,
        }
        .write(&mut buf);
        let encode_err = |e: ztwin_monitor::layout::EncodeError| {
            PyValueError::new_err(format!("{}: {e}", l.name))
        };
        for (f, v) in &self.values {
            encode_field(&mut buf, f, v).map_err(encode_err)?;
        }
        if let (Some(g), Some(entries)) = (&l.group, &self.group) {
            let at = (l.size as usize).max(self.text_end);
            let el = self.entry_len();
            encode_field(&mut buf, l.f(g.offset_field), &Value::U(at as u64))
                .map_err(encode_err)?;
            encode_field(&mut buf, l.f(g.len_field), &Value::U(el as u64)).map_err(encode_err)?;
            for (i, entry) in entries.iter().enumerate() {
                let start = at + i * el;
                let slot = buf.get_mut(start..start + el).ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "{}: {} entries do not fit in {len} bytes",
                        l.name,
                        entries.len()
                    ))
                })?;
                for (f, v) in entry {
                    encode_field(slot, f, v).map_err(encode_err)?;
                }
            }
        }
        Ok(buf)
    }
}

/// Writes a MONWRITE file from Python, atomically.
///
/// Records are added by IBM record name with a dict of field values keyed by IBM
/// field name, then written as a group with `write_sample_set(end_tod)` (ends
/// with an interval-end record) or `write_event_set()`. Output goes to a
/// temporary file in the target directory, renamed over the target by `close()`;
/// `discard()`, leaving a `with` block by an exception, or dropping an unclosed
/// writer deletes it, so a half-written file never appears under the target name.
#[pyclass(module = "ztwin._native")]
pub struct Writer {
    path: PathBuf,
    tmp: PathBuf,
    out: Option<MonwriteWriter<BufWriter<File>>>,
    set: RecordSet,
    /// The release whose layouts (sizes, offsets) records are written in.
    release: Release,
}

impl Writer {
    fn ensure_open(&self) -> PyResult<()> {
        match self.out {
            Some(_) => Ok(()),
            None => Err(closed_error(&self.path)),
        }
    }

    /// Write the pending records as one set; on failure nothing is kept.
    fn write_set(&mut self, kind: SetKind, end_tod: Option<u64>) -> PyResult<()> {
        let Some(out) = self.out.as_mut() else {
            return Err(closed_error(&self.path));
        };
        self.set.kind = kind;
        let result = match end_tod {
            Some(t) => out.write_sample_set(&self.set, t),
            None => out.write_event_set(&self.set),
        };
        match result {
            Ok(()) => {
                self.set.clear();
                Ok(())
            }
            Err(WriteError::Io(e)) => {
                self.discard();
                Err(os_error(&self.path, &e))
            }
            Err(e) => Err(PyValueError::new_err(e.to_string())),
        }
    }

    fn remove_temp(&self) {
        // The temporary file is ours; if it is already gone there is nothing to do.
        let _ = fs::remove_file(&self.tmp);
    }

    fn commit(&self, out: MonwriteWriter<BufWriter<File>>) -> io::Result<()> {
        let file = out.finish().map_err(|e| match e {
            WriteError::Io(e) => e,
            other => io::Error::other(other.to_string()),
        })?;
        let file = file.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        // Checked again: the path may have changed while the file was written.
        if let Err(e) = check_replaceable(&self.path) {
            return Err(io::Error::other(e.to_string()));
        }
        fs::rename(&self.tmp, &self.path)
    }
}

#[pymethods]
impl Writer {
    /// `release` (default "5.4") picks the layouts records are written in;
    /// `data_layout` is "frames" (whole 4 KB frames after each control record,
    /// the default) or "contiguous" (each entry's bytes back to back).
    #[new]
    #[pyo3(signature = (path, *, release = None, data_layout = "frames"))]
    fn new(path: PathBuf, release: Option<&str>, data_layout: &str) -> PyResult<Self> {
        let release = crate::reader::parse_release(release)?.unwrap_or(DEFAULT_RELEASE);
        let layout = match data_layout {
            "frames" => DataLayout::Frames,
            "contiguous" => DataLayout::Contiguous,
            other => {
                return Err(PyValueError::new_err(format!(
                    "data_layout must be \"frames\" or \"contiguous\", not {other:?}"
                )))
            }
        };
        let (tmp, file) = create_temp(&path)?;
        let mut out = MonwriteWriter::new(BufWriter::with_capacity(16 * FRAME, file));
        out.set_data_layout(layout);
        Ok(Writer {
            path,
            tmp,
            out: Some(out),
            set: RecordSet::new(SetKind::Sample),
            release,
        })
    }

    /// Add a record of type `name` (e.g. "MRSYTRSG") stamped `tod` (raw TOD int
    /// or ISO 8601 text). `fields` maps IBM field names to values; fields not
    /// given are zero (character fields blank). A repeating group is given as a
    /// list of dicts under the group name. `length` overrides the record length
    /// (a shorter record leaves the trailing fields absent, as in older releases).
    #[pyo3(signature = (name, tod, fields = None, *, length = None))]
    fn add(
        &mut self,
        name: &str,
        tod: &Bound<'_, PyAny>,
        fields: Option<&Bound<'_, PyMapping>>,
        length: Option<usize>,
    ) -> PyResult<()> {
        self.ensure_open()?;
        let l = by_name_release(name, self.release)
            .ok_or_else(|| PyValueError::new_err(format!("unknown record name {name:?}")))?;
        if [D1R11_INTERVAL_END, D1R13_END_OF_FRAME].contains(&(l.domain, l.record)) {
            return Err(PyValueError::new_err(format!(
                "{name} is written by the writer itself (interval end, end of frame)"
            )));
        }
        let tod = tod_from_py(tod)?;
        let plan = Plan::new(l, fields)?;
        let buf = plan.encode(tod, length.unwrap_or_else(|| plan.needed_len()))?;
        self.set
            .push_raw(&buf)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Add an already encoded record (header included), e.g. an unknown type.
    fn add_raw(&mut self, data: &[u8]) -> PyResult<()> {
        self.ensure_open()?;
        let h = Header::parse(data)
            .map_err(|e| PyValueError::new_err(format!("not a monitor record: {e}")))?;
        if h.len as usize != data.len() {
            return Err(PyValueError::new_err(format!(
                "MRHDRLEN is {} but {} bytes were given",
                h.len,
                data.len()
            )));
        }
        self.set
            .push_raw(data)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Write the records added since the last set as a sample set ending with an
    /// interval-end record (D1R11) stamped `end_tod`.
    fn write_sample_set(&mut self, end_tod: &Bound<'_, PyAny>) -> PyResult<()> {
        let t = tod_from_py(end_tod)?;
        self.write_set(SetKind::Sample, Some(t))
    }

    /// Write the records added since the last set as an event set.
    fn write_event_set(&mut self) -> PyResult<()> {
        self.write_set(SetKind::Event, None)
    }

    /// Records added but not yet written by `write_sample_set` / `write_event_set`.
    #[getter]
    fn pending(&self) -> usize {
        self.set.len()
    }

    /// The target path.
    #[getter]
    fn path(&self) -> &Path {
        &self.path
    }

    #[getter]
    fn closed(&self) -> bool {
        self.out.is_none()
    }

    /// Finish the file and rename it over the target. Records added but never
    /// written are an error: then nothing is saved. Closing twice is harmless.
    fn close(&mut self) -> PyResult<()> {
        let Some(out) = self.out.take() else {
            return Ok(());
        };
        if !self.set.is_empty() {
            drop(out);
            self.remove_temp();
            return Err(PyValueError::new_err(format!(
                "{} records were added after the last write_sample_set/write_event_set; {} was not written",
                self.set.len(),
                self.path.display()
            )));
        }
        self.commit(out).map_err(|e| {
            self.remove_temp();
            os_error(&self.path, &e)
        })
    }

    /// Abandon the file: delete the temporary file, leave the target untouched.
    fn discard(&mut self) {
        if self.out.take().is_some() {
            self.remove_temp();
        }
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// Close on success; discard when the block raised.
    #[pyo3(signature = (exc_type, _exc_value, _traceback))]
    fn __exit__(
        &mut self,
        exc_type: Option<&Bound<'_, PyType>>,
        _exc_value: Option<&Bound<'_, PyAny>>,
        _traceback: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        match exc_type {
            None => self.close(),
            Some(_) => {
                self.discard();
                Ok(())
            }
        }
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        if self.out.take().is_some() {
            self.remove_temp();
        }
    }
}
