//! Extension 2: provider-agnostic interaction state (see `docs/CONTRACT-EXTENSIONS.md`).
//! Whole values travel as projections under the `PROJ_*` keys; streams (plan text) and
//! history (resolved prompts, proposed plans) travel as logged session events.

//!
//! Each type is one field list ([`record!`]): the client reads it with the generated
//! [`super::read::FromObj`] (no `Deserialize` code in the wasm), the host writes and parses it
//! with the generated derives.

use super::read::{ReadError, ReadResult};
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
/// The 2026-08 host keeps the session title as a projection (a string or `null`).
pub const PROJ_TITLE: &str = "title";

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

wire_enum! {
    /// The agent's operating mode. A mode this client does not know reads as `Unknown`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum OperatingMode {
        /// The provider's ordinary mode.
        Default = "default",
        /// The agent plans before it acts.
        Plan = "plan",
        /// The agent answers without changing anything.
        Ask = "ask",
        /// The agent carries the work out.
        Execute = "execute",
    }
    other =
        /// A mode this client does not know.
        Unknown = "unknown";
}

impl OperatingMode {
    /// Total, like `#[serde(other)]`: a mode this client does not know reads as `Unknown`.
    pub fn from_name(name: &str) -> OperatingMode {
        OperatingMode::from_wire(name).unwrap_or(OperatingMode::Unknown)
    }
}

record! {
    /// The operating mode and the provider's name for it (the projection and the
    /// `interaction/mode` event).
    #[derive(Debug, Clone, PartialEq)]
    pub struct ModeState {
        /// The mode, as this client knows it.
        pub mode: OperatingMode = "mode",
        /// The provider's own name for the mode (e.g. ACP `agent`), for display and debugging.
        pub native: Option<String> = opt "native",
    }
}

record! {
    /// What a provider can honestly do. A UI renders from these, never from provider names.
    /// Every flag is required: the type's `Default` is not a wire default.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub struct Capabilities {
        /// The provider has a plan mode.
        pub supports_plan_mode: bool = "supportsPlanMode",
        /// The provider has an ask mode.
        pub supports_ask_mode: bool = "supportsAskMode",
        /// The provider publishes its plan as steps ([`PlanSteps`]).
        pub supports_structured_plan_updates: bool = "supportsStructuredPlanUpdates",
        /// The provider streams plan prose ([`PlanTextDelta`]).
        pub supports_plan_text_streaming: bool = "supportsPlanTextStreaming",
        /// The provider asks the user structured questions ([`UserInputPrompt`]).
        pub supports_structured_user_input: bool = "supportsStructuredUserInput",
        /// The provider accepts free-text answers.
        pub supports_freeform_user_input: bool = "supportsFreeformUserInput",
        /// The provider can leave plan mode on its own (a plan handoff).
        pub supports_exit_plan_mode: bool = "supportsExitPlanMode",
    }
}

wire_enum! {
    /// Where a plan step stands.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum StepStatus {
        /// Not started.
        Pending = "pending",
        /// Being worked on.
        InProgress = "inProgress",
        /// Done.
        Completed = "completed",
    }
}

wire_enum! {
    /// Who made a structure: the provider or the adapter.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Provenance {
        /// The provider emitted the structure itself.
        Native = "native",
        /// The adapter derived it (e.g. from a markdown plan).
        Synthesized = "synthesized",
    }
}

record! {
    /// One step of a structured plan.
    #[derive(Debug, Clone, PartialEq)]
    pub struct PlanStep {
        /// The provider's id for the step, when it has one.
        pub id: Option<String> = opt "id",
        /// What the step does.
        pub text: String = "text",
        /// Where it stands.
        pub status: StepStatus = "status",
        /// Who made it.
        pub source: Provenance = "source",
    }
}

record! {
    /// The structured plan (the `interaction/plan` projection).
    #[derive(Debug, Clone, PartialEq)]
    pub struct PlanSteps {
        /// The provider's summary of the plan, when given.
        pub explanation: Option<String> = opt "explanation",
        /// The steps, in order.
        pub steps: Vec<PlanStep> = "steps",
    }
}

