//! The 2026-08 host (upstream at b150a551b8) as its source and captures show it —
//! the dialect known from the tail page, `/plan` settled by its `command/done`, command lists
//! kept live.

use super::harness::*;
use crate::core::session::{Call, Capability, PLAN_SETTLE_MS};
use crate::core::wire::PlanModeState;
use serde_json::{json, Value};

fn plan_value(active: bool, pending: bool) -> Value {
    json!({"active": active, "pending": pending})
}

/// Capture 04's `commands/list` answer (trimmed to three entries).
fn commands_2026_08() -> Value {
    json!([
        {"name": "compact", "description": "Compact older conversation history"},
        {"name": "feedback", "description": "record feedback about this session", "input": {"hint": "<text>"}},
        {"name": "plan", "description": "Enter or leave plan mode", "input": {"hint": "[off|message]", "images": true}}
    ])
}

/// Opened on the 2026-08 host: the tail page's projection block always names `title`.
fn opened_on_2026_08(plan: Value) -> Driver {
    let mut d = Driver::new();
    d.s.open();
    let (req, _) = d.take_history();
    d.answer(req, page_with_projections(&[user(0, "a")], json!({"title": null, "goal": null, "plan": plan})));
    assert!(!d.has_request(|c| matches!(c, Call::PlanMode)), "no session.planMode probe on the 2026-08 host");
    let (list, _) = d.take(|c| matches!(c, Call::Commands));
    d.answer(list, commands_2026_08());
    d
}

fn plan_command(d: &mut Driver) -> crate::core::session::ReqId {
    d.take(|c| matches!(c, Call::Command { .. })).0
}

fn done(seq: u64, id: &str) -> crate::core::wire::SessionEvent {
    ev(
        seq,
        "command/done",
        json!({"commandId": id, "kind": "success", "text": "Plan mode on. Use /plan off to leave."}),
    )
}

#[test]
fn a_2026_08_tail_page_names_the_dialect_so_no_plan_query_is_sent() {
    let mut d = opened_on_2026_08(plan_value(false, false));
    assert_eq!(d.s.plan_mode(), Some(PlanModeState { active: false, pending: None }));
    assert_eq!(d.s.plan_capability(), Capability::Present);
    // A resync asks the command list again (a change may have been missed), still no probe.
    d.s.resync();
    let (req, _) = d.take_history();
    d.answer(req, page_with_projections(&[user(0, "a")], json!({"title": "T", "plan": plan_value(true, false)})));
    assert!(!d.has_request(|c| matches!(c, Call::PlanMode)));
    assert!(d.has_request(|c| matches!(c, Call::Commands)));
    assert_eq!(d.s.plan_mode(), Some(PlanModeState { active: true, pending: None }));
}

#[test]
fn the_seed_host_still_gets_its_plan_query() {
    let mut d = Driver::new();
    d.s.open();
    let (req, _) = d.take_history();
    // The reference host's seed dialect publishes a `plan` projection but never `title`.
    d.answer(req, page_with_projections(&[user(0, "a")], json!({"plan": {"active": false}})));
    d.take_plan_query();
    assert!(!d.has_request(|c| matches!(c, Call::Commands)));
}

/// The order the issue timed on the real host: the pending frame, then the answer, then the
/// settled frame, `plan/mode` and `command/done` (capture 04 shows the frames; the answer
/// overtook the settled frame in 21 of 30 calls).
#[test]
fn a_selection_answered_before_its_settled_frame_resolves_with_the_committed_state() {
    let mut d = opened_on_2026_08(plan_value(false, false));
    let op = d.s.set_plan_mode(true);
    let req = plan_command(&mut d);
    d.frame(projection("plan", plan_value(false, true), 3));
    d.live(ev(1, "command/run", json!({"commandId": "cmd-1", "name": "plan", "args": "", "source": {"kind": "user"}})));
    d.answer(
        req,
        json!({"commandId": "cmd-1", "result": {"kind": "success", "text": "Plan mode on. Use /plan off to leave."}}),
    );
    assert_eq!(d.outcome(op), None, "the handler has not finished: the pending frame is not its result");
    assert_eq!(d.s.plan_mode(), Some(PlanModeState { active: false, pending: Some(true) }), "the snapshot shows it");
    d.frame(projection("plan", plan_value(true, false), 4));
    d.live(plan_event(2, true));
    d.frame(projection("plan", plan_value(true, false), 5));
    d.live(done(3, "cmd-1"));
    assert_eq!(d.outcome(op), Some(&ok(json!({"active": true}))));
    assert_eq!(d.s.plan_mode(), Some(PlanModeState { active: true, pending: None }), "result = snapshot");
}

