//! The Linux component in whole runs: APPLDATA written for the guests that
//! ask for it, read back through the reader as the kernel's structs; the
//! memory model fed by the workload; bad `linux` tables refused with their
//! place.

use crate::model::monitor;
use crate::model::Twin;
use crate::scenario::Scenario;
use ztwin_monitor::appldata::{Appldata, Kind, OS_CPU};
use ztwin_monitor::layout::{decode_field_ref, ValueRef};
use ztwin_monitor::Reader;

/// Two Linux guests (one with appldata, swap on a VDISK and a DASD) and a
/// guest without Linux.
const LINUX: &str = r#"
[scenario]
duration = "3m"
[system]
processors = 2
central_storage = "512M"
[monitor]
sample_interval = "60s"
[[paging]]
device_type = "3390-3"
count = 2
first_address = "7900"
volser_prefix = "PG"
[[dasd]]
device_type = "3390-9"
count = 1
first_address = "6000"
volser_prefix = "LX"
[[guest]]
userid = "LNXA"
virtual_storage = "128M"
virtual_cpus = 2
vdisk = [{ vdev = "0300", size = "64M" }]
workload = { type = "thrasher", area = "120M", pattern = "serial", touch = "write", cpu_per_touch_us = 20.0, fill_rate = 2000 }
linux = { appldata = true, kernel = "32M", swap = [{ device = "vdisk", vdev = "0300", priority = 10 }, { device = "dasd", volume = "6000", size = "256M", priority = 1 }] }
[[guest]]
userid = "LNXB"
virtual_storage = "128M"
workload = { type = "thrasher", area = "40M", pattern = "serial", touch = "write", cpu_per_touch_us = 20.0 }
linux = { kernel = "32M" }
[[guest]]
userid = "CMS"
virtual_storage = "32M"
workload = { type = "thrasher", area = "8M", pattern = "serial", cpu_per_touch_us = 5.0 }
"#;

fn run(text: &str) -> (Vec<u8>, Twin) {
    let sc = Scenario::from_toml(text, "linux.toml").unwrap();
    let mut twin = Twin::new(&sc, 7, None);
    let start = ztwin_monitor::tod::parse_iso8601(&sc.scenario.start).unwrap();
    let mut emit = monitor::Emitter::new(Vec::new(), start, sc.release());
    twin.run(&mut emit, &mut |_, _| true).unwrap();
    (emit.finish().unwrap(), twin)
}

fn u(v: Option<ValueRef<'_>>) -> u64 {
    match v {
        Some(ValueRef::U(x) | ValueRef::Tod(x)) => x,
        other => panic!("{other:?}"),
    }
}

#[test]
fn appldata_records_round_trip_for_the_guests_that_ask() {
    let (bytes, twin) = run(LINUX);
    let mut r = Reader::new(std::io::Cursor::new(bytes)).unwrap();
    let mut seen = Vec::new();
    while let Some(rec) = r.next_record().unwrap() {
        if rec.header.domain != 10 {
            continue;
        }
        let l = rec.layout.expect("MRAPLSDT is known");
        assert_eq!(l.name, "MRAPLSDT");
        let a = Appldata::parse(rec.bytes, l).unwrap();
        assert_eq!(a.check(), None, "the data is the kernel's size");
        assert!(a.consistent());
        let get = |n: &str| u(a.fields().find(|(f, _)| f.name == n).unwrap().1);
        let user = match decode_field_ref(rec.bytes, l.f("APLSDT_USERID")) {
            Some(ValueRef::Text(t)) => t.decode().trim_end().to_string(),
            v => panic!("{v:?}"),
        };
        assert_eq!(user, "LNXA", "only the guest with appldata = true");
        assert_eq!(get("timestamp"), rec.header.tod);
        match a.kind.unwrap() {
            Kind::Mem => {
                assert_eq!(get("totalram"), 128 * 1024);
                let free = get("freeram");
                let cached = get("cached");
                assert!(free + cached <= 96 * 1024);
                // Swap: the 64M VDISK and the 256M DASD.
                assert_eq!(get("totalswap"), 320 * 1024);
                assert!(get("freeswap") <= 320 * 1024);
                assert!(get("pgfault") >= get("pgmajfault"));
            }
            Kind::Os => {
                assert_eq!(get("nr_cpus"), 2);
                let cpus: Vec<_> = a.cpu_entries().collect();
                assert_eq!(cpus.len(), 2);
                for (i, e) in cpus.iter().enumerate() {
                    assert_eq!(u(decode_field_ref(e, &OS_CPU[8])), i as u64, "cpu_id");
                }
            }
            Kind::NetSum => assert_eq!(get("nr_interfaces"), 1),
        }
        seen.push((rec.header.tod, a.kind.unwrap()));
    }
    // Three samples (1, 2, 3 minutes), three records each.
    assert_eq!(seen.len(), 9, "{seen:?}");
    // The busy guest's memory: 120M of anonymous memory does not fit in
    // 96M, so Linux swapped, to the VDISK first (priority 10).
    let x = twin.model.linux.guest(0).unwrap();
    let s = twin.model.linux.sample(0).unwrap();
    assert!(s.c.pswpout > 0, "{:?}", s.c);
    assert!(s.c.pgscank + s.c.pgscand > 0);
    let _ = x;
    // The guest without appldata has its model too; CMS has none.
    assert!(twin.model.linux.sample(1).is_some());
    assert!(twin.model.linux.sample(2).is_none());
}

