//! One pass over the hot frame (a `session/event` envelope) and the hot event body (an
//! `assistant/chunk`'s data), each read straight through.
//!
//! Why a second reader: [`super::read::Obj`] splits one level at a time, so a value nested
//! four deep (envelope → payload → event → data) is scanned four times; live streaming is
//! almost only these frames. Three hand-written visitors, each instantiated once over
//! serde_json's parser, read the envelope, payload and event in one scan. Anything they do
//! not expect (another frame type, a repeated key, a rare member, a bad value) returns `None` and the
//! general reader decides, so errors are still classified exactly. Member order is free.

use super::event::{Chunk, ChunkData, ChunkKind, SessionEvent};
use super::frames::{EventFrame, Frame, InboundFrame};
use super::json::Json;
use super::read::Text;
use serde::de::{DeserializeSeed, Deserializer as _, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;

/// The frame, or `None` to fall back to the general reader.
pub fn event_frame(data: &str) -> Option<InboundFrame> {
    let mut de = serde_json::Deserializer::from_str(data);
    let frame = (&mut de).deserialize_map(EnvelopeVisitor).ok()?;
    de.end().ok()?;
    frame
}

/// `Ok(true)` when `got` is `want`; otherwise the pass stops (the general reader decides).
pub(crate) fn expect<E: serde::de::Error>(got: Text<'_>, want: &str) -> Result<bool, E> {
    if got.0 == want {
        Ok(true)
    } else {
        Err(fallback())
    }
}

/// Stops the pass: the general reader takes over.
pub(crate) fn fallback<E: serde::de::Error>() -> E {
    E::custom("not the hot shape")
}

struct EnvelopeVisitor;

impl<'de> Visitor<'de> for EnvelopeVisitor {
    type Value = Option<InboundFrame>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a server-request envelope")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut kind, mut rpc_id, mut method, mut frame) = (None, None, None, None);
        while let Some(Text(key)) = map.next_key()? {
            match &*key {
                // Anything but an event frame stops the pass at once.
                "type" if kind.is_none() => kind = Some(expect(map.next_value()?, "server-request")?),
                "rpcId" if rpc_id.is_none() => rpc_id = Some(map.next_value::<Text>()?.0.into_owned()),
                "method" if method.is_none() => method = Some(expect(map.next_value()?, "session/event")?),
                // Read as an event payload even before the method is seen; another frame type
                // fails on its own `type` and falls back.
                "payload" if frame.is_none() => frame = Some(map.next_value_seed(PayloadSeed)?),
                "type" | "rpcId" | "method" | "payload" => return Err(fallback()),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(match (kind, rpc_id, method, frame) {
            (Some(true), Some(rpc_id), Some(true), Some(frame)) => {
                Some(InboundFrame { rpc_id, frame: Frame::Event(frame) })
            }
            _ => None,
        })
    }
}

struct PayloadSeed;

impl<'de> DeserializeSeed<'de> for PayloadSeed {
    type Value = EventFrame;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<EventFrame, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for PayloadSeed {
    type Value = EventFrame;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a session/event payload")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<EventFrame, A::Error> {
        let (mut kind_ok, mut session_id, mut event, mut view) = (None, None, None, None);
        while let Some(Text(key)) = map.next_key()? {
            match &*key {
                "type" if kind_ok.is_none() => kind_ok = Some(expect(map.next_value()?, "session/event")?),
                "sessionId" if session_id.is_none() => session_id = Some(map.next_value::<Text>()?.0.into_owned()),
                "event" if event.is_none() => event = Some(map.next_value_seed(EventSeed)?),
                "view" if view.is_none() => view = Some(map.next_value::<&RawValue>()?),
                _ => return Err(fallback()),
            }
        }
        let (Some(true), Some(session_id), Some(event)) = (kind_ok, session_id, event) else { return Err(fallback()) };
        let view = view.filter(|v| v.get() != "null").map(Json::from_raw);
        Ok(EventFrame { session_id, event, view })
    }
}

pub(crate) struct EventSeed;

impl<'de> DeserializeSeed<'de> for EventSeed {
    type Value = SessionEvent;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<SessionEvent, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for EventSeed {
    type Value = SessionEvent;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a session event")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SessionEvent, A::Error> {
        let (mut kind, mut seq, mut time, mut data, mut rest) = (None, None, None, None, false);
        while let Some(Text(key)) = map.next_key()? {
            match &*key {
                "type" if kind.is_none() => kind = Some(map.next_value::<Text>()?.0.into_owned()),
                "seq" if seq.is_none() => seq = Some(map.next_value::<u64>()?),
                "time" if time.is_none() => time = Some(map.next_value::<f64>()?),
                "data" if data.is_none() => data = Some(Json::from_raw(map.next_value::<&RawValue>()?)),
                // Rare members (`sourceEventSeqs`, `surfaceOp`, anything new) go the general way.
                _ => {
                    rest = true;
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        match (kind, seq, time, rest) {
            (Some(kind), Some(seq), Some(time), false) => Ok(SessionEvent {
                kind,
                seq,
                time,
                data: data.unwrap_or_default(),
                source_event_seqs: None,
                surface_op: None,
            }),
            _ => Err(fallback()),
        }
    }
}

/// An `assistant/chunk`'s data in one pass, or `None` to fall back to the general reader
/// (which the fold would otherwise run as two splits for every streamed token).
pub fn chunk_data(data: &str) -> Option<ChunkData> {
    let mut de = serde_json::Deserializer::from_str(data);
    let body = (&mut de).deserialize_map(ChunkDataSeed).ok()?;
    de.end().ok()?;
    Some(body)
}

struct ChunkDataSeed;

impl<'de> Visitor<'de> for ChunkDataSeed {
    type Value = ChunkData;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("assistant/chunk data")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ChunkData, A::Error> {
        let (mut turn, mut step, mut chunk) = (None, None, None);
        while let Some(Text(key)) = map.next_key()? {
            match &*key {
                "turn" if turn.is_none() => turn = Some(map.next_value::<u64>()?),
                "step" if step.is_none() => step = Some(map.next_value::<u64>()?),
                "chunk" if chunk.is_none() => chunk = Some(map.next_value_seed(ChunkSeed)?),
                "turn" | "step" | "chunk" => return Err(fallback()),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        match (turn, step, chunk) {
            (Some(turn), Some(step), Some(chunk)) => Ok(ChunkData { turn, step, chunk }),
            _ => Err(fallback()),
        }
    }
}

struct ChunkSeed;

impl<'de> DeserializeSeed<'de> for ChunkSeed {
    type Value = Chunk;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Chunk, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ChunkSeed {
    type Value = Chunk;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a chunk")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Chunk, A::Error> {
        let (mut kind, mut text) = (None, None);
        while let Some(Text(key)) = map.next_key()? {
            match &*key {
                "type" if kind.is_none() => {
                    kind = Some(match &*map.next_value::<Text>()?.0 {
                        "text-delta" => ChunkKind::TextDelta,
                        "reasoning-delta" => ChunkKind::ReasoningDelta,
                        _ => ChunkKind::Other,
                    })
                }
                // A `null` text, like a missing one, is no text.
                "text" if text.is_none() => text = Some(map.next_value::<Option<Text>>()?.map(|t| t.0.into_owned())),
                "type" | "text" => return Err(fallback()),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Chunk { kind: kind.unwrap_or(ChunkKind::Other), text: text.flatten() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::read;

    #[test]
    fn the_one_pass_chunk_reader_agrees_with_the_general_reader_or_defers_to_it() {
        let cases = [
            r#"{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"a\"b"}}"#,
            r#"{"chunk":{"text":"x","type":"reasoning-delta"},"step":2,"turn":1,"extra":[1]}"#,
            r#"{"turn":1,"step":2,"chunk":{"type":"tool-input-delta"}}"#,
            r#"{"turn":1,"step":2,"chunk":{"text":null}}"#,
            r#"{"turn":1,"step":2,"chunk":{}}"#,
        ];
        for c in cases {
            let general: ChunkData = read(c).unwrap();
            assert_eq!(chunk_data(c), Some(general), "{c}");
        }
        let bad = [
            r#"{"turn":1,"chunk":{"type":"text-delta","text":"a"}}"#,
            r#"{"turn":1,"step":2,"chunk":{"type":1}}"#,
            r#"{"turn":1,"step":2,"chunk":{"type":"text-delta","text":3}}"#,
            r#"{"turn":1,"step":2,"step":3,"chunk":{}}"#,
            r#"{"turn":-1,"step":2,"chunk":{}}"#,
            r#"{"turn":1,"step":2,"chunk":[]}"#,
        ];
        for c in bad {
            assert_eq!(chunk_data(c), None, "{c}");
            assert!(read::<ChunkData>(c).is_err(), "{c}");
        }
    }
}
