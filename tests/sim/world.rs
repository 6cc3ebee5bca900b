//! The world: the client as users get it (the sans-IO `HostClient` with one or more
//! sessions, the system under test), one model host per session, and the adversarial network
//! between them. The world is only a driver: it performs the client's outputs (requests,
//! downlinks, aborts) against the model, writes the host's answers and frames as wire text,
//! and advances the clock to the client's one timer. Connection generations, their resync
//! rules, carrier fallback and timers are the client's own. Every action is followed by the
//! invariant checks.

use super::invariants::{check_converged, check_nodes_match_a_full_fold, check_window, Checker};
use super::model_host::{prompts_of, Meta, ModelHost};
use super::network::{Conn, Downlink, Fate, Network, Request, Response, Tagged, Target};
use super::rng::Rng;
use agent_session::core::client::hostclient::{DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS};
use agent_session::core::client::{
    CallId, Carrier, Config, HostClient, Input, Instant, OpHandle, Output, Reply, Retention, SessionOp, Settlement,
    StreamKind, Transport,
};
use agent_session::core::session::{Call, Delivery, OpenState, Session};
use agent_session::core::wire::{
    result_to_json, EventFrame, Frame, InboundFrame, Json, PromptMode, SessionEvent, SubscribedFrame,
};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};

