//! Unary calls (minting, dispatch, reading replies) and the session side: operations in,
//! effects out, settlements.

use super::client::*;
use super::io::*;
use crate::core::client::connection::GenerationEnd;
use crate::core::session::io::schema_error;
use crate::core::session::{Effect, Outcome};
use crate::core::wire::{self, parse_unary_response, Json, ResponseForm, RpcError, RpcResult};

impl HostClient {
    pub(super) fn mint_rpc(&mut self) -> String {
        let n = self.next_id();
        let mut rpc = self.cfg.rpc_prefix.clone();
        rpc.push_str(&n.to_string());
        rpc
    }

    /// A host-level request `{type:'client-request', method, payload}` on `/api/<method>`.
    pub(super) fn send(&mut self, what: CallFor, method: &str, payload: &str) {
        let rpc = self.mint_rpc();
        let body = wire::client_request_text(&rpc, method, payload);
        self.dispatch(what, method, body, ResponseForm::Envelope { rpc_id: rpc });
    }

    pub(super) fn dispatch(&mut self, what: CallFor, path: &str, body: String, form: ResponseForm) {
        let call = CallId(self.next_id());
        let page = path == wire::SESSION_HISTORY && matches!(what, CallFor::Session { .. });
        let reading = if page { Body::Page(Box::default()) } else { Body::Bytes(Vec::new()) };
        let path = path.to_owned();
        let ms = self.cfg.request_timeout_ms;
        if ms > 0.0 {
            self.timers.set(Timer::Call(call), self.now.after_ms(ms));
        }
        // The connection's own calls (describe, tickets, the list seed) are never refused.
        let lacks = self.seed_host
            && matches!(what, CallFor::Call { .. } | CallFor::Session { .. })
            && !wire::SEED_METHODS.contains(&path.as_str());
        self.calls.insert(call, PendingCall { what, form, path: path.clone(), body: reading, received: 0 });
        if lacks {
            return self.on_response(call, Reply::Status(404));
        }
        self.outputs.push_back(Output::Send { call, path, body });
    }

    /// Gives up a call in flight (its deadline passed, or its body outgrew the bound): the
    /// driver aborts it, and it fails with `why` as a carrier failure does.
    pub(super) fn give_up(&mut self, call: CallId, why: String) {
        self.outputs.push_back(Output::Abort { call });
        self.on_response(call, Reply::Failed(why));
    }

    /// Reads a reply in its call's form: every carrier failure is a transport error.
    pub(super) fn read_reply(p: &PendingCall, reply: Reply) -> RpcResult<Json> {
        let path = &p.path;
        match reply {
            Reply::Body(text) => parse_unary_response(&text, &p.form)
                .unwrap_or_else(|e| Err(RpcError::transport(format!("{path}: {e}")))),
            // Kept typed: a session tells host generations apart by it (404 for a removed method).
            Reply::Status(status) => {
                Err(RpcError::carrier_status(status, format!("{path}: HTTP {}", u32::from(status))))
            }
            Reply::Failed(why) => Err(RpcError::transport(format!("{path}: {why}"))),
        }
    }

    /// The next piece of a call's body (`close()` gives every call up, so none is read after
    /// it). Past [`Config::max_response_bytes`] of pieces the call is given up: nothing more
    /// is read (a driver that hands a whole body over in [`Reply::Body`] has read it already).
    pub(super) fn on_response_bytes(&mut self, call: CallId, bytes: &[u8]) {
        let max = self.cfg.max_response_bytes;
        let Some(p) = self.calls.get_mut(&call) else { return };
        p.received += bytes.len() as u64;
        if p.received > max {
            return self.give_up(call, format!("response body over the {max}-byte limit (maxResponseBytes)"));
        }
        match &mut p.body {
            Body::Bytes(b) => b.extend_from_slice(bytes),
            Body::Page(r) => r.feed(bytes),
        }
    }

