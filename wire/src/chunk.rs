//! The hot event body: an `assistant/chunk`'s data, `{turn, step, chunk: {type, text?}}`,
//! one per streamed token. The client reads it in one pass first (`agent-session-onepass`, whose
//! tests keep the two readings the same), by its record's reader otherwise.

use super::read::read;

record! {
    /// The data of an `assistant/chunk` event: the token and the turn and step it belongs to.
    #[derive(Debug, Clone, PartialEq)]
    pub struct ChunkData {
        /// The turn the token belongs to.
        pub turn: u64 = "turn",
        /// The step within that turn.
        pub step: u64 = "step",
        /// The token itself.
        pub chunk: Chunk = "chunk",
    }
}

record! {
    /// The part of a streamed chunk the fold reads; other chunk fields are skipped.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Chunk {
        /// What the token is; a missing `type` reads as `Other`.
        pub kind: ChunkKind = default "type",
        /// The token's text, when the kind carries one.
        pub text: Option<String> = opt "text",
    }
}

wire_enum! {
    /// Chunk kinds the fold accumulates; every other kind reads as `Other` (no allocation).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum ChunkKind {
        /// A token of the answer.
        TextDelta = "text-delta",
        /// A token of the model's reasoning.
        ReasoningDelta = "reasoning-delta",
    }
    other =
        /// Any other kind: read, then skipped by the fold.
        #[default]
        Other = "other";
}

impl ChunkData {
    /// The data of an `assistant/chunk` event, or `None` when it is not one (the general
    /// reader; the client reads streamed chunks in one pass first, `agent-session-onepass`).
    pub fn read(data: &str) -> Option<ChunkData> {
        read(data).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_reads_its_kind_and_text_and_any_other_kind_as_other() {
        let c =
            ChunkData::read(r#"{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"a\"b"}}"#).unwrap();
        assert_eq!((c.turn, c.step, c.chunk.kind, c.chunk.text.as_deref()), (1, 2, ChunkKind::TextDelta, Some("a\"b")));
        let c = ChunkData::read(r#"{"turn":1,"step":2,"chunk":{"type":"tool-input-delta","text":null}}"#).unwrap();
        assert_eq!((c.chunk.kind, c.chunk.text), (ChunkKind::Other, None));
        assert!(ChunkData::read(r#"{"turn":1,"chunk":{}}"#).is_none());
    }
}