#[test]
fn bad_linux_tables_name_their_place() {
    let bad = |from: &str, to: &str| {
        let text = LINUX.replacen(from, to, 1);
        Scenario::from_toml(&text, "linux.toml")
            .and_then(|s| s.validate("linux.toml").map(|_| s))
            .err()
            .unwrap_or_else(|| panic!("{to} accepted"))
            .to_string()
    };
    let e = bad(r#"vdev = "0300", priority"#, r#"vdev = "0301", priority"#);
    assert!(
        e.contains("guest[0] (LNXA).linux.swap[0].vdev") && e.contains("no VDISK 0301"),
        "{e}"
    );
    let e = bad(r#"kernel = "32M" }"#, r#"kernel = "120M" }"#);
    assert!(
        e.contains("guest[1] (LNXB).linux.kernel") && e.contains("smaller than the kernel needs"),
        "{e}"
    );
    let e = bad(
        r#"{ device = "dasd", volume = "6000", size = "256M", priority = 1 }"#,
        r#"{ device = "dcss", segment = "SWAPSEG" }"#,
    );
    assert!(
        e.contains("linux.swap[1].segment") && e.contains("SWAPSEG"),
        "{e}"
    );
    let e = bad(
        r#"{ device = "dasd", volume = "6000", size = "256M", priority = 1 }"#,
        r#"{ device = "dasd", volume = "6000" }"#,
    );
    assert!(e.contains("linux.swap[1].size"), "{e}");
    let e = bad(
        r#"{ device = "dasd", volume = "6000", size = "256M", priority = 1 }"#,
        r#"{ device = "tape", size = "1G" }"#,
    );
    assert!(e.contains("tape"), "{e}");
}

#[test]
fn swapon_fails_on_a_vdisk_cp_refused() {
    // SYSLIM below the guest's 64M VDISK: CP does not define it at logon, so
    // Linux swaps to the DASD device only.
    let text = LINUX.replacen("[monitor]", "[vdisk]\nsyslim = \"32M\"\n[monitor]", 1);
    let (_, twin) = run(&text);
    let s = twin.model.linux.sample(0).unwrap();
    assert_eq!(
        s.usage.swap_total,
        (256 << 20) / 4096,
        "only the DASD device"
    );
    assert!(s.c.pswpout > 0);
    let (_, twin) = run(LINUX);
    let s = twin.model.linux.sample(0).unwrap();
    assert_eq!(s.usage.swap_total, (320 << 20) / 4096);
}

#[test]
fn logoff_writes_the_buffers_as_mrapledt_and_logon_ipls_afresh() {
    let text = format!(
        "{LINUX}\n[[timeline]]\nat = \"150s\"\naction = \"logoff\"\nguest = \"LNXA\"\n\
         [[timeline]]\nat = \"170s\"\naction = \"logon\"\nguest = \"LNXA\"\n"
    );
    let (bytes, twin) = run(&text);
    let mut r = Reader::new(std::io::Cursor::new(bytes)).unwrap();
    let (mut sdt, mut edt) = (Vec::new(), Vec::new());
    while let Some(rec) = r.next_record().unwrap() {
        if rec.header.domain != 10 {
            continue;
        }
        let l = rec.layout.unwrap();
        let a = Appldata::parse(rec.bytes, l).unwrap();
        assert_eq!(a.check(), None);
        let sync = u(a
            .fields()
            .find(|(f, _)| f.name == "sync_count_1")
            .unwrap()
            .1);
        match l.name {
            "MRAPLSDT" => sdt.push((rec.header.tod, a.kind.unwrap(), sync)),
            "MRAPLEDT" => edt.push((rec.header.tod, a.kind.unwrap(), sync, rec.set_kind)),
            n => panic!("{n}"),
        }
    }
    // Samples at 1 and 2 minutes; logged off at the third (2:30 to 2:50):
    // at 3 minutes logged on again, its buffers restarted (sync count 1).
    assert_eq!(sdt.len(), 9, "{sdt:?}");
    assert_eq!(edt.len(), 3, "{edt:?}");
    for &(_, _, sync, kind) in &edt {
        assert_eq!(sync, 2, "the buffers as the second sample filled them");
        assert_eq!(kind, ztwin_monitor::SetKind::Event);
    }
    assert!(sdt[6..].iter().all(|&(_, _, sync)| sync == 1), "{sdt:?}");
    assert!(twin.model.linux.sample(0).unwrap().sync == 1);
}

#[test]
fn a_working_set_that_fits_swaps_less_than_a_serial_sweep() {
    // About 100 references a second per virtual CPU, for 8 minutes: fewer
    // per interval than the area has pages.
    let slow = LINUX.replacen(r#"duration = "3m""#, r#"duration = "8m""#, 1).replacen(
        r#"pattern = "serial", touch = "write", cpu_per_touch_us = 20.0, fill_rate = 2000"#,
        r#"pattern = "serial", touch = "write", cpu_per_touch_us = 20.0, burst_touches = 10, think = "100ms""#,
        1,
    );
    let ws = slow.replacen(
        r#"pattern = "serial""#,
        r#"pattern = "working_set", hot_fraction = 0.3, hot_share = 0.95"#,
        1,
    );
    assert_ne!(ws, slow);
    let serial = run(&slow).1.model.linux.sample(0).unwrap();
    let ws = run(&ws).1.model.linux.sample(0).unwrap();
    // Both outgrow Linux's 96M once the whole area is in use; the working
    // set's hot 36M stay referenced and resident, its cold pages are reused
    // rarely, while a serial sweep always comes back to the page reclaimed
    // longest ago.
    assert!(serial.c.pswpin > 0, "{:?}", serial.c);
    assert!(
        ws.c.pswpin * 2 < serial.c.pswpin,
        "working set {:?}, serial {:?}",
        ws.c,
        serial.c
    );
}

/// One Linux guest of 128M (kernel 32M) whose processes touch 160M serially
/// (writes), with `swap` (a `linux` swap list) and `extra` guest keys; CP
/// has `central` storage and two paging volumes.
fn swapper(central: &str, swap: &str, extra: &str) -> String {
    format!(
        r#"
[scenario]
duration = "2m"
[system]
processors = 2
central_storage = "{central}"
[monitor]
sample_interval = "60s"
[[paging]]
device_type = "3390-3"
count = 2
first_address = "7900"
volser_prefix = "PG"
[[dasd]]
device_type = "3390-9"
count = 1
first_address = "6000"
volser_prefix = "LX"
[[spool]]
device_type = "3390-9"
first_address = "0400"
volser_prefix = "SPL"
[[segment]]
defseg = "SWAPPING 62F400-6373FF SN"
[[guest]]
userid = "LNX"
virtual_storage = "128M"
{extra}
workload = {{ type = "thrasher", area = "160M", pattern = "serial", touch = "write", cpu_per_touch_us = 10.0 }}
linux = {{ appldata = true, kernel = "32M", swap = [{swap}] }}
"#
    )
}

struct Swapped {
    c: crate::model::linux::mem::Counters,
    rt: crate::model::linux::Runtime,
    vio: u64,
    dasd_ssch: u64,
    vdisk_ios: u64,
    faults: u64,
}

fn run_swapper(text: &str) -> Swapped {
    let (_, twin) = run(text);
    let m = &twin.model;
    let x = m.linux.guest(0).unwrap();
    x.mem().check().unwrap();
    let vol = m.io.by_devno(0x6000).unwrap();
    Swapped {
        c: x.mem().c,
        rt: x.rt.clone(),
        vio: m.cpu.vcpus(0).map(|v| v.vio).sum(),
        dasd_ssch: m.io.device(vol).c.ssch,
        vdisk_ios: m.vdisk.disks().iter().map(|d| d.c.ios).sum(),
        faults: m.st.guest(0).faults,
    }
}

#[test]
fn swap_goes_through_each_devices_path() {
    let vdisk = run_swapper(&swapper(
        "1G",
        r#"{ device = "vdisk", vdev = "0300" }"#,
        r#"vdisk = [{ vdev = "0300", size = "256M" }]"#,
    ));
    let dasd = run_swapper(&swapper(
        "1G",
        r#"{ device = "dasd", volume = "6000", size = "256M" }"#,
        "",
    ));
    let dcss = run_swapper(&swapper(
        "1G",
        r#"{ device = "dcss", segment = "SWAPPING" }"#,
        "",
    ));
    // (Without swap the processes may ask for at most the guest's storage.)
    let none = run_swapper(&swapper("1G", "", "").replacen("160M", "120M", 1));
    for (name, s) in [("vdisk", &vdisk), ("dasd", &dasd), ("dcss", &dcss)] {
        assert!(s.c.pswpout > 1000 && s.c.pswpin > 1000, "{name}: {:?}", s.c);
        assert_eq!(s.rt.double_paging, 0, "{name}: CP has every page resident");
    }
    // VDISK: CP's DIAG copies, one per request, counted as the user's
    // virtual I/O; no real I/O.
    assert!(vdisk.vdisk_ios > 0 && vdisk.dasd_ssch == 0);
    assert_eq!(vdisk.vdisk_ios, vdisk.rt.swap_ios[0] + vdisk.rt.swap_ios[1]);
    assert_eq!(vdisk.vio, vdisk.vdisk_ios);
    // DASD: a real SSCH per request on the minidisk's volume.
    assert_eq!(dasd.dasd_ssch, dasd.rt.swap_ios[0] + dasd.rt.swap_ios[1]);
    assert_eq!(dasd.vio, dasd.dasd_ssch);
    // Writes are batched (up to 32 pages), reads one page each.
    assert_eq!(dasd.rt.swap_ios[0], dasd.c.pswpin);
    assert!(dasd.rt.swap_ios[1] * 4 < dasd.c.pswpout, "{:?}", dasd.rt);
    // DCSS: no I/O at all, only Linux's CPU.
    assert_eq!((dcss.vio, dcss.dasd_ssch, dcss.vdisk_ios), (0, 0, 0));
    assert!(dcss.rt.sys.iter().sum::<u64>() > 0);
    // No swap device: nothing swapped, the processes' pages that do not fit
    // are never given memory.
    assert_eq!((none.c.pswpout, none.vio), (0, 0));
    assert!(none.rt.oom > 0);
}

#[test]
fn double_paging_when_cp_paged_out_what_linux_swaps() {
    // CP's 256M cannot hold the 128M guest and a 256M one: pages Linux picks to swap out
    // (its least recently used) are the ones CP paged out too.
    let swap = r#"{ device = "dasd", volume = "6000", size = "256M" }"#;
    let hog = "[[guest]]\nuserid = \"HOG\"\nvirtual_storage = \"256M\"\n\
               workload = { type = \"thrasher\", area = \"250M\", pattern = \"random\", cpu_per_touch_us = 5.0 }";
    let tight = run_swapper(&format!("{}{hog}\n", swapper("256M", swap, "")));
    assert!(tight.rt.double_paging > 100, "{:?}", tight.rt);
    // Each is a CP page fault of the user's (with its other faults).
    assert!(
        tight.faults >= tight.rt.double_paging,
        "{} faults",
        tight.faults
    );
    let roomy = run_swapper(&swapper("1G", swap, ""));
    assert_eq!(roomy.rt.double_paging, 0);
}

mod engine_props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]
        /// Whole runs: Linux's pages stay conserved (kernel, free, cache,
        /// anonymous in memory, swapped) with no page both in swap and in
        /// memory, whatever the device and the pressure; with CP storage for
        /// everything, nothing is double paged.
        #[test]
        fn linux_in_whole_runs(area in 100u32..220, kind in 0usize..3, random in any::<bool>()) {
            let swap = [
                r#"{ device = "vdisk", vdev = "0300" }"#,
                r#"{ device = "dasd", volume = "6000", size = "256M" }"#,
                r#"{ device = "dcss", segment = "SWAPPING" }"#,
            ][kind];
            let pattern = if random { "random" } else { "serial" };
            let text = swapper("1G", swap, r#"vdisk = [{ vdev = "0300", size = "256M" }]"#)
                .replacen(r#"duration = "2m""#, r#"duration = "20s""#, 1)
                .replacen(r#"sample_interval = "60s""#, r#"sample_interval = "10s""#, 1)
                .replacen(r#"area = "160M", pattern = "serial""#, &format!(r#"area = "{area}M", pattern = "{pattern}""#), 1);
            let (_, twin) = run(&text);
            let x = twin.model.linux.guest(0).unwrap();
            prop_assert_eq!(x.mem().check(), Ok(()));
            let u = x.mem().usage();
            prop_assert_eq!(u.kernel + u.free + u.cache + u.anon, u.total);
            prop_assert!(u.swapped <= u.swap_total);
            prop_assert_eq!(x.rt.double_paging, 0);
            // Swap writes were all done (the guest waits for them): what is
            // left is at most one allocation's reclaim, which kswapd takes
            // from below `low` up to `high` at once (area 191M random on the
            // VDISK ends with 91 = high - low pages queued).
            prop_assert!(x.mem().out.len() <= x.mem().wmark_high);
        }
    }
}
