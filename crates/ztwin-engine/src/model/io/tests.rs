//! A bench for the I/O component alone: volumes from literal definitions (or
//! a scenario's I/O sections), its own core, a loop that pops only its events
//! and does what `model/mod.rs` does with a completion (release the request,
//! start the next). The closed-loop driver stands in for the issuers: each
//! "user" submits its next request when the previous one completes (after a
//! think time, timed with `Ev::Wake`).

use super::*;
use crate::core::units::{MS, SEC, US};
use crate::model::{Core, Ev as ModelEv};
use crate::scenario::Scenario;

fn vol(devno: u16, svc: ServiceTime) -> VolumeDef {
    VolumeDef {
        devno,
        volser: format!("V{devno:04X}"),
        device_type: "3390-9".into(),
        cylinders: 10_017,
        paging: false,
        service: svc,
        kind: DevKind::Eckd,
        blocks: 10_017 * 180,
        path: None,
        aliases: Vec::new(),
    }
}

/// 1 ms pending, 2 ms disconnect, 0.5 ms + 0.25 ms per page connect, no jitter.
fn fixed() -> ServiceTime {
    ServiceTime {
        pending_ms: 1.0,
        disconnect_ms: 2.0,
        connect_ms_per_io: 0.5,
        connect_ms_per_page: 0.25,
        jitter: 0.0,
    }
}

fn cfg() -> IoConfig {
    IoConfig::default()
}

/// Handle the next event; `None` when the queue is empty.
fn step(io: &mut Io, core: &mut Core, cpu: u16) -> Option<Done> {
    loop {
        let (t, ev) = core.q.pop()?;
        core.now = t;
        let e = ev.into_io();
        let mut cx = Cx::new(core, cpu);
        if let Some(d) = io.handle(&mut cx, e) {
            io.release(d.req);
            io.start_next(&mut cx, d.vol);
            io.check();
            return Some(d);
        }
        io.check();
    }
}

#[test]
fn fifo_completion_order_and_counters_add_up() {
    let mut io = Io::new(vec![vol(0x100, fixed()), vol(0x101, fixed())], 2, 1, &cfg());
    let mut core = Core::new(10 * SEC);
    let mut cx = Cx::new(&mut core, 1);
    let mut sub = vec![];
    for (k, pages) in [(0u32, 4u32), (1, 1), (2, 2)] {
        let r = io.alloc(&cx, 0, pages, Origin::Minidisk { vcpu: k });
        sub.push(io.submit(&mut cx, r));
        io.check();
    }
    assert_eq!(
        sub,
        [Submitted::Started, Submitted::Queued, Submitted::Queued]
    );
    assert_eq!(io.load(0).in_flight, 3);
    let mut done = vec![];
    while let Some(d) = step(&mut io, &mut core, 0) {
        done.push((d.origin, core.now, d.resp_ns, d.pages, d.cpu));
    }
    // Service: 3 ms + 0.5 ms + 0.25 ms per page, back to back from time 0.
    let ms = crate::core::units::MS;
    let (t1, t2, t3) = (4_500_000, 4_500_000 + 3_750_000, 8_250_000 + 4_000_000);
    assert_eq!(
        done,
        [
            (Origin::Minidisk { vcpu: 0 }, t1, t1, 4, 1),
            (Origin::Minidisk { vcpu: 1 }, t2, t2, 1, 1),
            (Origin::Minidisk { vcpu: 2 }, t3, t3, 2, 1),
        ]
    );
    let d: Vec<_> = io.devices().collect();
    let c = d[0].c;
    assert_eq!(c.ssch, 3);
    assert_eq!((c.pend_ns, c.disc_ns), (3 * ms, 6 * ms));
    assert_eq!(c.conn_ns, 3 * ms / 2 + 7 * ms / 4);
    assert_eq!(c.pend_ns + c.disc_ns + c.conn_ns, t3, "busy all along");
    assert_eq!(c.resp_ns, t1 + t2 + t3);
    assert_eq!(d[1].c, DevCounters::default(), "the other volume is idle");
    assert_eq!(io.ssch_by_cpu(), [0, 3]);
    assert!(!d[0].busy && d[0].queued == 0);
    assert_eq!(io.arena(), (3, 3), "every request back in the free list");
}

