//! Opening a session from one tail page (native core, no I/O): where the time goes between
//! the response body and an installed window, next to parsing the same body into a
//! `serde_json::Value` (the native stand-in for the browser's `JSON.parse` floor).
//! Prints figures; asserts only that every event arrived.
//!
//! Run: `cargo bench --bench core_open`

use agent_session::core::client::{Config, HostClient, Input, Instant, Output, Reply, SessionOp, Token};
use agent_session::core::wire::{self, HistoryItem, HistoryValue, Json, ResponseForm, SessionEvent};
use serde_json::json;
use std::time::Instant as Clock;

fn event(seq: u64) -> SessionEvent {
    let (kind, data) = match seq % 1000 {
        0 => ("user/message", json!({"content": [{"type": "text", "text": "q"}], "source": {"kind": "user"}})),
        500 => ("assistant/message", json!({"turn": 1, "step": 1, "content": [], "provenance": {}})),
        _ => ("assistant/chunk", json!({"turn": 1, "step": 1, "chunk": {"type": "text-delta", "text": "token "}})),
    };
    SessionEvent::new(kind, seq, 1.7e12 + seq as f64, data)
}

fn body(n: u64, rpc_id: &str) -> String {
    let events = (0..n).map(|s| HistoryItem { event: event(s), view: None }).collect();
    let value = Json::from_serialize(&HistoryValue { events, has_more: false, projections: None });
    format!(r#"{{"type":"server-response","rpcId":"{rpc_id}","result":{{"ok":true,"value":{}}}}}"#, value.text())
}

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
    let mut c = HostClient::new(Config::default());
    let now = Instant::from_ms(0.0);
    c.handle_input(now, Input::Session { token: Token(1), session: "s".into(), op: SessionOp::Open });
    let mut history = None;
    while let Some(o) = c.poll_output() {
        if let Output::Send { call, path: "session.history", body } = o {
            let v: serde_json::Value = serde_json::from_str(&body).expect("json");
            history = Some((call, v["rpcId"].as_str().expect("rpcId").to_string()));
        }
    }
    let (call, rpc) = history.expect("open asks for the tail page");
    let text = text.replacen("RPC", &rpc, 1);
    c.handle_input(now, Input::Response { call, reply: Reply::Body(text) });
    c.session("s").expect("resident").window().len()
}

fn main() {
    for n in [1_000u64, 100_000] {
        let text = body(n, "RPC");
        let runs = if n > 10_000 { 5 } else { 50 };
        let (floor, v) = best(runs, || serde_json::from_str::<serde_json::Value>(&text).expect("json"));
        assert_eq!(v["result"]["value"]["events"].as_array().map(Vec::len), Some(n as usize));
        let form = ResponseForm::Envelope { rpc_id: "RPC".into() };
        let (envelope, value) = best(runs, || wire::parse_unary_response(&text, &form).expect("envelope").expect("ok"));
        let (page, _) = best(runs, || wire::read::read::<HistoryValue>(value.text()).expect("page"));
        let (whole, len) = best(runs, || open(&text));
        assert_eq!(len, n as usize);
        println!(
            "core_open {:>7} events ({:.1} MB): Value floor {floor:.1} ms | envelope {envelope:.1} ms, page read {page:.1} ms, whole open {whole:.1} ms = {:.2}x the floor",
            n,
            text.len() as f64 / 1e6,
            whole / floor
        );
    }
}
