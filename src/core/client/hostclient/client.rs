//! The host client's state and its driving loop: construction, accessors, `handle_input`,
//! the pump that drains the controller and the sessions, timeouts and close. The input
//! handlers live beside it by concern (`calls`, `downlinks`, `retention`).

use super::io::*;
use crate::core::client::carrier::{Carrier, Carriers};
use crate::core::client::connection::{ConnState, Connection, GenerationEnd, StreamKind};
use crate::core::client::router::Router;
use crate::core::client::sessions::SessionList;
use crate::core::client::timers::TimerTable;
use crate::core::session::{OpId, PageReader, ReqId, Session, WakeToken};
use crate::core::sse::SseParser;
use crate::core::vecmap::VecMap;
use crate::core::wire::{ErrorCode, Json, ResponseForm, RpcError};
use std::collections::VecDeque;

/// What a call in flight answers.
#[derive(Debug)]
pub(super) enum CallFor {
    /// A session request: the result goes back to the session under `req`.
    Session { session: String, req: ReqId },
    /// `host.call` (its result settles as the host wrote it).
    Call { handle: OpHandle },
    /// `host.describe` of a generation (part of establishing it).
    Describe { gen: u64 },
    /// The upgrade ticket of one WebSocket downlink.
    Ticket { gen: u64, stream: StreamId },
    /// `session.list` seeding the live list for a generation.
    Seed { gen: u64 },
}

#[derive(Debug)]
pub(super) struct PendingCall {
    pub(super) what: CallFor,
    pub(super) form: ResponseForm,
    pub(super) path: String,
    /// The body as it has arrived ([`Input::ResponseBytes`]).
    pub(super) body: Body,
    /// Bytes of the body received so far (held against [`Config::max_response_bytes`]).
    pub(super) received: u64,
}

/// A reply body arriving in pieces.
pub(super) enum Body {
    /// Kept whole, read when it ends (every reply but a history page; all small).
    Bytes(Vec<u8>),
    /// A history page, read item by item as it arrives.
    Page(Box<PageReader>),
}

impl std::fmt::Debug for Body {
    /// Its size only (no formatting code for a reader's internals in the wasm).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Body::Bytes(b) => write!(f, "{} bytes", b.len()),
            Body::Page(_) => f.write_str("a page"),
        }
    }
}

/// A downlink's progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StreamState {
    /// A WebSocket waiting for its ticket call.
    Ticketing,
    /// Asked for; not open yet.
    Opening,
    Open,
}

#[derive(Debug)]
pub(super) struct Stream {
    pub(super) id: StreamId,
    pub(super) gen: u64,
    pub(super) kind: StreamKind,
    pub(super) carrier: Carrier,
    pub(super) state: StreamState,
    /// SSE bodies only: frames split across chunks.
    pub(super) sse: Option<SseParser>,
}

/// The keys of the one timer table: what a deadline is for. Setting a key replaces its
/// deadline; a deadline nobody wants any more is cancelled.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Timer {
    /// The connection controller's deadline (connect timeout, or the next attempt): a mirror
    /// of [`Connection::deadline`], set after every input.
    Connection,
    /// A session asked to be woken (retry of a failed plan query or repair).
    Wake { session: String, token: WakeToken },
    /// Ask `session.list` again for generation `gen`.
    Reseed { gen: u64 },
    /// A WebSocket of `gen` that has neither opened nor failed by now counts as refused (a
    /// proxy that swallows the upgrade must not cost the whole connect timeout).
    Upgrade { gen: u64, stream: StreamId },
    /// Apply the retention rule again (a warm session's grace ends).
    Sweep,
    /// A unary call not answered by now is given up ([`Config::request_timeout_ms`]).
    Call(CallId),
}

/// Operations waiting for their session to settle them: (session, op) → (handle, kind).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Waits {
    Done,
    Result,
    Receipt,
}