/// A saturated volume is busy all the time: completions per second times the
/// mean service time is 1, and the busy time the counters add up to is the
/// elapsed time. With jitter, so each I/O takes its own time.
#[test]
fn busy_is_rate_times_service_on_a_saturated_volume() {
    let svc = ServiceTime {
        jitter: 0.3,
        ..fixed()
    };
    let mut io = Io::new(vec![vol(0x200, svc)], 1, 7, &cfg());
    let mut core = Core::new(10 * SEC);
    // A closed loop of 4 requests: each completion submits another.
    let mut cx = Cx::new(&mut core, 0);
    for k in 0..4 {
        let r = io.alloc(&cx, 0, 2, Origin::Minidisk { vcpu: k });
        io.submit(&mut cx, r);
    }
    let mut n = 0u64;
    let mut last = 0;
    while let Some((t, ev)) = core.q.pop() {
        if t > 10 * SEC {
            break;
        }
        core.now = t;
        let e = ev.into_io();
        let mut cx = Cx::new(&mut core, 0);
        let d = io
            .handle(&mut cx, e)
            .expect("constant model: every event completes");
        io.release(d.req);
        io.start_next(&mut cx, d.vol);
        // Back at the end of the queue (submitted before `start_next`, it
        // would take the free exposure ahead of the queue).
        let again = io.alloc(&cx, 0, 2, d.origin);
        assert_eq!(io.submit(&mut cx, again), Submitted::Queued);
        io.check();
        n += 1;
        last = t;
    }
    let c = io.devices().next().unwrap().c;
    let busy = c.pend_ns + c.disc_ns + c.conn_ns;
    // The I/O still running at the end started but did not complete.
    assert_eq!(c.ssch, n + 1);
    let mean = busy as f64 / c.ssch as f64;
    let rate = n as f64 / last as f64;
    assert!(
        (rate * mean - 1.0).abs() < 0.01,
        "rate {rate} x service {mean}"
    );
    assert!(busy > last && busy - last < 6_000_000, "{busy} vs {last}");
    // Mean service near its parameters: 3 ms + 0.5 + 2 x 0.25.
    assert!((mean / 4e6 - 1.0).abs() < 0.03, "{mean}");
    // Every completion waited behind the three others.
    assert!(c.resp_ns as f64 > 3.5 * busy as f64, "{c:?}");
}

#[test]
#[should_panic(expected = "requests wait behind an idle exposure")]
fn check_finds_a_request_queued_behind_an_idle_exposure() {
    let mut io = Io::new(vec![vol(0x100, fixed())], 1, 1, &cfg());
    let mut core = Core::new(SEC);
    let cx = Cx::new(&mut core, 0);
    let r = io.alloc(&cx, 0, 1, Origin::Minidisk { vcpu: 0 });
    io.vols[0].queue.push_back(r);
    io.check();
}

// ------------------------------------------------------------------ path model

/// A scenario skeleton: the I/O sections go after it.
const BASE: &str = r#"
[system]
processors = 2
central_storage = "1G"
"#;

/// The volumes and I/O configuration of scenario text `io` (appended to
/// [`BASE`]), built as `Twin::new` builds them.
fn build(io: &str) -> Io {
    let sc =
        Scenario::from_toml(&format!("{BASE}{io}"), "bench.toml").unwrap_or_else(|e| panic!("{e}"));
    let (defs, _) = params::volumes(&sc.paging, &sc.dasd);
    Io::new(defs, 2, 3, &sc.io_config())
}

/// One issuer of the closed loop: its volume and the requests it sends.
#[derive(Clone, Copy)]
struct User {
    vol: u32,
    rq: Request,
    think: Ns,
}

/// What a closed-loop run measured.
#[derive(Debug, Default)]
struct Run {
    /// Simulated seconds measured (after the warm-up).
    secs: f64,
    completed: u64,
    bytes: u64,
    /// Requests submitted.
    submitted: u64,
}

impl Run {
    fn ios(&self) -> f64 {
        self.completed as f64 / self.secs
    }
    fn mb_s(&self) -> f64 {
        self.bytes as f64 / self.secs / 1e6
    }
}

/// Run `users` in a closed loop for `warm` then `secs` simulated seconds;
/// counters are those of the whole run, throughput that after the warm-up.
/// With `drain`, stop submitting at the end and run until every I/O is done.
fn closed_loop(io: &mut Io, users: &[User], warm: f64, secs: f64, drain: bool) -> Run {
    let end = ((warm + secs) * SEC as f64) as Ns;
    let t0 = (warm * SEC as f64) as Ns;
    let mut core = Core::new(end);
    let mut run = Run {
        secs,
        ..Run::default()
    };
    let submit = |io: &mut Io, core: &mut Core, u: u32, run: &mut Run| {
        let us = users[u as usize];
        let mut cx = Cx::new(core, 0);
        let r = io.alloc_req(&cx, us.vol, us.rq, Origin::Minidisk { vcpu: u });
        io.submit(&mut cx, r);
        run.submitted += 1;
    };
    for u in 0..users.len() as u32 {
        submit(io, &mut core, u, &mut run);
    }
    let mut stopping = false;
    while let Some((t, ev)) = core.q.pop() {
        if t > end && !stopping {
            if !drain {
                break;
            }
            stopping = true;
        }
        core.now = t;
        match ev {
            ModelEv::IoDone { .. }
            | ModelEv::IoStep { .. }
            | ModelEv::IoArm { .. }
            | ModelEv::IoDa { .. } => {
                let mut cx = Cx::new(&mut core, 0);
                if let Some(d) = io.handle(&mut cx, ev.into_io()) {
                    io.release(d.req);
                    io.start_next(&mut cx, d.vol);
                    if t > t0 && t <= end {
                        run.completed += 1;
                        run.bytes += users[d.origin_user() as usize].rq.bytes as u64;
                    }
                    let u = d.origin_user();
                    if !stopping {
                        let think = users[u as usize].think;
                        if think > 0 {
                            cx.at(think, crate::model::cpu::Ev::Wake { vcpu: u });
                        } else {
                            submit(io, &mut core, u, &mut run);
                        }
                    }
                }
            }
            ModelEv::Wake { vcpu } if !stopping => submit(io, &mut core, vcpu, &mut run),
            ModelEv::Wake { .. } => {}
            other => panic!("unexpected event {other:?}"),
        }
        io.check();
    }
    run
}

