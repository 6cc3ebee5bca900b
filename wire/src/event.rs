//! Session events: `{type, seq, time, data, sourceEventSeqs?, surfaceOp?}` and the typed
//! bodies of the kinds the fold understands. Unknown kinds stay raw.

pub use super::chunk::{Chunk, ChunkData, ChunkKind};
use super::json::Json;
use super::read::{self, FromObj, Obj, ReadError, ReadResult};
use super::record::Field;
use super::seq::MAX_SEQ;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Sequence numbers are contiguous per session and start at 0. `-1` means "empty log" in
/// the places that speak of a last seq, so positions use `i64`.
pub type Seq = i64;

record! {
    /// One entry of a session's log, as the host stores and streams it.
    #[derive(Debug, Clone, PartialEq, Default)]
    pub struct SessionEvent {
        /// The event's `type` (`turn/start`, `assistant/chunk`, ...); unknown types stay in the
        /// window, unread.
        pub kind: String = "type",
        /// At most [`crate::seq::MAX_SEQ`] as the client reads it.
        pub seq: u64 = read_with(crate::seq::read, crate::seq::is_seq) "seq",
        /// The host's clock when it logged the event; never used for ordering.
        #[serde(serialize_with = "whole::number")]
        pub time: f64 = "time",
        /// The kind's payload; missing reads as `null`.
        pub data: EventData = default "data",
        /// `sourceEventSeqs`: the seqs this event was derived from, when the host says.
        #[serde(serialize_with = "whole::numbers")]
        pub source_event_seqs: Option<Vec<f64>> = opt "sourceEventSeqs",
        /// The 2026-08 host's `surfaceOp`, kept raw (the client does not read it).
        pub surface_op: Option<Json> = opt "surfaceOp",
    }
}

/// An event's `data`: its JSON text, or an `assistant/chunk`'s data already read.
///
/// Why two forms: the client reads one streamed chunk per token, and its one-pass frame reader
/// (`agent-session-onepass`) reads a chunk's data as it meets it, when the event's `type` came
/// first (as every host writes it): one pass over the bytes instead of a raw copy there and a
/// second parse in the fold (measured: the second parse was a fifth of the per-frame ingest
/// cost). Everything else, and everything the host holds, is text. A read chunk keeps what the
/// fold reads (turn, step, the chunk's kind and text): written back, it is that, not its text.
#[derive(Debug, Clone, PartialEq)]
pub enum EventData {
    /// The data's JSON text (every kind but a chunk read in one pass, and all the host holds).
    Text(Json),
    /// An `assistant/chunk`'s data, read as the one-pass reader met it.
    Chunk(ChunkData),
}

impl EventData {
    /// The data as a tree (host, tests).
    pub fn value(&self) -> Value {
        match self {
            EventData::Text(j) => j.value(),
            EventData::Chunk(c) => serde_json::to_value(c).unwrap_or(Value::Null),
        }
    }
    /// The text, when the data is kept as text.
    pub fn text(&self) -> Option<&str> {
        match self {
            EventData::Text(j) => Some(j.text()),
            EventData::Chunk(_) => None,
        }
    }
    /// Whether the data is the JSON `null` (a missing `data` reads so).
    pub fn is_null(&self) -> bool {
        matches!(self, EventData::Text(j) if j.is_null())
    }
}

/// Missing data is `null`, as the host's events without data carry it.
impl Default for EventData {
    fn default() -> Self {
        EventData::Text(Json::null())
    }
}

impl From<Json> for EventData {
    fn from(j: Json) -> Self {
        EventData::Text(j)
    }
}

impl From<Value> for EventData {
    fn from(v: Value) -> Self {
        EventData::Text(Json::from_value(&v))
    }
}

/// Present means present (a `null` is the value `null`), as for [`Json`].
impl Field for EventData {
    fn read(o: &Obj<'_>, name: &str) -> ReadResult<Self> {
        Json::read(o, name).map(EventData::Text)
    }
}

impl Serialize for EventData {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            EventData::Text(j) => j.serialize(s),
            EventData::Chunk(c) => c.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for EventData {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Json::deserialize(d).map(EventData::Text)
    }
}

/// JSON numbers that are whole are written as integers, as the origin host writes them
/// (`1795991061849`, not `1795991061849.0`).
mod whole {
    use serde::Serializer;

    fn is_whole(x: f64) -> bool {
        x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0
    }
    pub fn number<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        if is_whole(*x) {
            s.serialize_i64(*x as i64)
        } else {
            s.serialize_f64(*x)
        }
    }
    pub fn numbers<S: Serializer>(v: &Option<Vec<f64>>, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let Some(v) = v else { return s.serialize_none() };
        let mut seq = s.serialize_seq(Some(v.len()))?;
        for x in v {
            if is_whole(*x) {
                seq.serialize_element(&(*x as i64))?;
            } else {
                seq.serialize_element(x)?;
            }
        }
        seq.end()
    }
}

