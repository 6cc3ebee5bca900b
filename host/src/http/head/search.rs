//! `session.search {query}` → `{items: [{sessionId, snippet}], hasMore}` over the sessions
//! `session.list` shows. The query is upstream's schema: trimmed, 1 to 500 UTF-16 units, no
//! NUL (a longer one is an invalid payload, before any scan); at most 20 items, `hasMore`
//! when more sessions matched (upstream has no cursor: the client refines the query).

use super::answer::{Answer, Refused};
use crate::app::App;
use crate::http::check::{payload, too_short};
use crate::http::rpc::{custom_issue, internal, invalid_payload};
use crate::log::search::phrase;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;

/// Upstream's query bound (`SESSION_SEARCH_QUERY_MAX_CHARS`, JavaScript string length).
pub const MAX_QUERY_UNITS: usize = 500;
/// Upstream's result bound (`SESSION_SEARCH_RESULT_LIMIT`).
pub const MAX_RESULTS: usize = 20;

#[derive(Deserialize)]
struct SearchPayload {
    query: String,
}

/// The query as upstream's schema admits it, or the invalid-payload error.
fn checked_query(raw: &str) -> Result<String, Refused> {
    const METHOD: &str = "session.search";
    let query = raw.trim();
    let path = || vec![json!("query")];
    let issue = if query.is_empty() {
        too_short(path())
    } else if query.encode_utf16().count() > MAX_QUERY_UNITS {
        json!({ "code": "too_big", "path": path(), "maximum": MAX_QUERY_UNITS, "type": "string", "inclusive": true,
            "message": format!("String must contain at most {MAX_QUERY_UNITS} character(s)") })
    } else if query.contains('\0') {
        custom_issue(path(), "search query must not contain NUL")
    } else {
        return Ok(query.to_string());
    };
    Err(invalid_payload(METHOD, vec![issue]).into())
}

pub fn search(app: &App, p: &Value) -> Answer {
    let p: SearchPayload = payload("session.search", p)?;
    let phrase = phrase(&checked_query(&p.query)?);
    let visible: HashMap<i64, String> = app.sessions().into_iter().map(|s| (s.pk, s.id.clone())).collect();
    let hits = app.store.search_messages(&phrase, |pk| visible.contains_key(&pk)).map_err(internal)?;
    let items: Vec<Value> =
        hits.iter().take(MAX_RESULTS).map(|h| json!({ "sessionId": visible[&h.pk], "snippet": h.snippet })).collect();
    Ok(json!({ "items": items, "hasMore": hits.len() > MAX_RESULTS }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_is_bounded_as_upstream_bounds_it() {
        assert_eq!(checked_query("  fox  ").unwrap(), "fox");
        let code = |q: &str| checked_query(q).unwrap_err().0["details"]["issues"][0]["code"].clone();
        assert_eq!(code("   "), "too_small");
        assert_eq!(code(&"x".repeat(501)), "too_big");
        assert!(checked_query(&"é".repeat(500)).is_ok(), "500 UTF-16 units");
        assert_eq!(code(&"😀".repeat(251)), "too_big", "502 UTF-16 units");
        assert_eq!(code("a\0b"), "custom");
    }
}