impl Done {
    fn origin_user(&self) -> u32 {
        match self.origin {
            Origin::Minidisk { vcpu } => vcpu,
            o => panic!("not a bench request: {o:?}"),
        }
    }
}

/// An ESS-like server with `ranks` ranks and `has` host adapters; one LCU
/// over `chpids` FICON CHPIDs (40, 41, ...) reaching adapters in turn.
fn ess(ranks: u32, has: u32, chpids: u32, extra: &str) -> String {
    let list: Vec<String> = (0..chpids)
        .map(|k| format!("\"{:02X}\"", 0x40 + k))
        .collect();
    format!(
        r#"
[[chpid]]
id = "40"
count = {chpids}
type = "ficon"

[[storage_server]]
name = "ESS1"
host_adapters = {has}
ha_mb_s = 100
device_adapters = 4
da_mb_s = 400
{extra}
[[storage_server.rank]]
name = "R"
count = {ranks}
disks = 8

[[control_unit]]
name = "LCU0"
server = "ESS1"
chpids = [{}]
"#,
        list.join(", ")
    )
}

fn dasd(first: &str, count: u32, path: &str) -> String {
    format!(
        "\n[[dasd]]\ndevice_type = \"3390-9\"\ncount = {count}\nfirst_address = \"{first}\"\nvolser_prefix = \"V{}\"\npath = {{ {path} }}\n",
        &first[..2]
    )
}

fn seq_read(kb: u32, kind: Kind) -> Request {
    Request {
        pages: kb / 4,
        bytes: kb * 1024,
        span: kb * 1024,
        write: false,
        seq: true,
        kind,
    }
}

/// Hits only (every read found in cache): each I/O holds a channel path for
/// CMR + overhead + bytes at the link rate. The channels' measured busy time
/// is the completions times that hold (the utilisation law U = X * D), and
/// each subchannel's busy time is its completions times the service time.
#[test]
fn channel_and_device_busy_follow_the_utilisation_law() {
    let text = format!(
        "{}{}",
        ess(1, 4, 2, "read_hit = 1.0"),
        dasd("1000", 6, "control_unit = \"LCU0\"")
    );
    let mut io = build(&text);
    let rq = Request::read(4, Kind::Minidisk);
    let users: Vec<User> = (0..6)
        .map(|v| User {
            vol: v,
            rq,
            think: 200 * US,
        })
        .collect();
    let run = closed_loop(&mut io, &users, 0.0, 20.0, true);
    let pc = io.path_counters();
    assert_eq!(pc.started, pc.completed, "drained: every I/O completed");
    assert_eq!(run.submitted, pc.started, "every request submitted ran");
    // D per I/O on a channel: CMR 0.05 ms + overhead 0.1 ms + 16 KB at 100
    // MB/s (the adapter is the slowest link).
    let hold = 50_000.0 + 100_000.0 + (16_384.0 * 1_000.0 / 100.0);
    let ch: Vec<ChpSample> = io.chpids().collect();
    let busy: u64 = ch.iter().map(|c| c.busy_ns).sum();
    let ios: u64 = ch.iter().map(|c| c.ios).sum();
    assert_eq!(ios, pc.completed, "one channel hold per hit");
    let expect = ios as f64 * hold;
    assert!(
        (busy as f64 / expect - 1.0).abs() < 1e-6,
        "channel busy {busy} vs X*D {expect}"
    );
    assert!(ch[0].ios > 0 && ch[1].ios > 0, "both paths used");
    // Each subchannel: busy = SSCHs x (pend + disc + conn), with disc zero.
    for d in io.devices() {
        let c = d.c;
        assert_eq!(c.disc_ns, 0, "no misses");
        let serv = (c.pend_ns + c.conn_ns) as f64 / c.ssch as f64;
        assert!(serv >= hold - 1.0, "{serv} below the hold {hold}");
    }
    // Utilisation of the two channels over the run.
    let u = busy as f64 / (2.0 * 20e9);
    let x = pc.completed as f64 / 20.0;
    assert!(
        (u - x * hold / 2e9).abs() < 0.01,
        "U {u} vs X*D/2 {}",
        x * hold / 2e9
    );
}

