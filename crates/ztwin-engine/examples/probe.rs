//! Developer probe: run a scenario and print per-interval paging figures
//! decoded from the MONWRITE output. `cargo run --release --example probe -- FILE.toml`
use std::collections::HashMap;
use ztwin_engine::Scenario;
use ztwin_monitor::layout::{by_name, read_u64};
use ztwin_monitor::Reader;

fn main() {
    let path = std::env::args().nth(1).expect("scenario path");
    let text = std::fs::read_to_string(&path).unwrap();
    let sc = match Scenario::from_toml(&text, &path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let out = std::env::temp_dir().join("probe.monwrite");
    // Wall time at each sample interval: the first to the last mark is the run
    // without its set-up (what benches/twin.py times for the S1 window).
    let mut marks: Vec<std::time::Instant> = Vec::new();
    let s = ztwin_engine::run_to_file(&sc, None, None, &out, &mut |_, _| {
        marks.push(std::time::Instant::now());
        true
    })
    .unwrap();
    if let (Some(a), Some(b), true) = (
        marks.first(),
        marks.last(),
        std::env::var_os("PROBE_MARKS").is_some(),
    ) {
        // The window in CLOCK_MONOTONIC seconds (what `perf record -k
        // CLOCK_MONOTONIC` stamps samples with), for `perf report --time`.
        // On Linux an Instant is that clock, and its Debug form shows it.
        let secs = |i: &std::time::Instant| {
            let d = format!("{i:?}");
            let num = |k: &str| -> u64 {
                let at = d
                    .find(k)
                    .unwrap_or_else(|| panic!("PROBE_MARKS: no {k} in {d} (Linux only)"));
                let s = &d[at + k.len()..];
                s[..s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len())]
                    .parse()
                    .unwrap()
            };
            format!("{}.{:09}", num("tv_sec: "), num("tv_nsec: "))
        };
        println!("{},{}", secs(a), secs(b));
    }
    if let (Some(a), Some(b)) = (marks.first(), marks.last()) {
        eprintln!(
            "window: {} sample intervals after the first in {:.3} ms",
            marks.len() - 1,
            (*b - *a).as_secs_f64() * 1e3
        );
    }
    eprintln!(
        "sim {:.0}s wall {:.2}s events {} refs {} ({:.1}M refs/s)",
        s.sim_ns as f64 / 1e9,
        s.wall_s,
        s.events,
        s.page_refs,
        s.refs_per_s() / 1e6
    );
    let asp = by_name("MRSTOASP").unwrap();
    let uint = by_name("MRUSEINT").unwrap();
    let uact = by_name("MRUSEACT").unwrap();
    let mut r = Reader::open(&out).unwrap();
    let mut prev: HashMap<u64, (u64, u64, u64, u64)> = HashMap::new();
    let mut cur = (0u64, 0u64, 0u64);
    let mut busy = 0f64;
    let mut prev_dev: HashMap<u64, u64> = HashMap::new();
    let mut lin = String::new();
    let mut prev_lin: (u64, u64, u64, u64, u64) = (0, 0, 0, 0, 0);
    let dev = by_name("MRIODDEV").unwrap();
    while let Some(rec) = r.next_record().unwrap() {
        let b = rec.bytes;
        match (rec.header.domain, rec.header.record) {
            (3, 4) => {
                let k = read_u64(b, asp.f("STOASP_RDEVDEV")).unwrap();
                let v = (
                    read_u64(b, asp.f("STOASP_EXPCTSRD")).unwrap(),
                    read_u64(b, asp.f("STOASP_EXPCTSWR")).unwrap(),
                    read_u64(b, asp.f("STOASP_EXPCTPRD")).unwrap(),
                    read_u64(b, asp.f("STOASP_EXPCTPWR")).unwrap(),
                );
                let p = prev.insert(k, v).unwrap_or((0, 0, 0, 0));
                cur.0 += v.0 - p.0 + v.1 - p.1;
                cur.1 += v.2 - p.2;
                cur.2 += v.3 - p.3;
            }
            (6, 3) => {
                let k = read_u64(b, dev.f("IODDEV_RDEVDEV")).unwrap();
                let c = read_u64(b, dev.f("IODDEV_SCMCNTIM")).unwrap();
                let p = prev_dev.insert(k, c).unwrap_or(0);
                busy += (c - p) as f64 * 0.128 / 10_000.0 * 100.0;
            }
            (4, 3) => {
                let u = ztwin_monitor::ebcdic::decode_field(&b[20..28]);
                if u == "LIN102" {
                    let rd = read_u64(b, uact.f("USEACT_CALCPPGR")).unwrap();
                    let xr = read_u64(b, uact.f("USEACT_CALCPXRD")).unwrap();
                    let res = read_u64(b, uact.f("USEACT_VMDCTPVR")).unwrap();
                    let xs = read_u64(b, uact.f("USEACT_VMDCTXBK")).unwrap();
                    let ds = read_u64(b, uact.f("USEACT_CALCTPGS")).unwrap();
                    lin = format!(
                        "LIN102 rd/s {:6.1} x>ms/s {:6.1} res {:6} xs {:6} dasd {:6}",
                        (rd - prev_lin.0) as f64 / 10.0,
                        (xr - prev_lin.1) as f64 / 10.0,
                        res,
                        xs,
                        ds
                    );
                    prev_lin = (rd, xr, 0, 0, 0);
                }
            }
            (4, 4) => {
                let u = ztwin_monitor::ebcdic::decode_field(&b[20..28]);
                if u == "LIN102" {
                    let t = read_u64(b, uint.f("USEINT_HFSTCT")).unwrap();
                    let pw = read_u64(b, uint.f("USEINT_HFWTPAG")).unwrap();
                    lin.push_str(&format!(" hf {t} pgw {pw}"));
                }
            }
            (1, 11) => {
                let t = ztwin_monitor::tod::iso8601(rec.header.tod);
                println!(
                    "{}  ssch/s {:7.1} prd/s {:7.1} pwr/s {:7.1} busy% {:6.1}  {}",
                    &t[11..19],
                    cur.0 as f64 / 10.0,
                    cur.1 as f64 / 10.0,
                    cur.2 as f64 / 10.0,
                    busy,
                    lin
                );
                cur = (0, 0, 0);
                busy = 0.0;
            }
            _ => {}
        }
    }
}
