//! The outbox: prompts the user made that the host's log does not show yet.
//!
//! A prompt is shown at once (its echo, a user node keyed by its client-minted id), waits
//! while the connection is down, and is sent when it is back, one at a time and in the order
//! made. Its id is the envelope `rpcId` of every request that sends it, so the host's
//! `user/message` (whose `source.rpcId` it is) replaces the echo, and a look-up of the host's
//! tail page tells whether a request that got no answer was delivered.

use super::io::{Call, Outcome};
use super::nodes::{Node, NodeKind};
use super::retry_state::Retry;
use super::{OpId, Purpose, Session};
use crate::core::wire::{self, ErrorCode, Json, PromptMode, RpcError, RpcResult};
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
const MAX_SENT_KEPT: usize = 64;

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
    op: Option<OpId>,
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
    entries: Vec<Outgoing>,
    /// Changes whenever the echoes do (export cache key).
    pub rev: u64,
    /// Transport failures wait for the wake (or a new connection) before the next attempt.
    held: bool,
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
    fn find(&self, id: &str) -> Option<usize> {
        self.entries.iter().position(|e| e.id == id)
    }
    /// Prompts whose delivery passes `f` (one loop for every count).
    fn count(&self, f: fn(&Delivery) -> bool) -> usize {
        let mut n = 0;
        for e in &self.entries {
            n += f(&e.delivery) as usize;
        }
        n
    }
}

/// `source.rpcId` of a user message, when its source is an object that has one.
pub fn source_rpc_id(source: &str) -> Option<String> {
    if !has(source, "rpcId") {
        return None;
    }
    wire::read::Obj::parse(source).ok()?.opt_str("rpcId").ok()?
}

