//! Stream frames (the payload of a `server-request` SSE frame), mux and host streams alike.

use super::envelope::object_text;
use super::event::SessionEvent;
use super::json::quote;
use super::json::Json;
use super::read::{FromObj, Obj, ReadError, ReadResult};
use serde::{Deserialize, Serialize};

record! {
    /// `session/event`: one event of a subscribed session's log, with the host's view of it.
    #[derive(Debug, Clone, PartialEq)]
    pub struct EventFrame {
        /// The session whose log the event belongs to.
        pub session_id: String = "sessionId",
        /// The event itself, seq and all.
        pub event: SessionEvent = "event",
        /// The host's rendering hint for the event (kept as sent; absent when the host has none).
        pub view: Option<Json> = opt "view",
    }
}

record! {
    /// `session/subscribed`: the subscription is live; events after `last_seq` follow on the stream.
    #[derive(Debug, Clone, PartialEq)]
    pub struct SubscribedFrame {
        /// The session now subscribed.
        pub session_id: String = "sessionId",
        /// Last seq of the host's log, `-1` for an empty log.
        pub last_seq: i64 = read_with(crate::seq::read_pos, crate::seq::is_pos) "lastSeq",
    }
}

record! {
    /// `session/title`: a session's title changed.
    #[derive(Debug, Clone, PartialEq)]
    pub struct TitleFrame {
        /// The session renamed.
        pub session_id: String = "sessionId",
        /// The title as the host normalized it.
        pub title: String = "title",
        /// Seq of the event that set the title, so a stale frame cannot undo a newer rename.
        pub event_seq: u64 = read_with(crate::seq::read, crate::seq::is_seq) "eventSeq",
        /// When the host set it (epoch milliseconds).
        pub updated_at: f64 = "updatedAt",
    }
}

record! {
    /// The 2026-08 host: the session's prompt queue, whole, whenever it changes. `items`
    /// are `{id, placement: 'queued'|…, message: {content, source, role, id}}`, kept as sent.
    #[derive(Debug, Clone, PartialEq)]
    pub struct QueueFrame {
        /// The session whose queue this is.
        pub session_id: String = "sessionId",
        /// The whole queue, in order (an array, checked on read).
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
    /// `approval/requested`: a tool call waits for the user to allow or reject it.
    #[derive(Debug, Clone, PartialEq)]
    pub struct ApprovalRequested {
        /// The session whose turn waits.
        pub session_id: String = "sessionId",
        /// Names this approval in the answer and in its `approval/resolved`.
        pub approval_id: String = "approvalId",
        /// The tool that asks, for the UI to show.
        pub tool_name: String = "toolName",
        /// The tool call the approval is for, when the host says.
        pub call_id: Option<String> = opt "callId",
        /// Why the tool asks, when the host says.
        pub reason: Option<String> = opt "reason",
    }
}

wire_enum! {
    /// How an approval ended, as `approval/resolved` reports it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum ApprovalOutcome {
        /// The user allowed this one call.
        AllowedOnce = "allowed-once",
        /// The user refused the call.
        Rejected = "rejected",
        /// The turn ended (or was cancelled) before an answer.
        Cancelled = "cancelled",
        /// The host could not put the approval to anyone; it reads as cancelled.
        Unavailable = "unavailable",
    }
}

record! {
    /// `approval/resolved`: an approval is closed, by whoever answered (so every tab drops it).
    #[derive(Debug, Clone, PartialEq)]
    pub struct ApprovalResolved {
        /// The session whose approval closed.
        pub session_id: String = "sessionId",
        /// The approval's id from `approval/requested`.
        pub approval_id: String = "approvalId",
        /// How it ended.
        pub outcome: ApprovalOutcome = "outcome",
    }
}

record! {
    /// One choice offered by a question.
    #[derive(Debug, Clone, PartialEq)]
    pub struct QuestionOption {
        /// The text the user picks (and the answer sent back).
        pub label: String = "label",
        /// A longer explanation shown under the label.
        pub description: Option<String> = opt "description",
    }
}

