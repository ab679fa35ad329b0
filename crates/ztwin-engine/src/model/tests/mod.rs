//! Whole-run tests: a scenario run end to end, the model inspected after.
use super::*;
use crate::scenario::Scenario;

/// Random touchers that page, small enough for a unit test.
const PAGING: &str = r#"
[scenario]
duration = "40s"
[system]
processors = 2
central_storage = "256M"
xstor = "64M"
[monitor]
sample_interval = "10s"
[[paging]]
device_type = "3390-3"
count = 4
first_address = "7900"
volser_prefix = "PG"
[[guest]]
userid = "LNX"
count = 3
virtual_storage = "256M"
workload = { type = "thrasher", area = "160M", pattern = "working_set", hot_fraction = 0.2, hot_share = 0.8, warm_fraction = 0.3, warm_share = 0.15, touch = "write", cpu_per_touch_us = 5.0, burst_touches = 40, think = "20ms" }
[[guest]]
userid = "RND"
virtual_storage = "128M"
workload = { type = "thrasher", area = "100M", pattern = "random", touch = "read", cpu_per_touch_us = 2.0, prefill = true }
"#;

/// A guest that logs off while it pages leaves nothing behind: no frame,
/// no XSTOR block, no slot, and no XSTOR block freed twice (I/O in flight
/// at logoff is cleaned up when it completes).
#[test]
fn logoff_while_paging_frees_everything_once() {
    // A small XSTOR, so migrations are in flight when the guests leave.
    let text = format!(
        "{}\n[[timeline]]\nat = \"25s\"\naction = \"logoff\"\nguest = \"LNX*\"\n",
        PAGING.replace("xstor = \"64M\"", "xstor = \"8M\"")
    );
    let sc = Scenario::from_toml(&text, "logoff.toml").unwrap();
    let (_, twin) = run(&sc, 3, false);
    let m = &twin.model;
    let st = m.st.sample(twin.core.now);
    // (about 500: with M2 stolen pages fill XSTOR to its last block first)
    assert!(st.c.migrated > 300, "{st:?}");
    // Frames, XSTOR blocks, slots and page tables agree (each XSTOR block in
    // use belongs to the page that points to it, and back; none free twice).
    m.check();
    // The check counts frames and XSTOR blocks by owner against these.
    let off: Vec<u32> = (0..m.cpu.guest_count())
        .filter(|&g| !m.cpu.logged_on(g))
        .collect();
    assert_eq!(off.len(), 3);
    for &g in &off {
        let sp = m.st.space(g);
        let id = m.cpu.guest(g).userid;
        assert_eq!((sp.resident, sp.xstor, sp.dasd), (0, 0, 0), "{id}");
    }
    // Their slots are free too: the used ones are exactly the live pages
    // of the others' blocks (checked above).
    let pg = m.pg.sample();
    let on_dasd: u32 = (0..m.cpu.guest_count()).map(|g| m.st.space(g).dasd).sum();
    assert!(pg.used_slots >= on_dasd as u64, "{pg:?}");
}

/// Run `sc` with `seed`, prefetching or not: the MONWRITE bytes and the
/// model at the end.
fn run(sc: &Scenario, seed: u64, lookahead: bool) -> (Vec<u8>, Twin) {
    run_with(sc, seed, |t| t.model.work.lookahead = lookahead)
}

/// Run `sc` with `seed` after `set` adjusts the model.
fn run_with(sc: &Scenario, seed: u64, set: impl FnOnce(&mut Twin)) -> (Vec<u8>, Twin) {
    let mut twin = Twin::new(sc, seed, None);
    set(&mut twin);
    let start = ztwin_monitor::tod::parse_iso8601(&sc.scenario.start).unwrap();
    let mut emit = monitor::Emitter::new(Vec::new(), start, sc.release());
    twin.run(&mut emit, &mut |_, _| true).unwrap();
    (emit.finish().unwrap(), twin)
}

/// Prefetching ahead of random touchers is for speed only: the MONWRITE
/// file is the same byte for byte with and without it.
#[test]
fn lookahead_changes_nothing_but_speed() {
    let sc = Scenario::from_toml(PAGING, "paging.toml").unwrap();
    let (plain, a) = run(&sc, 11, false);
    let (ahead, b) = run(&sc, 11, true);
    assert!(a.refs() > 100_000, "the guests touch pages ({})", a.refs());
    assert_eq!(a.refs(), b.refs());
    assert!(plain == ahead, "lookahead changed the MONWRITE file");
    // The scenario pages, so faults interrupt the lookahead.
    let (pg, st) = (a.model.pg.sample(), a.model.st.sample(a.core.now));
    assert!(pg.c.pages_read + st.c.xstor_in > 1000, "{pg:?} {st:?}");
    let (other_seed, _) = run(&sc, 12, true);
    assert!(other_seed != plain, "another seed gives another file");
}

/// A block read with frames to spare takes them without checking for a
/// demand scan before each page (`paging::Model::start_block_read`): the MONWRITE file is the same
/// byte for byte as when every page takes its frame through `get_frame`.
/// The scenario has both cases: reads while storage fills, and reads
/// while the demand scan keeps the available list near its threshold.
#[test]
fn unscanned_block_reads_change_nothing_but_speed() {
    let sc = Scenario::from_toml(PAGING, "paging.toml").unwrap();
    let (per_page, a) = run_with(&sc, 5, |t| t.model.pg.unscanned_reads = false);
    let (unscanned, b) = run_with(&sc, 5, |_| {});
    assert_eq!(a.model.pg.unscanned_read_count, 0);
    let reads = b.model.pg.volumes().map(|v| v.c.ssch_rd).sum::<u64>();
    let unscanned_reads = b.model.pg.unscanned_read_count;
    assert!(
        // (13 per-page reads with M2's scan, which stops once its page-outs
        // cover its target: fewer scans run with the list near its threshold)
        unscanned_reads > 1000 && unscanned_reads + 10 < reads,
        "both kinds of read: {unscanned_reads} of {reads} unscanned"
    );
    let st = b.model.st.sample(b.core.now);
    assert!(st.c.scans > 10, "{st:?}");
    assert!(
        per_page == unscanned,
        "the unscanned loop changed the MONWRITE file"
    );
}

