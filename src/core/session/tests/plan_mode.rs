use super::harness::*;
use crate::core::session::{Call, Capability, Outcome};
use crate::core::wire::{PlanModeState, RpcError};
use serde_json::{json, Value};

fn st(active: bool, pending: Option<bool>) -> Option<PlanModeState> {
    Some(PlanModeState { active, pending })
}

/// Open with the plan query still unanswered.
fn open_without_plan_answer(events: &[crate::core::wire::SessionEvent]) -> (Driver, crate::core::session::ReqId) {
    let mut d = Driver::new();
    d.s.open();
    let (req, _) = d.take_history();
    d.answer(req, page(events, false));
    let q = d.take_plan_query();
    (d, q)
}

#[test]
fn null_means_capability_absent_and_active_false_means_supported_and_inactive() {
    let d = Driver::opened(&[user(0, "a")], Value::Null);
    assert_eq!(d.s.plan_mode(), None);
    assert_eq!(d.s.plan_capability(), Capability::Absent);
    let d = Driver::opened(&[user(0, "a")], plan(false, None));
    assert_eq!(d.s.plan_mode(), st(false, None));
    assert_eq!(d.s.plan_capability(), Capability::Present);
}

#[test]
fn a_selection_shows_nothing_until_the_host_answers() {
    let mut d = Driver::opened(&[user(0, "a")], plan(false, None));
    let op = d.s.set_plan_mode(true);
    assert_eq!(d.s.plan_mode(), st(false, None), "no speculative value");
    let sel = d.take_selection();
    d.answer(sel, plan(false, Some(true)));
    assert_eq!(d.s.plan_mode(), st(false, Some(true)));
    assert_eq!(d.outcome(op), Some(&ok(json!({"active": false, "pending": true}))));
}

#[test]
fn an_older_overlapping_selection_response_is_dropped() {
    let mut d = Driver::opened(&[user(0, "a")], plan(false, None));
    let first = d.s.set_plan_mode(true);
    let a = d.take_selection();
    let second = d.s.set_plan_mode(false);
    let b = d.take_selection();
    d.answer(b, plan(false, None));
    d.answer(a, plan(false, Some(true)));
    assert_eq!(d.s.plan_mode(), st(false, None), "the older answer never overwrites the newer");
    assert!(d.outcome(first).is_some() && d.outcome(second).is_some(), "both promises settle");
    assert_eq!(d.s.diagnostics().plan_responses_fenced, 1);
}

#[test]
fn a_query_answered_after_a_newer_selection_is_dropped() {
    let (mut d, q) = open_without_plan_answer(&[user(0, "a")]);
    d.s.set_plan_mode(true);
    let sel = d.take_selection();
    d.answer(sel, plan(false, Some(true)));
    d.answer(q, plan(false, None));
    assert_eq!(d.s.plan_mode(), st(false, Some(true)));
}

#[test]
fn a_plan_mode_commit_that_overtakes_the_initial_query_wins() {
    let (mut d, q) = open_without_plan_answer(&[user(0, "a")]);
    d.live(plan_event(1, true));
    assert_eq!(d.s.plan_mode(), None, "an early commit stays private");
    d.answer(q, plan(false, Some(true)));
    assert_eq!(d.s.plan_mode(), st(true, None), "the commit wins over the older answer");
}

#[test]
fn a_mux_commit_overtakes_a_selection_response() {
    let mut d = Driver::opened(&[user(0, "a")], plan(false, None));
    d.s.set_plan_mode(true);
    let sel = d.take_selection();
    d.live(plan_event(1, true));
    assert_eq!(d.s.plan_mode(), st(true, None));
    d.answer(sel, plan(false, Some(true)));
    assert_eq!(d.s.plan_mode(), st(true, None), "the selection response lost to the commit");
    // The dropped answer carried a pending flag, so the core asks again.
    let q = d.take_plan_query();
    d.answer(q, plan(true, None));
    assert_eq!(d.s.plan_mode(), st(true, None));
}

