//! What the layers under the `App` share: the store, the stream hub, the pending
//! interactions, the fault knobs, the options and the spawner. Sessions, the plan service, the
//! provider glue and the scripted agent take this (`&Base`, or `Arc<Base>` for a turn's driver
//! task) rather than the `App`, which holds it with the session roster and the stream tickets.

use crate::dialect::Downlinks;
use crate::dialect::Wire;
use crate::faults::Faults;
use crate::log::hub::Hub;
use crate::log::interact::Interactions;
use crate::log::lineage::Subagent;
use crate::log::store::Store;
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

pub struct Options {
    pub plan_mode: bool,
    pub chunk_delay: Duration,
    pub downlinks: Downlinks,
    pub ticket_ttl: Duration,
    /// The wire generation this host speaks (`--wire`); one per process.
    pub wire: Wire,
}

pub struct Base {
    pub store: Store,
    pub hub: Hub,
    pub interactions: Interactions,
    pub faults: Option<Faults>,
    pub options: Options,
    /// How a turn starts a session of its own (set once, by the `App` at start-up).
    pub spawner: Arc<dyn Spawner>,
}

/// A boxed [`Spawner`] future (the spawner is held as a trait object).
pub type Spawning<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a turn reaches to start a session of its own (the scripted agent's `subagent` tool).
/// The sessions are held above this module (the `App`'s roster, with the runtime that plays
/// their turns), and the session type's module takes the `Base`, so a session is named here
/// by its id and the rest passed as plain values.
pub trait Spawner: Send + Sync {
    /// A subagent child of session `parent` (its lineage stored, announced), its log opened
    /// with `descriptor` (`subagent/descriptor`), and a turn started in it for the prompt
    /// `content` (`rpc_id` the prompt's id): the child's id, or why not, worded for the
    /// parent's turn error.
    fn spawn<'a>(
        &'a self,
        base: &'a Arc<Base>,
        parent: &'a str,
        subagent: Subagent,
        descriptor: Value,
        content: Vec<Value>,
        rpc_id: String,
    ) -> Spawning<'a, Result<String, String>>;
    /// Once session `child`'s turn has ended: the text of its last assistant message (`None`
    /// when it has none, or the session is gone).
    fn answer<'a>(&'a self, base: &'a Base, child: &'a str) -> Spawning<'a, Option<String>>;
    /// Cancels session `child`'s turn (as `session.cancel` does); answers once it has ended.
    fn cancel<'a>(&'a self, base: &'a Base, child: &'a str) -> Spawning<'a, ()>;
}
