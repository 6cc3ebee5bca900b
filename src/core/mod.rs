//! The sans-IO core. Everything here is deterministic: inputs in, effects out.

pub mod client;
pub mod projection;
pub mod session;
pub mod time;
pub mod vecmap;
pub use agent_session_onepass::sse;
pub use agent_session_wire as wire;