    /// A reply to a call in flight (`close()` gives every call up, so none is read after it).
    pub(super) fn on_response(&mut self, call: CallId, reply: Reply) {
        let Some(mut p) = self.calls.remove(&call) else { return };
        self.timers.cancel(&Timer::Call(call));
        let reply = match (std::mem::replace(&mut p.body, Body::Bytes(Vec::new())), reply) {
            // A history page: read as it arrived, its envelope now.
            (Body::Page(mut reader), Reply::Body(text)) => {
                reader.feed(text.as_bytes());
                drop(text);
                let (rest, streamed) = reader.finish();
                let result = Self::read_reply(&p, rest.map_or_else(Reply::Failed, Reply::Body));
                if let CallFor::Session { session, req } = &p.what {
                    if let Some(s) = self.router.get_mut(session) {
                        s.on_page(*req, result, streamed);
                    }
                }
                return;
            }
            (Body::Bytes(mut b), Reply::Body(text)) if !b.is_empty() => {
                b.extend_from_slice(text.as_bytes());
                // Invalid UTF-8 is replaced, as `fetch`'s `text()` does.
                Reply::Body(String::from_utf8_lossy(&b).into_owned())
            }
            (_, reply) => reply,
        };
        let result = Self::read_reply(&p, reply);
        match p.what {
            CallFor::Session { session, req } => {
                if let Some(s) = self.router.get_mut(&session) {
                    s.on_response(req, result);
                }
            }
            // The host's result object as written; the client's own failures as results.
            CallFor::Call { handle } => {
                let settlement = match result {
                    Ok(raw) => Settlement::Receipt(raw),
                    Err(e) => Settlement::Result(Err(e.or_unsupported(&p.path))),
                };
                self.outputs.push_back(Output::Settle { handle, settlement });
            }
            CallFor::Describe { gen } => match result.and_then(|v| checked(wire::HOST_DESCRIBE, v)) {
                Ok(v) => {
                    self.seed_host = wire::describes_seed(&v);
                    self.conn.described(gen)
                }
                Err(e) => self.fail_generation(gen, GenerationEnd::Describe(e.message)),
            },
            CallFor::Ticket { gen, stream } => self.on_ticket(gen, stream, result),
            // The list reader is the value's schema check.
            CallFor::Seed { gen } => self.on_seed(gen, result),
        }
    }

    pub(super) fn on_session_op(&mut self, handle: OpHandle, id: String, op: SessionOp) {
        if self.is_closed() {
            let settlement = match op {
                SessionOp::Open | SessionOp::LoadOlder => Settlement::Done,
                SessionOp::Respond { .. } => Settlement::Receipt(transport_receipt(None)),
                _ => Settlement::Result(Err(cancelled("HostClient closed"))),
            };
            self.outputs.push_back(Output::Settle { handle, settlement });
            return;
        }
        self.router.ensure(&id);
        // An operation watches its session: one that missed a generation resyncs first.
        let live = self.conn.is_established();
        self.router.watched(&id, live);
        self.sweep_due = true;
        // A prompt's own id: the envelope rpcId of every request that sends it.
        let minted = matches!(op, SessionOp::Prompt { adopted: None, .. }).then(|| self.mint_rpc());
        if let Some(s) = self.router.get_mut(&id) {
            s.set_client_prefix(&self.cfg.rpc_prefix);
            s.set_online(live);
        }
        let (op_id, waits) = match op {
            SessionOp::Open => (self.router.open(&id, self.conn.live_generation()), Waits::Done),
            other => {
                // Cannot fail: the session was ensured above.
                let s = self.router.get_mut(&id).unwrap();
                match other {
                    SessionOp::LoadOlder => (s.load_older(), Waits::Done),
                    SessionOp::Prompt { content, mode, adopted } => {
                        let mine = adopted.is_some();
                        (s.prompt_as(content, mode, adopted.or(minted).unwrap_or_default(), mine), Waits::Result)
                    }
                    SessionOp::FailedPrompt { id: client_id, retry } => {
                        (s.failed_prompt(&client_id, retry), Waits::Result)
                    }
                    SessionOp::Cancel => (s.cancel(), Waits::Result),
                    SessionOp::SetPlanMode(active) => (s.set_plan_mode(active), Waits::Result),
                    SessionOp::Respond { key, result } => (s.respond(&key, result), Waits::Receipt),
                    SessionOp::Answer { prompt_id, answers } => (s.answer(&prompt_id, answers), Waits::Result),
                    SessionOp::Verb(call) => (s.verb(call), Waits::Result),
                    SessionOp::Open => unreachable!(), // handled above
                }
            }
        };
        self.waits.insert((id, op_id), (handle, waits));
    }

