use super::harness::*;
use crate::core::session::{Call, OpenState, Outcome};
use crate::core::wire::{ErrorCode, RpcError};
use serde_json::json;

#[test]
fn open_goes_cold_then_loading_then_open() {
    let mut d = Driver::new();
    assert_eq!(d.s.open_state(), OpenState::Cold);
    let op = d.s.open();
    assert_eq!(d.s.open_state(), OpenState::Loading);
    let (req, before) = d.take_history();
    assert_eq!(before, None, "open pulls the tail page");
    assert!(d.outcome(op).is_none(), "open settles only once the window is installed");
    d.answer(req, page(&[user(0, "hi"), message(1, 1, "hello")], true));
    assert_eq!(d.s.open_state(), OpenState::Open);
    assert_eq!(d.outcome(op), Some(&Outcome::Done));
    assert_eq!((d.s.base_seq(), d.s.tail_seq(), d.s.has_more()), (0, 1, true));
    assert_eq!(d.s.nodes().len(), 2);
}

#[test]
fn open_settles_before_the_plan_query_answers() {
    let mut d = Driver::new();
    let op = d.s.open();
    let (req, _) = d.take_history();
    d.answer(req, page(&[user(0, "hi")], false));
    assert_eq!(d.outcome(op), Some(&Outcome::Done));
    assert!(d.has_request(|c| matches!(c, Call::PlanMode)), "plan query runs right after");
    assert_eq!(d.s.plan_mode(), None);
}

#[test]
fn concurrent_opens_share_one_history_call() {
    let mut d = Driver::new();
    let a = d.s.open();
    let b = d.s.open();
    assert_eq!(d.count_history(), 1);
    let (req, _) = d.take_history();
    d.answer(req, page(&[user(0, "hi")], false));
    assert_eq!(d.outcome(a), Some(&Outcome::Done));
    assert_eq!(d.outcome(b), Some(&Outcome::Done));
    let c = d.s.open();
    d.pump();
    assert_eq!(d.outcome(c), Some(&Outcome::Done), "open on an open session is a no-op");
    assert_eq!(d.count_history(), 0);
}

#[test]
fn an_error_result_lands_in_open_state_error_with_the_error_kept() {
    let mut d = Driver::new();
    let op = d.s.open();
    let (req, _) = d.take_history();
    let err = RpcError::session_not_found(SID);
    d.fail(req, err.clone());
    assert_eq!(d.s.open_state(), OpenState::Error);
    assert_eq!(d.s.open_error(), Some(&err));
    assert_eq!(d.outcome(op), Some(&Outcome::Done));
    assert!(!d.has_request(|c| matches!(c, Call::PlanMode)), "no plan query after a failed open");
}

#[test]
fn a_transport_failure_lands_in_open_state_error() {
    let mut d = Driver::new();
    d.s.open();
    let (req, _) = d.take_history();
    d.fail(req, transport_error());
    assert_eq!(d.s.open_state(), OpenState::Error);
    assert_eq!(d.s.open_error().unwrap().code, ErrorCode::Internal);
}

#[test]
fn a_history_value_failing_its_schema_is_a_transport_error() {
    let mut d = Driver::new();
    d.s.open();
    let (req, _) = d.take_history();
    d.answer(req, json!({"events": "nope", "hasMore": false}));
    assert_eq!(d.s.open_state(), OpenState::Error);
    assert_eq!(d.s.open_error().unwrap().code, ErrorCode::Internal);
    assert_eq!(d.s.diagnostics().bad_values, 1);
}

#[test]
fn a_non_contiguous_history_page_is_rejected() {
    let mut d = Driver::new();
    d.s.open();
    let (req, _) = d.take_history();
    d.answer(req, page(&[user(0, "a"), user(2, "b")], false));
    assert_eq!(d.s.open_state(), OpenState::Error);
}

#[test]
fn an_errored_session_can_be_opened_again() {
    let mut d = Driver::new();
    d.s.open();
    let (req, _) = d.take_history();
    d.fail(req, transport_error());
    d.s.open();
    let (req, _) = d.take_history();
    d.answer(req, page(&[user(0, "a")], false));
    assert_eq!(d.s.open_state(), OpenState::Open);
    assert_eq!(d.s.open_error(), None);
}

#[test]
fn frames_arriving_while_history_loads_are_buffered_and_stitched_by_seq() {
    let mut d = Driver::new();
    d.s.open();
    let (req, _) = d.take_history();
    // Out of order, overlapping the page, duplicated.
    d.live(chunk(4, 1, " there"));
    d.live(chunk(2, 1, "Hel"));
    d.live(chunk(3, 1, "lo"));
    d.live(chunk(3, 1, "lo"));
    assert_eq!(d.s.window().len(), 0, "nothing shows before the window");
    d.answer(req, page(&[turn_start(0, 1), user(1, "hi"), chunk(2, 1, "Hel")], false));
    assert_eq!(d.seqs(), vec![0, 1, 2, 3, 4], "page overlap dropped, rest stitched");
    assert_eq!(d.s.partial().unwrap().text, "Hello there");
    assert!(d.count_history() == 0, "no repair needed");
}

#[test]
fn a_subscribed_last_seq_past_the_loaded_tail_pulls_the_tail_once_more() {
    let mut d = Driver::new();
    d.frame(subscribed(5));
    d.s.open();
    let (req, _) = d.take_history();
    d.answer(req, page(&[user(0, "a"), user(1, "b")], false));
    let (pull, before) = d.take_history();
    assert_eq!(before, None, "the stitch pull is a tail page");
    let events: Vec<_> = (0..=5).map(|s| user(s, "x")).collect();
    d.answer(pull, page(&events, false));
    assert_eq!(d.s.tail_seq(), 5);
    assert_eq!(d.count_history(), 0, "pulled once");
}

#[test]
fn a_failed_second_pull_keeps_the_first_window() {
    let mut d = Driver::new();
    d.frame(subscribed(5));
    d.s.open();
    let (req, _) = d.take_history();
    d.answer(req, page(&[user(0, "a"), user(1, "b")], false));
    let (pull, _) = d.take_history();
    d.fail(pull, transport_error());
    assert_eq!(d.s.open_state(), OpenState::Open);
    assert_eq!(d.seqs(), vec![0, 1]);
}

#[test]
fn live_events_are_dropped_while_cold_or_errored() {
    let mut d = Driver::new();
    d.live(user(0, "a"));
    assert_eq!(d.s.diagnostics().events_while_closed, 1);
    d.s.open();
    let (req, _) = d.take_history();
    d.fail(req, transport_error());
    d.live(user(1, "b"));
    assert_eq!(d.s.diagnostics().events_while_closed, 2);
    assert!(d.s.window().is_empty());
}