#[test]
fn a_unary_response_ahead_of_the_stream_does_not_regress_when_the_stream_catches_up() {
    let mut d = Driver::opened(&[user(0, "a")], plan(false, None));
    d.s.set_plan_mode(true);
    let sel = d.take_selection();
    // The host committed at seq 1 before answering; the answer arrives first.
    d.answer(sel, plan(true, None));
    assert_eq!(d.s.plan_mode(), st(true, None));
    d.live(plan_event(1, true));
    assert_eq!(d.s.plan_mode(), st(true, None));
}

#[test]
fn a_raw_event_never_creates_the_capability() {
    let (mut d, q) = open_without_plan_answer(&[plan_event(0, true)]);
    assert_eq!(d.s.plan_mode(), None);
    d.live(plan_event(1, false));
    assert_eq!(d.s.plan_mode(), None);
    d.answer(q, Value::Null);
    assert_eq!(d.s.plan_mode(), None);
    assert_eq!(d.s.plan_capability(), Capability::Absent);
    d.live(plan_event(2, true));
    assert_eq!(d.s.plan_mode(), None, "still absent after another raw event");
}

#[test]
fn an_early_commit_is_applied_once_a_query_confirms_the_capability() {
    let (mut d, q) = open_without_plan_answer(&[user(0, "a")]);
    d.live(plan_event(1, true));
    d.answer(q, plan(true, None));
    assert_eq!(d.s.plan_mode(), st(true, None));
}

#[test]
fn a_live_commit_replaces_active_and_clears_pending() {
    let mut d = Driver::opened(&[user(0, "a")], plan(false, Some(true)));
    assert_eq!(d.s.plan_mode(), st(false, Some(true)));
    d.live(turn_start(1, 1));
    d.live(plan_event(2, true));
    assert_eq!(d.s.plan_mode(), st(true, None));
}

#[test]
fn a_malformed_plan_mode_event_is_ignored() {
    let mut d = Driver::opened(&[user(0, "a")], plan(false, None));
    d.live(ev(1, "plan/mode", json!({"active": "yes"})));
    d.live(ev(2, "plan/mode", json!(null)));
    assert_eq!(d.s.plan_mode(), st(false, None));
    assert_eq!(d.s.tail_seq(), 2, "kept in the window all the same");
}

#[test]
fn a_replacement_window_applies_the_newest_valid_plan_event_by_seq() {
    let mut d = Driver::opened(&[user(0, "a")], plan(false, None));
    d.live(user(5, "gap"));
    let (req, _) = d.take_history();
    let events = vec![
        user(0, "a"),
        plan_event(1, true),
        plan_event(2, false),
        ev(3, "plan/mode", json!({"active": 1})),
        user(4, "b"),
    ];
    d.answer(req, page(&events, false));
    assert_eq!(d.s.plan_mode(), st(false, None), "seq 2 is the newest valid commit");
}

#[test]
fn the_open_window_applies_its_newest_commit_before_the_query_answers() {
    let (mut d, q) = open_without_plan_answer(&[plan_event(0, true), user(1, "a")]);
    // The query was sent after the window (commit seq 0 seen): its answer is newer.
    d.answer(q, plan(true, Some(false)));
    assert_eq!(d.s.plan_mode(), st(true, Some(false)));
}

#[test]
fn query_failures_are_fail_soft_and_keep_the_last_known_capability() {
    let mut d = Driver::opened(&[user(0, "a")], plan(true, None));
    d.s.resync();
    let (req, _) = d.take_history();
    d.answer(req, page(&[user(0, "a"), user(1, "b")], false));
    let q = d.take_plan_query();
    d.fail(q, RpcError::transport("timeout"));
    assert_eq!(d.s.plan_mode(), st(true, None));
    assert_eq!(d.s.tail_seq(), 1, "history stays usable");
}

#[test]
fn a_failed_plan_query_is_asked_again_once_the_stream_shows_life() {
    let (mut d, q) = open_without_plan_answer(&[user(0, "a")]);
    d.fail(q, RpcError::transport("timeout"));
    assert!(!d.has_request(|c| matches!(c, Call::PlanMode)), "no immediate retry (no loop)");
    d.live(user(1, "b"));
    let again = d.take_plan_query();
    d.answer(again, plan(true, None));
    assert_eq!(d.s.plan_mode(), st(true, None));
    d.live(user(2, "c"));
    assert!(!d.has_request(|c| matches!(c, Call::PlanMode)), "asked once per failure");
}

