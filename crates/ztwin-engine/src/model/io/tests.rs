//! A bench for the I/O component alone: volumes from literal definitions, its
//! own core, a loop that pops only its events and does what `model/mod.rs`
//! does with a completion (release the request, start the next).

use super::*;
use crate::core::units::SEC;
use crate::model::{Core, Ev as ModelEv};

fn vol(devno: u16, svc: ServiceTime) -> VolumeDef {
    VolumeDef {
        devno,
        volser: format!("V{devno:04X}"),
        device_type: "3390-9".into(),
        cylinders: 10_017,
        paging: false,
        service: svc,
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

/// Handle the next event; `None` when the queue is empty.
fn step(io: &mut Io, core: &mut Core, cpu: u16) -> Option<Done> {
    let (t, ev) = core.q.pop()?;
    core.now = t;
    let ModelEv::IoDone { vol } = ev else {
        panic!("not an I/O event: {ev:?}")
    };
    let mut cx = Cx::new(core, cpu);
    let d = io.done(&cx, vol);
    io.release(d.req);
    io.start_next(&mut cx, vol);
    io.check();
    Some(d)
}

#[test]
fn fifo_completion_order_and_counters_add_up() {
    let mut io = Io::new(vec![vol(0x100, fixed()), vol(0x101, fixed())], 2, 1);
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
    let mut io = Io::new(vec![vol(0x200, svc)], 1, 7);
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
        let ModelEv::IoDone { vol } = ev else {
            unreachable!()
        };
        let mut cx = Cx::new(&mut core, 0);
        let d = io.done(&cx, vol);
        io.release(d.req);
        io.start_next(&mut cx, vol);
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
    let mut io = Io::new(vec![vol(0x100, fixed())], 1, 1);
    let mut core = Core::new(SEC);
    let cx = Cx::new(&mut core, 0);
    let r = io.alloc(&cx, 0, 1, Origin::Minidisk { vcpu: 0 });
    io.vols[0].queue.push_back(r);
    io.check();
}
