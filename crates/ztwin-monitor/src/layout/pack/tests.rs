use super::*;
use crate::layout::{decode_field, Release, Value};

fn err(text: &str) -> PackError {
    LayoutPack::parse(text, "t.toml").expect_err("should fail")
}

#[test]
fn a_pack_moves_a_field_and_adds_one_from_a_release_on() {
    let text = r#"
        [[record]]
        name = "MRIODDEV"
        release = "7.3"
        size = 300
        source = "a real 7.3 file"
        [[record.field]]
        name = "IODDEV_RDEVSER"
        offset = 262
        type = "CHAR(6)"
        confidence = "IBM"
        [[record.field]]
        name = "IODDEV_NEWCTR"
        offset = 268
        type = "U4"
    "#;
    let pack = LayoutPack::parse(text, "t.toml").unwrap();
    let set = LayoutSet::install(pack.clone()).unwrap();
    // Installing the same pack again gives the same set.
    assert!(std::ptr::eq(set, LayoutSet::install(pack).unwrap()));
    let r73 = Release(7, 3);
    let l = set.lookup(6, 3, r73).unwrap();
    assert_eq!(l.size, 300);
    assert_eq!(l.f("IODDEV_RDEVSER").offset, 262);
    assert_eq!(l.f("IODDEV_RDEVSER").src, Confidence::Ibm);
    assert_eq!(l.f("IODDEV_NEWCTR").src, Confidence::Inferred);
    assert_eq!(l.f("IODDEV_SCMSSCH").offset, 52, "built-in fields stay");
    assert!(l.covers(r73));
    // Before 7.3 the built-in layout applies, in every other record too.
    assert!(std::ptr::eq(
        set.lookup(6, 3, Release(7, 2)).unwrap(),
        lookup(6, 3, Release(7, 2)).unwrap()
    ));
    assert!(std::ptr::eq(
        set.lookup(0, 2, r73).unwrap(),
        lookup(0, 2, r73).unwrap()
    ));
    assert_eq!(set.by_name_release("MRIODDEV", r73).unwrap().size, 300);
    // A record decodes through the merged layout.
    let mut rec = vec![0u8; 300];
    rec[268..272].copy_from_slice(&7u32.to_be_bytes());
    assert_eq!(decode_field(&rec, l.f("IODDEV_NEWCTR")), Some(Value::U(7)));
    assert!(super::super::decode_plan(l).is_some(), "plan registered");
}

#[test]
fn json_packs_and_new_records() {
    let text = r#"{"record": [
        {"name": "MRSCLXYZ", "domain": 2, "record": 60, "kind": "event", "size": 32,
         "field": [{"name": "SCLXYZ_COUNT", "offset": 20, "type": "u4", "confidence": "ibm"}]},
        {"name": "MRMTRPAG", "remove": ["MTRPAG_RDEVDEV"]}
    ]}"#;
    let set = LayoutSet::install(LayoutPack::parse(text, "t.json").unwrap()).unwrap();
    let l = set.lookup(2, 60, Release(5, 4)).unwrap();
    assert_eq!(
        (l.name, l.size, l.kind),
        ("MRSCLXYZ", 32, RecordKind::Event)
    );
    assert!(set
        .lookup(1, 8, Release(6, 4))
        .unwrap()
        .field("MTRPAG_RDEVDEV")
        .is_none());
    assert!(set.all(Release(5, 4)).iter().any(|l| l.name == "MRSCLXYZ"));
}

#[test]
fn groups_can_be_given() {
    let text = r#"
        [[record]]
        name = "MRSYTCUP"
        [record.group]
        name = "SYTCUP_CPUDATA"
        offset_field = "SYTCUP_CALCPUOF"
        len_field = "SYTCUP_CALCPULN"
        entry_size = 48
        [[record.group.field]]
        name = "SYTCUP_LCUCPUID"
        offset = 0
        type = "U2"
        [[record.group.field]]
        name = "SYTCUP_EXTRA"
        offset = 40
        type = "DUR"
    "#;
    let set = LayoutSet::install(LayoutPack::parse(text, "g.toml").unwrap()).unwrap();
    let g = set.lookup(0, 16, Release(5, 4)).unwrap().group.unwrap();
    assert_eq!(g.entry_size, 48);
    assert_eq!(g.fields.len(), 2);
}

