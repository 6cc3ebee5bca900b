//! The sans-IO connection controller.
//!
//! A *generation* is one connection attempt: the mux stream, the host stream and one
//! `host.describe` call, started together. It is *established* once both streams opened and
//! `describe` answered. A stream end, a stream error, a `stream/error` frame, a failed
//! `describe` or the connect deadline ends it; the controller then schedules the next
//! generation with jittered exponential backoff.
//!
//! Time and randomness are inputs (`now`, an [`Instant`] of the driver's monotonic clock, and `rand` in `[0, 1)`), and the only outputs are
//! [`ConnCommand`]s plus one deadline ([`Connection::deadline`]) for the driver's single
//! timer, so every race is reproducible natively.

use crate::core::time::Instant;
use std::collections::VecDeque;

/// Where the connection stands, as the UI sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnState {
    /// No generation has been established yet; an attempt is in flight.
    Connecting,
    /// The current generation is established.
    Open,
    /// A generation ended (or an attempt failed): waiting for the retry timer, or retrying.
    Reconnecting,
    /// `close()` was called. Nothing happens after this.
    Closed,
}

impl ConnState {
    /// The name the UI sees (`connecting`, `open`, `reconnecting`, `closed`).
    pub fn as_str(self) -> &'static str {
        match self {
            ConnState::Connecting => "connecting",
            ConnState::Open => "open",
            ConnState::Reconnecting => "reconnecting",
            ConnState::Closed => "closed",
        }
    }
}

/// The two long-lived streams of a generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StreamKind {
    /// `events.mux`: every session's frames (events, approvals, questions, projections).
    Mux,
    /// `events.host`: host-level frames (sessions added, removed, running, agent errors).
    Host,
}

impl StreamKind {
    /// Its path under `/api/`.
    pub fn path(self) -> &'static str {
        match self {
            StreamKind::Mux => "events.mux",
            StreamKind::Host => "events.host",
        }
    }
}

/// Why a connection generation ended (shown as `lastError` in the connection snapshot).
#[derive(Debug, Clone, PartialEq)]
pub enum GenerationEnd {
    /// A downlink ended or failed after it opened, or (SSE) could not be opened.
    Stream {
        /// Which downlink.
        kind: StreamKind,
        /// It was a WebSocket (else SSE).
        websocket: bool,
        /// Why, in the carrier's words.
        why: String,
    },
    /// A WebSocket was refused before it opened and no other carrier was left to try.
    Refused {
        /// Which downlink.
        kind: StreamKind,
        /// Why, in the carrier's words.
        why: String,
    },
    /// The host sent `stream/error` (its error object, as JSON text).
    StreamError(String),
    /// `host.describe` failed (its error message).
    Describe(String),
    /// The generation was not established within the connect timeout.
    ConnectTimeout,
    /// The tab that held the shared downlinks went (the shell's many-tabs layer): the next
    /// generation starts at once and the backoff is not counted.
    Handover,
}

impl std::fmt::Display for GenerationEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GenerationEnd::Stream { kind, websocket: false, why } => write!(f, "{}: {why}", kind.path()),
            GenerationEnd::Stream { kind, websocket: true, why } => write!(f, "{}: websocket {why}", kind.path()),
            GenerationEnd::Refused { kind, why } => write!(f, "{}: websocket {why} before open", kind.path()),
            GenerationEnd::StreamError(error) => write!(f, "stream/error: {error}"),
            GenerationEnd::Describe(message) => write!(f, "host.describe failed: {message}"),
            GenerationEnd::ConnectTimeout => f.write_str("connect timeout"),
            GenerationEnd::Handover => f.write_str("handed over"),
        }
    }
}

impl std::error::Error for GenerationEnd {}

/// Backoff parameters: the n-th consecutive failure (n ≥ 1) waits a delay drawn uniformly
/// from `[cap/2, cap]` where `cap = min(max_ms, base_ms · 2^(n-1))`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Backoff {
    /// The first retry's cap, in milliseconds.
    pub base_ms: f64,
    /// No delay is longer, in milliseconds.
    pub max_ms: f64,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff { base_ms: 500.0, max_ms: 10_000.0 }
    }
}

impl Backoff {
    /// The cap for the given number of consecutive failures (`attempt ≥ 1`).
    pub fn cap(&self, attempt: u32) -> f64 {
        let exp = attempt.saturating_sub(1).min(52) as i32;
        (self.base_ms * 2f64.powi(exp)).min(self.max_ms).max(0.0)
    }

    /// The delay for `attempt` with `rand` in `[0, 1)`: uniform in `[cap/2, cap]`.
    pub fn delay(&self, attempt: u32, rand: f64) -> f64 {
        let cap = self.cap(attempt);
        let r = if rand.is_finite() { rand.clamp(0.0, 1.0) } else { 0.0 };
        cap / 2.0 + r * (cap / 2.0)
    }
}

