//! The columns of the interval tables: one additive sum per column, named as
//! the Python reports name them (`docs/reports.md`, `docs/history.md`).
//!
//! A row is a `[f64; N]` with NaN for "absent" (no record gave the sum; a
//! figure derived from it is null). Integer columns hold exact integers (counter
//! deltas; exact in an `f64` below 2^53) and are exported as `Int64`; `min_` and
//! `max_` columns merge by minimum and maximum, every other column by sum.

/// How a column of a window total merges the intervals' values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Merge {
    Sum,
    Min,
    Max,
}

/// One column: its name, whether it holds integers, and how it merges.
#[derive(Clone, Copy, Debug)]
pub struct Col {
    pub name: &'static str,
    pub int: bool,
    pub kind: Merge,
}

impl Col {
    pub fn merge(&self) -> Merge {
        self.kind
    }
}

/// How a column named `name` merges: `min_`/`max_` columns by their
/// extremes, every other by sum (computed when the schema is compiled).
pub const fn merge_of(name: &str) -> Merge {
    let b = name.as_bytes();
    if b.len() > 4 && b[3] == b'_' {
        if b[0] == b'm' && b[1] == b'i' && b[2] == b'n' {
            return Merge::Min;
        }
        if b[0] == b'm' && b[1] == b'a' && b[2] == b'x' {
            return Merge::Max;
        }
    }
    Merge::Sum
}

/// Whether every column of `cols` merges by sum (no `min_`/`max_` column).
pub const fn sums_only(cols: &[Col]) -> bool {
    let mut i = 0;
    while i < cols.len() {
        if !matches!(cols[i].kind, Merge::Sum) {
            return false;
        }
        i += 1;
    }
    true
}