#[test]
fn errors_name_the_record_and_the_field() {
    let cases: &[(&str, &str)] = &[
        ("not toml [", "t.toml: not valid TOML"),
        ("x = 1", "unknown key \"x\" in the pack"),
        ("[[record]]\nname = \"MRIODDEV\"\n[[record.field]]\nname = \"IODDEV_X\"\noffset = 258\ntype = \"U4\"",
         "t.toml: record MRIODDEV: field IODDEV_X: offset 258 + 4 bytes runs past the record size 260"),
        ("[[record]]\nname = \"MRIODDEV\"\n[[record.field]]\nname = \"IODDEV_X\"\noffset = 53\ntype = \"U2\"",
         "record MRIODDEV: field IODDEV_X: overlaps IODDEV_SCMSSCH"),
        ("[[record]]\nname = \"MRIODDEV\"\n[[record.field]]\nname = \"IODDEV_X\"\noffset = 10\ntype = \"U2\"",
         "field IODDEV_X: offset 10 is inside the 20-byte record header"),
        ("[[record]]\nname = \"MRIODDEV\"\n[[record.field]]\nname = \"IODDEV_X\"\noffset = 300\ntype = \"U5\"\n",
         "field IODDEV_X: unknown type \"U5\""),
        ("[[record]]\nname = \"MRIODDEV\"\n[[record.field]]\nname = \"SYTPRP_X\"\noffset = 300\ntype = \"U4\"\n",
         "field SYTPRP_X: field names of this record start with IODDEV_"),
        ("[[record]]\nname = \"MRIODDEV\"\nrelease = \"seven\"\nsize = 300",
         "record MRIODDEV: release: \"seven\" is not a z/VM release"),
        ("[[record]]\nname = \"MRNEWREC\"\nsize = 40", "record MRNEWREC: MRNEWREC is not a record ztwin knows"),
        ("[[record]]\nname = \"MRIODDEV\"\ndomain = 5", "MRIODDEV is D6R3"),
        ("[[record]]\nname = \"MRIODDEV\"\nsize = 3", "size 3 is shorter than the 20-byte record header"),
        ("[[record]]\nname = \"MRIODDEV\"", "the entry changes nothing"),
        ("[[record]]\nname = \"MRIODDEV\"\nremove = [\"IODDEV_NOPE\"]", "field IODDEV_NOPE: cannot be removed"),
        ("[[record]]\nname = \"MRSYTCUP\"\nremove = [\"SYTCUP_CALCPUOF\"]",
         "field SYTCUP_CALCPUOF: group SYTCUP_CPUDATA refers to it"),
        ("[[record]]\nname = \"MRIODDEV\"\nsize = 300\n[[record.field]]\nname = \"IODDEV_A\"\noffset = 280\ntype = \"U4\"\n[[record.field]]\nname = \"IODDEV_A\"\noffset = 290\ntype = \"U4\"",
         "field IODDEV_A: given twice"),
        ("[[record]]\nname = \"MRIODDEV\"\nsize = 300\n[[record.field]]\nname = \"IODDEV_A\"\noffset = 280\ntype = 4",
         "field IODDEV_A: type must be a string, not an integer"),
        ("[[record]]\nname = \"MRIODDEV\"\nsize = 300\n[[record.field]]\noffset = 280\ntype = \"U4\"",
         "field #1: a field needs a name"),
        ("{\"record\": [{\"name\": 5}]}", "name must be a string, not an integer"),
        ("{\"record\": ", "not valid JSON"),
    ];
    for (text, want) in cases {
        let e = err(text).to_string();
        assert!(e.contains(want), "{text:?}\n  gave {e}\n  want {want}");
    }
}

/// A pack that cannot be read, or is not text: one reason, without Rust's
/// "(os error N)" or "stream did not contain valid UTF-8".
#[test]
fn load_says_why_a_file_cannot_be_used() {
    let dir = std::env::temp_dir().join(format!("ztwin-pack-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let missing = dir.join("missing.toml");
    let e = LayoutPack::load(&missing).unwrap_err().to_string();
    assert!(
        e.ends_with("missing.toml: cannot read: No such file or directory"),
        "{e}"
    );
    let e = LayoutPack::load(&dir).unwrap_err().to_string();
    assert!(
        e.contains(": cannot read: Is a directory") && !e.contains("os error"),
        "{e}"
    );
    let latin1 = dir.join("latin1.toml");
    std::fs::write(&latin1, b"# caf\xe9\n").unwrap();
    let e = LayoutPack::load(&latin1).unwrap_err().to_string();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(
        e.contains("latin1.toml: not UTF-8 text (byte X'E9' at offset 5)"),
        "{e}"
    );
}
