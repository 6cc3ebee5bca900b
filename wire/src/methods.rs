//! Unary methods: their names, payloads and value schemas (second parse level).

use super::event::SessionEvent;
use super::json::Json;
use super::plan::PlanModeState;
use super::read::{as_cow, read, FromObj, Obj, ReadError, ReadResult};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
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
/// Today's upstream host: slash commands (`/plan`, `/plan off`) for a session.
pub const COMMANDS_EXECUTE: &str = "commands/execute";
/// Today's upstream host: the commands a session knows, `[{name, description?, …}]`.
pub const COMMANDS_LIST: &str = "commands/list";

/// Whether a `commands/list` value names `command`.
pub fn lists_command(value: &Json, command: &str) -> Result<bool, String> {
    struct Named(String);
    impl FromObj for Named {
        fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
            Ok(Named(o.str("name")?))
        }
    }
    let items = super::read::read_objects::<Named>(value.text()).map_err(String::from)?;
    Ok(items.iter().any(|n| n.0 == command))
}

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

// The client reads wire values by name ([`super::read`]), not with the derives: the
// `Deserialize` derives stay for the host.
impl FromObj for HostDescription {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(HostDescription {
            version: o.str("version")?,
            cwd: o.str("cwd")?,
            provider: o.str("provider")?,
            model: o.str("model")?,
            attached_sessions: o.u64("attachedSessions")?,
        })
    }
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
    /// Reference-host extensions (CONTRACT-EXTENSIONS.md §6): the latest title and whether
    /// the open turn waits on the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting: Option<bool>,
}

