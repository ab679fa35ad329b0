//! The cpu component's parameters: the logical CPUs (from `[system]`),
//! STORBUF (from `[srm]`), the CP time of a dispatch (from `[cp_costs]`), and
//! the scheduling part of each `[[guest]]` group (user IDs, virtual CPUs,
//! share). [`Params::validate`] and [`check_guest`] hold their bounds.

use crate::core::units::{Ns, MS};
use crate::core::{check_cost_us, invalid, us_to_ns, Invalid};

/// Default time slice of the dispatcher.
pub const MINOR_SLICE: Ns = 5 * MS;

#[derive(Clone, Debug)]
pub struct Params {
    /// Logical processors (1 to 64, dedicated).
    pub processors: u16,
    /// SET SRM STORBUF: % of the DPA for Q1, Q1+Q2, Q1+Q2+Q3 working sets.
    pub storbuf: [u32; 3],
    /// SET SRM LDUBUF: % of the paging exposures for Q1, Q1+Q2, Q1+Q2+Q3
    /// loading users.
    pub ldubuf: [u32; 3],
    /// CP time per dispatch of a virtual CPU (µs).
    pub dispatch_us: f64,
}

impl Params {
    pub fn validate(&self) -> Result<(), Invalid> {
        if self.processors == 0 || self.processors > 64 {
            return invalid(
                "system.processors".into(),
                format!("{} processors: must be 1 to 64", self.processors),
            );
        }
        let sb = self.storbuf;
        if !(sb[0] >= sb[1] && sb[1] >= sb[2]) || sb[0] > 999 {
            return invalid(
                "srm.storbuf".into(),
                format!("{sb:?}: values must be 0-999 with Q1 >= Q1+Q2 >= Q1+Q2+Q3"),
            );
        }
        let lb = self.ldubuf;
        if !(lb[0] >= lb[1] && lb[1] >= lb[2]) || lb[0] > 999 {
            return invalid(
                "srm.ldubuf".into(),
                format!("{lb:?}: values must be 0-999 with Q1 >= Q1+Q2 >= Q1+Q2+Q3"),
            );
        }
        check_cost_us("cp_costs.dispatch_us", self.dispatch_us)
    }

    /// LDUBUF as fractions of the paging exposures.
    pub fn ldubuf(&self) -> [f64; 3] {
        self.ldubuf.map(|x| x as f64 / 100.0)
    }

    /// STORBUF as fractions of the DPA.
    pub fn storbuf(&self) -> [f64; 3] {
        self.storbuf.map(|x| x as f64 / 100.0)
    }

    pub fn dispatch(&self) -> Ns {
        us_to_ns(self.dispatch_us)
    }
}

/// User IDs of a guest group: the ID itself for one guest, else the ID followed
/// by 1..count, zero-padded to the width of count (LINUX01 .. LINUX30).
pub fn expand_userids(userid: &str, count: u32) -> Vec<String> {
    if count == 1 {
        return vec![userid.to_string()];
    }
    let w = count.to_string().len();
    (1..=count).map(|k| format!("{userid}{k:0w$}")).collect()
}

/// A valid CP user ID: 1 to 8 characters A-Z 0-9 @ # $ _ -, not one CP
/// reserves (SYSTEM, SYSTEMMP, LOGNxxxx, LOGLxxxx, LOGVxxxx).
pub fn check_userid(place: &str, id: &str) -> Result<(), Invalid> {
    // CP's rules (USER directory statement; USERID_CHARACTERS): 1 to 8
    // characters A-Z 0-9 @ # $ _ -; lower case is upper-cased before this
    // check, as CP does (Scenario::normalise).
    let n = id.chars().count();
    if n == 0 || n > 8 {
        return invalid(
            format!("{place}.userid"),
            format!("'{id}' is not a valid user ID: it has {n} characters, CP allows 1 to 8"),
        );
    }
    if let Some(c) = id
        .chars()
        .find(|&c| !(c.is_ascii_uppercase() || c.is_ascii_digit() || "@#$_-".contains(c)))
    {
        return invalid(
            format!("{place}.userid"),
            format!(
                "'{id}' is not a valid user ID: '{c}' is not one of the characters CP allows (A-Z 0-9 @ # $ _ -)"
            ),
        );
    }
    let logon = ["LOGN", "LOGL", "LOGV"];
    if id == "SYSTEM" || id == "SYSTEMMP" || (id.len() == 8 && logon.contains(&&id[..4])) {
        return invalid(
            format!("{place}.userid"),
            format!(
                "'{id}' is reserved for CP (SYSTEM, SYSTEMMP, LOGNxxxx, LOGLxxxx and LOGVxxxx are)"
            ),
        );
    }
    Ok(())
}

/// A guest group's virtual CPUs (1 to 64) and relative share (1 to 10000).
pub fn check_guest(place: &str, virtual_cpus: u32, share: u32) -> Result<(), Invalid> {
    if virtual_cpus == 0 || virtual_cpus > 64 {
        return invalid(format!("{place}.virtual_cpus"), "must be 1 to 64".into());
    }
    if share == 0 || share > 10_000 {
        return invalid(
            format!("{place}.share"),
            "relative share must be 1 to 10000".into(),
        );
    }
    Ok(())
}
