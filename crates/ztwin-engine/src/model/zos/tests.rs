use super::params::ZosScenario;
use super::*;

fn study(pagescm: &str) -> ZosScenario {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../studies/zos/flash-morning-transition.toml"
    ))
    .unwrap();
    let text = text.replace("pagescm = \"NONE\"", &format!("pagescm = \"{pagescm}\""));
    ZosScenario::from_toml(&text, "flash-morning-transition.toml").unwrap()
}

#[test]
#[ignore]
fn print_study() {
    for v in ["NONE", "ALL"] {
        let t = std::time::Instant::now();
        let out = Zos::new(&study(v)).run().unwrap();
        eprintln!(
            "{v}: {:.1}s wall aux_at_start {:.2}G scm {:.2}G",
            t.elapsed().as_secs_f64(),
            out.aux_at_start_bytes as f64 / (1u64 << 30) as f64,
            out.scm_at_start_bytes as f64 / (1u64 << 30) as f64
        );
        for i in out.intervals.iter().step_by(5) {
            eprintln!("  t={:.0} tx={} resp={:.3} in scm={} 1m={} dasd={} spec={} out scm={} dasd={} free={} nd={:.2}", i.t_s, i.tx, if i.tx>0 {i.resp_s/i.tx as f64} else {0.0}, i.pagein_scm, i.pagein_scm_1m, i.pagein_dasd, i.pagein_spec, i.pageout_scm, i.pageout_dasd, i.frames_free, i.system_nd_s);
        }
        for o in &out.operations {
            eprintln!("  {:?}", o);
        }
        eprintln!("  {:?}", out.totals);
    }
}

// ---------------------------------------------------------------- ASM placement, rule by rule

use super::asm::{Asm, Data, Target};

fn asm(scm: u64, scm_resp: u64, ds: &[u64], ds_resp: u64) -> Asm {
    Asm::new(scm, scm_resp, ds, ds_resp, 1_000_000_000, 3)
}

#[test]
fn scm_chosen_while_it_has_room_and_better_response() {
    let mut a = asm(1000, 50_000, &[1000, 1000], 300_000);
    assert_eq!(a.place(Data::Normal, 64, &|_| 0), Target::Scm);
    assert_eq!(a.scm_used(), 64);
}

#[test]
fn page_data_set_when_scm_responds_worse() {
    let mut a = asm(1000, 900_000, &[1000, 1000], 300_000);
    assert!(matches!(a.place(Data::Normal, 64, &|_| 0), Target::Ds(_)));
    assert_eq!(a.scm_used(), 0);
}

#[test]
fn flash_full_goes_to_disk() {
    let mut a = asm(100, 50_000, &[1000], 300_000);
    assert_eq!(a.place(Data::Normal, 64, &|_| 0), Target::Scm);
    // 36 slots left: a group of 64 goes to the data set.
    assert_eq!(a.place(Data::Normal, 64, &|_| 0), Target::Ds(0));
}

#[test]
fn vio_never_goes_to_scm() {
    let mut a = asm(1000, 1, &[1000], 300_000);
    assert_eq!(a.place(Data::Vio, 10, &|_| 0), Target::Ds(0));
    // Even with every data set full, VIO does not fall back to SCM.
    let mut a = asm(1000, 1, &[5], 300_000);
    assert_eq!(a.place(Data::Vio, 10, &|_| 0), Target::Full);
    assert_eq!(a.scm_used(), 0);
}

#[test]
fn plpa_goes_to_both() {
    let mut a = asm(1000, 50_000, &[1000], 300_000);
    assert_eq!(a.place(Data::Plpa, 100, &|_| 0), Target::Both(0));
    assert_eq!((a.scm_used(), a.ds_used(0)), (100, 100));
    // Without SCM, to the data set only.
    let mut a = asm(0, 0, &[1000], 300_000);
    assert_eq!(a.place(Data::Plpa, 100, &|_| 0), Target::Ds(0));
}

