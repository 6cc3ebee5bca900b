//! `--wire 2026-08`: the reference host speaks the 2026-08 generation (the shapes of
//! `tests/fixtures/wire/websocket/`), so the client's scenarios run against both.

mod common;

use agent_session_wire::Frame;
use common::*;
use serde_json::{json, Value};

fn upstream() -> Host {
    Host::start(&["--wire", "2026-08", "--chunk-delay-ms", "0"])
}

fn execute(host: &Host, sid: &str, line: &str) -> Value {
    host.envelope("commands/execute", json!({ "args": { "agentId": sid, "line": line, "images": [] } }))
}

#[test]
fn the_plan_rpcs_are_gone() {
    let host = upstream();
    let sid = host.create();
    for method in ["session.planMode", "session.setPlanMode"] {
        let body = json!({ "type": "client-request", "rpcId": "r", "method": method, "payload": { "sessionId": sid, "active": true } });
        let raw = host.post(&format!("/api/{method}"), &body.to_string());
        assert_eq!((raw.status, raw.body.as_str()), (404, "not found"), "{method}");
    }
    // And the seed host has no commands endpoint.
    let seed = Host::start(&[]);
    assert_eq!(seed.post("/api/commands/execute", "{}").status, 404);
}

#[test]
fn plan_state_is_the_projection_and_plan_selects_it() {
    let host = upstream();
    let sid = host.create();
    let tail = host.history(&sid, json!({}));
    assert_eq!(tail["projections"]["values"]["plan"], json!({ "active": false, "pending": false }));
    let mut mux = host.mux();
    let env = execute(&host, &sid, "/plan");
    assert_eq!(env["result"]["ok"], true, "{env}");
    assert_eq!(env["result"]["value"]["result"]["kind"], "success");
    // Selected while idle: the pending flag, then committed at once (as capture 04 shows), all
    // before the handler's `command/done`.
    let frames = mux.until("command/done", |f| matches!(f, Frame::Event(e) if e.event.kind == "command/done"));
    let labels: Vec<String> = frames
        .iter()
        .filter_map(|f| match &f.frame {
            Frame::Projection(p) if p.key == "plan" => Some(format!("plan {}", p.value.text())),
            Frame::Event(e) if e.event.kind != "context/message" => Some(e.event.kind.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        labels,
        [
            "command/run",
            r#"plan {"active":false,"pending":true}"#,
            "plan/mode",
            r#"plan {"active":true,"pending":false}"#,
            "command/done"
        ]
    );
    let tail = host.history(&sid, json!({}));
    assert_eq!(tail["projections"]["values"]["plan"], json!({ "active": true, "pending": false }));
    // While a turn runs the selection waits for the next turn.
    let slow = Host::start(&["--wire", "2026-08", "--chunk-delay-ms", "40"]);
    let sid = slow.create();
    slow.prompt(&sid, "queue", "a reply long enough to stream for a while");
    assert_eq!(execute(&slow, &sid, "/plan")["result"]["ok"], true);
    let tail = slow.history(&sid, json!({}));
    assert_eq!(tail["projections"]["values"]["plan"], json!({ "active": false, "pending": true }));
}

#[test]
fn commands_answer_like_upstream() {
    let host = upstream();
    let sid = host.create();
    let names = |host: &Host, sid: &str| -> Vec<String> {
        let list = host.call("commands/list", json!({ "args": { "agentId": sid } }));
        list.as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap().to_string()).collect()
    };
    assert!(names(&host, &sid).contains(&"plan".to_string()));
    let without = Host::start(&["--wire", "2026-08", "--no-plan-mode"]);
    let other = without.create();
    assert!(!names(&without, &other).contains(&"plan".to_string()));
    assert_eq!(execute(&without, &other, "/plan")["result"], json!({ "ok": true }), "unknown there");
    // A line the host does not know: ok with no value at all.
    assert_eq!(execute(&host, &sid, "/nosuchcommand")["result"], json!({ "ok": true }));
    assert_eq!(execute(&host, "no-such-session", "/plan")["result"]["error"]["code"], "session-not-found");
    // A method that differs from the path reads as at every other endpoint.
    let body = json!({ "type": "client-request", "rpcId": "m", "method": "commands/list", "payload": {} });
    let raw = host.post("/api/commands/execute", &body.to_string());
    assert_eq!(
        raw.json()["result"]["error"]["message"],
        r#"method "commands/list" does not match path "commands/execute""#
    );
    let env = host.envelope("commands/execute", json!({ "agentId": sid, "line": "/plan" }));
    assert_eq!(env["result"]["error"]["message"], "Remote payload must contain exactly one plain-object args field");
}

#[test]
fn events_take_the_2026_08_shapes_in_history_and_on_the_mux() {
    let host = upstream();
    let sid = host.create();
    let mut mux = host.mux();
    host.prompt(&sid, "queue", "please [tool] it");
    let events = host.wait_turn_end(&sid, 1);
    let by_type = |t: &str| events.iter().find(|e| e["type"] == t).unwrap_or_else(|| panic!("no {t}")).clone();
    assert_eq!(by_type("turn/start")["data"], json!({ "turn": 1 }), "no trigger");
    let user = by_type("user/message");
    assert_eq!((user["data"]["role"].clone(), user["data"]["source"]["kind"].clone()), (json!("user"), json!("user")));
    let assistant = by_type("assistant/message");
    assert_eq!(assistant["data"]["message"]["role"], "assistant");
    assert!(assistant["data"]["message"]["content"].is_array() && assistant["data"].get("content").is_none());
    let result = by_type("tool/result");
    let part = &result["data"]["message"]["content"][0];
    assert_eq!(part["type"], "tool-result");
    assert_eq!(part["toolCallId"], by_type("tool/call")["data"]["callId"]);
    // The mux carries the same shapes.
    let frames =
        mux.until("assistant/message", |f| matches!(f, Frame::Event(e) if e.event.kind == "assistant/message"));
    assert!(frames.last().unwrap().frame.event().unwrap().data_value()["message"].is_object());
    assert!(
        !events.iter().any(|e| ["context/message", "steering/message"].contains(&e["type"].as_str().unwrap_or(""))),
        "the 2026-08 host logs those as user/message"
    );
}

#[test]
fn the_title_is_a_projection() {
    let host = upstream();
    let sid = host.create();
    let mut mux = host.mux();
    host.prompt(&sid, "queue", "name this session");
    host.wait_turn_end(&sid, 1);
    let tail = host.history(&sid, json!({}));
    let title = tail["projections"]["values"]["title"].clone();
    assert!(title.is_string(), "{title}");
    // The fallback title first, then the scripted "model" title (capitalised): the last one
    // announced is the one the tail page carries.
    let frames = mux.until(
        "final title projection",
        |f| matches!(f, Frame::Projection(p) if p.key == "title" && p.value.value() == title),
    );
    assert!(frames.iter().filter(|f| matches!(&f.frame, Frame::Projection(p) if p.key == "title")).count() >= 2);
    assert!(!frames.iter().any(|f| matches!(f.frame, Frame::Title(_))), "no session/title frames");
}
