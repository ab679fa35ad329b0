//! The known record layouts, described as Python dicts.

use crate::convert::type_name;
use crate::reader::{layout_set, parse_release};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::path::PathBuf;
use ztwin_monitor::layout::{FieldDef, GroupDef, LayoutSet, RecordLayout, Release};

fn field_dict<'py>(
    py: Python<'py>,
    l: &RecordLayout,
    f: &FieldDef,
    release: Option<Release>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", f.name)?;
    d.set_item("offset", f.offset)?;
    d.set_item("type", type_name(f.ty))?;
    d.set_item("width", f.ty.width())?;
    let src = release.map_or(f.src, |r| l.confidence_in(f, r));
    d.set_item("confidence", src.tag())?;
    Ok(d)
}

fn fields_list<'py>(
    py: Python<'py>,
    l: &RecordLayout,
    fields: &[FieldDef],
    release: Option<Release>,
) -> PyResult<Bound<'py, PyList>> {
    let dicts = fields
        .iter()
        .map(|f| field_dict(py, l, f, release))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, dicts)
}

fn group_dict<'py>(
    py: Python<'py>,
    l: &RecordLayout,
    g: &GroupDef,
    release: Option<Release>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", g.name)?;
    d.set_item("offset_field", g.offset_field)?;
    d.set_item("len_field", g.len_field)?;
    d.set_item("entry_size", g.entry_size)?;
    d.set_item("fields", fields_list(py, l, g.fields, release)?)?;
    Ok(d)
}

fn layout_dict<'py>(
    py: Python<'py>,
    l: &RecordLayout,
    releases: &[Release],
    release: Option<Release>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("domain", l.domain)?;
    d.set_item("record", l.record)?;
    d.set_item("name", l.name)?;
    d.set_item("kind", l.kind.as_str())?;
    d.set_item("since", l.since.to_string())?;
    d.set_item(
        "releases",
        releases.iter().map(Release::to_string).collect::<Vec<_>>(),
    )?;
    d.set_item("size", l.size)?;
    d.set_item("confidence", l.src.tag())?;
    d.set_item(
        "seen",
        l.seen.iter().map(Release::to_string).collect::<Vec<_>>(),
    )?;
    d.set_item("source", l.source)?;
    d.set_item("note", l.note)?;
    match release {
        Some(r) => {
            d.set_item("release", r.to_string())?;
            d.set_item("covered", l.covers(r))?;
        }
        None => {
            d.set_item("release", py.None())?;
            d.set_item("covered", py.None())?;
        }
    }
    d.set_item("fields", fields_list(py, l, l.fields, release)?)?;
    match &l.group {
        Some(g) => d.set_item("group", group_dict(py, l, g, release)?)?,
        None => d.set_item("group", py.None())?,
    }
    Ok(d)
}

/// The record layouts, ordered by domain and record. With `release` (e.g.
/// "7.3"): the one layout per record that applies to that release, each
/// field's confidence as it stands in that release (`INF` where the layout is
/// carried over from another release). Without: every layout version, with
/// the releases it applies to. `layouts` merges a layout pack file.
#[pyfunction]
#[pyo3(signature = (release = None, layouts = None))]
pub fn layouts<'py>(
    py: Python<'py>,
    release: Option<&str>,
    layouts: Option<PathBuf>,
) -> PyResult<Bound<'py, PyList>> {
    let set: &LayoutSet = layout_set(layouts.as_deref())?;
    let release = parse_release(release)?;
    let mut out: Vec<Bound<'py, PyDict>> = Vec::new();
    match release {
        Some(r) => {
            for l in set.all(r) {
                out.push(layout_dict(py, l, &[r], Some(r))?);
            }
        }
        None => {
            // Every distinct layout, with the known releases it applies to.
            let mut seen: Vec<(&'static RecordLayout, Vec<Release>)> = Vec::new();
            for &r in &Release::KNOWN {
                for l in set.all(r) {
                    match seen.iter_mut().find(|(x, _)| std::ptr::eq(*x, l)) {
                        Some((_, rs)) => rs.push(r),
                        None => seen.push((l, vec![r])),
                    }
                }
            }
            seen.sort_by_key(|(l, rs)| (l.domain, l.record, rs[0]));
            for (l, rs) in &seen {
                out.push(layout_dict(py, l, rs, None)?);
            }
        }
    }
    PyList::new(py, out)
}

/// The fields the interval kernel reads (IBM names) and the records it
/// reads: ``(fields, records)``. The reports' notes on inferred fields use
/// them (``ztwin.reports.provenance``).
#[pyfunction]
pub fn kernel_reads() -> (Vec<&'static str>, Vec<&'static str>) {
    (
        ztwin_analysis::kernel::fields_read(),
        ztwin_analysis::kernel::records_read(),
    )
}
