//! The interval kernel (`ztwin-analysis`) for Python: `IntervalKernel` reads
//! a file in steps and hands its tables over as `ArrowTable` objects, which
//! implement the Arrow PyCapsule interface (`__arrow_c_stream__`), so pyarrow,
//! polars and DuckDB take them without a copy.

use crate::convert::{value_to_py, TodAs};
use crate::errors::fatal;
use crate::reader::{
    open_mapped, read_options, record_dict, stats_dict, KernelReader, PageRelease,
};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchIterator};
use arrow_schema::{ArrowError, SchemaRef};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict, PyList, PySet, PyString};
use std::collections::HashSet;
use ztwin_analysis::kernel::KeptRecord;
use ztwin_analysis::side::{SegmentSide, EVENTS};
use ztwin_analysis::tables::{interval_batches, schema, total_batches, ENTITIES};
use ztwin_analysis::{Kernel, Options, Select, TimeSpec};
use ztwin_monitor::{Header, RecordRef};

fn arrow_err(e: ArrowError) -> PyErr {
    PyRuntimeError::new_err(format!("arrow: {e}"))
}

/// Record batches of one schema, exported through the Arrow C stream interface.
#[pyclass(module = "ztwin._native", frozen)]
pub struct ArrowTable {
    pub(crate) schema: SchemaRef,
    pub(crate) batches: Vec<RecordBatch>,
}

impl ArrowTable {
    pub(crate) fn new(schema: SchemaRef, batches: Vec<RecordBatch>) -> Self {
        ArrowTable { schema, batches }
    }
}

#[pymethods]
impl ArrowTable {
    /// The Arrow PyCapsule protocol: a capsule named "arrow_array_stream".
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema; // the schema is given as is
        let it = RecordBatchIterator::new(
            self.batches.clone().into_iter().map(Ok),
            self.schema.clone(),
        );
        let stream = FFI_ArrowArrayStream::new(Box::new(it));
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }

    #[getter]
    fn num_rows(&self) -> usize {
        self.batches.iter().map(|b| b.num_rows()).sum()
    }

    fn __len__(&self) -> usize {
        self.num_rows()
    }
}

fn table(schema: SchemaRef, batch: RecordBatch) -> ArrowTable {
    let batches = if batch.num_rows() > 0 {
        vec![batch]
    } else {
        vec![]
    };
    ArrowTable { schema, batches }
}

/// A window end from Python: None, ("day", seconds after midnight) or ("at",
/// seconds since 1900-01-01, local time).
fn time_spec(v: Option<(String, i64)>) -> PyResult<Option<TimeSpec>> {
    Ok(match v {
        None => None,
        Some((k, s)) if k == "day" => Some(TimeSpec::OfDay(s)),
        Some((k, s)) if k == "at" => Some(TimeSpec::At(s)),
        Some((k, _)) => return Err(PyValueError::new_err(format!("unknown time kind {k:?}"))),
    })
}

fn select_str(v: Option<&Bound<'_, PyAny>>) -> PyResult<Select<String>> {
    let Some(v) = v else { return Ok(Select::None) };
    if v.is_none() {
        return Ok(Select::None);
    }
    if let Ok(s) = v.cast::<PyString>() {
        if s.to_str()? == "all" {
            return Ok(Select::All);
        }
        return Err(PyValueError::new_err(
            "a selection is None, \"all\" or a set",
        ));
    }
    let mut out = HashSet::new();
    for x in v.try_iter()? {
        out.insert(x?.extract::<String>()?);
    }
    Ok(Select::Some(out))
}

fn select_int(v: Option<&Bound<'_, PyAny>>) -> PyResult<Select<i64>> {
    let Some(v) = v else { return Ok(Select::None) };
    if v.is_none() {
        return Ok(Select::None);
    }
    if let Ok(s) = v.cast::<PyString>() {
        if s.to_str()? == "all" {
            return Ok(Select::All);
        }
        return Err(PyValueError::new_err(
            "a selection is None, \"all\" or a set",
        ));
    }
    if !(v.is_instance_of::<PySet>() || v.is_instance_of::<PyList>()) {
        return Err(PyTypeError::new_err(
            "a selection is None, \"all\" or a set",
        ));
    }
    let mut out = HashSet::new();
    for x in v.try_iter()? {
        out.insert(x?.extract::<i64>()?);
    }
    Ok(Select::Some(out))
}

