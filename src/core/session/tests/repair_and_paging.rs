use super::harness::*;
use crate::core::session::{OpenState, Outcome, MAX_REPAIRS_PER_TAIL};
use std::rc::Rc;

fn open_range(from: u64, to: u64, has_more: bool) -> Driver {
    let events: Vec<_> = (from..=to).map(|s| user(s, "x")).collect();
    let mut d = Driver::new();
    d.s.open();
    let (req, _) = d.take_history();
    d.answer(req, page(&events, has_more));
    let q = d.take_plan_query();
    d.answer(q, plan(false, None));
    d
}

/// Fails every repair the budget allows, then collects the effects.
fn spend_the_repair_budget(d: &mut Driver) {
    for _ in 0..MAX_REPAIRS_PER_TAIL {
        let (req, _) = d.take_history();
        d.fail(req, transport_error());
    }
    d.pump();
}

fn users(from: u64, to: u64) -> Vec<crate::core::wire::SessionEvent> {
    (from..=to).map(|s| user(s, "x")).collect()
}

#[test]
fn a_gap_buffers_and_repulls_the_tail_as_a_replacement_window() {
    let mut d = open_range(10, 12, true);
    d.live(user(15, "x"));
    assert_eq!(d.seqs(), vec![10, 11, 12], "no appended hole");
    let (req, before) = d.take_history();
    assert_eq!(before, None);
    d.answer(req, page(&users(13, 14), true));
    assert_eq!(d.seqs(), vec![13, 14, 15], "replacement window plus the buffered frame");
    assert_eq!(d.s.diagnostics().repairs, 1);
}

#[test]
fn concurrent_gaps_coalesce_into_one_repair() {
    let mut d = open_range(0, 2, false);
    d.live(user(5, "x"));
    d.live(user(7, "x"));
    d.live(user(9, "x"));
    assert_eq!(d.count_history(), 1);
}

#[test]
fn a_gap_whose_repair_window_overlaps_buffered_frames() {
    let mut d = open_range(0, 2, false);
    d.live(user(5, "x"));
    let (req, _) = d.take_history();
    d.live(user(6, "x"));
    d.live(user(7, "x"));
    // The page already holds 5 and 6; 7 is stitched once, nothing twice.
    d.answer(req, page(&users(0, 6), false));
    assert_eq!(d.seqs(), (0..=7).collect::<Vec<_>>());
}

#[test]
fn a_failed_repair_keeps_the_window_and_is_bounded() {
    let mut d = open_range(0, 2, false);
    d.live(user(5, "x"));
    for _ in 0..MAX_REPAIRS_PER_TAIL {
        let (req, _) = d.take_history();
        d.fail(req, transport_error());
        assert_eq!(d.seqs(), vec![0, 1, 2]);
        assert_eq!(d.s.open_state(), OpenState::Open);
    }
    assert_eq!(d.count_history(), 0, "no loop: repairs stop at the budget");
    d.live(user(6, "x"));
    assert_eq!(d.count_history(), 0, "still bounded at this tail");
    // The missing frames arriving late unblock everything.
    d.live(user(3, "x"));
    d.live(user(4, "x"));
    assert_eq!(d.seqs(), (0..=6).collect::<Vec<_>>());
}

#[test]
fn a_spent_repair_budget_is_renewed_after_a_backoff_on_an_idle_session() {
    let mut d = open_range(0, 2, false);
    d.live(user(5, "x"));
    spend_the_repair_budget(&mut d);
    assert_eq!(d.wakes.len(), 1, "one wake for the spent budget");
    let (wake, delay) = d.wakes[0];
    assert_eq!(delay, 1_000);
    assert_eq!(d.count_history(), 0, "nothing until the wake");
    d.s.on_wake(wake);
    let (req, _) = d.take_history();
    d.s.on_wake(wake);
    assert_eq!(d.count_history(), 0, "a wake acts once");
    d.answer(req, page(&users(0, 4), false));
    assert_eq!(d.seqs(), (0..=5).collect::<Vec<_>>(), "caught up with the buffered frame");
}

