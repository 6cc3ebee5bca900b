//! Pending approvals and questions awaiting `respond()`.

use crate::core::wire::{ApprovalRequested, Question};
use std::rc::Rc;

/// What the host waits on the user for.
#[derive(Debug, Clone, PartialEq)]
pub enum PendingKind {
    /// A tool asks leave to run.
    Approval {
        /// The host's id of the approval.
        approval_id: String,
        /// The tool that asks.
        tool_name: String,
        /// The tool call it is for, when the host says.
        call_id: Option<String>,
        /// Why the tool asks, when the host says.
        reason: Option<String>,
    },
    /// A structured question frame: its questions, answered in one response.
    Question {
        /// The questions, in order.
        questions: Vec<Question>,
    },
}

/// One approval or question the host waits on, until `respond()` or a resolved frame.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingInteraction {
    /// `approval:<approvalId>` or `question:<rpcId>`; what `respond(key, …)` takes.
    pub key: String,
    /// The envelope rpcId of the requested frame: the client-response answers it.
    pub rpc_id: String,
    /// What it asks.
    pub kind: PendingKind,
    /// Changes whenever the entry does (export cache key).
    pub rev: u64,
}

impl PendingInteraction {
    /// The name the UI sees (`approval`, `question`).
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            PendingKind::Approval { .. } => "approval",
            PendingKind::Question { .. } => "question",
        }
    }
}

/// The `respond()` key of an approval.
pub fn approval_key(approval_id: &str) -> String {
    format!("approval:{approval_id}")
}
/// The `respond()` key of a question (its frame's rpcId: questions carry no id of their own).
pub fn question_key(rpc_id: &str) -> String {
    format!("question:{rpc_id}")
}

/// Most interactions pending at once in one session; a host asking more is dropped and counted.
pub const MAX_PENDING: usize = 256;
/// Most settled keys remembered; past it they are forgotten (a late `respond` is then sent
/// and the host refuses it, instead of being refused here).
pub const MAX_SETTLED: usize = 1024;

/// Invariant: at most [`MAX_PENDING`] items and [`MAX_SETTLED`] settled keys.
#[derive(Debug, Default, Clone)]
pub struct PendingSet {
    /// The waits, in the order they were asked.
    pub items: Vec<Rc<PendingInteraction>>,
    /// Changes whenever `items` does (export cache key).
    pub rev: u64,
    /// Requests dropped because [`MAX_PENDING`] were pending.
    pub dropped: u64,
    /// Keys settled by a resolved frame: a late `respond` is refused without a request.
    /// Sorted (binary search); a `Vec`, not a `HashSet`, for wasm size.
    settled: Vec<String>,
    /// Questions held over a reconnect that the new connection has not replayed yet. The host
    /// replays every still-pending question on a mux open, so one still unconfirmed when the
    /// new window is installed is gone on the host (e.g. it restarted without it).
    unconfirmed: Vec<String>,
}

impl PendingSet {
    /// The wait with `key`, if pending.
    pub fn get(&self, key: &str) -> Option<&Rc<PendingInteraction>> {
        self.items.iter().find(|p| p.key == key)
    }

    /// A requested frame, live or replayed on a mux open: (re-)mints the wait.
    /// Returns whether the set changed.
    pub fn request(&mut self, key: String, rpc_id: String, kind: PendingKind, rev: u64) -> bool {
        if let Ok(i) = self.settled.binary_search(&key) {
            self.settled.remove(i);
        }
        self.unconfirmed.retain(|k| *k != key);
        let item = PendingInteraction { key, rpc_id, kind, rev };
        let full = self.items.len() >= MAX_PENDING;
        match self.items.iter_mut().find(|p| p.key == item.key) {
            Some(existing) if existing.rpc_id == item.rpc_id && existing.kind == item.kind => false,
            Some(existing) => {
                *existing = Rc::new(item);
                self.rev = rev;
                true
            }
            None if full => {
                self.dropped += 1;
                false
            }
            None => {
                self.items.push(Rc::new(item));
                self.rev = rev;
                true
            }
        }
    }

    /// An `approval/requested` frame: (re-)mints its wait. Returns whether the set changed.
    pub fn approval(&mut self, f: &ApprovalRequested, rpc_id: &str, rev: u64) -> bool {
        let kind = PendingKind::Approval {
            approval_id: f.approval_id.clone(),
            tool_name: f.tool_name.clone(),
            call_id: f.call_id.clone(),
            reason: f.reason.clone(),
        };
        self.request(approval_key(&f.approval_id), rpc_id.to_string(), kind, rev)
    }

    /// A resolved frame (or a host that says the wait is gone). Duplicates are no-ops.
    pub fn resolve(&mut self, key: &str, rev: u64) -> bool {
        if let Err(i) = self.settled.binary_search_by(|k| k.as_str().cmp(key)) {
            if self.settled.len() >= MAX_SETTLED {
                self.settled.clear();
                self.settled.push(key.to_string());
            } else {
                self.settled.insert(i, key.to_string());
            }
        }
        let before = self.items.len();
        self.items.retain(|p| p.key != key);
        let changed = self.items.len() != before;
        if changed {
            self.rev = rev;
        }
        changed
    }

    /// The connection ended: every held question waits for its replay.
    pub fn connection_lost(&mut self) {
        self.unconfirmed.clear();
        for p in &self.items {
            if matches!(p.kind, PendingKind::Question { .. }) {
                self.unconfirmed.push(p.key.clone());
            }
        }
    }

    /// The new connection's window is in: questions it did not replay are dropped.
    pub fn drop_unconfirmed(&mut self, rev: u64) -> bool {
        let gone = std::mem::take(&mut self.unconfirmed);
        let before = self.items.len();
        self.items.retain(|p| !gone.contains(&p.key));
        let changed = self.items.len() != before;
        if changed {
            self.rev = rev;
        }
        changed
    }

    /// Whether `key` was settled by a resolved frame (a late `respond` is refused here).
    pub fn is_settled(&self, key: &str) -> bool {
        self.settled.binary_search_by(|k| k.as_str().cmp(key)).is_ok()
    }
}
