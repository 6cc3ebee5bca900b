//! The retention rule through the host client, as a driver sees it: sessions nobody watches
//! are released to `cold`, come back through `open()`, and are not re-fetched by reconnects.

use super::test_driver::*;
use super::*;
use crate::core::session::OpenState;
use serde_json::json;

fn driver(keep_warm: usize, release_after_ms: f64) -> Driver {
    let retention = Retention { keep_warm, release_after_ms };
    let mut d = Driver::new(Config { transport: Transport::Only(Carrier::Sse), retention, ..Config::default() });
    d.establish();
    d.seed();
    d
}

fn unwatch(d: &mut Driver, id: &str) {
    d.input(Input::Watch { session: id.into(), listeners: false });
}

fn watch(d: &mut Driver, id: &str) {
    d.input(Input::Watch { session: id.into(), listeners: true });
}

/// Opens `id` (subscribed) with a 3-event window.
fn open_with_window(d: &mut Driver, token: u64, id: &str) {
    d.open(token, id);
    d.answer("session.history", &tail_page(0, 3));
    assert_eq!(d.client.session(id).unwrap().open_state(), OpenState::Open);
}

fn state(d: &Driver, id: &str) -> OpenState {
    d.client.session(id).unwrap().open_state()
}

fn history_calls(d: &Driver) -> usize {
    d.sent.iter().filter(|s| s.1 == "session.history").count()
}

fn later(d: &mut Driver, ms: f64) {
    d.now += ms;
    d.input(Input::Timeout);
}

#[test]
fn an_unwatched_session_beyond_the_warm_set_is_released_on_the_next_timer_turn() {
    let mut d = driver(1, 60_000.0);
    open_with_window(&mut d, 1, "a");
    open_with_window(&mut d, 2, "b");
    unwatch(&mut d, "a");
    unwatch(&mut d, "b");
    // Within the same input nothing is released: a listener that re-subscribes at once keeps it.
    assert_eq!(state(&d, "a"), OpenState::Open);
    later(&mut d, 1.0);
    assert_eq!(state(&d, "a"), OpenState::Cold, "ranked past the warm set");
    assert!(d.client.session("a").unwrap().nodes().is_empty(), "its window and nodes are gone");
    assert_eq!(d.client.session("a").unwrap().diagnostics().releases, 1);
    assert_eq!(state(&d, "b"), OpenState::Open, "the most recently watched stays warm");
}

#[test]
fn a_warm_session_is_released_when_its_grace_ends() {
    let mut d = driver(4, 10_000.0);
    open_with_window(&mut d, 1, "a");
    // The open's plan query stays unanswered: its deadline is the one timer left at the end.
    let plan_deadline = Some(Instant::from_ms(d.now + Config::default().request_timeout_ms));
    unwatch(&mut d, "a");
    later(&mut d, 9_999.0);
    assert_eq!(state(&d, "a"), OpenState::Open);
    let at = d.client.poll_timeout().expect("the sweep timer is armed");
    d.now = at.as_ms();
    d.input(Input::Timeout);
    assert_eq!(state(&d, "a"), OpenState::Cold);
    assert_eq!(d.client.poll_timeout(), plan_deadline, "nothing left to sweep");
}

#[test]
fn a_listener_that_comes_back_in_time_keeps_the_session_warm() {
    let mut d = driver(0, 10_000.0);
    open_with_window(&mut d, 1, "a");
    unwatch(&mut d, "a");
    watch(&mut d, "a"); // React re-subscribing in the same task
    later(&mut d, 60_000.0);
    assert_eq!(state(&d, "a"), OpenState::Open);
    assert_eq!(d.client.router().watch("a").unwrap().unwatched, None);
}