#[test]
fn a_spent_repair_budget_backs_off_further_each_round() {
    let mut d = open_range(0, 2, false);
    d.live(user(5, "x"));
    for round in 0..3u32 {
        spend_the_repair_budget(&mut d);
        let (wake, delay) = *d.wakes.last().unwrap();
        assert_eq!(delay, 1_000 << round);
        d.s.on_wake(wake);
    }
    assert_eq!(d.wakes.len(), 3);
}

#[test]
fn a_repair_that_makes_no_progress_is_not_installed_backwards() {
    let mut d = open_range(0, 4, false);
    d.live(user(8, "x"));
    let (req, _) = d.take_history();
    d.answer(req, page(&users(0, 3), false));
    assert_eq!(d.seqs(), vec![0, 1, 2, 3, 4], "an older page never moves the window back");
    assert!(d.s.diagnostics().rejected_pages >= 1);
}

#[test]
fn a_repair_superseded_by_resync_is_dropped() {
    let mut d = open_range(0, 2, false);
    d.live(user(5, "x"));
    let (repair, _) = d.take_history();
    d.s.resync();
    let (fresh, _) = d.take_history();
    d.answer(repair, page(&users(0, 9), false));
    assert_eq!(d.seqs(), vec![0, 1, 2], "the stale repair touched nothing");
    assert_eq!(d.s.diagnostics().stale_responses, 1);
    d.answer(fresh, page(&users(0, 5), false));
    assert_eq!(d.s.tail_seq(), 5);
}

#[test]
fn load_older_prepends_a_page_that_ends_at_base_minus_one() {
    let mut d = open_range(10, 12, true);
    let first = Rc::clone(&d.s.nodes()[0]);
    let op = d.s.load_older();
    assert!(d.s.loading_older());
    let (req, before) = d.take_history();
    assert_eq!(before, Some(10));
    d.answer(req, page(&users(5, 9), true));
    assert_eq!(d.seqs(), (5..=12).collect::<Vec<_>>());
    assert!(d.s.has_more());
    assert!(!d.s.loading_older());
    assert_eq!(d.outcome(op), Some(&Outcome::Done));
    assert!(Rc::ptr_eq(&first, &d.s.nodes()[5]), "existing nodes keep identity after a prepend");
}

#[test]
fn load_older_drops_a_page_that_does_not_abut_and_clears_has_more() {
    let mut d = open_range(10, 12, true);
    d.s.load_older();
    let (req, _) = d.take_history();
    d.answer(req, page(&users(5, 8), true));
    assert_eq!(d.seqs(), vec![10, 11, 12]);
    assert!(!d.s.has_more());
}

#[test]
fn load_older_is_one_in_flight_at_a_time() {
    let mut d = open_range(10, 12, true);
    let a = d.s.load_older();
    let b = d.s.load_older();
    assert_eq!(d.count_history(), 1);
    let (req, _) = d.take_history();
    d.answer(req, page(&users(5, 9), false));
    assert_eq!(d.outcome(a), Some(&Outcome::Done));
    assert_eq!(d.outcome(b), Some(&Outcome::Done));
}

#[test]
fn load_older_is_a_no_op_when_not_open_or_nothing_more() {
    let mut d = Driver::new();
    let op = d.s.load_older();
    d.pump();
    assert_eq!(d.outcome(op), Some(&Outcome::Done));
    let mut d = open_range(0, 2, false);
    let op = d.s.load_older();
    d.pump();
    assert_eq!(d.outcome(op), Some(&Outcome::Done));
    assert_eq!(d.count_history(), 0);
}

#[test]
fn a_failed_older_page_keeps_has_more() {
    let mut d = open_range(10, 12, true);
    d.s.load_older();
    let (req, _) = d.take_history();
    d.fail(req, transport_error());
    assert!(d.s.has_more());
    assert!(!d.s.loading_older());
}
