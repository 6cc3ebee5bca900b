//! Unary methods: their names, payloads and value schemas (second parse level).

use super::event::SessionEvent;
use super::json::Json;
use super::plan::PlanModeState;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

pub const HOST_DESCRIBE: &str = "host.describe";
pub const SESSION_LIST: &str = "session.list";
pub const SESSION_CREATE: &str = "session.create";
pub const SESSION_HISTORY: &str = "session.history";
pub const SESSION_PROMPT: &str = "session.prompt";
pub const SESSION_CANCEL: &str = "session.cancel";
pub const SESSION_PLAN_MODE: &str = "session.planMode";
pub const SESSION_SET_PLAN_MODE: &str = "session.setPlanMode";
/// Not a method of its own: the path that takes `client-response` envelopes.
pub const RESPOND_PATH: &str = "respond";

pub const METHODS: &[&str] = &[
    HOST_DESCRIBE,
    SESSION_LIST,
    SESSION_CREATE,
    SESSION_HISTORY,
    SESSION_PROMPT,
    SESSION_CANCEL,
    SESSION_PLAN_MODE,
    SESSION_SET_PLAN_MODE,
];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HostDescription {
    pub version: String,
    pub cwd: String,
    pub provider: String,
    pub model: String,
    pub attached_sessions: u64,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ListPayload {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    pub session_id: String,
    pub updated_at: f64,
    pub running: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListValue {
    pub items: Vec<SessionSummary>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CreatePayload {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Extension: the scripted agent's provider profile (reference host only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateValue {
    pub session_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRef {
    pub session_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryPayload {
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_seq: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_messages: Option<std::num::NonZeroU32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryItem {
    pub event: SessionEvent,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<Json>,
}

/// Extension 1: the tail page's projection baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectionBaseline {
    pub as_of_seq: i64,
    pub values: BTreeMap<String, Json>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryValue {
    pub events: Vec<HistoryItem>,
    pub has_more: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub projections: Option<ProjectionBaseline>,
}

impl HistoryValue {
    /// Events must be strictly ascending and contiguous; a page that is not is a schema
    /// failure (the window is a contiguous run of the host's log).
    pub fn validate(&self) -> Result<(), String> {
        for pair in self.events.windows(2) {
            if pair[1].event.seq != pair[0].event.seq + 1 {
                return Err(format!(
                    "history page not contiguous at seq {} -> {}",
                    pair[0].event.seq, pair[1].event.seq
                ));
            }
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PromptMode {
    Queue,
    Steer,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptPayload {
    pub session_id: String,
    pub mode: PromptMode,
    pub content: Vec<Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetPlanModePayload {
    pub session_id: String,
    pub active: bool,
}

/// `{accepted: true}`: the value of prompt and cancel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Accepted {
    pub accepted: AlwaysTrue,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "bool", into = "bool")]
pub struct AlwaysTrue;
impl TryFrom<bool> for AlwaysTrue {
    type Error = &'static str;
    fn try_from(b: bool) -> Result<Self, Self::Error> {
        if b {
            Ok(AlwaysTrue)
        } else {
            Err("expected true")
        }
    }
}
impl From<AlwaysTrue> for bool {
    fn from(_: AlwaysTrue) -> bool {
        true
    }
}

/// The receipt of `POST /api/respond`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    pub accepted: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<ReceiptReason>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReceiptReason {
    NotPending,
    BadResponse,
}

impl Receipt {
    pub fn accepted() -> Self {
        Receipt { accepted: true, reason: None }
    }
    pub fn refused(reason: ReceiptReason) -> Self {
        Receipt { accepted: false, reason: Some(reason) }
    }
}

/// Second-level value check for a method's `ok` value.
pub fn validate_value(method: &str, value: &Json) -> Result<(), String> {
    fn check<T: serde::de::DeserializeOwned>(v: &Json) -> Result<(), String> {
        v.parse::<T>().map(|_| ()).map_err(|e| e.to_string())
    }
    match method {
        HOST_DESCRIBE => check::<HostDescription>(value),
        SESSION_LIST => check::<ListValue>(value),
        SESSION_CREATE => check::<CreateValue>(value),
        SESSION_HISTORY => {
            let v: HistoryValue = value.parse().map_err(|e| e.to_string())?;
            v.validate()
        }
        SESSION_PROMPT | SESSION_CANCEL => check::<Accepted>(value),
        SESSION_PLAN_MODE | SESSION_SET_PLAN_MODE => {
            super::plan::parse_plan_value(value).map(|_| ())
        }
        RESPOND_PATH | super::interaction::SESSION_ANSWER => check::<Receipt>(value),
        other => Err(format!("unknown method {other:?}")),
    }
}

/// Convenience used by both sides: a `PlanModeState | null` as JSON.
pub fn plan_value(state: Option<PlanModeState>) -> Value {
    serde_json::to_value(state).unwrap_or(Value::Null)
}

/// The same as raw JSON text (the client's form).
pub fn plan_json(state: Option<PlanModeState>) -> Json {
    Json::from_serialize(&state)
}
