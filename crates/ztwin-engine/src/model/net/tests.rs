//! The network component: the rendezvous wait on its own, then whole runs of
//! a guest's request/response traffic to a peer partition, in a CEC whose CP
//! pool is free or saturated, over HiperSockets and over an OSA, and the
//! QDIO records they write.

use super::*;
use crate::model::{monitor, Twin};
use crate::scenario::Scenario;

#[test]
fn gap_wait_is_zero_when_available_and_averages_the_gap_otherwise() {
    let mut rng = Rng::new(1, crate::core::rng::Stream::System, 0);
    assert_eq!(gap_wait(1.0, 10_000_000, &mut rng), 0);
    assert_eq!(gap_wait(0.5, 0, &mut rng), 0);
    // f = 0.6, slice 10 ms: undispatched 40% of the time, gaps of 6.67 ms,
    // half of one waited on average: 0.4 * 3.33 ms = 1.33 ms.
    let n = 200_000;
    let (f, s) = (0.6, 10_000_000u64);
    let mean = (0..n).map(|_| gap_wait(f, s, &mut rng) as f64).sum::<f64>() / n as f64;
    let want = s as f64 * (1.0 - f) * (1.0 - f) / f / 2.0;
    assert!((mean / want - 1.0).abs() < 0.02, "{mean} vs {want}");
}

fn net(hs: bool) -> Net {
    let h = HiperSockets {
        chpid: "F4".into(),
        mfs: crate::core::units::Size(16 << 10),
        partitions: Vec::new(),
        copy_gb_s: 2.0,
    };
    let via = if hs { Via::HiperSockets } else { Via::Osa };
    let d = DevDef {
        devno: 0x7000,
        guest: 0,
        via,
        chpid: 0xF4,
        peer: None,
        vsw: None,
        vlan: 0,
        external: true,
    };
    Net::new(&Params::default(), &[h], &[], &[], vec![d], 1)
}

#[test]
fn a_send_without_a_cec_is_the_copy_and_counts_frames() {
    let mut rng = Rng::new(1, crate::core::rng::Stream::System, 0);
    let mut n = net(true);
    let av = Avail { cec: None };
    // 40,000 bytes in 16K frames: 3 frames, copied at 2 GB/s = 20 us.
    assert_eq!(n.send(0, 40_000, av, &mut rng), 20_000);
    assert_eq!(n.receive(0, 600), 10_000);
    let c = n.device(0).c;
    assert_eq!((c.siga_w, c.frames_out, c.bytes_out), (3, 3, 40_000));
    assert_eq!((c.siga_r, c.frames_in, c.bytes_in), (1, 1, 600));
    assert_eq!(c.wait_ns, 0);
    // An OSA send is the SIGA per frame; the peer's turn adds the adapter's
    // latency both ways to the server's CPU.
    let mut o = net(false);
    assert_eq!(o.send(0, 2900, av, &mut rng), 2 * 5_000);
    assert_eq!(
        o.peer_turn(0, 100_000, 600, None, av, &mut rng),
        100_000 + 80_000
    );
    // Activation and deactivation are events once each.
    o.activate(0, 5);
    o.activate(0, 6);
    o.deactivate(0, 7);
    assert_eq!(
        o.take_events(),
        vec![(DevEvent::Activate, 0, 5), (DevEvent::Deactivate, 0, 7)]
    );
    o.check();
}

/// One z/VM partition on 4 IFLs; a z/OS partition ZOS1 on the CEC's CPs
/// (`cps` of them) asking for `zos_busy` engines; a Linux guest exchanging
/// 600-byte requests and responses with a server in ZOS1 over `via`.
fn scenario(cps: u16, zos_busy: f64, via: &str) -> Scenario {
    Scenario::from_toml(&scenario_text(cps, zos_busy, via), "net.toml").unwrap()
}

