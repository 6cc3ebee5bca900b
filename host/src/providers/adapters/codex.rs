//! Codex app-server (JSON-RPC without the `jsonrpc` header, camelCase params).
//!
//! | native | canonical |
//! |---|---|
//! | client request `turn/start` with `collaborationMode.mode` | `interaction/mode` (on change) |
//! | `turn/plan/updated {explanation?, plan:[{step, status}]}` | projection `interaction/plan` (source `native`) |
//! | `item/plan/delta {itemId, delta}` | `plan/text-delta` (text accumulated per item) |
//! | `item/completed {item:{type:'plan', id, text}}` | `plan/text-done` + `plan/proposed` (source `synthesized`: Codex has no ExitPlanMode, the adapter promotes the plan item) + projection `interaction/proposedPlan` |
//! | `item/agentMessage/delta` | assistant text |
//! | `item/reasoning/textDelta`, `item/reasoning/summaryTextDelta` | reasoning |
//! | server request `item/tool/requestUserInput` | `interaction/prompt-requested` + projection `interaction/userInput` |
//! | `serverRequest/resolved {requestId}` of a prompt not answered through us | `interaction/prompt-resolved` (`cancelled`) |
//!
//! Answers go back as the request's result `{answers: {[questionId]: {answers: [string]}}}`.

use super::{
    answer_strings, diagnostic, id_key, str_field, to_value, with_native, AnswerError, Answered, Canonical,
    ModeTracker, NativeError, PendingSet,
};
use agent_session_wire::interaction::{
    Answer, Capabilities, ModeState, OperatingMode, PlanStep, PlanSteps, PlanTextDelta, PlanTextDone, PromptOption,
    PromptOutcome, PromptQuestion, ProposedPlan, Provenance, StepStatus, UserInputPrompt, EV_PLAN_PROPOSED,
    EV_PLAN_TEXT_DELTA, EV_PLAN_TEXT_DONE, PROJ_PLAN_STEPS, PROJ_PROPOSED_PLAN,
};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

pub const PROVIDER: &str = "codex";
pub const PROMPT_SOURCE: &str = "codex:requestUserInput";

// ---- native shapes (unknown fields ignored) ----

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PlanUpdatedParams {
    #[serde(default)]
    explanation: Option<String>,
    plan: Vec<NativeStep>,
}

