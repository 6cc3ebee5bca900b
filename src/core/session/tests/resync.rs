use super::harness::*;
use crate::core::session::{Capability, OpenState, Outcome};
use crate::core::wire::PlanModeState;
use serde_json::Value;

fn users(from: u64, to: u64) -> Vec<crate::core::wire::SessionEvent> {
    (from..=to).map(|s| user(s, "x")).collect()
}

#[test]
fn resync_on_a_cold_session_does_nothing() {
    let mut d = Driver::new();
    d.s.resync();
    assert_eq!(d.count_history(), 0);
    assert_eq!(d.s.open_state(), OpenState::Cold);
}

#[test]
fn resync_starts_a_new_generation_and_drops_the_stale_open_result() {
    let mut d = Driver::new();
    let op = d.s.open();
    let (old, _) = d.take_history();
    let g1 = d.s.generation();
    d.s.resync();
    assert!(d.s.generation() > g1);
    let (fresh, _) = d.take_history();
    d.answer(old, page(&users(0, 1), false));
    assert_eq!(d.s.open_state(), OpenState::Loading, "the stale result installed nothing");
    assert!(d.outcome(op).is_none());
    d.answer(fresh, page(&users(0, 3), false));
    assert_eq!(d.s.tail_seq(), 3);
    assert_eq!(d.outcome(op), Some(&Outcome::Done), "the waiting open settles on the new window");
}

#[test]
fn a_plan_query_of_an_older_generation_is_dropped() {
    let mut d = Driver::new();
    d.s.open();
    let (req, _) = d.take_history();
    d.answer(req, page(&users(0, 0), false));
    let old_query = d.take_plan_query();
    d.s.resync();
    let (req, _) = d.take_history();
    d.answer(req, page(&users(0, 0), false));
    let new_query = d.take_plan_query();
    d.answer(old_query, plan(true, None));
    assert_eq!(d.s.plan_mode(), None, "stale query dropped");
    d.answer(new_query, plan(false, None));
    assert_eq!(d.s.plan_mode(), Some(PlanModeState { active: false, pending: None }));
}

#[test]
fn a_stitch_pull_of_an_older_generation_is_dropped() {
    let mut d = Driver::new();
    d.frame(subscribed(4));
    d.s.open();
    let (req, _) = d.take_history();
    d.answer(req, page(&users(0, 1), false));
    let (pull, _) = d.take_history();
    d.s.resync();
    let (fresh, _) = d.take_history();
    d.answer(pull, page(&users(0, 9), false));
    assert_eq!(d.s.tail_seq(), 1);
    d.answer(fresh, page(&users(0, 4), false));
    assert_eq!(d.s.tail_seq(), 4);
}

#[test]
fn plan_capability_state_is_retained_across_resync() {
    let mut d = Driver::opened(&users(0, 0), plan(true, None));
    d.s.resync();
    assert_eq!(d.s.plan_mode(), Some(PlanModeState { active: true, pending: None }));
    assert_eq!(d.s.plan_capability(), Capability::Present);
    let (req, _) = d.take_history();
    d.answer(req, page(&users(0, 2), false));
    assert_eq!(d.s.plan_mode(), Some(PlanModeState { active: true, pending: None }));
}

#[test]
fn resync_keeps_the_window_visible_and_stitches_frames_that_arrive_meanwhile() {
    let mut d = Driver::opened(&users(0, 2), Value::Null);
    d.s.resync();
    assert_eq!(d.s.open_state(), OpenState::Open);
    assert_eq!(d.seqs(), vec![0, 1, 2]);
    let (req, _) = d.take_history();
    d.live(user(5, "x"));
    d.live(user(4, "x"));
    assert_eq!(d.seqs(), vec![0, 1, 2], "buffered while the resync is in flight");
    d.answer(req, page(&users(0, 3), false));
    assert_eq!(d.seqs(), vec![0, 1, 2, 3, 4, 5]);
}

#[test]
fn frames_for_a_window_of_an_older_connection_wait_for_the_resync() {
    let mut d = Driver::opened(&users(0, 2), Value::Null);
    d.s.connection_lost();
    d.frame(subscribed(6));
    d.live(user(7, "x"));
    assert_eq!(d.seqs(), vec![0, 1, 2]);
    assert_eq!(d.count_history(), 0, "no repair on a stale window: the resync will come");
    d.s.resync();
    let (req, _) = d.take_history();
    d.answer(req, page(&users(0, 6), false));
    assert_eq!(d.seqs(), (0..=7).collect::<Vec<_>>());
}

#[test]
fn a_host_restart_that_lost_its_log_rebuilds_from_the_hosts_truth() {
    let mut d = Driver::opened(&[user(0, "a"), plan_event(1, true), user(2, "b")], plan(true, None));
    d.s.connection_lost();
    d.frame(subscribed(0));
    d.s.resync();
    let (req, _) = d.take_history();
    d.answer(req, page(&[user(0, "a")], false));
    assert_eq!(d.seqs(), vec![0]);
    let q = d.take_plan_query();
    d.answer(q, plan(false, None));
    assert_eq!(d.s.plan_mode(), Some(PlanModeState { active: false, pending: None }));
    // A commit in the new seq space is not shadowed by the lost log's seq 1.
    d.live(plan_event(1, true));
    assert_eq!(d.s.plan_mode(), Some(PlanModeState { active: true, pending: None }));
}

#[test]
fn a_subscribed_tail_below_the_window_on_a_live_connection_triggers_a_resync() {
    let mut d = Driver::opened(&users(0, 5), Value::Null);
    let g = d.s.generation();
    d.frame(subscribed(2));
    assert!(d.s.generation() > g);
    let (req, before) = d.take_history();
    assert_eq!(before, None);
    d.answer(req, page(&users(0, 2), false));
    assert_eq!(d.seqs(), vec![0, 1, 2]);
}

#[test]
fn a_host_restart_that_kept_its_log_resumes_without_duplicates() {
    let mut d = Driver::opened(&users(0, 3), Value::Null);
    d.s.connection_lost();
    d.frame(subscribed(3));
    d.live(user(3, "dup"));
    d.live(user(4, "x"));
    d.s.resync();
    let (req, _) = d.take_history();
    d.answer(req, page(&users(0, 3), false));
    assert_eq!(d.seqs(), vec![0, 1, 2, 3, 4]);
    assert_eq!(d.s.nodes().len(), 5);
}

#[test]
fn a_failed_resync_keeps_the_window_and_applies_what_connects() {
    let mut d = Driver::opened(&users(0, 2), Value::Null);
    d.s.resync();
    let (req, _) = d.take_history();
    d.live(user(3, "x"));
    d.fail(req, transport_error());
    assert_eq!(d.s.open_state(), OpenState::Open);
    assert_eq!(d.seqs(), vec![0, 1, 2, 3]);
}