record! {
    /// One question of a `question/requested` frame.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Question {
        /// Names the question inside its request's answer.
        pub id: String = "id",
        /// The question text.
        pub question: String = "question",
        /// A short heading for the question.
        pub header: Option<String> = opt "header",
        /// More context shown with the question.
        pub detail: Option<String> = opt "detail",
        /// The choices, when the question has them; free text otherwise.
        pub options: Option<Vec<QuestionOption>> = opt "options",
        /// Whether more than one option may be picked.
        pub multi_select: Option<bool> = opt "multiSelect",
        /// The 2026-08 host: what answering means, e.g. `{kind: 'plan-review', approve:
        /// 'Approve'}` for a plan review (answering `approve` leaves plan mode). Kept as sent.
        pub intent: Option<Json> = opt "intent",
    }
}

record! {
    /// `question/requested`: the agent asks the user; answered by the frame's envelope rpcId.
    #[derive(Debug, Clone, PartialEq)]
    pub struct QuestionRequested {
        /// The session whose turn waits on the answer.
        pub session_id: String = "sessionId",
        /// Asked together, answered together.
        pub questions: Vec<Question> = "questions",
    }
}

wire_enum! {
    /// How a question ended, as `question/resolved` reports it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum QuestionOutcome {
        /// The user answered.
        Answered = "answered",
        /// The question was withdrawn (turn ended or cancelled).
        Cancelled = "cancelled",
    }
}

record! {
    /// `question/resolved`: a question is closed (so every tab drops it).
    #[derive(Debug, Clone, PartialEq)]
    pub struct QuestionResolved {
        /// The session whose question closed.
        pub session_id: String = "sessionId",
        /// The envelope rpcId the question came in with.
        pub question_rpc_id: String = "questionRpcId",
        /// How it ended.
        pub outcome: QuestionOutcome = "outcome",
    }
}

record! {
    /// Extension 1: one projection row.
    #[derive(Debug, Clone, PartialEq)]
    pub struct ProjectionFrame {
        /// The session the row belongs to.
        pub session_id: String = "sessionId",
        /// The row's key (`title`, `plan`, ...).
        pub key: String = "key",
        /// The row's value, kept as sent.
        pub value: Json = "value",
        /// Seq of the event that set the row: rows only move forward.
        pub seq: i64 = read_with(crate::seq::read_pos, crate::seq::is_pos) "seq",
    }
}

record! {
    /// A frame that names only a session (`host/session-removed`).
    #[derive(Debug, Clone, PartialEq)]
    pub struct SessionIdFrame {
        /// The session spoken of.
        pub session_id: String = "sessionId",
    }
}

record! {
    /// `host/session-added`. Beyond the origin's `{sessionId, parentSessionId?}` the reference
    /// host adds `cwd` and `updatedAt` (CONTRACT-EXTENSIONS.md §6) so a live list can place it.
    #[derive(Debug, Clone, PartialEq, Default)]
    pub struct SessionAddedFrame {
        /// The new session.
        pub session_id: String = "sessionId",
        /// The session it was forked or spawned from, if any.
        pub parent_session_id: Option<String> = opt "parentSessionId",
        /// Its working directory.
        pub cwd: Option<String> = opt "cwd",
        /// The 2026-08 host: `'subagent'` for a child a turn spawned (absent for a fork and a
        /// top-level session).
        pub origin: Option<String> = opt "origin",
        /// When it last changed (epoch milliseconds), to place it in a live list.
        pub updated_at: Option<f64> = opt "updatedAt",
    }
}

record! {
    /// `host/session-status`. `waiting` and `updatedAt` are reference-host extensions
    /// (CONTRACT-EXTENSIONS.md §6): `waiting` is true while the open turn waits on the user.
    #[derive(Debug, Clone, PartialEq)]
    pub struct SessionStatusFrame {
        /// The session whose status changed.
        pub session_id: String = "sessionId",
        /// Whether a turn is open.
        pub running: bool = "running",
        /// Whether the open turn waits on the user.
        pub waiting: Option<bool> = opt "waiting",
        /// When the status changed (epoch milliseconds).
        pub updated_at: Option<f64> = opt "updatedAt",
    }
}

record! {
    /// `host/agent-error`: the agent process failed; shown, not fatal to the stream.
    #[derive(Debug, Clone, PartialEq)]
    pub struct AgentErrorFrame {
        /// The session it failed in, or none for the host as a whole.
        pub session_id: Option<String> = opt "sessionId",
        /// What failed, for the user.
        pub message: String = "message",
    }
}

