//! One field list per wire type: `record!` takes a struct with each member's wire name once
//! and generates the struct, its serde derives (the host writes and parses with them), its
//! [`FromObj`] (the client reads with it, see [`super::read`]) and its one-pass reading
//! `read_pass` (the client's hot texts, see [`super::pass`]); `wire_enum!` does the same for
//! string enums. Every reading follows from the same list, so adding a member is one line here
//! and no reading can drift from another.
//!
//! A member is `name: Type = [kind] "wireName"`; the kind says what a missing member means:
//!
//! - none: required (`Option<T>` still reads `null` as `None` but must be present in serde;
//!   use `opt`);
//! - `opt`: an `Option`, missing or `null` reads as `None`, and `None` is not written;
//! - `default`: missing reads as `Default::default()` (a present `null` is read as the type
//!   reads it: `Json` keeps it, a list refuses it, like serde's `default`);
//! - `default_with("path", path)`: the same with a default function (serde's spelling, then
//!   the path);
//! - `read_with(path, valid)`: required, read by `path(o, name)` instead of its type's
//!   [`Field`] (a bounded number such as a seq, see [`super::seq`]); the one-pass reading
//!   reads it as its type and refuses a value `valid(&v)` is false for; serde reads it as its
//!   type.
//! - `local` (no wire name): not a member at all: never read from the wire, never written
//!   (serde's `skip`); it reads as `Default::default()` and only the code that builds the value
//!   sets it (what the client knows of a value that the host must not be able to fake).
//!
//! How a value of each type reads is [`Field`]: strings, booleans, numbers, [`Json`] (raw;
//! required means present, `null` included), nested records, lists of records, wire enums
//! and `Option`s of those.

use super::json::Json;
use super::read::{as_f64, as_str, FromObj, Obj, ReadError, ReadErrorKind, ReadResult};
use serde_json::Value;

/// How a member of type `Self` reads from its object.
pub trait Field: Sized {
    /// Reads member `name` of `o` as `Self`.
    fn read(o: &Obj<'_>, name: &str) -> ReadResult<Self>;
}

macro_rules! field {
    ($t:ty, $req:ident, $opt:ident) => {
        impl Field for $t {
            fn read(o: &Obj<'_>, name: &str) -> ReadResult<Self> {
                o.$req(name)
            }
        }
        impl Field for Option<$t> {
            fn read(o: &Obj<'_>, name: &str) -> ReadResult<Self> {
                o.$opt(name)
            }
        }
    };
}

field!(String, str, opt_str);
field!(bool, bool, opt_bool);
field!(u64, u64, opt_u64);
field!(f64, f64, opt_f64);
field!(i64, i64, opt_i64);

/// Required: present (a `null` is the value `null`).
impl Field for Json {
    fn read(o: &Obj<'_>, name: &str) -> ReadResult<Self> {
        o.present(name).ok_or_else(|| ReadError::missing(name))
    }
}
impl Field for Option<Json> {
    fn read(o: &Obj<'_>, name: &str) -> ReadResult<Self> {
        Ok(o.opt_json(name))
    }
}

impl<T: FromObj> Field for T {
    fn read(o: &Obj<'_>, name: &str) -> ReadResult<Self> {
        o.field(name)
    }
}
impl<T: FromObj> Field for Option<T> {
    fn read(o: &Obj<'_>, name: &str) -> ReadResult<Self> {
        o.opt_field(name)
    }
}
impl<T: FromObj> Field for Vec<T> {
    fn read(o: &Obj<'_>, name: &str) -> ReadResult<Self> {
        o.objects(name)
    }
}
impl<T: FromObj> Field for Option<Vec<T>> {
    fn read(o: &Obj<'_>, name: &str) -> ReadResult<Self> {
        o.opt_objects(name)
    }
}
impl Field for Option<Vec<String>> {
    fn read(o: &Obj<'_>, name: &str) -> ReadResult<Self> {
        o.opt_list(name, as_str)
    }
}
impl Field for Option<Vec<f64>> {
    fn read(o: &Obj<'_>, name: &str) -> ReadResult<Self> {
        o.opt_list(name, as_f64)
    }
}

impl Field for Option<std::num::NonZeroU32> {
    fn read(o: &Obj<'_>, name: &str) -> ReadResult<Self> {
        let n = o.opt_u64(name)?;
        n.map(|n| {
            u32::try_from(n)
                .ok()
                .and_then(std::num::NonZeroU32::new)
                .ok_or_else(|| ReadError::expected(name, "a nonzero u32"))
        })
        .transpose()
    }
}

/// An object keyed by data (projection baselines), as its members sorted by key: a `Vec`, not
/// a `BTreeMap` (the B-tree's insert and drop code was ~3 KB of the client's wasm). Stricter
/// than serde's map (last wins): a repeated key is refused.
impl Field for Vec<(String, Json)> {
    fn read(o: &Obj<'_>, name: &str) -> ReadResult<Self> {
        let raw = o.raw(name).ok_or_else(|| ReadError::missing(name))?;
        let values = Obj::parse(raw.get()).map_err(|e| match e.kind {
            ReadErrorKind::Duplicate => e.inside(name),
            _ => ReadError::expected(name, "an object"),
        })?;
        // Inserted in place (a handful of members): no sort routine is linked.
        let mut map: Vec<(String, Json)> = Vec::new();
        for (k, v) in values.members() {
            let at = map.partition_point(|(key, _)| key.as_str() < k);
            map.insert(at, (k.to_owned(), Json::from_raw(v)));
        }
        Ok(map)
    }
}

/// serde for a [`Field`] `Vec<(String, Json)>`: written and read as a JSON object (the host
/// reads it through a `BTreeMap`, so the members come out sorted; a repeated key: last wins).
pub mod sorted_map {
    use super::Json;
    use serde::{Deserialize, Deserializer, Serializer};
    use std::collections::BTreeMap;

