//! Which carrier a generation's two downlinks use: WebSocket or SSE over `fetch`.
//!
//! The connection controller does not know about carriers; the driver asks [`Carriers`] at
//! every `Connect` and reports what happened. Policy for `auto`:
//!
//! - Until some generation has been established, every generation tries WebSocket first and,
//!   when a socket is refused (closed or errored before it opened, or its ticket could not be
//!   minted), reopens both streams over SSE *within the same generation*, so reaching an
//!   SSE-only host costs no backoff delay.
//! - The carrier that established a generation is kept for every later generation.
//! - After [`REPROBE_AFTER`] consecutive generations fail to establish on the kept carrier, it
//!   is forgotten and the next generation probes again (WebSocket, then SSE). A host that was
//!   down keeps being probed both ways; a host replaced by one that speaks only the other
//!   carrier is reached again after a few attempts.
//!
//! A forced carrier (`'websocket'`, `'sse'`) is always used and never falls back.

/// A downlink carrier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carrier {
    /// A WebSocket per downlink, one frame document per message.
    WebSocket,
    /// Server-Sent Events over a streaming `fetch`.
    Sse,
}

impl Carrier {
    /// The name the JS API reports (`HostClient.getSnapshot().transport`).
    pub fn as_str(self) -> &'static str {
        match self {
            Carrier::WebSocket => "websocket",
            Carrier::Sse => "sse",
        }
    }
}

/// The `transport` option.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Transport {
    /// WebSocket first, SSE when it is refused (see the module docs).
    #[default]
    Auto,
    /// This carrier only, never falling back.
    Only(Carrier),
}

impl Transport {
    /// `'auto' | 'websocket' | 'sse'`; anything else is `None`.
    pub fn parse(s: &str) -> Option<Transport> {
        match s {
            "auto" => Some(Transport::Auto),
            "websocket" => Some(Transport::Only(Carrier::WebSocket)),
            "sse" => Some(Transport::Only(Carrier::Sse)),
            _ => None,
        }
    }
}

/// Consecutive unestablished generations on the kept carrier before it is forgotten.
pub const REPROBE_AFTER: u32 = 3;

/// The carrier policy of one client: which carrier each generation uses (see the module docs).
#[derive(Debug, Default)]
pub struct Carriers {
    transport: Transport,
    /// `auto`: the carrier that established a generation, kept until [`REPROBE_AFTER`] misses.
    kept: Option<Carrier>,
    misses: u32,
    /// The running generation, its carrier, and whether it was established.
    gen: u64,
    current: Option<Carrier>,
    established: bool,
    /// The carrier of the latest established generation.
    active: Option<Carrier>,
}

impl Carriers {
    /// The policy for the `transport` option.
    pub fn new(transport: Transport) -> Self {
        Carriers { transport, ..Carriers::default() }
    }

    /// The carrier of the latest established generation (`None` before the first).
    pub fn active(&self) -> Option<Carrier> {
        self.active
    }

    /// The carrier `auto` keeps for now, if any.
    pub fn kept(&self) -> Option<Carrier> {
        self.kept
    }

    /// The carrier the streams of `gen` are currently opened on.
    pub fn current(&self, gen: u64) -> Option<Carrier> {
        self.current.filter(|_| gen == self.gen)
    }

    /// The controller started generation `gen`: the carrier its streams open on.
    pub fn start(&mut self, gen: u64) -> Carrier {
        let carrier = match self.transport {
            Transport::Only(c) => c,
            Transport::Auto => self.kept.unwrap_or(Carrier::WebSocket),
        };
        self.gen = gen;
        self.current = Some(carrier);
        self.established = false;
        carrier
    }

    /// A stream of `gen` was refused before it opened. `Some(carrier)`: reopen both streams of
    /// `gen` on it; `None`: the generation fails.
    pub fn refused(&mut self, gen: u64) -> Option<Carrier> {
        let probing = self.transport == Transport::Auto && self.kept.is_none();
        if gen != self.gen || self.established || !probing || self.current != Some(Carrier::WebSocket) {
            return None;
        }
        self.current = Some(Carrier::Sse);
        self.current
    }

    /// Generation `gen` was established.
    pub fn established(&mut self, gen: u64) {
        if gen != self.gen || self.current.is_none() {
            return;
        }
        self.established = true;
        self.active = self.current;
        self.misses = 0;
        if self.transport == Transport::Auto {
            self.kept = self.current;
        }
    }

    /// Generation `gen` ended (established or not).
    pub fn ended(&mut self, gen: u64) {
        if gen != self.gen || self.current.take().is_none() {
            return;
        }
        if !self.established && self.kept.is_some() {
            self.misses += 1;
            if self.misses >= REPROBE_AFTER {
                self.kept = None;
                self.misses = 0;
            }
        }
    }
}
