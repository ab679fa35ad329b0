//! `ztwin ingest`'s rows: the interval kernel's step tables cut to the
//! intervals not stored yet, shaped as the history database stores them
//! (`python/ztwin/history.py`, docs/history.md): the `interval` column
//! dropped, each row's interval end (`end_tod`, raw TOD clock) and its
//! position among the step's new rows (`ord`) appended. Done here, on the
//! Arrow buffers, rather than in Python (numpy masks, `take`, appended
//! columns: about 0.17 s of CPU per 512 MB).

use crate::analysis::ArrowTable;
use arrow_array::{make_array, Array, ArrayRef, Int64Array, RecordBatch, UInt64Array};
use arrow_data::transform::MutableArrayData;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PySet};
use std::sync::Arc;
use ztwin_analysis::tables::ENTITIES;

fn err(e: arrow_schema::ArrowError) -> PyErr {
    PyValueError::new_err(format!("arrow: {e}"))
}

/// A u64 column of a batch by name.
fn u64_column<'a>(b: &'a RecordBatch, name: &str) -> PyResult<&'a UInt64Array> {
    b.column_by_name(name)
        .and_then(|c| c.as_any().downcast_ref::<UInt64Array>())
        .ok_or_else(|| PyValueError::new_err(format!("no UInt64 column {name:?}")))
}

/// The stored form's schema: `interval` dropped, `end_tod` (not on the
/// system table, which has it) and `ord` appended.
fn stored_schema(s: &Schema, system: bool) -> SchemaRef {
    let mut f: Vec<Field> = s
        .fields()
        .iter()
        .filter(|f| f.name() != "interval")
        .map(|f| f.as_ref().clone())
        .collect();
    if !system {
        f.push(Field::new("end_tod", DataType::UInt64, true));
    }
    f.push(Field::new("ord", DataType::Int64, true));
    Arc::new(Schema::new(f))
}

/// The rows of `a` in the half-open ranges `runs` (`n` rows in all).
fn keep(a: &ArrayRef, runs: &[(usize, usize)], n: usize) -> PyResult<ArrayRef> {
    let d = a.to_data();
    let mut m = MutableArrayData::new(vec![&d], false, n);
    for &(s, e) in runs {
        m.try_extend(0, s, e).map_err(err)?;
    }
    Ok(make_array(m.freeze()))
}

/// One entity's step batch in the stored form, only the rows of the
/// intervals marked in `new` (indexed from `base`); `ends` are the
/// intervals' end TODs by the same index.
fn shape(
    b: &RecordBatch,
    schema: &SchemaRef,
    system: bool,
    new: &[bool],
    base: u64,
    ends: &[u64],
) -> PyResult<RecordBatch> {
    let iv = u64_column(b, "interval")?;
    let pos = |i: u64| -> PyResult<usize> {
        i.checked_sub(base)
            .map(|d| d as usize)
            .filter(|&d| d < new.len())
            .ok_or_else(|| PyValueError::new_err(format!("interval {i} outside the step")))
    };
    // the kept rows as runs of consecutive rows
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut kept_iv: Vec<u64> = Vec::with_capacity(iv.len());
    for (r, &i) in iv.values().iter().enumerate() {
        if new[pos(i)?] {
            kept_iv.push(i);
            match runs.last_mut() {
                Some(last) if last.1 == r => last.1 = r + 1,
                _ => runs.push((r, r + 1)),
            }
        }
    }
    let n = kept_iv.len();
    let all = n == b.num_rows();
    let mut cols: Vec<ArrayRef> = Vec::with_capacity(schema.fields().len());
    for (f, c) in b.schema().fields().iter().zip(b.columns()) {
        if f.name() == "interval" {
            continue;
        }
        cols.push(if all { c.clone() } else { keep(c, &runs, n)? });
    }
    if !system {
        let mut e = Vec::with_capacity(n);
        for &i in &kept_iv {
            e.push(ends[pos(i)?]);
        }
        cols.push(Arc::new(UInt64Array::from(e)));
    }
    cols.push(Arc::new(Int64Array::from_iter_values(0..n as i64)));
    RecordBatch::try_new(schema.clone(), cols).map_err(err)
}

/// `ingest_rows(tables, stored)`: the rows of `IntervalKernel.take()`'s
/// tables whose interval's end (`end_tod` of the system row) is not in the
/// set `stored`, in the stored form (see the module's comment), and the
/// count of intervals added and skipped. `stored` gains the added ends
/// (after the whole step is marked, as a set update). None instead of the
/// tables when the step adds no interval.
#[pyfunction]
pub fn ingest_rows<'py>(
    py: Python<'py>,
    tables: &Bound<'py, PyDict>,
    stored: &Bound<'py, PySet>,
) -> PyResult<(Option<Bound<'py, PyDict>>, u64, u64)> {
    let get = |name: &str| -> PyResult<PyRef<'py, ArrowTable>> {
        tables
            .get_item(name)?
            .ok_or_else(|| PyKeyError::new_err(name.to_string()))?
            .extract::<PyRef<'py, ArrowTable>>()
            .map_err(PyErr::from)
    };
    let sys = get("system")?;
    let mut ends: Vec<u64> = Vec::new();
    let mut base: Option<u64> = None;
    for b in &sys.batches {
        let iv = u64_column(b, "interval")?;
        if base.is_none() && !iv.is_empty() {
            base = Some(iv.value(0));
        }
        ends.extend_from_slice(u64_column(b, "end_tod")?.values());
    }
    let Some(base) = base else {
        return Ok((None, 0, 0));
    };
    let mut new = Vec::with_capacity(ends.len());
    for &e in &ends {
        new.push(!stored.contains(e)?);
    }
    let added = new.iter().filter(|&&x| x).count() as u64;
    let skipped = new.len() as u64 - added;
    if added == 0 {
        return Ok((None, added, skipped));
    }
    for (&e, &fresh) in ends.iter().zip(&new) {
        if fresh {
            stored.add(e)?;
        }
    }
    let out = PyDict::new(py);
    for name in ENTITIES {
        let t = get(name)?;
        let system = name == "system";
        let schema = stored_schema(&t.schema, system);
        let batches = t
            .batches
            .iter()
            .map(|b| shape(b, &schema, system, &new, base, &ends))
            .collect::<PyResult<Vec<_>>>()?;
        out.set_item(name, ArrowTable::new(schema, batches))?;
    }
    Ok((Some(out), added, skipped))
}
