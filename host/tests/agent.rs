//! The scripted agent: cancel, steer, queue, questions, approvals, tools, plan-mode replies.

mod common;

use agent_session_wire::{ApprovalOutcome, Frame, QuestionOutcome};
use common::*;
use serde_json::{json, Value};

/// `POST /api/respond`; the host answers the bare receipt (no envelope), like the origin.
fn respond(host: &Host, rpc_id: &str, result: Value) -> Value {
    let body = json!({ "type": "client-response", "rpcId": rpc_id, "result": result });
    let raw = host.post("/api/respond", &body.to_string());
    assert_eq!(raw.status, 200);
    assert!(raw.content_type.starts_with("application/json"), "{}", raw.content_type);
    raw.json()
}

#[test]
fn cancel_interrupts_a_streaming_turn() {
    let host = Host::start(&["--chunk-delay-ms", "30"]);
    let sid = host.create();
    let mut mux = host.mux();
    host.prompt(&sid, "queue", "a long answer please with many many words in it to stream slowly");
    mux.until(
        "a text delta",
        |f| matches!(f, Frame::Event(e) if e.event.data_value()["chunk"]["type"] == "text-delta"),
    );
    assert_eq!(host.call("session.list", json!({}))["items"][0]["running"], true);
    assert_eq!(host.call("session.cancel", json!({ "sessionId": sid })), json!({ "accepted": true }));
    // Answered after turn/end is committed.
    let events = host.all_events(&sid);
    let last = events.last().unwrap();
    assert_eq!(last["type"], "turn/end");
    assert_eq!(last["data"]["reason"]["kind"], "interrupted");
    assert!(!types(&events).contains(&"assistant/message"), "partial text stays as chunks only");
    assert!(types(&events).contains(&"assistant/chunk"));
    assert_eq!(host.call("session.list", json!({}))["items"][0]["running"], false);
    // The session takes new prompts afterwards.
    host.prompt(&sid, "queue", "again");
    host.wait_turn_end(&sid, 2);
}

#[test]
fn queue_waits_and_steer_interrupts() {
    let host = Host::start(&["--chunk-delay-ms", "20"]);
    let sid = host.create();
    host.prompt(&sid, "queue", "first prompt with a reasonably long reply to stream");
    host.prompt(&sid, "queue", "second");
    let events = host.wait_turn_end(&sid, 2);
    let ends: Vec<&Value> = events.iter().filter(|e| e["type"] == "turn/end").collect();
    assert_eq!(ends.len(), 2);
    assert!(ends.iter().all(|e| e["data"]["reason"]["kind"] == "completed"));

    host.prompt(&sid, "queue", "third prompt with a reasonably long reply to stream slowly");
    host.wait_event(&sid, "a delta of turn 3", |e| {
        e["data"]["turn"] == 3 && e["data"]["chunk"]["type"] == "text-delta"
    });
    host.prompt(&sid, "steer", "change of plan");
    let events = host.wait_turn_end(&sid, 4);
    let end3 = events.iter().find(|e| e["type"] == "turn/end" && e["data"]["turn"] == 3).unwrap();
    assert_eq!(end3["data"]["reason"]["kind"], "interrupted");
    let start4 = events.iter().position(|e| e["type"] == "turn/start" && e["data"]["turn"] == 4).unwrap();
    assert_eq!(events[start4 + 1]["type"], "user/message");
    assert_eq!(events[start4 + 1]["data"]["content"][0]["text"], "change of plan");
    assert_eq!(events.last().unwrap()["data"]["reason"]["kind"], "completed");
}

