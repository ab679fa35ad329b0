//! # ztwin-monitor — the CP Monitor record format
//!
//! Everything ztwin knows about MONWRITE files lives here, independent of the
//! simulator and of Python:
//!
//! * [`tod`] — TOD clock conversions, exact to the microsecond;
//! * [`ebcdic`] — code page 037 for character fields;
//! * [`header`] — MRRECHDR, the common 20-byte record header;
//! * [`layout`] — table-driven record layouts keyed by (domain, record, release),
//!   with the confidence of every field;
//! * [`control`] — MWTBK, the 4 KB monitor writer control record;
//! * [`writer`] — a deterministic MONWRITE writer (frames, D1R13, D1R11);
//! * [`reader`] — a constant-memory streaming reader that survives damage;
//! * [`segment`] — the collections (segments) inside one file, which the
//!   reader tells apart;
//! * [`dump`] — one-line and JSON Lines rendering of decoded records;
//! * [`appldata`] — the Linux kernel's APPLDATA structs inside domain 10.
//!
//! The specification these follow is `shared/spec/monitor-records.md`.

pub mod appldata;
pub mod control;
pub mod dump;
pub mod ebcdic;
pub mod header;
pub mod layout;
#[cfg(unix)]
pub mod mapped;
pub mod reader;
pub mod segment;
pub mod tod;
pub mod writer;

pub use control::SetKind;
pub use ebcdic::Ebcdic;
pub use header::{Header, FRAME, HEADER_LEN};
pub use layout::{
    decode_field_ref, lookup, FieldDef, FieldType, RecordDecoder, RecordLayout, Release, Value,
    ValueRef,
};
pub use reader::{
    Damage, DamageKind, FatalError, Reader, RecordRef, Stats, TypeCounts, WholeBytes,
};
pub use segment::{Segment, SegmentStart, SegmentTracker};
pub use writer::{MonwriteWriter, RecordSet, WriteError};
