//! Provider profiles of the scripted agent (`session.create {provider}`): per provider, the
//! native payloads a plan-mode turn is made of, in that provider's real shapes. They are fed
//! to the matching adapter (`crate::providers::adapters`), whose canonical outputs the host logs.
//!
//! A plan turn is two halves: [`opening`] (up to and including the question, or the whole turn
//! when the provider asks none) and [`closing`] (after the answer, which it reads back in the
//! provider's own answer shape). Everything is deterministic: ids derive from the turn number.
//!
//! Modules: `profile` (the dispatch to each profile's scripts), `ctx` (the turn scripted and
//! the plan text), `codex`, `claude` and `cursor` (each provider's native payloads) and
//! `texts` (what the agent says, split into deltas).

pub mod claude;
pub mod codex;
mod ctx;
pub mod cursor;
mod profile;
pub mod texts;

pub use ctx::Ctx;
pub use profile::*;
