//! What a session remembers of the 2026-08 host's commands (the list, the plan
//! selections waiting for their `command/done`); `commands` acts on it.

use super::io::{OpId, WakeToken};
use crate::core::wire::Json;
use std::rc::Rc;

/// Most recent `command/done` ids remembered for answers that arrive after their event.
pub(super) const RECENT_DONE: usize = 16;
/// Most selections waiting at once; past this the oldest settles with what is known.
pub(super) const MAX_WAITING: usize = 64;

/// A plan selection answered by the host and waiting for its handler to finish.
#[derive(Debug, Clone)]
pub(super) struct Waiting {
    pub(super) command_id: String,
    pub(super) op: OpId,
    pub(super) token: WakeToken,
}

/// Command state of one session (the 2026-08 host only).
#[derive(Debug, Default)]
pub struct Commands {
    /// The last `commands/list` value (`[{name, description?, input?}]`), as sent.
    pub list: Option<Rc<Json>>,
    pub rev: u64,
    /// `commands/change` arrived while a list request was in flight: ask again after it.
    pub(super) stale: bool,
    pub(super) waiting: Vec<Waiting>,
    /// Ids of the newest `command/done` events seen, oldest first (bounded by [`RECENT_DONE`];
    /// a `Vec`, not a `VecDeque`: that links a second ring buffer into the wasm for 16 ids).
    pub(super) done: Vec<String>,
}