fn scenario_text(cps: u16, zos_busy: f64, via: &str) -> String {
    format!(
        r#"
[scenario]
duration = "60s"
[system]
processors = 2
central_storage = "512M"
lpar_name = "ZVM1"
[monitor]
sample_interval = "10s"
[lpar]
physical = {{ cp = {cps}, ifl = 4 }}
[[lpar.partition]]
name = "ZOS1"
type = "CP"
logical = 4
weight = 100
busy = {zos_busy}
[[lpar.partition]]
name = "ZOS2"
type = "CP"
logical = 4
weight = 300
busy = {zos_busy}
[[hipersockets]]
chpid = "F4"
[[guest]]
userid = "LNX"
count = 2
virtual_storage = "256M"
workload = {{ type = "net", pattern = "rr", via = "{via}", chpid = "F4", device = "7000", peer = "ZOS1", request = 600, response = 600, think = "20ms", jitter = 0.0, client_cpu_us = 50, server_cpu_us = 200 }}
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

/// Mean response time (ms) and transactions of the run's devices.
fn response(t: &Twin) -> (f64, u64) {
    let (mut ns, mut n) = (0u64, 0u64);
    for d in t.model.net.devices() {
        ns += d.c.resp_ns;
        n += d.c.transactions;
    }
    (ns as f64 / n.max(1) as f64 / 1e6, n)
}

#[test]
fn hipersockets_slow_down_in_a_cpu_constrained_cec_and_osa_does_not() {
    // ZOS1 and ZOS2 ask for 3 engines each: on 10 CPs they get it; on 4
    // they get their weights' shares, 1 and 3 engines (weights 100 and 300).
    let (_, free) = run(&scenario(10, 3.0, "hipersockets"));
    let (bytes, tight) = run(&scenario(4, 3.0, "hipersockets"));
    let (_, osa) = run(&scenario(4, 3.0, "osa"));
    let (rf, nf) = response(&free);
    let (rt, nt) = response(&tight);
    let (ro, _) = response(&osa);
    eprintln!("free {rf:.3} ms ({nf}), saturated {rt:.3} ms ({nt}), OSA {ro:.3} ms");
    // Free: the client's CPU, the copies, the server's 200 us, the receive.
    assert!(rf < 0.4, "free CEC: {rf} ms");
    // ZOS1 gets a third of what it asks for: its server's 200 us take 600,
    // and a send finds its processor undispatched 2 times in 3, waiting on
    // average half of a 25 ms gap: about 8 ms (9.0 ms measured).
    assert!(
        rt > 10.0 * rf && rt > 3.0,
        "saturated CEC: {rt} ms vs {rf} ms"
    );
    // The same request over an OSA waits only for the first of ZOS1's four
    // logical processors to run (1.7 ms measured).
    assert!(ro < rt / 2.0, "OSA {ro} ms vs HiperSockets {rt} ms");
    // Fewer transactions in the same time (a closed loop).
    assert!(nt < nf, "{nt} vs {nf}");
    let wait: u64 = tight.model.net.devices().map(|d| d.c.wait_ns).sum();
    assert!(wait > 0);
    tight.model.net.check();
    tight.model.cec.as_ref().unwrap().check();

    // The records: one activation per device, then one MRIODQDS per device
    // and interval whose counters are the component's at the end.
    use ztwin_monitor::layout::{decode_field, Value};
    let rd = ztwin_monitor::reader::Reader::new(std::io::Cursor::new(bytes)).unwrap();
    let (mut qda, mut qds, mut last) = (0, 0, std::collections::BTreeMap::new());
    rd.for_each(|r| {
        let Some(l) = r.layout else { return };
        let u = |f: &str| match decode_field(r.bytes, l.f(f)) {
            Some(Value::U(x)) => x,
            v => panic!("{f}: {v:?}"),
        };
        match l.name {
            "MRIODQDA" => {
                qda += 1;
                assert_eq!(u("IODQDA_QDIOFMT"), 2, "HiperSockets");
            }
            "MRIODQDS" => {
                qds += 1;
                last.insert(
                    u("IODQDS_RDEVDEV"),
                    (u("IODQDS_QDIOCSGW"), u("IODQDS_BYTESOUT")),
                );
            }
            _ => {}
        }
    })
    .unwrap();
    assert_eq!(qda, 2);
    assert_eq!(qds, 2 * 6);
    for d in tight.model.net.devices() {
        let (w, b) = last[&(d.devno as u64)];
        // The last sample is at 60 s, the end of the run: nothing after it.
        assert_eq!((w, b), (d.c.siga_w, d.c.bytes_out), "{:04X}", d.devno);
    }
    assert_eq!(
        last.keys().copied().collect::<Vec<_>>(),
        vec![0x7000, 0x7003]
    );
}

#[test]
fn same_scenario_same_seed_same_bytes() {
    let sc = scenario(4, 3.0, "hipersockets");
    assert_eq!(run(&sc).0, run(&sc).0);
}

#[test]
fn bad_network_references_name_the_line() {
    let text = |peer: &str, chpid: &str| {
        format!(
            r#"[system]
processors = 2
central_storage = "512M"
lpar_name = "ZVM1"
[lpar]
physical = {{ cp = 4, ifl = 4 }}
[[lpar.partition]]
name = "ZOS1"
logical = 2
[[hipersockets]]
chpid = "F4"
[[guest]]
userid = "LNX"
virtual_storage = "256M"
workload = {{ type = "net", pattern = "rr", chpid = "{chpid}", device = "7000", peer = "{peer}" }}
"#
        )
    };
    let e = Scenario::from_toml(&text("ZOS9", "F4"), "n.toml").unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("n.toml") && msg.contains("line 15"), "{msg}");
    assert!(msg.contains("partition 'ZOS9' does not exist"), "{msg}");
    let msg = Scenario::from_toml(&text("ZOS1", "F5"), "n.toml")
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("line 15") && msg.contains("CHPID F5 is not defined"),
        "{msg}"
    );
    let msg = Scenario::from_toml(&text("ZOS1", "XYZ"), "n.toml")
        .unwrap_err()
        .to_string();
    assert!(msg.contains("is not a CHPID"), "{msg}");
    // The own partition is a peer too (guest to guest); a bad frame size
    // names its entry.
    assert!(Scenario::from_toml(&text("ZVM1", "F4"), "n.toml").is_ok());
    let bad = text("ZOS1", "F4").replace(
        "chpid = \"F4\"\n[[guest]]",
        "chpid = \"F4\"\nmfs = \"20K\"\n[[guest]]",
    );
    let msg = Scenario::from_toml(&bad, "n.toml").unwrap_err().to_string();
    assert!(
        msg.contains("line 12") && msg.contains("16K, 24K, 40K or 64K"),
        "{msg}"
    );
}

