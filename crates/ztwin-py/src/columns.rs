//! Columnar reading: one dict of columns per record type, for DataFrames and
//! Arrow tables.

use crate::convert::{value_to_py, TodAs};
use crate::errors::fatal;
use crate::reader::{open, read_options, stats_dict, FileReader};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use ztwin_monitor::layout::{decode_field, decode_group, LayoutSet, RecordLayout, Value};
use ztwin_monitor::{tod, FatalError, RecordRef, Stats};

/// Decoded entries of one record's repeating group.
type GroupEntries = Vec<Vec<(&'static str, Option<Value>)>>;

/// Columns of every record type read, keyed by (domain, record).
type ByType = BTreeMap<(u8, u16), TypeColumns>;

/// The rows of one record type, column by column.
struct TypeColumns {
    layout: &'static RecordLayout,
    offset: Vec<u64>,
    /// MRHDRTOD as microseconds since the Unix epoch.
    tod: Vec<i64>,
    /// One column per layout field, in layout order.
    fields: Vec<Vec<Option<Value>>>,
    /// Group entries per row (empty when the layout has no group).
    group: Vec<GroupEntries>,
    /// Per layout field: decoded and returned (all unless a field list was given).
    keep: Vec<bool>,
    /// The repeating group is decoded and returned.
    keep_group: bool,
}

impl TypeColumns {
    fn new(layout: &'static RecordLayout, only: Option<&BTreeSet<String>>) -> Self {
        let wanted = |name: &str| only.is_none_or(|o| o.contains(name));
        TypeColumns {
            layout,
            offset: Vec::new(),
            tod: Vec::new(),
            fields: vec![Vec::new(); layout.fields.len()],
            group: Vec::new(),
            keep: layout.fields.iter().map(|f| wanted(f.name)).collect(),
            keep_group: layout.group.as_ref().is_some_and(|g| wanted(g.name)),
        }
    }

    /// Append one record's row.
    fn push(&mut self, r: &RecordRef<'_>) {
        self.offset.push(r.offset);
        self.tod.push(tod::to_unix_us(r.header.tod));
        for ((f, col), keep) in self
            .layout
            .fields
            .iter()
            .zip(self.fields.iter_mut())
            .zip(&self.keep)
        {
            if *keep {
                col.push(decode_field(r.bytes, f));
            }
        }
        if self.keep_group {
            self.group.push(decode_group(r.bytes, self.layout));
        }
    }

    fn into_py<'py>(self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("offset", PyList::new(py, &self.offset)?)?;
        d.set_item("tod", PyList::new(py, &self.tod)?)?;
        for ((f, col), _) in self
            .layout
            .fields
            .iter()
            .zip(&self.fields)
            .zip(&self.keep)
            .filter(|(_, k)| **k)
        {
            let values = col
                .iter()
                .map(|v| value_to_py(py, v.as_ref(), TodAs::UnixMicros))
                .collect::<PyResult<Vec<_>>>()?;
            d.set_item(f.name, PyList::new(py, values)?)?;
        }
        if let Some(g) = self.layout.group.as_ref().filter(|_| self.keep_group) {
            let rows = PyList::empty(py);
            for entries in &self.group {
                let row = PyList::empty(py);
                for entry in entries {
                    let e = PyDict::new(py);
                    for (name, v) in entry {
                        e.set_item(*name, value_to_py(py, v.as_ref(), TodAs::UnixMicros)?)?;
                    }
                    row.append(e)?;
                }
                rows.append(row)?;
            }
            d.set_item(g.name, rows)?;
        }
        Ok(d)
    }
}

/// Append a record's row to the columns of its type (a record without a
/// known layout is left out).
fn push_row(by_type: &mut ByType, r: &RecordRef<'_>, only: Option<&BTreeSet<String>>) {
    let key = (r.header.domain, r.header.record);
    let cols = match by_type.get_mut(&key) {
        Some(c) => c,
        None => match r.layout {
            Some(l) => by_type
                .entry(key)
                .or_insert_with(|| TypeColumns::new(l, only)),
            None => return,
        },
    };
    cols.push(r);
}

/// The record types (IBM names) wanted, as (domain, record) keys.
fn wanted_keys(set: &'static LayoutSet, names: &[String]) -> PyResult<BTreeSet<(u8, u16)>> {
    let mut keys = BTreeSet::new();
    for name in names {
        let l = ztwin_monitor::layout::Release::KNOWN
            .iter()
            .find_map(|&r| set.by_name_release(name, r))
            .ok_or_else(|| PyValueError::new_err(format!("unknown record name {name:?}")))?;
        keys.insert((l.domain, l.record));
    }
    Ok(keys)
}

/// Read every record with a known layout (or only the wanted types) into
/// columns. A type's columns follow the layout of its first record (the
/// reader's choice: the file's release, the layout set); wanted types without
/// records get empty columns in the layout of the release read.
fn collect(
    mut reader: FileReader,
    set: &'static LayoutSet,
    wanted: Option<BTreeSet<(u8, u16)>>,
    only: Option<&BTreeSet<String>>,
) -> Result<(ByType, Stats), FatalError> {
    let mut by_type = ByType::new();
    while let Some(r) = reader.next_record()? {
        let key = (r.header.domain, r.header.record);
        if wanted.as_ref().is_some_and(|w| !w.contains(&key)) {
            continue;
        }
        push_row(&mut by_type, &r, only);
    }
    let stats = reader.stats;
    for key in wanted.into_iter().flatten() {
        if let Some(l) = set.lookup(key.0, key.1, stats.release) {
            by_type
                .entry(key)
                .or_insert_with(|| TypeColumns::new(l, only));
        }
    }
    Ok((by_type, stats))
}

/// Columns of a MONWRITE file per record type, and the reader's statistics.
///
/// Returns `({record name: {column: values}}, stats)`. Columns: `offset`, `tod`
/// (microseconds since the Unix epoch), one per layout field (TOD fields also as
/// Unix microseconds, bit strings as hex text, `None` where the record is too
/// short to hold the field) and, for layouts with a repeating group, a column of
/// entry lists under the group name. `names` limits the result to those record
/// types, which are then always present, with empty columns if the file has none.
/// `release` and `layouts` are those of `Reader`. `fields` (IBM names, group
/// names too) limits the columns to those fields (besides `offset` and `tod`):
/// the others are not decoded.
#[pyfunction]
#[pyo3(signature = (path, names = None, *, release = None, layouts = None, fields = None))]
pub fn read_columns<'py>(
    py: Python<'py>,
    path: PathBuf,
    names: Option<Vec<String>>,
    release: Option<&str>,
    layouts: Option<PathBuf>,
    fields: Option<Vec<String>>,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let only: Option<BTreeSet<String>> = fields.map(|f| f.into_iter().collect());
    let opts = read_options(release, layouts.as_ref())?;
    let set = opts.layouts;
    let wanted = match &names {
        None => None,
        Some(names) => Some(wanted_keys(set, names)?),
    };
    let reader = open(py, &path, opts)?;
    let (by_type, stats) = py
        .detach(|| collect(reader, set, wanted, only.as_ref()))
        .map_err(|e| fatal(py, &e))?;
    let out = PyDict::new(py);
    for cols in by_type.into_values() {
        out.set_item(cols.layout.name, cols.into_py(py)?)?;
    }
    Ok((out, stats_dict(py, &stats)?))
}
