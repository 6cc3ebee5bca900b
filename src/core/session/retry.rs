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
use super::retry_state::{Retry, MAX_REPAIR_ROUNDS, REPAIR_GIVEN_UP};
use super::{OpenState, Session};

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

    /// The outbox met a transport failure: it tries again on the wake (or a new connection).
    pub(super) fn arm_outbox(&mut self) {
        self.arm(|s| &mut s.outbox.retry);
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
        if self.outbox.retry.take(token) {
            self.outbox_wake();
        } else if self.selection_wait_over(token) {
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
