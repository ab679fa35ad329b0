//! `ztwin dump` output rendered in Rust and handed to Python in large chunks.

use crate::errors::fatal;
use crate::reader::{open, read_options, stats_dict, FileReader};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::fmt::Write;
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
///
/// Where a new collection (segment) starts, the text output has a line
/// `-- segment N at offset ...: why`, before the record that revealed it; in
/// JSON every record of segment 2 and later carries `"segment": N`.
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
    /// Segments seen so far (markers are written when this grows).
    segments: u64,
    /// Domain 10 records whose data does not fit its struct.
    appldata: ztwin_monitor::appldata::Problems,
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
            let at = out.len();
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
            if r.header.domain == 10 {
                if let Some(l) = r.layout {
                    self.appldata.note(r.offset, r.bytes, l);
                }
            }
            let shown = !(self.domain.is_some_and(|d| d != r.header.domain)
                || self.record.is_some_and(|n| n != r.header.record));
            if shown {
                if self.json {
                    record_json(&mut out, &r);
                } else {
                    record_line(&mut out, &r, LINE_FIELD_WIDTH);
                }
            }
            // The reader has taken in this record: a segment it revealed is known now.
            let count = self.reader.stats.segments.count;
            if count != self.segments {
                self.segments = count;
                if !self.json {
                    out.insert_str(at, &self.marker());
                }
            }
            if !shown {
                continue;
            }
            if self.json && count > 1 {
                out.pop(); // the record object's closing brace
                let _ = write!(out, ",\"segment\":{count}}}");
            }
            out.push('\n');
            self.printed += 1;
        }
        out
    }

    /// The text line that marks where the current segment starts.
    fn marker(&self) -> String {
        let t = &self.reader.stats.segments;
        let n = t.count;
        let kept = &t.segments;
        let (Some(seg), prev) = (
            kept.get(n as usize - 1),
            kept.get((n as usize).wrapping_sub(2)),
        ) else {
            return format!(
                "-- segment {n} (not listed: more than {} segments)\n",
                kept.len()
            );
        };
        let mut what = Vec::new();
        if let Some(id) = &seg.system_id {
            what.push(format!("system {id}"));
        }
        if let Some(m) = &seg.cpu_model {
            what.push(format!("processor {m}"));
        }
        let what = if what.is_empty() {
            String::new()
        } else {
            format!(" ({})", what.join(", "))
        };
        format!(
            "-- segment {n} at offset {} (X'{:X}'){what}: {}\n",
            seg.offset,
            seg.offset,
            seg.reason(prev)
        )
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
            segments: 1,
            appldata: Default::default(),
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
        let mut s = summary_text(&self.reader.stats);
        if let Some(w) = self.appldata.warning() {
            if !s.is_empty() && !s.ends_with('\n') {
                s.push('\n');
            }
            s.push_str("  warning: ");
            s.push_str(&w);
            s.push('\n');
        }
        s
    }
}
