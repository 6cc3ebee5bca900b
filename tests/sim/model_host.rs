//! The truth: a model of the agent host for one session. An append-only event log with
//! contiguous seqs from 0, a plan service with boundary semantics (a selection is applied
//! and `plan/mode` logged at the start of the next prompt's turn), turns that unfold one
//! event per host step, and history pages cut from the log.
//!
//! Event `time` fields are deliberately wild (jumps back and forth, zero, far future): the
//! client must order by seq and generation only.

use super::rng::Rng;
use agent_session::core::session::Call;
use agent_session::core::wire::{
    plan_value, ErrorCode, HistoryItem, HistoryValue, PlanModeState, RpcError, RpcResult, SessionEvent,
};
use serde_json::{json, Value};
use std::collections::VecDeque;

/// Where in the host's history something was produced: (log epoch, log length). Epochs
/// only change when a restart loses the log tail; ordering is lexicographic.
pub type AsOf = (u32, u64);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostPlan {
    pub active: bool,
    pub pending: Option<bool>,
}

impl HostPlan {
    pub fn state(&self) -> PlanModeState {
        PlanModeState { active: self.active, pending: self.pending }
    }
}

/// What a delivered response or frame tells the invariant checker about plan provenance.
#[derive(Debug, Clone, Default)]
pub struct Meta {
    /// A plan query/selection answer: the value and when the host produced it.
    pub plan_answer: Option<(Option<PlanModeState>, AsOf)>,
    /// `plan/mode` commits carried (a live frame or a history page): active and as-of
    /// (the log length right after the commit).
    pub commits: Vec<(bool, AsOf)>,
    /// A tail history page: the epoch whose log it was cut from.
    pub tail_page_epoch: Option<u32>,
}

#[allow(dead_code)]
pub struct ModelHost {
    pub session_id: String,
    pub log: Vec<SessionEvent>,
    pub epoch: u32,
    /// Logs of earlier epochs (a lossy restart archives the log it lost).
    pub old_epochs: Vec<Vec<SessionEvent>>,
    /// `None`: the plan service is absent (both plan RPCs answer `null`).
    pub plan: Option<HostPlan>,
    /// The committed mode before any `plan/mode` event.
    pub initial_active: bool,
    /// Remaining events of the running turn.
    turn: Option<VecDeque<(String, Value)>>,
    turn_no: u64,
    /// Prompts accepted and not yet begun: (envelope rpcId, content). Kept across a restart
    /// (an accepted prompt is durable, as an acknowledged event is).
    queue: VecDeque<(Option<String>, Vec<Value>)>,
    /// Idempotent by rpcId (as the reference host): a prompt whose rpcId the log or the queue
    /// holds is answered `accepted` and changes nothing. `SIM_NO_DEDUP=1` turns it off.
    pub idempotent: bool,
    /// Prompts refused (a business error), by rpcId.
    pub refused: Vec<String>,
    uniq: u64,
    clock: f64,
    /// Scripted scenarios: fixed page size (`None`: random).
    pub page_size: Option<usize>,
    /// Every event's time is earlier than the previous one.
    pub clock_backwards: bool,
}

fn transport(msg: &str) -> RpcError {
    RpcError::transport(msg.to_string())
}

impl ModelHost {
    pub fn new(session_id: &str, service: bool, initial_active: bool) -> Self {
        ModelHost {
            session_id: session_id.to_string(),
            log: Vec::new(),
            epoch: 0,
            old_epochs: Vec::new(),
            plan: service.then_some(HostPlan { active: initial_active, pending: None }),
            initial_active,
            turn: None,
            turn_no: 0,
            queue: VecDeque::new(),
            idempotent: std::env::var("SIM_NO_DEDUP").is_err(),
            refused: Vec::new(),
            uniq: 0,
            clock: 1.7e12,
            page_size: None,
            clock_backwards: false,
        }
    }

    pub fn last_seq(&self) -> i64 {
        self.log.len() as i64 - 1
    }

    pub fn as_of(&self) -> AsOf {
        (self.epoch, self.log.len() as u64)
    }

    /// No turn running and none queued.
    pub fn idle(&self) -> bool {
        self.turn.is_none() && self.queue.is_empty()
    }

    pub fn plan_state(&self) -> Option<PlanModeState> {
        self.plan.map(|p| p.state())
    }

    /// The event at `seq` in any epoch the host ever had (for windows built before a
    /// lossy restart was noticed).
    /// (Compared as the client reads them: a chunk's data may be held read, see
    /// `SessionEvent::chunk_read`.)
    pub fn matches_some_epoch(&self, ev: &SessionEvent) -> bool {
        let (s, ev) = (ev.seq as usize, Some(ev.chunk_read()));
        self.log.get(s).map(SessionEvent::chunk_read) == ev
            || self.old_epochs.iter().any(|l| l.get(s).map(SessionEvent::chunk_read) == ev)
    }

