//! Provider profiles (`session.create {provider}`): plan-mode turns through the Codex, Claude
//! and Cursor adapters, `session.answer`, cancel while a prompt waits, and the projections
//! (frames and the tail-page baseline).

mod common;

use agent_session_wire::{Frame, InboundFrame};
use common::*;
use serde_json::{json, Value};

fn create(host: &Host, provider: &str) -> String {
    host.call("session.create", json!({ "cwd": "/workspace/project", "provider": provider }))["sessionId"]
        .as_str()
        .expect("sessionId")
        .to_string()
}

fn plan_on(host: &Host, sid: &str) {
    host.call("session.setPlanMode", json!({ "sessionId": sid, "active": true }));
}

fn answer(host: &Host, sid: &str, prompt_id: &str, answers: Value) -> Value {
    host.call("session.answer", json!({ "sessionId": sid, "promptId": prompt_id, "answers": answers }))
}

/// `(key, value, seq)` of the projection frames among `frames`.
fn projections(frames: &[InboundFrame], key: &str) -> Vec<(Value, i64)> {
    frames
        .iter()
        .filter_map(|f| match &f.frame {
            Frame::Projection(p) if p.key == key => Some((p.value.value(), p.seq)),
            _ => None,
        })
        .collect()
}

fn events_of(frames: &[InboundFrame], kind: &str) -> Vec<Value> {
    frames
        .iter()
        .filter_map(|f| match &f.frame {
            Frame::Event(e) if e.event.kind == kind => Some(e.event.data_value()),
            _ => None,
        })
        .collect()
}

fn is_event(f: &Frame, kind: &str) -> bool {
    matches!(f, Frame::Event(e) if e.event.kind == kind)
}

fn baseline(host: &Host, sid: &str) -> Value {
    host.history(sid, json!({}))["projections"]["values"].clone()
}

