//! Questions and approvals waiting for `/api/respond`, keyed by the rpcId of the frame that
//! asked. Pending frames are replayed on every mux open, in the order they were asked.

use crate::log::hub::OutFrame;
use agent_session_wire::{ApprovalOutcome, ReceiptReason, RpcResult};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Question,
    Approval,
}

struct Pending {
    order: u64,
    session_id: String,
    kind: Kind,
    frame: Arc<OutFrame>,
    answer: oneshot::Sender<RpcResult<Value>>,
}

#[derive(Default)]
pub struct Interactions {
    inner: Mutex<(u64, BTreeMap<String, Pending>)>,
}

/// The value an approval answer must carry.
#[derive(Deserialize)]
pub struct ApprovalAnswer {
    pub outcome: ApprovalOutcome,
}

impl Interactions {
    fn lock(&self) -> std::sync::MutexGuard<'_, (u64, BTreeMap<String, Pending>)> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a question/approval; the receiver gets the client's result.
    pub fn register(&self, session_id: &str, kind: Kind, frame: Arc<OutFrame>) -> oneshot::Receiver<RpcResult<Value>> {
        let (tx, rx) = oneshot::channel();
        let mut g = self.lock();
        g.0 += 1;
        let order = g.0;
        g.1.insert(
            frame.rpc_id.clone(),
            Pending { order, session_id: session_id.to_string(), kind, frame, answer: tx },
        );
        rx
    }

    pub fn remove(&self, rpc_id: &str) {
        self.lock().1.remove(rpc_id);
    }

    /// Forgets every pending interaction of the given sessions (or all with `None`).
    pub fn clear(&self, session: Option<&str>) {
        self.lock().1.retain(|_, p| session.is_some_and(|s| s != p.session_id));
    }

    /// Frames to replay on a mux open, oldest first.
    pub fn snapshot(&self) -> Vec<Arc<OutFrame>> {
        let g = self.lock();
        let mut v: Vec<_> = g.1.values().map(|p| (p.order, p.frame.clone())).collect();
        v.sort_by_key(|(o, _)| *o);
        v.into_iter().map(|(_, f)| f).collect()
    }

    /// Delivers a client response. A value failing the interaction's schema is refused and
    /// the interaction stays pending.
    pub fn answer(&self, rpc_id: &str, result: RpcResult<Value>) -> Result<(), ReceiptReason> {
        let mut g = self.lock();
        let pending = g.1.get(rpc_id).ok_or(ReceiptReason::NotPending)?;
        if let Ok(value) = &result {
            let ok = match pending.kind {
                Kind::Question => value.is_object(),
                Kind::Approval => ApprovalAnswer::deserialize(value)
                    .is_ok_and(|a| matches!(a.outcome, ApprovalOutcome::AllowedOnce | ApprovalOutcome::Rejected)),
            };
            if !ok {
                return Err(ReceiptReason::BadResponse);
            }
        }
        let pending = g.1.remove(rpc_id).ok_or(ReceiptReason::NotPending)?;
        // The asking turn may have ended in between: then it is no longer pending.
        pending.answer.send(result).map_err(|_| ReceiptReason::NotPending)
    }
}
