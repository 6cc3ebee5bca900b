//! A provider session's adapter (guarded by the log lock, like everything that changes with
//! the log) and the prompts its running turn waits on; the glue that logs the adapter's outputs
//! is `crate::agent::provider`.

use crate::providers::adapters::{capabilities_projection, Answered, Canonical, ProviderAdapter};
use crate::providers::registry::Provider;
use crate::providers::scripted::{self as profiles, Ctx};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use tokio::sync::oneshot;

pub struct ProviderState {
    pub profile: Provider,
    pub adapter: ProviderAdapter,
    /// Prompts a running turn waits on: prompt id -> where the accepted answer goes.
    pub waiters: HashMap<String, oneshot::Sender<Answered>>,
}

impl ProviderState {
    /// A fresh adapter primed with the session's mode, and the projections that yields
    /// (capabilities and mode).
    pub fn new(
        profile: Provider,
        session_id: &str,
        plan_active: bool,
    ) -> Option<(ProviderState, BTreeMap<String, Value>)> {
        let mut adapter = ProviderAdapter::for_provider(profile);
        let mut projections = BTreeMap::new();
        let ctx = Ctx { session_id, turn: 0, prompt: "" };
        let mut outs = vec![capabilities_projection(adapter.capabilities())];
        outs.extend(ingest_initial(&mut adapter, profile, &ctx, plan_active));
        for o in outs {
            if let Canonical::Projection { key, value } = o {
                projections.insert(key.to_string(), value);
            }
        }
        Some((ProviderState { profile, adapter, waiters: HashMap::new() }, projections))
    }
}

fn ingest_initial(adapter: &mut ProviderAdapter, profile: Provider, ctx: &Ctx, plan: bool) -> Vec<Canonical> {
    if profile == Provider::Acp {
        // A real agent's modes are known from its `session/new` answer, at the first turn.
        return Vec::new();
    }
    let payload = profiles::initial_payload(profile, ctx, plan);
    match adapter {
        ProviderAdapter::Cursor(a) => a.ingest_session_result(&payload),
        other => other.ingest(&payload),
    }
}
