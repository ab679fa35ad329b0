//! ztwin-engine: the discrete-event engine and the z/VM model (the twin).
//!
//! The twin writes MONWRITE files through `ztwin-monitor`; nothing here is read
//! by the toolkit except those files.
