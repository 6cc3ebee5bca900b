//! The members of one object a pass reads past without reading them.

use serde::de::{Error, IgnoredAny, MapAccess};
use std::borrow::Cow;

/// Stops the pass: the general reader takes over. One call at every place the pass stops.
#[cold]
#[inline(never)]
pub(crate) fn fallback<E: Error>() -> E {
    E::custom("not the hot shape")
}

/// Members of one object a pass skips: still told apart, because the general reader refuses
/// a repeated member and the two must agree on every input. Invariant: at most
/// [`Skipped::MAX`] names held; an object with more skipped members (or a skipped name with
/// escapes) falls back.
pub(crate) struct Skipped<'de> {
    names: [&'de str; Skipped::MAX],
    len: usize,
}

impl<'de> Skipped<'de> {
    const MAX: usize = 6;

    pub(crate) fn new() -> Self {
        Skipped { names: [""; Skipped::MAX], len: 0 }
    }

    /// Skips the value of member `name`; a repeat (or one too many) stops the pass.
    pub(crate) fn skip<A: MapAccess<'de>>(&mut self, name: Cow<'de, str>, map: &mut A) -> Result<(), A::Error> {
        if !self.note(name) {
            return Err(fallback());
        }
        map.next_value::<IgnoredAny>()?;
        Ok(())
    }

    /// Records `name`; false when it cannot be told apart from the others.
    fn note(&mut self, name: Cow<'de, str>) -> bool {
        let Cow::Borrowed(name) = name else { return false };
        if self.len == Skipped::MAX || self.names[..self.len].contains(&name) {
            return false;
        }
        self.names[self.len] = name;
        self.len += 1;
        true
    }
}
