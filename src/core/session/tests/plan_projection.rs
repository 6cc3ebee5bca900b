//! The 2026-08 host: the seed's plan RPCs answer 404, plan state is the `plan`
//! projection `{active, pending}` (`pending` a flag), a selection is the `/plan` command.

use super::harness::*;
use crate::core::session::{Call, Capability, Outcome};
use crate::core::wire::{PlanModeState, RpcError};
use serde_json::{json, Value};

fn not_found() -> RpcError {
    RpcError::carrier_status(404, "session.planMode: HTTP 404")
}

/// `commands/list` as the 2026-08 host answers it, with or without the plan command.
fn commands(with_plan: bool) -> Value {
    let mut list = vec![json!({"name": "compact", "description": "Compact older conversation history"})];
    if with_plan {
        list.push(json!({"name": "plan", "description": "plan mode"}));
    }
    Value::Array(list)
}

/// Opened against the 2026-08 host with these tail-page projections; the plan query the seed's
/// wire asks for answers 404. Returns the `commands/list` request that follows, unanswered.
fn open_on_a_2026_08_host(projections: Value) -> (Driver, crate::core::session::ReqId, Call) {
    let mut d = Driver::new();
    d.s.open();
    let (req, _) = d.take_history();
    d.answer(req, page_with_projections(&[user(0, "a")], projections));
    let q = d.take_plan_query();
    d.fail(q, not_found());
    let (list, call) = d.take(|c| matches!(c, Call::Commands));
    (d, list, call)
}

/// Opened against the 2026-08 host: the tail page carries the `plan` projection and
/// `commands/list` names `plan`.
fn opened_on_a_2026_08_host(plan: Value) -> Driver {
    let (mut d, list, _) = open_on_a_2026_08_host(json!({ "plan": plan }));
    d.answer(list, commands(true));
    d
}

fn command_line(c: &Call) -> Option<&'static str> {
    match c {
        Call::Command { line } => Some(line),
        _ => None,
    }
}

#[test]
fn a_404_plan_query_switches_to_the_plan_projection_and_is_not_retried() {
    let mut d = opened_on_a_2026_08_host(json!({"active": false, "pending": false}));
    assert_eq!(d.s.plan_mode(), Some(PlanModeState { active: false, pending: None }));
    assert_eq!(d.s.plan_capability(), Capability::Present);
    d.pump();
    assert!(d.wakes.is_empty(), "a 404 is an answer, not a failure to retry");
    // A resync re-reads the projection from the tail page; it asks no plan query.
    d.s.resync();
    let (req, _) = d.take_history();
    d.answer(req, page_with_projections(&[user(0, "a")], json!({"plan": {"active": true, "pending": false}})));
    assert!(!d.has_request(|c| matches!(c, Call::PlanMode)));
    assert_eq!(d.s.plan_mode(), Some(PlanModeState { active: true, pending: None }));
}

#[test]
fn the_pending_flag_reads_as_the_seeds_pending_target() {
    let mut d = opened_on_a_2026_08_host(json!({"active": false, "pending": false}));
    d.frame(projection("plan", json!({"active": false, "pending": true}), 3));
    assert_eq!(d.s.plan_mode(), Some(PlanModeState { active: false, pending: Some(true) }));
    d.frame(projection("plan", json!({"active": true, "pending": true}), 4));
    assert_eq!(d.s.plan_mode(), Some(PlanModeState { active: true, pending: Some(false) }), "turning off");
    d.frame(projection("plan", json!({"active": true, "pending": false}), 5));
    assert_eq!(d.s.plan_mode(), Some(PlanModeState { active: true, pending: None }));
    // An older projection frame never regresses it; a malformed one keeps the last state.
    d.frame(projection("plan", json!({"active": false, "pending": false}), 2));
    d.frame(projection("plan", json!({"active": "yes"}), 6));
    assert_eq!(d.s.plan_mode(), Some(PlanModeState { active: true, pending: None }));
}

#[test]
fn without_the_plan_key_the_capability_is_absent() {
    let (mut d, list, _) = open_on_a_2026_08_host(json!({}));
    d.answer(list, commands(true));
    assert_eq!(d.s.plan_mode(), None);
    assert_eq!(d.s.plan_capability(), Capability::Absent);
}

/// Upstream's minimal preset keeps `plan: {active:false, pending:false}` in its projections
/// but mounts no plan command: the capability is absent, and nothing shows before the host
/// said which.
#[test]
fn a_session_without_the_plan_command_has_no_plan_mode_despite_the_key() {
    let (mut d, list, call) = open_on_a_2026_08_host(json!({"plan": {"active": false, "pending": false}}));
    assert_eq!(d.s.plan_mode(), None, "unknown until commands/list answers");
    assert_eq!(serde_json::from_str::<Value>(call.payload("s1").text()).unwrap(), json!({"args": {"agentId": "s1"}}));
    d.answer(list, commands(false));
    assert_eq!(d.s.plan_mode(), None);
    assert_eq!(d.s.plan_capability(), Capability::Absent);
    d.frame(projection("plan", json!({"active": true, "pending": false}), 3));
    assert_eq!(d.s.plan_mode(), None);
}

