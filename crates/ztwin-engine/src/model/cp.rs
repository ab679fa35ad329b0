//! CP commands as scenario timeline actions (`action = "cp"`, `command =
//! "..."`) and the DIAGNOSE X'64' functions a Linux guest's dcssblk driver
//! issues (`action = "diag64"`): parsing (at scenario validation, so a
//! malformed command is a scenario error naming its entry), execution
//! against the components (a wiring step: `Model::cp_command`), and the CP
//! console log, where each command and its response lines go with their
//! simulated time.
//!
//! Commands: DEFSEG, SAVESEG, PURGE NSS (NAME name | spoolid), QUERY NSS
//! [NAME name] [MAP], QUERY ALLOC SPOOL|PAGE, DEFINE VFB-512, DETACH, SET
//! VDISK, QUERY VDISK, INDICATE [LOAD], INDICATE USER, SET MDCACHE SYSTEM
//! ON|OFF, SET MDCACHE STORAGE|XSTORE min max, SET MDCACHE STORAGE BIAS,
//! SET MDCACHE RDEV rdev ON|OFF|DFLTON|DFLTOFF,
//! QUERY MDCACHE, SET SRM STORBUF|LDUBUF, QUERY SRM, QUERY FRAMES, LOCK
//! userid first last [MAP], UNLOCK userid first last. DIAGNOSE
//! X'64': LOADSHR, LOADNSHR, PURGESG.
//! Abbreviations as CP's minimum (Q for QUERY). Responses use CP's
//! message style (`HCPnnnnE text`); see `docs/scenario.md` for which message
//! numbers are IBM's and which are ztwin's own.

use super::segments::{defseg, Def, Mode};
use super::vdisk::params::{parse_blocks, parse_limit, parse_vdev, Limit, MAX_BLOCKS};
use super::vdisk::Refusal;

/// A parsed CP command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Defseg(Def),
    Saveseg(String),
    PurgeNss {
        name: Option<String>,
        spoolid: Option<u16>,
    },
    QueryNss {
        name: Option<String>,
        map: bool,
    },
    QueryAllocSpool,
    /// QUERY ALLOC PAGE.
    QueryAllocPage,
    /// DEFINE VFB-512 AS vdev BLK blocks.
    DefineVfb {
        vdev: u16,
        blocks: u64,
    },
    /// DETACH vdev.
    Detach(u16),
    /// SET VDISK SYSLIM|USERLIM limit.
    SetVdisk {
        syslim: bool,
        limit: Limit,
    },
    /// QUERY VDISK [SYSLIM|USERLIM].
    QueryVdisk {
        which: Option<bool>,
    },
    /// INDICATE [LOAD].
    IndicateLoad,
    /// INDICATE USER [userid] (none: the issuer).
    IndicateUser(Option<String>),
    /// SET MDCACHE SYSTEM ON|OFF.
    SetMdcSystem(bool),
    /// SET MDCACHE STORAGE|XSTORE min max (bytes; `xstor` true: XSTORE).
    SetMdcBounds {
        xstor: bool,
        min: u64,
        max: u64,
    },
    /// SET MDCACHE STORAGE BIAS n (hundredths: 100 is 1.00).
    SetMdcBias(u32),
    /// SET MDCACHE RDEV rdev[-rdev] ON|OFF|DFLTON|DFLTOFF (`on`: ON or
    /// DFLTON).
    SetMdcRdev {
        first: u16,
        last: u16,
        on: bool,
    },
    /// QUERY FRAMES.
    QueryFrames,
    /// QUERY MDCACHE.
    QueryMdc,
    /// SET SRM STORBUF|LDUBUF p1 p2 p3 (`true`: STORBUF).
    SetSrm {
        storbuf: bool,
        pct: [u32; 3],
    },
    /// QUERY SRM.
    QuerySrm,
    /// LOCK userid first last [MAP]: pin pages `first..=last` (hex page
    /// numbers) of the user's storage.
    Lock {
        userid: String,
        first: u32,
        last: u32,
        map: bool,
    },
    /// UNLOCK userid first last.
    Unlock {
        userid: String,
        first: u32,
        last: u32,
    },
}

/// A parsed DIAGNOSE X'64' function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Diag64 {
    Load { name: String, mode: Mode },
    Purgesg(String),
}

fn is(word: &str, full: &str, min: usize) -> bool {
    let w = word.to_ascii_uppercase();
    w.len() >= min && w.len() <= full.len() && full.starts_with(&w)
}

