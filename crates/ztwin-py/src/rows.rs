//! Report rows written natively (`ztwin_analysis::format`): the by-time
//! reports hand whole columns (numpy arrays) over and get the text of their
//! rows back, equal to what `ztwin.reports.model` writes row by row; and
//! left folds of columns by key (window totals, TREND periods).

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use ztwin_analysis::format::{fold_by_key, write_rows, ColData, Column, Fold, Format};

enum Owned {
    F64(Vec<f64>),
    Time(Vec<i64>),
    Literal(String),
    Labels(Vec<u32>, Vec<String>),
}

/// The text of `n` rows of `columns` in `fmt` ("json", "csv" or "text").
///
/// Each column is a tuple `(tag, data, json_key, width, dec, left)`: tag
/// "f" (data: float64 buffer, NaN = absent), "t" (int64 buffer of local
/// microseconds since 1970), "l" (data: the text every row shows, in the
/// output's form) or "c" (data: a tuple (codes, texts): an int64 buffer of
/// numbers into texts, a list of texts in the output's form; row i shows
/// texts[codes[i]]). `zone` is the UTC offset suffix of ISO times, `gap` the
/// blanks between text cells.
#[pyfunction]
#[pyo3(signature = (fmt, n, columns, zone="Z", gap=1))]
pub fn format_rows(
    py: Python<'_>,
    fmt: &str,
    n: usize,
    columns: &Bound<'_, PyList>,
    zone: &str,
    gap: usize,
) -> PyResult<String> {
    render_rows(py, fmt, n, columns, zone, gap)
}

/// `format_rows` as UTF-8 bytes: the writers put them straight into the
/// output's byte stream (no str made of megabytes of text and encoded
/// again).
#[pyfunction]
#[pyo3(signature = (fmt, n, columns, zone="Z", gap=1))]
pub fn format_rows_bytes<'py>(
    py: Python<'py>,
    fmt: &str,
    n: usize,
    columns: &Bound<'py, PyList>,
    zone: &str,
    gap: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let text = render_rows(py, fmt, n, columns, zone, gap)?;
    Ok(PyBytes::new(py, text.as_bytes()))
}

fn render_rows(
    py: Python<'_>,
    fmt: &str,
    n: usize,
    columns: &Bound<'_, PyList>,
    zone: &str,
    gap: usize,
) -> PyResult<String> {
    let fmt = match fmt {
        "json" => Format::Json,
        "csv" => Format::Csv,
        "text" => Format::Text { gap },
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown row format {other:?}"
            )))
        }
    };
    let mut owned = Vec::with_capacity(columns.len());
    let mut meta = Vec::with_capacity(columns.len());
    for c in columns.iter() {
        let t = c.cast::<PyTuple>()?;
        let tag: String = t.get_item(0)?.extract()?;
        let data = t.get_item(1)?;
        let key: String = t.get_item(2)?.extract()?;
        let width: usize = t.get_item(3)?.extract()?;
        let dec: usize = t.get_item(4)?.extract()?;
        let left: bool = t.get_item(5)?.extract()?;
        let o = match tag.as_str() {
            "f" => Owned::F64(PyBuffer::<f64>::get(&data)?.to_vec(py)?),
            "t" => Owned::Time(PyBuffer::<i64>::get(&data)?.to_vec(py)?),
            "l" => Owned::Literal(data.extract()?),
            "c" => {
                let pair = data.cast::<PyTuple>()?;
                let texts: Vec<String> = pair.get_item(1)?.extract()?;
                let raw = PyBuffer::<i64>::get(&pair.get_item(0)?)?.to_vec(py)?;
                let mut codes = Vec::with_capacity(raw.len());
                for c in raw {
                    if c < 0 || c as usize >= texts.len() {
                        return Err(PyValueError::new_err(format!(
                            "label number {c} out of range"
                        )));
                    }
                    codes.push(c as u32);
                }
                Owned::Labels(codes, texts)
            }
            other => {
                return Err(PyValueError::new_err(format!(
                    "unknown column tag {other:?}"
                )))
            }
        };
        match &o {
            Owned::F64(v) if v.len() < n => return Err(PyValueError::new_err("column too short")),
            Owned::Time(v) if v.len() < n => return Err(PyValueError::new_err("column too short")),
            Owned::Labels(v, _) if v.len() < n => {
                return Err(PyValueError::new_err("column too short"))
            }
            _ => {}
        }
        owned.push(o);
        meta.push((key, width, dec, left));
    }
    let zone = zone.to_string();
    Ok(py.detach(move || {
        let cols: Vec<Column<'_>> = owned
            .iter()
            .zip(&meta)
            .map(|(o, (key, width, dec, left))| Column {
                data: match o {
                    Owned::F64(v) => ColData::F64(v),
                    Owned::Time(v) => ColData::Time(v),
                    Owned::Literal(s) => ColData::Literal(s),
                    Owned::Labels(codes, texts) => ColData::Labels { codes, texts },
                },
                json_key: key,
                width: *width,
                dec: *dec,
                left: *left,
            })
            .collect();
        let mut out = String::with_capacity(n * 16 * cols.len().max(1));
        write_rows(&mut out, fmt, &cols, n, &zone);
        out
    }))
}

/// Fold `columns` (float64 buffers) by `codes` (int64 buffer of key numbers
/// `0..len(out)`) into `outs` (writable float64 buffers, one per column,
/// NaN where no value was folded yet), in row order: NaN values change
/// nothing, sums add as a left fold, `kinds` "min"/"max" keep extremes.
/// Calling it batch after batch continues the same folds.
#[pyfunction]
pub fn fold_by_keys(
    py: Python<'_>,
    codes: PyBuffer<i64>,
    columns: Vec<PyBuffer<f64>>,
    kinds: Vec<String>,
    outs: Vec<PyBuffer<f64>>,
) -> PyResult<()> {
    if columns.len() != kinds.len() || columns.len() != outs.len() {
        return Err(PyValueError::new_err(
            "columns, kinds and outs differ in length",
        ));
    }
    let codes = codes.to_vec(py)?;
    let nkeys = outs.first().map_or(0, |o| o.item_count());
    let mut keys = Vec::with_capacity(codes.len());
    for c in codes {
        if c < 0 || c as usize >= nkeys {
            return Err(PyValueError::new_err(format!(
                "key number {c} out of range"
            )));
        }
        keys.push(c as u32);
    }
    for ((col, kind), out) in columns.iter().zip(&kinds).zip(&outs) {
        let how = match kind.as_str() {
            "sum" => Fold::Sum,
            "min" => Fold::Min,
            "max" => Fold::Max,
            other => return Err(PyValueError::new_err(format!("unknown fold {other:?}"))),
        };
        let v = col.to_vec(py)?;
        if v.len() != keys.len() || out.item_count() != nkeys {
            return Err(PyValueError::new_err("column lengths differ"));
        }
        let mut acc = out.to_vec(py)?;
        fold_by_key(&keys, &v, how, &mut acc);
        out.copy_from_slice(py, &acc)?;
    }
    Ok(())
}
