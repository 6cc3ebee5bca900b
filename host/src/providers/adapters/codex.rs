//! Codex app-server (JSON-RPC without the `jsonrpc` header, camelCase params; the shapes are
//! those codex 0.169.0 sends, see `tests/fake-models/README.md` and the real transcripts in
//! `host/tests/fixtures/providers/codex/real/`).
//!
//! | native | canonical |
//! |---|---|
//! | client request `turn/start` with `collaborationMode.mode` | `interaction/mode` (on change) |
//! | `thread/settings/updated {threadSettings:{collaborationMode:{mode}}}` | `interaction/mode` (on change) |
//! | `thread/start` / `thread/resume` answer with `collaborationMode.mode` ([`CodexAdapter::ingest_thread_result`]) | `interaction/mode` (on change; only the resume answer carries it) |
//! | `turn/plan/updated {explanation?, plan:[{step, status}]}` | projection `interaction/plan` (source `native`) |
//! | `item/plan/delta {itemId, delta}` | `plan/text-delta` (text accumulated per item) |
//! | `item/completed {item:{type:'plan', id, text}}` | `plan/text-done` + `plan/proposed` (source `synthesized`: Codex has no ExitPlanMode, the adapter promotes the plan item) + projection `interaction/proposedPlan` |
//! | `item/agentMessage/delta` | assistant text (codex sends only the text outside a `<proposed_plan>` block) |
//! | `item/reasoning/textDelta`, `item/reasoning/summaryTextDelta` | reasoning |
//! | `item/started {item:{type:'commandExecution', id, command, cwd}}` | tool call `shell` `{command, cwd}` |
//! | `item/completed {item:{type:'commandExecution', status, aggregatedOutput, exitCode}}` | tool result (an error unless `completed` with exit code 0) |
//! | `item/started {item:{type:'fileChange', id, changes}}` | tool call `apply_patch` `{changes}` |
//! | `item/completed {item:{type:'fileChange', status}}` | tool result (an error unless `completed`) |
//! | server request `item/tool/requestUserInput` | `interaction/prompt-requested` + projection `interaction/userInput` |
//! | server request `item/commandExecution/requestApproval` | approval `shell` (call id = `itemId`; reason = `reason`, else `run <the parsed command>`) |
//! | server request `item/fileChange/requestApproval` | approval `apply_patch` (call id = `itemId`; reason = `reason`, else the files seen in the item's start) |
//! | `serverRequest/resolved {requestId}` of a prompt not answered through us | `interaction/prompt-resolved` (`cancelled`) |
//! | `serverRequest/resolved {requestId}` of an approval not answered through us | [`Canonical::ApprovalWithdrawn`] |
//!
//! Everything else codex sends (`thread/started`, `thread/status/changed`, `turn/started`,
//! `turn/completed`, `thread/tokenUsage/updated`, `account/rateLimits/updated`,
//! `item/commandExecution/outputDelta`, `turn/diff/updated`, `error`, `warning`,
//! `configWarning`, answers to the client's requests, ...) yields nothing; the notifications'
//! `emittedAtMs` is ignored.
//!
//! Server-request ids are codex's own counter, restarting at 0 in every process, so prompt and
//! approval ids are scoped: `codex-<scope>-<id>` after [`CodexAdapter::set_request_scope`]
//! (`codex-<id>` without a scope). Answers go back as the request's result:
//! `{answers: {[questionId]: {answers: [string]}}}` for prompts ([`CodexAdapter::answer`]),
//! `{decision}` for approvals ([`CodexAdapter::respond_approval`]).

use super::{
    answer_strings, diagnostic, id_key, native, str_field, to_value, with_native, AnswerError, Answered,
    ApprovalRequest, Canonical, ModeTracker, NativeError, PendingSet,
};
use agent_session_wire::interaction::{
    Answer, Capabilities, ModeState, OperatingMode, PlanStep, PlanSteps, PlanTextDelta, PlanTextDone, PromptOption,
    PromptOutcome, PromptQuestion, ProposedPlan, Provenance, StepStatus, UserInputPrompt, EV_PLAN_PROPOSED,
    EV_PLAN_TEXT_DELTA, EV_PLAN_TEXT_DONE, PROJ_PLAN_STEPS, PROJ_PROPOSED_PLAN,
};
use agent_session_wire::ApprovalOutcome;
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

