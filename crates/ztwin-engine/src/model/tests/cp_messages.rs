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
        .take_while(|l| !l[13..].contains(" > "))
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
