//! `ztwin._native`: the PyO3 bindings behind the `ztwin` Python package.
//!
//! The bindings are thin: every decision about the record format is made in
//! `ztwin-monitor`. This crate converts between Rust and Python values, runs the
//! hot loops (decoding, rendering `ztwin dump` output, building columns) in Rust,
//! and maps reader failures to Python exceptions:
//!
//! * fatal damage ([`ztwin_monitor::FatalError`]) -> `ztwin.monitor.MonwriteError`
//!   with `offset` and `reason` attributes;
//! * a file that cannot be opened -> `OSError` (e.g. `FileNotFoundError`) naming it;
//! * a value that does not fit a field -> `ValueError` / `TypeError` naming the field.
//!
//! The Python-facing signatures are documented in `python/ztwin/_native.pyi`.

mod analysis;
mod appldata;
mod columns;
mod console;
mod convert;
mod dump;
mod errors;
mod ingest;
mod layouts;
mod reader;
mod rows;
mod twin;
mod writer;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MonwriteError", m.py().get_type::<errors::MonwriteError>())?;
    m.add(
        "LayoutPackError",
        m.py().get_type::<errors::LayoutPackError>(),
    )?;
    m.add_class::<reader::Reader>()?;
    m.add_class::<analysis::IntervalKernel>()?;
    m.add_class::<analysis::ArrowTable>()?;
    m.add_class::<dump::DumpChunks>()?;
    m.add_class::<writer::Writer>()?;
    m.add_class::<console::ConsoleSession>()?;
    m.add_function(wrap_pyfunction!(convert::tod_to_iso, m)?)?;
    m.add_function(wrap_pyfunction!(convert::iso_to_tod, m)?)?;
    m.add_function(wrap_pyfunction!(convert::ebcdic_decode, m)?)?;
    m.add_function(wrap_pyfunction!(convert::ebcdic_encode, m)?)?;
    m.add_function(wrap_pyfunction!(layouts::layouts, m)?)?;
    m.add_function(wrap_pyfunction!(layouts::kernel_reads, m)?)?;
    m.add_function(wrap_pyfunction!(columns::read_columns, m)?)?;
    m.add_function(wrap_pyfunction!(rows::format_rows, m)?)?;
    m.add_function(wrap_pyfunction!(rows::format_rows_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(rows::fold_by_keys, m)?)?;
    m.add_function(wrap_pyfunction!(ingest::ingest_rows, m)?)?;
    m.add_function(wrap_pyfunction!(reader::scan, m)?)?;
    m.add_function(wrap_pyfunction!(appldata::appldata_records, m)?)?;
    m.add("ScenarioError", m.py().get_type::<twin::ScenarioError>())?;
    m.add(
        "SimulationError",
        m.py().get_type::<twin::SimulationError>(),
    )?;
    m.add_function(wrap_pyfunction!(twin::validate_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(twin::run_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(twin::run_zos, m)?)?;
    Ok(())
}