/// Saved segments end to end: DEFSEG and SAVESEG from a CMS user (CP runs
/// one at a time), a Linux guest loading the SR segment (read from spool) and
/// a second guest loading it at once (the shared copy is resident), an SN
/// segment saved with almost no spool I/O, errors as CP messages, and
/// everything given back when the users leave.
const DCSS: &str = r#"
[scenario]
duration = "300s"
[system]
processors = 2
central_storage = "1G"
[monitor]
sample_interval = "60s"
[[paging]]
device_type = "3390-9"
first_address = "7900"
volser_prefix = "PG"
[[spool]]
device_type = "3390-9"
count = 2
first_address = "0800"
volser_prefix = "SPL"
service = { pending_ms = 0.1, disconnect_ms = 0.0, connect_ms_per_io = 0.2, connect_ms_per_page = 0.1, jitter = 0.0 }
[[guest]]
userid = "CMSUSER"
virtual_storage = "1G"
[[guest]]
userid = "LNX"
count = 2
virtual_storage = "512M"
[[timeline]]
at = "1s"
action = "cp"
guest = "CMSUSER"
command = "defseg DCSSR 20000-27FFF sr loadnshr"
[[timeline]]
at = "1s"
action = "cp"
guest = "CMSUSER"
command = "saveseg dcssr"
[[timeline]]
at = "1s"
action = "cp"
guest = "CMSUSER"
command = "defseg DCSSN 20000-27FFF sn"
[[timeline]]
at = "1s"
action = "cp"
guest = "CMSUSER"
command = "saveseg dcssn"
[[timeline]]
at = "2s"
action = "cp"
command = "saveseg nosuch"
[[timeline]]
at = "60s"
action = "diag64"
guest = "LNX1"
command = "loadshr DCSSR"
[[timeline]]
at = "120s"
action = "diag64"
guest = "LNX2"
command = "loadshr DCSSR"
[[timeline]]
at = "121s"
action = "cp"
command = "q nss name dcssr map"
[[timeline]]
at = "122s"
action = "cp"
command = "query alloc spool"
[[timeline]]
at = "200s"
action = "logoff"
guest = "LNX*"
"#;

#[test]
fn dcss_save_load_share_and_release() {
    let sc = Scenario::from_toml(DCSS, "dcss.toml").unwrap();
    let mut out = Vec::new();
    let summary = crate::run_to_writer(&sc, None, None, &mut out, &mut |_, _| true).unwrap();
    let con = summary.console.join("\n");
    let at = |needle: &str| -> f64 {
        let l = summary
            .console
            .iter()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle} not in\n{con}"));
        let t = &l[..12];
        let (h, rest) = t.split_once(':').unwrap();
        let (m, s) = rest.split_once(':').unwrap();
        h.parse::<f64>().unwrap() * 3600.0
            + m.parse::<f64>().unwrap() * 60.0
            + s.parse::<f64>().unwrap()
    };
    // 32,768 saved pages + the descriptor page, one page per I/O at 0.4 ms:
    // about 13.1 s, one I/O at a time.
    let saved_r = at("Saved segment DCSSR was successfully saved");
    assert!(
        (saved_r - 1.0 - 32769.0 * 0.0004).abs() < 0.05,
        "{saved_r}\n{con}"
    );
    // The second DEFSEG waited for the SAVESEG, and the SN save writes only
    // its descriptor page.
    let saved_n = at("Saved segment DCSSN was successfully saved");
    assert!(
        saved_n > saved_r && saved_n - saved_r < 0.01,
        "{saved_n}\n{con}"
    );
    assert!(con.contains("OPERATOR > saveseg nosuch"), "{con}");
    assert!(
        con.contains("HCP1364E Saved segment NOSUCH cannot be saved: it is not defined"),
        "{con}"
    );
    // The first load reads the segment from spool; the second is immediate.
    let lines: Vec<&String> = summary
        .console
        .iter()
        .filter(|l| l.contains("RC=0 segment DCSSR loaded"))
        .collect();
    assert_eq!(lines.len(), 2, "{con}");
    assert!(
        lines[0].contains("LNX1") && lines[1].contains("LNX2"),
        "{con}"
    );
    let t1 = at("LNX1     RC=0 segment DCSSR loaded");
    assert!((t1 - 60.0 - 32768.0 * 0.0004).abs() < 0.05, "{t1}\n{con}");
    let t2 = at("LNX2     RC=0 segment DCSSR loaded");
    assert_eq!(t2, 120.0, "{con}");
    assert!(
        con.contains("DCSSR    DCSS     N/A      00020000 00027FFF SR   A  00002"),
        "{con}"
    );
    assert!(con.contains("SPL1   0800"), "{con}");
    // Everything given back at logoff: the spool keeps the two files.
    let twin_frames = summary.console.len();
    assert!(twin_frames > 0);
}

/// The shared copy counts once in storage however many guests load it.
#[test]
fn shared_segment_frames_counted_once_in_storage() {
    let text = DCSS.replace("at = \"200s\"", "at = \"290s\"");
    let sc = Scenario::from_toml(&text, "dcss.toml").unwrap();
    let mut twin = Twin::new(&sc, 1, Some(250 * crate::core::units::SEC));
    let mut out = Vec::new();
    let mut emit = monitor::Emitter::new(&mut out, 0, sc.release());
    twin.run(&mut emit, &mut |_, _| true).unwrap();
    let m = &twin.model;
    m.check();
    assert_eq!(
        m.st.segment_frames(),
        32768,
        "one frame per shared page for two users"
    );
    let s = m.seg.sdfs().find(|s| s.def.name == "DCSSR").unwrap();
    assert_eq!((s.users, s.shared_resident), (2, 32768));
}