#[derive(Deserialize)]
struct NativeStep {
    step: String,
    status: NativeStepStatus,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
enum NativeStepStatus {
    Pending,
    InProgress,
    Completed,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DeltaParams {
    item_id: String,
    delta: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RequestUserInputParams {
    questions: Vec<NativeQuestion>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NativeQuestion {
    id: String,
    #[serde(default)]
    header: Option<String>,
    question: String,
    #[serde(default)]
    is_other: bool,
    #[serde(default)]
    is_secret: bool,
    #[serde(default)]
    options: Option<Vec<NativeOption>>,
}

#[derive(Deserialize)]
struct NativeOption {
    label: String,
    #[serde(default)]
    description: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResolvedParams {
    request_id: Value,
}

// ---- pure mappings ----

/// `turn/plan/updated` params -> structured plan steps (source `native`; Codex steps have no id).
pub fn plan_steps(params: &Value) -> Result<PlanSteps, NativeError> {
    let p: PlanUpdatedParams = serde_json::from_value(params.clone())?;
    Ok(PlanSteps {
        explanation: p.explanation.filter(|e| !e.is_empty()),
        steps: p
            .plan
            .into_iter()
            .map(|s| PlanStep {
                id: None,
                text: s.step,
                status: match s.status {
                    NativeStepStatus::Pending => StepStatus::Pending,
                    NativeStepStatus::InProgress => StepStatus::InProgress,
                    NativeStepStatus::Completed => StepStatus::Completed,
                },
                source: Provenance::Native,
            })
            .collect(),
    })
}

/// The prompt id of a `requestUserInput` server request: `codex-<JSON-RPC id>`.
pub fn prompt_id(request_id: &Value) -> Option<String> {
    id_key(request_id).map(|k| format!("codex-{k}"))
}

/// `item/tool/requestUserInput` -> a prompt. Option ids are the option's index (`o0`, `o1`,
/// ..), stable across re-deliveries; free text is allowed with `isOther` or without options.
/// Also returns warnings for what the canonical model cannot carry (`isSecret`).
pub fn prompt_from_request(request_id: &Value, params: &Value) -> Result<(UserInputPrompt, Vec<String>), NativeError> {
    let prompt_id = prompt_id(request_id).ok_or(NativeError::Missing("request id is neither a number nor a string"))?;
    let p: RequestUserInputParams = serde_json::from_value(params.clone())?;
    if p.questions.is_empty() {
        return Err(NativeError::Missing("no questions"));
    }
    let mut warnings = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut questions = Vec::with_capacity(p.questions.len());
    for q in p.questions {
        if !seen.insert(q.id.clone()) {
            return Err(NativeError::DuplicateQuestion(q.id));
        }
        if q.is_secret {
            warnings.push(format!("question {:?} is secret; its answer is not masked in the canonical prompt", q.id));
        }
        let options: Vec<PromptOption> = q
            .options
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(i, o)| PromptOption {
                id: format!("o{i}"),
                label: o.label,
                description: o.description.filter(|d| !d.is_empty()),
                recommended: None,
            })
            .collect();
        let allow_freeform = q.is_other || options.is_empty();
        questions.push(PromptQuestion {
            id: q.id,
            header: q.header.filter(|h| !h.is_empty()),
            label: q.question,
            description: None,
            options,
            multi_select: None,
            allow_freeform: Some(allow_freeform),
            freeform_placeholder: None,
            required: None,
        });
    }
    let prompt = UserInputPrompt { prompt_id, title: None, description: None, questions, source: PROMPT_SOURCE.into() };
    Ok((prompt, warnings))
}

/// Canonical answers -> the `requestUserInput` result `{answers: {[questionId]: {answers: [..]}}}`
/// (selected option labels, then the free text). Unanswered questions are left out.
pub fn answers_to_native(prompt: &UserInputPrompt, answers: &[Answer]) -> Value {
    let mut map = Map::new();
    for a in answers {
        let strings = answer_strings(prompt, a);
        if !strings.is_empty() {
            map.insert(a.question_id.clone(), json!({ "answers": strings }));
        }
    }
    json!({ "answers": map })
}

/// The JSON-RPC response to a server request (Codex omits the `jsonrpc` header).
pub fn rpc_response(id: &Value, result: Value) -> Value {
    json!({ "id": id, "result": result })
}

/// `turn/start`'s `collaborationMode` (`{mode, settings}`; a bare mode string is accepted too).
pub fn mode_from_collaboration(collaboration_mode: &Value) -> Option<ModeState> {
    let name = collaboration_mode.as_str().or_else(|| str_field(collaboration_mode, "mode"))?;
    let mode = match name {
        "plan" => OperatingMode::Plan,
        "default" => OperatingMode::Default,
        "execute" => OperatingMode::Execute,
        _ => OperatingMode::Unknown,
    };
    Some(ModeState { mode, native: Some(name.to_string()) })
}

// ---- the adapter ----

#[derive(Debug, Default)]
pub struct CodexAdapter {
    mode: ModeTracker,
    /// Plan prose streamed so far, per plan item.
    plan_text: HashMap<String, String>,
    pending: PendingSet,
}

impl CodexAdapter {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn capabilities(&self) -> Capabilities {
        super::capabilities::codex()
    }

    pub fn mode(&self) -> Option<&ModeState> {
        self.mode.current()
    }

    /// One JSON-RPC message: a notification, a server request, or the client's own `turn/start`.
    /// Responses and methods without canonical meaning yield nothing.
    pub fn ingest(&mut self, msg: &Value) -> Vec<Canonical> {
        let Some(method) = str_field(msg, "method") else {
            if msg.is_object() && msg.get("id").is_some() {
                return Vec::new(); // a response
            }
            return vec![diagnostic(PROVIDER, "message", "neither a request, a notification nor a response")];
        };
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        let outputs = match (method, msg.get("id")) {
            ("turn/start", Some(_)) => self.turn_start(&params),
            ("item/tool/requestUserInput", Some(id)) => self.request_user_input(id, &params),
            (m, Some(id)) if m.starts_with("item/") && m.contains("request") => {
                // Approvals and other server requests are not user-input prompts.
                return vec![diagnostic(PROVIDER, m, format!("server request {id} not mapped by this adapter"))];
            }
            ("turn/plan/updated", None) => match plan_steps(&params) {
                Ok(steps) => vec![Canonical::Projection { key: PROJ_PLAN_STEPS, value: to_value(&steps) }],
                Err(e) => return vec![diagnostic(PROVIDER, method, e)],
            },
            ("item/plan/delta", None) => match serde_json::from_value::<DeltaParams>(params.clone()) {
                Ok(d) => {
                    self.plan_text.entry(d.item_id.clone()).or_default().push_str(&d.delta);
                    let ev = PlanTextDelta { item_id: d.item_id, text: d.delta };
                    vec![Canonical::Event { kind: EV_PLAN_TEXT_DELTA, data: to_value(&ev) }]
                }
                Err(e) => return vec![diagnostic(PROVIDER, method, e)],
            },
            ("item/completed", None) => match self.item_completed(&params) {
                Ok(v) => v,
                Err(e) => return vec![diagnostic(PROVIDER, method, e)],
            },
            ("item/agentMessage/delta", None) => match serde_json::from_value::<DeltaParams>(params.clone()) {
                Ok(d) => vec![Canonical::AssistantText { text: d.delta }],
                Err(e) => return vec![diagnostic(PROVIDER, method, e)],
            },
            ("item/reasoning/textDelta" | "item/reasoning/summaryTextDelta", None) => {
                match serde_json::from_value::<DeltaParams>(params.clone()) {
                    Ok(d) => vec![Canonical::Reasoning { text: d.delta }],
                    Err(e) => return vec![diagnostic(PROVIDER, method, e)],
                }
            }
            ("serverRequest/resolved", None) => match serde_json::from_value::<ResolvedParams>(params.clone()) {
                Ok(r) => match prompt_id(&r.request_id) {
                    // Answered through us already: the prompt is gone and this is silent.
                    Some(id) => self.pending.resolve(&id, Vec::new(), PromptOutcome::Cancelled),
                    None => return vec![diagnostic(PROVIDER, method, "requestId is neither a number nor a string")],
                },
                Err(e) => return vec![diagnostic(PROVIDER, method, e)],
            },
            _ => Vec::new(),
        };
        with_native(PROVIDER, method, msg, outputs)
    }

    fn turn_start(&mut self, params: &Value) -> Vec<Canonical> {
        match params.get("collaborationMode").filter(|v| !v.is_null()) {
            // Without a collaboration mode the thread keeps its mode: nothing changes.
            None => Vec::new(),
            Some(cm) => match mode_from_collaboration(cm) {
                Some(mode) => self.mode.set(mode),
                None => vec![diagnostic(PROVIDER, "turn/start", "collaborationMode has no mode")],
            },
        }
    }

    fn request_user_input(&mut self, id: &Value, params: &Value) -> Vec<Canonical> {
        match prompt_from_request(id, params) {
            Ok((prompt, warnings)) => {
                let mut out: Vec<Canonical> =
                    warnings.into_iter().map(|w| diagnostic(PROVIDER, "item/tool/requestUserInput", w)).collect();
                out.extend(self.pending.ask(prompt, id.clone()));
                out
            }
            Err(e) => vec![diagnostic(
                PROVIDER,
                "item/tool/requestUserInput",
                format!("request {id} dropped (left unanswered): {e}"),
            )],
        }
    }

    fn item_completed(&mut self, params: &Value) -> Result<Vec<Canonical>, NativeError> {
        let item = params.get("item").filter(|i| i.is_object()).ok_or(NativeError::Missing("no item"))?;
        if str_field(item, "type") != Some("plan") {
            return Ok(Vec::new());
        }
        let id = str_field(item, "id").ok_or(NativeError::Missing("plan item without id"))?.to_string();
        let streamed = self.plan_text.remove(&id);
        let text = match (str_field(item, "text"), streamed) {
            (Some(t), _) => t.to_string(),
            (None, Some(s)) => s,
            (None, None) => return Err(NativeError::PlanWithoutText(id)),
        };
        let done = PlanTextDone { item_id: id.clone(), text: text.clone() };
        let proposed = ProposedPlan { plan_id: id, markdown: text, source: Provenance::Synthesized };
        let proposed = to_value(&proposed);
        Ok(vec![
            Canonical::Event { kind: EV_PLAN_TEXT_DONE, data: to_value(&done) },
            Canonical::Event { kind: EV_PLAN_PROPOSED, data: proposed.clone() },
            Canonical::Projection { key: PROJ_PROPOSED_PLAN, value: proposed },
        ])
    }

    /// Answers a pending prompt. `native_id` is the JSON-RPC id; send
    /// [`rpc_response`]`(native_id, result)` to Codex.
    pub fn answer(&mut self, prompt_id: &str, answers: &[Answer]) -> Result<Answered, AnswerError> {
        let (prompt, id) = self.pending.check(prompt_id, answers)?;
        let result = answers_to_native(&prompt, answers);
        let reply = rpc_response(&id, result.clone());
        let outputs = self.pending.resolve(prompt_id, answers.to_vec(), PromptOutcome::Answered);
        Ok(Answered { native_id: id, result, outputs: with_native(PROVIDER, "answer", &reply, outputs) })
    }
}
