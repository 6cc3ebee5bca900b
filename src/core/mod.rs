//! The sans-IO core. Everything here is deterministic: inputs in, effects out.
//!
//! Modules: [`session`] (the per-session state machine), [`client`] (the host client that owns
//! the connection and every session), [`projection`] (the projection store), [`time`] (the
//! monotonic instant), [`vecmap`] and [`strindex`] (the small maps the registries use).

pub mod client;
pub mod projection;
pub mod session;
pub mod strindex;
pub mod time;
pub mod vecmap;
pub use agent_session_onepass::sse;
pub use agent_session_wire as wire;
