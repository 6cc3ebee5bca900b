//! What the 2026-08 methods answer with: a refusal under any code, and the host frames the
//! wire crate has no type for.

use crate::app::App;
use crate::http::verbs::Refusal;
use crate::log::hub::OutFrame;
use agent_session_wire::RpcError;
use serde_json::{json, Value};
use std::sync::Arc;

/// A business error with any code: the wire object `{code, message, details}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Refused(pub Value);

impl Refused {
    /// A refusal under one of upstream's codes.
    pub fn new(code: &str, message: impl Into<String>, details: Value) -> Refused {
        Refused(json!({ "code": code, "message": message.into(), "details": details }))
    }
}

impl From<RpcError> for Refused {
    fn from(e: RpcError) -> Refused {
        Refused(e.to_json())
    }
}

impl From<Refusal> for Refused {
    /// Upstream's answer for a verb's refusal.
    fn from(r: Refusal) -> Refused {
        match r {
            Refusal::Rpc(e) => e.into(),
            Refusal::Verb { code, upstream, details, .. } => Refused::new(code, upstream, details),
        }
    }
}

/// A method's value, or its refusal.
pub type Answer = Result<Value, Refused>;

/// Publishes a host frame the wire crate has no type for (`host/workspace-*`,
/// `host/archived-sessions-changed`) on the host downlink, in the envelope every frame has.
pub fn publish_host(app: &App, kind: &str, members: Value) {
    let mut payload = json!({ "type": kind });
    if let (Some(p), Value::Object(m)) = (payload.as_object_mut(), members) {
        p.extend(m);
    }
    let rpc_id = uuid::Uuid::new_v4().to_string();
    let envelope = json!({ "type": "server-request", "rpcId": rpc_id, "method": kind, "payload": payload });
    app.hub.host(Arc::new(OutFrame { json: envelope.to_string(), rpc_id, session_id: None, event_seq: None }));
}
