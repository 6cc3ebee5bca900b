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
use std::borrow::Cow;
use std::fmt;

/// A reader of the JSON kinds it overrides; every other kind is refused as "expected
/// [`Kinds::WHAT`]".
pub(crate) trait Kinds<'de>: Sized {
    type Value;
    /// What it reads, for its refusal ("an object").
    const WHAT: &'static str;
    fn map<A: MapAccess<'de>>(self, _map: A) -> Result<Self::Value, A::Error> {
        Err(refused(Self::WHAT))
    }
    fn seq<A: SeqAccess<'de>>(self, _seq: A) -> Result<Self::Value, A::Error> {
        Err(refused(Self::WHAT))
    }
    /// A string, borrowed from the text when it has no escapes.
    fn str<E: Error>(self, _s: Cow<'de, str>) -> Result<Self::Value, E> {
        Err(refused(Self::WHAT))
    }
    fn u64<E: Error>(self, _n: u64) -> Result<Self::Value, E> {
        Err(refused(Self::WHAT))
    }
    fn i64<E: Error>(self, _n: i64) -> Result<Self::Value, E> {
        Err(refused(Self::WHAT))
    }
    fn f64<E: Error>(self, _n: f64) -> Result<Self::Value, E> {
        Err(refused(Self::WHAT))
    }
    fn bool<E: Error>(self, _b: bool) -> Result<Self::Value, E> {
        Err(refused(Self::WHAT))
    }
    fn null<E: Error>(self) -> Result<Self::Value, E> {
        Err(refused(Self::WHAT))
    }
}

#[cold]
#[inline(never)]
fn refused<E: Error>(what: &'static str) -> E {
    E::custom(format_args!("expected {what}"))
}

/// Reads one value with `K` through `deserialize_any` (a seed: `map.next_value_seed(Any(k))`).
pub(crate) struct Any<K>(pub K);

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
        f.write_str(K::WHAT)
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
pub(crate) fn whole<'de, K: Kinds<'de>>(text: &'de str, k: K) -> Result<K::Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let v = Any(k).deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// A string (the one string reader of the wire readers).
pub(crate) struct Str;

impl<'de> Kinds<'de> for Str {
    type Value = Cow<'de, str>;
    const WHAT: &'static str = "a string";
    fn str<E: Error>(self, s: Cow<'de, str>) -> Result<Self::Value, E> {
        Ok(s)
    }
}

/// A string or `null` (`None`).
pub(crate) struct OptStr;

impl<'de> Kinds<'de> for OptStr {
    type Value = Option<Cow<'de, str>>;
    const WHAT: &'static str = "a string or null";
    fn str<E: Error>(self, s: Cow<'de, str>) -> Result<Self::Value, E> {
        Ok(Some(s))
    }
    fn null<E: Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// An integer in `u64` range (`1.0` and `1e2` are not: serde's rule).
pub(crate) struct U64;

impl<'de> Kinds<'de> for U64 {
    type Value = u64;
    const WHAT: &'static str = "an unsigned integer";
    fn u64<E: Error>(self, n: u64) -> Result<u64, E> {
        Ok(n)
    }
}

/// Any JSON number as `f64` (integers converted, as serde's `f64` reads them).
pub(crate) struct F64;

impl<'de> Kinds<'de> for F64 {
    type Value = f64;
    const WHAT: &'static str = "a number";
    fn u64<E: Error>(self, n: u64) -> Result<f64, E> {
        Ok(n as f64)
    }
    fn i64<E: Error>(self, n: i64) -> Result<f64, E> {
        Ok(n as f64)
    }
    fn f64<E: Error>(self, n: f64) -> Result<f64, E> {
        Ok(n)
    }
}

pub(crate) struct Bool;

impl<'de> Kinds<'de> for Bool {
    type Value = bool;
    const WHAT: &'static str = "a boolean";
    fn bool<E: Error>(self, b: bool) -> Result<bool, E> {
        Ok(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reader_takes_its_kinds_and_refuses_the_rest_with_a_position() {
        assert_eq!(whole(r#" "a\"b" "#, Str).unwrap(), "a\"b");
        assert!(matches!(whole(r#""ab""#, Str).unwrap(), Cow::Borrowed("ab")), "borrowed without escapes");
        assert_eq!(whole("null", OptStr).unwrap(), None);
        assert_eq!(whole("18446744073709551615", U64).unwrap(), u64::MAX);
        assert_eq!(whole("-3", F64).unwrap(), -3.0);
        assert_eq!(whole("1.5e1", F64).unwrap(), 15.0);
        assert!(whole("true", Bool).unwrap());
        for (text, what) in [
            ("1", "a string"),
            ("-1", "an unsigned integer"),
            ("1.0", "an unsigned integer"),
            ("1e2", "an unsigned integer"),
        ] {
            let e = if what == "a string" { whole(text, Str).map(|_| ()) } else { whole(text, U64).map(|_| ()) }
                .unwrap_err();
            assert_eq!(e.to_string(), format!("expected {what} at line 1 column {}", text.len()), "{text}");
        }
        assert!(whole("\"1\"", F64).is_err() && whole("1e400", F64).is_err() && whole("{}", Bool).is_err());
        assert!(whole("1 2", U64).is_err(), "trailing text");
    }
}
