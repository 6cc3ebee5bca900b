//! Claude Code's stream-json messages (the CLI's `-p --output-format stream-json`, the same
//! `SDKMessage`s the Agent SDK reads: `system`, `assistant`, `user`, `stream_event`, and the
//! control protocol's `control_request` / `control_cancel_request`).
//!
//! | native | canonical |
//! |---|---|
//! | `system` (`init`, `status`) with `permissionMode` | `interaction/mode` (on change): `plan`->plan, `default`->default, `acceptEdits`/`bypassPermissions`->execute, else unknown |
//! | `stream_event` `content_block_delta` `text_delta` / `thinking_delta` | assistant text / reasoning, as it streams |
//! | assistant `text` block | assistant text (never plan text), unless its message already streamed, or it is the CLI's `<synthetic>` error note (the `result` carries that error) |
//! | assistant `thinking` block | reasoning (same rule) |
//! | `tool_use` `AskUserQuestion` | `interaction/prompt-requested` + projection `interaction/userInput` |
//! | `tool_use` `ExitPlanMode {plan}` | `plan/proposed` (source `native`) + projection `interaction/proposedPlan`, and steps parsed from the markdown's list as projection `interaction/plan` (source `synthesized`); `ExitPlanMode {}` (no plan file) proposes nothing |
//! | other `tool_use` | tool call |
//! | user `tool_result` of a pending AskUserQuestion | `interaction/prompt-resolved` (`cancelled` when `is_error`, else `answered` with the answers read back from the result) |
//! | user `tool_result` of an ExitPlanMode | projection `interaction/proposedPlan` = `null` (handed off or rejected) |
//! | other user `tool_result` | tool result |
//! | `control_request` `can_use_tool` of any tool but AskUserQuestion | [`Canonical::Approval`] (id `claude-<request_id>`), answered with [`ClaudeAdapter::respond_approval`] |
//! | `control_cancel_request` of a pending approval | [`Canonical::ApprovalWithdrawn`] |
//! | the host's own `control_request` `set_permission_mode {mode}` | `interaction/mode`, as `permissionMode` |
//!
//! AskUserQuestion's own `can_use_tool` is not an approval: the question is the prompt of its
//! `tool_use`, and the answer goes back as that request's `allow` (the runtime pairs them).
//! With partial messages on, a message's text arrives twice (its `stream_event` deltas, then
//! the whole block in an `assistant` message of the same id): only the deltas are mapped.
//! `result` and the rest carry nothing canonical. Answers go back as `{answers: {[question
//! text]: "label" | "label1, label2"}}`, the shape AskUserQuestion reads (in the tool input's
//! `answers`, next to the original `questions`).

use super::{
    answer_strings, diagnostic, str_field, to_value, with_native, AnswerError, Answered, ApprovalRequest, Canonical,
    ModeTracker, NativeError, PendingSet,
};
use agent_session_wire::interaction::{
    Answer, Capabilities, ModeState, OperatingMode, PlanStep, PlanSteps, PromptOption, PromptOutcome, PromptQuestion,
    ProposedPlan, Provenance, StepStatus, UserInputPrompt, EV_PLAN_PROPOSED, PROJ_PLAN_STEPS, PROJ_PROPOSED_PLAN,
};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::{HashMap, HashSet};

pub const PROVIDER: &str = "claude";
pub const PROMPT_SOURCE: &str = "claude:AskUserQuestion";
pub const ASK_USER_QUESTION: &str = "AskUserQuestion";
pub const EXIT_PLAN_MODE: &str = "ExitPlanMode";
/// The model name Claude Code gives the assistant messages it makes up itself (API errors).
const SYNTHETIC_MODEL: &str = "<synthetic>";
/// An approval's reason is cut to this many characters.
const REASON_CHARS: usize = 300;

// ---- native shapes (unknown fields ignored) ----