/// Parse a CP command line. Errors are CP's message text.
pub fn parse(line: &str) -> Result<Command, String> {
    let w: Vec<&str> = line.split_whitespace().collect();
    let Some((&verb, ops)) = w.split_first() else {
        return Err("HCP001E Unknown CP command: (empty)".into());
    };
    if is(verb, "DEFSEG", 6) {
        return defseg::parse(ops).map(Command::Defseg);
    }
    if is(verb, "SAVESEG", 7) {
        return match ops {
            [name] => Ok(Command::Saveseg(defseg::check_name(name)?)),
            [] => Err("HCP026E Operand missing or invalid".into()),
            [_, extra, ..] => Err(format!("HCP003E Invalid option - {extra}")),
        };
    }
    if is(verb, "PURGE", 5) {
        return match ops {
            [nss, rest @ ..] if nss.eq_ignore_ascii_case("NSS") => match rest {
                [n] if n.eq_ignore_ascii_case("NAME") => {
                    Err("HCP026E Operand missing or invalid".into())
                }
                [n, name] if n.eq_ignore_ascii_case("NAME") => Ok(Command::PurgeNss {
                    name: Some(defseg::check_name(name)?),
                    spoolid: None,
                }),
                [id] if id.chars().all(|c| c.is_ascii_digit()) && id.len() <= 4 => {
                    Ok(Command::PurgeNss {
                        name: None,
                        spoolid: Some(
                            id.parse()
                                .map_err(|_| format!("HCP002E Invalid operand - {id}"))?,
                        ),
                    })
                }
                [] => Err("HCP026E Operand missing or invalid".into()),
                [x, ..] => Err(format!("HCP002E Invalid operand - {x}")),
            },
            [x, ..] => Err(format!(
                "HCP002E Invalid operand - {x} (ztwin models PURGE NSS only)"
            )),
            [] => Err("HCP026E Operand missing or invalid".into()),
        };
    }
    if is(verb, "DEFINE", 3) {
        return match ops {
            [t, rest @ ..] if t.eq_ignore_ascii_case("VFB-512") => {
                let rest: Vec<&str> = match rest {
                    [a, r @ ..] if a.eq_ignore_ascii_case("AS") => r.to_vec(),
                    r => r.to_vec(),
                };
                match rest.as_slice() {
                    [vdev, blk, n] if is(blk, "BLK", 3) => {
                        let vdev = parse_vdev(vdev)
                            .map_err(|_| format!("HCP022E A virtual device number was not supplied or it was invalid - {vdev}"))?;
                        let blocks = parse_blocks(n)
                            .map_err(|_| format!("HCP002E Invalid operand - {n}"))?;
                        if blocks == 0 || blocks > MAX_BLOCKS {
                            return Err(format!(
                                "HCP002E Invalid operand - {n} (a VFB-512 disk is 1 to {MAX_BLOCKS} blocks)"
                            ));
                        }
                        Ok(Command::DefineVfb { vdev, blocks })
                    }
                    [_, x, ..] => Err(format!("HCP003E Invalid option - {x}")),
                    _ => Err("HCP026E Operand missing or invalid".into()),
                }
            }
            [x, ..] => Err(format!(
                "HCP002E Invalid operand - {x} (ztwin models DEFINE VFB-512 only)"
            )),
            [] => Err("HCP026E Operand missing or invalid".into()),
        };
    }
    if is(verb, "DETACH", 3) {
        return match ops {
            [vdev] => parse_vdev(vdev).map(Command::Detach).map_err(|_| {
                format!(
                    "HCP022E A virtual device number was not supplied or it was invalid - {vdev}"
                )
            }),
            [] => Err("HCP026E Operand missing or invalid".into()),
            [_, x, ..] => Err(format!("HCP003E Invalid option - {x}")),
        };
    }
    if is(verb, "SET", 3) {
        return match ops {
            [v] if v.eq_ignore_ascii_case("VDISK") => {
                Err("HCP026E Operand missing or invalid".into())
            }
            [v, which, lim @ ..] if v.eq_ignore_ascii_case("VDISK") => {
                let syslim = if which.eq_ignore_ascii_case("SYSLIM") {
                    true
                } else if which.eq_ignore_ascii_case("USERLIM") {
                    false
                } else {
                    return Err(format!("HCP003E Invalid option - {which}"));
                };
                let limit = parse_limit(lim).map_err(|_| match lim.first() {
                    Some(x) => format!("HCP002E Invalid operand - {x}"),
                    None => "HCP026E Operand missing or invalid".into(),
                })?;
                Ok(Command::SetVdisk { syslim, limit })
            }
            [srm, rest @ ..] if srm.eq_ignore_ascii_case("SRM") => match rest {
                [w, p @ ..] if is(w, "STORBUF", 7) || is(w, "LDUBUF", 6) => {
                    let storbuf = is(w, "STORBUF", 7);
                    let [a, b, c] = p else {
                        return Err(match p.get(3) {
                            Some(x) => format!("HCP003E Invalid option - {x}"),
                            None => "HCP026E Operand missing or invalid".into(),
                        });
                    };
                    let mut pct = [0u32; 3];
                    for (k, x) in [a, b, c].into_iter().enumerate() {
                        pct[k] = x
                            .trim_end_matches('%')
                            .parse()
                            .ok()
                            .filter(|&v| v <= 999)
                            .ok_or_else(|| format!("HCP002E Invalid operand - {x}"))?;
                    }
                    if !(pct[0] >= pct[1] && pct[1] >= pct[2]) {
                        return Err(format!(
                            "HCP002E Invalid operand - {} (Q1 >= Q2 >= Q3 is required)",
                            c
                        ));
                    }
                    Ok(Command::SetSrm { storbuf, pct })
                }
                [] => Err("HCP026E Operand missing or invalid".into()),
                [x, ..] => Err(format!(
                    "HCP003E Invalid option - {x} (ztwin models SET SRM STORBUF and LDUBUF)"
                )),
            },
            [m, rest @ ..] if is(m, "MDCACHE", 3) => match rest {
                [s, o] if is(s, "SYSTEM", 6) && o.eq_ignore_ascii_case("ON") => {
                    Ok(Command::SetMdcSystem(true))
                }
                [s, o] if is(s, "SYSTEM", 6) && o.eq_ignore_ascii_case("OFF") => {
                    Ok(Command::SetMdcSystem(false))
                }
                [s, x, ..] if is(s, "SYSTEM", 6) => Err(format!("HCP002E Invalid operand - {x}")),
                [s] if is(s, "SYSTEM", 6) => Err("HCP026E Operand missing or invalid".into()),
                [r, dev, o] if r.eq_ignore_ascii_case("RDEV") => {
                    let (first, last) = rdev_range(dev)?;
                    let on = match o.to_ascii_uppercase().as_str() {
                        "ON" | "DFLTON" => true,
                        "OFF" | "DFLTOFF" => false,
                        _ => return Err(format!("HCP002E Invalid operand - {o}")),
                    };
                    Ok(Command::SetMdcRdev { first, last, on })
                }
                [r, _, _, x, ..] if r.eq_ignore_ascii_case("RDEV") => {
                    Err(format!("HCP003E Invalid option - {x}"))
                }
                [r, ..] if r.eq_ignore_ascii_case("RDEV") => {
                    Err("HCP026E Operand missing or invalid".into())
                }
                [p, b, n] if is(p, "STORAGE", 4) && b.eq_ignore_ascii_case("BIAS") => {
                    mdc_bias(n).map(Command::SetMdcBias)
                }
                [p, b, ..] if is(p, "XSTORE", 3) && b.eq_ignore_ascii_case("BIAS") => Err(format!(
                    "HCP003E Invalid option - {b} (ztwin's arbiter has one bias for both parts: SET MDCACHE STORAGE BIAS)"
                )),
                [p, b, _, x, ..] if is(p, "STORAGE", 4) && b.eq_ignore_ascii_case("BIAS") => {
                    Err(format!("HCP003E Invalid option - {x}"))
                }
                [p, min, max] if is(p, "STORAGE", 4) || is(p, "XSTORE", 3) => {
                    let (min, max) = (mdc_size(min)?, mdc_size(max)?);
                    if max < min {
                        return Err(format!(
                            "HCP002E Invalid operand - {} (the maximum is below the minimum)",
                            rest[2]
                        ));
                    }
                    Ok(Command::SetMdcBounds {
                        xstor: is(p, "XSTORE", 3),
                        min,
                        max,
                    })
                }
                [p, _, _, x, ..] if is(p, "STORAGE", 4) || is(p, "XSTORE", 3) => {
                    Err(format!("HCP003E Invalid option - {x}"))
                }
                [p, ..] if is(p, "STORAGE", 4) || is(p, "XSTORE", 3) => {
                    Err("HCP026E Operand missing or invalid".into())
                }
                [] => Err("HCP026E Operand missing or invalid".into()),
                [x, ..] => Err(format!(
                    "HCP003E Invalid option - {x} (ztwin models SET MDCACHE SYSTEM, STORAGE, XSTORE and RDEV)"
                )),
            },
            [x, ..] => Err(format!(
                "HCP003E Invalid option - {x} (ztwin models SET VDISK, MDCACHE and SRM)"
            )),
            [] => Err("HCP026E Operand missing or invalid".into()),
        };
    }
    if is(verb, "INDICATE", 3) {
        return match ops {
            [] => Ok(Command::IndicateLoad),
            [l] if is(l, "LOAD", 4) => Ok(Command::IndicateLoad),
            [l, x, ..] if is(l, "LOAD", 4) => Err(format!("HCP003E Invalid option - {x}")),
            [u] if is(u, "USER", 4) => Ok(Command::IndicateUser(None)),
            [u, id] if is(u, "USER", 4) => {
                if id.is_empty() || id.len() > 8 {
                    return Err(format!("HCP020E Userid missing or invalid - {id}"));
                }
                Ok(Command::IndicateUser(Some(id.to_ascii_uppercase())))
            }
            [u, _, x, ..] if is(u, "USER", 4) => Err(format!("HCP003E Invalid option - {x}")),
            [x, ..] => Err(format!(
                "HCP003E Invalid option - {x} (ztwin models INDICATE LOAD and USER)"
            )),
        };
    }
    if is(verb, "QUERY", 1) {
        return match ops {
            [v, rest @ ..] if v.eq_ignore_ascii_case("VDISK") => match rest {
                [] => Ok(Command::QueryVdisk { which: None }),
                [w] if w.eq_ignore_ascii_case("SYSLIM") => Ok(Command::QueryVdisk { which: Some(true) }),
                [w] if w.eq_ignore_ascii_case("USERLIM") => Ok(Command::QueryVdisk { which: Some(false) }),
                [x, ..] => Err(format!("HCP003E Invalid option - {x}")),
            },
            [nss, rest @ ..] if nss.eq_ignore_ascii_case("NSS") => {
                let mut name = None;
                let mut map = false;
                let mut i = 0;
                while i < rest.len() {
                    let t = rest[i];
                    if t.eq_ignore_ascii_case("MAP") {
                        map = true;
                    } else if t.eq_ignore_ascii_case("ALL") {
                    } else if t.eq_ignore_ascii_case("NAME") {
                        let Some(n) = rest.get(i + 1) else {
                            return Err("HCP026E Operand missing or invalid".into());
                        };
                        name = Some(defseg::check_name(n)?);
                        i += 1;
                    } else {
                        return Err(format!("HCP003E Invalid option - {t}"));
                    }
                    i += 1;
                }
                Ok(Command::QueryNss { name, map })
            }
            [m] if is(m, "MDCACHE", 3) => Ok(Command::QueryMdc),
            [f] if is(f, "FRAMES", 4) => Ok(Command::QueryFrames),
            [f, x, ..] if is(f, "FRAMES", 4) => Err(format!("HCP003E Invalid option - {x}")),
            [m] if m.eq_ignore_ascii_case("SRM") => Ok(Command::QuerySrm),
            [m, x, ..] if m.eq_ignore_ascii_case("SRM") => Err(format!("HCP003E Invalid option - {x}")),
            [m, x, ..] if is(m, "MDCACHE", 3) => Err(format!("HCP003E Invalid option - {x}")),
            [a, s] if is(a, "ALLOC", 5) && is(s, "SPOOL", 5) => Ok(Command::QueryAllocSpool),
            [a, p] if is(a, "ALLOC", 5) && is(p, "PAGE", 4) => Ok(Command::QueryAllocPage),
            [a, rest @ ..] if is(a, "ALLOC", 5) => Err(match rest {
                [] => "HCP026E Operand missing or invalid".into(),
                [s, x, ..] if is(s, "SPOOL", 5) || is(s, "PAGE", 4) => {
                    format!("HCP003E Invalid option - {x}")
                }
                [x, ..] => format!(
                    "HCP003E Invalid option - {x} (ztwin models QUERY ALLOC SPOOL and PAGE)"
                ),
            }),
            [x, ..] => Err(format!(
                "HCP003E Invalid option - {x} (ztwin models QUERY NSS, VDISK, MDCACHE, SRM, FRAMES and ALLOC SPOOL|PAGE)"
            )),
            [] => Err("HCP026E Operand missing or invalid".into()),
        };
    }
    if is(verb, "LOCK", 4) || is(verb, "UNLOCK", 6) {
        let lock = is(verb, "LOCK", 4);
        // z/VM's form names the user after the keyword USERID (`LOCK
        // USERID usera 12 14 MAP`); VM/370's without it. Both are taken.
        let ops = match ops {
            [k, rest @ ..] if k.eq_ignore_ascii_case("USERID") && rest.len() >= 3 => rest,
            _ => ops,
        };
        let (id, first, last, rest) = match ops {
            [id, first, last, rest @ ..] => (id, first, last, rest),
            _ => return Err("HCP026E Operand missing or invalid".into()),
        };
        if id.len() > 8 {
            return Err(format!("HCP020E Userid missing or invalid - {id}"));
        }
        let first = page_number(first)?;
        let last = page_number(last)?;
        if first > last {
            return Err(format!(
                "HCP002E Invalid operand - {:X} (the last page is below the first)",
                last
            ));
        }
        let map = match rest {
            [] => false,
            [m] if lock && m.eq_ignore_ascii_case("MAP") => true,
            [m, x, ..] if lock && m.eq_ignore_ascii_case("MAP") => {
                return Err(format!("HCP003E Invalid option - {x}"))
            }
            [x, ..] => return Err(format!("HCP003E Invalid option - {x}")),
        };
        let userid = id.to_ascii_uppercase();
        return Ok(if lock {
            Command::Lock {
                userid,
                first,
                last,
                map,
            }
        } else {
            Command::Unlock {
                userid,
                first,
                last,
            }
        });
    }
    Err(format!(
        "HCP001E Unknown CP command: {}",
        verb.to_ascii_uppercase()
    ))
}

