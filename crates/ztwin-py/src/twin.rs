//! Bindings for the twin: validate a scenario, run it to a MONWRITE file.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use ztwin_engine::{RunError, Scenario, ScenarioError as CoreScenarioError};

create_exception!(
    ztwin.twin,
    ScenarioError,
    PyException,
    "A scenario is invalid. `origin` is the file (or 'api'), `place` the line or \
key path, `reason` what is wrong."
);

create_exception!(
    ztwin.twin,
    SimulationError,
    PyException,
    "The simulated system could not continue (e.g. abend PGT004, paging space \
exhausted), or the output could not be written. `code` is the abend code (None \
for an output error), `at_s` the simulated second it happened at (or None), \
`kept` whether the MONWRITE data up to the abend was written as a whole file \
(the Python layer then keeps it)."
);

pub(crate) fn simulation_error(py: Python<'_>, e: &RunError) -> PyErr {
    let err = SimulationError::new_err(e.to_string());
    let v = err.value(py);
    let (code, at_s) = match e {
        RunError::Abend { at_ns, code, .. } => (Some(*code), Some(*at_ns as f64 / 1e9)),
        _ => (None, None),
    };
    // At an abend the engine finishes the MONWRITE file with the data up to
    // it and an event record naming it (ztwin_engine::run_to_writer).
    let kept = matches!(e, RunError::Abend { .. });
    match v
        .setattr("code", code)
        .and_then(|()| v.setattr("at_s", at_s))
        .and_then(|()| v.setattr("kept", kept))
    {
        Ok(()) => err,
        Err(x) => x,
    }
}

fn scenario_error(py: Python<'_>, e: &CoreScenarioError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    let v = err.value(py);
    let r = v
        .setattr("origin", e.origin.as_str())
        .and_then(|()| v.setattr("line", e.line))
        .and_then(|()| v.setattr("place", e.place.as_str()))
        .and_then(|()| v.setattr("reason", e.reason.as_str()))
        .and_then(|()| v.setattr("line", e.line));
    match r {
        Ok(()) => err,
        Err(x) => x,
    }
}

/// serde_json ends its messages with the position in the JSON text; that text
/// is the Python API's own serialisation of the user's dict, so the position
/// means nothing to the user (the key path in `place` is what names their key).
fn without_json_position(reason: &str) -> &str {
    if let Some(i) = reason.rfind(" at line ") {
        let tail = &reason[i + " at line ".len()..];
        if let Some((line, col)) = tail.split_once(" column ") {
            if !line.is_empty()
                && !col.is_empty()
                && line.bytes().all(|b| b.is_ascii_digit())
                && col.bytes().all(|b| b.is_ascii_digit())
            {
                return &reason[..i];
            }
        }
    }
    reason
}

pub(crate) fn parse(py: Python<'_>, text: &str, origin: &str, format: &str) -> PyResult<Scenario> {
    let r = match format {
        "toml" => Scenario::from_toml(text, origin),
        "json" => Scenario::from_json(text, origin).map_err(|mut e| {
            e.reason = without_json_position(&e.reason).to_string();
            if e.place.is_empty() || e.place == "." {
                e.place = "(top level)".into();
            }
            e
        }),
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "unknown scenario format {other:?} (toml or json)"
            )))
        }
    };
    r.map_err(|e| scenario_error(py, &e))
}

/// Validate scenario text; raises `ScenarioError` naming the line or key.
#[pyfunction]
pub fn validate_scenario(py: Python<'_>, text: &str, origin: &str, format: &str) -> PyResult<()> {
    parse(py, text, origin, format).map(|_| ())
}

