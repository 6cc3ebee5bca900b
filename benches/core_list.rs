//! The live session list under a flood of `host/session-added` frames (native core, no I/O):
//! 100k sessions added one frame each, newest first (each goes to the list's old end), oldest
//! first (each to its new end) and in a shuffled order, next to the floor of a 100k-session
//! `session.list` seed taken in one go. Prints figures; asserts only that every session is
//! listed.
//!
//! Run: `cargo bench --bench core_list`

use agent_session::core::client::SessionList;
use agent_session::core::wire::{Frame, SessionAddedFrame, SessionSummary};
use std::time::Instant;

const SESSIONS: usize = 100_000;

fn added(i: usize, at: f64) -> Frame {
    Frame::SessionAdded(SessionAddedFrame { session_id: format!("s{i}"), updated_at: Some(at), ..Default::default() })
}

/// Milliseconds to apply `frames` to a fresh list, in order.
fn flood(frames: &[Frame]) -> f64 {
    let mut l = SessionList::default();
    l.begin(1);
    let t = Instant::now();
    for f in frames {
        l.on_frame(f);
    }
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    assert_eq!(l.items().len(), frames.len());
    ms
}

fn main() {
    let n = SESSIONS;
    let seed: Vec<SessionSummary> = (0..n)
        .map(|i| SessionSummary {
            session_id: format!("s{i}"),
            updated_at: (n - i) as f64,
            running: false,
            parent_session_id: None,
            cwd: None,
            origin: None,
            title: None,
            waiting: None,
            projections: None,
        })
        .collect();
    let floor = {
        let mut l = SessionList::default();
        l.begin(1);
        let t = Instant::now();
        l.seed(1, Ok(seed));
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        assert_eq!(l.items().len(), n);
        ms
    };
    let falling: Vec<Frame> = (0..n).map(|i| added(i, (n - i) as f64)).collect();
    let rising: Vec<Frame> = (0..n).map(|i| added(i, i as f64)).collect();
    // A fixed shuffle (an LCG's order of the indices): no two runs differ.
    let mut order: Vec<usize> = (0..n).collect();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in (1..n).rev() {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        order.swap(i, (x >> 33) as usize % (i + 1));
    }
    let shuffled: Vec<Frame> = order.iter().map(|&i| added(i, i as f64)).collect();
    println!("core_list: a {n}-session seed (the floor): {floor:.1} ms");
    for (label, frames) in [("newest first", &falling), ("oldest first", &rising), ("shuffled", &shuffled)] {
        let ms = flood(frames);
        println!(
            "core_list: {n} host/session-added frames, {label}: {ms:.1} ms ({:.2} us per frame, {:.1}x the seed)",
            ms * 1000.0 / n as f64,
            ms / floor
        );
    }
}
