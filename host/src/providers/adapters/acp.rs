//! Agent Client Protocol (JSON-RPC 2.0): Cursor's agent (the scripted "Cursor profile") and any
//! real ACP agent the host drives (`--agent acp`, e.g. `claude-code-acp`).
//!
//! | native | canonical |
//! |---|---|
//! | `session/new` (or `session/load`) result `{modes:{currentModeId, availableModes}}` | `interaction/mode` + capabilities (plan/ask mode = advertised modes) |
//! | `session/update` `current_mode_update {currentModeId}` | `interaction/mode` (on change) |
//! | `agent_message_chunk {content:{type:'text'}}` | assistant text |
//! | `agent_thought_chunk` | reasoning |
//! | `tool_call` / `tool_call_update` (completed, failed) | tool call / tool result (a call announced again under the same id is one call: `claude-code-acp` announces each twice, the input only the second time) |
//! | `tool_call` kind `switch_mode` with a plan (`rawInput.plan` or its text content) | `plan/proposed` (source `native`) + projection `interaction/proposedPlan`, steps parsed from the markdown (source `synthesized`); not a tool call |
//! | the client's own `session/set_mode {modeId}` | `interaction/mode` (agents answer it with `{}` and no `current_mode_update`) |
//! | `plan {entries}` | projection `interaction/plan` (source `native`; the Cursor profile does not send it) |
//! | request `session/request_permission` | approval (never a user-input prompt); for a `switch_mode` call it is the plan's approval ([`AcpAdapter::is_plan_exit`]) |
//!
//! Empty text chunks (`""`, which `claude-code-acp` sends before each reply) carry nothing.
//!
//! Mode ids: `agent` (Cursor's normal mode: it edits and runs tools but still asks
//! permission) reads as **default**, not execute; `plan` -> plan; `ask` -> ask; the Claude Code
//! ACP ids `default`, `acceptEdits`/`bypassPermissions` (execute) are read as well.

use super::claude::steps_from_markdown;
use super::ApprovalRequest;
use super::{
    capabilities_projection, diagnostic, id_key, str_field, to_value, with_native, AnswerError, Canonical, ModeTracker,
    NativeError,
};
use agent_session_wire::interaction::{
    Capabilities, ModeState, OperatingMode, PlanStep, PlanSteps, ProposedPlan, Provenance, StepStatus,
    EV_PLAN_PROPOSED, PROJ_PLAN_STEPS, PROJ_PROPOSED_PLAN,
};
use agent_session_wire::ApprovalOutcome;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet, VecDeque};

pub const PROVIDER: &str = "acp";

/// Tool calls remembered per session (announced, waiting for their outcome); the oldest is
/// forgotten past this, so an agent that never finishes its calls cannot grow the adapter.
const MAX_CALLS: usize = 1024;

// ---- native shapes (unknown fields ignored) ----

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ModesState {
    current_mode_id: String,
    #[serde(default)]
    available_modes: Vec<SessionMode>,
}

#[derive(Deserialize)]
struct SessionMode {
    id: String,
}

