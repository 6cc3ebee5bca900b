//! Session titles (stored, announced on mux open and on change) and the live session status
//! of the host stream (running / waiting on the user).

mod common;

use agent_session_wire::Frame;
use common::*;
use serde_json::{json, Value};
use std::time::Duration;

fn last_title_event(host: &Host, sid: &str) -> Value {
    host.all_events(sid).into_iter().rfind(|e| e["type"] == "session/title").expect("a title event")
}

fn list_item(host: &Host, sid: &str) -> Value {
    let list = host.call("session.list", json!({}));
    list["items"].as_array().unwrap().iter().find(|i| i["sessionId"] == sid).cloned().expect("listed")
}

#[test]
fn titles_survive_a_restart_and_follow_subscribed_on_every_mux_open() {
    let mut host = Host::start(&["--chunk-delay-ms", "0"]);
    let sid = host.create();
    let untitled = host.create();
    let mut live = host.mux();
    host.prompt(&sid, "queue", "fix the login bug in auth. then deploy");
    // Live: the fallback title (first five words), then the "model" title, each right after
    // its own session/event frame.
    let frames = live.until("fallback title", |f| matches!(f, Frame::Title(_)));
    let n = frames.len();
    assert!(
        matches!(&frames[n - 2].frame, Frame::Event(e) if e.event.kind == "session/title"),
        "the title frame follows its event"
    );
    let Frame::Title(t) = &frames[n - 1].frame else { unreachable!() };
    assert_eq!(t.title, "fix the login bug in");
    let Frame::Title(t) = &live.until("model title", |f| matches!(f, Frame::Title(_))).pop().unwrap().frame else {
        unreachable!()
    };
    assert_eq!(t.title, "Fix the login bug in auth");
    host.wait_turn_end(&sid, 1);
    let ev = last_title_event(&host, &sid);
    assert_eq!(list_item(&host, &sid)["title"], "Fix the login bug in auth");
    assert!(list_item(&host, &untitled).get("title").is_none(), "no title before a message");

    host.kill9_and_restart();
    let mut mux = host.mux();
    let mut titles = Vec::new();
    let mut subscribed = Vec::new();
    while let Some(item) = mux.next(Duration::from_millis(500)) {
        let Item::Frame(f) = item else { continue };
        match f.frame {
            Frame::Subscribed(s) => subscribed.push(s.session_id),
            Frame::Title(t) => {
                assert_eq!(
                    subscribed.last(),
                    Some(&t.session_id),
                    "a title comes right after its session's subscribed"
                );
                titles.push(t)
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(subscribed.len(), 2);
    assert_eq!(titles.len(), 1, "the untitled session gets no title frame");
    assert_eq!(titles[0].title, "Fix the login bug in auth");
    assert_eq!(titles[0].event_seq, ev["seq"].as_u64().unwrap(), "eventSeq is the title event's seq");
    assert_eq!(titles[0].updated_at, ev["time"].as_f64().unwrap(), "updatedAt is the title event's time");
    assert_eq!(list_item(&host, &sid)["title"], "Fix the login bug in auth", "the list reads the stored title");
}

#[test]
fn a_message_without_text_leaves_the_session_untitled() {
    let host = Host::start(&["--chunk-delay-ms", "0"]);
    let sid = host.create();
    host.prompt(&sid, "queue", "   ");
    host.wait_turn_end(&sid, 1);
    assert!(host.all_events(&sid).iter().all(|e| e["type"] != "session/title"));
    host.prompt(&sid, "queue", "second try");
    host.wait_turn_end(&sid, 2);
    assert_eq!(last_title_event(&host, &sid)["data"]["title"], "Second try");
}

fn status(f: &Frame) -> Option<(bool, Option<bool>)> {
    match f {
        Frame::SessionStatus(s) => Some((s.running, s.waiting)),
        _ => None,
    }
}

#[test]
fn the_host_stream_says_when_a_turn_waits_on_the_user() {
    let host = Host::start(&["--chunk-delay-ms", "0"]);
    let mut hs = host.host_stream();
    let sid = host.create();
    let Frame::SessionAdded(added) = hs.frame().frame else { panic!("session-added first") };
    assert_eq!((added.session_id.as_str(), added.cwd.as_deref()), (sid.as_str(), Some("/workspace/project")));
    assert!(added.updated_at.is_some_and(|t| t > 1.0e12), "session-added carries the creation time");
    let mut mux = host.mux();
    host.prompt(&sid, "queue", "pick [question]");
    assert_eq!(status(&hs.frame().frame), Some((true, Some(false))), "turn start: working");
    assert_eq!(status(&hs.frame().frame), Some((true, Some(true))), "question asked: waiting");
    assert_eq!(list_item(&host, &sid)["waiting"], true);
    assert_eq!(list_item(&host, &sid)["running"], true);
    let asked = mux.until("question", |f| matches!(f, Frame::QuestionRequested(_))).pop().unwrap();
    let body = json!({ "type": "client-response", "rpcId": asked.rpc_id,
                       "result": { "ok": true, "value": { "answers": { "approach": "Refactor" } } } });
    assert_eq!(host.post("/api/respond", &body.to_string()).json()["accepted"], true);
    assert_eq!(status(&hs.frame().frame), Some((true, Some(false))), "answered: working again");
    let Frame::SessionStatus(end) = hs.frame().frame else { panic!("turn end status") };
    assert_eq!((end.running, end.waiting), (false, Some(false)));
    let events = host.wait_turn_end(&sid, 1);
    assert_eq!(end.updated_at, events.iter().rev().find(|e| e["type"] == "turn/end").unwrap()["time"].as_f64());
    assert_eq!(list_item(&host, &sid)["waiting"], false);
    let reply = events.iter().rev().find(|e| e["type"] == "assistant/message").unwrap();
    let text = reply["data"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("The user answered \u{201C}Refactor\u{201D}. Done."), "{text}");
    assert!(!text.contains('{'), "no raw JSON in a reply: {text}");
}

#[test]
fn a_dismissed_question_is_an_error_result_and_reads_cleanly() {
    let host = Host::start(&["--chunk-delay-ms", "0"]);
    let sid = host.create();
    let mut mux = host.mux();
    host.prompt(&sid, "queue", "[question]");
    let asked = mux.until("question", |f| matches!(f, Frame::QuestionRequested(_))).pop().unwrap();
    let body = json!({ "type": "client-response", "rpcId": asked.rpc_id,
                       "result": { "ok": false, "error": { "code": "cancelled", "message": "dismissed", "details": {} } } });
    assert_eq!(host.post("/api/respond", &body.to_string()).json()["accepted"], true);
    let events = host.wait_turn_end(&sid, 1);
    let result = events.iter().find(|e| e["type"] == "tool/result").unwrap();
    assert_eq!(result["data"]["isError"], true, "a dismissed question is not a successful tool run");
    let reply = events.iter().rev().find(|e| e["type"] == "assistant/message").unwrap();
    let text = reply["data"]["content"][0]["text"].as_str().unwrap();
    assert!(text.ends_with("The user dismissed the question. Done."), "{text}");
}

#[test]
fn a_payload_with_two_bad_fields_reports_both_and_413_is_plain_text() {
    let host = Host::start(&[]);
    let e = host.call_err("session.setPlanMode", json!({ "sessionId": 7, "active": "yes" }));
    let paths: Vec<&Value> = e["details"]["issues"].as_array().unwrap().iter().map(|i| &i["path"]).collect();
    assert_eq!(paths, [&json!(["sessionId"]), &json!(["active"])]);
    let big = "x".repeat(1024 * 1024 + 10);
    let raw = host.post("/api/session.prompt", &big);
    assert_eq!(raw.status, 413);
    assert_eq!(raw.content_type, "text/plain;charset=UTF-8", "the same type as every other carrier error");
    assert_eq!(raw.body, "body too large (limit 1 MiB)");
}