fn kept_dict<'py>(py: Python<'py>, k: &KeptRecord) -> PyResult<Option<Bound<'py, PyDict>>> {
    let Ok(h) = Header::parse(&k.bytes) else {
        return Ok(None);
    };
    let r = RecordRef::new(k.offset, h, &k.bytes, k.kind);
    record_dict(py, &r).map(Some)
}

/// Feed records to the kernel until `target` intervals are complete (true)
/// or the file or the window ends (false).
fn drive<R: std::io::Read + std::io::Seek>(
    reader: &mut ztwin_monitor::Reader<R>,
    kernel: &mut Kernel,
    target: u64,
    mut release: Option<&mut PageRelease>,
    mut nss: Option<&mut SegmentSide>,
) -> Result<bool, ztwin_monitor::FatalError> {
    loop {
        // The record is used where the reader returned it (a reference into
        // the result), not moved out of it first: the move copied it through
        // the stack in pieces of other widths than the reader had written,
        // and each such load waited for the stores (a third of the loop's
        // time outside the reader and the kernel).
        let next = reader.next_record();
        let r = match &next {
            Ok(Some(r)) => r,
            Ok(None) => return Ok(false),
            Err(_) => return next.map(|_| false),
        };
        if let Some(rel) = release.as_deref_mut() {
            rel.at(r.offset);
        }
        let more = kernel.record(r);
        if let Some(s) = nss.as_deref_mut() {
            s.record(r);
            s.follow(kernel);
        }
        if !more {
            return Ok(false);
        }
        if kernel.intervals() >= target {
            return Ok(true);
        }
    }
}

/// Read the remaining records without looking at them (the reader's
/// statistics, segments included, then cover the whole file).
fn drain<R: std::io::Read + std::io::Seek>(
    reader: &mut ztwin_monitor::Reader<R>,
    mut release: Option<&mut PageRelease>,
    mut nss: Option<&mut SegmentSide>,
) -> Result<(), ztwin_monitor::FatalError> {
    while let Some(r) = reader.next_record()? {
        if let Some(rel) = release.as_deref_mut() {
            rel.at(r.offset);
        }
        if let Some(s) = nss.as_deref_mut() {
            s.record(&r);
        }
    }
    Ok(())
}

/// One pass of the interval kernel over a MONWRITE file, in steps.
#[pyclass(module = "ztwin._native")]
pub struct IntervalKernel {
    reader: KernelReader,
    kernel: Kernel,
    done: bool,
    /// NSS's side records reduced on the same read (`nss=True`).
    nss: Option<SegmentSide>,
}

