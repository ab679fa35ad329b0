//! A bench for the cpu component: logical and virtual CPUs from literal
//! definitions, a storage component for the guests' categories and working
//! sets, its own core; bursts given by hand instead of run by a workload.

use super::*;
use crate::core::units::SEC;
use crate::model::storage::Pager;
use crate::model::Ev as ModelEv;

struct NoPaging;
impl Pager for NoPaging {
    fn release(&mut self, _: u32, _: u32, _: u32) {}
    fn migrate(&mut self, _: &mut Cx, _: &[(u32, u32)]) -> u32 {
        0
    }
    fn volumes(&self) -> u32 {
        1
    }
}

fn guest(id: &str) -> GuestDef {
    GuestDef {
        userid: id.into(),
        nvcpu: 1,
        share: 100,
        quickdsp: false,
    }
}

/// One logical CPU; guests A and B (one virtual CPU each); 3072 pageable
/// frames; STORBUF `storbuf` (fractions).
fn bench(storbuf: f64) -> (Cpus, Storage) {
    let p = params::Params {
        processors: 1,
        storbuf: [(storbuf * 100.0) as u32; 3],
        ldubuf: [100, 75, 60],
        dispatch_us: 1.0,
    };
    let cpu = Cpus::new(&p, vec![guest("A"), guest("B")]);
    let st = Storage::new(&crate::model::storage::tests::params(0), 1, &[4096, 4096]);
    (cpu, st)
}

fn logon(cpu: &mut Cpus, st: &mut Storage, g: u32) {
    st.create_space(g);
    cpu.logon(g, 0);
}

/// Run virtual CPU `v` for a burst of `virt` ns ending in `outcome`, as the
/// dispatcher does; the clock moves to its end.
fn burst(cpu: &mut Cpus, st: &mut Storage, core: &mut Core, v: u32, virt: Ns, outcome: Outcome) {
    assert_eq!(cpu.next_ready(0), Some(v));
    let (cp, sys) = cpu.begin(0, v);
    let total = cpu.start_burst(
        0,
        Burst {
            virt,
            cp,
            sys,
            outcome,
            vcpu: v,
            io: None,
        },
        core.now,
    );
    assert_eq!(total, virt + cp + sys);
    core.now += total;
    let b = cpu.end_burst(0, core.now);
    cpu.after_burst(&mut Cx::new(core, 0), st, 0, &b);
}

#[test]
fn a_long_think_drops_the_guest_to_dormant_and_the_wake_brings_it_back() {
    let (mut cpu, mut st) = bench(0.95);
    let mut core = Core::new(10 * SEC);
    logon(&mut cpu, &mut st, 0);
    cpu.vcpu_has_work(&mut st, 0, 0);
    assert_eq!(cpu.sched(0), Sched::Dispatch);
    burst(
        &mut cpu,
        &mut st,
        &mut core,
        0,
        2_000_000,
        Outcome::Think(400 * MS),
    );
    assert_eq!(cpu.vstate(0), VState::Think);
    // The test-idle check comes first (300 ms), then the wake (400 ms).
    let (t, ev) = core.q.pop().unwrap();
    let ModelEv::TestIdle { guest: 0, gen } = ev else {
        panic!("{ev:?}")
    };
    assert_eq!(t, core.now + TEST_IDLE);
    cpu.test_idle(&mut st, 0, gen, 0);
    assert_eq!(cpu.sched(0), Sched::Dormant);
    let (_, ev) = core.q.pop().unwrap();
    let ModelEv::Wake { vcpu: 0 } = ev else {
        panic!("{ev:?}")
    };
    cpu.wake(&mut st, 0, 0);
    assert_eq!(
        (cpu.sched(0), cpu.vstate(0)),
        (Sched::Dispatch, VState::Ready)
    );
    // The dispatch is CP's own work: system time, not charged to the guest.
    let c = cpu.counters().next().unwrap();
    assert_eq!(
        (c.dispatches, c.emul_ns, c.cp_user_ns, c.sys_ns),
        (1, 2_000_000, 0, 1_000)
    );
    let v = cpu.vcpus(0).next().unwrap();
    assert_eq!((v.vtime, v.ttime), (2_000_000, 2_000_000));
}

#[test]
fn storbuf_keeps_a_guest_eligible_until_the_working_sets_fit() {
    let (mut cpu, mut st) = bench(0.5);
    let mut core = Core::new(10 * SEC);
    let mut cx = Cx::new(&mut core, 0);
    logon(&mut cpu, &mut st, 0);
    logon(&mut cpu, &mut st, 1);
    cpu.vcpu_has_work(&mut st, 0, 0);
    // A's working set grows to 2250 frames, more than half the DPA.
    for vp in 0..3000 {
        let f = st.get_frame(&mut cx, &mut NoPaging, 0, vp).unwrap();
        st.first_touch(0, vp, f);
    }
    // Its elapsed time slice ends: the projection is the pages used in the
    // stay (every frame it gained, bounded by the pages it has anywhere).
    cpu.tick(&mut st, ETS[0]);
    assert!(st.wss(0) > 1536.0, "{}", st.wss(0));
    assert_eq!(cpu.sched(0), Sched::Dispatch, "alone, it stays");
    cpu.vcpu_has_work(&mut st, 1, 0);
    assert_eq!(cpu.sched(1), Sched::Eligible);
    assert_eq!(cpu.eligible_count(), 1);
    assert_eq!(cpu.vstate(1), VState::Eligible);
    // A goes idle and is dropped from the dispatch list: B gets in.
    assert_eq!(cpu.next_ready(0), Some(0));
    cpu.begin(0, 0);
    cpu.start_burst(0, Burst::new(0), 0);
    let b = Burst {
        outcome: Outcome::Idle,
        ..cpu.end_burst(0, cx.now())
    };
    cpu.after_burst(&mut cx, &mut st, 0, &b);
    let (_, ev) = cx.core.q.pop().unwrap();
    let ModelEv::TestIdle { guest: 0, gen } = ev else {
        panic!("{ev:?}")
    };
    cpu.test_idle(&mut st, 0, gen, 0);
    assert_eq!(
        (cpu.sched(0), cpu.sched(1)),
        (Sched::Dormant, Sched::Dispatch)
    );
    assert_eq!(cpu.next_ready(0), Some(1));
}

/// In the dispatch list, a virtual CPU waiting for its timer (a Linux guest
/// between bursts) is sampled as %TIW (HFTSVM), one with nothing to do as
/// %TI (HFTIDL); published S3 shows its Linux guests' idle time as %TIW.
#[test]
fn idle_in_queue_waiting_for_a_timer_is_tiw() {
    let (mut cpu, mut st) = bench(0.95);
    let mut core = Core::new(10 * SEC);
    logon(&mut cpu, &mut st, 0);
    logon(&mut cpu, &mut st, 1);
    cpu.vcpu_has_work(&mut st, 0, 0);
    cpu.vcpu_has_work(&mut st, 1, 0);
    burst(
        &mut cpu,
        &mut st,
        &mut core,
        0,
        1_000,
        Outcome::Think(50 * MS),
    );
    burst(&mut cpu, &mut st, &mut core, 1, 1_000, Outcome::Idle);
    cpu.hf_tick(core.now);
    let h0 = cpu.vcpus(0).next().unwrap().hf;
    let h1 = cpu.vcpus(1).next().unwrap().hf;
    assert_eq!((h0.test_idle_wait, h0.test_idle, h0.in_queue), (1, 0, 1));
    assert_eq!((h1.test_idle_wait, h1.test_idle, h1.in_queue), (0, 1, 1));
}