/// The prompt id of a `requestUserInput` server request without a scope: `codex-<JSON-RPC id>`.
pub fn prompt_id(request_id: &Value) -> Option<String> {
    scoped_request_id(None, request_id)
}

/// The prompt/approval id of a server request: `codex-<scope>-<id>`, or `codex-<id>` without a
/// scope.
pub fn scoped_request_id(scope: Option<&str>, request_id: &Value) -> Option<String> {
    let k = id_key(request_id)?;
    Some(match scope {
        Some(s) => format!("codex-{s}-{k}"),
        None => format!("codex-{k}"),
    })
}

/// `item/tool/requestUserInput` -> a prompt. Option ids are the option's index (`o0`, `o1`,
/// ..), stable across re-deliveries; free text is allowed with `isOther` or without options.
/// Also returns warnings for what the canonical model cannot carry (`isSecret`).
pub fn prompt_from_request(request_id: &Value, params: &Value) -> Result<(UserInputPrompt, Vec<String>), NativeError> {
    let prompt_id = prompt_id(request_id).ok_or(NativeError::Missing("request id is neither a number nor a string"))?;
    prompt_with_id(prompt_id, params)
}

/// [`prompt_from_request`] with the prompt id already derived (scoped or not).
fn prompt_with_id(prompt_id: String, params: &Value) -> Result<(UserInputPrompt, Vec<String>), NativeError> {
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

/// `thread/settings/updated` params -> the mode, when the update carries a collaboration mode.
/// `Ok(None)`: nothing about the mode in it.
pub fn mode_from_settings(params: &Value) -> Result<Option<ModeState>, NativeError> {
    let Some(cm) = params.pointer("/threadSettings/collaborationMode").filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    mode_from_collaboration(cm).map(Some).ok_or(NativeError::Missing("collaborationMode has no mode"))
}

// ---- approvals ----

/// What a pending approval asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalKind {
    /// `item/commandExecution/requestApproval`.
    Command,
    /// `item/fileChange/requestApproval`.
    FileChange,
}

impl ApprovalKind {
    fn tool_name(self) -> &'static str {
        match self {
            ApprovalKind::Command => "shell",
            ApprovalKind::FileChange => "apply_patch",
        }
    }

    fn method(self) -> &'static str {
        match self {
            ApprovalKind::Command => "item/commandExecution/requestApproval",
            ApprovalKind::FileChange => "item/fileChange/requestApproval",
        }
    }
}

/// An approval request codex waits on.
#[derive(Debug, Clone, PartialEq)]
struct PendingApproval {
    /// The JSON-RPC id of the server request (the answer's `id`).
    native_id: Value,
    kind: ApprovalKind,
    /// `availableDecisions` when codex gave them (commands do, file changes do not).
    available: Option<Vec<Value>>,
}

/// Whether `decision` (a bare string decision) is among the available ones; without a list
/// every decision is assumed available.
fn offered(available: Option<&[Value]>, decision: &str) -> bool {
    available.is_none_or(|a| a.iter().any(|d| d.as_str() == Some(decision)))
}

/// The `decision` for an approval outcome. Allowed-once is `accept` (never `acceptForSession`
/// or an execpolicy amendment: that would grant more than was approved). Rejected is `decline`
/// (the model is told and goes on), or `cancel` when `availableDecisions` lacks `decline`
/// (codex 0.169.0 offers commands only `accept`, an execpolicy amendment and `cancel`).
/// Cancelled/unavailable is `cancel` (the turn is interrupted).
pub fn approval_decision(outcome: ApprovalOutcome, available: Option<&[Value]>) -> &'static str {
    match outcome {
        ApprovalOutcome::AllowedOnce => "accept",
        ApprovalOutcome::Rejected if offered(available, "decline") => "decline",
        ApprovalOutcome::Rejected | ApprovalOutcome::Cancelled | ApprovalOutcome::Unavailable => "cancel",
    }
}

