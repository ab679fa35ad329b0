//! Bench tests of the saved-segments component on its own: the state
//! machine (define, save, re-save while in use, purge) and the frame
//! accounting of shared and private copies. Spool I/O is played by hand:
//! a read's frames are handed in with `add_frame`, then `read_done`.

use super::*;

fn def(s: &str) -> Def {
    defseg::parse(&s.split_whitespace().collect::<Vec<_>>()).unwrap()
}

/// Save `name` (defined) with spool file `file`, spool ID `id`.
fn save(sg: &mut Segments, name: &str, file: u32, id: u16, now: Ns) -> (String, Option<u32>) {
    let (sdf, _pages) = sg.saveseg(name).unwrap();
    let tag = sg.save_started(sdf, file, id, 0, now);
    assert!(sg.busy(), "CP is busy while a SAVESEG runs");
    sg.save_done(tag, now)
}

/// Run guest `g`'s load of `name` to completion, frames numbered from `*next`.
fn load(sg: &mut Segments, g: u32, name: &str, mode: Mode, next: &mut u32) -> Vec<Next> {
    let reads = sg.load(g, name, mode, 0).unwrap();
    for r in &reads {
        if let Next::Read { tag, pages, .. } = *r {
            for _ in 0..pages {
                assert!(sg.add_frame(tag, *next));
                *next += 1;
            }
            sg.read_done(tag);
        }
    }
    assert!(sg.loaded(g, name));
    sg.check();
    reads
}

fn class(sg: &Segments, name: &str) -> Vec<char> {
    sg.sdfs()
        .filter(|s| s.def.name == name)
        .map(|s| s.class.letter())
        .collect()
}

#[test]
fn define_save_load_purge() {
    let mut sg = Segments::new();
    sg.defseg(def("DCSS1 20000-200FF SR"), 0).unwrap();
    assert_eq!(class(&sg, "DCSS1"), ['S']);
    // A skeleton cannot be loaded.
    assert!(sg
        .load(1, "DCSS1", Mode::Shared, 0)
        .unwrap_err()
        .contains("does not exist"));
    let (r, purge) = save(&mut sg, "DCSS1", 7, 400, 10);
    assert_eq!(
        r,
        "HCP440I Saved segment DCSS1 was successfully saved in fileid 0400."
    );
    assert_eq!(purge, None);
    assert!(!sg.busy());
    assert_eq!(class(&sg, "DCSS1"), ['A']);
    // Saving again without a new DEFSEG is refused.
    assert!(sg.saveseg("DCSS1").unwrap_err().contains("already saved"));
    assert!(sg
        .saveseg("NOSUCH")
        .unwrap_err()
        .starts_with("HCP1364E Saved segment NOSUCH cannot be saved: it is not defined"));
    // Purge while unused: gone, its spool file returned.
    let (r, files) = sg.purge(Some("DCSS1"), None, 20).unwrap();
    assert_eq!(r, "0001 FILE(S) PURGED");
    assert_eq!(files, [7]);
    assert!(class(&sg, "DCSS1").is_empty());
    assert!(sg
        .purge(Some("DCSS1"), None, 20)
        .unwrap_err()
        .starts_with("HCP1366E"));
    sg.check();
}

#[test]
fn resave_while_in_use_keeps_the_old_version_for_its_users() {
    let mut sg = Segments::new();
    let mut f = 0;
    sg.defseg(def("SEG 20000-200FF SR"), 0).unwrap();
    save(&mut sg, "SEG", 1, 1, 0);
    load(&mut sg, 10, "SEG", Mode::Shared, &mut f);
    // Re-define and re-save while guest 10 uses it.
    sg.defseg(def("SEG 20000-201FF SR"), 5).unwrap();
    assert_eq!(class(&sg, "SEG"), ['A', 'S']);
    let (_, purge) = save(&mut sg, "SEG", 2, 2, 6);
    assert_eq!(purge, None, "in use: not purged");
    let mut c = class(&sg, "SEG");
    c.sort();
    assert_eq!(c, ['A', 'P']);
    // A new user gets the new version (512 pages), the old user keeps 256.
    load(&mut sg, 11, "SEG", Mode::Shared, &mut f);
    let by_class: Vec<(char, u32, u32)> = sg
        .sdfs()
        .map(|s| (s.class.letter(), s.users, s.shared_resident))
        .collect();
    assert!(by_class.contains(&('P', 1, 256)), "{by_class:?}");
    assert!(by_class.contains(&('A', 1, 512)), "{by_class:?}");
    // The last user of the old version leaves: it is purged, its frames and
    // spool file returned.
    let (frames, files) = sg.detach(10, Some("SEG"), 9).unwrap();
    assert_eq!(frames.len(), 256);
    assert_eq!(files, [1]);
    assert_eq!(class(&sg, "SEG"), ['A']);
    // PURGE NSS of the version in use: class P until its user leaves.
    let (_, files) = sg.purge(Some("SEG"), None, 10).unwrap();
    assert!(files.is_empty());
    assert_eq!(class(&sg, "SEG"), ['P']);
    assert!(
        sg.load(12, "SEG", Mode::Shared, 0).is_err(),
        "a pending version takes no new users"
    );
    let (frames, files) = sg.detach(11, None, 11).unwrap();
    assert_eq!((frames.len(), files), (512, vec![2]));
    assert!(class(&sg, "SEG").is_empty());
    assert_eq!(sg.frames(), 0);
    sg.check();
    let ev: Vec<_> = sg.take_events().into_iter().map(|(e, _)| e).collect();
    assert_eq!(
        ev.iter()
            .filter(|e| matches!(e, SegEvent::Saved { .. }))
            .count(),
        2
    );
    assert_eq!(
        ev.iter()
            .filter(|e| matches!(e, SegEvent::Purged { .. }))
            .count(),
        2
    );
}

