//! Stream frames (the payload of a `server-request` SSE frame), mux and host streams alike.

use super::envelope::{Envelope, ServerRequest};
use super::event::SessionEvent;
use super::json::Json;
use super::read::{FromObj, Obj, ReadError, ReadResult};
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

/// Today's upstream host: the session's prompt queue, whole, whenever it changes. `items` are
/// `{id, placement: 'queued'|…, message: {content, source, role, id}}`, kept as sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueFrame {
    pub session_id: String,
    pub items: Json,
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
    /// Today's upstream host: what answering means, e.g. `{kind: 'plan-review', approve:
    /// 'Approve'}` for a plan review (answering `approve` leaves plan mode). Kept as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intent: Option<Json>,
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

/// `host/session-added`. Beyond the origin's `{sessionId, parentSessionId?}` the reference
/// host adds `cwd` and `updatedAt` (CONTRACT-EXTENSIONS.md §6) so a live list can place it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionAddedFrame {
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<f64>,
}

/// `host/session-status`. `waiting` and `updatedAt` are reference-host extensions
/// (CONTRACT-EXTENSIONS.md §6): `waiting` is true while the open turn waits on the user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionStatusFrame {
    pub session_id: String,
    pub running: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<f64>,
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

// ---- Client-side readers (the derives above serve the host; see `read`) ----

impl FromObj for EventFrame {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(EventFrame { session_id: o.str("sessionId")?, event: o.field("event")?, view: o.opt_json("view") })
    }
}

impl FromObj for SubscribedFrame {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(SubscribedFrame { session_id: o.str("sessionId")?, last_seq: o.i64("lastSeq")? })
    }
}

impl FromObj for TitleFrame {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(TitleFrame {
            session_id: o.str("sessionId")?,
            title: o.str("title")?,
            event_seq: o.u64("eventSeq")?,
            updated_at: o.f64("updatedAt")?,
        })
    }
}

impl FromObj for QueueFrame {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        let items = o.json("items");
        if !items.text().starts_with('[') {
            return Err(ReadError("`items`: expected an array".into()));
        }
        Ok(QueueFrame { session_id: o.str("sessionId")?, items })
    }
}

impl FromObj for ApprovalRequested {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(ApprovalRequested {
            session_id: o.str("sessionId")?,
            approval_id: o.str("approvalId")?,
            tool_name: o.str("toolName")?,
            call_id: o.opt_str("callId")?,
            reason: o.opt_str("reason")?,
        })
    }
}

impl FromObj for ApprovalResolved {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        use ApprovalOutcome::*;
        let outcome = [AllowedOnce, Rejected, Cancelled, Unavailable]
            [o.one_of("outcome", &["allowed-once", "rejected", "cancelled", "unavailable"])?];
        Ok(ApprovalResolved { session_id: o.str("sessionId")?, approval_id: o.str("approvalId")?, outcome })
    }
}

impl FromObj for QuestionOption {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(QuestionOption { label: o.str("label")?, description: o.opt_str("description")? })
    }
}

impl FromObj for Question {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(Question {
            id: o.str("id")?,
            question: o.str("question")?,
            header: o.opt_str("header")?,
            detail: o.opt_str("detail")?,
            options: o.opt_objects("options")?,
            multi_select: o.opt_bool("multiSelect")?,
            intent: o.opt_json("intent"),
        })
    }
}

impl FromObj for QuestionRequested {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(QuestionRequested { session_id: o.str("sessionId")?, questions: o.objects("questions")? })
    }
}

impl FromObj for QuestionResolved {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        let outcome =
            [QuestionOutcome::Answered, QuestionOutcome::Cancelled][o.one_of("outcome", &["answered", "cancelled"])?];
        Ok(QuestionResolved { session_id: o.str("sessionId")?, question_rpc_id: o.str("questionRpcId")?, outcome })
    }
}

impl FromObj for ProjectionFrame {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        let value = o.present("value").ok_or_else(|| ReadError("missing field `value`".into()))?;
        Ok(ProjectionFrame { session_id: o.str("sessionId")?, key: o.str("key")?, value, seq: o.i64("seq")? })
    }
}

impl FromObj for SessionIdFrame {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(SessionIdFrame { session_id: o.str("sessionId")? })
    }
}

impl FromObj for SessionAddedFrame {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(SessionAddedFrame {
            session_id: o.str("sessionId")?,
            parent_session_id: o.opt_str("parentSessionId")?,
            cwd: o.opt_str("cwd")?,
            updated_at: o.opt_f64("updatedAt")?,
        })
    }
}

impl FromObj for SessionStatusFrame {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(SessionStatusFrame {
            session_id: o.str("sessionId")?,
            running: o.bool("running")?,
            waiting: o.opt_bool("waiting")?,
            updated_at: o.opt_f64("updatedAt")?,
        })
    }
}