/// A LOCK/UNLOCK page number: hexadecimal, 1 to 8 digits.
fn page_number(x: &str) -> Result<u32, String> {
    if x.is_empty() || x.len() > 8 {
        return Err(format!("HCP002E Invalid operand - {x}"));
    }
    u32::from_str_radix(x, 16).map_err(|_| format!("HCP002E Invalid operand - {x}"))
}

/// SET MDCACHE RDEV's device: a real device number or a range of them
/// (`rdev1-rdev2`), 1 to 4 hex digits each, the first not above the last.
fn rdev_range(x: &str) -> Result<(u16, u16), String> {
    let one = |d: &str| {
        if d.is_empty() || d.len() > 4 {
            return Err(format!("HCP002E Invalid operand - {x}"));
        }
        u16::from_str_radix(d, 16).map_err(|_| format!("HCP002E Invalid operand - {x}"))
    };
    let (a, b) = match x.split_once('-') {
        Some((a, b)) => (one(a)?, one(b)?),
        None => {
            let a = one(x)?;
            (a, a)
        }
    };
    if b < a {
        return Err(format!("HCP002E Invalid operand - {x}"));
    }
    Ok((a, b))
}

/// A SET MDCACHE STORAGE/XSTORE bound: whole megabytes or gigabytes
/// (`0M`, `512M`, `2G`), in bytes.
fn mdc_size(x: &str) -> Result<u64, String> {
    let u = x.to_ascii_uppercase();
    // The unit first: only then is the byte before it a character boundary.
    let digits = u.strip_suffix(['M', 'G']).unwrap_or_default();
    if digits.is_empty() || digits.len() > 7 || !digits.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!(
            "HCP002E Invalid operand - {x} (a size in megabytes or gigabytes: 0M, 512M, 2G)"
        ));
    }
    crate::core::units::parse_size(&u).map_err(|_| format!("HCP002E Invalid operand - {x}"))
}

/// SET MDCACHE STORAGE BIAS's value, 0.01 to 100.00 (as the `[mdc] bias`
/// key: above 0, at most 100), in hundredths.
fn mdc_bias(x: &str) -> Result<u32, String> {
    let bad = || format!("HCP002E Invalid operand - {x} (a bias from 0.01 to 100.00)");
    let (int, frac) = x.split_once('.').unwrap_or((x, ""));
    if int.is_empty() && frac.is_empty()
        || int.len() > 3
        || frac.len() > 2
        || !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit())
    {
        return Err(bad());
    }
    let h =
        int.parse::<u32>().unwrap_or(0) * 100 + format!("{frac:0<2}").parse::<u32>().unwrap_or(0);
    if h == 0 || h > 10_000 {
        return Err(bad());
    }
    Ok(h)
}

/// Parse a DIAGNOSE X'64' function: `LOADSHR name`, `LOADNSHR name`,
/// `PURGESG name`.
pub fn parse_diag64(line: &str) -> Result<Diag64, String> {
    let w: Vec<&str> = line.split_whitespace().collect();
    match w.as_slice() {
        [f, name] => {
            let name = defseg::check_name(name)?;
            match f.to_ascii_uppercase().as_str() {
                "LOADSHR" => Ok(Diag64::Load {
                    name,
                    mode: Mode::Shared,
                }),
                "LOADNSHR" => Ok(Diag64::Load {
                    name,
                    mode: Mode::Nonshared,
                }),
                "PURGESG" => Ok(Diag64::Purgesg(name)),
                _ => Err(format!(
                    "'{f}' is not a DIAGNOSE X'64' function (LOADSHR, LOADNSHR, PURGESG)"
                )),
            }
        }
        _ => Err(
            "a DIAGNOSE X'64' function is 'LOADSHR name', 'LOADNSHR name' or 'PURGESG name'".into(),
        ),
    }
}

/// CP's answer to a refused DEFINE VFB-512 (`HCP1380E`-`HCP1382E` are
/// ztwin's own numbers: CP's were not in the sources).
pub fn vdisk_refusal(r: Refusal, vdev: u16) -> String {
    match r {
        Refusal::Exists => format!("HCP1382E Device {vdev:04X} already defined"),
        Refusal::Syslim => format!(
            "HCP1380E Virtual disk {vdev:04X} not defined; the system limit for virtual disks (SYSLIM) would be exceeded"
        ),
        Refusal::Userlim => format!(
            "HCP1381E Virtual disk {vdev:04X} not defined; the user limit for virtual disks (USERLIM) would be exceeded"
        ),
    }
}

/// Whether a command must wait for a running SAVESEG (CP processes one
/// DEFSEG or SAVESEG at a time).
pub fn serialised(c: &Command) -> bool {
    matches!(c, Command::Defseg(_) | Command::Saveseg(_))
}

/// The console: commands and responses with their simulated time.
#[derive(Default)]
pub struct Console {
    lines: Vec<String>,
    /// The counters at the previous INDICATE LOAD (its rates are over the
    /// time since then, or since the start of the run).
    ind: Option<IndSnap>,
}

/// What INDICATE LOAD computes its rates from, at time `at`.
#[derive(Clone, Debug, Default)]
struct IndSnap {
    at: crate::core::units::Ns,
    /// Busy time (guest + CP for guests + CP system) of each logical CPU.
    busy: Vec<crate::core::units::Ns>,
    paging: u64,
    xstore: u64,
    migrated: u64,
    mdc_reads: u64,
    mdc_writes: u64,
    mdc_hits: u64,
}

impl Console {
    /// `who` issued `text` at `now` (or a response, when `text` is one).
    pub fn line(&mut self, now: crate::core::units::Ns, who: &str, text: &str) {
        let ms = now / 1_000_000;
        let (h, m, s, f) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
        self.lines
            .push(format!("{h:02}:{m:02}:{s:02}.{f:03} {who:<8} {text}"));
    }

    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    pub fn take(&mut self) -> Vec<String> {
        std::mem::take(&mut self.lines)
    }
}

// ------------------------------------------------------------ wiring

use super::io::Done;
use super::paging::Backing;
use super::segments::{Next, Op, Queued};
use super::spool::{self, Dir};
use super::storage::lock::LockRefusal;
use super::storage::{idx, tag, T_DASD, T_NONE, T_PAGEOUT, T_READIN, T_XS};
use super::{Cx, Model};

/// A LOCK command whose range is not all pinned yet: pages being read in
/// from DASD, or none of the frames it asked for to be had then. Taken up
/// again when a paging read or page-out completes
/// ([`Model::lock_waits_go_on`]); its response when every page is pinned.
#[derive(Clone, Debug)]
pub(crate) struct LockWait {
    issuer: u32,
    g: u32,
    first: u32,
    last: u32,
    map: bool,
}

/// SET MDCACHE's refusal without an `[mdc]` section.
const NO_MDC: &str = "HCP002E Invalid operand - MDCACHE (ztwin: the scenario has no [mdc] section)";

/// The issuer number of the system operator (not a guest).
pub const OPERATOR: u32 = u32::MAX;

impl Model {
    fn who(&self, issuer: u32) -> String {
        if issuer == OPERATOR {
            "OPERATOR".into()
        } else {
            self.cpu.guest(issuer).userid.to_string()
        }
    }

    /// Issue CP command `line` for `issuer` (a guest, or [`OPERATOR`]); its
    /// response goes to the console (now, or when its work completes).
    pub(crate) fn cp_command(&mut self, cx: &mut Cx, issuer: u32, line: &str) {
        let who = self.who(issuer);
        self.console.line(cx.now(), &who, &format!("> {line}"));
        let c = match parse(line) {
            Ok(c) => c,
            Err(e) => {
                self.console.line(cx.now(), &who, &e);
                return;
            }
        };
        if serialised(&c) && self.seg.busy() {
            self.seg.enqueue(Queued {
                issuer,
                command: line.to_string(),
            });
            return;
        }
        self.run_command(cx, issuer, c);
    }

    fn respond(&mut self, cx: &Cx, issuer: u32, text: &str) {
        let who = self.who(issuer);
        for l in text.lines() {
            self.console.line(cx.now(), &who, l);
        }
    }

