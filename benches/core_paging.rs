//! Paging all the way back through a 100k-event session with `loadOlder` (native core, no
//! I/O): the cost of prepending older pages to a growing window. Prints figures; asserts
//! only that every event arrived.
//!
//! Two logs: "turns" (turn/start … turn/end every 10 events, as hosts write them: page
//! boundaries leave nothing pending, so each page is folded alone) and "one endless turn"
//! (chunks of one step across every boundary: each page re-folds the window).
//!
//! Run: `cargo bench --bench core_paging`

use agent_session::core::session::{Call, Effect, Session};
use agent_session::core::wire::{parse_unary_response, HistoryItem, HistoryValue, Json, ResponseForm, SessionEvent};
use serde_json::json;
use std::time::Instant;

const EVENTS: u64 = 100_000;

fn event(seq: u64, turns: bool) -> SessionEvent {
    let chunk = |turn: u64| json!({"turn": turn, "step": 1, "chunk": {"type": "text-delta", "text": "t"}});
    let user = json!({"content": [{"type": "text", "text": "q"}], "source": {"kind": "user"}});
    if turns {
        let turn = seq / 10 + 1;
        let (kind, data) = match seq % 10 {
            0 => ("turn/start", json!({"turn": turn})),
            1 => ("user/message", user),
            8 => ("assistant/message", json!({"turn": turn, "step": 1, "content": [], "provenance": {}})),
            9 => ("turn/end", json!({"turn": turn, "reason": {"kind": "completed"}})),
            _ => ("assistant/chunk", chunk(turn)),
        };
        return SessionEvent::new(kind, seq, 0.0, data);
    }
    let (kind, data) = match seq % 1000 {
        0 => ("user/message", user),
        500 => ("assistant/message", json!({"turn": 1, "step": 1, "content": [], "provenance": {}})),
        _ => ("assistant/chunk", chunk(1)),
    };
    SessionEvent::new(kind, seq, 0.0, data)
}

fn page(from: u64, to: u64, turns: bool) -> Json {
    let events = (from..to).map(|s| HistoryItem { event: event(s, turns), view: None }).collect();
    Json::from_serialize(&HistoryValue { events, has_more: from > 0, projections: None })
}

fn history_request(s: &mut Session) -> agent_session::core::session::ReqId {
    s.drain_effects()
        .into_iter()
        .find_map(|e| match e {
            Effect::Send { req, call: Call::History { .. } } => Some(req),
            _ => None,
        })
        .expect("a history request")
}

/// Milliseconds to page from a tail page back to seq 0, `step` events per page.
fn page_back(turns: bool, step: u64) -> f64 {
    let mut s = Session::new("bench");
    s.open();
    let req = history_request(&mut s);
    s.on_response(req, Ok(page(EVENTS - step, EVENTS, turns)));
    s.drain_effects();
    // The response bodies are written before the clock starts: only the client's work is
    // timed, on the client's path (the streamed page reader, then the session).
    let bodies: Vec<String> = (0..EVENTS / step - 1)
        .map(|i| EVENTS - step * (i + 1))
        .map(|b| {
            format!(
                r#"{{"type":"server-response","rpcId":"r","result":{{"ok":true,"value":{}}}}}"#,
                page(b - step, b, turns).text()
            )
        })
        .collect();
    let start = Instant::now();
    for body in bodies {
        let _ = s.load_older();
        let req = history_request(&mut s);
        let mut reader = agent_session::core::session::PageReader::default();
        reader.feed(body.as_bytes());
        let (rest, streamed) = reader.finish();
        let form = ResponseForm::Envelope { rpc_id: "r".into() };
        let value = parse_unary_response(&rest.expect("json"), &form).expect("an envelope");
        s.on_page(req, value, streamed);
        s.drain_effects();
    }
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    assert_eq!(s.window().len() as u64, EVENTS);
    ms
}

fn main() {
    println!("core paging: {EVENTS} events paged back with loadOlder");
    for (label, turns, step) in
        [("turns, 200-event pages", true, 200), ("one endless turn, 1000-event pages", false, 1000)]
    {
        println!("  {label:36} {:8.0} ms", page_back(turns, step));
    }
}