#[test]
fn a_command_done_seen_before_the_answer_settles_at_once() {
    let mut d = opened_on_2026_08(plan_value(false, false));
    let op = d.s.set_plan_mode(true);
    let req = plan_command(&mut d);
    d.frame(projection("plan", plan_value(true, false), 4));
    d.live(done(1, "cmd-2"));
    d.answer(req, json!({"commandId": "cmd-2", "result": {"kind": "success"}}));
    assert_eq!(d.outcome(op), Some(&ok(json!({"active": true}))));
}

/// While a turn runs the host keeps the selection pending: that is the confirmed state.
#[test]
fn a_selection_during_a_turn_resolves_pending() {
    let mut d = opened_on_2026_08(plan_value(false, false));
    let op = d.s.set_plan_mode(true);
    let req = plan_command(&mut d);
    d.answer(req, json!({"commandId": "cmd-3", "result": {"kind": "success"}}));
    d.frame(projection("plan", plan_value(false, true), 3));
    d.live(done(1, "cmd-3"));
    assert_eq!(d.outcome(op), Some(&ok(json!({"active": false, "pending": true}))));
}

#[test]
fn a_selection_whose_command_done_never_comes_resolves_after_the_bound() {
    let mut d = opened_on_2026_08(plan_value(false, false));
    let op = d.s.set_plan_mode(true);
    let req = plan_command(&mut d);
    d.answer(req, json!({"commandId": "cmd-4", "result": {"kind": "success"}}));
    let (token, after) = *d.wakes.last().expect("a bounded wait is armed");
    assert_eq!(after, PLAN_SETTLE_MS);
    d.frame(projection("plan", plan_value(true, false), 4));
    assert_eq!(d.outcome(op), None);
    d.s.on_wake(token);
    d.pump();
    assert_eq!(d.outcome(op), Some(&ok(json!({"active": true}))), "with the state known at the bound");
    // A late `command/done` for it changes nothing.
    d.live(done(1, "cmd-4"));
    assert_eq!(d.settled.iter().filter(|(o, _)| *o == op).count(), 1, "settled once");
}

#[test]
fn a_commands_change_refreshes_the_command_list() {
    let mut d = opened_on_2026_08(plan_value(false, false));
    assert_eq!(d.s.commands().map(|j| j.value()), Some(commands_2026_08()));
    let rev = d.s.commands_rev();
    d.s.on_commands_changed();
    d.s.on_commands_changed(); // a burst asks once more after the one in flight
    let (req, _) = d.take(|c| matches!(c, Call::Commands));
    let fewer = json!([{"name": "compact", "description": "Compact"}]);
    d.answer(req, fewer.clone());
    assert_eq!(d.s.commands().map(|j| j.value()), Some(fewer.clone()));
    assert!(d.s.commands_rev() > rev);
    assert_eq!(d.s.plan_mode(), None, "plan left the list: no plan mode");
    let (req, _) = d.take(|c| matches!(c, Call::Commands));
    d.answer(req, fewer);
    assert!(!d.has_request(|c| matches!(c, Call::Commands)));
}

#[test]
fn a_commands_change_on_a_seed_host_session_asks_nothing() {
    let mut d = Driver::opened(&[user(0, "a")], json!({"active": false}));
    d.s.on_commands_changed();
    assert!(!d.has_request(|c| matches!(c, Call::Commands)));
}

