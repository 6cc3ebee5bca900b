//! Where a session is in its life, as one value: each state holds only what it needs (the
//! error of a failed open, how an open window relates to the host's log), so no combination
//! of flags can say two things at once.

use super::OpenState;
use crate::core::wire::RpcError;

/// How an open window relates to the host's log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// Live frames of the current connection are appended as they arrive.
    Live,
    /// The connection that built the window ended: frames wait for a resync, which the
    /// next generation makes (or, for a session nobody watches, its next watcher does).
    Stale,
    /// A replacement tail page is in flight; the old window stays visible meanwhile.
    Resyncing,
}

/// The session's lifecycle (snapshot `openState` is its tag).
#[derive(Debug, Clone, PartialEq)]
pub enum Lifecycle {
    /// Never opened, or released: no window.
    Cold,
    /// The first tail page of an open is in flight.
    Loading,
    /// A window is installed.
    Open(Freshness),
    /// The open failed; `open()` tries again.
    Error(RpcError),
}

impl Lifecycle {
    /// The snapshot's `openState`.
    pub fn tag(&self) -> OpenState {
        match self {
            Lifecycle::Cold => OpenState::Cold,
            Lifecycle::Loading => OpenState::Loading,
            Lifecycle::Open(_) => OpenState::Open,
            Lifecycle::Error(_) => OpenState::Error,
        }
    }

    /// An open window that takes live frames now.
    pub fn is_live(&self) -> bool {
        matches!(self, Lifecycle::Open(Freshness::Live))
    }

    /// No window and no pull: frames for the window are dropped.
    pub fn is_closed(&self) -> bool {
        matches!(self, Lifecycle::Cold | Lifecycle::Error(_))
    }

    /// An open window whose connection ended and that no resync has started on yet.
    pub fn is_stale(&self) -> bool {
        matches!(self, Lifecycle::Open(Freshness::Stale))
    }
}