/// Bad commands in a scenario are errors naming the entry and its line.
#[test]
fn bad_cp_commands_name_the_line() {
    for (bad, reason) in [
        (
            "defseg DCSSR 20000-27FFF sr loadnshr",
            "defseg X 20000-27FFF sr 27000-28FFF sr",
        ),
        ("saveseg dcssr", "saveseg"),
        ("loadshr DCSSR", "loadit DCSSR"),
    ] {
        let text = DCSS.replacen(bad, reason, 1);
        let e = Scenario::from_toml(&text, "x.toml").unwrap_err();
        assert!(e.line.is_some(), "{e}");
        assert!(e.place.contains("].command"), "{e}");
    }
    let e = Scenario::from_toml(
        &DCSS.replacen("defseg DCSSR 20000-27FFF", "defseg DCSSR 20000-8000000", 1),
        "x.toml",
    )
    .unwrap_err();
    assert!(e.reason.contains("above 512 GB"), "{e}");
    assert_eq!(
        (e.line, e.place.as_str()),
        (Some(30), "timeline[0].command"),
        "{e}"
    );
}

/// The saved-segment and spool records of the DCSS run: the events in the
/// order they happened, STOSHR with the shared copy counted once, SYTSHS, the
/// spool volumes in STOASP (SPOOL slots) and MTRPAG ('SPOL'), spool totals in
/// SYTASG.
#[test]
fn dcss_run_writes_segment_and_spool_records() {
    use ztwin_monitor::layout::{by_name, decode_field, Value};
    use ztwin_monitor::Reader;
    let sc = Scenario::from_toml(DCSS, "dcss.toml").unwrap();
    let mut out = Vec::new();
    crate::run_to_writer(&sc, None, None, &mut out, &mut |_, _| true).unwrap();
    let mut r = Reader::new(std::io::Cursor::new(&out)).unwrap();
    let mut recs: Vec<(String, Vec<u8>)> = Vec::new();
    while let Some(rec) = r.next_record().unwrap() {
        let (d, n) = (rec.header.domain, rec.header.record);
        if let Some(l) = ztwin_monitor::layout::lookup(d, n, ztwin_monitor::layout::DEFAULT_RELEASE)
        {
            recs.push((l.name.to_string(), rec.bytes.to_vec()));
        }
    }
    let get = |name: &str, bytes: &[u8], f: &str| -> Value {
        decode_field(bytes, by_name(name).unwrap().f(f)).unwrap()
    };
    let text = |v: Value| match v {
        Value::Text(s) => s.trim().to_string(),
        v => panic!("{v:?}"),
    };
    let u = |v: Value| match v {
        Value::U(x) => x,
        Value::I(x) => x as u64,
        v => panic!("{v:?}"),
    };
    // Events: DCSSR saved, DCSSN saved, DCSSR loaded by LNX1 (its first user),
    // removed when the last of LNX1 and LNX2 logs off.
    let events: Vec<(String, String)> = recs
        .iter()
        .filter(|(n, _)| ["MRSTOSHS", "MRSTOSHL", "MRSTOSHD"].contains(&n.as_str()))
        .map(|(n, b)| (n.clone(), text(get(n, b, &format!("{}_SDFFN", &n[2..])))))
        .collect();
    let want = [
        ("MRSTOSHS", "DCSSR"),
        ("MRSTOSHS", "DCSSN"),
        ("MRSTOSHL", "DCSSR"),
        ("MRSTOSHD", "DCSSR"),
    ];
    assert_eq!(
        events,
        want.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect::<Vec<_>>()
    );
    // STOSHR: the interval after the second load shows two shared users and
    // the 32,768 resident pages once.
    let shr: Vec<(String, u64, u64)> = recs
        .iter()
        .filter(|(n, _)| n == "MRSTOSHR")
        .map(|(n, b)| {
            (
                text(get(n, b, "STOSHR_SNTNAME")),
                u(get(n, b, "STOSHR_SNTUSRSH")),
                u(get(n, b, "STOSHR_ASCCTPRS")),
            )
        })
        .collect();
    assert!(shr.contains(&("DCSSR".into(), 2, 32768)), "{shr:?}");
    assert!(shr.contains(&("DCSSN".into(), 0, 0)), "{shr:?}");
    let shs: Vec<u64> = recs
        .iter()
        .filter(|(n, _)| n == "MRSYTSHS")
        .map(|(n, b)| u(get(n, b, "SYTSHS_RSASHARE")))
        .collect();
    assert_eq!(shs.iter().max(), Some(&32768), "{shs:?}");
    // Spool: two volumes, 32,770 pages in use in all, written once and read once.
    let asp: Vec<(u64, u64, u64, u64)> = recs
        .iter()
        .filter(|(n, b)| n == "MRSTOASP" && u(get(n, b, "STOASP_CALSPOOL")) > 0)
        .map(|(n, b)| {
            (
                u(get(n, b, "STOASP_RDEVDEV")),
                u(get(n, b, "STOASP_CPVALOCD")),
                u(get(n, b, "STOASP_EXPCTPWR")),
                u(get(n, b, "STOASP_EXPCTPRD")),
            )
        })
        .collect();
    let last: Vec<_> = asp[asp.len() - 2..].to_vec();
    assert_eq!(
        last.iter().map(|a| a.0).collect::<Vec<_>>(),
        [0x0800, 0x0801]
    );
    assert_eq!(last.iter().map(|a| a.1).sum::<u64>(), 32770);
    assert_eq!(last.iter().map(|a| a.2).sum::<u64>(), 32770);
    assert_eq!(last.iter().map(|a| a.3).sum::<u64>(), 32768);
    let spol = recs
        .iter()
        .filter(|(n, b)| n == "MRMTRPAG" && text(get(n, b, "MTRPAG_CALTYPE")) == "SPOL")
        .count();
    assert_eq!(spol, 2);
    let asg = recs.iter().rev().find(|(n, _)| n == "MRSYTASG").unwrap();
    assert_eq!(u(get("MRSYTASG", &asg.1, "SYTASG_CALSLTI2")), 32770);
    assert_eq!(u(get("MRSYTASG", &asg.1, "SYTASG_SYSSFCRT")), 2);
}