    fn run_command(&mut self, cx: &mut Cx, issuer: u32, c: Command) {
        let now = cx.now();
        match c {
            Command::Defseg(def) => match self.seg.defseg(def, now) {
                Ok(r) if r.is_empty() => {}
                Ok(r) | Err(r) => self.respond(cx, issuer, &r),
            },
            Command::Saveseg(name) => {
                let (sdf, pages) = match self.seg.saveseg(&name) {
                    Ok(x) => x,
                    Err(e) => return self.respond(cx, issuer, &e),
                };
                let (file, id) = match self.spool.create(pages) {
                    Ok(x) => x,
                    Err(full) => {
                        let e = self.seg.save_failed(&name, full.needed, full.free);
                        return self.respond(cx, issuer, &e);
                    }
                };
                let tag = self.seg.save_started(sdf, file, id, issuer, now);
                let Model { spool, io, .. } = self;
                if spool
                    .transfer(cx, io, file, pages, Dir::Write, tag)
                    .is_none()
                {
                    self.save_finished(cx, tag);
                }
            }
            Command::PurgeNss { name, spoolid } => {
                match self.seg.purge(name.as_deref(), spoolid, now) {
                    Ok((r, files)) => {
                        for f in files {
                            self.spool.purge(f);
                        }
                        self.respond(cx, issuer, &r);
                    }
                    Err(e) => self.respond(cx, issuer, &e),
                }
            }
            Command::QueryNss { name, map } => {
                let r = self.query_nss(name.as_deref(), map);
                self.respond(cx, issuer, &r);
            }
            Command::QueryAllocSpool => {
                let r = self.query_alloc_spool();
                self.respond(cx, issuer, &r);
            }
            Command::QueryAllocPage => {
                let r = self.query_alloc_page();
                self.respond(cx, issuer, &r);
            }
            Command::DefineVfb { vdev, blocks } => {
                if issuer == OPERATOR {
                    return self.respond(cx, issuer, "HCP1383E DEFINE VFB-512 needs a virtual machine: the issuer is the operator");
                }
                let r = match self.vdisk_define(cx, issuer, vdev, blocks, false) {
                    Ok(_) => format!("DASD {vdev:04X} DEFINED"),
                    Err(r) => vdisk_refusal(r, vdev),
                };
                self.respond(cx, issuer, &r);
            }
            Command::Detach(vdev) => {
                let r = match (issuer != OPERATOR)
                    .then(|| self.vdisk.find(issuer, vdev))
                    .flatten()
                {
                    Some(k) => {
                        self.vdisk_detach(k);
                        format!("DASD {vdev:04X} DETACHED")
                    }
                    None => format!("HCP040E Device {vdev:04X} does not exist"),
                };
                self.respond(cx, issuer, &r);
            }
            Command::SetVdisk { syslim, limit } => {
                if syslim {
                    self.vdisk.set_syslim(limit);
                } else {
                    self.vdisk.set_userlim(limit);
                }
            }
            Command::QueryVdisk { which } => {
                let r = self.query_vdisk(which);
                self.respond(cx, issuer, &r);
            }
            Command::IndicateLoad => {
                let r = self.indicate_load(now);
                self.respond(cx, issuer, &r);
            }
            Command::SetMdcSystem(on) => {
                // As the timeline's `action = "mdc"` for the system.
                if !self.mdc.configured() {
                    return self.respond(cx, issuer, NO_MDC);
                }
                self.mdc.set(None, None, on);
                self.mdc_give_back();
            }
            Command::SetMdcBounds { xstor, min, max } => {
                // As the scenario's [mdc] storage_min/max, xstor_min/max.
                if !self.mdc.configured() {
                    return self.respond(cx, issuer, NO_MDC);
                }
                let frames = |b: u64| b / crate::core::units::PAGE;
                self.mdc.set_bounds(xstor, frames(min), Some(frames(max)));
                self.mdc_give_back();
            }
            Command::SetMdcRdev { first, last, on } => {
                // As the timeline's `action = "mdc"` with `device`, for
                // each volume in the range.
                if !self.mdc.configured() {
                    return self.respond(cx, issuer, NO_MDC);
                }
                let vols: Vec<u32> = (first..=last).filter_map(|d| self.io.by_devno(d)).collect();
                if vols.is_empty() {
                    return self.respond(
                        cx,
                        issuer,
                        &format!("HCP040E Device {first:04X} does not exist"),
                    );
                }
                for v in vols {
                    self.mdc.set(Some(v), None, on);
                }
                self.mdc_give_back();
            }
            Command::SetMdcBias(h) => {
                // As the scenario's [mdc] bias.
                if !self.mdc.configured() {
                    return self.respond(cx, issuer, NO_MDC);
                }
                self.mdc.set_bias(h as f64 / 100.0);
            }
            Command::QueryFrames => {
                let r = self.query_frames();
                self.respond(cx, issuer, &r);
            }
            Command::SetSrm { storbuf, pct } => {
                // As the scenario's [srm] storbuf / ldubuf keys.
                if storbuf {
                    self.cpu.set_srm(Some(pct), None);
                } else {
                    self.cpu.set_srm(None, Some(pct));
                }
            }
            Command::QuerySrm => {
                // The lines of CP's response ztwin has figures for, in CP's
                // order (IABIAS, DSPBUF, MAXWSS and the rest are not shown);
                // not checked against IBM's page (see `query_mdc`).
                let (sb, lb) = self.cpu.srm();
                let r = format!(
                    "LDUBUF : Q1={}% Q2={}% Q3={}%\nSTORBUF: Q1={}% Q2={}% Q3={}%\nDISPATCHING MINOR TIMESLICE = {} MS",
                    lb[0],
                    lb[1],
                    lb[2],
                    sb[0],
                    sb[1],
                    sb[2],
                    super::cpu::params::MINOR_SLICE / 1_000_000
                );
                self.respond(cx, issuer, &r);
            }
            Command::QueryMdc => {
                let r = self.query_mdc(now);
                self.respond(cx, issuer, &r);
            }
            Command::IndicateUser(id) => {
                let r = self.indicate_user(issuer, id.as_deref(), now);
                self.respond(cx, issuer, &r);
            }
            Command::Lock {
                userid,
                first,
                last,
                map,
            } => {
                if let Some(r) = self.lock(cx, issuer, &userid, first, last, map) {
                    self.respond(cx, issuer, &r);
                }
            }
            Command::Unlock {
                userid,
                first,
                last,
            } => {
                if let Some(r) = self.unlock(&userid, first, last) {
                    self.respond(cx, issuer, &r);
                }
            }
        }
    }

    /// A logged-on guest by user ID, or CP's HCP045E.
    fn logged_on_guest(&self, id: &str) -> Result<u32, String> {
        match (0..self.cpu.guest_count()).find(|&g| self.cpu.guest(g).userid == id) {
            Some(g) if self.cpu.guest(g).logged_on => Ok(g),
            _ => Err(format!("HCP045E {id} not logged on")),
        }
    }

    /// CP's answer to a LOCK/UNLOCK range refused by storage (nothing
    /// changed). HCP1384E and HCP1385E are ztwin's own numbers (CP's
    /// messages for these cases were not in the sources).
    fn lock_refusal(id: &str, r: LockRefusal) -> String {
        match r {
            LockRefusal::Range(n) => format!(
                "HCP002E Invalid operand - the range is outside {id}'s storage (pages 0 to {:X})",
                n.saturating_sub(1)
            ),
            LockRefusal::TooMany { need, room } => format!(
                "HCP1384E Not enough real storage to lock {need} more pages of {id}: {room} pageable frames are not locked; nothing locked"
            ),
            LockRefusal::NotLocked(vp) => {
                format!("HCP1385E Page {vp:X} of {id} is not locked; nothing unlocked")
            }
        }
    }

    /// LOCK userid first last [MAP]: the guest's pages brought into
    /// storage and pinned in their frames (storage::lock), as CP does
    /// ("the pages to be brought into storage and locked", the CP Commands
    /// and Utilities Reference's LOCK page). A page never touched gets a
    /// new frame (a first touch), one in XSTOR is moved back, one being
    /// paged out is reclaimed, at once; one on DASD is read by paging's
    /// block read (`read_for_lock`), pinned when it arrives. Pages already
    /// resident are pinned at once. The response (none; with MAP, each page
    /// and its frame in hex under CP's heading `VIRTPAGE REALPAGE`, the
    /// lines' layout ztwin's: IBM's example was not found past the heading)
    /// comes when the last page is pinned: at once when no read is needed,
    /// else at the completion of the last read; in between nothing is shown
    /// and other commands go on. When no frame can be had (the demand scan
    /// found none to steal now) the command waits, as a faulting guest
    /// would, and goes on as paging reads and page-outs complete. Refused
    /// first (nothing pinned): a range outside the guest's storage, or more
    /// pages than the pageable frames not locked (HCP1384E). The CP time of
    /// the first touches and XSTOR moves is not charged (the demand scan's
    /// and the reads' are, as CP's own).
    fn lock(
        &mut self,
        cx: &mut Cx,
        issuer: u32,
        id: &str,
        first: u32,
        last: u32,
        map: bool,
    ) -> Option<String> {
        let g = match self.logged_on_guest(id) {
            Ok(g) => g,
            Err(e) => return Some(e),
        };
        if let Err(r) = self.st.lock_check(g, first, last) {
            return Some(Self::lock_refusal(id, r));
        }
        let w = LockWait {
            issuer,
            g,
            first,
            last,
            map,
        };
        let done = self.lock_step(cx, &w);
        self.owe_lock_time(cx);
        if done {
            return self.lock_done(&w);
        }
        self.lock_waits.push(w);
        None
    }

