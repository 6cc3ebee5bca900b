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
