//! An older page folded alone and put in front of the window equals a full re-fold.

use super::harness::*;
use crate::core::session::fold::Fold;
use crate::core::session::nodes::Stamps;
use crate::core::session::EventRun;
use crate::core::wire::{is_message_kind, SessionEvent};
use serde_json::json;

/// A run of these events, as a window or page holds them.
fn run(events: &[SessionEvent]) -> EventRun {
    let mut run = EventRun::default();
    for ev in events {
        run.push(ev.clone());
    }
    run
}

/// What a UI sees of a fold, without revision stamps.
fn view(f: &Fold) -> String {
    let nodes: Vec<_> = f.nodes.iter().map(|n| format!("{}:{:?}", n.id, n.kind)).collect();
    let partial = f.partial.as_ref().map(|p| (p.turn, p.step, p.text.clone(), p.first_seq, p.last_seq));
    let running: Vec<_> = f.running.iter().map(|c| c.call_id.clone()).collect();
    let prose = f.plan_text.as_ref().map(|p| (p.item_id.clone(), p.text.clone(), p.done));
    format!("{nodes:?}\n{partial:?}\n{running:?}\n{:?}\n{prose:?}", f.plan_commits)
}

fn prose(seq: u64, item: &str, text: &str, done: bool) -> SessionEvent {
    let kind = if done { "plan/text-done" } else { "plan/text-delta" };
    ev(seq, kind, json!({ "turn": 1, "itemId": item, "text": text }))
}

/// Builds a log from a script: each token is one event, seqs from 0.
fn log(script: &[&str]) -> Vec<SessionEvent> {
    script
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let seq = i as u64;
            let turn = 1 + script[..i].iter().filter(|t| **t == "start").count() as u64;
            match *t {
                "start" => turn_start(seq, turn),
                "user" => user(seq, "q"),
                "chunk" => chunk(seq, turn - 1, "t"),
                "msg" => message(seq, turn - 1, "a"),
                "call" => tool_call(seq, turn - 1, "c1"),
                "result" => tool_result(seq, turn - 1, "c1"),
                "end" => turn_end(seq, turn - 1, "completed"),
                "cut" => turn_end(seq, turn - 1, "interrupted"),
                "plan" => plan_event(seq, true),
                "prose" => prose(seq, "p1", "x", false),
                "prose-done" => prose(seq, "p1", "xy", true),
                other => panic!("{other}"),
            }
        })
        .collect()
}

#[test]
fn an_older_page_folded_alone_equals_a_full_refold_at_every_message_boundary() {
    let scripts: &[&[&str]] = &[
        &["user", "start", "chunk", "msg", "end", "user", "start", "chunk", "chunk", "msg", "end", "user"],
        // A partial the window's assistant message replaces.
        &["user", "start", "chunk", "chunk", "msg", "chunk", "msg", "end"],
        // A partial that carries over a user message (steering mid-turn) into the window.
        &["user", "start", "chunk", "user", "chunk", "msg", "end"],
        // A tool call whose result is in the window; then one whose result is in the page.
        &["user", "start", "call", "msg", "result", "msg", "end", "user", "start", "call", "result", "msg", "end"],
        // Plan commits on both sides, open and finished plan prose across the boundary.
        &["plan", "user", "start", "prose", "msg", "prose", "prose-done", "msg", "end", "user", "plan", "msg"],
        // Open plan prose the window continues; a call still running at the window's end.
        &["user", "start", "prose", "msg", "prose", "msg"],
        &["user", "start", "chunk", "msg", "end", "user", "start", "call"],
        // A turn cut short with a partial and a running call.
        &["user", "start", "chunk", "call", "user", "cut", "user", "start", "chunk", "msg", "end"],
        // One long turn: a partial that runs through user messages across every boundary.
        &["user", "start", "chunk", "chunk", "user", "chunk", "user", "chunk", "msg", "chunk", "user", "chunk", "msg"],
        // A call running across the boundary whose turn is cut, then its late result.
        &["user", "start", "call", "user", "cut", "result", "user", "start", "msg", "end"],
        // A page partial settled in the window while a window call is still waiting for its
        // result after that point (its node must come out updated).
        &["user", "start", "chunk", "user", "call", "chunk", "msg", "result", "msg", "end"],
        // A turn end freezes the page's partial after window chunks of the same step.
        &["user", "start", "chunk", "user", "chunk", "cut", "user", "start", "chunk", "msg", "end"],
    ];
    for script in scripts {
        let events = log(script);
        let mut stamps = Stamps::default();
        let full = Fold::rebuild(&events, &Fold::default(), &mut stamps);
        for k in 1..events.len() {
            if !is_message_kind(&events[k].kind) {
                continue; // history pages start on a message
            }
            let (page, window) = events.split_at(k);
            let current = Fold::rebuild(window, &Fold::default(), &mut stamps);
            let mut joined = Fold::prepend(&run(page), &run(window), &current, &mut stamps);
            assert_eq!(view(&joined), view(&full), "{script:?} split at {k}");
            // Later live events (a result for a call on either side, a new turn) agree too.
            let mut whole = full.clone();
            for more in [tool_result(100, 1, "c1"), turn_end(101, 1, "completed"), user(102, "z")] {
                joined.apply(&more, &mut stamps);
                whole.apply(&more, &mut stamps);
            }
            assert_eq!(view(&joined), view(&whole), "{script:?} split at {k}, then live events");
        }
    }
}

#[test]
fn a_clean_boundary_keeps_the_window_nodes_and_folds_only_the_page() {
    let events = log(&["user", "start", "chunk", "msg", "end", "user", "start", "msg", "end"]);
    let (page, window) = events.split_at(5);
    let mut stamps = Stamps::default();
    let current = Fold::rebuild(window, &Fold::default(), &mut stamps);
    let joined = Fold::prepend(&run(page), &run(window), &current, &mut stamps);
    let reused = joined.nodes[joined.nodes.len() - current.nodes.len()..].iter().zip(&current.nodes);
    assert!(reused.clone().all(|(a, b)| std::rc::Rc::ptr_eq(a, b)), "window nodes keep their identity");
    assert_eq!(joined.nodes.len(), 4);
}

/// One long turn (the partial crosses every boundary): the page is folded with only the
/// window events up to the assistant message that settles it, and the window's later nodes
/// keep their identity.
#[test]
fn a_long_turn_settles_in_the_window_without_refolding_it() {
    let mut script = vec!["user", "start", "chunk", "chunk", "user", "chunk", "msg"];
    for _ in 0..50 {
        script.extend(["chunk", "user", "chunk", "msg"]);
    }
    let events = log(&script);
    let (page, window) = events.split_at(4);
    let mut stamps = Stamps::default();
    let current = Fold::rebuild(window, &Fold::default(), &mut stamps);
    let joined = Fold::prepend(&run(page), &run(window), &current, &mut stamps);
    let full = Fold::rebuild(&events, &Fold::default(), &mut stamps);
    assert_eq!(view(&joined), view(&full));
    let tail = current.nodes.len() - 2;
    let reused = joined.nodes[joined.nodes.len() - tail..].iter().zip(&current.nodes[2..]);
    assert!(reused.into_iter().all(|(a, b)| std::rc::Rc::ptr_eq(a, b)), "the window's later nodes are reused");
}
