//! Each pass reads what the wire crate's general reader reads, or defers to it.

use super::*;
use agent_session_wire::envelope::{parse_unary_response, ResponseForm};
use agent_session_wire::event::{ChunkKind, EventData};
use agent_session_wire::frames::Frame;
use agent_session_wire::json::Json;
use agent_session_wire::methods::{HistoryItem, HistoryValue};
use agent_session_wire::read::read;

/// Every text line of the captured wire fixtures (SSE `data:` lines, WebSocket messages and
/// HTTP bodies, with their capture prefixes taken off).
fn fixture_lines() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/wire");
    let (mut files, mut lines) = (vec![std::path::PathBuf::from(dir)], Vec::new());
    while let Some(p) = files.pop() {
        if p.is_dir() {
            files.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        for line in std::fs::read_to_string(&p).unwrap_or_default().lines() {
            if let Some(at) = line.find('{') {
                lines.push(line[at..].trim().to_string());
            }
        }
    }
    lines
}

/// `page` with its chunks read ([`SessionEvent::chunk_read`]): both sides of a comparison go
/// through it, so a chunk the pass read wrong still differs.
fn page_as_one_pass(mut page: HistoryValue) -> HistoryValue {
    for item in &mut page.events {
        item.event = item.event.chunk_read();
    }
    page
}