thread_local! {
    /// The recent actions of the schedule running on this thread, printed on failure.
    pub static TRACE: RefCell<VecDeque<String>> = const { RefCell::new(VecDeque::new()) };
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
pub struct SimConfig {
    /// The host has a plan service.
    pub service: bool,
    /// How many sessions the client holds (each with its own model host).
    pub sessions: usize,
    /// The client's `transport` option.
    pub transport: Transport,
    /// The host refuses WebSocket upgrades (an SSE-only host).
    pub sse_only: bool,
    /// The client's retention rule (sessions nobody watches are released).
    pub retention: Retention,
    /// The client's bound on a unary response body (`maxResponseBytes`).
    pub max_response_bytes: u64,
}

impl SimConfig {
    /// One session, SSE, plan service as given (the named scenarios).
    pub fn single(service: bool) -> Self {
        SimConfig {
            service,
            sessions: 1,
            transport: Transport::Only(Carrier::Sse),
            sse_only: false,
            retention: Retention::default(),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
        }
    }
}

/// One session of the client and its truth.
pub struct Sim {
    pub id: String,
    pub host: ModelHost,
    pub checker: Checker,
    /// Every operation the session was asked for, and how it settled.
    pub ops: BTreeMap<OpHandle, Option<Settlement>>,
    /// The session reported a change since the last check.
    changed_since_check: bool,
    verified: Option<(i64, i64)>,
    /// A lossy restart happened and the client has not yet rebuilt from the new log.
    pub lenient: bool,
    /// The UI has a listener on the session (the retention rule's input).
    pub watched: bool,
    /// Releases seen so far (a release may show `None` after a confirmed plan state).
    releases: u64,
    /// The prompts made on this session, in order: (client id, its operation).
    pub prompts: Vec<(String, OpHandle)>,
}

/// What happened to prompts, summed over a schedule.
#[derive(Debug, Default, Clone)]
pub struct PromptStats {
    pub made: u64,
    /// Made while the connection was not established (they waited).
    pub made_offline: u64,
    /// Prompt requests lost before the host (no answer).
    pub lost_before_host: u64,
    /// Prompt requests the host took whose answer was lost.
    pub answer_lost: u64,
    /// Prompt requests the host took and never answered (given up by the client's deadline).
    pub never_answered: u64,
    /// Prompt requests unanswered when the host restarted.
    pub at_restart: u64,
    /// … a restart that lost part of the log.
    pub at_lossy_restart: u64,
    /// Accepted, not yet logged, when the connection dropped (after the answer, before the event).
    pub accepted_not_logged_at_drop: u64,
    pub landed: u64,
    pub failed: u64,
    /// Landed, then lost with the log tail by a lossy restart (the host's loss, not the client's).
    pub lost_by_the_host: u64,
    pub resent: u64,
    pub deduplicated: u64,
    pub duplicates: u64,
    pub lost: u64,
}

pub struct World {
    pub seed: u64,
    pub step: usize,
    pub rng: Rng,
    pub cfg: SimConfig,
    pub sims: Vec<Sim>,
    pub net: Network,
    pub client: HostClient,
    /// The session the UI actions address.
    pub focus: usize,
    pub now: f64,
    next_handle: u64,
    /// The first call id the client sent after its latest generation was established.
    first_call_after_establish: u64,
    next_call_seen: u64,
    established_seen: u64,
    /// Changes reported per session by the current input (at most one for a session input).
    changes_this_input: Vec<usize>,
    pub prompt_stats: PromptStats,
}

impl World {
    pub fn new(seed: u64, cfg: SimConfig) -> Self {
        let mut rng = Rng::new(seed);
        let sims = (0..cfg.sessions)
            .map(|i| {
                let initial_active = rng.chance(0.3);
                let id = format!("s{}", i + 1);
                Sim {
                    host: ModelHost::new(&id, cfg.service, initial_active),
                    id,
                    checker: Checker::default(),
                    ops: BTreeMap::new(),
                    changed_since_check: true,
                    verified: None,
                    lenient: false,
                    watched: true,
                    releases: 0,
                    prompts: Vec::new(),
                }
            })
            .collect();
        let client = HostClient::new(Config {
            transport: cfg.transport,
            rpc_prefix: "c-".into(),
            seed: seed ^ 0x5eed,
            retention: cfg.retention,
            max_response_bytes: cfg.max_response_bytes,
            ..Config::default()
        });
        let mut w = World {
            seed,
            step: 0,
            rng,
            cfg,
            sims,
            net: Network::new(),
            client,
            focus: 0,
            now: 0.0,
            next_handle: 0,
            first_call_after_establish: 0,
            next_call_seen: 0,
            established_seen: 0,
            changes_this_input: Vec::new(),
            prompt_stats: PromptStats::default(),
        };
        // Every session is resident, and the first connection generation is established
        // (its session list seeded) before any session opens.
        for i in 0..w.sims.len() {
            let session = w.sims[i].id.clone();
            w.input(Input::Ensure { session: session.clone() }, "ensure");
            w.input(Input::Watch { session, listeners: true }, "watch");
        }
        w.accept_streams();
        w.establish();
        while let Some(i) = w.net.requests.iter().position(|r| r.target == Target::List) {
            w.host_process(i);
            w.deliver_response(0);
        }
        w
    }

    pub fn fail(&self, msg: &str) -> ! {
        panic!("SIM_SEED={} step {}: {msg}", self.seed, self.step);
    }

    /// Session 0's truth (the named scenarios use one session).
    pub fn host(&self) -> &ModelHost {
        &self.sims[0].host
    }
    pub fn host_mut(&mut self) -> &mut ModelHost {
        &mut self.sims[0].host
    }
    /// The focused session as the client holds it.
    pub fn session(&self) -> &Session {
        self.client.session(&self.sims[self.focus].id).expect("sessions are resident from the start")
    }
    pub fn conn(&self) -> Conn {
        match self.net.mux() {
            None => Conn::Down,
            Some(_) if self.client.connection().is_established() => Conn::Established,
            Some(_) => Conn::Opening,
        }
    }

    // ---- the driver ----------------------------------------------------------------------

    /// Feeds one input and performs every output.
    fn input(&mut self, input: Input, what: &str) {
        let calls_before = self.next_call_seen;
        self.changes_this_input.clear();
        self.client.handle_input(Instant::from_ms(self.now), input);
        let mut pending = VecDeque::new();
        while let Some(out) = self.client.poll_output() {
            pending.push_back(out);
        }
        while let Some(out) = pending.pop_front() {
            self.perform(out, what);
        }
        // A call nobody answered is given up by its deadline, through the client's own timer.
        let mut unanswered = self.net.hung.iter().copied().chain(self.net.requests.iter().map(|r| (r.id, r.sent_at)));
        if let Some((call, at)) = unanswered.find(|h| h.1 + DEFAULT_TIMEOUT_MS <= self.now) {
            let now = self.now;
            self.fail(&format!("{what}: {call:?}, sent at {at} ms, unanswered, is still waited for at {now} ms"));
        }
        let established = self.client.connection().established_count();
        if established != self.established_seen {
            self.established_seen = established;
            self.first_call_after_establish = calls_before;
            trace(format!("    ESTABLISHED gen {}", self.client.connection().generation()));
        }
    }

    fn sim_of(&self, id: &str) -> usize {
        self.sims.iter().position(|s| s.id == id).unwrap_or_else(|| self.fail(&format!("unknown session {id}")))
    }

    fn perform(&mut self, out: Output, what: &str) {
        match out {
            Output::Send { call, path, body } => {
                self.next_call_seen = self.next_call_seen.max(call.0 + 1);
                let mut request = self.decode(call, &path, &body);
                request.sent_at = self.now;
                trace(format!("    -> send {call:?} {}", target_name(&request.target)));
                self.net.requests.push(request);
            }
            Output::Abort { call } => {
                self.net.requests.retain(|r| r.id != call);
                self.net.responses.retain(|r| r.id != call);
                if let Some(i) = self.net.hung.iter().position(|h| h.0 == call) {
                    trace(format!("    -> abort {call:?} (never answered)"));
                    self.net.hung.remove(i);
                    self.net.timed_out += 1;
                }
            }
            Output::OpenStream { stream, kind, carrier, ticket } => {
                if ticket.is_some() {
                    self.fail("no token is configured: no ticket expected");
                }
                trace(format!("    -> open {} over {}", kind.path(), carrier.as_str()));
                self.net.downlinks.push(Downlink { id: stream, kind, carrier, open: false });
            }
            Output::CloseStream { stream } => {
                let was_mux = self.net.mux().is_some_and(|m| m.id == stream);
                self.net.downlinks.retain(|d| d.id != stream);
                if was_mux {
                    self.net.stream.clear();
                    self.net.delivered.clear();
                }
            }
            Output::Settle { handle, settlement } => {
                let sim = self.sims.iter_mut().find(|s| s.ops.contains_key(&handle));
                match sim.map(|s| s.ops.get_mut(&handle).expect("found")) {
                    None => self.fail(&format!("{what}: settled unknown operation {handle:?}")),
                    Some(Some(_)) => self.fail(&format!("{what}: operation {handle:?} settled twice")),
                    Some(slot) => *slot = Some(settlement),
                }
            }
            // The model host sends no frame of a type the client does not read.
            Output::HostChanged | Output::Unread(_) => {}
            Output::SessionChanged(id) => {
                let i = self.sim_of(&id);
                self.sims[i].changed_since_check = true;
                self.changes_this_input.push(i);
            }
        }
    }

    /// Reads a request body back into what it asks (the model host speaks `Call`s).
    fn decode(&self, id: CallId, path: &str, body: &str) -> Request {
        let v: Value = serde_json::from_str(body).unwrap_or_else(|e| self.fail(&format!("{path}: body not JSON: {e}")));
        let p = &v["payload"];
        let session = |p: &Value| self.sim_of(p["sessionId"].as_str().unwrap_or_default());
        let rpc_id = v["rpcId"].as_str().map(str::to_string);
        let (rpc_id, target) = match path {
            "host.describe" => (rpc_id, Target::Describe),
            "session.list" => (rpc_id, Target::List),
            "session.history" => {
                let call = Call::History {
                    before_seq: p["beforeSeq"].as_u64(),
                    max_messages: p["maxMessages"].as_u64().map(|n| n as u32),
                };
                (rpc_id, Target::Session { sim: session(p), call })
            }
            "session.planMode" => (rpc_id, Target::Session { sim: session(p), call: Call::PlanMode }),
            "session.setPlanMode" => {
                let active = p["active"].as_bool().unwrap_or_else(|| self.fail("setPlanMode without active"));
                (rpc_id, Target::Session { sim: session(p), call: Call::SetPlanMode { active } })
            }
            "session.prompt" => {
                let mode = if p["mode"] == "steer" { PromptMode::Steer } else { PromptMode::Queue };
                let content = Json::from(p["content"].clone());
                let call = Call::Prompt { mode, content, rpc_id: rpc_id.clone() };
                (rpc_id, Target::Session { sim: session(p), call })
            }
            "session.cancel" => (rpc_id, Target::Session { sim: session(p), call: Call::Cancel }),
            other => self.fail(&format!("a request the model does not know: {other} {body}")),
        };
        if v["type"] != "client-request" || v["method"] != path {
            self.fail(&format!("{path}: not a client-request for its path: {body}"));
        }
        Request { id, rpc_id, target, fate: Fate::Normal, sent_at: 0.0 }
    }

    /// The host answers the streams the client asked for: SSE always, WebSockets unless the
    /// host is SSE-only (then the upgrade is refused before it opens). An accepted mux starts
    /// with `session/subscribed` for every session.
    pub fn accept_streams(&mut self) {
        while let Some(d) = self.net.downlinks.iter().copied().find(|d| !d.open) {
            if d.carrier == Carrier::WebSocket && self.cfg.sse_only {
                trace(format!("REFUSE websocket {}", d.kind.path()));
                self.net.downlinks.retain(|x| x.id != d.id);
                self.input(Input::StreamClosed { stream: d.id, code: Some(1006) }, "refused");
                continue;
            }
            for x in self.net.downlinks.iter_mut().filter(|x| x.id == d.id) {
                x.open = true;
            }
            if d.kind == StreamKind::Mux {
                self.net.conn_gen += 1;
                self.net.stream.clear();
                self.net.delivered.clear();
                trace(format!("MUX OPEN (conn {})", self.net.conn_gen));
                for i in 0..self.sims.len() {
                    self.push_subscribed(i);
                }
            }
            self.input(Input::StreamOpened { stream: d.id }, "stream opened");
        }
    }

    /// The body the host writes for `r` (a receipt, or the response envelope).
    fn body_text(r: &Response) -> String {
        match (&r.rpc_id, &r.result) {
            (None, Ok(receipt)) => receipt.to_string(),
            (rpc_id, result) => {
                json!({ "type": "server-response", "rpcId": rpc_id, "result": result_to_json(result) }).to_string()
            }
        }
    }

    fn answer(&mut self, mut r: Response) {
        let reply = match r.streamed.take() {
            // The rest of a body begun in pieces, then its end (or the failure that cut it).
            Some((text, at)) => {
                self.input(Input::ResponseBytes { call: r.id, bytes: text.as_bytes()[at..].to_vec() }, "last piece");
                if r.lost {
                    Reply::Failed("lost on the network halfway".into())
                } else {
                    Reply::Body(String::new())
                }
            }
            None if r.lost => Reply::Failed("lost on the network".into()),
            None => Reply::Body(Self::body_text(&r)),
        };
        self.input(Input::Response { call: r.id, reply }, "response");
    }

    /// Hands over the next piece of response `i`'s body, as a fetch chunk arrives: anything
    /// may happen before the next one (frames, other answers, a reconnect, a release). A body
    /// with one byte left is delivered instead.
    pub fn deliver_piece(&mut self, i: usize) {
        let r = &mut self.net.responses[i];
        let (text, at) = r.streamed.take().unwrap_or_else(|| (Self::body_text(r), 0));
        let left = text.len() - at;
        if left < 2 {
            self.net.responses[i].streamed = Some((text, at));
            return self.deliver_response(i);
        }
        let end = at + 1 + self.rng.below(left - 1);
        let call = r.id;
        trace(format!("piece of {call:?}: bytes {at}..{end} of {}", text.len()));
        let bytes = text.as_bytes()[at..end].to_vec();
        self.net.responses[i].streamed = Some((text, end));
        self.input(Input::ResponseBytes { call, bytes }, "response piece");
    }

    /// Delivers response `i`, or (one time in three) only the next piece of its body.
    pub fn deliver_some(&mut self, i: usize) {
        if self.rng.below(3) == 0 {
            self.deliver_piece(i)
        } else {
            self.deliver_response(i)
        }
    }

    fn new_handle(&mut self, sim: usize) -> OpHandle {
        self.next_handle += 1;
        let handle = OpHandle(self.next_handle);
        self.sims[sim].ops.insert(handle, None);
        handle
    }

    /// A UI operation on the focused session.
    fn op(&mut self, op: SessionOp, what: &str) {
        let i = self.focus;
        let handle = self.new_handle(i);
        let session = self.sims[i].id.clone();
        self.input(Input::Session { handle, session, op }, what);
        self.one_change_per_session_input(what);
    }

    fn one_change_per_session_input(&self, what: &str) {
        let mut seen = self.changes_this_input.clone();
        seen.sort_unstable();
        if seen.windows(2).any(|p| p[0] == p[1]) {
            self.fail(&format!("{what}: more than one change reported for one session input"));
        }
    }

    /// Invariants 1 and 2 for every session (3, no panic, is the harness itself).
    pub fn check(&mut self) {
        self.step += 1;
        self.check_prompts();
        for i in 0..self.sims.len() {
            let Some(session) = self.client.session(&self.sims[i].id) else {
                self.fail("a session is not resident");
            };
            let sim = &mut self.sims[i];
            if TRACE_ALL.with(|t| *t.borrow()) {
                eprintln!(
                    "      [{}] {} window {}..={} ({:?}) plan {:?} host log {} epoch {}",
                    self.step,
                    sim.id,
                    session.base_seq(),
                    session.tail_seq(),
                    session.open_state(),
                    session.plan_mode(),
                    sim.host.log.len(),
                    sim.host.epoch
                );
            }
            let releases = session.diagnostics().releases;
            if releases != sim.releases {
                // Released to cold: the display goes back to "not known" by design.
                sim.releases = releases;
                sim.checker.on_release();
                sim.verified = None;
            }
            let contents = std::mem::take(&mut sim.changed_since_check);
            if let Err(e) = check_window(session, &sim.host, contents, sim.lenient, &mut sim.verified) {
                let id = sim.id.clone();
                self.fail(&format!("{id}: {e}"));
            }
            let shown = session.plan_mode();
            if let Err(e) = sim.checker.check_plan(shown, self.cfg.service) {
                let id = sim.id.clone();
                self.fail(&format!("{id}: {e}"));
            }
        }
    }

    fn push_subscribed(&mut self, i: usize) {
        let rpc_id = self.net.next_rpc_id();
        let frame = Frame::Subscribed(SubscribedFrame {
            session_id: self.sims[i].id.clone(),
            last_seq: self.sims[i].host.last_seq(),
        });
        self.net.stream.push_back(Tagged { frame: InboundFrame { rpc_id, frame }, sim: i, meta: Meta::default() });
    }

    /// Appended host events go out on the open mux stream, if there is one.
    fn broadcast(&mut self, i: usize, events: Vec<SessionEvent>) {
        if self.net.mux().is_none() {
            return;
        }
        for event in events {
            let mut meta = Meta::default();
            if event.kind == "plan/mode" {
                let active = event.data_value()["active"].as_bool().expect("valid plan/mode");
                meta.commits.push((active, (self.sims[i].host.epoch, event.seq + 1)));
            }
            let rpc_id = self.net.next_rpc_id();
            let frame = Frame::Event(EventFrame { session_id: self.sims[i].id.clone(), event, view: None });
            self.net.stream.push_back(Tagged { frame: InboundFrame { rpc_id, frame }, sim: i, meta });
        }
    }

    /// Writes a frame as the host would and hands it to the client on the mux's carrier:
    /// one WebSocket message, or SSE bytes split at random points (inside UTF-8 sequences
    /// and `\r\n` included) over several reads.
    fn feed_frame(&mut self, t: Tagged, what: &str) {
        let Some(mux) = self.net.mux() else { return };
        trace(format!("{what} {}", frame_name(&t.frame)));
        self.sims[t.sim].checker.on_frame(&t.meta);
        let text = t.frame.frame.to_envelope_text(&t.frame.rpc_id);
        if let Frame::Event(_) = t.frame.frame {
            self.net.remember_delivered(t);
        }
        match mux.carrier {
            Carrier::WebSocket => self.input(Input::StreamMessage { stream: mux.id, text }, what),
            Carrier::Sse => {
                let eol = if self.rng.bool() { "\r\n" } else { "\n" };
                let bytes = format!(": keep{eol}data: {text}{eol}{eol}").into_bytes();
                let mut i = 0;
                while i < bytes.len() {
                    let n = self.rng.range(1, 400).min(bytes.len() - i);
                    let chunk = bytes[i..i + n].to_vec();
                    self.input(Input::StreamBytes { stream: mux.id, bytes: chunk }, what);
                    i += n;
                }
            }
        }
    }

    // ---- UI actions ------------------------------------------------------------------------

    /// The UI's listener on the focused session comes (`true`) or goes.
    pub fn ui_watch(&mut self, listeners: bool) {
        let i = self.focus;
        trace(format!("ui {} s{}", if listeners { "watch" } else { "unwatch" }, i + 1));
        self.sims[i].watched = listeners;
        let session = self.sims[i].id.clone();
        self.input(Input::Watch { session, listeners }, "watch");
    }

    pub fn ui_open(&mut self) {
        trace(format!("ui open s{}", self.focus + 1));
        self.op(SessionOp::Open, "open");
    }

    pub fn ui_resync(&mut self) {
        trace(format!("ui resync s{}", self.focus + 1));
        let session = self.sims[self.focus].id.clone();
        self.input(Input::Resync { session }, "resync");
        self.one_change_per_session_input("resync");
    }

    pub fn ui_load_older(&mut self) {
        trace(format!("ui loadOlder s{} (base {})", self.focus + 1, self.session().base_seq()));
        self.op(SessionOp::LoadOlder, "loadOlder");
    }

    pub fn ui_prompt(&mut self) {
        trace(format!("ui prompt s{}", self.focus + 1));
        let text = format!("prompt at step {}", self.step);
        let mode = if self.rng.chance(0.2) { PromptMode::Steer } else { PromptMode::Queue };
        let handle = OpHandle(self.next_handle + 1);
        let offline = !self.client.connection().is_established();
        self.op(
            SessionOp::Prompt { content: json!([{ "type": "text", "text": text }]).into(), mode, adopted: None },
            "prompt",
        );
        let i = self.focus;
        let session = self.client.session(&self.sims[i].id).expect("resident");
        // The echo is in the snapshot at once, under the prompt's own id.
        let Some(last) = session.outbox().entries().last() else {
            // Landed already? Not possible in the same input: it was refused (outbox full).
            return;
        };
        if !session.shown_nodes().iter().any(|n| *n.id == *last.id) && session.queue().is_none() {
            self.fail("a prompt is not shown at once");
        }
        let id = last.id.to_string();
        if self.sims[i].prompts.iter().all(|(p, _)| *p != id) {
            self.sims[i].prompts.push((id, handle));
            self.prompt_stats.made += 1;
            self.prompt_stats.made_offline += offline as u64;
        }
    }

    /// Prompt requests and answers in flight, and prompts accepted but not logged (for the
    /// figures of what a drop met).
    fn prompts_in_flight(&self) -> (u64, u64) {
        let is_prompt = |t: &Target| matches!(t, Target::Session { call: Call::Prompt { rpc_id: Some(_), .. }, .. });
        let flying = self.net.requests.iter().filter(|r| is_prompt(&r.target)).count()
            + self.net.responses.iter().filter(|r| is_prompt(&r.target)).count();
        let queued: usize = self
            .sims
            .iter()
            .map(|s| {
                s.prompts
                    .iter()
                    .filter(|(id, _)| s.host.holds_prompt(id) && !s.host.logged_prompts().any(|l| l == *id))
                    .count()
            })
            .sum();
        (flying as u64, queued as u64)
    }

    /// Every prompt is in its host's log at most once, in the order made (after every step).
    fn check_prompts(&self) {
        for sim in &self.sims {
            let mut last = None;
            let mut seen: Vec<String> = Vec::new();
            for id in sim.host.logged_prompts() {
                if seen.contains(&id) {
                    self.fail(&format!("{}: prompt {id} logged twice", sim.id));
                }
                let Some(at) = sim.prompts.iter().position(|(p, _)| *p == id) else { continue };
                if last.is_some_and(|l| at < l) {
                    self.fail(&format!("{}: prompt {id} logged out of the order made", sim.id));
                }
                last = Some(at);
                seen.push(id);
            }
        }
    }

    /// At quiescence: every prompt made landed exactly once, or ended `failed` with the
    /// host's reason (or landed and was lost with the log tail by a lossy restart).
    fn check_prompts_final(&mut self) {
        let mut st = std::mem::take(&mut self.prompt_stats);
        for sim in &self.sims {
            let session = self.client.session(&sim.id).expect("resident");
            st.resent += session.outbox().resent;
            st.deduplicated += session.outbox().deduplicated;
            for (id, handle) in &sim.prompts {
                let n = sim.host.logged_prompts().filter(|l| l == id).count();
                let entry = session.outbox().entries().iter().find(|e| *e.id == **id);
                let failed = entry.is_some_and(|e| matches!(e.delivery, Delivery::Failed(_)));
                let settled_err = matches!(sim.ops.get(handle), Some(Some(Settlement::Result(Err(_)))));
                if n == 1 && !failed {
                    st.landed += 1;
                } else if n == 0 && failed && settled_err && sim.host.refused.contains(id) {
                    st.failed += 1;
                } else if n == 0 && sim.host.old_epochs.iter().any(|l| prompts_of(l).any(|p| p == *id)) {
                    st.lost_by_the_host += 1;
                } else if n > 1 {
                    // Counted as `duplicates` by failing: a passing run has none.
                    self.fail(&format!("{}: prompt {id} logged {n} times", sim.id));
                } else {
                    self.fail(&format!("{}: prompt {id} lost (logged {n}, entry {entry:?})", sim.id));
                }
            }
        }
        self.prompt_stats = st;
    }

    pub fn ui_cancel(&mut self) {
        trace(format!("ui cancel s{}", self.focus + 1));
        self.op(SessionOp::Cancel, "cancel");
    }

    pub fn ui_set_plan_mode(&mut self, active: bool) {
        trace(format!("ui setPlanMode({active}) s{}", self.focus + 1));
        self.op(SessionOp::SetPlanMode(active), "setPlanMode");
    }

    // ---- host and network --------------------------------------------------------------------

    /// The host processes request `i` of the unprocessed ones.
    pub fn host_process(&mut self, i: usize) {
        let r = self.net.requests.remove(i);
        let (result, meta) = match (&r.target, r.fate) {
            (_, Fate::LostBeforeHost) => (ModelHost::transport_error("request lost"), Meta::default()),
            (Target::Session { sim, call }, fate) => {
                let (result, meta) = self.sims[*sim].host.process(call, &mut self.rng);
                if fate == Fate::Unanswered {
                    trace(format!("host processes {:?} {} and never answers", r.id, target_name(&r.target)));
                    return self.net.hung.push((r.id, r.sent_at));
                }
                if fate == Fate::LostAfterHost {
                    (ModelHost::transport_error("response lost"), Meta::default())
                } else {
                    (result, meta)
                }
            }
            (Target::Describe, Fate::Normal) => (
                Ok(json!({"version": "sim", "cwd": "/", "provider": "model", "model": "none", "attachedSessions": 0})),
                Meta::default(),
            ),
            (Target::List, Fate::Normal) => {
                let items: Vec<Value> = self
                    .sims
                    .iter()
                    .map(|s| json!({"sessionId": s.id, "updatedAt": 0, "running": !s.host.idle()}))
                    .collect();
                (Ok(json!({ "items": items })), Meta::default())
            }
            (_, Fate::Unanswered) => return self.net.hung.push((r.id, r.sent_at)),
            (_, Fate::LostAfterHost) => (ModelHost::transport_error("response lost"), Meta::default()),
        };
        let lost = r.fate != Fate::Normal;
        trace(format!("host processes {:?} {} ({:?}) -> {}", r.id, target_name(&r.target), r.fate, short(&result)));
        self.net.responses.push(Response {
            id: r.id,
            rpc_id: r.rpc_id,
            target: r.target,
            result,
            lost,
            meta,
            streamed: None,
        });
    }

    pub fn host_process_where(&mut self, pred: impl Fn(&Call) -> bool) {
        let i = self.net.requests.iter().position(|r| r.call().is_some_and(&pred)).expect("scenario: no such request");
        self.host_process(i);
        self.check();
    }

    /// Delivers response `i` of the undelivered ones.
    pub fn deliver_response(&mut self, i: usize) {
        let r = self.net.responses.remove(i);
        trace(format!("deliver {:?} {} {}", r.id, target_name(&r.target), short(&r.result)));
        let Target::Session { sim, .. } = r.target else {
            return self.answer(r);
        };
        if !r.lost {
            self.sims[sim].checker.on_response(&r.result, &r.meta);
        }
        let s = &self.sims[sim];
        let rebuilds = s.lenient
            && !r.lost
            && r.result.is_ok()
            && r.meta.tail_page_epoch == Some(s.host.epoch)
            && r.id.0 >= self.first_call_after_establish
            && self.client.connection().is_established();
        let before = self.client.session(&s.id).expect("resident").diagnostics().clone();
        let meta_before = self.client.session(&s.id).expect("resident").meta_rev();
        let id = s.id.clone();
        self.answer(r);
        self.one_change_per_session_input("response");
        let after_session = self.client.session(&id).expect("resident");
        // A look-up of the outbox reads a tail page too, and installs nothing.
        let installed = after_session.meta_rev() != meta_before;
        let after = after_session.diagnostics();
        if rebuilds
            && installed
            && after.stale_responses == before.stale_responses
            && after.rejected_pages == before.rejected_pages
        {
            trace(format!("    ({id} rebuilt from the restarted host's log)"));
            let s = &mut self.sims[sim];
            s.lenient = false;
            s.changed_since_check = true;
            s.verified = None;
        }
    }

    pub fn deliver_response_where(&mut self, pred: impl Fn(&Call) -> bool) {
        let i =
            self.net.responses.iter().position(|r| r.call().is_some_and(&pred)).expect("scenario: no such response");
        self.deliver_response(i);
        self.check();
    }

    /// One host step of agent work for session `i`.
    pub fn host_advance_at(&mut self, i: usize) {
        let events = self.sims[i].host.advance(&mut self.rng);
        trace(format!(
            "host s{} logs {}",
            i + 1,
            events.iter().map(|e| format!("{}#{}", e.kind, e.seq)).collect::<Vec<_>>().join(" ")
        ));
        self.broadcast(i, events);
    }

    pub fn host_advance(&mut self) {
        self.host_advance_at(self.focus);
    }

    pub fn deliver_frame(&mut self) -> bool {
        if self.net.mux().is_none() {
            return false;
        }
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

    /// The request or response at `i` (requests first) will be answered by a carrier
    /// failure, or (`may_hang`: a request, one time in four) never answered at all.
    pub fn lose(&mut self, i: usize, may_hang: bool) {
        if i < self.net.requests.len() {
            let fate = match self.rng.below(4) {
                0 if may_hang => Fate::Unanswered,
                0 => Fate::LostBeforeHost,
                1 => Fate::LostBeforeHost,
                _ => Fate::LostAfterHost,
            };
            trace(format!("LOSE request {:?} ({fate:?})", self.net.requests[i].id));
            if matches!(self.net.requests[i].target, Target::Session { call: Call::Prompt { .. }, .. }) {
                match fate {
                    Fate::LostBeforeHost => self.prompt_stats.lost_before_host += 1,
                    Fate::Unanswered => self.prompt_stats.never_answered += 1,
                    _ => self.prompt_stats.answer_lost += 1,
                }
            }
            self.net.requests[i].fate = fate;
        } else if let Some(r) = self.net.responses.get_mut(i - self.net.requests.len()) {
            if matches!(r.target, Target::Session { call: Call::Prompt { .. }, .. }) {
                self.prompt_stats.answer_lost += 1;
            }
            trace(format!("LOSE response {:?}", r.id));
            r.result = ModelHost::transport_error("response lost");
            r.lost = true;
            r.meta = Meta::default();
        }
    }

    /// The mux stream breaks (an end, or a `stream/error` frame): the client ends the
    /// generation and schedules the next.
    pub fn disconnect(&mut self, p_lose: f64) {
        let Some(mux) = self.net.mux() else { return };
        let (_, queued) = self.prompts_in_flight();
        self.prompt_stats.accepted_not_logged_at_drop += queued;
        let n = self.net.requests.len() + self.net.responses.len();
        for i in 0..n {
            if self.rng.chance(p_lose) {
                self.lose(i, true);
            }
        }
        self.net.stream.clear();
        if self.rng.chance(0.3) {
            trace("DISCONNECT (stream/error frame)".into());
            let frame = json!({"type": "server-request", "rpcId": "err", "method": "stream/error",
                "payload": {"type": "stream/error", "error": {"code": "internal", "message": "sim"}}});
            let text = frame.to_string();
            match mux.carrier {
                Carrier::WebSocket => self.input(Input::StreamMessage { stream: mux.id, text }, "stream/error"),
                Carrier::Sse => {
                    let bytes = format!("data: {text}\n\n").into_bytes();
                    self.input(Input::StreamBytes { stream: mux.id, bytes }, "stream/error")
                }
            }
        } else if mux.carrier == Carrier::WebSocket && self.rng.chance(0.25) {
            // The tab that held the shared connection went: its lent socket closes with code 0,
            // and the client starts its next generation at once.
            trace("DISCONNECT (handover: the sharing leader went)".into());
            self.net.handovers += 1;
            self.input(Input::StreamClosed { stream: mux.id, code: Some(0) }, "handed over");
        } else {
            trace("DISCONNECT".into());
            self.input(Input::StreamEnded { stream: mux.id, why: "network".into() }, "stream ended");
        }
        if self.net.mux().is_some() {
            self.fail("the client kept a broken mux stream");
        }
    }

    /// Time passes to the client's next timer (a retry, a connect timeout, a session wake, a
    /// list reseed). Returns false when nothing is scheduled.
    pub fn time_passes(&mut self) -> bool {
        let Some(at) = self.client.poll_timeout() else { return false };
        self.now = self.now.max(at.as_ms());
        trace(format!("TIME {} ms", self.now));
        self.input(Input::Timeout, "timeout");
        true
    }

    /// A new connection: time passes until the client starts its next generation, and the
    /// host accepts its streams (the mux starts with `session/subscribed`).
    pub fn reconnect(&mut self) {
        let gen = self.client.connection().generation();
        while self.client.connection().generation() == gen && self.client.connection().live_generation().is_none() {
            if !self.time_passes() {
                break;
            }
        }
        self.accept_streams();
    }

    /// The generation is established: the host answers `host.describe` (the client resyncs
    /// every session that was open before).
    pub fn establish(&mut self) {
        self.accept_streams();
        while let Some(i) = self.net.requests.iter().position(|r| r.target == Target::Describe) {
            self.host_process(i);
        }
        while let Some(i) = self.net.responses.iter().position(|r| r.target == Target::Describe) {
            self.deliver_response(i);
        }
    }

    /// A host restart: the connection drops, unprocessed requests may be lost, every host
    /// keeps its log (or, `keep = Some(n)`, session 0's host loses everything past `n` and
    /// the others a random tail).
    pub fn restart_host(&mut self, keep: Option<usize>) {
        trace(format!("HOST RESTART keep {keep:?}"));
        let (flying, _) = self.prompts_in_flight();
        match keep {
            Some(_) => self.prompt_stats.at_lossy_restart += flying,
            None => self.prompt_stats.at_restart += flying,
        }
        self.disconnect(0.5);
        for i in 0..self.sims.len() {
            let keep = match keep {
                Some(n) if i == 0 => Some(n),
                Some(_) => Some(self.rng.below(self.sims[i].host.log.len() + 1)),
                None => None,
            };
            let epoch = self.sims[i].host.epoch;
            let events = self.sims[i].host.restart(keep, &mut self.rng);
            if self.sims[i].host.epoch != epoch {
                self.sims[i].lenient = true;
            }
            self.broadcast(i, events); // nobody is connected: only logged
        }
    }

    // ---- quiescence ---------------------------------------------------------------------------

    /// Stops the adversary and lets everything settle: every request processed and
    /// answered, every stream accepted, every frame delivered, every host idle, every timer
    /// that matters fired.
    pub fn settle(&mut self) {
        for round in 0.. {
            if round > 20_000 {
                self.fail("no quiescence after 20000 rounds (a request or repair loop?)");
            }
            let busy = self.sims.iter().position(|s| !s.host.idle());
            if self.net.downlinks.iter().any(|d| !d.open) {
                self.accept_streams();
            } else if !self.net.requests.is_empty() {
                let i = self.rng.below(self.net.requests.len());
                self.host_process(i);
            } else if !self.net.responses.is_empty() {
                let i = self.rng.below(self.net.responses.len());
                self.deliver_some(i);
            } else if !self.net.stream.is_empty() && self.net.mux().is_some() {
                self.deliver_frame();
            } else if let Some(i) = busy {
                self.host_advance_at(i);
            } else if !self.time_passes() {
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
                self.deliver_some(i)
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
        for i in 0..self.sims.len() {
            let session = self.client.session(&self.sims[i].id).expect("resident");
            if let Err(e) = check_nodes_match_a_full_fold(session) {
                self.fail(&e);
            }
            // Liveness (opt-in): an open session converges with no help. A cold or errored
            // one waits for the UI by design (`open()` again), so it is not held to it.
            if std::env::var("SIM_LIVENESS").is_ok() && session.open_state() == OpenState::Open {
                if let Err(e) = check_converged(session, &self.sims[i].host) {
                    self.fail(&format!("{} before the final resync: {e}", self.sims[i].id));
                }
            }
        }
        for i in 0..self.sims.len() {
            self.focus = i;
            if !self.sims[i].watched {
                self.ui_watch(true); // what is checked for convergence is watched
            }
            match self.session().open_state() {
                OpenState::Cold | OpenState::Error => self.ui_open(),
                _ => self.ui_resync(),
            }
            self.check();
        }
        self.settle();
        for sim in &self.sims {
            let session = self.client.session(&sim.id).expect("resident");
            if let Err(e) = check_converged(session, &sim.host) {
                self.fail(&format!("{}: {e}", sim.id));
            }
            if let Some((op, _)) = sim.ops.iter().find(|(_, s)| s.is_none()) {
                self.fail(&format!("{}: operation {op:?} never settled", sim.id));
            }
        }
        if let Some((call, at)) = self.net.hung.first() {
            self.fail(&format!("{call:?}, sent at {at} ms and never answered, was never given up"));
        }
        self.check_prompts_final();
        self.focus = 0;
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

fn target_name(t: &Target) -> String {
    match t {
        Target::Session { sim, call } => format!("s{} {}", sim + 1, call_name(call)),
        Target::Describe => "host.describe".into(),
        Target::List => "session.list".into(),
    }
}

fn frame_name(f: &InboundFrame) -> String {
    match &f.frame {
        Frame::Event(e) => format!("event {} {}#{}", e.session_id, e.event.kind, e.event.seq),
        Frame::Subscribed(s) => format!("subscribed {} lastSeq {}", s.session_id, s.last_seq),
        other => other.type_name().to_string(),
    }
}

fn short(r: &agent_session::core::wire::RpcResult<Value>) -> String {
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