/// Back-end law: with every read a miss, each I/O costs its rank one stage
/// (positioning + 48 KB at the media rate) and its device adapter 48 KB;
/// ranks and adapters are busy X * D / servers.
#[test]
fn rank_and_adapter_busy_follow_the_utilisation_law() {
    let text = format!(
        "{}{}",
        ess(2, 4, 4, "read_hit = 0.0"),
        dasd("1000", 8, "control_unit = \"LCU0\"")
    );
    let mut io = build(&text);
    let users: Vec<User> = (0..8)
        .map(|v| User {
            vol: v,
            rq: Request::read(1, Kind::Minidisk),
            think: 2_000 * US,
        })
        .collect();
    closed_loop(&mut io, &users, 0.0, 20.0, true);
    let pc = io.path_counters();
    let stages: u64 = io.ranks().map(|r| r.stages).sum();
    assert_eq!(stages, pc.completed, "one stage per miss");
    // Positioning is drawn per access (uniform, mean 6 ms): the arm time per
    // stage averages D within the sampling error.
    let d_rank = 6e6 + 49_152.0 * 1_000.0 / 40.0;
    let busy: u64 = io.ranks().map(|r| r.busy_ns).sum();
    assert!(
        (busy as f64 / (stages as f64 * d_rank) - 1.0).abs() < 0.02,
        "rank arm time {busy} vs stages x D"
    );
    let d_da = 49_152.0 * 1_000.0 / 400.0;
    assert!(
        (pc.da_busy_ns as f64 / (stages as f64 * d_da) - 1.0).abs() < 1e-6,
        "adapter time {} vs stages x D",
        pc.da_busy_ns
    );
    // Every miss disconnected for the stage, on average at least.
    for d in io.devices() {
        assert!(d.c.disc_ns as f64 >= d.c.ssch as f64 * (d_rank + d_da) * 0.95);
    }
}

/// Conservation: every request submitted is started once and completes once,
/// whatever waits it went through (paths, aliases, NVS, prestaging); after
/// the drain nothing is left anywhere, and NVS is empty once destaged.
#[test]
fn every_io_submitted_completes_once() {
    let text = format!(
        "{}{}{}",
        ess(
            2,
            2,
            2,
            "read_hit = 0.5\nnvs = \"1M\"\ncache = \"64M\"\nprestage = \"64K\""
        ),
        dasd("1000", 3, "control_unit = \"LCU0\", aliases = 2"),
        dasd("1100", 3, "control_unit = \"LCU0\"")
    )
    .replace(
        "chpids = [",
        "hyperpav_aliases = 2\nalias_address = \"10F0\"\nchpids = [",
    );
    let mut io = build(&text);
    let mut users = Vec::new();
    for v in 0..6u32 {
        for (i, rq) in [
            Request::read(2, Kind::Minidisk),
            Request::write(8, Kind::Minidisk),
            seq_read(64, Kind::Minidisk),
            Request {
                seq: true,
                ..Request::write(16, Kind::Mdc)
            },
        ]
        .into_iter()
        .enumerate()
        {
            users.push(User {
                vol: v,
                rq,
                think: (i as Ns + 1) * 300 * US,
            });
        }
    }
    let run = closed_loop(&mut io, &users, 0.0, 10.0, true);
    let pc = io.path_counters();
    assert_eq!(pc.started, run.submitted);
    assert_eq!(pc.completed, run.submitted);
    assert!(pc.queued > 100, "requests queued in CP: {pc:?}");
    assert!(pc.on_alias > 100, "aliases carried I/O: {pc:?}");
    let (n, free) = io.arena();
    assert_eq!(n, free, "every request record free again");
    let cache: Vec<CacheCounters> = io.devices().filter_map(|d| d.cache).collect();
    let nvs_full: u64 = cache.iter().map(|c| c.nvs_full).sum();
    assert!(nvs_full > 0, "the 1 MB NVS filled: {cache:?}");
    let seq: u64 = cache.iter().map(|c| c.seq_reads).sum();
    let hits: u64 = cache.iter().map(|c| c.seq_hits).sum();
    assert!(
        hits > seq / 2,
        "prestaging kept ahead of most reads: {hits}/{seq}"
    );
    // Counted per subchannel: SSCHs add up to the requests.
    let ssch: u64 = io.devices().map(|d| d.c.ssch).sum();
    assert_eq!(ssch, run.submitted);
}

/// A request never starts on a busy exposure: one volume without aliases
/// takes one I/O at a time, the rest queue in CP (checked after every event
/// by `Io::check` too).
#[test]
fn one_io_at_a_time_on_an_exposure() {
    let text = format!(
        "{}{}",
        ess(1, 4, 4, ""),
        dasd("1000", 1, "control_unit = \"LCU0\"")
    );
    let mut io = build(&text);
    let mut core = Core::new(SEC);
    let mut cx = Cx::new(&mut core, 0);
    let got: Vec<Submitted> = (0..3)
        .map(|k| {
            let r = io.alloc_req(
                &cx,
                0,
                Request::read(1, Kind::Minidisk),
                Origin::Minidisk { vcpu: k },
            );
            io.submit(&mut cx, r)
        })
        .collect();
    assert_eq!(
        got,
        [Submitted::Started, Submitted::Queued, Submitted::Queued]
    );
    assert_eq!(io.load(0).in_flight, 3);
    let mut order = Vec::new();
    while let Some(d) = step(&mut io, &mut core, 0) {
        order.push(d.origin_user());
        assert!(io.load(0).in_flight <= 2);
    }
    assert_eq!(order, [0, 1, 2], "FIFO");
    let d = io.device(0);
    assert_eq!(d.c.ssch, 3);
    assert!(
        d.c.resp_ns > d.c.pend_ns + d.c.disc_ns + d.c.conn_ns,
        "queue time counted in response"
    );
}

