//! `session.search` over the stored messages, as upstream's session-query index matches (at
//! b150a551b8): the query is one phrase of `unicode61` tokens (runs of letters and digits,
//! case-folded) that must appear as consecutive whole tokens of a message's text; a session's
//! best message has the most matches, then is the shortest, then the newest; the snippet is
//! upstream's `makeSnippet`: whitespace collapsed, at most 240 code points, the match a third
//! of the way in, `…` where it was cut.
//!
//! The scan reads `user/message`, `steering/message` and `assistant/message` rows one at a
//! time (SQLite pre-filters them on a query token when it can), keeping one best hit per
//! session: nothing beyond the log itself is held.

use crate::log::store::{err, Store, StoreResult};
use agent_session_wire::SessionEvent;
use rusqlite::params;
use serde_json::Value;
use std::collections::HashMap;

/// Upstream's snippet bound, in code points.
pub const SNIPPET_MAX_CHARS: usize = 240;

/// The best-matching message of one session.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub pk: i64,
    pub matches: usize,
    /// The message text's length in code points.
    pub length: usize,
    pub time: f64,
    pub seq: u64,
    pub snippet: String,
}

impl Hit {
    /// Upstream's rank: more matches, then shorter, then newer.
    fn better_than(&self, other: &Hit) -> bool {
        (self.matches, std::cmp::Reverse(self.length), self.time, self.seq).partial_cmp(&(
            other.matches,
            std::cmp::Reverse(other.length),
            other.time,
            other.seq,
        )) == Some(std::cmp::Ordering::Greater)
    }
}

/// `unicode61` tokens of `text`: each one case-folded, with the char index it starts at.
fn tokens(text: &str) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    let mut current: Option<(String, usize)> = None;
    for (i, c) in text.chars().enumerate() {
        if c.is_alphanumeric() {
            current.get_or_insert_with(|| (String::new(), i)).0.extend(c.to_lowercase());
        } else if let Some(t) = current.take() {
            out.push(t);
        }
    }
    out.extend(current);
    out
}

/// The query as a phrase of folded tokens (empty: it matches nothing).
pub fn phrase(query: &str) -> Vec<String> {
    tokens(query).into_iter().map(|(t, _)| t).collect()
}

/// How often `phrase` occurs in `text`, and the char index of the first occurrence.
pub fn matches(text: &str, phrase: &[String]) -> Option<(usize, usize)> {
    if phrase.is_empty() {
        return None;
    }
    let doc = tokens(text);
    let mut first = None;
    let mut count = 0;
    for (i, window) in doc.windows(phrase.len()).enumerate() {
        if window.iter().zip(phrase).all(|((t, _), q)| t == q) {
            first.get_or_insert(doc[i].1);
            count += 1;
        }
    }
    first.map(|at| (count, at))
}

/// Upstream's `makeSnippet`: `text` with whitespace runs as one space, trimmed, cut to `max`
/// code points around the char index `at`.
pub fn snippet(text: &str, at: usize, max: usize) -> String {
    let mut chars: Vec<char> = Vec::new();
    let mut match_start = None;
    for (i, c) in text.chars().enumerate() {
        if i == at {
            match_start = Some(chars.len());
        }
        if c.is_whitespace() {
            if chars.last().is_some_and(|l| *l != ' ') {
                chars.push(' ');
            }
        } else {
            chars.push(c);
        }
    }
    if chars.last() == Some(&' ') {
        chars.pop();
    }
    let len = chars.len();
    if len <= max {
        return chars.into_iter().collect();
    }
    if max == 1 {
        return "…".into();
    }
    let matched = match_start.unwrap_or(0).min(len - 1) as isize;
    let (len, max) = (len as isize, max as isize);
    let mut start = (matched - max / 3).max(0);
    let prefix: isize = (start > 0).into();
    let mut suffix: isize = 1;
    let mut content = max - prefix - suffix;
    if content < 1 {
        start = matched;
        suffix = 0;
        content = max - prefix;
    } else if matched >= start + content {
        start = matched - content + 1;
    }
    let mut end = len.min(start + content);
    if end == len {
        suffix = 0;
        content = max - prefix;
        start = (end - content).max(0);
    }
    end = len.min(start + content);
    let body: String = chars[start as usize..end as usize].iter().collect();
    let mark = |on: isize| if on == 1 { "…" } else { "" };
    format!("{}{body}{}", mark(prefix), mark(suffix))
}

/// The searchable text of a stored message (upstream's `extractSessionEventText`): its text
/// blocks, tool calls' names and arguments and tool results' text, each trimmed, joined by
/// newlines.
pub fn message_text(event: &SessionEvent) -> String {
    fn block(b: &Value, out: &mut Vec<String>) {
        match b.get("type").and_then(Value::as_str) {
            Some("text") => out.extend(b.get("text").and_then(Value::as_str).map(str::to_owned)),
            Some("tool-call") => {
                for key in ["name", "arguments"] {
                    match b.get(key) {
                        Some(Value::String(s)) => out.push(s.clone()),
                        Some(v @ Value::Object(_)) => out.push(v.to_string()),
                        _ => {}
                    }
                }
            }
            Some("tool-result") => {
                b.get("content").and_then(Value::as_array).into_iter().flatten().for_each(|c| block(c, out))
            }
            _ => {}
        }
    }
    let data = event.data_value();
    let mut parts = Vec::new();
    data.get("content").and_then(Value::as_array).into_iter().flatten().for_each(|b| block(b, &mut parts));
    parts.iter().map(|p| p.trim()).filter(|p| !p.is_empty()).collect::<Vec<_>>().join("\n")
}

