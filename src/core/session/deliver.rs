//! The session's side of its outbox: making a prompt, sending the next one when the connection
//! allows, reading each answer (accepted, refused, or unknown after a transport failure) and
//! the tail-page look-up that settles an unknown one (`outbox` holds the types and the rule).

use super::io::{Call, Outcome};
use super::nodes::{Node, NodeKind};
use super::outbox::{
    accepted, echo_node, has, is_transport, outbox_full, Delivery, Outbox, Outgoing, MAX_OUTBOX_BYTES,
    MAX_OUTBOX_PROMPTS, MAX_SENT_KEPT,
};
use super::{OpId, Purpose, Session};
use crate::core::wire::{self, ErrorCode, Json, PromptMode, RpcError, RpcResult};
use std::rc::Rc;

impl Session {
    /// `content` is the JSON array of content blocks. The prompt is shown at once and sent
    /// when the connection allows, under an id the session mints.
    pub fn prompt(&mut self, content: Json, mode: PromptMode) -> OpId {
        self.next_client += 1;
        let id = format!("{}p{}", self.client_prefix, self.next_client);
        self.prompt_as(content, mode, id, false)
    }

    /// [`Session::prompt`] under `client_id`, the envelope rpcId of every request sending it
    /// (the host client mints it, unique per client instance). `adopted`: the prompt is one an
    /// earlier page made under that id (kept by the local cache through a reload); it may
    /// have reached the host, so the host's log is looked up before it is sent, and a prompt
    /// the window or the outbox already holds is not made twice.
    pub fn prompt_as(&mut self, content: Json, mode: PromptMode, client_id: String, adopted: bool) -> OpId {
        let op = self.new_op();
        if adopted && self.outbox.find(&client_id).is_some() {
            self.settle(op, Outcome::Result(Ok(accepted())));
            return op;
        }
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
                unsure: adopted,
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
                    if let Some(id) = source.and_then(|s| super::fold::source_rpc_id(s.get())) {
                        found.push(id);
                    }
                }
                self.found_delivered(&found, true);
                // A prompt the window already shows (one an earlier page made, taken over
                // after its event arrived) lands now.
                self.land_from_window();
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