impl SessionEvent {
    /// An event whose data is a JSON tree (the host, tests).
    pub fn new(kind: impl Into<String>, seq: u64, time: f64, data: Value) -> Self {
        SessionEvent {
            kind: kind.into(),
            seq,
            time,
            data: EventData::Text(Json::from_value(&data)),
            ..SessionEvent::default()
        }
    }
    /// The seq as a position. The readers refuse seqs past [`MAX_SEQ`], so the `min` never
    /// changes a read one; it keeps `seq() + 1` in range for events built any other way.
    pub fn seq(&self) -> Seq {
        self.seq.min(MAX_SEQ) as Seq
    }
    /// Typed view for the fold; `None` for unknown kinds and malformed data of known kinds.
    pub fn body(&self) -> Option<EventBody> {
        match &self.data {
            EventData::Text(data) => EventBody::parse(&self.kind, data),
            EventData::Chunk(c) => Some(EventBody::AssistantChunk(c.clone())),
        }
    }
    /// The event as the client's one-pass reader holds it when `type` comes before `data`:
    /// an `assistant/chunk`'s data read as the chunk (when it is one), anything else as it is.
    /// Two readings of one event compare equal through it whatever order the host wrote.
    pub fn chunk_read(&self) -> SessionEvent {
        let mut ev = self.clone();
        if let (EventData::Text(data), "assistant/chunk") = (&ev.data, ev.kind.as_str()) {
            if let Some(c) = ChunkData::read(data.text()) {
                ev.data = EventData::Chunk(c);
            }
        }
        ev
    }
    /// About what the event holds in memory, in bytes (for the client's byte bounds): its
    /// texts plus a fixed overhead.
    pub fn approx_bytes(&self) -> usize {
        let data = match &self.data {
            EventData::Text(j) => j.text().len(),
            EventData::Chunk(c) => c.chunk.text.as_ref().map_or(0, String::len),
        };
        let seqs = self.source_event_seqs.as_ref().map_or(0, |v| v.len() * 8);
        let op = self.surface_op.as_ref().map_or(0, |j| j.text().len());
        128 + self.kind.len() + data + seqs + op
    }
    /// The data as a tree (host, tests; the client reads typed bodies instead).
    pub fn data_value(&self) -> Value {
        self.data.value()
    }
}

record! {
    /// The data of `turn/start`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct TurnRef {
        /// The turn that starts.
        pub turn: u64 = "turn",
    }
}

record! {
    /// The data of `step/start` and `step/end`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct StepRef {
        /// The turn the step belongs to.
        pub turn: u64 = "turn",
        /// The step within that turn.
        pub step: u64 = "step",
    }
}

record! {
    /// The data of the user, steering and context message kinds.
    #[derive(Debug, Clone, PartialEq)]
    pub struct MessageData {
        /// The message's content parts, kept raw for the projection.
        pub content: Json = default "content",
        /// Who wrote the message (`{kind: "plugin", ...}` marks injected context).
        pub source: Json = default "source",
    }
}

/// Two dialects (see its reader): not a record.
#[derive(Debug, Clone, PartialEq)]
pub struct AssistantMessageData {
    /// The turn of the message.
    pub turn: u64,
    /// The step within that turn.
    pub step: u64,
    /// The message's content parts, kept raw.
    pub content: Json,
    /// Where the message came from (model, provider), kept raw.
    pub provenance: Json,
}

record! {
    /// The data of `tool/call`: the model asks for a tool.
    #[derive(Debug, Clone, PartialEq)]
    pub struct ToolCallData {
        /// The turn of the call.
        pub turn: u64 = "turn",
        /// The step of the call.
        pub step: u64 = "step",
        /// Pairs the call with its `tool/result`.
        pub call_id: String = "callId",
        /// The tool's name.
        pub name: String = "name",
        /// The tool's arguments, kept raw.
        pub arguments: Json = default "arguments",
    }
}

/// Two dialects (see its reader): not a record.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResultData {
    /// The turn of the call this answers.
    pub turn: u64,
    /// The step of the call this answers.
    pub step: u64,
    /// The call this answers.
    pub call_id: String,
    /// What the tool returned, kept raw.
    pub content: Json,
    /// Whether the tool failed.
    pub is_error: bool,
}

record! {
    /// The data of `turn/end`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct TurnEndData {
        /// The turn that ends.
        pub turn: u64 = "turn",
        /// Why it ended.
        pub reason: TurnEndReason = "reason",
    }
}

