//! The sans-IO core. Everything here is deterministic: inputs in, effects out.

pub mod client;
pub mod projection;
pub mod session;
pub mod sse;
pub mod wire;