fn server_request(method: &str, payload: &str) -> String {
    format!(r#"{{"type":"server-request","rpcId":"r1","method":"{method}","payload":{payload}}}"#)
}

#[test]
fn the_event_pass_agrees_with_the_general_reader_on_every_fixture_event() {
    let mut events: Vec<String> = vec![
        r#"{"type":"x","seq":0,"time":1}"#.into(),
        r#"{"type":"assistant/chunk","seq":3,"time":1.5,"data":{"turn":1,"step":0,"chunk":{"type":"text-delta","text":"\u00e9"}}}"#.into(),
        r#"{"data":null,"time":1795991061849,"seq":9,"type":"y"}"#.into(),
        r#"{"type":"x","seq":1,"time":1,"sourceEventSeqs":[0,2.5],"surfaceOp":{"k":[1]}}"#.into(),
        r#"{"type":"x","seq":1,"time":1,"sourceEventSeqs":null,"surfaceOp":null}"#.into(),
    ];
    for line in fixture_lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else { continue };
        let mut stack = vec![v];
        while let Some(v) = stack.pop() {
            if v.get("seq").is_some() && v.get("time").is_some() && v.get("type").is_some() {
                events.push(v.to_string());
            }
            match v {
                serde_json::Value::Array(a) => stack.extend(a),
                serde_json::Value::Object(o) => stack.extend(o.into_iter().map(|(_, v)| v)),
                _ => {}
            }
        }
    }
    assert!(events.len() > 100, "the fixtures hold events");
    for ev in &events {
        let frame =
            server_request("session/event", &format!(r#"{{"type":"session/event","sessionId":"s","event":{ev}}}"#));
        let general: SessionEvent = read(ev).unwrap();
        let one_pass = event_frame(&frame).and_then(|f| f.frame.event().cloned());
        assert_eq!(one_pass.as_ref().map(SessionEvent::chunk_read), Some(general.chunk_read()), "{ev}");
    }
}

#[test]
fn a_streamed_chunk_after_its_type_is_read_in_the_pass_and_one_before_it_stays_text() {
    let data = r#"{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"a\"b"}}"#;
    let frame = |ev: &str| {
        server_request("session/event", &format!(r#"{{"type":"session/event","sessionId":"s","event":{ev}}}"#))
    };
    let after = frame(&format!(r#"{{"type":"assistant/chunk","seq":1,"time":1,"data":{data}}}"#));
    let before = frame(&format!(r#"{{"data":{data},"type":"assistant/chunk","seq":1,"time":1}}"#));
    let read_after = event_frame(&after).and_then(|f| f.frame.event().cloned()).unwrap();
    let read_before = event_frame(&before).and_then(|f| f.frame.event().cloned()).unwrap();
    assert_eq!(read_after.data, EventData::Chunk(ChunkData::read(data).unwrap()));
    assert_eq!(read_before.data.text(), Some(data));
    // the same body either way, which is all the fold reads
    assert_eq!(event_body(&read_after), event_body(&read_before));
    assert!(matches!(read_after.body(), Some(EventBody::AssistantChunk(c)) if c.chunk.text.as_deref() == Some("a\"b")));
    // Data that is no chunk sends the whole frame to the general reader, which keeps it as
    // text (and the fold finds no body in it, as before).
    for bad in [r#"{"turn":1,"chunk":{}}"#, "null", r#"{"turn":1,"step":2,"chunk":{},"turn":3}"#] {
        let f = frame(&format!(r#"{{"type":"assistant/chunk","seq":1,"time":1,"data":{bad}}}"#));
        assert_eq!(event_frame(&f), None, "{bad}");
        let general = parse_frame(&f).unwrap();
        let ev = general.frame.event().unwrap();
        assert_eq!((ev.data.text(), event_body(ev)), (Some(bad), None), "{bad}");
    }
}

#[test]
fn rare_and_malformed_event_members_defer_to_the_general_reader() {
    let cases = [
        (r#"{"type":"x","seq":1,"time":1,"sourceEventSeqs":["a"]}"#, false),
        (r#"{"type":"x","seq":1,"time":1,"sourceEventSeqs":{}}"#, false),
        (r#"{"type":"x","seq":-1,"time":1}"#, false),
        (r#"{"type":"x","seq":1,"seq":2,"time":1}"#, false),
        (r#"{"type":"x","seq":1}"#, false),
    ];
    for (ev, general_reads) in cases {
        let frame =
            server_request("session/event", &format!(r#"{{"type":"session/event","sessionId":"s","event":{ev}}}"#));
        assert_eq!(event_frame(&frame), None, "{ev}");
        assert_eq!(read::<SessionEvent>(ev).is_ok(), general_reads, "{ev}");
        assert_eq!(parse_frame(&frame).is_ok(), general_reads, "{ev}");
    }
}

/// An event member no record declares (a newer host's) is read past in the pass, as the
/// general reader ignores it: the fast path stays taken.
#[test]
fn an_undeclared_event_member_is_read_past_in_the_pass_as_the_general_reader_ignores_it() {
    for ev in
        [r#"{"type":"x","seq":1,"time":1,"newMember":1}"#, r#"{"newMember":{"a":[1]},"type":"x","seq":1,"time":1}"#]
    {
        let frame =
            server_request("session/event", &format!(r#"{{"type":"session/event","sessionId":"s","event":{ev}}}"#));
        let general = inbound::parse_frame(&frame).unwrap();
        assert_eq!(event_frame(&frame), Some(general), "{ev}");
    }
}

/// The one-place edit: a member added to a record's list is read by its one-pass reader with
/// no other change (`Grown` is `Probe` plus `extra`; both passes are the same generated code).
#[test]
fn a_member_added_to_a_record_in_one_place_is_read_by_its_one_pass_reader() {
    use agent_session_wire::visit::{whole, Kinds};
    use serde::de::MapAccess;

    agent_session_wire::record! {
        #[derive(Debug, PartialEq)]
        struct Probe {
            seq: u64 = read_with(agent_session_wire::seq::read, agent_session_wire::seq::is_seq) "seq",
            kind: String = "type",
        }
    }
    agent_session_wire::record! {
        #[derive(Debug, PartialEq)]
        struct Grown {
            seq: u64 = read_with(agent_session_wire::seq::read, agent_session_wire::seq::is_seq) "seq",
            kind: String = "type",
            extra: Option<Json> = opt "extra",
        }
    }
    struct PassOf<T>(std::marker::PhantomData<T>);
    macro_rules! kinds {
        ($t:ident) => {
            impl<'de> Kinds<'de> for PassOf<$t> {
                type Value = $t;
                fn what(&self) -> &'static str {
                    "a probe"
                }
                fn map<A: MapAccess<'de>>(self, map: A) -> Result<$t, A::Error> {
                    $t::read_pass(&mut readers::Members::new(), map)
                }
            }
        };
    }
    kinds!(Probe);
    kinds!(Grown);
    let text = r#"{"type":"x","extra":{"k":[1]},"seq":2}"#;
    let probe = whole(text, PassOf::<Probe>(Default::default())).unwrap();
    assert_eq!(probe, read::<Probe>(text).unwrap(), "the undeclared member read past");
    let grown = whole(text, PassOf::<Grown>(Default::default())).unwrap();
    assert_eq!(grown.extra.as_ref().map(Json::text), Some(r#"{"k":[1]}"#), "the new member read in the pass");
    assert_eq!(grown, read::<Grown>(text).unwrap(), "as the general reader reads it");
    for refused in
        [r#"{"type":"x","extra":1,"extra":2,"seq":2}"#, r#"{"type":"x"}"#, r#"{"type":"x","seq":9007199254740992}"#]
    {
        assert!(whole(refused, PassOf::<Grown>(Default::default())).is_err(), "{refused}");
        assert!(read::<Grown>(refused).is_err(), "{refused}");
    }
}

#[test]
fn an_event_frame_reads_the_same_whatever_the_member_order_or_escapes() {
    let ev = r#"{"type":"session/event","sessionId":"s","event":{"type":"x","seq":3,"time":1,"data":{"a":[1,"\u00e9"]}},"view":{"v":1}}"#;
    let frames = [
        server_request("session/event", ev),
        format!(r#"{{"payload":{ev},"method":"session/event","rpcId":"r1","type":"server-request"}}"#),
        format!(r#"{{"type":"server-request","rpc\u0049d":"r1","method":"session/event","payload":{ev}}}"#),
    ];
    let general = inbound::parse_frame(&frames[0]).unwrap();
    assert!(matches!(&general.frame, Frame::Event(e) if e.view.is_some()));
    for f in &frames {
        assert_eq!(event_frame(f), Some(general.clone()), "{f}");
    }
    let twice =
        format!(r#"{{"type":"server-request","rpcId":"r1","method":"session/event","method":"x","payload":{ev}}}"#);
    assert_eq!(event_frame(&twice), None);
    assert!(matches!(parse_frame(&twice), Err(FrameError::Envelope(_))), "a repeated key is rejected");
    let other = server_request(
        "session/event",
        r#"{"type":"session/title","sessionId":"s","title":"t","eventSeq":1,"updatedAt":1}"#,
    );
    assert_eq!(event_frame(&other), None);
    assert!(matches!(parse_frame(&other), Err(FrameError::MethodMismatch { .. })));
}

#[test]
fn the_chunk_pass_agrees_with_the_general_reader_or_defers_to_it() {
    let cases = [
        r#"{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"a\"b"}}"#,
        r#"{"chunk":{"text":"x","type":"reasoning-delta"},"step":2,"turn":1,"extra":[1]}"#,
        r#"{"turn":1,"step":2,"chunk":{"type":"tool-input-delta"}}"#,
        r#"{"turn":1,"step":2,"chunk":{"text":null}}"#,
        r#"{"turn":1,"step":2,"chunk":{}}"#,
    ];
    for c in cases {
        assert_eq!(chunk_data(c), Some(read::<ChunkData>(c).unwrap()), "{c}");
    }
    let bad = [
        r#"{"turn":1,"chunk":{"type":"text-delta","text":"a"}}"#,
        r#"{"turn":1,"step":2,"chunk":{"type":1}}"#,
        r#"{"turn":1,"step":2,"chunk":{"type":"text-delta","text":3}}"#,
        r#"{"turn":1,"step":2,"step":3,"chunk":{}}"#,
        r#"{"turn":-1,"step":2,"chunk":{}}"#,
        r#"{"turn":1,"step":2,"chunk":[]}"#,
    ];
    for c in bad {
        assert_eq!(chunk_data(c), None, "{c}");
        assert!(read::<ChunkData>(c).is_err(), "{c}");
    }
    let ev = SessionEvent::new(
        "assistant/chunk",
        1,
        1.0,
        serde_json::json!({"turn":1,"step":0,"chunk":{"type":"text-delta","text":"t"}}),
    );
    assert_eq!(event_body(&ev), ev.body());
    assert!(matches!(event_body(&ev), Some(EventBody::AssistantChunk(c)) if c.chunk.kind == ChunkKind::TextDelta));
    let other = SessionEvent::new("turn/start", 2, 1.0, serde_json::json!({"turn":1}));
    assert_eq!(event_body(&other), other.body());
}

/// The general path: envelope, then the page's own reader.
fn general_page(body: &str, rpc_id: &str) -> Option<HistoryValue> {
    let form = ResponseForm::Envelope { rpc_id: rpc_id.into() };
    let value = parse_unary_response(body, &form).ok()?.ok()?;
    read::<HistoryValue>(value.text()).ok()
}

/// A page as the client reads it: split as it streams (in pieces of 7 bytes here), each item
/// read in one pass (`None` if one defers), the rest of the envelope by the general reader.
fn history_response(body: &str, rpc_id: &str) -> Option<HistoryValue> {
    struct OnePass(Vec<HistoryItem>, bool);
    impl page::ItemSink for OnePass {
        fn read_at(&mut self, text: &str) -> Option<usize> {
            let (item, n) = history_item_at(text)?;
            self.0.push(item);
            Some(n)
        }
        fn cut(&mut self, bytes: &[u8]) {
            match std::str::from_utf8(bytes).ok().and_then(history_item) {
                Some(item) => self.0.push(item),
                None => self.1 = false,
            }
        }
    }
    let mut splitter = page::PageSplitter::new();
    let mut items = OnePass(Vec::new(), true);
    for piece in body.as_bytes().chunks(7) {
        splitter.feed(piece, &mut items).ok()?;
    }
    let rest = String::from_utf8(splitter.finish().ok()?).ok()?;
    let mut page = general_page(&rest, rpc_id)?;
    if !items.1 || (!page.events.is_empty() && !items.0.is_empty()) {
        return None;
    }
    if page.events.is_empty() {
        page.events = items.0;
    }
    Some(page)
}

fn respond(rpc_id: &str, result: &str) -> String {
    format!(r#"{{"type":"server-response","rpcId":"{rpc_id}","result":{result}}}"#)
}

#[test]
fn the_page_pass_agrees_with_the_general_reader_or_defers_to_it() {
    let ev = |seq: u64| {
        format!(
            r#"{{"type":"assistant/chunk","seq":{seq},"time":1.5,"data":{{"turn":1,"step":0,"chunk":{{"type":"text-delta","text":"\u00e9 {seq}"}}}}}}"#
        )
    };
    let page = |items: &str, rest: &str| {
        respond("r1", &format!(r#"{{"ok":true,"value":{{"events":[{items}],"hasMore":true{rest}}}}}"#))
    };
    let two = format!(r#"{{"event":{}}},{{"event":{},"view":{{"v":1}}}}"#, ev(0), ev(1));
    let one_pass_shapes = [
        page(&two, ""),
        page("", ""),
        page(&two, r#","projections":{"asOfSeq":1,"values":{"plan":{"active":true}}}"#),
        page(&two, r#","projections":null,"extra":[1,2]"#),
        // member order is free
        format!(
            r#"{{"result":{{"value":{{"hasMore":false,"events":[{{"view":null,"event":{}}}]}},"ok":true}},"rpcId":"r1","type":"server-response"}}"#,
            ev(7)
        ),
        respond(
            "r1",
            r#"{"ok":true,"value":{"events":[{"event":{"type":"x","seq":1,"time":0,"surfaceOp":"append"}}],"hasMore":false}}"#,
        ),
        respond(
            "r1",
            r#"{"ok":true,"value":{"events":[{"event":{"type":"x","seq":1,"time":0,"sourceEventSeqs":[0]}}],"hasMore":false}}"#,
        ),
        // a member no record declares is skipped, as the general reader ignores it
        respond(
            "r1",
            r#"{"ok":true,"value":{"events":[{"event":{"type":"x","seq":1,"time":0,"later":{}}}],"hasMore":false}}"#,
        ),
    ];
    for body in &one_pass_shapes {
        let general = general_page(body, "r1");
        assert!(general.is_some(), "{body}");
        assert_eq!(history_response(body, "r1").map(page_as_one_pass), general.map(page_as_one_pass), "{body}");
    }
    let deferred = [
        page(&two, r#","hasMore":false"#),
        respond("other", r#"{"ok":true,"value":{"events":[],"hasMore":false}}"#),
        respond("r1", r#"{"ok":false,"error":{"code":"internal","message":"x"}}"#),
        respond("r1", r#"{"ok":true,"value":{"events":[{"event":{"type":"x","seq":-1,"time":0}}],"hasMore":false}}"#),
        page(&two, r#","projections":{"asOfSeq":1,"values":{"a":1,"a":2}}"#),
        r#"{"type":"server-request","rpcId":"r1","result":{}}"#.to_string(),
        format!("{}x", page(&two, "")),
    ];
    for body in &deferred {
        assert_eq!(history_response(body, "r1"), None, "{body}");
    }
    assert_eq!(
        history_response(&format!("{} ", page(&two, "")), "r1").map(page_as_one_pass),
        general_page(&page(&two, ""), "r1").map(page_as_one_pass),
        "trailing space"
    );
}

#[test]
fn a_page_the_host_writes_reads_in_one_pass() {
    let events = (0..50)
        .map(|s| HistoryItem {
            event: SessionEvent::new("user/message", s, 1.0, serde_json::json!({"n": s})),
            view: None,
        })
        .collect();
    let value = HistoryValue { events, has_more: true, projections: None };
    let body = respond("r9", &format!(r#"{{"ok":true,"value":{}}}"#, serde_json::to_string(&value).unwrap()));
    assert_eq!(history_response(&body, "r9"), Some(value));
}

/// The 2026-08 host writes `surfaceOp` and `sourceEventSeqs` on many events: every
/// captured `session.history` page, seed and upstream, must read in one pass.
#[test]
fn every_captured_history_page_reads_in_one_pass() {
    let (mut pages, mut chunks) = (0, 0);
    for line in fixture_lines() {
        if !(line.starts_with(r#"{"type":"server-response""#) && line.contains(r#""events":["#)) {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        let rpc_id = v["rpcId"].as_str().unwrap();
        let general = general_page(&line, rpc_id);
        assert!(general.is_some(), "{line}");
        let one_pass = history_response(&line, rpc_id);
        chunks +=
            one_pass.iter().flat_map(|p| &p.events).filter(|i| matches!(i.event.data, EventData::Chunk(_))).count();
        assert_eq!(one_pass.map(page_as_one_pass), general.map(page_as_one_pass), "{line}");
        pages += 1;
    }
    assert!(pages >= 12, "the captures hold history pages ({pages})");
    assert!(chunks > 0, "their streamed chunks are read in the pass");
}

/// Found by the adversarial run: the chunk pass skipped members it does not read without
/// telling a repeat, so it accepted a chunk the general reader refuses as a duplicate.
#[test]
fn a_repeated_skipped_member_defers_as_the_general_reader_refuses_it() {
    let chunks = [
        r#"{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"index":1,"text":"a"}}"#,
        r#"{"turn":1,"step":2,"x":1,"x":2,"chunk":{"type":"text-delta","text":"a"}}"#,
    ];
    for c in chunks {
        assert!(read::<ChunkData>(c).is_err(), "{c}");
        assert_eq!(chunk_data(c), None, "{c}");
    }
    let many =
        r#"{"turn":1,"step":2,"chunk":{"type":"text-delta","a":0,"b":0,"c":0,"d":0,"e":0,"f":0,"g":0,"text":"a"}}"#;
    assert_eq!(chunk_data(many), None, "more skipped members than the pass tracks: deferred");
    assert!(read::<ChunkData>(many).is_ok(), "and the general reader reads it");
    let page = |value: &str, outer: &str| {
        respond("r1", &format!(r#"{{"ok":true,"value":{value}}}"#)).replacen('{', &format!("{{{outer}"), 1)
    };
    let repeats = [
        page(r#"{"events":[],"hasMore":false,"u":1,"u":2}"#, ""),
        page(r#"{"events":[{"event":{"type":"x","seq":0,"time":1},"u":1,"u":2}],"hasMore":false}"#, ""),
        page(r#"{"events":[],"hasMore":false}"#, r#""u":1,"u":2,"#),
    ];
    for body in &repeats {
        assert_eq!(general_page(body, "r1"), None, "{body}");
        assert_eq!(history_response(body, "r1"), None, "{body}");
    }
    let frame = r#"{"type":"server-request","rpcId":"r1","u":1,"u":2,"method":"session/event","payload":{"type":"session/event","sessionId":"s","event":{"type":"x","seq":0,"time":1}}}"#;
    assert!(agent_session_wire::inbound::parse_frame(frame).is_err());
    assert!(event_frame(frame).is_none());
}

#[test]
fn a_seq_past_the_wire_bound_defers_and_the_general_reader_refuses_it() {
    for seq in ["9007199254740992", "9223372036854775807", "18446744073709551615"] {
        let payload =
            format!(r#"{{"type":"session/event","sessionId":"s","event":{{"type":"x","seq":{seq},"time":1}}}}"#);
        let frame = server_request("session/event", &payload);
        assert!(event_frame(&frame).is_none(), "{seq}");
        assert!(parse_frame(&frame).is_err(), "{seq}");
    }
    let at_bound = server_request(
        "session/event",
        r#"{"type":"session/event","sessionId":"s","event":{"type":"x","seq":9007199254740991,"time":1}}"#,
    );
    assert!(event_frame(&at_bound).is_some());
}
