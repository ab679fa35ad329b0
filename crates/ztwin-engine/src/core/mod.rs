//! The engine's core, shared by every component and knowing none of them:
//! simulated time and sizes ([`units`]), the event queue ([`queue`]), random
//! streams ([`rng`]), and the context a component works in ([`cx`]: the clock
//! and queue, the logical CPU doing the work and the CP time it costs).

pub mod cx;
pub mod queue;
pub mod rng;
pub mod units;

pub use cx::{Abend, Charge, Core, Cx};

/// A configuration value a component cannot accept: where (the key path in
/// the scenario, such as `system.central_storage`) and why. `scenario.rs`
/// adds the file name to make a `ScenarioError`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    pub place: String,
    pub reason: String,
}

impl Invalid {
    pub fn new(place: impl Into<String>, reason: impl Into<String>) -> Invalid {
        Invalid {
            place: place.into(),
            reason: reason.into(),
        }
    }
}

/// `Err(Invalid)` at `place` for `reason`.
pub fn invalid<T>(place: String, reason: String) -> Result<T, Invalid> {
    Err(Invalid { place, reason })
}

/// A CP cost in microseconds: finite, 0 to 100000 (`place` is its key).
pub fn check_cost_us(place: &str, us: f64) -> Result<(), Invalid> {
    if !(us.is_finite() && (0.0..=100_000.0).contains(&us)) {
        return invalid(
            place.into(),
            format!("{us}: must be 0 to 100000 microseconds"),
        );
    }
    Ok(())
}

/// Microseconds to ns, rounded.
pub fn us_to_ns(us: f64) -> units::Ns {
    (us * units::US as f64).round() as units::Ns
}
