//! Every unary method and every error shape of `tests/fixtures/wire/edge-cases.txt`.

mod common;

use common::*;
use serde_json::{json, Value};

#[test]
fn describe_list_create() {
    let host = Host::start(&["--chunk-delay-ms", "0"]);
    let d = host.call("host.describe", json!({}));
    assert_eq!(d["attachedSessions"], 0);
    for k in ["version", "cwd", "provider", "model"] {
        assert!(d[k].is_string(), "{k}");
    }
    let a = host.create();
    let b = host.call("session.create", json!({}))["sessionId"].as_str().unwrap().to_string();
    assert_ne!(a, b);
    assert_eq!(host.call("host.describe", json!({}))["attachedSessions"], 2);
    let items = host.call("session.list", json!({}))["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 2);
    // Most recently updated first.
    assert_eq!(items[0]["sessionId"], b.as_str());
    assert_eq!(items[1]["cwd"], "/workspace/project");
    assert!(items[1].get("parentSessionId").is_none());
    assert_eq!(items[1]["running"], false);
    assert!(items[1]["updatedAt"].as_f64().unwrap() > 0.0);
}

#[test]
fn history_pages_end_on_message_boundaries() {
    let host = Host::start(&["--chunk-delay-ms", "0"]);
    let sid = host.create();
    let empty = host.history(&sid, json!({}));
    assert_eq!(empty["events"], json!([]));
    assert_eq!(empty["hasMore"], false);
    assert_eq!(empty["projections"], json!({ "asOfSeq": -1, "values": { "plan": { "active": false } } }));
    for (i, text) in ["one", "two", "three"].iter().enumerate() {
        host.prompt(&sid, "queue", text);
        host.wait_turn_end(&sid, i as u64 + 1);
    }
    let all = host.all_events(&sid);
    let last = all.last().unwrap()["seq"].as_i64().unwrap();
    assert_eq!(all.len() as i64, last + 1, "contiguous from 0");
    for (i, e) in all.iter().enumerate() {
        assert_eq!(e["seq"], i as u64);
    }
    // Tail page of 2 messages: starts at the last user/message.
    let tail = host.history(&sid, json!({ "maxMessages": 2 }));
    let events: Vec<Value> = tail["events"].as_array().unwrap().iter().map(|i| i["event"].clone()).collect();
    assert_eq!(events[0]["type"], "user/message");
    assert_eq!(events.last().unwrap()["seq"], last);
    assert_eq!(tail["hasMore"], true);
    assert_eq!(tail["projections"]["asOfSeq"], last);
    // The older page ends exactly at beforeSeq - 1 and carries no baseline.
    let before = events[0]["seq"].as_u64().unwrap();
    let older = host.history(&sid, json!({ "beforeSeq": before, "maxMessages": 2 }));
    let older_events = older["events"].as_array().unwrap();
    assert_eq!(older_events.last().unwrap()["event"]["seq"], before - 1);
    assert!(matches!(older_events[0]["event"]["type"].as_str(), Some("user/message" | "assistant/message")));
    assert!(older.get("projections").is_none());
    // Default page covers everything here.
    let full = host.history(&sid, json!({}));
    assert_eq!(full["hasMore"], false);
    assert_eq!(full["events"].as_array().unwrap().len() as i64, last + 1);
    // Paging from 0 is empty.
    let none = host.history(&sid, json!({ "beforeSeq": 0 }));
    assert_eq!((none["events"].clone(), none["hasMore"].clone()), (json!([]), json!(false)));
    // maxMessages is clamped, not rejected, when huge.
    assert_eq!(host.history(&sid, json!({ "maxMessages": 1_000_000 }))["hasMore"], false);
}

/// Upstream's host writes an event's members in the order it builds them (`type, seq, time,
/// data`); the client reads a streamed chunk in the same pass only when `type` comes first.
#[test]
fn history_events_are_written_type_first_as_upstream_writes_them() {
    let host = Host::start(&["--chunk-delay-ms", "0"]);
    let sid = host.create();
    host.prompt(&sid, "queue", "hello");
    host.wait_turn_end(&sid, 1);
    let body = json!({ "type": "client-request", "rpcId": "r1", "method": "session.history", "payload": { "sessionId": sid } });
    let raw = host.post("/api/session.history", &body.to_string()).body;
    assert!(
        raw.starts_with(r#"{"type":"server-response","rpcId":"r1","result":{"ok":true,"value":{"events":["#),
        "{raw}"
    );
    let events = raw.matches(r#"{"event":{"#).count();
    assert!(events > 3, "{raw}");
    assert_eq!(raw.matches(r#"{"event":{"type":""#).count(), events, "{raw}");
    assert!(raw.contains(r#""type":"assistant/chunk","seq":"#), "{raw}");
}

#[test]
fn prompt_runs_a_full_turn_with_the_captured_shapes() {
    let host = Host::start(&["--chunk-delay-ms", "0"]);
    let sid = host.create();
    host.prompt(&sid, "queue", "Write a haiku about logs.");
    let events = host.wait_turn_end(&sid, 1);
    let t = types(&events);
    assert_eq!(&t[..4], &["turn/start", "user/message", "session/title", "step/start"]);
    assert_eq!(events[0]["data"]["trigger"]["kind"], "message");
    assert_eq!(events[0]["data"]["trigger"]["source"]["kind"], "user");
    assert!(events[0]["data"]["trigger"]["source"]["rpcId"].is_string());
    assert_eq!(events[1]["data"]["content"][0]["text"], "Write a haiku about logs.");
    assert_eq!(events[1]["surfaceOp"], "append");
    let msg = events.iter().find(|e| e["type"] == "assistant/message").unwrap();
    let chunk_seqs: Vec<f64> =
        events.iter().filter(|e| e["type"] == "assistant/chunk").map(|e| e["seq"].as_f64().unwrap()).collect();
    let source: Vec<f64> = msg["sourceEventSeqs"].as_array().unwrap().iter().map(|s| s.as_f64().unwrap()).collect();
    assert_eq!(source, chunk_seqs);
    assert_eq!(msg["data"]["provenance"]["model"], "scripted-agent-1");
    // The streamed deltas rebuild the message text.
    let streamed: String = events
        .iter()
        .filter(|e| e["data"]["chunk"]["type"] == "text-delta")
        .map(|e| e["data"]["chunk"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(msg["data"]["content"][0]["text"].as_str().unwrap(), streamed);
    assert!(streamed.contains("Write a haiku about logs."));
    assert_eq!(t[t.len() - 2..], ["step/end", "turn/end"]);
    assert_eq!(events.last().unwrap()["data"]["reason"]["kind"], "completed");
    assert_eq!(host.call("session.cancel", json!({ "sessionId": sid })), json!({ "accepted": true }));
}

#[test]
fn bad_payload_names_the_issue() {
    let host = Host::start(&[]);
    let sid = host.create();
    let e = host.call_err("session.setPlanMode", json!({ "sessionId": sid }));
    assert_eq!(e["code"], "bad-request");
    assert_eq!(e["message"], "invalid payload for session.setPlanMode");
    assert_eq!(e["details"]["issues"][0]["path"], json!(["active"]));
    let e = host.call_err("session.history", json!({ "sessionId": sid, "maxMessages": 0 }));
    assert_eq!(e["code"], "bad-request");
    assert_eq!(e["details"]["issues"][0]["path"], json!(["maxMessages"]));
    let e = host.call_err("session.history", json!({ "sessionId": sid, "beforeSeq": -1 }));
    assert_eq!(e["code"], "bad-request");
    let e = host.call_err("session.prompt", json!({ "sessionId": sid, "mode": "now", "content": [] }));
    assert_eq!(e["details"]["issues"][0]["path"], json!(["mode"]));
    let e = host.call_err("session.prompt", json!({ "sessionId": sid, "mode": "queue", "content": [] }));
    assert_eq!(e["details"]["issues"][0]["path"], json!(["content"]));
    let e = host.call_err("session.prompt", json!({ "sessionId": sid, "mode": "queue", "content": [{ "text": "x" }] }));
    assert_eq!(e["details"]["issues"][0]["path"], json!(["content", 0, "type"]));
    let e = host.call_err("session.history", json!([1, 2]));
    assert_eq!(e["code"], "bad-request");
}

#[test]
fn method_mismatch_unknown_method_and_not_json() {
    let host = Host::start(&[]);
    let raw = host.post(
        "/api/session.planMode",
        r#"{"type":"client-request","rpcId":"e2","method":"session.setPlanMode","payload":{}}"#,
    );
    assert_eq!(raw.status, 200);
    assert_eq!(
        raw.json(),
        json!({ "type": "server-response", "rpcId": "e2", "result": { "ok": false, "error": {
            "code": "bad-request",
            "message": "method \"session.setPlanMode\" does not match path \"session.planMode\"",
            "details": { "issues": [] } } } })
    );
    let raw = host
        .post("/api/session.bogus", r#"{"type":"client-request","rpcId":"x","method":"session.bogus","payload":{}}"#);
    assert_eq!((raw.status, raw.body.as_str()), (404, "not found"));
    assert!(raw.content_type.starts_with("text/plain"));
    let raw = host.post("/api/session.list", "{not json");
    assert_eq!((raw.status, raw.body.as_str()), (400, "body is not JSON"));
    assert!(raw.content_type.starts_with("text/plain"));
    let raw = host.post("/api/respond", "nope");
    assert_eq!((raw.status, raw.body.as_str()), (400, "body is not JSON"));
    assert!(raw.content_type.starts_with("text/plain"));
    // JSON that is not a valid client-response: the bare `bad-response` receipt, not an envelope.
    for body in [r#"{"type":"client-response","rpcId":"x","result":5}"#, r#"{"type":"client-response"}"#, "[]", "null"]
    {
        let raw = host.post("/api/respond", body);
        assert_eq!((raw.status, raw.json()), (200, json!({ "accepted": false, "reason": "bad-response" })), "{body}");
    }
    // JSON that is not a client-request envelope: a business error echoing what it can,
    // with the origin's message and its `invalid-request` sentinel for an unreadable rpcId.
    let raw = host.post("/api/session.list", r#"{"rpcId":"q","method":"session.list"}"#);
    assert_eq!(raw.json()["rpcId"], "q");
    assert_eq!(raw.json()["result"]["error"]["code"], "bad-request");
    assert_eq!(raw.json()["result"]["error"]["message"], "invalid client-request message");
    let raw = host.post("/api/session.list", r#"{"type":"client-request","rpcId":7,"method":"session.list"}"#);
    assert_eq!(raw.json()["rpcId"], "invalid-request");
    // The body is read before the method: non-JSON to an unknown method is 400, as at the origin.
    let raw = host.post("/api/session.bogus", "{not json");
    assert_eq!((raw.status, raw.body.as_str()), (400, "body is not JSON"));
    // Wrong HTTP method on an API path reads as unknown, like the origin.
    let raw = host.request("GET", "/api/session.list", &[], None);
    assert_eq!((raw.status, raw.body.as_str()), (404, "not found"));
    let raw = host.request("OPTIONS", "/api/session.list", &[], None);
    assert_eq!((raw.status, raw.body.as_str()), (404, "not found"));
}

#[test]
fn unknown_session_is_session_not_found() {
    for args in [&[][..], &["--no-plan-mode"][..]] {
        let host = Host::start(args);
        for m in ["session.history", "session.prompt", "session.cancel", "session.planMode", "session.setPlanMode"] {
            let payload = json!({ "sessionId": "no-such-session", "mode": "queue", "content": [{ "type": "text", "text": "x" }], "active": true });
            let e = host.call_err(m, payload);
            assert_eq!(
                e,
                json!({ "code": "session-not-found", "message": "session \"no-such-session\" not found", "details": { "sessionId": "no-such-session" } }),
                "{m}"
            );
        }
    }
}

#[test]
fn oversized_body_is_413() {
    let host = Host::start(&[]);
    let sid = host.create();
    let big = "x".repeat(1024 * 1024 + 10);
    let body = json!({ "type": "client-request", "rpcId": "big", "method": "session.prompt",
                       "payload": { "sessionId": sid, "mode": "queue", "content": [{ "type": "text", "text": big }] } });
    let raw = host.post("/api/session.prompt", &body.to_string());
    assert_eq!(raw.status, 413);
    assert!(raw.content_type.starts_with("text/plain"));
    assert_eq!(raw.body, "body too large (limit 1 MiB)");
}

#[test]
fn help_documents_every_flag() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_agent-session-host")).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--listen",
        "--db",
        "--no-plan-mode",
        "--faults",
        "--token",
        "--allow-origin",
        "--static",
        "--chunk-delay-ms",
        "--downlinks",
        "--wire",
    ] {
        assert!(help.contains(flag), "{flag} missing from --help");
    }
}

#[test]
fn serves_static_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("index.html"), "<h1>demo</h1>").unwrap();
    let host = Host::start(&["--static", dir.path().to_str().unwrap()]);
    let raw = host.request("GET", "/", &[], None);
    assert_eq!((raw.status, raw.body.as_str()), (200, "<h1>demo</h1>"));
    assert_eq!(host.request("GET", "/missing.js", &[], None).status, 404);
    // API routes still win.
    assert_eq!(host.call("host.describe", json!({}))["attachedSessions"], 0);
}
