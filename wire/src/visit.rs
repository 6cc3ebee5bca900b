//! Every serde reading of wire text goes through here: [`Any`] asks serde_json for *any*
//! value and hands the kind it finds to a [`Kinds`] reader, which takes the kinds it wants
//! and refuses the rest with its own message.
//!
//! Why: serde_json's typed entry points (`deserialize_map`, `_str`, `_u64`, …) and serde's
//! default visitor methods report a mismatch as `invalid_type(Unexpected, …)`, and that
//! message can format a float (`Unexpected::Float`). That one error path linked core's
//! float formatting, ~10 KB of the gzipped package. `deserialize_any` never reports a
//! mismatch itself, and [`Any`] answers every kind it can report, so the path is never
//! built; `scripts/size.mjs` fails if float formatting comes back into the package.
//! serde_json still validates every byte and adds the position to the refusal.

use serde::de::{DeserializeSeed, Deserializer, Error, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// A reader of the JSON kinds it overrides; every other kind is refused as "expected
/// [`Kinds::what`]".
pub trait Kinds<'de>: Sized {
    /// What a successful reading gives.
    type Value;
    /// What it reads, for its refusal ("an object").
    fn what(&self) -> &'static str;
    /// An object; refused unless overridden.
    fn map<A: MapAccess<'de>>(self, _map: A) -> Result<Self::Value, A::Error> {
        Err(refused(self.what()))
    }
    /// An array; refused unless overridden.
    fn seq<A: SeqAccess<'de>>(self, _seq: A) -> Result<Self::Value, A::Error> {
        Err(refused(self.what()))
    }
    /// A string, borrowed from the text when it has no escapes.
    fn str<E: Error>(self, _s: Cow<'de, str>) -> Result<Self::Value, E> {
        Err(refused(self.what()))
    }
    /// A non-negative integer; refused unless overridden.
    fn u64<E: Error>(self, _n: u64) -> Result<Self::Value, E> {
        Err(refused(self.what()))
    }
    /// A negative integer; refused unless overridden.
    fn i64<E: Error>(self, _n: i64) -> Result<Self::Value, E> {
        Err(refused(self.what()))
    }
    /// A number with a fraction or exponent; refused unless overridden.
    fn f64<E: Error>(self, _n: f64) -> Result<Self::Value, E> {
        Err(refused(self.what()))
    }
    /// A boolean; refused unless overridden.
    fn bool<E: Error>(self, _b: bool) -> Result<Self::Value, E> {
        Err(refused(self.what()))
    }
    /// `null`; refused unless overridden.
    fn null<E: Error>(self) -> Result<Self::Value, E> {
        Err(refused(self.what()))
    }
}

#[cold]
#[inline(never)]
fn refused<E: Error>(what: &'static str) -> E {
    E::custom(format_args!("expected {what}"))
}

/// Reads one value with `K` through `deserialize_any` (a seed: `map.next_value_seed(Any(k))`).
pub struct Any<K>(pub K);

impl<'de, K: Kinds<'de>> DeserializeSeed<'de> for Any<K> {
    type Value = K::Value;
    /// Never inlined: one copy per reader serves every path that reaches it.
    #[inline(never)]
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<K::Value, D::Error> {
        d.deserialize_any(self)
    }
}

/// Every kind `deserialize_any` reports on serde_json, handed to `K`.
impl<'de, K: Kinds<'de>> Visitor<'de> for Any<K> {
    type Value = K::Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.0.what())
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<K::Value, A::Error> {
        self.0.map(map)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<K::Value, A::Error> {
        self.0.seq(seq)
    }
    fn visit_borrowed_str<E: Error>(self, s: &'de str) -> Result<K::Value, E> {
        self.0.str(Cow::Borrowed(s))
    }
    fn visit_str<E: Error>(self, s: &str) -> Result<K::Value, E> {
        self.0.str(Cow::Owned(s.to_owned()))
    }
    fn visit_u64<E: Error>(self, n: u64) -> Result<K::Value, E> {
        self.0.u64(n)
    }
    fn visit_i64<E: Error>(self, n: i64) -> Result<K::Value, E> {
        self.0.i64(n)
    }
    fn visit_f64<E: Error>(self, n: f64) -> Result<K::Value, E> {
        self.0.f64(n)
    }
    fn visit_bool<E: Error>(self, b: bool) -> Result<K::Value, E> {
        self.0.bool(b)
    }
    fn visit_unit<E: Error>(self) -> Result<K::Value, E> {
        self.0.null()
    }
}

