//! Developer aid: run a scenario to a MONWRITE file without Python, with the
//! CLI's `--seed` and `--duration` (seconds), and print the wall time of the
//! whole run and of its window (first to last sample interval) on stderr.
//! Used by `benches/golden.sh` to check that an engine change leaves the
//! MONWRITE bytes of the reference scenarios unchanged.
//!
//! `cargo run --release --example monwrite -- SCENARIO.toml OUT [--seed N] [--duration S]`
use ztwin_engine::Scenario;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(path), Some(out)) = (args.next(), args.next()) else {
        eprintln!("usage: monwrite SCENARIO.toml OUT [--seed N] [--duration SECONDS]");
        std::process::exit(2);
    };
    let (mut seed, mut duration) = (None, None);
    while let Some(a) = args.next() {
        let v = args.next().unwrap_or_default();
        match a.as_str() {
            "--seed" => seed = v.parse().ok(),
            "--duration" => duration = v.parse::<u64>().ok().map(|s| s * 1_000_000_000),
            _ => {
                eprintln!("monwrite: unknown option {a}");
                std::process::exit(2);
            }
        }
    }
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2);
    });
    let sc = Scenario::from_toml(&text, &path).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2);
    });
    let mut marks: Vec<std::time::Instant> = Vec::new();
    let s = ztwin_engine::run_to_file(
        &sc,
        seed,
        duration,
        std::path::Path::new(&out),
        &mut |_, _| {
            marks.push(std::time::Instant::now());
            true
        },
    )
    .unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1);
    });
    let window = match (marks.first(), marks.last()) {
        (Some(a), Some(b)) => (*b - *a).as_secs_f64() * 1e3,
        _ => 0.0,
    };
    eprintln!(
        "{path}: wall {:.3} s, window {:.3} ms, events {}, refs {}",
        s.wall_s, window, s.events, s.page_refs
    );
}
