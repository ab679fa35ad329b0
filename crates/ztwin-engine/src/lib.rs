//! ztwin-engine: the discrete-event engine and the z/VM model (the twin).
//!
//! The twin writes MONWRITE files through `ztwin-monitor`; the toolkit reads only
//! those files, never the model's internals.

pub mod scenario;
pub mod units;
