//! The dispatch to each provider profile's scripts.

use super::ctx::Ctx;
use super::{claude, codex, cursor};
use crate::providers::registry::Provider as Profile;
use serde_json::Value;

/// The native payload of a mode change (`plan` or back to the default mode).
pub fn mode_payload(p: Profile, ctx: &Ctx, plan: bool) -> Value {
    match p {
        Profile::Codex => codex::turn_start(ctx, plan),
        Profile::Claude => claude::system_init(ctx, plan),
        Profile::Cursor | Profile::Acp => cursor::mode_update(ctx, plan),
    }
}

/// The payload that primes a fresh adapter at session creation (and after a restart): the
/// mode the session is in. Its canonical events are not logged, its projections are kept.
pub fn initial_payload(p: Profile, ctx: &Ctx, plan: bool) -> Value {
    match p {
        Profile::Cursor | Profile::Acp => cursor::session_new_result(ctx, plan),
        _ => mode_payload(p, ctx, plan),
    }
}

pub fn opening(p: Profile, ctx: &Ctx) -> Vec<Value> {
    match p {
        Profile::Codex => codex::opening(ctx),
        Profile::Claude => claude::opening(ctx),
        Profile::Cursor | Profile::Acp => cursor::turn(ctx),
    }
}

/// The rest of the turn after the question was answered; `reply` is the adapter's native
/// answer (`Answered::result`).
pub fn closing(p: Profile, ctx: &Ctx, reply: &Value) -> Vec<Value> {
    match p {
        Profile::Codex => codex::closing(ctx, reply),
        Profile::Claude => claude::closing(ctx, reply),
        Profile::Cursor | Profile::Acp => Vec::new(),
    }
}

/// What the provider sends when its waiting question is withdrawn (the turn was cancelled).
pub fn withdrawn(p: Profile, ctx: &Ctx) -> Option<Value> {
    match p {
        Profile::Codex => Some(codex::request_resolved(ctx)),
        Profile::Claude => Some(claude::question_declined(ctx)),
        Profile::Cursor | Profile::Acp => None,
    }
}
