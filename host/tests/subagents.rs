//! A child session's parent kept in SQLite (both dialects), and `--wire 2026-08`'s subagents
//! as upstream's host at b150a551b8 has them: the scripted agent's `subagent` tool spawning an
//! `origin: 'subagent'` child (`[subagent]`, `[subagent:continuable]`), `subagent.list`,
//! `subagent.history`, `subagent.prompt` and `subagent.interrupt` with upstream's codes (the
//! hand-written transcripts of `fixtures/head/subagents/` replayed), the catalog across a
//! restart, and the seed dialect's 404.

mod common;
#[path = "head_surface/replay.rs"]
#[allow(dead_code)]
mod replay;

use common::*;
use replay::{replay, RawFrames};
use serde_json::{json, Value};

fn host(wire: &str) -> Host {
    let mut args = vec!["--chunk-delay-ms", "0"];
    if wire == "2026-08" {
        args.extend(["--wire", "2026-08"]);
    }
    Host::start(&args)
}

fn item(host: &Host, sid: &str) -> Value {
    let items = host.call("session.list", json!({}))["items"].as_array().unwrap().clone();
    items.into_iter().find(|i| i["sessionId"] == sid).unwrap_or_else(|| panic!("{sid} not listed"))
}

#[test]
fn a_forks_parent_survives_a_restart_in_both_dialects() {
    for wire in ["seed", "2026-08"] {
        let mut host = host(wire);
        let parent = host.create();
        host.prompt(&parent, "queue", "hello");
        host.wait_turn_end(&parent, 1);
        let child =
            host.call("session.fork", json!({ "sessionId": parent }))["sessionId"].as_str().unwrap().to_string();
        host.kill9_and_restart();
        assert_eq!(item(&host, &child)["parentSessionId"], parent, "{wire}: listed with its parent after a restart");
        assert!(item(&host, &parent).get("parentSessionId").is_none(), "{wire}: a root has none");
        // A fork of the restored child names it in its `host/session-added`.
        let frames = RawFrames::open(&host);
        let grandchild =
            host.call("session.fork", json!({ "sessionId": child }))["sessionId"].as_str().unwrap().to_string();
        let added = frames.next_of("host/session-added", WAIT).expect("host/session-added");
        assert_eq!(added["payload"]["sessionId"], grandchild.as_str(), "{wire}");
        assert_eq!(added["payload"]["parentSessionId"], child.as_str(), "{wire}");
        assert!(added["payload"].get("origin").is_none(), "{wire}: a fork is not a subagent");
        host.kill9_and_restart();
        assert_eq!(item(&host, &grandchild)["parentSessionId"], child, "{wire}: again after a second restart");
    }
}

fn upstream() -> Host {
    host("2026-08")
}

/// Prompts `parent` with `text` and returns the child its turn spawned (from `host/session-added`).
fn spawn(host: &Host, parent: &str, text: &str) -> (String, Value) {
    let frames = RawFrames::open(host);
    host.prompt(parent, "queue", text);
    let added = frames.next_of("host/session-added", WAIT).expect("the child's host/session-added");
    let child = added["payload"]["sessionId"].as_str().unwrap().to_string();
    (child, added)
}

fn tool_call<'a>(events: &'a [Value], name: &str) -> &'a Value {
    events.iter().find(|e| e["type"] == "tool/call" && e["data"]["name"] == name).expect("the tool call")
}

fn tool_result_text(events: &[Value], call_id: &Value) -> (String, bool) {
    let r = events
        .iter()
        .find(|e| e["type"] == "tool/result" && e["data"]["message"]["source"]["callId"] == *call_id)
        .expect("the tool result");
    let part = &r["data"]["message"]["content"][0];
    (part["content"][0]["text"].as_str().unwrap().to_string(), part["isError"] == true)
}

