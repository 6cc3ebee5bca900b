//! Live events held while no window can take them (loading, repairing, stale).

use crate::core::wire::SessionEvent;

/// Most frames held; past this (or [`MAX_BUFFERED_BYTES`]) the buffer is dropped and the
/// tail page (which holds them anyway) is pulled instead.
pub const MAX_BUFFERED: usize = 10_000;
/// Most bytes held (as [`SessionEvent::approx_bytes`] counts them): a host streaming large
/// frames while a tail page loads cannot grow one session past this.
pub const MAX_BUFFERED_BYTES: usize = 16 << 20;

/// Sorted by seq, one event per seq. Invariant: `len() <= MAX_BUFFERED` and
/// `bytes <= MAX_BUFFERED_BYTES` (plus the one event just inserted into an empty buffer).
///
/// A sorted `Vec` rather than a `BTreeMap` (KBs of wasm): frames arrive in order, so an insert
/// is a push at the end and a stitch drains a prefix at once.
#[derive(Debug, Default)]
pub struct LiveBuffer {
    events: Vec<SessionEvent>,
    bytes: usize,
}

/// What [`LiveBuffer::insert`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum Inserted {
    New,
    /// Replaced the event held at the same seq.
    Duplicate,
    /// The bound was reached: this many events were dropped first.
    Overflowed(usize),
}

impl LiveBuffer {
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }
    pub fn len(&self) -> usize {
        self.events.len()
    }
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.bytes
    }
    pub fn iter(&self) -> std::slice::Iter<'_, SessionEvent> {
        self.events.iter()
    }
    pub fn clear(&mut self) {
        self.events.clear();
        self.bytes = 0;
    }

    /// Takes the first `n` events out, in order.
    pub fn take_prefix(&mut self, n: usize) -> Vec<SessionEvent> {
        let rest = self.events.split_off(n.min(self.events.len()));
        let prefix = std::mem::replace(&mut self.events, rest);
        self.bytes -= prefix.iter().map(SessionEvent::approx_bytes).sum::<usize>();
        prefix
    }

    pub fn insert(&mut self, ev: SessionEvent) -> Inserted {
        let size = ev.approx_bytes();
        let mut at = self.events.binary_search_by_key(&ev.seq, |e| e.seq);
        let mut dropped = 0;
        if at.is_err() && (self.events.len() >= MAX_BUFFERED || self.bytes + size > MAX_BUFFERED_BYTES) {
            dropped = self.events.len();
            self.clear();
            at = Err(0);
        }
        match at {
            Ok(i) => {
                self.bytes = self.bytes - self.events[i].approx_bytes() + size;
                self.events[i] = ev;
                Inserted::Duplicate
            }
            Err(i) => {
                self.bytes += size;
                self.events.insert(i, ev);
                if dropped > 0 {
                    Inserted::Overflowed(dropped)
                } else {
                    Inserted::New
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(seq: u64, text_len: usize) -> SessionEvent {
        SessionEvent::new("x", seq, 1.0, json!({ "t": "a".repeat(text_len) }))
    }

    #[test]
    fn large_frames_while_loading_are_bounded_in_bytes_and_the_overflow_is_reported() {
        let mut b = LiveBuffer::default();
        let mut dropped = 0;
        for seq in 0..1_000 {
            if let Inserted::Overflowed(n) = b.insert(ev(seq, 1 << 20)) {
                dropped += n;
            }
            assert!(b.bytes() <= MAX_BUFFERED_BYTES + (2 << 20), "held {} bytes", b.bytes());
        }
        assert!(dropped > 900, "dropped {dropped}");
        assert_eq!(dropped + b.len(), 1_000, "every event is held or counted as dropped");
    }

    #[test]
    fn a_repeated_seq_replaces_and_a_prefix_leaves_the_bytes_of_the_rest() {
        let mut b = LiveBuffer::default();
        assert_eq!(b.insert(ev(5, 10)), Inserted::New);
        assert_eq!(b.insert(ev(3, 10)), Inserted::New);
        assert_eq!(b.insert(ev(5, 100)), Inserted::Duplicate);
        let seqs: Vec<u64> = b.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [3, 5]);
        let first = b.take_prefix(1);
        assert_eq!((first.len(), first[0].seq, b.len()), (1, 3, 1));
        assert_eq!(b.bytes(), ev(5, 100).approx_bytes());
        b.clear();
        assert_eq!((b.len(), b.bytes()), (0, 0));
    }
}