    /// Bring in and pin what can be of `w`'s range now; `true` when every
    /// page is pinned. Stops at the first page no frame can be had for.
    fn lock_step(&mut self, cx: &mut Cx, w: &LockWait) -> bool {
        let g = w.g;
        let mut all = true;
        for vp in w.first..=w.last {
            if self.st.pin(g, vp).is_some() {
                continue;
            }
            match tag(self.st.entry(g, vp).e) {
                T_PAGEOUT => self.st.reclaim(g, vp),
                T_NONE => match self.get_frame(cx, g, vp) {
                    Some(f) => self.st.first_touch(g, vp, f),
                    None => return false,
                },
                T_XS => match self.get_frame(cx, g, vp) {
                    Some(f) => self.st.xstor_in(cx, g, vp, f),
                    None => return false,
                },
                T_DASD => {
                    if !self.read_for_lock(cx, g, vp) {
                        return false;
                    }
                    all = false;
                    continue;
                }
                T_READIN => {
                    all = false;
                    continue;
                }
                t => unreachable!("page state {t}"),
            }
            self.st.pin(g, vp).expect("the page was brought in");
        }
        all
    }

    /// LOCK's response once its range is pinned: none, or the MAP.
    fn lock_done(&self, w: &LockWait) -> Option<String> {
        if !w.map {
            return None;
        }
        let mut out = vec!["VIRTPAGE REALPAGE".to_string()];
        for vp in w.first..=w.last {
            let f = idx(self.st.entry(w.g, vp).e);
            out.push(format!("{vp:08X} {f:08X}"));
        }
        Some(out.join("\n"))
    }

    /// The CP time LOCK's work charged to `cx` (frames taken, reads
    /// started) is CP's own, owed to the logical CPU's next burst.
    fn owe_lock_time(&mut self, cx: &mut Cx) {
        let ns = std::mem::take(&mut cx.charge.cp) + std::mem::take(&mut cx.charge.sys);
        if ns > 0 {
            self.cpu.owe_sys(cx.cpu, ns);
        }
    }

    /// A paging read or page-out completed: LOCK commands waiting take up
    /// their ranges again (pages arrived are pinned, pages still on DASD
    /// read, frames asked for again); those now all pinned answer. A guest
    /// logged off meanwhile: HCP045E.
    #[inline(always)]
    pub(crate) fn lock_waits_go_on(&mut self, cx: &mut Cx) {
        if !self.lock_waits.is_empty() {
            self.lock_waits_retry(cx);
        }
    }

    #[inline(never)]
    fn lock_waits_retry(&mut self, cx: &mut Cx) {
        for w in std::mem::take(&mut self.lock_waits) {
            let r = if !self.cpu.logged_on(w.g) {
                Some(format!(
                    "HCP045E {} not logged on",
                    self.cpu.guest(w.g).userid
                ))
            } else if self.lock_step(cx, &w) {
                self.lock_done(&w)
            } else {
                self.lock_waits.push(w);
                continue;
            };
            if let Some(r) = r {
                self.respond(cx, w.issuer, &r);
            }
        }
        self.owe_lock_time(cx);
    }

    /// UNLOCK userid first last: the pages unpinned, stealable again.
    fn unlock(&mut self, id: &str, first: u32, last: u32) -> Option<String> {
        let g = match self.logged_on_guest(id) {
            Ok(g) => g,
            Err(e) => return Some(e),
        };
        self.st
            .unlock_pages(g, first, last)
            .err()
            .map(|r| Self::lock_refusal(id, r))
    }

    /// INDICATE USER [userid]: the guest's storage (virtual size, resident
    /// pages, working set, pages pinned by LOCK as CP's LOCKEDREAL, pages
    /// instantiated: resident + XSTOR + DASD, pages in XSTOR and on DASD),
    /// its pages read and written by paging, and per virtual CPU its connect
    /// time (since logon), virtual and total CPU time and virtual I/Os.
    /// CP's layout where ztwin has the figure; IPLSYS/DEVNUM, RESVD and the
    /// spool counts (RDR, PRT, PCH) are not shown (not modelled).
    pub(crate) fn indicate_user(
        &self,
        issuer: u32,
        id: Option<&str>,
        now: crate::core::units::Ns,
    ) -> String {
        let g = match id {
            None if issuer == OPERATOR => {
                return "HCP026E Operand missing or invalid (the operator has no virtual machine: name a user)".into()
            }
            None => issuer,
            Some(id) => match self.logged_on_guest(id) {
                Ok(g) => g,
                Err(e) => return e,
            },
        };
        let gs = self.cpu.guest(g);
        let sp = self.st.space(g);
        let pio = self.pg.guest(g);
        let mut out = vec![
            format!(
                "USERID={:<8} MACH=ESA STOR={}M VIRT=V XSTORE=NONE",
                gs.userid,
                (sp.vpages as u64 * 4096) >> 20
            ),
            format!(
                "PAGES: RES={}  WS={}  LOCKEDREAL={}  INSTAN={}  XSTOR={}  DASD={}",
                sp.resident,
                sp.wss.round() as u64,
                sp.pinned,
                sp.resident as u64 + sp.xstor as u64 + sp.dasd as u64,
                sp.xstor,
                sp.dasd
            ),
            format!("READS={}  WRITES={}", pio.read, pio.written),
        ];
        let secs = |ns: crate::core::units::Ns| ns / 1_000_000_000;
        let ctime = secs(now.saturating_sub(gs.logon_ns));
        for v in self.cpu.vcpus(g) {
            let (vt, tt) = (secs(v.vtime), secs(v.ttime));
            out.push(format!(
                "CPU {:02X}: CTIME={:02}:{:02} VTIME={:03}:{:02} TTIME={:03}:{:02} IO={:06}",
                v.addr,
                ctime / 3600,
                ctime / 60 % 60,
                vt / 60,
                vt % 60,
                tt / 60,
                tt % 60,
                v.vio
            ));
        }
        out.join("\n")
    }

    /// QUERY FRAMES: central storage's frames now, in CP's keyword=value
    /// style after z/VM 6.3's layout (all frames, then below and above 2
    /// GB), at every level: the older levels' layout was not found in the
    /// sources, and this one is not checked against IBM's page either (see
    /// `query_mdc`).
    /// `Configured`, `Real`, `Usable`, `Offline` and `Pageable` (the DPA,
    /// as SYTRSG_RSAPGABL) are CP's; the parts' keys are ztwin's own, one
    /// per use the storage component tracks (docs/scenario.md), adding up
    /// to the part's frames: `Available` (the available list; ztwin has one
    /// list, not CP's global and per-processor cleared and uncleared ones),
    /// `GuestPages` (guests' and VDISKs' pages), `LockedIO` (pages with
    /// paging I/O in flight), `LockedCmd` (CP's key: guests' pages pinned
    /// by LOCK), `SavedSegments`, `MinidiskCache`, `CPFixed`.
    /// CP's `LogicalFreeStorage`, `RealFreeStorage`, `LockedRS`,
    /// `Nucleus/Prefix`, `Trace` and `NotInitialized` are not
    /// shown (ztwin keeps CP's fixed storage as one figure).
    /// The part above 2 GB is shown only when there is storage above 2 GB.
    pub(crate) fn query_frames(&self) -> String {
        let total = self.st.frames_total();
        let u = self.st.frame_use();
        let cp = u[0].cp + u[1].cp;
        let mut out = vec![
            "All Frames:".to_string(),
            format!(" Configured={total}  Real={total}  Usable={total}  Offline=0"),
            format!(" Pageable={}  CPFixed={cp}", total as u64 - cp),
        ];
        let parts = if total > super::storage::frames::FRAMES_2G {
            2
        } else {
            1
        };
        for (k, p) in u.iter().enumerate().take(parts) {
            out.push(format!("Frames {} 2G:", if k == 0 { "<" } else { ">" }));
            out.push(format!(
                " Available={}  GuestPages={}  LockedIO={}  LockedCmd={}",
                p.avail, p.guest, p.locked_io, p.locked_cmd
            ));
            out.push(format!(
                " SavedSegments={}  MinidiskCache={}  CPFixed={}",
                p.segment, p.mdc, p.cp
            ));
        }
        out.join("\n")
    }

    /// QUERY MDCACHE: on or off for the system; the cache's bounds in
    /// central storage (and XSTOR, when there is XSTOR), its use as a
    /// percentage of the maximum, and the bias (ztwin's arbiter has one
    /// bias: both lines show it, where CP keeps one per part). The layout
    /// could not be checked against IBM's CP Commands and Utilities
    /// Reference: its QUERY MDCACHE, SET MDCACHE, QUERY SRM, QUERY FRAMES
    /// and LOCK pages are not among the pages ztwin's sources reach
    /// (searched 2026-11-25: only vm.ibm.com/perf/tips/prgmdcar.html, which
    /// describes the cache and its arbiter, not the responses).
    pub(crate) fn query_mdc(&self, now: crate::core::units::Ns) -> String {
        let st = self.st.sample(now);
        let m = self.mdc.sample(st.dpa as u64, st.xs_total as u64);
        let on = self.mdc.configured() && m.on;
        let mb = |pages: u64| (pages * 4096) >> 20;
        let mut out = vec![format!(
            "Minidisk cache {} for system",
            if on { "ON" } else { "OFF" }
        )];
        out.push(format!(
            "Storage MDC min={}M max={}M, usage={}%, bias={:.2}",
            mb(m.cs_min),
            mb(m.cs_max),
            m.cs_frames * 100 / m.cs_max.max(1),
            m.bias
        ));
        if st.xs_total > 0 {
            out.push(format!(
                "Xstore MDC min={}M max={}M, usage={}%, bias={:.2}",
                mb(m.xs_min),
                mb(m.xs_max),
                m.xs_blocks * 100 / m.xs_max.max(1),
                m.bias
            ));
        }
        out.join("\n")
    }

