//! `RpcError` and the `RpcResult` wire form (`{ok:true,value}` | `{ok:false,error}`).

use super::json::Json;
use super::read::{Obj, ReadError, ReadErrorKind, ReadResult};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

wire_enum! {
    /// The closed set of business error codes. An unknown code from a newer host reads as
    /// `Internal` so callers can always match exhaustively.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum ErrorCode {
        /// The call's arguments failed their schema or make no sense.
        BadRequest = "bad-request",
        /// The caller cancelled the call.
        Cancelled = "cancelled",
        /// No session has the given id.
        SessionNotFound = "session-not-found",
        /// The agent is running a turn and cannot take this call now.
        AgentBusy = "agent-busy",
        /// Made by the client: the host has no such method (it answered 404).
        Unsupported = "unsupported",
    }
    other =
        /// Any other code, the host's own failures included.
        Internal = "internal";
}

record! {
    /// The business error of a failed call: a code to match on, a message for people, free-form
    /// details.
    #[derive(Debug, Clone, PartialEq)]
    pub struct RpcError {
        /// What went wrong, as a closed set.
        pub code: ErrorCode = "code",
        /// For people; never matched on.
        pub message: String = "message",
        /// Free-form context (`{}` when the host sent none).
        pub details: Json = default_with("Json::empty_object", Json::empty_object) "details",
        /// The carrier's HTTP status, when the call failed with one. Set only by
        /// [`RpcError::carrier_status`], never read from the wire: a host's own error whose
        /// `details` say `{transport: true, status: 404}` is still the host's error.
        pub http_status: Option<u16> = local,
    }
}

