//! WebSocket downlinks: the same frames as SSE, downlink-only sockets, and `--downlinks`.

mod common;

use agent_session_wire::{Frame, InboundFrame};
use common::*;
use serde_json::json;
use std::time::Duration;

/// What a frame says, without the per-open rpcIds of the baseline a mux open sends
/// (`session/subscribed` and the `session/title` after it; titles are compared by content
/// throughout). Every other frame is serialized once and shared, so its rpcId must match.
fn comparable(f: &InboundFrame) -> String {
    match &f.frame {
        Frame::Subscribed(_) | Frame::Title(_) => format!("{:?}", f.frame),
        _ => format!("{} {:?}", f.rpc_id, f.frame),
    }
}

fn rpc_id_of_question(frames: &[InboundFrame]) -> String {
    frames.iter().find(|f| matches!(f.frame, Frame::QuestionRequested(_))).expect("a question frame").rpc_id.clone()
}

#[test]
fn both_carriers_deliver_the_same_frames_on_both_paths() {
    let host = Host::start(&["--chunk-delay-ms", "0"]);
    let quiet = host.create();
    host.prompt(&quiet, "queue", "before the streams open");
    host.wait_turn_end(&quiet, 1);
    let mut mux: Vec<FrameStream> = CARRIERS.iter().map(|c| host.open(*c, "/api/events.mux")).collect();
    let mut hs: Vec<FrameStream> = CARRIERS.iter().map(|c| host.open(*c, "/api/events.host")).collect();

    let sid = host.create();
    host.prompt(&sid, "queue", "ask me [question]");
    let until_question =
        |s: &mut FrameStream| s.until("question/requested", |f| matches!(f, Frame::QuestionRequested(_)));
    let [sse, ws] = [until_question(&mut mux[0]), until_question(&mut mux[1])];
    assert_eq!(sse.iter().map(comparable).collect::<Vec<_>>(), ws.iter().map(comparable).collect::<Vec<_>>());
    assert!(matches!(ws[0].frame, Frame::Subscribed(ref s) if s.session_id == quiet), "baseline first");

    // A mux opened while the question waits replays it with the same rpcId, on both carriers.
    let rpc_id = rpc_id_of_question(&ws);
    for carrier in CARRIERS {
        let mut late = host.open(carrier, "/api/events.mux");
        let prelude = late.until("the replayed question", |f| matches!(f, Frame::QuestionRequested(_)));
        let labels: Vec<String> = prelude.iter().map(|f| frame_label(&f.frame)).collect();
        let expected = [
            "<session/subscribed>",
            "<session/title>",
            "<session/subscribed>",
            "<session/title>",
            "<question/requested>",
        ];
        assert_eq!(labels, expected, "{carrier:?}");
        assert_eq!(rpc_id_of_question(&prelude), rpc_id, "{carrier:?}");
    }

    let answer =
        json!({ "type": "client-response", "rpcId": rpc_id, "result": { "ok": true, "value": { "answer": "yes" } } });
    assert_eq!(host.post("/api/respond", &answer.to_string()).status, 200);
    let rest: Vec<Vec<String>> =
        mux.iter_mut().map(|s| s.until("turn/end", |f| is_turn_end(f, 1)).iter().map(comparable).collect()).collect();
    assert_eq!(rest[0], rest[1]);
    assert!(rest[0].iter().any(|f| f.contains("QuestionResolved")), "{:?}", rest[0]);

    // Every host frame of the scenario (added, then each status change), the same on both.
    let drain = |s: &mut FrameStream| {
        let mut frames = Vec::new();
        while let Some(item) = s.next(Duration::from_millis(300)) {
            match item {
                Item::Frame(f) => frames.push(comparable(&f)),
                other => panic!("unexpected {other:?}"),
            }
        }
        frames
    };
    let host_frames: Vec<Vec<String>> = hs.iter_mut().map(drain).collect();
    assert_eq!(host_frames[0], host_frames[1]);
    assert!(host_frames[1][0].contains("SessionAdded"), "{:?}", host_frames[1]);
    assert!(host_frames[1].len() >= 3, "{:?}", host_frames[1]);
    for s in mux.iter_mut().chain(hs.iter_mut()) {
        assert!(s.next(Duration::from_millis(200)).is_none(), "nothing more: no heartbeats on either carrier");
    }
}

