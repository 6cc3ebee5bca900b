//! The outbox: a prompt shows at once, waits out a disconnect, and lands once.

use super::harness::*;
use crate::core::session::{Call, Delivery, NodeKind, Outcome, MAX_OUTBOX_PROMPTS};
use crate::core::wire::{ErrorCode, Json, PromptMode, RpcError};
use serde_json::{json, Value};

fn text(t: &str) -> Json {
    Json::from(json!([{"type": "text", "text": t}]))
}

fn mine(seq: u64, t: &str, rpc: &str) -> crate::core::wire::SessionEvent {
    ev(seq, "user/message", json!({"content": [{"type": "text", "text": t}], "source": {"kind": "user", "rpcId": rpc}}))
}

fn take_prompt(d: &mut Driver) -> (crate::core::session::ReqId, String) {
    match d.take(|c| matches!(c, Call::Prompt { .. })) {
        (req, Call::Prompt { rpc_id: Some(id), .. }) => (req, id),
        other => panic!("a prompt under its own id: {other:?}"),
    }
}

fn echoes(d: &Driver) -> Vec<(String, &'static str)> {
    d.s.shown_nodes()
        .iter()
        .filter_map(|n| match &n.kind {
            NodeKind::Echo { delivery, .. } => Some((n.id.clone(), *delivery)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_prompt_shows_at_once_as_sending_then_sent_then_is_replaced_by_the_hosts_node() {
    let mut d = Driver::opened(&[user(0, "a")], Value::Null);
    d.s.set_client_prefix("c1-");
    let op = d.s.prompt_as(text("hi"), PromptMode::Queue, "c1-7".into(), false);
    assert_eq!(echoes(&d), [("c1-7".to_string(), "sending")]);
    let (req, id) = take_prompt(&mut d);
    assert_eq!(id, "c1-7");
    d.answer(req, json!({"accepted": true}));
    assert_eq!(echoes(&d), [("c1-7".to_string(), "sent")]);
    assert_eq!(d.outcome(op), Some(&ok(json!({"accepted": true}))));
    d.live(mine(1, "hi", "c1-7"));
    assert!(echoes(&d).is_empty(), "the host's node replaced the echo");
    let last = d.s.shown_nodes().last().cloned().expect("a node");
    assert!(matches!(&last.kind, NodeKind::User { client_id: Some(c), .. } if c == "c1-7"));
    assert!(d.s.is_mine("c1-7") && !d.s.is_mine("c2-7"));
}

#[test]
fn a_prompt_made_offline_waits_and_goes_when_the_connection_is_back_in_order() {
    let mut d = Driver::opened(&[user(0, "a")], Value::Null);
    d.s.set_online(false);
    d.s.prompt_as(text("one"), PromptMode::Queue, "c-1".into(), false);
    d.s.prompt_as(text("two"), PromptMode::Queue, "c-2".into(), false);
    assert!(!d.has_request(|c| matches!(c, Call::Prompt { .. })), "nothing goes while offline");
    assert_eq!(echoes(&d), [("c-1".to_string(), "waiting"), ("c-2".to_string(), "waiting")]);
    d.s.set_online(true);
    let (req, id) = take_prompt(&mut d);
    assert_eq!(id, "c-1");
    assert!(!d.has_request(|c| matches!(c, Call::Prompt { .. })), "one at a time");
    d.answer(req, json!({"accepted": true}));
    let (_, id) = take_prompt(&mut d);
    assert_eq!(id, "c-2");
}

#[test]
fn an_unanswered_prompt_is_looked_up_before_it_is_sent_again_and_not_sent_when_found() {
    let mut d = Driver::opened(&[user(0, "a")], Value::Null);
    let op = d.s.prompt_as(text("hi"), PromptMode::Queue, "c-1".into(), false);
    let (req, _) = take_prompt(&mut d);
    d.fail(req, transport_error());
    assert_eq!(echoes(&d), [("c-1".to_string(), "waiting")]);
    assert_eq!(d.outcome(op), None, "its fate is not known yet");
    // The connection comes back: the tail page is read first.
    d.s.set_online(false);
    d.s.set_online(true);
    d.pump();
    assert!(!d.has_request(|c| matches!(c, Call::Prompt { .. })));
    let (look, before) = d.take_history();
    assert_eq!(before, None, "the tail page");
    d.answer(look, page(&[user(0, "a"), mine(1, "hi", "c-1")], false));
    assert!(!d.has_request(|c| matches!(c, Call::Prompt { .. })), "found: never sent twice");
    assert_eq!(d.s.outbox().deduplicated, 1);
    assert_eq!(d.outcome(op), Some(&ok(json!({"accepted": true}))));
}

#[test]
fn an_unanswered_prompt_absent_from_the_tail_is_sent_again_under_the_same_id() {
    let mut d = Driver::opened(&[user(0, "a")], Value::Null);
    d.s.prompt_as(text("hi"), PromptMode::Queue, "c-1".into(), false);
    let (req, _) = take_prompt(&mut d);
    d.fail(req, transport_error());
    let (token, _) = *d.wakes.last().expect("a wake for the next attempt");
    d.s.on_wake(token);
    d.pump();
    let (look, _) = d.take_history();
    d.answer(look, page(&[user(0, "a")], false));
    let (_, id) = take_prompt(&mut d);
    assert_eq!(id, "c-1");
    assert_eq!(d.s.outbox().resent, 1);
}

#[test]
fn a_refused_prompt_is_failed_with_its_error_and_can_be_retried_or_discarded() {
    let mut d = Driver::opened(&[user(0, "a")], Value::Null);
    let op = d.s.prompt_as(text("hi"), PromptMode::Queue, "c-1".into(), false);
    let (req, _) = take_prompt(&mut d);
    let err = RpcError::new(ErrorCode::AgentBusy, "busy", json!({}));
    d.fail(req, err.clone());
    assert_eq!(d.outcome(op), Some(&Outcome::Result(Err(err.clone()))));
    assert_eq!(d.s.outbox().entries()[0].delivery, Delivery::Failed(err));
    let again = d.s.retry_prompt("c-1");
    let (req, id) = take_prompt(&mut d);
    assert_eq!(id, "c-1");
    d.fail(req, RpcError::new(ErrorCode::AgentBusy, "busy", json!({})));
    assert!(matches!(d.outcome(again), Some(Outcome::Result(Err(_)))));
    let gone = d.s.discard_prompt("c-1");
    d.pump();
    assert_eq!(d.outcome(gone), Some(&ok(Value::Null)));
    assert!(echoes(&d).is_empty());
    let none = d.s.discard_prompt("c-1");
    d.pump();
    assert!(matches!(d.outcome(none), Some(Outcome::Result(Err(_)))));
}

#[test]
fn the_outbox_is_bounded_in_prompts_with_a_clear_error() {
    let mut d = Driver::opened(&[user(0, "a")], Value::Null);
    d.s.set_online(false);
    for i in 0..MAX_OUTBOX_PROMPTS {
        d.s.prompt_as(text("x"), PromptMode::Queue, format!("c-{i}"), false);
    }
    let op = d.s.prompt_as(text("x"), PromptMode::Queue, "c-over".into(), false);
    d.pump();
    match d.outcome(op) {
        Some(Outcome::Result(Err(e))) => assert!(e.message.starts_with("outbox-full"), "{e:?}"),
        other => panic!("refused: {other:?}"),
    }
    assert_eq!(d.s.outbox().waiting(), MAX_OUTBOX_PROMPTS);
}

#[test]
fn a_prompt_the_hosts_queue_holds_is_shown_by_the_queue_not_twice() {
    use crate::core::wire::{Frame, QueueFrame};
    let mut d = Driver::opened(&[user(0, "a")], Value::Null);
    d.s.prompt_as(text("later"), PromptMode::Queue, "c-1".into(), false);
    let (req, _) = take_prompt(&mut d);
    d.answer(req, json!({"accepted": true}));
    assert_eq!(echoes(&d).len(), 1);
    let items =
        Json::from(json!([{"id": "q1", "message": {"content": [], "source": {"kind": "user", "rpcId": "c-1"}}}]));
    d.frame(frame(Frame::Queue(QueueFrame { session_id: SID.into(), items })));
    assert!(echoes(&d).is_empty(), "the queue item shows it");
}

#[test]
fn an_accepted_prompt_removed_from_the_hosts_queue_does_not_come_back_as_an_echo() {
    use crate::core::wire::{Frame, QueueFrame};
    let mut d = Driver::opened(&[user(0, "a")], Value::Null);
    d.s.prompt_as(text("later"), PromptMode::Queue, "c-1".into(), false);
    let (req, _) = take_prompt(&mut d);
    d.answer(req, json!({"accepted": true}));
    let items =
        Json::from(json!([{"id": "q1", "message": {"content": [], "source": {"kind": "user", "rpcId": "c-1"}}}]));
    d.frame(frame(Frame::Queue(QueueFrame { session_id: SID.into(), items })));
    assert!(echoes(&d).is_empty(), "the queue item shows it");
    // Removed from the queue (`updateQueue` remove): the host shows it nowhere, nor does the echo.
    d.frame(frame(Frame::Queue(QueueFrame { session_id: SID.into(), items: Json::from(json!([])) })));
    assert!(echoes(&d).is_empty(), "{:?}", echoes(&d));
    assert!(d.s.outbox().is_empty());
}

#[test]
fn an_adopted_prompt_the_hosts_log_holds_is_found_by_the_look_up_and_not_sent_again() {
    let mut d = Driver::opened(&[user(0, "a")], Value::Null);
    d.s.set_client_prefix("c2-");
    // A reload: the prompt an earlier page made under "c1-p1" reached the host before it went.
    let op = d.s.prompt_as(text("hi"), PromptMode::Queue, "c1-p1".into(), true);
    assert_eq!(echoes(&d), [("c1-p1".to_string(), "waiting")]);
    assert!(!d.has_request(|c| matches!(c, Call::Prompt { .. })), "looked up before any send");
    let (req, before) = d.take_history();
    assert_eq!(before, None, "the tail page");
    d.answer(req, page(&[user(0, "a"), mine(1, "hi", "c1-p1")], false));
    assert!(!d.has_request(|c| matches!(c, Call::Prompt { .. })), "found: never sent again");
    assert_eq!(d.outcome(op), Some(&ok(json!({"accepted": true}))));
    assert_eq!(d.s.outbox().deduplicated, 1);
}

#[test]
fn an_adopted_prompt_the_hosts_log_lacks_is_sent_under_its_first_id() {
    let mut d = Driver::opened(&[user(0, "a")], Value::Null);
    d.s.set_client_prefix("c2-");
    d.s.prompt_as(text("hi"), PromptMode::Queue, "c1-p1".into(), true);
    let (req, _) = d.take_history();
    d.answer(req, page(&[user(0, "a")], false));
    let (req, id) = take_prompt(&mut d);
    assert_eq!(id, "c1-p1");
    d.answer(req, json!({"accepted": true}));
    d.live(mine(1, "hi", "c1-p1"));
    assert!(echoes(&d).is_empty());
    let last = d.s.shown_nodes().last().cloned().expect("a node");
    assert!(matches!(&last.kind, NodeKind::User { client_id: Some(c), .. } if c == "c1-p1"));
}

#[test]
fn a_prompt_adopted_twice_or_already_in_the_window_is_not_made_again() {
    let mut d = Driver::opened(&[user(0, "a"), mine(1, "hi", "c1-p1")], Value::Null);
    let op = d.s.prompt_as(text("hi"), PromptMode::Queue, "c1-p1".into(), true);
    let again = d.s.prompt_as(text("hi"), PromptMode::Queue, "c1-p1".into(), true);
    assert_eq!(echoes(&d).len(), 1, "one echo for one id");
    let (req, _) = d.take_history();
    d.answer(req, page(&[user(0, "a"), mine(1, "hi", "c1-p1")], false));
    assert!(echoes(&d).is_empty(), "the window shows it: the echo leaves");
    assert!(!d.has_request(|c| matches!(c, Call::Prompt { .. })), "never sent");
    assert_eq!(d.outcome(op), Some(&ok(json!({"accepted": true}))));
    assert_eq!(d.outcome(again), Some(&ok(json!({"accepted": true}))));
}
