//! Each modelled CP command's responses and refusals at run time, as the
//! console shows them (issue 13's acceptance: "each CP command's response
//! and error messages"). The parse-time refusals (HCP001E, HCP002E, HCP003E,
//! HCP022E, HCP026E) are `cp::tests`; the successful paths of DEFSEG,
//! SAVESEG, the loads and QUERY NSS MAP are `dcss_save_load_share_and_release`,
//! those of DEFINE VFB-512, DETACH and QUERY VDISK `vdisk::tests`. Here: the
//! answers that depend on the system's state (nothing defined, no spool,
//! the limits, the issuer), each checked as the line right after its
//! command.
use crate::scenario::Scenario;

/// No spool volumes; VDISK limits of 64 MB (131,072 blocks) for the system
/// and 32 MB (65,536 blocks) per user.
const CP: &str = r#"
[scenario]
duration = "12s"
[system]
processors = 1
central_storage = "256M"
[monitor]
sample_interval = "6s"
[vdisk]
syslim = "64M"
userlim = "32M"
[[paging]]
device_type = "3390-3"
first_address = "7900"
volser_prefix = "PG"
[[guest]]
userid = "CMS"
virtual_storage = "32M"
[[guest]]
userid = "LNX"
virtual_storage = "64M"
"#;

/// (time in s, issuer or "" for the operator, command)
const COMMANDS: &[(u32, &str, &str)] = &[
    (1, "", "query nss"),
    (1, "", "q nss name nope map"),
    (1, "", "query alloc spool"),
    (1, "", "query vdisk"),
    (1, "", "define vfb-512 as 300 blk 100"),
    (2, "CMS", "defseg SEG1 20000-200FF sr"),
    (2, "CMS", "query nss"),
    (2, "CMS", "saveseg seg1"),
    (3, "CMS", "define vfb-512 as 300 blk 60000"),
    (3, "CMS", "define vfb-512 as 300 blk 8"),
    (3, "CMS", "define vfb-512 as 301 blk 8000"),
    (3, "LNX", "define vfb-512 as 300 blk 65536"),
    (4, "", "set vdisk userlim infinite"),
    (4, "", "query vdisk userlim"),
    (4, "LNX", "define vfb-512 as 301 blk 8000"),
    (4, "", "query vdisk syslim"),
    (5, "", "detach 300"),
    (5, "CMS", "detach 302"),
    (6, "CMS", "purge nss name seg1"),
    (6, "CMS", "purge nss name seg1"),
    (6, "", "purge nss 0042"),
];

fn scenario() -> String {
    let mut text = CP.to_string();
    for (at, who, cmd) in COMMANDS {
        text.push_str(&format!(
            "[[timeline]]\nat = \"{at}s\"\naction = \"cp\"\n{}command = \"{cmd}\"\n",
            if who.is_empty() {
                String::new()
            } else {
                format!("guest = \"{who}\"\n")
            }
        ));
    }
    text
}

/// The response lines of `who`'s command `cmd` (the `k`-th time it was
/// issued): the console lines after it, up to the next command.
fn response(console: &[String], who: &str, cmd: &str, k: usize) -> Vec<String> {
    let who = if who.is_empty() { "OPERATOR" } else { who };
    let issued = format!("{who:<8} > {cmd}");
    let at = console
        .iter()
        .enumerate()
        .filter(|(_, l)| l.get(13..) == Some(issued.as_str()))
        .nth(k)
        .unwrap_or_else(|| panic!("{issued} not issued\n{}", console.join("\n")))
        .0;
    console[at + 1..]
        .iter()
        // A command's line has "> " right after the issuer's column (a
        // response may contain " > ": QUERY FRAMES's "Frames > 2G:").
        .take_while(|l| !l[22..].starts_with("> "))
        .map(|l| {
            let (w, text) = l[13..].split_at(9);
            assert_eq!(w.trim_end(), who, "{l}");
            text.to_string()
        })
        .collect()
}

#[test]
fn each_command_answers_with_cps_message() {
    let sc = Scenario::from_toml(&scenario(), "cp.toml").unwrap();
    let mut out = Vec::new();
    let s = crate::run_to_writer(&sc, None, None, &mut out, &mut |_, _| true).unwrap();
    let con = &s.console;
    let r = |who: &str, cmd: &str| response(con, who, cmd, 0);
    // Nothing defined yet.
    assert_eq!(r("", "query nss"), ["No NSS or DCSS files"]);
    assert_eq!(
        r("", "q nss name nope map"),
        ["HCP1366E Saved segment NOPE does not exist"]
    );
    assert_eq!(r("", "query alloc spool"), ["No spool volumes"]);
    assert_eq!(
        r("", "query vdisk"),
        [
            "VDISK SYSTEM LIMIT IS 131072 BLK, 0 BLK IN USE",
            "VDISK USER LIMIT IS 65536 BLK",
            "No virtual disks in storage"
        ]
    );
    // The operator has no virtual machine to define a disk in.
    assert_eq!(
        r("", "define vfb-512 as 300 blk 100"),
        ["HCP1383E DEFINE VFB-512 needs a virtual machine: the issuer is the operator"]
    );
    // DEFSEG answers nothing; the skeleton is listed (class S, no spool ID,
    // 256 pages + the descriptor page); SAVESEG without spool space fails.
    assert!(r("CMS", "defseg SEG1 20000-200FF sr").is_empty());
    assert_eq!(
        r("CMS", "query nss"),
        [
            "OWNERID  FILE TYPE CL RECS     FILENAME FILETYPE",
            "*NSS     ---- DCSS S  00000257 SEG1     DCSS"
        ]
    );
    assert_eq!(
        r("CMS", "saveseg seg1"),
        ["HCP1365E Saved segment SEG1 was not saved: spool space is full (257 pages needed, 0 free)"]
    );
    // DEFINE VFB-512: defined; the same device again; over USERLIM; over
    // SYSLIM once USERLIM is lifted (60000 + 65536 + 8000 > 131072).
    assert_eq!(
        r("CMS", "define vfb-512 as 300 blk 60000"),
        ["DASD 0300 DEFINED"]
    );
    assert_eq!(
        r("CMS", "define vfb-512 as 300 blk 8"),
        ["HCP1382E Device 0300 already defined"]
    );
    assert_eq!(
        r("CMS", "define vfb-512 as 301 blk 8000"),
        ["HCP1381E Virtual disk 0301 not defined; the user limit for virtual disks (USERLIM) would be exceeded"]
    );
    assert_eq!(
        r("LNX", "define vfb-512 as 300 blk 65536"),
        ["DASD 0300 DEFINED"]
    );
    assert!(r("", "set vdisk userlim infinite").is_empty());
    assert_eq!(
        r("", "query vdisk userlim"),
        ["VDISK USER LIMIT IS INFINITE"]
    );
    assert_eq!(
        r("LNX", "define vfb-512 as 301 blk 8000"),
        ["HCP1380E Virtual disk 0301 not defined; the system limit for virtual disks (SYSLIM) would be exceeded"]
    );
    assert_eq!(
        r("", "query vdisk syslim"),
        ["VDISK SYSTEM LIMIT IS 131072 BLK, 125536 BLK IN USE"]
    );
    // DETACH: the operator has no devices; a guest's device that is not there.
    assert_eq!(r("", "detach 300"), ["HCP040E Device 0300 does not exist"]);
    assert_eq!(
        r("CMS", "detach 302"),
        ["HCP040E Device 0302 does not exist"]
    );
    // PURGE NSS of the unsaved skeleton, then of nothing, then a spool ID.
    assert_eq!(r("CMS", "purge nss name seg1"), ["0001 FILE(S) PURGED"]);
    assert_eq!(
        response(con, "CMS", "purge nss name seg1", 1),
        ["HCP1366E Saved segment SEG1 does not exist"]
    );
    assert_eq!(
        r("", "purge nss 0042"),
        ["HCP1366E Saved segment 0042 does not exist"]
    );
    // Every command issued once (the purge twice), in the timeline's order.
    let issued = con.iter().filter(|l| l[13..].contains(" > ")).count();
    assert_eq!(issued, COMMANDS.len(), "{}", con.join("\n"));
}

