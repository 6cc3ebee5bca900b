//! Reading wire JSON on the client without per-type serde code.
//!
//! Why: a `#[derive(Deserialize)]` per wire type, instantiated over serde_json's parser, was
//! most of the wasm (≈170 KB of a 540 KB module: one visitor state machine per type, each with
//! the parser inlined). Here serde_json is used for exactly three generic jobs — split one
//! object into `(key, raw value)` members, split one array into raw items, unescape a
//! string — and every wire type reads its fields by name from an [`Obj`]. serde_json still
//! validates every byte (a raw member is only ever a complete, valid JSON value), so a
//! [`Json`] read from here is safe to hand to `JSON.parse`.
//!
//! Rules match what the derives did: unknown members are ignored, a repeated member is an
//! error, a missing `Option` member and a `null` one both read as `None` unless a reader
//! asks for the value as present ([`Obj::present`]).

use super::json::Json;
use super::visit::{scalar, Scalar};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// Why a value did not read: what was wrong ([`ReadErrorKind`]) and where (the member path,
/// `a.b[2].c`, empty for the whole text), with the context of the reading that failed
/// (`bad envelope`, …) when there is one.
///
/// Boxed: a reader's `Result` stays a word or two wide and its error paths one call (a wide
/// error, moved through every `?` of every reader, was ~20 KB of wasm).
#[derive(Debug, Clone, PartialEq)]
pub struct ReadError(Box<ReadErrorData>);

/// What a [`ReadError`] holds (behind its box).
#[derive(Debug, Clone, PartialEq)]
pub struct ReadErrorData {
    /// What was wrong.
    pub kind: ReadErrorKind,
    /// Where: the member path (`a.b[2].c`), empty for the whole text.
    pub path: String,
    /// The reading that failed (`bad envelope`, ...), when one was named.
    pub context: Option<&'static str>,
}

impl std::ops::Deref for ReadError {
    type Target = ReadErrorData;
    fn deref(&self) -> &ReadErrorData {
        &self.0
    }
}

/// What was wrong with a value that did not read.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadErrorKind {
    /// Not JSON, or not the kind of container expected (serde_json's message).
    Syntax(String),
    /// A required member is missing.
    Missing,
    /// A member of the wrong JSON type; what was expected.
    WrongType(&'static str),
    /// A member appears twice in one object.
    Duplicate,
    /// A string that is none of the enum's wire names.
    UnknownVariant {
        /// The string found.
        found: String,
        /// The enum's wire names.
        expected: &'static [&'static str],
    },
    /// A rule across members or values (e.g. a page that is not contiguous).
    Invalid(String),
}