    /// The counters INDICATE LOAD's rates come from, now.
    fn ind_snap(&self, at: crate::core::units::Ns) -> IndSnap {
        let st = self.st.sample(at);
        let mdc = self.mdc.sample(st.dpa as u64, st.xs_total as u64).c;
        let pg = self.pg.sample().c;
        IndSnap {
            at,
            busy: self
                .cpu
                .counters()
                .map(|c| c.emul_ns + c.cp_user_ns + c.sys_ns)
                .collect(),
            paging: pg.pages_read + pg.pages_written,
            xstore: st.c.xstor_in + st.c.xstor_out,
            migrated: st.c.migrated,
            mdc_reads: mdc.reads,
            mdc_writes: mdc.writes,
            mdc_hits: mdc.hits,
        }
    }

    /// INDICATE LOAD: processor use, XSTOR and paging rates and the MDC's
    /// reads, writes and hit ratio over the time since the previous INDICATE
    /// LOAD (or the start of the run: CP shows smoothed averages instead);
    /// the scheduler's lists now (Qn/En with the loading users in
    /// parentheses, DORMANT); one PROC line per logical CPU, two a line.
    /// EXPAN and LIMITED are not shown (ztwin keeps no expansion factor and
    /// no limit list; the E columns stay where CP has them).
    pub(crate) fn indicate_load(&mut self, now: crate::core::units::Ns) -> String {
        let new = self.ind_snap(now);
        let old = self.console.ind.take().unwrap_or_else(|| IndSnap {
            busy: vec![0; new.busy.len()],
            ..IndSnap::default()
        });
        let w = now.saturating_sub(old.at);
        // Per second over the window (0 for an empty window).
        let rate = |d: u64| {
            if w == 0 {
                0
            } else {
                (d as u128 * 1_000_000_000 / w as u128) as u64
            }
        };
        let pct = |busy: u64, cpus: u64| {
            if w == 0 {
                0
            } else {
                (busy as u128 * 100 / (w as u128 * cpus as u128)) as u64
            }
        };
        let busy: Vec<u64> = new.busy.iter().zip(&old.busy).map(|(n, o)| n - o).collect();
        let ncpu = busy.len() as u64;
        let mut out = vec![format!(
            "AVGPROC-{:03}% {:02}",
            pct(busy.iter().sum(), ncpu.max(1)),
            ncpu
        )];
        if self.st.sample(now).xs_total > 0 {
            out.push(format!(
                "XSTORE-{:06}/SEC MIGRATE-{:04}/SEC",
                rate(new.xstore - old.xstore),
                rate(new.migrated - old.migrated)
            ));
        }
        let reads = new.mdc_reads - old.mdc_reads;
        out.push(format!(
            "MDC READS-{:06}/SEC WRITES-{:06}/SEC HIT RATIO-{:03}%",
            rate(reads),
            rate(new.mdc_writes - old.mdc_writes),
            (new.mdc_hits - old.mdc_hits) * 100 / reads.max(1)
        ));
        out.push(format!("PAGING-{}/SEC", rate(new.paging - old.paging)));
        let q = self.cpu.queue_counts();
        out.push(format!(
            "Q0-{:05}({:05}){:27}DORMANT-{:05}",
            q.dispatch[0], q.dispatch_loading[0], "", q.dormant
        ));
        for c in 1..4 {
            out.push(format!(
                "Q{c}-{:05}({:05}){:11}E{c}-{:05}({:05})",
                q.dispatch[c], q.dispatch_loading[c], "", q.eligible[c], q.eligible_loading[c]
            ));
        }
        for pair in busy.chunks(2).enumerate() {
            let (k, b) = pair;
            let line: Vec<String> = b
                .iter()
                .enumerate()
                .map(|(j, &x)| format!("PROC {:04X}-{:03}% CP", 2 * k + j, pct(x, 1)))
                .collect();
            out.push(line.join("      "));
        }
        self.console.ind = Some(new);
        out.join("\n")
    }

    /// QUERY VDISK SYSLIM / USERLIM: the limit and the blocks in use; QUERY
    /// VDISK: both limits and one line per VDISK (owner, device, blocks,
    /// resident pages, pages in XSTOR and on DASD, I/Os).
    pub(crate) fn query_vdisk(&self, which: Option<bool>) -> String {
        let (sys, user) = self.vdisk.limits();
        let sysl = format!(
            "VDISK SYSTEM LIMIT IS {}, {} BLK IN USE",
            sys.show(),
            self.vdisk.in_use(None)
        );
        let userl = format!("VDISK USER LIMIT IS {}", user.show());
        match which {
            Some(true) => return sysl,
            Some(false) => return userl,
            None => {}
        }
        let mut out = vec![sysl, userl];
        let live: Vec<_> = self.vdisk.disks().iter().filter(|d| d.live).collect();
        if live.is_empty() {
            out.push("No virtual disks in storage".into());
            return out.join("\n");
        }
        out.push("OWNERID  VDEV     BLOCKS RESIDENT    XSTOR     DASD        I/O".into());
        for d in live {
            let sp = self.st.space(d.space);
            out.push(format!(
                "{:<8} {:04X} {:>10} {:>8} {:>8} {:>8} {:>10}",
                self.cpu.guest(d.owner).userid,
                d.vdev,
                d.blocks,
                sp.resident,
                sp.xstor,
                sp.dasd,
                d.c.ios
            ));
        }
        out.join("\n")
    }

    /// QUERY NSS [NAME name] [MAP]: one line per system data file.
    pub(crate) fn query_nss(&self, name: Option<&str>, map: bool) -> String {
        let mut out = Vec::new();
        if map {
            out.push(
                "FILE FILENAME  FILETYPE MINSIZE  BEGPAG   ENDPAG   TYPE CL #USERS".to_string(),
            );
        } else {
            out.push("OWNERID  FILE TYPE CL RECS     FILENAME FILETYPE".to_string());
        }
        let mut n = 0;
        for s in self.seg.sdfs() {
            if name.is_some_and(|nm| nm != s.def.name) {
                continue;
            }
            n += 1;
            let id = if s.spoolid == 0 {
                "----".to_string()
            } else {
                format!("{:04}", s.spoolid)
            };
            if map {
                for (k, r) in s.def.ranges.iter().enumerate() {
                    if k == 0 {
                        out.push(format!(
                            "{id} {:<8} DCSS     N/A      {:08X} {:08X} {:<4} {}  {:05}",
                            s.def.name,
                            r.first,
                            r.last,
                            r.code.to_string(),
                            s.class.letter(),
                            s.users
                        ));
                    } else {
                        out.push(format!(
                            "                           {:08X} {:08X} {}",
                            r.first, r.last, r.code
                        ));
                    }
                }
            } else {
                out.push(format!(
                    "*NSS     {id} DCSS {}  {:08} {:<8} DCSS",
                    s.class.letter(),
                    s.pages.saved() + 1,
                    s.def.name
                ));
            }
        }
        if n == 0 {
            return match name {
                Some(nm) => format!("HCP1366E Saved segment {nm} does not exist"),
                None => "No NSS or DCSS files".into(),
            };
        }
        out.join("\n")
    }

    /// QUERY ALLOC SPOOL: each spool volume's pages and use.
    pub(crate) fn query_alloc_spool(&self) -> String {
        if !self.spool.exists() {
            return "No spool volumes".into();
        }
        let vols: Vec<(u32, u32, u32)> = self
            .spool
            .volume_samples()
            .map(|v| (v.io_vol, v.slots, v.used))
            .collect();
        self.alloc_table(&vols)
    }

    /// QUERY ALLOC PAGE: each paging volume's slots and use (the high page
    /// is the pages in use: ztwin does not keep the highest slot used).
    pub(crate) fn query_alloc_page(&self) -> String {
        let vols: Vec<(u32, u32, u32)> = self
            .pg
            .volumes()
            .map(|v| (v.dev, v.slots, v.used))
            .collect();
        if vols.is_empty() {
            return "No paging volumes".into();
        }
        self.alloc_table(&vols)
    }

    /// The table of QUERY ALLOC SPOOL and PAGE: (volume in `io`, pages,
    /// pages in use) per volume and the summary.
    fn alloc_table(&self, vols: &[(u32, u32, u32)]) -> String {
        let mut out =
            vec!["                EXTENT     EXTENT    TOTAL    PAGES     HIGH    %".to_string()];
        out.push("VOLID  RDEV      START        END    PAGES   IN USE     PAGE USED".to_string());
        out.push("------ ---- ---------- ---------- -------- -------- -------- ----".to_string());
        let (mut total, mut used) = (0u64, 0u64);
        for &(io_vol, slots, in_use) in vols {
            let d = self.io.def(io_vol);
            total += slots as u64;
            used += in_use as u64;
            out.push(format!(
                "{:<6} {:04X} {:>10} {:>10} {:>8} {:>8} {:>8} {:>3}%",
                d.volser,
                d.devno,
                1,
                d.cylinders,
                slots,
                in_use,
                in_use,
                (in_use as u64 * 100) / slots.max(1) as u64
            ));
        }
        out.push("                                  -------- --------          ----".to_string());
        out.push(format!(
            "SUMMARY                           {total:>8} {used:>8}          {:>3}%",
            used * 100 / total.max(1)
        ));
        out.join("\n")
    }

