//! DEFSEG operands: page ranges with their page descriptor codes, and the
//! options; the rules CP applies to them.

use std::fmt;

/// Highest page a saved segment may use: below 512 GB (z/VM 5.4's large
/// DCSS limit).
pub const MAX_PAGE: u32 = (512u64 * 1024 * 1024 * 1024 / 4096) as u32 - 1;
/// Pages in a 1 MB segment.
pub const SEG_PAGES: u32 = 256;

/// A page descriptor code: first letter E (exclusive: a private copy per
/// user) or S (shared: one copy for all); second R (read-only), W
/// (read/write), N (read/write, no data saved); SC: CP-writable, read-only to
/// guests, no data saved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    SW,
    EW,
    SR,
    ER,
    SN,
    EN,
    SC,
}

impl Code {
    pub fn parse(s: &str) -> Option<Code> {
        Some(match s.to_ascii_uppercase().as_str() {
            "SW" => Code::SW,
            "EW" => Code::EW,
            "SR" => Code::SR,
            "ER" => Code::ER,
            "SN" => Code::SN,
            "EN" => Code::EN,
            "SC" => Code::SC,
            _ => return None,
        })
    }

    /// One copy for all users.
    pub fn shared(self) -> bool {
        matches!(self, Code::SW | Code::SR | Code::SN | Code::SC)
    }

    /// The pages' data is saved to spool by SAVESEG (and read back on load).
    pub fn saved(self) -> bool {
        matches!(self, Code::SW | Code::EW | Code::SR | Code::ER)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

/// Pages `first..=last` with code `code`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub first: u32,
    pub last: u32,
    pub code: Code,
}

impl Range {
    pub fn pages(&self) -> u32 {
        self.last - self.first + 1
    }
}

/// A DEFSEG's definition of a saved segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Def {
    pub name: String,
    pub ranges: Vec<Range>,
    pub loadnshr: bool,
    pub rstd: bool,
}

/// Page counts of a definition by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pages {
    pub total: u32,
    /// Shared pages with data saved (SW, SR).
    pub shared_saved: u32,
    /// Exclusive pages with data saved (EW, ER).
    pub excl_saved: u32,
    /// Shared pages with no data saved (SN, SC).
    pub shared_nodata: u32,
    /// Exclusive pages with no data saved (EN).
    pub excl_nodata: u32,
}

impl Pages {
    /// Pages written to spool by SAVESEG (not counting the descriptor page).
    pub fn saved(&self) -> u32 {
        self.shared_saved + self.excl_saved
    }
}

impl Def {
    pub fn pages(&self) -> Pages {
        let mut p = Pages::default();
        for r in &self.ranges {
            let n = r.pages();
            p.total += n;
            match (r.code.shared(), r.code.saved()) {
                (true, true) => p.shared_saved += n,
                (false, true) => p.excl_saved += n,
                (true, false) => p.shared_nodata += n,
                (false, false) => p.excl_nodata += n,
            }
        }
        p
    }

    /// Lowest and highest page.
    pub fn span(&self) -> (u32, u32) {
        let lo = self.ranges.iter().map(|r| r.first).min().unwrap_or(0);
        let hi = self.ranges.iter().map(|r| r.last).max().unwrap_or(0);
        (lo, hi)
    }

    /// The descriptor codes in QUERY NSS MAP's form (the first range's, or
    /// the codes of each range joined).
    pub fn codes(&self) -> String {
        let mut v: Vec<String> = Vec::new();
        for r in &self.ranges {
            let c = r.code.to_string();
            if !v.contains(&c) {
                v.push(c);
            }
        }
        v.join("/")
    }
}

/// A saved segment name: 1 to 8 letters, digits or @#$_-.
pub fn check_name(s: &str) -> Result<String, String> {
    let ok = !s.is_empty()
        && s.len() <= 8
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "@#$_-".contains(c));
    if ok {
        Ok(s.to_ascii_uppercase())
    } else {
        Err(format!("HCP002E Invalid operand - {s}"))
    }
}

fn hexpage(s: &str) -> Result<u32, String> {
    let v = u64::from_str_radix(s, 16).map_err(|_| format!("HCP002E Invalid operand - {s}"))?;
    if v > MAX_PAGE as u64 {
        return Err(format!(
            "HCP002E Invalid operand - {s} (page {v:X} is above 512 GB: the highest page is {MAX_PAGE:X})"
        ));
    }
    Ok(v as u32)
}

