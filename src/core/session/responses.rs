//! RPC results. Each is matched to the request that caused it; results of requests that a
//! newer open generation superseded are dropped here, before they touch anything.

use super::io::{schema_error, Call, Outcome};
use super::page::{joined, Page, Streamed};
use super::plan::PlanApply;
use super::{Freshness, Lifecycle, OpenState, PromptOp, Purpose, ReqId, Session};
use crate::core::wire::{
    self, HistoryValue, Json, PlanModeState, Receipt, ReceiptReason, RpcResult, Seq, SessionEvent,
};

/// A reply to one session request.
enum Answer {
    /// The value as JSON text (or the failure).
    Value(RpcResult<Json>),
    /// A history reply whose events the driver read as the body streamed in: the rest of
    /// the reply (its `events` emptied) and those events.
    Page(RpcResult<Json>, Streamed),
}

impl Answer {
    fn into_value(self) -> RpcResult<Json> {
        match self {
            Answer::Value(result) => result,
            // Only `session.history` replies are read as pages. Not written back to JSON for
            // the other methods' checks: that would link the whole event serializer (and an
            // f64 formatter) into the wasm for a reply that cannot pass them anyway.
            Answer::Page(..) => Err(wire::RpcError::transport("a history page answered another method")),
        }
    }
}

impl Session {
    /// The result of request `req`: the business result, or a transport failure already
    /// folded into `Err(RpcError{code: internal})` by the driver. The value is checked here
    /// against its method's schema; a failing value is a transport error too.
    pub fn on_response(&mut self, req: ReqId, result: RpcResult<Json>) {
        self.on_answer(req, Answer::Value(result))
    }

    /// The result of history request `req` whose body was read as it streamed in: `result`
    /// is the reply without its events (the envelope, `events` emptied), `streamed` the
    /// events the page reader took out of it. Joined and validated here.
    pub fn on_page(&mut self, req: ReqId, result: RpcResult<Json>, streamed: Streamed) {
        self.on_answer(req, Answer::Page(result, streamed))
    }

    fn on_answer(&mut self, req: ReqId, answer: Answer) {
        let Some(purpose) = self.inflight.remove(&req) else {
            self.diag.stale_responses += 1;
            return self.flush();
        };
        match purpose {
            Purpose::Open { gen } | Purpose::Repair { gen, .. } | Purpose::Older { gen, .. } if gen != self.gen => {
                self.diag.stale_responses += 1;
            }
            Purpose::PlanQuery { gen, .. } if gen != self.gen => self.diag.stale_responses += 1,
            Purpose::Open { .. } => {
                let page = self.history(answer);
                self.on_open_page(page);
            }
            Purpose::Repair { .. } => {
                let page = self.history(answer);
                self.on_repair_page(page);
            }
            Purpose::Older { base_at_send, .. } => {
                let page = self.history(answer);
                self.on_older_page(base_at_send, page);
            }
            Purpose::Lookup => {
                let page = self.history(answer);
                self.on_lookup(page);
            }
            purpose => self.on_value(purpose, answer.into_value()),
        }
        self.flush();
    }

