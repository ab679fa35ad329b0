//! The CP command and DIAGNOSE X'64' parsers (timeline `cp`/`diag64` actions,
//! DEFSEG's page ranges and codes, DEFINE VFB-512, DETACH, SET/QUERY VDISK, SET MDCACHE
//! STORAGE/XSTORE/BIAS, QUERY FRAMES) on arbitrary text: never a panic; a refused
//! CP command is one line of CP's message style (HCPnnnE ...), a refused
//! DIAGNOSE function one non-empty line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ztwin_engine::model::cp;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match cp::parse(text) {
        Ok(cp::Command::Defseg(d)) => {
            let p = d.pages();
            assert!(p.saved() <= p.total);
            assert!(!d.ranges.is_empty());
        }
        Ok(cp::Command::DefineVfb { blocks, .. }) => {
            assert!(blocks > 0 && blocks <= ztwin_engine::model::vdisk::params::MAX_BLOCKS);
        }
        Ok(cp::Command::SetMdcBounds { min, max, .. }) => {
            assert!(min <= max && min % (1 << 20) == 0 && max % (1 << 20) == 0);
        }
        Ok(cp::Command::SetMdcBias(h)) => assert!((1..=10_000).contains(&h)),
        Ok(_) => {}
        Err(e) => {
            assert!(e.starts_with("HCP"), "{e:?}");
            assert!(!e.contains('\n'), "{e:?}");
        }
    }
    if let Err(e) = cp::parse_diag64(text) {
        assert!(!e.trim().is_empty() && !e.contains('\n'), "{e:?}");
    }
});