/// Parse DEFSEG's operands (`name range code [range code ...] [options]`)
/// and apply CP's rules: ranges in ascending page order, not overlapping;
/// within one 1 MB segment all pages shared or all exclusive; LOADNSHR not
/// with RSTD nor with SC pages. Errors are CP's message text.
pub fn parse(ops: &[&str]) -> Result<Def, String> {
    let Some((name, rest)) = ops.split_first() else {
        return Err("HCP026E Operand missing or invalid".into());
    };
    let name = check_name(name)?;
    let mut ranges = Vec::new();
    let mut loadnshr = false;
    let mut rstd = false;
    let mut i = 0;
    while i < rest.len() {
        let tok = rest[i];
        let up = tok.to_ascii_uppercase();
        match up.as_str() {
            "LOADNSHR" => {
                loadnshr = true;
                i += 1;
                continue;
            }
            "RSTD" => {
                rstd = true;
                i += 1;
                continue;
            }
            _ => {}
        }
        if tok.chars().all(|c| c.is_ascii_hexdigit() || c == '-') && !loadnshr && !rstd {
            let (a, b) = match tok.split_once('-') {
                Some((a, b)) => (hexpage(a)?, hexpage(b)?),
                None => {
                    let a = hexpage(tok)?;
                    (a, a)
                }
            };
            if b < a {
                return Err(format!("HCP002E Invalid operand - {tok}"));
            }
            let Some(c) = rest.get(i + 1) else {
                return Err(format!(
                    "HCP026E Operand missing or invalid (page descriptor code after {tok})"
                ));
            };
            let Some(code) = Code::parse(c) else {
                return Err(format!("HCP002E Invalid operand - {c}"));
            };
            ranges.push(Range {
                first: a,
                last: b,
                code,
            });
            i += 2;
            continue;
        }
        return Err(format!("HCP003E Invalid option - {tok}"));
    }
    if ranges.is_empty() {
        return Err("HCP026E Operand missing or invalid (no page range)".into());
    }
    if loadnshr && rstd {
        return Err("HCP013E Conflicting option - LOADNSHR and RSTD".into());
    }
    if loadnshr && ranges.iter().any(|r| r.code == Code::SC) {
        return Err("HCP013E Conflicting option - LOADNSHR with SC pages".into());
    }
    for w in ranges.windows(2) {
        if w[1].first <= w[0].last {
            return Err(format!(
                "HCP002E Invalid operand - {:X}-{:X} (overlaps or precedes {:X}-{:X})",
                w[1].first, w[1].last, w[0].first, w[0].last
            ));
        }
    }
    // Sharing is by whole 1 MB segments.
    let mut seg_kind: Vec<(u32, bool)> = Vec::new();
    for r in &ranges {
        for s in [r.first / SEG_PAGES, r.last / SEG_PAGES] {
            if let Some(&(_, sh)) = seg_kind.iter().rev().find(|(k, _)| *k == s) {
                if sh != r.code.shared() {
                    return Err(format!(
                        "HCP002E Invalid operand - {:X}-{:X} {} (the 1 MB segment at page {:X} mixes shared and exclusive pages)",
                        r.first, r.last, r.code, s * SEG_PAGES
                    ));
                }
            } else {
                seg_kind.push((s, r.code.shared()));
            }
        }
    }
    Ok(Def {
        name,
        ranges,
        loadnshr,
        rstd,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<Def, String> {
        parse(&s.split_whitespace().collect::<Vec<_>>())
    }

    #[test]
    fn the_papers_definitions() {
        let d = p("dcss1g 20000-5FFFF sr loadnshr").unwrap();
        assert_eq!(d.name, "DCSS1G");
        assert!(d.loadnshr && !d.rstd);
        assert_eq!(d.pages().total, 0x40000, "1 GB");
        assert_eq!(d.pages().shared_saved, 0x40000);
        let d = p("dcss2g 20000-9FEFF sn").unwrap();
        assert_eq!(d.pages().total as u64 * 4096, (2u64 << 30) - (1 << 20));
        assert_eq!(d.pages().saved(), 0, "SN pages are never saved");
        let d = p("dcss16g8 39F900-41F7FF sr loadnshr").unwrap();
        assert_eq!(d.span(), (0x39F900, 0x41F7FF), "above 2 GB");
    }

    #[test]
    fn cp_refuses_bad_definitions() {
        for (cmd, msg) in [
            ("x 20000-5FFFF sr 5F000-6FFFF sr", "overlaps"),
            ("x 20000-5FFFF sr loadnshr rstd", "HCP013E"),
            ("x 20000-200FF sc loadnshr", "HCP013E"),
            ("x 20000-5FFFF", "HCP026E"),
            ("x 20000-5FFFF sx", "HCP002E Invalid operand - sx"),
            ("x 20000-5FFFF sr bogus", "HCP003E Invalid option - bogus"),
            ("toolongname 20000-5FFFF sr", "HCP002E"),
            ("x 7FFFF00-8000000 sr", "above 512 GB"),
            (
                "x 20000-2007F sr 20080-200FF ew",
                "mixes shared and exclusive",
            ),
            ("x", "HCP026E"),
        ] {
            let e = p(cmd).unwrap_err();
            assert!(e.contains(msg), "{cmd}: {e}");
        }
        // Up to 512 GB is accepted.
        let d = p("big 0-7FFFFFF sn").unwrap();
        assert_eq!(d.pages().total as u64 * 4096, 512u64 << 30);
        // Mixed codes in separate 1 MB segments are fine.
        p("x 20000-200FF sr 20100-201FF ew 20200-202FF sn").unwrap();
    }
}