    /// DIAGNOSE X'64' function `line` by guest `g`.
    pub(crate) fn diag64(&mut self, cx: &mut Cx, g: u32, line: &str) {
        // A guest issues one DIAGNOSE at a time: its virtual CPU is in the
        // first until that returns.
        if self.seg.loading(g) {
            self.diag_waiting.push((g, line.to_string()));
            return;
        }
        let who = self.who(g);
        self.console.line(
            cx.now(),
            &who,
            &format!("> DIAG X'64' {}", line.to_ascii_uppercase()),
        );
        let f = match parse_diag64(line) {
            Ok(f) => f,
            Err(e) => return self.respond(cx, g, &e),
        };
        match f {
            Diag64::Load { name, mode } => match self.seg.load(g, &name, mode, cx.now()) {
                Ok(next) => {
                    let mut started = false;
                    for n in next {
                        if let Next::Read { tag, file, pages } = n {
                            let Model { spool, io, .. } = self;
                            if spool
                                .transfer(cx, io, file, pages, Dir::Read, tag)
                                .is_some()
                            {
                                started = true;
                            } else {
                                self.seg.read_done(tag);
                            }
                        }
                    }
                    if !started && self.seg.loaded(g, &name) {
                        self.respond(cx, g, &format!("RC=0 segment {name} loaded"));
                    }
                }
                Err(e) => self.respond(cx, g, &e),
            },
            Diag64::Purgesg(name) => self.detach_segments(cx, g, Some(&name)),
        }
    }

    /// Guest `g`'s load returned: its next waiting DIAGNOSE X'64' runs.
    fn next_diag(&mut self, cx: &mut Cx, g: u32) {
        if let Some(k) = self.diag_waiting.iter().position(|(w, _)| *w == g) {
            let (_, line) = self.diag_waiting.remove(k);
            self.diag64(cx, g, &line);
        }
    }

    /// Guest `g` detaches segment `name` (all, at logoff): frames back to
    /// storage, spool files of pending versions purged.
    pub(crate) fn detach_segments(&mut self, cx: &mut Cx, g: u32, name: Option<&str>) {
        match self.seg.detach(g, name, cx.now()) {
            Ok((frames, files)) => {
                for f in frames {
                    self.st.free_segment_frame(f);
                }
                self.wake_frame_waiters();
                for f in files {
                    self.spool.purge(f);
                }
                if let Some(n) = name {
                    self.respond(cx, g, &format!("RC=0 segment {n} purged"));
                }
            }
            Err(e) => self.respond(cx, g, &e),
        }
    }

    /// A spool transfer's I/O completed.
    pub(crate) fn spool_io_done(&mut self, cx: &mut Cx, d: &Done) {
        let t = spool::transfer_of(d.origin).expect("a spool origin");
        let Model { spool, io, .. } = self;
        let m = spool.io_done(cx, io, t, d.vol, d.pages);
        cx.charge.sys += self.spool_io_ns + self.spool_page_ns * m.pages as u64;
        match self.seg.op_of(m.tag) {
            Some(Op::Save { .. }) if m.finished => self.save_finished(cx, m.tag),
            Some(Op::Save { .. }) => {}
            Some(Op::LoadShared { .. }) | Some(Op::LoadPrivate { .. }) => {
                for k in 0..m.pages {
                    // The minidisk cache is the first victim when frames run
                    // short (as for a guest's page, `Model::get_frame`).
                    if self.st.short_of_frames() && self.mdc.held().0 > 0 {
                        self.mdc_first_victim();
                    }
                    let Model { st, pg, io, .. } = self;
                    match st.take_segment_frame(cx, &mut Backing { pg, io }) {
                        Some(f) => {
                            if !self.seg.add_frame(m.tag, f) {
                                self.st.free_segment_frame(f);
                            }
                        }
                        None => {
                            self.seg.frames_missed(m.pages - k);
                            break;
                        }
                    }
                    if !self.st.pageouts().is_empty() {
                        self.write_pageouts(cx);
                    }
                }
                self.wake_frame_waiters();
                if m.finished {
                    let op = self.seg.op_of(m.tag);
                    let done = self.seg.read_done(m.tag);
                    let name = match op {
                        Some(Op::LoadShared { sdf }) | Some(Op::LoadPrivate { sdf, .. }) => {
                            self.seg.sdf(sdf).def.name.clone()
                        }
                        _ => String::new(),
                    };
                    for g in done {
                        self.respond(cx, g, &format!("RC=0 segment {name} loaded"));
                        self.next_diag(cx, g);
                    }
                }
            }
            None => {}
        }
    }