#[test]
fn large_pages_whole_to_scm_else_split() {
    let mut a = asm(1000, 50_000, &[10_000], 300_000);
    assert_eq!(a.place(Data::Large, 256, &|_| 0), Target::Scm);
    assert_eq!(a.scm_used(), 256);
    // No room for another 1 MB: broken up (the caller writes 4 KB pages).
    let mut a = asm(300, 50_000, &[10_000], 300_000);
    a.place(Data::Normal, 100, &|_| 0);
    assert_eq!(a.place(Data::Large, 256, &|_| 0), Target::Split);
    // No SCM at all.
    let mut a = asm(0, 0, &[10_000], 300_000);
    assert_eq!(a.place(Data::Large, 256, &|_| 0), Target::Split);
}

#[test]
fn overloaded_data_sets_are_avoided_then_shortest_queue() {
    let mut a = asm(0, 0, &[1000, 1000, 1000], 300_000);
    // Data set 1 responds best but is overloaded (3 queued): the next best.
    a.observe_ds(1, 2_000_000_000, 100_000);
    a.observe_ds(2, 2_000_000_000, 200_000);
    let q = |d: u16| if d == 1 { 3 } else { 0 };
    assert_eq!(a.place(Data::Normal, 8, &q), Target::Ds(2));
    // Not overloaded: the best response wins.
    assert_eq!(a.place(Data::Normal, 8, &|_| 0), Target::Ds(1));
    // All overloaded: the shortest queue.
    let q = |d: u16| [5, 4, 6][d as usize];
    assert_eq!(a.place(Data::Normal, 8, &q), Target::Ds(1));
}

#[test]
fn disk_full_falls_back_to_scm_then_full() {
    let mut a = asm(100, 900_000, &[10], 300_000);
    assert_eq!(a.place(Data::Normal, 50, &|_| 0), Target::Scm);
    assert_eq!(a.place(Data::Normal, 60, &|_| 0), Target::Full);
}

#[test]
fn smoothed_response_follows_observations() {
    let mut a = asm(1000, 50_000, &[1000], 300_000);
    // SCM gets slow for a while: placement moves to the data set.
    for i in 1..=20u64 {
        a.observe_scm(i * 100_000_000, 5_000_000);
    }
    assert!(a.scm_resp() > 300_000.0);
    assert_eq!(a.place(Data::Normal, 8, &|_| 0), Target::Ds(0));
}

// ---------------------------------------------------------------- scenario errors

const SMALL: &str = r#"
[scenario]
duration = "20s"
seed = 3

[flash]
[[flash.partition]]
name = "ZOS1"
initial = "16G"

[zos]
name = "ZOS1"
real_storage = "1G"
pagescm = "ALL"
users = 8
think_time = "200ms"
touches_per_tx = 20

[zos.page_data_sets]
count = 4
lcus = 2
size = "1G"

[zos.batch]
size = "512M"
vio = "64M"

[zos.dump]
svc_at = "10s"
svc_target = "DB2"
sa_size = "1536M"

[[zos.address_space]]
name = "COMMON"
kind = "common"
size = "64M"
touch_weight = 0.1

[[zos.address_space]]
name = "WASSR"
kind = "was_servant"
count = 2
size = "160M"
large = "128M"
touch_weight = 0.4
gc_interval = "5s"

[[zos.address_space]]
name = "DB2"
kind = "db2"
size = "768M"
hot = "256M"
touch_weight = 0.5
"#;

fn small(pagescm: &str, seed: u64) -> ZosScenario {
    let text = SMALL
        .replace("pagescm = \"ALL\"", &format!("pagescm = \"{pagescm}\""))
        .replace("seed = 3", &format!("seed = {seed}"));
    ZosScenario::from_toml(&text, "small.toml").unwrap()
}

#[test]
fn pagescm_larger_than_allocation_is_refused_with_its_line() {
    let text = SMALL.replace("pagescm = \"ALL\"", "pagescm = \"32G\"");
    let e = ZosScenario::from_toml(&text, "s.toml")
        .unwrap_err()
        .to_string();
    let line = SMALL
        .lines()
        .position(|l| l.starts_with("pagescm"))
        .unwrap()
        + 1;
    assert!(
        e.starts_with(&format!(
            "s.toml: line {line}: zos.pagescm: 32G: larger than"
        )),
        "{e}"
    );
}

