//! MWTBK, the 4096-byte monitor writer control record (spec section 4.2).
//!
//! Bytes 0-39 copy the IUCV message-pending interrupt buffer (IPARML); bytes
//! 40-4095 copy the Monitor Control Area: 12-byte entries, each naming the kind
//! of data (sample X'E2' / event X'C5'), the domains present and the DCSS start
//! and end (last byte) addresses of one record set.

use crate::header::FRAME;

/// Offset of the control area (MWTCAREA) in the control record.
pub const MWTCAREA: usize = 40;
/// Length of one control-area entry (MWTCALEN).
pub const ENTRY_LEN: usize = 12;
/// Most entries that fit in MWTCAREA.
pub const MAX_ENTRIES: usize = (FRAME - MWTCAREA) / ENTRY_LEN;

/// IPTYPE of a message-pending interrupt, and of a priority message.
pub const IPTYPE_MSG: u8 = 0x09;
pub const IPTYPE_PRIORITY_MSG: u8 = 0x08;
/// IPFLAGS1 X'80' (IPRMDATA): message text travels in the parameter list. [INF]
pub const IPFLAGS1_RMDATA: u8 = 0x80;

/// Sample or event data (MWTCAFLG).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SetKind {
    Sample,
    Event,
}

impl SetKind {
    pub const fn flag(self) -> u8 {
        match self {
            SetKind::Sample => 0xE2, // EBCDIC 'S'
            SetKind::Event => 0xC5,  // EBCDIC 'E'
        }
    }

    pub fn from_flag(b: u8) -> Option<SetKind> {
        match b {
            0xE2 => Some(SetKind::Sample),
            0xC5 => Some(SetKind::Event),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SetKind::Sample => "sample",
            SetKind::Event => "event",
        }
    }
}

/// Domain bit for the two MWTCADMA mask bytes: domains 0-7 in the first byte
/// (X'80' = domain 0), 8-15 in the second [INF for the second byte].
pub const fn domain_bit(domain: u8) -> u16 {
    if domain < 16 {
        0x8000 >> domain
    } else {
        0
    }
}

/// One control-area entry (MWTCAENT).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ControlEntry {
    pub kind: SetKind,
    /// Domain masks: high byte = domains 0-7, low byte = domains 8-15.
    pub domains: u16,
    /// DCSS address of the first record (MWTCASTR).
    pub start: u32,
    /// DCSS address of the last byte of the set (MWTCAEND).
    pub end: u32,
}

impl ControlEntry {
    /// DCSS page numbers spanned by the entry: first and last (inclusive).
    pub fn pages(&self) -> (u32, u32) {
        (self.start / FRAME as u32, self.end / FRAME as u32)
    }

    /// Number of 4 KB pages the entry spans.
    pub fn page_count(&self) -> u64 {
        let (a, b) = self.pages();
        (b - a) as u64 + 1
    }
}

/// A decoded MWTBK.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControlRecord {
    pub path_id: u16,
    pub flags1: u8,
    pub iptype: u8,
    pub msg_id: u32,
    pub trgcls: u32,
    /// MCA start and end (last byte) addresses from the IUCV buffer.
    pub mca_start: u32,
    pub mca_end: u32,
    pub entries: Vec<ControlEntry>,
}

/// Why a 4 KB block is not a valid control record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ControlError {
    BadIpType(u8),
    BadFirstEntryType(u8),
    McaOrder { start: u32, end: u32 },
    McaLength(u64),
    EntryTypeZero(usize),
    EntryRange { index: usize, start: u32, end: u32 },
}

impl std::fmt::Display for ControlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ControlError::BadIpType(t) => {
                write!(f, "IPTYPE at byte 3 is X'{t:02X}', expected X'08' or X'09'")
            }
            ControlError::BadFirstEntryType(t) => write!(
                f,
                "first control-area entry type at byte 40 is X'{t:02X}', expected X'E2' or X'C5'"
            ),
            ControlError::McaOrder { start, end } => write!(
                f,
                "MCA start X'{start:08X}' is not below MCA end X'{end:08X}'"
            ),
            ControlError::McaLength(n) => write!(
                f,
                "MCA length {n} is not a positive multiple of 12 up to 4056"
            ),
            ControlError::EntryTypeZero(i) => {
                write!(f, "control-area entry {i} has type byte zero")
            }
            ControlError::EntryRange { index, start, end } => write!(
                f,
                "control-area entry {index} ends (X'{end:08X}') before it starts (X'{start:08X}')"
            ),
        }
    }
}

#[inline]
fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_be_bytes(b[off..off + 4].try_into().expect("4 bytes"))
}

impl ControlRecord {
    /// Cheap signature check (spec 4.4 step 2), used to resynchronise.
    pub fn looks_valid(block: &[u8; FRAME]) -> bool {
        ControlRecord::parse(block).is_ok()
    }

