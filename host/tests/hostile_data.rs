//! An agent's output relayed into session events: whatever JSON the wire's reader accepts
//! (a lone surrogate escape, a number past `f64`, deep nesting) reaches both stream carriers
//! and a history page without the host failing, and the client's readers read what it wrote.

mod common;

use agent_session_onepass::page::{ItemSink, PageSplitter};
use agent_session_wire::{parse_server_response, read::read, Frame, HistoryItem, HistoryValue};
use common::{Host, CARRIERS};
use serde_json::json;

/// What the host logs in place of a value nested deeper than 100 (the page's limit is 128).
const MARKER: &str = "[dropped by agent-session-host: nested deeper than 100]";

/// The client's history-page reader: items split out as the body arrives, the rest read whole.
struct Items(Vec<HistoryItem>);

impl ItemSink for Items {
    fn read_at(&mut self, text: &str) -> Option<usize> {
        let (item, n) = agent_session_onepass::history_item_at(text)?;
        self.0.push(item);
        Some(n)
    }
    fn cut(&mut self, bytes: &[u8]) {
        let text = std::str::from_utf8(bytes).expect("utf-8 item");
        let item = agent_session_onepass::history_item(text).or_else(|| read(text).ok());
        self.0.push(item.unwrap_or_else(|| panic!("unreadable item {text}")));
    }
}

fn page(host: &Host, sid: &str) -> (Vec<HistoryItem>, HistoryValue) {
    let body = json!({ "type": "client-request", "rpcId": "h1", "method": "session.history",
                       "payload": { "sessionId": sid } });
    let raw = host.post("/api/session.history", &body.to_string());
    assert_eq!(raw.status, 200, "{}", raw.body);
    let mut split = PageSplitter::new();
    let mut items = Items(Vec::new());
    split.feed(raw.body.as_bytes(), &mut items).unwrap_or_else(|e| panic!("{e}: {}", raw.body));
    let rest = String::from_utf8(split.finish().expect("whole page")).expect("utf-8");
    let value = parse_server_response(&rest, "h1").expect("a server-response").expect("ok");
    (items.0, read(value.text()).expect("a history value"))
}

#[test]
fn hostile_agent_data_is_streamed_and_paged_without_the_host_failing() {
    let host = Host::start(&["--faults"]);
    let sid = host.create();
    let mut streams: Vec<_> = CARRIERS.iter().map(|c| host.open(*c, "/api/events.mux")).collect();
    for s in &mut streams {
        s.frame();
    }
    let marker = serde_json::to_string(MARKER).unwrap();
    let deep = |n: usize| format!(r#"{{"d":{}1{}}}"#, "[".repeat(n), "]".repeat(n));
    // (data as the agent wrote it, as the host relays it)
    let cases = [
        (r#"{"text":"\ud83d","low":"x\udc00y"}"#.to_string(), r#"{"text":"\ud83d","low":"x\udc00y"}"#.to_string()),
        (r#"{"n":1796042825e605,"m":-1e-99999}"#.to_string(), r#"{"n":1796042825e605,"m":-1e-99999}"#.to_string()),
        (deep(99), deep(99)),
        (deep(300), format!(r#"{{"d":{}{marker}{}}}"#, "[".repeat(99), "]".repeat(99))),
    ];
    let mut seqs = Vec::new();
    for (data, _) in &cases {
        let cmd = format!(r#"{{"command":"append","sessionId":"{sid}","kind":"tool/result","data":{data}}}"#);
        let raw = host.post("/admin/faults", &cmd);
        assert_eq!(raw.status, 200, "{data}: {}", raw.body);
        seqs.push(raw.json()["results"][0]["seq"].as_u64().expect("seq"));
    }
    for s in &mut streams {
        let last = *seqs.last().unwrap();
        let frames = s.until("the last relayed event", |f| f.event().is_some_and(|e| e.seq == last));
        for ((_, want), seq) in cases.iter().zip(&seqs) {
            let ev = frames.iter().find_map(|f| f.frame.event().filter(|e| e.seq == *seq)).expect("streamed");
            assert_eq!(ev.data.text(), Some(want.as_str()), "streamed seq {seq}");
        }
        assert!(frames.iter().all(|f| matches!(f.frame, Frame::Event(_))));
    }
    let (items, value) = page(&host, &sid);
    assert!(value.events.is_empty(), "every item was split out by the client's reader");
    for ((_, want), seq) in cases.iter().zip(&seqs) {
        let item = items.iter().find(|i| i.event.seq == *seq).expect("paged");
        assert_eq!(item.event.data.text(), Some(want.as_str()), "paged seq {seq}");
    }
    // Still serving.
    assert!(host.call("host.describe", json!({}))["version"].is_string());
}