impl RpcError {
    /// An error with its details as a JSON tree (the host's constructors).
    pub fn new(code: ErrorCode, message: impl Into<String>, details: Value) -> Self {
        RpcError { code, message: message.into(), details: Json::from_value(&details), http_status: None }
    }
    /// Without building a `Value` (the client's error paths).
    pub fn with_details(code: ErrorCode, message: impl Into<String>, details: Json) -> Self {
        RpcError { code, message: message.into(), details, http_status: None }
    }
    /// A carrier failure (non-2xx, rpcId mismatch, bad body, value failing its schema,
    /// timeout) folded into the business shape callers see.
    pub fn transport(message: impl Into<String>) -> Self {
        Self::transport_with(message.into(), None)
    }
    /// A non-2xx answer of the carrier. The status is kept typed ([`RpcError::status`])
    /// because a client tells host generations apart by it (the 2026-08 host answers 404 to
    /// the seed's plan RPCs), and shown to people in `details.status`.
    pub fn carrier_status(status: u16, message: impl Into<String>) -> Self {
        Self::transport_with(message.into(), Some(status))
    }
    /// One non-generic body for both carrier errors (each call site of the generic
    /// constructors stays a thin shim).
    #[inline(never)]
    fn transport_with(message: String, status: Option<u16>) -> Self {
        let details = match status {
            None => Json::from_text(r#"{"transport":true}"#),
            // Printed as a u32: the one integer width the module formats already.
            Some(status) => Json::from_text(&format!(r#"{{"transport":true,"status":{}}}"#, u32::from(status))),
        };
        RpcError {
            code: ErrorCode::Internal,
            message,
            // Cannot fail: literal JSON.
            details: details.unwrap_or_else(|_| unreachable!()),
            http_status: status,
        }
    }
    /// A host without `method` (it answered the call 404): a clear refusal, not a transport
    /// failure.
    pub fn unsupported(method: &str) -> Self {
        RpcError {
            code: ErrorCode::Unsupported,
            message: format!("{method}: not supported by this host"),
            details: Json::empty_object(),
            http_status: None,
        }
    }
    /// The same error when this is a 404 of the carrier, else itself.
    pub fn or_unsupported(self, method: &str) -> Self {
        match self.status() {
            Some(404) => RpcError::unsupported(method),
            _ => self,
        }
    }
    /// The carrier status of an error made by [`RpcError::carrier_status`] (never one a host
    /// wrote into `details`).
    pub fn status(&self) -> Option<u16> {
        self.http_status
    }
    /// A `bad-request` carrying the schema issues the host found.
    pub fn bad_request(message: impl Into<String>, issues: Vec<Value>) -> Self {
        RpcError::new(ErrorCode::BadRequest, message, json!({ "issues": issues }))
    }
    /// A `session-not-found` naming the id.
    pub fn session_not_found(session_id: &str) -> Self {
        RpcError::new(
            ErrorCode::SessionNotFound,
            format!("session {session_id:?} not found"),
            json!({ "sessionId": session_id }),
        )
    }
    /// The wire object as a JSON tree (the host writes it so).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

/// `RpcResult<T>` is a plain Rust `Result`; these convert it to and from its wire object.
pub type RpcResult<T> = Result<T, RpcError>;

/// The wire object of a raw result, written without a `Value` tree.
pub fn result_text(result: &RpcResult<Json>) -> String {
    match result {
        Ok(value) => format!(r#"{{"ok":true,"value":{}}}"#, value.text()),
        Err(error) => format!(r#"{{"ok":false,"error":{}}}"#, Json::from_serialize(error).text()),
    }
}

/// Reads a result object from its raw text, keeping `value` as raw text. A missing `value`
/// (the 2026-08 host writes a void result so) reads as `null`.
pub fn result_from_text(text: &str) -> ReadResult<RpcResult<Json>> {
    let bad = |e: ReadError| e.context("bad result");
    let o = Obj::parse(text).map_err(bad)?;
    if o.bool("ok").map_err(bad)? {
        // The 2026-08 host omits `value` for a void result; it reads as `null`.
        Ok(Ok(o.present("value").unwrap_or_else(Json::null)))
    } else {
        let error = o.opt_field::<RpcError>("error").map_err(bad)?;
        error.map(Err).ok_or_else(|| ReadError::invalid("error result without error"))
    }
}

/// The wire object of a result as a JSON tree (the host side of [`result_from_json`]).
pub fn result_to_json(result: &RpcResult<Value>) -> Value {
    match result {
        Ok(value) => json!({ "ok": true, "value": value }),
        Err(error) => json!({ "ok": false, "error": error.to_json() }),
    }
}

/// Reads the wire object. `value` may legitimately be `null` (plan service absent), so a
/// present-but-null value is kept distinct from a missing one (a schema failure).
pub fn result_from_json(value: &Value) -> ReadResult<RpcResult<Value>> {
    let obj = value.as_object().ok_or_else(|| ReadError::invalid("result is not an object"))?;
    match obj.get("ok") {
        Some(Value::Bool(true)) => match obj.get("value") {
            Some(v) => Ok(Ok(v.clone())),
            None => Err(ReadError::invalid("ok result without value")),
        },
        Some(Value::Bool(false)) => {
            let error = obj.get("error").ok_or_else(|| ReadError::invalid("error result without error"))?;
            let error: RpcError = serde_json::from_value(error.clone())
                .map_err(|e| ReadError::new(ReadErrorKind::Syntax(e.to_string()), "error").context("bad error"))?;
            Ok(Err(error))
        }
        _ => Err(ReadError::invalid("result.ok is not a boolean")),
    }
}

pub mod result_serde {
    //! `#[serde(with)]` adapter for `RpcResult<Value>` fields.
    use super::*;
    use serde::{de::Error as _, Deserializer, Serializer};

    /// Writes the result as its wire object.
    pub fn serialize<S: Serializer>(r: &RpcResult<Value>, s: S) -> Result<S::Ok, S::Error> {
        result_to_json(r).serialize(s)
    }
    /// Reads the wire object (see [`result_from_json`]).
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<RpcResult<Value>, D::Error> {
        let v = Value::deserialize(d)?;
        result_from_json(&v).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_carrier_status_is_typed_and_shown_and_a_host_cannot_fake_it_in_details() {
        let carrier = RpcError::carrier_status(404, "session.planMode: HTTP 404");
        assert_eq!(carrier.status(), Some(404));
        // What people (and JS) see is the wire object: the status in `details`, no other member.
        assert_eq!(
            carrier.to_json(),
            json!({"code": "internal", "message": "session.planMode: HTTP 404", "details": {"transport": true, "status": 404}})
        );
        // The same object sent by a host is the host's error, not the carrier's.
        let text =
            r#"{"ok":false,"error":{"code":"internal","message":"m","details":{"transport":true,"status":404}}}"#;
        let hosts = result_from_text(text).unwrap().unwrap_err();
        assert_eq!((hosts.status(), hosts.details.value()["status"].as_u64()), (None, Some(404)));
        assert_eq!(hosts.clone().or_unsupported("session.rename"), hosts);
        let hosts: RpcError = serde_json::from_value(carrier.to_json()).unwrap();
        assert_eq!(hosts.status(), None, "serde does not read it either");
        assert_eq!(carrier.or_unsupported("session.rename").code, ErrorCode::Unsupported);
    }

    #[test]
    fn every_error_code_is_written_as_its_wire_name() {
        for (code, name) in ErrorCode::WIRE {
            assert_eq!((code.as_str(), ErrorCode::from_wire(name)), (*name, Some(*code)));
        }
        assert_eq!(ErrorCode::from_wire("newer-code"), Some(ErrorCode::Internal));
    }
}