#[test]
fn shared_pages_are_one_frame_for_any_number_of_users() {
    let mut sg = Segments::new();
    let mut f = 0;
    // 1 MB shared read-only, 1 MB exclusive writable, 1 MB shared no-data.
    sg.defseg(def("MIX 20000-200FF SR 20100-201FF EW 20200-202FF SN"), 0)
        .unwrap();
    save(&mut sg, "MIX", 0, 1, 0);
    let p = sg.sdfs().next().unwrap().pages;
    assert_eq!(
        (p.shared_saved, p.excl_saved, p.shared_nodata),
        (256, 256, 256)
    );
    let reads = load(&mut sg, 1, "MIX", Mode::Shared, &mut f);
    assert_eq!(
        reads.len(),
        2,
        "the shared copy and the user's exclusive pages"
    );
    assert_eq!(sg.frames(), 512);
    for g in 2..=50 {
        let reads = load(&mut sg, g, "MIX", Mode::Shared, &mut f);
        // A later user reads only its own exclusive pages: the shared copy is
        // resident.
        assert_eq!(reads.len(), 1, "user {g}");
        assert!(matches!(reads[0], Next::Read { pages: 256, .. }));
    }
    let s = sg.sdfs().next().unwrap();
    assert_eq!(s.users, 50);
    assert_eq!(
        s.shared_resident, 256,
        "one frame per shared page, counted once"
    );
    assert_eq!(
        s.private_resident,
        50 * 256,
        "exclusive pages: a copy per user"
    );
    assert_eq!(sg.frames(), 256 + 50 * 256);
    // Users leave: their private copies go; the shared copy stays until the last.
    for g in 1..50 {
        let (fr, _) = sg.detach(g, Some("MIX"), 0).unwrap();
        assert_eq!(fr.len(), 256);
        assert_eq!(sg.sdfs().next().unwrap().shared_resident, 256);
    }
    let (fr, _) = sg.detach(50, Some("MIX"), 0).unwrap();
    assert_eq!(fr.len(), 512, "the last user takes the shared copy with it");
    assert_eq!(sg.frames(), 0);
    sg.check();
}

#[test]
fn sn_pages_are_never_saved_and_loadnshr_copies_everything() {
    let mut sg = Segments::new();
    let mut f = 0;
    sg.defseg(def("SWAP 20000-5FFFF SN"), 0).unwrap();
    let (_, pages) = sg.saveseg("SWAP").unwrap();
    assert_eq!(pages, 1, "only the descriptor page goes to spool");
    let (sdf, _) = sg.saveseg("SWAP").unwrap();
    let tag = sg.save_started(sdf, 0, 1, 0, 0);
    sg.save_done(tag, 0);
    let reads = load(&mut sg, 1, "SWAP", Mode::Shared, &mut f);
    assert!(
        reads.is_empty(),
        "an SN load reads nothing: its first access is immediate"
    );
    assert!(sg
        .load(2, "SWAP", Mode::Nonshared, 0)
        .unwrap_err()
        .contains("LOADNSHR"));
    sg.defseg(def("RO 60000-600FF SR LOADNSHR"), 0).unwrap();
    save(&mut sg, "RO", 1, 2, 0);
    let reads = load(&mut sg, 2, "RO", Mode::Nonshared, &mut f);
    assert_eq!(reads.len(), 1);
    assert!(
        matches!(reads[0], Next::Read { pages: 256, .. }),
        "a nonshared copy is read whole"
    );
    let ro = sg.sdfs().find(|s| s.def.name == "RO").unwrap();
    assert_eq!((ro.shared_resident, ro.private_resident), (0, 256));
    // Loading the same segment twice, or one overlapping a loaded one, is refused.
    assert!(sg
        .load(2, "RO", Mode::Shared, 0)
        .unwrap_err()
        .contains("already loaded"));
    sg.defseg(def("OVER 600F0-601FF SR"), 0).unwrap();
    save(&mut sg, "OVER", 2, 3, 0);
    assert!(sg
        .load(2, "OVER", Mode::Shared, 0)
        .unwrap_err()
        .contains("overlaps"));
    sg.check();
}

#[test]
fn a_user_leaving_during_a_read_gets_no_frames() {
    let mut sg = Segments::new();
    sg.defseg(def("S 20000-200FF SR"), 0).unwrap();
    save(&mut sg, "S", 0, 1, 0);
    let reads = sg.load(1, "S", Mode::Shared, 0).unwrap();
    let Next::Read { tag, .. } = reads[0] else {
        panic!()
    };
    assert!(sg.add_frame(tag, 100));
    let (fr, _) = sg.detach(1, Some("S"), 0).unwrap();
    assert_eq!(fr, [100]);
    assert!(!sg.add_frame(tag, 101), "the frame goes back to storage");
    assert!(sg.read_done(tag).is_empty());
    assert_eq!(sg.frames(), 0);
    sg.check();
}

#[test]
fn only_saved_read_only_pages_are_spool_backed() {
    use super::{all_spool_backed, spool_backed};
    for (c, want) in [
        (Code::SR, true),
        (Code::ER, true),
        (Code::SW, false),
        (Code::EW, false),
        (Code::SN, false),
        (Code::EN, false),
        (Code::SC, false),
    ] {
        assert_eq!(spool_backed(c), want, "{c}");
    }
    let def = |s: &str| defseg::parse(&s.split_whitespace().collect::<Vec<_>>()).unwrap();
    assert!(all_spool_backed(&def("DCSSOPT 4AF700-62F3FF SR")));
    assert!(!all_spool_backed(&def("MIXED 100-1FF SR 200-2FF SW")));
    assert!(!all_spool_backed(&def("SWAPPING 62F400-63A732 SN")));
}