/// Reads all of `text` (one value, nothing after it but whitespace) with `K`.
pub fn whole<'de, K: Kinds<'de>>(text: &'de str, k: K) -> Result<K::Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let v = Any(k).deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// A string: the reader of member keys ([`Text`]).
pub struct Str;

impl<'de> Kinds<'de> for Str {
    type Value = Cow<'de, str>;
    fn what(&self) -> &'static str {
        "a string"
    }
    fn str<E: Error>(self, s: Cow<'de, str>) -> Result<Self::Value, E> {
        Ok(s)
    }
}

/// A string (a key, a tag) borrowed from the text when it has no escapes, owned otherwise.
pub struct Text<'de>(pub Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Any(Str).deserialize(d).map(Text)
    }
}

/// Any JSON value but an object or array. Every leaf value (a tag, a number, a flag) is read
/// as one and then taken as the kind wanted: one `deserialize_any` instance serves them all
/// (one per kind was ~1.3 KB of wasm each).
#[derive(Debug, PartialEq)]
pub enum Scalar<'de> {
    /// A string, borrowed when it has no escapes.
    Str(Cow<'de, str>),
    /// A non-negative integer.
    U64(u64),
    /// A negative integer.
    I64(i64),
    /// A number with a fraction or exponent.
    F64(f64),
    /// A boolean.
    Bool(bool),
    /// `null`.
    Null,
}

impl<'de> Scalar<'de> {
    /// A string.
    pub fn str(self) -> Option<Cow<'de, str>> {
        match self {
            Scalar::Str(s) => Some(s),
            _ => None,
        }
    }
    /// A string, or `null` as `Some(None)`.
    pub fn opt_str(self) -> Option<Option<Cow<'de, str>>> {
        match self {
            Scalar::Null => Some(None),
            s => s.str().map(Some),
        }
    }
    /// An integer in `u64` range (`1.0` and `1e2` are not: serde's rule).
    pub fn u64(self) -> Option<u64> {
        match self {
            Scalar::U64(n) => Some(n),
            _ => None,
        }
    }
    /// Any number as `f64` (integers converted, as serde's `f64` reads them).
    pub fn f64(self) -> Option<f64> {
        match self {
            Scalar::U64(n) => Some(n as f64),
            Scalar::I64(n) => Some(n as f64),
            Scalar::F64(n) => Some(n),
            _ => None,
        }
    }
    /// A boolean.
    pub fn bool(self) -> Option<bool> {
        match self {
            Scalar::Bool(b) => Some(b),
            _ => None,
        }
    }
}

/// The general reader's three shapes (an object's members, an array's items, a leaf value)
/// in one reader type: one `deserialize_any` instance serves them all (one per shape was
/// ~1.2 KB of wasm each).
pub(crate) enum Shape<'r> {
    /// An object; a repeated key is kept in the slot (the error's kind).
    Members(&'r mut Option<String>),
    Items,
    Leaf,
}

/// What a [`Shape`] read.
pub(crate) enum Parts<'de> {
    Members(Vec<(Cow<'de, str>, &'de RawValue)>),
    Items(Vec<&'de RawValue>),
    Leaf(Scalar<'de>),
}

impl<'de> Kinds<'de> for Shape<'_> {
    type Value = Parts<'de>;
    fn what(&self) -> &'static str {
        match self {
            Shape::Members(_) => "an object",
            Shape::Items => "an array",
            Shape::Leaf => "a string, number, boolean or null",
        }
    }
    fn map<A: MapAccess<'de>>(self, mut map: A) -> Result<Parts<'de>, A::Error> {
        let Shape::Members(repeated) = self else { return Err(refused(self.what())) };
        let mut members: Vec<(Cow<'de, str>, &'de RawValue)> = Vec::new();
        while let Some(Text(key)) = map.next_key()? {
            if members.iter().any(|(k, _)| *k == key) {
                let e = Error::custom(format_args!("duplicate field `{key}`"));
                *repeated = Some(key.into_owned());
                return Err(e);
            }
            members.push((key, map.next_value()?));
        }
        Ok(Parts::Members(members))
    }
    fn seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Parts<'de>, A::Error> {
        let Shape::Items = self else { return Err(refused(self.what())) };
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Parts::Items(items))
    }
    fn str<E: Error>(self, s: Cow<'de, str>) -> Result<Parts<'de>, E> {
        self.leaf(Scalar::Str(s))
    }
    fn u64<E: Error>(self, n: u64) -> Result<Parts<'de>, E> {
        self.leaf(Scalar::U64(n))
    }
    fn i64<E: Error>(self, n: i64) -> Result<Parts<'de>, E> {
        self.leaf(Scalar::I64(n))
    }
    fn f64<E: Error>(self, n: f64) -> Result<Parts<'de>, E> {
        self.leaf(Scalar::F64(n))
    }
    fn bool<E: Error>(self, b: bool) -> Result<Parts<'de>, E> {
        self.leaf(Scalar::Bool(b))
    }
    fn null<E: Error>(self) -> Result<Parts<'de>, E> {
        self.leaf(Scalar::Null)
    }
}

