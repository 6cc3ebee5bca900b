//! Fault injection knobs (`--faults`) and their absence without the flag.

mod common;

use agent_session_wire::Frame;
use common::*;
use serde_json::json;
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[test]
fn admin_route_is_absent_without_the_flag() {
    let host = Host::start(&[]);
    let raw = host.admin(json!({ "command": "drop-streams" }));
    assert_eq!((raw.status, raw.body.as_str()), (404, "not found"));
}

#[test]
fn bad_commands_are_400() {
    let host = Host::start(&["--faults"]);
    assert_eq!(host.admin(json!({ "command": "explode" })).status, 400);
    assert_eq!(host.post("/admin/faults", "{{").status, 400);
    let raw = host.admin(json!([{ "command": "withhold", "count": 2 }, { "command": "status" }]));
    assert_eq!(raw.status, 200);
    assert_eq!(raw.json()["faults"]["withhold"], 2);
    host.admin(json!({ "command": "clear" }));
}

#[test]
fn drop_streams_ends_every_open_stream_on_both_carriers() {
    let host = Host::start(&["--faults"]);
    host.create();
    let mut streams = Vec::new();
    for carrier in CARRIERS {
        let mut mux = host.open(carrier, "/api/events.mux");
        mux.frame();
        streams.push((carrier, mux));
        streams.push((carrier, host.open(carrier, "/api/events.host")));
    }
    assert_eq!(host.admin(json!({ "command": "drop-streams" })).status, 200);
    for (carrier, mut s) in streams {
        let rest = s.wait_end();
        // SSE just ends; a WebSocket gets a close frame without a status first.
        match carrier {
            Carrier::Sse => assert!(rest.is_empty(), "{rest:?}"),
            Carrier::Ws => assert!(matches!(rest[..], [Item::Close(1005, _)]), "{rest:?}"),
        }
    }
    // New streams work.
    for carrier in CARRIERS {
        let mut again = host.open(carrier, "/api/events.mux");
        assert!(matches!(again.frame().frame, Frame::Subscribed(_)));
    }
}

#[test]
fn stream_error_sends_one_stream_error_frame_on_the_mux_of_both_carriers() {
    let host = Host::start(&["--faults"]);
    host.create();
    let mut muxes: Vec<FrameStream> = CARRIERS.iter().map(|c| host.open(*c, "/api/events.mux")).collect();
    for mux in &mut muxes {
        assert!(matches!(mux.frame().frame, Frame::Subscribed(_)));
    }
    assert_eq!(host.admin(json!({ "command": "stream-error" })).status, 200);
    for mux in &mut muxes {
        let frames = mux.until("stream/error", |f| matches!(f, Frame::StreamError(_)));
        let Frame::StreamError(e) = &frames.last().unwrap().frame else { unreachable!() };
        assert!(e.error.text().contains("injected"), "{}", e.error.text());
    }
}

#[test]
fn withhold_holds_a_response_until_released() {
    let host = std::sync::Arc::new(Host::start(&["--faults"]));
    let mut hs = host.host_stream();
    host.admin(json!({ "command": "withhold", "count": 1 }));
    let (tx, rx) = mpsc::channel();
    let h = host.clone();
    std::thread::spawn(move || {
        let _ = tx.send(h.call("session.create", json!({ "cwd": "/held" })));
    });
    // The handler ran (its effect is visible on the host stream) but the response is held.
    assert!(matches!(hs.frame().frame, Frame::SessionAdded(_)));
    assert!(rx.recv_timeout(Duration::from_millis(200)).is_err(), "response was not withheld");
    host.admin(json!({ "command": "release" }));
    let v = rx.recv_timeout(WAIT).expect("released response");
    assert!(v["sessionId"].as_str().unwrap().starts_with("session-"));
}

