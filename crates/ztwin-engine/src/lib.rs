//! ztwin-engine: the discrete-event engine and the z/VM model (the twin).
//!
//! The twin writes MONWRITE files through `ztwin-monitor`; the toolkit reads only
//! those files, never the model's internals.

pub mod core;
pub mod model;
pub mod scenario;
pub mod session;

pub use model::{RunError, RunSummary, Twin};
pub use scenario::{Scenario, ScenarioError};

use std::path::Path;

/// Run `sc` and write its MONWRITE file to `out` atomically (a temporary file
/// in the same directory, renamed when the run succeeds or the simulated
/// system abended, see [`run_to_writer`]; removed otherwise).
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
    let rename = || {
        std::fs::rename(&tmp, out).map_err(|e| {
            RunError::Io(format!(
                "cannot rename {} to {}: {e}",
                tmp.display(),
                out.display()
            ))
        })
    };
    let result = (|| {
        let f = std::fs::File::create(&tmp)
            .map_err(|e| RunError::Io(format!("cannot create {}: {e}", tmp.display())))?;
        let w = std::io::BufWriter::with_capacity(1 << 20, f);
        match run_to_writer(sc, seed, duration, w, progress) {
            Ok(summary) => {
                rename()?;
                Ok(summary)
            }
            Err(e @ RunError::Abend { .. }) => {
                rename()?;
                Err(e)
            }
            Err(e) => Err(e),
        }
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Run `sc`, writing the MONWRITE stream to `w`. When the simulated system
/// abends (`RunError::Abend`, e.g. PGT004), the stream is still a whole
/// MONWRITE file: the data up to the abend and an event record naming it
/// (MRMTRECM, "ZTWIN: SYSTEM ABEND ..."), as a real MONWRITE file keeps what
/// CP sent before it went down; the abend is returned as the error.
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
    let mut emit = model::monitor::Emitter::new(w, start, sc.release());
    if let Err(e) = twin.run(&mut emit, progress) {
        if let RunError::Abend {
            at_ns,
            code,
            ref reason,
        } = e
        {
            // What CP sent before it went down stays, as in a real MONWRITE
            // file, with an event record naming the abend: the stream is a
            // whole file and the abend is still the run's result.
            emit.abend(&mut twin, at_ns, code, reason)?;
            emit.finish()?
                .flush()
                .map_err(|e| RunError::Io(format!("writing the MONWRITE file: {e}")))?;
        }
        return Err(e);
    }
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
        console: twin.model.console.take(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ztwin_monitor::Reader;

    /// Paging space runs out after a few intervals (PGT004).
    const EXHAUSTS: &str = r#"
[scenario]
duration = "300s"
seed = 3
[system]
processors = 2
central_storage = "512M"
xstor = "64M"
[monitor]
sample_interval = "30s"
[[paging]]
device_type = "3390-3"
cylinders = 10
first_address = "0A00"
volser_prefix = "PAG"
[[guest]]
userid = "LINUX"
count = 3
virtual_storage = "512M"
workload = { type = "thrasher", area = "300M", pattern = "random", touch = "write", cpu_per_touch_us = 1000.0 }
"#;

    #[test]
    fn an_abend_keeps_the_data_up_to_it_and_says_so() {
        let sc = Scenario::from_toml(EXHAUSTS, "x.toml").unwrap();
        let mut out = Vec::new();
        let e = run_to_writer(&sc, None, None, &mut out, &mut |_, _| true).unwrap_err();
        let RunError::Abend { at_ns, code, .. } = e else {
            panic!("not an abend: {e}");
        };
        assert_eq!(code, "PGT004");
        assert!(at_ns > 60 * crate::core::units::SEC, "{at_ns}");
        // a whole file: every record readable, no damage, the intervals before
        // the abend, and an event record naming it last
        let mut r = Reader::new(std::io::Cursor::new(&out)).unwrap();
        let mut last = None;
        while let Some(rec) = r.next_record().unwrap() {
            last = Some((rec.header.domain, rec.header.record, rec.bytes.to_vec()));
        }
        assert_eq!(r.stats.damage_count, 0);
        assert!(r.stats.intervals >= 3, "{}", r.stats.intervals);
        let (d, n, bytes) = last.unwrap();
        assert_eq!((d, n), (1, 2));
        let text = ztwin_monitor::ebcdic::decode(&bytes[24..]);
        assert!(text.starts_with("ZTWIN: SYSTEM ABEND PGT004 AT "), "{text}");
        assert!(text.contains("paging space is exhausted"), "{text}");
    }
}
