//! The sequence numbers a host may send, checked once where the client reads them.
//!
//! Why a bound below `u64::MAX`: the client does arithmetic on seqs as `i64` positions
//! (`tail + 1`, `base - 1`, `-1` for an empty log) and hands them to JS as numbers. A seq past
//! 2^53 - 1 would either overflow that arithmetic (a wasm panic kills the client) or reach JS
//! rounded. So an event, page or frame with a seq outside [`MAX_SEQ`] fails its schema, and
//! everything after the reader may add or subtract one without a check.

use super::read::{Obj, ReadError, ReadResult};

/// Largest seq a host may send: 2^53 - 1, the largest integer a JS number holds exactly.
pub const MAX_SEQ: u64 = (1 << 53) - 1;

/// A seq as read from the wire. Invariant: `0 <= get() <= MAX_SEQ`, so as an `i64` position
/// `get() + 1` and `get() - 1` never overflow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct WireSeq(u64);

impl WireSeq {
    /// `n` as a wire seq, or `None` past [`MAX_SEQ`].
    pub fn new(n: u64) -> Option<WireSeq> {
        (n <= MAX_SEQ).then_some(WireSeq(n))
    }
    /// The seq as a number.
    pub fn get(self) -> u64 {
        self.0
    }
    /// As a position (lossless: the bound fits in `i64`).
    pub fn pos(self) -> i64 {
        self.0 as i64
    }
}

fn out_of_range(name: &str) -> ReadError {
    ReadError::expected(name, "a seq in 0..=2^53-1")
}

/// Whether `n` is a seq (`0..=MAX_SEQ`).
pub fn is_seq(n: &u64) -> bool {
    WireSeq::new(*n).is_some()
}

/// Whether `n` is a seq position (`-1..=MAX_SEQ`, `-1` for an empty log).
pub fn is_pos(n: &i64) -> bool {
    *n == -1 || u64::try_from(*n).ok().and_then(WireSeq::new).is_some()
}

/// A required seq member (`record!`'s `read_with(read, is_seq)`).
pub fn read(o: &Obj<'_>, name: &str) -> ReadResult<u64> {
    let n = o.u64(name)?;
    is_seq(&n).then_some(n).ok_or_else(|| out_of_range(name))
}

/// A seq position member where `-1` means "empty log" (`lastSeq`, `asOfSeq`, a projection's
/// `seq`): `-1..=MAX_SEQ` (`record!`'s `read_with(read_pos, is_pos)`).
pub fn read_pos(o: &Obj<'_>, name: &str) -> ReadResult<i64> {
    let n = o.i64(name)?;
    is_pos(&n).then_some(n).ok_or_else(|| out_of_range(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_is_the_largest_exact_js_integer_and_one_past_it_is_refused() {
        assert_eq!(MAX_SEQ, 9_007_199_254_740_991);
        assert_eq!(WireSeq::new(MAX_SEQ).map(WireSeq::pos), Some(MAX_SEQ as i64));
        assert_eq!(WireSeq::new(MAX_SEQ + 1), None);
        assert_eq!(WireSeq::new(u64::MAX), None);
        let o = Obj::parse(r#"{"a":9007199254740991,"b":9007199254740992,"c":-1,"d":-2,"e":18446744073709551615}"#)
            .unwrap();
        assert_eq!(read(&o, "a").unwrap(), MAX_SEQ);
        assert!(read(&o, "b").is_err() && read(&o, "e").is_err() && read(&o, "c").is_err());
        assert_eq!(read_pos(&o, "c").unwrap(), -1);
        assert!(read_pos(&o, "d").is_err() && read_pos(&o, "b").is_err() && read_pos(&o, "e").is_err());
    }
}
