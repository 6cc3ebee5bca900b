//! The window's events: one contiguous run of the host's log, kept in blocks.
//!
//! Why blocks: a window is built one event at a time as a history page streams in, grows
//! at its tail with every live event and at its head with every older page. In one `Vec`
//! each of those grew by reallocation, and the copy beside the original was the memory
//! high-water mark (1.5–2× the window; wasm memory never shrinks, so a tab paid it for
//! good), and prepending moved the whole window. In blocks of at most `BLOCK` events, a
//! push fills the last block, a page's blocks go in front as they are, and nothing is moved
//! or copied twice.

use crate::core::wire::SessionEvent;

/// Events per block: 1024 events are ~80 KB on wasm32, small against a window that needs
/// blocks at all, and large enough that walking the blocks costs nothing.
pub const BLOCK: usize = 1024;

/// A contiguous run of events, oldest first. Invariant: no block is empty.
#[derive(Default)]
pub struct EventRun {
    /// A `Vec`, not a deque: a page's blocks go in front by one move of the block list
    /// (a hundred pointers for a 100k window), and a deque's code is not worth that.
    blocks: Vec<Vec<SessionEvent>>,
    len: usize,
}

impl EventRun {
    /// Appends one event after the run's tail: into the last block while it has fewer than
    /// `BLOCK` events, else into a new block. A run's first block starts at 16 and doubles
    /// (so exactly up to `BLOCK`); later ones are made whole.
    pub fn push(&mut self, event: SessionEvent) {
        match self.blocks.last_mut() {
            Some(last) if last.len() < BLOCK => last.push(event),
            _ => {
                let mut block = Vec::with_capacity(if self.len < BLOCK { 16 } else { BLOCK });
                block.push(event);
                self.blocks.push(block);
            }
        }
        self.len += 1;
    }

    /// Puts `older` (the run just before this one) in front: its blocks move, no event does.
    pub fn prepend(&mut self, older: EventRun) {
        self.len += older.len;
        let mut blocks = older.blocks;
        blocks.append(&mut self.blocks);
        self.blocks = blocks;
    }

    /// The number of events.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the run holds no event.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The oldest event.
    pub fn first(&self) -> Option<&SessionEvent> {
        self.blocks.first().and_then(|b| b.first())
    }

    /// The newest event.
    pub fn last(&self) -> Option<&SessionEvent> {
        self.blocks.last().and_then(|b| b.last())
    }

    /// Event `i` (0 = the oldest); walks the blocks, so for tests and rare reads.
    pub fn get(&self, mut i: usize) -> Option<&SessionEvent> {
        for b in &self.blocks {
            match b.get(i) {
                Some(ev) => return Some(ev),
                None => i -= b.len(),
            }
        }
        None
    }

    /// A copy of the events in one list (tests, and reads that want a slice).
    pub fn to_vec(&self) -> Vec<SessionEvent> {
        self.iter().cloned().collect()
    }

    /// The events, oldest first.
    pub fn iter(&self) -> Events<'_> {
        Events { blocks: self.blocks.iter(), block: [].iter() }
    }
}

/// The events of a run, oldest first: block by block (a `flat_map` is more code for the same
/// walk, as it can also walk from the back).
#[derive(Clone)]
pub struct Events<'a> {
    blocks: std::slice::Iter<'a, Vec<SessionEvent>>,
    block: std::slice::Iter<'a, SessionEvent>,
}

impl<'a> Iterator for Events<'a> {
    type Item = &'a SessionEvent;
    fn next(&mut self) -> Option<&'a SessionEvent> {
        loop {
            if let Some(ev) = self.block.next() {
                return Some(ev);
            }
            self.block = self.blocks.next()?.iter();
        }
    }
}

impl std::fmt::Debug for EventRun {
    /// The seqs it spans (a 100k window printed whole helps nobody).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.first(), self.last()) {
            (Some(a), Some(b)) => write!(f, "events {}..={}", a.seq, b.seq),
            _ => f.write_str("no events"),
        }
    }
}

impl<'a> IntoIterator for &'a EventRun {
    type Item = &'a SessionEvent;
    type IntoIter = Events<'a>;
    fn into_iter(self) -> Events<'a> {
        self.iter()
    }
}

impl std::ops::Index<usize> for EventRun {
    type Output = SessionEvent;
    fn index(&self, i: usize) -> &SessionEvent {
        self.get(i).unwrap_or_else(|| panic!("event {i} of a run of {}", self.len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(seq: u64) -> SessionEvent {
        SessionEvent { seq, kind: "x".into(), ..SessionEvent::default() }
    }

    fn run(seqs: std::ops::Range<u64>) -> EventRun {
        let mut r = EventRun::default();
        for s in seqs {
            r.push(ev(s));
        }
        r
    }

    #[test]
    fn prepending_pages_keeps_one_ordered_run_and_moves_no_event() {
        let mut window = run(5000..5010);
        window.push(ev(5010));
        let mut base = 5000;
        while base > 0 {
            let page = run(base - 50..base);
            let first = page.first().map(|e| e as *const SessionEvent);
            window.prepend(page);
            // The page's events are where the page built them.
            assert_eq!(window.first().map(|e| e as *const SessionEvent), first);
            base -= 50;
        }
        let seqs: Vec<u64> = window.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, (0..=5010).collect::<Vec<_>>());
        assert_eq!(window.len(), 5011);
        assert_eq!((window[0].seq, window[4999].seq, window.get(5011).map(|e| e.seq)), (0, 4999, None));
        window.prepend(EventRun::default());
        assert_eq!(window.len(), 5011);
    }

    #[test]
    fn a_long_run_is_blocks_of_at_most_1024_filled_in_order() {
        let r = run(0..5000);
        assert!(r.blocks.iter().all(|b| !b.is_empty() && b.len() <= BLOCK && b.capacity() <= BLOCK));
        assert_eq!(r.blocks.len(), 5);
        assert_eq!(r.iter().last().map(|e| e.seq), Some(4999));
        assert_eq!(r.last().map(|e| e.seq), Some(4999));
    }
}