#[test]
fn a_websocket_carries_bare_envelopes_with_no_connected_comment() {
    let host = Host::start(&[]);
    let sid = host.create();
    let mut ws = host.ws("/api/events.mux", &[]).expect("upgrade");
    match ws.next(WAIT) {
        Some(Item::Frame(f)) => match f.frame {
            Frame::Subscribed(s) => assert_eq!((s.session_id, s.last_seq), (sid, -1)),
            other => panic!("expected session/subscribed, got {other:?}"),
        },
        other => panic!("expected a frame first, got {other:?}"),
    }
    // The host stream has no prelude at all.
    let mut hs = host.ws("/api/events.host", &[]).expect("upgrade");
    assert!(hs.next(Duration::from_millis(300)).is_none());
}

#[test]
fn a_client_message_closes_the_socket_with_1008() {
    let host = Host::start(&[]);
    host.create();
    for (path, binary) in [("/api/events.mux", false), ("/api/events.host", false), ("/api/events.mux", true)] {
        let mut ws = host.ws(path, &[]).expect("upgrade");
        if binary {
            ws.send_binary(&[1, 2, 3]);
        } else {
            ws.send_text(r#"{"type":"client-request","rpcId":"up-1","method":"session.list","payload":{}}"#);
        }
        let rest = ws.wait_end();
        let closes: Vec<&Item> = rest.iter().filter(|i| !matches!(i, Item::Frame(_))).collect();
        assert!(matches!(closes[..], [Item::Close(1008, reason)] if reason == "downlink only"), "{path}: {rest:?}");
    }
}

#[test]
fn the_first_offered_subprotocol_is_echoed() {
    let host = Host::start(&[]);
    let mut ws = host.ws("/api/events.host", &[("sec-websocket-protocol", "agent.v1, json")]).expect("upgrade");
    assert_eq!(ws.protocol.as_deref(), Some("agent.v1"));
    host.create();
    assert!(matches!(ws.frame().frame, Frame::SessionAdded(_)));
}

#[test]
fn websocket_only_answers_426_to_a_plain_get() {
    let host = Host::start(&["--downlinks", "ws"]);
    for path in ["/api/events.mux", "/api/events.host"] {
        let raw = host.request("GET", path, &[("accept", "text/event-stream")], None);
        assert_eq!((raw.status, raw.body.as_str()), (426, "upgrade required"), "{path}");
        assert_eq!(raw.header("upgrade"), Some("websocket"));
        assert_eq!(raw.content_type, "text/plain;charset=UTF-8");
        let mut ws = host.ws(path, &[]).expect("upgrade still works");
        assert!(ws.next(Duration::from_millis(100)).is_none());
    }
}

#[test]
fn sse_only_never_upgrades() {
    let host = Host::start(&["--downlinks", "sse"]);
    host.create();
    for path in ["/api/events.mux", "/api/events.host"] {
        let refused = host.ws(path, &[]).err().unwrap_or_else(|| panic!("{path} upgraded"));
        // Like the seed host, which had no WebSocket route: the SSE stream, never a 101.
        assert_eq!(refused.status, 200, "{path}");
        assert_eq!(refused.content_type, "text/event-stream");
    }
    let mut mux = host.open(Carrier::Sse, "/api/events.mux");
    assert!(matches!(mux.frame().frame, Frame::Subscribed(_)));
}

#[test]
fn a_bad_upgrade_is_refused_before_any_stream() {
    let host = Host::start(&[]);
    let raw = host.request(
        "GET",
        "/api/events.mux",
        &[("connection", "upgrade"), ("upgrade", "websocket"), ("sec-websocket-version", "13")],
        None,
    );
    assert_eq!(raw.status, 400, "{}", raw.body);
    assert!(raw.body.contains("Sec-WebSocket-Key"), "{}", raw.body);
}
