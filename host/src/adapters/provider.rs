//! The three provider adapters behind one interface.

use super::canonical::{AnswerError, Answered, Canonical};
use super::{acp, claude, codex};
use agent_session_wire::interaction::{Answer, Capabilities};
use serde_json::Value;

/// The three provider adapters behind one interface, picked by `session.create`'s `provider`.
#[derive(Debug)]
pub enum ProviderAdapter {
    Codex(codex::CodexAdapter),
    Claude(claude::ClaudeAdapter),
    Cursor(acp::AcpAdapter),
}

impl ProviderAdapter {
    /// `codex`, `claude` or `cursor`; anything else (incl. `default`) has no adapter.
    pub fn for_provider(name: &str) -> Option<Self> {
        match name {
            "codex" => Some(ProviderAdapter::Codex(codex::CodexAdapter::new())),
            "claude" => Some(ProviderAdapter::Claude(claude::ClaudeAdapter::new())),
            "cursor" => Some(ProviderAdapter::Cursor(acp::AcpAdapter::cursor())),
            _ => None,
        }
    }

    pub fn capabilities(&self) -> Capabilities {
        match self {
            ProviderAdapter::Codex(a) => a.capabilities(),
            ProviderAdapter::Claude(a) => a.capabilities(),
            ProviderAdapter::Cursor(a) => a.capabilities(),
        }
    }

    pub fn ingest(&mut self, msg: &Value) -> Vec<Canonical> {
        match self {
            ProviderAdapter::Codex(a) => a.ingest(msg),
            ProviderAdapter::Claude(a) => a.ingest(msg),
            ProviderAdapter::Cursor(a) => a.ingest(msg),
        }
    }

    /// Answers a pending user-input prompt (ACP has none: always `NotPending`).
    pub fn answer(&mut self, prompt_id: &str, answers: &[Answer]) -> Result<Answered, AnswerError> {
        match self {
            ProviderAdapter::Codex(a) => a.answer(prompt_id, answers),
            ProviderAdapter::Claude(a) => a.answer(prompt_id, answers),
            ProviderAdapter::Cursor(_) => Err(AnswerError::NotPending),
        }
    }

    /// The native reply to a pending approval (only ACP's `session/request_permission` is
    /// mapped to approvals: elsewhere always `NotPending`).
    pub fn respond_approval(
        &mut self,
        approval_id: &str,
        outcome: agent_session_wire::ApprovalOutcome,
    ) -> Result<Value, AnswerError> {
        match self {
            ProviderAdapter::Cursor(a) => a.respond_approval(approval_id, outcome),
            _ => Err(AnswerError::NotPending),
        }
    }
}
