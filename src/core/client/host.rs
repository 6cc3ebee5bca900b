//! The sans-IO host client: one connection to one agent host and every session on it.
//!
//! [`HostClient`] owns the connection controller ([`Connection`]), the carrier choice
//! ([`Carriers`]), the session router ([`Router`]) with every [`Session`](crate::core::session::Session),
//! the live session list ([`SessionList`]), one timer table, and the host-level calls. It does
//! no I/O and reads no clock: the driver (the wasm shell, or the simulation) feeds it
//! [`Input`]s with the current [`Instant`], performs the [`Output`]s it polls, and arms one
//! timer at [`HostClient::poll_timeout`].
//!
//! Methods, in the order a driver uses them:
//! - [`HostClient::new`], then [`HostClient::handle_input`] for every event (its first call
//!   may be [`Input::Timeout`], which starts the first connection generation);
//! - [`HostClient::poll_output`] until it returns `None`, performing each output;
//! - [`HostClient::poll_timeout`]: when to feed [`Input::Timeout`] next;
//! - accessors ([`HostClient::connection`], [`HostClient::session`], [`HostClient::sessions`],
//!   [`HostClient::diagnostics`]) to build snapshots.
//!
//! ```
//! use agent_session::core::client::{Config, HostClient, Input, Instant, Output};
//! let mut client = HostClient::new(Config::default());
//! let now = Instant::from_ms(0.0);
//! client.handle_input(now, Input::Timeout);
//! while let Some(output) = client.poll_output() {
//!     match output {
//!         Output::Send { .. } => { /* POST /api/<path> <body>; feed Input::Response */ }
//!         Output::OpenStream { .. } => { /* fetch SSE or a WebSocket; feed Stream* inputs */ }
//!         _ => {}
//!     }
//! }
//! let _next = client.poll_timeout(); // feed Input::Timeout at (or after) this instant
//! ```

use super::carrier::{Carrier, Carriers, Transport};
use super::connection::{Backoff, ConnCommand, ConnState, Connection, GenerationEnd, StreamKind};
use super::downlink::{read_ticket, STREAM_TICKET};
use super::router::Router;
use super::sessions::SessionList;
use crate::core::session::io::schema_error;
use crate::core::session::{Effect, OpId, Outcome, ReqId, Session, WakeToken};
use crate::core::sse::{SseItem, SseParser};
use crate::core::vecmap::VecMap;
use crate::core::wire::interaction::Answer;
use crate::core::wire::{
    self, parse_frame, parse_unary_response, CreatePayload, ErrorCode, Frame, Json, ListValue, PromptMode,
    ResponseForm, RpcError, RpcResult,
};
use serde::Serialize;
use std::collections::VecDeque;

/// A point on the driver's clock, in milliseconds. Only differences matter; the shell uses
/// `Date.now()`, the simulation a counter.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
pub struct Instant(f64);

impl Instant {
    pub fn from_ms(ms: f64) -> Instant {
        Instant(ms)
    }
    pub fn as_ms(self) -> f64 {
        self.0
    }
    pub fn after_ms(self, ms: f64) -> Instant {
        Instant(self.0 + ms)
    }
}

/// One unary call the client asked the driver to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct CallId(pub u64);

/// One downlink stream the client asked the driver to open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct StreamId(pub u64);

/// The driver's handle for one user operation; settled exactly once by [`Output::Settle`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Token(pub u64);

/// Construction parameters.
#[derive(Debug, Clone)]
pub struct Config {
    pub transport: Transport,
    pub backoff: Backoff,
    /// How long a generation may take to be established (the shell's request timeout).
    pub connect_timeout_ms: f64,
    /// A bearer token is configured: each WebSocket first mints a one-time ticket.
    pub authenticated: bool,
    /// Prefix of every minted envelope `rpcId` (unique per client instance).
    pub rpc_prefix: String,
    /// Seeds the backoff jitter.
    pub seed: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            transport: Transport::Auto,
            backoff: Backoff::default(),
            connect_timeout_ms: 30_000.0,
            authenticated: false,
            rpc_prefix: "c-".into(),
            seed: 0x9e37_79b9_7f4a_7c15,
        }
    }
}