/// The LIKE pattern SQLite pre-filters rows with: the longest ASCII token of the phrase (an
/// ASCII letter or digit is never escaped in a stored body, and LIKE folds ASCII case).
fn prefilter(phrase: &[String]) -> String {
    match phrase.iter().filter(|t| t.is_ascii()).max_by_key(|t| t.len()) {
        Some(t) => format!("%{t}%"),
        None => "%".into(),
    }
}

impl Store {
    /// The best message hit of each session whose pk `visible` accepts.
    pub fn search_messages(&self, phrase: &[String], visible: impl Fn(i64) -> bool) -> StoreResult<Vec<Hit>> {
        let mut best: HashMap<i64, Hit> = HashMap::new();
        if phrase.is_empty() {
            return Ok(Vec::new());
        }
        let conn = self.conn();
        let mut stmt =
            conn.prepare_cached("SELECT sid, body FROM events WHERE is_msg = 1 AND body LIKE ?1").map_err(err)?;
        let mut rows = stmt.query(params![prefilter(phrase)]).map_err(err)?;
        while let Some(row) = rows.next().map_err(err)? {
            let pk: i64 = row.get(0).map_err(err)?;
            if !visible(pk) {
                continue;
            }
            let body: String = row.get(1).map_err(err)?;
            let Ok(event) = serde_json::from_str::<SessionEvent>(&body) else { continue };
            let text = message_text(&event);
            let Some((count, at)) = matches(&text, phrase) else { continue };
            let hit = Hit {
                pk,
                matches: count,
                length: text.chars().count(),
                time: event.time,
                seq: event.seq,
                snippet: String::new(),
            };
            if best.get(&pk).is_none_or(|b| hit.better_than(b)) {
                best.insert(pk, Hit { snippet: snippet(&text, at, SNIPPET_MAX_CHARS), ..hit });
            }
        }
        let mut hits: Vec<Hit> = best.into_values().collect();
        hits.sort_by(|a, b| {
            (b.matches, a.length).cmp(&(a.matches, b.length)).then(b.time.total_cmp(&a.time)).then(a.pk.cmp(&b.pk))
        });
        Ok(hits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_query_matches_whole_tokens_case_insensitively() {
        let q = phrase("Plan  MODE");
        assert_eq!(q, ["plan", "mode"]);
        assert_eq!(matches("Enter plan-mode, then PLAN mode again", &q), Some((2, 6)));
        assert_eq!(matches("planning mode", &q), None, "tokens, not substrings");
        assert_eq!(matches("anything", &phrase("!!!")), None, "no token: no match");
        assert_eq!(matches("Ünïcode ÉCOLE", &phrase("école")), Some((1, 8)));
    }

    #[test]
    fn snippets_cut_like_upstream() {
        assert_eq!(snippet("  short \n\t text  ", 2, 240), "short text");
        let text = format!("{} needle {}", "a".repeat(300), "b".repeat(300));
        let s = snippet(&text, 301, 240);
        assert_eq!(s.chars().count(), 240);
        assert!(s.starts_with('…') && s.ends_with('…'), "{s}");
        assert_eq!(s.find("needle").map(|i| s[..i].chars().count()), Some(81), "`…` and a third of 240 before it");
        let tail = format!("{} needle", "a".repeat(300));
        let s = snippet(&tail, 301, 240);
        assert!(s.starts_with('…') && s.ends_with("needle") && s.chars().count() == 240, "{s}");
        let head = format!("needle {}", "b".repeat(300));
        let s = snippet(&head, 0, 240);
        assert!(s.starts_with("needle") && s.ends_with('…') && s.chars().count() == 240);
    }

    #[test]
    fn message_text_takes_text_and_tool_parts() {
        let ev = SessionEvent::new(
            "assistant/message",
            1,
            1.0,
            json!({ "content": [{ "type": "text", "text": " hi " }, { "type": "reasoning", "text": "secret" },
                { "type": "tool-call", "name": "read", "arguments": "{\"path\":\"a\"}" }] }),
        );
        assert_eq!(message_text(&ev), "hi\nread\n{\"path\":\"a\"}");
    }

    #[test]
    fn each_session_keeps_its_best_message_and_sessions_rank_by_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.sqlite")).unwrap();
        let msg = |seq, text: &str| {
            SessionEvent::new("user/message", seq, seq as f64, json!({ "content": [{ "type": "text", "text": text }] }))
        };
        let a = store.create_session("a", None, None, 0.0).unwrap();
        let b = store.create_session("b", None, None, 0.0).unwrap();
        let c = store.create_session("c", None, None, 0.0).unwrap();
        store.append_many(a, &[msg(0, "one fox"), msg(1, "fox and fox")]).unwrap();
        store.append_many(b, &[msg(0, "a fox, a fox, a fox")]).unwrap();
        store.append_many(c, &[msg(0, "Fox")]).unwrap();
        let hits = store.search_messages(&phrase("FOX"), |pk| pk != c).unwrap();
        let got: Vec<(i64, usize, &str)> = hits.iter().map(|h| (h.pk, h.matches, h.snippet.as_str())).collect();
        assert_eq!(got, [(b, 3, "a fox, a fox, a fox"), (a, 2, "fox and fox")]);
    }
}
