//! The sans-IO core. Everything here is deterministic: inputs in, effects out.

pub mod sse;
pub mod wire;
