//! The adversarial network between the client and the model host.
//!
//! - Unary requests wait until the host "processes" them (in any order); their responses
//!   then wait to be delivered (in any order, interleaved with mux frames).
//! - A request can be lost before the host sees it, or its response lost after the host
//!   acted on it; either way the client eventually gets a transport error (the shell's
//!   timeout), so every request is answered exactly once.
//! - The mux stream is ordered, but the adversary may drop event frames (gaps) and
//!   re-deliver old ones (duplicates). A disconnect discards the rest of the stream; a
//!   reconnect starts a new one with `session/subscribed {lastSeq}`.

use super::model_host::Meta;
use agent_session::core::session::{Call, ReqId};
use agent_session::core::wire::{InboundFrame, RpcResult};
use serde_json::Value;
use std::collections::VecDeque;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Will be processed and answered.
    Normal,
    /// Never reaches the host: answered by a transport error.
    LostBeforeHost,
    /// The host acts on it but the response is lost: answered by a transport error.
    LostAfterHost,
}

#[derive(Debug, Clone)]
pub struct Request {
    pub req: ReqId,
    pub call: Call,
    pub fate: Fate,
}

#[derive(Debug, Clone)]
pub struct Response {
    pub req: ReqId,
    pub result: RpcResult<Value>,
    pub meta: Meta,
    /// What it answers (for scripted scenarios and traces).
    pub call: Call,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conn {
    Down,
    /// The mux is open and delivering frames; the connection generation is not yet
    /// established (the driver has not resynced sessions yet).
    Opening,
    Established,
}

#[derive(Debug, Clone)]
pub struct Tagged {
    pub frame: InboundFrame,
    pub meta: Meta,
}

#[derive(Debug)]
pub struct Network {
    pub requests: Vec<Request>,
    pub responses: Vec<Response>,
    pub conn: Conn,
    pub conn_gen: u64,
    /// Frames of the current connection not yet delivered, in stream order.
    pub stream: VecDeque<Tagged>,
    /// Event frames already delivered on this connection (duplicate candidates).
    pub delivered: Vec<Tagged>,
    pub frame_ids: u64,
}

impl Network {
    pub fn new() -> Self {
        Network {
            requests: Vec::new(),
            responses: Vec::new(),
            conn: Conn::Down,
            conn_gen: 0,
            stream: VecDeque::new(),
            delivered: Vec::new(),
            frame_ids: 0,
        }
    }

    pub fn next_rpc_id(&mut self) -> String {
        self.frame_ids += 1;
        format!("srv-{}-{}", self.conn_gen, self.frame_ids)
    }

    #[allow(dead_code)]
    pub fn is_quiet(&self) -> bool {
        self.requests.is_empty() && self.responses.is_empty() && self.stream.is_empty()
    }

    pub fn remember_delivered(&mut self, t: Tagged) {
        if self.delivered.len() >= 48 {
            self.delivered.remove(0);
        }
        self.delivered.push(t);
    }
}
