//! `cargo run --release -p ztwin-analysis --example kernel_bench FILE [all] [read]`:
//! the interval kernel alone over a file, printing one JSON line with MB/s
//! and the rows made (`all`: every key's per-interval rows).
//!
//! The file is read the way `ztwin report` reads it (`ztwin-py`'s
//! `IntervalKernel` and `reports/core.py`'s `_collect`, through the same
//! `ztwin_monitor::mapped`): mapped into memory
//! (`mmap`, `MADV_SEQUENTIAL`), its pages released 2 MiB behind the reader
//! in 8 MiB steps (`MADV_DONTNEED`), NSS's side records reduced on the same
//! read (`SegmentSide`), and the rows of every 500 intervals turned into
//! Arrow batches. `read`: through `read()` into the reader's window instead
//! (`Reader::open`; the copy is then system time), no side records.
use std::time::Instant;
use ztwin_analysis::side::SegmentSide;
use ztwin_analysis::tables::{interval_batches, total_batches};
use ztwin_analysis::{Kernel, Options, Select};
use ztwin_monitor::mapped::{map_file, PageRelease};
use ztwin_monitor::reader::ReadOptions;
use ztwin_monitor::Reader;

/// Intervals per step (`reports/core.py`'s `COLLECT_STEP`).
const STEP: u64 = 500;

fn fail(e: impl std::fmt::Display) -> ! {
    eprintln!("kernel_bench: {e}");
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: kernel_bench FILE [all] [read]");
        std::process::exit(2);
    };
    let mut opts = Options::default();
    if args.iter().skip(2).any(|a| a == "all") {
        opts.users = Select::All;
        opts.devices = Select::All;
        opts.exposures = Select::All;
    }
    let buffered = args.iter().skip(2).any(|a| a == "read");
    let t = Instant::now();
    let mut rows = 0usize;
    let mut batches = 0usize;
    let mut k = Kernel::new(opts);
    let mut take = |k: &mut Kernel| {
        let b = k.take();
        rows += b.system.len() + b.user.len() + b.device.len() + b.exposure.len() + b.cpu.len();
        batches += interval_batches(&b, &k.user_ids.names)
            .unwrap_or_else(|e| fail(e))
            .len();
    };
    let bytes = if buffered {
        let mut reader = Reader::open(path).unwrap_or_else(|e| fail(e));
        let mut next = STEP;
        while let Some(r) = reader.next_record().unwrap_or_else(|e| fail(e)) {
            if !k.record(&r) {
                break;
            }
            if k.intervals() >= next {
                next = k.intervals() + STEP;
                take(&mut k);
            }
        }
        k.finish();
        take(&mut k);
        reader.stats.file_bytes
    } else {
        let file = std::fs::File::open(path).unwrap_or_else(|e| fail(e));
        let m = map_file(&file).unwrap_or_else(|| {
            fail("cannot map the file (empty, not a regular file, or mmap refused)")
        });
        let mut rel = PageRelease::new(&m);
        let mut reader =
            Reader::from_whole(Box::new(m), ReadOptions::default()).unwrap_or_else(|e| fail(e));
        let mut side = SegmentSide::new();
        let mut next = STEP;
        while let Some(r) = reader.next_record().unwrap_or_else(|e| fail(e)) {
            rel.at(r.offset);
            let more = k.record(&r);
            side.record(&r);
            side.follow(&k);
            if !more {
                break;
            }
            if k.intervals() >= next {
                next = k.intervals() + STEP;
                take(&mut k);
            }
        }
        k.finish();
        side.follow(&k);
        side.close();
        take(&mut k);
        reader.stats.file_bytes
    };
    batches += total_batches(&k.totals, k.intervals(), &k.user_ids.names)
        .unwrap_or_else(|e| fail(e))
        .len();
    let s = t.elapsed().as_secs_f64();
    println!(
        "{{\"bytes\":{bytes},\"seconds\":{s:.3},\"mb_s\":{:.1},\"intervals\":{},\"rows\":{rows},\"batches\":{batches}}}",
        bytes as f64 / 1e6 / s,
        k.intervals()
    );
}