    /// A save's writes are done: the response, the replaced version's spool
    /// file purged, and the next queued DEFSEG/SAVESEG run.
    fn save_finished(&mut self, cx: &mut Cx, tag: u32) {
        let Some(Op::Save { issuer, .. }) = self.seg.op_of(tag) else {
            return;
        };
        let (r, purge) = self.seg.save_done(tag, cx.now());
        if let Some(f) = purge {
            self.spool.purge(f);
        }
        self.respond(cx, issuer, &r);
        while let Some(q) = self.seg.next_queued() {
            match parse(&q.command) {
                Ok(c) => self.run_command(cx, q.issuer, c),
                Err(e) => self.respond(cx, q.issuer, &e),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse_and_abbreviate() {
        assert!(matches!(
            parse("defseg DCSS1G 20000-5FFFF sr loadnshr"),
            Ok(Command::Defseg(_))
        ));
        assert_eq!(
            parse("lock lnx 0 1ff map"),
            Ok(Command::Lock {
                userid: "LNX".into(),
                first: 0,
                last: 0x1ff,
                map: true
            })
        );
        assert_eq!(
            parse("lock userid lnx 12 14 map"),
            Ok(Command::Lock {
                userid: "LNX".into(),
                first: 0x12,
                last: 0x14,
                map: true
            })
        );
        assert_eq!(
            parse("LOCK Lnx A a"),
            Ok(Command::Lock {
                userid: "LNX".into(),
                first: 10,
                last: 10,
                map: false
            })
        );
        assert_eq!(
            parse("unlock lnx 10 2F"),
            Ok(Command::Unlock {
                userid: "LNX".into(),
                first: 0x10,
                last: 0x2f
            })
        );
        assert_eq!(
            parse("saveseg dcss1g"),
            Ok(Command::Saveseg("DCSS1G".into()))
        );
        assert_eq!(
            parse("purge nss name dcss1g"),
            Ok(Command::PurgeNss {
                name: Some("DCSS1G".into()),
                spoolid: None
            })
        );
        assert_eq!(
            parse("PURGE NSS 0012"),
            Ok(Command::PurgeNss {
                name: None,
                spoolid: Some(12)
            })
        );
        assert_eq!(
            parse("q nss name dcss1g map"),
            Ok(Command::QueryNss {
                name: Some("DCSS1G".into()),
                map: true
            })
        );
        assert_eq!(
            parse("q nss all map"),
            Ok(Command::QueryNss {
                name: None,
                map: true
            })
        );
        assert_eq!(parse("query alloc spool"), Ok(Command::QueryAllocSpool));
        assert_eq!(parse("q alloc page"), Ok(Command::QueryAllocPage));
        assert_eq!(
            parse("ind user lnx"),
            Ok(Command::IndicateUser(Some("LNX".into())))
        );
        assert_eq!(parse("IND USER"), Ok(Command::IndicateUser(None)));
        assert_eq!(
            parse("set mdc system off"),
            Ok(Command::SetMdcSystem(false))
        );
        assert_eq!(
            parse("SET MDCACHE SYSTEM ON"),
            Ok(Command::SetMdcSystem(true))
        );
        for (line, first, last, on) in [
            ("set mdc rdev e700 off", 0xE700, 0xE700, false),
            ("SET MDCACHE RDEV E700-E703 ON", 0xE700, 0xE703, true),
            ("set mdc rdev 1a dflton", 0x1A, 0x1A, true),
            ("set mdc rdev 7900 DFLTOFF", 0x7900, 0x7900, false),
        ] {
            assert_eq!(
                parse(line),
                Ok(Command::SetMdcRdev { first, last, on }),
                "{line}"
            );
        }
        assert_eq!(parse("q mdcache"), Ok(Command::QueryMdc));
        assert_eq!(
            parse("set srm storbuf 300% 250 200"),
            Ok(Command::SetSrm {
                storbuf: true,
                pct: [300, 250, 200]
            })
        );
        assert_eq!(
            parse("SET SRM LDUBUF 90 80 70"),
            Ok(Command::SetSrm {
                storbuf: false,
                pct: [90, 80, 70]
            })
        );
        assert_eq!(parse("q srm"), Ok(Command::QuerySrm));
        for l in ["query frames", "Q FRAM", "q frame"] {
            assert_eq!(parse(l), Ok(Command::QueryFrames), "{l}");
        }
        assert_eq!(
            parse("set mdcache storage 0M 64m"),
            Ok(Command::SetMdcBounds {
                xstor: false,
                min: 0,
                max: 64 << 20
            })
        );
        assert_eq!(
            parse("SET MDC STOR 16M 2G"),
            Ok(Command::SetMdcBounds {
                xstor: false,
                min: 16 << 20,
                max: 2 << 30
            })
        );
        assert_eq!(
            parse("set mdc xstore 0m 128M"),
            Ok(Command::SetMdcBounds {
                xstor: true,
                min: 0,
                max: 128 << 20
            })
        );
        assert_eq!(
            parse("set mdc xst 8M 8M"),
            Ok(Command::SetMdcBounds {
                xstor: true,
                min: 8 << 20,
                max: 8 << 20
            })
        );
        for (l, h) in [
            ("set mdc storage bias 2", 200),
            ("set mdc stor bias 0.5", 50),
            ("set mdc storage BIAS 1.25", 125),
            ("set mdc storage bias .01", 1),
            ("set mdc storage bias 100.00", 10_000),
        ] {
            assert_eq!(parse(l), Ok(Command::SetMdcBias(h)), "{l}");
        }
        for l in ["indicate load", "IND", "ind load", "indic LOAD"] {
            assert_eq!(parse(l), Ok(Command::IndicateLoad), "{l}");
        }
        assert_eq!(
            parse_diag64("loadshr dcss1g"),
            Ok(Diag64::Load {
                name: "DCSS1G".into(),
                mode: Mode::Shared
            })
        );
    }

    #[test]
    fn errors_are_cp_messages() {
        for (line, msg) in [
            ("frobnicate", "HCP001E Unknown CP command: FROBNICATE"),
            ("saveseg", "HCP026E Operand missing or invalid"),
            ("saveseg a b", "HCP003E Invalid option - b"),
            ("purge nss", "HCP026E"),
            ("purge rdr all", "HCP002E Invalid operand - rdr"),
            ("q nss bogus", "HCP003E Invalid option - bogus"),
            ("defseg x 20000-5FFFF sr 50000-6FFFF sr", "overlaps"),
            ("defseg big 0-8000000 sn", "above 512 GB"),
            ("save dcss", "HCP001E"),
            ("", "HCP001E Unknown CP command: (empty)"),
            ("purge nss name", "HCP026E"),
            ("purge nss 12345", "HCP002E Invalid operand - 12345"),
            ("q nss name", "HCP026E"),
            ("query nss name toolongname", "HCP002E"),
            ("q", "HCP026E"),
            ("q fra", "HCP003E Invalid option - fra"),
            ("q frames all", "HCP003E Invalid option - all"),
            ("set mdc rdev", "HCP026E"),
            ("set mdc rdev e700", "HCP026E"),
            ("set mdc rdev e700 maybe", "HCP002E Invalid operand - maybe"),
            ("set mdc rdev 1e700 on", "HCP002E Invalid operand - 1e700"),
            ("set mdc rdev e7g0 on", "HCP002E Invalid operand - e7g0"),
            ("set mdc rdev e703-e700 on", "HCP002E Invalid operand - e703-e700"),
            ("set mdc rdev e700- on", "HCP002E Invalid operand - e700-"),
            ("set mdc rdev e700 on now", "HCP003E Invalid option - now"),
            (
                "set mdc mdisk 191 off",
                "HCP003E Invalid option - mdisk (ztwin models SET MDCACHE SYSTEM, STORAGE, XSTORE and RDEV)",
            ),
            (
                "query alloc frames",
                "HCP003E Invalid option - frames (ztwin models QUERY ALLOC SPOOL and PAGE)",
            ),
            ("query alloc page x", "HCP003E Invalid option - x"),
            ("query alloc", "HCP026E"),
            ("query alloc spool x", "HCP003E Invalid option - x"),
            ("q vdisk bogus", "HCP003E Invalid option - bogus"),
            (
                "define vfb-512 as xyzw blk 100",
                "HCP022E A virtual device number was not supplied or it was invalid - xyzw",
            ),
            (
                "define vfb-512 as 300 blk many",
                "HCP002E Invalid operand - many",
            ),
            ("define vfb-512 as 300 blk 0", "a VFB-512 disk is 1 to"),
            (
                "define vfb-512 as 300 cyl 10",
                "HCP003E Invalid option - cyl",
            ),
            ("define vfb-512", "HCP026E"),
            ("define t3480 as 181", "HCP002E Invalid operand - t3480"),
            ("define", "HCP026E"),
            ("detach", "HCP026E"),
            ("detach 300 301", "HCP003E Invalid option - 301"),
            ("detach qqqqq", "HCP022E"),
            ("set vdisk", "HCP026E"),
            ("set vdisk syslim", "HCP026E"),
            ("set vdisk syslim lots", "HCP002E Invalid operand - lots"),
            ("set vdisk maxlim 1G", "HCP003E Invalid option - maxlim"),
            (
                "set mdc user lnx off",
                "HCP003E Invalid option - user (ztwin models SET MDCACHE SYSTEM, STORAGE, XSTORE and RDEV)",
            ),
            ("set mdc storage", "HCP026E"),
            ("set mdc storage 64M", "HCP026E"),
            ("set mdc xstore 0M", "HCP026E"),
            ("set mdc st 0M 64M", "HCP003E Invalid option - st"),
            (
                "set mdc storage 0M 64",
                "HCP002E Invalid operand - 64 (a size in megabytes or gigabytes",
            ),
            ("set mdc storage 0K 64M", "HCP002E Invalid operand - 0K"),
            ("set mdc storage 1Ж 2M", "HCP002E Invalid operand - 1Ж"),
            ("set mdc storage 1M Ж", "HCP002E Invalid operand - Ж"),
            ("set mdc storage M 2M", "HCP002E Invalid operand - M "),
            ("set mdc storage bias 1.Ж", "HCP002E Invalid operand - 1.Ж"),
            ("q frames Ж", "HCP003E Invalid option - Ж"),
            ("set mdc storage -1M 64M", "HCP002E Invalid operand - -1M"),
            ("set mdc storage 1.5M 64M", "HCP002E Invalid operand - 1.5M"),
            (
                "set mdc storage 64M 32M",
                "HCP002E Invalid operand - 32M (the maximum is below the minimum)",
            ),
            ("set mdc storage 0M 64M 1", "HCP003E Invalid option - 1"),
            ("set mdc storage bias", "HCP026E"),
            (
                "set mdc storage bias 0",
                "HCP002E Invalid operand - 0 (a bias from 0.01 to 100.00)",
            ),
            ("set mdc storage bias 100.01", "HCP002E Invalid operand - 100.01"),
            ("set mdc storage bias 1.234", "HCP002E Invalid operand - 1.234"),
            ("set mdc storage bias x", "HCP002E Invalid operand - x"),
            ("set mdc storage bias .", "HCP002E Invalid operand - ."),
            ("set mdc storage bias 2 3", "HCP003E Invalid option - 3"),
            (
                "set mdc xstore bias 2",
                "HCP003E Invalid option - bias (ztwin's arbiter has one bias",
            ),
            ("set mdc system maybe", "HCP002E Invalid operand - maybe"),
            ("set mdc system", "HCP026E"),
            ("set mdc", "HCP026E"),
            ("q mdc x", "HCP003E Invalid option - x"),
            ("set srm storbuf 300 250", "HCP026E"),
            (
                "set srm storbuf 300 250 200 100",
                "HCP003E Invalid option - 100",
            ),
            (
                "set srm storbuf 100 250 200",
                "HCP002E Invalid operand - 200 (Q1 >= Q2 >= Q3",
            ),
            (
                "set srm ldubuf 1000 90 80",
                "HCP002E Invalid operand - 1000",
            ),
            ("set srm ldubuf x 90 80", "HCP002E Invalid operand - x"),
            (
                "set srm iabias 90 2",
                "HCP003E Invalid option - iabias (ztwin models SET SRM STORBUF and LDUBUF)",
            ),
            ("set srm", "HCP026E"),
            ("q srm x", "HCP003E Invalid option - x"),
            ("set", "HCP026E"),
            (
                "ind paging",
                "HCP003E Invalid option - paging (ztwin models INDICATE LOAD and USER)",
            ),
            ("ind user lnx exp", "HCP003E Invalid option - exp"),
            (
                "ind user toolonguser",
                "HCP020E Userid missing or invalid - toolonguser",
            ),
            ("indicate load at *", "HCP003E Invalid option - at"),
            ("in load", "HCP001E Unknown CP command: IN"),
            ("lock", "HCP026E"),
            ("lock lnx 0", "HCP026E"),
            ("unlock lnx", "HCP026E"),
            ("lock lnx 0 1g", "HCP002E Invalid operand - 1g"),
            ("lock lnx -1 10", "HCP002E Invalid operand - -1"),
            ("lock lnx 0 123456789", "HCP002E Invalid operand - 123456789"),
            (
                "lock lnx 10 f",
                "HCP002E Invalid operand - F (the last page is below the first)",
            ),
            ("lock lnx 0 10 mapx", "HCP003E Invalid option - mapx"),
            ("lock lnx 0 10 map x", "HCP003E Invalid option - x"),
            ("unlock lnx 0 10 map", "HCP003E Invalid option - map"),
            (
                "lock toolonguser 0 1",
                "HCP020E Userid missing or invalid - toolonguser",
            ),
            ("unl lnx 0 1", "HCP001E Unknown CP command: UNL"),
            ("loc lnx 0 1", "HCP001E Unknown CP command: LOC"),
        ] {
            let e = parse(line).unwrap_err();
            assert!(e.starts_with("HCP"), "{line}: {e}");
            assert!(e.contains(msg), "{line}: {e}");
        }
        assert!(parse_diag64("loadit X").is_err());
        assert!(parse_diag64("loadshr").is_err());
    }
}
