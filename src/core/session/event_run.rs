//! The window's events: one contiguous run of the host's log, with room kept in front.
//!
//! Why: paging prepends an older page to the window. In a plain `Vec` that moves the whole
//! window every page, so paging back through a long session was quadratic in memory moves.
//! Here the run sits at the back of its buffer behind a stretch of empty placeholders; a
//! page fills the placeholders in front of it, and when there is no room left the room is
//! grown to at least the run's length, so each event is moved O(1) times on average.

use crate::core::wire::SessionEvent;
use std::ops::Deref;

/// The capacity for a run of `len` events with room to grow: a quarter more, at least 256.
pub fn with_room(len: usize) -> usize {
    len + (len / 4).max(256)
}

#[derive(Debug, Default)]
pub struct EventRun {
    /// `buf[..start]` are empty placeholders; the run is `buf[start..]`.
    buf: Vec<SessionEvent>,
    start: usize,
}

impl EventRun {
    /// A run of exactly `events` (room for growth at the back is the `Vec`'s own).
    pub fn new(events: Vec<SessionEvent>) -> EventRun {
        EventRun { buf: events, start: 0 }
    }

    /// Appends one event after the run's tail. Full, the buffer grows by a quarter (not the
    /// `Vec`'s doubling): a long window's memory stays close to its length, still amortised
    /// O(1) per event.
    pub fn push(&mut self, event: SessionEvent) {
        if self.buf.len() == self.buf.capacity() {
            self.buf.reserve_exact(with_room(self.buf.len()) - self.buf.len());
        }
        self.buf.push(event);
    }

    /// Puts `events` (older, in order) in front of the run.
    pub fn prepend(&mut self, events: Vec<SessionEvent>) {
        let n = events.len();
        if n > self.start {
            let len = self.buf.len() - self.start;
            let room = n.max(len);
            let mut buf = Vec::with_capacity(room + with_room(len));
            buf.resize_with(room, SessionEvent::default);
            buf.extend(self.buf.drain(self.start..));
            self.buf = buf;
            self.start = room;
        }
        let at = self.start - n;
        for (slot, event) in self.buf[at..self.start].iter_mut().zip(events) {
            *slot = event;
        }
        self.start = at;
    }
}

impl Deref for EventRun {
    type Target = [SessionEvent];
    fn deref(&self) -> &[SessionEvent] {
        &self.buf[self.start..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(seq: u64) -> SessionEvent {
        SessionEvent { seq, kind: "x".into(), ..SessionEvent::default() }
    }

    #[test]
    fn prepending_pages_keeps_one_ordered_run_and_moves_each_event_rarely() {
        let mut run = EventRun::new((1000..1010).map(ev).collect());
        run.push(ev(1010));
        let mut regrowths = 0;
        let mut base = 1000;
        while base > 0 {
            let before = run.buf.capacity();
            run.prepend((base - 10..base).map(ev).collect());
            regrowths += usize::from(run.buf.capacity() != before);
            base -= 10;
        }
        let seqs: Vec<u64> = run.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, (0..=1010).collect::<Vec<_>>());
        assert!(regrowths <= 8, "the room doubles: {regrowths} regrowths for 100 pages");
        run.prepend(Vec::new());
        assert_eq!(run.len(), 1011);
    }
}