/// How a unary call ended, as the carrier saw it. The client reads the body itself.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A 2xx answer and its body text.
    Body(String),
    /// A non-2xx status.
    Status(u16),
    /// The call never got an answer: network error, abort or timeout (the driver's words).
    Failed(String),
}

/// A session operation the UI asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionOp {
    Open,
    LoadOlder,
    /// `content`: a JSON array of content blocks (checked by the caller).
    Prompt {
        content: Json,
        mode: PromptMode,
    },
    Cancel,
    SetPlanMode(bool),
    Respond {
        key: String,
        result: RpcResult<Json>,
    },
    Answer {
        prompt_id: String,
        answers: Vec<Answer>,
    },
}

/// A host-level call the UI asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum HostCall {
    Describe,
    List,
    Create(CreatePayload),
}

impl HostCall {
    fn method(&self) -> &'static str {
        match self {
            HostCall::Describe => wire::HOST_DESCRIBE,
            HostCall::List => wire::SESSION_LIST,
            HostCall::Create(_) => wire::SESSION_CREATE,
        }
    }
}

/// Everything that happens to the client.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// Time passed: the timer armed at [`HostClient::poll_timeout`] fired (early is harmless).
    Timeout,
    /// The call of [`Output::Send`] ended.
    Response { call: CallId, reply: Reply },
    /// The stream of [`Output::OpenStream`] is open (SSE: 2xx with a body; WebSocket: `open`).
    StreamOpened { stream: StreamId },
    /// Bytes of an SSE body.
    StreamBytes { stream: StreamId, bytes: Vec<u8> },
    /// One WebSocket text message: one frame document.
    StreamMessage { stream: StreamId, text: String },
    /// A message that could not be read as a frame (binary, oversize): dropped and counted.
    StreamDropped { stream: StreamId },
    /// The stream ended, failed, or could not be opened; `why` in the carrier's words.
    StreamEnded { stream: StreamId, why: String },
    /// Makes session `id` resident (created cold on first use).
    Ensure { session: String },
    /// A session operation; settles `token`.
    Session { token: Token, session: String, op: SessionOp },
    /// `Session.resync()`: no promise.
    Resync { session: String },
    /// A host-level call; settles `token` with an `RpcResult`.
    Host { token: Token, call: HostCall },
    /// Stops everything: pending operations settle, streams and calls are given up.
    Close,
}

/// How an operation settles.
#[derive(Debug, Clone, PartialEq)]
pub enum Settlement {
    /// `open()` / `loadOlder()`: nothing.
    Done,
    /// An `RpcResult` (values schema-checked; carrier failures are `internal`).
    Result(RpcResult<Json>),
    /// `respond()`: a receipt object (carrier failures are `{accepted:false, reason:'transport'}`).
    Receipt(Json),
}

/// What the driver must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// `POST /api/<path>` with `body` (JSON); answer with [`Input::Response`].
    Send { call: CallId, path: &'static str, body: String },
    /// Give up a call sent earlier (its result is no longer wanted).
    Abort { call: CallId },
    /// Open a downlink at `/api/<kind.path()>` on `carrier`; a WebSocket presents `ticket`.
    OpenStream { stream: StreamId, kind: StreamKind, carrier: Carrier, ticket: Option<String> },
    /// Close a downlink; report nothing more about it.
    CloseStream { stream: StreamId },
    /// Settle the operation `token`.
    Settle { token: Token, settlement: Settlement },
    /// The connection snapshot or the session list changed.
    HostChanged,
    /// Session `id`'s snapshot changed.
    SessionChanged(String),
}

/// Counters for diagnostics and tests.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ClientDiagnostics {
    /// Frame documents read.
    pub frames: u64,
    /// Frames dropped: not a frame document, oversize, binary.
    pub malformed_frames: u64,
    /// Frames that named no resident session and were not held for one.
    pub unrouted_frames: u64,
    /// Unary calls in flight.
    pub inflight_calls: usize,
    /// Downlinks asked for and not yet closed.
    pub streams: usize,
}

/// A failed `session.list` seed is asked again after this long while its generation lives.
pub const RESEED_MS: f64 = 2000.0;

/// How long a WebSocket upgrade may hang before it counts as refused.
pub const UPGRADE_TIMEOUT_MS: f64 = 5000.0;

