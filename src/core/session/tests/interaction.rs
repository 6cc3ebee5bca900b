use super::harness::*;
use crate::core::session::{Call, NodeKind, Outcome};
use crate::core::wire::interaction::{Answer, OperatingMode, PromptOutcome, StepStatus};
use crate::core::wire::ErrorCode;
use serde_json::{json, Value};

fn prompt(id: &str) -> Value {
    json!({
        "promptId": id,
        "questions": [{"id": "q1", "label": "Which runtime?", "options": [{"id": "o1", "label": "Node"}, {"id": "o2", "label": "Deno"}]}],
        "source": "codex:requestUserInput"
    })
}

fn steps(texts: &[(&str, &str)]) -> Value {
    let steps: Vec<Value> = texts.iter().map(|(t, s)| json!({"text": t, "status": s, "source": "native"})).collect();
    json!({ "steps": steps })
}

fn opened_with(values: Value) -> Driver {
    let mut d = Driver::new();
    d.s.open();
    let (req, _) = d.take_history();
    d.answer(req, page_with_projections(&[user(0, "plan it")], values));
    let q = d.take_plan_query();
    d.answer(q, plan(false, None));
    d
}

#[test]
fn an_absent_extension_reads_as_absent_capabilities() {
    let d = Driver::opened(&[user(0, "a")], Value::Null);
    let i = d.s.interaction();
    assert!(i.mode.is_none() && i.capabilities.is_none() && i.plan_steps.is_none());
    assert!(i.plan_text.is_none() && i.proposed_plan.is_none() && i.user_input.is_empty());
}

#[test]
fn mode_and_capabilities_come_from_the_baseline() {
    let d = opened_with(json!({
        "interaction/mode": {"mode": "plan", "native": "plan"},
        "interaction/capabilities": {
            "supportsPlanMode": true, "supportsAskMode": false, "supportsStructuredPlanUpdates": true,
            "supportsPlanTextStreaming": true, "supportsStructuredUserInput": true,
            "supportsFreeformUserInput": true, "supportsExitPlanMode": false
        }
    }));
    let i = d.s.interaction();
    assert_eq!(i.mode.unwrap().mode, OperatingMode::Plan);
    assert!(i.capabilities.unwrap().supports_structured_plan_updates);
}

#[test]
fn plan_steps_replace_by_seq() {
    let mut d = opened_with(json!({}));
    d.frame(projection("interaction/plan", steps(&[("read", "inProgress"), ("write", "pending")]), 3));
    d.frame(projection("interaction/plan", steps(&[("read", "completed"), ("write", "inProgress")]), 5));
    d.frame(projection("interaction/plan", steps(&[("read", "pending")]), 4));
    let s = d.s.interaction().plan_steps.unwrap();
    assert_eq!(s.steps.len(), 2);
    assert_eq!(s.steps[0].status, StepStatus::Completed, "the older row (seq 4) lost");
}

#[test]
fn a_stale_baseline_never_overwrites_newer_interaction_values() {
    let mut d = opened_with(json!({}));
    d.frame(projection("interaction/plan", steps(&[("new", "completed")]), 9));
    d.s.resync();
    let (req, _) = d.take_history();
    // The resync page is as of seq 0 and still has the old steps.
    d.answer(
        req,
        page_with_projections(&[user(0, "plan it")], json!({"interaction/plan": steps(&[("old", "pending")])})),
    );
    assert_eq!(d.s.interaction().plan_steps.unwrap().steps[0].text, "new");
}

