//! The outbox: prompts the user made that the host's log does not show yet.
//!
//! A prompt is shown at once (its echo, a user node keyed by its client-minted id), waits
//! while the connection is down, and is sent when it is back, one at a time and in the order
//! made. Its id is the envelope `rpcId` of every request that sends it, so the host's
//! `user/message` (whose `source.rpcId` it is) replaces the echo, and a look-up of the host's
//! tail page tells whether a request that got no answer was delivered.

use super::io::OpId;
use super::nodes::{Node, NodeKind};
use super::retry_state::Retry;
use crate::core::wire::{self, ErrorCode, Json, PromptMode, RpcError};
use std::rc::Rc;

/// Whether `needle` occurs in `hay`: a plain window scan, not `str::contains` (its two-way
/// searcher was 1.2 KB of wasm for these few short texts: a queue frame, a source, details).
pub(super) fn has(hay: &str, needle: &str) -> bool {
    let n = needle.as_bytes();
    n.is_empty() || hay.as_bytes().windows(n.len()).any(|w| w == n)
}

/// At most this many prompts wait (not yet accepted by the host) per session.
pub const MAX_OUTBOX_PROMPTS: usize = 64;
/// At most this many bytes of prompt content wait per session.
pub const MAX_OUTBOX_BYTES: usize = 4 << 20;
/// Accepted prompts whose event has not been seen are kept (shown as `sent`) up to this many.
pub(super) const MAX_SENT_KEPT: usize = 64;

/// Where a prompt of the outbox stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Delivery {
    /// Not sent yet, or to be sent again (the connection is down, or its last request got no
    /// answer).
    Waiting,
    /// A request for it is in flight.
    Sending,
    /// The host accepted it (its answer, or its rpcId found in the host's log or queue); its
    /// event has not been seen yet.
    Sent,
    /// The host refused it; kept until `retry` or `discard`.
    Failed(RpcError),
}

impl Delivery {
    /// The name the UI sees.
    pub fn as_str(&self) -> &'static str {
        match self {
            Delivery::Waiting => "waiting",
            Delivery::Sending => "sending",
            Delivery::Sent => "sent",
            Delivery::Failed(_) => "failed",
        }
    }
}

/// One prompt of the outbox.
#[derive(Debug, Clone)]
pub struct Outgoing {
    /// The envelope rpcId of every request that sends it (never changes).
    pub id: String,
    /// The content blocks, as given.
    pub content: Json,
    /// Queued or steering.
    pub mode: PromptMode,
    /// Where it stands.
    pub delivery: Delivery,
    /// A request for it may have reached the host without an answer: the host's log is looked
    /// up for its id before it is sent again.
    pub unsure: bool,
    /// Requests sent for it.
    pub attempts: u32,
    /// The host's queue frame has shown it: once accepted and out of the queue again, the host
    /// decides what shows it (its log's message, or nothing when it was removed from the queue).
    pub queued: bool,
    /// The promise waiting for its fate.
    pub(super) op: Option<OpId>,
    /// Its echo node (rebuilt when it changes).
    pub node: Rc<Node>,
}

/// The prompts of one session not yet seen in its log, in the order made.
///
/// Invariant: a prompt is sent only while no request of the outbox is in flight (one at a
/// time, in order), under the same rpcId every time, and again only after a look-up of the
/// host's tail page did not find that rpcId; it leaves the outbox when its event is in the
/// window (or the user discards a failed one), so it is never shown twice.
#[derive(Debug, Default)]
pub struct Outbox {
    pub(super) entries: Vec<Outgoing>,
    /// Changes whenever the echoes do (export cache key).
    pub rev: u64,
    /// Transport failures wait for the wake (or a new connection) before the next attempt.
    pub(super) held: bool,
    pub(super) retry: Retry,
    /// Prompts sent again after a request that got no answer.
    pub resent: u64,
    /// Prompts found delivered by a look-up (not sent again).
    pub deduplicated: u64,
}

impl Outbox {
    /// Every prompt of the outbox, in the order made.
    pub fn entries(&self) -> &[Outgoing] {
        &self.entries
    }
    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    /// Prompts not accepted yet (waiting, sending or failed): they keep the session resident.
    pub fn undelivered(&self) -> usize {
        self.count(|d| !matches!(d, Delivery::Sent))
    }
    /// Prompts waiting to be sent.
    pub fn waiting(&self) -> usize {
        self.count(|d| matches!(d, Delivery::Waiting))
    }
    pub(super) fn find(&self, id: &str) -> Option<usize> {
        self.entries.iter().position(|e| e.id == id)
    }
    /// Prompts whose delivery passes `f` (one loop for every count).
    pub(super) fn count(&self, f: fn(&Delivery) -> bool) -> usize {
        let mut n = 0;
        for e in &self.entries {
            n += f(&e.delivery) as usize;
        }
        n
    }
}

pub(super) fn echo_node(id: &str, content: &Json, mode: PromptMode, delivery: &Delivery, rev: u64) -> Rc<Node> {
    let error = match delivery {
        Delivery::Failed(e) => Some(e.clone()),
        _ => None,
    };
    // The source as the host will write it: `{kind: 'user', rpcId}`.
    let source = wire::object_text(&[("kind", Some(r#""user""#)), ("rpcId", Some(&wire::quote(id)))]);
    Rc::new(Node {
        id: id.into(),
        seq: -1,
        turn: None,
        kind: NodeKind::Echo {
            steering: mode == PromptMode::Steer,
            content: content.clone(),
            source: Json::from_text(&source).unwrap_or_default(),
            delivery: delivery.as_str(),
            error,
        },
        rev,
    })
}

/// A transport-layer failure: the request may or may not have reached the host.
pub(super) fn is_transport(e: &RpcError) -> bool {
    match e.status() {
        Some(s) => s >= 500 || s == 408 || s == 429,
        None => e.code == ErrorCode::Internal && has(e.details.text(), r#""transport":true"#),
    }
}

pub(super) fn outbox_full(what: &str) -> RpcError {
    let details = Json::from_text(r#"{"reason":"outbox-full"}"#).unwrap_or_default();
    RpcError::with_details(ErrorCode::BadRequest, what, details)
}

pub(super) fn accepted() -> Json {
    Json::from_text(r#"{"accepted":true}"#).unwrap_or_default()
}
