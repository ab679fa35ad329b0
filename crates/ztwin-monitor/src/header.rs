//! MRRECHDR, the 20-byte header that starts every monitor record (spec section 2).

/// Length of MRRECHDR; also the smallest legal record (D1R11, D1R12, D1R13).
pub const HEADER_LEN: usize = 20;
/// Size of a MONWRITE block and of a monitor DCSS frame.
pub const FRAME: usize = 4096;

/// Decoded MRRECHDR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Header {
    /// MRHDRLEN: total record length including the header.
    pub len: u16,
    /// MRHDRDM: domain number.
    pub domain: u8,
    /// MRHDRRC: record number within the domain.
    pub record: u16,
    /// MRHDRTOD: TOD clock when CP built the record.
    pub tod: u64,
}

/// Why bytes at a record position are not a valid record header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderError {
    /// Fewer than 20 bytes left.
    Short,
    /// MRHDRLEN below 20.
    LengthTooSmall(u16),
    /// MRHDRZER not zero.
    NonZeroFiller(u16),
    /// The record would cross the 4 KB frame boundary.
    CrossesFrame { len: u16, room: usize },
}

impl std::fmt::Display for HeaderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HeaderError::Short => write!(f, "fewer than 20 bytes left for a record header"),
            HeaderError::LengthTooSmall(n) => write!(f, "MRHDRLEN {n} is below 20"),
            HeaderError::NonZeroFiller(z) => write!(f, "MRHDRZER is X'{z:04X}', not zero"),
            HeaderError::CrossesFrame { len, room } => write!(
                f,
                "record of MRHDRLEN {len} would cross the 4 KB frame ({room} bytes left)"
            ),
        }
    }
}

impl Header {
    /// Parse a header at the start of `bytes` (the rest of the current frame).
    /// Applies the checks of spec section 9 item 1.
    #[inline]
    pub fn parse(bytes: &[u8]) -> Result<Header, HeaderError> {
        if bytes.len() < HEADER_LEN {
            return Err(HeaderError::Short);
        }
        let len = u16::from_be_bytes([bytes[0], bytes[1]]);
        let zer = u16::from_be_bytes([bytes[2], bytes[3]]);
        if (len as usize) < HEADER_LEN {
            return Err(HeaderError::LengthTooSmall(len));
        }
        if zer != 0 {
            return Err(HeaderError::NonZeroFiller(zer));
        }
        if len as usize > bytes.len() {
            return Err(HeaderError::CrossesFrame {
                len,
                room: bytes.len(),
            });
        }
        Ok(Header {
            len,
            domain: bytes[4],
            record: u16::from_be_bytes([bytes[6], bytes[7]]),
            tod: u64::from_be_bytes(bytes[8..16].try_into().expect("8 bytes")),
        })
    }

    /// Write this header into the first 20 bytes of `out`.
    pub fn write(&self, out: &mut [u8]) {
        out[0..2].copy_from_slice(&self.len.to_be_bytes());
        out[2..4].fill(0);
        out[4] = self.domain;
        out[5] = 0;
        out[6..8].copy_from_slice(&self.record.to_be_bytes());
        out[8..16].copy_from_slice(&self.tod.to_be_bytes());
        out[16..20].fill(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_write() {
        let h = Header {
            len: 24,
            domain: 1,
            record: 3,
            tod: 0xC551_F564_1600_0000,
        };
        let mut b = [0u8; 24];
        h.write(&mut b);
        assert_eq!(Header::parse(&b), Ok(h));
        assert_eq!(&b[..8], &[0, 24, 0, 0, 1, 0, 0, 3]);
    }

    #[test]
    fn rejects_bad_headers() {
        let mut b = [0u8; 40];
        b[1] = 19;
        assert_eq!(Header::parse(&b), Err(HeaderError::LengthTooSmall(19)));
        b[1] = 20;
        b[3] = 1;
        assert_eq!(Header::parse(&b), Err(HeaderError::NonZeroFiller(1)));
        b[3] = 0;
        b[1] = 41;
        assert!(matches!(
            Header::parse(&b),
            Err(HeaderError::CrossesFrame { .. })
        ));
        assert_eq!(Header::parse(&b[..10]), Err(HeaderError::Short));
    }
}