/// `[spool_options] write_page_us`: each page saved costs CP's work before
/// its write, one after the other; loads are not paced.
#[test]
fn saveseg_pays_cp_time_per_page_before_each_write() {
    let text = DCSS.replace(
        "[[guest]]\nuserid = \"CMSUSER\"",
        "[spool_options]\nwrite_page_us = 100.0\n[[guest]]\nuserid = \"CMSUSER\"",
    );
    let sc = Scenario::from_toml(&text, "dcss.toml").unwrap();
    let mut out = Vec::new();
    let s = crate::run_to_writer(&sc, None, None, &mut out, &mut |_, _| true).unwrap();
    let t = |needle: &str| -> f64 {
        let l = s.console.iter().find(|l| l.contains(needle)).unwrap();
        let (h, rest) = l[..12].split_once(':').unwrap();
        let (m, sec) = rest.split_once(':').unwrap();
        h.parse::<f64>().unwrap() * 3600.0
            + m.parse::<f64>().unwrap() * 60.0
            + sec.parse::<f64>().unwrap()
    };
    // 32,769 pages at 0.4 ms of I/O plus 0.1 ms of CP time each.
    let saved = t("Saved segment DCSSR was successfully saved");
    assert!((saved - 1.0 - 32769.0 * 0.0005).abs() < 0.05, "{saved}");
    let loaded = t("LNX1     RC=0 segment DCSSR loaded");
    assert!((loaded - 60.0 - 32768.0 * 0.0004).abs() < 0.05, "{loaded}");
}

/// `[[spool]]` and `[[segment]]` refusals name their key (and, for a
/// segment, the line of its table).
#[test]
fn spool_and_segment_sections_check_their_keys() {
    let base = DCSS.replace(
        "[[guest]]\nuserid = \"CMSUSER\"",
        "[[segment]]\ndefseg = \"PRE 20000-200FF SR\"\n[[guest]]\nuserid = \"CMSUSER\"",
    );
    let sc = Scenario::from_toml(&base, "x.toml").unwrap();
    assert_eq!(sc.segments.len(), 1);
    for (from, to, place, reason) in [
        (
            "first_address = \"0800\"",
            "first_address = \"7900\"",
            "spool[0].first_address",
            "7900 is defined twice",
        ),
        (
            "volser_prefix = \"PG\"",
            "volser_prefix = \"SPL1\"",
            "spool[0].volser_prefix",
            "'SPL1' is used twice",
        ),
        (
            "volser_prefix = \"SPL\"",
            "volser_prefix = \"SPOOLVOL\"",
            "spool[0].volser_prefix",
            "longer than 6",
        ),
        (
            "defseg = \"PRE 20000-200FF SR\"",
            "defseg = \"PRE 20000-200FF SR 20080-201FF SR\"",
            "segment[0].defseg",
            "overlaps",
        ),
        (
            "defseg = \"PRE 20000-200FF SR\"",
            "defseg = \"PRE 0-7FFFFFF SR\"",
            "segment",
            "spool pages",
        ),
    ] {
        assert!(base.contains(from), "{from}");
        let e = Scenario::from_toml(&base.replacen(from, to, 1), "x.toml").unwrap_err();
        assert_eq!(e.place, place, "{to}: {e}");
        assert!(e.reason.contains(reason), "{to}: {e}");
    }
    // A second [[segment]] of the same name.
    let two = base.replacen(
        "[[guest]]\nuserid = \"CMSUSER\"",
        "[[segment]]\ndefseg = \"PRE 30000-300FF SN\"\n[[guest]]\nuserid = \"CMSUSER\"",
        1,
    );
    let e = Scenario::from_toml(&two, "x.toml").unwrap_err();
    assert!(e.reason.contains("defined twice"), "{e}");
}

/// Logical CPUs come out nearly equally busy, as every published FCX126
/// shows (CP's per-processor dispatch vectors with idle processors taking
/// work from busy ones); the lowest-numbered idle CPU taking all new work
/// gave S2 BEFORE 55 / 38 % and AFTER 48 / 27 / 12 %.
#[test]
fn logical_cpus_share_the_work_evenly() {
    let text = r#"
[scenario]
duration = "60s"
[system]
processors = 3
central_storage = "512M"
[monitor]
sample_interval = "10s"
[[guest]]
userid = "APP"
count = 7
virtual_storage = "64M"
workload = { type = "cpu", utilization = 0.2, burst = "3ms" }
[[guest]]
userid = "ONE"
virtual_storage = "64M"
workload = { type = "cpu", utilization = 0.05, burst = "1ms" }
"#;
    let sc = Scenario::from_toml(text, "balance.toml").unwrap();
    let (_, twin) = run(&sc, 1, false);
    let busy: Vec<f64> = twin
        .model
        .cpu
        .counters()
        .map(|c| (c.emul_ns + c.cp_user_ns + c.sys_ns) as f64 / twin.core.now as f64)
        .collect();
    let mean = busy.iter().sum::<f64>() / busy.len() as f64;
    assert!(mean > 0.4, "{busy:?}");
    for b in &busy {
        assert!((b - mean).abs() < 0.05 * mean, "unbalanced: {busy:?}");
    }
}

/// Issue 17's overcommitted paging scenario (docs/fidelity-over30.toml),
/// 5.5 minutes with 100-ms high-frequency sampling.
const OVER30: &str = r#"
[scenario]
duration = "330s"
[system]
processors = 2
central_storage = "1G"
[monitor]
sample_interval = "30s"
hf_rate = "100ms"
[[paging]]
device_type = "3390-3"
count = 4
first_address = "0A00"
volser_prefix = "PAG"
service = { pending_ms = 0.3, disconnect_ms = 1.0, connect_ms_per_io = 1.0, connect_ms_per_page = 0.3 }
[[guest]]
userid = "LNX"
count = 30
virtual_storage = "1G"
workload = { type = "thrasher", area = "1000M", pattern = "working_set", hot_fraction = 0.3, hot_share = 0.9, touch = "write", cpu_per_touch_us = 20.0, burst_touches = 50, think = "100ms" }
"#;