#[test]
fn flash_over_card_capacity_is_refused_with_its_line() {
    let text = SMALL.replace("initial = \"16G\"", "initial = \"2048G\"");
    let e = ZosScenario::from_toml(&text, "s.toml")
        .unwrap_err()
        .to_string();
    let line = text.lines().position(|l| l.starts_with("initial")).unwrap() + 1;
    assert!(
        e.starts_with(&format!("s.toml: line {line}: flash.partition[0].")),
        "{e}"
    );
    assert!(e.contains("over the usable capacity"), "{e}");
    let text = SMALL.replace("initial = \"16G\"", "initial = \"24G\"");
    let e = ZosScenario::from_toml(&text, "s.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("increments of 16G"), "{e}");
}

#[test]
fn unknown_keys_and_targets_are_refused() {
    let e = ZosScenario::from_toml(&SMALL.replace("users = 8", "userz = 8"), "s.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("zos.userz") || e.contains("unknown field"),
        "{e}"
    );
    let e = ZosScenario::from_toml(
        &SMALL.replace("svc_target = \"DB2\"", "svc_target = \"NOPE\""),
        "s.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("zos.dump.svc_target: no address space NOPE"),
        "{e}"
    );
}

// ---------------------------------------------------------------- whole runs

#[test]
fn runs_conserve_pages_and_keep_each_on_one_tier() {
    for v in ["ALL", "NONE"] {
        let out = Zos::new(&small(v, 3)).run_checked(1999).unwrap();
        assert!(out.totals.steals > 0, "{v}: the run must page");
        assert_eq!(
            out.operations.len(),
            3,
            "{v}: batch, SVC dump, stand-alone dump"
        );
    }
}

#[test]
fn structural_rules_hold_in_whole_runs() {
    let none = Zos::new(&small("NONE", 3)).run().unwrap();
    let t = none.totals;
    // Without SCM: large pages are 4 KB-backed, nothing goes to SCM.
    assert_eq!(
        (
            t.pageout_scm,
            t.pageout_scm_1m,
            t.pagein_scm,
            t.pagein_scm_1m
        ),
        (0, 0, 0, 0)
    );
    assert_eq!(t.large_4k_backed, 2 * 128);
    assert_eq!(t.plpa_scm, 0);
    let all = Zos::new(&small("ALL", 3)).run().unwrap();
    let t = all.totals;
    assert!(t.pageout_scm > 0 && t.pageout_scm_1m > 0, "{t:?}");
    assert_eq!(t.pageout_vio_scm, 0);
    assert_eq!(t.large_4k_backed, 0);
    assert!(t.plpa_scm > 0 && t.plpa_dasd == t.plpa_scm);
    // Dumps finish sooner with flash.
    let dur = |o: &Output, k: &str| {
        o.operations
            .iter()
            .find(|x| x.kind == k)
            .map(|x| x.end_s - x.start_s)
            .unwrap()
    };
    assert!(dur(&all, "svc_dump") < dur(&none, "svc_dump"));
    assert!(dur(&all, "sa_dump") < dur(&none, "sa_dump"));
}

#[test]
fn same_seed_same_output() {
    let a = serde_json::to_string(&Zos::new(&small("ALL", 5)).run().unwrap()).unwrap();
    let b = serde_json::to_string(&Zos::new(&small("ALL", 5)).run().unwrap()).unwrap();
    assert_eq!(a, b);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 6, .. proptest::prelude::ProptestConfig::default() })]
    #[test]
    fn no_page_on_two_tiers(seed in 0u64..1000, scm in proptest::prop_oneof!["ALL", "NONE", "16G"], spec in proptest::bool::ANY) {
        let mut sc = small(&scm, seed);
        sc.zos.asm.speculative_pagein = spec;
        sc.zos.asm.write_group = 1 + (seed % 64) as u32;
        let r = Zos::new(&sc).run_checked(4001);
        proptest::prop_assert!(r.is_ok(), "{:?}", r.err());
    }
}

