//! The adversarial network between the client and the model host.
//!
//! - Unary requests wait until the host "processes" them (in any order); their responses
//!   then wait to be delivered (in any order, interleaved with mux frames).
//! - A request can be lost before the host sees it, or its response lost after the host
//!   acted on it; either way the client gets a carrier failure, so every request is
//!   answered exactly once. Or its answer never comes at all (a host or proxy that holds
//!   it open): then nothing but the client's own deadline ends it, through its timer table.
//! - The mux stream is ordered, but the adversary may drop event frames (gaps) and
//!   re-deliver old ones (duplicates). A disconnect ends the stream; the client's next
//!   connection generation opens a new one, which starts with `session/subscribed {lastSeq}`
//!   for every session.

use super::model_host::Meta;
use agent_session::core::client::{CallId, Carrier, StreamId, StreamKind};
use agent_session::core::session::Call;
use agent_session::core::wire::{InboundFrame, RpcResult};
use serde_json::Value;
use std::collections::VecDeque;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Will be processed and answered.
    Normal,
    /// Never reaches the host: answered by a carrier failure.
    LostBeforeHost,
    /// The host acts on it but the response is lost: answered by a carrier failure.
    LostAfterHost,
    /// The host acts on it and never answers: the network reports nothing, ever.
    Unanswered,
}

/// What a request asks, read back from the body the client wrote.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// A session call of session `sim` (index into the world's sessions).
    Session {
        sim: usize,
        call: Call,
    },
    Describe,
    List,
}

#[derive(Debug, Clone)]
pub struct Request {
    pub id: CallId,
    /// The envelope rpcId to echo (`None`: `/api/respond`, answered with a bare receipt).
    pub rpc_id: Option<String>,
    pub target: Target,
    pub fate: Fate,
    /// When the client sent it (the world's clock).
    pub sent_at: f64,
}

impl Request {
    pub fn call(&self) -> Option<&Call> {
        match &self.target {
            Target::Session { call, .. } => Some(call),
            _ => None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Response {
    pub id: CallId,
    pub rpc_id: Option<String>,
    pub target: Target,
    /// `Err` with `lost`: a carrier failure, not an error envelope.
    pub result: RpcResult<Value>,
    pub lost: bool,
    pub meta: Meta,
    /// A body handed over in pieces (as fetch chunks arrive), other steps between them: its
    /// text and the bytes handed over so far.
    pub streamed: Option<(String, usize)>,
}

impl Response {
    pub fn call(&self) -> Option<&Call> {
        match &self.target {
            Target::Session { call, .. } => Some(call),
            _ => None,
        }
    }
}

/// Where the client's current connection generation stands, as the host sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conn {
    /// No mux stream is open.
    Down,
    /// The mux is open and delivering frames; the generation is not yet established.
    Opening,
    Established,
}

#[derive(Debug, Clone)]
pub struct Tagged {
    pub frame: InboundFrame,
    /// The session the frame belongs to (index into the world's sessions).
    pub sim: usize,
    pub meta: Meta,
}

/// A downlink the client asked for.
#[derive(Debug, Clone, Copy)]
pub struct Downlink {
    pub id: StreamId,
    pub kind: StreamKind,
    pub carrier: Carrier,
    /// The host answered it (reported to the client as opened).
    pub open: bool,
}

#[derive(Debug)]
pub struct Network {
    pub requests: Vec<Request>,
    pub responses: Vec<Response>,
    pub downlinks: Vec<Downlink>,
    /// Calls whose answer never comes, with the instant each was sent: the client must give
    /// each up by its deadline (its `Output::Abort`).
    pub hung: Vec<(CallId, f64)>,
    /// Calls the client gave up because no answer came by their deadline.
    pub timed_out: u64,
    /// Disconnects that were a handover (a lent socket closed with code 0).
    pub handovers: u64,
    /// Frames of the current mux stream not yet delivered, in stream order.
    pub stream: VecDeque<Tagged>,
    /// Event frames already delivered on this mux stream (duplicate candidates).
    pub delivered: Vec<Tagged>,
    pub frame_ids: u64,
    /// Mux streams opened so far (each new one is a new connection on the host).
    pub conn_gen: u64,
}

impl Network {
    pub fn new() -> Self {
        Network {
            requests: Vec::new(),
            responses: Vec::new(),
            downlinks: Vec::new(),
            hung: Vec::new(),
            timed_out: 0,
            handovers: 0,
            stream: VecDeque::new(),
            delivered: Vec::new(),
            frame_ids: 0,
            conn_gen: 0,
        }
    }

    pub fn next_rpc_id(&mut self) -> String {
        self.frame_ids += 1;
        format!("srv-{}-{}", self.conn_gen, self.frame_ids)
    }

    /// The open mux stream, if any.
    pub fn mux(&self) -> Option<Downlink> {
        self.downlinks.iter().copied().find(|d| d.kind == StreamKind::Mux && d.open)
    }

    pub fn remember_delivered(&mut self, t: Tagged) {
        if self.delivered.len() >= 48 {
            self.delivered.remove(0);
        }
        self.delivered.push(t);
    }
}