    pub(super) fn on_host_call(&mut self, handle: OpHandle, call: HostCall) {
        if self.is_closed() {
            let settlement = Settlement::Result(Err(cancelled("HostClient closed")));
            self.outputs.push_back(Output::Settle { handle, settlement });
            return;
        }
        let HostCall::Call { method, payload } = call;
        let rpc = self.mint_rpc();
        let body = wire::client_request_text(&rpc, &method, &payload);
        self.dispatch(CallFor::Call { handle }, &method, body, ResponseForm::Result { rpc_id: rpc });
    }

    /// `host.call`'s signal aborted: the call, if still in flight, is given up.
    pub(super) fn on_abandon(&mut self, handle: OpHandle) {
        let Some(call) = self.calls.iter().find(|(_, p)| matches!(p.what, CallFor::Call { handle: h } if h == handle))
        else {
            return;
        };
        let call = *call.0;
        self.calls.remove(&call);
        self.timers.cancel(&Timer::Call(call));
        self.outputs.push_back(Output::Abort { call });
        let settlement = Settlement::Result(Err(cancelled("aborted by its signal")));
        self.outputs.push_back(Output::Settle { handle, settlement });
    }

    pub(super) fn on_session_effect(&mut self, id: String, e: Effect) {
        match e {
            Effect::Send { req, call } => {
                if self.is_closed() {
                    return;
                }
                let rpc = match &call {
                    crate::core::session::Call::Prompt { rpc_id: Some(id), .. } => id.clone(),
                    _ => self.mint_rpc(),
                };
                let body = call.body(&id, &rpc, self.cfg.client_time_zone.as_deref());
                let form = call.response_form(&rpc);
                self.dispatch(CallFor::Session { session: id, req }, call.path(), body, form);
            }
            Effect::Settle { op, outcome } => {
                if let Some((handle, waits)) = self.waits.remove(&(id, op)) {
                    self.outputs.push_back(Output::Settle { handle, settlement: settlement(waits, outcome) });
                    self.sweep_due = true;
                }
            }
            // One notice per session while it waits to be read: an operation that first
            // resyncs the session it watches (two flushes in one input) still reports once.
            Effect::Changed => {
                if !self.outputs.iter().any(|o| matches!(o, Output::SessionChanged(s) if *s == id)) {
                    self.outputs.push_back(Output::SessionChanged(id))
                }
            }
            Effect::Wake { token, after_ms } => {
                let at = self.now.after_ms(f64::from(after_ms));
                self.timers.set(Timer::Wake { session: id, token }, at);
            }
            Effect::Unwake { token } => self.timers.cancel(&Timer::Wake { session: id, token }),
        }
    }
}

/// A method's value checked against its schema (a failure is a transport error).
pub(super) fn checked(method: &str, v: Json) -> RpcResult<Json> {
    wire::validate_value(method, &v).map_err(|e| schema_error(method, e))?;
    Ok(v)
}

/// `respond()` whose call failed on the carrier: `{accepted:false, reason:'transport', error?}`.
pub(super) fn transport_receipt(error: Option<&RpcError>) -> Json {
    let error = error.map(Json::from_serialize);
    let members =
        [("accepted", Some("false")), ("reason", Some(r#""transport""#)), ("error", error.as_ref().map(Json::text))];
    Json::from_text(&wire::object_text(&members)).unwrap_or_default()
}

pub(super) fn settlement(waits: Waits, outcome: Outcome) -> Settlement {
    match (waits, outcome) {
        (Waits::Done, _) => Settlement::Done,
        (Waits::Result, Outcome::Result(r)) => Settlement::Result(r),
        (Waits::Result, Outcome::Done) => Settlement::Result(Ok(Json::null())),
        (Waits::Receipt, Outcome::Result(Ok(v))) => Settlement::Receipt(v),
        (Waits::Receipt, Outcome::Result(Err(e))) => Settlement::Receipt(transport_receipt(Some(&e))),
        (Waits::Receipt, Outcome::Done) => Settlement::Receipt(transport_receipt(None)),
    }
}
