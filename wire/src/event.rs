//! Session events: `{type, seq, time, data, sourceEventSeqs?, surfaceOp?}` and the typed
//! bodies of the kinds the fold understands. Unknown kinds stay raw.

use super::json::Json;
use super::read::{self, FromObj, Obj, ReadError, ReadResult};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Sequence numbers are contiguous per session and start at 0. `-1` means "empty log" in
/// the places that speak of a last seq, so positions use `i64`.
pub type Seq = i64;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionEvent {
    #[serde(rename = "type")]
    pub kind: String,
    pub seq: u64,
    #[serde(serialize_with = "whole::number")]
    pub time: f64,
    #[serde(default)]
    pub data: Json,
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "whole::numbers")]
    pub source_event_seqs: Option<Vec<f64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface_op: Option<Json>,
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
    pub fn new(kind: impl Into<String>, seq: u64, time: f64, data: Value) -> Self {
        SessionEvent {
            kind: kind.into(),
            seq,
            time,
            data: Json::from_value(&data),
            source_event_seqs: None,
            surface_op: None,
        }
    }
    pub fn seq(&self) -> Seq {
        self.seq as Seq
    }
    /// Typed view for the fold; `None` for unknown kinds and malformed data of known kinds.
    pub fn body(&self) -> Option<EventBody> {
        EventBody::parse(&self.kind, &self.data)
    }
    /// The data as a tree (host, tests; the client reads typed bodies instead).
    pub fn data_value(&self) -> Value {
        self.data.value()
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct TurnRef {
    pub turn: u64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct StepRef {
    pub turn: u64,
    pub step: u64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct MessageData {
    #[serde(default)]
    pub content: Json,
    #[serde(default)]
    pub source: Json,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ChunkData {
    pub turn: u64,
    pub step: u64,
    pub chunk: Chunk,
}

/// The part of a streamed chunk the fold reads; other chunk fields are skipped.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Chunk {
    #[serde(rename = "type", default)]
    pub kind: ChunkKind,
    #[serde(default)]
    pub text: Option<String>,
}

/// Chunk kinds the fold accumulates; every other kind reads as `Other` (no allocation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChunkKind {
    TextDelta,
    ReasoningDelta,
    #[default]
    #[serde(other)]
    Other,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct AssistantMessageData {
    pub turn: u64,
    pub step: u64,
    #[serde(default)]
    pub content: Json,
    #[serde(default)]
    pub provenance: Json,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallData {
    pub turn: u64,
    pub step: u64,
    pub call_id: String,
    pub name: String,
    #[serde(default)]
    pub arguments: Json,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultData {
    pub turn: u64,
    pub step: u64,
    pub call_id: String,
    #[serde(default)]
    pub content: Json,
    #[serde(default)]
    pub is_error: bool,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct TurnEndData {
    pub turn: u64,
    pub reason: TurnEndReason,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct TurnEndReason {
    pub kind: String,
}

/// The event kinds the conversation fold reads.
#[derive(Debug, Clone, PartialEq)]
pub enum EventBody {
    TurnStart(TurnRef),
    UserMessage(MessageData),
    SteeringMessage(MessageData),
    ContextMessage(MessageData),
    StepStart(StepRef),
    StepEnd(StepRef),
    AssistantChunk(ChunkData),
    AssistantMessage(AssistantMessageData),
    ToolCall(ToolCallData),
    ToolResult(ToolResultData),
    TurnEnd(TurnEndData),
    PlanMode(super::plan::PlanModeEvent),
    PlanTextDelta(TurnTagged<super::interaction::PlanTextDelta>),
    PlanTextDone(TurnTagged<super::interaction::PlanTextDone>),
    PlanProposed(TurnTagged<super::interaction::ProposedPlan>),
    PromptResolved(super::interaction::PromptResolvedEvent),
}

/// An extension payload with the optional `turn` it belongs to.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct TurnTagged<T> {
    #[serde(default)]
    pub turn: Option<u64>,
    #[serde(flatten)]
    pub body: T,
}

impl EventBody {
    pub fn parse(kind: &str, data: &Json) -> Option<EventBody> {
        use super::interaction as ix;
        let read = |f: &dyn Fn(&Obj<'_>) -> ReadResult<EventBody>| Obj::parse(data.text()).and_then(|o| f(&o)).ok();
        match kind {
            "turn/start" => read(&|o| Ok(EventBody::TurnStart(TurnRef { turn: o.u64("turn")? }))),
            // Today's upstream logs injected context as a `user/message` from a plugin source:
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
            "assistant/chunk" => super::hot::chunk_data(data.text())
                .or_else(|| read::read(data.text()).ok())
                .map(EventBody::AssistantChunk),
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

// ---- Client-side readers (the derives above serve the host; see `read`) ----

impl FromObj for SessionEvent {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(SessionEvent {
            kind: o.str("type")?,
            seq: o.u64("seq")?,
            time: o.f64("time")?,
            data: o.json("data"),
            source_event_seqs: o.opt_list("sourceEventSeqs", read::as_f64)?,
            surface_op: o.opt_json("surfaceOp"),
        })
    }
}

impl FromObj for StepRef {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(StepRef { turn: o.u64("turn")?, step: o.u64("step")? })
    }
}

impl FromObj for MessageData {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(MessageData { content: o.json("content"), source: o.json("source") })
    }
}

impl MessageData {
    /// `source.kind`, when the source is an object with a string kind.
    pub fn source_kind(&self) -> Option<String> {
        Obj::parse(self.source.text()).ok()?.opt_str("kind").ok()?
    }
}

impl FromObj for ChunkData {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(ChunkData { turn: o.u64("turn")?, step: o.u64("step")?, chunk: o.field("chunk")? })
    }
}

impl FromObj for Chunk {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        let kind = match o.raw("type").map(read::as_cow) {
            None => ChunkKind::Other,
            Some(Some(k)) if k == "text-delta" => ChunkKind::TextDelta,
            Some(Some(k)) if k == "reasoning-delta" => ChunkKind::ReasoningDelta,
            Some(Some(_)) => ChunkKind::Other,
            Some(None) => return Err(ReadError("`type`: expected a string".into())),
        };
        Ok(Chunk { kind, text: o.opt_str("text")? })
    }
}

impl FromObj for AssistantMessageData {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        let (turn, step) = (o.u64("turn")?, o.u64("step")?);
        // Today's upstream nests it, `{message: {role, content, source, id}}`; the message's
        // `source` is what the seed called `provenance`.
        if let Some(m) = o.opt_field::<MessageData>("message")? {
            return Ok(AssistantMessageData { turn, step, content: m.content, provenance: m.source });
        }
        Ok(AssistantMessageData { turn, step, content: o.json("content"), provenance: o.json("provenance") })
    }
}

impl FromObj for ToolCallData {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(ToolCallData {
            turn: o.u64("turn")?,
            step: o.u64("step")?,
            call_id: o.str("callId")?,
            name: o.str("name")?,
            arguments: o.json("arguments"),
        })
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

/// Today's upstream `tool/result` body: `{message: {source: {kind: 'tool', callId}, content:
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
            return Err(ReadError("not a tool-result part".into()));
        }
        Ok(ToolResultPart {
            tool_call_id: o.opt_str("toolCallId")?,
            content: o.json("content"),
            is_error: o.opt_bool("isError")?.unwrap_or(false),
        })
    }
}

struct CallSource {
    call_id: Option<String>,
}

impl FromObj for CallSource {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(CallSource { call_id: o.opt_str("callId")? })
    }
}

impl FromObj for ToolResultMessage {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        let parts = o.list("content", |raw| Some(read::read::<ToolResultPart>(raw.get()).ok()))?;
        let part =
            parts.into_iter().flatten().next().ok_or_else(|| ReadError("`content`: no tool-result part".into()))?;
        let source = o.opt_field::<CallSource>("source")?;
        let call_id = part
            .tool_call_id
            .or_else(|| source.and_then(|s| s.call_id))
            .ok_or_else(|| ReadError("missing field `toolCallId`".into()))?;
        Ok(ToolResultMessage { call_id, content: part.content, is_error: part.is_error })
    }
}

impl FromObj for TurnEndData {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(TurnEndData { turn: o.u64("turn")?, reason: o.field("reason")? })
    }
}

impl FromObj for TurnEndReason {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(TurnEndReason { kind: o.str("kind")? })
    }
}

impl<T: FromObj> FromObj for TurnTagged<T> {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(TurnTagged { turn: o.opt_u64("turn")?, body: T::from_obj(o)? })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

/// Message-boundary kinds: history pages end on these (counted backwards).
pub fn is_message_kind(kind: &str) -> bool {
    matches!(kind, "user/message" | "assistant/message" | "steering/message")
}