/// The sans-IO host client (see the module documentation for the driving loop).
#[derive(Debug)]
pub struct HostClient {
    pub(super) cfg: Config,
    pub(super) now: Instant,
    /// Also the client's lifecycle: not started (generation 0), running, or closed.
    pub(super) conn: Connection,
    pub(super) carriers: Carriers,
    pub(super) router: Router,
    pub(super) list: SessionList,
    pub(super) calls: VecMap<CallId, PendingCall>,
    /// The host's last `host.describe` was the seed's (no `canOpenPath`, which every
    /// 2026-08 description has). Invariant: while it is, no call of a method outside
    /// [`wire::SEED_METHODS`](crate::core::wire::SEED_METHODS) reaches the wire; each is
    /// refused as its 404 would be, since a browser reports every failed request as a console
    /// error. Before the first description nothing is known, and every call is sent.
    pub(super) seed_host: bool,
    pub(super) streams: Vec<Stream>,
    pub(super) timers: TimerTable<Timer>,
    pub(super) waits: VecMap<(String, OpId), (OpHandle, Waits)>,
    pub(super) outputs: VecDeque<Output>,
    pub(super) next_id: u64,
    pub(super) rng: u64,
    pub(super) diag: ClientDiagnostics,
    /// Something the retention rule depends on changed during this input.
    pub(super) sweep_due: bool,
}