#[derive(Deserialize)]
struct AskInput {
    questions: Vec<AskQuestion>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AskQuestion {
    question: String,
    #[serde(default)]
    header: Option<String>,
    #[serde(default)]
    options: Vec<AskOption>,
    #[serde(default)]
    multi_select: bool,
}

#[derive(Deserialize)]
struct AskOption {
    label: String,
    #[serde(default)]
    description: Option<String>,
}

#[derive(Deserialize)]
struct ExitPlanInput {
    plan: String,
}

// ---- pure mappings ----

/// `permissionMode` -> operating mode (`native` keeps Claude's name).
pub fn mode_from_permission(permission_mode: &str) -> ModeState {
    let mode = match permission_mode {
        "plan" => OperatingMode::Plan,
        "default" => OperatingMode::Default,
        "acceptEdits" | "bypassPermissions" => OperatingMode::Execute,
        // e.g. `dontAsk` (deny what is not pre-approved): neither default nor execute.
        _ => OperatingMode::Unknown,
    };
    ModeState { mode, native: Some(permission_mode.to_string()) }
}

/// The approval id of a `can_use_tool` request: `claude-<request_id>`.
pub fn approval_id(request_id: &str) -> String {
    format!("claude-{request_id}")
}

/// A successful `control_response` to the CLI's request `request_id`.
pub fn control_response(request_id: &str, response: Value) -> Value {
    json!({ "type": "control_response", "response": { "subtype": "success", "request_id": request_id, "response": response } })
}

/// The prompt id of an AskUserQuestion `tool_use`: `claude-<tool_use id>`.
pub fn prompt_id(tool_use_id: &str) -> String {
    format!("claude-{tool_use_id}")
}

/// AskUserQuestion input -> a prompt. Question ids are `q<index>`, option ids `o<index>`;
/// free text is always allowed (Claude's question UI always offers "Other").
pub fn prompt_from_tool_use(tool_use_id: &str, input: &Value) -> Result<UserInputPrompt, NativeError> {
    let input: AskInput = serde_json::from_value(input.clone())?;
    if input.questions.is_empty() {
        return Err(NativeError::Missing("no questions"));
    }
    let questions = input
        .questions
        .into_iter()
        .enumerate()
        .map(|(i, q)| PromptQuestion {
            id: format!("q{i}"),
            header: q.header.filter(|h| !h.is_empty()),
            label: q.question,
            description: None,
            options: q
                .options
                .into_iter()
                .enumerate()
                .map(|(j, o)| PromptOption {
                    id: format!("o{j}"),
                    label: o.label,
                    description: o.description.filter(|d| !d.is_empty()),
                    recommended: None,
                })
                .collect(),
            multi_select: Some(q.multi_select),
            allow_freeform: Some(true),
            freeform_placeholder: None,
            required: None,
        })
        .collect();
    Ok(UserInputPrompt {
        prompt_id: prompt_id(tool_use_id),
        title: None,
        description: None,
        questions,
        source: PROMPT_SOURCE.into(),
    })
}

/// Canonical answers -> `{answers: {[question text]: "label" | "label1, label2"}}` (selected
/// labels, then the free text, joined with ", "). Unanswered questions are left out.
pub fn answers_to_native(prompt: &UserInputPrompt, answers: &[Answer]) -> Value {
    let mut map = Map::new();
    for a in answers {
        let Some(q) = prompt.questions.iter().find(|q| q.id == a.question_id) else { continue };
        let strings = answer_strings(prompt, a);
        if !strings.is_empty() {
            map.insert(q.label.clone(), Value::String(strings.join(", ")));
        }
    }
    json!({ "answers": map })
}

/// Reads answers back from a `tool_result` the prompt got elsewhere: either our own
/// `{answers: {...}}` JSON or Claude Code's text (`User has answered your questions: "Q"="A".`).
/// Option labels map back to option ids; anything else becomes free text.
pub fn answers_from_native(prompt: &UserInputPrompt, content: &Value) -> Vec<Answer> {
    let text = tool_result_text(content);
    let pairs: Vec<(String, String)> =
        match serde_json::from_str::<Value>(&text).ok().as_ref().and_then(|v| v.get("answers")) {
            Some(Value::Object(m)) => {
                m.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string()))).collect()
            }
            _ => quoted_pairs(&text),
        };
    let mut out = Vec::new();
    for (question, answer) in pairs {
        let Some(q) = prompt.questions.iter().find(|q| q.label == question) else { continue };
        let by_label = |l: &str| q.options.iter().find(|o| o.label == l.trim()).map(|o| o.id.clone());
        let (ids, rest): (Vec<String>, Vec<String>) = match by_label(&answer) {
            Some(id) => (vec![id], Vec::new()),
            None => {
                let mut ids = Vec::new();
                let mut rest = Vec::new();
                for part in answer.split(", ") {
                    match by_label(part) {
                        Some(id) => ids.push(id),
                        None => rest.push(part.to_string()),
                    }
                }
                (ids, rest)
            }
        };
        let text = rest.join(", ");
        out.push(Answer {
            question_id: q.id.clone(),
            selected_option_ids: (!ids.is_empty()).then_some(ids),
            text: (!text.trim().is_empty()).then_some(text),
        });
    }
    out
}

