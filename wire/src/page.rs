//! One pass over a `session.history` response: envelope → result → page → items → events,
//! read straight through.
//!
//! Why: a history response is the largest body the client reads (a 100k-event tail page is
//! ~14 MB), and the general path splits it one level at a time (envelope, result, page, each
//! item, each event): five scans of the same bytes, and a copy of the whole value in between.
//! Opening and paging long sessions is that cost. The event visitor is the hot frame
//! reader's ([`super::hot`]), so an event reads the same on both paths. Anything this pass
//! does not expect (an error result, a repeated key, a member it does not know, a bad value)
//! returns `None` and the general reader decides, so errors are still classified exactly.

use super::hot::{expect, fallback, EventSeed};
use super::json::Json;
use super::methods::{HistoryItem, HistoryValue, ProjectionBaseline};
use super::read::{present, read, Text};
use super::visit::{leaf, text, whole, Any, Kinds, Scalar};
use serde::de::{IgnoredAny, MapAccess, SeqAccess};
use serde_json::value::RawValue;

/// The page of a successful `server-response` to the request minted as `rpc_id`, or `None`
/// to fall back to the general reader.
pub fn history_response(body: &str, rpc_id: &str) -> Option<HistoryValue> {
    whole(body, Envelope { rpc_id }).ok()
}

struct Envelope<'r> {
    rpc_id: &'r str,
}

impl<'de> Kinds<'de> for Envelope<'_> {
    type Value = HistoryValue;
    const WHAT: &'static str = "a server-response envelope";
    fn map<A: MapAccess<'de>>(self, mut map: A) -> Result<HistoryValue, A::Error> {
        let (mut kind, mut rpc_id, mut page) = (None, None, None);
        while let Some(Text(key)) = map.next_key()? {
            match &*key {
                "type" if kind.is_none() => kind = Some(expect(text(&mut map)?, "server-response")?),
                "rpcId" if rpc_id.is_none() => rpc_id = Some(expect(text(&mut map)?, self.rpc_id)?),
                "result" if page.is_none() => page = Some(map.next_value_seed(Any(ResultSeed))?),
                "type" | "rpcId" | "result" => return Err(fallback()),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        match (kind, rpc_id, page) {
            (Some(true), Some(true), Some(page)) => Ok(page),
            _ => Err(fallback()),
        }
    }
}

struct ResultSeed;

impl<'de> Kinds<'de> for ResultSeed {
    type Value = HistoryValue;
    const WHAT: &'static str = "an ok result";
    fn map<A: MapAccess<'de>>(self, mut map: A) -> Result<HistoryValue, A::Error> {
        let (mut ok, mut page) = (None, None);
        while let Some(Text(key)) = map.next_key()? {
            match &*key {
                "ok" if ok.is_none() => ok = Some(leaf(&mut map, Scalar::bool, "a boolean")?),
                "value" if page.is_none() => page = Some(map.next_value_seed(Any(PageSeed))?),
                // An error result, or anything else: the general reader.
                _ => return Err(fallback()),
            }
        }
        match (ok, page) {
            (Some(true), Some(page)) => Ok(page),
            _ => Err(fallback()),
        }
    }
}

struct PageSeed;

