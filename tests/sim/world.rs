//! The world: one `Session` (the system under test), the model host, the adversarial
//! network between them, and the driver glue a real shell would be (it turns `Send`
//! effects into requests, routes frames, resyncs non-cold sessions when a connection
//! generation is established). Every action is followed by the invariant checks.

use super::invariants::{check_converged, check_nodes_match_a_full_fold, check_window, Checker};
use super::model_host::{Meta, ModelHost};
use super::network::{Conn, Fate, Network, Request, Response, Tagged};
use super::rng::Rng;
use agent_session::core::session::{Call, Effect, OpId, OpenState, Outcome, Session, WakeToken};
use agent_session::core::sse::{SseItem, SseParser};
use agent_session::core::wire::{
    parse_frame, parse_unary_response, result_to_json, EventFrame, Frame, InboundFrame, PromptMode, ResponseForm,
    SessionEvent, SubscribedFrame,
};
use serde_json::json;
use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};

pub const SESSION: &str = "s1";

thread_local! {
    /// The recent actions of the schedule running on this thread, printed on failure.
    pub static TRACE: RefCell<VecDeque<String>> = RefCell::new(VecDeque::new());
    pub static TRACE_ALL: RefCell<bool> = RefCell::new(std::env::var("SIM_TRACE").is_ok());
}

pub fn trace(line: String) {
    if TRACE_ALL.with(|t| *t.borrow()) {
        eprintln!("{line}");
    }
    TRACE.with(|t| {
        let mut t = t.borrow_mut();
        if t.len() >= 80 {
            t.pop_front();
        }
        t.push_back(line);
    });
}

pub fn take_trace() -> Vec<String> {
    TRACE.with(|t| t.borrow_mut().drain(..).collect())
}

#[derive(Debug, Clone)]
pub struct Config {
    /// The host has a plan service.
    pub service: bool,
    /// Route responses through the envelope parser and frames through the SSE parser,
    /// split into random chunks.
    pub wire: bool,
}

pub struct World {
    pub seed: u64,
    pub step: usize,
    pub rng: Rng,
    pub cfg: Config,
    pub host: ModelHost,
    pub net: Network,
    pub session: Session,
    pub checker: Checker,
    /// Every operation the session returned, and how it settled.
    pub ops: BTreeMap<OpId, Option<Outcome>>,
    /// The session reported `Changed` since the last check.
    changed_since_check: bool,
    verified: Option<(i64, i64)>,
    /// A lossy restart happened and the client has not yet rebuilt from the new log.
    pub lenient: bool,
    /// The first request id the session sent after the current generation was established.
    first_req_after_establish: u64,
    next_req_seen: u64,
    sse: SseParser,
    /// Wake-ups the session asked for and the clock has not yet reached (any order: the
    /// model has no time, so any pending wake may fire next).
    pub wakes: Vec<WakeToken>,
}

impl World {
    pub fn new(seed: u64, cfg: Config) -> Self {
        let mut rng = Rng::new(seed);
        let initial_active = rng.chance(0.3);
        let mut w = World {
            seed,
            step: 0,
            host: ModelHost::new(SESSION, cfg.service, initial_active),
            rng,
            cfg,
            net: Network::new(),
            session: Session::new(SESSION),
            checker: Checker::default(),
            ops: BTreeMap::new(),
            changed_since_check: true,
            verified: None,
            lenient: false,
            first_req_after_establish: 0,
            next_req_seen: 0,
            sse: SseParser::default(),
            wakes: Vec::new(),
        };
        // The first connection generation is established before any session opens.
        w.net.conn = Conn::Established;
        w.net.conn_gen = 1;
        w.push_subscribed();
        w
    }

    pub fn fail(&self, msg: &str) -> ! {
        panic!("SIM_SEED={} step {}: {msg}", self.seed, self.step);
    }

    // ---- the driver glue ---------------------------------------------------------

