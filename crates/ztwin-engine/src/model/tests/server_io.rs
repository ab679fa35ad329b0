//! A server virtual machine that starts several I/Os at once per request
//! (`ios_per_request`, the CMS workload): the same run as a plain user at 1,
//! and more queueing at the same I/O rate when the requests arrive together.
use super::*;
use crate::scenario::Scenario;

/// One uncached 3390 (a disk access of 18 ms) behind three ESCON paths, and
/// the database users of `guests`.
fn server(guests: &str) -> String {
    format!(
        r#"
[scenario]
duration = "150s"
start = "2003-01-05T09:00:00Z"
[system]
cp_level = "5.2"
processors = 2
central_storage = "1G"
[monitor]
sample_interval = "30s"
[io]
cmr_ms = 0.3
[[chpid]]
id = "0A"
type = "escon"
[[chpid]]
id = "2A"
type = "escon"
[[storage_server]]
name = "CU"
model = "3990-EC"
cache = "1G"
nvs = "16M"
read_hit = 0.0
host_adapters = 2
ha_mb_s = 17
device_adapters = 1
da_mb_s = 17
[[storage_server.rank]]
name = "HDA"
disks = 1
raid = "none"
position_ms = 18.0
media_mb_s = 4.2
[[control_unit]]
name = "CU0"
server = "CU"
cu_type = "3990"
chpids = ["0A", "2A"]
[[dasd]]
device_type = "3390-2"
first_address = "1742"
volser_prefix = "USE001"
path = {{ control_unit = "CU0", rank = "HDA" }}
{guests}
"#
    )
}

fn cms(count: u32, think_ms: u32, extra: &str) -> String {
    format!(
        "[[guest]]\nuserid = \"DB\"\ncount = {count}\nvirtual_storage = \"64M\"\nworkload = {{ \
         type = \"cms\", device = \"1742\", minidisk = \"100M\", access = \"random\", \
         blocks_per_io = 4, cpu_per_io_us = 200, think = \"{think_ms}ms\"{extra} }}\n"
    )
}

/// The volume's SSCH rate, mean queued (high-frequency samples) and mean
/// response (ms) from the second 30 s on.
fn volume(sc: &Scenario) -> (f64, f64, f64) {
    let mut twin = Twin::new(sc, 1, Some(30 * crate::core::units::SEC));
    let start = ztwin_monitor::tod::parse_iso8601(&sc.scenario.start).unwrap();
    let mut emit = monitor::Emitter::new(Vec::new(), start, sc.release());
    twin.run(&mut emit, &mut |_, _| true).unwrap();
    let a = twin.model.io.device(0).c;
    let t0 = twin.core.now;
    twin.core.end = 150 * crate::core::units::SEC;
    twin.resume(&mut emit, &mut |_, _| true).unwrap();
    let c = twin.model.io.device(0).c;
    let secs = (twin.core.now - t0) as f64 / 1e9;
    let ssch = (c.ssch - a.ssch) as f64;
    let queue = (c.hf_queue - a.hf_queue) as f64 / (c.hf_count - a.hf_count) as f64;
    let resp = (c.resp_ns - a.resp_ns) as f64 / ssch / 1e6;
    (ssch / secs, queue, resp)
}

/// `ios_per_request = 1` is the plain CMS user: the MONWRITE file is the
/// same byte for byte as without the key.
#[test]
fn one_io_per_request_is_the_plain_user() {
    let plain = Scenario::from_toml(&server(&cms(5, 120, "")), "s.toml").unwrap();
    let one =
        Scenario::from_toml(&server(&cms(5, 120, ", ios_per_request = 1")), "s.toml").unwrap();
    let (a, _) = run(&plain, 7, true);
    let (b, _) = run(&one, 7, true);
    assert!(a.len() > 10_000);
    assert!(a == b, "ios_per_request = 1 changed the run");
}

/// Four users each with one I/O at a time against one server starting four
/// at once, its think time set for the same I/O rate (20.1/s each, seed 1):
/// the server's I/Os arrive together, so more of them wait (0.27 queued and
/// 49 ms response against 1.38 and 87 ms).
#[test]
fn requests_arriving_together_queue_more_at_the_same_rate() {
    let users = Scenario::from_toml(&server(&cms(4, 150, "")), "s.toml").unwrap();
    let srv = Scenario::from_toml(&server(&cms(1, 60, ", ios_per_request = 4")), "s.toml").unwrap();
    let (r1, q1, t1) = volume(&users);
    let (r4, q4, t4) = volume(&srv);
    assert!(
        (r4 / r1 - 1.0).abs() < 0.05,
        "about the same I/O rate: {r1:.1} and {r4:.1} /s"
    );
    assert!(
        q4 > 3.0 * q1 && q4 > 1.0,
        "queued {q1:.2} (users) against {q4:.2} (server)"
    );
    assert!(t4 > 1.5 * t1, "response {t1:.1} against {t4:.1} ms");
}

/// The key is checked: 1 to 64, and only for random (request) access.
#[test]
fn ios_per_request_is_checked() {
    for (extra, want) in [
        (", ios_per_request = 0", "must be 1 to 64"),
        (", ios_per_request = 65", "must be 1 to 64"),
    ] {
        let e = Scenario::from_toml(&server(&cms(1, 90, extra)), "s.toml").unwrap_err();
        let e = format!("{e}");
        assert!(e.contains("ios_per_request") && e.contains(want), "{e}");
    }
    let file = server(&cms(1, 90, ", ios_per_request = 2")).replace("\"random\"", "\"file\"");
    let e = format!("{}", Scenario::from_toml(&file, "s.toml").unwrap_err());
    assert!(e.contains("ios_per_request") && e.contains("random"), "{e}");
}
