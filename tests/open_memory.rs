//! What opening a session holds at once: the window it builds and one piece of the body,
//! never the body beside the window (wasm memory never shrinks, so a tab would pay that for
//! good). Counted by the allocator of this test binary, natively.

#[path = "../benches/common/mod.rs"]
mod common;

use agent_session::core::client::{Input, Instant, Reply};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Counts live bytes and their high-water mark.
struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const PIECE: usize = 64 * 1024;

#[test]
fn a_streamed_tail_page_is_never_held_beside_the_window_it_becomes() {
    let text = common::body(20_000);
    let (mut c, call, text) = common::opening(&text);
    let now = Instant::from_ms(0.0);
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    for piece in text.as_bytes().chunks(PIECE) {
        c.handle_input(now, Input::ResponseBytes { call, bytes: piece.to_vec() });
    }
    c.handle_input(now, Input::Response { call, reply: Reply::Body(String::new()) });
    let (peak, resident) = (PEAK.load(Relaxed) - base, LIVE.load(Relaxed) - base);
    let s = c.session("s").expect("resident");
    assert_eq!(s.window().len(), 20_000, "every event arrived");
    // The window's last block (1024 events) is the largest piece of slack a run has.
    let slack = 2 * PIECE + 1024 * std::mem::size_of::<agent_session::core::wire::SessionEvent>();
    assert!(
        peak <= resident + slack,
        "high-water {peak} B while opening, {resident} B resident after: the body ({} B) was held beside the window",
        text.len()
    );
}