/// What a call in flight answers.
#[derive(Debug)]
enum CallFor {
    /// A session request: the result goes back to the session under `req`.
    Session { session: String, req: ReqId },
    /// A host-level call of the UI.
    Host { token: Token, method: &'static str },
    /// `host.describe` of a generation (part of establishing it).
    Describe { gen: u64 },
    /// The upgrade ticket of one WebSocket downlink.
    Ticket { gen: u64, stream: StreamId },
    /// `session.list` seeding the live list for a generation.
    Seed { gen: u64 },
}

#[derive(Debug)]
struct PendingCall {
    what: CallFor,
    form: ResponseForm,
    path: &'static str,
}

/// A downlink's progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StreamState {
    /// A WebSocket waiting for its ticket call.
    Ticketing,
    /// Asked for; not open yet.
    Opening,
    Open,
}

#[derive(Debug)]
struct Stream {
    id: StreamId,
    gen: u64,
    kind: StreamKind,
    carrier: Carrier,
    state: StreamState,
    /// SSE bodies only: frames split across chunks.
    sse: Option<SseParser>,
}

/// What a timer-table entry does when due.
#[derive(Debug, Clone, PartialEq)]
enum Timer {
    /// A session asked to be woken (retry of a failed plan query or repair).
    Wake { session: String, token: WakeToken },
    /// Ask `session.list` again for generation `gen`.
    Reseed { gen: u64 },
    /// A WebSocket of `gen` that has neither opened nor failed by now counts as refused (a
    /// proxy that swallows the upgrade must not cost the whole connect timeout).
    Upgrade { gen: u64, stream: StreamId },
}

/// Operations waiting for their session to settle them: (session, op) → (token, kind).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Waits {
    Done,
    Result,
    Receipt,
}

/// The sans-IO host client (see the module documentation for the driving loop).
#[derive(Debug)]
pub struct HostClient {
    cfg: Config,
    now: Instant,
    /// Also the client's lifecycle: not started (generation 0), running, or closed.
    conn: Connection,
    carriers: Carriers,
    router: Router,
    list: SessionList,
    calls: VecMap<CallId, PendingCall>,
    streams: Vec<Stream>,
    timers: Vec<(Instant, Timer)>,
    waits: VecMap<(String, OpId), (Token, Waits)>,
    outputs: VecDeque<Output>,
    next_id: u64,
    rng: u64,
    diag: ClientDiagnostics,
}

impl HostClient {
    pub fn new(cfg: Config) -> HostClient {
        let rng = cfg.seed | 1;
        HostClient {
            conn: Connection::new(cfg.backoff, cfg.connect_timeout_ms),
            carriers: Carriers::new(cfg.transport),
            cfg,
            now: Instant::default(),
            router: Router::new(),
            list: SessionList::default(),
            calls: VecMap::new(),
            streams: Vec::new(),
            timers: Vec::new(),
            waits: VecMap::new(),
            outputs: VecDeque::new(),
            next_id: 0,
            rng,
            diag: ClientDiagnostics::default(),
        }
    }

    // ---- accessors -----------------------------------------------------------------------

    pub fn connection(&self) -> &Connection {
        &self.conn
    }
    /// The carrier of the latest established generation.
    pub fn transport(&self) -> Option<Carrier> {
        self.carriers.active()
    }
    pub fn session(&self, id: &str) -> Option<&Session> {
        self.router.get(id)
    }
    pub fn router(&self) -> &Router {
        &self.router
    }
    /// The live session list.
    pub fn sessions(&self) -> &SessionList {
        &self.list
    }
    /// `close()` was called: no request, stream or timer is started after this.
    pub fn is_closed(&self) -> bool {
        self.conn.state() == ConnState::Closed
    }
    pub fn diagnostics(&self) -> ClientDiagnostics {
        ClientDiagnostics {
            unrouted_frames: self.router.unrouted,
            inflight_calls: self.calls.len(),
            streams: self.streams.len(),
            ..self.diag.clone()
        }
    }

    /// The next thing to do, in the order it arose.
    pub fn poll_output(&mut self) -> Option<Output> {
        self.outputs.pop_front()
    }