impl HostClient {
    /// A client for `cfg`: nothing starts until its first input.
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
            seed_host: false,
            streams: Vec::new(),
            timers: TimerTable::default(),
            waits: VecMap::new(),
            outputs: VecDeque::new(),
            next_id: 0,
            rng,
            diag: ClientDiagnostics::default(),
            sweep_due: false,
        }
    }

    // ---- accessors -----------------------------------------------------------------------

    /// The connection controller, for the snapshot.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }
    /// The carrier of the latest established generation.
    pub fn transport(&self) -> Option<Carrier> {
        self.carriers.active()
    }
    /// The resident session `id`, if any.
    pub fn session(&self, id: &str) -> Option<&Session> {
        self.router.get(id)
    }
    /// The resident sessions and the frames held for others.
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
    /// Counters of what was read, dropped and held.
    pub fn diagnostics(&self) -> ClientDiagnostics {
        ClientDiagnostics {
            unrouted_frames: self.router.unrouted,
            stashed_sessions: self.router.stashed().0,
            stashed_bytes: self.router.stashed().1,
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
        // Closed, or not started (nothing is due before the input that starts it): no timer.
        if self.is_closed() || self.conn.generation() == 0 {
            return None;
        }
        self.timers.next()
    }

    // ---- input ---------------------------------------------------------------------------

    /// Feeds one input at `now` (a time before the last one seen counts as the last one).
    pub fn handle_input(&mut self, now: Instant, input: Input) {
        if now > self.now {
            self.now = now;
        }
        // The first input starts the first generation (idempotent, nothing after close), but
        // for making a session resident or closing: a client that is only read (a server
        // render: `host.session(id)` and snapshots) never connects.
        if !matches!(input, Input::Ensure { .. } | Input::Close) {
            self.conn.start(self.now);
        }
        match input {
            Input::Timeout => self.on_timeout(),
            Input::Response { call, reply } => self.on_response(call, reply),
            Input::ResponseBytes { call, bytes } => self.on_response_bytes(call, &bytes),
            Input::StreamOpened { stream } => self.on_stream_opened(stream),
            Input::StreamBytes { stream, bytes } => self.on_stream_bytes(stream, &bytes),
            Input::StreamMessage { stream, text } => {
                if let Some((_, gen)) = self.live_stream(stream) {
                    if text.len() <= MAX_MESSAGE_BYTES {
                        self.on_frame_text(gen, &text);
                    } else {
                        self.diag.malformed_frames += 1;
                    }
                }
            }
            // A binary or overlong message: dropped and counted like a malformed frame.
            Input::StreamSkipped { stream, .. } => {
                if self.live_stream(stream).is_some() {
                    self.diag.malformed_frames += 1;
                }
            }
            Input::StreamEnded { stream, why } => self.on_stream_ended(stream, why),
            // Code 0 is never a WebSocket's (a browser reports 1000-4999, 1005 or 1006): the
            // shell's many-tabs layer closes a borrowed downlink with it when its leader went.
            Input::StreamClosed { stream, code: Some(0) } => {
                if let Some((_, gen)) = self.live_stream(stream) {
                    self.fail_generation(gen, GenerationEnd::Handover);
                }
            }
            Input::StreamClosed { stream, code } => self.on_stream_ended(stream, close_words(code)),
            Input::Ensure { session } => {
                if !self.is_closed() {
                    self.router.ensure(&session);
                }
            }
            Input::Session { handle, session, op } => self.on_session_op(handle, session, op),
            Input::Watch { session, listeners } => self.on_watch(&session, listeners),
            Input::Resync { session } => {
                if !self.is_closed() {
                    self.router.resync(&session);
                }
            }
            Input::Host { handle, call } => self.on_host_call(handle, call),
            Input::Abandon { handle } => self.on_abandon(handle),
            Input::Close => self.close(),
        }
        self.pump();
        if std::mem::take(&mut self.sweep_due) {
            self.sweep();
            self.pump();
        }
        let deadline = self.conn.deadline().filter(|_| !self.is_closed());
        self.timers.set_or_cancel(Timer::Connection, deadline);
    }

    pub(super) fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// xorshift64*: backoff jitter in `[0, 1)`.
    pub(super) fn random(&mut self) -> f64 {
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        (self.rng.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }

    pub(super) fn fail_generation(&mut self, gen: u64, why: GenerationEnd) {
        let rand = self.random();
        self.conn.failed(gen, why, self.now, rand);
    }

    /// Drains the controller's commands and every session's effects until quiet.
    pub(super) fn pump(&mut self) {
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
        self.conn.tick(self.now, rand);
        for timer in self.timers.take_due(self.now) {
            match timer {
                Timer::Connection => {} // ticked above; set again after this input
                Timer::Wake { session, token } => {
                    if let Some(s) = self.router.get_mut(&session) {
                        s.on_wake(token);
                    }
                }
                Timer::Reseed { gen } => self.seed_sessions(gen),
                Timer::Call(call) => {
                    let why = format!("timed out after {} ms", self.cfg.request_timeout_ms as u64);
                    self.give_up(call, why);
                }
                Timer::Sweep => self.sweep_due = true,
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

    fn close(&mut self) {
        if self.is_closed() {
            return;
        }
        self.conn.close();
        // Every call is given up: no reply is read after this.
        for (call, p) in std::mem::take(&mut self.calls) {
            self.outputs.push_back(Output::Abort { call });
            if let CallFor::Call { handle } = p.what {
                let settlement = Settlement::Result(Err(cancelled("HostClient closed")));
                self.outputs.push_back(Output::Settle { handle, settlement });
            }
        }
        for (_, s) in self.router.sessions_mut() {
            s.close();
        }
        self.pump();
        self.close_streams(&|_| true);
        self.timers.clear();
        self.outputs.push_back(Output::HostChanged);
    }
}

/// The error an operation settles with when the client gives it up.
pub(super) fn cancelled(message: &str) -> RpcError {
    RpcError::with_details(ErrorCode::Cancelled, message, Json::empty_object())
}

/// Why a WebSocket ended, from its `close` event's code (`None`: its `error` event). The
/// close reason is the host's free text and is not shown.
fn close_words(code: Option<u16>) -> String {
    match code {
        // As a `u32`: the `u16` formatter would be one more in the module.
        Some(code) => format!("closed ({})", u32::from(code)),
        None => "error".into(),
    }
}
