//! `ztwin console`'s engine side: an interactive session of the twin
//! (`ztwin_engine::session::Session`) writing its MONWRITE file to a path.

use crate::twin::{parse, simulation_error};
use pyo3::prelude::*;
use std::io::BufWriter;
use std::path::PathBuf;
use ztwin_engine::session::Session;

type Out = BufWriter<std::fs::File>;

/// A running session: advance it (`run_to`), issue CP commands (`command`),
/// end it (`finish`, which runs to the scenario's end and closes the file).
#[pyclass(unsendable)]
pub struct ConsoleSession {
    s: Option<Session<Out>>,
}

fn ns(s: f64) -> PyResult<u64> {
    if s.is_finite() && s >= 0.0 {
        Ok((s * 1e9).round() as u64)
    } else {
        Err(pyo3::exceptions::PyValueError::new_err(format!(
            "{s}: a time must be a non-negative number of seconds"
        )))
    }
}

impl ConsoleSession {
    fn session(&mut self) -> PyResult<&mut Session<Out>> {
        self.s
            .as_mut()
            .ok_or_else(|| pyo3::exceptions::PyValueError::new_err("the session has ended"))
    }
}

#[pymethods]
impl ConsoleSession {
    #[new]
    #[pyo3(signature = (text, origin, format, out, seed=None))]
    fn new(
        py: Python<'_>,
        text: &str,
        origin: &str,
        format: &str,
        out: PathBuf,
        seed: Option<u64>,
    ) -> PyResult<Self> {
        let sc = parse(py, text, origin, format)?;
        let f = std::fs::File::create(&out).map_err(|e| {
            pyo3::exceptions::PyOSError::new_err(format!("cannot write {}: {e}", out.display()))
        })?;
        Ok(ConsoleSession {
            s: Some(Session::new(
                &sc,
                seed,
                BufWriter::with_capacity(1 << 20, f),
            )),
        })
    }

    /// Simulated seconds now and at the scenario's end.
    fn now(&mut self) -> PyResult<f64> {
        Ok(self.session()?.now() as f64 / 1e9)
    }
    fn end(&mut self) -> PyResult<f64> {
        Ok(self.session()?.end() as f64 / 1e9)
    }

    /// Run on to simulated second `t` (at most the end); the console lines
    /// the step produced (the timeline's commands, late responses).
    fn run_to(&mut self, py: Python<'_>, t: f64) -> PyResult<Vec<String>> {
        let t = ns(t)?;
        let s = self.session()?;
        let r = py.detach(|| s.run_to(t));
        r.map_err(|e| simulation_error(py, &e))?;
        Ok(s.take_console())
    }

    /// Issue a CP command now (`issuer`: a user ID, None for the operator);
    /// the console lines it produced.
    #[pyo3(signature = (line, issuer=None))]
    fn command(
        &mut self,
        py: Python<'_>,
        line: &str,
        issuer: Option<&str>,
    ) -> PyResult<Vec<String>> {
        let s = self.session()?;
        s.command(issuer, line)
            .map_err(|e| simulation_error(py, &e))
    }

    /// Run to the end and close the MONWRITE file; the last console lines.
    fn finish(&mut self, py: Python<'_>) -> PyResult<Vec<String>> {
        let mut s = self
            .s
            .take()
            .ok_or_else(|| pyo3::exceptions::PyValueError::new_err("the session has ended"))?;
        let r = py.detach(|| s.finish());
        let mut w = r.map_err(|e| simulation_error(py, &e))?;
        use std::io::Write;
        w.flush().map_err(|e| {
            pyo3::exceptions::PyOSError::new_err(format!("writing the MONWRITE file: {e}"))
        })?;
        Ok(s.take_console())
    }
}