#[test]
fn question_round_trip_and_replay_on_mux_open() {
    let host = Host::start(&["--chunk-delay-ms", "0"]);
    let sid = host.create();
    let mut mux = host.mux();
    host.prompt(&sid, "queue", "Pick one [question]");
    let frames = mux.until("question/requested", |f| matches!(f, Frame::QuestionRequested(_)));
    let asked = frames.last().unwrap();
    let Frame::QuestionRequested(q) = &asked.frame else { unreachable!() };
    assert_eq!(q.session_id, sid);
    assert_eq!(q.questions[0].id, "approach");
    assert!(q.questions[0].options.as_ref().is_some_and(|o| o.len() == 2));
    // A second mux open replays the pending question with the same rpcId.
    let mut again = host.mux();
    let replayed = again.until("replayed question", |f| matches!(f, Frame::QuestionRequested(_)));
    assert_eq!(replayed.last().unwrap().rpc_id, asked.rpc_id);
    // Bad envelope, unknown rpcId.
    assert_eq!(
        respond(&host, "nope", json!({ "ok": true, "value": {} })),
        json!({ "accepted": false, "reason": "not-pending" })
    );
    assert_eq!(
        respond(&host, &asked.rpc_id, json!({ "ok": true, "value": "not an object" })),
        json!({ "accepted": false, "reason": "bad-response" })
    );
    assert_eq!(
        respond(&host, &asked.rpc_id, json!({ "ok": true, "value": { "answers": { "approach": "Refactor" } } })),
        json!({ "accepted": true })
    );
    assert_eq!(
        respond(&host, &asked.rpc_id, json!({ "ok": true, "value": {} })),
        json!({ "accepted": false, "reason": "not-pending" })
    );
    let frames = mux.until("question/resolved", |f| matches!(f, Frame::QuestionResolved(_)));
    let Frame::QuestionResolved(r) = &frames.last().unwrap().frame else { unreachable!() };
    assert_eq!((r.question_rpc_id.as_str(), r.outcome), (asked.rpc_id.as_str(), QuestionOutcome::Answered));
    let events = host.wait_turn_end(&sid, 1);
    let call = events.iter().find(|e| e["type"] == "tool/call").unwrap();
    assert_eq!(call["data"]["name"], "ask_user_question");
    let result = events.iter().find(|e| e["type"] == "tool/result").unwrap();
    assert_eq!(result["data"]["callId"], call["data"]["callId"]);
    let last_msg = events.iter().rev().find(|e| e["type"] == "assistant/message").unwrap();
    assert!(last_msg["data"]["content"][0]["text"].as_str().unwrap().contains("Refactor"));
    assert_eq!(events.last().unwrap()["data"]["reason"]["kind"], "completed");
    // A resolved question is not replayed any more.
    let mut third = host.mux();
    assert!(matches!(third.frame().frame, Frame::Subscribed(_)));
    assert!(matches!(third.frame().frame, Frame::Title(_)), "a titled session's title follows its subscribed");
    assert!(third.next(std::time::Duration::from_millis(200)).is_none());
}

#[test]
fn cancel_while_asking_resolves_the_question_as_cancelled() {
    let host = Host::start(&["--chunk-delay-ms", "0"]);
    let sid = host.create();
    let mut mux = host.mux();
    host.prompt(&sid, "queue", "[question]");
    let asked = mux.until("question", |f| matches!(f, Frame::QuestionRequested(_))).pop().unwrap();
    host.call("session.cancel", json!({ "sessionId": sid }));
    let frames = mux.until("question/resolved", |f| matches!(f, Frame::QuestionResolved(_)));
    let Frame::QuestionResolved(r) = &frames.last().unwrap().frame else { unreachable!() };
    assert_eq!(r.outcome, QuestionOutcome::Cancelled);
    let events = host.all_events(&sid);
    assert_eq!(events.last().unwrap()["data"]["reason"]["kind"], "interrupted");
    assert_eq!(
        respond(&host, &asked.rpc_id, json!({ "ok": true, "value": {} })),
        json!({ "accepted": false, "reason": "not-pending" })
    );
}

#[test]
fn approval_allowed_and_rejected() {
    let host = Host::start(&["--chunk-delay-ms", "0"]);
    let sid = host.create();
    let mut mux = host.mux();
    for (turn, outcome, is_error) in [(1, "allowed-once", false), (2, "rejected", true)] {
        host.prompt(&sid, "queue", "run it [approval]");
        let asked = mux.until("approval", |f| matches!(f, Frame::ApprovalRequested(_))).pop().unwrap();
        let Frame::ApprovalRequested(a) = &asked.frame else { unreachable!() };
        assert_eq!(a.tool_name, "bash");
        assert!(a.call_id.is_some());
        assert_eq!(
            respond(&host, &asked.rpc_id, json!({ "ok": true, "value": { "outcome": "maybe" } })),
            json!({ "accepted": false, "reason": "bad-response" })
        );
        assert_eq!(
            respond(&host, &asked.rpc_id, json!({ "ok": true, "value": { "outcome": outcome } })),
            json!({ "accepted": true })
        );
        let frames = mux.until("approval/resolved", |f| matches!(f, Frame::ApprovalResolved(_)));
        let Frame::ApprovalResolved(r) = &frames.last().unwrap().frame else { unreachable!() };
        assert_eq!(r.approval_id, a.approval_id);
        let want = if is_error { ApprovalOutcome::Rejected } else { ApprovalOutcome::AllowedOnce };
        assert_eq!(r.outcome, want);
        let events = host.wait_turn_end(&sid, turn);
        let result = events.iter().rev().find(|e| e["type"] == "tool/result").unwrap();
        assert_eq!(result["data"]["isError"], is_error);
        assert_eq!(result["data"]["callId"], a.call_id.clone().unwrap().as_str());
    }
}