/// STORBUF and LDUBUF as high as SET SRM allows: no eligible list.
const NO_ADMISSION: &str = "[srm]\nstorbuf = [999, 999, 999]\nldubuf = [999, 999, 999]\n[monitor]";

/// M8 (issue 17, item 4): at 30x overcommitment with the default STORBUF
/// (125/105/95) and LDUBUF, the projected working sets (pages used in a
/// stay, not the resident pages that shrink as frames are stolen) exceed
/// the DPA, so CP holds users in the eligible list; with admission control
/// off the same guests all stay in the dispatch list and page more.
#[test]
fn an_eligible_list_forms_at_30x_overcommitment_with_default_storbuf() {
    let run_with_srm = |srm: &str| {
        let text = OVER30
            .replace("duration = \"330s\"", "duration = \"120s\"")
            .replace("hf_rate = \"100ms\"", "hf_rate = \"1s\"")
            .replace("[monitor]", srm);
        let sc = Scenario::from_toml(&text, "over30.toml").unwrap();
        let (_, twin) = run(&sc, 1, false);
        let m = &twin.model;
        let (mut eligible, mut total) = (0u64, 0u64);
        for g in 0..m.cpu.guest_count() {
            for v in m.cpu.vcpus(g) {
                eligible += v.hf.eligible;
                total += v.hf.total;
            }
        }
        (eligible as f64 / total as f64, m.pg.sample().c.pages_read)
    };
    let (held, read) = run_with_srm("[monitor]");
    let (held_off, read_off) = run_with_srm(NO_ADMISSION);
    assert_eq!(held_off, 0.0, "no admission control, no eligible list");
    assert!(held > 0.1, "{held:.3} of the samples eligible");
    assert!(
        (read as f64) < 0.95 * read_off as f64,
        "pages read {read} with an eligible list, {read_off} without"
    );
}

/// The utilisation law on saturated paging volumes (issue 17, item 4): a
/// volume with requests queued on average is in service (pending +
/// disconnect + connect) nearly all the time, and Little's law holds: the
/// mean queue sampled at high frequency over the I/O rate is the mean wait
/// each I/O had. Before page-out writes were bounded per volume, this
/// scenario's volumes were 70% in service with 60 to 150 requests queued (a
/// demand scan's writes arrived at once, the guests stopped, the volumes went
/// idle).
#[test]
fn saturated_paging_volumes_obey_the_utilisation_law() {
    // Admission control off (M8 would hold most guests in the eligible
    // list): the volumes stay saturated.
    let text = OVER30.replace("[monitor]", NO_ADMISSION);
    let sc = Scenario::from_toml(&text, "over30.toml").unwrap();
    let mut twin = Twin::new(&sc, 1, Some(240 * crate::core::units::SEC));
    let start = ztwin_monitor::tod::parse_iso8601(&sc.scenario.start).unwrap();
    let mut emit = monitor::Emitter::new(Vec::new(), start, sc.release());
    twin.run(&mut emit, &mut |_, _| true).unwrap();
    let before: Vec<_> = twin.model.io.devices().map(|d| d.c).collect();
    let t0 = twin.core.now;
    twin.core.end = 330 * crate::core::units::SEC;
    twin.resume(&mut emit, &mut |_, _| true).unwrap();
    let secs = (twin.core.now - t0) as f64 / 1e9;
    for (d, a) in twin.model.io.devices().zip(before) {
        let c = d.c;
        let ssch = (c.ssch - a.ssch) as f64;
        let serv = (c.pend_ns + c.disc_ns + c.conn_ns - a.pend_ns - a.disc_ns - a.conn_ns) as f64;
        let in_service = serv / (secs * 1e9);
        let queue = (c.hf_queue - a.hf_queue) as f64 / (c.hf_count - a.hf_count) as f64;
        assert!(
            ssch / secs > 100.0 && queue > 1.0,
            "a saturated volume: {c:?}"
        );
        assert!(
            in_service > 0.95,
            "in service {in_service:.3} with {queue:.1} queued"
        );
        // Little: mean wait per I/O (response less service) = queue / rate.
        let wait = ((c.resp_ns - a.resp_ns) as f64 - serv) / ssch;
        let little = queue / (ssch / secs) * 1e9;
        assert!(
            (wait - little).abs() < 0.1 * wait,
            "mean wait {:.2} ms, queue / rate {:.2} ms",
            wait / 1e6,
            little / 1e6
        );
    }
}

/// The monitor's high-frequency sampling rate does not change the simulated
/// system (the storage manager and the scheduler keep their own clock): the
/// same I/Os, pages and steals at 2 s and at 370 ms.
#[test]
fn the_sampling_rate_does_not_change_the_system() {
    let run_at = |hf: &str| {
        let text = OVER30
            .replace("hf_rate = \"100ms\"", &format!("hf_rate = \"{hf}\""))
            .replace("duration = \"330s\"", "duration = \"90s\"");
        let sc = Scenario::from_toml(&text, "over30.toml").unwrap();
        let (_, twin) = run(&sc, 2, false);
        let m = &twin.model;
        let io: Vec<u64> = m.io.devices().map(|d| d.c.ssch + d.c.conn_ns).collect();
        (io, m.pg.sample().c, m.st.sample(twin.core.now).c)
    };
    let (a, b) = (run_at("2s"), run_at("370ms"));
    assert!(a.1.pages_read > 10_000, "{:?}", a.1);
    assert_eq!(a, b);
}