    /// Drains the session's effects into the network and the op ledger. An input emits at
    /// most one `Changed`.
    fn pump(&mut self, input: &str) {
        let mut changed = 0;
        while let Some(effect) = self.session.poll_effect() {
            match effect {
                Effect::Send { req, call } => {
                    self.next_req_seen = self.next_req_seen.max(req.0 + 1);
                    trace(format!("    -> send {req:?} {}", call_name(&call)));
                    self.net.requests.push(Request { req, call, fate: Fate::Normal });
                }
                Effect::Settle { op, outcome } => match self.ops.get_mut(&op) {
                    None => self.fail(&format!("{input}: settled unknown op {op:?}")),
                    Some(Some(_)) => self.fail(&format!("{input}: op {op:?} settled twice")),
                    Some(slot) => *slot = Some(outcome),
                },
                Effect::Changed => changed += 1,
                Effect::Wake { token, after_ms } => {
                    trace(format!("    -> wake {token:?} in {after_ms} ms"));
                    self.wakes.push(token);
                }
            }
        }
        self.changed_since_check |= changed > 0;
        if changed > 1 {
            self.fail(&format!("{input}: {changed} Changed effects for one input"));
        }
    }

    fn op(&mut self, op: OpId, input: &str) {
        if self.ops.insert(op, None).is_some() {
            self.fail(&format!("{input}: op id {op:?} reused"));
        }
        self.pump(input);
    }

    /// Invariants 1 and 2 (3, no panic, is the harness itself).
    pub fn check(&mut self) {
        self.step += 1;
        if TRACE_ALL.with(|t| *t.borrow()) {
            eprintln!(
                "      [{}] window {}..={} ({:?}) plan {:?} host log {} epoch {}",
                self.step,
                self.session.base_seq(),
                self.session.tail_seq(),
                self.session.open_state(),
                self.session.plan_mode(),
                self.host.log.len(),
                self.host.epoch
            );
        }
        let contents = std::mem::take(&mut self.changed_since_check);
        if let Err(e) = check_window(&self.session, &self.host, contents, self.lenient, &mut self.verified) {
            self.fail(&e);
        }
        let shown = self.session.plan_mode();
        if let Err(e) = self.checker.check_plan(shown, self.cfg.service) {
            self.fail(&e);
        }
    }

    fn push_subscribed(&mut self) {
        let rpc_id = self.net.next_rpc_id();
        let frame = Frame::Subscribed(SubscribedFrame { session_id: SESSION.into(), last_seq: self.host.last_seq() });
        self.net.stream.push_back(Tagged { frame: InboundFrame { rpc_id, frame }, meta: Meta::default() });
    }

    /// Appended host events go out on the current mux stream, if one is up.
    fn broadcast(&mut self, events: Vec<SessionEvent>) {
        for event in events {
            if self.net.conn == Conn::Down {
                continue;
            }
            let mut meta = Meta::default();
            if event.kind == "plan/mode" {
                let active = event.data_value()["active"].as_bool().expect("valid plan/mode");
                meta.commits.push((active, (self.host.epoch, event.seq + 1)));
            }
            let rpc_id = self.net.next_rpc_id();
            let frame = Frame::Event(EventFrame { session_id: SESSION.into(), event, view: None });
            self.net.stream.push_back(Tagged { frame: InboundFrame { rpc_id, frame }, meta });
        }
    }

    fn feed_frame(&mut self, t: Tagged, what: &str) {
        trace(format!("{what} {}", frame_name(&t.frame)));
        self.checker.on_frame(&t.meta);
        let frame = if self.cfg.wire { self.through_sse(&t.frame) } else { t.frame.clone() };
        if let Frame::Event(_) = frame.frame {
            self.net.remember_delivered(t);
        }
        self.session.on_frame(frame);
        self.pump(what);
    }