#[test]
fn tool_marker_makes_a_call_and_a_result_in_two_steps() {
    let host = Host::start(&["--chunk-delay-ms", "0"]);
    let sid = host.create();
    host.prompt(&sid, "queue", "look around [tool]");
    let events = host.wait_turn_end(&sid, 1);
    let t: Vec<&str> = types(&events).into_iter().filter(|t| *t != "assistant/chunk").collect();
    assert_eq!(
        t,
        [
            "turn/start",
            "user/message",
            "session/title",
            "step/start",
            "request/header",
            "session/title-llm-request",
            "session/title",
            "assistant/message",
            "tool/call",
            "tool/result",
            "step/end",
            "step/start",
            "assistant/message",
            "step/end",
            "turn/end"
        ]
    );
    let call = events.iter().find(|e| e["type"] == "tool/call").unwrap();
    assert_eq!(call["data"]["name"], "read");
    assert_eq!((call["data"]["turn"].clone(), call["data"]["step"].clone()), (json!(1), json!(1)));
}

#[test]
fn plan_mode_answers_with_a_plan_and_no_tools() {
    let host = Host::start(&["--chunk-delay-ms", "0"]);
    let sid = host.create();
    host.call("session.setPlanMode", json!({ "sessionId": sid, "active": true }));
    host.prompt(&sid, "queue", "refactor it [tool] [approval]");
    let events = host.wait_turn_end(&sid, 1);
    let t = types(&events);
    assert!(!t.contains(&"tool/call"));
    let msg = events.iter().find(|e| e["type"] == "assistant/message").unwrap();
    assert!(msg["data"]["content"][0]["text"].as_str().unwrap().starts_with("# Plan"));
    let header = events.iter().find(|e| e["type"] == "request/header").unwrap();
    assert!(header["data"]["header"]["system"].as_str().unwrap().contains("plan mode"));
}

#[test]
fn a_selection_never_touches_a_running_turn() {
    let host = Host::start(&["--chunk-delay-ms", "20"]);
    let sid = host.create();
    host.prompt(&sid, "queue", "a reply long enough to still be streaming when we select plan mode");
    host.wait_event(&sid, "streaming", |e| e["data"]["chunk"]["type"] == "text-delta");
    assert_eq!(
        host.call("session.setPlanMode", json!({ "sessionId": sid, "active": true })),
        json!({ "active": false, "pending": true })
    );
    let events = host.wait_turn_end(&sid, 1);
    assert_eq!(events.last().unwrap()["data"]["reason"]["kind"], "completed");
    assert!(!types(&events).contains(&"plan/mode"));
    assert_eq!(host.call("session.planMode", json!({ "sessionId": sid })), json!({ "active": false, "pending": true }));
    host.prompt(&sid, "queue", "now plan");
    let events = host.all_events(&sid);
    let start2 = events.iter().position(|e| e["type"] == "turn/start" && e["data"]["turn"] == 2).unwrap();
    assert_eq!(events[start2 + 1]["type"], "plan/mode");
    assert_eq!(events[start2 + 1]["data"], json!({ "active": true }));
    assert_eq!(events[start2 + 2]["type"], "user/message");
}

/// Plan mode, `[plan-review]`: `exit_plan_mode` asks a question carrying the plan-review
/// intent; `Approve` (in upstream's answer shape) leaves plan mode inside the turn, any other
/// answer keeps it.
#[test]
fn a_plan_review_question_leaves_plan_mode_when_approved() {
    let host = Host::start(&["--chunk-delay-ms", "0"]);
    let sid = host.create();
    host.call("session.setPlanMode", json!({ "sessionId": sid, "active": true }));
    let mut mux = host.mux();
    let review = |host: &Host, mux: &mut FrameStream, choice: &str, turn: u64| {
        host.prompt(&sid, "queue", "present the plan [plan-review]");
        let frames = mux.until("question/requested", |f| matches!(f, Frame::QuestionRequested(_)));
        let asked = frames.last().unwrap();
        let Frame::QuestionRequested(q) = &asked.frame else { unreachable!() };
        assert_eq!(
            q.questions[0].intent.as_ref().map(|i| i.value()),
            Some(json!({ "kind": "plan-review", "approve": "Approve" }))
        );
        let answer =
            json!({ "sessionId": sid, "answer": { "answers": [{ "id": "plan-review", "selected": [choice] }] } });
        assert_eq!(respond(host, &asked.rpc_id, json!({ "ok": true, "value": answer })), json!({ "accepted": true }));
        host.wait_turn_end(&sid, turn)
    };
    let events = review(&host, &mut mux, "Keep planning", 1);
    assert!(!events.iter().any(|e| e["type"] == "plan/mode" && e["data"]["active"] == false));
    assert_eq!(host.call("session.planMode", json!({ "sessionId": sid })), json!({ "active": true }));
    let events = review(&host, &mut mux, "Approve", 2);
    let left =
        events.iter().position(|e| e["type"] == "plan/mode" && e["data"]["active"] == false).expect("left plan mode");
    let end = events.iter().position(|e| e["type"] == "turn/end" && e["data"]["turn"] == 2).unwrap();
    assert!(left < end, "inside the turn");
    assert_eq!(host.call("session.planMode", json!({ "sessionId": sid })), json!({ "active": false }));
}
