//! The engine's core, shared by every component and knowing none of them:
//! simulated time and sizes ([`units`]), the event queue ([`queue`]), random
//! streams ([`rng`]), and the context a component works in ([`cx`]: the clock
//! and queue, the logical CPU doing the work and the CP time it costs).

pub mod cx;
pub mod queue;
pub mod rng;
pub mod units;

pub use cx::{Abend, Charge, Core, Cx};
