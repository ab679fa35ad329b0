//! Mapping Rust failures to Python exceptions.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyOSError, PyValueError};
use pyo3::prelude::*;
use std::io;
use std::path::Path;
use ztwin_monitor::FatalError;

create_exception!(
    ztwin.monitor,
    MonwriteError,
    PyException,
    "A MONWRITE file is damaged beyond reading (empty, shorter than one 4096-byte \
control record, not a MONWRITE file, or unreadable). `offset` is the byte offset \
where reading stopped and `reason` says why."
);

/// `MonwriteError` for a fatal reader error, with `offset` and `reason` set.
pub fn fatal(py: Python<'_>, e: &FatalError) -> PyErr {
    let err = MonwriteError::new_err(e.to_string());
    let value = err.value(py);
    let attrs = value
        .setattr("offset", e.offset)
        .and_then(|()| value.setattr("reason", e.reason.as_str()));
    match attrs {
        Ok(()) => err,
        Err(setattr_failed) => setattr_failed,
    }
}

/// `OSError(errno, strerror, filename)`; Python picks the subclass from the
/// errno (`FileNotFoundError`, `PermissionError`, `IsADirectoryError`, ...).
pub fn os_error(path: &Path, e: &io::Error) -> PyErr {
    let text = e.to_string();
    // io::Error's text ends with " (os error N)"; strerror is the part before it.
    let strerror = text.split(" (os error").next().unwrap_or(&text).to_string();
    let filename = path.to_string_lossy().into_owned();
    match e.raw_os_error() {
        Some(errno) => PyOSError::new_err((errno, strerror, filename)),
        None => PyOSError::new_err(format!("{filename}: {text}")),
    }
}

create_exception!(
    ztwin.monitor,
    LayoutPackError,
    PyValueError,
    "A layout pack (--layouts FILE) that cannot be read or fails its checks; the \
message names the file, the record and the field."
);
