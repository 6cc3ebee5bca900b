//! The sans-IO session state machine.
//!
//! Inputs: UI requests (`open`, `resync`, `load_older`, `prompt`, `cancel`, `set_plan_mode`,
//! `respond`), RPC results tagged with the [`ReqId`] that caused them, mux/host frames, and
//! connection loss. Outputs: [`Effect`]s drained with [`Session::poll_effect`]. No I/O, no
//! clock, no wasm: every race is reproducible natively.
//!
//! The file split follows the concerns: `ops` (UI requests), `responses` (RPC results),
//! `live` (frames), `window` (install, stitch, gap repair).
//!
//! Modules: [`io`] (inputs and outputs), [`lifecycle`] (where a session is in its life),
//! [`fold`] (events into nodes), [`nodes`] (the renderable conversation), [`pending`]
//! (approvals and questions), [`plan`] (the plan-mode projection), [`interaction`]
//! (Extension 2 state), [`fences`] (what keeps displayed values host-confirmed); private:
//! `event_run` (the window's events), `page` (a history page and its streaming reader),
//! `live_buffer` (events held while no window takes them), `release` (a session nobody
//! watches goes `cold`), `retry` and `retry_state` (asking again after a failure),
//! `commands` and `command_state` (today's upstream host's commands), and `tests`.

pub mod fences;
pub mod fold;
pub mod interaction;
pub mod io;
pub mod lifecycle;
pub mod nodes;
pub mod outbox;
pub mod pending;
pub mod plan;

mod command_state;
mod commands;
mod deliver;
mod event_run;
mod live;
mod live_buffer;
mod ops;
mod page;
mod release;
mod responses;
mod retry;
mod retry_state;
mod window;

pub use commands::PLAN_SETTLE_MS;
pub use event_run::{EventRun, Events};
pub use fences::{EventVersion, OpenGeneration, PlanRequestFence, PlanTicket};
pub use interaction::Interaction;
pub use io::{Call, Diagnostics, Effect, OpId, Outcome, ReqId, WakeToken};
pub use lifecycle::{Freshness, Lifecycle};
pub use nodes::{Node, NodeKind, Partial, PlanText, RunningToolCall, ToolStatus};
pub use outbox::{Delivery, Outbox, Outgoing, MAX_OUTBOX_BYTES, MAX_OUTBOX_PROMPTS};
pub use page::{joined, Page, PageReader, Streamed};
pub use pending::{PendingInteraction, PendingKind};
pub use plan::Capability;

use crate::core::projection::ProjectionStore;
use crate::core::vecmap::VecMap;
use crate::core::wire::{self, Json, PlanModeState, RpcError, Seq, SessionEvent};
use fold::Fold;
use nodes::Stamps;
use pending::PendingSet;
use plan::PlanTracker;
use std::collections::VecDeque;
use std::rc::Rc;

/// How far opening the session got (the lifecycle without its payloads).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenState {
    /// Not opened, or closed.
    Cold,
    /// The first window is being fetched.
    Loading,
    /// A window is installed.
    Open,
    /// Opening failed; see [`Session::open_error`].
    Error,
}

impl OpenState {
    /// The name the UI sees (`cold`, `loading`, `open`, `error`).
    pub fn as_str(self) -> &'static str {
        match self {
            OpenState::Cold => "cold",
            OpenState::Loading => "loading",
            OpenState::Open => "open",
            OpenState::Error => "error",
        }
    }
}

/// The prompt verb that failed, for [`Session::prompt_error`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptOp {
    /// Sending a prompt.
    Send,
    /// Stopping the running turn.
    Stop,
}

impl PromptOp {
    /// The name the UI sees (`send`, `stop`).
    pub fn as_str(self) -> &'static str {
        match self {
            PromptOp::Send => "send",
            PromptOp::Stop => "stop",
        }
    }
}