#[test]
fn a_one_shot_subagent_runs_a_child_turn_and_the_parent_gets_its_answer() {
    let host = upstream();
    let parent = host.create();
    let (child, added) = spawn(&host, &parent, "delegate this [subagent]");
    assert_eq!(added["payload"]["origin"], "subagent");
    assert_eq!(added["payload"]["parentSessionId"], parent.as_str());
    let events = host.wait_turn_end(&parent, 1);
    let call = tool_call(&events, "subagent");
    assert_eq!(
        call["data"]["arguments"],
        json!({ "description": "Summarize the README", "prompt": "Summarize README.md in one sentence." })
    );
    // The child's turn completed before the parent's tool result, which is its final text.
    let child_events = host.all_events(&child);
    let kinds: Vec<&str> = child_events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(kinds.first(), Some(&"subagent/descriptor"), "{kinds:?}");
    assert_eq!(
        child_events[0]["data"],
        json!({ "version": 2, "mode": "one-shot", "provider": "spawn", "label": "Summarize the README" })
    );
    assert!(kinds.contains(&"user/message") && kinds.last() == Some(&"turn/end"), "{kinds:?}");
    let reply = child_events.iter().rev().find(|e| e["type"] == "assistant/message").unwrap();
    let answer = reply["data"]["message"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(tool_result_text(&events, &call["data"]["callId"]), (answer.to_string(), false));
    let end = events.iter().rev().find(|e| e["type"] == "turn/end").unwrap();
    assert_eq!(end["data"]["reason"]["kind"], "completed");
    let listed = item(&host, &child);
    assert_eq!((&listed["origin"], &listed["parentSessionId"]), (&json!("subagent"), &json!(parent)));
    assert!(item(&host, &parent).get("origin").is_none());
}

#[test]
fn a_continuable_subagent_is_started_in_the_background_and_named_in_the_tool_result() {
    let host = upstream();
    let parent = host.create();
    let (child, added) = spawn(&host, &parent, "delegate this [subagent:continuable]");
    assert_eq!(added["payload"]["origin"], "subagent");
    let events = host.wait_turn_end(&parent, 1);
    let call = tool_call(&events, "subagent");
    assert_eq!(call["data"]["arguments"]["run_in_background"], true);
    assert_eq!(tool_result_text(&events, &call["data"]["callId"]), (format!("started subagent {child}"), false));
    let child_events = host.wait_turn_end(&child, 1);
    assert_eq!(child_events[0]["data"]["mode"], "continuable");
}

#[test]
fn the_seed_dialect_spawns_no_subagent() {
    let host = host("seed");
    let parent = host.create();
    host.prompt(&parent, "queue", "delegate this [subagent]");
    let events = host.wait_turn_end(&parent, 1);
    assert!(!events.iter().any(|e| e["type"] == "tool/call"), "{:?}", types(&events));
    assert_eq!(host.call("session.list", json!({}))["items"].as_array().unwrap().len(), 1);
}

const METHODS: [&str; 4] = ["subagent.list", "subagent.history", "subagent.prompt", "subagent.interrupt"];

/// The transcripts' setup (`fixtures/head/subagents/README.md`): its host and `$NAME` bindings.
fn setup() -> (Host, Vec<(String, String)>) {
    let host = upstream();
    let parent = host.create();
    let (one, _) = spawn(&host, &parent, "delegate [subagent]");
    host.wait_turn_end(&parent, 1);
    let (cont, _) = spawn(&host, &parent, "delegate [subagent:continuable]");
    host.wait_turn_end(&parent, 2);
    host.wait_turn_end(&cont, 1);
    let other = host.create();
    let names = [("$P", parent), ("$ONE", one), ("$CONT", cont), ("$Q", other)];
    (host, names.into_iter().map(|(n, v)| (n.to_string(), v)).collect())
}

fn name<'a>(names: &'a [(String, String)], n: &str) -> &'a str {
    &names.iter().find(|(k, _)| k == n).unwrap().1
}

#[test]
fn each_subagent_method_answers_as_its_transcript_written_from_upstream_source() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/head/subagents");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert_eq!(files.len(), METHODS.len(), "one transcript per method: {files:?}");
    for file in files {
        let (host, names) = setup();
        replay(&host, &names, &file, WAIT);
    }
}

