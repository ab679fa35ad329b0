//! APPLDATA: the Linux kernel's monitor data inside domain 10 records.
//!
//! A Linux guest with the appldata modules active (`appldata_mem`,
//! `appldata_os`, `appldata_net_sum`, switched on in `/proc/sys/appldata/`)
//! hands CP one buffer per module with DIAGNOSE X'DC' (function X'80', start
//! interval recording). At every sample CP copies each buffer into an
//! MRAPLSDT record (D10R2) behind the record's 52-byte fixed part, at the
//! offset in APLSDT_CALDATOF; when the guest stops (DIAGNOSE X'DC' X'81', a
//! reset, logoff) CP writes an MRAPLEDT (D10R1) with the buffer's last
//! contents. The fixed parts are in `layout/tables.rs`; this module maps the
//! data.
//!
//! **Product identification** (16 bytes, the kernel's `struct
//! appldata_product_id`, arch/s390/include/asm/appldata.h): `prod_nr` 7
//! EBCDIC characters `LINUXKR`, `prod_fn` 2 bytes X'D5D3' (`NL`, so the
//! first nine characters read `LINUXKRNL`), `record_nr` one binary byte
//! (1 memory, 2 OS, 3 network; arch/s390/appldata/appldata.h), `version_nr`
//! `26` and `release_nr` `01` in EBCDIC digits (appldata_base.c), and
//! `mod_lvl`, two EBCDIC digits per module (`00` memory and network, `01` OS
//! since the per-CPU steal time and CPU number were added). IBM's "Device
//! Drivers, Features, and Commands" book gives the same form,
//! `LINUXKRNL<record ID>260100`.
//!
//! **Data layouts** (big-endian, packed, offsets from the start of the data):
//! the structs `appldata_mem_data` (appldata_mem.c, 144 bytes),
//! `appldata_os_data` with its `appldata_os_per_cpu` entries (appldata_os.c,
//! 52 bytes and `nr_cpus` entries of `per_cpu_size` bytes at `cpu_offset`:
//! 28 bytes at modification level 00, 36 at 01) and `appldata_net_sum_data`
//! (appldata_net_sum.c, 96 bytes). Every field is tagged
//! [`Confidence::Linux`]; its name is the kernel's member name (`avenrun[3]`
//! becomes `avenrun_0` .. `avenrun_2`). Units as the kernel fills them: memory
//! sizes in KB, `pgpgin`/`pgpgout` in KB, swap and fault counts in pages and
//! events, CPU times in jiffies (USER_HZ 100 on s390), load averages in
//! fixed point with 11 fraction bits (`FSHIFT`), timestamps TOD.
//!
//! Decoding never panics: a data offset outside the record, or data shorter
//! or longer than the struct its product names, is a [`Problem`] (the reader
//! of a file turns it into a warning with the record's offset), and fields
//! beyond the data are absent, never zero.

use crate::ebcdic;
use crate::layout::{decode_field_ref, Confidence, FieldDef, FieldType, RecordLayout, ValueRef};

const fn lx(name: &'static str, offset: u16, ty: FieldType) -> FieldDef {
    FieldDef {
        name,
        offset,
        ty,
        src: Confidence::Linux,
    }
}

use FieldType::{Tod, U4, U8};

/// `struct appldata_mem_data` (appldata_mem.c).
pub static MEM: &[FieldDef] = &[
    lx("timestamp", 0, Tod),
    lx("sync_count_1", 8, U4),
    lx("sync_count_2", 12, U4),
    lx("pgpgin", 16, U8),
    lx("pgpgout", 24, U8),
    lx("pswpin", 32, U8),
    lx("pswpout", 40, U8),
    lx("sharedram", 48, U8),
    lx("totalram", 56, U8),
    lx("freeram", 64, U8),
    lx("totalhigh", 72, U8),
    lx("freehigh", 80, U8),
    lx("bufferram", 88, U8),
    lx("cached", 96, U8),
    lx("totalswap", 104, U8),
    lx("freeswap", 112, U8),
    lx("pgalloc", 120, U8),
    lx("pgfault", 128, U8),
    lx("pgmajfault", 136, U8),
];