impl<'de> Kinds<'de> for PageSeed {
    type Value = HistoryValue;
    const WHAT: &'static str = "a history page";
    fn map<A: MapAccess<'de>>(self, mut map: A) -> Result<HistoryValue, A::Error> {
        let (mut events, mut has_more, mut projections) = (None, None, None);
        while let Some(Text(key)) = map.next_key()? {
            match &*key {
                "events" if events.is_none() => events = Some(map.next_value_seed(Any(ItemsSeed))?),
                "hasMore" if has_more.is_none() => has_more = Some(leaf(&mut map, Scalar::bool, "a boolean")?),
                "projections" if projections.is_none() => projections = Some(map.next_value::<&RawValue>()?),
                "events" | "hasMore" | "projections" => return Err(fallback()),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
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
}

struct ItemsSeed;

impl<'de> Kinds<'de> for ItemsSeed {
    type Value = Vec<HistoryItem>;
    const WHAT: &'static str = "history items";
    fn seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<HistoryItem>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(Any(ItemSeed))? {
            items.push(item);
        }
        Ok(items)
    }
}

struct ItemSeed;

impl<'de> Kinds<'de> for ItemSeed {
    type Value = HistoryItem;
    const WHAT: &'static str = "a history item";
    fn map<A: MapAccess<'de>>(self, mut map: A) -> Result<HistoryItem, A::Error> {
        let (mut event, mut view) = (None, None);
        while let Some(Text(key)) = map.next_key()? {
            match &*key {
                "event" if event.is_none() => event = Some(map.next_value_seed(Any(EventSeed))?),
                "view" if view.is_none() => view = Some(map.next_value::<&RawValue>()?),
                "event" | "view" => return Err(fallback()),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let view = present(view).map(Json::from_raw);
        match event {
            Some(event) => Ok(HistoryItem { event, view }),
            None => Err(fallback()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::{parse_unary_response, ResponseForm};

    /// The general path: envelope, then the page's own reader.
    fn general(body: &str, rpc_id: &str) -> Option<HistoryValue> {
        let form = ResponseForm::Envelope { rpc_id: rpc_id.into() };
        let value = parse_unary_response(body, &form).ok()?.ok()?;
        read::<HistoryValue>(value.text()).ok()
    }

    fn respond(rpc_id: &str, result: &str) -> String {
        format!(r#"{{"type":"server-response","rpcId":"{rpc_id}","result":{result}}}"#)
    }

    #[test]
    fn the_one_pass_page_reader_agrees_with_the_general_reader_or_defers_to_it() {
        let ev = |seq: u64| {
            format!(
                r#"{{"type":"assistant/chunk","seq":{seq},"time":1.5,"data":{{"turn":1,"step":0,"chunk":{{"type":"text-delta","text":"\u00e9 {seq}"}}}}}}"#
            )
        };
        let page = |items: &str, rest: &str| {
            respond("r1", &format!(r#"{{"ok":true,"value":{{"events":[{items}],"hasMore":true{rest}}}}}"#))
        };
        let two = format!(r#"{{"event":{}}},{{"event":{},"view":{{"v":1}}}}"#, ev(0), ev(1));
        let cases = [
            page(&two, ""),
            page("", ""),
            page(&two, r#","projections":{"asOfSeq":1,"values":{"plan":{"active":true}}}"#),
            page(&two, r#","projections":null,"extra":[1,2]"#),
            // member order is free
            format!(
                r#"{{"result":{{"value":{{"hasMore":false,"events":[{{"view":null,"event":{}}}]}},"ok":true}},"rpcId":"r1","type":"server-response"}}"#,
                ev(7)
            ),
            // every one of these defers
            page(&two, r#","hasMore":false"#),
            respond("other", r#"{"ok":true,"value":{"events":[],"hasMore":false}}"#),
            respond("r1", r#"{"ok":false,"error":{"code":"internal","message":"x"}}"#),
            respond(
                "r1",
                r#"{"ok":true,"value":{"events":[{"event":{"type":"x","seq":-1,"time":0}}],"hasMore":false}}"#,
            ),
            respond(
                "r1",
                r#"{"ok":true,"value":{"events":[{"event":{"type":"x","seq":1,"time":0,"surfaceOp":{}}}],"hasMore":false}}"#,
            ),
            page(&two, r#","projections":{"asOfSeq":1,"values":{"a":1,"a":2}}"#),
            r#"{"type":"server-request","rpcId":"r1","result":{}}"#.to_string(),
            format!("{} ", page(&two, "")),
            format!("{}x", page(&two, "")),
        ];
        let mut one_pass = 0;
        for body in &cases {
            let general = general(body, "r1");
            if let Some(page) = history_response(body, "r1") {
                one_pass += 1;
                assert_eq!(Some(page), general, "{body}");
            }
        }
        assert_eq!(one_pass, 6, "the ordinary shapes take the one pass");
    }

    #[test]
    fn a_page_the_host_writes_reads_in_one_pass() {
        use crate::event::SessionEvent;
        let events = (0..50)
            .map(|s| HistoryItem {
                event: SessionEvent::new("user/message", s, 1.0, serde_json::json!({"n": s})),
                view: None,
            })
            .collect();
        let value = HistoryValue { events, has_more: true, projections: None };
        let body = respond("r9", &format!(r#"{{"ok":true,"value":{}}}"#, serde_json::to_string(&value).unwrap()));
        assert_eq!(history_response(&body, "r9"), Some(value));
    }
}