#[test]
fn interval_records_add_up_per_data_set_and_address_space() {
    for v in ["ALL", "NONE"] {
        let out = Zos::new(&small(v, 3)).run().unwrap();
        let nds = out.data_sets.len();
        let nsp = out.address_spaces.len();
        assert_eq!(out.ds_intervals.len(), out.intervals.len() * nds, "{v}");
        assert_eq!(out.as_intervals.len(), out.intervals.len() * nsp, "{v}");
        let frames = out.real_bytes / PAGE;
        let plpa_scm = out.totals.plpa_scm;
        for (k, iv) in out.intervals.iter().enumerate() {
            let ds = &out.ds_intervals[k * nds..(k + 1) * nds];
            let sp = &out.as_intervals[k * nsp..(k + 1) * nsp];
            assert!(ds.iter().all(|d| d.t_s == iv.t_s) && sp.iter().all(|a| a.t_s == iv.t_s));
            // Slots per data set add up to the partition's; frames held by
            // the address spaces plus the free ones are the real storage;
            // SCM slots of the address spaces plus PLPA's are SCM's.
            assert_eq!(
                ds.iter().map(|d| d.used).sum::<u64>(),
                iv.ds_slots_used,
                "{v} t={}",
                iv.t_s
            );
            assert_eq!(
                sp.iter().map(|a| a.frames).sum::<u64>() + iv.frames_free,
                frames,
                "{v} t={}",
                iv.t_s
            );
            assert_eq!(
                sp.iter().map(|a| a.scm_slots).sum::<u64>() + plpa_scm,
                iv.scm_slots_used,
                "{v}"
            );
            assert_eq!(
                sp.iter().map(|a| a.ds_slots).sum::<u64>() + out.totals.plpa_dasd,
                iv.ds_slots_used,
                "{v}"
            );
            // Pages read in: per address space as the partition counts them
            // (a 1 MB page is 256, speculative pages included).
            let pin = iv.pagein_scm + 256 * iv.pagein_scm_1m + iv.pagein_dasd + iv.pagein_spec;
            let sp_in: u64 = sp.iter().map(|a| a.pageins).sum();
            assert!(sp_in <= pin + 256 * 64, "{v} t={}: {sp_in} > {pin}", iv.t_s);
        }
        // The data sets' interval I/O adds up to the whole run's minus
        // what happened before the online phase.
        for (i, d) in out.data_sets.iter().enumerate() {
            let w: u64 = out
                .ds_intervals
                .iter()
                .filter(|x| x.ds == i as u16)
                .map(|x| x.writes)
                .sum();
            assert!(w <= d.writes, "{v} {}", d.name);
            assert_eq!(d.devno, 0x9000 + 0x100 * d.lcu + (d.devno & 0xff));
        }
        assert_eq!(out.plpa_ds.is_some(), out.plpa_pages > 0);
    }
}

// ---------------------------------------------------------------- the CEC hook

/// SMALL in a CEC of 4 CPs beside a z/VM partition (weight `zvm_w`,
/// asking for `zvm_busy` engines); the z/OS partition's weight is 100.
fn in_cec(zvm_w: u32, zvm_busy: f64) -> ZosScenario {
    let procs = SMALL
        .lines()
        .find_map(|l| l.strip_prefix("processors = "))
        .map_or(4, |v| v.trim().parse::<u32>().unwrap());
    let text = SMALL.replace(
        "[zos]\n",
        &format!(
            "[lpar]\nphysical = {{ cp = 4 }}\nweight = 100\n\n[[lpar.partition]]\nname = \"ZVM1\"\n\
             logical = 4\nweight = {zvm_w}\nbusy = {zvm_busy}\n\n[zos]\n"
        ),
    );
    let sc = ZosScenario::from_toml(&text, "cec.toml").unwrap();
    assert_eq!(sc.zos.processors, procs);
    sc
}

