//! One-pass readers of the texts the client reads most: the SSE byte stream ([`sse`]),
//! `session/event` frames, streamed `assistant/chunk` data and the items of `session.history`
//! pages ([`page`] cuts them out of a body as it streams),
//! each read straight through (no split of every level into raw members, no copy in between).
//!
//! Why a crate of its own: the release build compiles it at opt-level 3 and the wire crate
//! for size. Generic serde_json code takes the opt-level of the crate that instantiates it, so
//! the parser these readers drive is fast while the general readers (rare frames, errors,
//! every other RPC value) stay small.
//!
//! The records' member lists are not restated here: each hot record's `read_pass` is generated
//! by `record!` from its declaration, and this crate says only how a value of each member type
//! is read. A member no record declares is read past, as the general reader ignores it.
//! Anything a pass does not expect (another frame type, a repeated key, a bad value, an error
//! result) gives `None`, and the caller takes the wire crate's general reader, which
//! classifies errors exactly. Tests hold the two to the same readings.
//!
//! Modules: [`sse`], [`page`], `readers` (one reader type for every object a pass reads),
//! `skipped` (members read past) and `tests`.

#![deny(missing_docs)]

pub mod page;
mod readers;
mod skipped;
pub mod sse;
#[cfg(test)]
mod tests;

use agent_session_wire::event::{ChunkData, EventBody, EventData, SessionEvent};
use agent_session_wire::frames::{FrameError, InboundFrame};
use agent_session_wire::inbound;
use agent_session_wire::methods::HistoryItem;
use agent_session_wire::visit::whole;
use readers::Reader;

/// A `session/event` frame in one pass, or `None` to take the general reader.
pub fn event_frame(data: &str) -> Option<InboundFrame> {
    let mut frame = None;
    whole(data, Reader::Frame(&mut frame)).ok()?;
    frame
}

/// One item of a history page that is all of `text` (as [`page::PageSplitter`] cuts them
/// out) in one pass, or `None` to take the general reader. The same reading as an item read
/// in place ([`history_item_at`]).
pub fn history_item(text: &str) -> Option<HistoryItem> {
    history_item_at(text).filter(|(_, n)| *n == text.len()).map(|(item, _)| item)
}

/// The history item at the start of `text` in one pass, and the bytes it took; `None` when
/// it does not end in `text` or is unusual (the caller cuts it out and reads it then).
pub fn history_item_at(text: &str) -> Option<(HistoryItem, usize)> {
    /// The item as a `Deserialize` type, so serde_json's stream reader says where it ended.
    struct At(HistoryItem);
    impl<'de> serde::Deserialize<'de> for At {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<At, D::Error> {
            let mut item = None;
            serde::de::DeserializeSeed::deserialize(agent_session_wire::visit::Any(Reader::Item(&mut item)), d)?;
            item.map(At).ok_or_else(|| serde::de::Error::custom("not the hot shape"))
        }
    }
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<At>();
    match stream.next()? {
        Ok(At(item)) => Some((item, stream.byte_offset())),
        Err(_) => None,
    }
}

/// An `assistant/chunk`'s data in one pass, or `None` to take the general reader.
pub fn chunk_data(data: &str) -> Option<ChunkData> {
    let mut chunk = None;
    whole(data, Reader::ChunkData(&mut chunk)).ok()?;
    chunk
}

/// Reads one stream `data:` payload: the hot shape in one pass, anything else by the general
/// reader (which tells every kind of bad frame apart).
pub fn parse_frame(data: &str) -> Result<InboundFrame, FrameError> {
    event_frame(data).map_or_else(|| inbound::parse_frame(data), Ok)
}

/// An event's typed body, as [`SessionEvent::body`] reads it; a streamed chunk (one per
/// token) kept as text (the general reader's) in one pass.
pub fn event_body(ev: &SessionEvent) -> Option<EventBody> {
    if let (EventData::Text(data), "assistant/chunk") = (&ev.data, ev.kind.as_str()) {
        if let Some(c) = chunk_data(data.text()) {
            return Some(EventBody::AssistantChunk(c));
        }
    }
    ev.body()
}
