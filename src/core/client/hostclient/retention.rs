//! The host client's side of the retention rule ([`crate::core::client::retention`]): who is
//! watched (listeners the shell reports, operations waiting here), when to sweep, and the one
//! sweep timer.

use super::client::*;

impl HostClient {
    /// The sessions with an operation waiting to settle (they count as watched; an id may
    /// appear more than once).
    pub(super) fn busy(&self) -> Vec<String> {
        let mut busy = Vec::new();
        for (s, _) in self.waits.keys() {
            busy.push(s.clone());
        }
        // A session whose outbox holds an undelivered prompt stays resident.
        for (id, s) in self.router.sessions_mut_ref() {
            if s.outbox().undelivered() > 0 {
                busy.push(id.clone());
            }
        }
        busy
    }

    /// The shell's listeners for `session` went from none to some, or back.
    pub(super) fn on_watch(&mut self, session: &str, listeners: bool) {
        if self.is_closed() {
            return;
        }
        self.router.ensure(session);
        self.router.set_listeners(session, listeners);
        if listeners {
            let live = self.conn.is_established();
            self.router.watched(session, live);
        }
        self.sweep_due = true;
    }

    /// Applies the retention rule now and arms the one sweep timer for the next deadline.
    pub(super) fn sweep(&mut self) {
        if self.is_closed() {
            return;
        }
        let busy = self.busy();
        let live = self.conn.is_established();
        let next = self.router.sweep(self.now, &busy, self.cfg.retention, live);
        self.timers.set_or_cancel(Timer::Sweep, next);
    }
}