/// Why a request was sent; decides what its result may touch.
#[derive(Debug, Clone)]
enum Purpose {
    /// Tail page for open or resync.
    Open {
        gen: OpenGeneration,
    },
    /// Tail page as a replacement window (gap repair or the subscribed stitch pull).
    Repair {
        gen: OpenGeneration,
    },
    Older {
        gen: OpenGeneration,
        base_at_send: Seq,
    },
    PlanQuery {
        gen: OpenGeneration,
        ticket: PlanTicket,
    },
    Selection {
        ticket: PlanTicket,
        op: OpId,
        active: bool,
    },
    /// A plan selection as today's upstream host takes it (`/plan` through `commands/execute`).
    PlanCommand {
        op: OpId,
    },
    /// Whether today's upstream host mounts the plan command for this session.
    PlanCommandKnown,
    Prompt {
        op: OpId,
        which: PromptOp,
    },
    /// A prompt of the outbox, sent under its own id.
    Outbox {
        id: String,
    },
    /// The tail page read to find prompts that may have been delivered.
    Lookup,
    Respond {
        op: OpId,
        key: String,
    },
    Answer {
        op: OpId,
        prompt_id: String,
    },
    /// A verb of today's upstream host (`command`, `rename`, `updateQueue`, `readAttachment`):
    /// its value is checked against `method` and handed back; a 404 reads as `unsupported`.
    Verb {
        op: OpId,
        method: &'static str,
    },
}

pub use live_buffer::{MAX_BUFFERED, MAX_BUFFERED_BYTES};
/// Repair attempts allowed at one window tail before repairs stop until the tail moves or
/// a new open generation starts: a repair that fails or makes no progress never loops.
pub const MAX_REPAIRS_PER_TAIL: u32 = 3;

/// One session's client state: its window of the log, the fold of it, the requests in flight
/// and the effects for the driver.
#[derive(Debug)]
pub struct Session {
    id: String,
    stamps: Stamps,
    life: Lifecycle,
    /// Generation fence for everything tied to one window build.
    gen: OpenGeneration,
    /// The contiguous run of the host's log this client holds.
    window: event_run::EventRun,
    has_more: bool,
    fold: Fold,
    /// Live events that cannot be appended yet (loading, repairing, stale).
    buffer: live_buffer::LiveBuffer,
    /// (window tail, attempts) for the repair budget.
    repair_attempts: (Seq, u32),
    /// `session/subscribed.lastSeq` of the current connection.
    host_last_seq: Option<Seq>,
    older_waiters: Vec<OpId>,
    open_waiters: Vec<OpId>,
    plan: PlanTracker,
    plan_rev: u64,
    /// A plan query failed under this generation: ask again on the next live event or the
    /// `plan_retry` wake, whichever comes first.
    plan_requery: bool,
    plan_retry: retry_state::Retry,
    /// Renews an exhausted repair budget after a backoff.
    repair_retry: retry_state::Retry,
    wakes_minted: u64,
    pending: PendingSet,
    projections: ProjectionStore,
    running: bool,
    prompt_error: Option<(PromptOp, RpcError)>,
    last_agent_error: Option<String>,
    title: Option<String>,
    /// Today's upstream host: the prompt queue as its last `session/queue` frame gave it.
    queue: Option<Rc<Json>>,
    queue_rev: u64,
    /// Today's upstream host: the command list and selections waiting for `command/done`.
    commands: command_state::Commands,
    /// Revision of the scalar parts of the snapshot.
    meta_rev: u64,
    inflight: VecMap<ReqId, Purpose>,
    next_req: u64,
    next_op: u64,
    effects: VecDeque<Effect>,
    dirty: bool,
    diag: Diagnostics,
    /// Prompts not yet seen in the log.
    outbox: outbox::Outbox,
    /// The connection is established (the outbox sends only then).
    online: bool,
    /// The host client's rpcId prefix: ids starting with it are this client's.
    client_prefix: String,
    next_client: u64,
}

