//! `ztwin dump` output rendered in Rust and handed to Python in large chunks.

use crate::errors::fatal;
use crate::reader::{open, read_options, stats_dict, FileReader};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use ztwin_monitor::dump::{record_json, record_line, summary_text};
use ztwin_monitor::FatalError;

/// Characters of fields shown after the fixed columns of a text line.
const LINE_FIELD_WIDTH: usize = 120;

/// Iterator over `ztwin dump` output: `str` chunks of about `chunk_size`
/// characters, each ending at a line boundary (JSON Lines with `json=True`,
/// one text line per record otherwise). Rendering runs without the GIL.
///
/// Records can be filtered by domain and record number; `limit` stops reading
/// after that many printed records, so `stats()` and `summary()` then cover what
/// was read. Fatal damage raises `MonwriteError` after the output rendered before
/// it has been returned.
#[pyclass(module = "ztwin._native")]
pub struct DumpChunks {
    reader: FileReader,
    json: bool,
    domain: Option<u8>,
    record: Option<u16>,
    limit: Option<u64>,
    chunk_size: usize,
    printed: u64,
    finished: bool,
    /// A fatal error met while filling a chunk, raised on the next call.
    pending: Option<FatalError>,
}

impl DumpChunks {
    /// Render records into a new chunk until it is full or reading stops. A
    /// fatal error ends reading and is kept in `pending`.
    fn fill(&mut self) -> String {
        let mut out = String::with_capacity(self.chunk_size + 4096);
        while out.len() < self.chunk_size {
            if self.limit.is_some_and(|n| self.printed >= n) {
                self.finished = true;
                break;
            }
            let r = match self.reader.next_record() {
                Ok(Some(r)) => r,
                Ok(None) => {
                    self.finished = true;
                    break;
                }
                Err(e) => {
                    self.pending = Some(e);
                    self.finished = true;
                    break;
                }
            };
            if self.domain.is_some_and(|d| d != r.header.domain)
                || self.record.is_some_and(|n| n != r.header.record)
            {
                continue;
            }
            if self.json {
                record_json(&mut out, &r);
            } else {
                record_line(&mut out, &r, LINE_FIELD_WIDTH);
            }
            out.push('\n');
            self.printed += 1;
        }
        out
    }
}

#[pymethods]
impl DumpChunks {
    #[new]
    #[pyo3(signature = (path, *, json = false, domain = None, record = None, limit = None, chunk_size = 262_144, release = None, layouts = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        json: bool,
        domain: Option<u8>,
        record: Option<u16>,
        limit: Option<u64>,
        chunk_size: usize,
        release: Option<&str>,
        layouts: Option<PathBuf>,
    ) -> PyResult<Self> {
        let opts = read_options(release, layouts.as_ref())?;
        Ok(DumpChunks {
            reader: open(py, &path, opts)?,
            json,
            domain,
            record,
            limit,
            chunk_size: chunk_size.max(1),
            printed: 0,
            finished: false,
            pending: None,
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<String>> {
        let out = if self.finished {
            String::new()
        } else {
            py.detach(|| self.fill())
        };
        if !out.is_empty() {
            return Ok(Some(out));
        }
        match self.pending.take() {
            Some(e) => Err(fatal(py, &e)),
            None => Ok(None),
        }
    }

    /// The reader's statistics so far (see `Reader.stats`).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        stats_dict(py, &self.reader.stats)
    }

    /// The closing summary `ztwin dump` prints to stderr: records per type,
    /// unknown records, damaged spans with their offsets.
    fn summary(&self) -> String {
        summary_text(&self.reader.stats)
    }
}
