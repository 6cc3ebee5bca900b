//! Plan-mode projection: what `snapshot.planMode` shows, through the request fence and the
//! event-version fence. Only host-confirmed values are ever shown.

use super::fences::{EventVersion, PlanRequestFence, PlanTicket};
use crate::core::wire::{parse_plan_projection, Json, PlanModeState, Seq};

/// Whether the host's plan service is known to exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capability {
    /// No query or selection has answered yet.
    Unknown,
    /// The service answered `null`.
    Absent,
    /// The service answered a `PlanModeState`.
    Present,
}

/// Where host-confirmed plan state comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PlanSource {
    /// The seed's plan RPCs, fenced against `plan/mode` commits (the default until a host
    /// shows otherwise).
    #[default]
    Rpc,
    /// The 2026-08 host answers the plan RPCs 404: the `plan` projection is the state.
    /// Projection frames are ordered on the stream and higher seqs win in the store, so no
    /// request or event-version fence is needed; a unary answer never shows a state.
    Projection,
}

/// The session's plan-mode state as shown: host-confirmed values only, through the request
/// and event-version fences.
#[derive(Debug, Clone)]
pub struct PlanTracker {
    source: PlanSource,
    /// Projection source: whether the session has the `/plan` command (`None` until
    /// `commands/list` answers; nothing is shown before).
    command: Option<bool>,
    /// Projection source: the store revision last read.
    read_rev: Option<u64>,
    shown: Option<PlanModeState>,
    capability: Capability,
    requests: PlanRequestFence,
    /// Newest commit observed, kept even while the capability is unconfirmed (private).
    commit: Option<(Seq, bool)>,
    /// `shown` is an applied answer and no newer commit has been observed since.
    answer_fresh: bool,
}

/// What became of a plan response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanApply {
    /// The response's state is shown (or confirmed).
    Applied,
    /// A later-issued plan request was applied first.
    StaleRequest,
    /// A commit overtook the request; the commit stays. `requery` asks for a fresh query
    /// because the dropped response may have carried a pending selection.
    Overtaken {
        /// Ask the host again.
        requery: bool,
    },
}

impl Default for PlanTracker {
    fn default() -> Self {
        PlanTracker {
            source: PlanSource::Rpc,
            command: None,
            read_rev: None,
            shown: None,
            capability: Capability::Unknown,
            requests: PlanRequestFence::default(),
            commit: None,
            answer_fresh: false,
        }
    }
}

impl PlanTracker {
    /// The state the UI shows (`None` until the host confirmed one).
    pub fn shown(&self) -> Option<PlanModeState> {
        self.shown
    }
    /// Whether the host's plan service is known to exist.
    pub fn capability(&self) -> Capability {
        self.capability
    }
    /// The newest plan commit folded, as the event-version fence reads it.
    pub fn version(&self) -> EventVersion {
        EventVersion(self.commit.map(|(s, _)| s))
    }

    /// Whether the `plan` projection is the state (the 2026-08 host).
    pub fn is_projected(&self) -> bool {
        self.source == PlanSource::Projection
    }

    /// The host answered a plan RPC 404: from now on the `plan` projection is the state.
    pub fn use_projection(&mut self) {
        self.source = PlanSource::Projection;
    }

    /// `commands/list` (or a void `/plan` answer) said whether the session has the command.
    /// Without it nothing is shown from now on; with it, the projection is read again (on
    /// the session's next flush). Returns whether `shown` changed.
    pub fn on_command_known(&mut self, known: bool) -> bool {
        self.command = Some(known);
        self.read_rev = None;
        if known {
            return false;
        }
        self.capability = Capability::Absent;
        self.shown.take().is_some()
    }

    /// The `plan` projection's current value at store revision `rev` (`None`: the key is
    /// absent = capability absent). Returns whether `shown` changed. Ignored unless the source
    /// is the projection.
    pub fn on_projection(&mut self, rev: u64, value: Option<&Json>) -> bool {
        if self.source != PlanSource::Projection || self.read_rev == Some(rev) {
            return false;
        }
        self.read_rev = Some(rev);
        let next = match (self.command, value.map(parse_plan_projection)) {
            (None, _) => None,
            (Some(false), _) | (_, None) => {
                self.capability = Capability::Absent;
                None
            }
            (Some(true), Some(Ok(state))) => {
                self.capability = Capability::Present;
                Some(state)
            }
            // A value that fails its shape keeps the last confirmed state.
            (Some(true), Some(Err(_))) => return false,
        };
        let changed = self.shown != next;
        self.shown = next;
        changed
    }

    /// Mints the ticket for a query or selection about to be sent.
    pub fn issue(&mut self) -> PlanTicket {
        let seen = self.version();
        self.requests.issue(seen)
    }

    /// Whether `ticket` is the newest request issued (an older one's answer is stale).
    pub fn is_latest(&self, ticket: PlanTicket) -> bool {
        self.requests.is_latest(ticket)
    }

    /// A successful query/selection response. Returns whether `shown` changed too.
    pub fn on_response(&mut self, ticket: PlanTicket, value: Option<PlanModeState>) -> (PlanApply, bool) {
        if !self.requests.admit(ticket) {
            return (PlanApply::StaleRequest, false);
        }
        let before = self.shown;
        self.answer_fresh = false;
        let outcome = match value {
            None => {
                self.capability = Capability::Absent;
                self.shown = None;
                PlanApply::Applied
            }
            Some(state) => {
                self.capability = Capability::Present;
                match self.commit {
                    Some((seq, active)) if EventVersion(Some(seq)).is_newer_than(ticket.seen) => {
                        self.shown = Some(PlanModeState::committed(active));
                        let requery = state.pending.is_some() || state.active != active;
                        PlanApply::Overtaken { requery }
                    }
                    _ => {
                        self.shown = Some(state);
                        self.answer_fresh = true;
                        PlanApply::Applied
                    }
                }
            }
        };
        (outcome, before != self.shown)
    }

    /// A `plan/mode {active}` commit at `seq` (live or the newest in a window).
    /// `only_newer` says it is the only commit after the previous one observed (always
    /// true live; a window may hold several or start past the previous one).
    /// Returns whether `shown` changed.
    pub fn on_commit(&mut self, seq: Seq, active: bool, only_newer: bool) -> bool {
        if matches!(self.commit, Some((s, _)) if s >= seq) {
            return false;
        }
        self.commit = Some((seq, active));
        if self.source == PlanSource::Projection {
            return false; // the projection, not the event, is the state there
        }
        // An answer shown before the stream caught up may already reflect this commit: a
        // commit always flips `active`, so an answer produced before it has the other
        // value. Keep such an answer (with its newer pending selection) rather than
        // regress to the bare commit.
        let fresh = std::mem::take(&mut self.answer_fresh);
        if fresh && only_newer && self.shown.is_some_and(|s| s.active == active && s.pending.is_some()) {
            return false;
        }
        if self.capability == Capability::Present {
            let next = Some(PlanModeState::committed(active));
            if self.shown != next {
                self.shown = next;
                return true;
            }
        }
        false
    }

    /// The session was released: nothing is shown until a new window and query confirm it.
    /// The request fence and what is known of the host's dialect stay (both are monotonic
    /// facts, not window state). Returns whether `shown` changed.
    pub fn release(&mut self) -> bool {
        self.read_rev = None;
        self.capability = Capability::Unknown;
        self.commit = None;
        self.answer_fresh = false;
        self.shown.take().is_some()
    }

    /// The host lost its log: its seq space restarted, so older commit versions are void.
    pub fn forget_commits(&mut self) {
        self.commit = None;
        self.answer_fresh = false;
    }
}
