//! What the open and memory benches share: the seeded log they open and the client path up
//! to the tail-page request.

use agent_session::core::client::{CallId, Config, HostClient, Input, Instant, OpHandle, Output, SessionOp};
use agent_session::core::wire::{HistoryItem, HistoryValue, Json, SessionEvent};
use serde_json::json;

/// Event `seq` of the seeded log: a message every 1000 events, streamed text chunks between.
pub fn event(seq: u64) -> SessionEvent {
    let (kind, data) = match seq % 1000 {
        0 => ("user/message", json!({"content": [{"type": "text", "text": "q"}], "source": {"kind": "user"}})),
        500 => ("assistant/message", json!({"turn": 1, "step": 1, "content": [], "provenance": {}})),
        _ => ("assistant/chunk", json!({"turn": 1, "step": 1, "chunk": {"type": "text-delta", "text": "token "}})),
    };
    SessionEvent::new(kind, seq, 1.7e12 + seq as f64, data)
}

/// Event `seq` of the reference host's seeded log with a message every `every` events (its
/// `seed` admin command): every 2 alternates a user and an assistant message, each its own
/// node (the node-dense log); streamed text chunks between otherwise.
pub fn seeded(seq: u64, every: u64) -> SessionEvent {
    let (kind, data) = if seq.is_multiple_of(every) {
        let text = format!("seed message {seq}");
        (
            "user/message",
            json!({"content": [{"type": "text", "text": text}], "source": {"kind": "user", "rpcId": "seed"}}),
        )
    } else if seq % every == every / 2 {
        let text = format!("seed reply {seq}");
        let provenance = json!({"provider": "seed", "model": "seed"});
        (
            "assistant/message",
            json!({"turn": 1, "step": 1, "content": [{"type": "text", "text": text}], "provenance": provenance}),
        )
    } else {
        ("assistant/chunk", json!({"turn": 1, "step": 1, "chunk": {"type": "text-delta", "index": 0, "text": " seed"}}))
    };
    SessionEvent::new(kind, seq, 1.7e12 + seq as f64, data)
}

/// The `session.history` response of an `n`-event tail page, its rpcId written `RPC`.
pub fn body(n: u64) -> String {
    page_of(n, event)
}

/// [`body`] of the reference host's seeded log with a message every `every` events.
pub fn seeded_body(n: u64, every: u64) -> String {
    page_of(n, |s| seeded(s, every))
}

fn page_of(n: u64, event: impl Fn(u64) -> SessionEvent) -> String {
    let events = (0..n).map(|s| HistoryItem { event: event(s), view: None }).collect();
    let value = Json::from_serialize(&HistoryValue { events, has_more: false, projections: None });
    format!(r#"{{"type":"server-response","rpcId":"RPC","result":{{"ok":true,"value":{}}}}}"#, value.text())
}

/// A client that has asked for session `s`'s tail page: the client, the call to answer and
/// `text` with the request's rpcId in place of `RPC`.
pub fn opening(text: &str) -> (HostClient, CallId, String) {
    let mut c = HostClient::new(Config::default());
    c.handle_input(
        Instant::from_ms(0.0),
        Input::Session { handle: OpHandle(1), session: "s".into(), op: SessionOp::Open },
    );
    let mut history = None;
    while let Some(o) = c.poll_output() {
        match o {
            Output::Send { call, path, body } if path == "session.history" => {
                let v: serde_json::Value = serde_json::from_str(&body).expect("json");
                history = Some((call, v["rpcId"].as_str().expect("rpcId").to_string()));
            }
            _ => {}
        }
    }
    let (call, rpc) = history.expect("open asks for the tail page");
    (c, call, text.replacen("RPC", &rpc, 1))
}
