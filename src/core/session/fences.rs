//! The three fences that keep every displayed value host-confirmed and monotonic.
//! Each is a small type so the invariant it guards has exactly one home.

use crate::core::wire::Seq;

/// Reconnect/resync fence. Invariant: a history pull or plan query issued under an older
/// open generation never touches the window or plan state of a newer one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct OpenGeneration(pub u64);

impl OpenGeneration {
    /// Starts the next generation and returns it.
    pub fn bump(&mut self) -> OpenGeneration {
        self.0 += 1;
        *self
    }
}

/// One monotonic fence over plan queries *and* selections. Invariant: a plan response is
/// applied only if no later-issued plan request has already been applied, so overlapping
/// requests answered out of order never move the display backwards in request order.
#[derive(Debug, Clone, Default)]
pub struct PlanRequestFence {
    issued: u64,
    applied: u64,
}

/// A plan request's place in both plan fences, minted when it is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanTicket {
    /// Issue order: a higher order is a later request.
    pub order: u64,
    /// The event version seen when the request left: a commit newer than this overtook it.
    pub seen: EventVersion,
}

impl PlanRequestFence {
    /// Mints the ticket of a request about to be sent, with the event version it saw.
    pub fn issue(&mut self, seen: EventVersion) -> PlanTicket {
        self.issued += 1;
        PlanTicket { order: self.issued, seen }
    }
    /// Admits the response of `ticket` (and records it) unless a later one was applied.
    pub fn admit(&mut self, ticket: PlanTicket) -> bool {
        if ticket.order <= self.applied {
            return false;
        }
        self.applied = ticket.order;
        true
    }
    /// A request is still the newest issued (nothing was sent after it).
    pub fn is_latest(&self, ticket: PlanTicket) -> bool {
        ticket.order == self.issued
    }
}

/// Event-version fence: the seq of the newest `plan/mode` commit observed (in a window or
/// live). Invariant: a unary response never overwrites a commit that overtook it on the
/// stream, and an older commit never replaces a newer one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct EventVersion(pub Option<Seq>);

impl EventVersion {
    /// Whether this version is past `other` (any commit is past none).
    pub fn is_newer_than(self, other: EventVersion) -> bool {
        match (self.0, other.0) {
            (Some(a), Some(b)) => a > b,
            (Some(_), None) => true,
            _ => false,
        }
    }
}
