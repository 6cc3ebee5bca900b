//! The readers: one [`Reader`] type for every object (and the one array) a pass reads, so a
//! single `deserialize_any` instance serves them all; one such instance per reader was
//! ~1.4 KB of wasm each at opt-level "s" and twice that at 3. Member order is free in each.

use super::skipped::{fallback, Skipped};
use agent_session_wire::event::{Chunk, ChunkData, ChunkKind, EventData, SessionEvent};
use agent_session_wire::frames::{EventFrame, Frame, InboundFrame};
use agent_session_wire::json::Json;
use agent_session_wire::methods::HistoryItem;
use agent_session_wire::pass::{Pass, PassMember};
use agent_session_wire::read::{as_f64, list_of, present, Text};
use agent_session_wire::visit::{leaf, text, Any, Kinds, Scalar};
use serde::de::{Error, MapAccess};
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
    /// One history item.
    Item(&'r mut Option<HistoryItem>),
    /// An `assistant/chunk`'s data.
    ChunkData(&'r mut Option<ChunkData>),
    /// Its chunk.
    Chunk(&'r mut Option<Chunk>),
}

/// `Ok(true)` when `got` is `want`; otherwise the pass stops.
fn expect<E: Error>(got: Cow<'_, str>, want: &str) -> Result<bool, E> {
    if got == want {
        Ok(true)
    } else {
        Err(fallback())
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
        let mut pass = Members::new();
        match self {
            Reader::Frame(out) => *out = Some(frame(map)?),
            Reader::Payload(out) => {
                pass.tag = Some((EventFrame::TYPE, false));
                let frame = EventFrame::read_pass(&mut pass, map)?;
                pass.tag_seen()?;
                *out = Some(frame)
            }
            Reader::Event(out) => *out = Some(SessionEvent::read_pass(&mut pass, map)?),
            Reader::Item(out) => *out = Some(HistoryItem::read_pass(&mut pass, map)?),
            Reader::ChunkData(out) => *out = Some(ChunkData::read_pass(&mut pass, map)?),
            Reader::Chunk(out) => *out = Some(Chunk::read_pass(&mut pass, map)?),
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

/// The one-pass reading of one record's object: what the generated `read_pass` of each hot
/// record (`record!`) asks of it. Members it does not declare are skipped (told apart, see
/// [`Skipped`]), as the general reader ignores them.
pub(crate) struct Members<'de> {
    skipped: Skipped<'de>,
    /// The object's `type` is `assistant/chunk` (an event's), so its `data` is read as the
    /// chunk's data in the pass, not kept as text for a second one.
    chunk: bool,
    /// A `type` tag the record does not declare but the object must carry (a frame payload's),
    /// and whether it was seen.
    tag: Option<(&'static str, bool)>,
}

impl<'de> Members<'de> {
    pub(crate) fn new() -> Self {
        Members { skipped: Skipped::new(), chunk: false, tag: None }
    }

    /// The tag asked for was there.
    pub(crate) fn tag_seen<E: Error>(&self) -> Result<(), E> {
        match self.tag {
            Some((_, false)) => Err(fallback()),
            _ => Ok(()),
        }
    }
}

impl<'de> Pass<'de> for Members<'de> {
    fn undeclared<A: MapAccess<'de>>(&mut self, key: Cow<'de, str>, map: &mut A) -> Result<(), A::Error> {
        match &mut self.tag {
            Some((tag, seen @ false)) if key == "type" => *seen = expect(text(map)?, tag)?,
            Some((_, true)) if key == "type" => return Err(fallback()),
            _ => self.skipped.skip(key, map)?,
        }
        Ok(())
    }
    fn refuse<E: Error>() -> E {
        fallback()
    }
}

/// A member read as its raw text (kept, or read by a general reader after the pass).
fn raw<'de, A: MapAccess<'de>>(map: &mut A) -> Result<&'de RawValue, A::Error> {
    map.next_value::<&RawValue>()
}

/// The readings of the member types of the hot records; a record gaining a member of a type
/// not here does not compile where its pass is called.
macro_rules! members {
    ($($t:ty => |$s:ident, $name:ident, $map:ident, $slot:ident| $read:expr;)*) => {
        $(impl<'de> PassMember<'de, $t> for Members<'de> {
            #[inline(always)]
            fn member<A: MapAccess<'de>>(
                &mut self,
                $name: &'static str,
                $map: &mut A,
                $slot: &mut Option<$t>,
            ) -> Result<(), A::Error> {
                let $s = self;
                $read
            }
        })*
    };
}

members! {
    String => |s, name, map, slot| {
        let t = text(map)?;
        s.chunk = name == "type" && t == "assistant/chunk";
        put(slot, t.into_owned())
    };
    u64 => |_s, _name, map, slot| put(slot, leaf(map, Scalar::u64, "an unsigned integer")?);
    f64 => |_s, _name, map, slot| put(slot, leaf(map, Scalar::f64, "a number")?);
    bool => |_s, _name, map, slot| put(slot, leaf(map, Scalar::bool, "a boolean")?);
    // A `null` text, like a missing one, is no text.
    Option<String> => |_s, _name, map, slot| {
        put(slot, leaf(map, Scalar::opt_str, "a string or null")?.map(Cow::into_owned))
    };
    // `null` reads as absent, as the general reader reads optional members.
    Option<Json> => |_s, _name, map, slot| put(slot, present(Some(raw(map)?)).map(Json::from_raw));
    Option<Vec<f64>> => |_s, name, map, slot| {
        let list = match present(Some(raw(map)?)) {
            None => None,
            Some(v) => Some(list_of(name, v, &as_f64).map_err(|_| fallback())?),
        };
        put(slot, list)
    };
    // A streamed chunk after its event's `type` is read here, not copied for a second pass.
    EventData => |s, _name, map, slot| {
        if s.chunk {
            let mut chunk = None;
            nested(map, Reader::ChunkData(&mut chunk))?;
            *slot = chunk.map(EventData::Chunk);
        } else {
            *slot = Some(EventData::Text(Json::from_raw(raw(map)?)));
        }
        Ok(())
    };
    ChunkKind => |_s, _name, map, slot| put(slot, ChunkKind::from_wire(&text(map)?).unwrap_or_default());
    // Nested records: read into the slot by their own reader (every arm of [`Reader`] fills
    // its slot or fails).
    SessionEvent => |_s, _name, map, slot| nested(map, Reader::Event(slot));
    ChunkData => |_s, _name, map, slot| nested(map, Reader::ChunkData(slot));
    Chunk => |_s, _name, map, slot| nested(map, Reader::Chunk(slot));
}

/// Fills a member's slot.
fn put<T, E>(slot: &mut Option<T>, v: T) -> Result<(), E> {
    *slot = Some(v);
    Ok(())
}