impl FromObj for AgentErrorFrame {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(AgentErrorFrame { session_id: o.opt_str("sessionId")?, message: o.str("message")? })
    }
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
    #[serde(rename = "session/queue")]
    Queue(QueueFrame),
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
    SessionAdded(SessionAddedFrame),
    #[serde(rename = "host/session-removed")]
    SessionRemoved(SessionIdFrame),
    #[serde(rename = "host/session-status")]
    SessionStatus(SessionStatusFrame),
    #[serde(rename = "host/agent-error")]
    AgentError(AgentErrorFrame),
}

impl<'de> Deserialize<'de> for Frame {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Frame, D::Error> {
        let raw = Box::<serde_json::value::RawValue>::deserialize(d)?;
        Frame::from_text(raw.get()).map_err(serde::de::Error::custom)
    }
}

impl Frame {
    /// Reads a frame payload: its `type` picks the variant, whose reader reads the members.
    pub fn from_text(raw: &str) -> Result<Frame, FrameError> {
        let schema = |e: ReadError| FrameError::Schema { method: String::new(), error: e.0 };
        let o = Obj::parse(raw).map_err(schema)?;
        let method = o.str_ref("type").map_err(schema)?;
        Frame::read_variant(&method, &o)
    }

    fn read_variant(method: &str, o: &Obj<'_>) -> Result<Frame, FrameError> {
        let frame = match method {
            "session/event" => EventFrame::from_obj(o).map(Frame::Event),
            "session/subscribed" => SubscribedFrame::from_obj(o).map(Frame::Subscribed),
            "session/title" => TitleFrame::from_obj(o).map(Frame::Title),
            "session/projection" => ProjectionFrame::from_obj(o).map(Frame::Projection),
            "session/queue" => QueueFrame::from_obj(o).map(Frame::Queue),
            "approval/requested" => ApprovalRequested::from_obj(o).map(Frame::ApprovalRequested),
            "approval/resolved" => ApprovalResolved::from_obj(o).map(Frame::ApprovalResolved),
            "question/requested" => QuestionRequested::from_obj(o).map(Frame::QuestionRequested),
            "question/resolved" => QuestionResolved::from_obj(o).map(Frame::QuestionResolved),
            "stream/error" => Ok(Frame::StreamError(StreamErrorFrame { error: o.json("error") })),
            "host/session-added" => SessionAddedFrame::from_obj(o).map(Frame::SessionAdded),
            "host/session-removed" => SessionIdFrame::from_obj(o).map(Frame::SessionRemoved),
            "host/session-status" => SessionStatusFrame::from_obj(o).map(Frame::SessionStatus),
            "host/agent-error" => AgentErrorFrame::from_obj(o).map(Frame::AgentError),
            _ => return Err(FrameError::Unknown { method: method.to_string() }),
        };
        frame.map_err(|e| FrameError::Schema { method: method.to_string(), error: e.0 })
    }