impl Session {
    /// A cold session with id `id`: nothing fetched until it is opened.
    pub fn new(id: impl Into<String>) -> Self {
        Session {
            id: id.into(),
            stamps: Stamps::default(),
            life: Lifecycle::Cold,
            gen: OpenGeneration::default(),
            window: event_run::EventRun::default(),
            has_more: false,
            fold: Fold::default(),
            buffer: live_buffer::LiveBuffer::default(),
            repair_attempts: (-1, 0),
            host_last_seq: None,
            older_waiters: Vec::new(),
            open_waiters: Vec::new(),
            plan: PlanTracker::default(),
            plan_rev: 0,
            plan_requery: false,
            plan_retry: retry_state::Retry::default(),
            repair_retry: retry_state::Retry::default(),
            wakes_minted: 0,
            pending: PendingSet::default(),
            projections: ProjectionStore::default(),
            running: false,
            prompt_error: None,
            last_agent_error: None,
            title: None,
            queue: None,
            queue_rev: 0,
            commands: command_state::Commands::default(),
            meta_rev: 0,
            inflight: VecMap::new(),
            next_req: 0,
            next_op: 0,
            effects: VecDeque::new(),
            dirty: false,
            diag: Diagnostics::default(),
            outbox: outbox::Outbox::default(),
            online: true,
            client_prefix: String::new(),
            next_client: 0,
        }
    }

    // ---- effects -------------------------------------------------------------------

    /// Next effect for the driver, in the order they arose.
    pub fn poll_effect(&mut self) -> Option<Effect> {
        self.effects.pop_front()
    }

    /// Every effect queued, in the order they arose.
    pub fn drain_effects(&mut self) -> Vec<Effect> {
        self.effects.drain(..).collect()
    }

    fn send(&mut self, call: Call, purpose: Purpose) -> ReqId {
        self.next_req += 1;
        let req = ReqId(self.next_req);
        self.inflight.insert(req, purpose);
        self.effects.push_back(Effect::Send { req, call });
        req
    }

    /// The one in-flight request with this purpose, if any: the `inflight` table is the only
    /// record of what is in flight.
    fn in_flight_for(&self, which: fn(&Purpose) -> bool) -> Option<ReqId> {
        self.inflight.iter().find(|(_, p)| which(p)).map(|(req, _)| *req)
    }

    /// The gap repair in flight (at most one).
    fn repair_in_flight(&self) -> Option<ReqId> {
        self.in_flight_for(|p| matches!(p, Purpose::Repair { .. }))
    }

    /// The older-page load in flight (at most one).
    fn older_in_flight(&self) -> Option<ReqId> {
        self.in_flight_for(|p| matches!(p, Purpose::Older { .. }))
    }

    fn new_op(&mut self) -> OpId {
        self.next_op += 1;
        OpId(self.next_op)
    }

    fn settle(&mut self, op: OpId, outcome: Outcome) {
        self.effects.push_back(Effect::Settle { op, outcome });
    }

    fn meta_changed(&mut self) {
        self.meta_rev = self.stamps.next();
        self.dirty = true;
    }

    /// Ends every input: at most one `Changed` per input, after the state is consistent.
    fn flush(&mut self) {
        self.read_plan_projection();
        self.drive_outbox();
        if std::mem::take(&mut self.dirty) {
            self.effects.push_back(Effect::Changed);
        }
    }

    /// Only today's host keeps plan state as a projection: the live path skips the lookup.
    fn read_plan_projection(&mut self) {
        if self.plan.is_projected() {
            let value = self.projections.get(wire::interaction::PROJ_PLAN).map(|r| &*r.value);
            if self.plan.on_projection(self.projections.rev, value) {
                self.plan_changed();
            }
        }
    }

    // ---- snapshot accessors ----------------------------------------------------------

