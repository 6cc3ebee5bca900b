//! Opening a session from one tail page (native core, no I/O): where the time goes between
//! the response body and an installed window, next to parsing the same body into a
//! `serde_json::Value` (the native stand-in for the browser's `JSON.parse` floor).
//! Prints figures; asserts only that every event arrived.
//!
//! Three shapes of 100k events besides 1k: long streamed turns (200 nodes), a message every
//! 40 events (5,000 nodes) and the node-dense log (every event its own message node).
//!
//! Run: `cargo bench --bench core_open`

mod common;

use agent_session::core::client::{Input, Instant, Reply};
use agent_session::core::wire::{self, HistoryValue, ResponseForm};
use std::time::Instant as Clock;

fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..runs {
        let t = Clock::now();
        let r = f();
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
        out = Some(r);
    }
    (best, out.expect("runs > 0"))
}

/// The whole client path: an established client, `open`, the tail page answered.
fn open(text: &str) -> usize {
    let (mut c, call, text) = common::opening(text);
    let now = Instant::from_ms(0.0);
    c.handle_input(now, Input::Response { call, reply: Reply::Body(text) });
    c.session("s").expect("resident").window().len()
}

fn main() {
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
        let runs = if n > 10_000 { 5 } else { 50 };
        let (floor, v) = best(runs, || serde_json::from_str::<serde_json::Value>(&text).expect("json"));
        assert_eq!(v["result"]["value"]["events"].as_array().map(Vec::len), Some(n as usize));
        let form = ResponseForm::Envelope { rpc_id: "RPC".into() };
        let (envelope, value) = best(runs, || wire::parse_unary_response(&text, &form).expect("envelope").expect("ok"));
        let (page, _) = best(runs, || wire::read::read::<HistoryValue>(value.text()).expect("page"));
        let (whole, len) = best(runs, || open(&text));
        assert_eq!(len, n as usize);
        println!(
            "core_open {label:>26} ({:.1} MB): Value floor {floor:.1} ms | envelope {envelope:.1} ms, page read {page:.1} ms, whole open {whole:.1} ms = {:.2}x the floor",
            text.len() as f64 / 1e6,
            whole / floor
        );
    }
}