#[test]
fn an_operation_in_flight_keeps_an_unwatched_session() {
    let mut d = driver(0, 0.0);
    open_with_window(&mut d, 1, "a");
    let content = crate::core::wire::Json::from_text(r#"[{"type":"text","text":"x"}]"#).unwrap();
    let prompt = SessionOp::Prompt { content, mode: crate::core::wire::PromptMode::Queue, adopted: None };
    d.input(Input::Session { token: Token(2), session: "a".into(), op: prompt });
    unwatch(&mut d, "a");
    later(&mut d, 1_000.0);
    assert_eq!(state(&d, "a"), OpenState::Open, "the prompt is still in flight");
    d.answer("session.prompt", r#"{"accepted":true}"#);
    later(&mut d, 1.0);
    assert_eq!(state(&d, "a"), OpenState::Cold, "released once the prompt settled");
}

#[test]
fn a_released_session_is_rebuilt_by_open() {
    let mut d = driver(0, 0.0);
    open_with_window(&mut d, 1, "a");
    unwatch(&mut d, "a");
    later(&mut d, 1.0);
    assert_eq!(state(&d, "a"), OpenState::Cold);
    let before = history_calls(&d);
    d.open(2, "a");
    assert_eq!(history_calls(&d), before + 1);
    d.answer("session.history", &tail_page(0, 5));
    assert_eq!(d.settlement(2), Some(&Settlement::Done));
    assert_eq!(d.client.session("a").unwrap().tail_seq(), 4);
}

#[test]
fn a_released_session_keeps_its_pending_approvals() {
    let mut d = driver(0, 0.0);
    open_with_window(&mut d, 1, "a");
    d.frame(json!({"type":"server-request","rpcId":"r1","method":"approval/requested","payload":{"type":"approval/requested","sessionId":"a","approvalId":"ap1","toolName":"bash"}}));
    assert_eq!(d.client.session("a").unwrap().pending().len(), 1);
    unwatch(&mut d, "a");
    later(&mut d, 1.0);
    assert_eq!(state(&d, "a"), OpenState::Cold);
    assert_eq!(d.client.session("a").unwrap().pending().len(), 1, "the host does not send it again");
}

#[test]
fn a_reconnect_refetches_only_watched_sessions_and_the_rest_resync_when_watched_again() {
    let mut d = driver(8, 600_000.0);
    for (i, id) in ["w", "u1", "u2", "u3"].iter().enumerate() {
        open_with_window(&mut d, i as u64 + 1, id);
    }
    for id in ["u1", "u2", "u3"] {
        unwatch(&mut d, id);
    }
    let mux = d.mux();
    d.input(Input::StreamEnded { stream: mux, why: "gone".into() });
    d.advance_to_timeout();
    let before = history_calls(&d);
    d.establish();
    let history: Vec<String> = d.sent[..]
        .iter()
        .filter(|s| s.1 == "session.history")
        .map(|s| s.2["payload"]["sessionId"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(history_calls(&d) - before, 1, "one history call, for the watched session: {history:?}");
    assert_eq!(history.last().map(String::as_str), Some("w"));
    assert!(d.client.session("u1").unwrap().lifecycle().is_stale(), "still showing its old window");
    watch(&mut d, "u1");
    assert_eq!(history_calls(&d) - before, 2, "watched again: it resyncs now");
    let (_, body) = d.take("session.history");
    assert_eq!(body["payload"]["sessionId"], "u1");
}

#[test]
fn an_operation_on_a_session_that_missed_a_generation_resyncs_it_first() {
    let mut d = driver(8, 600_000.0);
    open_with_window(&mut d, 1, "a");
    unwatch(&mut d, "a");
    let mux = d.mux();
    d.input(Input::StreamEnded { stream: mux, why: "gone".into() });
    d.advance_to_timeout();
    d.establish();
    let before = history_calls(&d);
    d.input(Input::Session { token: Token(9), session: "a".into(), op: SessionOp::Open });
    assert_eq!(history_calls(&d), before + 1);
    assert_eq!(d.settlement(9), Some(&Settlement::Done), "the old window is shown meanwhile");
}

#[test]
fn a_warm_unwatched_session_says_its_window_is_stale_through_a_reconnect_until_resynced() {
    let mut d = driver(8, 600_000.0);
    open_with_window(&mut d, 1, "w");
    open_with_window(&mut d, 2, "u");
    unwatch(&mut d, "u");
    let stale = |d: &Driver, id: &str| d.client.session(id).unwrap().stale();
    assert!(!stale(&d, "u") && !stale(&d, "w"), "both follow the host's log");
    let mux = d.mux();
    d.input(Input::StreamEnded { stream: mux, why: "gone".into() });
    assert!(stale(&d, "u") && stale(&d, "w"), "the connection that built them ended");
    d.advance_to_timeout();
    d.establish();
    // The watched session resyncs at once; the unwatched one keeps its window, behind.
    d.answer("session.history", &tail_page(0, 5));
    assert!(!stale(&d, "w"), "resynced");
    assert!(stale(&d, "u"), "not re-fetched while nobody watches it");
    assert_eq!(state(&d, "u"), OpenState::Open, "its old window is still shown");
    watch(&mut d, "u");
    assert!(stale(&d, "u"), "resyncing: the fresh tail page is not in yet");
    d.answer("session.history", &tail_page(0, 6));
    assert!(!stale(&d, "u"), "the resync installed the host's window");
    assert_eq!(d.client.session("u").unwrap().tail_seq(), 5);
}