    fn time(&mut self, rng: &mut Rng) -> f64 {
        if self.clock_backwards {
            self.clock -= rng.range(1, 86_400_000) as f64;
            return self.clock;
        }
        // Wall-clock jumps: forwards, backwards, to zero, far into the future.
        self.clock = match rng.below(10) {
            0 => self.clock - rng.range(1, 1_000_000_000) as f64,
            1 => 0.0,
            2 => 4.1e12 + rng.below(1000) as f64,
            3 => -(rng.range(1, 1000) as f64),
            _ => self.clock + rng.below(5000) as f64 + 0.25,
        };
        self.clock
    }

    fn append(&mut self, kind: &str, data: Value, rng: &mut Rng) -> SessionEvent {
        let time = self.time(rng);
        let ev = SessionEvent::new(kind, self.log.len() as u64, time, data);
        self.log.push(ev.clone());
        ev
    }

    fn text(&mut self, what: &str) -> String {
        self.uniq += 1;
        format!("{what}-e{}-{}", self.epoch, self.uniq)
    }

    /// Another client's selection (not seen by the session under test).
    pub fn select_elsewhere(&mut self, active: bool, rng: &mut Rng) {
        let _ = self.process(&Call::SetPlanMode { active }, rng);
    }

    /// Processes one unary call against the current state.
    pub fn process(&mut self, call: &Call, rng: &mut Rng) -> (RpcResult<Value>, Meta) {
        let mut meta = Meta::default();
        let result = match call {
            Call::History { before_seq, .. } => {
                let page = self.history(*before_seq, rng);
                if before_seq.is_none() {
                    meta.tail_page_epoch = Some(self.epoch);
                }
                for item in &page.events {
                    if item.event.kind == "plan/mode" {
                        let active = item.event.data_value()["active"].as_bool().expect("host logs valid plan/mode");
                        meta.commits.push((active, (self.epoch, item.event.seq + 1)));
                    }
                }
                Ok(serde_json::to_value(page).expect("history serializes"))
            }
            Call::PlanMode => {
                let v = self.plan_state();
                meta.plan_answer = Some((v, self.as_of()));
                Ok(plan_value(v))
            }
            Call::SetPlanMode { active } => {
                if let Some(p) = &mut self.plan {
                    if *active == p.active {
                        p.pending = None; // net zero: reads back as {active}
                    } else {
                        p.pending = Some(*active);
                    }
                }
                let v = self.plan_state();
                meta.plan_answer = Some((v, self.as_of()));
                Ok(plan_value(v))
            }
            Call::Prompt { content, rpc_id, .. } => {
                let known = rpc_id.as_ref().is_some_and(|id| self.holds_prompt(id));
                if self.idempotent && known {
                    Ok(json!({ "accepted": true }))
                } else if rpc_id.is_some() && rng.chance(0.04) {
                    // A business refusal: the client shows it `failed` with this reason.
                    self.refused.extend(rpc_id.clone());
                    Err(RpcError::new(ErrorCode::AgentBusy, "the model host refuses this one", json!({})))
                } else {
                    let content = serde_json::from_str(content.text()).unwrap_or_default();
                    self.queue.push_back((rpc_id.clone(), content));
                    Ok(json!({ "accepted": true }))
                }
            }
            Call::Cancel => {
                if let Some(t) = &mut self.turn {
                    t.clear();
                    t.push_back((
                        "turn/end".into(),
                        json!({ "turn": self.turn_no, "reason": { "kind": "cancelled" } }),
                    ));
                }
                Ok(json!({ "accepted": true }))
            }
            Call::Respond { .. } => Ok(json!({ "accepted": false, "reason": "not-pending" })),
            // Other calls (interaction answers) are outside this model: refused.
            #[allow(unreachable_patterns)]
            _ => Err(RpcError::bad_request("not modelled", vec![])),
        };
        (result, meta)
    }

    /// Whether the log or the queue holds a prompt sent under `rpc_id`.
    pub fn holds_prompt(&self, rpc_id: &str) -> bool {
        self.queue.iter().any(|(id, _)| id.as_deref() == Some(rpc_id)) || self.logged_prompts().any(|id| id == rpc_id)
    }

