use super::harness::*;
use crate::core::session::{NodeKind, ToolStatus};
use serde_json::json;
use std::rc::Rc;

fn open_at(tail: u64) -> Driver {
    let events: Vec<_> = (0..=tail).map(|s| user(s, "x")).collect();
    Driver::opened(&events, plan(false, None))
}

#[test]
fn frames_at_or_below_the_window_tail_are_dropped() {
    let mut d = open_at(3);
    let changes = d.changes;
    d.live(user(2, "dup"));
    d.live(user(3, "dup"));
    assert_eq!(d.seqs(), vec![0, 1, 2, 3]);
    assert_eq!(d.s.diagnostics().duplicate_events, 2);
    assert_eq!(d.changes, changes, "a dropped frame changes nothing");
}

#[test]
fn chunks_accumulate_into_a_partial_that_the_assistant_message_replaces() {
    let mut d = Driver::opened(&[turn_start(0, 1), user(1, "hi")], plan(false, None));
    d.live(chunk(2, 1, "Hel"));
    d.live(chunk(3, 1, "lo"));
    assert_eq!(d.s.partial().unwrap().text, "Hello");
    assert!(d.s.running());
    d.live(message(4, 1, "Hello"));
    assert!(d.s.partial().is_none());
    let last = d.s.nodes().last().unwrap();
    assert!(matches!(&last.kind, NodeKind::Assistant { content, .. } if content.value()[0]["text"] == "Hello"));
}

#[test]
fn running_tool_calls_are_tracked_until_their_result() {
    let mut d = Driver::opened(&[turn_start(0, 1)], plan(false, None));
    d.live(tool_call(1, 1, "c1"));
    d.live(tool_call(2, 1, "c2"));
    assert_eq!(d.s.running_calls().len(), 2);
    d.live(tool_result(3, 1, "c1"));
    assert_eq!(d.s.running_calls().len(), 1);
    assert_eq!(d.s.running_calls()[0].call_id, "c2");
    let c1 = d.s.nodes().iter().find(|n| n.id == "s1").unwrap();
    assert!(
        matches!(&c1.kind, NodeKind::Tool { status: ToolStatus::Completed, result: Some(r), .. } if r.value() == "ok")
    );
}

#[test]
fn turn_end_freezes_a_content_bearing_partial_and_orphan_calls_of_that_turn_only() {
    let mut d = Driver::opened(&[turn_start(0, 1)], plan(false, None));
    d.live(tool_call(1, 1, "mine"));
    d.live(chunk(2, 1, "half an ans"));
    // A call of another turn (e.g. a subagent's) must survive turn 1's end.
    d.live(tool_call(3, 2, "other"));
    d.live(turn_end(4, 1, "interrupted"));
    assert!(d.s.partial().is_none());
    let frozen = d.s.nodes().iter().find(|n| matches!(n.kind, NodeKind::Interrupted { .. })).unwrap();
    assert!(
        matches!(&frozen.kind, NodeKind::Interrupted { text, reason, .. } if text == "half an ans" && reason == "interrupted")
    );
    let mine = d.s.nodes().iter().find(|n| n.id == "s1").unwrap();
    assert!(matches!(mine.kind, NodeKind::Tool { status: ToolStatus::Interrupted, .. }));
    let other = d.s.nodes().iter().find(|n| n.id == "s3").unwrap();
    assert!(matches!(other.kind, NodeKind::Tool { status: ToolStatus::Running, .. }));
    assert_eq!(d.s.running_calls().len(), 1);
    assert!(!d.s.running());
}

#[test]
fn turn_end_of_another_turn_leaves_the_partial_alone() {
    let mut d = Driver::opened(&[turn_start(0, 2)], plan(false, None));
    d.live(chunk(1, 2, "streaming"));
    d.live(turn_end(2, 1, "completed"));
    assert_eq!(d.s.partial().unwrap().text, "streaming");
}

#[test]
fn a_partial_with_no_text_is_dropped_without_a_node_at_turn_end() {
    let mut d = Driver::opened(&[turn_start(0, 1)], plan(false, None));
    d.live(ev(1, "assistant/chunk", json!({"turn": 1, "step": 1, "chunk": {"type": "block-start", "index": 0}})));
    assert!(d.s.partial().is_some());
    let nodes = d.s.nodes().len();
    d.live(turn_end(2, 1, "cancelled"));
    assert!(d.s.partial().is_none());
    assert_eq!(d.s.nodes().len(), nodes);
}

#[test]
fn unknown_event_types_stay_in_the_window_and_are_ignored_by_the_fold() {
    let mut d = open_at(0);
    d.live(ev(1, "request/header", json!({"header": {}})));
    d.live(ev(2, "user/message", json!("malformed")));
    assert_eq!(d.seqs(), vec![0, 1, 2]);
    assert_eq!(d.s.nodes().len(), 1);
}

#[test]
fn unchanged_nodes_keep_identity_and_only_touched_parts_change_revision() {
    let mut d = Driver::opened(&[turn_start(0, 1), user(1, "hi")], plan(false, None));
    let first = Rc::clone(&d.s.nodes()[0]);
    let pending_rev = d.s.pending_rev();
    let plan_rev = d.s.plan_rev();
    let nodes_rev = d.s.nodes_rev();
    d.live(chunk(2, 1, "x"));
    assert_eq!(d.s.nodes_rev(), nodes_rev, "a chunk touches the partial only");
    d.live(tool_call(3, 1, "c"));
    assert!(d.s.nodes_rev() > nodes_rev);
    let call = Rc::clone(d.s.nodes().last().unwrap());
    d.live(tool_result(4, 1, "c"));
    assert!(Rc::ptr_eq(&first, &d.s.nodes()[0]), "untouched node keeps its Rc");
    assert!(!Rc::ptr_eq(&call, d.s.nodes().last().unwrap()), "the completed call is a new value");
    assert!(d.s.nodes().last().unwrap().rev > call.rev);
    assert_eq!((d.s.pending_rev(), d.s.plan_rev()), (pending_rev, plan_rev));
}

#[test]
fn each_input_emits_at_most_one_changed() {
    let mut d = open_at(0);
    let before = d.changes;
    d.s.open();
    d.pump();
    assert_eq!(d.changes, before, "a no-op open emits nothing");
    d.live(user(1, "a"));
    assert_eq!(d.changes, before + 1);
}