record! {
    /// Why a turn ended: `{kind}`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct TurnEndReason {
        /// The reason's kind, kept as text (new kinds stay readable).
        pub kind: String = "kind",
    }
}

/// The event kinds the conversation fold reads.
#[derive(Debug, Clone, PartialEq)]
pub enum EventBody {
    /// `turn/start`.
    TurnStart(TurnRef),
    /// `user/message` from the user.
    UserMessage(MessageData),
    /// `steering/message`: a message sent while a turn runs.
    SteeringMessage(MessageData),
    /// `context/message` (or the 2026-08 plugin-sourced `user/message`): injected context.
    ContextMessage(MessageData),
    /// `step/start`.
    StepStart(StepRef),
    /// `step/end`.
    StepEnd(StepRef),
    /// `assistant/chunk`: one streamed token.
    AssistantChunk(ChunkData),
    /// `assistant/message`: a step's whole answer.
    AssistantMessage(AssistantMessageData),
    /// `tool/call`.
    ToolCall(ToolCallData),
    /// `tool/result`.
    ToolResult(ToolResultData),
    /// `turn/end`.
    TurnEnd(TurnEndData),
    /// `plan/mode`: plan mode switched.
    PlanMode(super::plan::PlanModeEvent),
    /// A streamed piece of a plan's text.
    PlanTextDelta(TurnTagged<super::interaction::PlanTextDelta>),
    /// A plan's text is complete.
    PlanTextDone(TurnTagged<super::interaction::PlanTextDone>),
    /// The agent proposed a plan.
    PlanProposed(TurnTagged<super::interaction::ProposedPlan>),
    /// An interactive prompt was answered.
    PromptResolved(super::interaction::PromptResolvedEvent),
}

/// An extension payload with the optional `turn` it belongs to (in the same object).
#[derive(Debug, Clone, PartialEq)]
pub struct TurnTagged<T> {
    /// The turn the payload belongs to, when the host says.
    pub turn: Option<u64>,
    /// The payload itself.
    pub body: T,
}

impl EventBody {
    /// The typed body of an event of `kind`; `None` for unknown kinds and malformed data.
    pub fn parse(kind: &str, data: &Json) -> Option<EventBody> {
        use super::interaction as ix;
        let read = |f: &dyn Fn(&Obj<'_>) -> ReadResult<EventBody>| Obj::parse(data.text()).and_then(|o| f(&o)).ok();
        match kind {
            "turn/start" => read(&|o| TurnRef::from_obj(o).map(EventBody::TurnStart)),
            // The 2026-08 host logs injected context as a `user/message` from a plugin source:
            // the seed's `context/message`.
            "user/message" => read(&|o| {
                MessageData::from_obj(o).map(|m| match m.source_kind().as_deref() {
                    Some("plugin") => EventBody::ContextMessage(m),
                    _ => EventBody::UserMessage(m),
                })
            }),
            "steering/message" => read(&|o| MessageData::from_obj(o).map(EventBody::SteeringMessage)),
            "context/message" => read(&|o| MessageData::from_obj(o).map(EventBody::ContextMessage)),
            "step/start" => read(&|o| StepRef::from_obj(o).map(EventBody::StepStart)),
            "step/end" => read(&|o| StepRef::from_obj(o).map(EventBody::StepEnd)),
            "assistant/chunk" => ChunkData::read(data.text()).map(EventBody::AssistantChunk),
            "assistant/message" => read(&|o| AssistantMessageData::from_obj(o).map(EventBody::AssistantMessage)),
            "tool/call" => read(&|o| ToolCallData::from_obj(o).map(EventBody::ToolCall)),
            "tool/result" => read(&|o| ToolResultData::from_obj(o).map(EventBody::ToolResult)),
            "turn/end" => read(&|o| TurnEndData::from_obj(o).map(EventBody::TurnEnd)),
            "plan/mode" => read(&|o| FromObj::from_obj(o).map(EventBody::PlanMode)),
            ix::EV_PLAN_TEXT_DELTA => read(&|o| FromObj::from_obj(o).map(EventBody::PlanTextDelta)),
            ix::EV_PLAN_TEXT_DONE => read(&|o| FromObj::from_obj(o).map(EventBody::PlanTextDone)),
            ix::EV_PLAN_PROPOSED => read(&|o| FromObj::from_obj(o).map(EventBody::PlanProposed)),
            ix::EV_PROMPT_RESOLVED => read(&|o| FromObj::from_obj(o).map(EventBody::PromptResolved)),
            _ => None,
        }
    }
}

// ---- Readers of the irregular bodies (the records read themselves) ----

impl MessageData {
    /// `source.kind`, when the source is an object with a string kind.
    pub fn source_kind(&self) -> Option<String> {
        Obj::parse(self.source.text()).ok()?.opt_str("kind").ok()?
    }
}

impl FromObj for AssistantMessageData {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        let (turn, step) = (o.u64("turn")?, o.u64("step")?);
        // The 2026-08 host nests it, `{message: {role, content, source, id}}`; the message's
        // `source` is what the seed called `provenance`.
        if let Some(m) = o.opt_field::<MessageData>("message")? {
            return Ok(AssistantMessageData { turn, step, content: m.content, provenance: m.source });
        }
        Ok(AssistantMessageData { turn, step, content: o.json("content"), provenance: o.json("provenance") })
    }
}

