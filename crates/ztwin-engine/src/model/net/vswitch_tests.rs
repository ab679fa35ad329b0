//! VSWITCH traffic: guests' virtual NICs on a VSWITCH whose uplink is an OSA
//! port, the port's line speed as a limit, CP time per packet charged to
//! the system, guest to guest without the OSA, MRIODVSW written and read
//! back, and the scenario errors that name the line.

use crate::model::{monitor, Twin};
use crate::scenario::Scenario;

/// Guests LNX1..LNXn on VSW1 (uplink OSA E0 at `gbps`), `pattern` traffic to
/// `peer`; the CEC has a free CP pool.
fn text(n: u32, pattern: &str, peer: &str, gbps: f64, request: u64, response: u64) -> String {
    format!(
        r#"[scenario]
duration = "30s"
[system]
processors = 2
central_storage = "512M"
lpar_name = "ZVM1"
[monitor]
sample_interval = "10s"
[lpar]
physical = {{ cp = 8, ifl = 4 }}
[[lpar.partition]]
name = "ZOS1"
type = "CP"
logical = 4
busy = 0.5
[[osa]]
chpid = "E0"
gbps = {gbps}
[[vswitch]]
name = "VSW1"
controller = "DTCVSW2"
uplink = {{ rdev = "0600", chpid = "E0" }}
vlans = [100, 200]
[[guest]]
userid = "LNX"
count = {n}
virtual_storage = "256M"
workload = {{ type = "net", pattern = "{pattern}", via = "vswitch", vswitch = "VSW1", vlan = 100, device = "0700", peer = "{peer}", request = {request}, response = {response}, think = "0s", jitter = 0.0, client_cpu_us = 20, server_cpu_us = 100 }}
"#
    )
}

fn run(sc: &Scenario) -> (Vec<u8>, Twin) {
    let mut twin = Twin::new(sc, 3, None);
    let start = ztwin_monitor::tod::parse_iso8601(&sc.scenario.start).unwrap();
    let mut emit = monitor::Emitter::new(Vec::new(), start, sc.release());
    twin.run(&mut emit, &mut |_, _| true).unwrap();
    (emit.finish().unwrap(), twin)
}

fn sc(t: &str) -> Scenario {
    Scenario::from_toml(t, "v.toml").unwrap()
}

/// A stream of 64 KB messages from 4 guests fills a 1 Gb/s port and no
/// more: the bytes out over 30 s are at most the line's capacity (payload
/// under the wire overhead), and at least 90% of it. At 10 Gb/s the same
/// guests move more.
#[test]
fn a_stream_is_limited_by_the_osa_port() {
    let (_, t) = run(&sc(&text(4, "stream", "ZOS1", 1.0, 65536, 1)));
    let v = t.model.net.vswitches().next().unwrap();
    let secs = 30.0;
    let rate = v.c.tx_bytes as f64 / secs;
    let line = 1e9 / 8.0;
    assert!(rate <= line, "{rate} B/s above the 1 Gb/s line");
    assert!(
        rate > 0.9 * line * 1492.0 / 1530.0,
        "{rate} B/s: the port was not kept busy"
    );
    assert!(v.c.busy_out_ns as f64 <= secs * 1e9 * 1.001, "{:?}", v.c);
    // The guest signals once per message of 44 packets (65536 / 1492).
    let d = t.model.net.device(0);
    assert_eq!(d.c.siga_w * 44, d.c.frames_out, "{:?}", d.c);
    let (_, t10) = run(&sc(&text(4, "stream", "ZOS1", 10.0, 65536, 1)));
    let v10 = t10.model.net.vswitches().next().unwrap();
    // (There the two z/VM processors, not the line, limit the guests.)
    assert!(
        v10.c.tx_bytes as f64 > 1.5 * v.c.tx_bytes as f64,
        "{:?} vs {:?}",
        v10.c,
        v.c
    );
}

