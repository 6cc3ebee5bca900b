//! Stream frames (the payload of a `server-request` SSE frame), mux and host streams alike.

use super::envelope::{Envelope, ServerRequest};
use super::event::SessionEvent;
use super::json::Json;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventFrame {
    pub session_id: String,
    pub event: SessionEvent,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<Json>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscribedFrame {
    pub session_id: String,
    /// Last seq of the host's log, `-1` for an empty log.
    pub last_seq: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitleFrame {
    pub session_id: String,
    pub title: String,
    pub event_seq: u64,
    pub updated_at: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequested {
    pub session_id: String,
    pub approval_id: String,
    pub tool_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovalOutcome {
    AllowedOnce,
    Rejected,
    Cancelled,
    Unavailable,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalResolved {
    pub session_id: String,
    pub approval_id: String,
    pub outcome: ApprovalOutcome,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionOption {
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Question {
    pub id: String,
    pub question: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<QuestionOption>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multi_select: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuestionRequested {
    pub session_id: String,
    pub questions: Vec<Question>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QuestionOutcome {
    Answered,
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuestionResolved {
    pub session_id: String,
    pub question_rpc_id: String,
    pub outcome: QuestionOutcome,
}

/// Extension 1: one projection row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectionFrame {
    pub session_id: String,
    pub key: String,
    pub value: Json,
    pub seq: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionIdFrame {
    pub session_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionStatusFrame {
    pub session_id: String,
    pub running: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentErrorFrame {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamErrorFrame {
    #[serde(default)]
    pub error: Json,
}

/// Every frame type of both streams. The `type` tag equals the envelope `method`.
/// Deserialized by [`Frame::from_text`] (the tag picks the struct, which then reads the text
/// directly; raw `Json` fields cannot pass through serde's tagged-enum buffering).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum Frame {
    #[serde(rename = "session/event")]
    Event(EventFrame),
    #[serde(rename = "session/subscribed")]
    Subscribed(SubscribedFrame),
    #[serde(rename = "session/title")]
    Title(TitleFrame),
    #[serde(rename = "session/projection")]
    Projection(ProjectionFrame),
    #[serde(rename = "approval/requested")]
    ApprovalRequested(ApprovalRequested),
    #[serde(rename = "approval/resolved")]
    ApprovalResolved(ApprovalResolved),
    #[serde(rename = "question/requested")]
    QuestionRequested(QuestionRequested),
    #[serde(rename = "question/resolved")]
    QuestionResolved(QuestionResolved),
    #[serde(rename = "stream/error")]
    StreamError(StreamErrorFrame),
    #[serde(rename = "host/session-added")]
    SessionAdded(SessionIdFrame),
    #[serde(rename = "host/session-removed")]
    SessionRemoved(SessionIdFrame),
    #[serde(rename = "host/session-status")]
    SessionStatus(SessionStatusFrame),
    #[serde(rename = "host/agent-error")]
    AgentError(AgentErrorFrame),
}

/// The `type` of a frame payload (one scan of the text).
fn payload_type(raw: &str) -> Result<String, FrameError> {
    use std::borrow::Cow;
    #[derive(Deserialize)]
    struct Tag<'a> {
        #[serde(rename = "type", borrow, default)]
        kind: Option<Cow<'a, str>>,
    }
    let tag: Tag = serde_json::from_str(raw)
        .map_err(|e| FrameError::Schema { method: String::new(), error: e.to_string() })?;
    Ok(tag.kind.map(Cow::into_owned).unwrap_or_default())
}

impl<'de> Deserialize<'de> for Frame {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Frame, D::Error> {
        let raw = Box::<serde_json::value::RawValue>::deserialize(d)?;
        Frame::from_text(raw.get()).map_err(serde::de::Error::custom)
    }
}

impl Frame {
    /// Reads a frame payload: its `type` picks the variant, whose struct reads the text.
    pub fn from_text(raw: &str) -> Result<Frame, FrameError> {
        let method = payload_type(raw)?;
        Frame::read_variant(&method, raw)
    }

    /// Reads a payload the envelope says is of type `method`. The payload's own `type` must
    /// agree; the common serialization (`{"type":"<method>",…`) is recognised without a
    /// second pass over the text, anything else gets the full check.
    fn from_text_as(method: &str, raw: &str) -> Result<Frame, FrameError> {
        let fast = raw
            .strip_prefix("{\"type\":\"")
            .and_then(|rest| rest.strip_prefix(method))
            .is_some_and(|rest| rest.starts_with('"'));
        if fast {
            return Frame::read_variant(method, raw);
        }
        Frame::from_text(raw)
    }

    fn read_variant(method: &str, raw: &str) -> Result<Frame, FrameError> {
        fn de<'a, T: Deserialize<'a>>(raw: &'a str) -> Result<T, String> {
            serde_json::from_str(raw).map_err(|e| e.to_string())
        }
        let frame = match method {
            "session/event" => de(raw).map(Frame::Event),
            "session/subscribed" => de(raw).map(Frame::Subscribed),
            "session/title" => de(raw).map(Frame::Title),
            "session/projection" => de(raw).map(Frame::Projection),
            "approval/requested" => de(raw).map(Frame::ApprovalRequested),
            "approval/resolved" => de(raw).map(Frame::ApprovalResolved),
            "question/requested" => de(raw).map(Frame::QuestionRequested),
            "question/resolved" => de(raw).map(Frame::QuestionResolved),
            "stream/error" => de(raw).map(Frame::StreamError),
            "host/session-added" => de(raw).map(Frame::SessionAdded),
            "host/session-removed" => de(raw).map(Frame::SessionRemoved),
            "host/session-status" => de(raw).map(Frame::SessionStatus),
            "host/agent-error" => de(raw).map(Frame::AgentError),
            _ => return Err(FrameError::Unknown { method: method.to_string() }),
        };
        frame.map_err(|error| FrameError::Schema { method: method.to_string(), error })
    }

    pub fn type_name(&self) -> &'static str {
        match self {
            Frame::Event(_) => "session/event",
            Frame::Subscribed(_) => "session/subscribed",
            Frame::Title(_) => "session/title",
            Frame::Projection(_) => "session/projection",
            Frame::ApprovalRequested(_) => "approval/requested",
            Frame::ApprovalResolved(_) => "approval/resolved",
            Frame::QuestionRequested(_) => "question/requested",
            Frame::QuestionResolved(_) => "question/resolved",
            Frame::StreamError(_) => "stream/error",
            Frame::SessionAdded(_) => "host/session-added",
            Frame::SessionRemoved(_) => "host/session-removed",
            Frame::SessionStatus(_) => "host/session-status",
            Frame::AgentError(_) => "host/agent-error",
        }
    }

    /// The session event a `session/event` frame carries.
    pub fn event(&self) -> Option<&SessionEvent> {
        match self {
            Frame::Event(f) => Some(&f.event),
            _ => None,
        }
    }

    /// The session a frame speaks of, if any.
    pub fn session_id(&self) -> Option<&str> {
        Some(match self {
            Frame::Event(f) => &f.session_id,
            Frame::Subscribed(f) => &f.session_id,
            Frame::Title(f) => &f.session_id,
            Frame::Projection(f) => &f.session_id,
            Frame::ApprovalRequested(f) => &f.session_id,
            Frame::ApprovalResolved(f) => &f.session_id,
            Frame::QuestionRequested(f) => &f.session_id,
            Frame::QuestionResolved(f) => &f.session_id,
            Frame::SessionAdded(f) | Frame::SessionRemoved(f) => &f.session_id,
            Frame::SessionStatus(f) => &f.session_id,
            Frame::AgentError(f) => return f.session_id.as_deref(),
            Frame::StreamError(_) => return None,
        })
    }

    /// Wraps this frame in its `server-request` envelope (host side).
    pub fn to_envelope(&self, rpc_id: impl Into<String>) -> Envelope {
        Envelope::ServerRequest(ServerRequest {
            rpc_id: rpc_id.into(),
            method: self.type_name().to_string(),
            payload: serde_json::to_value(self).expect("frames always serialize"),
        })
    }
}

/// A decoded stream frame with the envelope rpcId it came in (questions are answered by it).
#[derive(Debug, Clone, PartialEq)]
pub struct InboundFrame {
    pub rpc_id: String,
    pub frame: Frame,
}

/// Why a `data:` payload was skipped. The stream stays up either way.
#[derive(Debug, Clone, PartialEq)]
pub enum FrameError {
    /// Not a `server-request` envelope, or not JSON at all.
    Envelope(String),
    /// `method` differs from the payload's `type`.
    MethodMismatch { method: String },
    /// A frame type this client does not know (a newer host): skipped, counted apart.
    Unknown { method: String },
    /// A known frame type whose payload fails its schema.
    Schema { method: String, error: String },
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameError::Envelope(e) => write!(f, "bad frame envelope: {e}"),
            FrameError::MethodMismatch { method } => write!(f, "frame method {method:?} does not match payload type"),
            FrameError::Unknown { method } => write!(f, "unknown frame type {method:?}"),
            FrameError::Schema { method, error } => write!(f, "bad {method} frame: {error}"),
        }
    }
}

const KNOWN: &[&str] = &[
    "session/event",
    "session/subscribed",
    "session/title",
    "session/projection",
    "approval/requested",
    "approval/resolved",
    "question/requested",
    "question/resolved",
    "stream/error",
    "host/session-added",
    "host/session-removed",
    "host/session-status",
    "host/agent-error",
];

/// Two-level parse of one SSE `data:` payload: the envelope, then the frame with its own
/// schema. The hot case (a `session/event` whose `method` precedes its `payload`, as every
/// host writes it) is read in one pass; anything else, and any failure, takes the general
/// path, which leaves the payload as raw text and classifies the error exactly.
pub fn parse_frame(data: &str) -> Result<InboundFrame, FrameError> {
    match event_fast_path(data) {
        Some(frame) => Ok(frame),
        None => parse_frame_general(data),
    }
}

/// One pass over a `session/event` frame. `None` when the frame has another shape or does
/// not parse: the general path then decides, and names the error precisely. (A non-event
/// payload stops the pass early, which serde reports as an error; that is fine here.)
fn event_fast_path(data: &str) -> Option<InboundFrame> {
    use serde::de::{IgnoredAny, MapAccess, Visitor};
    use std::borrow::Cow;

    #[derive(Deserialize)]
    struct Key<'a>(#[serde(borrow)] Cow<'a, str>);

    /// `EventFrame` plus its `type` tag, which must equal the envelope's method.
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct EventPayload<'a> {
        #[serde(rename = "type", borrow)]
        kind: Cow<'a, str>,
        session_id: String,
        event: SessionEvent,
        #[serde(default)]
        view: Option<Json>,
    }

    struct Envelope;
    impl<'de> Visitor<'de> for Envelope {
        type Value = Option<InboundFrame>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a server-request envelope")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let (mut server_request, mut rpc_id, mut is_event) = (None, None, None);
            let mut payload: Option<EventPayload<'de>> = None;
            while let Some(Key(key)) = map.next_key()? {
                // A repeated key is left to the general path, which rejects it.
                match &*key {
                    "type" if server_request.is_none() => {
                        server_request = Some(map.next_value::<Key>()?.0 == "server-request")
                    }
                    "rpcId" if rpc_id.is_none() => rpc_id = Some(map.next_value::<String>()?),
                    "method" if is_event.is_none() => is_event = Some(map.next_value::<Key>()?.0 == "session/event"),
                    "payload" if payload.is_none() && is_event == Some(true) => payload = Some(map.next_value()?),
                    "type" | "rpcId" | "method" | "payload" => return Ok(None),
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(match (server_request, rpc_id, payload) {
                (Some(true), Some(rpc_id), Some(p)) if p.kind == "session/event" => Some(InboundFrame {
                    rpc_id,
                    frame: Frame::Event(EventFrame { session_id: p.session_id, event: p.event, view: p.view }),
                }),
                _ => None,
            })
        }
    }
    use serde::Deserializer as _;
    let mut de = serde_json::Deserializer::from_str(data);
    let frame = (&mut de).deserialize_map(Envelope).ok()?;
    de.end().ok()?;
    frame
}

fn parse_frame_general(data: &str) -> Result<InboundFrame, FrameError> {
    use std::borrow::Cow;
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct RawRequest<'a> {
        #[serde(rename = "type", borrow)]
        kind: Cow<'a, str>,
        rpc_id: String,
        #[serde(borrow)]
        method: Cow<'a, str>,
        #[serde(borrow)]
        payload: &'a serde_json::value::RawValue,
    }
    let req: RawRequest = serde_json::from_str(data).map_err(|e| FrameError::Envelope(e.to_string()))?;
    if req.kind != "server-request" {
        return Err(FrameError::Envelope("not a server-request".into()));
    }
    let method = req.method;
    if !KNOWN.contains(&&*method) {
        return Err(FrameError::Unknown { method: method.into_owned() });
    }
    let raw = req.payload.get();
    let frame = match Frame::from_text_as(&method, raw) {
        Ok(frame) if frame.type_name() == method => frame,
        Ok(_) | Err(FrameError::Unknown { .. }) => {
            return Err(FrameError::MethodMismatch { method: method.into_owned() })
        }
        Err(FrameError::Schema { error, .. }) => {
            return Err(FrameError::Schema { method: method.into_owned(), error })
        }
        Err(e) => return Err(e),
    };
    let schema = |error: String| FrameError::Schema { method: method.to_string(), error };
    if let Frame::QuestionRequested(q) = &frame {
        if q.questions.is_empty() {
            return Err(schema("no questions".into()));
        }
    }
    if let Frame::Subscribed(s) = &frame {
        if s.last_seq < -1 {
            return Err(schema("lastSeq < -1".into()));
        }
    }
    Ok(InboundFrame { rpc_id: req.rpc_id, frame })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(method: &str, payload: &str) -> String {
        format!(r#"{{"type":"server-request","rpcId":"r1","method":"{method}","payload":{payload}}}"#)
    }

    #[test]
    fn a_valid_frame_keeps_its_envelope_rpc_id() {
        let f = parse_frame(&data("session/subscribed", r#"{"type":"session/subscribed","sessionId":"s","lastSeq":-1}"#)).unwrap();
        assert_eq!(f.rpc_id, "r1");
        assert!(matches!(f.frame, Frame::Subscribed(SubscribedFrame { last_seq: -1, .. })));
    }

    #[test]
    fn an_event_frame_reads_the_same_in_one_pass_and_through_the_general_path() {
        let ev = r#"{"type":"session/event","sessionId":"s","event":{"type":"x","seq":3,"time":1,"data":{"a":[1,"\u00e9"]}},"view":{"v":1}}"#;
        let frames = [
            data("session/event", ev),
            // Keys in another order (payload before method) and an escaped key: general path.
            format!(r#"{{"payload":{ev},"method":"session/event","rpcId":"r1","type":"server-request"}}"#),
            format!(r#"{{"type":"server-request","rpc\u0049d":"r1","method":"session/event","payload":{ev}}}"#),
        ];
        for f in &frames {
            let fast = parse_frame(f).unwrap();
            assert_eq!(fast, parse_frame_general(f).unwrap(), "{f}");
            assert!(matches!(&fast.frame, Frame::Event(e) if e.event.seq == 3 && e.view.is_some()));
        }
        assert!(event_fast_path(&frames[0]).is_some(), "the hot shape takes the one-pass path");
        assert!(event_fast_path(&frames[1]).is_none());
        let twice = format!(r#"{{"type":"server-request","rpcId":"r1","method":"session/event","method":"x","payload":{ev}}}"#);
        assert!(event_fast_path(&twice).is_none() && parse_frame(&twice).is_err(), "a repeated key is rejected");
    }

    #[test]
    fn an_event_frame_with_another_payload_type_or_a_bad_event_is_classified_exactly() {
        let other = data("session/event", r#"{"type":"session/title","sessionId":"s","title":"t","eventSeq":1,"updatedAt":1}"#);
        assert!(matches!(parse_frame(&other), Err(FrameError::MethodMismatch { .. })));
        let bad = data("session/event", r#"{"type":"session/event","sessionId":"s","event":{"type":"x","seq":-1,"time":1}}"#);
        assert!(matches!(parse_frame(&bad), Err(FrameError::Schema { .. })));
    }

    #[test]
    fn malformed_and_unknown_frames_are_told_apart() {
        assert!(matches!(parse_frame("not json"), Err(FrameError::Envelope(_))));
        assert!(matches!(parse_frame(r#"{"type":"server-response","rpcId":"x","result":{}}"#), Err(FrameError::Envelope(_))));
        assert!(matches!(parse_frame(&data("future/thing", r#"{"type":"future/thing"}"#)), Err(FrameError::Unknown { .. })));
        assert!(matches!(
            parse_frame(&data("session/title", r#"{"type":"session/subscribed","sessionId":"s","lastSeq":1}"#)),
            Err(FrameError::MethodMismatch { .. })
        ));
        assert!(matches!(
            parse_frame(&data("session/subscribed", r#"{"type":"session/subscribed","sessionId":"s","lastSeq":-2}"#)),
            Err(FrameError::Schema { .. })
        ));
        assert!(matches!(
            parse_frame(&data("session/subscribed", r#"{"type":"session/subscribed","sessionId":"s"}"#)),
            Err(FrameError::Schema { .. })
        ));
        assert!(matches!(
            parse_frame(&data("question/requested", r#"{"type":"question/requested","sessionId":"s","questions":[]}"#)),
            Err(FrameError::Schema { .. })
        ));
    }
}