/// `struct appldata_os_data` without its per-CPU entries (appldata_os.c).
pub static OS: &[FieldDef] = &[
    lx("timestamp", 0, Tod),
    lx("sync_count_1", 8, U4),
    lx("sync_count_2", 12, U4),
    lx("nr_cpus", 16, U4),
    lx("per_cpu_size", 20, U4),
    lx("cpu_offset", 24, U4),
    lx("nr_running", 28, U4),
    lx("nr_threads", 32, U4),
    lx("avenrun_0", 36, U4),
    lx("avenrun_1", 40, U4),
    lx("avenrun_2", 44, U4),
    lx("nr_iowait", 48, U4),
];

/// `struct appldata_os_per_cpu`, offsets from the entry's start.
pub static OS_CPU: &[FieldDef] = &[
    lx("per_cpu_user", 0, U4),
    lx("per_cpu_nice", 4, U4),
    lx("per_cpu_system", 8, U4),
    lx("per_cpu_idle", 12, U4),
    lx("per_cpu_irq", 16, U4),
    lx("per_cpu_softirq", 20, U4),
    lx("per_cpu_iowait", 24, U4),
    lx("per_cpu_steal", 28, U4),
    lx("cpu_id", 32, U4),
];

/// `struct appldata_net_sum_data` (appldata_net_sum.c).
pub static NET_SUM: &[FieldDef] = &[
    lx("timestamp", 0, Tod),
    lx("sync_count_1", 8, U4),
    lx("sync_count_2", 12, U4),
    lx("nr_interfaces", 16, U4),
    lx("padding", 20, U4),
    lx("rx_packets", 24, U8),
    lx("tx_packets", 32, U8),
    lx("rx_bytes", 40, U8),
    lx("tx_bytes", 48, U8),
    lx("rx_errors", 56, U8),
    lx("tx_errors", 64, U8),
    lx("rx_dropped", 72, U8),
    lx("tx_dropped", 80, U8),
    lx("collisions", 88, U8),
];

/// Size of `appldata_os_per_cpu` at modification level 00 (seven counters)
/// and 01 (plus `per_cpu_steal` and `cpu_id`).
pub const OS_CPU_SIZE_00: usize = 28;
pub const OS_CPU_SIZE_01: usize = 36;
/// Length of the fixed part of MRAPLSDT and MRAPLEDT (IBM).
pub const FIXED_PART: usize = 52;
/// The kernel's largest buffer (`APPLDATA_MAX_REC_SIZE`).
pub const MAX_DATA: usize = 4024;

/// `LINUXKRNL` in EBCDIC: `prod_nr` and `prod_fn` of every kernel record.
pub const LINUX_PRODUCT: [u8; 9] = [0xD3, 0xC9, 0xD5, 0xE4, 0xE7, 0xD2, 0xD9, 0xD5, 0xD3];

/// Which kernel module wrote a record (`record_nr` of the product ID).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Mem,
    Os,
    NetSum,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Mem, Kind::Os, Kind::NetSum];

    /// `APPLDATA_RECORD_*_ID`.
    pub fn record_nr(self) -> u8 {
        match self {
            Kind::Mem => 1,
            Kind::Os => 2,
            Kind::NetSum => 3,
        }
    }

    pub fn from_record_nr(n: u8) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.record_nr() == n)
    }

    /// The module's name as `/proc/sys/appldata/` has it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Mem => "mem",
            Kind::Os => "os",
            Kind::NetSum => "net_sum",
        }
    }

    /// The struct's fields (for OS without the per-CPU entries).
    pub fn fields(self) -> &'static [FieldDef] {
        match self {
            Kind::Mem => MEM,
            Kind::Os => OS,
            Kind::NetSum => NET_SUM,
        }
    }

    /// Size of the struct (for OS: its fixed part).
    pub fn size(self) -> usize {
        match self {
            Kind::Mem => 144,
            Kind::Os => 52,
            Kind::NetSum => 96,
        }
    }

    /// `mod_lvl` the current kernel writes, as two digits.
    pub fn mod_level(self) -> u16 {
        match self {
            Kind::Os => 1,
            Kind::Mem | Kind::NetSum => 0,
        }
    }
}