#[derive(Deserialize)]
struct PlanEntry {
    content: String,
    status: EntryStatus,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum EntryStatus {
    Pending,
    InProgress,
    Completed,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PermissionParams {
    tool_call: PermissionToolCall,
    options: Vec<PermissionOption>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PermissionToolCall {
    tool_call_id: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    kind: Option<String>,
}

/// One `session/request_permission` option.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionOption {
    pub option_id: String,
    #[serde(default)]
    pub name: Option<String>,
    /// `allow_once | allow_always | reject_once | reject_always`.
    pub kind: String,
}

// ---- pure mappings ----

/// An ACP mode id -> operating mode (`native` keeps the id).
pub fn mode_from_id(id: &str) -> ModeState {
    let mode = match id {
        "agent" | "default" => OperatingMode::Default,
        "plan" => OperatingMode::Plan,
        "ask" => OperatingMode::Ask,
        "acceptEdits" | "bypassPermissions" => OperatingMode::Execute,
        _ => OperatingMode::Unknown,
    };
    ModeState { mode, native: Some(id.to_string()) }
}

/// `plan` entries -> structured plan steps (source `native`; priority has no canonical field).
pub fn plan_steps(update: &Value) -> Result<PlanSteps, NativeError> {
    let entries: Vec<PlanEntry> =
        serde_json::from_value(update.get("entries").cloned().ok_or(NativeError::Missing("no entries"))?)?;
    Ok(PlanSteps {
        explanation: None,
        steps: entries
            .into_iter()
            .map(|e| PlanStep {
                id: None,
                text: e.content,
                status: match e.status {
                    EntryStatus::Pending => StepStatus::Pending,
                    EntryStatus::InProgress => StepStatus::InProgress,
                    EntryStatus::Completed => StepStatus::Completed,
                },
                source: Provenance::Native,
            })
            .collect(),
    })
}

/// The approval id of a `session/request_permission` request: `acp-<JSON-RPC id>`.
pub fn approval_id(request_id: &Value) -> Option<String> {
    id_key(request_id).map(|k| format!("acp-{k}"))
}

/// The JSON-RPC response to `session/request_permission` for an approval outcome:
/// allowed-once selects an `allow_once` option (never an `allow_always` one: that would grant
/// more than was approved), rejected a `reject_once` (else `reject_always`) option, and
/// cancelled/unavailable answers `{outcome: 'cancelled'}`.
pub fn permission_response(
    id: &Value,
    options: &[PermissionOption],
    outcome: ApprovalOutcome,
) -> Result<Value, NativeError> {
    let pick =
        |kinds: &[&str]| kinds.iter().find_map(|k| options.iter().find(|o| o.kind == *k)).map(|o| o.option_id.clone());
    let outcome = match outcome {
        ApprovalOutcome::AllowedOnce => {
            let id = pick(&["allow_once"]).ok_or(NativeError::Missing("no allow_once option"))?;
            json!({ "outcome": "selected", "optionId": id })
        }
        ApprovalOutcome::Rejected => {
            let id = pick(&["reject_once", "reject_always"]).ok_or(NativeError::Missing("no reject option"))?;
            json!({ "outcome": "selected", "optionId": id })
        }
        ApprovalOutcome::Cancelled | ApprovalOutcome::Unavailable => json!({ "outcome": "cancelled" }),
    };
    Ok(json!({ "jsonrpc": "2.0", "id": id, "result": { "outcome": outcome } }))
}

/// Text of ACP tool-call content (`[{type:'content', content:{type:'text', text}}, ...]`).
fn tool_content_text(content: &Value) -> Option<String> {
    let parts: Vec<&str> = content.as_array()?.iter().filter_map(|c| c.pointer("/content/text")?.as_str()).collect();
    (!parts.is_empty()).then(|| parts.join("\n"))
}

// ---- the adapter ----

/// A tool call seen in `tool_call` updates, until its outcome.
#[derive(Debug)]
struct Call {
    /// `tool/call` was emitted.
    announced: bool,
    /// A `switch_mode` call: a plan proposal, never a tool call.
    switch_mode: bool,
    /// Its plan was proposed.
    proposed: bool,
}

#[derive(Debug)]
pub struct AcpAdapter {
    /// The flags the profile claims beyond the advertised modes.
    caps: Capabilities,
    mode: ModeTracker,
    /// Pending permission requests: approval id -> (JSON-RPC id, options).
    approvals: HashMap<String, (Value, Vec<PermissionOption>)>,
    /// Pending permission requests that approve a proposed plan (a `switch_mode` call's).
    plan_exits: HashSet<String>,
    /// Tool calls by id, oldest first in `call_order` (bounded by [`MAX_CALLS`]).
    calls: HashMap<String, Call>,
    call_order: VecDeque<String>,
}

impl AcpAdapter {
    /// The Cursor profile (modes + plain text).
    pub fn cursor() -> Self {
        Self::with_capabilities(super::capabilities::cursor())
    }

    /// A real ACP agent (`--agent acp`): only what ACP itself promises until the agent's
    /// `session/new` modes say more.
    pub fn agent() -> Self {
        Self::with_capabilities(super::capabilities::acp())
    }

    pub fn with_capabilities(caps: Capabilities) -> Self {
        AcpAdapter {
            caps,
            mode: ModeTracker::default(),
            approvals: HashMap::new(),
            plan_exits: HashSet::new(),
            calls: HashMap::new(),
            call_order: VecDeque::new(),
        }
    }

    /// Whether a pending approval is a proposed plan's (approving it leaves plan mode).
    pub fn is_plan_exit(&self, approval_id: &str) -> bool {
        self.plan_exits.contains(approval_id)
    }

    pub fn capabilities(&self) -> Capabilities {
        self.caps
    }

    pub fn mode(&self) -> Option<&ModeState> {
        self.mode.current()
    }

    /// The result of `session/new` / `session/load` (bare, or the whole JSON-RPC response):
    /// the current mode, and plan/ask mode support as the agent advertises it.
    pub fn ingest_session_result(&mut self, msg: &Value) -> Vec<Canonical> {
        let result = msg.get("result").unwrap_or(msg);
        let modes = match result.get("modes") {
            None | Some(Value::Null) => {
                // No modes at all: the agent supports neither plan nor ask mode.
                self.caps.supports_plan_mode = false;
                self.caps.supports_ask_mode = false;
                return with_native(PROVIDER, "session/new", msg, vec![capabilities_projection(self.caps)]);
            }
            Some(m) => m,
        };
        let modes: ModesState = match serde_json::from_value(modes.clone()) {
            Ok(m) => m,
            Err(e) => return vec![diagnostic(PROVIDER, "session/new", format!("modes: {e}"))],
        };
        let has = |id: &str| modes.available_modes.iter().any(|m| m.id == id);
        self.caps.supports_plan_mode = has("plan");
        self.caps.supports_ask_mode = has("ask");
        let mut outputs = vec![capabilities_projection(self.caps)];
        outputs.extend(self.mode.set(mode_from_id(&modes.current_mode_id)));
        with_native(PROVIDER, "session/new", msg, outputs)
    }

    /// One JSON-RPC message from the agent: a `session/update` notification or a
    /// `session/request_permission` request. Anything else yields nothing.
    pub fn ingest(&mut self, msg: &Value) -> Vec<Canonical> {
        match str_field(msg, "method") {
            Some("session/update") => self.session_update(msg),
            Some("session/request_permission") => self.request_permission(msg),
            Some("session/set_mode") => match msg.pointer("/params/modeId").and_then(Value::as_str) {
                Some(id) => {
                    let outputs = self.mode.set(mode_from_id(id));
                    with_native(PROVIDER, "session/set_mode", msg, outputs)
                }
                None => vec![diagnostic(PROVIDER, "session/set_mode", "no params.modeId")],
            },
            Some(_) => Vec::new(),
            None if msg.is_object() && msg.get("id").is_some() => Vec::new(), // a response
            None => vec![diagnostic(PROVIDER, "message", "neither a request, a notification nor a response")],
        }
    }

    fn session_update(&mut self, msg: &Value) -> Vec<Canonical> {
        let Some(update) = msg.pointer("/params/update").filter(|u| u.is_object()) else {
            return vec![diagnostic(PROVIDER, "session/update", "params.update is not an object")];
        };
        let Some(kind) = str_field(update, "sessionUpdate") else {
            return vec![diagnostic(PROVIDER, "session/update", "update without sessionUpdate")];
        };
        let native_kind = format!("session/update:{kind}");
        let bad = |why: &str| vec![diagnostic(PROVIDER, &native_kind, why)];
        let outputs = match kind {
            "current_mode_update" => match str_field(update, "currentModeId") {
                Some(id) => self.mode.set(mode_from_id(id)),
                None => return bad("no currentModeId"),
            },
            "agent_message_chunk" | "agent_thought_chunk" => {
                let Some(content) = update.get("content") else { return bad("no content") };
                match (str_field(content, "type"), str_field(content, "text")) {
                    (Some("text"), Some("")) => Vec::new(),
                    (Some("text"), Some(t)) if kind == "agent_message_chunk" => {
                        vec![Canonical::AssistantText { text: t.to_string() }]
                    }
                    (Some("text"), Some(t)) => vec![Canonical::Reasoning { text: t.to_string() }],
                    (Some("text"), None) => return bad("text content without text"),
                    (other, _) => return bad(&format!("content type {other:?} not mapped")),
                }
            }
            "tool_call" | "tool_call_update" => {
                let Some(id) = str_field(update, "toolCallId") else { return bad("no toolCallId") };
                self.tool_call(id, kind == "tool_call", update)
            }
            "plan" => match plan_steps(update) {
                Ok(steps) => vec![Canonical::Projection { key: PROJ_PLAN_STEPS, value: to_value(&steps) }],
                Err(e) => return bad(&e.to_string()),
            },
            // User echoes are logged by the host; commands and the rest carry nothing canonical.
            _ => Vec::new(),
        };
        with_native(PROVIDER, &native_kind, msg, outputs)
    }

    fn request_permission(&mut self, msg: &Value) -> Vec<Canonical> {
        const KIND: &str = "session/request_permission";
        let Some(approval_id) = msg.get("id").and_then(approval_id) else {
            return vec![diagnostic(PROVIDER, KIND, "request without a usable id")];
        };
        let params: PermissionParams = match serde_json::from_value(msg.get("params").cloned().unwrap_or(Value::Null)) {
            Ok(p) => p,
            Err(e) => return vec![diagnostic(PROVIDER, KIND, format!("{approval_id} dropped (left unanswered): {e}"))],
        };
        if params.options.is_empty() {
            return vec![diagnostic(PROVIDER, KIND, format!("{approval_id} dropped (left unanswered): no options"))];
        }
        let tool_name =
            params.tool_call.title.clone().or(params.tool_call.kind.clone()).unwrap_or_else(|| "tool".into());
        let call_id = &params.tool_call.tool_call_id;
        let switch_mode = params.tool_call.kind.as_deref() == Some("switch_mode")
            || self.calls.get(call_id).is_some_and(|c| c.switch_mode);
        let mut outputs = Vec::new();
        if switch_mode {
            // The agent itself asks to leave plan mode with a plan: a native exit-plan-mode.
            self.plan_exits.insert(approval_id.clone());
            if !self.caps.supports_exit_plan_mode {
                self.caps.supports_exit_plan_mode = true;
                outputs.push(capabilities_projection(self.caps));
            }
            // The plan may come only with the request (an agent that announced no content).
            let tool_call = msg.pointer("/params/toolCall").cloned().unwrap_or(Value::Null);
            outputs.extend(self.propose(call_id, &tool_call));
        }
        self.approvals.insert(approval_id.clone(), (msg["id"].clone(), params.options));
        let approval =
            ApprovalRequest { approval_id, tool_name, call_id: Some(params.tool_call.tool_call_id), reason: None };
        outputs.push(Canonical::Approval(approval));
        with_native(PROVIDER, KIND, msg, outputs)
    }

    /// The JSON-RPC response for a pending approval (see [`permission_response`]).
    pub fn respond_approval(&mut self, approval_id: &str, outcome: ApprovalOutcome) -> Result<Value, AnswerError> {
        let (id, options) = self.approvals.get(approval_id).ok_or(AnswerError::NotPending)?;
        let reply = permission_response(id, options, outcome).map_err(|e| AnswerError::BadResponse(e.to_string()))?;
        self.approvals.remove(approval_id);
        self.plan_exits.remove(approval_id);
        Ok(reply)
    }

    /// Forgets a pending approval the agent no longer waits on (its turn ended).
    pub fn forget_approval(&mut self, approval_id: &str) {
        self.approvals.remove(approval_id);
        self.plan_exits.remove(approval_id);
    }

    /// One `tool_call` (`first`) or `tool_call_update`: the call is announced once, when its
    /// input is known (a later announcement or any update), and its outcome when it finishes.
    fn tool_call(&mut self, id: &str, first: bool, update: &Value) -> Vec<Canonical> {
        if !self.calls.contains_key(id) {
            if self.call_order.len() >= MAX_CALLS {
                if let Some(old) = self.call_order.pop_front() {
                    self.calls.remove(&old);
                }
            }
            self.call_order.push_back(id.to_string());
            self.calls.insert(id.to_string(), Call { announced: false, switch_mode: false, proposed: false });
        }
        let switch_mode = str_field(update, "kind") == Some("switch_mode");
        let mut out = Vec::new();
        let (is_switch, announced) = match self.calls.get_mut(id) {
            Some(c) => {
                c.switch_mode |= switch_mode;
                (c.switch_mode, c.announced)
            }
            None => return out,
        };
        if is_switch {
            return self.propose(id, update);
        }
        let arguments = update.get("rawInput").cloned();
        let has_input = arguments.as_ref().is_some_and(|a| a.as_object().is_none_or(|o| !o.is_empty()));
        let status = str_field(update, "status");
        let finished = matches!(status, Some("completed" | "failed"));
        // A bare first announcement (`status: pending`, no input yet) waits for the next one.
        if !announced && (has_input || !first || finished) {
            let name = str_field(update, "title").or_else(|| str_field(update, "kind")).unwrap_or("tool");
            out.push(Canonical::ToolCall {
                call_id: id.to_string(),
                name: name.to_string(),
                arguments: arguments.unwrap_or_else(|| json!({})),
            });
            if let Some(c) = self.calls.get_mut(id) {
                c.announced = true;
            }
        }
        let outcome = tool_outcome(id, update);
        if !outcome.is_empty() {
            self.calls.remove(id);
            self.call_order.retain(|c| c != id);
        }
        out.extend(outcome);
        out
    }

    /// A `switch_mode` call's plan (its `rawInput.plan`, else its text content), proposed once.
    fn propose(&mut self, id: &str, call: &Value) -> Vec<Canonical> {
        let plan = call
            .pointer("/rawInput/plan")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| call.get("content").and_then(tool_content_text))
            .filter(|p| !p.trim().is_empty());
        let Some(plan) = plan else { return Vec::new() };
        match self.calls.get_mut(id) {
            Some(c) if c.proposed => return Vec::new(),
            Some(c) => c.proposed = true,
            None => {
                self.call_order.push_back(id.to_string());
                self.calls.insert(id.to_string(), Call { announced: false, switch_mode: true, proposed: true });
            }
        }
        let proposed =
            to_value(&ProposedPlan { plan_id: id.to_string(), markdown: plan.clone(), source: Provenance::Native });
        let mut out = vec![
            Canonical::Event { kind: EV_PLAN_PROPOSED, data: proposed.clone() },
            Canonical::Projection { key: PROJ_PROPOSED_PLAN, value: proposed },
        ];
        let steps = steps_from_markdown(&plan);
        if !steps.is_empty() {
            out.push(Canonical::Projection {
                key: PROJ_PLAN_STEPS,
                value: to_value(&PlanSteps { explanation: None, steps }),
            });
        }
        out
    }

    /// A proposed plan's approval was answered: the handoff card goes (approved: the agent
    /// implements it; rejected: it keeps planning).
    pub fn plan_answered(&mut self) -> Vec<Canonical> {
        vec![Canonical::Projection { key: PROJ_PROPOSED_PLAN, value: Value::Null }]
    }
}

/// A finished tool call's result (`completed` / `failed`); other statuses say nothing yet.
fn tool_outcome(id: &str, update: &Value) -> Vec<Canonical> {
    let is_error = match str_field(update, "status") {
        Some("completed") => false,
        Some("failed") => true,
        _ => return Vec::new(),
    };
    let content = update
        .get("content")
        .and_then(tool_content_text)
        .map(Value::String)
        .or_else(|| update.get("rawOutput").cloned())
        .unwrap_or_else(|| Value::String(String::new()));
    vec![Canonical::ToolResult { call_id: id.to_string(), content, is_error }]
}