/// What the driver must do. Commands of one generation are tagged with it; results the
/// driver reports back carry the same tag, and stale tags are ignored.
#[derive(Debug, Clone, PartialEq)]
pub enum ConnCommand {
    /// Open both streams and call `host.describe` for generation `gen`.
    Connect {
        /// The new generation.
        gen: u64,
    },
    /// Abort everything still running for `gen` (streams, describe).
    Abort {
        /// The generation to give up.
        gen: u64,
    },
    /// Generation `gen` is established. `first` = no generation was established before.
    Established {
        /// The established generation.
        gen: u64,
        /// No generation was established before (a first connect, not a reconnect).
        first: bool,
    },
    /// Generation `gen` ended (whether or not it was established): every session's
    /// connection is lost.
    Lost {
        /// The generation that ended.
        gen: u64,
    },
    /// The connection snapshot changed.
    Changed,
}

#[derive(Debug, Clone, Copy, Default)]
struct GenProgress {
    mux: bool,
    host: bool,
    described: bool,
}

impl GenProgress {
    fn established(&self) -> bool {
        self.mux && self.host && self.described
    }
}

/// Where the controller stands; each variant carries exactly what that phase needs.
#[derive(Debug, Clone, Copy)]
enum Phase {
    /// The current generation is being attempted: what of it is up, and when it times out.
    Attempting { progress: GenProgress, deadline: Instant },
    /// The current generation is established.
    Open,
    /// No generation runs: the next starts at `retry_at` (`None` before the first start).
    Waiting { retry_at: Option<Instant> },
    /// `close()` was called.
    Closed,
}

/// What has been established so far (nothing until the first generation is).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Established {
    /// Generations established so far.
    count: u64,
    /// The latest established generation.
    gen: u64,
}

/// The connection controller: one generation at a time, and the backoff between them.
#[derive(Debug)]
pub struct Connection {
    backoff: Backoff,
    /// How long a generation may take to become established before it counts as failed.
    connect_timeout_ms: f64,
    phase: Phase,
    /// The current (or last) generation's number; 0 before the first.
    generation: u64,
    /// Consecutive failed attempts; reset only when a generation is established.
    attempt: u32,
    last_error: Option<GenerationEnd>,
    established: Option<Established>,
    commands: VecDeque<ConnCommand>,
}

impl Connection {
    /// A controller that waits for [`Connection::start`].
    pub fn new(backoff: Backoff, connect_timeout_ms: f64) -> Self {
        Connection {
            backoff,
            connect_timeout_ms,
            // Before `start`: nothing runs and nothing is due.
            phase: Phase::Waiting { retry_at: None },
            generation: 0,
            attempt: 0,
            last_error: None,
            established: None,
            commands: VecDeque::new(),
        }
    }

    // ---- accessors ---------------------------------------------------------------------

    /// Where the connection stands.
    pub fn state(&self) -> ConnState {
        match self.phase {
            Phase::Closed => ConnState::Closed,
            Phase::Open => ConnState::Open,
            _ if self.established.is_some() => ConnState::Reconnecting,
            Phase::Attempting { .. } => ConnState::Connecting,
            // Waiting after a failed first attempt is reconnecting; before `start`, connecting.
            Phase::Waiting { .. } if self.generation == 0 => ConnState::Connecting,
            Phase::Waiting { .. } => ConnState::Reconnecting,
        }
    }
    /// The current (or last) generation's number; 0 before the first.
    pub fn generation(&self) -> u64 {
        self.generation
    }
    /// Consecutive failed attempts; reset when a generation is established.
    pub fn attempt(&self) -> u32 {
        self.attempt
    }
    /// When the next generation starts, while waiting for it.
    pub fn retry_at(&self) -> Option<Instant> {
        match self.phase {
            Phase::Waiting { retry_at } => retry_at,
            _ => None,
        }
    }
    /// Why the last generation ended, if one did.
    pub fn last_error(&self) -> Option<&GenerationEnd> {
        self.last_error.as_ref()
    }
    /// The backoff parameters in use.
    pub fn backoff(&self) -> Backoff {
        self.backoff
    }
    /// The generation whose streams are (or may be) running.
    pub fn live_generation(&self) -> Option<u64> {
        matches!(self.phase, Phase::Attempting { .. } | Phase::Open).then_some(self.generation)
    }
    /// Whether the live generation is established.
    pub fn is_established(&self) -> bool {
        matches!(self.phase, Phase::Open)
    }
    /// The latest established generation.
    pub fn established_gen(&self) -> Option<u64> {
        self.established.map(|e| e.gen)
    }
    /// How many generations were established so far.
    pub fn established_count(&self) -> u64 {
        self.established.map_or(0, |e| e.count)
    }
    /// Whether `gen` is the generation currently running (its frames and results count).
    pub fn is_current(&self, gen: u64) -> bool {
        self.live_generation() == Some(gen)
    }