/// The 16-byte product identification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProductId {
    pub bytes: [u8; 16],
}

/// Two decimal digits as EBCDIC (`26` is X'F2F6').
fn ebcdic_digits(n: u16) -> [u8; 2] {
    [0xF0 + (n / 10 % 10) as u8, 0xF0 + (n % 10) as u8]
}

/// Two EBCDIC digits as a number (`None` if they are not digits).
fn digits(b: [u8; 2]) -> Option<u16> {
    let d = |x: u8| (0xF0..=0xF9).contains(&x).then(|| (x - 0xF0) as u16);
    Some(d(b[0])? * 10 + d(b[1])?)
}

impl ProductId {
    /// The kernel's product ID for module `kind` at modification level `mod_level`.
    pub fn linux(kind: Kind, mod_level: u16) -> ProductId {
        let mut bytes = [0u8; 16];
        bytes[..9].copy_from_slice(&LINUX_PRODUCT);
        bytes[9] = kind.record_nr();
        bytes[10..12].copy_from_slice(&ebcdic_digits(26));
        bytes[12..14].copy_from_slice(&ebcdic_digits(1));
        bytes[14..16].copy_from_slice(&ebcdic_digits(mod_level));
        ProductId { bytes }
    }

    /// Written by the Linux kernel's appldata modules (`LINUXKRNL`).
    pub fn is_linux(&self) -> bool {
        self.bytes[..9] == LINUX_PRODUCT
    }

    /// `record_nr`: a binary byte.
    pub fn record_nr(&self) -> u8 {
        self.bytes[9]
    }

    /// The module, for a Linux kernel record of a known number.
    pub fn kind(&self) -> Option<Kind> {
        self.is_linux()
            .then(|| Kind::from_record_nr(self.record_nr()))
            .flatten()
    }

    /// `version_nr`, `release_nr`, `mod_lvl` as numbers (when digits).
    pub fn version(&self) -> Option<u16> {
        digits([self.bytes[10], self.bytes[11]])
    }
    pub fn release(&self) -> Option<u16> {
        digits([self.bytes[12], self.bytes[13]])
    }
    pub fn mod_level(&self) -> Option<u16> {
        digits([self.bytes[14], self.bytes[15]])
    }

    /// Readable form: `LINUXKRNL 02 2601 01` (the record number in hex, the
    /// rest decoded EBCDIC).
    pub fn text(&self) -> String {
        let mut s = ebcdic::decode(&self.bytes[..9]);
        s.push_str(&format!(" {:02X} ", self.bytes[9]));
        s.push_str(&ebcdic::decode(&self.bytes[10..14]));
        s.push(' ');
        s.push_str(&ebcdic::decode(&self.bytes[14..16]));
        s
    }
}

/// Why a domain 10 record's data could not be decoded as its product says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The record is shorter than its fixed part.
    ShortRecord { len: usize },
    /// APLSDT_CALDATOF points before the end of the fixed part or past the record.
    DataOffset { caldatof: usize, len: usize },
    /// The data's length is not the struct's.
    Length {
        kind: Kind,
        got: usize,
        expected: usize,
    },
    /// OS data whose per-CPU entries are not where its own fields say.
    CpuEntries {
        nr_cpus: u64,
        per_cpu_size: u64,
        cpu_offset: u64,
        got: usize,
    },
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::ShortRecord { len } => write!(
                f,
                "a domain 10 record of {len} bytes, shorter than its {FIXED_PART}-byte fixed part"
            ),
            Problem::DataOffset { caldatof, len } => write!(
                f,
                "CALDATOF {caldatof} points outside the application data of a {len}-byte record"
            ),
            Problem::Length {
                kind,
                got,
                expected,
            } => write!(
                f,
                "Linux appldata_{} data of {got} bytes, the kernel's struct has {expected}: \
                 the fields that fit were decoded",
                kind.name()
            ),
            Problem::CpuEntries {
                nr_cpus,
                per_cpu_size,
                cpu_offset,
                got,
            } => write!(
                f,
                "Linux appldata_os data of {got} bytes cannot hold {nr_cpus} per-CPU entries of \
                 {per_cpu_size} bytes at offset {cpu_offset}: the entries that fit were decoded"
            ),
        }
    }
}

