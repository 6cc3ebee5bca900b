//! [`Json`]: a JSON value the client carries without interpreting it (content blocks, tool
//! arguments, projection values, RPC values), kept as its raw text.
//!
//! Why text: every typed field the core needs is read straight from the text with one
//! deserializer (no intermediate `Value` tree, which is what made the wasm both large and
//! slow), and the wasm shell hands the text to `JSON.parse`, the fastest way to build the JS
//! object a UI receives.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

/// A JSON value kept as its raw text (see the module docs for why).
#[derive(Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Json(Box<RawValue>);

impl Json {
    /// The JSON `null`.
    pub fn null() -> Json {
        Json(RawValue::NULL.to_owned())
    }
    /// Checks `text` is one JSON value and keeps it verbatim.
    ///
    /// Read as the one item of an array by the general reader, not by
    /// `RawValue::from_string`: that was one more instance of serde_json's parser in the wasm
    /// for values from JS and error details, none of them hot.
    pub fn from_text(text: &str) -> Result<Json, serde_json::Error> {
        // JSON's whitespace is ASCII: no Unicode whitespace table for this trim.
        let wrapped = format!("[{}]", text.trim_ascii());
        match super::visit::items(&wrapped)?.as_slice() {
            [one] => Ok(Json::from_raw(one)),
            _ => Err(serde::de::Error::custom("expected one JSON value")),
        }
    }
    /// `{}`: the empty payload of describe/list, and the default error `details`.
    pub fn empty_object() -> Json {
        Json::from_text("{}").unwrap_or_else(|_| unreachable!()) // `{}` is JSON
    }
    /// A validated raw value, copied out of the text it was split from.
    pub fn from_raw(v: &RawValue) -> Json {
        Json(v.to_owned())
    }
    /// A tree's text (the host, tests).
    pub fn from_value(v: &Value) -> Json {
        // Cannot fail: a Value always serializes.
        Json(serde_json::value::to_raw_value(v).unwrap_or_else(|_| unreachable!()))
    }
    /// Any serializable value's text; `null` if it does not serialize.
    pub fn from_serialize<T: Serialize>(v: &T) -> Json {
        serde_json::value::to_raw_value(v).map(Json).unwrap_or_else(|_| Json::null())
    }
    /// Any serializable value's text, or why it does not serialize (nothing is dropped).
    pub fn try_from_serialize<T: Serialize>(v: &T) -> Result<Json, serde_json::Error> {
        serde_json::value::to_raw_value(v).map(Json)
    }
    /// The value with every array or object nested deeper than `max` levels (the value itself
    /// is level 1) replaced by the string `marker`, and how many were replaced; `None` when
    /// nothing is that deep. One pass over the text, no recursion, so any depth is safe.
    ///
    /// Why: the client's history-page reader refuses a document nested 128 deep as a whole,
    /// so data deeper than a page can carry is cut where the host takes it, and counted.
    pub fn bounded(&self, max: usize, marker: &str) -> Option<(Json, usize)> {
        let text = self.text();
        let (mut depth, mut in_str, mut escaped, mut dropped) = (0usize, false, false, 0usize);
        let mut out: Option<String> = None;
        // Where the part not yet copied to `out` starts, and the depth of a replaced subtree.
        let (mut copied, mut skipping) = (0usize, None::<usize>);
        for (i, b) in text.bytes().enumerate() {
            if in_str {
                match (escaped, b) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => in_str = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => in_str = true,
                b'[' | b'{' => {
                    depth += 1;
                    if depth == max + 1 && skipping.is_none() {
                        let o = out.get_or_insert_with(String::new);
                        o.push_str(&text[copied..i]);
                        o.push_str(&quote(marker));
                        skipping = Some(depth);
                        dropped += 1;
                    }
                }
                b']' | b'}' => {
                    if skipping == Some(depth) {
                        skipping = None;
                        copied = i + 1;
                    }
                    depth = depth.saturating_sub(1);
                }
                _ => {}
            }
        }
        let mut out = out?;
        out.push_str(&text[copied..]);
        // Still one JSON value: each cut is a whole array or object, put back as a string.
        Json::from_text(&out).ok().map(|j| (j, dropped))
    }
    /// The raw JSON text, verbatim.
    pub fn text(&self) -> &str {
        self.0.get()
    }
    /// A typed reading of the text.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.text())
    }
    /// The value if it is a string; `None` for any other kind, `null` included.
    pub fn as_string(&self) -> Option<String> {
        super::visit::scalar(self.text()).and_then(super::visit::Scalar::str).map(std::borrow::Cow::into_owned)
    }
    /// The value as a tree (tests, the host, diagnostics; not the client's hot path).
    pub fn value(&self) -> Value {
        self.parse().unwrap_or(Value::Null)
    }
    /// Whether the value is the JSON `null`.
    pub fn is_null(&self) -> bool {
        self.text() == "null"
    }
}