fn payload(call: &Call) -> Value {
    serde_json::from_str(call.payload("s1").text()).unwrap()
}

/// Each verb's request as b150a551b8's schemas (`sessions.schema.ts`, the Remote `commands/*`
/// envelope) take it, and its value handed back as the host sent it.
#[test]
fn the_2026_08_verbs_send_the_upstream_payloads_and_resolve_with_the_hosts_value() {
    let mut d = opened_on_2026_08(plan_value(false, false));
    let op = d.s.command("/feedback works well".into());
    let (req, call) = d.take(|c| matches!(c, Call::RunCommand { .. }));
    assert_eq!(call.path(), "commands/execute");
    assert_eq!(payload(&call), json!({"args": {"agentId": "s1", "line": "/feedback works well", "images": []}}));
    let value = json!({"commandId": "cmd-9", "result": {"kind": "success", "text": "Thanks"}});
    d.answer(req, value.clone());
    assert_eq!(d.outcome(op), Some(&ok(value)));

    let op = d.s.rename("  Hello   plan ".into());
    let (req, call) = d.take(|c| matches!(c, Call::Rename { .. }));
    assert_eq!(
        (call.path(), payload(&call)),
        ("session.rename", json!({"sessionId": "s1", "title": "  Hello   plan "}))
    );
    d.answer(req, json!({"title": "Hello plan", "seq": 7}));
    assert_eq!(d.outcome(op), Some(&ok(json!({"title": "Hello plan", "seq": 7}))));

    let action = json!({"kind": "edit", "content": [{"type": "text", "text": "instead"}]});
    let op = d.s.update_queue("m-1".into(), crate::core::wire::Json::from(action.clone()));
    let (req, call) = d.take(|c| matches!(c, Call::UpdateQueue { .. }));
    assert_eq!(payload(&call), json!({"sessionId": "s1", "itemId": "m-1", "action": action}));
    d.answer(req, json!({"accepted": true}));
    assert_eq!(d.outcome(op), Some(&ok(json!({"accepted": true}))));

    let op = d.s.read_attachment("sha256:ab".into());
    let (req, call) = d.take(|c| matches!(c, Call::Attachment { .. }));
    assert_eq!(payload(&call), json!({"sessionId": "s1", "attachmentId": "sha256:ab"}));
    let value = json!({"attachment": {"attachmentId": "sha256:ab", "mediaType": "image/png", "bytes": 3, "width": 1, "height": 1}, "data": "AAEC"});
    d.answer(req, value.clone());
    assert_eq!(d.outcome(op), Some(&ok(value)));
}

#[test]
fn a_verb_the_host_lacks_resolves_unsupported_and_a_bad_value_is_a_transport_error() {
    use crate::core::session::Outcome;
    use crate::core::wire::{ErrorCode, RpcError};
    let mut d = Driver::opened(&[user(0, "a")], json!({"active": false}));
    let op = d.s.rename("x".into());
    let (req, _) = d.take(|c| matches!(c, Call::Rename { .. }));
    d.fail(req, RpcError::carrier_status(404, "session.rename: HTTP 404"));
    assert!(matches!(d.outcome(op), Some(Outcome::Result(Err(e))) if e.code == ErrorCode::Unsupported));
    let op = d.s.read_attachment("a".into());
    let (req, _) = d.take(|c| matches!(c, Call::Attachment { .. }));
    d.answer(req, json!({"data": "AA"}));
    assert!(matches!(d.outcome(op), Some(Outcome::Result(Err(e))) if e.code == ErrorCode::Internal));
    // Closing settles a verb still in flight.
    let op = d.s.update_queue("m".into(), crate::core::wire::Json::from(json!({"kind": "remove"})));
    d.s.close();
    d.pump();
    assert!(matches!(d.outcome(op), Some(Outcome::Result(Err(e))) if e.code == ErrorCode::Cancelled));
}
