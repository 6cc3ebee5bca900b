//! The three provider adapters behind one interface.

use super::canonical::{AnswerError, Answered, Canonical};
use super::{acp, claude, codex};
use crate::providers::registry::Provider;
use agent_session_wire::interaction::{Answer, Capabilities};
use serde_json::Value;

/// The three provider adapters behind one interface, picked by `session.create`'s `provider`.
#[derive(Debug)]
pub enum ProviderAdapter {
    Codex(codex::CodexAdapter),
    Claude(claude::ClaudeAdapter),
    /// ACP: the scripted Cursor profile, and any real ACP agent (`Provider::Acp`).
    Cursor(acp::AcpAdapter),
}

impl ProviderAdapter {
    /// A fresh adapter for the provider's native protocol.
    pub fn for_provider(p: Provider) -> Self {
        match p {
            Provider::Codex => ProviderAdapter::Codex(codex::CodexAdapter::new()),
            Provider::Claude => ProviderAdapter::Claude(claude::ClaudeAdapter::new()),
            Provider::Cursor => ProviderAdapter::Cursor(acp::AcpAdapter::cursor()),
            Provider::Acp => ProviderAdapter::Cursor(acp::AcpAdapter::agent()),
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

    /// The whole response to write to the agent for a pending approval (ACP's
    /// `session/request_permission`, Codex's command/file-change approval requests, Claude
    /// Code's `can_use_tool` control requests).
    pub fn respond_approval(
        &mut self,
        approval_id: &str,
        outcome: agent_session_wire::ApprovalOutcome,
    ) -> Result<Value, AnswerError> {
        match self {
            ProviderAdapter::Codex(a) => a.respond_approval(approval_id, outcome),
            ProviderAdapter::Cursor(a) => a.respond_approval(approval_id, outcome),
            ProviderAdapter::Claude(a) => a.respond_approval(approval_id, outcome),
        }
    }

    /// The answer to Codex's `thread/start` / `thread/resume` (bare result or whole response):
    /// the mode when it carries `collaborationMode`. Other providers: nothing.
    pub fn ingest_thread_result(&mut self, result: &Value) -> Vec<Canonical> {
        match self {
            ProviderAdapter::Codex(a) => a.ingest_thread_result(result),
            _ => Vec::new(),
        }
    }

    /// Scopes Codex server-request ids (one scope per codex process; see
    /// [`codex::CodexAdapter::set_request_scope`]). Other providers: no-op.
    pub fn set_request_scope(&mut self, scope: &str) {
        if let ProviderAdapter::Codex(a) = self {
            a.set_request_scope(scope);
        }
    }
}
