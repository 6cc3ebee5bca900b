//! `session.prompt` is idempotent by its envelope rpcId per session: a repeat (the client
//! sends a prompt again because the first answer was lost) answers as the first one did and
//! logs nothing new, also after a restart (the log's `user/message` names the rpcId).

mod common;

use common::*;
use serde_json::{json, Value};

fn prompt_as(host: &Host, rpc_id: &str, sid: &str, text: &str) -> Value {
    let body = json!({
        "type": "client-request",
        "rpcId": rpc_id,
        "method": "session.prompt",
        "payload": { "sessionId": sid, "mode": "queue", "content": [{ "type": "text", "text": text }] },
    });
    let raw = host.post("/api/session.prompt", &body.to_string());
    assert_eq!(raw.status, 200, "{}", raw.body);
    raw.json()
}

fn user_messages(host: &Host, sid: &str, rpc_id: &str) -> usize {
    host.all_events(sid)
        .iter()
        .filter(|e| e["type"] == "user/message" && e["data"]["source"]["rpcId"] == rpc_id)
        .count()
}

#[test]
fn a_repeated_rpc_id_logs_one_user_message_also_after_a_restart() {
    let mut host = Host::start(&[]);
    let sid = host.create();
    let first = prompt_as(&host, "c9-1", &sid, "hello");
    assert_eq!(first["result"], json!({ "ok": true, "value": { "accepted": true } }));
    // At once (the turn may still run) and after the turn: the same answer, nothing logged.
    let again = prompt_as(&host, "c9-1", &sid, "hello");
    assert_eq!(again["result"], first["result"]);
    host.wait_turn_end(&sid, 1);
    assert_eq!(prompt_as(&host, "c9-1", &sid, "hello")["result"], first["result"]);
    assert_eq!(user_messages(&host, &sid, "c9-1"), 1);
    let before = host.all_events(&sid).len();
    host.kill9_and_restart();
    assert_eq!(prompt_as(&host, "c9-1", &sid, "hello")["result"], first["result"]);
    assert_eq!(host.all_events(&sid).len(), before, "a repeat after a restart logs nothing");
    assert_eq!(user_messages(&host, &sid, "c9-1"), 1);
    // Another rpcId is another prompt; the same rpcId in another session is that session's.
    assert_eq!(prompt_as(&host, "c9-2", &sid, "next")["result"]["ok"], true);
    host.wait_turn_end(&sid, 2);
    assert_eq!(user_messages(&host, &sid, "c9-2"), 1);
    let other = host.create();
    prompt_as(&host, "c9-1", &other, "hello");
    host.wait_turn_end(&other, 1);
    assert_eq!(user_messages(&host, &other, "c9-1"), 1);
}

#[test]
fn a_prompt_queued_behind_a_running_turn_outlives_a_kill9_and_runs_once_after_the_restart() {
    let mut host = Host::start(&[]);
    let sid = host.create();
    // The first turn waits for an approval: it is still running when the host dies.
    assert_eq!(prompt_as(&host, "c9-1", &sid, "Clean up. [approval]")["result"]["ok"], true);
    host.wait_event(&sid, "the approval request", |e| e["type"] == "turn/start");
    let queued = prompt_as(&host, "c9-2", &sid, "Then this.");
    assert_eq!(queued["result"], json!({ "ok": true, "value": { "accepted": true } }));
    assert_eq!(user_messages(&host, &sid, "c9-2"), 0, "queued, not logged yet");
    host.kill9_and_restart();
    // The cut turn is closed; the queued prompt, accepted before the kill, runs now.
    host.wait_turn_end(&sid, 2);
    assert_eq!(user_messages(&host, &sid, "c9-2"), 1);
    // A client that never heard the answer sends it again: answered, nothing new logged.
    assert_eq!(prompt_as(&host, "c9-2", &sid, "Then this.")["result"], queued["result"]);
    host.kill9_and_restart();
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(user_messages(&host, &sid, "c9-2"), 1, "not run again by the next restart");
    assert_eq!(user_messages(&host, &sid, "c9-1"), 1);
}
