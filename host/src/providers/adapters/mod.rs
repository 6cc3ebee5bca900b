//! Provider adapters: native payloads in, canonical (Extension 2) outputs out.
//!
//! One adapter per provider family, each a small state struct whose `ingest` maps one native
//! message to a list of [`Canonical`] outputs:
//!
//! - [`codex::CodexAdapter`]: Codex app-server JSON-RPC (notifications, server requests, and
//!   the client's own `turn/start` for the collaboration mode);
//! - [`claude::ClaudeAdapter`]: Claude Agent SDK messages (`system`, `assistant`, `user`);
//! - [`acp::AcpAdapter`]: Agent Client Protocol (`session/update`, `session/request_permission`,
//!   the `session/new` result), used with the Cursor profile.
//!
//! Rules every adapter keeps:
//! - A non-empty output list starts with one `provider/native` event carrying the raw payload
//!   (debugging; the client's fold ignores it). A message with nothing canonical in it yields
//!   an empty list.
//! - A malformed payload is dropped: the output is a single [`Canonical::Diagnostic`] (no
//!   canonical event, no native event), never a panic.
//! - Events carry the canonical data without `turn`/`step`: the host stamps its own turn (and
//!   step, for assistant/tool outputs) when it appends them to the log.
//! - State is kept only where the protocol needs it: plan text per item, pending prompts and
//!   approvals (to answer and resolve them), and the last mode (mode events on change only).
//! - Capabilities are the honest per-provider sets of [`capabilities`]; adapters never claim
//!   more. User-input prompts and approvals are separate: only ACP's `session/request_permission`,
//!   Codex's `item/commandExecution/requestApproval` / `item/fileChange/requestApproval` and
//!   Claude Code's `can_use_tool` (of any tool but AskUserQuestion) become
//!   [`Canonical::Approval`] (answered with `respond_approval`); an approval closed by the agent
//!   without our answer is [`Canonical::ApprovalWithdrawn`].
//!
//! Modules: [`codex`], [`claude`], [`acp`], [`capabilities`], `canonical` (the outputs and
//! helpers they share), `provider` (the three behind one interface); tests: `tests` (the
//! provider fixtures), `codex_real_tests` (transcripts of the real `codex app-server`) and
//! `claude_real_tests` (transcripts of the real Claude Code) and `acp_real_tests` (transcripts of
//! the real `claude-code-acp`).

// The provider profiles (`crate::providers::scripted`) use the Codex, Claude and Cursor adapters; parts of
// this API (approvals, per-adapter accessors) are exercised only by the tests.
#![allow(dead_code)]

pub mod acp;
#[cfg(test)]
mod acp_real_tests;
mod canonical;
pub mod capabilities;
pub mod claude;
#[cfg(test)]
mod claude_real_tests;
pub mod codex;
#[cfg(test)]
mod codex_real_tests;
mod provider;
#[cfg(test)]
mod tests;

pub use canonical::*;
pub use provider::ProviderAdapter;