/// The application data of one MRAPLSDT or MRAPLEDT record.
#[derive(Clone, Copy, Debug)]
pub struct Appldata<'a> {
    pub product: ProductId,
    /// The kernel module that wrote it (`None`: another product, or an
    /// unknown Linux record number).
    pub kind: Option<Kind>,
    /// APLxDT_ADATA: from CALDATOF to the end of the record.
    pub data: &'a [u8],
}

/// The field of `layout` whose name ends in `suffix` (`_CALDATOF`).
fn header_field(layout: &RecordLayout, suffix: &str) -> Option<&'static FieldDef> {
    layout.fields.iter().find(|f| f.name.ends_with(suffix))
}

impl<'a> Appldata<'a> {
    /// Split record `rec` (header included) of `layout` (MRAPLSDT or
    /// MRAPLEDT) into product ID and data. A record too short for its fixed
    /// part or a CALDATOF outside it is a [`Problem`].
    pub fn parse(rec: &'a [u8], layout: &RecordLayout) -> Result<Appldata<'a>, Problem> {
        let len = rec.len();
        if len < FIXED_PART {
            return Err(Problem::ShortRecord { len });
        }
        let caldatof = header_field(layout, "_CALDATOF")
            .and_then(|f| crate::layout::read_u64(rec, f))
            .map_or(FIXED_PART, |v| v as usize);
        if caldatof < FIXED_PART || caldatof > len {
            return Err(Problem::DataOffset { caldatof, len });
        }
        let mut bytes = [0u8; 16];
        if let Some(f) = header_field(layout, "_PRODID") {
            let at = f.offset as usize;
            if let Some(b) = rec.get(at..at + 16) {
                bytes.copy_from_slice(b);
            }
        }
        let product = ProductId { bytes };
        Ok(Appldata {
            product,
            kind: product.kind(),
            data: &rec[caldatof..],
        })
    }

    /// A length that does not match the kernel's struct (decoding still
    /// gives the fields that fit).
    pub fn check(&self) -> Option<Problem> {
        let kind = self.kind?;
        let got = self.data.len();
        match kind {
            Kind::Mem | Kind::NetSum => (got != kind.size()).then_some(Problem::Length {
                kind,
                got,
                expected: kind.size(),
            }),
            Kind::Os => {
                if got < kind.size() {
                    return Some(Problem::Length {
                        kind,
                        got,
                        expected: kind.size(),
                    });
                }
                let (n, size, at) = self.os_cpu_geometry();
                let end = n.saturating_mul(size).saturating_add(at);
                (size < OS_CPU_SIZE_00 as u64 || at < kind.size() as u64 || end != got as u64)
                    .then_some(Problem::CpuEntries {
                        nr_cpus: n,
                        per_cpu_size: size,
                        cpu_offset: at,
                        got,
                    })
            }
        }
    }

    fn u(&self, fields: &[FieldDef], name: &str) -> u64 {
        fields
            .iter()
            .find(|f| f.name == name)
            .and_then(|f| crate::layout::read_u64(self.data, f))
            .unwrap_or(0)
    }

    /// `nr_cpus`, `per_cpu_size`, `cpu_offset` of OS data.
    fn os_cpu_geometry(&self) -> (u64, u64, u64) {
        (
            self.u(OS, "nr_cpus"),
            self.u(OS, "per_cpu_size"),
            self.u(OS, "cpu_offset"),
        )
    }

    /// The struct's fields with their values (`None`: beyond the data).
    pub fn fields(&self) -> impl Iterator<Item = (&'static FieldDef, Option<ValueRef<'a>>)> + '_ {
        let data = self.data;
        self.kind
            .map_or(&[][..], Kind::fields)
            .iter()
            .map(move |f| (f, decode_field_ref(data, f)))
    }

