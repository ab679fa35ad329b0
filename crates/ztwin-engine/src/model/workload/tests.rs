//! The workload component's page choice on its own: a thrasher's pages stay
//! in its area and a working-set pattern gives each part its share.

use super::params::{Pattern, Touch, Workload};
use super::thrash::{next_page, ThrashSpec};
use crate::core::rng::{Rng, Stream};
use crate::core::units::Size;

fn thrasher(pattern: Pattern) -> ThrashSpec {
    ThrashSpec::of(&Workload::Thrasher {
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
    })
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
