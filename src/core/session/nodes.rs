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

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Stable id: the seq of the event that created the node (`"s<seq>"`).
    pub id: String,
    pub seq: Seq,
    pub turn: Option<u64>,
    pub kind: NodeKind,
    pub rev: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolStatus {
    Running,
    Completed,
    /// The turn ended with no result for the call.
    Interrupted,
}

impl ToolStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolStatus::Running => "running",
            ToolStatus::Completed => "completed",
            ToolStatus::Interrupted => "interrupted",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    /// `user/message` (steering = false) or `steering/message` (steering = true).
    User {
        content: Json,
        source: Json,
        steering: bool,
    },
    /// `context/message`: host-injected context (e.g. a plan-mode switch notice).
    Context {
        content: Json,
        source: Json,
    },
    Assistant {
        step: u64,
        content: Json,
        provenance: Json,
    },
    Tool {
        step: u64,
        call_id: String,
        name: String,
        arguments: Json,
        status: ToolStatus,
        result: Option<Json>,
        is_error: bool,
    },
    /// Streamed assistant text frozen by a `turn/end` before its `assistant/message`.
    Interrupted {
        step: u64,
        text: String,
        reason: String,
    },
    /// A committed plan-mode change, shown as a divider.
    PlanMode {
        active: bool,
    },
    /// A user-input prompt that was answered or cancelled, with the chosen answers.
    Interaction {
        prompt: Rc<UserInputPrompt>,
        answers: Vec<Answer>,
        outcome: PromptOutcome,
    },
    /// The agent's final plan, handed off for review.
    ProposedPlan {
        plan: ProposedPlan,
    },
}

impl NodeKind {
    pub fn type_name(&self) -> &'static str {
        match self {
            NodeKind::User { steering: false, .. } => "user",
            NodeKind::User { steering: true, .. } => "steering",
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
    pub turn: u64,
    pub step: u64,
    pub text: String,
    pub reasoning: String,
    /// First and last chunk seqs folded in.
    pub first_seq: Seq,
    pub last_seq: Seq,
    pub rev: u64,
}

/// Streaming plan prose (the newest plan-text item of the window).
#[derive(Debug, Clone, PartialEq)]
pub struct PlanText {
    pub item_id: String,
    pub turn: Option<u64>,
    pub text: String,
    /// `plan/text-done` arrived: the text is final.
    pub done: bool,
    pub rev: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RunningToolCall {
    pub call_id: String,
    pub name: String,
    pub turn: u64,
    pub step: u64,
    pub seq: Seq,
    pub rev: u64,
}

/// Equality that ignores revision stamps: used to keep identity across re-folds.
pub fn same_node(a: &Node, b: &Node) -> bool {
    a.id == b.id && a.seq == b.seq && a.turn == b.turn && a.kind == b.kind
}
