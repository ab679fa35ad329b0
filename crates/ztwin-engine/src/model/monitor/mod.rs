//! The monitor: CP Monitor records made from the components' samples.
//!
//! **Owns** (the model side, this file) the monitor's settings (sample
//! interval, high-frequency sampling rate), the system's identity for the
//! configuration records ([`SystemId`]) and the outbox of event records
//! (logons and logoffs, in the order they happened; drained by the emitter at
//! the next sample).
//!
//! **Parameters**: [`params`] (`[monitor]`, the system ID's bound).
//!
//! **Events**: [`Ev::Hf`] (high-frequency sampling: `Model::hf_sample` calls
//! the components' HF ticks in a fixed order) and [`Ev::Sample`] (the end of an
//! interval: the run loop hands the model to the [`Emitter`]).
//!
//! **Writing**: [`Emitter`] (`emitter.rs`) writes the configuration set at the
//! start, then per interval the pending event records and one sample set. It
//! reads only the components' samples (`Storage::sample`, `Paging::sample`,
//! `Io::devices`, ...), never their fields; one file per record domain turns
//! samples into records: `system.rs` (SYTSYP, SYTPRP, PRCPRP, SYTUWT, SYTCUG,
//! SYTCUP; MTRSYS, MTRPRP, MTRSPR), `storage.rs` (SYTRSG, STORSG, SYTRSP, SYTXSP,
//! STORSP, SYTXSG, STOXSG; MTRMEM, MTRXSG), `paging.rs` (SYTASG, STOASP; MTRPAG),
//! `io.rs` (IODDEV; MTRDEV), `user.rs` (USEACT, USEINT, USELON, USELOF; MTRUSR),
//! `net.rs` (IODQDA, IODQDS, IODQDD: QDIO devices).
//! A new subsystem adds one file and its place in the set's order
//! (`Emitter::sample`). Counters are cumulative, as CP keeps them; 16- and
//! 32-bit fields wrap exactly as real ones do.

/// Field `name` of layout `l` (a `&'static RecordLayout`), found once per call
/// site: the samples set thousands of fields per interval, and finding each by
/// name every time was a visible share of a run. Each call site caches the
/// field for the first four layouts it meets (one per release written in the
/// process), and uses a cached field only for the layout it was found in.
macro_rules! fld {
    ($l:expr, $name:literal) => {{
        type Slot = std::sync::OnceLock<(usize, &'static ztwin_monitor::layout::FieldDef)>;
        static FOUND: [Slot; 4] = [const { Slot::new() }; 4];
        let l: &'static ztwin_monitor::layout::RecordLayout = $l;
        let key = l as *const ztwin_monitor::layout::RecordLayout as usize;
        let mut hit = None;
        for slot in &FOUND {
            let &(at, f) = slot.get_or_init(|| (key, l.f($name)));
            if at == key {
                hit = Some(f);
                break;
            }
        }
        match hit {
            Some(f) => f,
            None => l.f($name),
        }
    }};
}

pub mod emitter;
mod io;
mod linux;
mod net;
mod paging;
pub mod params;
mod segments;
mod storage;
mod system;
mod user;
mod vdisk;

pub use emitter::Emitter;

use crate::core::units::Ns;

/// Events of the monitor.
#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// High-frequency state sampling.
    Hf,
    /// End of a monitor sample interval.
    Sample,
}

/// Event records waiting for the next sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PendingEvent {
    Logon,
    Logoff,
}

/// The system as the configuration records describe it.
#[derive(Clone, Debug)]
pub struct SystemId {
    pub cp_level: String,
    pub system_id: String,
    pub cpu_model: String,
    pub lpar_name: String,
    /// CPU type code of the LPAR's processors (0 CP, 3 IFL).
    pub cpu_type: u64,
    pub central_storage: u64,
}

pub struct Monitor {
    pub sample_interval: Ns,
    pub hf_rate: Ns,
    pub id: SystemId,
    outbox: Vec<(PendingEvent, u32, Ns)>,
}

impl Monitor {
    /// The monitor of `p`, for system `id`.
    pub fn new(p: &params::Params, id: SystemId) -> Monitor {
        Monitor {
            sample_interval: p.sample_interval.0,
            hf_rate: p.hf_rate.0,
            id,
            outbox: Vec::new(),
        }
    }

    /// Guest `g` logged on or off at `at`: an event record for the next sample.
    pub fn event(&mut self, kind: PendingEvent, g: u32, at: Ns) {
        self.outbox.push((kind, g, at));
    }

    /// Take the pending event records, oldest first (the buffer is kept).
    pub(crate) fn take_events(&mut self) -> Vec<(PendingEvent, u32, Ns)> {
        std::mem::take(&mut self.outbox)
    }

    /// Give back the buffer [`Monitor::take_events`] took, emptied.
    pub(crate) fn return_events(&mut self, mut v: Vec<(PendingEvent, u32, Ns)>) {
        v.clear();
        self.outbox = v;
    }
}

/// TOD units per nanosecond is 4.096; durations are converted exactly via µs.
#[inline]
fn dur(ns: Ns) -> u64 {
    ns * 4096 / 1000
}