/// A filling guest (`fill_rate`) writes the rest of its storage after its
/// area at that rate, keeps its place across a timeline `start`, then
/// reuses its oldest page-cache pages at `reuse_rate`; with more virtual
/// storage than central, the filled pages are paged out and read back when
/// reused.
#[test]
fn a_filling_guest_writes_the_rest_of_its_storage_then_reuses_it() {
    let text = r#"
[scenario]
duration = "50s"
[system]
processors = 1
central_storage = "256M"
[monitor]
sample_interval = "5s"
[[paging]]
device_type = "3390-3"
count = 2
first_address = "7900"
volser_prefix = "PG"
[[guest]]
userid = "LNX"
virtual_storage = "384M"
workload = { type = "thrasher", area = "4M", pattern = "working_set", touch = "write", cpu_per_touch_us = 5.0, burst_touches = 200, think = "10ms", fill_rate = 4000.0, reuse_rate = 1000.0 }
[[timeline]]
at = "10s"
action = "start"
guest = "LNX"
workload = { type = "thrasher", area = "4M", pattern = "working_set", touch = "write", cpu_per_touch_us = 5.0, burst_touches = 200, think = "20ms", fill_rate = 4000.0, reuse_rate = 1000.0 }
"#;
    let sc = Scenario::from_toml(text, "fill.toml").unwrap();
    let mut twin = Twin::new(&sc, 1, Some(5 * crate::core::units::SEC));
    let start = ztwin_monitor::tod::parse_iso8601(&sc.scenario.start).unwrap();
    let mut emit = monitor::Emitter::new(Vec::new(), start, sc.release());
    twin.run(&mut emit, &mut |_, _| true).unwrap();
    let mut at = |secs: u64| {
        if secs > 5 {
            twin.core.end = secs * crate::core::units::SEC;
            twin.resume(&mut emit, &mut |_, _| true).unwrap();
        }
        let touched = twin
            .model
            .st
            .table(0)
            .iter()
            .filter(|e| storage::tag(e.e) != storage::T_NONE)
            .count();
        (touched, twin.model.pg.sample().c.pages_read)
    };
    // 1,024 area pages; 97,280 to fill at 4,000/s (about 24 s).
    let (touched5, _) = at(5);
    assert!(
        (20_400..=21_600).contains(&touched5),
        "{touched5} pages after 5 s"
    );
    let (touched20, _) = at(20);
    assert!(
        (76_000..=81_600).contains(&touched20),
        "{touched20} after 20 s (kept its place at 10 s; a fill started again would be near 41,000; stealing from 16 s slows it a little)"
    );
    let (touched30, read30) = at(30);
    assert_eq!(touched30, 98_304, "all of its storage");
    let (_, read) = at(50);
    // 20 s of reuse at 1,000/s: the oldest pages, long paged out, come back.
    assert!(
        read - read30 >= 2_000,
        "{} pages read back in 20 s of reuse",
        read - read30
    );
}

/// Three CPU-bound users on two logical CPUs share them: each runs about two
/// thirds of the time (a processor looking for work takes the one waiting
/// longest behind a busy processor). With work kept on its own vector only,
/// one user kept a processor to itself: 100 / 55 / 45 %.
#[test]
fn cpu_bound_users_share_the_processors() {
    let text = r#"
[scenario]
duration = "60s"
[system]
processors = 2
central_storage = "512M"
[monitor]
sample_interval = "10s"
[[guest]]
userid = "HOG"
count = 3
virtual_storage = "256M"
workload = { type = "cpu", utilization = 1.0 }
"#;
    let sc = Scenario::from_toml(text, "hogs.toml").unwrap();
    let (_, twin) = run(&sc, 1, false);
    for g in 0..3 {
        let t: Ns = twin.model.cpu.vcpus(g).map(|v| v.ttime).sum();
        let share = t as f64 / twin.core.now as f64;
        assert!(
            (0.6..0.73).contains(&share),
            "HOG{g} ran {share:.3} of the time"
        );
    }
}

/// The emitter writes the scenario's `cp_level`: every record at that
/// release's size (SYTCUP: its fixed part plus whole entries; MTRECM: its
/// text), MTRSYS_HCPCPEID naming it. The reader detects the release from the
/// file, decodes no record as longer than its layout, finds no damage and no
/// unknown record.
#[test]
fn records_are_written_at_the_cp_levels_sizes() {
    use ztwin_monitor::layout::{by_name_release, Release};
    let mut sizes = Vec::new();
    for level in [
        "5.3", "5.4", "6.1", "6.2", "6.3", "6.4", "7.1", "7.2", "7.3", "7.4",
    ] {
        let mut toml = PAGING.replace("[system]\n", &format!("[system]\ncp_level = \"{level}\"\n"));
        if level >= "6.3" {
            // Era C: no XSTOR.
            toml = toml.replace("xstor = \"64M\"\n", "");
        }
        let sc = Scenario::from_toml(&toml, "levels.toml").unwrap();
        let rel: Release = level.parse().unwrap();
        assert_eq!(sc.release(), rel);
        let (bytes, _) = run(&sc, 3, true);
        let rd = ztwin_monitor::reader::Reader::new(std::io::Cursor::new(bytes)).unwrap();
        let mut seen = std::collections::BTreeMap::new();
        let mut bad = Vec::new();
        // XSTOR figures as written (Era C levels must carry none).
        let mut xstor = 0u64;
        let stats = rd
            .for_each(|r| {
                let Some(l) = r.layout else { return };
                let len = r.bytes.len();
                for name in [
                    "MTRXSG_XSTOTALB",
                    "SYTXSG_XSTCPPAR",
                    "SYTXSG_XSTCTXAV",
                    "SYTXSP_PLSPGOUT",
                ] {
                    if let Some(f) = l.fields.iter().find(|f| f.name == name) {
                        let at = f.offset as usize;
                        let w = f.ty.width();
                        xstor += r.bytes[at..at + w]
                            .iter()
                            .fold(0u64, |a, &b| a << 8 | b as u64);
                    }
                }
                let ok = match l.name {
                    "MRSYTCUP" => {
                        let e = l.group.unwrap().entry_size as usize;
                        len > l.size as usize && (len - l.size as usize) % e == 0
                    }
                    "MRMTRECM" => len >= l.size as usize,
                    _ => len == l.size as usize,
                };
                if !ok && bad.len() < 5 {
                    bad.push(format!("{} {} bytes, layout {}", l.name, len, l.size));
                }
                *seen.entry(l.name).or_insert(0u32) += 1;
            })
            .unwrap();
        assert!(bad.is_empty(), "z/VM {level}: {bad:?}");
        // The PAGING scenario has 64M of XSTOR up to 6.2; from 6.3 none.
        assert_eq!(
            xstor == 0,
            level >= "6.3",
            "z/VM {level}: XSTOR figures {xstor}"
        );
        assert_eq!(stats.release, rel, "{level}: {}", stats.release_source);
        assert!(
            matches!(
                stats.release_source,
                ztwin_monitor::layout::ReleaseSource::Hcpcpeid(_)
            ),
            "{level}: {}",
            stats.release_source
        );
        assert_eq!(stats.longer, 0, "{level}: {:?}", stats.longer_by_type);
        assert_eq!((stats.unknown, stats.damage_count), (0, 0), "{level}");
        for name in ["MRSYTPRP", "MRMTRSYS", "MRSTORSG", "MRUSEACT", "MRSYTUWT"] {
            assert!(seen.contains_key(name), "{level}: no {name}");
        }
        sizes.push(by_name_release("MRSYTPRP", rel).unwrap().size);
    }
    // IBM's SYTPRP sizes: 108 (5.3), 124 (5.4), 124 carried (6.1), 140
    // (6.2), then as the layout tables give them for 6.3 to 7.4.
    let want: Vec<_> = [
        "5.3", "5.4", "6.1", "6.2", "6.3", "6.4", "7.1", "7.2", "7.3", "7.4",
    ]
    .iter()
    .map(|l| {
        by_name_release("MRSYTPRP", l.parse().unwrap())
            .unwrap()
            .size
    })
    .collect();
    assert_eq!(sizes[..4], [108, 124, 124, 140]);
    assert_eq!(sizes, want);
}