    /// The session's id.
    pub fn id(&self) -> &str {
        &self.id
    }
    /// How far opening got.
    pub fn open_state(&self) -> OpenState {
        self.life.tag()
    }
    /// The lifecycle with its payloads.
    pub fn lifecycle(&self) -> &Lifecycle {
        &self.life
    }
    /// The window no longer follows the host's log: the connection that built it ended and
    /// no fresh tail page has replaced it yet (snapshot `stale`). A session nobody watches
    /// keeps its old window through a reconnect until it is watched again, so a UI listing
    /// warm sessions can say their windows may be behind.
    pub fn stale(&self) -> bool {
        matches!(self.life, Lifecycle::Open(Freshness::Stale | Freshness::Resyncing))
    }
    /// Why opening failed, while it has.
    pub fn open_error(&self) -> Option<&RpcError> {
        match &self.life {
            Lifecycle::Error(e) => Some(e),
            _ => None,
        }
    }
    /// Oldest seq in the window (0 when empty).
    pub fn base_seq(&self) -> Seq {
        self.window.first().map_or(0, SessionEvent::seq)
    }
    /// Newest seq in the window (-1 when empty).
    pub fn tail_seq(&self) -> Seq {
        self.window.last().map_or(-1, SessionEvent::seq)
    }
    /// The events held, oldest first.
    pub fn window(&self) -> &EventRun {
        &self.window
    }
    /// The host holds events older than the window.
    pub fn has_more(&self) -> bool {
        self.has_more
    }
    /// An older-page load is in flight.
    pub fn loading_older(&self) -> bool {
        self.older_in_flight().is_some()
    }
    /// The rendered conversation.
    pub fn nodes(&self) -> &[Rc<Node>] {
        &self.fold.nodes
    }
    /// Changes whenever `nodes` does (export cache key).
    pub fn nodes_rev(&self) -> u64 {
        self.fold.nodes_rev
    }
    /// The streaming assistant text, while a step streams.
    pub fn partial(&self) -> Option<&Rc<Partial>> {
        self.fold.partial.as_ref()
    }
    /// Tool calls without their result yet.
    pub fn running_calls(&self) -> &[Rc<RunningToolCall>] {
        &self.fold.running
    }
    /// Changes whenever `running_calls` does (export cache key).
    pub fn running_calls_rev(&self) -> u64 {
        self.fold.running_rev
    }
    /// Approvals and questions waiting for the user.
    pub fn pending(&self) -> &[Rc<PendingInteraction>] {
        &self.pending.items
    }
    /// Changes whenever `pending` does (export cache key).
    pub fn pending_rev(&self) -> u64 {
        self.pending.rev
    }
    /// Plan mode as the UI shows it: host-confirmed values only (`None` before any).
    pub fn plan_mode(&self) -> Option<PlanModeState> {
        self.plan.shown()
    }
    /// Whether this host has plan mode, as far as known.
    pub fn plan_capability(&self) -> Capability {
        self.plan.capability()
    }
    /// Changes whenever the plan state or capability does (export cache key).
    pub fn plan_rev(&self) -> u64 {
        self.plan_rev
    }
    /// A turn is running, as the host's last `session/status` said.
    pub fn running(&self) -> bool {
        self.running
    }
    /// The last prompt verb that failed, and why.
    pub fn prompt_error(&self) -> Option<(PromptOp, &RpcError)> {
        self.prompt_error.as_ref().map(|(op, e)| (*op, e))
    }
    /// The message of the host's last `agent/error` frame.
    pub fn last_agent_error(&self) -> Option<&str> {
        self.last_agent_error.as_deref()
    }
    /// The `session/title` frame's title; else today's upstream `title` projection (a string,
    /// or `null` before one is set).
    pub fn title(&self) -> Option<String> {
        if let Some(t) = &self.title {
            return Some(t.clone());
        }
        let row = self.projections.get(wire::interaction::PROJ_TITLE)?;
        row.value.as_string()
    }
    /// The prompt queue's items (`null` until a host sends one).
    pub fn queue(&self) -> Option<&Rc<Json>> {
        self.queue.as_ref()
    }
    /// Changes whenever `queue` does (export cache key).
    pub fn queue_rev(&self) -> u64 {
        self.queue_rev
    }
    /// The session's projections (the host's derived values, by key).
    pub fn projections(&self) -> &ProjectionStore {
        &self.projections
    }
    /// Changes whenever a scalar part of the snapshot (state, running, errors, title, ...) does.
    pub fn meta_rev(&self) -> u64 {
        self.meta_rev
    }
    /// The open generation: events and answers of an older one are ignored.
    pub fn generation(&self) -> OpenGeneration {
        self.gen
    }
    /// Counters of what was dropped, refused or repaired (for diagnostics and tests).
    pub fn diagnostics(&self) -> &Diagnostics {
        &self.diag
    }
    /// Requests sent and not yet answered (for drivers and tests).
    pub fn in_flight(&self) -> usize {
        self.inflight.len()
    }
}

#[cfg(test)]
mod tests;
