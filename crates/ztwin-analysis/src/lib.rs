//! # ztwin-analysis — the interval kernel
//!
//! Turns the records of a MONWRITE file into per-interval tables, one per
//! entity (system, processor, logical CPU of a partition, user, device, paging
//! exposure), as Arrow record batches, and keeps window totals per key. The
//! rules are those of `docs/reports.md` ("How figures are computed"): counter
//! deltas between a key's samples in consecutive sample sets, 16/32-bit wrap,
//! 64-bit reset detection, first-sample baselines, generations renewed by
//! logon and vary-on, additive sums (levels weighted by seconds, with their
//! minimum and maximum).
//!
//! Fields are read by IBM name through the layout tables of `ztwin-monitor`
//! (never by offset). The crate does not depend on Python; `ztwin-py` hands the
//! batches to Python through the Arrow C stream interface.
//!
//! ```no_run
//! use ztwin_analysis::{run_file, Options};
//! let mut out = Vec::new();
//! let (kernel, stats) = run_file("day.monwrite", Options::default(), 0, |k| {
//!     out.push(k.take());
//!     true
//! })
//! .unwrap();
//! println!("{} intervals, {} records", kernel.intervals(), stats.records);
//! ```

pub mod delta;
pub mod fields;
pub mod format;
pub mod kernel;
pub mod schema;
pub mod side;
#[cfg(feature = "arrow")]
pub mod tables;

pub use kernel::{Batch, Info, Kernel, Options, Select, TimeSpec, Totals};
use ztwin_monitor::{FatalError, Reader, Stats};

/// Read `path` through a [`Kernel`]; `each` is called with the kernel after
/// every `chunk` completed intervals (never when `chunk` is 0) and once at the
/// end, and may stop the reading by returning false.
pub fn run_file(
    path: impl AsRef<std::path::Path>,
    opts: Options,
    chunk: u64,
    each: impl FnMut(&mut Kernel) -> bool,
) -> Result<(Kernel, Stats), FatalError> {
    let reader = Reader::open(path)?;
    run(reader, opts, chunk, each)
}

/// [`run_file`] over any reader.
pub fn run<R: std::io::Read + std::io::Seek>(
    mut reader: Reader<R>,
    opts: Options,
    chunk: u64,
    mut each: impl FnMut(&mut Kernel) -> bool,
) -> Result<(Kernel, Stats), FatalError> {
    let mut k = Kernel::new(opts);
    let mut next = chunk;
    let mut go_on = true;
    while let Some(r) = reader.next_record()? {
        if !k.record(&r) {
            break;
        }
        if chunk > 0 && k.intervals() >= next {
            next = k.intervals() + chunk;
            if !each(&mut k) {
                go_on = false;
                break;
            }
        }
    }
    if go_on {
        k.finish();
        each(&mut k);
    }
    Ok((k, reader.stats))
}