/// SAVESEG on a spool too small for the segment: HCP1365E with the pages
/// needed and free; CP is free for the next SAVESEG, which fits.
#[test]
fn saveseg_on_a_full_spool_is_refused_and_the_next_fits() {
    let text = CP.to_string()
        + r#"
[[spool]]
device_type = "3390-3"
first_address = "0800"
volser_prefix = "SPL"
[[timeline]]
at = "1s"
action = "cp"
guest = "CMS"
command = "defseg HUGE 20000-41FFFF sr"
[[timeline]]
at = "1s"
action = "cp"
guest = "CMS"
command = "saveseg huge"
[[timeline]]
at = "1s"
action = "cp"
guest = "CMS"
command = "defseg SMALL 20000-2000F sr"
[[timeline]]
at = "1s"
action = "cp"
guest = "CMS"
command = "saveseg small"
[[timeline]]
at = "5s"
action = "cp"
command = "query nss"
"#;
    let sc = Scenario::from_toml(&text, "cp.toml").unwrap();
    let mut out = Vec::new();
    let s = crate::run_to_writer(&sc, None, None, &mut out, &mut |_, _| true).unwrap();
    let con = &s.console;
    let huge = response(con, "CMS", "saveseg huge", 0);
    assert_eq!(huge.len(), 1, "{huge:?}");
    assert!(
        huge[0].starts_with(
            "HCP1365E Saved segment HUGE was not saved: spool space is full (4194305 pages needed, "
        ),
        "{huge:?}"
    );
    let small = response(con, "CMS", "saveseg small", 0);
    assert_eq!(
        small,
        ["HCP440I Saved segment SMALL was successfully saved in fileid 0001."]
    );
    let q = response(con, "", "query nss", 0);
    assert_eq!(q.len(), 3, "{q:?}");
    assert!(
        q.contains(&"*NSS     ---- DCSS S  04194305 HUGE     DCSS".to_string()),
        "{q:?}"
    );
    assert!(
        q.contains(&"*NSS     0001 DCSS A  00000017 SMALL    DCSS".to_string()),
        "{q:?}"
    );
}

/// DIAGNOSE X'64' (the dcssblk driver's calls) as the console shows them:
/// a load, the same segment again, a segment that does not exist, LOADNSHR
/// of a segment defined without LOADNSHR, PURGESG, and PURGESG of a segment
/// the guest no longer has.
#[test]
fn diagnose_64_answers_with_its_return_codes() {
    let mut text = CP.to_string()
        + r#"
[[spool]]
device_type = "3390-3"
first_address = "0800"
volser_prefix = "SPL"
"#;
    for (at, who, action, cmd) in [
        (1, "CMS", "cp", "defseg SWAP 20000-2FFFF sn"),
        (1, "CMS", "cp", "saveseg swap"),
        (2, "LNX", "diag64", "loadshr SWAP"),
        (3, "LNX", "diag64", "loadshr SWAP"),
        (4, "LNX", "diag64", "loadshr NOSUCH"),
        (5, "LNX", "diag64", "loadnshr SWAP"),
        (6, "LNX", "diag64", "purgesg SWAP"),
        (7, "LNX", "diag64", "purgesg SWAP"),
        (8, "", "cp", "q nss name swap map"),
    ] {
        let guest = if who.is_empty() {
            String::new()
        } else {
            format!("guest = \"{who}\"\n")
        };
        text.push_str(&format!(
            "[[timeline]]\nat = \"{at}s\"\naction = \"{action}\"\n{guest}command = \"{cmd}\"\n"
        ));
    }
    let sc = Scenario::from_toml(&text, "diag.toml").unwrap();
    let mut out = Vec::new();
    let s = crate::run_to_writer(&sc, None, None, &mut out, &mut |_, _| true).unwrap();
    let con = &s.console;
    let d = |cmd: &str, k: usize| response(con, "LNX", &format!("DIAG X'64' {cmd}"), k);
    // An SN segment: nothing to read, loaded at once.
    assert_eq!(d("LOADSHR SWAP", 0), ["RC=0 segment SWAP loaded"]);
    assert_eq!(
        d("LOADSHR SWAP", 1),
        ["RC=0 segment SWAP is already loaded"]
    );
    assert_eq!(
        d("LOADSHR NOSUCH", 0),
        ["RC=44 segment NOSUCH does not exist"]
    );
    assert_eq!(
        d("LOADNSHR SWAP", 0),
        ["RC=281 segment SWAP was not defined with LOADNSHR"]
    );
    assert_eq!(d("PURGESG SWAP", 0), ["RC=0 segment SWAP purged"]);
    assert_eq!(d("PURGESG SWAP", 1), ["RC=44 segment SWAP is not loaded"]);
    // No user left: class A, 0 users.
    assert_eq!(
        response(con, "", "q nss name swap map", 0),
        [
            "FILE FILENAME  FILETYPE MINSIZE  BEGPAG   ENDPAG   TYPE CL #USERS",
            "0001 SWAP     DCSS     N/A      00020000 0002FFFF SN   A  00000"
        ]
    );
}

/// QUERY ALLOC PAGE: one line per paging volume and the summary; the pages
/// in use are the paging component's count at the time of the command.
#[test]
fn query_alloc_page_shows_the_slots_in_use() {
    let text = CP.replace(
        "userid = \"LNX\"\nvirtual_storage = \"64M\"",
        "userid = \"LNX\"\nvirtual_storage = \"512M\"\nworkload = { type = \"thrasher\", area = \"400M\", pattern = \"serial\", touch = \"write\", cpu_per_touch_us = 1.0 }",
    ) + "[[timeline]]\nat = \"1s\"\naction = \"cp\"\ncommand = \"q alloc page\"\n[[timeline]]\nat = \"12s\"\naction = \"cp\"\ncommand = \"query alloc page\"\n";
    let sc = Scenario::from_toml(&text, "page.toml").unwrap();
    let mut twin = crate::model::Twin::new(&sc, 1, None);
    let mut out = Vec::new();
    let mut emit = crate::model::monitor::Emitter::new(&mut out, 0, sc.release());
    twin.run(&mut emit, &mut |_, _| true).unwrap();
    let con = twin.model.console.take();
    let first = response(&con, "", "q alloc page", 0);
    let last = response(&con, "", "query alloc page", 0);
    assert_eq!(first.len(), 6, "{first:?}");
    assert_eq!(
        first[1],
        "VOLID  RDEV      START        END    PAGES   IN USE     PAGE USED"
    );
    // The volume: its slots, the pages in use at the end (the run ends at
    // the second command's time) as the paging component counts them.
    let v = twin.model.pg.volumes().next().unwrap();
    let d = twin.model.io.def(v.dev);
    let cols = |l: &str| l.split_whitespace().map(String::from).collect::<Vec<_>>();
    let row = cols(&last[3]);
    assert_eq!(row[0], d.volser, "{last:?}");
    assert_eq!(row[1], "7900");
    assert_eq!(row[4], v.slots.to_string());
    assert!(v.used > 10_000, "the thrasher paged: {v:?}");
    assert_eq!(row[5], v.used.to_string(), "{last:?}");
    assert_eq!(row[7], format!("{}%", v.used as u64 * 100 / v.slots as u64));
    let sum = cols(&last[5]);
    assert_eq!(
        sum[..3],
        [
            "SUMMARY".to_string(),
            v.slots.to_string(),
            v.used.to_string()
        ]
    );
    // At 1 s the thrasher had paged out less.
    let early: u32 = cols(&first[3])[5].parse().unwrap();
    assert!(early < v.used, "{first:?}");
}