    /// When [`Input::Timeout`] is due next (`None`: nothing is scheduled).
    pub fn poll_timeout(&self) -> Option<Instant> {
        if self.is_closed() {
            return None;
        }
        if self.conn.generation() == 0 {
            // Not started: the first input starts it.
            return Some(self.now);
        }
        let conn = self.conn.deadline().map(Instant);
        self.timers.iter().map(|t| t.0).chain(conn).reduce(|a, b| if b < a { b } else { a })
    }

    // ---- input ---------------------------------------------------------------------------

    pub fn handle_input(&mut self, now: Instant, input: Input) {
        if now > self.now {
            self.now = now;
        }
        // The first input starts the first generation (idempotent, nothing after close).
        self.conn.start(self.now.0);
        match input {
            Input::Timeout => self.on_timeout(),
            Input::Response { call, reply } => self.on_response(call, reply),
            Input::StreamOpened { stream } => self.on_stream_opened(stream),
            Input::StreamBytes { stream, bytes } => self.on_stream_bytes(stream, &bytes),
            Input::StreamMessage { stream, text } => {
                if let Some(gen) = self.live_stream(stream) {
                    self.on_frame_text(gen, &text);
                }
            }
            Input::StreamDropped { stream } => {
                if self.live_stream(stream).is_some() {
                    self.diag.malformed_frames += 1;
                }
            }
            Input::StreamEnded { stream, why } => self.on_stream_ended(stream, why),
            Input::Ensure { session } => {
                if !self.is_closed() {
                    self.router.ensure(&session);
                }
            }
            Input::Session { token, session, op } => self.on_session_op(token, session, op),
            Input::Resync { session } => {
                let closed = self.is_closed();
                if let Some(s) = self.router.get_mut(&session).filter(|_| !closed) {
                    s.resync();
                }
            }
            Input::Host { token, call } => self.on_host_call(token, call),
            Input::Close => self.close(),
        }
        self.pump();
    }

    fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// xorshift64*: backoff jitter in `[0, 1)`.
    fn random(&mut self) -> f64 {
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        (self.rng.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn fail_generation(&mut self, gen: u64, why: GenerationEnd) {
        let rand = self.random();
        self.conn.failed(gen, why, self.now.0, rand);
    }

    /// Drains the controller's commands and every session's effects until quiet.
    fn pump(&mut self) {
        loop {
            let mut progressed = false;
            while let Some(cmd) = self.conn.poll_command() {
                progressed = true;
                self.on_conn_command(cmd);
            }
            let mut effects = Vec::new();
            for (id, s) in self.router.sessions_mut() {
                while let Some(e) = s.poll_effect() {
                    effects.push((id.clone(), e));
                }
            }
            for (id, e) in effects {
                progressed = true;
                self.on_session_effect(id, e);
            }
            if !progressed {
                break;
            }
        }
    }

    fn on_timeout(&mut self) {
        if self.is_closed() {
            return;
        }
        let rand = self.random();
        self.conn.tick(self.now.0, rand);
        let now = self.now;
        let (due, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.timers).into_iter().partition(|t| t.0 <= now);
        self.timers = later;
        for (_, timer) in due {
            match timer {
                Timer::Wake { session, token } => {
                    if let Some(s) = self.router.get_mut(&session) {
                        s.on_wake(token);
                    }
                }
                Timer::Reseed { gen } => self.seed_sessions(gen),
                Timer::Upgrade { gen, stream } => {
                    let hanging = self.stream_index(stream).map(|i| &self.streams[i]);
                    let hanging = hanging.filter(|s| s.state == StreamState::Opening).map(|s| s.kind);
                    if let Some(kind) = hanging.filter(|_| self.conn.is_current(gen)) {
                        let why = format!("upgrade not answered in {} ms", UPGRADE_TIMEOUT_MS as u64);
                        self.refused(gen, GenerationEnd::Refused { kind, why });
                    }
                }
            }
        }
    }

    // ---- the connection ------------------------------------------------------------------

    fn on_conn_command(&mut self, cmd: ConnCommand) {
        match cmd {
            ConnCommand::Connect { gen } => {
                self.list.begin(gen);
                let carrier = self.carriers.start(gen);
                self.open_streams(gen, carrier);
                self.send(CallFor::Describe { gen }, wire::HOST_DESCRIBE, &Json::empty_object());
            }
            ConnCommand::Abort { gen } => self.abort_generation(gen),
            ConnCommand::Established { gen, .. } => {
                self.carriers.established(gen);
                self.seed_sessions(gen);
                // The resync rules: every session not cold and not opened on `gen` resyncs
                // (its `Changed` effect reports it).
                self.router.established(gen);
            }
            ConnCommand::Lost { gen } => {
                self.carriers.ended(gen);
                self.router.connection_lost();
            }
            ConnCommand::Changed => self.outputs.push_back(Output::HostChanged),
        }
    }

    /// Closes every stream of `gen` and gives up its describe and ticket calls.
    fn abort_generation(&mut self, gen: u64) {
        self.close_streams(|s| s.gen == gen);
        let calls: Vec<CallId> = self
            .calls
            .iter()
            .filter(
                |(_, c)| matches!(c.what, CallFor::Describe { gen: g } | CallFor::Ticket { gen: g, .. } if g == gen),
            )
            .map(|(id, _)| *id)
            .collect();
        for call in calls {
            self.calls.remove(&call);
            self.outputs.push_back(Output::Abort { call });
        }
    }

    fn close_streams(&mut self, which: impl Fn(&Stream) -> bool) {
        let (gone, kept) = std::mem::take(&mut self.streams).into_iter().partition(|s| which(s));
        self.streams = kept;
        let gone: Vec<Stream> = gone;
        self.timers.retain(|t| !matches!(t.1, Timer::Upgrade { stream, .. } if gone.iter().any(|s| s.id == stream)));
        for s in gone {
            if s.state != StreamState::Ticketing {
                self.outputs.push_back(Output::CloseStream { stream: s.id });
            }
        }
    }

    /// Both downlinks of `gen` on `carrier` (a WebSocket with a token mints its ticket first).
    fn open_streams(&mut self, gen: u64, carrier: Carrier) {
        for kind in [StreamKind::Mux, StreamKind::Host] {
            let id = StreamId(self.next_id());
            let ticketing = carrier == Carrier::WebSocket && self.cfg.authenticated;
            let state = if ticketing { StreamState::Ticketing } else { StreamState::Opening };
            let sse = (carrier == Carrier::Sse).then(SseParser::default);
            self.streams.push(Stream { id, gen, kind, carrier, state, sse });
            if ticketing {
                self.send(CallFor::Ticket { gen, stream: id }, STREAM_TICKET, &Json::empty_object());
            } else {
                self.open_stream(gen, id, kind, carrier, None);
            }
        }
    }

    /// Asks the driver to open a downlink; a WebSocket also gets its upgrade deadline.
    fn open_stream(&mut self, gen: u64, stream: StreamId, kind: StreamKind, carrier: Carrier, ticket: Option<String>) {
        if carrier == Carrier::WebSocket {
            self.timers.push((self.now.after_ms(UPGRADE_TIMEOUT_MS), Timer::Upgrade { gen, stream }));
        }
        self.outputs.push_back(Output::OpenStream { stream, kind, carrier, ticket });
    }

    fn stream_index(&self, id: StreamId) -> Option<usize> {
        self.streams.iter().position(|s| s.id == id)
    }

    /// The generation of stream `id` if it is still wanted.
    fn live_stream(&self, id: StreamId) -> Option<u64> {
        let s = &self.streams[self.stream_index(id)?];
        (!self.is_closed() && self.conn.is_current(s.gen)).then_some(s.gen)
    }

    fn on_stream_opened(&mut self, id: StreamId) {
        let Some(gen) = self.live_stream(id) else { return };
        let i = self.stream_index(id).expect("live");
        self.streams[i].state = StreamState::Open;
        self.timers.retain(|t| !matches!(t.1, Timer::Upgrade { stream, .. } if stream == id));
        self.conn.stream_opened(gen, self.streams[i].kind);
    }

    fn on_stream_bytes(&mut self, id: StreamId, bytes: &[u8]) {
        let Some(gen) = self.live_stream(id) else { return };
        let i = self.stream_index(id).expect("live");
        let mut items = Vec::new();
        match self.streams[i].sse.as_mut() {
            Some(parser) => parser.push(bytes, &mut items),
            None => return,
        }
        for item in items {
            match item {
                SseItem::Comment(_) => {}
                SseItem::Oversize(_) => self.diag.malformed_frames += 1,
                SseItem::Data(data) => {
                    // A `stream/error` frame ends the generation: the rest is not read.
                    if !self.on_frame_text(gen, &data) {
                        return;
                    }
                }
            }
        }
    }

    /// One frame document of generation `gen`. Returns false when it ended the generation.
    fn on_frame_text(&mut self, gen: u64, data: &str) -> bool {
        match parse_frame(data) {
            Ok(inbound) => {
                self.diag.frames += 1;
                if let Frame::StreamError(f) = &inbound.frame {
                    let why = GenerationEnd::StreamError(f.error.text().to_string());
                    self.fail_generation(gen, why);
                    return false;
                }
                if self.list.on_frame(&inbound.frame) {
                    self.outputs.push_back(Output::HostChanged);
                }
                self.router.on_frame(inbound);
            }
            Err(_) => self.diag.malformed_frames += 1,
        }
        true
    }

    fn on_stream_ended(&mut self, id: StreamId, why: String) {
        let Some(gen) = self.live_stream(id) else { return };
        let i = self.stream_index(id).expect("live");
        let (kind, carrier, opened) =
            (self.streams[i].kind, self.streams[i].carrier, self.streams[i].state == StreamState::Open);
        match carrier {
            Carrier::WebSocket if !opened => self.refused(gen, GenerationEnd::Refused { kind, why }),
            _ => {
                self.fail_generation(gen, GenerationEnd::Stream { kind, websocket: carrier == Carrier::WebSocket, why })
            }
        }
    }

    /// A WebSocket of `gen` was refused (closed before it opened, or no ticket): the carrier
    /// policy says whether to reopen both streams over SSE in the same generation.
    fn refused(&mut self, gen: u64, why: GenerationEnd) {
        match self.carriers.refused(gen) {
            Some(carrier) => {
                self.close_streams(|s| s.gen == gen);
                let tickets: Vec<CallId> = self
                    .calls
                    .iter()
                    .filter(|(_, c)| matches!(c.what, CallFor::Ticket { gen: g, .. } if g == gen))
                    .map(|(id, _)| *id)
                    .collect();
                for call in tickets {
                    self.calls.remove(&call);
                    self.outputs.push_back(Output::Abort { call });
                }
                self.conn.streams_restarted(gen);
                self.open_streams(gen, carrier);
            }
            None => self.fail_generation(gen, why),
        }
    }

    fn on_ticket(&mut self, gen: u64, stream: StreamId, result: RpcResult<Json>) {
        let Some(i) = self.stream_index(stream) else { return };
        if self.is_closed() || !self.conn.is_current(gen) {
            return;
        }
        let kind = self.streams[i].kind;
        match result.map_err(|e| e.message).and_then(|v| read_ticket(&v).map_err(|e| e.to_string())) {
            Ok(ticket) => {
                let s = &mut self.streams[i];
                s.state = StreamState::Opening;
                let (kind, carrier) = (s.kind, s.carrier);
                self.open_stream(gen, stream, kind, carrier, Some(ticket));
            }
            Err(why) => self.refused(gen, GenerationEnd::Refused { kind, why }),
        }
    }

    /// Asks `session.list` to seed the live list for generation `gen`.
    fn seed_sessions(&mut self, gen: u64) {
        if !self.is_closed() && self.conn.is_current(gen) {
            self.send(CallFor::Seed { gen }, wire::SESSION_LIST, &Json::empty_object());
        }
    }

    fn on_seed(&mut self, gen: u64, result: RpcResult<Json>) {
        let items = result.and_then(|v| {
            wire::read::read::<ListValue>(v.text()).map(|l| l.items).map_err(|e| schema_error(wire::SESSION_LIST, e))
        });
        let failed = items.is_err();
        if self.list.seed(gen, items) {
            self.outputs.push_back(Output::HostChanged);
        }
        if failed && self.conn.is_current(gen) {
            self.timers.push((self.now.after_ms(RESEED_MS), Timer::Reseed { gen }));
        }
    }

    // ---- calls ---------------------------------------------------------------------------

    fn mint_rpc(&mut self) -> String {
        let n = self.next_id();
        let mut rpc = self.cfg.rpc_prefix.clone();
        rpc.push_str(&n.to_string());
        rpc
    }

    /// A host-level request `{type:'client-request', method, payload}` on `/api/<method>`.
    fn send(&mut self, what: CallFor, method: &'static str, payload: &Json) {
        let rpc = self.mint_rpc();
        let body = wire::client_request_text(&rpc, method, payload);
        self.dispatch(what, method, body, ResponseForm::Envelope { rpc_id: rpc });
    }

    fn dispatch(&mut self, what: CallFor, path: &'static str, body: String, form: ResponseForm) {
        let call = CallId(self.next_id());
        self.calls.insert(call, PendingCall { what, form, path });
        self.outputs.push_back(Output::Send { call, path, body });
    }

    /// Reads a reply in its call's form: every carrier failure is a transport error.
    fn read_reply(p: &PendingCall, reply: Reply) -> RpcResult<Json> {
        let path = p.path;
        match reply {
            Reply::Body(text) => parse_unary_response(&text, &p.form)
                .unwrap_or_else(|e| Err(RpcError::transport(format!("{path}: {e}")))),
            // Kept typed: a session tells host generations apart by it (404 for a removed method).
            Reply::Status(status) => Err(RpcError::carrier_status(status, format!("{path}: HTTP {status}"))),
            Reply::Failed(why) => Err(RpcError::transport(format!("{path}: {why}"))),
        }
    }

    fn on_response(&mut self, call: CallId, reply: Reply) {
        let Some(p) = self.calls.remove(&call) else { return };
        // A history page, the largest body read, goes through the one-pass reader.
        let reply = match (&p.what, &p.form, reply) {
            (CallFor::Session { session, req }, ResponseForm::Envelope { rpc_id }, Reply::Body(text))
                if p.path == wire::SESSION_HISTORY =>
            {
                match wire::page::history_response(&text, rpc_id) {
                    Some(page) => {
                        let closed = self.is_closed();
                        if let Some(s) = self.router.get_mut(session).filter(|_| !closed) {
                            s.on_page(*req, page);
                        }
                        return;
                    }
                    None => Reply::Body(text),
                }
            }
            (_, _, reply) => reply,
        };
        let result = Self::read_reply(&p, reply);
        match p.what {
            CallFor::Session { session, req } => {
                let closed = self.is_closed();
                if let Some(s) = self.router.get_mut(&session).filter(|_| !closed) {
                    s.on_response(req, result);
                }
            }
            CallFor::Host { token, method } => {
                let result = result.and_then(|v| checked(method, v));
                self.outputs.push_back(Output::Settle { token, settlement: Settlement::Result(result) });
            }
            CallFor::Describe { gen } => match result.and_then(|v| checked(wire::HOST_DESCRIBE, v)) {
                Ok(_) => self.conn.described(gen),
                Err(e) => self.fail_generation(gen, GenerationEnd::Describe(e.message)),
            },
            CallFor::Ticket { gen, stream } => self.on_ticket(gen, stream, result),
            CallFor::Seed { gen } => {
                if !self.is_closed() {
                    self.on_seed(gen, result.and_then(|v| checked(wire::SESSION_LIST, v)));
                }
            }
        }
    }

    // ---- sessions ------------------------------------------------------------------------

    fn on_session_op(&mut self, token: Token, id: String, op: SessionOp) {
        if self.is_closed() {
            let settlement = match op {
                SessionOp::Open | SessionOp::LoadOlder => Settlement::Done,
                SessionOp::Respond { .. } => Settlement::Receipt(transport_receipt(None)),
                _ => Settlement::Result(Err(cancelled("HostClient closed"))),
            };
            self.outputs.push_back(Output::Settle { token, settlement });
            return;
        }
        self.router.ensure(&id);
        let (op_id, waits) = match op {
            SessionOp::Open => (self.router.open(&id, self.conn.live_generation()), Waits::Done),
            other => {
                let s = self.router.get_mut(&id).expect("ensured");
                match other {
                    SessionOp::LoadOlder => (s.load_older(), Waits::Done),
                    SessionOp::Prompt { content, mode } => (s.prompt(content, mode), Waits::Result),
                    SessionOp::Cancel => (s.cancel(), Waits::Result),
                    SessionOp::SetPlanMode(active) => (s.set_plan_mode(active), Waits::Result),
                    SessionOp::Respond { key, result } => (s.respond(&key, result), Waits::Receipt),
                    SessionOp::Answer { prompt_id, answers } => (s.answer(&prompt_id, answers), Waits::Result),
                    SessionOp::Open => unreachable!("handled above"),
                }
            }
        };
        self.waits.insert((id, op_id), (token, waits));
    }

    fn on_host_call(&mut self, token: Token, call: HostCall) {
        if self.is_closed() {
            let settlement = Settlement::Result(Err(cancelled("HostClient closed")));
            self.outputs.push_back(Output::Settle { token, settlement });
            return;
        }
        let method = call.method();
        let payload = match &call {
            HostCall::Create(p) => Json::from_serialize(p),
            _ => Json::empty_object(),
        };
        self.send(CallFor::Host { token, method }, method, &payload);
    }

    fn on_session_effect(&mut self, id: String, e: Effect) {
        match e {
            Effect::Send { req, call } => {
                if self.is_closed() {
                    return;
                }
                let rpc = self.mint_rpc();
                let body = call.body(&id, &rpc);
                let form = call.response_form(&rpc);
                self.dispatch(CallFor::Session { session: id, req }, call.path(), body, form);
            }
            Effect::Settle { op, outcome } => {
                if let Some((token, waits)) = self.waits.remove(&(id, op)) {
                    self.outputs.push_back(Output::Settle { token, settlement: settlement(waits, outcome) });
                }
            }
            Effect::Changed => self.outputs.push_back(Output::SessionChanged(id)),
            Effect::Wake { token, after_ms } => {
                let at = self.now.after_ms(f64::from(after_ms));
                self.timers.push((at, Timer::Wake { session: id, token }));
            }
        }
    }

    fn close(&mut self) {
        if self.is_closed() {
            return;
        }
        self.conn.close();
        for (call, p) in self.calls.drain().collect::<Vec<_>>() {
            self.outputs.push_back(Output::Abort { call });
            if let CallFor::Host { token, .. } = p.what {
                let settlement = Settlement::Result(Err(cancelled("HostClient closed")));
                self.outputs.push_back(Output::Settle { token, settlement });
            }
        }
        for (_, s) in self.router.sessions_mut() {
            s.close();
        }
        self.pump();
        self.close_streams(|_| true);
        self.timers.clear();
        self.outputs.push_back(Output::HostChanged);
    }
}

fn cancelled(message: &str) -> RpcError {
    RpcError::with_details(ErrorCode::Cancelled, message, Json::empty_object())
}

/// A method's value checked against its schema (a failure is a transport error).
fn checked(method: &str, v: Json) -> RpcResult<Json> {
    wire::validate_value(method, &v).map_err(|e| schema_error(method, e))?;
    Ok(v)
}

/// `respond()` whose call failed on the carrier: `{accepted:false, reason:'transport', error?}`.
fn transport_receipt(error: Option<&RpcError>) -> Json {
    #[derive(Serialize)]
    struct TransportReceipt<'a> {
        accepted: bool,
        reason: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<&'a RpcError>,
    }
    Json::from_serialize(&TransportReceipt { accepted: false, reason: "transport", error })
}

fn settlement(waits: Waits, outcome: Outcome) -> Settlement {
    match (waits, outcome) {
        (Waits::Done, _) => Settlement::Done,
        (Waits::Result, Outcome::Result(r)) => Settlement::Result(r),
        (Waits::Result, Outcome::Done) => Settlement::Result(Ok(Json::null())),
        (Waits::Receipt, Outcome::Result(Ok(v))) => Settlement::Receipt(v),
        (Waits::Receipt, Outcome::Result(Err(e))) => Settlement::Receipt(transport_receipt(Some(&e))),
        (Waits::Receipt, Outcome::Done) => Settlement::Receipt(transport_receipt(None)),
    }
}
