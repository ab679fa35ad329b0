//! The scenario parser on arbitrary text: `Scenario::from_toml` (the file
//! format) and `Scenario::from_json` (what the Python API sends) must never
//! panic, whatever the input. Every error must name its origin and give a
//! non-empty reason in one line (the CLI prints it as one line).
#![no_main]

use libfuzzer_sys::fuzz_target;
use ztwin_engine::{Scenario, ScenarioError};

fn check(e: &ScenarioError) {
    assert_eq!(e.origin, "fuzz");
    assert!(!e.reason.trim().is_empty(), "empty reason: {e:?}");
    let text = e.to_string();
    assert!(!text.contains('\n'), "a multi-line message: {text:?}");
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = Scenario::from_toml(text, "fuzz") {
        check(&e);
    }
    if let Err(e) = Scenario::from_json(text, "fuzz") {
        check(&e);
    }
});
