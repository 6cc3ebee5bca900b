//! Asking a failed plan query again.
//!
//! Why: a `session.planMode` query that fails (a 5xx, a timeout) used to be re-asked only when
//! the next live event arrived, so an idle session showed its last plan state indefinitely.
//! Now a failure also arms a wake-up with capped exponential backoff; whichever comes first —
//! the wake or a live event — asks again. Backoff, not an immediate retry, so a failing
//! network cannot turn it into a loop.

use super::io::{Effect, WakeToken};
use super::{OpenState, Session};

/// First retry delay; doubled per consecutive failure up to [`RETRY_CAP_MS`].
pub const RETRY_BASE_MS: u32 = 1_000;
pub const RETRY_CAP_MS: u32 = 30_000;

/// A failed plan query waiting to be asked again. Invariant: only the wake armed for the
/// latest failure of the current window generation can send a query; any other is stale.
#[derive(Debug, Default)]
pub struct PlanRetry {
    /// Asked again on the next live event or the armed wake, whichever comes first.
    due: bool,
    /// Consecutive failures since the last answered query (drives the backoff).
    failures: u32,
    /// The wake that may send the retry.
    armed: Option<WakeToken>,
    minted: u64,
}

impl PlanRetry {
    fn delay_ms(&self) -> u32 {
        let doublings = self.failures.saturating_sub(1).min(16);
        RETRY_BASE_MS.saturating_mul(1 << doublings).min(RETRY_CAP_MS)
    }
}

impl Session {
    /// A plan query failed: ask again later.
    pub(super) fn plan_query_failed(&mut self) {
        let r = &mut self.plan_retry;
        r.due = true;
        r.failures += 1;
        r.minted += 1;
        let token = WakeToken(r.minted);
        r.armed = Some(token);
        let after_ms = r.delay_ms();
        self.effects.push_back(Effect::Wake { token, after_ms });
    }

    /// A plan query was answered: the backoff starts over.
    pub(super) fn plan_query_answered(&mut self) {
        self.plan_retry.failures = 0;
    }

    /// A new window generation asks its own query: nothing is due any more.
    pub(super) fn plan_retry_reset(&mut self) {
        self.plan_retry.due = false;
        self.plan_retry.armed = None;
    }

    /// Sends the due retry now (a live event showed the stream is alive).
    pub(super) fn plan_retry_on_event(&mut self) {
        if std::mem::take(&mut self.plan_retry.due) {
            self.plan_retry.armed = None;
            self.send_plan_query();
        }
    }

    /// The driver's timer for `token` fired. Stale tokens, and sessions no longer open,
    /// do nothing.
    pub fn on_wake(&mut self, token: WakeToken) {
        if self.plan_retry.armed != Some(token) {
            return;
        }
        self.plan_retry.armed = None;
        if self.state == OpenState::Open && std::mem::take(&mut self.plan_retry.due) {
            self.send_plan_query();
        }
    }

    /// Whether a failed plan query is waiting to be asked again (tests, diagnostics).
    pub fn plan_retry_due(&self) -> bool {
        self.plan_retry.due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backoff_doubles_from_one_second_and_caps_at_thirty() {
        let mut r = PlanRetry::default();
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