record! {
    /// The 2026-08 host: one host event forwarded as is (`commands/change`: the command
    /// registry changed, so command lists are stale). Its `args` list is not read: no event
    /// this client acts on carries any.
    #[derive(Debug, Clone, PartialEq)]
    pub struct RemoteEventFrame {
        /// The host event's name.
        pub event: String = "event",
    }
}

impl RemoteEventFrame {
    /// The forwarded event that makes every session's command list stale.
    pub const COMMANDS_CHANGE: &'static str = "commands/change";
}

record! {
    /// `stream/error`: the host ends the stream; the client ends the connection generation.
    #[derive(Debug, Clone, PartialEq)]
    pub struct StreamErrorFrame {
        /// The host's `RpcError`, kept as sent (`null` when absent).
        pub error: Json = default "error",
    }
}

/// The frame table: each frame type's variant, payload record and type name, once. From it
/// follow [`Frame`] (its serde tags), [`Frame::NAMES`], [`Frame::type_name`], the reading
/// of a payload by its name, and each payload record's `TYPE` const.
macro_rules! frames {
    ($($(#[$m:meta])* $var:ident($ty:ident) = $name:literal,)*) => {
        /// Every frame type of both streams. The `type` tag equals the envelope `method`.
        /// Deserialized by [`Frame::from_text`] (the tag picks the struct, which then reads the
        /// text directly; raw `Json` fields cannot pass through serde's tagged-enum buffering).
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(tag = "type")]
        pub enum Frame {
            $($(#[$m])* #[serde(rename = $name)] $var($ty),)*
        }

        $(impl $ty {
            /// The frame's type name (its payload's `type`, its envelope's `method`).
            pub const TYPE: &'static str = $name;
        })*

        impl Frame {
            /// Every frame type name this client knows.
            pub const NAMES: &'static [&'static str] = &[$($name),*];

            pub(crate) fn read_variant(method: &str, o: &Obj<'_>) -> Result<Frame, FrameError> {
                let frame = match method {
                    $($name => $ty::from_obj(o).map(Frame::$var),)*
                    _ => return Err(FrameError::Unknown { method: method.to_string() }),
                };
                frame.map_err(|error| FrameError::Schema { method: method.to_string(), error })
            }

            /// The frame's `type` tag, which is also its envelope `method`.
            pub fn type_name(&self) -> &'static str {
                match self {
                    $(Frame::$var(_) => $name,)*
                }
            }
        }
    };
}

frames! {
    /// A `session/event` frame.
    Event(EventFrame) = "session/event",
    /// A `session/subscribed` frame.
    Subscribed(SubscribedFrame) = "session/subscribed",
    /// A `session/title` frame.
    Title(TitleFrame) = "session/title",
    /// A `session/projection` frame (extension 1).
    Projection(ProjectionFrame) = "session/projection",
    /// A `session/queue` frame.
    Queue(QueueFrame) = "session/queue",
    /// An `approval/requested` frame.
    ApprovalRequested(ApprovalRequested) = "approval/requested",
    /// An `approval/resolved` frame.
    ApprovalResolved(ApprovalResolved) = "approval/resolved",
    /// A `question/requested` frame.
    QuestionRequested(QuestionRequested) = "question/requested",
    /// A `question/resolved` frame.
    QuestionResolved(QuestionResolved) = "question/resolved",
    /// A `stream/error` frame.
    StreamError(StreamErrorFrame) = "stream/error",
    /// A `host/session-added` frame.
    SessionAdded(SessionAddedFrame) = "host/session-added",
    /// A `host/session-removed` frame.
    SessionRemoved(SessionIdFrame) = "host/session-removed",
    /// A `host/session-status` frame.
    SessionStatus(SessionStatusFrame) = "host/session-status",
    /// A `host/agent-error` frame.
    AgentError(AgentErrorFrame) = "host/agent-error",
    /// A `host/remote-event` frame.
    RemoteEvent(RemoteEventFrame) = "host/remote-event",
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

    /// This frame's `server-request` envelope as JSON text (host side).
    ///
    /// Written from the frame's own serialization, every raw [`Json`] member copied as it was
    /// read: never rebuilt as a `Value` tree, which refuses some of what the reader accepts
    /// (a lone surrogate escape, a number past `f64`, nesting past 128) and made an agent's
    /// output a panic here. Line breaks and tabs are left out (outside strings they are
    /// only whitespace), so the text is one SSE `data:` line.
    pub fn to_envelope_text(&self, rpc_id: &str) -> String {
        let (method, payload) = match serde_json::to_string(self) {
            Ok(payload) => (self.type_name(), payload),
            // Not reached by any frame type (no map keys but strings, no failing member); if a
            // new one ever fails, its session hears why instead of the host panicking.
            Err(e) => {
                let message = quote(&format!("the host could not write a {} frame: {e}", self.type_name()));
                let session = self.session_id().map(quote);
                let members =
                    [("type", Some(quote(AgentErrorFrame::TYPE))), ("sessionId", session), ("message", Some(message))];
                let members: Vec<(&str, Option<&str>)> = members.iter().map(|(k, v)| (*k, v.as_deref())).collect();
                (AgentErrorFrame::TYPE, object_text(&members))
            }
        };
        let mut text = format!(
            r#"{{"type":"server-request","rpcId":{},"method":{},"payload":{payload}}}"#,
            quote(rpc_id),
            quote(method)
        );
        if text.contains(['\n', '\r', '\t']) {
            text.retain(|c| !matches!(c, '\n' | '\r' | '\t'));
        }
        text
    }
}

/// A decoded stream frame with the envelope rpcId it came in (questions are answered by it).
#[derive(Debug, Clone, PartialEq)]
pub struct InboundFrame {
    /// The envelope rpcId: a question's answer is addressed by it.
    pub rpc_id: String,
    /// The frame itself.
    pub frame: Frame,
}

/// Why a `data:` payload was skipped. The stream stays up either way.
#[derive(Debug, Clone, PartialEq)]
pub enum FrameError {
    /// Not a `server-request` envelope, or not JSON at all.
    Envelope(ReadError),
    /// `method` differs from the payload's `type`.
    MethodMismatch {
        /// The envelope's method.
        method: String,
    },
    /// A frame type this client does not know (a newer host): skipped, counted apart.
    Unknown {
        /// The frame type (the envelope's method).
        method: String,
    },
    /// A known frame type whose payload fails its schema.
    Schema {
        /// The frame type.
        method: String,
        /// Which member failed, and how.
        error: ReadError,
    },
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inbound::parse_frame;

    fn event_frame(data: &str) -> Frame {
        let event = SessionEvent {
            kind: "tool/result".into(),
            seq: 7,
            time: 1.0,
            data: Json::from_text(data).unwrap().into(),
            ..SessionEvent::default()
        };
        Frame::Event(EventFrame { session_id: "s".into(), event, view: None })
    }

    fn nested(depth: usize) -> String {
        format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
    }

    /// Every value the reader takes is written back as read, and read again as it was:
    /// nothing is rebuilt as a tree, which refuses these (a lone surrogate, a number past
    /// `f64`, nesting past 128).
    #[test]
    fn what_the_reader_accepts_the_frame_writer_writes_back_as_read() {
        let deep = nested(1000);
        for data in [r#"{"text":"\ud800"}"#, r#"{"n":1796042825e605}"#, r#"["\udc00x",-1e-99999]"#, &deep] {
            let frame = event_frame(data);
            let text = frame.to_envelope_text("r1");
            let back = parse_frame(&text).unwrap_or_else(|e| panic!("{data}: {e}"));
            assert_eq!((back.rpc_id.as_str(), &back.frame), ("r1", &frame), "{data}");
            assert_eq!(back.frame.event().and_then(|e| e.data.text()), Some(data));
        }
    }

    /// SSE frames are one `data:` line: the whitespace a raw value was read with is not written.
    #[test]
    fn a_raw_value_read_across_lines_is_written_on_one() {
        let frame = event_frame("{\r\n\t\"a\" :\n [1, \"x y\"]\n}");
        let text = frame.to_envelope_text("r1");
        assert!(!text.contains(['\n', '\r', '\t']), "{text}");
        let back = parse_frame(&text).unwrap();
        assert_eq!(back.frame.event().unwrap().data.value(), serde_json::json!({"a": [1, "x y"]}));
    }
}
