//! What the adapters share: the canonical outputs, the errors of answering, and the helpers
//! every adapter uses (native events, diagnostics, mode and pending-prompt tracking).

use agent_session_wire::interaction::{
    Answer, Capabilities, ModeState, NativePayload, PendingPrompts, PromptAnswers, PromptOutcome, PromptResolvedEvent,
    UserInputPrompt, EV_MODE_CHANGED, EV_PROMPT_REQUESTED, EV_PROMPT_RESOLVED, EV_PROVIDER_NATIVE, PROJ_CAPABILITIES,
    PROJ_MODE, PROJ_USER_INPUT,
};
use agent_session_wire::{ApprovalRequested, ReceiptReason};
use serde::Serialize;
use serde_json::{json, Value};

/// One canonical output of an adapter.
#[derive(Debug, Clone, PartialEq)]
pub enum Canonical {
    /// A session event to append (`kind` is one of the `EV_*` constants of
    /// `core::wire::interaction`); the host adds `turn` to `data`.
    Event { kind: &'static str, data: Value },
    /// A projection value to set under `key` (one of the `PROJ_*` constants).
    Projection { key: &'static str, value: Value },
    /// Ordinary assistant text (never plan text): the host logs it as an `assistant/chunk`
    /// `text-delta` of the current step.
    AssistantText { text: String },
    /// Reasoning text: an `assistant/chunk` `reasoning-delta`.
    Reasoning { text: String },
    /// A tool invocation, in the origin's `tool/call` terms.
    ToolCall { call_id: String, name: String, arguments: Value },
    /// A tool's outcome, in the origin's `tool/result` terms.
    ToolResult { call_id: String, content: Value, is_error: bool },
    /// A permission request: the origin's `approval/requested` (never a user-input prompt).
    Approval(ApprovalRequest),
    /// A pending approval the provider closed without our answer (Codex `serverRequest/resolved`
    /// of an approval request nobody answered through the adapter, e.g. the turn was
    /// interrupted; Claude Code's `control_cancel_request`): the host resolves `approval_id` as
    /// cancelled.
    ApprovalWithdrawn { approval_id: String },
    /// Why a payload (or a part of it) was dropped or degraded.
    Diagnostic { message: String },
}

/// `approval/requested` data without the session id (see [`ApprovalRequest::frame`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalRequest {
    pub approval_id: String,
    pub tool_name: String,
    pub call_id: Option<String>,
    pub reason: Option<String>,
}

impl ApprovalRequest {
    pub fn frame(&self, session_id: &str) -> ApprovalRequested {
        ApprovalRequested {
            session_id: session_id.to_string(),
            approval_id: self.approval_id.clone(),
            tool_name: self.tool_name.clone(),
            call_id: self.call_id.clone(),
            reason: self.reason.clone(),
        }
    }
}

/// Why a native payload could not be mapped (reported as a [`Canonical::Diagnostic`]).
#[derive(Debug)]
pub enum NativeError {
    /// Not the native shape.
    Shape(serde_json::Error),
    /// A required part is absent (what is missing, as the diagnostic says it).
    Missing(&'static str),
    DuplicateQuestion(String),
    /// A completed plan item with no text of its own and none streamed before.
    PlanWithoutText(String),
}

impl std::fmt::Display for NativeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NativeError::Shape(e) => write!(f, "{e}"),
            NativeError::Missing(what) => f.write_str(what),
            NativeError::DuplicateQuestion(id) => write!(f, "duplicate question id {id:?}"),
            NativeError::PlanWithoutText(id) => write!(f, "plan item {id:?} has no text and nothing was streamed"),
        }
    }
}

impl std::error::Error for NativeError {}

impl From<serde_json::Error> for NativeError {
    fn from(e: serde_json::Error) -> Self {
        NativeError::Shape(e)
    }
}

/// Why an answer was refused; maps onto the receipt's reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnswerError {
    /// No such prompt is waiting (unknown, already answered or resolved).
    NotPending,
    /// The answers do not fit the prompt.
    BadResponse(String),
}

impl AnswerError {
    pub fn reason(&self) -> ReceiptReason {
        match self {
            AnswerError::NotPending => ReceiptReason::NotPending,
            AnswerError::BadResponse(_) => ReceiptReason::BadResponse,
        }
    }
}

/// An accepted answer: what to send back to the provider, and the canonical outputs
/// (`provider/native` of the reply, `interaction/prompt-resolved`, the pending-prompt projection).
#[derive(Debug, Clone, PartialEq)]
pub struct Answered {
    /// The native handle the reply belongs to: the JSON-RPC request id (Codex) or the
    /// `tool_use` id (Claude).
    pub native_id: Value,
    /// The native reply body (Codex `{answers: {[id]: {answers: [..]}}}`, Claude
    /// `{answers: {[question]: "label, label"}}`).
    pub result: Value,
    pub outputs: Vec<Canonical>,
}

// ---- helpers shared by the adapters ----

pub(crate) fn to_value<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

