//! The core's one notion of time: a point on the driver's *monotonic* clock.
//!
//! Why monotonic: a wall clock steps (NTP, the user, a laptop waking), and every deadline
//! computed from it moves with it; when the shell read `Date.now()`, a clock set back by an
//! hour made the next reconnect wait an extra hour. The shell reads `performance.now()`, the
//! simulation and the native tests a counter; only differences between instants matter.

/// A point on the driver's monotonic clock, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
pub struct Instant(f64);

impl Instant {
    /// The instant `ms` milliseconds after the clock's origin.
    pub fn from_ms(ms: f64) -> Instant {
        Instant(ms)
    }
    /// Milliseconds since the clock's origin.
    pub fn as_ms(self) -> f64 {
        self.0
    }
    /// The instant `ms` later.
    pub fn after_ms(self, ms: f64) -> Instant {
        Instant(self.0 + ms)
    }
    /// The earlier of two instants.
    pub fn min(self, other: Instant) -> Instant {
        if other.0 < self.0 {
            other
        } else {
            self
        }
    }
}