#[test]
fn fail_replaces_the_next_responses_of_one_method_with_a_carrier_error() {
    let host = Host::start(&["--faults"]);
    let sid = host.create();
    host.admin(json!({ "command": "fail", "count": 1, "method": "session.planMode" }));
    host.call("host.describe", json!({}));
    let payload = json!({ "sessionId": sid }).to_string();
    let envelope = |rpc: &str| {
        format!(r#"{{"type":"client-request","rpcId":"{rpc}","method":"session.planMode","payload":{payload}}}"#)
    };
    let raw = host.post("/api/session.planMode", &envelope("f1"));
    assert_eq!((raw.status, raw.body.as_str()), (503, "injected failure"));
    assert_eq!(raw.header("content-type"), Some("text/plain;charset=UTF-8"));
    assert_eq!(host.post("/api/session.planMode", &envelope("f2")).status, 200, "only the next one fails");
    assert_eq!(host.admin(json!({ "command": "status" })).json()["faults"]["fail"], 0);
}

#[test]
fn delay_slows_the_next_n_responses() {
    let host = Host::start(&["--faults"]);
    host.admin(json!({ "command": "delay", "count": 2, "ms": 250 }));
    for _ in 0..2 {
        let t = Instant::now();
        host.call("host.describe", json!({}));
        assert!(t.elapsed() >= Duration::from_millis(250));
    }
    assert_eq!(host.admin(json!({ "command": "status" })).json()["faults"]["delay"], 0);
}

#[test]
fn skip_mux_event_leaves_a_gap_that_history_repairs_on_both_carriers() {
    let host = Host::start(&["--faults", "--chunk-delay-ms", "0"]);
    let sid = host.create();
    let mut muxes: Vec<FrameStream> = CARRIERS.iter().map(|c| host.open(*c, "/api/events.mux")).collect();
    for mux in &mut muxes {
        mux.frame();
    }
    host.admin(json!({ "command": "skip-mux-event" }));
    host.prompt(&sid, "queue", "hello");
    for mux in &mut muxes {
        let frames = mux.until("turn/end", |f| is_turn_end(f, 1));
        let seqs = event_seqs(&frames);
        let last = *seqs.last().unwrap();
        assert_eq!(seqs.len() as u64, last, "exactly one frame skipped");
        assert!(!seqs.contains(&0), "the first event was the skipped one");
        assert_eq!(host.all_events(&sid).len() as u64, last + 1, "but it is logged");
    }
}

#[test]
fn reset_store_loses_the_log() {
    let host = Host::start(&["--faults", "--chunk-delay-ms", "0"]);
    let sid = host.create();
    host.prompt(&sid, "queue", "hello");
    host.wait_turn_end(&sid, 1);
    let mut muxes: Vec<FrameStream> = CARRIERS.iter().map(|c| host.open(*c, "/api/events.mux")).collect();
    for mux in &mut muxes {
        mux.frame();
    }
    host.admin(json!({ "command": "reset-store", "keepSessions": true }));
    for carrier in CARRIERS {
        muxes.remove(0).wait_end();
        let mut mux = host.open(carrier, "/api/events.mux");
        let Frame::Subscribed(s) = mux.frame().frame else { panic!("expected subscribed") };
        assert_eq!((s.session_id.as_str(), s.last_seq), (sid.as_str(), -1), "{carrier:?}");
    }
    assert_eq!(host.history(&sid, json!({}))["events"], json!([]));
    // The log starts again at 0.
    host.prompt(&sid, "queue", "again");
    let events = host.wait_turn_end(&sid, 1);
    assert_eq!(events[0]["seq"], 0);

    host.admin(json!({ "command": "reset-store" }));
    assert_eq!(host.call_err("session.history", json!({ "sessionId": sid }))["code"], "session-not-found");
    assert_eq!(host.call("session.list", json!({}))["items"], json!([]));
}

#[test]
fn seed_appends_synthetic_events() {
    let host = Host::start(&["--faults"]);
    let raw = host.admin(json!({ "command": "seed", "events": 1000, "messageEvery": 10 }));
    assert_eq!(raw.status, 200, "{}", raw.body);
    let r = &raw.json()["results"][0];
    assert_eq!(r["lastSeq"], 999);
    let sid = r["sessionId"].as_str().unwrap();
    let page = host.history(sid, json!({ "maxMessages": 4 }));
    let first = &page["events"][0]["event"];
    assert_eq!(first["type"], "user/message");
    assert_eq!(page["hasMore"], true);
    let raw = host.admin(json!({ "command": "seed", "sessionId": sid, "events": 5, "broadcast": true }));
    assert_eq!(raw.json()["results"][0]["lastSeq"], 1004);
}
