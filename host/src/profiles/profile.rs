//! The provider profiles and the dispatch to each one's scripts.

use super::script::Ctx;
use super::{claude, codex, cursor};
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    Codex,
    Claude,
    Cursor,
}

/// What `session.create`'s `provider` accepts.
pub const NAMES: &[&str] = &["default", "codex", "claude", "cursor"];

/// A `provider` that names no profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownProvider(pub String);

impl std::fmt::Display for UnknownProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown provider {:?}: expected one of {}", self.0, NAMES.join(", "))
    }
}

impl std::error::Error for UnknownProvider {}

impl Profile {
    /// `Ok(None)` for the default agent (absent or `default`), `Err` for an unknown name.
    pub fn parse(name: Option<&str>) -> Result<Option<Profile>, UnknownProvider> {
        match name {
            None | Some("default") => Ok(None),
            Some("codex") => Ok(Some(Profile::Codex)),
            Some("claude") => Ok(Some(Profile::Claude)),
            Some("cursor") => Ok(Some(Profile::Cursor)),
            Some(other) => Err(UnknownProvider(other.to_string())),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Profile::Codex => "codex",
            Profile::Claude => "claude",
            Profile::Cursor => "cursor",
        }
    }
}

/// The native payload of a mode change (`plan` or back to the default mode).
pub fn mode_payload(p: Profile, ctx: &Ctx, plan: bool) -> Value {
    match p {
        Profile::Codex => codex::turn_start(ctx, plan),
        Profile::Claude => claude::system_init(ctx, plan),
        Profile::Cursor => cursor::mode_update(ctx, plan),
    }
}

/// The payload that primes a fresh adapter at session creation (and after a restart): the
/// mode the session is in. Its canonical events are not logged, its projections are kept.
pub fn initial_payload(p: Profile, ctx: &Ctx, plan: bool) -> Value {
    match p {
        Profile::Cursor => cursor::session_new_result(ctx, plan),
        _ => mode_payload(p, ctx, plan),
    }
}

pub fn opening(p: Profile, ctx: &Ctx) -> Vec<Value> {
    match p {
        Profile::Codex => codex::opening(ctx),
        Profile::Claude => claude::opening(ctx),
        Profile::Cursor => cursor::turn(ctx),
    }
}

/// The rest of the turn after the question was answered; `reply` is the adapter's native
/// answer (`Answered::result`).
pub fn closing(p: Profile, ctx: &Ctx, reply: &Value) -> Vec<Value> {
    match p {
        Profile::Codex => codex::closing(ctx, reply),
        Profile::Claude => claude::closing(ctx, reply),
        Profile::Cursor => Vec::new(),
    }
}

/// What the provider sends when its waiting question is withdrawn (the turn was cancelled).
pub fn withdrawn(p: Profile, ctx: &Ctx) -> Option<Value> {
    match p {
        Profile::Codex => Some(codex::request_resolved(ctx)),
        Profile::Claude => Some(claude::question_declined(ctx)),
        Profile::Cursor => None,
    }
}
