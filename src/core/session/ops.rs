//! UI requests: each returns at once; its promise settles through an `Effect::Settle`.

use super::io::{Call, Outcome};
use super::{Freshness, Lifecycle, OpId, OpenState, PromptOp, Purpose, Session};
use crate::core::wire::{self, Json, Receipt, RpcError, RpcResult};

impl Session {
    /// Idempotent. Concurrent calls share one history request; settles once the tail window
    /// is installed or the open failed into `OpenState::Error`.
    pub fn open(&mut self) -> OpId {
        let op = self.new_op();
        match self.life {
            Lifecycle::Open(_) => self.settle(op, Outcome::Done),
            Lifecycle::Loading => self.open_waiters.push(op),
            Lifecycle::Cold | Lifecycle::Error(_) => {
                self.open_waiters.push(op);
                self.life = Lifecycle::Loading;
                self.start_open_pull();
                self.meta_changed();
            }
        }
        self.flush();
        op
    }

    /// Rebuilds from a fresh tail page under a new open generation. The current window stays
    /// visible meanwhile; live frames are buffered and stitched onto the new window.
    pub fn resync(&mut self) {
        self.resync_inner();
        self.flush();
    }

    pub(super) fn resync_inner(&mut self) {
        match self.life {
            Lifecycle::Cold => return,
            Lifecycle::Error(_) => self.life = Lifecycle::Loading,
            Lifecycle::Loading => {}
            Lifecycle::Open(_) => self.life = Lifecycle::Open(Freshness::Resyncing),
        }
        self.start_open_pull();
        self.meta_changed();
    }

    /// New generation + tail pull. Everything tied to the old generation is forgotten.
    fn start_open_pull(&mut self) {
        let gen = self.gen.bump();
        self.retries_reset(); // the new window asks its own query and repairs its own tail
        self.forget_window_requests();
        self.send(Call::History { before_seq: None, max_messages: None }, Purpose::Open { gen });
    }

    /// Drops in-flight pulls bound to the window (their results would be stale) and
    /// settles the waiters of a superseded older-page load.
    pub(super) fn forget_window_requests(&mut self) {
        if self.older_in_flight().is_some() {
            self.dirty = true;
        }
        self.inflight.retain(|_, p| {
            !matches!(
                p,
                Purpose::Open { .. } | Purpose::Repair { .. } | Purpose::Older { .. } | Purpose::PlanQuery { .. }
            )
        });
        for op in std::mem::take(&mut self.older_waiters) {
            self.settle(op, Outcome::Done);
        }
    }

    /// Prepends the page before `baseSeq`. One in flight; later calls share it.
    pub fn load_older(&mut self) -> OpId {
        let op = self.new_op();
        if self.older_in_flight().is_some() {
            self.older_waiters.push(op);
        } else if self.life.tag() != OpenState::Open || !self.has_more || self.window.is_empty() {
            self.settle(op, Outcome::Done);
        } else if self.base_seq() == 0 {
            // Nothing is older than seq 0: the `hasMore` was a lie no `beforeSeq` can follow.
            self.has_more = false;
            self.diag.rejected_pages += 1;
            self.settle(op, Outcome::Done);
            self.meta_changed();
        } else {
            let base = self.base_seq();
            let purpose = Purpose::Older { gen: self.gen, base_at_send: base };
            self.send(Call::History { before_seq: Some(base as u64), max_messages: None }, purpose);
            self.older_waiters.push(op);
            self.meta_changed();
        }
        self.flush();
        op
    }

    /// Stops the running turn.
    pub fn cancel(&mut self) -> OpId {
        let op = self.new_op();
        self.clear_prompt_error();
        self.send(Call::Cancel, Purpose::Prompt { op, which: PromptOp::Stop });
        self.flush();
        op
    }

    /// Sends a selection. The display changes only when the host answers (no speculation).
    pub fn set_plan_mode(&mut self, active: bool) -> OpId {
        let op = self.new_op();
        self.send_selection(op, active);
        self.flush();
        op
    }

    /// A selection in the host's dialect: the seed's RPC, or today's `/plan` command.
    pub(super) fn send_selection(&mut self, op: OpId, active: bool) {
        if self.plan.is_projected() {
            self.send(Call::Command { line: wire::plan_command_line(active) }, Purpose::PlanCommand { op });
        } else {
            let ticket = self.plan.issue();
            self.send(Call::SetPlanMode { active }, Purpose::Selection { ticket, op, active });
        }
    }

    /// Answers a pending approval/question. A key that is not pending (never was, or was
    /// settled by its resolved frame) is refused locally without a request.
    pub fn respond(&mut self, key: &str, result: RpcResult<Json>) -> OpId {
        let op = self.new_op();
        match self.pending.get(key).map(|p| p.rpc_id.clone()) {
            Some(rpc_id) => {
                self.send(Call::Respond { rpc_id, result }, Purpose::Respond { op, key: key.to_string() });
            }
            None => {
                let receipt = Json::from_text(Receipt::NOT_PENDING_TEXT).unwrap_or_default();
                self.settle(op, Outcome::Result(Ok(receipt)));
            }
        }
        self.flush();
        op
    }

    /// The mux connection ended. The window stays visible but no longer advances: frames of
    /// the next connection are buffered until that connection's resync installs a window.
    pub fn connection_lost(&mut self) {
        self.host_last_seq = None;
        self.projections.connection_lost();
        self.pending.connection_lost();
        // Frames held from the dead connection are never needed (the next generation
        // resyncs from a fresh tail page) and may be from a host that has since lost them:
        // stitched onto the new window they would mix two versions of the log.
        self.buffer.clear();
        if matches!(self.life, Lifecycle::Open(Freshness::Live | Freshness::Resyncing)) {
            self.life = Lifecycle::Open(Freshness::Stale);
            self.meta_changed();
            if let Some(req) = self.repair_in_flight() {
                self.inflight.remove(&req);
            }
        }
        self.flush();
    }

    /// A new prompt or stop clears the last one's error.
    pub(super) fn clear_prompt_error(&mut self) {
        if self.prompt_error.take().is_some() {
            self.meta_changed();
        }
    }

    /// Operation `op` settles `cancelled`: the session object is closing (one copy for the
    /// outbox's prompts and the in-flight operations).
    #[inline(never)]
    pub(super) fn settle_closed(&mut self, op: OpId) {
        let err =
            RpcError::with_details(crate::core::wire::ErrorCode::Cancelled, "session closed", Json::empty_object());
        self.settle(op, Outcome::Result(Err(err)));
    }

    /// Ends the session object: every unsettled operation settles now (unary ones with a
    /// `cancelled` error), and every later result is ignored.
    pub fn close(&mut self) {
        self.close_outbox();
        for (_, purpose) in std::mem::take(&mut self.inflight) {
            let op = match purpose {
                Purpose::Selection { op, .. }
                | Purpose::PlanCommand { op }
                | Purpose::Prompt { op, .. }
                | Purpose::Respond { op, .. }
                | Purpose::Answer { op, .. }
                | Purpose::Verb { op, .. } => op,
                _ => continue,
            };
            self.settle_closed(op);
        }
        self.settle_waiting_selections();
        for op in std::mem::take(&mut self.open_waiters) {
            self.settle(op, Outcome::Done);
        }
        for op in std::mem::take(&mut self.older_waiters) {
            self.settle(op, Outcome::Done);
        }
        self.buffer.clear();
        self.retries_reset();
    }
}
