//! A tiny driver: builds events, pages and frames, and answers the core's requests.

use crate::core::session::{Call, Effect, OpId, Outcome, ReqId, Session, WakeToken};
use crate::core::wire::{
    EventFrame, Frame, HistoryItem, HistoryValue, InboundFrame, Json, PlanModeState, RpcError, SessionEvent,
    SubscribedFrame,
};
use serde_json::{json, Value};

pub const SID: &str = "s1";

pub fn ev(seq: u64, kind: &str, data: Value) -> SessionEvent {
    SessionEvent::new(kind, seq, 1000.0 + seq as f64, data)
}

/// A tiny conversation: seq 0.. of turn 1.
pub fn user(seq: u64, text: &str) -> SessionEvent {
    ev(seq, "user/message", json!({"content": [{"type": "text", "text": text}], "source": {"kind": "user"}}))
}
pub fn chunk(seq: u64, turn: u64, text: &str) -> SessionEvent {
    ev(
        seq,
        "assistant/chunk",
        json!({"turn": turn, "step": 1, "chunk": {"type": "text-delta", "index": 0, "text": text}}),
    )
}
pub fn message(seq: u64, turn: u64, text: &str) -> SessionEvent {
    ev(
        seq,
        "assistant/message",
        json!({"turn": turn, "step": 1, "content": [{"type": "text", "text": text}], "provenance": {}}),
    )
}
pub fn turn_start(seq: u64, turn: u64) -> SessionEvent {
    ev(seq, "turn/start", json!({"turn": turn, "trigger": {"kind": "message"}}))
}
pub fn turn_end(seq: u64, turn: u64, kind: &str) -> SessionEvent {
    ev(seq, "turn/end", json!({"turn": turn, "reason": {"kind": kind}}))
}
pub fn plan_event(seq: u64, active: bool) -> SessionEvent {
    ev(seq, "plan/mode", json!({ "active": active }))
}
pub fn tool_call(seq: u64, turn: u64, call_id: &str) -> SessionEvent {
    ev(
        seq,
        "tool/call",
        json!({"turn": turn, "step": 1, "callId": call_id, "name": "bash", "arguments": {"cmd": "ls"}}),
    )
}
pub fn tool_result(seq: u64, turn: u64, call_id: &str) -> SessionEvent {
    ev(seq, "tool/result", json!({"turn": turn, "step": 1, "callId": call_id, "content": "ok", "isError": false}))
}
/// `n` filler events (unknown kind, kept in the window, ignored by the fold) from `from`.
#[allow(dead_code)]
pub fn filler(from: u64, n: u64) -> Vec<SessionEvent> {
    (from..from + n).map(|s| ev(s, "usage/note", json!({"n": s}))).collect()
}

pub fn page(events: &[SessionEvent], has_more: bool) -> Value {
    let v = HistoryValue {
        events: events.iter().map(|e| HistoryItem { event: e.clone(), view: None }).collect(),
        has_more,
        projections: None,
    };
    serde_json::to_value(v).unwrap()
}

pub fn plan(active: bool, pending: Option<bool>) -> Value {
    serde_json::to_value(PlanModeState { active, pending }).unwrap()
}

pub fn frame(f: Frame) -> InboundFrame {
    InboundFrame { rpc_id: "f".into(), frame: f }
}
pub fn live(e: SessionEvent) -> InboundFrame {
    frame(Frame::Event(EventFrame { session_id: SID.into(), event: e, view: None }))
}
pub fn subscribed(last_seq: i64) -> InboundFrame {
    frame(Frame::Subscribed(SubscribedFrame { session_id: SID.into(), last_seq }))
}

pub fn transport_error() -> RpcError {
    RpcError::transport("connection reset")
}

/// Wraps a Session and keeps the effects it emitted, split by kind.
pub struct Driver {
    pub s: Session,
    pub sent: Vec<(ReqId, Call)>,
    pub settled: Vec<(OpId, Outcome)>,
    pub changes: usize,
    /// Wake-ups asked for, in order: (token, delay).
    pub wakes: Vec<(WakeToken, u32)>,
}

impl Driver {
    pub fn new() -> Self {
        Driver { s: Session::new(SID), sent: vec![], settled: vec![], changes: 0, wakes: vec![] }
    }

