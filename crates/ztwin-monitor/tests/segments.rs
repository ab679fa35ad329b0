//! Collections joined into one file are told apart (ztwin_monitor::segment).

mod common;

use common::{read_all, T0_US};
use ztwin_monitor::layout::by_name;
use ztwin_monitor::writer::{MonwriteWriter, RecordSet};
use ztwin_monitor::{tod, SegmentStart, SetKind};

/// A collection of `intervals` one-minute intervals of system `id` on
/// processor `model`, starting `start_min` minutes after T0.
fn collection(id: &str, model: &str, start_min: i64, intervals: i64) -> Vec<u8> {
    let mut w = MonwriteWriter::new(Vec::new());
    let t0 = tod::from_unix_us(T0_US + start_min * 60_000_000);
    let sys = by_name("MRMTRSYS").unwrap();
    let mut cfg = RecordSet::new(SetKind::Sample);
    {
        let (mtype, mmodl) = model.split_once('-').unwrap();
        let mut r = cfg.push_layout(sys, t0);
        r.set_text(sys.f("MTRSYS_SYSTMID"), id);
        r.set_text(sys.f("MTRSYS_SYSMTYPE"), mtype);
        r.set_text(sys.f("MTRSYS_SYSMMODL"), mmodl);
    }
    w.write_sample_set(&cfg, t0).unwrap();
    let rsg = by_name("MRSYTRSG").unwrap();
    let mut s = RecordSet::new(SetKind::Sample);
    for i in 1..=intervals {
        let t = tod::from_unix_us(T0_US + (start_min + i) * 60_000_000);
        s.clear();
        s.push_layout(rsg, t)
            .set_u(rsg.f("SYTRSG_RSAAVAIL"), i as u64);
        w.write_sample_set(&s, t).unwrap();
    }
    w.finish().unwrap()
}

fn segments(bytes: &[u8]) -> Vec<(u64, SegmentStart, Option<String>, u64)> {
    let (_, stats) = read_all(bytes).unwrap();
    stats
        .segments
        .segments
        .iter()
        .map(|s| (s.offset, s.start, s.system_id.clone(), s.intervals))
        .collect()
}

#[test]
fn one_collection_one_segment() {
    let a = collection("TINY", "2094-606", 0, 5);
    assert_eq!(
        segments(&a),
        [(0, SegmentStart::FileStart, Some("TINY".into()), 6)]
    );
}

#[test]
fn the_same_file_twice_goes_back_in_time() {
    let a = collection("TINY", "2094-606", 0, 5);
    let both = [a.clone(), a.clone()].concat();
    assert_eq!(
        segments(&both),
        [
            (0, SegmentStart::FileStart, Some("TINY".into()), 6),
            (
                a.len() as u64,
                SegmentStart::TimeWentBack,
                Some("TINY".into()),
                6
            ),
        ]
    );
}

#[test]
fn a_later_collection_of_the_same_system_is_a_monitor_start() {
    let a = collection("TINY", "2094-606", 0, 5);
    let b = collection("TINY", "2094-606", 60, 5);
    let s = segments(&[a.clone(), b].concat());
    assert_eq!(
        s[1],
        (
            a.len() as u64,
            SegmentStart::MonitorStart,
            Some("TINY".into()),
            6
        )
    );
}

#[test]
fn another_system_or_processor_is_noticed() {
    let a = collection("TINY", "2094-606", 0, 5);
    let b = collection("VSPSYS", "2094-606", 60, 3);
    let c = collection("VSPSYS", "2817-716", 120, 2);
    let s = segments(&[a.clone(), b.clone(), c].concat());
    assert_eq!(
        s,
        [
            (0, SegmentStart::FileStart, Some("TINY".into()), 6),
            (
                a.len() as u64,
                SegmentStart::SystemChanged,
                Some("VSPSYS".into()),
                4
            ),
            (
                (a.len() + b.len()) as u64,
                SegmentStart::CpuModelChanged,
                Some("VSPSYS".into()),
                3
            ),
        ]
    );
}

#[test]
fn a_collection_without_configuration_records_is_noticed_by_time() {
    let a = collection("TINY", "2094-606", 0, 5);
    // the second copy without its first group (control record + config frame)
    let tail = &a[2 * 4096..];
    let s = segments(&[a.clone(), tail.to_vec()].concat());
    assert_eq!(s[1], (a.len() as u64, SegmentStart::TimeWentBack, None, 5));
}

#[test]
fn a_truncated_first_collection_still_splits() {
    let a = collection("TINY", "2094-606", 0, 5);
    let b = collection("VSPSYS", "2094-606", 0, 5);
    let cut = &a[..a.len() - 4096]; // the last group lost its data block
    let (_, stats) = read_all(&[cut.to_vec(), b].concat()).unwrap();
    let s = &stats.segments.segments;
    assert_eq!(s.len(), 2);
    assert_eq!(s[1].system_id.as_deref(), Some("VSPSYS"));
    assert_eq!(s[1].start, SegmentStart::SystemChanged);
    assert!(stats.damage_count > 0);
}

#[test]
fn a_junk_prefix_names_where_the_data_starts() {
    let a = collection("TINY", "2094-606", 0, 5);
    let junk: Vec<u8> = (0..1000u32).map(|i| (i * 7 + 1) as u8).collect();
    let e = read_all(&[junk, a].concat()).unwrap_err();
    assert_eq!(e.offset, 0);
    assert!(
        e.reason.contains(
            "a control record starts at offset 1000 (X'3E8'), 1000 bytes past a 4096-byte boundary"
        ),
        "{}",
        e.reason
    );
    let e = read_all(&[7u8; 3 * 4096]).unwrap_err();
    assert!(
        e.reason
            .ends_with("the reader looks for control records at every 4096-byte boundary"),
        "{}",
        e.reason
    );
}