/// z/VM 5.2 (the I/O studies' level) has no layouts of its own: its file
/// is written with 5.3's, names 5.2 in MTRSYS_HCPCPEID, and decodes with no
/// record longer than its layout, no unknown record and no damage.
#[test]
fn a_5_2_scenario_is_written_with_5_3_layouts() {
    use ztwin_monitor::layout::{by_name_release, Release};
    let toml = PAGING.replace("[system]\n", "[system]\ncp_level = \"5.2\"\n");
    let sc = Scenario::from_toml(&toml, "levels.toml").unwrap();
    assert_eq!(sc.release(), Release(5, 2));
    let (bytes, _) = run(&sc, 3, true);
    let rd = ztwin_monitor::reader::Reader::new(std::io::Cursor::new(bytes)).unwrap();
    let mut prp = Vec::new();
    let stats = rd
        .for_each(|r| {
            if let Some(l) = r.layout.filter(|l| l.name == "MRSYTPRP") {
                prp.push((r.bytes.len(), l.size));
            }
        })
        .unwrap();
    assert_eq!(stats.release, Release(5, 2), "{}", stats.release_source);
    assert_eq!(stats.longer, 0, "{:?}", stats.longer_by_type);
    assert_eq!((stats.unknown, stats.damage_count), (0, 0));
    let size53 = by_name_release("MRSYTPRP", Release(5, 3)).unwrap().size as usize;
    assert!(
        !prp.is_empty() && prp.iter().all(|&(n, _)| n == size53),
        "{prp:?}"
    );
}

/// Levels the engine does not model, and strings that are no level, are
/// refused naming system.cp_level and why; a modelled Era C level with
/// XSTOR is refused naming system.xstor.
#[test]
fn cp_levels_refused_with_a_reason() {
    for level in ["6.3", "7.3"] {
        let toml = PAGING.replace("[system]\n", &format!("[system]\ncp_level = \"{level}\"\n"));
        let e = Scenario::from_toml(&toml, "levels.toml").unwrap_err();
        assert_eq!(e.place, "system.xstor", "{level}");
        assert!(
            e.reason.contains("XSTOR on CP level"),
            "{level}: {}",
            e.reason
        );
    }
    for (level, want) in [
        ("8.1", "not a z/VM level ztwin knows"),
        ("5.4.0", "not a z/VM level ztwin knows"),
        ("abc", "not a z/VM level ztwin knows"),
    ] {
        let toml = PAGING.replace("[system]\n", &format!("[system]\ncp_level = \"{level}\"\n"));
        let e = Scenario::from_toml(&toml, "levels.toml").unwrap_err();
        assert_eq!(e.place, "system.cp_level", "{level}");
        assert!(e.reason.contains(want), "{level}: {}", e.reason);
    }
}

