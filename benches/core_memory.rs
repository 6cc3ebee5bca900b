//! Memory of opening a session (native core, no I/O): the bytes the allocator hands out at
//! the high-water mark while a tail page becomes a window, and what stays resident after,
//! next to the body's own size, and what the fold's part of it is. The wasm module's linear
//! memory never shrinks, so the high-water mark is what a tab pays. Three shapes of 100k
//! events: long streamed turns (200 nodes), a message every 40 events (5,000 nodes), and the
//! node-dense log where every event is its own message node. Prints figures; asserts only
//! that every event arrived.
//!
//! Run: `cargo bench --bench core_memory`

mod common;

use agent_session::core::client::{Input, Instant, Reply};
use agent_session::core::session::fold::Fold;
use agent_session::core::session::nodes::{Node, Stamps};
use agent_session::core::wire::{HistoryItem, SessionEvent};

#[path = "common/counting.rs"]
mod counting;

const MB: f64 = 1e6;

fn main() {
    println!(
        "core_memory: size_of SessionEvent {} B, HistoryItem {} B, Node {} B",
        std::mem::size_of::<SessionEvent>(),
        std::mem::size_of::<HistoryItem>(),
        std::mem::size_of::<Node>()
    );
    let shapes: [(&str, u64, Option<u64>); 4] = [
        ("1k, long turns", 1_000, None),
        ("100k, long turns", 100_000, None),
        ("100k, a message every 40", 100_000, Some(40)),
        ("100k, node-dense", 100_000, Some(2)),
    ];
    for (label, n, every) in shapes {
        let text = match every {
            None => common::body(n),
            Some(e) => common::seeded_body(n, e),
        };
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
        // The fold's share: the same window folded again, counted alone.
        let before = counting::start();
        let fold = Fold::rebuild(s.window(), &Fold::default(), &mut Stamps::default());
        let (_, folded) = counting::since(before);
        let nodes = s.nodes().len();
        assert_eq!(fold.nodes.len(), nodes);
        println!(
            "core_memory {label:>26}: body {:.1} MB | high-water during open {:.1} MB ({:.2}x the body) | resident after {:.1} MB ({:.2}x; {:.0} B per event), of which the fold {:.1} MB ({:.0} B per node) | {nodes} nodes",
            body_len as f64 / MB,
            peak as f64 / MB,
            peak as f64 / body_len as f64,
            resident as f64 / MB,
            resident as f64 / body_len as f64,
            resident as f64 / n as f64,
            folded as f64 / MB,
            folded as f64 / nodes.max(1) as f64,
        );
    }
}
