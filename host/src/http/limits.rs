//! Size limits, each with a clear error where it bites.

/// Request bodies above this answer 413 (text/plain).
pub const MAX_BODY_BYTES: usize = 1024 * 1024;
/// `maxMessages` default and clamp range.
pub const DEFAULT_PAGE_MESSAGES: u32 = 50;
pub const MAX_PAGE_MESSAGES: u32 = 500;
/// A page never carries more events than this, even when few messages span many chunks;
/// such a page starts mid-turn but still ends exactly where it must.
pub const MAX_PAGE_EVENTS: u32 = 10_000;
/// A stream frame (either carrier) above this is not sent: the stream gets `stream/error` and ends, and the
/// client repairs from history (the client's own parser drops frames above 8 MiB).
pub const MAX_STREAM_FRAME_BYTES: usize = 4 * 1024 * 1024;