/// Run a scenario and write its MONWRITE file to `out`, which is created or
/// truncated and written directly: the Python layer (`ztwin.twin`, through
/// `ztwin.safeout`) passes a temporary file and decides whether it replaces the
/// target. `progress(sim_s, end_s)` is called once per sample interval;
/// returning False (or raising, e.g. KeyboardInterrupt) stops the run. Pending
/// Python signals (Ctrl-C, SIGTERM) are checked once per interval with or
/// without a progress callback.
#[pyfunction]
#[pyo3(signature = (text, origin, format, out, seed=None, duration_s=None, progress=None))]
#[allow(clippy::too_many_arguments)]
pub fn run_scenario<'py>(
    py: Python<'py>,
    text: &str,
    origin: &str,
    format: &str,
    out: PathBuf,
    seed: Option<u64>,
    duration_s: Option<f64>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let sc = parse(py, text, origin, format)?;
    let duration = match duration_s {
        None => None,
        Some(d) if d.is_finite() && d > 0.0 => Some((d * 1e9).round() as u64),
        Some(d) => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "duration {d} must be a positive number of seconds"
            )))
        }
    };
    if let Some(d) = duration {
        if d < sc.monitor.sample_interval.0 {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "duration is shorter than one sample interval",
            ));
        }
        if let Err(e) = sc.scenario.check_duration(d, "duration") {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "{}: {}",
                e.place, e.reason
            )));
        }
    }
    let mut callback_error: Option<PyErr> = None;
    let result = py.detach(|| {
        let mut cb = |now: u64, end: u64| -> bool {
            Python::attach(|py| {
                if let Err(e) = py.check_signals() {
                    callback_error = Some(e);
                    return false;
                }
                let Some(p) = &progress else { return true };
                match p.call1(py, (now as f64 / 1e9, end as f64 / 1e9)) {
                    Ok(v) => !v.bind(py).is(&*pyo3::types::PyBool::new(py, false)),
                    Err(e) => {
                        callback_error = Some(e);
                        false
                    }
                }
            })
        };
        let f = std::fs::File::create(&out)
            .map_err(|e| RunError::Io(format!("cannot write {}: {e}", out.display())))?;
        let w = std::io::BufWriter::with_capacity(1 << 20, f);
        ztwin_engine::run_to_writer(&sc, seed, duration, w, &mut cb)
    });
    if let Some(e) = callback_error {
        return Err(e);
    }
    let s = result.map_err(|e| match e {
        RunError::Interrupted => pyo3::exceptions::PyKeyboardInterrupt::new_err("run interrupted"),
        other => simulation_error(py, &other),
    })?;
    let d = PyDict::new(py);
    d.set_item("sim_s", s.sim_ns as f64 / 1e9)?;
    d.set_item("wall_s", s.wall_s)?;
    d.set_item("events", s.events)?;
    d.set_item("page_refs", s.page_refs)?;
    d.set_item("refs_per_s", s.refs_per_s())?;
    d.set_item("events_per_s", s.events_per_s())?;
    d.set_item("sim_per_wall", s.sim_per_wall())?;
    d.set_item("intervals", s.intervals)?;
    d.set_item("records", s.records)?;
    d.set_item("bytes", s.bytes)?;
    d.set_item("console", s.console.clone())?;
    d.set_item("seed", seed.unwrap_or(sc.scenario.seed))?;
    d.set_item("out", out)?;
    Ok(d)
}

/// Run a z/OS partition scenario (TOML `text`, `origin` its file name) and
/// return its records as JSON text (`ztwin_engine::model::zos::Output`):
/// intervals, operations, page data sets, totals.
#[pyfunction]
#[pyo3(signature = (text, origin, pagescm=None))]
pub fn run_zos(
    py: Python<'_>,
    text: &str,
    origin: &str,
    pagescm: Option<String>,
) -> PyResult<String> {
    use ztwin_engine::model::zos::{params::ZosScenario, Zos};
    let mut sc = ZosScenario::from_toml(text, origin).map_err(|e| scenario_error(py, &e))?;
    if let Some(p) = pagescm {
        sc.zos.pagescm = p;
        sc.validate().map_err(|e| {
            scenario_error(
                py,
                &CoreScenarioError {
                    origin: origin.into(),
                    line: None,
                    place: e.place,
                    reason: e.reason,
                },
            )
        })?;
    }
    let out = py
        .detach(|| Zos::new(&sc).run())
        .map_err(|e| SimulationError::new_err(format!("{origin}: {e}")))?;
    Ok(out.to_json())
}