pub(crate) fn native(provider: &str, kind: impl Into<String>, payload: &Value) -> Canonical {
    Canonical::Event {
        kind: EV_PROVIDER_NATIVE,
        data: to_value(&NativePayload { provider: provider.to_string(), kind: kind.into(), payload: payload.clone() }),
    }
}

pub(crate) fn diagnostic(provider: &str, kind: &str, why: impl std::fmt::Display) -> Canonical {
    Canonical::Diagnostic { message: format!("{provider} {kind}: {why}") }
}

/// Prefixes the native event when there is anything canonical to retain it for.
pub(crate) fn with_native(provider: &str, kind: &str, payload: &Value, outputs: Vec<Canonical>) -> Vec<Canonical> {
    if outputs.iter().all(|o| matches!(o, Canonical::Diagnostic { .. })) {
        return outputs;
    }
    let mut v = Vec::with_capacity(outputs.len() + 1);
    v.push(native(provider, kind, payload));
    v.extend(outputs);
    v
}

pub fn capabilities_projection(caps: Capabilities) -> Canonical {
    Canonical::Projection { key: PROJ_CAPABILITIES, value: to_value(&caps) }
}

/// The operating mode, kept to log `interaction/mode` on changes only.
#[derive(Debug, Default)]
pub(crate) struct ModeTracker {
    last: Option<ModeState>,
}

impl ModeTracker {
    pub fn set(&mut self, mode: ModeState) -> Vec<Canonical> {
        if self.last.as_ref() == Some(&mode) {
            return Vec::new();
        }
        let value = to_value(&mode);
        self.last = Some(mode);
        vec![
            Canonical::Event { kind: EV_MODE_CHANGED, data: value.clone() },
            Canonical::Projection { key: PROJ_MODE, value },
        ]
    }

    pub fn current(&self) -> Option<&ModeState> {
        self.last.as_ref()
    }
}

/// Prompts awaiting an answer, in the order they were asked, each with its native handle.
#[derive(Debug, Default)]
pub(crate) struct PendingSet {
    items: Vec<(UserInputPrompt, Value)>,
}

impl PendingSet {
    pub fn projection(&self) -> Canonical {
        let prompts = PendingPrompts { prompts: self.items.iter().map(|(p, _)| p.clone()).collect() };
        Canonical::Projection { key: PROJ_USER_INPUT, value: to_value(&prompts) }
    }

    /// Registers a prompt; a re-delivery of the same prompt id replaces it.
    pub fn ask(&mut self, prompt: UserInputPrompt, handle: Value) -> Vec<Canonical> {
        let event = Canonical::Event { kind: EV_PROMPT_REQUESTED, data: json!({ "prompt": to_value(&prompt) }) };
        match self.items.iter_mut().find(|(p, _)| p.prompt_id == prompt.prompt_id) {
            Some(slot) => *slot = (prompt, handle),
            None => self.items.push((prompt, handle)),
        }
        vec![event, self.projection()]
    }

    /// The ids of the prompts waiting, in the order asked.
    pub fn ids(&self) -> Vec<String> {
        self.items.iter().map(|(p, _)| p.prompt_id.clone()).collect()
    }

    pub fn get(&self, prompt_id: &str) -> Option<&(UserInputPrompt, Value)> {
        self.items.iter().find(|(p, _)| p.prompt_id == prompt_id)
    }

    /// Removes a prompt and reports its resolution.
    pub fn resolve(&mut self, prompt_id: &str, answers: Vec<Answer>, outcome: PromptOutcome) -> Vec<Canonical> {
        let Some(i) = self.items.iter().position(|(p, _)| p.prompt_id == prompt_id) else {
            return Vec::new();
        };
        let (prompt, _) = self.items.remove(i);
        let ev = PromptResolvedEvent { prompt, answers, outcome };
        vec![Canonical::Event { kind: EV_PROMPT_RESOLVED, data: to_value(&ev) }, self.projection()]
    }

    /// Validates answers against a pending prompt.
    pub fn check(&self, prompt_id: &str, answers: &[Answer]) -> Result<(UserInputPrompt, Value), AnswerError> {
        let (prompt, handle) = self.get(prompt_id).cloned().ok_or(AnswerError::NotPending)?;
        PromptAnswers { prompt_id: prompt_id.to_string(), answers: answers.to_vec() }
            .validate(&prompt)
            .map_err(|e| AnswerError::BadResponse(e.to_string()))?;
        Ok((prompt, handle))
    }
}

/// Labels of the selected options of one answer, in the order selected, then the free text.
pub(crate) fn answer_strings(prompt: &UserInputPrompt, answer: &Answer) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(q) = prompt.questions.iter().find(|q| q.id == answer.question_id) {
        for id in answer.selected_option_ids.as_deref().unwrap_or(&[]) {
            if let Some(o) = q.options.iter().find(|o| &o.id == id) {
                out.push(o.label.clone());
            }
        }
    }
    if let Some(t) = answer.text.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        out.push(t.to_string());
    }
    out
}

/// A JSON-RPC id as a map key and a prompt/approval id suffix (`7`, `abc`).
pub(crate) fn id_key(id: &Value) -> Option<String> {
    match id {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

pub(crate) fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}
