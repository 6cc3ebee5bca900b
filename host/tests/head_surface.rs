//! `--wire 2026-08`: the search, models and workspace methods of upstream's host at
//! b150a551b8 (`session.search`, `session.models`, `session.selectModel`, `workspace.*`,
//! `session.create {workspaceId}`): the hand-written transcripts of `fixtures/head/` replayed,
//! the bounds, durability across a restart, the host frames on both carriers, and the seed
//! dialect's 404.

mod common;
#[path = "head_surface/replay.rs"]
mod replay;

use common::*;
use replay::{fixtures, fixtures_in, replay, RawFrames};
use serde_json::{json, Value};
use std::time::Duration;

const METHODS: [&str; 10] = [
    "session.search",
    "session.models",
    "session.selectModel",
    "workspace.list",
    "workspace.create",
    "workspace.rename",
    "workspace.delete",
    "workspace.insertBefore",
    "workspace.insertSessionBefore",
    "workspace.archiveSession",
];

fn upstream() -> Host {
    Host::start(&["--wire", "2026-08", "--chunk-delay-ms", "0"])
}

fn dir(root: &std::path::Path, name: &str) -> String {
    let d = root.join(name);
    std::fs::create_dir_all(&d).unwrap();
    d.canonicalize().unwrap().to_string_lossy().into_owned()
}

fn create_workspace(host: &Host, path: &str) -> String {
    host.call("workspace.create", json!({ "path": path }))["workspace"]["workspaceId"].as_str().unwrap().to_string()
}

fn create_in(host: &Host, workspace: &str) -> String {
    host.call("session.create", json!({ "workspaceId": workspace }))["sessionId"].as_str().unwrap().to_string()
}

/// The transcripts' setup (`fixtures/head/README.md`): its host, `$NAME` bindings and dirs.
fn setup() -> (Host, Vec<(String, String)>, tempfile::TempDir) {
    let host = upstream();
    let root = tempfile::tempdir().unwrap();
    let dirs = [dir(root.path(), "project-a"), dir(root.path(), "project-b"), dir(root.path(), "project-c")];
    let w1 = create_workspace(&host, &dirs[0]);
    let w2 = create_workspace(&host, &dirs[1]);
    let s1 = create_in(&host, &w1);
    host.prompt(&s1, "queue", "the quick brown fox jumps");
    host.wait_turn_end(&s1, 1);
    let s2 = create_in(&host, &w1);
    let names = [("$DIR", &dirs[0]), ("$DIR2", &dirs[1]), ("$DIR3", &dirs[2]), ("$W1", &w1), ("$W2", &w2)]
        .into_iter()
        .chain([("$S1", &s1), ("$S2", &s2)])
        .map(|(n, v)| (n.to_string(), v.clone()))
        .collect();
    (host, names, root)
}

#[test]
fn each_method_answers_as_its_transcript_written_from_upstream_source() {
    let files = fixtures();
    assert_eq!(files.len(), METHODS.len() + 1, "one transcript per method, and session.create: {files:?}");
    for file in files {
        replay_fresh(&file);
    }
}

/// The 2026-08 refusals of the session methods both dialects serve (`fixtures/head/refusals/`).
#[test]
fn each_refusal_answers_as_its_transcript_written_from_upstream_source() {
    let files = fixtures_in("refusals");
    assert_eq!(files.len(), 3, "{files:?}");
    for file in files {
        replay_fresh(&file);
    }
}

/// One transcript against a fresh host of [`setup`].
fn replay_fresh(file: &std::path::Path) {
    let (host, names, _dirs) = setup();
    replay(&host, &names, file, WAIT);
}

#[test]
fn the_seed_dialect_answers_these_methods_as_unknown_ones() {
    let host = Host::start(&[]);
    for method in METHODS.iter().chain(&["no.such.method"]) {
        let body = json!({ "type": "client-request", "rpcId": "r", "method": method, "payload": {} });
        let raw = host.post(&format!("/api/{method}"), &body.to_string());
        assert_eq!((raw.status, raw.body.as_str()), (404, "not found"), "{method}");
    }
}

#[test]
fn search_returns_at_most_20_sessions_and_says_when_more_matched() {
    let host = upstream();
    let sids: Vec<String> = (0..21).map(|_| host.create()).collect();
    for (i, sid) in sids.iter().enumerate() {
        host.prompt(sid, "queue", &format!("find the needle number {i}"));
    }
    for sid in &sids {
        host.wait_turn_end(sid, 1);
    }
    let all = host.call("session.search", json!({ "query": "NEEDLE" }));
    assert_eq!((all["items"].as_array().unwrap().len(), all["hasMore"].clone()), (20, json!(true)));
    let one = host.call("session.search", json!({ "query": "needle number 7" }));
    assert_eq!(one["items"], json!([{ "sessionId": sids[7], "snippet": "find the needle number 7" }]));
    assert_eq!(one["hasMore"], false);
    // Whole tokens, as upstream's index matches: no prefix match.
    assert_eq!(host.call("session.search", json!({ "query": "needl" }))["items"], json!([]));
}