/// `"a"="b"` pairs in order.
fn quoted_pairs(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('"') {
        let after = &rest[start + 1..];
        let Some(end) = after.find("\"=\"") else { break };
        let key = &after[..end];
        let value_start = &after[end + 3..];
        let Some(vend) = value_start.find('"') else { break };
        out.push((key.to_string(), value_start[..vend].to_string()));
        rest = &value_start[vend + 1..];
    }
    out
}

/// A `tool_result` content (string or text blocks) as text.
fn tool_result_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks.iter().filter_map(|b| str_field(b, "text")).collect::<Vec<_>>().join("\n"),
        _ => String::new(),
    }
}

/// Plan steps synthesized from a markdown plan: the top-level numbered list items, or the
/// top-level bullets when there is no numbered list (`[x]` checkboxes read as completed).
/// Fenced code is skipped. Every step is marked `synthesized`.
pub fn steps_from_markdown(markdown: &str) -> Vec<PlanStep> {
    let mut ordered = Vec::new();
    let mut bullets = Vec::new();
    let mut in_fence = false;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        let indent = line.len() - trimmed.len();
        if in_fence || indent > 1 || line.contains('\t') && indent > 0 {
            continue;
        }
        let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 {
            let rest = &trimmed[digits..];
            if let Some(item) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
                ordered.push(item.trim().to_string());
            }
        } else if let Some(item) = ["- ", "* ", "+ "].iter().find_map(|m| trimmed.strip_prefix(m)) {
            bullets.push(item.trim().to_string());
        }
    }
    let items = if ordered.is_empty() { bullets } else { ordered };
    items
        .into_iter()
        .filter(|t| !t.is_empty() && t.chars().any(|c| c.is_alphanumeric()))
        .map(|t| {
            let (status, text) = if let Some(r) = t.strip_prefix("[ ] ") {
                (StepStatus::Pending, r.to_string())
            } else if let Some(r) = t.strip_prefix("[x] ").or_else(|| t.strip_prefix("[X] ")) {
                (StepStatus::Completed, r.to_string())
            } else {
                (StepStatus::Pending, t)
            };
            PlanStep { id: None, text, status, source: Provenance::Synthesized }
        })
        .collect()
}

/// What an approval asks, in a line: the command, the file, or the tool's own description.
pub fn approval_reason(tool_name: &str, input: &Value, description: Option<&str>) -> Option<String> {
    let field = |k: &str| str_field(input, k).filter(|v| !v.is_empty());
    let text = match tool_name {
        EXIT_PLAN_MODE => Some("Leave plan mode and carry out the proposed plan".to_string()),
        _ => match (field("command"), field("file_path").or_else(|| field("notebook_path")), description) {
            (Some(cmd), _, Some(d)) if !d.is_empty() => Some(format!("{d}: {cmd}")),
            (Some(cmd), _, _) => Some(cmd.to_string()),
            (None, Some(path), _) => Some(format!("{tool_name} {path}")),
            (None, None, Some(d)) if !d.is_empty() => Some(d.to_string()),
            _ => None,
        },
    }?;
    Some(match text.char_indices().nth(REASON_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    })
}

// ---- the adapter ----

/// A `can_use_tool` request waiting for the user's decision.
#[derive(Debug, Clone)]
struct PendingApproval {
    request_id: String,
    tool_name: String,
    input: Value,
}

#[derive(Debug, Default)]
pub struct ClaudeAdapter {
    mode: ModeTracker,
    pending: PendingSet,
    /// tool_use ids of AskUserQuestion / ExitPlanMode: their tool_results are not tool results.
    special: HashSet<String>,
    /// ExitPlanMode tool_use ids whose proposal is still shown.
    proposals: HashSet<String>,
    /// Approvals waiting for an answer, by approval id.
    approvals: HashMap<String, PendingApproval>,
    /// The message whose content is streaming as `stream_event`s (its whole copy is skipped).
    streamed: Option<String>,
}

