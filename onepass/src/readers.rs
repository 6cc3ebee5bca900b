//! The readers: one [`Reader`] type for every object (and the one array) a pass reads, so a
//! single `deserialize_any` instance serves them all; one such instance per reader was
//! ~1.4 KB of wasm each at opt-level "s" and twice that at 3. Member order is free in each.

use agent_session_wire::event::{Chunk, ChunkData, ChunkKind, EventData, SessionEvent};
use agent_session_wire::frames::{EventFrame, Frame, InboundFrame};
use agent_session_wire::json::Json;
use agent_session_wire::methods::{HistoryItem, HistoryValue, ProjectionBaseline};
use agent_session_wire::read::{as_f64, list_of, present, read, Text};
use agent_session_wire::seq::MAX_SEQ;
use agent_session_wire::visit::{leaf, text, Any, Kinds, Scalar};
use serde::de::{Error, IgnoredAny, MapAccess, SeqAccess};
use serde_json::value::RawValue;
use std::borrow::Cow;

/// What to read next, and where what it read goes.
///
/// The result is written to the variant's slot rather than returned, so one reader type (one
/// `deserialize_any` instance) serves every shape without an enum of results to match and
/// drop at each call.
pub(crate) enum Reader<'r> {
    /// A `server-request` envelope holding a `session/event`.
    Frame(&'r mut Option<InboundFrame>),
    /// Its payload.
    Payload(&'r mut Option<EventFrame>),
    /// A session event (frames and history pages alike, so both read it the same).
    Event(&'r mut Option<SessionEvent>),
    /// A `server-response` envelope to the request minted as this rpc id.
    Response(&'r str, &'r mut Option<HistoryValue>),
    /// Its `{ok: true, value}` result.
    Result(&'r mut Option<HistoryValue>),
    /// The history page.
    Page(&'r mut Option<HistoryValue>),
    /// The page's `events` array.
    Items(&'r mut Option<Vec<HistoryItem>>),
    /// One history item.
    Item(&'r mut Option<HistoryItem>),
    /// An `assistant/chunk`'s data.
    ChunkData(&'r mut Option<ChunkData>),
    /// Its chunk.
    Chunk(&'r mut Option<Chunk>),
}

/// Stops the pass: the general reader takes over.
fn fallback<E: Error>() -> E {
    E::custom("not the hot shape")
}

/// `Ok(true)` when `got` is `want`; otherwise the pass stops.
fn expect<E: Error>(got: Cow<'_, str>, want: &str) -> Result<bool, E> {
    if got == want {
        Ok(true)
    } else {
        Err(fallback())
    }
}

/// Members of one object a pass skips: still told apart, because the general reader refuses
/// a repeated member and the two must agree on every input. Invariant: at most
/// [`Skipped::MAX`] names held; an object with more skipped members (or a skipped name with
/// escapes) falls back.
struct Skipped<'de> {
    names: [&'de str; Skipped::MAX],
    len: usize,
}

impl<'de> Skipped<'de> {
    const MAX: usize = 6;

    fn new() -> Self {
        Skipped { names: [""; Skipped::MAX], len: 0 }
    }

    /// Skips the value of member `name`; a repeat (or one too many) stops the pass.
    fn skip<A: MapAccess<'de>>(&mut self, name: Cow<'de, str>, map: &mut A) -> Result<(), A::Error> {
        if !self.note(name) {
            return Err(fallback());
        }
        map.next_value::<IgnoredAny>()?;
        Ok(())
    }

    /// Records `name`; false when it cannot be told apart from the others.
    fn note(&mut self, name: Cow<'de, str>) -> bool {
        let Cow::Borrowed(name) = name else { return false };
        if self.len == Skipped::MAX || self.names[..self.len].contains(&name) {
            return false;
        }
        self.names[self.len] = name;
        self.len += 1;
        true
    }
}

/// Reads the next member's value with `reader`; on `Ok` its slot is filled (every arm of
/// [`Reader`]'s `map`/`seq` either fills it or fails).
fn nested<'de, A: MapAccess<'de>>(map: &mut A, reader: Reader<'_>) -> Result<(), A::Error> {
    map.next_value_seed(Any(reader))
}

impl<'de> Kinds<'de> for Reader<'_> {
    type Value = ();
    fn what(&self) -> &'static str {
        "the hot shape"
    }
    fn map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        match self {
            Reader::Frame(out) => *out = Some(frame(map)?),
            Reader::Payload(out) => *out = Some(payload(map)?),
            Reader::Event(out) => *out = Some(event(map)?),
            Reader::Response(rpc_id, out) => *out = Some(response(map, rpc_id)?),
            Reader::Result(out) => *out = Some(result(map)?),
            Reader::Page(out) => *out = Some(page(map)?),
            Reader::Item(out) => *out = Some(item(map)?),
            Reader::ChunkData(out) => *out = Some(chunk_data(map)?),
            Reader::Chunk(out) => *out = Some(chunk(map)?),
            Reader::Items(_) => return Err(fallback()),
        }
        Ok(())
    }
    fn seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        match self {
            Reader::Items(out) => *out = Some(items(seq)?),
            _ => return Err(fallback()),
        }
        Ok(())
    }
}

fn frame<'de, A: MapAccess<'de>>(mut map: A) -> Result<InboundFrame, A::Error> {
    let (mut kind, mut rpc_id, mut method, mut frame) = (None, None, None, None);
    let mut skipped = Skipped::new();
    while let Some(Text(key)) = map.next_key()? {
        match &*key {
            // Anything but an event frame stops the pass at once.
            "type" if kind.is_none() => kind = Some(expect(text(&mut map)?, "server-request")?),
            "rpcId" if rpc_id.is_none() => rpc_id = Some(text(&mut map)?.into_owned()),
            "method" if method.is_none() => method = Some(expect(text(&mut map)?, EventFrame::TYPE)?),
            // Read as an event payload even before the method is seen; another frame type
            // fails on its own `type` and falls back.
            "payload" if frame.is_none() => nested(&mut map, Reader::Payload(&mut frame))?,
            "type" | "rpcId" | "method" | "payload" => return Err(fallback()),
            _ => skipped.skip(key, &mut map)?,
        }
    }
    match (kind, rpc_id, method, frame) {
        (Some(true), Some(rpc_id), Some(true), Some(frame)) => Ok(InboundFrame { rpc_id, frame: Frame::Event(frame) }),
        _ => Err(fallback()),
    }
}

fn payload<'de, A: MapAccess<'de>>(mut map: A) -> Result<EventFrame, A::Error> {
    let (mut kind_ok, mut session_id, mut event, mut view) = (None, None, None, None);
    while let Some(Text(key)) = map.next_key()? {
        match &*key {
            "type" if kind_ok.is_none() => kind_ok = Some(expect(text(&mut map)?, EventFrame::TYPE)?),
            "sessionId" if session_id.is_none() => session_id = Some(text(&mut map)?.into_owned()),
            "event" if event.is_none() => nested(&mut map, Reader::Event(&mut event))?,
            "view" if view.is_none() => view = Some(map.next_value::<&RawValue>()?),
            _ => return Err(fallback()),
        }
    }
    let (Some(true), Some(session_id), Some(event)) = (kind_ok, session_id, event) else { return Err(fallback()) };
    let view = present(view).map(Json::from_raw);
    Ok(EventFrame { session_id, event, view })
}

/// Every member of [`SessionEvent`]; an unknown one sends the event the general way.
fn event<'de, A: MapAccess<'de>>(mut map: A) -> Result<SessionEvent, A::Error> {
    let (mut kind, mut seq, mut time, mut data) = (None, None, None, None);
    let (mut seqs, mut surface_op) = (None, None);
    while let Some(Text(key)) = map.next_key()? {
        match &*key {
            "type" if kind.is_none() => kind = Some(text(&mut map)?.into_owned()),
            "seq" if seq.is_none() => seq = Some(leaf(&mut map, Scalar::u64, "an unsigned integer")?),
            "time" if time.is_none() => time = Some(leaf(&mut map, Scalar::f64, "a number")?),
            // A streamed chunk after its `type` is read here, not copied for a second pass.
            "data" if data.is_none() && kind.as_deref() == Some("assistant/chunk") => {
                let mut chunk = None;
                nested(&mut map, Reader::ChunkData(&mut chunk))?;
                data = chunk.map(EventData::Chunk);
            }
            "data" if data.is_none() => data = Some(EventData::Text(Json::from_raw(map.next_value::<&RawValue>()?))),
            // Written by today's upstream host on many events (kept raw, read below).
            "sourceEventSeqs" if seqs.is_none() => seqs = Some(map.next_value::<&RawValue>()?),
            "surfaceOp" if surface_op.is_none() => surface_op = Some(map.next_value::<&RawValue>()?),
            _ => return Err(fallback()),
        }
    }
    // `null` reads as absent, as the general reader reads these optional members.
    let source_event_seqs = match present(seqs) {
        None => None,
        Some(raw) => Some(list_of("sourceEventSeqs", raw, &as_f64).map_err(|_| fallback())?),
    };
    let surface_op = present(surface_op).map(Json::from_raw);
    match (kind, seq, time) {
        // A seq past the wire bound: the general reader refuses it with its reason.
        (Some(kind), Some(seq), Some(time)) if seq <= MAX_SEQ => {
            Ok(SessionEvent { kind, seq, time, data: data.unwrap_or_default(), source_event_seqs, surface_op })
        }
        _ => Err(fallback()),
    }
}

fn response<'de, A: MapAccess<'de>>(mut map: A, want_rpc_id: &str) -> Result<HistoryValue, A::Error> {
    let (mut kind, mut rpc_id, mut page) = (None, None, None);
    let mut skipped = Skipped::new();
    while let Some(Text(key)) = map.next_key()? {
        match &*key {
            "type" if kind.is_none() => kind = Some(expect(text(&mut map)?, "server-response")?),
            "rpcId" if rpc_id.is_none() => rpc_id = Some(expect(text(&mut map)?, want_rpc_id)?),
            "result" if page.is_none() => nested(&mut map, Reader::Result(&mut page))?,
            "type" | "rpcId" | "result" => return Err(fallback()),
            _ => skipped.skip(key, &mut map)?,
        }
    }
    match (kind, rpc_id, page) {
        (Some(true), Some(true), Some(page)) => Ok(page),
        _ => Err(fallback()),
    }
}

fn result<'de, A: MapAccess<'de>>(mut map: A) -> Result<HistoryValue, A::Error> {
    let (mut ok, mut page) = (None, None);
    while let Some(Text(key)) = map.next_key()? {
        match &*key {
            "ok" if ok.is_none() => ok = Some(leaf(&mut map, Scalar::bool, "a boolean")?),
            "value" if page.is_none() => nested(&mut map, Reader::Page(&mut page))?,
            // An error result, or anything else: the general reader.
            _ => return Err(fallback()),
        }
    }
    match (ok, page) {
        (Some(true), Some(page)) => Ok(page),
        _ => Err(fallback()),
    }
}

fn page<'de, A: MapAccess<'de>>(mut map: A) -> Result<HistoryValue, A::Error> {
    let (mut events, mut has_more, mut projections) = (None, None, None);
    let mut skipped = Skipped::new();
    while let Some(Text(key)) = map.next_key()? {
        match &*key {
            "events" if events.is_none() => nested(&mut map, Reader::Items(&mut events))?,
            "hasMore" if has_more.is_none() => has_more = Some(leaf(&mut map, Scalar::bool, "a boolean")?),
            "projections" if projections.is_none() => projections = Some(map.next_value::<&RawValue>()?),
            "events" | "hasMore" | "projections" => return Err(fallback()),
            _ => skipped.skip(key, &mut map)?,
        }
    }
    // The baseline is small and rare: its own reader (which refuses repeated keys).
    let projections = match present(projections) {
        None => None,
        Some(raw) => Some(read::<ProjectionBaseline>(raw.get()).map_err(|_| fallback())?),
    };
    match (events, has_more) {
        (Some(events), Some(has_more)) => Ok(HistoryValue { events, has_more, projections }),
        _ => Err(fallback()),
    }
}

fn items<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<Vec<HistoryItem>, A::Error> {
    let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
    let mut item = None;
    while let Some(()) = seq.next_element_seed(Any(Reader::Item(&mut item)))? {
        items.push(item.take().ok_or_else(fallback)?);
    }
    Ok(items)
}

fn item<'de, A: MapAccess<'de>>(mut map: A) -> Result<HistoryItem, A::Error> {
    let (mut event, mut view) = (None, None);
    let mut skipped = Skipped::new();
    while let Some(Text(key)) = map.next_key()? {
        match &*key {
            "event" if event.is_none() => nested(&mut map, Reader::Event(&mut event))?,
            "view" if view.is_none() => view = Some(map.next_value::<&RawValue>()?),
            "event" | "view" => return Err(fallback()),
            _ => skipped.skip(key, &mut map)?,
        }
    }
    let view = present(view).map(Json::from_raw);
    match event {
        Some(event) => Ok(HistoryItem { event, view }),
        None => Err(fallback()),
    }
}

fn chunk_data<'de, A: MapAccess<'de>>(mut map: A) -> Result<ChunkData, A::Error> {
    let (mut turn, mut step, mut chunk) = (None, None, None);
    let mut skipped = Skipped::new();
    while let Some(Text(key)) = map.next_key()? {
        match &*key {
            "turn" if turn.is_none() => turn = Some(leaf(&mut map, Scalar::u64, "an unsigned integer")?),
            "step" if step.is_none() => step = Some(leaf(&mut map, Scalar::u64, "an unsigned integer")?),
            "chunk" if chunk.is_none() => nested(&mut map, Reader::Chunk(&mut chunk))?,
            "turn" | "step" | "chunk" => return Err(fallback()),
            _ => skipped.skip(key, &mut map)?,
        }
    }
    match (turn, step, chunk) {
        (Some(turn), Some(step), Some(chunk)) => Ok(ChunkData { turn, step, chunk }),
        _ => Err(fallback()),
    }
}

fn chunk<'de, A: MapAccess<'de>>(mut map: A) -> Result<Chunk, A::Error> {
    let (mut kind, mut text_member) = (None, None);
    let mut skipped = Skipped::new();
    while let Some(Text(key)) = map.next_key()? {
        match &*key {
            "type" if kind.is_none() => {
                kind = Some(match &*text(&mut map)? {
                    "text-delta" => ChunkKind::TextDelta,
                    "reasoning-delta" => ChunkKind::ReasoningDelta,
                    _ => ChunkKind::Other,
                })
            }
            // A `null` text, like a missing one, is no text.
            "text" if text_member.is_none() => {
                text_member = Some(leaf(&mut map, Scalar::opt_str, "a string or null")?.map(Cow::into_owned))
            }
            "type" | "text" => return Err(fallback()),
            _ => skipped.skip(key, &mut map)?,
        }
    }
    Ok(Chunk { kind: kind.unwrap_or(ChunkKind::Other), text: text_member.flatten() })
}
