//! Memory of opening a session (native core, no I/O): the bytes the allocator hands out at
//! the high-water mark while a tail page becomes a window, and what stays resident after,
//! next to the body's own size. The wasm module's linear memory never shrinks, so the
//! high-water mark is what a tab pays. Prints figures; asserts only that every event arrived.
//!
//! Run: `cargo bench --bench core_memory`

mod common;

use agent_session::core::client::{Input, Instant, Reply};
use agent_session::core::wire::{HistoryItem, SessionEvent};

#[path = "common/counting.rs"]
mod counting;

const MB: f64 = 1e6;

fn main() {
    println!(
        "core_memory: size_of SessionEvent {} B, HistoryItem {} B",
        std::mem::size_of::<SessionEvent>(),
        std::mem::size_of::<HistoryItem>()
    );
    for n in [1_000u64, 100_000] {
        let text = common::body(n);
        let body_len = text.len();
        let (mut c, call, text) = common::opening(&text);
        let now = Instant::from_ms(0.0);
        // The body is the driver's (JS memory in a browser): counted from here, it streams
        // in as the shell hands it over, in fetch-sized pieces, each the core's copy.
        let base = counting::start();
        for piece in text.as_bytes().chunks(64 * 1024) {
            c.handle_input(now, Input::ResponseBytes { call, bytes: piece.to_vec() });
        }
        c.handle_input(now, Input::Response { call, reply: Reply::Body(String::new()) });
        let (peak, resident) = counting::since(base);
        drop(text);
        let s = c.session("s").expect("resident");
        assert_eq!(s.window().len(), n as usize);
        println!(
            "core_memory {:>7} events: body {:.1} MB | high-water during open {:.1} MB ({:.2}x the body; it streams in by 64 KB) | resident after {:.1} MB ({:.2}x) | {} nodes",
            n,
            body_len as f64 / MB,
            peak as f64 / MB,
            peak as f64 / body_len as f64,
            resident as f64 / MB,
            resident as f64 / body_len as f64,
            s.nodes().len()
        );
    }
}
