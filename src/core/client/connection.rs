//! The sans-IO connection controller.
//!
//! A *generation* is one connection attempt: the mux stream, the host stream and one
//! `host.describe` call, started together. It is *established* once both streams opened and
//! `describe` answered. A stream end, a stream error, a `stream/error` frame, a failed
//! `describe` or the connect deadline ends it; the controller then schedules the next
//! generation with jittered exponential backoff.
//!
//! Time and randomness are inputs (`now_ms`, `rand` in `[0, 1)`), and the only outputs are
//! [`ConnCommand`]s plus one deadline ([`Connection::deadline`]) for the driver's single
//! timer, so every race is reproducible natively.

use std::collections::VecDeque;

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
    Mux,
    Host,
}

impl StreamKind {
    pub fn path(self) -> &'static str {
        match self {
            StreamKind::Mux => "events.mux",
            StreamKind::Host => "events.host",
        }
    }
}

/// Backoff parameters: the n-th consecutive failure (n ≥ 1) waits a delay drawn uniformly
/// from `[cap/2, cap]` where `cap = min(max_ms, base_ms · 2^(n-1))`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Backoff {
    pub base_ms: f64,
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
    Connect { gen: u64 },
    /// Abort everything still running for `gen` (streams, describe).
    Abort { gen: u64 },
    /// Generation `gen` is established. `first` = no generation was established before.
    Established { gen: u64, first: bool },
    /// Generation `gen` ended (whether or not it was established): every session's
    /// connection is lost.
    Lost { gen: u64 },
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

#[derive(Debug)]
pub struct Connection {
    backoff: Backoff,
    /// How long a generation may take to become established before it counts as failed.
    connect_timeout_ms: f64,
    state: ConnState,
    generation: u64,
    /// Consecutive failed attempts; reset only when a generation is established.
    attempt: u32,
    retry_at: Option<f64>,
    last_error: Option<String>,
    /// The generation in flight or established; `None` while waiting for the timer.
    live: Option<GenProgress>,
    connect_deadline: Option<f64>,
    established_once: bool,
    /// Number of generations established so far.
    established_count: u64,
    /// Generation number of the latest established generation.
    established_gen: Option<u64>,
    commands: VecDeque<ConnCommand>,
}

impl Connection {
    pub fn new(backoff: Backoff, connect_timeout_ms: f64) -> Self {
        Connection {
            backoff,
            connect_timeout_ms,
            state: ConnState::Connecting,
            generation: 0,
            attempt: 0,
            retry_at: None,
            last_error: None,
            live: None,
            connect_deadline: None,
            established_once: false,
            established_count: 0,
            established_gen: None,
            commands: VecDeque::new(),
        }
    }

    // ---- accessors ---------------------------------------------------------------------

    pub fn state(&self) -> ConnState {
        self.state
    }
    pub fn generation(&self) -> u64 {
        self.generation
    }
    pub fn attempt(&self) -> u32 {
        self.attempt
    }
    pub fn retry_at(&self) -> Option<f64> {
        self.retry_at
    }
    pub fn last_error(&self) -> Option<&str> {
        self.last_error.as_deref()
    }
    pub fn backoff(&self) -> Backoff {
        self.backoff
    }
    /// The generation whose streams are (or may be) running.
    pub fn live_generation(&self) -> Option<u64> {
        self.live.map(|_| self.generation)
    }
    /// Whether the live generation is established.
    pub fn is_established(&self) -> bool {
        self.state == ConnState::Open
    }
    pub fn established_gen(&self) -> Option<u64> {
        self.established_gen
    }
    pub fn established_count(&self) -> u64 {
        self.established_count
    }
    /// Whether `gen` is the generation currently running (its frames and results count).
    pub fn is_current(&self, gen: u64) -> bool {
        self.live.is_some() && gen == self.generation && self.state != ConnState::Closed
    }

    /// When the driver's single timer must fire next (epoch ms), if at all.
    pub fn deadline(&self) -> Option<f64> {
        match self.state {
            ConnState::Closed | ConnState::Open => None,
            _ => self.retry_at.or(self.connect_deadline),
        }
    }

    pub fn poll_command(&mut self) -> Option<ConnCommand> {
        self.commands.pop_front()
    }

    pub fn drain_commands(&mut self) -> Vec<ConnCommand> {
        self.commands.drain(..).collect()
    }

    // ---- inputs ------------------------------------------------------------------------