record! {
    /// The data of `plan/text-delta`: a piece of streaming plan prose.
    #[derive(Debug, Clone, PartialEq)]
    pub struct PlanTextDelta {
        /// The prose item the piece belongs to.
        pub item_id: String = "itemId",
        /// The piece, appended to the item's text.
        pub text: String = "text",
    }
}

record! {
    /// The data of `plan/text-done`: a plan's prose is complete.
    #[derive(Debug, Clone, PartialEq)]
    pub struct PlanTextDone {
        /// The prose item that is complete.
        pub item_id: String = "itemId",
        /// The whole prose; replaces the accumulated deltas.
        pub text: String = "text",
    }
}

record! {
    /// The final plan the agent proposes, for the handoff card (`plan/proposed`,
    /// `interaction/proposedPlan`).
    #[derive(Debug, Clone, PartialEq)]
    pub struct ProposedPlan {
        /// The plan's id.
        pub plan_id: String = "planId",
        /// The plan as markdown.
        pub markdown: String = "markdown",
        /// Who made it.
        pub source: Provenance = "source",
    }
}

record! {
    /// One choice of a question.
    #[derive(Debug, Clone, PartialEq)]
    pub struct PromptOption {
        /// Sent back in [`Answer::selected_option_ids`].
        pub id: String = "id",
        /// What the user sees.
        pub label: String = "label",
        /// More words about the choice.
        pub description: Option<String> = opt "description",
        /// The provider suggests this choice.
        pub recommended: Option<bool> = opt "recommended",
    }
}

record! {
    /// One question of a prompt.
    #[derive(Debug, Clone, PartialEq)]
    pub struct PromptQuestion {
        /// Answers name it in [`Answer::question_id`].
        pub id: String = "id",
        /// A short heading above the question.
        pub header: Option<String> = opt "header",
        /// The question itself.
        pub label: String = "label",
        /// More words about the question.
        pub description: Option<String> = opt "description",
        /// The choices; none for a free-text question.
        pub options: Vec<PromptOption> = default "options",
        /// Several choices may be picked (absent: one).
        pub multi_select: Option<bool> = opt "multiSelect",
        /// Free text is accepted besides the choices.
        pub allow_freeform: Option<bool> = opt "allowFreeform",
        /// Placeholder text of the free-text field.
        pub freeform_placeholder: Option<String> = opt "freeformPlaceholder",
        /// The question must be answered.
        pub required: Option<bool> = opt "required",
    }
}

record! {
    /// A structured user-input prompt (1..n questions). Approvals are a separate thing.
    #[derive(Debug, Clone, PartialEq)]
    pub struct UserInputPrompt {
        /// Answers name it.
        pub prompt_id: String = "promptId",
        /// A heading for the whole prompt.
        pub title: Option<String> = opt "title",
        /// More words about the prompt.
        pub description: Option<String> = opt "description",
        /// The questions, in order.
        pub questions: Vec<PromptQuestion> = "questions",
        /// Which native surface produced it (e.g. `codex:requestUserInput`, `claude:AskUserQuestion`).
        pub source: String = "source",
    }
}

record! {
    /// The pending prompts (the `interaction/userInput` projection).
    #[derive(Debug, Clone, PartialEq)]
    pub struct PendingPrompts {
        /// The prompts not yet answered or cancelled.
        pub prompts: Vec<UserInputPrompt> = "prompts",
    }
}

record! {
    /// The answer to one question.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Answer {
        /// The question it answers.
        pub question_id: String = "questionId",
        /// The choices picked.
        pub selected_option_ids: Option<Vec<String>> = opt "selectedOptionIds",
        /// The free text given.
        pub text: Option<String> = opt "text",
    }
}

impl Answer {
    /// A whole text that is an array of answers (what `Session.answer` is handed from JS).
    pub fn read_list(text: &str) -> ReadResult<Vec<Answer>> {
        super::read::read_objects(text)
    }
}

record! {
    /// The answers to one prompt.
    #[derive(Debug, Clone, PartialEq)]
    pub struct PromptAnswers {
        /// The prompt answered.
        pub prompt_id: String = "promptId",
        /// One answer per question answered.
        pub answers: Vec<Answer> = "answers",
    }
}