#[test]
fn the_cec_divides_the_processors() {
    let alone = Zos::new(&small("ALL", 3)).run().unwrap();
    assert!(alone.intervals.iter().all(|i| i.lp_speed == 1.0));
    // An idle z/VM partition beside: z/OS gets what it asks for.
    let idle = Zos::new(&in_cec(900, 0.0)).run_checked(4999).unwrap();
    let tx = |o: &Output| o.intervals.iter().map(|i| i.tx).sum::<u64>();
    let resp = |o: &Output| o.intervals.iter().map(|i| i.resp_s).sum::<f64>() / tx(o) as f64;
    assert!(
        idle.intervals.iter().all(|i| i.lp_speed > 0.99),
        "{:?}",
        idle.intervals[0].lp_speed
    );
    assert_eq!(tx(&idle), tx(&alone));
    // A busy z/VM partition of weight 900: z/OS's 4 logical processors
    // share 10% of 4 CPs (0.4 engines, 0.1 each) when it asks for more.
    let busy = Zos::new(&in_cec(900, 4.0)).run_checked(4999).unwrap();
    let min = busy
        .intervals
        .iter()
        .map(|i| i.lp_speed)
        .fold(1.0, f64::min);
    assert!(min < 0.5, "{min}");
    assert!(
        resp(&busy) > resp(&alone),
        "{} <= {}",
        resp(&busy),
        resp(&alone)
    );
    // The CEC's own checks: an unknown key or too many logical processors
    // are refused with the key.
    let text = SMALL.replace("[zos]\n", "[lpar]\nphysical = { cp = 1 }\n\n[zos]\n");
    let e = ZosScenario::from_toml(&text, "c.toml")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("c.toml: line "), "{e}");
    assert!(
        e.contains(
            "zos.processors: partition ZOS1 has 4 logical CPs but the CEC has 1 physical CPs"
        ),
        "{e}"
    );
}

// ---------------------------------------------------------------- page data sets behind control units

/// `SMALL` with its 4 page data sets behind `lcus` control units of one
/// storage server, reached over `chpids` FICON paths of `mb_s` each (every
/// LCU on all of them).
fn paths_text(lcus: u32, chpids: u32, mb_s: u32) -> String {
    let names: Vec<String> = (0..lcus).map(|i| format!("\"LCU{i}\"")).collect();
    let paths: Vec<String> = (0..chpids)
        .map(|i| format!("\"{:02X}\"", 0x40 + i))
        .collect();
    let mut io = format!(
        r#"
[[chpid]]
id = "40"
count = {chpids}
type = "ficon"
mb_s = {mb_s}

[[storage_server]]
name = "DS1"
read_hit = 0.975
host_adapters = 4
ha_mb_s = 800
ha_concurrency = 4

[[storage_server.rank]]
name = "R"
count = 4
position_ms = 5.0
"#
    );
    for i in 0..lcus {
        io += &format!(
            "\n[[control_unit]]\nname = \"LCU{i}\"\nserver = \"DS1\"\nchpids = [{}]\n",
            paths.join(", ")
        );
    }
    let text = SMALL.replace(
        "lcus = 2\n",
        &format!(
            "control_units = [{}]\ndevice_type = \"3390-9\"\n",
            names.join(", ")
        ),
    );
    // The I/O sections go before [zos] (top-level tables).
    text.replace("[zos]\n", &format!("{io}\n[zos]\n"))
}

fn small_paths(pagescm: &str, seed: u64, lcus: u32, chpids: u32, mb_s: u32) -> ZosScenario {
    let text = paths_text(lcus, chpids, mb_s)
        .replace("pagescm = \"ALL\"", &format!("pagescm = \"{pagescm}\""))
        .replace("seed = 3", &format!("seed = {seed}"));
    ZosScenario::from_toml(&text, "paths.toml").unwrap_or_else(|e| panic!("{e}"))
}

/// Mean response of a page data set I/O over the run (ms), and busy time per
/// page transferred in the online phase (the Page Data Set Activity report's
/// page transfer time, ms).
fn ds_response(o: &Output) -> (f64, f64) {
    let ios: u64 = o.data_sets.iter().map(|d| d.reads + d.writes).sum();
    let resp: f64 = o
        .data_sets
        .iter()
        .map(|d| d.avg_resp_ms * (d.reads + d.writes) as f64)
        .sum();
    let busy: f64 = o.ds_intervals.iter().map(|d| d.busy_s).sum();
    let pages: u64 = o
        .ds_intervals
        .iter()
        .map(|d| d.pages_read + d.pages_written)
        .sum();
    (resp / ios as f64, busy * 1e3 / pages.max(1) as f64)
}

