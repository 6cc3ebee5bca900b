//! Asking again after a failure, on a wake-up the driver times.
//!
//! Why: two things used to wait for the next live event to be retried, so an idle session
//! could stay wrong indefinitely: a `session.planMode` query that failed (a 5xx, a timeout),
//! and a gap repair whose per-tail budget ran out. Each now also arms a wake-up with capped
//! exponential backoff (1 s doubling to 30 s); whichever comes first — the wake or a live
//! event — asks again. Backoff, not an immediate retry, so a failing network cannot turn
//! either into a loop. The core has no clock: it emits [`Effect::Wake`] and the driver calls
//! [`Session::on_wake`] with the token when the delay has passed.

use super::io::{Effect, WakeToken};
use super::{OpenState, Session};

/// First retry delay; doubled per consecutive failure up to [`RETRY_CAP_MS`].
pub const RETRY_BASE_MS: u32 = 1_000;
pub const RETRY_CAP_MS: u32 = 30_000;
/// Renewals of a spent repair budget at one window tail before the repair is given up (so at
/// most `MAX_REPAIRS_PER_TAIL * (1 + MAX_REPAIR_ROUNDS)` tail pulls for a tail that never comes).
pub const MAX_REPAIR_ROUNDS: u32 = 3;
/// `repair_attempts.1` once the repair at that tail was given up.
const REPAIR_GIVEN_UP: u32 = u32::MAX;

/// One kind of retry. Invariant: only the wake armed for the latest failure can act; any
/// other token (an earlier failure, a previous window generation, a closed session) is stale.
#[derive(Debug, Default)]
pub struct Retry {
    /// Consecutive failures since the last success (drives the backoff).
    failures: u32,
    /// The wake that may act.
    armed: Option<WakeToken>,
}

impl Retry {
    fn delay_ms(&self) -> u32 {
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
    fn take(&mut self, token: WakeToken) -> bool {
        let hit = self.armed == Some(token);
        if hit {
            self.armed = None;
        }
        hit
    }
}

impl Session {
    /// Arms a wake for `which` after one more failure.
    fn arm(&mut self, which: fn(&mut Session) -> &mut Retry) {
        self.wakes_minted += 1;
        let token = WakeToken(self.wakes_minted);
        let r = which(self);
        r.failures += 1;
        let replaced = r.armed.replace(token);
        let after_ms = r.delay_ms();
        self.unwake(replaced);
        self.effects.push_back(Effect::Wake { token, after_ms });
    }

    /// Asks the driver to cancel a wake that is no longer wanted.
    fn unwake(&mut self, token: Option<WakeToken>) {
        if let Some(token) = token {
            self.effects.push_back(Effect::Unwake { token });
        }
    }

    /// A plan query failed: ask again on the next live event or the wake.
    pub(super) fn plan_query_failed(&mut self) {
        self.plan_requery = true;
        self.arm(|s| &mut s.plan_retry);
    }

    /// The repair budget for this tail ran out while the window is still behind. After
    /// [`MAX_REPAIR_ROUNDS`] renewals the host's claim (a `lastSeq` past what its tail pages
    /// bring, or frames past a gap it never fills) is given up until the tail moves or a new
    /// window generation starts: the frames held for it are dropped and it is counted.
    pub(super) fn repair_budget_spent(&mut self) {
        if self.repair_retry.failures >= MAX_REPAIR_ROUNDS || self.repair_attempts.1 == REPAIR_GIVEN_UP {
            if self.repair_attempts.1 != REPAIR_GIVEN_UP {
                self.diag.unreached_tails += 1;
                self.repair_attempts.1 = REPAIR_GIVEN_UP;
            }
            self.repair_retry.disarm();
            self.diag.buffer_overflows += self.buffer.len() as u64;
            self.buffer.clear();
            self.host_last_seq = None;
            return;
        }
        if !self.repair_retry.is_armed() {
            self.arm(|s| &mut s.repair_retry);
        }
    }

    /// A new window generation: it asks its own plan query and repairs from its own tail.
    pub(super) fn retries_reset(&mut self) {
        self.plan_requery = false;
        let plan = self.plan_retry.disarm();
        self.unwake(plan);
        let repair = self.repair_retry.disarm();
        self.unwake(repair);
        self.repair_retry.succeeded();
        self.repair_attempts = (-1, 0);
    }

    /// Sends the due plan query now (a live event showed the stream is alive).
    pub(super) fn plan_retry_on_event(&mut self) {
        if std::mem::take(&mut self.plan_requery) {
            let armed = self.plan_retry.disarm();
            self.unwake(armed);
            self.send_plan_query();
        }
    }

    /// The driver's timer for `token` fired. Stale tokens, and sessions no longer open,
    /// do nothing.
    pub fn on_wake(&mut self, token: WakeToken) {
        let open = self.life.tag() == OpenState::Open;
        if self.selection_wait_over(token) {
            // A `/plan` selection settled at its bound (see `commands`).
        } else if self.plan_retry.take(token) {
            if open && std::mem::take(&mut self.plan_requery) {
                self.send_plan_query();
            }
        } else if self.repair_retry.take(token) && open {
            // A fresh budget for the same tail.
            self.repair_attempts.1 = 0;
            self.maybe_repair();
        }
        self.flush();
    }

    /// Whether a failed plan query is waiting to be asked again (tests, diagnostics).
    pub fn plan_retry_due(&self) -> bool {
        self.plan_requery
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