record! {
    /// The arguments of `session.answer`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct AnswerPayload {
        /// The session the prompt belongs to.
        pub session_id: String = "sessionId",
        /// The prompt answered.
        pub prompt_id: String = "promptId",
        /// One answer per question answered.
        pub answers: Vec<Answer> = "answers",
    }
}

record! {
    /// The data of `interaction/prompt-requested`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct PromptRequestedEvent {
        /// The prompt asked.
        pub prompt: UserInputPrompt = "prompt",
    }
}

wire_enum! {
    /// How a prompt was resolved.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum PromptOutcome {
        /// The user answered it.
        Answered = "answered",
        /// It was withdrawn unanswered.
        Cancelled = "cancelled",
    }
}

record! {
    /// The data of `interaction/prompt-resolved`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct PromptResolvedEvent {
        /// The prompt resolved.
        pub prompt: UserInputPrompt = "prompt",
        /// The answers given (none when cancelled).
        pub answers: Vec<Answer> = default "answers",
        /// How it was resolved.
        pub outcome: PromptOutcome = "outcome",
    }
}

record! {
    /// `provider/native`: the raw payload a canonical event came from.
    #[derive(Debug, Clone, PartialEq)]
    pub struct NativePayload {
        /// The provider that sent it.
        pub provider: String = "provider",
        /// The provider's name for the payload's kind.
        pub kind: String = "kind",
        /// The payload, as the provider sent it.
        pub payload: Value = "payload",
    }
}

impl PromptAnswers {
    /// Checks answers against their prompt: every id known, options exist, single-select
    /// has at most one option, freeform only where allowed, required questions answered.
    pub fn validate(&self, prompt: &UserInputPrompt) -> ReadResult<()> {
        self.check(prompt).map_err(ReadError::invalid)
    }