/// Run `text` to its end and return the twin (its components as they are at
/// the end) and the console.
fn run_twin(text: &str) -> (crate::model::Twin, Vec<String>) {
    let sc = Scenario::from_toml(text, "ind.toml").unwrap();
    let mut twin = crate::model::Twin::new(&sc, 1, None);
    let mut out = Vec::new();
    let mut emit = crate::model::monitor::Emitter::new(&mut out, 0, sc.release());
    twin.run(&mut emit, &mut |_, _| true).unwrap();
    let con = twin.model.console.take();
    (twin, con)
}

/// The number after `key` in `line` (`AVGPROC-` in `AVGPROC-038% 03`).
fn field(line: &str, key: &str) -> u64 {
    let at = line.find(key).unwrap_or_else(|| panic!("{key} in {line}")) + key.len();
    line[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect::<String>()
        .parse()
        .unwrap_or_else(|_| panic!("{key} in {line}"))
}

/// The CP scenario on 2 CPUs with 64 MB of XSTOR, LNX a 512 MB guest
/// thrashing over 400 MB (it pages from the start).
fn paging_scenario() -> String {
    CP
        .replace("processors = 1", "processors = 2")
        .replace("central_storage = \"256M\"", "central_storage = \"256M\"\nxstor = \"64M\"")
        .replace(
            "userid = \"LNX\"\nvirtual_storage = \"64M\"",
            "userid = \"LNX\"\nvirtual_storage = \"512M\"\nworkload = { type = \"thrasher\", area = \"400M\", pattern = \"serial\", touch = \"write\", cpu_per_touch_us = 1.0 }",
        )
}

/// INDICATE LOAD after a paging run (a thrasher on 2 CPUs, with XSTOR), at
/// the end of the run: each figure against the components' own counts over
/// the 12 s since the start (no earlier INDICATE LOAD), the scheduler's
/// lists as they are at the end; issued again at once, the window is empty
/// and the rates are 0 while the lists stay.
#[test]
fn indicate_load_shows_the_components_counts() {
    let text = paging_scenario()
        + "[[timeline]]\nat = \"12s\"\naction = \"cp\"\ncommand = \"indicate load\"\n\
           [[timeline]]\nat = \"12s\"\naction = \"cp\"\nguest = \"CMS\"\ncommand = \"ind\"\n";
    let (twin, con) = run_twin(&text);
    let m = &twin.model;
    let r = response(&con, "", "indicate load", 0);
    assert_eq!(r.len(), 9, "{r:?}");
    let w = 12u64;
    let busy: Vec<u64> = m
        .cpu
        .counters()
        .map(|c| c.emul_ns + c.cp_user_ns + c.sys_ns)
        .collect();
    assert!(busy.iter().sum::<u64>() > 100_000_000, "{busy:?}");
    let avg = busy.iter().sum::<u64>() * 100 / (2 * w * 1_000_000_000);
    assert_eq!(r[0], format!("AVGPROC-{avg:03}% 02"));
    let st = m.st.sample(12_000_000_000);
    assert!(st.c.xstor_out > 0, "the thrasher used XSTOR: {:?}", st.c);
    assert_eq!(
        r[1],
        format!(
            "XSTORE-{:06}/SEC MIGRATE-{:04}/SEC",
            (st.c.xstor_in + st.c.xstor_out) / w,
            st.c.migrated / w
        )
    );
    // No MDC in this scenario.
    assert_eq!(
        r[2],
        "MDC READS-000000/SEC WRITES-000000/SEC HIT RATIO-000%"
    );
    let pg = m.pg.sample().c;
    assert!(pg.pages_written > 10_000, "{pg:?}");
    assert_eq!(
        r[3],
        format!("PAGING-{}/SEC", (pg.pages_read + pg.pages_written) / w)
    );
    // The lists: both guests logged on, each counted once somewhere.
    let q = m.cpu.queue_counts();
    assert_eq!(
        r[4],
        format!(
            "Q0-{:05}({:05})                           DORMANT-{:05}",
            q.dispatch[0], q.dispatch_loading[0], q.dormant
        )
    );
    let mut listed = q.dormant + q.dispatch[0];
    for c in 1..4 {
        assert_eq!(field(&r[4 + c], &format!("Q{c}-")), q.dispatch[c] as u64);
        assert_eq!(field(&r[4 + c], &format!("E{c}-")), q.eligible[c] as u64);
        listed += q.dispatch[c] + q.eligible[c];
    }
    assert_eq!(listed, 2, "{r:?}");
    assert!(
        q.dispatch[1..].iter().sum::<u32>() >= 1,
        "the thrasher is in Q1-Q3: {q:?}"
    );
    // The PROC line: both CPUs, each its own busy time.
    assert_eq!(
        field(&r[8], "PROC 0000-"),
        busy[0] * 100 / (w * 1_000_000_000)
    );
    assert_eq!(
        field(&r[8], "PROC 0001-"),
        busy[1] * 100 / (w * 1_000_000_000)
    );
    // LOAD is the default operand; the window since the first is empty.
    let again = response(&con, "CMS", "ind", 0);
    assert_eq!(again[0], "AVGPROC-000% 02");
    assert_eq!(again[1], "XSTORE-000000/SEC MIGRATE-0000/SEC");
    assert_eq!(again[3], "PAGING-0/SEC");
    assert_eq!(again[4..8], r[4..8]);
}

/// INDICATE LOAD's MDC line on S5's MDC run (10 s of it): reads, writes
/// and the hit ratio are the cache's own counts; no XSTOR line without
/// XSTOR; four PROC lines for 4 CPs, two a line.
#[test]
fn indicate_load_shows_the_minidisk_cache() {
    let text = include_str!("../../../../../studies/pav-mdc-fixed.toml")
        .replace("duration = \"4min\"", "duration = \"10s\"")
        .replace("sample_interval = \"1min\"", "sample_interval = \"5s\"")
        + "\n[[timeline]]\nat = \"10s\"\naction = \"cp\"\ncommand = \"ind load\"\n";
    let (twin, con) = run_twin(&text);
    let m = &twin.model;
    let r = response(&con, "", "ind load", 0);
    assert_eq!(r.len(), 9, "{r:?}");
    let st = m.st.sample(10_000_000_000);
    let c = m.mdc.sample(st.dpa as u64, st.xs_total as u64).c;
    assert!(c.reads > 1000 && c.hits > 0, "{c:?}");
    assert_eq!(
        r[1],
        format!(
            "MDC READS-{:06}/SEC WRITES-{:06}/SEC HIT RATIO-{:03}%",
            c.reads / 10,
            c.writes / 10,
            c.hits * 100 / c.reads
        )
    );
    assert!(r[0].ends_with("% 04"), "{r:?}");
    assert!(
        r[7].starts_with("PROC 0000-") && r[7].contains("PROC 0001-"),
        "{r:?}"
    );
    assert!(
        r[8].starts_with("PROC 0002-") && r[8].contains("PROC 0003-"),
        "{r:?}"
    );
}

/// INDICATE USER after the paging run: LNX's storage, paging and CPU
/// figures against the components' own counts; the issuer's own without a
/// user ID; CP's refusals.
#[test]
fn indicate_user_shows_the_guests_counts() {
    let mut text = paging_scenario();
    for (who, cmd) in [
        ("", "indicate user lnx"),
        ("CMS", "ind user"),
        ("", "ind user"),
        ("", "ind user nobody"),
    ] {
        let guest = if who.is_empty() {
            String::new()
        } else {
            format!("guest = \"{who}\"\n")
        };
        text.push_str(&format!(
            "[[timeline]]\nat = \"12s\"\naction = \"cp\"\n{guest}command = \"{cmd}\"\n"
        ));
    }
    let (twin, con) = run_twin(&text);
    let m = &twin.model;
    let lnx = (0..m.cpu.guest_count())
        .find(|&g| m.cpu.guest(g).userid == "LNX")
        .unwrap();
    let sp = m.st.space(lnx);
    let pio = m.pg.guest(lnx);
    assert!(
        sp.xstor + sp.dasd > 10_000 && pio.written > 0,
        "LNX paged: {sp:?} {pio:?}"
    );
    let v = m.cpu.vcpus(lnx).next().unwrap();
    let r = response(&con, "", "indicate user lnx", 0);
    assert_eq!(
        r,
        [
            "USERID=LNX      MACH=ESA STOR=512M VIRT=V XSTORE=NONE".to_string(),
            format!(
                "PAGES: RES={}  WS={}  LOCKEDREAL=0  INSTAN={}  XSTOR={}  DASD={}",
                sp.resident,
                sp.wss.round() as u64,
                sp.resident + sp.xstor + sp.dasd,
                sp.xstor,
                sp.dasd
            ),
            format!("READS={}  WRITES={}", pio.read, pio.written),
            format!(
                "CPU 00: CTIME=00:00 VTIME={:03}:{:02} TTIME={:03}:{:02} IO={:06}",
                v.vtime / 1_000_000_000 / 60,
                v.vtime / 1_000_000_000 % 60,
                v.ttime / 1_000_000_000 / 60,
                v.ttime / 1_000_000_000 % 60,
                v.vio
            ),
        ]
    );
    let own = response(&con, "CMS", "ind user", 0);
    assert_eq!(own.len(), 4, "{own:?}");
    assert_eq!(
        own[0],
        "USERID=CMS      MACH=ESA STOR=32M VIRT=V XSTORE=NONE"
    );
    assert_eq!(
        response(&con, "", "ind user", 0),
        ["HCP026E Operand missing or invalid (the operator has no virtual machine: name a user)"]
    );
    assert_eq!(
        response(&con, "", "ind user nobody", 0),
        ["HCP045E NOBODY not logged on"]
    );
}

/// SET MDCACHE SYSTEM OFF as a CP command changes the model exactly as the
/// timeline's `action = "mdc"` does (the same MONWRITE bytes); QUERY
/// MDCACHE before and after shows the switch and the cache's bounds and use
/// against the component's sample; without an `[mdc]` section SET is
/// refused.
#[test]
fn set_mdc_system_off_is_the_timelines_mdc_action() {
    let base = include_str!("../../../../../studies/pav-mdc-fixed.toml")
        .replace("duration = \"4min\"", "duration = \"10s\"")
        .replace("sample_interval = \"1min\"", "sample_interval = \"2s\"");
    let run = |text: &str| {
        let sc = Scenario::from_toml(text, "mdc.toml").unwrap();
        let mut out = Vec::new();
        let s = crate::run_to_writer(&sc, None, None, &mut out, &mut |_, _| true).unwrap();
        (out, s.console)
    };
    let (by_action, _) =
        run(&(base.clone() + "\n[[timeline]]\nat = \"5s\"\naction = \"mdc\"\non = false\n"));
    let (by_cp, con) = run(&(base.clone()
        + "\n[[timeline]]\nat = \"4s\"\naction = \"cp\"\ncommand = \"q mdc\"\n\
           [[timeline]]\nat = \"5s\"\naction = \"cp\"\ncommand = \"set mdc system off\"\n\
           [[timeline]]\nat = \"6s\"\naction = \"cp\"\ncommand = \"query mdcache\"\n"));
    let (untouched, _) = run(&base);
    assert_ne!(by_action, untouched, "the switch changes the run");
    assert!(
        by_cp == by_action,
        "SET MDC SYSTEM OFF differs from action = \"mdc\""
    );
    assert!(response(&con, "", "set mdc system off", 0).is_empty());
    let before = response(&con, "", "q mdc", 0);
    assert_eq!(before.len(), 2, "{before:?}");
    assert_eq!(before[0], "Minidisk cache ON for system");
    let usage = field(&before[1], "usage=");
    assert!(usage > 0, "{before:?}");
    assert!(
        before[1].starts_with("Storage MDC min=0M max=64M, usage="),
        "{before:?}"
    );
    assert!(before[1].ends_with("%, bias=1.00"), "{before:?}");
    assert_eq!(
        response(&con, "", "query mdcache", 0),
        [
            "Minidisk cache OFF for system",
            "Storage MDC min=0M max=64M, usage=0%, bias=1.00"
        ]
    );
    // Usage against the component at the end of a run that ends at the query.
    let (twin, con) = run_twin(
        &(base.replace("duration = \"10s\"", "duration = \"4s\"")
            + "\n[[timeline]]\nat = \"4s\"\naction = \"cp\"\ncommand = \"q mdc\"\n"),
    );
    let st = twin.model.st.sample(4_000_000_000);
    let m = twin.model.mdc.sample(st.dpa as u64, st.xs_total as u64);
    assert_eq!(
        response(&con, "", "q mdc", 0)[1],
        format!(
            "Storage MDC min=0M max=64M, usage={}%, bias=1.00",
            m.cs_frames * 100 / m.cs_max
        )
    );
    // No [mdc] section: refused.
    let text = CP.to_string()
        + "[[timeline]]\nat = \"1s\"\naction = \"cp\"\ncommand = \"set mdc system on\"\n";
    let (_, con) = run_twin(&text);
    assert_eq!(
        response(&con, "", "set mdc system on", 0),
        ["HCP002E Invalid operand - MDCACHE (ztwin: the scenario has no [mdc] section)"]
    );
}

/// SET MDCACHE RDEV E700 OFF at 5 s on S5's MDC run (four CMS users on
/// E700) changes the model exactly as the timeline's `action = "mdc"` with
/// `device = "E700"` (the same MONWRITE bytes), and differs from the run
/// without; DFLTOFF is the same switch (ztwin keeps one per device), and
/// SET MDC RDEV E700 ON at 7 s turns it back on as the action does. A
/// device that is not a volume: HCP040E; no `[mdc]` section: refused.
/// (Broken on purpose: the command setting the system switch instead of
/// the device's gives other bytes.)
#[test]
fn set_mdc_rdev_is_the_timelines_mdc_action() {
    let base = include_str!("../../../../../studies/pav-mdc-fixed.toml")
        .replace("duration = \"4min\"", "duration = \"10s\"")
        .replace("sample_interval = \"1min\"", "sample_interval = \"2s\"");
    let run = |text: &str| {
        let sc = Scenario::from_toml(text, "mdc.toml").unwrap();
        let mut out = Vec::new();
        let s = crate::run_to_writer(&sc, None, None, &mut out, &mut |_, _| true).unwrap();
        (out, s.console)
    };
    let action = |at: &str, on: bool| {
        format!("\n[[timeline]]\nat = \"{at}\"\naction = \"mdc\"\ndevice = \"E700\"\non = {on}\n")
    };
    let cp = |at: &str, cmd: &str| {
        format!("\n[[timeline]]\nat = \"{at}\"\naction = \"cp\"\ncommand = \"{cmd}\"\n")
    };
    let (by_action, _) = run(&(base.clone() + &action("5s", false)));
    let (by_cp, con) = run(&(base.clone()
        + &cp("5s", "set mdc rdev e700 off")
        + &cp("5s", "set mdc rdev 9999 off")));
    let (untouched, _) = run(&base);
    assert_ne!(by_action, untouched, "the switch changes the run");
    assert!(
        by_cp == by_action,
        "SET MDC RDEV OFF differs from action = \"mdc\""
    );
    assert!(response(&con, "", "set mdc rdev e700 off", 0).is_empty());
    assert_eq!(
        response(&con, "", "set mdc rdev 9999 off", 0),
        ["HCP040E Device 9999 does not exist"]
    );
    let (by_dflt, _) = run(&(base.clone() + &cp("5s", "set mdcache rdev e700-e701 dfltoff")));
    assert!(by_dflt == by_action, "DFLTOFF over a range differs");
    // Off, then on again.
    let (by_action, _) = run(&(base.clone() + &action("5s", false) + &action("7s", true)));
    let (by_cp, _) = run(&(base.clone()
        + &cp("5s", "set mdc rdev e700 off")
        + &cp("7s", "set mdc rdev e700 on")));
    assert!(
        by_cp == by_action,
        "SET MDC RDEV ON differs from action = \"mdc\""
    );
    // No [mdc] section: refused.
    let text = CP.to_string() + &cp("1s", "set mdc rdev 7900 off");
    let (_, con) = run_twin(&text);
    assert_eq!(
        response(&con, "", "set mdc rdev 7900 off", 0),
        ["HCP002E Invalid operand - MDCACHE (ztwin: the scenario has no [mdc] section)"]
    );
}

/// SET SRM STORBUF and LDUBUF at time zero change the model exactly as the
/// `[srm]` keys (the same MONWRITE bytes), on issue 17's overcommitted
/// paging scenario where the defaults form an eligible list (a different
/// run); QUERY SRM shows the values before and after. (Broken on purpose:
/// SET SRM STORBUF ignored gives other bytes; LDUBUF ignored is caught only
/// by QUERY SRM: this run's bytes do not depend on LDUBUF here.)
#[test]
fn set_srm_is_the_srm_keys() {
    let base = super::OVER30
        .replace("duration = \"330s\"", "duration = \"40s\"")
        .replace("sample_interval = \"30s\"", "sample_interval = \"10s\"")
        .replace("hf_rate = \"100ms\"", "hf_rate = \"1s\"");
    let run = |text: &str| {
        let sc = Scenario::from_toml(text, "srm.toml").unwrap();
        let mut out = Vec::new();
        let s = crate::run_to_writer(&sc, None, None, &mut out, &mut |_, _| true).unwrap();
        (out, s.console)
    };
    let keys = "[srm]\nstorbuf = [999, 999, 999]\nldubuf = [20, 10, 5]\n[monitor]";
    let (by_keys, _) = run(&base.replace("[monitor]", keys));
    let mut cmds = String::new();
    for (at, cmd) in [
        ("0s", "q srm"),
        ("0s", "set srm storbuf 999 999 999"),
        ("0s", "set srm ldubuf 20 10 5"),
        ("0s", "query srm"),
    ] {
        cmds.push_str(&format!(
            "[[timeline]]\nat = \"{at}\"\naction = \"cp\"\ncommand = \"{cmd}\"\n"
        ));
    }
    let (by_cmds, con) = run(&(base.clone() + &cmds));
    let (defaults, _) = run(&base);
    assert_ne!(by_keys, defaults, "the settings change the run");
    assert!(by_cmds == by_keys, "SET SRM differs from the [srm] keys");
    assert_eq!(
        response(&con, "", "q srm", 0),
        [
            "LDUBUF : Q1=100% Q2=75% Q3=60%",
            "STORBUF: Q1=125% Q2=105% Q3=95%",
            "DISPATCHING MINOR TIMESLICE = 5 MS"
        ]
    );
    assert!(response(&con, "", "set srm storbuf 999 999 999", 0).is_empty());
    assert_eq!(
        response(&con, "", "query srm", 0),
        [
            "LDUBUF : Q1=20% Q2=10% Q3=5%",
            "STORBUF: Q1=999% Q2=999% Q3=999%",
            "DISPATCHING MINOR TIMESLICE = 5 MS"
        ]
    );
}

/// The `KEY=value` figure `key` of a QUERY FRAMES line.
fn kv(line: &str, key: &str) -> u64 {
    field(line, &format!(" {key}="))
}

/// QUERY FRAMES after the paging run (a thrasher on 2 CPUs with XSTOR, at
/// the end of the run) and on S5's MDC run (4 GB: frames above 2 GB, the
/// cache's frames): each figure against the storage component's own
/// counts (the available list, CP's fixed frames, the DPA, the guests'
/// resident pages, the frames lent to the cache, the segment frames), the
/// parts adding up to central storage; the available list, the DPA and
/// CP's frames also as the monitor's last SYTRSG record decodes them
/// (RSAAVAIL, RSAPGABL, RSACPLOK: its sample and the command are at the
/// run's end).
#[test]
fn query_frames_shows_the_storage_components_counts() {
    let text = paging_scenario()
        + "[[timeline]]\nat = \"12s\"\naction = \"cp\"\ncommand = \"query frames\"\n\
           [[timeline]]\nat = \"12s\"\naction = \"cp\"\nguest = \"CMS\"\ncommand = \"q frames\"\n";
    let sc = Scenario::from_toml(&text, "frames.toml").unwrap();
    let mut twin = crate::model::Twin::new(&sc, 1, None);
    let mut out = Vec::new();
    let mut emit = crate::model::monitor::Emitter::new(&mut out, 0, sc.release());
    twin.run(&mut emit, &mut |_, _| true).unwrap();
    emit.finish().unwrap();
    let con = twin.model.console.take();
    let m = &twin.model;
    // The last SYTRSG record's fields, decoded.
    let mut sytrsg = std::collections::BTreeMap::new();
    ztwin_monitor::reader::Reader::new(std::io::Cursor::new(&out))
        .unwrap()
        .for_each(|r| {
            let Some(l) = r.layout.filter(|l| l.name == "MRSYTRSG") else {
                return;
            };
            for name in ["SYTRSG_RSAAVAIL", "SYTRSG_RSAPGABL", "SYTRSG_RSACPLOK"] {
                let f = l.fields.iter().find(|f| f.name == name).unwrap();
                let at = f.offset as usize;
                let v = r.bytes[at..at + f.ty.width()]
                    .iter()
                    .fold(0u64, |a, &b| a << 8 | b as u64);
                sytrsg.insert(name, v);
            }
        })
        .unwrap();
    let r = response(&con, "", "query frames", 0);
    assert_eq!(r.len(), 6, "{r:?}");
    let st = m.st.sample(12_000_000_000);
    let total = (256u64 << 20) / 4096;
    assert_eq!(r[0], "All Frames:");
    assert_eq!(
        r[1],
        format!(" Configured={total}  Real={total}  Usable={total}  Offline=0")
    );
    assert_eq!(r[2], format!(" Pageable={}  CPFixed={}", st.dpa, st.fixed));
    assert_eq!(r[3], "Frames < 2G:");
    let resident: u64 = (0..m.st.spaces())
        .map(|g| m.st.space(g).resident as u64)
        .sum();
    assert!(resident > 10_000, "the thrasher holds frames: {resident}");
    let (avail, guest, locked) = (
        kv(&r[4], "Available"),
        kv(&r[4], "GuestPages"),
        kv(&r[4], "LockedIO"),
    );
    assert_eq!(avail, st.avail as u64, "{r:?}");
    assert_eq!(guest + locked, resident, "{r:?}");
    assert_eq!(kv(&r[5], "SavedSegments"), 0);
    assert_eq!(kv(&r[5], "MinidiskCache"), 0);
    assert_eq!(kv(&r[5], "CPFixed"), st.fixed as u64);
    assert_eq!(avail + guest + locked + st.fixed as u64, total, "{r:?}");
    assert_eq!(sytrsg["SYTRSG_RSAAVAIL"], avail, "{sytrsg:?}");
    assert_eq!(sytrsg["SYTRSG_RSAPGABL"], kv(&r[2], "Pageable"));
    assert_eq!(sytrsg["SYTRSG_RSACPLOK"], kv(&r[2], "CPFixed"));
    // The same from a guest.
    assert_eq!(response(&con, "CMS", "q frames", 0), r);

    // Era C (7.3, no XSTOR): the frames on the global aging list are still
    // their guests' (GuestPages, or LockedIO while an early write is in
    // flight); the counts add up as before.
    let text = paging_scenario()
        .replace("[system]\n", "[system]\ncp_level = \"7.3\"\n")
        .replace("xstor = \"64M\"\n", "")
        + "[[timeline]]\nat = \"12s\"\naction = \"cp\"\ncommand = \"query frames\"\n";
    let (twin, con) = run_twin(&text);
    let m = &twin.model;
    assert!(m.st.era_c() && m.st.agelist().c.moved > 0);
    let r = response(&con, "", "query frames", 0);
    assert_eq!(r.len(), 6, "{r:?}");
    let st = m.st.sample(12_000_000_000);
    let resident: u64 = (0..m.st.spaces())
        .map(|g| m.st.space(g).resident as u64)
        .sum();
    assert_eq!(kv(&r[4], "Available"), st.avail as u64, "{r:?}");
    assert_eq!(
        kv(&r[4], "GuestPages") + kv(&r[4], "LockedIO"),
        resident,
        "{r:?}"
    );
    assert_eq!(
        kv(&r[4], "Available")
            + kv(&r[4], "GuestPages")
            + kv(&r[4], "LockedIO")
            + kv(&r[5], "CPFixed"),
        total
    );

    // S5's MDC run, 4 GB: the cache's frames, and a part above 2 GB.
    let text = include_str!("../../../../../studies/pav-mdc-fixed.toml")
        .replace("duration = \"4min\"", "duration = \"6s\"")
        .replace("sample_interval = \"1min\"", "sample_interval = \"3s\"")
        + "\n[[timeline]]\nat = \"6s\"\naction = \"cp\"\ncommand = \"q fram\"\n";
    let (twin, con) = run_twin(&text);
    let m = &twin.model;
    let r = response(&con, "", "q fram", 0);
    assert_eq!(r.len(), 9, "{r:?}");
    let st = m.st.sample(6_000_000_000);
    let lent = m.st.mdc_lent().0;
    assert!(lent > 100, "the cache holds frames: {lent}");
    assert_eq!(lent, m.mdc.held().0);
    assert_eq!(r[6], "Frames > 2G:");
    let part = |k: usize| {
        let (a, b) = (&r[4 + 3 * k], &r[5 + 3 * k]);
        [
            kv(a, "Available"),
            kv(a, "GuestPages"),
            kv(a, "LockedIO"),
            kv(b, "SavedSegments"),
            kv(b, "MinidiskCache"),
            kv(b, "CPFixed"),
        ]
    };
    let (lo, hi) = (part(0), part(1));
    assert_eq!(lo[0] + hi[0], st.avail as u64, "{r:?}");
    assert_eq!(lo[4] + hi[4], lent, "{r:?}");
    assert_eq!(lo[5] + hi[5], st.fixed as u64);
    let resident: u64 = (0..m.st.spaces())
        .map(|g| m.st.space(g).resident as u64)
        .sum();
    assert_eq!(lo[1] + lo[2] + hi[1] + hi[2], resident);
    assert_eq!(lo.iter().sum::<u64>(), 1 << 19, "2 GB below");
    assert_eq!(hi.iter().sum::<u64>(), 1 << 19, "2 GB above");
}

/// SET MDCACHE STORAGE min max, XSTORE min max and STORAGE BIAS at time
/// zero change the model exactly as the `[mdc]` keys (the same MONWRITE
/// bytes), on S5's MDC run with 256 MB of XSTOR, and differ from the run
/// without; QUERY MDCACHE shows the settings before and after. Without an
/// `[mdc]` section they are refused.
#[test]
fn set_mdc_storage_and_xstore_are_the_mdc_keys() {
    let base = include_str!("../../../../../studies/pav-mdc-fixed.toml")
        .replace("duration = \"4min\"", "duration = \"10s\"")
        .replace("sample_interval = \"1min\"", "sample_interval = \"2s\"")
        .replace(
            "central_storage = \"4G\"",
            "central_storage = \"4G\"\nxstor = \"256M\"",
        );
    let run = |text: &str| {
        let sc = Scenario::from_toml(text, "mdc.toml").unwrap();
        let mut out = Vec::new();
        let s = crate::run_to_writer(&sc, None, None, &mut out, &mut |_, _| true).unwrap();
        (out, s.console)
    };
    let keys = "storage_min = \"16M\"\nstorage_max = \"32M\"\nxstor_min = \"16M\"\nxstor_max = \"16M\"\nbias = 2.0\n";
    let (by_keys, _) = run(&base.replace("storage_max = \"64M\"\n", keys));
    let mut cmds = String::new();
    for cmd in [
        "q mdc",
        "set mdc storage 16M 32M",
        "set mdcache xstore 16M 16M",
        "set mdc stor bias 2",
        "query mdcache",
    ] {
        cmds.push_str(&format!(
            "[[timeline]]\nat = \"0s\"\naction = \"cp\"\ncommand = \"{cmd}\"\n"
        ));
    }
    let (by_cmds, con) = run(&(base.clone() + &cmds));
    let (untouched, _) = run(&base);
    assert_ne!(by_keys, untouched, "the settings change the run");
    assert!(by_cmds == by_keys, "SET MDC differs from the [mdc] keys");
    for cmd in [
        "set mdc storage 16M 32M",
        "set mdcache xstore 16M 16M",
        "set mdc stor bias 2",
    ] {
        assert!(response(&con, "", cmd, 0).is_empty(), "{cmd}");
    }
    assert_eq!(
        response(&con, "", "q mdc", 0),
        [
            "Minidisk cache ON for system",
            "Storage MDC min=0M max=64M, usage=0%, bias=1.00",
            "Xstore MDC min=0M max=256M, usage=0%, bias=1.00"
        ]
    );
    assert_eq!(
        response(&con, "", "query mdcache", 0),
        [
            "Minidisk cache ON for system",
            "Storage MDC min=16M max=32M, usage=0%, bias=2.00",
            "Xstore MDC min=16M max=16M, usage=0%, bias=2.00"
        ]
    );
    // No [mdc] section: refused.
    let mut text = CP.to_string();
    for cmd in ["set mdc storage 0M 8M", "set mdc storage bias 2"] {
        text.push_str(&format!(
            "[[timeline]]\nat = \"1s\"\naction = \"cp\"\ncommand = \"{cmd}\"\n"
        ));
    }
    let (_, con) = run_twin(&text);
    for cmd in ["set mdc storage 0M 8M", "set mdc storage bias 2"] {
        assert_eq!(
            response(&con, "", cmd, 0),
            ["HCP002E Invalid operand - MDCACHE (ztwin: the scenario has no [mdc] section)"]
        );
    }
}

/// SET MDCACHE STORAGE in the middle of S5's MDC run: a maximum below the
/// cache's size shrinks it at once (the frames go back to storage's
/// available list); QUERY MDCACHE shows the new bounds and the usage
/// against the cache's frames.
#[test]
fn set_mdc_storage_shrinks_the_cache_at_once() {
    let text = include_str!("../../../../../studies/pav-mdc-fixed.toml")
        .replace("duration = \"4min\"", "duration = \"6s\"")
        .replace("sample_interval = \"1min\"", "sample_interval = \"3s\"")
        + "\n[[timeline]]\nat = \"6s\"\naction = \"cp\"\ncommand = \"q mdc\"\n\
           [[timeline]]\nat = \"6s\"\naction = \"cp\"\ncommand = \"set mdc storage 0M 1M\"\n\
           [[timeline]]\nat = \"6s\"\naction = \"cp\"\ncommand = \"query mdc\"\n";
    let (twin, con) = run_twin(&text);
    let m = &twin.model;
    let before = field(&response(&con, "", "q mdc", 0)[1], "usage=");
    // 64 MB is 16384 frames: the cache had grown past 1 MB.
    assert!(before * 16384 / 100 > 256, "usage {before}%");
    let held = m.mdc.held().0;
    assert!(
        held <= 256,
        "held {held} frames after SET MDC STORAGE 0M 1M"
    );
    assert_eq!(m.st.mdc_lent().0, held, "the frames went back to storage");
    let st = m.st.sample(6_000_000_000);
    let s = m.mdc.sample(st.dpa as u64, st.xs_total as u64);
    assert_eq!((s.cs_min, s.cs_max), (0, 256));
    assert_eq!(
        response(&con, "", "query mdc", 0),
        [
            "Minidisk cache ON for system".to_string(),
            format!(
                "Storage MDC min=0M max=1M, usage={}%, bias=1.00",
                held * 100 / 256
            )
        ]
    );
    m.st.check();
    m.mdc.check();
}

/// LOCK and UNLOCK at run time (timeline `action = "cp"`): CMS touches its
/// first 1 MB once and sleeps (dormant) while LNX thrashes over more than
/// central storage. LOCK USERID CMS 0 F MAP at 10 ms maps each page to its frame;
/// at 6 s QUERY FRAMES counts the 16 pinned frames as `LockedCmd`, the
/// scan having stolen CMS's other pages; UNLOCK CMS 0 7 leaves 8 pinned,
/// in the frames MAP named, at 12 s; the refusals (HCP045E, a range
/// outside the storage, more pages than the pageable frames (HCP1384E),
/// pages not locked); CMS's logoff at 11 s frees its pinned frames.
#[test]
fn lock_pins_a_guests_pages_through_the_demand_scan() {
    let mut text = paging_scenario().replace(
        "userid = \"CMS\"\nvirtual_storage = \"32M\"",
        "userid = \"CMS\"\nvirtual_storage = \"32M\"\nworkload = { type = \"thrasher\", area = \"1M\", touch = \"write\", think = \"100s\" }",
    );
    for (at, who, cmd) in [
        ("10ms", "", "lock userid cms 0 f map"),
        ("10ms", "", "lock nobody 0 1"),
        ("10ms", "LNX", "lock cms 0 2000"),
        ("10ms", "LNX", "lock lnx 0 1ffff"),
        ("6s", "", "query frames"),
        ("6s", "", "unlock cms 0 7"),
        ("6s", "", "unlock cms 0 8"),
        ("12s", "", "q frames"),
    ] {
        text += &format!(
            "[[timeline]]\nat = \"{at}\"\naction = \"cp\"\n{}command = \"{cmd}\"\n",
            if who.is_empty() {
                String::new()
            } else {
                format!("guest = \"{who}\"\n")
            }
        );
    }
    let (twin, con) = run_twin(&text);
    let m = &twin.model;
    let map = response(&con, "", "lock userid cms 0 f map", 0);
    assert_eq!(map.len(), 17, "{map:?}");
    assert_eq!(map[0], "VIRTPAGE REALPAGE");
    let frames: Vec<u32> = map[1..]
        .iter()
        .enumerate()
        .map(|(vp, l)| {
            let w: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(w[0], format!("{vp:08X}"), "{l}");
            u32::from_str_radix(w[1], 16).unwrap()
        })
        .collect();
    assert_eq!(
        response(&con, "", "lock nobody 0 1", 0),
        ["HCP045E NOBODY not logged on"]
    );
    assert_eq!(
        response(&con, "LNX", "lock cms 0 2000", 0),
        ["HCP002E Invalid operand - the range is outside CMS's storage (pages 0 to 1FFF)"]
    );
    assert_eq!(
        response(&con, "LNX", "lock lnx 0 1ffff", 0),
        [format!(
            "HCP1384E Not enough real storage to lock 131072 more pages of LNX: {} pageable frames are not locked; nothing locked",
            m.st.dpa() - 16
        )]
    );
    let part = |r: &[String]| {
        assert_eq!(r.len(), 6, "{r:?}");
        (kv(&r[4], "LockedCmd"), kv(&r[4], "LockedIO"))
    };
    assert_eq!(part(&response(&con, "", "query frames", 0)).0, 16);
    assert!(response(&con, "", "unlock cms 0 7", 0).is_empty());
    assert_eq!(
        response(&con, "", "unlock cms 0 8", 0),
        ["HCP1385E Page 0 of CMS is not locked; nothing unlocked"]
    );
    assert_eq!(part(&response(&con, "", "q frames", 0)).0, 8);
    // The scan took CMS's other pages; the pinned ones kept their frames.
    let cms = (0..m.cpu.guest_count())
        .find(|&g| m.cpu.guest(g).userid == "CMS")
        .unwrap();
    assert!(m.st.guest(cms).steals >= 240, "{:?}", m.st.guest(cms));
    for vp in 8..16u32 {
        assert!(m.st.is_pinned(cms, vp));
        let e = m.st.entry(cms, vp).e;
        assert_eq!(crate::model::storage::idx(e), frames[vp as usize]);
    }
    assert_eq!(m.st.pinned(cms), 8);
    assert_eq!(
        m.st.space(cms).resident,
        8 + (0..8)
            .filter(|&vp| crate::model::storage::tag(m.st.entry(cms, vp).e)
                == crate::model::storage::T_RES)
            .count() as u32
    );

    // The same with CMS logged off at 11 s: its pinned frames are freed.
    let text = text + "[[timeline]]\nat = \"11s\"\naction = \"logoff\"\nguest = \"CMS\"\n";
    let (twin, _) = run_twin(&text);
    assert_eq!(twin.model.st.space(cms).resident, 0);
    assert_eq!(twin.model.st.frame_use()[0].locked_cmd, 0);
}

/// The last USEACT_VMDCTPVL (pages pinned by LOCK) of guest `userid`
/// written at or before `until` seconds, decoded from the MONWRITE bytes,
/// with the time of its sample (s since the first).
fn vmdctpvl(out: &[u8], userid: &str) -> Vec<u64> {
    let mut v = Vec::new();
    ztwin_monitor::reader::Reader::new(std::io::Cursor::new(out))
        .unwrap()
        .for_each(|r| {
            let Some(l) = r.layout.filter(|l| l.name == "MRUSEACT") else {
                return;
            };
            let f = |name: &str| l.fields.iter().find(|f| f.name == name).unwrap();
            let u = f("USEACT_VMDUSER");
            let at = u.offset as usize;
            let id = ztwin_monitor::ebcdic::decode_field(&r.bytes[at..at + u.ty.width()]);
            if id != userid {
                return;
            }
            let p = f("USEACT_VMDCTPVL");
            let at = p.offset as usize;
            v.push(
                r.bytes[at..at + p.ty.width()]
                    .iter()
                    .fold(0u64, |a, &b| a << 8 | b as u64),
            );
        })
        .unwrap();
    v
}

/// The console time of a line (`hh:mm:ss.fff`), ms.
fn at_ms(line: &str) -> u64 {
    let (h, m, s, f) = (&line[0..2], &line[3..5], &line[6..8], &line[9..12]);
    ((h.parse::<u64>().unwrap() * 60 + m.parse::<u64>().unwrap()) * 60 + s.parse::<u64>().unwrap())
        * 1000
        + f.parse::<u64>().unwrap()
}

/// LOCK of pages not resident brings them in and pins them as CP does.
/// The paging run without XSTOR: CMS touches its first 1 MB (pages 0-FF)
/// once and sleeps while LNX thrashes; by 4 s the demand scan has written
/// most of CMS's pages to DASD (INDICATE USER CMS at 6.5 s shows them).
/// LNX stops at 4 s (see below) and starts again at 7 s. LOCK USERID CMS 0
/// 10F MAP at 6.5 s: pages 100-10F never touched get new frames at once,
/// those on DASD are read by paging's block reads, so the MAP answers after
/// the command, when the last read ends; every page then pinned, in the
/// frame MAP names, through the 5 s of LNX's stealing that follow; QUERY
/// FRAMES's LockedCmd and the monitor's USEACT_VMDCTPVL for CMS are the 272
/// pinned pages (0 at the samples before). UNLOCK at 9 s in a second run:
/// the pages are stolen again and VMDCTPVL is 0 at 12 s.
///
/// LNX is stopped while LOCK's reads run because the `io` component starts
/// a request submitted to an idle volume ahead of the volume's queue: the
/// page-out write each write's completion submits keeps a queued read
/// waiting as long as page-outs stream to the volume (a guest's fault too;
/// noted, not changed here).
#[test]
fn lock_brings_paged_out_pages_in_and_pins_them() {
    let base = paging_scenario()
        .replace("xstor = \"64M\"\n", "")
        .replace(
            "userid = \"CMS\"\nvirtual_storage = \"32M\"",
            "userid = \"CMS\"\nvirtual_storage = \"32M\"\nworkload = { type = \"thrasher\", area = \"1M\", touch = \"write\", think = \"100s\" }",
        );
    let cmds = |extra: &[(&str, &str)]| {
        let mut text = base.clone();
        text += "[[timeline]]\nat = \"4s\"\naction = \"stop\"\nguest = \"LNX\"\n\
                 [[timeline]]\nat = \"7s\"\naction = \"start\"\nguest = \"LNX\"\n\
                 workload = { type = \"thrasher\", area = \"480M\", pattern = \"serial\", touch = \"write\", cpu_per_touch_us = 1.0 }\n";
        for (at, cmd) in [
            ("6500ms", "indicate user cms"),
            ("6500ms", "lock userid cms 0 10f map"),
            ("11s", "query frames"),
            ("11s", "indicate user cms"),
        ]
        .iter()
        .chain(extra)
        {
            text += &format!("[[timeline]]\nat = \"{at}\"\naction = \"cp\"\ncommand = \"{cmd}\"\n");
        }
        let sc = Scenario::from_toml(&text, "lock.toml").unwrap();
        let mut twin = crate::model::Twin::new(&sc, 1, None);
        let mut out = Vec::new();
        let mut emit = crate::model::monitor::Emitter::new(&mut out, 0, sc.release());
        twin.run(&mut emit, &mut |_, _| true).unwrap();
        emit.finish().unwrap();
        let con = twin.model.console.take();
        (twin, con, out)
    };
    let (twin, con, out) = cmds(&[]);
    let m = &twin.model;
    let cms = (0..m.cpu.guest_count())
        .find(|&g| m.cpu.guest(g).userid == "CMS")
        .unwrap();
    // Before LOCK: CMS's pages mostly on DASD.
    let ind = response(&con, "", "indicate user cms", 0);
    let (res, dasd) = (field(&ind[1], "RES="), field(&ind[1], "DASD="));
    assert!(res < 64 && dasd > 192, "{ind:?}");
    // The MAP comes when the reads end, after the command.
    let issued = con
        .iter()
        .position(|l| l.ends_with("> lock userid cms 0 10f map"))
        .unwrap();
    let map = response(&con, "", "lock userid cms 0 10f map", 0);
    assert_eq!(map.len(), 1 + 0x110, "{map:?}");
    assert_eq!(map[0], "VIRTPAGE REALPAGE");
    let answered = con
        .iter()
        .position(|l| l.ends_with("VIRTPAGE REALPAGE"))
        .unwrap();
    assert!(
        at_ms(&con[answered]) > at_ms(&con[issued]),
        "answered at {} for {}",
        con[answered],
        con[issued]
    );
    let frames: Vec<u32> = map[1..]
        .iter()
        .enumerate()
        .map(|(vp, l)| {
            let w: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(w[0], format!("{vp:08X}"), "{l}");
            u32::from_str_radix(w[1], 16).unwrap()
        })
        .collect();
    // Pinned through 6 s of LNX's stealing, in the frames MAP named.
    for (vp, &f) in frames.iter().enumerate() {
        assert!(m.st.is_pinned(cms, vp as u32), "page {vp:X}");
        assert_eq!(crate::model::storage::idx(m.st.entry(cms, vp as u32).e), f);
    }
    assert_eq!(m.st.pinned(cms), 0x110);
    assert!(m.pg.guest(cms).read >= dasd, "{:?}", m.pg.guest(cms));
    // The scan ran after LNX started again (it stole its own pages); it
    // took none of CMS's after LOCK (its steals are those before).
    assert_eq!(m.st.guest(cms).steals, dasd, "{:?}", m.st.guest(cms));
    let fr = response(&con, "", "query frames", 0);
    assert_eq!(kv(&fr[4], "LockedCmd"), 0x110, "{fr:?}");
    assert!(ind[1].contains("  LOCKEDREAL=0  "), "{ind:?}");
    let ind = response(&con, "", "indicate user cms", 1);
    assert_eq!(field(&ind[1], "LOCKEDREAL="), 0x110, "{ind:?}");
    // The monitor: 0 at the samples before LOCK, 272 at 12 s.
    let v = vmdctpvl(&out, "CMS");
    assert!(
        v.len() >= 2 && v[..v.len() - 1].iter().all(|&n| n == 0),
        "{v:?}"
    );
    assert_eq!(v.last(), Some(&0x110), "{v:?}");
    assert!(vmdctpvl(&out, "LNX").iter().all(|&n| n == 0));
    m.st.check();

    // UNLOCK at 9 s: stealable again; nothing pinned at 12 s.
    let (twin, con, out) = cmds(&[("9s", "unlock cms 0 10f")]);
    assert!(response(&con, "", "unlock cms 0 10f", 0).is_empty());
    assert_eq!(twin.model.st.pinned(cms), 0);
    assert!(
        twin.model.st.guest(cms).steals >= dasd + 0x100,
        "{:?}",
        twin.model.st.guest(cms)
    );
    assert!(
        twin.model.st.space(cms).resident < 0x110,
        "{:?}",
        twin.model.st.space(cms)
    );
    assert!(vmdctpvl(&out, "CMS").iter().all(|&n| n == 0));
}

/// LOCK of pages in XSTOR and never touched (the paging run with XSTOR,
/// LNX stopped at 2.5 s): moved back and given frames at once, the MAP
/// right after the command (at the same time) when no page is on DASD,
/// else when the reads end; all pinned at the end.
#[test]
fn lock_brings_xstor_pages_in_at_once() {
    let mut text = paging_scenario().replace(
        "userid = \"CMS\"\nvirtual_storage = \"32M\"",
        "userid = \"CMS\"\nvirtual_storage = \"32M\"\nworkload = { type = \"thrasher\", area = \"1M\", touch = \"write\", think = \"100s\" }",
    );
    text += "[[timeline]]\nat = \"2500ms\"\naction = \"stop\"\nguest = \"LNX\"\n";
    for (at, cmd) in [("3s", "indicate user cms"), ("3s", "lock cms 0 1ff map")] {
        text += &format!("[[timeline]]\nat = \"{at}\"\naction = \"cp\"\ncommand = \"{cmd}\"\n");
    }
    let (twin, con) = run_twin(&text);
    let m = &twin.model;
    let cms = (0..m.cpu.guest_count())
        .find(|&g| m.cpu.guest(g).userid == "CMS")
        .unwrap();
    let ind = response(&con, "", "indicate user cms", 0);
    let (res, xs, dasd) = (
        field(&ind[1], "RES="),
        field(&ind[1], "XSTOR="),
        field(&ind[1], "DASD="),
    );
    assert!(xs > 0 && res + xs + dasd == 0x100, "{ind:?}");
    let map = response(&con, "", "lock cms 0 1ff map", 0);
    assert_eq!(map.len(), 1 + 0x200, "{map:?}");
    assert_eq!(m.st.pinned(cms), 0x200);
    if dasd == 0 {
        let issued = con
            .iter()
            .position(|l| l.ends_with("> lock cms 0 1ff map"))
            .unwrap();
        assert_eq!(at_ms(&con[issued + 1]), at_ms(&con[issued]));
    }
    m.st.check();
}
