//! The APPLDATA records (domain 10) of a file, decoded as the Linux kernel's
//! structs (`ztwin_monitor::appldata`), for the Linux reports.

use crate::errors::fatal;
use crate::reader::{open, read_options, stats_dict};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::path::PathBuf;
use ztwin_monitor::appldata::{Problems, OS_CPU};
use ztwin_monitor::layout::{decode_field_ref, ValueRef};

/// A numeric value as a Python int (TOD values raw), absent as `None`.
fn num(py: Python<'_>, v: Option<ValueRef<'_>>) -> PyResult<Py<PyAny>> {
    Ok(match v {
        Some(ValueRef::U(x) | ValueRef::Tod(x) | ValueRef::Dur(x)) => {
            x.into_pyobject(py)?.into_any().unbind()
        }
        Some(ValueRef::I(x)) => x.into_pyobject(py)?.into_any().unbind(),
        _ => py.None(),
    })
}

/// Every domain 10 record of the file at `path` whose product is the Linux
/// kernel's, in file order, and the statistics of the read.
///
/// Each record is a dict: `offset`, `name` (MRAPLSDT or MRAPLEDT), `tod_raw`,
/// `userid`, `product` (text), `module` (`mem`, `os`, `net_sum`),
/// `consistent` (the sync counts agree), `fields` (the struct's members by
/// the kernel's names; TOD values raw; a member beyond the data `None`) and,
/// for `os`, `cpus` (a dict per CPU). Records of other products are skipped.
/// `warning` is one line about records whose data has the wrong length (the
/// first one's offset and reason), or `None`. `ranges` keeps the records whose
/// offset lies in one of the `(start, end)` byte ranges.
#[pyfunction]
#[pyo3(signature = (path, ranges = None, *, release = None, layouts = None))]
#[allow(clippy::type_complexity)]
pub fn appldata_records<'py>(
    py: Python<'py>,
    path: PathBuf,
    ranges: Option<Vec<(u64, u64)>>,
    release: Option<&str>,
    layouts: Option<PathBuf>,
) -> PyResult<(Bound<'py, PyList>, Option<String>, Bound<'py, PyDict>)> {
    let mut r = open(py, &path, read_options(release, layouts.as_ref())?)?;
    let out = PyList::empty(py);
    let mut problems = Problems::default();
    loop {
        let rec = match r.next_record() {
            Ok(Some(rec)) => rec,
            Ok(None) => break,
            Err(e) => return Err(fatal(py, &e)),
        };
        if rec.header.domain != 10 {
            continue;
        }
        if ranges
            .as_deref()
            .is_some_and(|rs| !rs.iter().any(|&(a, b)| a <= rec.offset && rec.offset < b))
        {
            continue;
        }
        let Some(l) = rec.layout else { continue };
        let Some(a) = problems.note(rec.offset, rec.bytes, l) else {
            continue;
        };
        let Some(kind) = a.kind else { continue };
        let d = PyDict::new(py);
        d.set_item("offset", rec.offset)?;
        d.set_item("name", l.name)?;
        d.set_item("tod_raw", rec.header.tod)?;
        let userid = l
            .fields
            .iter()
            .find(|f| f.name.ends_with("_USERID"))
            .and_then(|f| decode_field_ref(rec.bytes, f))
            .map(|v| match v {
                ValueRef::Text(t) => t.decode().trim_end().to_string(),
                _ => String::new(),
            })
            .unwrap_or_default();
        d.set_item("userid", userid)?;
        d.set_item("product", a.product.text())?;
        d.set_item("module", kind.name())?;
        d.set_item("consistent", a.consistent())?;
        let fields = PyDict::new(py);
        for (f, v) in a.fields() {
            fields.set_item(f.name, num(py, v)?)?;
        }
        d.set_item("fields", fields)?;
        if kind == ztwin_monitor::appldata::Kind::Os {
            let cpus = PyList::empty(py);
            for e in a.cpu_entries() {
                let c = PyDict::new(py);
                for f in OS_CPU {
                    c.set_item(f.name, num(py, decode_field_ref(e, f))?)?;
                }
                cpus.append(c)?;
            }
            d.set_item("cpus", cpus)?;
        }
        out.append(d)?;
    }
    let stats = stats_dict(py, &r.stats)?;
    Ok((out, problems.warning(), stats))
}
