//! One kind of retry's state: its backoff and the one wake that may act (`retry` arms and
//! takes it for the session).

use super::io::WakeToken;

/// First retry delay; doubled per consecutive failure up to [`RETRY_CAP_MS`].
pub const RETRY_BASE_MS: u32 = 1_000;
pub const RETRY_CAP_MS: u32 = 30_000;
/// Renewals of a spent repair budget at one window tail before the repair is given up (so at
/// most `MAX_REPAIRS_PER_TAIL * (1 + MAX_REPAIR_ROUNDS)` tail pulls for a tail that never comes).
pub const MAX_REPAIR_ROUNDS: u32 = 3;
/// `repair_attempts.1` once the repair at that tail was given up.
pub(super) const REPAIR_GIVEN_UP: u32 = u32::MAX;

/// One kind of retry. Invariant: only the wake armed for the latest failure can act; any
/// other token (an earlier failure, a previous window generation, a closed session) is stale.
#[derive(Debug, Default)]
pub struct Retry {
    /// Consecutive failures since the last success (drives the backoff).
    pub(super) failures: u32,
    /// The wake that may act.
    pub(super) armed: Option<WakeToken>,
}

impl Retry {
    pub(super) fn delay_ms(&self) -> u32 {
        let doublings = self.failures.saturating_sub(1).min(16);
        RETRY_BASE_MS.saturating_mul(1 << doublings).min(RETRY_CAP_MS)
    }
    /// Forgets the armed wake (a new window asks by itself, or the session closed); returns
    /// it, for the driver to cancel.
    pub fn disarm(&mut self) -> Option<WakeToken> {
        self.armed.take()
    }
    pub fn succeeded(&mut self) {
        self.failures = 0;
    }
    pub fn is_armed(&self) -> bool {
        self.armed.is_some()
    }
    /// Consumes `token` if it is the armed one.
    pub(super) fn take(&mut self, token: WakeToken) -> bool {
        let hit = self.armed == Some(token);
        if hit {
            self.armed = None;
        }
        hit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backoff_doubles_from_one_second_and_caps_at_thirty() {
        let mut r = Retry::default();
        let delays: Vec<u32> = (0..8)
            .map(|_| {
                r.failures += 1;
                r.delay_ms()
            })
            .collect();
        assert_eq!(delays, [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
        r.failures = u32::MAX;
        assert_eq!(r.delay_ms(), RETRY_CAP_MS);
    }
}
