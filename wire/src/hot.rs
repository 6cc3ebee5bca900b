//! One pass over the hot frame (a `session/event` envelope), read straight through (the hot
//! event body, an `assistant/chunk`'s data, has its own pass in the `chunk` module).
//!
//! Why a second reader: [`super::read::Obj`] splits one level at a time, so a value nested
//! four deep (envelope → payload → event → data) is scanned four times; live streaming is
//! almost only these frames. Three hand-written visitors, each instantiated once over
//! serde_json's parser, read the envelope, payload and event in one scan. Anything they do
//! not expect (another frame type, a repeated key, a rare member, a bad value) returns `None` and the
//! general reader decides, so errors are still classified exactly. Member order is free.

use super::event::SessionEvent;
use super::frames::{EventFrame, Frame, InboundFrame};
use super::json::Json;
use super::read::{present, Text};
use super::visit::{leaf, text, whole, Any, Kinds, Scalar};
use serde::de::{IgnoredAny, MapAccess};
use serde_json::value::RawValue;
use std::borrow::Cow;

/// The frame, or `None` to fall back to the general reader.
pub fn event_frame(data: &str) -> Option<InboundFrame> {
    whole(data, Envelope).ok().flatten()
}

/// The members of a session event this pass reads; any other member (`sourceEventSeqs`,
/// `surfaceOp`, anything new) sends the frame the general way. Each is one of the record's
/// ([`SessionEvent::MEMBERS`], checked by a test).
#[cfg(test)]
const EVENT_MEMBERS: [&str; 4] = ["type", "seq", "time", "data"];

/// `Ok(true)` when `got` is `want`; otherwise the pass stops (the general reader decides).
pub(crate) fn expect<E: serde::de::Error>(got: Cow<'_, str>, want: &str) -> Result<bool, E> {
    if got == want {
        Ok(true)
    } else {
        Err(fallback())
    }
}

/// Stops the pass: the general reader takes over.
pub(crate) fn fallback<E: serde::de::Error>() -> E {
    E::custom("not the hot shape")
}

struct Envelope;

impl<'de> Kinds<'de> for Envelope {
    type Value = Option<InboundFrame>;
    const WHAT: &'static str = "a server-request envelope";
    fn map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut kind, mut rpc_id, mut method, mut frame) = (None, None, None, None);
        while let Some(Text(key)) = map.next_key()? {
            match &*key {
                // Anything but an event frame stops the pass at once.
                "type" if kind.is_none() => kind = Some(expect(text(&mut map)?, "server-request")?),
                "rpcId" if rpc_id.is_none() => rpc_id = Some(text(&mut map)?.into_owned()),
                "method" if method.is_none() => method = Some(expect(text(&mut map)?, "session/event")?),
                // Read as an event payload even before the method is seen; another frame type
                // fails on its own `type` and falls back.
                "payload" if frame.is_none() => frame = Some(map.next_value_seed(Any(PayloadSeed))?),
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

impl<'de> Kinds<'de> for PayloadSeed {
    type Value = EventFrame;
    const WHAT: &'static str = "a session/event payload";
    fn map<A: MapAccess<'de>>(self, mut map: A) -> Result<EventFrame, A::Error> {
        let (mut kind_ok, mut session_id, mut event, mut view) = (None, None, None, None);
        while let Some(Text(key)) = map.next_key()? {
            match &*key {
                "type" if kind_ok.is_none() => kind_ok = Some(expect(text(&mut map)?, "session/event")?),
                "sessionId" if session_id.is_none() => session_id = Some(text(&mut map)?.into_owned()),
                "event" if event.is_none() => event = Some(map.next_value_seed(Any(EventSeed))?),
                "view" if view.is_none() => view = Some(map.next_value::<&RawValue>()?),
                _ => return Err(fallback()),
            }
        }
        let (Some(true), Some(session_id), Some(event)) = (kind_ok, session_id, event) else { return Err(fallback()) };
        let view = present(view).map(Json::from_raw);
        Ok(EventFrame { session_id, event, view })
    }
}

pub(crate) struct EventSeed;

impl<'de> Kinds<'de> for EventSeed {
    type Value = SessionEvent;
    const WHAT: &'static str = "a session event";
    fn map<A: MapAccess<'de>>(self, mut map: A) -> Result<SessionEvent, A::Error> {
        let (mut kind, mut seq, mut time, mut data, mut rest) = (None, None, None, None, false);
        while let Some(Text(key)) = map.next_key()? {
            match &*key {
                "type" if kind.is_none() => kind = Some(text(&mut map)?.into_owned()),
                "seq" if seq.is_none() => seq = Some(leaf(&mut map, Scalar::u64, "an unsigned integer")?),
                "time" if time.is_none() => time = Some(leaf(&mut map, Scalar::f64, "a number")?),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::EventFrame;
    use crate::read::read;

    #[test]
    fn the_one_pass_members_are_the_records_members() {
        for m in EVENT_MEMBERS {
            assert!(SessionEvent::MEMBERS.contains(&m), "{m}");
        }
        for m in ["type", "sessionId", "event", "view"] {
            assert!(m == "type" || EventFrame::MEMBERS.contains(&m), "{m}");
        }
    }

    /// Every event of the fixtures and a few shaped by hand, framed as the host frames them:
    /// the one pass reads each as the general reader does, or defers to it.
    #[test]
    fn the_one_pass_frame_reader_agrees_with_the_general_reader_on_every_fixture_event() {
        let mut events: Vec<String> = vec![
            r#"{"type":"x","seq":0,"time":1}"#.into(),
            r#"{"type":"assistant/chunk","seq":3,"time":1.5,"data":{"turn":1,"step":0,"chunk":{"type":"text-delta","text":"\u00e9"}}}"#.into(),
            r#"{"data":null,"time":1795991061849,"seq":9,"type":"y"}"#.into(),
            r#"{"type":"x","seq":1,"time":1,"sourceEventSeqs":[0],"surfaceOp":{}}"#.into(),
        ];
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/wire");
        let mut files = vec![std::path::PathBuf::from(dir)];
        while let Some(p) = files.pop() {
            if p.is_dir() {
                files.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            for line in text.lines() {
                let line = line.trim().trim_start_matches("data:").trim();
                let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else { continue };
                let mut stack = vec![v];
                while let Some(v) = stack.pop() {
                    if v.get("seq").is_some() && v.get("time").is_some() && v.get("type").is_some() {
                        events.push(v.to_string());
                    }
                    match v {
                        serde_json::Value::Array(a) => stack.extend(a),
                        serde_json::Value::Object(o) => stack.extend(o.into_iter().map(|(_, v)| v)),
                        _ => {}
                    }
                }
            }
        }
        assert!(events.len() > 4, "the fixtures hold events");
        let mut hot = 0;
        for ev in &events {
            let data = format!(
                r#"{{"type":"server-request","rpcId":"r","method":"session/event","payload":{{"type":"session/event","sessionId":"s","event":{ev}}}}}"#
            );
            let general: SessionEvent = read(ev).unwrap();
            if let Some(f) = event_frame(&data) {
                hot += 1;
                assert_eq!(f.frame.event(), Some(&general), "{ev}");
            }
        }
        assert!(hot > 0);
    }
}