impl ReadError {
    /// An error of `kind` at member path `path`.
    #[cold]
    #[inline(never)]
    pub fn new(kind: ReadErrorKind, path: impl Into<String>) -> ReadError {
        ReadError(Box::new(ReadErrorData { kind, path: path.into(), context: None }))
    }
    /// Required member `name` is missing.
    #[cold]
    #[inline(never)]
    pub fn missing(name: &str) -> ReadError {
        ReadError::new(ReadErrorKind::Missing, name)
    }
    /// Member `name` is not `what` (`"a string"`, `"an array"`, ...).
    #[cold]
    #[inline(never)]
    pub fn expected(name: &str, what: &'static str) -> ReadError {
        ReadError::new(ReadErrorKind::WrongType(what), name)
    }
    /// Member `name` holds `found`, none of the `expected` wire names.
    #[cold]
    #[inline(never)]
    pub fn unknown_variant(name: &str, found: &str, expected: &'static [&'static str]) -> ReadError {
        ReadError::new(ReadErrorKind::UnknownVariant { found: found.to_string(), expected }, name)
    }
    /// A broken rule of the whole value (no member path).
    #[cold]
    #[inline(never)]
    pub fn invalid(reason: impl Into<String>) -> ReadError {
        ReadError::new(ReadErrorKind::Invalid(reason.into()), "")
    }
    /// The same error, said of the reading `context` (`bad envelope: …`).
    pub fn context(mut self, context: &'static str) -> ReadError {
        self.0.context = Some(context);
        self
    }
    /// The same error inside member `name` (`name.path`, `name[i]…`).
    #[cold]
    #[inline(never)]
    pub fn inside(mut self, name: &str) -> ReadError {
        self.0.path = match self.path.as_str() {
            "" => name.to_string(),
            p if p.starts_with('[') => format!("{name}{p}"),
            p => format!("{name}.{p}"),
        };
        self
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(c) = self.context {
            write!(f, "{c}: ")?;
        }
        let path = &self.path;
        match &self.kind {
            ReadErrorKind::Missing => write!(f, "missing field `{path}`"),
            ReadErrorKind::Duplicate => write!(f, "duplicate field `{path}`"),
            ReadErrorKind::WrongType(what) => write!(f, "`{path}`: expected {what}"),
            ReadErrorKind::UnknownVariant { found, expected } => {
                write!(f, "`{path}`: unknown variant `{found}`, expected one of ")?;
                let mut sep = "";
                for name in *expected {
                    f.write_str(sep)?;
                    f.write_str(name)?;
                    sep = ", ";
                }
                Ok(())
            }
            ReadErrorKind::Syntax(m) | ReadErrorKind::Invalid(m) if path.is_empty() => f.write_str(m),
            ReadErrorKind::Syntax(m) | ReadErrorKind::Invalid(m) => write!(f, "`{path}`: {m}"),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<ReadError> for String {
    fn from(e: ReadError) -> String {
        e.to_string()
    }
}

/// A reading's result.
pub type ReadResult<T> = Result<T, ReadError>;

fn syntax(e: serde_json::Error) -> ReadError {
    ReadError::new(ReadErrorKind::Syntax(e.to_string()), "")
}

fn expected(name: &str, what: &'static str) -> ReadError {
    ReadError::expected(name, what)
}

/// A wire type that reads itself from one JSON object.
pub trait FromObj: Sized {
    /// Reads `Self` from the members of one object.
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self>;
}

/// Reads a whole text as `T`.
pub fn read<T: FromObj>(text: &str) -> ReadResult<T> {
    T::from_obj(&Obj::parse(text)?)
}

/// One JSON object's members, values still raw (borrowed from the text).
pub struct Obj<'a> {
    members: Vec<(Cow<'a, str>, &'a RawValue)>,
}

/// The readers are never inlined: one call per field keeps each type's reader a few
/// instructions per member (inlined, they were ~35 KB of wasm); the hot frame does not come
/// through here (the `agent-session-onepass` crate).
impl<'a> Obj<'a> {
    /// Splits `text` (exactly one JSON object) into its members.
    #[inline(never)]
    pub fn parse(text: &'a str) -> ReadResult<Obj<'a>> {
        let mut repeated = None;
        let members = super::visit::members(text, &mut repeated).map_err(|e| match repeated.take() {
            Some(key) => ReadError::new(ReadErrorKind::Duplicate, key),
            None => syntax(e),
        })?;
        Ok(Obj { members })
    }

    /// The raw value of member `name`, if present (`null` included).
    #[inline(never)]
    pub fn raw(&self, name: &str) -> Option<&'a RawValue> {
        self.members.iter().find(|(k, _)| k == name).map(|(_, v)| *v)
    }

    /// Every member in text order (maps keyed by data, e.g. projection baselines).
    pub fn members(&self) -> impl Iterator<Item = (&str, &'a RawValue)> + '_ {
        self.members.iter().map(|(k, v)| (&**k, *v))
    }

    /// The member, with `null` read as absent.
    fn non_null(&self, name: &str) -> Option<&'a RawValue> {
        present(self.raw(name))
    }

    fn required(&self, name: &str) -> ReadResult<&'a RawValue> {
        self.raw(name).ok_or_else(|| ReadError::missing(name))
    }

    /// A required string member, unescaped.
    #[inline(never)]
    pub fn str(&self, name: &str) -> ReadResult<String> {
        as_str(self.required(name)?).ok_or_else(|| expected(name, "a string"))
    }
    /// An optional string member (`null` reads as `None`).
    #[inline(never)]
    pub fn opt_str(&self, name: &str) -> ReadResult<Option<String>> {
        self.non_null(name).map(|v| as_str(v).ok_or_else(|| expected(name, "a string"))).transpose()
    }
    /// The string without copying it when it has no escapes (tags compared, not kept).
    #[inline(never)]
    pub fn str_ref(&self, name: &str) -> ReadResult<Cow<'a, str>> {
        as_cow(self.required(name)?).ok_or_else(|| expected(name, "a string"))
    }

    /// A required boolean member.
    #[inline(never)]
    pub fn bool(&self, name: &str) -> ReadResult<bool> {
        as_bool(self.required(name)?).ok_or_else(|| expected(name, "a boolean"))
    }
    /// An optional boolean member.
    #[inline(never)]
    pub fn opt_bool(&self, name: &str) -> ReadResult<Option<bool>> {
        self.non_null(name).map(|v| as_bool(v).ok_or_else(|| expected(name, "a boolean"))).transpose()
    }

    /// A required integer member in `u64` range.
    #[inline(never)]
    pub fn u64(&self, name: &str) -> ReadResult<u64> {
        as_u64(self.required(name)?).ok_or_else(|| expected(name, "an unsigned integer"))
    }
    /// An optional integer member in `u64` range.
    #[inline(never)]
    pub fn opt_u64(&self, name: &str) -> ReadResult<Option<u64>> {
        self.non_null(name).map(|v| as_u64(v).ok_or_else(|| expected(name, "an unsigned integer"))).transpose()
    }
    /// A required integer member in `i64` range.
    #[inline(never)]
    pub fn i64(&self, name: &str) -> ReadResult<i64> {
        as_i64(self.required(name)?).ok_or_else(|| expected(name, "an integer"))
    }
    /// An optional integer member in `i64` range.
    #[inline(never)]
    pub fn opt_i64(&self, name: &str) -> ReadResult<Option<i64>> {
        self.non_null(name).map(|v| as_i64(v).ok_or_else(|| expected(name, "an integer"))).transpose()
    }
    /// A required number member.
    #[inline(never)]
    pub fn f64(&self, name: &str) -> ReadResult<f64> {
        as_f64(self.required(name)?).ok_or_else(|| expected(name, "a number"))
    }
    /// An optional number member.
    #[inline(never)]
    pub fn opt_f64(&self, name: &str) -> ReadResult<Option<f64>> {
        self.non_null(name).map(|v| as_f64(v).ok_or_else(|| expected(name, "a number"))).transpose()
    }

    /// The member as raw JSON; missing reads as `null`.
    #[inline(never)]
    pub fn json(&self, name: &str) -> Json {
        self.raw(name).map_or_else(Json::null, Json::from_raw)
    }
    /// The member as raw JSON; missing and `null` read as `None`.
    #[inline(never)]
    pub fn opt_json(&self, name: &str) -> Option<Json> {
        self.non_null(name).map(Json::from_raw)
    }
    /// The member as raw JSON when present; a present `null` stays `Some(null)`.
    #[inline(never)]
    pub fn present(&self, name: &str) -> Option<Json> {
        self.raw(name).map(Json::from_raw)
    }

    /// A nested object read as `T`.
    pub fn field<T: FromObj>(&self, name: &str) -> ReadResult<T> {
        nested(name, self.required(name)?)
    }
    /// A nested object read as `T`; missing and `null` read as `None`.
    pub fn opt_field<T: FromObj>(&self, name: &str) -> ReadResult<Option<T>> {
        self.non_null(name).map(|v| nested(name, v)).transpose()
    }

    /// An array member, each item read by `item`.
    pub fn list<T>(&self, name: &str, item: impl Fn(&'a RawValue) -> Option<T>) -> ReadResult<Vec<T>> {
        list_of(name, self.required(name)?, &item)
    }
    /// An array member; missing and `null` read as `None`.
    pub fn opt_list<T>(&self, name: &str, item: impl Fn(&'a RawValue) -> Option<T>) -> ReadResult<Option<Vec<T>>> {
        self.non_null(name).map(|v| list_of(name, v, &item)).transpose()
    }
    /// An array of objects read as `T`.
    pub fn objects<T: FromObj>(&self, name: &str) -> ReadResult<Vec<T>> {
        objects_of(name, self.required(name)?.get())
    }
    /// An array of objects; missing and `null` read as `None`.
    pub fn opt_objects<T: FromObj>(&self, name: &str) -> ReadResult<Option<Vec<T>>> {
        self.non_null(name).map(|v| objects_of(name, v.get())).transpose()
    }

    /// A string member that must be one of `names`; its index.
    #[inline(never)]
    pub fn one_of(&self, name: &str, names: &'static [&'static str]) -> ReadResult<usize> {
        let s = self.str_ref(name)?;
        names.iter().position(|n| *n == s).ok_or_else(|| ReadError::unknown_variant(name, &s, names))
    }
}