    pub fn type_name(&self) -> &'static str {
        match self {
            Frame::Event(_) => "session/event",
            Frame::Subscribed(_) => "session/subscribed",
            Frame::Title(_) => "session/title",
            Frame::Projection(_) => "session/projection",
            Frame::Queue(_) => "session/queue",
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
            Frame::Queue(f) => &f.session_id,
            Frame::ApprovalRequested(f) => &f.session_id,
            Frame::ApprovalResolved(f) => &f.session_id,
            Frame::QuestionRequested(f) => &f.session_id,
            Frame::QuestionResolved(f) => &f.session_id,
            Frame::SessionAdded(f) => &f.session_id,
            Frame::SessionRemoved(f) => &f.session_id,
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
    "session/queue",
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

/// Reads one SSE `data:` payload. The hot shape (a `session/event` frame as every host writes
/// it) is read in one pass ([`super::hot`]); everything else, and anything that pass does not
/// expect, takes the general two-level reader.
pub fn parse_frame(data: &str) -> Result<InboundFrame, FrameError> {
    match super::hot::event_frame(data) {
        Some(frame) => Ok(frame),
        None => parse_frame_general(data),
    }
}

/// Two-level parse: the envelope, then the frame with its own schema. Each level is one split
/// of an object into raw members, so the error is classified exactly: a bad envelope, an
/// unknown frame type, a payload whose `type` disagrees with the `method`, or a payload
/// failing its schema.
fn parse_frame_general(data: &str) -> Result<InboundFrame, FrameError> {
    let envelope = |e: ReadError| FrameError::Envelope(e.0);
    let env = Obj::parse(data).map_err(envelope)?;
    if env.str_ref("type").map_err(envelope)? != "server-request" {
        return Err(FrameError::Envelope("not a server-request".into()));
    }
    let rpc_id = env.str("rpcId").map_err(envelope)?;
    let method = env.str_ref("method").map_err(envelope)?;
    let payload = env.raw("payload").ok_or_else(|| FrameError::Envelope("missing field `payload`".into()))?;
    if !KNOWN.contains(&&*method) {
        return Err(FrameError::Unknown { method: method.into_owned() });
    }
    let schema = |error: String| FrameError::Schema { method: method.to_string(), error };
    let o = Obj::parse(payload.get()).map_err(|e| schema(e.0))?;
    if o.str_ref("type").ok().as_deref() != Some(&*method) {
        return Err(FrameError::MethodMismatch { method: method.into_owned() });
    }
    let frame = Frame::read_variant(&method, &o)?;
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
    Ok(InboundFrame { rpc_id, frame })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(method: &str, payload: &str) -> String {
        format!(r#"{{"type":"server-request","rpcId":"r1","method":"{method}","payload":{payload}}}"#)
    }

    #[test]
    fn a_valid_frame_keeps_its_envelope_rpc_id() {
        let f =
            parse_frame(&data("session/subscribed", r#"{"type":"session/subscribed","sessionId":"s","lastSeq":-1}"#))
                .unwrap();
        assert_eq!(f.rpc_id, "r1");
        assert!(matches!(f.frame, Frame::Subscribed(SubscribedFrame { last_seq: -1, .. })));
    }

    #[test]
    fn an_event_frame_reads_the_same_whatever_the_member_order_or_escapes() {
        let ev = r#"{"type":"session/event","sessionId":"s","event":{"type":"x","seq":3,"time":1,"data":{"a":[1,"\u00e9"]}},"view":{"v":1}}"#;
        let frames = [
            data("session/event", ev),
            format!(r#"{{"payload":{ev},"method":"session/event","rpcId":"r1","type":"server-request"}}"#),
            format!(r#"{{"type":"server-request","rpc\u0049d":"r1","method":"session/event","payload":{ev}}}"#),
        ];
        let first = parse_frame(&frames[0]).unwrap();
        assert!(
            matches!(&first.frame, Frame::Event(e) if e.event.seq == 3 && e.view.is_some() && e.event.data.text() == r#"{"a":[1,"\u00e9"]}"#)
        );
        assert_eq!(
            super::super::hot::event_frame(&frames[0]),
            Some(first.clone()),
            "the hot shape takes the one-pass path"
        );
        assert_eq!(parse_frame_general(&frames[0]).unwrap(), first, "both readers agree");
        assert_eq!(super::super::hot::event_frame(&frames[1]), Some(first.clone()), "member order is free");
        for f in &frames[1..] {
            assert_eq!(parse_frame(f).unwrap(), first, "{f}");
            assert_eq!(parse_frame_general(f).unwrap(), first, "{f}");
        }
        let rare = data(
            "session/event",
            r#"{"type":"session/event","sessionId":"s","event":{"type":"x","seq":3,"time":1.5,"sourceEventSeqs":[1,2],"surfaceOp":{"k":1}}}"#,
        );
        assert!(super::super::hot::event_frame(&rare).is_none());
        let rare = parse_frame(&rare).unwrap();
        assert!(
            matches!(&rare.frame, Frame::Event(e) if e.event.source_event_seqs == Some(vec![1.0, 2.0]) && e.event.surface_op.is_some() && e.event.data.is_null())
        );
        let twice =
            format!(r#"{{"type":"server-request","rpcId":"r1","method":"session/event","method":"x","payload":{ev}}}"#);
        assert!(super::super::hot::event_frame(&twice).is_none());
        assert!(matches!(parse_frame(&twice), Err(FrameError::Envelope(_))), "a repeated key is rejected");
    }

    #[test]
    fn an_event_frame_with_another_payload_type_or_a_bad_event_is_classified_exactly() {
        let other =
            data("session/event", r#"{"type":"session/title","sessionId":"s","title":"t","eventSeq":1,"updatedAt":1}"#);
        assert!(matches!(parse_frame(&other), Err(FrameError::MethodMismatch { .. })));
        let bad =
            data("session/event", r#"{"type":"session/event","sessionId":"s","event":{"type":"x","seq":-1,"time":1}}"#);
        assert!(matches!(parse_frame(&bad), Err(FrameError::Schema { .. })));
    }

    #[test]
    fn malformed_and_unknown_frames_are_told_apart() {
        assert!(matches!(parse_frame("not json"), Err(FrameError::Envelope(_))));
        assert!(matches!(
            parse_frame(r#"{"type":"server-response","rpcId":"x","result":{}}"#),
            Err(FrameError::Envelope(_))
        ));
        assert!(matches!(
            parse_frame(&data("future/thing", r#"{"type":"future/thing"}"#)),
            Err(FrameError::Unknown { .. })
        ));
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