    /// The rpcIds of the prompts in the log, in log order.
    pub fn logged_prompts(&self) -> impl Iterator<Item = String> + '_ {
        prompts_of(&self.log)
    }

    /// A history page: the tail (`before_seq = None`) or the page ending at `before - 1`.
    /// Page sizes are random; a `before` past the log (a host that lost its tail) yields a
    /// page that does not abut, which the client must refuse.
    pub fn history(&self, before_seq: Option<u64>, rng: &mut Rng) -> HistoryValue {
        let len = self.log.len();
        let end = before_seq.map_or(len, |b| (b as usize).min(len));
        let n = match self.page_size {
            Some(n) => n,
            None if rng.chance(0.15) => len,
            None => rng.range(1, 12),
        };
        let start = end.saturating_sub(n);
        HistoryValue {
            events: self.log[start..end].iter().map(|e| HistoryItem { event: e.clone(), view: None }).collect(),
            has_more: start > 0,
            projections: None,
        }
    }

    /// One host step of agent work: starts the next queued turn (logging `turn/start`, the
    /// boundary commit if a different mode is pending, and the user message), or appends
    /// the next event of the running turn. Returns the events appended.
    pub fn advance(&mut self, rng: &mut Rng) -> Vec<SessionEvent> {
        if let Some(t) = &mut self.turn {
            let (kind, data) = t.pop_front().expect("a running turn has events left");
            if t.is_empty() {
                self.turn = None;
            }
            return vec![self.append(&kind, data, rng)];
        }
        let Some((rpc_id, content)) = self.queue.pop_front() else { return Vec::new() };
        self.turn_no += 1;
        let turn = self.turn_no;
        let mut out = vec![self.append("turn/start", json!({ "turn": turn, "trigger": "user" }), rng)];
        // Model-request boundary: a pending selection becomes the committed mode.
        if let Some(p) = &mut self.plan {
            if let Some(target) = p.pending.take() {
                if target != p.active {
                    p.active = target;
                    out.push(self.append("plan/mode", json!({ "active": target }), rng));
                }
            }
        }
        let source = match rpc_id {
            Some(id) => json!({ "kind": "user", "rpcId": id }),
            None => json!("user"),
        };
        out.push(self.append("user/message", json!({ "content": content, "source": source }), rng));
        let mut script = VecDeque::new();
        for step in 1..=rng.range(1, 2) as u64 {
            script.push_back(("step/start".to_string(), json!({ "turn": turn, "step": step })));
            if rng.chance(0.2) {
                script.push_back(("usage".to_string(), json!({ "tokens": rng.below(999) })));
            }
            let mut full = String::new();
            for _ in 0..rng.range(0, 3) {
                let t = self.text("chunk");
                full.push_str(&t);
                script.push_back((
                    "assistant/chunk".to_string(),
                    json!({ "turn": turn, "step": step, "chunk": { "type": "text-delta", "index": 0, "text": t } }),
                ));
            }
            script.push_back((
                "assistant/message".to_string(),
                json!({ "turn": turn, "step": step, "content": [{ "type": "text", "text": full }], "provenance": {} }),
            ));
            if rng.chance(0.4) {
                let call_id = self.text("call");
                script.push_back((
                    "tool/call".to_string(),
                    json!({ "turn": turn, "step": step, "callId": call_id, "name": "read", "arguments": {} }),
                ));
                script.push_back((
                    "tool/result".to_string(),
                    json!({ "turn": turn, "step": step, "callId": call_id, "content": "ok", "isError": false }),
                ));
            }
            script.push_back(("step/end".to_string(), json!({ "turn": turn, "step": step })));
        }
        script.push_back(("turn/end".to_string(), json!({ "turn": turn, "reason": { "kind": "completed" } })));
        self.turn = Some(script);
        out
    }

    /// A host restart. The running turn is aborted (its `turn/end` logged by the new
    /// process); accepted prompts stay queued. With `keep = Some(n)` the host lost its log
    /// past `n` events: a new epoch whose seqs restart at `n`. The committed mode is what
    /// the surviving log says; a pending selection may be lost.
    pub fn restart(&mut self, keep: Option<usize>, rng: &mut Rng) -> Vec<SessionEvent> {
        let aborted = self.turn.take().is_some();
        if let Some(keep) = keep {
            if keep < self.log.len() {
                self.old_epochs.push(self.log.clone());
                self.log.truncate(keep);
                self.epoch += 1;
            }
        }
        if let Some(p) = &mut self.plan {
            p.active = self
                .log
                .iter()
                .rev()
                .find(|e| e.kind == "plan/mode")
                .and_then(|e| e.data_value()["active"].as_bool())
                .unwrap_or(self.initial_active);
            if keep.is_some() || rng.bool() {
                p.pending = None;
            }
            if p.pending == Some(p.active) {
                p.pending = None;
            }
        }
        let mut out = Vec::new();
        if aborted && keep.is_none() {
            let turn = self.turn_no;
            out.push(self.append("turn/end", json!({ "turn": turn, "reason": { "kind": "aborted" } }), rng));
        }
        out
    }

    /// A transport-level failure (connection refused, timeout) folded the way the shell does.
    pub fn transport_error(msg: &str) -> RpcResult<Value> {
        Err(transport(msg))
    }
}

/// The rpcIds of the prompts of a log, in order.
pub fn prompts_of(log: &[SessionEvent]) -> impl Iterator<Item = String> + '_ {
    log.iter()
        .filter(|e| e.kind == "user/message")
        .filter_map(|e| e.data_value()["source"]["rpcId"].as_str().map(str::to_string))
}