    /// Serializes a frame as the host would, splits the bytes at random points (inside
    /// UTF-8 sequences and `\r\n` included) and parses it back.
    fn through_sse(&mut self, frame: &InboundFrame) -> InboundFrame {
        let json = frame.frame.to_envelope(frame.rpc_id.clone()).to_json_string();
        let eol = if self.rng.bool() { "\r\n" } else { "\n" };
        let text = format!(": keep{eol}data: {json}{eol}{eol}");
        let bytes = text.as_bytes();
        let mut items = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            let n = self.rng.range(1, 40).min(bytes.len() - i);
            self.sse.push(&bytes[i..i + n], &mut items);
            i += n;
        }
        let data: Vec<_> = items
            .into_iter()
            .filter_map(|it| match it {
                SseItem::Data(d) => Some(d),
                _ => None,
            })
            .collect();
        if data.len() != 1 {
            self.fail(&format!("SSE round trip yielded {} data items", data.len()));
        }
        match parse_frame(&data[0]) {
            Ok(f) if f == *frame => f,
            other => self.fail(&format!("frame round trip changed it: {other:?}")),
        }
    }

    // ---- UI actions ----------------------------------------------------------------

    pub fn ui_open(&mut self) {
        trace("ui open".into());
        let op = self.session.open();
        self.op(op, "open");
    }

    pub fn ui_resync(&mut self) {
        trace("ui resync".into());
        self.session.resync();
        self.pump("resync");
    }

    pub fn ui_load_older(&mut self) {
        trace(format!("ui loadOlder (base {})", self.session.base_seq()));
        let op = self.session.load_older();
        self.op(op, "loadOlder");
    }

    pub fn ui_prompt(&mut self) {
        trace("ui prompt".into());
        let text = format!("prompt at step {}", self.step);
        let mode = if self.rng.chance(0.2) { PromptMode::Steer } else { PromptMode::Queue };
        let op = self.session.prompt(json!([{ "type": "text", "text": text }]).into(), mode);
        self.op(op, "prompt");
    }

    pub fn ui_cancel(&mut self) {
        trace("ui cancel".into());
        let op = self.session.cancel();
        self.op(op, "cancel");
    }

    pub fn ui_set_plan_mode(&mut self, active: bool) {
        trace(format!("ui setPlanMode({active})"));
        let op = self.session.set_plan_mode(active);
        self.op(op, "setPlanMode");
    }

    // ---- host and network ---------------------------------------------------------------

    /// The host processes request `i` of the unprocessed ones.
    pub fn host_process(&mut self, i: usize) {
        let r = self.net.requests.remove(i);
        let (result, meta) = match r.fate {
            Fate::LostBeforeHost => (ModelHost::transport_error("request lost"), Meta::default()),
            Fate::Normal | Fate::LostAfterHost => {
                let (result, meta) = self.host.process(&r.call, &mut self.rng);
                if r.fate == Fate::LostAfterHost {
                    (ModelHost::transport_error("response lost"), Meta::default())
                } else {
                    (result, meta)
                }
            }
        };
        trace(format!(
            "host processes {:?} {} ({:?}) as-of {:?} -> {}",
            r.req,
            call_name(&r.call),
            r.fate,
            self.host.as_of(),
            short(&result)
        ));
        self.net.responses.push(Response { req: r.req, result, meta, call: r.call });
    }

    pub fn host_process_where(&mut self, pred: impl Fn(&Call) -> bool) {
        let i = self.net.requests.iter().position(|r| pred(&r.call)).expect("scenario: no such request");
        self.host_process(i);
        self.check();
    }

    /// Delivers response `i` of the undelivered ones.
    pub fn deliver_response(&mut self, i: usize) {
        let r = self.net.responses.remove(i);
        trace(format!("deliver {:?} {} {}", r.req, call_name(&r.call), short(&r.result)));
        self.checker.on_response(&r.result, &r.meta);
        let rebuilds = self.lenient
            && r.result.is_ok()
            && r.meta.tail_page_epoch == Some(self.host.epoch)
            && r.req.0 >= self.first_req_after_establish
            && self.net.conn == Conn::Established;
        let before = self.session.diagnostics().clone();
        let result = if self.cfg.wire {
            let rpc_id = format!("c-{}", r.req.0);
            let form = r.call.response_form(&rpc_id);
            let body = match (&form, &r.result) {
                // `/api/respond` answers the receipt itself.
                (ResponseForm::BareReceipt, Ok(receipt)) => receipt.to_string(),
                _ => json!({ "type": "server-response", "rpcId": rpc_id, "result": result_to_json(&r.result) })
                    .to_string(),
            };
            match parse_unary_response(&body, &form) {
                Ok(res) if res == r.result.clone().map(agent_session::core::wire::Json::from) => res,
                other => self.fail(&format!("response round trip changed it: {other:?}")),
            }
        } else {
            r.result.map(agent_session::core::wire::Json::from)
        };
        self.session.on_response(r.req, result);
        self.pump("response");
        let after = self.session.diagnostics();
        if rebuilds && after.stale_responses == before.stale_responses && after.rejected_pages == before.rejected_pages
        {
            trace("    (client rebuilt from the restarted host's log)".into());
            self.lenient = false;
            self.changed_since_check = true;
            self.verified = None;
        }
    }

    pub fn deliver_response_where(&mut self, pred: impl Fn(&Call) -> bool) {
        let i = self.net.responses.iter().position(|r| pred(&r.call)).expect("scenario: no such response");
        self.deliver_response(i);
        self.check();
    }

    pub fn host_advance(&mut self) {
        let events = self.host.advance(&mut self.rng);
        trace(format!(
            "host logs {}",
            events.iter().map(|e| format!("{}#{}", e.kind, e.seq)).collect::<Vec<_>>().join(" ")
        ));
        self.broadcast(events);
    }

    pub fn deliver_frame(&mut self) -> bool {
        match self.net.stream.pop_front() {
            Some(t) => {
                self.feed_frame(t, "frame");
                true
            }
            None => false,
        }
    }

    /// Drops the next event frame of the stream (a gap). The subscribed frame is never
    /// dropped: it is the first thing a connection carries.
    pub fn drop_frame(&mut self) {
        if let Some(t) = self.net.stream.front() {
            if matches!(t.frame.frame, Frame::Event(_)) {
                let t = self.net.stream.pop_front().expect("peeked");
                trace(format!("DROP {}", frame_name(&t.frame)));
            }
        }
    }

    pub fn duplicate_frame(&mut self) {
        if self.net.delivered.is_empty() {
            return;
        }
        let i = self.rng.below(self.net.delivered.len());
        let t = self.net.delivered[i].clone();
        self.feed_frame(t, "DUP frame");
    }

    /// The request or response at `i` (requests first) will be answered by a transport error.
    pub fn lose(&mut self, i: usize) {
        if i < self.net.requests.len() {
            let fate = if self.rng.bool() { Fate::LostBeforeHost } else { Fate::LostAfterHost };
            trace(format!("LOSE request {:?} ({fate:?})", self.net.requests[i].req));
            self.net.requests[i].fate = fate;
        } else if let Some(r) = self.net.responses.get_mut(i - self.net.requests.len()) {
            trace(format!("LOSE response {:?}", r.req));
            r.result = ModelHost::transport_error("response lost");
            r.meta = Meta::default();
        }
    }

    pub fn disconnect(&mut self, p_lose: f64) {
        if self.net.conn == Conn::Down {
            return;
        }
        trace("DISCONNECT".into());
        self.net.conn = Conn::Down;
        self.net.stream.clear();
        self.net.delivered.clear();
        let n = self.net.requests.len() + self.net.responses.len();
        for i in 0..n {
            if self.rng.chance(p_lose) {
                self.lose(i);
            }
        }
        self.session.connection_lost();
        self.pump("connection_lost");
    }

    /// A new mux connection: `session/subscribed` with the host's tail first.
    pub fn reconnect(&mut self) {
        if self.net.conn != Conn::Down {
            return;
        }
        self.net.conn = Conn::Opening;
        self.net.conn_gen += 1;
        trace(format!("RECONNECT gen {} (host lastSeq {})", self.net.conn_gen, self.host.last_seq()));
        self.push_subscribed();
    }

    /// The generation is established: the driver resyncs every session that is not cold.
    pub fn establish(&mut self) {
        if self.net.conn != Conn::Opening {
            return;
        }
        self.net.conn = Conn::Established;
        self.first_req_after_establish = self.next_req_seen;
        trace(format!("ESTABLISHED gen {}", self.net.conn_gen));
        if self.session.open_state() != OpenState::Cold {
            self.session.resync();
            self.pump("resync (established)");
        }
    }

    /// A host restart: the connection drops, unprocessed requests may be lost, the host
    /// keeps its log (or, `keep = Some(n)`, loses everything past `n`).
    pub fn restart_host(&mut self, keep: Option<usize>) {
        trace(format!("HOST RESTART keep {keep:?} (log {})", self.host.log.len()));
        self.disconnect(0.5);
        let epoch = self.host.epoch;
        let events = self.host.restart(keep, &mut self.rng);
        if self.host.epoch != epoch {
            self.lenient = true;
        }
        self.broadcast(events); // nobody is connected: only logged
    }

    // ---- quiescence -------------------------------------------------------------------

    /// Stops the adversary and lets everything settle: every request processed and
    /// answered, every frame delivered, the host idle.
    /// Time passes until one pending wake-up fires.
    pub fn fire_wake(&mut self, i: usize) {
        let token = self.wakes.remove(i);
        trace(format!("wake {token:?}"));
        self.session.on_wake(token);
        self.pump("wake");
    }

    pub fn settle(&mut self) {
        for round in 0.. {
            if round > 10_000 {
                self.fail("no quiescence after 10000 rounds (a request or repair loop?)");
            }
            if self.net.conn == Conn::Down {
                self.reconnect();
            } else if self.net.conn == Conn::Opening {
                self.establish();
            } else if !self.net.requests.is_empty() {
                let i = self.rng.below(self.net.requests.len());
                self.host_process(i);
            } else if !self.net.responses.is_empty() {
                let i = self.rng.below(self.net.responses.len());
                self.deliver_response(i);
            } else if !self.net.stream.is_empty() {
                self.deliver_frame();
            } else if !self.host.idle() {
                self.host_advance();
            } else if !self.wakes.is_empty() {
                self.fire_wake(0);
            } else {
                break;
            }
            self.check();
        }
    }

    /// One step of a healed network (no adversary): process, deliver or log something.
    pub fn settle_one_random(&mut self) {
        match self.rng.below(6) {
            0 if !self.net.requests.is_empty() => {
                let i = self.rng.below(self.net.requests.len());
                self.host_process(i)
            }
            1 if !self.net.responses.is_empty() => {
                let i = self.rng.below(self.net.responses.len());
                self.deliver_response(i)
            }
            2 => {
                self.deliver_frame();
            }
            3 => self.host_advance(),
            4 => self.ui_prompt(),
            _ => {
                let a = self.rng.bool();
                self.ui_set_plan_mode(a)
            }
        }
    }

    pub fn quiesce_and_check(&mut self) {
        trace("---- quiescence".into());
        self.settle();
        if let Err(e) = check_nodes_match_a_full_fold(&self.session) {
            self.fail(&e);
        }
        // Liveness (opt-in): an open session converges with no help. A cold or errored one
        // waits for the UI by design (`open()` again), so it is not held to it.
        if std::env::var("SIM_LIVENESS").is_ok() && self.session.open_state() == OpenState::Open {
            if let Err(e) = check_converged(&self.session, &self.host) {
                self.fail(&format!("before the final resync: {e}"));
            }
        }
        match self.session.open_state() {
            OpenState::Cold | OpenState::Error => self.ui_open(),
            _ => self.ui_resync(),
        }
        self.check();
        self.settle();
        if let Err(e) = check_converged(&self.session, &self.host) {
            self.fail(&e);
        }
        if let Some((op, _)) = self.ops.iter().find(|(_, s)| s.is_none()) {
            self.fail(&format!("op {op:?} never settled"));
        }
    }
}