#[test]
fn a_void_answer_to_the_plan_command_means_no_plan_mode() {
    let mut d = opened_on_a_2026_08_host(json!({"active": false, "pending": false}));
    let op = d.s.set_plan_mode(true);
    let (req, _) = d.take(|c| command_line(c).is_some());
    d.answer(req, Value::Null);
    assert_eq!(d.outcome(op), Some(&ok(Value::Null)), "resolves with capability absent");
    assert_eq!(d.s.plan_mode(), None);
}

#[test]
fn a_selection_is_the_plan_command_and_resolves_with_the_projected_state() {
    let mut d = opened_on_a_2026_08_host(json!({"active": false, "pending": false}));
    let op = d.s.set_plan_mode(true);
    let (req, call) = d.take(|c| command_line(c).is_some());
    assert_eq!(command_line(&call), Some("/plan"));
    assert_eq!(
        serde_json::from_str::<Value>(call.payload("s1").text()).unwrap(),
        json!({"args": {"agentId": "s1", "line": "/plan", "images": []}})
    );
    assert_eq!(d.s.plan_mode(), Some(PlanModeState { active: false, pending: None }), "nothing speculative");
    // As captured: the projection frames come before the command's answer.
    d.frame(projection("plan", json!({"active": true, "pending": false}), 4));
    d.live(ev(1, "command/done", json!({"commandId": "c1", "kind": "success"})));
    d.answer(req, json!({"commandId": "c1", "result": {"kind": "success", "text": "Plan mode on."}}));
    assert_eq!(d.outcome(op), Some(&ok(json!({"active": true}))));
    d.s.set_plan_mode(false);
    let (_, call) = d.take(|c| command_line(c).is_some());
    assert_eq!(command_line(&call), Some("/plan off"));
}

#[test]
fn a_selection_sent_before_the_dialect_is_known_is_resent_as_the_command() {
    let mut d = Driver::new();
    d.s.open();
    let (req, _) = d.take_history();
    d.answer(req, page_with_projections(&[user(0, "a")], json!({"plan": {"active": false, "pending": false}})));
    let q = d.take_plan_query();
    let op = d.s.set_plan_mode(true);
    let sel = d.take_selection();
    d.fail(sel, RpcError::carrier_status(404, "session.setPlanMode: HTTP 404"));
    assert_eq!(d.outcome(op), None, "not settled: it goes on as the command");
    let (cmd, call) = d.take(|c| command_line(c).is_some());
    assert_eq!(command_line(&call), Some("/plan"));
    let (list, _) = d.take(|c| matches!(c, Call::Commands));
    d.answer(list, commands(true));
    d.fail(q, not_found());
    d.fail(cmd, RpcError::new(crate::core::wire::ErrorCode::SessionNotFound, "gone", json!({})));
    assert!(matches!(d.outcome(op), Some(Outcome::Result(Err(e))) if e.message == "gone"));
    assert_eq!(d.s.plan_mode(), Some(PlanModeState { active: false, pending: None }), "a failure keeps the state");
}

#[test]
fn plan_mode_events_do_not_override_the_projection() {
    let mut d = opened_on_a_2026_08_host(json!({"active": true, "pending": false}));
    d.live(plan_event(1, false));
    assert_eq!(d.s.plan_mode(), Some(PlanModeState { active: true, pending: None }), "the projection decides");
}

#[test]
fn other_transport_errors_keep_the_seed_dialect_and_retry() {
    let mut d = Driver::new();
    d.s.open();
    let (req, _) = d.take_history();
    d.answer(req, page_with_projections(&[user(0, "a")], json!({"plan": {"active": true, "pending": false}})));
    let q = d.take_plan_query();
    d.fail(q, RpcError::carrier_status(503, "session.planMode: HTTP 503"));
    assert_eq!(d.s.plan_mode(), None, "the seed's plan projection extension is not the state");
    d.pump();
    assert_eq!(d.wakes.len(), 1, "retried after a backoff");
}

#[test]
fn a_hosts_business_error_whose_details_say_transport_404_does_not_switch_the_plan_dialect() {
    let mut d = Driver::new();
    d.s.open();
    let (req, _) = d.take_history();
    d.answer(req, page_with_projections(&[user(0, "a")], json!({"plan": {"active": true, "pending": false}})));
    let q = d.take_plan_query();
    // The host's own failure, read from its answer: its details mimic the carrier's.
    let body = r#"{"ok":false,"error":{"code":"internal","message":"plan store down","details":{"transport":true,"status":404}}}"#;
    let hosts = crate::core::wire::result_from_text(body).unwrap().unwrap_err();
    d.fail(q, hosts);
    assert_eq!(d.s.plan_mode(), None, "still the seed's dialect: the projection is not the state");
    assert!(!d.has_request(|c| matches!(c, Call::Commands)), "no probe for the plan command");
    d.pump();
    assert_eq!(d.wakes.len(), 1, "a failure of the seed's plan query, retried after a backoff");
}
