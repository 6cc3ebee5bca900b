//! Top-level payload checks that report every bad field at once (serde stops at the first).
//! Issues keep the origin's zod shape `{code, path, message}`; what this table does not
//! cover (nested shapes) is still caught by the typed deserialization after it (`payload`).

use crate::http::rpc::{invalid_payload, issue};
use agent_session_wire::{self as wire, interaction::SESSION_ANSWER, RpcError};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

#[derive(Clone, Copy)]
enum Kind {
    Str,
    /// A string of at least one character (upstream's ids, `provider`, `model`).
    Id,
    Bool,
    /// An integer `>= min`.
    Int(u64),
    Array,
    OneOf(&'static [&'static str]),
    /// `session.prompt` content: a non-empty array of objects with a string `type`.
    Content,
}

/// `(field, kind, required)` for each method's payload.
fn fields(method: &str) -> Option<&'static [(&'static str, Kind, bool)]> {
    use Kind::*;
    const SID: (&str, Kind, bool) = ("sessionId", Str, true);
    const WID: (&str, Kind, bool) = ("workspaceId", Id, true);
    Some(match method {
        wire::HOST_DESCRIBE => &[],
        wire::SESSION_LIST => &[("cursor", Str, false)],
        wire::SESSION_CREATE => &[("cwd", Str, false), ("provider", Str, false)],
        wire::SESSION_HISTORY => &[SID, ("beforeSeq", Int(0), false), ("maxMessages", Int(1), false)],
        wire::SESSION_PROMPT => &[SID, ("mode", OneOf(&["queue", "steer"]), true), ("content", Content, true)],
        wire::SESSION_CANCEL | wire::SESSION_PLAN_MODE => &[SID],
        wire::SESSION_SET_PLAN_MODE => &[SID, ("active", Bool, true)],
        SESSION_ANSWER => &[SID, ("promptId", Str, true), ("answers", Array, true)],
        wire::SESSION_RENAME => &[SID, ("title", Str, true)],
        wire::SESSION_FORK => &[SID, ("atSeq", Int(0), false)],
        wire::SESSION_UPDATE_QUEUE => &[SID, ("itemId", Str, true)],
        wire::SESSION_ATTACHMENT => &[SID, ("attachmentId", Str, true)],
        // The 2026-08 surface of `http::head`.
        "session.search" => &[("query", Str, true)],
        "session.models" => &[("sessionId", Id, true)],
        "session.selectModel" => {
            &[("sessionId", Id, true), ("provider", Id, true), ("model", Id, true), ("reasoningEffort", Id, false)]
        }
        "workspace.list" => &[],
        "workspace.create" => &[("path", Str, true)],
        "workspace.rename" => &[WID, ("title", Str, true)],
        "workspace.delete" => &[WID],
        "workspace.insertBefore" => &[WID, ("beforeWorkspaceId", Id, false)],
        "workspace.insertSessionBefore" => &[WID, ("sessionId", Id, true), ("beforeSessionId", Id, false)],
        "workspace.archiveSession" => &[("sessionId", Id, true)],
        "subagent.list" => &[("parentSessionId", Str, true)],
        "subagent.history" => &[
            ("parentSessionId", Str, true),
            ("childSessionId", Str, true),
            ("mode", OneOf(&["one-shot", "continuable"]), true),
            ("beforeSeq", Int(0), false),
            ("maxMessages", Int(1), false),
        ],
        "subagent.prompt" => &[
            ("parentSessionId", Str, true),
            ("childSessionId", Str, true),
            ("mode", OneOf(&["continuable"]), true),
            ("content", Array, true),
            ("clientTimeZone", Str, false),
        ],
        "subagent.interrupt" => {
            &[("parentSessionId", Str, true), ("childSessionId", Str, true), ("mode", OneOf(&["continuable"]), true)]
        }
        _ => return None,
    })
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn invalid_type(path: Vec<Value>, expected: &str, v: Option<&Value>) -> Value {
    let received = v.map_or("undefined", type_name);
    let message =
        if v.is_none() { "Required".to_string() } else { format!("Expected {expected}, received {received}") };
    json!({ "code": "invalid_type", "path": path, "expected": expected, "received": received, "message": message })
}

/// zod's `min(1)` issue for an empty string.
pub fn too_short(path: Vec<Value>) -> Value {
    json!({ "code": "too_small", "path": path, "minimum": 1, "type": "string", "inclusive": true,
        "message": "String must contain at least 1 character(s)" })
}

fn check_field(name: &str, kind: Kind, v: Option<&Value>, issues: &mut Vec<Value>) {
    let path = || vec![json!(name)];
    let Some(v) = v else {
        let expected = match kind {
            Kind::Str | Kind::Id | Kind::OneOf(_) => "string",
            Kind::Bool => "boolean",
            Kind::Int(_) => "number",
            Kind::Array | Kind::Content => "array",
        };
        issues.push(invalid_type(path(), expected, None));
        return;
    };
    match kind {
        Kind::Str if !v.is_string() => issues.push(invalid_type(path(), "string", Some(v))),
        Kind::Id if !v.is_string() => issues.push(invalid_type(path(), "string", Some(v))),
        Kind::Id if v.as_str() == Some("") => issues.push(too_short(path())),
        Kind::Bool if !v.is_boolean() => issues.push(invalid_type(path(), "boolean", Some(v))),
        Kind::Int(_) if !v.is_number() => issues.push(invalid_type(path(), "number", Some(v))),
        Kind::Int(min) => match v.as_u64() {
            Some(n) if n >= min => {}
            None if v.as_f64().is_some_and(|f| f.fract() != 0.0) => issues.push(json!({
                "code": "invalid_type", "path": path(), "expected": "integer", "received": "float",
                "message": "Expected integer, received float" })),
            _ => issues.push(json!({ "code": "too_small", "path": path(), "minimum": min, "type": "number",
                "inclusive": true, "message": format!("Number must be greater than or equal to {min}") })),
        },
        Kind::OneOf(options) if !v.as_str().is_some_and(|s| options.contains(&s)) => {
            let list = options.iter().map(|o| format!("'{o}'")).collect::<Vec<_>>().join(" | ");
            let received = v.as_str().map_or_else(|| type_name(v).to_string(), |s| format!("'{s}'"));
            issues.push(json!({ "code": "invalid_enum_value", "path": path(), "options": options,
                "message": format!("Invalid enum value. Expected {list}, received {received}") }));
        }
        Kind::Array if !v.is_array() => issues.push(invalid_type(path(), "array", Some(v))),
        Kind::Content => match v.as_array() {
            None => issues.push(invalid_type(path(), "array", Some(v))),
            Some(blocks) if blocks.is_empty() => issues.push(json!({ "code": "too_small", "path": path(),
                "minimum": 1, "type": "array", "inclusive": true, "message": "expected at least one content block" })),
            Some(blocks) => {
                for (i, b) in blocks.iter().enumerate() {
                    if !b.get("type").is_some_and(Value::is_string) {
                        issues.push(json!({ "code": "custom", "path": [name, i, "type"],
                            "message": "expected a content block with a string type" }));
                    }
                }
            }
        },
        _ => {}
    }
}

/// Every issue of the payload's top-level fields (`Ok` when the table knows none).
pub fn payload_fields(method: &str, payload: &Value) -> Result<(), RpcError> {
    let Some(spec) = fields(method) else { return Ok(()) };
    let Some(obj) = payload.as_object() else {
        return Err(invalid_payload(method, vec![invalid_type(vec![], "object", Some(payload))]));
    };
    let mut issues = Vec::new();
    for (name, kind, required) in spec {
        match obj.get(*name) {
            None if !required => {}
            v => check_field(name, *kind, v, &mut issues),
        }
    }
    if issues.is_empty() {
        Ok(())
    } else {
        Err(invalid_payload(method, issues))
    }
}

/// Deserializes a method payload; a failure names the path and reason like the origin.
pub fn payload<T: DeserializeOwned>(method: &str, payload: &Value) -> Result<T, RpcError> {
    payload_fields(method, payload)?;
    serde_path_to_error::deserialize(payload).map_err(|e| {
        let mut path: Vec<Value> = e
            .path()
            .iter()
            .filter_map(|seg| match seg {
                serde_path_to_error::Segment::Seq { index } => Some(json!(index)),
                serde_path_to_error::Segment::Map { key } => Some(json!(key)),
                serde_path_to_error::Segment::Enum { variant } => Some(json!(variant)),
                serde_path_to_error::Segment::Unknown => None,
            })
            .collect();
        let message = e.inner().to_string();
        if let Some(field) = message.strip_prefix("missing field `").and_then(|m| m.split('`').next()) {
            path.push(json!(field));
        }
        invalid_payload(method, vec![issue(path, message)])
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_session_wire::SetPlanModePayload;

    fn paths(method: &str, p: Value) -> Vec<Value> {
        let e = payload_fields(method, &p).unwrap_err();
        e.details.value()["issues"].as_array().unwrap().iter().map(|i| i["path"].clone()).collect()
    }

    #[test]
    fn every_bad_field_is_reported() {
        assert_eq!(
            paths(wire::SESSION_SET_PLAN_MODE, json!({ "sessionId": 1, "active": "yes" })),
            vec![json!(["sessionId"]), json!(["active"])]
        );
        assert_eq!(
            paths(wire::SESSION_PROMPT, json!({ "sessionId": "s", "mode": "now", "content": [{ "text": "x" }, {}] })),
            vec![json!(["mode"]), json!(["content", 0, "type"]), json!(["content", 1, "type"])]
        );
        assert_eq!(
            paths(wire::SESSION_HISTORY, json!({ "maxMessages": 0, "beforeSeq": -1 })),
            vec![json!(["sessionId"]), json!(["beforeSeq"]), json!(["maxMessages"])]
        );
        assert_eq!(paths(wire::SESSION_CANCEL, json!([1])), vec![json!([])]);
        assert!(payload_fields(wire::SESSION_HISTORY, &json!({ "sessionId": "s", "maxMessages": 3 })).is_ok());
        assert!(payload_fields("respond", &json!(1)).is_ok(), "unknown shapes are left to serde");
    }

    #[test]
    fn messages_name_expected_and_received() {
        let e = payload_fields(wire::SESSION_SET_PLAN_MODE, &json!({ "sessionId": "s" })).unwrap_err();
        assert_eq!(e.details.value()["issues"][0]["message"], "Required");
        let e = payload_fields(wire::SESSION_SET_PLAN_MODE, &json!({ "sessionId": "s", "active": 1 })).unwrap_err();
        assert_eq!(e.details.value()["issues"][0]["message"], "Expected boolean, received number");
    }

    #[test]
    fn missing_field_names_its_path() {
        let err = payload::<SetPlanModePayload>("session.setPlanMode", &json!({ "sessionId": "s" })).unwrap_err();
        assert_eq!(err.message, "invalid payload for session.setPlanMode");
        assert_eq!(err.details.value()["issues"][0]["path"], json!(["active"]));
        let err = payload::<SetPlanModePayload>("m", &json!({ "sessionId": "s", "active": 1 })).unwrap_err();
        assert_eq!(err.details.value()["issues"][0]["path"], json!(["active"]));
    }
}
