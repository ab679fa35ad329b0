//! `cargo run --release -p ztwin-analysis --example kernel_bench FILE [all]`:
//! the interval kernel alone over a file (all keys' per-interval rows with
//! `all`), printing one JSON line with MB/s and CPU seconds.
use std::time::Instant;
use ztwin_analysis::{run_file, Options, Select};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: kernel_bench FILE [all]");
        std::process::exit(2);
    };
    let mut opts = Options::default();
    if args.get(2).map(String::as_str) == Some("all") {
        opts.users = Select::All;
        opts.devices = Select::All;
        opts.exposures = Select::All;
    }
    let t = Instant::now();
    let mut rows = 0usize;
    let res = run_file(path, opts, 1000, |k| {
        let b = k.take();
        rows += b.system.len() + b.user.len() + b.device.len() + b.exposure.len() + b.cpu.len();
        true
    });
    let (k, stats) = match res {
        Ok(x) => x,
        Err(e) => {
            eprintln!("kernel_bench: {e}");
            std::process::exit(2);
        }
    };
    let s = t.elapsed().as_secs_f64();
    println!(
        "{{\"bytes\":{},\"seconds\":{s:.3},\"mb_s\":{:.1},\"intervals\":{},\"rows\":{rows}}}",
        stats.file_bytes,
        stats.file_bytes as f64 / 1e6 / s,
        k.intervals()
    );
}