impl Shape<'_> {
    fn leaf<'de, E: Error>(self, v: Scalar<'de>) -> Result<Parts<'de>, E> {
        match self {
            Shape::Leaf => Ok(Parts::Leaf(v)),
            _ => Err(refused(self.what())),
        }
    }
}

/// All of `text` as one object's members (keys in text order, values raw); a repeated key is
/// refused and kept in `repeated`.
pub(crate) fn members<'de>(
    text: &'de str,
    repeated: &mut Option<String>,
) -> Result<Vec<(Cow<'de, str>, &'de RawValue)>, serde_json::Error> {
    match whole(text, Shape::Members(repeated))? {
        Parts::Members(m) => Ok(m),
        _ => unreachable!(), // a Members shape reads members
    }
}

/// All of `text` as one array's raw items.
pub(crate) fn items(text: &str) -> Result<Vec<&RawValue>, serde_json::Error> {
    match whole(text, Shape::Items)? {
        Parts::Items(i) => Ok(i),
        _ => unreachable!(), // an Items shape reads items
    }
}

/// The next member's value, taken as the kind `take` wants (`what` names it in the refusal).
pub fn leaf<'de, A: MapAccess<'de>, T>(
    map: &mut A,
    take: fn(Scalar<'de>) -> Option<T>,
    what: &'static str,
) -> Result<T, A::Error> {
    match map.next_value_seed(Any(Shape::Leaf))? {
        Parts::Leaf(v) => take(v).ok_or_else(|| refused(what)),
        _ => unreachable!(), // a Leaf shape reads a leaf
    }
}

/// The next member's value as a string.
pub fn text<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Cow<'de, str>, A::Error> {
    leaf(map, Scalar::str, "a string")
}

/// All of `text` as a scalar, or `None` when it is not one (or not JSON).
pub fn scalar(text: &str) -> Option<Scalar<'_>> {
    match whole(text, Shape::Leaf).ok()? {
        Parts::Leaf(v) => Some(v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scalar_reads_every_leaf_kind_and_is_taken_as_the_kind_wanted() {
        assert_eq!(scalar(r#" "a\"b" "#).and_then(Scalar::str).unwrap(), "a\"b");
        assert!(
            matches!(scalar(r#""ab""#).and_then(Scalar::str), Some(Cow::Borrowed("ab"))),
            "borrowed without escapes"
        );
        assert_eq!(scalar("null").and_then(Scalar::opt_str), Some(None));
        assert_eq!(scalar("3").and_then(Scalar::opt_str), None);
        assert_eq!(scalar("18446744073709551615").and_then(Scalar::u64), Some(u64::MAX));
        for not_u64 in ["-1", "1.0", "1e2", "\"1\""] {
            assert_eq!(scalar(not_u64).and_then(Scalar::u64), None, "{not_u64}");
        }
        assert_eq!(scalar("-3").and_then(Scalar::f64), Some(-3.0));
        assert_eq!(scalar("1.5e1").and_then(Scalar::f64), Some(15.0));
        assert_eq!(scalar("1e400"), None, "out of range");
        assert_eq!(scalar("true").and_then(Scalar::bool), Some(true));
        assert_eq!(scalar("{}"), None);
        assert_eq!(scalar("1 2"), None, "trailing text");
    }

    #[test]
    fn a_refusal_names_what_was_expected_and_where() {
        let e = whole("[1]", Str).unwrap_err();
        assert_eq!(e.to_string(), "expected a string at line 1 column 1");
        let e = whole(" {}", Shape::Leaf).err().unwrap();
        assert_eq!(e.to_string(), "expected a string, number, boolean or null at line 1 column 3");
        let e = whole("[1]", Shape::Members(&mut None)).err().unwrap();
        assert_eq!(e.to_string(), "expected an object at line 1 column 1");
        let e = whole("{}", Shape::Items).err().unwrap();
        assert_eq!(e.to_string(), "expected an array at line 1 column 2");
    }
}