    /// Moves the core's queued effects into the driver's lists.
    pub fn pump(&mut self) {
        while let Some(e) = self.s.poll_effect() {
            match e {
                Effect::Send { req, call } => self.sent.push((req, call)),
                Effect::Settle { op, outcome } => self.settled.push((op, outcome)),
                Effect::Changed => self.changes += 1,
                Effect::Wake { token, after_ms } => self.wakes.push((token, after_ms)),
                Effect::Unwake { token } => self.wakes.retain(|w| w.0 != token),
            }
        }
    }

    /// Takes the oldest unanswered request matching `pred`.
    pub fn take(&mut self, pred: impl Fn(&Call) -> bool) -> (ReqId, Call) {
        self.pump();
        let i = self
            .sent
            .iter()
            .position(|(_, c)| pred(c))
            .unwrap_or_else(|| panic!("no matching request; sent = {:?}", self.sent));
        self.sent.remove(i)
    }
    pub fn take_history(&mut self) -> (ReqId, Option<u64>) {
        let (req, call) = self.take(|c| matches!(c, Call::History { .. }));
        match call {
            Call::History { before_seq, .. } => (req, before_seq),
            _ => unreachable!(),
        }
    }
    pub fn take_plan_query(&mut self) -> ReqId {
        self.take(|c| matches!(c, Call::PlanMode)).0
    }
    pub fn take_selection(&mut self) -> ReqId {
        self.take(|c| matches!(c, Call::SetPlanMode { .. })).0
    }
    pub fn has_request(&mut self, pred: impl Fn(&Call) -> bool) -> bool {
        self.pump();
        self.sent.iter().any(|(_, c)| pred(c))
    }
    pub fn count_history(&mut self) -> usize {
        self.pump();
        self.sent.iter().filter(|(_, c)| matches!(c, Call::History { .. })).count()
    }

    pub fn answer(&mut self, req: ReqId, value: Value) {
        self.s.on_response(req, Ok(Json::from(value)));
        self.pump();
    }
    pub fn fail(&mut self, req: ReqId, error: RpcError) {
        self.s.on_response(req, Err(error));
        self.pump();
    }
    /// Fails `req` with a timeout; the wake-up the session asks for in response, if any.
    pub fn fail_then_wake(&mut self, req: ReqId) -> (WakeToken, u32) {
        let before = self.wakes.len();
        self.fail(req, transport_error());
        self.pump();
        assert_eq!(self.wakes.len(), before + 1, "a failure arms one wake");
        self.wakes[before]
    }
    pub fn frame(&mut self, f: InboundFrame) {
        self.s.on_frame(f);
        self.pump();
    }
    pub fn live(&mut self, e: SessionEvent) {
        self.frame(live(e));
    }

    pub fn outcome(&self, op: OpId) -> Option<&Outcome> {
        self.settled.iter().find(|(o, _)| *o == op).map(|(_, out)| out)
    }

    /// Opens on `events` as the tail page and answers the plan query with `plan_value`.
    pub fn opened(events: &[SessionEvent], plan_value: Value) -> Driver {
        let mut d = Driver::new();
        d.s.open();
        let (req, _) = d.take_history();
        d.answer(req, page(events, false));
        let q = d.take_plan_query();
        d.answer(q, plan_value);
        d
    }

    pub fn seqs(&self) -> Vec<i64> {
        self.s.window().iter().map(|e| e.seq()).collect()
    }
}

/// A tail page carrying a projection baseline as of its last seq.
pub fn page_with_projections(events: &[SessionEvent], values: Value) -> Value {
    let mut v = page(events, false);
    let as_of = events.last().map_or(-1, |e| e.seq as i64);
    v["projections"] = json!({ "asOfSeq": as_of, "values": values });
    v
}

pub fn projection(key: &str, value: Value, seq: i64) -> InboundFrame {
    frame(Frame::Projection(crate::core::wire::ProjectionFrame {
        session_id: SID.into(),
        key: key.into(),
        value: Json::from(value),
        seq,
    }))
}

/// An expected settled result, for comparison with an `Outcome`.
pub fn ok(v: Value) -> crate::core::session::Outcome {
    crate::core::session::Outcome::Result(Ok(Json::from(v)))
}