fn nested<T: FromObj>(name: &str, v: &RawValue) -> ReadResult<T> {
    let mut out = None;
    in_object(name, v.get(), &mut |o| T::from_obj(o).map(|t| out = Some(t)))?;
    out.ok_or_else(|| expected(name, "an object"))
}

/// [`nested`]'s work, not generic: one copy for every record type.
fn in_object(name: &str, text: &str, read: &mut dyn FnMut(&Obj<'_>) -> ReadResult<()>) -> ReadResult<()> {
    let o = Obj::parse(text).map_err(|_| expected(name, "an object"))?;
    read(&o).map_err(|e| e.inside(name))
}

/// A plain loop, not `collect::<Result<..>>()`: that adapter was one more copy of code per
/// item type, and the item's path (`name[i]`) is only formatted for an error.
fn objects_of<T: FromObj>(name: &str, text: &str) -> ReadResult<Vec<T>> {
    let mut out = Vec::new();
    each_object(name, text, &mut |o| T::from_obj(o).map(|t| out.push(t)))?;
    Ok(out)
}

/// [`objects_of`]'s work, not generic: splits the array and calls `read` on each object.
fn each_object(name: &str, text: &str, read: &mut dyn FnMut(&Obj<'_>) -> ReadResult<()>) -> ReadResult<()> {
    let items = items(text).map_err(|_| expected(name, "an array"))?;
    for (i, item) in items.into_iter().enumerate() {
        let at = |e: ReadError| e.inside(&format!("[{i}]")).inside(name);
        let o = Obj::parse(item.get()).map_err(|_| at(expected("", "an object")))?;
        read(&o).map_err(at)?;
    }
    Ok(())
}

/// A raw value with `null` read as absent: the rule of every optional member, on the general
/// and the one-pass readers alike.
pub fn present(v: Option<&RawValue>) -> Option<&RawValue> {
    v.filter(|v| v.get() != "null")
}

/// Member `name`'s array `v`, each item read by `item`; an item it refuses fails the whole list.
pub fn list_of<'a, T>(name: &str, v: &'a RawValue, item: &dyn Fn(&'a RawValue) -> Option<T>) -> ReadResult<Vec<T>> {
    let items = items(v.get()).map_err(|_| expected(name, "an array"))?;
    let mut out = Vec::with_capacity(items.len());
    for (i, v) in items.into_iter().enumerate() {
        out.push(item(v).ok_or_else(|| ReadError::expected(&format!("{name}[{i}]"), "another type"))?);
    }
    Ok(out)
}

/// Reads a whole text that is an array of objects, each as `T`.
pub fn read_objects<T: FromObj>(text: &str) -> ReadResult<Vec<T>> {
    objects_of("items", text)
}

/// Splits `text` (exactly one JSON array) into its raw items.
pub fn items(text: &str) -> ReadResult<Vec<&RawValue>> {
    super::visit::items(text).map_err(syntax)
}

/// A string value, unescaped; `None` for any other kind of value.
pub fn as_str(v: &RawValue) -> Option<String> {
    as_cow(v).map(Cow::into_owned)
}

/// A string value, borrowed when it has no escapes.
pub fn as_cow(v: &RawValue) -> Option<Cow<'_, str>> {
    let t = v.get();
    let inner = t.strip_prefix('"')?.strip_suffix('"')?;
    if !inner.contains('\\') {
        // Valid JSON (checked when the member was split off) without escapes: the text between
        // the quotes is the string.
        return Some(Cow::Borrowed(inner));
    }
    scalar(t).and_then(Scalar::str)
}

/// A JSON boolean.
pub fn as_bool(v: &RawValue) -> Option<bool> {
    match v.get() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// A JSON integer in `u64` range.
pub fn as_u64(v: &RawValue) -> Option<u64> {
    v.get().parse().ok()
}

/// A JSON integer in `i64` range.
pub fn as_i64(v: &RawValue) -> Option<i64> {
    v.get().parse().ok()
}

/// A JSON number (integers included), read by serde_json (whose tables are a fraction of
/// `str::parse::<f64>`'s); out-of-range magnitudes are refused.
pub fn as_f64(v: &RawValue) -> Option<f64> {
    scalar(v.get()).and_then(Scalar::f64)
}

pub use super::visit::Text;

/// Test helper: the value `text` reads as, if it reads.
#[cfg(test)]
pub(crate) fn reads<T: FromObj>(text: &str) -> Option<T> {
    read(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Probe {
        s: String,
        n: u64,
        opt: Option<String>,
        present: Option<Json>,
    }

    impl FromObj for Probe {
        fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
            Ok(Probe { s: o.str("s")?, n: o.u64("n")?, opt: o.opt_str("opt")?, present: o.present("p") })
        }
    }

    #[test]
    fn members_read_by_name_with_escapes_and_unknown_members_ignored() {
        let p: Probe = read(r#"{"x":[1,{"y":2}],"s":"a\"\u00e9","n":7,"opt":null,"p":null}"#).unwrap();
        assert_eq!((p.s.as_str(), p.n, p.opt), ("a\"é", 7, None));
        assert!(p.present.unwrap().is_null(), "a present null stays a value");
        let p: Probe = read(r#"{"s":"","n":0}"#).unwrap();
        assert!(p.present.is_none());
    }

    #[test]
    fn wrong_types_missing_and_repeated_members_are_errors_that_name_the_member() {
        let e = read::<Probe>(r#"{"s":1,"n":0}"#).err().unwrap();
        assert_eq!((&e.kind, e.path.as_str()), (&ReadErrorKind::WrongType("a string"), "s"));
        assert_eq!(e.to_string(), "`s`: expected a string");
        let e = read::<Probe>(r#"{"s":"a"}"#).err().unwrap();
        assert_eq!((&e.kind, e.to_string().as_str()), (&ReadErrorKind::Missing, "missing field `n`"));
        assert!(read::<Probe>(r#"{"s":"a","n":-1}"#).is_err());
        assert!(read::<Probe>(r#"{"s":"a","n":1.5}"#).is_err());
        let e = read::<Probe>(r#"{"s":"a","n":1,"n":2}"#).err().unwrap();
        assert_eq!((&e.kind, e.path.as_str()), (&ReadErrorKind::Duplicate, "n"));
        assert!(matches!(read::<Probe>("{").err().unwrap().kind, ReadErrorKind::Syntax(_)));
        assert!(read::<Probe>(r#"{"s":"a","n":1} x"#).is_err(), "trailing text");
        assert!(read::<Probe>(r#"{"s":"a","n":1,"z":[}"#).is_err(), "every byte is validated");
        assert!(read::<Probe>("[]").is_err());
    }

    #[test]
    fn an_unknown_variant_names_the_ones_known() {
        let e = ReadError::unknown_variant("mode", "x", &["queue", "steer"]);
        assert_eq!(e.to_string(), "`mode`: unknown variant `x`, expected one of queue, steer");
    }

    #[test]
    fn numbers_read_like_serde() {
        let raw = |t: &str| -> Box<RawValue> { RawValue::from_string(t.to_string()).unwrap() };
        assert_eq!(as_u64(&raw("-1")), None);
        assert_eq!(as_u64(&raw("18446744073709551615")), Some(u64::MAX));
        assert_eq!(as_u64(&raw("1e2")), None);
        assert_eq!(as_i64(&raw("-1")), Some(-1));
        assert_eq!(as_f64(&raw("1795991061849")), Some(1795991061849.0));
        assert_eq!(as_f64(&raw("-1.5e1")), Some(-15.0));
        assert_eq!(as_f64(&raw("1e400")), None);
        assert_eq!(as_f64(&raw("\"1\"")), None);
    }

    #[test]
    fn nested_errors_carry_their_path() {
        struct Outer(#[allow(dead_code)] Vec<Probe>);
        impl FromObj for Outer {
            fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
                o.objects("items").map(Outer)
            }
        }
        let e = read::<Outer>(r#"{"items":[{"s":"a","n":1},{"s":"b"}]}"#).err().unwrap();
        assert_eq!((&e.kind, e.path.as_str()), (&ReadErrorKind::Missing, "items[1].n"));
        let e = read::<Outer>(r#"{"items":[{"s":"a","n":1},3]}"#).err().unwrap();
        assert_eq!(e.to_string(), "`items[1]`: expected an object");
        let e: &dyn std::error::Error = &e;
        assert!(e.source().is_none());
    }
}
