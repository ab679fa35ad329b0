//! Conversions between record values and Python objects, plus the TOD and
//! EBCDIC helper functions exposed to Python.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt, PyString};
use pyo3::IntoPyObjectExt;
use std::fmt::Write;
use ztwin_monitor::layout::{FieldDef, FieldType, Value};
use ztwin_monitor::{ebcdic, tod};

/// How TOD field values are handed to Python.
#[derive(Clone, Copy, Debug)]
pub enum TodAs {
    /// ISO 8601 UTC text with microseconds, as `ztwin dump --json` prints it.
    Iso,
    /// Integer microseconds since the Unix epoch (for columnar output).
    UnixMicros,
}

/// Short name of a field type, as `layouts()` reports it.
pub fn type_name(ty: FieldType) -> &'static str {
    match ty {
        FieldType::U1 => "U1",
        FieldType::U2 => "U2",
        FieldType::U4 => "U4",
        FieldType::U8 => "U8",
        FieldType::S2 => "S2",
        FieldType::S4 => "S4",
        FieldType::S8 => "S8",
        FieldType::Tod => "Tod",
        FieldType::Dur => "Dur",
        FieldType::Char(_) => "Char",
        FieldType::Bits(_) => "Bits",
        FieldType::VarText { .. } => "VarText",
    }
}

/// Upper-case hex text of a bit string (the rendering `ztwin dump` uses).
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02X}");
    }
    s
}

/// A decoded field value as a Python object; `None` for an absent field.
pub fn value_to_py<'py>(
    py: Python<'py>,
    v: Option<&Value>,
    tod_as: TodAs,
) -> PyResult<Bound<'py, PyAny>> {
    match v {
        None => Ok(py.None().into_bound(py)),
        Some(Value::U(x) | Value::Dur(x)) => x.into_bound_py_any(py),
        Some(Value::I(x)) => x.into_bound_py_any(py),
        Some(Value::Tod(t)) => match tod_as {
            TodAs::Iso => tod::iso8601(*t).into_bound_py_any(py),
            TodAs::UnixMicros => tod::to_unix_us(*t).into_bound_py_any(py),
        },
        Some(Value::Text(s)) => s.into_bound_py_any(py),
        Some(Value::Bits(b)) => hex(b).into_bound_py_any(py),
    }
}

/// TOD clock value for Unix microseconds, or `None` outside the TOD range
/// (1900-01-01 to 2042-09-17).
fn tod_from_unix_us(us: i64) -> Option<u64> {
    let v = tod::UNIX_EPOCH_TOD as i128 + us as i128 * tod::UNITS_PER_US as i128;
    u64::try_from(v).ok()
}

/// TOD value from ISO 8601 UTC text, with a message naming the text on failure.
fn parse_tod(text: &str) -> PyResult<u64> {
    let us = tod::parse_iso8601(text).ok_or_else(|| {
        PyValueError::new_err(format!(
            "{text:?} is not an ISO 8601 UTC time (YYYY-MM-DDTHH:MM:SS[.ffffff][Z])"
        ))
    })?;
    tod_from_unix_us(us).ok_or_else(|| {
        PyValueError::new_err(format!(
            "{text} is outside the TOD clock range 1900-01-01 .. 2042-09-17"
        ))
    })
}

/// A TOD argument: a raw 64-bit TOD value (int) or ISO 8601 UTC text.
pub fn tod_from_py(obj: &Bound<'_, PyAny>) -> PyResult<u64> {
    if let Ok(text) = obj.cast::<PyString>() {
        return parse_tod(text.to_str()?);
    }
    if obj.is_instance_of::<PyInt>() {
        return obj.extract::<u64>().map_err(|_| {
            PyValueError::new_err(format!("TOD value {obj} is outside 0 .. 2**64-1"))
        });
    }
    Err(PyTypeError::new_err(format!(
        "a TOD value must be an int (raw TOD clock) or ISO 8601 text, not {}",
        obj.get_type().name()?
    )))
}

/// Reject text that code page 037 cannot represent (anything outside Latin-1).
fn check_latin1(field: &str, text: &str) -> PyResult<()> {
    match text.char_indices().find(|(_, c)| *c as u32 > 0xFF) {
        Some((i, c)) => Err(PyValueError::new_err(format!(
            "{field}: character {c:?} at position {i} has no EBCDIC (code page 037) equivalent"
        ))),
        None => Ok(()),
    }
}