    fn on_value(&mut self, purpose: Purpose, result: RpcResult<Json>) {
        match purpose {
            // History purposes are read as pages in `on_answer`.
            Purpose::Open { .. } | Purpose::Repair { .. } | Purpose::Older { .. } | Purpose::Lookup => {}
            Purpose::Outbox { id } => self.on_outbox_answer(&id, result),
            Purpose::PlanQuery { ticket, .. } => {
                match self.plan_value(wire::SESSION_PLAN_MODE, result) {
                    Ok(value) => {
                        self.plan_retry.succeeded();
                        self.apply_plan_response(ticket, value)
                    }
                    // The 2026-08 host has no plan RPCs: its state is the `plan` projection.
                    Err(e) if e.status() == Some(404) => self.switch_to_plan_projection(),
                    // Fail-soft: history stays usable, the last capability is kept, and the
                    // query is asked again (see `retry`).
                    Err(_) => self.plan_query_failed(),
                }
            }
            Purpose::Selection { ticket, op, active } => {
                let checked = self.plan_value(wire::SESSION_SET_PLAN_MODE, result);
                match &checked {
                    Ok(value) => self.apply_plan_response(ticket, *value),
                    Err(e) if e.status() == Some(404) => {
                        // Asked of the 2026-08 host: the same selection as its `/plan` command.
                        self.switch_to_plan_projection();
                        self.send_selection(op, active);
                        return self.flush();
                    }
                    // A failed selection keeps the prior state.
                    Err(_) => {}
                }
                self.settle(op, Outcome::Result(checked.map(wire::plan_json)));
            }
            Purpose::PlanCommand { op } => {
                // The command's effect arrives as `plan` projection frames, which are all the
                // UI shows; the promise resolves with the state they give once the handler's
                // `command/done` is in (see `commands`). A void answer means the host does not
                // know the command: no plan capability.
                match self.checked(wire::COMMANDS_EXECUTE, result) {
                    Ok(v) if v.is_null() => {
                        if self.plan.on_command_known(false) {
                            self.plan_changed();
                        }
                        self.settle(op, Outcome::Result(Ok(wire::plan_json(None))));
                    }
                    Ok(v) => self.on_plan_command_answer(op, &v),
                    Err(e) => self.settle(op, Outcome::Result(Err(e))),
                }
            }
            Purpose::PlanCommandKnown => {
                // Unanswered, the projection is shown as it is (it is host state either way).
                let list = self.checked(wire::COMMANDS_LIST, result).ok();
                let known = list.as_ref().map(|v| wire::lists_command(v, "plan"));
                if self.plan.on_command_known(known.is_none_or(|k| k.unwrap_or(true))) {
                    self.plan_changed();
                }
                self.on_commands_list(list.as_ref());
            }
            Purpose::Prompt { op, which } => {
                let method = if which == PromptOp::Send { wire::SESSION_PROMPT } else { wire::SESSION_CANCEL };
                let checked = self.checked(method, result);
                if let Err(e) = &checked {
                    self.prompt_error = Some((which, e.clone()));
                    self.meta_changed();
                }
                self.settle(op, Outcome::Result(checked));
            }
            Purpose::Respond { op, key } => {
                let checked = self.checked(wire::RESPOND_PATH, result);
                if let Ok(v) = &checked {
                    let receipt = wire::read::read::<Receipt>(v.text()).ok();
                    if receipt.is_some_and(|r| r.reason == Some(ReceiptReason::NotPending)) {
                        // The host no longer waits on it: drop the stale card.
                        let rev = self.stamps.next();
                        self.dirty |= self.pending.resolve(&key, rev);
                    }
                }
                self.settle(op, Outcome::Result(checked));
            }
            Purpose::Verb { op, method } => {
                let checked = self.checked(method, result).map_err(|e| e.or_unsupported(method));
                self.settle(op, Outcome::Result(checked));
            }
            Purpose::Answer { op, .. } => {
                let checked = self.checked(wire::RESPOND_PATH, result);
                self.settle(op, Outcome::Result(checked));
            }
        }
        self.flush();
    }

    /// Second-level check of an ok value against the method's schema.
    pub(super) fn checked(&mut self, method: &str, result: RpcResult<Json>) -> RpcResult<Json> {
        let value = result?;
        match wire::validate_value(method, &value) {
            Ok(()) => Ok(value),
            Err(e) => {
                self.diag.bad_values += 1;
                Err(schema_error(method, e))
            }
        }
    }

    /// Parsed once, then checked (a page is the largest value the core reads).
    fn history(&mut self, answer: Answer) -> RpcResult<Page> {
        let (result, streamed) = match answer {
            Answer::Value(result) => (result, Ok(Default::default())),
            Answer::Page(result, streamed) => (result, streamed),
        };
        // The rest's own events are checked here; streamed ones were as they arrived.
        let value = wire::read::read::<HistoryValue>(result?.text()).and_then(|v| v.validate().map(|_| v));
        joined(value, streamed).map_err(|e| {
            self.diag.bad_values += 1;
            schema_error(wire::SESSION_HISTORY, e)
        })
    }