#[test]
fn search_bounds_the_query_and_the_snippet() {
    let host = upstream();
    let sid = host.create();
    let long = format!("{} needle {}", "lorem ipsum ".repeat(60), "dolor sit ".repeat(60));
    host.prompt(&sid, "queue", &long);
    host.wait_turn_end(&sid, 1);
    let v = host.call("session.search", json!({ "query": "needle" }));
    let snippet = v["items"][0]["snippet"].as_str().unwrap();
    assert_eq!(snippet.chars().count(), 240, "{snippet}");
    assert!(snippet.starts_with('…') && snippet.ends_with('…') && snippet.contains(" needle "), "{snippet}");
    // 500 UTF-16 units are a query; 501 are an invalid payload, whatever the store holds.
    assert_eq!(host.call("session.search", json!({ "query": "é".repeat(500) }))["items"], json!([]));
    let err = host.call_err("session.search", json!({ "query": "😀".repeat(251) }));
    assert_eq!(
        (err["code"].clone(), err["details"]["issues"][0]["code"].clone()),
        (json!("bad-request"), json!("too_big"))
    );
    let err = host.call_err("session.search", json!({ "query": "a\u{0}b" }));
    assert_eq!(err["details"]["issues"][0]["path"], json!(["query"]));
}

#[test]
fn a_model_selection_survives_a_restart_and_publishes_nothing() {
    let mut host = upstream();
    let sid = host.create();
    let before = host.history(&sid, json!({}));
    let frames = RawFrames::open(&host);
    let selected = host.call(
        "session.selectModel",
        json!({ "sessionId": sid, "provider": "claude", "model": "claude-sonnet-4-5-20250929" }),
    );
    assert_eq!(selected, json!({ "selected": { "provider": "claude", "model": "claude-sonnet-4-5-20250929" } }));
    assert_eq!(frames.drain(Duration::from_millis(300)), Vec::<Value>::new(), "no host frame");
    assert_eq!(host.history(&sid, json!({})), before, "no event, no projection");
    host.kill9_and_restart();
    let models = host.call("session.models", json!({ "sessionId": sid }));
    assert_eq!(models["current"], selected["selected"]);
    assert_eq!(models["routable"], true);
    // An off-catalog model of a served route is accepted (catalog membership is advisory).
    let v = host.call("session.selectModel", json!({ "sessionId": sid, "provider": "cursor", "model": "custom" }));
    assert_eq!(v["selected"], json!({ "provider": "cursor", "model": "custom" }));
}

#[test]
fn workspaces_their_order_and_the_archive_set_survive_a_restart() {
    let mut host = upstream();
    let root = tempfile::tempdir().unwrap();
    let (a, b) = (dir(root.path(), "a"), dir(root.path(), "b"));
    let (wa, wb) = (create_workspace(&host, &a), create_workspace(&host, &b));
    let (s1, s2) = (create_in(&host, &wa), create_in(&host, &wa));
    host.call("workspace.rename", json!({ "workspaceId": wb, "title": "Bee" }));
    host.call("workspace.insertBefore", json!({ "workspaceId": wb }));
    host.call("workspace.insertSessionBefore", json!({ "workspaceId": wa, "sessionId": s2 }));
    host.call("workspace.archiveSession", json!({ "sessionId": s1 }));
    let before = host.call("workspace.list", json!({}));
    assert_eq!(before["items"][0]["sessionIds"], json!([s1, s2]));
    assert_eq!(before["items"][1]["title"], "Bee");
    assert_eq!(before["archivedSessionIds"], json!([s1]));
    host.kill9_and_restart();
    assert_eq!(host.call("workspace.list", json!({})), before);
    // The restarted registry keeps its rules: the same path is the same workspace.
    let again = host.call("workspace.create", json!({ "path": format!("{a}/.") }));
    assert_eq!((again["workspace"]["workspaceId"].clone(), again["created"].clone()), (json!(wa), json!(false)));
}

#[test]
fn workspace_frames_arrive_on_the_websocket_host_downlink_too() {
    let host = upstream();
    let root = tempfile::tempdir().unwrap();
    let mut ws = host.open(Carrier::Ws, "/api/events.host");
    let id = create_workspace(&host, &dir(root.path(), "ws"));
    host.call("workspace.delete", json!({ "workspaceId": id }));
    let mut seen = Vec::new();
    while seen.len() < 2 {
        // Frame types the wire crate does not know arrive as the raw text.
        match ws.next(WAIT) {
            Some(Item::Bad(text)) => seen.push(serde_json::from_str::<Value>(&text).unwrap()),
            Some(Item::Frame(f)) => panic!("unexpected frame {:?}", f.frame.type_name()),
            other => panic!("expected the workspace frames, got {other:?}"),
        }
    }
    assert_eq!(seen[0]["payload"]["type"], "host/workspace-changed");
    assert_eq!(seen[0]["payload"]["workspace"]["workspaceId"], id.as_str());
    assert_eq!(seen[1]["payload"], json!({ "type": "host/workspace-removed", "workspaceId": id }));
}

#[test]
fn a_no_op_writes_and_publishes_nothing() {
    let host = upstream();
    let root = tempfile::tempdir().unwrap();
    let w = create_workspace(&host, &dir(root.path(), "same"));
    let sid = create_in(&host, &w);
    host.call("workspace.archiveSession", json!({ "sessionId": sid }));
    let before = host.call("workspace.list", json!({}));
    let frames = RawFrames::open(&host);
    host.call("workspace.rename", json!({ "workspaceId": w, "title": " same " }));
    host.call("workspace.insertBefore", json!({ "workspaceId": w }));
    host.call("workspace.insertSessionBefore", json!({ "workspaceId": w, "sessionId": sid, "beforeSessionId": sid }));
    host.call("workspace.archiveSession", json!({ "sessionId": sid }));
    host.call("workspace.create", json!({ "path": before["items"][0]["path"] }));
    assert_eq!(frames.drain(Duration::from_millis(300)), Vec::<Value>::new());
    assert_eq!(host.call("workspace.list", json!({})), before, "updatedAt unchanged too");
}