fn echo_node(id: &str, content: &Json, mode: PromptMode, delivery: &Delivery, rev: u64) -> Rc<Node> {
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
fn is_transport(e: &RpcError) -> bool {
    match e.status() {
        Some(s) => s >= 500 || s == 408 || s == 429,
        None => e.code == ErrorCode::Internal && has(e.details.text(), r#""transport":true"#),
    }
}

fn outbox_full(what: &str) -> RpcError {
    let details = Json::from_text(r#"{"reason":"outbox-full"}"#).unwrap_or_default();
    RpcError::with_details(ErrorCode::BadRequest, what, details)
}

fn accepted() -> Json {
    Json::from_text(r#"{"accepted":true}"#).unwrap_or_default()
}

impl Session {
    /// `content` is the JSON array of content blocks. The prompt is shown at once and sent
    /// when the connection allows, under an id the session mints.
    pub fn prompt(&mut self, content: Json, mode: PromptMode) -> OpId {
        self.next_client += 1;
        let id = format!("{}p{}", self.client_prefix, self.next_client);
        self.prompt_as(content, mode, id)
    }

    /// [`Session::prompt`] under `client_id`, the envelope rpcId of every request sending it
    /// (the host client mints it, unique per client instance).
    pub fn prompt_as(&mut self, content: Json, mode: PromptMode, client_id: String) -> OpId {
        let op = self.new_op();
        self.clear_prompt_error();
        let (mut waiting, mut bytes) = (0, 0);
        for e in &self.outbox.entries {
            if !matches!(e.delivery, Delivery::Sent) {
                waiting += 1;
                bytes += e.content.text().len();
            }
        }
        let full = if waiting >= MAX_OUTBOX_PROMPTS {
            Some("outbox-full: 64 prompts wait already")
        } else if bytes + content.text().len() > MAX_OUTBOX_BYTES {
            Some("outbox-full: more than 4 MiB of prompts would wait")
        } else {
            None
        };
        if let Some(what) = full {
            self.settle(op, Outcome::Result(Err(outbox_full(what))));
        } else {
            let id = client_id;
            let rev = self.stamps.next();
            let node = echo_node(&id, &content, mode, &Delivery::Waiting, rev);
            let entry = Outgoing {
                id,
                content,
                mode,
                delivery: Delivery::Waiting,
                unsure: false,
                attempts: 0,
                queued: false,
                op: Some(op),
                node,
            };
            self.outbox.entries.push(entry);
            self.outbox_changed();
        }
        self.flush();
        op
    }

    /// Sends a failed prompt again (same id); it settles when the host accepts or refuses it.
    /// An error at once when no failed prompt has this id.
    pub fn retry_prompt(&mut self, id: &str) -> OpId {
        self.failed_prompt(id, true)
    }

    /// Drops a failed prompt from the outbox (its echo goes). An error when no failed prompt
    /// has this id.
    pub fn discard_prompt(&mut self, id: &str) -> OpId {
        self.failed_prompt(id, false)
    }

    /// Retry (`retry`) or discard a failed prompt: one body for both (one copy in the wasm).
    pub fn failed_prompt(&mut self, id: &str, retry: bool) -> OpId {
        let op = self.new_op();
        match self.outbox.find(id).filter(|i| matches!(self.outbox.entries[*i].delivery, Delivery::Failed(_))) {
            Some(i) if retry => {
                self.outbox.entries[i].op = Some(op);
                self.set_delivery(i, Delivery::Waiting);
            }
            Some(i) => {
                self.outbox.entries.remove(i);
                self.outbox_changed();
                self.settle(op, Outcome::Result(Ok(Json::null())));
            }
            None => self.settle(op, Outcome::Result(Err(not_failed(id)))),
        }
        self.flush();
        op
    }

    /// The outbox (for the snapshot and tests).
    pub fn outbox(&self) -> &Outbox {
        &self.outbox
    }

    /// Whether the connection is established (prompts are sent only then).
    pub fn set_online(&mut self, online: bool) {
        if online && !self.online {
            // A fresh connection: what waited for the wake may go now.
            self.outbox.held = false;
            if let Some(t) = self.outbox.retry.disarm() {
                self.effects.push_back(super::Effect::Unwake { token: t });
            }
        }
        self.online = online;
        self.flush();
    }

    /// The nodes the UI shows: the host's, then the echoes of prompts its log does not show
    /// yet (a prompt the host's queue holds is shown by the queue, not here).
    pub fn shown_nodes(&self) -> std::borrow::Cow<'_, [Rc<Node>]> {
        if self.outbox.is_empty() {
            return std::borrow::Cow::Borrowed(self.nodes());
        }
        let mut all = self.nodes().to_vec();
        for e in &self.outbox.entries {
            if self.in_queue(&e.id) {
                continue;
            }
            all.push(Rc::clone(&e.node));
        }
        std::borrow::Cow::Owned(all)
    }

    /// Whether the host's queue frame holds the prompt `id` (its rpcId as a string in it).
    fn in_queue(&self, id: &str) -> bool {
        self.queue.as_ref().is_some_and(|q| has(q.text(), &wire::quote(id)))
    }

    /// Changes whenever `shown_nodes` does (export cache key).
    pub fn shown_rev(&self) -> u64 {
        self.nodes_rev().max(self.outbox.rev)
    }

    /// Whether an rpcId is one this client minted (a host node then carries it as `clientId`).
    pub fn is_mine(&self, rpc_id: &str) -> bool {
        !self.client_prefix.is_empty() && rpc_id.starts_with(&self.client_prefix)
    }

    /// The host client's rpcId prefix (empty: none set).
    pub fn client_prefix(&self) -> &str {
        &self.client_prefix
    }

    /// The prefix of the ids this session's prompts take (the host client's rpcId prefix).
    pub fn set_client_prefix(&mut self, prefix: &str) {
        self.client_prefix = prefix.into();
    }

    pub(super) fn outbox_changed(&mut self) {
        self.outbox.rev = self.stamps.next();
        self.dirty = true;
    }

    /// The queue frame changed: an echo may hide or show again.
    pub(super) fn outbox_queue_changed(&mut self) {
        if !self.outbox.is_empty() {
            self.found_delivered(&[], false);
            self.outbox_changed();
        }
    }

    /// Prompts that may have reached the host (`unsure`) and that it holds (its queue frame
    /// shows their id, or `found`, the ids its log shows) are delivered: a waiting one is
    /// accepted, one in flight waits for its answer. One loop for the queue frame (`lookup`
    /// false: waiting or sending prompts) and the look-up's page (`lookup`: waiting prompts,
    /// and every one of them is sure afterwards, found or not).
    fn found_delivered(&mut self, found: &[String], lookup: bool) {
        let mut i = 0;
        while let Some(e) = self.outbox.entries.get(i) {
            let waiting = matches!(e.delivery, Delivery::Waiting);
            let queued = self.in_queue(&e.id);
            if !lookup && !queued && e.queued && matches!(e.delivery, Delivery::Sent) {
                // Accepted, queued, and out of the queue again: its message is in the log (it
                // lands) or it was removed from the queue; either way no echo (its promise
                // settled when it was accepted).
                self.outbox.entries.remove(i);
                continue;
            }
            if !lookup && queued {
                self.outbox.entries[i].queued = true;
            }
            let e = &self.outbox.entries[i];
            if e.unsure && (waiting || (!lookup && matches!(e.delivery, Delivery::Sending))) {
                let held = queued || found.contains(&e.id);
                if held || lookup {
                    self.outbox.entries[i].unsure = false;
                }
                if held {
                    self.outbox.deduplicated += 1;
                    if waiting {
                        self.accepted(i, Ok(accepted()));
                    }
                }
            }
            i += 1;
        }
    }

    fn set_delivery(&mut self, i: usize, d: Delivery) {
        let rev = self.stamps.next();
        let e = &mut self.outbox.entries[i];
        e.node = echo_node(&e.id, &e.content, e.mode, &d, rev);
        e.delivery = d;
        self.outbox_changed();
    }

    /// Prompt `i` is accepted: `sent`, its promise settles with `value`.
    fn accepted(&mut self, i: usize, value: RpcResult<Json>) {
        self.set_delivery(i, Delivery::Sent);
        if let Some(op) = self.outbox.entries[i].op.take() {
            self.settle(op, Outcome::Result(value));
        }
        // Accepted prompts whose event never comes (a cold session's) are not kept forever.
        if self.outbox.count(|d| matches!(d, Delivery::Sent)) > MAX_SENT_KEPT {
            if let Some(j) = self.outbox.entries.iter().position(|e| matches!(e.delivery, Delivery::Sent)) {
                self.outbox.entries.remove(j);
            }
        }
    }

    /// The host's event for prompt `id` is in the window: it leaves the outbox.
    pub(super) fn landed(&mut self, id: &str) {
        let Some(i) = self.outbox.find(id) else { return };
        let e = self.outbox.entries.remove(i);
        if e.unsure {
            self.outbox.deduplicated += 1;
        }
        if let Some(op) = e.op {
            self.settle(op, Outcome::Result(Ok(accepted())));
        }
        self.outbox_changed();
    }

    /// Every prompt whose event the window shows leaves the outbox (after an install).
    pub(super) fn land_from_window(&mut self) {
        if self.outbox.is_empty() {
            return;
        }
        let mut ids: Vec<String> = Vec::new();
        for n in &self.fold.nodes {
            if let NodeKind::User { client_id: Some(id), .. } = &n.kind {
                ids.push(id.clone());
            }
        }
        for id in ids {
            self.landed(&id);
        }
    }

    /// Sends what may go: a look-up first when a prompt may have reached the host, then the
    /// first waiting prompt. Called at the end of every input.
    pub(super) fn drive_outbox(&mut self) {
        if self.outbox.is_empty() || !self.online || self.outbox.held {
            return;
        }
        let busy = self.inflight.values().any(|p| matches!(p, Purpose::Outbox { .. } | Purpose::Lookup));
        if busy {
            return;
        }
        let Some(i) = self.outbox.entries.iter().position(|e| matches!(e.delivery, Delivery::Waiting)) else { return };
        if self.outbox.entries.iter().any(|e| e.unsure && matches!(e.delivery, Delivery::Waiting)) {
            self.send(Call::History { before_seq: None, max_messages: None }, Purpose::Lookup);
            return;
        }
        let e = &mut self.outbox.entries[i];
        e.attempts += 1;
        if e.attempts > 1 {
            self.outbox.resent += 1;
        }
        let call = Call::Prompt { mode: e.mode, content: e.content.clone(), rpc_id: Some(e.id.clone()) };
        let id = e.id.clone();
        self.send(call, Purpose::Outbox { id });
        self.set_delivery(i, Delivery::Sending);
    }

    /// The answer to a prompt's request.
    pub(super) fn on_outbox_answer(&mut self, id: &str, result: RpcResult<Json>) {
        let checked = self.checked(wire::SESSION_PROMPT, result);
        let Some(i) = self.outbox.find(id) else { return };
        if !matches!(self.outbox.entries[i].delivery, Delivery::Sending) {
            return;
        }
        match checked {
            Ok(v) => {
                self.outbox.entries[i].unsure = false;
                self.outbox.retry.succeeded();
                self.accepted(i, Ok(v));
            }
            Err(e) if is_transport(&e) => {
                self.outbox.entries[i].unsure = true;
                self.set_delivery(i, Delivery::Waiting);
                self.hold_outbox();
            }
            Err(e) => {
                self.prompt_error = Some((super::PromptOp::Send, e.clone()));
                self.meta_changed();
                self.set_delivery(i, Delivery::Failed(e.clone()));
                if let Some(op) = self.outbox.entries[i].op.take() {
                    self.settle(op, Outcome::Result(Err(e)));
                }
            }
        }
    }

    /// The tail page looked up for prompts that may have been delivered.
    pub(super) fn on_lookup(&mut self, page: RpcResult<super::Page>) {
        match page {
            Ok(page) => {
                self.outbox.retry.succeeded();
                let mut found: Vec<String> = Vec::new();
                for ev in page.events.iter() {
                    // A message's `data.source.rpcId`, read from the data's text (no typed
                    // event body: its reader and drop code for every kind were 0.4 KB here).
                    let crate::core::wire::EventData::Text(data) = &ev.data else { continue };
                    if !matches!(ev.kind.as_str(), "user/message" | "steering/message") {
                        continue;
                    }
                    let source = wire::read::Obj::parse(data.text()).ok().and_then(|o| o.raw("source"));
                    if let Some(id) = source.and_then(|s| source_rpc_id(s.get())) {
                        found.push(id);
                    }
                }
                self.found_delivered(&found, true);
            }
            Err(_) => self.hold_outbox(),
        }
    }

    /// A transport failure: the next attempt waits for the wake (or a new connection).
    fn hold_outbox(&mut self) {
        self.outbox.held = true;
        self.arm_outbox();
    }

    /// The outbox's wake fired: try again.
    pub(super) fn outbox_wake(&mut self) {
        self.outbox.held = false;
    }

    /// The session object ends: every prompt's promise settles `cancelled`.
    pub(super) fn close_outbox(&mut self) {
        for e in std::mem::take(&mut self.outbox.entries) {
            if let Some(op) = e.op {
                self.settle_closed(op);
            }
        }
        self.outbox_changed();
    }
}

fn not_failed(_id: &str) -> RpcError {
    RpcError::with_details(ErrorCode::BadRequest, "no failed prompt has this id", Json::empty_object())
}
