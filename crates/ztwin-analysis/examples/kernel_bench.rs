//! `cargo run --release -p ztwin-analysis --example kernel_bench FILE [all] [read]`:
//! the interval kernel alone over a file, printing one JSON line with MB/s
//! and the rows made (`all`: every key's per-interval rows).
//!
//! The file is read the way `ztwin report` reads it (`ztwin-py`'s
//! `IntervalKernel` and `reports/core.py`'s `_collect`): mapped into memory
//! (`mmap`, `MADV_SEQUENTIAL`), its pages released 2 MiB behind the reader
//! in 8 MiB steps (`MADV_DONTNEED`), NSS's side records reduced on the same
//! read (`SegmentSide`), and the rows of every 500 intervals turned into
//! Arrow batches. `read`: through `read()` into the reader's window instead
//! (`Reader::open`; the copy is then system time), no side records.
use std::time::Instant;
use ztwin_analysis::side::SegmentSide;
use ztwin_analysis::tables::{interval_batches, total_batches};
use ztwin_analysis::{Kernel, Options, Select};
use ztwin_monitor::reader::ReadOptions;
use ztwin_monitor::Reader;

/// Intervals per step (`reports/core.py`'s `COLLECT_STEP`).
const STEP: u64 = 500;

/// A file mapped read-only, unmapped when dropped (as `ztwin-py`'s reader).
struct Mapped {
    ptr: *mut libc::c_void,
    len: usize,
}

// The mapping is read-only and owned.
unsafe impl Send for Mapped {}
unsafe impl Sync for Mapped {}

impl AsRef<[u8]> for Mapped {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: `ptr` maps `len` readable bytes until `drop`.
        unsafe { std::slice::from_raw_parts(self.ptr as *const u8, self.len) }
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `map`, unmapped once.
        unsafe {
            libc::munmap(self.ptr, self.len);
        }
    }
}

fn map(path: &str) -> std::io::Result<Mapped> {
    use std::os::fd::AsRawFd;
    let f = std::fs::File::open(path)?;
    let len = f.metadata()?.len() as usize;
    if len == 0 {
        return Err(std::io::Error::other("empty file"));
    }
    // SAFETY: a read-only private mapping of an open file; checked below.
    let ptr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_PRIVATE,
            f.as_raw_fd(),
            0,
        )
    };
    if ptr == libc::MAP_FAILED {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: advice on the mapping just made.
    unsafe {
        libc::madvise(ptr, len, libc::MADV_SEQUENTIAL);
    }
    Ok(Mapped { ptr, len })
}

/// Pages already read given back (`ztwin-py`'s `PageRelease`).
struct Release {
    addr: usize,
    len: usize,
    done: usize,
}

const RELEASE_STEP: usize = 8 << 20;
const RELEASE_BEHIND: usize = 2 << 20;

impl Release {
    #[inline]
    fn at(&mut self, offset: u64) {
        let off = offset as usize;
        if off < self.done + RELEASE_STEP + RELEASE_BEHIND {
            return;
        }
        let upto = ((off - RELEASE_BEHIND) & !0xFFFF).min(self.len);
        if upto > self.done {
            // SAFETY: a range inside the read-only private mapping.
            unsafe {
                libc::madvise(
                    (self.addr + self.done) as *mut libc::c_void,
                    upto - self.done,
                    libc::MADV_DONTNEED,
                );
            }
            self.done = upto;
        }
    }
}

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
        let m = map(path).unwrap_or_else(|e| fail(e));
        let mut rel = Release {
            addr: m.ptr as usize,
            len: m.len,
            done: 0,
        };
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