/// HyperPAV: the aliases bound at once never exceed the LCU's pool, the pool
/// is used to the full under load, and the pool's tries and failures count.
#[test]
fn hyperpav_aliases_never_exceed_the_pool() {
    let text = format!(
        "{}{}",
        ess(2, 4, 4, "read_hit = 0.0"),
        dasd("2000", 6, "control_unit = \"LCU0\"")
    )
    .replace(
        "chpids = [",
        "hyperpav_aliases = 4\nalias_address = \"20F0\"\nchpids = [",
    );
    let mut io = build(&text);
    let users: Vec<User> = (0..24)
        .map(|u| User {
            vol: u % 6,
            rq: Request::read(1, Kind::Minidisk),
            think: 0,
        })
        .collect();
    closed_loop(&mut io, &users, 0.0, 5.0, true);
    let pc = io.path_counters();
    assert_eq!(pc.max_bound, 4, "the pool was exhausted, never exceeded");
    let cu = io.control_units().next().unwrap();
    assert_eq!((cu.hyper_aliases, cu.free), (4, 4));
    assert!(cu.tries > cu.fails && cu.fails > 0, "{cu:?}");
    assert_eq!(cu.min_free, 0);
    // The aliases show as subchannels of their own.
    let aliases: Vec<_> = io.devices().filter(|d| d.hyperpav).collect();
    assert_eq!(aliases.len(), 4);
    assert_eq!(aliases[0].devno, 0x20F0);
    assert!(aliases.iter().all(|a| a.c.ssch > 0));
}

/// Static PAV and the S5 defect: four users doing the minidisk cache's own
/// I/O to a volume with three aliases spread over all four exposures when the
/// I/O is PAV-able; with `mdc_pav_defect` all of it goes to the base, the
/// aliases stay idle and a queue builds at the base.
#[test]
fn mdc_io_forced_to_the_base_under_the_defect() {
    let run = |defect: bool| {
        let text = format!(
            "{}{}",
            ess(1, 4, 4, "read_hit = 0.95"),
            dasd(
                "E700",
                1,
                "control_unit = \"LCU0\", aliases = 3, alias_address = \"E7FC\""
            )
        ) + if defect {
            "\n[io]\nmdc_pav_defect = true\n"
        } else {
            ""
        };
        let mut io = build(&text);
        let users: Vec<User> = (0..4)
            .map(|_| User {
                vol: 0,
                rq: Request::read(12, Kind::Mdc),
                think: 50 * US,
            })
            .collect();
        let r = closed_loop(&mut io, &users, 0.5, 5.0, false);
        let devs: Vec<(u16, u64, u64)> = io
            .devices()
            .map(|d| (d.devno, d.c.ssch, d.c.hf_queue))
            .collect();
        (r.ios(), devs, io.device(0).queued)
    };
    let (fixed, devs, _) = run(false);
    assert_eq!(
        devs.iter().map(|d| d.0).collect::<Vec<_>>(),
        [0xE700, 0xE7FC, 0xE7FD, 0xE7FE]
    );
    assert!(
        devs.iter().all(|d| d.1 > 1000),
        "every exposure busy: {devs:?}"
    );
    let (broken, devs, queued) = run(true);
    assert!(devs[1..].iter().all(|d| d.1 == 0), "aliases idle: {devs:?}");
    assert_eq!(queued, 3, "three requests queue at the base");
    assert!(
        broken < fixed / 2.5,
        "defect {broken:.0}/s vs fixed {fixed:.0}/s"
    );
}

/// More paths never lower throughput: Linux over base + k aliases (one
/// process per path, dedicated exposures), sequential reads and writes, for
/// 1 to 8 paths.
#[test]
fn more_paths_never_lower_throughput() {
    for write in [false, true] {
        let mut last = 0.0;
        for paths in 1..=8u32 {
            let text = format!(
                "{}{}",
                ess(1, 4, 4, "ha_concurrency = 2"),
                dasd(
                    "3000",
                    1,
                    "control_unit = \"LCU0\", aliases = 7, alias_address = \"30F0\""
                )
            );
            let mut io = build(&text);
            let users: Vec<User> = (0..paths)
                .map(|k| User {
                    vol: 0,
                    rq: Request {
                        write,
                        ..seq_read(64, Kind::Dedicated { expo: k as u8 })
                    },
                    think: 100 * US,
                })
                .collect();
            let r = closed_loop(&mut io, &users, 1.0, 4.0, false);
            let mb = r.mb_s();
            assert!(
                mb >= last * 0.995,
                "write={write}: {paths} paths {mb:.1} MB/s < {last:.1}"
            );
            last = mb;
        }
    }
}