impl ClaudeAdapter {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn capabilities(&self) -> Capabilities {
        super::capabilities::claude()
    }

    pub fn mode(&self) -> Option<&ModeState> {
        self.mode.current()
    }

    /// One SDK message.
    pub fn ingest(&mut self, msg: &Value) -> Vec<Canonical> {
        let Some(ty) = str_field(msg, "type") else {
            return vec![diagnostic(PROVIDER, "message", "no type")];
        };
        match ty {
            "system" => {
                let kind = format!("system/{}", str_field(msg, "subtype").unwrap_or("?"));
                let outputs = match msg.get("permissionMode") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::String(pm)) => self.mode.set(mode_from_permission(pm)),
                    Some(other) => {
                        return vec![diagnostic(PROVIDER, &kind, format!("permissionMode {other} is not a string"))]
                    }
                };
                with_native(PROVIDER, &kind, msg, outputs)
            }
            "assistant" => match msg.pointer("/message/content").and_then(Value::as_array) {
                Some(blocks) => {
                    let id = msg.pointer("/message/id").and_then(Value::as_str);
                    let model = msg.pointer("/message/model").and_then(Value::as_str);
                    // Its text already streamed, or it is the CLI's own error note.
                    let text_done = (id.is_some() && id == self.streamed.as_deref()) || model == Some(SYNTHETIC_MODEL);
                    let outputs = blocks
                        .iter()
                        .filter(|b| !text_done || !matches!(str_field(b, "type"), Some("text" | "thinking")))
                        .flat_map(|b| self.assistant_block(b))
                        .collect();
                    with_native(PROVIDER, ty, msg, outputs)
                }
                None => vec![diagnostic(PROVIDER, ty, "message.content is not a list")],
            },
            "stream_event" => match msg.get("event") {
                Some(event) => {
                    let outputs = self.stream_event(event);
                    with_native(PROVIDER, ty, msg, outputs)
                }
                None => vec![diagnostic(PROVIDER, ty, "no event")],
            },
            "control_request" => self.control_request(msg),
            "control_cancel_request" => match str_field(msg, "request_id") {
                Some(rid) => {
                    let id = approval_id(rid);
                    match self.approvals.remove(&id) {
                        Some(_) => {
                            with_native(PROVIDER, ty, msg, vec![Canonical::ApprovalWithdrawn { approval_id: id }])
                        }
                        None => Vec::new(),
                    }
                }
                None => vec![diagnostic(PROVIDER, ty, "no request_id")],
            },
            "user" => match msg.pointer("/message/content") {
                // Plain user text is logged by the host itself.
                Some(Value::String(_)) => Vec::new(),
                Some(Value::Array(blocks)) => {
                    let outputs = blocks.iter().flat_map(|b| self.user_block(b)).collect();
                    with_native(PROVIDER, ty, msg, outputs)
                }
                _ => vec![diagnostic(PROVIDER, ty, "message.content is neither text nor a list")],
            },
            _ => Vec::new(),
        }
    }

    /// A partial-message event: text and thinking deltas; `message_start` names the message
    /// whose whole copy is then skipped.
    fn stream_event(&mut self, event: &Value) -> Vec<Canonical> {
        match str_field(event, "type") {
            Some("message_start") => {
                self.streamed = event.pointer("/message/id").and_then(Value::as_str).map(str::to_owned);
                Vec::new()
            }
            Some("content_block_delta") => {
                let delta = event.get("delta").unwrap_or(&Value::Null);
                match (str_field(delta, "type"), str_field(delta, "text"), str_field(delta, "thinking")) {
                    (Some("text_delta"), Some(t), _) if !t.is_empty() => {
                        vec![Canonical::AssistantText { text: t.to_string() }]
                    }
                    (Some("thinking_delta"), _, Some(t)) if !t.is_empty() => {
                        vec![Canonical::Reasoning { text: t.to_string() }]
                    }
                    (Some("text_delta"), None, _) => {
                        vec![diagnostic(PROVIDER, "stream_event", "text_delta without text")]
                    }
                    _ => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }

    /// A control request from the CLI: a tool's permission becomes an approval (except
    /// AskUserQuestion's: its question is already the prompt).
    fn control_request(&mut self, msg: &Value) -> Vec<Canonical> {
        let kind = "control_request";
        let (Some(rid), Some(req)) = (str_field(msg, "request_id"), msg.get("request")) else {
            return vec![diagnostic(PROVIDER, kind, "no request_id or request")];
        };
        match str_field(req, "subtype") {
            Some("can_use_tool") => {}
            // The host's own request (the mode a turn starts in).
            Some("set_permission_mode") => {
                return match str_field(req, "mode") {
                    Some(mode) => {
                        let outputs = self.mode.set(mode_from_permission(mode));
                        with_native(PROVIDER, "set_permission_mode", msg, outputs)
                    }
                    None => vec![diagnostic(PROVIDER, kind, "set_permission_mode without a mode")],
                };
            }
            _ => return Vec::new(),
        }
        let Some(tool_name) = str_field(req, "tool_name") else {
            return vec![diagnostic(PROVIDER, kind, format!("can_use_tool {rid} without tool_name"))];
        };
        if tool_name == ASK_USER_QUESTION {
            return Vec::new();
        }
        let input = req.get("input").cloned().unwrap_or(Value::Null);
        let approval = ApprovalRequest {
            approval_id: approval_id(rid),
            tool_name: tool_name.to_string(),
            call_id: str_field(req, "tool_use_id").map(str::to_owned),
            reason: approval_reason(tool_name, &input, str_field(req, "description")),
        };
        let pending = PendingApproval { request_id: rid.to_string(), tool_name: tool_name.to_string(), input };
        self.approvals.insert(approval.approval_id.clone(), pending);
        with_native(PROVIDER, kind, msg, vec![Canonical::Approval(approval)])
    }

    /// The whole `control_response` for a pending approval: `allow` with the tool's input
    /// unchanged (ExitPlanMode also leaves plan mode for the session's default mode), or `deny`.
    pub fn respond_approval(
        &mut self,
        approval_id: &str,
        outcome: agent_session_wire::ApprovalOutcome,
    ) -> Result<Value, AnswerError> {
        let p = self.approvals.remove(approval_id).ok_or(AnswerError::NotPending)?;
        let response = match outcome {
            agent_session_wire::ApprovalOutcome::AllowedOnce => {
                let mut allow = json!({ "behavior": "allow", "updatedInput": p.input });
                if p.tool_name == EXIT_PLAN_MODE {
                    allow["updatedPermissions"] =
                        json!([{ "type": "setMode", "mode": "default", "destination": "session" }]);
                }
                allow
            }
            _ => json!({ "behavior": "deny", "message": "The user did not allow this tool call." }),
        };
        Ok(control_response(&p.request_id, response))
    }

    fn assistant_block(&mut self, b: &Value) -> Vec<Canonical> {
        match str_field(b, "type") {
            Some("text") => match str_field(b, "text") {
                Some("") => Vec::new(),
                Some(t) => vec![Canonical::AssistantText { text: t.to_string() }],
                None => vec![diagnostic(PROVIDER, "assistant", "text block without text")],
            },
            Some("thinking") => match str_field(b, "thinking") {
                Some("") => Vec::new(),
                Some(t) => vec![Canonical::Reasoning { text: t.to_string() }],
                None => vec![diagnostic(PROVIDER, "assistant", "thinking block without thinking")],
            },
            Some("redacted_thinking") => Vec::new(),
            Some("tool_use") => self.tool_use(b),
            other => vec![diagnostic(PROVIDER, "assistant", format!("content block {other:?} ignored"))],
        }
    }

    fn tool_use(&mut self, b: &Value) -> Vec<Canonical> {
        let (Some(id), Some(name)) = (str_field(b, "id"), str_field(b, "name")) else {
            return vec![diagnostic(PROVIDER, "assistant", "tool_use without id or name")];
        };
        let input = b.get("input").cloned().unwrap_or(Value::Null);
        match name {
            ASK_USER_QUESTION => match prompt_from_tool_use(id, &input) {
                Ok(prompt) => {
                    self.special.insert(id.to_string());
                    self.pending.ask(prompt, Value::String(id.to_string()))
                }
                Err(e) => vec![diagnostic(PROVIDER, "assistant", format!("AskUserQuestion {id} dropped: {e}"))],
            },
            // No plan file was written: Claude Code sends `{}`, a request to leave plan mode
            // with nothing to propose (its permission still asks).
            EXIT_PLAN_MODE if input.as_object().is_some_and(|o| !o.contains_key("plan")) => {
                self.special.insert(id.to_string());
                Vec::new()
            }
            EXIT_PLAN_MODE => match serde_json::from_value::<ExitPlanInput>(input) {
                Ok(p) => {
                    self.special.insert(id.to_string());
                    self.proposals.insert(id.to_string());
                    let proposed = to_value(&ProposedPlan {
                        plan_id: id.to_string(),
                        markdown: p.plan.clone(),
                        source: Provenance::Native,
                    });
                    let mut out = vec![
                        Canonical::Event { kind: EV_PLAN_PROPOSED, data: proposed.clone() },
                        Canonical::Projection { key: PROJ_PROPOSED_PLAN, value: proposed },
                    ];
                    let steps = steps_from_markdown(&p.plan);
                    if !steps.is_empty() {
                        let steps = PlanSteps { explanation: None, steps };
                        out.push(Canonical::Projection { key: PROJ_PLAN_STEPS, value: to_value(&steps) });
                    }
                    out
                }
                Err(e) => vec![diagnostic(PROVIDER, "assistant", format!("ExitPlanMode {id} dropped: {e}"))],
            },
            _ => vec![Canonical::ToolCall { call_id: id.to_string(), name: name.to_string(), arguments: input }],
        }
    }

    fn user_block(&mut self, b: &Value) -> Vec<Canonical> {
        if str_field(b, "type") != Some("tool_result") {
            return Vec::new();
        }
        let Some(id) = str_field(b, "tool_use_id") else {
            return vec![diagnostic(PROVIDER, "user", "tool_result without tool_use_id")];
        };
        let is_error = b.get("is_error").and_then(Value::as_bool).unwrap_or(false);
        let content = b.get("content").cloned().unwrap_or(Value::Null);
        if !self.special.contains(id) {
            return vec![Canonical::ToolResult { call_id: id.to_string(), content, is_error }];
        }
        if self.proposals.remove(id) {
            return vec![Canonical::Projection { key: PROJ_PROPOSED_PLAN, value: Value::Null }];
        }
        let pid = prompt_id(id);
        // Answered through us: the prompt is no longer pending and this is silent.
        let Some((prompt, _)) = self.pending.get(&pid).cloned() else { return Vec::new() };
        if is_error {
            self.pending.resolve(&pid, Vec::new(), PromptOutcome::Cancelled)
        } else {
            let answers = answers_from_native(&prompt, &content);
            self.pending.resolve(&pid, answers, PromptOutcome::Answered)
        }
    }

    /// Everything still pending, withdrawn (the turn ended without an answer): each prompt
    /// resolved `cancelled`, the approvals forgotten.
    pub fn withdraw_all(&mut self) -> Vec<Canonical> {
        self.approvals.clear();
        let ids: Vec<String> = self.pending_ids();
        let mut out = Vec::new();
        for id in ids {
            out.extend(self.pending.resolve(&id, Vec::new(), PromptOutcome::Cancelled));
        }
        out
    }

    fn pending_ids(&self) -> Vec<String> {
        self.pending.ids()
    }

    /// Whether the AskUserQuestion `tool_use_id` is a prompt waiting for its answer.
    pub fn is_asking(&self, tool_use_id: &str) -> bool {
        self.pending.get(&prompt_id(tool_use_id)).is_some()
    }

    /// Answers a pending AskUserQuestion. `native_id` is the `tool_use` id; `result` is the
    /// `{answers}` value Claude reads.
    pub fn answer(&mut self, prompt_id: &str, answers: &[Answer]) -> Result<Answered, AnswerError> {
        let (prompt, id) = self.pending.check(prompt_id, answers)?;
        let result = answers_to_native(&prompt, answers);
        let reply = json!({ "tool_use_id": id, "result": result });
        let outputs = self.pending.resolve(prompt_id, answers.to_vec(), PromptOutcome::Answered);
        Ok(Answered { native_id: id, result, outputs: with_native(PROVIDER, "answer", &reply, outputs) })
    }
}