/// A command as text: codex sends a string; an argv array is joined with spaces.
fn command_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Array(a) if !a.is_empty() => Some(
            a.iter()
                .map(|p| p.as_str().map(str::to_owned).unwrap_or_else(|| p.to_string()))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => None,
    }
}

/// The paths of a `fileChange` item's `changes`.
fn change_paths(item: &Value) -> Vec<String> {
    item.get("changes")
        .and_then(Value::as_array)
        .map(|cs| cs.iter().filter_map(|c| str_field(c, "path").map(str::to_owned)).collect())
        .unwrap_or_default()
}

/// `kind.type` and path of each change, e.g. `add /w/PATCHED.md`.
fn change_summary(item: &Value) -> Vec<String> {
    item.get("changes")
        .and_then(Value::as_array)
        .map(|cs| {
            cs.iter()
                .filter_map(|c| {
                    let path = str_field(c, "path")?;
                    Some(match c.pointer("/kind/type").and_then(Value::as_str).or_else(|| str_field(c, "kind")) {
                        Some(k) => format!("{k} {path}"),
                        None => path.to_string(),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A `commandExecution` item's tool call: `shell {command, cwd}`.
fn command_call(id: &str, item: &Value) -> Canonical {
    Canonical::ToolCall {
        call_id: id.to_string(),
        name: ApprovalKind::Command.tool_name().into(),
        arguments: json!({ "command": item.get("command").cloned().unwrap_or(Value::Null), "cwd": item.get("cwd").cloned().unwrap_or(Value::Null) }),
    }
}

/// A `fileChange` item's tool call: `apply_patch {changes}`.
fn file_change_call(id: &str, item: &Value) -> Canonical {
    Canonical::ToolCall {
        call_id: id.to_string(),
        name: ApprovalKind::FileChange.tool_name().into(),
        arguments: json!({ "changes": item.get("changes").cloned().unwrap_or_else(|| json!([])) }),
    }
}

/// A completed `commandExecution` item's result: the aggregated output (or `exit code N`, or the
/// status when there is neither); an error unless `completed` with exit code 0 (a `declined`
/// command, one the user refused, is an error).
fn command_result(id: &str, item: &Value) -> Canonical {
    let status = str_field(item, "status");
    let exit = item.get("exitCode").and_then(Value::as_i64);
    let is_error = status != Some("completed") || exit.is_some_and(|c| c != 0);
    let content = match (str_field(item, "aggregatedOutput").filter(|o| !o.is_empty()), exit, status) {
        (Some(o), _, _) => o.to_string(),
        (None, Some(c), _) => format!("exit code {c}"),
        (None, None, Some(s)) => format!("command {s}"),
        (None, None, None) => String::new(),
    };
    Canonical::ToolResult { call_id: id.to_string(), content: Value::String(content), is_error }
}

/// A completed `fileChange` item's result: `applied: add /w/F` when `completed`, else
/// `<status>: ...` (an error), plus the item's `output` when it has one.
fn file_change_result(id: &str, item: &Value) -> Canonical {
    let status = str_field(item, "status");
    let is_error = status != Some("completed");
    let head = match status {
        Some("completed") => "applied".to_string(),
        Some(s) => s.to_string(),
        None => "unknown status".to_string(),
    };
    let changes = change_summary(item);
    let mut text = if changes.is_empty() { head } else { format!("{head}: {}", changes.join(", ")) };
    if let Some(o) = str_field(item, "output").filter(|o| !o.is_empty()) {
        text.push('\n');
        text.push_str(o);
    }
    Canonical::ToolResult { call_id: id.to_string(), content: Value::String(text), is_error }
}

// ---- the adapter ----

#[derive(Debug, Default)]
pub struct CodexAdapter {
    mode: ModeTracker,
    /// Plan prose streamed so far, per plan item.
    plan_text: HashMap<String, String>,
    pending: PendingSet,
    /// The scope of server-request ids (one per codex process), if set.
    scope: Option<String>,
    /// Approvals codex waits on: approval id -> native request.
    approvals: HashMap<String, PendingApproval>,
    /// Tool items (`commandExecution`, `fileChange`) started and not completed: item id ->
    /// the paths of a file change (empty for commands).
    tool_items: HashMap<String, Vec<String>>,
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

    /// Scopes the ids of the server requests that follow (codex restarts its counter at 0 in
    /// every process): prompt and approval ids become `codex-<scope>-<id>`, and
    /// `serverRequest/resolved` is looked up in this scope. Requests of an earlier scope stay
    /// pending under their ids until answered.
    pub fn set_request_scope(&mut self, scope: &str) {
        self.scope = Some(scope.to_string());
    }

    /// The prompt/approval id of a server request in the current scope.
    fn request_id(&self, id: &Value) -> Option<String> {
        scoped_request_id(self.scope.as_deref(), id)
    }

    /// The result of `thread/start` / `thread/resume` (bare, or the whole JSON-RPC response):
    /// the mode from its `collaborationMode` when present (the resume answer has it, the start
    /// answer does not). Nothing else is read; the native event retains only the
    /// `collaborationMode` (a resume answer carries the whole history).
    pub fn ingest_thread_result(&mut self, result: &Value) -> Vec<Canonical> {
        const KIND: &str = "thread/result";
        let result = result.get("result").unwrap_or(result);
        let Some(cm) = result.get("collaborationMode").filter(|v| !v.is_null()) else {
            return Vec::new();
        };
        let Some(mode) = mode_from_collaboration(cm) else {
            return vec![diagnostic(PROVIDER, KIND, "collaborationMode has no mode")];
        };
        let outputs = self.mode.set(mode);
        if outputs.is_empty() {
            return outputs;
        }
        let mut v = vec![native(PROVIDER, KIND, &json!({ "collaborationMode": cm }))];
        v.extend(outputs);
        v
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
            ("item/commandExecution/requestApproval", Some(id)) => {
                self.request_approval(id, &params, ApprovalKind::Command)
            }
            ("item/fileChange/requestApproval", Some(id)) => {
                self.request_approval(id, &params, ApprovalKind::FileChange)
            }
            (m, Some(id)) if m.starts_with("item/") && m.contains("request") => {
                // Other server requests are not mapped: codex waits for an answer nobody gives.
                return vec![diagnostic(PROVIDER, m, format!("server request {id} not mapped by this adapter"))];
            }
            ("thread/settings/updated", None) => match mode_from_settings(&params) {
                Ok(Some(mode)) => self.mode.set(mode),
                Ok(None) => Vec::new(),
                Err(e) => return vec![diagnostic(PROVIDER, method, e)],
            },
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
            ("item/started", None) => match self.item_started(&params) {
                Ok(v) => v,
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
                Ok(r) => match self.request_id(&r.request_id) {
                    Some(id) => self.request_resolved(&id),
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
        let prompt = self
            .request_id(id)
            .ok_or(NativeError::Missing("request id is neither a number nor a string"))
            .and_then(|pid| prompt_with_id(pid, params));
        match prompt {
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

    /// `item/commandExecution/requestApproval` / `item/fileChange/requestApproval` -> an
    /// approval, kept pending until answered or resolved. A re-delivery replaces it.
    fn request_approval(&mut self, id: &Value, params: &Value, kind: ApprovalKind) -> Vec<Canonical> {
        let method = kind.method();
        let Some(approval_id) = self.request_id(id) else {
            return vec![diagnostic(
                PROVIDER,
                method,
                format!("request {id} dropped (left unanswered): id is neither a number nor a string"),
            )];
        };
        if !params.is_object() {
            return vec![diagnostic(PROVIDER, method, format!("{approval_id} dropped (left unanswered): no params"))];
        }
        let available = match params.get("availableDecisions") {
            None | Some(Value::Null) => None,
            Some(Value::Array(a)) => Some(a.clone()),
            Some(_) => {
                return vec![diagnostic(
                    PROVIDER,
                    method,
                    format!("{approval_id} dropped (left unanswered): availableDecisions is not a list"),
                )]
            }
        };
        let call_id = str_field(params, "itemId").map(str::to_owned);
        let reason = str_field(params, "reason").filter(|r| !r.is_empty()).map(str::to_owned).or_else(|| match kind {
            // "run echo hi": the parsed action reads better than the shell line around it.
            ApprovalKind::Command => params
                .pointer("/commandActions/0/command")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or_else(|| params.get("command").and_then(command_text))
                .map(|c| format!("run {c}")),
            ApprovalKind::FileChange => {
                let paths = call_id.as_ref().and_then(|c| self.tool_items.get(c)).filter(|p| !p.is_empty());
                Some(match paths {
                    Some(p) => format!("apply a file change to {}", p.join(", ")),
                    None => "apply a file change".to_string(),
                })
            }
        });
        self.approvals.insert(approval_id.clone(), PendingApproval { native_id: id.clone(), kind, available });
        let approval = ApprovalRequest { approval_id, tool_name: kind.tool_name().into(), call_id, reason };
        vec![Canonical::Approval(approval)]
    }

    /// `serverRequest/resolved`: a prompt not answered through us is cancelled, an approval
    /// not answered through us is withdrawn; anything else (answered already) is silent.
    fn request_resolved(&mut self, id: &str) -> Vec<Canonical> {
        if self.approvals.remove(id).is_some() {
            return vec![Canonical::ApprovalWithdrawn { approval_id: id.to_string() }];
        }
        self.pending.resolve(id, Vec::new(), PromptOutcome::Cancelled)
    }

    fn item_started(&mut self, params: &Value) -> Result<Vec<Canonical>, NativeError> {
        let item = params.get("item").filter(|i| i.is_object()).ok_or(NativeError::Missing("no item"))?;
        let kind = str_field(item, "type");
        if !matches!(kind, Some("commandExecution" | "fileChange")) {
            return Ok(Vec::new());
        }
        let id = str_field(item, "id").ok_or(NativeError::Missing("tool item without id"))?;
        Ok(match kind {
            Some("commandExecution") => {
                self.tool_items.insert(id.to_string(), Vec::new());
                vec![command_call(id, item)]
            }
            _ => {
                self.tool_items.insert(id.to_string(), change_paths(item));
                vec![file_change_call(id, item)]
            }
        })
    }

    fn item_completed(&mut self, params: &Value) -> Result<Vec<Canonical>, NativeError> {
        let item = params.get("item").filter(|i| i.is_object()).ok_or(NativeError::Missing("no item"))?;
        match str_field(item, "type") {
            Some("plan") => self.plan_completed(item),
            Some(t @ ("commandExecution" | "fileChange")) => {
                let id = str_field(item, "id").ok_or(NativeError::Missing("tool item without id"))?;
                let command = t == "commandExecution";
                let mut out = Vec::with_capacity(2);
                // A tool item completed without a start we saw: its call first, so the result
                // never dangles.
                if self.tool_items.remove(id).is_none() {
                    out.push(if command { command_call(id, item) } else { file_change_call(id, item) });
                }
                out.push(if command { command_result(id, item) } else { file_change_result(id, item) });
                Ok(out)
            }
            _ => Ok(Vec::new()),
        }
    }

    fn plan_completed(&mut self, item: &Value) -> Result<Vec<Canonical>, NativeError> {
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

    /// The JSON-RPC response to write to codex for a pending approval,
    /// `{"id": <native id>, "result": {"decision": D}}` (see [`approval_decision`]). The approval
    /// is no longer pending after; an unknown or already answered id is `NotPending`.
    pub fn respond_approval(&mut self, approval_id: &str, outcome: ApprovalOutcome) -> Result<Value, AnswerError> {
        let pending = self.approvals.remove(approval_id).ok_or(AnswerError::NotPending)?;
        let decision = approval_decision(outcome, pending.available.as_deref());
        Ok(rpc_response(&pending.native_id, json!({ "decision": decision })))
    }

    /// The kind of a pending approval (`None` when not pending).
    pub fn pending_approval(&self, approval_id: &str) -> Option<ApprovalKind> {
        self.approvals.get(approval_id).map(|p| p.kind)
    }
}
