//! Extension 2: provider-agnostic interaction state (see `docs/CONTRACT-EXTENSIONS.md`).
//! Whole values travel as projections under the `PROJ_*` keys; streams (plan text) and
//! history (resolved prompts, proposed plans) travel as logged session events.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Projection key of the operating mode ([`ModeState`]).
pub const PROJ_MODE: &str = "interaction/mode";
/// Projection key of the provider capabilities ([`Capabilities`]).
pub const PROJ_CAPABILITIES: &str = "interaction/capabilities";
/// Projection key of the structured plan ([`PlanSteps`]).
pub const PROJ_PLAN_STEPS: &str = "interaction/plan";
/// Projection key of the proposed-plan handoff ([`ProposedPlan`] or `null`).
pub const PROJ_PROPOSED_PLAN: &str = "interaction/proposedPlan";
/// Projection key of the pending user-input prompts ([`PendingPrompts`]).
pub const PROJ_USER_INPUT: &str = "interaction/userInput";
/// Projection key of the plan-mode state (`{active, pending?}`), Extension 1.
pub const PROJ_PLAN: &str = "plan";

/// Logged: a piece of streaming plan prose ([`PlanTextDelta`]).
pub const EV_PLAN_TEXT_DELTA: &str = "plan/text-delta";
/// Logged: the plan prose item is complete ([`PlanTextDone`]).
pub const EV_PLAN_TEXT_DONE: &str = "plan/text-done";
/// Logged: a user-input prompt was asked ([`PromptRequestedEvent`]).
pub const EV_PROMPT_REQUESTED: &str = "interaction/prompt-requested";
/// Logged: a user-input prompt was answered or cancelled ([`PromptResolvedEvent`]).
pub const EV_PROMPT_RESOLVED: &str = "interaction/prompt-resolved";
/// Logged: the agent proposed a final plan ([`ProposedPlan`]).
pub const EV_PLAN_PROPOSED: &str = "plan/proposed";
/// Logged: the operating mode changed ([`ModeState`]).
pub const EV_MODE_CHANGED: &str = "interaction/mode";
/// Logged: the provider's native payload behind a canonical event, kept for debugging.
pub const EV_PROVIDER_NATIVE: &str = "provider/native";

/// The answer method: `session.answer {sessionId, promptId, answers}` -> `Receipt`.
pub const SESSION_ANSWER: &str = "session.answer";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OperatingMode {
    Default,
    Plan,
    Ask,
    Execute,
    #[serde(other)]
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModeState {
    pub mode: OperatingMode,
    /// The provider's own name for the mode (e.g. ACP `agent`), for display and debugging.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native: Option<String>,
}

/// What a provider can honestly do. A UI renders from these, never from provider names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Capabilities {
    pub supports_plan_mode: bool,
    pub supports_ask_mode: bool,
    pub supports_structured_plan_updates: bool,
    pub supports_plan_text_streaming: bool,
    pub supports_structured_user_input: bool,
    pub supports_freeform_user_input: bool,
    pub supports_exit_plan_mode: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StepStatus {
    Pending,
    InProgress,
    Completed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provenance {
    /// The provider emitted the structure itself.
    Native,
    /// The adapter derived it (e.g. from a markdown plan).
    Synthesized,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanStep {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub text: String,
    pub status: StepStatus,
    pub source: Provenance,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanSteps {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
    pub steps: Vec<PlanStep>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanTextDelta {
    pub item_id: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanTextDone {
    pub item_id: String,
    /// The whole prose; replaces the accumulated deltas.
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProposedPlan {
    pub plan_id: String,
    pub markdown: String,
    pub source: Provenance,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptOption {
    pub id: String,
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommended: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptQuestion {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default)]
    pub options: Vec<PromptOption>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multi_select: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_freeform: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freeform_placeholder: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

/// A structured user-input prompt (1..n questions). Approvals are a separate thing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserInputPrompt {
    pub prompt_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub questions: Vec<PromptQuestion>,
    /// Which native surface produced it (e.g. `codex:requestUserInput`, `claude:AskUserQuestion`).
    pub source: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingPrompts {
    pub prompts: Vec<UserInputPrompt>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    pub question_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected_option_ids: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptAnswers {
    pub prompt_id: String,
    pub answers: Vec<Answer>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnswerPayload {
    pub session_id: String,
    pub prompt_id: String,
    pub answers: Vec<Answer>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptRequestedEvent {
    pub prompt: UserInputPrompt,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PromptOutcome {
    Answered,
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptResolvedEvent {
    pub prompt: UserInputPrompt,
    #[serde(default)]
    pub answers: Vec<Answer>,
    pub outcome: PromptOutcome,
}

/// `provider/native`: the raw payload a canonical event came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NativePayload {
    pub provider: String,
    pub kind: String,
    pub payload: Value,
}

impl PromptAnswers {
    /// Checks answers against their prompt: every id known, options exist, single-select
    /// has at most one option, freeform only where allowed, required questions answered.
    pub fn validate(&self, prompt: &UserInputPrompt) -> Result<(), String> {
        for a in &self.answers {
            let q = prompt
                .questions
                .iter()
                .find(|q| q.id == a.question_id)
                .ok_or_else(|| format!("unknown question {:?}", a.question_id))?;
            let selected = a.selected_option_ids.as_deref().unwrap_or(&[]);
            for id in selected {
                if !q.options.iter().any(|o| &o.id == id) {
                    return Err(format!("unknown option {id:?} for question {:?}", q.id));
                }
            }
            if selected.len() > 1 && q.multi_select != Some(true) {
                return Err(format!("question {:?} takes one option", q.id));
            }
            if a.text.as_deref().is_some_and(|t| !t.is_empty()) && q.allow_freeform == Some(false) {
                return Err(format!("question {:?} takes no free text", q.id));
            }
        }
        for q in &prompt.questions {
            if q.required == Some(true) {
                let answered = self.answers.iter().any(|a| {
                    a.question_id == q.id
                        && (a.selected_option_ids.as_ref().is_some_and(|s| !s.is_empty())
                            || a.text.as_ref().is_some_and(|t| !t.is_empty()))
                });
                if !answered {
                    return Err(format!("question {:?} is required", q.id));
                }
            }
        }
        Ok(())
    }
}