    fn plan_value(&mut self, method: &str, result: RpcResult<Json>) -> RpcResult<Option<PlanModeState>> {
        let value = self.checked(method, result)?;
        wire::parse_plan_value(&value).map_err(|e| schema_error(method, e))
    }

    fn on_open_page(&mut self, page: RpcResult<Page>) {
        match page {
            Ok(page) => {
                self.install_window(page);
                for op in std::mem::take(&mut self.open_waiters) {
                    self.settle(op, Outcome::Done);
                }
                self.send_plan_query();
            }
            Err(_) if self.life.tag() == OpenState::Open => {
                // A failed resync keeps the window; buffered frames go through the live path.
                self.life = Lifecycle::Open(Freshness::Live);
                self.diag.rejected_pages += 1;
                self.stitch();
            }
            Err(error) => {
                self.life = Lifecycle::Error(error);
                self.buffer.clear();
                self.meta_changed();
                for op in std::mem::take(&mut self.open_waiters) {
                    self.settle(op, Outcome::Done);
                }
            }
        }
    }

    fn on_repair_page(&mut self, page: RpcResult<Page>) {
        match page {
            // A page behind the window would move it backwards: keep the window.
            Ok(page) if page.events.last().map_or(-1, SessionEvent::seq) >= self.tail_seq() => {
                self.install_window(page);
            }
            Ok(_) | Err(_) => {
                self.diag.rejected_pages += 1;
                self.maybe_repair();
            }
        }
    }

    fn on_older_page(&mut self, base_at_send: Seq, page: RpcResult<Page>) {
        match page {
            Ok(page) if base_at_send == self.base_seq() => self.prepend_page(page),
            Ok(_) => self.diag.rejected_pages += 1,
            Err(_) => {}
        }
        self.meta_changed();
        for op in std::mem::take(&mut self.older_waiters) {
            self.settle(op, Outcome::Done);
        }
    }

    /// The host answered a plan RPC 404 (the 2026-08 host): plan state is the `plan`
    /// projection, shown once `commands/list` says the session has the plan command (a
    /// preset without it still keeps the projection key).
    pub(super) fn switch_to_plan_projection(&mut self) {
        if !self.plan.is_projected() {
            self.plan.use_projection();
            self.send_commands_list();
        }
    }

    pub(super) fn send_plan_query(&mut self) {
        if self.plan.is_projected() {
            // The `plan` projection keeps plan state current; the command list (which says
            // whether plan mode exists) is asked again, as a change may have been missed.
            if self.in_flight_for(|p| matches!(p, Purpose::PlanCommandKnown)).is_none() {
                self.send_commands_list();
            }
            return;
        }
        let ticket = self.plan.issue();
        self.send(Call::PlanMode, Purpose::PlanQuery { gen: self.gen, ticket });
    }

    fn apply_plan_response(&mut self, ticket: super::PlanTicket, value: Option<PlanModeState>) {
        let (outcome, changed) = self.plan.on_response(ticket, value);
        if changed {
            self.plan_changed();
        }
        match outcome {
            PlanApply::Applied => {}
            PlanApply::StaleRequest | PlanApply::Overtaken { requery: false } => {
                self.diag.plan_responses_fenced += 1;
            }
            PlanApply::Overtaken { requery: true } => {
                self.diag.plan_responses_fenced += 1;
                // The dropped answer may have carried a pending selection the commit does
                // not show: ask again, unless a newer request is already on its way.
                if self.plan.is_latest(ticket) && self.life.tag() == OpenState::Open {
                    self.send_plan_query();
                }
            }
        }
    }

    pub(super) fn commit_plan(&mut self, seq: Seq, active: bool, only_newer: bool) {
        if self.plan.on_commit(seq, active, only_newer) {
            self.plan_changed();
        }
    }

    pub(super) fn plan_changed(&mut self) {
        self.plan_rev = self.stamps.next();
        self.dirty = true;
    }
}