#[test]
fn codex_plan_turn_steps_text_question_and_proposed_plan() {
    let host = Host::start(&["--chunk-delay-ms", "1"]);
    let mut mux = host.mux();
    let sid = create(&host, "codex");
    // Capabilities and mode are published at create (empty log: seq -1).
    let frames = mux.until("mode projection", |f| matches!(f, Frame::Projection(p) if p.key == "interaction/mode"));
    let caps = projections(&frames, "interaction/capabilities");
    assert_eq!(caps.len(), 1);
    assert_eq!(caps[0].1, -1);
    assert_eq!(caps[0].0["supportsStructuredPlanUpdates"], true);
    assert_eq!(caps[0].0["supportsExitPlanMode"], false);
    let b = baseline(&host, &sid);
    assert_eq!(b["interaction/mode"]["mode"], "default");
    assert_eq!(b["interaction/capabilities"]["supportsPlanTextStreaming"], true);

    plan_on(&host, &sid);
    host.prompt(&sid, "queue", "Split the parser module");
    let frames = mux.until("the question", |f| is_event(f, "interaction/prompt-requested"));
    let modes = events_of(&frames, "interaction/mode");
    assert_eq!(modes.len(), 1);
    assert_eq!(modes[0]["mode"], "plan");
    assert_eq!(modes[0]["native"], "plan");
    assert_eq!(modes[0]["turn"], 1);
    assert_eq!(projections(&frames, "interaction/mode").last().unwrap().0["mode"], "plan");
    let steps = projections(&frames, "interaction/plan");
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0].0["steps"][0]["status"], "inProgress");
    assert_eq!(steps[1].0["steps"][0]["status"], "completed");
    assert_eq!(steps[1].0["steps"][1]["status"], "inProgress");
    assert_eq!(steps[1].0["steps"][2]["source"], "native");
    let asked = events_of(&frames, "interaction/prompt-requested")[0].clone();
    assert_eq!(asked["turn"], 1);
    let prompt_id = asked["prompt"]["promptId"].as_str().unwrap().to_string();
    assert_eq!(prompt_id, "codex-101");
    assert_eq!(asked["prompt"]["questions"].as_array().unwrap().len(), 2);
    assert!(!events_of(&frames, "provider/native").is_empty());
    // Text before the question is an ordinary assistant message.
    assert_eq!(events_of(&frames, "assistant/message").len(), 1);

    // The pending prompt is in the projection and in the tail-page baseline (reconnect).
    let frames =
        mux.until("userInput projection", |f| matches!(f, Frame::Projection(p) if p.key == "interaction/userInput"));
    assert_eq!(projections(&frames, "interaction/userInput")[0].0["prompts"][0]["promptId"], prompt_id.as_str());
    let page = host.history(&sid, json!({}));
    assert_eq!(page["projections"]["values"]["interaction/userInput"]["prompts"][0]["promptId"], prompt_id.as_str());
    assert_eq!(page["projections"]["values"]["interaction/mode"]["mode"], "plan");

    // Refused answers leave it pending.
    let bad = json!([{ "questionId": "scope", "selectedOptionIds": ["o9"] }]);
    assert_eq!(answer(&host, &sid, &prompt_id, bad), json!({ "accepted": false, "reason": "bad-response" }));
    let two = json!([{ "questionId": "tests", "selectedOptionIds": ["o0", "o1"] }]);
    assert_eq!(answer(&host, &sid, &prompt_id, two), json!({ "accepted": false, "reason": "bad-response" }));
    let free = json!([{ "questionId": "tests", "text": "maybe" }]);
    assert_eq!(answer(&host, &sid, &prompt_id, free), json!({ "accepted": false, "reason": "bad-response" }));
    assert_eq!(answer(&host, &sid, "codex-999", json!([])), json!({ "accepted": false, "reason": "not-pending" }));

    let ok = json!([{ "questionId": "scope", "selectedOptionIds": ["o1"] }, { "questionId": "tests", "selectedOptionIds": ["o0"] }]);
    assert_eq!(answer(&host, &sid, &prompt_id, ok.clone()), json!({ "accepted": true }));
    assert_eq!(answer(&host, &sid, &prompt_id, ok), json!({ "accepted": false, "reason": "not-pending" }));

    let frames = mux.until("turn end", |f| is_turn_end(f, 1));
    let resolved = events_of(&frames, "interaction/prompt-resolved");
    assert_eq!(resolved.len(), 1);
    assert_eq!(resolved[0]["outcome"], "answered");
    assert_eq!(resolved[0]["answers"][0]["selectedOptionIds"], json!(["o1"]));
    assert_eq!(projections(&frames, "interaction/userInput")[0].0, json!({ "prompts": [] }));
    let deltas = events_of(&frames, "plan/text-delta");
    assert!(deltas.len() > 5, "plan text streams");
    let streamed: String = deltas.iter().map(|d| d["text"].as_str().unwrap()).collect();
    let done = events_of(&frames, "plan/text-done");
    assert_eq!(done[0]["text"], streamed.as_str());
    assert!(streamed.contains("Thorough"), "the plan mentions the answer: {streamed}");
    let proposed = events_of(&frames, "plan/proposed");
    assert_eq!(proposed[0]["source"], "synthesized");
    assert_eq!(proposed[0]["turn"], 1);
    assert_eq!(projections(&frames, "interaction/proposedPlan")[0].0["markdown"], streamed.as_str());
    let last_steps = projections(&frames, "interaction/plan");
    let last_steps = last_steps.last().unwrap().0["steps"].as_array().unwrap();
    assert!(last_steps.iter().all(|s| s["status"] == "completed"));
    let text: String = events_of(&frames, "assistant/message")
        .iter()
        .map(|m| m["content"][0]["text"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(text.contains("Thorough"), "{text}");
    assert_eq!(events_of(&frames, "turn/end")[0]["reason"]["kind"], "completed");
    assert_eq!(baseline(&host, &sid)["interaction/proposedPlan"]["planId"], "plan_1");

    // The handoff: plan mode off, next prompt -> mode default, proposed plan cleared.
    host.call("session.setPlanMode", json!({ "sessionId": sid, "active": false }));
    host.prompt(&sid, "queue", "Implement the plan");
    let frames = mux.until("turn 2 end", |f| is_turn_end(f, 2));
    assert_eq!(events_of(&frames, "interaction/mode")[0]["mode"], "default");
    assert_eq!(projections(&frames, "interaction/proposedPlan")[0].0, Value::Null);
    assert!(events_of(&frames, "plan/text-delta").is_empty());
    assert_eq!(events_of(&frames, "assistant/message").len(), 1);
    assert_eq!(baseline(&host, &sid)["interaction/proposedPlan"], Value::Null);
}

#[test]
fn claude_plan_turn_asks_then_exits_plan_mode() {
    let host = Host::start(&["--chunk-delay-ms", "1"]);
    let sid = create(&host, "claude");
    assert_eq!(baseline(&host, &sid)["interaction/capabilities"]["supportsExitPlanMode"], true);
    let mut mux = host.mux();
    plan_on(&host, &sid);
    host.prompt(&sid, "queue", "Split the parser module");
    let frames = mux.until("the question", |f| is_event(f, "interaction/prompt-requested"));
    assert_eq!(events_of(&frames, "interaction/mode")[0]["native"], "plan");
    let call = events_of(&frames, "tool/call");
    assert_eq!(call[0]["name"], "Read");
    assert_eq!(events_of(&frames, "tool/result")[0]["isError"], false);
    let asked = events_of(&frames, "interaction/prompt-requested")[0].clone();
    let prompt_id = asked["prompt"]["promptId"].as_str().unwrap().to_string();
    assert_eq!(prompt_id, "claude-toolu_ask_1");
    assert_eq!(asked["prompt"]["source"], "claude:AskUserQuestion");
    // One assistant message per step: the Read message, then the question's.
    let msgs = events_of(&frames, "assistant/message");
    assert_eq!(msgs.len(), 2);
    assert_ne!(msgs[0]["step"], msgs[1]["step"]);

    let ans = json!([{ "questionId": "q0", "selectedOptionIds": ["o1"] }]);
    assert_eq!(answer(&host, &sid, &prompt_id, ans), json!({ "accepted": true }));
    let frames = mux.until("turn end", |f| is_turn_end(f, 1));
    assert_eq!(events_of(&frames, "interaction/prompt-resolved")[0]["outcome"], "answered");
    let proposed = events_of(&frames, "plan/proposed");
    assert_eq!(proposed[0]["source"], "native");
    assert_eq!(proposed[0]["planId"], "toolu_exit_1");
    assert!(proposed[0]["markdown"].as_str().unwrap().contains("Refactor"));
    let steps = projections(&frames, "interaction/plan");
    assert_eq!(steps[0].0["steps"].as_array().unwrap().len(), 4);
    assert_eq!(steps[0].0["steps"][0]["source"], "synthesized");
    assert!(events_of(&frames, "plan/text-delta").is_empty(), "Claude streams no plan text");
    let last_msg = events_of(&frames, "assistant/message");
    assert!(last_msg[0]["content"][0]["text"].as_str().unwrap().contains("Refactor"));
    let b = baseline(&host, &sid);
    assert_eq!(b["interaction/proposedPlan"]["source"], "native");
    assert_eq!(b["interaction/userInput"], json!({ "prompts": [] }));
}

#[test]
fn cursor_plan_turn_is_plain_text_only() {
    let host = Host::start(&["--chunk-delay-ms", "1"]);
    let sid = create(&host, "cursor");
    let b = baseline(&host, &sid);
    assert_eq!(b["interaction/mode"], json!({ "mode": "default", "native": "agent" }));
    assert_eq!(b["interaction/capabilities"]["supportsStructuredUserInput"], false);
    assert_eq!(b["interaction/capabilities"]["supportsAskMode"], true);
    let mut mux = host.mux();
    plan_on(&host, &sid);
    host.prompt(&sid, "queue", "Split the parser module");
    let frames = mux.until("turn end", |f| is_turn_end(f, 1));
    assert_eq!(events_of(&frames, "interaction/mode")[0]["mode"], "plan");
    for kind in ["plan/text-delta", "plan/proposed", "interaction/prompt-requested", "tool/call"] {
        assert!(events_of(&frames, kind).is_empty(), "{kind}");
    }
    assert!(projections(&frames, "interaction/plan").is_empty());
    assert!(projections(&frames, "interaction/userInput").is_empty());
    let msgs = events_of(&frames, "assistant/message");
    assert_eq!(msgs.len(), 1);
    assert!(msgs[0]["content"][0]["text"].as_str().unwrap().starts_with("# Plan"));
    assert_eq!(msgs[0]["provenance"]["provider"], "cursor");
    assert!(events_of(&frames, "provider/native").len() > 5);
}

#[test]
fn cancel_while_a_prompt_waits_resolves_it_cancelled() {
    let host = Host::start(&["--chunk-delay-ms", "1"]);
    let sid = create(&host, "codex");
    let mut mux = host.mux();
    plan_on(&host, &sid);
    host.prompt(&sid, "queue", "Plan something");
    let frames = mux.until("the question", |f| is_event(f, "interaction/prompt-requested"));
    let prompt_id =
        events_of(&frames, "interaction/prompt-requested")[0]["prompt"]["promptId"].as_str().unwrap().to_string();
    // A reconnecting client sees the pending prompt in the baseline.
    let mut mux2 = host.mux();
    assert_eq!(baseline(&host, &sid)["interaction/userInput"]["prompts"][0]["promptId"], prompt_id.as_str());
    assert_eq!(host.call("session.cancel", json!({ "sessionId": sid })), json!({ "accepted": true }));
    let frames = mux2.until("turn end", |f| is_turn_end(f, 1));
    let resolved = events_of(&frames, "interaction/prompt-resolved");
    assert_eq!(resolved[0]["outcome"], "cancelled");
    assert_eq!(resolved[0]["prompt"]["promptId"], prompt_id.as_str());
    assert_eq!(projections(&frames, "interaction/userInput")[0].0, json!({ "prompts": [] }));
    assert_eq!(events_of(&frames, "turn/end")[0]["reason"]["kind"], "interrupted");
    let ans = json!([{ "questionId": "scope", "selectedOptionIds": ["o0"] }]);
    assert_eq!(answer(&host, &sid, &prompt_id, ans), json!({ "accepted": false, "reason": "not-pending" }));
    assert_eq!(baseline(&host, &sid)["interaction/userInput"], json!({ "prompts": [] }));
}

#[test]
fn create_and_answer_errors() {
    let host = Host::start(&["--chunk-delay-ms", "0"]);
    let err = host.call_err("session.create", json!({ "provider": "gemini" }));
    assert_eq!(err["code"], "bad-request");
    assert_eq!(err["details"]["issues"][0]["path"], json!(["provider"]));
    // 'default' is the scripted agent with no provider: no interaction projections.
    let sid = create(&host, "default");
    let values = baseline(&host, &sid);
    assert!(values.get("interaction/capabilities").is_none(), "{values}");
    assert_eq!(answer(&host, &sid, "codex-1", json!([])), json!({ "accepted": false, "reason": "not-pending" }));
    let err = host.call_err("session.answer", json!({ "sessionId": "nope", "promptId": "p", "answers": [] }));
    assert_eq!(err["code"], "session-not-found");
    let err = host.call_err("session.answer", json!({ "sessionId": sid, "answers": [] }));
    assert_eq!(err["code"], "bad-request");
    assert_eq!(err["details"]["issues"][0]["path"], json!(["promptId"]));
    let err =
        host.call_err("session.answer", json!({ "sessionId": sid, "promptId": "p", "answers": [{ "text": "x" }] }));
    assert_eq!(err["code"], "bad-request");
    // Outside plan mode a provider session replies like the default agent.
    let sid = create(&host, "claude");
    host.prompt(&sid, "queue", "hello");
    let events = host.wait_turn_end(&sid, 1);
    assert!(types(&events).contains(&"assistant/message"));
    assert!(!types(&events).contains(&"provider/native"));
}

#[test]
fn profile_and_projections_survive_a_restart_and_stale_prompts_are_cancelled() {
    let mut host = Host::start(&["--chunk-delay-ms", "1"]);
    let sid = create(&host, "codex");
    let mut mux = host.mux();
    plan_on(&host, &sid);
    host.prompt(&sid, "queue", "Plan something");
    mux.until("the question", |f| is_event(f, "interaction/prompt-requested"));
    host.kill9_and_restart();
    let events = host.all_events(&sid);
    let resolved: Vec<&Value> = events.iter().filter(|e| e["type"] == "interaction/prompt-resolved").collect();
    assert_eq!(resolved.len(), 1);
    assert_eq!(resolved[0]["data"]["outcome"], "cancelled");
    assert_eq!(events.last().unwrap()["type"], "turn/end");
    let b = baseline(&host, &sid);
    assert_eq!(b["interaction/capabilities"]["supportsStructuredUserInput"], true);
    assert_eq!(b["interaction/mode"]["mode"], "plan");
    assert_eq!(b["interaction/userInput"], json!({ "prompts": [] }));
    // Still a Codex plan session: the next turn asks again (no duplicate mode event).
    let mut mux = host.mux();
    host.prompt(&sid, "queue", "Plan again");
    let frames = mux.until("the question", |f| is_event(f, "interaction/prompt-requested"));
    assert!(events_of(&frames, "interaction/mode").is_empty());
    assert_eq!(events_of(&frames, "interaction/prompt-requested")[0]["prompt"]["promptId"], "codex-201");
    host.call("session.cancel", json!({ "sessionId": sid }));
}