macro_rules! schema {
    ($(#[$m:meta])* $module:ident { $($name:ident : $int:expr),* $(,)? }) => {
        $(#[$m])*
        #[allow(non_upper_case_globals, dead_code)]
        pub mod $module {
            #[allow(unused_imports)]
            use super::{merge_of, Col, F, I};
            mod ix {
                #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
                pub enum I { $($name),* }
            }
            $(pub const $name: usize = ix::I::$name as usize;)*
            pub const COLS: &[Col] = &[$(Col { name: stringify!($name), int: $int, kind: merge_of(stringify!($name)) }),*];
            pub const N: usize = COLS.len();
            /// Every column merges by sum ([`super::merge_sums`] applies).
            pub const SUMS: bool = super::sums_only(COLS);
        }
    };
}

pub(crate) const I: bool = true;
pub(crate) const F: bool = false;

schema!(
    /// Per processor (D0R2, D0R1, D0R4, D0R5, D3R2, D5R3), per interval and per window.
    cpu {
        seconds: F, cpu_busy: F, cpu_user: F, cpu_sys: F, cpu_wait: F, cpu_emul: F, cpu_spin: F,
        ssch: I, rsch: I, page_reads: I, page_writes: I, spool_reads: I, spool_writes: I,
        diagnose: I, simulated: I, steals: I, frame_deferred: I, shared_reads: I, pgin: I,
        pgout: I, migrations: I, dasd_page_reads: I, dasd_page_writes: I, steal_pass1: I,
        steal_pass2: I, steal_emerg: I, hf_count: I, dispatches: I,
    }
);

schema!(
    /// Per logical CPU of a partition (D0R16 SYTCUP entries).
    lpar { seconds: F, dispatch: F, overhead: F }
);

schema!(
    /// Per user (D4R3 USEACT, D4R4 USEINT).
    user {
        seconds: F, intervals: I, active_seconds: F, vcpu_seconds: F, ttime: F, vtime: F,
        virtual_io: I, store_seconds: F, page_reads: I, page_writes: I, steals: I, x_to_ms: I,
        ms_to_x: I, x_to_ds: I, faults: I, wss: F, res_lt2g: F, res_gt2g: F, locked: F, xstor: F,
        dasd: F, storage_pages: F, hf_total: I, hf_queue: I, hf_run: I, hf_cpu: I, hf_ldg: I,
        hf_pgw: I, hf_iow: I, hf_sim: I, hf_tiw: I, hf_cfw: I, hf_ti: I, hf_el: I, hf_dm: I,
        hf_ioa: I, hf_pga: I, hf_lim: I, hf_oth: I, hf_q0: I, hf_q1: I, hf_q2: I, hf_q3: I, hf_e: I,
    }
);

schema!(
    /// Per real device (D6R3 IODDEV).
    device {
        seconds: F, intervals: I, ssch: I, measured: I, conn: I, pend: I, disc: I, cuq: I,
        hf_count: I, hf_queue: I, hf_busy: I, mdc_hits: I, pav_uses: I, pav_inelig: I,
    }
);

schema!(
    /// Per paging exposure (D3R4 STOASP).
    exposure {
        seconds: F, intervals: I, ssch_reads: I, ssch_writes: I, page_reads: I, page_writes: I,
        ssch: I, queue: F, min_queue: I, max_queue: I, mload_us: F, min_mload_us: I,
        max_mload_us: I, slots_used: F, min_slots_used: I, max_slots_used: I, page_slots: F,
        min_page_slots: I, max_page_slots: I, spool_slots: F, min_spool_slots: I,
        max_spool_slots: I,
    }
);

schema!(
    /// The system per interval: additive sums of every record family, all as
    /// floats. `sec_R` is the seconds of the intervals in which record R gave
    /// a delta (rates of R's counters divide by it), `lsec_R` those in which R
    /// was sampled (levels divide by it).
    system {
        seconds: F, intervals: F,
        // per-CPU families summed over processors
        cpu_seconds: F, cpu_busy: F, cpu_user: F, cpu_sys: F, cpu_wait: F, cpu_emul: F,
        cpu_spin: F, sec_MRSYTPRP: F,
        ssch: F, rsch: F, page_reads: F, page_writes: F, spool_reads: F, spool_writes: F,
        diagnose: F, simulated: F, sec_MRSYTSYP: F,
        steals: F, frame_deferred: F, shared_reads: F, sec_MRSYTRSP: F,
        pgin: F, pgout: F, migrations: F, sec_MRSYTXSP: F,
        dasd_page_reads: F, dasd_page_writes: F, steal_pass1: F, steal_pass2: F, steal_emerg: F,
        sec_MRSTORSP: F,
        hf_count: F, dispatches: F, sec_MRPRCPRP: F,
        // global records
        rsg_frame_waits: F, sec_MRSYTRSG: F, lsec_MRSYTRSG: F,
        avail_frames: F, min_avail_frames: F, max_avail_frames: F,
        pageable_frames: F, min_pageable_frames: F, max_pageable_frames: F,
        cp_locked: F, min_cp_locked: F, max_cp_locked: F,
        nonpageable: F, min_nonpageable: F, max_nonpageable: F,
        save_frames: F, min_save_frames: F, max_save_frames: F,
        reserved_frames: F, min_reserved_frames: F, max_reserved_frames: F,
        emergency_scans: F, list_empty: F, frame_waits: F, scans: F, sec_MRSTORSG: F,
        lsec_MRSTORSG: F,
        avail_low: F, min_avail_low: F, max_avail_low: F,
        avail_high: F, min_avail_high: F, max_avail_high: F,
        avail_low_g: F, min_avail_low_g: F, max_avail_low_g: F,
        avail_high_g: F, min_avail_high_g: F, max_avail_high_g: F,
        max_pageable: F, min_max_pageable: F, max_max_pageable: F,
        full90: F, sec_MRSYTASG: F, lsec_MRSYTASG: F,
        slots_total: F, min_slots_total: F, max_slots_total: F,
        slots_used: F, min_slots_used: F, max_slots_used: F,
        spool_total: F, min_spool_total: F, max_spool_total: F,
        spool_used: F, min_spool_used: F, max_spool_used: F,
        dump_total: F, min_dump_total: F, max_dump_total: F,
        dump_used: F, min_dump_used: F, max_dump_used: F,
        uwt_ti: F, uwt_tiw: F, uwt_iow: F, uwt_pgw: F, uwt_cfw: F, uwt_sim: F, uwt_cpu: F,
        uwt_run: F, uwt_oth: F, uwt_queue: F, uwt_el: F, uwt_ioa: F, uwt_lim: F,
        sec_MRSYTUWT: F, lsec_MRSYTUWT: F,
        elist: F, min_elist: F, max_elist: F,
        xstor_gets: F, xstor_releases: F, sec_MRSYTXSG: F, lsec_MRSYTXSG: F,
        xstor_free: F, min_xstor_free: F, max_xstor_free: F,
        xstor_total: F, min_xstor_total: F, max_xstor_total: F,
        xstor_migrations: F, sec_MRSTOXSG: F, lsec_MRSTOXSG: F,
        xstor_age: F, min_xstor_age: F, max_xstor_age: F,
        xstor_low: F, min_xstor_low: F, max_xstor_low: F,
        // users
        sec_users: F, users_logged: F, users_active: F, users_counted: F,
        user_ttime: F, user_vtime: F, users_store_seconds: F, users_store_n: F,
        users_hf_total: F, users_hf_queue: F, users_hf_run: F, users_hf_cpu: F, users_hf_ldg: F,
        users_hf_pgw: F, users_hf_iow: F, users_hf_sim: F, users_hf_tiw: F, users_hf_cfw: F,
        users_hf_ti: F, users_hf_el: F, users_hf_dm: F, users_hf_ioa: F, users_hf_pga: F,
        users_hf_lim: F, users_hf_oth: F, users_hf_q0: F, users_hf_q1: F, users_hf_q2: F,
        users_hf_q3: F, users_hf_e: F,
        users_page_reads: F, users_page_writes: F, users_steals: F, users_x_to_ms: F,
        users_ms_to_x: F, users_x_to_ds: F, users_faults: F,
        users_wss: F, users_res_lt2g: F, users_res_gt2g: F, users_locked: F, users_xstor: F,
        users_dasd: F, users_storage_pages: F,
        // devices and exposures
        dasd_ssch: F, dasd_devices: F, dasd_resp_x_io: F, dasd_serv_x_io: F, dasd_resp_io: F,
        sec_MRIODDEV: F,
        exp_ssch_reads: F, exp_ssch_writes: F, exp_page_reads: F, exp_page_writes: F,
        exp_ssch: F, sec_MRSTOASP: F,
    }
);

/// Column index of `name` in `cols` (for building tables by name).
pub fn index_of(cols: &[Col], name: &str) -> Option<usize> {
    cols.iter().position(|c| c.name == name)
}

/// A fresh row: every sum absent.
#[inline]
pub fn empty<const N: usize>() -> [f64; N] {
    [f64::NAN; N]
}

/// Add `v` to an additive sum (absent + v = v, as Python's `raw.get(k, 0) + v`).
#[inline(always)]
pub fn add(row: &mut [f64], i: usize, v: Option<f64>) {
    if let Some(v) = v {
        let o = row[i];
        // absent (NaN) counts as 0.0: a select, not a branch
        row[i] = if o.is_nan() { 0.0 } else { o } + v;
    }
}

/// [`add`] of each present value of `other` into `into`, column by column
/// (an absent sum taken as 0.0: `0.0 + v`, which is not [`merge_sums`]'s
/// `v` for `v = -0.0`), written as selects so that the compiler can do
/// several columns at once.
#[inline]
pub fn add_row(into: &mut [f64], other: &[f64]) {
    for (o, &v) in into.iter_mut().zip(other) {
        let old = *o;
        let sum = if old.is_nan() { 0.0 } else { old } + v;
        *o = if v.is_nan() { old } else { sum };
    }
}

/// [`add_row`] of counter deltas (`other` as `v as f64`, an
/// [`ABSENT`](crate::delta::ABSENT) one as NaN) without the row of doubles
/// in between: the same additions.
#[inline]
pub fn add_deltas(into: &mut [f64], d: &[i64]) {
    for (o, &v) in into.iter_mut().zip(d) {
        let old = *o;
        let sum = if old.is_nan() { 0.0 } else { old } + v as f64;
        *o = if v == crate::delta::ABSENT { old } else { sum };
    }
}

/// A level (frames, slots, queue length) weighted by the seconds it stands
/// for, plus its minimum and maximum (columns `i`, `i + 1`, `i + 2`).
#[inline]
pub fn add_level(row: &mut [f64], i: usize, v: Option<f64>, seconds: f64) {
    let Some(v) = v else { return };
    add(row, i, Some(v * seconds));
    let (mn, mx) = (row[i + 1], row[i + 2]);
    row[i + 1] = if mn.is_nan() || v < mn { v } else { mn };
    row[i + 2] = if mx.is_nan() || v > mx { v } else { mx };
}

/// Merge `other` into `into` column by column: sums add, `min_`/`max_`
/// columns keep the smaller/larger value; absent values change nothing.
pub fn merge(cols: &[Col], into: &mut [f64], other: &[f64]) {
    for (i, c) in cols.iter().enumerate() {
        let v = other[i];
        if v.is_nan() {
            continue;
        }
        let old = into[i];
        if old.is_nan() {
            into[i] = v;
            continue;
        }
        into[i] = match c.kind {
            Merge::Sum => old + v,
            Merge::Min => {
                if v < old {
                    v
                } else {
                    old
                }
            }
            Merge::Max => {
                if v > old {
                    v
                } else {
                    old
                }
            }
        };
    }
}

/// [`merge`] for a schema whose columns all merge by sum ([`sums_only`]):
/// the same result without looking at each column's kind, written as
/// selects so that the compiler can do several columns at once.
#[inline]
pub fn merge_sums(into: &mut [f64], other: &[f64]) {
    for (o, &v) in into.iter_mut().zip(other) {
        let old = *o;
        let sum = old + v;
        *o = if v.is_nan() {
            old
        } else if old.is_nan() {
            v
        } else {
            sum
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_followed_by_their_min_and_max() {
        for cols in [system::COLS, exposure::COLS] {
            for (i, c) in cols.iter().enumerate() {
                if let Some(base) = c.name.strip_prefix("min_") {
                    assert_eq!(cols[i - 1].name, base, "{}", c.name);
                    assert_eq!(cols[i + 1].name, format!("max_{base}"));
                }
            }
        }
        assert_eq!(
            system::COLS[system::avail_frames + 1].name,
            "min_avail_frames"
        );
    }

    #[test]
    fn merge_sums_is_merge_for_sum_schemas() {
        let sums = [user::SUMS, device::SUMS, cpu::SUMS, lpar::SUMS];
        assert_eq!(sums, [true; 4]);
        assert_eq!([exposure::SUMS, system::SUMS], [false; 2]);
        let vals = [f64::NAN, 0.0, -0.0, 1.5, -2.0, 1e300, f64::INFINITY];
        for &a in &vals {
            for &b in &vals {
                let (mut x, mut y) = ([a; 1], [a; 1]);
                merge(&device::COLS[2..3], &mut x, &[b]);
                merge_sums(&mut y, &[b]);
                assert_eq!(x[0].to_bits(), y[0].to_bits(), "{a} {b}");
            }
        }
    }

    /// `add_deltas` is `add_row` of the deltas as doubles (absent as NaN),
    /// bit for bit, on a row and short rows.
    #[test]
    fn add_deltas_is_add_row_of_doubles() {
        use crate::delta::ABSENT;
        let starts = [f64::NAN, 0.0, -0.0, 1.5, -2.0, 1e300, f64::INFINITY];
        let ds = [ABSENT, 0, 1, 7, i64::MAX, (1 << 53) + 1, 123_456_789];
        for &a in &starts {
            for n in 0..=ds.len() {
                let (mut x, mut y) = ([a; 7], [a; 7]);
                let doubles: Vec<f64> = ds[..n]
                    .iter()
                    .map(|&d| if d == ABSENT { f64::NAN } else { d as f64 })
                    .collect();
                add_row(&mut x, &doubles);
                add_deltas(&mut y, &ds[..n]);
                assert_eq!(x.map(f64::to_bits), y.map(f64::to_bits), "{a} {n}");
            }
        }
    }

    #[test]
    fn add_row_is_add_per_column() {
        let vals = [
            f64::NAN,
            0.0,
            -0.0,
            1.5,
            -2.0,
            1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for &a in &vals {
            for &b in &vals {
                let (mut x, mut y) = ([a; 1], [a; 1]);
                add(&mut x, 0, (!b.is_nan()).then_some(b));
                add_row(&mut y, &[b]);
                assert_eq!(x[0].to_bits(), y[0].to_bits(), "{a} {b}");
            }
        }
        // a whole row, in the order the users come
        let rows = [
            [f64::NAN, 1.0, -0.0],
            [2.0, f64::NAN, -0.0],
            [0.5, 0.25, 3.0],
        ];
        let (mut x, mut y) = ([f64::NAN; 3], [f64::NAN; 3]);
        for r in &rows {
            for (i, &v) in r.iter().enumerate() {
                add(&mut x, i, (!v.is_nan()).then_some(v));
            }
            add_row(&mut y, r);
        }
        assert_eq!(x.map(f64::to_bits), y.map(f64::to_bits));
    }

    #[test]
    fn merge_sums_and_keeps_extremes() {
        let cols = exposure::COLS;
        let mut a = [f64::NAN; exposure::N];
        let mut b = [f64::NAN; exposure::N];
        add_level(&mut a, exposure::queue, Some(3.0), 60.0);
        add_level(&mut b, exposure::queue, Some(1.0), 30.0);
        b[exposure::ssch] = 7.0;
        merge(cols, &mut a, &b);
        assert_eq!(a[exposure::queue], 210.0);
        assert_eq!(a[exposure::min_queue], 1.0);
        assert_eq!(a[exposure::max_queue], 3.0);
        assert_eq!(a[exposure::ssch], 7.0);
        assert!(a[exposure::page_reads].is_nan());
    }
}