    /// Writes the members as one JSON object.
    pub fn serialize<S: Serializer>(map: &[(String, Json)], s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(map.iter().map(|(k, v)| (k, v)))
    }

    /// Reads a JSON object into members sorted by key.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(String, Json)>, D::Error> {
        Ok(BTreeMap::<String, Json>::deserialize(d)?.into_iter().collect())
    }
}

/// Host-side payloads kept as trees (prompt content, native payloads); the client never reads
/// these records.
impl Field for Value {
    fn read(o: &Obj<'_>, name: &str) -> ReadResult<Self> {
        let raw = o.raw(name).ok_or_else(|| ReadError::missing(name))?;
        serde_json::from_str(raw.get()).map_err(|e| ReadError::new(ReadErrorKind::Syntax(e.to_string()), name))
    }
}
impl Field for Vec<Value> {
    fn read(o: &Obj<'_>, name: &str) -> ReadResult<Self> {
        let raw = o.raw(name).ok_or_else(|| ReadError::missing(name))?;
        match serde_json::from_str(raw.get()) {
            Ok(Value::Array(items)) => Ok(items),
            _ => Err(ReadError::expected(name, "an array")),
        }
    }
}

/// A member that may be missing: `default()` then, else read as `T` reads.
#[inline]
pub fn or_default<T: Field>(o: &Obj<'_>, name: &str, default: fn() -> T) -> ReadResult<T> {
    match o.raw(name) {
        None => Ok(default()),
        Some(_) => T::read(o, name),
    }
}