#[test]
fn subagent_history_pages_the_childs_log_as_session_history_does() {
    let (host, names) = setup();
    let (parent, one) = (name(&names, "$P"), name(&names, "$ONE"));
    let address = json!({ "parentSessionId": parent, "childSessionId": one, "mode": "one-shot" });
    let tail = host.call("subagent.history", address.clone());
    // Upstream serves a child's own `session.history` too: the same page.
    assert_eq!(tail, host.history(one, json!({})));
    assert!(tail["projections"]["values"].get("title").is_some(), "{tail}");
    let mut older = address.clone();
    older["maxMessages"] = json!(1);
    let last = host.call("subagent.history", older.clone());
    assert_eq!(last["events"][0]["event"]["type"], "assistant/message");
    assert_eq!(last["hasMore"], true);
    older["beforeSeq"] = last["events"][0]["event"]["seq"].clone();
    let before = host.call("subagent.history", older);
    assert!(before.get("projections").is_none(), "an older page has no baseline");
    assert_eq!(before["events"][0]["event"]["type"], "user/message");
}

#[test]
fn subagent_prompt_plays_a_new_turn_in_a_continuable_child() {
    let (host, names) = setup();
    let (parent, cont) = (name(&names, "$P"), name(&names, "$CONT"));
    let content = json!([{ "type": "text", "text": "And the licence?" }]);
    let v = host.call(
        "subagent.prompt",
        json!({ "parentSessionId": parent, "childSessionId": cont, "mode": "continuable", "content": content }),
    );
    assert!(v["messageId"].as_str().is_some_and(|id| !id.is_empty()), "{v}");
    let events = host.wait_turn_end(cont, 2);
    let user = events.iter().rev().find(|e| e["type"] == "user/message").unwrap();
    assert_eq!(user["data"]["content"], content);
    assert_eq!(host.call("subagent.list", json!({ "parentSessionId": parent }))["entries"][1]["activity"], "inactive");
}

#[test]
fn subagent_interrupt_ends_the_childs_running_turn() {
    let host = Host::start(&["--wire", "2026-08", "--chunk-delay-ms", "40"]);
    let parent = host.create();
    let (cont, _) = spawn(&host, &parent, "delegate [subagent:continuable]");
    host.wait_event(&cont, "the child's turn/start", |e| e["type"] == "turn/start");
    let address = json!({ "parentSessionId": parent, "childSessionId": cont, "mode": "continuable" });
    let listed = host.call("subagent.list", json!({ "parentSessionId": parent }));
    assert_eq!(listed["entries"][0]["activity"], "running", "{listed}");
    assert_eq!(host.call("subagent.interrupt", address), json!({ "accepted": true }));
    let events = host.wait_turn_end(&cont, 1);
    let end = events.iter().rev().find(|e| e["type"] == "turn/end").unwrap();
    assert_eq!(end["data"]["reason"]["kind"], "interrupted");
}

#[test]
fn the_subagent_catalog_survives_a_restart() {
    let (mut host, names) = setup();
    let parent = name(&names, "$P").to_string();
    let before = host.call("subagent.list", json!({ "parentSessionId": parent }));
    host.kill9_and_restart();
    assert_eq!(host.call("subagent.list", json!({ "parentSessionId": parent })), before);
    let one = name(&names, "$ONE");
    let listed = item(&host, one);
    assert_eq!((&listed["origin"], &listed["parentSessionId"]), (&json!("subagent"), &json!(parent)));
    let address = json!({ "parentSessionId": parent, "childSessionId": one, "mode": "one-shot" });
    assert!(host.call("subagent.history", address)["events"].as_array().is_some_and(|e| !e.is_empty()));
}

#[test]
fn the_seed_dialect_answers_the_subagent_methods_as_unknown_ones() {
    let host = host("seed");
    for method in METHODS {
        let body = json!({ "type": "client-request", "rpcId": "r", "method": method, "payload": {} });
        let raw = host.post(&format!("/api/{method}"), &body.to_string());
        assert_eq!((raw.status, raw.body.as_str()), (404, "not found"), "{method}");
    }
}