#[pymethods]
impl IntervalKernel {
    #[new]
    #[pyo3(signature = (path, start=None, end=None, users=None, devices=None, exposures=None, release=None, layouts=None, ranges=None, ignore=None, nss=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        path: std::path::PathBuf,
        start: Option<(String, i64)>,
        end: Option<(String, i64)>,
        users: Option<&Bound<'_, PyAny>>,
        devices: Option<&Bound<'_, PyAny>>,
        exposures: Option<&Bound<'_, PyAny>>,
        release: Option<&str>,
        layouts: Option<std::path::PathBuf>,
        ranges: Option<Vec<(u64, u64)>>,
        ignore: Option<Vec<String>>,
        nss: bool,
    ) -> PyResult<Self> {
        let read = read_options(release, layouts.as_ref())?;
        let opts = Options {
            ignore: ignore.unwrap_or_default(),
            from: time_spec(start)?,
            to: time_spec(end)?,
            users: select_str(users)?,
            devices: select_int(devices)?,
            exposures: select_int(exposures)?,
            ranges,
        };
        Ok(IntervalKernel {
            reader: open_mapped(py, &path, read)?,
            kernel: Kernel::new(opts),
            done: false,
            nss: nss.then(SegmentSide::new),
        })
    }

    /// Read until `max_intervals` more intervals are complete (0: to the
    /// end). Returns False once the file (or the window) is finished.
    #[pyo3(signature = (max_intervals=0))]
    fn step(&mut self, py: Python<'_>, max_intervals: u64) -> PyResult<bool> {
        if self.done {
            return Ok(false);
        }
        let reader = &mut self.reader;
        let kernel = &mut self.kernel;
        let nss = self.nss.as_mut();
        let target = if max_intervals == 0 {
            u64::MAX
        } else {
            kernel.intervals() + max_intervals
        };
        let res = py.detach(|| match reader {
            KernelReader::Mapped(r, release) => drive(r, kernel, target, Some(release), nss),
            KernelReader::Buffered(r) => drive(r, kernel, target, None, nss),
        });
        match res {
            Ok(true) => Ok(true),
            Ok(false) => {
                self.kernel.finish();
                if let Some(s) = self.nss.as_mut() {
                    s.follow(&self.kernel);
                    s.close();
                }
                self.done = true;
                Ok(false)
            }
            Err(e) => {
                self.done = true;
                Err(fatal(py, &e))
            }
        }
    }

    /// The per-interval tables produced since the last call, by entity name.
    fn take<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let b = self.kernel.take();
        let batches = interval_batches(&b, &self.kernel.user_ids.names).map_err(arrow_err)?;
        let d = PyDict::new(py);
        for (name, batch) in ENTITIES.iter().zip(batches) {
            d.set_item(*name, table(schema(name, true), batch))?;
        }
        Ok(d)
    }

    /// The window totals per key (first-seen order), by entity name.
    fn totals<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let batches = total_batches(
            &self.kernel.totals,
            self.kernel.intervals(),
            &self.kernel.user_ids.names,
        )
        .map_err(arrow_err)?;
        let d = PyDict::new(py);
        for (name, batch) in ENTITIES.iter().zip(batches) {
            d.set_item(*name, table(schema(name, false), batch))?;
        }
        Ok(d)
    }

    /// NSS's side records reduced (`nss=True`; see `_native.pyi`), None
    /// without `nss`.
    fn nss_summary<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(s) = self.nss.as_ref() else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("exact", s.exact())?;
        d.set_item("lo", s.lo)?;
        d.set_item("hi", s.hi)?;
        let spool = PyList::empty(py);
        for (dev, v) in &s.spool {
            let first = v.first.map(|f| f.1.to_vec());
            let last = v.last.map(|f| f.1.to_vec());
            let volser = value_to_py(py, v.volser.as_ref(), TodAs::UnixMicros)?;
            spool.append((dev, volser, first, last))?;
        }
        d.set_item("spool", spool)?;
        let (n, a, b, m) = s.shs;
        d.set_item("shs", (n > 0).then_some((n, a, b, m)))?;
        let segs = PyList::empty(py);
        for (name, g) in &s.segments {
            let name = value_to_py(py, name.as_ref(), TodAs::UnixMicros)?;
            let (off, sid, ush, uex) = g.last;
            segs.append((
                name,
                off,
                sid,
                ush,
                uex,
                g.resident_sum,
                g.resident_max,
                g.samples,
            ))?;
        }
        d.set_item("segments", segs)?;
        let events = PyList::empty(py);
        for e in &s.events {
            let name = value_to_py(py, e.name.as_ref(), TodAs::UnixMicros)?;
            events.append((e.offset, e.tod, EVENTS[e.kind as usize], name, e.spoolid))?;
        }
        d.set_item("events", events)?;
        Ok(Some(d))
    }

    /// The reader's statistics so far (as `Reader.stats()`).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        stats_dict(py, self.reader.stats())
    }

    /// Read the rest of the file without aggregating (after the kernel is
    /// done: the window ended before the file) and return the statistics of
    /// the whole file, so that its segments are known without a second pass
    /// over the part already read. A fatal error raises `MonwriteError`.
    fn scan_rest<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        if !self.done {
            return Err(PyRuntimeError::new_err(
                "scan_rest() before the kernel finished (step() returned False)",
            ));
        }
        let reader = &mut self.reader;
        let nss = self.nss.as_mut();
        let res = py.detach(|| match reader {
            KernelReader::Mapped(r, release) => drain(r, Some(release), nss),
            KernelReader::Buffered(r) => drain(r, None, nss),
        });
        res.map_err(|e| fatal(py, &e))?;
        stats_dict(py, self.reader.stats())
    }

    /// What the kernel learnt besides the sums (see `_native.pyi`).
    fn info<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.kernel.info.resolve();
        let i = &self.kernel.info;
        let d = PyDict::new(py);
        let config = PyList::empty(py);
        for k in &i.config {
            if let Some(r) = kept_dict(py, k)? {
                config.append(r)?;
            }
        }
        d.set_item("config", config)?;
        d.set_item("config_dropped", i.config_dropped)?;
        let users = PyList::empty(py);
        for (u, k, logoff) in &i.users {
            if let Some(r) = kept_dict(py, k)? {
                users.append((u.as_str(), r, *logoff))?;
            }
        }
        d.set_item("users", users)?;
        let devs = PyDict::new(py);
        for (devno, x) in &i.devices {
            let e = PyDict::new(py);
            e.set_item("volser", x.volser.as_deref().unwrap_or(""))?;
            e.set_item("type_code", x.type_code)?;
            e.set_item("dev_class", x.dev_class)?;
            e.set_item("flags", x.flags.as_deref())?;
            e.set_item("base", x.base)?;
            devs.set_item(devno, e)?;
        }
        d.set_item("devices", devs)?;
        let exps = PyDict::new(py);
        for (devno, x) in &i.exposures {
            let e = PyDict::new(py);
            e.set_item("volser", x.volser.as_deref().unwrap_or(""))?;
            e.set_item("flags", x.flags)?;
            e.set_item("page_slots", x.page_slots)?;
            e.set_item("spool_slots", x.spool_slots)?;
            exps.set_item(devno, e)?;
        }
        d.set_item("exposures", exps)?;
        let lpars = PyDict::new(py);
        for (name, x) in &i.lpars {
            let e = PyDict::new(py);
            e.set_item("number", x.number)?;
            e.set_item("logical_cpus", x.logical_cpus)?;
            e.set_item("weight", x.weight)?;
            e.set_item("dedicated", x.dedicated)?;
            e.set_item("cpu_type", x.cpu_type.as_deref())?;
            let lc = PyDict::new(py);
            for (cpu, w, t) in &x.lcpus {
                let c = PyDict::new(py);
                c.set_item("weight", *w)?;
                c.set_item("cpu_type", t.as_deref())?;
                lc.set_item(*cpu, c)?;
            }
            e.set_item("lcpus", lc)?;
            lpars.set_item(name.as_str(), e)?;
        }
        d.set_item("lpars", lpars)?;
        match &i.cug {
            Some(c) => {
                let e = PyDict::new(py);
                e.set_item("partitions", c.partitions)?;
                e.set_item("physical_cpus", c.physical_cpus)?;
                e.set_item("time_slice_ms", c.time_slice_ms)?;
                e.set_item("lpar_name", c.lpar_name.as_deref())?;
                d.set_item("cug", e)?;
            }
            None => d.set_item("cug", py.None())?,
        }
        d.set_item("cpu_types", i.cpu_types.clone())?;
        d.set_item("data_start_us", i.data_start_us)?;
        d.set_item("data_end_us", i.data_end_us)?;
        d.set_item("sets", i.sets)?;
        d.set_item("stopped_early", i.stopped_early)?;
        d.set_item("window_error", i.window_error)?;
        d.set_item("intervals", i.intervals)?;
        d.set_item("users_seen", self.kernel.user_ids.names.clone())?;
        let bad = PyList::empty(py);
        for x in &i.implausible {
            let e = PyDict::new(py);
            e.set_item("offset", x.offset)?;
            e.set_item("record", x.record)?;
            e.set_item("key", x.key.as_str())?;
            e.set_item("reason", x.reason.as_str())?;
            bad.append(e)?;
        }
        d.set_item("implausible", bad)?;
        d.set_item("implausible_count", i.implausible_count)?;
        Ok(d)
    }
}