    fn check(&self, prompt: &UserInputPrompt) -> Result<(), String> {
        for a in &self.answers {
            let q = prompt
                .questions
                .iter()
                .find(|q| q.id == a.question_id)
                .ok_or_else(|| format!("unknown question `{}`", a.question_id))?;
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

#[cfg(test)]
mod readers {
    use super::*;
    use serde_json::json;
    use std::fmt::Debug;

    use crate::read::{reads, FromObj};
    use serde::Serialize;

    fn accepts<T: FromObj + PartialEq + Debug>(v: Value) -> T {
        reads(&v.to_string()).unwrap_or_else(|| panic!("refused {v}"))
    }

    fn refuses<T: FromObj + PartialEq + Debug>(v: Value) {
        assert!(reads::<T>(&v.to_string()).is_none(), "accepted {v}");
    }

    /// What the host writes reads back as the same value.
    fn round_trips<T: FromObj + Serialize + PartialEq + Debug>(v: &T) {
        let text = serde_json::to_string(v).unwrap();
        assert_eq!(reads::<T>(&text).as_ref(), Some(v), "{text}");
    }

    fn prompt() -> Value {
        json!({"promptId": "p1", "questions": [{"id": "q1", "label": "Which?"}], "source": "codex:requestUserInput"})
    }

    #[test]
    fn mode_state_with_known_unknown_and_absent_names() {
        for mode in ["default", "plan", "ask", "execute", "unknown", "brainstorm", ""] {
            accepts::<ModeState>(json!({"mode": mode}));
        }
        assert_eq!(accepts::<ModeState>(json!({"mode": "brainstorm"})).mode, OperatingMode::Unknown);
        assert_eq!(accepts::<ModeState>(json!({"mode": "ask", "native": null})).native, None);
        let m = accepts::<ModeState>(json!({"mode": "plan", "native": "architect", "extra": [1]}));
        assert_eq!(m, ModeState { mode: OperatingMode::Plan, native: Some("architect".into()) });
        round_trips(&m);
        round_trips(&ModeState { mode: OperatingMode::Unknown, native: None });
        refuses::<ModeState>(json!({"native": "x"}));
        refuses::<ModeState>(json!({"mode": null}));
        refuses::<ModeState>(json!({"mode": 1}));
        refuses::<ModeState>(json!({"mode": "plan", "native": 2}));
        refuses::<ModeState>(json!("plan"));
    }

    #[test]
    fn capabilities_require_every_flag() {
        let all = json!({
            "supportsPlanMode": true, "supportsAskMode": false, "supportsStructuredPlanUpdates": true,
            "supportsPlanTextStreaming": false, "supportsStructuredUserInput": true,
            "supportsFreeformUserInput": false, "supportsExitPlanMode": true, "supportsTeleport": true
        });
        let c = accepts::<Capabilities>(all.clone());
        assert!(c.supports_exit_plan_mode && !c.supports_freeform_user_input);
        round_trips(&c);
        round_trips(&Capabilities::default());
        for key in all.as_object().unwrap().keys().filter(|k| *k != "supportsTeleport") {
            let mut missing = all.clone();
            missing.as_object_mut().unwrap().remove(key);
            refuses::<Capabilities>(missing);
            let mut null = all.clone();
            null[key] = Value::Null;
            refuses::<Capabilities>(null);
        }
        let mut wrong = all.clone();
        wrong["supportsPlanMode"] = json!("true");
        refuses::<Capabilities>(wrong);
    }

    #[test]
    fn plan_steps_with_every_status_and_provenance() {
        let s = accepts::<PlanSteps>(json!({"explanation": null, "steps": [
            {"text": "a", "status": "pending", "source": "native"},
            {"id": null, "text": "b", "status": "inProgress", "source": "synthesized"},
            {"id": "s3", "text": "c", "status": "completed", "source": "native", "note": {}}
        ]}));
        assert_eq!(s.steps[1].status, StepStatus::InProgress);
        assert_eq!(s.steps[2].id.as_deref(), Some("s3"));
        round_trips(&s);
        round_trips(&PlanSteps { explanation: Some("why".into()), steps: vec![] });
        let step = |v: Value| json!({"steps": [v]});
        refuses::<PlanSteps>(step(json!({"text": "a", "status": "done", "source": "native"})));
        refuses::<PlanSteps>(step(json!({"text": "a", "status": "in_progress", "source": "native"})));
        refuses::<PlanSteps>(step(json!({"text": "a", "status": "pending", "source": "other"})));
        refuses::<PlanSteps>(step(json!({"text": "a", "status": "pending"})));
        refuses::<PlanSteps>(step(json!({"status": "pending", "source": "native"})));
        refuses::<PlanSteps>(step(json!({"id": 3, "text": "a", "status": "pending", "source": "native"})));
        refuses::<PlanSteps>(step(json!("a")));
        refuses::<PlanSteps>(json!({}));
        refuses::<PlanSteps>(json!({"steps": null}));
        refuses::<PlanSteps>(json!({"steps": {}}));
        refuses::<PlanSteps>(json!({"steps": [], "explanation": false}));
    }

    #[test]
    fn plan_text_and_proposed_plan() {
        // Events carry `turn` in the same object; it is an extra member here.
        round_trips(&accepts::<PlanTextDelta>(json!({"itemId": "i", "text": "a\n\"b\"", "turn": 2})));
        round_trips(&accepts::<PlanTextDone>(json!({"itemId": "i", "text": ""})));
        refuses::<PlanTextDelta>(json!({"item_id": "i", "text": "a"}));
        refuses::<PlanTextDone>(json!({"itemId": "i", "text": null}));
        refuses::<PlanTextDone>(json!({"itemId": "i", "text": 1}));
        let p = accepts::<ProposedPlan>(json!({"planId": "p", "markdown": "# Plan", "source": "synthesized"}));
        assert_eq!(p.source, Provenance::Synthesized);
        round_trips(&p);
        refuses::<ProposedPlan>(json!({"planId": "p", "markdown": "# Plan"}));
        refuses::<ProposedPlan>(json!({"planId": "p", "markdown": "# Plan", "source": "Native"}));
        refuses::<ProposedPlan>(Value::Null);
    }

    #[test]
    fn prompts_with_optional_members_absent_null_and_present() {
        let full = accepts::<UserInputPrompt>(json!({
            "promptId": "p1", "title": "Runtime", "description": "pick one", "source": "claude:AskUserQuestion",
            "questions": [{
                "id": "q1", "header": "H", "label": "Which?", "description": "d",
                "options": [{"id": "o1", "label": "Node", "description": "js", "recommended": true},
                            {"id": "o2", "label": "Deno", "description": null, "recommended": null}],
                "multiSelect": false, "allowFreeform": true, "freeformPlaceholder": "other…", "required": true,
                "unknown": 1
            }]
        }));
        assert_eq!(full.questions[0].options[0].recommended, Some(true));
        round_trips(&full);
        let min = accepts::<UserInputPrompt>(prompt());
        assert!(min.questions[0].options.is_empty() && min.title.is_none());
        round_trips(&min);
        let nulls = accepts::<UserInputPrompt>(json!({
            "promptId": "p1", "title": null, "description": null, "source": "s",
            "questions": [{"id": "q", "label": "l", "header": null, "description": null, "multiSelect": null,
                           "allowFreeform": null, "freeformPlaceholder": null, "required": null}]
        }));
        let absent = json!({"promptId": "p1", "source": "s", "questions": [{"id": "q", "label": "l"}]});
        assert_eq!(nulls, accepts::<UserInputPrompt>(absent));
        let question = |q: Value| json!({"promptId": "p", "questions": [q], "source": "s"});
        // `#[serde(default)]` covers a missing list, not a null one.
        refuses::<UserInputPrompt>(question(json!({"id": "q", "label": "l", "options": null})));
        refuses::<UserInputPrompt>(question(json!({"id": "q", "label": "l", "multiSelect": "yes"})));
        refuses::<UserInputPrompt>(question(json!({"id": "q", "label": "l", "options": [{"id": "o"}]})));
        refuses::<UserInputPrompt>(question(json!({"id": "q"})));
        refuses::<UserInputPrompt>(json!({"promptId": "p", "source": "s"}));
        refuses::<UserInputPrompt>(json!({"promptId": "p", "questions": []}));
        round_trips(&accepts::<PendingPrompts>(json!({"prompts": [prompt(), prompt()]})));
        round_trips(&accepts::<PendingPrompts>(json!({"prompts": []})));
        refuses::<PendingPrompts>(json!({}));
        refuses::<PendingPrompts>(json!({"prompts": [1]}));
    }

    #[test]
    fn answers_and_prompt_events() {
        let a = accepts::<Answer>(json!({"questionId": "q", "selectedOptionIds": ["o1", "o\u{e9}"], "text": "t"}));
        round_trips(&a);
        round_trips(&accepts::<Answer>(json!({"questionId": "q", "selectedOptionIds": null, "text": null})));
        round_trips(&accepts::<Answer>(json!({"questionId": "q", "selectedOptionIds": []})));
        refuses::<Answer>(json!({"questionId": "q", "selectedOptionIds": [1]}));
        refuses::<Answer>(json!({"questionId": "q", "selectedOptionIds": "o1"}));
        refuses::<Answer>(json!({"selectedOptionIds": []}));

        let list = json!([{"questionId": "q"}, {"questionId": "r", "text": "x"}]).to_string();
        assert_eq!(Answer::read_list(&list).unwrap(), serde_json::from_str::<Vec<Answer>>(&list).unwrap());
        for bad in [r#"[{"text":"x"}]"#, r#"{"questionId":"q"}"#, "[1]", "null"] {
            assert!(Answer::read_list(bad).is_err() && serde_json::from_str::<Vec<Answer>>(bad).is_err(), "{bad}");
        }

        round_trips(&accepts::<PromptRequestedEvent>(json!({"prompt": prompt()})));
        refuses::<PromptRequestedEvent>(json!({"prompt": null}));
        refuses::<PromptRequestedEvent>(json!({}));

        let r = accepts::<PromptResolvedEvent>(json!({"prompt": prompt(), "outcome": "cancelled"}));
        assert!(r.answers.is_empty() && r.outcome == PromptOutcome::Cancelled);
        round_trips(&r);
        let r = accepts::<PromptResolvedEvent>(
            json!({"prompt": prompt(), "answers": [{"questionId": "q1"}], "outcome": "answered"}),
        );
        round_trips(&r);
        refuses::<PromptResolvedEvent>(json!({"prompt": prompt(), "answers": null, "outcome": "answered"}));
        refuses::<PromptResolvedEvent>(json!({"prompt": prompt(), "outcome": "expired"}));
        refuses::<PromptResolvedEvent>(json!({"prompt": prompt()}));
        refuses::<PromptResolvedEvent>(json!({"outcome": "answered"}));
    }
}