/// A CEC whose other partitions saturate the shared CPs: z/VM's logical
/// CPUs get their weight's share (0.4 engines), their bursts stretch, the guests touch
/// fewer pages in the same time than with the CPs to themselves; z/VM's own
/// CPU time stays at most elapsed; the run repeats byte for byte.
#[test]
fn a_saturated_cec_slows_the_zvm_partition() {
    let cec = r#"
[lpar]
physical = { ifl = 4 }
weight = 100
[[lpar.partition]]
name = "LNX2"
type = "IFL"
logical = 4
weight = 900
busy = 4.0
"#;
    let alone = Scenario::from_toml(PAGING, "p.toml").unwrap();
    let shared = Scenario::from_toml(&format!("{PAGING}{cec}"), "p.toml").unwrap();
    let (_, a) = run(&alone, 5, true);
    let (bytes, b) = run(&shared, 5, true);
    let (bytes2, _) = run(&shared, 5, true);
    assert_eq!(bytes, bytes2, "same scenario, same seed");
    let c = b.model.cec.as_ref().unwrap();
    c.check();
    assert!(c.ticks() >= 3000, "{} ticks in 40 s", c.ticks());
    let z = c.partitions().next().unwrap();
    let steal: u64 = z.lcpus.iter().map(|l| l.steal_ns()).sum();
    let got: u64 = z.lcpus.iter().map(|l| l.dispatch_ns).sum();
    assert!(steal > got / 4, "steal {steal} dispatch {got}");
    // Weights 100 of 1000 on 4 IFLs: z/VM's 2 logical IFLs get at most 0.4
    // engines (less in intervals where its guests wait for paging I/O).
    let engines = got as f64 / 40e9;
    assert!(engines <= 0.4 + 1e-6 && engines > 0.15, "{engines}");
    assert!(b.refs() < a.refs() * 9 / 10, "{} vs {}", b.refs(), a.refs());
    let busy: u64 = b
        .model
        .cpu
        .counters()
        .map(|c| c.emul_ns + c.cp_user_ns + c.sys_ns)
        .sum();
    assert!(busy <= 2 * 40 * 1_000_000_000, "{busy}");

    // The records: per interval one SYTCUP per partition (z/VM first), their
    // entries PR/SM's dispatch and management time; the last interval's
    // equal the CEC's counters at 40 s (the CEC's tick at 40 s comes after
    // the sample: at most one dispatch interval more). z/VM's SYTPRP wait
    // leaves out the
    // steal: busy + wait + steal is the elapsed time.
    use ztwin_monitor::layout::{decode_field, group_entries, Value};
    let rd = ztwin_monitor::reader::Reader::new(std::io::Cursor::new(bytes)).unwrap();
    let (mut parts, mut last_actm) = (Vec::new(), std::collections::BTreeMap::new());
    let mut prp = std::collections::BTreeMap::new();
    rd.for_each(|r| {
        let Some(l) = r.layout else { return };
        match l.name {
            "MRSYTCUP" => {
                let name = match decode_field(r.bytes, l.f("SYTCUP_LCUPNAME")) {
                    Some(Value::Text(t)) => t,
                    v => panic!("{v:?}"),
                };
                parts.push(name.clone());
                let g = l.group.unwrap();
                let sum: u64 = group_entries(r.bytes, l)
                    .map(|e| match decode_field(e, g.f("SYTCUP_LCUCACTM")) {
                        Some(Value::Dur(d)) => d,
                        v => panic!("{v:?}"),
                    })
                    .sum();
                last_actm.insert(name, sum);
            }
            "MRSYTPRP" => {
                let get = |f: &str| match decode_field(r.bytes, l.f(f)) {
                    Some(Value::U(x)) | Some(Value::Dur(x)) => x,
                    v => panic!("{f}: {v:?}"),
                };
                let c = get("SYTPRP_PFXCPUAD");
                prp.insert(
                    c,
                    (
                        get("SYTPRP_PFXUTIME") + get("SYTPRP_PFXTMSYS"),
                        get("SYTPRP_PFXTOTWT"),
                    ),
                );
            }
            _ => {}
        }
    })
    .unwrap();
    assert_eq!(parts.len(), 2 * 4, "2 partitions, 4 intervals: {parts:?}");
    assert_eq!(&parts[..2], ["ZTWINLP1", "LNX2"]);
    let tod = |ns: u64| ns * 4096 / 1000;
    for p in c.partitions() {
        let want: u64 = p.lcpus.iter().map(|l| tod(l.dispatch_ns)).sum();
        let got = last_actm[p.name];
        let slack = tod(12_500_000) * p.lcpus.len() as u64;
        assert!(
            got <= want && want - got <= slack,
            "{}: {got} vs {want}",
            p.name
        );
    }
    for (cpu, &(busy, wait)) in &prp {
        let steal = tod(z.lcpus[*cpu as usize].steal_ns());
        let elapsed = tod(40_000_000_000);
        // The CEC's counters went on one tick past the sample.
        let sum = busy + wait + steal;
        assert!(
            sum + 8 >= elapsed && sum <= elapsed + tod(12_500_000),
            "cpu {cpu}: {busy} + {wait} + {steal}"
        );
    }
}

mod cp_messages;
mod era_c;
mod server_io;

/// A minidisk workload spread over volumes sends each volume its share of
/// the I/Os; CPU per I/O longer than a time slice runs over several slices;
/// with `enabled_wait` the guest waits for its I/O idle (test idle in the
/// dispatch list, %TIW), never in I/O wait (%IOW), as a Linux guest does.
#[test]
fn a_spread_minidisk_workload_waits_enabled_for_its_ios() {
    let text = |enabled: bool| {
        format!(
            r#"
[scenario]
duration = "60s"
[system]
processors = 2
central_storage = "256M"
[monitor]
sample_interval = "10s"
hf_rate = "100ms"
[[dasd]]
device_type = "3390-9"
count = 4
first_address = "0B00"
volser_prefix = "MD"
[[guest]]
userid = "LNX"
virtual_storage = "64M"
workload = {{ type = "minidisk_io", cpu_per_io_us = 12000.0, think = "20ms", enabled_wait = {enabled}, volumes = [
    {{ device = "0B00", share = 3.0 }}, {{ device = "0B02", count = 2, share = 0.5 }} ] }}
"#
        )
    };
    let run_it = |enabled: bool| {
        let sc = Scenario::from_toml(&text(enabled), "spread.toml").unwrap();
        let (_, twin) = run(&sc, 1, false);
        let m = &twin.model;
        let ssch: Vec<u64> = m.io.devices().map(|d| d.c.ssch).collect();
        let v = m.cpu.vcpus(0).next().unwrap();
        (ssch, v.vtime, v.vio, v.hf)
    };
    let (ssch, vtime, vio, hf) = run_it(true);
    let all: u64 = ssch.iter().sum();
    assert_eq!(ssch[1], 0, "0B01 is not in the spread: {ssch:?}");
    assert!(all > 1000 && all == vio, "{ssch:?}, {vio} virtual I/Os");
    let share = |k: usize| ssch[k] as f64 / all as f64;
    assert!((share(0) - 0.75).abs() < 0.03, "{ssch:?}");
    assert!(
        (share(2) - 0.125).abs() < 0.02 && (share(3) - 0.125).abs() < 0.02,
        "{ssch:?}"
    );
    let per_io_ms = vtime as f64 / vio as f64 / 1e6;
    assert!(
        (per_io_ms - 12.0).abs() < 0.1,
        "{per_io_ms:.2} ms of CPU per I/O"
    );
    assert_eq!(hf.io_wait, 0, "{hf:?}");
    assert!(hf.test_idle_wait > 0, "{hf:?}");
    let (_, _, _, hf_sync) = run_it(false);
    assert!(hf_sync.io_wait > 0, "CMS's synchronous wait: {hf_sync:?}");
}