#[test]
fn plan_text_accumulates_and_finalises() {
    let mut d = opened_with(json!({}));
    d.live(ev(1, "plan/text-delta", json!({"turn": 1, "itemId": "p1", "text": "# Plan\n"})));
    d.live(ev(2, "plan/text-delta", json!({"turn": 1, "itemId": "p1", "text": "1. read"})));
    let t = d.s.interaction().plan_text.unwrap();
    assert_eq!((t.text.as_str(), t.done), ("# Plan\n1. read", false));
    d.live(ev(3, "plan/text-done", json!({"turn": 1, "itemId": "p1", "text": "# Plan\n1. read\n2. write"})));
    let t = d.s.interaction().plan_text.unwrap();
    assert_eq!((t.text.as_str(), t.done), ("# Plan\n1. read\n2. write", true));
    d.live(ev(4, "plan/text-delta", json!({"turn": 2, "itemId": "p2", "text": "next"})));
    assert_eq!(d.s.interaction().plan_text.unwrap().text, "next", "a new item starts afresh");
}

#[test]
fn prompts_pend_and_resolve_into_a_completed_interaction_node() {
    let mut d = opened_with(json!({"interaction/userInput": {"prompts": [prompt("p1")]}}));
    assert_eq!(d.s.interaction().user_input[0].prompt_id, "p1");
    d.live(ev(
        1,
        "interaction/prompt-resolved",
        json!({
            "prompt": prompt("p1"),
            "answers": [{"questionId": "q1", "selectedOptionIds": ["o2"]}],
            "outcome": "answered"
        }),
    ));
    d.frame(projection("interaction/userInput", json!({"prompts": []}), 1));
    assert!(d.s.interaction().user_input.is_empty());
    let node = d.s.nodes().last().unwrap();
    assert!(matches!(&node.kind, NodeKind::Interaction { answers, outcome: PromptOutcome::Answered, .. }
        if answers[0].selected_option_ids.as_deref() == Some(&["o2".to_string()][..])));
}

#[test]
fn a_reconnect_keeps_a_pending_prompt() {
    let mut d = opened_with(json!({"interaction/userInput": {"prompts": [prompt("p1")]}}));
    d.s.connection_lost();
    d.frame(subscribed(0));
    d.s.resync();
    assert_eq!(d.s.interaction().user_input.len(), 1, "visible while reconnecting");
    let (req, _) = d.take_history();
    d.answer(
        req,
        page_with_projections(&[user(0, "plan it")], json!({"interaction/userInput": {"prompts": [prompt("p1")]}})),
    );
    assert_eq!(d.s.interaction().user_input[0].prompt_id, "p1");
}

#[test]
fn answer_sends_session_answer_and_refuses_a_duplicate_while_in_flight() {
    let mut d = opened_with(json!({"interaction/userInput": {"prompts": [prompt("p1")]}}));
    let a = Answer { question_id: "q1".into(), selected_option_ids: Some(vec!["o1".into()]), text: None };
    let first = d.s.answer("p1", vec![a.clone()]);
    let dup = d.s.answer("p1", vec![a]);
    d.pump();
    assert!(matches!(d.outcome(dup), Some(Outcome::Result(Err(e))) if e.code == ErrorCode::BadRequest));
    let (req, call) = d.take(|c| matches!(c, Call::Answer { .. }));
    assert_eq!(call.path(), "session.answer");
    assert_eq!(call.payload(SID).value()["answers"][0]["selectedOptionIds"], json!(["o1"]));
    d.answer(req, json!({"accepted": true}));
    assert_eq!(d.outcome(first), Some(&ok(json!({"accepted": true}))));
}

#[test]
fn answering_a_prompt_that_is_not_pending_is_refused_locally() {
    let mut d = opened_with(json!({}));
    let op = d.s.answer("ghost", vec![]);
    d.pump();
    assert!(!d.has_request(|c| matches!(c, Call::Answer { .. })));
    assert_eq!(d.outcome(op), Some(&ok(json!({"accepted": false, "reason": "not-pending"}))));
}

#[test]
fn a_proposed_plan_event_becomes_a_handoff_node() {
    let mut d = opened_with(json!({}));
    d.live(ev(1, "plan/proposed", json!({"turn": 1, "planId": "x", "markdown": "# Plan", "source": "native"})));
    assert!(matches!(&d.s.nodes().last().unwrap().kind, NodeKind::ProposedPlan { plan } if plan.markdown == "# Plan"));
}
