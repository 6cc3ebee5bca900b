//! Releasing a session nobody watches: the window and everything built from it goes, the
//! session becomes `cold`, and `open()` rebuilds it from the host's log (the durable truth).
//!
//! What stays is what the window cannot give back and costs a few bytes: the identity and
//! counters that keep every fence monotonic across the release (request and operation ids,
//! revision stamps, the open generation, the plan-request fence and the host's plan dialect),
//! the pending approvals and questions (the host sends them on the live stream, not in a
//! history page), and the scalar status a `cold` snapshot still shows (title, running,
//! queue, last errors).

use super::fold::Fold;
use super::{Lifecycle, Session};

impl Session {
    /// Whether there is anything to release (an open, errored or loading session).
    pub fn is_releasable(&self) -> bool {
        !matches!(self.life, Lifecycle::Cold)
    }

    /// Drops the window, the folded nodes, buffered frames, projections and every pull in
    /// flight; the session is `cold` afterwards. Operations still waiting (there are none
    /// on a session nobody watches) settle as a `close` would settle them.
    pub fn release(&mut self) {
        if !self.is_releasable() {
            return;
        }
        // Results of anything sent for the old window are stale from here on: the open
        // generation moves, and `close` forgets every request in flight and settles what
        // still waits (its retries and buffered frames go with it).
        self.gen.bump();
        self.close();
        self.life = Lifecycle::Cold;
        self.window = Default::default();
        self.buffer = Default::default();
        self.has_more = false;
        self.repair_attempts = (-1, 0);
        let rev = self.stamps.next();
        self.fold = Fold::released(rev);
        self.projections.clear(rev);
        if self.plan.release() {
            self.plan_changed();
        }
        self.diag.releases += 1;
        self.dirty = true;
        self.meta_changed();
        self.flush();
    }
}