#[test]
fn data_sets_behind_control_units_conserve_pages_and_requests() {
    for v in ["ALL", "NONE"] {
        // `check` includes model/io's (every request in one place, the path
        // model's resources agreeing with their holders).
        let out = Zos::new(&small_paths(v, 3, 2, 2, 800))
            .run_checked(997)
            .unwrap();
        assert!(
            out.totals.pageout_dasd > 0 && out.totals.pagein_dasd > 0,
            "{v}"
        );
        assert_eq!(out.ds_lcus, 2);
        let devs: Vec<u16> = out.data_sets.iter().map(|d| d.devno).collect();
        assert_eq!(devs, [0x9000, 0x9001, 0x9100, 0x9101]);
    }
}

#[test]
fn data_sets_behind_control_units_take_their_times_from_the_path() {
    // The same data sets on the fixed model and behind a control unit: not
    // the same run (the times differ), both complete.
    let fixed = serde_json::to_string(&Zos::new(&small("NONE", 3)).run().unwrap()).unwrap();
    let path = serde_json::to_string(&Zos::new(&small_paths("NONE", 3, 2, 4, 800)).run().unwrap())
        .unwrap();
    assert_ne!(fixed, path);
    let a = serde_json::to_string(&Zos::new(&small_paths("NONE", 4, 2, 4, 800)).run().unwrap())
        .unwrap();
    let b = serde_json::to_string(&Zos::new(&small_paths("NONE", 4, 2, 4, 800)).run().unwrap())
        .unwrap();
    assert_eq!(a, b, "same seed, same output");
}

#[test]
fn more_paths_never_raise_data_set_response() {
    // PAGESCM=NONE: all paging on the data sets. 1, 2, 4 channel paths of
    // 100 MB/s (and 1, 2, 4 control units): the mean response per I/O never
    // grows.
    let mut last = f64::INFINITY;
    for n in [1u32, 2, 4] {
        let o = Zos::new(&small_paths("NONE", 3, n, n, 100)).run().unwrap();
        let (resp, _) = ds_response(&o);
        eprintln!("{n} paths: {resp:.3} ms");
        assert!(resp <= last, "{n} paths: {resp:.3} ms > {last:.3} ms");
        last = resp;
    }
    // More control units over the same two paths: never slower either.
    let mut last = f64::INFINITY;
    for n in [1u32, 2, 4] {
        let o = Zos::new(&small_paths("NONE", 3, n, 2, 100)).run().unwrap();
        let (resp, _) = ds_response(&o);
        eprintln!("{n} control units, 2 paths: {resp:.3} ms");
        assert!(
            resp <= last,
            "{n} control units: {resp:.3} ms > {last:.3} ms"
        );
        last = resp;
    }
}

#[test]
fn a_saturated_channel_shows_in_data_set_response() {
    // One 10 MB/s channel (a 64-page write group holds it 26 ms) against
    // four of 800 MB/s: response and page transfer time grow.
    let slow = Zos::new(&small_paths("NONE", 3, 1, 1, 10)).run().unwrap();
    let fast = Zos::new(&small_paths("NONE", 3, 1, 4, 800)).run().unwrap();
    let (rs, ts) = ds_response(&slow);
    let (rf, tf) = ds_response(&fast);
    eprintln!("slow {rs:.3} ms {ts:.4} ms/page; fast {rf:.3} ms {tf:.4} ms/page");
    assert!(rs > 3.0 * rf, "{rs} vs {rf}");
    assert!(ts > 3.0 * tf, "{ts} vs {tf}");
}