/// A wire record: the struct, `Serialize`/`Deserialize`, [`FromObj`] and the one-pass
/// reading `read_pass` (see [`crate::pass`]) from one field list (see the module docs for the
/// member syntax). An optional `check = path;` after the struct names a
/// `fn(&Self) -> Result<(), ReadError>` every reading applies (an invariant across members).
#[macro_export]
macro_rules! record {
    (
        $(#[$smeta:meta])*
        $svis:vis struct $name:ident { $($body:tt)* }
        $(check = $check:path;)?
    ) => {
        $crate::record!(@field o [$(#[$smeta])* $svis struct $name] [$($check)?] [] [] [] [] [] [] $($body)*);
    };

    // One member per step: its struct field (with the serde attributes of its kind), its
    // general reading, its one-pass slot and how the pass fills it in are appended, then the
    // rest.
    (@field $o:ident $head:tt $check:tt [$($wires:tt)*] [$($fields:tt)*] [$($reads:tt)*] [$($slots:tt)*] [$($fin:tt)*] [$($req:tt)*]
        $(#[$m:meta])* $v:vis $f:ident : $ty:ty = opt $wire:literal $(, $($rest:tt)*)?) => {
        $crate::record!(@field $o $head $check
            [$($wires)* $wire,]
            [$($fields)* $(#[$m])* #[serde(rename = $wire, default, skip_serializing_if = "Option::is_none")] $v $f: $ty,]
            [$($reads)* $f: <$ty as $crate::record::Field>::read($o, $wire)?,]
            [$($slots)* ($f, $ty, $wire, [])]
            [$($fin)* $f: $f.unwrap_or_default(),]
            [$($req)*]
            $($($rest)*)?);
    };
    (@field $o:ident $head:tt $check:tt [$($wires:tt)*] [$($fields:tt)*] [$($reads:tt)*] [$($slots:tt)*] [$($fin:tt)*] [$($req:tt)*]
        $(#[$m:meta])* $v:vis $f:ident : $ty:ty = default $wire:literal $(, $($rest:tt)*)?) => {
        $crate::record!(@field $o $head $check
            [$($wires)* $wire,]
            [$($fields)* $(#[$m])* #[serde(rename = $wire, default)] $v $f: $ty,]
            [$($reads)* $f: $crate::record::or_default::<$ty>($o, $wire, Default::default)?,]
            [$($slots)* ($f, $ty, $wire, [])]
            [$($fin)* $f: $f.unwrap_or_default(),]
            [$($req)*]
            $($($rest)*)?);
    };
    (@field $o:ident $head:tt $check:tt [$($wires:tt)*] [$($fields:tt)*] [$($reads:tt)*] [$($slots:tt)*] [$($fin:tt)*] [$($req:tt)*]
        $(#[$m:meta])* $v:vis $f:ident : $ty:ty = default_with($ds:literal, $dp:path) $wire:literal $(, $($rest:tt)*)?) => {
        $crate::record!(@field $o $head $check
            [$($wires)* $wire,]
            [$($fields)* $(#[$m])* #[serde(rename = $wire, default = $ds)] $v $f: $ty,]
            [$($reads)* $f: $crate::record::or_default::<$ty>($o, $wire, $dp)?,]
            [$($slots)* ($f, $ty, $wire, [])]
            [$($fin)* $f: $f.unwrap_or_else($dp),]
            [$($req)*]
            $($($rest)*)?);
    };
    (@field $o:ident $head:tt $check:tt [$($wires:tt)*] [$($fields:tt)*] [$($reads:tt)*] [$($slots:tt)*] [$($fin:tt)*] [$($req:tt)*]
        $(#[$m:meta])* $v:vis $f:ident : $ty:ty = read_with($rp:path, $vp:path) $wire:literal $(, $($rest:tt)*)?) => {
        $crate::record!(@field $o $head $check
            [$($wires)* $wire,]
            [$($fields)* $(#[$m])* #[serde(rename = $wire)] $v $f: $ty,]
            [$($reads)* $f: $rp($o, $wire)?,]
            [$($slots)* ($f, $ty, $wire, [$vp])]
            [$($fin)* $f,]
            [$($req)* $f]
            $($($rest)*)?);
    };
    (@field $o:ident $head:tt $check:tt [$($wires:tt)*] [$($fields:tt)*] [$($reads:tt)*] [$($slots:tt)*] [$($fin:tt)*] [$($req:tt)*]
        $(#[$m:meta])* $v:vis $f:ident : $ty:ty = local $(, $($rest:tt)*)?) => {
        $crate::record!(@field $o $head $check
            [$($wires)*]
            [$($fields)* $(#[$m])* #[serde(skip)] $v $f: $ty,]
            [$($reads)* $f: Default::default(),]
            [$($slots)*]
            [$($fin)* $f: Default::default(),]
            [$($req)*]
            $($($rest)*)?);
    };
    (@field $o:ident $head:tt $check:tt [$($wires:tt)*] [$($fields:tt)*] [$($reads:tt)*] [$($slots:tt)*] [$($fin:tt)*] [$($req:tt)*]
        $(#[$m:meta])* $v:vis $f:ident : $ty:ty = $wire:literal $(, $($rest:tt)*)?) => {
        $crate::record!(@field $o $head $check
            [$($wires)* $wire,]
            [$($fields)* $(#[$m])* #[serde(rename = $wire)] $v $f: $ty,]
            [$($reads)* $f: <$ty as $crate::record::Field>::read($o, $wire)?,]
            [$($slots)* ($f, $ty, $wire, [])]
            [$($fin)* $f,]
            [$($req)* $f]
            $($($rest)*)?);
    };

    // Its members' wire names and its one-pass reading.
    (@members $name:ident [$($wires:literal,)*] [$(($sf:ident, $sty:ty, $swire:literal, [$($vp:path)?]))*] [$($fin:tt)*] [$($req:ident)*] [$($check:path)?]) => {
        #[allow(dead_code)]
        impl $name {
            /// Its members' wire names, in order.
            pub const MEMBERS: &'static [&'static str] = &[$($wires),*];

            /// Reads it from the object `map` in one pass with `p` (see [`crate::pass`]): the
            /// same members, repeats refused, missing ones as their kind says.
            pub fn read_pass<'de, A, P>(p: &mut P, mut map: A) -> Result<Self, A::Error>
            where
                A: serde::de::MapAccess<'de>,
                P: $crate::pass::Pass<'de> $(+ $crate::pass::PassMember<'de, $sty>)*,
            {
                $(let mut $sf: Option<$sty> = None;)*
                while let Some($crate::visit::Text(key)) = map.next_key()? {
                    match &*key {
                        $($swire => match $sf {
                            None => {
                                <P as $crate::pass::PassMember<'de, $sty>>::member(p, $swire, &mut map, &mut $sf)?;
                                $(if !$sf.as_ref().is_some_and($vp) { return Err(P::refuse()) })?
                            }
                            Some(_) => return Err(P::refuse()),
                        },)*
                        _ => p.undeclared(key, &mut map)?,
                    }
                }
                // Every required member at once: one way out when one is missing.
                let ($(Some($req),)* true,) = ($($req,)* true,) else { return Err(P::refuse()) };
                let v = $name { $($fin)* };
                $(if $check(&v).is_err() { return Err(P::refuse()) })?
                Ok(v)
            }
        }
    };
    // No invariant: serde's derive reads it on the host.
    (@field $o:ident [$(#[$smeta:meta])* $svis:vis struct $name:ident] [] [$($wires:literal,)*] [$($fields:tt)*] [$($reads:tt)*] [$($slots:tt)*] [$($fin:tt)*] [$($req:tt)*]) => {
        $(#[$smeta])*
        #[derive(serde::Serialize, serde::Deserialize)]
        $svis struct $name { $($fields)* }

        $crate::record!(@members $name [$($wires,)*] [$($slots)*] [$($fin)*] [$($req)*] []);

        impl $crate::read::FromObj for $name {
            fn from_obj($o: &$crate::read::Obj<'_>) -> $crate::read::ReadResult<Self> {
                Ok($name { $($reads)* })
            }
        }
    };
    // With an invariant: the host's `Deserialize` is this reader over the value's text, so
    // the check is applied once, in one place.
    (@field $o:ident [$(#[$smeta:meta])* $svis:vis struct $name:ident] [$check:path] [$($wires:literal,)*] [$($fields:tt)*] [$($reads:tt)*] [$($slots:tt)*] [$($fin:tt)*] [$($req:tt)*]) => {
        $(#[$smeta])*
        #[derive(serde::Serialize)]
        $svis struct $name { $($fields)* }

        $crate::record!(@members $name [$($wires,)*] [$($slots)*] [$($fin)*] [$($req)*] [$check]);

        impl $crate::read::FromObj for $name {
            fn from_obj($o: &$crate::read::Obj<'_>) -> $crate::read::ReadResult<Self> {
                let v = $name { $($reads)* };
                $check(&v)?;
                Ok(v)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let raw = Box::<serde_json::value::RawValue>::deserialize(d)?;
                $crate::read::read(raw.get()).map_err(serde::de::Error::custom)
            }
        }
    };
}

/// A string enum on the wire: the enum, `Serialize`/`Deserialize` (as its wire names) and its
/// reading as a member ([`Field`], also as an `Option`), from one list of `Variant = "name"`.
/// With `other = Variant = "name";` any other string reads as that variant (serde's `other`);
/// without, it is an error.
#[macro_export]
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident { $($(#[$vmeta:meta])* $var:ident = $wire:literal),* $(,)? }
        $(other = $(#[$ometa:meta])* $other:ident = $owire:literal;)?
    ) => {
        $(#[$meta])*
        #[derive(serde::Serialize, serde::Deserialize)]
        $vis enum $name {
            $($(#[$vmeta])* #[serde(rename = $wire)] $var,)*
            $($(#[$ometa])* #[serde(other, rename = $owire)] $other,)?
        }

        impl $name {
            /// Every named variant and its wire name.
            pub const WIRE: &'static [($name, &'static str)] = &[$(($name::$var, $wire),)* $(($name::$other, $owire))?];
            /// Its wire name (the fallback variant's is the one it is written as).
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$var => $wire,)*
                    $($name::$other => $owire,)?
                }
            }
            /// The variant a wire name reads as.
            pub fn from_wire(name: &str) -> Option<Self> {
                Self::WIRE.iter().find(|(_, n)| *n == name).map(|(v, _)| *v) $(.or(Some($name::$other)))?
            }
        }

        impl $crate::record::Field for $name {
            fn read(o: &$crate::read::Obj<'_>, name: &str) -> $crate::read::ReadResult<Self> {
                let s = o.str_ref(name)?;
                Self::from_wire(&s).ok_or_else(|| {
                    $crate::read::ReadError::unknown_variant(name, &s, &[$($wire),*])
                })
            }
        }
        impl $crate::record::Field for Option<$name> {
            fn read(o: &$crate::read::Obj<'_>, name: &str) -> $crate::read::ReadResult<Self> {
                match o.raw(name) {
                    Some(v) if v.get() != "null" => <$name as $crate::record::Field>::read(o, name).map(Some),
                    _ => Ok(None),
                }
            }
        }
    };
}
