//! The workload component's page choice on its own: a thrasher's pages stay
//! in its area and a working-set pattern gives each part its share.

use super::params::{Pattern, Touch, Workload};
use super::thrash::{next_page, ThrashSpec};
use crate::core::rng::{Rng, Stream};
use crate::core::units::Size;

fn thrasher(pattern: Pattern) -> ThrashSpec {
    ThrashSpec::of(
        &Workload::Thrasher {
            area: Size(1000 * 4096),
            pattern,
            touch: Touch::Write,
            cpu_per_touch_us: 1.5,
            hot_fraction: 0.1,
            hot_share: 0.7,
            warm_fraction: 0.3,
            warm_share: 0.2,
            prefill: false,
            paged_out: false,
            think: Default::default(),
            burst_touches: 0,
            cp_overhead: 0.0,
            fill_rate: 0.0,
            reuse_rate: 0.0,
        },
        1000,
    )
    .expect("a thrasher")
}

#[test]
fn a_working_set_thrasher_gives_each_part_its_share() {
    let s = thrasher(Pattern::WorkingSet);
    assert_eq!(
        (s.pages, s.hot, s.warm, s.write, s.cpu),
        (1000, 100, 300, true, 1500)
    );
    let mut rng = Rng::new(3, Stream::Vcpu, 0);
    let (mut hot, mut warm, mut cold) = (0, 0, 0);
    let n = 200_000;
    for _ in 0..n {
        match next_page(&s, &mut 0, &mut rng, false) {
            p if p < 100 => hot += 1,
            p if p < 400 => warm += 1,
            p if p < 1000 => cold += 1,
            p => panic!("page {p} outside the area"),
        }
    }
    let share = |k: i32| k as f64 / n as f64;
    assert!((share(hot) - 0.7).abs() < 0.01, "{hot}");
    assert!((share(warm) - 0.2).abs() < 0.01, "{warm}");
    assert!((share(cold) - 0.1).abs() < 0.01, "{cold}");
}

#[test]
fn a_serial_thrasher_wraps_and_a_prefill_is_serial() {
    let s = thrasher(Pattern::Serial);
    let mut rng = Rng::new(3, Stream::Vcpu, 0);
    let mut pos = 998;
    let pages: Vec<u64> = (0..4)
        .map(|_| next_page(&s, &mut pos, &mut rng, false))
        .collect();
    assert_eq!(pages, [998, 999, 0, 1]);
    let r = thrasher(Pattern::Random);
    let mut pos = 5;
    assert_eq!(
        next_page(&r, &mut pos, &mut rng, true),
        5,
        "prefill goes in order"
    );
    assert!((0..1000).all(|_| next_page(&r, &mut pos, &mut rng, false) < 1000));
}

/// A fill needs room after the area, and a reuse rate needs a fill; each
/// error names the key.
#[test]
fn fill_keys_are_checked() {
    let w = |area: u64, fill: f64, reuse: f64| Workload::Thrasher {
        area: Size(area * 4096),
        pattern: Pattern::Serial,
        touch: Touch::Write,
        cpu_per_touch_us: 1.0,
        hot_fraction: 0.2,
        hot_share: 0.9,
        warm_fraction: 0.0,
        warm_share: 0.0,
        prefill: false,
        paged_out: false,
        think: Default::default(),
        burst_touches: 0,
        cp_overhead: 0.0,
        fill_rate: fill,
        reuse_rate: reuse,
    };
    let check = |w: Workload| w.validate("guest[0].workload", 100 * 4096, 1, |_| None);
    assert!(check(w(50, 10.0, 1.0)).is_ok());
    let e = format!("{:?}", check(w(100, 10.0, 0.0)).unwrap_err());
    assert!(
        e.contains("fill_rate") && e.contains("nothing is left"),
        "{e}"
    );
    let e = format!("{:?}", check(w(50, 0.0, 1.0)).unwrap_err());
    assert!(e.contains("reuse_rate"), "{e}");
    let e = format!("{:?}", check(w(50, f64::NAN, 0.0)).unwrap_err());
    assert!(e.contains("fill_rate"), "{e}");
    let spec = ThrashSpec::of(&w(50, 10.0, 1.0), 100).unwrap();
    assert_eq!(
        (spec.fill_pages, spec.fill_every, spec.reuse_every),
        (50, 100_000_000, 1_000_000_000)
    );
}