impl FromObj for SessionSummary {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(SessionSummary {
            session_id: o.str("sessionId")?,
            updated_at: o.f64("updatedAt")?,
            running: o.bool("running")?,
            parent_session_id: o.opt_str("parentSessionId")?,
            cwd: o.opt_str("cwd")?,
            title: o.opt_str("title")?,
            waiting: o.opt_bool("waiting")?,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListValue {
    pub items: Vec<SessionSummary>,
}

impl FromObj for ListValue {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(ListValue { items: o.objects("items")? })
    }
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

impl FromObj for CreateValue {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(CreateValue { session_id: o.str("sessionId")? })
    }
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

impl FromObj for HistoryItem {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(HistoryItem { event: o.field("event")?, view: o.opt_json("view") })
    }
}

/// Extension 1: the tail page's projection baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectionBaseline {
    pub as_of_seq: i64,
    pub values: BTreeMap<String, Json>,
}

impl FromObj for ProjectionBaseline {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        let raw = o.raw("values").ok_or_else(|| ReadError("missing field `values`".into()))?;
        // Stricter than the derive's `BTreeMap` (last wins): a repeated key is refused.
        let values = Obj::parse(raw.get()).map_err(|e| ReadError(format!("`values`: {e}")))?;
        // Inserted one by one: `collect()` sorts first, which links a stable sort (~4 KB).
        let mut map = BTreeMap::new();
        for (k, v) in values.members() {
            map.insert(k.to_owned(), Json::from_raw(v));
        }
        Ok(ProjectionBaseline { as_of_seq: o.i64("asOfSeq")?, values: map })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryValue {
    pub events: Vec<HistoryItem>,
    pub has_more: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub projections: Option<ProjectionBaseline>,
}

impl FromObj for HistoryValue {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(HistoryValue {
            events: o.objects("events")?,
            has_more: o.bool("hasMore")?,
            projections: o.opt_field("projections")?,
        })
    }
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

impl FromObj for Accepted {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        match o.bool("accepted")? {
            true => Ok(Accepted { accepted: AlwaysTrue }),
            false => Err(ReadError("`accepted`: expected true".into())),
        }
    }
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

impl FromObj for Receipt {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        let reason = match o.raw("reason").filter(|v| v.get() != "null") {
            None => None,
            Some(v) => Some(ReceiptReason::from_raw(v)?),
        };
        Ok(Receipt { accepted: o.bool("accepted")?, reason })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReceiptReason {
    NotPending,
    BadResponse,
}

impl ReceiptReason {
    /// Its wire name (`kebab-case`), read without the enum derive. Only the string form: serde's
    /// `{"not-pending":null}` spelling of a unit variant is refused.
    fn from_raw(v: &RawValue) -> ReadResult<Self> {
        match as_cow(v).as_deref() {
            Some("not-pending") => Ok(ReceiptReason::NotPending),
            Some("bad-response") => Ok(ReceiptReason::BadResponse),
            _ => Err(ReadError(format!("`reason`: expected not-pending or bad-response, got {}", v.get()))),
        }
    }
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
    fn check<T: FromObj>(v: &Json) -> Result<(), String> {
        read::<T>(v.text()).map(|_| ()).map_err(String::from)
    }
    match method {
        HOST_DESCRIBE => check::<HostDescription>(value),
        SESSION_LIST => check::<ListValue>(value),
        SESSION_CREATE => check::<CreateValue>(value),
        SESSION_HISTORY => read::<HistoryValue>(value.text())?.validate(),
        SESSION_PROMPT | SESSION_CANCEL => check::<Accepted>(value),
        SESSION_PLAN_MODE | SESSION_SET_PLAN_MODE => super::plan::parse_plan_value(value).map(|_| ()),
        RESPOND_PATH | super::interaction::SESSION_ANSWER => check::<Receipt>(value),
        // `{commandId, result}`; the state it changes arrives as projection frames.
        COMMANDS_EXECUTE => Ok(()),
        COMMANDS_LIST => lists_command(value, "").map(|_| ()),
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

#[cfg(test)]
mod readers_agree_with_serde {
    use super::*;
    use serde::de::DeserializeOwned;
    use serde_json::json;
    use std::fmt::Debug;

    use crate::read::agree;

    fn accepted<T: FromObj + DeserializeOwned + PartialEq + Debug>(text: &str) -> T {
        agree(text).unwrap_or_else(|| panic!("both refused {text}"))
    }
    fn refused<T: FromObj + DeserializeOwned + PartialEq + Debug>(text: &str) {
        assert!(agree::<T>(text).is_none(), "both accepted {text}");
    }
    fn round_trips<T: FromObj + DeserializeOwned + Serialize + PartialEq + Debug>(v: &T) {
        assert_eq!(&accepted::<T>(&serde_json::to_string(v).unwrap()), v);
    }

    fn summary(parent: Option<&str>, cwd: Option<&str>) -> SessionSummary {
        SessionSummary {
            session_id: "s\"1".into(),
            updated_at: 1795991061849.5,
            running: true,
            parent_session_id: parent.map(Into::into),
            cwd: cwd.map(Into::into),
            title: None,
            waiting: None,
        }
    }

    fn item(seq: u64, view: Option<Json>) -> HistoryItem {
        let mut event = SessionEvent::new("user/message", seq, 1.0, json!({"content": [{"type": "text"}]}));
        event.source_event_seqs = Some(vec![0.0]);
        HistoryItem { event, view }
    }

    #[test]
    fn host_description_list_and_create() {
        round_trips(&HostDescription {
            version: "1".into(),
            cwd: "/w".into(),
            provider: "p".into(),
            model: "m\u{e9}".into(),
            attached_sessions: u64::MAX,
        });
        accepted::<HostDescription>(
            r#"{"x":{"y":[1]},"version":"1","cwd":"/","provider":"p","model":"m","attachedSessions":0}"#,
        );
        refused::<HostDescription>(r#"{"version":"1","cwd":"/","provider":"p","model":"m"}"#);
        refused::<HostDescription>(r#"{"version":"1","cwd":"/","provider":"p","model":"m","attachedSessions":1.5}"#);
        refused::<HostDescription>(r#"{"version":null,"cwd":"/","provider":"p","model":"m","attachedSessions":1}"#);

        round_trips(&ListValue { items: vec![] });
        round_trips(&ListValue { items: vec![summary(None, None), summary(Some("p"), Some("/c"))] });
        let v: ListValue = accepted(
            r#"{"items":[{"sessionId":"a","updatedAt":3,"running":false,"parentSessionId":null,"cwd":null,"z":1}],"more":true}"#,
        );
        assert_eq!(v.items[0].parent_session_id, None);
        refused::<ListValue>(r#"{"items":[{"sessionId":"a","updatedAt":"3","running":false}]}"#);
        refused::<ListValue>(r#"{"items":[{"sessionId":"a","updatedAt":3}]}"#);
        refused::<ListValue>(r#"{"items":null}"#);
        refused::<ListValue>(r#"{"items":{}}"#);
        refused::<ListValue>(r#"{}"#);

        round_trips(&CreateValue { session_id: "s".into() });
        refused::<CreateValue>(r#"{"session_id":"s"}"#);
        refused::<CreateValue>(r#"[]"#);
    }

    #[test]
    fn history_pages() {
        let projections = ProjectionBaseline {
            as_of_seq: -1,
            values: [("a".to_string(), Json::from_text(r#"{"k":[1, 2]}"#).unwrap()), ("b".into(), Json::null())]
                .into_iter()
                .collect(),
        };
        round_trips(&HistoryValue { events: vec![], has_more: false, projections: None });
        round_trips(&HistoryValue {
            events: vec![item(4, None), item(5, Some(Json::from_text("[1]").unwrap()))],
            has_more: true,
            projections: Some(projections),
        });
        let v: HistoryValue = accepted(
            r#"{"events":[{"event":{"type":"x","seq":0,"time":1},"view":null,"u":0}],"hasMore":false,"projections":null,"u":[]}"#,
        );
        assert_eq!(v.events[0].view, None, "a null view reads as absent");
        let v: HistoryValue = accepted(r#"{"events":[],"hasMore":true,"projections":{"asOfSeq":7,"values":{}}}"#);
        assert!(v.projections.unwrap().values.is_empty());

        refused::<HistoryValue>(r#"{"events":[]}"#);
        refused::<HistoryValue>(r#"{"events":[{"view":1}],"hasMore":false}"#);
        refused::<HistoryValue>(r#"{"events":[{"event":{"type":"x","time":1}}],"hasMore":false}"#);
        refused::<HistoryValue>(r#"{"events":[],"hasMore":false,"projections":{"asOfSeq":1}}"#);
        refused::<HistoryValue>(r#"{"events":[],"hasMore":false,"projections":{"asOfSeq":1,"values":[]}}"#);
        refused::<HistoryValue>(r#"{"events":[],"hasMore":false,"projections":{"asOfSeq":1.5,"values":{}}}"#);
        refused::<HistoryValue>(r#"{"events":[],"hasMore":false,"hasMore":true}"#);
    }

    #[test]
    fn accepted_and_receipts() {
        round_trips(&Accepted { accepted: AlwaysTrue });
        accepted::<Accepted>(r#"{"accepted":true,"extra":false}"#);
        refused::<Accepted>(r#"{"accepted":false}"#);
        refused::<Accepted>(r#"{"accepted":null}"#);
        refused::<Accepted>(r#"{}"#);

        round_trips(&Receipt::accepted());
        round_trips(&Receipt::refused(ReceiptReason::NotPending));
        round_trips(&Receipt::refused(ReceiptReason::BadResponse));
        assert_eq!(accepted::<Receipt>(r#"{"accepted":false,"reason":null,"x":1}"#).reason, None);
        assert_eq!(
            accepted::<Receipt>(r#"{"accepted":false,"reason":"not-pend\u0069ng"}"#).reason,
            Some(ReceiptReason::NotPending)
        );
        refused::<Receipt>(r#"{"accepted":false,"reason":"NotPending"}"#);
        refused::<Receipt>(r#"{"accepted":false,"reason":1}"#);
        refused::<Receipt>(r#"{"reason":"not-pending"}"#);
    }

    #[test]
    fn validate_value_uses_the_readers() {
        let j = |t: &str| Json::from_text(t).unwrap();
        assert!(validate_value(SESSION_PROMPT, &j(r#"{"accepted":true}"#)).is_ok());
        assert!(validate_value(SESSION_CANCEL, &j(r#"{"accepted":false}"#)).is_err());
        assert!(validate_value(RESPOND_PATH, &j(r#"{"accepted":false,"reason":"bad-response"}"#)).is_ok());
        assert!(validate_value(SESSION_PLAN_MODE, &j("null")).is_ok());
        assert!(validate_value(SESSION_SET_PLAN_MODE, &j(r#"{"active":true,"pending":true}"#)).is_err());
        let page = |a: u64, b: u64| {
            let v = HistoryValue { events: vec![item(a, None), item(b, None)], has_more: false, projections: None };
            Json::from_serialize(&v)
        };
        assert!(validate_value(SESSION_HISTORY, &page(3, 4)).is_ok());
        assert!(validate_value(SESSION_HISTORY, &page(3, 5)).unwrap_err().contains("not contiguous"));
        assert!(validate_value(SESSION_CREATE, &j("{}")).unwrap_err().contains("sessionId"));
        assert!(validate_value("nope", &j("{}")).is_err());
    }

    /// Where the readers are deliberately stricter than the derives (no host writes these).
    #[test]
    fn known_stricter_than_serde() {
        let t = r#"{"accepted":false,"reason":{"not-pending":null}}"#;
        assert!(serde_json::from_str::<Receipt>(t).is_ok() && read::<Receipt>(t).is_err());
        let t = r#"{"events":[],"hasMore":false,"projections":{"asOfSeq":1,"values":{"a":1,"a":2}}}"#;
        assert!(serde_json::from_str::<HistoryValue>(t).is_ok());
        assert!(read::<HistoryValue>(t).unwrap_err().0.contains("duplicate"));
    }
}