proptest::proptest! {
    /// A wait is never longer than one gap, and never happens when the
    /// processor is always available.
    #[test]
    fn a_wait_is_at_most_one_gap(f in 0.001f64..=1.0, slice in 1u64..100_000_000, seed in 0u64..1000) {
        let mut rng = Rng::new(seed, crate::core::rng::Stream::System, 0);
        let w = gap_wait(f, slice, &mut rng);
        proptest::prop_assert!(w as f64 <= slice as f64 * (1.0 - f) / f + 1.0);
        if f >= 1.0 {
            proptest::prop_assert_eq!(w, 0);
        }
    }
}

/// A guest whose timeline starts another workload leaves its device:
/// deactivated (an MRIODQDD), and no more MRIODQDS for it.
#[test]
fn a_workload_change_deactivates_the_device() {
    let mut text = String::new();
    for l in scenario_text(10, 0.0, "hipersockets").lines() {
        text.push_str(l);
        text.push('\n');
    }
    text.push_str("[[timeline]]\nat = \"25s\"\naction = \"start\"\nguest = \"LNX1\"\nworkload = { type = \"cpu\", utilization = 0.1 }\n");
    let sc = Scenario::from_toml(&text, "n.toml").unwrap();
    let (bytes, t) = run(&sc);
    let d: Vec<_> = t.model.net.devices().collect();
    assert!(!d[0].active && d[1].active);
    let rd = ztwin_monitor::reader::Reader::new(std::io::Cursor::new(bytes)).unwrap();
    let (mut qdd, mut qds7000) = (0, 0);
    rd.for_each(|r| match r.layout.map(|l| l.name) {
        Some("MRIODQDD") => qdd += 1,
        Some("MRIODQDS") if r.bytes[20..22] == [0x70, 0x00] => qds7000 += 1,
        _ => {}
    })
    .unwrap();
    // Samples at 10 and 20 s while active; deactivated at 25 s.
    assert_eq!((qdd, qds7000), (1, 2));
}
