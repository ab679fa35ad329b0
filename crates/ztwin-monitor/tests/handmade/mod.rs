//! MONWRITE bytes placed by hand from the specification (spec sections 2 and
//! 4): record headers, MWTBK control records and the two data layouts after
//! them, without the crate's writer.
#![allow(dead_code)]

pub const BASE: u32 = 0x0A00_0000;
pub const FRAME: usize = 4096;

pub fn put(b: &mut [u8], off: usize, bytes: &[u8]) {
    b[off..off + bytes.len()].copy_from_slice(bytes);
}

/// MRRECHDR by hand: length, zeros, domain, reserved, record, TOD, reserved.
pub fn header(b: &mut [u8], off: usize, len: u16, dm: u8, rc: u16, tod: u64) {
    b[off..off + 20].fill(0);
    put(b, off, &len.to_be_bytes());
    put(b, off + 4, &[dm]);
    put(b, off + 6, &rc.to_be_bytes());
    put(b, off + 8, &tod.to_be_bytes());
}

/// A record of `len` bytes with its header, body zero.
pub fn record(len: usize, dm: u8, rc: u16, tod: u64) -> Vec<u8> {
    let mut r = vec![0u8; len];
    header(&mut r, 0, len as u16, dm, rc, tod);
    r
}

/// MWTBK by hand: IPARML copy (path 1, flags X'80', type X'09', message id,
/// MCA start/end at 12/16) and the 12-byte MCA entries from byte 40.
pub fn control(msg: u32, entries: &[(u8, u8, u32, u32)]) -> Vec<u8> {
    let mut b = vec![0u8; FRAME];
    put(&mut b, 0, &1u16.to_be_bytes());
    b[2] = 0x80;
    b[3] = 0x09;
    put(&mut b, 4, &msg.to_be_bytes());
    put(&mut b, 12, &BASE.to_be_bytes());
    put(
        &mut b,
        16,
        &(BASE + 12 * entries.len() as u32 - 1).to_be_bytes(),
    );
    for (i, (flag, mask, start, end)) in entries.iter().enumerate() {
        let o = 40 + 12 * i;
        b[o] = *flag;
        b[o + 1] = *mask;
        put(&mut b, o + 4, &start.to_be_bytes());
        put(&mut b, o + 8, &end.to_be_bytes());
    }
    b
}

/// EBCDIC (code page 037) of upper-case letters, digits, blank and `.`.
pub fn ebcdic(s: &str) -> Vec<u8> {
    s.bytes()
        .map(|c| match c {
            b'A'..=b'I' => 0xC1 + (c - b'A'),
            b'J'..=b'R' => 0xD1 + (c - b'J'),
            b'S'..=b'Z' => 0xE2 + (c - b'S'),
            b'0'..=b'9' => 0xF0 + (c - b'0'),
            b'.' => 0x4B,
            b' ' => 0x40,
            _ => panic!("no EBCDIC for {c}"),
        })
        .collect()
}

/// Text in a blank-padded character field of `width` bytes.
pub fn char_field(s: &str, width: usize) -> Vec<u8> {
    let mut v = ebcdic(s);
    v.resize(width, 0x40);
    v
}

/// How the record data follows a control record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Data {
    /// Whole 4 KB frames per entry.
    Frames,
    /// Each entry's bytes from its start to its end address, back to back,
    /// the group padded to whole blocks.
    Contiguous,
}

/// One sample entry holding `records`, packed into 4 KB frames (D1R13 where a
/// record does not fit, D1R11 at the end), starting `skip` bytes into DCSS
/// page `page`; then a control record and the data in layout `data`.
pub fn sample_group(
    msg: u32,
    page: u32,
    skip: usize,
    records: &[Vec<u8>],
    tod: u64,
    data: Data,
) -> Vec<u8> {
    let mut frames: Vec<Vec<u8>> = vec![vec![0u8; FRAME]];
    let mut pos = skip;
    let fin = record(20, 1, 11, tod);
    for r in records.iter().chain(std::iter::once(&fin)) {
        if pos + r.len() > FRAME {
            let last = frames.last_mut().expect("a frame");
            header(last, pos, 20, 1, 13, tod);
            frames.push(vec![0u8; FRAME]);
            pos = 0;
        }
        let last = frames.last_mut().expect("a frame");
        put(last, pos, r);
        pos += r.len();
    }
    let start = BASE + page * FRAME as u32 + skip as u32;
    let last_byte = BASE + (page + frames.len() as u32 - 1) * FRAME as u32 + pos as u32 - 1;
    let mut f = control(msg, &[(0xE2, 0xFF, start, last_byte)]);
    match data {
        Data::Frames => {
            for fr in &frames {
                f.extend(fr);
            }
        }
        Data::Contiguous => {
            let mut bytes: Vec<u8> = frames.concat();
            bytes.drain(..skip);
            bytes.truncate((last_byte - start) as usize + 1);
            bytes.resize(bytes.len().div_ceil(FRAME) * FRAME, 0);
            f.extend(bytes);
        }
    }
    f
}
