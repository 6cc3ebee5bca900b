//! Session events: `{type, seq, time, data, sourceEventSeqs?, surfaceOp?}` and the typed
//! bodies of the kinds the fold understands. Unknown kinds stay raw.

use super::json::Json;
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
        fn de<T: serde::de::DeserializeOwned>(data: &Json) -> Option<T> {
            data.parse().ok()
        }
        Some(match kind {
            "turn/start" => EventBody::TurnStart(de(data)?),
            "user/message" => EventBody::UserMessage(de(data)?),
            "steering/message" => EventBody::SteeringMessage(de(data)?),
            "context/message" => EventBody::ContextMessage(de(data)?),
            "step/start" => EventBody::StepStart(de(data)?),
            "step/end" => EventBody::StepEnd(de(data)?),
            "assistant/chunk" => EventBody::AssistantChunk(de(data)?),
            "assistant/message" => EventBody::AssistantMessage(de(data)?),
            "tool/call" => EventBody::ToolCall(de(data)?),
            "tool/result" => EventBody::ToolResult(de(data)?),
            "turn/end" => EventBody::TurnEnd(de(data)?),
            "plan/mode" => EventBody::PlanMode(de(data)?),
            super::interaction::EV_PLAN_TEXT_DELTA => EventBody::PlanTextDelta(de(data)?),
            super::interaction::EV_PLAN_TEXT_DONE => EventBody::PlanTextDone(de(data)?),
            super::interaction::EV_PLAN_PROPOSED => EventBody::PlanProposed(de(data)?),
            super::interaction::EV_PROMPT_RESOLVED => EventBody::PromptResolved(de(data)?),
            _ => return None,
        })
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