impl Default for Json {
    fn default() -> Self {
        Json::null()
    }
}

impl PartialEq for Json {
    fn eq(&self, other: &Json) -> bool {
        self.text() == other.text()
    }
}

impl std::fmt::Debug for Json {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.text())
    }
}

impl From<Value> for Json {
    fn from(v: Value) -> Json {
        Json::from_value(&v)
    }
}

impl From<&Value> for Json {
    fn from(v: &Value) -> Json {
        Json::from_value(v)
    }
}

/// `#[serde(deserialize_with)]` for an optional field where a present `null` must stay a
/// value (`Some(null)`), distinct from a missing field (`None`).
pub fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Json>, D::Error> {
    Json::deserialize(d).map(Some)
}

/// `s` as a JSON string literal, quotes and escapes included.
pub fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_kept_verbatim_and_null_stays_distinct_from_missing() {
        #[derive(Deserialize)]
        struct R {
            #[serde(default, deserialize_with = "present")]
            value: Option<Json>,
        }
        let r: R = serde_json::from_str(r#"{"value":null}"#).unwrap();
        assert!(r.value.unwrap().is_null());
        let r: R = serde_json::from_str(r#"{}"#).unwrap();
        assert!(r.value.is_none());
        let j = Json::from_text(r#" {"b":1,"a":[2]} "#).unwrap();
        assert_eq!(j.text(), r#"{"b":1,"a":[2]}"#);
        assert!(Json::from_text("{").is_err());
    }

    #[test]
    fn values_nested_past_the_bound_are_replaced_and_counted_at_any_depth() {
        let j = Json::from_text(r#"{"a":[[1,"]"],{"b":{}}],"c":["[{"],"d":{"e":[]}}"#).unwrap();
        assert!(j.bounded(4, "cut").is_none(), "nothing deeper than 4");
        let (cut, n) = j.bounded(2, "cut").unwrap();
        assert_eq!((cut.text(), n), (r#"{"a":["cut","cut"],"c":["[{"],"d":{"e":"cut"}}"#, 3));
        let (cut, n) = j.bounded(1, "cut").unwrap();
        assert_eq!((cut.text(), n), (r#"{"a":"cut","c":"cut","d":"cut"}"#, 3));
        let deep = format!("{}\"\\ud800\"{}", "[".repeat(100_000), "]".repeat(100_000));
        let (cut, n) = Json::from_text(&deep).unwrap().bounded(2, "cut").unwrap();
        assert_eq!((cut.text(), n), (r#"[["cut"]]"#, 1));
        let (cut, _) = Json::from_text(r#"[{"k":"\"["}]"#).unwrap().bounded(0, "cut").unwrap();
        assert_eq!(cut.text(), r#""cut""#);
    }

    #[test]
    fn from_text_takes_exactly_one_value_and_nothing_around_it() {
        assert_eq!(Json::from_text(" \"a\\\"b\" ").unwrap().text(), r#""a\"b""#);
        assert_eq!(Json::from_text("null").unwrap(), Json::null());
        assert_eq!(Json::from_text("\t\r\n 1 \n").unwrap().text(), "1", "JSON's whitespace around it goes");
        for bad in ["", " ", "1,2", "1] , [2", "]", "[1", "{} x", "tru", "'a'"] {
            assert!(Json::from_text(bad).is_err(), "{bad:?}");
        }
    }
}
