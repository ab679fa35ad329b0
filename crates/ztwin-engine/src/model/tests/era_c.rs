//! Whole-run tests of the Era C storage manager (z/VM 6.3+: the global
//! aging list, early writes, no XSTOR).
use super::{run, PAGING};
use crate::scenario::Scenario;

/// PAGING at 7.3 (its XSTOR as central storage), with a logoff while the
/// guests page: the aging list works (frames moved to it, early writes,
/// frames reused with no I/O, frames referenced on it returned to their
/// owners), nothing goes to XSTOR, the model's invariants hold (checked at
/// every sample in debug builds and here at the end), the logged-off guests
/// leave nothing behind, and the run repeats byte for byte.
#[test]
fn an_era_c_run_uses_the_aging_list_and_repeats() {
    let text = format!(
        "{}\n[[timeline]]\nat = \"30s\"\naction = \"logoff\"\nguest = \"LNX*\"\n",
        PAGING
            .replace("[system]\n", "[system]\ncp_level = \"7.3\"\n")
            .replace(
                "central_storage = \"256M\"\nxstor = \"64M\"\n",
                "central_storage = \"320M\"\n"
            )
    );
    let sc = Scenario::from_toml(&text, "era_c.toml").unwrap();
    assert_eq!(sc.paging_params().block_max, 32);
    let (bytes, twin) = run(&sc, 3, false);
    let m = &twin.model;
    m.check();
    assert!(m.st.era_c());
    let a = m.st.agelist();
    let st = m.st.sample(twin.core.now);
    assert_eq!((st.xs_total, st.c.xstor_out, st.c.migrated), (0, 0, 0));
    assert!(a.c.moved > 1000, "{a:?}");
    assert!(a.c.early_writes > 0, "{a:?}");
    assert!(a.c.freed_no_io > 0 && a.c.freed_written > 0, "{a:?}");
    assert!(a.c.reclaimed + a.c.reclaimed_fault > 0, "{a:?}");
    assert_eq!(
        a.c.freed_no_io + a.c.freed_wait + a.c.paged_out,
        st.c.steals,
        "{a:?}"
    );
    for g in 0..m.cpu.guest_count() {
        if !m.cpu.logged_on(g) {
            let sp = m.st.space(g);
            assert_eq!((sp.resident, sp.dasd), (0, 0), "{}", m.cpu.guest(g).userid);
        }
    }
    let (again, _) = run(&sc, 3, false);
    assert!(bytes == again, "same scenario, same seed: the same file");
}