    /// OS data's per-CPU entries, each the bytes of one entry (at most
    /// `per_cpu_size` long; an entry cut by the end of the data is shorter,
    /// so its missing fields decode as absent). Empty for other kinds.
    pub fn cpu_entries(&self) -> impl Iterator<Item = &'a [u8]> + '_ {
        let (n, size, at) = if self.kind == Some(Kind::Os) {
            self.os_cpu_geometry()
        } else {
            (0, 0, 0)
        };
        let data = self.data;
        let size = size.min(MAX_DATA as u64) as usize;
        let at = at.min(data.len() as u64) as usize;
        let room = if size == 0 {
            0
        } else {
            (data.len() - at).div_ceil(size)
        };
        (0..(n as usize).min(room)).map(move |i| {
            let s = at + i * size;
            &data[s..(s + size).min(data.len())]
        })
    }

    /// `sync_count_1 == sync_count_2`: the kernel did not update the buffer
    /// while CP copied it.
    pub fn consistent(&self) -> bool {
        match self.kind {
            Some(k) => self.u(k.fields(), "sync_count_1") == self.u(k.fields(), "sync_count_2"),
            None => true,
        }
    }
}

/// Store `v` in numeric field `f` of data buffer `data` (big-endian,
/// truncated to the width as the kernel's counters wrap); a field beyond the
/// buffer is skipped.
pub fn put(data: &mut [u8], f: &FieldDef, v: u64) {
    let w = f.ty.width();
    let off = f.offset as usize;
    if let Some(slot) = data.get_mut(off..off + w) {
        slot.copy_from_slice(&v.to_be_bytes()[8 - w..]);
    }
}

/// Field `name` of `fields` (panics on a name not in the kernel's struct: a
/// programming error in the writer).
pub fn field(fields: &'static [FieldDef], name: &str) -> &'static FieldDef {
    fields
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no appldata field {name}"))
}

/// Fill the fixed part of a domain 10 record `rec` of `layout` (its header
/// already written): user ID, CALDATOF = 52, the product ID. Returns the
/// data area (from byte 52) for the caller to fill.
pub fn fill_fixed<'r>(
    rec: &'r mut [u8],
    layout: &RecordLayout,
    userid: &str,
    product: &ProductId,
) -> &'r mut [u8] {
    for f in layout.fields {
        let at = f.offset as usize;
        let Some(slot) = rec.get_mut(at..at + f.ty.width()) else {
            continue;
        };
        if f.name.ends_with("_USERID") {
            ebcdic::encode_field(userid, slot);
        } else if f.name.ends_with("_CALDATOF") {
            let w = slot.len();
            slot.copy_from_slice(&(FIXED_PART as u64).to_be_bytes()[8 - w..]);
        } else if f.name.ends_with("_PRODID") && slot.len() == 16 {
            slot.copy_from_slice(&product.bytes);
        }
    }
    &mut rec[FIXED_PART..]
}

/// The domain 10 records of a file whose data did not fit its struct: how
/// many, and the first one's offset and reason. The file's reader turns it
/// into one warning ([`Problems::warning`]); the records are still delivered.
#[derive(Clone, Debug, Default)]
pub struct Problems {
    pub count: u64,
    pub first: Option<(u64, Problem)>,
}

impl Problems {
    /// Check record `rec` (at file offset `offset`, of `layout`); returns
    /// the parsed data when its fixed part is sound.
    pub fn note<'a>(
        &mut self,
        offset: u64,
        rec: &'a [u8],
        layout: &RecordLayout,
    ) -> Option<Appldata<'a>> {
        let (a, p) = match Appldata::parse(rec, layout) {
            Ok(a) => {
                let p = a.check();
                (Some(a), p)
            }
            Err(p) => (None, Some(p)),
        };
        if let Some(p) = p {
            self.count += 1;
            if self.first.is_none() {
                self.first = Some((offset, p));
            }
        }
        a
    }

    /// One line for the user, or `None` when every record was sound.
    pub fn warning(&self) -> Option<String> {
        let (at, p) = self.first.as_ref()?;
        Some(format!(
            "{} APPLDATA record(s) (domain 10) have data of the wrong length; the first at offset {at} \
             (X'{at:X}'): {p}",
            self.count
        ))
    }
}

#[cfg(test)]
mod tests;
