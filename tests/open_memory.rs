//! What opening a session holds at once: the window it builds and one piece of the body,
//! never the body beside the window (wasm memory never shrinks, so a tab would pay that for
//! good). Counted by the allocator of this test binary, natively.

// The benches' other logs are not opened here.
#[allow(dead_code)]
#[path = "../benches/common/mod.rs"]
mod common;

use agent_session::core::client::{Input, Instant, Reply};

#[path = "../benches/common/counting.rs"]
mod counting;

const PIECE: usize = 64 * 1024;

#[test]
fn a_streamed_tail_page_is_never_held_beside_the_window_it_becomes() {
    let text = common::body(20_000);
    let (mut c, call, text) = common::opening(&text);
    let now = Instant::from_ms(0.0);
    let base = counting::start();
    for piece in text.as_bytes().chunks(PIECE) {
        c.handle_input(now, Input::ResponseBytes { call, bytes: piece.to_vec() });
    }
    c.handle_input(now, Input::Response { call, reply: Reply::Body(String::new()) });
    let (peak, resident) = counting::since(base);
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
