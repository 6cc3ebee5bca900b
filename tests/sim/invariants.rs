//! The invariants checked after every step, and the end-state checks at quiescence.
//!
//! Plan provenance is tracked from what was *delivered* to the client: every successful
//! plan query/selection answer (value + the host's as-of when it produced it) and every
//! `plan/mode` commit the client received (live frame or history page). The displayed
//! plan state must always be explained by one of those, and the explanations must never
//! go back past a commit already shown:
//!
//! - `floor` = as-of of the newest commit the display is known to have shown. A shown
//!   value is explained by an answer produced at or after `floor` (the floor stays), or
//!   else by a commit at or after `floor` (the floor rises to it). This is the weakest
//!   consistent reading: an answer that happens to equal a newer commit is not blamed.
//! - Capability: `Some` is never shown before a non-null answer was delivered, whatever
//!   `plan/mode` events the stream carried.

use super::model_host::{AsOf, Meta, ModelHost};
use agent_session::core::session::Session;
use agent_session::core::wire::{PlanModeState, RpcResult, SessionEvent};
use serde_json::Value;
use std::collections::BTreeSet;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Source {
    Answer,
    Commit,
}

type Key = (bool, Option<bool>);

fn key(v: PlanModeState) -> Key {
    (v.active, v.pending)
}

#[derive(Debug, Default)]
pub struct Checker {
    /// Delivered provenances: (value, as-of, source).
    provs: BTreeSet<(Key, AsOf, Source)>,
    /// A non-null plan answer has been delivered.
    pub confirmed: bool,
    /// The as-of of the newest commit the display has shown.
    pub floor: AsOf,
    last_shown: Option<Option<PlanModeState>>,
    /// Strict mode: the as-of of the oldest answer that explains the last answer shown; a
    /// later display explained only by a commit must not be older than it.
    answer_floor: AsOf,
    /// Steps at which the display changed (for stats).
    pub plan_changes: u64,
}

impl Checker {
    pub fn on_response(&mut self, result: &RpcResult<Value>, meta: &Meta) {
        if result.is_err() {
            return;
        }
        if let Some((Some(v), asof)) = meta.plan_answer {
            self.confirmed = true;
            self.provs.insert((key(v), asof, Source::Answer));
        }
        self.on_commits(meta);
    }

    pub fn on_frame(&mut self, meta: &Meta) {
        self.on_commits(meta);
    }

    fn on_commits(&mut self, meta: &Meta) {
        for &(active, asof) in &meta.commits {
            self.provs.insert((key(PlanModeState::committed(active)), asof, Source::Commit));
        }
    }

    /// The session was released (nobody watched it): its display goes back to "not known",
    /// which is not a regression; what it shows after the next open is checked as before.
    pub fn on_release(&mut self) {
        if self.last_shown.is_some() {
            self.last_shown = Some(None);
        }
    }

    /// Invariant 2, checked after every step.
    pub fn check_plan(&mut self, shown: Option<PlanModeState>, service: bool) -> Result<(), String> {
        if self.last_shown == Some(shown) {
            return Ok(());
        }
        let before = self.last_shown.replace(shown);
        self.plan_changes += 1;
        let Some(v) = shown else {
            if service && matches!(before, Some(Some(_))) {
                return Err("plan display went from a confirmed state back to None with the service present".into());
            }
            return Ok(());
        };
        if !service {
            return Err(format!("plan display {v:?} while the host has no plan service"));
        }
        if !self.confirmed {
            return Err(format!(
                "plan display {v:?} before any non-null plan answer was delivered (capability from raw events)"
            ));
        }
        let k = key(v);
        let matching: Vec<_> = self.provs.iter().filter(|p| p.0 == k).collect();
        if matching.is_empty() {
            return Err(format!("plan display {v:?} is not a value the host answered or committed (delivered)"));
        }
        if let Some(a) = matching.iter().filter(|p| p.2 == Source::Answer && p.1 >= self.floor).map(|p| p.1).min() {
            self.answer_floor = self.answer_floor.max(a);
            return Ok(());
        }
        if let Some(c) = matching.iter().filter(|p| p.2 == Source::Commit && p.1 >= self.floor).map(|p| p.1).min() {
            let newest = matching.iter().filter(|p| p.2 == Source::Commit).map(|p| p.1).max().unwrap_or(c);
            if std::env::var("SIM_STRICT_PLAN").is_ok() && newest < self.answer_floor {
                return Err(format!(
                    "plan display {v:?} regressed to a commit (as-of {newest:?}) older than the answer already shown (as-of {:?})",
                    self.answer_floor
                ));
            }
            self.floor = c;
            return Ok(());
        }
        Err(format!(
            "plan display {v:?} goes back past the commit already shown (floor as-of {:?}); its provenances: {:?}",
            self.floor, matching
        ))
    }
}