/// Request/response through the uplink: packets counted both ways, one SIGA
/// per send and one PCI interrupt per reply; the forwarding's CP time is
/// system time (the guests' own CP time is their SIGAs and receives), and
/// it is `vswitch_us` per packet.
#[test]
fn request_response_counts_packets_and_charges_the_system() {
    let base = text(2, "rr", "ZOS1", 1.0, 200, 1000);
    let (_, t) = run(&sc(&base));
    let v = t.model.net.vswitches().next().unwrap();
    let c = v.c;
    assert!(c.tx_packets > 1000, "{c:?}");
    // One packet each way per transaction (200 and 1000 bytes under the MTU).
    assert_eq!(c.tx_packets, c.siga_w);
    assert!(c.rx_packets.abs_diff(c.tx_packets) <= 2, "{c:?}");
    assert_eq!(c.pci_received, c.rx_packets);
    assert_eq!(c.local_packets, 0);
    let sys = |t: &Twin| t.model.cpu.counters().map(|c| c.sys_ns).sum::<u64>();
    // The same run with the VSWITCH free of cost: the system time drops by
    // 8 us per packet forwarded.
    let (_, t0) = run(&sc(&format!("{base}[net]\nvswitch_us = 0\n")));
    let c0 = t0.model.net.vswitches().next().unwrap().c;
    let per =
        |t: &Twin, c: &super::VswCounters| sys(t) as f64 / (c.tx_packets + c.rx_packets) as f64;
    let d = per(&t, &c) - per(&t0, &c0);
    // Free forwarding lets the guests run a few percent more transactions.
    assert!(c0.tx_packets >= c.tx_packets, "{c0:?} vs {c:?}");
    assert!(
        (d - 8_000.0).abs() < 1_500.0,
        "{d} ns of system time per packet"
    );
}

/// Two guests of this partition talk through the VSWITCH without the OSA:
/// no uplink counts, the packets counted as local, no adapter latency in
/// the response time.
#[test]
fn guest_to_guest_stays_off_the_osa() {
    let (_, t) = run(&sc(&text(2, "rr", "ZVM1", 1.0, 200, 1000)));
    let c = t.model.net.vswitches().next().unwrap().c;
    assert_eq!(
        (c.tx_packets, c.rx_packets, c.siga_w, c.pci_received),
        (0, 0, 0, 0)
    );
    assert!(c.local_packets > 1000, "{c:?}");
    let (_, te) = run(&sc(&text(2, "rr", "ZOS1", 1.0, 200, 1000)));
    let resp = |t: &Twin| {
        let (mut ns, mut n) = (0u64, 0u64);
        for d in 0..2 {
            let s = t.model.net.device(d);
            ns += s.c.resp_ns;
            n += s.c.transactions;
        }
        ns as f64 / n as f64
    };
    // Through the OSA: two adapter latencies (80 us) and the wire more.
    assert!(
        resp(&te) > resp(&t) + 70_000.0,
        "{} vs {}",
        resp(&te),
        resp(&t)
    );
}

/// A server on the LAN (outside the CEC) is always running: the response
/// is the adapters' latency, the wire and its work, with no wait for a
/// partition's processor; the traffic counts on the uplink.
#[test]
fn a_server_on_the_lan_does_not_wait_for_pr_sm() {
    let (_, t) = run(&sc(&text(2, "rr", "LAN", 1.0, 200, 1000)));
    let c = t.model.net.vswitches().next().unwrap().c;
    assert!(c.tx_packets > 1000 && c.rx_packets > 1000, "{c:?}");
    let d = t.model.net.device(0);
    let resp = d.c.resp_ns as f64 / d.c.transactions as f64;
    // 2 x 40 us of adapter latency, 100 us of server CPU, the wire (2 + 8.3 us).
    assert!((190_000.0..400_000.0).contains(&resp), "{resp} ns");
}

/// MRIODVSW once per sample for the uplink's DATA device (0602), with the
/// controller, queue storage, timeout tics and the counters the model has;
/// no QDIO records for virtual NICs. The same scenario twice: same bytes.
#[test]
fn mriodvsw_is_written_and_reads_back() {
    let s = sc(&text(2, "rr", "ZOS1", 1.0, 200, 1000));
    let (bytes, t) = run(&s);
    assert_eq!(bytes, run(&s).0);
    let c = t.model.net.vswitches().next().unwrap().c;
    let rd = ztwin_monitor::reader::Reader::new(std::io::Cursor::new(bytes)).unwrap();
    let mut recs = Vec::new();
    let mut qdio = 0;
    rd.for_each(|r| match r.layout.map(|l| l.name) {
        Some("MRIODVSW") => recs.push(r.bytes.to_vec()),
        Some("MRIODQDA" | "MRIODQDS" | "MRIODQDD") => qdio += 1,
        _ => {}
    })
    .unwrap();
    assert_eq!(qdio, 0);
    assert_eq!(recs.len(), 3, "one per 10 s sample");
    let last = recs.last().unwrap();
    let u = |o: usize, n: usize| last[o..o + n].iter().fold(0u64, |a, &b| a << 8 | b as u64);
    assert_eq!(u(24, 2), 0x0602);
    assert_eq!((u(26, 1), u(28, 2)), (8, 10));
    let user = ztwin_monitor::ebcdic::decode(&last[32..40]);
    assert_eq!(user.trim_end(), "DTCVSW2");
    assert_eq!(u(40, 8), c.tx_bytes);
    assert_eq!(u(56, 8), c.rx_bytes);
    assert_eq!(u(72, 4), c.tx_packets);
    assert_eq!(u(104, 4), c.siga_w);
    assert_eq!(u(120, 4), c.pci_received);
    // Counters grow from sample to sample.
    let tx = |r: &Vec<u8>| r[72..76].iter().fold(0u64, |a, &b| a << 8 | b as u64);
    assert!(tx(&recs[0]) < tx(&recs[1]) && tx(&recs[1]) < tx(&recs[2]));
}

