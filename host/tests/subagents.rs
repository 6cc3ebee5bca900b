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
use replay::RawFrames;
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