/// Invariant 1: the window is a contiguous run of the host's log, without duplicates.
/// The host's current log is the truth (`lenient == false`). Right after a restart that
/// lost the log tail (`lenient == true`), and until the client has installed a tail page
/// that the restarted host produced for a request sent after the reconnect, the client
/// cannot know yet: each event must then be the event at its seq in some epoch the host
/// had (stale, never invented).
///
/// Contiguity is checked every time. Contents (the costly part) are checked when the
/// session reported a change: all of them when the window was replaced, and the new
/// events plus both ends when it only grew at the tail (`verified` remembers the base and
/// tail last checked).
/// The conversation the session built incrementally (appends, prepended pages, repairs) is
/// the one a fold of its whole window from scratch gives: same node ids and contents.
pub fn check_nodes_match_a_full_fold(session: &Session) -> Result<(), String> {
    use agent_session::core::session::fold::Fold;
    use agent_session::core::session::nodes::Stamps;
    let fresh = Fold::rebuild(session.window(), &Fold::default(), &mut Stamps::default());
    let view = |nodes: &[std::rc::Rc<agent_session::core::session::Node>]| -> Vec<String> {
        nodes.iter().map(|n| format!("{}:{:?}", n.id, n.kind)).collect()
    };
    let (ours, theirs) = (view(session.nodes()), view(&fresh.nodes));
    if ours != theirs {
        return Err(format!(
            "the nodes differ from a full fold of the window:\n  ours   {ours:?}\n  a fold {theirs:?}"
        ));
    }
    Ok(())
}

pub fn check_window(
    session: &Session,
    host: &ModelHost,
    contents: bool,
    lenient: bool,
    verified: &mut Option<(i64, i64)>,
) -> Result<(), String> {
    let w = session.window().to_vec();
    for pair in w.windows(2) {
        if pair[1].seq != pair[0].seq + 1 {
            return Err(format!("window not contiguous: seq {} then {}", pair[0].seq, pair[1].seq));
        }
    }
    let (base, tail) = (session.base_seq(), session.tail_seq());
    if tail != w.last().map_or(-1, |e| e.seq as i64) || (!w.is_empty() && base != w[0].seq as i64) {
        return Err("base_seq/tail_seq disagree with the window".into());
    }
    if !contents {
        return Ok(());
    }
    let strict = !lenient;
    let check = |ev: &SessionEvent| -> Result<(), String> {
        let ok = if strict {
            host.log.get(ev.seq as usize).map(SessionEvent::chunk_read) == Some(ev.chunk_read())
        } else {
            host.matches_some_epoch(ev)
        };
        if ok {
            Ok(())
        } else {
            Err(format!(
                "window event seq {} ({}) is not the host's event at that seq (host has {:?})",
                ev.seq,
                ev.kind,
                host.log.get(ev.seq as usize).map(|e| &e.kind)
            ))
        }
    };
    let from = match *verified {
        Some((b, t)) if strict && b == base && t <= tail && !w.is_empty() => {
            check(&w[0])?;
            (t + 1 - base).max(0) as usize
        }
        _ => 0,
    };
    for ev in &w[from..] {
        check(ev)?;
    }
    *verified = if w.is_empty() { None } else { Some((base, tail)) };
    Ok(())
}

/// At quiescence: the window ends at the host's tail and is exactly the host's log there;
/// the plan display is the host's state.
pub fn check_converged(session: &Session, host: &ModelHost) -> Result<(), String> {
    let w = session.window().to_vec();
    if session.tail_seq() != host.last_seq() {
        return Err(format!(
            "at quiescence the window tail is {} but the host's last seq is {}",
            session.tail_seq(),
            host.last_seq()
        ));
    }
    let base = session.base_seq().max(0) as usize;
    // compared as the client reads them (a chunk's data may be held read)
    let read = |evs: &[SessionEvent]| evs.iter().map(SessionEvent::chunk_read).collect::<Vec<_>>();
    let (w, log) = (read(&w), read(&host.log[base..]));
    if !w.is_empty() && w != log {
        let first = w.iter().zip(&log).find(|(a, b)| a != b);
        return Err(format!(
            "at quiescence the window ({base}..={}) differs from the host's log; first difference: {first:?}",
            session.tail_seq()
        ));
    }
    let expected = host.plan_state();
    if session.plan_mode() != expected {
        return Err(format!(
            "at quiescence the plan display is {:?} but the host's state is {:?}",
            session.plan_mode(),
            expected
        ));
    }
    if session.in_flight() != 0 {
        return Err(format!("at quiescence {} requests are still in flight", session.in_flight()));
    }
    Ok(())
}
