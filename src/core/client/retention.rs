//! Which sessions stay resident: the rule that lets a tab stay open all day.
//!
//! A session is *watched* while it has listeners or an operation in flight. A session nobody
//! watches stays warm (window, nodes and all) while it is among the `keep_warm` most recently
//! watched ones and for at most `release_after_ms` after its last watcher left; then it is
//! released to `cold` and its memory goes. `open()` rebuilds it from the host's log, which is
//! the durable truth. Sessions nobody watches are not resynced by a reconnect either: they are
//! marked as having missed a generation and resync when they are watched again.

use crate::core::time::Instant;

/// The retention policy (`HostClient` options `keepWarm` and `releaseAfterMs`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Retention {
    /// Unwatched sessions kept warm, most recently watched first (others are released on
    /// the next timer turn, so a listener that re-subscribes in the same task keeps it).
    pub keep_warm: usize,
    /// How long a warm unwatched session stays before it is released.
    pub release_after_ms: f64,
}

impl Default for Retention {
    fn default() -> Self {
        Retention { keep_warm: 4, release_after_ms: 60_000.0 }
    }
}

/// Order of "last watched": a session that stopped being watched later ranks warmer.
/// Invariant: strictly increasing over the client's life, so ranks never tie.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct WatchOrder(pub u64);

impl WatchOrder {
    /// The next order value.
    pub fn bump(&mut self) -> WatchOrder {
        self.0 += 1;
        *self
    }
}

/// What the router knows of who watches one session.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Watch {
    /// The shell holds at least one listener for it.
    pub listeners: bool,
    /// When its last watcher left, and that moment's order (`None` while watched).
    pub unwatched: Option<(Instant, WatchOrder)>,
    /// A connection generation was established while nobody watched the (not cold)
    /// session: it resyncs when it is watched again.
    pub missed: bool,
}

/// The decision of one sweep for one unwatched, releasable session: its rank (0 = most
/// recently watched) and when its last watcher left. `Ok`: release it now; `Err(at)`: look
/// again at `at`. Nothing is released within [`NEXT_TURN_MS`] of its watcher leaving (a
/// listener that re-subscribes in the same task keeps the session).
pub fn decide(policy: Retention, rank: usize, since: Instant, now: Instant) -> Result<(), Instant> {
    let grace = if rank >= policy.keep_warm { 0.0 } else { policy.release_after_ms };
    let due = since.after_ms(grace.max(NEXT_TURN_MS));
    if now >= due {
        Ok(())
    } else {
        Err(due)
    }
}

/// The shortest time an unwatched session stays: the next timer turn, never the same input.
pub const NEXT_TURN_MS: f64 = 1.0;