pub fn call_name(call: &Call) -> String {
    match call {
        Call::History { before_seq: None, .. } => "history(tail)".into(),
        Call::History { before_seq: Some(b), .. } => format!("history(before {b})"),
        Call::PlanMode => "planMode".into(),
        Call::SetPlanMode { active } => format!("setPlanMode({active})"),
        Call::Prompt { .. } => "prompt".into(),
        Call::Cancel => "cancel".into(),
        Call::Respond { .. } => "respond".into(),
        #[allow(unreachable_patterns)]
        _ => "other".into(),
    }
}

fn frame_name(f: &InboundFrame) -> String {
    match &f.frame {
        Frame::Event(e) => format!("event {}#{}", e.event.kind, e.event.seq),
        Frame::Subscribed(s) => format!("subscribed lastSeq {}", s.last_seq),
        other => other.type_name().to_string(),
    }
}

fn short(r: &agent_session::core::wire::RpcResult<serde_json::Value>) -> String {
    match r {
        Ok(v) if v.get("events").is_some() => {
            let ev = v["events"].as_array().map_or(0, |a| a.len());
            let first = v["events"][0]["event"]["seq"].as_u64();
            format!("page {ev} events from {first:?} hasMore {}", v["hasMore"])
        }
        Ok(v) => v.to_string(),
        Err(e) => format!("ERR {}", e.message),
    }
}
