//! Frames from the mux and host streams that concern this session.

use super::pending::question_key;
use super::pending::{approval_key, PendingKind};
use super::Session;
use crate::core::wire::{Frame, InboundFrame, Seq};
use std::rc::Rc;

impl Session {
    /// One decoded frame for this session (the driver routes by `sessionId`).
    pub fn on_frame(&mut self, inbound: InboundFrame) {
        let InboundFrame { rpc_id, frame } = inbound;
        match frame {
            Frame::Event(f) => self.on_live_event(f.event),
            Frame::Subscribed(f) => self.on_subscribed(f.last_seq),
            Frame::Title(f) => {
                if self.title.as_deref() != Some(f.title.as_str()) {
                    self.title = Some(f.title);
                    self.meta_changed();
                }
            }
            Frame::Projection(f) => {
                if !self.life.is_closed() {
                    let rev = self.stamps.next();
                    self.dirty |= self.projections.apply_frame(&f.key, f.value, f.seq, rev);
                }
            }
            Frame::Queue(f) => {
                if self.queue.as_deref() != Some(&f.items) {
                    self.queue = Some(Rc::new(f.items));
                    self.queue_rev = self.stamps.next();
                    self.outbox_queue_changed();
                    self.dirty = true;
                }
            }
            Frame::ApprovalRequested(f) => {
                let rev = self.stamps.next();
                self.dirty |= self.pending.approval(&f, &rpc_id, rev);
            }
            Frame::ApprovalResolved(f) => {
                let rev = self.stamps.next();
                self.dirty |= self.pending.resolve(&approval_key(&f.approval_id), rev);
            }
            Frame::QuestionRequested(f) => {
                let rev = self.stamps.next();
                let kind = PendingKind::Question { questions: f.questions };
                self.dirty |= self.pending.request(question_key(&rpc_id), rpc_id, kind, rev);
            }
            Frame::QuestionResolved(f) => {
                let rev = self.stamps.next();
                self.dirty |= self.pending.resolve(&question_key(&f.question_rpc_id), rev);
            }
            Frame::SessionStatus(f) => {
                if self.running != f.running {
                    self.running = f.running;
                    self.meta_changed();
                }
            }
            Frame::AgentError(f) => {
                self.last_agent_error = Some(f.message);
                self.meta_changed();
            }
            Frame::SessionAdded(_) | Frame::SessionRemoved(_) | Frame::StreamError(_) | Frame::RemoteEvent(_) => {}
        }
        self.diag.pending_dropped = self.pending.dropped;
        self.flush();
    }

    /// `session/subscribed {lastSeq}`: the host's tail as this connection began.
    fn on_subscribed(&mut self, last_seq: Seq) {
        self.host_last_seq = Some(last_seq);
        let rev = self.stamps.next();
        self.dirty |= self.projections.truncate_after(last_seq, rev);
        if !self.life.is_live() {
            return; // checked again when the window is (re)built
        }
        if last_seq < self.tail_seq() {
            // The host restarted without part of its log: rebuild from its truth.
            self.plan.forget_commits();
            self.resync_inner();
        } else {
            self.maybe_repair();
        }
    }
}