impl FromObj for ToolResultData {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        let (turn, step) = (o.u64("turn")?, o.u64("step")?);
        if let Some(m) = o.opt_field::<ToolResultMessage>("message")? {
            return Ok(ToolResultData { turn, step, call_id: m.call_id, content: m.content, is_error: m.is_error });
        }
        Ok(ToolResultData {
            turn,
            step,
            call_id: o.str("callId")?,
            content: o.json("content"),
            is_error: o.opt_bool("isError")?.unwrap_or(false),
        })
    }
}

/// The 2026-08 `tool/result` body: `{message: {source: {kind: 'tool', callId}, content:
/// [{type: 'tool-result', toolCallId, content, isError}], role, id}}`. The first
/// `tool-result` part is the result; its `toolCallId` (else the source's `callId`) pairs it.
struct ToolResultMessage {
    call_id: String,
    content: Json,
    is_error: bool,
}

struct ToolResultPart {
    tool_call_id: Option<String>,
    content: Json,
    is_error: bool,
}

impl FromObj for ToolResultPart {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        if o.str_ref("type")? != "tool-result" {
            return Err(ReadError::invalid("not a tool-result part"));
        }
        Ok(ToolResultPart {
            tool_call_id: o.opt_str("toolCallId")?,
            content: o.json("content"),
            is_error: o.opt_bool("isError")?.unwrap_or(false),
        })
    }
}

record! {
    struct CallSource {
        call_id: Option<String> = opt "callId",
    }
}

impl FromObj for ToolResultMessage {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        let parts = o.list("content", |raw| Some(read::read::<ToolResultPart>(raw.get()).ok()))?;
        let part = parts
            .into_iter()
            .flatten()
            .next()
            .ok_or_else(|| ReadError::invalid("no tool-result part").inside("content"))?;
        let source = o.opt_field::<CallSource>("source")?;
        let call_id = part
            .tool_call_id
            .or_else(|| source.and_then(|s| s.call_id))
            .ok_or_else(|| ReadError::missing("toolCallId"))?;
        Ok(ToolResultMessage { call_id, content: part.content, is_error: part.is_error })
    }
}

impl<T: FromObj> FromObj for TurnTagged<T> {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(TurnTagged { turn: o.opt_u64("turn")?, body: T::from_obj(o)? })
    }
}

/// Message-boundary kinds: history pages end on these (counted backwards).
pub fn is_message_kind(kind: &str) -> bool {
    matches!(kind, "user/message" | "assistant/message" | "steering/message")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_chunk_writes_what_the_fold_reads_and_reads_as_its_text_does() {
        let text = r#"{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"a"}}"#;
        let read = EventData::Chunk(ChunkData::read(text).unwrap());
        assert_eq!(
            read.value(),
            serde_json::json!({"turn": 1, "step": 2, "chunk": {"type": "text-delta", "text": "a"}})
        );
        assert_eq!((read.text(), read.is_null()), (None, false));
        let ev = SessionEvent {
            kind: "assistant/chunk".into(),
            data: EventData::Text(Json::from_text(text).unwrap()),
            ..SessionEvent::default()
        };
        assert_eq!(ev.chunk_read().data, read);
        assert_eq!(ev.chunk_read().body(), ev.body());
        let other = SessionEvent { kind: "user/message".into(), ..ev.clone() };
        assert_eq!(other.chunk_read(), other, "only chunks are read");
        assert!(SessionEvent::default().data.is_null());
    }

    #[test]
    fn whole_times_and_seqs_serialize_as_integers() {
        let mut e = SessionEvent::new("x", 3, 1795991061849.0, Value::Null);
        assert!(e.data.is_null());
        e.source_event_seqs = Some(vec![1.0, 2.0]);
        let text = serde_json::to_string(&e).unwrap();
        assert!(text.contains(r#""time":1795991061849,"#), "{text}");
        assert!(text.contains(r#""sourceEventSeqs":[1,2]"#), "{text}");
        let half = serde_json::to_string(&SessionEvent::new("x", 3, 1.5, Value::Null)).unwrap();
        assert!(half.contains(r#""time":1.5"#));
    }
}