    /// When the controller must be ticked next, if at all.
    pub fn deadline(&self) -> Option<Instant> {
        match self.phase {
            Phase::Attempting { deadline, .. } => Some(deadline),
            Phase::Waiting { .. } => self.retry_at(),
            Phase::Open | Phase::Closed => None,
        }
    }

    /// The next command for the driver, in the order they arose.
    pub fn poll_command(&mut self) -> Option<ConnCommand> {
        self.commands.pop_front()
    }

    /// Every command queued, in the order they arose.
    pub fn drain_commands(&mut self) -> Vec<ConnCommand> {
        self.commands.drain(..).collect()
    }

    // ---- inputs ------------------------------------------------------------------------

    /// Starts the first generation. Idempotent; nothing after `close()`.
    pub fn start(&mut self, now: Instant) {
        if matches!(self.phase, Phase::Closed) || self.generation != 0 {
            return;
        }
        self.connect(now);
    }

    fn connect(&mut self, now: Instant) {
        debug_assert!(self.live_generation().is_none(), "never two connections at once");
        self.generation += 1;
        self.phase =
            Phase::Attempting { progress: GenProgress::default(), deadline: now.after_ms(self.connect_timeout_ms) };
        self.commands.push_back(ConnCommand::Connect { gen: self.generation });
        self.commands.push_back(ConnCommand::Changed);
    }

    /// The attempt in progress for `gen`, if `gen` is being attempted.
    fn attempting(&mut self, gen: u64) -> Option<&mut GenProgress> {
        match &mut self.phase {
            Phase::Attempting { progress, .. } if gen == self.generation => Some(progress),
            _ => None,
        }
    }

    /// A stream of `gen` answered with a 2xx and its body is being read.
    pub fn stream_opened(&mut self, gen: u64, kind: StreamKind) {
        if let Some(p) = self.attempting(gen) {
            match kind {
                StreamKind::Mux => p.mux = true,
                StreamKind::Host => p.host = true,
            }
            self.check_established();
        }
    }

    /// The streams of `gen` are being opened again on another carrier (the first was
    /// refused): neither counts as open until it reports again. `describe` is unaffected.
    pub fn streams_restarted(&mut self, gen: u64) {
        if let Some(p) = self.attempting(gen) {
            p.mux = false;
            p.host = false;
        }
    }

    /// `host.describe` of `gen` answered successfully.
    pub fn described(&mut self, gen: u64) {
        if let Some(p) = self.attempting(gen) {
            p.described = true;
            self.check_established();
        }
    }

    fn check_established(&mut self) {
        let Phase::Attempting { progress, .. } = self.phase else { return };
        if !progress.established() {
            return;
        }
        let first = self.established.is_none();
        let count = self.established_count() + 1;
        self.established = Some(Established { count, gen: self.generation });
        self.phase = Phase::Open;
        self.attempt = 0;
        self.last_error = None;
        self.commands.push_back(ConnCommand::Established { gen: self.generation, first });
        self.commands.push_back(ConnCommand::Changed);
    }

    /// Generation `gen` failed or ended: a stream ended or threw, a `stream/error` frame
    /// arrived, or `describe` failed. Stale generations are ignored.
    pub fn failed(&mut self, gen: u64, error: GenerationEnd, now: Instant, rand: f64) {
        if !self.is_current(gen) {
            return;
        }
        self.end_generation(error, now, rand);
    }

    fn end_generation(&mut self, error: GenerationEnd, now: Instant, rand: f64) {
        let gen = self.generation;
        self.commands.push_back(ConnCommand::Abort { gen });
        self.commands.push_back(ConnCommand::Lost { gen });
        // A handover is not a failure of the host: no delay, no attempt counted.
        let delay = if matches!(error, GenerationEnd::Handover) {
            0.0
        } else {
            self.attempt = self.attempt.saturating_add(1);
            self.backoff.delay(self.attempt, rand)
        };
        self.phase = Phase::Waiting { retry_at: Some(now.after_ms(delay)) };
        self.last_error = Some(error);
        self.commands.push_back(ConnCommand::Changed);
    }

    /// The driver's timer fired (or any time at all: early calls are harmless).
    pub fn tick(&mut self, now: Instant, rand: f64) {
        match self.phase {
            Phase::Waiting { retry_at: Some(at) } if now >= at && self.generation > 0 => self.connect(now),
            Phase::Attempting { deadline, .. } if now >= deadline => {
                self.end_generation(GenerationEnd::ConnectTimeout, now, rand)
            }
            _ => {}
        }
    }

    /// Stops everything. Nothing happens after this.
    pub fn close(&mut self) {
        if matches!(self.phase, Phase::Closed) {
            return;
        }
        if let Some(gen) = self.live_generation() {
            self.commands.push_back(ConnCommand::Abort { gen });
            self.commands.push_back(ConnCommand::Lost { gen });
        }
        self.phase = Phase::Closed;
        self.commands.push_back(ConnCommand::Changed);
    }
}
