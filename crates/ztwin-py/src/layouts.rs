//! The known record layouts, described as Python dicts.

use crate::convert::type_name;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use ztwin_monitor::layout::{FieldDef, GroupDef, RecordLayout, LAYOUTS};

fn field_dict<'py>(py: Python<'py>, f: &FieldDef) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", f.name)?;
    d.set_item("offset", f.offset)?;
    d.set_item("type", type_name(f.ty))?;
    d.set_item("width", f.ty.width())?;
    d.set_item("confidence", f.src.tag())?;
    Ok(d)
}

fn fields_list<'py>(py: Python<'py>, fields: &[FieldDef]) -> PyResult<Bound<'py, PyList>> {
    let dicts = fields
        .iter()
        .map(|f| field_dict(py, f))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, dicts)
}

fn group_dict<'py>(py: Python<'py>, g: &GroupDef) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", g.name)?;
    d.set_item("offset_field", g.offset_field)?;
    d.set_item("len_field", g.len_field)?;
    d.set_item("fields", fields_list(py, g.fields)?)?;
    Ok(d)
}

fn layout_dict<'py>(py: Python<'py>, l: &RecordLayout) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("domain", l.domain)?;
    d.set_item("record", l.record)?;
    d.set_item("name", l.name)?;
    d.set_item("kind", l.kind.as_str())?;
    d.set_item("since", format!("{}.{}", l.since.0, l.since.1))?;
    d.set_item("size", l.size)?;
    d.set_item("confidence", l.src.tag())?;
    d.set_item("note", l.note)?;
    d.set_item("fields", fields_list(py, l.fields)?)?;
    match &l.group {
        Some(g) => d.set_item("group", group_dict(py, g)?)?,
        None => d.set_item("group", py.None())?,
    }
    Ok(d)
}

/// Every known record layout, ordered by domain, record and release.
#[pyfunction]
pub fn layouts(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let mut all: Vec<&RecordLayout> = LAYOUTS.iter().collect();
    all.sort_by_key(|l| (l.domain, l.record, l.since));
    let dicts = all
        .into_iter()
        .map(|l| layout_dict(py, l))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, dicts)
}
