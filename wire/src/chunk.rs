//! The hot event body: an `assistant/chunk`'s data, `{turn, step, chunk: {type, text?}}`,
//! one per streamed token. Read in one pass when it has the usual shape, by its record's
//! reader otherwise (a test keeps the two on the same members).

use super::read::{read, Text};
use super::visit::{self, leaf, whole, Any, Kinds, Scalar};
use serde::de::{IgnoredAny, MapAccess};
use std::borrow::Cow;

record! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct ChunkData {
        pub turn: u64 = "turn",
        pub step: u64 = "step",
        pub chunk: Chunk = "chunk",
    }
}

record! {
    /// The part of a streamed chunk the fold reads; other chunk fields are skipped.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Chunk {
        pub kind: ChunkKind = default "type",
        pub text: Option<String> = opt "text",
    }
}

wire_enum! {
    /// Chunk kinds the fold accumulates; every other kind reads as `Other` (no allocation).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum ChunkKind {
        TextDelta = "text-delta",
        ReasoningDelta = "reasoning-delta",
    }
    other = #[default] Other = "other";
}

impl ChunkData {
    /// The data of an `assistant/chunk` event, or `None` when it is not one.
    pub fn read(data: &str) -> Option<ChunkData> {
        one_pass(data).or_else(|| read(data).ok())
    }
}

/// Stops the pass: the general reader takes over.
fn fallback<E: serde::de::Error>() -> E {
    E::custom("not the hot shape")
}

/// An `assistant/chunk`'s data in one pass, or `None` to fall back to the general reader
/// (which the fold would otherwise run as two splits for every streamed token).
fn one_pass(data: &str) -> Option<ChunkData> {
    whole(data, ChunkDataSeed).ok()
}

struct ChunkDataSeed;

impl<'de> Kinds<'de> for ChunkDataSeed {
    type Value = ChunkData;
    const WHAT: &'static str = "assistant/chunk data";
    fn map<A: MapAccess<'de>>(self, mut map: A) -> Result<ChunkData, A::Error> {
        let (mut turn, mut step, mut chunk) = (None, None, None);
        while let Some(Text(key)) = map.next_key()? {
            match &*key {
                "turn" if turn.is_none() => turn = Some(leaf(&mut map, Scalar::u64, "an unsigned integer")?),
                "step" if step.is_none() => step = Some(leaf(&mut map, Scalar::u64, "an unsigned integer")?),
                "chunk" if chunk.is_none() => chunk = Some(map.next_value_seed(Any(ChunkSeed))?),
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

impl<'de> Kinds<'de> for ChunkSeed {
    type Value = Chunk;
    const WHAT: &'static str = "a chunk";
    fn map<A: MapAccess<'de>>(self, mut map: A) -> Result<Chunk, A::Error> {
        let (mut kind, mut text) = (None, None);
        while let Some(Text(key)) = map.next_key()? {
            match &*key {
                "type" if kind.is_none() => {
                    kind = Some(match &*visit::text(&mut map)? {
                        "text-delta" => ChunkKind::TextDelta,
                        "reasoning-delta" => ChunkKind::ReasoningDelta,
                        _ => ChunkKind::Other,
                    })
                }
                // A `null` text, like a missing one, is no text.
                "text" if text.is_none() => {
                    text = Some(leaf(&mut map, Scalar::opt_str, "a string or null")?.map(Cow::into_owned))
                }
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
    fn the_one_pass_reads_the_records_members() {
        assert_eq!(ChunkData::MEMBERS, ["turn", "step", "chunk"]);
        assert_eq!(Chunk::MEMBERS, ["type", "text"]);
    }

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
            assert_eq!(one_pass(c), Some(general), "{c}");
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
            assert_eq!(one_pass(c), None, "{c}");
            assert!(read::<ChunkData>(c).is_err(), "{c}");
        }
    }
}
