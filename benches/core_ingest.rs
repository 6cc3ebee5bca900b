//! Per-frame cost of the core's live path (SSE bytes -> frame parse -> fold -> effects) with
//! 1k and 100k events already in the window. Prints figures; asserts nothing about time.
//!
//! Run: `cargo bench --bench core_ingest`

use agent_session::core::session::{Effect, Session};
use agent_session::core::sse::{SseItem, SseParser};
use agent_session::core::wire::{parse_frame, HistoryItem, HistoryValue, SessionEvent};
use serde_json::json;
use std::time::Instant;

const SID: &str = "bench";
const FRAMES: u64 = 20_000;

fn window_event(seq: u64) -> SessionEvent {
    // A realistic mix: each turn is a user message, 8 chunks, an assistant message.
    let turn = seq / 10 + 1;
    match seq % 10 {
        0 => SessionEvent::new(
            "user/message",
            seq,
            0.0,
            json!({"content": [{"type": "text", "text": "q"}], "source": {"kind": "user"}}),
        ),
        9 => SessionEvent::new(
            "assistant/message",
            seq,
            0.0,
            json!({"turn": turn, "step": 1, "content": [{"type": "text", "text": "answer"}], "provenance": {}}),
        ),
        _ => SessionEvent::new(
            "assistant/chunk",
            seq,
            0.0,
            json!({"turn": turn, "step": 1, "chunk": {"type": "text-delta", "index": 0, "text": "tok"}}),
        ),
    }
}

/// An open session whose window holds `n` events (seq 0..n).
fn session_with_window(n: u64) -> Session {
    let mut s = Session::new(SID);
    s.open();
    let req = match s.drain_effects().into_iter().next() {
        Some(Effect::Send { req, .. }) => req,
        e => panic!("{e:?}"),
    };
    let page = HistoryValue {
        events: (0..n).map(|seq| HistoryItem { event: window_event(seq), view: None }).collect(),
        has_more: false,
        projections: None,
    };
    s.on_response(req, Ok(agent_session::core::wire::Json::from_serialize(&page)));
    s.drain_effects();
    s
}

/// The SSE bytes of `FRAMES` live events continuing a window of `n`.
fn burst(n: u64) -> Vec<u8> {
    let mut out = String::new();
    for seq in n..n + FRAMES {
        let frame = json!({
            "type": "server-request",
            "rpcId": format!("r{seq}"),
            "method": "session/event",
            "payload": {"type": "session/event", "sessionId": SID, "event": window_event(seq)},
        });
        out.push_str("data: ");
        out.push_str(&frame.to_string());
        out.push_str("\n\n");
    }
    out.into_bytes()
}

/// Nanoseconds per frame for feeding `bytes` (in 16 KiB network chunks) into `s`.
fn ingest(mut s: Session, bytes: &[u8]) -> f64 {
    let mut parser = SseParser::default();
    let mut items = Vec::new();
    let start = Instant::now();
    for chunk in bytes.chunks(16 * 1024) {
        parser.push(chunk, &mut items);
        for item in items.drain(..) {
            if let SseItem::Data(d) = item {
                if let Ok(f) = parse_frame(&d) {
                    s.on_frame(f);
                }
            }
        }
        while s.poll_effect().is_some() {}
    }
    let ns = start.elapsed().as_nanos() as f64 / FRAMES as f64;
    assert_eq!(s.tail_seq() as u64, s.window().len() as u64 - 1 + s.base_seq() as u64);
    std::hint::black_box(&s);
    ns
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let sizes = [1_000u64, 100_000];
    let bursts: Vec<Vec<u8>> = sizes.iter().map(|&n| burst(n)).collect();
    let mut results = vec![Vec::new(); sizes.len()];
    for _round in 0..7 {
        for (i, &n) in sizes.iter().enumerate() {
            let s = session_with_window(n);
            results[i].push(ingest(s, &bursts[i]));
        }
    }
    let small = median(results[0].clone());
    let large = median(results[1].clone());
    println!("core ingest: {FRAMES} live frames per run, median of 7 runs");
    println!("  window 1k events:   {small:8.0} ns/frame");
    println!("  window 100k events: {large:8.0} ns/frame");
    println!("  ratio 100k/1k:      {:8.2} (goal <= 1.3)", large / small);
}