    /// Starts the first generation. Idempotent; nothing after `close()`.
    pub fn start(&mut self, now_ms: f64) {
        if self.state == ConnState::Closed || self.generation != 0 {
            return;
        }
        self.connect(now_ms);
    }

    fn connect(&mut self, now_ms: f64) {
        debug_assert!(self.live.is_none(), "never two connections at once");
        self.generation += 1;
        self.live = Some(GenProgress::default());
        self.retry_at = None;
        self.connect_deadline = Some(now_ms + self.connect_timeout_ms);
        self.state = if self.established_once { ConnState::Reconnecting } else { ConnState::Connecting };
        self.commands.push_back(ConnCommand::Connect { gen: self.generation });
        self.commands.push_back(ConnCommand::Changed);
    }

    /// A stream of `gen` answered with a 2xx and its body is being read.
    pub fn stream_opened(&mut self, gen: u64, kind: StreamKind) {
        if !self.is_current(gen) {
            return;
        }
        if let Some(p) = self.live.as_mut() {
            match kind {
                StreamKind::Mux => p.mux = true,
                StreamKind::Host => p.host = true,
            }
        }
        self.check_established();
    }

    /// The streams of `gen` are being opened again on another carrier (the first was
    /// refused): neither counts as open until it reports again. `describe` is unaffected.
    pub fn streams_restarted(&mut self, gen: u64) {
        if !self.is_current(gen) || self.state == ConnState::Open {
            return;
        }
        if let Some(p) = self.live.as_mut() {
            p.mux = false;
            p.host = false;
        }
    }

    /// `host.describe` of `gen` answered successfully.
    pub fn described(&mut self, gen: u64) {
        if !self.is_current(gen) {
            return;
        }
        if let Some(p) = self.live.as_mut() {
            p.described = true;
        }
        self.check_established();
    }

    fn check_established(&mut self) {
        let Some(p) = self.live else { return };
        if self.state == ConnState::Open || !p.established() {
            return;
        }
        let first = !self.established_once;
        self.established_once = true;
        self.established_count += 1;
        self.established_gen = Some(self.generation);
        self.state = ConnState::Open;
        self.attempt = 0;
        self.retry_at = None;
        self.connect_deadline = None;
        self.last_error = None;
        self.commands.push_back(ConnCommand::Established { gen: self.generation, first });
        self.commands.push_back(ConnCommand::Changed);
    }

    /// Generation `gen` failed or ended: a stream ended or threw, a `stream/error` frame
    /// arrived, or `describe` failed. Stale generations are ignored.
    pub fn failed(&mut self, gen: u64, error: impl Into<String>, now_ms: f64, rand: f64) {
        if !self.is_current(gen) {
            return;
        }
        self.end_generation(error.into(), now_ms, rand);
    }

    fn end_generation(&mut self, error: String, now_ms: f64, rand: f64) {
        let gen = self.generation;
        self.live = None;
        self.connect_deadline = None;
        self.commands.push_back(ConnCommand::Abort { gen });
        self.commands.push_back(ConnCommand::Lost { gen });
        self.attempt = self.attempt.saturating_add(1);
        let delay = self.backoff.delay(self.attempt, rand);
        self.retry_at = Some(now_ms + delay);
        self.last_error = Some(error);
        self.state = ConnState::Reconnecting;
        self.commands.push_back(ConnCommand::Changed);
    }

    /// The driver's timer fired (or any time at all: early calls are harmless).
    pub fn tick(&mut self, now_ms: f64, rand: f64) {
        match self.state {
            ConnState::Closed | ConnState::Open => {}
            _ => {
                if let Some(at) = self.retry_at {
                    if now_ms >= at && self.live.is_none() {
                        self.connect(now_ms);
                    }
                } else if let Some(deadline) = self.connect_deadline {
                    if now_ms >= deadline && self.live.is_some() {
                        self.end_generation("connect timeout".into(), now_ms, rand);
                    }
                }
            }
        }
    }

    /// Stops everything. Nothing happens after this.
    pub fn close(&mut self) {
        if self.state == ConnState::Closed {
            return;
        }
        if self.live.take().is_some() {
            self.commands.push_back(ConnCommand::Abort { gen: self.generation });
            self.commands.push_back(ConnCommand::Lost { gen: self.generation });
        }
        self.state = ConnState::Closed;
        self.retry_at = None;
        self.connect_deadline = None;
        self.commands.push_back(ConnCommand::Changed);
    }
}