    /// Parse and validate a control record.
    pub fn parse(block: &[u8; FRAME]) -> Result<ControlRecord, ControlError> {
        let iptype = block[3];
        if iptype != IPTYPE_MSG && iptype != IPTYPE_PRIORITY_MSG {
            return Err(ControlError::BadIpType(iptype));
        }
        if SetKind::from_flag(block[MWTCAREA]).is_none() {
            return Err(ControlError::BadFirstEntryType(block[MWTCAREA]));
        }
        let mca_start = u32_at(block, 12);
        let mca_end = u32_at(block, 16);
        if mca_start >= mca_end {
            return Err(ControlError::McaOrder {
                start: mca_start,
                end: mca_end,
            });
        }
        let len = (mca_end - mca_start) as u64 + 1;
        if len % ENTRY_LEN as u64 != 0 || len > (FRAME - MWTCAREA) as u64 {
            return Err(ControlError::McaLength(len));
        }
        let n = (len / ENTRY_LEN as u64) as usize;
        let mut entries = Vec::with_capacity(n);
        for i in 0..n {
            let e = &block[MWTCAREA + i * ENTRY_LEN..MWTCAREA + (i + 1) * ENTRY_LEN];
            let Some(kind) = SetKind::from_flag(e[0]) else {
                return Err(ControlError::EntryTypeZero(i));
            };
            let start = u32_at(e, 4);
            let end = u32_at(e, 8);
            if end < start {
                return Err(ControlError::EntryRange {
                    index: i,
                    start,
                    end,
                });
            }
            entries.push(ControlEntry {
                kind,
                domains: u16::from_be_bytes([e[1], e[2]]),
                start,
                end,
            });
        }
        Ok(ControlRecord {
            path_id: u16::from_be_bytes([block[0], block[1]]),
            flags1: block[2],
            iptype,
            msg_id: u32_at(block, 4),
            trgcls: u32_at(block, 8),
            mca_start,
            mca_end,
            entries,
        })
    }

    /// Encode into a zeroed 4096-byte block.
    pub fn encode(&self, block: &mut [u8; FRAME]) {
        assert!(
            !self.entries.is_empty() && self.entries.len() <= MAX_ENTRIES,
            "a control record holds 1 to {MAX_ENTRIES} entries"
        );
        block.fill(0);
        block[0..2].copy_from_slice(&self.path_id.to_be_bytes());
        block[2] = self.flags1;
        block[3] = self.iptype;
        block[4..8].copy_from_slice(&self.msg_id.to_be_bytes());
        block[8..12].copy_from_slice(&self.trgcls.to_be_bytes());
        block[12..16].copy_from_slice(&self.mca_start.to_be_bytes());
        block[16..20].copy_from_slice(&self.mca_end.to_be_bytes());
        for (i, e) in self.entries.iter().enumerate() {
            let o = MWTCAREA + i * ENTRY_LEN;
            block[o] = e.kind.flag();
            block[o + 1..o + 3].copy_from_slice(&e.domains.to_be_bytes());
            block[o + 4..o + 8].copy_from_slice(&e.start.to_be_bytes());
            block[o + 8..o + 12].copy_from_slice(&e.end.to_be_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ControlRecord {
        ControlRecord {
            path_id: 1,
            flags1: IPFLAGS1_RMDATA,
            iptype: IPTYPE_MSG,
            msg_id: 7,
            trgcls: 0,
            mca_start: 0x0A00_0000,
            mca_end: 0x0A00_0000 + 23,
            entries: vec![
                ControlEntry {
                    kind: SetKind::Sample,
                    domains: 0xC000,
                    start: 0x0A00_1000,
                    end: 0x0A00_1FFF,
                },
                ControlEntry {
                    kind: SetKind::Event,
                    domains: 0x0800,
                    start: 0x0A00_2000,
                    end: 0x0A00_2013,
                },
            ],
        }
    }

    #[test]
    fn round_trip() {
        let mut b = [0u8; FRAME];
        sample().encode(&mut b);
        assert_eq!(ControlRecord::parse(&b).unwrap(), sample());
        assert_eq!(b[40], 0xE2);
        assert_eq!(b[52], 0xC5);
    }

    #[test]
    fn signature_checks() {
        let mut b = [0u8; FRAME];
        sample().encode(&mut b);
        let mut c = b;
        c[3] = 0x01;
        assert_eq!(ControlRecord::parse(&c), Err(ControlError::BadIpType(1)));
        let mut c = b;
        c[40] = 0;
        assert!(matches!(
            ControlRecord::parse(&c),
            Err(ControlError::BadFirstEntryType(0))
        ));
        let mut c = b;
        c[19] = 0x10; // MCA length 17
        assert!(matches!(
            ControlRecord::parse(&c),
            Err(ControlError::McaLength(17))
        ));
        let mut c = b;
        c[52] = 0; // second entry type zero
        assert_eq!(
            ControlRecord::parse(&c),
            Err(ControlError::EntryTypeZero(1))
        );
        assert!(!ControlRecord::looks_valid(&[0u8; FRAME]));
    }

    #[test]
    fn domain_bits() {
        assert_eq!(domain_bit(0), 0x8000);
        assert_eq!(domain_bit(7), 0x0100);
        assert_eq!(domain_bit(10), 0x0020);
        assert_eq!(domain_bit(200), 0);
    }
}