/// An integer for field `f`, range-checked against the field's width.
fn int_for(obj: &Bound<'_, PyAny>, f: &FieldDef) -> PyResult<i128> {
    if !obj.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "{}: expected an int for a {} field, got {}",
            f.name,
            type_name(f.ty),
            obj.get_type().name()?
        )));
    }
    let bits = 8 * f.ty.width() as u32;
    let (lo, hi) = match f.ty {
        FieldType::S2 | FieldType::S4 | FieldType::S8 => {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        }
        _ => (0, (1i128 << bits) - 1),
    };
    let x = obj.extract::<i128>().ok().filter(|x| (lo..=hi).contains(x));
    x.ok_or_else(|| {
        PyValueError::new_err(format!(
            "{}: {obj} is out of range for a {} field ({lo} .. {hi})",
            f.name,
            type_name(f.ty)
        ))
    })
}

/// Text for a character field.
fn text_for(obj: &Bound<'_, PyAny>, f: &FieldDef) -> PyResult<String> {
    let text: String = obj.extract().map_err(|_| {
        let got = obj
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_default();
        PyTypeError::new_err(format!(
            "{}: expected str for a {} field, got {got}",
            f.name,
            type_name(f.ty)
        ))
    })?;
    check_latin1(f.name, &text)?;
    if let FieldType::Char(n) = f.ty {
        if text.chars().count() > n as usize {
            return Err(PyValueError::new_err(format!(
                "{}: {text:?} is longer than the field's {n} characters",
                f.name
            )));
        }
    }
    Ok(text)
}

/// Bytes for a bit-string field: `bytes` or hex text of exactly the field width.
fn bits_for(obj: &Bound<'_, PyAny>, f: &FieldDef, width: usize) -> PyResult<Vec<u8>> {
    let bytes = if let Ok(b) = obj.cast::<PyBytes>() {
        b.as_bytes().to_vec()
    } else if let Ok(s) = obj.cast::<PyString>() {
        let s = s.to_str()?;
        let parsed = (s.len() % 2 == 0 && s.is_ascii())
            .then(|| {
                (0..s.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok())
                    .collect::<Option<Vec<u8>>>()
            })
            .flatten();
        parsed.ok_or_else(|| PyValueError::new_err(format!("{}: {s:?} is not hex text", f.name)))?
    } else {
        return Err(PyTypeError::new_err(format!(
            "{}: expected bytes or hex text for a Bits field, got {}",
            f.name,
            obj.get_type().name()?
        )));
    };
    if bytes.len() != width {
        return Err(PyValueError::new_err(format!(
            "{}: {} bytes given for a {width}-byte field",
            f.name,
            bytes.len()
        )));
    }
    Ok(bytes)
}

/// The record value for a Python object stored into field `f`: ints for numeric
/// fields (durations in raw TOD units), an int or ISO text for TOD fields, str for
/// character fields, bytes or hex text for bit strings.
pub fn value_from_py(obj: &Bound<'_, PyAny>, f: &FieldDef) -> PyResult<Value> {
    Ok(match f.ty {
        FieldType::U1 | FieldType::U2 | FieldType::U4 | FieldType::U8 => {
            Value::U(int_for(obj, f)? as u64)
        }
        FieldType::Dur => Value::Dur(int_for(obj, f)? as u64),
        FieldType::S2 | FieldType::S4 | FieldType::S8 => Value::I(int_for(obj, f)? as i64),
        FieldType::Tod => Value::Tod(tod_from_py(obj).map_err(|e| {
            let py = obj.py();
            PyErr::from_type(e.get_type(py), format!("{}: {}", f.name, e.value(py)))
        })?),
        FieldType::Char(_) | FieldType::VarText { .. } => Value::Text(text_for(obj, f)?),
        FieldType::Bits(n) => Value::Bits(bits_for(obj, f, n as usize)?),
    })
}

/// ISO 8601 UTC text (microseconds) for a raw TOD clock value.
#[pyfunction]
pub fn tod_to_iso(tod: u64) -> String {
    tod::iso8601(tod)
}

/// Raw TOD clock value for ISO 8601 UTC text (`YYYY-MM-DDTHH:MM:SS[.ffffff][Z]`).
#[pyfunction]
pub fn iso_to_tod(text: &str) -> PyResult<u64> {
    parse_tod(text)
}

/// Decode EBCDIC (code page 037) bytes to text; every byte maps.
#[pyfunction]
pub fn ebcdic_decode(data: &[u8]) -> String {
    ebcdic::decode(data)
}

/// Encode text to EBCDIC (code page 037); characters outside Latin-1 are an error.
#[pyfunction]
pub fn ebcdic_encode<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyBytes>> {
    check_latin1("text", text)?;
    Ok(PyBytes::new(py, &ebcdic::encode(text)))
}
