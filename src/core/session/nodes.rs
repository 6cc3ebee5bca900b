//! The renderable conversation: nodes, the streaming partial, running tool calls.
//! Each value carries a `rev` stamp; an unchanged value keeps its `Rc` and its stamp, which is
//! what the wasm export cache keys JS object identity on.

use crate::core::wire::interaction::{Answer, PromptOutcome, ProposedPlan, UserInputPrompt};
use crate::core::wire::{Json, Seq};
use std::rc::Rc;

/// Monotonic per-session stamp source for revisions.
#[derive(Debug, Default, Clone)]
pub struct Stamps(u64);

impl Stamps {
    /// The next revision stamp (a counter, not an iterator: it never ends).
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 += 1;
        self.0
    }
}

/// One entry of the rendered conversation, made by one logged event.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Stable id: the seq of the event that created the node (`"s<seq>"`).
    pub id: String,
    /// The seq of the event that made it.
    pub seq: Seq,
    /// The turn it belongs to (`None` outside a turn).
    pub turn: Option<u64>,
    /// What it shows.
    pub kind: NodeKind,
    /// Changes whenever the node does; the export cache keys JS identity on it.
    pub rev: u64,
}

/// Where a tool call stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolStatus {
    /// Called, no result yet.
    Running,
    /// Its result arrived.
    Completed,
    /// The turn ended with no result for the call.
    Interrupted,
}

impl ToolStatus {
    /// The name the UI sees (`running`, `completed`, `interrupted`).
    pub fn as_str(self) -> &'static str {
        match self {
            ToolStatus::Running => "running",
            ToolStatus::Completed => "completed",
            ToolStatus::Interrupted => "interrupted",
        }
    }
}

/// What a [`Node`] shows, one variant per kind of entry.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    /// `user/message` (steering = false) or `steering/message` (steering = true).
    User {
        /// The message's content parts, raw.
        content: Json,
        /// Who wrote it, raw.
        source: Json,
        /// Sent while a turn ran.
        steering: bool,
        /// `source.rpcId` when the source has one: the id of the outbox prompt it replaces.
        client_id: Option<String>,
    },
    /// A prompt of this client that the host's log does not show yet (the outbox's echo).
    Echo {
        /// `mode: 'steer'`.
        steering: bool,
        /// The content blocks, as given.
        content: Json,
        /// `{kind: 'user', rpcId}`, as the host will write it.
        source: Json,
        /// `waiting`, `sending`, `sent` or `failed`.
        delivery: &'static str,
        /// Why the host refused it, when it did.
        error: Option<crate::core::wire::RpcError>,
    },
    /// `context/message`: host-injected context (e.g. a plan-mode switch notice).
    Context {
        /// The content parts, raw.
        content: Json,
        /// Who injected it, raw.
        source: Json,
    },
    /// `assistant/message`: a step's whole answer.
    Assistant {
        /// The step that answered.
        step: u64,
        /// The answer's content parts, raw.
        content: Json,
        /// Where it came from (model, provider), raw.
        provenance: Json,
    },
    /// `tool/call` and, once it arrives, its `tool/result`.
    Tool {
        /// The step that called.
        step: u64,
        /// Pairs the call with its result.
        call_id: String,
        /// The tool's name.
        name: String,
        /// The call's arguments, raw.
        arguments: Json,
        /// Where the call stands.
        status: ToolStatus,
        /// What the tool returned, once it did.
        result: Option<Json>,
        /// The tool failed.
        is_error: bool,
    },
    /// Streamed assistant text frozen by a `turn/end` before its `assistant/message`.
    Interrupted {
        /// The step the text belonged to.
        step: u64,
        /// The text streamed so far.
        text: String,
        /// The `turn/end` reason's kind.
        reason: String,
    },
    /// A committed plan-mode change, shown as a divider.
    PlanMode {
        /// Plan mode is on from here.
        active: bool,
    },
    /// A user-input prompt that was answered or cancelled, with the chosen answers.
    Interaction {
        /// The prompt as asked.
        prompt: Rc<UserInputPrompt>,
        /// The answers given (none when cancelled).
        answers: Vec<Answer>,
        /// Answered or cancelled.
        outcome: PromptOutcome,
    },
    /// The agent's final plan, handed off for review.
    ProposedPlan {
        /// The plan as proposed.
        plan: ProposedPlan,
    },
}

impl NodeKind {
    /// The `type` the UI sees (`user`, `steering`, `assistant`, `tool`, ...).
    pub fn type_name(&self) -> &'static str {
        match self {
            NodeKind::User { steering: false, .. } | NodeKind::Echo { steering: false, .. } => "user",
            NodeKind::User { steering: true, .. } | NodeKind::Echo { steering: true, .. } => "steering",
            NodeKind::Context { .. } => "context",
            NodeKind::Assistant { .. } => "assistant",
            NodeKind::Tool { .. } => "tool",
            NodeKind::Interrupted { .. } => "interrupted",
            NodeKind::PlanMode { .. } => "plan-mode",
            NodeKind::Interaction { .. } => "interaction",
            NodeKind::ProposedPlan { .. } => "proposed-plan",
        }
    }
}

/// Streaming assistant text not yet finalized by `assistant/message`.
#[derive(Debug, Clone, PartialEq)]
pub struct Partial {
    /// The turn it streams in.
    pub turn: u64,
    /// The step it streams in.
    pub step: u64,
    /// The answer's text so far.
    pub text: String,
    /// The reasoning text so far.
    pub reasoning: String,
    /// First and last chunk seqs folded in.
    pub first_seq: Seq,
    /// The last chunk seq folded in.
    pub last_seq: Seq,
    /// Changes whenever the partial does (export cache key).
    pub rev: u64,
}

/// Streaming plan prose (the newest plan-text item of the window).
#[derive(Debug, Clone, PartialEq)]
pub struct PlanText {
    /// The prose item it shows.
    pub item_id: String,
    /// The turn it belongs to, when the host says.
    pub turn: Option<u64>,
    /// The prose so far (the whole prose once done).
    pub text: String,
    /// `plan/text-done` arrived: the text is final.
    pub done: bool,
    /// Changes whenever the text does (export cache key).
    pub rev: u64,
}

/// A tool call without its result yet, for a "running" indicator.
#[derive(Debug, Clone, PartialEq)]
pub struct RunningToolCall {
    /// Pairs it with its result.
    pub call_id: String,
    /// The tool's name.
    pub name: String,
    /// The turn of the call.
    pub turn: u64,
    /// The step of the call.
    pub step: u64,
    /// The seq of the `tool/call` event.
    pub seq: Seq,
    /// Changes whenever the entry does (export cache key).
    pub rev: u64,
}

/// Equality that ignores revision stamps: used to keep identity across re-folds.
pub fn same_node(a: &Node, b: &Node) -> bool {
    a.id == b.id && a.seq == b.seq && a.turn == b.turn && a.kind == b.kind
}