#[test]
fn a_page_data_set_on_an_undefined_control_unit_is_refused_with_its_line() {
    let text = paths_text(2, 2, 800).replace("\"LCU0\", \"LCU1\"]", "\"LCU0\", \"LCU9\"]");
    let e = ZosScenario::from_toml(&text, "p.toml")
        .unwrap_err()
        .to_string();
    let line = text.lines().position(|l| l.contains("LCU9")).unwrap() + 1;
    assert_eq!(
        e,
        format!("p.toml: line {line}: zos.page_data_sets.control_units[1]: 'LCU9' is not a [[control_unit]]")
    );
}

#[test]
fn path_and_fixed_model_keys_are_not_mixed() {
    // Fixed service times with control units.
    let text = paths_text(2, 2, 800).replace(
        "device_type = \"3390-9\"\n",
        "device_type = \"3390-9\"\npending_ms = 0.2\n",
    );
    let e = ZosScenario::from_toml(&text, "p.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("zos.page_data_sets.pending_ms: the fixed service model does not apply"),
        "{e}"
    );
    // I/O sections with no data set behind them.
    let text = SMALL.replace(
        "[zos]\n",
        "[[chpid]]\nid = \"40\"\ntype = \"ficon\"\n\n[zos]\n",
    );
    let e = ZosScenario::from_toml(&text, "p.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("chpid: no page data set is behind a control unit"),
        "{e}"
    );
    // lcus disagreeing with the control units named.
    let text = paths_text(2, 2, 800).replace(
        "device_type = \"3390-9\"\n",
        "device_type = \"3390-9\"\nlcus = 3\n",
    );
    let e = ZosScenario::from_toml(&text, "p.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("zos.page_data_sets.lcus: 3, but control_units names 2"),
        "{e}"
    );
    // A data set larger than its volume.
    let text = paths_text(2, 2, 800).replace("3390-9", "3390-1");
    let e = ZosScenario::from_toml(&text, "p.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("zos.page_data_sets.size: does not fit a 3390-1"),
        "{e}"
    );
    // model/io's own checks name the section's entry.
    let text =
        paths_text(2, 2, 800).replace("chpids = [\"40\", \"41\"]", "chpids = [\"40\", \"4F\"]");
    let e = ZosScenario::from_toml(&text, "p.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("control_unit[0].chpids: CHPID 4F is not defined in [[chpid]]"),
        "{e}"
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 4, .. proptest::prelude::ProptestConfig::default() })]
    #[test]
    fn no_page_on_two_tiers_behind_control_units(seed in 0u64..1000, scm in proptest::prop_oneof!["ALL", "NONE", "16G"], lcus in 1u32..=4, chpids in 1u32..=4) {
        let mut sc = small_paths(&scm, seed, lcus, chpids, 200);
        sc.zos.asm.write_group = 1 + (seed % 64) as u32;
        let r = Zos::new(&sc).run_checked(3001);
        proptest::prop_assert!(r.is_ok(), "{:?}", r.err());
    }
}

#[test]
fn vio_pages_out_to_page_data_sets_only_in_a_whole_run() {
    // A batch of 2 GB (1 GB of it VIO) in 1 GB of real storage: once the
    // online pages are out, RSM steals the batch's own oldest pages, its VIO
    // first. With SCM (ALL) and without, VIO goes to the page data sets only
    // while other pages go to SCM.
    for (v, paths) in [("ALL", false), ("NONE", false), ("ALL", true)] {
        let text = if paths {
            paths_text(2, 2, 800)
        } else {
            SMALL.to_string()
        };
        let text = text
            .replace("pagescm = \"ALL\"", &format!("pagescm = \"{v}\""))
            .replace(
                "size = \"512M\"\nvio = \"64M\"",
                "size = \"2G\"\nvio = \"1G\"",
            );
        let sc = ZosScenario::from_toml(&text, "vio.toml").unwrap_or_else(|e| panic!("{e}"));
        let t = Zos::new(&sc).run_checked(4999).unwrap().totals;
        assert!(t.pageout_vio_dasd > 0, "{v}: VIO must page out: {t:?}");
        assert_eq!(t.pageout_vio_scm, 0, "{v}: {t:?}");
        if v == "ALL" {
            assert!(t.pageout_scm > 0, "{v}: other pages to SCM: {t:?}");
        }
    }
}
