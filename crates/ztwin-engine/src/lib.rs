//! ztwin-engine: the discrete-event engine and the z/VM model (the twin).
//!
//! The twin writes MONWRITE files through `ztwin-monitor`; the toolkit reads only
//! those files, never the model's internals.

pub mod core;
pub mod model;
pub mod scenario;

pub use model::{RunError, RunSummary, Twin};
pub use scenario::{Scenario, ScenarioError};

use std::path::Path;

/// Run `sc` and write its MONWRITE file to `out` atomically (a temporary file
/// in the same directory, renamed when the run succeeds; removed otherwise).
/// `progress(simulated_ns, end_ns)` is called once per sample interval; it
/// returns false to stop the run (`RunError::Interrupted`).
pub fn run_to_file(
    sc: &Scenario,
    seed: Option<u64>,
    duration: Option<crate::core::units::Ns>,
    out: &Path,
    progress: &mut dyn FnMut(crate::core::units::Ns, crate::core::units::Ns) -> bool,
) -> Result<RunSummary, RunError> {
    let dir = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let f = std::fs::File::create(&tmp)
            .map_err(|e| RunError::Io(format!("cannot create {}: {e}", tmp.display())))?;
        let w = std::io::BufWriter::with_capacity(1 << 20, f);
        let summary = run_to_writer(sc, seed, duration, w, progress)?;
        std::fs::rename(&tmp, out).map_err(|e| {
            RunError::Io(format!(
                "cannot rename {} to {}: {e}",
                tmp.display(),
                out.display()
            ))
        })?;
        Ok(summary)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Run `sc`, writing the MONWRITE stream to `w`.
pub fn run_to_writer<W: std::io::Write>(
    sc: &Scenario,
    seed: Option<u64>,
    duration: Option<crate::core::units::Ns>,
    w: W,
    progress: &mut dyn FnMut(crate::core::units::Ns, crate::core::units::Ns) -> bool,
) -> Result<RunSummary, RunError> {
    let t0 = std::time::Instant::now();
    let seed = seed.unwrap_or(sc.scenario.seed);
    let start = ztwin_monitor::tod::parse_iso8601(&sc.scenario.start).expect("validated");
    let mut twin = Twin::new(sc, seed, duration);
    let mut emit = model::monitor::Emitter::new(w, start);
    twin.run(&mut emit, progress)?;
    let bytes = emit.bytes();
    let (intervals, records) = (emit.intervals, emit.records);
    let mut inner = emit.finish()?;
    inner
        .flush()
        .map_err(|e| RunError::Io(format!("writing the MONWRITE file: {e}")))?;
    Ok(RunSummary {
        sim_ns: twin.core.now,
        wall_s: t0.elapsed().as_secs_f64(),
        events: twin.core.events,
        page_refs: twin.refs(),
        intervals,
        records,
        bytes,
    })
}
