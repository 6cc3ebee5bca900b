//! Stream frames (the payload of a `server-request` SSE frame), mux and host streams alike.

use super::envelope::{Envelope, ServerRequest};
use super::event::SessionEvent;
use super::json::Json;
use super::read::{FromObj, Obj, ReadError, ReadResult};
use serde::{Deserialize, Serialize};

record! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct EventFrame {
        pub session_id: String = "sessionId",
        pub event: SessionEvent = "event",
        pub view: Option<Json> = opt "view",
    }
}

record! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct SubscribedFrame {
        pub session_id: String = "sessionId",
        /// Last seq of the host's log, `-1` for an empty log.
        pub last_seq: i64 = read_with(crate::seq::read_pos) "lastSeq",
    }
}

record! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct TitleFrame {
        pub session_id: String = "sessionId",
        pub title: String = "title",
        pub event_seq: u64 = read_with(crate::seq::read) "eventSeq",
        pub updated_at: f64 = "updatedAt",
    }
}

record! {
    /// Today's upstream host: the session's prompt queue, whole, whenever it changes. `items`
    /// are `{id, placement: 'queued'|…, message: {content, source, role, id}}`, kept as sent.
    #[derive(Debug, Clone, PartialEq)]
    pub struct QueueFrame {
        pub session_id: String = "sessionId",
        pub items: Json = "items",
    }
    check = QueueFrame::check;
}

impl QueueFrame {
    fn check(&self) -> ReadResult<()> {
        match self.items.text().starts_with('[') {
            true => Ok(()),
            false => Err(ReadError::expected("items", "an array")),
        }
    }
}

record! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct ApprovalRequested {
        pub session_id: String = "sessionId",
        pub approval_id: String = "approvalId",
        pub tool_name: String = "toolName",
        pub call_id: Option<String> = opt "callId",
        pub reason: Option<String> = opt "reason",
    }
}

wire_enum! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum ApprovalOutcome {
        AllowedOnce = "allowed-once",
        Rejected = "rejected",
        Cancelled = "cancelled",
        Unavailable = "unavailable",
    }
}

record! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct ApprovalResolved {
        pub session_id: String = "sessionId",
        pub approval_id: String = "approvalId",
        pub outcome: ApprovalOutcome = "outcome",
    }
}

record! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct QuestionOption {
        pub label: String = "label",
        pub description: Option<String> = opt "description",
    }
}

record! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct Question {
        pub id: String = "id",
        pub question: String = "question",
        pub header: Option<String> = opt "header",
        pub detail: Option<String> = opt "detail",
        pub options: Option<Vec<QuestionOption>> = opt "options",
        pub multi_select: Option<bool> = opt "multiSelect",
        /// Today's upstream host: what answering means, e.g. `{kind: 'plan-review', approve:
        /// 'Approve'}` for a plan review (answering `approve` leaves plan mode). Kept as sent.
        pub intent: Option<Json> = opt "intent",
    }
}

record! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct QuestionRequested {
        pub session_id: String = "sessionId",
        pub questions: Vec<Question> = "questions",
    }
}

wire_enum! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum QuestionOutcome {
        Answered = "answered",
        Cancelled = "cancelled",
    }
}

record! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct QuestionResolved {
        pub session_id: String = "sessionId",
        pub question_rpc_id: String = "questionRpcId",
        pub outcome: QuestionOutcome = "outcome",
    }
}

record! {
    /// Extension 1: one projection row.
    #[derive(Debug, Clone, PartialEq)]
    pub struct ProjectionFrame {
        pub session_id: String = "sessionId",
        pub key: String = "key",
        pub value: Json = "value",
        pub seq: i64 = read_with(crate::seq::read_pos) "seq",
    }
}

record! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct SessionIdFrame {
        pub session_id: String = "sessionId",
    }
}

record! {
    /// `host/session-added`. Beyond the origin's `{sessionId, parentSessionId?}` the reference
    /// host adds `cwd` and `updatedAt` (CONTRACT-EXTENSIONS.md §6) so a live list can place it.
    #[derive(Debug, Clone, PartialEq, Default)]
    pub struct SessionAddedFrame {
        pub session_id: String = "sessionId",
        pub parent_session_id: Option<String> = opt "parentSessionId",
        pub cwd: Option<String> = opt "cwd",
        pub updated_at: Option<f64> = opt "updatedAt",
    }
}

record! {
    /// `host/session-status`. `waiting` and `updatedAt` are reference-host extensions
    /// (CONTRACT-EXTENSIONS.md §6): `waiting` is true while the open turn waits on the user.
    #[derive(Debug, Clone, PartialEq)]
    pub struct SessionStatusFrame {
        pub session_id: String = "sessionId",
        pub running: bool = "running",
        pub waiting: Option<bool> = opt "waiting",
        pub updated_at: Option<f64> = opt "updatedAt",
    }
}

record! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct AgentErrorFrame {
        pub session_id: Option<String> = opt "sessionId",
        pub message: String = "message",
    }
}

record! {
    /// Today's upstream host: one host event forwarded as is (`commands/change`: the command
    /// registry changed, so command lists are stale). Its `args` list is not read: no event
    /// this client acts on carries any.
    #[derive(Debug, Clone, PartialEq)]
    pub struct RemoteEventFrame {
        pub event: String = "event",
    }
}

impl RemoteEventFrame {
    /// The forwarded event that makes every session's command list stale.
    pub const COMMANDS_CHANGE: &'static str = "commands/change";
}

record! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct StreamErrorFrame {
        pub error: Json = default "error",
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
    #[serde(rename = "host/remote-event")]
    RemoteEvent(RemoteEventFrame),
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
        let schema = |error: ReadError| FrameError::Schema { method: String::new(), error };
        let o = Obj::parse(raw).map_err(schema)?;
        let method = o.str_ref("type").map_err(schema)?;
        Frame::read_variant(&method, &o)
    }

    pub(crate) fn read_variant(method: &str, o: &Obj<'_>) -> Result<Frame, FrameError> {
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
            "stream/error" => StreamErrorFrame::from_obj(o).map(Frame::StreamError),
            "host/session-added" => SessionAddedFrame::from_obj(o).map(Frame::SessionAdded),
            "host/session-removed" => SessionIdFrame::from_obj(o).map(Frame::SessionRemoved),
            "host/session-status" => SessionStatusFrame::from_obj(o).map(Frame::SessionStatus),
            "host/agent-error" => AgentErrorFrame::from_obj(o).map(Frame::AgentError),
            "host/remote-event" => RemoteEventFrame::from_obj(o).map(Frame::RemoteEvent),
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
            Frame::RemoteEvent(_) => "host/remote-event",
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
            Frame::StreamError(_) | Frame::RemoteEvent(_) => return None,
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
    Envelope(ReadError),
    /// `method` differs from the payload's `type`.
    MethodMismatch { method: String },
    /// A frame type this client does not know (a newer host): skipped, counted apart.
    Unknown { method: String },
    /// A known frame type whose payload fails its schema.
    Schema { method: String, error: ReadError },
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameError::Envelope(e) => write!(f, "bad frame envelope: {e}"),
            FrameError::MethodMismatch { method } => write!(f, "frame method `{method}` does not match payload type"),
            FrameError::Unknown { method } => write!(f, "unknown frame type `{method}`"),
            FrameError::Schema { method, error } => write!(f, "bad {method} frame: {error}"),
        }
    }
}

impl std::error::Error for FrameError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FrameError::Envelope(e) | FrameError::Schema { error: e, .. } => Some(e),
            _ => None,
        }
    }
}
