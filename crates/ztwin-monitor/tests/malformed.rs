//! The malformed-input corpus: every damage case gives the specified error or
//! skip, names the byte offset, and never panics.

mod common;

use common::{read_all, sample_file};
use ztwin_monitor::DamageKind;

/// Offsets of the control records of a clean file (every group's first block).
fn control_blocks(bytes: &[u8]) -> Vec<usize> {
    (0..bytes.len() / 4096)
        .filter(|b| {
            let blk: &[u8; 4096] = bytes[b * 4096..(b + 1) * 4096].try_into().unwrap();
            ztwin_monitor::control::ControlRecord::looks_valid(blk)
        })
        .collect()
}

#[test]
fn truncated_at_every_512_bytes() {
    let full = sample_file(6);
    let (all, _) = read_all(&full).unwrap();
    for cut in (0..full.len()).step_by(512) {
        let part = &full[..cut];
        match read_all(part) {
            Err(e) => {
                assert!(cut < 4096, "fatal error at cut {cut}: {e}");
                assert_eq!(e.offset, 0);
                assert!(
                    e.reason.contains("empty") || e.reason.contains("shorter than one 4096-byte"),
                    "{e}"
                );
            }
            Ok((recs, stats)) => {
                assert!(cut >= 4096);
                // Records before the cut are delivered unchanged: a prefix.
                assert!(recs.len() <= all.len());
                assert_eq!(&all[..recs.len()], &recs[..], "cut {cut}");
                for (off, _, _, b) in &recs {
                    assert!(*off as usize + b.len() <= cut);
                }
                if cut % 4096 != 0 {
                    assert!(stats.truncated);
                    assert!(stats
                        .damage
                        .iter()
                        .any(|d| d.kind == DamageKind::PartialBlock
                            && d.offset == (cut / 4096 * 4096) as u64));
                }
            }
        }
    }
}

#[test]
fn truncated_inside_a_group_reports_the_group() {
    let full = sample_file(3);
    let ctl = control_blocks(&full);
    // Cut after the control record of the second group plus one data block.
    let cut = (ctl[1] + 2) * 4096;
    let (recs, stats) = read_all(&full[..cut]).unwrap();
    assert!(stats.truncated);
    let d = stats
        .damage
        .iter()
        .find(|d| d.kind == DamageKind::TruncatedGroup)
        .expect("truncation reported");
    assert!(
        d.reason.contains(&format!("offset {}", ctl[1] * 4096)),
        "{}",
        d.reason
    );
    assert!(!recs.is_empty());
}

#[test]
fn bad_mrhdrlen_skips_rest_of_frame() {
    let mut f = sample_file(2);
    let ctl = control_blocks(&f);
    let data = (ctl[1] + 1) * 4096; // first data frame of the first interval
                                    // The first record there is SYTRSG (492 bytes); the second starts at +492.
    f[data + 492] = 0;
    f[data + 493] = 7; // MRHDRLEN 7
    let (recs, stats) = read_all(&f).unwrap();
    let d = &stats.damage[0];
    assert_eq!(d.kind, DamageKind::BadRecordHeader);
    assert_eq!(d.offset, (data + 492) as u64);
    assert_eq!(d.end, (data + 4096) as u64);
    assert!(d.reason.contains("MRHDRLEN 7"), "{}", d.reason);
    let (clean, _) = read_all(&sample_file(2)).unwrap();
    // Exactly the records of the rest of that frame are lost.
    let lost = clean
        .iter()
        .filter(|r| r.0 as usize > data + 491 && (r.0 as usize) < data + 4096)
        .count();
    assert_eq!(recs.len(), clean.len() - lost);
}

#[test]
fn nonzero_mrhdrzer_and_frame_crossing_are_damage() {
    for (patch_at, value, needle) in [
        (2usize, 0x12u8, "MRHDRZER"),
        (0, 0x0F, "cross the 4 KB frame"),
    ] {
        let mut f = sample_file(2);
        let ctl = control_blocks(&f);
        let data = (ctl[1] + 1) * 4096;
        f[data + 492 + patch_at] = value; // second record of the frame
        let (_, stats) = read_all(&f).unwrap();
        assert_eq!(stats.damage_count, 1, "{:?}", stats.damage);
        assert!(
            stats.damage[0].reason.contains(needle),
            "{}",
            stats.damage[0].reason
        );
        assert_eq!(stats.damage[0].offset, (data + 492) as u64);
    }
}

#[test]
fn garbage_control_record_resynchronises() {
    let mut f = sample_file(4);
    let ctl = control_blocks(&f);
    let (clean, _) = read_all(&f).unwrap();
    // Destroy the control record of the second interval group.
    let g = ctl[3];
    for (i, b) in f[g * 4096..(g + 1) * 4096].iter_mut().enumerate() {
        *b = (i * 7 + 3) as u8;
    }
    let (recs, stats) = read_all(&f).unwrap();
    let d = &stats.damage[0];
    assert_eq!(d.kind, DamageKind::BadControlRecord);
    assert_eq!(d.offset, (g * 4096) as u64);
    assert_eq!(d.end, (ctl[4] * 4096) as u64);
    assert!(d.reason.contains("resynchronised"), "{}", d.reason);
    // Everything outside the lost group is still delivered.
    let lost = clean
        .iter()
        .filter(|r| (r.0 as usize) > g * 4096 && (r.0 as usize) < ctl[4] * 4096)
        .count();
    assert!(lost > 0);
    assert_eq!(recs.len(), clean.len() - lost);
}

#[test]
fn control_record_claiming_too_much_is_cut_short_at_the_next_group() {
    let mut f = sample_file(3);
    let ctl = control_blocks(&f);
    // Make the first interval's entry end 50 pages later than it does.
    let o = ctl[1] * 4096 + 40 + 8;
    let end = u32::from_be_bytes(f[o..o + 4].try_into().unwrap()) + 50 * 4096;
    f[o..o + 4].copy_from_slice(&end.to_be_bytes());
    let (recs, stats) = read_all(&f).unwrap();
    assert!(
        stats
            .damage
            .iter()
            .any(|d| d.kind == DamageKind::GroupCutShort && d.offset == (ctl[2] * 4096) as u64),
        "{:?}",
        stats.damage
    );
    let (clean, _) = read_all(&sample_file(3)).unwrap();
    assert_eq!(recs.len(), clean.len());
}

#[test]
fn random_bytes_are_not_a_monwrite_file() {
    let mut x = 0x1234_5678u32;
    let junk: Vec<u8> = (0..64 * 1024)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect();
    let e = read_all(&junk).unwrap_err();
    assert_eq!(e.offset, 0);
    assert!(e.reason.contains("not a MONWRITE file"), "{e}");
    // Random bytes inside a valid file's data frames never panic.
    let mut f = sample_file(3);
    let n = f.len();
    for (i, b) in f[4096..n].iter_mut().enumerate() {
        if i % 3 == 0 {
            *b = junk[i % junk.len()];
        }
    }
    let _ = read_all(&f);
}

#[test]
fn empty_and_short_files_are_fatal() {
    assert!(read_all(&[]).unwrap_err().reason.contains("empty"));
    assert!(read_all(&[0u8; 100])
        .unwrap_err()
        .reason
        .contains("100 bytes"));
}