/// A single host adapter caps the throughput whatever the ranks behind it:
/// sequential reads over 4 CHPIDs into one adapter stay below its rate with 1
/// to 8 ranks, and reach it once the ranks can feed it.
#[test]
fn a_single_host_adapter_caps_throughput() {
    let mut got = Vec::new();
    for ranks in [1u32, 2, 4, 8] {
        let vols = 16;
        let text = format!(
            "{}{}",
            ess(ranks, 1, 4, "ha_concurrency = 4"),
            dasd("4000", vols, "control_unit = \"LCU0\"")
        );
        let mut io = build(&text);
        let users: Vec<User> = (0..vols)
            .map(|v| User {
                vol: v,
                rq: seq_read(64, Kind::Minidisk),
                think: 0,
            })
            .collect();
        let r = closed_loop(&mut io, &users, 1.0, 4.0, false);
        got.push((ranks, r.mb_s()));
    }
    // One adapter, 4 transfers at once at 100 MB/s each: at most 400 MB/s.
    for &(ranks, mb) in &got {
        assert!(mb <= 400.0 * 1.001, "{ranks} ranks: {mb:.1} MB/s");
    }
    // Ranks beyond what the adapter can carry change nothing.
    let (a, b) = (got[2].1, got[3].1);
    assert!(
        (b / a - 1.0).abs() < 0.03,
        "4 ranks {a:.1} vs 8 ranks {b:.1}"
    );
}

/// Channel contention is pending time: 64 volumes on two ESCON CHPIDs see
/// pending grow with load, and four more CHPIDs take most of it away.
#[test]
fn channel_contention_shows_as_pending_time() {
    let pend = |chpids: u32, think_ms: u64| {
        let list: Vec<String> = (0..chpids)
            .map(|k| format!("\"{:02X}\"", 0x67 + k))
            .collect();
        let text = format!(
            r#"
[[chpid]]
id = "67"
count = {chpids}
type = "escon"
[[storage_server]]
name = "E8"
model = "2105-E8"
host_adapters = 8
ha_mb_s = 40
read_hit = 0.9
[[storage_server.rank]]
name = "R"
count = 4
[[control_unit]]
name = "LCU1"
server = "E8"
chpids = [{}]
"#,
            list.join(", ")
        ) + &dasd("1240", 64, "control_unit = \"LCU1\"");
        let mut io = build(&text);
        let users: Vec<User> = (0..64)
            .map(|v| User {
                vol: v,
                rq: Request::write(14, Kind::Paging),
                think: think_ms * 1_000_000,
            })
            .collect();
        closed_loop(&mut io, &users, 1.0, 30.0, false);
        let (mut p, mut n) = (0u64, 0u64);
        for d in io.devices() {
            p += d.c.pend_ns;
            n += d.c.ssch;
        }
        p as f64 / n as f64 / 1e6
    };
    let light = pend(2, 500);
    let heavy = pend(2, 60);
    let more = pend(6, 60);
    assert!(
        heavy > 5.0 * light,
        "pending {light:.2} ms light, {heavy:.2} ms heavy"
    );
    assert!(
        heavy > 10.0,
        "two busy ESCON channels: {heavy:.1} ms pending"
    );
    assert!(
        more < heavy / 4.0,
        "six channels {more:.2} ms vs two {heavy:.2} ms"
    );
}

/// Caching off (pinned data): every I/O goes to the disk, disconnect jumps
/// from near zero to the positioning time and more, connect grows to media
/// speed.
#[test]
fn cache_off_sends_every_io_to_the_disk() {
    let text = format!(
        "{}{}",
        ess(1, 4, 3, "read_hit = 0.99"),
        dasd("1742", 1, "control_unit = \"LCU0\"")
    );
    let measure = |io: &mut Io| {
        let users = [User {
            vol: 0,
            rq: Request::read(2, Kind::Minidisk),
            think: 20_000 * US,
        }];
        let before = io.device(0).c;
        closed_loop(io, &users, 0.0, 20.0, true);
        let c = io.device(0).c;
        let n = (c.ssch - before.ssch) as f64;
        (
            (c.disc_ns - before.disc_ns) as f64 / n / 1e6,
            (c.conn_ns - before.conn_ns) as f64 / n / 1e6,
        )
    };
    let mut io = build(&text);
    let (disc_on, conn_on) = measure(&mut io);
    io.set_cache(Some(0), None, false);
    let (disc_off, conn_off) = measure(&mut io);
    assert!(disc_on < 0.2, "cached: {disc_on:.2} ms disconnect");
    assert!(disc_off >= 5.0, "uncached: {disc_off:.2} ms disconnect");
    assert!(
        conn_off > conn_on * 1.5,
        "connect {conn_on:.2} -> {conn_off:.2} ms"
    );
    let c = io.device(0).cache.unwrap();
    assert!(c.bypass > 0 && c.read_hits > 0, "{c:?}");
}

