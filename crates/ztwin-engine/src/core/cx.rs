//! The clock and queue every component shares ([`Core`]) and the context a
//! component's method works in ([`Cx`]): the core, the logical CPU the work is
//! done on (per-CPU counters are indexed by it) and the CP time it costs so far
//! ([`Charge`]).
//!
//! There is one queue for the whole model: ztwin is one sequential LPAR, and a
//! component schedules only events addressed to itself (`cx.at(d, io::Ev::..)`).
//! Whoever builds a `Cx` consumes its charge: a burst adds it to the burst's CP
//! and system time; an event handler owes it to the CPU's next burst.

use super::queue::EventQueue;
use super::units::Ns;

/// Why the simulated system stopped: a state CP itself would not survive
/// (e.g. PGT004, paging space exhausted). The first one raised wins.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Abend {
    pub at_ns: Ns,
    pub code: &'static str,
    pub reason: String,
}

/// Simulated time, the event queue, the end of the run and its first abend.
pub struct Core<E> {
    /// The time of the event being handled.
    pub now: Ns,
    /// The run stops before the first event after this time.
    pub end: Ns,
    pub q: EventQueue<E>,
    pub abend: Option<Abend>,
    /// Events handled so far.
    pub events: u64,
}

impl<E: Copy> Core<E> {
    /// An empty queue at time 0 for a run that ends at `end`.
    pub fn new(end: Ns) -> Core<E> {
        Core {
            now: 0,
            end,
            q: EventQueue::new(),
            abend: None,
            events: 0,
        }
    }

    /// Stop the run with `code` (the first abend raised wins).
    pub fn abend(&mut self, code: &'static str, reason: String) {
        if self.abend.is_none() {
            self.abend = Some(Abend {
                at_ns: self.now,
                code,
                reason,
            });
        }
    }
}

/// CP time a piece of work costs: `cp` on behalf of the guest being served,
/// `sys` not attributable to a guest (the demand scan, page-out I/O).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Charge {
    pub cp: Ns,
    pub sys: Ns,
}

/// What a component's method works in: the core, the logical CPU doing the
/// work and the CP time charged so far (read and consumed by whoever built it).
pub struct Cx<'a, E> {
    pub core: &'a mut Core<E>,
    pub cpu: u16,
    pub charge: Charge,
}

impl<'a, E: Copy> Cx<'a, E> {
    /// Work on logical CPU `cpu`, nothing charged yet.
    #[inline]
    pub fn new(core: &'a mut Core<E>, cpu: u16) -> Cx<'a, E> {
        Cx {
            core,
            cpu,
            charge: Charge::default(),
        }
    }

    /// A context for other work during this one (another CPU's burst), on the
    /// same core.
    #[inline]
    pub fn sub(&mut self, cpu: u16) -> Cx<'_, E> {
        Cx::new(self.core, cpu)
    }

    #[inline(always)]
    pub fn now(&self) -> Ns {
        self.core.now
    }

    /// Schedule `ev` at `now + d`.
    #[inline(always)]
    pub fn at(&mut self, d: Ns, ev: impl Into<E>) {
        let t = self.core.now + d;
        self.core.q.push(t, ev.into());
    }

    /// Stop the run with `code` (see [`Core::abend`]).
    pub fn abend(&mut self, code: &'static str, reason: String) {
        self.core.abend(code, reason)
    }
}
