//! The window: installing a tail page as a replacement window, stitching buffered live
//! frames onto it, appending live events, prepending older pages, and gap repair.

use super::fold::{Fold, Touched};
use super::io::{Call, Outcome};
use super::live_buffer::Inserted;
use super::nodes::NodeKind;
use super::page::Page;
use super::{Freshness, Lifecycle, OpenState, Purpose, Session, MAX_REPAIRS_PER_TAIL};
use crate::core::wire::SessionEvent;

impl Session {
    /// Installs a tail page as the whole window (open, resync, repair), then stitches the
    /// buffered frames onto it.
    pub(super) fn install_window(&mut self, page: Page) {
        let previous_tail = self.tail_seq();
        // The run the page was read into becomes the window as it is.
        let events = page.events;
        if let Some(req) = self.older_in_flight() {
            // The page it asked for abutted the old window, not this one.
            self.inflight.remove(&req);
            for op in std::mem::take(&mut self.older_waiters) {
                self.settle(op, Outcome::Done);
            }
        }
        let new_tail = events.last().map_or(-1, SessionEvent::seq);
        if new_tail < previous_tail && self.life.tag() == OpenState::Open {
            // The host's log went backwards (it lost part of it): its seq space restarted.
            self.plan.forget_commits();
        }
        self.fold = Fold::rebuild(&events, &self.fold, &mut self.stamps);
        self.window = events;
        self.land_from_window();
        self.has_more = page.has_more;
        if let Some(b) = page.projections {
            self.projections.apply_baseline(b.as_of_seq, &b.values, self.stamps.next());
            self.note_dialect(&b.values);
        }
        if let Some((seq, active)) = self.fold.newest_plan() {
            // Whether the window shows every commit after the previous one observed.
            let prev = self.plan.version().0;
            let covers = self.base_seq() <= prev.map_or(0, |p| p.saturating_add(1));
            let newer = self.fold.plan_commits.iter().filter(|(s, _)| prev.is_none_or(|p| *s > p)).count();
            self.commit_plan(seq, active, covers && newer == 1);
        }
        if let Some(running) = self.fold.turn_open {
            self.running = running;
        }
        let rev = self.stamps.next();
        self.pending.drop_unconfirmed(rev);
        self.life = Lifecycle::Open(Freshness::Live);
        self.dirty = true;
        self.meta_changed();
        self.stitch();
    }

    /// Applies buffered frames that continue the window, drops the ones it already holds,
    /// and starts a repair if a gap (or the subscribed tail) is still ahead.
    pub(super) fn stitch(&mut self) {
        // The buffer is sorted with one event per seq, so what continues (or repeats) the
        // window is a prefix: found from the seqs alone, then drained at once.
        let mut tail = self.tail_seq();
        let run = self
            .buffer
            .iter()
            .take_while(|ev| {
                if ev.seq() == tail + 1 {
                    tail += 1;
                }
                ev.seq() <= tail
            })
            .count();
        if run > 0 {
            for ev in self.buffer.take_prefix(run) {
                if ev.seq() <= self.tail_seq() {
                    self.diag.duplicate_events += 1;
                } else {
                    self.append(ev);
                }
            }
        }
        self.maybe_repair();
    }

    /// Whether the window is known to be behind the host: a buffered frame past a gap, or
    /// a subscribed `lastSeq` past the tail.
    fn behind(&self) -> bool {
        !self.buffer.is_empty() || self.host_last_seq.is_some_and(|last| last > self.tail_seq())
    }

    pub(super) fn maybe_repair(&mut self) {
        if !self.life.is_live() || self.repair_in_flight().is_some() {
            return;
        }
        if !self.behind() {
            self.repair_retry.succeeded();
            return;
        }
        let tail = self.tail_seq();
        if self.repair_attempts.0 != tail {
            self.repair_attempts = (tail, 0);
        }
        if self.repair_attempts.1 >= MAX_REPAIRS_PER_TAIL {
            // Spent: the tail moving renews the budget, and so does a wake after a backoff
            // (an idle session would otherwise stay behind), a bounded number of times.
            self.repair_budget_spent();
            return;
        }
        self.repair_attempts.1 += 1;
        self.diag.repairs += 1;
        let purpose = Purpose::Repair { gen: self.gen };
        self.send(Call::History { before_seq: None, max_messages: None }, purpose);
    }

    /// Appends one event that continues the window (seq == tail + 1), folding it in O(1).
    pub(super) fn append(&mut self, ev: SessionEvent) {
        let touched: Touched = self.fold.apply(&ev, &mut self.stamps);
        let seq = ev.seq();
        self.window.push(ev);
        if touched.nodes && !self.outbox.is_empty() {
            if let Some(NodeKind::User { client_id: Some(id), .. }) = self.fold.nodes.last().map(|n| &n.kind) {
                let id = id.clone();
                self.landed(&id);
            }
        }
        if let Some(active) = touched.plan_commit {
            self.commit_plan(seq, active, true);
        }
        if let Some(running) = touched.turn_running {
            self.running = running;
        }
        self.plan_retry_on_event();
        self.dirty = true;
        self.meta_changed();
    }

    /// A live event from the mux.
    pub(super) fn on_live_event(&mut self, ev: SessionEvent) {
        self.note_command_done(&ev);
        match self.life {
            Lifecycle::Cold | Lifecycle::Error(_) => {
                self.diag.events_while_closed += 1;
                return;
            }
            Lifecycle::Loading | Lifecycle::Open(Freshness::Stale | Freshness::Resyncing) => {
                return self.buffer_event(ev)
            }
            Lifecycle::Open(Freshness::Live) => {}
        }
        let tail = self.tail_seq();
        let seq = ev.seq();
        if seq <= tail {
            self.diag.duplicate_events += 1;
        } else if seq == tail + 1 {
            self.append(ev);
            if !self.buffer.is_empty() {
                self.stitch();
            }
        } else {
            self.buffer_event(ev);
            self.maybe_repair();
        }
    }

    fn buffer_event(&mut self, ev: SessionEvent) {
        match self.buffer.insert(ev) {
            Inserted::New => {}
            Inserted::Duplicate => self.diag.duplicate_events += 1,
            // The tail page holds all of these; keep memory bounded and let it bring them.
            Inserted::Overflowed(n) => self.diag.buffer_overflows += n as u64,
        }
    }

    /// An older page: prepended only if it ends exactly at `baseSeq - 1`.
    pub(super) fn prepend_page(&mut self, page: Page) {
        let base = self.base_seq();
        // `base >= 0` and seqs are at most 2^53 - 1 (`SessionEvent::seq`): no overflow.
        let abuts = page.events.last().is_some_and(|e| e.seq() == base - 1);
        if !abuts {
            self.diag.rejected_pages += 1;
            self.has_more = false;
            self.meta_changed();
            return;
        }
        self.fold = Fold::prepend(&page.events, &self.window, &self.fold, &mut self.stamps);
        // In front of the run: its blocks move, no event does.
        self.window.prepend(page.events);
        self.has_more = page.has_more;
        self.dirty = true;
        self.meta_changed();
    }
}