/// EDEV: CP CPU per page moved is higher than ECKD's (which has no extra
/// cost), and lower when paging calls the SCSI layer directly (5.3) than
/// through the FBA emulation (5.2): by the direct factor times the 5.3 path
/// factor.
#[test]
fn edev_paging_costs_more_cp_per_page_than_eckd() {
    let text = r#"
[[chpid]]
id = "50"
count = 2
type = "fcp"
[[chpid]]
id = "60"
type = "ficon"
[[storage_server]]
name = "DS1"
[[storage_server.rank]]
name = "R"
[[control_unit]]
name = "LCU0"
server = "DS1"
chpids = ["60"]
[[paging]]
device_type = "EDEV"
size = "2G"
count = 2
first_address = "0100"
volser_prefix = "SCPG"
path = { server = "DS1", chpids = ["50", "51"] }
[[paging]]
device_type = "3390-3"
count = 2
first_address = "0200"
volser_prefix = "ECPG"
path = { control_unit = "LCU0" }
"#;
    let cost = |level: &str, vol: u32| {
        let sc = Scenario::from_toml(
            &format!("{BASE}{text}")
                .replace("[system]\n", &format!("[system]\ncp_level = \"{level}\"\n")),
            "e.toml",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let (defs, _) = params::volumes(&sc.paging, &sc.dasd);
        let io = Io::new(defs, 2, 1, &sc.io_config());
        io.cp_extra(vol, Kind::Paging, 8) as f64 / 8.0
    };
    let (eckd, fba, direct) = (cost("5.3", 2), cost("5.2", 0), cost("5.3", 0));
    assert_eq!(eckd, 0.0);
    assert!(
        fba > direct && direct > 0.0,
        "5.2 {fba} ns/page, 5.3 {direct} ns/page"
    );
    assert!((direct / fba - 0.75 * 0.9).abs() < 1e-3, "{}", direct / fba);
}

/// Direct EDEV paging overlaps I/Os on one LUN; through the FBA emulation
/// one at a time.
#[test]
fn direct_edev_paging_overlaps_ios_on_a_lun() {
    let run = |mode: &str| {
        let text = format!(
            r#"
[io]
edev_paging = "{mode}"
[[chpid]]
id = "50"
count = 2
type = "fcp"
[[storage_server]]
name = "DS1"
read_hit = 0.0
[[storage_server.rank]]
name = "R"
[[paging]]
device_type = "EDEV"
size = "2G"
first_address = "0100"
volser_prefix = "SCPG"
path = {{ server = "DS1", chpids = ["50", "51"] }}
"#
        );
        let mut io = build(&text);
        let users: Vec<User> = (0..8)
            .map(|_| User {
                vol: 0,
                rq: Request::read(4, Kind::Paging),
                think: 0,
            })
            .collect();
        closed_loop(&mut io, &users, 0.5, 5.0, false).ios()
    };
    let (fba, direct) = (run("fba"), run("direct"));
    assert!(direct > 2.5 * fba, "direct {direct:.0}/s vs FBA {fba:.0}/s");
}

/// Rotational position sensing (`rotation_ms`): an uncached access whose
/// sector comes round while every channel path is busy misses and waits a
/// whole revolution. Alone on its path a volume never misses; with the other
/// uncached volumes of its string on one ESCON channel it does, and each miss
/// adds a revolution to the disconnect time. Without `rotation_ms` the same
/// load queues for the path and misses nothing.
#[test]
fn rps_misses_cost_whole_revolutions_when_paths_are_busy() {
    let run = |vols: u32, rotation: &str| {
        let text = format!(
            r#"
[[chpid]]
id = "0A"
type = "escon"
[[storage_server]]
name = "CU"
model = "3990-EC"
host_adapters = 1
ha_mb_s = 17
device_adapters = 1
da_mb_s = 17
[[storage_server.rank]]
name = "HDA"
count = {vols}
disks = 1
raid = "none"
position_ms = 12
media_mb_s = 4.2
{rotation}
[[control_unit]]
name = "CU0"
server = "CU"
chpids = ["0A"]
"#
        ) + &dasd("1740", vols, "control_unit = \"CU0\"");
        let mut io = build(&text);
        io.set_cache(None, Some("CU"), false);
        let users: Vec<User> = (0..vols)
            .map(|v| User {
                vol: v,
                rq: Request::read(4, Kind::Minidisk),
                think: 2 * MS,
            })
            .collect();
        let r = closed_loop(&mut io, &users, 0.0, 20.0, true);
        let (mut disc, mut n) = (0u64, 0u64);
        for d in io.devices() {
            disc += d.c.disc_ns;
            n += d.c.ssch;
        }
        assert_eq!(n, r.submitted, "every I/O completes once");
        (
            disc as f64 / n as f64 / 1e6,
            io.path_counters().rps_misses,
            n,
        )
    };
    let (alone, misses_alone, _) = run(1, "rotation_ms = 14.1");
    assert_eq!(misses_alone, 0, "a volume alone on its path never misses");
    let (shared, misses, n) = run(8, "rotation_ms = 14.1");
    let (queued, misses_q, _) = run(8, "");
    assert_eq!(misses_q, 0);
    assert!(misses > n / 10, "{misses} RPS misses in {n} I/Os");
    // Each miss is a revolution more of disconnect time, on average.
    let per_io = misses as f64 / n as f64 * 14.1;
    assert!(
        shared > alone + 0.5 * per_io && shared > queued,
        "disc alone {alone:.1}, shared {shared:.1} (misses {per_io:.1} ms/IO), queued {queued:.1}"
    );
}

/// The path model's laws on random configurations (ranks, host adapters,
/// CHPIDs, volumes, static or HyperPAV aliases, cache hit ratio, NVS size)
/// and random closed-loop issuers of every request shape.
mod path_props {
    use super::*;
    use proptest::prelude::*;

    fn config(
        ranks: u32,
        has: u32,
        chpids: u32,
        vols: u32,
        pav: (u32, u32),
        hit: f64,
        nvs_mb: u32,
    ) -> Io {
        let (statics, pool) = pav;
        let extra = format!("read_hit = {hit:.2}\nnvs = \"{nvs_mb}M\"\ncache = \"256M\"");
        let mut text = ess(ranks, has, chpids, &extra);
        if pool > 0 {
            text = text.replace(
                "chpids = [",
                &format!("hyperpav_aliases = {pool}\nalias_address = \"10F0\"\nchpids = ["),
            );
        }
        let path = if statics > 0 {
            format!("control_unit = \"LCU0\", aliases = {statics}")
        } else {
            "control_unit = \"LCU0\"".to_string()
        };
        build(&(text + &dasd("1000", vols, &path)))
    }

    fn request(shape: u8) -> Request {
        match shape % 5 {
            0 => Request::read(1, Kind::Minidisk),
            1 => Request::read(4, Kind::Mdc),
            2 => Request::write(8, Kind::Minidisk),
            3 => seq_read(64, Kind::Minidisk),
            _ => Request {
                seq: true,
                ..Request::write(16, Kind::Minidisk)
            },
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
        /// Conservation (every request submitted starts once and completes
        /// once; SSCHs per subchannel add up to the requests; nothing left
        /// in the request arena), no I/O on a busy exposure (`Io::check`
        /// after every event in the driver), HyperPAV aliases bound at once
        /// never above the pool.
        #[test]
        fn ios_are_conserved_and_exposures_never_double_booked(
            ranks in 1u32..4, has in 1u32..4, chpids in 1u32..5, vols in 1u32..6,
            pav in prop_oneof![Just((0u32, 0u32)), (1u32..4).prop_map(|a| (a, 0)), (1u32..5).prop_map(|p| (0, p))],
            hit in 0.0f64..1.0, nvs_mb in 1u32..16,
            users in proptest::collection::vec((0u32..6, 0u8..5, 0u64..3_000), 1..14),
        ) {
            let mut io = config(ranks, has, chpids, vols, pav, hit, nvs_mb);
            let users: Vec<User> = users
                .iter()
                .map(|&(v, shape, think)| User { vol: v % vols, rq: request(shape), think: think * US })
                .collect();
            let run = closed_loop(&mut io, &users, 0.0, 2.0, true);
            let pc = io.path_counters();
            prop_assert_eq!(pc.started, run.submitted);
            prop_assert_eq!(pc.completed, run.submitted);
            let ssch: u64 = io.devices().map(|d| d.c.ssch).sum();
            prop_assert_eq!(ssch, run.submitted);
            let (n, free) = io.arena();
            prop_assert_eq!(n, free);
            prop_assert!(pc.max_bound <= pav.1, "{} aliases bound, pool {}", pc.max_bound, pav.1);
            let pool = io.control_units().next().map(|cu| (cu.free, cu.hyper_aliases));
            if let Some((free, all)) = pool {
                prop_assert_eq!(free, all, "every alias back in the pool");
            }
        }

        /// The utilisation law on the channels: with every read a cache hit,
        /// each I/O holds one channel path for CMR + command overhead + its
        /// bytes at the slowest link (the 100 MB/s host adapter), so the
        /// channels' summed busy time is completions x that hold, whatever
        /// the number of paths, volumes and issuers.
        #[test]
        fn channel_busy_is_completions_times_hold(
            chpids in 1u32..5, has in 1u32..5, vols in 1u32..7, kb in 1u32..17,
            users in 1usize..12, think_us in 0u64..2_000,
        ) {
            let text = format!(
                "{}{}",
                ess(1, has, chpids, "read_hit = 1.0"),
                dasd("1000", vols, "control_unit = \"LCU0\"")
            );
            let mut io = build(&text);
            let rq = Request::read(kb, Kind::Minidisk);
            let us: Vec<User> = (0..users)
                .map(|u| User { vol: u as u32 % vols, rq, think: think_us * US })
                .collect();
            let run = closed_loop(&mut io, &us, 0.0, 2.0, true);
            let hold = 50_000.0 + 100_000.0 + (kb as f64 * 4096.0 * 1_000.0 / 100.0);
            let busy: u64 = io.chpids().map(|c| c.busy_ns).sum();
            let ios: u64 = io.chpids().map(|c| c.ios).sum();
            prop_assert_eq!(ios, run.submitted);
            prop_assert!((busy as f64 / (ios as f64 * hold) - 1.0).abs() < 1e-6,
                "busy {} vs X*D {}", busy, ios as f64 * hold);
        }
    }
}
