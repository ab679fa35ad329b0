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

/// A spread minidisk workload names each bad entry: a volume that is not a
/// `[[dasd]]` one, a share that is not positive, a device and volumes both,
/// neither.
#[test]
fn minidisk_volumes_are_checked() {
    use super::params::{DasdInfo, VolumeShare};
    let w = |device: &str, volumes: Vec<VolumeShare>| Workload::MinidiskIo {
        device: device.into(),
        volumes,
        think: Default::default(),
        pages_per_io: 1,
        cpu_per_io_us: 1.0,
        enabled_wait: true,
        cp_overhead: 0.0,
    };
    let v = |device: &str, share: f64, count: u32| VolumeShare {
        device: device.into(),
        share,
        count,
    };
    // Volumes 0B00-0B03 exist.
    let dasd = |d: u16| {
        (0x0B00..0x0B04).contains(&d).then_some(DasdInfo {
            blocks: 1000,
            kind: crate::model::io::params::DevKind::Eckd,
            aliases: 0,
        })
    };
    let check = |w: Workload| {
        w.validate("guest[0].workload", 100 * 4096, 1, dasd)
            .map_err(|e| format!("{e:?}"))
    };
    assert!(check(w("", vec![v("0B00", 3.0, 1), v("0B01", 0.5, 3)])).is_ok());
    let e = check(w("", vec![v("0B00", 1.0, 1), v("0B02", 1.0, 3)])).unwrap_err();
    assert!(e.contains("volumes[1].device") && e.contains("0B04"), "{e}");
    let e = check(w("", vec![v("0B00", 0.0, 1)])).unwrap_err();
    assert!(e.contains("volumes[0].share"), "{e}");
    let e = check(w("0B00", vec![v("0B00", 1.0, 1)])).unwrap_err();
    assert!(e.contains("either device or volumes"), "{e}");
    let e = check(w("", vec![])).unwrap_err();
    assert!(e.contains("guest[0].workload.device"), "{e}");
}