#[test]
fn a_failed_plan_query_on_an_idle_session_is_asked_again_after_a_backoff() {
    let (mut d, q) = open_without_plan_answer(&[user(0, "a")]);
    let (first, delay) = d.fail_then_wake(q);
    assert_eq!(delay, 1_000);
    d.s.on_wake(first);
    let again = d.take_plan_query();
    let (second, delay) = d.fail_then_wake(again);
    assert_eq!(delay, 2_000, "consecutive failures back off");
    d.s.on_wake(first);
    assert!(!d.has_request(|c| matches!(c, Call::PlanMode)), "an earlier wake is stale");
    d.s.on_wake(second);
    let third = d.take_plan_query();
    d.answer(third, plan(false, Some(true)));
    assert_eq!(d.s.plan_mode(), st(false, Some(true)));
    assert!(!d.s.plan_retry_due());
    // After an answer the backoff starts over.
    d.live(user(1, "b"));
    d.s.resync();
    let (h, _) = d.take_history();
    d.answer(h, page(&[user(0, "a"), user(1, "b")], false));
    let q = d.take_plan_query();
    assert_eq!(d.fail_then_wake(q).1, 1_000);
}

#[test]
fn a_retry_wake_is_void_once_a_live_event_asked_or_a_new_window_began() {
    let (mut d, q) = open_without_plan_answer(&[user(0, "a")]);
    let (wake, _) = d.fail_then_wake(q);
    d.live(user(1, "b"));
    let again = d.take_plan_query();
    d.s.on_wake(wake);
    assert!(!d.has_request(|c| matches!(c, Call::PlanMode)), "the event already asked");
    let (wake, _) = d.fail_then_wake(again);
    d.s.resync();
    let (h, _) = d.take_history();
    d.s.on_wake(wake);
    assert!(!d.has_request(|c| matches!(c, Call::PlanMode)), "the new window asks its own query");
    d.answer(h, page(&[user(0, "a"), user(1, "b")], false));
    assert!(d.has_request(|c| matches!(c, Call::PlanMode)));
}

#[test]
fn a_retry_wake_after_close_sends_nothing() {
    let (mut d, q) = open_without_plan_answer(&[user(0, "a")]);
    let (wake, _) = d.fail_then_wake(q);
    d.s.close();
    d.s.on_wake(wake);
    assert!(!d.has_request(|c| matches!(c, Call::PlanMode)));
}

#[test]
fn selection_failures_keep_the_prior_state_and_settle_with_the_error() {
    let mut d = Driver::opened(&[user(0, "a")], plan(false, None));
    let op = d.s.set_plan_mode(true);
    let sel = d.take_selection();
    let err = RpcError::new(crate::core::wire::ErrorCode::AgentBusy, "busy", json!({"reason": "x"}));
    d.fail(sel, err.clone());
    assert_eq!(d.s.plan_mode(), st(false, None));
    assert_eq!(d.outcome(op), Some(&Outcome::Result(Err(err))));
}

#[test]
fn a_plan_value_with_pending_equal_to_active_is_a_transport_error() {
    let mut d = Driver::opened(&[user(0, "a")], plan(false, None));
    let op = d.s.set_plan_mode(true);
    let sel = d.take_selection();
    d.answer(sel, json!({"active": true, "pending": true}));
    assert_eq!(d.s.plan_mode(), st(false, None));
    assert!(matches!(d.outcome(op), Some(Outcome::Result(Err(e))) if e.code == crate::core::wire::ErrorCode::Internal));
}

#[test]
fn the_plan_query_runs_after_every_successful_open_and_resync() {
    let mut d = Driver::opened(&[user(0, "a")], plan(false, None));
    d.s.resync();
    let (req, _) = d.take_history();
    assert!(!d.has_request(|c| matches!(c, Call::PlanMode)), "not before the window");
    d.answer(req, page(&[user(0, "a")], false));
    assert!(d.has_request(|c| matches!(c, Call::PlanMode)));
}