#[test]
fn bad_vswitch_references_name_the_line() {
    let base = text(1, "rr", "ZOS1", 1.0, 200, 1000);
    let err = |t: &str| Scenario::from_toml(t, "v.toml").unwrap_err().to_string();
    let line = |pat: &str| {
        format!(
            "line {}",
            base.lines().position(|l| l.starts_with(pat)).unwrap() + 1
        )
    };
    let (wl, up, ctl) = (line("workload"), line("uplink"), line("controller"));
    // NIC coupled to an undefined VSWITCH (the guest's workload line).
    let m = err(&base.replace("vswitch = \"VSW1\", vlan", "vswitch = \"VSW9\", vlan"));
    assert!(m.contains("v.toml") && m.contains(&wl), "{m}");
    assert!(m.contains("VSWITCH VSW9 which is not defined"), "{m}");
    // Uplink on an OSA that is not defined (the uplink's line).
    let m = err(&base.replace("chpid = \"E0\" }", "chpid = \"E1\" }"));
    assert!(
        m.contains(&up) && m.contains("uplink OSA CHPID E1 is not defined"),
        "{m}"
    );
    // A port the OSA does not have.
    let m = err(&base.replace("chpid = \"E0\" }", "chpid = \"E0\", port = 1 }"));
    assert!(m.contains("port 1 does not exist"), "{m}");
    // A VLAN not granted.
    let m = err(&base.replace("vlan = 100", "vlan = 300"));
    assert!(
        m.contains(&wl) && m.contains("VLAN 300 is not granted on VSWITCH VSW1"),
        "{m}"
    );
    // No uplink: only this partition's guests.
    let m = err(&base.replace("uplink = { rdev = \"0600\", chpid = \"E0\" }\n", ""));
    assert!(m.contains("has no uplink") && m.contains("'ZOS1'"), "{m}");
    assert!(Scenario::from_toml(
        &base
            .replace("uplink = { rdev = \"0600\", chpid = \"E0\" }\n", "")
            .replace("peer = \"ZOS1\"", "peer = \"ZVM1\""),
        "v.toml"
    )
    .is_ok());
    // A server outside the CEC ("LAN") through the uplink; not without one,
    // and only through a VSWITCH.
    assert!(
        Scenario::from_toml(&base.replace("peer = \"ZOS1\"", "peer = \"LAN\""), "v.toml").is_ok()
    );
    let m = err(&base
        .replace("uplink = { rdev = \"0600\", chpid = \"E0\" }\n", "")
        .replace("peer = \"ZOS1\"", "peer = \"LAN\""));
    assert!(m.contains("has no uplink") && m.contains("'LAN'"), "{m}");
    // Settings out of CP's ranges; a missing VSWITCH name on the workload.
    let m = err(&base.replace("controller = \"DTCVSW2\"", "queue_storage = 9"));
    assert!(
        m.contains(&ctl) && m.contains("queue_storage") && m.contains("1 to 8"),
        "{m}"
    );
    let m = err(&base.replace("gbps = 1", "gbps = 0"));
    assert!(m.contains("0.1 to 100"), "{m}");
    let m = err(&base.replace("vswitch = \"VSW1\", vlan = 100, ", ""));
    assert!(m.contains("needs the VSWITCH"), "{m}");
    let m = err(&base.replace(
        "[[vswitch]]\nname = \"VSW1\"",
        "[[vswitch]]\nname = \"VSWITCH01\"",
    ));
    assert!(m.contains("1 to 8 characters"), "{m}");
}
