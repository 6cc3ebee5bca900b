//! What the layers under the `App` share: the store, the stream hub, the pending
//! interactions, the fault knobs and the options. Sessions, the plan service, the provider glue
//! and the scripted agent take this (`&Base`, or `Arc<Base>` for a turn's driver task) rather
//! than the `App`, which holds it with the session registry and the stream tickets.

use crate::dialect::Downlinks;
use crate::dialect::Wire;
use crate::faults::Faults;
use crate::log::hub::Hub;
use crate::log::interact::Interactions;
use crate::log::roster::Roster;
use crate::log::store::Store;
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
    /// The sessions this process holds.
    pub sessions: Roster,
}
